/* bench.h: what the sections of ndx-bench share: options, a timer that reports
 * the median of repetitions after a discarded warm-up, an allocation counter,
 * and the table printer. Each section is one function `int bench_<name>(const
 * bench_opts *)` in a file of its own, listed in main.c's section table. */
#ifndef NDX_BENCH_H
#define NDX_BENCH_H

#include <stdbool.h>
#include <stdint.h>

typedef struct bench_opts {
  bool quick;       /* fewer and shorter repetitions: a smoke run, not a measurement */
  int reps;         /* timed repetitions whose median is reported */
  double min_rep_s; /* each repetition runs at least this long */
  const char *out;  /* --out DIR: where sections write their files ("." by default) */
  const char *only; /* --cases TEXT: only the cases whose name holds TEXT (NULL: all) */
} bench_opts;

/* A monotonic clock in nanoseconds (CLOCK_MONOTONIC). */
uint64_t bench_now_ns(void);

/* The CPU time of the calling thread in nanoseconds (CLOCK_THREAD_CPUTIME_ID):
 * what bench_time counts, so that on a machine shared with other work the time
 * the scheduler gives to other processes is not counted as the work's. */
uint64_t bench_cpu_ns(void);

/* The median of v[0..n-1] (n >= 1); reorders v. */
double bench_median(double *v, int n);

/* The seconds of one run that decide how an operation is timed, from its
 * first run's `first_s`: an operation's first run can pay for what later
 * runs do not (on PoCL, the kernel compiled at its first enqueue, when the
 * kernel cache does not have it yet), so a first run of slow_s or more is
 * not believed, and the time of a second run (run_s(ctx)) is returned
 * instead; a faster first run is returned as it is. */
double bench_probe_s(double first_s, double slow_s, double (*run_s)(void *ctx), void *ctx);

/* The most repetitions a figure is timed in (--reps is clamped to it), and
 * so the most pairs bench_paired takes. */
#define BENCH_REPS_MAX 1000

/* Operation a against b, timed side by side: repetition k of each took
 * ns_a[k] and ns_b[k] ns per operation, which moves bytes_a and bytes_b. The
 * median over the n pairs (BENCH_REPS_MAX at most; 0 for none) of a's
 * speed over b's, in bytes per ns, so that operations moving different
 * byte counts compare fairly (where either count is 0, b's time over a's);
 * with `time`, of a's time over b's. */
double bench_paired(const double *ns_a, double bytes_a, const double *ns_b, double bytes_b, int n,
                    bool time);

/* Work to time: does `n` units of work on `ctx` (calls, passes, …). */
typedef void (*bench_fn)(void *ctx, int64_t n);

typedef struct bench_result {
  double ns_per_unit; /* median over the repetitions */
  double min_ns_per_unit;
  int64_t units;   /* units per repetition */
  uint64_t allocs; /* heap allocations counted during warm-up and reps */
} bench_result;

/* Times fn in the thread's CPU time (bench_cpu_ns): first a warm-up that grows
 * n until one run takes opts->min_rep_s (its runs are discarded), then
 * opts->reps runs of that n. Allocations made by anything in the process
 * meanwhile are counted. */
bench_result bench_time(const bench_opts *opts, bench_fn fn, void *ctx);

/* Heap allocations (malloc, calloc, realloc, aligned forms) made by the
 * process so far, or UINT64_MAX when counting is not built in (sanitizer
 * builds, whose runtime owns malloc). */
uint64_t bench_alloc_count(void);

/* True iff the counter sees allocations (checked by making one). */
bool bench_alloc_counting(void);

/* Sections. bench_host: layout calls and host iteration (bench_host.c). */
int bench_host(const bench_opts *opts);

/* bench_cl: ndx_cl_copy on the default OpenCL device against its copy
 * bandwidth and peers; writes bench-cl.csv, bench-cl-small.csv and
 * bench-cl.png into $NDX_BENCH_OUT (default: the current folder). */
int bench_cl(const bench_opts *opts);

/* bench_gpu_model: ndx-bench-cuda's copy cases through the gpu-shaped
 * kernels' bodies on the host, their memory requests by Nsight Compute's
 * measures (gpu_model.h); prints, returns 0. */
int bench_gpu_model(const bench_opts *opts);

#endif /* NDX_BENCH_H */
