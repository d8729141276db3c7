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
 *   NDX_KERNEL    a kernel entry point            (__kernel / extern "C" __global__)
 *   NDX_RESTRICT  a pointer that aliases no other (restrict / __restrict__)
 *   ndx_mulhi32(a, b), ndx_mulhi64(a, b)
 *                 high half of the unsigned product (mul_hi / __umulhi,
 *                 __umul64hi / a 128-bit product on the host)
 *   ndx_u128      a 16-byte element with fields .x (low) and .y (high)
 *                 (ulong2 / ulonglong2 / a struct)
 * Each may be defined before this header is included; nothing else in it
 * names a language feature. OpenCL C 1.2 has no generic address space, so
 * every pointer below is either NDX_GLOBAL, NDX_CONSTANT, or private (the
 * odometer and index arrays, never into a buffer).
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
 * bit r (least significant first) of byte q (REFERENCE.md section 1). */
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

/* Side of the square tile a transpose work-item copies. */
#ifndef NDX_TILE
#define NDX_TILE 8
#endif

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

/* The position in operand k of C-order index i (0 <= i < numel). */
NDX_FN NDX_WORD NDX_W(ndx_position)(NDX_CONSTANT const ndx_pack_head *p, int k, NDX_WORD i) {
  return NDX_W(ndx_position_lead)(p, k, i, (int)p->rank);
}

/* The multi-index of C-order index i, into index[0 .. rank-1]. */
NDX_FN void NDX_W(ndx_unravel)(NDX_CONSTANT const ndx_pack_head *p, NDX_WORD i, NDX_WORD *index) {
  for (int a = (int)p->rank - 1; a > 0; a--) {
    NDX_WORD q = NDX_W(ndx_div)(i, NDX_W(ndx_magic)(p, a), NDX_W(ndx_shift)(p, a));
    index[a] = i - q * NDX_W(ndx_extent)(p, a);
    i = q;
  }
  index[0] = i;
}

/* The position in operand k of a multi-index (each 0 <= index[a] < extent). */
NDX_FN NDX_WORD NDX_W(ndx_index_position)(NDX_CONSTANT const ndx_pack_head *p, int k,
                                          const NDX_WORD *index) {
  NDX_WORD pos = NDX_W(ndx_offset)(p, k);
  for (int a = 0; a < (int)p->rank; a++) pos += index[a] * NDX_W(ndx_stride)(p, k, a);
  return pos;
}

/* The smallest and one past the largest position of operand k; every partial
 * sum between them. */
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

/* Starts `o` at C-order index i (0 <= i < numel). */
NDX_FN void NDX_W(ndx_odo_start)(NDX_CONSTANT const ndx_pack_head *p, NDX_W(ndx_odo) * o,
                                 NDX_WORD i) {
  NDX_W(ndx_unravel)(p, i, o->index);
  o->pos[0] = NDX_W(ndx_index_position)(p, 0, o->index);
  o->pos[1] = p->nops > 1 ? NDX_W(ndx_index_position)(p, 1, o->index) : 0;
}

/* Advances the index formed by axes 0 .. a by one (axes after a untouched),
 * carrying outwards. Returns 0 when it wrapped past the last index (every
 * axis up to a back at 0), 1 otherwise. */
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
 * sd == ss == 1, so that the loop is a plain, vectorizable block copy. */
#define NDX_RUN_LOOP(T)                                                                            \
  {                                                                                                \
    NDX_GLOBAL T *NDX_RESTRICT d_ = (NDX_GLOBAL T *)dst + pd;                                      \
    NDX_GLOBAL const T *NDX_RESTRICT s_ = (NDX_GLOBAL const T *)src + ps;                          \
    if (unit || (sd == 1 && ss == 1)) {                                                            \
      for (NDX_WORD t = 0; t < n; t++) d_[t] = s_[t];                                              \
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
#undef NDX_RUN_LOOP

/* Copies C-order elements [i0, i1) (bits >= 8): one start by magic division,
 * then runs along the innermost axis with a carry between runs. `unit` (a
 * constant) promises innermost strides of 1 on both sides. */
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
    /* the row is done (j + run == d) and another follows: back to its start,
     * then one step on the outer axes */
    o.pos[0] -= j * sd;
    o.pos[1] -= j * ss;
    o.index[in] = 0;
    NDX_W(ndx_odo_carry)(p, &o, in - 1);
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

/* Copies one NDX_TILE x NDX_TILE tile (bits >= 8) of a pack of rank >= 2:
 * rows ti*NDX_TILE.. of axis rank-2, columns tj*NDX_TILE.. of axis rank-1,
 * at C-order index `batch` of the axes before them. A transpose pack puts
 * the destination's unit-stride axis last and the source's second-to-last, so
 * the tile is read down its columns and written along its rows, each through
 * a few cache lines. Edge tiles are clipped. */
#define NDX_TILE_LOOP(T)                                                                           \
  {                                                                                                \
    NDX_GLOBAL T *NDX_RESTRICT d_ = (NDX_GLOBAL T *)dst + pd;                                      \
    NDX_GLOBAL const T *NDX_RESTRICT s_ = (NDX_GLOBAL const T *)src + ps;                          \
    if (ni == NDX_TILE && nj == NDX_TILE) {                                                        \
      for (int i = 0; i < NDX_TILE; i++)                                                           \
        for (int j = 0; j < NDX_TILE; j++) d_[i * sdi + j * sdj] = s_[i * ssi + j * ssj];          \
    } else {                                                                                       \
      for (int i = 0; i < ni; i++)                                                                 \
        for (int j = 0; j < nj; j++) d_[i * sdi + j * sdj] = s_[i * ssi + j * ssj];                \
    }                                                                                              \
  }
NDX_FN void NDX_W(ndx_copy_tile)(NDX_CONSTANT const ndx_pack_head *p,
                                 NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                 NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                                 NDX_WORD batch, NDX_WORD ti, NDX_WORD tj) {
  int r = (int)p->rank;
  NDX_WORD di = NDX_W(ndx_extent)(p, r - 2), dj = NDX_W(ndx_extent)(p, r - 1);
  NDX_WORD i0 = ti * NDX_TILE, j0 = tj * NDX_TILE;
  if (i0 >= di || j0 >= dj) return;
  int ni = (int)(di - i0 < NDX_TILE ? di - i0 : NDX_TILE);
  int nj = (int)(dj - j0 < NDX_TILE ? dj - j0 : NDX_TILE);
  NDX_WORD sdi = NDX_W(ndx_stride)(p, 0, r - 2), sdj = NDX_W(ndx_stride)(p, 0, r - 1);
  NDX_WORD ssi = NDX_W(ndx_stride)(p, 1, r - 2), ssj = NDX_W(ndx_stride)(p, 1, r - 1);
  NDX_WORD pd = NDX_W(ndx_position_lead)(p, 0, batch, r - 2) + i0 * sdi + j0 * sdj;
  NDX_WORD ps = NDX_W(ndx_position_lead)(p, 1, batch, r - 2) + i0 * ssi + j0 * ssj;
  switch (bits) {
  case 8:
    NDX_TILE_LOOP(ndx_u8) break;
  case 16:
    NDX_TILE_LOOP(ndx_u16) break;
  case 32:
    NDX_TILE_LOOP(ndx_u32) break;
  case 64:
    NDX_TILE_LOOP(ndx_u64) break;
  default:
    NDX_TILE_LOOP(ndx_u128) break;
  }
}
#undef NDX_TILE_LOOP

/* The number of tiles of a tile copy: batches * tile rows * tile columns. */
NDX_FN ndx_i64 NDX_W(ndx_tile_count)(NDX_CONSTANT const ndx_pack_head *p) {
  int r = (int)p->rank;
  ndx_i64 di = NDX_W(ndx_extent)(p, r - 2), dj = NDX_W(ndx_extent)(p, r - 1);
  if (p->numel == 0) return 0;
  return p->numel / (di * dj) * ((di + NDX_TILE - 1) / NDX_TILE) * ((dj + NDX_TILE - 1) / NDX_TILE);
}

/* Work-item `item` of a tile copy: tile columns vary fastest, then tile rows,
 * then batches; items past the last tile do nothing. */
NDX_FN void NDX_W(ndx_copy_tile_item)(NDX_CONSTANT const ndx_pack_head *p,
                                      NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                      NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                                      ndx_i64 item) {
  int r = (int)p->rank;
  ndx_i64 di = NDX_W(ndx_extent)(p, r - 2), dj = NDX_W(ndx_extent)(p, r - 1);
  ndx_i64 tj = (dj + NDX_TILE - 1) / NDX_TILE, ti = (di + NDX_TILE - 1) / NDX_TILE;
  ndx_i64 row = item / tj, batch = row / ti;
  if (batch >= p->numel / (di * dj)) return;
  NDX_W(ndx_copy_tile)
  (p, dst, src, bits, (NDX_WORD)batch, (NDX_WORD)(row - batch * ti), (NDX_WORD)(item - row * tj));
}

/* Copies into the destination bytes [b0, b1) for a sub-byte width (1, 2, 4):
 * the elements whose destination position falls in those bytes are one
 * C-order range (ndx_count_below); their bits are gathered per byte and each
 * byte is written once, so a bit that belongs to no destination element
 * keeps its value and no other work-item given other bytes writes these.
 * Where the destination runs with stride 1, whole bytes in the middle of a
 * run are assembled directly (byte copies, or shifted byte pairs, when the
 * source runs with stride 1 too). Needs a distinct destination. */
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
    o.pos[0] -= j * sd;
    o.pos[1] -= j * ss;
    o.index[in] = 0;
    NDX_W(ndx_odo_carry)(p, &o, in - 1);
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
