/* test_device_host.c: ndx_device.h and kernels/ndx_copy_items.h compiled as
 * host C, both index forms, checked against the oracle's definition of a
 * position (offset + sum i*s) on millions of random indices: index to
 * position, multi-index to position, the odometer, the destination-range
 * count, bytes and bit shifts, loads and stores of every width, and the copy
 * bodies the kernels wrap, run here on host buffers, as many work-items as
 * the tile geometry counts, and compared byte for byte with a reference copy
 * that pre-fills the destination with a pattern. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "device/cl_tuning.h"
#include "host/copy_plan.h"
#include "ndx/ndx_pack.h"
#include "oracle.h"
#include "suite.h"

#define NDX_WIDE 0
#include "ndx_copy_items.h" /* ndx/ndx_device.h and the copy bodies */
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_copy_items.h"

#include "host/launch.h" /* after the copy bodies, which include ndx_device.h for each form */

#define PACK_WORDS (NDX_PACK_MAX_BYTES(NDX_PACK_MAX_OPS, NDX_MAX_RANK) / 8)

static void random_shape(oracle_rng *r, int rank, int64_t max_extent, int64_t *shape) {
  for (int a = 0; a < rank; a++) shape[a] = oracle_between(r, 1, max_extent);
}

/* ---- The two index forms ----------------------------------------------------- */
/* The checks below ask one question of both forms, so that every check runs
 * on the 32- and the 64-bit code: the pack's `wide` picks the form, in one
 * place for each question. */

/* The functions of one form that take and return 64-bit values. */
typedef struct form {
  int64_t (*count_below)(const ndx_pack_head *, int64_t);
  void (*span)(const ndx_pack_head *, int, int64_t *, int64_t *);
  void (*range_item)(const ndx_pack_head *, uint8_t *, const uint8_t *, int, int64_t, int64_t, int);
  void (*tile_item)(const ndx_launch *, uint8_t *, const uint8_t *, int, int64_t);
  void (*bytes)(const ndx_pack_head *, uint8_t *, const uint8_t *, int, int64_t, int64_t);
} form;

static const form forms[2] = {
    {ndx_count_below_w32, ndx_span_w32, ndx_copy_range_item_w32, ndx_copy_tile_item_w32,
     ndx_copy_bytes_w32},
    {ndx_count_below_w64, ndx_span_w64, ndx_copy_range_item_w64, ndx_copy_tile_item_w64,
     ndx_copy_bytes_w64},
};

static const form *form_of(const ndx_pack_head *h) {
  return &forms[h->wide];
}

/* The word-typed ones. */
static int64_t position(const ndx_pack_head *h, int k, int64_t i) {
  return h->wide ? ndx_position_w64(h, k, i) : ndx_position_w32(h, k, (int32_t)i);
}
static int64_t stride(const ndx_pack_head *h, int k, int a) {
  return h->wide ? ndx_stride_w64(h, k, a) : ndx_stride_w32(h, k, a);
}

/* ---- Index to position ----------------------------------------------------- */

Test(device_host, index_to_position_matches_the_definition) {
  oracle_rng r = {1};
  long checked = 0;
  for (int iter = 0; iter < 4000; iter++) {
    int rank = (int)oracle_between(&r, 0, 8), n = (int)oracle_between(&r, 1, 3);
    int64_t shape[NDX_MAX_RANK];
    random_shape(&r, rank, 6, shape);
    ndx_layout ls[3];
    for (int k = 0; k < n; k++) ls[k] = random_like(&r, rank, shape, 50);
    uint64_t buf[PACK_WORDS];
    size_t used;
    cr_assert_eq(ndx_pack(buf, sizeof buf, &used, n, ls, 8), NDX_OK, "%s", ndx_last_error());
    const ndx_pack_head *h = (const ndx_pack_head *)buf;
    int64_t numel = oracle_numel(&ls[0]), index[NDX_MAX_RANK];
    for (int form = 0; form < 2; form++) {
      for (int t = 0; t < 200; t++) {
        int64_t i = oracle_between(&r, 0, numel - 1);
        oracle_unravel(rank, shape, i, index);
        for (int k = 0; k < n; k++) {
          cr_assert_eq(position(h, k, i), oracle_position(&ls[k], index),
                       "form %d, operand %d, index %lld", form, k, (long long)i);
          checked++;
        }
      }
      cr_assert_eq(ndx_pack_widen(buf, sizeof buf, &used), NDX_OK);
    }
  }
  cr_assert_gt(checked, 2000000);
}

Test(device_host, big_positions_in_the_wide_form) {
  /* positions near 2^53 and extents past 2^31: only the 64-bit form holds them */
  int64_t shape[3] = {3, (INT64_C(1) << 31) + 5, 2};
  int64_t strides[3] = {INT64_C(1) << 50, -1, (INT64_C(1) << 40) + 3};
  ndx_layout d = make(3, shape, strides, (INT64_C(1) << 31) + 4);
  ndx_layout s = make(3, shape, (int64_t[]){0, 7, 1}, 0);
  ndx_layout ls[2] = {d, s};
  uint64_t buf[PACK_WORDS];
  size_t used;
  cr_assert_eq(ndx_pack(buf, sizeof buf, &used, 2, ls, 8), NDX_OK, "%s", ndx_last_error());
  const ndx_pack_head *h = (const ndx_pack_head *)buf;
  cr_assert_eq(h->wide, 1u);
  oracle_rng r = {5};
  int64_t index[3];
  for (int t = 0; t < 100000; t++) {
    int64_t i = oracle_between(&r, 0, oracle_numel(&d) - 1);
    oracle_unravel(3, shape, i, index);
    cr_assert_eq(ndx_position_w64(h, 0, i), oracle_position(&d, index));
    cr_assert_eq(ndx_position_w64(h, 1, i), oracle_position(&s, index));
  }
}

Test(device_host, multi_index_and_unravel) {
  oracle_rng r = {2};
  for (int iter = 0; iter < 3000; iter++) {
    int rank = (int)oracle_between(&r, 1, 8);
    int64_t shape[NDX_MAX_RANK];
    random_shape(&r, rank, 5, shape);
    ndx_layout ls[2] = {random_like(&r, rank, shape, 30), random_like(&r, rank, shape, 30)};
    uint64_t buf[PACK_WORDS];
    size_t used;
    cr_assert_eq(ndx_pack(buf, sizeof buf, &used, 2, ls, 16), NDX_OK);
    const ndx_pack_head *h = (const ndx_pack_head *)buf;
    int64_t numel = oracle_numel(&ls[0]);
    for (int t = 0; t < 100; t++) {
      int64_t i = oracle_between(&r, 0, numel - 1);
      int32_t ix32[NDX_PACK_MAX_RANK];
      int64_t ix64[NDX_PACK_MAX_RANK];
      ndx_unravel_w32(h, (int32_t)i, ix32);
      for (int k = 0; k < 2; k++)
        cr_assert_eq(ndx_index_position_w32(h, k, ix32), ndx_position_w32(h, k, (int32_t)i));
      /* the multi-index reads back as i in C order */
      int64_t back = 0;
      for (int a = 0; a < (int)h->rank; a++) back = back * ndx_extent_w32(h, a) + ix32[a];
      cr_assert_eq(back, i);
      (void)ix64;
    }
    cr_assert_eq(ndx_pack_widen(buf, sizeof buf, &used), NDX_OK);
    for (int t = 0; t < 100; t++) {
      int64_t i = oracle_between(&r, 0, numel - 1), ix[NDX_PACK_MAX_RANK];
      ndx_unravel_w64(h, i, ix);
      for (int k = 0; k < 2; k++)
        cr_assert_eq(ndx_index_position_w64(h, k, ix), ndx_position_w64(h, k, i));
    }
  }
}

Test(device_host, odometer_steps_through_c_order) {
  oracle_rng r = {3};
  for (int iter = 0; iter < 3000; iter++) {
    int rank = (int)oracle_between(&r, 0, 8);
    int64_t shape[NDX_MAX_RANK];
    random_shape(&r, rank, 4, shape);
    ndx_layout ls[2] = {random_like(&r, rank, shape, 9), random_like(&r, rank, shape, 9)};
    uint64_t buf[PACK_WORDS];
    size_t used;
    cr_assert_eq(ndx_pack(buf, sizeof buf, &used, 2, ls, 8), NDX_OK);
    const ndx_pack_head *h = (const ndx_pack_head *)buf;
    int64_t numel = oracle_numel(&ls[0]), index[NDX_MAX_RANK];
    int64_t i0 = oracle_between(&r, 0, numel - 1);
    ndx_odo_w32 o32;
    ndx_odo_w64 o64;
    ndx_odo_start_w32(h, &o32, (int32_t)i0);
    for (int64_t i = i0; i < numel; i++) {
      oracle_unravel(rank, shape, i, index);
      cr_assert_eq(o32.pos[0], oracle_position(&ls[0], index));
      cr_assert_eq(o32.pos[1], oracle_position(&ls[1], index));
      cr_assert_eq(ndx_odo_next_w32(h, &o32), i + 1 < numel, "wraps exactly at the end");
    }
    /* after the wrap the odometer is back at index 0 */
    cr_assert_eq(o32.pos[0], ls[0].offset);
    cr_assert_eq(ndx_pack_widen(buf, sizeof buf, &used), NDX_OK);
    ndx_odo_start_w64(h, &o64, i0);
    for (int64_t i = i0; i < numel; i++) {
      oracle_unravel(rank, shape, i, index);
      cr_assert_eq(o64.pos[0], oracle_position(&ls[0], index));
      cr_assert_eq(o64.pos[1], oracle_position(&ls[1], index));
      cr_assert_eq(ndx_odo_next_w64(h, &o64), i + 1 < numel);
    }
  }
}

Test(device_host, count_below_finds_the_index_range_of_positions) {
  oracle_rng r = {4};
  for (int iter = 0; iter < 3000; iter++) {
    int rank = (int)oracle_between(&r, 0, 6);
    int64_t shape[NDX_MAX_RANK];
    random_shape(&r, rank, 4, shape);
    ndx_layout d = random_distinct(&r, rank, shape), s = random_like(&r, rank, shape, 5);
    uint64_t buf[PACK_WORDS];
    size_t used;
    cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &used, &d, &s, 1), NDX_OK);
    const ndx_pack_head *h = (const ndx_pack_head *)buf;
    int64_t numel = oracle_numel(&d), lo, hi;
    int64_t *pos = malloc(sizeof(int64_t) * (size_t)numel);
    oracle_positions(&d, pos);
    ndx_span(&d, &lo, &hi);
    for (int form = 0; form < 2; form++) {
      for (int64_t P = lo - 2; P <= hi + 2; P += 1 + (hi - lo) / 40) {
        int64_t want = 0;
        for (int64_t k = 0; k < numel; k++) want += pos[k] < P;
        int64_t got = form_of(h)->count_below(h, P);
        cr_assert_eq(got, want, "P = %lld", (long long)P);
      }
      cr_assert_eq(ndx_pack_widen(buf, sizeof buf, &used), NDX_OK);
    }
    free(pos);
  }
}

/* ---- Bits, loads and stores ---------------------------------------------------- */

Test(device_host, byte_and_bit_of_a_position) {
  oracle_rng r = {6};
  for (int t = 0; t < 1000000; t++) {
    int bits = 1 << oracle_between(&r, 0, 7);
    int64_t p = oracle_between(&r, 0, NDX_MAX_NUMEL);
    cr_assert_eq(ndx_byte_of(p, bits), p * bits / 8);
    cr_assert_eq(ndx_shift_of(p, bits), (int)(p * bits % 8));
  }
  /* REFERENCE section 1: 4-bit element 2k is the low nibble of byte k */
  cr_assert_eq(ndx_byte_of(6, 4), 3);
  cr_assert_eq(ndx_shift_of(6, 4), 0);
  cr_assert_eq(ndx_shift_of(7, 4), 4);
  cr_assert_eq(ndx_shift_of(13, 1), 5);
}

static int ref_bit(const uint8_t *b, int64_t i) {
  return (b[i / 8] >> (i % 8)) & 1;
}
static void ref_set_bit(uint8_t *b, int64_t i, int v) {
  b[i / 8] = (uint8_t)((b[i / 8] & ~(1u << (i % 8))) | ((unsigned)v << (i % 8)));
}

Test(device_host, sub_byte_loads_and_stores_touch_only_their_bits) {
  oracle_rng r = {8};
  uint8_t buf[64], ref[64];
  for (int i = 0; i < 64; i++) buf[i] = ref[i] = (uint8_t)oracle_next(&r);
  for (int t = 0; t < 1000000; t++) {
    int bits = 1 << oracle_between(&r, 0, 2);
    int64_t p = oracle_between(&r, 0, 64 * 8 / bits - 1);
    uint32_t want = 0;
    for (int b = 0; b < bits; b++) want |= (uint32_t)ref_bit(ref, p * bits + b) << b;
    cr_assert_eq(ndx_load_bits(buf, p, bits), want);
    uint32_t v = (uint32_t)oracle_next(&r); /* high bits must be ignored */
    ndx_store_bits(buf, p, bits, v);
    for (int b = 0; b < bits; b++) ref_set_bit(ref, p * bits + b, (int)((v >> b) & 1));
    if (t % 1000 == 0) cr_assert_eq(memcmp(buf, ref, sizeof buf), 0, "store %d", t);
  }
  cr_assert_eq(memcmp(buf, ref, sizeof buf), 0);
}

Test(device_host, whole_byte_loads_and_stores) {
  _Alignas(16) uint8_t buf[256], ref[256];
  oracle_rng r = {9};
  for (int i = 0; i < 256; i++) buf[i] = ref[i] = (uint8_t)oracle_next(&r);
  for (int t = 0; t < 100000; t++) {
    int bytes = 1 << oracle_between(&r, 0, 4);
    int64_t p = oracle_between(&r, 0, 256 / bytes - 1);
    uint8_t v[16];
    for (int b = 0; b < 16; b++) v[b] = (uint8_t)oracle_next(&r);
    switch (bytes) {
    case 1:
      cr_assert_eq(ndx_load8(buf, p), ref[p]);
      ndx_store8(buf, p, v[0]);
      break;
    case 2: {
      uint16_t x, y;
      memcpy(&x, ref + 2 * p, 2);
      cr_assert_eq(ndx_load16(buf, p), x);
      memcpy(&y, v, 2);
      ndx_store16(buf, p, y);
      break;
    }
    case 4: {
      uint32_t x, y;
      memcpy(&x, ref + 4 * p, 4);
      cr_assert_eq(ndx_load32(buf, p), x);
      memcpy(&y, v, 4);
      ndx_store32(buf, p, y);
      break;
    }
    case 8: {
      uint64_t x, y;
      memcpy(&x, ref + 8 * p, 8);
      cr_assert_eq(ndx_load64(buf, p), x);
      memcpy(&y, v, 8);
      ndx_store64(buf, p, y);
      break;
    }
    default: {
      ndx_u128 x = ndx_load128(buf, p), y;
      uint64_t lo, hi;
      memcpy(&lo, ref + 16 * p, 8);
      memcpy(&hi, ref + 16 * p + 8, 8);
      cr_assert_eq(x.x, lo, "field x is the low half");
      cr_assert_eq(x.y, hi);
      memcpy(&y.x, v, 8);
      memcpy(&y.y, v + 8, 8);
      ndx_store128(buf, p, y);
      break;
    }
    }
    memcpy(ref + bytes * p, v, (size_t)bytes);
    cr_assert_eq(memcmp(buf, ref, sizeof buf), 0);
  }
}

/* ---- The copy routines, on host buffers ----------------------------------------- */

/* Bytes a buffer for `l` needs, plus `margin` (destinations get one, to
 * check that it stays untouched; sources none, so that AddressSanitizer sees
 * any read past the span). */
static size_t span_bytes(const ndx_layout *l, int bits, size_t margin) {
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  return (size_t)((hi * bits + 7) / 8) + margin;
}

enum routine { RANGE, RANGE_UNIT, TILE, BYTES };

/* The OpenCL runtime's work sizes (its cl_cpu_tuning, of cl_tuning.h). */
static const ndx_cpu_tuning cl_tuning = {.rows_bytes = NDX_CL_ROWS_BYTES,
                                         .gather_elems = NDX_CL_GATHER_ELEMS,
                                         .bytes_elems = NDX_CL_BYTES_ELEMS,
                                         .tile_elems = NDX_CL_TILE_ELEMS};

/* A routine's launch as the OpenCL runtime writes it: the descriptor, the
 * pack right after it (ndx_launch_pack). */
typedef struct launch {
  ndx_launch d;
  uint64_t pack[PACK_WORDS];
} launch;

/* Fills `l` for routine `rt` on the pack in `buf` of operands q (its pair
 * as packed) with `chunk` the work of a work-item, and returns its
 * work-items, as the runtimes count them: a transpose's tiles as the
 * planner makes them (ndx_launch_cpu); [*first, *end): the destination
 * bytes of a sub-byte one (BYTES), in the descriptor as the runtimes put
 * them. */
static int64_t launch_of(launch *l, enum routine rt, const uint64_t *buf, const ndx_operands *q,
                         int bits, int64_t chunk, int64_t *first, int64_t *end) {
  const ndx_pack_head *h = (const ndx_pack_head *)buf;
  memset(&l->d, 0, sizeof l->d);
  memcpy(l->pack, buf, sizeof l->pack);
  *first = *end = 0;
  if (rt == TILE) {
    ndx_copy_plan p = {.q = *q, .path = NDX_PATH_TRANSPOSE, .bits = bits};
    int64_t items;
    ndx_launch_cpu(&p, &cl_tuning, &l->d, &items);
    l->d.chunk = chunk;
    return ndx_ceil_div(l->d.units / l->d.row_units, chunk) * l->d.row_units;
  }
  l->d.chunk = chunk;
  if (rt == BYTES) {
    int64_t lo, hi;
    form_of(h)->span(h, 0, &lo, &hi);
    ndx_bytes_span(lo, hi, bits, first, end);
    l->d.first = *first, l->d.units = *end - *first;
    return (*end - *first + chunk - 1) / chunk;
  }
  return (h->numel + chunk - 1) / chunk;
}

/* Runs work-item `it` of routine `rt` launched as `l`. */
static void run_item(enum routine rt, const launch *l, uint8_t *dst, const uint8_t *src, int bits,
                     int64_t it) {
  const ndx_pack_head *h = (const ndx_pack_head *)l->pack;
  const form *f = form_of(h);
  switch (rt) {
  case RANGE:
  case RANGE_UNIT:
    f->range_item(h, dst, src, bits, it, l->d.chunk, rt == RANGE_UNIT);
    break;
  case TILE:
    f->tile_item(&l->d, dst, src, bits, it);
    break;
  case BYTES: {
    int64_t b0, b1;
    ndx_bytes_item(l->d.first, l->d.first + l->d.units, it, l->d.chunk, &b0, &b1);
    if (b0 < b1) f->bytes(h, dst, src, bits, b0, b1);
    break;
  }
  }
}

/* Runs one routine over all its work-items with `chunk`, and a few items
 * past the end, as a rounded-up grid has. */
static void run_routine(enum routine rt, const uint64_t *buf, const ndx_operands *q, uint8_t *dst,
                        const uint8_t *src, int bits, int64_t chunk) {
  launch l;
  int64_t first, end, items = launch_of(&l, rt, buf, q, bits, chunk, &first, &end);
  for (int64_t it = 0; it < items + 3; it++) run_item(rt, &l, dst, src, bits, it);
}

/* The operands of ndx_pack_copy's pack of (d, s), its axes reordered by
 * `perm` (NULL: as they are): what the planner reads. */
static ndx_operands operands_of(const ndx_layout *d, const ndx_layout *s, const int32_t *perm) {
  const ndx_layout *pair[2] = {d, s};
  ndx_operands o;
  ndx_operands_load(&o, 2, pair);
  ndx_operands_normalize(&o);
  if (perm) {
    int p[NDX_MAX_RANK];
    for (int a = 0; a < o.rank; a++) p[a] = perm[a];
    ndx_operands_permute(&o, p);
  }
  return o;
}

static void check_packed(oracle_rng *r, enum routine rt, uint64_t *buf, const ndx_operands *q,
                         const ndx_layout *d, const ndx_layout *s, int bits);

/* Checks `rt` on the pair (d, s) against the reference, in both forms. */
static void check_routine(oracle_rng *r, enum routine rt, const ndx_layout *d, const ndx_layout *s,
                          int bits) {
  uint64_t buf[PACK_WORDS];
  size_t used;
  cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &used, d, s, bits), NDX_OK, "%s", ndx_last_error());
  ndx_pack_head *h = (ndx_pack_head *)buf;
  if (h->numel == 0) return;
  if (rt == TILE) {
    if (h->rank < 2) return;
    /* any pair of axes last works; move a random one second-to-last */
    int32_t perm[NDX_PACK_MAX_RANK];
    int rank = (int)h->rank, t = (int)oracle_between(r, 0, rank - 2), k = 0;
    for (int a = 0; a < rank - 1; a++)
      if (a != t) perm[k++] = a;
    perm[k++] = t;
    perm[k++] = rank - 1;
    cr_assert_eq(ndx_pack_permute(buf, perm), NDX_OK);
    ndx_operands q = operands_of(d, s, perm);
    /* sub-byte tiles need destination rows that start on bytes */
    if (bits < 8 && !ndx_copy_tiles_own_bytes(&q, bits)) return;
    check_packed(r, rt, buf, &q, d, s, bits);
    return;
  }
  if (rt == RANGE_UNIT) {
    int in = (int)h->rank - 1;
    if (stride(h, 0, in) != 1 || stride(h, 1, in) != 1) return;
  }
  ndx_operands q = operands_of(d, s, NULL);
  check_packed(r, rt, buf, &q, d, s, bits);
}

/* Checks `rt` on the pack in `buf` (PACK_WORDS words) of the pair (d, s),
 * q its operands, against the reference, in both forms. */
static void check_packed(oracle_rng *r, enum routine rt, uint64_t *buf, const ndx_operands *q,
                         const ndx_layout *d, const ndx_layout *s, int bits) {
  size_t used, nd = span_bytes(d, bits, 16), ns = span_bytes(s, bits, 0);
  uint8_t *src = malloc(ns), *want = malloc(nd), *got = malloc(nd);
  for (size_t i = 0; i < ns; i++) src[i] = (uint8_t)oracle_next(r);
  for (size_t i = 0; i < nd; i++) want[i] = (uint8_t)(0x5a ^ i * 7);
  oracle_copy(want, d, src, s, bits, NULL); /* the reference every device suite uses */
  for (int form = 0; form < 2; form++) {
    int64_t chunk = oracle_between(r, 1, 40);
    for (size_t i = 0; i < nd; i++) got[i] = (uint8_t)(0x5a ^ i * 7);
    run_routine(rt, buf, q, got, src, bits, chunk);
    for (size_t i = 0; i < nd; i++)
      cr_assert_eq(got[i], want[i], "routine %d, form %d, %d bits, chunk %lld: byte %zu", rt, form,
                   bits, (long long)chunk, i);
    cr_assert_eq(ndx_pack_widen(buf, PACK_WORDS * sizeof *buf, &used), NDX_OK);
  }
  free(src);
  free(want);
  free(got);
}

Test(device_host, copy_routines_match_the_reference) {
  oracle_rng r = {10};
  for (int iter = 0; iter < 1500; iter++) {
    int rank = (int)oracle_between(&r, 0, 5);
    int64_t shape[NDX_MAX_RANK];
    for (int a = 0; a < rank; a++) shape[a] = oracle_between(&r, iter % 40 ? 1 : 0, 7);
    ndx_layout d = random_distinct(&r, rank, shape);
    ndx_layout s = iter % 2 ? random_like(&r, rank, shape, 8) : random_distinct(&r, rank, shape);
    for (int w = 0; w < 8; w++) {
      int bits = 1 << w;
      if (bits < 8) {
        check_routine(&r, BYTES, &d, &s, bits);
        check_routine(&r, TILE, &d, &s, bits);
      } else {
        check_routine(&r, RANGE, &d, &s, bits);
        check_routine(&r, RANGE_UNIT, &d, &s, bits);
        check_routine(&r, TILE, &d, &s, bits);
      }
    }
  }
}

/* Transposes whose small tiles the batch axes next to them join
 * (ndx_launch_join), packed by the planner as the OpenCL runtime packs them:
 * the host build copies their tiles element by element, through the
 * two-level row offsets, in both forms. */
Test(device_host, grouped_tiles_match_the_reference) {
  oracle_rng r = {12};
  struct {
    int rank;
    int64_t shape[8];
    int32_t perm[8];
  } cases[] = {
      {4, {9, 16, 5, 16}, {3, 2, 1, 0}},
      {8, {2, 3, 4, 5, 2, 3, 4, 5}, {7, 1, 5, 3, 6, 0, 4, 2}},
  };
  ndx_copy_caps caps = {0};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    ndx_layout base, s, d;
    cr_assert_eq(ndx_contiguous(&base, cases[c].rank, cases[c].shape), NDX_OK);
    cr_assert_eq(ndx_permute(&s, &base, cases[c].perm), NDX_OK);
    cr_assert_eq(ndx_contiguous(&d, s.rank, s.shape), NDX_OK);
    for (int bits = 8; bits <= 64; bits *= 2) {
      ndx_copy_plan p;
      cr_assert_eq(ndx_copy_plan_make(&p, "test", &d, &s, bits, &caps, 0), NDX_OK);
      cr_assert_eq(p.path, NDX_PATH_TRANSPOSE);
      uint64_t buf[PACK_WORDS];
      cr_assert_eq(ndx_copy_plan_pack(&p, buf, sizeof buf), NDX_OK);
      ndx_launch l = {0};
      int64_t items;
      ndx_launch_cpu(&p, &cl_tuning, &l, &items);
      cr_assert_eq(l.batch_axes, p.q.rank - 4, "case %zu, %d bits: both tile axes join", c, bits);
      check_packed(&r, TILE, buf, &p.q, &d, &s, bits);
    }
  }
}

Test(device_host, copy_routines_on_unit_rows_and_full_tiles) {
  /* shapes where rows are long and tiles are whole (and not) */
  oracle_rng r = {11};
  int64_t shapes[][3] = {{3, 5, 64}, {2, 16, 24}, {1, 17, 9}, {4, 8, 8}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    ndx_layout d, s, c;
    cr_assert_eq(ndx_contiguous(&d, 3, shapes[i]), NDX_OK);
    int64_t ts[3] = {shapes[i][0], shapes[i][2], shapes[i][1]};
    cr_assert_eq(ndx_contiguous(&c, 3, ts), NDX_OK);
    cr_assert_eq(ndx_transpose(&s, &c, 1, 2), NDX_OK);
    int64_t pad[3] = {shapes[i][1] * (shapes[i][2] + 3), shapes[i][2] + 3, 1};
    ndx_layout padded = make(3, shapes[i], pad, 2);
    for (int w = 3; w < 8; w++) {
      check_routine(&r, TILE, &d, &s, 1 << w);
      check_routine(&r, RANGE, &d, &s, 1 << w);
      check_routine(&r, RANGE_UNIT, &padded, &d, 1 << w);
      check_routine(&r, RANGE, &padded, &d, 1 << w);
    }
    for (int w = 0; w < 3; w++) {
      check_routine(&r, BYTES, &d, &s, 1 << w);
      check_routine(&r, BYTES, &padded, &s, 1 << w);
      check_routine(&r, TILE, &d, &s, 1 << w);
      check_routine(&r, TILE, &padded, &s, 1 << w);
    }
  }
}

/* Sub-byte tiles big enough for whole word blocks (n x n elements, n =
 * 64/bits) next to edge bytes: destination rows of whole bytes, sources
 * contiguous, padded, at an odd element and flipped. */
Test(device_host, sub_byte_tiles_in_word_blocks) {
  oracle_rng r = {13};
  int64_t shapes[][3] = {{1, 72, 136}, {2, 136, 72}, {1, 264, 64}, {3, 16, 40}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    int64_t *sh = shapes[i], ts[3] = {sh[0], sh[2], sh[1]};
    ndx_layout d, c, s;
    cr_assert_eq(ndx_contiguous(&d, 3, sh), NDX_OK);
    cr_assert_eq(ndx_contiguous(&c, 3, ts), NDX_OK);
    cr_assert_eq(ndx_transpose(&s, &c, 1, 2), NDX_OK);
    ndx_layout odd = make(3, sh, (int64_t[]){sh[1] * sh[2] + 9, 1, sh[1] + 1}, 3);
    ndx_layout flip = make(3, sh, (int64_t[]){sh[1] * sh[2], -1, sh[1]}, sh[1] - 1);
    for (int w = 0; w < 3; w++) {
      check_routine(&r, TILE, &d, &s, 1 << w);
      check_routine(&r, TILE, &d, &odd, 1 << w);
      check_routine(&r, TILE, &d, &flip, 1 << w);
    }
  }
}

/* Work-items run at once on a device, so no byte may be written by two of
 * them (a sequential run cannot show such a race): each item runs alone into
 * an all-0 and an all-1 buffer, and a byte it leaves at 0x00 and 0xff
 * respectively is one it did not write. A sub-byte item must write only its
 * own bytes [first + it*chunk, first + (it+1)*chunk). */
Test(device_host, no_byte_is_written_by_two_work_items) {
  oracle_rng r = {12};
  for (int iter = 0; iter < 600; iter++) {
    int rank = (int)oracle_between(&r, 1, 5);
    int64_t shape[NDX_MAX_RANK];
    random_shape(&r, rank, 7, shape);
    ndx_layout d = random_distinct(&r, rank, shape), s = random_like(&r, rank, shape, 6);
    int bits = 1 << oracle_between(&r, 0, 7);
    enum routine rt = bits >= 8       ? (enum routine)oracle_between(&r, 0, 2)
                      : iter % 3 == 0 ? BYTES
                                      : TILE;
    uint64_t buf[PACK_WORDS];
    size_t used;
    cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &used, &d, &s, bits), NDX_OK);
    ndx_pack_head *h = (ndx_pack_head *)buf;
    if (rt == TILE && h->rank < 2) rt = bits < 8 ? BYTES : RANGE;
    ndx_operands q = operands_of(&d, &s, NULL);
    if (rt == TILE && bits < 8 && !ndx_copy_tiles_own_bytes(&q, bits)) rt = BYTES;
    int in = (int)h->rank - 1; /* RANGE_UNIT promises unit innermost strides */
    if (rt == RANGE_UNIT && (stride(h, 0, in) != 1 || stride(h, 1, in) != 1)) rt = RANGE;
    if (iter % 2) cr_assert_eq(ndx_pack_widen(buf, sizeof buf, &used), NDX_OK);
    int64_t chunk = oracle_between(&r, 1, 9), first, end;
    launch l;
    int64_t items = launch_of(&l, rt, buf, &q, bits, chunk, &first, &end);
    size_t nd = span_bytes(&d, bits, 0), ns = span_bytes(&s, bits, 0);
    uint8_t *src = malloc(ns), *zeros = malloc(nd), *ones = malloc(nd);
    int64_t *owner = calloc(nd, sizeof *owner);
    for (size_t i = 0; i < ns; i++) src[i] = (uint8_t)oracle_next(&r);
    for (int64_t it = 0; it < items; it++) {
      memset(zeros, 0, nd);
      memset(ones, 0xff, nd);
      run_item(rt, &l, zeros, src, bits, it);
      run_item(rt, &l, ones, src, bits, it);
      for (size_t b = 0; b < nd; b++) {
        if (zeros[b] == 0 && ones[b] == 0xff) continue;
        cr_assert_eq(owner[b], 0, "routine %d, %d bits: byte %zu written by items %lld and %lld",
                     rt, bits, b, (long long)owner[b] - 1, (long long)it);
        owner[b] = it + 1;
        if (rt == BYTES) {
          cr_assert_geq((int64_t)b, first + it * chunk);
          cr_assert_lt((int64_t)b, first + (it + 1) * chunk);
        }
      }
    }
    free(src);
    free(zeros);
    free(ones);
    free(owner);
  }
}

/* ---- The copy planner both runtimes share ----------------------------------- */

static const ndx_copy_caps cl_like = {.rows_from_bytes = 1 << 20, .strided_runs = true};
static const ndx_copy_caps cuda_like = {.words_k = 32, .words_j = 8};

/* The plan of a copy between two layouts of `rank` axes made from their
 * extents and strides (offsets 0). */
static ndx_copy_plan plan_of(int rank, const int64_t *d, const int64_t *sd, const int64_t *ss,
                             int bits, const ndx_copy_caps *caps, unsigned flags) {
  ndx_layout dl, sl;
  cr_assert_eq(ndx_make(&dl, rank, d, sd, 0), NDX_OK);
  cr_assert_eq(ndx_make(&sl, rank, d, ss, 0), NDX_OK);
  ndx_copy_plan p;
  cr_assert_eq(ndx_copy_plan_make(&p, "test", &dl, &sl, bits, caps, flags), NDX_OK, "%s",
               ndx_last_error());
  return p;
}

static ndx_copy_path path_of(int rank, const int64_t *d, const int64_t *sd, const int64_t *ss,
                             int bits, const ndx_copy_caps *caps, unsigned flags) {
  return plan_of(rank, d, sd, ss, bits, caps, flags).path;
}

Test(copy_plan, the_capabilities_are_the_only_difference) {
  const int64_t one[] = {1}, three[] = {3}, row[] = {1000}, big[] = {1 << 20}, odd[] = {7},
                none[] = {0};
  /* contiguous: a buffer copy, or the rows kernel from rows_from_bytes on */
  cr_assert_eq(path_of(1, row, one, one, 32, &cl_like, 0), NDX_PATH_BUFFER);
  cr_assert_eq(path_of(1, big, one, one, 32, &cl_like, 0), NDX_PATH_ROWS);
  cr_assert_eq(path_of(1, big, one, one, 32, &cuda_like, 0), NDX_PATH_BUFFER);
  /* a broadcast row (source inner stride 0): the gather's strided runs, else a transpose */
  const int64_t d34[] = {3, 4}, c34[] = {4, 1}, bc[] = {1, 0};
  ndx_copy_plan g = plan_of(2, d34, c34, bc, 32, &cl_like, 0);
  cr_assert_eq(g.path, NDX_PATH_GATHER);
  cr_assert(g.strided_rows);
  cr_assert_eq(path_of(2, d34, c34, bc, 32, &cuda_like, 0), NDX_PATH_TRANSPOSE);
  /* a transpose and a strided copy choose alike in both */
  const int64_t d35[] = {3, 5}, c35[] = {5, 1}, t35[] = {1, 3}, s35[] = {7, 3};
  for (int k = 0; k < 2; k++) {
    const ndx_copy_caps *caps = k ? &cuda_like : &cl_like;
    cr_assert_eq(path_of(2, d35, c35, t35, 32, caps, 0), NDX_PATH_TRANSPOSE);
    /* 4-bit rows of 5 share bytes, and are too small for words: byte ranges */
    cr_assert_eq(path_of(2, d35, c35, t35, 4, caps, 0), NDX_PATH_BYTES);
    cr_assert_eq(path_of(2, d35, c35, s35, 32, caps, 0), NDX_PATH_GATHER);
    /* a source stride of 3: the odometer, by elements or by destination bytes */
    cr_assert_eq(path_of(1, row, one, three, 32, caps, 0), NDX_PATH_GATHER);
    cr_assert_eq(path_of(1, row, one, three, 4, caps, 0), NDX_PATH_BYTES);
    cr_assert_eq(path_of(1, odd, one, one, 4, caps, 0), NDX_PATH_BYTES);
    cr_assert_eq(path_of(1, none, one, one, 8, caps, 0), NDX_PATH_EMPTY);
  }
  /* sub-byte transposes: OpenCL's tiles where rows start on bytes, CUDA's
   * word tiles where the words fit */
  const int64_t d46[] = {4, 6}, c46[] = {6, 1}, t46[] = {1, 4};
  cr_assert_eq(path_of(2, d46, c46, t46, 4, &cl_like, 0), NDX_PATH_TRANSPOSE);
  cr_assert_eq(path_of(2, d46, c46, t46, 4, &cuda_like, 0), NDX_PATH_BYTES);
  const int64_t d64[] = {64, 64}, c64[] = {64, 1}, t64[] = {1, 64};
  ndx_copy_plan w = plan_of(2, d64, c64, t64, 16, &cuda_like, 0);
  cr_assert(w.path == NDX_PATH_TRANSPOSE && w.words);
  cr_assert(!plan_of(2, d64, c64, t64, 16, &cl_like, 0).words);
  /* source rows of an odd pitch start off a word: tiles of elements, or
   * below 8 bits destination byte ranges */
  const int64_t p65[] = {1, 65};
  w = plan_of(2, d64, c64, p65, 16, &cuda_like, 0);
  cr_assert(w.path == NDX_PATH_TRANSPOSE && !w.words);
  cr_assert_eq(path_of(2, d64, c64, p65, 4, &cuda_like, 0), NDX_PATH_BYTES);
  /* NDX_COPY_NO_WORDS (CUDA's edge strips and its plan for pointers off a
   * word) plans the same way where the words would fit */
  w = plan_of(2, d64, c64, t64, 16, &cuda_like, NDX_COPY_NO_WORDS);
  cr_assert(w.path == NDX_PATH_TRANSPOSE && !w.words);
  cr_assert_eq(path_of(2, d64, c64, t64, 4, &cuda_like, NDX_COPY_NO_WORDS), NDX_PATH_BYTES);
}

/* A transpose's batch axes end with the source's finest and then the
 * destination's finest, so that consecutive batches of a small tile fill
 * the lines it touches: [6,5,4,3,2] from the reverse of a [2,3,4,5,6] has
 * k = axis 0 (source stride 1) and j = axis 4; of the batch axes 1, 2, 3,
 * axis 1 has the source's finest stride (6) and axis 3 the destination's
 * (2), so the order is [2, 1, 3, 0, 4]. */
Test(copy_plan, small_tiles_batch_over_the_finest_axes_last) {
  const int64_t d[] = {6, 5, 4, 3, 2}, dst[] = {120, 24, 6, 2, 1}, src[] = {1, 6, 30, 120, 360};
  ndx_copy_plan p = plan_of(5, d, dst, src, 32, &cl_like, 0);
  cr_assert_eq(p.path, NDX_PATH_TRANSPOSE);
  /* [batch: dst axes 2, 1, 3; k: dst axis 0; j: dst axis 4] */
  const int64_t want_shape[] = {4, 5, 3, 6, 2}, want_dst[] = {6, 24, 2, 120, 1},
                want_src[] = {30, 6, 120, 1, 360};
  for (int a = 0; a < 5; a++) {
    cr_assert_eq(p.q.shape[a], want_shape[a], "axis %d", a);
    cr_assert_eq(p.q.strides[0][a], want_dst[a], "axis %d", a);
    cr_assert_eq(p.q.strides[1][a], want_src[a], "axis %d", a);
  }
}

/* Further out, the batch axes keep alternating between each side's next
 * finest, so that a tile's rows come back to their pages while the TLB
 * holds them: 8^8 reversed (axis a of the destination at source stride
 * 8^a) has k = axis 0, j = axis 7, then from the inside out 6 (destination
 * stride 8), 1 (source stride 8), 5, 2, 4, 3. In the order before this one
 * the batches after the tile's groups were 2, 3, 4, 5: the source's rows
 * came back to a page only after an eighth of the copy. */
Test(copy_plan, batch_axes_alternate_between_each_sides_finest) {
  int64_t d[8], dst[8], src[8];
  for (int a = 0; a < 8; a++) {
    d[a] = 8;
    dst[a] = (int64_t)1 << (3 * (7 - a));
    src[a] = (int64_t)1 << (3 * a);
  }
  ndx_copy_plan p = plan_of(8, d, dst, src, 32, &cl_like, 0);
  cr_assert_eq(p.path, NDX_PATH_TRANSPOSE);
  const int want[] = {3, 4, 2, 5, 1, 6, 0, 7}; /* the destination's axes */
  for (int a = 0; a < 8; a++) {
    cr_assert_eq(p.q.strides[0][a], dst[want[a]], "axis %d", a);
    cr_assert_eq(p.q.strides[1][a], src[want[a]], "axis %d", a);
  }
}

/* The plan's pack is what the public calls write: ndx_pack_copy's, and for
 * a transpose that pack with the axes in tile order (ndx_pack_permute). */
Test(copy_plan, its_pack_is_the_public_pack) {
  const int64_t d[] = {3, 4, 5}, c[] = {20, 5, 1}, t[] = {1, 3, 12}, f[] = {20, 5, -1};
  const int64_t *srcs[] = {c, t, f}, offsets[] = {0, 0, 4};
  const ndx_copy_path paths[] = {NDX_PATH_BUFFER, NDX_PATH_TRANSPOSE, NDX_PATH_GATHER};
  for (int k = 0; k < 3; k++) {
    for (int wide = 0; wide < 2; wide++) {
      ndx_layout dl, sl;
      cr_assert_eq(ndx_make(&dl, 3, d, c, 0), NDX_OK);
      cr_assert_eq(ndx_make(&sl, 3, d, srcs[k], offsets[k]), NDX_OK);
      ndx_copy_plan p;
      cr_assert_eq(ndx_copy_plan_make(&p, "test", &dl, &sl, 32, &cl_like, wide ? NDX_COPY_WIDE : 0),
                   NDX_OK);
      cr_assert_eq(p.path, paths[k]);
      cr_assert_eq(p.wide, wide);
      uint64_t mine[64], want[64];
      size_t used;
      memset(mine, 0xa5, sizeof mine);
      memset(want, 0xa5, sizeof want);
      cr_assert_eq(ndx_pack_copy(want, sizeof want, &used, &dl, &sl, 32), NDX_OK);
      if (wide) cr_assert_eq(ndx_pack_widen(want, sizeof want, &used), NDX_OK);
      if (p.path == NDX_PATH_TRANSPOSE) {
        const int32_t perm[] = {1, 0, 2}; /* [batch, k, j]: the source's unit axis second-to-last */
        cr_assert_eq(ndx_pack_permute(want, perm), NDX_OK);
      }
      cr_assert_eq(ndx_copy_plan_pack(&p, mine, sizeof mine), NDX_OK);
      cr_assert_eq(memcmp(mine, want, sizeof mine), 0, "source %d, wide %d, path %s", k, wide,
                   ndx_copy_path_name(p.path));
    }
  }
}

Test(copy_plan, names_are_one_vocabulary) {
  const char *want[] = {"empty", "buffer", "rows", "gather", "transpose", "bytes"};
  for (int p = NDX_PATH_EMPTY; p <= NDX_PATH_BYTES; p++)
    cr_assert_str_eq(ndx_copy_path_name(p), want[p]);
  cr_assert_str_eq(ndx_copy_path_name(-1), "none");
  cr_assert_str_eq(ndx_copy_path_name(NDX_PATH_BYTES + 1), "none");
}

/* ---- The cpu shape's launch ---------------------------------------------------- */

enum pin_move { PIN_PERMUTE, PIN_SLICE2, PIN_NARROW, PIN_BCAST_ROW, PIN_BCAST_COL, PIN_FLIP };

/* A copy into a contiguous destination from a view of a contiguous source:
 * its axes permuted by `perm`, or the move named; and the cpu shape's
 * path, work per item and items. */
typedef struct pin {
  int bits, rank;
  int64_t shape[8];
  int32_t perm[8];
  enum pin_move move;
  ndx_copy_path path;
  int64_t chunk, items;
} pin;

static void pin_layouts(const pin *c, ndx_layout *d, ndx_layout *s) {
  int r = c->rank;
  int64_t base_shape[8];
  memcpy(base_shape, c->shape, sizeof base_shape);
  if (c->move == PIN_BCAST_ROW) base_shape[0] = 1;
  if (c->move == PIN_BCAST_COL) base_shape[r - 1] = 1;
  ndx_layout base;
  cr_assert_eq(ndx_contiguous(&base, r, base_shape), NDX_OK);
  ndx_range rg[8];
  ndx_status st = NDX_OK;
  switch (c->move) {
  case PIN_PERMUTE:
    st = ndx_permute(s, &base, c->perm);
    break;
  case PIN_SLICE2:
    for (int a = 0; a < r; a++) rg[a] = (ndx_range){0, c->shape[a], 1};
    rg[r - 1] = (ndx_range){0, c->shape[r - 1] / 2, 2};
    st = ndx_slice(s, &base, rg);
    break;
  case PIN_NARROW:
    st = ndx_narrow(s, &base, r - 1, 3, c->shape[r - 1] - 6);
    break;
  case PIN_BCAST_ROW:
  case PIN_BCAST_COL:
    st = ndx_broadcast(s, &base, r, c->shape);
    break;
  case PIN_FLIP:
    st = ndx_flip(s, &base, r - 1);
    break;
  }
  cr_assert_eq(st, NDX_OK);
  cr_assert_eq(ndx_contiguous(d, s->rank, s->shape), NDX_OK);
}

#define P(...)                                                                                     \
  { __VA_ARGS__ }

/* The work per item and the items of ndx-bench --cl's cases and a few
 * more, at every path: what the OpenCL runtime computed before the shared
 * planner did, so that a change of the geometry fails here. */
Test(launch_cpu, work_per_item_is_pinned) {
  static const pin pins[] = {
      {32, 1, P(16777216), P(0), PIN_PERMUTE, NDX_PATH_ROWS, 2048, 8192},
      {32, 2, P(4096, 4096), P(0), PIN_SLICE2, NDX_PATH_GATHER, 2048, 4096},
      {32, 3, P(256, 256, 256), P(0), PIN_NARROW, NDX_PATH_ROWS, 2048, 8000},
      {32, 2, P(4096, 4096), P(0), PIN_BCAST_ROW, NDX_PATH_ROWS, 2048, 8192},
      {32, 2, P(4096, 4096), P(0), PIN_BCAST_COL, NDX_PATH_GATHER, 2048, 8192},
      {32, 2, P(4096, 4096), P(0), PIN_FLIP, NDX_PATH_GATHER, 2048, 8192},
      {16, 2, P(300, 77), P(0), PIN_SLICE2, NDX_PATH_GATHER, 4096, 3},
      {8, 2, P(4096, 4096), P(0), PIN_FLIP, NDX_PATH_GATHER, 8192, 2048},
      {4, 2, P(1000, 333), P(0), PIN_SLICE2, NDX_PATH_BYTES, 1024, 82},
      {1, 3, P(7, 9, 100), P(0), PIN_NARROW, NDX_PATH_BYTES, 257, 3},
      {32, 2, P(4096, 4096), P(1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 4096},
      {32, 2, P(4000, 3000), P(1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 2961},
      {32, 2, P(3, 1000003), P(1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 733},
      {32, 2, P(1000003, 3), P(1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 736},
      {32, 3, P(256, 256, 256), P(2, 1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 4096},
      {32, 3, P(256, 256, 256), P(1, 0, 2), PIN_PERMUTE, NDX_PATH_ROWS, 2048, 8192},
      {32, 3, P(255, 257, 253), P(0, 2, 1), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 5100},
      {32, 3, P(255, 257, 253), P(2, 0, 1), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 4096},
      {32, 4, P(64, 64, 64, 64), P(0, 2, 3, 1), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 4096},
      {32, 4, P(64, 64, 64, 64), P(3, 2, 1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 4096},
      {32, 4, P(60, 70, 50, 80), P(0, 3, 1, 2), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 6600},
      {32, 4, P(60, 70, 50, 80), P(2, 0, 3, 1), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 12000},
      {32, 5, P(16, 32, 16, 32, 64), P(4, 3, 2, 1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 4, 4096},
      {32, 5, P(16, 32, 16, 32, 64), P(0, 2, 1, 4, 3), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 2, 4096},
      {32, 5, P(15, 17, 19, 21, 165), P(1, 3, 0, 4, 2), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 5355},
      {32, 5, P(16, 32, 16, 32, 64), P(4, 1, 3, 0, 2), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 4, 4096},
      {32, 8, P(8, 8, 8, 8, 8, 8, 8, 8), P(7, 6, 5, 4, 3, 2, 1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE,
       1, 4096},
      {32, 8, P(8, 8, 8, 8, 8, 8, 8, 8), P(1, 0, 3, 2, 5, 4, 7, 6), PIN_PERMUTE, NDX_PATH_TRANSPOSE,
       64, 4096},
      {32, 8, P(11, 9, 7, 5, 11, 9, 7, 5), P(0, 2, 4, 6, 1, 3, 5, 7), PIN_PERMUTE, NDX_PATH_ROWS,
       2048, 5863},
      {32, 8, P(11, 9, 7, 5, 11, 9, 7, 5), P(7, 1, 5, 3, 6, 0, 4, 2), PIN_PERMUTE,
       NDX_PATH_TRANSPOSE, 1, 4455},
      {32, 8, P(5, 7, 9, 11, 5, 7, 9, 11), P(7, 1, 5, 3, 6, 0, 4, 2), PIN_PERMUTE,
       NDX_PATH_TRANSPOSE, 1, 5390},
      {16, 2, P(4096, 8192), P(1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 2048},
      {16, 2, P(5000, 6000), P(1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 1880},
      {8, 2, P(8000, 8000), P(1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 3969},
      {8, 2, P(7000, 9000), P(1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 3905},
      {64, 4, P(9, 16, 5, 16), P(3, 2, 1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 4, 15},
      {8, 8, P(2, 3, 4, 5, 2, 3, 4, 5), P(7, 1, 5, 3, 6, 0, 4, 2), PIN_PERMUTE, NDX_PATH_TRANSPOSE,
       25, 4},
      {128, 3, P(50, 60, 70), P(2, 0, 1), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 16, 940},
      {4, 2, P(8192, 8192), P(1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 4096},
      {4, 4, P(128, 128, 64, 128), P(0, 3, 1, 2), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 8192},
      {1, 2, P(20000, 25000), P(1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 1960},
      {1, 4, P(128, 128, 256, 128), P(0, 2, 3, 1), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 2048},
      {32, 8, P(8, 8, 8, 8, 8, 8, 8, 8), P(4, 0, 5, 1, 6, 2, 7, 3), PIN_PERMUTE, NDX_PATH_TRANSPOSE,
       64, 4096},
      {32, 4, P(3, 5, 7, 9), P(2, 0, 3, 1), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 91, 1},
      {16, 4, P(60, 70, 50, 80), P(2, 0, 3, 1), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 1, 3000},
  };
  for (size_t c = 0; c < sizeof pins / sizeof *pins; c++) {
    ndx_layout d, s;
    pin_layouts(&pins[c], &d, &s);
    ndx_copy_plan p;
    cr_assert_eq(ndx_copy_plan_make(&p, "test", &d, &s, pins[c].bits, &cl_like, 0), NDX_OK);
    cr_assert_eq(p.path, pins[c].path, "case %zu: path %s", c, ndx_copy_path_name(p.path));
    ndx_launch l = {0};
    int64_t items = 0;
    if (p.path != NDX_PATH_BUFFER) ndx_launch_cpu(&p, &cl_tuning, &l, &items);
    cr_assert(l.chunk == pins[c].chunk && items == pins[c].items,
              "case %zu: chunk %lld items %lld, want %lld %lld", c, (long long)l.chunk,
              (long long)items, (long long)pins[c].chunk, (long long)pins[c].items);
    if (p.path == NDX_PATH_BYTES) { /* the span's bytes, which the kernels read and compute not */
      int64_t lo, hi, first, end;
      ndx_span(&d, &lo, &hi);
      ndx_bytes_span(lo, hi, p.bits, &first, &end);
      cr_assert(l.first == first && l.units == end - first,
                "case %zu: bytes %lld + %lld, want %lld + %lld", c, (long long)l.first,
                (long long)l.units, (long long)first, (long long)(end - first));
    }
  }
}

/* The one tile-joining rule at both reaches. 8^8 seen through the
 * permutation (4,0,5,1,6,2,7,3) has 8 x 8 tiles, and the axis that
 * continues k's source run is not next to them: with every batch axis in
 * reach (CUDA's) it joins k, moved in next to it; with reach 1 (the cpu
 * shape's) nothing joins and nothing moves. Where the axes are next to the
 * tiles, reach 1 joins them, and the cpu shape's launch descriptor names
 * them (ndx_launch_join). */
/* True when a and b hold the same operands: their fields up to their rank
 * and operand count (the arrays past them are not part of the value). */
static bool same_operands(const ndx_operands *a, const ndx_operands *b) {
  if (a->rank != b->rank || a->nops != b->nops || a->numel != b->numel) return false;
  for (int k = 0; k < a->nops; k++) {
    if (a->offset[k] != b->offset[k]) return false;
    for (int x = 0; x < a->rank; x++)
      if (a->strides[k][x] != b->strides[k][x]) return false;
  }
  for (int x = 0; x < a->rank; x++)
    if (a->shape[x] != b->shape[x]) return false;
  return true;
}

Test(launch_cpu, the_join_reaches_as_far_as_asked) {
  const pin cases[] = {
      {32, 8, P(8, 8, 8, 8, 8, 8, 8, 8), P(4, 0, 5, 1, 6, 2, 7, 3), PIN_PERMUTE, NDX_PATH_TRANSPOSE,
       0, 1},
      {32, 4, P(9, 16, 5, 16), P(3, 2, 1, 0), PIN_PERMUTE, NDX_PATH_TRANSPOSE, 2, 2},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    ndx_layout d, s;
    pin_layouts(&cases[c], &d, &s);
    ndx_copy_plan p;
    cr_assert_eq(ndx_copy_plan_make(&p, "test", &d, &s, 32, &cl_like, 0), NDX_OK);
    cr_assert_eq(p.path, NDX_PATH_TRANSPOSE);
    int r = p.q.rank, gk, gj;
    ndx_operands near = p.q, far = p.q;
    ndx_copy_tile_join(&near, 64, 64, 1, &gk, &gj);
    cr_assert_eq(gk + gj, cases[c].chunk, "case %zu: reach 1 joins %d", c, gk + gj);
    cr_assert(same_operands(&near, &p.q), "case %zu: reach 1 moves nothing", c);
    ndx_launch l = {0};
    int64_t items;
    ndx_launch_cpu(&p, &cl_tuning, &l, &items);
    cr_assert_eq(r - 2 - l.batch_axes, gk + gj, "case %zu: the cpu shape joins as reach 1", c);
    ndx_copy_tile_join(&far, 64, 64, NDX_MAX_RANK, &gk, &gj);
    cr_assert_eq(gk + gj, cases[c].items, "case %zu: every axis in reach joins %d", c, gk + gj);
    cr_assert_eq(far.strides[1][r - 3 - gj], far.shape[r - 2], "case %zu: k2 next to k", c);
  }
}
