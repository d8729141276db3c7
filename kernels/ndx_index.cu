/* ndx_index.cu: ndx's CUDA gather and scatter kernels and their launchers.
 *
 * Thin wrappers over the bodies of ndx_index_cuda.cuh (themselves over
 * ndx_index_items.h, which the OpenCL kernels use too):
 *   k_index_check<W>          the check pass: tests every index value,
 *                             records the first fault, keeps the claims
 *   k_index_copy<W, B, ROWS>  the copy pass of B-bit elements, B = 1 .. 128
 *                             (destination bytes below 8 bits); returns at
 *                             once when the check recorded a fault
 *   k_index_along<B>          a gather's copy pass along the axis
 *                             (ndx_index_plan_along), B = 8 .. 128: the gpu
 *                             shape's body (ndx_gpu_index_along_wN, both
 *                             pack forms by the pack's), its descriptor and
 *                             pack by value (ndx_cuda_along_args)
 * per index form W (32- or 64-bit pack words), with their arguments, the pack
 * included, by value as a __grid_constant__ parameter, as kernels/ndx_copy.cu
 * does. One source for CUDA and HIP, as ndx_copy.cu: the runtime comes
 * through kernels/ndx_gpu.h, and hipcc builds it into libndx_hip (the
 * launchers then named ndx_hip_index_launch_*, ndx_hip_names.h). */
#include <cstddef>

#include "ndx_gpu.h"

#include "ndx_index_cuda.cuh"

using namespace ndx_cuda_index;

static_assert(sizeof(ndx_cuda_index_args) <= 4096, "kernel arguments fit CUDA's 4 KiB");

/* At least one block per SM: without the second bound ptxas for sm_80 keeps
 * the odometer's walk (ndx_index_items.h) in 32 registers and spills. (HIP
 * reads the second bound as at least one wavefront per execution unit,
 * which asks nothing.) */
#define NDX_CUDA_KERNEL static __global__ void __launch_bounds__(NDX_CUDA_THREADS, 1)

template <int W>
NDX_CUDA_KERNEL k_index_check(const __grid_constant__ ndx_cuda_index_args a,
                              const ndx_u8 *__restrict__ index, ndx_u32 *claims, ndx_u32 *status) {
  check_body<W>(a, index, claims, status, (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
                (int64_t)gridDim.x * blockDim.x);
}

template <int W, int B, int ROWS>
NDX_CUDA_KERNEL k_index_copy(const __grid_constant__ ndx_cuda_index_args a,
                             ndx_u8 *__restrict__ dst, const ndx_u8 *__restrict__ src,
                             const ndx_u8 *__restrict__ index, const ndx_u32 *__restrict__ claims,
                             const ndx_u32 *__restrict__ status) {
  copy_body<W, B, ROWS>(a, dst, src, index, claims, status,
                        (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
                        (int64_t)gridDim.x * blockDim.x);
}

static_assert(sizeof(ndx_cuda_along_args) <= 4096, "kernel arguments fit CUDA's 4 KiB");
static_assert(offsetof(ndx_cuda_along_args, pack) == sizeof(ndx_index_launch), "the pack follows");

template <int B>
NDX_CUDA_KERNEL k_index_along(const __grid_constant__ ndx_cuda_along_args a,
                              ndx_u8 *__restrict__ dst, const ndx_u8 *__restrict__ src,
                              const ndx_u8 *__restrict__ index,
                              const ndx_u32 *__restrict__ status) {
  __shared__ ndx_u128 stage[NDX_GPU_ALONG_BYTES / 16];
  if (status[0]) return; /* every thread alike: the check kernel has ended */
  ndx_gpu_index_guard g = {0};
  bool wide = ndx_index_launch_pack(&a.d)->wide != 0;
  if (a.d.index_bits == 32) {
    if (wide)
      ndx_gpu_index_along_w64(&a.d, (ndx_u8 *)stage, dst, src, index, B, 32, &g);
    else
      ndx_gpu_index_along_w32(&a.d, (ndx_u8 *)stage, dst, src, index, B, 32, &g);
  } else {
    if (wide)
      ndx_gpu_index_along_w64(&a.d, (ndx_u8 *)stage, dst, src, index, B, 64, &g);
    else
      ndx_gpu_index_along_w32(&a.d, (ndx_u8 *)stage, dst, src, index, B, 64, &g);
  }
}

/* Takes the address of the copy kernel pick_copy names. */
struct copy_kernel_of {
  const void *fn = nullptr;
  template <int W, int B, int ROWS> void copy() {
    fn = (const void *)k_index_copy<W, B, ROWS>;
  }
};

extern "C" int ndx_cuda_index_launch_check(const ndx_cuda_index_args *a, int64_t blocks,
                                           void *stream, const void *index, uint32_t *claims,
                                           uint32_t *status) {
  if (blocks <= 0) return (int)cudaSuccess;
  const void *fn = a->wide ? (const void *)k_index_check<1> : (const void *)k_index_check<0>;
  const ndx_u8 *i = (const ndx_u8 *)index;
  void *args[] = {(void *)a, (void *)&i, (void *)&claims, (void *)&status};
  return (int)cudaLaunchKernel(fn, dim3((unsigned)blocks), dim3(NDX_CUDA_THREADS), args, 0,
                               (cudaStream_t)stream);
}

extern "C" int ndx_cuda_index_launch_copy(const ndx_cuda_index_args *a, int64_t blocks,
                                          void *stream, void *dst, const void *src,
                                          const void *index, const uint32_t *claims,
                                          const uint32_t *status) {
  copy_kernel_of k;
  if (!pick_copy(k, *a)) return (int)cudaErrorInvalidDeviceFunction;
  if (blocks <= 0) return (int)cudaSuccess;
  ndx_u8 *d = (ndx_u8 *)dst;
  const ndx_u8 *s = (const ndx_u8 *)src, *i = (const ndx_u8 *)index;
  void *args[] = {(void *)a, (void *)&d, (void *)&s, (void *)&i, (void *)&claims, (void *)&status};
  return (int)cudaLaunchKernel(k.fn, dim3((unsigned)blocks), dim3(NDX_CUDA_THREADS), args, 0,
                               (cudaStream_t)stream);
}

extern "C" int ndx_cuda_index_launch_along(const ndx_cuda_along_args *a, int bits, int64_t blocks,
                                           void *stream, void *dst, const void *src,
                                           const void *index, const uint32_t *status) {
  const void *fn = bits == 8     ? (const void *)k_index_along<8>
                   : bits == 16  ? (const void *)k_index_along<16>
                   : bits == 32  ? (const void *)k_index_along<32>
                   : bits == 64  ? (const void *)k_index_along<64>
                   : bits == 128 ? (const void *)k_index_along<128>
                                 : nullptr;
  if (!fn) return (int)cudaErrorInvalidDeviceFunction;
  if (blocks <= 0) return (int)cudaSuccess;
  ndx_u8 *d = (ndx_u8 *)dst;
  const ndx_u8 *s = (const ndx_u8 *)src, *i = (const ndx_u8 *)index;
  void *args[] = {(void *)a, (void *)&d, (void *)&s, (void *)&i, (void *)&status};
  return (int)cudaLaunchKernel(fn, dim3((unsigned)blocks), dim3(NDX_CUDA_THREADS), args, 0,
                               (cudaStream_t)stream);
}
