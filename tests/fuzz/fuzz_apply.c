/* fuzz_apply.c: chains of moves (ndx_apply, every kind) and the second
 * seed's vocabulary on top of them.
 *
 * Each input is a small layout and up to six moves, each valid or not. For
 * every move an independent statement of its rules (REFERENCE.md section 2)
 * gives the result shape or says it must fail; ndx_move_shape and ndx_apply
 * must agree with it, and a result must reach, at every index, the position
 * the input reaches at the move's map of that index (enumerated). A reshape
 * must succeed exactly when the brute-force view oracle finds strides for it.
 * The wrappers (ndx_reshape .. ndx_unsqueeze) must return what ndx_apply
 * returns for their move, and every call must also work with out == l. */
#define FUZZ_NAME "apply"
#include "fuzz.h"

static int64_t in_pos[FZ_MAX_POSITIONS];

/* A move decoded from the input, with room for its array. */
typedef struct fz_move {
  ndx_move m;
  int64_t shape[NDX_MAX_RANK];
  int32_t perm[NDX_MAX_RANK];
  ndx_range ranges[NDX_MAX_RANK];
  ndx_window windows[4];
} fz_move;

static void decode_move(fz_reader *r, const ndx_layout *l, fz_move *f) {
  ndx_move *m = &f->m;
  *m = (ndx_move){.kind = (ndx_move_kind)(fz_byte(r) % 5)};
  switch (m->kind) {
  case NDX_RESHAPE:
  case NDX_BROADCAST:
    m->n = fz_byte(r) % 7;
    for (int a = 0; a < m->n; a++) f->shape[a] = fz_small(r, 2) + 2; /* 0 .. 4 */
    if (m->kind == NDX_RESHAPE && fz_byte(r) % 2) { /* mostly a valid count: regroup the extents */
      int64_t n = ndx_numel(l), k = 0;
      for (int a = 0; a < m->n; a++) {
        if (f->shape[a] > 1 && n % f->shape[a] == 0) {
          n /= f->shape[a];
          k++;
        } else {
          f->shape[a] = 1;
        }
      }
      if (m->n < NDX_MAX_RANK && (n != 1 || k == 0)) f->shape[m->n++] = n;
    }
    if (m->kind == NDX_BROADCAST && fz_byte(r) % 2) /* mostly compatible: keep the old extents */
      for (int a = 0; a < l->rank && a < m->n; a++)
        if (l->shape[l->rank - 1 - a] != 1) f->shape[m->n - 1 - a] = l->shape[l->rank - 1 - a];
    m->shape = f->shape;
    break;
  case NDX_PERMUTE:
    m->n = l->rank;
    for (int a = 0; a < m->n; a++) f->perm[a] = a;
    for (int a = m->n - 1; a > 0; a--) { /* a shuffle, sometimes broken */
      int b = fz_byte(r) % (a + 1);
      int32_t t = f->perm[a];
      f->perm[a] = f->perm[b];
      f->perm[b] = t;
    }
    if (m->n > 0 && fz_byte(r) % 8 == 0) f->perm[fz_byte(r) % m->n] = (int32_t)fz_small(r, 8);
    if (fz_byte(r) % 16 == 0) m->n += (int)fz_small(r, 1);
    m->perm = f->perm;
    break;
  case NDX_SLICE:
    m->n = l->rank;
    for (int a = 0; a < m->n; a++) {
      f->ranges[a] = (ndx_range){fz_small(r, 5), fz_small(r, 5), fz_small(r, 3)};
      if (fz_byte(r) % 4 == 0) f->ranges[a].step = fz_wide(r);
    }
    if (fz_byte(r) % 16 == 0) m->n += (int)fz_small(r, 1);
    m->ranges = f->ranges;
    break;
  case NDX_WINDOW:
    m->n = fz_byte(r) % 4;
    for (int k = 0; k < m->n; k++)
      f->windows[k] =
          (ndx_window){(int32_t)fz_small(r, 6), fz_small(r, 3), fz_small(r, 3), fz_small(r, 3)};
    m->windows = f->windows;
    break;
  }
}

/* The rules of REFERENCE.md section 2 for small values (no product here can
 * overflow): the result shape, or false when the move breaks a rule. */
static bool rules_allow(const ndx_move *m, const ndx_layout *l, int *rank, int64_t *shape);

/* The rules, then the limit on the result's element count. */
static bool expected_shape(const ndx_move *m, const ndx_layout *l, int *rank, int64_t *shape) {
  if (!rules_allow(m, l, rank, shape)) return false;
  fz_i128 count = 1;
  for (int a = 0; a < *rank; a++)
    if (shape[a] > 0 && (count *= shape[a]) > NDX_MAX_NUMEL) return false;
  return true;
}

static bool rules_allow(const ndx_move *m, const ndx_layout *l, int *rank, int64_t *shape) {
  int n = m->n;
  switch (m->kind) {
  case NDX_RESHAPE: {
    int64_t count = 1;
    for (int a = 0; a < n; a++) {
      if (m->shape[a] < 0) return false;
      count *= m->shape[a];
    }
    if (count != ndx_numel(l)) return false;
    *rank = n;
    memcpy(shape, m->shape, sizeof *shape * (size_t)n);
    return true;
  }
  case NDX_BROADCAST:
    if (n < l->rank) return false;
    for (int a = 0; a < n; a++)
      if (m->shape[a] < 0) return false;
    for (int a = 0; a < l->rank; a++) {
      int64_t old = l->shape[a], want = m->shape[a + n - l->rank];
      if (old != 1 && old != want) return false;
    }
    *rank = n;
    memcpy(shape, m->shape, sizeof *shape * (size_t)n);
    return true;
  case NDX_PERMUTE: {
    if (n != l->rank) return false;
    bool seen[NDX_MAX_RANK] = {false};
    for (int a = 0; a < n; a++) {
      int32_t p = m->perm[a];
      if (p < 0 || p >= n || seen[p]) return false;
      seen[p] = true;
      shape[a] = l->shape[p];
    }
    *rank = n;
    return true;
  }
  case NDX_SLICE:
    if (n != l->rank) return false;
    for (int a = 0; a < n; a++) {
      ndx_range g = m->ranges[a];
      if (g.step == 0 || g.count < 0) return false;
      if (g.count > 0) {
        if (g.start < 0 || g.start >= l->shape[a]) return false;
        fz_i128 last = g.start + (fz_i128)(g.count - 1) * g.step;
        if (last < 0 || last >= l->shape[a]) return false;
      }
      shape[a] = g.count;
    }
    *rank = n;
    return true;
  case NDX_WINDOW:
    *rank = l->rank + n;
    memcpy(shape, l->shape, sizeof *shape * (size_t)l->rank);
    for (int k = 0; k < n; k++) {
      ndx_window w = m->windows[k];
      if (w.axis < 0 || w.axis >= l->rank || (k > 0 && w.axis <= m->windows[k - 1].axis))
        return false;
      if (w.size < 1 || w.step < 1 || w.dilation < 1) return false;
      int64_t d = l->shape[w.axis], reach = w.dilation * (w.size - 1) + 1;
      if (reach > d) return false;
      shape[w.axis] = (d - reach) / w.step + 1;
      shape[l->rank + k] = w.size;
    }
    return true;
  }
  return false;
}

/* The index of `l` that result index `i` maps to. */
static void map_index(const ndx_move *m, const ndx_layout *l, const int64_t *i, int64_t *j) {
  switch (m->kind) {
  case NDX_RESHAPE: /* by C-order number: handled by the caller */
    break;
  case NDX_BROADCAST:
    for (int a = 0; a < l->rank; a++) j[a] = l->shape[a] == 1 ? 0 : i[a + m->n - l->rank];
    break;
  case NDX_PERMUTE:
    for (int a = 0; a < l->rank; a++) j[m->perm[a]] = i[a];
    break;
  case NDX_SLICE:
    for (int a = 0; a < l->rank; a++) j[a] = m->ranges[a].start + i[a] * m->ranges[a].step;
    break;
  case NDX_WINDOW:
    memcpy(j, i, sizeof *j * (size_t)l->rank);
    for (int k = 0; k < m->n; k++) {
      const ndx_window *w = &m->windows[k];
      j[w->axis] = i[w->axis] * w->step + i[l->rank + k] * w->dilation;
    }
    break;
  }
}

/* The brute-force reshape oracle (REFERENCE.md section 2): the candidate
 * stride of each new axis is the position difference of its unit index; the
 * reshape is a view iff those strides reproduce every position. */
static bool reshape_is_view(const ndx_layout *l, int rank, const int64_t *shape) {
  int64_t n = ndx_numel(l);
  if (n <= 1) return true;
  int64_t strides[NDX_MAX_RANK], index[NDX_MAX_RANK], unit = 1;
  for (int a = rank - 1; a >= 0; a--) {
    strides[a] = shape[a] > 1 ? in_pos[unit] - in_pos[0] : 0;
    unit *= shape[a];
  }
  for (int64_t k = 0; k < n; k++) {
    oracle_unravel(rank, shape, k, index);
    int64_t p = in_pos[0];
    for (int a = 0; a < rank; a++) p += index[a] * strides[a];
    if (p != in_pos[k]) return false;
  }
  return true;
}

/* Checks result `out` of move `m` on `l` (whose positions are in in_pos). */
static void check_result(const ndx_move *m, const ndx_layout *l, const ndx_layout *out) {
  int64_t n = fz_check_layout(out);
  if (n > FZ_MAX_POSITIONS) return;
  int64_t i[NDX_MAX_RANK], j[NDX_MAX_RANK];
  for (int64_t k = 0; k < n; k++) {
    int64_t want;
    if (m->kind == NDX_RESHAPE) {
      want = in_pos[k];
    } else {
      oracle_unravel(out->rank, out->shape, k, i);
      map_index(m, l, i, j);
      want = oracle_position(l, j);
    }
    fz_check(fz_pos_a[k] == want, "the result reaches what the input reaches at the mapped index");
  }
}

/* ndx_apply of `m` on `l` into *out, with every check; returns its status. */
static ndx_status apply_checked(const ndx_move *m, const ndx_layout *l, ndx_layout *out) {
  int64_t n = ndx_numel(l);
  if (n <= FZ_MAX_POSITIONS) oracle_positions(l, in_pos);
  int want_rank = 0, got_rank = -7;
  int64_t want[NDX_MAX_RANK + 4], got[NDX_MAX_RANK], got_before[NDX_MAX_RANK];
  bool valid = expected_shape(m, l, &want_rank, want);
  memset(got, 0x77, sizeof got);
  memcpy(got_before, got, sizeof got);
  ndx_status ms = ndx_move_shape(m, l->rank, l->shape, &got_rank, got);
  fz_check((ms == NDX_OK) == valid, "ndx_move_shape takes exactly the moves the rules allow");
  if (ms != NDX_OK) {
    fz_check(got_rank == -7, "a failed ndx_move_shape leaves out_rank untouched");
    fz_check_untouched(got, got_before, sizeof got, ms);
  } else {
    fz_check(got_rank == want_rank && memcmp(got, want, sizeof *got * (size_t)want_rank) == 0,
             "ndx_move_shape gives the rules' shape");
  }

  ndx_layout res, before;
  memset(&res, 0xa5, sizeof res);
  before = res;
  ndx_status st = ndx_apply(&res, m, l);
  if (!valid) {
    fz_check(st == NDX_EINVAL || st == NDX_ERANGE, "a move breaking a rule is refused");
    fz_check_untouched(&res, &before, sizeof res, st);
  } else if (m->kind == NDX_RESHAPE && n <= FZ_MAX_POSITIONS &&
             !reshape_is_view(l, want_rank, want)) {
    fz_check(st == NDX_ENOVIEW, "a reshape no strides express is NDX_ENOVIEW");
    fz_check_untouched(&res, &before, sizeof res, st);
  } else if (m->kind == NDX_RESHAPE && n > FZ_MAX_POSITIONS && st == NDX_ENOVIEW) {
    fz_check_untouched(&res, &before, sizeof res, st); /* too large for the view oracle */
  } else {
    fz_check(st == NDX_OK, "a valid move that strides express succeeds");
    fz_check(res.rank == want_rank &&
                 memcmp(res.shape, want, sizeof *want * (size_t)want_rank) == 0,
             "the result has the rules' shape");
    check_result(m, l, &res);
  }
  /* out == l gives the same */
  ndx_layout alias = *l;
  ndx_status sa = ndx_apply(&alias, m, &alias);
  fz_check(sa == st, "out == l: the same status");
  fz_check(memcmp(&alias, st == NDX_OK ? &res : l, sizeof alias) == 0, "out == l: the same result");
  if (st == NDX_OK) *out = res;
  return st;
}

/* A wrapper's result (status `st`, layout `got`) against ndx_apply of its
 * move; `ok` says whether the wrapper's own rule holds. */
static void check_wrapper(ndx_status st, const ndx_layout *got, const ndx_layout *before, bool ok,
                          const ndx_move *m, const ndx_layout *l) {
  ndx_layout want;
  ndx_status sw = ok ? apply_checked(m, l, &want) : NDX_EINVAL;
  fz_check(st == sw, "a wrapper returns what ndx_apply returns for its move");
  if (st == NDX_OK)
    fz_check(memcmp(got, &want, sizeof want) == 0, "a wrapper gives ndx_apply's result");
  else
    fz_check_untouched(got, before, sizeof *got, st);
}

/* One call of the second seed's vocabulary, checked against its move. */
static void fuzz_wrapper(fz_reader *r, ndx_layout *l) {
  ndx_layout out, before;
  memset(&out, 0x6b, sizeof out);
  before = out;
  fz_move f;
  ndx_move *m = &f.m;
  int op = fz_byte(r) % 10, axis = (int)fz_small(r, 7), other = (int)fz_small(r, 7);
  bool has_axis = axis >= 0 && axis < l->rank;
  int64_t d = has_axis ? l->shape[axis] : 0;
  ndx_status st;
  if (op < 5) { /* the move calls: the same move through both doors */
    decode_move(r, l, &f);
    switch (m->kind) {
    case NDX_RESHAPE:
      st = ndx_reshape(&out, l, m->n, m->shape);
      break;
    case NDX_BROADCAST:
      st = ndx_broadcast(&out, l, m->n, m->shape);
      break;
    case NDX_PERMUTE: /* one entry per axis, as the call reads */
      m->n = l->rank;
      st = ndx_permute(&out, l, f.perm);
      break;
    case NDX_SLICE:
      m->n = l->rank;
      st = ndx_slice(&out, l, f.ranges);
      break;
    default:
      st = ndx_unfold(&out, l, m->n, f.windows);
      break;
    }
    check_wrapper(st, &out, &before, true, m, l);
  } else if (op == 5) { /* narrow = slice with step 1 */
    int64_t start = fz_small(r, 5), len = fz_small(r, 5);
    st = ndx_narrow(&out, l, axis, start, len);
    *m = (ndx_move){.kind = NDX_SLICE, .n = l->rank, .ranges = f.ranges};
    for (int a = 0; a < l->rank; a++) f.ranges[a] = (ndx_range){0, l->shape[a], 1};
    if (has_axis) f.ranges[axis] = (ndx_range){start, len, 1};
    check_wrapper(st, &out, &before, has_axis && start >= 0 && len >= 0 && start + len <= d, m, l);
  } else if (op == 6) { /* transpose = permute */
    st = ndx_transpose(&out, l, axis, other);
    *m = (ndx_move){.kind = NDX_PERMUTE, .n = l->rank, .perm = f.perm};
    for (int a = 0; a < l->rank; a++) f.perm[a] = a;
    bool ok = has_axis && other >= 0 && other < l->rank;
    if (ok) f.perm[axis] = other, f.perm[other] = axis;
    check_wrapper(st, &out, &before, ok, m, l);
  } else if (op == 7) { /* flip = slice with step -1 */
    st = ndx_flip(&out, l, axis);
    *m = (ndx_move){.kind = NDX_SLICE, .n = l->rank, .ranges = f.ranges};
    for (int a = 0; a < l->rank; a++) f.ranges[a] = (ndx_range){0, l->shape[a], 1};
    if (has_axis) f.ranges[axis] = (ndx_range){d - 1, d, -1};
    check_wrapper(st, &out, &before, has_axis, m, l);
    if (st == NDX_OK) {
      ndx_layout twice;
      fz_check(ndx_flip(&twice, &out, axis) == NDX_OK && memcmp(&twice, l, sizeof twice) == 0,
               "flipping twice is the identity");
    }
  } else if (op == 8) { /* squeeze = reshape without the axis */
    st = ndx_squeeze(&out, l, axis);
    *m = (ndx_move){.kind = NDX_RESHAPE, .n = l->rank - 1, .shape = f.shape};
    for (int a = 0, b = 0; a < l->rank; a++)
      if (a != axis) f.shape[b++] = l->shape[a];
    check_wrapper(st, &out, &before, has_axis && d == 1, m, l);
  } else { /* unsqueeze = reshape with an axis of extent 1 */
    st = ndx_unsqueeze(&out, l, axis);
    *m = (ndx_move){.kind = NDX_RESHAPE, .n = l->rank + 1, .shape = f.shape};
    for (int a = 0, b = 0; a <= l->rank; a++) {
      if (a == axis) f.shape[b++] = 1;
      if (a < l->rank) f.shape[b++] = l->shape[a];
    }
    check_wrapper(st, &out, &before, axis >= 0 && axis <= l->rank, m, l);
  }
  if (st == NDX_OK) *l = out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_reader r = {data, size, 0};
  ndx_layout l;
  if (!fz_layout(&r, &l)) return 0;
  for (int k = 0; k < 6 && fz_more(&r); k++) {
    if (fz_byte(&r) % 3 == 0) {
      fuzz_wrapper(&r, &l);
    } else {
      fz_move f;
      decode_move(&r, &l, &f);
      ndx_layout out;
      if (apply_checked(&f.m, &l, &out) == NDX_OK) l = out;
    }
  }
  return 0;
}
