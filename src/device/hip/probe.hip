// probe.hip: the kernel src/device/hip/meson.build compiles for each AMD
// target at configure time, to learn which ones this hipcc builds.
#include <hip/hip_runtime.h>

__global__ void probe(int *out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
