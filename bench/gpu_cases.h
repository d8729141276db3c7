/* gpu_cases.h: the copy, conversion, gather and scatter cases of
 * ndx-bench-cuda, shared with the GPU memory model (ndx-bench
 * --gpu-model), so that both run the same lists: the copy speed cases
 * (contiguous, slices, a narrow, broadcasts, flips, 2-d fp32 transposes,
 * permutations of rank 3 to 8, transposes of 1 to 16 bits), up to 64 MiB
 * per tensor; the conversion cases of ndx-bench --cl
 * (bench/bench_cl_convert.c: the same names, layouts and types) and three
 * into f4e2m1fn (contiguous, a transpose, a block whose rows start inside
 * a byte); and the index cases (embedding lookups, take_along_axis, KV-cache row
 * scatters). */
#ifndef NDX_BENCH_GPU_CASES_H
#define NDX_BENCH_GPU_CASES_H

#include "ndx/ndx.h"
#include "ndx/ndx_dtype.h"
#include "ndx/ndx_index.h"

typedef struct gpu_case {
  const char *name, *group;
  double target; /* the ratio to the device's copy to reach (0: none) */
  int bits;      /* a copy's element bits; a conversion's destination's */
  bool convert;  /* a conversion (ndx_cuda_convert) from src_t to dst_t, else a copy */
  ndx_dtype src_t, dst_t;
  ndx_layout dst, src;
} gpu_case;

/* The bits of case c's source elements. */
static inline int gpu_case_src_bits(const gpu_case *c) {
  return c->convert ? ndx_dtype_bits(c->src_t) : c->bits;
}

/* Fills out[0 ..] with the cases, at most `max` (more exits with a
 * message); returns how many. */
int gpu_cases(gpu_case *out, int max);

/* One gather or scatter of 32-bit index values: S = index's shape; values
 * random in [0, d), or distinct (`unique`: the first values of a random
 * permutation of [0, d)), d the indexed side's extent on `axis`. */
typedef struct gpu_index_case {
  const char *name, *group;
  double target; /* the ratio to the device's copy to reach (0: none) */
  int bits, axis;
  bool scatter, unique;
  bool skip_check; /* the check kernel skipped (NDX_CUDA_INDEX_SKIP_CHECK) */
  unsigned flags;  /* NDX_INDEX_* */
  ndx_layout dst, src, index;
} gpu_index_case;

/* Fills out[0 ..] with the index cases, at most `max` (more exits with a
 * message); returns how many. */
int gpu_index_cases(gpu_index_case *out, int max);

/* Case c's index values at every position of the index's n elements of
 * span (int32), drawn alike for every caller from one seed; exits with a
 * message naming `who` when out of memory. Free with free(). */
int32_t *gpu_index_values(const gpu_index_case *c, size_t n, const char *who);

#endif /* NDX_BENCH_GPU_CASES_H */
