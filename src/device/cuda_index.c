/* cuda_index.c: gathers and scatters on CUDA (ndx_cuda_gather,
 * ndx_cuda_scatter and ndx_cuda_check of ndx_cuda.h).
 *
 * A call is the launch cuda_index_plan.c plans, in stream order: one
 * cudaMallocAsync of the call's device memory (the status words, then the
 * claims table of a claims scatter), a cudaMemsetAsync to 0, the check
 * kernel, the copy kernel (which writes nothing once the check recorded a
 * fault), a cudaMemcpyAsync of the status words into a pinned host slot,
 * cudaFreeAsync, and an event. The host never waits: the call's report (the
 * slot, the event, what a fault message names) joins the pending reports,
 * oldest first, and ndx_cuda_check(stream) waits for that stream's events
 * and reads their slots. Each call first frees the reports that completed
 * without a fault, so a caller who never checks keeps no more than its calls
 * in flight and its faults.
 *
 * Reports are pooled with their slots: NDX_CUDA_SLOTS slots of pinned memory
 * a cudaHostAlloc (cudaHostAllocDefault: what cudaMallocHost gives; HIP's
 * hipHostMalloc), made when the pool is empty and kept for the process's
 * life (cudaFreeHost would synchronize the device). One mutex guards the
 * pending list and the pool.
 *
 * An index plan (ndx_cuda_index_plan_*, planned by cuda_index_plan.c) is the
 * same launch of a call planned once. Its temporaries need no pool of the
 * plan's: the device memory comes from the stream-ordered allocator
 * (cudaMallocAsync, which reuses its pool's memory), the pinned status
 * slots and events from the process's pool above.
 *
 * The HIP build compiles this file again with NDX_HIP (libndx_hip:
 * ndx_hip_gather, ndx_hip_scatter, ndx_hip_check); kernels/ndx_gpu.h maps
 * the names, and the messages name the calls as that build spells them. */
#include <pthread.h>
#include <stdlib.h>

#include "ndx_gpu.h"
#include "cuda_index_plan.h"
#include "host/ndx_internal.h"

/* Reports (and pinned slots) made at a time. */
#define NDX_CUDA_SLOTS 64

typedef struct report {
  struct report *next;
  cudaStream_t stream;
  cudaEvent_t done; /* recorded after the status words are copied; NULL until first used */
  uint32_t *host;   /* NDX_INDEX_STATUS_WORDS pinned words */
  ndx_index_site site;
} report;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static report *pending, *pending_last; /* not yet known complete, oldest first */
static report *faults, *faults_last;   /* complete with a fault, oldest first */
static report *spare;                  /* the pool */

static ndx_status cuda_fail(const char *fn, const char *what, cudaError_t e) {
  return ndx_set_error(NDX_EDEVICE, "%s: %s failed: %s (%s)", fn, what, cudaGetErrorName(e),
                       cudaGetErrorString(e));
}

/* ---- Reports ------------------------------------------------------------------ */

/* Adds NDX_CUDA_SLOTS reports to the pool (under the lock). */
static ndx_status grow_pool(const char *fn) {
  report *block = calloc(NDX_CUDA_SLOTS, sizeof *block);
  if (!block) return ndx_set_error(NDX_ENOMEM, "%s: out of host memory", fn);
  uint32_t *words;
  cudaError_t e = cudaHostAlloc((void **)&words, NDX_CUDA_SLOTS * NDX_CUDA_INDEX_STATUS_BYTES,
                                cudaHostAllocDefault);
  if (e != cudaSuccess) {
    free(block);
    return cuda_fail(fn, NDX_GPU_STR(cudaHostAlloc), e);
  }
  for (int k = 0; k < NDX_CUDA_SLOTS; k++) {
    block[k].host = words + k * (NDX_CUDA_INDEX_STATUS_BYTES / 4);
    block[k].next = spare;
    spare = &block[k];
  }
  return NDX_OK;
}

/* Appends `r` to the list `*head` .. `*last`. */
static void append(report **head, report **last, report *r) {
  r->next = NULL;
  if (*last)
    (*last)->next = r;
  else
    *head = r;
  *last = r;
}

/* Oldest first, up to the first report not yet complete (under the lock):
 * one without a fault goes back to the pool, one with a fault waits on
 * `faults` for its stream's ndx_cuda_check. Each call costs what it moves,
 * not the length of the list. */
static void reap(void) {
  while (pending && cudaEventQuery(pending->done) == cudaSuccess) {
    report *r = pending;
    pending = r->next;
    if (r->host[0]) {
      append(&faults, &faults_last, r);
    } else {
      r->next = spare;
      spare = r;
    }
  }
  if (!pending) pending_last = NULL;
}

/* A report from the pool, with its event, for a call on `stream`. */
static ndx_status take_report(const char *fn, cudaStream_t stream, report **out) {
  ndx_status s = NDX_OK;
  pthread_mutex_lock(&lock);
  reap();
  if (!spare) s = grow_pool(fn);
  report *r = NULL;
  if (s == NDX_OK) {
    r = spare;
    spare = r->next;
    r->next = NULL;
    cudaError_t e =
        r->done ? cudaSuccess : cudaEventCreateWithFlags(&r->done, cudaEventDisableTiming);
    if (e != cudaSuccess) {
      r->done = NULL;
      r->next = spare;
      spare = r;
      s = cuda_fail(fn, NDX_GPU_STR(cudaEventCreateWithFlags), e);
    }
  }
  pthread_mutex_unlock(&lock);
  if (s != NDX_OK) return s;
  r->stream = stream;
  *out = r;
  return NDX_OK;
}

/* Returns `r` to the pool (`pend` false) or appends it to the pending
 * reports. */
static void put_report(report *r, bool pend) {
  pthread_mutex_lock(&lock);
  if (pend) {
    append(&pending, &pending_last, r);
  } else {
    r->next = spare;
    spare = r;
  }
  pthread_mutex_unlock(&lock);
}

/* ---- A call --------------------------------------------------------------------- */

/* The pointers' CUDA-specific rules: not NULL, aligned, dst's bytes apart
 * from src's and index's. */
static ndx_status check_pointers(const char *fn, const ndx_index_plan *p, void *dst,
                                 const void *src, const void *index) {
  if (!dst || !src || !index)
    return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", fn, !dst ? "dst" : !src ? "src" : "index");
  uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src, i = (uintptr_t)index;
  uintptr_t align = p->bits >= 128 ? 16 : p->bits >= 8 ? (uintptr_t)p->bits / 8 : 1;
  if (d % align || s % align)
    return ndx_set_error(NDX_EINVAL, "%s: %s %p is not aligned to %u bytes for %d-bit elements", fn,
                         d % align ? "dst" : "src", d % align ? dst : src, (unsigned)align,
                         p->bits);
  if (i % (uintptr_t)(p->index_bits / 8))
    return ndx_set_error(NDX_EINVAL,
                         "%s: index %p is not aligned to %d bytes for %d-bit index elements", fn,
                         index, p->index_bits / 8, p->index_bits);
  uintptr_t dlo = d + (uintptr_t)p->dst_lo, dend = d + (uintptr_t)p->dst_end;
  const char *names[2] = {"src", "index"};
  uintptr_t lo[2] = {s + (uintptr_t)p->src_lo, i + (uintptr_t)p->index_lo};
  uintptr_t end[2] = {s + (uintptr_t)p->src_end, i + (uintptr_t)p->index_end};
  for (int k = 0; k < 2; k++)
    if (dlo < end[k] && lo[k] < dend)
      return ndx_set_error(NDX_EINVAL, "%s: dst's bytes [%p, %p) and %s's [%p, %p) overlap", fn,
                           (void *)dlo, (void *)dend, names[k], (void *)lo[k], (void *)end[k]);
  return NDX_OK;
}

/* Enqueues the call's memory, kernels, status copy and event on `stream`.
 * On failure after the status copy was enqueued, waits for the stream, so
 * that the slot may go back to the pool. */
static ndx_status enqueue(const char *fn, const ndx_cuda_index_call *c, report *r,
                          cudaStream_t stream, void *dst, const void *src, const void *index) {
  void *temp = NULL;
  const char *what = NDX_GPU_STR(cudaMallocAsync);
  bool copied = false;
  cudaError_t e = cudaMallocAsync(&temp, c->temp_bytes, stream);
  if (e == cudaSuccess) {
    what = NDX_GPU_STR(cudaMemsetAsync);
    e = cudaMemsetAsync(temp, 0, c->temp_bytes, stream);
  }
  uint32_t *status = temp,
           *claims = c->plan.nclaims > 0 ? status + NDX_CUDA_INDEX_STATUS_BYTES / 4 : NULL;
  if (e == cudaSuccess) {
    what = "launching the index check kernel";
    e = (cudaError_t)ndx_cuda_index_launch_check(&c->check, c->check_blocks, (void *)stream, index,
                                                 claims, status);
  }
  if (e == cudaSuccess) {
    what = "launching the index copy kernel";
    /* the claims form reads the table as its index, the winners form beside it */
    bool winners = c->plan.form == NDX_INDEX_WINNERS;
    if (c->along)
      e = (cudaError_t)ndx_cuda_index_launch_along(&c->along_args, c->plan.bits, c->copy_blocks,
                                                   (void *)stream, dst, src, index, status);
    else
      e = (cudaError_t)ndx_cuda_index_launch_copy(
          &c->copy, c->copy_blocks, (void *)stream, dst, src,
          claims && !winners ? (const void *)claims : index, winners ? claims : NULL, status);
  }
  if (e == cudaSuccess) {
    what = NDX_GPU_STR(cudaMemcpyAsync);
    e = cudaMemcpyAsync(r->host, status, NDX_CUDA_INDEX_STATUS_BYTES, cudaMemcpyDeviceToHost,
                        stream);
    copied = e == cudaSuccess;
  }
  if (temp) {
    cudaError_t f = cudaFreeAsync(temp, stream);
    if (e == cudaSuccess) what = NDX_GPU_STR(cudaFreeAsync), e = f;
  }
  if (e == cudaSuccess) {
    what = NDX_GPU_STR(cudaEventRecord);
    e = cudaEventRecord(r->done, stream);
  }
  if (e == cudaSuccess) return NDX_OK;
  ndx_status s = cuda_fail(fn, what, e);
  if (copied) (void)cudaStreamSynchronize(stream);
  return s;
}

/* A planned call launched for `fn`: pointers, report, then the launch. */
static ndx_status launch_call(const char *fn, const ndx_cuda_index_call *c, cudaStream_t stream,
                              void *dst, const void *src, const void *index) {
  ndx_status s = check_pointers(fn, &c->plan, dst, src, index);
  if (s != NDX_OK || c->plan.empty) return s;
  report *r;
  s = take_report(fn, stream, &r);
  if (s != NDX_OK) return s;
  r->site = c->plan.site;
  r->site.call = fn;
  s = enqueue(fn, c, r, stream, dst, src, index);
  put_report(r, s == NDX_OK);
  return s;
}

/* One gather or scatter: plan (on the stack), then the launch. */
static ndx_status index_call(const char *fn, bool scatter, unsigned internal, cudaStream_t stream,
                             void *dst, const ndx_layout *dst_l, const void *src,
                             const ndx_layout *src_l, int axis, const void *index,
                             const ndx_layout *index_l, int index_bits, unsigned flags, int bits) {
  ndx_cuda_index_call c;
  ndx_status s = ndx_cuda_index_fill(&c, fn, scatter, dst_l, src_l, axis, index_l, index_bits,
                                     flags, bits, internal);
  return s == NDX_OK ? launch_call(fn, &c, stream, dst, src, index) : s;
}

ndx_status ndx_cuda_index_plan_launch(const ndx_cuda_index_plan *plan, cudaStream_t stream,
                                      void *dst, const void *src, const void *index) {
  if (!plan)
    return ndx_set_error(NDX_EINVAL, "%s: plan is NULL", NDX_GPU_STR(ndx_cuda_index_plan_launch));
  return launch_call(NDX_GPU_STR(ndx_cuda_index_plan_launch), &plan->call, stream, dst, src, index);
}

ndx_status ndx_cuda_index_flags(bool scatter, unsigned internal, cudaStream_t stream, void *dst,
                                const ndx_layout *dst_l, const void *src, const ndx_layout *src_l,
                                int axis, const void *index, const ndx_layout *index_l,
                                int index_bits, unsigned flags, int bits) {
  return index_call(scatter ? NDX_GPU_STR(ndx_cuda_scatter) : NDX_GPU_STR(ndx_cuda_gather), scatter,
                    internal, stream, dst, dst_l, src, src_l, axis, index, index_l, index_bits,
                    flags, bits);
}

ndx_status ndx_cuda_gather(cudaStream_t stream, void *dst, const ndx_layout *dst_l, const void *src,
                           const ndx_layout *src_l, int axis, const void *index,
                           const ndx_layout *index_l, int index_bits, unsigned flags, int bits) {
  return index_call(NDX_GPU_STR(ndx_cuda_gather), false, 0, stream, dst, dst_l, src, src_l, axis,
                    index, index_l, index_bits, flags, bits);
}

ndx_status ndx_cuda_scatter(cudaStream_t stream, void *dst, const ndx_layout *dst_l,
                            const void *src, const ndx_layout *src_l, int axis, const void *index,
                            const ndx_layout *index_l, int index_bits, unsigned flags, int bits) {
  return index_call(NDX_GPU_STR(ndx_cuda_scatter), true, 0, stream, dst, dst_l, src, src_l, axis,
                    index, index_l, index_bits, flags, bits);
}

/* ---- Checking ------------------------------------------------------------------- */

/* Moves the reports of `stream` from the list `*head` .. `*last` to the
 * end of `*tail`'s list, in their order. */
static void take_stream(report **head, report **last, cudaStream_t stream, report ***tail) {
  report **at = head;
  *last = NULL;
  while (*at) {
    report *r = *at;
    if (r->stream == stream) {
      *at = r->next;
      r->next = NULL;
      **tail = r;
      *tail = &r->next;
    } else {
      *last = r;
      at = &r->next;
    }
  }
}

/* Takes the reports of `stream` off the lists, oldest first: its faults
 * (complete, so older than its pending ones), then its pending ones. */
static report *detach(cudaStream_t stream) {
  report *mine = NULL, **tail = &mine;
  pthread_mutex_lock(&lock);
  take_stream(&faults, &faults_last, stream, &tail);
  take_stream(&pending, &pending_last, stream, &tail);
  pthread_mutex_unlock(&lock);
  return mine;
}

ndx_status ndx_cuda_check(cudaStream_t stream) {
  report *mine = detach(stream);
  ndx_status s = NDX_OK;
  while (mine) {
    report *r = mine;
    mine = r->next;
    cudaError_t e = cudaEventSynchronize(r->done);
    if (s == NDX_OK && e != cudaSuccess)
      s = cuda_fail(NDX_GPU_STR(ndx_cuda_check), NDX_GPU_STR(cudaEventSynchronize), e);
    else if (s == NDX_OK && r->host[0])
      s = ndx_index_fault(&r->site, (int64_t)((uint64_t)r->host[1] | (uint64_t)r->host[2] << 32),
                          (int64_t)((uint64_t)r->host[3] | (uint64_t)r->host[4] << 32));
    put_report(r, false);
  }
  return s;
}
