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

/* ---- The reference copy ------------------------------------------------- */

/* Element i (C order) of a source layout to element i of a destination
 * layout of the same shape, by the definition, on host buffers: the one
 * reference that the device suites (OpenCL and CUDA), `ndx copy`, `ndx demo`
 * and ndx-bench check against. Elements are `bits` wide, 1..128; sub-byte
 * elements are packed little bit-endian: element p is bits p*bits ..
 * p*bits+bits-1, bit 8q+r being bit r of byte q. Plain C that also compiles
 * as C++ (tests/cuda_cases.h is built by nvcc too). */

#include <string.h>

/* The position of C-order element k of `l`, 0 <= k < numel (so no extent
 * is 0): oracle_position of oracle_unravel(k), in one pass, one division
 * an axis (the bench samples millions of elements at random with it). */
static inline int64_t oracle_position_of(const ndx_layout *l, int64_t k) {
  int64_t p = l->offset;
  for (int a = l->rank - 1; a >= 0; a--) {
    int64_t n = l->shape[a], q = k / n;
    p += (k - q * n) * l->strides[a];
    k = q;
  }
  return p;
}

/* An odometer over the C-order index of `d`'s shape that carries the
 * positions of the element at hand in `d` and in `s` (of the same shape;
 * NULL: `d` alone). A step adds the strides of the innermost axis that does
 * not wrap and takes back those of the axes inside it: the positions stay
 * oracle_position(index), at the cost of an addition per element. */
typedef struct oracle_walk {
  const ndx_layout *d, *s;
  int64_t k, n;   /* the element at hand, the element count */
  int64_t pd, ps; /* its positions in d and s */
  int64_t index[NDX_MAX_RANK];
} oracle_walk;

/* Starts `w` at C-order element k (k == numel: past the end). */
static inline void oracle_walk_start(oracle_walk *w, const ndx_layout *d, const ndx_layout *s,
                                     int64_t k) {
  w->d = d;
  w->s = s;
  w->k = k;
  w->n = oracle_numel(d);
  oracle_unravel(d->rank, d->shape, k, w->index);
  w->pd = oracle_position(d, w->index);
  w->ps = s ? oracle_position(s, w->index) : 0;
}

/* Steps `w` to the next element; false once past the last one. */
static inline bool oracle_walk_step(oracle_walk *w) {
  if (++w->k >= w->n) return false;
  const ndx_layout *d = w->d, *s = w->s;
  for (int a = d->rank - 1; a >= 0; a--) {
    if (++w->index[a] < d->shape[a]) {
      w->pd += d->strides[a];
      if (s) w->ps += s->strides[a];
      break;
    }
    w->index[a] = 0;
    w->pd -= (d->shape[a] - 1) * d->strides[a];
    if (s) w->ps -= (s->shape[a] - 1) * s->strides[a];
  }
  return true;
}

/* The element at position pd of `dst` gets the one at position ps of `src`;
 * `mask` (NULL: none) gets 1 on every byte of `dst` the element touches. */
static inline void oracle_copy_element(uint8_t *dst, int64_t pd, const uint8_t *src, int64_t ps,
                                       int bits, uint8_t *mask) {
  if (bits % 8 == 0) {
    size_t w = (size_t)bits / 8;
    memcpy(dst + (size_t)pd * w, src + (size_t)ps * w, w);
    if (mask) memset(mask + (size_t)pd * w, 1, w);
  } else if (8 % bits == 0) { /* 1, 2, 4 bits: within one byte */
    int64_t q = pd * bits, r = ps * bits;
    unsigned m = (1u << bits) - 1u, v = ((unsigned)src[r >> 3] >> (r & 7)) & m;
    dst[q >> 3] = (uint8_t)((dst[q >> 3] & ~(m << (q & 7))) | v << (q & 7));
    if (mask) mask[q >> 3] = 1;
  } else {
    for (int b = 0; b < bits; b++) {
      int64_t q = pd * bits + b, r = ps * bits + b;
      unsigned v = ((unsigned)src[r >> 3] >> (r & 7)) & 1u;
      dst[q >> 3] = (uint8_t)((dst[q >> 3] & ~(1u << (q & 7))) | v << (q & 7));
      if (mask) mask[q >> 3] = 1;
    }
  }
}

/* Whether the element at position pa of `a` equals the one at pb of `b`. */
static inline bool oracle_same_element(const uint8_t *a, int64_t pa, const uint8_t *b, int64_t pb,
                                       int bits) {
  if (bits % 8 == 0) {
    size_t w = (size_t)bits / 8;
    return memcmp(a + (size_t)pa * w, b + (size_t)pb * w, w) == 0;
  }
  if (8 % bits == 0) {
    int64_t q = pa * bits, r = pb * bits;
    unsigned m = (1u << bits) - 1u;
    return (((unsigned)a[q >> 3] >> (q & 7)) & m) == (((unsigned)b[r >> 3] >> (r & 7)) & m);
  }
  for (int i = 0; i < bits; i++) {
    int64_t q = pa * bits + i, r = pb * bits + i;
    if (((a[q >> 3] >> (q & 7)) & 1) != ((b[r >> 3] >> (r & 7)) & 1)) return false;
  }
  return true;
}

/* The reference copy: element i of `s` in `src` to element i of `d` in
 * `dst`, for every i, in C order; bytes and bits of `dst` that no element
 * of `d` covers are left as they are. `mask` as oracle_copy_element. */
static inline void oracle_copy(uint8_t *dst, const ndx_layout *d, const uint8_t *src,
                               const ndx_layout *s, int bits, uint8_t *mask) {
  oracle_walk w;
  for (oracle_walk_start(&w, d, s, 0); w.k < w.n; oracle_walk_step(&w))
    oracle_copy_element(dst, w.pd, src, w.ps, bits, mask);
}

/* The reference's check of a result: the first of C-order elements from ..
 * from+count-1 (those below numel) at which `dst` under `d` does not hold
 * what `src` holds under `s`, or -1 when they all agree. */
static inline int64_t oracle_first_wrong(const uint8_t *dst, const ndx_layout *d,
                                         const uint8_t *src, const ndx_layout *s, int bits,
                                         int64_t from, int64_t count) {
  oracle_walk w;
  for (oracle_walk_start(&w, d, s, from); w.k < w.n && w.k - from < count; oracle_walk_step(&w))
    if (!oracle_same_element(dst, w.pd, src, w.ps, bits)) return w.k;
  return -1;
}

#endif /* NDX_TEST_ORACLE_H */
