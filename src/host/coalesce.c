/* coalesce.c: merging the axes that every layout of a copy lays out as one run
 * (docs/semantics.md section 5), the step every kernel launch starts with.
 *
 * The merge plan is made once from all layouts: result axis r has extent
 * extent[r] and takes its strides from old axis inner[r], the innermost of
 * the axes it merges. Then each layout is rewritten from its own entry alone,
 * so `out` may be `in`. Axes are never reordered. */

#include "ndx_internal.h"

/* True iff every layout has stride[a] == stride[b] * d[b]: axis a steps over
 * all of axis b, so (a, b) reads as one axis. */
static bool mergeable(int n, const ndx_layout *in, int a, int b) {
  for (int k = 0; k < n; k++)
    if (in[k].strides[a] != in[k].strides[b] * in[k].shape[b]) return false;
  return true;
}

ndx_status ndx_coalesce(int n, const ndx_layout *in, ndx_layout *out) {
  if (!in || !out) return ndx_set_error(NDX_EINVAL, "ndx_coalesce: %s is NULL", in ? "out" : "in");
  if (n < 1 || n > NDX_COALESCE_MAX)
    return ndx_set_error(NDX_EINVAL, "ndx_coalesce: n = %d is not in [1, %d]", n, NDX_COALESCE_MAX);
  for (int k = 0; k < n; k++) {
    ndx_status st = ndx_check_layout_nth("ndx_coalesce", "in[%d]", k, &in[k]);
    if (st != NDX_OK) return st;
  }
  const ndx_layout *first = &in[0];
  for (int k = 1; k < n; k++) {
    bool same = in[k].rank == first->rank;
    for (int a = 0; same && a < first->rank; a++) same = in[k].shape[a] == first->shape[a];
    if (!same) {
      char s0[NDX_DIMS_BUF], sk[NDX_DIMS_BUF];
      return ndx_set_error(NDX_EINVAL, "ndx_coalesce: layout %d has shape %s, layout 0 has %s", k,
                           ndx_fmt_dims(sk, sizeof sk, in[k].rank, in[k].shape),
                           ndx_fmt_dims(s0, sizeof s0, first->rank, first->shape));
    }
  }
  ndx_coalesce_checked(n, in, out);
  return NDX_OK;
}

void ndx_coalesce_checked(int n, const ndx_layout *in, ndx_layout *out) {
  const ndx_layout *first = &in[0];
  /* The plan, built from the inner axes outward. */
  int64_t extent[NDX_MAX_RANK];
  int inner[NDX_MAX_RANK], rank = 0, outer_of_last = -1;
  int64_t numel = ndx_numel(first);
  if (numel > 1) {
    for (int a = first->rank - 1; a >= 0; a--) {
      if (first->shape[a] == 1) continue;
      if (rank > 0 && mergeable(n, in, a, outer_of_last)) {
        extent[rank - 1] *= first->shape[a];
      } else {
        extent[rank] = first->shape[a];
        inner[rank++] = a;
      }
      outer_of_last = a;
    }
  } else {
    extent[rank] = numel; /* [1] or [0], stride 0 */
    inner[rank++] = -1;
  }
  /* In place, axis by axis from the first: result axis x reads old axis
   * inner[..] >= x, which no earlier step has written. */
  for (int k = 0; k < n; k++) {
    const ndx_layout *l = &in[k];
    ndx_layout *r = &out[k];
    r->offset = l->offset;
    for (int x = 0; x < rank; x++) {
      int a = inner[rank - 1 - x];
      r->strides[x] = a >= 0 ? l->strides[a] : 0;
      r->shape[x] = extent[rank - 1 - x];
    }
    for (int x = rank; x < NDX_MAX_RANK; x++) r->shape[x] = r->strides[x] = 0;
    r->rank = rank;
    r->flags = 0;
  }
}
