/* ndx_device.h: pure functions over the packed form (ndx_pack.h), shared by
 * OpenCL C 1.2, CUDA C++ and host C11 unchanged.
 *
 * It turns a C-order index into element positions without dividing (magic
 * numbers), steps through consecutive indices by adding strides (an
 * odometer), turns a position into a byte and a bit shift, loads and stores
 * elements of 1 to 128 bits, and holds the per-work-item copy routines that
 * ndx's kernels wrap: a kernel maps its work-item id to one call here.
 *
 * ---- Portability macros: a port to another language defines these --------
 *   NDX_GLOBAL    address space of buffers        (__global / nothing)
 *   NDX_CONSTANT  address space of the pack       (__constant / nothing)
 *   NDX_FN        a device helper function        (static inline /
 *                 static __host__ __device__ __forceinline__)
 *   NDX_KERNEL    a kernel entry point            (__kernel / extern "C" __global__;
 *                 for user kernels: ndx's own do not use it)
 *   NDX_RESTRICT  a pointer that aliases no other (restrict / __restrict__)
 *   ndx_mulhi32(a, b), ndx_mulhi64(a, b)
 *                 high half of the unsigned product (mul_hi / __umulhi,
 *                 __umul64hi / a 128-bit product on the host)
 *   ndx_u128      a 16-byte element with fields .x (low) and .y (high)
 *                 (ulong2 / ulonglong2 / a struct)
 * Each macro may be defined before this header is included; ndx_u128 and the
 * mulhi helper functions come with their language's branch. Beyond these, the
 * header uses __attribute__((packed)) (ndx_word_bytes: one unaligned 8-byte
 * access, as gcc, clang and nvcc accept it) and, under NDX_OPENCL_C only,
 * OpenCL vector types for the block transposes; docs/porting.md lists what a
 * port provides. OpenCL C 1.2 has no generic address space, so every pointer
 * below is either NDX_GLOBAL, NDX_CONSTANT, or private (the odometer and
 * index arrays, never into a buffer).
 *
 * ---- Errors and costs ------------------------------------------------------
 * Nothing here fails, allocates, synchronizes or checks its arguments: each
 * function says what its arguments must satisfy (a pack made by ndx_pack or
 * ndx_pack_copy of the form NDX_WIDE selects, an index below numel, ...), and
 * breaking that is undefined. Each costs O(1) unless its comment says
 * otherwise.
 *
 * ---- Index width ----------------------------------------------------------
 * A pack holds int32 or int64 words (ndx_pack_head.wide). The functions that
 * read words come in both forms, named by NDX_W(name): name_w32 or name_w64.
 * Define NDX_WIDE to 0 or 1 before including to get one form (a kernel
 * program is built once per form); on the host and in CUDA the header may be
 * included twice, with NDX_WIDE 0 and then 1, to get both. Default: 1.
 * Every function of one form must be given a pack of that form.
 *
 * ---- Bit order --------------------------------------------------------------
 * Element p of b bits occupies bits p*b .. p*b+b-1 of its buffer; bit 8q+r is
 * bit r (least significant first) of byte q (docs/semantics.md section 1). */
#ifndef NDX_DEVICE_H
#define NDX_DEVICE_H

#include "ndx/ndx_pack.h"

#if defined(NDX_OPENCL_C)
#ifndef NDX_GLOBAL
#define NDX_GLOBAL __global
#endif
#ifndef NDX_CONSTANT
#define NDX_CONSTANT __constant
#endif
#ifndef NDX_FN
#define NDX_FN static inline
#endif
#ifndef NDX_KERNEL
#define NDX_KERNEL __kernel
#endif
#ifndef NDX_RESTRICT
#define NDX_RESTRICT restrict
#endif
#ifndef ndx_mulhi32
#define ndx_mulhi32(a, b) mul_hi((uint)(a), (uint)(b))
#endif
#ifndef ndx_mulhi64
#define ndx_mulhi64(a, b) mul_hi((ulong)(a), (ulong)(b))
#endif
typedef ulong2 ndx_u128;

#elif defined(__CUDACC__)
#ifndef NDX_GLOBAL
#define NDX_GLOBAL
#endif
#ifndef NDX_CONSTANT
#define NDX_CONSTANT
#endif
#ifndef NDX_FN
#define NDX_FN static __host__ __device__ __forceinline__
#endif
#ifndef NDX_KERNEL
#define NDX_KERNEL extern "C" __global__
#endif
#ifndef NDX_RESTRICT
#define NDX_RESTRICT __restrict__
#endif
typedef ulonglong2 ndx_u128;
NDX_FN ndx_u32 ndx_cuda_mulhi32(ndx_u32 a, ndx_u32 b) {
#ifdef __CUDA_ARCH__
  return __umulhi(a, b);
#else
  return (ndx_u32)(((ndx_u64)a * b) >> 32);
#endif
}
NDX_FN ndx_u64 ndx_cuda_mulhi64(ndx_u64 a, ndx_u64 b) {
#ifdef __CUDA_ARCH__
  return __umul64hi(a, b);
#else
  return (ndx_u64)(((unsigned __int128)a * b) >> 64);
#endif
}
#ifndef ndx_mulhi32
#define ndx_mulhi32(a, b) ndx_cuda_mulhi32((ndx_u32)(a), (ndx_u32)(b))
#endif
#ifndef ndx_mulhi64
#define ndx_mulhi64(a, b) ndx_cuda_mulhi64((ndx_u64)(a), (ndx_u64)(b))
#endif

#else /* host C */
#ifndef NDX_GLOBAL
#define NDX_GLOBAL
#endif
#ifndef NDX_CONSTANT
#define NDX_CONSTANT
#endif
#ifndef NDX_FN
#define NDX_FN static inline
#endif
#ifndef NDX_KERNEL
#define NDX_KERNEL
#endif
#ifndef NDX_RESTRICT
#ifdef __cplusplus
#define NDX_RESTRICT __restrict__
#else
#define NDX_RESTRICT restrict
#endif
#endif
typedef struct ndx_u128 {
  ndx_u64 x, y; /* low, high */
} ndx_u128;
NDX_FN ndx_u32 ndx_host_mulhi32(ndx_u32 a, ndx_u32 b) {
  return (ndx_u32)(((ndx_u64)a * b) >> 32);
}
NDX_FN ndx_u64 ndx_host_mulhi64(ndx_u64 a, ndx_u64 b) {
  __extension__ typedef unsigned __int128 ndx_host_u128;
  return (ndx_u64)(((ndx_host_u128)a * b) >> 64);
}
#ifndef ndx_mulhi32
#define ndx_mulhi32(a, b) ndx_host_mulhi32((ndx_u32)(a), (ndx_u32)(b))
#endif
#ifndef ndx_mulhi64
#define ndx_mulhi64(a, b) ndx_host_mulhi64((ndx_u64)(a), (ndx_u64)(b))
#endif
#endif

/* The smallest side of the tile a transpose work-item copies (128-bit
 * elements); narrower elements get bigger tiles (ndx_tile_side). */
#ifndef NDX_TILE
#define NDX_TILE 8
#endif

/* Side of a transpose tile of `bits`-bit elements: about 4 KiB for 32-bit
 * elements and more elements for narrower ones, so that the work of one
 * tile (its index math, the loop set-up) stays small next to its bytes, and
 * a whole tile's source and destination lines still fit the L1 cache. */
NDX_FN int ndx_tile_side(int bits) {
  return bits == 1     ? 32 * NDX_TILE
         : bits < 8    ? 16 * NDX_TILE
         : bits <= 16  ? 8 * NDX_TILE
         : bits == 128 ? 2 * NDX_TILE
                       : 4 * NDX_TILE;
}

/* Bytes of the private buffer a sub-byte tile stages its source in: a
 * whole tile of ndx_tile_side for 1, 2 and 4 bits (256*256/8, 128*128/4,
 * 128*128/2 bytes at most). */
#define NDX_STAGE_BYTES 8192

/* Positions handed to loads and stores are in elements of the given width. */
typedef ndx_i64 ndx_pos;

NDX_FN ndx_i64 ndx_min64(ndx_i64 a, ndx_i64 b) {
  return a < b ? a : b;
}

/* ---- Bits and bytes ------------------------------------------------------ */

/* The byte holding bit 0 of element `pos` of `bits` bits, and that bit's
 * position in the byte (0 for whole-byte widths). pos * bits < 2^60. */
NDX_FN ndx_i64 ndx_byte_of(ndx_pos pos, int bits) {
  return (ndx_i64)(((ndx_u64)pos * (ndx_u64)bits) >> 3);
}
NDX_FN int ndx_shift_of(ndx_pos pos, int bits) {
  return (int)(((ndx_u64)pos * (ndx_u64)bits) & 7u);
}

/* log2 of the elements per byte for a sub-byte width (1: 3, 2: 2, 4: 1). */
NDX_FN int ndx_sub_log2(int bits) {
  return bits == 1 ? 3 : bits == 2 ? 2 : 1;
}

/* ---- Loads and stores ---------------------------------------------------- */
/* Element `pos` of a buffer whose first byte is `base`. Whole-byte widths
 * need the element's natural alignment, which positions from an aligned
 * buffer start give. */

NDX_FN ndx_u8 ndx_load8(NDX_GLOBAL const ndx_u8 *base, ndx_pos pos) {
  return base[pos];
}
NDX_FN ndx_u16 ndx_load16(NDX_GLOBAL const ndx_u8 *base, ndx_pos pos) {
  return ((NDX_GLOBAL const ndx_u16 *)base)[pos];
}
NDX_FN ndx_u32 ndx_load32(NDX_GLOBAL const ndx_u8 *base, ndx_pos pos) {
  return ((NDX_GLOBAL const ndx_u32 *)base)[pos];
}
NDX_FN ndx_u64 ndx_load64(NDX_GLOBAL const ndx_u8 *base, ndx_pos pos) {
  return ((NDX_GLOBAL const ndx_u64 *)base)[pos];
}
NDX_FN ndx_u128 ndx_load128(NDX_GLOBAL const ndx_u8 *base, ndx_pos pos) {
  return ((NDX_GLOBAL const ndx_u128 *)base)[pos];
}
NDX_FN void ndx_store8(NDX_GLOBAL ndx_u8 *base, ndx_pos pos, ndx_u8 v) {
  base[pos] = v;
}
NDX_FN void ndx_store16(NDX_GLOBAL ndx_u8 *base, ndx_pos pos, ndx_u16 v) {
  ((NDX_GLOBAL ndx_u16 *)base)[pos] = v;
}
NDX_FN void ndx_store32(NDX_GLOBAL ndx_u8 *base, ndx_pos pos, ndx_u32 v) {
  ((NDX_GLOBAL ndx_u32 *)base)[pos] = v;
}
NDX_FN void ndx_store64(NDX_GLOBAL ndx_u8 *base, ndx_pos pos, ndx_u64 v) {
  ((NDX_GLOBAL ndx_u64 *)base)[pos] = v;
}
NDX_FN void ndx_store128(NDX_GLOBAL ndx_u8 *base, ndx_pos pos, ndx_u128 v) {
  ((NDX_GLOBAL ndx_u128 *)base)[pos] = v;
}

/* Sub-byte elements (bits 1, 2 or 4): the value of element `pos`, in its low
 * bits. */
NDX_FN ndx_u32 ndx_load_bits(NDX_GLOBAL const ndx_u8 *base, ndx_pos pos, int bits) {
  int lg = ndx_sub_log2(bits);
  ndx_u32 per = 1u << lg;
  ndx_u32 byte = base[pos >> lg];
  return (byte >> (((ndx_u32)pos & (per - 1u)) * (ndx_u32)bits)) & ((1u << bits) - 1u);
}

/* Writes the low `bits` bits of `v` into element `pos` (bits 1, 2 or 4) and
 * leaves every other bit of its byte as it was. A read-modify-write of one
 * byte, not atomic: the caller must be the only writer of that byte. */
NDX_FN void ndx_store_bits(NDX_GLOBAL ndx_u8 *base, ndx_pos pos, int bits, ndx_u32 v) {
  int lg = ndx_sub_log2(bits);
  ndx_u32 per = 1u << lg;
  ndx_u32 sh = ((ndx_u32)pos & (per - 1u)) * (ndx_u32)bits;
  ndx_u32 mask = ((1u << bits) - 1u) << sh;
  NDX_GLOBAL ndx_u8 *q = base + (pos >> lg);
  *q = (ndx_u8)((*q & ~mask) | ((v << sh) & mask));
}

/* Copies element `ps` of `src` to element `pd` of `dst` (bits >= 8). */
NDX_FN void ndx_copy_elem(NDX_GLOBAL ndx_u8 *dst, ndx_pos pd, NDX_GLOBAL const ndx_u8 *src,
                          ndx_pos ps, int bits) {
  switch (bits) {
  case 8:
    ndx_store8(dst, pd, ndx_load8(src, ps));
    break;
  case 16:
    ndx_store16(dst, pd, ndx_load16(src, ps));
    break;
  case 32:
    ndx_store32(dst, pd, ndx_load32(src, ps));
    break;
  case 64:
    ndx_store64(dst, pd, ndx_load64(src, ps));
    break;
  default:
    ndx_store128(dst, pd, ndx_load128(src, ps));
    break;
  }
}

/* ---- Transposed blocks ------------------------------------------------ */
/* A tile is copied in blocks of 2L x L elements (rows x columns), L =
 * ndx_tile_lanes: in OpenCL C, a block is L pairs of vector loads along the
 * source's unit axis (2L elements: a whole 64-byte line for 16, 32 and
 * 64-bit elements), two transposes in registers and 2L vector stores along
 * the destination's: this is what makes a transpose fast on a CPU device
 * (docs/device.md section 9: per-element code reaches a fraction of the copy
 * bandwidth), and reading whole lines at once keeps power-of-two pitches,
 * whose lines all fall in one cache set, from evicting a line before its
 * second half is read. The host and CUDA builds have L = 1: their tiles copy
 * element by element (CUDA's kernels have their own tiles). Block (i, j) of
 * the tile: destination element d + i*sdi + j gets source element s + i +
 * j*ssj. */
#if defined(NDX_OPENCL_C)
NDX_FN int ndx_tile_lanes(int bits) {
  return bits <= 16 ? 16 : bits == 32 ? 8 : bits == 64 ? 4 : 1;
}

/* The transpose of L vectors of L lanes in place: log2(L) rounds, each of
 * which moves row r, lane c to row (c&1)*L/2 + r/2, lane (r&1)*L/2 + c/2 (a
 * rotation of the bits of r:c by one), so that after log2(L) rounds row c
 * holds lane r. The .even/.odd swizzles and vector literals are plain
 * shuffles to LLVM; the loops must unroll for the rows to live in
 * registers. */
#define NDX_DEFINE_BLOCK(T, V, L, LOG2)                                                            \
  /* unaligned vector accesses: PoCL's vloadN and vstoreN of char and short                        \
   * vectors go element by element */                                                              \
  typedef struct __attribute__((packed)) ndx_packed_##V {                                          \
    V v;                                                                                           \
  } ndx_packed_##V;                                                                                \
  NDX_FN V ndx_load_##V(NDX_GLOBAL const T *s) {                                                   \
    return ((NDX_GLOBAL const ndx_packed_##V *)s)->v;                                              \
  }                                                                                                \
  NDX_FN void ndx_store_##V(NDX_GLOBAL T *d, V v) {                                                \
    ((NDX_GLOBAL ndx_packed_##V *)d)->v = v;                                                       \
  }                                                                                                \
  NDX_FN void ndx_transpose_##V(V *a) {                                                            \
    V b[L];                                                                                        \
    _Pragma("unroll") for (int round = 0; round < LOG2; round++) {                                 \
      _Pragma("unroll") for (int k = 0; k < L / 2; k++) {                                          \
        b[k] = (V)(a[2 * k].even, a[2 * k + 1].even);                                              \
        b[L / 2 + k] = (V)(a[2 * k].odd, a[2 * k + 1].odd);                                        \
      }                                                                                            \
      _Pragma("unroll") for (int k = 0; k < L; k++) a[k] = b[k];                                   \
    }                                                                                              \
  }                                                                                                \
  NDX_FN void ndx_block_##T(NDX_GLOBAL T *NDX_RESTRICT d, ndx_i64 sdi,                             \
                            NDX_GLOBAL const T *NDX_RESTRICT s, ndx_i64 ssj) {                     \
    V lo[L], hi[L];                                                                                \
    _Pragma("unroll") for (int j = 0; j < L; j++) {                                                \
      lo[j] = ndx_load_##V(s + j * ssj);                                                           \
      hi[j] = ndx_load_##V(s + j * ssj + L);                                                       \
    }                                                                                              \
    ndx_transpose_##V(lo);                                                                         \
    ndx_transpose_##V(hi);                                                                         \
    _Pragma("unroll") for (int i = 0; i < L; i++) {                                                \
      ndx_store_##V(d + i * sdi, lo[i]);                                                           \
      ndx_store_##V(d + (i + L) * sdi, hi[i]);                                                     \
    }                                                                                              \
  }                                                                                                \
  /* an L x L block: for tiles of fewer than 2L rows */                                            \
  NDX_FN void ndx_square_block_##T(NDX_GLOBAL T *NDX_RESTRICT d, ndx_i64 sdi,                      \
                                   NDX_GLOBAL const T *NDX_RESTRICT s, ndx_i64 ssj) {              \
    V a[L];                                                                                        \
    _Pragma("unroll") for (int j = 0; j < L; j++) a[j] = ndx_load_##V(s + j * ssj);                \
    ndx_transpose_##V(a);                                                                          \
    _Pragma("unroll") for (int i = 0; i < L; i++) ndx_store_##V(d + i * sdi, a[i]);                \
  }
NDX_DEFINE_BLOCK(uchar, uchar16, 16, 4)
NDX_DEFINE_BLOCK(ushort, ushort16, 16, 4)
NDX_DEFINE_BLOCK(uint, uint8, 8, 3)
NDX_DEFINE_BLOCK(ulong, ulong4, 4, 2)
#undef NDX_DEFINE_BLOCK

/* Copies the 2L x L block (rows x columns) at the given positions, or the
 * L x L one when `square`. */
#define NDX_BLOCK_CALL(T)                                                                          \
  {                                                                                                \
    NDX_GLOBAL T *d_ = (NDX_GLOBAL T *)dst + pd;                                                   \
    NDX_GLOBAL const T *s_ = (NDX_GLOBAL const T *)src + ps;                                       \
    if (square)                                                                                    \
      ndx_square_block_##T(d_, sdi, s_, ssj);                                                      \
    else                                                                                           \
      ndx_block_##T(d_, sdi, s_, ssj);                                                             \
  }
NDX_FN void ndx_copy_block(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi,
                           NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps, ndx_i64 ssj,
                           int bits, int square) {
  switch (bits) {
  case 8:
    NDX_BLOCK_CALL(uchar) break;
  case 16:
    NDX_BLOCK_CALL(ushort) break;
  case 32:
    NDX_BLOCK_CALL(uint) break;
  case 64:
    NDX_BLOCK_CALL(ulong) break;
  default:
    ndx_copy_elem(dst, pd, src, ps, bits);
    break;
  }
}
#undef NDX_BLOCK_CALL
#else
NDX_FN int ndx_tile_lanes(int bits) {
  (void)bits;
  return 1;
}
NDX_FN void ndx_copy_block(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi,
                           NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps, ndx_i64 ssj,
                           int bits, int square) {
  (void)sdi;
  (void)ssj;
  (void)square;
  ndx_copy_elem(dst, pd, src, ps, bits);
}
#endif

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

/* Eight bytes at any byte address, as one little-endian word (every ndx
 * target is little-endian), and back: a packed struct makes the compiler
 * emit one unaligned access (PoCL's vload8 goes byte by byte). */
typedef struct __attribute__((packed)) ndx_word_bytes {
  ndx_u64 v;
} ndx_word_bytes;
NDX_FN ndx_u64 ndx_load_word(NDX_GLOBAL const ndx_u8 *q) {
  return ((NDX_GLOBAL const ndx_word_bytes *)q)->v;
}
NDX_FN void ndx_store_word(NDX_GLOBAL ndx_u8 *q, ndx_u64 v) {
  ((NDX_GLOBAL ndx_word_bytes *)q)->v = v;
}

/* The transpose of an n x n matrix of sub-byte elements, n = 64/bits, held
 * as n words: element e of word r (bits bits*e ..) goes to element r of
 * word e. Element order in a word is the buffer's (docs/semantics.md section 1),
 * so a word is 8 bytes of a row. Recursive block swaps (Hacker's Delight
 * 7-3): at half-size h, words r and r+h (r & h == 0) trade the elements e
 * with e & h != 0 of word r for the elements e - h of word r+h, one masked
 * xor each. log2(n) rounds of n/2 swaps: 3 operations a byte or so. */
NDX_FN void ndx_bits_transpose(ndx_u64 *w, int bits) {
  int n = 64 / bits, rounds = bits == 1 ? 6 : bits == 2 ? 5 : 4; /* log2(n) */
  for (int round = 0; round < rounds; round++) {
    int h = n >> (round + 1), sh = 32 >> round; /* sh: the bits of h elements */
    /* sh ones, sh zeros, repeated: the elements e with e & h == 0 */
    ndx_u64 m = sh == 32   ? 0x00000000FFFFFFFFull
                : sh == 16 ? 0x0000FFFF0000FFFFull
                : sh == 8  ? 0x00FF00FF00FF00FFull
                : sh == 4  ? 0x0F0F0F0F0F0F0F0Full
                : sh == 2  ? 0x3333333333333333ull
                           : 0x5555555555555555ull;
    for (int q = 0; q < n / 2; q++) {
      int r = ((q & ~(h - 1)) << 1) | (q & (h - 1)); /* the q-th r with r & h == 0 */
      ndx_u64 t = ((w[r] >> sh) ^ w[r + h]) & m;
      w[r + h] ^= t;
      w[r] ^= t << sh;
    }
  }
}

#endif /* NDX_DEVICE_H */

/* ==== Functions that read pack words, once per index width ================= */
#ifndef NDX_WIDE
#define NDX_WIDE 1
#endif

#if (NDX_WIDE && !defined(NDX_DEVICE_H_W64)) || (!NDX_WIDE && !defined(NDX_DEVICE_H_W32))
#undef NDX_W
#undef NDX_WORD
#undef NDX_UWORD
#undef NDX_MULHI
#if NDX_WIDE
#define NDX_DEVICE_H_W64
#define NDX_W(name) name##_w64
#define NDX_WORD ndx_i64
#define NDX_UWORD ndx_u64
#define NDX_MULHI(a, b) ndx_mulhi64(a, b)
#else
#define NDX_DEVICE_H_W32
#define NDX_W(name) name##_w32
#define NDX_WORD ndx_i32
#define NDX_UWORD ndx_u32
#define NDX_MULHI(a, b) ndx_mulhi32(a, b)
#endif

/* ---- Reading the pack ---------------------------------------------------- */

NDX_FN NDX_WORD NDX_W(ndx_word)(NDX_CONSTANT const ndx_pack_head *p, ndx_u32 i) {
  return ((NDX_CONSTANT const NDX_WORD *)(p + 1))[i];
}
NDX_FN NDX_WORD NDX_W(ndx_offset)(NDX_CONSTANT const ndx_pack_head *p, int k) {
  return NDX_W(ndx_word)(p, (ndx_u32)NDX_PACK_OFFSET(p->nops, p->rank, k));
}
NDX_FN NDX_WORD NDX_W(ndx_extent)(NDX_CONSTANT const ndx_pack_head *p, int a) {
  return NDX_W(ndx_word)(p, (ndx_u32)NDX_PACK_EXTENT(p->nops, p->rank, a));
}
NDX_FN NDX_UWORD NDX_W(ndx_magic)(NDX_CONSTANT const ndx_pack_head *p, int a) {
  return (NDX_UWORD)NDX_W(ndx_word)(p, (ndx_u32)NDX_PACK_MAGIC(p->nops, p->rank, a));
}
NDX_FN int NDX_W(ndx_shift)(NDX_CONSTANT const ndx_pack_head *p, int a) {
  return (int)NDX_W(ndx_word)(p, (ndx_u32)NDX_PACK_SHIFT(p->nops, p->rank, a));
}
NDX_FN NDX_WORD NDX_W(ndx_stride)(NDX_CONSTANT const ndx_pack_head *p, int k, int a) {
  return NDX_W(ndx_word)(p, (ndx_u32)NDX_PACK_STRIDE(p->nops, p->rank, k, a));
}

/* n / d by the magic pair (m, l) of d: exact for n < 2^(N-1) (ndx_pack.h). */
NDX_FN NDX_WORD NDX_W(ndx_div)(NDX_WORD n, NDX_UWORD m, int l) {
  NDX_UWORD u = (NDX_UWORD)n;
  return (NDX_WORD)((NDX_MULHI(m, u) + u) >> l);
}

/* ---- Index to position --------------------------------------------------- */

/* The position in operand k of C-order index i over the first `lead` axes
 * (the others at 0): offset + sum over a < lead of i_a * s_a. i must be below
 * the product of those extents. lead - 1 magic divisions, no divide. */
NDX_FN NDX_WORD NDX_W(ndx_position_lead)(NDX_CONSTANT const ndx_pack_head *p, int k, NDX_WORD i,
                                         int lead) {
  NDX_WORD pos = NDX_W(ndx_offset)(p, k);
  for (int a = lead - 1; a > 0; a--) {
    NDX_WORD q = NDX_W(ndx_div)(i, NDX_W(ndx_magic)(p, a), NDX_W(ndx_shift)(p, a));
    pos += (i - q * NDX_W(ndx_extent)(p, a)) * NDX_W(ndx_stride)(p, k, a);
    i = q;
  }
  if (lead > 0) pos += i * NDX_W(ndx_stride)(p, k, 0);
  return pos;
}

/* The position in operand k of C-order index i (0 <= i < numel). rank - 1
 * magic divisions, no divide. */
NDX_FN NDX_WORD NDX_W(ndx_position)(NDX_CONSTANT const ndx_pack_head *p, int k, NDX_WORD i) {
  return NDX_W(ndx_position_lead)(p, k, i, (int)p->rank);
}

/* The multi-index of C-order index i, into index[0 .. rank-1]. rank - 1
 * magic divisions. */
NDX_FN void NDX_W(ndx_unravel)(NDX_CONSTANT const ndx_pack_head *p, NDX_WORD i, NDX_WORD *index) {
  for (int a = (int)p->rank - 1; a > 0; a--) {
    NDX_WORD q = NDX_W(ndx_div)(i, NDX_W(ndx_magic)(p, a), NDX_W(ndx_shift)(p, a));
    index[a] = i - q * NDX_W(ndx_extent)(p, a);
    i = q;
  }
  index[0] = i;
}

/* The position in operand k of a multi-index (each 0 <= index[a] < extent).
 * O(rank). */
NDX_FN NDX_WORD NDX_W(ndx_index_position)(NDX_CONSTANT const ndx_pack_head *p, int k,
                                          const NDX_WORD *index) {
  NDX_WORD pos = NDX_W(ndx_offset)(p, k);
  for (int a = 0; a < (int)p->rank; a++) pos += index[a] * NDX_W(ndx_stride)(p, k, a);
  return pos;
}

/* The smallest and one past the largest position of operand k; every partial
 * sum between them. O(rank). */
NDX_FN void NDX_W(ndx_span)(NDX_CONSTANT const ndx_pack_head *p, int k, ndx_i64 *lo, ndx_i64 *hi) {
  ndx_i64 l = NDX_W(ndx_offset)(p, k), h = l;
  for (int a = 0; a < (int)p->rank; a++) {
    ndx_i64 r = (ndx_i64)(NDX_W(ndx_extent)(p, a) - 1) * NDX_W(ndx_stride)(p, k, a);
    if (r < 0)
      l += r;
    else
      h += r;
  }
  *lo = l;
  *hi = h + 1;
}

/* ---- Stepping ---------------------------------------------------------------- */

/* An odometer over the pack's indices in C order, tracking the positions of
 * operands 0 and 1 (just 0 when the pack has one operand). Stepping adds
 * strides; a carry subtracts (extent-1)*stride, so every intermediate value is
 * a position of its operand and fits the form's words. */
typedef struct NDX_W(ndx_odo) {
  NDX_WORD index[NDX_PACK_MAX_RANK];
  NDX_WORD pos[2];
} NDX_W(ndx_odo);

/* Starts `o` at C-order index i (0 <= i < numel). rank - 1 magic divisions
 * and O(rank) multiply-adds. */
NDX_FN void NDX_W(ndx_odo_start)(NDX_CONSTANT const ndx_pack_head *p, NDX_W(ndx_odo) * o,
                                 NDX_WORD i) {
  NDX_W(ndx_unravel)(p, i, o->index);
  o->pos[0] = NDX_W(ndx_index_position)(p, 0, o->index);
  o->pos[1] = p->nops > 1 ? NDX_W(ndx_index_position)(p, 1, o->index) : 0;
}

/* Advances the index formed by axes 0 .. a by one (axes after a untouched),
 * carrying outwards. Returns 0 when it wrapped past the last index (every
 * axis up to a back at 0), 1 otherwise. O(a) at worst, O(1) amortized over a
 * walk. */
NDX_FN int NDX_W(ndx_odo_carry)(NDX_CONSTANT const ndx_pack_head *p, NDX_W(ndx_odo) * o, int a) {
  int two = p->nops > 1;
  for (; a >= 0; a--) {
    NDX_WORD d = NDX_W(ndx_extent)(p, a);
    NDX_WORD s0 = NDX_W(ndx_stride)(p, 0, a), s1 = two ? NDX_W(ndx_stride)(p, 1, a) : 0;
    if (o->index[a] + 1 < d) {
      o->index[a]++;
      o->pos[0] += s0;
      o->pos[1] += s1;
      return 1;
    }
    o->index[a] = 0;
    o->pos[0] -= (d - 1) * s0;
    o->pos[1] -= (d - 1) * s1;
  }
  return 0;
}

/* Advances `o` to the next C-order index. */
NDX_FN int NDX_W(ndx_odo_next)(NDX_CONSTANT const ndx_pack_head *p, NDX_W(ndx_odo) * o) {
  return NDX_W(ndx_odo_carry)(p, o, (int)p->rank - 1);
}

/* After a run from index j of the innermost axis to the end of its row (sd
 * and ss that axis's strides): back to the row's start, then one step on the
 * outer axes. */
NDX_FN void NDX_W(ndx_odo_next_row)(NDX_CONSTANT const ndx_pack_head *p, NDX_W(ndx_odo) * o,
                                    NDX_WORD j, NDX_WORD sd, NDX_WORD ss) {
  int in = (int)p->rank - 1;
  o->pos[0] -= j * sd;
  o->pos[1] -= j * ss;
  o->index[in] = 0;
  NDX_W(ndx_odo_carry)(p, o, in - 1);
}

/* The number of C-order indices whose operand-0 position is below P, for a
 * pack whose operand-0 strides are >= 0, non-increasing and distinct (each
 * above the reach of the axes after it), as ndx_pack_copy leaves a distinct
 * destination. Then positions increase with the index, so the indices with
 * position in [P0, P1) are the C-order range [count(P0), count(P1)).
 * O(rank), about 2*rank divisions, 64-bit. */
NDX_FN ndx_i64 NDX_W(ndx_count_below)(NDX_CONSTANT const ndx_pack_head *p, ndx_i64 P) {
  ndx_i64 rem = P - NDX_W(ndx_offset)(p, 0);
  if (rem <= 0) return 0;
  ndx_i64 c = 0, inner = p->numel;
  for (int a = 0; a < (int)p->rank; a++) {
    ndx_i64 d = NDX_W(ndx_extent)(p, a), s = NDX_W(ndx_stride)(p, 0, a);
    inner /= d; /* extents after a */
    ndx_i64 q = s > 0 ? rem / s : 0;
    if (q >= d) return c + d * inner;
    c += q * inner;
    rem -= q * s;
  }
  return c + (rem > 0 ? 1 : 0);
}

/* ---- Copy routines: one work-item's share of a copy pack ------------------ */
/* Each takes the pack of ndx_pack_copy (operand 0 the destination, 1 the
 * source), the two buffers' first bytes and the element width; `bits` is a
 * constant in every caller, so each switch on it folds away. */

/* Copies `n` elements (bits >= 8): element pd + t*sd of `dst` gets element
 * ps + t*ss of `src`, t < n. `unit` (a constant in the caller) promises
 * sd == ss == 1, so that the loop is a plain, vectorizable block copy.
 * Otherwise a destination run of stride 1 whose source stride is one of the
 * common small ones (0: a broadcast, -1: a flip, 2: a step-2 slice) gets a
 * loop with that stride as a constant: the compiler vectorizes those (a
 * splat, a reversing shuffle, an even-lane shuffle of two loads) where the
 * stride left as a variable gives a scalar or gathering loop. */
#define NDX_RUN_STRIDED(T, SS)                                                                     \
  for (NDX_WORD t = 0; t < n; t++) d_[t] = s_[t * (SS)];
#define NDX_RUN_LOOP(T)                                                                            \
  {                                                                                                \
    NDX_GLOBAL T *NDX_RESTRICT d_ = (NDX_GLOBAL T *)dst + pd;                                      \
    NDX_GLOBAL const T *NDX_RESTRICT s_ = (NDX_GLOBAL const T *)src + ps;                          \
    if (unit || (sd == 1 && ss == 1)) {                                                            \
      NDX_RUN_STRIDED(T, 1)                                                                        \
    } else if (sd == 1 && ss == 0) {                                                               \
      NDX_RUN_STRIDED(T, 0)                                                                        \
    } else if (sd == 1 && ss == -1) {                                                              \
      NDX_RUN_STRIDED(T, -1)                                                                       \
    } else if (sd == 1 && ss == 2) {                                                               \
      NDX_RUN_STRIDED(T, 2)                                                                        \
    } else {                                                                                       \
      for (NDX_WORD t = 0; t < n; t++) d_[t * sd] = s_[t * ss];                                    \
    }                                                                                              \
  }
NDX_FN void NDX_W(ndx_copy_run)(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, NDX_WORD pd, NDX_WORD sd,
                                NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, NDX_WORD ps, NDX_WORD ss,
                                NDX_WORD n, int bits, int unit) {
  switch (bits) {
  case 8:
    NDX_RUN_LOOP(ndx_u8) break;
  case 16:
    NDX_RUN_LOOP(ndx_u16) break;
  case 32:
    NDX_RUN_LOOP(ndx_u32) break;
  case 64:
    NDX_RUN_LOOP(ndx_u64) break;
  default:
    NDX_RUN_LOOP(ndx_u128) break;
  }
}
#undef NDX_RUN_STRIDED
#undef NDX_RUN_LOOP

/* Copies C-order elements [i0, i1) (bits >= 8): one start by magic division,
 * then runs along the innermost axis with a carry between runs. `unit` (a
 * constant) promises innermost strides of 1 on both sides. O(rank + i1 - i0). */
NDX_FN void NDX_W(ndx_copy_range)(NDX_CONSTANT const ndx_pack_head *p,
                                  NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                  NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits, NDX_WORD i0,
                                  NDX_WORD i1, int unit) {
  if (i0 >= i1) return;
  NDX_W(ndx_odo) o;
  NDX_W(ndx_odo_start)(p, &o, i0);
  int in = (int)p->rank - 1;
  NDX_WORD d = NDX_W(ndx_extent)(p, in);
  NDX_WORD sd = NDX_W(ndx_stride)(p, 0, in), ss = NDX_W(ndx_stride)(p, 1, in);
  NDX_WORD n = i1 - i0;
  for (;;) {
    NDX_WORD j = o.index[in], run = d - j;
    if (run > n) run = n;
    NDX_W(ndx_copy_run)(dst, o.pos[0], sd, src, o.pos[1], ss, run, bits, unit);
    n -= run;
    if (n == 0) return;
    NDX_W(ndx_odo_next_row)(p, &o, j, sd, ss); /* the row is done (j + run == d) */
  }
}

/* Work-item `item` of a range copy: C-order elements [item*chunk,
 * (item+1)*chunk) clipped to numel; items past the end do nothing. */
NDX_FN void NDX_W(ndx_copy_range_item)(NDX_CONSTANT const ndx_pack_head *p,
                                       NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                       NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                                       ndx_i64 item, ndx_i64 chunk, int unit) {
  ndx_i64 i0 = item * chunk;
  if (i0 >= p->numel) return;
  ndx_i64 i1 = ndx_min64(p->numel, i0 + chunk);
  NDX_W(ndx_copy_range)(p, dst, src, bits, (NDX_WORD)i0, (NDX_WORD)i1, unit);
}

/* The tile of a tile copy: *ti rows (axis rank-2) by *tj columns (axis
 * rank-1). Square of side ndx_tile_side, except that a thin matrix (fewer
 * rows or columns than a side) gets tiles as thin as it and as many
 * elements, so that a 3 x 1000003 transpose still moves whole tiles.
 * Needs numel > 0. */
NDX_FN void NDX_W(ndx_tile_shape)(NDX_CONSTANT const ndx_pack_head *p, ndx_i64 *ti, ndx_i64 *tj) {
  int r = (int)p->rank;
  ndx_i64 di = NDX_W(ndx_extent)(p, r - 2), dj = NDX_W(ndx_extent)(p, r - 1);
  ndx_i64 side = ndx_tile_side((int)p->bits), area = side * side;
  *ti = side;
  *tj = side;
  if (dj < side) {
    *tj = dj;
    *ti = area / dj;
  } else if (di < side) {
    *ti = di;
    *tj = ndx_min64(dj, area / di / 8 * 8); /* tiles start on whole bytes of 1-bit rows */
  }
}

/* 1 when a sub-byte pack (bits 1, 2, 4) can be copied by tiles: the
 * destination runs along the last axis with stride 1 and every destination
 * row (a C-order run of the last axis) starts on a byte boundary. A
 * destination byte then belongs to one row only, and a tile, which holds
 * whole rows' bytes, is the one writer of its bytes (docs/device.md section 5:
 * two work-items must never write one byte). */
NDX_FN int NDX_W(ndx_tile_bits_ok)(NDX_CONSTANT const ndx_pack_head *p) {
  int r = (int)p->rank, per = p->bits < 8 ? 8 / (int)p->bits : 1;
  if (r < 2 || NDX_W(ndx_stride)(p, 0, r - 1) != 1 || NDX_W(ndx_offset)(p, 0) % per != 0) return 0;
  for (int a = 0; a < r - 1; a++)
    if (NDX_W(ndx_stride)(p, 0, a) % per != 0) return 0;
  return 1;
}

/* One destination byte of a sub-byte tile: elements j .. j+n-1 (n <= per) of
 * the row at destination position pd (a byte boundary), from source
 * positions ps + j'*ssj; bits of the byte past the n elements keep their
 * value. */
NDX_FN void NDX_W(ndx_tile_byte)(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, NDX_WORD pd,
                                 NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, NDX_WORD ps,
                                 NDX_WORD ssj, NDX_WORD j, int n, int bits) {
  ndx_u32 acc = 0, mask = 0, one = (1u << bits) - 1u;
  for (int e = 0; e < n; e++) {
    acc |= ndx_load_bits(src, ps + (j + e) * ssj, bits) << (e * bits);
    mask |= one << (e * bits);
  }
  ndx_bits_flush(dst, (pd + j) >> ndx_sub_log2(bits), acc, mask);
}

/* Copies one tile of a sub-byte pack that ndx_tile_bits_ok accepts (tile
 * and strides as ndx_copy_tile has them). Where the source's second-to-last
 * stride is 1 and its columns start on byte boundaries, the tile's source
 * rows are first copied into a private buffer of words, and n x n blocks (n
 * = 64/bits: a word of each of n rows) then go as n buffer words, one
 * ndx_bits_transpose and n destination words, destination row after row.
 * Read straight from the source, the blocks would walk down its rows a
 * word at a time, and rows a power-of-two apart all fall in one cache set: each
 * load a miss. The bytes outside whole blocks are gathered element by
 * element. */
NDX_FN void NDX_W(ndx_copy_tile_bits)(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, NDX_WORD pd,
                                      NDX_WORD sdi, NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src,
                                      NDX_WORD ps, NDX_WORD ssi, NDX_WORD ssj, NDX_WORD ni,
                                      NDX_WORD nj, int bits) {
  int lg = ndx_sub_log2(bits), n = 64 / bits;
  int per = 1 << lg; /* destination rows start on bytes (ndx_tile_bits_ok) */
  int blocks =
      ssi == 1 && ps % per == 0 && ssj % per == 0 && (ndx_i64)nj * ni * bits <= 8 * NDX_STAGE_BYTES;
  NDX_WORD fi = blocks ? ni - ni % n : 0, fj = blocks ? nj - nj % n : 0;
  NDX_WORD rw = fi / n; /* words of a staged row */
  ndx_u64 stage[NDX_STAGE_BYTES / 8], w[64];
  for (NDX_WORD j = 0; j < fj; j++) {
    NDX_GLOBAL const ndx_u8 *row = src + ((ps + j * ssj) >> lg);
    for (NDX_WORD k = 0; k < rw; k++) stage[j * rw + k] = ndx_load_word(row + 8 * k);
  }
  for (NDX_WORD i = 0; i < fi; i += n) {
    for (NDX_WORD j = 0; j < fj; j += n) {
      for (int k = 0; k < n; k++) w[k] = stage[(j + k) * rw + i / n];
      ndx_bits_transpose(w, bits);
      for (int m = 0; m < n; m++) ndx_store_word(dst + ((pd + (i + m) * sdi + j) >> lg), w[m]);
    }
  }
  for (NDX_WORD i = 0; i < ni; i++)
    for (NDX_WORD j = i < fi ? fj : 0; j < nj; j += per) NDX_W(ndx_tile_byte)
  (dst, pd + i * sdi, src, ps + i * ssi, ssj, j, (int)ndx_min64(per, nj - j), bits);
}

/* A thin tile (bits >= 8) of N = ni or nj <= 4 rows or columns, both
 * operands dense along the tile: with N a constant, the compiler vectorizes
 * the long side with interleaving shuffles (a transpose of a 3-column matrix
 * is an interleave of three rows), where the register blocks need L rows and
 * columns. `wide` rows: nj <= 4 and sdi == nj (element i*N + j of d_ gets
 * i + j*ssj of s_); else nj long, ni <= 4 and ssj == ni (i*sdi + j gets
 * i + j*N). Returns 0, copying nothing, for other shapes. */
#define NDX_THIN_LOOPS(T, N)                                                                       \
  {                                                                                                \
    NDX_GLOBAL T *NDX_RESTRICT d_ = (NDX_GLOBAL T *)dst + pd;                                      \
    NDX_GLOBAL const T *NDX_RESTRICT s_ = (NDX_GLOBAL const T *)src + ps;                          \
    if (short_rows) {                                                                              \
      for (NDX_WORD i = 0; i < ni; i++)                                                            \
        for (int j = 0; j < N; j++) d_[i * N + j] = s_[i + j * ssj];                               \
    } else {                                                                                       \
      for (NDX_WORD j = 0; j < nj; j++)                                                            \
        for (int i = 0; i < N; i++) d_[i * sdi + j] = s_[i + j * N];                               \
    }                                                                                              \
  }
#define NDX_THIN_WIDTH(T)                                                                          \
  switch (n) {                                                                                     \
  case 2:                                                                                          \
    NDX_THIN_LOOPS(T, 2) break;                                                                    \
  case 3:                                                                                          \
    NDX_THIN_LOOPS(T, 3) break;                                                                    \
  default:                                                                                         \
    NDX_THIN_LOOPS(T, 4) break;                                                                    \
  }
NDX_FN int NDX_W(ndx_copy_thin)(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, NDX_WORD pd, NDX_WORD sdi,
                                NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, NDX_WORD ps,
                                NDX_WORD ssj, NDX_WORD ni, NDX_WORD nj, int bits) {
  int short_rows = nj >= 2 && nj <= 4 && sdi == nj;
  int short_cols = ni >= 2 && ni <= 4 && ssj == ni;
  if (!short_rows && !short_cols) return 0;
  int n = (int)(short_rows ? nj : ni);
  switch (bits) {
  case 8:
    NDX_THIN_WIDTH(ndx_u8) break;
  case 16:
    NDX_THIN_WIDTH(ndx_u16) break;
  case 32:
    NDX_THIN_WIDTH(ndx_u32) break;
  case 64:
    NDX_THIN_WIDTH(ndx_u64) break;
  default:
    NDX_THIN_WIDTH(ndx_u128) break;
  }
  return 1;
}
#undef NDX_THIN_WIDTH
#undef NDX_THIN_LOOPS

/* Copies one tile of a pack of rank >= 2: rows ti*th.. of axis
 * rank-2, columns tj*tw.. of axis rank-1 (th x tw the tile shape), at C-order
 * index `batch` of the axes before them. A transpose pack puts the
 * destination's unit-stride axis last and the source's second-to-last, so
 * the tile is read down its columns and written along its rows; where those
 * strides are exactly 1 it goes in ndx_copy_block's blocks, the rest (edges,
 * a flipped source) element by element. Edge tiles are clipped. O(rank +
 * the tile's elements). */
NDX_FN void NDX_W(ndx_copy_tile)(NDX_CONSTANT const ndx_pack_head *p,
                                 NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                 NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                                 NDX_WORD batch, NDX_WORD ti, NDX_WORD tj) {
  int r = (int)p->rank;
  ndx_i64 th, tw;
  NDX_W(ndx_tile_shape)(p, &th, &tw);
  NDX_WORD di = NDX_W(ndx_extent)(p, r - 2), dj = NDX_W(ndx_extent)(p, r - 1);
  NDX_WORD i0 = ti * (NDX_WORD)th, j0 = tj * (NDX_WORD)tw;
  if (i0 >= di || j0 >= dj) return;
  NDX_WORD ni = (NDX_WORD)ndx_min64(di - i0, th), nj = (NDX_WORD)ndx_min64(dj - j0, tw);
  NDX_WORD sdi = NDX_W(ndx_stride)(p, 0, r - 2), sdj = NDX_W(ndx_stride)(p, 0, r - 1);
  NDX_WORD ssi = NDX_W(ndx_stride)(p, 1, r - 2), ssj = NDX_W(ndx_stride)(p, 1, r - 1);
  NDX_WORD pd = NDX_W(ndx_position_lead)(p, 0, batch, r - 2) + i0 * sdi + j0 * sdj;
  NDX_WORD ps = NDX_W(ndx_position_lead)(p, 1, batch, r - 2) + i0 * ssi + j0 * ssj;
  if (bits < 8) {
    NDX_W(ndx_copy_tile_bits)(dst, pd, sdi, src, ps, ssi, ssj, ni, nj, bits);
    return;
  }
  int lanes = sdj == 1 && ssi == 1 ? ndx_tile_lanes(bits) : 1;
  if (lanes > 1 && (nj < lanes || ni < 2 * lanes) &&
      NDX_W(ndx_copy_thin)(dst, pd, sdi, src, ps, ssj, ni, nj, bits))
    return;
  /* the rows [0, fi) and columns [0, fj) that go in blocks; none when blocks
   * would be single elements */
  NDX_WORD fi = lanes > 1 ? ni - ni % lanes : 0, fj = lanes > 1 ? nj - nj % lanes : 0;
  for (NDX_WORD i = 0; i < fi; i += 2 * lanes) {
    int square = i + 2 * lanes > fi; /* an odd number of L-row bands: the last is L x L */
    for (NDX_WORD j = 0; j < fj; j += lanes)
      ndx_copy_block(dst, pd + i * sdi + j * sdj, sdi, src, ps + i * ssi + j * ssj, ssj, bits,
                     square);
  }
  for (NDX_WORD i = 0; i < ni; i++)
    for (NDX_WORD j = i < fi ? fj : 0; j < nj; j++)
      ndx_copy_elem(dst, pd + i * sdi + j * sdj, src, ps + i * ssi + j * ssj, bits);
}

/* The number of tiles of a tile copy: batches * tile rows * tile columns. */
NDX_FN ndx_i64 NDX_W(ndx_tile_count)(NDX_CONSTANT const ndx_pack_head *p) {
  if (p->numel == 0) return 0;
  int r = (int)p->rank;
  ndx_i64 di = NDX_W(ndx_extent)(p, r - 2), dj = NDX_W(ndx_extent)(p, r - 1), th, tw;
  NDX_W(ndx_tile_shape)(p, &th, &tw);
  return p->numel / (di * dj) * ((di + th - 1) / th) * ((dj + tw - 1) / tw);
}

/* Work-item `item` of a tile copy: tile rows vary fastest, then tile
 * columns, then batches, so that the items of a work-group read the source
 * along its unit axis, tile after tile (faster on PoCL than the other way).
 * Items past the last tile do nothing. */
NDX_FN void NDX_W(ndx_copy_tile_item)(NDX_CONSTANT const ndx_pack_head *p,
                                      NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                      NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                                      ndx_i64 item) {
  if (p->numel == 0) return;
  int r = (int)p->rank;
  ndx_i64 di = NDX_W(ndx_extent)(p, r - 2), dj = NDX_W(ndx_extent)(p, r - 1), th, tw;
  NDX_W(ndx_tile_shape)(p, &th, &tw);
  ndx_i64 tj = (dj + tw - 1) / tw, ti = (di + th - 1) / th;
  ndx_i64 col = item / ti, batch = col / tj;
  if (batch >= p->numel / (di * dj)) return;
  NDX_W(ndx_copy_tile)
  (p, dst, src, bits, (NDX_WORD)batch, (NDX_WORD)(item - col * ti), (NDX_WORD)(col - batch * tj));
}

/* Copies into the destination bytes [b0, b1) for a sub-byte width (1, 2, 4):
 * the elements whose destination position falls in those bytes are one
 * C-order range (ndx_count_below); their bits are gathered per byte and each
 * byte is written once, so a bit that belongs to no destination element
 * keeps its value and no other work-item given other bytes writes these.
 * Where the destination runs with stride 1, whole bytes in the middle of a
 * run are assembled directly (byte copies, or shifted byte pairs, when the
 * source runs with stride 1 too). Needs a distinct destination. O(rank +
 * the elements in those bytes). */
NDX_FN void NDX_W(ndx_copy_bytes)(NDX_CONSTANT const ndx_pack_head *p,
                                  NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                  NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits, ndx_i64 b0,
                                  ndx_i64 b1) {
  int lg = ndx_sub_log2(bits);
  ndx_i64 i0 = NDX_W(ndx_count_below)(p, b0 << lg);
  ndx_i64 i1 = NDX_W(ndx_count_below)(p, b1 << lg);
  if (i0 >= i1) return;
  ndx_u32 per1 = (1u << lg) - 1u;
  NDX_W(ndx_odo) o;
  NDX_W(ndx_odo_start)(p, &o, (NDX_WORD)i0);
  int in = (int)p->rank - 1;
  NDX_WORD d = NDX_W(ndx_extent)(p, in);
  NDX_WORD sd = NDX_W(ndx_stride)(p, 0, in), ss = NDX_W(ndx_stride)(p, 1, in);
  ndx_i64 n = i1 - i0, cur = -1;
  ndx_u32 acc = 0, mask = 0;
  for (;;) {
    NDX_WORD j = o.index[in];
    NDX_WORD run = (NDX_WORD)ndx_min64(d - j, n);
    NDX_WORD pd = o.pos[0], ps = o.pos[1], t = 0;
    if (sd == 1) {
      for (; t < run && ((ndx_u32)pd & per1) != 0; t++, pd++, ps += ss)
        ndx_bits_put(dst, &cur, &acc, &mask, pd, ndx_load_bits(src, ps, bits), bits);
      NDX_WORD full = (run - t) >> lg;
      if (full > 0) {
        ndx_bits_flush(dst, cur, acc, mask);
        cur = -1;
        acc = mask = 0;
        NDX_GLOBAL ndx_u8 *q = dst + (pd >> lg);
        if (ss == 1) {
          ndx_i64 sb = (ndx_i64)ps * bits; /* the source's first bit */
          NDX_GLOBAL const ndx_u8 *r = src + (sb >> 3);
          ndx_u32 sh = (ndx_u32)(sb & 7);
          if (sh == 0) {
            for (NDX_WORD k = 0; k < full; k++) q[k] = r[k];
          } else { /* each byte straddles two source bytes, both in the span */
            for (NDX_WORD k = 0; k < full; k++)
              q[k] = (ndx_u8)((r[k] >> sh) | ((ndx_u32)r[k + 1] << (8u - sh)));
          }
          ps += full << lg;
        } else {
          for (NDX_WORD k = 0; k < full; k++) {
            ndx_u32 b = 0;
            for (ndx_u32 e = 0; e <= per1; e++, ps += ss)
              b |= ndx_load_bits(src, ps, bits) << (e * (ndx_u32)bits);
            q[k] = (ndx_u8)b;
          }
        }
        pd += full << lg;
        t += full << lg;
      }
    }
    for (; t < run; t++, pd += sd, ps += ss)
      ndx_bits_put(dst, &cur, &acc, &mask, pd, ndx_load_bits(src, ps, bits), bits);
    n -= run;
    if (n == 0) break;
    NDX_W(ndx_odo_next_row)(p, &o, j, sd, ss);
  }
  ndx_bits_flush(dst, cur, acc, mask);
}

/* The destination bytes a sub-byte copy covers: [*first, *end). */
NDX_FN void NDX_W(ndx_bytes_span)(NDX_CONSTANT const ndx_pack_head *p, int bits, ndx_i64 *first,
                                  ndx_i64 *end) {
  int lg = ndx_sub_log2(bits);
  ndx_i64 lo, hi;
  NDX_W(ndx_span)(p, 0, &lo, &hi);
  *first = lo >> lg;
  *end = ((hi - 1) >> lg) + 1;
}

/* Work-item `item` of a sub-byte copy: destination bytes [first +
 * item*chunk, first + (item+1)*chunk) clipped to the span's bytes. */
NDX_FN void NDX_W(ndx_copy_bytes_item)(NDX_CONSTANT const ndx_pack_head *p,
                                       NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                       NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                                       ndx_i64 item, ndx_i64 chunk) {
  ndx_i64 first, end;
  NDX_W(ndx_bytes_span)(p, bits, &first, &end);
  ndx_i64 b0 = first + item * chunk;
  if (b0 >= end) return;
  NDX_W(ndx_copy_bytes)(p, dst, src, bits, b0, ndx_min64(end, b0 + chunk));
}

#endif /* one index width */
