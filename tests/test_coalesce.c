/* test_coalesce.c: ndx_coalesce (REFERENCE.md section 3, the first seed's
 * `coalesce`): layouts of one shape become layouts of one shape reaching the
 * same positions in the same C order, extent-1 axes dropped, axis i merged
 * into axis i+1 wherever every layout has stride[i] == stride[i+1]*d[i+1],
 * never reordered, each with at least one axis. Unit tests use literals;
 * the property test compares with a brute-force enumeration. */
#include <criterion/criterion.h>
#include <string.h>

#include "host/ndx_internal.h" /* ndx_layout_flaw, ndx_coalesce_checked: the general path */
#include "ndx/ndx_layout.h"
#include "oracle.h"
#include "suite.h"

/* Coalesces one layout, asserting NDX_OK. */
static ndx_layout coalesce1(const ndx_layout *l) {
  ndx_layout out;
  ndx_status s = ndx_coalesce(1, l, &out);
  cr_assert_eq(s, NDX_OK, "ndx_coalesce: %s (%s)", ndx_status_name(s), ndx_last_error());
  return out;
}

/* Asserts a failing ndx_coalesce: the status, and every output untouched. */
static void expect_coalesce_fails(ndx_status want, int n, const ndx_layout *in, int room,
                                  const char *what) {
  static ndx_layout out[NDX_COALESCE_MAX + 2], before[NDX_COALESCE_MAX + 2];
  memset(out, 0xA5, sizeof out);
  memcpy(before, out, sizeof out);
  ndx_status s = ndx_coalesce(n, in, room ? out : NULL);
  cr_assert_eq(s, want, "%s: want %s, got %s", what, ndx_status_name(want), ndx_status_name(s));
  cr_assert_eq(memcmp(out, before, sizeof out), 0, "%s: out written on failure", what);
  cr_assert_neq(ndx_last_error()[0], '\0', "%s: no message", what);
}

/* ---- units ------------------------------------------------------------------- */

Test(coalesce, contiguous_becomes_one_axis) {
  ndx_layout l = make(3, (int64_t[]){2, 3, 4}, (int64_t[]){12, 4, 1}, 5);
  ndx_layout out = coalesce1(&l);
  expect_layout(&out, 1, (int64_t[]){24}, (int64_t[]){1}, 5, "[2,3,4]");
}

Test(coalesce, a_4d_transpose_becomes_2d) {
  /* contiguous [2,3,4,5] permuted by [2,3,0,1]: [4,5,2,3] strides [5,1,60,20] */
  ndx_layout l = make(4, (int64_t[]){4, 5, 2, 3}, (int64_t[]){5, 1, 60, 20}, 0);
  ndx_layout out = coalesce1(&l);
  expect_layout(&out, 2, (int64_t[]){20, 6}, (int64_t[]){1, 20}, 0, "4-d transpose");
}

Test(coalesce, slices_of_a_contiguous_layout) {
  /* rows 1..2 of a contiguous [4,6]: one run */
  ndx_layout rows = make(2, (int64_t[]){2, 6}, (int64_t[]){6, 1}, 6);
  ndx_layout out = coalesce1(&rows);
  expect_layout(&out, 1, (int64_t[]){12}, (int64_t[]){1}, 6, "rows");
  /* columns 1..3: two axes stay */
  ndx_layout cols = make(2, (int64_t[]){4, 3}, (int64_t[]){6, 1}, 1);
  out = coalesce1(&cols);
  expect_layout(&out, 2, (int64_t[]){4, 3}, (int64_t[]){6, 1}, 1, "columns");
  /* every other element of a [12]: stays one axis of stride 2 */
  ndx_layout step = make(2, (int64_t[]){3, 2}, (int64_t[]){4, 2}, 0);
  out = coalesce1(&step);
  expect_layout(&out, 1, (int64_t[]){6}, (int64_t[]){2}, 0, "stride 2");
}

Test(coalesce, extent_one_axes_dropped_whatever_their_stride) {
  ndx_layout l = make(3, (int64_t[]){2, 1, 3}, (int64_t[]){3, 99, 1}, 0);
  ndx_layout out = coalesce1(&l);
  expect_layout(&out, 1, (int64_t[]){6}, (int64_t[]){1}, 0, "[2,1,3]");
  l = make(5, (int64_t[]){1, 3, 1, 4, 1}, (int64_t[]){-7, 1, INT64_MIN, 3, 5}, 2);
  out = coalesce1(&l);
  expect_layout(&out, 2, (int64_t[]){3, 4}, (int64_t[]){1, 3}, 2, "Fortran order, 1s dropped");
}

Test(coalesce, single_element_and_rank_zero_become_one) {
  ndx_layout s = make(0, none, none, 7);
  ndx_layout out = coalesce1(&s);
  expect_layout(&out, 1, (int64_t[]){1}, (int64_t[]){0}, 7, "rank 0");
  s = make(3, (int64_t[]){1, 1, 1}, (int64_t[]){4, 5, 6}, 3);
  out = coalesce1(&s);
  expect_layout(&out, 1, (int64_t[]){1}, (int64_t[]){0}, 3, "[1,1,1]");
  ndx_layout two[2] = {make(0, none, none, 1), make(0, none, none, 9)}, res[2];
  cr_assert_eq(ndx_coalesce(2, two, res), NDX_OK);
  expect_layout(&res[0], 1, (int64_t[]){1}, (int64_t[]){0}, 1, "first of two");
  expect_layout(&res[1], 1, (int64_t[]){1}, (int64_t[]){0}, 9, "second of two");
}

Test(coalesce, empty_becomes_zero) {
  ndx_layout z = make(3, (int64_t[]){3, 0, 2}, (int64_t[]){2, 1, 1}, 4);
  ndx_layout out = coalesce1(&z);
  expect_layout(&out, 1, (int64_t[]){0}, (int64_t[]){0}, 0, "[3,0,2]");
  ndx_layout two[2] = {z, make(3, (int64_t[]){3, 0, 2}, (int64_t[]){-1, 5, 3}, 0)}, res[2];
  cr_assert_eq(ndx_coalesce(2, two, res), NDX_OK);
  expect_layout(&res[0], 1, (int64_t[]){0}, (int64_t[]){0}, 0, "first");
  expect_layout(&res[1], 1, (int64_t[]){0}, (int64_t[]){0}, 0, "second");
}

Test(coalesce, broadcast_axes) {
  ndx_layout b = make(2, (int64_t[]){2, 3}, (int64_t[]){0, 1}, 0);
  ndx_layout out = coalesce1(&b);
  expect_layout(&out, 2, (int64_t[]){2, 3}, (int64_t[]){0, 1}, 0, "[3] broadcast to [2,3]");
  b = make(2, (int64_t[]){2, 3}, (int64_t[]){0, 0}, 4);
  out = coalesce1(&b);
  expect_layout(&out, 1, (int64_t[]){6}, (int64_t[]){0}, 4, "a scalar broadcast");
  b = make(3, (int64_t[]){2, 3, 4}, (int64_t[]){0, 0, 1}, 0);
  out = coalesce1(&b);
  expect_layout(&out, 2, (int64_t[]){6, 4}, (int64_t[]){0, 1}, 0, "two broadcast axes merge");
}

Test(coalesce, negative_strides) {
  ndx_layout f = make(2, (int64_t[]){2, 3}, (int64_t[]){-3, -1}, 5);
  ndx_layout out = coalesce1(&f);
  expect_layout(&out, 1, (int64_t[]){6}, (int64_t[]){-1}, 5, "both flipped");
  f = make(2, (int64_t[]){2, 3}, (int64_t[]){-3, 1}, 3);
  out = coalesce1(&f);
  expect_layout(&out, 2, (int64_t[]){2, 3}, (int64_t[]){-3, 1}, 3, "one flipped");
}

Test(coalesce, never_reorders_axes) {
  ndx_layout f = make(2, (int64_t[]){3, 4}, (int64_t[]){1, 3}, 0); /* Fortran order */
  ndx_layout out = coalesce1(&f);
  expect_layout(&out, 2, (int64_t[]){3, 4}, (int64_t[]){1, 3}, 0, "Fortran order");
}

Test(coalesce, a_merge_needs_every_layout) {
  ndx_layout in[2] = {make(3, (int64_t[]){2, 3, 4}, (int64_t[]){12, 4, 1}, 0),
                      make(3, (int64_t[]){2, 3, 4}, (int64_t[]){12, 1, 3}, 0)};
  ndx_layout out[2];
  cr_assert_eq(ndx_coalesce(2, in, out), NDX_OK);
  expect_layout(&out[0], 3, (int64_t[]){2, 3, 4}, (int64_t[]){12, 4, 1}, 0, "contiguous");
  expect_layout(&out[1], 3, (int64_t[]){2, 3, 4}, (int64_t[]){12, 1, 3}, 0, "inner transpose");
  /* every other block of a [4,3,4]: the inner two axes merge in both */
  in[1] = make(3, (int64_t[]){2, 3, 4}, (int64_t[]){24, 4, 1}, 12);
  cr_assert_eq(ndx_coalesce(2, in, out), NDX_OK);
  expect_layout(&out[0], 2, (int64_t[]){2, 12}, (int64_t[]){12, 1}, 0, "contiguous");
  expect_layout(&out[1], 2, (int64_t[]){2, 12}, (int64_t[]){24, 1}, 12, "strided blocks");
}

Test(coalesce, extent_one_axis_does_not_block_a_merge_of_others) {
  ndx_layout in[2] = {make(4, (int64_t[]){2, 1, 3, 4}, (int64_t[]){12, 5, 4, 1}, 0),
                      make(4, (int64_t[]){2, 1, 3, 4}, (int64_t[]){-24, -1, 8, 2}, 24)};
  ndx_layout out[2];
  cr_assert_eq(ndx_coalesce(2, in, out), NDX_OK);
  expect_layout(&out[0], 2, (int64_t[]){2, 12}, (int64_t[]){12, 1}, 0, "first");
  expect_layout(&out[1], 2, (int64_t[]){2, 12}, (int64_t[]){-24, 2}, 24, "second");
}

Test(coalesce, rank_32) {
  int64_t twos[NDX_MAX_RANK];
  for (int a = 0; a < NDX_MAX_RANK; a++) twos[a] = 2;
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, NDX_MAX_RANK, twos), NDX_OK);
  ndx_layout out = coalesce1(&l);
  expect_layout(&out, 1, (int64_t[]){INT64_C(1) << 32}, (int64_t[]){1}, 0, "32 axes");
}

Test(coalesce, out_may_alias_in) {
  ndx_layout in[3] = {make(3, (int64_t[]){2, 3, 4}, (int64_t[]){12, 4, 1}, 0),
                      make(3, (int64_t[]){2, 3, 4}, (int64_t[]){24, 4, 1}, 1),
                      make(3, (int64_t[]){2, 3, 4}, (int64_t[]){0, 4, 1}, 2)};
  ndx_layout sep[3];
  cr_assert_eq(ndx_coalesce(3, in, sep), NDX_OK);
  cr_assert_eq(ndx_coalesce(3, in, in), NDX_OK);
  for (int k = 0; k < 3; k++) cr_assert(ndx_equal(&in[k], &sep[k]), "layout %d", k);
  expect_layout(&in[2], 2, (int64_t[]){2, 12}, (int64_t[]){0, 1}, 2, "third");
}

Test(coalesce, n_from_1_to_the_maximum) {
  static ndx_layout in[NDX_COALESCE_MAX + 1], out[NDX_COALESCE_MAX + 1];
  for (int k = 0; k <= NDX_COALESCE_MAX; k++)
    in[k] = make(2, (int64_t[]){2, 3}, (int64_t[]){3, 1}, k);
  cr_assert_eq(ndx_coalesce(NDX_COALESCE_MAX, in, out), NDX_OK);
  for (int k = 0; k < NDX_COALESCE_MAX; k++)
    expect_layout(&out[k], 1, (int64_t[]){6}, (int64_t[]){1}, k, "64 layouts");
  expect_coalesce_fails(NDX_EINVAL, NDX_COALESCE_MAX + 1, in, 1, "n = 65");
  expect_coalesce_fails(NDX_EINVAL, 0, in, 1, "n = 0");
  expect_coalesce_fails(NDX_EINVAL, -1, in, 1, "n = -1");
}

Test(coalesce, shapes_must_match) {
  ndx_layout in[3] = {make(2, (int64_t[]){2, 3}, (int64_t[]){3, 1}, 0),
                      make(2, (int64_t[]){3, 2}, (int64_t[]){2, 1}, 0),
                      make(1, (int64_t[]){6}, (int64_t[]){1}, 0)};
  expect_coalesce_fails(NDX_EINVAL, 2, in, 1, "[2,3] and [3,2]");
  expect_coalesce_fails(NDX_EINVAL, 2, in + 1, 1, "[3,2] and [6]");
  ndx_layout r[2] = {in[0], make(3, (int64_t[]){2, 3, 1}, (int64_t[]){3, 1, 0}, 0)};
  expect_coalesce_fails(NDX_EINVAL, 2, r, 1, "[2,3] and [2,3,1]");
  const char *msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_coalesce"), "names the call: %s", msg);
  /* in place, a failure leaves the inputs as they were */
  ndx_layout copy[2] = {r[0], r[1]};
  cr_assert_eq(ndx_coalesce(2, copy, copy), NDX_EINVAL);
  cr_assert_eq(memcmp(copy, r, sizeof copy), 0);
  /* a mismatch after the first matching pair */
  ndx_layout m[3] = {in[0], in[0], in[1]};
  expect_coalesce_fails(NDX_EINVAL, 3, m, 1, "third differs");
}

Test(coalesce, null_pointers_are_einval) {
  ndx_layout l = make(2, (int64_t[]){2, 3}, (int64_t[]){3, 1}, 0);
  expect_coalesce_fails(NDX_EINVAL, 1, NULL, 1, "NULL in");
  expect_coalesce_fails(NDX_EINVAL, 1, &l, 0, "NULL out");
}

/* A layout with a rank outside [0, 32] (not one an ndx_ call builds) is
 * NDX_EINVAL, never a read past the arrays. */
Test(coalesce, a_bad_rank_is_einval) {
  ndx_layout l = make(2, (int64_t[]){2, 3}, (int64_t[]){3, 1}, 0);
  int bad[] = {-1, NDX_MAX_RANK + 1, INT32_MIN, INT32_MAX};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char what[64];
    snprintf(what, sizeof what, "rank %d", bad[i]);
    ndx_layout b[2] = {l, l};
    b[0].rank = b[1].rank = bad[i];
    expect_coalesce_fails(NDX_EINVAL, 2, b, 1, what);
    expect_coalesce_fails(NDX_EINVAL, 1, b, 1, what);
  }
}

Test(coalesce, message_unchanged_after_success) {
  expect_coalesce_fails(NDX_EINVAL, 0, NULL, 1, "n = 0");
  char before[4096];
  snprintf(before, sizeof before, "%s", ndx_last_error());
  ndx_layout l = make(2, (int64_t[]){2, 3}, (int64_t[]){3, 1}, 0);
  coalesce1(&l);
  cr_assert_str_eq(ndx_last_error(), before);
}

/* ---- property ------------------------------------------------------------------ */

/* The result the rule gives, written out: drop extent-1 axes, then merge
 * adjacent kept axes where every layout has stride[a] == stride[b]*d[b]. */
static void oracle_coalesce(int n, const ndx_layout *in, ndx_layout *out) {
  const ndx_layout *l0 = &in[0];
  int64_t numel = oracle_numel(l0);
  int kept[NDX_MAX_RANK], nk = 0;
  for (int a = 0; a < l0->rank; a++)
    if (l0->shape[a] != 1) kept[nk++] = a;
  for (int k = 0; k < n; k++) {
    memset(&out[k], 0, sizeof out[k]);
    out[k].rank = 1;
    out[k].shape[0] = numel == 0 ? 0 : 1;
    out[k].offset = numel == 0 ? 0 : in[k].offset;
  }
  if (numel <= 1) return;
  int groups[NDX_MAX_RANK + 1], ng = 0; /* group g spans kept[groups[g] .. groups[g+1]) */
  groups[ng++] = 0;
  for (int i = 1; i < nk; i++) {
    int a = kept[i - 1], b = kept[i];
    bool merge = true;
    for (int k = 0; k < n; k++)
      merge = merge && in[k].strides[a] == in[k].strides[b] * in[k].shape[b];
    if (!merge) groups[ng++] = i;
  }
  groups[ng] = nk;
  for (int k = 0; k < n; k++) {
    out[k].rank = ng;
    for (int g = 0; g < ng; g++) {
      int64_t d = 1;
      for (int i = groups[g]; i < groups[g + 1]; i++) d *= l0->shape[kept[i]];
      out[k].shape[g] = d;
      out[k].strides[g] = in[k].strides[kept[groups[g + 1] - 1]];
    }
  }
}

/* Inputs of one shape, often correlated so that merges happen: scaled
 * copies of one view-like layout, other view-like layouts, random ones. */
static int random_inputs(oracle_rng *rng, ndx_layout *in) {
  int64_t shape[NDX_MAX_RANK];
  int rank = oracle_random_shape(rng, 6, 4, 12, shape);
  for (int a = 0; a < rank; a++) /* more extent-1 axes than uniform */
    if (oracle_between(rng, 0, 5) == 0) shape[a] = 1;
  int n = (int)oracle_between(rng, 1, 16);
  ndx_layout base = oracle_view_layout_of_shape(rng, rank, shape);
  for (int k = 0; k < n; k++) {
    int64_t how = oracle_between(rng, 0, 9);
    if (k == 0 || how < 5) {
      static const int64_t scale[] = {1, 2, -1, 3};
      int64_t c = k == 0 ? 1 : scale[oracle_between(rng, 0, 3)], strides[NDX_MAX_RANK];
      int64_t offset = oracle_between(rng, 0, 4);
      for (int a = 0; a < rank; a++) {
        strides[a] = base.strides[a] * c;
        if (shape[a] > 1 && strides[a] < 0) offset += (shape[a] - 1) * -strides[a];
      }
      if (k > 0 && rank > 0 && oracle_between(rng, 0, 5) == 0) /* break a run */
        strides[oracle_between(rng, 0, rank - 1)] += 1, offset += 8 * 4;
      if (ndx_make(&in[k], rank, shape, strides, offset) != NDX_OK) in[k] = base;
    } else if (how < 8) {
      in[k] = oracle_view_layout_of_shape(rng, rank, shape);
    } else {
      in[k] = oracle_random_layout_of_shape(rng, rank, shape, 4, 3);
    }
  }
  return n;
}

Test(property, coalesce_keeps_positions_in_order_and_leaves_no_mergeable_pair) {
  static ndx_layout in[16], out[16], alias[16], want[16];
  static int64_t pin[4096], pout[4096];
  int merged = 0;
  for (int t = 0; t < 3000; t++) {
    oracle_rng rng = {0xC0A10000u + (uint64_t)t};
    int n = random_inputs(&rng, in);
    memset(out, 0xC3, sizeof out);
    ndx_status s = ndx_coalesce(n, in, out);
    char d0[512];
    oracle_describe(d0, sizeof d0, &in[0]);
    cr_assert_eq(s, NDX_OK, "trial %d (n %d, first %s): %s (%s)", t, n, d0, ndx_status_name(s),
                 ndx_last_error());
    int64_t numel = oracle_numel(&in[0]);
    int rank = out[0].rank;
    merged += rank < in[0].rank;
    cr_assert(rank >= 1 && rank <= NDX_MAX_RANK, "trial %d: rank %d", t, rank);
    for (int k = 0; k < n; k++) {
      char din[512], dout[512];
      oracle_describe(din, sizeof din, &in[k]);
      oracle_describe(dout, sizeof dout, &out[k]);
      /* one shape across outputs, canonical, nothing past rank */
      cr_assert_eq(out[k].rank, rank, "trial %d layout %d: %s -> %s", t, k, din, dout);
      for (int a = 0; a < rank; a++)
        cr_assert_eq(out[k].shape[a], out[0].shape[a], "trial %d layout %d: %s", t, k, dout);
      const char *why = oracle_not_canonical(&out[k]);
      cr_assert_null(why, "trial %d layout %d: %s -> %s: %s", t, k, din, dout, why);
      for (int a = rank; a < NDX_MAX_RANK; a++)
        cr_assert(out[k].shape[a] == 0 && out[k].strides[a] == 0, "trial %d: past rank", t);
      /* the same positions in the same C order */
      cr_assert_eq(oracle_numel(&out[k]), numel, "trial %d layout %d: %s -> %s", t, k, din, dout);
      oracle_positions(&in[k], pin);
      oracle_positions(&out[k], pout);
      for (int64_t e = 0; e < numel; e++)
        cr_assert_eq(pout[e], pin[e], "trial %d layout %d: %s -> %s: element %lld", t, k, din, dout,
                     (long long)e);
      /* no extent-1 axis unless the result is [1]; an empty one is [0] */
      if (numel == 0) cr_assert(rank == 1 && out[k].shape[0] == 0, "trial %d: %s", t, dout);
      if (numel == 1) cr_assert(rank == 1 && out[k].shape[0] == 1, "trial %d: %s", t, dout);
      for (int a = 0; numel > 1 && a < rank; a++)
        cr_assert_neq(out[k].shape[a], 1, "trial %d layout %d: %s -> %s", t, k, din, dout);
    }
    /* no adjacent pair that every layout lays out as one run */
    for (int a = 0; a + 1 < rank; a++) {
      bool mergeable = true;
      for (int k = 0; k < n; k++)
        mergeable = mergeable && out[k].strides[a] == out[k].strides[a + 1] * out[k].shape[a + 1];
      cr_assert_not(mergeable, "trial %d: axes %d and %d of the results still merge", t, a, a + 1);
    }
    /* exactly the rule's result */
    oracle_coalesce(n, in, want);
    for (int k = 0; k < n; k++) {
      char dw[512], dout[512];
      cr_assert(ndx_equal(&out[k], &want[k]), "trial %d layout %d: got %s, the rule gives %s", t, k,
                oracle_describe(dout, sizeof dout, &out[k]),
                oracle_describe(dw, sizeof dw, &want[k]));
    }
    /* in place, the same */
    memcpy(alias, in, sizeof(ndx_layout) * (size_t)n);
    cr_assert_eq(ndx_coalesce(n, alias, alias), NDX_OK, "trial %d in place", t);
    for (int k = 0; k < n; k++)
      cr_assert(ndx_equal(&alias[k], &out[k]), "trial %d layout %d in place", t, k);
  }
  cr_assert_gt(merged, 600, "the generator makes merges happen (%d)", merged);
}

/* ---- the common case against the checks and the general merge ------------------- */

/* An extent near the limits or small, 1 often. */
static int64_t edge_extent(oracle_rng *rng) {
  static const int64_t big[] = {INT64_C(1) << 20, INT64_C(1) << 26, INT64_C(1) << 52,
                                (INT64_C(1) << 53) + 1, 0};
  int64_t how = oracle_between(rng, 0, 9);
  return how < 3 ? 1 : how < 8 ? oracle_between(rng, 2, 4) : big[oracle_between(rng, 0, 4)];
}

/* A stride written by hand for axis a: often stride * extent of the axis of
 * extent > 1 inside it, in uint64 so that a big one wraps past int64 (as
 * ndx_coalesce's merge test computes it), else small, huge or a limit. */
static int64_t edge_stride(oracle_rng *rng, uint64_t inner_step) {
  int64_t how = oracle_between(rng, 0, 9);
  if (how < 5) return (int64_t)inner_step;
  if (how < 8) return oracle_between(rng, -4, 4);
  if (how < 9)
    return (oracle_between(rng, 0, 1) ? 1 : -1) * (INT64_C(1) << oracle_between(rng, 40, 62));
  return oracle_between(rng, 0, 1) ? INT64_MIN : INT64_MAX;
}

/* n hand-written layouts of one shape (one time in eight, one differs), with
 * strides and offsets near the limits, so that both the layouts the common
 * case takes and the ones it must leave to the checks come up. */
static int edge_inputs(oracle_rng *rng, ndx_layout *in) {
  int n = (int)oracle_between(rng, 1, 4), rank = (int)oracle_between(rng, 0, 5);
  int64_t shape[NDX_MAX_RANK];
  for (int a = 0; a < rank; a++) shape[a] = edge_extent(rng);
  for (int k = 0; k < n; k++) {
    ndx_layout *l = &in[k];
    memset(l, 0, sizeof *l);
    l->rank = rank;
    uint64_t inner_step = (uint64_t)oracle_between(rng, 1, 3);
    for (int a = rank - 1; a >= 0; a--) {
      l->shape[a] = shape[a];
      l->strides[a] = edge_stride(rng, inner_step);
      if (shape[a] != 1) inner_step = (uint64_t)l->strides[a] * (uint64_t)shape[a];
    }
    int64_t lo = 0; /* the offset that puts the least position at 0, where it fits */
    for (int a = 0; a < rank; a++) {
      int64_t reach;
      if (shape[a] > 1 && !__builtin_mul_overflow(shape[a] - 1, l->strides[a], &reach) &&
          reach < 0 && reach > INT64_MIN)
        lo = __builtin_add_overflow(lo, -reach, &lo) ? INT64_MAX : lo;
    }
    int64_t how = oracle_between(rng, 0, 5);
    l->offset = how < 3   ? (lo > INT64_MAX - 2 ? lo : lo + oracle_between(rng, 0, 2))
                : how < 4 ? NDX_MAX_NUMEL - oracle_between(rng, 1, 2)
                : how < 5 ? -1
                          : oracle_between(rng, 0, 1000);
    if (oracle_between(rng, 0, 7) == 0) { /* another shape or rank */
      if (rank > 0 && oracle_between(rng, 0, 1))
        l->shape[oracle_between(rng, 0, rank - 1)] += oracle_between(rng, 1, 2);
      else
        l->rank = rank + 1;
    }
  }
  return n;
}

/* What ndx_coalesce must do, by the checks and the merge on checked layouts. */
static ndx_status general_coalesce(int n, const ndx_layout *in, ndx_layout *out) {
  for (int k = 0; k < n; k++)
    if (ndx_layout_flaw(&in[k], NULL, 0)) return NDX_EINVAL;
  for (int k = 1; k < n; k++) {
    if (in[k].rank != in[0].rank) return NDX_EINVAL;
    for (int a = 0; a < in[0].rank; a++)
      if (in[k].shape[a] != in[0].shape[a]) return NDX_EINVAL;
  }
  ndx_coalesce_checked(n, in, out);
  return NDX_OK;
}

/* ndx_coalesce takes the common case (every layout within the limits with an
 * element) in a pass of its own that merges first and checks the positions
 * on the merged axes; it must accept exactly what the checks accept and write
 * exactly what the general merge writes, on layouts near every limit. */
Test(property, the_common_case_agrees_with_the_checks_and_the_general_merge) {
  static ndx_layout in[4], out[4], want[4], before[4];
  int accepted = 0, refused = 0;
  for (int t = 0; t < 20000; t++) {
    oracle_rng rng = {0xC0ED0000u + (uint64_t)t};
    int n = edge_inputs(&rng, in);
    memset(out, 0xC3, sizeof out);
    memcpy(before, out, sizeof out);
    memset(want, 0xC3, sizeof want);
    ndx_status s = ndx_coalesce(n, in, out), w = general_coalesce(n, in, want);
    char d0[512];
    oracle_describe(d0, sizeof d0, &in[0]);
    cr_assert_eq(s, w, "trial %d (n %d, first %s): got %s, want %s (%s)", t, n, d0,
                 ndx_status_name(s), ndx_status_name(w), ndx_last_error());
    if (s != NDX_OK) {
      refused++;
      cr_assert_eq(memcmp(out, before, sizeof out), 0, "trial %d: out written on failure", t);
      continue;
    }
    accepted++;
    cr_assert_eq(memcmp(out, want, sizeof(ndx_layout) * (size_t)n), 0,
                 "trial %d (n %d, first %s): the results differ", t, n, d0);
  }
  cr_log_info("accepted %d, refused %d", accepted, refused);
  cr_assert_gt(accepted, 2000, "enough layouts within the limits (%d)", accepted);
  cr_assert_gt(refused, 2000, "enough layouts past them (%d)", refused);
}

/* Review finding: the message did not say which layout had the bad rank. */
Test(coalesce, a_bad_rank_names_the_layout) {
  ndx_layout in[2] = {contiguous(1, (int64_t[]){4}), contiguous(1, (int64_t[]){4})}, out[2];
  in[1].rank = 40;
  cr_assert_eq(ndx_coalesce(2, in, out), NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), "in[1] has rank 40") != NULL, "%s", ndx_last_error());
}
