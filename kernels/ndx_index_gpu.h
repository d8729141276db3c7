/* ndx_index_gpu.h: the GPU-shaped gather and scatter bodies, written once
 * in the portable dialect of ndx_device.h, as the copy bodies of
 * ndx_copy_gpu.h are: kernels/ndx_index.cl wraps them into the OpenCL
 * kernels of the gpu shape, and tests/test_gpu_index_emulate.c and
 * bench/gpu_model.c run them on the host. The passes and their operands
 * are src/host/index_plan.h's, the semantics those of the cpu shape
 * (ndx_index_items.h) exactly: the check pass tests every value and
 * records a fault in the status words, keeping each claim's maximum; the
 * copy pass copies the elements whose value is valid (and, in the winners
 * form, that hold their claim), nothing for the others.
 *
 * The shape of the work (ndx_index_launch.h): adjacent work-items take
 * adjacent units, so that the accesses of a warp fall on adjacent
 * addresses and coalesce:
 *   check  one index element per unit, in the index's order;
 *   rows   one vector of the descriptor's width per unit, the width the
 *          planner proved every row start aligned to, for any index value:
 *          a row segment is a work-group, or a part of one, its work-items
 *          reading the row's index value (one broadcast request) and then
 *          adjacent vectors of the row;
 *   elems  one element per unit, in the copy pack's order (a gather's
 *          destination order);
 *   bytes  one destination byte per unit (1, 2 and 4 bits), which the
 *          work-item alone writes: the elements whose bits it holds, found
 *          by ndx_count_below (the pack's destination positions increase
 *          with the C-order index), each with its own value.
 * A work-item walks its units in a loop of stride the launch's size, so any
 * launch size covers the work, and a rows or elems work-item reads the
 * values and loads of NDX_GPU_BATCH units before it stores any.
 *
 * Every body takes `bits` and `index_bits` as constants of its caller, so
 * their switches fold, and an ndx_gpu_index_guard: in the bounds_check
 * build of the OpenCL kernels it holds the three buffers' sizes (operand 0
 * dst, 1 src, 2 the index or the claims table the copy reads as one), and
 * an access outside them is skipped and reported; otherwise it is empty.
 *
 * NDX_GPU_TRACE (ndx_copy_gpu.h) sees every global load and store; the
 * check pass's atomic claims are neither (Nsight Compute counts them as
 * atomics) and are not traced. */
#include "ndx/ndx_device.h"
#include "ndx_copy_gpu.h"
#include "ndx_gpu_batch.h"
#include "ndx_gpu_byte.h"
#include "ndx_index_launch.h"

#ifndef NDX_INDEX_GPU_H
#define NDX_INDEX_GPU_H

/* Trace sites of the index bodies (NDX_TRACE_LOCAL and NDX_TRACE_STORE
 * bits as ndx_copy_gpu.h's). A case runs either the copy bodies or these,
 * so the two lists need not be disjoint. */
enum {
  NDX_TRACE_INDEX = 32, /* an index value (check and copy passes) */
  NDX_TRACE_CLAIM = 36, /* the winners form's claim */
  NDX_TRACE_IROWS = 40,
  NDX_TRACE_IELEMS = 44,
  NDX_TRACE_IBYTES = 48,
  NDX_TRACE_IBYTES_KEEP = 52, /* the destination byte's bits kept */
  NDX_TRACE_IALONG = 56,      /* along: a source row segment into work-group memory */
  NDX_TRACE_IPICK = 60        /* along: a pick from it, and its store */
};

/* The most operands a pass's pack has (the winners copy: dst, src, index,
 * claim slot, axis coordinate). */
#define NDX_GPU_INDEX_OPS 5

#if defined(NDX_BOUNDS_CHECK) && defined(NDX_OPENCL_C)
typedef struct ndx_gpu_index_guard {
  ndx_u64 size[3]; /* the destination's, the source's and the index's bytes */
  NDX_GLOBAL ndx_u32 *status;
  ndx_i64 item;
} ndx_gpu_index_guard;

/* 1 when elements [pos, pos + n) of operand k lie in its buffer; else 0,
 * and the first work-item to find one records it (ndx_check_elem of
 * kernels/ndx_copy.cl). */
NDX_FN int ndx_gpu_index_in(const ndx_gpu_index_guard *g, int k, ndx_i64 pos, ndx_i64 n, int bits) {
  return !ndx_check_elem(k, pos, bits, g->size[k], g->item, g->status) &&
         !ndx_check_elem(k, pos + n - 1, bits, g->size[k], g->item, g->status);
}
#else
typedef struct ndx_gpu_index_guard {
  int none;
} ndx_gpu_index_guard;

NDX_FN int ndx_gpu_index_in(const ndx_gpu_index_guard *g, int k, ndx_i64 pos, ndx_i64 n, int bits) {
  (void)g, (void)k, (void)pos, (void)n, (void)bits;
  return 1;
}
#endif

/* The coordinate k of the value at index position `pos`, or -1 (invalid). */
NDX_FN ndx_i64 ndx_gpu_index_k(NDX_CONSTANT const ndx_index_launch *d,
                               NDX_GLOBAL const ndx_u8 *NDX_RESTRICT index, ndx_i64 pos,
                               int index_bits) {
  return ndx_index_value(ndx_load_index(index, pos, index_bits) - d->bias, d->d, (int)d->wrap);
}

/* The coordinate k of the index value at operand 2 of a unit's positions
 * `pos` (NDX_GPU_INDEX_OPS), read in turn `step`; -1 where the value is
 * invalid, outside the index buffer (bounds-check build), or in the
 * winners form (claims not NULL) not the holder of its claim (operands 3
 * and 4). */
NDX_FN ndx_i64 ndx_gpu_index_value_at(NDX_CONSTANT const ndx_index_launch *d,
                                      NDX_GLOBAL const ndx_u8 *NDX_RESTRICT index,
                                      NDX_GLOBAL const ndx_u32 *NDX_RESTRICT claims,
                                      const ndx_i64 *pos, int index_bits, ndx_i64 step,
                                      const ndx_gpu_index_guard *g) {
  int ib = index_bits / 8;
  if (!ndx_gpu_index_in(g, 2, pos[2], 1, index_bits)) return -1;
  NDX_GPU_TRACE(NDX_TRACE_INDEX, step, index + pos[2] * ib, ib);
  ndx_i64 k = ndx_gpu_index_k(d, index, pos[2], index_bits);
  if (k < 0 || !claims) return k;
  NDX_GPU_TRACE(NDX_TRACE_CLAIM, step, claims + (pos[3] + k * d->claim_stride), 4);
  return ndx_index_wins(claims, d->claim_stride, pos[3], pos[4], k) ? k : -1;
}

/* Phase 2 of rows and elements: each unit of batch q that has a place
 * loads its `vb` bytes at the source element position v.x (of `eb`-byte
 * elements, a multiple of vb / eb) into v, unit i traced at `site` in turn
 * `turn` + i. Phase 3 stores them (ndx_gpu_store_batch). */
NDX_FN void ndx_gpu_index_load_batch(ndx_gpu_held *q, NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src,
                                     int eb, int vb, int site, ndx_i64 turn) {
  for (int i = 0; i < NDX_GPU_BATCH; i++) {
    ndx_gpu_held h = q[0];
    if (h.to >= 0) {
      ndx_i64 ps = (ndx_i64)h.v.x;
      NDX_GPU_TRACE(site, turn + i, src + ps * eb, vb);
      h.v = ndx_gpu_load(src, ps / (vb / eb), vb);
    }
    ndx_gpu_push(q, h);
  }
}

#endif /* NDX_INDEX_GPU_H */

/* ==== Bodies, once per index form ============================================ */

#ifndef NDX_INDEX_GPU_H_WN
#define NDX_INDEX_GPU_H_WN
#define ndx_gpu_index_at_wN NDX_WN(ndx_gpu_index_at_w32, ndx_gpu_index_at_w64)
#define ndx_gpu_index_check_wN NDX_WN(ndx_gpu_index_check_w32, ndx_gpu_index_check_w64)
#define ndx_gpu_index_rows_wN NDX_WN(ndx_gpu_index_rows_w32, ndx_gpu_index_rows_w64)
#define ndx_gpu_index_elems_wN NDX_WN(ndx_gpu_index_elems_w32, ndx_gpu_index_elems_w64)
#define ndx_gpu_index_bytes_wN NDX_WN(ndx_gpu_index_bytes_w32, ndx_gpu_index_bytes_w64)
#define ndx_gpu_index_along_load_wN                                                                \
  NDX_WN(ndx_gpu_index_along_load_w32, ndx_gpu_index_along_load_w64)
#define ndx_gpu_index_along_pick_wN                                                                \
  NDX_WN(ndx_gpu_index_along_pick_w32, ndx_gpu_index_along_pick_w64)
#define ndx_gpu_index_along_wN NDX_WN(ndx_gpu_index_along_w32, ndx_gpu_index_along_w64)
#endif

#if (NDX_WIDE && !defined(NDX_INDEX_GPU_H_W64)) || (!NDX_WIDE && !defined(NDX_INDEX_GPU_H_W32))
#if NDX_WIDE
#define NDX_INDEX_GPU_H_W64
#else
#define NDX_INDEX_GPU_H_W32
#endif

/* The positions in every operand of C-order index i over the first `lead`
 * axes (the others at 0), into pos[0 .. nops-1] (0 past them): lead - 1
 * magic divisions for all the operands together. Its loops over the
 * operands run to the constant NDX_GPU_INDEX_OPS, so that pos is indexed
 * by constants and stays in registers (ndx_gpu_batch.h says why). */
NDX_FN void ndx_gpu_index_at_wN(NDX_CONSTANT const ndx_pack_head *p, ndx_i64 i, int lead,
                                ndx_i64 *pos) {
  int n = (int)p->nops;
  NDX_WORD x = (NDX_WORD)i;
  for (int k = 0; k < NDX_GPU_INDEX_OPS; k++) pos[k] = k < n ? (ndx_i64)ndx_offset_wN(p, k) : 0;
  for (int a = lead - 1; a > 0; a--) {
    NDX_WORD q = ndx_div_wN(x, ndx_magic_wN(p, a), ndx_shift_wN(p, a));
    NDX_WORD c = x - q * ndx_extent_wN(p, a);
    for (int k = 0; k < NDX_GPU_INDEX_OPS; k++)
      if (k < n) pos[k] += (ndx_i64)c * ndx_stride_wN(p, k, a);
    x = q;
  }
  for (int k = 0; k < NDX_GPU_INDEX_OPS; k++)
    if (lead > 0 && k < n) pos[k] += (ndx_i64)x * ndx_stride_wN(p, k, 0);
}

/* Check pass: unit u is index element u of the check pack (operands index,
 * claim slot, axis coordinate, C-order index in S). An invalid value is
 * recorded (the first work-item to find one writes it) and ends the
 * work-item; a valid one, with claims, raises its slot's claim to the
 * coordinate + 1. `claims` is NULL without claims. */
NDX_FN void ndx_gpu_index_check_wN(NDX_CONSTANT const ndx_index_launch *d,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT index,
                                   NDX_GLOBAL ndx_u32 *claims, NDX_GLOBAL ndx_u32 *status,
                                   int index_bits, const ndx_gpu_index_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_index_launch_pack(d);
  ndx_i64 size = NDX_GPU_LAUNCH_SIZE;
  for (ndx_i64 u = NDX_GPU_FIRST_UNIT; u < d->units; u += size) {
    ndx_i64 pos[NDX_GPU_INDEX_OPS];
    ndx_gpu_index_at_wN(p, u, (int)p->rank, pos);
    if (!ndx_gpu_index_in(g, 2, pos[0], 1, index_bits)) continue;
    NDX_GPU_TRACE(NDX_TRACE_INDEX, u / size, index + pos[0] * (index_bits / 8), index_bits / 8);
    ndx_i64 v = ndx_load_index(index, pos[0], index_bits);
    ndx_i64 k = ndx_index_value(v, d->d, (int)d->wrap);
    if (k < 0) {
      ndx_index_fault_record(status, pos[3], v);
      return;
    }
    if (claims) ndx_atomic_max(claims + (pos[1] + k * d->claim_stride), (ndx_u32)(pos[2] + 1));
  }
}

/* Rows (copy pass, 8 bits and up, `rows` 1): unit u is bytes [v*vector,
 * (v+1)*vector) of row u / row_units, v its remainder; a row is the copy
 * pack's innermost axis, of unit stride on both sides and one index value.
 * Its value k moves the row's destination by k*step0 and its source by
 * k*step1; in the winners form (claims not NULL) the row is copied only
 * where it holds its claim. */
NDX_FN void ndx_gpu_index_rows_wN(NDX_CONSTANT const ndx_index_launch *d,
                                  NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                  NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src,
                                  NDX_GLOBAL const ndx_u8 *NDX_RESTRICT index,
                                  NDX_GLOBAL const ndx_u32 *NDX_RESTRICT claims, int bits,
                                  int index_bits, const ndx_gpu_index_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_index_launch_pack(d);
  int lead = (int)p->rank - 1, eb = bits / 8, vb = (int)d->vector;
  ndx_i64 per = vb / eb, size = NDX_GPU_LAUNCH_SIZE; /* elements of a unit */
  for (ndx_i64 u0 = NDX_GPU_FIRST_UNIT; u0 < d->units; u0 += NDX_GPU_BATCH * size) {
    /* v.x: the source position, until phase 2 loads the value (ndx_gpu_batch.h) */
    ndx_gpu_held q[NDX_GPU_BATCH];
    ndx_gpu_clear(q);
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_i64 u = u0 + i * size, step = u0 / size + i, pos[NDX_GPU_INDEX_OPS];
      ndx_gpu_push(q, ndx_gpu_none());
      if (u >= d->units) continue;
      ndx_i64 row = ndx_index_launch_row(d, u), e = (u - row * d->row_units) * per;
      ndx_gpu_index_at_wN(p, row, lead, pos);
      ndx_i64 k = ndx_gpu_index_value_at(d, index, claims, pos, index_bits, step, g);
      if (k < 0) continue;
      ndx_i64 pd = pos[0] + k * d->step0 + e, s = pos[1] + k * d->step1 + e;
      if (!ndx_gpu_index_in(g, 0, pd, per, bits) || !ndx_gpu_index_in(g, 1, s, per, bits)) continue;
      q[NDX_GPU_BATCH - 1].v.x = (ndx_u64)s, q[NDX_GPU_BATCH - 1].to = pd;
    }
    ndx_gpu_index_load_batch(q, src, eb, vb, NDX_TRACE_IROWS, u0 / size);
    ndx_gpu_store_batch(q, dst, eb, vb, NDX_TRACE_IROWS, u0 / size);
  }
}

/* Elements (copy pass, 8 bits and up, `rows` 0): unit u is C-order element
 * u of the copy pack, its value read at operand 2; otherwise as rows. */
NDX_FN void ndx_gpu_index_elems_wN(NDX_CONSTANT const ndx_index_launch *d,
                                   NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT index,
                                   NDX_GLOBAL const ndx_u32 *NDX_RESTRICT claims, int bits,
                                   int index_bits, const ndx_gpu_index_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_index_launch_pack(d);
  int eb = bits / 8;
  ndx_i64 size = NDX_GPU_LAUNCH_SIZE;
  for (ndx_i64 u0 = NDX_GPU_FIRST_UNIT; u0 < d->units; u0 += NDX_GPU_BATCH * size) {
    /* v.x: the source position, until phase 2 loads the value (ndx_gpu_batch.h) */
    ndx_gpu_held q[NDX_GPU_BATCH];
    ndx_gpu_clear(q);
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_i64 u = u0 + i * size, step = u0 / size + i, pos[NDX_GPU_INDEX_OPS];
      ndx_gpu_push(q, ndx_gpu_none());
      if (u >= d->units) continue;
      ndx_gpu_index_at_wN(p, u, (int)p->rank, pos);
      ndx_i64 k = ndx_gpu_index_value_at(d, index, claims, pos, index_bits, step, g);
      if (k < 0) continue;
      ndx_i64 pd = pos[0] + k * d->step0, s = pos[1] + k * d->step1;
      if (!ndx_gpu_index_in(g, 0, pd, 1, bits) || !ndx_gpu_index_in(g, 1, s, 1, bits)) continue;
      q[NDX_GPU_BATCH - 1].v.x = (ndx_u64)s, q[NDX_GPU_BATCH - 1].to = pd;
    }
    ndx_gpu_index_load_batch(q, src, eb, eb, NDX_TRACE_IELEMS, u0 / size);
    ndx_gpu_store_batch(q, dst, eb, eb, NDX_TRACE_IELEMS, u0 / size);
  }
}

/* Along (copy pass of a gather, 8 bits and up, `along` not 0;
 * ndx_index_launch.h), phase 1 of pass `pass` (the group's turn `step`, for
 * NDX_GPU_TRACE): work-item `lid` of `n` loads the source row segments of
 * the pass's pack rows into work-group memory, pack row r0 + t at t *
 * along elements, element by element in the segment's order, each segment
 * with its work-items from the 128-byte line that holds its first element
 * (the segment's coordinate k lies at k * step1 - along_lo), NDX_GPU_BATCH
 * loads before it stores any. */
NDX_FN void ndx_gpu_index_along_load_wN(NDX_CONSTANT const ndx_index_launch *d,
                                        NDX_LOCAL ndx_u8 *stage,
                                        NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                                        ndx_i64 lid, ndx_i64 n, ndx_i64 pass, ndx_i64 step,
                                        const ndx_gpu_index_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_index_launch_pack(d);
  int eb = bits / 8;
  ndx_i64 r0, r1, u0, u1, it = 0;
  ndx_index_along_pass(d, pass, &r0, &r1, &u0, &u1);
  for (ndx_i64 r = r0; r < r1; r++) {
    ndx_i64 pos[NDX_GPU_INDEX_OPS];
    ndx_gpu_index_at_wN(p, r, (int)p->rank - 1, pos);
    ndx_i64 s0 = pos[1] + d->along_lo, before = ((s0 * eb) & 127) / eb, at0 = (r - r0) * d->along;
    for (ndx_i64 e0 = lid - before; e0 < d->along; e0 += NDX_GPU_BATCH * n, it++) {
      ndx_gpu_held q[NDX_GPU_BATCH]; /* to: an element of the stage (ndx_gpu_batch.h) */
      ndx_gpu_clear(q);
      for (int i = 0; i < NDX_GPU_BATCH; i++) {
        ndx_i64 e = e0 + i * n;
        ndx_gpu_held h = ndx_gpu_none();
        if (e >= 0 && e < d->along && ndx_gpu_index_in(g, 1, s0 + e, 1, bits)) {
          NDX_GPU_TRACE(NDX_TRACE_IALONG, (step << 16) + it * NDX_GPU_BATCH + i,
                        src + (s0 + e) * eb, eb);
          h.v = ndx_gpu_load(src, s0 + e, eb);
          h.to = at0 + e;
        }
        ndx_gpu_push(q, h);
      }
      for (int i = 0; i < NDX_GPU_BATCH; i++) {
        ndx_gpu_held h = q[0];
        ndx_gpu_push(q, ndx_gpu_none());
        if (h.to < 0) continue;
        NDX_GPU_TRACE(NDX_TRACE_IALONG | NDX_TRACE_LOCAL | NDX_TRACE_STORE,
                      (step << 16) + it * NDX_GPU_BATCH + i, stage + h.to * eb, eb);
        ndx_gpu_tile_put(stage, h.to * eb, eb, h.v);
      }
    }
  }
}

/* Phase 2: work-item `lid` of `n` takes the pass's units u0 + lid, u0 +
 * lid + n, ... in the copy pack's order, reads NDX_GPU_BATCH values, then
 * copies each valid one's element from work-group memory to the
 * destination. A value is tested as in elems, so a coordinate k is in [0,
 * along) and its element lies in its pack row's segment of the stage
 * whatever the index holds. */
NDX_FN void ndx_gpu_index_along_pick_wN(NDX_CONSTANT const ndx_index_launch *d,
                                        NDX_LOCAL const ndx_u8 *stage,
                                        NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                        NDX_GLOBAL const ndx_u8 *NDX_RESTRICT index, int bits,
                                        int index_bits, ndx_i64 lid, ndx_i64 n, ndx_i64 pass,
                                        ndx_i64 step, const ndx_gpu_index_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_index_launch_pack(d);
  int eb = bits / 8;
  ndx_i64 r0, r1, u0, u1, it = 0;
  ndx_index_along_pass(d, pass, &r0, &r1, &u0, &u1);
  for (ndx_i64 c0 = u0 + lid; c0 < u1; c0 += NDX_GPU_BATCH * n, it++) {
    ndx_gpu_held q[NDX_GPU_BATCH]; /* v.x: the element of the stage (ndx_gpu_batch.h) */
    ndx_gpu_clear(q);
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_i64 u = c0 + i * n, pos[NDX_GPU_INDEX_OPS], t = (step << 16) + it * NDX_GPU_BATCH + i;
      ndx_gpu_push(q, ndx_gpu_none());
      if (u >= u1) continue;
      ndx_gpu_index_at_wN(p, u, (int)p->rank, pos);
      ndx_i64 k = ndx_gpu_index_value_at(d, index, 0, pos, index_bits, t, g);
      if (k < 0) continue;
      ndx_i64 pd = pos[0] + k * d->step0;
      if (!ndx_gpu_index_in(g, 0, pd, 1, bits)) continue;
      q[NDX_GPU_BATCH - 1].to = pd;
      q[NDX_GPU_BATCH - 1].v.x =
          (ndx_u64)((ndx_index_launch_row(d, u) - r0) * d->along + k * d->step1 - d->along_lo);
    }
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_gpu_held h = q[0];
      ndx_gpu_push(q, ndx_gpu_none());
      if (h.to < 0) continue;
      ndx_i64 t = (step << 16) + it * NDX_GPU_BATCH + i, at = (ndx_i64)h.v.x;
      NDX_GPU_TRACE(NDX_TRACE_IPICK | NDX_TRACE_LOCAL | NDX_TRACE_BY_VALUE, t, stage + at * eb, eb);
      NDX_GPU_TRACE(NDX_TRACE_IPICK | NDX_TRACE_STORE, t, dst + h.to * eb, eb);
      ndx_gpu_tile_get(dst, h.to, stage, at * eb, eb);
    }
  }
}

/* Along: work-group g takes passes g, g + groups, ... (the whole group
 * loops alike, so every work-item reaches each barrier) through `stage`,
 * the group's NDX_GPU_ALONG_BYTES of work-group memory. */
NDX_FN void ndx_gpu_index_along_wN(NDX_CONSTANT const ndx_index_launch *d, NDX_LOCAL ndx_u8 *stage,
                                   NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT index, int bits,
                                   int index_bits, const ndx_gpu_index_guard *g) {
  ndx_i64 lid = NDX_LOCAL_ID, n = NDX_LOCAL_SIZE;
  for (ndx_i64 pass = NDX_GROUP_ID; pass < d->passes; pass += NDX_GROUPS) {
    ndx_i64 step = pass / NDX_GROUPS;
    ndx_gpu_index_along_load_wN(d, stage, src, bits, lid, n, pass, step, g);
    NDX_BARRIER();
    ndx_gpu_index_along_pick_wN(d, stage, dst, index, bits, index_bits, lid, n, pass, step, g);
    NDX_BARRIER();
  }
}

/* Bytes (copy pass below 8 bits, a pack whose destination is distinct and
 * does not move with the value: step0 is 0): unit u is destination byte
 * first + u, assembled from the elements whose bits it holds, each with a
 * valid value; the bits of the others, and of no element, keep theirs. A
 * byte one of whose accesses is outside its buffer is not written. */
NDX_FN void ndx_gpu_index_bytes_wN(NDX_CONSTANT const ndx_index_launch *d,
                                   NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT index, int bits,
                                   int index_bits, const ndx_gpu_index_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_index_launch_pack(d);
  int lg = ndx_sub_log2(bits), ib = index_bits / 8;
  for (ndx_i64 u = NDX_GPU_FIRST_UNIT; u < d->units; u += NDX_GPU_LAUNCH_SIZE) {
    ndx_i64 b = d->first + u, it = u / NDX_GPU_LAUNCH_SIZE;
    ndx_i64 i0 = ndx_count_below_wN(p, b << lg), i1 = ndx_count_below_wN(p, (b + 1) << lg);
    ndx_u32 value = 0, mask = 0;
    int ok = 1;
    for (ndx_i64 i = i0; i < i1 && ok; i++) {
      ndx_i64 pos[NDX_GPU_INDEX_OPS];
      ndx_gpu_index_at_wN(p, i, (int)p->rank, pos);
      ok = ndx_gpu_index_in(g, 0, pos[0], 1, bits) && ndx_gpu_index_in(g, 2, pos[2], 1, index_bits);
      if (!ok) break;
      NDX_GPU_TRACE(NDX_TRACE_INDEX, it * 8 + (i - i0), index + pos[2] * ib, ib);
      ndx_i64 k = ndx_gpu_index_k(d, index, pos[2], index_bits);
      if (k < 0) continue;
      ndx_i64 s = pos[1] + k * d->step1;
      ok = ndx_gpu_index_in(g, 1, s, 1, bits);
      if (!ok) break;
      int sh = ndx_shift_of(pos[0], bits);
      NDX_GPU_TRACE(NDX_TRACE_IBYTES, it * 8 + (i - i0), src + ndx_byte_of(s, bits), 1);
      value |= ndx_load_bits(src, s, bits) << sh;
      mask |= ndx_gpu_field(bits, sh);
    }
    if (!ok || !mask) continue;
    if (mask != 0xffu) NDX_GPU_TRACE(NDX_TRACE_IBYTES_KEEP, it, dst + b, 1);
    NDX_GPU_TRACE(NDX_TRACE_IBYTES | NDX_TRACE_STORE, it, dst + b, 1);
    ndx_gpu_put_byte(dst, b, value, mask);
  }
}

#endif /* one index form */
