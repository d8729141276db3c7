/* coalesce.c: merging the axes that every layout of a copy lays out as one run
 * (docs/semantics.md section 5), the step every kernel launch starts with.
 *
 * The merge is the one packs and plans use (ndx_coalesce_axes, operands.c),
 * applied to full layouts. The merge plan is made once from all layouts: result axis x has extent
 * extent[x] and takes its strides from old axis from[x], the innermost of the axes it merges. Then
 * each operand is rewritten from its own entry alone, so `out` may be `in`. Axes are never
 * reordered. */

#include "ndx_internal.h"
#include "operands.h"

/* The checks of the `n` layouts one by one, in the order their messages
 * name the first flaw: each layout, then their shapes. */
static ndx_status check_each(const char *call, int n, const ndx_layout *in) {
  for (int k = 0; k < n; k++) {
    ndx_status st = ndx_check_layout_nth(call, "in[%d]", k, &in[k]);
    if (st != NDX_OK) return st;
  }
  const ndx_layout *ls[NDX_COALESCE_MAX];
  for (int k = 0; k < n; k++) ls[k] = &in[k];
  return ndx_check_same_shape(call, n, ls, NULL);
}

ndx_status ndx_coalesce(int n, const ndx_layout *in, ndx_layout *out) {
  if (!in || !out) return ndx_set_error(NDX_EINVAL, "ndx_coalesce: %s is NULL", in ? "out" : "in");
  if (n < 1 || n > NDX_COALESCE_MAX)
    return ndx_set_error(NDX_EINVAL, "ndx_coalesce: n = %d is not in [1, %d]", n, NDX_COALESCE_MAX);
  if (!ndx_layouts_within_limits(n, in)) {
    ndx_status st = check_each("ndx_coalesce", n, in);
    if (st != NDX_OK) return st;
  }
  ndx_coalesce_checked(n, in, out);
  return NDX_OK;
}

void ndx_coalesce_checked(int n, const ndx_layout *in, ndx_layout *out) {
  /* n entries written, not the whole array, which is long; the first before
   * the loop so that the compiler sees it written */
  const int64_t *strides[NDX_COALESCE_MAX];
  strides[0] = in[0].strides;
  for (int k = 1; k < n; k++) strides[k] = in[k].strides;
  int64_t extent[NDX_MAX_RANK];
  int from[NDX_MAX_RANK];
  int rank = ndx_coalesce_axes(in[0].rank, in[0].shape, n, strides, extent, from);
  /* In place, axis by axis from the first: result axis x reads old axis
   * from[x] >= x, which no earlier step has written. */
  for (int k = 0; k < n; k++) {
    const ndx_layout *l = &in[k];
    ndx_layout *r = &out[k];
    r->offset = l->offset;
    for (int x = 0; x < rank; x++) {
      r->strides[x] = from[x] >= 0 ? l->strides[from[x]] : 0;
      r->shape[x] = extent[x];
    }
    for (int x = rank; x < NDX_MAX_RANK; x++) r->shape[x] = r->strides[x] = 0;
    r->rank = rank;
    r->flags = 0;
  }
}
