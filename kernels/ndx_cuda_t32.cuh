/* ndx_cuda_t32.cuh: the transpose-32x8 body (ndx_copy_cuda.cuh).
 *
 * 32x32 tiles moved by 32x8 threads with one barrier per tile: the
 * tile's placement, a block's walk over its tiles, and the two phases.
 * The k and j groups are transpose's (ndx_cuda_tile.cuh). */
#ifndef NDX_CUDA_T32_CUH
#define NDX_CUDA_T32_CUH

#include "ndx_cuda_common.cuh"
#include "ndx_cuda_tile.cuh"

namespace ndx_cuda {

/* ---- transpose-32x8: 32x32 tiles, 32x8 threads, one barrier per tile ----- */

/* transpose's pack and groups (k group read down the source's unit stride,
 * j group written along the destination's), tiles of NDX_CUDA_T32_SIDE
 * square, one batch entry each. The block's thread tid is column
 * tx = tid % 32 of row ty = tid / 32. Shared memory: two tiles taken in
 * turn, so that one barrier per tile is enough (a thread that writes tile
 * n+1 into one buffer has passed barrier n, after every thread's reads of
 * tile n-1 from it); row jj holds the tile's elements of that j at pitch
 * 33, so the 32 threads of a row touch 32 banks on both sides. */
#define NDX_T32 NDX_CUDA_T32_SIDE
static_assert(NDX_CUDA_T32_SIDE * NDX_CUDA_T32_ROWS == NDX_CUDA_THREADS &&
                  NDX_CUDA_T32_SIDE % NDX_CUDA_T32_ROWS == 0,
              "a transpose-32x8 block is 32 columns of threads by whole rows");
template <int ES> struct t32_smem { typename vec<ES>::t data[2][NDX_T32][NDX_T32 + 1]; };

/* One tile, placed by every thread from its block's coordinates: the batch
 * entry's positions and the tile's origin and valid extents. */
template <int W> struct t32_tile {
  typename ix<W>::word base[2], k0, j0;
  int32_t kn, jn;
};

template <int W>
NDX_HD t32_tile<W> t32_place(const ndx_cuda_args &a, int64_t b, int64_t ik, int64_t ij) {
  typedef typename ix<W>::word word;
  const ndx_pack_head *p = pack_of(a);
  int lead = (int)p->rank - 2 - a.gk - a.gj;
  t32_tile<W> t;
  for (int k = 0; k < 2; k++) t.base[k] = ix<W>::position_lead(p, k, (word)b, lead);
  t.k0 = (word)ik * NDX_T32, t.j0 = (word)ij * NDX_T32;
  word kl = (word)a.dk - t.k0, jl = (word)a.dj - t.j0;
  t.kn = (int32_t)(kl < NDX_T32 ? kl : NDX_T32);
  t.jn = (int32_t)(jl < NDX_T32 ? jl : NDX_T32);
  return t;
}

/* A block's walk over its tiles: tile (b, ik, ij) from its coordinates
 * blk[] (x: ij, y: ik, z: b), then on by the grid's extents g[], j fastest;
 * buf is the shared buffer of the current tile. The kernel and the host
 * emulator take the same walk. */
struct t32_walk {
  int64_t b, ik, ij;
  int buf;
};

static NDX_HD bool t32_start(const ndx_cuda_args &a, const uint32_t *blk, t32_walk *w) {
  w->b = blk[2], w->ik = blk[1], w->ij = blk[0], w->buf = 0;
  return w->b < a.nbatch && w->ik < a.nk && w->ij < a.nj;
}

static NDX_HD bool t32_next(const ndx_cuda_args &a, const uint32_t *blk, const uint32_t *g,
                            t32_walk *w) {
  w->buf ^= 1;
  if ((w->ij += g[0]) < a.nj) return true;
  w->ij = blk[0];
  if ((w->ik += g[1]) < a.nk) return true;
  w->ik = blk[1];
  return (w->b += g[2]) < a.nbatch;
}

/* The offset of index g of a group, split over (outer, inner) when the
 * group has an outer axis. */
template <int W>
NDX_HD typename ix<W>::word t32_offset(const group<W> &g, int grouped, typename ix<W>::word i) {
  return grouped ? g.template offset<true>(i) : g.template offset<false>(i);
}

/* Phase 1: thread (tx, ty) reads k = k0 + tx of rows j = j0 + ty + 8i (the
 * source's unit stride across the 32 threads of a row), all loads before
 * the shared stores. */
template <int W, int ES>
NDX_HD void t32_load(const ndx_cuda_args &a, const t32_tile<W> &t,
                     typename vec<ES>::t (*sm)[NDX_T32 + 1], const ndx_u8 *__restrict__ src,
                     int tid) {
  typedef typename ix<W>::word word;
  typedef typename vec<ES>::t T;
  const int R = NDX_T32 / NDX_CUDA_T32_ROWS;
  int tx = tid % NDX_T32, ty = tid / NDX_T32;
  if (tx >= t.kn) return;
  const ndx_pack_head *p = pack_of(a);
  const group<W> gk = group_of<W>(a, p, 0, 1), gj = group_of<W>(a, p, 1, 1);
  const T *S = (const T *)src;
  word at = t.base[1] + t32_offset<W>(gk, a.gk, t.k0 + tx);
  T v[R] = {};
  NDX_UNROLL
  for (int i = 0; i < R; i++) {
    int jj = ty + i * NDX_CUDA_T32_ROWS;
    if (jj < t.jn) {
      word pos = at + t32_offset<W>(gj, a.gj, t.j0 + jj);
      NDX_ACCESS(1, S + (int64_t)pos, ES);
      v[i] = S[(int64_t)pos];
    }
  }
  NDX_UNROLL
  for (int i = 0; i < R; i++) {
    int jj = ty + i * NDX_CUDA_T32_ROWS;
    if (jj < t.jn) sm[jj][tx] = v[i];
  }
}

/* Phase 2: thread (tx, ty) writes j = j0 + tx of rows k = k0 + ty + 8i (the
 * destination's unit stride across a row of threads). */
template <int W, int ES>
NDX_HD void t32_store(const ndx_cuda_args &a, const t32_tile<W> &t,
                      const typename vec<ES>::t (*sm)[NDX_T32 + 1], ndx_u8 *__restrict__ dst,
                      int tid) {
  typedef typename ix<W>::word word;
  typedef typename vec<ES>::t T;
  const int R = NDX_T32 / NDX_CUDA_T32_ROWS;
  int tx = tid % NDX_T32, ty = tid / NDX_T32;
  if (tx >= t.jn) return;
  const ndx_pack_head *p = pack_of(a);
  const group<W> gk = group_of<W>(a, p, 0, 0), gj = group_of<W>(a, p, 1, 0);
  T *D = (T *)dst;
  word at = t.base[0] + t32_offset<W>(gj, a.gj, t.j0 + tx);
  NDX_UNROLL
  for (int i = 0; i < R; i++) {
    int kk = ty + i * NDX_CUDA_T32_ROWS;
    if (kk < t.kn) {
      word pos = at + t32_offset<W>(gk, a.gk, t.k0 + kk);
      NDX_ACCESS(0, D + (int64_t)pos, ES);
      D[(int64_t)pos] = sm[tx][kk];
    }
  }
}

} /* namespace ndx_cuda */

#endif /* NDX_CUDA_T32_CUH */
