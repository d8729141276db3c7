/* pack_write.c: writing plain operands (operands.h) in the packed device
 * form (ndx_pack.h): the last step of ndx_pack, ndx_pack_copy and every
 * device runtime's copy plan. */
#include <string.h>

#include "ndx/ndx_pack.h"
#include "operands.h"

size_t ndx_pack_size(const ndx_operands *o, bool wide) {
  return sizeof(ndx_pack_head) + (size_t)NDX_PACK_WORDS(o->nops, o->rank) * (wide ? 8u : 4u);
}

ndx_status ndx_pack_write(const char *fn, void *buf, size_t size, size_t *used,
                          const ndx_operands *o, int bits, bool wide) {
  int nops = o->nops, rank = o->rank;
  size_t words = (size_t)NDX_PACK_WORDS(nops, rank);
  size_t need = ndx_pack_size(o, wide);
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
