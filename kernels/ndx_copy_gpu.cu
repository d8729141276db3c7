/* ndx_copy_gpu.cu: the gpu-shaped copy kernels (kernels/ndx_copy_gpu.h) as
 * CUDA and HIP kernels, and their plans (src/device/cuda_gpu.h).
 *
 * The same bodies OpenCL's gpu shape wraps in kernels/ndx_copy.cl, in the
 * dialect of ndx_device.h, here one kernel per family and element width,
 * both index forms by the pack's; rows have two, straight (ndx_rows) and
 * through work-group memory (ndx_rows_staged), launched as the descriptor
 * says (stage_units), where OpenCL's one rows kernel reads it. A kernel takes its launch descriptor
 * and pack by value as a __grid_constant__ parameter, read in place. */
#include "ndx_gpu.h"
#include "ndx_cuda_tuning.h"

#undef NDX_WIDE
#define NDX_WIDE 0
#include "ndx_copy_gpu.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_copy_gpu.h"

#include <stdlib.h>

extern "C" {
#include "device/cuda_gpu.h"
#include "host/launch.h"
#include "host/ndx_internal.h"
}

/* The descriptor with the pack right after it (ndx_launch_pack). */
struct ndx_gpu_args {
  ndx_launch d;
  uint64_t pack[NDX_PACK_MAX_BYTES(2, NDX_PACK_MAX_RANK) / 8];
};
static_assert(sizeof(ndx_gpu_args) <= 4096, "kernel arguments fit CUDA's 4 KiB");
static_assert(offsetof(ndx_gpu_args, pack) == sizeof(ndx_launch), "the pack follows");

/* Work-items per block (cl_tuning.h's NDX_CL_GPU_LOCAL_SIZE on OpenCL) and
 * the most blocks a launch has. */
#define NDX_GPU_THREADS 256
#define NDX_GPU_MAX_BLOCKS 65536

#define NDX_GPU_KERNEL static __global__ void __launch_bounds__(NDX_GPU_THREADS)
#define NDX_GPU_ARGS                                                                               \
  const __grid_constant__ ndx_gpu_args a, ndx_u8 *__restrict__ dst, const ndx_u8 *__restrict__ src

template <int BITS> NDX_GPU_KERNEL ndx_rows(NDX_GPU_ARGS) {
  ndx_gpu_guard g = {0};
  if (ndx_launch_pack(&a.d)->wide)
    ndx_gpu_rows_w64(&a.d, dst, src, BITS, &g);
  else
    ndx_gpu_rows_w32(&a.d, dst, src, BITS, &g);
}

template <int BITS>
static __global__ void __launch_bounds__(NDX_GPU_THREADS, NDX_CUDA_BATCH_BLOCKS)
    ndx_rows_staged(NDX_GPU_ARGS) {
  __shared__ ndx_u128 stage[NDX_GPU_STAGE_BYTES / 16];
  ndx_gpu_guard g = {0};
  if (ndx_launch_pack(&a.d)->wide)
    ndx_gpu_rows_staged_w64(&a.d, (ndx_u8 *)stage, dst, src, BITS, &g);
  else
    ndx_gpu_rows_staged_w32(&a.d, (ndx_u8 *)stage, dst, src, BITS, &g);
}

template <int BITS> NDX_GPU_KERNEL ndx_gather(NDX_GPU_ARGS) {
  ndx_gpu_guard g = {0};
  if (ndx_launch_pack(&a.d)->wide)
    ndx_gpu_gather_w64(&a.d, dst, src, BITS, &g);
  else
    ndx_gpu_gather_w32(&a.d, dst, src, BITS, &g);
}

template <int BITS>
static __global__ void __launch_bounds__(NDX_GPU_THREADS, NDX_CUDA_TILE_BLOCKS)
    ndx_transpose(NDX_GPU_ARGS) {
  __shared__ ndx_u128 tile[(NDX_GPU_TILE_BYTES(BITS) + 15) / 16];
  ndx_gpu_guard g = {0};
  if (ndx_launch_pack(&a.d)->wide)
    ndx_gpu_transpose_w64(&a.d, (ndx_u8 *)tile, dst, src, BITS, &g);
  else
    ndx_gpu_transpose_w32(&a.d, (ndx_u8 *)tile, dst, src, BITS, &g);
}

template <int BITS> NDX_GPU_KERNEL ndx_bytes(NDX_GPU_ARGS) {
  ndx_gpu_guard g = {0};
  if (ndx_launch_pack(&a.d)->wide)
    ndx_gpu_bytes_w64(&a.d, dst, src, BITS, &g);
  else
    ndx_gpu_bytes_w32(&a.d, dst, src, BITS, &g);
}

struct ndx_cuda_gpu_plan {
  ndx_copy_path path;
  int bits;
  int64_t blocks;
  size_t dst_off, src_off, bytes; /* the buffer path */
  ndx_gpu_args args;
};

extern "C" ndx_status ndx_cuda_gpu_plan_create(ndx_cuda_gpu_plan **out, const ndx_layout *dst,
                                               const ndx_layout *src, int bits) {
  static const char fn[] = "ndx_cuda_gpu_plan_create";
  if (!out) return ndx_set_error(NDX_EINVAL, "%s: out is NULL", fn);
  ndx_copy_plan p;
  ndx_status s = ndx_copy_plan_make(&p, fn, dst, src, bits, &ndx_gpu_caps, 0);
  if (s != NDX_OK) return s;
  ndx_cuda_gpu_plan *plan = (ndx_cuda_gpu_plan *)calloc(1, sizeof *plan);
  if (!plan) return ndx_set_error(NDX_ENOMEM, "%s: out of host memory", fn);
  plan->path = p.path;
  plan->bits = bits;
  if (p.path == NDX_PATH_BUFFER) {
    plan->dst_off = (size_t)(p.q.offset[0] * bits / 8);
    plan->src_off = (size_t)(p.q.offset[1] * bits / 8);
    plan->bytes = (size_t)(p.q.numel * bits / 8);
  } else if (p.path != NDX_PATH_EMPTY) {
    ndx_launch_gpu(&p, NDX_GPU_THREADS, NDX_GPU_MAX_BLOCKS, &plan->args.d, &plan->blocks);
    s = ndx_copy_plan_pack(&p, plan->args.pack, sizeof plan->args.pack);
    if (s != NDX_OK) {
      free(plan);
      return s;
    }
  }
  *out = plan;
  return NDX_OK;
}

/* A case of the width switch: kernel F of B-bit elements on the plan's grid. */
#define NDX_GPU_LAUNCH(F, B)                                                                       \
  case B:                                                                                          \
    F<B><<<grid, NDX_GPU_THREADS, 0, stream>>>(plan->args, d, s);                                  \
    break;

extern "C" ndx_status ndx_cuda_gpu_plan_launch(const ndx_cuda_gpu_plan *plan, cudaStream_t stream,
                                               void *dst, const void *src) {
  static const char fn[] = "ndx_cuda_gpu_plan_launch";
  ndx_u8 *d = (ndx_u8 *)dst;
  const ndx_u8 *s = (const ndx_u8 *)src;
  dim3 grid((unsigned)plan->blocks);
  switch (plan->path) {
  case NDX_PATH_EMPTY:
    return NDX_OK;
  case NDX_PATH_BUFFER: {
    cudaError_t e = cudaMemcpyAsync(d + plan->dst_off, s + plan->src_off, plan->bytes,
                                    cudaMemcpyDeviceToDevice, stream);
    return e == cudaSuccess
               ? NDX_OK
               : ndx_set_error(NDX_EDEVICE, "%s: cudaMemcpyAsync: %s", fn, cudaGetErrorName(e));
  }
  case NDX_PATH_ROWS:
    if (plan->args.d.stage_units) { /* through work-group memory */
      switch (plan->bits) {
        NDX_GPU_LAUNCH(ndx_rows_staged, 8)
        NDX_GPU_LAUNCH(ndx_rows_staged, 16)
        NDX_GPU_LAUNCH(ndx_rows_staged, 32)
        NDX_GPU_LAUNCH(ndx_rows_staged, 64)
        NDX_GPU_LAUNCH(ndx_rows_staged, 128)
      }
      break;
    }
    switch (plan->bits) {
      NDX_GPU_LAUNCH(ndx_rows, 8)
      NDX_GPU_LAUNCH(ndx_rows, 16)
      NDX_GPU_LAUNCH(ndx_rows, 32)
      NDX_GPU_LAUNCH(ndx_rows, 64)
      NDX_GPU_LAUNCH(ndx_rows, 128)
    }
    break;
  case NDX_PATH_TRANSPOSE:
    switch (plan->bits) {
      NDX_GPU_LAUNCH(ndx_transpose, 1)
      NDX_GPU_LAUNCH(ndx_transpose, 2)
      NDX_GPU_LAUNCH(ndx_transpose, 4)
      NDX_GPU_LAUNCH(ndx_transpose, 8)
      NDX_GPU_LAUNCH(ndx_transpose, 16)
      NDX_GPU_LAUNCH(ndx_transpose, 32)
      NDX_GPU_LAUNCH(ndx_transpose, 64)
      NDX_GPU_LAUNCH(ndx_transpose, 128)
    }
    break;
  case NDX_PATH_BYTES:
    switch (plan->bits) {
      NDX_GPU_LAUNCH(ndx_bytes, 1)
      NDX_GPU_LAUNCH(ndx_bytes, 2)
      NDX_GPU_LAUNCH(ndx_bytes, 4)
    }
    break;
  default:
    switch (plan->bits) {
      NDX_GPU_LAUNCH(ndx_gather, 8)
      NDX_GPU_LAUNCH(ndx_gather, 16)
      NDX_GPU_LAUNCH(ndx_gather, 32)
      NDX_GPU_LAUNCH(ndx_gather, 64)
      NDX_GPU_LAUNCH(ndx_gather, 128)
    }
  }
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess
             ? NDX_OK
             : ndx_set_error(NDX_EDEVICE, "%s: launching ndx_%s%s for %d-bit elements: %s", fn,
                             ndx_copy_path_name(plan->path),
                             plan->args.d.stage_units ? "_staged" : "", plan->bits,
                             cudaGetErrorName(e));
}

extern "C" const char *ndx_cuda_gpu_plan_path(const ndx_cuda_gpu_plan *plan) {
  return ndx_copy_path_name(plan ? (int)plan->path : -1);
}

extern "C" void ndx_cuda_gpu_plan_destroy(ndx_cuda_gpu_plan *plan) {
  free(plan);
}
