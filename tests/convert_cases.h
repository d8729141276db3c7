/* convert_cases.h: the named layout pairs the conversion suites run for
 * their type pairs (tests/test_cl_convert.c on OpenCL, the CUDA and HIP
 * emulators' tests/test_convert_emulate.cu), layouts that stress a
 * conversion's own paths: transposed sources, flips on both sides with
 * 4-bit elements starting inside a byte, a broadcast into a step-2
 * destination, rank 0, rank 32, empty, and a 4-bit source's grouped
 * words and byte pairs (rows starting inside a word, reversed rows, a
 * reversed or odd k axis, destination rows off the sectors), and 4-bit
 * destination rows that start inside a byte, one of them where the row
 * before ends, and a 4-bit source's rows on words. C and C++ alike. */
#ifndef NDX_TEST_CONVERT_CASES_H
#define NDX_TEST_CONVERT_CASES_H

#include <stdio.h>
#include <stdlib.h>

#include "ndx/ndx_layout.h"

enum { CONVERT_NAMED = 14 }; /* named cases */

/* ndx_make's layout; aborts when it refuses (a case written wrong). */
static inline ndx_layout convert_case_make(int rank, const int64_t *shape, const int64_t *strides,
                                           int64_t offset) {
  ndx_layout l;
  if (ndx_make(&l, rank, shape, strides, offset) != NDX_OK) {
    fprintf(stderr, "convert_cases.h: ndx_make: %s\n", ndx_last_error());
    abort();
  }
  return l;
}

/* The C-order layout of `shape` from `offset`. */
static inline ndx_layout convert_case_contiguous(int rank, const int64_t *shape, int64_t offset) {
  ndx_layout c;
  if (ndx_contiguous(&c, rank, shape) != NDX_OK) {
    fprintf(stderr, "convert_cases.h: ndx_contiguous: %s\n", ndx_last_error());
    abort();
  }
  return convert_case_make(rank, shape, c.strides, offset);
}

/* Named case k (0 to CONVERT_NAMED - 1): its destination into *d, its
 * source into *s. */
static inline void convert_named_case(int k, ndx_layout *d, ndx_layout *s) {
  switch (k) {
  case 0: { /* a transposed source */
    int64_t shape[2] = {37, 29}, ss[2] = {1, 37};
    *d = convert_case_contiguous(2, shape, 1), *s = convert_case_make(2, shape, ss, 3);
    return;
  }
  case 1: { /* flips on both sides, a 4-bit element starting inside a byte */
    int64_t shape[2] = {5, 33}, ds[2] = {-34, -1}, ss[2] = {33, -1};
    *d = convert_case_make(2, shape, ds, 4 * 34 + 32 + 1);
    *s = convert_case_make(2, shape, ss, 32 + 3);
    return;
  }
  case 2: { /* a broadcast source row, a step-2 destination */
    int64_t shape[2] = {6, 40}, ds[2] = {80, 2}, ss[2] = {0, 1};
    *d = convert_case_make(2, shape, ds, 1), *s = convert_case_make(2, shape, ss, 1);
    return;
  }
  case 3: /* rank 0 */
    *d = convert_case_make(0, NULL, NULL, 3), *s = convert_case_make(0, NULL, NULL, 5);
    return;
  case 4: { /* rank 32: every eighth axis of extent 2, the source reversed */
    int64_t shape[32], ds[32], ss[32], acc = 1;
    for (int a = 31; a >= 0; a--) {
      shape[a] = a % 8 == 0 ? 2 : 1;
      ds[a] = shape[a] > 1 ? acc : 0;
      acc *= shape[a];
    }
    for (int a = 0; a < 32; a++) ss[a] = shape[a] > 1 ? -ds[a] : 0;
    *d = convert_case_make(32, shape, ds, 0), *s = convert_case_make(32, shape, ss, acc - 1);
    return;
  }
  case 5: { /* a source transposed past a batch axis, destination rows starting on bytes: a
             * 4-bit destination's bytes family must still see the destination's order */
    int64_t shape[3] = {6, 5, 10}, ss[3] = {1, 70, 6};
    *d = convert_case_contiguous(3, shape, 0), *s = convert_case_make(3, shape, ss, 2);
    return;
  }
  case 6: { /* empty */
    int64_t shape[2] = {0, 7};
    *d = convert_case_contiguous(2, shape, 0), *s = convert_case_contiguous(2, shape, 0);
    return;
  }
  case 7: { /* rows of 35 starting inside a 4-bit source's byte (and word), the
               destination's on the same element of its words: grouped units,
               each row's first short and last partial */
    int64_t shape[2] = {3, 35}, st[2] = {48, 1};
    *d = convert_case_make(2, shape, st, 16 + 3), *s = convert_case_make(2, shape, st, 3);
    return;
  }
  case 8: { /* rows of 29 reversed in the source: a group's nibbles from the top */
    int64_t shape[2] = {4, 29}, ds[2] = {32, 1}, ss[2] = {32, -1};
    *d = convert_case_make(2, shape, ds, 2), *s = convert_case_make(2, shape, ss, 29);
    return;
  }
  case 9: { /* a transpose whose k axis (101, two tiles) is reversed in the
               source: a 4-bit source's pairs from a byte's top, the last one
               alone */
    int64_t shape[2] = {101, 40}, ss[2] = {-1, 102};
    *d = convert_case_contiguous(2, shape, 0), *s = convert_case_make(2, shape, ss, 101);
    return;
  }
  case 10: { /* a transpose of an odd k extent taken whole, a 4-bit source's
               pairs in bytes, the last element alone */
    int64_t shape[2] = {37, 45}, ss[2] = {1, 38};
    *d = convert_case_contiguous(2, shape, 0), *s = convert_case_make(2, shape, ss, 0);
    return;
  }
  case 11: { /* a transpose into destination rows off the sectors (a j side of
                run bytes, shortened for a 4-bit source's pairs' 64-element k) */
    int64_t shape[2] = {70, 300}, ss[2] = {1, 70};
    *d = convert_case_contiguous(2, shape, 0), *s = convert_case_make(2, shape, ss, 0);
    return;
  }
  case 12: { /* rows of 8 from inside a byte, each ending where the next starts:
                a 4-bit destination's rows share bytes, each of which only one
                work-item may write */
    int64_t shape[2] = {3, 8}, ds[2] = {8, 1}, ss[2] = {16, 1};
    *d = convert_case_make(2, shape, ds, 1), *s = convert_case_make(2, shape, ss, 1);
    return;
  }
  case 13: { /* a transpose whose k rows of 264 start and end on a 4-bit source's
                4-byte words: phase 1 by words, the last tile along k cut */
    int64_t shape[2] = {264, 40}, ss[2] = {1, 272};
    *d = convert_case_contiguous(2, shape, 0), *s = convert_case_make(2, shape, ss, 8);
    return;
  }
  default:
    fprintf(stderr, "convert_cases.h: no named case %d\n", k);
    abort();
  }
}

#endif /* NDX_TEST_CONVERT_CASES_H */
