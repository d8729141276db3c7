/* bench_cl.cl: the kernels ndx-bench --cl measures ndx against; embedded into
 * ndx-bench by tools/embed.py (ndx_device.h inlined), built twice like ndx's
 * own program, with -DNDX_WIDE=0 and -DNDX_WIDE=1.
 *
 *   bench_copy_v4      the ceiling: one uint4 per work-item
 *   bench_copy_v4x16   the ceiling: 16 consecutive uint4 (256 bytes) per item
 *   bench_copy_v16     the ceiling: one uint16 (64 bytes) per work-item
 *   bench_trivial      the raw enqueue: writes one word
 *   bench_naive_B      the naive peer: one element per work-item, both
 *                      positions from ndx_position (C-order index ->
 *                      position by magic division), B = 8 .. 128
 *   bench_naive_sub_B  the same for B = 1, 2, 4: one destination byte per
 *                      work-item (a contiguous destination at position 0),
 *                      its elements' source positions from ndx_position
 *   bench_naive_index_32  the naive gather and scatter: one 32-bit element
 *                      per work-item, the moved side's position from
 *                      ndx_indexed_position (what a user's kernel does)
 *
 * The prototype kernels that tuned ndx's own are in tune_cl.cl (ndx-tune-cl).
 *
 * The naive kernels take the pack of ndx_pack (not ndx_pack_copy): its C
 * order is the layouts', so operand 0 (a contiguous destination) has position
 * i at index i. */
#include "ndx/ndx_device.h"

__kernel void bench_copy_v4(__global const uint4 *restrict src, __global uint4 *restrict dst) {
  size_t i = get_global_id(0);
  dst[i] = src[i];
}

__kernel void bench_copy_v4x16(__global const uint4 *restrict src, __global uint4 *restrict dst) {
  size_t i = get_global_id(0) * 16;
  for (int k = 0; k < 16; k++) dst[i + k] = src[i + k];
}

__kernel void bench_copy_v16(__global const uint16 *restrict src, __global uint16 *restrict dst) {
  size_t i = get_global_id(0);
  dst[i] = src[i];
}

__kernel void bench_trivial(__global uint *out) {
  if (get_global_id(0) == 0) out[0] = 1u;
}

#define BENCH_NAIVE(B)                                                                             \
  __kernel void bench_naive_##B(__constant const ndx_pack_head *p, __global uchar *restrict dst,   \
                                __global const uchar *restrict src) {                              \
    long i = (long)get_global_id(0);                                                               \
    if (i >= p->numel) return;                                                                     \
    NDX_WORD pd = NDX_W(ndx_position)(p, 0, (NDX_WORD)i);                                          \
    NDX_WORD ps = NDX_W(ndx_position)(p, 1, (NDX_WORD)i);                                          \
    ndx_copy_elem(dst, pd, src, ps, B);                                                            \
  }
BENCH_NAIVE(8)
BENCH_NAIVE(16)
BENCH_NAIVE(32)
BENCH_NAIVE(64)
BENCH_NAIVE(128)

#define BENCH_NAIVE_SUB(B)                                                                         \
  __kernel void bench_naive_sub_##B(__constant const ndx_pack_head *p,                             \
                                    __global uchar *restrict dst,                                  \
                                    __global const uchar *restrict src) {                          \
    long b = (long)get_global_id(0);                                                               \
    long i0 = b * (8 / B);                                                                         \
    if (i0 >= p->numel) return;                                                                    \
    uint acc = 0u, mask = 0u;                                                                      \
    for (int e = 0; e < 8 / B && i0 + e < p->numel; e++) {                                         \
      NDX_WORD ps = NDX_W(ndx_position)(p, 1, (NDX_WORD)(i0 + e));                                 \
      acc |= ndx_load_bits(src, ps, B) << (e * B);                                                 \
      mask |= ((1u << B) - 1u) << (e * B);                                                         \
    }                                                                                              \
    dst[b] = (uchar)(mask == 0xffu ? acc : ((dst[b] & ~mask) | acc));                              \
  }
BENCH_NAIVE_SUB(1)
BENCH_NAIVE_SUB(2)
BENCH_NAIVE_SUB(4)

/* Operands 0 dst, 1 src, 2 an int32 index, packed by ndx_pack over S; the
 * side `moved` (1 for a gather, 0 for a scatter) narrowed to extent 1 on
 * the indexed axis and broadcast to S, `d` and `stride` that axis's extent
 * and stride in its own layout. */
__kernel void bench_naive_index_32(__constant const ndx_pack_head *p, __global uchar *restrict dst,
                                   __global const uchar *restrict src,
                                   __global const uchar *restrict index, long d, long stride,
                                   int moved) {
  long i = (long)get_global_id(0);
  if (i >= p->numel) return;
  long v = ndx_load_index(index, NDX_W(ndx_position)(p, 2, (NDX_WORD)i), 32);
  long m = NDX_W(ndx_indexed_position)(p, moved, (NDX_WORD)i, v, d, stride, 0);
  if (m < 0) return;
  long o = NDX_W(ndx_position)(p, 1 - moved, (NDX_WORD)i);
  if (moved)
    ndx_copy_elem(dst, o, src, m, 32);
  else
    ndx_copy_elem(dst, m, src, o, 32);
}
