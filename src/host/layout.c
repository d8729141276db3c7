/* layout.c: building canonical layouts and the queries on them.
 *
 * Every layout is made by ndx_build, which checks the limits (docs/semantics.md
 * section 3) with overflow-checked arithmetic and writes the canonical form
 * (section 2): extent-1 axes get stride 0, a layout with no element gets
 * offset 0 and strides 0. */
#include <stdio.h>
#include <string.h>

#include "ndx_internal.h"

bool ndx_fits(int rank, const int64_t *shape) {
  if (rank < 0 || rank > NDX_MAX_RANK || (rank > 0 && !shape)) return false;
  int64_t product = 1;
  for (int a = 0; a < rank; a++) {
    if (shape[a] < 0) return false;
    if (shape[a] > 0 && (!ndx_mul_ok(product, shape[a], &product) || product > NDX_MAX_NUMEL))
      return false;
  }
  return true;
}

ndx_status ndx_build(const char *call, ndx_layout *out, int rank, const int64_t *shape,
                     const int64_t *strides, int64_t offset) {
  int64_t numel;
  ndx_status st = ndx_check_shape(call, "shape", rank, shape, &numel);
  if (st != NDX_OK) return st;
  if (!out) return ndx_set_error(NDX_EINVAL, "%s: out is NULL", call);
  if (rank > 0 && !strides)
    return ndx_set_error(NDX_EINVAL, "%s: strides is NULL at rank %d", call, rank);
  /* lo and hi - 1 are offset plus the negative and the positive reaches. */
  int64_t lo = offset, last = offset;
  bool lo_ok = true, last_ok = true;
  for (int a = 0; a < rank; a++) {
    if (shape[a] <= 1) continue;
    int64_t s = strides[a], reach;
    if (s == INT64_MIN || !ndx_mul_ok(shape[a] - 1, ndx_abs64(s), &reach))
      return ndx_set_error(NDX_ERANGE,
                           "%s: axis %d: (extent - 1) * |stride| = (%lld - 1) * |%lld| "
                           "overflows int64",
                           call, a, (long long)shape[a], (long long)s);
    if (s < 0)
      lo_ok = lo_ok && ndx_add_ok(lo, -reach, &lo);
    else
      last_ok = last_ok && ndx_add_ok(last, reach, &last);
  }
  if (numel > 0 && (!lo_ok || lo < 0 || !last_ok || last >= NDX_MAX_NUMEL)) {
    char dims[NDX_DIMS_BUF], where[48];
    bool low = !lo_ok || lo < 0, fits = low ? lo_ok : last_ok;
    if (fits)
      snprintf(where, sizeof where, "%lld", (long long)(low ? lo : last));
    else
      snprintf(where, sizeof where, "%s", low ? "below INT64_MIN" : "above INT64_MAX");
    return ndx_set_error(NDX_ERANGE, "%s: offset %lld with strides %s reaches position %s, %s",
                         call, (long long)offset, ndx_fmt_dims(dims, sizeof dims, rank, strides),
                         where, low ? "below 0" : "past 2^53 - 1");
  }
  ndx_write_canonical(out, rank, shape, strides, offset);
  return NDX_OK;
}

void ndx_write_canonical(ndx_layout *out, int rank, const int64_t *shape, const int64_t *strides,
                         int64_t offset) {
  /* One pass, in place: callers pass shape and strides that are not `out`'s
   * own entries, or are its entries at the same index. A layout with no
   * element is rare; its strides are cleared after the pass. */
  bool empty = false;
  for (int a = 0; a < rank; a++) {
    int64_t d = shape[a], s = strides[a];
    empty |= d == 0;
    out->shape[a] = d;
    out->strides[a] = s & -(int64_t)(d > 1); /* no branch on the extent */
  }
  if (empty)
    for (int a = 0; a < rank; a++) out->strides[a] = 0;
  out->rank = rank;
  out->flags = 0;
  out->offset = empty ? 0 : offset;
  ndx_clear_tail(out, rank);
}

ndx_status ndx_make(ndx_layout *out, int rank, const int64_t *shape, const int64_t *strides,
                    int64_t offset) {
  return ndx_build("ndx_make", out, rank, shape, strides, offset);
}

ndx_status ndx_contiguous(ndx_layout *out, int rank, const int64_t *shape) {
  int64_t numel, strides[NDX_MAX_RANK];
  ndx_status st = ndx_check_shape("ndx_contiguous", "shape", rank, shape, &numel);
  if (st != NDX_OK) return st;
  int64_t step = 1;
  for (int a = rank - 1; a >= 0; a--) {
    strides[a] = step;
    if (shape[a] > 0) step *= shape[a]; /* bounded by numel <= 2^53 */
  }
  return ndx_build("ndx_contiguous", out, rank, shape, strides, 0);
}

int64_t ndx_numel(const ndx_layout *l) {
  int64_t n = 1;
  for (int a = 0; a < l->rank; a++) n *= l->shape[a]; /* <= 2^53, or 0 once a 0 is met */
  return n;
}

void ndx_span(const ndx_layout *l, int64_t *lo, int64_t *hi) {
  if (ndx_numel(l) == 0) {
    *lo = *hi = 0;
    return;
  }
  int64_t low = l->offset, high = l->offset + 1;
  for (int a = 0; a < l->rank; a++) {
    int64_t reach = (l->shape[a] - 1) * l->strides[a];
    if (reach < 0)
      low += reach;
    else
      high += reach;
  }
  *lo = low;
  *hi = high;
}

/* Element k in C order (Fortran order when `fortran`) sits at offset + k. */
static bool dense_in_order(const ndx_layout *l, bool fortran) {
  if (ndx_numel(l) == 0) return true;
  int64_t expect = 1;
  for (int k = 0; k < l->rank; k++) {
    int a = fortran ? k : l->rank - 1 - k;
    if (l->shape[a] == 1) continue;
    if (l->strides[a] != expect) return false;
    expect *= l->shape[a];
  }
  return true;
}

bool ndx_is_contiguous(const ndx_layout *l) {
  return dense_in_order(l, false);
}

bool ndx_is_fortran_contiguous(const ndx_layout *l) {
  return dense_in_order(l, true);
}

bool ndx_is_distinct(const ndx_layout *l) {
  if (ndx_numel(l) == 0) return true;
  /* Axes of extent > 1 by |stride|, ties by axis: an insertion sort, since
   * rank <= 32 and this must not allocate. */
  int order[NDX_MAX_RANK], n = 0;
  for (int a = 0; a < l->rank; a++) {
    if (l->shape[a] <= 1) continue;
    int k = n++;
    while (k > 0 && ndx_abs64(l->strides[order[k - 1]]) > ndx_abs64(l->strides[a])) {
      order[k] = order[k - 1];
      k--;
    }
    order[k] = a;
  }
  int64_t reach = 0;
  for (int k = 0; k < n; k++) {
    int64_t s = ndx_abs64(l->strides[order[k]]);
    if (s <= reach) return false;
    reach += (l->shape[order[k]] - 1) * s;
  }
  return true;
}

bool ndx_equal(const ndx_layout *a, const ndx_layout *b) {
  if (a->rank != b->rank || a->offset != b->offset) return false;
  for (int k = 0; k < a->rank; k++)
    if (a->shape[k] != b->shape[k] || a->strides[k] != b->strides[k]) return false;
  return true;
}

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
  return h;
}

uint64_t ndx_hash(const ndx_layout *l) {
  uint64_t h = mix(0x6e6478u, (uint64_t)l->rank);
  h = mix(h, (uint64_t)l->offset);
  for (int k = 0; k < l->rank; k++) h = mix(mix(h, (uint64_t)l->shape[k]), (uint64_t)l->strides[k]);
  /* a final avalanche so that near layouts land far apart */
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdu;
  h ^= h >> 33;
  return h;
}
