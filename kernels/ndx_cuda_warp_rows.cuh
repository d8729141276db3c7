/* ndx_cuda_warp_rows.cuh: the warp-rows body (ndx_copy_cuda.cuh).
 *
 * NDX_CUDA_ROW_THREADS threads per destination row: one element, aligned
 * vectors or vectors assembled from strided elements per thread, and the
 * row's positions by one pass over the outer axes. */
#ifndef NDX_CUDA_WARP_ROWS_CUH
#define NDX_CUDA_WARP_ROWS_CUH

#include "ndx_cuda_common.cuh"

namespace ndx_cuda {

/* ---- warp-rows: NDX_CUDA_ROW_THREADS threads per destination row ---------- */

static_assert(NDX_CUDA_THREADS % NDX_CUDA_ROW_THREADS == 0, "a block holds whole row groups");
static_assert(NDX_CUDA_ROW_VECTOR == 16, "warp-rows assembles uint4 vectors");

/* Element e of the row: one element moved. */
template <int ES>
NDX_HD void row_element(ndx_u8 *__restrict__ dst, const ndx_u8 *__restrict__ src, int64_t pd,
                        int64_t sd, int64_t ps, int64_t ss, int64_t e) {
  typedef typename vec<ES>::t T;
  const T *S = (const T *)src + ps + e * ss;
  T *D = (T *)dst + pd + e * sd;
  NDX_ACCESS(1, S, ES);
  NDX_ACCESS(0, D, ES);
  *D = *S;
}

/* Vectors lane, lane + 32, ... of nv, aligned on both sides: four loads in
 * flight before their stores. */
template <int VB>
NDX_HD void row_vectors(const typename vec<VB>::t *__restrict__ S,
                        typename vec<VB>::t *__restrict__ D, int64_t nv, int lane) {
  typedef typename vec<VB>::t V;
  const int L = NDX_CUDA_ROW_THREADS, U = 4;
  for (int64_t v0 = lane; v0 < nv; v0 += (int64_t)L * U) {
    V w[U] = {};
    NDX_UNROLL
    for (int u = 0; u < U; u++)
      if (v0 + u * L < nv) {
        NDX_ACCESS(1, S + v0 + u * L, VB);
        w[u] = S[v0 + u * L];
      }
    NDX_UNROLL
    for (int u = 0; u < U; u++)
      if (v0 + u * L < nv) {
        NDX_ACCESS(0, D + v0 + u * L, VB);
        D[v0 + u * L] = w[u];
      }
  }
}

/* The 16-byte vector of 16 / ES elements e[0 ..] (element 0 lowest, as a
 * vector load on these little-endian machines gives it). */
template <int ES> static NDX_HD uint4 assembled(const typename vec<ES>::t *e) {
  if constexpr (ES == 16) {
    return e[0];
  } else {
    ndx_u32 w[4];
    NDX_UNROLL
    for (int k = 0; k < 4; k++) {
      if constexpr (ES == 8) {
        w[k] = (ndx_u32)(e[k / 2] >> (32 * (k % 2)));
      } else {
        ndx_u32 x = 0;
        NDX_UNROLL
        for (int i = 0; i < 4 / ES; i++) x |= (ndx_u32)e[k * (4 / ES) + i] << (8 * ES * i);
        w[k] = x;
      }
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
  }
}

/* Destination vectors lane, lane + 32, ... of nv, each assembled from its
 * elements read one by one at source stride ss (0: one element repeated). */
template <int ES>
NDX_HD void row_assembled(const typename vec<ES>::t *__restrict__ S, int64_t ss,
                          uint4 *__restrict__ D, int64_t nv, int lane) {
  typedef typename vec<ES>::t T;
  const int VEL = 16 / ES;
  for (int64_t v = lane; v < nv; v += NDX_CUDA_ROW_THREADS) {
    T e[VEL];
    NDX_UNROLL
    for (int i = 0; i < VEL; i++) {
      const T *at = S + (v * VEL + i) * ss;
      NDX_ACCESS(1, at, ES);
      e[i] = *at;
    }
    NDX_ACCESS(0, D + v, 16);
    D[v] = assembled<ES>(e);
  }
}

/* Thread `lane` of a row's threads copies the row whose first elements are
 * at pd (destination, stride sd) and ps (source, stride ss), n elements:
 * with sd == 1, the head up to the destination's first 16-byte boundary
 * and the tail one element per thread (both are shorter than a vector), the
 * vectors between one per thread in turn (read as vectors where ss == 1 and
 * the source is aligned there too, else element by element); otherwise
 * every element on its own. */
template <int ES>
NDX_HD void row_body(ndx_u8 *__restrict__ dst, const ndx_u8 *__restrict__ src, int64_t pd,
                     int64_t sd, int64_t ps, int64_t ss, int64_t n, int lane) {
  typedef typename vec<ES>::t T;
  typedef typename vec<NDX_CUDA_ROW_VECTOR>::t V;
  const int VEL = NDX_CUDA_ROW_VECTOR / ES;
  if (sd != 1) {
    NDX_NO_UNROLL
    for (int64_t e = lane; e < n; e += NDX_CUDA_ROW_THREADS)
      row_element<ES>(dst, src, pd, sd, ps, ss, e);
    return;
  }
  int off = (int)((uintptr_t)(dst + pd * ES) % NDX_CUDA_ROW_VECTOR);
  int64_t head = ((NDX_CUDA_ROW_VECTOR - off) % NDX_CUDA_ROW_VECTOR) / ES;
  head = head < n ? head : n;
  int64_t nv = (n - head) / VEL, tail = n - head - nv * VEL;
  if (lane < head) row_element<ES>(dst, src, pd, 1, ps, ss, lane);
  if (nv > 0) {
    const T *S = (const T *)src + ps + head * ss;
    V *D = (V *)((T *)dst + pd + head);
    if (ss == 1 && (uintptr_t)S % NDX_CUDA_ROW_VECTOR == 0)
      row_vectors<NDX_CUDA_ROW_VECTOR>((const V *)S, D, nv, lane);
    else
      row_assembled<ES>(S, ss, D, nv, lane);
  }
  if (lane < tail) row_element<ES>(dst, src, pd, 1, ps, ss, head + nv * VEL + lane);
}

/* Thread tid of nthreads: group tid / 32 takes segments tid / 32,
 * + nthreads / 32, ...; each segment's row by one 64-bit magic division,
 * the row's two positions by one pass over the outer axes
 * (ndx_position_lead for both operands, the divisions shared). */
template <int W, int ES>
NDX_HD void warp_rows_body(const ndx_cuda_args &a, ndx_u8 *__restrict__ dst,
                           const ndx_u8 *__restrict__ src, int64_t tid, int64_t nthreads) {
  typedef typename ix<W>::word word;
  const ndx_pack_head *p = pack_of(a);
  int r = (int)p->rank, lane = (int)(tid % NDX_CUDA_ROW_THREADS);
  int64_t sd = ix<W>::stride(p, 0, r - 1), ss = ix<W>::stride(p, 1, r - 1);
  int64_t groups = nthreads / NDX_CUDA_ROW_THREADS, items = a.count, chunk = a.chunk, n = a.dj;
  for (int64_t item = tid / NDX_CUDA_ROW_THREADS; item < items; item += groups) {
    int64_t row = div64(item, a.mnj, a.snj), first = (item - row * a.nj) * chunk;
    int64_t len = n - first < chunk ? n - first : chunk;
    word i = (word)row, pd = ix<W>::offset(p, 0), ps = ix<W>::offset(p, 1);
    for (int x = r - 2; x > 0; x--) {
      word q = ix<W>::div(i, ix<W>::magic(p, x), ix<W>::shift(p, x));
      word digit = i - q * ix<W>::extent(p, x);
      pd += digit * ix<W>::stride(p, 0, x), ps += digit * ix<W>::stride(p, 1, x);
      i = q;
    }
    if (r > 1) pd += i * ix<W>::stride(p, 0, 0), ps += i * ix<W>::stride(p, 1, 0);
    row_body<ES>(dst, src, pd + first * sd, sd, ps + first * ss, ss, len, lane);
  }
}

} /* namespace ndx_cuda */

#endif /* NDX_CUDA_WARP_ROWS_CUH */
