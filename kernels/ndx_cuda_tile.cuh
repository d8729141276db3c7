/* ndx_cuda_tile.cuh: the transpose body, tiles through shared memory
 * (ndx_copy_cuda.cuh).
 *
 * The tile split of a transpose's pack and its k and j groups (also used
 * by transpose-words, ndx_cuda_words.cuh, and transpose-32x8,
 * ndx_cuda_t32.cuh), then the three phases of a transpose block: place
 * the tile, read it down the source's unit stride, write it along the
 * destination's. */
#ifndef NDX_CUDA_TILE_CUH
#define NDX_CUDA_TILE_CUH

#include "ndx_cuda_common.cuh"

namespace ndx_cuda {

/* ---- transpose: batched 2-d transposes through shared memory ------------- */

/* The pack is permuted to [batch..., (K2), K, (J2), J]: K has the source's
 * unit stride, J the destination's; a short K (J) is grouped with K2 (J2),
 * the axis that continues its run in the source (destination), so that a
 * tile side still spans a long run. A tile covers group indices [k0, k0+tk)
 * and [j0, j0+tj) for tb batch entries; it is read down the k group and
 * written along the j group.
 *
 * Shared memory of a transpose block: the batch entries' positions, the tile's
 * origin and valid extents, and its elements, row kk at pitch tj | 1 (an odd
 * pitch in elements: consecutive kk of one jj fall in different banks). */
template <int ES> struct tile_smem {
  int64_t base[2][NDX_CUDA_TILE_BATCH];
  int64_t k0, j0;
  int32_t kn, jn, bn;
  typename vec<ES>::t data[2 * NDX_CUDA_TILE_ELEMS];
};

/* Splits tile index t into (batch block, k tile, j tile). */
static NDX_HD void tile_split(const ndx_cuda_args &a, int64_t t, int64_t *bt, int64_t *ik,
                              int64_t *ij) {
  int64_t q = div64(t, a.mnj, a.snj);
  *ij = t - q * a.nj;
  *bt = div64(q, a.mnk, a.snk);
  *ik = q - *bt * a.nk;
}

/* e = (hi * n + lo) for tile extent n (tk when which is 0, tj when 1).
 * POW2: the extents are powers of two (a.pow2). */
template <bool POW2>
static NDX_HD void tile_digit(const ndx_cuda_args &a, int which, int32_t e, int32_t *lo,
                              int32_t *hi) {
  int32_t q;
  if (POW2) {
    q = e >> (which ? a.lj : a.lk);
    *lo = e & ((which ? a.tj : a.tk) - 1);
  } else {
    q = div32(e, which ? a.mj : a.mk, which ? a.sj : a.sk);
    *lo = e - q * (which ? a.tj : a.tk);
  }
  *hi = q;
}

/* One side of a tile group, read from the pack once per phase: the offset
 * in one operand of index g of the k group or the j group, g along the
 * inner axis alone, or split over (outer, inner) by the pack's magic
 * numbers of the inner extent. */
template <int W> struct group {
  typedef typename ix<W>::word word;
  word s_in, s_out, d_in;
  decltype(ix<W>::magic(nullptr, 0)) m;
  int l;
  template <bool SPLIT> NDX_HD word offset(word g) const {
    if (!SPLIT) return g * s_in;
    word q = ix<W>::div(g, m, l);
    return (g - q * d_in) * s_in + q * s_out;
  }
};

/* The k group (which 0) or the j group (which 1) of operand `op`. */
template <int W>
NDX_HD group<W> group_of(const ndx_cuda_args &a, const ndx_pack_head *p, int which, int op) {
  int r = (int)p->rank, in = which ? r - 1 : r - 2 - a.gj;
  group<W> g;
  g.s_in = ix<W>::stride(p, op, in);
  g.s_out = (which ? a.gj : a.gk) ? ix<W>::stride(p, op, in - 1) : 0;
  g.d_in = ix<W>::extent(p, in);
  g.m = ix<W>::magic(p, in);
  g.l = ix<W>::shift(p, in);
  return g;
}

/* Phase 0: thread 0 places the tile, threads below tb find their batch
 * entry's positions; the others only wait at the barrier. */
template <int W, int ES, bool SIMPLE>
NDX_HD void tile_bases(const ndx_cuda_args &a, tile_smem<ES> &s, int64_t t, int tid) {
  typedef typename ix<W>::word word;
  if (tid != 0 && tid >= a.tb) return;
  const ndx_pack_head *p = pack_of(a);
  int64_t bt, ik, ij;
  tile_split(a, t, &bt, &ik, &ij);
  int64_t k0 = ik * a.tk, j0 = ij * a.tj, b0 = bt * a.tb;
  if (tid == 0) {
    s.k0 = k0, s.j0 = j0;
    s.kn = (int32_t)(a.dk - k0 < a.tk ? a.dk - k0 : a.tk);
    s.jn = (int32_t)(a.dj - j0 < a.tj ? a.dj - j0 : a.tj);
    s.bn = (int32_t)(a.nbatch - b0 < a.tb ? a.nbatch - b0 : a.tb);
  }
  if (tid < a.tb && b0 + tid < a.nbatch) {
    int lead = (int)p->rank - 2 - a.gk - a.gj;
    for (int k = 0; k < 2; k++) s.base[k][tid] = ix<W>::position_lead(p, k, (word)(b0 + tid), lead);
  }
}

/* Phase 1: read the tile down the k group (the source's unit stride) into
 * shared memory, four loads in flight per thread. */
template <int W, int ES, bool SIMPLE>
NDX_HD void tile_load(const ndx_cuda_args &a, tile_smem<ES> &s, const ndx_u8 *__restrict__ src,
                      int tid) {
  typedef typename ix<W>::word word;
  typedef typename vec<ES>::t T;
  const ndx_pack_head *p = pack_of(a);
  const int32_t pitch = a.tj | 1, n = a.tb * a.tk * a.tj;
  const int32_t kn = s.kn, jn = s.jn, bn = s.bn;
  const word k0 = (word)s.k0, j0 = (word)s.j0;
  const group<W> gk = group_of<W>(a, p, 0, 1), gj = group_of<W>(a, p, 1, 1);
  const T *S = (const T *)src;
  for (int32_t e0 = tid; e0 < n; e0 += NDX_CUDA_THREADS * 4) {
    T v[4] = {};
    int32_t at[4];
    NDX_UNROLL
    for (int u = 0; u < 4; u++) {
      int32_t e = e0 + u * NDX_CUDA_THREADS, kk, jj, bb, q;
      at[u] = -1;
      if (e >= n) continue;
      tile_digit<SIMPLE>(a, 0, e, &kk, &q);
      tile_digit<SIMPLE>(a, 1, q, &jj, &bb);
      if (bb < bn && jj < jn && kk < kn) {
        word pos = (word)s.base[1][bb];
        if (SIMPLE)
          pos += gk.template offset<false>(k0 + kk) + gj.template offset<false>(j0 + jj);
        else
          pos += (a.gk ? gk.template offset<true>(k0 + kk) : gk.template offset<false>(k0 + kk)) +
                 (a.gj ? gj.template offset<true>(j0 + jj) : gj.template offset<false>(j0 + jj));
        NDX_ACCESS(1, S + (int64_t)pos, ES);
        v[u] = S[(int64_t)pos];
        at[u] = (bb * a.tk + kk) * pitch + jj;
      }
    }
    NDX_UNROLL
    for (int u = 0; u < 4; u++)
      if (at[u] >= 0) s.data[at[u]] = v[u];
  }
}

/* Phase 2: write the tile along the j group (the destination's unit stride). */
template <int W, int ES, bool SIMPLE>
NDX_HD void tile_store(const ndx_cuda_args &a, tile_smem<ES> &s, ndx_u8 *__restrict__ dst,
                       int tid) {
  typedef typename ix<W>::word word;
  typedef typename vec<ES>::t T;
  const ndx_pack_head *p = pack_of(a);
  const int32_t pitch = a.tj | 1, n = a.tb * a.tk * a.tj;
  const int32_t kn = s.kn, jn = s.jn, bn = s.bn;
  const word k0 = (word)s.k0, j0 = (word)s.j0;
  const group<W> gk = group_of<W>(a, p, 0, 0), gj = group_of<W>(a, p, 1, 0);
  T *D = (T *)dst;
  for (int32_t e = tid; e < n; e += NDX_CUDA_THREADS) {
    int32_t kk, jj, bb, q;
    tile_digit<SIMPLE>(a, 1, e, &jj, &q);
    tile_digit<SIMPLE>(a, 0, q, &kk, &bb);
    if (bb < bn && jj < jn && kk < kn) {
      word pos = (word)s.base[0][bb];
      if (SIMPLE)
        pos += gk.template offset<false>(k0 + kk) + gj.template offset<false>(j0 + jj);
      else
        pos += (a.gk ? gk.template offset<true>(k0 + kk) : gk.template offset<false>(k0 + kk)) +
               (a.gj ? gj.template offset<true>(j0 + jj) : gj.template offset<false>(j0 + jj));
      NDX_ACCESS(0, D + (int64_t)pos, ES);
      D[(int64_t)pos] = s.data[(bb * a.tk + kk) * pitch + jj];
    }
  }
}

} /* namespace ndx_cuda */

#endif /* NDX_CUDA_TILE_CUH */
