/* ndx_cuda_words.cuh: the transpose-words body (ndx_copy_cuda.cuh).
 *
 * 1..16-bit elements transposed by 32-bit words: an in-register
 * transpose of E x E elements held as E words (ndx_bits_transpose.h's, by
 * 4-byte words), and the two phases of a block through shared memory. The
 * tile split is transpose's (ndx_cuda_tile.cuh). */
#ifndef NDX_CUDA_WORDS_CUH
#define NDX_CUDA_WORDS_CUH

#include "ndx_cuda_common.cuh"
#include "ndx_cuda_tile.cuh"

namespace ndx_cuda {

/* ---- transpose-words: 1..16-bit elements by 32-bit words ----------------- */

/* Tile: 32 words (32*E elements) along k, 8 blocks of E elements along j; the
 * block's thread tid is lane kw = tid % 32 of warp jb = tid / 32. */
#define NDX_WORDS_KW 32
#define NDX_WORDS_JB 8

/* Shared memory of a transpose-words block: row k (0 .. 32E-1) holds the tile's 8
 * destination words of that k, at word k*8 + k/E + jb; the k/E skew puts the
 * 32 lanes that write one (i, jb) in 32 different banks. */
template <int B> struct words_smem {
  ndx_u32 w[NDX_WORDS_KW * (32 / B) * NDX_WORDS_JB + NDX_WORDS_KW];
};

/* The tile's batch entry and its first k and j. */
static NDX_HD void words_origin(const ndx_cuda_args &a, int64_t t, int64_t *b, int64_t *k0,
                                int64_t *j0) {
  int64_t ik, ij;
  tile_split(a, t, b, &ik, &ij);
  *k0 = ik * a.tk;
  *j0 = ij * a.tj;
}

/* Phase 1: read E source words down j, transpose them, hand them on. */
template <int W, int B>
NDX_HD void words_load(const ndx_cuda_args &a, words_smem<B> &s, const ndx_u8 *__restrict__ src,
                       int64_t t, int tid) {
  typedef typename ix<W>::word word;
  const int E = 32 / B;
  const ndx_pack_head *p = pack_of(a);
  int r = (int)p->rank;
  int64_t b, k0, j0;
  words_origin(a, t, &b, &k0, &j0);
  int kw = tid % NDX_WORDS_KW, jb = tid / NDX_WORDS_KW;
  word ssj = ix<W>::stride(p, 1, r - 1);
  word base = ix<W>::position_lead(p, 1, (word)b, r - 2) + (word)k0 +
              (word)(j0 + jb * E) * ssj; /* a multiple of E: word aligned */
  const ndx_u32 *S = (const ndx_u32 *)src;
  ndx_u32 w[E];
  NDX_UNROLL
  for (int m = 0; m < E; m++) {
    const ndx_u32 *at = S + (int64_t)((base + (word)m * ssj) / E) + kw;
    NDX_ACCESS(1, at, 4);
    w[m] = *at;
  }
  NDX_BITS_TRANSPOSE(ndx_u32, w, 32, B, NDX_UNROLL); /* word i: element m is source word m's i */
  NDX_UNROLL
  for (int i = 0; i < E; i++) s.w[(kw * E + i) * NDX_WORDS_JB + kw + jb] = w[i];
}

/* Phase 2: write the tile's destination words, 8 consecutive per k. */
template <int W, int B>
NDX_HD void words_store(const ndx_cuda_args &a, words_smem<B> &s, ndx_u8 *__restrict__ dst,
                        int64_t t, int tid) {
  typedef typename ix<W>::word word;
  const int E = 32 / B;
  const ndx_pack_head *p = pack_of(a);
  int r = (int)p->rank;
  int64_t b, k0, j0;
  words_origin(a, t, &b, &k0, &j0);
  word sdk = ix<W>::stride(p, 0, r - 2);
  word base = ix<W>::position_lead(p, 0, (word)b, r - 2) + (word)k0 * sdk + (word)j0;
  ndx_u32 *D = (ndx_u32 *)dst;
  NDX_UNROLL4
  for (int q = 0; q < E; q++) {
    int idx = q * NDX_CUDA_THREADS + tid;
    int kl = idx / NDX_WORDS_JB, jb = idx % NDX_WORDS_JB;
    ndx_u32 *at = D + (int64_t)((base + (word)kl * sdk) / E) + jb;
    NDX_ACCESS(0, at, 4);
    *at = s.w[kl * NDX_WORDS_JB + kl / E + jb];
  }
}

} /* namespace ndx_cuda */

#endif /* NDX_CUDA_WORDS_CUH */
