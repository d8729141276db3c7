/* ndx_internal.h: what the library's own files share and users never see. */
#ifndef NDX_INTERNAL_H
#define NDX_INTERNAL_H

#include <string.h>

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

/* The product of extents, taken axis by axis with no branch: the common case of ndx_check_shape
 * and of the layout checks. Each d - 1 is below 2^53 iff their bitwise or is (2^53 a power of
 * 2). Start from {1, 0, false}. */
typedef struct ndx_extent_product {
  int64_t product;
  uint64_t steps;
  bool overflow;
} ndx_extent_product;

static inline void ndx_extent_add(ndx_extent_product *e, int64_t d) {
  e->steps |= (uint64_t)d - 1;
  e->overflow |= __builtin_mul_overflow(e->product, d, &e->product);
}

/* True iff every extent added is in [1, 2^53] and they multiply to at most 2^53. */
static inline bool ndx_extents_ok(const ndx_extent_product *e) {
  return e->steps < (uint64_t)NDX_MAX_NUMEL && !e->overflow && e->product <= NDX_MAX_NUMEL;
}

/* The positions of a layout whose extents are in [1, 2^53], summed axis by axis: the common case
 * of the layout checks, with no branch. With the offset (a position) in [0, 2^53) and each axis's
 * reach (d-1)*s in [-2^53, 2^53), as every reach of a layout within the limits is but 2^53
 * itself, no sum of the reaches of 32 axes overflows, and lo and last are the exact first and last
 * positions (in uint64, which wraps only where the checks already fail). Each reach + 2^53 is
 * below 2^54 iff their bitwise or is. */
typedef struct ndx_span_sum {
  uint64_t lo, last, shifted;
  bool overflow;
} ndx_span_sum;

static inline ndx_span_sum ndx_span_start(int64_t offset) {
  return (ndx_span_sum){(uint64_t)offset, (uint64_t)offset, 0, false};
}

/* Adds an axis of extent d and stride s; returns its reach (d-1)*s, wrapped where it overflows
 * (then ndx_span_within_limits is false). */
static inline int64_t ndx_span_add(ndx_span_sum *p, int64_t d, int64_t s) {
  int64_t steps, reach; /* d - 1 overflows for d = INT64_MIN, which the extent check refuses */
  p->overflow |= __builtin_sub_overflow(d, 1, &steps);
  p->overflow |= __builtin_mul_overflow(steps, s, &reach);
  p->shifted |= (uint64_t)reach + (uint64_t)NDX_MAX_NUMEL;
  uint64_t negative = reach < 0 ? (uint64_t)reach : 0;
  p->lo += negative;
  p->last += (uint64_t)reach - negative;
  return reach;
}

/* True iff every position of the axes added from `offset` is in [0, 2^53). */
static inline bool ndx_span_within_limits(const ndx_span_sum *p, int64_t offset) {
  const uint64_t max = (uint64_t)NDX_MAX_NUMEL;
  return !p->overflow && p->shifted < 2 * max && offset >= 0 && offset < NDX_MAX_NUMEL &&
         (int64_t)p->lo >= 0 && p->last < max;
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

/* ndx_check_layout that also stores the layout's element count in *numel when it returns OK: what
 * a call that goes on to read the count takes, so that the extents are multiplied once. */
ndx_status ndx_check_layout_numel(const char *call, const char *name, const ndx_layout *l,
                                  int64_t *numel);

/* ndx_check_layout for entry k of an array argument, named by `name_fmt` with k (e.g.
 * "in[%d]"); the name is formatted only on failure, so the check stays O(rank). */
ndx_status ndx_check_layout_nth(const char *call, const char *name_fmt, int k, const ndx_layout *l);

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

/* Sets the shape and stride entries of `out` past `rank` to 0, as the canonical form has them. */
static inline void ndx_clear_tail(ndx_layout *out, int rank) {
  size_t tail = sizeof *out->shape * (size_t)(NDX_MAX_RANK - rank);
  memset(out->shape + rank, 0, tail);
  memset(out->strides + rank, 0, tail);
}

/* ndx_apply, reporting failures as `call` (the wrappers name themselves). */
ndx_status ndx_apply_as(const char *call, ndx_layout *out, const ndx_move *m, const ndx_layout *l);

/* The reshape move's strides: fills new_strides for `l`, a checked layout of `numel` elements,
 * viewed as `shape` (the same count, already checked) and returns true, or returns false when no
 * strides express it. O(rank + l->rank). */
bool ndx_reshape_strides(const ndx_layout *l, int64_t numel, int rank, const int64_t *shape,
                         int64_t *new_strides);

#endif /* NDX_INTERNAL_H */
