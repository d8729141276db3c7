/* oracle.h: brute-force helpers shared by the suites. They enumerate every
 * index of a small layout directly from its definition (offset + sum i*s), so
 * that a test compares the code under test with something independent of it,
 * and they build random small layouts from a seeded generator. */
#ifndef NDX_TEST_ORACLE_H
#define NDX_TEST_ORACLE_H

#include <stdint.h>
#include <stdlib.h>

#include "ndx/ndx_layout.h"

/* A small deterministic generator (splitmix64), so failures replay. */
typedef struct oracle_rng {
  uint64_t s;
} oracle_rng;

static inline uint64_t oracle_next(oracle_rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static inline int64_t oracle_between(oracle_rng *r, int64_t lo, int64_t hi) {
  return lo + (int64_t)(oracle_next(r) % (uint64_t)(hi - lo + 1));
}

/* The multi-index of C-order element k of `shape`. */
static inline void oracle_unravel(int rank, const int64_t *shape, int64_t k, int64_t *index) {
  for (int a = rank - 1; a >= 0; a--) {
    index[a] = shape[a] ? k % shape[a] : 0;
    k = shape[a] ? k / shape[a] : 0;
  }
}

/* The position of `index` by the definition: offset + sum index[a]*stride[a]. */
static inline int64_t oracle_position(const ndx_layout *l, const int64_t *index) {
  int64_t p = l->offset;
  for (int a = 0; a < l->rank; a++) p += index[a] * l->strides[a];
  return p;
}

/* The element count by the definition (product of extents, 1 at rank 0). */
static inline int64_t oracle_numel(const ndx_layout *l) {
  int64_t n = 1;
  for (int a = 0; a < l->rank; a++) n *= l->shape[a];
  return n;
}

/* Writes the position of every element of `l`, in C order, into `out` (room
 * for oracle_numel(l) values) and returns their number. */
static inline int64_t oracle_positions(const ndx_layout *l, int64_t *out) {
  int64_t n = oracle_numel(l), index[NDX_MAX_RANK];
  for (int64_t k = 0; k < n; k++) {
    oracle_unravel(l->rank, l->shape, k, index);
    out[k] = oracle_position(l, index);
  }
  return n;
}

/* A random small layout: rank in [0, max_rank], extents in [0, max_extent],
 * strides in [-max_stride, max_stride], and an offset that keeps every
 * position non-negative (plus up to `extra_offset`). Built with ndx_make, so
 * it is canonical; the raw values are returned too for tests that need them. */
static inline ndx_layout oracle_random_layout(oracle_rng *r, int max_rank, int64_t max_extent,
                                              int64_t max_stride, int64_t extra_offset) {
  int rank = (int)oracle_between(r, 0, max_rank);
  int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK], offset = 0;
  for (int a = 0; a < rank; a++) {
    shape[a] = oracle_between(r, 0, max_extent);
    strides[a] = oracle_between(r, -max_stride, max_stride);
    if (shape[a] > 1 && strides[a] < 0) offset += (shape[a] - 1) * -strides[a];
  }
  offset += oracle_between(r, 0, extra_offset);
  ndx_layout l;
  if (ndx_make(&l, rank, shape, strides, offset) != NDX_OK) abort();
  return l;
}

/* ---- Additions for the layout, move and coalesce suites ----------------- */

#include <stdbool.h>
#include <stdio.h>

/* Writes "shape=[..] strides=[..] offset=N" of `l` by hand (not through
 * ndx_format, which is under test) into `buf`, for failure messages. */
static inline const char *oracle_describe(char *buf, size_t size, const ndx_layout *l) {
  size_t used = 0;
  int rank = l->rank < 0 ? 0 : l->rank > NDX_MAX_RANK ? NDX_MAX_RANK : l->rank;
#define ORACLE_PUT(...)                                                                            \
  do {                                                                                             \
    if (used < size) {                                                                             \
      int k_ = snprintf(buf + used, size - used, __VA_ARGS__);                                     \
      if (k_ > 0) used += (size_t)k_;                                                              \
    }                                                                                              \
  } while (0)
  ORACLE_PUT("shape=[");
  for (int a = 0; a < rank; a++) ORACLE_PUT("%s%lld", a ? "," : "", (long long)l->shape[a]);
  ORACLE_PUT("] strides=[");
  for (int a = 0; a < rank; a++) ORACLE_PUT("%s%lld", a ? "," : "", (long long)l->strides[a]);
  ORACLE_PUT("] offset=%lld", (long long)l->offset);
#undef ORACLE_PUT
  return buf;
}

/* Why `l` is not in canonical form (an extent-1 axis with a stride, an empty
 * layout with an offset or a stride), or NULL when it is. */
static inline const char *oracle_not_canonical(const ndx_layout *l) {
  if (l->rank < 0 || l->rank > NDX_MAX_RANK) return "rank outside [0, 32]";
  bool empty = false;
  for (int a = 0; a < l->rank; a++) {
    if (l->shape[a] < 0) return "negative extent";
    if (l->shape[a] == 0) empty = true;
    if (l->shape[a] == 1 && l->strides[a] != 0) return "extent-1 axis with a non-zero stride";
  }
  if (empty) {
    if (l->offset != 0) return "empty layout with a non-zero offset";
    for (int a = 0; a < l->rank; a++)
      if (l->strides[a] != 0) return "empty layout with a non-zero stride";
  }
  return NULL;
}

/* A random layout of the given shape: strides in [-max_stride, max_stride]
 * and an offset that keeps every position non-negative (plus up to
 * `extra_offset`). Built with ndx_make (aborts if it refuses). */
static inline ndx_layout oracle_random_layout_of_shape(oracle_rng *r, int rank,
                                                       const int64_t *shape, int64_t max_stride,
                                                       int64_t extra_offset) {
  int64_t strides[NDX_MAX_RANK], offset = 0;
  for (int a = 0; a < rank; a++) {
    strides[a] = oracle_between(r, -max_stride, max_stride);
    if (shape[a] > 1 && strides[a] < 0) offset += (shape[a] - 1) * -strides[a];
  }
  offset += oracle_between(r, 0, extra_offset);
  ndx_layout l;
  if (ndx_make(&l, rank, shape, strides, offset) != NDX_OK) abort();
  return l;
}

/* Strides of the kind real views have, for `shape`: a C-order layout of a
 * larger parent with its axes laid out in a random memory order (a
 * permutation), some axes stepped by 2 or reversed (a slice), some of stride
 * 0 (a broadcast); the offset keeps every position non-negative. Such
 * layouts share runs, so reshapes succeed and coalescing merges. Built with
 * ndx_make (aborts if it refuses). */
static inline ndx_layout oracle_view_layout_of_shape(oracle_rng *r, int rank,
                                                     const int64_t *shape) {
  int order[NDX_MAX_RANK];
  int64_t strides[NDX_MAX_RANK], offset = 0, acc = 1;
  for (int a = 0; a < rank; a++) order[a] = a;
  if (oracle_between(r, 0, 1)) /* a random memory order, else C order */
    for (int a = rank - 1; a > 0; a--) {
      int b = (int)oracle_between(r, 0, a), t = order[a];
      order[a] = order[b];
      order[b] = t;
    }
  for (int k = rank - 1; k >= 0; k--) { /* innermost in memory first */
    int a = order[k];
    int64_t step = oracle_between(r, 0, 5) == 0 ? 2 : 1;
    int64_t parent = shape[a] * step + (oracle_between(r, 0, 4) == 0 ? oracle_between(r, 1, 2) : 0);
    strides[a] = acc * step * (oracle_between(r, 0, 5) == 0 ? -1 : 1);
    if (oracle_between(r, 0, 7) == 0) strides[a] = 0;
    acc *= parent > 0 ? parent : 1;
  }
  for (int a = 0; a < rank; a++)
    if (shape[a] > 1 && strides[a] < 0) offset += (shape[a] - 1) * -strides[a];
  offset += oracle_between(r, 0, 3);
  ndx_layout l;
  if (ndx_make(&l, rank, shape, strides, offset) != NDX_OK) abort();
  return l;
}

/* A random small shape: rank in [0, max_rank], extents in [0, max_extent],
 * extent 0 drawn only one time in `zero_odds` per axis (an empty layout has
 * little to check). Returns the rank. */
static inline int oracle_random_shape(oracle_rng *r, int max_rank, int64_t max_extent,
                                      int zero_odds, int64_t *shape) {
  int rank = (int)oracle_between(r, 0, max_rank);
  for (int a = 0; a < rank; a++)
    shape[a] = oracle_between(r, 0, zero_odds - 1) == 0 ? 0 : oracle_between(r, 1, max_extent);
  return rank;
}

#endif /* NDX_TEST_ORACLE_H */
