/* bench_cuda.c: the CUDA section of ndx-bench: ndx_cuda copies against the
 * device's own copy.
 *
 * For each case (the speed cases: contiguous, slices, narrow rows,
 * broadcasts, flips, 2-d fp32 transposes, permutations of rank 3 to 8,
 * transposes of 1 to 16 bits), up to 64 MiB per tensor: a plan is made once,
 * launched twice for a warm-up, then timed with CUDA events over `reps`
 * repetitions; each repetition times `inner` launches of a cudaMemcpyAsync
 * device-to-device of the same number of bytes and right after `inner`
 * launches of the plan, so ratio = memcpy time / ndx time of that
 * repetition (1.0 is the device's copy speed), and the ratio printed is the
 * median of the repetitions' ratios: one noisy moment does not decide it.
 * The times printed are the medians of each. GB/s counts the destination's
 * bytes once, as for the copy. A sample of elements of each result is
 * checked against the host definition.
 *
 * --compare is the tuning tool of kernels/ndx_cuda_select.h: it plans every
 * copy case three times, with the selection table's kernels, with the first
 * candidate kernel that runs in the case (transpose-32x8, then warp-rows,
 * planned by name: ndx_cuda_plan_create_kernel) and for the gpu-shaped
 * kernels that OpenCL's gpu shape runs (src/device/cuda_gpu.h), times the
 * copy and each back to back in each repetition, and prints the ratios and
 * the winner (what the table should name: "table", "candidate", "gpu" when
 * the gpu-shaped kernels win, "same" when no candidate runs in the case,
 * which then has no candidate column). Gathers and scatters are left out
 * there.
 *
 * The conversion cases (ndx_cuda_convert: those of ndx-bench --cl,
 * bench/bench_cl_convert.c, an f32 source's values finite and normal as a
 * model's are) are timed the same way against a cudaMemcpyAsync of the
 * wider side's bytes: a conversion moves the source's bytes read plus the
 * destination's written, a copy of n bytes moves 2n, and the ratio is the
 * conversion's bytes a second over the copy's. Their elements are checked
 * against the host reference (tests/convert_ref.h). --compare leaves them
 * out.
 *
 * Then the gathers and scatters (ndx_cuda_gather, ndx_cuda_scatter: the
 * embedding lookup of an fp32 and a 4-bit table, take_along_axis on the
 * inner axis, KV-cache row writes with and without NDX_INDEX_UNIQUE, and the
 * lookup with its check kernel skipped, to show what the check costs),
 * timed the same way against a cudaMemcpyAsync that moves as many bytes:
 * a gather or scatter moves the bytes it writes plus those it reads from
 * src and the index, a copy of n bytes moves 2n, so the ceiling copies half
 * the call's bytes. GB/s counts the call's bytes moved. Each call's
 * ndx_cuda_check must be NDX_OK and 2000 sampled elements must match.
 *
 * Prints a table; writes CSV to --csv PATH. Built as ndx-bench-cuda (meson,
 * ci/gpu); `int bench_cuda(const bench_opts *)` is the section entry when
 * linked into ndx-bench. With no device it says so and returns 0.
 *
 * Usage: ndx-bench-cuda [--quick] [--compare] [--reps N] [--csv PATH] [--only SUBSTRING] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../src/device/cuda_convert_plan.h"
#include "../src/device/cuda_index_plan.h"
#include "../src/device/cuda_gpu.h"
#include "../src/device/cuda_plan.h"
#include "../src/host/launch.h"
#include "../tests/convert_ref.h"
#include "../tests/oracle.h"
#include "fill_random.h"
#include "gpu_cases.h"
#include "ndx/ndx_cuda.h"

typedef struct bench_cuda_opts {
  int reps, inner;
  const char *csv, *only;
  int compare; /* the selection table's kernels against the candidates */
} bench_cuda_opts;

typedef gpu_case bcase;

#define MAX_CASES 48 /* as ndx-bench --gpu-model holds them */
static bcase cases[MAX_CASES];
static int ncases;

static void die(const char *what) {
  fprintf(stderr, "bench_cuda: %s: %s\n", what, ndx_last_error());
  exit(1);
}

/* ---- Timing ------------------------------------------------------------------- */

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "bench_cuda: %s: %s (%s)\n", #call, cudaGetErrorName(e_),                    \
              cudaGetErrorString(e_));                                                             \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef gpu_index_case icase;

typedef struct timing_ctx {
  /* NULL: cudaMemcpyAsync of `bytes`, `gpu`, the call `ix` or the conversion `conv` */
  const ndx_cuda_plan *plan;
  const ndx_cuda_gpu_plan *gpu;
  void *dst;
  const void *src;
  size_t bytes;
  const icase *ix;
  const void *index;
  const bcase *conv;
} timing_ctx;

static void launch_index(const timing_ctx *t, cudaStream_t s);

static void launch(const timing_ctx *t, cudaStream_t s) {
  if (t->ix) {
    launch_index(t, s);
  } else if (t->conv) {
    const bcase *c = t->conv;
    if (ndx_cuda_convert(s, t->dst, &c->dst, c->dst_t, t->src, &c->src, c->src_t) != NDX_OK)
      die("ndx_cuda_convert");
  } else if (t->gpu) {
    if (ndx_cuda_gpu_plan_launch(t->gpu, s, t->dst, t->src) != NDX_OK)
      die("ndx_cuda_gpu_plan_launch");
  } else if (!t->plan) {
    CHECK(cudaMemcpyAsync(t->dst, t->src, t->bytes, cudaMemcpyDeviceToDevice, s));
  } else if (ndx_cuda_plan_launch(t->plan, s, t->dst, t->src) != NDX_OK) {
    die("ndx_cuda_plan_launch");
  }
}

#define MAX_REPS 64

/* The median of v[0 .. n-1] (reordered). */
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof v[0], cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Times t[0 .. n-1] back to back: 2 warm-up launches of each, then `reps`
 * repetitions, each timing `inner` launches of t[0], then of t[1], ...
 * between two events. ms[k] is the median milliseconds per launch of t[k];
 * ratio[k] the median over repetitions of t[0]'s time / t[k]'s (ratio[0]
 * is 1). */
static void time_back_to_back(const timing_ctx *t, int n, const bench_cuda_opts *o, cudaStream_t s,
                              double *ms, double *ratio) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int k = 0; k < n; k++)
    for (int i = 0; i < 2; i++) launch(&t[k], s);
  CHECK(cudaStreamSynchronize(s));
  double v[4][MAX_REPS], q[MAX_REPS];
  int reps = o->reps < MAX_REPS ? o->reps : MAX_REPS;
  for (int r = 0; r < reps; r++)
    for (int k = 0; k < n; k++) {
      CHECK(cudaEventRecord(a, s));
      for (int i = 0; i < o->inner; i++) launch(&t[k], s);
      CHECK(cudaEventRecord(b, s));
      CHECK(cudaEventSynchronize(b));
      float e;
      CHECK(cudaEventElapsedTime(&e, a, b));
      v[k][r] = e / o->inner;
    }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  for (int k = 0; k < n; k++) {
    for (int r = 0; r < reps; r++) q[r] = v[0][r] / v[k][r];
    ratio[k] = median(q, reps);
  }
  for (int k = 0; k < n; k++) ms[k] = median(v[k], reps);
}

/* ---- Checking a sample ------------------------------------------------------- */

/* Compares 2000 random elements (and the first and last) of the result with
 * the source (oracle.h's reference); returns the number that differ. */
static int check_sample(const bcase *c, const uint8_t *hdst, const uint8_t *hsrc) {
  oracle_rng r = {12345};
  int64_t n = ndx_numel(&c->dst);
  int bad = 0;
  for (int k = 0; k < 2002 && n > 0; k++) {
    int64_t i = k == 0 ? 0 : k == 1 ? n - 1 : oracle_between(&r, 0, n - 1);
    int64_t pd = oracle_position_of(&c->dst, i), ps = oracle_position_of(&c->src, i);
    bad += !oracle_same_element(hdst, pd, hsrc, ps, c->bits);
  }
  return bad;
}

/* Conversion case c's 2000 random elements (and the first and last)
 * against the host reference's conversion of the source's; returns the
 * number that differ. */
static int check_convert_sample(const bcase *c, const uint8_t *hdst, const uint8_t *hsrc) {
  oracle_rng r = {12345};
  int64_t n = ndx_numel(&c->dst);
  int bad = 0, sb = gpu_case_src_bits(c);
  for (int k = 0; k < 2002 && n > 0; k++) {
    int64_t i = k == 0 ? 0 : k == 1 ? n - 1 : oracle_between(&r, 0, n - 1);
    int64_t pd = oracle_position_of(&c->dst, i), ps = oracle_position_of(&c->src, i);
    uint64_t want = ref_convert(ref_load(hsrc, ps, sb), c->src_t, c->dst_t);
    bad += ref_load(hdst, pd, c->bits) != want;
  }
  return bad;
}

/* ---- The section -------------------------------------------------------------- */

static size_t span_bytes(const ndx_layout *l, int bits) {
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  return (size_t)((hi * bits + 7) / 8);
}

/* ---- Gathers and scatters ------------------------------------------------------- */

/* The cases (gpu_cases.h, shared with ndx-bench --gpu-model). */
#define MAX_ICASES 8
static icase icases[MAX_ICASES];
static int nicases;

static void build_index_cases(void) {
  nicases = gpu_index_cases(icases, MAX_ICASES);
}

static void launch_index(const timing_ctx *t, cudaStream_t s) {
  const icase *c = t->ix;
  unsigned internal = c->skip_check ? NDX_CUDA_INDEX_SKIP_CHECK : 0u;
  if (ndx_cuda_index_flags(c->scatter, internal, s, t->dst, &c->dst, t->src, &c->src, c->axis,
                           t->index, &c->index, 32, c->flags, c->bits) != NDX_OK)
    die(c->name);
}

/* 2000 random elements of S (and the first and last) against the
 * definition; the number that differ. */
static int check_index_sample(const icase *c, const uint8_t *hdst, const uint8_t *hsrc,
                              const int32_t *ix) {
  oracle_rng r = {12345};
  int64_t n = ndx_numel(&c->index), at[NDX_MAX_RANK];
  const ndx_layout *same = c->scatter ? &c->src : &c->dst, *other = c->scatter ? &c->dst : &c->src;
  int bad = 0;
  for (int k = 0; k < 2002 && n > 0; k++) {
    int64_t i = k == 0 ? 0 : k == 1 ? n - 1 : oracle_between(&r, 0, n - 1);
    oracle_unravel(c->index.rank, c->index.shape, i, at);
    int64_t v = ix[oracle_position(&c->index, at)], ps = oracle_position(same, at);
    at[c->axis] = v;
    int64_t po = oracle_position(other, at);
    bad += c->scatter ? !oracle_same_element(hdst, po, hsrc, ps, c->bits)
                      : !oracle_same_element(hdst, ps, hsrc, po, c->bits);
  }
  return bad;
}

/* Times every index case (as the copies: the ceiling right before); adds to
 * the counts; returns the cases run. */
static int run_index_cases(const bench_cuda_opts *o, cudaStream_t stream, FILE *csv, int *below,
                           int *wrong) {
  int ran = 0;
  build_index_cases();
  for (int i = 0; i < nicases; i++) {
    const icase *c = &icases[i];
    if (o->only && !strstr(c->name, o->only)) continue;
    size_t nd = span_bytes(&c->dst, c->bits), ns = span_bytes(&c->src, c->bits);
    size_t ni = span_bytes(&c->index, 32) / 4;
    uint8_t *hd = malloc(nd), *hs = malloc(ns), *dd, *ds, *di;
    int32_t *ix = gpu_index_values(c, ni, "bench_cuda");
    if (!hd || !hs) {
      fprintf(stderr, "bench_cuda: out of host memory\n");
      exit(1);
    }
    oracle_rng r = {3};
    for (size_t k = 0; k < ns; k++) hs[k] = (uint8_t)oracle_next(&r);
    CHECK(cudaMalloc((void **)&dd, nd));
    CHECK(cudaMalloc((void **)&ds, ns));
    CHECK(cudaMalloc((void **)&di, ni * 4));
    CHECK(cudaMemcpy(ds, hs, ns, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(di, ix, ni * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dd, 0, nd));
    int64_t n = ndx_numel(&c->index);
    size_t moved = (size_t)(2 * ((n * c->bits + 7) / 8)) + ni * 4;
    /* the ceiling copies half the bytes moved, src to dst (both buffers
     * bound it; the ratio compares rates) */
    size_t half = moved / 2, room = nd < ns ? nd : ns;
    timing_ctx t[2] = {{.dst = dd, .src = ds, .bytes = half < room ? half : room},
                       {.dst = dd, .src = ds, .bytes = moved, .ix = c, .index = di}};
    double copied = (double)t[0].bytes * 2, ms2[2], r2[2];
    time_back_to_back(t, 2, o, stream, ms2, r2);
    double ms_copy = ms2[0], ms = ms2[1];
    CHECK(cudaMemset(dd, 0, nd));
    launch(&t[1], stream);
    if (ndx_cuda_check(stream) != NDX_OK) die(c->name);
    CHECK(cudaMemcpy(hd, dd, nd, cudaMemcpyDeviceToHost));
    int bad = check_index_sample(c, hd, hs, ix);
    *wrong += bad > 0;
    ran++;
    double gbps = moved / ms / 1e6, copy_gbps = copied / ms_copy / 1e6;
    double ratio = r2[1] * moved / copied;
    bool low = c->target > 0 && ratio < c->target;
    *below += low;
    char target[16] = "";
    if (c->target > 0) snprintf(target, sizeof target, "%.2f%s", c->target, low ? " LOW" : "");
    const char *kernels = c->skip_check ? "index-copy" : "index-check+index-copy";
    printf("%-52s %-9s %-22s %8.1f %8.0f %8.0f %6.2f %6s%s\n", c->name, c->group, kernels,
           moved / 1048576.0, gbps, copy_gbps, ratio, target, bad ? "  WRONG RESULT" : "");
    fflush(stdout);
    if (csv)
      fprintf(csv, "\"%s\",%s,%d,%s,%s,%zu,%.5f,%.1f,%.5f,%.1f,%.4f,%.2f,%d\n", c->name, c->group,
              c->bits, c->group, kernels, moved, ms, gbps, ms_copy, copy_gbps, ratio, c->target,
              bad);
    cudaFree(dd);
    cudaFree(ds);
    cudaFree(di);
    free(hd);
    free(hs);
    free(ix);
  }
  return ran;
}

/* The device and host buffers every copy case uses. */
typedef struct bench_bufs {
  uint8_t *dd, *ds, *hd, *hs;
  size_t dmax;
} bench_bufs;

/* The kernels a plan runs for these buffers, '+'-joined. */
static void kernel_names(const ndx_cuda_plan *plan, const bench_bufs *b, char *out, size_t size) {
  ndx_cuda_step steps[NDX_CUDA_MAX_STEPS];
  int n = ndx_cuda_plan_steps(plan, (uintptr_t)b->dd, (uintptr_t)b->ds, steps);
  out[0] = 0;
  for (int k = 0; k < n; k++)
    snprintf(out + strlen(out), size - strlen(out), "%s%s", k ? "+" : "",
             ndx_cuda_step_name(&steps[k]));
}

/* Launches `t` (a plan of either kind) once into a cleared destination;
 * the sampled elements that differ from the definition. */
static int check_launch(const bcase *c, const timing_ctx *t, cudaStream_t stream,
                        const bench_bufs *b) {
  CHECK(cudaMemset(b->dd, 0, b->dmax));
  launch(t, stream);
  CHECK(cudaMemcpy(b->hd, b->dd, span_bytes(&c->dst, c->bits), cudaMemcpyDeviceToHost));
  return check_sample(c, b->hd, b->hs);
}

/* Times one copy case (with --compare, the selection table's kernels, a
 * candidate and the gpu-shaped kernels of kernels/ndx_copy_gpu.h) back to
 * back with the ceiling; prints its line and adds to the counts. */
static void run_copy_case(const bcase *c, const bench_cuda_opts *o, cudaStream_t stream,
                          const bench_bufs *b, FILE *csv, int *below, int *wrong) {
  ndx_cuda_plan *plan[2] = {NULL, NULL};
  ndx_cuda_gpu_plan *gpu = NULL;
  char kernels[2][64];
  int nplans = 1;
  if (ndx_cuda_plan_create_flags(&plan[0], &c->dst, &c->src, c->bits, 0) != NDX_OK) die(c->name);
  kernel_names(plan[0], b, kernels[0], sizeof kernels[0]);
  if (o->compare) {
    static const int candidates[] = {NDX_CUDA_TRANSPOSE_32X8, NDX_CUDA_WARP_ROWS};
    for (int k = 0; k < 2 && nplans == 1; k++) {
      if (ndx_cuda_plan_create_kernel(&plan[1], &c->dst, &c->src, c->bits, 0, candidates[k]) !=
          NDX_OK)
        die(c->name);
      kernel_names(plan[1], b, kernels[1], sizeof kernels[1]);
      nplans = strcmp(kernels[0], kernels[1]) ? 2 : 1;
      if (nplans == 1) {
        ndx_cuda_plan_destroy(plan[1]);
        plan[1] = NULL;
      }
    }
    if (ndx_cuda_gpu_plan_create(&gpu, &c->dst, &c->src, c->bits) != NDX_OK) die(c->name);
  }
  size_t bytes = (size_t)((ndx_numel(&c->dst) * c->bits + 7) / 8);
  timing_ctx t[4] = {{.dst = b->dd, .src = b->ds, .bytes = bytes},
                     {.plan = plan[0], .dst = b->dd, .src = b->ds, .bytes = bytes},
                     {.plan = plan[nplans - 1], .dst = b->dd, .src = b->ds, .bytes = bytes},
                     {.gpu = gpu, .dst = b->dd, .src = b->ds, .bytes = bytes}};
  if (gpu && nplans == 1) t[2] = t[3]; /* the gpu shape third, without a candidate */
  int timed = 1 + nplans + (gpu != NULL);
  double ms[4], ratio[4];
  time_back_to_back(t, timed, o, stream, ms, ratio);
  double gpu_ratio = gpu ? ratio[timed - 1] : 0;
  int bad = 0;
  for (int k = 1; k < timed; k++) bad += check_launch(c, &t[k], stream, b);
  *wrong += bad > 0;
  double best = nplans == 2 && ratio[2] > ratio[1] ? ratio[2] : ratio[1];
  bool low = c->target > 0 && best < c->target;
  *below += low;
  char target[16] = "";
  if (c->target > 0) snprintf(target, sizeof target, "%.2f%s", c->target, low ? " LOW" : "");
  const char *path = ndx_cuda_plan_path(plan[0]);
  if (o->compare) {
    double top = nplans == 2 && ratio[2] > ratio[1] ? ratio[2] : ratio[1];
    const char *winner = gpu_ratio > top       ? "gpu"
                         : nplans == 1         ? "same"
                         : ratio[2] > ratio[1] ? "candidate"
                                               : "table";
    char r2[16] = "-";
    if (nplans == 2) snprintf(r2, sizeof r2, "%.2f", ratio[2]);
    printf("%-52s %-9s %-22s %6.2f %-22s %6s %-9s %6.2f %-9s %6s%s\n", c->name, path, kernels[0],
           ratio[1], nplans == 2 ? kernels[1] : "-", r2, ndx_cuda_gpu_plan_path(gpu), gpu_ratio,
           winner, target, bad ? "  WRONG RESULT" : "");
    if (csv)
      fprintf(csv, "\"%s\",%s,%d,%s,%s,%.4f,%s,%s,%s,%.4f,%s,%.2f,%d\n", c->name, c->group, c->bits,
              path, kernels[0], ratio[1], nplans == 2 ? kernels[1] : "", nplans == 2 ? r2 : "",
              ndx_cuda_gpu_plan_path(gpu), gpu_ratio, winner, c->target, bad);
  } else {
    double gbps = bytes / ms[1] / 1e6, copy_gbps = bytes / ms[0] / 1e6;
    printf("%-52s %-9s %-22s %8.1f %8.0f %8.0f %6.2f %6s%s\n", c->name, path, kernels[0],
           bytes / 1048576.0, gbps, copy_gbps, ratio[1], target, bad ? "  WRONG RESULT" : "");
    if (csv)
      fprintf(csv, "\"%s\",%s,%d,%s,%s,%zu,%.5f,%.1f,%.5f,%.1f,%.4f,%.2f,%d\n", c->name, c->group,
              c->bits, path, kernels[0], bytes, ms[1], gbps, ms[0], copy_gbps, ratio[1], c->target,
              bad);
  }
  fflush(stdout);
  for (int k = 0; k < 2; k++) ndx_cuda_plan_destroy(plan[k]);
  ndx_cuda_gpu_plan_destroy(gpu);
}

/* Times one conversion case back to back with a cudaMemcpyAsync of its
 * wider side's bytes; prints its line and adds to the counts. An f32
 * source takes random finite normal values first, as ndx-bench --cl's do
 * (fill_random_f32, in b->hs and on the device alike). */
static void run_convert_case(const bcase *c, const bench_cuda_opts *o, cudaStream_t stream,
                             const bench_bufs *b, FILE *csv, int *below, int *wrong) {
  int sb = gpu_case_src_bits(c);
  size_t ns = span_bytes(&c->src, sb), nd = span_bytes(&c->dst, c->bits);
  if (c->src_t == NDX_F32) {
    fill_random_f32(b->hs, ns, (uint64_t)(uintptr_t)c + 7);
    CHECK(cudaMemcpy(b->ds, b->hs, ns, cudaMemcpyHostToDevice));
  }
  ndx_cuda_convert_launch plan;
  if (ndx_cuda_convert_fill(&plan, c->name, &c->dst, c->bits, &c->src, gpu_case_src_bits(c), 0,
                            16) != NDX_OK) /* cudaMalloc's buffers */
    die(c->name);
  const char *kernel = plan.family == NDX_CONVERT_TRANSPOSE ? "convert-transpose"
                       : plan.family == NDX_CONVERT_BYTES   ? "convert-bytes"
                                                            : "convert-elements";
  int64_t n = ndx_numel(&c->dst);
  size_t read = (size_t)((n * sb + 7) / 8), written = (size_t)((n * c->bits + 7) / 8);
  size_t moved = read + written, copied = read > written ? read : written;
  timing_ctx t[2] = {{.dst = b->dd, .src = b->ds, .bytes = copied},
                     {.conv = c, .dst = b->dd, .src = b->ds}};
  double ms[2], ratio[2];
  time_back_to_back(t, 2, o, stream, ms, ratio);
  CHECK(cudaMemset(b->dd, 0, b->dmax));
  launch(&t[1], stream);
  CHECK(cudaMemcpy(b->hd, b->dd, nd, cudaMemcpyDeviceToHost));
  int bad = check_convert_sample(c, b->hd, b->hs);
  *wrong += bad > 0;
  /* a copy of `copied` bytes moves twice as many */
  double r = ratio[1] * (double)moved / (2.0 * (double)copied);
  bool low = c->target > 0 && r < c->target;
  *below += low;
  char target[16] = "";
  if (c->target > 0) snprintf(target, sizeof target, "%.2f%s", c->target, low ? " LOW" : "");
  double gbps = moved / ms[1] / 1e6, copy_gbps = 2.0 * copied / ms[0] / 1e6;
  printf("%-52s %-9s %-22s %8.1f %8.0f %8.0f %6.2f %6s%s\n", c->name, "convert", kernel,
         moved / 1048576.0, gbps, copy_gbps, r, target, bad ? "  WRONG RESULT" : "");
  if (csv)
    fprintf(csv, "\"%s\",%s,%d,%s,%s,%zu,%.5f,%.1f,%.5f,%.1f,%.4f,%.2f,%d\n", c->name, c->group,
            c->bits, "convert", kernel, moved, ms[1], gbps, ms[0], copy_gbps, r, c->target, bad);
  fflush(stdout);
}

int bench_cuda_run(const bench_cuda_opts *o) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    printf("bench_cuda: skipped: no CUDA device (cudaGetDeviceCount: %s, %d devices)\n",
           cudaGetErrorName(e), count);
    return 0;
  }
  struct cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  ncases = gpu_cases(cases, MAX_CASES);
  size_t dmax = 0, smax = 0;
  for (int i = 0; i < ncases; i++) {
    size_t d = span_bytes(&cases[i].dst, cases[i].bits),
           s = span_bytes(&cases[i].src, gpu_case_src_bits(&cases[i]));
    dmax = d > dmax ? d : dmax;
    smax = s > smax ? s : smax;
  }
  uint8_t *dd, *ds, *hd = (uint8_t *)malloc(dmax), *hs = (uint8_t *)malloc(smax);
  if (!hd || !hs) {
    fprintf(stderr, "bench_cuda: out of host memory\n");
    return 1;
  }
  CHECK(cudaMalloc((void **)&dd, dmax));
  CHECK(cudaMalloc((void **)&ds, smax));
  oracle_rng r = {1};
  for (size_t i = 0; i < smax; i += 8) {
    uint64_t v = oracle_next(&r);
    memcpy(hs + i, &v, smax - i < 8 ? smax - i : 8);
  }
  CHECK(cudaMemcpy(ds, hs, smax, cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  FILE *csv = o->csv ? fopen(o->csv, "w") : NULL;
  if (o->csv && !csv) fprintf(stderr, "bench_cuda: cannot write %s\n", o->csv);
  if (csv && o->compare)
    fprintf(csv, "case,group,bits,path,kernels,ratio,candidate_kernels,candidate_ratio,gpu_path,"
                 "gpu_ratio,winner,target,sample_errors\n");
  else if (csv)
    fprintf(csv, "case,group,bits,path,kernels,bytes,ms,gbps,memcpy_ms,memcpy_gbps,ratio,target,"
                 "sample_errors\n");
  printf("ndx-bench cuda: %s (sm_%d%d, %d SMs), %d x %d launches per case, median of the "
         "repetitions' ratios%s\n",
         prop.name, prop.major, prop.minor, prop.multiProcessorCount, o->reps, o->inner,
         o->compare ? "; the selection table's kernels against the candidates" : "");
  if (o->compare)
    printf("%-52s %-9s %-22s %6s %-22s %6s %-9s %6s %-9s %6s\n", "case", "path", "kernels", "ratio",
           "candidate", "ratio", "gpu shape", "ratio", "winner", "target");
  else
    printf("%-52s %-9s %-22s %8s %8s %8s %6s %6s\n", "case", "path", "kernels", "MiB", "GB/s",
           "copy", "ratio", "target");
  int below = 0, wrong = 0, ran = 0;
  bench_bufs b = {dd, ds, hd, hs, dmax};
  for (int i = 0; i < ncases; i++) {
    if (o->only && !strstr(cases[i].name, o->only)) continue;
    if (cases[i].convert && o->compare) continue;
    if (cases[i].convert)
      run_convert_case(&cases[i], o, stream, &b, csv, &below, &wrong);
    else
      run_copy_case(&cases[i], o, stream, &b, csv, &below, &wrong);
    ran++;
  }
  if (o->compare)
    printf("bench_cuda: conversions, gathers and scatters left out (no candidate for their "
           "kernels)\n");
  else
    ran += run_index_cases(o, stream, csv, &below, &wrong);
  if (csv) fclose(csv);
  printf("bench_cuda: %d cases, %d below target, %d with wrong sampled elements%s%s\n", ran, below,
         wrong, o->csv ? "; CSV in " : "", o->csv ? o->csv : "");
  CHECK(cudaStreamDestroy(stream));
  cudaFree(dd);
  cudaFree(ds);
  free(hd);
  free(hs);
  return wrong ? 1 : 0;
}

#ifdef NDX_BENCH_CUDA_MAIN
int main(int argc, char **argv) {
  bench_cuda_opts o = {15, 5, NULL, NULL, 0};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) {
      o.reps = 3, o.inner = 1;
    } else if (!strcmp(argv[i], "--compare")) {
      o.compare = 1;
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      o.reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
      o.csv = argv[++i];
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      o.only = argv[++i];
    } else {
      fprintf(stderr,
              "usage: %s [--quick] [--compare] [--reps N] [--csv PATH] [--only SUBSTRING]\n",
              argv[0]);
      return 2;
    }
  }
  if (o.reps < 1) o.reps = 1;
  return bench_cuda_run(&o);
}
#endif
