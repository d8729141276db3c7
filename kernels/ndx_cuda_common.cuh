/* ndx_cuda_common.cuh: what every CUDA copy body shares (ndx_copy_cuda.cuh).
 *
 * The headers of the index math (ndx_copy_items.h in both index forms,
 * ndx_cuda_args.h), the macros of a body (NDX_HD, the device-pass unroll
 * pragmas, NDX_ACCESS: the host emulator's access checks), ix<W>: the
 * header functions of one index width, the magic divisions, and vec<B>:
 * the element and vector types of B bytes with their in-vector reversal. */
#ifndef NDX_CUDA_COMMON_CUH
#define NDX_CUDA_COMMON_CUH

#include <stdint.h>

#define NDX_WIDE 0
#include "ndx_copy_items.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_copy_items.h"
#undef NDX_WIDE

#include "ndx_cuda_args.h"

#define NDX_HD __host__ __device__ __forceinline__

/* Loop unrolling for the device pass only (the host compiler knows no
 * such pragma). */
#if defined(NDX_GPU_DEVICE_PASS)
#define NDX_UNROLL _Pragma("unroll")
#define NDX_UNROLL4 _Pragma("unroll 4")
#define NDX_NO_UNROLL _Pragma("unroll 1")
#else
#define NDX_NO_UNROLL
#define NDX_UNROLL
#define NDX_UNROLL4
#endif

/* Under the host emulator (NDX_CUDA_EMULATE), every typed access of a
 * kernel here is checked: aligned to its size, as the GPU requires, and
 * inside the bytes of its operand's span (tests/test_cuda_emulate.cu sets
 * the bounds and counts the faults). Nothing on the GPU. */
#if defined(NDX_CUDA_EMULATE) && !defined(NDX_GPU_DEVICE_PASS)
extern const unsigned char *ndx_emu_lo[2], *ndx_emu_hi[2];
extern long long ndx_emu_faults;
#define NDX_ACCESS(op, ptr, n)                                                                     \
  ((((uintptr_t)(ptr) % (uintptr_t)(n)) != 0 || (const unsigned char *)(ptr) < ndx_emu_lo[op] ||   \
    (const unsigned char *)(ptr) + (n) > ndx_emu_hi[op])                                           \
       ? (void)ndx_emu_faults++                                                                    \
       : (void)0)
#else
#define NDX_ACCESS(op, ptr, n) ((void)0)
#endif

namespace ndx_cuda {

/* ---- The index form: header functions of one width ----------------------- */

/* ix<0> calls the 32-bit form (ndx_..._w32), ix<1> the 64-bit one. */
template <int W> struct ix;
#define NDX_IX(W, WN, WORD, MAGIC)                                                                 \
  template <> struct ix<W> {                                                                       \
    typedef WORD word;                                                                             \
    static NDX_HD word position(const ndx_pack_head *p, int k, word i) {                           \
      return ndx_position_##WN(p, k, i);                                                           \
    }                                                                                              \
    static NDX_HD word position_lead(const ndx_pack_head *p, int k, word i, int lead) {            \
      return ndx_position_lead_##WN(p, k, i, lead);                                                \
    }                                                                                              \
    static NDX_HD word offset(const ndx_pack_head *p, int k) {                                     \
      return ndx_offset_##WN(p, k);                                                                \
    }                                                                                              \
    static NDX_HD word extent(const ndx_pack_head *p, int a) {                                     \
      return ndx_extent_##WN(p, a);                                                                \
    }                                                                                              \
    static NDX_HD word stride(const ndx_pack_head *p, int k, int a) {                              \
      return ndx_stride_##WN(p, k, a);                                                             \
    }                                                                                              \
    static NDX_HD MAGIC magic(const ndx_pack_head *p, int a) {                                     \
      return ndx_magic_##WN(p, a);                                                                 \
    }                                                                                              \
    static NDX_HD int shift(const ndx_pack_head *p, int a) {                                       \
      return ndx_shift_##WN(p, a);                                                                 \
    }                                                                                              \
    static NDX_HD word div(word n, MAGIC m, int l) {                                               \
      return ndx_div_##WN(n, m, l);                                                                \
    }                                                                                              \
    static NDX_HD void copy_bytes(const ndx_pack_head *p, ndx_u8 *dst, const ndx_u8 *src,          \
                                  int bits, ndx_i64 b0, ndx_i64 b1) {                              \
      ndx_copy_bytes_##WN(p, dst, src, bits, b0, b1);                                              \
    }                                                                                              \
  };
NDX_IX(0, w32, ndx_i32, ndx_u32)
NDX_IX(1, w64, ndx_i64, ndx_u64)
#undef NDX_IX

static NDX_HD const ndx_pack_head *pack_of(const ndx_cuda_args &a) {
  return (const ndx_pack_head *)a.pack;
}

/* n / d for n < 2^63 by d's 64-bit magic pair (ndx_pack_magic). */
static NDX_HD int64_t div64(int64_t n, uint64_t m, int s) {
  return ndx_div_w64(n, m, s);
}
/* n / d for n < 2^31 by d's 32-bit magic pair. */
static NDX_HD int32_t div32(int32_t n, uint32_t m, int s) {
  return ndx_div_w32(n, m, s);
}

/* ---- Elements and vectors of a given size in bytes ----------------------- */

template <int B> struct vec;
template <> struct vec<1> { typedef ndx_u8 t; };
template <> struct vec<2> { typedef ndx_u16 t; };
template <> struct vec<4> { typedef ndx_u32 t; };
template <> struct vec<8> { typedef ndx_u64 t; };
template <> struct vec<16> { typedef uint4 t; };

/* Reverses the order of the ES-byte elements inside a VB-byte vector (a
 * flipped source read as one aligned vector). */
static NDX_HD ndx_u32 bytes_reversed(ndx_u32 w) {
  return (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) | (w << 24);
}
static NDX_HD ndx_u32 halves_swapped(ndx_u32 w) {
  return (w >> 16) | (w << 16);
}
template <int ES> static NDX_HD uint4 reverse16(uint4 v) {
  if (ES == 16) return v;
  if (ES == 8) return make_uint4(v.z, v.w, v.x, v.y);
  if (ES == 4) return make_uint4(v.w, v.z, v.y, v.x);
  if (ES == 2)
    return make_uint4(halves_swapped(v.w), halves_swapped(v.z), halves_swapped(v.y),
                      halves_swapped(v.x));
  return make_uint4(bytes_reversed(v.w), bytes_reversed(v.z), bytes_reversed(v.y),
                    bytes_reversed(v.x));
}

} /* namespace ndx_cuda */

#endif /* NDX_CUDA_COMMON_CUH */
