/* stats.c: the statistics ndx-bench reports from timed repetitions: their
 * median, and the ratio of two operations timed side by side; and the
 * probe that decides how an operation is timed. */
#include <stdlib.h>

#include "bench.h"

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double bench_paired(const double *ns_a, double bytes_a, const double *ns_b, double bytes_b, int n,
                    bool time) {
  double r[BENCH_REPS_MAX];
  if (n > BENCH_REPS_MAX) n = BENCH_REPS_MAX;
  if (n < 1) return 0;
  /* a's bytes per b's: a speed ratio is the inverse time ratio scaled by it */
  double scale = bytes_a > 0 && bytes_b > 0 ? bytes_a / bytes_b : 1;
  for (int k = 0; k < n; k++) r[k] = time ? ns_a[k] / ns_b[k] : scale * ns_b[k] / ns_a[k];
  return bench_median(r, n);
}

double bench_probe_s(double first_s, double slow_s, double (*run_s)(void *ctx), void *ctx) {
  return first_s < slow_s ? first_s : run_s(ctx);
}
