/* suite.h: what the Criterion suites share: building the layouts a test
 * starts from, failing the test (with ndx's reason) when ndx refuses one. */
#ifndef NDX_TEST_SUITE_H
#define NDX_TEST_SUITE_H

#include <criterion/criterion.h>

#include "ndx/ndx_layout.h"

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

#endif /* NDX_TEST_SUITE_H */
