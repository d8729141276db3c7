/* ndx_index_cuda.cuh: the bodies of ndx's CUDA gather and scatter kernels.
 *
 * Each body is a __host__ __device__ function of the kernel's arguments
 * (ndx_cuda_index_args, kernels/ndx_cuda_args.h) and of a thread's
 * coordinates, over the work-item bodies of ndx_index_items.h that the
 * OpenCL kernels use: thread `tid` of `nthreads` takes items tid, tid +
 * nthreads, ... (grid-stride). kernels/ndx_index.cu wraps them into
 * kernels; tests/test_cuda_emulate.cu runs them thread by thread on the
 * host. No barrier: the check and the copy are two launches, and the copy
 * reads the check's verdict, status[0], before it writes anything. The one
 * exception is a gather along the axis (ndx_index_plan_along), whose copy
 * pass is the gpu shape's body of kernels/ndx_index_gpu.h (k_index_along):
 * each block loads its pack rows' source segments into shared memory,
 * waits at a barrier, then picks from there. */
#ifndef NDX_INDEX_CUDA_CUH
#define NDX_INDEX_CUDA_CUH

#include <stdint.h>

#include "ndx_gpu.h"

#define NDX_WIDE 0
#include "ndx_index_items.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_index_items.h"
#undef NDX_WIDE

/* The gpu shape's along body (a gather picking from a source segment in
 * shared memory: ndx_index_plan_along), for k_index_along and the host
 * emulator, which runs its two phases in turn. */
#define NDX_WIDE 0
#include "ndx_index_gpu.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_index_gpu.h"
#undef NDX_WIDE

#include "ndx_cuda_args.h"

#ifndef NDX_HD
#define NDX_HD __host__ __device__ __forceinline__
#endif

namespace ndx_cuda_index {

/* The item bodies of one index form (W: 0 for 32-bit pack words, 1 for
 * 64-bit, the names' suffix wN: w32, w64). */
template <int W> struct items;
#define NDX_INDEX_ITEMS(W, wN)                                                                     \
  template <> struct items<W> {                                                                    \
    static NDX_HD void check(const ndx_pack_head *p, const ndx_u8 *index, int index_bits,          \
                             ndx_i64 d, int wrap, ndx_u32 *claims, ndx_i64 claim_stride,           \
                             ndx_u32 *status, ndx_i64 item, ndx_i64 chunk) {                       \
      ndx_index_check_item_##wN(p, index, index_bits, d, wrap, claims, claim_stride, status, item, \
                                chunk);                                                            \
    }                                                                                              \
    static NDX_HD void copy(const ndx_pack_head *p, ndx_u8 *dst, const ndx_u8 *src,                \
                            const ndx_u8 *index, const ndx_u32 *claims, ndx_i64 claim_stride,      \
                            int bits, int index_bits, ndx_i64 d, int wrap, ndx_i64 bias,           \
                            ndx_i64 step0, ndx_i64 step1, ndx_i64 item, ndx_i64 chunk, int rows) { \
      ndx_index_copy_item_##wN(p, dst, src, index, claims, claim_stride, bits, index_bits, d,      \
                               wrap, bias, step0, step1, item, chunk, rows);                       \
    }                                                                                              \
    static NDX_HD void bytes(const ndx_pack_head *p, ndx_u8 *dst, const ndx_u8 *src,               \
                             const ndx_u8 *index, int bits, int index_bits, ndx_i64 d, int wrap,   \
                             ndx_i64 bias, ndx_i64 step1, ndx_i64 b0, ndx_i64 b1) {                \
      ndx_index_bytes_item_##wN(p, dst, src, index, bits, index_bits, d, wrap, bias, step1, b0,    \
                                b1);                                                               \
    }                                                                                              \
  };
NDX_INDEX_ITEMS(0, w32)
NDX_INDEX_ITEMS(1, w64)
#undef NDX_INDEX_ITEMS

static NDX_HD const ndx_pack_head *pack_of(const ndx_cuda_index_args &a) {
  return (const ndx_pack_head *)a.pack;
}

/* The check pass: items of a.chunk index elements. */
template <int W>
NDX_HD void check_body(const ndx_cuda_index_args &a, const ndx_u8 *__restrict__ index,
                       ndx_u32 *claims, ndx_u32 *status, int64_t tid, int64_t nthreads) {
  for (int64_t item = tid; item < a.count; item += nthreads)
    items<W>::check(pack_of(a), index, a.index_bits, a.d, a.wrap, claims, a.claim_stride, status,
                    item, a.chunk);
}

/* The copy pass, B-bit elements: nothing when the check found a fault;
 * items of a.chunk elements (B >= 8; ROWS: a.rows, as a constant; `claims`
 * the winners form's table, else NULL) or of a.chunk destination bytes of
 * [a.first, a.end) (B < 8). */
template <int W, int B, int ROWS>
NDX_HD void copy_body(const ndx_cuda_index_args &a, ndx_u8 *__restrict__ dst,
                      const ndx_u8 *__restrict__ src, const ndx_u8 *__restrict__ index,
                      const ndx_u32 *__restrict__ claims, const ndx_u32 *__restrict__ status,
                      int64_t tid, int64_t nthreads) {
  if (status[0]) return;
  for (int64_t item = tid; item < a.count; item += nthreads) {
    if (B >= 8)
      items<W>::copy(pack_of(a), dst, src, index, claims, a.claim_stride, B, a.index_bits, a.d,
                     a.wrap, a.bias, a.step0, a.step1, item, a.chunk, ROWS);
    else {
      ndx_i64 b0, b1;
      ndx_bytes_item(a.first, a.end, item, a.chunk, &b0, &b1);
      items<W>::bytes(pack_of(a), dst, src, index, B, a.index_bits, a.d, a.wrap, a.bias, a.step1,
                      b0, b1);
    }
  }
}

/* Calls f.template copy<W, B, ROWS>() for the copy kernel of `a`; false when
 * there is none. The CUDA launcher and the host emulator both go through
 * here. */
template <class F, int W, int B> static bool pick_rows(F &f, const ndx_cuda_index_args &a) {
  if (a.rows) {
    if constexpr (B >= 8) {
      f.template copy<W, B, 1>();
      return true;
    }
    return false;
  }
  f.template copy<W, B, 0>();
  return true;
}

template <class F, int W> static bool pick_bits(F &f, const ndx_cuda_index_args &a) {
  switch (a.bits) {
  case 1:
    return pick_rows<F, W, 1>(f, a);
  case 2:
    return pick_rows<F, W, 2>(f, a);
  case 4:
    return pick_rows<F, W, 4>(f, a);
  case 8:
    return pick_rows<F, W, 8>(f, a);
  case 16:
    return pick_rows<F, W, 16>(f, a);
  case 32:
    return pick_rows<F, W, 32>(f, a);
  case 64:
    return pick_rows<F, W, 64>(f, a);
  case 128:
    return pick_rows<F, W, 128>(f, a);
  }
  return false;
}

template <class F> static bool pick_copy(F &f, const ndx_cuda_index_args &a) {
  return a.wide ? pick_bits<F, 1>(f, a) : pick_bits<F, 0>(f, a);
}

} /* namespace ndx_cuda_index */

#endif /* NDX_INDEX_CUDA_CUH */
