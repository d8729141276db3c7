/* test_pack.c: the packed device form (ndx_pack.h): its size and version, the
 * choice of the 32-bit form, exact magic division, and that packing a copy
 * keeps every (source, destination) pair while normalizing its order. Packs
 * are decoded here from the word indices alone, independently of
 * ndx_device.h, except where the device header's division is under test. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ndx/ndx_pack.h"
#include "oracle.h"
#include "suite.h"

#define NDX_WIDE 0
#include "ndx/ndx_device.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx/ndx_device.h"

#define PACK_WORDS (NDX_PACK_MAX_BYTES(NDX_PACK_MAX_OPS, NDX_MAX_RANK) / 8)

/* Word i of a pack, whatever its form. */
static int64_t word(const ndx_pack_head *h, int i) {
  const unsigned char *w = (const unsigned char *)(h + 1);
  if (h->wide) {
    int64_t v;
    memcpy(&v, w + 8 * i, 8);
    return v;
  }
  int32_t v;
  memcpy(&v, w + 4 * i, 4);
  return v;
}

#define EXTENT(h, a) word(h, NDX_PACK_EXTENT((h)->nops, (h)->rank, a))
#define STRIDE(h, k, a) word(h, NDX_PACK_STRIDE((h)->nops, (h)->rank, k, a))
#define OFFSET(h, k) word(h, NDX_PACK_OFFSET((h)->nops, (h)->rank, k))

/* Position of operand k at C-order index i of the pack, by the definition. */
static int64_t pack_position(const ndx_pack_head *h, int k, int64_t i) {
  int64_t pos = OFFSET(h, k);
  for (int a = (int)h->rank - 1; a >= 0; a--) {
    int64_t d = EXTENT(h, a);
    pos += (i % d) * STRIDE(h, k, a);
    i /= d;
  }
  return pos;
}

static int cmp_pairs(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] != y[1] ? (x[1] < y[1] ? -1 : 1) : 0;
}

/* ---- Size, version, form ------------------------------------------------- */

Test(pack, size_grows_with_rank_and_records_version) {
  int64_t shape[NDX_MAX_RANK];
  size_t prev = 0;
  for (int r = 1; r <= 12; r++) {
    for (int a = 0; a < r; a++) shape[a] = 2;
    /* a full reversal of axis order never coalesces */
    ndx_layout d = contiguous(r, shape), s;
    int32_t perm[NDX_MAX_RANK];
    for (int a = 0; a < r; a++) perm[a] = r - 1 - a;
    cr_assert_eq(ndx_permute(&s, &d, perm), NDX_OK);
    uint64_t buf[PACK_WORDS];
    size_t used = 0;
    cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &used, &d, &s, 8), NDX_OK, "%s", ndx_last_error());
    const ndx_pack_head *h = (const ndx_pack_head *)buf;
    int rank = r == 1 ? 1 : r;
    cr_assert_eq(h->version, NDX_PACK_VERSION);
    cr_assert_eq(h->rank, (uint32_t)rank);
    cr_assert_eq(h->nops, 2u);
    cr_assert_eq(h->bits, 8u);
    cr_assert_eq(h->wide, 0u);
    cr_assert_eq(h->numel, INT64_C(1) << r);
    cr_assert_eq(used, 32 + 4 * (size_t)(2 + rank * 5), "rank %d: %zu bytes", r, used);
    cr_assert_eq(h->size, used);
    cr_assert_gt(used, prev);
    prev = used;
    size_t wide_used;
    cr_assert_eq(ndx_pack_widen(buf, sizeof buf, &wide_used), NDX_OK);
    cr_assert_eq(wide_used, 32 + 8 * (size_t)(2 + rank * 5));
    cr_assert_eq(h->wide, 1u);
    cr_assert_eq(h->size, wide_used);
  }
}

static unsigned pack_wide(const ndx_layout *d, const ndx_layout *s) {
  uint64_t buf[PACK_WORDS];
  size_t used;
  cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &used, d, s, 8), NDX_OK, "%s", ndx_last_error());
  return ((const ndx_pack_head *)buf)->wide;
}

Test(pack, narrow_form_exactly_when_positions_and_numel_fit_int32) {
  const int64_t M = INT32_MAX; /* 2^31 - 1, the largest int32 */
  ndx_layout at_m = make(0, NULL, NULL, M), past_m = make(0, NULL, NULL, M + 1);
  ndx_layout at_0 = make(0, NULL, NULL, 0);
  cr_assert_eq(pack_wide(&at_m, &at_0), 0u, "a destination offset of 2^31-1 fits");
  cr_assert_eq(pack_wide(&past_m, &at_0), 1u, "a destination offset of 2^31 does not");
  cr_assert_eq(pack_wide(&at_0, &past_m), 1u, "nor a source offset of 2^31");

  /* a big stride on two elements: positions 0 and M, then 0 and M + 1 */
  ndx_layout two = contiguous(1, (int64_t[]){2});
  ndx_layout big = make(1, (int64_t[]){2}, (int64_t[]){M}, 0);
  ndx_layout bigger = make(1, (int64_t[]){2}, (int64_t[]){M + 1}, 0);
  cr_assert_eq(pack_wide(&two, &big), 0u);
  cr_assert_eq(pack_wide(&two, &bigger), 1u, "a span just past 2^31 elements");
  cr_assert_eq(pack_wide(&bigger, &two), 1u, "the destination counts too");
  /* the same, walking backwards */
  ndx_layout back = make(1, (int64_t[]){2}, (int64_t[]){-M}, M);
  ndx_layout back_past = make(1, (int64_t[]){2}, (int64_t[]){-(M + 1)}, M + 1);
  cr_assert_eq(pack_wide(&two, &back), 0u);
  cr_assert_eq(pack_wide(&two, &back_past), 1u);
  /* a broadcast source over M and M + 1 elements: numel decides */
  ndx_layout dst_m = contiguous(1, (int64_t[]){M}), dst_m1 = contiguous(1, (int64_t[]){M + 1});
  ndx_layout bc_m = make(1, (int64_t[]){M}, (int64_t[]){0}, 0);
  ndx_layout bc_m1 = make(1, (int64_t[]){M + 1}, (int64_t[]){0}, 0);
  cr_assert_eq(pack_wide(&dst_m, &bc_m), 0u);
  cr_assert_eq(pack_wide(&dst_m1, &bc_m1), 1u, "2^31 elements");
  /* a small 2-d broadcast whose source reaches 2^31 */
  ndx_layout d6 = contiguous(2, (int64_t[]){3, 2});
  ndx_layout s6 = make(2, (int64_t[]){3, 2}, (int64_t[]){INT64_C(1) << 30, 0}, 0);
  cr_assert_eq(pack_wide(&d6, &s6), 1u);
  ndx_layout s6n = make(2, (int64_t[]){3, 2}, (int64_t[]){(INT64_C(1) << 30) - 1, 0}, 0);
  cr_assert_eq(pack_wide(&d6, &s6n), 0u);
}

/* ---- Magic division ------------------------------------------------------- */

static void check_div(int nbits, int64_t d, uint64_t n) {
  uint64_t m;
  int l;
  cr_assert(ndx_pack_magic(d, nbits, &m, &l), "magic for %lld", (long long)d);
  uint64_t q = nbits == 64 ? (uint64_t)ndx_div_w64((int64_t)n, m, l)
                           : (uint64_t)(uint32_t)ndx_div_w32((int32_t)n, (uint32_t)m, l);
  cr_assert_eq(q, n / (uint64_t)d, "%d-bit: %llu / %lld gave %llu", nbits, (unsigned long long)n,
               (long long)d, (unsigned long long)q);
}

static void check_divisor(oracle_rng *r, int nbits, int64_t d) {
  uint64_t max = nbits == 64 ? (UINT64_C(1) << 62) - 1 : (UINT64_C(1) << 31) - 1;
  uint64_t edges[] = {0, 1, (uint64_t)d - 1, (uint64_t)d, (uint64_t)d + 1, max, max - 1};
  for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
    if (edges[i] <= max) check_div(nbits, d, edges[i]);
  for (uint64_t k = 1; k < 64; k++) {
    if ((uint64_t)d > max / (k + 1)) break;
    check_div(nbits, d, (uint64_t)d * k - 1);
    check_div(nbits, d, (uint64_t)d * k);
    check_div(nbits, d, (uint64_t)d * k + 1);
  }
  for (int i = 0; i < 200; i++) check_div(nbits, d, oracle_next(r) % (max + 1));
}

Test(pack, magic_division_is_exact) {
  oracle_rng r = {42};
  int64_t fixed[] = {1, 2, 3, 5, 7, 10, 641, 6700417, INT32_MAX - 1, INT32_MAX};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
    check_divisor(&r, 32, fixed[i]);
    check_divisor(&r, 64, fixed[i]);
  }
  int64_t wide_only[] = {INT64_C(1) << 31, (INT64_C(1) << 31) + 1, (INT64_C(1) << 53) - 1,
                         INT64_C(1) << 53, 3 * (INT64_C(1) << 40) + 7};
  for (size_t i = 0; i < sizeof wide_only / sizeof *wide_only; i++)
    check_divisor(&r, 64, wide_only[i]);
  for (int b = 0; b <= 53; b++) { /* powers of two and their neighbours */
    int64_t p = INT64_C(1) << b;
    check_divisor(&r, 64, p);
    if (p > 1) check_divisor(&r, 64, p - 1);
    if (p < NDX_MAX_NUMEL) check_divisor(&r, 64, p + 1);
    if (p <= INT32_MAX) check_divisor(&r, 32, p);
  }
  for (int i = 0; i < 2000; i++) {
    int64_t d = 1 + (int64_t)(oracle_next(&r) >> (11 + oracle_next(&r) % 53));
    check_divisor(&r, 64, d);
    int64_t d32 = 1 + (int64_t)(oracle_next(&r) >> (33 + oracle_next(&r) % 31));
    check_divisor(&r, 32, d32);
  }
}

Test(pack, magic_refuses_what_it_cannot_divide) {
  uint64_t m = 7;
  int l = 9;
  cr_assert_not(ndx_pack_magic(0, 64, &m, &l), "never a divider for 0");
  cr_assert_not(ndx_pack_magic(-3, 64, &m, &l));
  cr_assert_not(ndx_pack_magic(NDX_MAX_NUMEL + 1, 64, &m, &l));
  cr_assert_not(ndx_pack_magic(INT64_C(1) << 31, 32, &m, &l));
  cr_assert_not(ndx_pack_magic(5, 16, &m, &l));
  cr_assert_eq(m, 7u);
  cr_assert_eq(l, 9);
}

Test(pack, empty_copy_has_no_divider) {
  ndx_layout d = contiguous(3, (int64_t[]){4, 0, 5});
  uint64_t buf[PACK_WORDS];
  size_t used;
  cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &used, &d, &d, 32), NDX_OK);
  const ndx_pack_head *h = (const ndx_pack_head *)buf;
  cr_assert_eq(h->numel, 0);
  cr_assert_eq(h->rank, 1u);
  cr_assert_eq(EXTENT(h, 0), 0);
  cr_assert_eq(word(h, NDX_PACK_MAGIC(2, 1, 0)), 0);
  cr_assert_eq(word(h, NDX_PACK_SHIFT(2, 1, 0)), 0);
}

Test(pack, magic_words_are_those_of_the_form) {
  ndx_layout d = contiguous(2, (int64_t[]){7, 3}), c = contiguous(2, (int64_t[]){3, 7}), s;
  cr_assert_eq(ndx_transpose(&s, &c, 0, 1), NDX_OK);
  uint64_t buf[PACK_WORDS];
  size_t used;
  cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &used, &d, &s, 16), NDX_OK);
  const ndx_pack_head *h = (const ndx_pack_head *)buf;
  for (int wide = 0; wide < 2; wide++) {
    cr_assert_eq(h->wide, (uint32_t)wide);
    for (int a = 0; a < 2; a++) {
      uint64_t m;
      int l;
      cr_assert(ndx_pack_magic(EXTENT(h, a), wide ? 64 : 32, &m, &l));
      uint64_t got = (uint64_t)word(h, NDX_PACK_MAGIC(2, 2, a));
      if (!wide) got &= 0xffffffffu;
      cr_assert_eq(got, m);
      cr_assert_eq(word(h, NDX_PACK_SHIFT(2, 2, a)), l);
    }
    cr_assert_eq(ndx_pack_widen(buf, sizeof buf, &used), NDX_OK);
  }
}

/* ---- Normalization keeps every pair -------------------------------------- */

/* Checks that the pack in `buf` maps index i to the same (dst, src) pairs as
 * the layouts do, as multisets. */
static void check_pairs(const ndx_pack_head *h, const ndx_layout *d, const ndx_layout *s) {
  int64_t n = oracle_numel(d);
  cr_assert_eq(h->numel, n);
  int64_t *want = malloc(sizeof(int64_t) * 2 * (size_t)(n + 1));
  int64_t *got = malloc(sizeof(int64_t) * 2 * (size_t)(n + 1));
  int64_t index[NDX_MAX_RANK];
  for (int64_t i = 0; i < n; i++) {
    oracle_unravel(d->rank, d->shape, i, index);
    want[2 * i] = oracle_position(d, index);
    want[2 * i + 1] = oracle_position(s, index);
    got[2 * i] = pack_position(h, 0, i);
    got[2 * i + 1] = pack_position(h, 1, i);
  }
  qsort(want, (size_t)n, 2 * sizeof(int64_t), cmp_pairs);
  qsort(got, (size_t)n, 2 * sizeof(int64_t), cmp_pairs);
  for (int64_t i = 0; i < 2 * n; i++) cr_assert_eq(got[i], want[i], "pair %lld", (long long)i / 2);
  free(want);
  free(got);
}

Test(pack, copy_normalization_keeps_every_pair) {
  oracle_rng r = {7};
  for (int iter = 0; iter < 3000; iter++) {
    int rank = (int)oracle_between(&r, 0, 6);
    int64_t shape[NDX_MAX_RANK];
    for (int a = 0; a < rank; a++) shape[a] = oracle_between(&r, iter % 50 == 0 ? 0 : 1, 4);
    bool distinct = iter % 2 == 0;
    ndx_layout d = distinct ? random_distinct(&r, rank, shape) : random_like(&r, rank, shape, 6);
    ndx_layout s =
        iter % 3 == 0 ? random_distinct(&r, rank, shape) : random_like(&r, rank, shape, 6);
    uint64_t buf[PACK_WORDS];
    size_t used;
    int bits = 1 << oracle_between(&r, 0, 7);
    cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &used, &d, &s, bits), NDX_OK, "%s",
                 ndx_last_error());
    const ndx_pack_head *h = (const ndx_pack_head *)buf;
    cr_assert_eq(h->bits, (uint32_t)bits);
    check_pairs(h, &d, &s);
    /* destination strides non-negative, non-increasing */
    for (int a = 0; a < (int)h->rank; a++) {
      cr_assert_geq(STRIDE(h, 0, a), 0);
      if (a > 0) cr_assert_geq(STRIDE(h, 0, a - 1), STRIDE(h, 0, a));
    }
    /* a distinct destination is visited in increasing position */
    if (ndx_is_distinct(&d))
      for (int64_t i = 1; i < h->numel; i++)
        cr_assert_lt(pack_position(h, 0, i - 1), pack_position(h, 0, i));
    /* permuting and widening keep the pairs too */
    int32_t perm[NDX_MAX_RANK];
    for (int a = 0; a < (int)h->rank; a++) perm[a] = (int32_t)((int)h->rank - 1 - a);
    cr_assert_eq(ndx_pack_permute(buf, perm), NDX_OK);
    check_pairs(h, &d, &s);
    cr_assert_eq(ndx_pack_widen(buf, sizeof buf, &used), NDX_OK);
    check_pairs(h, &d, &s);
  }
}

Test(pack, normalization_flips_and_sorts_for_the_destination) {
  /* dst: a transposed, flipped 3x4; src: C order. */
  ndx_layout c = contiguous(2, (int64_t[]){4, 3}), t, d;
  cr_assert_eq(ndx_transpose(&t, &c, 0, 1), NDX_OK); /* [3,4] strides [1,3] */
  cr_assert_eq(ndx_flip(&d, &t, 1), NDX_OK);         /* strides [1,-3] offset 9 */
  ndx_layout s = contiguous(2, (int64_t[]){3, 4});
  uint64_t buf[PACK_WORDS];
  size_t used;
  cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &used, &d, &s, 8), NDX_OK);
  const ndx_pack_head *h = (const ndx_pack_head *)buf;
  cr_assert_eq(h->rank, 2u);
  /* axes now: old axis 1 (flipped, dst stride 3) then old axis 0 (dst 1) */
  cr_assert_eq(EXTENT(h, 0), 4);
  cr_assert_eq(EXTENT(h, 1), 3);
  cr_assert_eq(STRIDE(h, 0, 0), 3);
  cr_assert_eq(STRIDE(h, 0, 1), 1);
  cr_assert_eq(OFFSET(h, 0), 0);
  cr_assert_eq(STRIDE(h, 1, 0), -1);
  cr_assert_eq(STRIDE(h, 1, 1), 4);
  cr_assert_eq(OFFSET(h, 1), 3);
}

Test(pack, normalization_merges_what_sorting_makes_adjacent) {
  /* dst is a full permutation of a contiguous [2,3,4] with the same
   * permutation applied to src: after sorting both are contiguous, 1-d */
  ndx_layout c = contiguous(3, (int64_t[]){2, 3, 4}), d;
  cr_assert_eq(ndx_permute(&d, &c, (int32_t[]){2, 0, 1}), NDX_OK);
  uint64_t buf[PACK_WORDS];
  size_t used;
  cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &used, &d, &d, 64), NDX_OK);
  const ndx_pack_head *h = (const ndx_pack_head *)buf;
  cr_assert_eq(h->rank, 1u);
  cr_assert_eq(EXTENT(h, 0), 24);
  cr_assert_eq(STRIDE(h, 0, 0), 1);
  cr_assert_eq(STRIDE(h, 1, 0), 1);
}

Test(pack, general_pack_keeps_order_of_three_operands) {
  oracle_rng r = {99};
  for (int iter = 0; iter < 500; iter++) {
    int rank = (int)oracle_between(&r, 0, 5);
    int64_t shape[NDX_MAX_RANK];
    for (int a = 0; a < rank; a++) shape[a] = oracle_between(&r, 0, 4);
    ndx_layout ls[3];
    for (int k = 0; k < 3; k++) ls[k] = random_like(&r, rank, shape, 5);
    uint64_t buf[PACK_WORDS];
    size_t used;
    cr_assert_eq(ndx_pack(buf, sizeof buf, &used, 3, ls, 4), NDX_OK, "%s", ndx_last_error());
    const ndx_pack_head *h = (const ndx_pack_head *)buf;
    cr_assert_eq(h->nops, 3u);
    cr_assert_eq(used, h->size);
    int64_t n = oracle_numel(&ls[0]), index[NDX_MAX_RANK];
    cr_assert_eq(h->numel, n);
    for (int64_t i = 0; i < n; i++) {
      oracle_unravel(rank, shape, i, index);
      for (int k = 0; k < 3; k++)
        cr_assert_eq(pack_position(h, k, i), oracle_position(&ls[k], index));
    }
  }
}

Test(pack, general_pack_coalesces_as_ndx_coalesce_does) {
  oracle_rng r = {31};
  for (int iter = 0; iter < 3000; iter++) {
    int rank = (int)oracle_between(&r, 0, 7), n = (int)oracle_between(&r, 1, 3);
    int64_t shape[NDX_MAX_RANK];
    for (int a = 0; a < rank; a++) shape[a] = oracle_between(&r, iter % 30 ? 1 : 0, 4);
    ndx_layout ls[3], c[3];
    for (int k = 0; k < n; k++)
      ls[k] = iter % 2 ? random_like(&r, rank, shape, 4) : random_distinct(&r, rank, shape);
    cr_assert_eq(ndx_coalesce(n, ls, c), NDX_OK);
    uint64_t buf[PACK_WORDS];
    size_t used;
    cr_assert_eq(ndx_pack(buf, sizeof buf, &used, n, ls, 8), NDX_OK);
    const ndx_pack_head *h = (const ndx_pack_head *)buf;
    cr_assert_eq((int)h->rank, c[0].rank);
    for (int k = 0; k < n; k++) {
      cr_assert_eq(OFFSET(h, k), c[k].offset);
      for (int a = 0; a < c[0].rank; a++) {
        cr_assert_eq(EXTENT(h, a), c[k].shape[a]);
        cr_assert_eq(STRIDE(h, k, a), c[k].strides[a]);
      }
    }
  }
}

/* ---- Refusals ------------------------------------------------------------------ */

Test(pack, refusals_write_nothing) {
  ndx_layout a = contiguous(2, (int64_t[]){3, 4}), b = contiguous(2, (int64_t[]){4, 3});
  uint64_t buf[PACK_WORDS];
  memset(buf, 0xab, sizeof buf);
  size_t used = 12345;
  cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &used, &a, &b, 8), NDX_EINVAL);
  cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &used, &a, &a, 3), NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), "bits is 3") != NULL, "%s", ndx_last_error());
  cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &used, &a, &a, 256), NDX_EINVAL);
  cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &used, NULL, &a, 8), NDX_EINVAL);
  cr_assert_eq(ndx_pack_copy(buf, sizeof buf, NULL, &a, &a, 8), NDX_EINVAL);
  cr_assert_eq(ndx_pack_copy(NULL, sizeof buf, &used, &a, &a, 8), NDX_EINVAL);
  cr_assert_eq(ndx_pack_copy((char *)buf + 4, sizeof buf - 8, &used, &a, &a, 8), NDX_EINVAL);
  cr_assert_eq(ndx_pack(buf, sizeof buf, &used, 0, &a, 8), NDX_EINVAL);
  cr_assert_eq(ndx_pack(buf, sizeof buf, &used, NDX_PACK_MAX_OPS + 1, &a, 8), NDX_EINVAL);
  /* c is not contiguous with a, so the pair stays 2-d: 32 + 4 * 12 bytes */
  ndx_layout c;
  cr_assert_eq(ndx_transpose(&c, &b, 0, 1), NDX_OK);
  cr_assert_eq(ndx_pack_copy(buf, 79, &used, &a, &c, 8), NDX_ERANGE);
  cr_assert(strstr(ndx_last_error(), "80") != NULL, "%s", ndx_last_error());
  for (size_t i = 0; i < sizeof buf; i++) cr_assert_eq(((unsigned char *)buf)[i], 0xab);
  cr_assert_eq(used, 12345u);
  cr_assert_eq(ndx_pack_copy(buf, 80, &used, &a, &c, 8), NDX_OK);
  cr_assert_eq(used, 80u);
  /* widening needs room for the wide form: 32 + 8 * 12 */
  unsigned char before[80];
  memcpy(before, buf, 80);
  cr_assert_eq(ndx_pack_widen(buf, 127, &used), NDX_ERANGE);
  cr_assert_eq(memcmp(before, buf, 80), 0);
  cr_assert_eq(ndx_pack_widen(buf, 128, &used), NDX_OK);
  cr_assert_eq(used, 128u);
  /* permutations */
  cr_assert_eq(ndx_pack_permute(buf, (int32_t[]){0, 0}), NDX_EINVAL);
  cr_assert_eq(ndx_pack_permute(buf, (int32_t[]){0, 2}), NDX_EINVAL);
  cr_assert_eq(ndx_pack_permute(NULL, (int32_t[]){0, 1}), NDX_EINVAL);
  ((ndx_pack_head *)buf)->version = 99;
  cr_assert_eq(ndx_pack_permute(buf, (int32_t[]){1, 0}), NDX_EINVAL);
  cr_assert_eq(ndx_pack_widen(buf, sizeof buf, &used), NDX_EINVAL);
}

/* ---- Cost: no allocation ---------------------------------------------------- */

/* Counts the allocations made while `counting` is set, by interposing the
 * allocator of this test process; not under AddressSanitizer, which owns the
 * allocator there. */
#if defined(__SANITIZE_ADDRESS__)
#define COUNT_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COUNT_ALLOCATIONS 0
#endif
#endif
#ifndef COUNT_ALLOCATIONS
#define COUNT_ALLOCATIONS 1
#endif
static int counting, allocations;
#if COUNT_ALLOCATIONS
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
void *malloc(size_t n) {
  if (counting) allocations++;
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
  if (counting) allocations++;
  return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
  if (counting) allocations++;
  return __libc_realloc(p, n);
}
#endif

Test(pack, packing_a_rank_8_pair_allocates_nothing) {
  int64_t shape[8] = {2, 3, 2, 3, 2, 3, 2, 3};
  ndx_layout d = contiguous(8, shape), s;
  cr_assert_eq(ndx_permute(&s, &d, (int32_t[]){7, 6, 5, 4, 3, 2, 1, 0}), NDX_OK);
  cr_assert_eq(ndx_permute(&s, &s, (int32_t[]){7, 6, 5, 4, 3, 2, 1, 0}), NDX_OK);
  ndx_layout t, c = contiguous(8, (int64_t[]){3, 2, 3, 2, 3, 2, 3, 2});
  cr_assert_eq(ndx_permute(&t, &c, (int32_t[]){7, 6, 5, 4, 3, 2, 1, 0}), NDX_OK);
  uint64_t buf[PACK_WORDS];
  size_t used;
  counting = 1;
  allocations = 0;
  ndx_status st = NDX_OK;
  for (int i = 0; i < 1000 && st == NDX_OK; i++)
    st = ndx_pack_copy(buf, sizeof buf, &used, &d, &t, 32);
  counting = 0;
  cr_assert_eq(st, NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(((ndx_pack_head *)buf)->rank, 8u);
  /* A warning would make Criterion exit non-zero: say it as a skip. */
  if (!COUNT_ALLOCATIONS)
    cr_skip_test("AddressSanitizer owns the allocator: allocations are counted in the plain build");
  cr_assert_eq(allocations, 0);
}
