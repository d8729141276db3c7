/* operands.c: the plain operands packs and plans are made in (operands.h):
 * the one coalescer (ndx_coalesce_axes, which ndx_coalesce applies to full
 * layouts), loading layouts, the copy's normalization, reordering, spans and
 * the choice of form. Nothing allocates. */
#include <string.h>

#include "operands.h"

/* True iff every operand has strides[k][a] == strides[k][b] * shape[b]: axis
 * a steps over all of axis b, so (a, b) reads as one axis. The product is
 * taken in uint64, which wraps: a layout with no element may have any
 * strides (its merge plan is [0] whatever they are), and in a layout within
 * the limits with an element no product passes int64. */
static bool mergeable(const int64_t *shape, int n, const int64_t *const *strides, int a, int b) {
  for (int k = 0; k < n; k++)
    if ((uint64_t)strides[k][a] != (uint64_t)strides[k][b] * (uint64_t)shape[b]) return false;
  return true;
}

int ndx_coalesce_axes(int rank, const int64_t *shape, int n, const int64_t *const *strides,
                      int64_t *extent, int *from) {
  uint32_t merges = 0;
  for (int a = rank - 1, inner = -1; a >= 0; a--) {
    if (shape[a] == 1) continue;
    if (inner >= 0 && mergeable(shape, n, strides, a, inner)) merges |= UINT32_C(1) << a;
    inner = a;
  }
  return ndx_merge_plan(rank, shape, merges, extent, from);
}

int ndx_merge_plan(int rank, const int64_t *shape, uint32_t merges, int64_t *extent, int *from) {
  /* From the outer axes inward: an axis of extent > 1 joins the result axis
   * of the one before it when that one steps over it, and becomes its
   * innermost (from); the extent being built is kept aside until an axis that
   * does not join closes it. */
  int r = 0, outer = -1;
  int64_t run = 1;
  bool empty = false;
  for (int a = 0; a < rank; a++) {
    int64_t d = shape[a];
    empty |= d == 0;
    if (d == 1) continue;
    if (outer >= 0 && (merges >> outer & 1)) {
      run *= d;
    } else {
      if (r > 0) extent[r - 1] = run;
      r++;
      run = d;
    }
    from[r - 1] = a;
    outer = a;
  }
  if (empty || r == 0) { /* at most one element: [0] or [1], stride 0 */
    extent[0] = empty ? 0 : 1;
    from[0] = -1;
    return 1;
  }
  extent[r - 1] = run;
  return r;
}

/* The strides of each operand, as ndx_coalesce_axes takes them. */
static void stride_rows(const ndx_operands *o, const int64_t **rows) {
  for (int k = 0; k < o->nops; k++) rows[k] = o->strides[k];
}

/* Rewrites `o` by the merge plan (extent, from) of rank r; in place, since
 * new axis x reads old axis from[x] >= x, which no earlier step has written. */
static void apply_merge(ndx_operands *o, int r, const int64_t *extent, const int *from) {
  for (int x = 0; x < r; x++) {
    o->shape[x] = extent[x];
    for (int k = 0; k < o->nops; k++) o->strides[k][x] = from[x] >= 0 ? o->strides[k][from[x]] : 0;
  }
  o->rank = r;
}

void ndx_operands_load(ndx_operands *o, int n, const ndx_layout *const *in) {
  const int64_t *rows[NDX_PACK_MAX_OPS] = {NULL};
  for (int k = 0; k < n; k++) rows[k] = in[k]->strides;
  int64_t extent[NDX_MAX_RANK];
  int from[NDX_MAX_RANK];
  int r = ndx_coalesce_axes(in[0]->rank, in[0]->shape, n, rows, extent, from);
  o->nops = n;
  o->rank = r;
  o->numel = 1;
  for (int x = 0; x < r; x++) {
    o->numel *= extent[x];
    o->shape[x] = extent[x];
  }
  for (int k = 0; k < n; k++) {
    o->offset[k] = in[k]->offset; /* 0 for no element: the layout is canonical */
    for (int x = 0; x < r; x++) o->strides[k][x] = from[x] >= 0 ? in[k]->strides[from[x]] : 0;
  }
}

void ndx_operands_coalesce(ndx_operands *o) {
  const int64_t *rows[NDX_PACK_MAX_OPS] = {NULL};
  stride_rows(o, rows);
  int64_t extent[NDX_MAX_RANK];
  int from[NDX_MAX_RANK];
  int r = ndx_coalesce_axes(o->rank, o->shape, o->nops, rows, extent, from);
  apply_merge(o, r, extent, from);
}

void ndx_operands_normalize(ndx_operands *o) {
  if (o->numel == 0) return; /* coalesced to [0], every stride 0 */
  for (int a = 0; a < o->rank; a++) {
    if (o->strides[0][a] >= 0) continue;
    for (int k = 0; k < o->nops; k++) {
      o->offset[k] += (o->shape[a] - 1) * o->strides[k][a];
      o->strides[k][a] = -o->strides[k][a];
    }
  }
  /* Insertion sort: stable, O(rank^2) on at most 32 axes. */
  for (int a = 1; a < o->rank; a++) {
    int64_t d = o->shape[a], s[NDX_PACK_MAX_OPS];
    for (int k = 0; k < o->nops; k++) s[k] = o->strides[k][a];
    int b = a;
    for (; b > 0 && o->strides[0][b - 1] < s[0]; b--) {
      o->shape[b] = o->shape[b - 1];
      for (int k = 0; k < o->nops; k++) o->strides[k][b] = o->strides[k][b - 1];
    }
    o->shape[b] = d;
    for (int k = 0; k < o->nops; k++) o->strides[k][b] = s[k];
  }
  ndx_operands_coalesce(o);
}

void ndx_operands_permute(ndx_operands *o, const int *perm) {
  ndx_operands p = *o;
  for (int a = 0; a < o->rank; a++) {
    o->shape[a] = p.shape[perm[a]];
    for (int k = 0; k < o->nops; k++) o->strides[k][a] = p.strides[k][perm[a]];
  }
}

void ndx_operands_span(const ndx_operands *o, int k, int64_t *lo, int64_t *hi) {
  if (o->numel == 0) {
    *lo = *hi = 0;
    return;
  }
  int64_t l = o->offset[k], h = l;
  for (int a = 0; a < o->rank; a++) {
    int64_t r = (o->shape[a] - 1) * o->strides[k][a];
    if (r < 0)
      l += r;
    else
      h += r;
  }
  *lo = l;
  *hi = h + 1;
}

bool ndx_operands_fit_narrow(const ndx_operands *o) {
  if (o->numel > INT32_MAX) return false;
  for (int k = 0; k < o->nops; k++) {
    int64_t hi = o->offset[k], reach;
    for (int a = 0; a < o->rank; a++)
      if (o->shape[a] > 1 && o->strides[k][a] > 0 &&
          (!ndx_mul_ok(o->shape[a] - 1, o->strides[k][a], &reach) || !ndx_add_ok(hi, reach, &hi)))
        return false;
    if (hi > INT32_MAX) return false;
  }
  return true;
}
