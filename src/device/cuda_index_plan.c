/* cuda_index_plan.c: a CUDA gather or scatter planned for launch
 * (cuda_index_plan.h): the shared planner's two passes as kernel arguments
 * and grids. */
#include <stdlib.h>
#include <string.h>

#include "cuda_index_plan.h"
#include "host/launch.h" /* ndx_launch_bytes */
#include "host/ndx_internal.h"
#include "ndx_index_items.h"

_Static_assert(NDX_CUDA_INDEX_STATUS_BYTES == NDX_INDEX_STATUS_WORDS * 4,
               "the status words of kernels/ndx_index_items.h");

/* Blocks of NDX_CUDA_THREADS for `items` (grid-stride past the cap). */
static int64_t blocks_for(int64_t items) {
  int64_t b = ndx_ceil_div(items, NDX_CUDA_THREADS);
  return b < NDX_CUDA_MAX_BLOCKS ? b : NDX_CUDA_MAX_BLOCKS;
}

/* The check kernel's arguments: items of NDX_CUDA_INDEX_CHECK_ELEMS index
 * elements. */
static ndx_status check_args(ndx_cuda_index_call *c) {
  const ndx_index_plan *p = &c->plan;
  ndx_cuda_index_args *a = &c->check;
  size_t used;
  a->chunk = NDX_CUDA_INDEX_CHECK_ELEMS;
  a->count = ndx_ceil_div(p->check.numel, a->chunk);
  a->d = p->site.d;
  a->wrap = p->site.wrap;
  a->index_bits = p->index_bits;
  a->claim_stride = p->claim_stride;
  a->wide = p->wide;
  c->check_blocks = c->skip_check ? 0 : blocks_for(a->count);
  return ndx_index_plan_check_pack(p, a->pack, sizeof a->pack, &used);
}

/* The copy kernel's arguments: elements (a row's NDX_CUDA_INDEX_ROW_BYTES
 * under `rows`), or below 8 bits destination bytes, per item. */
static ndx_status copy_args(ndx_cuda_index_call *c) {
  const ndx_index_plan *p = &c->plan;
  const ndx_operands *q = &p->copy;
  ndx_cuda_index_args *a = &c->copy;
  size_t used;
  if (p->bits < 8) {
    ndx_launch_bytes(q, p->bits, &a->first, &a->end);
    a->chunk = ndx_launch_bytes_chunk(a->end - a->first, q->numel, NDX_CUDA_INDEX_BYTES_ELEMS);
    a->count = ndx_ceil_div(a->end - a->first, a->chunk);
  } else {
    int64_t row = NDX_CUDA_INDEX_ROW_BYTES / (p->bits / 8);
    a->chunk = p->rows && row > 1 ? row : NDX_CUDA_INDEX_ELEMS;
    a->count = ndx_ceil_div(q->numel, a->chunk);
  }
  a->bits = p->bits;
  a->index_bits = p->copy_index_bits;
  a->d = p->copy_d;
  a->wrap = p->copy_wrap;
  a->bias = p->bias;
  a->step0 = p->step[0];
  a->step1 = p->step[1];
  a->claim_stride = p->claim_stride;
  a->rows = p->rows;
  a->wide = p->wide;
  c->copy_blocks = q->numel > 0 ? blocks_for(a->count) : 0;
  ndx_status s = ndx_index_plan_copy_pack(p, a->pack, sizeof a->pack, &used);
  c->along = s == NDX_OK && ndx_index_plan_along(p);
  if (c->along) { /* the gpu shape's along body (kernels/ndx_index_gpu.h) */
    ndx_index_launch_copy(p, NDX_CUDA_THREADS, NDX_CUDA_MAX_BLOCKS, &c->along_args.d,
                          &c->copy_blocks);
    memcpy(c->along_args.pack, a->pack, sizeof a->pack);
  }
  return s;
}

ndx_status ndx_cuda_index_fill(ndx_cuda_index_call *c, const char *fn, bool scatter,
                               const ndx_layout *dst_l, const ndx_layout *src_l, int axis,
                               const ndx_layout *index_l, int index_bits, unsigned flags, int bits,
                               unsigned internal) {
  if (internal & ~(unsigned)(NDX_CUDA_INDEX_WIDE | NDX_CUDA_INDEX_SKIP_CHECK))
    return ndx_set_error(NDX_EINVAL, "%s: internal flags 0x%x has unknown bits", fn, internal);
  ndx_cuda_index_call tmp;
  memset(&tmp, 0, sizeof tmp);
  ndx_status s = ndx_index_plan_make(&tmp.plan, fn, scatter, dst_l, src_l, axis, index_l,
                                     index_bits, flags, bits);
  if (s != NDX_OK) return s;
  if ((internal & NDX_CUDA_INDEX_SKIP_CHECK) && ndx_index_form_claims(tmp.plan.form))
    return ndx_set_error(NDX_EINVAL, "%s: a claims scatter cannot skip its check pass", fn);
  if (internal & NDX_CUDA_INDEX_WIDE) tmp.plan.wide = true;
  tmp.skip_check = (internal & NDX_CUDA_INDEX_SKIP_CHECK) != 0;
  tmp.temp_bytes = NDX_CUDA_INDEX_STATUS_BYTES + (size_t)tmp.plan.nclaims * 4;
  if (!tmp.plan.empty) {
    s = check_args(&tmp);
    if (s == NDX_OK) s = copy_args(&tmp);
    if (s != NDX_OK) return s;
  }
  *c = tmp;
  return NDX_OK;
}

/* An index plan for `fn`'s messages: the call planned, on the heap. */
static ndx_status plan_create(const char *fn, ndx_cuda_index_plan **out, bool scatter,
                              const ndx_layout *dst_l, const ndx_layout *src_l, int axis,
                              const ndx_layout *index_l, int index_bits, unsigned flags, int bits) {
  if (!out) return ndx_set_error(NDX_EINVAL, "%s: out is NULL", fn);
  ndx_cuda_index_plan *p = malloc(sizeof *p);
  if (!p) return ndx_set_error(NDX_ENOMEM, "%s: out of host memory", fn);
  ndx_status s = ndx_cuda_index_fill(&p->call, fn, scatter, dst_l, src_l, axis, index_l, index_bits,
                                     flags, bits, 0);
  if (s != NDX_OK) {
    free(p);
    return s;
  }
  *out = p;
  return NDX_OK;
}

ndx_status ndx_cuda_index_plan_create_gather(ndx_cuda_index_plan **out, const ndx_layout *dst_l,
                                             const ndx_layout *src_l, int axis,
                                             const ndx_layout *index_l, int index_bits,
                                             unsigned flags, int bits) {
  return plan_create(NDX_GPU_STR(ndx_cuda_index_plan_create_gather), out, false, dst_l, src_l, axis,
                     index_l, index_bits, flags, bits);
}

ndx_status ndx_cuda_index_plan_create_scatter(ndx_cuda_index_plan **out, const ndx_layout *dst_l,
                                              const ndx_layout *src_l, int axis,
                                              const ndx_layout *index_l, int index_bits,
                                              unsigned flags, int bits) {
  return plan_create(NDX_GPU_STR(ndx_cuda_index_plan_create_scatter), out, true, dst_l, src_l, axis,
                     index_l, index_bits, flags, bits);
}

void ndx_cuda_index_plan_destroy(ndx_cuda_index_plan *plan) {
  free(plan);
}
