/* test_move.c: moves (REFERENCE.md section 2, the first seed's Move.t and
 * `move`) through ndx_apply, ndx_move_shape and every wrapper of the second
 * seed. Unit tests state one rule each with literals from the specifications
 * (and the peer faults of section 4); property tests check on thousands of
 * small random layouts that result index j reaches exactly the position the
 * input reaches at the move's map of j, written out here for each kind. */
#include <criterion/criterion.h>
#include <string.h>

#include "ndx/ndx_layout.h"
#include "oracle.h"
#include "suite.h"

#define P53 (INT64_C(1) << 53)

static ndx_move reshape_move(int n, const int64_t *shape) {
  return (ndx_move){.kind = NDX_RESHAPE, .n = n, .shape = shape};
}
static ndx_move broadcast_move(int n, const int64_t *shape) {
  return (ndx_move){.kind = NDX_BROADCAST, .n = n, .shape = shape};
}
static ndx_move permute_move(int n, const int32_t *perm) {
  return (ndx_move){.kind = NDX_PERMUTE, .n = n, .perm = perm};
}
static ndx_move slice_move(int n, const ndx_range *ranges) {
  return (ndx_move){.kind = NDX_SLICE, .n = n, .ranges = ranges};
}
static ndx_move window_move(int n, const ndx_window *windows) {
  return (ndx_move){.kind = NDX_WINDOW, .n = n, .windows = windows};
}

/* Applies `m` to `l`, asserting NDX_OK, and returns the result. */
static ndx_layout apply_ok(const ndx_move *m, const ndx_layout *l, const char *what) {
  ndx_layout out;
  ndx_status s = ndx_apply(&out, m, l);
  cr_assert_eq(s, NDX_OK, "%s: %s (%s)", what, ndx_status_name(s), ndx_last_error());
  return out;
}

/* Applies `m` to `l`, asserting the failure `want`, `out` untouched, a
 * message, and the same status and untouched outputs from ndx_move_shape
 * (unless `want` is NDX_ENOVIEW, a failure of strides, not of shapes). */
static void expect_apply_fails(ndx_status want, const ndx_move *m, const ndx_layout *l,
                               const char *what) {
  ndx_layout out, before;
  memset(&out, 0xA5, sizeof out);
  before = out;
  ndx_status s = ndx_apply(&out, m, l);
  cr_assert_eq(s, want, "%s: want %s, got %s", what, ndx_status_name(want), ndx_status_name(s));
  cr_assert_eq(memcmp(&out, &before, sizeof out), 0, "%s: out written on failure", what);
  cr_assert_neq(ndx_last_error()[0], '\0', "%s: no message", what);
  ndx_layout alias = *l;
  cr_assert_eq(ndx_apply(&alias, m, &alias), want, "%s: aliased", what);
  cr_assert_eq(memcmp(&alias, l, sizeof alias), 0, "%s: aliased out written on failure", what);
  int rank = -5;
  int64_t shape[NDX_MAX_RANK], shape_before[NDX_MAX_RANK];
  memset(shape, 0x5A, sizeof shape);
  memcpy(shape_before, shape, sizeof shape);
  s = ndx_move_shape(m, l->rank, l->shape, &rank, shape);
  if (want == NDX_ENOVIEW) {
    cr_assert_eq(s, NDX_OK, "%s: ndx_move_shape of a reshape with no view", what);
    return;
  }
  cr_assert_eq(s, want, "%s: ndx_move_shape: want %s, got %s", what, ndx_status_name(want),
               ndx_status_name(s));
  cr_assert_eq(rank, -5, "%s: ndx_move_shape wrote out_rank on failure", what);
  cr_assert_eq(memcmp(shape, shape_before, sizeof shape), 0, "%s: out_shape written", what);
}

/* Asserts a failing wrapper call (already made into a sentinel-filled
 * `out`): the status and `out` untouched. */
#define EXPECT_WRAPPER_FAILS(want, call_with_out, what)                                            \
  do {                                                                                             \
    ndx_layout out, before;                                                                        \
    memset(&out, 0xA5, sizeof out);                                                                \
    before = out;                                                                                  \
    ndx_status s_ = call_with_out;                                                                 \
    cr_assert_eq(s_, want, "%s: want %s, got %s", what, ndx_status_name(want),                     \
                 ndx_status_name(s_));                                                             \
    cr_assert_eq(memcmp(&out, &before, sizeof out), 0, "%s: out written on failure", what);        \
    cr_assert_neq(ndx_last_error()[0], '\0', "%s: no message", what);                              \
  } while (0)

/* ---- reshape --------------------------------------------------------------- */

Test(reshape, merges_only_a_single_run) {
  ndx_layout t = make(2, (int64_t[]){3, 2}, (int64_t[]){1, 3}, 0); /* a transpose */
  ndx_layout out;
  cr_assert_eq(ndx_reshape(&out, &t, 1, (int64_t[]){6}), NDX_ENOVIEW);
}

Test(reshape, contiguous_splits_and_merges) {
  ndx_layout l = contiguous(3, (int64_t[]){2, 3, 4}), out;
  cr_assert_eq(ndx_reshape(&out, &l, 2, (int64_t[]){6, 4}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){6, 4}, (int64_t[]){4, 1}, 0, "[6,4]");
  cr_assert_eq(ndx_reshape(&out, &l, 2, (int64_t[]){4, 6}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){4, 6}, (int64_t[]){6, 1}, 0, "[4,6]");
  cr_assert_eq(ndx_reshape(&out, &l, 1, (int64_t[]){24}), NDX_OK);
  expect_layout(&out, 1, (int64_t[]){24}, (int64_t[]){1}, 0, "[24]");
  ndx_layout flat = out;
  cr_assert_eq(ndx_reshape(&out, &flat, 3, (int64_t[]){2, 3, 4}), NDX_OK);
  cr_assert(ndx_equal(&out, &l));
  ndx_move m = reshape_move(4, (int64_t[]){2, 2, 2, 3});
  out = apply_ok(&m, &l, "apply reshape");
  expect_layout(&out, 4, (int64_t[]){2, 2, 2, 3}, (int64_t[]){12, 6, 3, 1}, 0, "[2,2,2,3]");
}

Test(reshape, across_extent_one_axes) {
  ndx_layout l = contiguous(3, (int64_t[]){2, 1, 3}), out;
  cr_assert_eq(ndx_reshape(&out, &l, 1, (int64_t[]){6}), NDX_OK);
  expect_layout(&out, 1, (int64_t[]){6}, (int64_t[]){1}, 0, "[2,1,3] -> [6]");
  ndx_layout flat = out;
  cr_assert_eq(ndx_reshape(&out, &flat, 5, (int64_t[]){1, 2, 1, 3, 1}), NDX_OK);
  expect_layout(&out, 5, (int64_t[]){1, 2, 1, 3, 1}, (int64_t[]){0, 3, 0, 1, 0}, 0,
                "[6] -> [1,2,1,3,1]");
  /* a non-contiguous layout gains extent-1 axes anywhere */
  ndx_layout s = make(2, (int64_t[]){4, 3}, (int64_t[]){6, 1}, 1);
  cr_assert_eq(ndx_reshape(&out, &s, 4, (int64_t[]){1, 4, 1, 3}), NDX_OK);
  expect_layout(&out, 4, (int64_t[]){1, 4, 1, 3}, (int64_t[]){0, 6, 0, 1}, 1, "[4,3] sliced");
}

Test(reshape, extent_one_axes_with_odd_strides_do_not_break_a_merge) {
  ndx_layout l = make(3, (int64_t[]){3, 1, 4}, (int64_t[]){4, 77, 1}, 0), out;
  cr_assert_eq(ndx_reshape(&out, &l, 1, (int64_t[]){12}), NDX_OK);
  expect_layout(&out, 1, (int64_t[]){12}, (int64_t[]){1}, 0, "[3,1,4] odd stride");
  l = make(4, (int64_t[]){2, 1, 1, 3}, (int64_t[]){3, INT64_MIN, -9, 1}, 2);
  cr_assert_eq(ndx_reshape(&out, &l, 2, (int64_t[]){3, 2}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){3, 2}, (int64_t[]){2, 1}, 2, "INT64_MIN on extent 1");
}

Test(reshape, sliced_view_fails_or_succeeds_exactly) {
  /* columns 1..3 of a contiguous [4,6]: shape [4,3] strides [6,1] offset 1 */
  ndx_layout s = make(2, (int64_t[]){4, 3}, (int64_t[]){6, 1}, 1), out;
  cr_assert_eq(ndx_reshape(&out, &s, 1, (int64_t[]){12}), NDX_ENOVIEW);
  cr_assert_eq(ndx_reshape(&out, &s, 2, (int64_t[]){3, 4}), NDX_ENOVIEW);
  cr_assert_eq(ndx_reshape(&out, &s, 3, (int64_t[]){2, 2, 3}), NDX_OK);
  expect_layout(&out, 3, (int64_t[]){2, 2, 3}, (int64_t[]){12, 6, 1}, 1, "split the rows");
  /* every other row of a contiguous [4,6]: [2,6] strides [12,1] */
  s = make(2, (int64_t[]){2, 6}, (int64_t[]){12, 1}, 0);
  cr_assert_eq(ndx_reshape(&out, &s, 1, (int64_t[]){12}), NDX_ENOVIEW);
  cr_assert_eq(ndx_reshape(&out, &s, 3, (int64_t[]){2, 2, 3}), NDX_OK);
  expect_layout(&out, 3, (int64_t[]){2, 2, 3}, (int64_t[]){12, 3, 1}, 0, "split the columns");
  /* a strided single axis splits */
  s = make(1, (int64_t[]){6}, (int64_t[]){2}, 0);
  cr_assert_eq(ndx_reshape(&out, &s, 2, (int64_t[]){2, 3}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){2, 3}, (int64_t[]){6, 2}, 0, "[6] stride 2");
}

Test(reshape, broadcast_view_fails_or_succeeds_exactly) {
  ndx_layout b = make(2, (int64_t[]){4, 3}, (int64_t[]){0, 1}, 0), out;
  cr_assert_eq(ndx_reshape(&out, &b, 1, (int64_t[]){12}), NDX_ENOVIEW);
  cr_assert_eq(ndx_reshape(&out, &b, 3, (int64_t[]){2, 2, 3}), NDX_OK);
  expect_layout(&out, 3, (int64_t[]){2, 2, 3}, (int64_t[]){0, 0, 1}, 0, "split a broadcast axis");
  b = make(1, (int64_t[]){6}, (int64_t[]){0}, 3);
  cr_assert_eq(ndx_reshape(&out, &b, 2, (int64_t[]){2, 3}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){2, 3}, (int64_t[]){0, 0}, 3, "[6] stride 0 split");
  b = make(2, (int64_t[]){2, 3}, (int64_t[]){0, 0}, 3);
  cr_assert_eq(ndx_reshape(&out, &b, 1, (int64_t[]){6}), NDX_OK);
  expect_layout(&out, 1, (int64_t[]){6}, (int64_t[]){0}, 3, "merge two broadcast axes");
  cr_assert_eq(ndx_reshape(&out, &b, 2, (int64_t[]){3, 2}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){3, 2}, (int64_t[]){0, 0}, 3, "[2,3] stride 0 -> [3,2]");
  b = make(2, (int64_t[]){3, 2}, (int64_t[]){0, 1}, 0);
  cr_assert_eq(ndx_reshape(&out, &b, 1, (int64_t[]){6}), NDX_ENOVIEW);
  b = make(2, (int64_t[]){3, 2}, (int64_t[]){1, 0}, 0);
  cr_assert_eq(ndx_reshape(&out, &b, 1, (int64_t[]){6}), NDX_ENOVIEW);
}

Test(reshape, negative_strides) {
  ndx_layout f = make(2, (int64_t[]){2, 3}, (int64_t[]){-3, -1}, 5), out;
  cr_assert_eq(ndx_reshape(&out, &f, 1, (int64_t[]){6}), NDX_OK);
  expect_layout(&out, 1, (int64_t[]){6}, (int64_t[]){-1}, 5, "both axes flipped");
  cr_assert_eq(ndx_reshape(&out, &f, 2, (int64_t[]){3, 2}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){3, 2}, (int64_t[]){-2, -1}, 5, "[3,2]");
  f = make(2, (int64_t[]){2, 3}, (int64_t[]){-3, 1}, 3); /* positions 3,4,5,0,1,2 */
  cr_assert_eq(ndx_reshape(&out, &f, 1, (int64_t[]){6}), NDX_ENOVIEW);
  f = make(1, (int64_t[]){6}, (int64_t[]){-2}, 10);
  cr_assert_eq(ndx_reshape(&out, &f, 2, (int64_t[]){3, 2}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){3, 2}, (int64_t[]){-4, -2}, 10, "[6] stride -2");
}

Test(reshape, zero_size_tensors) {
  ndx_layout z = make(2, (int64_t[]){0, 3}, (int64_t[]){5, 1}, 0), out;
  cr_assert_eq(ndx_reshape(&out, &z, 2, (int64_t[]){3, 0}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){3, 0}, (int64_t[]){0, 0}, 0, "[0,3] -> [3,0]");
  cr_assert_eq(ndx_reshape(&out, &z, 1, (int64_t[]){0}), NDX_OK);
  expect_layout(&out, 1, (int64_t[]){0}, (int64_t[]){0}, 0, "[0,3] -> [0]");
  cr_assert_eq(ndx_reshape(&out, &z, 3, (int64_t[]){4, 0, 5}), NDX_OK);
  expect_layout(&out, 3, (int64_t[]){4, 0, 5}, (int64_t[]){0, 0, 0}, 0, "-> [4,0,5]");
  ndx_move m = reshape_move(1, (int64_t[]){5});
  expect_apply_fails(NDX_EINVAL, &m, &z, "[0,3] -> [5]: another element count");
}

Test(reshape, another_element_count_is_einval_not_enoview) {
  ndx_layout l = contiguous(2, (int64_t[]){2, 3});
  ndx_move m = reshape_move(1, (int64_t[]){7});
  expect_apply_fails(NDX_EINVAL, &m, &l, "[2,3] -> [7]");
  m = reshape_move(3, (int64_t[]){2, 3, 2});
  expect_apply_fails(NDX_EINVAL, &m, &l, "[2,3] -> [2,3,2]");
  /* a transpose that could not be a view either: the count is checked first */
  ndx_layout t = make(2, (int64_t[]){3, 2}, (int64_t[]){1, 3}, 0);
  m = reshape_move(1, (int64_t[]){5});
  expect_apply_fails(NDX_EINVAL, &m, &t, "transpose to another count");
  m = reshape_move(2, (int64_t[]){-2, -3}); /* product 6, but negative extents */
  expect_apply_fails(NDX_EINVAL, &m, &l, "negative extents multiplying to 6");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_reshape(&out, &l, 1, (int64_t[]){7}), "wrapper");
}

Test(reshape, rank_zero_and_single_element) {
  ndx_layout s = make(0, none, none, 4), out;
  cr_assert_eq(ndx_reshape(&out, &s, 2, (int64_t[]){1, 1}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){1, 1}, (int64_t[]){0, 0}, 4, "[] -> [1,1]");
  ndx_layout one = out;
  cr_assert_eq(ndx_reshape(&out, &one, 0, none), NDX_OK);
  cr_assert_eq(out.rank, 0);
  cr_assert_eq(out.offset, 4);
}

Test(reshape, target_rank_limits) {
  ndx_layout l = contiguous(1, (int64_t[]){INT64_C(1) << 32}), out;
  int64_t twos[NDX_MAX_RANK + 1], ones[NDX_MAX_RANK + 1];
  for (int a = 0; a <= NDX_MAX_RANK; a++) twos[a] = 2, ones[a] = 1;
  cr_assert_eq(ndx_reshape(&out, &l, NDX_MAX_RANK, twos), NDX_OK, "exactly 32 axes");
  cr_assert_eq(out.rank, NDX_MAX_RANK);
  for (int a = 0; a < NDX_MAX_RANK; a++)
    cr_assert_eq(out.strides[a], INT64_C(1) << (31 - a), "axis %d", a);
  ndx_layout s = make(0, none, none, 0);
  ndx_layout before;
  memset(&out, 0xA5, sizeof out);
  before = out;
  ndx_status st = ndx_reshape(&out, &s, NDX_MAX_RANK + 1, ones);
  cr_assert(st == NDX_ERANGE || st == NDX_EINVAL, "33 axes refused: %s", ndx_status_name(st));
  cr_assert_eq(memcmp(&out, &before, sizeof out), 0);
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_reshape(&out, &s, -1, ones), "rank -1");
}

Test(reshape, a_target_past_the_limits_is_erange) {
  ndx_layout z = contiguous(1, (int64_t[]){0});
  ndx_move m = reshape_move(3, (int64_t[]){0, INT64_C(1) << 40, INT64_C(1) << 40});
  expect_apply_fails(NDX_ERANGE, &m, &z, "[0] -> [0,2^40,2^40]");
  m = reshape_move(2, (int64_t[]){INT64_MAX, 0});
  expect_apply_fails(NDX_ERANGE, &m, &z, "[0] -> [INT64_MAX,0]");
}

/* ---- large layouts: 64-bit index math (REFERENCE.md section 4) ------------- */

Test(large, moves_past_2_31_elements) {
  int64_t p31 = INT64_C(1) << 31, p32 = INT64_C(1) << 32, p33 = INT64_C(1) << 33;
  ndx_layout l = contiguous(2, (int64_t[]){3, p31 + 1}), out;
  cr_assert_eq(ndx_narrow(&out, &l, 1, p31, 1), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){3, 1}, (int64_t[]){p31 + 1, 0}, p31, "narrow");
  ndx_layout big = contiguous(1, (int64_t[]){p33});
  cr_assert_eq(ndx_flip(&out, &big, 0), NDX_OK);
  expect_layout(&out, 1, (int64_t[]){p33}, (int64_t[]){-1}, p33 - 1, "flip [2^33]");
  cr_assert_eq(ndx_reshape(&out, &big, 2, (int64_t[]){2, p32}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){2, p32}, (int64_t[]){p32, 1}, 0, "reshape [2^33]");
  ndx_layout r = out;
  cr_assert_eq(ndx_transpose(&out, &r, 0, 1), NDX_OK);
  ndx_layout t = out;
  cr_assert_eq(ndx_reshape(&out, &t, 1, (int64_t[]){p33}), NDX_ENOVIEW);
  ndx_layout b34 = contiguous(1, (int64_t[]){INT64_C(1) << 34});
  ndx_move m = slice_move(1, (ndx_range[]){{p32, 2, p31}});
  out = apply_ok(&m, &b34, "slice at 2^32 step 2^31");
  expect_layout(&out, 1, (int64_t[]){2}, (int64_t[]){p31}, p32, "slice");
  m = window_move(1, (ndx_window[]){{0, p31, p31, 1}});
  out = apply_ok(&m, &big, "windows of 2^31");
  expect_layout(&out, 2, (int64_t[]){4, p31}, (int64_t[]){p31, 1}, 0, "window");
  ndx_layout one = contiguous(1, (int64_t[]){1});
  cr_assert_eq(ndx_broadcast(&out, &one, 2, (int64_t[]){p31, INT64_C(1) << 22}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){p31, INT64_C(1) << 22}, (int64_t[]){0, 0}, 0, "2^53");
  m = broadcast_move(2, (int64_t[]){p31, p32});
  expect_apply_fails(NDX_ERANGE, &m, &one, "2^63 elements");
}

/* ---- broadcast --------------------------------------------------------------- */

Test(broadcast, right_aligned_new_and_stretched_axes_get_stride_zero) {
  ndx_layout l = make(1, (int64_t[]){3}, (int64_t[]){1}, 2), out;
  cr_assert_eq(ndx_broadcast(&out, &l, 2, (int64_t[]){2, 3}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){2, 3}, (int64_t[]){0, 1}, 2, "[3] -> [2,3]");
  l = contiguous(2, (int64_t[]){3, 1});
  ndx_move m = broadcast_move(3, (int64_t[]){2, 3, 4});
  out = apply_ok(&m, &l, "[3,1] -> [2,3,4]");
  expect_layout(&out, 3, (int64_t[]){2, 3, 4}, (int64_t[]){0, 1, 0}, 0, "[3,1] -> [2,3,4]");
  l = make(0, none, none, 6);
  cr_assert_eq(ndx_broadcast(&out, &l, 2, (int64_t[]){3, 4}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){3, 4}, (int64_t[]){0, 0}, 6, "[] -> [3,4]");
  cr_assert_eq(ndx_broadcast(&out, &l, 0, none), NDX_OK);
  expect_layout(&out, 0, none, none, 6, "[] -> []");
}

Test(broadcast, old_extent_must_be_one_or_equal) {
  ndx_layout l = contiguous(2, (int64_t[]){3, 4});
  ndx_move m = broadcast_move(2, (int64_t[]){3, 5});
  expect_apply_fails(NDX_EINVAL, &m, &l, "[3,4] -> [3,5]");
  m = broadcast_move(3, (int64_t[]){2, 4, 4});
  expect_apply_fails(NDX_EINVAL, &m, &l, "[3,4] -> [2,4,4]: not right-aligned");
  ndx_layout z = contiguous(1, (int64_t[]){0});
  m = broadcast_move(1, (int64_t[]){1});
  expect_apply_fails(NDX_EINVAL, &m, &z, "[0] -> [1]: 0 is neither 1 nor 1");
  m = broadcast_move(2, (int64_t[]){4, 0});
  ndx_layout out = apply_ok(&m, &z, "[0] -> [4,0]");
  expect_layout(&out, 2, (int64_t[]){4, 0}, (int64_t[]){0, 0}, 0, "[0] -> [4,0]");
  ndx_layout one = contiguous(1, (int64_t[]){1});
  m = broadcast_move(1, (int64_t[]){-1});
  expect_apply_fails(NDX_EINVAL, &m, &one, "[1] -> [-1]");
}

Test(broadcast, into_a_zero_extent_is_empty) {
  ndx_layout l = make(2, (int64_t[]){1, 3}, (int64_t[]){0, 2}, 5), out;
  cr_assert_eq(ndx_broadcast(&out, &l, 2, (int64_t[]){0, 3}), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){0, 3}, (int64_t[]){0, 0}, 0, "[1,3] -> [0,3]");
}

Test(broadcast, fewer_axes_is_einval) {
  ndx_layout l = contiguous(2, (int64_t[]){1, 4});
  ndx_move m = broadcast_move(1, (int64_t[]){4});
  expect_apply_fails(NDX_EINVAL, &m, &l, "[1,4] -> [4]");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_broadcast(&out, &l, 1, (int64_t[]){4}), "wrapper");
}

Test(broadcast, past_2_53_elements_or_32_axes_is_erange) {
  ndx_layout l = contiguous(1, (int64_t[]){1});
  ndx_move m = broadcast_move(2, (int64_t[]){P53, 2});
  expect_apply_fails(NDX_ERANGE, &m, &l, "[1] -> [2^53,2]");
  m = broadcast_move(1, (int64_t[]){P53 + 1});
  expect_apply_fails(NDX_ERANGE, &m, &l, "[1] -> [2^53+1]");
  m = broadcast_move(3, (int64_t[]){INT64_C(1) << 40, 0, INT64_C(1) << 40});
  expect_apply_fails(NDX_ERANGE, &m, &l, "[1] -> [2^40,0,2^40]: non-zero extents pass 2^53");
  m = broadcast_move(1, (int64_t[]){P53});
  ndx_layout out = apply_ok(&m, &l, "[1] -> [2^53]");
  expect_layout(&out, 1, (int64_t[]){P53}, (int64_t[]){0}, 0, "[2^53] stride 0");
  int64_t ones[NDX_MAX_RANK + 1];
  for (int a = 0; a <= NDX_MAX_RANK; a++) ones[a] = 1;
  m = broadcast_move(NDX_MAX_RANK, ones);
  out = apply_ok(&m, &l, "[1] -> 32 axes");
  cr_assert_eq(out.rank, NDX_MAX_RANK);
  m = broadcast_move(NDX_MAX_RANK + 1, ones);
  expect_apply_fails(NDX_ERANGE, &m, &l, "[1] -> 33 axes");
}

/* ---- permute and transpose ---------------------------------------------------- */

Test(permute, result_axis_i_is_old_axis_p_i) {
  ndx_layout l = make(3, (int64_t[]){2, 3, 4}, (int64_t[]){12, 4, 1}, 3), out;
  cr_assert_eq(ndx_permute(&out, &l, (int32_t[]){2, 0, 1}), NDX_OK);
  expect_layout(&out, 3, (int64_t[]){4, 2, 3}, (int64_t[]){1, 12, 4}, 3, "perm [2,0,1]");
  ndx_move m = permute_move(3, (int32_t[]){1, 2, 0});
  out = apply_ok(&m, &l, "perm [1,2,0]");
  expect_layout(&out, 3, (int64_t[]){3, 4, 2}, (int64_t[]){4, 1, 12}, 3, "perm [1,2,0]");
  ndx_layout s = make(0, none, none, 1);
  m = permute_move(0, (int32_t[]){0});
  out = apply_ok(&m, &s, "rank 0");
  expect_layout(&out, 0, none, none, 1, "rank 0");
}

Test(permute, only_permutations_of_every_axis) {
  ndx_layout l = contiguous(3, (int64_t[]){2, 3, 4});
  ndx_move m = permute_move(3, (int32_t[]){0, 0, 1});
  expect_apply_fails(NDX_EINVAL, &m, &l, "duplicate");
  m = permute_move(3, (int32_t[]){0, 1, 3});
  expect_apply_fails(NDX_EINVAL, &m, &l, "axis 3 of 3");
  m = permute_move(3, (int32_t[]){-1, 0, 1});
  expect_apply_fails(NDX_EINVAL, &m, &l, "axis -1");
  m = permute_move(2, (int32_t[]){1, 0});
  expect_apply_fails(NDX_EINVAL, &m, &l, "n = 2 on rank 3");
  m = permute_move(4, (int32_t[]){3, 2, 1, 0});
  expect_apply_fails(NDX_EINVAL, &m, &l, "n = 4 on rank 3");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_permute(&out, &l, (int32_t[]){2, 2, 0}), "wrapper");
}

Test(transpose, swaps_two_axes) {
  ndx_layout l = contiguous(3, (int64_t[]){2, 3, 4}), out;
  cr_assert_eq(ndx_transpose(&out, &l, 0, 2), NDX_OK);
  expect_layout(&out, 3, (int64_t[]){4, 3, 2}, (int64_t[]){1, 4, 12}, 0, "transpose 0 2");
  cr_assert_eq(ndx_transpose(&out, &l, 2, 1), NDX_OK);
  expect_layout(&out, 3, (int64_t[]){2, 4, 3}, (int64_t[]){12, 1, 4}, 0, "transpose 2 1");
  cr_assert_eq(ndx_transpose(&out, &l, 1, 1), NDX_OK, "an axis with itself is the identity");
  cr_assert(ndx_equal(&out, &l));
}

Test(transpose, axes_out_of_range) {
  ndx_layout l = contiguous(3, (int64_t[]){2, 3, 4});
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_transpose(&out, &l, 0, 3), "axis 3");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_transpose(&out, &l, -1, 0), "axis -1");
  ndx_layout s = make(0, none, none, 0);
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_transpose(&out, &s, 0, 0), "rank 0");
}

/* ---- slice and narrow ---------------------------------------------------------- */

Test(slice, offset_and_strides) {
  ndx_layout l = contiguous(2, (int64_t[]){4, 6}), out;
  ndx_range r[] = {{1, 2, 2}, {5, 3, -2}};
  cr_assert_eq(ndx_slice(&out, &l, r), NDX_OK);
  /* offset 1*6 + 5*1, strides 6*2 and 1*-2: positions 11,9,7,23,21,19 */
  expect_layout(&out, 2, (int64_t[]){2, 3}, (int64_t[]){12, -2}, 11, "slice");
  ndx_move m = slice_move(2, r);
  ndx_layout again = apply_ok(&m, &l, "apply slice");
  cr_assert(ndx_equal(&again, &out));
}

Test(slice, step_zero_refused_even_for_count_zero) {
  ndx_layout l = contiguous(2, (int64_t[]){4, 6});
  ndx_move m = slice_move(2, (ndx_range[]){{0, 4, 1}, {0, 2, 0}});
  expect_apply_fails(NDX_EINVAL, &m, &l, "step 0");
  m = slice_move(2, (ndx_range[]){{0, 4, 1}, {0, 0, 0}});
  expect_apply_fails(NDX_EINVAL, &m, &l, "step 0, count 0");
}

Test(slice, count_zero_allows_any_start) {
  ndx_layout l = make(2, (int64_t[]){4, 6}, (int64_t[]){6, 1}, 3);
  ndx_move m = slice_move(2, (ndx_range[]){{100, 0, 7}, {0, 6, 1}});
  ndx_layout out = apply_ok(&m, &l, "start 100, count 0");
  expect_layout(&out, 2, (int64_t[]){0, 6}, (int64_t[]){0, 0}, 0, "empty slice");
  m = slice_move(2, (ndx_range[]){{1, 2, 1}, {INT64_MIN, 0, -1}});
  out = apply_ok(&m, &l, "start INT64_MIN, count 0");
  expect_layout(&out, 2, (int64_t[]){2, 0}, (int64_t[]){0, 0}, 0, "empty slice");
  m = slice_move(2, (ndx_range[]){{INT64_MAX, 0, INT64_MAX}, {0, 6, 1}});
  out = apply_ok(&m, &l, "start and step INT64_MAX, count 0");
  cr_assert_eq(out.shape[0], 0);
}

Test(slice, negative_count_refused) {
  ndx_layout l = contiguous(1, (int64_t[]){5});
  ndx_move m = slice_move(1, (ndx_range[]){{0, -1, 1}});
  expect_apply_fails(NDX_EINVAL, &m, &l, "count -1");
  m = slice_move(1, (ndx_range[]){{0, INT64_MIN, 1}});
  expect_apply_fails(NDX_EINVAL, &m, &l, "count INT64_MIN");
}

Test(slice, start_and_last_element_inside_the_extent) {
  ndx_layout l = contiguous(1, (int64_t[]){5});
  struct {
    ndx_range r;
    bool ok;
  } cases[] = {
      {{0, 5, 1}, true},  {{0, 6, 1}, false},  {{5, 1, 1}, false}, {{-1, 1, 1}, false},
      {{4, 5, -1}, true}, {{4, 6, -1}, false}, {{0, 3, 2}, true},  {{0, 4, 2}, false},
      {{1, 2, -1}, true}, {{1, 3, -1}, false}, {{4, 2, -4}, true}, {{4, 2, -5}, false},
      {{3, 1, 9}, true},  {{2, 2, 2}, true},   {{2, 2, 3}, false}, {{0, 1, -1}, true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    ndx_move m = slice_move(1, &cases[i].r);
    char what[128];
    snprintf(what, sizeof what, "[5] slice {%lld,%lld,%lld}", (long long)cases[i].r.start,
             (long long)cases[i].r.count, (long long)cases[i].r.step);
    if (!cases[i].ok) {
      expect_apply_fails(NDX_EINVAL, &m, &l, what);
      continue;
    }
    ndx_layout out = apply_ok(&m, &l, what);
    int64_t c = cases[i].r.count;
    expect_layout(&out, 1, &c, (int64_t[]){c > 1 ? cases[i].r.step : 0}, cases[i].r.start, what);
  }
}

Test(slice, huge_values_are_checked_without_overflow) {
  ndx_layout l = contiguous(1, (int64_t[]){5});
  ndx_range bad[] = {
      {0, 2, INT64_MAX},         {INT64_MAX, 1, 1},         {0, INT64_MAX, 1},
      {4, 2, INT64_MIN},         {4, INT64_MAX, -1},        {0, INT64_MAX, INT64_MAX},
      {INT64_MIN, 1, 1},         {1, 3, INT64_MAX / 2},     {4, 3, INT64_MIN / 2},
      {INT64_MIN, 2, INT64_MAX}, {2, INT64_MAX, INT64_MIN},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ndx_move m = slice_move(1, &bad[i]);
    char what[128];
    snprintf(what, sizeof what, "[5] slice {%lld,%lld,%lld}", (long long)bad[i].start,
             (long long)bad[i].count, (long long)bad[i].step);
    expect_apply_fails(NDX_EINVAL, &m, &l, what);
  }
}

Test(slice, count_one_with_a_huge_step_is_valid) {
  ndx_layout l = make(1, (int64_t[]){5}, (int64_t[]){3}, 1);
  ndx_move m = slice_move(1, (ndx_range[]){{2, 1, INT64_MAX}});
  ndx_layout out = apply_ok(&m, &l, "count 1 step INT64_MAX");
  expect_layout(&out, 1, (int64_t[]){1}, (int64_t[]){0}, 7, "one element");
  m = slice_move(1, (ndx_range[]){{4, 1, INT64_MIN}});
  out = apply_ok(&m, &l, "count 1 step INT64_MIN");
  expect_layout(&out, 1, (int64_t[]){1}, (int64_t[]){0}, 13, "one element");
}

Test(slice, one_range_per_axis) {
  ndx_layout l = contiguous(2, (int64_t[]){4, 6});
  ndx_move m = slice_move(1, (ndx_range[]){{0, 4, 1}});
  expect_apply_fails(NDX_EINVAL, &m, &l, "1 range on rank 2");
  m = slice_move(3, (ndx_range[]){{0, 4, 1}, {0, 6, 1}, {0, 1, 1}});
  expect_apply_fails(NDX_EINVAL, &m, &l, "3 ranges on rank 2");
  ndx_layout z = contiguous(1, (int64_t[]){0});
  m = slice_move(1, (ndx_range[]){{0, 0, 1}});
  ndx_layout out = apply_ok(&m, &z, "count 0 of an empty axis");
  cr_assert_eq(out.shape[0], 0);
  m = slice_move(1, (ndx_range[]){{0, 1, 1}});
  expect_apply_fails(NDX_EINVAL, &m, &z, "count 1 of an empty axis");
}

Test(narrow, keeps_len_entries_from_start) {
  ndx_layout l = contiguous(2, (int64_t[]){4, 6}), out;
  cr_assert_eq(ndx_narrow(&out, &l, 1, 2, 3), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){4, 3}, (int64_t[]){6, 1}, 2, "narrow 1 2 3");
  cr_assert_eq(ndx_narrow(&out, &l, 0, 3, 1), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){1, 6}, (int64_t[]){0, 1}, 18, "narrow 0 3 1");
}

Test(narrow, bounds_checked_without_overflow) {
  ndx_layout l = make(1, (int64_t[]){5}, (int64_t[]){2}, 1), out;
  cr_assert_eq(ndx_narrow(&out, &l, 0, 0, 5), NDX_OK);
  cr_assert(ndx_equal(&out, &l));
  cr_assert_eq(ndx_narrow(&out, &l, 0, 5, 0), NDX_OK, "start = extent, len 0");
  expect_layout(&out, 1, (int64_t[]){0}, (int64_t[]){0}, 0, "empty narrow");
  cr_assert_eq(ndx_narrow(&out, &l, 0, 1, 4), NDX_OK, "start + len = extent");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_narrow(&out, &l, 0, 2, 4), "2 + 4 > 5");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_narrow(&out, &l, 0, 6, 0), "start 6 > 5");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_narrow(&out, &l, 0, -1, 2), "start -1");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_narrow(&out, &l, 0, 1, -1), "len -1");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_narrow(&out, &l, 0, INT64_MAX, INT64_MAX), "max + max");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_narrow(&out, &l, 0, 1, INT64_MAX), "1 + max");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_narrow(&out, &l, 0, INT64_MAX, 0), "start max");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_narrow(&out, &l, 0, INT64_MIN, 3), "start min");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_narrow(&out, &l, 1, 0, 1), "axis 1 of 1");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_narrow(&out, &l, -1, 0, 1), "axis -1");
}

Test(narrow, after_flip) {
  ndx_layout l = contiguous(1, (int64_t[]){5}), f, out;
  cr_assert_eq(ndx_flip(&f, &l, 0), NDX_OK);
  expect_layout(&f, 1, (int64_t[]){5}, (int64_t[]){-1}, 4, "flip");
  cr_assert_eq(ndx_narrow(&out, &f, 0, 1, 3), NDX_OK); /* positions 3,2,1 */
  expect_layout(&out, 1, (int64_t[]){3}, (int64_t[]){-1}, 3, "narrow after flip");
  cr_assert_eq(ndx_narrow(&out, &f, 0, 4, 1), NDX_OK); /* position 0 */
  expect_layout(&out, 1, (int64_t[]){1}, (int64_t[]){0}, 0, "last after flip");
}

/* ---- flip ------------------------------------------------------------------------ */

Test(flip, reverses_an_axis) {
  ndx_layout l = contiguous(2, (int64_t[]){2, 3}), out;
  cr_assert_eq(ndx_flip(&out, &l, 1), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){2, 3}, (int64_t[]){3, -1}, 2, "flip axis 1");
  cr_assert_eq(ndx_flip(&out, &l, 0), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){2, 3}, (int64_t[]){-3, 1}, 3, "flip axis 0");
}

Test(flip, offset_moves_by_signed_stride_not_absolute) {
  /* positions 4,2,0; flipped: 0,2,4. The seed's (size-1)*|stride| would give
   * offset 8. */
  ndx_layout l = make(1, (int64_t[]){3}, (int64_t[]){-2}, 4), out;
  cr_assert_eq(ndx_flip(&out, &l, 0), NDX_OK);
  expect_layout(&out, 1, (int64_t[]){3}, (int64_t[]){2}, 0, "flip of a negative stride");
  l = make(2, (int64_t[]){2, 3}, (int64_t[]){-3, 1}, 3);
  cr_assert_eq(ndx_flip(&out, &l, 0), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){2, 3}, (int64_t[]){3, 1}, 0, "unflip");
}

Test(flip, twice_is_the_identity) {
  ndx_layout ls[] = {
      contiguous(2, (int64_t[]){2, 3}),
      make(3, (int64_t[]){2, 1, 4}, (int64_t[]){-4, 0, 1}, 4),
      make(2, (int64_t[]){3, 3}, (int64_t[]){0, -2}, 6),
  };
  for (size_t i = 0; i < sizeof ls / sizeof *ls; i++)
    for (int a = 0; a < ls[i].rank; a++) {
      ndx_layout once, twice;
      cr_assert_eq(ndx_flip(&once, &ls[i], a), NDX_OK);
      cr_assert_eq(ndx_flip(&twice, &once, a), NDX_OK);
      cr_assert(ndx_equal(&twice, &ls[i]), "layout %zu axis %d", i, a);
    }
}

Test(flip, axes_of_extent_zero_and_one_are_no_ops) {
  ndx_layout z = make(2, (int64_t[]){0, 3}, (int64_t[]){3, 1}, 0), out;
  cr_assert_eq(ndx_flip(&out, &z, 0), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){0, 3}, (int64_t[]){0, 0}, 0, "flip an empty axis");
  cr_assert_eq(ndx_flip(&out, &z, 1), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){0, 3}, (int64_t[]){0, 0}, 0, "flip in an empty layout");
  ndx_layout o = make(2, (int64_t[]){1, 3}, (int64_t[]){5, 1}, 2);
  cr_assert_eq(ndx_flip(&out, &o, 0), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){1, 3}, (int64_t[]){0, 1}, 2, "flip an extent-1 axis");
}

Test(flip, axis_out_of_range) {
  ndx_layout l = contiguous(2, (int64_t[]){2, 3});
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_flip(&out, &l, 2), "axis 2 of 2");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_flip(&out, &l, -1), "axis -1");
  ndx_layout s = make(0, none, none, 0);
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_flip(&out, &s, 0), "rank 0");
}

/* ---- squeeze and unsqueeze -------------------------------------------------------- */

Test(squeeze, removes_an_extent_one_axis) {
  ndx_layout l = contiguous(3, (int64_t[]){2, 1, 3}), out;
  cr_assert_eq(ndx_squeeze(&out, &l, 1), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){2, 3}, (int64_t[]){3, 1}, 0, "squeeze 1");
  ndx_layout one = make(1, (int64_t[]){1}, (int64_t[]){9}, 4);
  cr_assert_eq(ndx_squeeze(&out, &one, 0), NDX_OK);
  expect_layout(&out, 0, none, none, 4, "squeeze to rank 0");
}

Test(squeeze, refuses_any_other_extent) {
  ndx_layout l = contiguous(3, (int64_t[]){2, 1, 0});
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_squeeze(&out, &l, 0), "extent 2");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_squeeze(&out, &l, 2), "extent 0");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_squeeze(&out, &l, 3), "axis 3 of 3");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_squeeze(&out, &l, -1), "axis -1");
}

Test(unsqueeze, inserts_an_extent_one_axis_with_stride_zero) {
  ndx_layout l = make(2, (int64_t[]){2, 3}, (int64_t[]){3, 1}, 1), out;
  cr_assert_eq(ndx_unsqueeze(&out, &l, 0), NDX_OK);
  expect_layout(&out, 3, (int64_t[]){1, 2, 3}, (int64_t[]){0, 3, 1}, 1, "before axis 0");
  cr_assert_eq(ndx_unsqueeze(&out, &l, 1), NDX_OK);
  expect_layout(&out, 3, (int64_t[]){2, 1, 3}, (int64_t[]){3, 0, 1}, 1, "before axis 1");
  cr_assert_eq(ndx_unsqueeze(&out, &l, 2), NDX_OK);
  expect_layout(&out, 3, (int64_t[]){2, 3, 1}, (int64_t[]){3, 1, 0}, 1, "at the end");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_unsqueeze(&out, &l, 3), "axis 3 of 2");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_unsqueeze(&out, &l, -1), "axis -1");
  ndx_layout z = make(1, (int64_t[]){0}, (int64_t[]){0}, 0);
  cr_assert_eq(ndx_unsqueeze(&out, &z, 1), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){0, 1}, (int64_t[]){0, 0}, 0, "empty");
}

Test(unsqueeze, at_32_axes_is_erange) {
  int64_t ones[NDX_MAX_RANK];
  for (int a = 0; a < NDX_MAX_RANK; a++) ones[a] = 1;
  ndx_layout l31 = contiguous(NDX_MAX_RANK - 1, ones), out;
  cr_assert_eq(ndx_unsqueeze(&out, &l31, 5), NDX_OK, "31 -> 32 axes");
  cr_assert_eq(out.rank, NDX_MAX_RANK);
  ndx_layout l32 = out;
  EXPECT_WRAPPER_FAILS(NDX_ERANGE, ndx_unsqueeze(&out, &l32, 0), "32 -> 33 axes");
}

/* ---- window (unfold) ------------------------------------------------------------- */

Test(window, size_step_literal) {
  ndx_layout l = contiguous(1, (int64_t[]){5}), out;
  ndx_window w = {0, 3, 2, 1}; /* windows at 0 and 2: extent (5-1-2)/2+1 = 2 */
  cr_assert_eq(ndx_unfold(&out, &l, 1, &w), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){2, 3}, (int64_t[]){2, 1}, 0, "size 3 step 2");
  ndx_move m = window_move(1, &w);
  ndx_layout again = apply_ok(&m, &l, "apply window");
  cr_assert(ndx_equal(&again, &out));
}

Test(window, dilation_literal) {
  ndx_layout l = make(1, (int64_t[]){5}, (int64_t[]){3}, 2), out;
  ndx_window w = {0, 2, 1, 2}; /* (5-1-2)/1+1 = 3 windows of {i, i+2} */
  cr_assert_eq(ndx_unfold(&out, &l, 1, &w), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){3, 2}, (int64_t[]){3, 6}, 2, "dilation 2");
}

Test(window, one_axis_appended_per_window_in_order) {
  ndx_layout l = contiguous(2, (int64_t[]){4, 6}), out;
  ndx_window w[] = {{0, 2, 2, 1}, {1, 3, 3, 1}};
  cr_assert_eq(ndx_unfold(&out, &l, 2, w), NDX_OK);
  expect_layout(&out, 4, (int64_t[]){2, 2, 2, 3}, (int64_t[]){12, 3, 6, 1}, 0, "two windows");
  ndx_layout m3 = contiguous(3, (int64_t[]){2, 7, 3});
  ndx_window w1 = {1, 3, 2, 2}; /* (7-1-4)/2+1 = 2 */
  cr_assert_eq(ndx_unfold(&out, &m3, 1, &w1), NDX_OK);
  expect_layout(&out, 4, (int64_t[]){2, 2, 3, 3}, (int64_t[]){21, 6, 1, 6}, 0, "middle axis");
}

Test(window, zero_windows_is_the_identity) {
  ndx_layout l = make(2, (int64_t[]){3, 4}, (int64_t[]){-4, 1}, 8), out;
  ndx_window w = {0, 1, 1, 1};
  cr_assert_eq(ndx_unfold(&out, &l, 0, &w), NDX_OK);
  cr_assert(ndx_equal(&out, &l));
}

Test(window, axes_strictly_increasing_and_in_range) {
  ndx_layout l = contiguous(2, (int64_t[]){4, 6});
  ndx_move m = window_move(2, (ndx_window[]){{1, 2, 1, 1}, {0, 2, 1, 1}});
  expect_apply_fails(NDX_EINVAL, &m, &l, "decreasing axes");
  m = window_move(2, (ndx_window[]){{0, 2, 1, 1}, {0, 2, 1, 1}});
  expect_apply_fails(NDX_EINVAL, &m, &l, "same axis twice");
  m = window_move(1, (ndx_window[]){{2, 1, 1, 1}});
  expect_apply_fails(NDX_EINVAL, &m, &l, "axis 2 of 2");
  m = window_move(1, (ndx_window[]){{-1, 1, 1, 1}});
  expect_apply_fails(NDX_EINVAL, &m, &l, "axis -1");
  m = window_move(-1, (ndx_window[]){{0, 1, 1, 1}});
  expect_apply_fails(NDX_EINVAL, &m, &l, "n = -1");
}

Test(window, size_step_dilation_at_least_one) {
  ndx_layout l = contiguous(1, (int64_t[]){5});
  ndx_window bad[] = {{0, 0, 1, 1},  {0, 2, 0, 1},  {0, 2, 1, 0},
                      {0, -1, 1, 1}, {0, 2, -1, 1}, {0, 2, 1, -2}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ndx_move m = window_move(1, &bad[i]);
    char what[96];
    snprintf(what, sizeof what, "window size %lld step %lld dilation %lld", (long long)bad[i].size,
             (long long)bad[i].step, (long long)bad[i].dilation);
    expect_apply_fails(NDX_EINVAL, &m, &l, what);
  }
}

Test(window, must_fit_the_extent) {
  ndx_layout l = contiguous(1, (int64_t[]){5});
  ndx_move m = window_move(1, (ndx_window[]){{0, 5, 1, 1}});
  ndx_layout out = apply_ok(&m, &l, "size = extent");
  expect_layout(&out, 2, (int64_t[]){1, 5}, (int64_t[]){0, 1}, 0, "size = extent");
  m = window_move(1, (ndx_window[]){{0, 3, 1, 2}});
  out = apply_ok(&m, &l, "2*(3-1)+1 = 5");
  expect_layout(&out, 2, (int64_t[]){1, 3}, (int64_t[]){0, 2}, 0, "dilated, fits exactly");
  m = window_move(1, (ndx_window[]){{0, 6, 1, 1}});
  expect_apply_fails(NDX_EINVAL, &m, &l, "size 6 > 5");
  m = window_move(1, (ndx_window[]){{0, 3, 1, 3}});
  expect_apply_fails(NDX_EINVAL, &m, &l, "3*2+1 = 7 > 5");
  ndx_layout z = contiguous(2, (int64_t[]){0, 3});
  m = window_move(1, (ndx_window[]){{0, 1, 1, 1}});
  expect_apply_fails(NDX_EINVAL, &m, &z, "a window on an empty axis");
  m = window_move(1, (ndx_window[]){{1, 2, 1, 1}});
  out = apply_ok(&m, &z, "a window on the other axis of an empty layout");
  expect_layout(&out, 3, (int64_t[]){0, 2, 2}, (int64_t[]){0, 0, 0}, 0, "empty");
}

Test(window, huge_values_are_checked_without_overflow) {
  ndx_layout l = contiguous(1, (int64_t[]){5});
  ndx_window bad[] = {
      {0, INT64_MAX, 1, INT64_MAX}, {0, 2, 1, INT64_MAX},         {0, INT64_MAX, 1, 1},
      {0, 3, 1, INT64_MAX / 2 + 1}, {0, INT64_MAX / 2 + 2, 1, 2}, {0, INT64_MAX, INT64_MAX, 1},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ndx_move m = window_move(1, &bad[i]);
    char what[96];
    snprintf(what, sizeof what, "window size %lld step %lld dilation %lld", (long long)bad[i].size,
             (long long)bad[i].step, (long long)bad[i].dilation);
    expect_apply_fails(NDX_EINVAL, &m, &l, what);
  }
}

Test(window, huge_step_or_dilation_on_an_extent_one_result_is_valid) {
  ndx_layout l = make(1, (int64_t[]){5}, (int64_t[]){3}, 0);
  ndx_move m = window_move(1, (ndx_window[]){{0, 1, INT64_MAX, 1}});
  ndx_layout out = apply_ok(&m, &l, "step INT64_MAX: one window");
  expect_layout(&out, 2, (int64_t[]){1, 1}, (int64_t[]){0, 0}, 0, "step INT64_MAX");
  m = window_move(1, (ndx_window[]){{0, 1, 1, INT64_MAX}});
  out = apply_ok(&m, &l, "size 1 dilation INT64_MAX");
  expect_layout(&out, 2, (int64_t[]){5, 1}, (int64_t[]){3, 0}, 0, "dilation INT64_MAX");
  m = window_move(1, (ndx_window[]){{0, 2, INT64_MAX, 4}});
  out = apply_ok(&m, &l, "size 2 dilation 4 step INT64_MAX");
  expect_layout(&out, 2, (int64_t[]){1, 2}, (int64_t[]){0, 12}, 0, "one dilated window");
}

Test(window, past_2_53_elements_or_32_axes_is_erange) {
  ndx_layout big = contiguous(1, (int64_t[]){P53});
  ndx_move m = window_move(1, (ndx_window[]){{0, INT64_C(1) << 26, 1, 1}});
  expect_apply_fails(NDX_ERANGE, &m, &big, "(2^53-2^26+1)*2^26 elements");
  m = window_move(1, (ndx_window[]){{0, 2, 1, 1}});
  expect_apply_fails(NDX_ERANGE, &m, &big, "(2^53-1)*2 elements");
  m = window_move(1, (ndx_window[]){{0, 2, 2, 1}});
  ndx_layout out = apply_ok(&m, &big, "2^52 * 2 elements");
  cr_assert_eq(ndx_numel(&out), P53);
  int64_t ones[NDX_MAX_RANK];
  for (int a = 0; a < NDX_MAX_RANK; a++) ones[a] = 1;
  ndx_layout l32 = contiguous(NDX_MAX_RANK, ones);
  m = window_move(1, (ndx_window[]){{3, 1, 1, 1}});
  expect_apply_fails(NDX_ERANGE, &m, &l32, "32 + 1 axes");
  ndx_layout l30 = contiguous(NDX_MAX_RANK - 2, ones);
  m = window_move(2, (ndx_window[]){{0, 1, 1, 1}, {4, 1, 1, 1}});
  out = apply_ok(&m, &l30, "30 + 2 axes");
  cr_assert_eq(out.rank, NDX_MAX_RANK);
  m = window_move(3, (ndx_window[]){{0, 1, 1, 1}, {4, 1, 1, 1}, {7, 1, 1, 1}});
  expect_apply_fails(NDX_ERANGE, &m, &l30, "30 + 3 axes");
}

Test(window, overlapping_windows_are_not_distinct) {
  ndx_layout l = contiguous(1, (int64_t[]){5});
  ndx_move m = window_move(1, (ndx_window[]){{0, 3, 1, 1}});
  ndx_layout out = apply_ok(&m, &l, "step 1 < 3");
  cr_assert_not(ndx_is_distinct(&out));
  ndx_layout l9 = contiguous(1, (int64_t[]){9});
  m = window_move(1, (ndx_window[]){{0, 3, 3, 1}});
  out = apply_ok(&m, &l9, "step 3 = 3");
  cr_assert(ndx_is_distinct(&out));
  m = window_move(1, (ndx_window[]){{0, 2, 3, 2}}); /* extent 2*(2-1)+1 = 3 = step */
  out = apply_ok(&m, &l9, "dilated step 3 = 3");
  cr_assert(ndx_is_distinct(&out));
}

/* ---- ndx_apply and ndx_move_shape in general -------------------------------------- */

Test(apply, null_pointers_are_einval) {
  ndx_layout l = contiguous(2, (int64_t[]){2, 3});
  ndx_move m = permute_move(2, (int32_t[]){1, 0});
  cr_assert_eq(ndx_apply(NULL, &m, &l), NDX_EINVAL);
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_apply(&out, NULL, &l), "NULL move");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_apply(&out, &m, NULL), "NULL layout");
  ndx_move kinds[] = {reshape_move(1, NULL), broadcast_move(2, NULL), permute_move(2, NULL),
                      slice_move(2, NULL), window_move(1, NULL)};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_apply(&out, &kinds[i], &l), "NULL array");
  cr_assert_eq(ndx_reshape(NULL, &l, 1, (int64_t[]){6}), NDX_EINVAL);
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_reshape(&out, NULL, 1, (int64_t[]){6}), "reshape NULL");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_reshape(&out, &l, 1, NULL), "reshape NULL shape");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_broadcast(&out, NULL, 2, (int64_t[]){2, 3}), "bc NULL");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_broadcast(&out, &l, 2, NULL), "broadcast NULL shape");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_permute(&out, &l, NULL), "permute NULL");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_slice(&out, &l, NULL), "slice NULL");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_unfold(&out, &l, 1, NULL), "unfold NULL");
  cr_assert_eq(ndx_narrow(NULL, &l, 0, 0, 1), NDX_EINVAL);
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_narrow(&out, NULL, 0, 0, 1), "narrow NULL");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_transpose(&out, NULL, 0, 1), "transpose NULL");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_flip(&out, NULL, 0), "flip NULL");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_squeeze(&out, NULL, 0), "squeeze NULL");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_unsqueeze(&out, NULL, 0), "unsqueeze NULL");
  cr_assert_eq(ndx_flip(NULL, &l, 0), NDX_EINVAL);
  cr_assert_eq(ndx_unsqueeze(NULL, &l, 0), NDX_EINVAL);
}

/* A layout with a rank outside [0, 32] (not one an ndx_ call builds) is
 * NDX_EINVAL for every call, never a read or write past the arrays. */
static const int bad_ranks[] = {-1, NDX_MAX_RANK + 1, INT32_MIN, INT32_MAX};

static ndx_layout with_rank(int rank) {
  ndx_layout l = make(2, (int64_t[]){1, 3}, (int64_t[]){0, 1}, 0);
  l.rank = rank;
  return l;
}

Test(bad_rank, apply_is_einval) {
  for (size_t i = 0; i < sizeof bad_ranks / sizeof *bad_ranks; i++) {
    ndx_layout l = with_rank(bad_ranks[i]);
    ndx_move m = window_move(0, (ndx_window[]){{0, 1, 1, 1}});
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_apply(&out, &m, &l), "zero windows, bad rank");
    m = permute_move(2, (int32_t[]){1, 0});
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_apply(&out, &m, &l), "permute, bad rank");
    m = reshape_move(1, (int64_t[]){3});
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_apply(&out, &m, &l), "reshape, bad rank");
  }
}

Test(bad_rank, flip_is_einval) {
  for (size_t i = 0; i < sizeof bad_ranks / sizeof *bad_ranks; i++) {
    ndx_layout l = with_rank(bad_ranks[i]);
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_flip(&out, &l, 1), "flip, bad rank");
  }
}

Test(bad_rank, narrow_is_einval) {
  for (size_t i = 0; i < sizeof bad_ranks / sizeof *bad_ranks; i++) {
    ndx_layout l = with_rank(bad_ranks[i]);
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_narrow(&out, &l, 1, 0, 2), "narrow, bad rank");
  }
}

Test(bad_rank, transpose_is_einval) {
  for (size_t i = 0; i < sizeof bad_ranks / sizeof *bad_ranks; i++) {
    ndx_layout l = with_rank(bad_ranks[i]);
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_transpose(&out, &l, 0, 1), "transpose, bad rank");
  }
}

Test(bad_rank, squeeze_is_einval) {
  for (size_t i = 0; i < sizeof bad_ranks / sizeof *bad_ranks; i++) {
    ndx_layout l = with_rank(bad_ranks[i]);
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_squeeze(&out, &l, 0), "squeeze, bad rank");
  }
}

Test(bad_rank, unsqueeze_is_einval) {
  for (size_t i = 0; i < sizeof bad_ranks / sizeof *bad_ranks; i++) {
    ndx_layout l = with_rank(bad_ranks[i]);
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_unsqueeze(&out, &l, 0), "unsqueeze, bad rank");
  }
}

Test(bad_rank, whole_move_wrappers_are_einval) {
  for (size_t i = 0; i < sizeof bad_ranks / sizeof *bad_ranks; i++) {
    ndx_layout l = with_rank(bad_ranks[i]);
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_reshape(&out, &l, 1, (int64_t[]){3}), "reshape");
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_broadcast(&out, &l, 2, (int64_t[]){1, 3}), "broadcast");
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_permute(&out, &l, (int32_t[]){1, 0}), "permute");
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_slice(&out, &l, (ndx_range[]){{0, 1, 1}, {0, 3, 1}}),
                         "slice");
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_unfold(&out, &l, 0, (ndx_window[]){{0, 1, 1, 1}}),
                         "unfold");
  }
}

Test(apply, unknown_kind_or_negative_n_is_einval) {
  ndx_layout l = contiguous(2, (int64_t[]){2, 3});
  ndx_move m = {.kind = (ndx_move_kind)99, .n = 0, .shape = NULL};
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_apply(&out, &m, &l), "kind 99");
  m = (ndx_move){.kind = (ndx_move_kind)-1, .n = 0, .shape = NULL};
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_apply(&out, &m, &l), "kind -1");
  int64_t six[] = {6};
  ndx_move neg[] = {reshape_move(-1, six), broadcast_move(-1, six),
                    permute_move(-1, (int32_t[]){0}), slice_move(-1, (ndx_range[]){{0, 1, 1}}),
                    window_move(-1, (ndx_window[]){{0, 1, 1, 1}})};
  for (size_t i = 0; i < sizeof neg / sizeof *neg; i++)
    EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_apply(&out, &neg[i], &l), "n = -1");
  EXPECT_WRAPPER_FAILS(NDX_EINVAL, ndx_unfold(&out, &l, -1, (ndx_window[]){{0, 1, 1, 1}}),
                       "unfold n = -1");
}

Test(apply, every_move_of_an_empty_layout_is_empty_and_canonical) {
  ndx_layout z = make(3, (int64_t[]){2, 0, 3}, (int64_t[]){3, 1, 1}, 0);
  ndx_move moves[] = {
      reshape_move(2, (int64_t[]){0, 7}),
      broadcast_move(4, (int64_t[]){5, 2, 0, 3}),
      permute_move(3, (int32_t[]){2, 0, 1}),
      slice_move(3, (ndx_range[]){{1, 1, 1}, {9, 0, -1}, {2, 1, 1}}),
      window_move(2, (ndx_window[]){{0, 2, 1, 1}, {2, 2, 1, 1}}),
  };
  for (size_t i = 0; i < sizeof moves / sizeof *moves; i++) {
    ndx_layout out = apply_ok(&moves[i], &z, "move of an empty layout");
    cr_assert_null(oracle_not_canonical(&out), "move %zu: %s", i, oracle_not_canonical(&out));
    cr_assert_eq(ndx_numel(&out), 0, "move %zu", i);
  }
  /* and into a shape with a 0 from a non-empty layout */
  ndx_layout l = make(2, (int64_t[]){3, 4}, (int64_t[]){4, 1}, 9);
  ndx_move s = slice_move(2, (ndx_range[]){{1, 0, 1}, {0, 4, 1}});
  ndx_layout out = apply_ok(&s, &l, "count 0");
  expect_layout(&out, 2, (int64_t[]){0, 4}, (int64_t[]){0, 0}, 0, "slice to empty");
  cr_assert_eq(ndx_narrow(&out, &l, 1, 2, 0), NDX_OK);
  expect_layout(&out, 2, (int64_t[]){3, 0}, (int64_t[]){0, 0}, 0, "narrow to empty");
}

Test(apply, results_have_entries_past_rank_zero) {
  ndx_layout l = contiguous(4, (int64_t[]){2, 3, 4, 5});
  ndx_layout out;
  memset(&out, 0xFF, sizeof out);
  cr_assert_eq(ndx_reshape(&out, &l, 1, (int64_t[]){120}), NDX_OK);
  cr_assert_eq(out.flags, 0u);
  for (int a = 1; a < NDX_MAX_RANK; a++) cr_assert(out.shape[a] == 0 && out.strides[a] == 0);
  ndx_layout alias = l;
  cr_assert_eq(ndx_squeeze(&alias, &alias, 0), NDX_EINVAL);
  cr_assert_eq(ndx_narrow(&alias, &alias, 0, 0, 1), NDX_OK);
  cr_assert_eq(ndx_squeeze(&alias, &alias, 0), NDX_OK);
  cr_assert_eq(alias.rank, 3);
  for (int a = 3; a < NDX_MAX_RANK; a++)
    cr_assert(alias.shape[a] == 0 && alias.strides[a] == 0, "in place, entry %d", a);
}

Test(move_shape, each_kind) {
  int rank = -1;
  int64_t out[NDX_MAX_RANK];
  int64_t s23[] = {2, 3};
  ndx_move m = reshape_move(3, (int64_t[]){3, 1, 2});
  cr_assert_eq(ndx_move_shape(&m, 2, s23, &rank, out), NDX_OK);
  cr_assert(rank == 3 && out[0] == 3 && out[1] == 1 && out[2] == 2);
  m = broadcast_move(3, (int64_t[]){4, 2, 3});
  cr_assert_eq(ndx_move_shape(&m, 2, s23, &rank, out), NDX_OK);
  cr_assert(rank == 3 && out[0] == 4 && out[1] == 2 && out[2] == 3);
  m = permute_move(2, (int32_t[]){1, 0});
  cr_assert_eq(ndx_move_shape(&m, 2, s23, &rank, out), NDX_OK);
  cr_assert(rank == 2 && out[0] == 3 && out[1] == 2);
  m = slice_move(2, (ndx_range[]){{1, 1, 1}, {2, 3, -1}});
  cr_assert_eq(ndx_move_shape(&m, 2, s23, &rank, out), NDX_OK);
  cr_assert(rank == 2 && out[0] == 1 && out[1] == 3);
  m = window_move(1, (ndx_window[]){{1, 2, 1, 1}});
  cr_assert_eq(ndx_move_shape(&m, 2, s23, &rank, out), NDX_OK);
  cr_assert(rank == 3 && out[0] == 2 && out[1] == 2 && out[2] == 2);
  m = permute_move(0, (int32_t[]){0});
  cr_assert_eq(ndx_move_shape(&m, 0, NULL, &rank, out), NDX_OK, "rank 0, shape NULL");
  cr_assert_eq(rank, 0);
  /* a reshape with no view still has a shape */
  m = reshape_move(1, (int64_t[]){6});
  cr_assert_eq(ndx_move_shape(&m, 2, s23, &rank, out), NDX_OK);
  cr_assert(rank == 1 && out[0] == 6);
}

static void expect_move_shape_fails(ndx_status want, const ndx_move *m, int rank,
                                    const int64_t *shape, const char *what) {
  int out_rank = 77;
  int64_t out[NDX_MAX_RANK], before[NDX_MAX_RANK];
  memset(out, 0x6B, sizeof out);
  memcpy(before, out, sizeof out);
  ndx_status s = ndx_move_shape(m, rank, shape, &out_rank, out);
  cr_assert_eq(s, want, "%s: want %s, got %s", what, ndx_status_name(want), ndx_status_name(s));
  cr_assert_eq(out_rank, 77, "%s: out_rank written", what);
  cr_assert_eq(memcmp(out, before, sizeof out), 0, "%s: out_shape written", what);
}

Test(move_shape, failures_leave_outputs_untouched) {
  int64_t s23[] = {2, 3}, ones[NDX_MAX_RANK + 1];
  for (int a = 0; a <= NDX_MAX_RANK; a++) ones[a] = 1;
  ndx_move m = reshape_move(1, (int64_t[]){7});
  expect_move_shape_fails(NDX_EINVAL, &m, 2, s23, "reshape count");
  m = broadcast_move(NDX_MAX_RANK + 1, ones);
  expect_move_shape_fails(NDX_ERANGE, &m, 1, ones, "broadcast to 33 axes");
  m = broadcast_move(2, (int64_t[]){2, 4});
  expect_move_shape_fails(NDX_EINVAL, &m, 2, s23, "broadcast 3 to 4");
  m = permute_move(2, (int32_t[]){1, 1});
  expect_move_shape_fails(NDX_EINVAL, &m, 2, s23, "permute duplicate");
  m = slice_move(2, (ndx_range[]){{0, 2, 1}, {0, 4, 1}});
  expect_move_shape_fails(NDX_EINVAL, &m, 2, s23, "slice past the end");
  m = window_move(1, (ndx_window[]){{0, 1, 1, 1}});
  expect_move_shape_fails(NDX_ERANGE, &m, NDX_MAX_RANK, ones, "window to 33 axes");
  m = window_move(1, (ndx_window[]){{0, 3, 1, 1}});
  expect_move_shape_fails(NDX_EINVAL, &m, 2, s23, "window too big");
  m = permute_move(2, (int32_t[]){1, 0});
  expect_move_shape_fails(NDX_EINVAL, NULL, 2, s23, "NULL move");
  expect_move_shape_fails(NDX_EINVAL, &m, 2, NULL, "NULL shape");
  expect_move_shape_fails(NDX_EINVAL, &m, -1, s23, "rank -1");
  expect_move_shape_fails(NDX_EINVAL, &m, 2, (int64_t[]){2, -3}, "negative extent");
  int64_t out[NDX_MAX_RANK];
  int r;
  cr_assert_eq(ndx_move_shape(&m, 2, s23, NULL, out), NDX_EINVAL);
  cr_assert_eq(ndx_move_shape(&m, 2, s23, &r, NULL), NDX_EINVAL);
}

/* ---- messages ------------------------------------------------------------------- */

Test(error, broadcast_message_names_call_axis_and_values) {
  ndx_layout l = contiguous(2, (int64_t[]){3, 4}), out;
  cr_assert_eq(ndx_broadcast(&out, &l, 2, (int64_t[]){3, 5}), NDX_EINVAL);
  const char *msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_broadcast"), "names the call: %s", msg);
  cr_assert(strstr(msg, "axis 1"), "names the axis: %s", msg);
  cr_assert(strstr(msg, "4"), "names the old extent: %s", msg);
  cr_assert(strstr(msg, "5"), "names the target extent: %s", msg);
  ndx_move m = broadcast_move(2, (int64_t[]){3, 5});
  cr_assert_eq(ndx_apply(&out, &m, &l), NDX_EINVAL);
  msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_apply") && strstr(msg, "axis 1"), "via ndx_apply: %s", msg);
}

Test(error, wrapper_messages_name_the_wrapper_axis_and_values) {
  ndx_layout l = contiguous(2, (int64_t[]){2, 3}), out;
  cr_assert_eq(ndx_squeeze(&out, &l, 1), NDX_EINVAL);
  const char *msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_squeeze") && strstr(msg, "axis 1") && strstr(msg, "3"), "%s", msg);
  cr_assert_eq(ndx_narrow(&out, &l, 1, 2, 5), NDX_EINVAL);
  msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_narrow") && strstr(msg, "axis 1") && strstr(msg, "5"), "%s", msg);
  cr_assert_eq(ndx_reshape(&out, &l, 1, (int64_t[]){7}), NDX_EINVAL);
  msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_reshape") && strstr(msg, "7"), "%s", msg);
  cr_assert_eq(ndx_slice(&out, &l, (ndx_range[]){{0, 2, 1}, {1, 2, 0}}), NDX_EINVAL);
  msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_slice") && strstr(msg, "axis 1"), "%s", msg);
  cr_assert_eq(ndx_unfold(&out, &l, 1, (ndx_window[]){{1, 4, 1, 1}}), NDX_EINVAL);
  msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_unfold") && strstr(msg, "axis 1") && strstr(msg, "4"), "%s", msg);
  cr_assert_eq(ndx_permute(&out, &l, (int32_t[]){0, 0}), NDX_EINVAL);
  msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_permute"), "%s", msg);
  cr_assert_eq(ndx_flip(&out, &l, 4), NDX_EINVAL);
  msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_flip") && strstr(msg, "4"), "%s", msg);
  ndx_layout t = make(2, (int64_t[]){3, 2}, (int64_t[]){1, 3}, 0);
  cr_assert_eq(ndx_reshape(&out, &t, 1, (int64_t[]){6}), NDX_ENOVIEW);
  msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_reshape"), "%s", msg);
}

Test(error, message_unchanged_after_a_successful_move) {
  ndx_layout l = contiguous(2, (int64_t[]){2, 3}), out;
  cr_assert_eq(ndx_squeeze(&out, &l, 0), NDX_EINVAL);
  char before[4096];
  snprintf(before, sizeof before, "%s", ndx_last_error());
  cr_assert_eq(ndx_transpose(&out, &l, 0, 1), NDX_OK);
  cr_assert_eq(ndx_reshape(&out, &l, 1, (int64_t[]){6}), NDX_OK);
  ndx_move m = window_move(1, (ndx_window[]){{1, 2, 1, 1}});
  cr_assert_eq(ndx_apply(&out, &m, &l), NDX_OK);
  int r;
  int64_t s[NDX_MAX_RANK];
  cr_assert_eq(ndx_move_shape(&m, 2, l.shape, &r, s), NDX_OK);
  cr_assert_str_eq(ndx_last_error(), before);
}

/* ---- properties: each move equals its index map ------------------------------------ */

/* A call under test: writes the result of a move of `l` into `out`. */
typedef ndx_status (*call_fn)(ndx_layout *out, const ndx_layout *l, const void *args);
/* The move's map: the input index `i` that result index `j` reads. */
typedef void (*map_fn)(const void *args, const ndx_layout *in, int out_rank, const int64_t *j,
                       int64_t *i);

typedef struct expectation {
  ndx_status status;
  int rank;
  int64_t shape[NDX_MAX_RANK];
} expectation;

/* Calls `call` on `in` (into a fresh `out` and in place) and checks: the
 * status; on failure, untouched outputs; on success, the shape, the canonical
 * form, entries past rank zero, the same result in place, and that every
 * result index j reaches the position `in` reaches at map(j). */
static void check_call(call_fn call, map_fn map, const void *args, const ndx_layout *in,
                       const expectation *want, const char *what, int trial) {
  char din[512], dout[512];
  oracle_describe(din, sizeof din, in);
  ndx_layout out, before;
  memset(&out, 0xC3, sizeof out);
  before = out;
  ndx_status s = call(&out, in, args);
  cr_assert_eq(s, want->status, "%s, trial %d, on %s: want %s, got %s (%s)", what, trial, din,
               ndx_status_name(want->status), ndx_status_name(s), ndx_last_error());
  ndx_layout alias = *in;
  ndx_status s2 = call(&alias, &alias, args);
  cr_assert_eq(s2, s, "%s, trial %d, on %s: in place gives %s", what, trial, din,
               ndx_status_name(s2));
  if (s != NDX_OK) {
    cr_assert_eq(memcmp(&out, &before, sizeof out), 0, "%s, trial %d: out written", what, trial);
    cr_assert_eq(memcmp(&alias, in, sizeof alias), 0, "%s, trial %d: in place written", what,
                 trial);
    return;
  }
  oracle_describe(dout, sizeof dout, &out);
  cr_assert_eq(out.rank, want->rank, "%s, trial %d, on %s: got %s", what, trial, din, dout);
  for (int a = 0; a < want->rank; a++)
    cr_assert_eq(out.shape[a], want->shape[a], "%s, trial %d, on %s: got %s", what, trial, din,
                 dout);
  const char *why = oracle_not_canonical(&out);
  cr_assert_null(why, "%s, trial %d, on %s: got %s: %s", what, trial, din, dout, why);
  for (int a = out.rank; a < NDX_MAX_RANK; a++)
    cr_assert(out.shape[a] == 0 && out.strides[a] == 0, "%s, trial %d: entry %d past rank", what,
              trial, a);
  cr_assert(ndx_equal(&alias, &out), "%s, trial %d, on %s: in place differs", what, trial, din);
  int64_t n = oracle_numel(&out), j[NDX_MAX_RANK], i[NDX_MAX_RANK];
  for (int64_t k = 0; k < n; k++) {
    oracle_unravel(out.rank, out.shape, k, j);
    map(args, in, out.rank, j, i);
    int64_t got = oracle_position(&out, j), exp = oracle_position(in, i);
    cr_assert_eq(got, exp, "%s, trial %d, on %s: got %s: element %lld at %lld, not %lld", what,
                 trial, din, dout, (long long)k, (long long)got, (long long)exp);
  }
}

/* Checks ndx_move_shape against the expectation (untouched on failure). */
static void check_move_shape(const ndx_move *m, const ndx_layout *in, const expectation *want,
                             const char *what, int trial) {
  int rank = -9;
  int64_t shape[NDX_MAX_RANK], before[NDX_MAX_RANK];
  memset(shape, 0x4D, sizeof shape);
  memcpy(before, shape, sizeof shape);
  ndx_status want_s = want->status == NDX_ENOVIEW ? NDX_OK : want->status;
  ndx_status s = ndx_move_shape(m, in->rank, in->shape, &rank, shape);
  cr_assert_eq(s, want_s, "%s, trial %d: ndx_move_shape: want %s, got %s", what, trial,
               ndx_status_name(want_s), ndx_status_name(s));
  if (s != NDX_OK) {
    cr_assert_eq(rank, -9, "%s, trial %d: out_rank written", what, trial);
    cr_assert_eq(memcmp(shape, before, sizeof shape), 0, "%s, trial %d: out_shape", what, trial);
    return;
  }
  cr_assert_eq(rank, want->rank, "%s, trial %d: ndx_move_shape rank", what, trial);
  for (int a = 0; a < rank; a++)
    cr_assert_eq(shape[a], want->shape[a], "%s, trial %d: ndx_move_shape axis %d", what, trial, a);
}

static ndx_status call_apply(ndx_layout *out, const ndx_layout *l, const void *args) {
  return ndx_apply(out, (const ndx_move *)args, l);
}

/* A random input: a random small layout, or one shaped like a real view. */
static ndx_layout random_input(oracle_rng *rng, int t) {
  if (t % 2) return oracle_random_layout(rng, 6, 4, 4, 3);
  int64_t shape[NDX_MAX_RANK];
  int rank = oracle_random_shape(rng, 6, 4, 10, shape);
  return oracle_view_layout_of_shape(rng, rank, shape);
}

#define TRIALS 3000

/* Reshape: result index j is C-order element k of the result, which reads
 * C-order element k of the input. */
static void reshape_map(const void *args, const ndx_layout *in, int out_rank, const int64_t *j,
                        int64_t *i) {
  const ndx_move *m = args;
  int64_t k = 0;
  for (int a = 0; a < out_rank; a++) k = k * m->shape[a] + j[a];
  oracle_unravel(in->rank, in->shape, k, i);
}

/* The oracle for reshape: the candidate stride of each new axis is the
 * position difference of its unit index; a view iff these strides reproduce
 * every position. Fills `view` with the layout the reshape must give. */
static bool oracle_reshape(const ndx_layout *in, int rank, const int64_t *shape, ndx_layout *view) {
  static int64_t pos[4096];
  int64_t n = oracle_positions(in, pos);
  memset(view, 0, sizeof *view);
  view->rank = rank;
  for (int a = 0; a < rank; a++) view->shape[a] = shape[a];
  if (n == 0) return true; /* offset 0, strides 0 */
  view->offset = pos[0];
  int64_t unit = 1;
  for (int a = rank - 1; a >= 0; a--) {
    view->strides[a] = shape[a] > 1 ? pos[unit] - pos[0] : 0;
    unit *= shape[a];
  }
  int64_t j[NDX_MAX_RANK];
  for (int64_t k = 0; k < n; k++) {
    oracle_unravel(rank, shape, k, j);
    if (oracle_position(view, j) != pos[k]) return false;
  }
  return true;
}

/* A random target shape for `numel` elements (or, one time in ten, another
 * count). Returns its rank. */
static int random_reshape_target(oracle_rng *rng, int64_t numel, int64_t *shape, bool *same) {
  int rank = (int)oracle_between(rng, 0, 6);
  for (int a = 0; a < rank; a++) shape[a] = 1;
  if (numel == 0) {
    if (rank == 0) rank = 1;
    for (int a = 0; a < rank; a++) shape[a] = oracle_between(rng, 1, 4);
    shape[oracle_between(rng, 0, rank - 1)] = 0;
  } else {
    if (rank == 0 && numel > 1) rank = 1, shape[0] = 1;
    int64_t left = numel;
    for (int64_t p = 2; left > 1; p++)
      while (left % p == 0) {
        shape[oracle_between(rng, 0, rank - 1)] *= p;
        left /= p;
      }
  }
  *same = oracle_between(rng, 0, 9) != 0;
  if (!*same) {
    if (rank == 0) rank = 1, shape[0] = 1;
    int a = (int)oracle_between(rng, 0, rank - 1);
    if (numel == 0)
      for (int b = 0; b < rank; b++) shape[b] = shape[b] ? shape[b] : 1;
    else
      shape[a] += 1;
  }
  return rank;
}

static ndx_status call_reshape_wrapper(ndx_layout *out, const ndx_layout *l, const void *args) {
  const ndx_move *m = args;
  return ndx_reshape(out, l, m->n, m->shape);
}

Test(property, reshape_succeeds_iff_the_oracle_finds_a_view) {
  int ok = 0, noview = 0;
  for (int t = 0; t < TRIALS; t++) {
    oracle_rng rng = {0x7E5A0000u + (uint64_t)t};
    ndx_layout in = random_input(&rng, t);
    int64_t shape[NDX_MAX_RANK];
    bool same;
    int rank = random_reshape_target(&rng, oracle_numel(&in), shape, &same);
    ndx_move m = reshape_move(rank, shape);
    ndx_layout view;
    expectation want = {.rank = rank};
    memcpy(want.shape, shape, sizeof shape);
    want.status = !same                                     ? NDX_EINVAL
                  : oracle_reshape(&in, rank, shape, &view) ? NDX_OK
                                                            : NDX_ENOVIEW;
    ok += want.status == NDX_OK;
    noview += want.status == NDX_ENOVIEW;
    check_call(call_apply, reshape_map, &m, &in, &want, "reshape", t);
    check_call(call_reshape_wrapper, reshape_map, &m, &in, &want, "ndx_reshape", t);
    check_move_shape(&m, &in, &want, "reshape", t);
    if (want.status == NDX_OK) {
      ndx_layout out;
      cr_assert_eq(ndx_apply(&out, &m, &in), NDX_OK);
      char d1[512], d2[512];
      cr_assert(ndx_equal(&out, &view), "reshape, trial %d: got %s, the oracle's view %s", t,
                oracle_describe(d1, sizeof d1, &out), oracle_describe(d2, sizeof d2, &view));
    }
  }
  cr_assert_gt(ok, TRIALS / 4, "enough reshapes succeed (%d)", ok);
  cr_assert_gt(noview, TRIALS / 20, "enough reshapes have no view (%d)", noview);
}

/* A layout written by hand whose axes of extent > 1 form one run of `step`
 * (each stride `step` times the extents inside it), its extent-1 axes of any
 * stride: the layouts reshape takes in one pass before the group walk. With
 * `broken`, one stride of an axis of extent > 1 is off by one, so that the
 * walk decides. The offset keeps every position non-negative. */
static ndx_layout one_run_layout(oracle_rng *rng, int64_t step, bool broken) {
  int64_t shape[NDX_MAX_RANK];
  ndx_layout l;
  memset(&l, 0, sizeof l);
  l.rank = oracle_random_shape(rng, 6, 4, 12, shape);
  int64_t inside = step;
  for (int a = l.rank - 1; a >= 0; a--) {
    if (oracle_between(rng, 0, 3) == 0) shape[a] = 1;
    l.shape[a] = shape[a];
    l.strides[a] = shape[a] == 1 ? oracle_between(rng, -50, 50) : inside;
    inside *= shape[a];
  }
  if (broken && l.rank > 0) {
    int a = (int)oracle_between(rng, 0, l.rank - 1);
    if (l.shape[a] > 1) l.strides[a] += 1;
  }
  for (int a = 0; a < l.rank; a++)
    if (l.shape[a] > 1 && l.strides[a] < 0) l.offset += (l.shape[a] - 1) * -l.strides[a];
  if (oracle_numel(&l) == 0) l.offset = 0;
  l.offset += oracle_numel(&l) ? oracle_between(rng, 0, 3) : 0;
  return l;
}

Test(property, reshape_of_one_run_layouts_matches_the_oracle) {
  static const int64_t steps[] = {1, 2, -1, -3, 5};
  int fast = 0, walked_ok = 0, noview = 0;
  for (int t = 0; t < TRIALS; t++) {
    oracle_rng rng = {0x0E2B0000u + (uint64_t)t};
    bool broken = t % 3 == 2;
    ndx_layout in = one_run_layout(&rng, steps[t % 5], broken);
    int64_t shape[NDX_MAX_RANK];
    bool same;
    int rank = random_reshape_target(&rng, oracle_numel(&in), shape, &same);
    if (!same) continue;
    ndx_layout view, out;
    bool ok = oracle_reshape(&in, rank, shape, &view);
    ndx_status s = ndx_reshape(&out, &in, rank, shape);
    char d1[512], d2[512];
    cr_assert_eq(s, ok ? NDX_OK : NDX_ENOVIEW, "trial %d: %s to rank %d: got %s (%s)", t,
                 oracle_describe(d1, sizeof d1, &in), rank, ndx_status_name(s), ndx_last_error());
    if (!ok) {
      noview++;
      continue;
    }
    cr_assert(ndx_equal(&out, &view), "trial %d: %s: got %s, the oracle's view %s", t,
              oracle_describe(d1, sizeof d1, &in), oracle_describe(d2, sizeof d2, &out),
              oracle_describe(d1, sizeof d1, &view));
    fast += !broken && oracle_numel(&in) > 1;
    walked_ok += broken;
  }
  cr_assert_gt(fast, TRIALS / 3, "enough one-run layouts (%d)", fast);
  cr_assert_gt(walked_ok, TRIALS / 50, "enough broken runs that still reshape (%d)", walked_ok);
  cr_assert_gt(noview, TRIALS / 20, "enough broken runs with no view (%d)", noview);
}

/* A run test whose product passes int64 on the way out: axis 1's stride 2^52
 * times the extents does not fit, and must read as no run, not wrap. */
Test(reshape, a_run_test_past_int64_is_no_run) {
  const int64_t p52 = INT64_C(1) << 52;
  ndx_layout l, out;
  cr_assert_eq(ndx_make(&l, 2, (int64_t[]){INT64_C(1) << 20, 2}, (int64_t[]){0, p52}, 0), NDX_OK);
  cr_assert_eq(ndx_reshape(&out, &l, 1, (int64_t[]){INT64_C(1) << 21}), NDX_ENOVIEW);
  cr_assert_eq(ndx_reshape(&out, &l, 3, (int64_t[]){INT64_C(1) << 19, 2, 2}), NDX_OK);
  cr_assert(out.strides[0] == 0 && out.strides[1] == 0 && out.strides[2] == p52);
}

/* Broadcast: old axis a reads target axis a + n - rank, or 0 where it had
 * extent 1. */
static void broadcast_map(const void *args, const ndx_layout *in, int out_rank, const int64_t *j,
                          int64_t *i) {
  (void)args;
  for (int a = 0; a < in->rank; a++) i[a] = in->shape[a] == 1 ? 0 : j[a + out_rank - in->rank];
}

static ndx_status call_broadcast_wrapper(ndx_layout *out, const ndx_layout *l, const void *args) {
  const ndx_move *m = args;
  return ndx_broadcast(out, l, m->n, m->shape);
}

Test(property, broadcast_equals_its_index_map) {
  int ok = 0;
  for (int t = 0; t < TRIALS; t++) {
    oracle_rng rng = {0xB40A0000u + (uint64_t)t};
    ndx_layout in = random_input(&rng, t);
    int n = in.rank + (int)oracle_between(&rng, 0, 2);
    if (in.rank > 0 && oracle_between(&rng, 0, 19) == 0) n = in.rank - 1;
    int64_t shape[NDX_MAX_RANK];
    for (int a = 0; a < n; a++) shape[a] = oracle_between(&rng, 0, 4);
    bool valid = n >= in.rank;
    for (int a = 0; valid && a < in.rank; a++) {
      int64_t d = in.shape[a], *tgt = &shape[a + n - in.rank];
      if (d != 1 && oracle_between(&rng, 0, 9)) *tgt = d;
      valid = d == 1 || d == *tgt;
    }
    ndx_move m = broadcast_move(n, shape);
    expectation want = {.status = valid ? NDX_OK : NDX_EINVAL, .rank = n};
    memcpy(want.shape, shape, sizeof shape);
    ok += valid;
    check_call(call_apply, broadcast_map, &m, &in, &want, "broadcast", t);
    check_call(call_broadcast_wrapper, broadcast_map, &m, &in, &want, "ndx_broadcast", t);
    check_move_shape(&m, &in, &want, "broadcast", t);
  }
  cr_assert_gt(ok, TRIALS / 2);
}

/* Permute: result axis k is old axis perm[k]. */
static void permute_map(const void *args, const ndx_layout *in, int out_rank, const int64_t *j,
                        int64_t *i) {
  const ndx_move *m = args;
  (void)in;
  for (int k = 0; k < out_rank; k++) i[m->perm[k]] = j[k];
}

static ndx_status call_permute_wrapper(ndx_layout *out, const ndx_layout *l, const void *args) {
  return ndx_permute(out, l, ((const ndx_move *)args)->perm);
}

Test(property, permute_equals_its_index_map) {
  for (int t = 0; t < TRIALS; t++) {
    oracle_rng rng = {0x9E870000u + (uint64_t)t};
    ndx_layout in = random_input(&rng, t);
    int32_t perm[NDX_MAX_RANK];
    int r = in.rank;
    for (int a = 0; a < r; a++) perm[a] = a;
    for (int a = r - 1; a > 0; a--) {
      int b = (int)oracle_between(&rng, 0, a);
      int32_t x = perm[a];
      perm[a] = perm[b];
      perm[b] = x;
    }
    bool valid = true;
    if (r > 0 && oracle_between(&rng, 0, 9) == 0) {
      int a = (int)oracle_between(&rng, 0, r - 1);
      perm[a] = (int32_t)oracle_between(&rng, -1, r); /* maybe a duplicate or out of range */
      bool seen[NDX_MAX_RANK + 2] = {false};
      for (int b = 0; b < r; b++) {
        if (perm[b] < 0 || perm[b] >= r || seen[perm[b]]) valid = false;
        if (perm[b] >= 0 && perm[b] <= r) seen[perm[b]] = true;
      }
    }
    ndx_move m = permute_move(r, perm);
    expectation want = {.status = valid ? NDX_OK : NDX_EINVAL, .rank = r};
    for (int a = 0; valid && a < r; a++) want.shape[a] = in.shape[perm[a]];
    check_call(call_apply, permute_map, &m, &in, &want, "permute", t);
    check_call(call_permute_wrapper, permute_map, &m, &in, &want, "ndx_permute", t);
    check_move_shape(&m, &in, &want, "permute", t);
  }
}

/* Slice: old index start + j*step on every axis. */
static void slice_map(const void *args, const ndx_layout *in, int out_rank, const int64_t *j,
                      int64_t *i) {
  const ndx_move *m = args;
  (void)in;
  for (int a = 0; a < out_rank; a++) i[a] = m->ranges[a].start + j[a] * m->ranges[a].step;
}

static ndx_status call_slice_wrapper(ndx_layout *out, const ndx_layout *l, const void *args) {
  return ndx_slice(out, l, ((const ndx_move *)args)->ranges);
}

Test(property, slice_equals_its_index_map_and_rules) {
  int ok = 0;
  for (int t = 0; t < TRIALS; t++) {
    oracle_rng rng = {0x51C30000u + (uint64_t)t};
    ndx_layout in = random_input(&rng, t);
    ndx_range r[NDX_MAX_RANK];
    bool valid = true;
    bool wild = oracle_between(&rng, 0, 3) == 0; /* one range in four may break a rule */
    for (int a = 0; a < in.rank; a++) {
      int64_t d = in.shape[a];
      if (wild) {
        r[a] = (ndx_range){oracle_between(&rng, -1, d), oracle_between(&rng, -1, d + 1),
                           oracle_between(&rng, -3, 3)};
      } else if (d == 0) {
        r[a] = (ndx_range){oracle_between(&rng, -2, 2), 0, oracle_between(&rng, 1, 2)};
      } else { /* a valid range: pick a start, a step and a count that fit */
        int64_t start = oracle_between(&rng, 0, d - 1), step = oracle_between(&rng, 1, 3);
        if (oracle_between(&rng, 0, 1)) step = -step;
        int64_t room = step > 0 ? (d - 1 - start) / step : start / -step;
        r[a] = (ndx_range){start, oracle_between(&rng, 0, room + 1), step};
      }
      ndx_range x = r[a];
      int64_t last = x.start + (x.count - 1) * x.step;
      bool ok_a = x.step != 0 && x.count >= 0 &&
                  (x.count == 0 || (x.start >= 0 && x.start < d && last >= 0 && last < d));
      valid = valid && ok_a;
    }
    ndx_move m = slice_move(in.rank, r);
    expectation want = {.status = valid ? NDX_OK : NDX_EINVAL, .rank = in.rank};
    for (int a = 0; a < in.rank; a++) want.shape[a] = r[a].count;
    ok += valid;
    check_call(call_apply, slice_map, &m, &in, &want, "slice", t);
    check_call(call_slice_wrapper, slice_map, &m, &in, &want, "ndx_slice", t);
    check_move_shape(&m, &in, &want, "slice", t);
  }
  cr_assert_gt(ok, TRIALS / 2);
}

/* Window: a windowed axis reads j*step + (its appended index)*dilation. */
static void window_map(const void *args, const ndx_layout *in, int out_rank, const int64_t *j,
                       int64_t *i) {
  const ndx_move *m = args;
  (void)out_rank;
  for (int a = 0; a < in->rank; a++) i[a] = j[a];
  for (int k = 0; k < m->n; k++) {
    const ndx_window *w = &m->windows[k];
    i[w->axis] = j[w->axis] * w->step + j[in->rank + k] * w->dilation;
  }
}

static ndx_status call_unfold_wrapper(ndx_layout *out, const ndx_layout *l, const void *args) {
  const ndx_move *m = args;
  return ndx_unfold(out, l, m->n, m->windows);
}

Test(property, window_equals_its_index_map_and_rules) {
  int ok = 0, many = 0;
  for (int t = 0; t < TRIALS; t++) {
    oracle_rng rng = {0x3F1D0000u + (uint64_t)t};
    ndx_layout in = random_input(&rng, t);
    ndx_window w[4];
    int n = (int)oracle_between(&rng, 0, in.rank < 3 ? in.rank : 3);
    bool wild = oracle_between(&rng, 0, 4) == 0;
    int axis = -1;
    for (int k = 0; k < n; k++) {
      axis = wild ? (int)oracle_between(&rng, -1, in.rank)
                  : (int)oracle_between(&rng, axis + 1, in.rank - (n - k));
      int64_t d = axis >= 0 && axis < in.rank ? in.shape[axis] : 3;
      if (wild) {
        w[k] = (ndx_window){axis, oracle_between(&rng, 0, d + 1), oracle_between(&rng, 0, 3),
                            oracle_between(&rng, 0, 3)};
      } else { /* most of these fit: dilation*(size-1)+1 <= d unless d is 0 */
        int64_t size = oracle_between(&rng, 1, d > 1 ? d : 1);
        int64_t most = size > 1 ? (d - 1) / (size - 1) : 3;
        w[k] = (ndx_window){axis, size, oracle_between(&rng, 1, 3),
                            oracle_between(&rng, 1, most > 1 ? most : 1)};
      }
    }
    bool valid = true;
    for (int k = 0; k < n; k++) {
      const ndx_window *x = &w[k];
      bool in_range = x->axis >= 0 && x->axis < in.rank;
      valid = valid && in_range && (k == 0 || x->axis > w[k - 1].axis) && x->size >= 1 &&
              x->step >= 1 && x->dilation >= 1 &&
              x->dilation * (x->size - 1) + 1 <= in.shape[x->axis];
    }
    ndx_move m = window_move(n, w);
    expectation want = {.status = valid ? NDX_OK : NDX_EINVAL, .rank = in.rank + n};
    if (valid) {
      for (int a = 0; a < in.rank; a++) want.shape[a] = in.shape[a];
      for (int k = 0; k < n; k++) {
        int64_t d = in.shape[w[k].axis];
        want.shape[w[k].axis] = (d - 1 - w[k].dilation * (w[k].size - 1)) / w[k].step + 1;
        want.shape[in.rank + k] = w[k].size;
      }
    }
    ok += valid;
    many += valid && n > 1;
    check_call(call_apply, window_map, &m, &in, &want, "window", t);
    check_call(call_unfold_wrapper, window_map, &m, &in, &want, "ndx_unfold", t);
    check_move_shape(&m, &in, &want, "window", t);
  }
  cr_assert_gt(ok, TRIALS / 3);
  cr_assert_gt(many, TRIALS / 20);
}

/* The wrappers that are not a whole move of their own. */
typedef struct wrapper_args {
  int axis, axis2;
  int64_t start, len;
} wrapper_args;

static ndx_status call_narrow(ndx_layout *out, const ndx_layout *l, const void *args) {
  const wrapper_args *w = args;
  return ndx_narrow(out, l, w->axis, w->start, w->len);
}
static void narrow_map(const void *args, const ndx_layout *in, int out_rank, const int64_t *j,
                       int64_t *i) {
  const wrapper_args *w = args;
  (void)in;
  for (int a = 0; a < out_rank; a++) i[a] = j[a];
  i[w->axis] += w->start;
}

static ndx_status call_flip(ndx_layout *out, const ndx_layout *l, const void *args) {
  return ndx_flip(out, l, ((const wrapper_args *)args)->axis);
}
static void flip_map(const void *args, const ndx_layout *in, int out_rank, const int64_t *j,
                     int64_t *i) {
  const wrapper_args *w = args;
  for (int a = 0; a < out_rank; a++) i[a] = j[a];
  i[w->axis] = in->shape[w->axis] - 1 - j[w->axis];
}

static ndx_status call_transpose(ndx_layout *out, const ndx_layout *l, const void *args) {
  const wrapper_args *w = args;
  return ndx_transpose(out, l, w->axis, w->axis2);
}
static void transpose_map(const void *args, const ndx_layout *in, int out_rank, const int64_t *j,
                          int64_t *i) {
  const wrapper_args *w = args;
  (void)in;
  for (int a = 0; a < out_rank; a++) i[a] = j[a];
  i[w->axis] = j[w->axis2];
  i[w->axis2] = j[w->axis];
}

static ndx_status call_squeeze(ndx_layout *out, const ndx_layout *l, const void *args) {
  return ndx_squeeze(out, l, ((const wrapper_args *)args)->axis);
}
static void squeeze_map(const void *args, const ndx_layout *in, int out_rank, const int64_t *j,
                        int64_t *i) {
  const wrapper_args *w = args;
  (void)in;
  for (int a = 0, b = 0; a <= out_rank; a++) i[a] = a == w->axis ? 0 : j[b++];
}

static ndx_status call_unsqueeze(ndx_layout *out, const ndx_layout *l, const void *args) {
  return ndx_unsqueeze(out, l, ((const wrapper_args *)args)->axis);
}
static void unsqueeze_map(const void *args, const ndx_layout *in, int out_rank, const int64_t *j,
                          int64_t *i) {
  const wrapper_args *w = args;
  (void)in;
  for (int a = 0, b = 0; a < out_rank; a++)
    if (a != w->axis) i[b++] = j[a];
}

Test(property, narrow_flip_transpose_squeeze_unsqueeze_equal_their_index_maps) {
  int ok = 0;
  for (int t = 0; t < TRIALS; t++) {
    oracle_rng rng = {0x0A770000u + (uint64_t)t};
    ndx_layout in = random_input(&rng, t);
    int r = in.rank;
    bool wild = r == 0 || oracle_between(&rng, 0, 3) == 0; /* else valid arguments */
    wrapper_args w = {(int)oracle_between(&rng, wild ? -1 : 0, wild ? r : r - 1),
                      (int)oracle_between(&rng, wild ? -1 : 0, wild ? r : r - 1), 0, 0};
    bool axis_ok = w.axis >= 0 && w.axis < r, axis2_ok = w.axis2 >= 0 && w.axis2 < r;
    int64_t d = axis_ok ? in.shape[w.axis] : 2;
    w.start = oracle_between(&rng, wild ? -1 : 0, wild ? d + 1 : d);
    w.len = wild ? oracle_between(&rng, -1, d + 1) : oracle_between(&rng, 0, d - w.start);
    expectation want = {.rank = r};
    memcpy(want.shape, in.shape, sizeof want.shape);

    /* narrow */
    bool valid = axis_ok && w.start >= 0 && w.len >= 0 && w.start + w.len <= d;
    want.status = valid ? NDX_OK : NDX_EINVAL;
    if (valid) want.shape[w.axis] = w.len;
    ok += valid;
    check_call(call_narrow, narrow_map, &w, &in, &want, "ndx_narrow", t);
    memcpy(want.shape, in.shape, sizeof want.shape);

    /* flip, and flipping twice */
    want.status = axis_ok ? NDX_OK : NDX_EINVAL;
    check_call(call_flip, flip_map, &w, &in, &want, "ndx_flip", t);
    if (axis_ok) {
      ndx_layout once, twice;
      cr_assert_eq(ndx_flip(&once, &in, w.axis), NDX_OK);
      cr_assert_eq(ndx_flip(&twice, &once, w.axis), NDX_OK);
      cr_assert(ndx_equal(&twice, &in), "flip twice, trial %d", t);
    }

    /* transpose */
    want.status = axis_ok && axis2_ok ? NDX_OK : NDX_EINVAL;
    if (want.status == NDX_OK) {
      want.shape[w.axis] = in.shape[w.axis2];
      want.shape[w.axis2] = in.shape[w.axis];
    }
    check_call(call_transpose, transpose_map, &w, &in, &want, "ndx_transpose", t);
    memcpy(want.shape, in.shape, sizeof want.shape);

    /* squeeze: pick an extent-1 axis most of the time */
    wrapper_args sq = w;
    for (int a = 0; a < r; a++)
      if (in.shape[a] == 1 && oracle_between(&rng, 0, 3)) sq.axis = a;
    bool sq_ok = sq.axis >= 0 && sq.axis < r && in.shape[sq.axis] == 1;
    want.status = sq_ok ? NDX_OK : NDX_EINVAL;
    want.rank = sq_ok ? r - 1 : r;
    for (int a = 0, b = 0; sq_ok && a < r; a++)
      if (a != sq.axis) want.shape[b++] = in.shape[a];
    check_call(call_squeeze, squeeze_map, &sq, &in, &want, "ndx_squeeze", t);

    /* unsqueeze: 0 <= axis <= rank */
    wrapper_args un = {(int)oracle_between(&rng, -1, r + 1), 0, 0, 0};
    bool un_ok = un.axis >= 0 && un.axis <= r;
    want.status = un_ok ? NDX_OK : NDX_EINVAL;
    want.rank = un_ok ? r + 1 : r;
    for (int a = 0, b = 0; un_ok && a <= r; a++) want.shape[a] = a == un.axis ? 1 : in.shape[b++];
    check_call(call_unsqueeze, unsqueeze_map, &un, &in, &want, "ndx_unsqueeze", t);
  }
  cr_assert_gt(ok, TRIALS / 4);
}

/* Moves that undo each other, or keep every axis whole, give the layout back
 * exactly (a Fortran-order or broadcast layout reshaped to its own shape too). */
Test(property, identity_moves_give_the_layout_back) {
  for (int t = 0; t < TRIALS / 3; t++) {
    oracle_rng rng = {0xC4A10000u + (uint64_t)t};
    ndx_layout a = random_input(&rng, t);
    if (a.rank < 2) continue;
    /* transpose then transpose back, flip then narrow all: the same layout */
    ndx_layout b, c;
    int x = (int)oracle_between(&rng, 0, a.rank - 1), y = (int)oracle_between(&rng, 0, a.rank - 1);
    cr_assert_eq(ndx_transpose(&b, &a, x, y), NDX_OK);
    cr_assert_eq(ndx_transpose(&c, &b, x, y), NDX_OK);
    cr_assert(ndx_equal(&c, &a), "transpose twice, trial %d", t);
    cr_assert_eq(ndx_unsqueeze(&b, &a, x), NDX_OK);
    cr_assert_eq(ndx_squeeze(&c, &b, x), NDX_OK);
    cr_assert(ndx_equal(&c, &a), "unsqueeze then squeeze, trial %d", t);
    cr_assert_eq(ndx_narrow(&b, &a, x, 0, a.shape[x]), NDX_OK);
    cr_assert(ndx_equal(&b, &a), "narrow of the whole axis, trial %d", t);
    cr_assert_eq(ndx_broadcast(&b, &a, a.rank, a.shape), NDX_OK);
    cr_assert(ndx_equal(&b, &a), "broadcast to its own shape, trial %d", t);
    cr_assert_eq(ndx_reshape(&b, &a, a.rank, a.shape), NDX_OK);
    cr_assert(ndx_equal(&b, &a), "reshape to its own shape, trial %d", t);
  }
}

/* The first seed: is_distinct is true of every layout `contiguous` reaches by
 * Permute, Slice and windows whose step is at least their extent
 * dilation*(size-1)+1, and false of every broadcast that repeats elements. */
Test(property, distinct_after_permute_slice_disjoint_windows_not_after_broadcast) {
  for (int t = 0; t < TRIALS; t++) {
    oracle_rng rng = {0xD15D0000u + (uint64_t)t};
    int64_t shape[NDX_MAX_RANK];
    int rank = oracle_random_shape(&rng, 5, 4, 20, shape);
    ndx_layout l = contiguous(rank, shape);
    char trail[512] = "";
    for (int step = (int)oracle_between(&rng, 1, 3); step > 0; step--) {
      int kind = (int)oracle_between(&rng, 0, 2);
      ndx_layout next;
      if (kind == 0) {
        int32_t perm[NDX_MAX_RANK];
        for (int a = 0; a < l.rank; a++) perm[a] = a;
        for (int a = l.rank - 1; a > 0; a--) {
          int b = (int)oracle_between(&rng, 0, a);
          int32_t x = perm[a];
          perm[a] = perm[b];
          perm[b] = x;
        }
        cr_assert_eq(ndx_permute(&next, &l, perm), NDX_OK, "trial %d", t);
      } else if (kind == 1) {
        ndx_range r[NDX_MAX_RANK];
        for (int a = 0; a < l.rank; a++) {
          int64_t d = l.shape[a];
          if (d == 0) {
            r[a] = (ndx_range){0, 0, 1};
            continue;
          }
          int64_t start = oracle_between(&rng, 0, d - 1), st = oracle_between(&rng, 1, 3);
          if (oracle_between(&rng, 0, 1)) st = -st;
          int64_t room = st > 0 ? (d - 1 - start) / st : start / -st;
          r[a] = (ndx_range){start, oracle_between(&rng, 1, room + 1), st};
        }
        cr_assert_eq(ndx_slice(&next, &l, r), NDX_OK, "trial %d", t);
      } else {
        if (l.rank == 0 || l.rank == NDX_MAX_RANK) continue;
        int a = (int)oracle_between(&rng, 0, l.rank - 1);
        int64_t d = l.shape[a];
        if (d == 0) continue;
        int64_t size = oracle_between(&rng, 1, d);
        int64_t most = size > 1 ? (d - 1) / (size - 1) : 3;
        int64_t dil = oracle_between(&rng, 1, most > 1 ? most : 1), reach = dil * (size - 1);
        ndx_window w = {a, size, oracle_between(&rng, reach + 1, reach + 3), dil};
        cr_assert_eq(ndx_unfold(&next, &l, 1, &w), NDX_OK, "trial %d", t);
      }
      size_t used = strlen(trail);
      snprintf(trail + used, sizeof trail - used, "%s ",
               kind == 0   ? "permute"
               : kind == 1 ? "slice"
                           : "window");
      l = next;
    }
    char d[512];
    oracle_describe(d, sizeof d, &l);
    cr_assert(ndx_is_distinct(&l), "trial %d: after %s: %s", t, trail, d);
    if (oracle_numel(&l) == 0) continue;
    int64_t target[NDX_MAX_RANK];
    if (l.rank == NDX_MAX_RANK) continue;
    target[0] = oracle_between(&rng, 2, 3);
    for (int a = 0; a < l.rank; a++) target[a + 1] = l.shape[a];
    ndx_layout b;
    cr_assert_eq(ndx_broadcast(&b, &l, l.rank + 1, target), NDX_OK, "trial %d", t);
    cr_assert_not(ndx_is_distinct(&b), "trial %d: a broadcast of %s", t, d);
  }
}

/* Review finding: the message did not say which shape had the bad extent. */
Test(error, a_bad_new_shape_is_named) {
  ndx_layout l = contiguous(2, (int64_t[]){2, 3}), out;
  cr_assert_eq(ndx_reshape(&out, &l, 2, (int64_t[]){-2, -3}), NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), "new shape: axis 0 has negative extent -2") != NULL, "%s",
            ndx_last_error());
  cr_assert_eq(ndx_permute(&out, &l, NULL), NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), "perm is NULL") != NULL, "%s", ndx_last_error());
}
