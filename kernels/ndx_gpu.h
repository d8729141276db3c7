/* ndx_gpu.h: the GPU runtime that ndx's CUDA sources are built against,
 * named in this one place: CUDA's, or HIP's where NDX_HIP is defined (the
 * HIP build defines it; HIP-Clang, which defines __HIPCC__ and not
 * __CUDACC__, implies it). The kernels (ndx_copy.cu), the host runtime
 * (src/device/cuda.c), the planner (src/device/cuda_plan.c, through
 * ndx_cuda_args.h) and their tests include it before any other ndx header,
 * so that the one source builds libndx_cuda with nvcc and libndx_hip with
 * hipcc. Users never see it.
 *
 * What it gives, for either runtime:
 *   - the runtime's header: the full one under a GPU compiler (kernels,
 *     dim3, launches), the API alone for host C;
 *   - ndx's public header of that runtime: ndx_cuda.h, or ndx_hip.h with
 *     the CUDA spellings of the sources mapped to HIP's (ndx_hip_names.h);
 *   - __grid_constant__, which HIP lacks: empty there, so a kernel's
 *     by-value arguments are read as any argument (correct either way);
 *   - NDX_GPU_DEVICE_PASS, defined in the device pass of either compiler;
 *   - NDX_GPU_NAME, "CUDA" or "HIP", and NDX_GPU_PREFIX, "cuda" or "hip"
 *     (the runtime's names start with it: cudaErrorNoDevice, hipMalloc);
 *   - NDX_GPU_STR(name): a name of the sources as this build spells it, as
 *     a string (ndx_cuda_plan_launch: "ndx_hip_plan_launch" under HIP), for
 *     messages.
 * Nothing in the kernels depends on the warp size: threads exchange data
 * only through shared memory and __syncthreads, never by warp shuffles,
 * votes or lockstep, so AMD's 64-wide wavefronts run them unchanged
 * (warp-rows' groups of 32 threads are a warp on NVIDIA, half a wavefront
 * there). */
#ifndef NDX_GPU_H
#define NDX_GPU_H

#if !defined(NDX_HIP) && defined(__HIPCC__) && !defined(__CUDACC__)
#define NDX_HIP 1
#endif

#ifdef NDX_HIP
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#else
#include <hip/hip_runtime_api.h>
#endif
#include "ndx/ndx_hip.h"
#include "ndx_hip_names.h"
#ifndef __grid_constant__
#define __grid_constant__
#endif
#define NDX_GPU_NAME "HIP"
#define NDX_GPU_PREFIX "hip"
#else
#if defined(__CUDACC__)
#include <cuda_runtime.h>
#else
#include <cuda_runtime_api.h>
#endif
#include "ndx/ndx_cuda.h"
#define NDX_GPU_NAME "CUDA"
#define NDX_GPU_PREFIX "cuda"
#endif

#define NDX_GPU_STR(name) NDX_GPU_STR_(name)
#define NDX_GPU_STR_(name) #name

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define NDX_GPU_DEVICE_PASS 1
#endif

#endif /* NDX_GPU_H */
