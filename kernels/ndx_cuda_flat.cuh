/* ndx_cuda_flat.cuh: the flat CUDA copy bodies (ndx_copy_cuda.cuh).
 *
 * One thread per item in a grid-stride loop, no shared memory: rows and
 * gather (whole elements, vector accesses, positions by magic division)
 * and BYTES (sub-byte destinations, whole bytes per thread). */
#ifndef NDX_CUDA_FLAT_CUH
#define NDX_CUDA_FLAT_CUH

#include "ndx_cuda_common.cuh"

namespace ndx_cuda {

/* ---- rows and gather: items of `vel` elements, positions by magic division */

/* Thread `tid` of `nthreads` takes items tid, tid + nthreads, ... ; it issues
 * NDX_CUDA_UNROLL(VB) loads before their stores so that several are in flight,
 * and consecutive threads take consecutive items (coalesced when the
 * innermost strides are +-1). */
template <int W, int ES, int VB, int MODE>
NDX_HD void flat_body(const ndx_cuda_args &a, ndx_u8 *__restrict__ dst,
                      const ndx_u8 *__restrict__ src, int64_t tid, int64_t nthreads) {
  typedef typename ix<W>::word word;
  typedef typename vec<VB>::t V;
  const int VEL = VB / ES, U = NDX_CUDA_UNROLL(VB);
  const ndx_pack_head *p = pack_of(a);
  for (int64_t first = tid; first < a.count; first += nthreads * U) {
    V v[U] = {};
    word pd[U] = {};
    NDX_UNROLL
    for (int u = 0; u < U; u++) {
      int64_t item = first + u * nthreads;
      if (item < a.count) {
        word e = (word)(item * VEL);
        pd[u] = ix<W>::position(p, 0, e);
        word ps = ix<W>::position(p, 1, e);
        if (MODE == NDX_CUDA_GATHER_FLIP) ps -= VEL - 1;
        NDX_ACCESS(1, src + (int64_t)ps * ES, VB);
        v[u] = *(const V *)(src + (int64_t)ps * ES);
      }
    }
    NDX_UNROLL
    for (int u = 0; u < U; u++) {
      int64_t item = first + u * nthreads;
      if (item < a.count) {
        V w = v[u];
        if constexpr (MODE == NDX_CUDA_GATHER_FLIP && VB == 16) w = reverse16<ES>(w);
        NDX_ACCESS(0, dst + (int64_t)pd[u] * ES, VB);
        *(V *)(dst + (int64_t)pd[u] * ES) = w;
      }
    }
  }
}

/* ---- BYTES: sub-byte destinations, whole bytes per thread ---------------- */

template <int W, int B>
NDX_HD void bytes_body(const ndx_cuda_args &a, ndx_u8 *__restrict__ dst,
                       const ndx_u8 *__restrict__ src, int64_t tid, int64_t nthreads) {
  for (int64_t item = tid; item < a.count; item += nthreads) {
    ndx_i64 b0 = a.first + item * a.chunk; /* below a.end: a.count items */
    ix<W>::copy_bytes(pack_of(a), dst, src, B, b0, ndx_min64(a.end, b0 + a.chunk));
  }
}

} /* namespace ndx_cuda */

#endif /* NDX_CUDA_FLAT_CUH */
