/* ndx_convert_gpu.h: the gpu shape's conversion of a transpose, through
 * the copy's tile (ndx_copy_gpu.h), in the dialect of ndx_device.h;
 * kernels/ndx_convert.cl and kernels/ndx_convert.cu wrap it.
 *
 * The tile is the copy's for the destination's width, planned by
 * ndx_launch_gpu_convert (src/host/launch.c): phase 1 loads source
 * elements along k, the source's unit axis, converts each in registers
 * and puts it into work-group memory at the destination's width; phase 2
 * is the copy's own (ndx_gpu_tile_store_wN), storing along j, the
 * destination's unit axis. So both sides' accesses coalesce as the copy's
 * do, and the conversion costs registers, not memory traffic. Into a
 * 4-bit destination the tile is the copy's below 8 bits, a byte of two
 * converted elements a slot. The types are the caller's: OpenCL's
 * compile-time constants, so that the loads, stores and conversion fold,
 * or CUDA's kernel arguments (ndx_convert.cu). */
#include "ndx/ndx_device.h"
#include "ndx_convert.h"
#include "ndx_convert_items.h"
#include "ndx_copy_gpu.h"
#include "ndx_gpu_guard.h"
#include "ndx_launch.h"

#ifndef NDX_CONVERT_GPU_H_WN
#define NDX_CONVERT_GPU_H_WN
#define ndx_convert_tile_load_wN NDX_WN(ndx_convert_tile_load_w32, ndx_convert_tile_load_w64)
#define ndx_convert_tile_pairs_wN NDX_WN(ndx_convert_tile_pairs_w32, ndx_convert_tile_pairs_w64)
#define ndx_convert_tile_words_wN NDX_WN(ndx_convert_tile_words_w32, ndx_convert_tile_words_w64)
#define ndx_convert_bits_load_wN NDX_WN(ndx_convert_bits_load_w32, ndx_convert_bits_load_w64)
#define ndx_convert_transpose_wN NDX_WN(ndx_convert_transpose_w32, ndx_convert_transpose_w64)
#endif

#if (NDX_WIDE && !defined(NDX_CONVERT_GPU_H_W64)) || (!NDX_WIDE && !defined(NDX_CONVERT_GPU_H_W32))
#if NDX_WIDE
#define NDX_CONVERT_GPU_H_W64
#else
#define NDX_CONVERT_GPU_H_W32
#endif

/* Phase 1 from a 4-bit source whose tile rows hold their element pairs
 * in whole bytes (ndx_launch.group 2, rows_on_words of src/host/launch.c):
 * work-item `lid` of `n` takes slots of a tile row, slots_k of them a row,
 * slot c the elements k0 + 2c and k0 + 2c + 1, loading the source byte
 * that holds both (a pair the matrix ends inside: its one element), so
 * that a warp's loads are whole bytes; NDX_GPU_BATCH slots before it puts
 * any, each element converted into type dt and put in the order of
 * ndx_launch_put, which keeps a warp's puts on distinct banks. */
NDX_FN void ndx_convert_tile_pairs_wN(NDX_CONSTANT const ndx_launch *d, const ndx_gpu_tile_wN *w,
                                      NDX_LOCAL ndx_u8 *tile,
                                      NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int st, int dt,
                                      ndx_i64 lid, ndx_i64 n, ndx_i64 step,
                                      const ndx_gpu_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int r = (int)p->rank, eb = ndx_cv_bits(dt) / 8;
  ndx_i64 dk = ndx_gpu_matrix_wN(d, 0), dj = ndx_gpu_matrix_wN(d, 1);
  ndx_gpu_join rows = ndx_gpu_tile_join_wN(d, w, 1);
  ndx_i64 ssk = ndx_stride_wN(p, 1, r - 2);
  ndx_i64 elems = d->slots_k * d->tile_j;
  for (ndx_i64 e0 = lid; e0 < elems; e0 += NDX_GPU_BATCH * n) {
    /* the batch in two words, so that nothing spills: byte i of `pairs`
     * the nibbles of slot i (element k0 + 2c in the low one), and in bits
     * 4i.. of `how` whether it loaded (1), holds that element alone (2),
     * puts in the other order (4, ndx_launch_put) */
    ndx_u32 pairs = 0, how = 0;
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_i64 e = e0 + i * n, it = step * 1024 + (e - lid) / n;
      if (e >= elems) continue;
      /* a slot of a tile: 32-bit division (a 64-bit one spills) */
      int a = (int)e / (int)d->slots_k, c = (int)e - a * (int)d->slots_k, b = 2 * c;
      if (w->j0 + a >= dj || b >= d->tile_k || w->k0 + b >= dk) continue;
      ndx_i64 ps = w->pos[1] + (w->k0 + b) * ssk + ndx_gpu_joined(&rows, a);
      int alone = d->tile_k - b < 2 || dk - w->k0 - b < 2;
      ndx_i64 lo = ssk > 0 || alone ? ps : ps - 1; /* the pair's lower position */
      if (!ndx_gpu_in(g, 1, lo, alone ? 1 : 2, 4)) continue;
      NDX_GPU_TRACE(NDX_TRACE_TILE, it, src + lo / 2, 1);
      ndx_u32 v;
      if (alone) {
        v = ndx_load_bits(src, ps, 4);
      } else {
        v = ndx_load8(src, lo / 2);
        v = ssk > 0 ? v : ((v >> 4) | (v << 4)) & 0xffu;
      }
      pairs |= v << (8 * i);
      how |= (1u | (ndx_u32)alone << 1 | (ndx_u32)ndx_launch_put(c, 0, eb, 2) << 2) << (4 * i);
    }
    /* put x of slot i in one loop, one conversion in its body */
    for (int k = 0; k < 2 * NDX_GPU_BATCH; k++) {
      int i = k >> 1, x = k & 1, h = (int)(how >> (4 * i)) & 7, t = x ^ (h >> 2);
      if (!(h & 1) || (t > 0 && (h & 2))) continue;
      int e = (int)(e0 + i * n), a = e / (int)d->slots_k, b = 2 * (e - a * (int)d->slots_k);
      ndx_i64 at = a * d->pitch + (b + t) * eb;
      NDX_GPU_TRACE(NDX_TRACE_TILE | NDX_TRACE_LOCAL | NDX_TRACE_STORE,
                    step * 1024 + ((e0 - lid) / n + i) * 2 + x, tile + at, eb);
      ndx_u128 cv;
      cv.x = ndx_convert_bits((pairs >> (8 * i + 4 * t)) & 15u, st, dt), cv.y = 0;
      ndx_gpu_tile_put(tile, at, eb, cv);
    }
  }
}

/* Phase 1 from a 4-bit source whose tile rows start and end on 4-byte
 * words (ndx_launch.group 8, convert_words of src/host/launch.c): as the
 * pairs above, slot c the eight elements from k0 + 8c, one load of the
 * word that holds them, so that a lane keeps four bytes in flight a slot,
 * not one; each element converted and put in the order of ndx_launch_put,
 * which turns a slot's eight puts so that a warp's fall on distinct banks
 * ("convert f4e2m1fn -> f16 transpose 4096x4096" of ndx-bench
 * --gpu-model). */
NDX_FN void ndx_convert_tile_words_wN(NDX_CONSTANT const ndx_launch *d, const ndx_gpu_tile_wN *w,
                                      NDX_LOCAL ndx_u8 *tile,
                                      NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int st, int dt,
                                      ndx_i64 lid, ndx_i64 n, ndx_i64 step,
                                      const ndx_gpu_guard *g) {
  int eb = ndx_cv_bits(dt) / 8;
  ndx_i64 dk = ndx_gpu_matrix_wN(d, 0), dj = ndx_gpu_matrix_wN(d, 1);
  ndx_gpu_join rows = ndx_gpu_tile_join_wN(d, w, 1);
  ndx_i64 elems = d->slots_k * d->tile_j;
  for (ndx_i64 e0 = lid; e0 < elems; e0 += NDX_GPU_BATCH * n) {
    /* v.x: the word; to: the slot's first byte of the tile times 8 plus
     * its turn, ndx_launch_put's first element (ndx_gpu_batch.h) */
    ndx_gpu_held q[NDX_GPU_BATCH];
    ndx_gpu_clear(q);
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_i64 e = e0 + i * n, it = step * 1024 + (e - lid) / n;
      ndx_gpu_held h = ndx_gpu_none();
      ndx_i64 ps = 0, t = -1;
      if (e < elems) t = ndx_gpu_tile_source_wN(d, w, &rows, e, dk, dj, 1, 8, eb, &ps);
      if (t >= 0 && ndx_gpu_in(g, 1, ps, 8, 4)) {
        /* the slot's word in its row: no realign from a 4-bit source */
        int c = (int)e - (int)e / (int)d->slots_k * (int)d->slots_k;
        NDX_GPU_TRACE(NDX_TRACE_TILE, it, src + ps / 2, 4);
        h.v.x = ndx_load32(src, ps / 8);
        h.to = t * 8 + ndx_launch_put(c, 0, eb, 8);
      }
      ndx_gpu_push(q, h);
    }
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_gpu_held h = q[0];
      ndx_gpu_push(q, ndx_gpu_none());
      if (h.to < 0) continue;
      for (int x = 0; x < 8; x++) {
        int t = (x + (int)(h.to & 7)) & 7;
        ndx_i64 at = (h.to >> 3) + t * eb;
        NDX_GPU_TRACE(NDX_TRACE_TILE | NDX_TRACE_LOCAL | NDX_TRACE_STORE,
                      (step * 1024 + (e0 - lid) / n + i) * 8 + x, tile + at, eb);
        ndx_u128 cv;
        cv.x = ndx_convert_bits((ndx_u32)(h.v.x >> (4 * t)) & 15u, st, dt), cv.y = 0;
        ndx_gpu_tile_put(tile, at, eb, cv);
      }
    }
  }
}

/* Phase 1: work-item `lid` of `n` loads source elements of type st along
 * k, NDX_GPU_BATCH of them before it stores any (as ndx_gpu_tile_load_wN
 * loads the copy's), and puts each into row j - j0 of the tile converted
 * into type dt, one conversion in registers at a time. */
NDX_FN void ndx_convert_tile_load_wN(NDX_CONSTANT const ndx_launch *d, const ndx_gpu_tile_wN *w,
                                     NDX_LOCAL ndx_u8 *tile,
                                     NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int st, int dt,
                                     ndx_i64 lid, ndx_i64 n, ndx_i64 step, const ndx_gpu_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int r = (int)p->rank, sb = ndx_cv_bits(st), eb = ndx_cv_bits(dt) / 8;
  ndx_i64 dk = ndx_gpu_matrix_wN(d, 0), dj = ndx_gpu_matrix_wN(d, 1);
  ndx_gpu_join rows = ndx_gpu_tile_join_wN(d, w, 1);
  ndx_i64 ssk = ndx_stride_wN(p, 1, r - 2);
  ndx_i64 elems = d->slots_k * d->tile_j;
  for (ndx_i64 e0 = lid; e0 < elems; e0 += NDX_GPU_BATCH * n) {
    /* v.x: a source element's bits; to: a byte of the tile (ndx_gpu_batch.h) */
    ndx_gpu_held q[NDX_GPU_BATCH];
    ndx_gpu_clear(q);
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_i64 e = e0 + i * n, it = step * 1024 + (e - lid) / n, ps = 0, t = -1;
      ndx_gpu_held h = ndx_gpu_none();
      if (e < elems) t = ndx_gpu_tile_source_wN(d, w, &rows, e, dk, dj, ssk, 1, eb, &ps);
      if (t >= 0 && ndx_gpu_in(g, 1, ps, 1, sb)) {
        NDX_GPU_TRACE(NDX_TRACE_TILE, it, src + ndx_byte_of(ps, sb), sb < 8 ? 1 : sb / 8);
        h.v.x = ndx_convert_load(src, ps, sb);
        h.to = t;
      }
      ndx_gpu_push(q, h);
    }
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_gpu_held h = q[0];
      ndx_gpu_push(q, ndx_gpu_none());
      if (h.to < 0) continue;
      NDX_GPU_TRACE(NDX_TRACE_TILE | NDX_TRACE_LOCAL | NDX_TRACE_STORE,
                    step * 1024 + (e0 - lid) / n + i, tile + h.to, eb);
      h.v.x = ndx_convert_bits(h.v.x, st, dt);
      ndx_gpu_tile_put(tile, h.to, eb, h.v);
    }
  }
}

/* Phase 1 into a 4-bit destination, through the copy's tile below 8 bits
 * (ndx_gpu_bits_load_wN): work-item `lid` of `n` makes byte kb of tile row
 * j - j0 from the source elements k0 + 2kb and k0 + 2kb + 1 of row j (the
 * first in the low nibble; the matrix may end after it), each converted
 * from type st into type dt. Where d->group is 2, every such pair lies in
 * one source word of two elements, which the planner proved aligned (k of
 * stride 1 or -1), and a slot loads that word, so that a warp's loads are
 * whole sectors; else an element at a time. NDX_GPU_BATCH slots loaded
 * before it puts any; phase 2 is the copy's (ndx_gpu_bits_store_wN).
 * ("convert f16 -> f4e2m1fn transpose 4096x4096" of ndx-bench
 * --gpu-model.) */
NDX_FN void ndx_convert_bits_load_wN(NDX_CONSTANT const ndx_launch *d, const ndx_gpu_tile_wN *w,
                                     NDX_LOCAL ndx_u8 *tile,
                                     NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int st, int dt,
                                     ndx_i64 lid, ndx_i64 n, ndx_i64 step, const ndx_gpu_guard *g) {
  NDX_CONSTANT const ndx_pack_head *p = ndx_launch_pack(d);
  int r = (int)p->rank, sb = ndx_cv_bits(st);
  ndx_i64 dk = ndx_extent_wN(p, r - 2), dj = ndx_extent_wN(p, r - 1);
  ndx_i64 ssk = ndx_stride_wN(p, 1, r - 2), ssj = ndx_stride_wN(p, 1, r - 1);
  ndx_i64 slots = NDX_GPU_TILE_SIDE(4) * NDX_GPU_TILE;
  ndx_u64 mask = sb < 64 ? ((ndx_u64)1 << sb) - 1 : ~(ndx_u64)0;
  for (ndx_i64 e0 = lid; e0 < slots; e0 += NDX_GPU_BATCH * n) {
    /* v.x, v.y: the two elements' source bits (v.y 0 past the matrix's
     * end); to: the tile byte (ndx_gpu_batch.h) */
    ndx_gpu_held q[NDX_GPU_BATCH];
    ndx_gpu_clear(q);
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_i64 e = e0 + i * n, a = e / NDX_GPU_TILE, kb = e - a * NDX_GPU_TILE;
      ndx_i64 k = w->k0 + 2 * kb, j = w->j0 + a, it = step * 1024 + (e - lid) / n;
      ndx_gpu_held h = ndx_gpu_none();
      if (e < slots && k < dk && j < dj) {
        ndx_i64 ps = w->pos[1] + k * ssk + j * ssj, lo = ssk > 0 ? ps : ps - 1;
        int both = dk - k >= 2;
        if (d->group == 2 && both) {
          if (ndx_gpu_in(g, 1, lo, 2, sb)) {
            NDX_GPU_TRACE(NDX_TRACE_TILE_BITS, it * 2, src + ndx_byte_of(lo, sb),
                          sb < 8 ? 1 : sb / 4);
            ndx_u64 word = ndx_convert_word(src, lo / 2, sb < 8 ? 1 : sb / 4);
            ndx_u64 low = word & mask, high = (word >> sb) & mask;
            h.v.x = ssk > 0 ? low : high, h.v.y = ssk > 0 ? high : low;
            h.to = ndx_gpu_bits_at(a, kb);
          }
        } else if (ndx_gpu_in(g, 1, ps, 1, sb) && (!both || ndx_gpu_in(g, 1, ps + ssk, 1, sb))) {
          NDX_GPU_TRACE(NDX_TRACE_TILE_BITS, it * 2, src + ndx_byte_of(ps, sb),
                        sb < 8 ? 1 : sb / 8);
          h.v.x = ndx_convert_load(src, ps, sb);
          if (both) {
            NDX_GPU_TRACE(NDX_TRACE_TILE_BITS, it * 2 + 1, src + ndx_byte_of(ps + ssk, sb),
                          sb < 8 ? 1 : sb / 8);
            h.v.y = ndx_convert_load(src, ps + ssk, sb);
          }
          h.to = ndx_gpu_bits_at(a, kb);
        }
      }
      ndx_gpu_push(q, h);
    }
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_gpu_held h = q[0];
      ndx_gpu_push(q, ndx_gpu_none());
      if (h.to < 0) continue;
      NDX_GPU_TRACE(NDX_TRACE_TILE_BITS | NDX_TRACE_LOCAL | NDX_TRACE_STORE,
                    step * 1024 + (e0 - lid) / n + i, tile + h.to, 1);
      tile[h.to] = (ndx_u8)(ndx_convert_bits(h.v.x, st, dt) | ndx_convert_bits(h.v.y, st, dt) << 4);
    }
  }
}

/* Transpose from type st into type dt: work-group g takes tiles g, g +
 * groups, ... (the whole group loops alike, so every work-item reaches
 * each barrier) through `tile`, the group's NDX_GPU_TILE_BYTES(8) of
 * work-group memory (more than a tile below 8 bits takes), as
 * ndx_gpu_transpose_wN does. Into a 4-bit destination (never by words)
 * through the copy's tile below 8 bits (ndx_convert_bits_load_wN, then
 * the copy's ndx_gpu_bits_store_wN); else phase 1 by a 4-bit source's
 * words or byte pairs where `group`, which is d->group, is 8 or 2 (a
 * constant in a kernel of one phase 1, as CUDA's three, whose runtime
 * types made the phases in one kernel spill), and the copy's phase 2. */
NDX_FN void ndx_convert_transpose_wN(NDX_CONSTANT const ndx_launch *d, NDX_LOCAL ndx_u8 *tile,
                                     NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                     NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int st, int dt,
                                     int group, const ndx_gpu_guard *g) {
  ndx_i64 lid = NDX_LOCAL_ID, n = NDX_LOCAL_SIZE;
  int db = ndx_cv_bits(dt), sb = ndx_cv_bits(st); /* sb: OpenCL's constant folds the others out */
  for (ndx_i64 t = NDX_GROUP_ID; t < d->units; t += NDX_GROUPS) {
    ndx_gpu_tile_wN w = ndx_gpu_tile_at_wN(d, t, db);
    ndx_i64 step = t / NDX_GROUPS;
    if (db < 8 && group != 8)
      ndx_convert_bits_load_wN(d, &w, tile, src, st, dt, lid, n, step, g);
    else if (sb == 4 && group == 8)
      ndx_convert_tile_words_wN(d, &w, tile, src, st, dt, lid, n, step, g);
    else if (sb == 4 && group == 2)
      ndx_convert_tile_pairs_wN(d, &w, tile, src, st, dt, lid, n, step, g);
    else
      ndx_convert_tile_load_wN(d, &w, tile, src, st, dt, lid, n, step, g);
    NDX_BARRIER();
    if (db < 8 && group != 8)
      ndx_gpu_bits_store_wN(d, &w, tile, dst, db, lid, n, step, g);
    else
      ndx_gpu_tile_store_wN(d, &w, tile, dst, db, lid, n, step, g);
    NDX_BARRIER();
  }
}

#endif /* one index form */
