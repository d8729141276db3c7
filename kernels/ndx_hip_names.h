/* ndx_hip_names.h: the CUDA names of ndx's CUDA sources, mapped to HIP's,
 * so that the same files build libndx_hip (included by ndx_gpu.h under
 * NDX_HIP, after ndx_hip.h and before any other ndx header). Three lists:
 * the ndx_cuda.h API to ndx_hip.h's; the internal functions shared between
 * the runtime's files, so that libndx_cuda.a and libndx_hip.a link into one
 * program; the CUDA runtime's calls, types and constants that the sources
 * and their tests use, to HIP's of the same signature. Users never see it. */
#ifndef NDX_HIP_NAMES_H
#define NDX_HIP_NAMES_H

/* ndx_cuda.h -> ndx_hip.h */
#define ndx_cuda_plan ndx_hip_plan
#define ndx_cuda_plan_create ndx_hip_plan_create
#define ndx_cuda_plan_launch ndx_hip_plan_launch
#define ndx_cuda_plan_path ndx_hip_plan_path
#define ndx_cuda_plan_destroy ndx_hip_plan_destroy
#define ndx_cuda_copy ndx_hip_copy
#define ndx_cuda_convert ndx_hip_convert
#define ndx_cuda_gather ndx_hip_gather
#define ndx_cuda_scatter ndx_hip_scatter
#define ndx_cuda_check ndx_hip_check
#define ndx_cuda_index_plan ndx_hip_index_plan
#define ndx_cuda_index_plan_create_gather ndx_hip_index_plan_create_gather
#define ndx_cuda_index_plan_create_scatter ndx_hip_index_plan_create_scatter
#define ndx_cuda_index_plan_launch ndx_hip_index_plan_launch
#define ndx_cuda_index_plan_destroy ndx_hip_index_plan_destroy

/* Internal functions with external linkage (cuda_plan.h, cuda_index_plan.h,
 * ndx_cuda_args.h) */
#define ndx_cuda_plan_fill ndx_hip_plan_fill
#define ndx_cuda_plan_create_flags ndx_hip_plan_create_flags
#define ndx_cuda_plan_fill_kernel ndx_hip_plan_fill_kernel
#define ndx_cuda_plan_create_kernel ndx_hip_plan_create_kernel
#define ndx_cuda_step_name ndx_hip_step_name
#define ndx_cuda_plan_steps ndx_hip_plan_steps
#define ndx_cuda_grid ndx_hip_grid
#define ndx_cuda_launch_step ndx_hip_launch_step
#define ndx_cuda_index_fill ndx_hip_index_fill
#define ndx_cuda_index_flags ndx_hip_index_flags
#define ndx_cuda_index_launch_check ndx_hip_index_launch_check
#define ndx_cuda_index_launch_copy ndx_hip_index_launch_copy
#define ndx_cuda_index_launch_along ndx_hip_index_launch_along

/* The runtime */
#define cudaStream_t hipStream_t
#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaErrorInvalidDeviceFunction hipErrorInvalidDeviceFunction
#define cudaGetErrorName hipGetErrorName
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaMemset hipMemset
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaStreamCreate hipStreamCreate
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaLaunchKernel hipLaunchKernel
#define cudaMallocAsync hipMallocAsync /* ROCm 5.1 and later, the same signature */
#define cudaFreeAsync hipFreeAsync
#define cudaMemsetAsync hipMemsetAsync
/* Pinned host memory: cudaHostAlloc's flags argument is hipHostMalloc's
 * (hipMallocHost, the twin of cudaMallocHost, is deprecated in HIP). */
#define cudaHostAlloc hipHostMalloc
#define cudaHostAllocDefault hipHostMallocDefault
#define cudaEvent_t hipEvent_t
#define cudaEventCreateWithFlags hipEventCreateWithFlags
#define cudaEventDisableTiming hipEventDisableTiming
#define cudaEventQuery hipEventQuery
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize

#endif /* NDX_HIP_NAMES_H */
