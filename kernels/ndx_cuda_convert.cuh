/* ndx_cuda_convert.cuh: the bodies of ndx's CUDA and HIP conversion
 * kernels, __host__ __device__ functions of the kernels' arguments and of a
 * thread's place in the launch, so that kernels/ndx_convert.cu wraps them
 * into kernels and tests/test_convert_emulate.cu runs them thread by
 * thread on the host. Each thread takes every launch-size-th unit of the
 * descriptor (ndx_cuda_convert_args.h) from its global index, a unit being
 * one of ndx_convert_items.h's: an element or a group of a row's elements
 * (ndx_convert_elements), or a
 * byte of a 4-bit destination (ndx_convert_bytes). */
#ifndef NDX_CUDA_CONVERT_CUH
#define NDX_CUDA_CONVERT_CUH

#undef NDX_WIDE
#define NDX_WIDE 0
#include "ndx_convert_items.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_convert_items.h"
#undef NDX_WIDE

#include "ndx_cuda_convert_args.h"

namespace ndx_convert_cuda {

/* Thread `tid` of `nthreads`: units tid, tid + nthreads, ... (C-order
 * elements, or groups of a row's) of type st into type dt
 * (destinations of 8 bits and up), a batch loaded before any is stored
 * (ndx_convert_units_wN). */
__host__ __device__ inline void elements_body(const ndx_cuda_convert_args &a,
                                              ndx_u8 *__restrict__ dst,
                                              const ndx_u8 *__restrict__ src, int st, int dt,
                                              int64_t tid, int64_t nthreads) {
  ndx_gpu_guard g = {0};
  const ndx_pack_head *p = ndx_launch_pack(&a.d);
  if (p->wide)
    ndx_convert_units_w64(&a.d, dst, src, tid, nthreads, st, dt, &g);
  else
    ndx_convert_units_w32(&a.d, dst, src, tid, nthreads, st, dt, &g);
}

/* Thread `tid` of `nthreads`: destination bytes first + tid, first + tid +
 * nthreads, ... of a 4-bit type dt, from type st, each written whole. */
__host__ __device__ inline void bytes_body(const ndx_cuda_convert_args &a, ndx_u8 *__restrict__ dst,
                                           const ndx_u8 *__restrict__ src, int st, int dt,
                                           int64_t tid, int64_t nthreads) {
  ndx_gpu_guard g = {0};
  const ndx_pack_head *p = ndx_launch_pack(&a.d);
  for (int64_t u = tid; u < a.d.units; u += nthreads) {
    if (p->wide)
      ndx_convert_byte_w64(p, dst, src, a.d.first + u, st, dt, &g);
    else
      ndx_convert_byte_w32(p, dst, src, a.d.first + u, st, dt, &g);
  }
}

} // namespace ndx_convert_cuda

#endif /* NDX_CUDA_CONVERT_CUH */
