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
 * --compare plans every copy case twice, with today's kernels and with the
 * reworks forced (NDX_CUDA_PLAN_NEW: transpose-32x8, warp-rows), times the
 * copy, today's and the rework back to back in each repetition, and prints
 * both ratios and the winner (what kernels/ndx_cuda_select.h should name);
 * a case the reworks do not reach says "same". Gathers and scatters are left
 * out there.
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

#include "../src/device/cuda_index_plan.h"
#include "../src/device/cuda_plan.h"
#include "../tests/oracle.h"
#include "ndx/ndx_cuda.h"

typedef struct bench_cuda_opts {
  int reps, inner;
  const char *csv, *only;
  int compare; /* today's kernels against the reworks */
} bench_cuda_opts;

typedef struct bcase {
  const char *name, *group;
  double target; /* ratio to reach (0: none) */
  int bits;
  ndx_layout dst, src;
} bcase;

#define MAX_CASES 40
static bcase cases[MAX_CASES];
static int ncases;

static void die(const char *what) {
  fprintf(stderr, "bench_cuda: %s: %s\n", what, ndx_last_error());
  exit(1);
}

static ndx_layout contig(int rank, const int64_t *shape) {
  ndx_layout l;
  if (ndx_contiguous(&l, rank, shape) != NDX_OK) die("ndx_contiguous");
  return l;
}

static bcase *add(const char *name, const char *group, double target, int bits) {
  if (ncases == MAX_CASES) {
    fprintf(stderr, "bench_cuda: too many cases\n");
    exit(1);
  }
  bcase *c = &cases[ncases++];
  c->name = name, c->group = group, c->target = target, c->bits = bits;
  return c;
}

/* dst contiguous `shape`; src the C-order tensor of the permuted shape, seen
 * through the inverse permutation (what x.permute(perm).contiguous() copies). */
static void add_permute(const char *name, const char *group, double target, int bits, int rank,
                        const int64_t *shape, const int32_t *perm) {
  bcase *c = add(name, group, target, bits);
  int64_t parent[NDX_MAX_RANK];
  int32_t inv[NDX_MAX_RANK];
  for (int a = 0; a < rank; a++) parent[a] = shape[perm[a]], inv[perm[a]] = a;
  ndx_layout p = contig(rank, parent);
  if (ndx_permute(&c->src, &p, inv) != NDX_OK) die("ndx_permute");
  c->dst = contig(rank, shape);
}

static void add_transpose(const char *name, const char *group, double target, int bits,
                          int64_t rows, int64_t cols) {
  int64_t s[2] = {rows, cols};
  int32_t t[2] = {1, 0};
  add_permute(name, group, target, bits, 2, s, t);
}

static void build_cases(void) {
  const int64_t M = 16777216; /* fp32 elements in 64 MiB */
  bcase *c;
  c = add("contiguous fp32 [16777216]", "contiguous", 0.95, 32);
  c->dst = c->src = contig(1, &M);
  {
    int64_t p[2] = {4096, 8192};
    ndx_range r[2] = {{0, 4096, 1}, {0, 4096, 2}};
    c = add("slice step 2 inner fp32 [4096,8192][:, ::2]", "slice", 0.85, 32);
    ndx_layout l = contig(2, p);
    if (ndx_slice(&c->src, &l, r) != NDX_OK) die("ndx_slice");
    c->dst = contig(2, c->src.shape);
  }
  {
    int64_t p[2] = {8192, 4096};
    ndx_range r[2] = {{0, 4096, 2}, {0, 4096, 1}};
    c = add("slice step 2 outer fp32 [8192,4096][::2]", "slice", 0.85, 32);
    ndx_layout l = contig(2, p);
    if (ndx_slice(&c->src, &l, r) != NDX_OK) die("ndx_slice");
    c->dst = contig(2, c->src.shape);
  }
  {
    int64_t p[3] = {256, 260, 260};
    ndx_range r[3] = {{0, 256, 1}, {2, 256, 1}, {3, 256, 1}};
    c = add("narrow 3-d fp32 [256,260,260][:, 2:258, 3:259]", "slice", 0.85, 32);
    ndx_layout l = contig(3, p);
    if (ndx_slice(&c->src, &l, r) != NDX_OK) die("ndx_slice");
    c->dst = contig(3, c->src.shape);
  }
  {
    int64_t row[2] = {1, 4096}, col[2] = {4096, 1}, full[2] = {4096, 4096};
    c = add("broadcast rows fp32 [1,4096] -> [4096,4096]", "broadcast", 0.85, 32);
    ndx_layout l = contig(2, row);
    if (ndx_broadcast(&c->src, &l, 2, full) != NDX_OK) die("ndx_broadcast");
    c->dst = contig(2, full);
    c = add("broadcast columns fp32 [4096,1] -> [4096,4096]", "broadcast", 0.85, 32);
    l = contig(2, col);
    if (ndx_broadcast(&c->src, &l, 2, full) != NDX_OK) die("ndx_broadcast");
    c->dst = contig(2, full);
  }
  {
    int64_t s[2] = {4096, 4096};
    ndx_layout l = contig(2, s);
    c = add("flip inner fp32 [4096,4096][:, ::-1]", "flip", 0.85, 32);
    if (ndx_flip(&c->src, &l, 1) != NDX_OK) die("ndx_flip");
    c->dst = l;
    c = add("flip outer fp32 [4096,4096][::-1]", "flip", 0.85, 32);
    if (ndx_flip(&c->src, &l, 0) != NDX_OK) die("ndx_flip");
    c->dst = l;
    c = add("flip 1-d fp32 [16777216][::-1]", "flip", 0.85, 32);
    ndx_layout v = contig(1, &M);
    if (ndx_flip(&c->src, &v, 0) != NDX_OK) die("ndx_flip");
    c->dst = v;
  }
  add_transpose("transpose fp32 4096x4096", "transpose fp32", 0.85, 32, 4096, 4096);
  add_transpose("transpose fp32 4000x3000", "transpose fp32", 0.85, 32, 4000, 3000);
  add_transpose("transpose fp32 3x1000003", "transpose fp32", 0.85, 32, 3, 1000003);
  add_transpose("transpose fp32 1000003x3", "transpose fp32", 0.85, 32, 1000003, 3);
  {
    int64_t s3[3] = {256, 256, 256};
    int32_t p3[3] = {2, 1, 0};
    add_permute("permute rank 3 fp32 [256]^3 (2,1,0)", "permute", 0.70, 32, 3, s3, p3);
    int32_t q3[3] = {1, 2, 0};
    add_permute("permute rank 3 fp32 [256]^3 (1,2,0)", "permute", 0.70, 32, 3, s3, q3);
    int64_t s4[4] = {64, 64, 64, 64};
    int32_t p4[4] = {0, 2, 3, 1};
    add_permute("permute rank 4 fp32 [64]^4 (0,2,3,1) NCHW->NHWC", "permute", 0.70, 32, 4, s4, p4);
    int32_t q4[4] = {3, 2, 1, 0};
    add_permute("permute rank 4 fp32 [64]^4 (3,2,1,0)", "permute", 0.70, 32, 4, s4, q4);
    int64_t s5[5] = {16, 32, 32, 32, 32};
    int32_t p5[5] = {4, 1, 3, 0, 2};
    add_permute("permute rank 5 fp32 [16,32,32,32,32] (4,1,3,0,2)", "permute", 0.70, 32, 5, s5, p5);
    int64_t s8[8] = {8, 8, 8, 8, 8, 8, 8, 8};
    int32_t p8[8] = {7, 6, 5, 4, 3, 2, 1, 0};
    add_permute("permute rank 8 fp32 [8]^8 reversed", "permute", 0.70, 32, 8, s8, p8);
    int32_t q8[8] = {1, 3, 5, 7, 0, 2, 4, 6};
    add_permute("permute rank 8 fp32 [8]^8 (1,3,5,7,0,2,4,6)", "permute", 0.70, 32, 8, s8, q8);
    int64_t o8[8] = {5, 7, 9, 11, 5, 7, 9, 11};
    int32_t r8[8] = {7, 1, 5, 3, 6, 0, 4, 2};
    add_permute("permute rank 8 fp32 [5,7,9,11,5,7,9,11] (7,1,5,3,6,0,4,2)", "permute", 0.70, 32, 8,
                o8, r8);
  }
  add_transpose("transpose 4-bit 8192x16384", "transpose sub-byte", 0.5, 4, 8192, 16384);
  add_transpose("transpose 4-bit 16384x8192", "transpose sub-byte", 0.5, 4, 16384, 8192);
  add_transpose("transpose 2-bit 16384x16384", "transpose sub-byte", 0, 2, 16384, 16384);
  add_transpose("transpose 1-bit 16384x32768", "transpose sub-byte", 0, 1, 16384, 32768);
  add_transpose("transpose 8-bit 8192x8192", "transpose 8/16-bit", 0.80, 8, 8192, 8192);
  add_transpose("transpose 16-bit 4096x8192", "transpose 8/16-bit", 0.80, 16, 4096, 8192);
  add_transpose("transpose 8-bit 8000x8000", "transpose 8/16-bit", 0.80, 8, 8000, 8000);
  add_transpose("transpose 16-bit 5000x6000", "transpose 8/16-bit", 0.80, 16, 5000, 6000);
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

typedef struct icase icase;

typedef struct timing_ctx {
  const ndx_cuda_plan *plan; /* NULL: cudaMemcpyAsync of `bytes`, or the call `ix` */
  void *dst;
  const void *src;
  size_t bytes;
  const icase *ix;
  const void *index;
} timing_ctx;

static void launch_index(const timing_ctx *t, cudaStream_t s);

static void launch(const timing_ctx *t, cudaStream_t s) {
  if (t->ix) {
    launch_index(t, s);
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
  double v[3][MAX_REPS], q[MAX_REPS];
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

/* ---- The section -------------------------------------------------------------- */

static size_t span_bytes(const ndx_layout *l, int bits) {
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  return (size_t)((hi * bits + 7) / 8);
}

/* ---- Gathers and scatters ------------------------------------------------------- */

/* One call: S = index's shape; values random in [0, d), or distinct
 * (`unique`: the first values of a random permutation of [0, d)). */
struct icase {
  const char *name, *group;
  double target;
  int bits, axis;
  bool scatter, unique;
  unsigned flags, internal;
  ndx_layout dst, src, index;
};

#define MAX_ICASES 8
static icase icases[MAX_ICASES];
static int nicases;

static icase *add_index(const char *name, double target, int bits, bool scatter, unsigned flags) {
  if (nicases == MAX_ICASES) {
    fprintf(stderr, "bench_cuda: too many index cases\n");
    exit(1);
  }
  icase *c = &icases[nicases++];
  *c = (icase){.name = name,
               .group = scatter ? "scatter" : "gather",
               .target = target,
               .bits = bits,
               .scatter = scatter,
               .flags = flags};
  return c;
}

/* A 1-d index of n broadcast along rows of `dim`: [n, dim], stride 0 inner. */
static ndx_layout row_index(int64_t n, int64_t dim) {
  ndx_layout ids = contig(1, &n), col, out;
  if (ndx_unsqueeze(&col, &ids, 1) != NDX_OK) die("ndx_unsqueeze");
  if (ndx_broadcast(&out, &col, 2, (int64_t[]){n, dim}) != NDX_OK) die("ndx_broadcast");
  return out;
}

/* Rows of a table picked by 32768 token ids: [vocab, dim] -> [32768, dim]. */
static void add_lookup(const char *name, double target, int bits, int64_t dim, unsigned internal) {
  icase *c = add_index(name, target, bits, false, 0);
  c->internal = internal;
  c->index = row_index(32768, dim);
  c->src = contig(2, (int64_t[]){65536, dim});
  c->dst = contig(2, (int64_t[]){32768, dim});
}

static void build_index_cases(void) {
  add_lookup("embedding fp32 [65536,256] by 32768 ids", 0.85, 32, 256, 0);
  add_lookup("embedding 4-bit [65536,512] by 32768 ids", 0.60, 4, 512, 0);
  add_lookup("embedding fp32, check kernel skipped", 0, 32, 256, NDX_CUDA_INDEX_SKIP_CHECK);
  icase *c = add_index("take_along_axis fp32 [4096,4096] inner", 0.30, 32, false, 0);
  c->axis = 1;
  c->dst = c->src = c->index = contig(2, (int64_t[]){4096, 4096});
  for (int u = 0; u < 2; u++) {
    c = add_index(u ? "scatter rows fp32 32768 of 256 into 65536, UNIQUE"
                    : "scatter rows fp32 32768 of 256 into 65536",
                  u ? 0.85 : 0.50, 32, true, u ? NDX_INDEX_UNIQUE : 0);
    c->unique = true;
    c->index = row_index(32768, 256);
    c->src = contig(2, (int64_t[]){32768, 256});
    c->dst = contig(2, (int64_t[]){65536, 256});
  }
}

static void launch_index(const timing_ctx *t, cudaStream_t s) {
  const icase *c = t->ix;
  if (ndx_cuda_index_flags(c->scatter, c->internal, s, t->dst, &c->dst, t->src, &c->src, c->axis,
                           t->index, &c->index, 32, c->flags, c->bits) != NDX_OK)
    die(c->name);
}

/* The index values at every position of the index's span (int32). */
static int32_t *index_values(const icase *c, size_t n) {
  int64_t d = (c->scatter ? &c->dst : &c->src)->shape[c->axis];
  int32_t *v = (int32_t *)malloc(n * sizeof *v),
          *perm = c->unique ? malloc(d * sizeof *perm) : NULL;
  if (!v || (c->unique && !perm)) {
    fprintf(stderr, "bench_cuda: out of host memory\n");
    exit(1);
  }
  oracle_rng r = {7};
  for (int64_t k = 0; c->unique && k < d; k++) perm[k] = (int32_t)k;
  for (int64_t k = d - 1; c->unique && k > 0; k--) {
    int64_t u = oracle_between(&r, 0, k);
    int32_t w = perm[k];
    perm[k] = perm[u];
    perm[u] = w;
  }
  for (size_t k = 0; k < n; k++)
    v[k] = c->unique ? perm[k % (size_t)d] : (int32_t)oracle_between(&r, 0, d - 1);
  free(perm);
  return v;
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
    int32_t *ix = index_values(c, ni);
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
    timing_ctx t[2] = {{NULL, dd, ds, half < room ? half : room, NULL, NULL},
                       {NULL, dd, ds, moved, c, di}};
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
    const char *kernels =
        c->internal & NDX_CUDA_INDEX_SKIP_CHECK ? "index-copy" : "index-check+index-copy";
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

/* Launches `plan` once into a cleared destination; the sampled elements
 * that differ from the definition. */
static int check_plan(const bcase *c, const ndx_cuda_plan *plan, cudaStream_t stream,
                      const bench_bufs *b) {
  CHECK(cudaMemset(b->dd, 0, b->dmax));
  if (ndx_cuda_plan_launch(plan, stream, b->dd, b->ds) != NDX_OK) die(c->name);
  CHECK(cudaMemcpy(b->hd, b->dd, span_bytes(&c->dst, c->bits), cudaMemcpyDeviceToHost));
  return check_sample(c, b->hd, b->hs);
}

/* Times one copy case (with --compare, today's kernels and the reworks)
 * back to back with the ceiling; prints its line and adds to the counts. */
static void run_copy_case(const bcase *c, const bench_cuda_opts *o, cudaStream_t stream,
                          const bench_bufs *b, FILE *csv, int *below, int *wrong) {
  ndx_cuda_plan *plan[2] = {NULL, NULL};
  char kernels[2][64];
  int nplans = 1;
  if (ndx_cuda_plan_create_flags(&plan[0], &c->dst, &c->src, c->bits, 0) != NDX_OK) die(c->name);
  kernel_names(plan[0], b, kernels[0], sizeof kernels[0]);
  if (o->compare) {
    if (ndx_cuda_plan_create_flags(&plan[1], &c->dst, &c->src, c->bits, NDX_CUDA_PLAN_NEW) !=
        NDX_OK)
      die(c->name);
    kernel_names(plan[1], b, kernels[1], sizeof kernels[1]);
    nplans = strcmp(kernels[0], kernels[1]) ? 2 : 1;
  }
  size_t bytes = (size_t)((ndx_numel(&c->dst) * c->bits + 7) / 8);
  timing_ctx t[3] = {{NULL, b->dd, b->ds, bytes, NULL, NULL},
                     {plan[0], b->dd, b->ds, bytes, NULL, NULL},
                     {plan[1], b->dd, b->ds, bytes, NULL, NULL}};
  double ms[3], ratio[3];
  time_back_to_back(t, 1 + nplans, o, stream, ms, ratio);
  int bad = 0;
  for (int k = 0; k < nplans; k++) bad += check_plan(c, plan[k], stream, b);
  *wrong += bad > 0;
  double best = nplans == 2 && ratio[2] > ratio[1] ? ratio[2] : ratio[1];
  bool low = c->target > 0 && best < c->target;
  *below += low;
  char target[16] = "";
  if (c->target > 0) snprintf(target, sizeof target, "%.2f%s", c->target, low ? " LOW" : "");
  const char *path = ndx_cuda_plan_path(plan[0]);
  if (o->compare) {
    const char *winner = nplans == 1 ? "same" : ratio[2] > ratio[1] ? "new" : "today";
    char r2[16] = "-";
    if (nplans == 2) snprintf(r2, sizeof r2, "%.2f", ratio[2]);
    printf("%-52s %-9s %-22s %6.2f %-22s %6s %-7s %6s%s\n", c->name, path, kernels[0], ratio[1],
           nplans == 2 ? kernels[1] : "-", r2, winner, target, bad ? "  WRONG RESULT" : "");
    if (csv)
      fprintf(csv, "\"%s\",%s,%d,%s,%s,%.4f,%s,%s,%s,%.2f,%d\n", c->name, c->group, c->bits, path,
              kernels[0], ratio[1], nplans == 2 ? kernels[1] : "", nplans == 2 ? r2 : "", winner,
              c->target, bad);
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
  build_cases();
  size_t dmax = 0, smax = 0;
  for (int i = 0; i < ncases; i++) {
    size_t d = span_bytes(&cases[i].dst, cases[i].bits),
           s = span_bytes(&cases[i].src, cases[i].bits);
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
    fprintf(csv, "case,group,bits,path,kernels,ratio,new_kernels,new_ratio,winner,target,"
                 "sample_errors\n");
  else if (csv)
    fprintf(csv, "case,group,bits,path,kernels,bytes,ms,gbps,memcpy_ms,memcpy_gbps,ratio,target,"
                 "sample_errors\n");
  printf("ndx-bench cuda: %s (sm_%d%d, %d SMs), %d x %d launches per case, median of the "
         "repetitions' ratios%s\n",
         prop.name, prop.major, prop.minor, prop.multiProcessorCount, o->reps, o->inner,
         o->compare ? "; today's kernels against the reworks (NDX_CUDA_PLAN_NEW)" : "");
  if (o->compare)
    printf("%-52s %-9s %-22s %6s %-22s %6s %-7s %6s\n", "case", "path", "kernels", "ratio",
           "new kernels", "ratio", "winner", "target");
  else
    printf("%-52s %-9s %-22s %8s %8s %8s %6s %6s\n", "case", "path", "kernels", "MiB", "GB/s",
           "copy", "ratio", "target");
  int below = 0, wrong = 0, ran = 0;
  bench_bufs b = {dd, ds, hd, hs, dmax};
  for (int i = 0; i < ncases; i++) {
    if (o->only && !strstr(cases[i].name, o->only)) continue;
    run_copy_case(&cases[i], o, stream, &b, csv, &below, &wrong);
    ran++;
  }
  if (o->compare)
    printf("bench_cuda: gathers and scatters left out (no rework of their kernels)\n");
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
