/* ndx_pack.h: the packed device form of one or more layouts.
 *
 * A kernel needs, for its operands, the shape they share and each one's
 * strides and offset, plus the numbers that let it turn a C-order index into
 * a multi-index without dividing. ndx packs exactly that, for the rank the
 * coalesced operands actually use, into one small blob that a launch passes as
 * a __constant buffer (two rank-32 int64 layouts exceed OpenCL's 1024-byte
 * parameter guarantee, docs/device.md section 1).
 *
 * This one header compiles as host C11, OpenCL C 1.2 and CUDA C++: it defines
 * the fixed-width integer types the device code uses (ndx_u8 .. ndx_u64,
 * ndx_i32, ndx_i64) for each language, the packed header, and the word
 * indices. The host packing calls are declared only outside OpenCL C.
 *
 * Packed form, version NDX_PACK_VERSION:
 *
 *   ndx_pack_head (32 bytes, 8-aligned)
 *   words, each an int32 (wide == 0) or an int64 (wide == 1):
 *     offset[nops]            offset of each operand, in elements
 *     extent[rank]            the shared extents
 *     magic[rank]             Granlund-Montgomery multiplier of each extent
 *     shift[rank]             its shift l = ceil(log2 extent)
 *     stride[nops][rank]      each operand's strides, in elements
 *
 * so its size is 32 + 8 * (nops + rank * (3 + nops)) bytes in the wide form
 * and half the words' bytes in the narrow one. Operand 0 is the destination
 * of a copy. rank >= 1 always (a single element packs as extent [1]).
 *
 * The 32-bit form is used exactly when the element count and every position
 * of every operand fit in int32: then every partial sum offset + sum i_a*s_a
 * a kernel forms is itself a position and fits too, so no kernel does 32-bit
 * index math past 2^31 (docs/device.md section 2, The two word widths).
 *
 * Magic numbers (unsigned division without a divide): for N-bit words
 * (N = 32 or 64) and extent d >= 1, l = ceil(log2 d),
 * m = floor(2^N * (2^l - d) / d) + 1, and for every n < 2^(N-1)
 *   n / d == (mulhi(m, n) + n) >> l
 * (the add cannot overflow since mulhi(m, n) < n). Indices are below 2^53
 * (wide) or 2^31 (narrow). No magic is built for extent 0: an empty pack has
 * extent [0], magic and shift 0, and nothing is ever launched for it. */
#ifndef NDX_PACK_H
#define NDX_PACK_H

/* Defined when compiled as OpenCL C (clang names it __OPENCL_C_VERSION__,
 * some vendors' compilers only __OPENCL_VERSION__). */
#if defined(__OPENCL_C_VERSION__) || defined(__OPENCL_VERSION__)
#define NDX_OPENCL_C 1
#endif

#if defined(NDX_OPENCL_C)
typedef uchar ndx_u8;
typedef ushort ndx_u16;
typedef int ndx_i32;
typedef uint ndx_u32;
typedef long ndx_i64;
typedef ulong ndx_u64;
#else
#include <stddef.h>
#include <stdint.h>
typedef uint8_t ndx_u8;
typedef uint16_t ndx_u16;
typedef int32_t ndx_i32;
typedef uint32_t ndx_u32;
typedef int64_t ndx_i64;
typedef uint64_t ndx_u64;
#endif

#define NDX_PACK_VERSION 1u

/* A reader checks `version` first, then `wide` against the form it was built
 * for and `size` against NDX_PACK_WORDS (docs/device.md, section 4). The
 * version changes with anything a reader of the old one would misread: the
 * head, the word order or meaning, the magic numbers, the rule for the 32-bit
 * form, the bit order. */

/* Most operands one pack holds, and most axes (NDX_MAX_RANK). */
#define NDX_PACK_MAX_OPS 8
#define NDX_PACK_MAX_RANK 32

/* The fixed part; the words follow it directly (at byte 32). */
typedef struct ndx_pack_head {
  ndx_u32 version; /* NDX_PACK_VERSION */
  ndx_u32 size;    /* bytes of the whole pack, words included */
  ndx_u32 rank;    /* axes, >= 1 */
  ndx_u32 nops;    /* operands, 1 .. NDX_PACK_MAX_OPS; 0 is a copy's destination */
  ndx_u32 bits;    /* element width: 1, 2, 4, 8, 16, 32, 64 or 128 */
  ndx_u32 wide;    /* 0: int32 words, 1: int64 words */
  ndx_i64 numel;   /* product of the extents */
} ndx_pack_head;

/* Word indices (not bytes) of the fields after the head. */
#define NDX_PACK_OFFSET(nops, rank, k) (k)
#define NDX_PACK_EXTENT(nops, rank, a) ((nops) + (a))
#define NDX_PACK_MAGIC(nops, rank, a) ((nops) + (rank) + (a))
#define NDX_PACK_SHIFT(nops, rank, a) ((nops) + 2 * (rank) + (a))
#define NDX_PACK_STRIDE(nops, rank, k, a) ((nops) + (3 + (k)) * (rank) + (a))
#define NDX_PACK_WORDS(nops, rank) ((nops) + (rank) * (3 + (nops)))

/* Bytes a pack of `nops` operands and `rank` axes takes at most (wide form);
 * a buffer this large (and 8-aligned) always suffices. */
#define NDX_PACK_MAX_BYTES(nops, rank) (32 + 8 * NDX_PACK_WORDS(nops, rank))

/* One definition for every language: the host checks it here, kernels/
 * ndx_probe.cl reports the device's view and tests compare the two. */
#if !defined(NDX_OPENCL_C)
#if defined(__cplusplus)
#define NDX_PACK_ASSERT(c, m) static_assert(c, m)
#else
#define NDX_PACK_ASSERT(c, m) _Static_assert(c, m)
#endif
NDX_PACK_ASSERT(sizeof(ndx_pack_head) == 32, "ndx_pack_head is 32 bytes");
NDX_PACK_ASSERT(offsetof(ndx_pack_head, version) == 0, "version at 0");
NDX_PACK_ASSERT(offsetof(ndx_pack_head, size) == 4, "size at 4");
NDX_PACK_ASSERT(offsetof(ndx_pack_head, rank) == 8, "rank at 8");
NDX_PACK_ASSERT(offsetof(ndx_pack_head, nops) == 12, "nops at 12");
NDX_PACK_ASSERT(offsetof(ndx_pack_head, bits) == 16, "bits at 16");
NDX_PACK_ASSERT(offsetof(ndx_pack_head, wide) == 20, "wide at 20");
NDX_PACK_ASSERT(offsetof(ndx_pack_head, numel) == 24, "numel at 24");
#endif

/* ---- Host packing ------------------------------------------------------ */
#if !defined(NDX_OPENCL_C)
#include "ndx_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Packs the `n` layouts `layouts[0..n-1]` (one shape) for elements of `bits`
 * bits into `buf`: they are coalesced together (ndx_coalesce) and written in
 * that axis order, so the pack's C order is theirs; the 32-bit form when it
 * fits, else the 64-bit one. `*used` gets the bytes written. `buf` must be
 * 8-byte aligned; NDX_PACK_MAX_BYTES(n, rank) bytes always suffice.
 * Returns NDX_OK; NDX_EINVAL for NULL pointers, a misaligned `buf`, n outside
 * [1, NDX_PACK_MAX_OPS], a layout no ndx_ call makes, a width outside
 * {1,2,4,8,16,32,64,128} or shapes that differ; NDX_ERANGE when `size` is
 * smaller than the pack. On failure nothing is written. O(n * rank), no allocation. */
NDX_API ndx_status ndx_pack(void *buf, size_t size, size_t *used, int n, const ndx_layout *layouts,
                            int bits);

/* Packs a copy of element i (C order) of `src` to element i of `dst` as two
 * operands (0: dst, 1: src), normalized for the destination: the pair is
 * coalesced, every axis whose destination stride is negative is flipped in
 * both operands, the axes are ordered by destination stride, largest first
 * (stable), and adjacent axes are merged again. A copy is a bijection of
 * indices, so flipping or permuting an axis in both operands keeps every
 * (source position, destination position) pair: the pack copies exactly what
 * the layouts say, though in another order. After it, destination strides
 * are >= 0 and non-increasing, and when `dst` is distinct the destination
 * positions increase strictly in the pack's C order.
 * Returns what ndx_pack does (n = 2). O(rank^2) on at most 32 axes, under a
 * microsecond at rank 8, no allocation. */
NDX_API ndx_status ndx_pack_copy(void *buf, size_t size, size_t *used, const ndx_layout *dst,
                                 const ndx_layout *src, int bits);

/* Reorders the axes of the pack in `buf` (every operand alike): new axis i is
 * old axis perm[i], magic numbers included; the form stays. On a copy's pack
 * this changes the order elements are visited in, never which source
 * element goes where. Returns NDX_OK; NDX_EINVAL for NULL pointers, a
 * misaligned `buf`, a pack of another version or with a rank outside [1,
 * NDX_MAX_RANK] or operands outside [1, NDX_PACK_MAX_OPS], or a `perm` that is
 * not a permutation of 0 .. rank-1; NDX_ERANGE when the pack's words do not
 * fit its form (a pack whose words were written by hand).
 * O(nops * rank), no allocation. */
NDX_API ndx_status ndx_pack_permute(void *buf, const int32_t *perm);

/* Rewrites the pack in `buf` (of `size` bytes) in the 64-bit form, whatever
 * form it has; `*used` gets its new size. For tests and benchmarks of the
 * 64-bit kernels on small data. Returns NDX_OK; NDX_EINVAL for NULL pointers,
 * a misaligned `buf`, or a pack of another version or with a rank or operand
 * count out of range (as ndx_pack_permute); NDX_ERANGE when `size` is too small (the pack
 * is then untouched). O(nops * rank), no allocation. */
NDX_API ndx_status ndx_pack_widen(void *buf, size_t size, size_t *used);

/* The magic multiplier and shift for dividing indices by `d` (1 <= d <=
 * NDX_MAX_NUMEL) with `nbits`-bit words (32 or 64), as the packed form holds
 * them; nbits 32 needs d <= INT32_MAX. Returns true, or false (writing
 * nothing) for other arguments and NULL pointers. O(1), no allocation. */
NDX_API bool ndx_pack_magic(int64_t d, int nbits, uint64_t *magic, int *shift);

#ifdef __cplusplus
}
#endif
#endif /* !NDX_OPENCL_C */

#endif /* NDX_PACK_H */
