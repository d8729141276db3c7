/* ndx_index_items.h: the per-work-item bodies of ndx's gathers and scatters
 * (src/host/index_plan.h has the two passes and their operands), shared by
 * the OpenCL kernels (kernels/ndx_index.cl), the CUDA kernels
 * (kernels/ndx_index.cu) and the host emulation of both
 * (tests/test_device_host.c, tests/test_cuda_emulate.cu). Private to ndx,
 * like ndx_copy_items.h, whose conventions it keeps: define NDX_WIDE before
 * including, the per-form functions are name_wN.
 *
 *   check  ndx_index_check_item: a range of the index's elements; each
 *          value is tested, the first fault recorded in the status words,
 *          and (claims) the winner of each slot kept by an atomic max
 *   copy   ndx_index_copy_item (8 bits and up: a C-order range, by rows
 *          where the index is constant along the innermost axis; in the
 *          winners form only the elements that hold their claim) and
 *          ndx_index_bytes_item (1, 2, 4 bits: destination bytes it owns)
 *
 * The status words are ndx_index_launch.h's. */

#include "ndx_copy_items.h"
#include "ndx_index_launch.h" /* the status words, the claims test, the atomic steps */

#ifndef NDX_INDEX_ITEMS_H
#define NDX_INDEX_ITEMS_H

/* Rows of a copy pass that takes one value per row go by streaming stores
 * (NDX_STREAM) when they are NDX_STREAM_ROW_BYTES or longer (shorter ones
 * share most of their lines with their neighbours') and the pass is a
 * scatter (rows at random places of a table nothing reads soon) or its
 * caller says so (`rows` 2: a gather's output larger than the caches
 * would keep). */
#define NDX_STREAM_ROW_BYTES 256

/* How many rows ahead of its copy a copy pass by rows prefetches the
 * source row (ndx_index_ahead): random rows' loads wait for memory, and
 * with one row ahead the prefetches arrive late (ndx-bench --cl case
 * "embedding lookup f32 [65536,256] by 32768" shows it). */
#define NDX_PREFETCH_ROWS 3

/* The most bytes of the source row that a take_along_axis work-item
 * prefetches (ndx_index_prefetch_picks): a row the outer caches keep. */
#define NDX_PICKS_PREFETCH_BYTES 65536

/* ndx_index_value of a 32-bit value with d < 2^31, in 32-bit arithmetic. */
NDX_FN ndx_i32 ndx_index_value32(ndx_i32 v, ndx_i32 d, int wrap) {
  ndx_i32 w = wrap && v < 0 ? v + d : v; /* v < 0, d >= 0: no overflow */
  return (ndx_u32)w < (ndx_u32)d ? w : -1;
}

/* The most operands a pass's pack has (the winners copy: dst, src, index,
 * claim slot, axis coordinate; src/host/index_plan.h). */
#define NDX_WALK_OPS 5

#endif /* NDX_INDEX_ITEMS_H */

/* ==== Bodies, once per index form ========================================= */

#ifndef NDX_INDEX_ITEMS_H_WN
#define NDX_INDEX_ITEMS_H_WN
#define ndx_walk_wN NDX_WN(ndx_walk_w32, ndx_walk_w64)
#define ndx_walk_start_wN NDX_WN(ndx_walk_start_w32, ndx_walk_start_w64)
#define ndx_walk_next_row_wN NDX_WN(ndx_walk_next_row_w32, ndx_walk_next_row_w64)
#define ndx_index_check_item_wN NDX_WN(ndx_index_check_item_w32, ndx_index_check_item_w64)
#define ndx_index_prefetch_row_wN NDX_WN(ndx_index_prefetch_row_w32, ndx_index_prefetch_row_w64)
#define ndx_index_prefetch_picks_wN                                                                \
  NDX_WN(ndx_index_prefetch_picks_w32, ndx_index_prefetch_picks_w64)
#define ndx_index_ahead_wN NDX_WN(ndx_index_ahead_w32, ndx_index_ahead_w64)
#define ndx_index_row_wN NDX_WN(ndx_index_row_w32, ndx_index_row_w64)
#define ndx_index_copy_item_wN NDX_WN(ndx_index_copy_item_w32, ndx_index_copy_item_w64)
#define ndx_index_bytes_item_wN NDX_WN(ndx_index_bytes_item_w32, ndx_index_bytes_item_w64)
#endif

#if (NDX_WIDE && !defined(NDX_INDEX_ITEMS_H_W64)) || (!NDX_WIDE && !defined(NDX_INDEX_ITEMS_H_W32))
#if NDX_WIDE
#define NDX_INDEX_ITEMS_H_W64
#else
#define NDX_INDEX_ITEMS_H_W32
#endif

/* ndx_odo's odometer over every operand of a pack (up to NDX_WALK_OPS;
 * the positions and steps of those it has not 0), with the innermost
 * axis's strides and extent at hand, stepped a row at a time by
 * ndx_odo_carry_ops. */
typedef struct ndx_walk_wN {
  NDX_WORD index[NDX_PACK_MAX_RANK];
  NDX_WORD pos[NDX_WALK_OPS];
  NDX_WORD step[NDX_WALK_OPS]; /* each operand's stride on the innermost axis */
  NDX_WORD ext;                /* that axis's extent */
  int in;                      /* and its number */
} ndx_walk_wN;

NDX_ITEM_FN void ndx_walk_start_wN(NDX_CONSTANT const ndx_pack_head *p, ndx_walk_wN *w,
                                   NDX_WORD i) {
  ndx_unravel_wN(p, i, w->index);
  w->in = (int)p->rank - 1;
  w->ext = ndx_extent_wN(p, w->in);
  for (int k = 0; k < NDX_WALK_OPS; k++) {
    int op = k < (int)p->nops;
    w->pos[k] = op ? ndx_index_position_wN(p, k, w->index) : 0;
    w->step[k] = op ? ndx_stride_wN(p, k, w->in) : 0;
  }
}

/* From index j of the innermost axis, whose row is done: to the next row's
 * start. */
NDX_ITEM_FN void ndx_walk_next_row_wN(NDX_CONSTANT const ndx_pack_head *p, ndx_walk_wN *w,
                                      NDX_WORD j) {
  int in = w->in, n = (int)p->nops;
  for (int k = 0; k < n; k++) w->pos[k] -= j * w->step[k];
  w->index[in] = 0;
  ndx_odo_carry_ops_wN(p, w->index, w->pos, n, in - 1);
}

/* Check pass, work-item `item`: the index elements [item*chunk, ...) of the
 * check pack (index_plan.h: operands index, claim slot, axis coordinate,
 * C-order index in S). `claims` is NULL without claims. */
NDX_ITEM_FN void ndx_index_check_item_wN(NDX_CONSTANT const ndx_pack_head *p,
                                         NDX_GLOBAL const ndx_u8 *NDX_RESTRICT index,
                                         int index_bits, ndx_i64 d, int wrap,
                                         NDX_GLOBAL ndx_u32 *claims, ndx_i64 claim_stride,
                                         NDX_GLOBAL ndx_u32 *status, ndx_i64 item, ndx_i64 chunk) {
  ndx_i64 i0 = item * chunk;
  if (i0 >= p->numel) return;
  ndx_i64 n = ndx_min64(p->numel, i0 + chunk) - i0;
  ndx_walk_wN w;
  ndx_walk_start_wN(p, &w, (NDX_WORD)i0);
  NDX_WORD s0 = w.step[0], s1 = w.step[1], s2 = w.step[2], s3 = w.step[3];
  for (;;) {
    NDX_WORD j = w.index[w.in], run = (NDX_WORD)ndx_min64(w.ext - j, n);
    if (!claims) { /* a test the compiler vectorizes; the scan below finds the element */
      int bad = 0;
      for (NDX_WORD t = 0; t < run; t++)
        bad |= ndx_index_value(ndx_load_index(index, w.pos[0] + t * s0, index_bits), d, wrap) < 0;
      if (!bad) {
        n -= run;
        if (n == 0) return;
        ndx_walk_next_row_wN(p, &w, j);
        continue;
      }
    }
    for (NDX_WORD t = 0; t < run; t++) {
      ndx_i64 v = ndx_load_index(index, w.pos[0] + t * s0, index_bits);
      ndx_i64 k = ndx_index_value(v, d, wrap);
      if (k < 0) {
        ndx_index_fault_record(status, (ndx_i64)(w.pos[3] + t * s3), v);
        return;
      }
      if (claims)
        ndx_atomic_max(claims + (w.pos[1] + t * s1 + k * claim_stride),
                       (ndx_u32)(w.pos[2] + t * s2 + 1));
    }
    n -= run;
    if (n == 0) return;
    ndx_walk_next_row_wN(p, &w, j);
  }
}

/* Where a row takes one index value and the source moves with it (a
 * gather, step1 not 0): the prefetch of a later row's source (the walk is
 * at that row's start, `n` elements left), issued before the copy of the
 * rows before it so that the random row's lines are on their way; `far` as
 * NDX_PREFETCH's. (Prefetching a scatter's rows for writing does not pay:
 * ndx-bench --cl case "scatter rows f32 32768 into [65536,256]".) */
NDX_ITEM_FN void ndx_index_prefetch_row_wN(const ndx_walk_wN *w, NDX_GLOBAL const ndx_u8 *src,
                                           NDX_GLOBAL const ndx_u8 *NDX_RESTRICT index, int bits,
                                           int index_bits, ndx_i64 d, int wrap, ndx_i64 bias,
                                           ndx_i64 step1, ndx_i64 n, int far) {
  if (step1 == 0) return;
  ndx_i64 k = ndx_index_value(ndx_load_index(index, w->pos[2], index_bits) - bias, d, wrap);
  if (k >= 0)
    NDX_PREFETCH(src + (((w->pos[1] + k * step1) * bits) >> 3),
                 ndx_min64((ndx_min64(w->ext, n) * bits + 7) >> 3, 1024), far);
}

/* Where a run's values pick among the d contiguous source elements of one
 * row (take_along_axis on the innermost axis) and the work-item starts a
 * row: the prefetch of the next row's d elements (NDX_PICKS_PREFETCH_BYTES
 * at most) into the outer caches, so that the items of that row find
 * them there rather than wait on a miss at each random element (ndx-bench
 * --cl case "take_along_axis(1) f32 4096x4096"). The walk is at the row's
 * start; the caller knows a next row exists. */
NDX_ITEM_FN void ndx_index_prefetch_picks_wN(NDX_CONSTANT const ndx_pack_head *p,
                                             const ndx_walk_wN *w, NDX_GLOBAL const ndx_u8 *src,
                                             int bits, ndx_i64 d) {
  ndx_i64 bytes = d * (bits / 8);
  if (bytes > NDX_PICKS_PREFETCH_BYTES) return;
  ndx_walk_wN a = *w;
  ndx_walk_next_row_wN(p, &a, 0);
  NDX_PREFETCH(src + (ndx_i64)a.pos[1] * (bits / 8), bytes, 1);
}

/* Moves walk `a`, with `*na` elements from its row on, one row on and
 * prefetches that row's source (ndx_index_prefetch_row); nothing once the
 * range is done. */
NDX_ITEM_FN void ndx_index_ahead_wN(NDX_CONSTANT const ndx_pack_head *p, ndx_walk_wN *a,
                                    ndx_i64 *na, NDX_GLOBAL const ndx_u8 *src,
                                    NDX_GLOBAL const ndx_u8 *NDX_RESTRICT index, int bits,
                                    int index_bits, ndx_i64 d, int wrap, ndx_i64 bias,
                                    ndx_i64 step1) {
  if (*na <= 0) return;
  NDX_WORD j = a->index[a->in];
  *na -= ndx_min64(a->ext - j, *na);
  if (*na <= 0) return;
  ndx_walk_next_row_wN(p, a, j);
  ndx_index_prefetch_row_wN(a, src, index, bits, index_bits, d, wrap, bias, step1, *na, 1);
}

/* A row of `run` elements (bits >= 8) of a copy pass that takes one value
 * per row: src position ps to dst position pd, both contiguous. With
 * `stream` (a pass whose rows stream), a row of NDX_STREAM_ROW_BYTES or
 * more goes by streaming stores where there are any (NDX_STREAM); the
 * caller fences after its last row (ndx_stream_fence). */
NDX_ITEM_FN void ndx_index_row_wN(NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst, NDX_WORD pd,
                                  NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, NDX_WORD ps,
                                  NDX_WORD run, int bits, int stream) {
#if NDX_STREAM
  ndx_i64 bytes = (ndx_i64)run * (bits / 8);
  if (stream && bytes >= NDX_STREAM_ROW_BYTES) {
    ndx_stream_bytes(dst + (ndx_i64)pd * (bits / 8), src + (ndx_i64)ps * (bits / 8), bytes);
    return;
  }
#else
  (void)stream;
#endif
  ndx_copy_run_wN(dst, pd, 1, src, ps, 1, run, bits, 1);
}

/* One run of a copy pass, an index value per element: element t of the
 * run reads its value at index position + t*SI and, for a valid k, copies
 * src position + t*SS + k*S1 to dst position + t*SD + k*S0. VALUE(pos) is
 * the coordinate of the value at index position pos (NDX_VALUE or
 * NDX_VALUE32). Positions in NDX_WORD: each of those sums is a position of
 * its layout, so the 32-bit form's fit in 32 bits, and a vectorized gather
 * takes 32-bit offsets, which an x86 CPU device gathers faster than 64-bit
 * ones (ndx-bench --cl case "take_along_axis(1) f32 4096x4096"). */
#define NDX_INDEX_ELEMS(SD, SS, SI, S0, S1, VALUE)                                                 \
  for (NDX_WORD t = 0; t < run; t++) {                                                             \
    ndx_i64 k = VALUE(w.pos[2] + t * (SI));                                                        \
    if (k >= 0)                                                                                    \
      ndx_copy_elem(dst, (NDX_WORD)(w.pos[0] + t * (SD) + (NDX_WORD)k * (NDX_WORD)(S0)), src,      \
                    (NDX_WORD)(w.pos[1] + t * (SS) + (NDX_WORD)k * (NDX_WORD)(S1)), bits);         \
  }
#define NDX_VALUE(pos) ndx_index_value(ndx_load_index(index, (pos), index_bits) - bias, d, wrap)
/* The same coordinate where `narrow` (32-bit values, no bias, d < 2^31):
 * in 32-bit arithmetic, which a vectorized loop does in vectors of half the
 * width (ndx-bench --cl case "take_along_axis(1) f32 4096x4096"). */
#define NDX_VALUE32(pos) ndx_index_value32((ndx_i32)ndx_load32(index, (pos)), (ndx_i32)d, wrap)

/* A run of take_along_axis's form (a narrow gather whose source moves by
 * 0 and destination and index by 1): its values tested first, by a loop
 * the compiler vectorizes; then, when none is invalid (the check pass saw
 * to that, unless the index changed since), a loop with no branch, which
 * the compiler vectorizes too: eight source loads in flight at once, not
 * one after the other behind a test each (ndx-bench --cl case
 * "take_along_axis(1) f32 4096x4096", against NDX_INDEX_ELEMS's loop).
 * Its coordinates are clamped into [0, d) all the same, so that a value
 * changed since the test still reads inside the row. A run with an invalid
 * value goes as NDX_INDEX_ELEMS. */
#define NDX_PICK_ELEMS                                                                             \
  {                                                                                                \
    int bad = 0;                                                                                   \
    for (NDX_WORD t = 0; t < run; t++) bad |= NDX_VALUE32(w.pos[2] + t) < 0;                       \
    if (bad) {                                                                                     \
      NDX_INDEX_ELEMS(1, 0, 1, 0, step1, NDX_VALUE32)                                              \
    } else {                                                                                       \
      for (NDX_WORD t = 0; t < run; t++) {                                                         \
        ndx_i32 k = NDX_VALUE32(w.pos[2] + t);                                                     \
        ndx_copy_elem(dst, w.pos[0] + t, src,                                                      \
                      w.pos[1] + (NDX_WORD)(k < 0 ? 0 : k) * (NDX_WORD)step1, bits);               \
      }                                                                                            \
    }                                                                                              \
  }

/* A run of the winners form: NDX_INDEX_ELEMS's elements, each copied only
 * when it holds its value's claim (ndx_index_wins). */
#define NDX_WINNER_ELEMS                                                                           \
  for (NDX_WORD t = 0; t < run; t++) {                                                             \
    ndx_i64 k =                                                                                    \
        ndx_index_value(ndx_load_index(index, w.pos[2] + t * si, index_bits) - bias, d, wrap);     \
    if (k >= 0 && ndx_index_wins(claims, claim_stride, w.pos[3] + t * w.step[3],                   \
                                 w.pos[4] + t * w.step[4], k))                                     \
      ndx_copy_elem(dst, w.pos[0] + t * sd + k * step0, src, w.pos[1] + t * ss, bits);             \
  }

/* Copy pass (8 bits and up), work-item `item`: C-order elements [item*chunk,
 * ...) of the copy pack (operands dst, src, index). Value v read at operand
 * 2 gives k = ndx_index_value(v - bias, d, wrap); a valid k copies src
 * position + k*step1 to dst position + k*step0, an invalid one nothing.
 * `rows` (whether 0: a constant in the caller) promises innermost strides
 * 1, 1, 0: one value per row and the row copied as a block, by streaming
 * stores for 2 (NDX_STREAM_ROW_BYTES). `claims` is the winners form's table
 * (operands 3 and 4 its claim slot and axis coordinate), NULL for the other
 * forms. */
NDX_ITEM_FN void ndx_index_copy_item_wN(NDX_CONSTANT const ndx_pack_head *p,
                                        NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                        NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src,
                                        NDX_GLOBAL const ndx_u8 *NDX_RESTRICT index,
                                        NDX_GLOBAL const ndx_u32 *NDX_RESTRICT claims,
                                        ndx_i64 claim_stride, int bits, int index_bits, ndx_i64 d,
                                        int wrap, ndx_i64 bias, ndx_i64 step0, ndx_i64 step1,
                                        ndx_i64 item, ndx_i64 chunk, int rows) {
  ndx_i64 i0 = item * chunk;
  if (i0 >= p->numel) return;
  ndx_i64 n = ndx_min64(p->numel, i0 + chunk) - i0;
  ndx_walk_wN w;
  ndx_walk_start_wN(p, &w, (NDX_WORD)i0);
  NDX_WORD sd = w.step[0], ss = w.step[1], si = w.step[2], j0 = w.index[w.in];
  if (rows) {
    int stream = step0 != 0 || rows == 2;
    ndx_walk_wN a = w; /* a gather's walk NDX_PREFETCH_ROWS rows ahead of w */
    ndx_i64 na = NDX_PREFETCHES && step1 != 0 ? n : 0;
    for (int r = 1; r < NDX_PREFETCH_ROWS; r++)
      ndx_index_ahead_wN(p, &a, &na, src, index, bits, index_bits, d, wrap, bias, step1);
    for (;;) {
      NDX_WORD j = w.index[w.in], run = (NDX_WORD)ndx_min64(w.ext - j, n);
      NDX_WORD p0 = w.pos[0], p1 = w.pos[1], p2 = w.pos[2], p3 = w.pos[3], p4 = w.pos[4];
      n -= run;
      if (n > 0) ndx_walk_next_row_wN(p, &w, j);
      ndx_index_ahead_wN(p, &a, &na, src, index, bits, index_bits, d, wrap, bias, step1);
      ndx_i64 k = ndx_index_value(ndx_load_index(index, p2, index_bits) - bias, d, wrap);
      if (k >= 0 && ndx_index_wins(claims, claim_stride, p3, p4, k))
        ndx_index_row_wN(dst, (NDX_WORD)(p0 + k * step0), src, (NDX_WORD)(p1 + k * step1), run,
                         bits, stream);
      if (n == 0) {
        if (stream) ndx_stream_fence(); /* after the rows ndx_index_row streamed */
        return;
      }
    }
  }
  /* The common runs get loops with their strides as constants, so that a
   * side that runs contiguously is a vector load or store, not a gather or
   * scatter: a gather (step0 0) whose destination and index move by 1 and
   * whose source moves by 0 (the indexed axis is the innermost,
   * take_along_axis) or 1; a scatter (step1 0), mirrored. */
  int gather = step0 == 0 && sd == 1 && si == 1, scatter = step1 == 0 && ss == 1 && si == 1;
  int narrow = index_bits == 32 && bias == 0 && d <= 0x7fffffff;
  if (NDX_PREFETCHES && gather && ss == 0 && step1 == 1 && j0 == 0 && i0 + w.ext < p->numel)
    ndx_index_prefetch_picks_wN(p, &w, src, bits, d);
  for (;;) {
    NDX_WORD j = w.index[w.in], run = (NDX_WORD)ndx_min64(w.ext - j, n);
    if (claims)
      NDX_WINNER_ELEMS
    else if (gather && ss == 0 && narrow)
      NDX_PICK_ELEMS
    else if (gather && ss == 0)
      NDX_INDEX_ELEMS(1, 0, 1, 0, step1, NDX_VALUE)
    else if (gather && ss == 1)
      NDX_INDEX_ELEMS(1, 1, 1, 0, step1, NDX_VALUE)
    else if (scatter && sd == 0)
      NDX_INDEX_ELEMS(0, 1, 1, step0, 0, NDX_VALUE)
    else if (scatter && sd == 1)
      NDX_INDEX_ELEMS(1, 1, 1, step0, 0, NDX_VALUE)
    else
      NDX_INDEX_ELEMS(sd, ss, si, step0, step1, NDX_VALUE)
    n -= run;
    if (n == 0) return;
    ndx_walk_next_row_wN(p, &w, j);
  }
}
#undef NDX_INDEX_ELEMS
#undef NDX_WINNER_ELEMS
#undef NDX_PICK_ELEMS
#undef NDX_VALUE
#undef NDX_VALUE32

/* Copy pass below 8 bits, of a pack whose destination is distinct and
 * moves not (a gather, a claims scatter: step0 is 0): a work-item owns the
 * destination bytes [b0, b1) (ndx_bytes_item of the span's bytes, which the
 * host computes once), the C-order range of elements in them
 * (ndx_count_below), and writes each byte once; the bits of elements with
 * no valid value, and of no element, keep theirs. Values as
 * ndx_index_copy_item. */
NDX_ITEM_FN void ndx_index_bytes_item_wN(NDX_CONSTANT const ndx_pack_head *p,
                                         NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                         NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src,
                                         NDX_GLOBAL const ndx_u8 *NDX_RESTRICT index, int bits,
                                         int index_bits, ndx_i64 d, int wrap, ndx_i64 bias,
                                         ndx_i64 step1, ndx_i64 b0, ndx_i64 b1) {
  if (b0 >= b1) return;
  int lg = ndx_sub_log2(bits);
  ndx_i64 i0 = ndx_count_below_wN(p, b0 << lg), i1 = ndx_count_below_wN(p, b1 << lg);
  if (i0 >= i1) return;
  ndx_i64 n = i1 - i0, cur = -1;
  ndx_u32 acc = 0, mask = 0;
  ndx_walk_wN w;
  ndx_walk_start_wN(p, &w, (NDX_WORD)i0);
  NDX_WORD sd = w.step[0], ss = w.step[1], si = w.step[2];
  for (;;) {
    NDX_WORD j = w.index[w.in], run = (NDX_WORD)ndx_min64(w.ext - j, n);
    NDX_WORD p0 = w.pos[0], p1 = w.pos[1], p2 = w.pos[2];
    n -= run;
    if (n > 0) {
      ndx_walk_next_row_wN(p, &w, j);
      if (si == 0)
        ndx_index_prefetch_row_wN(&w, src, index, bits, index_bits, d, wrap, bias, step1, n, 0);
    }
    if (si != 0) {
      for (NDX_WORD t = 0; t < run; t++) {
        ndx_i64 v = ndx_load_index(index, p2 + t * si, index_bits) - bias;
        ndx_i64 k = ndx_index_value(v, d, wrap);
        if (k >= 0)
          ndx_bits_put(dst, &cur, &acc, &mask, p0 + t * sd,
                       ndx_load_bits(src, p1 + t * ss + k * step1, bits), bits);
      }
    } else { /* one value for the run: a row */
      ndx_i64 k = ndx_index_value(ndx_load_index(index, p2, index_bits) - bias, d, wrap);
      if (k >= 0)
        ndx_bits_run_wN(dst, &cur, &acc, &mask, p0, sd, src, (NDX_WORD)(p1 + k * step1), ss, run,
                        bits);
    }
    if (n == 0) break;
  }
  ndx_bits_flush(dst, cur, acc, mask);
}

#endif /* one index form */
