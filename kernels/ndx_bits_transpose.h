/* ndx_bits_transpose.h: the sub-byte (1, 2 and 4-bit) pieces of ndx's copy
 * bodies: destination bytes filled one at a time (ndx_bits_put,
 * ndx_bits_flush), and the transpose of a bit matrix held in 8-byte words
 * (NDX_BITS_ROUND, ndx_bits_transpose), which on OpenCL also runs lane by
 * lane on vectors of words to copy whole sub-byte tiles
 * (ndx_copy_bits_tile, staged in NDX_STAGE_BYTES) and bands of their rows
 * (ndx_bits_bands); on the host and CUDA those two copy nothing, and
 * ndx_copy_tile_bits (ndx_copy_cpu.h) goes by ndx_bits_transpose alone.
 * Private to ndx, as ndx_copy_items.h, which includes it after
 * ndx_cpu_vectors.h (vector loads, transposes and words);
 * ndx_copy_cpu.h and ndx_index_items.h use it. One form, included once;
 * tools/embed.py inlines it into the embedded OpenCL program. */

#include "ndx/ndx_device.h"
#include "ndx_copy_geometry.h"
#include "ndx_cpu_vectors.h"

#ifndef NDX_BITS_TRANSPOSE_H
#define NDX_BITS_TRANSPOSE_H

/* Bytes of the private buffer a sub-byte tile stages its source in: a
 * whole tile of ndx_tile_side for 1, 2 and 4 bits (512*512/8, 128*128/4,
 * 128*128/2 bytes at most). */
#define NDX_STAGE_BYTES 32768

/* Sub-byte destinations accumulate one destination byte at a time: `*cur`
 * is the byte being filled (-1 for none), `*acc` its new bits and `*mask`
 * which bits those are. Flushing writes the byte once, as (old & ~mask) |
 * acc, or plainly when every bit is new. */
NDX_FN void ndx_bits_flush(NDX_GLOBAL ndx_u8 *dst, ndx_i64 cur, ndx_u32 acc, ndx_u32 mask) {
  if (cur >= 0) dst[cur] = (ndx_u8)(mask == 0xffu ? acc : ((dst[cur] & ~mask) | acc));
}
NDX_FN void ndx_bits_put(NDX_GLOBAL ndx_u8 *dst, ndx_i64 *cur, ndx_u32 *acc, ndx_u32 *mask,
                         ndx_i64 pd, ndx_u32 v, int bits) {
  int lg = ndx_sub_log2(bits);
  ndx_i64 byte = pd >> lg;
  if (byte != *cur) {
    ndx_bits_flush(dst, *cur, *acc, *mask);
    *cur = byte;
    *acc = *mask = 0;
  }
  ndx_u32 sh = ((ndx_u32)pd & ((1u << lg) - 1u)) * (ndx_u32)bits;
  *acc |= v << sh;
  *mask |= ((1u << bits) - 1u) << sh;
}

/* One round, at half-size h, over the n words from w (n a multiple of 2h). */
#define NDX_BITS_ROUND(T, w, n, h, bits, UNROLL)                                                   \
  {                                                                                                \
    int sh = (h) * (bits); /* the bits of h elements */                                            \
    /* sh ones, sh zeros, repeated: the elements e with e & h == 0 */                              \
    ndx_u64 m = sh == 32   ? 0x00000000FFFFFFFFull                                                 \
                : sh == 16 ? 0x0000FFFF0000FFFFull                                                 \
                : sh == 8  ? 0x00FF00FF00FF00FFull                                                 \
                : sh == 4  ? 0x0F0F0F0F0F0F0F0Full                                                 \
                : sh == 2  ? 0x3333333333333333ull                                                 \
                           : 0x5555555555555555ull;                                                 \
    UNROLL for (int q = 0; q < (n) / 2; q++) {                                                     \
      int r = ((q & ~((h)-1)) << 1) | (q & ((h)-1)); /* the q-th r with r & h == 0 */              \
      T t = ((w[r] >> sh) ^ w[r + (h)]) & m;                                                       \
      w[r + (h)] ^= t;                                                                             \
      w[r] ^= t << sh;                                                                             \
    }                                                                                              \
  }

/* The transpose of an n x n matrix of sub-byte elements, n = 64/bits, held
 * as n words: element e of word r (bits bits*e ..) goes to element r of
 * word e. Element order in a word is the buffer's (docs/semantics.md section 1),
 * so a word is 8 bytes of a row. Recursive block swaps (Hacker's Delight
 * 7-3): at half-size h, words r and r+h (r & h == 0) trade the elements e
 * with e & h != 0 of word r for the elements e - h of word r+h, one masked
 * xor each. log2(n) rounds of n/2 swaps: 3 operations a byte or so. */
NDX_FN void ndx_bits_transpose(ndx_u64 *w, int bits) {
  for (int h = 32 / bits; h >= 1; h >>= 1) NDX_BITS_ROUND(ndx_u64, w, 64 / bits, h, bits, );
}

#if defined(NDX_OPENCL_C)
/* ndx_bits_transpose's rounds on n vectors V from w, lane by lane: those
 * of h > 8 over all n, then groups of 16 vectors, each through its last
 * four rounds (registers for 16 vectors). */
#define NDX_BITS_ROUNDS(V, w, n, bits)                                                             \
  {                                                                                                \
    _Pragma("unroll") for (int h = (n) / 2; h > 8; h >>= 1) {                                      \
      NDX_BITS_ROUND(V, w, n, h, bits, _Pragma("unroll"));                                         \
    }                                                                                              \
    _Pragma("unroll") for (int g = 0; g < (n); g += 16) {                                          \
      _Pragma("unroll") for (int h = 8; h >= 1; h >>= 1) {                                         \
        NDX_BITS_ROUND(V, (w + g), 16, h, bits, _Pragma("unroll"));                                \
      }                                                                                            \
    }                                                                                              \
  }

/* A whole sub-byte tile (ndx_tile_side square, n = 64/bits, NW = side/n
 * words a row: 8 for 4 and 1 bits, 4 for 2) in vectors V of NW words,
 * lane J for the tile's J-th n columns. Source rows J*n + k (J < NW) give
 * NW words each, one vector load a row; an NW x NW transpose in registers
 * turns them into NW vectors, the I-th holding word k of block (I, J) in
 * lane J, which go to the private stage at I*n + k. Then for each I the n
 * staged vectors of block row I are transposed bit-wise, lane by lane
 * (ndx_bits_transpose's rounds on vectors: the n x n transposes of NW
 * blocks at once), and vector m is destination row I*n + m whole: one
 * store of the row's NW words, so that every destination line is written
 * in one piece (word by word, rows a power-of-two pitch apart evict each
 * other's lines from the cache before they are full). Needs ssi == 1, source rows and
 * destination rows starting on bytes (as ndx_copy_tile_bits' blocks). */
#define NDX_DEFINE_BITS_TILE(V, NW)                                                                \
  NDX_ITEM_FN void ndx_bits_tile_##V(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi, \
                                     NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps,        \
                                     ndx_i64 ssj, int bits) {                                      \
    int lg = ndx_sub_log2(bits), n = 64 / bits;                                                    \
    int stream = ((((uintptr_t)(dst + (pd >> lg))) | (uintptr_t)(sdi >> lg)) & (8 * NW - 1)) == 0; \
    V stage[NDX_STAGE_BYTES / (8 * NW)], w[64];                                                    \
    for (int k = 0; k < n; k++) {                                                                  \
      V a[NW];                                                                                     \
      _Pragma("unroll") for (int J = 0; J < NW; J++) a[J] =                                        \
          NDX_LOAD(V, (NDX_GLOBAL const ulong *)(src + ((ps + (J * n + k) * ssj) >> lg)));         \
      ndx_transpose_##V(a);                                                                        \
      _Pragma("unroll") for (int I = 0; I < NW; I++) stage[I * n + k] = a[I];                      \
    }                                                                                              \
    for (int I = 0; I < NW; I++) {                                                                 \
      _Pragma("unroll") for (int k = 0; k < n; k++) w[k] = stage[I * n + k];                       \
      NDX_BITS_ROUNDS(V, w, n, bits);                                                              \
      _Pragma("unroll") for (int m = 0; m < n; m++) {                                              \
        NDX_GLOBAL ulong *row = (NDX_GLOBAL ulong *)(dst + ((pd + (I * n + m) * sdi) >> lg));      \
        if (stream)                                                                                \
          __builtin_nontemporal_store(w[m], (NDX_GLOBAL V *)row);                                  \
        else                                                                                       \
          NDX_STORE(V, row, w[m]);                                                                 \
      }                                                                                            \
    }                                                                                              \
    if (stream) ndx_stream_fence();                                                                \
  }
NDX_DEFINE_BITS_TILE(ulong8, 8)
NDX_DEFINE_BITS_TILE(ulong4, 4)
#undef NDX_DEFINE_BITS_TILE

/* Bands of 8n destination rows (n = 64/bits) of a sub-byte tile that is
 * not whole: rows [0, fb) x columns [0, fj) (fj a multiple of n), fb the
 * largest multiple of 8n up to fi; returns fb. A band takes its n x n
 * blocks eight at a time, in vectors of 8 words whose lane I is the
 * band's I-th n rows: the n source rows of columns j.. give one 64-byte
 * load each, ndx_bits_transpose's rounds run on the n vectors, and lane I
 * of vector m is word j/n of destination row I*n + m. A thin tile (rows of
 * 128 1-bit elements, 2048 of them) goes in full vectors this way, where
 * ndx_copy_bits_tile needs a whole square tile. Needs ssi == 1 and source
 * and destination rows starting on bytes (as ndx_copy_tile_bits' blocks). */
#define NDX_BAND_STORE(I) ndx_store_word(dst + ((pd + (i + (I)*n + m) * sdi + j) >> lg), w[m].s##I)
NDX_ITEM_FN ndx_i64 ndx_bits_bands_n(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi,
                                     NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps,
                                     ndx_i64 ssj, ndx_i64 fi, ndx_i64 fj, int bits) {
  int lg = ndx_sub_log2(bits), n = 64 / bits;
  ndx_i64 fb = fi - fi % (8 * n);
  ulong8 w[64];
  for (ndx_i64 i = 0; i < fb; i += 8 * n)
    for (ndx_i64 j = 0; j < fj; j += n) {
      _Pragma("unroll") for (int k = 0; k < n; k++) w[k] =
          NDX_LOAD(ulong8, (NDX_GLOBAL const ulong *)(src + ((ps + i + (j + k) * ssj) >> lg)));
      NDX_BITS_ROUNDS(ulong8, w, n, bits);
      _Pragma("unroll") for (int m = 0; m < n; m++) {
        NDX_BAND_STORE(0);
        NDX_BAND_STORE(1);
        NDX_BAND_STORE(2);
        NDX_BAND_STORE(3);
        NDX_BAND_STORE(4);
        NDX_BAND_STORE(5);
        NDX_BAND_STORE(6);
        NDX_BAND_STORE(7);
      }
    }
  return fb;
}
#undef NDX_BAND_STORE

/* ndx_bits_bands_n with its width as a constant (the loops unroll). */
NDX_ITEM_FN ndx_i64 ndx_bits_bands(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps,
                                   ndx_i64 ssj, ndx_i64 fi, ndx_i64 fj, int bits) {
  if (bits == 4) return ndx_bits_bands_n(dst, pd, sdi, src, ps, ssj, fi, fj, 4);
  if (bits == 2) return ndx_bits_bands_n(dst, pd, sdi, src, ps, ssj, fi, fj, 2);
  return ndx_bits_bands_n(dst, pd, sdi, src, ps, ssj, fi, fj, 1);
}

/* Copies a whole sub-byte tile by ndx_bits_tile_V; 0 where the tile is
 * not whole (an edge), copying nothing. */
NDX_ITEM_FN int ndx_copy_bits_tile(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps,
                                   ndx_i64 ssj, ndx_i64 ni, ndx_i64 nj, int bits) {
  ndx_i64 side = ndx_tile_side(bits);
  if (ni != side || nj != side) return 0;
  /* each with its width as a constant: the loops unroll wherever this is
   * inlined */
  if (bits == 4)
    ndx_bits_tile_ulong8(dst, pd, sdi, src, ps, ssj, 4);
  else if (bits == 2)
    ndx_bits_tile_ulong4(dst, pd, sdi, src, ps, ssj, 2);
  else
    ndx_bits_tile_ulong8(dst, pd, sdi, src, ps, ssj, 1);
  return 1;
}
#else
NDX_FN int ndx_copy_bits_tile(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi,
                              NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps, ndx_i64 ssj,
                              ndx_i64 ni, ndx_i64 nj, int bits) {
  (void)dst, (void)pd, (void)sdi, (void)src, (void)ps, (void)ssj, (void)ni, (void)nj, (void)bits;
  return 0;
}
NDX_FN ndx_i64 ndx_bits_bands(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi,
                              NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps, ndx_i64 ssj,
                              ndx_i64 fi, ndx_i64 fj, int bits) {
  (void)dst, (void)pd, (void)sdi, (void)src, (void)ps, (void)ssj, (void)fi, (void)fj, (void)bits;
  return 0;
}
#endif

#endif /* NDX_BITS_TRANSPOSE_H */
