/* ndx_convert.cu: ndx_cuda_convert (ndx_hip_convert under HIP), the bodies
 * of ndx_convert_items.h that ndx_cl_convert's gpu shape runs, here as CUDA
 * and HIP kernels (ndx_cuda_convert.cuh).
 *
 * A conversion is planned as a copy is (the shared planner, at the
 * destination's width) and launched as the shared conversion planner says
 * (ndx_cuda_convert_fill, src/device/cuda_convert_plan.c, given the
 * pointers' alignment): one of three families, ndx_convert_transpose, the
 * copy's tiles converting between load and store (ndx_convert_gpu.h), for
 * what the planner makes a transpose, three kernels whose phase 1 takes
 * elements, a 4-bit source's byte pairs or words, as the descriptor's
 * group says (every phase 1 in one kernel spilled), into 4-bit
 * destinations the copy's tile below 8 bits;
 * ndx_convert_elements, every launch-size-th unit (a C-order element, or a
 * group of a row's elements) from a thread's global index,
 * a batch loaded before any is stored, for the other destinations of 8
 * bits and up; ndx_convert_bytes, every
 * launch-size-th byte of a 4-bit destination, each written whole by its
 * one writer. The types are kernel
 * arguments, not template parameters: one kernel serves all 324 pairs (the
 * values are the same bits whichever way the switch is taken; a pair's own
 * kernel would fold it). The same type on both sides is ndx_cuda_copy. The
 * descriptor and pack go by value, as the gpu-shaped copy kernels' do
 * (ndx_copy_gpu.cu). */
#include "ndx_gpu.h"
#include "ndx_cuda_tuning.h"

#include "ndx_cuda_convert.cuh"
#undef NDX_WIDE
#define NDX_WIDE 0
#include "ndx_convert_gpu.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_convert_gpu.h"

extern "C" {
#include "device/cuda_convert_plan.h"
#include "host/launch.h"
#include "host/ndx_internal.h"
}

static_assert(sizeof(ndx_cuda_convert_args) <= 4096, "kernel arguments fit CUDA's 4 KiB");

static __global__ void __launch_bounds__(NDX_CUDA_CONVERT_THREADS, NDX_CUDA_BATCH_BLOCKS)
    ndx_convert_elements(const __grid_constant__ ndx_cuda_convert_args a, ndx_u8 *__restrict__ dst,
                         const ndx_u8 *__restrict__ src, int st, int dt) {
  ndx_convert_cuda::elements_body(a, dst, src, st, dt,
                                  (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
                                  (int64_t)gridDim.x * blockDim.x);
}

static __global__ void __launch_bounds__(NDX_CUDA_CONVERT_THREADS)
    ndx_convert_bytes(const __grid_constant__ ndx_cuda_convert_args a, ndx_u8 *__restrict__ dst,
                      const ndx_u8 *__restrict__ src, int st, int dt) {
  ndx_convert_cuda::bytes_body(a, dst, src, st, dt, (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
                               (int64_t)gridDim.x * blockDim.x);
}

/* A transpose through the copy's tiles, converting between load and store
 * (ndx_convert_gpu.h): a block per tile; phase 1 by a 4-bit source's words
 * or byte pairs where `group` (the descriptor's) is 8 or 2, a kernel of
 * each group. */
template <int group>
static __global__ void __launch_bounds__(NDX_CUDA_CONVERT_THREADS, NDX_CUDA_CONVERT_TILE_BLOCKS)
    ndx_convert_transpose(const __grid_constant__ ndx_cuda_convert_args a, ndx_u8 *__restrict__ dst,
                          const ndx_u8 *__restrict__ src, int st, int dt) {
  __shared__ ndx_u128 tile[(NDX_GPU_TILE_BYTES(8) + 15) / 16];
  ndx_gpu_guard g = {0};
  if (ndx_launch_pack(&a.d)->wide)
    ndx_convert_transpose_w64(&a.d, (ndx_u8 *)tile, dst, src, st, dt, group, &g);
  else
    ndx_convert_transpose_w32(&a.d, (ndx_u8 *)tile, dst, src, st, dt, group, &g);
}

extern "C" ndx_status ndx_cuda_convert(cudaStream_t stream, void *dst, const ndx_layout *dst_l,
                                       ndx_dtype dst_t, const void *src, const ndx_layout *src_l,
                                       ndx_dtype src_t) {
  static const char fn[] = NDX_GPU_STR(ndx_cuda_convert);
  int db = ndx_dtype_bits(dst_t), sb = ndx_dtype_bits(src_t);
  if (db == 0 || sb == 0)
    return ndx_set_error(NDX_EINVAL, "%s: %s is %d, not an ndx_dtype (0 .. 17)", fn,
                         db == 0 ? "dst_t" : "src_t", db == 0 ? (int)dst_t : (int)src_t);
  if (dst_t == src_t) return ndx_cuda_copy(stream, dst, dst_l, src, src_l, db);
  if (!dst || !src) return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", fn, !dst ? "dst" : "src");
  uintptr_t da = db >= 8 ? (uintptr_t)db / 8 : 1, sa = sb >= 8 ? (uintptr_t)sb / 8 : 1;
  bool dst_off = (uintptr_t)dst % da != 0;
  if (dst_off || (uintptr_t)src % sa != 0) /* as ndx_cuda_plan_launch refuses */
    return ndx_set_error(NDX_EINVAL, "%s: %s %p is not aligned to %u bytes for %s elements", fn,
                         dst_off ? "dst" : "src", dst_off ? dst : src,
                         (unsigned)(dst_off ? da : sa), ndx_dtype_name(dst_off ? dst_t : src_t));
  ndx_cuda_convert_launch c;
  uintptr_t both = (uintptr_t)dst | (uintptr_t)src | 16; /* the pointers' alignment, up to 16 */
  ndx_status s = ndx_cuda_convert_fill(&c, fn, dst_l, db, src_l, sb, 0, (int64_t)(both & -both));
  if (s != NDX_OK || c.blocks == 0) return s;
  bool bytes = c.family == NDX_CONVERT_BYTES;
  dim3 grid((unsigned)c.blocks);
  if (c.family == NDX_CONVERT_TRANSPOSE && c.args.d.group == 8)
    ndx_convert_transpose<8><<<grid, NDX_CUDA_CONVERT_THREADS, 0, stream>>>(
        c.args, (ndx_u8 *)dst, (const ndx_u8 *)src, (int)src_t, (int)dst_t);
  else if (c.family == NDX_CONVERT_TRANSPOSE && c.args.d.group == 2)
    ndx_convert_transpose<2><<<grid, NDX_CUDA_CONVERT_THREADS, 0, stream>>>(
        c.args, (ndx_u8 *)dst, (const ndx_u8 *)src, (int)src_t, (int)dst_t);
  else if (c.family == NDX_CONVERT_TRANSPOSE)
    ndx_convert_transpose<1><<<grid, NDX_CUDA_CONVERT_THREADS, 0, stream>>>(
        c.args, (ndx_u8 *)dst, (const ndx_u8 *)src, (int)src_t, (int)dst_t);
  else if (bytes)
    ndx_convert_bytes<<<grid, NDX_CUDA_CONVERT_THREADS, 0, stream>>>(
        c.args, (ndx_u8 *)dst, (const ndx_u8 *)src, (int)src_t, (int)dst_t);
  else
    ndx_convert_elements<<<grid, NDX_CUDA_CONVERT_THREADS, 0, stream>>>(
        c.args, (ndx_u8 *)dst, (const ndx_u8 *)src, (int)src_t, (int)dst_t);
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? NDX_OK
                          : ndx_set_error(NDX_EDEVICE, "%s: launching ndx_convert_%s: %s", fn,
                                          c.family == NDX_CONVERT_TRANSPOSE ? "transpose"
                                          : bytes                           ? "bytes"
                                                                            : "elements",
                                          cudaGetErrorName(e));
}
