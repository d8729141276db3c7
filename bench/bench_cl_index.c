/* bench_cl_index.c: the gather and scatter cases of `ndx-bench --cl`:
 * embedding lookups (fp32 and 4-bit tables), take_along_axis on the inner
 * axis, KV-cache row scatters with and without NDX_INDEX_UNIQUE, and the
 * cost of the index check. Each is timed, repetition by repetition, beside
 * the ceiling over the same bytes (dst written plus src and index read) and
 * a naive peer: one element per work-item on ndx_device.h's
 * ndx_indexed_position (bench_cl.cl); the check's cost is the lookup
 * against itself with the check pass skipped (an internal hook). Each
 * result is compared with the host's, whole, before it is timed. Rows join
 * the table and bench-cl.csv. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cl.h"
#include "device/cl_internal.h"
#include "oracle.h"
#include "index_oracle.h"
#include "ndx/ndx_pack.h"

typedef enum shape_kind { K_ROWS, K_ALONG } shape_kind;

typedef struct index_case {
  const char *group;
  const char *name; /* its sizes as {table}, {rows}, {dim}: index_name fills them */
  bool scatter;
  shape_kind kind; /* K_ROWS: rows of a table by a 1-d index; K_ALONG: take_along_axis */
  int bits;
  int64_t table, rows, dim; /* K_ROWS: table [table, dim], rows indexed; K_ALONG: [rows, dim] */
  unsigned flags;
  bool skip_peer; /* the peer is the same call without its check pass */
} index_case;

static const index_case index_cases[] = {
    {"embedding", "embedding lookup f32 [{table},{dim}] by {rows}", false, K_ROWS, 32, 65536, 32768,
     256, 0, false},
    {"embedding4", "embedding lookup 4-bit [{table},{dim}] by {rows}", false, K_ROWS, 4, 65536,
     32768, 512, 0, false},
    {"take_along", "take_along_axis(1) f32 {rows}x{dim}", false, K_ALONG, 32, 0, 4096, 4096, 0,
     false},
    {"scatter-unique", "scatter rows f32 {rows} into [{table},{dim}] UNIQUE", true, K_ROWS, 32,
     65536, 32768, 256, NDX_INDEX_UNIQUE, false},
    {"scatter", "scatter rows f32 {rows} into [{table},{dim}]", true, K_ROWS, 32, 65536, 32768, 256,
     0, false},
    {"index-check", "embedding f32 with check / without", false, K_ROWS, 32, 65536, 32768, 256, 0,
     true},
};

/* The extents case c runs at: its own, divided under --quick as the
 * tensors are. */
static void index_sizes(const env *e, const index_case *c, int64_t *table, int64_t *rows,
                        int64_t *dim) {
  int64_t scale = e->tensor_bytes < FULL_TENSOR_BYTES ? FULL_TENSOR_BYTES / e->tensor_bytes : 1;
  *rows = c->rows / scale, *table = c->table / scale, *dim = c->dim;
}

/* c->name with {table}, {rows} and {dim} written out. */
static void index_name(char *out, size_t n, const index_case *c, int64_t table, int64_t rows,
                       int64_t dim) {
  size_t used = 0;
  out[0] = '\0';
  for (const char *p = c->name; *p && used + 1 < n;) {
    const char *keys[3] = {"{table}", "{rows}", "{dim}"};
    int64_t vals[3] = {table, rows, dim};
    int k = 0;
    while (k < 3 && strncmp(p, keys[k], strlen(keys[k])) != 0) k++;
    if (k < 3) {
      snprintf(out + used, n - used, "%lld", (long long)vals[k]);
      p += strlen(keys[k]);
    } else {
      out[used] = *p++;
      out[used + 1] = '\0';
    }
    used = strlen(out);
  }
}

/* A case made concrete: layouts (S-shaped side, indexed side, index, and
 * the naive peer's indexed side broadcast over S), buffers, host copies. */
typedef struct index_data {
  ndx_layout same_l, indexed_l, index_l, ids_l, peer_l;
  size_t same_bytes, indexed_bytes, index_bytes;
  uint8_t *same, *indexed, *index, *want;
  cl_mem dsame, dindexed, dindex;
  double bytes;
} index_data;

static size_t layout_bytes(const ndx_layout *l, int bits) {
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  return (size_t)((hi * bits + 7) / 8);
}

static void free_data(index_data *d) {
  free(d->same);
  free(d->indexed);
  free(d->index);
  free(d->want);
  if (d->dsame) clReleaseMemObject(d->dsame);
  if (d->dindexed) clReleaseMemObject(d->dindexed);
  if (d->dindex) clReleaseMemObject(d->dindex);
}

/* Random distinct values in [0, n) for each of `count` slots (count <= n):
 * a shuffled prefix, so a scatter's rows are unique. */
static void unique_ids(int32_t *out, int64_t count, int64_t n, uint64_t seed) {
  int32_t *all = malloc((size_t)n * sizeof *all);
  for (int64_t k = 0; k < n; k++) all[k] = (int32_t)k;
  for (int64_t k = 0; k < count; k++) {
    int64_t j = k + (int64_t)(rng_next(&seed) % (uint64_t)(n - k));
    int32_t t = all[k];
    all[k] = all[j];
    all[j] = t;
    out[k] = all[k];
  }
  free(all);
}

/* Builds case c (shrunk under --quick): the layouts, random data, the
 * index, the host's expected result. */
static bool make_data(env *e, const index_case *c, index_data *d, char *why, size_t whysz) {
  memset(d, 0, sizeof *d);
  int64_t rows, table, dim;
  index_sizes(e, c, &table, &rows, &dim);
  if (c->kind == K_ALONG) {
    int64_t s[2] = {rows, dim};
    ndx_contiguous(&d->same_l, 2, s);
    d->indexed_l = d->index_l = d->ids_l = d->same_l;
  } else {
    ndx_contiguous(&d->same_l, 2, (int64_t[]){rows, dim});
    ndx_contiguous(&d->indexed_l, 2, (int64_t[]){table, dim});
    ndx_layout col;
    ndx_contiguous(&d->ids_l, 1, &rows);
    ndx_unsqueeze(&col, &d->ids_l, 1);
    ndx_broadcast(&d->index_l, &col, 2, d->same_l.shape);
  }
  /* the peer's view of the indexed side: extent 1 on axis, broadcast to S */
  int axis = c->kind == K_ALONG ? 1 : 0;
  ndx_layout one;
  ndx_narrow(&one, &d->indexed_l, axis, 0, 1);
  ndx_broadcast(&d->peer_l, &one, 2, d->same_l.shape);
  d->same_bytes = layout_bytes(&d->same_l, c->bits);
  d->indexed_bytes = layout_bytes(&d->indexed_l, c->bits);
  d->index_bytes = layout_bytes(&d->ids_l, 32);
  d->same = malloc(d->same_bytes);
  d->indexed = malloc(d->indexed_bytes);
  d->index = malloc(d->index_bytes);
  d->want = malloc(c->scatter ? d->indexed_bytes : d->same_bytes);
  if (!d->same || !d->indexed || !d->index || !d->want) {
    snprintf(why, whysz, "out of host memory");
    return false;
  }
  fill_random(d->same, d->same_bytes, 21);
  fill_random(d->indexed, d->indexed_bytes, 22);
  int32_t *ids = (int32_t *)(void *)d->index;
  int64_t nids = (int64_t)(d->index_bytes / 4);
  uint64_t seed = 23;
  if (c->scatter)
    unique_ids(ids, rows, table, 24);
  else
    for (int64_t k = 0; k < nids; k++)
      ids[k] = (int32_t)(rng_next(&seed) % (uint64_t)(c->kind == K_ALONG ? dim : table));
  /* the expected result: the host reference's copy */
  memcpy(d->want, c->scatter ? d->indexed : d->same, c->scatter ? d->indexed_bytes : d->same_bytes);
  int64_t unused;
  if (c->scatter)
    oracle_index_copy(true, d->want, &d->indexed_l, d->same, &d->same_l, axis, d->index,
                      &d->index_l, 32, c->flags, c->bits, &unused);
  else
    oracle_index_copy(false, d->want, &d->same_l, d->indexed, &d->indexed_l, axis, d->index,
                      &d->index_l, 32, c->flags, c->bits, &unused);
  d->dsame = new_buffer(e, d->same_bytes);
  d->dindexed = new_buffer(e, d->indexed_bytes);
  d->dindex = new_buffer(e, d->index_bytes);
  if (!d->dsame || !d->dindexed || !d->dindex) {
    snprintf(why, whysz, "device buffers of %zu, %zu, %zu bytes", d->same_bytes, d->indexed_bytes,
             d->index_bytes);
    return false;
  }
  clEnqueueWriteBuffer(e->q, d->dsame, CL_TRUE, 0, d->same_bytes, d->same, 0, NULL, NULL);
  clEnqueueWriteBuffer(e->q, d->dindexed, CL_TRUE, 0, d->indexed_bytes, d->indexed, 0, NULL, NULL);
  clEnqueueWriteBuffer(e->q, d->dindex, CL_TRUE, 0, d->index_bytes, d->index, 0, NULL, NULL);
  /* bytes moved: dst written, src and index read, once each */
  double moved = (double)rows * (double)dim * c->bits / 8.0;
  d->bytes = 2 * moved + (double)d->index_bytes;
  return true;
}

/* Restores dst's starting bytes, runs `o` once and compares dst with the
 * expected result. */
static bool check_op(env *e, const index_case *c, index_data *d, op *o, char *why, size_t whysz) {
  cl_mem dst = c->scatter ? d->dindexed : d->dsame;
  size_t nd = c->scatter ? d->indexed_bytes : d->same_bytes;
  uint8_t *got = malloc(nd);
  clEnqueueWriteBuffer(e->q, dst, CL_TRUE, 0, nd, c->scatter ? d->indexed : d->same, 0, NULL, NULL);
  op_run(o, 1);
  bool ok = !o->failed && got;
  if (ok) clEnqueueReadBuffer(e->q, dst, CL_TRUE, 0, nd, got, 0, NULL, NULL);
  if (ok && ndx_cl_check(e->ndx) != NDX_OK) {
    snprintf(why, whysz, "ndx_cl_check: %s", ndx_last_error());
    ok = false;
  }
  for (size_t k = 0; ok && k < nd; k++)
    if (got[k] != d->want[k]) {
      snprintf(why, whysz, "dst byte %zu is 0x%02x, the host's 0x%02x", k, got[k], d->want[k]);
      ok = false;
    }
  if (o->failed) snprintf(why, whysz, "%s", o->why);
  free(got);
  return ok;
}

/* The naive peer: ndx_pack of (dst, src, index) over S, the indexed side
 * broadcast along its axis, and one work-item per element. */
static bool peer_op(env *e, const index_case *c, index_data *d, op *o, cl_mem *pack, char *why,
                    size_t whysz) {
  if (c->bits != 32) {
    snprintf(why, whysz, "no naive peer below 8 bits");
    return false;
  }
  uint64_t buf[NDX_PACK_MAX_BYTES(3, NDX_PACK_MAX_RANK) / 8];
  size_t used;
  ndx_layout three[3] = {c->scatter ? d->peer_l : d->same_l, c->scatter ? d->same_l : d->peer_l,
                         d->index_l};
  if (ndx_pack(buf, sizeof buf, &used, 3, three, 32) != NDX_OK) {
    snprintf(why, whysz, "ndx_pack: %s", ndx_last_error());
    return false;
  }
  const ndx_pack_head *h = (const ndx_pack_head *)buf;
  cl_int err;
  *pack = clCreateBuffer(e->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, used, buf, &err);
  cl_kernel k = err == CL_SUCCESS
                    ? clCreateKernel(e->prog[h->wide ? 1 : 0], "bench_naive_index_32", &err)
                    : NULL;
  if (err != CL_SUCCESS) {
    snprintf(why, whysz, "naive kernel setup: %s", cl_err(err));
    return false;
  }
  int axis = c->kind == K_ALONG ? 1 : 0;
  cl_long dd = d->indexed_l.shape[axis], stride = d->indexed_l.strides[axis];
  cl_int moved = c->scatter ? 0 : 1;
  cl_mem dst = c->scatter ? d->dindexed : d->dsame, src = c->scatter ? d->dsame : d->dindexed;
  clSetKernelArg(k, 0, sizeof(cl_mem), pack);
  clSetKernelArg(k, 1, sizeof(cl_mem), &dst);
  clSetKernelArg(k, 2, sizeof(cl_mem), &src);
  clSetKernelArg(k, 3, sizeof(cl_mem), &d->dindex);
  clSetKernelArg(k, 4, sizeof dd, &dd);
  clSetKernelArg(k, 5, sizeof stride, &stride);
  clSetKernelArg(k, 6, sizeof moved, &moved);
  *o = (op){.kind = OP_KERNEL, .e = e, .dst = dst, .src = src, .kernel = k, .local = 64};
  o->global = (size_t)((ndx_numel(&d->same_l) + 63) / 64 * 64);
  return true;
}

static op index_op(env *e, const index_case *c, index_data *d, unsigned internal) {
  return (op){.kind = OP_INDEX,
              .e = e,
              .dst = c->scatter ? d->dindexed : d->dsame,
              .src = c->scatter ? d->dsame : d->dindexed,
              .index = d->dindex,
              .dst_l = c->scatter ? &d->indexed_l : &d->same_l,
              .src_l = c->scatter ? &d->same_l : &d->indexed_l,
              .index_l = &d->index_l,
              .axis = c->kind == K_ALONG ? 1 : 0,
              .index_flags = c->flags,
              .internal = internal,
              .scatter = c->scatter,
              .bits = c->bits};
}

static void run_index_case(env *e, const index_case *c) {
  index_data d = {0};
  char why[512] = "", name[160];
  int64_t table, rows, dim;
  index_sizes(e, c, &table, &rows, &dim);
  index_name(name, sizeof name, c, table, rows, dim); /* the sizes it runs at */
  enum { CEIL, NDX, PEER, N };
  entry *t = calloc(N, sizeof *t);
  cl_mem pack = NULL;
  bool ok = t && make_data(e, c, &d, why, sizeof why);
  size_t moved = 0;
  if (ok)
    ok = ceiling_op(e, e->ceil, e->cdst, e->csrc, (size_t)(d.bytes / 2), e->cbytes, &t[CEIL].o,
                    &moved);
  if (ok) {
    t[CEIL].bytes = 2.0 * (double)moved;
    t[NDX].o = index_op(e, c, &d, 0);
    t[NDX].bytes = d.bytes;
  }
  fig fails[N];
  memset(fails, 0, sizeof fails);
  bool peer = false;
  if (ok && c->skip_peer) {
    t[PEER].o = index_op(e, c, &d, NDX_CL_INDEX_SKIP_CHECK);
    peer = true;
  } else if (ok) {
    peer = peer_op(e, c, &d, &t[PEER].o, &pack, fails[PEER].why, sizeof fails[PEER].why);
  }
  t[PEER].bytes = d.bytes;
  if (ok && !check_op(e, c, &d, &t[NDX].o, why, sizeof why)) {
    printf("%-50s ndx WRONG: %s\n", name, why);
    e->wrong++;
    ok = false;
  }
  if (ok && peer && !check_op(e, c, &d, &t[PEER].o, fails[PEER].why, sizeof fails[PEER].why)) {
    fails[PEER].state = -1;
    peer = false;
  }
  if (!ok) {
    if (why[0] && !strstr(why, "dst byte")) printf("%-50s setup failed: %s\n", name, why);
    if (why[0] && !strstr(why, "dst byte")) e->errors++;
  } else {
    measure_group(e, t, peer ? 3 : 2);
    if (!peer) t[PEER].f = fails[PEER];
    const target *tg = find_target(c->group);
    const fig *f = &t[NDX].f, *p = &t[PEER].f;
    /* the check's cost: with / without, paired repetition by repetition */
    double ratio = c->skip_peer && p->state == 1 ? paired(&t[NDX], &t[PEER], false) : f->ratio;
    bool met = f->state == 1 && ratio >= tg->min_ratio;
    count_target(e, name, met);
    char fn[32], fp[32];
    fmt_fig(fn, sizeof fn, f);
    fmt_fig(fp, sizeof fp, p);
    char extra[48] = "";
    if (c->skip_peer) snprintf(extra, sizeof extra, " (%.2f of unchecked)", ratio);
    printf("%-50s %-9s %s %7.2f %12s %s %12s %12s  %-20s %s%s\n", name,
           c->scatter ? (c->flags & NDX_INDEX_UNIQUE ? "unique" : "winners") : "gather", fn,
           t[CEIL].f.gbs, "-", fp, "-", "-", tg->text, met ? "yes" : "NO", extra);
    note_problem(e, "ndx", name, f);
    if (e->csv) {
      fprintf(e->csv, "\"%s\",%s,%d,%" PRId64 "x%" PRId64 ",%.0f,%s", name, c->group, c->bits,
              d.same_l.shape[0], d.same_l.shape[1], d.bytes, c->scatter ? "scatter" : "gather");
      fprintf(e->csv, f->state == 1 ? ",%.4f,%.4f" : ",,", f->gbs, ratio);
      fprintf(e->csv, ",%.4f,,", t[CEIL].f.gbs);
      if (p->state == 1 && !c->skip_peer)
        fprintf(e->csv, ",%.4f,%.4f", p->gbs, p->ratio);
      else
        fprintf(e->csv, ",,");
      fprintf(e->csv, ",,,,,\"%s\",%.2f,0.00,%s,%d,\n", tg->text, tg->min_ratio, met ? "yes" : "no",
              f->reps);
    }
  }
  fflush(stdout);
  if (t && t[CEIL].o.kernel) clReleaseKernel(t[CEIL].o.kernel);
  if (t && !c->skip_peer && t[PEER].o.kernel) clReleaseKernel(t[PEER].o.kernel);
  if (pack) clReleaseMemObject(pack);
  free(t);
  free_data(&d);
}

void run_index_cases(env *e, const char *only) {
  for (size_t i = 0; i < sizeof index_cases / sizeof *index_cases; i++) {
    const index_case *c = &index_cases[i];
    char full[160], run[160];
    int64_t table, rows, dim;
    index_sizes(e, c, &table, &rows, &dim);
    index_name(full, sizeof full, c, c->table, c->rows, c->dim);
    index_name(run, sizeof run, c, table, rows, dim);
    if (!only || strstr(full, only) || strstr(run, only)) run_index_case(e, c);
  }
}
