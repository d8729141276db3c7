/* pack.c: writes layouts in the packed device form (ndx_pack.h).
 *
 * Every pack is written from plain operands (operands.h) on the stack, in
 * one pass at the end (ndx_pack_write, pack_write.c); nothing allocates.
 * ndx_pack_permute and ndx_pack_widen, whose input is a pack, read it into
 * operands first. */
#include <string.h>

#include "ndx/ndx_pack.h"
#include "ndx_internal.h"
#include "operands.h"

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

/* Checks the `n` layouts and the width of a pack for `fn`: each a layout ndx
 * makes, all of one shape, `bits` a width ndx copies. */
static ndx_status check_operands(const char *fn, int n, const ndx_layout *const *in, int bits) {
  for (int k = 0; k < n; k++) {
    ndx_status st = ndx_check_layout_nth(fn, "layout %d", k, in[k]);
    if (st != NDX_OK) return st;
  }
  ndx_status st = ndx_check_bits(fn, bits);
  return st != NDX_OK ? st : ndx_check_same_shape(fn, n, in, NULL);
}

static ndx_status check_buf(const char *fn, void *buf, size_t *used) {
  if (!buf) return ndx_set_error(NDX_EINVAL, "%s: buf is NULL", fn);
  if (!used) return ndx_set_error(NDX_EINVAL, "%s: used is NULL", fn);
  if ((uintptr_t)buf % 8 != 0)
    return ndx_set_error(NDX_EINVAL, "%s: buf %p is not 8-byte aligned", fn, buf);
  return NDX_OK;
}

/* Reads a pack back into `o` (its bits into *bits, its form into *wide). */
static ndx_status read_pack(const char *fn, const void *buf, ndx_operands *o, int *bits,
                            bool *wide) {
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
  ndx_operands o;
  ndx_operands_load(&o, n, ls);
  return ndx_pack_write("ndx_pack", buf, size, used, &o, bits, !ndx_operands_fit_narrow(&o));
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
  ndx_operands o;
  ndx_operands_load(&o, 2, pair);
  ndx_operands_normalize(&o);
  return ndx_pack_write("ndx_pack_copy", buf, size, used, &o, bits, !ndx_operands_fit_narrow(&o));
}

ndx_status ndx_pack_permute(void *buf, const int32_t *perm) {
  if (!buf || !perm)
    return ndx_set_error(NDX_EINVAL, "ndx_pack_permute: %s is NULL", buf ? "perm" : "buf");
  if ((uintptr_t)buf % 8 != 0)
    return ndx_set_error(NDX_EINVAL, "ndx_pack_permute: buf %p is not 8-byte aligned", buf);
  ndx_operands o;
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
  int p[NDX_MAX_RANK];
  for (int a = 0; a < o.rank; a++) p[a] = (int)perm[a];
  ndx_operands_permute(&o, p);
  size_t used;
  /* Same form, same word count: the pack's own size always suffices, unless
   * its words do not fit the 32-bit form it claims (written by hand). */
  if (!wide && !ndx_operands_fit_narrow(&o)) wide = true;
  return ndx_pack_write("ndx_pack_permute", buf, ((ndx_pack_head *)buf)->size, &used, &o, bits,
                        wide);
}

ndx_status ndx_pack_widen(void *buf, size_t size, size_t *used) {
  ndx_status s = check_buf("ndx_pack_widen", buf, used);
  if (s != NDX_OK) return s;
  ndx_operands o;
  int bits;
  bool wide;
  s = read_pack("ndx_pack_widen", buf, &o, &bits, &wide);
  if (s != NDX_OK) return s;
  return ndx_pack_write("ndx_pack_widen", buf, size, used, &o, bits, true);
}
