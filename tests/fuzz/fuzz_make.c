/* fuzz_make.c: ndx_make, ndx_contiguous and ndx_fits on any values.
 *
 * The input gives a rank (sometimes negative or past 32), extents, strides
 * and an offset, mostly small and sometimes at the edges of the limits. An
 * independent statement of the limits (REFERENCE.md section 1, in 128-bit
 * arithmetic) says whether ndx_make must succeed; when it does, the result
 * must be the canonical form of the values (same positions by the definition
 * for small shapes), and when it must fail, the status is the documented one
 * and the output untouched. ndx_contiguous and ndx_fits are checked on the
 * same shape. */
#define FUZZ_NAME "make"
#include "fuzz.h"

/* What the limits say of a shape: 0 fits, 1 a rule break (negative rank or
 * extent: NDX_EINVAL), 2 past a limit (NDX_ERANGE), 3 both (either status). */
static int shape_verdict(int rank, const int64_t *shape) {
  if (rank < 0) return 1;
  if (rank > NDX_MAX_RANK) return 2;
  bool negative = false, past = false;
  fz_i128 product = 1;
  for (int a = 0; a < rank; a++) {
    if (shape[a] < 0) negative = true;
    if (shape[a] > 0 && !past) {
      product *= shape[a];
      past = product > NDX_MAX_NUMEL;
    }
  }
  return (negative ? 1 : 0) | (past ? 2 : 0);
}

static bool status_matches(ndx_status st, int verdict) {
  if (verdict == 1) return st == NDX_EINVAL;
  if (verdict == 2) return st == NDX_ERANGE;
  return st == NDX_EINVAL || st == NDX_ERANGE;
}

/* Whether the strides and offset fit a shape that fits: every axis of extent
 * > 1 has (d-1)*|s| in int64 (INT64_MIN never), and a layout with an element
 * has its positions in [0, 2^53). */
static bool values_fit(int rank, const int64_t *shape, const int64_t *strides, int64_t offset) {
  fz_i128 lo = offset, last = offset;
  bool empty = false;
  for (int a = 0; a < rank; a++) {
    empty = empty || shape[a] == 0;
    if (shape[a] <= 1) continue;
    if (strides[a] == INT64_MIN) return false;
    fz_i128 reach = (fz_i128)(shape[a] - 1) * strides[a];
    if (reach > INT64_MAX || reach < -INT64_MAX) return false;
    if (reach < 0)
      lo += reach;
    else
      last += reach;
  }
  return empty || (lo >= 0 && last < NDX_MAX_NUMEL);
}

static void check_contiguous(int rank, const int64_t *shape, int verdict) {
  ndx_layout c, before;
  memset(&c, 0x3c, sizeof c);
  before = c;
  ndx_status st = ndx_contiguous(&c, rank, shape);
  if (verdict != 0) {
    fz_check(status_matches(st, verdict), "ndx_contiguous refuses a bad shape with its status");
    fz_check_untouched(&c, &before, sizeof c, st);
    return;
  }
  fz_check(st == NDX_OK, "ndx_contiguous takes every shape that fits");
  int64_t n = fz_check_layout(&c);
  fz_check(ndx_is_contiguous(&c), "ndx_contiguous is contiguous");
  fz_check(c.offset == 0 || n == 0, "ndx_contiguous starts at 0");
  if (n <= FZ_MAX_POSITIONS)
    for (int64_t k = 0; k < n; k++) fz_check(fz_pos_a[k] == k, "element k sits at position k");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_reader r = {data, size, 0};
  uint8_t head = fz_byte(&r);
  int rank = head % 8;
  if (head >= 248) rank = (int)fz_small(&r, 3) + (fz_byte(&r) % 2 ? NDX_MAX_RANK : 0);
  bool wide = head % 3 == 0;
  int64_t shape[NDX_MAX_RANK + 4], strides[NDX_MAX_RANK + 4];
  fz_i128 wide_offset = 0;
  int stored = rank < 0 ? 0 : rank > NDX_MAX_RANK + 3 ? NDX_MAX_RANK + 3 : rank;
  for (int a = 0; a < stored; a++) {
    shape[a] = wide && fz_byte(&r) < 64 ? fz_wide(&r) : fz_small(&r, 2) + 2;
    strides[a] = wide && fz_byte(&r) < 64 ? fz_wide(&r) : fz_small(&r, 12);
    wide_offset += fz_flip_offset(shape[a], strides[a]);
  }
  wide_offset += wide && fz_byte(&r) < 64 ? fz_wide(&r) : (int64_t)(fz_byte(&r) % 40) - 4;
  int64_t offset = fz_clamp(wide_offset);

  int verdict = shape_verdict(rank, shape);
  fz_check(ndx_fits(rank, shape) == (verdict == 0), "ndx_fits iff the shape is within the limits");
  check_contiguous(rank, shape, verdict);

  ndx_layout l, before;
  memset(&l, 0xa5, sizeof l);
  before = l;
  ndx_status st = ndx_make(&l, rank, shape, strides, offset);
  if (verdict != 0 || !values_fit(rank, shape, strides, offset)) {
    fz_check(st != NDX_OK, "ndx_make refuses values past the limits");
    fz_check(verdict == 0 ? st == NDX_ERANGE : status_matches(st, verdict),
             "ndx_make refuses with the documented status");
    fz_check_untouched(&l, &before, sizeof l, st);
    if (rank > 0) { /* the pointer rules come after the shape's */
      fz_check(ndx_make(&l, rank, shape, NULL, offset) != NDX_OK, "NULL strides are refused");
      fz_check(memcmp(&l, &before, sizeof l) == 0, "a NULL argument leaves out untouched");
    }
    return 0;
  }
  fz_check(st == NDX_OK, "ndx_make takes values within the limits");
  int64_t n = fz_check_layout(&l);
  fz_check(l.rank == rank, "ndx_make keeps the rank");
  for (int a = 0; a < rank; a++) {
    fz_check(l.shape[a] == shape[a], "ndx_make keeps the extents");
    fz_check(l.strides[a] == (n > 0 && shape[a] > 1 ? strides[a] : 0),
             "ndx_make keeps the strides of axes of extent > 1");
  }
  fz_check(l.offset == (n > 0 ? offset : 0), "ndx_make keeps the offset of a layout with elements");
  if (n > 0 && n <= FZ_MAX_POSITIONS) {
    /* the definition, with the raw strides: the canonical form moves nothing */
    int64_t index[NDX_MAX_RANK];
    for (int64_t k = 0; k < n; k++) {
      oracle_unravel(rank, shape, k, index);
      int64_t p = offset;
      for (int a = 0; a < rank; a++) p += index[a] * strides[a];
      fz_check(fz_pos_a[k] == p, "every index reaches the position its raw values give");
    }
  }
  ndx_layout again;
  fz_check(ndx_make(&again, l.rank, l.shape, l.strides, l.offset) == NDX_OK &&
               memcmp(&again, &l, sizeof l) == 0,
           "the canonical form is a fixed point");
  ndx_layout *none = NULL;
  fz_check(ndx_make(none, rank, shape, strides, offset) == NDX_EINVAL, "a NULL out is refused");
  return 0;
}
