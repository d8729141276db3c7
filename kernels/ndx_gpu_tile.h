/* ndx_gpu_tile.h: where a gpu-shaped transpose's tile lies (kernels/
 * ndx_copy_gpu.h, ndx_convert_gpu.h): its batch, its first element along
 * k and j, and the offsets of its rows along each, through the batch axes
 * the launch joins into the tiles (ndx_launch.h: join_k, join_k2, ...).
 * In the dialect of ndx_device.h; the per-form part is included once per
 * index form, as ndx_copy_gpu.h is. */
#include "ndx/ndx_device.h"
#include "ndx_launch.h"

#ifndef NDX_GPU_TILE_H
#define NDX_GPU_TILE_H

/* A tile axis from its first index x0 (ndx_gpu_tile_at_wN): stride `s`,
 * joined with a batch axis (ndx_launch.h) into blocks of `ext` elements
 * `sg` apart, and those, in the gpu shape's second join, with another
 * into blocks of `ext2` blocks `sg2` apart, x0 being index r of block g of
 * block g2 (an axis not joined: blocks of 2^30 elements, x0 = g2, sg2 =
 * s; joined once: ext2 = 2^30, sg2 = sg). */
typedef struct ndx_gpu_join {
  ndx_i64 s, sg, sg2, g2;
  int r, g, ext, ext2;
} ndx_gpu_join;

/* The offset of index x0 + a of tile axis x. r + a and g plus its carry
 * are under 2^31: 32-bit divisions, where a 64-bit one's call makes ptxas
 * spill. */
NDX_FN ndx_i64 ndx_gpu_joined(const ndx_gpu_join *x, ndx_i64 a) {
  int r = x->r + (int)a, c = r / x->ext, g = x->g + c, c2 = g / x->ext2;
  return (ndx_i64)(r - c * x->ext) * x->s + (ndx_i64)(g - c2 * x->ext2) * x->sg +
         (x->g2 + c2) * x->sg2;
}

#endif /* NDX_GPU_TILE_H */

#ifndef NDX_GPU_TILE_H_WN
#define NDX_GPU_TILE_H_WN
#define ndx_gpu_matrix_wN NDX_WN(ndx_gpu_matrix_w32, ndx_gpu_matrix_w64)
#define ndx_gpu_tile_wN NDX_WN(ndx_gpu_tile_w32, ndx_gpu_tile_w64)
#define ndx_gpu_tile_at_wN NDX_WN(ndx_gpu_tile_at_w32, ndx_gpu_tile_at_w64)
#define ndx_gpu_tile_join_wN NDX_WN(ndx_gpu_tile_join_w32, ndx_gpu_tile_join_w64)
#endif

#if (NDX_WIDE && !defined(NDX_GPU_TILE_H_W64)) || (!NDX_WIDE && !defined(NDX_GPU_TILE_H_W32))
#if NDX_WIDE
#define NDX_GPU_TILE_H_W64
#else
#define NDX_GPU_TILE_H_W32
#endif

/* A transpose batch's matrix extent along k (side 0, the source's unit
 * axis) or j (side 1), its joins included (ndx_launch.h). */
NDX_FN ndx_i64 ndx_gpu_matrix_wN(NDX_CONSTANT const ndx_launch *d, int side) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int r = (int)p->rank;
  return side ? ndx_extent_wN(p, r - 1) * d->join_j * d->join_j2
              : ndx_extent_wN(p, r - 2) * d->join_k * d->join_k2;
}

/* Where tile t of a transpose of `bits`-bit elements lies: its batch's
 * positions of element [0, 0] on both sides (pos[0] destination, pos[1]
 * source), and its first element along k (the source's unit axis, second
 * to last) and j (the destination's, last), of the joined matrix where
 * the launch joins batch axes into the tiles (8 bits and up). */
typedef struct ndx_gpu_tile_wN {
  ndx_i64 pos[2];
  ndx_i64 k0, j0;
} ndx_gpu_tile_wN;

NDX_FN ndx_gpu_tile_wN ndx_gpu_tile_at_wN(NDX_CONSTANT const ndx_launch *d, ndx_i64 t, int bits) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  ndx_i64 batch = t / d->row_units, in = t - batch * d->row_units;
  ndx_i64 tk = in / d->tiles_j;
  int r = (int)p->rank, lead = bits >= 8 ? (int)d->batch_axes : r - 2; /* joins: 8 bits up */
  ndx_gpu_tile_wN w;
  w.pos[0] = (ndx_i64)ndx_position_lead_wN(p, 0, (NDX_WORD)batch, lead);
  w.pos[1] = (ndx_i64)ndx_position_lead_wN(p, 1, (NDX_WORD)batch, lead);
  w.k0 = tk * d->tile_k;
  w.j0 = (in - tk * d->tiles_j) * d->tile_j;
  return w;
}

/* Tile w's axis along k (side 0: the destination's offsets of its rows
 * k0 + a, phase 2) or j (side 1: the source's of rows j0 + a, phase 1),
 * joins included (8 bits and up), made where a phase starts, so that the
 * other side's does not hold registers through it. */
NDX_FN ndx_gpu_join ndx_gpu_tile_join_wN(NDX_CONSTANT const ndx_launch *d, const ndx_gpu_tile_wN *w,
                                         int side) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int r = (int)p->rank, axis = r - 2 + side;
  ndx_i64 x0 = side ? w->j0 : w->k0, j1 = side ? d->join_j : d->join_k;
  ndx_i64 j2 = side ? d->join_j2 : d->join_k2;
  ndx_gpu_join x;
  x.s = ndx_stride_wN(p, side, axis), x.sg = 0, x.sg2 = x.s, x.g2 = x0;
  x.r = x.g = 0, x.ext = x.ext2 = 1 << 30;
  if (j1 > 1) {
    /* by the pack's magic pair: a 64-bit division's call makes ptxas spill */
    ndx_i64 b = (ndx_i64)ndx_div_wN((NDX_WORD)x0, ndx_magic_wN(p, axis), ndx_shift_wN(p, axis));
    x.ext = (int)ndx_extent_wN(p, axis), x.r = (int)(x0 - b * x.ext);
    x.sg = x.sg2 = side ? d->join_ssj : d->join_sdk, x.g2 = b;
    if (j2 > 1) {
      int h = (int)b / (int)j1; /* b < j1 * j2 */
      x.ext2 = (int)j1, x.g = (int)b - h * (int)j1, x.g2 = h;
      x.sg2 = side ? d->join_ssj2 : d->join_sdk2;
    }
  }
  return x;
}

#endif /* one index form */
