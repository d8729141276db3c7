/* gpu_cases.h: the copy cases of ndx-bench-cuda, shared with the GPU
 * memory model (ndx-bench --gpu-model), so that both run the same list: the
 * speed cases (contiguous, slices, a narrow, broadcasts, flips, 2-d fp32
 * transposes, permutations of rank 3 to 8, transposes of 1 to 16 bits), up
 * to 64 MiB per tensor. */
#ifndef NDX_BENCH_GPU_CASES_H
#define NDX_BENCH_GPU_CASES_H

#include "ndx/ndx.h"

typedef struct gpu_case {
  const char *name, *group;
  double target; /* the ratio to the device's copy to reach (0: none) */
  int bits;
  ndx_layout dst, src;
} gpu_case;

/* Fills out[0 ..] with the cases, at most `max` (more exits with a
 * message); returns how many. */
int gpu_cases(gpu_case *out, int max);

#endif /* NDX_BENCH_GPU_CASES_H */
