/* cuda.c: a user of libndx_cuda (ndx_cuda.pc, ndx::cuda), built by
 * tests/test_install.sh with pkg-config and CMake.
 *
 * Plans a transpose (a plan needs no GPU) and asks the CUDA runtime for its
 * devices: the program links libndx_cuda and libcudart and runs, GPU or
 * not. Exit 0: the plan is the transpose kernel; 1: it is not. */
#include <stdio.h>
#include <string.h>
#include <ndx/ndx_cuda.h>

int main(void) {
  ndx_layout src, dst;
  ndx_contiguous(&src, 2, (int64_t[]){64, 48});
  ndx_transpose(&src, &src, 0, 1);
  ndx_contiguous(&dst, 2, (int64_t[]){48, 64});
  ndx_cuda_plan *plan;
  if (ndx_cuda_plan_create(&plan, &dst, &src, 32) != NDX_OK) {
    fprintf(stderr, "ndx_cuda_plan_create: %s\n", ndx_last_error());
    return 1;
  }
  const char *path = ndx_cuda_plan_path(plan);
  int ok = strcmp(path, "transpose") == 0;
  printf("path %s\n", path);
  ndx_cuda_plan_destroy(plan);
  int count = 0; /* the runtime links and answers, GPU or not */
  cudaError_t e = cudaGetDeviceCount(&count);
  printf("cudaGetDeviceCount: %s, %d\n", cudaGetErrorName(e), count);
  return ok ? 0 : 1;
}
