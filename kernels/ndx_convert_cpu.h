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
/* A tile's second pass goes in blocks of 8 x 8 values where the
 * destination's rows have unit stride: the block's 8 rows of the buffer
 * (row j at b + j * pitch, 8 converted values along k) are loaded as
 * vectors, transposed in registers (ndx_transpose_uint8, the copy's), and
 * each of its columns narrowed to the destination's db bits (8, 16 or 32)
 * and stored as one access of 8 elements along destination row k, from
 * position pd + k * sdk, as the copy's blocks go: element by element, the
 * pass would read its buffer down the columns ("convert f32 -> f16
 * transpose 4096x4096"). */
typedef struct __attribute__((packed)) ndx_packed_uchar8 {
  uchar8 v;
} ndx_packed_uchar8;
NDX_ITEM_FN void ndx_convert_block(NDX_GLOBAL ndx_u8 *dst, ndx_i64 pd, ndx_i64 sdk,
                                   const ndx_u32 *b, ndx_i64 pitch, int db,
                                   const ndx_gpu_guard *g) {
  uint8 a[8];
#pragma unroll
  for (int j = 0; j < 8; j++) a[j] = ((const ndx_packed_uint8 *)(b + j * pitch))->v;
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
#define NDX_CONVERT_BLOCK 8
#else
#define NDX_CONVERT_BLOCK 1
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
 * destinations and up. A tile of destinations of 32 bits and less goes
 * through a private buffer of the converted values, in two passes that
 * each run along one side's unit axis: the first loads and converts the
 * source along k (a loop the compiler vectorizes, as a run's), the second
 * stores the buffer's transpose along j, in blocks transposed in registers
 * where the destination's rows have unit stride (ndx_convert_block), what
 * is left of them element by element (ndx-bench case "convert f32 -> f16
 * transpose 4096x4096"); a 64-bit destination goes element by element. */
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
  if (db > 32) {
    for (ndx_i64 k = 0; k < nk; k++)
      for (ndx_i64 j = 0; j < nj; j++)
        ndx_convert_at(dst, pd0 + k * sdk + j * sdj, src, ps0 + k * ssk + j * ssj, st, dt, g);
    return;
  }
  ndx_u32 buf[NDX_CONVERT_TILE_ELEMS], table[16]; /* buf: [j][k], k fastest */
  if (sb == 4) ndx_convert_table4(table, st, dt);
  if (ssk == 1) /* the tile's source lines asked for together, as the copy's tile does */
    for (ndx_i64 j = 0; j < nj; j++) NDX_PREFETCH(src + (ps0 + j * ssj) * sb / 8, nk * sb / 8, 0);
  for (ndx_i64 j = 0; j < nj; j++)
    ndx_convert_row32(buf + j * nk, nk, src, ps0 + j * ssj, ssk, st, dt, table, g);
  /* the destination rows [0, fk) and columns [0, fj) that go in blocks */
  ndx_i64 L = sdj == 1 ? NDX_CONVERT_BLOCK : 1;
  ndx_i64 fk = L > 1 ? nk - nk % L : 0, fj = L > 1 ? nj - nj % L : 0;
#if defined(NDX_OPENCL_C)
  for (ndx_i64 k = 0; k < fk; k += L)
    for (ndx_i64 j = 0; j < fj; j += L)
      ndx_convert_block(dst, pd0 + k * sdk + j, sdk, buf + j * nk + k, nk, db, g);
#endif
  for (ndx_i64 k = 0; k < nk; k++) {
    ndx_i64 pd = pd0 + k * sdk;
    for (ndx_i64 j = k < fk ? fj : 0; j < nj; j++)
      if (ndx_gpu_in(g, 0, pd + j * sdj, 1, db))
        ndx_convert_store(dst, pd + j * sdj, db, buf[j * nk + k]);
  }
}

#endif /* one index form */
