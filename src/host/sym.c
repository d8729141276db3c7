/* sym.c: layouts with bounded symbolic axes (ndx_sym.h).
 *
 * A symbolic axis is laid out at its capacity `max`, so a move is simply the
 * move of the capacity layout; what this file adds is the bookkeeping of
 * where each symbolic axis goes, and the refusal of moves after which the
 * live entries would no longer be one whole axis. Every move that keeps a
 * symbolic axis whole carries its symbol, and resolving refuses an unbound
 * symbol and a value outside [min, max] (docs/semantics.md sections 8 and 9). */
#include <string.h>

#include "ndx/ndx_sym.h"
#include "ndx_internal.h"

#define BIT(a) ((uint32_t)1 << (a))

/* Makes axis `to` of `r` what axis `from` of `l` is. */
static void carry(ndx_sym_layout *r, int to, const ndx_sym_layout *l, int from) {
  r->symbolic |= BIT(to);
  if (l->reversed & BIT(from)) r->reversed |= BIT(to);
  r->symbol[to] = l->symbol[from];
  r->min[to] = l->min[from];
}

ndx_status ndx_sym_wrap(ndx_sym_layout *out, const ndx_layout *l) {
  if (!out || !l) return ndx_set_error(NDX_EINVAL, "ndx_sym_wrap: %s is NULL", out ? "l" : "out");
  ndx_status st = ndx_check_layout("ndx_sym_wrap", "l", l);
  if (st != NDX_OK) return st;
  ndx_sym_layout r;
  memset(&r, 0, sizeof r);
  r.layout = *l;
  *out = r;
  return NDX_OK;
}

ndx_status ndx_sym_mark(ndx_sym_layout *out, const ndx_sym_layout *l, int axis, int32_t symbol,
                        int64_t min) {
  if (!out || !l) return ndx_set_error(NDX_EINVAL, "ndx_sym_mark: %s is NULL", out ? "l" : "out");
  ndx_status st = ndx_check_layout("ndx_sym_mark", "l", &l->layout);
  if (st != NDX_OK) return st;
  int rank = l->layout.rank;
  if (axis < 0 || axis >= rank)
    return ndx_set_error(NDX_EINVAL, "ndx_sym_mark: axis %d is out of range for rank %d", axis,
                         rank);
  if (l->symbolic & BIT(axis))
    return ndx_set_error(NDX_EINVAL, "ndx_sym_mark: axis %d is already symbolic (symbol %d)", axis,
                         (int)l->symbol[axis]);
  if (symbol < 0)
    return ndx_set_error(NDX_EINVAL, "ndx_sym_mark: symbol %d for axis %d is negative", (int)symbol,
                         axis);
  int64_t max = l->layout.shape[axis];
  if (min < 0 || min > max)
    return ndx_set_error(NDX_EINVAL,
                         "ndx_sym_mark: min %lld for axis %d (symbol %d) is outside [0, %lld], the "
                         "axis's extent",
                         (long long)min, axis, (int)symbol, (long long)max);
  ndx_sym_layout r = *l;
  r.symbolic |= BIT(axis);
  r.reversed &= ~BIT(axis);
  r.symbol[axis] = symbol;
  r.min[axis] = min;
  *out = r;
  return NDX_OK;
}

bool ndx_sym_has_dynamic(const ndx_sym_layout *l) {
  return l && l->symbolic != 0;
}

/* ---- Carrying symbolic axes through one move ---------------------------- *
 * Each takes a move that obeys the rules of its kind (so its arguments are in
 * range) and the input `l`, and fills the symbolic tables of `r` or refuses
 * with NDX_EUNSUPPORTED. */

static ndx_status carry_permute(ndx_sym_layout *r, const ndx_move *m, const ndx_sym_layout *l) {
  for (int i = 0; i < m->n; i++) {
    int a = m->perm[i];
    if (l->symbolic & BIT(a)) carry(r, i, l, a);
  }
  return NDX_OK;
}

/* Broadcast adds leading axes; an old axis keeps its extent or, at extent 1,
 * stretches. Stretching a symbolic axis would repeat one entry, not keep the
 * live ones. */
static ndx_status carry_broadcast(ndx_sym_layout *r, const ndx_move *m, const ndx_sym_layout *l) {
  int k = m->n - l->layout.rank;
  for (int a = 0; a < l->layout.rank; a++) {
    if (!(l->symbolic & BIT(a))) continue;
    if (m->shape[a + k] != l->layout.shape[a])
      return ndx_set_error(NDX_EUNSUPPORTED,
                           "ndx_sym_apply: broadcast stretches symbolic axis %d (symbol %d) from "
                           "capacity %lld to %lld; a symbolic axis keeps its extent",
                           a, (int)l->symbol[a], (long long)l->layout.shape[a],
                           (long long)m->shape[a + k]);
    carry(r, a + k, l, a);
  }
  return NDX_OK;
}

/* A slice keeps a symbolic axis iff it takes all of it, forwards with step 1
 * or backwards with step -1 (a flip, after which the live entries are the last
 * ones). For a valid range that is just count == extent: at extent >= 2 a full
 * count fits only with step 1 from 0 or step -1 from the end, and at extent 0
 * or 1 the step does not matter. */
static ndx_status carry_slice(ndx_sym_layout *r, const ndx_move *m, const ndx_sym_layout *l) {
  for (int a = 0; a < l->layout.rank; a++) {
    if (!(l->symbolic & BIT(a))) continue;
    ndx_range g = m->ranges[a];
    int64_t d = l->layout.shape[a];
    bool whole = g.count == d;
    if (!whole)
      return ndx_set_error(
          NDX_EUNSUPPORTED,
          "ndx_sym_apply: slice {start %lld, count %lld, step %lld} of symbolic axis "
          "%d (symbol %d, capacity %lld) does not take the whole axis with step 1 "
          "or -1",
          (long long)g.start, (long long)g.count, (long long)g.step, a, (int)l->symbol[a],
          (long long)d);
    carry(r, a, l, a);
    if (g.step < 0 && d > 1) r->reversed ^= BIT(a); /* at capacity 0 or 1 a flip is nothing */
  }
  return NDX_OK;
}

/* A window keeps the axes in place and appends new ones; windowing a symbolic
 * axis would cut it. */
static ndx_status carry_window(ndx_sym_layout *r, const ndx_move *m, const ndx_sym_layout *l) {
  for (int w = 0; w < m->n; w++) {
    int a = m->windows[w].axis;
    if (l->symbolic & BIT(a))
      return ndx_set_error(NDX_EUNSUPPORTED,
                           "ndx_sym_apply: window %d is on symbolic axis %d (symbol %d); a window "
                           "cuts the axis",
                           w, a, (int)l->symbol[a]);
  }
  for (int a = 0; a < l->layout.rank; a++)
    if (l->symbolic & BIT(a)) carry(r, a, l, a);
  return NDX_OK;
}

/* A reshape keeps a symbolic axis iff some new axis has its extent and the
 * same products of extents before and after it in C order: then the axis is a
 * group of its own (extent-1 axes may come and go around it), its stride is
 * kept, and any live extent reshapes the same way. Axes are matched in order,
 * so that symbolic axes of capacity 1 among extent-1 axes map one to one. */
static ndx_status carry_reshape(ndx_sym_layout *r, const ndx_move *m, const ndx_sym_layout *l) {
  const ndx_layout *in = &l->layout;
  int64_t old_before[NDX_MAX_RANK + 1], old_after[NDX_MAX_RANK + 1];
  int64_t new_before[NDX_MAX_RANK + 1], new_after[NDX_MAX_RANK + 1];
  /* Products of extents never overflow: a zero extent makes them 0, and
   * products of non-zero extents stay within NDX_MAX_NUMEL. */
  old_before[0] = new_before[0] = 1;
  old_after[in->rank] = new_after[m->n] = 1;
  for (int a = 0; a < in->rank; a++) old_before[a + 1] = old_before[a] * in->shape[a];
  for (int a = in->rank - 1; a >= 0; a--) old_after[a] = old_after[a + 1] * in->shape[a];
  for (int b = 0; b < m->n; b++) new_before[b + 1] = new_before[b] * m->shape[b];
  for (int b = m->n - 1; b >= 0; b--) new_after[b] = new_after[b + 1] * m->shape[b];
  int b = 0;
  for (int a = 0; a < in->rank; a++) {
    if (!(l->symbolic & BIT(a))) continue;
    while (b < m->n && !(m->shape[b] == in->shape[a] && new_before[b] == old_before[a] &&
                         new_after[b + 1] == old_after[a + 1]))
      b++;
    if (b == m->n) {
      char from[NDX_DIMS_BUF], to[NDX_DIMS_BUF];
      return ndx_set_error(NDX_EUNSUPPORTED,
                           "ndx_sym_apply: reshape of %s to %s does not keep symbolic axis %d "
                           "(symbol %d, capacity %lld) as one axis of its own",
                           ndx_fmt_dims(from, sizeof from, in->rank, in->shape),
                           ndx_fmt_dims(to, sizeof to, m->n, m->shape), a, (int)l->symbol[a],
                           (long long)in->shape[a]);
    }
    carry(r, b++, l, a);
  }
  return NDX_OK;
}

ndx_status ndx_sym_apply(ndx_sym_layout *out, const ndx_move *m, const ndx_sym_layout *l) {
  if (!out || !m || !l)
    return ndx_set_error(NDX_EINVAL, "ndx_sym_apply: %s is NULL", !out ? "out" : !m ? "m" : "l");
  ndx_sym_layout r;
  memset(&r, 0, sizeof r);
  /* The move's own rules first (NDX_EINVAL, NDX_ERANGE), so that the checks
   * below read only arguments in range. NDX_ENOVIEW also means the move obeys
   * them; the symbolic rule then goes first, so that a reshape that cannot
   * keep a symbolic axis is NDX_EUNSUPPORTED whether or not strides could
   * express it. */
  ndx_status s = ndx_apply_as("ndx_sym_apply", &r.layout, m, &l->layout);
  if (s != NDX_OK && s != NDX_ENOVIEW) return s;
  if (l->symbolic) {
    ndx_status c = NDX_OK;
    switch (m->kind) {
    case NDX_PERMUTE:
      c = carry_permute(&r, m, l);
      break;
    case NDX_BROADCAST:
      c = carry_broadcast(&r, m, l);
      break;
    case NDX_SLICE:
      c = carry_slice(&r, m, l);
      break;
    case NDX_WINDOW:
      c = carry_window(&r, m, l);
      break;
    case NDX_RESHAPE:
      c = carry_reshape(&r, m, l);
      break;
    }
    if (c != NDX_OK) return c;
  }
  if (s != NDX_OK) return s;
  *out = r; /* only now: `out` may be `l`, and a failure leaves it untouched */
  return NDX_OK;
}

ndx_status ndx_sym_resolve(ndx_layout *out, const ndx_sym_layout *l, const ndx_sym_env *env) {
  if (!out || !l || !env)
    return ndx_set_error(NDX_EINVAL, "ndx_sym_resolve: %s is NULL",
                         !out ? "out"
                         : !l ? "l"
                              : "env");
  if (env->n < 0 || (env->n > 0 && (!env->symbols || !env->values)))
    return ndx_set_error(NDX_EINVAL, "ndx_sym_resolve: env has n = %d with %s", (int)env->n,
                         env->n < 0 ? "n negative" : "a NULL table");
  ndx_status st = ndx_check_layout("ndx_sym_resolve", "l", &l->layout);
  if (st != NDX_OK) return st;
  const ndx_layout *c = &l->layout;
  int64_t shape[NDX_MAX_RANK], offset = c->offset;
  for (int a = 0; a < c->rank; a++) {
    shape[a] = c->shape[a];
    if (!(l->symbolic & BIT(a))) continue;
    int k = 0;
    while (k < env->n && env->symbols[k] != l->symbol[a]) k++;
    if (k == env->n)
      return ndx_set_error(NDX_EINVAL,
                           "ndx_sym_resolve: axis %d has symbol %d, which env does not bind", a,
                           (int)l->symbol[a]);
    int64_t n = env->values[k], max = c->shape[a];
    if (n < l->min[a] || n > max)
      return ndx_set_error(
          NDX_EINVAL, "ndx_sym_resolve: axis %d: symbol %d is bound to %lld, outside [%lld, %lld]",
          a, (int)l->symbol[a], (long long)n, (long long)l->min[a], (long long)max);
    shape[a] = n;
    /* A reversed axis holds its live entries last: start at capacity index
     * max-n. With 1 <= n <= max the shift is at most (max-1)*|s|, and every
     * partial sum is a position of the capacity layout, so nothing overflows;
     * at n = 0 the result is empty and its offset dropped anyway. */
    if ((l->reversed & BIT(a)) && n > 0) offset += (max - n) * c->strides[a];
  }
  return ndx_build("ndx_sym_resolve", out, c->rank, shape, c->strides, offset);
}
