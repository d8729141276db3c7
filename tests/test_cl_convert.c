/* test_cl_convert.c: ndx_cl_convert on the OpenCL device, in the shape the
 * device picks or NDX_CL_SHAPE gives (meson runs it in both).
 *
 * Every ordered pair of the 18 types converts a random layout pair of
 * random source bits (NaN payloads, subnormals and values past every range
 * among them) and the whole destination buffer, bytes outside the layout
 * and the other nibble of a shared byte included, must equal the host
 * reference (convert_ref.h, independent of the kernels' ndx_convert.h).
 * Then the layouts ndx_cl_copy takes that stress a conversion's own
 * paths: flips, broadcasts, 4-bit elements starting inside a byte, rank 0
 * and rank 32, the 64-bit index form; and the refusals, each of which
 * writes nothing. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ndx/ndx_cl.h"

#include "cl_env.h"
#include "convert_cases.h"
#include "convert_ref.h"
#include "device/cl_runtime.h" /* ndx_cl_convert_kernel_name */
#include "oracle.h"

static cl_env env;

static void setup(void) {
  cl_env_open(&env);
}

static void teardown(void) {
  cl_env_close(&env);
}

TestSuite(cl_convert, .init = setup, .fini = teardown);

static uint8_t pattern(size_t i) {
  return (uint8_t)(0x5a ^ (i * 29));
}

/* Converts `s` (type st) into `d` (type dt) on the device and compares the
 * whole destination buffer, margin included, with the reference. */
static void check_convert(const ndx_layout *d, ndx_dtype dt, const ndx_layout *s, ndx_dtype st,
                          uint64_t seed) {
  int db = ndx_dtype_bits(dt), sb = ndx_dtype_bits(st);
  oracle_rng r = {seed};
  size_t nd = cl_env_buffer_bytes(d, db), ns = cl_env_buffer_bytes(s, sb);
  uint8_t *src = malloc(ns), *want = malloc(nd), *got = malloc(nd);
  cr_assert(src && want && got);
  for (size_t i = 0; i < ns; i++) src[i] = (uint8_t)oracle_next(&r);
  for (size_t i = 0; i < nd; i++) want[i] = pattern(i);
  cl_mem ms = cl_env_buffer(&env, ns, src), md = cl_env_buffer(&env, nd, want);
  int64_t n = oracle_numel(d);
  for (int64_t k = 0; k < n; k++)
    ref_convert_elem(want, oracle_position_of(d, k), dt, src, oracle_position_of(s, k), st);
  cl_event done = NULL;
  ndx_status stat = ndx_cl_convert(env.cl, env.queue, md, d, dt, ms, s, st, 0, NULL, &done);
  char dtext[256], stext[256];
  ndx_format(dtext, sizeof dtext, d);
  ndx_format(stext, sizeof stext, s);
  cr_assert_eq(stat, NDX_OK, "%s to %s, dst %s, src %s: %s", ndx_dtype_name(st), ndx_dtype_name(dt),
               dtext, stext, ndx_last_error());
  if (done) {
    cr_assert_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
  }
  cl_env_read(&env, md, nd, got);
  for (size_t i = 0; i < nd; i++)
    cr_assert_eq(got[i], want[i], "%s to %s, dst %s, src %s: byte %zu is 0x%02x, want 0x%02x",
                 ndx_dtype_name(st), ndx_dtype_name(dt), dtext, stext, i, got[i], want[i]);
  clReleaseMemObject(ms);
  clReleaseMemObject(md);
  free(src), free(want), free(got);
}

/* A random view of `shape` for a destination (distinct: a view of a
 * bigger buffer in some memory order, steps of 1 or 2, flips) or a source
 * (any strides, broadcasts and repeats included). */
static ndx_layout view_of(oracle_rng *r, int rank, const int64_t *shape, bool distinct) {
  if (!distinct) return oracle_random_layout_of_shape(r, rank, shape, 5, 3);
  ndx_layout l;
  do l = oracle_view_layout_of_shape(r, rank, shape);
  while (!ndx_is_distinct(&l));
  return l;
}

Test(cl_convert, every_pair_random_layouts_and_bits, .timeout = 900) {
  cl_env_need(&env);
  oracle_rng r = {32};
  for (int st = 0; st < 18; st++)
    for (int dt = 0; dt < 18; dt++) {
      int64_t shape[NDX_MAX_RANK];
      int rank = oracle_random_shape(&r, 4, 9, 8, shape);
      ndx_layout d = view_of(&r, rank, shape, true), s = view_of(&r, rank, shape, false);
      check_convert(&d, (ndx_dtype)dt, &s, (ndx_dtype)st, (uint64_t)(st * 18 + dt + 1));
    }
}

static ndx_layout make(int rank, const int64_t *shape, const int64_t *strides, int64_t offset) {
  ndx_layout l;
  cr_assert_eq(ndx_make(&l, rank, shape, strides, offset), NDX_OK, "%s", ndx_last_error());
  return l;
}

static ndx_layout contiguous(int rank, const int64_t *shape, int64_t offset) {
  ndx_layout c, l;
  cr_assert_eq(ndx_contiguous(&c, rank, shape), NDX_OK);
  l = make(rank, shape, c.strides, offset);
  return l;
}

/* The pairs the named layouts (convert_cases.h) run: each direction of the
 * formats a backend converts most, and the 4-bit types on either side. */
static const ndx_dtype pairs[][2] = {
    {NDX_F32, NDX_BF16},     {NDX_BF16, NDX_F32},   {NDX_F32, NDX_F16},
    {NDX_F32, NDX_F8E4M3FN}, {NDX_F8E5M2, NDX_F32}, {NDX_F4E2M1FN, NDX_F16},
    {NDX_F16, NDX_F4E2M1FN}, {NDX_I8, NDX_F32},     {NDX_U4, NDX_I4},
    {NDX_F64, NDX_I64},      {NDX_I4, NDX_U8},      {NDX_BOOL, NDX_F4E2M1FN},
};
#define NPAIRS (sizeof pairs / sizeof pairs[0])

Test(cl_convert, flips_broadcasts_transposes_and_odd_starts) {
  cl_env_need(&env);
  for (size_t k = 0; k < NPAIRS; k++) {
    ndx_dtype st = pairs[k][0], dt = pairs[k][1];
    uint64_t seed = 100 + k;
    for (int c = 0; c < CONVERT_NAMED; c++) {
      ndx_layout d, s;
      convert_named_case(c, &d, &s);
      check_convert(&d, dt, &s, st, seed + (uint64_t)c);
    }
  }
}

/* Checks that converting s (type st) into d (type dt) runs a kernel whose
 * name starts with `want`, then the conversion (check_convert, `seed`). */
static void check_kernel_and_convert(const ndx_layout *d, ndx_dtype dt, const ndx_layout *s,
                                     ndx_dtype st, const char *want, uint64_t seed) {
  char name[64];
  cr_assert_eq(ndx_cl_convert_kernel_name(env.cl, d, dt, s, st, name, sizeof name), NDX_OK, "%s",
               ndx_last_error());
  cr_assert(strncmp(name, want, strlen(want)) == 0, "%s to %s, seed %llu: %s, want %s...",
            ndx_dtype_name(st), ndx_dtype_name(dt), (unsigned long long)seed, name, want);
  check_convert(d, dt, s, st, seed);
}

/* Transposes that convert take the shape's tile path, the cpu shape's
 * ndx_convert_tile and the gpu shape's ndx_convert_transpose (the copy's
 * tiles, converting between load and store), so that a planner that stops
 * taking it fails here: several tiles with edges, batches, tiles joined
 * with the batch axes, flips along either tile axis, source rows off the
 * sectors (long tiles that realign), into 8 to 64 bits from 4 to 64. */
Test(cl_convert, transposes_take_the_tile_path) {
  cl_env_need(&env);
  static const ndx_dtype tpairs[][2] = {
      {NDX_F32, NDX_BF16}, {NDX_BF16, NDX_F32}, {NDX_F16, NDX_F8E4M3FN}, {NDX_I8, NDX_F64},
      {NDX_F64, NDX_I16},  {NDX_U4, NDX_F32},   {NDX_F32, NDX_U8},       {NDX_BOOL, NDX_F16},
  };
  int64_t jshape[6] = {3, 20, 31, 2, 20, 29};
  int32_t jperm[6] = {5, 1, 3, 4, 0, 2};
  ndx_layout jparent = contiguous(6, jshape, 0), jsrc;
  cr_assert_eq(ndx_permute(&jsrc, &jparent, jperm), NDX_OK);
  ndx_layout bparent = contiguous(3, (int64_t[]){3, 40, 65}, 0), bsrc;
  cr_assert_eq(ndx_permute(&bsrc, &bparent, (int32_t[]){0, 2, 1}), NDX_OK);
  const struct {
    ndx_layout d, s;
  } cases[] = {
      /* 4 x 3 tiles with edges, a padded source at an offset */
      {contiguous(2, (int64_t[]){100, 70}, 0),
       make(2, (int64_t[]){100, 70}, (int64_t[]){1, 101}, 3)},
      /* batches */
      {contiguous(3, (int64_t[]){3, 65, 40}, 1), bsrc},
      /* tiles joined with the batch axes */
      {contiguous(6, jsrc.shape, 0), jsrc},
      /* flipped along j, and along k */
      {contiguous(2, (int64_t[]){70, 100}, 0),
       make(2, (int64_t[]){70, 100}, (int64_t[]){1, -70}, 70 * 99)},
      {contiguous(2, (int64_t[]){70, 100}, 0),
       make(2, (int64_t[]){70, 100}, (int64_t[]){-1, 70}, 69)},
      /* source rows off the sectors, long along k */
      {contiguous(2, (int64_t[]){300, 70}, 0),
       make(2, (int64_t[]){300, 70}, (int64_t[]){1, 301}, 1)},
  };
  bool gpu = strcmp(ndx_cl_shape(env.cl), "gpu") == 0;
  const char *want = gpu ? "ndx_convert_transpose from " : "ndx_convert_tile from ";
  for (size_t k = 0; k < sizeof tpairs / sizeof *tpairs; k++)
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
      ndx_dtype st = tpairs[k][0], dt = tpairs[k][1];
      check_kernel_and_convert(&cases[c].d, dt, &cases[c].s, st, want, 400 + 10 * k + c);
    }
}

/* Transposes into a 4-bit destination whose rows start on bytes take the
 * gpu shape's ndx_convert_transpose (the copy's tile below 8 bits, a byte
 * of two converted elements a slot: pairs loaded as one source word, or
 * an element at a time where the source's rows are an odd number of
 * elements apart) and the cpu shape's ndx_convert_bytes; destination rows
 * that share bytes take bytes on both. */
Test(cl_convert, transposes_into_4_bits_take_the_shapes_paths) {
  cl_env_need(&env);
  static const ndx_dtype tpairs[][2] = {
      {NDX_F16, NDX_F4E2M1FN}, {NDX_F32, NDX_I4}, {NDX_BF16, NDX_U4},
      {NDX_I8, NDX_F4E2M1FN},  {NDX_U4, NDX_I4},  {NDX_F64, NDX_F4E2M1FN},
  };
  const struct {
    ndx_layout d, s;
    bool tile; /* on the gpu shape */
  } cases[] = {
      /* 2 x 3 tiles with edges, source rows an odd number apart: elements */
      {contiguous(2, (int64_t[]){100, 70}, 0),
       make(2, (int64_t[]){100, 70}, (int64_t[]){1, 101}, 3), true},
      /* flipped along j (pairs), and along k (pairs from a word's top), an
       * odd k extent (the last pair alone) */
      {contiguous(2, (int64_t[]){71, 100}, 0),
       make(2, (int64_t[]){71, 100}, (int64_t[]){1, -72}, 72 * 99), true},
      {contiguous(2, (int64_t[]){71, 100}, 0),
       make(2, (int64_t[]){71, 100}, (int64_t[]){-1, 72}, 71), true},
      /* destination rows of 29 share bytes */
      {contiguous(2, (int64_t[]){37, 29}, 0), make(2, (int64_t[]){37, 29}, (int64_t[]){1, 37}, 0),
       false},
  };
  bool gpu = strcmp(ndx_cl_shape(env.cl), "gpu") == 0;
  for (size_t k = 0; k < sizeof tpairs / sizeof *tpairs; k++)
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
      ndx_dtype st = tpairs[k][0], dt = tpairs[k][1];
      const char *want =
          gpu && cases[c].tile ? "ndx_convert_transpose from " : "ndx_convert_bytes from ";
      check_kernel_and_convert(&cases[c].d, dt, &cases[c].s, st, want, 500 + 10 * k + c);
    }
}

Test(cl_convert, a_4_bit_destination_keeps_the_nibble_it_does_not_own) {
  cl_env_need(&env);
  /* every other nibble of a buffer, from odd and even starts */
  for (int64_t off = 0; off < 4; off++) {
    ndx_layout d = make(1, (int64_t[]){45}, (int64_t[]){2}, off);
    ndx_layout s = contiguous(1, (int64_t[]){45}, 0);
    check_convert(&d, NDX_F4E2M1FN, &s, NDX_F32, 200 + (uint64_t)off);
    check_convert(&d, NDX_I4, &s, NDX_I16, 210 + (uint64_t)off);
  }
}

Test(cl_convert, the_same_type_is_the_copy) {
  cl_env_need(&env);
  ndx_layout d = contiguous(2, (int64_t[]){9, 11}, 0);
  ndx_layout s = make(2, (int64_t[]){9, 11}, (int64_t[]){1, 9}, 2);
  for (int t = 0; t < 18; t++) check_convert(&d, (ndx_dtype)t, &s, (ndx_dtype)t, 300 + t);
  /* and its refusals name ndx_cl_convert */
  ndx_layout small = contiguous(1, (int64_t[]){3}, 0);
  cl_mem m = cl_env_buffer(&env, 64, NULL);
  cr_assert_eq(ndx_cl_convert(env.cl, env.queue, m, &d, NDX_F32, m, &small, NDX_F32, 0, NULL, NULL),
               NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), "ndx_cl_convert"), "%s", ndx_last_error());
  clReleaseMemObject(m);
}

/* Expects ndx_cl_convert to refuse with `want`, its message holding each of
 * `words`, and the destination buffer (filled with the pattern) and *done
 * untouched. */
static void expect_refusal(ndx_status want, const ndx_layout *d, ndx_dtype dt, const ndx_layout *s,
                           ndx_dtype st, size_t nd, size_t ns, bool one_buffer,
                           const char *const *words) {
  uint8_t *before = malloc(nd), *after = malloc(nd);
  cr_assert(before && after);
  for (size_t i = 0; i < nd; i++) before[i] = pattern(i);
  cl_mem md = cl_env_buffer(&env, nd, before), ms = one_buffer ? md : cl_env_buffer(&env, ns, NULL);
  cl_event done = (cl_event)&done;
  ndx_status got = ndx_cl_convert(env.cl, env.queue, md, d, dt, ms, s, st, 0, NULL, &done);
  cr_assert_eq(got, want, "status %d, want %d: %s", got, want, ndx_last_error());
  cr_assert_eq(done, (cl_event)&done, "*done untouched");
  for (const char *const *w = words; *w; w++)
    cr_assert(strstr(ndx_last_error(), *w), "want \"%s\" in: %s", *w, ndx_last_error());
  cr_assert_eq(clFinish(env.queue), CL_SUCCESS);
  cl_env_read(&env, md, nd, after);
  cr_assert(memcmp(before, after, nd) == 0, "the destination is untouched");
  if (!one_buffer) clReleaseMemObject(ms);
  clReleaseMemObject(md);
  free(before), free(after);
}

Test(cl_convert, refusals_name_the_call_and_write_nothing) {
  cl_env_need(&env);
  ndx_layout d = contiguous(2, (int64_t[]){4, 6}, 0), s = contiguous(2, (int64_t[]){4, 6}, 0);
  expect_refusal(NDX_EINVAL, &d, (ndx_dtype)18, &s, NDX_F32, 128, 128, false,
                 (const char *const[]){"ndx_cl_convert", "dst_t is 18", NULL});
  expect_refusal(NDX_EINVAL, &d, NDX_BF16, &s, (ndx_dtype)-1, 128, 128, false,
                 (const char *const[]){"ndx_cl_convert", "src_t is -1", NULL});
  ndx_layout other = contiguous(2, (int64_t[]){6, 4}, 0);
  expect_refusal(NDX_EINVAL, &d, NDX_BF16, &other, NDX_F32, 128, 128, false,
                 (const char *const[]){"ndx_cl_convert", "shape", NULL});
  ndx_layout repeat = make(2, (int64_t[]){4, 6}, (int64_t[]){0, 1}, 0);
  expect_refusal(NDX_EINVAL, &repeat, NDX_BF16, &s, NDX_F32, 128, 128, false,
                 (const char *const[]){"ndx_cl_convert", "dst", NULL});
  /* one buffer: f32 source bytes [0, 96), bf16 destination bytes [80, 128) */
  ndx_layout over = contiguous(2, (int64_t[]){4, 6}, 40);
  expect_refusal(NDX_EINVAL, &over, NDX_BF16, &s, NDX_F32, 256, 256, true,
                 (const char *const[]){"ndx_cl_convert", "dst and src", "[80, 96)", NULL});
  /* a destination of 24 f64 (192 bytes) in 128 */
  expect_refusal(NDX_ERANGE, &d, NDX_F64, &s, NDX_F32, 128, 128, false,
                 (const char *const[]){"ndx_cl_convert", "dst needs 192 bytes", NULL});
  /* a source of 24 i64 in 128 */
  expect_refusal(NDX_ERANGE, &d, NDX_F32, &s, NDX_I64, 128, 128, false,
                 (const char *const[]){"ndx_cl_convert", "src needs 192 bytes", NULL});
  cr_assert_eq(
      ndx_cl_convert(NULL, env.queue, NULL, &d, NDX_F32, NULL, &s, NDX_BF16, 0, NULL, NULL),
      NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), "ndx_cl_convert: cl is NULL"), "%s", ndx_last_error());
}

/* Transposes of several tiles a side (the cpu shape's tiles are
 * NDX_CL_CONVERT_TILE_K x NDX_CL_CONVERT_TILE_J, 64 x 64) with partial
 * tiles at both edges, rows and columns that go in blocks of 16 x 8 and
 * one by one, batched, the source's unit axis reversed, destination rows
 * of stride 2, from 4-bit to 64-bit sources and into a 64-bit destination
 * (element by element). */
Test(cl_convert, transposes_of_many_tiles) {
  cl_env_need(&env);
  static const ndx_dtype tile_pairs[][2] = {
      {NDX_F32, NDX_F16}, {NDX_BF16, NDX_F32},   {NDX_F4E2M1FN, NDX_F16}, {NDX_I8, NDX_F32},
      {NDX_F64, NDX_I64}, {NDX_U16, NDX_F8E5M2}, {NDX_F64, NDX_F32}};
  for (size_t k = 0; k < sizeof tile_pairs / sizeof tile_pairs[0]; k++) {
    ndx_dtype st = tile_pairs[k][0], dt = tile_pairs[k][1];
    uint64_t seed = 400 + 8 * k;
    ndx_layout d = contiguous(2, (int64_t[]){150, 131}, 2);
    ndx_layout s = make(2, (int64_t[]){150, 131}, (int64_t[]){1, 151}, 1);
    check_convert(&d, dt, &s, st, seed);
    d = contiguous(3, (int64_t[]){3, 70, 129}, 0);
    s = make(3, (int64_t[]){3, 70, 129}, (int64_t[]){70 * 129, 1, 70}, 0);
    check_convert(&d, dt, &s, st, seed + 1);
    d = contiguous(2, (int64_t[]){130, 66}, 0);
    s = make(2, (int64_t[]){130, 66}, (int64_t[]){-1, 130}, 129);
    check_convert(&d, dt, &s, st, seed + 2);
    d = make(2, (int64_t[]){150, 131}, (int64_t[]){262, 2}, 1); /* rows of stride 2 */
    s = make(2, (int64_t[]){150, 131}, (int64_t[]){1, 151}, 1);
    check_convert(&d, dt, &s, st, seed + 3);
  }
}

/* Long rows from 4-bit sources (a run reads a byte, two elements, at a
 * time from an even position), from odd and even positions, forward,
 * reversed, with a step of 3, and from inside a source word. */
Test(cl_convert, long_rows_from_4_bit_sources) {
  cl_env_need(&env);
  static const ndx_dtype four_bit_pairs[][2] = {
      {NDX_F4E2M1FN, NDX_F16}, {NDX_I4, NDX_F32}, {NDX_U4, NDX_I8}, {NDX_F4E2M1FN, NDX_BF16}};
  for (size_t k = 0; k < sizeof four_bit_pairs / sizeof four_bit_pairs[0]; k++) {
    ndx_dtype st = four_bit_pairs[k][0], dt = four_bit_pairs[k][1];
    uint64_t seed = 500 + 4 * k;
    ndx_layout d = contiguous(2, (int64_t[]){3, 600}, 0);
    ndx_layout s = make(2, (int64_t[]){3, 600}, (int64_t[]){601, 1}, 1);
    check_convert(&d, dt, &s, st, seed);
    s = make(2, (int64_t[]){3, 600}, (int64_t[]){600, -1}, 599);
    check_convert(&d, dt, &s, st, seed + 1);
    s = make(2, (int64_t[]){3, 600}, (int64_t[]){1800, 3}, 2);
    check_convert(&d, dt, &s, st, seed + 2);
    /* rows of 599 from inside a source word into destination rows at the
     * same element of theirs: the gpu shape's groups of a row's elements,
     * each row's first unit short and its last partial */
    d = make(2, (int64_t[]){3, 599}, (int64_t[]){608, 1}, 16 + 3);
    s = make(2, (int64_t[]){3, 599}, (int64_t[]){-608, 1}, 2 * 608 + 3);
    check_convert(&d, dt, &s, st, seed + 3);
  }
}

/* Rows of several 64-byte destination lines with unit strides on both
 * sides, from every start within a line (the cpu shape streams whole
 * destination lines: its head up to a line, the lines, its tail), into
 * destinations of 8, 16 and 32 bits. */
Test(cl_convert, rows_of_whole_destination_lines) {
  cl_env_need(&env);
  static const ndx_dtype line_pairs[][2] = {{NDX_F32, NDX_BF16},     {NDX_I8, NDX_F32},
                                            {NDX_F32, NDX_F8E4M3FN}, {NDX_F64, NDX_F32},
                                            {NDX_I32, NDX_U8},       {NDX_U16, NDX_F16}};
  for (size_t k = 0; k < sizeof line_pairs / sizeof line_pairs[0]; k++)
    for (int64_t off = 0; off < 70; off += 23) {
      ndx_dtype st = line_pairs[k][0], dt = line_pairs[k][1];
      ndx_layout d = make(2, (int64_t[]){3, 1000}, (int64_t[]){1003, 1}, off);
      ndx_layout s = make(2, (int64_t[]){3, 1000}, (int64_t[]){1000, 1}, 69 - off);
      check_convert(&d, dt, &s, st, 600 + 8 * k + (uint64_t)off);
    }
}
