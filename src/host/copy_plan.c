/* copy_plan.c: the copy planner of both device runtimes (copy_plan.h). */
#include "copy_plan.h"

const char *ndx_copy_path_name(int path) {
  static const char *const names[] = {"empty", "buffer", "rows", "gather", "transpose", "bytes"};
  return path >= NDX_PATH_EMPTY && path <= NDX_PATH_BYTES ? names[path] : "none";
}

/* Step 1: the arguments, checked once. */
static ndx_status check_copy(const char *call, const ndx_layout *dst, const ndx_layout *src,
                             int bits) {
  ndx_status st = ndx_check_bits(call, bits);
  if (st == NDX_OK) st = ndx_check_layout(call, "dst_l", dst);
  if (st == NDX_OK) st = ndx_check_layout(call, "src_l", src);
  const ndx_layout *pair[2] = {dst, src};
  static const char *const names[2] = {"dst_l", "src_l"};
  if (st == NDX_OK) st = ndx_check_same_shape(call, 2, pair, names);
  if (st != NDX_OK) return st;
  if (!ndx_is_distinct(dst)) {
    char d[NDX_DIMS_BUF], s[NDX_DIMS_BUF];
    return ndx_set_error(
        NDX_EINVAL,
        "%s: dst_l (shape %s, strides %s) is not distinct: two elements would share "
        "a position",
        call, ndx_fmt_dims(d, sizeof d, dst->rank, dst->shape),
        ndx_fmt_dims(s, sizeof s, dst->rank, dst->strides));
  }
  return NDX_OK;
}

/* The bytes [*lo, *end) that operand k's positions touch at `bits` bits. */
static void byte_span(const ndx_operands *q, int k, int bits, int64_t *lo, int64_t *end) {
  int64_t a, b;
  ndx_operands_span(q, k, &a, &b);
  /* positions < 2^53 and bits <= 128: the products fit in int64 (docs/semantics.md section 3) */
  *lo = a == b ? 0 : a * bits / 8;
  *end = a == b ? 0 : (b * bits + 7) / 8;
}

/* The axis (not the last) whose source stride is +-1, for a transpose: the
 * destination runs along the last axis, the source along this one; -1 when
 * there is none. */
static int transpose_axis(const ndx_operands *q) {
  for (int a = q->rank - 2; a >= 0; a--)
    if (q->strides[1][a] == 1 || q->strides[1][a] == -1) return a;
  return -1;
}

/* The axis not yet placed whose stride in operand `op` is the smallest in
 * magnitude; -1 when there is none. */
static int finest_unplaced(const ndx_operands *q, const bool *placed, int op) {
  int best = -1;
  for (int a = 0; a < q->rank; a++)
    if (!placed[a] && (best < 0 || ndx_abs64(q->strides[op][a]) < ndx_abs64(q->strides[op][best])))
      best = a;
  return best;
}

/* Reorders a transpose pair to [batch..., k, j]: k and the last axis last;
 * before them, from the inside out, the batch axis of the destination's
 * finest stride, then that of the source's finest among the others, then
 * the destination's next finest, and so on. Consecutive batches then fill
 * the rest of the lines a small tile touches (a rank-8 permutation of
 * extents 8 has 8 x 8 tiles, 32 of each 64-byte line on both sides): a
 * tile work-item that copies several batches (ndx_tile_batches) uses whole
 * lines. And the batches that step each side's next finest axis come soon
 * after, so that the pages a tile's rows touch on either side are touched
 * again while the TLB still holds them (8^8 reversed: the source's rows
 * come back to their pages 8 batches later, not after an eighth of the
 * copy). */
static void to_tile_order(ndx_operands *q, int k) {
  int r = q->rank, perm[NDX_MAX_RANK], n = r - 2;
  bool placed[NDX_MAX_RANK] = {false};
  placed[k] = placed[r - 1] = true;
  perm[r - 2] = k;
  perm[r - 1] = r - 1;
  for (int op = 0; n > 0; op = !op) {
    int a = finest_unplaced(q, placed, op);
    placed[a] = true;
    perm[--n] = a;
  }
  ndx_operands_permute(q, perm);
}

bool ndx_copy_tiles_own_bytes(const ndx_operands *q, int bits) {
  int r = q->rank, per = 8 / bits;
  if (q->strides[0][r - 1] != 1 || q->offset[0] % per != 0) return false;
  for (int a = 0; a < r - 1; a++)
    if (q->strides[0][a] % per != 0) return false;
  return true;
}

bool ndx_copy_words_fit(const ndx_operands *q, int bits, int words_k, int words_j) {
  int r = q->rank;
  if (bits > 16 || r < 2 || words_k == 0) return false;
  int64_t e = 32 / bits;
  if (q->strides[0][r - 1] != 1 || q->strides[1][r - 2] != 1) return false;
  if (q->offset[0] % e != 0 || q->offset[1] % e != 0) return false;
  for (int a = 0; a < r; a++) {
    if (a != r - 1 && q->strides[0][a] % e != 0) return false;
    if (a != r - 2 && q->strides[1][a] % e != 0) return false;
  }
  return q->shape[r - 2] >= words_k * e && q->shape[r - 1] >= words_j * e;
}

/* The innermost of the `reach` innermost batch axes of transpose pair `q`
 * other than `skip` whose stride in operand `op` is `stride`; -1 when there
 * is none. */
static int continuing_axis(const ndx_operands *q, int op, int64_t stride, int skip, int reach) {
  for (int a = q->rank - 3; a >= 0 && reach > 0; a--) {
    if (a == skip) continue;
    if (q->shape[a] > 1 && q->strides[op][a] == stride) return a;
    reach--;
  }
  return -1;
}

void ndx_copy_tile_join(ndx_operands *q, int64_t short_k, int64_t short_j, int reach, int *gk,
                        int *gj) {
  int r = q->rank, k = r - 2, j = r - 1, k2 = -1, j2 = -1;
  if (q->shape[j] < short_j) j2 = continuing_axis(q, 0, q->shape[j] * q->strides[0][j], -1, reach);
  if (q->shape[k] < short_k) k2 = continuing_axis(q, 1, q->shape[k] * q->strides[1][k], j2, reach);
  int perm[NDX_MAX_RANK], n = 0;
  for (int a = 0; a < k; a++)
    if (a != k2 && a != j2) perm[n++] = a;
  if (k2 >= 0) perm[n++] = k2;
  if (j2 >= 0) perm[n++] = j2;
  perm[n++] = k;
  perm[n++] = j;
  ndx_operands_permute(q, perm);
  *gk = k2 >= 0, *gj = j2 >= 0;
}

/* A source inner stride the gather kernel's runs copy at row speed
 * (ndx_copy_caps.strided_runs). */
static bool strided_run(int64_t ss) {
  return ss == 0 || ss == -1 || ss == 2;
}

/* Step 3: the path for the normalized pair, and the order it is visited in. */
static void choose(ndx_copy_plan *p, const ndx_copy_caps *caps, unsigned flags) {
  ndx_operands *q = &p->q;
  int bits = p->bits, in = q->rank - 1;
  ndx_copy_path other = bits < 8 ? NDX_PATH_BYTES : NDX_PATH_GATHER;
  p->words = p->strided_rows = false;
  if (q->numel == 0) {
    p->path = NDX_PATH_EMPTY;
    return;
  }
  p->path = other;
  /* A single element coalesces to [1] with strides 0: contiguous too. */
  int64_t sd = q->strides[0][in], ss = q->strides[1][in];
  bool unit_d = sd == 1 || q->numel == 1, unit_s = ss == 1 || q->numel == 1;
  if (q->rank == 1 && unit_d && unit_s) {
    if (bits >= 8) {
      int64_t bytes = q->numel * (bits / 8);
      bool kernel = caps->rows_from_bytes > 0 && bytes >= caps->rows_from_bytes;
      p->path = kernel ? NDX_PATH_ROWS : NDX_PATH_BUFFER;
      return;
    }
    if ((q->offset[0] * bits) % 8 == 0 && (q->offset[1] * bits) % 8 == 0 &&
        (q->numel * bits) % 8 == 0) {
      p->path = NDX_PATH_BUFFER;
      return;
    }
  }
  if (bits >= 8 && unit_d && unit_s) {
    p->path = NDX_PATH_ROWS;
    return;
  }
  if (bits >= 8 && unit_d && caps->strided_runs && strided_run(ss)) {
    p->strided_rows = true; /* gather */
    return;
  }
  int k = q->rank >= 2 && sd == 1 && !(flags & NDX_COPY_DST_ORDER) ? transpose_axis(q) : -1;
  if (k < 0) return;
  ndx_operands t = *q;
  to_tile_order(&t, k);
  bool words =
      !(flags & NDX_COPY_NO_WORDS) && ndx_copy_words_fit(&t, bits, caps->words_k, caps->words_j);
  bool tiles = bits >= 8 || (caps->words_k ? words : ndx_copy_tiles_own_bytes(&t, bits));
  if (!tiles) return; /* sub-byte rows that share bytes: bytes */
  p->path = NDX_PATH_TRANSPOSE;
  p->words = words;
  *q = t;
}

void ndx_copy_plan_pair(ndx_copy_plan *p, const ndx_operands *pair, int bits,
                        const ndx_copy_caps *caps, unsigned flags) {
  p->bits = bits;
  p->q = *pair;
  ndx_operands_coalesce(&p->q);
  ndx_operands_normalize(&p->q);
  byte_span(&p->q, 0, bits, &p->dst_lo, &p->dst_end);
  byte_span(&p->q, 1, bits, &p->src_lo, &p->src_end);
  choose(p, caps, flags);
  p->wide = (flags & NDX_COPY_WIDE) || !ndx_operands_fit_narrow(&p->q);
}

ndx_status ndx_copy_plan_make(ndx_copy_plan *p, const char *call, const ndx_layout *dst,
                              const ndx_layout *src, int bits, const ndx_copy_caps *caps,
                              unsigned flags) {
  ndx_status st = check_copy(call, dst, src, bits);
  if (st != NDX_OK) return st;
  const ndx_layout *pair[2] = {dst, src};
  ndx_operands o;
  ndx_operands_load(&o, 2, pair);
  ndx_copy_plan_pair(p, &o, bits, caps, flags);
  return NDX_OK;
}

ndx_status ndx_copy_plan_pack(const ndx_copy_plan *p, void *buf, size_t size) {
  size_t used;
  return ndx_pack_write("ndx_copy_plan_pack", buf, size, &used, &p->q, p->bits, p->wide);
}
