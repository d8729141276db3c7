/* ndx_index_launch.h: what the gather and scatter kernels of both shapes
 * share with the host: the gpu shape's launch descriptor, the status
 * words, and the two atomic steps of the check pass.
 *
 * The descriptor is what the host planner (ndx_index_launch_check and
 * ndx_index_launch_copy, src/host/index_plan.c) decided for one pass of the
 * gpu shape, written once at the start of the pass's constant buffer with
 * the pass's pack right after it (ndx_index_launch_pack); the gpu-shaped
 * bodies (kernels/ndx_index_gpu.h) read it and decide nothing. A launch is
 * `units` of work handed to the work-items in turn (unit u to work-item u
 * mod the launch's size), so that adjacent work-items take adjacent units:
 *   check   a unit is one index element (the check pack's C order)
 *   rows    (copy, `rows` 1) a unit is `vector` bytes of a row of the copy
 *           pack (its innermost axis, one index value a row); a row has
 *           `row_units` of them
 *   elems   (copy, `rows` 0) a unit is one element, in the copy pack's C
 *           order (a gather's destination order)
 *   along   (copy, `rows` 0, `along` not 0: a gather each of whose pack rows
 *           picks from one source row segment, `along` elements of unit
 *           stride that fit NDX_GPU_ALONG_BYTES) a unit is one element as
 *           in elems; a work-group takes `passes` in turn, each pass
 *           `along_rows` whole pack rows or (along_rows 1) `along_seg` of
 *           one pack row's units, loads the rows' source segments into
 *           work-group memory, and picks from there; a pack row has
 *           `row_units` units
 *   bytes   (below 8 bits) a unit is one destination byte, from `first`
 * and the pass's values: a value v read from the index (of `index_bits`
 * bits) gives k = ndx_index_value(v - bias, d, wrap); a valid k moves the
 * destination by k * step0 and the source by k * step1; claim slot + k *
 * claim_stride is k's entry of the claims table. Every field is 64 bits,
 * so that the struct reads alike in every dialect.
 *
 * The status words (ndx_u32[NDX_INDEX_STATUS_WORDS]): [0] 0, or 1 once a
 * fault is recorded; [1..2] the element's C-order index in S, [3..4] its
 * value (low, high 32 bits). A copy work-item reads word 0 first and copies
 * nothing when it is set. */
#ifndef NDX_INDEX_LAUNCH_H
#define NDX_INDEX_LAUNCH_H

#include "ndx/ndx_device.h"

#define NDX_INDEX_STATUS_WORDS 8

typedef struct ndx_index_launch {
  ndx_i64 units;     /* units of work in all */
  ndx_i64 row_units; /* rows: units a row has */
  ndx_u64 row_magic; /* the magic pair of row_units (ndx_pack_magic, 64 bits) */
  ndx_i64 row_shift;
  ndx_i64 vector; /* rows: bytes of one access, a power of two from 1 to 16 */
  ndx_i64 first;  /* bytes: the first destination byte */
  ndx_i64 rows;   /* copy: 1 for units of rows, 0 for elements */
  ndx_i64 index_bits, wrap;
  ndx_i64 d, bias, step0, step1, claim_stride;
  /* along: the segment's elements (the axis's d; 0: not along), the first
   * one's position relative to a pack row's source position (min(0, (d -
   * 1) * step1)), pack rows a pass, a pass's units of one pack row
   * (along_rows 1) and a pack row's passes, passes in all */
  ndx_i64 along, along_lo, along_rows, along_seg, along_segs, passes;
} ndx_index_launch;

/* The work-group memory of the along path (ndx_gpu_index_along_wN): the
 * most bytes of source row segments a pass stages. 16 KiB and the 1 KiB an
 * H100 keeps per block leave 13 blocks of an SM's 228 KiB, more than its
 * 2048 threads hold at 256 a block; OpenCL GPUs have at least 32 KiB. */
#define NDX_GPU_ALONG_BYTES 16384

/* The pack that follows the descriptor in its buffer. */
NDX_FN NDX_CONSTANT const ndx_pack_head *
ndx_index_launch_pack(NDX_CONSTANT const ndx_index_launch *d) {
  return (NDX_CONSTANT const ndx_pack_head *)(d + 1);
}

/* n / row_units by its magic pair, for 0 <= n < 2^63. */
NDX_FN ndx_i64 ndx_index_launch_row(NDX_CONSTANT const ndx_index_launch *d, ndx_i64 n) {
  ndx_u64 u = (ndx_u64)n;
  return (ndx_i64)((ndx_mulhi64(d->row_magic, u) + u) >> (int)d->row_shift);
}

/* Pass `pass` of the along path: pack rows [*r0, *r1) and units [*u0,
 * *u1), one pack row's segment when along_rows is 1. */
NDX_FN void ndx_index_along_pass(NDX_CONSTANT const ndx_index_launch *d, ndx_i64 pass, ndx_i64 *r0,
                                 ndx_i64 *r1, ndx_i64 *u0, ndx_i64 *u1) {
  ndx_i64 n = d->row_units, rows = d->units / n;
  if (d->along_rows > 1) {
    *r0 = pass * d->along_rows;
    *r1 = *r0 + d->along_rows < rows ? *r0 + d->along_rows : rows;
    *u0 = *r0 * n;
    *u1 = *r1 * n;
    return;
  }
  ndx_i64 r = pass / d->along_segs, s = pass - r * d->along_segs;
  *r0 = r;
  *r1 = r + 1;
  *u0 = r * n + s * d->along_seg;
  *u1 = *u0 + d->along_seg < (r + 1) * n ? *u0 + d->along_seg : (r + 1) * n;
}

/* The winners form's test (claims not NULL): true iff the claim slot of
 * value k, `slot` + k * claim_stride, holds axis coordinate j + 1, the
 * element's own claim; always true without claims. */
NDX_FN int ndx_index_wins(NDX_GLOBAL const ndx_u32 *NDX_RESTRICT claims, ndx_i64 claim_stride,
                          ndx_i64 slot, ndx_i64 j, ndx_i64 k) {
  return !claims || claims[slot + k * claim_stride] == (ndx_u32)(j + 1);
}

/* The two atomic steps: claiming the fault record (0 -> 1, true for the one
 * caller that did) and keeping a claim's maximum; CUDA's atomicCAS and
 * atomicMax, which HIP has with the same signatures, in either's device
 * pass (HIP-Clang's defines __HIP_DEVICE_COMPILE__, not __CUDA_ARCH__). The
 * host's emulation runs one work-item at a time. */
#if defined(NDX_OPENCL_C)
#define ndx_atomic_take(p) (atomic_cmpxchg((volatile NDX_GLOBAL ndx_u32 *)(p), 0u, 1u) == 0u)
#define ndx_atomic_max(p, v) atomic_max((volatile NDX_GLOBAL ndx_u32 *)(p), (v))
#elif defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define ndx_atomic_take(p) (atomicCAS((unsigned *)(p), 0u, 1u) == 0u)
#define ndx_atomic_max(p, v) atomicMax((unsigned *)(p), (unsigned)(v))
#else
NDX_FN int ndx_atomic_take(ndx_u32 *p) {
  if (*p) return 0;
  *p = 1;
  return 1;
}
NDX_FN void ndx_atomic_max(ndx_u32 *p, ndx_u32 v) {
  if (*p < v) *p = v;
}
#endif

/* Records a fault: the first caller writes the element and its value. */
NDX_FN void ndx_index_fault_record(NDX_GLOBAL ndx_u32 *status, ndx_i64 order, ndx_i64 v) {
  if (!ndx_atomic_take(status)) return;
  status[1] = (ndx_u32)(ndx_u64)order;
  status[2] = (ndx_u32)((ndx_u64)order >> 32);
  status[3] = (ndx_u32)(ndx_u64)v;
  status[4] = (ndx_u32)((ndx_u64)v >> 32);
}

#endif /* NDX_INDEX_LAUNCH_H */
