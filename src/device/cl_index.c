/* cl_index.c: gathers and scatters on OpenCL (ndx_cl_gather and
 * ndx_cl_scatter of ndx_cl.h).
 *
 * A call is the shared planner's two passes (host/index_plan.h), enqueued
 * in order with events, so that in-order and out-of-order queues alike run
 * them one after the other: for a claims scatter a fill of its claims table,
 * then the check kernel, then the copy kernel, whose event is the call's.
 * The check pass's status (kernels/ndx_index_items.h) is read back without
 * waiting and joins the ndx_cl's pending reports (cl.c), which ndx_cl_check
 * collects; each call first frees the reports already read (ndx_cl_reap),
 * so that a caller who never checks keeps no more than its copies in
 * flight. The packs, the status and the claims table are small buffers of
 * the call's own, released once enqueued: the queued commands keep them. */
#include <stdio.h>
#include <stdlib.h>

#include "cl_runtime.h"
#include "cl_tuning.h"
#include "host/ndx_internal.h"
#include "ndx_index_items.h"

/* What one pass launches: its kernel, its launch size, and its name in
 * bounds-check reports. */
typedef struct pass {
  cl_kernel kernel;
  size_t global, local;
  char name[64];
} pass;

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
 * destination bytes below 8 bits. */
static int64_t copy_chunk(const ndx_index_plan *p, int64_t *items) {
  const ndx_operands *q = &p->copy;
  if (p->bits < 8) {
    int64_t lo, hi, first, end;
    ndx_operands_span(q, 0, &lo, &hi);
    ndx_bytes_span(lo, hi, p->bits, &first, &end);
    int64_t chunk = ndx_ceil_div(NDX_CL_INDEX_BYTES_ELEMS * (end - first), q->numel);
    if (chunk < 1) chunk = 1;
    *items = ndx_ceil_div(end - first, chunk);
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

/* A read-only buffer holding a copy of `size` bytes at `host`. */
static ndx_status const_buffer(const ndx_cl *cl, const char *fn, const void *host, size_t size,
                               cl_mem *out) {
  cl_int e;
  *out =
      clCreateBuffer(cl->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, size, (void *)host, &e);
  return e == CL_SUCCESS ? NDX_OK : ndx_cl_fail(fn, "clCreateBuffer", e);
}

/* The buffers a call makes; NULL until made. */
typedef struct temps {
  cl_mem check_pack, copy_pack, claims;
  ndx_cl_report *report, *bounds[2];
  cl_event fill, check, copy;
} temps;

static void release(temps *t) {
  if (t->check_pack) clReleaseMemObject(t->check_pack);
  if (t->copy_pack) clReleaseMemObject(t->copy_pack);
  if (t->claims) clReleaseMemObject(t->claims);
  ndx_cl_report_free(t->report);
  ndx_cl_report_free(t->bounds[0]);
  ndx_cl_report_free(t->bounds[1]);
  if (t->fill) clReleaseEvent(t->fill);
  if (t->check) clReleaseEvent(t->check);
}

/* A pack written by `write` into a read-only buffer of its own, if the
 * device's constant buffers hold it. */
static ndx_status pack_buffer(const ndx_cl *cl, const char *fn, const ndx_index_plan *p,
                              ndx_status (*write)(const ndx_index_plan *, void *, size_t, size_t *),
                              cl_mem *out) {
  uint64_t buf[NDX_PACK_MAX_BYTES(NDX_COPY_OPS, NDX_PACK_MAX_RANK) / 8]; /* the most operands */
  size_t used;
  ndx_status s = write(p, buf, sizeof buf, &used);
  if (s == NDX_OK && used > cl->max_constant)
    s = ndx_set_error(NDX_EUNSUPPORTED,
                      "%s: a pack of %zu bytes is past the device's constant buffer size %llu", fn,
                      used, (unsigned long long)cl->max_constant);
  return s == NDX_OK ? const_buffer(cl, fn, buf, used, out) : s;
}

/* Makes the packs, the status and the claims table. */
static ndx_status make_temps(ndx_cl *cl, const char *fn, const ndx_index_plan *p, temps *t) {
  ndx_status s = pack_buffer(cl, fn, p, ndx_index_plan_check_pack, &t->check_pack);
  if (s == NDX_OK) s = pack_buffer(cl, fn, p, ndx_index_plan_copy_pack, &t->copy_pack);
  if (s == NDX_OK) s = ndx_cl_report_new(cl, fn, &t->report);
  if (s == NDX_OK) t->report->site = p->site;
  for (int k = 0; k < 2 && s == NDX_OK && NDX_BOUNDS_CHECK; k++)
    s = ndx_cl_report_new(cl, fn, &t->bounds[k]);
  if (s == NDX_OK && ndx_index_form_claims(p->form)) {
    cl_int e;
    size_t bytes = (size_t)(p->nclaims > 0 ? p->nclaims : 1) * sizeof(cl_uint);
    t->claims = clCreateBuffer(cl->context, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (e != CL_SUCCESS) s = ndx_cl_fail(fn, "clCreateBuffer", e);
  }
  return s;
}

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

/* Enqueues the fill, the check and the copy (under the ndx_cl's lock, which
 * the kernels' arguments need). */
static ndx_status enqueue_passes(ndx_cl *cl, const char *fn, const ndx_index_plan *p, temps *t,
                                 bool skip_check, cl_command_queue queue, cl_mem dst, cl_mem src,
                                 cl_mem index, const ndx_cl_buffer *b, cl_uint nwait,
                                 const cl_event *wait, cl_event *done) {
  pass check, copy;
  int64_t check_items = ndx_ceil_div(p->check.numel, NDX_CL_INDEX_CHECK_ELEMS);
  ndx_status s =
      pick(&check, cl, fn, p->wide, NDX_CL_INDEX_CHECK, 0, check_items, "ndx_index_check");
  int64_t copy_items = 0;
  cl_long copy_chunk_ = copy_chunk(p, &copy_items);
  enum ndx_cl_kind kind = p->bits < 8 ? NDX_CL_INDEX_BYTES : NDX_CL_INDEX_COPY;
  char name[40];
  snprintf(name, sizeof name, "ndx_index_%s for %d-bit elements", p->bits < 8 ? "bytes" : "copy",
           p->bits);
  if (s == NDX_OK) s = pick(&copy, cl, fn, p->wide, kind, p->bits, copy_items, name);
  if (s != NDX_OK) return s;
  if (NDX_BOUNDS_CHECK) {
    snprintf(t->bounds[0]->kernel, sizeof t->bounds[0]->kernel, "%s", check.name);
    snprintf(t->bounds[1]->kernel, sizeof t->bounds[1]->kernel, "%s", copy.name);
    for (int k = 0; k < 3; k++) t->bounds[0]->size[k] = t->bounds[1]->size[k] = b[k].size;
  }
  /* the claims form reads the claims table as its index; the winners form
   * reads it beside the index */
  cl_mem claims = t->claims, moved = p->form == NDX_INDEX_CLAIMS ? t->claims : index,
         copy_claims = p->form == NDX_INDEX_WINNERS ? t->claims : NULL;
  cl_int index_bits = p->index_bits, copy_bits = p->copy_index_bits;
  cl_long d = p->site.d, claim_stride = p->claim_stride, check_chunk = NDX_CL_INDEX_CHECK_ELEMS;
  cl_int wrap = p->site.wrap, copy_wrap = p->copy_wrap, rows = copy_rows(cl, p);
  cl_long copy_d = p->copy_d, bias = p->bias, step0 = p->step[0], step1 = p->step[1];
  const char *call = "clEnqueueFillBuffer";
  cl_int e = CL_SUCCESS;
  pthread_mutex_lock(&cl->lock);
  const cl_event *after = wait;
  cl_uint nafter = nwait;
  if (claims) {
    cl_uint zero = 0;
    size_t bytes = (size_t)(p->nclaims > 0 ? p->nclaims : 1) * sizeof zero;
    e = clEnqueueFillBuffer(queue, claims, &zero, sizeof zero, 0, bytes, nwait, wait, &t->fill);
    after = &t->fill;
    nafter = 1;
  }
  if (e == CL_SUCCESS) call = "clSetKernelArg";
  ARG(check.kernel, 0, t->check_pack);
  ARG(check.kernel, 1, index);
  ARG(check.kernel, 2, index_bits);
  ARG(check.kernel, 3, d);
  ARG(check.kernel, 4, wrap);
  ARG(check.kernel, 5, claims);
  ARG(check.kernel, 6, claim_stride);
  ARG(check.kernel, 7, t->report->status);
  ARG(check.kernel, 8, check_chunk);
  if (NDX_BOUNDS_CHECK && e == CL_SUCCESS) e = bounds_args(check.kernel, 9, b, t->bounds[0]);
  if (e == CL_SUCCESS) {
    call = "clEnqueueNDRangeKernel";
    e = skip_check ? clEnqueueMarkerWithWaitList(queue, nafter, after, &t->check)
                   : clEnqueueNDRangeKernel(queue, check.kernel, 1, NULL, &check.global,
                                            &check.local, nafter, after, &t->check);
  }
  if (e == CL_SUCCESS) call = "clSetKernelArg";
  ARG(copy.kernel, 0, t->copy_pack);
  ARG(copy.kernel, 1, dst);
  ARG(copy.kernel, 2, src);
  ARG(copy.kernel, 3, moved);
  ARG(copy.kernel, 4, t->report->status);
  ARG(copy.kernel, 5, copy_bits);
  ARG(copy.kernel, 6, copy_d);
  ARG(copy.kernel, 7, copy_wrap);
  ARG(copy.kernel, 8, bias);
  ARG(copy.kernel, 9, step0);
  ARG(copy.kernel, 10, step1);
  ARG(copy.kernel, 11, copy_chunk_);
  cl_uint next = 12;
  if (kind == NDX_CL_INDEX_COPY) {
    ARG(copy.kernel, next++, rows);
    ARG(copy.kernel, next++, copy_claims);
    ARG(copy.kernel, next++, claim_stride);
  }
  if (NDX_BOUNDS_CHECK && e == CL_SUCCESS) {
    ndx_cl_buffer cb[3] = {b[0], b[1], b[2]};
    if (p->form == NDX_INDEX_CLAIMS) cb[2].size = (size_t)(p->nclaims > 0 ? p->nclaims : 1) * 4;
    t->bounds[1]->size[2] = cb[2].size;
    e = bounds_args(copy.kernel, next, cb, t->bounds[1]);
  }
  if (e == CL_SUCCESS) {
    call = "clEnqueueNDRangeKernel";
    e = copy_items > 0 ? clEnqueueNDRangeKernel(queue, copy.kernel, 1, NULL, &copy.global,
                                                &copy.local, 1, &t->check, &t->copy)
                       : clEnqueueMarkerWithWaitList(queue, 1, &t->check, &t->copy);
  }
  pthread_mutex_unlock(&cl->lock);
  if (e != CL_SUCCESS) return ndx_cl_fail(fn, call, e);
  /* the reports: read back after their kernels, then owned by cl */
  ndx_cl_report *r = t->report;
  t->report = NULL;
  s = ndx_cl_report_enqueue(cl, fn, r, queue, t->check);
  for (int k = 0; k < 2 && NDX_BOUNDS_CHECK; k++) {
    r = t->bounds[k];
    t->bounds[k] = NULL;
    ndx_status sb = ndx_cl_report_enqueue(cl, fn, r, queue, k ? t->copy : t->check);
    if (s == NDX_OK) s = sb;
  }
  if (done && s == NDX_OK)
    *done = t->copy;
  else
    clReleaseEvent(t->copy);
  return s;
}

/* One gather or scatter: checks, plan, buffers, then the passes. */
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
  if (internal & ~(unsigned)(NDX_CL_INDEX_WIDE | NDX_CL_INDEX_SKIP_CHECK))
    return ndx_set_error(NDX_EINVAL, "%s: internal flags 0x%x has unknown bits", fn, internal);
  ndx_index_plan p;
  ndx_status s =
      ndx_index_plan_make(&p, fn, scatter, dst_l, src_l, axis, index_l, index_bits, flags, bits);
  if (s == NDX_OK && (internal & NDX_CL_INDEX_SKIP_CHECK) && ndx_index_form_claims(p.form))
    s = ndx_set_error(NDX_EINVAL, "%s: a claims scatter cannot skip its check pass", fn);
  if (internal & NDX_CL_INDEX_WIDE) p.wide = true;
  if (s == NDX_OK) s = ndx_cl_check_queue(cl, fn, queue);
  ndx_cl_buffer b[3];
  if (s == NDX_OK) s = ndx_cl_check_buffer(cl, fn, dst, "dst", p.dst_lo, p.dst_end, false, &b[0]);
  if (s == NDX_OK) s = ndx_cl_check_buffer(cl, fn, src, "src", p.src_lo, p.src_end, false, &b[1]);
  if (s == NDX_OK)
    s = ndx_cl_check_buffer(cl, fn, index, "index", p.index_lo, p.index_end, false, &b[2]);
  if (s == NDX_OK)
    s = ndx_cl_check_disjoint(fn, "dst", dst, &b[0], p.dst_lo, p.dst_end, "src", src, &b[1],
                              p.src_lo, p.src_end);
  if (s == NDX_OK)
    s = ndx_cl_check_disjoint(fn, "dst", dst, &b[0], p.dst_lo, p.dst_end, "index", index, &b[2],
                              p.index_lo, p.index_end);
  if (s != NDX_OK) return s;
  ndx_cl_reap(cl);
  if (p.empty) {
    cl_int e = done || nwait ? clEnqueueMarkerWithWaitList(queue, nwait, wait, done) : CL_SUCCESS;
    return e == CL_SUCCESS ? NDX_OK : ndx_cl_fail(fn, "clEnqueueMarkerWithWaitList", e);
  }
  temps t = {0};
  s = make_temps(cl, fn, &p, &t);
  if (s == NDX_OK)
    s = enqueue_passes(cl, fn, &p, &t, (internal & NDX_CL_INDEX_SKIP_CHECK) != 0, queue, dst, src,
                       index, b, nwait, wait, done);
  release(&t);
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
