/* launch_convert.c: the launch of a conversion (launch.h), both shapes. */
#include <string.h>

#include "launch.h"
#include "ndx_copy_geometry.h"
#include "ndx_internal.h"

ndx_status ndx_convert_plan_make(ndx_copy_plan *p, const char *call, const ndx_layout *dst,
                                 const ndx_layout *src, int dst_bits, unsigned flags) {
  if (dst_bits < 8) flags |= NDX_COPY_DST_ORDER;
  return ndx_copy_plan_make(p, call, dst, src, dst_bits, &ndx_gpu_caps, flags);
}

ndx_convert_family ndx_convert_family_of(const ndx_copy_plan *p, const ndx_convert_sizes *z) {
  if (p->bits < 8) return NDX_CONVERT_BYTES;
  if (p->path != NDX_PATH_TRANSPOSE) return NDX_CONVERT_ELEMENTS;
  return z->local == 0 ? NDX_CONVERT_TILE : NDX_CONVERT_TRANSPOSE;
}

ndx_convert_family ndx_launch_convert(const ndx_copy_plan *p, int src_bits,
                                      const ndx_convert_sizes *z, ndx_launch *d, int64_t *work) {
  const ndx_operands *q = &p->q;
  ndx_convert_family f = ndx_convert_family_of(p, z);
  memset(d, 0, sizeof *d);
  if (f == NDX_CONVERT_TRANSPOSE) { /* the copy's tiles, a work-group each */
    ndx_launch_gpu_convert(p, src_bits, z->local, z->max_groups, d, work);
    return f;
  }
  switch (f) {
  case NDX_CONVERT_TILE: { /* one tile a work-item */
    int64_t dk = q->shape[q->rank - 2], dj = q->shape[q->rank - 1];
    d->tile_k = d->tile_j = z->tile_side;
    d->tiles_j = ndx_ceil_div(dj, d->tile_j);
    d->row_units = ndx_ceil_div(dk, d->tile_k) * d->tiles_j;
    d->units = q->numel / (dk * dj) * d->row_units;
    d->chunk = 1;
    break;
  }
  case NDX_CONVERT_BYTES: { /* the destination bytes the layout touches, each whole */
    int64_t lo, hi, end;
    ndx_operands_span(q, 0, &lo, &hi);
    ndx_bytes_span(lo, hi, p->bits, &d->first, &end);
    d->units = end - d->first;
    d->chunk = z->elems / 2;
    break;
  }
  default:
    d->units = q->numel;
    d->chunk = z->elems;
  }
  if (z->local > 0) { /* every launch-size-th unit */
    d->chunk = 0;
    int64_t groups = ndx_ceil_div(d->units, z->local);
    *work = groups < z->max_groups ? groups : z->max_groups;
  } else {
    *work = ndx_ceil_div(d->units, d->chunk);
  }
  return f;
}
