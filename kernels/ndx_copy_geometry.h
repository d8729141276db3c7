/* ndx_copy_geometry.h: the tile geometry of ndx's copy kernels, which the
 * host planners size launches with (src/host/launch_cpu.c, launch.c,
 * src/device/cuda_plan.c) and the copy bodies (ndx_copy_cpu.h) and kernels
 * (kernels/ndx_copy.cl) split their work by: plain functions of extents,
 * positions and the element width, one form, so that a planner calls them
 * without reading a pack. Private to ndx, as ndx_copy_items.h, which
 * includes it first; no kernel bodies and no code for one kind of device
 * here.
 *
 *   tiles    NDX_TILE, ndx_tile_side, ndx_tile_shape, ndx_tile_batches:
 *            a transpose's tiles and the batches a work-item takes
 *   groups   ndx_group_rows, ndx_tile_rows: small tiles joined with the
 *            batch axes next to them (src/host/launch.c, ndx_launch_join)
 *   work     ndx_tile_work: what a tile work-item copies
 *   bytes    ndx_bytes_span: a sub-byte copy's destination bytes
 *   min      ndx_min64
 *
 * Included once (the planners include it alone; ndx_copy_items.h at each
 * of its inclusions). tools/embed.py inlines it into the embedded OpenCL
 * program; host and CUDA builds put kernels/ on the include path. */

#include "ndx/ndx_device.h"

#ifndef NDX_COPY_GEOMETRY_H
#define NDX_COPY_GEOMETRY_H

/* The unit of the sides of the tiles a transpose work-item copies: 128-bit
 * tiles are 2 units on a side, narrower elements' more (ndx_tile_side). */
#ifndef NDX_TILE
#define NDX_TILE 8
#endif

/* Side of a transpose tile of `bits`-bit elements: 16 KiB for 8 and 32-bit
 * elements, 32 KiB for 16-bit and 1-bit ones, so that the work of one tile
 * (its index math, the loop set-up) stays small next to its bytes and each
 * source row of a tile is read in runs of 128 bytes or more (ndx-bench
 * --cl case "transpose f32 4096x4096" shows it against 32x32 tiles, the
 * "transpose u16" cases against 64x64 ones); a 1-bit tile's rows of 512
 * are one 64-byte line each, which streaming stores write whole (case
 * "transpose u1 16384x16384" shows it against 256x256 tiles, whose rows
 * are half lines); 64 and 128-bit tiles are 8 and 4 KiB. */
NDX_FN int ndx_tile_side(int bits) {
  return bits == 1    ? 64 * NDX_TILE
         : bits <= 16 ? 16 * NDX_TILE
         : bits == 32 ? 8 * NDX_TILE
         : bits == 64 ? 4 * NDX_TILE
                      : 2 * NDX_TILE;
}

NDX_FN ndx_i64 ndx_min64(ndx_i64 a, ndx_i64 b) {
  return a < b ? a : b;
}

/* The tile of a tile copy whose axes rank-2 and rank-1 have extents di and
 * dj (both > 0): *ti rows by *tj columns. Square of side ndx_tile_side,
 * except that a thin matrix (fewer rows or columns than a side) gets tiles
 * as thin as it and as many elements, so that a 3 x 1000003 transpose still
 * moves whole tiles. */
NDX_FN void ndx_tile_shape(ndx_i64 di, ndx_i64 dj, int bits, ndx_i64 *ti, ndx_i64 *tj) {
  ndx_i64 side = ndx_tile_side(bits), area = side * side;
  *ti = side;
  *tj = side;
  if (dj < side) {
    *tj = dj;
    *ti = area / dj;
  } else if (di < side) {
    *ti = di;
    *tj = ndx_min64(dj, area / di / 8 * 8); /* tiles start on whole bytes of 1-bit rows */
  }
}

/* Batches a tile work-item copies so that it moves about `elems` elements:
 * small tiles (a rank-8 permutation of extents 8 has 8 x 8 tiles) share one
 * item's start, the magic divisions of ndx_odo_start, among many batches,
 * which it then steps by adding strides. 1 for tiles of `elems` or more. */
NDX_FN ndx_i64 ndx_tile_batches(ndx_i64 di, ndx_i64 dj, int bits, ndx_i64 elems) {
  ndx_i64 th, tw;
  ndx_tile_shape(di, dj, bits, &th, &tw);
  ndx_i64 area = ndx_min64(di, th) * ndx_min64(dj, tw);
  return area >= elems ? 1 : elems / area;
}

/* The offsets of n consecutive rows of a group from row `row`: row g*d + r
 * (r < d) is at r*s + g*sg. */
NDX_FN void ndx_group_rows(ndx_i64 *o, int n, ndx_i64 row, ndx_i64 d, ndx_i64 s, ndx_i64 sg) {
  ndx_i64 g = row / d, r = row - g * d;
  for (int k = 0; k < n; k++) {
    o[k] = r * s + g * sg;
    if (++r == d) r = 0, g++;
  }
}

/* The rows and columns of a grouped tile's matrix (ndx_launch_join): row I
 * is at destination offset drow(I) over di rows of stride sdi in groups of
 * stride sgi, column J at source offset srow(J) over dj columns of stride
 * ssj in groups of stride sgj (ndx_group_rows); element (I, J) is
 * destination drow(I) + J and source I + srow(J) from the batch's (0, 0). */
typedef struct ndx_tile_rows {
  ndx_i64 di, sdi, sgi, dj, ssj, sgj;
} ndx_tile_rows;

/* The work of one work-item of a tile copy (ndx_tile_work_of in
 * ndx_copy_cpu.h): rows I0 .. I0+ni-1 and columns J0 .. J0+nj-1 of the
 * matrices of batches b0 .. b0+n-1 (n <= 0: none), a batch's matrix ri x
 * rj elements, its last two axes and the batch axes joined to them. */
typedef struct ndx_tile_work {
  ndx_i64 ri, rj, b0, n, I0, J0, ni, nj;
} ndx_tile_work;

/* The destination bytes [*first, *end) that positions [lo, hi) (lo < hi)
 * of `bits`-bit elements (1, 2, 4) cover: for a sub-byte copy, [lo, hi)
 * is the destination's span (ndx_span of operand 0). */
NDX_FN void ndx_bytes_span(ndx_i64 lo, ndx_i64 hi, int bits, ndx_i64 *first, ndx_i64 *end) {
  int lg = ndx_sub_log2(bits);
  *first = lo >> lg;
  *end = ((hi - 1) >> lg) + 1;
}

/* Work-item `item`'s destination bytes [*b0, *b1) of a sub-byte copy
 * whose span's bytes [first, end) (ndx_bytes_span, which the host
 * computes once) go `chunk` a work-item; none where *b0 == *b1. */
NDX_FN void ndx_bytes_item(ndx_i64 first, ndx_i64 end, ndx_i64 item, ndx_i64 chunk, ndx_i64 *b0,
                           ndx_i64 *b1) {
  *b0 = ndx_min64(end, first + item * chunk);
  *b1 = ndx_min64(end, *b0 + chunk);
}

#endif /* NDX_COPY_GEOMETRY_H */
