/* index_plan.c: the gather and scatter planner of both device runtimes
 * (index_plan.h). */
#include <stdio.h>
#include <string.h>

#include "index_plan.h"
#include "launch.h" /* ndx_launch_bytes */
#include "ndx_index_launch.h"
#include "ndx_launch.h" /* NDX_GPU_BATCH */

/* Step 1: the arguments, checked once. S is the shape of `same` (dst_l for
 * a gather, src_l for a scatter); `other` (src_l, dst_l) matches it except on
 * the axis. */
static ndx_status check_args(const char *call, bool scatter, const ndx_layout *dst_l,
                             const ndx_layout *src_l, int axis, const ndx_layout *index_l,
                             int index_bits, unsigned flags, int bits) {
  ndx_status st = ndx_check_bits(call, bits);
  if (st != NDX_OK) return st;
  if (index_bits != 32 && index_bits != 64)
    return ndx_set_error(NDX_EINVAL, "%s: index_bits is %d, not 32 or 64", call, index_bits);
  unsigned known = NDX_INDEX_WRAP | (scatter ? NDX_INDEX_UNIQUE : 0u);
  if (flags & ~known)
    return ndx_set_error(NDX_EINVAL, "%s: flags 0x%x has bits no %s takes (0x%x)", call, flags,
                         scatter ? "scatter" : "gather", flags & ~known);
  st = ndx_check_layout(call, "dst_l", dst_l);
  if (st == NDX_OK) st = ndx_check_layout(call, "src_l", src_l);
  if (st == NDX_OK) st = ndx_check_layout(call, "index_l", index_l);
  if (st != NDX_OK) return st;
  const ndx_layout *same = scatter ? src_l : dst_l, *other = scatter ? dst_l : src_l;
  const char *same_name = scatter ? "src_l" : "dst_l", *other_name = scatter ? "dst_l" : "src_l";
  const ndx_layout *pair[2] = {same, index_l};
  const char *const names[2] = {same_name, "index_l"};
  st = ndx_check_same_shape(call, 2, pair, names);
  if (st != NDX_OK) return st;
  if (axis < 0 || axis >= same->rank)
    return ndx_set_error(NDX_EINVAL, "%s: axis %d is outside [0, %d), the rank of %s", call, axis,
                         (int)same->rank, same_name);
  char a[NDX_DIMS_BUF], b[NDX_DIMS_BUF];
  if (other->rank != same->rank)
    return ndx_set_error(NDX_EINVAL, "%s: %s has rank %d, %s (shape %s) has rank %d", call,
                         other_name, (int)other->rank, same_name,
                         ndx_fmt_dims(a, sizeof a, same->rank, same->shape), (int)same->rank);
  for (int x = 0; x < same->rank; x++)
    if (x != axis && other->shape[x] != same->shape[x])
      return ndx_set_error(NDX_EINVAL,
                           "%s: %s %s and %s %s differ on axis %d (%lld and %lld), not only on "
                           "axis %d",
                           call, other_name, ndx_fmt_dims(a, sizeof a, other->rank, other->shape),
                           same_name, ndx_fmt_dims(b, sizeof b, same->rank, same->shape), x,
                           (long long)other->shape[x], (long long)same->shape[x], axis);
  if (!ndx_is_distinct(dst_l))
    return ndx_set_error(
        NDX_EINVAL,
        "%s: dst_l (shape %s, strides %s) is not distinct: two elements would share a position",
        call, ndx_fmt_dims(a, sizeof a, dst_l->rank, dst_l->shape),
        ndx_fmt_dims(b, sizeof b, dst_l->rank, dst_l->strides));
  return NDX_OK;
}

/* The bytes [*lo, *end) a layout's positions touch at `bits` bits. */
static void byte_span(const ndx_layout *l, int bits, int64_t *lo, int64_t *end) {
  int64_t a, b;
  ndx_span(l, &a, &b);
  /* positions < 2^53 and bits <= 128: the products fit in int64 */
  *lo = a == b ? 0 : a * bits / 8;
  *end = a == b ? 0 : (b * bits + 7) / 8;
}

/* True iff every position of `l` fits in int32. */
static bool positions_narrow(const ndx_layout *l) {
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  return hi <= INT32_MAX;
}

/* Operands over `shape` (rank axes) from stride rows and offsets, coalesced. */
static void load(ndx_operands *o, int rank, const int64_t *shape, int n,
                 int64_t strides[][NDX_MAX_RANK], const int64_t *offset) {
  o->rank = rank;
  o->nops = n;
  o->numel = 1;
  for (int a = 0; a < rank; a++) {
    o->shape[a] = shape[a];
    o->numel *= shape[a];
  }
  for (int k = 0; k < n; k++) {
    o->offset[k] = o->numel == 0 ? 0 : offset[k];
    for (int a = 0; a < rank; a++) o->strides[k][a] = strides[k][a];
  }
  ndx_operands_coalesce(o);
}

/* C-order strides of `shape` (rank axes) into `out`; returns the element
 * count. */
static int64_t c_strides(int rank, const int64_t *shape, int64_t *out) {
  int64_t n = 1;
  for (int a = rank - 1; a >= 0; a--) {
    out[a] = n;
    n *= shape[a];
  }
  return n;
}

/* Step 2 for the check pass: over the index's support T (S with the axes
 * the index broadcasts dropped, the indexed axis always kept), with the
 * claims table C of shape T but d on the axis. */
static void plan_check(ndx_index_plan *p, const ndx_layout *index_l, bool claims) {
  int r = p->site.rank, axis = p->site.axis;
  int64_t t[NDX_MAX_RANK], c[NDX_MAX_RANK], cs[NDX_MAX_RANK], order[NDX_MAX_RANK];
  for (int a = 0; a < r; a++) t[a] = a == axis || index_l->strides[a] != 0 ? p->site.shape[a] : 1;
  memcpy(c, t, sizeof(int64_t) * (size_t)r);
  c[axis] = p->site.d;
  int64_t nclaims = c_strides(r, c, cs);
  c_strides(r, p->site.shape, order);
  int64_t st[NDX_CHECK_OPS][NDX_MAX_RANK] = {{0}}, off[NDX_CHECK_OPS] = {index_l->offset, 0, 0, 0};
  for (int a = 0; a < r; a++) {
    st[NDX_CHECK_INDEX][a] = index_l->strides[a];
    st[NDX_CHECK_CLAIM][a] = claims && a != axis && c[a] > 1 ? cs[a] : 0;
    st[NDX_CHECK_COORD][a] = a == axis ? 1 : 0;
    st[NDX_CHECK_ORDER][a] = order[a];
  }
  load(&p->check, r, t, NDX_CHECK_OPS, st, off);
  p->nclaims = claims ? nclaims : 0;
  p->claim_stride = claims ? cs[axis] : 0;
  memcpy(p->claims_strides, cs, sizeof(int64_t) * (size_t)r);
  for (int a = 0; a < r; a++)
    if (c[a] == 1 && a != axis) p->claims_strides[a] = 0;
}

/* Step 2 for the copy pass, in its form (index_plan.h). The pass is
 * normalized for the destination's own strides: where the destination
 * moves with the value (unique, winners), operand 0 has stride 0 on the
 * axis, so the destination's real strides ride along as operand 0 to order
 * the axes, and the moved destination (the last operand) then takes its
 * place. */
static void plan_copy(ndx_index_plan *p, const ndx_layout *dst_l, const ndx_layout *src_l,
                      const ndx_layout *index_l) {
  int r = p->site.rank, axis = p->site.axis;
  bool claims = p->form == NDX_INDEX_CLAIMS, winners = p->form == NDX_INDEX_WINNERS;
  bool moves_dst = winners || p->form == NDX_INDEX_UNIQUE_SCATTER;
  int nops = winners ? NDX_COPY_OPS : 3, moved = moves_dst ? nops : NDX_COPY_SRC;
  int64_t st[NDX_COPY_OPS + 1][NDX_MAX_RANK] = {{0}}, off[NDX_COPY_OPS + 1] = {0};
  const int64_t *shape = claims ? dst_l->shape : p->site.shape;
  off[NDX_COPY_DST] = off[nops] = dst_l->offset;
  off[NDX_COPY_SRC] = src_l->offset;
  off[NDX_COPY_INDEX] = claims ? 0 : index_l->offset;
  for (int a = 0; a < r; a++) {
    st[NDX_COPY_DST][a] = st[nops][a] = dst_l->strides[a];
    st[NDX_COPY_SRC][a] = src_l->strides[a];
    st[NDX_COPY_INDEX][a] = claims ? p->claims_strides[a] : index_l->strides[a];
    if (winners) {
      st[NDX_COPY_CLAIM][a] = a == axis ? 0 : p->claims_strides[a];
      st[NDX_COPY_COORD][a] = a == axis ? 1 : 0;
    }
  }
  p->step[0] = p->step[1] = 0;
  p->step[moves_dst ? 0 : 1] = st[moved][axis];
  st[moved][axis] = 0;
  /* The destination riding along runs over S, whose extent on the axis is
   * not dst's: there it takes |stride| (0 on an axis of extent 1, whatever a
   * layout written by hand holds there), so that normalizing never flips the
   * axis for it, which would multiply its stride by S's extent (past int64
   * for a large S) or negate INT64_MIN. */
  if (moves_dst) {
    int64_t s = dst_l->strides[axis];
    st[NDX_COPY_DST][axis] = dst_l->shape[axis] > 1 ? (s < 0 ? -s : s) : 0;
  }
  p->copy_d = claims ? p->site.shape[axis] : p->site.d;
  p->bias = claims ? 1 : 0;
  p->copy_wrap = claims ? false : p->site.wrap;
  p->copy_index_bits = claims ? 32 : p->index_bits;
  load(&p->copy, r, shape, moves_dst ? nops + 1 : nops, st, off);
  ndx_operands_normalize(&p->copy);
  ndx_operands *q = &p->copy;
  if (moves_dst) { /* operand 0 becomes the moved destination */
    q->offset[NDX_COPY_DST] = q->offset[nops];
    for (int a = 0; a < q->rank; a++) q->strides[NDX_COPY_DST][a] = q->strides[nops][a];
    q->nops = nops;
  }
  int in = q->rank - 1;
  p->rows =
      p->bits >= 8 && q->numel > 0 && q->strides[NDX_COPY_DST][in] == 1 &&
      q->strides[NDX_COPY_SRC][in] == 1 && q->strides[NDX_COPY_INDEX][in] == 0 &&
      (!winners || (q->strides[NDX_COPY_CLAIM][in] == 0 && q->strides[NDX_COPY_COORD][in] == 0));
}

/* Step 3, below 8 bits: a copy pass by rows whose rows are whole bytes on
 * both sides (innermost strides 1, 1 and 0 (and only three operands), an
 * extent of whole bytes, and every other destination and source stride,
 * both offsets and both steps on whole bytes) is the same pass over 8-bit
 * elements, which the rows kernel copies as blocks where the sub-byte
 * kernel assembles each byte. */
static void widen_rows(ndx_index_plan *p) {
  ndx_operands *q = &p->copy;
  int64_t per = p->bits < 8 ? 8 / p->bits : 1;
  int in = q->rank - 1;
  if (per == 1 || q->numel == 0 || q->nops != 3 || q->strides[NDX_COPY_DST][in] != 1 ||
      q->strides[NDX_COPY_SRC][in] != 1 || q->strides[NDX_COPY_INDEX][in] != 0 ||
      q->shape[in] % per != 0 || p->step[0] % per != 0 || p->step[1] % per != 0)
    return;
  for (int k = NDX_COPY_DST; k <= NDX_COPY_SRC; k++) {
    if (q->offset[k] % per != 0) return;
    for (int a = 0; a < in; a++)
      if (q->strides[k][a] % per != 0) return;
  }
  for (int k = NDX_COPY_DST; k <= NDX_COPY_SRC; k++) {
    q->offset[k] /= per;
    for (int a = 0; a < in; a++) q->strides[k][a] /= per;
  }
  q->shape[in] /= per;
  q->numel /= per;
  p->step[0] /= per;
  p->step[1] /= per;
  p->bits = 8;
  p->rows = true;
}

ndx_status ndx_index_plan_make(ndx_index_plan *p, const char *call, bool scatter,
                               const ndx_layout *dst_l, const ndx_layout *src_l, int axis,
                               const ndx_layout *index_l, int index_bits, unsigned flags,
                               int bits) {
  ndx_status st = check_args(call, scatter, dst_l, src_l, axis, index_l, index_bits, flags, bits);
  if (st != NDX_OK) return st;
  const ndx_layout *same = scatter ? src_l : dst_l, *indexed = scatter ? dst_l : src_l;
  bool unique = (flags & NDX_INDEX_UNIQUE) != 0;
  ndx_index_form form = !scatter   ? NDX_INDEX_GATHER
                        : bits < 8 ? NDX_INDEX_CLAIMS
                        : unique   ? NDX_INDEX_UNIQUE_SCATTER
                                   : NDX_INDEX_WINNERS;
  if (ndx_index_form_claims(form) && same->shape[axis] > INT32_MAX)
    return ndx_set_error(NDX_ERANGE,
                         "%s: src_l has %lld elements along axis %d, past the 2^31 - 1 that a "
                         "scatter without NDX_INDEX_UNIQUE (or of under 8 bits) handles",
                         call, (long long)same->shape[axis], axis);
  memset(p, 0, sizeof *p);
  p->form = form;
  p->bits = bits;
  p->index_bits = index_bits;
  p->site.call = call;
  p->site.scatter = scatter;
  p->site.wrap = (flags & NDX_INDEX_WRAP) != 0;
  p->site.axis = axis;
  p->site.rank = same->rank;
  p->site.d = indexed->shape[axis];
  memcpy(p->site.shape, same->shape, sizeof(int64_t) * (size_t)same->rank);
  p->site.index_offset = index_l->offset;
  memcpy(p->site.index_strides, index_l->strides, sizeof(int64_t) * (size_t)same->rank);
  p->empty = ndx_numel(same) == 0;
  plan_check(p, index_l, ndx_index_form_claims(form));
  plan_copy(p, dst_l, src_l, index_l);
  widen_rows(p);
  /* the packs' words, and the positions a value reaches: every layout's
   * positions and the claims table's */
  p->wide = !ndx_operands_fit_narrow(&p->check) || !ndx_operands_fit_narrow(&p->copy) ||
            !positions_narrow(dst_l) || !positions_narrow(src_l) || !positions_narrow(index_l) ||
            p->nclaims > INT32_MAX;
  byte_span(dst_l, bits, &p->dst_lo, &p->dst_end);
  byte_span(src_l, bits, &p->src_lo, &p->src_end);
  byte_span(index_l, index_bits, &p->index_lo, &p->index_end);
  return NDX_OK;
}

ndx_status ndx_index_plan_check_pack(const ndx_index_plan *p, void *buf, size_t size,
                                     size_t *used) {
  return ndx_pack_write("ndx_index_plan_check_pack", buf, size, used, &p->check, p->index_bits,
                        p->wide);
}

ndx_status ndx_index_plan_copy_pack(const ndx_index_plan *p, void *buf, size_t size, size_t *used) {
  return ndx_pack_write("ndx_index_plan_copy_pack", buf, size, used, &p->copy, p->bits, p->wide);
}

/* ---- The gpu shape's launches ----------------------------------------------- */

/* Groups of `local` work-items for `units` units, `per` a work-item. */
static int64_t launch_groups(int64_t units, int64_t per, int64_t local, int64_t max_groups) {
  int64_t g = ndx_ceil_div(units, local * per);
  return g > max_groups ? max_groups : g < 1 ? 1 : g;
}

void ndx_index_launch_check(const ndx_index_plan *p, int64_t local, int64_t max_groups,
                            ndx_index_launch *d, int64_t *groups) {
  memset(d, 0, sizeof *d);
  d->units = p->check.numel;
  d->index_bits = p->index_bits;
  d->wrap = p->site.wrap;
  d->d = p->site.d;
  d->claim_stride = p->claim_stride;
  *groups = launch_groups(d->units, NDX_GPU_BATCH, local, max_groups);
}

/* The widest access, up to 16 bytes, that every row of the copy pass
 * starts on in both operands whatever its value k (offsets, outer strides
 * and the steps all multiples of it), and that divides a row's bytes. */
static int64_t row_vector(const ndx_index_plan *p) {
  const ndx_operands *q = &p->copy;
  int64_t eb = p->bits / 8, row = q->shape[q->rank - 1] * eb, v = 16;
  for (; v > eb; v /= 2) {
    bool fits = row % v == 0;
    for (int k = 0; k < 2 && fits; k++) {
      fits = (q->offset[k] * eb) % v == 0 && (p->step[k] * eb) % v == 0;
      for (int a = 0; a < q->rank - 1 && fits; a++) fits = (q->strides[k][a] * eb) % v == 0;
    }
    if (fits) break;
  }
  return v;
}

bool ndx_index_plan_along(const ndx_index_plan *p) {
  const ndx_operands *q = &p->copy;
  if (p->empty || p->form != NDX_INDEX_GATHER || p->bits < 8 || p->rows || q->numel == 0)
    return false;
  int in = q->rank - 1;
  int64_t eb = p->bits / 8, n = q->shape[in], d = p->copy_d;
  return q->rank > 0 && q->strides[NDX_COPY_SRC][in] == 0 &&
         (p->step[1] == 1 || p->step[1] == -1) && d * eb > 4 * NDX_GPU_SECTOR &&
         d * eb <= NDX_GPU_ALONG_BYTES && n * NDX_GPU_SECTOR >= d * eb;
}

/* The along path's passes (ndx_index_plan_along): pack rows of n units,
 * aiming at `aim` units a pass. */
static void launch_along(const ndx_index_plan *p, int64_t aim, ndx_index_launch *d) {
  const ndx_operands *q = &p->copy;
  int64_t n = q->shape[q->rank - 1], rows = q->numel / n, eb = p->bits / 8;
  int64_t fit = NDX_GPU_ALONG_BYTES / (p->copy_d * eb);
  d->along = p->copy_d;
  d->along_lo = p->step[1] < 0 ? -(p->copy_d - 1) : 0;
  if (n >= aim || fit == 1) { /* one pack row a pass, in segments of about aim units */
    d->along_rows = 1;
    d->along_segs = ndx_ceil_div(n, aim);
    d->along_seg = ndx_ceil_div(n, d->along_segs);
    d->passes = rows * d->along_segs;
  } else {
    int64_t want = ndx_ceil_div(aim, n);
    d->along_rows = want < fit ? want : fit;
    if (d->along_rows > rows) d->along_rows = rows;
    d->along_seg = n;
    d->along_segs = 1;
    d->passes = ndx_ceil_div(rows, d->along_rows);
  }
}

void ndx_index_launch_copy(const ndx_index_plan *p, int64_t local, int64_t max_groups,
                           ndx_index_launch *d, int64_t *groups) {
  const ndx_operands *q = &p->copy;
  memset(d, 0, sizeof *d);
  d->index_bits = p->copy_index_bits;
  d->wrap = p->copy_wrap;
  d->d = p->copy_d;
  d->bias = p->bias;
  d->step0 = p->step[0];
  d->step1 = p->step[1];
  d->claim_stride = p->claim_stride;
  if (p->bits < 8) {
    int64_t end;
    ndx_launch_bytes(q, p->bits, &d->first, &end);
    d->units = q->numel ? end - d->first : 0;
    *groups = launch_groups(d->units, 1, local, max_groups);
    return;
  }
  if (p->rows && q->numel > 0) {
    int64_t n = q->shape[q->rank - 1];
    int shift;
    d->rows = 1;
    d->vector = row_vector(p);
    d->row_units = n * (p->bits / 8) / d->vector;
    d->units = q->numel / n * d->row_units;
    ndx_pack_magic(d->row_units, 64, &d->row_magic, &shift);
    d->row_shift = shift;
  } else if (ndx_index_plan_along(p)) {
    int shift;
    d->units = q->numel;
    d->row_units = q->shape[q->rank - 1];
    ndx_pack_magic(d->row_units, 64, &d->row_magic, &shift);
    d->row_shift = shift;
    launch_along(p, local * NDX_GPU_BATCH * 4, d);
    *groups = launch_groups(d->passes, 1, 1, max_groups);
    return;
  } else {
    d->units = q->numel;
  }
  *groups = launch_groups(d->units, NDX_GPU_BATCH, local, max_groups);
}

bool ndx_index_site_locate(const ndx_index_site *site, int64_t order, int64_t *coord,
                           int64_t *position) {
  int64_t numel = 1;
  for (int a = 0; a < site->rank; a++) numel *= site->shape[a]; /* within 2^53: checked */
  if (order < 0 || order >= numel) return false;
  int64_t rest = order, pos = site->index_offset;
  for (int a = site->rank - 1; a >= 0; a--) {
    coord[a] = rest % site->shape[a];
    rest /= site->shape[a];
    pos += coord[a] * site->index_strides[a]; /* a position of index_l: within 2^53 */
  }
  *position = pos;
  return true;
}

ndx_status ndx_index_fault(const ndx_index_site *site, int64_t order, int64_t value) {
  char s[NDX_DIMS_BUF], at[NDX_DIMS_BUF], c[NDX_DIMS_BUF + 32];
  int64_t lo = site->wrap ? -site->d : 0, coord[NDX_MAX_RANK], pos;
  const char *side = site->scatter ? "dst_l" : "src_l";
  if (!ndx_index_site_locate(site, order, coord, &pos)) /* not from a check pass of `site` */
    return ndx_set_error(NDX_ERANGE,
                         "%s: index element %lld of S %s is %lld, outside [%lld, %lld) for axis "
                         "%d of %s: the call wrote nothing",
                         site->call, (long long)order,
                         ndx_fmt_dims(s, sizeof s, site->rank, site->shape), (long long)value,
                         (long long)lo, (long long)site->d, site->axis, side);
  if (site->rank == 0)
    snprintf(c, sizeof c, "index_l's only element");
  else
    snprintf(c, sizeof c, "read at %s", ndx_fmt_dims(at, sizeof at, site->rank, coord));
  return ndx_set_error(NDX_ERANGE,
                       "%s: index[%lld] is %lld, outside [%lld, %lld) for axis %d of %s: the call "
                       "wrote nothing (index[%lld]: element %lld of the index buffer, %s%s%s)",
                       site->call, (long long)pos, (long long)value, (long long)lo,
                       (long long)site->d, site->axis, side, (long long)pos, (long long)pos, c,
                       site->rank ? " of index_l's shape " : "",
                       site->rank ? ndx_fmt_dims(s, sizeof s, site->rank, site->shape) : "");
}
