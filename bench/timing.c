/* timing.c: the shared timer of ndx-bench: a monotonic clock, the thread's
 * CPU time, and a warm-up that also sizes the work (the median of the timed
 * repetitions is stats.c's). */
#include <stdlib.h>
#include <time.h>

#include "bench.h"

uint64_t bench_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

uint64_t bench_cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

bench_result bench_time(const bench_opts *opts, bench_fn fn, void *ctx) {
  const double target_ns = opts->min_rep_s * 1e9;
  uint64_t allocs = bench_alloc_count();

  /* Warm-up: grow n until one run lasts the target; these runs are discarded
   * and warm the caches, the branch predictors and the clock. */
  int64_t n = 1;
  for (;;) {
    uint64_t t0 = bench_cpu_ns();
    fn(ctx, n);
    double ns = (double)(bench_cpu_ns() - t0);
    if (ns >= target_ns || n >= (INT64_C(1) << 40)) break;
    double grow = ns > 0 ? target_ns / ns * 1.25 : 100;
    n = grow > 100 ? n * 100 : grow < 2 ? n * 2 : (int64_t)((double)n * grow);
  }

  int reps = opts->reps < 1 ? 1 : opts->reps > BENCH_REPS_MAX ? BENCH_REPS_MAX : opts->reps;
  double per[BENCH_REPS_MAX];
  for (int r = 0; r < reps; r++) {
    uint64_t t0 = bench_cpu_ns();
    fn(ctx, n);
    per[r] = (double)(bench_cpu_ns() - t0) / (double)n;
  }
  bench_result res = {.units = n};
  double lo = per[0];
  for (int r = 1; r < reps; r++) lo = per[r] < lo ? per[r] : lo;
  res.min_ns_per_unit = lo;
  res.ns_per_unit = bench_median(per, reps);
  uint64_t after = bench_alloc_count();
  res.allocs = allocs == UINT64_MAX ? UINT64_MAX : after - allocs;
  return res;
}
