/* suite.h: what the Criterion suites share: building the layouts a test
 * starts from, failing the test (with ndx's reason) when ndx refuses one. */
#ifndef NDX_TEST_SUITE_H
#define NDX_TEST_SUITE_H

#include <criterion/criterion.h>

#include "ndx/ndx_layout.h"
#include "oracle.h"

static inline ndx_layout make(int rank, const int64_t *shape, const int64_t *strides,
                              int64_t offset) {
  ndx_layout l;
  ndx_status s = ndx_make(&l, rank, shape, strides, offset);
  cr_assert_eq(s, NDX_OK, "ndx_make refused a valid layout: %s (%s)", ndx_status_name(s),
               ndx_last_error());
  return l;
}

static inline ndx_layout contiguous(int rank, const int64_t *shape) {
  ndx_layout l;
  ndx_status s = ndx_contiguous(&l, rank, shape);
  cr_assert_eq(s, NDX_OK, "ndx_contiguous: %s (%s)", ndx_status_name(s), ndx_last_error());
  return l;
}

static const int64_t none[1] = {0}; /* a non-NULL array for rank 0 */

/* Asserts every field of `l`; `what` names the case in the failure message. */
static inline void expect_layout(const ndx_layout *l, int rank, const int64_t *shape,
                                 const int64_t *strides, int64_t offset, const char *what) {
  char got[512];
  oracle_describe(got, sizeof got, l);
  cr_assert_eq(l->rank, rank, "%s: rank, got %s", what, got);
  for (int a = 0; a < rank; a++) {
    cr_assert_eq(l->shape[a], shape[a], "%s: extent of axis %d, got %s", what, a, got);
    cr_assert_eq(l->strides[a], strides[a], "%s: stride of axis %d, got %s", what, a, got);
  }
  cr_assert_eq(l->offset, offset, "%s: offset, got %s", what, got);
}

/* A layout of `shape` with random strides in [-max_stride, max_stride]. */
static inline ndx_layout random_like(oracle_rng *r, int rank, const int64_t *shape,
                                     int64_t max_stride) {
  int64_t strides[NDX_MAX_RANK], offset = oracle_between(r, 0, 5);
  for (int a = 0; a < rank; a++) {
    strides[a] = oracle_between(r, -max_stride, max_stride);
    if (shape[a] > 1 && strides[a] < 0) offset += (shape[a] - 1) * -strides[a];
  }
  return make(rank, shape, strides, offset);
}

/* A random distinct layout of `shape`: a permuted C-order layout with gaps,
 * some axes flipped. */
static inline ndx_layout random_distinct(oracle_rng *r, int rank, const int64_t *shape) {
  int32_t perm[NDX_MAX_RANK];
  for (int a = 0; a < rank; a++) perm[a] = a;
  for (int a = rank - 1; a > 0; a--) {
    int b = (int)oracle_between(r, 0, a);
    int32_t t = perm[a];
    perm[a] = perm[b];
    perm[b] = t;
  }
  int64_t strides[NDX_MAX_RANK], offset = oracle_between(r, 0, 9), s = oracle_between(r, 1, 2);
  for (int x = rank - 1; x >= 0; x--) {
    int a = perm[x];
    strides[a] = oracle_between(r, 0, 3) == 0 ? -s : s;
    if (strides[a] < 0 && shape[a] > 1) offset += (shape[a] - 1) * s;
    s *= shape[a] > 0 ? shape[a] + oracle_between(r, 0, 1) : 1;
  }
  return make(rank, shape, strides, offset);
}

#endif /* NDX_TEST_SUITE_H */
