/* test_gpu_index_emulate.c: the gpu-shaped gather and scatter bodies
 * (kernels/ndx_index_gpu.h) run work-item by work-item on the host, the
 * check pass's whole launch before the copy pass's, as the OpenCL gpu
 * shape (kernels/ndx_index.cl) runs them. Each call is planned as ndx_cl
 * plans it (ndx_index_plan_make, then ndx_index_launch_check and
 * ndx_index_launch_copy) at launch sizes that make the work-items loop,
 * and the whole destination buffer, margin included, is compared with
 * index_oracle.h's reference; a call with an invalid value must write
 * nothing and record an invalid element in the status words. Random calls
 * of ranks 1 to 5 at every width, both index widths and forms, WRAP, and
 * rows with every edge of the rows launch (lengths off the vector, rows
 * off its alignment, one row). In the sanitizer build every access the
 * bodies make is checked too. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "host/index_plan.h"
#include "oracle.h"

#include "index_oracle.h"

static int64_t emu_lid, emu_gid, emu_local, emu_groups;
#define NDX_LOCAL
#define NDX_SHARED
#define NDX_BARRIER() ((void)0)
#define NDX_LOCAL_ID emu_lid
#define NDX_LOCAL_SIZE emu_local
#define NDX_GROUP_ID emu_gid
#define NDX_GROUPS emu_groups
#undef NDX_WIDE
#define NDX_WIDE 0
#include "ndx_index_gpu.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_index_gpu.h"

static const int widths[] = {1, 2, 4, 8, 16, 32, 64, 128};
enum { MARGIN = 24 };

/* Launch sizes: work-items per group and the most groups. */
static const int64_t launches[][2] = {{32, 2}, {64, 3}, {256, 64}};

typedef struct call {
  bool scatter;
  ndx_layout dst, src, index;
  int axis, index_bits, bits;
  unsigned flags;
  bool wide;
} call;

static size_t buffer_bytes(const ndx_layout *l, int bits) {
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  return (size_t)((hi * bits + 7) / 8) + MARGIN;
}

/* A descriptor followed by a pack, 8-aligned. */
typedef struct launch_buf {
  uint64_t w[(sizeof(ndx_index_launch) + NDX_PACK_MAX_BYTES(NDX_COPY_OPS, NDX_PACK_MAX_RANK)) / 8];
} launch_buf;

/* Runs the check pass, then (no fault recorded) the copy pass. */
static void run(const ndx_index_plan *p, int64_t local, int64_t max_groups, ndx_u8 *dst,
                const ndx_u8 *src, const ndx_u8 *index, ndx_u32 *claims, ndx_u32 *status) {
  launch_buf cb, pb;
  ndx_index_launch *check = (ndx_index_launch *)cb.w, *copy = (ndx_index_launch *)pb.w;
  int64_t cg, pg;
  size_t used, head = sizeof(ndx_index_launch);
  ndx_index_launch_check(p, local, max_groups, check, &cg);
  ndx_index_launch_copy(p, local, max_groups, copy, &pg);
  cr_assert_eq(ndx_index_plan_check_pack(p, cb.w + head / 8, sizeof cb - head, &used), NDX_OK);
  cr_assert_eq(ndx_index_plan_copy_pack(p, pb.w + head / 8, sizeof pb - head, &used), NDX_OK);
  cr_assert_leq(cg, max_groups);
  cr_assert_leq(pg, max_groups);
  ndx_gpu_index_guard g = {0};
  bool claimed = ndx_index_form_claims(p->form);
  emu_local = local;
  emu_groups = cg;
  for (emu_gid = 0; emu_gid < cg; emu_gid++)
    for (emu_lid = 0; emu_lid < local; emu_lid++) {
      ndx_u32 *c = claimed ? claims : NULL;
      if (p->wide)
        p->index_bits == 32 ? ndx_gpu_index_check_w64(check, index, c, status, 32, &g)
                            : ndx_gpu_index_check_w64(check, index, c, status, 64, &g);
      else
        p->index_bits == 32 ? ndx_gpu_index_check_w32(check, index, c, status, 32, &g)
                            : ndx_gpu_index_check_w32(check, index, c, status, 64, &g);
    }
  if (status[0]) return;
  /* the claims form reads the claims table as its index, the winners form
   * beside it */
  const ndx_u8 *moved = p->form == NDX_INDEX_CLAIMS ? (const ndx_u8 *)claims : index;
  const ndx_u32 *wins = p->form == NDX_INDEX_WINNERS ? claims : NULL;
  int ib = (int)copy->index_bits, bits = p->bits;
  emu_groups = pg;
  if (copy->along) { /* ndx_gpu_index_along_wN's loop, a phase at a time */
    cr_assert(ndx_index_plan_along(p));
    cr_assert_leq(copy->along_rows * copy->along * (bits / 8), NDX_GPU_ALONG_BYTES);
    ndx_u8 *stage = malloc(NDX_GPU_ALONG_BYTES); /* exactly: the sanitizers see past it */
    cr_assert(stage);
    for (emu_gid = 0; emu_gid < pg; emu_gid++)
      for (int64_t pass = emu_gid, step = 0; pass < copy->passes; pass += pg, step++) {
        memset(stage, 0xa5, NDX_GPU_ALONG_BYTES); /* a pick of an element not loaded shows */
        for (int64_t l = 0; l < local; l++)
          p->wide ? ndx_gpu_index_along_load_w64(copy, stage, src, bits, l, local, pass, step, &g)
                  : ndx_gpu_index_along_load_w32(copy, stage, src, bits, l, local, pass, step, &g);
        for (int64_t l = 0; l < local; l++) {
          if (p->wide)
            ib == 32 ? ndx_gpu_index_along_pick_w64(copy, stage, dst, moved, bits, 32, l, local,
                                                    pass, step, &g)
                     : ndx_gpu_index_along_pick_w64(copy, stage, dst, moved, bits, 64, l, local,
                                                    pass, step, &g);
          else
            ib == 32 ? ndx_gpu_index_along_pick_w32(copy, stage, dst, moved, bits, 32, l, local,
                                                    pass, step, &g)
                     : ndx_gpu_index_along_pick_w32(copy, stage, dst, moved, bits, 64, l, local,
                                                    pass, step, &g);
        }
      }
    free(stage);
    return;
  }
  cr_assert(!ndx_index_plan_along(p));
  for (emu_gid = 0; emu_gid < pg; emu_gid++)
    for (emu_lid = 0; emu_lid < local; emu_lid++) {
      if (bits < 8) {
        if (p->wide)
          ib == 32 ? ndx_gpu_index_bytes_w64(copy, dst, src, moved, bits, 32, &g)
                   : ndx_gpu_index_bytes_w64(copy, dst, src, moved, bits, 64, &g);
        else
          ib == 32 ? ndx_gpu_index_bytes_w32(copy, dst, src, moved, bits, 32, &g)
                   : ndx_gpu_index_bytes_w32(copy, dst, src, moved, bits, 64, &g);
      } else if (copy->rows) {
        if (p->wide)
          ib == 32 ? ndx_gpu_index_rows_w64(copy, dst, src, moved, wins, bits, 32, &g)
                   : ndx_gpu_index_rows_w64(copy, dst, src, moved, wins, bits, 64, &g);
        else
          ib == 32 ? ndx_gpu_index_rows_w32(copy, dst, src, moved, wins, bits, 32, &g)
                   : ndx_gpu_index_rows_w32(copy, dst, src, moved, wins, bits, 64, &g);
      } else {
        if (p->wide)
          ib == 32 ? ndx_gpu_index_elems_w64(copy, dst, src, moved, wins, bits, 32, &g)
                   : ndx_gpu_index_elems_w64(copy, dst, src, moved, wins, bits, 64, &g);
        else
          ib == 32 ? ndx_gpu_index_elems_w32(copy, dst, src, moved, wins, bits, 32, &g)
                   : ndx_gpu_index_elems_w32(copy, dst, src, moved, wins, bits, 64, &g);
      }
    }
}

/* Runs call c at every launch size against the reference; `index` holds
 * the index layout's bytes. Counts the copy kinds taken (0 elements, 1
 * rows, 2 bytes, 3 along) in kinds, and returns true when the call had a
 * fault. */
static bool check_call(const call *c, const ndx_u8 *index, oracle_rng *r, int *kinds) {
  ndx_index_plan p;
  cr_assert_eq(ndx_index_plan_make(&p, "test", c->scatter, &c->dst, &c->src, c->axis, &c->index,
                                   c->index_bits, c->flags, c->bits),
               NDX_OK, "%s", ndx_last_error());
  if (c->wide) p.wide = true;
  size_t nd = buffer_bytes(&c->dst, c->bits), ns = buffer_bytes(&c->src, c->bits);
  ndx_u8 *src = malloc(ns), *want = malloc(nd), *got = malloc(nd);
  ndx_u32 *claims = calloc((size_t)(p.nclaims > 0 ? p.nclaims : 1), sizeof *claims);
  cr_assert(src && want && got && claims);
  for (size_t i = 0; i < ns; i++) src[i] = (ndx_u8)oracle_next(r);
  for (size_t i = 0; i < nd; i++) want[i] = (ndx_u8)oracle_next(r);
  ndx_u8 *start = malloc(nd);
  memcpy(start, want, nd);
  int64_t value = 0;
  int64_t bad = oracle_index_copy(c->scatter, want, &c->dst, src, &c->src, c->axis, index,
                                  &c->index, c->index_bits, c->flags, c->bits, &value);
  if (!p.empty) kinds[p.bits < 8 ? 2 : p.rows ? 1 : ndx_index_plan_along(&p) ? 3 : 0]++;
  for (size_t l = 0; l < sizeof launches / sizeof *launches && !p.empty; l++) {
    ndx_u32 status[NDX_INDEX_STATUS_WORDS] = {0};
    memcpy(got, start, nd);
    memset(claims, 0, (size_t)(p.nclaims > 0 ? p.nclaims : 1) * sizeof *claims);
    run(&p, launches[l][0], launches[l][1], got, src, index, claims, status);
    char a[256], b[256], i[256];
    oracle_describe(a, sizeof a, &c->dst);
    oracle_describe(b, sizeof b, &c->src);
    oracle_describe(i, sizeof i, &c->index);
    for (size_t k = 0; k < nd; k++)
      cr_assert_eq(got[k], want[k],
                   "%s %d-bit, axis %d, index %d-bit flags %u%s, local %lld: dst %s src %s index "
                   "%s: byte %zu is 0x%02x, want 0x%02x",
                   c->scatter ? "scatter" : "gather", c->bits, c->axis, c->index_bits, c->flags,
                   p.wide ? " wide" : "", (long long)launches[l][0], a, b, i, k, got[k], want[k]);
    cr_assert_eq(status[0] != 0, bad >= 0, "fault %lld (value %lld): status %u", (long long)bad,
                 (long long)value, status[0]);
    if (bad >= 0) { /* the recorded element holds an invalid value */
      int64_t order = (int64_t)((uint64_t)status[1] | (uint64_t)status[2] << 32);
      int64_t v = (int64_t)((uint64_t)status[3] | (uint64_t)status[4] << 32), coord[NDX_MAX_RANK];
      int64_t pos;
      cr_assert(ndx_index_site_locate(&p.site, order, coord, &pos));
      cr_assert_eq(oracle_index_at(index, pos, c->index_bits), v);
      cr_assert_lt(oracle_index_coord(v, p.site.d, c->flags), 0);
    }
  }
  free(src), free(want), free(got), free(claims), free(start);
  return bad >= 0;
}

/* An index buffer for `l` of values in [lo, hi]. */
static ndx_u8 *random_index(oracle_rng *r, const ndx_layout *l, int index_bits, int64_t lo,
                            int64_t hi) {
  return oracle_random_index(r, buffer_bytes(l, index_bits), index_bits, lo, hi);
}

static ndx_layout distinct_view(oracle_rng *r, int rank, const int64_t *shape) {
  for (int tries = 0; tries < 50; tries++) {
    ndx_layout l = oracle_view_layout_of_shape(r, rank, shape);
    if (ndx_is_distinct(&l)) return l;
  }
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, rank, shape), NDX_OK);
  return l;
}

static void random_calls(bool scatter, int iters, uint64_t seed) {
  oracle_rng r = {seed};
  int faults = 0, kinds[4] = {0};
  for (int iter = 0; iter < iters; iter++) {
    int64_t s[NDX_MAX_RANK], o[NDX_MAX_RANK];
    int rank = (int)oracle_between(&r, 1, 5);
    for (int a = 0; a < rank; a++)
      s[a] = oracle_between(&r, 0, 40) == 0 ? 0 : oracle_between(&r, 1, rank <= 2 ? 12 : 4);
    call c = {.scatter = scatter, .axis = (int)oracle_between(&r, 0, rank - 1)};
    int64_t d = oracle_between(&r, 0, 12) == 0 ? 1 : oracle_between(&r, 1, 7);
    memcpy(o, s, sizeof s);
    o[c.axis] = d;
    c.bits = widths[iter % 8];
    c.index_bits = iter % 3 ? 32 : 64;
    c.flags = oracle_between(&r, 0, 2) == 0 ? NDX_INDEX_WRAP : 0;
    c.wide = iter % 4 == 3;
    c.index = oracle_view_layout_of_shape(&r, rank, s);
    if (oracle_between(&r, 0, 2) == 0) { /* constant along the innermost axis: rows */
      c.index.strides[rank - 1] = 0;
    }
    ndx_layout same =
        scatter ? oracle_view_layout_of_shape(&r, rank, s) : distinct_view(&r, rank, s);
    ndx_layout other =
        scatter ? distinct_view(&r, rank, o) : oracle_view_layout_of_shape(&r, rank, o);
    c.dst = scatter ? other : same;
    c.src = scatter ? same : other;
    int64_t lo = c.flags & NDX_INDEX_WRAP ? -d : 0, hi = d - 1;
    if (iter % 16 == 5) hi = d + 2;
    ndx_u8 *index = random_index(&r, &c.index, c.index_bits, lo, hi);
    faults += check_call(&c, index, &r, kinds);
    free(index);
  }
  cr_assert_gt(faults, 0, "no random call had a fault");
  for (int k = 0; k < 3; k++) cr_assert_gt(kinds[k], 0, "no random call took copy kind %d", k);
}

Test(gpu_index_emulate, random_gathers_every_width) {
  random_calls(false, 1200, 41);
}

Test(gpu_index_emulate, random_scatters_every_width) {
  random_calls(true, 1200, 43);
}

/* Rows of a table [37, dim] gathered into [n, dim] and scattered back
 * (duplicates: the winners form; distinct values with UNIQUE): rows of 1
 * to 65 elements, whose bytes are no multiple of the vector, table and
 * output rows off each alignment (offsets of 0 to 3 elements, a row pitch
 * of dim + 1), one row, and row counts that are no multiple of a launch;
 * every width. */
Test(gpu_index_emulate, row_launch_edges) {
  oracle_rng r = {47};
  static const int64_t dims[] = {1, 3, 4, 8, 17, 64, 65}, counts[] = {1, 7, 37, 255, 300};
  int kinds[4] = {0};
  for (int w = 0; w < 8; w++)
    for (size_t di = 0; di < sizeof dims / sizeof *dims; di++)
      for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
        int64_t dim = dims[di], n = counts[ci], table = 37, off = (int64_t)(di + ci + w) % 4;
        int64_t pitch = dim + (int64_t)(ci % 2);
        ndx_layout ids, col, index_l, tab, out;
        cr_assert_eq(ndx_contiguous(&ids, 1, &n), NDX_OK);
        cr_assert_eq(ndx_unsqueeze(&col, &ids, 1), NDX_OK);
        cr_assert_eq(ndx_broadcast(&index_l, &col, 2, (int64_t[]){n, dim}), NDX_OK);
        cr_assert_eq(ndx_make(&tab, 2, (int64_t[]){table, dim}, (int64_t[]){pitch, 1}, off),
                     NDX_OK);
        cr_assert_eq(ndx_make(&out, 2, (int64_t[]){n, dim}, (int64_t[]){dim, 1}, (off + 1) % 4),
                     NDX_OK);
        int ib = ci % 2 ? 64 : 32;
        ndx_u8 *index = random_index(&r, &ids, ib, 0, table - 1);
        call c = {.dst = out, .src = tab, .index = index_l, .index_bits = ib, .bits = widths[w]};
        check_call(&c, index, &r, kinds);
        c = (call){.scatter = true,
                   .dst = tab,
                   .src = out,
                   .index = index_l,
                   .index_bits = ib,
                   .bits = widths[w],
                   .wide = w % 2 == 1};
        check_call(&c, index, &r, kinds);
        if (n <= table) { /* distinct values: 5k mod 37 */
          for (int64_t k = 0; k < n; k++) {
            int64_t v = k * 5 % table;
            if (ib == 32) {
              int32_t v32 = (int32_t)v;
              memcpy(index + k * 4, &v32, 4);
            } else {
              memcpy(index + k * 8, &v, 8);
            }
          }
          c.flags = NDX_INDEX_UNIQUE;
          check_call(&c, index, &r, kinds);
        }
        free(index);
      }
  for (int k = 0; k < 3; k++) cr_assert_gt(kinds[k], 0, "no row case took copy kind %d", k);
}

/* The along path (ndx_index_plan_along, kernels/ndx_index_gpu.h: each
 * pack row's source segment loaded into work-group memory, then picked
 * from): take_along_axis on the innermost axis of a table [rows, dim] of
 * pitch dim or dim + 1 and offset 0 to 3 elements (segments off the
 * sectors), flipped along the axis too (a step of -1), into [rows, n] by
 * values in range, wrapped negative ones (WRAP), and out-of-range ones
 * (the call writes nothing and the status names an invalid element), 32-
 * and 64-bit indices, 8 to 128 bits. Segments of one 128-byte line and
 * less, and of more than NDX_GPU_ALONG_BYTES, and 4-bit elements, are not
 * taken along and still copy right; the others are, in passes of several pack rows (n
 * small), one (n = dim) or segments of one (n longer than a pass). */
Test(gpu_index_emulate, along_the_axis_through_work_group_memory, .timeout = 600) {
  oracle_rng r = {53};
  int kinds[4] = {0}, faults = 0, cases = 0;
  for (int w = 3; w < 8; w++) {
    int64_t eb = widths[w] / 8, budget = NDX_GPU_ALONG_BYTES / eb;
    /* segment lengths: one line (not along), just over it, odd, the whole
     * budget, one past it (not along) */
    int64_t dims[] = {128 / eb, 128 / eb + 1, 1000 / eb + 3, budget, budget + 1};
    for (size_t di = 0; di < sizeof dims / sizeof *dims; di++) {
      int64_t dim = dims[di], least = ndx_ceil_div(dim * eb, 32);
      /* picks a pack row: the fewest taken along, a pass of several rows,
       * the row's own length, longer than a pass (segments) */
      int64_t ns[] = {least, dim, 1500 > least ? 1500 : least + 7};
      for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++) {
        int64_t n = ns[ni], rows = ni == 0 ? 37 : 3, off = (int64_t)(di + ni + w) % 4;
        int64_t pitch = dim + (int64_t)((di + ni) % 2);
        bool along = dim * eb > 128 && dim * eb <= NDX_GPU_ALONG_BYTES;
        for (int variant = 0; variant < 4; variant++) {
          ndx_layout tab, src, out, index_l;
          cr_assert_eq(ndx_make(&tab, 2, (int64_t[]){rows, dim}, (int64_t[]){pitch, 1}, off),
                       NDX_OK);
          src = tab;
          if (variant & 1) cr_assert_eq(ndx_flip(&src, &tab, 1), NDX_OK);
          cr_assert_eq(ndx_make(&out, 2, (int64_t[]){rows, n}, (int64_t[]){n, 1}, (off + 1) % 4),
                       NDX_OK);
          cr_assert_eq(ndx_contiguous(&index_l, 2, (int64_t[]){rows, n}), NDX_OK);
          call c = {.dst = out,
                    .src = src,
                    .axis = 1,
                    .index = index_l,
                    .index_bits = variant & 2 ? 64 : 32,
                    .bits = widths[w],
                    .flags = variant == 2 ? NDX_INDEX_WRAP : 0,
                    .wide = variant == 3};
          ndx_index_plan p;
          cr_assert_eq(ndx_index_plan_make(&p, "test", false, &c.dst, &c.src, 1, &c.index,
                                           c.index_bits, c.flags, c.bits),
                       NDX_OK);
          cr_assert_eq(ndx_index_plan_along(&p), along, "%d-bit, dim %lld, n %lld: along %d",
                       c.bits, (long long)dim, (long long)n, !along);
          if (along) { /* the descriptor the kernels read */
            launch_buf lb;
            ndx_index_launch *d = (ndx_index_launch *)lb.w;
            int64_t groups;
            ndx_index_launch_copy(&p, 32, 3, d, &groups);
            cr_assert_eq(d->along, dim);
            cr_assert_eq(d->along_lo, variant & 1 ? 1 - dim : 0);
            cr_assert_eq(d->row_units, n);
            cr_assert_leq(d->along_rows * dim * eb, NDX_GPU_ALONG_BYTES);
            if (ni == 2) cr_assert_gt(d->along_segs, 1, "n %lld: one segment", (long long)n);
            if (ni == 0 && dim * eb <= NDX_GPU_ALONG_BYTES / 2)
              cr_assert_gt(d->along_rows, 1, "dim %lld, n %lld: one row a pass", (long long)dim,
                           (long long)n);
          }
          int64_t lo = c.flags & NDX_INDEX_WRAP ? -dim : 0, hi = dim - 1;
          ndx_u8 *index = random_index(&r, &index_l, c.index_bits, lo, hi);
          if ((di + ni + (size_t)variant) % 3 == 1) { /* one value out of range */
            int64_t at = oracle_between(&r, 0, rows * n - 1);
            int64_t v = oracle_between(&r, 0, 1) ? dim + oracle_between(&r, 0, 5)
                                                 : lo - 1 - oracle_between(&r, 0, 5);
            if (c.index_bits == 32) {
              int32_t v32 = (int32_t)v;
              memcpy(index + at * 4, &v32, 4);
            } else {
              memcpy(index + at * 8, &v, 8);
            }
          }
          faults += check_call(&c, index, &r, kinds);
          cases++;
          free(index);
        }
      }
    }
  }
  /* below 8 bits a gather assembles destination bytes (the bytes body),
   * never along: 4-bit rows of 1000 elements, picked 1500 times */
  for (int variant = 0; variant < 2; variant++) {
    int64_t dim = 1000, n = 1500, rows = 3;
    ndx_layout tab, out, index_l;
    cr_assert_eq(ndx_make(&tab, 2, (int64_t[]){rows, dim}, (int64_t[]){dim + 1, 1}, 1), NDX_OK);
    cr_assert_eq(ndx_contiguous(&out, 2, (int64_t[]){rows, n}), NDX_OK);
    index_l = out;
    call c = {.dst = out,
              .src = tab,
              .axis = 1,
              .index = index_l,
              .index_bits = 32,
              .bits = 4,
              .flags = variant ? NDX_INDEX_WRAP : 0};
    ndx_index_plan p;
    cr_assert_eq(
        ndx_index_plan_make(&p, "test", false, &c.dst, &c.src, 1, &c.index, 32, c.flags, 4),
        NDX_OK);
    cr_assert(!ndx_index_plan_along(&p));
    ndx_u8 *index = random_index(&r, &index_l, 32, variant ? -dim : 0, dim - 1);
    check_call(&c, index, &r, kinds);
    free(index);
  }
  cr_assert_gt(faults, 0, "no along case had a fault");
  cr_assert_gt(kinds[3], cases / 2, "%d of %d cases along", kinds[3], cases);
  cr_assert_gt(kinds[0], 0, "every case along");
}
