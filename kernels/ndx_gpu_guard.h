/* ndx_gpu_guard.h: the bounds-check guard of the bodies that check each
 * access on its own: the gpu shape's copy bodies (ndx_copy_gpu.h) and both
 * shapes' conversion bodies (ndx_convert_items.h, ndx_convert_cpu.h).
 *
 * In the bounds_check build of the OpenCL kernels an ndx_gpu_guard holds
 * the buffers' sizes, and an access outside them is skipped and reported
 * (ndx_gpu_in, by ndx_check_elem of kernels/ndx_copy.cl, which comes
 * first in the embedded source); otherwise it is empty and ndx_gpu_in is
 * 1. */
#ifndef NDX_GPU_GUARD_H
#define NDX_GPU_GUARD_H

#include "ndx/ndx_device.h"

#if defined(NDX_BOUNDS_CHECK) && defined(NDX_OPENCL_C)
typedef struct ndx_gpu_guard {
  ndx_u64 size[2]; /* the destination's and the source's bytes */
  NDX_GLOBAL ndx_u32 *status;
  ndx_i64 item;
} ndx_gpu_guard;

/* 1 when elements [pos, pos + n) of operand k lie in its buffer; else 0,
 * and the first work-item to find one records it (ndx_check_elem of
 * kernels/ndx_copy.cl). */
NDX_FN int ndx_gpu_in(const ndx_gpu_guard *g, int k, ndx_i64 pos, ndx_i64 n, int bits) {
  return !ndx_check_elem(k, pos, bits, g->size[k], g->item, g->status) &&
         !ndx_check_elem(k, pos + n - 1, bits, g->size[k], g->item, g->status);
}
#else
typedef struct ndx_gpu_guard {
  int none;
} ndx_gpu_guard;

NDX_FN int ndx_gpu_in(const ndx_gpu_guard *g, int k, ndx_i64 pos, ndx_i64 n, int bits) {
  (void)g, (void)k, (void)pos, (void)n, (void)bits;
  return 1;
}
#endif

#endif /* NDX_GPU_GUARD_H */
