/* reshape.c: the strides of a reshape without copying, exactly when some
 * strides express it (docs/semantics.md section 4, Reshape).
 *
 * Extent-1 axes carry no position, so both shapes are read without them. The
 * remaining old and new axes fall into groups of equal products, the finest
 * split at which both shapes agree on the element count. A new axis inside a
 * group steps through its old axes at once, so the group's old axes must form
 * one run (stride[a] == stride[a+1] * d[a+1]); then the new strides are the
 * group's innermost old stride multiplied outward. A layout with at most one
 * element is every shape, with strides 0; one whose axes are all one run is
 * one group, found in a single pass before the walk. */
#include "ndx_internal.h"

/* The next axis at or after *a whose extent is not 1; moves *a past it. */
static int next_axis(const int64_t *shape, int *a) {
  while (shape[*a] == 1) (*a)++;
  return (*a)++;
}

/* True iff the axes of `l` (at least two elements) of extent above 1 form one run of step
 * *step: each stride is *step times the extents inside it, as in a C-order layout (step 1) or a
 * strided slice of its innermost axis. Every shape of its count is then a view. Branch-free over
 * the axes; a product past int64 is no run. */
static bool one_run(const ndx_layout *l, int64_t *step) {
  int a = l->rank - 1;
  while (l->shape[a] == 1) a--;
  int64_t s = l->strides[a], reach = s;
  bool run = true;
  for (; a >= 0; a--) {
    run &= l->shape[a] == 1 || l->strides[a] == reach;
    run &= !__builtin_mul_overflow(reach, l->shape[a], &reach);
  }
  *step = s;
  return run;
}

/* The group walk above, for `l` with at least two elements. */
static bool walk_groups(const ndx_layout *l, int rank, const int64_t *shape, int64_t *new_strides) {
  int old_end = l->rank, new_end = rank;
  while (old_end > 0 && l->shape[old_end - 1] == 1) old_end--;
  while (new_end > 0 && shape[new_end - 1] == 1) new_end--;
  int i = 0, j = 0; /* the next old and new axes to read */
  while (i < old_end) {
    int first_new = j;
    int a = next_axis(l->shape, &i), b = next_axis(shape, &j);
    int64_t old_product = l->shape[a], new_product = shape[b];
    while (old_product != new_product) {
      if (old_product < new_product) {
        int next = next_axis(l->shape, &i);
        if (l->strides[a] != l->strides[next] * l->shape[next]) return false;
        a = next;
        old_product *= l->shape[a];
      } else {
        new_product *= shape[next_axis(shape, &j)];
      }
    }
    /* `a` is the group's innermost old axis; lay the new axes outward from it. */
    int64_t stride = l->strides[a], below = 1;
    for (int k = j - 1; k >= first_new; k--) {
      if (shape[k] == 1) continue;
      stride *= below; /* a position difference inside the run: it fits */
      new_strides[k] = stride;
      below = shape[k];
    }
  }
  return true;
}

bool ndx_reshape_strides(const ndx_layout *l, int64_t numel, int rank, const int64_t *shape,
                         int64_t *new_strides) {
  int64_t step;
  if (numel > 1 && one_run(l, &step)) {
    /* One group: the new strides are the step times the C-order strides of
     * `shape`. Each is at most the reach of the old outermost axis, and the
     * last product at most twice that. */
    for (int k = rank - 1; k >= 0; k--) {
      new_strides[k] = shape[k] > 1 ? step : 0;
      step *= shape[k];
    }
    return true;
  }
  for (int k = 0; k < rank; k++) new_strides[k] = 0;
  return numel <= 1 || walk_groups(l, rank, shape, new_strides);
}
