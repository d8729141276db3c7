/* ndx_copy.cl: ndx's copy kernels, thin wrappers over ndx_device.h.
 *
 * Built twice from this one source, with -DNDX_WIDE=0 (int32 packs) and
 * -DNDX_WIDE=1 (int64 packs); the kernel names are the same in both programs.
 * Every kernel takes the pack of ndx_pack_copy (as a __constant buffer, since
 * two rank-32 layouts pass the 1024-byte parameter guarantee), the two
 * buffers' first bytes and, for the chunked ones, the work per work-item.
 * One work-item = one call into the header; work-items past the end return.
 *
 *   ndx_rows_B       C-order elements [i*chunk, (i+1)*chunk), innermost
 *                    strides 1 on both sides (B = 8 .. 128)
 *   ndx_gather_B     the same with any strides
 *   ndx_transpose_B  one tile of ndx_tile_shape (B = 1 .. 128; for B < 8
 *                    only where ndx_tile_bits_ok)
 *   ndx_bytes_B      destination bytes [first + i*chunk, ...) for B = 1, 2, 4
 *   ndx_positions    operand 0 and 1 positions of every index (for tests) */
#include "ndx/ndx_device.h"

#define NDX_PACK_ARG __constant const ndx_pack_head *p
#define NDX_BUFFER_ARGS __global uchar *restrict dst, __global const uchar *restrict src

#define NDX_WHOLE_BYTE_KERNELS(B)                                                                  \
  __kernel void ndx_rows_##B(NDX_PACK_ARG, NDX_BUFFER_ARGS, long chunk) {                          \
    NDX_W(ndx_copy_range_item)(p, dst, src, B, (long)get_global_id(0), chunk, 1);                  \
  }                                                                                                \
  __kernel void ndx_gather_##B(NDX_PACK_ARG, NDX_BUFFER_ARGS, long chunk) {                        \
    NDX_W(ndx_copy_range_item)(p, dst, src, B, (long)get_global_id(0), chunk, 0);                  \
  }                                                                                                \
  __kernel void ndx_transpose_##B(NDX_PACK_ARG, NDX_BUFFER_ARGS, long chunk) {                     \
    (void)chunk;                                                                                   \
    NDX_W(ndx_copy_tile_item)(p, dst, src, B, (long)get_global_id(0));                             \
  }

#define NDX_SUB_BYTE_KERNELS(B)                                                                    \
  __kernel void ndx_bytes_##B(NDX_PACK_ARG, NDX_BUFFER_ARGS, long chunk) {                         \
    NDX_W(ndx_copy_bytes_item)(p, dst, src, B, (long)get_global_id(0), chunk);                     \
  }                                                                                                \
  __kernel void ndx_transpose_##B(NDX_PACK_ARG, NDX_BUFFER_ARGS, long chunk) {                     \
    (void)chunk;                                                                                   \
    NDX_W(ndx_copy_tile_item)(p, dst, src, B, (long)get_global_id(0));                             \
  }

NDX_WHOLE_BYTE_KERNELS(8)
NDX_WHOLE_BYTE_KERNELS(16)
NDX_WHOLE_BYTE_KERNELS(32)
NDX_WHOLE_BYTE_KERNELS(64)
NDX_WHOLE_BYTE_KERNELS(128)
NDX_SUB_BYTE_KERNELS(1)
NDX_SUB_BYTE_KERNELS(2)
NDX_SUB_BYTE_KERNELS(4)

__kernel void ndx_positions(NDX_PACK_ARG, __global long *out) {
  long i = (long)get_global_id(0);
  if (i >= p->numel) return;
  out[2 * i] = NDX_W(ndx_position)(p, 0, (NDX_WORD)i);
  out[2 * i + 1] = p->nops > 1 ? NDX_W(ndx_position)(p, 1, (NDX_WORD)i) : 0;
}
