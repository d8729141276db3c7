/* test_cl_index.c: ndx_cl_gather and ndx_cl_scatter on a real OpenCL device
 * (PoCL in CI), each call compared byte for byte, over the whole
 * destination buffer, with the reference of tests/index_oracle.h applied to
 * the same pre-filled destination: untouched bytes, and untouched bits of
 * shared bytes, are checked too. Faults must write nothing and be reported
 * by ndx_cl_check naming an element whose value is really out of range.
 * Environment as tests/test_cl.c. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cl_internal.h"
#include "ndx/ndx_cl.h"
#include "cl_env.h"
#include "oracle.h"
#include "index_oracle.h"

static cl_env env;

static void setup(void) {
  cl_env_open(&env);
}

static void teardown(void) {
  cl_env_close(&env);
}

TestSuite(cl_index, .init = setup, .fini = teardown);

static const int widths[] = {1, 2, 4, 8, 16, 32, 64, 128};

static ndx_layout contiguous(int rank, const int64_t *shape) {
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, rank, shape), NDX_OK, "%s", ndx_last_error());
  return l;
}

/* A random view layout of `shape` that is distinct (a destination). */
static ndx_layout distinct_view(oracle_rng *r, int rank, const int64_t *shape) {
  for (int tries = 0; tries < 50; tries++) {
    ndx_layout l = oracle_view_layout_of_shape(r, rank, shape);
    if (ndx_is_distinct(&l)) return l;
  }
  return contiguous(rank, shape);
}

/* Releases a call's three device buffers and frees its host ones. */
static void release_call(cl_mem md, cl_mem ms, cl_mem mi, uint8_t *src, uint8_t *want,
                         uint8_t *got) {
  clReleaseMemObject(md);
  clReleaseMemObject(ms);
  clReleaseMemObject(mi);
  free(src);
  free(want);
  free(got);
}

/* One call on the device, checked against the reference: the whole dst
 * buffer, and, for a fault, nothing written and ndx_cl_check naming a
 * faulty element. `internal` as ndx_cl_index_flags. Returns true when the
 * reference found a fault. */
static bool check_call(bool scatter, const ndx_layout *dst_l, const ndx_layout *src_l, int axis,
                       const ndx_layout *index_l, const uint8_t *index, int index_bits,
                       unsigned flags, int bits, unsigned internal, oracle_rng *r) {
  size_t nd = cl_env_buffer_bytes(dst_l, bits), ns = cl_env_buffer_bytes(src_l, bits);
  size_t ni = cl_env_buffer_bytes(index_l, index_bits);
  uint8_t *src = malloc(ns), *want = malloc(nd), *got = malloc(nd);
  for (size_t i = 0; i < ns; i++) src[i] = (uint8_t)oracle_next(r);
  for (size_t i = 0; i < nd; i++) want[i] = (uint8_t)oracle_next(r);
  /* `index` holds the index layout's bytes; the device buffer adds a margin */
  uint8_t *ibuf = calloc(ni, 1);
  memcpy(ibuf, index, ni - CL_ENV_MARGIN);
  cl_mem md = cl_env_buffer(&env, nd, want), ms = cl_env_buffer(&env, ns, src),
         mi = cl_env_buffer(&env, ni, ibuf);
  free(ibuf);
  int64_t value = 0;
  int64_t bad = oracle_index_copy(scatter, want, dst_l, src, src_l, axis, index, index_l,
                                  index_bits, flags, bits, &value);
  ndx_status s = ndx_cl_index_flags(scatter, internal, env.cl, env.queue, md, dst_l, ms, src_l,
                                    axis, mi, index_l, index_bits, flags, bits, 0, NULL, NULL);
  cr_assert_eq(s, NDX_OK, "%s", ndx_last_error());
  ndx_status c = ndx_cl_check(env.cl);
  cl_env_read(&env, md, nd, got);
  char a[256], b[256], i[256];
  oracle_describe(a, sizeof a, dst_l);
  oracle_describe(b, sizeof b, src_l);
  oracle_describe(i, sizeof i, index_l);
  for (size_t k = 0; k < nd; k++)
    cr_assert_eq(got[k], want[k],
                 "%s %d-bit, axis %d, index %d-bit flags %u: dst %s src %s index %s: byte %zu is "
                 "0x%02x, want 0x%02x",
                 scatter ? "scatter" : "gather", bits, axis, index_bits, flags, a, b, i, k, got[k],
                 want[k]);
  if (bad < 0) {
    cr_assert_eq(c, NDX_OK, "%s", ndx_last_error());
  } else {
    cr_assert_eq(c, NDX_ERANGE, "a fault at element %lld (value %lld) unreported", (long long)bad,
                 (long long)value);
    const ndx_layout *indexed = scatter ? dst_l : src_l;
    const char *wrong = oracle_fault_message_wrong(ndx_last_error(), index_l, index, index_bits,
                                                   indexed->shape[axis], flags);
    cr_assert(!wrong, "%s: %s (index %s)", wrong, ndx_last_error(), i);
  }
  release_call(md, ms, mi, src, want, got);
  return bad >= 0;
}

/* An index buffer for `index_l` of values in [lo, hi]. */
static uint8_t *random_index(oracle_rng *r, const ndx_layout *index_l, int index_bits, int64_t lo,
                             int64_t hi) {
  return oracle_random_index(r, cl_env_buffer_bytes(index_l, index_bits), index_bits, lo, hi);
}

/* A random shape of rank 1..5 and small extents (an axis of 0 now and
 * then), the axis, and the indexed side's extent on it. */
static int random_case(oracle_rng *r, int64_t *shape, int *axis, int64_t *d) {
  int rank = (int)oracle_between(r, 1, 5);
  for (int a = 0; a < rank; a++)
    shape[a] = oracle_between(r, 0, 30) == 0 ? 0 : oracle_between(r, 1, rank <= 2 ? 9 : 4);
  *axis = (int)oracle_between(r, 0, rank - 1);
  *d = oracle_between(r, 0, 12) == 0 ? 1 : oracle_between(r, 1, 7);
  return rank;
}

static void random_calls(bool scatter, int iters, uint64_t seed) {
  oracle_rng r = {seed};
  int faults = 0;
  for (int iter = 0; iter < iters; iter++) {
    int64_t s[NDX_MAX_RANK], o[NDX_MAX_RANK], d;
    int axis, rank = random_case(&r, s, &axis, &d);
    memcpy(o, s, sizeof s);
    o[axis] = d; /* the indexed side */
    int bits = widths[iter % 8], index_bits = iter % 3 ? 32 : 64;
    unsigned flags = oracle_between(&r, 0, 2) == 0 ? NDX_INDEX_WRAP : 0;
    ndx_layout index_l = oracle_view_layout_of_shape(&r, rank, s);
    ndx_layout same =
        scatter ? oracle_view_layout_of_shape(&r, rank, s) : distinct_view(&r, rank, s);
    ndx_layout other =
        scatter ? distinct_view(&r, rank, o) : oracle_view_layout_of_shape(&r, rank, o);
    /* one call in 16 has an out-of-range value somewhere */
    int64_t lo = flags & NDX_INDEX_WRAP ? -d : 0, hi = d - 1;
    if (iter % 16 == 5) hi = d + 2;
    uint8_t *index = random_index(&r, &index_l, index_bits, lo, hi);
    unsigned internal = iter % 4 == 3 ? NDX_CL_INDEX_WIDE : 0;
    faults += check_call(scatter, scatter ? &other : &same, scatter ? &same : &other, axis,
                         &index_l, index, index_bits, flags, bits, internal, &r);
    free(index);
  }
  cr_assert_gt(faults, 0, "no random call had a fault");
}

Test(cl_index, random_gathers_every_width_match_the_reference) {
  cl_env_need(&env);
  random_calls(false, 400, 11);
}

Test(cl_index, random_scatters_every_width_last_in_c_order_wins) {
  cl_env_need(&env);
  random_calls(true, 400, 12);
}

/* Unique scatters: each fibre's index an injection into [0, d). */
Test(cl_index, unique_scatters_every_width) {
  cl_env_need(&env);
  oracle_rng r = {13};
  for (int iter = 0; iter < 160; iter++) {
    int64_t s[NDX_MAX_RANK], o[NDX_MAX_RANK], d;
    int axis, rank = random_case(&r, s, &axis, &d);
    d = s[axis] + oracle_between(&r, 0, 4);
    memcpy(o, s, sizeof s);
    o[axis] = d;
    int bits = widths[iter % 8], index_bits = iter % 2 ? 32 : 64;
    ndx_layout index_l = contiguous(rank, s);
    ndx_layout src_l = oracle_view_layout_of_shape(&r, rank, s), dst_l = distinct_view(&r, rank, o);
    int64_t n = oracle_numel(&index_l), fibre = s[axis], inner = 1;
    for (int a = axis + 1; a < rank; a++) inner *= s[a];
    uint8_t *index = random_index(&r, &index_l, index_bits, 0, 0);
    for (int64_t k = 0; k < n && fibre > 0; k++) {
      int64_t j = k / inner % fibre, base = k - j * inner; /* the fibre's first element */
      if (j != 0) continue;
      int64_t perm[16];
      oracle_permutation(&r, perm, d);
      for (int64_t t = 0; t < fibre; t++) {
        int64_t pos = base + t * inner, v = perm[t];
        if (index_bits == 32) {
          int32_t w = (int32_t)v;
          memcpy(index + pos * 4, &w, 4);
        } else {
          memcpy(index + pos * 8, &v, 8);
        }
      }
    }
    check_call(true, &dst_l, &src_l, axis, &index_l, index, index_bits, NDX_INDEX_UNIQUE, bits,
               iter % 3 == 2 ? NDX_CL_INDEX_WIDE : 0, &r);
    free(index);
  }
}

/* Every hostile value, in both index widths, at a random element: the call
 * writes nothing and ndx_cl_check names it. */
Test(cl_index, hostile_index_values_write_nothing) {
  cl_env_need(&env);
  oracle_rng r = {14};
  const int64_t hostile[] = {INT64_MIN,        INT64_MIN + 1,    -1,        -5,        5,        6,
                             (int64_t)1 << 31, (int64_t)1 << 53, INT64_MAX, INT32_MIN, INT32_MAX};
  int64_t s[2] = {6, 4}, o[2] = {5, 4};
  ndx_layout index_l = contiguous(2, s), big = contiguous(2, s), small = contiguous(2, o);
  for (size_t h = 0; h < sizeof hostile / sizeof *hostile; h++) {
    for (int ib = 32; ib <= 64; ib += 32) {
      for (int scatter = 0; scatter < 2; scatter++) {
        for (unsigned flags = 0; flags <= NDX_INDEX_WRAP; flags += NDX_INDEX_WRAP) {
          uint8_t *index = random_index(&r, &index_l, ib, 0, 4);
          int64_t v = ib == 32 ? (int64_t)(int32_t)hostile[h] : hostile[h];
          if (oracle_index_coord(v, 5, flags) >= 0) {
            free(index);
            continue; /* -1 and -5 wrap to valid values */
          }
          int64_t at = oracle_between(&r, 0, 23);
          if (ib == 32) {
            int32_t w = (int32_t)v;
            memcpy(index + at * 4, &w, 4);
          } else {
            memcpy(index + at * 8, &v, 8);
          }
          bool fault = check_call(scatter, scatter ? &small : &big, scatter ? &big : &small, 0,
                                  &index_l, index, ib, flags, 32, 0, &r);
          cr_assert(fault);
          free(index);
        }
      }
    }
  }
}

/* index_select / embedding lookup: a 1-d index unsqueezed and broadcast to
 * S, rows of a table gathered; a 4-bit table too. */
Test(cl_index, index_select_is_a_broadcast_index) {
  cl_env_need(&env);
  oracle_rng r = {15};
  int64_t ntok = 37, vocab = 50, dim = 24;
  ndx_layout ids = contiguous(1, &ntok), col, index_l;
  cr_assert_eq(ndx_unsqueeze(&col, &ids, 1), NDX_OK);
  cr_assert_eq(ndx_broadcast(&index_l, &col, 2, (int64_t[]){ntok, dim}), NDX_OK);
  ndx_layout table = contiguous(2, (int64_t[]){vocab, dim});
  ndx_layout out = contiguous(2, (int64_t[]){ntok, dim});
  for (int w = 0; w < 8; w++) {
    uint8_t *index = random_index(&r, &ids, 32, 0, vocab - 1);
    check_call(false, &out, &table, 0, &index_l, index, 32, 0, widths[w], 0, &r);
    free(index);
  }
}

/* KV-cache rows: new rows written at slots, with and without the promise;
 * duplicated slots take the last row. */
Test(cl_index, kv_cache_rows_and_duplicates) {
  cl_env_need(&env);
  oracle_rng r = {16};
  int64_t nnew = 9, slots = 20, dim = 16;
  ndx_layout ids = contiguous(1, &nnew), col, index_l;
  cr_assert_eq(ndx_unsqueeze(&col, &ids, 1), NDX_OK);
  cr_assert_eq(ndx_broadcast(&index_l, &col, 2, (int64_t[]){nnew, dim}), NDX_OK);
  ndx_layout rows = contiguous(2, (int64_t[]){nnew, dim});
  ndx_layout cache = contiguous(2, (int64_t[]){slots, dim});
  int32_t unique[9] = {3, 0, 19, 7, 8, 1, 12, 4, 15}, dup[9] = {3, 3, 5, 3, 5, 0, 19, 19, 3};
  for (int w = 0; w < 8; w++) {
    check_call(true, &cache, &rows, 0, &index_l, (uint8_t *)unique, 32, NDX_INDEX_UNIQUE, widths[w],
               0, &r);
    check_call(true, &cache, &rows, 0, &index_l, (uint8_t *)unique, 32, 0, widths[w], 0, &r);
    check_call(true, &cache, &rows, 0, &index_l, (uint8_t *)dup, 32, 0, widths[w], 0, &r);
  }
}

/* KV-cache rows long enough for streaming stores (on a CPU device), of odd
 * lengths, so that they start at every alignment their elements allow: each
 * row's bytes, and none beside them, written; with the promise, and without
 * it with duplicated slots (the winners form). */
Test(cl_index, kv_cache_long_rows_at_every_alignment) {
  cl_env_need(&env);
  oracle_rng r = {18};
  int64_t nnew = 9, slots = 20;
  int32_t unique[9] = {3, 0, 19, 7, 8, 1, 12, 4, 15}, dup[9] = {3, 3, 5, 3, 5, 0, 19, 19, 3};
  for (int w = 3; w < 8; w++) {
    int64_t dim = (2408 / widths[w]) | 1; /* about 300 bytes */
    ndx_layout ids = contiguous(1, &nnew), col, index_l;
    cr_assert_eq(ndx_unsqueeze(&col, &ids, 1), NDX_OK);
    cr_assert_eq(ndx_broadcast(&index_l, &col, 2, (int64_t[]){nnew, dim}), NDX_OK);
    ndx_layout rows = contiguous(2, (int64_t[]){nnew, dim});
    ndx_layout cache = contiguous(2, (int64_t[]){slots, dim});
    check_call(true, &cache, &rows, 0, &index_l, (uint8_t *)unique, 32, NDX_INDEX_UNIQUE, widths[w],
               0, &r);
    check_call(true, &cache, &rows, 0, &index_l, (uint8_t *)dup, 32, 0, widths[w], 0, &r);
  }
}

/* A gather whose output is larger than three quarters of the device's
 * global memory cache writes its rows with streaming stores on an x86 CPU
 * device: 1028-byte rows into a destination three elements into its
 * buffer, so that they start at every 4-byte alignment, and rows split
 * between work-items; every byte checked. (The output is capped at 64 MiB:
 * a device reporting a larger cache runs the same gather unstreamed.) */
Test(cl_index, gathers_past_the_cache_stream_their_rows) {
  cl_env_need(&env);
  oracle_rng r = {23};
  cl_ulong cache = 0;
  cr_assert_eq(
      clGetDeviceInfo(env.device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL),
      CL_SUCCESS);
  int64_t dim = 257, table = 4096, row = dim * 4;
  int64_t n = ((int64_t)(cache / 4 * 3) + row) / row;
  if (n * row > (64 << 20)) n = (64 << 20) / row;
  ndx_layout ids = contiguous(1, &n), col, index_l, out,
             tab = contiguous(2, (int64_t[]){table, dim});
  cr_assert_eq(ndx_unsqueeze(&col, &ids, 1), NDX_OK);
  cr_assert_eq(ndx_broadcast(&index_l, &col, 2, (int64_t[]){n, dim}), NDX_OK);
  cr_assert_eq(ndx_make(&out, 2, (int64_t[]){n, dim}, (int64_t[]){dim, 1}, 3), NDX_OK);
  uint8_t *index = random_index(&r, &ids, 32, 0, table - 1);
  check_call(false, &out, &tab, 0, &index_l, index, 32, 0, 32, 0, &r);
  free(index);
}

/* Rows below 8 bits (an index constant along the innermost axis): copied
 * as bytes where every row is whole bytes on both sides, element by element
 * where a row is not (an odd offset, an odd row length, a row pitch off a
 * byte), gathers and scatters alike, duplicates included. */
Test(cl_index, sub_byte_rows_as_bytes_only_on_whole_bytes) {
  cl_env_need(&env);
  oracle_rng r = {19};
  int64_t n = 9, table = 20;
  int32_t ids[9] = {3, 3, 5, 19, 5, 0, 19, 7, 3};
  for (int w = 0; w < 3; w++) {
    int bits = widths[w];
    int64_t per = 8 / bits;
    /* {row length, offset and row pitch of the rows, of the table} */
    int64_t variants[5][5] = {{3 * per, 0, 3 * per, 0, 3 * per},
                              {3 * per, 1, 3 * per, 0, 3 * per},
                              {3 * per, 0, 3 * per, 1, 3 * per},
                              {3 * per + 1, 0, 4 * per, 0, 4 * per},
                              {3 * per, 0, 3 * per, 0, 3 * per + 1}};
    for (int v = 0; v < 5; v++) {
      int64_t dim = variants[v][0];
      ndx_layout idl = contiguous(1, &n), col, index_l, rows, tab;
      cr_assert_eq(ndx_unsqueeze(&col, &idl, 1), NDX_OK);
      cr_assert_eq(ndx_broadcast(&index_l, &col, 2, (int64_t[]){n, dim}), NDX_OK);
      cr_assert_eq(
          ndx_make(&rows, 2, (int64_t[]){n, dim}, (int64_t[]){variants[v][2], 1}, variants[v][1]),
          NDX_OK);
      cr_assert_eq(ndx_make(&tab, 2, (int64_t[]){table, dim}, (int64_t[]){variants[v][4], 1},
                            variants[v][3]),
                   NDX_OK);
      check_call(false, &rows, &tab, 0, &index_l, (uint8_t *)ids, 32, 0, bits, 0, &r);
      /* the mirror: the rows scattered into the table */
      check_call(true, &tab, &rows, 0, &index_l, (uint8_t *)ids, 32, 0, bits, 0, &r);
    }
  }
}

/* Rows whose gpu-shape launch has edges (kernels/ndx_index_gpu.h; the
 * cpu shape runs them too): rows of 1 to 65 elements, whose bytes are no
 * multiple of the vector, starting off each alignment (offsets of 0 to 3
 * elements, a table row pitch of dim + 1), one row, and row counts that
 * are no multiple of a work-group; gathered from a table, scattered back
 * with duplicates (the winners form) and with distinct values (UNIQUE);
 * every width, both index widths. */
Test(cl_index, row_launch_edges) {
  cl_env_need(&env);
  oracle_rng r = {29};
  static const int64_t dims[] = {1, 3, 8, 17, 65}, counts[] = {1, 37, 257};
  int32_t ids[257];
  int64_t wide[257];
  for (int w = 0; w < 8; w++)
    for (size_t di = 0; di < sizeof dims / sizeof *dims; di++)
      for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
        int64_t dim = dims[di], n = counts[ci], table = 37, off = (int64_t)(di + ci + w) % 4;
        int64_t pitch = dim + (int64_t)((di + ci) % 2);
        int ib = (di + w) % 2 ? 64 : 32;
        ndx_layout idl = contiguous(1, &n), col, index_l, tab, out;
        cr_assert_eq(ndx_unsqueeze(&col, &idl, 1), NDX_OK);
        cr_assert_eq(ndx_broadcast(&index_l, &col, 2, (int64_t[]){n, dim}), NDX_OK);
        cr_assert_eq(ndx_make(&tab, 2, (int64_t[]){table, dim}, (int64_t[]){pitch, 1}, off),
                     NDX_OK);
        cr_assert_eq(ndx_make(&out, 2, (int64_t[]){n, dim}, (int64_t[]){dim, 1}, (off + 1) % 4),
                     NDX_OK);
        for (int64_t k = 0; k < n; k++) wide[k] = ids[k] = (int32_t)oracle_between(&r, 0, 36);
        const uint8_t *index = ib == 32 ? (const uint8_t *)ids : (const uint8_t *)wide;
        check_call(false, &out, &tab, 0, &index_l, index, ib, 0, widths[w], 0, &r);
        check_call(true, &tab, &out, 0, &index_l, index, ib, 0, widths[w], 0, &r);
        if (n > table) continue;
        for (int64_t k = 0; k < n; k++) wide[k] = ids[k] = (int32_t)(k * 5 % table);
        check_call(true, &tab, &out, 0, &index_l, index, ib, NDX_INDEX_UNIQUE, widths[w], 0, &r);
      }
}

/* take_along_axis on the inner axis, negative indices wrapped, both index
 * widths. */
Test(cl_index, take_along_axis_with_wrap) {
  cl_env_need(&env);
  oracle_rng r = {17};
  int64_t s[2] = {33, 40};
  ndx_layout l = contiguous(2, s);
  for (int w = 0; w < 8; w++)
    for (int ib = 32; ib <= 64; ib += 32) {
      uint8_t *index = random_index(&r, &l, ib, -40, 39);
      check_call(false, &l, &l, 1, &l, index, ib, NDX_INDEX_WRAP, widths[w], 0, &r);
      free(index);
    }
}

/* take_along_axis on the innermost axis of a table [rows, dim] whose
 * segments are more than a 128-byte line and fit NDX_GPU_ALONG_BYTES: in
 * the gpu shape the copy pass is ndx_index_along (each pack row's source
 * segment through work-group memory), in the cpu shape ndx_index_copy;
 * rows off the sectors (pitch dim + 1, offsets 1 to 3), flipped along the
 * axis, wrapped negative values, a value out of range, both index widths,
 * 8 to 128 bits. */
Test(cl_index, take_along_axis_through_work_group_memory) {
  cl_env_need(&env);
  oracle_rng r = {61};
  bool gpu = strcmp(ndx_cl_shape(env.cl), "gpu") == 0;
  int faults = 0;
  for (int w = 3; w < 8; w++) {
    int64_t eb = widths[w] / 8, dim = 1000 / eb + 1, rows = 3, n = 1500, off = 1 + w % 3;
    for (int variant = 0; variant < 4; variant++) {
      ndx_layout tab, src, out, index_l;
      cr_assert_eq(ndx_make(&tab, 2, (int64_t[]){rows, dim}, (int64_t[]){dim + 1, 1}, off), NDX_OK);
      src = tab;
      if (variant & 1) cr_assert_eq(ndx_flip(&src, &tab, 1), NDX_OK);
      cr_assert_eq(ndx_make(&out, 2, (int64_t[]){rows, n}, (int64_t[]){n, 1}, 0), NDX_OK);
      index_l = contiguous(2, (int64_t[]){rows, n});
      int ib = variant & 2 ? 64 : 32;
      unsigned flags = variant == 2 ? NDX_INDEX_WRAP : 0;
      ndx_cl_index_plan *plan;
      cr_assert_eq(ndx_cl_index_plan_create_gather(&plan, env.cl, &out, &src, 1, &index_l, ib,
                                                   flags, widths[w]),
                   NDX_OK, "%s", ndx_last_error());
      const char *kernel = ndx_cl_index_plan_copy_kernel(plan);
      cr_assert(strncmp(kernel, gpu ? "ndx_index_along" : "ndx_index_copy", 14 + gpu) == 0,
                "%s shape, %d-bit: %s", gpu ? "gpu" : "cpu", widths[w], kernel);
      ndx_cl_index_plan_destroy(plan);
      uint8_t *index = random_index(&r, &index_l, ib, flags ? -dim : 0, dim - 1);
      if (variant == 1) { /* one value past the axis */
        int64_t at = oracle_between(&r, 0, rows * n - 1), v = dim;
        if (ib == 32) {
          int32_t v32 = (int32_t)v;
          memcpy(index + at * 4, &v32, 4);
        } else {
          memcpy(index + at * 8, &v, 8);
        }
      }
      faults += check_call(false, &out, &src, 1, &index_l, index, ib, flags, widths[w], 0, &r);
      free(index);
    }
  }
  cr_assert_eq(faults, 5);
}

/* take_along_axis's copy pass alone (the check pass skipped, as ndx-bench
 * does to measure its cost): each element whose value is a coordinate
 * copied, every other left as it was, for hostile values of both index
 * widths, with and without wrap, in both pack forms. The copy's safety and these semantics do
 * not rest on the check having run. */
Test(cl_index, copy_pass_alone_copies_only_valid_values) {
  cl_env_need(&env);
  oracle_rng r = {29};
  const int64_t hostile[] = {INT64_MIN, INT32_MIN,        -38,      -37, -1, 37,
                             INT32_MAX, (int64_t)1 << 31, INT64_MAX};
  int64_t rows = 5, d = 37, n = rows * d;
  ndx_layout l = contiguous(2, (int64_t[]){rows, d});
  for (int c = 0; c < 8; c++) {
    int ib = c & 1 ? 64 : 32;
    unsigned flags = c & 2 ? NDX_INDEX_WRAP : 0,
             internal = NDX_CL_INDEX_SKIP_CHECK | (c & 4 ? NDX_CL_INDEX_WIDE : 0);
    for (int w = 3; w < 7; w++) {
      int bits = widths[w], es = bits / 8;
      size_t nb = cl_env_buffer_bytes(&l, bits), ni = cl_env_buffer_bytes(&l, ib);
      uint8_t *src = malloc(nb), *want = malloc(nb), *got = malloc(nb), *index = calloc(ni, 1);
      for (size_t k = 0; k < nb; k++)
        src[k] = (uint8_t)oracle_next(&r), want[k] = (uint8_t)oracle_next(&r);
      cl_mem md = cl_env_buffer(&env, nb, want), ms = cl_env_buffer(&env, nb, src);
      for (int64_t e = 0; e < n; e++) {
        int64_t v = e % 3 ? oracle_between(&r, 0, d - 1)
                          : hostile[oracle_between(&r, 0, sizeof hostile / sizeof *hostile - 1)];
        if (ib == 32) {
          int32_t v32 = (int32_t)v;
          memcpy(index + e * 4, &v32, 4);
          v = v32;
        } else {
          memcpy(index + e * 8, &v, 8);
        }
        int64_t k = oracle_index_coord(v, d, flags);
        if (k >= 0) memcpy(want + e * es, src + (e - e % d + k) * es, (size_t)es);
      }
      cl_mem mi = cl_env_buffer(&env, ni, index);
      cr_assert_eq(ndx_cl_index_flags(false, internal, env.cl, env.queue, md, &l, ms, &l, 1, mi, &l,
                                      ib, flags, bits, 0, NULL, NULL),
                   NDX_OK, "%s", ndx_last_error());
      cr_assert_eq(ndx_cl_check(env.cl), NDX_OK, "%s", ndx_last_error());
      cl_env_read(&env, md, nb, got);
      for (size_t k = 0; k < nb; k++)
        cr_assert_eq(got[k], want[k], "case %d, %d-bit elements: byte %zu is 0x%02x, want 0x%02x",
                     c, bits, k, got[k], want[k]);
      release_call(md, ms, mi, src, want, got);
      free(index);
    }
  }
}

/* ---- Refusals ------------------------------------------------------------------------ */

#define REFUSED(status, want, text)                                                                \
  do {                                                                                             \
    cr_assert_eq((status), (want), "%s", ndx_last_error());                                        \
    cr_assert(strstr(ndx_last_error(), (text)), "'%s' lacks '%s'", ndx_last_error(), (text));      \
  } while (0)

Test(cl_index, refusals_enqueue_nothing) {
  cl_env_need(&env);
  uint8_t fill[512], got[512];
  for (int i = 0; i < 512; i++) fill[i] = (uint8_t)(i * 7);
  cl_mem md = cl_env_buffer(&env, 512, fill), ms = cl_env_buffer(&env, 512, fill),
         mi = cl_env_buffer(&env, 512, NULL);
  cl_mem tiny = cl_env_buffer(&env, 8, fill);
  int32_t zeros[64] = {0};
  clEnqueueWriteBuffer(env.queue, mi, CL_TRUE, 0, sizeof zeros, zeros, 0, NULL, NULL);
  ndx_layout d = contiguous(2, (int64_t[]){4, 8}), s = contiguous(2, (int64_t[]){6, 8});
  ndx_layout i = contiguous(2, (int64_t[]){4, 8}), bad = contiguous(2, (int64_t[]){4, 7});
  ndx_cl *cl = env.cl;
  cl_command_queue q = env.queue;
  REFUSED(ndx_cl_gather(NULL, q, md, &d, ms, &s, 0, mi, &i, 32, 0, 32, 0, NULL, NULL), NDX_EINVAL,
          "cl is NULL");
  REFUSED(ndx_cl_gather(cl, q, md, &d, ms, &s, 0, NULL, &i, 32, 0, 32, 0, NULL, NULL), NDX_EINVAL,
          "index is NULL");
  REFUSED(ndx_cl_gather(cl, q, md, &d, ms, &s, 0, mi, NULL, 32, 0, 32, 0, NULL, NULL), NDX_EINVAL,
          "index_l");
  REFUSED(ndx_cl_gather(cl, q, md, &d, ms, &s, 0, mi, &i, 32, 0, 12, 0, NULL, NULL), NDX_EINVAL,
          "12");
  REFUSED(ndx_cl_gather(cl, q, md, &d, ms, &s, 0, mi, &i, 16, 0, 32, 0, NULL, NULL), NDX_EINVAL,
          "index_bits is 16");
  REFUSED(ndx_cl_gather(cl, q, md, &d, ms, &s, 2, mi, &i, 32, 0, 32, 0, NULL, NULL), NDX_EINVAL,
          "axis 2 is outside [0, 2)");
  REFUSED(ndx_cl_gather(cl, q, md, &d, ms, &s, -1, mi, &i, 32, 0, 32, 0, NULL, NULL), NDX_EINVAL,
          "axis -1");
  REFUSED(ndx_cl_gather(cl, q, md, &d, ms, &s, 1, mi, &i, 32, 0, 32, 0, NULL, NULL), NDX_EINVAL,
          "differ on axis 0 (6 and 4)");
  REFUSED(ndx_cl_gather(cl, q, md, &d, ms, &s, 0, mi, &bad, 32, 0, 32, 0, NULL, NULL), NDX_EINVAL,
          "index_l");
  REFUSED(ndx_cl_gather(cl, q, md, &d, ms, &s, 0, mi, &i, 32, NDX_INDEX_UNIQUE, 32, 0, NULL, NULL),
          NDX_EINVAL, "flags 0x2");
  REFUSED(ndx_cl_scatter(cl, q, ms, &s, md, &d, 0, mi, &i, 32, 4u, 32, 0, NULL, NULL), NDX_EINVAL,
          "flags 0x4");
  ndx_layout row = contiguous(1, (int64_t[]){8}), bc;
  cr_assert_eq(ndx_broadcast(&bc, &row, 2, (int64_t[]){4, 8}), NDX_OK);
  REFUSED(ndx_cl_gather(cl, q, md, &bc, ms, &s, 0, mi, &i, 32, 0, 32, 0, NULL, NULL), NDX_EINVAL,
          "not distinct");
  REFUSED(ndx_cl_gather(cl, q, md, &d, md, &s, 0, mi, &i, 32, 0, 32, 0, NULL, NULL), NDX_EINVAL,
          "dst and src are one buffer");
  REFUSED(ndx_cl_gather(cl, q, md, &d, ms, &s, 0, md, &i, 32, 0, 32, 0, NULL, NULL), NDX_EINVAL,
          "dst and index are one buffer");
  REFUSED(ndx_cl_gather(cl, q, tiny, &d, ms, &s, 0, mi, &i, 32, 0, 32, 0, NULL, NULL), NDX_ERANGE,
          "dst needs 128 bytes");
  REFUSED(ndx_cl_gather(cl, q, md, &d, ms, &s, 0, tiny, &i, 32, 0, 32, 0, NULL, NULL), NDX_ERANGE,
          "index needs 128 bytes");
  REFUSED(ndx_cl_gather(cl, q, md, &d, ms, &s, 0, mi, &i, 32, 0, 32, 1, NULL, NULL), NDX_EINVAL,
          "nwait is 1");
  ndx_layout r0 = contiguous(0, NULL);
  REFUSED(ndx_cl_gather(cl, q, md, &r0, ms, &r0, 0, mi, &r0, 32, 0, 32, 0, NULL, NULL), NDX_EINVAL,
          "outside [0, 0)");
  clFinish(q);
  cl_env_read(&env, md, sizeof got, got);
  cr_assert(memcmp(got, fill, sizeof got) == 0, "a refused call wrote dst");
  cr_assert_eq(ndx_cl_check(cl), NDX_OK, "%s", ndx_last_error());
  clReleaseMemObject(md);
  clReleaseMemObject(ms);
  clReleaseMemObject(mi);
  clReleaseMemObject(tiny);
}

/* A faulty call does not stop what is queued after it; ndx_cl_check reports
 * the oldest fault once, then nothing. */
Test(cl_index, copies_after_a_fault_run_and_the_fault_is_reported_once) {
  cl_env_need(&env);
  int64_t n = 64;
  ndx_layout l = contiguous(1, &n);
  float src[64], dst[64], got[64];
  int32_t bad[64], good[64];
  for (int k = 0; k < 64; k++) {
    src[k] = (float)k;
    dst[k] = -1.0f;
    good[k] = 63 - k;
    bad[k] = k;
  }
  bad[10] = 64;
  bad[20] = -3;
  cl_mem ms = cl_env_buffer(&env, sizeof src, src), md = cl_env_buffer(&env, sizeof dst, dst),
         mb = cl_env_buffer(&env, sizeof bad, bad);
  cl_mem mg = cl_env_buffer(&env, sizeof good, good), md2 = cl_env_buffer(&env, sizeof dst, dst);
  cl_event done;
  cr_assert_eq(
      ndx_cl_gather(env.cl, env.queue, md, &l, ms, &l, 0, mb, &l, 32, 0, 32, 0, NULL, NULL),
      NDX_OK);
  cr_assert_eq(
      ndx_cl_gather(env.cl, env.queue, md2, &l, ms, &l, 0, mg, &l, 32, 0, 32, 0, NULL, &done),
      NDX_OK);
  cr_assert_eq(clWaitForEvents(1, &done), CL_SUCCESS);
  clReleaseEvent(done);
  cl_env_read(&env, md2, sizeof got, got);
  for (int k = 0; k < 64; k++) cr_assert_eq(got[k], (float)(63 - k));
  cl_env_read(&env, md, sizeof got, got);
  for (int k = 0; k < 64; k++) cr_assert_eq(got[k], -1.0f, "the faulty call wrote element %d", k);
  cr_assert_eq(ndx_cl_check(env.cl), NDX_ERANGE);
  cr_assert(strstr(ndx_last_error(), "ndx_cl_gather: index[") &&
                strstr(ndx_last_error(), "outside [0, 64) for axis 0 of src_l"),
            "%s", ndx_last_error());
  cr_assert_eq(ndx_cl_check(env.cl), NDX_OK, "%s", ndx_last_error());
  clReleaseMemObject(ms);
  clReleaseMemObject(md);
  clReleaseMemObject(mb);
  clReleaseMemObject(mg);
  clReleaseMemObject(md2);
}

/* The message names the index buffer's element and where index_l reads
 * it, not the element's C-order index in S: ids[1] = 11 of a 1-d index
 * unsqueezed and broadcast to [3,4] (element 4 of S), then the same ids
 * read backwards from an offset, [3,4] strides [-2,0] offset 5. */
Test(cl_index, a_fault_names_the_index_buffers_element) {
  cl_env_need(&env);
  float table[10 * 4], out[3 * 4];
  for (int k = 0; k < 40; k++) table[k] = (float)k;
  for (int k = 0; k < 12; k++) out[k] = -1.0f;
  int32_t ids[3] = {2, 11, 5}, spaced[6] = {0, 5, 0, 11, 0, 2};
  ndx_layout out_l = contiguous(2, (int64_t[]){3, 4}), table_l = contiguous(2, (int64_t[]){10, 4});
  ndx_layout ids_l = contiguous(1, (int64_t[]){3}), col, index_l, back_l;
  cr_assert_eq(ndx_unsqueeze(&col, &ids_l, 1), NDX_OK);
  cr_assert_eq(ndx_broadcast(&index_l, &col, 2, (int64_t[]){3, 4}), NDX_OK);
  cr_assert_eq(ndx_make(&back_l, 2, (int64_t[]){3, 4}, (int64_t[]){-2, 0}, 5), NDX_OK);
  cl_mem mt = cl_env_buffer(&env, sizeof table, table), mo = cl_env_buffer(&env, sizeof out, out),
         mi = cl_env_buffer(&env, sizeof ids, ids), mb = cl_env_buffer(&env, sizeof spaced, spaced);
  cr_assert_eq(ndx_cl_gather(env.cl, env.queue, mo, &out_l, mt, &table_l, 0, mi, &index_l, 32, 0,
                             32, 0, NULL, NULL),
               NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(ndx_cl_check(env.cl), NDX_ERANGE);
  cr_assert_str_eq(ndx_last_error(),
                   "ndx_cl_gather: index[1] is 11, outside [0, 10) for axis 0 of src_l: the call "
                   "wrote nothing (index[1]: element 1 of the index buffer, read at [1,0] of "
                   "index_l's shape [3,4])");
  cr_assert_eq(ndx_cl_gather(env.cl, env.queue, mo, &out_l, mt, &table_l, 0, mb, &back_l, 32, 0, 32,
                             0, NULL, NULL),
               NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(ndx_cl_check(env.cl), NDX_ERANGE);
  cr_assert_str_eq(ndx_last_error(),
                   "ndx_cl_gather: index[3] is 11, outside [0, 10) for axis 0 of src_l: the call "
                   "wrote nothing (index[3]: element 3 of the index buffer, read at [1,0] of "
                   "index_l's shape [3,4])");
  cl_env_read(&env, mo, sizeof out, out);
  for (int k = 0; k < 12; k++) cr_assert_eq(out[k], -1.0f, "a faulty call wrote element %d", k);
  clReleaseMemObject(mt);
  clReleaseMemObject(mo);
  clReleaseMemObject(mi);
  clReleaseMemObject(mb);
}

/* ---- Index plans ------------------------------------------------------------------------ */

/* One kind of call for the plan tests: S = [rows, dim] by a 1-d index of
 * `rows` values broadcast along dim, into or from a table of `table` rows. */
typedef struct plan_case {
  bool scatter;
  int bits;
  unsigned flags;
  bool dup; /* duplicated slots (a claims scatter's winners) */
} plan_case;

/* What one enqueue needs: its buffers and the host's copy of dst. */
typedef struct plan_round {
  cl_mem dst, src, index, one_dst; /* one_dst: the same call by ndx_cl_gather/scatter */
  size_t nd;
  uint8_t *want;
} plan_round;

/* Makes round `k`'s buffers: random src and dst, an index of valid values
 * (unique ones unless c->dup) or, when `bad`, with one out of range. */
static plan_round plan_round_make(oracle_rng *r, const plan_case *c, const ndx_layout *dst_l,
                                  const ndx_layout *src_l, const ndx_layout *ids_l,
                                  const ndx_layout *index_l, int64_t table, bool bad) {
  plan_round t;
  t.nd = cl_env_buffer_bytes(dst_l, c->bits);
  size_t ns = cl_env_buffer_bytes(src_l, c->bits), ni = cl_env_buffer_bytes(ids_l, 32);
  uint8_t *src = malloc(ns);
  t.want = malloc(t.nd);
  for (size_t i = 0; i < ns; i++) src[i] = (uint8_t)oracle_next(r);
  for (size_t i = 0; i < t.nd; i++) t.want[i] = (uint8_t)oracle_next(r);
  int32_t *ids = calloc(ni / 4 + 1, 4);
  int64_t n = ids_l->shape[0];
  for (int64_t i = 0; i < n; i++)
    ids[i] = c->dup ? (int32_t)oracle_between(r, 0, table / 3) : (int32_t)((i * 7 + 3) % table);
  if (!c->dup) /* a different permutation each round */
    for (int64_t i = n - 1; i > 0; i--) {
      int64_t j = oracle_between(r, 0, i);
      int32_t v = ids[i];
      ids[i] = ids[j];
      ids[j] = v;
    }
  if (bad) ids[n / 2] = (int32_t)table + 5;
  t.dst = cl_env_buffer(&env, t.nd, t.want);
  t.one_dst = cl_env_buffer(&env, t.nd, t.want);
  t.src = cl_env_buffer(&env, ns, src);
  t.index = cl_env_buffer(&env, ni, ids);
  int64_t value;
  oracle_index_copy(c->scatter, t.want, dst_l, src, src_l, 0, (const uint8_t *)ids, index_l, 32,
                    c->flags, c->bits, &value);
  free(src);
  free(ids);
  return t;
}

static void plan_round_free(plan_round *t) {
  clReleaseMemObject(t->dst);
  clReleaseMemObject(t->one_dst);
  clReleaseMemObject(t->src);
  clReleaseMemObject(t->index);
  free(t->want);
}

/* dst of round t, read back, is what the reference and the one call wrote. */
static void plan_round_expect(plan_round *t, const char *what, int k) {
  uint8_t *got = malloc(t->nd), *one = malloc(t->nd);
  cl_env_read(&env, t->dst, t->nd, got);
  cl_env_read(&env, t->one_dst, t->nd, one);
  for (size_t i = 0; i < t->nd; i++) {
    cr_assert_eq(got[i], one[i], "%s, round %d: byte %zu is 0x%02x, the one call's 0x%02x", what, k,
                 i, got[i], one[i]);
    cr_assert_eq(got[i], t->want[i], "%s, round %d: byte %zu is 0x%02x, want 0x%02x", what, k, i,
                 got[i], t->want[i]);
  }
  free(got);
  free(one);
}

/* A plan made once and enqueued many times, on new buffers each time and
 * without waiting in between (its slots then all in flight), on an in-order
 * and an out-of-order queue, writes what ndx_cl_gather (ndx_cl_scatter)
 * writes for the same buffers; after a fault, reported naming the plan
 * call, the same plan (its status reused) copies again. */
Test(cl_index, an_index_plan_enqueued_many_times_matches_the_one_call) {
  cl_env_need(&env);
  oracle_rng r = {31};
  enum { ROUNDS = 12 };
  const plan_case cases[] = {
      {false, 32, 0, false}, {false, 4, 0, true},  {true, 32, NDX_INDEX_UNIQUE, false},
      {true, 8, 0, true},    {true, 16, 0, false}, {true, 2, 0, true},
  };
  cl_int e;
  cl_command_queue ooo =
      clCreateCommandQueue(env.context, env.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &e);
  if (e != CL_SUCCESS) ooo = NULL;
  int64_t rows = 9, table = 20, dim = 12;
  ndx_layout ids_l = contiguous(1, &rows), col, index_l;
  cr_assert_eq(ndx_unsqueeze(&col, &ids_l, 1), NDX_OK);
  cr_assert_eq(ndx_broadcast(&index_l, &col, 2, (int64_t[]){rows, dim}), NDX_OK);
  ndx_layout same = contiguous(2, (int64_t[]){rows, dim});
  ndx_layout tab = contiguous(2, (int64_t[]){table, dim});
  for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++)
    for (int qi = 0; qi < (ooo ? 2 : 1); qi++) {
      const plan_case *c = &cases[ci];
      cl_command_queue q = qi ? ooo : env.queue;
      const ndx_layout *dst_l = c->scatter ? &tab : &same, *src_l = c->scatter ? &same : &tab;
      char what[96];
      snprintf(what, sizeof what, "%s %d-bit flags %u%s, %s queue",
               c->scatter ? "scatter" : "gather", c->bits, c->flags, c->dup ? " dup" : "",
               qi ? "out-of-order" : "in-order");
      ndx_cl_index_plan *plan = NULL;
      ndx_status s = c->scatter ? ndx_cl_index_plan_create_scatter(&plan, env.cl, dst_l, src_l, 0,
                                                                   &index_l, 32, c->flags, c->bits)
                                : ndx_cl_index_plan_create_gather(&plan, env.cl, dst_l, src_l, 0,
                                                                  &index_l, 32, c->flags, c->bits);
      cr_assert_eq(s, NDX_OK, "%s: %s", what, ndx_last_error());
      plan_round t[ROUNDS];
      cl_event done[ROUNDS];
      for (int k = 0; k < ROUNDS; k++)
        t[k] = plan_round_make(&r, c, dst_l, src_l, &ids_l, &index_l, table, false);
      for (int k = 0; k < ROUNDS; k++) {
        done[k] = NULL;
        /* every third round waits for the one before it */
        bool chain = k % 3 == 2;
        cr_assert_eq(ndx_cl_index_plan_enqueue(plan, q, t[k].dst, t[k].src, t[k].index,
                                               chain ? 1 : 0, chain ? &done[k - 1] : NULL,
                                               &done[k]),
                     NDX_OK, "%s, round %d: %s", what, k, ndx_last_error());
        cr_assert_neq(done[k], NULL);
        s = c->scatter ? ndx_cl_scatter(env.cl, q, t[k].one_dst, dst_l, t[k].src, src_l, 0,
                                        t[k].index, &index_l, 32, c->flags, c->bits, 0, NULL, NULL)
                       : ndx_cl_gather(env.cl, q, t[k].one_dst, dst_l, t[k].src, src_l, 0,
                                       t[k].index, &index_l, 32, c->flags, c->bits, 0, NULL, NULL);
        cr_assert_eq(s, NDX_OK, "%s: %s", what, ndx_last_error());
      }
      cr_assert_eq(clWaitForEvents(ROUNDS, done), CL_SUCCESS);
      cr_assert_eq(clFinish(q), CL_SUCCESS);
      cr_assert_eq(ndx_cl_check(env.cl), NDX_OK, "%s: %s", what, ndx_last_error());
      for (int k = 0; k < ROUNDS; k++) {
        plan_round_expect(&t[k], what, k);
        clReleaseEvent(done[k]);
        plan_round_free(&t[k]);
      }
      /* a fault: nothing written, reported once naming the plan call; then
       * the plan's reused status starts clean */
      plan_round bad = plan_round_make(&r, c, dst_l, src_l, &ids_l, &index_l, table, true);
      uint8_t *before = malloc(bad.nd), *got = malloc(bad.nd);
      cl_env_read(&env, bad.dst, bad.nd, before);
      cr_assert_eq(ndx_cl_index_plan_enqueue(plan, q, bad.dst, bad.src, bad.index, 0, NULL, NULL),
                   NDX_OK);
      cr_assert_eq(clFinish(q), CL_SUCCESS);
      cr_assert_eq(ndx_cl_check(env.cl), NDX_ERANGE, "%s: a fault unreported", what);
      cr_assert(strstr(ndx_last_error(), "ndx_cl_index_plan_enqueue: index[4] is 25, outside [0, "
                                         "20) for axis 0"),
                "%s: %s", what, ndx_last_error());
      cl_env_read(&env, bad.dst, bad.nd, got);
      cr_assert(memcmp(got, before, bad.nd) == 0, "%s: the faulty enqueue wrote dst", what);
      free(before);
      free(got);
      plan_round_free(&bad);
      for (int k = 0; k < 3; k++) {
        plan_round ok = plan_round_make(&r, c, dst_l, src_l, &ids_l, &index_l, table, false);
        cr_assert_eq(ndx_cl_index_plan_enqueue(plan, q, ok.dst, ok.src, ok.index, 0, NULL, NULL),
                     NDX_OK);
        s = c->scatter ? ndx_cl_scatter(env.cl, q, ok.one_dst, dst_l, ok.src, src_l, 0, ok.index,
                                        &index_l, 32, c->flags, c->bits, 0, NULL, NULL)
                       : ndx_cl_gather(env.cl, q, ok.one_dst, dst_l, ok.src, src_l, 0, ok.index,
                                       &index_l, 32, c->flags, c->bits, 0, NULL, NULL);
        cr_assert_eq(s, NDX_OK);
        cr_assert_eq(clFinish(q), CL_SUCCESS);
        cr_assert_eq(ndx_cl_check(env.cl), NDX_OK, "%s, after the fault: %s", what,
                     ndx_last_error());
        plan_round_expect(&ok, what, ROUNDS + k);
        plan_round_free(&ok);
      }
      ndx_cl_index_plan_destroy(plan);
    }
  if (ooo) clReleaseCommandQueue(ooo);
}

/* An index plan over an empty S enqueues a marker only when asked for an
 * event; destroy takes NULL; a plan destroyed right after its enqueue
 * still copies and reports. */
Test(cl_index, index_plan_edges) {
  cl_env_need(&env);
  ndx_cl_index_plan_destroy(NULL);
  ndx_layout e0 = contiguous(2, (int64_t[]){0, 4}), t = contiguous(2, (int64_t[]){5, 4});
  ndx_layout i0 = contiguous(2, (int64_t[]){0, 4});
  ndx_cl_index_plan *plan;
  cr_assert_eq(ndx_cl_index_plan_create_gather(&plan, env.cl, &e0, &t, 0, &i0, 32, 0, 32), NDX_OK,
               "%s", ndx_last_error());
  cl_mem m1 = cl_env_buffer(&env, 64, NULL), m2 = cl_env_buffer(&env, 128, NULL),
         m3 = cl_env_buffer(&env, 64, NULL);
  cl_event done = NULL;
  cr_assert_eq(ndx_cl_index_plan_enqueue(plan, env.queue, m1, m2, m3, 0, NULL, NULL), NDX_OK);
  cr_assert_eq(ndx_cl_index_plan_enqueue(plan, env.queue, m1, m2, m3, 0, NULL, &done), NDX_OK);
  cr_assert_neq(done, NULL);
  cr_assert_eq(clWaitForEvents(1, &done), CL_SUCCESS);
  clReleaseEvent(done);
  ndx_cl_index_plan_destroy(plan);
  /* destroyed at once: the queued gather completes and reports */
  float table[5 * 4], got[2 * 4];
  for (int k = 0; k < 20; k++) table[k] = (float)k;
  int32_t ids[2] = {4, 9};
  ndx_layout d = contiguous(1, (int64_t[]){2}), tl = contiguous(1, (int64_t[]){5});
  clEnqueueWriteBuffer(env.queue, m2, CL_TRUE, 0, sizeof table, table, 0, NULL, NULL);
  clEnqueueWriteBuffer(env.queue, m3, CL_TRUE, 0, sizeof ids, ids, 0, NULL, NULL);
  cr_assert_eq(ndx_cl_index_plan_create_gather(&plan, env.cl, &d, &tl, 0, &d, 32, 0, 32), NDX_OK);
  cr_assert_eq(ndx_cl_index_plan_enqueue(plan, env.queue, m1, m2, m3, 0, NULL, NULL), NDX_OK);
  ndx_cl_index_plan_destroy(plan);
  cr_assert_eq(ndx_cl_check(env.cl), NDX_ERANGE);
  cr_assert(strstr(ndx_last_error(), "ndx_cl_index_plan_enqueue: index[1] is 9, outside [0, 5)"),
            "%s", ndx_last_error());
  ids[1] = 2;
  clEnqueueWriteBuffer(env.queue, m3, CL_TRUE, 0, sizeof ids, ids, 0, NULL, NULL);
  cr_assert_eq(ndx_cl_index_plan_create_gather(&plan, env.cl, &d, &tl, 0, &d, 32, 0, 32), NDX_OK);
  cr_assert_eq(ndx_cl_index_plan_enqueue(plan, env.queue, m1, m2, m3, 0, NULL, NULL), NDX_OK);
  ndx_cl_index_plan_destroy(plan);
  cr_assert_eq(ndx_cl_check(env.cl), NDX_OK, "%s", ndx_last_error());
  cl_env_read(&env, m1, 8, got);
  cr_assert(got[0] == 4.0f && got[1] == 2.0f, "got %g %g", got[0], got[1]);
  clReleaseMemObject(m1);
  clReleaseMemObject(m2);
  clReleaseMemObject(m3);
}

/* The plan calls' refusals name the plan call, the argument and the
 * values, leave *out untouched and write nothing. */
Test(cl_index, index_plan_refusals_name_the_plan_call) {
  cl_env_need(&env);
  uint8_t fill[512], got[512];
  for (int i = 0; i < 512; i++) fill[i] = (uint8_t)(i * 7);
  cl_mem md = cl_env_buffer(&env, 512, fill), ms = cl_env_buffer(&env, 512, fill),
         mi = cl_env_buffer(&env, 512, NULL);
  cl_mem tiny = cl_env_buffer(&env, 8, fill);
  int32_t zeros[64] = {0};
  clEnqueueWriteBuffer(env.queue, mi, CL_TRUE, 0, sizeof zeros, zeros, 0, NULL, NULL);
  ndx_layout d = contiguous(2, (int64_t[]){4, 8}), s = contiguous(2, (int64_t[]){6, 8});
  ndx_layout i = contiguous(2, (int64_t[]){4, 8});
  ndx_cl *cl = env.cl;
  cl_command_queue q = env.queue;
  ndx_cl_index_plan *p = (ndx_cl_index_plan *)&p;
#define G "ndx_cl_index_plan_create_gather: "
#define S "ndx_cl_index_plan_create_scatter: "
  REFUSED(ndx_cl_index_plan_create_gather(NULL, cl, &d, &s, 0, &i, 32, 0, 32), NDX_EINVAL,
          G "out is NULL");
  REFUSED(ndx_cl_index_plan_create_gather(&p, NULL, &d, &s, 0, &i, 32, 0, 32), NDX_EINVAL,
          G "cl is NULL");
  REFUSED(ndx_cl_index_plan_create_gather(&p, cl, &d, &s, 0, NULL, 32, 0, 32), NDX_EINVAL,
          G "index_l");
  REFUSED(ndx_cl_index_plan_create_gather(&p, cl, &d, &s, 0, &i, 32, 0, 12), NDX_EINVAL, "12");
  REFUSED(ndx_cl_index_plan_create_gather(&p, cl, &d, &s, 0, &i, 16, 0, 32), NDX_EINVAL,
          G "index_bits is 16");
  REFUSED(ndx_cl_index_plan_create_gather(&p, cl, &d, &s, 2, &i, 32, 0, 32), NDX_EINVAL,
          "axis 2 is outside [0, 2)");
  REFUSED(ndx_cl_index_plan_create_gather(&p, cl, &d, &s, 1, &i, 32, 0, 32), NDX_EINVAL,
          "differ on axis 0 (6 and 4)");
  REFUSED(ndx_cl_index_plan_create_gather(&p, cl, &d, &s, 0, &i, 32, NDX_INDEX_UNIQUE, 32),
          NDX_EINVAL, G "flags 0x2");
  REFUSED(ndx_cl_index_plan_create_scatter(&p, cl, &s, &d, 0, &i, 32, 4u, 32), NDX_EINVAL,
          S "flags 0x4");
  REFUSED(ndx_cl_index_plan_create_scatter(&p, cl, &s, &d, 0, &i, 32, 0, 3), NDX_EINVAL, S);
  cr_assert_eq(p, (ndx_cl_index_plan *)&p, "*out written on failure");
#undef G
#undef S
  cr_assert_eq(ndx_cl_index_plan_create_gather(&p, cl, &d, &s, 0, &i, 32, 0, 32), NDX_OK, "%s",
               ndx_last_error());
#define E "ndx_cl_index_plan_enqueue: "
  cl_event done = (cl_event)&done;
  REFUSED(ndx_cl_index_plan_enqueue(NULL, q, md, ms, mi, 0, NULL, &done), NDX_EINVAL,
          E "plan is NULL");
  REFUSED(ndx_cl_index_plan_enqueue(p, NULL, md, ms, mi, 0, NULL, &done), NDX_EINVAL,
          E "queue is NULL");
  REFUSED(ndx_cl_index_plan_enqueue(p, q, NULL, ms, mi, 0, NULL, &done), NDX_EINVAL,
          E "dst is NULL");
  REFUSED(ndx_cl_index_plan_enqueue(p, q, md, ms, NULL, 0, NULL, &done), NDX_EINVAL,
          E "index is NULL");
  REFUSED(ndx_cl_index_plan_enqueue(p, q, md, ms, mi, 1, NULL, &done), NDX_EINVAL,
          E "nwait is 1 but wait is NULL");
  REFUSED(ndx_cl_index_plan_enqueue(p, q, md, md, mi, 0, NULL, &done), NDX_EINVAL,
          E "dst and src are one buffer");
  REFUSED(ndx_cl_index_plan_enqueue(p, q, md, ms, md, 0, NULL, &done), NDX_EINVAL,
          E "dst and index are one buffer");
  REFUSED(ndx_cl_index_plan_enqueue(p, q, tiny, ms, mi, 0, NULL, &done), NDX_ERANGE,
          E "dst needs 128 bytes");
  REFUSED(ndx_cl_index_plan_enqueue(p, q, md, ms, tiny, 0, NULL, &done), NDX_ERANGE,
          E "index needs 128 bytes");
  cr_assert_eq(done, (cl_event)&done, "*done written on failure");
#undef E
  /* the one calls still name themselves */
  REFUSED(ndx_cl_gather(cl, q, tiny, &d, ms, &s, 0, mi, &i, 32, 0, 32, 0, NULL, NULL), NDX_ERANGE,
          "ndx_cl_gather: dst needs 128 bytes");
  REFUSED(ndx_cl_scatter(cl, q, ms, &s, md, &d, 0, mi, &i, 32, 4u, 32, 0, NULL, NULL), NDX_EINVAL,
          "ndx_cl_scatter: flags 0x4");
  ndx_cl_index_plan_destroy(p);
  clFinish(q);
  cl_env_read(&env, md, sizeof got, got);
  cr_assert(memcmp(got, fill, sizeof got) == 0, "a refused call wrote dst");
  cr_assert_eq(ndx_cl_check(cl), NDX_OK, "%s", ndx_last_error());
  clReleaseMemObject(md);
  clReleaseMemObject(ms);
  clReleaseMemObject(mi);
  clReleaseMemObject(tiny);
}

/* ---- Threads --------------------------------------------------------------------------- */

typedef struct job {
  cl_mem dst, src, index;
  int64_t rows;
  ndx_status status;
} job;

static void *run_job(void *arg) {
  job *j = arg;
  int64_t dim = 32;
  ndx_layout ids, col, index_l, table, out;
  ndx_contiguous(&ids, 1, &j->rows);
  ndx_unsqueeze(&col, &ids, 1);
  ndx_broadcast(&index_l, &col, 2, (int64_t[]){j->rows, dim});
  ndx_contiguous(&table, 2, (int64_t[]){100, dim});
  ndx_contiguous(&out, 2, (int64_t[]){j->rows, dim});
  for (int k = 0; k < 20 && j->status == NDX_OK; k++)
    j->status = ndx_cl_gather(env.cl, env.queue, j->dst, &out, j->src, &table, 0, j->index,
                              &index_l, 32, 0, 32, 0, NULL, NULL);
  return NULL;
}

Test(cl_index, eight_threads_on_one_ndx_cl) {
  cl_env_need(&env);
  enum { T = 8, ROWS = 40, DIM = 32 };
  static float table[100 * DIM], got[ROWS * DIM];
  for (int k = 0; k < 100 * DIM; k++) table[k] = (float)k;
  cl_mem mt = cl_env_buffer(&env, sizeof table, table);
  job jobs[T];
  pthread_t th[T];
  for (int t = 0; t < T; t++) {
    int32_t ids[ROWS];
    for (int k = 0; k < ROWS; k++) ids[k] = (k * 7 + t * 13) % 100;
    jobs[t] = (job){cl_env_buffer(&env, sizeof got, NULL), mt, cl_env_buffer(&env, sizeof ids, ids),
                    ROWS, NDX_OK};
  }
  for (int t = 0; t < T; t++) pthread_create(&th[t], NULL, run_job, &jobs[t]);
  for (int t = 0; t < T; t++) pthread_join(th[t], NULL);
  clFinish(env.queue);
  cr_assert_eq(ndx_cl_check(env.cl), NDX_OK, "%s", ndx_last_error());
  for (int t = 0; t < T; t++) {
    cr_assert_eq(jobs[t].status, NDX_OK);
    cl_env_read(&env, jobs[t].dst, sizeof got, got);
    for (int k = 0; k < ROWS; k++)
      for (int c = 0; c < DIM; c++)
        cr_assert_eq(got[k * DIM + c], table[((k * 7 + t * 13) % 100) * DIM + c]);
    clReleaseMemObject(jobs[t].dst);
    clReleaseMemObject(jobs[t].index);
  }
  clReleaseMemObject(mt);
}
