/* ndx_bits_transpose.h: the sub-byte (1, 2 and 4-bit) pieces of ndx's
 * bodies that every dialect shares, in ndx_device.h's (OpenCL C 1.2, CUDA,
 * HIP and host C): destination bytes filled one at a time (ndx_bits_put,
 * ndx_bits_flush), and the transpose of a bit matrix held in words of any
 * width (NDX_BITS_ROUND, NDX_BITS_TRANSPOSE, ndx_bits_transpose for 8-byte
 * words). Its users: the cpu-shape bodies (ndx_copy_cpu.h, by 8-byte words,
 * and ndx_cpu_vectors.h, whose sub-byte tiles run the same rounds lane by
 * lane on OpenCL vectors of words), the index bodies (ndx_index_items.h)
 * and CUDA's transpose-words body (ndx_cuda_words.cuh, by 4-byte words).
 * Private to ndx, as ndx_copy_items.h. One form, included once;
 * tools/embed.py inlines it into the embedded OpenCL program. */

#include "ndx/ndx_device.h"

#ifndef NDX_BITS_TRANSPOSE_H
#define NDX_BITS_TRANSPOSE_H

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

/* The transpose of an n x n matrix of sub-byte elements held as n words of
 * T, n = (bits of a word of T) / bits: element e of word r (bits bits*e ..)
 * goes to element r of word e. T is ndx_u64 or ndx_u32, or an OpenCL
 * vector of ulong, which transposes one matrix a lane. Element order in a
 * word is the buffer's (docs/semantics.md section 1), so an 8-byte word is
 * 8 bytes of a row. Recursive block swaps (Hacker's Delight 7-3): the
 * round at half-size h (h = n/2, n/4, .., 1) swaps element e + h of word r
 * with element e of word r + h for every r and e with r & h == e & h == 0:
 * two shifts and two masked merges a pair of words (one instruction each
 * where the target has a bit-select: CUDA's LOP3, AVX-512's VPTERNLOG).
 * log2(n) rounds of n/2 swaps: 3 operations a byte or so.
 *
 * NDX_BITS_ROUND is one round, at half-size h, over the n words from w (n a
 * multiple of 2h; bits * h at most half a word of T); UNROLL is empty or a
 * pragma that unrolls its loop. */
#define NDX_BITS_ROUND(T, w, n, h, bits, UNROLL)                                                   \
  {                                                                                                \
    int sh = (h) * (bits); /* the bits of h elements */                                            \
    /* sh ones, sh zeros, repeated: the elements e with e & h == 0 (the                            \
     * low half of the pattern for 4-byte words) */                                                \
    ndx_u64 m = sh == 32   ? 0x00000000FFFFFFFFull                                                 \
                : sh == 16 ? 0x0000FFFF0000FFFFull                                                 \
                : sh == 8  ? 0x00FF00FF00FF00FFull                                                 \
                : sh == 4  ? 0x0F0F0F0F0F0F0F0Full                                                 \
                : sh == 2  ? 0x3333333333333333ull                                                 \
                           : 0x5555555555555555ull;                                                 \
    UNROLL for (int q = 0; q < (n) / 2; q++) {                                                     \
      int r = ((q & ~((h)-1)) << 1) | (q & ((h)-1)); /* the q-th r with r & h == 0 */              \
      T x = w[r], y = w[r + (h)];                                                                  \
      w[r] = (T)((x & m) | ((y << sh) & ~m));                                                      \
      w[r + (h)] = (T)(((x >> sh) & m) | (y & ~m));                                                \
    }                                                                                              \
  }

/* log2 of a power of two n <= 64, a constant expression where n is one. */
#define NDX_BITS_LOG2(n)                                                                           \
  (((n) >= 2) + ((n) >= 4) + ((n) >= 8) + ((n) >= 16) + ((n) >= 32) + ((n) >= 64))

/* The whole transpose of the n = wbits/bits words of T from w (wbits the
 * bits of a word of T): every round, h = n/2 first. The rounds are counted
 * by l, h = 2^l, so that a constant n gives a loop of known trip count,
 * which UNROLL can unroll whole. */
#define NDX_BITS_TRANSPOSE(T, w, wbits, bits, UNROLL)                                              \
  UNROLL for (int l = NDX_BITS_LOG2((wbits) / (bits)) - 1; l >= 0; l--)                            \
      NDX_BITS_ROUND(T, w, (wbits) / (bits), 1 << l, bits, UNROLL)

/* NDX_BITS_TRANSPOSE of 64/bits 8-byte words. */
NDX_FN void ndx_bits_transpose(ndx_u64 *w, int bits) {
  NDX_BITS_TRANSPOSE(ndx_u64, w, 64, bits, );
}

#endif /* NDX_BITS_TRANSPOSE_H */
