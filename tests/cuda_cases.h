/* cuda_cases.h: the copy cases of the CUDA suites.
 *
 * Shared by tests/test_cuda.c (the copies run on a GPU) and
 * tests/test_cuda_emulate.cu (the same kernels run thread by thread on the
 * host), so both check one list: random layout pairs of ranks 0..8 (views
 * with permuted axes, negative and step-2 slices, broadcasts, windows,
 * offsets, empty tensors) and named cases large enough to reach every
 * kernel's tiles and edges, for every width. The reference is oracle.h's
 * oracle_copy, element by element from the definition, so a destination
 * buffer filled with a pattern is compared byte for byte, untouched bytes
 * included. Plain C that also compiles as C++. */
#ifndef NDX_TEST_CUDA_CASES_H
#define NDX_TEST_CUDA_CASES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndx/ndx_layout.h"
#include "oracle.h"

typedef struct cuda_case {
  char name[160];
  ndx_layout dst, src;
  int bits;
} cuda_case;

static const int cuda_widths[] = {1, 2, 4, 8, 16, 32, 64, 128};
#define CUDA_NWIDTHS 8

/* Bytes a buffer needs for every position of `l` at `bits` bits, plus a
 * margin that must stay untouched. */
static inline size_t cuda_case_bytes(const ndx_layout *l, int bits) {
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  return (size_t)((hi * bits + 7) / 8) + 64;
}

/* A deterministic pattern, different per seed. */
static inline void cuda_fill(uint8_t *buf, size_t n, uint64_t seed) {
  oracle_rng r = {seed * 0x9e3779b97f4a7c15u + 1};
  for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)oracle_next(&r);
}

/* The first byte where a and b differ, or -1. */
static inline int64_t cuda_first_difference(const uint8_t *a, const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) return (int64_t)i;
  return -1;
}

static inline const char *cuda_describe(char *buf, size_t size, const cuda_case *c) {
  char d[600], s[600];
  snprintf(buf, size, "%s: %d bits, dst %s, src %s", c->name, c->bits,
           oracle_describe(d, sizeof d, &c->dst), oracle_describe(s, sizeof s, &c->src));
  return buf;
}

/* ---- Building layouts -------------------------------------------------------- */

static inline ndx_layout cuda_contig(int rank, const int64_t *shape) {
  ndx_layout l;
  if (ndx_contiguous(&l, rank, shape) != NDX_OK) abort();
  return l;
}

/* `l` moved by a permutation. */
static inline ndx_layout cuda_permuted(const ndx_layout *l, const int32_t *perm) {
  ndx_layout out;
  if (ndx_permute(&out, l, perm) != NDX_OK) abort();
  return out;
}

/* The C-order layout of the shape `perm` gives `shape`, permuted back: a
 * source whose memory order is `perm`'s, of shape `shape`. */
static inline ndx_layout cuda_transposed_source(int rank, const int64_t *shape,
                                                const int32_t *perm) {
  int64_t parent[NDX_MAX_RANK];
  int32_t inv[NDX_MAX_RANK];
  for (int a = 0; a < rank; a++) parent[a] = shape[perm[a]];
  for (int a = 0; a < rank; a++) inv[perm[a]] = a;
  ndx_layout p = cuda_contig(rank, parent);
  return cuda_permuted(&p, inv);
}

/* A batched transpose whose rows start wherever the padding puts them: the
 * destination [nb, a, b] is columns offd.. of a C-order [nb, a, pd], the
 * source the transpose of columns offs.. of a C-order [nb, b, ps]. */
static inline void cuda_padded_transpose(cuda_case *c, int64_t nb, int64_t a, int64_t b, int64_t pd,
                                         int64_t offd, int64_t ps, int64_t offs) {
  int64_t dp[3] = {nb, a, pd}, sp[3] = {nb, b, ps};
  ndx_range dr[3] = {{0, nb, 1}, {0, a, 1}, {offd, b, 1}};
  ndx_range sr[3] = {{0, nb, 1}, {0, b, 1}, {offs, a, 1}};
  int32_t t[3] = {0, 2, 1};
  ndx_layout d = cuda_contig(3, dp), s = cuda_contig(3, sp), v;
  if (ndx_slice(&c->dst, &d, dr) != NDX_OK || ndx_slice(&v, &s, sr) != NDX_OK) abort();
  c->src = cuda_permuted(&v, t);
}

/* A distinct view of `shape` for a destination (contiguous when the views
 * drawn keep sharing positions). */
static inline ndx_layout cuda_random_dst(oracle_rng *r, int rank, const int64_t *shape) {
  if (oracle_between(r, 0, 2) > 0) {
    for (int tries = 0; tries < 8; tries++) {
      ndx_layout l = oracle_between(r, 0, 3) ? oracle_view_layout_of_shape(r, rank, shape)
                                             : oracle_random_layout_of_shape(r, rank, shape, 40, 9);
      if (ndx_is_distinct(&l)) return l;
    }
  }
  ndx_layout l = cuda_contig(rank, shape);
  int64_t off = oracle_between(r, 0, 3);
  if (off && ndx_numel(&l) > 0) ndx_make(&l, rank, shape, l.strides, off);
  return l;
}

/* Random case `k`: a shape of rank 0..8 (at most a few thousand elements),
 * a distinct destination and a source that is a view (permuted, sliced,
 * flipped, broadcast), a window of a larger tensor, or arbitrary strides. */
static inline void cuda_random_case(oracle_rng *r, int k, int bits, cuda_case *c) {
  int64_t shape[NDX_MAX_RANK];
  int rank;
  ndx_layout src;
  int kind = (int)oracle_between(r, 0, 9);
  if (kind == 0) { /* windows of a 1-d or 2-d tensor */
    int prank = (int)oracle_between(r, 1, 2);
    int64_t pshape[2] = {oracle_between(r, 1, 40), oracle_between(r, 1, 12)};
    ndx_layout parent = cuda_contig(prank, pshape);
    int axis = (int)oracle_between(r, 0, prank - 1);
    int64_t d = pshape[axis], dil = oracle_between(r, 1, 2);
    int64_t size = oracle_between(r, 1, (d - 1) / dil + 1);
    ndx_window w = {axis, size, oracle_between(r, 1, 3), dil};
    if (ndx_unfold(&src, &parent, 1, &w) != NDX_OK) abort();
    rank = src.rank;
    memcpy(shape, src.shape, sizeof(int64_t) * (size_t)rank);
  } else {
    rank = (int)oracle_between(r, 0, 8);
    int64_t max_extent = rank <= 3 ? 9 : rank <= 5 ? 5 : 3;
    for (int a = 0; a < rank; a++)
      shape[a] = oracle_between(r, 0, 15) == 0 ? 0 : oracle_between(r, 1, max_extent);
    src = kind <= 6 ? oracle_view_layout_of_shape(r, rank, shape)
                    : oracle_random_layout_of_shape(r, rank, shape, 30, 7);
  }
  c->bits = bits;
  c->src = src;
  c->dst = cuda_random_dst(r, rank, shape);
  snprintf(c->name, sizeof c->name, "random %d", k);
}

/* Named case `k` (0 <= k < CUDA_NAMED) at `bits`: the shapes and moves of
 * the speed cases, small, plus the edges of every kernel. Returns 0 past
 * the end. */
#define CUDA_NAMED 25
static inline int cuda_named_case(int k, int bits, cuda_case *c) {
  /* WORDS tiles: k >= 32*E and j >= 8*E elements, E = 32/bits (16 bits at most) */
  int64_t e = bits <= 16 ? 32 / bits : 2, tk = 32 * e, tj = 8 * e;
  int64_t s2[2];
  int32_t t2[2] = {1, 0};
  c->bits = bits;
  switch (k) {
  case 0: /* contiguous */
    s2[0] = 1, s2[1] = 1000 + 8;
    c->dst = c->src = cuda_contig(2, s2);
    snprintf(c->name, sizeof c->name, "contiguous");
    return 1;
  case 1: /* 2-d transpose, edges on both axes */
    s2[0] = tk + 37, s2[1] = tj * 2 + 5;
    c->dst = cuda_contig(2, s2);
    c->src = cuda_transposed_source(2, s2, t2);
    snprintf(c->name, sizeof c->name, "transpose");
    return 1;
  case 2: /* whole tiles only */
    s2[0] = tk * 2, s2[1] = tj * 3;
    c->dst = cuda_contig(2, s2);
    c->src = cuda_transposed_source(2, s2, t2);
    snprintf(c->name, sizeof c->name, "transpose, whole tiles");
    return 1;
  case 3: /* batched, rows on words, one edge */
    cuda_padded_transpose(c, 3, tk + 1, tj, tj + e, 0, (tk + 1 + e) / e * e + e, e);
    snprintf(c->name, sizeof c->name, "batched transpose");
    return 1;
  case 4: { /* transpose of a window: the source rows start off a word */
    int64_t parent[2] = {tj + 9, tk + 70};
    ndx_layout p = cuda_contig(2, parent), v;
    ndx_range rg[2] = {{1, tj + 2, 1}, {3, tk + 61, 1}};
    if (ndx_slice(&v, &p, rg) != NDX_OK) abort();
    c->src = cuda_permuted(&v, t2);
    c->dst = cuda_contig(2, c->src.shape);
    snprintf(c->name, sizeof c->name, "transpose of an offset window");
    return 1;
  }
  case 5: /* rows on 32-bit words, edges on both axes (WORDS and its strips) */
    cuda_padded_transpose(c, 1, tk + 37, 2 * tj + 5, (2 * tj + 5 + e) / e * e + e, e,
                          (tk + 37 + 2 * e) / e * e + e, 2 * e);
    snprintf(c->name, sizeof c->name, "transpose, word rows, edges");
    return 1;
  case 6: /* skinny transposes */
  case 7:
    s2[0] = k == 6 ? 3 : 1003, s2[1] = k == 6 ? 1003 : 3;
    c->dst = cuda_contig(2, s2);
    c->src = cuda_transposed_source(2, s2, t2);
    snprintf(c->name, sizeof c->name, "transpose %lldx%lld", (long long)s2[0], (long long)s2[1]);
    return 1;
  case 8: { /* flip of the inner axis */
    s2[0] = 5, s2[1] = 260;
    ndx_layout p = cuda_contig(2, s2);
    if (ndx_flip(&c->src, &p, 1) != NDX_OK) abort();
    c->dst = cuda_contig(2, s2);
    snprintf(c->name, sizeof c->name, "flip inner");
    return 1;
  }
  case 9: { /* flip of both axes, odd length */
    s2[0] = 7, s2[1] = 333;
    ndx_layout p = cuda_contig(2, s2), f;
    if (ndx_flip(&f, &p, 1) != NDX_OK || ndx_flip(&c->src, &f, 0) != NDX_OK) abort();
    c->dst = cuda_contig(2, s2);
    snprintf(c->name, sizeof c->name, "flip both");
    return 1;
  }
  case 10: { /* broadcast source */
    int64_t row[2] = {1, 300}, full[2] = {9, 300};
    ndx_layout p = cuda_contig(2, row);
    if (ndx_broadcast(&c->src, &p, 2, full) != NDX_OK) abort();
    c->dst = cuda_contig(2, full);
    snprintf(c->name, sizeof c->name, "broadcast rows");
    return 1;
  }
  case 11: { /* broadcast of a column */
    int64_t col[2] = {40, 1}, full[2] = {40, 70};
    ndx_layout p = cuda_contig(2, col);
    if (ndx_broadcast(&c->src, &p, 2, full) != NDX_OK) abort();
    c->dst = cuda_contig(2, full);
    snprintf(c->name, sizeof c->name, "broadcast columns");
    return 1;
  }
  case 12: { /* step 2 on the inner axis */
    int64_t p2[2] = {17, 2 * 129};
    ndx_layout p = cuda_contig(2, p2);
    ndx_range rg[2] = {{0, 17, 1}, {1, 129, 2}};
    if (ndx_slice(&c->src, &p, rg) != NDX_OK) abort();
    c->dst = cuda_contig(2, c->src.shape);
    snprintf(c->name, sizeof c->name, "slice step 2 inner");
    return 1;
  }
  case 13: { /* step 2 on the outer axis */
    int64_t p2[2] = {34, 136};
    ndx_layout p = cuda_contig(2, p2);
    ndx_range rg[2] = {{1, 16, 2}, {0, 136, 1}};
    if (ndx_slice(&c->src, &p, rg) != NDX_OK) abort();
    c->dst = cuda_contig(2, c->src.shape);
    snprintf(c->name, sizeof c->name, "slice step 2 outer");
    return 1;
  }
  case 14: { /* narrow 3-d, both sides */
    int64_t p3[3] = {6, 9, 140};
    ndx_layout p = cuda_contig(3, p3), a;
    if (ndx_narrow(&a, &p, 1, 2, 5) != NDX_OK || ndx_narrow(&c->src, &a, 2, 3, 129) != NDX_OK)
      abort();
    if (ndx_narrow(&a, &p, 1, 0, 5) != NDX_OK || ndx_narrow(&c->dst, &a, 2, 8, 129) != NDX_OK)
      abort();
    snprintf(c->name, sizeof c->name, "narrow 3-d");
    return 1;
  }
  case 15: { /* rank-8 permutation */
    int64_t s8[8] = {2, 3, 2, 3, 2, 3, 2, 5};
    int32_t p8[8] = {7, 6, 5, 4, 3, 2, 1, 0};
    c->dst = cuda_contig(8, s8);
    c->src = cuda_transposed_source(8, s8, p8);
    snprintf(c->name, sizeof c->name, "rank-8 permutation");
    return 1;
  }
  case 16: { /* rank-4 permutation with a kept inner axis */
    int64_t s4[4] = {5, 6, 7, 8};
    int32_t p4[4] = {2, 0, 1, 3};
    c->dst = cuda_contig(4, s4);
    c->src = cuda_transposed_source(4, s4, p4);
    snprintf(c->name, sizeof c->name, "rank-4 permutation, inner kept");
    return 1;
  }
  case 17: { /* rank-5 permutation */
    int64_t s5[5] = {4, 5, 6, 7, 40};
    int32_t p5[5] = {4, 2, 0, 3, 1};
    c->dst = cuda_contig(5, s5);
    c->src = cuda_transposed_source(5, s5, p5);
    snprintf(c->name, sizeof c->name, "rank-5 permutation");
    return 1;
  }
  case 18: /* empty */
    s2[0] = 0, s2[1] = 5;
    c->dst = c->src = cuda_contig(2, s2);
    snprintf(c->name, sizeof c->name, "empty");
    return 1;
  case 19: { /* one element, offsets */
    ndx_make(&c->dst, 0, NULL, NULL, 3);
    ndx_make(&c->src, 0, NULL, NULL, 5);
    snprintf(c->name, sizeof c->name, "one element");
    return 1;
  }
  case 20: { /* contiguous with odd offsets: no byte alignment below 8 bits */
    int64_t n[1] = {301};
    int64_t one[1] = {1};
    ndx_make(&c->dst, 1, n, one, 3);
    ndx_make(&c->src, 1, n, one, 1);
    snprintf(c->name, sizeof c->name, "contiguous, odd offsets");
    return 1;
  }
  case 21: { /* scatter: a strided destination, contiguous source */
    int64_t p2[2] = {20, 64};
    ndx_layout p = cuda_contig(2, p2);
    ndx_range rg[2] = {{19, 10, -2}, {0, 32, 2}};
    if (ndx_slice(&c->dst, &p, rg) != NDX_OK) abort();
    c->src = cuda_contig(2, c->dst.shape);
    snprintf(c->name, sizeof c->name, "scatter");
    return 1;
  }
  case 22: { /* transpose with a flipped source axis */
    s2[0] = 70, s2[1] = 50;
    ndx_layout t = cuda_transposed_source(2, s2, t2);
    if (ndx_flip(&c->src, &t, 0) != NDX_OK) abort();
    c->dst = cuda_contig(2, s2);
    snprintf(c->name, sizeof c->name, "transpose, flipped source");
    return 1;
  }
  case 23: { /* window source: overlapping frames */
    int64_t n[1] = {500};
    ndx_layout p = cuda_contig(1, n);
    ndx_window w = {0, 33, 7, 1};
    if (ndx_unfold(&c->src, &p, 1, &w) != NDX_OK) abort();
    c->dst = cuda_contig(c->src.rank, c->src.shape);
    snprintf(c->name, sizeof c->name, "windows");
    return 1;
  }
  case 24: { /* one long strided row: warp-rows' segments */
    int64_t n[1] = {10003};
    ndx_layout p = cuda_contig(1, n);
    ndx_range rg[1] = {{1, 5001, 2}};
    if (ndx_slice(&c->src, &p, rg) != NDX_OK) abort();
    c->dst = cuda_contig(1, c->src.shape);
    snprintf(c->name, sizeof c->name, "long row, step 2");
    return 1;
  }
  }
  return 0;
}

#endif /* NDX_TEST_CUDA_CASES_H */
