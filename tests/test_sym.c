/* test_sym.c: bounded symbolic axes (ndx_sym.h). The central rule: for a move
 * m that keeps every symbolic axis whole, resolving after the move reaches
 * the same positions as moving the resolved layout by m', the same move at
 * the live extents. It is checked on chains of random moves over random small
 * layouts with the brute-force enumeration of tests/oracle.h; moves that
 * would cut a symbolic axis must be refused and leave `out` untouched. */
#include <criterion/criterion.h>
#include <string.h>

#include "ndx/ndx_sym.h"
#include "oracle.h"
#include "suite.h"

#define MAX_POS (1 << 16) /* a chain of moves stops before a layout passes it */
#define RANDOM_CASES 1500
#define CHAIN 3

static const char *describe(const ndx_layout *l) {
  static char buf[2][1024];
  static int k;
  k ^= 1;
  return oracle_describe(buf[k], sizeof buf[k], l);
}

static ndx_sym_layout wrap(const ndx_layout *l) {
  ndx_sym_layout s;
  cr_assert_eq(ndx_sym_wrap(&s, l), NDX_OK);
  return s;
}

static ndx_sym_layout mark(ndx_sym_layout s, int axis, int32_t symbol, int64_t min) {
  cr_assert_eq(ndx_sym_mark(&s, &s, axis, symbol, min), NDX_OK, "%s", ndx_last_error());
  return s;
}

static ndx_layout resolve(const ndx_sym_layout *s, int n, const int32_t *symbols,
                          const int64_t *values) {
  ndx_sym_env env = {n, symbols, values};
  ndx_layout l;
  cr_assert_eq(ndx_sym_resolve(&l, s, &env), NDX_OK, "%s", ndx_last_error());
  return l;
}

static ndx_sym_layout sym_apply(const ndx_move *m, const ndx_sym_layout *s) {
  ndx_sym_layout out;
  cr_assert_eq(ndx_sym_apply(&out, m, s), NDX_OK, "%s", ndx_last_error());
  return out;
}

static ndx_move slice_move(const ndx_range *r, int n) {
  return (ndx_move){.kind = NDX_SLICE, .n = n, .ranges = r};
}

/* The flip of `axis` of a rank-`rank` layout of extent `d` there. */
static ndx_move flip_move(ndx_range *r, int rank, const int64_t *shape, int axis) {
  for (int a = 0; a < rank; a++) r[a] = (ndx_range){0, shape[a], 1};
  r[axis] = (ndx_range){shape[axis] > 0 ? shape[axis] - 1 : 0, shape[axis], -1};
  return slice_move(r, rank);
}

/* Same shape and the same position for every index, by the oracle. */
static void assert_same_positions(const ndx_layout *got, const ndx_layout *want, const char *ctx) {
  static int64_t pg[MAX_POS], pw[MAX_POS];
  cr_assert_eq(got->rank, want->rank, "%s: %s vs %s", ctx, describe(got), describe(want));
  for (int a = 0; a < got->rank; a++)
    cr_assert_eq(got->shape[a], want->shape[a], "%s: %s vs %s", ctx, describe(got), describe(want));
  int64_t n = oracle_positions(got, pg);
  oracle_positions(want, pw);
  for (int64_t k = 0; k < n; k++)
    cr_assert_eq(pg[k], pw[k], "%s: element %lld: %s vs %s", ctx, (long long)k, describe(got),
                 describe(want));
  cr_assert(ndx_equal(got, want), "%s: canonical forms differ: %s vs %s", ctx, describe(got),
            describe(want));
}

/* ---- Random moves that keep every symbolic axis whole ------------------- */

/* A move m for the symbolic layout and m', the same move for its resolved
 * layout, with the storage their arrays point into. */
typedef struct gen {
  ndx_move m, mp;
  int64_t shape[NDX_MAX_RANK], shape_p[NDX_MAX_RANK];
  int32_t perm[NDX_MAX_RANK];
  ndx_range ranges[NDX_MAX_RANK], ranges_p[NDX_MAX_RANK];
  ndx_window windows[NDX_MAX_RANK];
} gen;

static bool is_sym(const ndx_sym_layout *s, int a) {
  return (s->symbolic >> a) & 1u;
}

/* The live extent of axis `a`: its bound value if symbolic, else its extent. */
static int64_t live(const ndx_sym_layout *s, const int64_t *value_of, int a) {
  return is_sym(s, a) ? value_of[s->symbol[a]] : s->layout.shape[a];
}

/* A random valid range of an axis of extent d. */
static ndx_range random_range(oracle_rng *rng, int64_t d) {
  static const int64_t steps[] = {-2, -1, 1, 2};
  int64_t step = steps[oracle_between(rng, 0, 3)], mag = step < 0 ? -step : step;
  if (d == 0) return (ndx_range){0, 0, step};
  int64_t count = oracle_between(rng, 0, 1 + (d - 1) / mag);
  if (count == 0) return (ndx_range){0, 0, step};
  int64_t reach = (count - 1) * mag;
  int64_t start =
      step > 0 ? oracle_between(rng, 0, d - 1 - reach) : oracle_between(rng, reach, d - 1);
  return (ndx_range){start, count, step};
}

/* Appends to `out` a random shape of the same element count as `seg`: kept,
 * merged into one axis, or with 4s split into 2s and extent-1 axes dropped
 * or added. Returns the new length. */
static int reshape_segment(oracle_rng *rng, const int64_t *seg, int n, int64_t *out, int len) {
  int how = (int)oracle_between(rng, 0, 2);
  if (how == 0) {
    for (int i = 0; i < n; i++) out[len++] = seg[i];
  } else if (how == 1) {
    int64_t p = 1;
    for (int i = 0; i < n; i++) p *= seg[i];
    if (n > 0 || oracle_between(rng, 0, 1)) out[len++] = p;
  } else {
    for (int i = 0; i < n; i++) {
      if (oracle_between(rng, 0, 3) == 0) out[len++] = 1;
      if (seg[i] == 4) {
        out[len++] = 2;
        out[len++] = 2;
      } else if (seg[i] != 1 || oracle_between(rng, 0, 1)) {
        out[len++] = seg[i];
      }
    }
  }
  return len;
}

/* Fills g with a random move of `s` that keeps each symbolic axis whole, and
 * its counterpart at the live extents (a reshape's counterpart is finished by
 * finish_reshape, from where the move put the symbolic axes). */
static void random_move(oracle_rng *rng, const ndx_sym_layout *s, const int64_t *value_of, gen *g) {
  const ndx_layout *l = &s->layout;
  int rank = l->rank;
  memset(g, 0, sizeof *g);
  int kind = (int)oracle_between(rng, 0, 4);
  switch (kind) {
  case 0: /* permute */
    for (int a = 0; a < rank; a++) g->perm[a] = a;
    for (int a = rank - 1; a > 0; a--) {
      int b = (int)oracle_between(rng, 0, a);
      int32_t t = g->perm[a];
      g->perm[a] = g->perm[b];
      g->perm[b] = t;
    }
    g->m = g->mp = (ndx_move){.kind = NDX_PERMUTE, .n = rank, .perm = g->perm};
    break;
  case 1: { /* broadcast: up to 2 new axes; stretch non-symbolic extent-1 axes */
    int k = rank + 2 <= NDX_MAX_RANK ? (int)oracle_between(rng, 0, 2) : 0;
    for (int i = 0; i < k; i++) g->shape[i] = g->shape_p[i] = oracle_between(rng, 0, 3);
    for (int a = 0; a < rank; a++) {
      int64_t d = l->shape[a];
      if (d == 1 && !is_sym(s, a) && oracle_between(rng, 0, 1)) d = oracle_between(rng, 0, 3);
      g->shape[k + a] = d;
      g->shape_p[k + a] = is_sym(s, a) ? live(s, value_of, a) : d;
    }
    g->m = (ndx_move){.kind = NDX_BROADCAST, .n = rank + k, .shape = g->shape};
    g->mp = (ndx_move){.kind = NDX_BROADCAST, .n = rank + k, .shape = g->shape_p};
    break;
  }
  case 2: /* slice: whole symbolic axes forwards or backwards, anything elsewhere */
    for (int a = 0; a < rank; a++) {
      if (!is_sym(s, a)) {
        g->ranges[a] = g->ranges_p[a] = random_range(rng, l->shape[a]);
        continue;
      }
      int64_t d = l->shape[a], n = live(s, value_of, a);
      if (oracle_between(rng, 0, 1)) {
        g->ranges[a] = (ndx_range){0, d, 1};
        g->ranges_p[a] = (ndx_range){0, n, 1};
      } else {
        g->ranges[a] = (ndx_range){d > 0 ? d - 1 : 0, d, -1};
        g->ranges_p[a] = (ndx_range){n > 0 ? n - 1 : 0, n, -1};
      }
    }
    g->m = slice_move(g->ranges, rank);
    g->mp = slice_move(g->ranges_p, rank);
    break;
  case 3: { /* window: on some non-symbolic axes */
    int n = 0;
    for (int a = 0; a < rank; a++) {
      int64_t d = l->shape[a];
      if (is_sym(s, a) || d < 1 || n == 2 || rank + n == NDX_MAX_RANK || oracle_between(rng, 0, 1))
        continue;
      int64_t dil = oracle_between(rng, 1, 2), size = oracle_between(rng, 1, (d - 1) / dil + 1);
      g->windows[n++] = (ndx_window){a, size, oracle_between(rng, 1, 2), dil};
    }
    g->m = g->mp = (ndx_move){.kind = NDX_WINDOW, .n = n, .windows = g->windows};
    break;
  }
  default: { /* reshape: the runs between symbolic axes, extent-1 axes around them */
    int len = 0, seg_n = 0;
    int64_t seg[NDX_MAX_RANK];
    for (int a = 0; a <= rank; a++) {
      if (a < rank && !is_sym(s, a)) {
        seg[seg_n++] = l->shape[a];
        continue;
      }
      len = reshape_segment(rng, seg, seg_n, g->shape, len);
      seg_n = 0;
      if (a == rank) break;
      if (oracle_between(rng, 0, 3) == 0) g->shape[len++] = 1;
      g->shape[len++] = l->shape[a];
      if (oracle_between(rng, 0, 3) == 0) g->shape[len++] = 1;
    }
    g->m = (ndx_move){.kind = NDX_RESHAPE, .n = len, .shape = g->shape};
    g->mp = (ndx_move){.kind = NDX_RESHAPE, .n = len, .shape = g->shape_p};
    break;
  }
  }
}

/* A reshape's counterpart: the result's shape with each symbolic axis at its
 * live extent. */
static void finish_reshape(gen *g, const ndx_sym_layout *out, const int64_t *value_of) {
  for (int b = 0; b < g->m.n; b++) g->shape_p[b] = live(out, value_of, b);
}

/* The symbols of `s` in axis order, and their number. */
static int symbols_in_order(const ndx_sym_layout *s, int32_t *syms) {
  int n = 0;
  for (int a = 0; a < s->layout.rank; a++)
    if (is_sym(s, a)) syms[n++] = s->symbol[a];
  return n;
}

/* A random layout of rank 1..5 with one or two symbolic axes (symbol 10 + the
 * axis, min random), and a bound value for each symbol. */
static ndx_sym_layout random_sym(oracle_rng *rng, int k, int64_t *value_of, int32_t *syms,
                                 int64_t *vals, int *nsyms) {
  int64_t shape[NDX_MAX_RANK];
  int rank;
  do rank = oracle_random_shape(rng, 5, 4, 8, shape);
  while (rank == 0);
  ndx_layout l = k % 2 ? oracle_view_layout_of_shape(rng, rank, shape)
                       : oracle_random_layout_of_shape(rng, rank, shape, 5, 3);
  ndx_sym_layout s = wrap(&l);
  *nsyms = 0;
  int want = rank > 1 ? (int)oracle_between(rng, 1, 2) : 1;
  while (*nsyms < want) {
    int a = (int)oracle_between(rng, 0, rank - 1);
    if (is_sym(&s, a)) continue;
    int64_t max = shape[a], min = oracle_between(rng, 0, max);
    s = mark(s, a, 10 + a, min);
    syms[*nsyms] = 10 + a;
    vals[*nsyms] = value_of[10 + a] = oracle_between(rng, min, max);
    (*nsyms)++;
  }
  return s;
}

Test(sym, resolving_commutes_with_moves_that_keep_axes_whole) {
  oracle_rng rng = {11};
  int checked = 0, noview = 0;
  for (int k = 0; k < RANDOM_CASES; k++) {
    int64_t value_of[64] = {0}, vals[2];
    int32_t syms[2];
    int nsyms;
    ndx_sym_layout s = random_sym(&rng, k, value_of, syms, vals, &nsyms);
    ndx_layout r = resolve(&s, nsyms, syms, vals); /* the resolved track */
    for (int step = 0; step < CHAIN; step++) {
      gen g;
      random_move(&rng, &s, value_of, &g);
      ndx_sym_layout out;
      char ctx[256];
      snprintf(ctx, sizeof ctx, "case %d step %d, move kind %d on %s", k, step, (int)g.m.kind,
               describe(&s.layout));
      ndx_status st = ndx_sym_apply(&out, &g.m, &s);
      if (st == NDX_ENOVIEW) { /* a reshape that no strides express at capacity */
        ndx_layout plain;
        cr_assert_eq(g.m.kind, NDX_RESHAPE, "%s", ctx);
        cr_assert_eq(ndx_apply(&plain, &g.m, &s.layout), NDX_ENOVIEW, "%s", ctx);
        noview++;
        break;
      }
      cr_assert_eq(st, NDX_OK, "%s: %s", ctx, ndx_last_error());
      ndx_sym_layout alias = s; /* `out` may be `l` */
      cr_assert_eq(ndx_sym_apply(&alias, &g.m, &alias), NDX_OK, "%s", ctx);
      cr_assert_eq(memcmp(&alias, &out, sizeof out), 0, "%s: aliased result differs", ctx);
      int32_t before[NDX_MAX_RANK], after[NDX_MAX_RANK];
      int nb = symbols_in_order(&s, before), na = symbols_in_order(&out, after);
      cr_assert_eq(na, nb, "%s: the symbolic axes are all carried", ctx);
      if (g.m.kind != NDX_PERMUTE)
        for (int i = 0; i < nb; i++) cr_assert_eq(after[i], before[i], "%s: order kept", ctx);
      for (int b = 0; b < out.layout.rank; b++) /* bounds travel with the symbol */
        if (is_sym(&out, b))
          cr_assert(out.min[b] <= value_of[out.symbol[b]] &&
                        value_of[out.symbol[b]] <= out.layout.shape[b],
                    "%s: axis %d", ctx, b);
      if (oracle_numel(&out.layout) > MAX_POS) break;
      if (g.m.kind == NDX_RESHAPE) finish_reshape(&g, &out, value_of);
      ndx_layout moved;
      cr_assert_eq(ndx_apply(&moved, &g.mp, &r), NDX_OK, "%s: m' on %s: %s", ctx, describe(&r),
                   ndx_last_error());
      ndx_layout got = resolve(&out, nsyms, syms, vals);
      assert_same_positions(&got, &moved, ctx);
      s = out;
      r = moved;
      checked++;
    }
  }
  cr_assert_gt(checked, RANDOM_CASES * 2, "most chains run (%d checked, %d no view)", checked,
               noview);
}

/* ---- Refused moves ----------------------------------------------------- */

/* Checks that `m` on `s` is refused with `want`, leaves `out` byte for byte as
 * it was, and (for NDX_EUNSUPPORTED) names the axis and the symbol. */
static void assert_refused(const ndx_move *m, const ndx_sym_layout *s, ndx_status want, int axis,
                           const char *ctx) {
  ndx_sym_layout out, sentinel;
  memset(&out, 0xa5, sizeof out);
  memcpy(&sentinel, &out, sizeof out);
  ndx_status st = ndx_sym_apply(&out, m, s);
  cr_assert_eq(st, want, "%s: %s, want %s (%s)", ctx, ndx_status_name(st), ndx_status_name(want),
               ndx_last_error());
  cr_assert_eq(memcmp(&out, &sentinel, sizeof out), 0, "%s: out was written", ctx);
  if (want != NDX_EUNSUPPORTED) return;
  char axis_text[32], sym_text[32];
  snprintf(axis_text, sizeof axis_text, "axis %d", axis);
  snprintf(sym_text, sizeof sym_text, "symbol %d", (int)s->symbol[axis]);
  const char *msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_sym_apply") && strstr(msg, axis_text) && strstr(msg, sym_text),
            "%s: message \"%s\" names the call, %s and %s", ctx, msg, axis_text, sym_text);
  /* aliasing `out` with `l` leaves the input as it was too */
  ndx_sym_layout in = *s;
  cr_assert_eq(ndx_sym_apply(&in, m, &in), want, "%s", ctx);
  cr_assert_eq(memcmp(&in, s, sizeof in), 0, "%s: aliased input was written", ctx);
}

Test(sym, random_cuts_of_a_symbolic_axis_are_refused) {
  oracle_rng rng = {12};
  int refused = 0;
  for (int k = 0; k < RANDOM_CASES; k++) {
    int64_t value_of[64] = {0}, vals[2];
    int32_t syms[2];
    int nsyms;
    ndx_sym_layout s = random_sym(&rng, k, value_of, syms, vals, &nsyms);
    const ndx_layout *l = &s.layout;
    int a = syms[0] - 10, rank = l->rank;
    int64_t d = l->shape[a];
    char ctx[256];
    snprintf(ctx, sizeof ctx, "case %d, symbolic axis %d of %s", k, a, describe(l));
    ndx_range ranges[NDX_MAX_RANK];
    ndx_window w;
    int64_t shape[NDX_MAX_RANK];
    for (int b = 0; b < rank; b++) ranges[b] = (ndx_range){0, l->shape[b], 1};
    ndx_move m;
    switch (oracle_between(&rng, 0, 2)) {
    case 0: { /* a slice that is not the whole axis */
      if (d < 2) continue;
      ndx_range cuts[] = {{0, d - 1, 1}, {1, d - 1, 1}, {0, (d + 1) / 2, 2}, {d - 2, d - 1, -1}};
      ranges[a] = cuts[oracle_between(&rng, 0, 3)];
      m = slice_move(ranges, rank);
      break;
    }
    case 1: { /* any window, even one that keeps the extent */
      if (d < 1) continue;
      w = (ndx_window){a, oracle_between(&rng, 1, d), 1, 1};
      m = (ndx_move){.kind = NDX_WINDOW, .n = 1, .windows = &w};
      break;
    }
    default: {    /* a reshape merging it with a neighbour of extent >= 2 */
      int b = -1; /* a non-symbolic neighbour, so that the message names axis a */
      if (a + 1 < rank && l->shape[a + 1] >= 2 && !is_sym(&s, a + 1)) b = a + 1;
      if (a > 0 && l->shape[a - 1] >= 2 && !is_sym(&s, a - 1)) b = a - 1;
      if (b < 0 || d < 2) continue;
      int lo = a < b ? a : b, n = 0;
      for (int c = 0; c < rank; c++) {
        if (c == lo + 1) continue;
        shape[n++] = c == lo ? l->shape[a] * l->shape[b] : l->shape[c];
      }
      m = (ndx_move){.kind = NDX_RESHAPE, .n = n, .shape = shape};
      break;
    }
    }
    assert_refused(&m, &s, NDX_EUNSUPPORTED, a, ctx);
    refused++;
  }
  cr_assert_gt(refused, RANDOM_CASES / 3, "%d refusals checked", refused);
}

Test(sym, refuses_cutting_moves_literally) {
  ndx_layout l = contiguous(3, (int64_t[]){2, 4, 3});
  ndx_sym_layout s = mark(wrap(&l), 1, 7, 1);
  ndx_range r[3] = {{0, 2, 1}, {1, 2, 1}, {0, 3, 1}}; /* narrow */
  ndx_move narrow = slice_move(r, 3);
  assert_refused(&narrow, &s, NDX_EUNSUPPORTED, 1, "narrow");
  ndx_range every_other[3] = {{0, 2, 1}, {0, 2, 2}, {0, 3, 1}};
  ndx_move strided = slice_move(every_other, 3);
  assert_refused(&strided, &s, NDX_EUNSUPPORTED, 1, "step 2");
  ndx_window w = {1, 2, 1, 1};
  ndx_move window = {.kind = NDX_WINDOW, .n = 1, .windows = &w};
  assert_refused(&window, &s, NDX_EUNSUPPORTED, 1, "window");
  ndx_move merge = {.kind = NDX_RESHAPE, .n = 2, .shape = (int64_t[]){8, 3}};
  assert_refused(&merge, &s, NDX_EUNSUPPORTED, 1, "merge with the axis before");
  ndx_move split = {.kind = NDX_RESHAPE, .n = 4, .shape = (int64_t[]){2, 2, 2, 3}};
  assert_refused(&split, &s, NDX_EUNSUPPORTED, 1, "split");
  ndx_move moved = {.kind = NDX_RESHAPE, .n = 3, .shape = (int64_t[]){4, 2, 3}};
  assert_refused(&moved, &s, NDX_EUNSUPPORTED, 1, "same extent at another place");
  /* a symbolic axis of capacity 1 must not stretch */
  ndx_layout c1 = contiguous(2, (int64_t[]){1, 3});
  ndx_sym_layout thin = mark(wrap(&c1), 0, 5, 0);
  ndx_move stretch = {.kind = NDX_BROADCAST, .n = 2, .shape = (int64_t[]){4, 3}};
  assert_refused(&stretch, &thin, NDX_EUNSUPPORTED, 0, "broadcast stretch");
}

Test(sym, move_errors_come_first_and_noview_after_the_symbolic_rule) {
  ndx_layout l = contiguous(2, (int64_t[]){4, 3});
  ndx_sym_layout s = mark(wrap(&l), 0, 1, 0);
  ndx_move bad_perm = {.kind = NDX_PERMUTE, .n = 2, .perm = (int32_t[]){0, 0}};
  assert_refused(&bad_perm, &s, NDX_EINVAL, 0, "a repeated axis");
  ndx_move bad_count = {.kind = NDX_RESHAPE, .n = 1, .shape = (int64_t[]){5}};
  assert_refused(&bad_count, &s, NDX_EINVAL, 0, "another element count");
  /* [3s,2,2] with the last two transposed: merging them has no view, the
   * symbolic axis stays whole */
  ndx_layout t = make(3, (int64_t[]){3, 2, 2}, (int64_t[]){4, 1, 2}, 0);
  ndx_sym_layout st = mark(wrap(&t), 0, 2, 0);
  ndx_move merge_rest = {.kind = NDX_RESHAPE, .n = 2, .shape = (int64_t[]){3, 4}};
  assert_refused(&merge_rest, &st, NDX_ENOVIEW, 0, "no view elsewhere");
  /* merging the symbolic axis is refused as such, view or no view */
  ndx_layout tt = make(2, (int64_t[]){3, 2}, (int64_t[]){1, 3}, 0);
  ndx_sym_layout stt = mark(wrap(&tt), 0, 2, 0);
  ndx_move flat = {.kind = NDX_RESHAPE, .n = 1, .shape = (int64_t[]){6}};
  assert_refused(&flat, &stt, NDX_EUNSUPPORTED, 0, "merge without a view");
  ndx_sym_layout out;
  cr_assert_eq(ndx_sym_apply(NULL, &flat, &stt), NDX_EINVAL);
  cr_assert_eq(ndx_sym_apply(&out, NULL, &stt), NDX_EINVAL);
  cr_assert_eq(ndx_sym_apply(&out, &flat, NULL), NDX_EINVAL);
}

/* ---- Carrying the symbol (the second seed dropped it on all but flip) --- */

Test(sym, every_move_that_keeps_the_axis_whole_carries_the_symbol) {
  ndx_layout l = contiguous(3, (int64_t[]){2, 5, 3});
  ndx_sym_layout s = mark(wrap(&l), 1, 9, 2);
  ndx_sym_layout o;

  o = sym_apply(&(ndx_move){.kind = NDX_PERMUTE, .n = 3, .perm = (int32_t[]){1, 2, 0}}, &s);
  cr_assert(o.symbolic == 1u && o.symbol[0] == 9 && o.min[0] == 2, "permute");

  o = sym_apply(&(ndx_move){.kind = NDX_BROADCAST, .n = 4, .shape = (int64_t[]){7, 2, 5, 3}}, &s);
  cr_assert(o.symbolic == 4u && o.symbol[2] == 9 && o.min[2] == 2, "broadcast");

  ndx_range whole[3] = {{1, 1, 1}, {0, 5, 1}, {2, 2, -1}};
  o = sym_apply(&(ndx_move){.kind = NDX_SLICE, .n = 3, .ranges = whole}, &s);
  cr_assert(o.symbolic == 2u && o.symbol[1] == 9 && o.reversed == 0, "slice, whole axis");

  ndx_window w = {2, 2, 1, 1};
  o = sym_apply(&(ndx_move){.kind = NDX_WINDOW, .n = 1, .windows = &w}, &s);
  cr_assert(o.symbolic == 2u && o.symbol[1] == 9, "window on another axis");

  o = sym_apply(&(ndx_move){.kind = NDX_RESHAPE, .n = 5, .shape = (int64_t[]){1, 2, 5, 1, 3}}, &s);
  cr_assert(o.symbolic == 4u && o.symbol[2] == 9, "reshape adding extent-1 axes");

  ndx_layout wide = contiguous(4, (int64_t[]){2, 3, 5, 4});
  ndx_sym_layout sw = mark(wrap(&wide), 2, 9, 0);
  o = sym_apply(&(ndx_move){.kind = NDX_RESHAPE, .n = 4, .shape = (int64_t[]){6, 5, 2, 2}}, &sw);
  cr_assert(o.symbolic == 2u && o.symbol[1] == 9, "reshape around the axis");
  cr_assert(ndx_sym_has_dynamic(&o));

  /* with no element, the products after the axis decide where it goes */
  ndx_layout e = contiguous(2, (int64_t[]){0, 3});
  ndx_sym_layout se = mark(wrap(&e), 1, 9, 0);
  o = sym_apply(&(ndx_move){.kind = NDX_RESHAPE, .n = 3, .shape = (int64_t[]){0, 3, 3}}, &se);
  cr_assert(o.symbolic == 4u && o.symbol[2] == 9, "empty reshape");
}

Test(sym, flip_resolves_to_the_live_entries_reversed) {
  ndx_layout l = contiguous(2, (int64_t[]){4, 3}); /* capacity 4 rows */
  ndx_sym_layout s = mark(wrap(&l), 0, 1, 1);
  ndx_range r[2];
  ndx_move flip = flip_move(r, 2, l.shape, 0);
  ndx_sym_layout f = sym_apply(&flip, &s);
  cr_assert_eq(f.reversed, 1u);
  ndx_layout got = resolve(&f, 1, (int32_t[]){1}, (int64_t[]){2});
  ndx_layout want = make(2, (int64_t[]){2, 3}, (int64_t[]){-3, 1}, 3); /* rows 1, 0 */
  assert_same_positions(&got, &want, "flip, 2 live rows");
  /* flipping twice is the identity, tables included */
  ndx_sym_layout ff = sym_apply(&flip, &f);
  cr_assert_eq(memcmp(&ff, &s, sizeof ff), 0);
  /* no live row, and all of them */
  ndx_sym_layout z = mark(wrap(&l), 0, 1, 0);
  ndx_sym_layout fz = sym_apply(&flip, &z);
  ndx_layout none = resolve(&fz, 1, (int32_t[]){1}, (int64_t[]){0});
  cr_assert(none.shape[0] == 0 && ndx_numel(&none) == 0 && none.offset == 0);
  ndx_layout all = resolve(&fz, 1, (int32_t[]){1}, (int64_t[]){4});
  ndx_layout flipped;
  cr_assert_eq(ndx_flip(&flipped, &l, 0), NDX_OK);
  assert_same_positions(&all, &flipped, "flip, every row live");
}

/* ---- Resolving ------------------------------------------------------------ */

Test(sym, resolve_keeps_strides_and_offset) {
  ndx_layout l = make(2, (int64_t[]){3, 5}, (int64_t[]){1, 4}, 6);
  ndx_sym_layout s = mark(wrap(&l), 1, 4, 1);
  ndx_layout got = resolve(&s, 2, (int32_t[]){8, 4}, (int64_t[]){99, 2});
  ndx_layout want = make(2, (int64_t[]){3, 2}, (int64_t[]){1, 4}, 6);
  assert_same_positions(&got, &want, "two live entries of five");
  ndx_layout one = resolve(&s, 1, (int32_t[]){4}, (int64_t[]){1});
  cr_assert_eq(one.strides[1], 0, "canonical form: an extent-1 axis has stride 0");
}

Test(sym, one_symbol_on_two_axes) {
  ndx_layout l = contiguous(2, (int64_t[]){4, 4});
  ndx_sym_layout s = mark(mark(wrap(&l), 0, 3, 0), 1, 3, 1);
  ndx_layout got = resolve(&s, 1, (int32_t[]){3}, (int64_t[]){2});
  ndx_layout want = make(2, (int64_t[]){2, 2}, (int64_t[]){4, 1}, 0);
  assert_same_positions(&got, &want, "a square live block");
  ndx_layout out;
  memset(&out, 0x5a, sizeof out);
  ndx_sym_env zero = {1, (int32_t[]){3}, (int64_t[]){0}};
  cr_assert_eq(ndx_sym_resolve(&out, &s, &zero), NDX_EINVAL, "0 is below axis 1's min");
  cr_assert(strstr(ndx_last_error(), "axis 1"), "%s", ndx_last_error());
}

Test(sym, resolve_refuses_unbound_symbols_and_values_out_of_bounds) {
  ndx_layout l = contiguous(3, (int64_t[]){2, 6, 3});
  ndx_sym_layout s = mark(wrap(&l), 1, 42, 2);
  ndx_layout out, sentinel;
  memset(&out, 0x5a, sizeof out);
  memcpy(&sentinel, &out, sizeof out);

  ndx_sym_env unbound = {1, (int32_t[]){41}, (int64_t[]){3}};
  cr_assert_eq(ndx_sym_resolve(&out, &s, &unbound), NDX_EINVAL);
  const char *msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_sym_resolve") && strstr(msg, "axis 1") && strstr(msg, "symbol 42"),
            "%s", msg);
  ndx_sym_env empty = {0, NULL, NULL};
  cr_assert_eq(ndx_sym_resolve(&out, &s, &empty), NDX_EINVAL);

  ndx_sym_env low = {1, (int32_t[]){42}, (int64_t[]){1}};
  cr_assert_eq(ndx_sym_resolve(&out, &s, &low), NDX_EINVAL);
  msg = ndx_last_error();
  cr_assert(strstr(msg, "axis 1") && strstr(msg, "symbol 42") && strstr(msg, "1") &&
                strstr(msg, "[2, 6]"),
            "%s", msg);
  ndx_sym_env high = {1, (int32_t[]){42}, (int64_t[]){7}};
  cr_assert_eq(ndx_sym_resolve(&out, &s, &high), NDX_EINVAL);
  msg = ndx_last_error();
  cr_assert(strstr(msg, "axis 1") && strstr(msg, "symbol 42") && strstr(msg, "7") &&
                strstr(msg, "[2, 6]"),
            "%s", msg);
  cr_assert_eq(memcmp(&out, &sentinel, sizeof out), 0, "out untouched on failure");

  cr_assert_eq(ndx_sym_resolve(NULL, &s, &low), NDX_EINVAL);
  cr_assert_eq(ndx_sym_resolve(&out, NULL, &low), NDX_EINVAL);
  cr_assert_eq(ndx_sym_resolve(&out, &s, NULL), NDX_EINVAL);
  ndx_sym_env broken = {1, NULL, NULL};
  cr_assert_eq(ndx_sym_resolve(&out, &s, &broken), NDX_EINVAL);
  cr_assert_eq(memcmp(&out, &sentinel, sizeof out), 0, "out untouched on failure");
}

Test(sym, a_plain_layout_resolves_to_itself) {
  ndx_layout l = make(2, (int64_t[]){3, 2}, (int64_t[]){-2, 1}, 4);
  ndx_sym_layout s = wrap(&l);
  cr_assert_not(ndx_sym_has_dynamic(&s));
  ndx_layout got = resolve(&s, 0, NULL, NULL);
  cr_assert(ndx_equal(&got, &l));
  /* without symbolic axes, a move is ndx_apply's, failures included */
  ndx_move flat = {.kind = NDX_RESHAPE, .n = 1, .shape = (int64_t[]){6}};
  assert_refused(&flat, &s, NDX_ENOVIEW, 0, "no view");
  ndx_move rows = {.kind = NDX_RESHAPE, .n = 3, .shape = (int64_t[]){3, 1, 2}};
  ndx_sym_layout moved = sym_apply(&rows, &s);
  ndx_layout plain;
  cr_assert_eq(ndx_apply(&plain, &rows, &l), NDX_OK);
  cr_assert(ndx_equal(&moved.layout, &plain) && moved.symbolic == 0);
}

/* ---- Wrapping and marking ------------------------------------------------ */

Test(sym, has_dynamic_follows_the_marks) {
  ndx_layout l = contiguous(2, (int64_t[]){3, 4});
  ndx_sym_layout s = wrap(&l);
  cr_assert_not(ndx_sym_has_dynamic(&s));
  cr_assert_not(ndx_sym_has_dynamic(NULL));
  ndx_sym_layout m = mark(s, 1, 0, 0);
  cr_assert(ndx_sym_has_dynamic(&m));
  cr_assert(ndx_equal(&m.layout, &l), "marking keeps the capacity layout");
  ndx_sym_layout moved =
      sym_apply(&(ndx_move){.kind = NDX_PERMUTE, .n = 2, .perm = (int32_t[]){1, 0}}, &m);
  cr_assert(ndx_sym_has_dynamic(&moved));
  cr_assert_eq(ndx_sym_wrap(NULL, &l), NDX_EINVAL);
  cr_assert_eq(ndx_sym_wrap(&s, NULL), NDX_EINVAL);
}

Test(sym, mark_refuses_bad_arguments) {
  ndx_layout l = contiguous(2, (int64_t[]){3, 4});
  ndx_sym_layout s = mark(wrap(&l), 0, 5, 1), out, sentinel;
  memset(&out, 0x77, sizeof out);
  memcpy(&sentinel, &out, sizeof out);
  struct {
    int axis;
    int32_t symbol;
    int64_t min;
    const char *names;
  } bad[] = {
      {2, 6, 0, "axis 2"}, {-1, 6, 0, "axis -1"}, {0, 6, 0, "axis 0"}, /* already symbolic */
      {1, -1, 0, "-1"},    {1, 6, 5, "5"},        {1, 6, -1, "-1"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cr_assert_eq(ndx_sym_mark(&out, &s, bad[i].axis, bad[i].symbol, bad[i].min), NDX_EINVAL,
                 "case %zu", i);
    const char *msg = ndx_last_error();
    cr_assert(strstr(msg, "ndx_sym_mark") && strstr(msg, bad[i].names), "case %zu: %s", i, msg);
  }
  cr_assert_eq(memcmp(&out, &sentinel, sizeof out), 0);
  cr_assert_eq(ndx_sym_mark(NULL, &s, 1, 6, 0), NDX_EINVAL);
  cr_assert_eq(ndx_sym_mark(&out, NULL, 1, 6, 0), NDX_EINVAL);
  /* min may be the whole extent, and 0 */
  cr_assert_eq(ndx_sym_mark(&out, &s, 1, 6, 4), NDX_OK);
  ndx_layout empty = contiguous(1, (int64_t[]){0});
  cr_assert_eq(ndx_sym_mark(&out, &(ndx_sym_layout){.layout = empty}, 0, 1, 0), NDX_OK);
}

/* Review finding: a flip of a symbolic axis of capacity 1 set `reversed`,
 * where it means nothing, so equal layouts differed byte for byte. */
Test(sym_apply, a_flip_at_capacity_one_leaves_reversed_clear) {
  ndx_layout l = contiguous(2, (int64_t[]){1, 3});
  ndx_sym_layout s, f;
  cr_assert_eq(ndx_sym_wrap(&s, &l), NDX_OK);
  cr_assert_eq(ndx_sym_mark(&s, &s, 0, 7, 0), NDX_OK);
  ndx_move m = {.kind = NDX_SLICE, .n = 2, .ranges = (ndx_range[]){{0, 1, -1}, {0, 3, 1}}};
  cr_assert_eq(ndx_sym_apply(&f, &m, &s), NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(f.reversed, 0u);
  cr_assert_eq(memcmp(&f, &s, sizeof f), 0);
}
