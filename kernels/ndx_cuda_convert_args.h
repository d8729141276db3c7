/* ndx_cuda_convert_args.h: the arguments of ndx's CUDA and HIP conversion
 * kernels, shared by their planner (src/device/cuda_convert_plan.c), the
 * kernels (ndx_cuda_convert.cuh, ndx_convert.cu) and the host emulator
 * (tests/test_convert_emulate.cu). Users never see it.
 *
 * The launch descriptor that the shared planner fills (ndx_launch_convert,
 * src/host/launch.h) with the pack of ndx_pack_copy right after it, passed
 * by value as the gpu-shaped copy kernels' are (ndx_copy_gpu.cu), in blocks
 * of NDX_CUDA_CONVERT_THREADS, at most NDX_CUDA_CONVERT_MAX_BLOCKS of them
 * (the threads then loop over the units). */
#ifndef NDX_CUDA_CONVERT_ARGS_H
#define NDX_CUDA_CONVERT_ARGS_H

#include "ndx/ndx_pack.h"
#include "ndx_launch.h"

#define NDX_CUDA_CONVERT_THREADS 256
#define NDX_CUDA_CONVERT_MAX_BLOCKS 65536

typedef struct ndx_cuda_convert_args {
  ndx_launch d;
  ndx_u64 pack[NDX_PACK_MAX_BYTES(2, NDX_PACK_MAX_RANK) / 8];
} ndx_cuda_convert_args;

#endif /* NDX_CUDA_CONVERT_ARGS_H */
