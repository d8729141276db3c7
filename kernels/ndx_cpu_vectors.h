/* ndx_cpu_vectors.h: what makes the cpu shape of ndx's copy and index
 * bodies (ndx_copy_cpu.h, ndx_index_items.h: a work-item copies a long run
 * or a whole tile by itself) fast on a CPU device (PoCL).
 * Private to ndx, as ndx_copy_items.h, which includes it after
 * ndx_copy_geometry.h; ndx_copy_cpu.h and ndx_index_items.h use what is
 * here.
 *
 *   x86      prefetches (NDX_PREFETCH, NDX_PREFETCHES) and streaming stores
 *            (NDX_STREAM, ndx_stream_bytes, ndx_stream_fence): the only
 *            x86-specific code of kernels/, under NDX_OPENCL_C and
 *            __x86_64__; nothing (NDX_PREFETCHES and NDX_STREAM 0) elsewhere
 *   inline   NDX_ITEM_FN, for bodies called with constant widths
 *   blocks   the transposed blocks a tile copies (ndx_tile_lanes,
 *            ndx_copy_block, ndx_copy_rows_block, ndx_group_blocks; line
 *            blocks, ndx_copy_lines, where NDX_STREAM): OpenCL vector types
 *            (NDX_LOAD, NDX_STORE, ndx_transpose_V, the NDX_DEFINE_VECTOR and
 *            NDX_DEFINE_BLOCK X-macros over each width) under NDX_OPENCL_C,
 *            single elements (L = 1) on the host and CUDA
 *   words    unaligned 8-byte words (ndx_load_word, ndx_store_word, by an
 *            __attribute__((packed)) struct, as NDX_LOAD)
 *   bits     sub-byte tiles in vectors of words (ndx_copy_bits_tile,
 *            ndx_bits_bands: ndx_bits_transpose.h's rounds lane by lane)
 *            under NDX_OPENCL_C, none elsewhere; NDX_STAGE_BYTES
 *
 * One form, included once; tools/embed.py inlines it into the embedded
 * OpenCL program. */

#include "ndx/ndx_device.h"
#include "ndx_copy_geometry.h"
#include "ndx_bits_transpose.h"

#ifndef NDX_CPU_VECTORS_H
#define NDX_CPU_VECTORS_H

/* A hint that the `bytes` bytes from `p` (global memory) are read soon: on
 * an x86 CPU device (PoCL, where OpenCL's prefetch does nothing) a
 * prefetch of each of their cache lines; nothing elsewhere. `far`
 * (a constant): they are read after a few more rows' worth of other loads,
 * so the lines go to the outer caches only (prefetcht2), which hold more
 * of them in flight than the first level's (ndx-bench --cl case "embedding
 * lookup f32 [65536,256] by 32768" shows it against prefetcht0).
 * NDX_PREFETCHES says whether there are any, so that callers skip the work
 * of finding what to prefetch where there are none. */
#if defined(NDX_OPENCL_C) && defined(__x86_64__)
#define NDX_PREFETCHES 1
#define NDX_PREFETCH(p, bytes, far)                                                                \
  for (ndx_i64 o_ = 0; o_ < (bytes); o_ += 64) {                                                   \
    if (far)                                                                                       \
      __builtin_prefetch((NDX_GLOBAL const ndx_u8 *)(p) + o_, 0, 1);                               \
    else                                                                                           \
      __builtin_prefetch((NDX_GLOBAL const ndx_u8 *)(p) + o_, 0, 3);                               \
  }
#else
#define NDX_PREFETCHES 0
#define NDX_PREFETCH(p, bytes, far) ((void)(p), (void)(bytes), (void)(far))
#endif

/* Streaming stores, for lines written whole to places nothing reads soon (a
 * scatter's rows at random places of a large table, a transpose's
 * destination lines): on an x86 CPU device, stores that bypass the caches,
 * with no read for ownership of each line and no eviction of what the
 * caches hold. ndx_stream_bytes copies `n` bytes with 16-byte ones. They
 * are weakly ordered: a work-item that streams ends with ndx_stream_fence,
 * once, after its last, never once per row (ndx-bench --cl case "scatter
 * rows f32 32768 into [65536,256]" shows the cost). Elsewhere NDX_STREAM
 * is 0, ndx_stream_fence does nothing and callers copy as usual. */
#if defined(NDX_OPENCL_C) && defined(__x86_64__)
#define NDX_STREAM 1
NDX_FN void ndx_stream_fence(void) {
  __builtin_ia32_sfence();
}
NDX_FN void ndx_stream_bytes(NDX_GLOBAL ndx_u8 *NDX_RESTRICT d,
                             NDX_GLOBAL const ndx_u8 *NDX_RESTRICT s, ndx_i64 n) {
  ndx_i64 head = (ndx_i64)((0u - (uintptr_t)d) & 15u), o = 0;
  for (; o < head && o < n; o++) d[o] = s[o];
  for (; o + 16 <= n; o += 16)
    __builtin_nontemporal_store(as_ulong2(vload16(0, s + o)), (NDX_GLOBAL ulong2 *)(d + o));
  for (; o < n; o++) d[o] = s[o];
}
#else
#define NDX_STREAM 0
NDX_FN void ndx_stream_fence(void) {}
#endif

/* A body called with constant widths, several times a kernel: inlined, so
 * that the constants fold (left to itself, PoCL's LLVM calls one shared
 * copy, its loops branching on every width for every element). */
#if defined(NDX_OPENCL_C)
#define NDX_ITEM_FN NDX_FN __attribute__((always_inline))
#else
#define NDX_ITEM_FN NDX_FN
#endif

/* ---- Transposed blocks ------------------------------------------------ */
/* A tile is copied in blocks of 2L x L elements (rows x columns), L =
 * ndx_tile_lanes: in OpenCL C, a block is L pairs of vector loads along the
 * source's unit axis (2L elements: a whole 64-byte line for 32 and 64-bit
 * elements, half a line for 8 and 16-bit ones, whose 128-bit rows transpose
 * by unpacks), two transposes in registers and 2L vector stores along
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
  return bits == 8 ? 16 : bits <= 32 ? 8 : bits == 64 ? 4 : 1;
}

/* The block functions are NDX_ITEM_FN, forced inline: PoCL's compiler
 * otherwise calls the transpose out of line, its rows through memory. */

/* The transpose of L vectors of L lanes in place, in log2(L) rounds of one
 * shuffle per row (the loops must unroll for the rows to live in registers).
 * For 128-bit rows (uchar16, ushort8) a round interleaves rows r and r + L/2
 * into rows 2r (their low halves) and 2r + 1 (their high halves): one
 * unpack instruction a row, which moves row r, lane c to row 2(r mod L/2) +
 * c/(L/2), lane 2(c mod L/2) + r/(L/2), a rotation of the bits of r:c by
 * one. For wider rows, where an unpack stays inside 128-bit halves, a round
 * takes the even and the odd lanes of rows 2k and 2k + 1 instead, the same
 * rotation the other way. After log2(L) rounds row c holds lane r. The
 * swizzles and vector literals are plain shuffles to LLVM. */
#define NDX_ROUND_UNPACK(V, L, LO, HI)                                                             \
  _Pragma("unroll") for (int k = 0; k < L / 2; k++) {                                              \
    b[2 * k] = LO(a[k], a[k + L / 2]);                                                             \
    b[2 * k + 1] = HI(a[k], a[k + L / 2]);                                                         \
  }
#define NDX_ROUND_EVEN_ODD(V, L, LO, HI)                                                           \
  _Pragma("unroll") for (int k = 0; k < L / 2; k++) {                                              \
    b[k] = (V)(a[2 * k].even, a[2 * k + 1].even);                                                  \
    b[L / 2 + k] = (V)(a[2 * k].odd, a[2 * k + 1].odd);                                            \
  }
#define NDX_ZIP16_LO(x, y)                                                                         \
  (uchar16)(x.s0, y.s0, x.s1, y.s1, x.s2, y.s2, x.s3, y.s3, x.s4, y.s4, x.s5, y.s5, x.s6, y.s6,    \
            x.s7, y.s7)
#define NDX_ZIP16_HI(x, y)                                                                         \
  (uchar16)(x.s8, y.s8, x.s9, y.s9, x.sa, y.sa, x.sb, y.sb, x.sc, y.sc, x.sd, y.sd, x.se, y.se,    \
            x.sf, y.sf)
#define NDX_ZIP8_LO(x, y) (ushort8)(x.s0, y.s0, x.s1, y.s1, x.s2, y.s2, x.s3, y.s3)
#define NDX_ZIP8_HI(x, y) (ushort8)(x.s4, y.s4, x.s5, y.s5, x.s6, y.s6, x.s7, y.s7)

/* The load and the store of one row of a block: an L-lane vector V at
 * address p. Macros, not functions: a function that takes or returns a
 * 512-bit vector (ulong8) draws an ABI warning from clang where the device
 * has no AVX-512, and the kernels build with -Werror in the tests. */
#define NDX_LOAD(V, p) (((NDX_GLOBAL const ndx_packed_##V *)(p))->v)
#define NDX_STORE(V, p, x) (((NDX_GLOBAL ndx_packed_##V *)(p))->v = (x))

/* The packed row type of NDX_LOAD and NDX_STORE, and the transpose of L
 * rows. */
#define NDX_DEFINE_VECTOR(V, L, LOG2, ROUND, LO, HI)                                               \
  /* unaligned vector accesses: PoCL's vloadN and vstoreN of char and short                        \
   * vectors go element by element */                                                              \
  typedef struct __attribute__((packed)) ndx_packed_##V {                                          \
    V v;                                                                                           \
  } ndx_packed_##V;                                                                                \
  NDX_ITEM_FN void ndx_transpose_##V(V *a) {                                                       \
    V b[L];                                                                                        \
    _Pragma("unroll") for (int round = 0; round < LOG2; round++) {                                 \
      ROUND(V, L, LO, HI)                                                                          \
      _Pragma("unroll") for (int k = 0; k < L; k++) a[k] = b[k];                                   \
    }                                                                                              \
  }
/* A block's rows: row k at k times a pitch, or at the k-th offset of a
 * table (the rows of a grouped tile, ndx_group_rows). */
#define NDX_PITCH_ROW(x, k) ((k) * (x))
#define NDX_TABLE_ROW(x, k) ((x)[k])
/* The 2L x L block NAME_T and the L x L one NAME_square_T: destination row
 * i at d + ROW(sdi, i), source row j at s + ROW(ssj, j), sdi and ssj of type
 * RT. */
#define NDX_DEFINE_BLOCK(NAME, RT, ROW, T, V, L)                                                   \
  NDX_ITEM_FN void NAME##_##T(NDX_GLOBAL T *NDX_RESTRICT d, RT sdi,                                \
                              NDX_GLOBAL const T *NDX_RESTRICT s, RT ssj) {                        \
    V lo[L], hi[L];                                                                                \
    _Pragma("unroll") for (int j = 0; j < L; j++) {                                                \
      lo[j] = NDX_LOAD(V, s + ROW(ssj, j));                                                        \
      hi[j] = NDX_LOAD(V, s + ROW(ssj, j) + L);                                                    \
    }                                                                                              \
    ndx_transpose_##V(lo);                                                                         \
    ndx_transpose_##V(hi);                                                                         \
    _Pragma("unroll") for (int i = 0; i < L; i++) {                                                \
      NDX_STORE(V, d + ROW(sdi, i), lo[i]);                                                        \
      NDX_STORE(V, d + ROW(sdi, i + L), hi[i]);                                                    \
    }                                                                                              \
  }                                                                                                \
  /* an L x L block: for tiles of fewer than 2L rows */                                            \
  NDX_ITEM_FN void NAME##_square_##T(NDX_GLOBAL T *NDX_RESTRICT d, RT sdi,                         \
                                     NDX_GLOBAL const T *NDX_RESTRICT s, RT ssj) {                 \
    V a[L];                                                                                        \
    _Pragma("unroll") for (int j = 0; j < L; j++) a[j] = NDX_LOAD(V, s + ROW(ssj, j));             \
    ndx_transpose_##V(a);                                                                          \
    _Pragma("unroll") for (int i = 0; i < L; i++) NDX_STORE(V, d + ROW(sdi, i), a[i]);             \
  }
/* Each of the four vector widths once: CALL(T, V, L, Q), Q the L x L blocks
 * side by side that make a 64-byte line. */
#define NDX_EACH_BLOCK_WIDTH(CALL)                                                                 \
  CALL(uchar, uchar16, 16, 4)                                                                      \
  CALL(ushort, ushort8, 8, 4)                                                                      \
  CALL(uint, uint8, 8, 2)                                                                          \
  CALL(ulong, ulong4, 4, 2)
NDX_DEFINE_VECTOR(uchar16, 16, 4, NDX_ROUND_UNPACK, NDX_ZIP16_LO, NDX_ZIP16_HI)
NDX_DEFINE_VECTOR(ushort8, 8, 3, NDX_ROUND_UNPACK, NDX_ZIP8_LO, NDX_ZIP8_HI)
NDX_DEFINE_VECTOR(uint8, 8, 3, NDX_ROUND_EVEN_ODD, , )
NDX_DEFINE_VECTOR(ulong4, 4, 2, NDX_ROUND_EVEN_ODD, , )
NDX_DEFINE_VECTOR(ulong8, 8, 3, NDX_ROUND_EVEN_ODD, , ) /* sub-byte tiles' words */
#define NDX_BLOCKS(T, V, L, Q)                                                                     \
  NDX_DEFINE_BLOCK(ndx_block, ndx_i64, NDX_PITCH_ROW, T, V, L)                                     \
  NDX_DEFINE_BLOCK(ndx_rows_block, const ndx_i64 *, NDX_TABLE_ROW, T, V, L)
NDX_EACH_BLOCK_WIDTH(NDX_BLOCKS)
#undef NDX_BLOCKS

#if NDX_STREAM
/* A line block: L rows x Q*L columns, Q L x L blocks side by side, so that
 * each destination row of it is one whole 64-byte line (Q*L elements),
 * written by streaming stores one after the other: the line goes out whole,
 * with no read for ownership and nothing evicted from the caches. Needs
 * every destination row to start on a line (ndx_lines_aligned). */
#define NDX_DEFINE_LINE_BLOCK(T, V, L, Q)                                                          \
  NDX_ITEM_FN void ndx_line_block_##T(NDX_GLOBAL T *NDX_RESTRICT d, ndx_i64 sdi,                   \
                                      NDX_GLOBAL const T *NDX_RESTRICT s, ndx_i64 ssj) {           \
    V a[Q * L];                                                                                    \
    _Pragma("unroll") for (int j = 0; j < Q * L; j++) a[j] = NDX_LOAD(V, s + j * ssj);             \
    _Pragma("unroll") for (int q = 0; q < Q; q++) ndx_transpose_##V(a + q * L);                    \
    _Pragma("unroll") for (int i = 0; i < L; i++) {                                                \
      _Pragma("unroll") for (int q = 0; q < Q; q++)                                                \
          __builtin_nontemporal_store(a[q * L + i], (NDX_GLOBAL V *)(d + i * sdi + q * L));        \
    }                                                                                              \
  }
NDX_EACH_BLOCK_WIDTH(NDX_DEFINE_LINE_BLOCK)
#undef NDX_DEFINE_LINE_BLOCK
#endif
#undef NDX_DEFINE_VECTOR
#undef NDX_DEFINE_BLOCK
#undef NDX_EACH_BLOCK_WIDTH
#undef NDX_PITCH_ROW
#undef NDX_TABLE_ROW
#undef NDX_ROUND_UNPACK
#undef NDX_ROUND_EVEN_ODD
#undef NDX_ZIP16_LO
#undef NDX_ZIP16_HI
#undef NDX_ZIP8_LO
#undef NDX_ZIP8_HI

/* A switch over the four block widths (8 to 64 bits): CALL(T); a
 * statement, followed by a semicolon. */
#define NDX_BY_BLOCK_WIDTH(CALL)                                                                   \
  switch (bits) {                                                                                  \
  case 8:                                                                                          \
    CALL(uchar) break;                                                                             \
  case 16:                                                                                         \
    CALL(ushort) break;                                                                            \
  case 32:                                                                                         \
    CALL(uint) break;                                                                              \
  default:                                                                                         \
    CALL(ulong) break;                                                                             \
  }                                                                                                \
  (void)0

/* Copies the 2L x L block (rows x columns) at the given positions, or the
 * L x L one when `square`: rows a pitch apart (ndx_copy_block), or at the
 * offsets of the tables drow (2L of them) and srow (L) (ndx_copy_rows_block,
 * a grouped tile's). 8 to 64-bit elements. */
#define NDX_BLOCK_CALL(NAME, T)                                                                    \
  {                                                                                                \
    NDX_GLOBAL T *d_ = (NDX_GLOBAL T *)dst + pd;                                                   \
    NDX_GLOBAL const T *s_ = (NDX_GLOBAL const T *)src + ps;                                       \
    if (square)                                                                                    \
      NAME##_square_##T(d_, sdi, s_, ssj);                                                         \
    else                                                                                           \
      NAME##_##T(d_, sdi, s_, ssj);                                                                \
  }
#define NDX_PITCH_BLOCK(T) NDX_BLOCK_CALL(ndx_block, T)
#define NDX_TABLE_BLOCK(T) NDX_BLOCK_CALL(ndx_rows_block, T)
NDX_ITEM_FN void ndx_copy_block(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi,
                                NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps, ndx_i64 ssj,
                                int bits, int square) {
  NDX_BY_BLOCK_WIDTH(NDX_PITCH_BLOCK);
}
NDX_ITEM_FN void ndx_copy_rows_block(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd,
                                     const ndx_i64 *sdi, NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src,
                                     ndx_i64 ps, const ndx_i64 *ssj, int bits, int square) {
  NDX_BY_BLOCK_WIDTH(NDX_TABLE_BLOCK);
}
#undef NDX_PITCH_BLOCK
#undef NDX_TABLE_BLOCK
#undef NDX_BLOCK_CALL

#if NDX_STREAM
/* True iff every destination row of a tile (from position pd, pitch sdi, of
 * `bits`-bit elements, 8 to 64) starts on a 64-byte line. */
NDX_FN int ndx_lines_aligned(NDX_GLOBAL const ndx_u8 *dst, ndx_i64 pd, ndx_i64 sdi, int bits) {
  ndx_i64 bytes = bits / 8;
  return (((uintptr_t)(dst + pd * bytes) | (uintptr_t)(sdi * bytes)) & 63u) == 0;
}

/* Copies the fi x fj elements of a tile (fi a multiple of ndx_tile_lanes,
 * fj of a line's 512/bits elements) in line blocks, each band of lines
 * down the tile's rows before the next, then orders the streaming stores
 * before what the work-item does next. */
#define NDX_LINES_CALL(T)                                                                          \
  for (ndx_i64 j = 0; j < fj; j += 64 / (ndx_i64)sizeof(T))                                        \
    for (ndx_i64 i = 0; i < fi; i += ndx_tile_lanes(bits))                                         \
      ndx_line_block_##T((NDX_GLOBAL T *)dst + pd + i * sdi + j, sdi,                              \
                         (NDX_GLOBAL const T *)src + ps + i + j * ssj, ssj);
NDX_ITEM_FN void ndx_copy_lines(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi,
                                NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps, ndx_i64 ssj,
                                ndx_i64 fi, ndx_i64 fj, int bits) {
  NDX_BY_BLOCK_WIDTH(NDX_LINES_CALL);
  ndx_stream_fence();
}
#undef NDX_LINES_CALL

#endif
#undef NDX_BY_BLOCK_WIDTH
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
NDX_FN void ndx_copy_rows_block(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd,
                                const ndx_i64 *drow, NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src,
                                ndx_i64 ps, const ndx_i64 *srow, int bits, int square) {
  (void)square;
  ndx_copy_elem(dst, pd + drow[0], src, ps + srow[0], bits);
}
#endif

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

/* Copies rows [i0, i1) x columns [j0, nj) of the ni x nj tile (ni, nj >= L
 * = ndx_tile_lanes(bits) > 1) of a grouped tile copy at rows I0.. and
 * columns J0.. of its batch's matrix (g), whose element (0, 0) is at
 * positions bd and bs, in ndx_copy_rows_block's blocks: bands of 2L rows,
 * then one of L, each across in blocks of L columns, where a band or block
 * that would pass the tile's last row or column is moved back to end on it,
 * so that it overlaps the one before, whose elements it writes again with
 * the same values (the destination is distinct and shares no byte with the
 * source). */
NDX_ITEM_FN void ndx_group_blocks(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                  NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits, ndx_i64 bd,
                                  ndx_i64 bs, const ndx_tile_rows *g, ndx_i64 I0, ndx_i64 J0,
                                  ndx_i64 i0, ndx_i64 i1, ndx_i64 j0, ndx_i64 ni, ndx_i64 nj) {
  ndx_i64 lanes = ndx_tile_lanes(bits), drow[32], srow[16];
  for (ndx_i64 I = i0; I < i1;) {
    int square = I + 2 * lanes > i1; /* an L-row band */
    ndx_i64 ib = square ? ndx_min64(I, ni - lanes) : I;
    ndx_group_rows(drow, 2 * (int)lanes, I0 + ib, g->di, g->sdi, g->sgi);
    for (ndx_i64 J = j0; J < nj; J += lanes) {
      ndx_i64 jb = ndx_min64(J, nj - lanes);
      ndx_group_rows(srow, (int)lanes, J0 + jb, g->dj, g->ssj, g->sgj);
      ndx_copy_rows_block(dst, bd + J0 + jb, drow, src, bs + I0 + ib, srow, bits, square);
    }
    I = ib + (square ? lanes : 2 * lanes);
  }
}

/* ---- Sub-byte tiles --------------------------------------------------- */

/* Bytes of the private buffer a sub-byte tile stages its source in: a
 * whole tile of ndx_tile_side for 1, 2 and 4 bits (512*512/8, 128*128/4,
 * 128*128/2 bytes at most). */
#define NDX_STAGE_BYTES 32768

/* On OpenCL, a sub-byte tile goes by vectors of 8-byte words: whole tiles
 * by ndx_copy_bits_tile (staged in NDX_STAGE_BYTES), bands of the rows of
 * others by ndx_bits_bands, each through ndx_bits_transpose.h's rounds run
 * lane by lane. On the host and CUDA those two copy nothing and
 * ndx_copy_tile_bits (ndx_copy_cpu.h) goes by ndx_bits_transpose alone. */
#if defined(NDX_OPENCL_C)
/* NDX_BITS_TRANSPOSE's rounds on n vectors V from w, lane by lane: those
 * of h > 8 over all n, then groups of 16 vectors, each through its last
 * four rounds (registers for 16 vectors; a round of h <= 8 moves elements
 * only inside aligned groups of 16 words). */
#define NDX_BITS_ROUNDS(V, w, n, bits)                                                             \
  {                                                                                                \
    _Pragma("unroll") for (int h = (n) / 2; h > 8; h >>= 1) {                                      \
      NDX_BITS_ROUND(V, w, n, h, bits, _Pragma("unroll"));                                         \
    }                                                                                              \
    _Pragma("unroll") for (int g = 0; g < (n); g += 16) {                                          \
      _Pragma("unroll") for (int h = 8; h >= 1; h >>= 1) {                                         \
        NDX_BITS_ROUND(V, (w + g), 16, h, bits, _Pragma("unroll"));                                \
      }                                                                                            \
    }                                                                                              \
  }

/* A whole sub-byte tile (ndx_tile_side square, n = 64/bits, NW = side/n
 * words a row: 8 for 4 and 1 bits, 4 for 2) in vectors V of NW words,
 * lane J for the tile's J-th n columns. Source rows J*n + k (J < NW) give
 * NW words each, one vector load a row; an NW x NW transpose in registers
 * turns them into NW vectors, the I-th holding word k of block (I, J) in
 * lane J, which go to the private stage at I*n + k. Then for each I the n
 * staged vectors of block row I are transposed bit-wise, lane by lane
 * (ndx_bits_transpose's rounds on vectors: the n x n transposes of NW
 * blocks at once), and vector m is destination row I*n + m whole: one
 * store of the row's NW words, so that every destination line is written
 * in one piece (word by word, rows a power-of-two pitch apart evict each
 * other's lines from the cache before they are full). Needs ssi == 1, source rows and
 * destination rows starting on bytes (as ndx_copy_tile_bits' blocks). */
#define NDX_DEFINE_BITS_TILE(V, NW)                                                                \
  NDX_ITEM_FN void ndx_bits_tile_##V(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi, \
                                     NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps,        \
                                     ndx_i64 ssj, int bits) {                                      \
    int lg = ndx_sub_log2(bits), n = 64 / bits;                                                    \
    int stream = ((((uintptr_t)(dst + (pd >> lg))) | (uintptr_t)(sdi >> lg)) & (8 * NW - 1)) == 0; \
    V stage[NDX_STAGE_BYTES / (8 * NW)], w[64];                                                    \
    for (int k = 0; k < n; k++) {                                                                  \
      V a[NW];                                                                                     \
      _Pragma("unroll") for (int J = 0; J < NW; J++) a[J] =                                        \
          NDX_LOAD(V, (NDX_GLOBAL const ulong *)(src + ((ps + (J * n + k) * ssj) >> lg)));         \
      ndx_transpose_##V(a);                                                                        \
      _Pragma("unroll") for (int I = 0; I < NW; I++) stage[I * n + k] = a[I];                      \
    }                                                                                              \
    for (int I = 0; I < NW; I++) {                                                                 \
      _Pragma("unroll") for (int k = 0; k < n; k++) w[k] = stage[I * n + k];                       \
      NDX_BITS_ROUNDS(V, w, n, bits);                                                              \
      _Pragma("unroll") for (int m = 0; m < n; m++) {                                              \
        NDX_GLOBAL ulong *row = (NDX_GLOBAL ulong *)(dst + ((pd + (I * n + m) * sdi) >> lg));      \
        if (stream)                                                                                \
          __builtin_nontemporal_store(w[m], (NDX_GLOBAL V *)row);                                  \
        else                                                                                       \
          NDX_STORE(V, row, w[m]);                                                                 \
      }                                                                                            \
    }                                                                                              \
    if (stream) ndx_stream_fence();                                                                \
  }
NDX_DEFINE_BITS_TILE(ulong8, 8)
NDX_DEFINE_BITS_TILE(ulong4, 4)
#undef NDX_DEFINE_BITS_TILE

/* Bands of 8n destination rows (n = 64/bits) of a sub-byte tile that is
 * not whole: rows [0, fb) x columns [0, fj) (fj a multiple of n), fb the
 * largest multiple of 8n up to fi; returns fb. A band takes its n x n
 * blocks eight at a time, in vectors of 8 words whose lane I is the
 * band's I-th n rows: the n source rows of columns j.. give one 64-byte
 * load each, ndx_bits_transpose's rounds run on the n vectors, and lane I
 * of vector m is word j/n of destination row I*n + m. A thin tile (rows of
 * 128 1-bit elements, 2048 of them) goes in full vectors this way, where
 * ndx_copy_bits_tile needs a whole square tile. Needs ssi == 1 and source
 * and destination rows starting on bytes (as ndx_copy_tile_bits' blocks). */
#define NDX_BAND_STORE(I) ndx_store_word(dst + ((pd + (i + (I)*n + m) * sdi + j) >> lg), w[m].s##I)
NDX_ITEM_FN ndx_i64 ndx_bits_bands_n(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi,
                                     NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps,
                                     ndx_i64 ssj, ndx_i64 fi, ndx_i64 fj, int bits) {
  int lg = ndx_sub_log2(bits), n = 64 / bits;
  ndx_i64 fb = fi - fi % (8 * n);
  ulong8 w[64];
  for (ndx_i64 i = 0; i < fb; i += 8 * n)
    for (ndx_i64 j = 0; j < fj; j += n) {
      _Pragma("unroll") for (int k = 0; k < n; k++) w[k] =
          NDX_LOAD(ulong8, (NDX_GLOBAL const ulong *)(src + ((ps + i + (j + k) * ssj) >> lg)));
      NDX_BITS_ROUNDS(ulong8, w, n, bits);
      _Pragma("unroll") for (int m = 0; m < n; m++) {
        NDX_BAND_STORE(0);
        NDX_BAND_STORE(1);
        NDX_BAND_STORE(2);
        NDX_BAND_STORE(3);
        NDX_BAND_STORE(4);
        NDX_BAND_STORE(5);
        NDX_BAND_STORE(6);
        NDX_BAND_STORE(7);
      }
    }
  return fb;
}
#undef NDX_BAND_STORE

/* ndx_bits_bands_n with its width as a constant (the loops unroll). */
NDX_ITEM_FN ndx_i64 ndx_bits_bands(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps,
                                   ndx_i64 ssj, ndx_i64 fi, ndx_i64 fj, int bits) {
  if (bits == 4) return ndx_bits_bands_n(dst, pd, sdi, src, ps, ssj, fi, fj, 4);
  if (bits == 2) return ndx_bits_bands_n(dst, pd, sdi, src, ps, ssj, fi, fj, 2);
  return ndx_bits_bands_n(dst, pd, sdi, src, ps, ssj, fi, fj, 1);
}

/* Copies a whole sub-byte tile by ndx_bits_tile_V; 0 where the tile is
 * not whole (an edge), copying nothing. */
NDX_ITEM_FN int ndx_copy_bits_tile(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps,
                                   ndx_i64 ssj, ndx_i64 ni, ndx_i64 nj, int bits) {
  ndx_i64 side = ndx_tile_side(bits);
  if (ni != side || nj != side) return 0;
  /* each with its width as a constant: the loops unroll wherever this is
   * inlined */
  if (bits == 4)
    ndx_bits_tile_ulong8(dst, pd, sdi, src, ps, ssj, 4);
  else if (bits == 2)
    ndx_bits_tile_ulong4(dst, pd, sdi, src, ps, ssj, 2);
  else
    ndx_bits_tile_ulong8(dst, pd, sdi, src, ps, ssj, 1);
  return 1;
}
#else
NDX_FN int ndx_copy_bits_tile(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi,
                              NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps, ndx_i64 ssj,
                              ndx_i64 ni, ndx_i64 nj, int bits) {
  (void)dst, (void)pd, (void)sdi, (void)src, (void)ps, (void)ssj, (void)ni, (void)nj, (void)bits;
  return 0;
}
NDX_FN ndx_i64 ndx_bits_bands(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 pd, ndx_i64 sdi,
                              NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, ndx_i64 ps, ndx_i64 ssj,
                              ndx_i64 fi, ndx_i64 fj, int bits) {
  (void)dst, (void)pd, (void)sdi, (void)src, (void)ps, (void)ssj, (void)fi, (void)fj, (void)bits;
  return 0;
}
#endif

#endif /* NDX_CPU_VECTORS_H */
