/* ndx_device.h: what a kernel of the user's needs to find its elements in
 * the packed form (ndx_pack.h): pure functions, shared by OpenCL C 1.2,
 * CUDA C++, HIP C++ (hipcc; the CUDA branch below, which includes
 * hip/hip_runtime.h for it) and host C11/C++ unchanged.
 *
 * A kernel takes a pack (made on the host by ndx_pack or ndx_pack_copy) and
 * its buffers, and turns its work-item id into element positions with:
 *   pack access      ndx_word, ndx_offset, ndx_extent, ndx_magic, ndx_shift,
 *                    ndx_stride; ndx_div (n / d by d's magic pair)
 *   index to         ndx_position, ndx_position_lead, ndx_unravel,
 *   position         ndx_index_position, ndx_span: a C-order index to
 *                    positions by magic numbers, without dividing
 *   the odometer     ndx_odo with ndx_odo_start, ndx_odo_carry, ndx_odo_next,
 *                    ndx_odo_next_row: consecutive indices by adding strides;
 *                    ndx_odo_carry_ops: the same for any number of operands
 *   ndx_count_below  the C-order indices whose destination position is
 *                    below a bound (a distinct destination)
 *   bytes and bits   ndx_byte_of, ndx_shift_of, ndx_sub_log2
 *   elements         ndx_load8 .. ndx_load128, ndx_store8 .. ndx_store128,
 *                    ndx_load_bits and ndx_store_bits (1, 2 and 4 bits),
 *                    ndx_copy_elem
 *   index elements   ndx_load_index, ndx_index_value, ndx_indexed_position:
 *                    what a gather or scatter kernel of the user's needs
 * For example, an OpenCL kernel that negates int elements, operand 0 the
 * output and 1 the input of a two-operand pack:
 *   __kernel void neg(__constant const ndx_pack_head *p, __global uchar *out,
 *                     __global const uchar *in) {
 *     long i = get_global_id(0);
 *     if (i >= p->numel) return;
 *     NDX_WORD d = NDX_W(ndx_position)(p, 0, (NDX_WORD)i);
 *     NDX_WORD s = NDX_W(ndx_position)(p, 1, (NDX_WORD)i);
 *     ndx_store32(out, d, (uint)-(int)ndx_load32(in, s));
 *   }
 * docs/device.md section 5 lists every function, with complete kernels.
 * ndx's own copy routines (tiles, vector blocks, byte-range copies) are not
 * here but in kernels/ndx_copy_items.h, private to ndx's kernels.
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
 * and, for kernels whose work-items cooperate through local memory (ndx's
 * GPU-shaped copies), in OpenCL C and CUDA/HIP only:
 *   NDX_LOCAL       address space of a pointer into work-group memory
 *                                                (__local / nothing)
 *   NDX_SHARED      declares a work-group array   (__local / __shared__)
 *   NDX_BARRIER()   every work-item of the group reaches it before any goes
 *                   on, its local writes seen    (barrier(CLK_LOCAL_MEM_FENCE) /
 *                                                 __syncthreads())
 *   NDX_LOCAL_ID    the work-item in its group   (get_local_id(0) / threadIdx.x)
 *   NDX_LOCAL_SIZE  work-items a group has       (get_local_size(0) / blockDim.x)
 *   NDX_GROUP_ID    the group in the launch      (get_group_id(0) / blockIdx.x)
 *   NDX_GROUPS      groups the launch has        (get_num_groups(0) / gridDim.x)
 * (one dimension; the host C branch has none of these, and a host emulation
 * defines them before including this header, as any of the macros above
 * may be, to run a kernel's phases between barriers work-item by work-item).
 * Each macro may be defined before this header is included; ndx_u128 and the
 * mulhi helper functions come with their language's branch; docs/porting.md
 * lists what a port provides. OpenCL C 1.2 has no generic address space, so
 * every pointer below is either NDX_GLOBAL, NDX_CONSTANT, or private (the
 * odometer and index arrays, never into a buffer).
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
 * read words come in two forms, name_w32 and name_w64 (ndx_position_w32,
 * ndx_position_w64). Define NDX_WIDE to 0 or 1 before including to get one
 * form (a kernel program is built once per form); on the host, in CUDA and HIP
 * the header may be included twice, with NDX_WIDE 0 and then 1, to get
 * both. Default: 1. Every function of one form must be given a pack of that
 * form.
 * The form of the last inclusion is also reachable by the names a kernel
 * written once for both forms uses: NDX_W(ndx_position) or ndx_position_wN,
 * of word type NDX_WORD (ndx_i32 or ndx_i64). The definitions below are
 * written with the _wN names, and one list at the start of the form section
 * names both forms of each on one line,
 *   #define ndx_position_wN NDX_WN(ndx_position_w32, ndx_position_w64)
 * so that grep or ctags find ndx_position_w64 there and ndx_position_wN at
 * its definition; NDX_WN(w32, w64) picks the name of the form NDX_WIDE
 * selects, again at each inclusion.
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
#ifndef NDX_LOCAL
#define NDX_LOCAL __local
#endif
#ifndef NDX_SHARED
#define NDX_SHARED __local
#endif
#ifndef NDX_BARRIER
#define NDX_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#endif
#ifndef NDX_LOCAL_ID
#define NDX_LOCAL_ID ((ndx_i64)get_local_id(0))
#endif
#ifndef NDX_LOCAL_SIZE
#define NDX_LOCAL_SIZE ((ndx_i64)get_local_size(0))
#endif
#ifndef NDX_GROUP_ID
#define NDX_GROUP_ID ((ndx_i64)get_group_id(0))
#endif
#ifndef NDX_GROUPS
#define NDX_GROUPS ((ndx_i64)get_num_groups(0))
#endif

#elif defined(__CUDACC__) || defined(__HIPCC__)
#if defined(__HIPCC__) && !defined(__CUDACC__)
/* HIP-Clang, unlike nvcc, declares the runtime's types (ulonglong2) and
 * qualifiers (__forceinline__) only in its runtime header. */
#include <hip/hip_runtime.h>
#endif
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
#ifndef NDX_LOCAL
#define NDX_LOCAL
#endif
#ifndef NDX_SHARED
#define NDX_SHARED __shared__
#endif
/* __syncthreads in the device pass; nothing in the host pass of a
 * __host__ __device__ function, where no work-group exists. */
NDX_FN void ndx_cuda_barrier(void) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  __syncthreads();
#endif
}
#ifndef NDX_BARRIER
#define NDX_BARRIER() ndx_cuda_barrier()
#endif
#ifndef NDX_LOCAL_ID
#define NDX_LOCAL_ID ((ndx_i64)threadIdx.x)
#endif
#ifndef NDX_LOCAL_SIZE
#define NDX_LOCAL_SIZE ((ndx_i64)blockDim.x)
#endif
#ifndef NDX_GROUP_ID
#define NDX_GROUP_ID ((ndx_i64)blockIdx.x)
#endif
#ifndef NDX_GROUPS
#define NDX_GROUPS ((ndx_i64)gridDim.x)
#endif
NDX_FN ndx_u32 ndx_cuda_mulhi32(ndx_u32 a, ndx_u32 b) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __umulhi(a, b);
#else
  return (ndx_u32)(((ndx_u64)a * b) >> 32);
#endif
}
NDX_FN ndx_u64 ndx_cuda_mulhi64(ndx_u64 a, ndx_u64 b) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
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
/* Positions handed to loads and stores are in elements of the given width. */
typedef ndx_i64 ndx_pos;

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

/* ---- Index elements (gather and scatter, ndx/ndx_index.h) -------------------- */

/* The index element at position `pos` of an index buffer of `index_bits`
 * (32 or 64) signed bits, sign-extended. */
NDX_FN ndx_i64 ndx_load_index(NDX_GLOBAL const ndx_u8 *base, ndx_pos pos, int index_bits) {
  return index_bits == 32 ? (ndx_i64)(ndx_i32)ndx_load32(base, pos)
                          : (ndx_i64)ndx_load64(base, pos);
}

/* Index value v as a coordinate of an axis of extent d >= 0: v itself when
 * 0 <= v < d; with `wrap`, v + d when -d <= v < 0 (NDX_INDEX_WRAP); -1 for
 * anything else. Any int64 v, INT64_MIN included, without overflow. */
NDX_FN ndx_i64 ndx_index_value(ndx_i64 v, ndx_i64 d, int wrap) {
  ndx_i64 w = wrap && v < 0 ? v + d : v; /* v < 0: no overflow */
  return (ndx_u64)w < (ndx_u64)d ? w : -1;
}

#endif /* NDX_DEVICE_H */

/* ==== Functions that read pack words, once per index form ================= */
#ifndef NDX_WIDE
#define NDX_WIDE 1
#endif

/* The name of the form NDX_WIDE selects, set again at each inclusion: every
 * name below follows the last one. */
#undef NDX_WN
#if NDX_WIDE
#define NDX_WN(w32, w64) w64
#else
#define NDX_WN(w32, w64) w32
#endif

#ifndef NDX_DEVICE_H_WN
#define NDX_DEVICE_H_WN
#define NDX_W(name) NDX_WN(name##_w32, name##_w64)
#define NDX_WORD NDX_WN(ndx_i32, ndx_i64)
#define NDX_UWORD NDX_WN(ndx_u32, ndx_u64)
#define NDX_MULHI(a, b) NDX_WN(ndx_mulhi32, ndx_mulhi64)(a, b)
#define ndx_word_wN NDX_WN(ndx_word_w32, ndx_word_w64)
#define ndx_offset_wN NDX_WN(ndx_offset_w32, ndx_offset_w64)
#define ndx_extent_wN NDX_WN(ndx_extent_w32, ndx_extent_w64)
#define ndx_magic_wN NDX_WN(ndx_magic_w32, ndx_magic_w64)
#define ndx_shift_wN NDX_WN(ndx_shift_w32, ndx_shift_w64)
#define ndx_stride_wN NDX_WN(ndx_stride_w32, ndx_stride_w64)
#define ndx_div_wN NDX_WN(ndx_div_w32, ndx_div_w64)
#define ndx_position_lead_wN NDX_WN(ndx_position_lead_w32, ndx_position_lead_w64)
#define ndx_position_wN NDX_WN(ndx_position_w32, ndx_position_w64)
#define ndx_unravel_wN NDX_WN(ndx_unravel_w32, ndx_unravel_w64)
#define ndx_index_position_wN NDX_WN(ndx_index_position_w32, ndx_index_position_w64)
#define ndx_span_wN NDX_WN(ndx_span_w32, ndx_span_w64)
#define ndx_odo_wN NDX_WN(ndx_odo_w32, ndx_odo_w64)
#define ndx_odo_carry_ops_wN NDX_WN(ndx_odo_carry_ops_w32, ndx_odo_carry_ops_w64)
#define ndx_odo_start_wN NDX_WN(ndx_odo_start_w32, ndx_odo_start_w64)
#define ndx_odo_carry_wN NDX_WN(ndx_odo_carry_w32, ndx_odo_carry_w64)
#define ndx_odo_next_wN NDX_WN(ndx_odo_next_w32, ndx_odo_next_w64)
#define ndx_odo_next_row_wN NDX_WN(ndx_odo_next_row_w32, ndx_odo_next_row_w64)
#define ndx_count_below_wN NDX_WN(ndx_count_below_w32, ndx_count_below_w64)
#define ndx_indexed_position_wN NDX_WN(ndx_indexed_position_w32, ndx_indexed_position_w64)
#endif

#if (NDX_WIDE && !defined(NDX_DEVICE_H_W64)) || (!NDX_WIDE && !defined(NDX_DEVICE_H_W32))
#if NDX_WIDE
#define NDX_DEVICE_H_W64
#else
#define NDX_DEVICE_H_W32
#endif

/* ---- Reading the pack ---------------------------------------------------- */

NDX_FN NDX_WORD ndx_word_wN(NDX_CONSTANT const ndx_pack_head *p, ndx_u32 i) {
  return ((NDX_CONSTANT const NDX_WORD *)(p + 1))[i];
}
NDX_FN NDX_WORD ndx_offset_wN(NDX_CONSTANT const ndx_pack_head *p, int k) {
  return ndx_word_wN(p, (ndx_u32)NDX_PACK_OFFSET(p->nops, p->rank, k));
}
NDX_FN NDX_WORD ndx_extent_wN(NDX_CONSTANT const ndx_pack_head *p, int a) {
  return ndx_word_wN(p, (ndx_u32)NDX_PACK_EXTENT(p->nops, p->rank, a));
}
NDX_FN NDX_UWORD ndx_magic_wN(NDX_CONSTANT const ndx_pack_head *p, int a) {
  return (NDX_UWORD)ndx_word_wN(p, (ndx_u32)NDX_PACK_MAGIC(p->nops, p->rank, a));
}
NDX_FN int ndx_shift_wN(NDX_CONSTANT const ndx_pack_head *p, int a) {
  return (int)ndx_word_wN(p, (ndx_u32)NDX_PACK_SHIFT(p->nops, p->rank, a));
}
NDX_FN NDX_WORD ndx_stride_wN(NDX_CONSTANT const ndx_pack_head *p, int k, int a) {
  return ndx_word_wN(p, (ndx_u32)NDX_PACK_STRIDE(p->nops, p->rank, k, a));
}

/* n / d by the magic pair (m, l) of d: exact for n < 2^(N-1) (ndx_pack.h). */
NDX_FN NDX_WORD ndx_div_wN(NDX_WORD n, NDX_UWORD m, int l) {
  NDX_UWORD u = (NDX_UWORD)n;
  return (NDX_WORD)((NDX_MULHI(m, u) + u) >> l);
}

/* ---- Index to position --------------------------------------------------- */

/* The position in operand k of C-order index i over the first `lead` axes
 * (the others at 0): offset + sum over a < lead of i_a * s_a. i must be below
 * the product of those extents. lead - 1 magic divisions, no divide. */
NDX_FN NDX_WORD ndx_position_lead_wN(NDX_CONSTANT const ndx_pack_head *p, int k, NDX_WORD i,
                                     int lead) {
  NDX_WORD pos = ndx_offset_wN(p, k);
  for (int a = lead - 1; a > 0; a--) {
    NDX_WORD q = ndx_div_wN(i, ndx_magic_wN(p, a), ndx_shift_wN(p, a));
    pos += (i - q * ndx_extent_wN(p, a)) * ndx_stride_wN(p, k, a);
    i = q;
  }
  if (lead > 0) pos += i * ndx_stride_wN(p, k, 0);
  return pos;
}

/* The position in operand k of C-order index i (0 <= i < numel). rank - 1
 * magic divisions, no divide. */
NDX_FN NDX_WORD ndx_position_wN(NDX_CONSTANT const ndx_pack_head *p, int k, NDX_WORD i) {
  return ndx_position_lead_wN(p, k, i, (int)p->rank);
}

/* The multi-index of C-order index i, into index[0 .. rank-1]. rank - 1
 * magic divisions. */
NDX_FN void ndx_unravel_wN(NDX_CONSTANT const ndx_pack_head *p, NDX_WORD i, NDX_WORD *index) {
  for (int a = (int)p->rank - 1; a > 0; a--) {
    NDX_WORD q = ndx_div_wN(i, ndx_magic_wN(p, a), ndx_shift_wN(p, a));
    index[a] = i - q * ndx_extent_wN(p, a);
    i = q;
  }
  index[0] = i;
}

/* The position in operand k of a multi-index (each 0 <= index[a] < extent).
 * O(rank). */
NDX_FN NDX_WORD ndx_index_position_wN(NDX_CONSTANT const ndx_pack_head *p, int k,
                                      const NDX_WORD *index) {
  NDX_WORD pos = ndx_offset_wN(p, k);
  for (int a = 0; a < (int)p->rank; a++) pos += index[a] * ndx_stride_wN(p, k, a);
  return pos;
}

/* The smallest and one past the largest position of operand k; every partial
 * sum between them. O(rank). */
NDX_FN void ndx_span_wN(NDX_CONSTANT const ndx_pack_head *p, int k, ndx_i64 *lo, ndx_i64 *hi) {
  ndx_i64 l = ndx_offset_wN(p, k), h = l;
  for (int a = 0; a < (int)p->rank; a++) {
    ndx_i64 r = (ndx_i64)(ndx_extent_wN(p, a) - 1) * ndx_stride_wN(p, k, a);
    if (r < 0)
      l += r;
    else
      h += r;
  }
  *lo = l;
  *hi = h + 1;
}

/* ---- Stepping ---------------------------------------------------------------- */

/* An odometer over the pack's indices in C order: a multi-index,
 * index[0 .. rank-1], and the positions pos[0 .. n-1] of operands 0 .. n-1
 * at it (n <= nops). Stepping adds strides; a carry subtracts
 * (extent-1)*stride, so every intermediate value is a position of its
 * operand and fits the form's words. ndx_odo_carry_ops steps arrays of the
 * caller's, started by ndx_unravel and ndx_index_position; ndx_odo holds
 * them for operands 0 and 1 (pos[1] 0 when the pack has one operand). */
typedef struct ndx_odo_wN {
  NDX_WORD index[NDX_PACK_MAX_RANK];
  NDX_WORD pos[2];
} ndx_odo_wN;

/* Advances the index formed by axes 0 .. a by one (axes after a untouched),
 * carrying outwards, and pos[0 .. n-1] with it (n <= nops). Returns 0 when
 * it wrapped past the last index (every axis up to a back at 0), 1
 * otherwise. O(n * a) at worst, O(n) amortized over a walk. */
NDX_FN int ndx_odo_carry_ops_wN(NDX_CONSTANT const ndx_pack_head *p, NDX_WORD *index, NDX_WORD *pos,
                                int n, int a) {
  for (; a >= 0; a--) {
    NDX_WORD d = ndx_extent_wN(p, a);
    if (index[a] + 1 < d) {
      index[a]++;
      for (int k = 0; k < n; k++) pos[k] += ndx_stride_wN(p, k, a);
      return 1;
    }
    index[a] = 0;
    for (int k = 0; k < n; k++) pos[k] -= (d - 1) * ndx_stride_wN(p, k, a);
  }
  return 0;
}

/* Starts `o` at C-order index i (0 <= i < numel). rank - 1 magic divisions
 * and O(rank) multiply-adds. */
NDX_FN void ndx_odo_start_wN(NDX_CONSTANT const ndx_pack_head *p, ndx_odo_wN *o, NDX_WORD i) {
  ndx_unravel_wN(p, i, o->index);
  o->pos[0] = ndx_index_position_wN(p, 0, o->index);
  o->pos[1] = p->nops > 1 ? ndx_index_position_wN(p, 1, o->index) : 0;
}

/* ndx_odo_carry_ops on `o`. */
NDX_FN int ndx_odo_carry_wN(NDX_CONSTANT const ndx_pack_head *p, ndx_odo_wN *o, int a) {
  return ndx_odo_carry_ops_wN(p, o->index, o->pos, p->nops > 1 ? 2 : 1, a);
}

/* Advances `o` to the next C-order index. */
NDX_FN int ndx_odo_next_wN(NDX_CONSTANT const ndx_pack_head *p, ndx_odo_wN *o) {
  return ndx_odo_carry_wN(p, o, (int)p->rank - 1);
}

/* After a run from index j of the innermost axis to the end of its row (sd
 * and ss that axis's strides): back to the row's start, then one step on the
 * outer axes. */
NDX_FN void ndx_odo_next_row_wN(NDX_CONSTANT const ndx_pack_head *p, ndx_odo_wN *o, NDX_WORD j,
                                NDX_WORD sd, NDX_WORD ss) {
  int in = (int)p->rank - 1;
  o->pos[0] -= j * sd;
  o->pos[1] -= j * ss;
  o->index[in] = 0;
  ndx_odo_carry_wN(p, o, in - 1);
}

/* The number of C-order indices whose operand-0 position is below P, for a
 * pack whose operand-0 strides are >= 0, non-increasing and distinct (each
 * above the reach of the axes after it), as ndx_pack_copy leaves a distinct
 * destination. Then positions increase with the index, so the indices with
 * position in [P0, P1) are the C-order range [count(P0), count(P1)).
 * O(rank), about 2*rank divisions, 64-bit. */
NDX_FN ndx_i64 ndx_count_below_wN(NDX_CONSTANT const ndx_pack_head *p, ndx_i64 P) {
  ndx_i64 rem = P - ndx_offset_wN(p, 0);
  if (rem <= 0) return 0;
  ndx_i64 c = 0, inner = p->numel;
  for (int a = 0; a < (int)p->rank; a++) {
    ndx_i64 d = ndx_extent_wN(p, a), s = ndx_stride_wN(p, 0, a);
    inner /= d; /* extents after a */
    ndx_i64 q = s > 0 ? rem / s : 0;
    if (q >= d) return c + d * inner;
    c += q * inner;
    rem -= q * s;
  }
  return c + (rem > 0 ? 1 : 0);
}

/* ---- Gather and scatter positions ------------------------------------------- */

/* The position in operand k of C-order index i with the coordinate on one
 * axis replaced by index value v: a gather's source element or a scatter's
 * destination element. Operand k is packed with stride 0 on that axis (its
 * layout narrowed to extent 1 there and broadcast to S), `stride` and `d` are
 * the axis's stride and extent in the layout itself, and `wrap` is as in
 * ndx_index_value. Returns -1 when v is no coordinate of the axis. rank - 1
 * magic divisions. */
NDX_FN ndx_i64 ndx_indexed_position_wN(NDX_CONSTANT const ndx_pack_head *p, int k, NDX_WORD i,
                                       ndx_i64 v, ndx_i64 d, ndx_i64 stride, int wrap) {
  ndx_i64 c = ndx_index_value(v, d, wrap);
  return c < 0 ? -1 : (ndx_i64)ndx_position_wN(p, k, i) + c * stride;
}

#endif /* one index form */
