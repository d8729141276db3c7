/* ndx_copy_cpu.h: the per-form copy bodies, one work-item's share of a copy
 * pack in the cpu shape, where a work-item copies its runs, tiles or
 * destination bytes by itself: ndx_copy_range_item, ndx_copy_tile_item,
 * ndx_copy_bytes (a work-item's bytes, ndx_bytes_item), and what they call
 * (ndx_copy_run, ndx_copy_range, ndx_tile_byte, ndx_copy_tile_bits,
 * ndx_copy_thin, ndx_copy_tile, ndx_tile_work_of, ndx_copy_group_tile,
 * ndx_bits_run).
 * kernels/ndx_copy.cl's kernels and the host emulation
 * (tests/test_device_host.c) call them; CUDA's (kernels/ndx_copy_cuda.cuh)
 * only ndx_copy_bytes. Private to ndx, as ndx_copy_items.h, which
 * includes it last, at each of its inclusions: define NDX_WIDE to 0 or 1
 * before including; the host and CUDA include it twice, with NDX_WIDE 0
 * and then 1, an OpenCL program (tools/embed.py inlines each header once)
 * once, for its -DNDX_WIDE. The functions are defined as name_wN, and the
 * list at the start of the section names both forms of each on one line
 * (ndx_copy_tile_item_wN is ndx_copy_tile_item_w64 where NDX_WIDE is 1), as
 * in ndx_device.h. */

/* At every inclusion: ndx_device.h selects NDX_WIDE's form (NDX_WN). */
#include "ndx/ndx_device.h"
#include "ndx_copy_geometry.h"
#include "ndx_launch.h"
#include "ndx_bits_transpose.h"
#include "ndx_cpu_vectors.h"

/* ==== Copy bodies, once per index form ====================================== */

#ifndef NDX_COPY_CPU_H_WN
#define NDX_COPY_CPU_H_WN
#define ndx_copy_run_wN NDX_WN(ndx_copy_run_w32, ndx_copy_run_w64)
#define ndx_copy_range_wN NDX_WN(ndx_copy_range_w32, ndx_copy_range_w64)
#define ndx_copy_range_item_wN NDX_WN(ndx_copy_range_item_w32, ndx_copy_range_item_w64)
#define ndx_tile_byte_wN NDX_WN(ndx_tile_byte_w32, ndx_tile_byte_w64)
#define ndx_copy_tile_bits_wN NDX_WN(ndx_copy_tile_bits_w32, ndx_copy_tile_bits_w64)
#define ndx_copy_thin_wN NDX_WN(ndx_copy_thin_w32, ndx_copy_thin_w64)
#define ndx_copy_tile_wN NDX_WN(ndx_copy_tile_w32, ndx_copy_tile_w64)
#define ndx_copy_tile_item_wN NDX_WN(ndx_copy_tile_item_w32, ndx_copy_tile_item_w64)
#define ndx_tile_work_of_wN NDX_WN(ndx_tile_work_of_w32, ndx_tile_work_of_w64)
#define ndx_copy_group_tile_wN NDX_WN(ndx_copy_group_tile_w32, ndx_copy_group_tile_w64)
#define ndx_bits_run_wN NDX_WN(ndx_bits_run_w32, ndx_bits_run_w64)
#define ndx_copy_bytes_wN NDX_WN(ndx_copy_bytes_w32, ndx_copy_bytes_w64)
#endif

#if (NDX_WIDE && !defined(NDX_COPY_CPU_H_W64)) || (!NDX_WIDE && !defined(NDX_COPY_CPU_H_W32))
#if NDX_WIDE
#define NDX_COPY_CPU_H_W64
#else
#define NDX_COPY_CPU_H_W32
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

/* Copies one tile of a pack of rank >= 2: its ni rows from i0 along axis
 * rank-2 and nj columns from j0 along axis rank-1 (clipped to the matrix
 * by the caller), of the batch whose element (0, 0) is at positions bd and
 * bs. A transpose pack puts the destination's unit-stride axis last and the
 * source's second-to-last, so the tile is read down its columns and
 * written along its rows; where those strides are exactly 1 it goes in
 * ndx_copy_block's blocks, the rest (edges, a flipped source) element by
 * element. O(rank + the tile's elements). */
NDX_FN void ndx_copy_tile_wN(NDX_CONSTANT const ndx_pack_head *p,
                             NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                             NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits, NDX_WORD bd,
                             NDX_WORD bs, NDX_WORD i0, NDX_WORD j0, NDX_WORD ni, NDX_WORD nj) {
  int r = (int)p->rank;
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

/* The work of work-item `item` of a tile copy (ndx_tile_work), from the
 * launch descriptor's tiles (ndx_launch.h): `row_units` tile positions a
 * batch, tile rows fastest, then tile columns, then groups of `chunk`
 * batches, so that the items of a work-group read the source along its
 * unit axis, tile after tile (faster on PoCL than the other way). */
NDX_FN ndx_tile_work ndx_tile_work_of_wN(NDX_CONSTANT const ndx_launch *d, ndx_i64 item) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int r = (int)p->rank;
  ndx_tile_work w;
  w.ri = (ndx_i64)ndx_extent_wN(p, r - 2) * d->join_k;
  w.rj = (ndx_i64)ndx_extent_wN(p, r - 1) * d->join_j;
  ndx_i64 group = item / d->row_units, in = item - group * d->row_units;
  ndx_i64 ti = d->row_units / d->tiles_j, col = in / ti;
  w.b0 = group * d->chunk;
  w.n = ndx_min64(d->units / d->row_units - w.b0, d->chunk);
  w.I0 = (in - col * ti) * d->tile_k, w.J0 = col * d->tile_j;
  w.ni = ndx_min64(w.ri - w.I0, d->tile_k), w.nj = ndx_min64(w.rj - w.J0, d->tile_j);
  return w;
}

/* Copies one tile of a grouped tile copy (ndx_launch.h's joins): rows I0 ..
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

/* Work-item `item` of a tile copy (ndx_tile_work_of): one tile position
 * in `chunk` consecutive batches, stepped by the odometer from one start.
 * Items past the last tile do nothing. */
NDX_FN void ndx_copy_tile_item_wN(NDX_CONSTANT const ndx_launch *d,
                                  NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                  NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int bits,
                                  ndx_i64 item) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  if (p->numel == 0) return;
  ndx_tile_work w = ndx_tile_work_of_wN(d, item);
  if (w.n <= 0) return;
  /* joins are of 8 to 64-bit elements (ndx_launch_join): with `bits` a
   * constant, the other widths' kernels leave the grouped body out */
  int r = (int)p->rank, joined = bits >= 8 && bits <= 64 && d->batch_axes < r - 2;
  ndx_tile_rows g = {ndx_extent_wN(p, r - 2), ndx_stride_wN(p, 0, r - 2), d->join_sdk,
                     ndx_extent_wN(p, r - 1), ndx_stride_wN(p, 1, r - 1), d->join_ssj};
  ndx_odo_wN o;
  ndx_odo_start_wN(p, &o, (NDX_WORD)(w.b0 * w.ri * w.rj));
  for (ndx_i64 b = 0; b < w.n; b++) {
    if (joined)
      ndx_copy_group_tile_wN(dst, src, bits, o.pos[0], o.pos[1], &g, w.I0, w.J0, w.ni, w.nj);
    else
      ndx_copy_tile_wN(p, dst, src, bits, o.pos[0], o.pos[1], (NDX_WORD)w.I0, (NDX_WORD)w.J0,
                       (NDX_WORD)w.ni, (NDX_WORD)w.nj);
    ndx_odo_carry_wN(p, &o, (int)d->batch_axes - 1); /* the next batch: the tile's axes stay 0 */
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

#endif /* one index form */
