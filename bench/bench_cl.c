/* bench_cl.c: `ndx-bench --cl`: how fast ndx_cl_copy moves bytes on the
 * default OpenCL device, against the device's own copy bandwidth and peers.
 *
 * One process, one context, one in-order queue; every figure is measured in
 * this run. A figure is the host wall clock around enqueueing n copies and one
 * clFinish (PoCL's profiling events are checked once and printed, not used),
 * n sized by a warm-up as bench_time's (discarded), reported as the median of
 * the timed repetitions, in GB/s of bytes read plus bytes written (2 *
 * elements * width). The figures of one case are timed in turn, repetition by
 * repetition, so that a shared machine's load falls on all of them alike; a
 * ratio is the median over those turns of a figure's speed over the
 * ceiling's: a vectorized copy kernel of our own over the same byte count
 * and the same buffers (the fastest of three variants, chosen once at
 * start). clEnqueueCopyBuffer over those bytes is reported too.
 *
 * Peers, in the same run: a naive one-element-per-work-item kernel that maps
 * each index to its positions with ndx_device.h's ndx_position (bench_cl.cl);
 * clEnqueueCopyBufferRect wherever the copy is a pitched copy of rank <= 3;
 * CLBlast's CLBlastSomatcopy on the 2-d fp32 transposes (when built with
 * CLBlast; its first call compiles its kernels and is discarded).
 *
 * Every result, ndx's and each peer's, is checked once against the host
 * (every element of small copies, a random sample of large ones) before it
 * is timed; a wrong result prints WRONG and no figure.
 *
 * Output: a table on stdout, bench-cl.csv (the cases) and bench-cl-small.csv
 * (per-call costs) in the folder named by NDX_BENCH_OUT (default: the current
 * folder), and bench-cl.png, the chart bench/chart.py draws from the CSV with
 * /usr/bin/python3 and matplotlib. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "oracle.h" /* the host reference (tests/oracle.h) */
#include "ndx/ndx_cl.h"
#include "ndx/ndx_layout.h"
#include "ndx/ndx_pack.h"

#ifdef NDX_HAVE_CLBLAST
#include <clblast_c.h>
#endif

/* bench_cl.cl with ndx_device.h inlined (bench/meson.build, tools/embed.py). */
extern const char ndx_bench_cl_source[];
extern const size_t ndx_bench_cl_source_size;

#ifndef NDX_BENCH_CHART
#define NDX_BENCH_CHART "bench/chart.py"
#endif
#define BENCH_PYTHON "/usr/bin/python3"

#define MIB (INT64_C(1) << 20)
#define FULL_TENSOR_BYTES (64 * MIB) /* per tensor: the size the targets are set for */
#define QUICK_TENSOR_BYTES (4 * MIB)
#define CHECK_ALL_BELOW (INT64_C(1) << 22) /* elements: check all of them */
#define CHECK_SAMPLES (1 << 20)            /* else this many random ones, and the ends */
#define FIG_BUDGET_S 2.0                   /* about this long per figure at most */
#define QUICK_FIG_BUDGET_S 0.25
#define SLOW_S 0.25     /* an operation this slow is timed one per repetition */
#define VERY_SLOW_S 1.5 /* and this slow, once after the check run */

/* ---- Targets (ratios to the ceiling on this 2-core machine) ----------------- */

typedef struct target {
  const char *group;
  double min_ratio;
  double vs_clblast; /* 0: none */
  const char *text;
} target;

static const target targets[] = {
    {"contiguous", 0.95, 0, ">=0.95"}, {"slice", 0.70, 0, ">=0.70"},
    {"narrow", 0.70, 0, ">=0.70"},     {"broadcast", 0.70, 0, ">=0.70"},
    {"flip", 0.70, 0, ">=0.70"},       {"transpose", 0.50, 1.5, ">=0.50,>=1.5xCLBlast"},
    {"permute", 0.40, 0, ">=0.40"},    {"transpose8/16", 0.40, 0, ">=0.40"},
    {"sub-byte", 0.25, 0, ">=0.25"},
};
#define SMALL_TARGET 1.5 /* one-element copy end to end / raw trivial enqueue */

static const target *find_target(const char *group) {
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (strcmp(targets[i].group, group) == 0) return &targets[i];
  return NULL;
}

/* ---- The environment ------------------------------------------------------------ */

enum { CEIL_V4, CEIL_V4X16, CEIL_V16, CEIL_VARIANTS };
static const char *const ceil_name[CEIL_VARIANTS] = {"bench_copy_v4", "bench_copy_v4x16",
                                                     "bench_copy_v16"};
/* bytes each work-item copies, and the work-group size used */
static const size_t ceil_item_bytes[CEIL_VARIANTS] = {16, 256, 64};
static const size_t ceil_local[CEIL_VARIANTS] = {256, 64, 128};

typedef struct env {
  const bench_opts *opts;
  bench_opts fig_opts; /* reps and repetition length for device figures */
  double budget_s;
  int64_t tensor_bytes;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue q;
  ndx_cl *ndx;
  cl_program prog[2]; /* bench_cl.cl, 32-bit and 64-bit index forms */
  int ceil;           /* the ceiling variant */
  cl_mem csrc, cdst;  /* the ceiling's buffers, tensor_bytes each */
  size_t cbytes;
  const char *out_dir;
  FILE *csv;
  int wrong, errors, met, missed, rows;
  char misses[4096];
  bool clblast;
} env;

static const char *cl_err(cl_int e) {
  static char buf[32];
  snprintf(buf, sizeof buf, "OpenCL error %d", (int)e);
  return buf;
}

static uint64_t rng_next(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *s = x;
}

static void fill_random(uint8_t *p, size_t n, uint64_t seed) {
  uint64_t s = seed | 1;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v = rng_next(&s);
    memcpy(p + i, &v, 8);
  }
  for (; i < n; i++) p[i] = (uint8_t)rng_next(&s);
}

static cl_mem new_buffer(env *e, size_t bytes) {
  cl_int err;
  cl_mem m = clCreateBuffer(e->ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
  return err == CL_SUCCESS ? m : NULL;
}

/* Bytes element positions [0, hi) take at `bits` bits. */
static size_t layout_bytes(const ndx_layout *l, int bits) {
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  return (size_t)((hi * bits + 7) / 8);
}

/* ---- One timed operation -------------------------------------------------------- */

typedef enum op_kind { OP_PLAN, OP_COPY, OP_KERNEL, OP_COPYBUF, OP_RECT, OP_CLBLAST } op_kind;

typedef struct op {
  op_kind kind;
  env *e;
  cl_mem dst, src;
  const ndx_cl_plan *plan;         /* OP_PLAN */
  const ndx_layout *dst_l, *src_l; /* OP_COPY */
  int bits;                        /* OP_COPY */
  cl_kernel kernel;                /* OP_KERNEL, arguments set */
  size_t global, local;            /* OP_KERNEL; local 0: the runtime's choice */
  size_t src_off, dst_off, bytes;  /* OP_COPYBUF */
  size_t so[3], dox[3], region[3]; /* OP_RECT: origins (bytes, rows, slices), region */
  size_t srp, ssp, drp, dsp;       /* OP_RECT: pitches */
  size_t m, n, lda, ldb;           /* OP_CLBLAST */
  bool failed;
  char why[512];
} op;

static bool op_enqueue(op *o) {
  cl_int err = CL_SUCCESS;
  ndx_status s = NDX_OK;
  cl_command_queue q = o->e->q;
  switch (o->kind) {
  case OP_PLAN:
    s = ndx_cl_plan_enqueue(o->plan, q, o->dst, o->src, 0, NULL, NULL);
    break;
  case OP_COPY:
    s = ndx_cl_copy(o->e->ndx, q, o->dst, o->dst_l, o->src, o->src_l, o->bits, 0, NULL, NULL);
    break;
  case OP_KERNEL:
    err = clEnqueueNDRangeKernel(q, o->kernel, 1, NULL, &o->global, o->local ? &o->local : NULL, 0,
                                 NULL, NULL);
    break;
  case OP_COPYBUF:
    err = clEnqueueCopyBuffer(q, o->src, o->dst, o->src_off, o->dst_off, o->bytes, 0, NULL, NULL);
    break;
  case OP_RECT:
    err = clEnqueueCopyBufferRect(q, o->src, o->dst, o->so, o->dox, o->region, o->srp, o->ssp,
                                  o->drp, o->dsp, 0, NULL, NULL);
    break;
  case OP_CLBLAST:
#ifdef NDX_HAVE_CLBLAST
  {
    cl_event ev = NULL;
    CLBlastStatusCode c = CLBlastSomatcopy(CLBlastLayoutRowMajor, CLBlastTransposeYes, o->m, o->n,
                                           1.0f, o->src, 0, o->lda, o->dst, 0, o->ldb, &q, &ev);
    if (ev) clReleaseEvent(ev);
    if (c != CLBlastSuccess) {
      snprintf(o->why, sizeof o->why, "CLBlastSomatcopy returned %d", (int)c);
      o->failed = true;
      return false;
    }
  }
#endif
  break;
  }
  if (s != NDX_OK) {
    snprintf(o->why, sizeof o->why, "%s: %s", ndx_status_name(s), ndx_last_error());
    o->failed = true;
  } else if (err != CL_SUCCESS) {
    snprintf(o->why, sizeof o->why, "enqueue failed: %s", cl_err(err));
    o->failed = true;
  }
  return !o->failed;
}

/* bench_fn: n operations, then one clFinish. */
static void op_run(void *ctx, int64_t n) {
  op *o = ctx;
  for (int64_t i = 0; i < n && !o->failed; i++) op_enqueue(o);
  cl_int err = clFinish(o->e->q);
  if (err != CL_SUCCESS && !o->failed) {
    snprintf(o->why, sizeof o->why, "clFinish: %s", cl_err(err));
    o->failed = true;
  }
}

/* ---- Checking a result against the host ---------------------------------------- */

typedef struct check {
  const ndx_layout *dst_l, *src_l; /* element i of src_l went to element i of dst_l */
  const uint8_t *src;              /* the source buffer's bytes on the host */
  int bits;
  size_t dst_bytes;
} check;

/* Reads `dst` back and compares it with the host's copy; false with `why`. */
static bool check_result(env *e, cl_mem dst, const check *c, char *why, size_t whysz) {
  uint8_t *d = malloc(c->dst_bytes ? c->dst_bytes : 1);
  if (!d) {
    snprintf(why, whysz, "out of host memory for the check");
    return false;
  }
  cl_int err = clEnqueueReadBuffer(e->q, dst, CL_TRUE, 0, c->dst_bytes, d, 0, NULL, NULL);
  if (err != CL_SUCCESS) {
    snprintf(why, whysz, "clEnqueueReadBuffer: %s", cl_err(err));
    free(d);
    return false;
  }
  /* all elements, in C order; or the first and the last 4096 and random ones */
  int64_t numel = ndx_numel(c->src_l), wrong;
  if (numel <= CHECK_ALL_BELOW)
    wrong = oracle_first_wrong(d, c->dst_l, c->src, c->src_l, c->bits, 0, numel);
  else if ((wrong = oracle_first_wrong(d, c->dst_l, c->src, c->src_l, c->bits, 0, 4096)) < 0 &&
           (wrong = oracle_first_wrong(d, c->dst_l, c->src, c->src_l, c->bits, numel - 4096,
                                       4096)) < 0) {
    uint64_t s = 0x9e3779b97f4a7c15u;
    for (int64_t k = 0; k < CHECK_SAMPLES && wrong < 0; k++) {
      int64_t i = (int64_t)(rng_next(&s) % (uint64_t)numel);
      if (!oracle_same_element(d, oracle_position_of(c->dst_l, i), c->src,
                               oracle_position_of(c->src_l, i), c->bits))
        wrong = i;
    }
  }
  free(d);
  if (wrong < 0) return true;
  snprintf(why, whysz,
           "element %" PRId64 " (dst position %" PRId64 ", src position %" PRId64
           ") differs from the host's",
           wrong, oracle_position_of(c->dst_l, wrong), oracle_position_of(c->src_l, wrong));
  return false;
}

/* ---- Figures: operations measured together ----------------------------------------- */

typedef struct fig {
  int state; /* 0: not measured; 1: measured; -1: wrong result; -2: failed */
  double gbs, ns;
  double ratio;      /* speed / entry 0's speed: median over paired repetitions */
  double time_ratio; /* time / entry 0's time: the same pairs */
  int reps;          /* timed repetitions behind the median */
  char why[512];
} fig;

#define REPS_MAX 1000

/* One operation of a group: what it moves, how to check it, its figure. */
typedef struct entry {
  op o;
  double bytes;     /* read + written by one operation */
  const check *chk; /* NULL: not checked here */
  fig f;
  int64_t n;            /* operations per repetition */
  int reps, done;       /* repetitions to time, and already timed */
  double per[REPS_MAX]; /* ns per operation, each repetition */
} entry;

/* The median over the repetitions both timed of a's speed / b's (time: a's
 * time / b's); 0 when b was not measured. */
static double paired(const entry *a, const entry *b, bool time) {
  if (b->f.state != 1 || a->f.state != 1) return 0;
  int m = a->reps < b->reps ? a->reps : b->reps;
  double r[REPS_MAX];
  for (int k = 0; k < m; k++) r[k] = time ? a->per[k] / b->per[k] : b->per[k] / a->per[k];
  return m ? bench_median(r, m) : 0;
}

static double run_ns(op *o, int64_t n) {
  uint64_t t0 = bench_now_ns();
  op_run(o, n);
  return (double)(bench_now_ns() - t0);
}

/* Checks each entry once, sizes and warms it up, then times the entries'
 * repetitions interleaved (repetition k of every entry, then k+1), so that a
 * load that comes and goes on a shared machine lands on all of them alike
 * and their ratios stay fair: each entry's ratio to entry 0 is the median of
 * the ratios of repetitions timed side by side. An operation of SLOW_S or
 * more runs one per repetition, its check run being its warm-up, with as many
 * repetitions as the budget allows, 3 at least; one of VERY_SLOW_S or more is
 * timed once, by its check run. */
static void measure_group(env *e, entry *t, int count) {
  const bench_opts *fo = &e->fig_opts;
  int most = 0;
  for (int i = 0; i < count; i++) {
    entry *x = &t[i];
    x->f = (fig){0};
    x->reps = x->done = 0;
    if (x->chk) {
      const uint8_t pattern = 0xa5;
      cl_int err =
          clEnqueueFillBuffer(e->q, x->o.dst, &pattern, 1, 0, x->chk->dst_bytes, 0, NULL, NULL);
      if (err == CL_SUCCESS) err = clFinish(e->q);
      if (err != CL_SUCCESS) {
        x->f.state = -2;
        snprintf(x->f.why, sizeof x->f.why, "clEnqueueFillBuffer: %s", cl_err(err));
        continue;
      }
    }
    double probe = run_ns(&x->o, 1) * 1e-9;
    if (x->o.failed) {
      x->f.state = -2;
      snprintf(x->f.why, sizeof x->f.why, "%s", x->o.why);
      continue;
    }
    if (x->chk && !check_result(e, x->o.dst, x->chk, x->f.why, sizeof x->f.why)) {
      x->f.state = -1;
      continue;
    }
    double per_s = probe;
    x->n = 1;
    if (probe < SLOW_S) { /* warm-up, discarded: grow n until a run lasts min_rep_s */
      for (;;) {
        double ns = run_ns(&x->o, x->n);
        per_s = ns * 1e-9 / (double)x->n;
        if (ns * 1e-9 >= fo->min_rep_s || x->n >= (INT64_C(1) << 30) || x->o.failed) break;
        double grow = ns > 0 ? fo->min_rep_s * 1e9 / ns * 1.25 : 100;
        x->n = grow > 100 ? x->n * 100 : grow < 2 ? x->n * 2 : (int64_t)((double)x->n * grow);
      }
    }
    double rep_s = per_s * (double)x->n;
    x->reps = fo->reps < REPS_MAX ? fo->reps : REPS_MAX;
    if (rep_s * x->reps > e->budget_s) {
      int r = (int)(e->budget_s / rep_s);
      x->reps = r >= 3 ? r : 3;
    }
    if (probe >= VERY_SLOW_S) {
      x->reps = x->done = 1;
      x->per[0] = probe * 1e9;
    }
    x->f.state = 1;
    if (x->reps > most) most = x->reps;
  }
  for (int k = 0; k < most; k++)
    for (int i = 0; i < count; i++) {
      entry *x = &t[i];
      if (x->f.state != 1 || k >= x->reps || k < x->done) continue;
      x->per[k] = run_ns(&x->o, x->n) / (double)x->n;
      if (x->o.failed) {
        x->f.state = -2;
        snprintf(x->f.why, sizeof x->f.why, "%s", x->o.why);
      }
    }
  for (int i = 0; i < count; i++) {
    entry *x = &t[i];
    if (x->f.state != 1) continue;
    x->f.reps = x->reps;
    x->f.ratio = paired(x, &t[0], false);
    x->f.time_ratio = paired(x, &t[0], true);
  }
  for (int i = 0; i < count; i++) { /* medians last: bench_median reorders */
    entry *x = &t[i];
    if (x->f.state != 1) continue;
    x->f.ns = bench_median(x->per, x->reps);
    x->f.gbs = x->bytes / x->f.ns;
  }
}

/* ---- The ceiling ---------------------------------------------------------------------- */

/* An op that copies about `bytes` bytes (at most `cap`) from `src` to `dst`
 * with ceiling variant v; `*moved` gets the bytes it really copies (a whole
 * number of work-groups). */
static bool ceiling_op(env *e, int v, cl_mem dst, cl_mem src, size_t bytes, size_t cap, op *o,
                       size_t *moved) {
  memset(o, 0, sizeof *o);
  o->kind = OP_KERNEL;
  o->e = e;
  o->dst = dst;
  o->src = src;
  size_t per_group = ceil_item_bytes[v] * ceil_local[v];
  if (bytes > cap) bytes = cap;
  size_t groups = bytes / per_group;
  if (groups == 0) return false;
  o->local = ceil_local[v];
  o->global = groups * ceil_local[v];
  *moved = groups * per_group;
  cl_int err;
  o->kernel = clCreateKernel(e->prog[0], ceil_name[v], &err);
  if (err != CL_SUCCESS) return false;
  clSetKernelArg(o->kernel, 0, sizeof(cl_mem), &src);
  clSetKernelArg(o->kernel, 1, sizeof(cl_mem), &dst);
  return true;
}

/* Checks the three variants on the largest byte count, times them together
 * and keeps the fastest as the ceiling for the run. */
static bool choose_ceiling(env *e) {
  uint8_t *h = malloc(e->cbytes), *back = malloc(e->cbytes);
  entry *t = calloc(CEIL_VARIANTS, sizeof *t);
  bool ok[CEIL_VARIANTS] = {false};
  bool good = h && back && t;
  if (good) {
    fill_random(h, e->cbytes, 7);
    good =
        clEnqueueWriteBuffer(e->q, e->csrc, CL_TRUE, 0, e->cbytes, h, 0, NULL, NULL) == CL_SUCCESS;
  }
  for (int v = 0; v < CEIL_VARIANTS && good; v++) {
    size_t moved;
    if (!ceiling_op(e, v, e->cdst, e->csrc, e->cbytes, e->cbytes, &t[v].o, &moved)) {
      good = false;
      break;
    }
    t[v].bytes = 2.0 * (double)moved;
    memset(back, 0, e->cbytes);
    clEnqueueWriteBuffer(e->q, e->cdst, CL_TRUE, 0, e->cbytes, back, 0, NULL, NULL);
    op_run(&t[v].o, 1);
    ok[v] =
        !t[v].o.failed &&
        clEnqueueReadBuffer(e->q, e->cdst, CL_TRUE, 0, moved, back, 0, NULL, NULL) == CL_SUCCESS &&
        memcmp(back, h, moved) == 0;
  }
  double best = 0;
  if (good) {
    measure_group(e, t, CEIL_VARIANTS);
    printf("ceiling: a vectorized copy kernel, %.0f MiB read + %.0f MiB written:",
           (double)e->cbytes / 1048576.0, (double)e->cbytes / 1048576.0);
    for (int v = 0; v < CEIL_VARIANTS; v++) {
      printf(" %s %.2f GB/s%s;", ceil_name[v] + 6, t[v].f.gbs, ok[v] ? "" : " (WRONG)");
      if (ok[v] && t[v].f.state == 1 && t[v].f.gbs > best) best = t[v].f.gbs, e->ceil = v;
    }
    printf(" using %s\n", ceil_name[e->ceil] + 6);
  }
  for (int v = 0; t && v < CEIL_VARIANTS; v++)
    if (t[v].o.kernel) clReleaseKernel(t[v].o.kernel);
  free(t);
  free(h);
  free(back);
  return best > 0;
}

/* PoCL's event profiling, against the wall clock, once, on the ceiling. */
static void check_profiling(env *e) {
  cl_int err;
  cl_command_queue pq = clCreateCommandQueue(e->ctx, e->device, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) return;
  op o;
  size_t moved;
  if (!ceiling_op(e, e->ceil, e->cdst, e->csrc, e->cbytes, e->cbytes, &o, &moved)) {
    clReleaseCommandQueue(pq);
    return;
  }
  enum { N = 5 };
  cl_event ev[N];
  clEnqueueNDRangeKernel(pq, o.kernel, 1, NULL, &o.global, &o.local, 0, NULL, NULL);
  clFinish(pq);
  uint64_t t0 = bench_now_ns();
  for (int i = 0; i < N; i++)
    clEnqueueNDRangeKernel(pq, o.kernel, 1, NULL, &o.global, &o.local, 0, NULL, &ev[i]);
  clFinish(pq);
  double wall = (double)(bench_now_ns() - t0);
  double sum = 0, span = 0;
  cl_ulong first = 0, last = 0;
  for (int i = 0; i < N; i++) {
    cl_ulong a = 0, b = 0;
    clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
    clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
    sum += (double)(b - a);
    if (i == 0) first = a;
    if (i == N - 1) last = b;
    clReleaseEvent(ev[i]);
  }
  span = (double)(last - first);
  printf("timing: host wall clock around enqueue + clFinish (profiling events, checked once: "
         "%d kernels, sum of END-START %.1f ms, first START to last END %.1f ms, wall %.1f ms)\n",
         N, sum * 1e-6, span * 1e-6, wall * 1e-6);
  clReleaseKernel(o.kernel);
  clReleaseCommandQueue(pq);
}

/* ---- Cases --------------------------------------------------------------------------- */

typedef enum move {
  MV_NONE,
  MV_SLICE2,
  MV_NARROW,
  MV_BCAST_ROW,
  MV_BCAST_COL,
  MV_FLIP,
  MV_PERMUTE
} move;

typedef struct case_spec {
  const char *group; /* its target */
  const char *name;
  int bits;
  int rank;
  int64_t shape[8]; /* of the source tensor (for broadcasts: of the result) */
  move mv;
  int32_t perm[8];    /* MV_PERMUTE */
  int64_t start, len; /* MV_NARROW, on the last axis */
  bool clblast;       /* a 2-d fp32 transpose: CLBlastSomatcopy takes it */
} case_spec;

#define S(...)                                                                                     \
  { __VA_ARGS__ }
static const case_spec cases[] = {
    {"contiguous", "contiguous f32", 32, 1, S(16777216), MV_NONE, S(0), 0, 0, false},
    {"slice", "slice [:, ::2] f32 4096x4096", 32, 2, S(4096, 4096), MV_SLICE2, S(0), 0, 0, false},
    {"narrow", "narrow(2, 3, 250) f32 256^3", 32, 3, S(256, 256, 256), MV_NARROW, S(0), 3, 250,
     false},
    {"broadcast", "broadcast row [1,4096]->4096x4096 f32", 32, 2, S(4096, 4096), MV_BCAST_ROW, S(0),
     0, 0, false},
    {"broadcast", "broadcast column [4096,1]->4096x4096 f32", 32, 2, S(4096, 4096), MV_BCAST_COL,
     S(0), 0, 0, false},
    {"flip", "flip inner axis f32 4096x4096", 32, 2, S(4096, 4096), MV_FLIP, S(0), 0, 0, false},
    {"transpose", "transpose f32 4096x4096", 32, 2, S(4096, 4096), MV_PERMUTE, S(1, 0), 0, 0, true},
    {"transpose", "transpose f32 4000x3000", 32, 2, S(4000, 3000), MV_PERMUTE, S(1, 0), 0, 0, true},
    {"transpose", "transpose f32 3x1000003", 32, 2, S(3, 1000003), MV_PERMUTE, S(1, 0), 0, 0, true},
    {"transpose", "transpose f32 1000003x3", 32, 2, S(1000003, 3), MV_PERMUTE, S(1, 0), 0, 0, true},
    {"permute", "permute (2,1,0) f32 256^3", 32, 3, S(256, 256, 256), MV_PERMUTE, S(2, 1, 0), 0, 0,
     false},
    {"permute", "permute (1,0,2) f32 256^3", 32, 3, S(256, 256, 256), MV_PERMUTE, S(1, 0, 2), 0, 0,
     false},
    {"permute", "permute (0,2,1) f32 255x257x253", 32, 3, S(255, 257, 253), MV_PERMUTE, S(0, 2, 1),
     0, 0, false},
    {"permute", "permute (2,0,1) f32 255x257x253", 32, 3, S(255, 257, 253), MV_PERMUTE, S(2, 0, 1),
     0, 0, false},
    {"permute", "permute (0,2,3,1) f32 64^4", 32, 4, S(64, 64, 64, 64), MV_PERMUTE, S(0, 2, 3, 1),
     0, 0, false},
    {"permute", "permute (3,2,1,0) f32 64^4", 32, 4, S(64, 64, 64, 64), MV_PERMUTE, S(3, 2, 1, 0),
     0, 0, false},
    {"permute", "permute (0,3,1,2) f32 60x70x50x80", 32, 4, S(60, 70, 50, 80), MV_PERMUTE,
     S(0, 3, 1, 2), 0, 0, false},
    {"permute", "permute (4,3,2,1,0) f32 16x32x16x32x64", 32, 5, S(16, 32, 16, 32, 64), MV_PERMUTE,
     S(4, 3, 2, 1, 0), 0, 0, false},
    {"permute", "permute (0,2,1,4,3) f32 16x32x16x32x64", 32, 5, S(16, 32, 16, 32, 64), MV_PERMUTE,
     S(0, 2, 1, 4, 3), 0, 0, false},
    {"permute", "permute (1,3,0,4,2) f32 15x17x19x21x165", 32, 5, S(15, 17, 19, 21, 165),
     MV_PERMUTE, S(1, 3, 0, 4, 2), 0, 0, false},
    {"permute", "permute (7,6,5,4,3,2,1,0) f32 8^8", 32, 8, S(8, 8, 8, 8, 8, 8, 8, 8), MV_PERMUTE,
     S(7, 6, 5, 4, 3, 2, 1, 0), 0, 0, false},
    {"permute", "permute (1,0,3,2,5,4,7,6) f32 8^8", 32, 8, S(8, 8, 8, 8, 8, 8, 8, 8), MV_PERMUTE,
     S(1, 0, 3, 2, 5, 4, 7, 6), 0, 0, false},
    {"permute", "permute (0,2,4,6,1,3,5,7) f32 11x9x7x5x11x9x7x5", 32, 8,
     S(11, 9, 7, 5, 11, 9, 7, 5), MV_PERMUTE, S(0, 2, 4, 6, 1, 3, 5, 7), 0, 0, false},
    {"permute", "permute (7,1,5,3,6,0,4,2) f32 11x9x7x5x11x9x7x5", 32, 8,
     S(11, 9, 7, 5, 11, 9, 7, 5), MV_PERMUTE, S(7, 1, 5, 3, 6, 0, 4, 2), 0, 0, false},
    {"transpose8/16", "transpose u16 4096x8192", 16, 2, S(4096, 8192), MV_PERMUTE, S(1, 0), 0, 0,
     false},
    {"transpose8/16", "transpose u16 5000x6000", 16, 2, S(5000, 6000), MV_PERMUTE, S(1, 0), 0, 0,
     false},
    {"transpose8/16", "transpose u8 8192x8192", 8, 2, S(8192, 8192), MV_PERMUTE, S(1, 0), 0, 0,
     false},
    {"transpose8/16", "transpose u8 7000x9000", 8, 2, S(7000, 9000), MV_PERMUTE, S(1, 0), 0, 0,
     false},
    {"sub-byte", "transpose u4 8192x16384", 4, 2, S(8192, 16384), MV_PERMUTE, S(1, 0), 0, 0, false},
    {"sub-byte", "transpose u4 9000x7000", 4, 2, S(9000, 7000), MV_PERMUTE, S(1, 0), 0, 0, false},
    {"sub-byte", "permute (0,3,1,2) u4 128x128x64x128", 4, 4, S(128, 128, 64, 128), MV_PERMUTE,
     S(0, 3, 1, 2), 0, 0, false},
    {"sub-byte", "transpose u1 16384x32768", 1, 2, S(16384, 32768), MV_PERMUTE, S(1, 0), 0, 0,
     false},
    {"sub-byte", "transpose u1 20000x25000", 1, 2, S(20000, 25000), MV_PERMUTE, S(1, 0), 0, 0,
     false},
    {"sub-byte", "permute (0,2,3,1) u1 128x128x256x128", 1, 4, S(128, 128, 256, 128), MV_PERMUTE,
     S(0, 2, 3, 1), 0, 0, false},
};
#undef S
#define NCASES (int)(sizeof cases / sizeof cases[0])

/* A case made concrete: layouts, buffers, the host's copy of the source. */
typedef struct case_data {
  int64_t shape[8];
  ndx_layout base_l, view_l, dst_l; /* source tensor, the view copied, its contiguous copy */
  size_t src_bytes, dst_bytes;
  double bytes; /* read + written */
  uint8_t *host;
  cl_mem src, dst;
} case_data;

/* For --quick: halves the largest extent (never a narrowed axis, never below
 * 2) until the tensor takes at most `limit` bytes. */
static void shrink(const case_spec *c, int64_t *shape, int64_t limit) {
  for (;;) {
    int64_t n = 1;
    for (int a = 0; a < c->rank; a++) n *= shape[a];
    if (n * c->bits / 8 <= limit) return;
    int best = -1;
    for (int a = 0; a < c->rank; a++) {
      if (c->mv == MV_NARROW && a == c->rank - 1) continue;
      if (shape[a] >= 4 && (best < 0 || shape[a] > shape[best])) best = a;
    }
    if (best < 0) return;
    shape[best] =
        c->mv == MV_SLICE2 && best == c->rank - 1 ? shape[best] / 2 / 2 * 2 : (shape[best] + 1) / 2;
  }
}

static ndx_status make_case(env *e, const case_spec *c, case_data *d, char *why, size_t whysz) {
  memset(d, 0, sizeof *d);
  memcpy(d->shape, c->shape, sizeof d->shape);
  if (e->opts->quick) shrink(c, d->shape, e->tensor_bytes);
  int r = c->rank;
  int64_t bshape[8];
  memcpy(bshape, d->shape, sizeof bshape);
  if (c->mv == MV_BCAST_ROW) bshape[0] = 1;
  if (c->mv == MV_BCAST_COL) bshape[r - 1] = 1;
  ndx_status s = ndx_contiguous(&d->base_l, r, bshape);
  if (s != NDX_OK) goto fail;
  switch (c->mv) {
  case MV_NONE:
    d->view_l = d->base_l;
    break;
  case MV_SLICE2: {
    ndx_range rg[8];
    for (int a = 0; a < r; a++) rg[a] = (ndx_range){0, d->shape[a], 1};
    rg[r - 1] = (ndx_range){0, d->shape[r - 1] / 2, 2};
    s = ndx_slice(&d->view_l, &d->base_l, rg);
    break;
  }
  case MV_NARROW:
    s = ndx_narrow(&d->view_l, &d->base_l, r - 1, c->start, c->len);
    break;
  case MV_BCAST_ROW:
  case MV_BCAST_COL:
    s = ndx_broadcast(&d->view_l, &d->base_l, r, d->shape);
    break;
  case MV_FLIP:
    s = ndx_flip(&d->view_l, &d->base_l, r - 1);
    break;
  case MV_PERMUTE:
    s = ndx_permute(&d->view_l, &d->base_l, c->perm);
    break;
  }
  if (s != NDX_OK) goto fail;
  s = ndx_contiguous(&d->dst_l, d->view_l.rank, d->view_l.shape);
  if (s != NDX_OK) goto fail;
  d->src_bytes = layout_bytes(&d->base_l, c->bits);
  d->dst_bytes = layout_bytes(&d->dst_l, c->bits);
  d->bytes = 2.0 * (double)ndx_numel(&d->view_l) * c->bits / 8.0;
  d->host = malloc(d->src_bytes);
  d->src = new_buffer(e, d->src_bytes);
  d->dst = new_buffer(e, d->dst_bytes);
  if (!d->host || !d->src || !d->dst) {
    snprintf(why, whysz, "out of memory for %zu + %zu bytes", d->src_bytes, d->dst_bytes);
    return NDX_ENOMEM;
  }
  fill_random(d->host, d->src_bytes, (uint64_t)(uintptr_t)c + 1);
  if (c->bits == 32) /* finite normal floats: CLBlast scales by alpha, and a
                        NaN's payload or a denormal need not survive that */
    for (size_t i = 0; i + 4 <= d->src_bytes; i += 4) {
      uint32_t v;
      memcpy(&v, d->host + i, 4);
      v = (v & 0x807fffffu) | 0x3f800000u;
      memcpy(d->host + i, &v, 4);
    }
  cl_int err = clEnqueueWriteBuffer(e->q, d->src, CL_TRUE, 0, d->src_bytes, d->host, 0, NULL, NULL);
  if (err != CL_SUCCESS) {
    snprintf(why, whysz, "clEnqueueWriteBuffer: %s", cl_err(err));
    return NDX_EDEVICE;
  }
  return NDX_OK;
fail:
  snprintf(why, whysz, "%s: %s", ndx_status_name(s), ndx_last_error());
  return s;
}

static void free_case(case_data *d) {
  free(d->host);
  if (d->src) clReleaseMemObject(d->src);
  if (d->dst) clReleaseMemObject(d->dst);
}

/* Entries 0 and 1 of a case's group: the ceiling and clEnqueueCopyBuffer over
 * `bytes` read + written, from the case's source buffer into its destination
 * buffer, so that they meet the caches and pages ndx meets (the ceiling's own
 * buffers when the source is smaller: a broadcast). The caller releases
 * t[0].o.kernel. */
static bool ceiling_entries(env *e, const case_data *d, entry *t) {
  size_t half = (size_t)(d->bytes / 2), moved;
  cl_mem dst = d->dst, src = d->src;
  size_t cap = d->dst_bytes;
  if (d->src_bytes < half) {
    dst = e->cdst;
    src = e->csrc;
    cap = e->cbytes;
  }
  if (!ceiling_op(e, e->ceil, dst, src, half, cap, &t[0].o, &moved)) return false;
  t[0].bytes = 2.0 * (double)moved;
  t[0].chk = NULL;
  memset(&t[1].o, 0, sizeof t[1].o);
  t[1].o.kind = OP_COPYBUF;
  t[1].o.e = e;
  t[1].o.dst = dst;
  t[1].o.src = src;
  t[1].o.bytes = half < cap ? half : cap;
  t[1].bytes = 2.0 * (double)t[1].o.bytes;
  t[1].chk = NULL;
  return true;
}

/* The naive peer: ndx_pack of (dst, view) and one work-item per element (per
 * destination byte below 8 bits). On success `o` holds a kernel and `*pack` a
 * buffer for the caller to release; else `why` says what failed. */
static bool naive_op(env *e, const case_spec *c, case_data *d, op *o, cl_mem *pack, char *why,
                     size_t whysz) {
  uint64_t buf[NDX_PACK_MAX_BYTES(2, NDX_PACK_MAX_RANK) / 8];
  size_t used;
  ndx_layout two[2] = {d->dst_l, d->view_l};
  ndx_status s = ndx_pack(buf, sizeof buf, &used, 2, two, c->bits);
  if (s != NDX_OK) {
    snprintf(why, whysz, "ndx_pack: %s", ndx_last_error());
    return false;
  }
  const ndx_pack_head *h = (const ndx_pack_head *)buf;
  cl_int err;
  *pack = clCreateBuffer(e->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, used, buf, &err);
  char name[64];
  snprintf(name, sizeof name, c->bits < 8 ? "bench_naive_sub_%d" : "bench_naive_%d", c->bits);
  cl_kernel k = err == CL_SUCCESS ? clCreateKernel(e->prog[h->wide ? 1 : 0], name, &err) : NULL;
  if (err != CL_SUCCESS) {
    if (*pack) clReleaseMemObject(*pack);
    *pack = NULL;
    snprintf(why, whysz, "naive kernel setup: %s", cl_err(err));
    return false;
  }
  clSetKernelArg(k, 0, sizeof(cl_mem), pack);
  clSetKernelArg(k, 1, sizeof(cl_mem), &d->dst);
  clSetKernelArg(k, 2, sizeof(cl_mem), &d->src);
  *o = (op){.kind = OP_KERNEL, .e = e, .dst = d->dst, .src = d->src, .kernel = k, .local = 64};
  int64_t items = c->bits < 8 ? (int64_t)d->dst_bytes : ndx_numel(&d->view_l);
  o->global = (size_t)((items + 63) / 64 * 64);
  return true;
}

/* clEnqueueCopyBufferRect, where the coalesced pair is a pitched copy of rank
 * <= 3 (bytes, rows, slices) with pitches OpenCL accepts: each row pitch at
 * least the row's bytes, each slice pitch a multiple of the row pitch and at
 * least rows * row pitch. Not for a plain 1-d copy (that is CopyBuffer). */
static bool rect_op(env *e, const case_spec *c, case_data *d, op *o) {
  if (c->bits < 8) return false;
  ndx_layout in[2] = {d->dst_l, d->view_l}, out[2];
  if (ndx_coalesce(2, in, out) != NDX_OK) return false;
  int r = out[0].rank;
  size_t es = (size_t)c->bits / 8;
  for (int a = 0; a < r; a++)
    if (out[0].strides[a] < 0 || out[1].strides[a] < 0) return false;
  memset(o, 0, sizeof *o);
  o->kind = OP_RECT;
  o->e = e;
  o->dst = d->dst;
  o->src = d->src;
  int first; /* the axis that becomes the rows; the one before it the slices */
  if (out[0].strides[r - 1] == 1 && out[1].strides[r - 1] == 1) {
    o->region[0] = (size_t)out[0].shape[r - 1] * es;
    first = r - 2;
  } else {
    o->region[0] = es;
    first = r - 1;
  }
  if (first < 0 || first > 1) return false;
  size_t pitch[2][2]; /* [operand][row, slice] */
  for (int k = 0; k < 2; k++) {
    for (int j = 1; j <= 2; j++) {
      int a = first - (j - 1);
      if (a >= 0) {
        o->region[j] = (size_t)out[0].shape[a];
        pitch[k][j - 1] = (size_t)out[k].strides[a] * es;
      } else {
        o->region[j] = 1;
        pitch[k][j - 1] = j == 1 ? o->region[0] : o->region[1] * pitch[k][0];
      }
    }
    if (pitch[k][0] < o->region[0] || pitch[k][1] < o->region[1] * pitch[k][0] ||
        pitch[k][1] % pitch[k][0] != 0)
      return false;
  }
  o->drp = pitch[0][0];
  o->dsp = pitch[0][1];
  o->srp = pitch[1][0];
  o->ssp = pitch[1][1];
  o->dox[0] = (size_t)out[0].offset * es;
  o->so[0] = (size_t)out[1].offset * es;
  return true;
}

/* ---- Printing ---------------------------------------------------------------------- */

static void fmt_fig(char *b, size_t n, const fig *f) {
  if (f->state == 1)
    snprintf(b, n, "%6.2f %5.2f", f->gbs, f->ratio);
  else if (f->state == 0)
    snprintf(b, n, "%6s %5s", "-", "");
  else
    snprintf(b, n, "%12s", f->state == -1 ? "WRONG" : "FAILED");
}

static void csv_fig(FILE *f, const fig *x) {
  if (x->state == 1)
    fprintf(f, ",%.4f,%.4f", x->gbs, x->ratio);
  else
    fprintf(f, ",%s,", x->state == 0 ? "" : x->state == -1 ? "WRONG" : "FAILED");
}

static void note_problem(env *e, const char *what, const char *name, const fig *f) {
  if (f->state == -1) e->wrong++;
  if (f->state == -2) e->errors++;
  if (f->state < 0) printf("    %s %s: %s\n", what, name, f->why);
}

/* ---- One case ------------------------------------------------------------------------ */

static void add_miss(env *e, const char *name) {
  size_t used = strlen(e->misses);
  snprintf(e->misses + used, sizeof e->misses - used, "%s%s", used ? "; " : "", name);
}

enum { T_CEIL, T_COPYBUF, T_NDX, T_NAIVE, T_RECT, T_BLAST, T_COUNT };

static void run_case(env *e, const case_spec *c) {
  case_data d;
  char why[512] = "";
  if (make_case(e, c, &d, why, sizeof why) != NDX_OK) {
    printf("%-44s setup failed: %s\n", c->name, why);
    e->errors++;
    free_case(&d);
    return;
  }
  check chk = {.dst_l = &d.dst_l,
               .src_l = &d.view_l,
               .src = d.host,
               .bits = c->bits,
               .dst_bytes = d.dst_bytes};
  entry *t = calloc(T_COUNT, sizeof *t);
  if (!t) {
    printf("%-44s out of host memory\n", c->name);
    e->errors++;
    free_case(&d);
    return;
  }
  bool use[T_COUNT] = {false};
  fig fail[T_COUNT];
  memset(fail, 0, sizeof fail);
  use[T_CEIL] = use[T_COPYBUF] = ceiling_entries(e, &d, t);
  if (!use[T_CEIL]) {
    fail[T_CEIL].state = -2;
    snprintf(fail[T_CEIL].why, sizeof fail[T_CEIL].why, "the ceiling kernel failed");
  }

  ndx_cl_plan *plan = NULL;
  const char *path = "-";
  ndx_status s = ndx_cl_plan_create(&plan, e->ndx, &d.dst_l, &d.view_l, c->bits);
  if (s != NDX_OK) {
    fail[T_NDX].state = -2;
    snprintf(fail[T_NDX].why, sizeof fail[T_NDX].why, "ndx_cl_plan_create: %s: %s",
             ndx_status_name(s), ndx_last_error());
  } else {
    path = ndx_cl_plan_path(plan);
    t[T_NDX].o = (op){.kind = OP_PLAN, .e = e, .dst = d.dst, .src = d.src, .plan = plan};
    use[T_NDX] = true;
  }
  cl_mem pack = NULL;
  if (naive_op(e, c, &d, &t[T_NAIVE].o, &pack, fail[T_NAIVE].why, sizeof fail[T_NAIVE].why))
    use[T_NAIVE] = true;
  else
    fail[T_NAIVE].state = -2;
  use[T_RECT] = rect_op(e, c, &d, &t[T_RECT].o);
#ifdef NDX_HAVE_CLBLAST
  if (c->clblast && e->clblast) {
    t[T_BLAST].o = (op){.kind = OP_CLBLAST, .e = e, .dst = d.dst, .src = d.src};
    t[T_BLAST].o.m = (size_t)d.base_l.shape[0];
    t[T_BLAST].o.n = (size_t)d.base_l.shape[1];
    t[T_BLAST].o.lda = t[T_BLAST].o.n;
    t[T_BLAST].o.ldb = t[T_BLAST].o.m;
    use[T_BLAST] = true;
  }
#endif
  int idx[T_COUNT], n = 0;
  for (int k = 0; k < T_COUNT; k++) {
    if (!use[k]) continue;
    if (k >= T_NDX) {
      t[k].bytes = d.bytes;
      t[k].chk = &chk;
    }
    idx[n++] = k;
  }
  /* measure the used entries together: move them to the front */
  entry *packed = calloc((size_t)(n ? n : 1), sizeof *packed);
  fig f[T_COUNT];
  memcpy(f, fail, sizeof f);
  double vs_blast = 0; /* ndx's speed / CLBlast's, paired */
  if (packed) {
    int in = -1, ib = -1;
    for (int i = 0; i < n; i++) {
      packed[i] = t[idx[i]];
      if (idx[i] == T_NDX) in = i;
      if (idx[i] == T_BLAST) ib = i;
    }
    measure_group(e, packed, n);
    for (int i = 0; i < n; i++) f[idx[i]] = packed[i].f;
    if (in >= 0 && ib >= 0) vs_blast = paired(&packed[in], &packed[ib], false);
  }
  if (t[T_CEIL].o.kernel) clReleaseKernel(t[T_CEIL].o.kernel);
  if (t[T_NAIVE].o.kernel) clReleaseKernel(t[T_NAIVE].o.kernel);
  if (pack) clReleaseMemObject(pack);
  ndx_cl_plan_destroy(plan);
  free(packed);
  free(t);

  fig *ndx = &f[T_NDX], *blast = &f[T_BLAST];
  double cg = f[T_CEIL].state == 1 ? f[T_CEIL].gbs : 0;
  const target *tg = find_target(c->group);
  bool met = ndx->state == 1 && cg > 0 && ndx->ratio >= tg->min_ratio;
  if (met && tg->vs_clblast > 0 && blast->state == 1) met = vs_blast >= tg->vs_clblast;
  if (met)
    e->met++;
  else {
    e->missed++;
    add_miss(e, c->name);
  }

  char fn[32], fv[32], fr[32], fb[32], fc[32];
  fmt_fig(fn, sizeof fn, ndx);
  fmt_fig(fv, sizeof fv, &f[T_NAIVE]);
  fmt_fig(fr, sizeof fr, &f[T_RECT]);
  fmt_fig(fb, sizeof fb, blast);
  fmt_fig(fc, sizeof fc, &f[T_COPYBUF]);
  char vs[48] = "";
  if (tg->vs_clblast > 0 && vs_blast > 0) snprintf(vs, sizeof vs, " (%.2fx CLBlast)", vs_blast);
  printf("%-50s %-9s %s %7.2f %s %s %s %s  %-20s %s%s\n", c->name, path, fn, cg, fc, fv, fr, fb,
         tg->text, met ? "yes" : "NO", vs);
  static const char *const what[T_COUNT] = {"ceiling", "copybuf", "ndx",
                                            "naive",   "rect",    "clblast"};
  for (int k = 0; k < T_COUNT; k++) note_problem(e, what[k], c->name, &f[k]);
  fflush(stdout);

  if (e->csv) {
    char shape[128] = "";
    for (int a = 0; a < c->rank; a++) {
      size_t u = strlen(shape);
      snprintf(shape + u, sizeof shape - u, "%s%" PRId64, a ? "x" : "", d.shape[a]);
    }
    fprintf(e->csv, "\"%s\",%s,%d,%s,%.0f,%s", c->name, c->group, c->bits, shape, d.bytes, path);
    csv_fig(e->csv, ndx);
    fprintf(e->csv, ",%.4f", cg);
    csv_fig(e->csv, &f[T_COPYBUF]);
    csv_fig(e->csv, &f[T_NAIVE]);
    csv_fig(e->csv, &f[T_RECT]);
    csv_fig(e->csv, blast);
    fprintf(e->csv, ",\"%s\",%.2f,%.2f,%s,%d,", tg->text, tg->min_ratio, tg->vs_clblast,
            met ? "yes" : "no", ndx->reps);
    if (vs_blast > 0) fprintf(e->csv, "%.4f", vs_blast);
    fprintf(e->csv, "\n");
  }
  e->rows++;
  free_case(&d);
}

/* ---- Small copies: the cost of one call ------------------------------------------------ */

static void run_small(env *e) {
  printf("\nper call (n calls, one clFinish)              path       us/call  / raw  target\n");
  cl_int err;
  cl_mem a = new_buffer(e, 1 << 16), b = new_buffer(e, 1 << 16);
  static uint8_t host[1 << 16];
  fill_random(host, sizeof host, 99);
  if (!a || !b ||
      clEnqueueWriteBuffer(e->q, b, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL) != CL_SUCCESS) {
    printf("small copies: buffer setup failed\n");
    e->errors++;
    if (a) clReleaseMemObject(a);
    if (b) clReleaseMemObject(b);
    return;
  }
  cl_kernel triv = clCreateKernel(e->prog[0], "bench_trivial", &err);
  if (err != CL_SUCCESS) {
    printf("small copies: clCreateKernel(bench_trivial): %s\n", cl_err(err));
    e->errors++;
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    return;
  }
  clSetKernelArg(triv, 0, sizeof(cl_mem), &a);

  ndx_layout one, c4k, t_src, t_dst, base;
  ndx_contiguous(&one, 1, (const int64_t[]){1});
  ndx_contiguous(&c4k, 1, (const int64_t[]){1024});
  ndx_contiguous(&base, 2, (const int64_t[]){32, 32});
  ndx_transpose(&t_src, &base, 0, 1);
  ndx_contiguous(&t_dst, 2, (const int64_t[]){32, 32});

  enum { NSMALL = 8 };
  entry *t = calloc(NSMALL, sizeof *t);
  const char *names[NSMALL], *paths[NSMALL];
  ndx_cl_plan *plans[3] = {NULL, NULL, NULL};
  check chks[3];
  if (!t) {
    printf("small copies: out of host memory\n");
    e->errors++;
    clReleaseKernel(triv);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    return;
  }
  int n = 0;
  t[n].o =
      (op){.kind = OP_KERNEL, .e = e, .kernel = triv, .global = 1, .local = 1, .dst = a, .src = a};
  names[n] = "raw clEnqueueNDRangeKernel (trivial kernel)";
  paths[n++] = "-";
  t[n].o = (op){.kind = OP_COPYBUF, .e = e, .dst = a, .src = b, .bytes = 4};
  names[n] = "raw clEnqueueCopyBuffer 4 bytes";
  paths[n++] = "-";
  struct {
    const char *copy, *plan;
    const ndx_layout *d, *s;
  } sm[3] = {
      {"ndx_cl_copy 1 element f32", "plan enqueue 1 element f32", &one, &one},
      {"ndx_cl_copy 4 KiB f32 contiguous", "plan enqueue 4 KiB f32 contiguous", &c4k, &c4k},
      {"ndx_cl_copy 4 KiB f32 transpose 32x32", "plan enqueue 4 KiB f32 transpose 32x32", &t_dst,
       &t_src},
  };
  const int target_row = 2; /* ndx_cl_copy 1 element */
  for (int k = 0; k < 3; k++) {
    chks[k] =
        (check){.dst_l = sm[k].d, .src_l = sm[k].s, .src = host, .bits = 32, .dst_bytes = 4096};
    const char *path = "-";
    if (ndx_cl_plan_create(&plans[k], e->ndx, sm[k].d, sm[k].s, 32) == NDX_OK)
      path = ndx_cl_plan_path(plans[k]);
    t[n].o = (op){.kind = OP_COPY,
                  .e = e,
                  .dst = a,
                  .src = b,
                  .dst_l = sm[k].d,
                  .src_l = sm[k].s,
                  .bits = 32};
    t[n].chk = &chks[k];
    names[n] = sm[k].copy;
    paths[n++] = path;
    if (plans[k]) {
      t[n].o = (op){.kind = OP_PLAN, .e = e, .dst = a, .src = b, .plan = plans[k]};
      t[n].chk = &chks[k];
      names[n] = sm[k].plan;
      paths[n++] = path;
    }
  }
  measure_group(e, t, n);
  double raw = t[0].f.state == 1 ? t[0].f.ns : 0;

  char p[4096];
  snprintf(p, sizeof p, "%s/bench-cl-small.csv", e->out_dir);
  FILE *csv = fopen(p, "w");
  if (csv) fprintf(csv, "case,path,us_per_call,ratio_to_raw_kernel,target,met\n");
  for (int k = 0; k < n; k++) {
    fig *f = &t[k].f;
    double ratio = f->state == 1 && raw > 0 ? f->time_ratio : 0;
    bool is_t = k == target_row;
    bool met = is_t && f->state == 1 && ratio <= SMALL_TARGET;
    if (is_t) {
      if (met)
        e->met++;
      else {
        e->missed++;
        add_miss(e, names[k]);
      }
    }
    if (f->state == 1)
      printf("%-46s %-9s %8.2f %6.2f  %s\n", names[k], paths[k], f->ns * 1e-3, ratio,
             is_t ? (met ? "<=1.5  yes" : "<=1.5  NO") : "");
    else
      printf("%-46s %-9s %s\n", names[k], paths[k], f->state == -1 ? "WRONG" : "FAILED");
    note_problem(e, "small", names[k], f);
    if (csv)
      fprintf(csv, "\"%s\",%s,%.4f,%.4f,%s,%s\n", names[k], paths[k], f->ns * 1e-3, ratio,
              is_t ? "<=1.5" : "", is_t ? (met ? "yes" : "no") : "");
  }
  if (csv) fclose(csv);
  for (int k = 0; k < 3; k++) ndx_cl_plan_destroy(plans[k]);
  free(t);
  clReleaseKernel(triv);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
}

/* ---- Prototypes (NDX_BENCH_PROTO=1 after the cases, =only instead of them) ----------- */
/* Transpose kernels of bench_cl.cl's prototype section beside ndx's path on
 * the same 2-d transposes, checked and timed as the cases are, to measure
 * what a change to ndx's kernels would gain. */

typedef struct proto_variant {
  const char *kernel;
  int div, a, b; /* work-items: ceil(R/div/a) * ceil(C/div/b); div 0: ceil(R*C/a/b) */
  size_t local;
} proto_variant;

typedef struct proto_case {
  const char *name;
  int bits;
  int64_t r, c;
  proto_variant v[8];
  move mv; /* MV_PERMUTE (a transpose) when 0 */
} proto_case;

static const proto_case protos[] = {
    {"slice [:, ::2] f32 4096x4096",
     32,
     4096,
     4096,
     {{"proto_slice2", 0, 2, 256, 64},
      {"proto_slice2v", 0, 2, 256, 64},
      {"proto_slice2v", 0, 2, 256, 1}},
     MV_SLICE2},
    {"flip inner axis f32 4096x4096",
     32,
     4096,
     4096,
     {{"proto_flip", 0, 1, 256, 64}, {"proto_flipv", 0, 1, 256, 64}, {"proto_flipv", 0, 1, 256, 1}},
     MV_FLIP},
    {"transpose f32 3x1000003",
     32,
     3,
     1000003,
     {{"proto_thin", 1, 3, 256, 64}, {"proto_thin", 1, 3, 256, 1}},
     0},
    {"transpose f32 1000003x3",
     32,
     1000003,
     3,
     {{"proto_thin", 1, 256, 3, 64}, {"proto_thin", 1, 256, 3, 1}},
     0},
    {"transpose f32 4096x4096",
     32,
     4096,
     4096,
     {{"proto_t32_16", 1, 16, 16, 64},
      {"proto_t32_32", 1, 32, 32, 16},
      {"proto_v32_16", 1, 16, 16, 16},
      {"proto_v32_32", 1, 32, 32, 4},
      {"proto_w32_8x32", 1, 32, 32, 4},
      {"proto_w32_16x32", 1, 32, 32, 4},
      {"proto_w32_16x64", 1, 64, 64, 1},
      {"proto_w32_16x32", 1, 32, 32, 1}},
     0},
    {"transpose f32 4000x3000",
     32,
     4000,
     3000,
     {{"proto_t32_32", 1, 32, 32, 16},
      {"proto_v32_16", 1, 16, 16, 16},
      {"proto_w32_8x32", 1, 32, 32, 4},
      {"proto_w32_16x32", 1, 32, 32, 4},
      {"proto_w32_16x64", 1, 64, 64, 1}},
     0},
    {"transpose u16 4096x8192",
     16,
     4096,
     8192,
     {{"proto_t16_32", 1, 32, 32, 16},
      {"proto_v16_32", 1, 32, 32, 4},
      {"proto_w16_8x32", 1, 32, 32, 4},
      {"proto_w16_16x64", 1, 64, 64, 1}},
     0},
    {"transpose u8 8192x8192",
     8,
     8192,
     8192,
     {{"proto_t8_64", 1, 64, 64, 4},
      {"proto_v8_64", 1, 64, 64, 1},
      {"proto_w8_8x64", 1, 64, 64, 1},
      {"proto_w8_16x64", 1, 64, 64, 1}},
     0},
    {"transpose u4 8192x16384",
     4,
     8192,
     16384,
     {{"proto_b4_16", 1, 16, 16, 64},
      {"proto_b4_64", 1, 64, 64, 16},
      {"proto_b4_128", 1, 128, 128, 4}},
     0},
    {"transpose u1 16384x32768",
     1,
     16384,
     32768,
     {{"proto_b1_8x8", 8, 8, 8, 16},
      {"proto_b1_64x8", 8, 64, 8, 4},
      {"proto_b1_8x64", 8, 8, 64, 4}},
     0},
};

static void run_proto(env *e, const proto_case *pc) {
  case_spec cs = {"proto", pc->name, pc->bits, 2,    {pc->r, pc->c}, pc->mv ? pc->mv : MV_PERMUTE,
                  {1, 0},  0,        0,        false};
  case_data d;
  char why[512] = "";
  if (make_case(e, &cs, &d, why, sizeof why) != NDX_OK) {
    printf("%-36s setup failed: %s\n", pc->name, why);
    free_case(&d);
    return;
  }
  int64_t R = d.shape[0], C = d.shape[1];
  check chk = {.dst_l = &d.dst_l,
               .src_l = &d.view_l,
               .src = d.host,
               .bits = pc->bits,
               .dst_bytes = d.dst_bytes};
  enum { NP = 12 };
  entry *t = calloc(NP, sizeof *t);
  const char *names[NP];
  size_t locals[NP];
  ndx_cl_plan *plan = NULL;
  if (!t || !ceiling_entries(e, &d, t) ||
      ndx_cl_plan_create(&plan, e->ndx, &d.dst_l, &d.view_l, pc->bits) != NDX_OK) {
    printf("%-36s setup failed\n", pc->name);
    free(t);
    free_case(&d);
    return;
  }
  int n = 2;
  names[0] = "ceiling";
  names[1] = "clEnqueueCopyBuffer";
  locals[0] = locals[1] = 0;
  t[n].o = (op){.kind = OP_PLAN, .e = e, .dst = d.dst, .src = d.src, .plan = plan};
  names[n] = ndx_cl_plan_path(plan);
  locals[n++] = 0;
  for (int k = 0; k < 8 && pc->v[k].kernel; k++) {
    const proto_variant *v = &pc->v[k];
    cl_int err;
    cl_kernel kr = clCreateKernel(e->prog[0], v->kernel, &err);
    if (err != CL_SUCCESS) {
      printf("%-36s %s: clCreateKernel: %s\n", pc->name, v->kernel, cl_err(err));
      continue;
    }
    cl_long rr = R, cc = C;
    clSetKernelArg(kr, 0, sizeof(cl_mem), &d.dst);
    clSetKernelArg(kr, 1, sizeof(cl_mem), &d.src);
    clSetKernelArg(kr, 2, sizeof rr, &rr);
    clSetKernelArg(kr, 3, sizeof cc, &cc);
    int64_t rb = R / (v->div ? v->div : 1), cb = C / (v->div ? v->div : 1);
    int64_t per = (int64_t)v->a * v->b;
    int64_t items =
        v->div ? (rb + v->a - 1) / v->a * ((cb + v->b - 1) / v->b) : (R * C + per - 1) / per;
    t[n].o = (op){
        .kind = OP_KERNEL, .e = e, .dst = d.dst, .src = d.src, .kernel = kr, .local = v->local};
    t[n].o.global = (size_t)((items + (int64_t)v->local - 1) / (int64_t)v->local) * v->local;
    names[n] = v->kernel;
    locals[n++] = v->local;
  }
  for (int k = 2; k < n; k++) {
    t[k].bytes = d.bytes;
    t[k].chk = &chk;
  }
  measure_group(e, t, n);
  for (int k = 0; k < n; k++) {
    char fr[32];
    fmt_fig(fr, sizeof fr, &t[k].f);
    char lbl[64];
    if (locals[k])
      snprintf(lbl, sizeof lbl, "%s (local %zu)", names[k], locals[k]);
    else
      snprintf(lbl, sizeof lbl, "%s", k == 2 ? "ndx" : names[k]);
    printf("%-36s %-30s %s%s%s\n", k == 0 ? pc->name : "", lbl, fr, k == 2 ? "  path " : "",
           k == 2 ? names[k] : "");
    if (t[k].f.state < 0) printf("    %s\n", t[k].f.why);
    if (k >= 3 && t[k].o.kernel) clReleaseKernel(t[k].o.kernel);
  }
  if (t[0].o.kernel) clReleaseKernel(t[0].o.kernel);
  ndx_cl_plan_destroy(plan);
  free(t);
  free_case(&d);
  fflush(stdout);
}

static void run_protos(env *e) {
  printf("\nprototypes: transpose kernels (bench_cl.cl) beside ndx's path   GB/s  ratio\n");
  for (size_t i = 0; i < sizeof protos / sizeof protos[0]; i++) run_proto(e, &protos[i]);
}

/* ---- Setup --------------------------------------------------------------------------- */

static bool build_bench_programs(env *e) {
  for (int wide = 0; wide < 2; wide++) {
    const char *src = ndx_bench_cl_source;
    size_t len = ndx_bench_cl_source_size;
    cl_int err;
    cl_program p = clCreateProgramWithSource(e->ctx, 1, &src, &len, &err);
    if (err != CL_SUCCESS) return false;
    err = clBuildProgram(p, 1, &e->device,
                         wide ? "-cl-std=CL1.2 -DNDX_WIDE=1" : "-cl-std=CL1.2 -DNDX_WIDE=0", NULL,
                         NULL);
    if (err != CL_SUCCESS) {
      char log[8192] = "";
      clGetProgramBuildInfo(p, e->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
      printf("bench_cl.cl does not build (%s): %s\n", cl_err(err), log);
      clReleaseProgram(p);
      return false;
    }
    e->prog[wide] = p;
  }
  return true;
}

#ifdef NDX_HAVE_CLBLAST
/* CLBlast compiles its kernels on the first call: make it on a small matrix
 * and discard it. */
static void warm_clblast(env *e) {
  cl_mem a = new_buffer(e, 64 * 64 * 4), b = new_buffer(e, 64 * 64 * 4);
  if (!a || !b) return;
  uint64_t t0 = bench_now_ns();
  cl_event ev = NULL;
  CLBlastStatusCode c = CLBlastSomatcopy(CLBlastLayoutRowMajor, CLBlastTransposeYes, 64, 64, 1.0f,
                                         a, 0, 64, b, 0, 64, &e->q, &ev);
  if (ev) clReleaseEvent(ev);
  clFinish(e->q);
  e->clblast = c == CLBlastSuccess;
  printf("CLBlast: first CLBlastSomatcopy call %s in %.2f s (discarded)\n",
         e->clblast ? "compiled" : "FAILED", (double)(bench_now_ns() - t0) * 1e-9);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
}
#endif

static bool setup(env *e) {
  cl_platform_id plat;
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(1, &plat, &np);
  if (err != CL_SUCCESS || np == 0) {
    printf("--cl: no OpenCL platform (%s)\n", cl_err(err));
    return false;
  }
  err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_DEFAULT, 1, &e->device, NULL);
  if (err != CL_SUCCESS) {
    printf("--cl: no OpenCL device (%s)\n", cl_err(err));
    return false;
  }
  char name[256] = "", pver[256] = "";
  cl_uint cus = 0;
  clGetDeviceInfo(e->device, CL_DEVICE_NAME, sizeof name, name, NULL);
  clGetDeviceInfo(e->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
  clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof pver, pver, NULL);
  printf("\nOpenCL: %s, %u compute units (%s)\n", name, cus, pver);
  e->ctx = clCreateContext(NULL, 1, &e->device, NULL, NULL, &err);
  if (err != CL_SUCCESS) {
    printf("--cl: clCreateContext: %s\n", cl_err(err));
    return false;
  }
  e->q = clCreateCommandQueue(e->ctx, e->device, 0, &err);
  if (err != CL_SUCCESS) {
    printf("--cl: clCreateCommandQueue: %s\n", cl_err(err));
    return false;
  }
  uint64_t t0 = bench_now_ns();
  ndx_status s = ndx_cl_create(&e->ndx, e->ctx, e->device);
  if (s != NDX_OK) {
    printf("--cl: ndx_cl_create: %s: %s\n", ndx_status_name(s), ndx_last_error());
    return false;
  }
  printf("ndx_cl_create: %.2f s\n", (double)(bench_now_ns() - t0) * 1e-9);
  if (!build_bench_programs(e)) return false;
  e->cbytes = (size_t)e->tensor_bytes;
  e->csrc = new_buffer(e, e->cbytes);
  e->cdst = new_buffer(e, e->cbytes);
  if (!e->csrc || !e->cdst) {
    printf("--cl: cannot allocate the ceiling's buffers\n");
    return false;
  }
  return true;
}

static void teardown(env *e) {
  if (e->csrc) clReleaseMemObject(e->csrc);
  if (e->cdst) clReleaseMemObject(e->cdst);
  for (int w = 0; w < 2; w++)
    if (e->prog[w]) clReleaseProgram(e->prog[w]);
  ndx_cl_destroy(e->ndx);
  if (e->q) clReleaseCommandQueue(e->q);
  if (e->ctx) clReleaseContext(e->ctx);
}

/* The load average, to judge figures taken on a shared machine. */
static void print_load(const char *when) {
  char buf[128] = "?";
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (!fgets(buf, sizeof buf, f)) snprintf(buf, sizeof buf, "?\n");
    fclose(f);
  }
  printf("load average %s: %s", when, buf);
}

/* Runs bench/chart.py on the CSV; says where the PNG went or why not. */
static void draw_chart(const env *e, const char *csv) {
  char png[4096];
  snprintf(png, sizeof png, "%s/bench-cl.png", e->out_dir);
  if (access(BENCH_PYTHON, X_OK) != 0 || access(NDX_BENCH_CHART, R_OK) != 0) {
    printf("chart: not drawn (%s or %s missing); run: %s %s %s %s\n", BENCH_PYTHON, NDX_BENCH_CHART,
           BENCH_PYTHON, NDX_BENCH_CHART, csv, png);
    return;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execl(BENCH_PYTHON, BENCH_PYTHON, NDX_BENCH_CHART, csv, png, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    printf("chart: %s failed; run: %s %s %s %s\n", NDX_BENCH_CHART, BENCH_PYTHON, NDX_BENCH_CHART,
           csv, png);
  else
    printf("chart: %s\n", png);
}

int bench_cl(const bench_opts *opts) {
  env e = {.opts = opts};
  e.fig_opts = *opts;
  if (!opts->quick && e.fig_opts.min_rep_s < 0.03) e.fig_opts.min_rep_s = 0.03;
  e.budget_s = opts->quick ? QUICK_FIG_BUDGET_S : FIG_BUDGET_S;
  e.tensor_bytes = opts->quick ? QUICK_TENSOR_BYTES : FULL_TENSOR_BYTES;
  const char *out = getenv("NDX_BENCH_OUT");
  e.out_dir = opts->out && strcmp(opts->out, ".") != 0 ? opts->out : out && *out ? out : ".";
  uint64_t t_start = bench_now_ns();

  if (!setup(&e)) {
    teardown(&e);
    return 1;
  }
  print_load("at start");
  printf("figures: GB/s of bytes read + written, median of %d repetitions (each >= %.0f ms; "
         "a copy slower than %.2f s: one per repetition, at least 3 within about %.0f s; slower "
         "than %.1f s: its one checked run) after a discarded warm-up, the figures of a case "
         "timed in turn; rat(io) = the median over those turns of its speed / the ceiling's "
         "(a vectorized copy kernel over the same bytes and buffers)%s\n",
         e.fig_opts.reps, e.fig_opts.min_rep_s * 1e3, SLOW_S, e.budget_s, VERY_SLOW_S,
         opts->quick ? "; --quick: 4 MiB tensors, a smoke run, not a measurement" : "");
  if (!choose_ceiling(&e)) {
    printf("--cl: the ceiling kernel failed\n");
    teardown(&e);
    return 1;
  }
  check_profiling(&e);
#ifdef NDX_HAVE_CLBLAST
  warm_clblast(&e);
#else
  printf("CLBlast: not built in (meson -Dclblast=enabled)\n");
#endif

  const char *proto = getenv("NDX_BENCH_PROTO");
  bool only = proto && strcmp(proto, "only") == 0;
  char csvp[4096];
  mkdir(e.out_dir, 0777); /* may exist */
  snprintf(csvp, sizeof csvp, "%s/bench-cl.csv", e.out_dir);
  e.csv = only ? NULL : fopen(csvp, "w");
  if (!e.csv && !only) printf("--cl: cannot write %s: %s\n", csvp, strerror(errno));
  if (e.csv)
    fprintf(e.csv,
            "case,group,bits,shape,bytes,path,ndx_gbs,ndx_ratio,ceiling_gbs,copybuf_gbs,"
            "copybuf_ratio,naive_gbs,naive_ratio,rect_gbs,rect_ratio,clblast_gbs,"
            "clblast_ratio,target,target_ratio,target_vs_clblast,met,ndx_reps,ndx_vs_clblast\n");

  if (!only)
    printf("\n%-50s %-9s %12s %7s %12s %12s %12s %12s  %-20s %s\n", "case", "path", "ndx GB/s rat",
           "ceiling", "copybuf  rat", "naive    rat", "rect     rat", "clblast  rat",
           "target (ratio)", "met");
  for (int i = 0; i < NCASES && !only; i++) run_case(&e, &cases[i]);
  if (e.csv) fclose(e.csv);

  if (!only) run_small(&e);
  if (proto && *proto && strcmp(proto, "0") != 0) run_protos(&e);
  teardown(&e);
  print_load("at end");

  printf("\n--cl: %d of %d targets met%s%s; %d wrong results, %d failures; %.0f s\n", e.met,
         e.met + e.missed, e.missed ? "; missed: " : "", e.misses, e.wrong, e.errors,
         (double)(bench_now_ns() - t_start) * 1e-9);
  if (!only) {
    printf("--cl: wrote %s and %s/bench-cl-small.csv\n", csvp, e.out_dir);
    if (e.csv) draw_chart(&e, csvp);
  }
  return e.wrong || e.errors ? 1 : 0;
}
