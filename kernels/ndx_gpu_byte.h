/* ndx_gpu_byte.h: a destination byte of sub-byte elements written whole
 * by its one writer, the bits of the elements it holds set and the others
 * kept: the gpu shape's copy bodies (ndx_copy_gpu.h, ndx_index_gpu.h) and
 * both shapes' 4-bit conversions (ndx_convert_items.h). */
#ifndef NDX_GPU_BYTE_H
#define NDX_GPU_BYTE_H

#include "ndx/ndx_device.h"

/* A bit field of `bits` bits set in the low bits of a byte at `shift`. */
NDX_FN ndx_u32 ndx_gpu_field(int bits, int shift) {
  return ((1u << bits) - 1u) << shift;
}

/* Writes `value` into the bits `mask` of destination byte `b`, keeping the
 * others: the work-item is the one writer of that byte. */
NDX_FN void ndx_gpu_put_byte(NDX_GLOBAL ndx_u8 *dst, ndx_i64 b, ndx_u32 value, ndx_u32 mask) {
  dst[b] = (ndx_u8)(mask == 0xffu ? value : ((dst[b] & ~mask) | (value & mask)));
}

#endif /* NDX_GPU_BYTE_H */
