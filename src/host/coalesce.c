/* coalesce.c: merging the axes that every layout of a copy lays out as one run
 * (docs/semantics.md section 5), the step every kernel launch starts with.
 *
 * The merge is the one packs and plans use (ndx_coalesce_axes and
 * ndx_merge_plan, operands.c), applied to full layouts. The merge plan is made
 * once from all layouts: result axis x has extent extent[x] and takes its
 * strides from old axis from[x], the innermost of the axes it merges. Then each
 * operand is rewritten from its own entry alone, so `out` may be `in`. Axes are
 * never reordered.
 *
 * The common case, layouts within the limits with an element, is merged first
 * and its positions checked on the merged axes, fewer than the layouts' own;
 * anything else goes to the checks, which name the flaw, and then to the merge
 * on checked layouts. */

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

/* Rewrites the `n` layouts by the merge plan (extent, from) of rank r, axis by
 * axis from the first: result axis x reads old axis from[x] >= x, which no
 * earlier step has written, so `out` may be `in`. */
static void write_merged(int n, const ndx_layout *in, ndx_layout *out, int r, const int64_t *extent,
                         const int *from) {
  for (int k = 0; k < n; k++) {
    const ndx_layout *l = &in[k];
    ndx_layout *o = &out[k];
    o->offset = l->offset;
    for (int x = 0; x < r; x++) {
      o->strides[x] = from[x] >= 0 ? l->strides[from[x]] : 0;
      o->shape[x] = extent[x];
    }
    ndx_clear_tail(o, r);
    o->rank = r;
    o->flags = 0;
  }
}

/* For the common case: true iff `l` has rank `rank` and the extents `shape`
 * (in[0]'s), and, for in[0] itself (`first`), the extents are within the
 * limits with an element (ndx_extents_ok). Clears in *merges the bit of each
 * axis a of extent > 1 that does not step over all of the next such axis b
 * inside it: stride[a] == stride[b] * d[b], with the product in uint64 so that
 * one past int64 wraps. Where it wraps and still matches, the merged reach
 * passes int64 too, and merged_within_limits refuses the layout. */
static inline bool mark_merges(const ndx_layout *l, int rank, const int64_t *shape, bool first,
                               uint32_t *merges) {
  int64_t differ = l->rank ^ rank;
  ndx_extent_product e = {1, 0, false};
  uint64_t inner_step = 0; /* stride * extent of the last axis of extent > 1 */
  uint32_t steps_over = 0;
  for (int a = rank - 1; a >= 0; a--) {
    int64_t d = shape[a];
    uint64_t s = (uint64_t)l->strides[a];
    if (first)
      ndx_extent_add(&e, d);
    else
      differ |= l->shape[a] ^ d;
    if (d == 1) continue;
    steps_over |= (uint32_t)(s == inner_step) << a;
    inner_step = s * (uint64_t)d;
  }
  *merges &= steps_over;
  return first ? ndx_extents_ok(&e) : differ == 0;
}

/* True iff the positions of `l` are within the limits, summed over the r
 * merged axes of the plan (extent, from) rather than over its own: the same
 * verdict, since a merged axis's reach is the sum of the reaches of the axes
 * it merges, all of one sign, when no product on the way passes int64, and
 * passes int64 itself when one does. */
static bool merged_within_limits(const ndx_layout *l, int r, const int64_t *extent,
                                 const int *from) {
  ndx_span_sum p = ndx_span_start(l->offset);
  for (int x = 0; x < r; x++) ndx_span_add(&p, extent[x], from[x] >= 0 ? l->strides[from[x]] : 0);
  return ndx_span_within_limits(&p, l->offset);
}

/* The common case of ndx_coalesce: true iff every layout is within the limits,
 * has an element and has in[0]'s shape, what the checks accept without a walk;
 * then writes the result. Writes nothing when false. */
static bool coalesce_common(int n, const ndx_layout *in, ndx_layout *out) {
  int rank = in[0].rank;
  uint32_t merges = UINT32_MAX;
  if (rank < 0 || rank > NDX_MAX_RANK || !mark_merges(&in[0], rank, in[0].shape, true, &merges))
    return false;
  for (int k = 1; k < n; k++)
    if (!mark_merges(&in[k], rank, in[0].shape, false, &merges)) return false;
  int64_t extent[NDX_MAX_RANK];
  int from[NDX_MAX_RANK];
  int r = ndx_merge_plan(rank, in[0].shape, merges, extent, from);
  for (int k = 0; k < n; k++)
    if (!merged_within_limits(&in[k], r, extent, from)) return false;
  write_merged(n, in, out, r, extent, from);
  return true;
}

ndx_status ndx_coalesce(int n, const ndx_layout *in, ndx_layout *out) {
  if (!in || !out) return ndx_set_error(NDX_EINVAL, "ndx_coalesce: %s is NULL", in ? "out" : "in");
  if (n < 1 || n > NDX_COALESCE_MAX)
    return ndx_set_error(NDX_EINVAL, "ndx_coalesce: n = %d is not in [1, %d]", n, NDX_COALESCE_MAX);
  if (coalesce_common(n, in, out)) return NDX_OK;
  ndx_status st = check_each("ndx_coalesce", n, in);
  if (st != NDX_OK) return st;
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
  write_merged(n, in, out, rank, extent, from);
}
