/* gpu_phases.h: the gpu shape's conversion of a transpose
 * (ndx_convert_transpose_wN, kernels/ndx_convert_gpu.h) run on the host a
 * phase at a time, as a GPU runs it: every work-item of a work-group loads
 * its part of a tile before any stores (what the barrier between them
 * guarantees); into a 4-bit destination through the copy's tile below 8
 * bits (ndx_convert_bits_load, ndx_gpu_bits_store), else phase 1 by a
 * 4-bit source's words or byte pairs where the launch's group says
 * (ndx_convert_tile_words, ndx_convert_tile_pairs). For the host
 * emulators in C (tests/test_gpu_emulate.c) and in nvcc's and hipcc's host
 * C++ (tests/test_convert_emulate.cu).
 *
 * Include it after kernels/ndx_convert_gpu.h in both index forms
 * (NDX_WIDE 0 and 1). */
#ifndef NDX_TEST_GPU_PHASES_H
#define NDX_TEST_GPU_PHASES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The work-item running (block * local + its index), for a test's
 * NDX_GPU_TRACE. */
static int64_t gpu_phases_item;

/* Runs conversion launch `d` (its pack after it) from type st into dt on
 * `groups` work-groups of `local` work-items: group g takes tiles g,
 * g + groups, ..., each through a tile of work-group memory filled with
 * 0xa5 first; within each phase the work-items run in reverse order with
 * `reverse`. */
static void gpu_phases_convert_transpose(const ndx_launch *d, int64_t local, int64_t groups,
                                         ndx_u8 *dst, const ndx_u8 *src, int st, int dt,
                                         bool reverse) {
  static ndx_u128 tile_words[(NDX_GPU_TILE_BYTES(8) + 15) / 16];
  ndx_u8 *tile = (ndx_u8 *)tile_words;
  ndx_gpu_guard g = {0};
  int db = ndx_cv_bits(dt);
  bool wide = ndx_launch_pack(d)->wide != 0;
  for (int64_t b = 0; b < groups; b++)
    for (int64_t t = b, step = 0; t < d->units; t += groups, step++) {
      memset(tile, 0xa5, sizeof tile_words);
      ndx_gpu_tile_w32 w32;
      ndx_gpu_tile_w64 w64;
      memset(&w32, 0, sizeof w32), memset(&w64, 0, sizeof w64);
      if (wide)
        w64 = ndx_gpu_tile_at_w64(d, t, db);
      else
        w32 = ndx_gpu_tile_at_w32(d, t, db);
      for (int phase = 0; phase < 2; phase++) /* every load, then every store */
        for (int64_t k = 0; k < local; k++) {
          int64_t l = reverse ? local - 1 - k : k;
          gpu_phases_item = b * local + l;
          if (db < 8 && phase == 0 && wide)
            ndx_convert_bits_load_w64(d, &w64, tile, src, st, dt, l, local, step, &g);
          else if (db < 8 && phase == 0)
            ndx_convert_bits_load_w32(d, &w32, tile, src, st, dt, l, local, step, &g);
          else if (db < 8 && wide)
            ndx_gpu_bits_store_w64(d, &w64, tile, dst, db, l, local, step, &g);
          else if (db < 8)
            ndx_gpu_bits_store_w32(d, &w32, tile, dst, db, l, local, step, &g);
          else if (phase == 0 && d->group == 8 && wide)
            ndx_convert_tile_words_w64(d, &w64, tile, src, st, dt, l, local, step, &g);
          else if (phase == 0 && d->group == 8)
            ndx_convert_tile_words_w32(d, &w32, tile, src, st, dt, l, local, step, &g);
          else if (phase == 0 && d->group == 2 && wide)
            ndx_convert_tile_pairs_w64(d, &w64, tile, src, st, dt, l, local, step, &g);
          else if (phase == 0 && d->group == 2)
            ndx_convert_tile_pairs_w32(d, &w32, tile, src, st, dt, l, local, step, &g);
          else if (phase == 0 && wide)
            ndx_convert_tile_load_w64(d, &w64, tile, src, st, dt, l, local, step, &g);
          else if (phase == 0)
            ndx_convert_tile_load_w32(d, &w32, tile, src, st, dt, l, local, step, &g);
          else if (wide)
            ndx_gpu_tile_store_w64(d, &w64, tile, dst, db, l, local, step, &g);
          else
            ndx_gpu_tile_store_w32(d, &w32, tile, dst, db, l, local, step, &g);
        }
    }
}

#endif /* NDX_TEST_GPU_PHASES_H */
