/* cuda_index_cases.h: the gather and scatter cases of the CUDA suites.
 *
 * Shared by tests/test_cuda.c (the calls run on a GPU) and
 * tests/test_cuda_emulate.cu (the same kernels run thread by thread on the
 * host), so both check one list, the cases of tests/test_cl_index.c: random
 * gathers and scatters (ranks 1..5, view layouts with negative and
 * broadcast strides on src and index, empty and extent-1 axes, every width,
 * 32- and 64-bit indices, NDX_INDEX_WRAP, one call in 8 with a bad value,
 * 64-bit kernels forced now and then), unique scatters with
 * NDX_INDEX_UNIQUE, every hostile index value, index_select and embedding
 * lookups through a broadcast index, KV-cache rows with and without
 * duplicates, and take_along_axis with wrapped indices. Each is checked
 * against index_oracle.h's reference on a pattern-filled destination, every
 * byte of the buffer. Plain C that also compiles as C++. */
#ifndef NDX_TEST_CUDA_INDEX_CASES_H
#define NDX_TEST_CUDA_INDEX_CASES_H

#include "cuda_cases.h"
#include "device/cuda_index_plan.h"
#include "index_oracle.h"

typedef struct cuda_index_case {
  char name[48];
  bool scatter;
  ndx_layout dst, src, index;
  int axis, index_bits, bits;
  unsigned flags, internal; /* internal: NDX_CUDA_INDEX_WIDE or 0 */
  uint8_t *ix;              /* the index buffer (malloc), ix_bytes long */
  size_t ix_bytes;
} cuda_index_case;

/* Random calls of each kind, unique scatters, hostile calls, named calls. */
#define CUDA_INDEX_RANDOM 400
#define CUDA_INDEX_UNIQUE 160
#define CUDA_INDEX_HOSTILE 88
#define CUDA_INDEX_NAMED 40
#define CUDA_INDEX_CASES                                                                           \
  (2 * CUDA_INDEX_RANDOM + CUDA_INDEX_UNIQUE + CUDA_INDEX_HOSTILE + CUDA_INDEX_NAMED)

static const int64_t cuda_hostile[11] = {
    INT64_MIN,        INT64_MIN + 1,    -1,        -5,        5,        6,
    (int64_t)1 << 31, (int64_t)1 << 53, INT64_MAX, INT32_MIN, INT32_MAX};

/* Bytes a buffer for `l` needs at `bits`, plus a margin that must stay
 * untouched. */
static inline size_t cuda_index_bytes(const ndx_layout *l, int bits) {
  return cuda_case_bytes(l, bits);
}

/* A distinct view layout of `shape` (a destination). */
static inline ndx_layout cuda_index_distinct(oracle_rng *r, int rank, const int64_t *shape) {
  for (int tries = 0; tries < 50; tries++) {
    ndx_layout l = oracle_view_layout_of_shape(r, rank, shape);
    if (ndx_is_distinct(&l)) return l;
  }
  return cuda_contig(rank, shape);
}

static inline void cuda_index_put(uint8_t *ix, int64_t pos, int index_bits, int64_t v) {
  if (index_bits == 32) {
    int32_t w = (int32_t)v;
    memcpy(ix + pos * 4, &w, 4);
  } else {
    memcpy(ix + pos * 8, &v, 8);
  }
}

/* c->ix for c->index: values in [lo, hi] (0 when hi < lo). */
static inline void cuda_index_values(cuda_index_case *c, oracle_rng *r, int64_t lo, int64_t hi) {
  int eb = c->index_bits / 8;
  c->ix_bytes = cuda_index_bytes(&c->index, c->index_bits) / (size_t)eb * (size_t)eb + (size_t)eb;
  c->ix = (uint8_t *)malloc(c->ix_bytes);
  if (!c->ix) abort();
  for (size_t k = 0; k < c->ix_bytes / (size_t)eb; k++)
    cuda_index_put(c->ix, (int64_t)k, c->index_bits, hi >= lo ? oracle_between(r, lo, hi) : 0);
}

/* A random shape of rank 1..5 with small extents (an empty axis now and
 * then), the axis, and the indexed side's extent on it. */
static inline int cuda_index_shape(oracle_rng *r, int64_t *shape, int *axis, int64_t *d) {
  int rank = (int)oracle_between(r, 1, 5);
  for (int a = 0; a < rank; a++)
    shape[a] = oracle_between(r, 0, 30) == 0 ? 0 : oracle_between(r, 1, rank <= 2 ? 9 : 4);
  *axis = (int)oracle_between(r, 0, rank - 1);
  *d = oracle_between(r, 0, 12) == 0 ? 1 : oracle_between(r, 1, 7);
  return rank;
}

/* Random call `iter`: S random, the indexed side's extent d on the axis. */
static inline void cuda_index_random(cuda_index_case *c, oracle_rng *r, int iter, bool scatter) {
  int64_t s[NDX_MAX_RANK], o[NDX_MAX_RANK], d;
  int rank = cuda_index_shape(r, s, &c->axis, &d);
  memcpy(o, s, sizeof s);
  o[c->axis] = d;
  c->scatter = scatter;
  c->bits = cuda_widths[iter % 8];
  c->index_bits = iter % 3 ? 32 : 64;
  c->flags = oracle_between(r, 0, 2) == 0 ? NDX_INDEX_WRAP : 0;
  c->internal = (iter / 8) % 4 == 3 ? NDX_CUDA_INDEX_WIDE : 0; /* every width */
  c->index = oracle_view_layout_of_shape(r, rank, s);
  ndx_layout same =
      scatter ? oracle_view_layout_of_shape(r, rank, s) : cuda_index_distinct(r, rank, s);
  ndx_layout other =
      scatter ? cuda_index_distinct(r, rank, o) : oracle_view_layout_of_shape(r, rank, o);
  c->dst = scatter ? other : same;
  c->src = scatter ? same : other;
  int64_t lo = c->flags & NDX_INDEX_WRAP ? -d : 0, hi = d - 1;
  int round = (iter / 8) % 16;               /* faults at every width, narrow and wide */
  if (round == 5 || round == 11) hi = d + 2; /* an out-of-range value somewhere */
  cuda_index_values(c, r, lo, hi);
  snprintf(c->name, sizeof c->name, "random %s %d", scatter ? "scatter" : "gather", iter);
}

/* Unique scatter `iter`: each fibre's index an injection into [0, d). */
static inline void cuda_index_unique(cuda_index_case *c, oracle_rng *r, int iter) {
  int64_t s[NDX_MAX_RANK], o[NDX_MAX_RANK], d;
  int rank = cuda_index_shape(r, s, &c->axis, &d);
  d = s[c->axis] + oracle_between(r, 0, 4);
  memcpy(o, s, sizeof s);
  o[c->axis] = d;
  c->scatter = true;
  c->bits = cuda_widths[iter % 8];
  c->index_bits = iter % 2 ? 32 : 64;
  c->flags = NDX_INDEX_UNIQUE;
  c->internal = iter % 3 == 2 ? NDX_CUDA_INDEX_WIDE : 0;
  c->index = cuda_contig(rank, s);
  c->src = oracle_view_layout_of_shape(r, rank, s);
  c->dst = cuda_index_distinct(r, rank, o);
  cuda_index_values(c, r, 0, -1);
  int64_t n = oracle_numel(&c->index), fibre = s[c->axis], inner = 1;
  for (int a = c->axis + 1; a < rank; a++) inner *= s[a];
  for (int64_t k = 0; k < n && fibre > 0; k++) {
    int64_t j = k / inner % fibre, base = k - j * inner; /* the fibre's first element */
    if (j != 0) continue;
    int64_t perm[16];
    oracle_permutation(r, perm, d);
    for (int64_t t = 0; t < fibre; t++)
      cuda_index_put(c->ix, base + t * inner, c->index_bits, perm[t]);
  }
  snprintf(c->name, sizeof c->name, "unique scatter %d", iter);
}

/* Hostile call `h`: value cuda_hostile[h / 8] at a random element of a [6, 4]
 * index, in each index width, gather and scatter, with and without wrap;
 * false where the value is valid there (-1 and -5 wrap into [0, 5)). */
static inline bool cuda_index_hostile(cuda_index_case *c, oracle_rng *r, int h) {
  int64_t s[2] = {6, 4}, o[2] = {5, 4};
  c->index_bits = h % 2 ? 64 : 32;
  c->scatter = (h / 2) % 2;
  c->flags = (h / 4) % 2 ? NDX_INDEX_WRAP : 0;
  int64_t v = c->index_bits == 32 ? (int64_t)(int32_t)cuda_hostile[h / 8] : cuda_hostile[h / 8];
  if (oracle_index_coord(v, 5, c->flags) >= 0) return false;
  c->axis = 0;
  c->bits = 32;
  c->internal = 0;
  c->index = cuda_contig(2, s);
  c->dst = cuda_contig(2, c->scatter ? o : s);
  c->src = cuda_contig(2, c->scatter ? s : o);
  cuda_index_values(c, r, 0, 4);
  cuda_index_put(c->ix, oracle_between(r, 0, 23), c->index_bits, v);
  snprintf(c->name, sizeof c->name, "hostile value %lld", (long long)v);
  return true;
}

/* A 1-d index of n unsqueezed on axis 1 and broadcast to [n, dim]. */
static inline ndx_layout cuda_index_rows(int64_t n, int64_t dim) {
  ndx_layout ids = cuda_contig(1, &n), col, out;
  int64_t shape[2] = {n, dim};
  if (ndx_unsqueeze(&col, &ids, 1) != NDX_OK || ndx_broadcast(&out, &col, 2, shape) != NDX_OK)
    abort();
  return out;
}

/* Named call `k`: per width, an embedding lookup (a broadcast index), three
 * KV-cache writes (unique with and without the promise, duplicates) and a
 * take_along_axis with wrapped indices; the 64-bit kernels at every other
 * width. */
static inline void cuda_index_named(cuda_index_case *c, oracle_rng *r, int k) {
  static const int32_t unique[9] = {3, 0, 19, 7, 8, 1, 12, 4, 15};
  static const int32_t dup[9] = {3, 3, 5, 3, 5, 0, 19, 19, 3};
  int kind = k / 8;
  c->bits = cuda_widths[k % 8];
  c->internal = k % 2 ? NDX_CUDA_INDEX_WIDE : 0;
  c->axis = 0;
  c->flags = 0;
  c->index_bits = 32;
  if (kind == 0) { /* embedding: 300 tokens of a [1000, 64] table */
    int64_t t[2] = {1000, 64}, d[2] = {300, 64}, ntok = 300;
    c->scatter = false;
    c->index = cuda_index_rows(300, 64);
    c->src = cuda_contig(2, t);
    c->dst = cuda_contig(2, d);
    ndx_layout ids = cuda_contig(1, &ntok);
    ndx_layout keep = c->index;
    c->index = ids;
    cuda_index_values(c, r, 0, 999);
    c->index = keep;
    snprintf(c->name, sizeof c->name, "embedding lookup");
  } else if (kind <= 3) { /* 9 new rows of 16 into 20 slots */
    int64_t rows[2] = {9, 16}, cache[2] = {20, 16};
    c->scatter = true;
    c->flags = kind == 1 ? NDX_INDEX_UNIQUE : 0;
    c->index = cuda_index_rows(9, 16);
    c->src = cuda_contig(2, rows);
    c->dst = cuda_contig(2, cache);
    c->ix_bytes = sizeof unique;
    c->ix = (uint8_t *)malloc(c->ix_bytes);
    if (!c->ix) abort();
    memcpy(c->ix, kind == 3 ? dup : unique, sizeof unique);
    snprintf(c->name, sizeof c->name, "kv-cache rows%s",
             kind == 1   ? ", unique"
             : kind == 3 ? ", duplicates"
                         : "");
  } else { /* take_along_axis on the inner axis of [33, 40], wrapped */
    int64_t s[2] = {33, 40};
    c->scatter = false;
    c->axis = 1;
    c->flags = NDX_INDEX_WRAP;
    c->index_bits = 64;
    c->index = c->dst = c->src = cuda_contig(2, s);
    cuda_index_values(c, r, -40, 39);
    snprintf(c->name, sizeof c->name, "take_along_axis, wrapped");
  }
}

/* Case k of the list, 0 <= k < CUDA_INDEX_CASES; false for a hostile slot
 * that is no fault (then nothing is allocated). */
static inline bool cuda_index_case_make(int k, cuda_index_case *c) {
  oracle_rng r = {(uint64_t)k * 7919u + 17u};
  memset(c, 0, sizeof *c);
  if (k < 2 * CUDA_INDEX_RANDOM) {
    cuda_index_random(c, &r, k % CUDA_INDEX_RANDOM, k >= CUDA_INDEX_RANDOM);
    return true;
  }
  k -= 2 * CUDA_INDEX_RANDOM;
  if (k < CUDA_INDEX_UNIQUE) {
    cuda_index_unique(c, &r, k);
    return true;
  }
  k -= CUDA_INDEX_UNIQUE;
  if (k < CUDA_INDEX_HOSTILE) return cuda_index_hostile(c, &r, k);
  cuda_index_named(c, &r, k - CUDA_INDEX_HOSTILE);
  return true;
}

static inline void cuda_index_case_free(cuda_index_case *c) {
  free(c->ix);
  c->ix = NULL;
}

/* ---- The reference and the verdict ---------------------------------------------- */

/* Host buffers of a call: dst as filled, src, and the reference applied to
 * dst (want); bad, value: the reference's fault (-1: none). */
typedef struct cuda_index_bufs {
  uint8_t *dst, *src, *want;
  size_t nd, ns;
  int64_t bad, value;
} cuda_index_bufs;

static inline void cuda_index_prepare(const cuda_index_case *c, uint64_t seed, cuda_index_bufs *b) {
  b->nd = cuda_index_bytes(&c->dst, c->bits);
  b->ns = cuda_index_bytes(&c->src, c->bits);
  b->dst = (uint8_t *)malloc(b->nd);
  b->src = (uint8_t *)malloc(b->ns);
  b->want = (uint8_t *)malloc(b->nd);
  if (!b->dst || !b->src || !b->want) abort();
  cuda_fill(b->dst, b->nd, seed);
  cuda_fill(b->src, b->ns, seed + 1);
  memcpy(b->want, b->dst, b->nd);
  b->value = 0;
  b->bad = oracle_index_copy(c->scatter, b->want, &c->dst, b->src, &c->src, c->axis, c->ix,
                             &c->index, c->index_bits, c->flags, c->bits, &b->value);
}

static inline void cuda_index_release(cuda_index_bufs *b) {
  free(b->dst);
  free(b->src);
  free(b->want);
}

static inline const char *cuda_index_describe(char *buf, size_t size, const cuda_index_case *c) {
  char d[400], s[400], i[400];
  snprintf(buf, size, "%s: %s %d-bit, axis %d, %d-bit index, flags %u%s: dst %s src %s index %s",
           c->name, c->scatter ? "scatter" : "gather", c->bits, c->axis, c->index_bits, c->flags,
           c->internal ? ", 64-bit kernels" : "", oracle_describe(d, sizeof d, &c->dst),
           oracle_describe(s, sizeof s, &c->src), oracle_describe(i, sizeof i, &c->index));
  return buf;
}

/* The verdict on a call: `got` (the destination buffer after it) is the
 * reference, byte for byte; `check` (what the check returned, with `msg`
 * its message) is NDX_OK without a fault, else NDX_ERANGE naming an element
 * whose value really is out of range. True, or false with why. */
static inline bool cuda_index_verdict(const cuda_index_case *c, const cuda_index_bufs *b,
                                      const uint8_t *got, ndx_status check, const char *msg,
                                      char *why, size_t size) {
  char desc[1400];
  int64_t at = cuda_first_difference(got, b->want, b->nd);
  if (at >= 0) {
    snprintf(why, size, "byte %lld of %zu is 0x%02x, want 0x%02x: %s", (long long)at, b->nd,
             got[at], b->want[at], cuda_index_describe(desc, sizeof desc, c));
    return false;
  }
  if (b->bad < 0) {
    if (check == NDX_OK) return true;
    snprintf(why, size, "no fault, but the check returned %s: %s: %s", ndx_status_name(check), msg,
             cuda_index_describe(desc, sizeof desc, c));
    return false;
  }
  if (check != NDX_ERANGE) {
    snprintf(why, size, "the fault at element %lld (value %lld) is reported as %s: %s: %s",
             (long long)b->bad, (long long)b->value, ndx_status_name(check), msg,
             cuda_index_describe(desc, sizeof desc, c));
    return false;
  }
  const ndx_layout *indexed = c->scatter ? &c->dst : &c->src;
  const char *wrong = oracle_fault_message_wrong(msg, &c->index, c->ix, c->index_bits,
                                                 indexed->shape[c->axis], c->flags);
  if (wrong) {
    snprintf(why, size, "the message does not name a bad index value: %s: %s: %s", wrong, msg,
             cuda_index_describe(desc, sizeof desc, c));
    return false;
  }
  return true;
}

#endif /* NDX_TEST_CUDA_INDEX_CASES_H */
