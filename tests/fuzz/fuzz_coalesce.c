/* fuzz_coalesce.c: ndx_coalesce on one to a few layouts of one shape.
 *
 * Each input gives a layout and up to three more of its shape (random
 * strides, strides of a C-order parent, or another operand's strides, so that
 * merges happen), or sometimes of another shape or a bad count. The results
 * must reach, layout by layout, the same positions in the same C order
 * (enumerated), share one shape of at least one axis with no extent-1 axis
 * (but [1] for a single element), leave no pair of adjacent axes that every
 * layout could still merge, be what coalescing them again gives, and not
 * depend on `out` aliasing `in`. A refused call leaves `out` untouched. */
#define FUZZ_NAME "coalesce"
#include "fuzz.h"

#define MAX_OPS 5

static int64_t before_pos[MAX_OPS][FZ_MAX_POSITIONS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_reader r = {data, size, 0};
  ndx_layout in[MAX_OPS];
  if (!fz_layout(&r, &in[0])) return 0;
  int n = 1 + fz_byte(&r) % 4;
  for (int k = 1; k < n; k++)
    if (!fz_sibling(&r, &in[0], in, k, &in[k])) return 0;
  uint8_t twist = fz_byte(&r);
  int count = n;
  if (twist % 16 == 1) { /* a layout of another shape, mostly */
    int k = fz_byte(&r) % n;
    if (!fz_layout(&r, &in[k])) return 0;
  } else if (twist % 16 == 2) {
    count = fz_byte(&r) % 2 ? 0 : NDX_COALESCE_MAX + 1 + fz_byte(&r) % 4;
  }
  bool other_shape = false;
  for (int k = 1; k < n; k++) {
    other_shape = other_shape || in[k].rank != in[0].rank;
    for (int a = 0; a < in[0].rank && !other_shape; a++)
      other_shape = in[k].shape[a] != in[0].shape[a];
  }

  ndx_layout out[MAX_OPS], before[MAX_OPS];
  memset(out, 0xc3, sizeof out);
  memcpy(before, out, sizeof out);
  if (count != n) {
    fz_check(ndx_coalesce(count, in, out) == NDX_EINVAL, "a count outside [1, 64] is refused");
    fz_check_untouched(out, before, sizeof out, NDX_EINVAL);
    return 0;
  }
  ndx_status st = ndx_coalesce(n, in, out);
  if (other_shape) {
    fz_check(st == NDX_EINVAL, "layouts of different shapes are refused");
    fz_check_untouched(out, before, sizeof out, st);
    return 0;
  }
  fz_check(st == NDX_OK, "layouts of one shape coalesce");

  int64_t numel = ndx_numel(&in[0]);
  bool small = numel <= FZ_MAX_POSITIONS;
  for (int k = 0; k < n && small; k++) oracle_positions(&in[k], before_pos[k]);
  int nontrivial = 0;
  for (int a = 0; a < in[0].rank; a++) nontrivial += in[0].shape[a] != 1;
  for (int k = 0; k < n; k++) {
    const ndx_layout *c = &out[k];
    fz_check(fz_check_layout(c) == numel, "coalescing keeps the element count");
    if (small)
      fz_check(memcmp(fz_pos_a, before_pos[k], sizeof *fz_pos_a * (size_t)numel) == 0,
               "coalescing keeps the positions in C order");
    else
      fz_check(fz_position_of(c, numel - 1) == fz_position_of(&in[k], numel - 1) &&
                   c->offset == in[k].offset,
               "coalescing keeps the first and last positions");
    fz_check(c->rank >= 1 && c->rank <= (nontrivial > 0 ? nontrivial : 1),
             "at least one axis, no more than the input's axes of extent other than 1");
    fz_check(c->rank == out[0].rank && memcmp(c->shape, out[0].shape, sizeof c->shape) == 0,
             "the results share one shape");
    if (numel > 1)
      for (int a = 0; a < c->rank; a++) fz_check(c->shape[a] > 1, "no extent-1 axis is left");
    else
      fz_check(c->rank == 1 && c->shape[0] == numel,
               "a layout of at most one element is [1] or [0]");
  }
  for (int a = 0; a + 1 < out[0].rank; a++) {
    bool merge = true;
    for (int k = 0; k < n; k++)
      merge = merge && out[k].strides[a] == out[k].strides[a + 1] * out[k].shape[a + 1];
    fz_check(!merge, "no two adjacent axes every layout lays out as one run are left");
  }
  ndx_layout again[MAX_OPS], alias[MAX_OPS];
  fz_check(ndx_coalesce(n, out, again) == NDX_OK &&
               memcmp(again, out, sizeof *out * (size_t)n) == 0,
           "coalescing is idempotent");
  memcpy(alias, in, sizeof alias);
  fz_check(ndx_coalesce(n, alias, alias) == NDX_OK &&
               memcmp(alias, out, sizeof *out * (size_t)n) == 0,
           "out == in gives the same results");
  return 0;
}
