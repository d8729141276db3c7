/* move.c: the five moves of ndx_apply (docs/semantics.md section 4) and the
 * vocabulary of narrow, flip, squeeze, ... on top of them.
 *
 * Each move is checked against the shape first (move_check, shared by
 * ndx_move_shape and ndx_apply), then its strides and offset are computed and
 * the result is written canonical (ndx_write_canonical). It needs no second
 * check: every move of a layout within the limits is within them too, since
 * its shape has passed the move's check and its positions are among the
 * layout's, so that no reach or offset outgrows the layout's own. Nothing is
 * written before every check has passed. */
#include <string.h>

#include "ndx_internal.h"

static const char *kind_name(ndx_move_kind k) {
  switch (k) {
  case NDX_RESHAPE:
    return "reshape";
  case NDX_BROADCAST:
    return "broadcast";
  case NDX_PERMUTE:
    return "permute";
  case NDX_SLICE:
    return "slice";
  case NDX_WINDOW:
    return "window";
  }
  return "?";
}

/* The index of the last element of a range (count >= 0): start + (count-1)*step inside [0, d).
 * Overflow-checked: a product or sum past int64 lies outside [0, d) too, since d <= 2^53. */
static bool range_inside(const ndx_range *r, int64_t d) {
  if (r->count == 0) return true;
  if (r->start < 0 || r->start >= d) return false;
  int64_t span, last;
  return ndx_mul_ok(r->count - 1, r->step, &span) && ndx_add_ok(r->start, span, &last) &&
         last >= 0 && last < d;
}

static ndx_status check_reshape(const char *call, const ndx_move *m, int rank, const int64_t *shape,
                                int64_t old_numel, int64_t *out_shape) {
  char from[NDX_DIMS_BUF], to[NDX_DIMS_BUF];
  int64_t new_numel;
  ndx_status st = ndx_check_shape(call, "new shape", m->n, m->shape, &new_numel);
  if (st != NDX_OK) return st;
  if (old_numel != new_numel)
    return ndx_set_error(NDX_EINVAL, "%s: %s has %lld elements, %s has %lld", call,
                         ndx_fmt_dims(from, sizeof from, rank, shape), (long long)old_numel,
                         ndx_fmt_dims(to, sizeof to, m->n, m->shape), (long long)new_numel);
  memcpy(out_shape, m->shape, sizeof *out_shape * (size_t)m->n);
  return NDX_OK;
}

static ndx_status check_broadcast(const char *call, const ndx_move *m, int rank,
                                  const int64_t *shape, int64_t *out_shape) {
  char from[NDX_DIMS_BUF], to[NDX_DIMS_BUF];
  int64_t numel;
  ndx_status st = ndx_check_shape(call, "target shape", m->n, m->shape, &numel);
  if (st != NDX_OK) return st;
  if (m->n < rank)
    return ndx_set_error(NDX_EINVAL,
                         "%s: %s does not broadcast to %s: target has %d axes, fewer than %d", call,
                         ndx_fmt_dims(from, sizeof from, rank, shape),
                         ndx_fmt_dims(to, sizeof to, m->n, m->shape), m->n, rank);
  int lead = m->n - rank;
  for (int a = 0; a < rank; a++) {
    int64_t d = shape[a], t = m->shape[lead + a];
    if (d != 1 && d != t)
      return ndx_set_error(
          NDX_EINVAL, "%s: %s does not broadcast to %s: axis %d has %lld, neither 1 nor %lld", call,
          ndx_fmt_dims(from, sizeof from, rank, shape), ndx_fmt_dims(to, sizeof to, m->n, m->shape),
          a, (long long)d, (long long)t);
  }
  memcpy(out_shape, m->shape, sizeof *out_shape * (size_t)m->n);
  return NDX_OK;
}

static ndx_status check_permute(const char *call, const ndx_move *m, int rank, const int64_t *shape,
                                int64_t *out_shape) {
  if (m->n != rank)
    return ndx_set_error(NDX_EINVAL, "%s: perm has %d entries for %d axes", call, m->n, rank);
  uint32_t seen = 0;
  for (int i = 0; i < rank; i++) {
    int32_t p = m->perm[i];
    if (p < 0 || p >= rank)
      return ndx_set_error(NDX_EINVAL, "%s: perm[%d] = %d is not an axis of rank %d", call, i, p,
                           rank);
    if (seen & (UINT32_C(1) << p))
      return ndx_set_error(NDX_EINVAL, "%s: perm[%d] = %d repeats an axis", call, i, p);
    seen |= UINT32_C(1) << p;
    out_shape[i] = shape[p];
  }
  return NDX_OK;
}

static ndx_status check_slice(const char *call, const ndx_move *m, int rank, const int64_t *shape,
                              int64_t *out_shape) {
  if (m->n != rank) return ndx_set_error(NDX_EINVAL, "%s: %d ranges for %d axes", call, m->n, rank);
  for (int a = 0; a < rank; a++) {
    const ndx_range *r = &m->ranges[a];
    if (r->step == 0) return ndx_set_error(NDX_EINVAL, "%s: axis %d: step is 0", call, a);
    if (r->count < 0)
      return ndx_set_error(NDX_EINVAL, "%s: axis %d: count %lld is negative", call, a,
                           (long long)r->count);
    if (!range_inside(r, shape[a]))
      return ndx_set_error(
          NDX_EINVAL, "%s: axis %d: start %lld, count %lld, step %lld leaves extent %lld", call, a,
          (long long)r->start, (long long)r->count, (long long)r->step, (long long)shape[a]);
    out_shape[a] = r->count;
  }
  return NDX_OK;
}

static ndx_status check_window(const char *call, const ndx_move *m, int rank, const int64_t *shape,
                               int *out_rank, int64_t *out_shape) {
  if (m->n < 0) return ndx_set_error(NDX_EINVAL, "%s: %d windows", call, m->n);
  if (m->n > NDX_MAX_RANK - rank)
    return ndx_set_error(NDX_ERANGE, "%s: %d windows on %d axes pass the limit of %d axes", call,
                         m->n, rank, NDX_MAX_RANK);
  memcpy(out_shape, shape, sizeof *out_shape * (size_t)rank);
  for (int k = 0; k < m->n; k++) {
    const ndx_window *w = &m->windows[k];
    if (w->axis < 0 || w->axis >= rank)
      return ndx_set_error(NDX_EINVAL, "%s: window %d: axis %d is not an axis of rank %d", call, k,
                           w->axis, rank);
    if (k > 0 && w->axis <= m->windows[k - 1].axis)
      return ndx_set_error(NDX_EINVAL, "%s: window %d: axis %d does not follow axis %d", call, k,
                           w->axis, m->windows[k - 1].axis);
    if (w->size < 1 || w->step < 1 || w->dilation < 1)
      return ndx_set_error(NDX_EINVAL,
                           "%s: window %d on axis %d: size %lld, step %lld, dilation %lld "
                           "must each be at least 1",
                           call, k, w->axis, (long long)w->size, (long long)w->step,
                           (long long)w->dilation);
    int64_t d = shape[w->axis], reach;
    /* dilation*(size-1)+1 <= d; a product past int64 is past d too */
    if (d < 1 || !ndx_mul_ok(w->dilation, w->size - 1, &reach) || reach > d - 1)
      return ndx_set_error(NDX_EINVAL,
                           "%s: window %d on axis %d: size %lld with dilation %lld does "
                           "not fit extent %lld",
                           call, k, w->axis, (long long)w->size, (long long)w->dilation,
                           (long long)d);
    int64_t room = d - 1 - reach; /* the window's starts; a division only for a step above 1 */
    out_shape[w->axis] = (w->step == 1 ? room : room / w->step) + 1;
    out_shape[rank + k] = w->size;
  }
  *out_rank = rank + m->n;
  int64_t numel;
  return ndx_check_shape(call, "windowed shape", *out_rank, out_shape, &numel);
}

/* Checks `m` against a valid shape of `rank` axes and `numel` elements,
 * writing the result's rank and shape into the caller's scratch. */
static ndx_status move_check(const char *call, const ndx_move *m, int rank, const int64_t *shape,
                             int64_t numel, int *out_rank, int64_t *out_shape) {
  if (!m) return ndx_set_error(NDX_EINVAL, "%s: move is NULL", call);
  if (m->n < 0 || (m->n > 0 && !m->shape))
    return ndx_set_error(NDX_EINVAL, "%s: %s move with %d entries%s", call, kind_name(m->kind),
                         m->n, m->n < 0 ? "" : " has a NULL array");
  *out_rank = m->n;
  switch (m->kind) {
  case NDX_RESHAPE:
    return check_reshape(call, m, rank, shape, numel, out_shape);
  case NDX_BROADCAST:
    return check_broadcast(call, m, rank, shape, out_shape);
  case NDX_PERMUTE:
    return check_permute(call, m, rank, shape, out_shape);
  case NDX_SLICE:
    return check_slice(call, m, rank, shape, out_shape);
  case NDX_WINDOW:
    return check_window(call, m, rank, shape, out_rank, out_shape);
  }
  return ndx_set_error(NDX_EINVAL, "%s: unknown move kind %d", call, (int)m->kind);
}

ndx_status ndx_move_shape(const ndx_move *m, int rank, const int64_t *shape, int *out_rank,
                          int64_t out_shape[NDX_MAX_RANK]) {
  if (!out_rank || !out_shape)
    return ndx_set_error(NDX_EINVAL, "ndx_move_shape: %s is NULL",
                         out_rank ? "out_shape" : "out_rank");
  int64_t result[NDX_MAX_RANK], numel;
  int r;
  ndx_status st = ndx_check_shape("ndx_move_shape", "shape", rank, shape, &numel);
  if (st == NDX_OK) st = move_check("ndx_move_shape", m, rank, shape, numel, &r, result);
  if (st != NDX_OK) return st;
  memcpy(out_shape, result, sizeof *result * (size_t)r);
  *out_rank = r;
  return NDX_OK;
}

/* ndx_apply_as on a layout of `numel` elements that passed ndx_check_layout:
 * the wrappers check theirs once, before their own argument checks. */
static ndx_status apply_checked(const char *call, ndx_layout *out, const ndx_move *m,
                                const ndx_layout *l, int64_t numel) {
  if (!out) return ndx_set_error(NDX_EINVAL, "%s: out is NULL", call);
  int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK], offset = l->offset;
  int rank;
  ndx_status st = move_check(call, m, l->rank, l->shape, numel, &rank, shape);
  if (st != NDX_OK) return st;
  switch (m->kind) {
  case NDX_RESHAPE:
    if (!ndx_reshape_strides(l, numel, rank, shape, strides)) {
      char from[NDX_DIMS_BUF], by[NDX_DIMS_BUF], to[NDX_DIMS_BUF];
      return ndx_set_error(NDX_ENOVIEW, "%s: no strides express %s with strides %s as %s", call,
                           ndx_fmt_dims(from, sizeof from, l->rank, l->shape),
                           ndx_fmt_dims(by, sizeof by, l->rank, l->strides),
                           ndx_fmt_dims(to, sizeof to, rank, shape));
    }
    break;
  case NDX_BROADCAST:
    for (int a = 0; a < rank; a++) {
      int old = a - (rank - l->rank);
      strides[a] = old >= 0 && l->shape[old] == shape[a] ? l->strides[old] : 0;
    }
    break;
  case NDX_PERMUTE:
    for (int a = 0; a < rank; a++) strides[a] = l->strides[m->perm[a]];
    break;
  case NDX_SLICE:
    /* Products here are bounded by (d-1)*|s| of a valid layout, except for an
     * axis of count <= 1, whose stride the canonical form drops. */
    for (int a = 0; a < rank; a++) {
      const ndx_range *r = &m->ranges[a];
      strides[a] = r->count > 1 ? l->strides[a] * r->step : 0;
      if (r->count > 0) offset += r->start * l->strides[a];
    }
    break;
  case NDX_WINDOW:
    memcpy(strides, l->strides, sizeof *strides * (size_t)l->rank);
    for (int k = 0; k < m->n; k++) {
      const ndx_window *w = &m->windows[k];
      int64_t s = l->strides[w->axis];
      strides[w->axis] = shape[w->axis] > 1 ? s * w->step : 0;
      strides[l->rank + k] = w->size > 1 ? s * w->dilation : 0;
    }
    break;
  }
  ndx_write_canonical(out, rank, shape, strides, offset);
  return NDX_OK;
}

ndx_status ndx_apply_as(const char *call, ndx_layout *out, const ndx_move *m, const ndx_layout *l) {
  int64_t numel;
  ndx_status st = ndx_check_layout_numel(call, "layout", l, &numel);
  return st != NDX_OK ? st : apply_checked(call, out, m, l, numel);
}

ndx_status ndx_apply(ndx_layout *out, const ndx_move *m, const ndx_layout *l) {
  return ndx_apply_as("ndx_apply", out, m, l);
}

/* ---- The vocabulary on top of the moves -------------------------------- */

ndx_status ndx_reshape(ndx_layout *out, const ndx_layout *l, int rank, const int64_t *shape) {
  ndx_move m = {.kind = NDX_RESHAPE, .n = rank, .shape = shape};
  return ndx_apply_as("ndx_reshape", out, &m, l);
}

ndx_status ndx_broadcast(ndx_layout *out, const ndx_layout *l, int rank, const int64_t *shape) {
  ndx_move m = {.kind = NDX_BROADCAST, .n = rank, .shape = shape};
  return ndx_apply_as("ndx_broadcast", out, &m, l);
}

ndx_status ndx_permute(ndx_layout *out, const ndx_layout *l, const int32_t *perm) {
  int64_t numel;
  ndx_status st = ndx_check_layout_numel("ndx_permute", "layout", l, &numel);
  if (st != NDX_OK) return st;
  if (!perm && l->rank > 0) return ndx_set_error(NDX_EINVAL, "ndx_permute: perm is NULL");
  ndx_move m = {.kind = NDX_PERMUTE, .n = l->rank, .perm = perm};
  return apply_checked("ndx_permute", out, &m, l, numel);
}

ndx_status ndx_slice(ndx_layout *out, const ndx_layout *l, const ndx_range *ranges) {
  int64_t numel;
  ndx_status st = ndx_check_layout_numel("ndx_slice", "layout", l, &numel);
  if (st != NDX_OK) return st;
  if (!ranges && l->rank > 0) return ndx_set_error(NDX_EINVAL, "ndx_slice: ranges is NULL");
  ndx_move m = {.kind = NDX_SLICE, .n = l->rank, .ranges = ranges};
  return apply_checked("ndx_slice", out, &m, l, numel);
}

ndx_status ndx_unfold(ndx_layout *out, const ndx_layout *l, int n, const ndx_window *w) {
  ndx_move m = {.kind = NDX_WINDOW, .n = n, .windows = w};
  return ndx_apply_as("ndx_unfold", out, &m, l);
}

/* Checks that `axis` is one of the `rank` axes of a checked `l`, for the
 * one-axis calls. */
static ndx_status check_axis(const char *call, const ndx_layout *l, int axis) {
  if (axis < 0 || axis >= l->rank)
    return ndx_set_error(NDX_EINVAL, "%s: axis %d is not an axis of rank %d", call, axis, l->rank);
  return NDX_OK;
}

static ndx_status check_out(const char *call, const ndx_layout *out) {
  return out ? NDX_OK : ndx_set_error(NDX_EINVAL, "%s: out is NULL", call);
}

/* Narrow, flip, transpose, squeeze and unsqueeze change one or two axes: each
 * writes its result directly, as the slice or the permutation it is would,
 * without a range or an entry for every axis. */

ndx_status ndx_narrow(ndx_layout *out, const ndx_layout *l, int axis, int64_t start, int64_t len) {
  ndx_status st = ndx_check_layout("ndx_narrow", "layout", l);
  if (st == NDX_OK) st = check_axis("ndx_narrow", l, axis);
  if (st != NDX_OK) return st;
  int64_t d = l->shape[axis];
  if (start < 0 || len < 0 || start > d || len > d - start)
    return ndx_set_error(NDX_EINVAL, "ndx_narrow: axis %d: start %lld, len %lld leave extent %lld",
                         axis, (long long)start, (long long)len, (long long)d);
  st = check_out("ndx_narrow", out);
  if (st != NDX_OK) return st;
  int64_t shape[NDX_MAX_RANK];
  memcpy(shape, l->shape, sizeof *shape * (size_t)l->rank);
  shape[axis] = len;
  /* start < d when len > 0: a position difference of the layout */
  int64_t offset = l->offset + (len > 0 ? start * l->strides[axis] : 0);
  ndx_write_canonical(out, l->rank, shape, l->strides, offset);
  return NDX_OK;
}

ndx_status ndx_flip(ndx_layout *out, const ndx_layout *l, int axis) {
  ndx_status st = ndx_check_layout("ndx_flip", "layout", l);
  if (st == NDX_OK) st = check_axis("ndx_flip", l, axis);
  if (st == NDX_OK) st = check_out("ndx_flip", out);
  if (st != NDX_OK) return st;
  int64_t d = l->shape[axis], s = l->strides[axis];
  int64_t strides[NDX_MAX_RANK];
  memcpy(strides, l->strides, sizeof *strides * (size_t)l->rank);
  /* The offset moves by (d-1)*s with s's sign kept, so flipping twice is the
   * identity ((d-1)*|s| would be wrong for negative strides; docs/semantics.md
   * section 4, Flip). An axis of extent <= 1 keeps no stride to negate. */
  strides[axis] = d > 1 ? -s : 0;
  ndx_write_canonical(out, l->rank, l->shape, strides, l->offset + (d > 1 ? (d - 1) * s : 0));
  return NDX_OK;
}

ndx_status ndx_transpose(ndx_layout *out, const ndx_layout *l, int a, int b) {
  ndx_status st = ndx_check_layout("ndx_transpose", "layout", l);
  if (st == NDX_OK) st = check_axis("ndx_transpose", l, a);
  if (st == NDX_OK) st = check_axis("ndx_transpose", l, b);
  if (st == NDX_OK) st = check_out("ndx_transpose", out);
  if (st != NDX_OK) return st;
  int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK];
  memcpy(shape, l->shape, sizeof *shape * (size_t)l->rank);
  memcpy(strides, l->strides, sizeof *strides * (size_t)l->rank);
  shape[a] = l->shape[b], strides[a] = l->strides[b];
  shape[b] = l->shape[a], strides[b] = l->strides[a];
  ndx_write_canonical(out, l->rank, shape, strides, l->offset);
  return NDX_OK;
}

/* Squeeze and unsqueeze are reshapes that only remove or insert an extent-1
 * axis, whose stride the canonical form makes 0: the other axes keep their
 * strides, so the result is built directly rather than by the reshape walk. */
ndx_status ndx_squeeze(ndx_layout *out, const ndx_layout *l, int axis) {
  ndx_status st = ndx_check_layout("ndx_squeeze", "layout", l);
  if (st == NDX_OK) st = check_axis("ndx_squeeze", l, axis);
  if (st != NDX_OK) return st;
  if (l->shape[axis] != 1)
    return ndx_set_error(NDX_EINVAL, "ndx_squeeze: axis %d has extent %lld, not 1", axis,
                         (long long)l->shape[axis]);
  st = check_out("ndx_squeeze", out);
  if (st != NDX_OK) return st;
  int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK];
  for (int a = 0, k = 0; a < l->rank; a++)
    if (a != axis) {
      shape[k] = l->shape[a];
      strides[k++] = l->strides[a];
    }
  ndx_write_canonical(out, l->rank - 1, shape, strides, l->offset);
  return NDX_OK;
}

ndx_status ndx_unsqueeze(ndx_layout *out, const ndx_layout *l, int axis) {
  ndx_status st = ndx_check_layout("ndx_unsqueeze", "layout", l);
  if (st != NDX_OK) return st;
  if (axis < 0 || axis > l->rank)
    return ndx_set_error(NDX_EINVAL, "ndx_unsqueeze: axis %d is not in [0, %d]", axis, l->rank);
  if (l->rank == NDX_MAX_RANK)
    return ndx_set_error(NDX_ERANGE, "ndx_unsqueeze: the layout already has %d axes", NDX_MAX_RANK);
  st = check_out("ndx_unsqueeze", out);
  if (st != NDX_OK) return st;
  int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK];
  for (int a = 0, k = 0; k <= l->rank; k++) {
    shape[k] = k == axis ? 1 : l->shape[a];
    strides[k] = k == axis ? 0 : l->strides[a++];
  }
  ndx_write_canonical(out, l->rank + 1, shape, strides, l->offset);
  return NDX_OK;
}
