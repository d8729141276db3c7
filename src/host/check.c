/* check.c: the checks every call runs on its arguments (a shape, a layout
 * argument written by hand) and the dims text of their messages. Stateless,
 * so the device runtimes link their own copy of it. */
#include <stdio.h>
#include <string.h>

#include "ndx_internal.h"

int ndx_fmt_int(char *out, int64_t v) {
  char digits[20];
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; /* INT64_MIN included */
  int n = 0;
  do digits[n++] = (char)('0' + u % 10);
  while ((u /= 10) != 0);
  int len = 0;
  if (v < 0) out[len++] = '-';
  while (n > 0) out[len++] = digits[--n];
  return len;
}

char *ndx_fmt_dims(char *buf, size_t size, int n, const int64_t *v) {
  if (size == 0) return buf;
  size_t used = 0;
  for (int i = -1; i <= n && used < size - 1; i++) {
    char piece[NDX_INT_CHARS + 2];
    int k = 0;
    if (i < 0) {
      piece[k++] = '[';
    } else if (i == n) {
      piece[k++] = ']';
    } else {
      if (i > 0) piece[k++] = ',';
      k += ndx_fmt_int(piece + k, v[i]);
    }
    size_t take = (size_t)k < size - 1 - used ? (size_t)k : size - 1 - used;
    memcpy(buf + used, piece, take);
    used += take;
  }
  buf[used] = '\0';
  return buf;
}

ndx_status ndx_check_shape(const char *call, const char *what, int rank, const int64_t *shape,
                           int64_t *numel) {
  if (rank >= 0 && rank <= NDX_MAX_RANK && (shape || rank == 0)) {
    ndx_extent_product e = {1, 0, false};
    for (int a = 0; a < rank; a++) ndx_extent_add(&e, shape[a]);
    if (ndx_extents_ok(&e)) {
      *numel = e.product;
      return NDX_OK;
    }
  }
  if (rank < 0) return ndx_set_error(NDX_EINVAL, "%s: %s has negative rank %d", call, what, rank);
  if (rank > NDX_MAX_RANK)
    return ndx_set_error(NDX_ERANGE, "%s: %s has rank %d, past the limit of %d axes", call, what,
                         rank, NDX_MAX_RANK);
  if (rank > 0 && !shape)
    return ndx_set_error(NDX_EINVAL, "%s: %s is NULL at rank %d", call, what, rank);
  int64_t product = 1;
  bool empty = false;
  for (int a = 0; a < rank; a++) {
    if (shape[a] < 0)
      return ndx_set_error(NDX_EINVAL, "%s: %s: axis %d has negative extent %lld", call, what, a,
                           (long long)shape[a]);
    if (shape[a] == 0) {
      empty = true;
      continue;
    }
    if (!ndx_mul_ok(product, shape[a], &product) || product > NDX_MAX_NUMEL) {
      char dims[NDX_DIMS_BUF];
      return ndx_set_error(NDX_ERANGE, "%s: %s %s: its extents multiply past 2^53 (at axis %d)",
                           call, what, ndx_fmt_dims(dims, sizeof dims, rank, shape), a);
    }
  }
  *numel = empty ? 0 : product;
  return NDX_OK;
}

/* The common case of the layout checks, with no message to build: every
 * layout argument of every call passes here, so the loops are branch-free
 * over the axes. It accepts only layouts within the limits that have an
 * element; a false sends the layout to the exact walk of ndx_layout_flaw,
 * which also accepts the ones with no element. True iff `l` is within the
 * limits and has an element, its count then stored in *numel. */
static bool layout_within_limits(const ndx_layout *l, int64_t *numel) {
  int rank = l->rank;
  if (rank < 0 || rank > NDX_MAX_RANK) return false;
  ndx_extent_product e = {1, 0, false};
  ndx_span_sum p = ndx_span_start(l->offset);
  for (int a = 0; a < rank; a++) {
    ndx_extent_add(&e, l->shape[a]);
    ndx_span_add(&p, l->shape[a], l->strides[a]);
  }
  *numel = e.product;
  return ndx_extents_ok(&e) && ndx_span_within_limits(&p, l->offset);
}

ndx_status ndx_check_layout_numel(const char *call, const char *name, const ndx_layout *l,
                                  int64_t *numel) {
  if (l && layout_within_limits(l, numel)) return NDX_OK;
  if (!l) return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", call, name);
  char why[NDX_DIMS_BUF + 128];
  if (ndx_layout_flaw(l, why, sizeof why))
    return ndx_set_error(NDX_EINVAL, "%s: %s %s", call, name, why);
  *numel = ndx_numel(l); /* within the limits, with no element */
  return NDX_OK;
}

ndx_status ndx_check_layout(const char *call, const char *name, const ndx_layout *l) {
  int64_t numel;
  return ndx_check_layout_numel(call, name, l, &numel);
}

ndx_status ndx_check_layout_nth(const char *call, const char *name_fmt, int k,
                                const ndx_layout *l) {
  if (l && !ndx_layout_flaw(l, NULL, 0)) return NDX_OK;
  char name[48];
  snprintf(name, sizeof name, name_fmt, k);
  return ndx_check_layout(call, name, l);
}

bool ndx_layout_flaw(const ndx_layout *l, char *why, size_t size) {
  int64_t numel;
  if (layout_within_limits(l, &numel)) return false;
  int rank = l->rank;
  if (rank < 0 || rank > NDX_MAX_RANK) {
    snprintf(why, size, "has rank %d, not in [0, %d]", rank, NDX_MAX_RANK);
    return true;
  }
  const char *not_made = "is not a layout ndx_ calls make:";
  char dims[NDX_DIMS_BUF];
  int64_t product = 1, lo = l->offset, last = l->offset;
  bool empty = false, lo_ok = true, last_ok = true;
  for (int a = 0; a < rank; a++) {
    int64_t d = l->shape[a], s = l->strides[a], reach;
    if (d < 0 || d > NDX_MAX_NUMEL) {
      snprintf(why, size, "%s axis %d has extent %lld, not in [0, 2^53]", not_made, a,
               (long long)d);
      return true;
    }
    if (d == 0) empty = true;
    if (d > 0 && (!ndx_mul_ok(product, d, &product) || product > NDX_MAX_NUMEL)) {
      snprintf(why, size, "%s its extents %s multiply past 2^53", not_made,
               ndx_fmt_dims(dims, sizeof dims, rank, l->shape));
      return true;
    }
    if (d <= 1) continue;
    if (s == INT64_MIN || !ndx_mul_ok(d - 1, ndx_abs64(s), &reach)) {
      snprintf(why, size,
               "%s axis %d: (extent - 1) * |stride| = (%lld - 1) * |%lld| overflows int64",
               not_made, a, (long long)d, (long long)s);
      return true;
    }
    if (s < 0)
      lo_ok = lo_ok && ndx_add_ok(lo, -reach, &lo);
    else
      last_ok = last_ok && ndx_add_ok(last, reach, &last);
  }
  if (empty && l->offset != 0) {
    snprintf(why, size, "%s it has no element but offset %lld, not 0", not_made,
             (long long)l->offset);
    return true;
  }
  if (!empty && (!lo_ok || lo < 0 || !last_ok || last >= NDX_MAX_NUMEL)) {
    snprintf(why, size, "%s offset %lld with strides %s reaches %s", not_made, (long long)l->offset,
             ndx_fmt_dims(dims, sizeof dims, rank, l->strides),
             !lo_ok || lo < 0 ? "below 0" : "past 2^53 - 1");
    return true;
  }
  return false;
}

bool ndx_bits_ok(int bits) {
  return bits >= 1 && bits <= 128 && (bits & (bits - 1)) == 0;
}

ndx_status ndx_check_bits(const char *call, int bits) {
  if (ndx_bits_ok(bits)) return NDX_OK;
  return ndx_set_error(NDX_EINVAL, "%s: bits is %d, not one of 1, 2, 4, 8, 16, 32, 64, 128", call,
                       bits);
}

ndx_status ndx_check_same_shape(const char *call, int n, const ndx_layout *const *in,
                                const char *const *names) {
  const ndx_layout *first = in[0];
  for (int k = 1; k < n; k++) {
    bool same = in[k]->rank == first->rank;
    for (int a = 0; same && a < first->rank; a++) same = in[k]->shape[a] == first->shape[a];
    if (same) continue;
    char s0[NDX_DIMS_BUF], sk[NDX_DIMS_BUF], name[24];
    if (!names) snprintf(name, sizeof name, "layout %d", k);
    return ndx_set_error(
        NDX_EINVAL, "%s: %s has shape %s, %s has %s", call, names ? names[k] : name,
        ndx_fmt_dims(sk, sizeof sk, in[k]->rank, in[k]->shape), names ? names[0] : "layout 0",
        ndx_fmt_dims(s0, sizeof s0, first->rank, first->shape));
  }
  return NDX_OK;
}
