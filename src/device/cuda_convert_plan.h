/* cuda_convert_plan.h: the launch of a CUDA or HIP conversion
 * (ndx_cuda_convert), for the runtime (kernels/ndx_convert.cu) and the
 * host emulator of its kernels (tests/test_convert_emulate.cu); users
 * never see it. Plain C with no CUDA call, on the shared planner
 * (host/copy_plan.h at the destination's width, then ndx_convert_choose
 * and ndx_launch_convert of host/launch.h with the kernels' block size), so that the emulator runs
 * exactly what a GPU would get on machines without one. */
#ifndef NDX_CUDA_CONVERT_PLAN_H
#define NDX_CUDA_CONVERT_PLAN_H

#include <stdint.h>

#include "ndx/ndx_layout.h"
#include "ndx_cuda_convert_args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A conversion's launch: its kernel (an ndx_convert_family: the copy's
 * transpose for transposes, elements for the other destinations of 8 bits
 * and up and grouped 4-bit ones, bytes for the rest below) and arguments, and the blocks
 * of NDX_CUDA_CONVERT_THREADS to launch (0: nothing to convert). */
typedef struct ndx_cuda_convert_launch {
  int family;
  int64_t blocks;
  ndx_cuda_convert_args args;
} ndx_cuda_convert_launch;

/* Fills *c for a conversion into dst_l of `dst_bits`-bit elements from
 * src_l of `src_bits`-bit ones, with the copy planner's `copy_flags`
 * (NDX_COPY_WIDE: the 64-bit index form even where 32 bits do), for
 * buffers that both start on `align` bytes (a power of two; the widest
 * access grouped elements may take, ndx_convert_choose);
 * no CUDA call. Errors name `fn`. */
ndx_status ndx_cuda_convert_fill(ndx_cuda_convert_launch *c, const char *fn,
                                 const ndx_layout *dst_l, int dst_bits, const ndx_layout *src_l,
                                 int src_bits, unsigned copy_flags, int64_t align);

#ifdef __cplusplus
}
#endif

#endif /* NDX_CUDA_CONVERT_PLAN_H */
