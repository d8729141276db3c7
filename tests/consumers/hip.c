/* hip.c: a user of libndx_hip (ndx_hip.pc, ndx::hip), built by
 * tests/test_install.sh with pkg-config and CMake, by the C compiler (not
 * hipcc), as a program that only calls the library would be.
 *
 * Plans a transpose and runs an empty copy, an empty gather and a check
 * (none needs a GPU), then asks the HIP runtime for its devices: the
 * program links libndx_hip and libamdhip64 and runs, AMD GPU or not. Exit
 * 0: the plan is the transpose kernel and the empty calls succeed; 1:
 * not. */
#include <stdio.h>
#include <string.h>
#include <ndx/ndx_hip.h>

int main(void) {
  ndx_layout src, dst, none;
  ndx_contiguous(&src, 2, (int64_t[]){48, 64});
  ndx_transpose(&src, &src, 0, 1);
  ndx_contiguous(&dst, 2, (int64_t[]){64, 48});
  ndx_contiguous(&none, 1, (int64_t[]){0});
  ndx_hip_plan *plan;
  if (ndx_hip_plan_create(&plan, &dst, &src, 16) != NDX_OK) {
    fprintf(stderr, "ndx_hip_plan_create: %s\n", ndx_last_error());
    return 1;
  }
  const char *path = ndx_hip_plan_path(plan);
  printf("path %s\n", path);
  int ok = strcmp(path, "transpose") == 0;
  ndx_hip_plan_destroy(plan);
  ndx_status s = ndx_hip_copy(0, NULL, &none, NULL, &none, 8); /* launches nothing */
  printf("empty copy: %s\n", ndx_status_name(s));
  ok = ok && s == NDX_OK;
  ndx_layout table; /* an empty lookup in a table of 4 rows: enqueues nothing */
  ndx_contiguous(&table, 1, (int64_t[]){4});
  s = ndx_hip_gather(0, (void *)0x100000, &none, (void *)0x200000, &table, 0, (void *)0x300000,
                     &none, 32, 0, 8);
  printf("empty gather: %s\n", ndx_status_name(s));
  ok = ok && s == NDX_OK;
  s = ndx_hip_check(0); /* nothing pending */
  printf("check: %s\n", ndx_status_name(s));
  ok = ok && s == NDX_OK;
  int count = 0; /* the runtime links and answers, GPU or not */
  hipError_t e = hipGetDeviceCount(&count);
  printf("hipGetDeviceCount: %s, %d\n", hipGetErrorName(e), count);
  return ok ? 0 : 1;
}
