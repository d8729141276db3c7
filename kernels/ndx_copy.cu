/* ndx_copy.cu: ndx's CUDA copy kernels and their launcher.
 *
 * Each kernel is a thin wrapper over a body of ndx_copy_cuda.cuh (itself
 * over ndx_device.h and ndx_copy_items.h, the headers the OpenCL kernels
 * use): grid-stride loops over items, rows or tiles, a __syncthreads between
 * the phases of the tiled ones.
 * Kernels are instantiated per index form (W: 32- or 64-bit words, as the
 * pack says), element size and vector width, and take their arguments, the
 * pack included, by value as a __grid_constant__ parameter (read in place,
 * never copied to local memory). */
#include "ndx_gpu.h"

#include "ndx_copy_cuda.cuh"

using namespace ndx_cuda;

static_assert(sizeof(ndx_cuda_args) <= 4096, "kernel arguments fit CUDA's 4 KiB");

#define NDX_CUDA_KERNEL static __global__ void __launch_bounds__(NDX_CUDA_THREADS)

/* rows (MODE NDX_CUDA_ROWS) and gather (NDX_CUDA_GATHER, NDX_CUDA_GATHER_FLIP):
 * one body, flat items. */
template <int W, int ES, int VB, int MODE>
NDX_CUDA_KERNEL k_rows(const __grid_constant__ ndx_cuda_args a, ndx_u8 *__restrict__ dst,
                       const ndx_u8 *__restrict__ src) {
  flat_body<W, ES, VB, MODE>(a, dst, src, (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
                             (int64_t)gridDim.x * blockDim.x);
}
template <int W, int ES, int VB, int MODE>
NDX_CUDA_KERNEL k_gather(const __grid_constant__ ndx_cuda_args a, ndx_u8 *__restrict__ dst,
                         const ndx_u8 *__restrict__ src) {
  flat_body<W, ES, VB, MODE>(a, dst, src, (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
                             (int64_t)gridDim.x * blockDim.x);
}

/* SIMPLE: power-of-two tiles, no grouped axes (the plain 2-d transpose). */
template <int W, int ES, bool SIMPLE>
NDX_CUDA_KERNEL k_transpose(const __grid_constant__ ndx_cuda_args a, ndx_u8 *__restrict__ dst,
                            const ndx_u8 *__restrict__ src) {
  __shared__ tile_smem<ES> s;
  for (int64_t t = blockIdx.x; t < a.count; t += gridDim.x) {
    tile_bases<W, ES, SIMPLE>(a, s, t, (int)threadIdx.x);
    __syncthreads();
    tile_load<W, ES, SIMPLE>(a, s, src, (int)threadIdx.x);
    __syncthreads();
    tile_store<W, ES, SIMPLE>(a, s, dst, (int)threadIdx.x);
    __syncthreads();
  }
}

template <int W, int B>
NDX_CUDA_KERNEL k_transpose_words(const __grid_constant__ ndx_cuda_args a, ndx_u8 *__restrict__ dst,
                                  const ndx_u8 *__restrict__ src) {
  __shared__ words_smem<B> s;
  for (int64_t t = blockIdx.x; t < a.count; t += gridDim.x) {
    words_load<W, B>(a, s, src, t, (int)threadIdx.x);
    __syncthreads();
    words_store<W, B>(a, s, dst, t, (int)threadIdx.x);
    __syncthreads();
  }
}

template <int W, int B>
NDX_CUDA_KERNEL k_bytes(const __grid_constant__ ndx_cuda_args a, ndx_u8 *__restrict__ dst,
                        const ndx_u8 *__restrict__ src) {
  bytes_body<W, B>(a, dst, src, (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
                   (int64_t)gridDim.x * blockDim.x);
}

/* transpose-32x8: the block's tiles by its coordinates, each placed by
 * every thread; one barrier per tile, the shared buffers taken in turn. */
template <int W, int ES>
NDX_CUDA_KERNEL k_transpose_32x8(const __grid_constant__ ndx_cuda_args a, ndx_u8 *__restrict__ dst,
                                 const ndx_u8 *__restrict__ src) {
  __shared__ t32_smem<ES> s;
  const uint32_t blk[3] = {blockIdx.x, blockIdx.y, blockIdx.z};
  const uint32_t g[3] = {gridDim.x, gridDim.y, gridDim.z};
  t32_walk w;
  for (bool more = t32_start(a, blk, &w); more; more = t32_next(a, blk, g, &w)) {
    t32_tile<W> t = t32_place<W>(a, w.b, w.ik, w.ij);
    t32_load<W, ES>(a, t, s.data[w.buf], src, (int)threadIdx.x);
    __syncthreads();
    t32_store<W, ES>(a, t, s.data[w.buf], dst, (int)threadIdx.x);
  }
}

template <int W, int ES>
NDX_CUDA_KERNEL k_warp_rows(const __grid_constant__ ndx_cuda_args a, ndx_u8 *__restrict__ dst,
                            const ndx_u8 *__restrict__ src) {
  warp_rows_body<W, ES>(a, dst, src, (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
                        (int64_t)gridDim.x * blockDim.x);
}

/* ---- The launcher ---------------------------------------------------------- */

typedef void (*kernel_fn)(const ndx_cuda_args, ndx_u8 *, const ndx_u8 *);

/* Takes the address of the kernel pick() names. */
struct kernel_of {
  kernel_fn fn = nullptr;
  template <int W, int ES, int VB, int MODE> void flat() {
    if constexpr (MODE == NDX_CUDA_ROWS)
      fn = k_rows<W, ES, VB, MODE>;
    else
      fn = k_gather<W, ES, VB, MODE>;
  }
  template <int W, int ES, bool SIMPLE> void tile() {
    fn = k_transpose<W, ES, SIMPLE>;
  }
  template <int W, int B> void words() {
    fn = k_transpose_words<W, B>;
  }
  template <int W, int B> void bytes() {
    fn = k_bytes<W, B>;
  }
  template <int W, int ES> void tile32() {
    fn = k_transpose_32x8<W, ES>;
  }
  template <int W, int ES> void warp_rows() {
    fn = k_warp_rows<W, ES>;
  }
};

extern "C" int ndx_cuda_launch_step(const ndx_cuda_step *s, void *stream, void *dst,
                                    const void *src) {
  kernel_of k;
  if (!pick(k, s)) return (int)cudaErrorInvalidDeviceFunction;
  uint32_t g[3];
  if (ndx_cuda_grid(s, g) <= 0) return (int)cudaSuccess;
  ndx_u8 *d = (ndx_u8 *)dst;
  const ndx_u8 *sp = (const ndx_u8 *)src;
  void *args[] = {(void *)&s->args, (void *)&d, (void *)&sp};
  return (int)cudaLaunchKernel((const void *)k.fn, dim3(g[0], g[1], g[2]), dim3(NDX_CUDA_THREADS),
                               args, 0, (cudaStream_t)stream);
}
