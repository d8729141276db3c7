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

ndx_status ndx_coalesce(int n, const ndx_layout *in, ndx_layout *out) {
  if (!in || !out) return ndx_set_error(NDX_EINVAL, "ndx_coalesce: %s is NULL", in ? "out" : "in");
  if (n < 1 || n > NDX_COALESCE_MAX)
    return ndx_set_error(NDX_EINVAL, "ndx_coalesce: n = %d is not in [1, %d]", n, NDX_COALESCE_MAX);
  for (int k = 0; k < n; k++) {
    ndx_status st = ndx_check_layout_nth("ndx_coalesce", "in[%d]", k, &in[k]);
    if (st != NDX_OK) return st;
  }
  const ndx_layout *ls[NDX_COALESCE_MAX];
  for (int k = 0; k < n; k++) ls[k] = &in[k];
  ndx_status st = ndx_check_same_shape("ndx_coalesce", n, ls, NULL);
  if (st != NDX_OK) return st;
  ndx_coalesce_checked(n, in, out);
  return NDX_OK;
}

void ndx_coalesce_checked(int n, const ndx_layout *in, ndx_layout *out) {
  const int64_t *strides[NDX_COALESCE_MAX] = {NULL};
  for (int k = 0; k < n; k++) strides[k] = in[k].strides;
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
