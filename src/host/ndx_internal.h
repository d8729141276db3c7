/* ndx_internal.h: what the library's own files share and users never see. */
#ifndef NDX_INTERNAL_H
#define NDX_INTERNAL_H

#include "ndx/ndx_layout.h"

/* Writes v in decimal ("-12") to `out`, which has room for NDX_INT_CHARS, without a NUL; returns
 * the length. What the messages and ndx_format print integers with, instead of snprintf. */
int ndx_fmt_int(char *out, int64_t v);
#define NDX_INT_CHARS 20 /* "-9223372036854775808" */

/* Writes "[3,4]" (the first `n` values of `v`) into buf, always NUL-terminated (truncated to
 * size - 1 characters), and returns buf, for messages. */
char *ndx_fmt_dims(char *buf, size_t size, int n, const int64_t *v);
#define NDX_DIMS_BUF 704 /* 32 values of up to 20 characters, commas, brackets */

/* |s| for a stride that is not INT64_MIN. */
static inline int64_t ndx_abs64(int64_t s) {
  return s < 0 ? -s : s;
}

/* True iff the `rank` extents of `shape` count at most one element: one is 0, or none is above 1.
 * No product: the test the walks over axes start with. */
static inline bool ndx_at_most_one_element(int rank, const int64_t *shape) {
  bool empty = false, several = false;
  for (int a = 0; a < rank; a++) {
    empty |= shape[a] == 0;
    several |= shape[a] > 1;
  }
  return empty || !several;
}

/* Overflow-checked int64 arithmetic: true iff the result fits (stored in *r). */
static inline bool ndx_add_ok(int64_t a, int64_t b, int64_t *r) {
  return !__builtin_add_overflow(a, b, r);
}
static inline bool ndx_mul_ok(int64_t a, int64_t b, int64_t *r) {
  return !__builtin_mul_overflow(a, b, r);
}

/* ceil(a / b) for a >= 0, b > 0 and a + b within int64: work-items or blocks
 * of a launch; n rounded up to a multiple of m > 0, for a global size. */
static inline int64_t ndx_ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
static inline size_t ndx_round_up(size_t n, size_t m) {
  return (n + m - 1) / m * m;
}

/* Checks a shape (named `what` in messages: "shape", "new shape") for `call`: `shape` non-NULL when
 * rank > 0, 0 <= rank <= NDX_MAX_RANK, no negative extent, the non-zero extents multiplying to at
 * most NDX_MAX_NUMEL. Stores the element count in *numel when it returns OK. */
ndx_status ndx_check_shape(const char *call, const char *what, int rank, const int64_t *shape,
                           int64_t *numel);

/* Checks a layout argument for `call`: not NULL and not flawed (ndx_layout_flaw), else
 * NDX_EINVAL naming `name` and the values. O(rank), so that no call reads past the arrays or
 * overflows on a layout written by hand. */
ndx_status ndx_check_layout(const char *call, const char *name, const ndx_layout *l);

/* ndx_check_layout for entry k of an array argument, named by `name_fmt` with k (e.g.
 * "in[%d]"); the name is formatted only on failure, so the check stays O(rank). */
ndx_status ndx_check_layout_nth(const char *call, const char *name_fmt, int k, const ndx_layout *l);

/* True iff the `n` layouts of `in` (n >= 1) are within the limits, each has an element, and all
 * have in[0]'s shape: the common case of ndx_check_layout on each and ndx_check_same_shape, in
 * one pass that checks the shape once. False says nothing: those checks then name the flaw, or
 * accept the layouts. O(n * rank), no message written. */
bool ndx_layouts_within_limits(int n, const ndx_layout *in);

/* True iff `bits` is 1, 2, 4, 8, 16, 32, 64 or 128: the element widths ndx packs and copies. */
bool ndx_bits_ok(int bits);

/* NDX_OK when ndx_bits_ok(bits), else NDX_EINVAL saying so for `call`. */
ndx_status ndx_check_bits(const char *call, int bits);

/* Checks that the `n` layouts (each passing ndx_check_layout) have one shape, for `call`:
 * NDX_EINVAL naming the first that differs from in[0] by names[k] and names[0], or by
 * "layout k" and "layout 0" when `names` is NULL. O(n * rank). */
ndx_status ndx_check_same_shape(const char *call, int n, const ndx_layout *const *in,
                                const char *const *names);

/* ndx_coalesce's merge, on arguments it has checked: n in [1, NDX_COALESCE_MAX], every
 * layout passing ndx_check_layout, all of one shape. Cannot fail; O(n * rank). */
void ndx_coalesce_checked(int n, const ndx_layout *in, ndx_layout *out);

/* True iff `l` is not what ndx_make could have written: a rank outside [0, NDX_MAX_RANK], an
 * extent outside [0, NDX_MAX_NUMEL], non-zero extents multiplying past it, an axis of extent d > 1
 * whose (d-1)*|s| overflows (INT64_MIN included), a position outside [0, NDX_MAX_NUMEL), or no
 * element with a non-zero offset. Then writes why into `why` as snprintf does (`why` may be NULL
 * when size is 0), naming the axis and the values. Never writes the message. O(rank). */
bool ndx_layout_flaw(const ndx_layout *l, char *why, size_t size);

/* ndx_make, reporting failures as `call`: every move ends here, so every
 * result passes the same limits and comes out canonical. */
ndx_status ndx_build(const char *call, ndx_layout *out, int rank, const int64_t *shape,
                     const int64_t *strides, int64_t offset);

/* Writes the canonical form (docs/semantics.md section 2) of a layout already known to be within
 * the limits: extent-1 axes get stride 0, one with no element offset 0 and strides 0, the entries
 * past `rank` 0. For the moves, whose result on a layout within the limits is within them too;
 * ndx_build checks first. Cannot fail; O(NDX_MAX_RANK) stores. */
void ndx_write_canonical(ndx_layout *out, int rank, const int64_t *shape, const int64_t *strides,
                         int64_t offset);

/* ndx_apply, reporting failures as `call` (the wrappers name themselves). */
ndx_status ndx_apply_as(const char *call, ndx_layout *out, const ndx_move *m, const ndx_layout *l);

/* The reshape move's strides: fills new_strides for `l` viewed as `shape`
 * (same element count, already checked) and returns true, or returns false
 * when no strides express it. */
bool ndx_reshape_strides(const ndx_layout *l, int rank, const int64_t *shape, int64_t *new_strides);

#endif /* NDX_INTERNAL_H */
