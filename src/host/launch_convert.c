/* launch_convert.c: the launch of a conversion (launch.h), both shapes. */
#include <string.h>

#include "launch.h"
#include "ndx_internal.h"

ndx_status ndx_convert_plan_make(ndx_copy_plan *p, const char *call, const ndx_layout *dst,
                                 const ndx_layout *src, int dst_bits, const ndx_convert_sizes *z,
                                 unsigned flags) {
  if (dst_bits < 8 && z->local == 0) flags |= NDX_COPY_DST_ORDER;
  return ndx_copy_plan_make(p, call, dst, src, dst_bits, &ndx_gpu_caps, flags);
}

/* The gcd of the absolute outer (all but the innermost) strides of side
 * `side` of q, 0 for none. */
static int64_t outer_stride_gcd(const ndx_operands *q, int side) {
  int64_t g = 0;
  for (int a = 0; a < q->rank - 1; a++) {
    int64_t s = q->strides[side][a] < 0 ? -q->strides[side][a] : q->strides[side][a];
    while (s != 0) {
      int64_t t = g % s;
      g = s, s = t;
    }
  }
  return g;
}

/* The gpu shape's elements family from a source of up to 32 bits
 * (ndx_launch.group): units of G consecutive elements of a row of the
 * innermost axis, one load of their G * src_bits source bits and one store
 * of their G * bits destination bits, the widest G up to an 8-byte load
 * and a 16-byte store that the buffers' `align` and the layout prove
 * aligned: the innermost axis of stride 1 in the destination and 1 or -1
 * in the source, every other stride a multiple of G on both sides, and the
 * source's word boundaries at the same elements of a row as the
 * destination's (each row's first unit `skew` elements short). Into a
 * 4-bit destination each whole unit then stores whole bytes, and a row's
 * cut ends go element by element, their work-item keeping the other nibble
 * of a byte they share, which no other row may hold. A row that starts
 * inside a byte (an odd offset; every row starts as the first does) shares
 * its first byte with a row ending just before it, which starts n elements
 * earlier; row starts differ by multiples of the gcd of the outer strides,
 * so where n is not one, none does. Returns G, its skew in *skew; else 1
 * (element by element, or for a 4-bit destination a byte at a time). The
 * wider accesses put G times the bytes in flight (ndx-bench --gpu-model,
 * "convert i8 -> f32 contiguous", "convert f16 -> f4e2m1fn contiguous" and
 * its "4096x4096 columns 1.."). */
static int64_t convert_group(const ndx_copy_plan *p, int src_bits, int64_t align, int64_t *skew) {
  const ndx_operands *q = &p->q;
  int r = q->rank;
  if (src_bits > 32 || r < 1) return 1;
  int64_t n = q->shape[r - 1], ss = q->strides[1][r - 1], pitch = outer_stride_gcd(q, 0);
  if (q->strides[0][r - 1] != 1 || (ss != 1 && ss != -1)) return 1;
  if (p->bits < 8 && q->offset[0] % 2 != 0 && pitch != 0 && n % pitch == 0) return 1;
  int64_t widest = p->bits > src_bits ? p->bits : src_bits, most = 64 / src_bits;
  for (int64_t g = 128 / p->bits < most ? 128 / p->bits : most; g >= 2; g /= 2) {
    if (g * widest / 8 > align || n < g) continue;
    bool fits = true;
    for (int a = 0; a < r - 1 && fits; a++)
      fits = q->strides[0][a] % g == 0 && q->strides[1][a] % g == 0;
    int64_t o = q->offset[1] % g, k = ss > 0 ? o : g - 1 - o;
    if (fits && (q->offset[0] - k) % g == 0) {
      *skew = k;
      return g;
    }
  }
  return 1;
}

ndx_convert_choice ndx_convert_choose(const ndx_copy_plan *p, int src_bits,
                                      const ndx_convert_sizes *z) {
  ndx_convert_choice c = {.family = NDX_CONVERT_ELEMENTS, .group = 1};
  if (p->path == NDX_PATH_TRANSPOSE) {
    c.family = z->local == 0 ? NDX_CONVERT_TILE : NDX_CONVERT_TRANSPOSE;
    return c;
  }
  if (z->local > 0) c.group = convert_group(p, src_bits, z->align, &c.skew);
  if (p->bits < 8 && c.group == 1) c.family = NDX_CONVERT_BYTES;
  return c;
}

void ndx_launch_convert(const ndx_copy_plan *p, int src_bits, const ndx_convert_choice *c,
                        const ndx_convert_sizes *z, ndx_launch *d, int64_t *work) {
  const ndx_operands *q = &p->q;
  memset(d, 0, sizeof *d);
  switch (c->family) {
  case NDX_CONVERT_TRANSPOSE: /* the copy's tiles, a work-group each */
    ndx_launch_gpu_convert(p, src_bits, z->align, z->local, z->max_groups, d, work);
    return;
  case NDX_CONVERT_TILE: /* one tile a work-item, no batch axis joined */
    d->tile_k = z->tile_k, d->tile_j = z->tile_j;
    d->join_k = d->join_j = d->join_k2 = d->join_j2 = 1;
    d->batch_axes = q->rank - 2;
    ndx_launch_count_tiles(d, q);
    d->chunk = 1;
    break;
  case NDX_CONVERT_BYTES: { /* the destination bytes the layout touches, each whole */
    int64_t end;
    ndx_launch_bytes(q, p->bits, &d->first, &end);
    d->units = end - d->first;
    d->chunk = z->elems / 2;
    break;
  }
  default:
    d->units = q->numel;
    d->chunk = z->elems;
    d->group = c->group, d->skew = c->skew;
    if (d->group > 1) {
      int64_t n = q->shape[q->rank - 1];
      d->row_units = ndx_ceil_div(n + d->skew, d->group);
      d->units = q->numel / n * d->row_units;
      int shift;
      ndx_pack_magic(d->row_units, 64, &d->row_magic, &shift);
      d->row_shift = shift;
    }
  }
  if (z->local > 0) { /* every launch-size-th unit, the elements' a batch a turn */
    d->chunk = 0;
    int64_t per = c->family == NDX_CONVERT_ELEMENTS ? NDX_GPU_BATCH : 1;
    int64_t groups = ndx_ceil_div(d->units, z->local * per);
    *work = groups < z->max_groups ? groups : z->max_groups;
  } else {
    *work = ndx_ceil_div(d->units, d->chunk);
  }
}
