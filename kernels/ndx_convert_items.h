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
 *            work-items store adjacent elements of the destination);
 *   byte     one byte of a 4-bit destination, its one or two elements
 *            found by ndx_count_below, written whole by its one writer, the
 *            bits no element of the copy holds kept (both shapes).
 * The types are the caller's compile-time constants, so that the loads,
 * stores and the conversion fold to the one pair a program holds. Every
 * access is checked first in the bounds-check build (ndx_gpu_in), and
 * reported to the GPU memory model (NDX_GPU_TRACE, ndx_copy_gpu.h) at the
 * copy's sites of the same unit, gather's and bytes', its step the
 * element within the unit (the model gives the unit's turn). */
#include "ndx/ndx_device.h"
#include "ndx_convert.h"
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

/* Stores the `bits`-bit element at `pos` (8 to 64 bits). */
NDX_FN void ndx_convert_store(NDX_GLOBAL ndx_u8 *dst, ndx_pos pos, int bits, ndx_u64 v) {
  switch (bits) {
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

#endif /* NDX_CONVERT_ITEMS_H */

#ifndef NDX_CONVERT_ITEMS_H_WN
#define NDX_CONVERT_ITEMS_H_WN
#define ndx_convert_element_wN NDX_WN(ndx_convert_element_w32, ndx_convert_element_w64)
#define ndx_convert_byte_wN NDX_WN(ndx_convert_byte_w32, ndx_convert_byte_w64)
#endif

#if (NDX_WIDE && !defined(NDX_CONVERT_ITEMS_H_W64)) ||                                             \
    (!NDX_WIDE && !defined(NDX_CONVERT_ITEMS_H_W32))
#if NDX_WIDE
#define NDX_CONVERT_ITEMS_H_W64
#else
#define NDX_CONVERT_ITEMS_H_W32
#endif

/* Element: C-order element i (i < numel) of type st into type dt, 8-bit
 * destinations and up. */
NDX_FN void ndx_convert_element_wN(NDX_CONSTANT const ndx_pack_head *p, NDX_GLOBAL ndx_u8 *dst,
                                   NDX_GLOBAL const ndx_u8 *src, ndx_i64 i, int st, int dt,
                                   const ndx_gpu_guard *g) {
  int sb = ndx_cv_bits(st), db = ndx_cv_bits(dt);
  ndx_i64 pd = (ndx_i64)ndx_position_wN(p, 0, (NDX_WORD)i);
  ndx_i64 ps = (ndx_i64)ndx_position_wN(p, 1, (NDX_WORD)i);
  if (ndx_gpu_in(g, 0, pd, 1, db) && ndx_gpu_in(g, 1, ps, 1, sb)) {
    NDX_GPU_TRACE(NDX_TRACE_GATHER, 0, src + ndx_byte_of(ps, sb), sb < 8 ? 1 : sb / 8);
    NDX_GPU_TRACE(NDX_TRACE_GATHER | NDX_TRACE_STORE, 0, dst + pd * (db / 8), db / 8);
    ndx_convert_store(dst, pd, db, ndx_convert_bits(ndx_convert_load(src, ps, sb), st, dt));
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
