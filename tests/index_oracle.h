/* index_oracle.h: the reference gather and scatter (ndx/ndx_index.h), by
 * the definition, on host buffers: what the device suites (OpenCL and the
 * CUDA emulator), the examples and `ndx gather` / `ndx scatter` check
 * against. Plain C that also compiles as C++. Include oracle.h first. */
#ifndef NDX_TEST_INDEX_ORACLE_H
#define NDX_TEST_INDEX_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndx/ndx_index.h"

/* The index element at position `pos` of a buffer of `index_bits` (32, 64)
 * signed little-endian integers. */
static inline int64_t oracle_index_at(const uint8_t *index, int64_t pos, int index_bits) {
  if (index_bits == 32) {
    int32_t v;
    memcpy(&v, index + pos * 4, 4);
    return v;
  }
  int64_t v;
  memcpy(&v, index + pos * 8, 8);
  return v;
}

/* Index value v as a coordinate of an axis of extent d, or -1. */
static inline int64_t oracle_index_coord(int64_t v, int64_t d, unsigned flags) {
  if ((flags & NDX_INDEX_WRAP) && v < 0 && v >= -d) v += d;
  return v >= 0 && v < d ? v : -1;
}

/* The first element of S (C order) whose index value is no coordinate of
 * the indexed axis (extent d), with its value in *value; -1 when none. */
static inline int64_t oracle_index_fault(const ndx_layout *index_l, const uint8_t *index,
                                         int index_bits, int64_t d, unsigned flags,
                                         int64_t *value) {
  int64_t n = oracle_numel(index_l);
  for (int64_t k = 0; k < n; k++) {
    int64_t v = oracle_index_at(index, oracle_position_of(index_l, k), index_bits);
    if (oracle_index_coord(v, d, flags) < 0) {
      *value = v;
      return k;
    }
  }
  return -1;
}

/* The reference gather (`scatter` false) or scatter: S is index_l's shape;
 * for every index i of S in C order, the element at i of the side with
 * S's shape and the one at i with coordinate `axis` replaced by the index
 * value on the other side are copied, src to dst; with a fault nothing is
 * written. Returns the faulting element as oracle_index_fault does (-1: the
 * copy was made). C order makes the last of duplicates win. */
static inline int64_t oracle_index_copy(bool scatter, uint8_t *dst, const ndx_layout *dst_l,
                                        const uint8_t *src, const ndx_layout *src_l, int axis,
                                        const uint8_t *index, const ndx_layout *index_l,
                                        int index_bits, unsigned flags, int bits, int64_t *value) {
  const ndx_layout *indexed = scatter ? dst_l : src_l, *same = scatter ? src_l : dst_l;
  int64_t d = indexed->shape[axis];
  int64_t bad = oracle_index_fault(index_l, index, index_bits, d, flags, value);
  if (bad >= 0) return bad;
  int64_t n = oracle_numel(index_l), at[NDX_MAX_RANK];
  for (int64_t k = 0; k < n; k++) {
    oracle_unravel(index_l->rank, index_l->shape, k, at);
    int64_t v = oracle_index_at(index, oracle_position(index_l, at), index_bits);
    int64_t ps = oracle_position(same, at);
    at[axis] = oracle_index_coord(v, d, flags);
    int64_t pi = oracle_position(indexed, at);
    if (scatter)
      oracle_copy_element(dst, pi, src, ps, bits, NULL);
    else
      oracle_copy_element(dst, ps, src, pi, bits, NULL);
  }
  return -1;
}

/* Checks ndx_index_fault's message `msg` against the call's index: it must
 * read "index[P] is V, outside [" with V the value at position P of the
 * index buffer and no coordinate of an axis of extent d, and name where
 * index_l reads it: "read at [c0,...] of index_l's shape [s0,...])", the
 * coordinates inside the shape and index_l's position of them P (rank 0:
 * "index_l's only element)", P its offset). NULL when it does, else what is
 * wrong. */
static inline const char *oracle_fault_message_wrong(const char *msg, const ndx_layout *index_l,
                                                     const uint8_t *index, int index_bits,
                                                     int64_t d, unsigned flags) {
  long long p, v, p2, p3;
  const char *m = msg ? strstr(msg, "index[") : NULL;
  if (!m || sscanf(m, "index[%lld] is %lld, outside [", &p, &v) != 2)
    return "no \"index[P] is V, outside [\"";
  if (oracle_index_at(index, (int64_t)p, index_bits) != (int64_t)v)
    return "V is not the value at position P of the index buffer";
  if (oracle_index_coord((int64_t)v, d, flags) >= 0) return "V is a valid index value";
  m = strstr(m, "(index[");
  if (!m || sscanf(m, "(index[%lld]: element %lld of the index buffer, ", &p2, &p3) != 2 ||
      p2 != p || p3 != p)
    return "no \"(index[P]: element P of the index buffer, \"";
  if (index_l->rank == 0)
    return strstr(m, "index_l's only element)") && index_l->offset == (int64_t)p
               ? NULL
               : "rank 0: not \"index_l's only element\" at its offset";
  m = strstr(m, "read at [");
  if (!m) return "no \"read at [\"";
  m += strlen("read at [");
  int64_t at[NDX_MAX_RANK];
  for (int a = 0; a < index_l->rank; a++) {
    char *end;
    at[a] = (int64_t)strtoll(m, &end, 10);
    if (end == m || *end != (a + 1 < index_l->rank ? ',' : ']')) return "malformed coordinates";
    if (at[a] < 0 || at[a] >= index_l->shape[a]) return "a coordinate outside index_l's shape";
    m = end + 1;
  }
  char shape[64 * NDX_MAX_RANK] = " of index_l's shape [";
  for (int a = 0; a < index_l->rank; a++)
    snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%lld", a ? "," : "",
             (long long)index_l->shape[a]);
  snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "])");
  if (strncmp(m, shape, strlen(shape)) != 0) return "not \" of index_l's shape [..])\"";
  if (oracle_position(index_l, at) != (int64_t)p)
    return "index_l's position of the coordinates is not P";
  return NULL;
}

/* A new index buffer of `bytes` bytes (rounded up to whole values of
 * index_bits, 32 or 64) of values in [lo, hi] (0 where hi < lo); the
 * caller frees it. */
static inline uint8_t *oracle_random_index(oracle_rng *r, size_t bytes, int index_bits, int64_t lo,
                                           int64_t hi) {
  size_t n = bytes / (size_t)(index_bits / 8) + 1;
  uint8_t *b = (uint8_t *)malloc(n * (size_t)(index_bits / 8));
  for (size_t k = 0; b && k < n; k++) {
    int64_t v = hi >= lo ? oracle_between(r, lo, hi) : 0;
    if (index_bits == 32) {
      int32_t w = (int32_t)v;
      memcpy(b + k * 4, &w, 4);
    } else {
      memcpy(b + k * 8, &v, 8);
    }
  }
  return b;
}

/* perm[0..n) := a random permutation of [0, n) (Fisher-Yates). */
static inline void oracle_permutation(oracle_rng *r, int64_t *perm, int64_t n) {
  for (int64_t t = 0; t < n; t++) perm[t] = t;
  for (int64_t t = n - 1; t > 0; t--) {
    int64_t u = oracle_between(r, 0, t), w = perm[t];
    perm[t] = perm[u];
    perm[u] = w;
  }
}

#endif /* NDX_TEST_INDEX_ORACLE_H */
