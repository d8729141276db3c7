/* ndx_convert_cpu.h: the cpu shape's bodies of a copy that converts
 * (ndx_convert_items.h has the loads, stores and the gpu shape's bodies),
 * in the dialect of ndx_device.h; kernels/ndx_convert.cl wraps them into
 * the cpu shape's kernels. A work unit is:
 *   run   C-order elements [i0, i1), a row of the innermost axis at a time
 *         (a work-item's `chunk`), 8-bit destinations and up;
 *   tile  a tile of a transpose pair, 8-bit destinations and up. */
#include "ndx_convert_items.h"
#include "ndx_cpu_vectors.h"

#ifndef NDX_CONVERT_CPU_H
#define NDX_CONVERT_CPU_H

/* The 16 values of a 4-bit source type st converted into type dt (32
 * bits and less): a 4-bit source converts by table. */
NDX_FN void ndx_convert_table4(ndx_u32 *table, int st, int dt) {
  for (ndx_u32 v = 0; v < 16; v++) table[v] = (ndx_u32)ndx_convert_bits(v, st, dt);
}

/* The values of n source elements of type st from position ps, step ss,
 * converted into type dt (32 bits and less) in out[0 .. n): a unit step
 * of 8 bits and up in a loop the compiler vectorizes, 4-bit elements by
 * `table` (ndx_convert_table4), a unit step of them a byte (two
 * elements) at a time. */
NDX_FN void ndx_convert_row32(ndx_u32 *out, ndx_i64 n, NDX_GLOBAL const ndx_u8 *src, ndx_i64 ps,
                              ndx_i64 ss, int st, int dt, const ndx_u32 *table,
                              const ndx_gpu_guard *g) {
  int sb = ndx_cv_bits(st);
  if (sb == 4) {
    ndx_i64 k = 0;
    if (ss == 1 && n > 0) {
      if (ps & 1) { /* from an odd position, the first element on its own */
        out[0] = table[ndx_gpu_in(g, 1, ps, 1, 4) ? ndx_load_bits(src, ps, 4) : 0u];
        k = 1;
      }
      for (; k + 1 < n; k += 2) {
        ndx_u32 byte = ndx_gpu_in(g, 1, ps + k, 2, 4) ? ndx_load8(src, (ps + k) / 2) : 0u;
        out[k] = table[byte & 0xfu];
        out[k + 1] = table[byte >> 4];
      }
    }
    for (; k < n; k++)
      out[k] = table[ndx_gpu_in(g, 1, ps + k * ss, 1, 4) ? ndx_load_bits(src, ps + k * ss, 4) : 0u];
    return;
  }
  ndx_i64 k = 0;
  if (ss == 1)
    for (; k < n; k++)
      out[k] = ndx_gpu_in(g, 1, ps + k, 1, sb)
                   ? (ndx_u32)ndx_convert_bits(ndx_convert_load(src, ps + k, sb), st, dt)
                   : 0u;
  for (; k < n; k++)
    out[k] = ndx_gpu_in(g, 1, ps + k * ss, 1, sb)
                 ? (ndx_u32)ndx_convert_bits(ndx_convert_load(src, ps + k * ss, sb), st, dt)
                 : 0u;
}

#if defined(NDX_OPENCL_C)
/* Stores the transpose of 8 x 8 converted values (row j at v + j * pitch,
 * 8 values along k): loaded as vectors, transposed in registers
 * (ndx_transpose_uint8, the copy's), each column narrowed to the
 * destination's db bits (8, 16 or 32) and stored as one access of 8
 * elements along destination row k, from position pd + k * sdk. */
typedef struct __attribute__((packed)) ndx_packed_uchar8 {
  uchar8 v;
} ndx_packed_uchar8;
NDX_ITEM_FN void ndx_convert_block_store(NDX_GLOBAL ndx_u8 *dst, ndx_i64 pd, ndx_i64 sdk,
                                         const ndx_u32 *v, int pitch, int db,
                                         const ndx_gpu_guard *g) {
  uint8 a[8];
#pragma unroll
  for (int j = 0; j < 8; j++) a[j] = ((const ndx_packed_uint8 *)(v + j * pitch))->v;
  ndx_transpose_uint8(a);
#pragma unroll
  for (int k = 0; k < 8; k++) {
    if (!ndx_gpu_in(g, 0, pd + k * sdk, 8, db)) continue;
    NDX_GLOBAL ndx_u8 *row = dst + (pd + k * sdk) * (db / 8);
    if (db == 8) ((NDX_GLOBAL ndx_packed_uchar8 *)row)->v = convert_uchar8(a[k]);
    if (db == 16) ((NDX_GLOBAL ndx_packed_ushort8 *)row)->v = convert_ushort8(a[k]);
    if (db == 32) ((NDX_GLOBAL ndx_packed_uint8 *)row)->v = a[k];
  }
}

/* A block of a tile: 16 elements along k (the source's rows) by 8 along j
 * (the destination's, of unit stride), as the copy's blocks: source row j
 * from position ps + j * ssj, its elements ssk apart, converted into
 * registers (ndx_convert_row32, a loop the compiler vectorizes), then
 * stored as two 8 x 8 transposes along the 16 destination rows from pd,
 * sdk apart. Each source row gives a whole 64-byte line of 32-bit
 * elements, read once. */
NDX_ITEM_FN void ndx_convert_block(NDX_GLOBAL ndx_u8 *dst, ndx_i64 pd, ndx_i64 sdk,
                                   NDX_GLOBAL const ndx_u8 *src, ndx_i64 ps, ndx_i64 ssk,
                                   ndx_i64 ssj, int st, int dt, const ndx_u32 *table,
                                   const ndx_gpu_guard *g) {
  ndx_u32 v[8 * 16]; /* [j][k], k fastest */
  for (int j = 0; j < 8; j++)
    ndx_convert_row32(v + 16 * j, 16, src, ps + j * ssj, ssk, st, dt, table, g);
  ndx_convert_block_store(dst, pd, sdk, v, 16, ndx_cv_bits(dt), g);
  ndx_convert_block_store(dst, pd + 8 * sdk, sdk, v + 8, 16, ndx_cv_bits(dt), g);
}
#endif

#endif /* NDX_CONVERT_CPU_H */

#ifndef NDX_CONVERT_CPU_H_WN
#define NDX_CONVERT_CPU_H_WN
#define ndx_convert_run_wN NDX_WN(ndx_convert_run_w32, ndx_convert_run_w64)
#define ndx_convert_tile_wN NDX_WN(ndx_convert_tile_w32, ndx_convert_tile_w64)
#endif

#if (NDX_WIDE && !defined(NDX_CONVERT_CPU_H_W64)) || (!NDX_WIDE && !defined(NDX_CONVERT_CPU_H_W32))
#if NDX_WIDE
#define NDX_CONVERT_CPU_H_W64
#else
#define NDX_CONVERT_CPU_H_W32
#endif

/* Run: C-order elements [i0, i1) (i0 < i1 <= numel) of type st into type
 * dt, 8-bit destinations and up, a row of the innermost axis at a time:
 * the odometer finds each row's start and the row steps by its strides.
 * The compiler vectorizes a row's loop where the conversion has no branch
 * and the strides are constants: rows of destination stride 1 and source
 * stride 1 or -1 have loops of their own (ndx-bench cases "convert f32 ->
 * bf16 contiguous", "convert bf16 -> f32 flip"), and a 4-bit source of
 * stride 1 from an even position is read a byte, two elements, at a time
 * ("convert f4e2m1fn -> f16 4096x4096"); any other row, and what is left
 * of one, steps by its strides. */
NDX_FN void ndx_convert_run_wN(NDX_CONSTANT const ndx_pack_head *p, NDX_GLOBAL ndx_u8 *dst,
                               NDX_GLOBAL const ndx_u8 *src, ndx_i64 i0, ndx_i64 i1, int st, int dt,
                               const ndx_gpu_guard *g) {
  int sb = ndx_cv_bits(st), in = (int)p->rank - 1;
  ndx_odo_wN o;
  ndx_odo_start_wN(p, &o, (NDX_WORD)i0);
  ndx_i64 d = in >= 0 ? (ndx_i64)ndx_extent_wN(p, in) : 1;
  ndx_i64 sd = in >= 0 ? (ndx_i64)ndx_stride_wN(p, 0, in) : 0;
  ndx_i64 ss = in >= 0 ? (ndx_i64)ndx_stride_wN(p, 1, in) : 0;
  for (ndx_i64 i = i0; i < i1;) {
    ndx_i64 j = in >= 0 ? (ndx_i64)o.index[in] : 0, n = d - j < i1 - i ? d - j : i1 - i;
    ndx_i64 pd = (ndx_i64)o.pos[0], ps = (ndx_i64)o.pos[1], k = 0;
    if (sd == 1 && ss == 1 && sb >= 8) {
      for (; k < n; k++) ndx_convert_at(dst, pd + k, src, ps + k, st, dt, g);
    } else if (sd == 1 && ss == -1 && sb >= 8) {
      for (; k < n; k++) ndx_convert_at(dst, pd + k, src, ps - k, st, dt, g);
    } else if (sd == 1 && ss == 1 && sb == 4 && !(ps & 1)) {
      for (ndx_i64 h = 0; h < n / 2; h++) {
        if (!ndx_gpu_in(g, 1, ps + 2 * h, 2, 4)) continue;
        ndx_u32 byte = ndx_load8(src, ps / 2 + h);
        ndx_convert_put(dst, pd + 2 * h, byte & 0xfu, st, dt, g);
        ndx_convert_put(dst, pd + 2 * h + 1, byte >> 4, st, dt, g);
      }
      k = n - n % 2;
    }
    for (; k < n; k++) ndx_convert_at(dst, pd + k * sd, src, ps + k * ss, st, dt, g);
    i += n;
    if (i < i1) ndx_odo_next_row_wN(p, &o, (NDX_WORD)j, (NDX_WORD)sd, (NDX_WORD)ss);
  }
}

/* Tile: tile t of a transpose pair (the pack in the order of the copy
 * planner's transpose: [batch..., k, j], k the source's unit axis, j the
 * destination's), `row_units` tiles a batch, `tiles_j` of them along j,
 * each tile_k x tile_j elements (the launch descriptor), 8-bit
 * destinations and up. Into 32 bits and less, where the destination's
 * rows have unit stride, the tile goes in blocks of 16 x 8
 * (ndx_convert_block) that convert in registers between load and store, as
 * the copy's tiles go in blocks, its source lines asked for at its start
 * ("convert f32 -> f16 transpose 4096x4096"); what is left, and every
 * other tile, element by element. */
NDX_FN void ndx_convert_tile_wN(NDX_CONSTANT const ndx_launch *d, NDX_GLOBAL ndx_u8 *dst,
                                NDX_GLOBAL const ndx_u8 *src, ndx_i64 t, int st, int dt,
                                const ndx_gpu_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int sb = ndx_cv_bits(st), db = ndx_cv_bits(dt), r = (int)p->rank;
  ndx_i64 batch = t / d->row_units, in = t - batch * d->row_units, tk = in / d->tiles_j;
  ndx_i64 k0 = tk * d->tile_k, j0 = (in - tk * d->tiles_j) * d->tile_j;
  ndx_i64 dk = (ndx_i64)ndx_extent_wN(p, r - 2), dj = (ndx_i64)ndx_extent_wN(p, r - 1);
  ndx_i64 nk = k0 + d->tile_k < dk ? d->tile_k : dk - k0,
          nj = j0 + d->tile_j < dj ? d->tile_j : dj - j0;
  ndx_i64 sdk = (ndx_i64)ndx_stride_wN(p, 0, r - 2), sdj = (ndx_i64)ndx_stride_wN(p, 0, r - 1);
  ndx_i64 ssk = (ndx_i64)ndx_stride_wN(p, 1, r - 2), ssj = (ndx_i64)ndx_stride_wN(p, 1, r - 1);
  ndx_i64 pd0 = (ndx_i64)ndx_position_lead_wN(p, 0, (NDX_WORD)batch, r - 2) + k0 * sdk + j0 * sdj;
  ndx_i64 ps0 = (ndx_i64)ndx_position_lead_wN(p, 1, (NDX_WORD)batch, r - 2) + k0 * ssk + j0 * ssj;
  ndx_i64 fk = 0, fj = 0; /* the destination rows [0, fk) and columns [0, fj) that go in blocks */
#if defined(NDX_OPENCL_C)
  if (db <= 32 && sdj == 1) fk = nk - nk % 16, fj = nj - nj % 8;
  ndx_u32 table[16];
  if (sb == 4 && fk > 0 && fj > 0) ndx_convert_table4(table, st, dt);
  if (ssk == 1 && fk > 0) /* into the L2, as the tile's blocks go down its rows */
    for (ndx_i64 j = 0; j < fj; j++) NDX_PREFETCH(src + (ps0 + j * ssj) * sb / 8, fk * sb / 8, 1);
  for (ndx_i64 k = 0; k < fk; k += 16)
    for (ndx_i64 j = 0; j < fj; j += 8)
      ndx_convert_block(dst, pd0 + k * sdk + j, sdk, src, ps0 + k * ssk + j * ssj, ssk, ssj, st, dt,
                        table, g);
#endif
  for (ndx_i64 k = 0; k < nk; k++)
    for (ndx_i64 j = k < fk ? fj : 0; j < nj; j++)
      ndx_convert_at(dst, pd0 + k * sdk + j * sdj, src, ps0 + k * ssk + j * ssj, st, dt, g);
}

#endif /* one index form */
