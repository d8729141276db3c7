/* cl_index.c: gathers and scatters on OpenCL (ndx_cl_gather, ndx_cl_scatter
 * and the index plans of ndx_cl.h).
 *
 * A plan is the shared planner's two passes (host/index_plan.h) made ready
 * to enqueue: both kernels picked (built the first time), their launch sizes
 * and scalar arguments computed, and both packs written once into read-only
 * buffers of the plan's own, never written again. An enqueue runs the
 * passes in order with events, so that in-order and out-of-order queues
 * alike run them one after the other: a fill of the status words (and of
 * the claims table, for a claims scatter), then the check kernel, then the
 * copy kernel, then the read-back of the status, whose event is the
 * call's. The check pass's status (kernels/ndx_index_launch.h), read
 * without waiting, joins the
 * ndx_cl's pending reports (cl.c), which ndx_cl_check collects; each
 * enqueue first frees the reports already read (ndx_cl_reap), so that a
 * caller who never checks keeps no more than its copies in flight.
 *
 * The status words and the claims table are a slot of the plan's pool: an
 * enqueue takes a free slot (or makes one: its only clCreateBuffer calls),
 * and the slot goes back to the pool when the last commands that use it,
 * the copy kernel and the status read-back, are complete; the oldest busy
 * slots are tested at each enqueue, without waiting. So a slot is never
 * written while a command of another call still uses it, on any queue, and
 * a steady stream of enqueues that the device keeps up with makes no
 * buffer. A burst of enqueues takes one slot per call in flight; up to
 * NDX_CL_INDEX_SPARE idle slots (NDX_CL_INDEX_SPARE_BYTES) are kept for
 * the next burst. ndx_cl_gather and
 * ndx_cl_scatter are a plan made, enqueued once and destroyed.
 *
 * Both shapes' kernels take the same arguments (kernels/ndx_index.cl). In
 * the gpu shape each pack's buffer starts with the pass's launch
 * descriptor (kernels/ndx_index_launch.h, planned by index_plan.c), and
 * the launch sizes are the descriptors'. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_runtime.h"
#include "cl_tuning.h"
#include "host/ndx_internal.h"
#include "host/launch.h" /* ndx_launch_bytes */
#include "ndx_index_launch.h"

/* Idle slots a plan keeps for its next enqueues: this many at most, and
 * past the first, no more than NDX_CL_INDEX_SPARE_BYTES of them. */
#define NDX_CL_INDEX_SPARE 64
#define NDX_CL_INDEX_SPARE_BYTES ((size_t)64 << 20)

/* What one pass launches: its kernel, its launch size, and its name in
 * bounds-check reports. */
typedef struct pass {
  cl_kernel kernel;
  size_t global, local;
  char name[64];
} pass;

/* One call's status words and claims table, and the events of the last
 * commands that used them (NULL: none). */
typedef struct slot {
  struct slot *next;
  cl_mem status, claims;
  cl_event used[2];
  bool fresh; /* zeroed at creation, not used yet */
} slot;

struct ndx_cl_index_plan {
  ndx_cl *cl;
  ndx_index_plan p;
  bool skip_check;
  unsigned internal;
  pass check, copy;
  enum ndx_cl_kind kind;
  int64_t copy_items;
  cl_long copy_chunk;
  int64_t copy_first, copy_end; /* below 8 bits: the destination's bytes */
  cl_int rows;
  size_t claims_bytes; /* 0: no claims table */
  cl_mem check_pack, copy_pack;
  bool gpu;                   /* the gpu shape: the packs follow launch[0] and launch[1] */
  ndx_index_launch launch[2]; /* the check and copy passes' */
  pthread_mutex_t lock;       /* the pool */
  slot *idle, *busy, *busy_last;
  int nidle;
};

/* The kernel of `kind` and width (built the first time, cl_program.c), and
 * a launch of `items` work-items. */
static ndx_status pick(pass *ps, ndx_cl *cl, const char *fn, bool wide, enum ndx_cl_kind kind,
                       int bits, int64_t items, const char *name) {
  ndx_status s = ndx_cl_kernel(cl, fn, wide, kind, bits, &ps->kernel, &ps->local);
  if (s != NDX_OK) return s;
  ps->global = ndx_round_up((size_t)items, ps->local);
  snprintf(ps->name, sizeof ps->name, "%s%s", name, wide ? ", 64-bit form" : "");
  return NDX_OK;
}

/* The copy pass's work per work-item (cl_tuning.h): elements, or
 * destination bytes below 8 bits, of the span's bytes [*first, *end). */
static int64_t copy_chunk(const ndx_index_plan *p, int64_t *items, int64_t *first, int64_t *end) {
  const ndx_operands *q = &p->copy;
  *first = *end = 0;
  if (p->bits < 8) {
    ndx_launch_bytes(q, p->bits, first, end);
    int64_t chunk = ndx_launch_bytes_chunk(*end - *first, q->numel, NDX_CL_INDEX_BYTES_ELEMS);
    *items = ndx_ceil_div(*end - *first, chunk);
    return chunk;
  }
  int64_t chunk = p->rows ? NDX_CL_INDEX_ROWS_BYTES / (p->bits / 8) : NDX_CL_INDEX_ELEMS;
  *items = ndx_ceil_div(q->numel, chunk);
  return chunk;
}

/* The copy kernel's `rows`: 0 for a copy by elements, 1 by rows, 2 by rows
 * written with streaming stores (NDX_CL_STREAM_CACHE_SHARE). */
static cl_int copy_rows(const ndx_cl *cl, const ndx_index_plan *p) {
  if (!p->rows) return 0;
  return (cl_ulong)p->copy.numel * (cl_ulong)(p->bits / 8) >= cl->stream_bytes ? 2 : 1;
}

/* The gpu shape's launches: the descriptors, and the launch sizes they
 * set, of `local`-item groups the pick gave each pass. */
static void gpu_launches(ndx_cl_index_plan *pl) {
  int64_t groups;
  ndx_index_launch_check(&pl->p, (int64_t)pl->check.local, NDX_CL_GPU_MAX_GROUPS, &pl->launch[0],
                         &groups);
  pl->check.global = (size_t)groups * pl->check.local;
  ndx_index_launch_copy(&pl->p, (int64_t)pl->copy.local, NDX_CL_GPU_MAX_GROUPS, &pl->launch[1],
                        &groups);
  pl->copy.global = (size_t)groups * pl->copy.local;
  pl->copy_items = pl->launch[1].units;
}

/* A pack written by `write` into a read-only buffer of its own, after
 * `head` where not NULL (the gpu shape's descriptor), if the device's
 * constant buffers hold it. */
static ndx_status pack_buffer(const ndx_cl *cl, const char *fn, const ndx_index_plan *p,
                              ndx_status (*write)(const ndx_index_plan *, void *, size_t, size_t *),
                              const ndx_index_launch *head, cl_mem *out) {
  /* the most operands, after a descriptor */
  uint64_t
      buf[(sizeof(ndx_index_launch) + NDX_PACK_MAX_BYTES(NDX_COPY_OPS, NDX_PACK_MAX_RANK)) / 8];
  size_t used, at = head ? sizeof *head : 0;
  if (head) memcpy(buf, head, sizeof *head);
  ndx_status s = write(p, buf + at / 8, sizeof buf - at, &used);
  used += at;
  if (s == NDX_OK && used > cl->max_constant)
    s = ndx_set_error(NDX_EUNSUPPORTED,
                      "%s: a pack of %zu bytes is past the device's constant buffer size %llu", fn,
                      used, (unsigned long long)cl->max_constant);
  if (s != NDX_OK) return s;
  cl_int e;
  *out = clCreateBuffer(cl->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, used, buf, &e);
  return e == CL_SUCCESS ? NDX_OK : ndx_cl_fail(fn, "clCreateBuffer", e);
}

/* ---- The pool of slots ------------------------------------------------------------ */

static void slot_free(slot *sl) {
  if (!sl) return;
  if (sl->status) clReleaseMemObject(sl->status);
  if (sl->claims) clReleaseMemObject(sl->claims);
  for (int k = 0; k < 2; k++)
    if (sl->used[k]) clReleaseEvent(sl->used[k]);
  free(sl);
}

/* True when every command that used `sl` has ended (complete, or ended
 * with an error). */
static bool slot_done(const slot *sl) {
  for (int k = 0; k < 2; k++) {
    cl_int st = CL_QUEUED;
    if (sl->used[k] && (clGetEventInfo(sl->used[k], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st,
                                       &st, NULL) != CL_SUCCESS ||
                        st > CL_COMPLETE))
      return false;
  }
  return true;
}

/* Puts `sl`, whose commands have ended, among the idle slots, or releases
 * it when enough are idle (under the plan's lock). */
static void slot_idle(ndx_cl_index_plan *pl, slot *sl) {
  for (int k = 0; k < 2; k++) {
    if (sl->used[k]) clReleaseEvent(sl->used[k]);
    sl->used[k] = NULL;
  }
  size_t bytes = NDX_INDEX_STATUS_WORDS * 4 + pl->claims_bytes;
  if (pl->nidle >= NDX_CL_INDEX_SPARE ||
      (pl->nidle > 0 && (size_t)(pl->nidle + 1) * bytes > NDX_CL_INDEX_SPARE_BYTES)) {
    slot_free(sl);
    return;
  }
  sl->next = pl->idle;
  pl->idle = sl;
  pl->nidle++;
}

/* A slot for one enqueue: an idle one, after moving the oldest busy slots
 * that have ended to the idle ones, or a new one. */
static ndx_status slot_take(ndx_cl_index_plan *pl, const char *fn, slot **out) {
  pthread_mutex_lock(&pl->lock);
  while (pl->busy && slot_done(pl->busy)) {
    slot *sl = pl->busy;
    pl->busy = sl->next;
    slot_idle(pl, sl);
  }
  if (!pl->busy) pl->busy_last = NULL;
  slot *sl = pl->idle;
  if (sl) {
    pl->idle = sl->next;
    pl->nidle--;
  }
  pthread_mutex_unlock(&pl->lock);
  if (sl) {
    sl->next = NULL;
    *out = sl;
    return NDX_OK;
  }
  sl = calloc(1, sizeof *sl);
  if (!sl) return ndx_set_error(NDX_ENOMEM, "%s: out of host memory", fn);
  cl_uint zeros[NDX_INDEX_STATUS_WORDS] = {0};
  cl_int e;
  sl->status = clCreateBuffer(pl->cl->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              sizeof zeros, zeros, &e);
  if (e == CL_SUCCESS && pl->claims_bytes)
    sl->claims = clCreateBuffer(pl->cl->context, CL_MEM_READ_WRITE, pl->claims_bytes, NULL, &e);
  if (e != CL_SUCCESS) {
    if (sl->claims == NULL && sl->status) {
      clReleaseMemObject(sl->status);
      sl->status = NULL;
    }
    slot_free(sl);
    return ndx_cl_fail(fn, "clCreateBuffer", e);
  }
  sl->fresh = true;
  *out = sl;
  return NDX_OK;
}

/* Gives `sl` back after an enqueue: busy until `last` and `read` (taken
 * over; either may be NULL) end, or idle at once when neither is set. */
static void slot_put(ndx_cl_index_plan *pl, slot *sl, cl_event last, cl_event read) {
  sl->used[0] = last;
  sl->used[1] = read;
  pthread_mutex_lock(&pl->lock);
  if (!last && !read) {
    slot_idle(pl, sl);
  } else {
    sl->next = NULL;
    if (pl->busy_last)
      pl->busy_last->next = sl;
    else
      pl->busy = sl;
    pl->busy_last = sl;
  }
  pthread_mutex_unlock(&pl->lock);
}

/* ---- Plans ------------------------------------------------------------------------- */

void ndx_cl_index_plan_destroy(ndx_cl_index_plan *plan) {
  if (!plan) return;
  /* commands still queued keep the buffers they use alive */
  for (slot *sl = plan->idle, *next; sl; sl = next) {
    next = sl->next;
    slot_free(sl);
  }
  for (slot *sl = plan->busy, *next; sl; sl = next) {
    next = sl->next;
    slot_free(sl);
  }
  if (plan->check_pack) clReleaseMemObject(plan->check_pack);
  if (plan->copy_pack) clReleaseMemObject(plan->copy_pack);
  pthread_mutex_destroy(&plan->lock);
  free(plan);
}

/* Makes a plan for `fn`'s messages: the planner's refusals, the kernels
 * and the packs. */
static ndx_status plan_create(const char *fn, ndx_cl_index_plan **out, bool scatter,
                              unsigned internal, ndx_cl *cl, const ndx_layout *dst_l,
                              const ndx_layout *src_l, int axis, const ndx_layout *index_l,
                              int index_bits, unsigned flags, int bits) {
  if (!out || !cl) return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", fn, !out ? "out" : "cl");
  if (internal & ~(unsigned)(NDX_CL_INDEX_WIDE | NDX_CL_INDEX_SKIP_CHECK))
    return ndx_set_error(NDX_EINVAL, "%s: internal flags 0x%x has unknown bits", fn, internal);
  ndx_cl_index_plan *pl = calloc(1, sizeof *pl);
  if (!pl) return ndx_set_error(NDX_ENOMEM, "%s: out of host memory", fn);
  ndx_index_plan *p = &pl->p;
  ndx_status s =
      ndx_index_plan_make(p, fn, scatter, dst_l, src_l, axis, index_l, index_bits, flags, bits);
  if (s == NDX_OK && (internal & NDX_CL_INDEX_SKIP_CHECK) && ndx_index_form_claims(p->form))
    s = ndx_set_error(NDX_EINVAL, "%s: a claims scatter cannot skip its check pass", fn);
  if (s == NDX_OK && pthread_mutex_init(&pl->lock, NULL) != 0)
    s = ndx_set_error(NDX_ENOMEM, "%s: pthread_mutex_init failed", fn);
  if (s != NDX_OK) {
    free(pl);
    return s;
  }
  if (internal & NDX_CL_INDEX_WIDE) p->wide = true;
  pl->cl = cl;
  pl->internal = internal;
  pl->skip_check = (internal & NDX_CL_INDEX_SKIP_CHECK) != 0;
  if (!p->empty) {
    int64_t check_items = ndx_ceil_div(p->check.numel, NDX_CL_INDEX_CHECK_ELEMS);
    s = pick(&pl->check, cl, fn, p->wide, NDX_CL_INDEX_CHECK, 0, check_items, "ndx_index_check");
    pl->copy_chunk = copy_chunk(p, &pl->copy_items, &pl->copy_first, &pl->copy_end);
    pl->gpu = cl->shape == NDX_CL_SHAPE_GPU;
    pl->kind = p->bits < 8                          ? NDX_CL_INDEX_BYTES
               : pl->gpu && ndx_index_plan_along(p) ? NDX_CL_INDEX_ALONG
                                                    : NDX_CL_INDEX_COPY;
    pl->rows = copy_rows(cl, p);
    char name[40];
    snprintf(name, sizeof name, "ndx_index_%s for %d-bit elements",
             pl->kind == NDX_CL_INDEX_BYTES   ? "bytes"
             : pl->kind == NDX_CL_INDEX_ALONG ? "along"
                                              : "copy",
             p->bits);
    if (s == NDX_OK) s = pick(&pl->copy, cl, fn, p->wide, pl->kind, p->bits, pl->copy_items, name);
    if (s == NDX_OK && pl->gpu) gpu_launches(pl);
    if (ndx_index_form_claims(p->form))
      pl->claims_bytes = (size_t)(p->nclaims > 0 ? p->nclaims : 1) * sizeof(cl_uint);
    const ndx_index_launch *head[2] = {pl->gpu ? &pl->launch[0] : NULL,
                                       pl->gpu ? &pl->launch[1] : NULL};
    if (s == NDX_OK)
      s = pack_buffer(cl, fn, p, ndx_index_plan_check_pack, head[0], &pl->check_pack);
    if (s == NDX_OK) s = pack_buffer(cl, fn, p, ndx_index_plan_copy_pack, head[1], &pl->copy_pack);
  }
  if (s != NDX_OK) {
    ndx_cl_index_plan_destroy(pl);
    return s;
  }
  *out = pl;
  return NDX_OK;
}

ndx_status ndx_cl_index_plan_create_gather(ndx_cl_index_plan **out, ndx_cl *cl,
                                           const ndx_layout *dst_l, const ndx_layout *src_l,
                                           int axis, const ndx_layout *index_l, int index_bits,
                                           unsigned flags, int bits) {
  return plan_create("ndx_cl_index_plan_create_gather", out, false, 0, cl, dst_l, src_l, axis,
                     index_l, index_bits, flags, bits);
}

ndx_status ndx_cl_index_plan_create_scatter(ndx_cl_index_plan **out, ndx_cl *cl,
                                            const ndx_layout *dst_l, const ndx_layout *src_l,
                                            int axis, const ndx_layout *index_l, int index_bits,
                                            unsigned flags, int bits) {
  return plan_create("ndx_cl_index_plan_create_scatter", out, true, 0, cl, dst_l, src_l, axis,
                     index_l, index_bits, flags, bits);
}

ndx_status ndx_cl_index_plan_create_flags(ndx_cl_index_plan **out, bool scatter, unsigned internal,
                                          ndx_cl *cl, const ndx_layout *dst_l,
                                          const ndx_layout *src_l, int axis,
                                          const ndx_layout *index_l, int index_bits, unsigned flags,
                                          int bits) {
  return plan_create(
      scatter ? "ndx_cl_index_plan_create_scatter" : "ndx_cl_index_plan_create_gather", out,
      scatter, internal, cl, dst_l, src_l, axis, index_l, index_bits, flags, bits);
}

const char *ndx_cl_index_plan_copy_kernel(const ndx_cl_index_plan *plan) {
  return plan->copy.name;
}

/* ---- Enqueue ----------------------------------------------------------------------- */

/* Sets argument `i` of `k` (a chain of calls that stops at the first
 * failure). */
#define ARG(k, i, v) (e == CL_SUCCESS ? (e = clSetKernelArg(k, i, sizeof(v), &(v))) : e)

/* The bounds-check build's arguments from index `i` on. */
static cl_int bounds_args(cl_kernel k, cl_uint i, const ndx_cl_buffer *b, const ndx_cl_report *r) {
  cl_int e = CL_SUCCESS;
  cl_ulong sizes[3] = {b[0].size, b[1].size, b[2].size};
  ARG(k, i, sizes[0]);
  ARG(k, i + 1, sizes[1]);
  ARG(k, i + 2, sizes[2]);
  ARG(k, i + 3, r->status);
  return e;
}

/* The events and reports of one enqueue; NULL until made. */
typedef struct run {
  slot *sl;
  ndx_cl_report *report, *bounds[2];
  cl_event fill[2], check, copy, read;
} run;

/* Enqueues the fills, the check and the copy (under the ndx_cl's lock,
 * which the kernels' arguments need), then the read-backs; `*done` gets the
 * status read-back's event, after the copy's. */
static ndx_status enqueue_passes(const char *fn, const ndx_cl_index_plan *pl, run *t,
                                 cl_command_queue queue, cl_mem dst, cl_mem src, cl_mem index,
                                 const ndx_cl_buffer *b, cl_uint nwait, const cl_event *wait,
                                 cl_event *done) {
  ndx_cl *cl = pl->cl;
  const ndx_index_plan *p = &pl->p;
  const pass *check = &pl->check, *copy = &pl->copy;
  if (NDX_BOUNDS_CHECK) {
    snprintf(t->bounds[0]->kernel, sizeof t->bounds[0]->kernel, "%s", check->name);
    snprintf(t->bounds[1]->kernel, sizeof t->bounds[1]->kernel, "%s", copy->name);
    for (int k = 0; k < 3; k++) t->bounds[0]->size[k] = t->bounds[1]->size[k] = b[k].size;
  }
  /* the claims form reads the claims table as its index; the winners form
   * reads it beside the index */
  cl_mem status = t->sl->status, claims = t->sl->claims;
  cl_mem moved = p->form == NDX_INDEX_CLAIMS ? claims : index,
         copy_claims = p->form == NDX_INDEX_WINNERS ? claims : NULL;
  cl_int index_bits = p->index_bits, copy_bits = p->copy_index_bits;
  cl_long d = p->site.d, claim_stride = p->claim_stride, check_chunk = NDX_CL_INDEX_CHECK_ELEMS;
  cl_int wrap = p->site.wrap, copy_wrap = p->copy_wrap, rows = pl->rows;
  cl_long copy_d = p->copy_d, bias = p->bias, step0 = p->step[0], step1 = p->step[1];
  cl_long chunk = pl->copy_chunk;
  const char *call = "clEnqueueFillBuffer";
  cl_int e = CL_SUCCESS;
  cl_uint zero = 0, nfill = 0;
  pthread_mutex_lock(&cl->lock);
  if (!t->sl->fresh)
    e = clEnqueueFillBuffer(queue, status, &zero, sizeof zero, 0, NDX_INDEX_STATUS_WORDS * 4, nwait,
                            wait, &t->fill[nfill++]);
  if (e == CL_SUCCESS && claims)
    e = clEnqueueFillBuffer(queue, claims, &zero, sizeof zero, 0, pl->claims_bytes, nwait, wait,
                            &t->fill[nfill++]);
  if (e != CL_SUCCESS) t->fill[--nfill] = NULL;
  const cl_event *after = nfill ? t->fill : wait;
  cl_uint nafter = nfill ? nfill : nwait;
  if (e == CL_SUCCESS) call = "clSetKernelArg";
  ARG(check->kernel, 0, pl->check_pack);
  ARG(check->kernel, 1, index);
  ARG(check->kernel, 2, index_bits);
  ARG(check->kernel, 3, d);
  ARG(check->kernel, 4, wrap);
  ARG(check->kernel, 5, claims);
  ARG(check->kernel, 6, claim_stride);
  ARG(check->kernel, 7, status);
  ARG(check->kernel, 8, check_chunk);
  if (NDX_BOUNDS_CHECK && e == CL_SUCCESS) e = bounds_args(check->kernel, 9, b, t->bounds[0]);
  if (e == CL_SUCCESS) {
    call = "clEnqueueNDRangeKernel";
    size_t global = check->global, local = check->local;
    e = pl->skip_check ? clEnqueueMarkerWithWaitList(queue, nafter, after, &t->check)
                       : clEnqueueNDRangeKernel(queue, check->kernel, 1, NULL, &global, &local,
                                                nafter, after, &t->check);
    if (e != CL_SUCCESS) t->check = NULL;
  }
  if (e == CL_SUCCESS) call = "clSetKernelArg";
  ARG(copy->kernel, 0, pl->copy_pack);
  ARG(copy->kernel, 1, dst);
  ARG(copy->kernel, 2, src);
  ARG(copy->kernel, 3, moved);
  ARG(copy->kernel, 4, status);
  ARG(copy->kernel, 5, copy_bits);
  ARG(copy->kernel, 6, copy_d);
  ARG(copy->kernel, 7, copy_wrap);
  ARG(copy->kernel, 8, bias);
  ARG(copy->kernel, 9, step0);
  ARG(copy->kernel, 10, step1);
  ARG(copy->kernel, 11, chunk);
  cl_uint next = 12;
  if (pl->kind == NDX_CL_INDEX_COPY || pl->kind == NDX_CL_INDEX_ALONG) {
    ARG(copy->kernel, next++, rows);
    ARG(copy->kernel, next++, copy_claims);
    ARG(copy->kernel, next++, claim_stride);
  } else {
    cl_long first = pl->copy_first, end = pl->copy_end;
    ARG(copy->kernel, next++, first);
    ARG(copy->kernel, next++, end);
  }
  if (NDX_BOUNDS_CHECK && e == CL_SUCCESS) {
    ndx_cl_buffer cb[3] = {b[0], b[1], b[2]};
    if (p->form == NDX_INDEX_CLAIMS) cb[2].size = pl->claims_bytes;
    t->bounds[1]->size[2] = cb[2].size;
    e = bounds_args(copy->kernel, next, cb, t->bounds[1]);
  }
  if (e == CL_SUCCESS) {
    call = "clEnqueueNDRangeKernel";
    size_t global = copy->global, local = copy->local;
    e = pl->copy_items > 0 ? clEnqueueNDRangeKernel(queue, copy->kernel, 1, NULL, &global, &local,
                                                    1, &t->check, &t->copy)
                           : clEnqueueMarkerWithWaitList(queue, 1, &t->check, &t->copy);
    if (e != CL_SUCCESS) t->copy = NULL;
  }
  pthread_mutex_unlock(&cl->lock);
  if (e != CL_SUCCESS) return ndx_cl_fail(fn, call, e);
  /* the reports: read back after their kernels, then owned by cl */
  ndx_cl_report *r = t->report;
  t->report = NULL;
  /* read back after the copy (which reads the status too), so that `*done`,
   * the read-back's event, completes once nothing uses the slot */
  ndx_status s = ndx_cl_report_enqueue(cl, fn, r, queue, t->copy, &t->read);
  for (int k = 0; k < 2 && NDX_BOUNDS_CHECK; k++) {
    r = t->bounds[k];
    t->bounds[k] = NULL;
    ndx_status sb = ndx_cl_report_enqueue(cl, fn, r, queue, k ? t->copy : t->check, NULL);
    if (s == NDX_OK) s = sb;
  }
  if (done && s == NDX_OK) {
    clRetainEvent(t->read);
    *done = t->read;
  }
  return s;
}

/* ndx_cl_index_plan_enqueue for call `fn`: checks, a slot, the passes. */
static ndx_status plan_enqueue(const char *fn, ndx_cl_index_plan *pl, cl_command_queue queue,
                               cl_mem dst, cl_mem src, cl_mem index, cl_uint nwait,
                               const cl_event *wait, cl_event *done) {
  if (!pl || !queue || !dst || !src || !index)
    return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", fn,
                         !pl      ? "plan"
                         : !queue ? "queue"
                         : !dst   ? "dst"
                         : !src   ? "src"
                                  : "index");
  if ((nwait > 0) != (wait != NULL))
    return ndx_set_error(NDX_EINVAL, "%s: nwait is %u but wait is %s", fn, (unsigned)nwait,
                         wait ? "not NULL" : "NULL");
  ndx_cl *cl = pl->cl;
  const ndx_index_plan *p = &pl->p;
  ndx_status s = ndx_cl_check_queue(cl, fn, queue);
  ndx_cl_buffer b[3];
  if (s == NDX_OK) s = ndx_cl_check_buffer(cl, fn, dst, "dst", p->dst_lo, p->dst_end, false, &b[0]);
  if (s == NDX_OK) s = ndx_cl_check_buffer(cl, fn, src, "src", p->src_lo, p->src_end, false, &b[1]);
  if (s == NDX_OK)
    s = ndx_cl_check_buffer(cl, fn, index, "index", p->index_lo, p->index_end, false, &b[2]);
  if (s == NDX_OK)
    s = ndx_cl_check_disjoint(fn, "dst", dst, &b[0], p->dst_lo, p->dst_end, "src", src, &b[1],
                              p->src_lo, p->src_end);
  if (s == NDX_OK)
    s = ndx_cl_check_disjoint(fn, "dst", dst, &b[0], p->dst_lo, p->dst_end, "index", index, &b[2],
                              p->index_lo, p->index_end);
  if (s != NDX_OK) return s;
  ndx_cl_reap(cl);
  if (p->empty) {
    cl_int e = done || nwait ? clEnqueueMarkerWithWaitList(queue, nwait, wait, done) : CL_SUCCESS;
    return e == CL_SUCCESS ? NDX_OK : ndx_cl_fail(fn, "clEnqueueMarkerWithWaitList", e);
  }
  run t = {0};
  s = slot_take(pl, fn, &t.sl);
  if (s != NDX_OK) return s;
  s = ndx_cl_report_on(cl, fn, t.sl->status, &t.report);
  if (s == NDX_OK) {
    t.report->site = p->site;
    t.report->site.call = fn;
  }
  for (int k = 0; k < 2 && s == NDX_OK && NDX_BOUNDS_CHECK; k++)
    s = ndx_cl_report_new(cl, fn, &t.bounds[k]);
  if (s == NDX_OK) s = enqueue_passes(fn, pl, &t, queue, dst, src, index, b, nwait, wait, done);
  ndx_cl_report_free(t.report);
  ndx_cl_report_free(t.bounds[0]);
  ndx_cl_report_free(t.bounds[1]);
  /* the slot is busy until the last commands queued on it end: the copy
   * (after the check, after the fills) and the read-back; or, when an
   * enqueue failed, the check, or the fills */
  cl_event used[2] = {t.fill[0], t.fill[1]};
  if (t.copy || t.check) {
    for (int k = 0; k < 2; k++)
      if (t.fill[k]) clReleaseEvent(t.fill[k]);
    used[0] = t.copy ? t.copy : t.check;
    used[1] = t.read;
    if (t.copy && t.check) clReleaseEvent(t.check);
  }
  if (used[0] || used[1]) t.sl->fresh = false;
  slot_put(pl, t.sl, used[0], used[1]);
  return s;
}

ndx_status ndx_cl_index_plan_enqueue(ndx_cl_index_plan *plan, cl_command_queue queue, cl_mem dst,
                                     cl_mem src, cl_mem index, cl_uint nwait, const cl_event *wait,
                                     cl_event *done) {
  return plan_enqueue("ndx_cl_index_plan_enqueue", plan, queue, dst, src, index, nwait, wait, done);
}

/* ---- One call ---------------------------------------------------------------------- */

/* One gather or scatter: a plan made, enqueued and destroyed, every message
 * naming `fn`. */
static ndx_status index_call(const char *fn, bool scatter, unsigned internal, ndx_cl *cl,
                             cl_command_queue queue, cl_mem dst, const ndx_layout *dst_l,
                             cl_mem src, const ndx_layout *src_l, int axis, cl_mem index,
                             const ndx_layout *index_l, int index_bits, unsigned flags, int bits,
                             cl_uint nwait, const cl_event *wait, cl_event *done) {
  if (!cl || !queue || !dst || !src || !index)
    return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", fn,
                         !cl      ? "cl"
                         : !queue ? "queue"
                         : !dst   ? "dst"
                         : !src   ? "src"
                                  : "index");
  if ((nwait > 0) != (wait != NULL))
    return ndx_set_error(NDX_EINVAL, "%s: nwait is %u but wait is %s", fn, (unsigned)nwait,
                         wait ? "not NULL" : "NULL");
  ndx_cl_index_plan *plan;
  ndx_status s = plan_create(fn, &plan, scatter, internal, cl, dst_l, src_l, axis, index_l,
                             index_bits, flags, bits);
  if (s != NDX_OK) return s;
  /* destroying the plan right after the enqueue is legal: the queued
   * commands keep its buffers alive */
  s = plan_enqueue(fn, plan, queue, dst, src, index, nwait, wait, done);
  ndx_cl_index_plan_destroy(plan);
  return s;
}

ndx_status ndx_cl_index_flags(bool scatter, unsigned internal, ndx_cl *cl, cl_command_queue queue,
                              cl_mem dst, const ndx_layout *dst_l, cl_mem src,
                              const ndx_layout *src_l, int axis, cl_mem index,
                              const ndx_layout *index_l, int index_bits, unsigned flags, int bits,
                              cl_uint nwait, const cl_event *wait, cl_event *done) {
  return index_call(scatter ? "ndx_cl_scatter" : "ndx_cl_gather", scatter, internal, cl, queue, dst,
                    dst_l, src, src_l, axis, index, index_l, index_bits, flags, bits, nwait, wait,
                    done);
}

ndx_status ndx_cl_gather(ndx_cl *cl, cl_command_queue queue, cl_mem dst, const ndx_layout *dst_l,
                         cl_mem src, const ndx_layout *src_l, int axis, cl_mem index,
                         const ndx_layout *index_l, int index_bits, unsigned flags, int bits,
                         cl_uint nwait, const cl_event *wait, cl_event *done) {
  return index_call("ndx_cl_gather", false, 0, cl, queue, dst, dst_l, src, src_l, axis, index,
                    index_l, index_bits, flags, bits, nwait, wait, done);
}

ndx_status ndx_cl_scatter(ndx_cl *cl, cl_command_queue queue, cl_mem dst, const ndx_layout *dst_l,
                          cl_mem src, const ndx_layout *src_l, int axis, cl_mem index,
                          const ndx_layout *index_l, int index_bits, unsigned flags, int bits,
                          cl_uint nwait, const cl_event *wait, cl_event *done) {
  return index_call("ndx_cl_scatter", true, 0, cl, queue, dst, dst_l, src, src_l, axis, index,
                    index_l, index_bits, flags, bits, nwait, wait, done);
}
