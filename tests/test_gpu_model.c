/* test_gpu_model.c: the GPU memory model of ndx-bench --gpu-model
 * (bench/gpu_model.h): its request costs by Nsight Compute's definitions,
 * and the gpu-shaped copy, conversion, gather and scatter kernels' figures
 * on the cases that reach their bounds, so that a kernel change that makes
 * one of them uncoalesced or bank-conflicted fails here. */
#include <criterion/criterion.h>
#include <string.h>

#include "gpu_model.h"

/* 32 lanes of `bytes`-byte accesses, lane i at base + i*stride. */
static int lanes(gpu_model_access *a, int64_t base, int64_t stride, int bytes) {
  for (int i = 0; i < GPU_MODEL_WARP; i++) a[i] = (gpu_model_access){i, bytes, base + i * stride};
  return GPU_MODEL_WARP;
}

Test(gpu_model, global_requests_cost_their_distinct_sectors) {
  gpu_model_access a[GPU_MODEL_WARP];
  int64_t bytes;
  cr_assert_eq(gpu_model_sectors(a, lanes(a, 0, 4, 4), &bytes), 4); /* coalesced */
  cr_assert_eq(bytes, 128);
  cr_assert_eq(gpu_model_sectors(a, lanes(a, 12, 4, 4), &bytes), 5); /* off a sector */
  cr_assert_eq(gpu_model_sectors(a, lanes(a, 0, 8, 4), &bytes), 8);  /* a step-2 slice */
  cr_assert_eq(bytes, 128);
  cr_assert_eq(gpu_model_sectors(a, lanes(a, 0, 4096, 4), &bytes), 32); /* a column */
  cr_assert_eq(gpu_model_sectors(a, lanes(a, 64, 0, 4), &bytes), 1);    /* a broadcast */
  cr_assert_eq(bytes, 4);
  cr_assert_eq(gpu_model_sectors(a, lanes(a, 0, 16, 16), &bytes), 16); /* 16-byte vectors */
  cr_assert_eq(bytes, 512);
  cr_assert_eq(gpu_model_sectors(a, lanes(a, 0, 1, 1), &bytes), 1);
}

Test(gpu_model, shared_requests_take_a_wavefront_per_word_a_bank_is_asked) {
  gpu_model_access a[GPU_MODEL_WARP];
  int ideal;
  cr_assert_eq(gpu_model_wavefronts(a, lanes(a, 0, 4, 4), &ideal), 1);
  cr_assert_eq(ideal, 1);
  cr_assert_eq(gpu_model_wavefronts(a, lanes(a, 0, 128, 4), &ideal), 32); /* 32 x 32 column */
  cr_assert_eq(gpu_model_wavefronts(a, lanes(a, 0, 132, 4), &ideal), 1);  /* padded: 33 words */
  cr_assert_eq(gpu_model_wavefronts(a, lanes(a, 0, 8, 4), &ideal), 2);    /* 2-way */
  cr_assert_eq(gpu_model_wavefronts(a, lanes(a, 8, 0, 4), &ideal), 1);    /* a broadcast */
  cr_assert_eq(gpu_model_wavefronts(a, lanes(a, 0, 1, 1), &ideal), 1);    /* bytes of 8 words */
  cr_assert_eq(gpu_model_wavefronts(a, lanes(a, 0, 33, 1), &ideal), 1); /* 8-bit column, pitch 33 */
  cr_assert_eq(gpu_model_wavefronts(a, lanes(a, 0, 8, 8), &ideal), 2);  /* 8-byte: two halves */
  cr_assert_eq(ideal, 2);
  cr_assert_eq(gpu_model_wavefronts(a, lanes(a, 0, 264, 8), &ideal), 2); /* pitch 66 words */
  cr_assert_eq(gpu_model_wavefronts(a, lanes(a, 0, 260, 8), &ideal), 4); /* 65 words: 2-way */
  cr_assert_eq(gpu_model_wavefronts(a, lanes(a, 0, 16, 16), &ideal), 4);
  cr_assert_eq(ideal, 4);
}

/* The cases the gpu-shaped kernels reach their bounds on, with no bank
 * conflict; and two bounds the layouts set. The tiles of 1 to 16 bits keep
 * the 15 KiB in flight an SM needs: 8- and 16-bit ones load a source word
 * a work-item (ndx_launch.group), sub-byte ones a batch of source bytes
 * (an element or a byte a load falls short; docs/device.md section 10). */
Test(gpu_model, the_gpu_kernels_keep_their_bounds, .timeout = 300) {
  static const char *const within[] = {
      "slice step 2 inner fp32",
      "slice step 2 outer fp32",
      "narrow 3-d fp32", /* source rows off sectors: through work-group memory */
      "broadcast rows fp32",
      "broadcast columns fp32",
      "flip inner fp32",
      "transpose fp32 4096x4096",
      "transpose fp32 3x1000003", /* skinny, realigned destination rows */
      "transpose fp32 1000003x3", /* skinny, realigned source rows */
      "permute rank 4 fp32 [64]^4",
      "permute rank 8 fp32 [8]^8 reversed",
      "permute rank 8 fp32 [5,7,9,11", /* tiles joined twice a side: 75 x 77 of 225 x 693 */
      "transpose 4-bit 8192x16384",
      "transpose 1-bit 16384x32768",
      "transpose 8-bit 8000x8000",
      "transpose 16-bit 4096x8192",
      "transpose 16-bit 5000x6000", /* source rows off sectors: long, realigned */
  };
  gpu_case cases[48];
  int n = gpu_cases(cases, 48);
  for (size_t w = 0; w < sizeof within / sizeof *within; w++) {
    int checked = 0;
    for (int i = 0; i < n; i++) {
      if (strncmp(cases[i].name, within[w], strlen(within[w])) != 0) continue;
      gpu_model_result r;
      gpu_model_case(&cases[i], &r);
      cr_assert(!r.below && !r.conflicts,
                "%s (%s): loads %.2f of bound %.2f, stores %.2f of %.2f, %lld wavefronts for %lld",
                cases[i].name, r.path, r.load_use, r.load_bound, r.store_use, r.store_bound,
                r.waves, r.ideal);
      cr_assert_gt(r.waves + (strcmp(r.path, "transpose") != 0), 0, "%s: no shared memory seen",
                   cases[i].name);
      if (strncmp(cases[i].name, "transpose ", 10) == 0 && strstr(cases[i].name, "-bit "))
        cr_assert_geq(r.in_flight, 15 * 1024, "%s: %.1f KiB in flight", cases[i].name,
                      r.in_flight / 1024);
      if (strstr(cases[i].name, "slice step 2 inner"))
        cr_assert(r.load_bound > 0.49 && r.load_bound < 0.51, "a step-2 slice reads half: %.2f",
                  r.load_bound);
      checked++;
    }
    cr_assert_gt(checked, 0, "no case is named %s...", within[w]);
  }
}

/* The conversion cases whose bodies (kernels/ndx_convert_items.h and
 * ndx_convert_gpu.h) reach their bounds: two contiguous pairs and an
 * inner flip, whose warps load and store adjacent elements, the two from a
 * 4-bit source, whose lanes read whole source words (a row's groups of
 * elements, a tile row's eight; a nibble a lane reads half a sector), and
 * three into a 4-bit destination, whose lanes store whole bytes of a row's
 * groups, rows starting on a byte or inside one, or load a tile byte's
 * pair of source elements as one word (a byte a lane, each found by
 * ndx_count_below, loaded half of every sector, or a transpose's elements
 * a sixteenth); every one with a batch of loads in flight. */
Test(gpu_model, the_gpu_conversions_keep_their_bounds, .timeout = 300) {
  static const struct {
    const char *name, *path;
  } within[] = {
      {"convert f32 -> bf16 contiguous", "cv-elems"},
      {"convert bf16 -> f32 flip 4096x4096", "cv-elems"},
      {"convert f4e2m1fn -> f16 4096x4096", "cv-elems"},
      {"convert f4e2m1fn -> f16 transpose 4096x4096", "cv-tile"},
      {"convert i8 -> f32 contiguous", "cv-elems"},
      {"convert f16 -> f4e2m1fn contiguous", "cv-elems"}, /* groups of whole bytes */
      {"convert f16 -> f4e2m1fn 4096x4096 columns 1..", "cv-elems"},
      {"convert f16 -> f4e2m1fn transpose 4096x4096", "cv-tile"}, /* source pairs a slot */
  };
  gpu_case cases[48];
  int n = gpu_cases(cases, 48);
  for (size_t w = 0; w < sizeof within / sizeof *within; w++) {
    int checked = 0;
    for (int i = 0; i < n; i++) {
      if (strcmp(cases[i].name, within[w].name) != 0) continue;
      gpu_model_result r;
      gpu_model_case(&cases[i], &r);
      cr_assert_str_eq(r.path, within[w].path, "%s", cases[i].name);
      cr_assert(!r.below && !r.conflicts,
                "%s: loads %.2f of bound %.2f, stores %.2f of %.2f, %lld wavefronts for %lld",
                cases[i].name, r.load_use, r.load_bound, r.store_use, r.store_bound, r.waves,
                r.ideal);
      cr_assert_gt(r.in_flight, 0, "%s: nothing in flight", cases[i].name);
      /* a work-item loads a batch of units before it stores any, each a
       * group's source word where the layout allows (ndx_launch.group):
       * the 15 KiB an SM needs (an element a unit from a 1-byte source, or
       * a tile row's byte pairs from a 4-bit one, falls short;
       * docs/device.md section 10) */
      cr_assert_geq(r.in_flight, 15 * 1024, "%s: %.1f KiB in flight", cases[i].name,
                    r.in_flight / 1024);
      checked++;
    }
    cr_assert_eq(checked, 1, "no conversion case is named %s", within[w].name);
  }
}

/* The gather and scatter cases whose gpu-shaped bodies (kernels/
 * ndx_index_gpu.h) reach their bounds: rows by vectors, a warp's lanes
 * along one row; and take_along_axis on the innermost axis, each pack
 * row's 16 KiB source segment loaded into work-group memory and picked
 * from there (the along path), whose stage stores ask no bank twice and
 * whose picks, addressed by the index values, take about what 32 random
 * words of 32 banks take (3.5 wavefronts a request on average), counted
 * apart from the bank conflicts. */
Test(gpu_model, the_gpu_index_kernels_keep_their_bounds, .timeout = 300) {
  static const struct {
    const char *name, *path;
  } within[] = {
      {"embedding fp32 [65536,256] by 32768 ids", "idx-rows"},
      {"embedding 4-bit [65536,512] by 32768 ids", "idx-rows"},
      {"scatter rows fp32 32768 of 256 into 65536", "idx-rows"},
      {"scatter rows fp32 32768 of 256 into 65536, UNIQUE", "idx-rows"},
      {"take_along_axis fp32 [4096,4096] inner", "idx-along"},
  };
  gpu_index_case cases[16];
  int n = gpu_index_cases(cases, 16);
  for (size_t w = 0; w < sizeof within / sizeof *within; w++) {
    int checked = 0;
    for (int i = 0; i < n; i++) {
      if (strcmp(cases[i].name, within[w].name) != 0) continue;
      gpu_model_result r;
      gpu_model_index_case(&cases[i], &r);
      cr_assert_str_eq(r.path, within[w].path, "%s", cases[i].name);
      cr_assert(!r.below && !r.conflicts,
                "%s: loads %.2f of bound %.2f, stores %.2f of %.2f, %lld wavefronts for %lld",
                cases[i].name, r.load_use, r.load_bound, r.store_use, r.store_bound, r.waves,
                r.ideal);
      cr_assert_gt(r.in_flight, 0, "%s: nothing in flight", cases[i].name);
      if (strcmp(r.path, "idx-along") == 0) {
        cr_assert(r.load_use > 0.99 && r.store_use > 0.99, "%s: loads %.2f, stores %.2f",
                  cases[i].name, r.load_use, r.store_use);
        cr_assert_gt(r.ideal, 0, "%s: no stage store seen", cases[i].name);
        cr_assert_gt(r.value_requests, 0, "%s: no pick from the stage seen", cases[i].name);
        double per = (double)r.value_waves / (double)r.value_requests;
        cr_assert(per > 3 && per < 4, "%s: %.2f wavefronts a pick request", cases[i].name, per);
      } else {
        cr_assert_eq(r.value_requests, 0, "%s", cases[i].name);
      }
      checked++;
    }
    cr_assert_eq(checked, 1, "no index case is named %s", within[w].name);
  }
}
