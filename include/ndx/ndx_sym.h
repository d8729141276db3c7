/* ndx_sym.h: layouts with bounded symbolic axes (docs/semantics.md
 * section 8).
 *
 * A symbolic axis has a live extent that is only known at run time: a symbol,
 * bound later to a value in [min, max]. The layout is laid out at capacity:
 * the axis has extent `max` and the strides of that capacity, so the physical
 * walk of a fixed-capacity buffer never changes; resolving replaces the
 * capacity by the live extent.
 *
 * A plain ndx_layout pays nothing for this: symbols live only in
 * ndx_sym_layout, which wraps one. Every move that keeps a symbolic axis whole
 * carries its symbol (permute, broadcast, a slice that takes the whole axis
 * forwards or backwards, a reshape that leaves the axis alone, a window on other
 * axes); a move that would split, merge, cut or window it is refused with
 * NDX_EUNSUPPORTED. A flip carries the symbol and remembers that the live
 * entries are now the last `n` of the capacity, so a flipped axis resolves to
 * exactly the live entries reversed. */
#ifndef NDX_SYM_H
#define NDX_SYM_H

#include "ndx_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Build it only with ndx_sym_ calls: they keep `reversed` within `symbolic`
 * and symbol/min 0 on the other axes, so two equal ones are equal byte for
 * byte. */
typedef struct ndx_sym_layout {
  ndx_layout layout; /* at capacity: each symbolic axis has extent max */
  uint32_t symbolic; /* bit a set: axis a is symbolic */
  uint32_t reversed; /* bit a set: axis a's live entries are its last ones */
  int32_t symbol[NDX_MAX_RANK];
  int64_t min[NDX_MAX_RANK]; /* the least live extent of each symbolic axis */
} ndx_sym_layout;

/* Bound symbols: symbol symbols[k] has value values[k]; where a symbol
 * appears twice, the first binding counts. The tables may be NULL when n is 0. */
typedef struct ndx_sym_env {
  int32_t n;
  const int32_t *symbols;
  const int64_t *values;
} ndx_sym_env;

/* Wraps `l` with no symbolic axis. Returns NDX_OK; NDX_EINVAL for NULL or a
 * layout no ndx_ call makes. O(rank), no allocation. */
NDX_API ndx_status ndx_sym_wrap(ndx_sym_layout *out, const ndx_layout *l);

/* Makes `axis` of `l` symbolic: live extent `symbol` in [min, extent of the
 * axis], the extent being its capacity max. One symbol may mark several axes
 * (they resolve to one value). `out` may be `l`. Returns NDX_OK; NDX_EINVAL
 * for NULL, a layout no ndx_ call makes, an axis out of range, an axis already
 * symbolic, a negative symbol, or min outside [0, extent]. On failure `out` is
 * untouched. O(rank), no allocation. */
NDX_API ndx_status ndx_sym_mark(ndx_sym_layout *out, const ndx_sym_layout *l, int axis,
                                int32_t symbol, int64_t min);

/* True iff `l` has a symbolic axis; false for NULL. Never fails. O(1). */
NDX_API bool ndx_sym_has_dynamic(const ndx_sym_layout *l);

/* Moves `l` by `m` (see ndx_apply) and carries each symbolic axis, with its
 * symbol, min and reversed bit, to where `m` puts it. `out` may be `l`.
 * A symbolic axis is kept whole by:
 *   NDX_PERMUTE   always;
 *   NDX_BROADCAST when its target extent is its capacity (never stretched);
 *   NDX_SLICE     when its range takes the whole axis: step 1 from 0, or
 *                 step -1 from the end, which toggles `reversed` (a flip;
 *                 at capacity 0 or 1 any step of full count, and the bit
 *                 stays clear);
 *   NDX_WINDOW    when no window is on it (any window on it is refused);
 *   NDX_RESHAPE   when some new axis has its extent and the same products of
 *                 extents before and after it in C order (extent-1 axes may
 *                 come and go around it; axes matched in order).
 * Returns NDX_OK; NDX_EINVAL for a NULL argument; NDX_EINVAL or NDX_ERANGE as
 * ndx_apply when `m` breaks a rule of its kind; then NDX_EUNSUPPORTED, naming
 * the axis and symbol, when `m` does not keep a symbolic axis whole; then
 * NDX_ENOVIEW as ndx_apply. On failure `out` is untouched. O(rank + n), no allocation. */
NDX_API ndx_status ndx_sym_apply(ndx_sym_layout *out, const ndx_move *m, const ndx_sym_layout *l);

/* The plain layout with each symbolic axis at its bound value n: strides
 * kept, the offset kept except that a reversed axis moves it by (max-n)*stride
 * (so that axis holds exactly the first n live entries, reversed), canonical
 * form applied. Returns NDX_OK; NDX_EINVAL for NULL, an env with n < 0 or NULL
 * tables, a layout no ndx_ call makes, a symbol `env` does not bind (naming
 * the axis and the symbol), or a value outside [min, max] (naming the axis,
 * the symbol, the value and the bounds). On failure `out` is untouched.
 * O(rank * env->n), no allocation. */
NDX_API ndx_status ndx_sym_resolve(ndx_layout *out, const ndx_sym_layout *l,
                                   const ndx_sym_env *env);

#ifdef __cplusplus
}
#endif

#endif /* NDX_SYM_H */
