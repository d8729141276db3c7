/* cuda_gpu.h: the gpu-shaped copy kernels on CUDA and HIP: the bodies that
 * ndx_cl's gpu shape runs (kernels/ndx_copy_gpu.h), planned by the shared
 * planner (host/launch.h) and wrapped as kernels by kernels/ndx_copy_gpu.cu.
 *
 * They run beside the CUDA kernels (ndx_copy_cuda.cuh), not in their place,
 * until a GPU run picks them case by case: ndx-bench-cuda --compare times
 * them in the same repetitions (ci/gpu), and tests/test_cuda_emulate.cu
 * runs them work-item by work-item on the host against the reference.
 * Users never see them. */
#ifndef NDX_CUDA_GPU_H
#define NDX_CUDA_GPU_H

#include "ndx_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ndx_cuda_gpu_plan ndx_cuda_gpu_plan;

/* Plans copying `src` to `dst`, `bits` wide, for the gpu-shaped kernels:
 * NDX_OK, or what ndx_cuda_plan_create refuses (named
 * ndx_cuda_gpu_plan_create); NDX_ENOMEM. */
ndx_status ndx_cuda_gpu_plan_create(ndx_cuda_gpu_plan **out, const ndx_layout *dst,
                                    const ndx_layout *src, int bits);

/* Launches it on `stream` (a buffer copy for the buffer path, nothing for
 * the empty one); NDX_EDEVICE naming the runtime's error. */
ndx_status ndx_cuda_gpu_plan_launch(const ndx_cuda_gpu_plan *plan, cudaStream_t stream, void *dst,
                                    const void *src);

/* The plan's path (ndx_copy_path_name). */
const char *ndx_cuda_gpu_plan_path(const ndx_cuda_gpu_plan *plan);

void ndx_cuda_gpu_plan_destroy(ndx_cuda_gpu_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* NDX_CUDA_GPU_H */
