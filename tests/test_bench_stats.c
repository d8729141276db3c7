/* test_bench_stats.c: ndx-bench's statistics (bench/stats.c): the median of
 * repetitions and the paired ratio that every figure of `ndx-bench --cl`
 * is. */
#include <criterion/criterion.h>

#include "bench.h"

Test(bench_stats, median_of_odd_and_even_counts) {
  double odd[5] = {5, 1, 4, 2, 3}, even[4] = {8, 2, 6, 4};
  cr_assert_float_eq(bench_median(odd, 5), 3.0, 1e-12);
  cr_assert_float_eq(bench_median(even, 4), 5.0, 1e-12);
}

/* A case that moves 192 bytes in 2 ns beside a ceiling that moves 128 in
 * 1 ns: 96 bytes/ns against 128, 0.75 of the ceiling's speed. (A ratio of
 * times alone said 0.5: the OpenCL bench's ceiling copies at most its
 * buffers' bytes, fewer than take_along_axis moves.) */
Test(bench_stats, paired_speed_counts_each_side_s_bytes) {
  double a[3] = {2, 2, 2}, b[3] = {1, 1, 1};
  cr_assert_float_eq(bench_paired(a, 192, b, 128, 3, false), 0.75, 1e-12);
  cr_assert_float_eq(bench_paired(a, 192, b, 192, 3, false), 0.5, 1e-12);
  cr_assert_float_eq(bench_paired(a, 192, b, 128, 3, true), 2.0, 1e-12);
}

/* The median is over the pairs' own ratios, repetition by repetition, not
 * a ratio of medians: a slow moment that slows both sides of one pair
 * leaves that pair's ratio as it was. */
Test(bench_stats, paired_is_the_median_of_per_pair_ratios) {
  double a[3] = {2, 20, 4}, b[3] = {1, 10, 1};
  cr_assert_float_eq(bench_paired(a, 100, b, 100, 3, false), 0.5, 1e-12);
  cr_assert_float_eq(bench_paired(a, 100, b, 100, 3, true), 2.0, 1e-12);
}

/* No counted bytes on a side (a launch, a small copy): the inverse time
 * ratio; no pairs: 0. */
Test(bench_stats, paired_without_bytes_or_pairs) {
  double a[2] = {4, 4}, b[2] = {1, 1};
  cr_assert_float_eq(bench_paired(a, 0, b, 128, 2, false), 0.25, 1e-12);
  cr_assert_float_eq(bench_paired(a, 64, b, 0, 2, false), 0.25, 1e-12);
  cr_assert_float_eq(bench_paired(a, 64, b, 64, 0, false), 0.0, 1e-12);
}

/* A second run for bench_probe_s: its seconds, counted. */
static double second_run_s(void *ctx) {
  int *calls = ctx;
  ++*calls;
  return 0.01;
}

/* A first run that compiled its kernel (2 s, where later runs take 0.01 s)
 * does not make the operation slow: the second run decides. (Timed by its
 * first run, a fresh kernel cache's transpose read 0.08 GB/s, 0.00 of the
 * copy, where it runs at 10.) A fast first run is believed, with no second. */
Test(bench_stats, a_slow_first_run_is_run_again) {
  int calls = 0;
  double compiled = bench_probe_s(2.0, 0.25, second_run_s, &calls);
  cr_assert_float_eq(compiled, 0.01, 1e-12);
  cr_assert_eq(calls, 1);
  double fast = bench_probe_s(0.1, 0.25, second_run_s, &calls);
  cr_assert_float_eq(fast, 0.1, 1e-12);
  cr_assert_eq(calls, 1);
}
