/* ndx_convert_items.h: the bodies of a copy that converts each element's
 * value between two number types (ndx_convert.h), in the dialect of
 * ndx_device.h; kernels/ndx_convert.cl wraps them into the kernels of both
 * shapes.
 *
 * A conversion moves elements of `sb` source bits into elements of `db`
 * destination bits (4 to 64), positions from the pack of ndx_pack_copy
 * (normalized for the destination: its positions increase with the C-order
 * index). Every element is loaded whole, converted in registers by
 * ndx_convert_bits and stored whole, so a work unit is (the cpu shape's
 * run and tile are in ndx_convert_cpu.h):
 *   element  one C-order element (the gpu shape's unit: adjacent
 *            work-items store adjacent elements of the destination), or
 *            where the planner groups them (ndx_launch.group), a row's
 *            elements of one source word, loaded as that word and stored
 *            as one access, so that a warp's loads are whole words; into a
 *            4-bit destination only so, each byte in one group;
 *   byte     one byte of a 4-bit destination, its one or two elements
 *            found by ndx_count_below, written whole by its one writer, the
 *            bits no element of the copy holds kept (the cpu shape's, and
 *            the gpu shape's where rows do not hold whole bytes).
 * The types are the caller's compile-time constants, so that the loads,
 * stores and the conversion fold to the one pair a program holds. Every
 * access is checked first in the bounds-check build (ndx_gpu_in), and
 * reported to the GPU memory model (NDX_GPU_TRACE, ndx_copy_gpu.h) at the
 * copy's sites of the same unit, gather's and bytes', its step the
 * element within the unit (the model gives the unit's turn). */
#include "ndx/ndx_device.h"
#include "ndx_convert.h"
#include "ndx_gpu_batch.h"
#include "ndx_gpu_byte.h"
#include "ndx_gpu_guard.h"
#include "ndx_gpu_trace.h"
#include "ndx_launch.h"

#ifndef NDX_CONVERT_ITEMS_H
#define NDX_CONVERT_ITEMS_H

/* The raw bits of the `bits`-bit element at `pos` (4 to 64 bits). */
NDX_FN ndx_u64 ndx_convert_load(NDX_GLOBAL const ndx_u8 *src, ndx_pos pos, int bits) {
  switch (bits) {
  case 4:
    return ndx_load_bits(src, pos, 4);
  case 8:
    return ndx_load8(src, pos);
  case 16:
    return ndx_load16(src, pos);
  case 32:
    return ndx_load32(src, pos);
  default:
    return ndx_load64(src, pos);
  }
}

/* Stores the `bits`-bit element at `pos` (4 to 64 bits; 4: the byte's
 * other nibble read and kept, which only its writer may hold). */
NDX_FN void ndx_convert_store(NDX_GLOBAL ndx_u8 *dst, ndx_pos pos, int bits, ndx_u64 v) {
  switch (bits) {
  case 4:
    ndx_store_bits(dst, pos, 4, (ndx_u32)v);
    break;
  case 8:
    ndx_store8(dst, pos, (ndx_u8)v);
    break;
  case 16:
    ndx_store16(dst, pos, (ndx_u16)v);
    break;
  case 32:
    ndx_store32(dst, pos, (ndx_u32)v);
    break;
  default:
    ndx_store64(dst, pos, v);
    break;
  }
}

/* Word `w` of `bytes` bytes (1 to 8) of a buffer, little-endian, in the
 * low bytes: a conversion unit's source word (ndx_launch.group). */
NDX_FN ndx_u64 ndx_convert_word(NDX_GLOBAL const ndx_u8 *src, ndx_pos w, int bytes) {
  switch (bytes) {
  case 1:
    return ndx_load8(src, w);
  case 2:
    return ndx_load16(src, w);
  case 4:
    return ndx_load32(src, w);
  default:
    return ndx_load64(src, w);
  }
}

/* Stores the low `bytes` bytes (1 to 16) of v as word `w` of that size: a
 * conversion unit's destination elements, one access. */
NDX_FN void ndx_convert_store_word(NDX_GLOBAL ndx_u8 *dst, ndx_pos w, int bytes, ndx_u128 v) {
  switch (bytes) {
  case 1:
    ndx_store8(dst, w, (ndx_u8)v.x);
    break;
  case 2:
    ndx_store16(dst, w, (ndx_u16)v.x);
    break;
  case 4:
    ndx_store32(dst, w, (ndx_u32)v.x);
    break;
  case 8:
    ndx_store64(dst, w, v.x);
    break;
  default:
    ndx_store128(dst, w, v);
    break;
  }
}

/* The source bits `v` of type st converted into type dt and stored at
 * destination position pd (8 bits and up). */
NDX_FN void ndx_convert_put(NDX_GLOBAL ndx_u8 *dst, ndx_pos pd, ndx_u64 v, int st, int dt,
                            const ndx_gpu_guard *g) {
  int db = ndx_cv_bits(dt);
  if (ndx_gpu_in(g, 0, pd, 1, db)) ndx_convert_store(dst, pd, db, ndx_convert_bits(v, st, dt));
}

/* The element of type st at source position ps converted into type dt at
 * destination position pd (8 bits and up). */
NDX_FN void ndx_convert_at(NDX_GLOBAL ndx_u8 *dst, ndx_pos pd, NDX_GLOBAL const ndx_u8 *src,
                           ndx_pos ps, int st, int dt, const ndx_gpu_guard *g) {
  int sb = ndx_cv_bits(st);
  if (ndx_gpu_in(g, 1, ps, 1, sb))
    ndx_convert_put(dst, pd, ndx_convert_load(src, ps, sb), st, dt, g);
}

/* A cut group's mark in ndx_gpu_held.to (ndx_convert_unit_load_wN). */
#define NDX_CONVERT_CUT (-2)

#endif /* NDX_CONVERT_ITEMS_H */

#ifndef NDX_CONVERT_ITEMS_H_WN
#define NDX_CONVERT_ITEMS_H_WN
#define ndx_convert_group_at_wN NDX_WN(ndx_convert_group_at_w32, ndx_convert_group_at_w64)
#define ndx_convert_unit_load_wN NDX_WN(ndx_convert_unit_load_w32, ndx_convert_unit_load_w64)
#define ndx_convert_unit_store_wN NDX_WN(ndx_convert_unit_store_w32, ndx_convert_unit_store_w64)
#define ndx_convert_units_wN NDX_WN(ndx_convert_units_w32, ndx_convert_units_w64)
#define ndx_convert_byte_wN NDX_WN(ndx_convert_byte_w32, ndx_convert_byte_w64)
#endif

#if (NDX_WIDE && !defined(NDX_CONVERT_ITEMS_H_W64)) ||                                             \
    (!NDX_WIDE && !defined(NDX_CONVERT_ITEMS_H_W32))
#if NDX_WIDE
#define NDX_CONVERT_ITEMS_H_W64
#else
#define NDX_CONVERT_ITEMS_H_W32
#endif

/* Group unit u (d->group > 1): its elements [x0, x0 + group) of row u /
 * row_units of the innermost axis, x0 = (u % row_units) * group - skew,
 * and element x0's destination and source positions in *pd and *ps (x0 may
 * lie before the row, and x0 + group past it). */
NDX_FN ndx_i64 ndx_convert_group_at_wN(NDX_CONSTANT const ndx_launch *d, ndx_i64 u, ndx_i64 *pd,
                                       ndx_i64 *ps) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int r = (int)p->rank;
  ndx_i64 n = ndx_extent_wN(p, r - 1), ss = ndx_stride_wN(p, 1, r - 1);
  ndx_i64 row = ndx_launch_row(d, u), x0 = (u - row * d->row_units) * d->group - d->skew;
  *pd = (ndx_i64)ndx_position_wN(p, 0, (NDX_WORD)(row * n)) + x0;
  *ps = (ndx_i64)ndx_position_wN(p, 1, (NDX_WORD)(row * n)) + x0 * ss;
  return x0;
}

/* Phase 1 of unit u of the elements family (ndx_launch.h), the `turn`-th
 * of its work-item: loads what it reads whole, C-order element u's bits of
 * type st where d->group is 1, else the group's source word of group *
 * source bits, at most 8 bytes (the planner proved it aligned, and the
 * group's destination elements' store), into v.x, and its first
 * destination position into `to`; a group a row's ends cut (x0 < 0, or
 * past the row) loads nothing and is marked NDX_CONVERT_CUT, for phase 2
 * to move element by element. */
NDX_FN ndx_gpu_held ndx_convert_unit_load_wN(NDX_CONSTANT const ndx_launch *d,
                                             NDX_GLOBAL const ndx_u8 *src, ndx_i64 u, int st,
                                             int dt, ndx_i64 turn, const ndx_gpu_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int sb = ndx_cv_bits(st), db = ndx_cv_bits(dt), gn = (int)d->group, r = (int)p->rank;
  ndx_gpu_held h = ndx_gpu_none();
  if (u >= d->units) return h;
  if (gn <= 1) {
    ndx_i64 pd = (ndx_i64)ndx_position_wN(p, 0, (NDX_WORD)u);
    ndx_i64 ps = (ndx_i64)ndx_position_wN(p, 1, (NDX_WORD)u);
    if (!ndx_gpu_in(g, 0, pd, 1, db) || !ndx_gpu_in(g, 1, ps, 1, sb)) return h;
    NDX_GPU_TRACE(NDX_TRACE_GATHER, turn * 1024, src + ndx_byte_of(ps, sb), sb < 8 ? 1 : sb / 8);
    h.v.x = ndx_convert_load(src, ps, sb);
    h.to = pd;
    return h;
  }
  ndx_i64 pd, ps, x0 = ndx_convert_group_at_wN(d, u, &pd, &ps);
  ndx_i64 n = ndx_extent_wN(p, r - 1), ss = ndx_stride_wN(p, 1, r - 1);
  ndx_i64 lo = ss > 0 ? ps : ps - (gn - 1); /* the word's first element */
  if (x0 < 0 || x0 + gn > n) {
    h.to = NDX_CONVERT_CUT;
  } else if (ndx_gpu_in(g, 1, lo, gn, sb) && ndx_gpu_in(g, 0, pd, gn, db)) {
    NDX_GPU_TRACE(NDX_TRACE_GATHER, turn * 1024, src + ndx_byte_of(lo, sb), gn * sb / 8);
    h.v.x = ndx_convert_word(src, lo / gn, gn * sb / 8);
    h.to = pd;
  }
  return h;
}

/* Phase 2 of unit u, held `h` from phase 1: converts into type dt and
 * stores, an element, or a word's elements as one access (element t in
 * bits t*db.., a source stride of -1 reading the word's elements from the
 * top), or a cut group's elements in the row one at a time. */
NDX_FN void ndx_convert_unit_store_wN(NDX_CONSTANT const ndx_launch *d, NDX_GLOBAL ndx_u8 *dst,
                                      NDX_GLOBAL const ndx_u8 *src, ndx_i64 u, ndx_gpu_held h,
                                      int st, int dt, ndx_i64 turn, const ndx_gpu_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int sb = ndx_cv_bits(st), db = ndx_cv_bits(dt), gn = (int)d->group, r = (int)p->rank;
  ndx_i64 ss = ndx_stride_wN(p, 1, r - 1);
  if (h.to >= 0 && gn <= 1) {
    NDX_GPU_TRACE(NDX_TRACE_GATHER | NDX_TRACE_STORE, turn * 1024, dst + h.to * (db / 8), db / 8);
    ndx_convert_store(dst, h.to, db, ndx_convert_bits(h.v.x, st, dt));
  } else if (h.to >= 0) {
    NDX_GPU_TRACE(NDX_TRACE_GATHER | NDX_TRACE_STORE, turn * 1024, dst + ndx_byte_of(h.to, db),
                  gn * db / 8);
    ndx_u128 w; /* ndx_convert_bits sets no bit above db */
    w.x = w.y = 0;
    for (int t = 0; t < gn; t++) {
      int at = ss > 0 ? t : gn - 1 - t, sh = t * db;
      ndx_u64 c = ndx_convert_bits((h.v.x >> (sb * at)) & (((ndx_u64)1 << sb) - 1), st, dt);
      if (sh < 64)
        w.x |= c << sh;
      else
        w.y |= c << (sh - 64);
    }
    ndx_convert_store_word(dst, h.to / gn, gn * db / 8, w);
  } else if (h.to == NDX_CONVERT_CUT) {
    ndx_i64 pd, ps, x0 = ndx_convert_group_at_wN(d, u, &pd, &ps), n = ndx_extent_wN(p, r - 1);
    for (int t = 0; t < gn; t++) {
      ndx_i64 x = x0 + t, pdx = pd + t, psx = ps + t * ss;
      if (x < 0 || x >= n || !ndx_gpu_in(g, 0, pdx, 1, db) || !ndx_gpu_in(g, 1, psx, 1, sb))
        continue;
      NDX_GPU_TRACE(NDX_TRACE_GATHER, turn * 1024 + 1 + t, src + ndx_byte_of(psx, sb),
                    sb < 8 ? 1 : sb / 8);
      NDX_GPU_TRACE(NDX_TRACE_GATHER | NDX_TRACE_STORE, turn * 1024 + 1 + t,
                    dst + ndx_byte_of(pdx, db), db < 8 ? 1 : db / 8);
      ndx_convert_store(dst, pdx, db, ndx_convert_bits(ndx_convert_load(src, psx, sb), st, dt));
    }
  }
}

/* The gpu shape's elements family, from type st into type dt: work-item
 * `first` of `size` takes units first, first + size, ... (ndx_launch.h),
 * NDX_GPU_BATCH of them loaded before it stores any, so that a warp has
 * that many loads in flight, as the copy's gather does
 * (ndx_gpu_gather_wN). */
NDX_FN void ndx_convert_units_wN(NDX_CONSTANT const ndx_launch *d, NDX_GLOBAL ndx_u8 *dst,
                                 NDX_GLOBAL const ndx_u8 *src, ndx_i64 first, ndx_i64 size, int st,
                                 int dt, const ndx_gpu_guard *g) {
  ndx_i64 turn = 0;
  for (ndx_i64 u0 = first; u0 < d->units; u0 += NDX_GPU_BATCH * size, turn += NDX_GPU_BATCH) {
    ndx_gpu_held q[NDX_GPU_BATCH]; /* ndx_gpu_batch.h */
    ndx_gpu_clear(q);
    for (int i = 0; i < NDX_GPU_BATCH; i++)
      ndx_gpu_push(q, ndx_convert_unit_load_wN(d, src, u0 + i * size, st, dt, turn + i, g));
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_gpu_held h = q[0];
      ndx_gpu_push(q, ndx_gpu_none());
      ndx_convert_unit_store_wN(d, dst, src, u0 + i * size, h, st, dt, turn + i, g);
    }
  }
}

/* Byte: destination byte b of a 4-bit destination type dt, from source
 * type st; its elements are the C-order indices whose positions lie in
 * [2b, 2b + 2), at most two. */
NDX_FN void ndx_convert_byte_wN(NDX_CONSTANT const ndx_pack_head *p, NDX_GLOBAL ndx_u8 *dst,
                                NDX_GLOBAL const ndx_u8 *src, ndx_i64 b, int st, int dt,
                                const ndx_gpu_guard *g) {
  int sb = ndx_cv_bits(st);
  ndx_i64 i0 = ndx_count_below_wN(p, 2 * b), i1 = ndx_count_below_wN(p, 2 * b + 2);
  ndx_u32 value = 0, mask = 0;
  for (ndx_i64 i = i0; i < i1; i++) {
    ndx_i64 pd = (ndx_i64)ndx_position_wN(p, 0, (NDX_WORD)i);
    ndx_i64 ps = (ndx_i64)ndx_position_wN(p, 1, (NDX_WORD)i);
    if (!ndx_gpu_in(g, 0, pd, 1, 4) || !ndx_gpu_in(g, 1, ps, 1, sb)) return;
    int sh = ndx_shift_of(pd, 4);
    NDX_GPU_TRACE(NDX_TRACE_BYTES, i - i0, src + ndx_byte_of(ps, sb), sb < 8 ? 1 : sb / 8);
    value |= (ndx_u32)ndx_convert_bits(ndx_convert_load(src, ps, sb), st, dt) << sh;
    mask |= ndx_gpu_field(4, sh);
  }
  if (!mask) return;
  if (mask != 0xffu) NDX_GPU_TRACE(NDX_TRACE_BYTES_KEEP, 0, dst + b, 1);
  NDX_GPU_TRACE(NDX_TRACE_BYTES | NDX_TRACE_STORE, 0, dst + b, 1);
  ndx_gpu_put_byte(dst, b, value, mask);
}

#endif /* one index form */
