/* ndx_copy_gpu.h: the GPU-shaped copy bodies, written once in the portable
 * dialect of ndx_device.h (NDX_GLOBAL, NDX_LOCAL, NDX_BARRIER, NDX_LOCAL_ID,
 * ...): kernels/ndx_copy.cl wraps them into the OpenCL kernels of the gpu
 * shape, kernels/ndx_copy_gpu.cu into CUDA and HIP kernels, and
 * tests/test_gpu_emulate.c and bench/gpu_model.c run them on the host.
 *
 * The shape of the work, for a GPU's memory system: adjacent work-items
 * take adjacent units of the launch (ndx_launch.h), so that the accesses of
 * a warp or wavefront fall on adjacent addresses and coalesce:
 *   rows       one vector of the descriptor's width per unit, the width the
 *              planner proved every row start aligned to;
 *   gather     one element per unit, in the destination's order;
 *   transpose  a tile per work-group (ndx_launch.h), loaded along the
 *              source's unit axis into work-group memory whose rows are
 *              padded so that a column read asks each bank for one word,
 *              then stored along the destination's unit axis, the tile's
 *              shape and padding the launch's (ndx_launch.h); below 8 bits
 *              a work-item loads one whole source byte and stores one whole
 *              destination byte;
 *   bytes      one destination byte per unit (1, 2 and 4 bits).
 * A work-item walks its units in a loop of stride the launch's size, so any
 * launch size covers the work (the planner sizes it, src/host/launch.c),
 * and a rows or gather work-item loads NDX_GPU_BATCH units before it
 * stores any.
 *
 * Every body takes `bits` as a constant of its caller, so its switches
 * fold, and an ndx_gpu_guard (ndx_gpu_guard.h) that checks each access in
 * the bounds_check build. */
#include "ndx/ndx_device.h"
#include "ndx_gpu_batch.h"
#include "ndx_gpu_byte.h"
#include "ndx_gpu_guard.h"
#include "ndx_gpu_tile.h"
#include "ndx_gpu_trace.h"
#include "ndx_launch.h"

#ifndef NDX_COPY_GPU_H
#define NDX_COPY_GPU_H

/* This work-item's first unit and the launch's size: the stride of its loop. */
#define NDX_GPU_FIRST_UNIT (NDX_GROUP_ID * NDX_LOCAL_SIZE + NDX_LOCAL_ID)
#define NDX_GPU_LAUNCH_SIZE (NDX_GROUPS * NDX_LOCAL_SIZE)

/* The element of `bytes` bytes at byte `at` of a tile: from a register
 * value (ndx_gpu_load), and from the tile to global memory. */
NDX_FN void ndx_gpu_tile_put(NDX_LOCAL ndx_u8 *t, ndx_i64 at, int bytes, ndx_u128 v) {
  switch (bytes) {
  case 1:
    t[at] = (ndx_u8)v.x;
    break;
  case 2:
    *(NDX_LOCAL ndx_u16 *)(t + at) = (ndx_u16)v.x;
    break;
  case 4:
    *(NDX_LOCAL ndx_u32 *)(t + at) = (ndx_u32)v.x;
    break;
  case 8:
    *(NDX_LOCAL ndx_u64 *)(t + at) = v.x;
    break;
  default:
    *(NDX_LOCAL ndx_u128 *)(t + at) = v;
    break;
  }
}
NDX_FN void ndx_gpu_tile_get(NDX_GLOBAL ndx_u8 *dst, ndx_pos pd, NDX_LOCAL const ndx_u8 *t,
                             ndx_i64 at, int bytes) {
  switch (bytes) {
  case 1:
    ndx_store8(dst, pd, t[at]);
    break;
  case 2:
    ndx_store16(dst, pd, *(NDX_LOCAL const ndx_u16 *)(t + at));
    break;
  case 4:
    ndx_store32(dst, pd, *(NDX_LOCAL const ndx_u32 *)(t + at));
    break;
  case 8:
    ndx_store64(dst, pd, *(NDX_LOCAL const ndx_u64 *)(t + at));
    break;
  default:
    ndx_store128(dst, pd, *(NDX_LOCAL const ndx_u128 *)(t + at));
    break;
  }
}

/* Below 8 bits a tile row r (destination element j0 + r) holds NDX_GPU_TILE
 * source bytes of elements along k, and byte kb of it lies at this offset:
 * its 4-byte word XOR-ed with r / 32. The lanes storing destination bytes
 * read down one column, rows per = 8 / bits apart: with rows of 9 words,
 * 32 / per of them fall on distinct banks, and the XOR moves each further
 * run of them to banks of its own. */
NDX_FN ndx_i64 ndx_gpu_bits_at(ndx_i64 r, ndx_i64 kb) {
  return r * NDX_GPU_TILE_BITS_PITCH + (((kb >> 2) ^ (r >> 5)) << 2) + (kb & 3);
}

/* Element `pos` of `bytes` bytes (1 to 16), into the low bytes of a
 * 16-byte register value, and back. */
NDX_FN ndx_u128 ndx_gpu_load(NDX_GLOBAL const ndx_u8 *src, ndx_pos pos, int bytes) {
  ndx_u128 v;
  v.y = 0;
  switch (bytes) {
  case 1:
    v.x = ndx_load8(src, pos);
    break;
  case 2:
    v.x = ndx_load16(src, pos);
    break;
  case 4:
    v.x = ndx_load32(src, pos);
    break;
  case 8:
    v.x = ndx_load64(src, pos);
    break;
  default:
    v = ndx_load128(src, pos);
    break;
  }
  return v;
}
NDX_FN void ndx_gpu_store(NDX_GLOBAL ndx_u8 *dst, ndx_pos pos, int bytes, ndx_u128 v) {
  switch (bytes) {
  case 1:
    ndx_store8(dst, pos, (ndx_u8)v.x);
    break;
  case 2:
    ndx_store16(dst, pos, (ndx_u16)v.x);
    break;
  case 4:
    ndx_store32(dst, pos, (ndx_u32)v.x);
    break;
  case 8:
    ndx_store64(dst, pos, v.x);
    break;
  default:
    ndx_store128(dst, pos, v);
    break;
  }
}

/* Phase 2 of a batched body that stores to global memory
 * (ndx_gpu_batch.h): stores each unit of batch q that has a place, `vb`
 * bytes at element position h.to of `eb`-byte elements (a multiple of vb /
 * eb), unit i traced at `site` in turn `turn` + i. */
NDX_FN void ndx_gpu_store_batch(ndx_gpu_held *q, NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, int eb,
                                int vb, int site, ndx_i64 turn) {
  for (int i = 0; i < NDX_GPU_BATCH; i++) {
    ndx_gpu_held h = q[0];
    ndx_gpu_push(q, ndx_gpu_none());
    if (h.to < 0) continue;
    NDX_GPU_TRACE(site | NDX_TRACE_STORE, turn + i, dst + h.to * eb, vb);
    ndx_gpu_store(dst, h.to / (vb / eb), vb, h.v);
  }
}

/* The work-items of a tile row in a phase that realigns (ndx_launch.h)
 * start on the sector holding the row's first element, at position `pos`:
 * the slots before that element, which stay idle. */
NDX_FN ndx_i64 ndx_gpu_realign(ndx_i64 pos, ndx_i64 realign) {
  return realign ? pos & (realign - 1) : 0;
}

#endif /* NDX_COPY_GPU_H */

/* ==== Bodies, once per index form ============================================ */

#ifndef NDX_COPY_GPU_H_WN
#define NDX_COPY_GPU_H_WN
#define ndx_gpu_rows_wN NDX_WN(ndx_gpu_rows_w32, ndx_gpu_rows_w64)
#define ndx_gpu_stage_wN NDX_WN(ndx_gpu_stage_w32, ndx_gpu_stage_w64)
#define ndx_gpu_stage_at_wN NDX_WN(ndx_gpu_stage_at_w32, ndx_gpu_stage_at_w64)
#define ndx_gpu_stage_load_wN NDX_WN(ndx_gpu_stage_load_w32, ndx_gpu_stage_load_w64)
#define ndx_gpu_stage_store_wN NDX_WN(ndx_gpu_stage_store_w32, ndx_gpu_stage_store_w64)
#define ndx_gpu_rows_staged_wN NDX_WN(ndx_gpu_rows_staged_w32, ndx_gpu_rows_staged_w64)
#define ndx_gpu_gather_wN NDX_WN(ndx_gpu_gather_w32, ndx_gpu_gather_w64)
#define ndx_gpu_tile_source_wN NDX_WN(ndx_gpu_tile_source_w32, ndx_gpu_tile_source_w64)
#define ndx_gpu_tile_words_wN NDX_WN(ndx_gpu_tile_words_w32, ndx_gpu_tile_words_w64)
#define ndx_gpu_tile_load_wN NDX_WN(ndx_gpu_tile_load_w32, ndx_gpu_tile_load_w64)
#define ndx_gpu_tile_store_wN NDX_WN(ndx_gpu_tile_store_w32, ndx_gpu_tile_store_w64)
#define ndx_gpu_bits_load_wN NDX_WN(ndx_gpu_bits_load_w32, ndx_gpu_bits_load_w64)
#define ndx_gpu_bits_store_wN NDX_WN(ndx_gpu_bits_store_w32, ndx_gpu_bits_store_w64)
#define ndx_gpu_transpose_wN NDX_WN(ndx_gpu_transpose_w32, ndx_gpu_transpose_w64)
#define ndx_gpu_bytes_wN NDX_WN(ndx_gpu_bytes_w32, ndx_gpu_bytes_w64)
#endif

#if (NDX_WIDE && !defined(NDX_COPY_GPU_H_W64)) || (!NDX_WIDE && !defined(NDX_COPY_GPU_H_W32))
#if NDX_WIDE
#define NDX_COPY_GPU_H_W64
#else
#define NDX_COPY_GPU_H_W32
#endif

/* Rows: unit u is bytes [v*vector, (v+1)*vector) of row u / row_units, v
 * its remainder; a row is the innermost axis, of unit stride on both sides.
 * A work-item loads NDX_GPU_BATCH units before it stores any. */
NDX_FN void ndx_gpu_rows_wN(NDX_CONSTANT const ndx_launch *d, NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                            NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                            const ndx_gpu_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int lead = (int)p->rank - 1, eb = bits / 8, vb = (int)d->vector;
  ndx_i64 per = vb / eb, size = NDX_GPU_LAUNCH_SIZE; /* elements of a unit */
  for (ndx_i64 u0 = NDX_GPU_FIRST_UNIT; u0 < d->units; u0 += NDX_GPU_BATCH * size) {
    ndx_gpu_held q[NDX_GPU_BATCH]; /* ndx_gpu_batch.h */
    ndx_gpu_clear(q);
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_i64 u = u0 + i * size, step = u0 / size + i;
      ndx_gpu_held h = ndx_gpu_none();
      if (u < d->units) {
        ndx_i64 row = ndx_launch_row(d, u), e = (u - row * d->row_units) * per;
        ndx_i64 ps = (ndx_i64)ndx_position_lead_wN(p, 1, (NDX_WORD)row, lead) + e;
        ndx_i64 pd = (ndx_i64)ndx_position_lead_wN(p, 0, (NDX_WORD)row, lead) + e;
        if (ndx_gpu_in(g, 0, pd, per, bits) && ndx_gpu_in(g, 1, ps, per, bits)) {
          NDX_GPU_TRACE(NDX_TRACE_ROWS, step, src + ps * eb, vb);
          h.v = ndx_gpu_load(src, ps / per, vb);
          h.to = pd;
        }
      }
      ndx_gpu_push(q, h);
    }
    ndx_gpu_store_batch(q, dst, eb, vb, NDX_TRACE_ROWS, u0 / size);
  }
}

/* Where slot `e` of a pass of rows through work-group memory
 * (ndx_launch.h: stage_units) lies, for vectors of `per` elements: in
 * segment `seg` of the launch (-1 past its last), the pass's segment `s`,
 * at slot `b` of the segment's; the segment's first vector `u0` in its row,
 * its vectors `len`, and the positions of its first element on both sides
 * (pos[0] destination, pos[1] source). */
typedef struct ndx_gpu_stage_wN {
  ndx_i64 seg, s, b, u0, len, pos[2];
} ndx_gpu_stage_wN;

NDX_FN ndx_gpu_stage_wN ndx_gpu_stage_at_wN(NDX_CONSTANT const ndx_launch *d, ndx_i64 pass,
                                            ndx_i64 e, ndx_i64 per) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int lead = (int)p->rank - 1;
  ndx_gpu_stage_wN w;
  w.s = e / d->slots_k, w.b = e - w.s * d->slots_k, w.seg = pass * d->stage_segs + w.s;
  w.u0 = w.len = w.pos[0] = w.pos[1] = 0;
  if (w.seg >= d->units) {
    w.seg = -1;
    return w;
  }
  ndx_i64 row = ndx_launch_row(d, w.seg);
  ndx_i64 rest = ndx_extent_wN(p, lead) / per - (w.seg - row * d->row_units) * d->stage_units;
  w.u0 = (w.seg - row * d->row_units) * d->stage_units;
  w.len = rest < d->stage_units ? rest : d->stage_units;
  w.pos[0] = (ndx_i64)ndx_position_lead_wN(p, 0, (NDX_WORD)row, lead) + w.u0 * per;
  w.pos[1] = (ndx_i64)ndx_position_lead_wN(p, 1, (NDX_WORD)row, lead) + w.u0 * per;
  return w;
}

/* Phase 1 of pass `pass` (the group's turn `step`, for NDX_GPU_TRACE):
 * work-item `lid` of `n` loads vectors of its segments' source rows into
 * work-group memory, segment s at s * stage_units vectors, NDX_GPU_BATCH
 * of them before it stores any; a segment takes slots_k work-items from
 * the sector that holds its first vector. */
NDX_FN void ndx_gpu_stage_load_wN(NDX_CONSTANT const ndx_launch *d, NDX_LOCAL ndx_u8 *stage,
                                  NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits, ndx_i64 lid,
                                  ndx_i64 n, ndx_i64 pass, ndx_i64 step, const ndx_gpu_guard *g) {
  int vb = (int)d->vector;
  ndx_i64 per = vb / (bits / 8), elems = d->stage_segs * d->slots_k;
  for (ndx_i64 e0 = lid; e0 < elems; e0 += NDX_GPU_BATCH * n) {
    ndx_gpu_held q[NDX_GPU_BATCH]; /* to: a byte of the stage (ndx_gpu_batch.h) */
    ndx_gpu_clear(q);
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_i64 e = e0 + i * n;
      ndx_gpu_held h = ndx_gpu_none();
      if (e < elems) {
        ndx_gpu_stage_wN w = ndx_gpu_stage_at_wN(d, pass, e, per);
        ndx_i64 b = w.b - ndx_gpu_realign(w.pos[1] / per, d->realign_k), ps = w.pos[1] + b * per;
        if (w.seg >= 0 && b >= 0 && b < w.len && ndx_gpu_in(g, 1, ps, per, bits)) {
          NDX_GPU_TRACE(NDX_TRACE_STAGE, step * 1024 + (e - lid) / n, src + ps * (bits / 8), vb);
          h.v = ndx_gpu_load(src, ps / per, vb);
          h.to = (w.s * d->stage_units + b) * vb;
        }
      }
      ndx_gpu_push(q, h);
    }
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_gpu_held h = q[0];
      ndx_gpu_push(q, ndx_gpu_none());
      if (h.to < 0) continue;
      NDX_GPU_TRACE(NDX_TRACE_STAGE | NDX_TRACE_LOCAL | NDX_TRACE_STORE,
                    step * 1024 + (e0 - lid) / n + i, stage + h.to, vb);
      ndx_gpu_tile_put(stage, h.to, vb, h.v);
    }
  }
}

/* Phase 2: work-item `lid` of `n` stores vectors of its segments'
 * destination rows from work-group memory; a segment takes slots_j
 * work-items from the sector that holds its first vector. */
NDX_FN void ndx_gpu_stage_store_wN(NDX_CONSTANT const ndx_launch *d, NDX_LOCAL const ndx_u8 *stage,
                                   NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, int bits, ndx_i64 lid,
                                   ndx_i64 n, ndx_i64 pass, ndx_i64 step, const ndx_gpu_guard *g) {
  int vb = (int)d->vector;
  ndx_i64 per = vb / (bits / 8), elems = d->stage_segs * d->slots_j;
  for (ndx_i64 e = lid; e < elems; e += n) {
    ndx_gpu_stage_wN w = ndx_gpu_stage_at_wN(d, pass, e, per);
    ndx_i64 b = w.b - ndx_gpu_realign(w.pos[0] / per, d->realign_j);
    if (w.seg < 0 || b < 0 || b >= w.len) continue;
    ndx_i64 pd = w.pos[0] + b * per, at = (w.s * d->stage_units + b) * vb;
    ndx_i64 it = step * 1024 + (e - lid) / n;
    if (!ndx_gpu_in(g, 0, pd, per, bits)) continue;
    NDX_GPU_TRACE(NDX_TRACE_STAGE | NDX_TRACE_LOCAL, it, stage + at, vb);
    NDX_GPU_TRACE(NDX_TRACE_STAGE | NDX_TRACE_STORE, it, dst + pd * (bits / 8), vb);
    ndx_gpu_tile_get(dst, pd / per, stage, at, vb);
  }
}

/* Rows through work-group memory: work-group g takes passes g, g + groups,
 * ... (the whole group loops alike, so every work-item reaches each
 * barrier), each of stage_segs segments through `stage`, the group's
 * NDX_GPU_STAGE_BYTES of work-group memory: loaded with each segment's
 * work-items on the source's sectors, stored with them on the
 * destination's. */
NDX_FN void ndx_gpu_rows_staged_wN(NDX_CONSTANT const ndx_launch *d, NDX_LOCAL ndx_u8 *stage,
                                   NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                                   const ndx_gpu_guard *g) {
  ndx_i64 lid = NDX_LOCAL_ID, n = NDX_LOCAL_SIZE;
  for (ndx_i64 pass = NDX_GROUP_ID; pass * d->stage_segs < d->units; pass += NDX_GROUPS) {
    ndx_i64 step = pass / NDX_GROUPS;
    ndx_gpu_stage_load_wN(d, stage, src, bits, lid, n, pass, step, g);
    NDX_BARRIER();
    ndx_gpu_stage_store_wN(d, stage, dst, bits, lid, n, pass, step, g);
    NDX_BARRIER();
  }
}

/* Gather: unit u is C-order element u; NDX_GPU_BATCH loads before the
 * stores, as rows. */
NDX_FN void ndx_gpu_gather_wN(NDX_CONSTANT const ndx_launch *d, NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                              NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                              const ndx_gpu_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int eb = bits / 8;
  ndx_i64 size = NDX_GPU_LAUNCH_SIZE;
  for (ndx_i64 u0 = NDX_GPU_FIRST_UNIT; u0 < d->units; u0 += NDX_GPU_BATCH * size) {
    ndx_gpu_held q[NDX_GPU_BATCH]; /* ndx_gpu_batch.h */
    ndx_gpu_clear(q);
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_i64 u = u0 + i * size;
      ndx_gpu_held h = ndx_gpu_none();
      if (u < d->units) {
        ndx_i64 ps = (ndx_i64)ndx_position_wN(p, 1, (NDX_WORD)u);
        ndx_i64 pd = (ndx_i64)ndx_position_wN(p, 0, (NDX_WORD)u);
        if (ndx_gpu_in(g, 0, pd, 1, bits) && ndx_gpu_in(g, 1, ps, 1, bits)) {
          NDX_GPU_TRACE(NDX_TRACE_GATHER, u0 / size + i, src + ps * eb, eb);
          h.v = ndx_gpu_load(src, ps, eb);
          h.to = pd;
        }
      }
      ndx_gpu_push(q, h);
    }
    ndx_gpu_store_batch(q, dst, eb, eb, NDX_TRACE_GATHER, u0 / size);
  }
}

/* Slot e of phase 1's work on tile w (8 bits and up): `gn` elements of
 * tile row a = j - j0 from column b = k - k0, an element (gn = 1), or the
 * elements of one source word (gn > 1, ndx_launch.group, along a k of
 * stride 1, b less the row's realign in words); the source position of its
 * first element into *ps, and the byte of the tile that element goes to,
 * elements `tb` bytes wide there; -1 where it loads nothing. dk and dj:
 * the joined matrix's extents (ndx_gpu_matrix_wN); ssk: the source's
 * stride along k; rows: the source's rows (ndx_gpu_tile_join_wN). */
NDX_FN ndx_i64 ndx_gpu_tile_source_wN(NDX_CONSTANT const ndx_launch *d, const ndx_gpu_tile_wN *w,
                                      const ndx_gpu_join *rows, ndx_i64 e, ndx_i64 dk, ndx_i64 dj,
                                      ndx_i64 ssk, int gn, int tb, ndx_i64 *ps) {
  /* a slot of a tile: 32-bit division (a 64-bit one spills) */
  int a = (int)e / (int)d->slots_k, s = (int)e - a * (int)d->slots_k;
  if (w->j0 + a >= dj) return -1;
  ndx_i64 row = w->pos[1] + w->k0 * ssk + ndx_gpu_joined(rows, a);
  ndx_i64 b = (s - ndx_gpu_realign(row / gn, d->realign_k)) * gn;
  if (b < 0 || b >= d->tile_k || w->k0 + b >= dk) return -1;
  *ps = row + b * ssk;
  return a * d->pitch + b * tb;
}

/* Phase 1 by words (d->group > 1: 8- and 16-bit elements whose tile rows
 * start on a source word, ndx_launch.h): work-item `lid` of `n` takes
 * slots of a tile row, slots_k of them a row, slot c the group's elements
 * from k0 + c * group (c less the row's realign, in words), one load of
 * their 4-byte source word, NDX_GPU_BATCH slots before it puts any, each
 * element in order (ndx_launch_put, for a slot of one word). A word a lane
 * keeps four times (8-bit) or twice (16-bit) the bytes of an element a
 * lane in flight (ndx-bench --gpu-model, "transpose 8-bit 8192x8192"). */
NDX_FN void ndx_gpu_tile_words_wN(NDX_CONSTANT const ndx_launch *d, const ndx_gpu_tile_wN *w,
                                  NDX_LOCAL ndx_u8 *tile, NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src,
                                  int bits, ndx_i64 lid, ndx_i64 n, ndx_i64 step,
                                  const ndx_gpu_guard *g) {
  /* gn, d->group: a 4-byte word's elements, a constant where bits is one,
   * so that the loop over a slot's puts unrolls and the batch stays in
   * registers (ndx_gpu_batch.h) */
  int eb = bits / 8, gn = 4 / eb;
  ndx_i64 dk = ndx_gpu_matrix_wN(d, 0), dj = ndx_gpu_matrix_wN(d, 1);
  ndx_gpu_join rows = ndx_gpu_tile_join_wN(d, w, 1);
  ndx_i64 elems = d->slots_k * d->tile_j;
  for (ndx_i64 e0 = lid; e0 < elems; e0 += NDX_GPU_BATCH * n) {
    /* at: the slot's first byte of the tile; -1 where it loads nothing */
    ndx_u32 v[NDX_GPU_BATCH];
    int at[NDX_GPU_BATCH];
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_i64 e = e0 + i * n, it = step * 1024 + (e - lid) / n;
      ndx_i64 ps = 0, t = -1;
      at[i] = -1, v[i] = 0;
      if (e < elems) t = ndx_gpu_tile_source_wN(d, w, &rows, e, dk, dj, 1, gn, eb, &ps);
      if (t < 0 || !ndx_gpu_in(g, 1, ps, gn, bits)) continue;
      NDX_GPU_TRACE(NDX_TRACE_TILE, it, src + ps * eb, 4);
      v[i] = ndx_load32(src, ps / gn);
      at[i] = (int)t;
    }
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      if (at[i] < 0) continue;
      for (int x = 0; x < gn; x++) {
        int to = at[i] + x * eb;
        ndx_u128 u;
        u.x = (v[i] >> (8 * eb * x)) & ((1u << (8 * eb)) - 1u), u.y = 0;
        NDX_GPU_TRACE(NDX_TRACE_TILE | NDX_TRACE_LOCAL | NDX_TRACE_STORE,
                      (step * 1024 + (e0 - lid) / n + i) * 4 + x, tile + to, eb);
        ndx_gpu_tile_put(tile, to, eb, u);
      }
    }
  }
}

/* Phase 1 (8 bits and up): work-item `lid` of `n` loads elements along
 * k, the source's unit axis, into row j - j0 of the tile, NDX_GPU_BATCH of
 * them (2 of 8 or 16 bytes) before it stores any; a row takes slots_k
 * work-items; by words where d->group > 1 (ndx_gpu_tile_words_wN). `step`:
 * the tile's turn in the work-group's loop, for NDX_GPU_TRACE. Along k and
 * j, those of the joined matrix (ndx_launch.h): dk and dj are its
 * extents. */
NDX_FN void ndx_gpu_tile_load_wN(NDX_CONSTANT const ndx_launch *d, const ndx_gpu_tile_wN *w,
                                 NDX_LOCAL ndx_u8 *tile, NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src,
                                 int bits, ndx_i64 lid, ndx_i64 n, ndx_i64 step,
                                 const ndx_gpu_guard *g) {
  if (bits < 32 && d->group > 1) {
    ndx_gpu_tile_words_wN(d, w, tile, src, bits, lid, n, step, g);
    return;
  }
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int r = (int)p->rank, eb = bits / 8;
  ndx_i64 dk = ndx_gpu_matrix_wN(d, 0), dj = ndx_gpu_matrix_wN(d, 1);
  ndx_gpu_join rows = ndx_gpu_tile_join_wN(d, w, 1);
  ndx_i64 ssk = ndx_stride_wN(p, 1, r - 2), elems = d->slots_k * d->tile_j;
  /* 8- and 16-byte elements two at a time: four and their addresses spill
   * on sm_90 */
  int nb = eb >= 8 ? NDX_GPU_BATCH / 2 : NDX_GPU_BATCH;
  for (ndx_i64 e0 = lid; e0 < elems; e0 += nb * n) {
    ndx_u128 v[NDX_GPU_BATCH];
    int at[NDX_GPU_BATCH]; /* a byte of the tile, or -1 */
    for (int i = 0; i < nb; i++) {
      ndx_i64 e = e0 + i * n, it = step * 1024 + (e - lid) / n, ps = 0, t = -1;
      at[i] = -1;
      v[i].x = v[i].y = 0;
      if (e < elems) t = ndx_gpu_tile_source_wN(d, w, &rows, e, dk, dj, ssk, 1, eb, &ps);
      if (t < 0 || !ndx_gpu_in(g, 1, ps, 1, bits)) continue;
      NDX_GPU_TRACE(NDX_TRACE_TILE, it, src + ps * eb, eb);
      v[i] = ndx_gpu_load(src, ps, eb);
      at[i] = (int)t;
    }
    for (int i = 0; i < nb; i++) {
      if (at[i] < 0) continue;
      NDX_GPU_TRACE(NDX_TRACE_TILE | NDX_TRACE_LOCAL | NDX_TRACE_STORE,
                    step * 1024 + (e0 - lid) / n + i, tile + at[i], eb);
      ndx_gpu_tile_put(tile, at[i], eb, v[i]);
    }
  }
}

/* Phase 2 (8 bits and up): work-item `lid` of `n` stores elements along j,
 * the destination's unit axis, from column k - k0 of the tile; a row takes
 * slots_j work-items. */
NDX_FN void ndx_gpu_tile_store_wN(NDX_CONSTANT const ndx_launch *d, const ndx_gpu_tile_wN *w,
                                  NDX_LOCAL const ndx_u8 *tile, NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                  int bits, ndx_i64 lid, ndx_i64 n, ndx_i64 step,
                                  const ndx_gpu_guard *g) {
  int eb = bits / 8;
  ndx_i64 dk = ndx_gpu_matrix_wN(d, 0), dj = ndx_gpu_matrix_wN(d, 1);
  ndx_gpu_join rows = ndx_gpu_tile_join_wN(d, w, 0);
  ndx_i64 tj = d->tile_j, slots = d->slots_j, elems = d->tile_k * slots;
  for (ndx_i64 e = lid; e < elems; e += n) {
    ndx_i64 a = e / slots, b = e - a * slots, k = w->k0 + a;
    if (k >= dk) continue;
    ndx_i64 row = w->pos[0] + w->j0 + ndx_gpu_joined(&rows, a);
    b -= ndx_gpu_realign(row, d->realign_j);
    if (b < 0 || b >= tj || w->j0 + b >= dj) continue;
    ndx_i64 pd = row + b, at = b * d->pitch + a * eb;
    ndx_i64 it = step * 1024 + (e - lid) / n;
    if (!ndx_gpu_in(g, 0, pd, 1, bits)) continue;
    NDX_GPU_TRACE(NDX_TRACE_TILE | NDX_TRACE_LOCAL, it, tile + at, eb);
    NDX_GPU_TRACE(NDX_TRACE_TILE | NDX_TRACE_STORE, it, dst + pd * eb, eb);
    ndx_gpu_tile_get(dst, pd, tile, at, eb);
  }
}

/* Phase 1 below 8 bits: work-item `lid` of `n` makes source byte kb of
 * tile row j - j0 from the elements k0 + kb*per .. + per - 1 (per = 8 /
 * bits) of source row j, element x in bits x*bits and up: one byte of the
 * source, read as `per` elements so that any alignment and a unit stride
 * of -1 along k read alike; NDX_GPU_BATCH (4) bytes before it puts any,
 * held in one word (an array indexed by the loop would take the stack,
 * ndx_gpu_batch.h). */
NDX_FN void ndx_gpu_bits_load_wN(NDX_CONSTANT const ndx_launch *d, const ndx_gpu_tile_wN *w,
                                 NDX_LOCAL ndx_u8 *tile, NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src,
                                 int bits, ndx_i64 lid, ndx_i64 n, ndx_i64 step,
                                 const ndx_gpu_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int r = (int)p->rank, per = 8 / bits;
  ndx_i64 dk = ndx_extent_wN(p, r - 2), dj = ndx_extent_wN(p, r - 1);
  ndx_i64 ssk = ndx_stride_wN(p, 1, r - 2), ssj = ndx_stride_wN(p, 1, r - 1);
  ndx_i64 slots = NDX_GPU_TILE_SIDE(bits) * NDX_GPU_TILE;
  for (ndx_i64 e0 = lid; e0 < slots; e0 += NDX_GPU_BATCH * n) {
    ndx_u32 bytes = 0, held = 0; /* byte i: slot e0 + i*n's, loaded where bit i of held */
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_i64 e = e0 + i * n, a = e / NDX_GPU_TILE, kb = e - a * NDX_GPU_TILE;
      ndx_i64 k = w->k0 + kb * per, j = w->j0 + a;
      if (e >= slots || k >= dk || j >= dj) continue;
      ndx_i64 ps = w->pos[1] + k * ssk + j * ssj;
      int m = dk - k < per ? (int)(dk - k) : per;
      if (!ndx_gpu_in(g, 1, ps, 1, bits) || !ndx_gpu_in(g, 1, ps + (m - 1) * ssk, 1, bits))
        continue;
      ndx_u32 value = 0;
      for (int x = 0; x < m; x++) {
        NDX_GPU_TRACE(NDX_TRACE_TILE_BITS, (step * 1024 + (e - lid) / n) * 8 + x,
                      src + ndx_byte_of(ps + x * ssk, bits), 1);
        value |= ndx_load_bits(src, ps + x * ssk, bits) << (x * bits);
      }
      bytes |= value << (8 * i), held |= 1u << i;
    }
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_i64 e = e0 + i * n, a = e / NDX_GPU_TILE, at = ndx_gpu_bits_at(a, e - a * NDX_GPU_TILE);
      if (!((held >> i) & 1u)) continue;
      NDX_GPU_TRACE(NDX_TRACE_TILE_BITS | NDX_TRACE_LOCAL | NDX_TRACE_STORE,
                    step * 1024 + (e - lid) / n, tile + at, 1);
      tile[at] = (ndx_u8)(bytes >> (8 * i));
    }
  }
}

/* Phase 2 below 8 bits: work-item `lid` of `n` assembles destination byte
 * c of tile row k - k0 from column (k - k0) / per of tile rows c*per ..
 * c*per + per - 1, and writes it whole, keeping the bits past the row's
 * end. The plan's tiles own their destination bytes (every destination
 * row starts on a byte, ndx_copy_tiles_own_bytes, and a tile's rows are
 * whole bytes wide), so no two work-items write one byte. */
NDX_FN void ndx_gpu_bits_store_wN(NDX_CONSTANT const ndx_launch *d, const ndx_gpu_tile_wN *w,
                                  NDX_LOCAL const ndx_u8 *tile, NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                  int bits, ndx_i64 lid, ndx_i64 n, ndx_i64 step,
                                  const ndx_gpu_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int r = (int)p->rank, per = 8 / bits;
  ndx_i64 dk = ndx_extent_wN(p, r - 2), dj = ndx_extent_wN(p, r - 1);
  ndx_i64 sdk = ndx_stride_wN(p, 0, r - 2);
  for (ndx_i64 e = lid; e < NDX_GPU_TILE_SIDE(bits) * NDX_GPU_TILE; e += n) {
    ndx_i64 a = e / NDX_GPU_TILE, c = e - a * NDX_GPU_TILE;
    ndx_i64 k = w->k0 + a, j = w->j0 + c * per;
    if (k >= dk || j >= dj) continue;
    ndx_i64 pd = w->pos[0] + k * sdk + j, it = step * 1024 + (e - lid) / n;
    int m = dj - j < per ? (int)(dj - j) : per, sh = (int)(a % per) * bits;
    if (!ndx_gpu_in(g, 0, pd, m, bits)) continue;
    ndx_u32 value = 0, mask = 0;
    for (int x = 0; x < m; x++) {
      ndx_i64 at = ndx_gpu_bits_at(c * per + x, a / per);
      NDX_GPU_TRACE(NDX_TRACE_TILE_BITS | NDX_TRACE_LOCAL, it * 8 + x, tile + at, 1);
      value |= ((tile[at] >> sh) & ((1u << bits) - 1u)) << (x * bits);
      mask |= ndx_gpu_field(bits, x * bits);
    }
    ndx_i64 b = ndx_byte_of(pd, bits);
    if (mask != 0xffu) NDX_GPU_TRACE(NDX_TRACE_TILE_BITS_KEEP, it, dst + b, 1);
    NDX_GPU_TRACE(NDX_TRACE_TILE_BITS | NDX_TRACE_STORE, it, dst + b, 1);
    ndx_gpu_put_byte(dst, b, value, mask);
  }
}

/* Transpose: work-group g takes tiles g, g + groups, ... (the whole group
 * loops alike, so every work-item reaches each barrier) through `tile`, the
 * group's NDX_GPU_TILE_BYTES(bits) of work-group memory. */
NDX_FN void ndx_gpu_transpose_wN(NDX_CONSTANT const ndx_launch *d, NDX_LOCAL ndx_u8 *tile,
                                 NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                 NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                                 const ndx_gpu_guard *g) {
  ndx_i64 lid = NDX_LOCAL_ID, n = NDX_LOCAL_SIZE;
  for (ndx_i64 t = NDX_GROUP_ID; t < d->units; t += NDX_GROUPS) {
    ndx_gpu_tile_wN w = ndx_gpu_tile_at_wN(d, t, bits);
    ndx_i64 step = t / NDX_GROUPS;
    if (bits < 8)
      ndx_gpu_bits_load_wN(d, &w, tile, src, bits, lid, n, step, g);
    else
      ndx_gpu_tile_load_wN(d, &w, tile, src, bits, lid, n, step, g);
    NDX_BARRIER();
    if (bits < 8)
      ndx_gpu_bits_store_wN(d, &w, tile, dst, bits, lid, n, step, g);
    else
      ndx_gpu_tile_store_wN(d, &w, tile, dst, bits, lid, n, step, g);
    NDX_BARRIER();
  }
}

/* Bytes: unit u is destination byte first + u, which this work-item alone
 * writes: the elements whose bits it holds, found by ndx_count_below (the
 * pack's destination positions increase with the C-order index). */
NDX_FN void ndx_gpu_bytes_wN(NDX_CONSTANT const ndx_launch *d, NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                             NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                             const ndx_gpu_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int lg = ndx_sub_log2(bits);
  for (ndx_i64 u = NDX_GPU_FIRST_UNIT; u < d->units; u += NDX_GPU_LAUNCH_SIZE) {
    ndx_i64 b = d->first + u;
    ndx_i64 i1 = ndx_count_below_wN(p, (b + 1) << lg);
    ndx_u32 value = 0, mask = 0;
    int ok = 1;
    ndx_i64 it = u / NDX_GPU_LAUNCH_SIZE, i0 = ndx_count_below_wN(p, b << lg);
    for (ndx_i64 i = i0; i < i1; i++) {
      ndx_i64 pd = (ndx_i64)ndx_position_wN(p, 0, (NDX_WORD)i);
      ndx_i64 ps = (ndx_i64)ndx_position_wN(p, 1, (NDX_WORD)i);
      ok = ok && ndx_gpu_in(g, 0, pd, 1, bits) && ndx_gpu_in(g, 1, ps, 1, bits);
      if (!ok) break;
      int sh = ndx_shift_of(pd, bits);
      NDX_GPU_TRACE(NDX_TRACE_BYTES, it * 8 + (i - i0), src + ndx_byte_of(ps, bits), 1);
      value |= ndx_load_bits(src, ps, bits) << sh;
      mask |= ndx_gpu_field(bits, sh);
    }
    if (!ok || !mask) continue;
    if (mask != 0xffu) NDX_GPU_TRACE(NDX_TRACE_BYTES_KEEP, it, dst + b, 1);
    NDX_GPU_TRACE(NDX_TRACE_BYTES | NDX_TRACE_STORE, it, dst + b, 1);
    ndx_gpu_put_byte(dst, b, value, mask);
  }
}

#endif /* one index form */
