/* test_cl.c: ndx_cl on a real OpenCL device (PoCL in CI). Every copy is
 * compared byte for byte, over the whole destination buffer, with a host
 * reference that applies the same layouts to a destination pre-filled with a
 * pattern, so that bytes no element owns, and bits of shared bytes that no
 * element owns, are checked to stay as they were.
 *
 * Criterion forks a process per test: every OpenCL object is made inside the
 * test (by the .init fixture), never in the parent. The device is the first
 * of the first platform whose name contains $NDX_CL_PLATFORM (any platform
 * when unset). Without a device the tests skip, except under CI=true, where
 * a missing device is a failure. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cl_internal.h"
#include "ndx/ndx_cl.h"
#include "ndx/ndx_pack.h"
#include "cl_env.h"
#include "oracle.h"

/* ---- Environment --------------------------------------------------------------- */

static cl_env env;

static void setup(void) {
  cl_env_open(&env);
}

static void teardown(void) {
  cl_env_close(&env);
}

TestSuite(cl, .init = setup, .fini = teardown);

/* ---- Buffers and the reference ------------------------------------------------- */

static uint8_t pattern(size_t i) {
  return (uint8_t)(0xa5 ^ (i * 13));
}

/* True when env's ndx_cl runs the cpu shape, whose paths and work
 * geometry the tests below name (NDX_CL_SHAPE=gpu runs them for the bytes
 * alone; test gpu_shape_paths names the gpu shape's). */
static bool cpu_shape(void) {
  return strcmp(ndx_cl_shape(env.cl), "cpu") == 0;
}

/* Copies `s` to `d` on the device with plan `flags` and compares the whole
 * destination buffer with the reference. Returns the path taken; checks
 * that it is `want_path` in the cpu shape. */
static const char *check_copy(const ndx_layout *d, const ndx_layout *s, int bits, unsigned flags,
                              const char *want_path) {
  static char path[16];
  static uint64_t seed = 1;
  oracle_rng r = {seed++};
  size_t nd = cl_env_buffer_bytes(d, bits), ns = cl_env_buffer_bytes(s, bits);
  uint8_t *src = malloc(ns), *want = malloc(nd), *got = malloc(nd);
  for (size_t i = 0; i < ns; i++) src[i] = (uint8_t)oracle_next(&r);
  for (size_t i = 0; i < nd; i++) want[i] = pattern(i);
  cl_mem ms = cl_env_buffer(&env, ns, src), md = cl_env_buffer(&env, nd, want);
  oracle_copy(want, d, src, s, bits, NULL);
  ndx_cl_plan *plan;
  ndx_status st = ndx_cl_plan_create_flags(&plan, env.cl, d, s, bits, flags);
  char dt[256], stx[256];
  ndx_format(dt, sizeof dt, d);
  ndx_format(stx, sizeof stx, s);
  cr_assert_eq(st, NDX_OK, "plan %d bits: %s", bits, ndx_last_error());
  snprintf(path, sizeof path, "%s", ndx_cl_plan_path(plan));
  if (want_path && cpu_shape())
    cr_assert_str_eq(path, want_path, "%d bits, dst %s, src %s", bits, dt, stx);
  if (flags & NDX_CL_PLAN_WIDE && strcmp(path, "empty") && strcmp(path, "buffer"))
    cr_assert_eq(ndx_cl_plan_wide(plan), 1);
  cl_event done = NULL;
  st = ndx_cl_plan_enqueue(plan, env.queue, md, ms, 0, NULL, &done);
  cr_assert_eq(st, NDX_OK, "enqueue: %s", ndx_last_error());
  cr_assert_eq(clWaitForEvents(1, &done), CL_SUCCESS);
  clReleaseEvent(done);
  cl_env_read(&env, md, nd, got);
  for (size_t i = 0; i < nd; i++)
    cr_assert_eq(got[i], want[i],
                 "path %s%s, %d bits, dst %s, src %s: byte %zu is 0x%02x, want 0x%02x", path,
                 flags & NDX_CL_PLAN_WIDE ? " (64-bit)" : "", bits, dt, stx, i, got[i], want[i]);
  ndx_cl_plan_destroy(plan);
  clReleaseMemObject(ms);
  clReleaseMemObject(md);
  free(src);
  free(want);
  free(got);
  return path;
}

static ndx_layout contiguous(int rank, const int64_t *shape) {
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, rank, shape), NDX_OK, "%s", ndx_last_error());
  return l;
}

static ndx_layout make(int rank, const int64_t *shape, const int64_t *strides, int64_t offset) {
  ndx_layout l;
  cr_assert_eq(ndx_make(&l, rank, shape, strides, offset), NDX_OK, "%s", ndx_last_error());
  return l;
}

/* `l` with its strides and offset doubled: the same elements at every other
 * position, so that no axis of more than one element has a unit stride and
 * a copy into it of more than one element takes the odometer (the gather
 * path, or bytes below 8 bits). */
static ndx_layout every_other(const ndx_layout *l) {
  int64_t strides[NDX_MAX_RANK];
  for (int a = 0; a < l->rank; a++) strides[a] = 2 * l->strides[a];
  return make(l->rank, l->shape, strides, 2 * l->offset);
}

/* ---- The device sees the pack as the host does ---------------------------------- */

static cl_program build(const char *src, size_t len, const char *options) {
  cl_int e;
  cl_program p = clCreateProgramWithSource(env.context, 1, &src, &len, &e);
  cr_assert_eq(e, CL_SUCCESS);
  e = clBuildProgram(p, 1, &env.device, options, NULL, NULL);
  if (e != CL_SUCCESS) {
    static char log[16384];
    clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    cr_assert_fail("build with %s failed (%d):\n%s", options, e, log);
  }
  return p;
}

Test(cl, probe_sees_the_hosts_pack_layout) {
  cl_env_need(&env);
  cl_program p = build(ndx_cl_probe_source, ndx_cl_probe_source_size, "-cl-std=CL1.2 -Werror");
  cl_int e;
  cl_kernel k = clCreateKernel(p, "ndx_probe", &e);
  cr_assert_eq(e, CL_SUCCESS);
  ndx_layout d = contiguous(3, (int64_t[]){5, 6, 7}), s, c = contiguous(3, (int64_t[]){7, 6, 5});
  cr_assert_eq(ndx_permute(&s, &c, (int32_t[]){2, 1, 0}), NDX_OK);
  uint64_t pack[NDX_PACK_MAX_BYTES(2, NDX_MAX_RANK) / 8];
  size_t used;
  cr_assert_eq(ndx_pack_copy(pack, sizeof pack, &used, &d, &s, 64), NDX_OK);
  cl_mem mp = cl_env_buffer(&env, used, pack), mo = cl_env_buffer(&env, 64 * sizeof(cl_uint), NULL);
  clSetKernelArg(k, 0, sizeof mp, &mp);
  clSetKernelArg(k, 1, sizeof mo, &mo);
  size_t one = 1;
  cr_assert_eq(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &one, &one, 0, NULL, NULL),
               CL_SUCCESS);
  cl_uint out[64];
  cl_env_read(&env, mo, sizeof out, out);
  const ndx_pack_head *h = (const ndx_pack_head *)pack;
  cl_uint want[21] = {NDX_PACK_VERSION,
                      sizeof(ndx_pack_head),
                      offsetof(ndx_pack_head, version),
                      offsetof(ndx_pack_head, size),
                      offsetof(ndx_pack_head, rank),
                      offsetof(ndx_pack_head, nops),
                      offsetof(ndx_pack_head, bits),
                      offsetof(ndx_pack_head, wide),
                      offsetof(ndx_pack_head, numel),
                      16,
                      8,
                      4,
                      8,
                      h->version,
                      h->size,
                      h->rank,
                      h->nops,
                      h->bits,
                      h->wide,
                      (cl_uint)((uint64_t)h->numel & 0xffffffffu),
                      (cl_uint)((uint64_t)h->numel >> 32)};
  for (int i = 0; i < 21; i++) cr_assert_eq(out[i], want[i], "probe word %d", i);
  cr_assert_eq(h->rank, 3u, "the pair stays 3-d");
  clReleaseMemObject(mp);
  clReleaseMemObject(mo);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

/* Every program ndx builds: each family at each of its widths, in both
 * forms and both shapes, but index_along, which only the gpu shape has. */
Test(cl, kernels_build_with_werror_in_both_forms, .timeout = 600) {
  cl_env_need(&env);
  int programs = 0;
  for (int gpu = 0; gpu < 2; gpu++)
    for (int wide = 0; wide < 2; wide++) {
      unsigned widths;
      const char *name;
      for (int kind = 0; (name = ndx_cl_family(kind, &widths)) != NULL; kind++) {
        if (!gpu && strcmp(name, "index_along") == 0) continue;
        for (int w = 0; w < 8; w++) {
          if (widths ? !(widths >> w & 1u) : w > 0) continue;
          char options[192];
          ndx_cl_build_options(options, sizeof options - 8, gpu, wide, name, widths ? 1 << w : 0);
          strcat(options, " -Werror");
          clReleaseProgram(build(ndx_cl_copy_source, ndx_cl_copy_source_size, options));
          programs++;
        }
      }
    }
  cr_assert_eq(programs, 2 * (5 + 5 + 8 + 3 + 5 + 3 + 1) + 2 * (5 + 5 + 8 + 3 + 5 + 3 + 1 + 5),
               "the families' widths changed");
}

Test(cl, device_positions_match_the_definition) {
  cl_env_need(&env);
  oracle_rng r = {77};
  for (int wide = 0; wide < 2; wide++) {
    char options[192];
    ndx_cl_build_options(options, sizeof options, 0, wide, "positions", 0);
    cl_program p = build(ndx_cl_copy_source, ndx_cl_copy_source_size, options);
    cl_int e;
    cl_kernel k = clCreateKernel(p, "ndx_positions", &e);
    cr_assert_eq(e, CL_SUCCESS);
    for (int iter = 0; iter < 20; iter++) {
      ndx_layout ls[2];
      ls[0] = oracle_random_layout(&r, 6, 5, 40, 3);
      int64_t strides[NDX_MAX_RANK], off = 0;
      for (int a = 0; a < ls[0].rank; a++) {
        strides[a] = oracle_between(&r, -30, 30);
        if (strides[a] < 0) off += (ls[0].shape[a] > 0 ? ls[0].shape[a] - 1 : 0) * -strides[a];
      }
      ls[1] = make(ls[0].rank, ls[0].shape, strides, off);
      int64_t n = oracle_numel(&ls[0]);
      if (n == 0) continue;
      uint64_t pack[NDX_PACK_MAX_BYTES(2, NDX_MAX_RANK) / 8];
      size_t used;
      cr_assert_eq(ndx_pack(pack, sizeof pack, &used, 2, ls, 8), NDX_OK);
      if (wide) cr_assert_eq(ndx_pack_widen(pack, sizeof pack, &used), NDX_OK);
      cl_mem mp = cl_env_buffer(&env, used, pack), mo = cl_env_buffer(&env, (size_t)n * 16, NULL);
      clSetKernelArg(k, 0, sizeof mp, &mp);
      clSetKernelArg(k, 1, sizeof mo, &mo);
      size_t global = (size_t)n;
      cr_assert_eq(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0, NULL, NULL),
                   CL_SUCCESS);
      int64_t *out = malloc((size_t)n * 16), index[NDX_MAX_RANK];
      cl_env_read(&env, mo, (size_t)n * 16, out);
      for (int64_t i = 0; i < n; i++) {
        oracle_unravel(ls[0].rank, ls[0].shape, i, index);
        cr_assert_eq(out[2 * i], oracle_position(&ls[0], index));
        cr_assert_eq(out[2 * i + 1], oracle_position(&ls[1], index));
      }
      free(out);
      clReleaseMemObject(mp);
      clReleaseMemObject(mo);
    }
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
}

/* ---- Crafted cases: each path, each width ------------------------------------------- */

static const int widths[] = {1, 2, 4, 8, 16, 32, 64, 128};
#define NWIDTHS (int)(sizeof widths / sizeof *widths)

/* The path of a copy the odometer walks: the gather kernel, or below 8 bits
 * the byte-range one. */
static const char *odometer_path(int bits) {
  return bits >= 8 ? "gather" : "bytes";
}

Test(cl, a_null_plan_has_path_none_as_in_ndx_cuda) {
  cr_assert_str_eq(ndx_cl_plan_path(NULL), "none");
}

Test(cl, empty_copies_take_the_empty_path) {
  cl_env_need(&env);
  ndx_layout d = contiguous(3, (int64_t[]){3, 0, 2});
  for (int w = 0; w < NWIDTHS; w++) check_copy(&d, &d, widths[w], 0, "empty");
}

Test(cl, contiguous_copies_take_the_buffer_path) {
  cl_env_need(&env);
  ndx_layout d = make(2, (int64_t[]){4, 6}, (int64_t[]){6, 1}, 8);
  ndx_layout s = make(2, (int64_t[]){4, 6}, (int64_t[]){6, 1}, 16);
  for (int w = 0; w < NWIDTHS; w++) check_copy(&d, &s, widths[w], 0, "buffer");
  ndx_layout one_d = make(0, NULL, NULL, 5), one_s = make(0, NULL, NULL, 3);
  for (int w = 3; w < NWIDTHS; w++) check_copy(&one_d, &one_s, widths[w], 0, "buffer");
  /* a megabyte or more goes through the rows kernel, on both cores */
  ndx_layout big_d = make(1, (int64_t[]){1 << 20}, (int64_t[]){1}, 3);
  ndx_layout big_s = make(1, (int64_t[]){1 << 20}, (int64_t[]){1}, 7);
  check_copy(&big_d, &big_s, 8, 0, "rows");
  check_copy(&big_d, &big_s, 32, 0, "rows");
  ndx_layout bits_d = make(1, (int64_t[]){1 << 20}, (int64_t[]){1}, 8);
  ndx_layout bits_s = make(1, (int64_t[]){1 << 20}, (int64_t[]){1}, 16);
  check_copy(&bits_d, &bits_s, 1, 0, "buffer"); /* sub-byte on whole bytes: always a buffer copy */
  /* a sub-byte copy that starts or ends inside a byte is not one */
  ndx_layout odd = make(1, (int64_t[]){13}, (int64_t[]){1}, 3);
  ndx_layout at0 = make(1, (int64_t[]){13}, (int64_t[]){1}, 0);
  for (int w = 0; w < 3; w++) check_copy(&odd, &at0, widths[w], 0, "bytes");
  check_copy(&one_d, &one_s, 4, 0, "bytes");
}

Test(cl, sliced_rows_take_the_rows_path) {
  cl_env_need(&env);
  ndx_layout big = contiguous(3, (int64_t[]){3, 5, 40}), s,
             d = contiguous(3, (int64_t[]){3, 4, 33});
  cr_assert_eq(ndx_slice(&s, &big, (ndx_range[]){{0, 3, 1}, {4, 4, -1}, {5, 33, 1}}), NDX_OK);
  for (int w = 3; w < NWIDTHS; w++) check_copy(&d, &s, widths[w], 0, "rows");
  /* a broadcast row: the source repeats one row */
  ndx_layout row = contiguous(1, (int64_t[]){50}), bc, d2 = contiguous(2, (int64_t[]){7, 50});
  cr_assert_eq(ndx_broadcast(&bc, &row, 2, (int64_t[]){7, 50}), NDX_OK);
  for (int w = 3; w < NWIDTHS; w++) check_copy(&d2, &bc, widths[w], 0, "rows");
  /* sub-byte rows go through the byte-range kernel */
  for (int w = 0; w < 3; w++) check_copy(&d, &s, widths[w], 0, "bytes");
}

/* Rows of every length from 2 elements up to 40 bytes at every width of 8
 * bits and up (1 element is a strided gather), 3 planes of 5, with a gap
 * after each destination row: the kernel copies rows of 8 to 32 bytes by
 * two overlapping 8- or 16-byte accesses, and the rows of a plane and the
 * planes one after another; the bytes between the rows keep theirs. */
Test(cl, short_rows_of_every_length) {
  cl_env_need(&env);
  for (int w = 3; w < NWIDTHS; w++) {
    for (int64_t n = 2; n * (widths[w] / 8) <= 40; n++) {
      ndx_layout sb = contiguous(3, (int64_t[]){3, 6, n + 3}),
                 db = contiguous(3, (int64_t[]){3, 5, n + 1});
      ndx_layout s1, s, d;
      cr_assert_eq(ndx_narrow(&s1, &sb, 1, 1, 5), NDX_OK);
      cr_assert_eq(ndx_narrow(&s, &s1, 2, 2, n), NDX_OK);
      cr_assert_eq(ndx_narrow(&d, &db, 2, 1, n), NDX_OK);
      check_copy(&d, &s, widths[w], 0, "rows");
    }
  }
}

Test(cl, transposes_take_the_transpose_path) {
  cl_env_need(&env);
  /* 2-d, non-power-of-two, edge tiles on both axes */
  ndx_layout c = contiguous(2, (int64_t[]){19, 13}), s, d = contiguous(2, (int64_t[]){13, 19});
  cr_assert_eq(ndx_transpose(&s, &c, 0, 1), NDX_OK);
  for (int w = 3; w < NWIDTHS; w++) check_copy(&d, &s, widths[w], 0, "transpose");
  /* batched: [3, 10, 12] from a [3, 12, 10] */
  ndx_layout c3 = contiguous(3, (int64_t[]){3, 12, 10}), s3,
             d3 = contiguous(3, (int64_t[]){3, 10, 12});
  cr_assert_eq(ndx_transpose(&s3, &c3, 1, 2), NDX_OK);
  for (int w = 3; w < NWIDTHS; w++) check_copy(&d3, &s3, widths[w], 0, "transpose");
  /* a 4-d permute whose source unit axis lands in the middle, flipped */
  ndx_layout c4 = contiguous(4, (int64_t[]){2, 9, 3, 11}), p4, f4;
  cr_assert_eq(ndx_permute(&p4, &c4, (int32_t[]){0, 3, 2, 1}), NDX_OK); /* [2,11,3,9] */
  cr_assert_eq(ndx_flip(&f4, &p4, 1), NDX_OK);
  ndx_layout d4 = contiguous(4, (int64_t[]){2, 11, 3, 9});
  for (int w = 3; w < NWIDTHS; w++) check_copy(&d4, &f4, widths[w], 0, "transpose");
  /* a column broadcast along the destination rows fills each row with one
   * value: the gather kernel's runs whose source stride is 0 */
  ndx_layout col = contiguous(2, (int64_t[]){21, 1}), bc, d5 = contiguous(2, (int64_t[]){21, 17});
  cr_assert_eq(ndx_broadcast(&bc, &col, 2, (int64_t[]){21, 17}), NDX_OK);
  for (int w = 3; w < NWIDTHS; w++) check_copy(&d5, &bc, widths[w], 0, "gather");
  /* sub-byte transposes whose rows share bytes go through the byte-range kernel */
  for (int w = 0; w < 3; w++) check_copy(&d, &s, widths[w], 0, "bytes");
}

/* Transposes big enough for whole register blocks (2L x L elements, L = 16,
 * 8, 8, 4 for 8, 16, 32, 64 bits) and several tiles, with edge blocks and
 * edge tiles, an odd number of L-row bands (the last one an L x L block),
 * thin matrices (2, 3 or 4 rows or columns: the interleaving loops; 5:
 * blocks and edges), a batch and a source that starts mid-row. */
Test(cl, transposes_in_register_blocks_every_width) {
  cl_env_need(&env);
  int64_t shapes[][2] = {{70, 133}, {64, 64}, {131, 67}, {3, 200}, {200, 3}, {33, 17},
                         {2, 50},   {50, 2},  {4, 37},   {37, 4},  {5, 300}, {300, 5},
                         {24, 40},  {40, 24}, {48, 50},  {50, 48}, {8, 8},   {16, 16}};
  for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
    int64_t r = shapes[k][0], c = shapes[k][1];
    ndx_layout src = contiguous(2, (int64_t[]){r, c}), t, d = contiguous(2, (int64_t[]){c, r});
    cr_assert_eq(ndx_transpose(&t, &src, 0, 1), NDX_OK);
    /* a source of two columns reads its rows with stride 2: the gather's strided runs */
    const char *path = c == 2 ? "gather" : "transpose";
    for (int w = 3; w < NWIDTHS; w++) {
      check_copy(&d, &t, widths[w], 0, path);
      check_copy(&d, &t, widths[w], NDX_CL_PLAN_WIDE, path);
    }
  }
  /* batched, from a padded source at an odd offset */
  ndx_layout s3 = make(3, (int64_t[]){3, 40, 70}, (int64_t[]){41 * 75, 1, 41}, 5),
             d3 = contiguous(3, (int64_t[]){3, 40, 70});
  for (int w = 3; w < NWIDTHS; w++) check_copy(&d3, &s3, widths[w], 0, "transpose");
}

/* A layout of `shape` in C order whose rows (the innermost axis) are each
 * eight elements longer than the shape (whole bytes of any width): no axis
 * runs on into the next. */
static ndx_layout padded(int rank, const int64_t *shape) {
  int64_t strides[NDX_MAX_RANK], step = 1;
  for (int a = rank - 1; a >= 0; a--) {
    strides[a] = step;
    step *= shape[a] + (a == rank - 1 ? 8 : 0);
  }
  return make(rank, shape, strides, 0);
}

/* Permutations of small extents whose source and destination rows are
 * padded, so that no batch axis joins the tiles (ndx_launch_join): each
 * transpose work-item copies its tile position in several consecutive
 * batches (ndx_tile_batches), stepping between them, the last item's group
 * of batches cut short; register blocks and edges at every width from 8
 * bits, and sub-byte tiles whose rows start on bytes. */
Test(cl, small_tiles_share_a_work_item_across_batches) {
  cl_env_need(&env);
  struct {
    int64_t shape[4];
    int32_t perm[4];
    int from_w;
  } cases[] = {
      {{9, 16, 5, 16}, {3, 2, 1, 0}, 3}, /* tiles 16 x 9, 80 batches */
      {{17, 3, 5, 32}, {3, 1, 2, 0}, 3}, /* tiles 32 x 17, 15 batches */
      {{16, 3, 5, 32}, {3, 1, 2, 0}, 0}, /* tiles 32 x 16: whole bytes of rows */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    ndx_layout base = padded(4, cases[c].shape), s, d;
    cr_assert_eq(ndx_permute(&s, &base, cases[c].perm), NDX_OK);
    d = padded(4, s.shape);
    for (int w = cases[c].from_w; w < NWIDTHS; w++) {
      ndx_cl_plan *plan;
      cr_assert_eq(ndx_cl_plan_create(&plan, env.cl, &d, &s, widths[w]), NDX_OK);
      size_t items;
      long long chunk;
      ndx_cl_plan_work(plan, &items, &chunk);
      if (cpu_shape())
        cr_assert_gt(chunk, 1, "case %zu, %d bits: %lld batches an item", c, widths[w], chunk);
      ndx_cl_plan_destroy(plan);
      check_copy(&d, &s, widths[w], 0, "transpose");
      check_copy(&d, &s, widths[w], NDX_CL_PLAN_WIDE, "transpose");
    }
  }
}

/* Small tiles that the batch axes next to them join (ndx_launch_join): the
 * tile copy sees one matrix a batch, whose rows and columns step over two
 * axes each, and copies it in register blocks that overlap at its edges.
 * fp32 [9,16,5,16] reversed has 16 x 9 tiles; with both groups a batch is
 * 80 x 144 (2 x 3 tiles of 64), with the source padded only the columns
 * join (16 x 144, one tile, each of the 5 batches an item of its own). Then every width from 8
 * bits, both forms, on those and on rank-8 permutations of extents 2 to 7
 * (matrices with fewer rows or columns than a block, edges of every size). */
Test(cl, small_tiles_join_the_batch_axes_next_to_them) {
  cl_env_need(&env);
  ndx_layout base = contiguous(4, (int64_t[]){9, 16, 5, 16}), pbase = padded(4, base.shape), s, ps;
  cr_assert_eq(ndx_permute(&s, &base, (int32_t[]){3, 2, 1, 0}), NDX_OK);
  cr_assert_eq(ndx_permute(&ps, &pbase, (int32_t[]){3, 2, 1, 0}), NDX_OK);
  ndx_layout d = contiguous(4, s.shape);
  struct {
    const ndx_layout *src;
    size_t items;
    long long chunk;
  } work[] = {{&s, 6, 1}, {&ps, 5, 1}};
  for (int k = 0; k < 2; k++) {
    ndx_cl_plan *plan;
    cr_assert_eq(ndx_cl_plan_create(&plan, env.cl, &d, work[k].src, 32), NDX_OK);
    size_t items;
    long long chunk;
    ndx_cl_plan_work(plan, &items, &chunk);
    ndx_cl_plan_destroy(plan);
    cr_assert(!cpu_shape() || (items == work[k].items && chunk == work[k].chunk),
              "case %d: %zu items of %lld batches, want %zu of %lld", k, items, chunk,
              work[k].items, work[k].chunk);
  }
  struct {
    int64_t shape[8];
    int32_t perm[8];
  } r8[] = {
      {{2, 3, 4, 5, 2, 3, 4, 5}, {7, 1, 5, 3, 6, 0, 4, 2}},
      {{7, 5, 3, 2, 7, 5, 3, 2}, {7, 1, 5, 3, 6, 0, 4, 2}},
      {{3, 3, 3, 3, 3, 3, 3, 3}, {7, 6, 5, 4, 3, 2, 1, 0}},
  };
  for (int w = 3; w < NWIDTHS; w++) {
    check_copy(&d, &s, widths[w], 0, "transpose");
    check_copy(&d, &s, widths[w], NDX_CL_PLAN_WIDE, "transpose");
    check_copy(&d, &ps, widths[w], 0, "transpose");
    for (size_t c = 0; c < sizeof r8 / sizeof r8[0]; c++) {
      ndx_layout b8 = contiguous(8, r8[c].shape), s8;
      cr_assert_eq(ndx_permute(&s8, &b8, r8[c].perm), NDX_OK);
      ndx_layout d8 = contiguous(8, s8.shape);
      check_copy(&d8, &s8, widths[w], 0, "transpose");
      check_copy(&d8, &s8, widths[w], NDX_CL_PLAN_WIDE, "transpose");
    }
  }
}

/* Sub-byte transposes whose destination rows start on bytes take the tile
 * kernel: word blocks (n x n, n = 64/bits) where the source rows start on
 * bytes, whole tiles (ndx_tile_side square: 512 for 1 bit, 128 for 2 and 4)
 * in vectors of words, one destination row of the tile at a time
 * (ndx_copy_bits_tile; 520 x 600 has whole tiles and edges at every width),
 * bands of 8 blocks in vectors of words where a tile is not whole but has
 * 8n rows (ndx_bits_bands: thin tiles of destination rows of 104 and 40
 * elements, the rows past the bands in word blocks), byte by byte elsewhere
 * (edges, a source at an odd element, a flipped source); rows that share
 * bytes take the byte-range kernel. */
Test(cl, sub_byte_transposes_own_whole_destination_bytes) {
  cl_env_need(&env);
  int64_t shapes[][2] = {{40, 72}, {136, 264}, {264, 136}, {8, 520},  {520, 8},
                         {72, 5},  {520, 600}, {104, 700}, {40, 600}, {200, 1400}};
  for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
    int64_t r = shapes[k][0], c = shapes[k][1];
    ndx_layout src = contiguous(2, (int64_t[]){r, c}), t, d = contiguous(2, (int64_t[]){c, r});
    cr_assert_eq(ndx_transpose(&t, &src, 0, 1), NDX_OK);
    for (int w = 0; w < 3; w++) {
      bool whole = r * widths[w] % 8 == 0; /* destination rows of r elements */
      check_copy(&d, &t, widths[w], 0, whole ? "transpose" : "bytes");
      check_copy(&d, &t, widths[w], NDX_CL_PLAN_WIDE, whole ? "transpose" : "bytes");
    }
  }
  /* a source at an odd element, a flipped source, a padded destination at
   * a byte offset, a batch, the batch into every other element (destination
   * byte ranges) */
  ndx_layout odd = make(2, (int64_t[]){72, 40}, (int64_t[]){1, 73}, 3);
  ndx_layout flip = make(2, (int64_t[]){72, 40}, (int64_t[]){-1, 72}, 71);
  ndx_layout pad = make(2, (int64_t[]){72, 40}, (int64_t[]){48, 1}, 16);
  ndx_layout d = contiguous(2, (int64_t[]){72, 40});
  ndx_layout b3 = make(3, (int64_t[]){2, 72, 40}, (int64_t[]){72 * 40, 1, 72}, 0),
             d3 = contiguous(3, (int64_t[]){2, 72, 40}), s3 = every_other(&d3);
  for (int w = 0; w < 3; w++) {
    check_copy(&d, &odd, widths[w], 0, "transpose");
    check_copy(&d, &flip, widths[w], 0, "transpose");
    check_copy(&pad, &odd, widths[w], 0, "transpose");
    check_copy(&d3, &b3, widths[w], 0, "transpose");
    check_copy(&s3, &b3, widths[w], 0, "bytes");
  }
}

/* Transposes whose destination rows start on 64-byte lines: on x86 CPU
 * devices their tiles go in line blocks (L rows x one line of columns,
 * written by streaming stores) where a tile has a line of columns, the rest
 * of the tile element by element. Each width gets a destination of 75 rows
 * (tail rows past the blocks) in a buffer whose pitch is whole lines plus
 * one, at an offset of one line, with a tile of columns that ends past a
 * whole line (53 columns for 32 and 64 bits, 109 for 8 and 16: tiles of 64,
 * 32, 128 and 128 columns, lines of 16, 8, 64 and 32); then the same at an
 * offset one element off the line, which must not stream, and a batch. The
 * sub-byte tiles (4, 2 and 1 bits, whole tiles of 128 and 512) write each
 * destination row of a tile in one vector store, streamed where the rows
 * start on the vector's bytes: [side + 8, side] destinations (side 256 for
 * 4 and 2 bits, 512 for 1), pitch side or side + 32. */
Test(cl, transposes_into_whole_lines_every_width) {
  cl_env_need(&env);
  for (int w = 3; w < NWIDTHS - 1; w++) {
    int64_t line = 512 / widths[w], rows = 75, cols = widths[w] <= 16 ? 109 : 53;
    int64_t pitch = (cols + line - 1) / line * line + line;
    ndx_layout src = contiguous(2, (int64_t[]){cols, rows}), t;
    cr_assert_eq(ndx_transpose(&t, &src, 0, 1), NDX_OK);
    for (int64_t off = line; off <= line + 1; off++) {
      ndx_layout d = make(2, (int64_t[]){rows, cols}, (int64_t[]){pitch, 1}, off);
      check_copy(&d, &t, widths[w], 0, "transpose");
      check_copy(&d, &t, widths[w], NDX_CL_PLAN_WIDE, "transpose");
    }
    ndx_layout b3 = make(3, (int64_t[]){2, rows, cols}, (int64_t[]){rows * cols, 1, rows}, 0),
               d3 = make(3, (int64_t[]){2, rows, cols}, (int64_t[]){rows * pitch, pitch, 1}, 0);
    check_copy(&d3, &b3, widths[w], 0, "transpose");
  }
  for (int w = 0; w < 3; w++) {
    int64_t side = widths[w] == 1 ? 512 : 256;
    for (int64_t pitch = side; pitch <= side + 32; pitch += 32) {
      ndx_layout src = contiguous(2, (int64_t[]){side, side + 8}), t;
      cr_assert_eq(ndx_transpose(&t, &src, 0, 1), NDX_OK);
      ndx_layout d = make(2, (int64_t[]){side + 8, side}, (int64_t[]){pitch, 1}, pitch);
      check_copy(&d, &t, widths[w], 0, "transpose");
      check_copy(&d, &t, widths[w], NDX_CL_PLAN_WIDE, "transpose");
    }
  }
}

Test(cl, strided_and_reversed_copies_take_the_gather_path) {
  cl_env_need(&env);
  /* every other element, reversed rows */
  ndx_layout big = contiguous(2, (int64_t[]){6, 30}), s, d = contiguous(2, (int64_t[]){6, 15});
  cr_assert_eq(ndx_slice(&s, &big, (ndx_range[]){{0, 6, 1}, {29, 15, -2}}), NDX_OK);
  for (int w = 0; w < NWIDTHS; w++) check_copy(&d, &s, widths[w], 0, odometer_path(widths[w]));
  /* a strided destination (a scatter into every third element) */
  ndx_layout sd = make(2, (int64_t[]){5, 7}, (int64_t[]){21, 3}, 1),
             c = contiguous(2, (int64_t[]){5, 7});
  for (int w = 0; w < NWIDTHS; w++) check_copy(&sd, &c, widths[w], 0, odometer_path(widths[w]));
  /* a full reversal of a vector */
  ndx_layout v = contiguous(1, (int64_t[]){100}), rv;
  cr_assert_eq(ndx_flip(&rv, &v, 0), NDX_OK);
  /* source strides 0, -1 and 2 under a unit destination stride are the
   * gather kernel's strided runs (ndx_copy_run has a vectorized loop for each) */
  for (int w = 0; w < NWIDTHS; w++) check_copy(&v, &rv, widths[w], 0, odometer_path(widths[w]));
  /* overlapping windows as the source */
  ndx_layout base = contiguous(1, (int64_t[]){40}), win, dw = contiguous(2, (int64_t[]){11, 5});
  cr_assert_eq(ndx_unfold(&win, &base, 1, (ndx_window[]){{0, 5, 3, 2}}), NDX_OK);
  for (int w = 0; w < NWIDTHS; w++)
    check_copy(&dw, &win, widths[w], 0, odometer_path(widths[w])); /* dilation 2 */
}

Test(cl, every_kernel_in_the_64_bit_form) {
  cl_env_need(&env);
  ndx_layout c = contiguous(2, (int64_t[]){19, 13}), t, d = contiguous(2, (int64_t[]){13, 19});
  cr_assert_eq(ndx_transpose(&t, &c, 0, 1), NDX_OK);
  ndx_layout spread = every_other(&d);
  ndx_layout big = contiguous(2, (int64_t[]){6, 40}), rows, dr = contiguous(2, (int64_t[]){6, 33});
  cr_assert_eq(ndx_slice(&rows, &big, (ndx_range[]){{0, 6, 1}, {3, 33, 1}}), NDX_OK);
  for (int w = 0; w < NWIDTHS; w++) {
    if (widths[w] >= 8) {
      check_copy(&d, &t, widths[w], NDX_CL_PLAN_WIDE, "transpose");
      check_copy(&dr, &rows, widths[w], NDX_CL_PLAN_WIDE, "rows");
    }
    check_copy(&d, &t, widths[w], NDX_CL_PLAN_WIDE, widths[w] >= 8 ? "transpose" : "bytes");
    check_copy(&spread, &t, widths[w], NDX_CL_PLAN_WIDE, odometer_path(widths[w]));
  }
}

Test(cl, a_span_past_2_31_elements_runs_the_64_bit_kernels) {
  cl_env_need(&env);
  /* 1-bit elements at positions 0, 2^31 and 2^31 + 5: 256 MiB of source
   * buffer, of which three bytes are written */
  const int64_t far = INT64_C(1) << 31;
  ndx_layout src_l = make(2, (int64_t[]){2, 2}, (int64_t[]){far, 5}, 0);
  ndx_layout dst_l = contiguous(2, (int64_t[]){2, 2});
  size_t ns = (size_t)((far + 5) / 8 + 1);
  cl_int e;
  cl_mem ms = clCreateBuffer(env.context, CL_MEM_READ_WRITE, ns, NULL, &e);
  cr_assert_eq(e, CL_SUCCESS, "a 256 MiB buffer: %d", e);
  uint8_t b0 = 0x21, b1 = 0x01; /* bits 0 and 5 of byte 0; bits 0 and 5 from 2^31 */
  cr_assert_eq(clEnqueueWriteBuffer(env.queue, ms, CL_TRUE, 0, 1, &b0, 0, NULL, NULL), CL_SUCCESS);
  cr_assert_eq(
      clEnqueueWriteBuffer(env.queue, ms, CL_TRUE, (size_t)(far / 8), 1, &b1, 0, NULL, NULL),
      CL_SUCCESS);
  uint8_t got = 0xf0;
  cl_mem md = cl_env_buffer(&env, 1, &got);
  ndx_cl_plan *plan;
  cr_assert_eq(ndx_cl_plan_create(&plan, env.cl, &dst_l, &src_l, 1), NDX_OK, "%s",
               ndx_last_error());
  cr_assert_str_eq(ndx_cl_plan_path(plan), "bytes");
  cr_assert_eq(ndx_cl_plan_wide(plan), 1);
  cr_assert_eq(ndx_cl_plan_enqueue(plan, env.queue, md, ms, 0, NULL, NULL), NDX_OK, "%s",
               ndx_last_error());
  cl_env_read(&env, md, 1, &got);
  /* elements: (0,0)=bit 0 -> 1, (0,1)=bit 5 -> 1, (1,0)=bit 2^31 -> 1, (1,1)=2^31+5 -> 0;
   * the destination's high nibble keeps its 0xf */
  cr_assert_eq(got, 0xf7, "got 0x%02x", got);
  ndx_cl_plan_destroy(plan);
  clReleaseMemObject(ms);
  clReleaseMemObject(md);
}

/* ---- Random layout pairs ------------------------------------------------------------ */

/* A random layout of exactly `shape` made by moves from a bigger contiguous
 * buffer: a slice with steps of +-1..3 and offsets, then (if `distinct` is
 * false) perhaps a broadcast of some axes, or windows, and a permutation. */
static ndx_layout random_moves(oracle_rng *r, int rank, const int64_t *shape, bool distinct) {
  int32_t perm[NDX_MAX_RANK], inv[NDX_MAX_RANK];
  for (int a = 0; a < rank; a++) perm[a] = a;
  for (int a = rank - 1; a > 0; a--) {
    int b = (int)oracle_between(r, 0, a);
    int32_t t = perm[a];
    perm[a] = perm[b];
    perm[b] = t;
  }
  for (int a = 0; a < rank; a++) inv[perm[a]] = a;
  /* built in the shape pshape, then permuted by inv into `shape` */
  int64_t pshape[NDX_MAX_RANK], bshape[NDX_MAX_RANK];
  for (int a = 0; a < rank; a++) pshape[a] = shape[perm[a]];
  int kind = distinct ? 0 : (int)oracle_between(r, 0, 3);
  ndx_layout base, l;
  ndx_range ranges[NDX_MAX_RANK];
  if (kind == 2 && rank >= 2 && pshape[rank - 1] > 0 && pshape[0] > 0) {
    /* windows: axis 0 of count pshape[0], window pshape[rank-1] */
    int64_t step = oracle_between(r, 1, 3), dil = oracle_between(r, 1, 2);
    int64_t size = pshape[rank - 1];
    for (int a = 0; a < rank - 1; a++) bshape[a] = pshape[a];
    bshape[0] = (pshape[0] - 1) * step + dil * (size - 1) + 1;
    base = contiguous(rank - 1, bshape);
    ndx_window w = {0, size, step, dil};
    cr_assert_eq(ndx_unfold(&l, &base, 1, &w), NDX_OK, "%s", ndx_last_error());
  } else {
    for (int a = 0; a < rank; a++) {
      int64_t step = oracle_between(r, 0, 1) ? 1 : oracle_between(r, 2, 3);
      if (oracle_between(r, 0, 2) == 0) step = -step;
      int64_t extra = oracle_between(r, 0, 2);
      bshape[a] = pshape[a] == 0 ? extra : (pshape[a] - 1) * (step < 0 ? -step : step) + 1 + extra;
      int64_t lo = oracle_between(r, 0, extra);
      int64_t start = step > 0 ? lo : lo + (pshape[a] - 1) * -step;
      ranges[a] = (ndx_range){pshape[a] == 0 ? 0 : start, pshape[a], step};
    }
    base = contiguous(rank, bshape);
    cr_assert_eq(ndx_slice(&l, &base, ranges), NDX_OK, "%s", ndx_last_error());
    if (kind == 1 && rank > 0) {
      /* broadcast one axis: make it extent 1 first */
      int a = (int)oracle_between(r, 0, rank - 1);
      ndx_layout n1;
      cr_assert_eq(ndx_narrow(&n1, &l, a, 0, pshape[a] > 0 ? 1 : 0), NDX_OK);
      if (pshape[a] > 0)
        cr_assert_eq(ndx_broadcast(&l, &n1, rank, pshape), NDX_OK, "%s", ndx_last_error());
    }
  }
  ndx_layout out;
  cr_assert_eq(ndx_permute(&out, &l, inv), NDX_OK, "%s", ndx_last_error());
  for (int a = 0; a < rank; a++) cr_assert_eq(out.shape[a], shape[a]);
  return out;
}

Test(cl, random_pairs_every_width_every_path) {
  cl_env_need(&env);
  oracle_rng r = {2024};
  enum { NPATHS = 6 };
  int paths[NPATHS] = {0};
  const char *names[NPATHS] = {"empty", "buffer", "rows", "gather", "transpose", "bytes"};
  for (int iter = 0; iter < 800; iter++) {
    int rank = (int)oracle_between(&r, 0, 8);
    int64_t shape[NDX_MAX_RANK], budget = 600;
    for (int a = 0; a < rank; a++) {
      shape[a] = oracle_between(&r, 1, rank <= 2 ? 24 : rank <= 4 ? 7 : 3);
      if (shape[a] > budget) shape[a] = budget;
      budget /= shape[a];
    }
    if (iter % 20 == 0 && rank > 0) shape[oracle_between(&r, 0, rank - 1)] = 0;
    ndx_layout d = random_moves(&r, rank, shape, true);
    ndx_layout s = random_moves(&r, rank, shape, false);
    int bits = widths[iter % NWIDTHS];
    const char *p = check_copy(&d, &s, bits, 0, NULL);
    for (int k = 0; k < NPATHS; k++) paths[k] += strcmp(p, names[k]) == 0;
    /* the same pair into every other element: the odometer on every pair */
    ndx_layout ds = every_other(&d);
    int64_t n = ndx_numel(&d);
    const char *odometer = n == 0 ? "empty" : n == 1 ? NULL : odometer_path(bits);
    check_copy(&ds, &s, bits, 0, odometer);
    check_copy(&ds, &s, bits, NDX_CL_PLAN_WIDE, odometer);
  }
  cr_log_info("paths: empty %d, buffer %d, rows %d, gather %d, transpose %d, bytes %d", paths[0],
              paths[1], paths[2], paths[3], paths[4], paths[5]);
  for (int k = 0; k < NPATHS; k++) cr_assert_gt(paths[k], 0, "no random pair took %s", names[k]);
}

/* ---- Refusals leave the destination untouched ----------------------------------------- */

Test(cl, refusals_enqueue_nothing) {
  cl_env_need(&env);
  ndx_layout d = contiguous(2, (int64_t[]){4, 8}), s = contiguous(2, (int64_t[]){4, 8});
  ndx_layout other = contiguous(2, (int64_t[]){8, 4});
  uint8_t fill[256], got[256];
  for (int i = 0; i < 256; i++) fill[i] = pattern((size_t)i);
  cl_mem md = cl_env_buffer(&env, 256, fill), ms = cl_env_buffer(&env, 256, fill),
         small = cl_env_buffer(&env, 32, fill);
  ndx_cl_plan *plan = NULL;
  /* plans */
  cr_assert_eq(ndx_cl_plan_create(&plan, env.cl, &d, &other, 8), NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), "[4,8]") && strstr(ndx_last_error(), "[8,4]"), "%s",
            ndx_last_error());
  ndx_layout bc, row = contiguous(1, (int64_t[]){8});
  cr_assert_eq(ndx_broadcast(&bc, &row, 2, (int64_t[]){4, 8}), NDX_OK);
  cr_assert_eq(ndx_cl_plan_create(&plan, env.cl, &bc, &s, 8), NDX_EINVAL, "broadcast dst");
  cr_assert(strstr(ndx_last_error(), "distinct"), "%s", ndx_last_error());
  ndx_layout win, base = contiguous(1, (int64_t[]){10});
  cr_assert_eq(ndx_unfold(&win, &base, 1, (ndx_window[]){{0, 4, 2, 1}}), NDX_OK); /* [4,4] */
  ndx_layout s44 = contiguous(2, (int64_t[]){4, 4});
  cr_assert_eq(ndx_cl_plan_create(&plan, env.cl, &win, &s44, 8), NDX_EINVAL, "overlapping windows");
  for (int bits = -1; bits <= 256; bits++)
    if (bits != 1 && bits != 2 && bits != 4 && bits != 8 && bits != 16 && bits != 32 &&
        bits != 64 && bits != 128)
      cr_assert_eq(ndx_cl_plan_create(&plan, env.cl, &d, &s, bits), NDX_EINVAL, "bits %d", bits);
  cr_assert_eq(ndx_cl_plan_create(NULL, env.cl, &d, &s, 8), NDX_EINVAL);
  cr_assert_eq(ndx_cl_plan_create(&plan, NULL, &d, &s, 8), NDX_EINVAL);
  cr_assert_eq(ndx_cl_plan_create(&plan, env.cl, NULL, &s, 8), NDX_EINVAL);
  cr_assert_eq(ndx_cl_plan_create(&plan, env.cl, &d, NULL, 8), NDX_EINVAL);
  cr_assert_null(plan, "no plan came out of a refusal");
  cr_assert_eq(ndx_cl_create(NULL, env.context, env.device), NDX_EINVAL);
  ndx_cl *cl2 = NULL;
  cr_assert_eq(ndx_cl_create(&cl2, NULL, env.device), NDX_EINVAL);
  cr_assert_eq(ndx_cl_create(&cl2, env.context, NULL), NDX_EINVAL);
  cr_assert_null(cl2);
  /* copies: spans past the buffer, NULL objects, wait lists, overlap */
  ndx_layout off = make(2, (int64_t[]){4, 8}, (int64_t[]){8, 1}, 1); /* reaches byte 32 */
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, small, &d, ms, &s, 8, 0, NULL, NULL), NDX_OK);
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, small, &off, ms, &s, 8, 0, NULL, NULL), NDX_ERANGE);
  cr_assert(strstr(ndx_last_error(), "dst"), "%s", ndx_last_error());
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &d, small, &off, 8, 0, NULL, NULL), NDX_ERANGE);
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &d, ms, &s, 128, 0, NULL, NULL), NDX_ERANGE,
               "512 bytes of 128-bit elements");
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, NULL, &d, ms, &s, 8, 0, NULL, NULL), NDX_EINVAL);
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &d, NULL, &s, 8, 0, NULL, NULL), NDX_EINVAL);
  cr_assert_eq(ndx_cl_copy(env.cl, NULL, md, &d, ms, &s, 8, 0, NULL, NULL), NDX_EINVAL);
  cr_assert_eq(ndx_cl_copy(NULL, env.queue, md, &d, ms, &s, 8, 0, NULL, NULL), NDX_EINVAL);
  cl_event ev = NULL;
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &d, ms, &s, 8, 1, NULL, NULL), NDX_EINVAL);
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &d, ms, &s, 8, 0, &ev, NULL), NDX_EINVAL);
  ndx_layout lo = contiguous(1, (int64_t[]){64});
  ndx_layout hi = make(1, (int64_t[]){64}, (int64_t[]){1}, 32);
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &hi, md, &lo, 8, 0, NULL, NULL), NDX_EINVAL,
               "overlapping bytes of one buffer");
  cr_assert(strstr(ndx_last_error(), "share"), "%s", ndx_last_error());
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &d, ms, &other, 8, 0, NULL, NULL), NDX_EINVAL);
  cr_assert_eq(ndx_cl_plan_enqueue(NULL, env.queue, md, ms, 0, NULL, NULL), NDX_EINVAL);
  /* a buffer and a queue of another context */
  cl_int e;
  cl_context c2 = clCreateContext(NULL, 1, &env.device, NULL, NULL, &e);
  cr_assert_eq(e, CL_SUCCESS);
  cl_mem foreign = clCreateBuffer(c2, CL_MEM_READ_WRITE, 256, NULL, &e);
  cl_command_queue q2 = clCreateCommandQueue(c2, env.device, 0, &e);
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, foreign, &d, ms, &s, 8, 0, NULL, NULL), NDX_EINVAL);
  cr_assert_eq(ndx_cl_copy(env.cl, q2, md, &d, ms, &s, 8, 0, NULL, NULL), NDX_EINVAL);
  clReleaseCommandQueue(q2);
  clReleaseMemObject(foreign);
  clReleaseContext(c2);
  clFinish(env.queue);
  cl_env_read(&env, md, 256, got);
  for (int i = 0; i < 256; i++) cr_assert_eq(got[i], fill[i], "byte %d changed", i);
  /* and the same buffers still copy */
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &d, ms, &s, 8, 0, NULL, NULL), NDX_OK);
  clReleaseMemObject(md);
  clReleaseMemObject(ms);
  clReleaseMemObject(small);
}

/* ---- Events and threads ---------------------------------------------------------- */

Test(cl, copies_wait_for_their_wait_list_and_signal_done) {
  cl_env_need(&env);
  ndx_layout c = contiguous(2, (int64_t[]){9, 11}), t, d = contiguous(2, (int64_t[]){11, 9});
  cr_assert_eq(ndx_transpose(&t, &c, 0, 1), NDX_OK);
  ndx_layout empty = contiguous(1, (int64_t[]){0});
  uint8_t src[99], got[99], zero[99] = {0};
  for (int i = 0; i < 99; i++) src[i] = (uint8_t)i;
  cl_mem ms = cl_env_buffer(&env, 99, src), md = cl_env_buffer(&env, 99, zero);
  for (int path = 0; path < 3; path++) { /* transpose, buffer, empty */
    cl_int e;
    cl_event gate = clCreateUserEvent(env.context, &e), done = NULL;
    cr_assert_eq(e, CL_SUCCESS);
    const ndx_layout *dl = path == 0 ? &d : path == 1 ? &c : &empty;
    const ndx_layout *sl = path == 0 ? &t : path == 1 ? &c : &empty;
    cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, dl, ms, sl, 8, 1, &gate, &done), NDX_OK, "%s",
                 ndx_last_error());
    cr_assert_not_null(done);
    clFlush(env.queue);
    cl_int status;
    clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    cr_assert_neq(status, CL_COMPLETE, "path %d ran before its wait list", path);
    clSetUserEventStatus(gate, CL_COMPLETE);
    cr_assert_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    clReleaseEvent(gate);
    cl_env_read(&env, md, 99, got);
    if (path == 0)
      for (int i = 0; i < 11; i++)
        for (int j = 0; j < 9; j++) cr_assert_eq(got[i * 9 + j], src[j * 11 + i]);
    if (path == 1) cr_assert_eq(memcmp(got, src, 99), 0);
  }
  clReleaseMemObject(ms);
  clReleaseMemObject(md);
}

typedef struct job {
  ndx_cl_plan *plan;
  cl_mem dst, src;
  ndx_status status;
} job;

static void *run_job(void *arg) {
  job *j = arg;
  for (int i = 0; i < 50 && j->status == NDX_OK; i++)
    j->status = ndx_cl_plan_enqueue(j->plan, env.queue, j->dst, j->src, 0, NULL, NULL);
  return NULL;
}

Test(cl, one_ndx_cl_serves_several_threads) {
  cl_env_need(&env);
  enum { T = 4, N = 33 };
  ndx_layout c = contiguous(2, (int64_t[]){N, N}), t;
  cr_assert_eq(ndx_transpose(&t, &c, 0, 1), NDX_OK);
  uint32_t src[N * N], got[N * N];
  for (int i = 0; i < N * N; i++) src[i] = (uint32_t)i * 2654435761u;
  cl_mem ms = cl_env_buffer(&env, sizeof src, src);
  job jobs[T];
  pthread_t th[T];
  for (int k = 0; k < T; k++) {
    jobs[k].dst = cl_env_buffer(&env, sizeof got, NULL);
    jobs[k].src = ms;
    jobs[k].status = ndx_cl_plan_create(&jobs[k].plan, env.cl, &c, k % 2 ? &t : &c, 32);
    cr_assert_eq(jobs[k].status, NDX_OK);
  }
  for (int k = 0; k < T; k++) pthread_create(&th[k], NULL, run_job, &jobs[k]);
  for (int k = 0; k < T; k++) pthread_join(th[k], NULL);
  clFinish(env.queue);
  for (int k = 0; k < T; k++) {
    cr_assert_eq(jobs[k].status, NDX_OK, "%s", ndx_last_error());
    cl_env_read(&env, jobs[k].dst, sizeof got, got);
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        cr_assert_eq(got[i * N + j], k % 2 ? src[j * N + i] : src[i * N + j]);
    ndx_cl_plan_destroy(jobs[k].plan);
    clReleaseMemObject(jobs[k].dst);
  }
  clReleaseMemObject(ms);
}

Test(cl, large_copies_split_across_many_work_items) {
  cl_env_need(&env);
  /* [301, 263] from a [263, 301] (transpose), from a padded slice (rows) and
   * reversed with a stride (gather): tens of thousands of elements, so every
   * kernel runs many work-items whose ranges start mid-row */
  int64_t shape[2] = {301, 263};
  ndx_layout d = contiguous(2, shape), c = contiguous(2, (int64_t[]){263, 301}), t;
  cr_assert_eq(ndx_transpose(&t, &c, 0, 1), NDX_OK);
  ndx_layout big = contiguous(2, (int64_t[]){302, 600}), rows, rev;
  cr_assert_eq(ndx_slice(&rows, &big, (ndx_range[]){{1, 301, 1}, {7, 263, 1}}), NDX_OK);
  cr_assert_eq(ndx_slice(&rev, &big, (ndx_range[]){{301, 301, -1}, {599, 263, -2}}), NDX_OK);
  for (int w = 0; w < NWIDTHS; w++) {
    bool whole = widths[w] >= 8;
    check_copy(&d, &t, widths[w], 0, whole ? "transpose" : "bytes");
    check_copy(&d, &rows, widths[w], 0, whole ? "rows" : "bytes");
    check_copy(&d, &rev, widths[w], 0, odometer_path(widths[w]));
    /* the transpose's destination, strided: a scatter */
    ndx_layout scat = make(2, shape, (int64_t[]){263 * 3, 3}, 2);
    check_copy(&scat, &t, widths[w], 0, odometer_path(widths[w]));
  }
}

/* ---- Kernel shapes ---------------------------------------------------------------- */

/* An ndx_cl made while NDX_CL_SHAPE=gpu runs the gpu shape on this device,
 * whatever its type: contiguous copies are the buffer copy at every size,
 * a destination row from a step-2 or broadcast source column is a
 * transpose through work-group tiles, and every path copies the reference's
 * bytes (the whole device suite runs this way under NDX_CL_SHAPE=gpu in
 * ci/test). Another value is refused, naming the variable and the value. */
Test(cl, ndx_cl_shape_gpu_plans_the_gpu_paths) {
  cl_env_need(&env);
  setenv("NDX_CL_SHAPE", "gpu", 1);
  const char *shape = NULL;
  cr_assert_eq(ndx_cl_device_shape(env.device, &shape), NDX_OK);
  cr_assert_str_eq(shape, "gpu");
  ndx_cl *gpu;
  cr_assert_eq(ndx_cl_create(&gpu, env.context, env.device), NDX_OK, "%s", ndx_last_error());
  cr_assert_str_eq(ndx_cl_shape(gpu), "gpu");
  struct {
    ndx_layout d, s;
    int bits;
    const char *path;
  } cases[] = {
      {contiguous(1, (int64_t[]){1 << 20}), contiguous(1, (int64_t[]){1 << 20}), 8, "buffer"},
      {contiguous(2, (int64_t[]){2, 50}), make(2, (int64_t[]){2, 50}, (int64_t[]){1, 2}, 0), 8,
       "transpose"},
      {contiguous(2, (int64_t[]){21, 17}), make(2, (int64_t[]){21, 17}, (int64_t[]){1, 0}, 0), 32,
       "transpose"},
      {make(2, (int64_t[]){3, 40}, (int64_t[]){48, 1}, 4),
       make(2, (int64_t[]){3, 40}, (int64_t[]){40, 1}, 0), 16, "rows"},
      {contiguous(1, (int64_t[]){99}), make(1, (int64_t[]){99}, (int64_t[]){3}, 0), 64, "gather"},
      {contiguous(1, (int64_t[]){99}), make(1, (int64_t[]){99}, (int64_t[]){3}, 0), 4, "bytes"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    ndx_cl_plan *plan;
    cr_assert_eq(ndx_cl_plan_create(&plan, gpu, &cases[k].d, &cases[k].s, cases[k].bits), NDX_OK,
                 "%s", ndx_last_error());
    cr_assert_str_eq(ndx_cl_plan_path(plan), cases[k].path, "case %zu", k);
    ndx_cl_plan_destroy(plan);
  }
  ndx_cl_destroy(gpu);
  setenv("NDX_CL_SHAPE", "tpu", 1);
  ndx_cl *bad = NULL;
  cr_assert_eq(ndx_cl_create(&bad, env.context, env.device), NDX_EINVAL);
  cr_assert_null(bad);
  cr_assert(strstr(ndx_last_error(), "ndx_cl_create") && strstr(ndx_last_error(), "NDX_CL_SHAPE") &&
                strstr(ndx_last_error(), "\"tpu\""),
            "%s", ndx_last_error());
  cr_assert_eq(ndx_cl_device_shape(env.device, &shape), NDX_EINVAL);
  unsetenv("NDX_CL_SHAPE");
  cr_assert_eq(ndx_cl_device_shape(env.device, &shape), NDX_OK);
  cl_device_type type;
  cr_assert_eq(clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof type, &type, NULL), CL_SUCCESS);
  cr_assert_str_eq(shape, type & CL_DEVICE_TYPE_CPU ? "cpu" : "gpu");
}
