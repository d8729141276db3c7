/* ndx_copy_items.h: the per-work-item copy bodies that ndx's OpenCL kernels
 * (kernels/ndx_copy.cl), its CUDA kernels (kernels/ndx_copy_cuda.cuh) and
 * the host emulation of both (tests/test_device_host.c,
 * tests/test_cuda_emulate.cu) share, and the tile geometry the host
 * planners size launches with. Private to ndx: not installed and not for
 * user kernels; it changes with ndx's kernels. Everything a kernel of the
 * user's calls is in ndx/ndx_device.h, which this header includes.
 *
 *   geometry  NDX_TILE, ndx_tile_side, ndx_tile_shape, ndx_tile_count,
 *             ndx_bytes_span: plain functions of extents, positions and the
 *             element width, one form, so that a planner calls them without
 *             reading a pack
 *   pieces    vector blocks (ndx_tile_lanes, ndx_copy_block: OpenCL vector
 *             types under NDX_OPENCL_C, element by element elsewhere),
 *             sub-byte destination bytes (ndx_bits_put, ndx_bits_flush),
 *             unaligned 8-byte words (ndx_load_word, ndx_store_word, by an
 *             __attribute__((packed)) struct), ndx_bits_transpose,
 *             NDX_STAGE_BYTES, ndx_min64
 *   per form  one work-item's share of a copy pack: ndx_copy_range_item,
 *             ndx_copy_tile_item, ndx_copy_bytes_item, and what they call
 *             (ndx_copy_run, ndx_copy_range, ndx_tile_byte,
 *             ndx_copy_tile_bits, ndx_copy_thin, ndx_copy_tile,
 *             ndx_copy_bytes)
 *
 * It keeps ndx_device.h's conventions (portability macros, errors and
 * costs, bit order) and its two forms: define NDX_WIDE to 0 or 1 before
 * including; the host and CUDA include it twice, with NDX_WIDE 0 and then 1,
 * for both. The per-form functions are defined as name_wN, and the list at
 * the start of their section names both forms of each on one line
 * (ndx_copy_tile_item_wN is ndx_copy_tile_item_w64 where NDX_WIDE is 1), as
 * in ndx_device.h. tools/embed.py inlines this header into the embedded
 * OpenCL program; host and CUDA builds put kernels/ on the include path. */

/* At every inclusion: ndx_device.h selects NDX_WIDE's form (NDX_WN). */
#include "ndx/ndx_device.h"

#ifndef NDX_COPY_ITEMS_H
#define NDX_COPY_ITEMS_H

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

/* The unit of the sides of the tiles a transpose work-item copies: 128-bit
 * tiles are 2 units on a side, narrower elements' more (ndx_tile_side). */
#ifndef NDX_TILE
#define NDX_TILE 8
#endif

/* Side of a transpose tile of `bits`-bit elements: 16 KiB for 8 and 32-bit
 * elements, 32 KiB for 16-bit and 1-bit ones, so that the work of one tile
 * (its index math, the loop set-up) stays small next to its bytes and each
 * source row of a tile is read in runs of 128 bytes or more (ndx-bench
 * --cl case "transpose f32 4096x4096" shows it against 32x32 tiles, the
 * "transpose u16" cases against 64x64 ones); a 1-bit tile's rows of 512
 * are one 64-byte line each, which streaming stores write whole (case
 * "transpose u1 16384x16384" shows it against 256x256 tiles, whose rows
 * are half lines); 64 and 128-bit tiles are 8 and 4 KiB. */
NDX_FN int ndx_tile_side(int bits) {
  return bits == 1    ? 64 * NDX_TILE
         : bits <= 16 ? 16 * NDX_TILE
         : bits == 32 ? 8 * NDX_TILE
         : bits == 64 ? 4 * NDX_TILE
                      : 2 * NDX_TILE;
}

/* Bytes of the private buffer a sub-byte tile stages its source in: a
 * whole tile of ndx_tile_side for 1, 2 and 4 bits (512*512/8, 128*128/4,
 * 128*128/2 bytes at most). */
#define NDX_STAGE_BYTES 32768

NDX_FN ndx_i64 ndx_min64(ndx_i64 a, ndx_i64 b) {
  return a < b ? a : b;
}

/* ---- Geometry: one form, no pack -------------------------------------------- */

/* The tile of a tile copy whose axes rank-2 and rank-1 have extents di and
 * dj (both > 0): *ti rows by *tj columns. Square of side ndx_tile_side,
 * except that a thin matrix (fewer rows or columns than a side) gets tiles
 * as thin as it and as many elements, so that a 3 x 1000003 transpose still
 * moves whole tiles. */
NDX_FN void ndx_tile_shape(ndx_i64 di, ndx_i64 dj, int bits, ndx_i64 *ti, ndx_i64 *tj) {
  ndx_i64 side = ndx_tile_side(bits), area = side * side;
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

/* The work-items of a tile copy of `numel` elements whose last two axes
 * have extents di and dj, each item copying one tile position in `batches`
 * (>= 1) consecutive batches: tile rows * tile columns * groups of
 * batches; 0 when numel is 0. */
NDX_FN ndx_i64 ndx_tile_count(ndx_i64 numel, ndx_i64 di, ndx_i64 dj, int bits, ndx_i64 batches) {
  if (numel == 0) return 0;
  ndx_i64 th, tw;
  ndx_tile_shape(di, dj, bits, &th, &tw);
  ndx_i64 nb = numel / (di * dj);
  return (nb + batches - 1) / batches * ((di + th - 1) / th) * ((dj + tw - 1) / tw);
}

/* Batches a tile work-item copies so that it moves about `elems` elements:
 * small tiles (a rank-8 permutation of extents 8 has 8 x 8 tiles) share one
 * item's start, the magic divisions of ndx_odo_start, among many batches,
 * which it then steps by adding strides. 1 for tiles of `elems` or more. */
NDX_FN ndx_i64 ndx_tile_batches(ndx_i64 di, ndx_i64 dj, int bits, ndx_i64 elems) {
  ndx_i64 th, tw;
  ndx_tile_shape(di, dj, bits, &th, &tw);
  ndx_i64 area = ndx_min64(di, th) * ndx_min64(dj, tw);
  return area >= elems ? 1 : elems / area;
}

/* Tile groups. Where a transpose's tiles are small (di and dj, the extents
 * of its last two axes, both under a side), the batch axes next to them
 * join its tiles where each tile stays one run per row on both sides: axis
 * rank-3, when its destination stride is dj (the destination runs on
 * through it), joins the columns (*gj its extent); then the next batch axis
 * in, when its source stride is di (the source runs on through it), joins
 * the rows (*gi). A tile copy then sees a matrix of di*gi x dj*gj elements
 * a batch, whose row and column offsets are two-level (ndx_group_rows), and
 * its tiles move in whole register blocks rather than in single elements
 * at every small tile's edges: a rank-8 permutation of extents 5 to 11 has
 * 11 x 9 tiles, which become 99 x 45. e[0], e[1]: the extents of axes
 * rank-3 and rank-4 (0 where there is no such axis), sd and ss their
 * destination and source strides; sdj and ssi the strides along the tile
 * (unit for a block copy); 8 to 64-bit elements. Returns the number of
 * axes joined, 0 to 2 (*gi = *gj = 1 for none). */
NDX_FN int ndx_tile_groups(ndx_i64 di, ndx_i64 dj, int bits, ndx_i64 sdj, ndx_i64 ssi,
                           const ndx_i64 *e, const ndx_i64 *sd, const ndx_i64 *ss, ndx_i64 *gi,
                           ndx_i64 *gj) {
  ndx_i64 side = ndx_tile_side(bits);
  int n = 0;
  *gi = *gj = 1;
  if (bits < 8 || bits > 64 || sdj != 1 || ssi != 1 || di >= side || dj >= side) return 0;
  if (e[0] > 1 && sd[0] == dj) *gj = e[n++];
  if (e[n] > 1 && ss[n] == di) *gi = e[n++];
  return n;
}

/* The offsets of n consecutive rows of a group from row `row`: row g*d + r
 * (r < d) is at r*s + g*sg. */
NDX_FN void ndx_group_rows(ndx_i64 *o, int n, ndx_i64 row, ndx_i64 d, ndx_i64 s, ndx_i64 sg) {
  ndx_i64 g = row / d, r = row - g * d;
  for (int k = 0; k < n; k++) {
    o[k] = r * s + g * sg;
    if (++r == d) r = 0, g++;
  }
}

/* The rows and columns of a grouped tile's matrix (ndx_tile_groups): row I
 * is at destination offset drow(I) over di rows of stride sdi in groups of
 * stride sgi, column J at source offset srow(J) over dj columns of stride
 * ssj in groups of stride sgj (ndx_group_rows); element (I, J) is
 * destination drow(I) + J and source I + srow(J) from the batch's (0, 0). */
typedef struct ndx_tile_rows {
  ndx_i64 di, sdi, sgi, dj, ssj, sgj;
} ndx_tile_rows;

/* The destination bytes [*first, *end) that positions [lo, hi) (lo < hi)
 * of `bits`-bit elements (1, 2, 4) cover: for a sub-byte copy, [lo, hi)
 * is the destination's span (ndx_span of operand 0). */
NDX_FN void ndx_bytes_span(ndx_i64 lo, ndx_i64 hi, int bits, ndx_i64 *first, ndx_i64 *end) {
  int lg = ndx_sub_log2(bits);
  *first = lo >> lg;
  *end = ((hi - 1) >> lg) + 1;
}

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
 * table (the rows of a grouped tile, ndx_tile_groups). */
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

/* One round, at half-size h, over the n words from w (n a multiple of 2h). */
#define NDX_BITS_ROUND(T, w, n, h, bits, UNROLL)                                                   \
  {                                                                                                \
    int sh = (h) * (bits); /* the bits of h elements */                                            \
    /* sh ones, sh zeros, repeated: the elements e with e & h == 0 */                              \
    ndx_u64 m = sh == 32   ? 0x00000000FFFFFFFFull                                                 \
                : sh == 16 ? 0x0000FFFF0000FFFFull                                                 \
                : sh == 8  ? 0x00FF00FF00FF00FFull                                                 \
                : sh == 4  ? 0x0F0F0F0F0F0F0F0Full                                                 \
                : sh == 2  ? 0x3333333333333333ull                                                 \
                           : 0x5555555555555555ull;                                                 \
    UNROLL for (int q = 0; q < (n) / 2; q++) {                                                     \
      int r = ((q & ~((h)-1)) << 1) | (q & ((h)-1)); /* the q-th r with r & h == 0 */              \
      T t = ((w[r] >> sh) ^ w[r + (h)]) & m;                                                       \
      w[r + (h)] ^= t;                                                                             \
      w[r] ^= t << sh;                                                                             \
    }                                                                                              \
  }

/* The transpose of an n x n matrix of sub-byte elements, n = 64/bits, held
 * as n words: element e of word r (bits bits*e ..) goes to element r of
 * word e. Element order in a word is the buffer's (docs/semantics.md section 1),
 * so a word is 8 bytes of a row. Recursive block swaps (Hacker's Delight
 * 7-3): at half-size h, words r and r+h (r & h == 0) trade the elements e
 * with e & h != 0 of word r for the elements e - h of word r+h, one masked
 * xor each. log2(n) rounds of n/2 swaps: 3 operations a byte or so. */
NDX_FN void ndx_bits_transpose(ndx_u64 *w, int bits) {
  for (int h = 32 / bits; h >= 1; h >>= 1) NDX_BITS_ROUND(ndx_u64, w, 64 / bits, h, bits, );
}

#if defined(NDX_OPENCL_C)
/* ndx_bits_transpose's rounds on n vectors V from w, lane by lane: those
 * of h > 8 over all n, then groups of 16 vectors, each through its last
 * four rounds (registers for 16 vectors). */
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

#endif /* NDX_COPY_ITEMS_H */

/* ==== Copy bodies, once per index form ====================================== */

#ifndef NDX_COPY_ITEMS_H_WN
#define NDX_COPY_ITEMS_H_WN
#define ndx_copy_run_wN NDX_WN(ndx_copy_run_w32, ndx_copy_run_w64)
#define ndx_copy_range_wN NDX_WN(ndx_copy_range_w32, ndx_copy_range_w64)
#define ndx_copy_range_item_wN NDX_WN(ndx_copy_range_item_w32, ndx_copy_range_item_w64)
#define ndx_tile_byte_wN NDX_WN(ndx_tile_byte_w32, ndx_tile_byte_w64)
#define ndx_copy_tile_bits_wN NDX_WN(ndx_copy_tile_bits_w32, ndx_copy_tile_bits_w64)
#define ndx_copy_thin_wN NDX_WN(ndx_copy_thin_w32, ndx_copy_thin_w64)
#define ndx_copy_tile_wN NDX_WN(ndx_copy_tile_w32, ndx_copy_tile_w64)
#define ndx_copy_tile_item_wN NDX_WN(ndx_copy_tile_item_w32, ndx_copy_tile_item_w64)
#define ndx_tile_groups_wN NDX_WN(ndx_tile_groups_w32, ndx_tile_groups_w64)
#define ndx_copy_group_tile_wN NDX_WN(ndx_copy_group_tile_w32, ndx_copy_group_tile_w64)
#define ndx_bits_run_wN NDX_WN(ndx_bits_run_w32, ndx_bits_run_w64)
#define ndx_copy_bytes_wN NDX_WN(ndx_copy_bytes_w32, ndx_copy_bytes_w64)
#define ndx_copy_bytes_item_wN NDX_WN(ndx_copy_bytes_item_w32, ndx_copy_bytes_item_w64)
#endif

#if (NDX_WIDE && !defined(NDX_COPY_ITEMS_H_W64)) || (!NDX_WIDE && !defined(NDX_COPY_ITEMS_H_W32))
#if NDX_WIDE
#define NDX_COPY_ITEMS_H_W64
#else
#define NDX_COPY_ITEMS_H_W32
#endif

/* ---- Copy routines: one work-item's share of a copy pack ------------------ */
/* Each takes the pack of ndx_pack_copy (operand 0 the destination, 1 the
 * source), the two buffers' first bytes and the element width; `bits` is a
 * constant in every caller, so each switch on it folds away. */

/* Copies `n` elements (bits >= 8): element pd + t*sd of `dst` gets element
 * ps + t*ss of `src`, t < n. `unit` (a constant in the caller) promises
 * sd == ss == 1, so that the loop is a plain, vectorizable block copy. On
 * OpenCL such a run of 8 to 32 bytes is two overlapping 8- or 16-byte
 * accesses (its first and last bytes; unaligned loads and stores through
 * packed structs, as NDX_LOAD's) rather than a loop that a vectorized
 * compiler leaves to its scalar remainder (ndx-bench --cl case "permute
 * (0,2,4,6,1,3,5,7) f32 11x9x7x5x11x9x7x5", whose rows are 20 bytes).
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
NDX_FN void ndx_copy_run_wN(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, NDX_WORD pd, NDX_WORD sd,
                            NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, NDX_WORD ps, NDX_WORD ss,
                            NDX_WORD n, int bits, int unit) {
#if defined(NDX_OPENCL_C)
  if (unit || (sd == 1 && ss == 1)) {
    ndx_i64 bytes = (ndx_i64)n * (bits / 8);
    if (bytes >= 8 && bytes <= 32) {
      NDX_GLOBAL ndx_u8 *d = dst + (ndx_i64)pd * (bits / 8);
      NDX_GLOBAL const ndx_u8 *s = src + (ndx_i64)ps * (bits / 8);
      if (bytes >= 16) {
        uchar16 a = NDX_LOAD(uchar16, s), b = NDX_LOAD(uchar16, s + bytes - 16);
        NDX_STORE(uchar16, d, a);
        NDX_STORE(uchar16, d + bytes - 16, b);
      } else {
        ndx_u64 a = ndx_load_word(s), b = ndx_load_word(s + bytes - 8);
        ndx_store_word(d, a);
        ndx_store_word(d + bytes - 8, b);
      }
      return;
    }
  }
#endif
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
 * then runs along the innermost axis; from a row's start, the whole rows and
 * planes left along the next two axes go by two loops that add those axes'
 * strides, with one carry of the odometer after them: short rows pay the
 * carry once per plane, not once per row (ndx-bench --cl case "permute
 * (0,2,4,6,1,3,5,7) f32 11x9x7x5x11x9x7x5", whose rows are 20 bytes).
 * `unit` (a constant) promises innermost strides of 1 on both sides.
 * O(rank + i1 - i0). */
NDX_FN void ndx_copy_range_wN(NDX_CONSTANT const ndx_pack_head *p,
                              NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                              NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits, NDX_WORD i0,
                              NDX_WORD i1, int unit) {
  if (i0 >= i1) return;
  ndx_odo_wN o;
  ndx_odo_start_wN(p, &o, i0);
  int in = (int)p->rank - 1;
  NDX_WORD d = ndx_extent_wN(p, in);
  NDX_WORD sd = ndx_stride_wN(p, 0, in), ss = ndx_stride_wN(p, 1, in);
  NDX_WORD n = i1 - i0;
  /* the next two axes out: extents and strides */
  NDX_WORD d1 = in > 0 ? ndx_extent_wN(p, in - 1) : 1, d2 = in > 1 ? ndx_extent_wN(p, in - 2) : 1;
  NDX_WORD t0 = in > 0 ? ndx_stride_wN(p, 0, in - 1) : 0,
           t1 = in > 0 ? ndx_stride_wN(p, 1, in - 1) : 0;
  NDX_WORD u0 = in > 1 ? ndx_stride_wN(p, 0, in - 2) : 0,
           u1 = in > 1 ? ndx_stride_wN(p, 1, in - 2) : 0;
  for (;;) {
    NDX_WORD j = o.index[in];
    /* At a row's start: the whole rows left along the next axis and, from
     * that axis's start, the whole planes left along the one after it, by
     * loops that add their strides; then one carry. */
    NDX_WORD rows = j == 0 && in > 0 ? d1 - o.index[in - 1] : 0, planes = 1;
    if (rows > n / d) rows = n / d;
    if (rows == d1 && in > 1) {
      planes = d2 - o.index[in - 2];
      if (planes > n / (d * d1)) planes = n / (d * d1);
    }
    if (rows > 0) {
      for (NDX_WORD q = 0; q < planes; q++)
        for (NDX_WORD r = 0; r < rows; r++)
          ndx_copy_run_wN(dst, o.pos[0] + q * u0 + r * t0, sd, src, o.pos[1] + q * u1 + r * t1, ss,
                          d, bits, unit);
      n -= planes * rows * d;
      if (n == 0) return;
      /* to the last row copied, then one step on */
      if (in > 1) o.index[in - 2] += planes - 1;
      o.index[in - 1] += rows - 1;
      o.pos[0] += (planes - 1) * u0 + (rows - 1) * t0;
      o.pos[1] += (planes - 1) * u1 + (rows - 1) * t1;
      ndx_odo_carry_wN(p, &o, in - 1);
      continue;
    }
    NDX_WORD run = d - j;
    if (run > n) run = n;
    ndx_copy_run_wN(dst, o.pos[0], sd, src, o.pos[1], ss, run, bits, unit);
    n -= run;
    if (n == 0) return;
    ndx_odo_next_row_wN(p, &o, j, sd, ss); /* the row is done (j + run == d) */
  }
}

/* Work-item `item` of a range copy: C-order elements [item*chunk,
 * (item+1)*chunk) clipped to numel; items past the end do nothing. */
NDX_FN void ndx_copy_range_item_wN(NDX_CONSTANT const ndx_pack_head *p,
                                   NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                                   ndx_i64 item, ndx_i64 chunk, int unit) {
  ndx_i64 i0 = item * chunk;
  if (i0 >= p->numel) return;
  ndx_i64 i1 = ndx_min64(p->numel, i0 + chunk);
  ndx_copy_range_wN(p, dst, src, bits, (NDX_WORD)i0, (NDX_WORD)i1, unit);
}

/* One destination byte of a sub-byte tile: elements j .. j+n-1 (n <= per) of
 * the row at destination position pd (a byte boundary), from source
 * positions ps + j'*ssj; bits of the byte past the n elements keep their
 * value. */
NDX_FN void ndx_tile_byte_wN(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, NDX_WORD pd,
                             NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, NDX_WORD ps, NDX_WORD ssj,
                             NDX_WORD j, int n, int bits) {
  ndx_u32 acc = 0, mask = 0, one = (1u << bits) - 1u;
  for (int e = 0; e < n; e++) {
    acc |= ndx_load_bits(src, ps + (j + e) * ssj, bits) << (e * bits);
    mask |= one << (e * bits);
  }
  ndx_bits_flush(dst, (pd + j) >> ndx_sub_log2(bits), acc, mask);
}

/* Copies one tile of a sub-byte pack whose tiles own their destination
 * bytes (ndx_copy_tiles_own_bytes, src/host/copy_plan.h) (tile
 * and strides as ndx_copy_tile has them). Where the source's second-to-last
 * stride is 1 and its columns start on byte boundaries, a whole tile goes
 * by ndx_copy_bits_tile, and the bands of 8n rows of any other by
 * ndx_bits_bands, both in vectors on OpenCL. The rows past those have the
 * tile's source rows first copied into a private buffer of words, and n x n blocks (n
 * = 64/bits: a word of each of n rows) then go as n buffer words, one
 * ndx_bits_transpose and n destination words, destination row after row.
 * Read straight from the source, the blocks would walk down its rows a
 * word at a time, and rows a power-of-two apart all fall in one cache set: each
 * load a miss. The bytes outside whole blocks are gathered element by
 * element. */
NDX_FN void ndx_copy_tile_bits_wN(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, NDX_WORD pd, NDX_WORD sdi,
                                  NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, NDX_WORD ps,
                                  NDX_WORD ssi, NDX_WORD ssj, NDX_WORD ni, NDX_WORD nj, int bits) {
  int lg = ndx_sub_log2(bits), n = 64 / bits;
  int per = 1 << lg; /* destination rows start on bytes (ndx_copy_tiles_own_bytes) */
  int blocks =
      ssi == 1 && ps % per == 0 && ssj % per == 0 && (ndx_i64)nj * ni * bits <= 8 * NDX_STAGE_BYTES;
  NDX_WORD fi = blocks ? ni - ni % n : 0, fj = blocks ? nj - nj % n : 0;
  if (blocks && ndx_copy_bits_tile(dst, pd, sdi, src, ps, ssj, ni, nj, bits)) return;
  NDX_WORD fb = blocks ? (NDX_WORD)ndx_bits_bands(dst, pd, sdi, src, ps, ssj, fi, fj, bits) : 0;
  NDX_WORD rw = fi / n; /* words of a staged row, the first fb/n not staged */
  ndx_u64 stage[NDX_STAGE_BYTES / 8], w[64];
  for (NDX_WORD j = 0; j < fj; j++) {
    NDX_GLOBAL const ndx_u8 *row = src + ((ps + j * ssj) >> lg);
    for (NDX_WORD k = fb / n; k < rw; k++) stage[j * rw + k] = ndx_load_word(row + 8 * k);
  }
  for (NDX_WORD i = fb; i < fi; i += n) {
    for (NDX_WORD j = 0; j < fj; j += n) {
      for (int k = 0; k < n; k++) w[k] = stage[(j + k) * rw + i / n];
      ndx_bits_transpose(w, bits);
      for (int m = 0; m < n; m++) ndx_store_word(dst + ((pd + (i + m) * sdi + j) >> lg), w[m]);
    }
  }
  for (NDX_WORD i = 0; i < ni; i++)
    for (NDX_WORD j = i < fi ? fj : 0; j < nj; j += per)
      ndx_tile_byte_wN(dst, pd + i * sdi, src, ps + i * ssi, ssj, j, (int)ndx_min64(per, nj - j),
                       bits);
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
NDX_FN int ndx_copy_thin_wN(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, NDX_WORD pd, NDX_WORD sdi,
                            NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, NDX_WORD ps, NDX_WORD ssj,
                            NDX_WORD ni, NDX_WORD nj, int bits) {
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
 * rank-2, columns tj*tw.. of axis rank-1 (th x tw the tile shape), of the
 * batch whose element (0, 0) is at positions bd and bs. A transpose pack puts the
 * destination's unit-stride axis last and the source's second-to-last, so
 * the tile is read down its columns and written along its rows; where those
 * strides are exactly 1 it goes in ndx_copy_block's blocks, the rest (edges,
 * a flipped source) element by element. Edge tiles are clipped. O(rank +
 * the tile's elements). */
NDX_FN void ndx_copy_tile_wN(NDX_CONSTANT const ndx_pack_head *p,
                             NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                             NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits, NDX_WORD bd,
                             NDX_WORD bs, NDX_WORD ti, NDX_WORD tj) {
  int r = (int)p->rank;
  NDX_WORD di = ndx_extent_wN(p, r - 2), dj = ndx_extent_wN(p, r - 1);
  ndx_i64 th, tw;
  ndx_tile_shape(di, dj, (int)p->bits, &th, &tw);
  NDX_WORD i0 = ti * (NDX_WORD)th, j0 = tj * (NDX_WORD)tw;
  if (i0 >= di || j0 >= dj) return;
  NDX_WORD ni = (NDX_WORD)ndx_min64(di - i0, th), nj = (NDX_WORD)ndx_min64(dj - j0, tw);
  NDX_WORD sdi = ndx_stride_wN(p, 0, r - 2), sdj = ndx_stride_wN(p, 0, r - 1);
  NDX_WORD ssi = ndx_stride_wN(p, 1, r - 2), ssj = ndx_stride_wN(p, 1, r - 1);
  NDX_WORD pd = bd + i0 * sdi + j0 * sdj, ps = bs + i0 * ssi + j0 * ssj;
  if (bits < 8) {
    ndx_copy_tile_bits_wN(dst, pd, sdi, src, ps, ssi, ssj, ni, nj, bits);
    return;
  }
  int lanes = sdj == 1 && ssi == 1 ? ndx_tile_lanes(bits) : 1;
  if (lanes > 1 && (nj < lanes || ni < 2 * lanes) &&
      ndx_copy_thin_wN(dst, pd, sdi, src, ps, ssj, ni, nj, bits))
    return;
  /* the rows [0, fi) and columns [0, fj) that go in blocks; none when blocks
   * would be single elements */
  NDX_WORD fi = lanes > 1 ? ni - ni % lanes : 0, fj = lanes > 1 ? nj - nj % lanes : 0;
#if NDX_STREAM
  /* destination rows on whole lines: line blocks, each line streamed whole */
  NDX_WORD line = (NDX_WORD)(512 / bits);
  if (lanes > 1 && nj >= line && ndx_lines_aligned(dst, pd, sdi, bits)) {
    fj = nj - nj % line;
    ndx_copy_lines(dst, pd, sdi, src, ps, ssj, fi, fj, bits);
  } else
#endif
  {
    /* 8 and 16-bit blocks read half a line of each source row (2L elements,
     * 32 bytes): the tile's source lines are asked for at its start, so that
     * they come in together rather than one block's rows at a time */
    if (bits <= 16)
      for (NDX_WORD j = 0; j < fj; j++)
        NDX_PREFETCH(src + (ps + j * ssj) * (bits / 8), fi * (bits / 8), 0);
    for (NDX_WORD i = 0; i < fi; i += 2 * lanes) {
      int square = i + 2 * lanes > fi; /* an odd number of L-row bands: the last is L x L */
      for (NDX_WORD j = 0; j < fj; j += lanes)
        ndx_copy_block(dst, pd + i * sdi + j * sdj, sdi, src, ps + i * ssi + j * ssj, ssj, bits,
                       square);
    }
  }
  for (NDX_WORD i = 0; i < ni; i++)
    for (NDX_WORD j = i < fi ? fj : 0; j < nj; j++)
      ndx_copy_elem(dst, pd + i * sdi + j * sdj, src, ps + i * ssi + j * ssj, bits);
}

/* ndx_tile_groups of a transpose pack (rank >= 2) for `bits`-bit elements. */
NDX_FN int ndx_tile_groups_wN(NDX_CONSTANT const ndx_pack_head *p, int bits, ndx_i64 *gi,
                              ndx_i64 *gj) {
  int r = (int)p->rank;
  ndx_i64 e[2], sd[2], ss[2];
  for (int k = 0; k < 2; k++) {
    int a = r - 3 - k;
    e[k] = a >= 0 ? ndx_extent_wN(p, a) : 0;
    sd[k] = a >= 0 ? ndx_stride_wN(p, 0, a) : 0;
    ss[k] = a >= 0 ? ndx_stride_wN(p, 1, a) : 0;
  }
  return ndx_tile_groups(ndx_extent_wN(p, r - 2), ndx_extent_wN(p, r - 1), bits,
                         ndx_stride_wN(p, 0, r - 1), ndx_stride_wN(p, 1, r - 2), e, sd, ss, gi, gj);
}

/* Copies one tile of a grouped tile copy (ndx_tile_groups): rows I0 ..
 * I0+ni-1 and columns J0 .. J0+nj-1 of the batch's matrix (g), whose
 * element (0, 0) is at positions bd and bs: in blocks (ndx_group_blocks),
 * element by element where the tile has fewer than L rows or columns.
 * (Streamed line blocks, as ndx_copy_lines writes aligned tiles, do not
 * pay here: what bounds these is the source rows' cache misses; ndx-bench
 * --cl case "permute (7,6,5,4,3,2,1,0) f32 8^8", whose rows start on
 * lines.) */
NDX_FN void ndx_copy_group_tile_wN(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits, NDX_WORD bd,
                                   NDX_WORD bs, const ndx_tile_rows *g, ndx_i64 I0, ndx_i64 J0,
                                   ndx_i64 ni, ndx_i64 nj) {
  ndx_i64 lanes = ndx_tile_lanes(bits);
  if (lanes == 1 || ni < lanes || nj < lanes) {
    ndx_i64 drow, srow;
    for (ndx_i64 I = 0; I < ni; I++) {
      ndx_group_rows(&drow, 1, I0 + I, g->di, g->sdi, g->sgi);
      for (ndx_i64 J = 0; J < nj; J++) {
        ndx_group_rows(&srow, 1, J0 + J, g->dj, g->ssj, g->sgj);
        ndx_copy_elem(dst, bd + drow + J0 + J, src, bs + I0 + I + srow, bits);
      }
    }
    return;
  }
  ndx_group_blocks(dst, src, bits, bd, bs, g, I0, J0, 0, ni, 0, ni, nj);
}

/* Work-item `item` of a tile copy: one tile position in `batches` (>= 1,
 * ndx_tile_batches) consecutive batches, stepped by the odometer from one
 * start; a batch is the matrix of the last two axes and of the axes
 * ndx_tile_groups joins to them. Tile rows vary fastest, then tile
 * columns, then groups of batches, so that the items of a work-group read
 * the source along its unit axis, tile after tile (faster on PoCL than the
 * other way). Items past the last tile do nothing. */
NDX_FN void ndx_copy_tile_item_wN(NDX_CONSTANT const ndx_pack_head *p,
                                  NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                  NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits, ndx_i64 item,
                                  ndx_i64 batches) {
  if (p->numel == 0) return;
  int r = (int)p->rank;
  ndx_i64 di = ndx_extent_wN(p, r - 2), dj = ndx_extent_wN(p, r - 1), gi, gj, th, tw;
  int ng = ndx_tile_groups_wN(p, bits, &gi, &gj);
  ndx_i64 ri = di * gi, rj = dj * gj; /* a batch's matrix */
  ndx_tile_shape(ri, rj, bits, &th, &tw);
  ndx_i64 tj = (rj + tw - 1) / tw, ti = (ri + th - 1) / th;
  ndx_i64 col = item / ti, group = col / tj, b0 = group * batches, nb = p->numel / (ri * rj);
  if (b0 >= nb) return;
  ndx_i64 n = ndx_min64(nb - b0, batches);
  ndx_i64 I0 = (item - col * ti) * th, J0 = (col - group * tj) * tw;
  ndx_i64 ni = ndx_min64(ri - I0, th), nj = ndx_min64(rj - J0, tw);
  ndx_tile_rows g = {di, ndx_stride_wN(p, 0, r - 2), gi > 1 ? ndx_stride_wN(p, 0, r - 2 - ng) : 0,
                     dj, ndx_stride_wN(p, 1, r - 1), gj > 1 ? ndx_stride_wN(p, 1, r - 3) : 0};
  ndx_odo_wN o;
  ndx_odo_start_wN(p, &o, (NDX_WORD)(b0 * ri * rj));
  for (ndx_i64 b = 0; b < n; b++) {
    if (ng > 0)
      ndx_copy_group_tile_wN(dst, src, bits, o.pos[0], o.pos[1], &g, I0, J0, ni, nj);
    else
      ndx_copy_tile_wN(p, dst, src, bits, o.pos[0], o.pos[1], (NDX_WORD)(item - col * ti),
                       (NDX_WORD)(col - group * tj));
    ndx_odo_carry_wN(p, &o, r - 3 - ng); /* the next batch: the tile's axes stay at 0 */
  }
}

/* One run of sub-byte elements: element t < run from position ps + t*ss
 * of `src` to pd + t*sd of `dst`, through the byte being filled (`*cur`,
 * `*acc`, `*mask`, as ndx_bits_put). Where the destination runs with stride
 * 1, its whole bytes in the middle of the run are assembled directly: byte
 * copies, or shifted byte pairs, when the source runs with stride 1 too.
 * The caller flushes the last byte. */
NDX_ITEM_FN void ndx_bits_run_wN(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, ndx_i64 *cur, ndx_u32 *acc,
                                 ndx_u32 *mask, NDX_WORD pd, NDX_WORD sd,
                                 NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, NDX_WORD ps,
                                 NDX_WORD ss, NDX_WORD run, int bits) {
  int lg = ndx_sub_log2(bits);
  ndx_u32 per1 = (1u << lg) - 1u;
  NDX_WORD t = 0;
  if (sd == 1) {
    for (; t < run && ((ndx_u32)pd & per1) != 0; t++, pd++, ps += ss)
      ndx_bits_put(dst, cur, acc, mask, pd, ndx_load_bits(src, ps, bits), bits);
    NDX_WORD full = (run - t) >> lg;
    if (full > 0) {
      ndx_bits_flush(dst, *cur, *acc, *mask);
      *cur = -1;
      *acc = *mask = 0;
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
    ndx_bits_put(dst, cur, acc, mask, pd, ndx_load_bits(src, ps, bits), bits);
}

/* Copies into the destination bytes [b0, b1) for a sub-byte width (1, 2, 4):
 * the elements whose destination position falls in those bytes are one
 * C-order range (ndx_count_below); their bits are gathered per byte and each
 * byte is written once, so a bit that belongs to no destination element
 * keeps its value and no other work-item given other bytes writes these;
 * each run along the innermost axis by ndx_bits_run. Needs a distinct
 * destination. O(rank + the elements in those bytes). */
NDX_FN void ndx_copy_bytes_wN(NDX_CONSTANT const ndx_pack_head *p,
                              NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                              NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits, ndx_i64 b0,
                              ndx_i64 b1) {
  int lg = ndx_sub_log2(bits);
  ndx_i64 i0 = ndx_count_below_wN(p, b0 << lg);
  ndx_i64 i1 = ndx_count_below_wN(p, b1 << lg);
  if (i0 >= i1) return;
  ndx_odo_wN o;
  ndx_odo_start_wN(p, &o, (NDX_WORD)i0);
  int in = (int)p->rank - 1;
  NDX_WORD d = ndx_extent_wN(p, in);
  NDX_WORD sd = ndx_stride_wN(p, 0, in), ss = ndx_stride_wN(p, 1, in);
  ndx_i64 n = i1 - i0, cur = -1;
  ndx_u32 acc = 0, mask = 0;
  for (;;) {
    NDX_WORD j = o.index[in];
    NDX_WORD run = (NDX_WORD)ndx_min64(d - j, n);
    ndx_bits_run_wN(dst, &cur, &acc, &mask, o.pos[0], sd, src, o.pos[1], ss, run, bits);
    n -= run;
    if (n == 0) break;
    ndx_odo_next_row_wN(p, &o, j, sd, ss);
  }
  ndx_bits_flush(dst, cur, acc, mask);
}

/* Work-item `item` of a sub-byte copy: destination bytes [first +
 * item*chunk, first + (item+1)*chunk) clipped to the span's bytes. */
NDX_FN void ndx_copy_bytes_item_wN(NDX_CONSTANT const ndx_pack_head *p,
                                   NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                   NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                                   ndx_i64 item, ndx_i64 chunk) {
  ndx_i64 lo, hi, first, end;
  ndx_span_wN(p, 0, &lo, &hi);
  ndx_bytes_span(lo, hi, bits, &first, &end);
  ndx_i64 b0 = first + item * chunk;
  if (b0 >= end) return;
  ndx_copy_bytes_wN(p, dst, src, bits, b0, ndx_min64(end, b0 + chunk));
}

#endif /* one index form */
