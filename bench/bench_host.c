/* bench_host.c: `ndx-bench --host`: what the host layout calls cost at rank 8,
 * that they allocate nothing, and how fast ndx_iter walks positions compared
 * with a nested loop written by hand for the same layout.
 *
 * Every layout call is timed in a loop of n calls on the same inputs (the
 * calls live in libndx, so the compiler cannot drop or hoist them), in the
 * thread's CPU time (bench_time): the machine is shared, and wall time would
 * count other processes' time slices as the calls'. The
 * iterators and the loops sum the positions; each position first passes an
 * empty asm statement, so the compiler cannot fold a loop's sum into a
 * formula or vectorize it: that models a consumer that uses every position
 * (a load, a store). A last column gives the same loop without that barrier,
 * which the compiler is free to vectorize, for reference. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "ndx/ndx_iter.h"
#include "ndx/ndx_layout.h"

/* The targets on this 2-core machine: every layout call under TARGET_CALL_NS at
 * rank 8, a refused call, which writes its message, under TARGET_REFUSED_NS (a
 * fifth of a kernel launch, about 5 us), ndx_iter within TARGET_ITER_RATIO of
 * a hand-written loop. */
#define TARGET_CALL_NS 100.0
#define TARGET_REFUSED_NS 1000.0
#define TARGET_ITER_RATIO 1.5

static volatile int64_t bench_sink;

/* Passes x through an empty asm so that the compiler knows nothing of it. */
static inline int64_t opaque(int64_t x) {
#if defined(__GNUC__)
  __asm__("" : "+r"(x));
#endif
  return x;
}

/* ---- Layout calls at rank 8 ---------------------------------------------------- */

typedef struct calls_ctx {
  int64_t shape[8], strides[8];
  ndx_layout base;  /* contiguous of shape */
  ndx_layout ones;  /* contiguous [2,1,4,1,2,1,2,2], for broadcast and squeeze */
  ndx_layout trans; /* base with axes 0 and 7 swapped: a reshape no strides express */
  int64_t reshape_to[8], broadcast_to[8];
  int32_t perm[8];
  ndx_range ranges[8];
  ndx_window windows[2];
  ndx_move reshape, broadcast, permute, slice, window;
  ndx_layout three[3]; /* coalesced together */
} calls_ctx;

#define CALL_CASE(fname, call)                                                                     \
  static void fname(void *ctx, int64_t n) {                                                        \
    const calls_ctx *c = ctx;                                                                      \
    ndx_layout out = {0};                                                                          \
    int64_t acc = 0;                                                                               \
    for (int64_t i = 0; i < n; i++) {                                                              \
      acc += (call);                                                                               \
      acc += out.offset + out.rank;                                                                \
    }                                                                                              \
    bench_sink = acc;                                                                              \
  }

CALL_CASE(b_make, ndx_make(&out, 8, c->shape, c->strides, 7))
CALL_CASE(b_reshape, ndx_apply(&out, &c->reshape, &c->base))
CALL_CASE(b_reshape_no, ndx_reshape(&out, &c->trans, 1, (const int64_t[]){2880}))
CALL_CASE(b_broadcast, ndx_apply(&out, &c->broadcast, &c->ones))
CALL_CASE(b_permute, ndx_apply(&out, &c->permute, &c->base))
CALL_CASE(b_slice, ndx_apply(&out, &c->slice, &c->base))
CALL_CASE(b_window, ndx_apply(&out, &c->window, &c->base))
CALL_CASE(b_narrow, ndx_narrow(&out, &c->base, 3, 1, 3))
CALL_CASE(b_transpose, ndx_transpose(&out, &c->base, 1, 6))
CALL_CASE(b_flip, ndx_flip(&out, &c->base, 4))
CALL_CASE(b_squeeze, ndx_squeeze(&out, &c->ones, 3))
CALL_CASE(b_unsqueeze, ndx_unsqueeze(&out, &c->base, 4))

static void b_coalesce(void *ctx, int64_t n) {
  const calls_ctx *c = ctx;
  ndx_layout out[3] = {{0}};
  int64_t acc = 0;
  for (int64_t i = 0; i < n; i++) {
    acc += ndx_coalesce(3, c->three, out);
    acc += out[0].rank + out[2].offset;
  }
  bench_sink = acc;
}

/* Builds every input with ndx_ calls; false (with a message) if one fails. */
static bool calls_setup(calls_ctx *c) {
  static const int64_t shape[8] = {2, 3, 4, 5, 2, 3, 2, 2}; /* 2880 elements */
  memcpy(c->shape, shape, sizeof shape);
  int64_t s = 1;
  for (int i = 7; i >= 0; i--) c->strides[i] = s, s *= shape[i];
  static const int64_t reshape_to[8] = {3, 2, 5, 4, 3, 2, 2, 2};
  memcpy(c->reshape_to, reshape_to, sizeof reshape_to);
  memcpy(c->broadcast_to, shape, sizeof shape);
  for (int i = 0; i < 8; i++) c->perm[i] = 7 - i;
  static const ndx_range ranges[8] = {{0, 2, 1}, {2, 3, -1}, {1, 2, 2},  {0, 5, 1},
                                      {1, 1, 1}, {0, 2, 2},  {1, 2, -1}, {0, 2, 1}};
  memcpy(c->ranges, ranges, sizeof ranges);
  c->windows[0] = (ndx_window){2, 2, 1, 1};
  c->windows[1] = (ndx_window){3, 2, 2, 2};
  c->reshape = (ndx_move){.kind = NDX_RESHAPE, .n = 8, .shape = c->reshape_to};
  c->broadcast = (ndx_move){.kind = NDX_BROADCAST, .n = 8, .shape = c->broadcast_to};
  c->permute = (ndx_move){.kind = NDX_PERMUTE, .n = 8, .perm = c->perm};
  c->slice = (ndx_move){.kind = NDX_SLICE, .n = 8, .ranges = c->ranges};
  c->window = (ndx_move){.kind = NDX_WINDOW, .n = 2, .windows = c->windows};

  /* Three layouts of one shape: C order; the destination of a copy that swaps
   * the last two axes; a slice of a buffer whose last axis is padded to 4. */
  static const int64_t swapped[8] = {1440, 480, 120, 24, 12, 4, 1, 2};
  static const int64_t padded[8] = {2880, 960, 240, 48, 24, 8, 4, 1};
  const char *step = "ndx_contiguous";
  ndx_status st = ndx_contiguous(&c->base, 8, shape);
  if (st == NDX_OK)
    step = "ndx_contiguous [2,1,4,1,2,1,2,2]",
    st = ndx_contiguous(&c->ones, 8, (const int64_t[]){2, 1, 4, 1, 2, 1, 2, 2});
  if (st == NDX_OK) step = "ndx_transpose", st = ndx_transpose(&c->trans, &c->base, 0, 7);
  if (st == NDX_OK)
    c->three[0] = c->base, step = "ndx_make", st = ndx_make(&c->three[1], 8, shape, swapped, 0);
  if (st == NDX_OK) step = "ndx_make", st = ndx_make(&c->three[2], 8, shape, padded, 0);
  if (st != NDX_OK) {
    printf("setup failed: %s: %s (%s)\n", step, ndx_last_error(), ndx_status_name(st));
    return false;
  }
  return true;
}

typedef struct call_case {
  const char *name;
  bench_fn fn;
  ndx_status want; /* what the call returns, checked once before timing */
  double limit_ns; /* the target: TARGET_CALL_NS, or TARGET_REFUSED_NS for a refusal */
} call_case;

static const call_case call_cases[] = {
    {"ndx_make", b_make, NDX_OK, TARGET_CALL_NS},
    {"reshape  [2,3,4,5,2,3,2,2] -> [3,2,5,4,3,2,2,2]", b_reshape, NDX_OK, TARGET_CALL_NS},
    {"broadcast [2,1,4,1,2,1,2,2] -> [2,3,4,5,2,3,2,2]", b_broadcast, NDX_OK, TARGET_CALL_NS},
    {"permute  7,6,5,4,3,2,1,0", b_permute, NDX_OK, TARGET_CALL_NS},
    {"slice    8 ranges, steps 1, 2, -1", b_slice, NDX_OK, TARGET_CALL_NS},
    {"window   2 windows (rank 8 -> 10)", b_window, NDX_OK, TARGET_CALL_NS},
    {"narrow   axis 3, 1, 3", b_narrow, NDX_OK, TARGET_CALL_NS},
    {"transpose 1 6", b_transpose, NDX_OK, TARGET_CALL_NS},
    {"flip     axis 4", b_flip, NDX_OK, TARGET_CALL_NS},
    {"squeeze  axis 3 (rank 8 -> 7)", b_squeeze, NDX_OK, TARGET_CALL_NS},
    {"unsqueeze axis 4 (rank 8 -> 9)", b_unsqueeze, NDX_OK, TARGET_CALL_NS},
    {"ndx_coalesce of 3 rank-8 layouts", b_coalesce, NDX_OK, TARGET_CALL_NS},
    {"reshape refused (NDX_ENOVIEW, writes the message)", b_reshape_no, NDX_ENOVIEW,
     TARGET_REFUSED_NS},
};
#define NCALLS (int)(sizeof call_cases / sizeof call_cases[0])

/* Runs one call of the case and returns its status, to check it before timing. */
static ndx_status call_status(const calls_ctx *c, int k) {
  ndx_layout out, three[3];
  switch (k) {
  case 0:
    return ndx_make(&out, 8, c->shape, c->strides, 7);
  case 1:
    return ndx_apply(&out, &c->reshape, &c->base);
  case 2:
    return ndx_apply(&out, &c->broadcast, &c->ones);
  case 3:
    return ndx_apply(&out, &c->permute, &c->base);
  case 4:
    return ndx_apply(&out, &c->slice, &c->base);
  case 5:
    return ndx_apply(&out, &c->window, &c->base);
  case 6:
    return ndx_narrow(&out, &c->base, 3, 1, 3);
  case 7:
    return ndx_transpose(&out, &c->base, 1, 6);
  case 8:
    return ndx_flip(&out, &c->base, 4);
  case 9:
    return ndx_squeeze(&out, &c->ones, 3);
  case 10:
    return ndx_unsqueeze(&out, &c->base, 4);
  case 11:
    return ndx_coalesce(3, c->three, three);
  default:
    return ndx_reshape(&out, &c->trans, 1, (const int64_t[]){2880});
  }
}

static void print_allocs(uint64_t a) {
  if (a == UINT64_MAX)
    printf("%8s", "n/a");
  else
    printf("%8" PRIu64, a);
}

/* Returns the number of calls over the target, or -1 when a call misbehaved. */
static int bench_calls(const bench_opts *opts, uint64_t *allocs_total) {
  static calls_ctx c;
  if (!calls_setup(&c)) return -1;
  printf("%-52s %9s %9s %8s  %s\n", "layout call (rank 8)", "ns/call", "min", "allocs", "under");
  int over = 0;
  bool counting = *allocs_total != UINT64_MAX;
  for (int k = 0; k < NCALLS; k++) {
    const call_case *cc = &call_cases[k];
    ndx_status s = call_status(&c, k);
    if (s != cc->want) {
      printf("%-52s returned %s, expected %s: %s\n", cc->name, ndx_status_name(s),
             ndx_status_name(cc->want), ndx_last_error());
      return -1;
    }
    bench_result r = bench_time(opts, cc->fn, &c);
    bool ok = r.ns_per_unit < cc->limit_ns;
    if (!ok) over++;
    printf("%-52s %9.1f %9.1f ", cc->name, r.ns_per_unit, r.min_ns_per_unit);
    print_allocs(r.allocs);
    printf("  %.0f ns: %s\n", cc->limit_ns, ok ? "yes" : "NO");
    if (counting && r.allocs != UINT64_MAX) *allocs_total += r.allocs;
  }
  return over;
}

/* ---- Iteration ------------------------------------------------------------------ */

typedef struct iter_ctx {
  ndx_layout l;
  int64_t sum; /* of the last pass, to check the ways against each other */
} iter_ctx;

static void b_iter(void *ctx, int64_t n) {
  iter_ctx *c = ctx;
  int64_t sum = 0;
  for (int64_t pass = 0; pass < n; pass++) {
    ndx_iter it;
    ndx_iter_init(&it, &c->l);
    int64_t p;
    sum = 0;
    while (ndx_iter_next(&it, &p)) sum += opaque(p);
  }
  c->sum = sum;
}

static void b_runs(void *ctx, int64_t n) {
  iter_ctx *c = ctx;
  int64_t sum = 0;
  for (int64_t pass = 0; pass < n; pass++) {
    ndx_iter it;
    ndx_iter_init(&it, &c->l);
    int64_t start, len, stride;
    sum = 0;
    while (ndx_iter_run(&it, &start, &len, &stride)) {
      const int64_t n_run = len, step = stride; /* not escaped: kept in registers */
      int64_t p = start;
      for (int64_t k = 0; k < n_run; k++, p += step) sum += opaque(p);
    }
  }
  c->sum = sum;
}

static void b_blocks(void *ctx, int64_t n) {
  iter_ctx *c = ctx;
  int64_t sum = 0;
  for (int64_t pass = 0; pass < n; pass++) {
    ndx_blocks b;
    ndx_blocks_init(&b, &c->l);
    int64_t start;
    sum = 0;
    while (ndx_blocks_next(&b, &start))
      for (int64_t k = 0; k < b.len; k++) sum += opaque(start + k);
  }
  c->sum = sum;
}

/* Hand-written nested loops over the layout's own shape and strides (not its
 * coalesced form): what one writes for a layout of a known rank. USE is the
 * consumer of each position: opaque() or nothing. */
#define LOOPS(suffix, USE)                                                                         \
  static int64_t loop3##suffix(const ndx_layout *l) {                                              \
    const int64_t *d = l->shape, *s = l->strides;                                                  \
    int64_t sum = 0;                                                                               \
    for (int64_t a = 0, pa = l->offset; a < d[0]; a++, pa += s[0])                                 \
      for (int64_t b = 0, pb = pa; b < d[1]; b++, pb += s[1])                                      \
        for (int64_t c = 0, pc = pb; c < d[2]; c++, pc += s[2]) sum += USE(pc);                    \
    return sum;                                                                                    \
  }                                                                                                \
  static int64_t loop4##suffix(const ndx_layout *l) {                                              \
    const int64_t *d = l->shape, *s = l->strides;                                                  \
    int64_t sum = 0;                                                                               \
    for (int64_t a = 0, pa = l->offset; a < d[0]; a++, pa += s[0])                                 \
      for (int64_t b = 0, pb = pa; b < d[1]; b++, pb += s[1])                                      \
        for (int64_t c = 0, pc = pb; c < d[2]; c++, pc += s[2])                                    \
          for (int64_t e = 0, pe = pc; e < d[3]; e++, pe += s[3]) sum += USE(pe);                  \
    return sum;                                                                                    \
  }                                                                                                \
  static int64_t loop5##suffix(const ndx_layout *l) {                                              \
    const int64_t *d = l->shape, *s = l->strides;                                                  \
    int64_t sum = 0;                                                                               \
    for (int64_t a = 0, pa = l->offset; a < d[0]; a++, pa += s[0])                                 \
      for (int64_t b = 0, pb = pa; b < d[1]; b++, pb += s[1])                                      \
        for (int64_t c = 0, pc = pb; c < d[2]; c++, pc += s[2])                                    \
          for (int64_t e = 0, pe = pc; e < d[3]; e++, pe += s[3])                                  \
            for (int64_t f = 0, pf = pe; f < d[4]; f++, pf += s[4]) sum += USE(pf);                \
    return sum;                                                                                    \
  }                                                                                                \
  static int64_t loop6##suffix(const ndx_layout *l) {                                              \
    const int64_t *d = l->shape, *s = l->strides;                                                  \
    int64_t sum = 0;                                                                               \
    for (int64_t a = 0, pa = l->offset; a < d[0]; a++, pa += s[0])                                 \
      for (int64_t b = 0, pb = pa; b < d[1]; b++, pb += s[1])                                      \
        for (int64_t c = 0, pc = pb; c < d[2]; c++, pc += s[2])                                    \
          for (int64_t e = 0, pe = pc; e < d[3]; e++, pe += s[3])                                  \
            for (int64_t f = 0, pf = pe; f < d[4]; f++, pf += s[4])                                \
              for (int64_t g = 0, pg = pf; g < d[5]; g++, pg += s[5]) sum += USE(pg);              \
    return sum;                                                                                    \
  }                                                                                                \
  static int64_t loop8##suffix(const ndx_layout *l) {                                              \
    const int64_t *d = l->shape, *s = l->strides;                                                  \
    int64_t sum = 0;                                                                               \
    for (int64_t a = 0, pa = l->offset; a < d[0]; a++, pa += s[0])                                 \
      for (int64_t b = 0, pb = pa; b < d[1]; b++, pb += s[1])                                      \
        for (int64_t c = 0, pc = pb; c < d[2]; c++, pc += s[2])                                    \
          for (int64_t e = 0, pe = pc; e < d[3]; e++, pe += s[3])                                  \
            for (int64_t f = 0, pf = pe; f < d[4]; f++, pf += s[4])                                \
              for (int64_t g = 0, pg = pf; g < d[5]; g++, pg += s[5])                              \
                for (int64_t h = 0, ph = pg; h < d[6]; h++, ph += s[6])                            \
                  for (int64_t k = 0, pk = ph; k < d[7]; k++, pk += s[7]) sum += USE(pk);          \
    return sum;                                                                                    \
  }

#define USE_NOTHING(x) (x)
LOOPS(_used, opaque)
LOOPS(_free, USE_NOTHING)

typedef int64_t (*loop_fn)(const ndx_layout *);

static loop_fn loop_of(int rank, bool used) {
  switch (rank) {
  case 3:
    return used ? loop3_used : loop3_free;
  case 4:
    return used ? loop4_used : loop4_free;
  case 5:
    return used ? loop5_used : loop5_free;
  case 6:
    return used ? loop6_used : loop6_free;
  case 8:
    return used ? loop8_used : loop8_free;
  default:
    return NULL;
  }
}

static void b_loop_used(void *ctx, int64_t n) {
  iter_ctx *c = ctx;
  loop_fn f = loop_of(c->l.rank, true);
  for (int64_t pass = 0; pass < n; pass++) c->sum = f(&c->l);
}

static void b_loop_free(void *ctx, int64_t n) {
  iter_ctx *c = ctx;
  loop_fn f = loop_of(c->l.rank, false);
  int64_t acc = 0;
  for (int64_t pass = 0; pass < n; pass++) {
    ndx_layout l = c->l;
    l.offset = opaque(l.offset); /* so that passes are not merged */
    acc += f(&l);
  }
  c->sum = n ? acc / n : 0;
}

/* The layouts walked, each a few million positions. */
static ndx_status iter_layout(int k, ndx_layout *l, const char **name) {
  ndx_layout t;
  ndx_status s;
  switch (k) {
  case 0:
    *name = "rank 3 [128,128,128] transposed 2,1,0";
    s = ndx_contiguous(&t, 3, (const int64_t[]){128, 128, 128});
    return s ? s : ndx_permute(l, &t, (const int32_t[]){2, 1, 0});
  case 1:
    *name = "rank 4 sliced [96,64,64,32] -> [64,32,30,30]";
    s = ndx_contiguous(&t, 4, (const int64_t[]){96, 64, 64, 32});
    return s ? s
             : ndx_slice(l, &t,
                         (const ndx_range[]){{8, 64, 1}, {0, 32, 2}, {3, 30, 2}, {1, 30, 1}});
  case 2:
    *name = "rank 5 broadcast [32,8,64,4,32], axis 2 flipped";
    s = ndx_contiguous(&t, 5, (const int64_t[]){32, 1, 64, 1, 32});
    if (s == NDX_OK) s = ndx_broadcast(&t, &t, 5, (const int64_t[]){32, 8, 64, 4, 32});
    return s ? s : ndx_flip(l, &t, 2);
  case 3:
    *name = "rank 6 contiguous [16,16,16,16,8,4]";
    return ndx_contiguous(l, 6, (const int64_t[]){16, 16, 16, 16, 8, 4});
  default:
    *name = "rank 8 [6]*8, axis pairs swapped";
    s = ndx_contiguous(&t, 8, (const int64_t[]){6, 6, 6, 6, 6, 6, 6, 6});
    return s ? s : ndx_permute(l, &t, (const int32_t[]){1, 0, 3, 2, 5, 4, 7, 6});
  }
}
#define NITERS 5

/* Returns the number of layouts past the ratio target, or -1 when the ways of
 * walking disagree or a layout could not be built. */
static int bench_iters(const bench_opts *opts, uint64_t *allocs_total) {
  printf("\n%-48s %9s %9s %9s %9s %9s %8s %9s %8s\n", "positions (sum of each)", "count", "loop",
         "iter_run", "run/loop", "iter_next", "allocs", "blocks", "loop*");
  printf("%-48s %9s %9s %9s %9s %9s %8s %9s %8s\n", "", "", "ns/pos", "ns/pos", "< 1.5", "ns/pos",
         "iter", "ns/pos", "ns/pos");
  int over = 0;
  bool counting = *allocs_total != UINT64_MAX;
  for (int k = 0; k < NITERS; k++) {
    static iter_ctx c;
    const char *name = "";
    ndx_status s = iter_layout(k, &c.l, &name);
    if (s != NDX_OK) {
      printf("%-48s setup failed: %s (%s)\n", name, ndx_last_error(), ndx_status_name(s));
      return -1;
    }
    int64_t count = ndx_numel(&c.l);
    /* The answer all ways must give, by the plain loop. */
    int64_t want = loop_of(c.l.rank, true)(&c.l);

    bench_result it = bench_time(opts, b_iter, &c);
    bool it_ok = c.sum == want;
    bench_result rn = bench_time(opts, b_runs, &c);
    bool rn_ok = c.sum == want;
    bench_result lp = bench_time(opts, b_loop_used, &c);
    bench_result bl = bench_time(opts, b_blocks, &c);
    bool bl_ok = c.sum == want;
    bench_result fr = bench_time(opts, b_loop_free, &c);
    bool fr_ok = c.sum == want;

    double per = (double)count;
    double ratio = rn.ns_per_unit / lp.ns_per_unit;
    if (ratio >= TARGET_ITER_RATIO) over++;
    printf("%-48s %9" PRId64 " %9.2f %9.2f %8.2f%s %9.2f ", name, count, lp.ns_per_unit / per,
           rn.ns_per_unit / per, ratio, ratio < TARGET_ITER_RATIO ? " " : "!",
           it.ns_per_unit / per);
    print_allocs(it.allocs + rn.allocs);
    printf(" %9.2f %8.2f\n", bl.ns_per_unit / per, fr.ns_per_unit / per);
    if (!it_ok || !rn_ok || !bl_ok || !fr_ok) {
      printf("  MISMATCH: the sum of positions differs (%s%s%s%s)\n", it_ok ? "" : "ndx_iter_next ",
             rn_ok ? "" : "ndx_iter_run ", bl_ok ? "" : "ndx_blocks ", fr_ok ? "" : "free loop");
      return -1;
    }
    if (counting && it.allocs != UINT64_MAX && bl.allocs != UINT64_MAX)
      *allocs_total += it.allocs + rn.allocs + bl.allocs;
  }
  printf("(iter_run: ndx_iter_run with the caller's inner loop, the fast way to walk; iter_next:\n"
         " one ndx_iter_next call per position; blocks: ndx_blocks with an inner loop over each\n"
         " block; loop*: the hand loop without the per-position barrier, which the compiler may\n"
         " vectorize: for reference only)\n");
  return over;
}

/* ---- Section --------------------------------------------------------------------- */

int bench_host(const bench_opts *opts) {
  bool counting = bench_alloc_counting();
  printf("== ndx-bench --host: %s; median of %d repetitions of >= %.0f ms of the thread's CPU time "
         "after a warm-up ==\n",
         opts->quick ? "QUICK run (smoke test, not a measurement)" : "layout calls and iteration",
         opts->reps, opts->min_rep_s * 1e3);
  printf("allocation counter: %s\n\n",
         counting ? "active (malloc, calloc, realloc, aligned_alloc, posix_memalign counted)"
                  : "not built in (sanitizer build): allocs read n/a");

  uint64_t call_allocs = counting ? 0 : UINT64_MAX;
  int calls_over = bench_calls(opts, &call_allocs);
  if (calls_over < 0) return 1;
  uint64_t iter_allocs = counting ? 0 : UINT64_MAX;
  int iters_over = bench_iters(opts, &iter_allocs);
  if (iters_over < 0) return 1;

  printf("\nallocations during the timed layout calls: ");
  if (counting)
    printf("%" PRIu64 "%s\n", call_allocs, call_allocs ? "  <-- expected 0" : "");
  else
    printf("not counted\n");
  printf("allocations during the timed iteration (ndx_iter, ndx_blocks): ");
  if (counting)
    printf("%" PRIu64 "%s\n", iter_allocs, iter_allocs ? "  <-- expected 0" : "");
  else
    printf("not counted\n");
  printf("layout calls under %.0f ns, the refused one under %.0f ns: %s\n", TARGET_CALL_NS,
         TARGET_REFUSED_NS, calls_over ? "NO (see the rows marked NO)" : "all");
  printf("ndx_iter within %.1fx of the hand loop: %d of %d layouts\n", TARGET_ITER_RATIO,
         NITERS - iters_over, NITERS);
  return 0;
}
