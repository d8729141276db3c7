/* test_layout.c: construction, limits, canonical form and queries of layouts
 * (REFERENCE.md section 1, the first seed's `v`, `fits`, `span`,
 * `is_contiguous`, `is_distinct`, `equal`, `hash`, `pp`), the text form
 * (ndx_format / ndx_parse), status names and error messages. Each test states
 * one rule and checks it against a literal from a specification or against a
 * brute-force enumeration (oracle.h). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "ndx/ndx_layout.h"
#include "oracle.h"
#include "suite.h"

#define P53 (INT64_C(1) << 53)
#define P52 (INT64_C(1) << 52)

/* Asserts a failing ndx_make: the status, and `out` untouched. */
static void expect_make_fails(ndx_status want, int rank, const int64_t *shape,
                              const int64_t *strides, int64_t offset, const char *what) {
  ndx_layout out, before;
  memset(&out, 0xA5, sizeof out);
  before = out;
  ndx_status s = ndx_make(&out, rank, shape, strides, offset);
  cr_assert_eq(s, want, "%s: want %s, got %s", what, ndx_status_name(want), ndx_status_name(s));
  cr_assert_eq(memcmp(&out, &before, sizeof out), 0, "%s: out written on failure", what);
  cr_assert_neq(ndx_last_error()[0], '\0', "%s: no message", what);
}

static void expect_contiguous_fails(ndx_status want, int rank, const int64_t *shape,
                                    const char *what) {
  ndx_layout out, before;
  memset(&out, 0x5A, sizeof out);
  before = out;
  ndx_status s = ndx_contiguous(&out, rank, shape);
  cr_assert_eq(s, want, "%s: want %s, got %s", what, ndx_status_name(want), ndx_status_name(s));
  cr_assert_eq(memcmp(&out, &before, sizeof out), 0, "%s: out written on failure", what);
  cr_assert_neq(ndx_last_error()[0], '\0', "%s: no message", what);
}

/* ---- fits ------------------------------------------------------------- */

Test(fits, rank_limits) {
  int64_t ones[NDX_MAX_RANK + 1];
  for (int a = 0; a <= NDX_MAX_RANK; a++) ones[a] = 1;
  cr_assert(ndx_fits(0, NULL), "rank 0 with a NULL shape fits");
  cr_assert(ndx_fits(NDX_MAX_RANK, ones), "exactly 32 axes fit");
  cr_assert_not(ndx_fits(NDX_MAX_RANK + 1, ones), "33 axes do not fit");
  cr_assert_not(ndx_fits(-1, ones), "a negative rank does not fit");
}

Test(fits, numel_limit_is_exactly_2_53) {
  cr_assert(ndx_fits(1, (int64_t[]){P53}));
  cr_assert_not(ndx_fits(1, (int64_t[]){P53 + 1}));
  cr_assert(ndx_fits(2, (int64_t[]){INT64_C(1) << 26, INT64_C(1) << 27}));
  cr_assert_not(ndx_fits(3, (int64_t[]){INT64_C(1) << 26, INT64_C(1) << 27, 2}));
  cr_assert(ndx_fits(3, (int64_t[]){2, P52, 1}));
  cr_assert_not(ndx_fits(2, (int64_t[]){3, P52}));
}

Test(fits, a_zero_extent_does_not_hide_the_other_extents) {
  cr_assert(ndx_fits(2, (int64_t[]){0, P53}));
  cr_assert_not(ndx_fits(2, (int64_t[]){0, P53 + 1}), "each extent is at most 2^53");
  cr_assert_not(ndx_fits(3, (int64_t[]){INT64_C(1) << 40, 0, INT64_C(1) << 40}),
                "the product of the non-zero extents is at most 2^53");
}

Test(fits, negative_extent_does_not_fit) {
  cr_assert_not(ndx_fits(1, (int64_t[]){-1}));
  cr_assert_not(ndx_fits(3, (int64_t[]){2, -3, 0}));
  cr_assert_not(ndx_fits(1, (int64_t[]){INT64_MIN}));
}

Test(fits, huge_products_do_not_wrap) {
  int64_t twos[NDX_MAX_RANK], fours[NDX_MAX_RANK];
  for (int a = 0; a < NDX_MAX_RANK; a++) twos[a] = 2, fours[a] = 4;
  cr_assert(ndx_fits(NDX_MAX_RANK, twos), "2^32 elements fit");
  cr_assert_not(ndx_fits(NDX_MAX_RANK, fours), "4^32 = 2^64 wraps to 0 in uint64");
  cr_assert_not(ndx_fits(2, (int64_t[]){INT64_MAX, INT64_MAX}));
  cr_assert_not(ndx_fits(2, (int64_t[]){INT64_C(1) << 32, INT64_C(1) << 32}));
  cr_assert_not(ndx_fits(3, (int64_t[]){INT64_C(1) << 31, INT64_C(1) << 31, INT64_C(1) << 2}),
                "2^64 wraps to 0");
}

/* ---- contiguous -------------------------------------------------------- */

Test(contiguous, c_order_strides_at_offset_zero) {
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, 3, (int64_t[]){2, 3, 4}), NDX_OK);
  expect_layout(&l, 3, (int64_t[]){2, 3, 4}, (int64_t[]){12, 4, 1}, 0, "[2,3,4]");
}

Test(contiguous, extent_one_axes_get_stride_zero) {
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, 4, (int64_t[]){3, 1, 4, 1}), NDX_OK);
  expect_layout(&l, 4, (int64_t[]){3, 1, 4, 1}, (int64_t[]){4, 0, 1, 0}, 0, "[3,1,4,1]");
}

Test(contiguous, empty_layout_has_every_stride_zero) {
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, 3, (int64_t[]){3, 0, 4}), NDX_OK);
  expect_layout(&l, 3, (int64_t[]){3, 0, 4}, (int64_t[]){0, 0, 0}, 0, "[3,0,4]");
}

Test(contiguous, rank_zero_is_one_element_at_zero) {
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, 0, NULL), NDX_OK, "shape may be NULL at rank 0");
  cr_assert_eq(l.rank, 0);
  cr_assert_eq(l.offset, 0);
  cr_assert_eq(ndx_numel(&l), 1);
}

Test(contiguous, rank_32_ok_33_refused) {
  int64_t ones[NDX_MAX_RANK + 1];
  for (int a = 0; a <= NDX_MAX_RANK; a++) ones[a] = 1;
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, NDX_MAX_RANK, ones), NDX_OK);
  cr_assert_eq(l.rank, NDX_MAX_RANK);
  /* the header: NDX_ERANGE for a rank past NDX_MAX_RANK */
  expect_contiguous_fails(NDX_ERANGE, NDX_MAX_RANK + 1, ones, "rank 33");
  expect_contiguous_fails(NDX_EINVAL, -1, ones, "rank -1");
}

Test(contiguous, numel_exactly_2_53_ok_past_refused) {
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, 1, (int64_t[]){P53}), NDX_OK);
  cr_assert_eq(ndx_numel(&l), P53);
  int64_t lo = -1, hi = -1;
  ndx_span(&l, &lo, &hi);
  cr_assert_eq(lo, 0);
  cr_assert_eq(hi, P53);
  cr_assert_eq(ndx_contiguous(&l, 2, (int64_t[]){2, P52}), NDX_OK);
  expect_layout(&l, 2, (int64_t[]){2, P52}, (int64_t[]){P52, 1}, 0, "[2,2^52]");
  expect_contiguous_fails(NDX_ERANGE, 1, (int64_t[]){P53 + 1}, "[2^53+1]");
  expect_contiguous_fails(NDX_ERANGE, 2, (int64_t[]){2, P52 + 1}, "[2,2^52+1]");
  expect_contiguous_fails(NDX_ERANGE, 2, (int64_t[]){INT64_MAX, INT64_MAX}, "[max,max]");
}

Test(contiguous, negative_extent_is_einval) {
  expect_contiguous_fails(NDX_EINVAL, 2, (int64_t[]){3, -1}, "[3,-1]");
  expect_contiguous_fails(NDX_EINVAL, 1, (int64_t[]){INT64_MIN}, "[INT64_MIN]");
}

Test(contiguous, null_pointers_are_einval) {
  cr_assert_eq(ndx_contiguous(NULL, 1, (int64_t[]){3}), NDX_EINVAL);
  expect_contiguous_fails(NDX_EINVAL, 2, NULL, "NULL shape at rank 2");
}

Test(contiguous, property_element_k_at_position_k) {
  oracle_rng rng = {0xC0471};
  int64_t shape[NDX_MAX_RANK], pos[4096];
  for (int t = 0; t < 500; t++) {
    int rank = oracle_random_shape(&rng, 6, 4, 6, shape);
    ndx_layout l;
    cr_assert_eq(ndx_contiguous(&l, rank, shape), NDX_OK, "trial %d", t);
    cr_assert_null(oracle_not_canonical(&l), "trial %d: %s", t, oracle_not_canonical(&l));
    int64_t n = oracle_positions(&l, pos);
    for (int64_t k = 0; k < n; k++)
      cr_assert_eq(pos[k], k, "trial %d element %lld", t, (long long)k);
  }
}

/* ---- make -------------------------------------------------------------- */

Test(make, keeps_shape_strides_and_offset) {
  ndx_layout l = make(3, (int64_t[]){2, 3, 4}, (int64_t[]){-12, 1, 3}, 12);
  expect_layout(&l, 3, (int64_t[]){2, 3, 4}, (int64_t[]){-12, 1, 3}, 12, "make");
}

Test(make, extent_one_stride_dropped_whatever_its_value) {
  ndx_layout l =
      make(5, (int64_t[]){1, 2, 1, 1, 1}, (int64_t[]){7, 1, -5, INT64_MAX, INT64_MIN}, 3);
  expect_layout(&l, 5, (int64_t[]){1, 2, 1, 1, 1}, (int64_t[]){0, 1, 0, 0, 0}, 3,
                "extent-1 axes with odd strides, INT64_MIN included");
  l = make(2, (int64_t[]){1, 1}, (int64_t[]){INT64_MIN, INT64_MIN}, 0);
  expect_layout(&l, 2, (int64_t[]){1, 1}, (int64_t[]){0, 0}, 0, "[1,1] INT64_MIN strides");
}

Test(make, empty_layout_drops_offset_and_strides) {
  ndx_layout l = make(3, (int64_t[]){2, 0, 3}, (int64_t[]){-5, 7, 1}, 9);
  expect_layout(&l, 3, (int64_t[]){2, 0, 3}, (int64_t[]){0, 0, 0}, 0, "[2,0,3]");
  /* the position checks apply only to a layout with an element */
  l = make(2, (int64_t[]){0, 3}, (int64_t[]){1, -1}, -100);
  expect_layout(&l, 2, (int64_t[]){0, 3}, (int64_t[]){0, 0}, 0, "negative offset, empty");
  l = make(1, (int64_t[]){0}, (int64_t[]){1}, INT64_MAX);
  expect_layout(&l, 1, (int64_t[]){0}, (int64_t[]){0}, 0, "offset past 2^53, empty");
  l = make(2, (int64_t[]){0, 2}, (int64_t[]){0, INT64_MAX}, 0);
  expect_layout(&l, 2, (int64_t[]){0, 2}, (int64_t[]){0, 0}, 0, "(d-1)|s| = INT64_MAX fits");
}

Test(make, reach_overflow_is_erange) {
  expect_make_fails(NDX_ERANGE, 1, (int64_t[]){3}, (int64_t[]){INT64_C(1) << 62}, 0,
                    "[3] stride 2^62: 2*2^62 overflows");
  expect_make_fails(NDX_ERANGE, 1, (int64_t[]){3}, (int64_t[]){-(INT64_C(1) << 62)}, 0,
                    "[3] stride -2^62");
  expect_make_fails(NDX_ERANGE, 1, (int64_t[]){INT64_C(1) << 40}, (int64_t[]){INT64_C(1) << 30}, 0,
                    "(2^40-1)*2^30 overflows");
  expect_make_fails(NDX_ERANGE, 1, (int64_t[]){INT64_C(1) << 20}, (int64_t[]){INT64_C(1) << 34}, 0,
                    "(2^20-1)*2^34 fits, the span end is past 2^53");
}

Test(make, reach_is_checked_in_empty_layouts_too) {
  expect_make_fails(NDX_ERANGE, 2, (int64_t[]){0, 3}, (int64_t[]){1, INT64_C(1) << 62}, 0,
                    "[0,3] stride 2^62 on the extent-3 axis");
  expect_make_fails(NDX_ERANGE, 2, (int64_t[]){3, 0}, (int64_t[]){-(INT64_C(1) << 62), 1}, 0,
                    "[3,0] stride -2^62");
}

Test(make, int64_min_stride_refused_on_an_axis_above_one) {
  expect_make_fails(NDX_ERANGE, 1, (int64_t[]){2}, (int64_t[]){INT64_MIN}, 0, "[2] INT64_MIN");
  expect_make_fails(NDX_ERANGE, 2, (int64_t[]){0, 2}, (int64_t[]){0, INT64_MIN}, 0,
                    "[0,2] INT64_MIN, empty");
  ndx_layout l = make(1, (int64_t[]){1}, (int64_t[]){INT64_MIN}, 0);
  cr_assert_eq(l.strides[0], 0);
}

Test(make, negative_position_is_erange) {
  expect_make_fails(NDX_ERANGE, 0, none, none, -1, "rank 0 at offset -1");
  expect_make_fails(NDX_ERANGE, 0, none, none, INT64_MIN, "rank 0 at offset INT64_MIN");
  expect_make_fails(NDX_ERANGE, 1, (int64_t[]){3}, (int64_t[]){-2}, 3, "[3] stride -2 at 3");
  expect_make_fails(NDX_ERANGE, 2, (int64_t[]){2, 2}, (int64_t[]){-1, -1}, 1, "lo = -1");
  ndx_layout l = make(1, (int64_t[]){3}, (int64_t[]){-2}, 4);
  cr_assert_eq(l.offset, 4);
}

Test(make, span_end_at_most_2_53) {
  ndx_layout l = make(0, none, none, P53 - 1);
  cr_assert_eq(l.offset, P53 - 1);
  expect_make_fails(NDX_ERANGE, 0, none, none, P53, "rank 0 at 2^53: span end 2^53+1");
  l = make(1, (int64_t[]){2}, (int64_t[]){P52}, P52 - 1); /* hi = 2^53 */
  cr_assert_eq(l.strides[0], P52);
  expect_make_fails(NDX_ERANGE, 1, (int64_t[]){2}, (int64_t[]){P52}, P52, "hi = 2^53+1");
  expect_make_fails(NDX_ERANGE, 1, (int64_t[]){3}, (int64_t[]){P52}, 0, "[3] stride 2^52");
  l = make(1, (int64_t[]){P53}, (int64_t[]){-1}, P53 - 1);
  int64_t lo, hi;
  ndx_span(&l, &lo, &hi);
  cr_assert_eq(lo, 0);
  cr_assert_eq(hi, P53);
  expect_make_fails(NDX_ERANGE, 1, (int64_t[]){P53}, (int64_t[]){1}, 1, "[2^53] at 1");
}

Test(make, span_sums_do_not_wrap) {
  expect_make_fails(NDX_ERANGE, 1, (int64_t[]){2}, (int64_t[]){INT64_MAX}, 0, "[2] INT64_MAX");
  expect_make_fails(NDX_ERANGE, 2, (int64_t[]){2, 2}, (int64_t[]){INT64_MAX, INT64_MAX}, 0,
                    "sum of reaches overflows");
  expect_make_fails(NDX_ERANGE, 1, (int64_t[]){2}, (int64_t[]){-INT64_MAX}, INT64_MAX,
                    "offset INT64_MAX: hi = INT64_MAX + 1");
  expect_make_fails(NDX_ERANGE, 2, (int64_t[]){2, 2}, (int64_t[]){INT64_MAX, -INT64_MAX}, INT64_MAX,
                    "lo = 0, hi wraps");
  expect_make_fails(NDX_ERANGE, 0, none, none, INT64_MAX, "rank 0 at INT64_MAX");
  expect_make_fails(NDX_ERANGE, 1, (int64_t[]){2}, (int64_t[]){1}, INT64_MAX, "[2] at max");
}

Test(make, negative_extent_is_einval) {
  expect_make_fails(NDX_EINVAL, 2, (int64_t[]){2, -3}, (int64_t[]){1, 1}, 0, "[2,-3]");
  expect_make_fails(NDX_EINVAL, 1, (int64_t[]){-1}, (int64_t[]){0}, 0, "[-1]");
}

Test(make, rank_32_ok_33_refused) {
  int64_t ones[NDX_MAX_RANK + 1], strides[NDX_MAX_RANK + 1];
  for (int a = 0; a <= NDX_MAX_RANK; a++) ones[a] = 1, strides[a] = a;
  ndx_layout l = make(NDX_MAX_RANK, ones, strides, 0);
  cr_assert_eq(l.rank, NDX_MAX_RANK);
  for (int a = 0; a < NDX_MAX_RANK; a++) cr_assert_eq(l.strides[a], 0);
  ndx_layout out, before;
  memset(&out, 0xA5, sizeof out);
  before = out;
  ndx_status s = ndx_make(&out, NDX_MAX_RANK + 1, ones, strides, 0);
  cr_assert(s == NDX_ERANGE || s == NDX_EINVAL, "rank 33 refused, got %s", ndx_status_name(s));
  cr_assert_eq(memcmp(&out, &before, sizeof out), 0);
  expect_make_fails(NDX_EINVAL, -1, ones, strides, 0, "rank -1");
}

Test(make, numel_past_2_53_is_erange) {
  expect_make_fails(NDX_ERANGE, 2, (int64_t[]){INT64_C(1) << 26, (INT64_C(1) << 27) + 1},
                    (int64_t[]){0, 0}, 0, "numel past 2^53, stride 0");
  expect_make_fails(NDX_ERANGE, 1, (int64_t[]){P53 + 1}, (int64_t[]){0}, 0, "[2^53+1] stride 0");
  ndx_layout l = make(2, (int64_t[]){INT64_C(1) << 26, INT64_C(1) << 27}, (int64_t[]){0, 1}, 0);
  cr_assert_eq(ndx_numel(&l), P53);
}

Test(make, null_pointers_are_einval) {
  cr_assert_eq(ndx_make(NULL, 1, (int64_t[]){2}, (int64_t[]){1}, 0), NDX_EINVAL);
  expect_make_fails(NDX_EINVAL, 1, (int64_t[]){2}, NULL, 0, "NULL strides");
  expect_make_fails(NDX_EINVAL, 1, NULL, (int64_t[]){1}, 0, "NULL shape");
}

Test(make, entries_past_rank_are_zero_and_flags_zero) {
  ndx_layout l;
  memset(&l, 0xFF, sizeof l);
  cr_assert_eq(ndx_make(&l, 2, (int64_t[]){3, 4}, (int64_t[]){4, 1}, 2), NDX_OK);
  cr_assert_eq(l.flags, 0u);
  for (int a = 2; a < NDX_MAX_RANK; a++) {
    cr_assert_eq(l.shape[a], 0, "shape[%d]", a);
    cr_assert_eq(l.strides[a], 0, "strides[%d]", a);
  }
}

/* ndx_make accepts a raw small layout iff (for a layout with an element) no
 * position is negative, and returns it in canonical form. */
Test(make, property_canonical_and_accepts_iff_positions_non_negative) {
  int64_t pos[4096];
  for (int t = 0; t < 3000; t++) {
    oracle_rng rng = {0x3A4E0000u + (uint64_t)t};
    int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK];
    int rank = oracle_random_shape(&rng, 6, 4, 6, shape);
    for (int a = 0; a < rank; a++) strides[a] = oracle_between(&rng, -5, 5);
    int64_t offset = oracle_between(&rng, -6, 20);
    ndx_layout raw = {.rank = rank, .offset = offset};
    memcpy(raw.shape, shape, sizeof shape);
    memcpy(raw.strides, strides, sizeof strides);
    int64_t n = oracle_positions(&raw, pos), min = INT64_MAX;
    for (int64_t k = 0; k < n; k++) min = pos[k] < min ? pos[k] : min;
    bool valid = n == 0 || min >= 0;
    ndx_layout l;
    ndx_status s = ndx_make(&l, rank, shape, strides, offset);
    char d[512];
    oracle_describe(d, sizeof d, &raw);
    cr_assert_eq(s, valid ? NDX_OK : NDX_ERANGE, "trial %d: %s: got %s", t, d, ndx_status_name(s));
    if (s != NDX_OK) continue;
    cr_assert_null(oracle_not_canonical(&l), "trial %d: %s: %s", t, d, oracle_not_canonical(&l));
    cr_assert_eq(l.rank, rank, "trial %d", t);
    for (int a = 0; a < rank; a++) {
      cr_assert_eq(l.shape[a], shape[a], "trial %d: %s", t, d);
      if (n > 0 && shape[a] > 1) cr_assert_eq(l.strides[a], strides[a], "trial %d: %s", t, d);
    }
    if (n > 0) {
      cr_assert_eq(l.offset, offset, "trial %d: %s", t, d);
      int64_t got[4096];
      oracle_positions(&l, got);
      cr_assert_eq(memcmp(got, pos, (size_t)n * sizeof *pos), 0, "trial %d: %s", t, d);
    }
  }
}

/* ---- numel and span ------------------------------------------------------ */

Test(numel, product_of_extents) {
  ndx_layout l = make(0, none, none, 4);
  cr_assert_eq(ndx_numel(&l), 1, "rank 0 has one element");
  l = make(3, (int64_t[]){2, 3, 4}, (int64_t[]){12, 4, 1}, 0);
  cr_assert_eq(ndx_numel(&l), 24);
  l = make(3, (int64_t[]){2, 0, 4}, (int64_t[]){12, 4, 1}, 0);
  cr_assert_eq(ndx_numel(&l), 0);
}

Test(span, literal_with_negative_strides) {
  /* lo = 4 + min(0,2*-2) + min(0,1*3) = 0; hi = 4 + 0 + 3 + 1 = 8 */
  ndx_layout l = make(2, (int64_t[]){3, 2}, (int64_t[]){-2, 3}, 4);
  int64_t lo = -1, hi = -1;
  ndx_span(&l, &lo, &hi);
  cr_assert_eq(lo, 0);
  cr_assert_eq(hi, 8);
}

Test(span, empty_is_zero_zero) {
  ndx_layout l = make(2, (int64_t[]){3, 0}, (int64_t[]){1, 1}, 7);
  int64_t lo = -1, hi = -1;
  ndx_span(&l, &lo, &hi);
  cr_assert_eq(lo, 0);
  cr_assert_eq(hi, 0);
}

Test(span, rank_zero_and_broadcast) {
  ndx_layout l = make(0, none, none, 5);
  int64_t lo, hi;
  ndx_span(&l, &lo, &hi);
  cr_assert_eq(lo, 5);
  cr_assert_eq(hi, 6);
  l = make(2, (int64_t[]){4, 3}, (int64_t[]){0, 0}, 2);
  ndx_span(&l, &lo, &hi);
  cr_assert_eq(lo, 2);
  cr_assert_eq(hi, 3);
}

Test(span, property_holds_every_position_and_is_tight) {
  int64_t pos[4096];
  for (int t = 0; t < 3000; t++) {
    oracle_rng rng = {0x5BA40000u + (uint64_t)t};
    ndx_layout l = oracle_random_layout(&rng, 6, 4, 5, 5);
    int64_t n = oracle_positions(&l, pos), lo = -7, hi = -7, min = INT64_MAX, max = INT64_MIN;
    ndx_span(&l, &lo, &hi);
    char d[512];
    oracle_describe(d, sizeof d, &l);
    if (n == 0) {
      cr_assert(lo == 0 && hi == 0, "trial %d: %s: empty span is (0,0), got (%lld,%lld)", t, d,
                (long long)lo, (long long)hi);
      continue;
    }
    for (int64_t k = 0; k < n; k++) {
      min = pos[k] < min ? pos[k] : min;
      max = pos[k] > max ? pos[k] : max;
    }
    cr_assert_eq(lo, min, "trial %d: %s: lo", t, d);
    cr_assert_eq(hi, max + 1, "trial %d: %s: hi", t, d);
    cr_assert_geq(lo, 0, "trial %d: %s", t, d);
  }
}

/* ---- contiguity ---------------------------------------------------------- */

Test(contiguity, offset_is_ignored) {
  ndx_layout l = make(2, (int64_t[]){3, 4}, (int64_t[]){4, 1}, 7);
  cr_assert(ndx_is_contiguous(&l));
  cr_assert_not(ndx_is_fortran_contiguous(&l));
}

Test(contiguity, extent_one_axes_with_odd_strides_do_not_break_it) {
  ndx_layout l = make(4, (int64_t[]){3, 1, 4, 1}, (int64_t[]){4, 99, 1, -7}, 0);
  cr_assert(ndx_is_contiguous(&l));
  l = make(3, (int64_t[]){4, 1, 3}, (int64_t[]){1, -5, 4}, 0);
  cr_assert(ndx_is_fortran_contiguous(&l));
  cr_assert_not(ndx_is_contiguous(&l));
}

Test(contiguity, empty_and_single_element_count) {
  ndx_layout l = make(2, (int64_t[]){3, 0}, (int64_t[]){5, 9}, 0);
  cr_assert(ndx_is_contiguous(&l));
  cr_assert(ndx_is_fortran_contiguous(&l));
  l = make(0, none, none, 3);
  cr_assert(ndx_is_contiguous(&l));
  cr_assert(ndx_is_fortran_contiguous(&l));
  l = make(2, (int64_t[]){1, 1}, (int64_t[]){3, 3}, 3);
  cr_assert(ndx_is_contiguous(&l));
  cr_assert(ndx_is_fortran_contiguous(&l));
}

Test(contiguity, fortran_order_literal) {
  ndx_layout l = make(3, (int64_t[]){2, 3, 4}, (int64_t[]){1, 2, 6}, 1);
  cr_assert(ndx_is_fortran_contiguous(&l));
  cr_assert_not(ndx_is_contiguous(&l));
  l = make(1, (int64_t[]){5}, (int64_t[]){1}, 0);
  cr_assert(ndx_is_contiguous(&l));
  cr_assert(ndx_is_fortran_contiguous(&l));
}

Test(contiguity, negative_strided_or_broadcast_is_neither) {
  ndx_layout l = make(1, (int64_t[]){4}, (int64_t[]){-1}, 3);
  cr_assert_not(ndx_is_contiguous(&l));
  cr_assert_not(ndx_is_fortran_contiguous(&l));
  l = make(2, (int64_t[]){3, 4}, (int64_t[]){0, 1}, 0);
  cr_assert_not(ndx_is_contiguous(&l));
  l = make(2, (int64_t[]){3, 4}, (int64_t[]){4, 2}, 0);
  cr_assert_not(ndx_is_contiguous(&l));
}

static bool oracle_fortran_contiguous(const ndx_layout *l) {
  int64_t n = oracle_numel(l), index[NDX_MAX_RANK];
  for (int64_t k = 0; k < n; k++) {
    int64_t r = k;
    for (int a = 0; a < l->rank; a++) {
      index[a] = r % l->shape[a];
      r /= l->shape[a];
    }
    if (oracle_position(l, index) != l->offset + k) return false;
  }
  return true;
}

Test(contiguity, property_matches_enumeration) {
  int64_t pos[4096], shape[NDX_MAX_RANK];
  int c_true = 0, f_true = 0;
  for (int t = 0; t < 3000; t++) {
    oracle_rng rng = {0xC0E70000u + (uint64_t)t};
    int rank = oracle_random_shape(&rng, 5, 4, 8, shape);
    ndx_layout l = t % 2 ? oracle_view_layout_of_shape(&rng, rank, shape)
                         : oracle_random_layout_of_shape(&rng, rank, shape, 4, 3);
    int64_t n = oracle_positions(&l, pos);
    bool c = true;
    for (int64_t k = 0; k < n; k++) c = c && pos[k] == l.offset + k;
    bool f = oracle_fortran_contiguous(&l);
    c_true += c, f_true += f;
    char d[512];
    oracle_describe(d, sizeof d, &l);
    cr_assert_eq(ndx_is_contiguous(&l), c, "trial %d: %s", t, d);
    cr_assert_eq(ndx_is_fortran_contiguous(&l), f, "trial %d: %s", t, d);
  }
  cr_assert_gt(c_true, 100, "the generator reaches contiguous layouts");
  cr_assert_gt(f_true, 100);
}

/* ---- distinct ------------------------------------------------------------ */

Test(distinct, conservative_example_from_the_reference) {
  /* [3,2] strides [2,3]: positions 0,3,2,5,4,7 share none, yet the rule says
   * no (the stride 3 does not exceed the reach 2*2 = 4 of the axis before). */
  ndx_layout l = make(2, (int64_t[]){3, 2}, (int64_t[]){2, 3}, 0);
  cr_assert_not(ndx_is_distinct(&l));
}

Test(distinct, contiguous_and_permuted_are_distinct) {
  ndx_layout l = make(3, (int64_t[]){2, 3, 4}, (int64_t[]){12, 4, 1}, 0);
  cr_assert(ndx_is_distinct(&l));
  l = make(3, (int64_t[]){4, 2, 3}, (int64_t[]){1, 12, 4}, 0);
  cr_assert(ndx_is_distinct(&l));
  l = make(2, (int64_t[]){3, 2}, (int64_t[]){2, 1}, 0);
  cr_assert(ndx_is_distinct(&l), "reach of the stride-1 axis is 1 < 2");
}

Test(distinct, broadcast_is_not_distinct) {
  ndx_layout l = make(2, (int64_t[]){3, 4}, (int64_t[]){0, 1}, 0);
  cr_assert_not(ndx_is_distinct(&l));
  l = make(1, (int64_t[]){2}, (int64_t[]){0}, 5);
  cr_assert_not(ndx_is_distinct(&l));
}

Test(distinct, stride_zero_on_an_extent_one_axis_does_not_fool_it) {
  ndx_layout l = make(3, (int64_t[]){1, 3, 1}, (int64_t[]){0, 1, 0}, 0);
  cr_assert(ndx_is_distinct(&l));
  l = make(3, (int64_t[]){1, 3, 1}, (int64_t[]){5, 1, -9}, 0);
  cr_assert(ndx_is_distinct(&l));
  l = make(2, (int64_t[]){1, 1}, (int64_t[]){0, 0}, 2);
  cr_assert(ndx_is_distinct(&l), "a single element is distinct");
  l = make(0, none, none, 2);
  cr_assert(ndx_is_distinct(&l));
}

Test(distinct, ties_and_negative_strides) {
  ndx_layout l = make(2, (int64_t[]){2, 2}, (int64_t[]){2, -2}, 2);
  cr_assert_not(ndx_is_distinct(&l), "|2| does not exceed the reach 2");
  l = make(2, (int64_t[]){2, 2}, (int64_t[]){-1, 2}, 1);
  cr_assert(ndx_is_distinct(&l));
  l = make(2, (int64_t[]){2, 2}, (int64_t[]){1, 1}, 0);
  cr_assert_not(ndx_is_distinct(&l));
  l = make(1, (int64_t[]){4}, (int64_t[]){-3}, 9);
  cr_assert(ndx_is_distinct(&l));
}

Test(distinct, empty_is_distinct) {
  ndx_layout l = make(3, (int64_t[]){3, 0, 4}, (int64_t[]){0, 0, 0}, 0);
  cr_assert(ndx_is_distinct(&l));
}

Test(distinct, overlapping_window_is_not) {
  /* a window of size 3 step 1 over [5]: shape [3,3] strides [1,1] */
  ndx_layout l = make(2, (int64_t[]){3, 3}, (int64_t[]){1, 1}, 0);
  cr_assert_not(ndx_is_distinct(&l));
  /* step 3 >= extent 3: shape [2,3] strides [3,1] */
  l = make(2, (int64_t[]){2, 3}, (int64_t[]){3, 1}, 0);
  cr_assert(ndx_is_distinct(&l));
}

/* The rule of REFERENCE.md section 1, written out. */
static bool oracle_distinct_rule(const ndx_layout *l) {
  int axes[NDX_MAX_RANK], n = 0;
  for (int a = 0; a < l->rank; a++) {
    if (l->shape[a] == 0) return true;
    if (l->shape[a] > 1) axes[n++] = a;
  }
  for (int i = 1; i < n; i++) /* insertion sort by |stride|, stable: ties by axis */
    for (int j = i; j > 0 && llabs(l->strides[axes[j]]) < llabs(l->strides[axes[j - 1]]); j--) {
      int t = axes[j];
      axes[j] = axes[j - 1];
      axes[j - 1] = t;
    }
  int64_t reach = 0;
  for (int i = 0; i < n; i++) {
    int a = axes[i];
    if (llabs(l->strides[a]) <= reach) return false;
    reach += (l->shape[a] - 1) * llabs(l->strides[a]);
  }
  return true;
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

Test(distinct, property_exact_rule_and_sound) {
  int64_t pos[4096], shape[NDX_MAX_RANK];
  int yes = 0;
  for (int t = 0; t < 3000; t++) {
    oracle_rng rng = {0xD1570000u + (uint64_t)t};
    int rank = oracle_random_shape(&rng, 6, 4, 10, shape);
    ndx_layout l = t % 2 ? oracle_view_layout_of_shape(&rng, rank, shape)
                         : oracle_random_layout_of_shape(&rng, rank, shape, 9, 2);
    bool got = ndx_is_distinct(&l), want = oracle_distinct_rule(&l);
    char d[512];
    oracle_describe(d, sizeof d, &l);
    cr_assert_eq(got, want, "trial %d: %s: the rule says %d", t, d, want);
    if (!got) continue;
    yes++;
    int64_t n = oracle_positions(&l, pos);
    qsort(pos, (size_t)n, sizeof *pos, cmp_i64);
    for (int64_t k = 1; k < n; k++)
      cr_assert_neq(pos[k], pos[k - 1], "trial %d: %s: distinct yet %lld is shared", t, d,
                    (long long)pos[k]);
  }
  cr_assert_gt(yes, 300, "the generator reaches distinct layouts");
}

/* ---- equal and hash ------------------------------------------------------ */

Test(equal, same_fields_equal) {
  ndx_layout a = make(2, (int64_t[]){3, 4}, (int64_t[]){4, 1}, 2);
  ndx_layout b = make(2, (int64_t[]){3, 4}, (int64_t[]){4, 1}, 2);
  cr_assert(ndx_equal(&a, &b));
  cr_assert_eq(ndx_hash(&a), ndx_hash(&b));
  b = make(2, (int64_t[]){3, 4}, (int64_t[]){4, 1}, 3);
  cr_assert_not(ndx_equal(&a, &b), "offset differs");
  b = make(2, (int64_t[]){3, 4}, (int64_t[]){1, 3}, 2);
  cr_assert_not(ndx_equal(&a, &b), "strides differ");
}

Test(equal, shape_or_rank_differs) {
  ndx_layout a = make(1, (int64_t[]){3}, (int64_t[]){1}, 0);
  ndx_layout b = make(2, (int64_t[]){3, 1}, (int64_t[]){1, 0}, 0);
  cr_assert_not(ndx_equal(&a, &b), "[3] vs [3,1]");
  b = make(1, (int64_t[]){4}, (int64_t[]){1}, 0);
  cr_assert_not(ndx_equal(&a, &b), "[3] vs [4]");
  a = make(2, (int64_t[]){0, 3}, (int64_t[]){0, 0}, 0);
  b = make(2, (int64_t[]){3, 0}, (int64_t[]){0, 0}, 0);
  cr_assert_not(ndx_equal(&a, &b), "[0,3] vs [3,0]");
}

Test(equal, canonical_form_makes_dropped_strides_irrelevant) {
  ndx_layout a = make(2, (int64_t[]){2, 1}, (int64_t[]){1, 5}, 0);
  ndx_layout b = make(2, (int64_t[]){2, 1}, (int64_t[]){1, INT64_MIN}, 0);
  cr_assert(ndx_equal(&a, &b));
  cr_assert_eq(ndx_hash(&a), ndx_hash(&b));
  a = make(2, (int64_t[]){2, 0}, (int64_t[]){3, 1}, 4);
  b = make(2, (int64_t[]){2, 0}, (int64_t[]){-1, 7}, 9);
  cr_assert(ndx_equal(&a, &b), "empty layouts of one shape are equal");
  cr_assert_eq(ndx_hash(&a), ndx_hash(&b));
}

Test(equal, ignores_flags_and_entries_past_rank) {
  ndx_layout a, b;
  memset(&a, 0x00, sizeof a);
  memset(&b, 0xEE, sizeof b);
  cr_assert_eq(ndx_make(&a, 2, (int64_t[]){3, 4}, (int64_t[]){4, 1}, 2), NDX_OK);
  cr_assert_eq(ndx_make(&b, 2, (int64_t[]){3, 4}, (int64_t[]){4, 1}, 2), NDX_OK);
  cr_assert(ndx_equal(&a, &b));
  cr_assert_eq(ndx_hash(&a), ndx_hash(&b));
  b.flags = 0xDEADBEEFu; /* "nothing compares it" */
  b.shape[5] = 77;       /* past rank: not part of the layout */
  b.strides[9] = -3;
  cr_assert(ndx_equal(&a, &b));
  cr_assert_eq(ndx_hash(&a), ndx_hash(&b));
}

/* Two layouts of one shape are equal iff they reach the same position at
 * every index; equal ones hash alike. Strides come from a small pool so that
 * equal pairs and near misses both happen. */
Test(equal, property_iff_same_positions) {
  int64_t pa[4096], pb[4096], shape[NDX_MAX_RANK];
  int same = 0;
  for (int t = 0; t < 3000; t++) {
    oracle_rng rng = {0xE9A10000u + (uint64_t)t};
    int rank = oracle_random_shape(&rng, 5, 3, 8, shape);
    int64_t sa[NDX_MAX_RANK], sb[NDX_MAX_RANK];
    for (int a = 0; a < rank; a++) {
      sa[a] = oracle_between(&rng, 0, 2);
      sb[a] = oracle_between(&rng, 0, 3) ? sa[a] : oracle_between(&rng, 0, 2);
    }
    int64_t oa = oracle_between(&rng, 0, 1), ob = oracle_between(&rng, 0, 3) ? oa : 1 - oa;
    ndx_layout a = make(rank, shape, sa, oa), b = make(rank, shape, sb, ob);
    int64_t n = oracle_positions(&a, pa);
    oracle_positions(&b, pb);
    bool want = memcmp(pa, pb, (size_t)n * sizeof *pa) == 0;
    same += want;
    char da[512], db[512];
    oracle_describe(da, sizeof da, &a);
    oracle_describe(db, sizeof db, &b);
    cr_assert_eq(ndx_equal(&a, &b), want, "trial %d: %s vs %s", t, da, db);
    cr_assert_eq(ndx_equal(&b, &a), want, "trial %d: symmetric", t);
    if (want) cr_assert_eq(ndx_hash(&a), ndx_hash(&b), "trial %d: %s vs %s", t, da, db);
  }
  cr_assert_gt(same, 300);
  cr_assert_lt(same, 2700);
}

/* ---- format and parse ---------------------------------------------------- */

Test(format, literal_from_the_header) {
  ndx_layout l = make(2, (int64_t[]){3, 4}, (int64_t[]){4, 1}, 0);
  char buf[128];
  int n = ndx_format(buf, sizeof buf, &l);
  cr_assert_str_eq(buf, "shape=[3,4] strides=[4,1] offset=0");
  cr_assert_eq(n, (int)strlen("shape=[3,4] strides=[4,1] offset=0"));
}

Test(format, negative_strides_offset_and_rank_zero) {
  ndx_layout l = make(3, (int64_t[]){2, 1, 3}, (int64_t[]){-3, 8, 1}, 12);
  char buf[128];
  ndx_format(buf, sizeof buf, &l);
  cr_assert_str_eq(buf, "shape=[2,1,3] strides=[-3,0,1] offset=12");
  l = make(0, none, none, 5);
  ndx_format(buf, sizeof buf, &l);
  cr_assert_str_eq(buf, "shape=[] strides=[] offset=5");
}

Test(format, truncates_like_snprintf) {
  ndx_layout l = make(2, (int64_t[]){3, 4}, (int64_t[]){4, 1}, 0);
  const char *full = "shape=[3,4] strides=[4,1] offset=0";
  char buf[64];
  memset(buf, '#', sizeof buf);
  int n = ndx_format(buf, 6, &l);
  cr_assert_eq(n, (int)strlen(full), "returns the whole length");
  cr_assert_str_eq(buf, "shape", "size-1 bytes and a NUL");
  for (size_t i = 6; i < sizeof buf; i++) cr_assert_eq(buf[i], '#', "byte %zu past size", i);
  memset(buf, '#', sizeof buf);
  cr_assert_eq(ndx_format(buf, 1, &l), (int)strlen(full));
  cr_assert_eq(buf[0], '\0');
  cr_assert_eq(buf[1], '#');
  size_t exact = strlen(full) + 1;
  memset(buf, '#', sizeof buf);
  cr_assert_eq(ndx_format(buf, exact, &l), (int)strlen(full));
  cr_assert_str_eq(buf, full);
  cr_assert_eq(buf[exact], '#');
  memset(buf, '#', sizeof buf);
  cr_assert_eq(ndx_format(buf, exact - 1, &l), (int)strlen(full));
  cr_assert_eq(strlen(buf), exact - 2);
}

Test(format, size_zero_writes_nothing) {
  ndx_layout l = make(1, (int64_t[]){3}, (int64_t[]){1}, 0);
  char buf[8];
  memset(buf, '#', sizeof buf);
  int n = ndx_format(buf, 0, &l);
  cr_assert_eq(n, (int)strlen("shape=[3] strides=[1] offset=0"));
  for (size_t i = 0; i < sizeof buf; i++) cr_assert_eq(buf[i], '#');
  cr_assert_eq(ndx_format(NULL, 0, &l), n, "NULL buffer with size 0");
}

Test(format, long_rank_32_text) {
  int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK];
  for (int a = 0; a < NDX_MAX_RANK; a++) shape[a] = 2, strides[a] = INT64_C(1) << (31 - a);
  ndx_layout l = make(NDX_MAX_RANK, shape, strides, P53 - (INT64_C(1) << 32));
  int n = ndx_format(NULL, 0, &l);
  char *buf = malloc((size_t)n + 1);
  cr_assert_eq(ndx_format(buf, (size_t)n + 1, &l), n);
  cr_assert_eq((int)strlen(buf), n);
  ndx_layout back;
  cr_assert_eq(ndx_parse(&back, buf), NDX_OK, "%s", buf);
  cr_assert(ndx_equal(&back, &l));
  free(buf);
}

Test(format, property_parse_reads_back_what_format_writes) {
  for (int t = 0; t < 2000; t++) {
    oracle_rng rng = {0xF0A70000u + (uint64_t)t};
    ndx_layout l = oracle_random_layout(&rng, 6, 4, 1000, 100000);
    char buf[1024], d[512];
    oracle_describe(d, sizeof d, &l);
    int n = ndx_format(buf, sizeof buf, &l);
    cr_assert_eq(n, (int)strlen(buf), "trial %d", t);
    cr_assert_str_eq(buf, d, "trial %d: the text of the header's form", t);
    ndx_layout back;
    memset(&back, 0x77, sizeof back);
    cr_assert_eq(ndx_parse(&back, buf), NDX_OK, "trial %d: %s", t, buf);
    cr_assert(ndx_equal(&back, &l), "trial %d: %s", t, buf);
  }
}

Test(parse, strides_and_offset_may_be_left_out) {
  ndx_layout l;
  cr_assert_eq(ndx_parse(&l, "shape=[3,4]"), NDX_OK);
  expect_layout(&l, 2, (int64_t[]){3, 4}, (int64_t[]){4, 1}, 0, "shape only");
  cr_assert_eq(ndx_parse(&l, "shape=[3,4] offset=5"), NDX_OK);
  expect_layout(&l, 2, (int64_t[]){3, 4}, (int64_t[]){4, 1}, 5, "no strides");
  cr_assert_eq(ndx_parse(&l, "shape=[3,4] strides=[1,3]"), NDX_OK);
  expect_layout(&l, 2, (int64_t[]){3, 4}, (int64_t[]){1, 3}, 0, "no offset");
  cr_assert_eq(ndx_parse(&l, "shape=[]"), NDX_OK);
  cr_assert_eq(l.rank, 0);
  cr_assert_eq(l.offset, 0);
}

Test(parse, result_is_canonical) {
  ndx_layout l;
  cr_assert_eq(ndx_parse(&l, "shape=[1,3] strides=[7,1] offset=2"), NDX_OK);
  expect_layout(&l, 2, (int64_t[]){1, 3}, (int64_t[]){0, 1}, 2, "extent-1 stride");
  cr_assert_eq(ndx_parse(&l, "shape=[2,0] strides=[3,1] offset=2"), NDX_OK);
  expect_layout(&l, 2, (int64_t[]){2, 0}, (int64_t[]){0, 0}, 0, "empty");
}

static void expect_parse_fails(const char *text, ndx_status want) {
  ndx_layout out, before;
  memset(&out, 0x3C, sizeof out);
  before = out;
  ndx_status s = ndx_parse(&out, text);
  cr_assert_eq(s, want, "\"%s\": want %s, got %s", text ? text : "(null)", ndx_status_name(want),
               ndx_status_name(s));
  cr_assert_eq(memcmp(&out, &before, sizeof out), 0, "\"%s\": out written on failure",
               text ? text : "(null)");
  cr_assert_neq(ndx_last_error()[0], '\0', "\"%s\": no message", text ? text : "(null)");
}

Test(parse, malformed_text_is_einval) {
  const char *bad[] = {
      "",
      "shape=",
      "shape=[3,4",
      "shape=[3,,4]",
      "shape=[3 4]",
      "shape=[a]",
      "shape=[3,4] strides=[1]",
      "shape=[3,4] strides=[4,1,1]",
      "shape=[3] offset=x",
      "shape=[3] junk",
      "strides=[1] offset=0",
      "shape=[3] offset=",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) expect_parse_fails(bad[i], NDX_EINVAL);
  expect_parse_fails(NULL, NDX_EINVAL);
  cr_assert_eq(ndx_parse(NULL, "shape=[3]"), NDX_EINVAL);
}

Test(parse, values_refused_as_make_refuses_them) {
  expect_parse_fails("shape=[3] strides=[-1] offset=0", NDX_ERANGE); /* negative position */
  expect_parse_fails("shape=[-2]", NDX_EINVAL);
  expect_parse_fails("shape=[9007199254740993]", NDX_ERANGE); /* 2^53 + 1 */
  expect_parse_fails("shape=[] offset=9007199254740992", NDX_ERANGE);
}

Test(parse, number_past_int64_is_refused) {
  ndx_layout out, before;
  memset(&out, 0x3C, sizeof out);
  before = out;
  ndx_status s = ndx_parse(&out, "shape=[99999999999999999999]");
  cr_assert(s == NDX_EINVAL || s == NDX_ERANGE, "got %s", ndx_status_name(s));
  cr_assert_eq(memcmp(&out, &before, sizeof out), 0);
  s = ndx_parse(&out, "shape=[2] offset=-99999999999999999999");
  cr_assert(s == NDX_EINVAL || s == NDX_ERANGE, "got %s", ndx_status_name(s));
  cr_assert_eq(memcmp(&out, &before, sizeof out), 0);
}

/* ---- status names and messages -------------------------------------------- */

Test(status, every_name) {
  cr_assert_str_eq(ndx_status_name(NDX_OK), "NDX_OK");
  cr_assert_str_eq(ndx_status_name(NDX_EINVAL), "NDX_EINVAL");
  cr_assert_str_eq(ndx_status_name(NDX_ERANGE), "NDX_ERANGE");
  cr_assert_str_eq(ndx_status_name(NDX_ENOVIEW), "NDX_ENOVIEW");
  cr_assert_str_eq(ndx_status_name(NDX_ENOMEM), "NDX_ENOMEM");
  cr_assert_str_eq(ndx_status_name(NDX_EDEVICE), "NDX_EDEVICE");
  cr_assert_str_eq(ndx_status_name(NDX_EUNSUPPORTED), "NDX_EUNSUPPORTED");
  cr_assert_str_eq(ndx_status_name((ndx_status)42), "NDX_UNKNOWN");
  cr_assert_str_eq(ndx_status_name((ndx_status)-7), "NDX_UNKNOWN");
}

Test(error, make_message_names_call_axis_and_value) {
  cr_assert_eq(ndx_make(&(ndx_layout){0}, 3, (int64_t[]){2, 4, -3}, (int64_t[]){1, 1, 1}, 0),
               NDX_EINVAL);
  const char *m = ndx_last_error();
  cr_assert(strstr(m, "ndx_make"), "names the call: %s", m);
  cr_assert(strstr(m, "axis 2"), "names the axis: %s", m);
  cr_assert(strstr(m, "-3"), "names the value: %s", m);
}

Test(error, reach_message_names_axis_and_stride) {
  cr_assert_eq(ndx_make(&(ndx_layout){0}, 2, (int64_t[]){5, 3},
                        (int64_t[]){1, INT64_C(4611686018427387904)}, 0),
               NDX_ERANGE);
  const char *m = ndx_last_error();
  cr_assert(strstr(m, "ndx_make"), "%s", m);
  cr_assert(strstr(m, "axis 1"), "%s", m);
  cr_assert(strstr(m, "4611686018427387904"), "names the stride: %s", m);
}

Test(error, contiguous_message_names_the_count) {
  cr_assert_eq(ndx_contiguous(&(ndx_layout){0}, 2, (int64_t[]){3, P53}), NDX_ERANGE);
  const char *m = ndx_last_error();
  cr_assert(strstr(m, "ndx_contiguous"), "%s", m);
  cr_assert(strstr(m, "9007199254740992"), "names the extent 2^53: %s", m);
}

Test(error, message_unchanged_after_success) {
  cr_assert_eq(ndx_make(&(ndx_layout){0}, 1, (int64_t[]){-1}, (int64_t[]){1}, 0), NDX_EINVAL);
  char before[4096];
  snprintf(before, sizeof before, "%s", ndx_last_error());
  cr_assert_neq(before[0], '\0');
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, 2, (int64_t[]){3, 4}), NDX_OK);
  cr_assert_eq(ndx_make(&l, 2, (int64_t[]){3, 4}, (int64_t[]){4, 1}, 0), NDX_OK);
  cr_assert_eq(ndx_parse(&l, "shape=[3,4]"), NDX_OK);
  char buf[64];
  ndx_format(buf, sizeof buf, &l);
  cr_assert_str_eq(ndx_last_error(), before);
}

Test(error, a_later_failure_replaces_the_message) {
  cr_assert_eq(ndx_make(&(ndx_layout){0}, 1, (int64_t[]){-1}, (int64_t[]){1}, 0), NDX_EINVAL);
  char first[4096];
  snprintf(first, sizeof first, "%s", ndx_last_error());
  cr_assert_eq(ndx_contiguous(&(ndx_layout){0}, 1, (int64_t[]){P53 + 1}), NDX_ERANGE);
  cr_assert_str_neq(ndx_last_error(), first);
  cr_assert(strstr(ndx_last_error(), "ndx_contiguous"), "%s", ndx_last_error());
}

static void *fail_in_a_thread(void *arg) {
  (void)arg;
  static char seen[2][256];
  snprintf(seen[0], sizeof seen[0], "%s", ndx_last_error()); /* a fresh thread: "" */
  ndx_make(&(ndx_layout){0}, 1, (int64_t[]){-7}, (int64_t[]){1}, 0);
  snprintf(seen[1], sizeof seen[1], "%s", ndx_last_error());
  return seen;
}

Test(error, the_message_is_per_thread_and_empty_before_a_failure) {
  cr_assert_eq(ndx_contiguous(&(ndx_layout){0}, 1, (int64_t[]){-3}), NDX_EINVAL);
  char mine[4096];
  snprintf(mine, sizeof mine, "%s", ndx_last_error());
  pthread_t t;
  void *res;
  cr_assert_eq(pthread_create(&t, NULL, fail_in_a_thread, NULL), 0);
  cr_assert_eq(pthread_join(t, &res), 0);
  char(*seen)[256] = res;
  cr_assert_str_eq(seen[0], "", "no failure on that thread yet");
  cr_assert(strstr(seen[1], "ndx_make") && strstr(seen[1], "-7"), "%s", seen[1]);
  cr_assert_str_eq(ndx_last_error(), mine, "another thread's failure leaves this message");
}

Test(parse, more_than_32_axes_is_refused_as_make_refuses_it) {
  /* a well-formed text whose rank ndx_make refuses with NDX_ERANGE */
  char text[256] = "shape=[1";
  for (int a = 1; a < NDX_MAX_RANK + 1; a++) strcat(text, ",1");
  strcat(text, "]");
  expect_parse_fails(text, NDX_ERANGE);
  text[strlen(text) - 3] = ']'; /* 32 axes */
  text[strlen(text) - 2] = '\0';
  ndx_layout l;
  cr_assert_eq(ndx_parse(&l, text), NDX_OK, "%s", text);
  cr_assert_eq(l.rank, NDX_MAX_RANK);
}

Test(large, spans_past_2_31_elements_use_64_bit_math) {
  int64_t p31 = INT64_C(1) << 31, p32 = INT64_C(1) << 32, p40 = INT64_C(1) << 40;
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, 2, (int64_t[]){3, p31 + 1}), NDX_OK);
  expect_layout(&l, 2, (int64_t[]){3, p31 + 1}, (int64_t[]){p31 + 1, 1}, 0, "[3,2^31+1]");
  int64_t lo, hi;
  ndx_span(&l, &lo, &hi);
  cr_assert_eq(hi, 3 * (p31 + 1));
  cr_assert_eq(ndx_numel(&l), 3 * (p31 + 1));
  cr_assert(ndx_is_contiguous(&l));
  cr_assert(ndx_is_distinct(&l));
  l = make(2, (int64_t[]){p32, 2}, (int64_t[]){1, p32}, 0);
  cr_assert(ndx_is_fortran_contiguous(&l));
  cr_assert_not(ndx_is_contiguous(&l));
  l = make(1, (int64_t[]){p40}, (int64_t[]){-1}, p40 - 1);
  ndx_span(&l, &lo, &hi);
  cr_assert_eq(lo, 0);
  cr_assert_eq(hi, p40);
  l = make(2, (int64_t[]){p31, 3}, (int64_t[]){2, p32}, 0);
  cr_assert(ndx_is_distinct(&l), "reach 2*(2^31-1) < 2^32");
  l = make(2, (int64_t[]){p31 + 1, 3}, (int64_t[]){2, p32}, 0);
  cr_assert_not(ndx_is_distinct(&l), "reach 2*2^31 = 2^32 is not below 2^32");
}

/* Review finding: a call given ndx_last_error() itself as an argument formatted
 * its message over the text it was reading. */
Test(error, a_message_may_quote_the_last_message) {
  ndx_layout out;
  cr_assert_eq(ndx_parse(&out, "shape=[2] bogus"), NDX_EINVAL);
  char before[256];
  snprintf(before, sizeof before, "%s", ndx_last_error());
  cr_assert_eq(ndx_parse(&out, ndx_last_error()), NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), before) != NULL, "%s", ndx_last_error());
}

/* Review finding: the negative-position message named no position. */
Test(error, a_negative_position_is_named) {
  ndx_layout out;
  cr_assert_eq(ndx_make(&out, 1, (int64_t[]){3}, (int64_t[]){-1}, 1), NDX_ERANGE);
  cr_assert(strstr(ndx_last_error(), "reaches position -1") != NULL, "%s", ndx_last_error());
}

/* Review finding: 32 values and a trailing comma is malformed text (EINVAL),
 * not a 33rd axis. */
Test(parse, a_trailing_comma_after_32_values_is_malformed) {
  char text[256] = "shape=[";
  for (int a = 0; a < 32; a++) strcat(text, "1,");
  strcat(text, "]");
  ndx_layout out;
  cr_assert_eq(ndx_parse(&out, text), NDX_EINVAL, "%s", ndx_last_error());
}

/* ---- Version and ndx_set_error -------------------------------------------- */

Test(version, headers_library_and_meson_agree) {
  char parts[32];
  snprintf(parts, sizeof parts, "%d.%d.%d", NDX_VERSION_MAJOR, NDX_VERSION_MINOR,
           NDX_VERSION_PATCH);
  cr_assert_str_eq(parts, NDX_VERSION_STRING);
  cr_assert_str_eq(NDX_VERSION_STRING, NDX_TEST_PROJECT_VERSION, "meson.build's version");
  cr_assert_eq(ndx_version(), (unsigned)NDX_VERSION_NUMBER);
  cr_assert_eq(ndx_version(),
               (unsigned)(NDX_VERSION_MAJOR * 10000 + NDX_VERSION_MINOR * 100 + NDX_VERSION_PATCH));
  cr_assert_str_eq(ndx_version_string(), NDX_VERSION_STRING);
}

Test(set_error, records_the_message_and_returns_the_status) {
  cr_assert_eq(ndx_set_error(NDX_ERANGE, "mycall: axis %d has %lld", 2, 7LL), NDX_ERANGE);
  cr_assert_str_eq(ndx_last_error(), "mycall: axis 2 has 7");
  /* The message may quote the one it replaces. */
  cr_assert_eq(ndx_set_error(NDX_EINVAL, "outer: %s", ndx_last_error()), NDX_EINVAL);
  cr_assert_str_eq(ndx_last_error(), "outer: mycall: axis 2 has 7");
  /* A failing ndx_ call after it writes its own. */
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, -1, NULL), NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), "ndx_contiguous") != NULL, "%s", ndx_last_error());
}

Test(set_error, cuts_a_long_message_at_4095_bytes) {
  static char big[6000];
  memset(big, 'x', sizeof big - 1);
  ndx_set_error(NDX_EINVAL, "%s", big);
  cr_assert_eq(strlen(ndx_last_error()), 4095);
}

/* ---- The fast paths of the checks and of the messages (issue 13, item 4) ---- */

/* The dims of a message are written without snprintf: extreme values, no
 * values, and commas only between values. */
Test(error, dims_in_messages_hold_extreme_values) {
  ndx_layout out;
  cr_assert_eq(ndx_make(&out, 3, (int64_t[]){2, 0, 2}, (int64_t[]){INT64_MIN, 0, 1}, 0),
               NDX_ERANGE);
  cr_assert_str_eq(ndx_last_error(), "ndx_make: axis 0: (extent - 1) * |stride| = (2 - 1) * "
                                     "|-9223372036854775808| overflows int64");
  cr_assert_eq(ndx_make(&out, 2, (int64_t[]){2, 2}, (int64_t[]){-1, INT64_MAX / 2}, 0), NDX_ERANGE);
  cr_assert_str_eq(ndx_last_error(), "ndx_make: offset 0 with strides [-1,4611686018427387903] "
                                     "reaches position -1, below 0");
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, 2, (int64_t[]){3, 4}), NDX_OK);
  cr_assert_eq(ndx_reshape(&out, &l, 0, NULL), NDX_EINVAL);
  cr_assert_str_eq(ndx_last_error(), "ndx_reshape: [3,4] has 12 elements, [] has 1");
}

/* A layout with no element leaves the fast check for the exact one, which
 * takes it when it is within the limits, whatever its strides. */
Test(check, layouts_with_no_element_pass_the_exact_check) {
  ndx_layout l = {.rank = 2, .shape = {0, 3}, .strides = {INT64_MAX / 2, -(INT64_MAX / 2)}};
  ndx_layout out;
  cr_assert_eq(ndx_narrow(&out, &l, 1, 1, 2), NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(out.rank, 2);
  cr_assert_eq(out.shape[0], 0);
  cr_assert_eq(out.shape[1], 2);
  cr_assert_eq(out.strides[0], 0);
  cr_assert_eq(out.strides[1], 0);
  cr_assert_eq(out.offset, 0);
  cr_assert_eq(ndx_flip(&out, &l, 1), NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(ndx_transpose(&out, &l, 0, 1), NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(ndx_coalesce(1, &l, &out), NDX_OK, "%s", ndx_last_error());
}

/* The fast check's edges: the last position 2^53 - 1 is in, 2^53 is out, and
 * a negative offset is out even where the reaches would bring it back. */
Test(check, the_fast_check_keeps_the_limits_exact) {
  const int64_t top = (INT64_C(1) << 53) - 1;
  ndx_layout in = {.rank = 1, .offset = top, .shape = {2}, .strides = {-top}};
  ndx_layout past = {.rank = 1, .offset = 1, .shape = {2}, .strides = {top}};
  ndx_layout negative = {.rank = 2, .offset = -1, .shape = {2, 2}, .strides = {1, 1}};
  ndx_layout out;
  cr_assert_eq(ndx_flip(&out, &in, 0), NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(out.offset, 0);
  cr_assert_eq(out.strides[0], top);
  cr_assert_eq(ndx_flip(&out, &past, 0), NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), "past 2^53 - 1") != NULL, "%s", ndx_last_error());
  cr_assert_eq(ndx_flip(&out, &negative, 0), NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), "below 0") != NULL, "%s", ndx_last_error());
}

/* An extent-1 axis written by hand with stride INT64_MIN: flip and transpose
 * drop the stride rather than negate it (UBSan would catch -INT64_MIN). */
Test(move, an_extent_one_axis_keeps_no_stride) {
  ndx_layout l = {.rank = 2, .shape = {1, 3}, .strides = {INT64_MIN, 1}};
  ndx_layout out;
  cr_assert_eq(ndx_flip(&out, &l, 0), NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(out.strides[0], 0);
  cr_assert_eq(out.strides[1], 1);
  cr_assert_eq(ndx_transpose(&out, &l, 0, 1), NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(out.strides[0], 1);
  cr_assert_eq(out.strides[1], 0);
  for (int a = 2; a < NDX_MAX_RANK; a++) cr_assert(out.shape[a] == 0 && out.strides[a] == 0);
}
