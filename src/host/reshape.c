/* reshape.c: the strides of a reshape without copying, exactly when some
 * strides express it (docs/semantics.md section 4, Reshape).
 *
 * Extent-1 axes carry no position, so both shapes are read without them. The
 * remaining old and new axes fall into groups of equal products, the finest
 * split at which both shapes agree on the element count. A new axis inside a
 * group steps through its old axes at once, so the group's old axes must form
 * one run (stride[a] == stride[a+1] * d[a+1]); then the new strides are the
 * group's innermost old stride multiplied outward. A layout with at most one
 * element is every shape, with strides 0. */
#include "ndx_internal.h"

/* The next axis at or after *a whose extent is not 1; moves *a past it. */
static int next_axis(const int64_t *shape, int *a) {
  while (shape[*a] == 1) (*a)++;
  return (*a)++;
}

bool ndx_reshape_strides(const ndx_layout *l, int rank, const int64_t *shape,
                         int64_t *new_strides) {
  for (int k = 0; k < rank; k++) new_strides[k] = 0;
  if (ndx_at_most_one_element(l->rank, l->shape)) return true;
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
