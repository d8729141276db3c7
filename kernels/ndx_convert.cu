/* ndx_convert.cu: ndx_cuda_convert (ndx_hip_convert under HIP), the bodies
 * of ndx_convert_items.h that ndx_cl_convert's gpu shape runs, here as CUDA
 * and HIP kernels.
 *
 * A conversion is planned as a copy is (the shared planner, at the
 * destination's width) and runs one of three kernels: ndx_convert_transpose,
 * the copy's tiles converting between load and store (ndx_convert_gpu.h),
 * for what the planner makes a transpose into 8 bits and up;
 * ndx_convert_elements, every launch-size-th C-order element from a
 * thread's global index, for the other destinations of 8 bits and up;
 * ndx_convert_bytes, every launch-size-th byte of a 4-bit destination, each
 * written whole by its one writer. The types are kernel arguments, not
 * template parameters: one kernel serves all 324 pairs (the values are the same bits whichever way
 * the switch is taken; a pair's own kernel would fold it). The same type on both sides is
 * ndx_cuda_copy. The descriptor and pack go by value, as the gpu-shaped copy kernels' do
 * (ndx_copy_gpu.cu). */
#include "ndx_gpu.h"

#undef NDX_WIDE
#define NDX_WIDE 0
#include "ndx_convert_gpu.h"
#include "ndx_convert_items.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_convert_gpu.h"
#include "ndx_convert_items.h"

extern "C" {
#include "host/copy_plan.h"
#include "host/launch.h"
#include "host/ndx_internal.h"
#include "ndx_copy_geometry.h"
}

/* The descriptor with the pack right after it (ndx_launch_pack). */
struct ndx_convert_args {
  ndx_launch d;
  uint64_t pack[NDX_PACK_MAX_BYTES(2, NDX_PACK_MAX_RANK) / 8];
};
static_assert(sizeof(ndx_convert_args) <= 4096, "kernel arguments fit CUDA's 4 KiB");

#define NDX_CONVERT_THREADS 256
#define NDX_CONVERT_MAX_BLOCKS 65536

static __global__ void __launch_bounds__(NDX_CONVERT_THREADS)
    ndx_convert_elements(const __grid_constant__ ndx_convert_args a, ndx_u8 *__restrict__ dst,
                         const ndx_u8 *__restrict__ src, int st, int dt) {
  ndx_gpu_guard g = {0};
  const ndx_pack_head *p = ndx_launch_pack(&a.d);
  for (ndx_i64 i = (ndx_i64)blockIdx.x * blockDim.x + threadIdx.x; i < a.d.units;
       i += (ndx_i64)gridDim.x * blockDim.x) {
    if (p->wide)
      ndx_convert_element_w64(p, dst, src, i, st, dt, &g);
    else
      ndx_convert_element_w32(p, dst, src, i, st, dt, &g);
  }
}

static __global__ void __launch_bounds__(NDX_CONVERT_THREADS)
    ndx_convert_bytes(const __grid_constant__ ndx_convert_args a, ndx_u8 *__restrict__ dst,
                      const ndx_u8 *__restrict__ src, int st, int dt) {
  ndx_gpu_guard g = {0};
  const ndx_pack_head *p = ndx_launch_pack(&a.d);
  for (ndx_i64 u = (ndx_i64)blockIdx.x * blockDim.x + threadIdx.x; u < a.d.units;
       u += (ndx_i64)gridDim.x * blockDim.x) {
    if (p->wide)
      ndx_convert_byte_w64(p, dst, src, a.d.first + u, st, dt, &g);
    else
      ndx_convert_byte_w32(p, dst, src, a.d.first + u, st, dt, &g);
  }
}

/* A transpose through the copy's tiles, converting between load and store
 * (ndx_convert_gpu.h): a block per tile. */
static __global__ void __launch_bounds__(NDX_CONVERT_THREADS)
    ndx_convert_transpose(const __grid_constant__ ndx_convert_args a, ndx_u8 *__restrict__ dst,
                          const ndx_u8 *__restrict__ src, int st, int dt) {
  __shared__ ndx_u128 tile[(NDX_GPU_TILE_BYTES(8) + 15) / 16];
  ndx_gpu_guard g = {0};
  if (ndx_launch_pack(&a.d)->wide)
    ndx_convert_transpose_w64(&a.d, (ndx_u8 *)tile, dst, src, st, dt, &g);
  else
    ndx_convert_transpose_w32(&a.d, (ndx_u8 *)tile, dst, src, st, dt, &g);
}

/* Launches ndx_convert_transpose for transpose plan p (made at the
 * destination's width) from type src_t to dst_t on `stream`; errors name
 * `fn`. */
static ndx_status convert_transpose(const char *fn, cudaStream_t stream, void *dst, ndx_dtype dst_t,
                                    const void *src, ndx_dtype src_t, const ndx_copy_plan *p) {
  ndx_convert_args args;
  int64_t blocks;
  ndx_launch_gpu_convert(p, ndx_dtype_bits(src_t), NDX_CONVERT_THREADS, NDX_CONVERT_MAX_BLOCKS,
                         &args.d, &blocks);
  ndx_status s = ndx_copy_plan_pack(p, args.pack, sizeof args.pack);
  if (s != NDX_OK) return s;
  ndx_convert_transpose<<<dim3((unsigned)blocks), NDX_CONVERT_THREADS, 0, stream>>>(
      args, (ndx_u8 *)dst, (const ndx_u8 *)src, (int)src_t, (int)dst_t);
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? NDX_OK
                          : ndx_set_error(NDX_EDEVICE, "%s: launching ndx_convert_transpose: %s",
                                          fn, cudaGetErrorName(e));
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
  ndx_copy_plan p;
  ndx_status s = ndx_copy_plan_make(&p, fn, dst_l, src_l, db, &ndx_gpu_caps, 0);
  if (s != NDX_OK || p.q.numel == 0) return s;
  if (db >= 8 && p.path == NDX_PATH_TRANSPOSE)
    return convert_transpose(fn, stream, dst, dst_t, src, src_t, &p);
  ndx_convert_args args;
  memset(&args.d, 0, sizeof args.d);
  args.d.units = p.q.numel;
  if (db < 8) {
    int64_t lo, hi, end;
    ndx_operands_span(&p.q, 0, &lo, &hi);
    ndx_bytes_span(lo, hi, db, &args.d.first, &end);
    args.d.units = end - args.d.first;
  }
  s = ndx_copy_plan_pack(&p, args.pack, sizeof args.pack);
  if (s != NDX_OK) return s;
  int64_t blocks = ndx_ceil_div(args.d.units, NDX_CONVERT_THREADS);
  dim3 grid((unsigned)(blocks < NDX_CONVERT_MAX_BLOCKS ? blocks : NDX_CONVERT_MAX_BLOCKS));
  if (db < 8)
    ndx_convert_bytes<<<grid, NDX_CONVERT_THREADS, 0, stream>>>(
        args, (ndx_u8 *)dst, (const ndx_u8 *)src, (int)src_t, (int)dst_t);
  else
    ndx_convert_elements<<<grid, NDX_CONVERT_THREADS, 0, stream>>>(
        args, (ndx_u8 *)dst, (const ndx_u8 *)src, (int)src_t, (int)dst_t);
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? NDX_OK
                          : ndx_set_error(NDX_EDEVICE, "%s: launching ndx_convert_%s: %s", fn,
                                          db < 8 ? "bytes" : "elements", cudaGetErrorName(e));
}
