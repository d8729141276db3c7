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
 * do, and the conversion costs registers, not memory traffic.
 * Destinations of 8 bits and up. The types are the caller's: OpenCL's
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
#define ndx_convert_transpose_wN NDX_WN(ndx_convert_transpose_w32, ndx_convert_transpose_w64)
#endif

#if (NDX_WIDE && !defined(NDX_CONVERT_GPU_H_W64)) || (!NDX_WIDE && !defined(NDX_CONVERT_GPU_H_W32))
#if NDX_WIDE
#define NDX_CONVERT_GPU_H_W64
#else
#define NDX_CONVERT_GPU_H_W32
#endif

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
  ndx_i64 dk = ndx_extent_wN(p, r - 2) * d->join_k, dj = ndx_extent_wN(p, r - 1) * d->join_j;
  ndx_i64 ssk = ndx_stride_wN(p, 1, r - 2), ssj = ndx_stride_wN(p, 1, r - 1);
  ndx_i64 elems = d->slots_k * d->tile_j;
  for (ndx_i64 e0 = lid; e0 < elems; e0 += NDX_GPU_BATCH * n) {
    ndx_u64 v[NDX_GPU_BATCH]; /* a source element's bits */
    int at[NDX_GPU_BATCH];    /* a byte of the tile, or -1 */
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      ndx_i64 e = e0 + i * n, it = step * 1024 + (e - lid) / n, ps = 0, t = -1;
      at[i] = -1;
      v[i] = 0;
      if (e < elems) t = ndx_gpu_tile_source_wN(d, w, e, dk, dj, ssk, ssj, eb, &ps);
      if (t < 0 || !ndx_gpu_in(g, 1, ps, 1, sb)) continue;
      NDX_GPU_TRACE(NDX_TRACE_TILE, it, src + ndx_byte_of(ps, sb), sb < 8 ? 1 : sb / 8);
      v[i] = ndx_convert_load(src, ps, sb);
      at[i] = (int)t;
    }
    for (int i = 0; i < NDX_GPU_BATCH; i++) {
      if (at[i] < 0) continue;
      NDX_GPU_TRACE(NDX_TRACE_TILE | NDX_TRACE_LOCAL | NDX_TRACE_STORE,
                    step * 1024 + (e0 - lid) / n + i, tile + at[i], eb);
      ndx_u128 c;
      c.x = ndx_convert_bits(v[i], st, dt), c.y = 0;
      ndx_gpu_tile_put(tile, at[i], eb, c);
    }
  }
}

/* Transpose from type st into type dt (a destination of 8 bits and up):
 * work-group g takes tiles g, g + groups, ... (the whole group loops
 * alike, so every work-item reaches each barrier) through `tile`, the
 * group's NDX_GPU_TILE_BYTES(8) of work-group memory, as
 * ndx_gpu_transpose_wN does. */
NDX_FN void ndx_convert_transpose_wN(NDX_CONSTANT const ndx_launch *d, NDX_LOCAL ndx_u8 *tile,
                                     NDX_GLOBAL ndx_u8 *NDX_RESTRICT dst,
                                     NDX_GLOBAL const ndx_u8 *NDX_RESTRICT src, int st, int dt,
                                     const ndx_gpu_guard *g) {
  ndx_i64 lid = NDX_LOCAL_ID, n = NDX_LOCAL_SIZE;
  int db = ndx_cv_bits(dt);
  for (ndx_i64 t = NDX_GROUP_ID; t < d->units; t += NDX_GROUPS) {
    ndx_gpu_tile_wN w = ndx_gpu_tile_at_wN(d, t, db);
    ndx_i64 step = t / NDX_GROUPS;
    ndx_convert_tile_load_wN(d, &w, tile, src, st, dt, lid, n, step, g);
    NDX_BARRIER();
    ndx_gpu_tile_store_wN(d, &w, tile, dst, db, lid, n, step, g);
    NDX_BARRIER();
  }
}

#endif /* one index form */
