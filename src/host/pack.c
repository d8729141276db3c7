/* pack.c: writes layouts in the packed device form (ndx_pack.h).
 *
 * Everything here works on a small private description of coalesced operands
 * (shape, offsets, strides) on the stack; nothing allocates. */
#include <string.h>

#include "ndx/ndx_pack.h"
#include "ndx_internal.h"

/* Operands of one shape, coalesced: what a pack holds before it is written. */
typedef struct operands {
  int rank, nops;
  int64_t numel;
  int64_t shape[NDX_MAX_RANK];
  int64_t offset[NDX_PACK_MAX_OPS];
  int64_t strides[NDX_PACK_MAX_OPS][NDX_MAX_RANK];
} operands;

static bool valid_bits(int bits) {
  return bits == 1 || bits == 2 || bits == 4 || bits == 8 || bits == 16 || bits == 32 ||
         bits == 64 || bits == 128;
}

bool ndx_pack_magic(int64_t d, int nbits, uint64_t *magic, int *shift) {
  if (!magic || !shift || d < 1 || d > NDX_MAX_NUMEL) return false;
  if (nbits != 32 && nbits != 64) return false;
  if (nbits == 32 && d > INT32_MAX) return false;
  int l = 0;
  while ((INT64_C(1) << l) < d) l++;
  /* m = floor(2^N (2^l - d) / d) + 1; 2^l - d < d, so m <= 2^N - 1 + 1 and in
   * fact m < 2^N for d < 2^(N-1). */
  uint64_t a = (uint64_t)((INT64_C(1) << l) - d); /* < d */
  if (nbits == 32) {
    *magic = (a << 32) / (uint64_t)d + 1; /* a < d <= 2^31: no overflow */
  } else {
    __extension__ typedef unsigned __int128 u128;
    *magic = (uint64_t)((((u128)a) << 64) / (u128)d) + 1;
  }
  *shift = l;
  return true;
}

/* Merges axis a into a+1 wherever every operand lays the two out as one run
 * (docs/semantics.md section 5); keeps at least one axis. */
static void merge_runs(operands *o) {
  int r = 0;
  for (int a = 0; a < o->rank; a++) {
    if (r > 0) {
      bool run = true;
      for (int k = 0; k < o->nops && run; k++)
        run = o->strides[k][r - 1] == o->strides[k][a] * o->shape[a];
      if (run) {
        o->shape[r - 1] *= o->shape[a];
        for (int k = 0; k < o->nops; k++) o->strides[k][r - 1] = o->strides[k][a];
        continue;
      }
    }
    o->shape[r] = o->shape[a];
    for (int k = 0; k < o->nops; k++) o->strides[k][r] = o->strides[k][a];
    r++;
  }
  o->rank = r;
}

/* Checks the `n` layouts and the width of a pack for `fn`: each a layout ndx
 * makes, all of one shape, `bits` a width ndx copies. */
static ndx_status check_operands(const char *fn, int n, const ndx_layout *const *in, int bits) {
  for (int k = 0; k < n; k++) {
    ndx_status st = ndx_check_layout_nth(fn, "layout %d", k, in[k]);
    if (st != NDX_OK) return st;
  }
  if (!valid_bits(bits))
    return ndx_set_error(NDX_EINVAL, "%s: bits is %d, not one of 1, 2, 4, 8, 16, 32, 64, 128", fn,
                         bits);
  const ndx_layout *first = in[0];
  for (int k = 1; k < n; k++) {
    bool same = in[k]->rank == first->rank;
    for (int a = 0; same && a < first->rank; a++) same = in[k]->shape[a] == first->shape[a];
    if (!same) {
      char s0[NDX_DIMS_BUF], sk[NDX_DIMS_BUF];
      return ndx_set_error(NDX_EINVAL, "%s: layout %d has shape %s, layout 0 has %s", fn, k,
                           ndx_fmt_dims(sk, sizeof sk, in[k]->rank, in[k]->shape),
                           ndx_fmt_dims(s0, sizeof s0, first->rank, first->shape));
    }
  }
  return NDX_OK;
}

/* Coalesces `n` layouts that check_operands passed into `o` by ndx_coalesce's
 * rule: extent-1 axes dropped, runs that every layout shares merged, axes
 * never reordered, at least one axis ([1] or [0] with strides 0). Done here
 * on the compact description: copying ndx_coalesce's full-size layouts would
 * cost more than building the whole pack. Cannot fail, and writes every field
 * of `o` that a pack reads (the planner relies on it). */
static void gather_operands(operands *o, int n, const ndx_layout *const *in) {
  const ndx_layout *first = in[0];
  o->nops = n;
  o->numel = 1;
  for (int a = 0; a < first->rank; a++) o->numel *= first->shape[a];
  if (o->numel <= 1) { /* canonical: one element keeps its offsets, none has offset 0 */
    o->rank = 1;
    o->shape[0] = o->numel;
    for (int k = 0; k < n; k++) {
      o->offset[k] = o->numel ? in[k]->offset : 0;
      o->strides[k][0] = 0;
    }
    return;
  }
  int r = 0;
  for (int a = 0; a < first->rank; a++) {
    if (first->shape[a] == 1) continue;
    o->shape[r] = first->shape[a];
    for (int k = 0; k < n; k++) o->strides[k][r] = in[k]->strides[a];
    r++;
  }
  o->rank = r;
  for (int k = 0; k < n; k++) o->offset[k] = in[k]->offset;
  merge_runs(o);
}

/* Flips every axis whose destination stride is negative, in every operand,
 * orders the axes by destination stride, largest first (stable), and merges
 * runs again. A copy is a bijection of indices, so each step keeps every
 * (source position, destination position) pair. */
static void normalize_for_destination(operands *o) {
  if (o->numel == 0) return; /* coalesced to [0], every stride 0 */
  for (int a = 0; a < o->rank; a++) {
    if (o->strides[0][a] >= 0) continue;
    for (int k = 0; k < o->nops; k++) {
      o->offset[k] += (o->shape[a] - 1) * o->strides[k][a];
      o->strides[k][a] = -o->strides[k][a];
    }
  }
  /* Insertion sort: stable, O(rank^2) on at most 32 axes. */
  for (int a = 1; a < o->rank; a++) {
    int64_t d = o->shape[a], s[NDX_PACK_MAX_OPS];
    for (int k = 0; k < o->nops; k++) s[k] = o->strides[k][a];
    int b = a;
    for (; b > 0 && o->strides[0][b - 1] < s[0]; b--) {
      o->shape[b] = o->shape[b - 1];
      for (int k = 0; k < o->nops; k++) o->strides[k][b] = o->strides[k][b - 1];
    }
    o->shape[b] = d;
    for (int k = 0; k < o->nops; k++) o->strides[k][b] = s[k];
  }
  merge_runs(o);
}

/* True iff every position of every operand and the element count fit in
 * int32 (then so does every partial sum a kernel forms, each being a
 * position of the same operand). Checked arithmetic: a pack read back may
 * hold any words. */
static bool fits_narrow(const operands *o) {
  if (o->numel > INT32_MAX) return false;
  for (int k = 0; k < o->nops; k++) {
    int64_t hi = o->offset[k], reach;
    for (int a = 0; a < o->rank; a++)
      if (o->shape[a] > 1 && o->strides[k][a] > 0 &&
          (!ndx_mul_ok(o->shape[a] - 1, o->strides[k][a], &reach) || !ndx_add_ok(hi, reach, &hi)))
        return false;
    if (hi > INT32_MAX) return false;
  }
  return true;
}

/* Writes `o` as a pack, in the 64-bit form when `wide` or when the 32-bit
 * one does not fit. Writes nothing when `size` is too small. */
static ndx_status write_pack(const char *fn, void *buf, size_t size, size_t *used,
                             const operands *o, int bits, bool wide) {
  wide = wide || !fits_narrow(o);
  int nops = o->nops, rank = o->rank;
  size_t words = (size_t)NDX_PACK_WORDS(nops, rank);
  size_t need = sizeof(ndx_pack_head) + words * (wide ? 8u : 4u);
  if (size < need)
    return ndx_set_error(NDX_ERANGE, "%s: size is %zu bytes, the pack needs %zu", fn, size, need);
  ndx_pack_head *h = buf;
  h->version = NDX_PACK_VERSION;
  h->size = (uint32_t)need;
  h->rank = (uint32_t)rank;
  h->nops = (uint32_t)nops;
  h->bits = (uint32_t)bits;
  h->wide = wide;
  h->numel = o->numel;
  int64_t w64[NDX_PACK_WORDS(NDX_PACK_MAX_OPS, NDX_MAX_RANK)];
  for (int k = 0; k < nops; k++) w64[NDX_PACK_OFFSET(nops, rank, k)] = o->offset[k];
  for (int a = 0; a < rank; a++) {
    uint64_t m = 0;
    int l = 0;
    if (o->shape[a] > 0) ndx_pack_magic(o->shape[a], wide ? 64 : 32, &m, &l);
    w64[NDX_PACK_EXTENT(nops, rank, a)] = o->shape[a];
    w64[NDX_PACK_MAGIC(nops, rank, a)] = (int64_t)m; /* the bits of m, reread unsigned */
    w64[NDX_PACK_SHIFT(nops, rank, a)] = l;
    for (int k = 0; k < nops; k++) w64[NDX_PACK_STRIDE(nops, rank, k, a)] = o->strides[k][a];
  }
  unsigned char *w = (unsigned char *)(h + 1);
  if (wide) {
    memcpy(w, w64, words * 8);
  } else {
    for (size_t i = 0; i < words; i++) {
      uint32_t v = (uint32_t)(uint64_t)w64[i]; /* magic < 2^32, the rest fits int32 */
      memcpy(w + 4 * i, &v, 4);
    }
  }
  *used = need;
  return NDX_OK;
}

static ndx_status check_buf(const char *fn, void *buf, size_t *used) {
  if (!buf) return ndx_set_error(NDX_EINVAL, "%s: buf is NULL", fn);
  if (!used) return ndx_set_error(NDX_EINVAL, "%s: used is NULL", fn);
  if ((uintptr_t)buf % 8 != 0)
    return ndx_set_error(NDX_EINVAL, "%s: buf %p is not 8-byte aligned", fn, buf);
  return NDX_OK;
}

/* Reads a pack back into `o` (its bits into *bits, its form into *wide). */
static ndx_status read_pack(const char *fn, const void *buf, operands *o, int *bits, bool *wide) {
  const ndx_pack_head *h = buf;
  if (h->version != NDX_PACK_VERSION)
    return ndx_set_error(NDX_EINVAL, "%s: pack version %u, not %u", fn, h->version,
                         NDX_PACK_VERSION);
  if (h->rank < 1 || h->rank > NDX_MAX_RANK || h->nops < 1 || h->nops > NDX_PACK_MAX_OPS)
    return ndx_set_error(NDX_EINVAL, "%s: pack of rank %u and %u operands is malformed", fn,
                         h->rank, h->nops);
  int nops = (int)h->nops, rank = (int)h->rank;
  const unsigned char *w = (const unsigned char *)(h + 1);
  int64_t v[NDX_PACK_WORDS(NDX_PACK_MAX_OPS, NDX_MAX_RANK)];
  for (int i = 0; i < NDX_PACK_WORDS(nops, rank); i++) {
    if (h->wide) {
      memcpy(&v[i], w + 8 * i, 8);
    } else {
      int32_t x;
      memcpy(&x, w + 4 * i, 4);
      v[i] = x;
    }
  }
  o->rank = rank;
  o->nops = nops;
  o->numel = h->numel;
  for (int k = 0; k < nops; k++) o->offset[k] = v[NDX_PACK_OFFSET(nops, rank, k)];
  for (int a = 0; a < rank; a++) {
    o->shape[a] = v[NDX_PACK_EXTENT(nops, rank, a)];
    for (int k = 0; k < nops; k++) o->strides[k][a] = v[NDX_PACK_STRIDE(nops, rank, k, a)];
  }
  *bits = (int)h->bits;
  *wide = h->wide != 0;
  return NDX_OK;
}

ndx_status ndx_pack(void *buf, size_t size, size_t *used, int n, const ndx_layout *layouts,
                    int bits) {
  ndx_status s = check_buf("ndx_pack", buf, used);
  if (s != NDX_OK) return s;
  if (!layouts) return ndx_set_error(NDX_EINVAL, "ndx_pack: layouts is NULL");
  if (n < 1 || n > NDX_PACK_MAX_OPS)
    return ndx_set_error(NDX_EINVAL, "ndx_pack: n is %d, not in [1, %d]", n, NDX_PACK_MAX_OPS);
  const ndx_layout *ls[NDX_PACK_MAX_OPS];
  for (int k = 0; k < n; k++) ls[k] = &layouts[k];
  s = check_operands("ndx_pack", n, ls, bits);
  if (s != NDX_OK) return s;
  operands o;
  gather_operands(&o, n, ls);
  return write_pack("ndx_pack", buf, size, used, &o, bits, false);
}

ndx_status ndx_pack_copy(void *buf, size_t size, size_t *used, const ndx_layout *dst,
                         const ndx_layout *src, int bits) {
  ndx_status s = check_buf("ndx_pack_copy", buf, used);
  if (s != NDX_OK) return s;
  if (!dst || !src)
    return ndx_set_error(NDX_EINVAL, "ndx_pack_copy: %s is NULL", dst ? "src" : "dst");
  const ndx_layout *pair[2] = {dst, src};
  s = check_operands("ndx_pack_copy", 2, pair, bits);
  if (s != NDX_OK) return s;
  operands o;
  gather_operands(&o, 2, pair);
  normalize_for_destination(&o);
  return write_pack("ndx_pack_copy", buf, size, used, &o, bits, false);
}

ndx_status ndx_pack_permute(void *buf, const int32_t *perm) {
  if (!buf || !perm)
    return ndx_set_error(NDX_EINVAL, "ndx_pack_permute: %s is NULL", buf ? "perm" : "buf");
  if ((uintptr_t)buf % 8 != 0)
    return ndx_set_error(NDX_EINVAL, "ndx_pack_permute: buf %p is not 8-byte aligned", buf);
  operands o, p;
  int bits;
  bool wide;
  ndx_status s = read_pack("ndx_pack_permute", buf, &o, &bits, &wide);
  if (s != NDX_OK) return s;
  bool seen[NDX_MAX_RANK] = {false};
  for (int a = 0; a < o.rank; a++) {
    if (perm[a] < 0 || perm[a] >= o.rank || seen[perm[a]])
      return ndx_set_error(NDX_EINVAL,
                           "ndx_pack_permute: perm[%d] is %d: not a permutation of 0..%d", a,
                           (int)perm[a], o.rank - 1);
    seen[perm[a]] = true;
  }
  p = o;
  for (int a = 0; a < o.rank; a++) {
    p.shape[a] = o.shape[perm[a]];
    for (int k = 0; k < o.nops; k++) p.strides[k][a] = o.strides[k][perm[a]];
  }
  size_t used;
  /* Same form, same word count: the pack's own size always suffices. */
  return write_pack("ndx_pack_permute", buf, ((ndx_pack_head *)buf)->size, &used, &p, bits, wide);
}

ndx_status ndx_pack_widen(void *buf, size_t size, size_t *used) {
  ndx_status s = check_buf("ndx_pack_widen", buf, used);
  if (s != NDX_OK) return s;
  operands o;
  int bits;
  bool wide;
  s = read_pack("ndx_pack_widen", buf, &o, &bits, &wide);
  if (s != NDX_OK) return s;
  return write_pack("ndx_pack_widen", buf, size, used, &o, bits, true);
}
