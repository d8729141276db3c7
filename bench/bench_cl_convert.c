/* bench_cl_convert.c: the conversion cases of `ndx-bench --cl` (names
 * starting with "convert", so that --cases convert selects them): a copy
 * that converts each element between two number types (ndx_cl_convert),
 * timed repetition by repetition beside the ceiling and beside the plain
 * copy of the same layouts at the wider of the two widths (ndx_cl_copy).
 * A ratio is the call's bytes (source read plus destination written) per
 * second over the ceiling's; the target is the conversion's ratio at least
 * 0.8 of that copy's. Each conversion is checked against the host
 * reference (tests/convert_ref.h: every element of a small one, a sample
 * of a large one), and the copy against its random source, before they
 * are timed. Rows join the table and bench-cl.csv. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cl.h"
#include "convert_ref.h"
#include "oracle.h"

typedef struct convert_case {
  const char *name;
  int rank;
  int64_t shape[2]; /* of the source tensor */
  move mv;          /* MV_NONE, MV_PERMUTE (a transpose) or MV_FLIP (the inner axis) */
  ndx_dtype src_t, dst_t;
} convert_case;

static const convert_case convert_cases[] = {
    {"convert f32 -> bf16 contiguous", 1, {16777216}, MV_NONE, NDX_F32, NDX_BF16},
    {"convert f32 -> f16 transpose 4096x4096", 2, {4096, 4096}, MV_PERMUTE, NDX_F32, NDX_F16},
    {"convert bf16 -> f32 flip 4096x4096", 2, {4096, 4096}, MV_FLIP, NDX_BF16, NDX_F32},
    {"convert f32 -> f8e4m3fn contiguous", 1, {16777216}, MV_NONE, NDX_F32, NDX_F8E4M3FN},
    {"convert f4e2m1fn -> f16 4096x4096", 2, {4096, 4096}, MV_NONE, NDX_F4E2M1FN, NDX_F16},
    {"convert f4e2m1fn -> f16 transpose 4096x4096",
     2,
     {4096, 4096},
     MV_PERMUTE,
     NDX_F4E2M1FN,
     NDX_F16},
    {"convert i8 -> f32 contiguous", 1, {16777216}, MV_NONE, NDX_I8, NDX_F32},
};

/* A side of a case: its layout's buffer and the host's copy of its source. */
typedef struct convert_data {
  ndx_layout base_l, view_l, dst_l;
  cl_mem src, dst, wsrc, wdst; /* the conversion's; the wider copy's */
  uint8_t *host, *whost;       /* the sources' host copies */
  size_t src_bytes, dst_bytes, wsrc_bytes, wdst_bytes;
  int64_t numel;
} convert_data;

static size_t bytes_of(const ndx_layout *l, int bits) {
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  return (size_t)((hi * bits + 7) / 8);
}

static void free_data(convert_data *d) {
  free(d->host), free(d->whost);
  cl_mem m[4] = {d->src, d->dst, d->wsrc, d->wdst};
  for (int k = 0; k < 4; k++)
    if (m[k]) clReleaseMemObject(m[k]);
}

/* Case c at e's size into d (its source random, finite normal f32 values
 * where the source is f32, as a model's tensors are); false with `why`. */
static bool make_data(env *e, const convert_case *c, convert_data *d, char *why, size_t n) {
  memset(d, 0, sizeof *d);
  int64_t shape[2] = {c->shape[0], c->shape[1]};
  int64_t scale = e->tensor_bytes < FULL_TENSOR_BYTES ? FULL_TENSOR_BYTES / e->tensor_bytes : 1;
  if (c->rank == 1) shape[0] /= scale;
  for (int64_t s = scale; c->rank == 2 && s > 1; s /= 4) shape[0] /= 2, shape[1] /= 2;
  ndx_status s = ndx_contiguous(&d->base_l, c->rank, shape);
  if (s == NDX_OK && c->mv == MV_PERMUTE) s = ndx_transpose(&d->view_l, &d->base_l, 0, 1);
  if (s == NDX_OK && c->mv == MV_FLIP) s = ndx_flip(&d->view_l, &d->base_l, c->rank - 1);
  if (s == NDX_OK && c->mv == MV_NONE) d->view_l = d->base_l;
  if (s == NDX_OK) s = ndx_contiguous(&d->dst_l, d->view_l.rank, d->view_l.shape);
  if (s != NDX_OK) {
    snprintf(why, n, "%s: %s", ndx_status_name(s), ndx_last_error());
    return false;
  }
  int sb = ndx_dtype_bits(c->src_t), db = ndx_dtype_bits(c->dst_t), w = sb > db ? sb : db;
  d->numel = ndx_numel(&d->view_l);
  d->src_bytes = bytes_of(&d->base_l, sb);
  d->dst_bytes = bytes_of(&d->dst_l, db);
  d->wsrc_bytes = bytes_of(&d->base_l, w);
  d->wdst_bytes = bytes_of(&d->dst_l, w);
  d->host = malloc(d->src_bytes);
  d->whost = malloc(d->wsrc_bytes);
  d->src = new_buffer(e, d->src_bytes);
  d->dst = new_buffer(e, d->dst_bytes);
  d->wsrc = new_buffer(e, d->wsrc_bytes);
  d->wdst = new_buffer(e, d->wdst_bytes);
  if (!d->host || !d->whost || !d->src || !d->dst || !d->wsrc || !d->wdst) {
    snprintf(why, n, "out of memory for the buffers");
    return false;
  }
  if (c->src_t == NDX_F32)
    fill_random_f32(d->host, d->src_bytes, (uint64_t)(uintptr_t)c + 7);
  else
    fill_random(d->host, d->src_bytes, (uint64_t)(uintptr_t)c + 7);
  fill_random(d->whost, d->wsrc_bytes, (uint64_t)(uintptr_t)c + 11);
  /* both sources written: a buffer never written may read as pages of
     zeros that no memory holds, which would time the copy's reads at the
     speed of a cache */
  return upload(e, d->src, d->host, d->src_bytes, why, n) &&
         upload(e, d->wsrc, d->whost, d->wsrc_bytes, why, n);
}

/* The elements a check compares, of numel: every one below 2^22 of them,
 * else the ends and 2^20 random ones. */
static int64_t sample_count(int64_t numel) {
  return numel < (INT64_C(1) << 22) ? numel : (INT64_C(1) << 20) + 2;
}

/* The k-th element a check compares, of numel (rng: the sample's state). */
static int64_t sample_at(int64_t k, int64_t numel, uint64_t *rng) {
  if (sample_count(numel) == numel) return k;
  return k == 0 ? 0 : k == 1 ? numel - 1 : (int64_t)(rng_next(rng) % (uint64_t)numel);
}

/* Reads `bytes` of buffer m into a new host buffer, NULL with `why`. */
static uint8_t *download(env *e, cl_mem m, size_t bytes, char *why, size_t n) {
  uint8_t *got = malloc(bytes);
  if (got && clEnqueueReadBuffer(e->q, m, CL_TRUE, 0, bytes, got, 0, NULL, NULL) == CL_SUCCESS)
    return got;
  snprintf(why, n, got ? "the read-back failed" : "out of memory for the read-back");
  free(got);
  return NULL;
}

/* Runs the conversion once and compares a sample of its destination with
 * the host reference. */
static bool check_convert(env *e, const convert_case *c, convert_data *d, char *why, size_t n) {
  ndx_status s = ndx_cl_convert(e->ndx, e->q, d->dst, &d->dst_l, c->dst_t, d->src, &d->view_l,
                                c->src_t, 0, NULL, NULL);
  if (s != NDX_OK) {
    snprintf(why, n, "ndx_cl_convert: %s", ndx_last_error());
    return false;
  }
  uint8_t *got = download(e, d->dst, d->dst_bytes, why, n), *want = calloc(d->dst_bytes, 1);
  bool ok = got && want;
  int db = ndx_dtype_bits(c->dst_t);
  uint64_t rng = 0x9e3779b97f4a7c15u;
  for (int64_t k = 0; ok && k < sample_count(d->numel); k++) {
    int64_t i = sample_at(k, d->numel, &rng);
    int64_t pd = oracle_position_of(&d->dst_l, i), ps = oracle_position_of(&d->view_l, i);
    ref_convert_elem(want, pd, c->dst_t, d->host, ps, c->src_t);
    if (ref_load(got, pd, db) != ref_load(want, pd, db)) {
      snprintf(why, n, "element %" PRId64 " is 0x%" PRIx64 ", want 0x%" PRIx64, i,
               ref_load(got, pd, db), ref_load(want, pd, db));
      ok = false;
    }
  }
  free(got), free(want);
  return ok;
}

/* Runs the wider copy once (w bits) and compares a sample of its
 * destination with its source's host copy. */
static bool check_copy(env *e, convert_data *d, int w, char *why, size_t n) {
  ndx_status s =
      ndx_cl_copy(e->ndx, e->q, d->wdst, &d->dst_l, d->wsrc, &d->view_l, w, 0, NULL, NULL);
  if (s != NDX_OK) {
    snprintf(why, n, "ndx_cl_copy: %s", ndx_last_error());
    return false;
  }
  uint8_t *got = download(e, d->wdst, d->wdst_bytes, why, n);
  bool ok = got != NULL;
  uint64_t rng = 0x9e3779b97f4a7c15u;
  for (int64_t k = 0; ok && k < sample_count(d->numel); k++) {
    int64_t i = sample_at(k, d->numel, &rng);
    int64_t pd = oracle_position_of(&d->dst_l, i), ps = oracle_position_of(&d->view_l, i);
    if (ref_load(got, pd, w) != ref_load(d->whost, ps, w)) {
      snprintf(why, n, "the %d-bit copy's element %" PRId64 " is 0x%" PRIx64 ", want 0x%" PRIx64, w,
               i, ref_load(got, pd, w), ref_load(d->whost, ps, w));
      ok = false;
    }
  }
  free(got);
  return ok;
}

static void run_convert_case(env *e, const convert_case *c) {
  convert_data d;
  char why[512] = "";
  enum { CEIL, CONVERT, COPY, N };
  entry t[N];
  memset(t, 0, sizeof t);
  int sb = ndx_dtype_bits(c->src_t), db = ndx_dtype_bits(c->dst_t), w = sb > db ? sb : db;
  bool ok = make_data(e, c, &d, why, sizeof why);
  double bytes = (double)d.numel * (sb + db) / 8.0;
  size_t moved = 0;
  if (ok)
    ok = ceiling_op(e, e->ceil, e->cdst, e->csrc, (size_t)(bytes / 2), e->cbytes, &t[CEIL].o,
                    &moved);
  if (ok) {
    t[CEIL].bytes = 2.0 * (double)moved;
    t[CONVERT].o = (op){.kind = OP_CONVERT,
                        .e = e,
                        .dst = d.dst,
                        .src = d.src,
                        .dst_l = &d.dst_l,
                        .src_l = &d.view_l,
                        .dst_t = c->dst_t,
                        .src_t = c->src_t};
    t[CONVERT].bytes = bytes;
    t[COPY].o = (op){.kind = OP_COPY,
                     .e = e,
                     .dst = d.wdst,
                     .src = d.wsrc,
                     .dst_l = &d.dst_l,
                     .src_l = &d.view_l,
                     .bits = w};
    t[COPY].bytes = (double)d.numel * 2 * w / 8.0;
    ok = check_convert(e, c, &d, why, sizeof why) && check_copy(e, &d, w, why, sizeof why);
    if (!ok) {
      printf("%-50s ndx WRONG: %s\n", c->name, why);
      e->wrong++;
    }
  } else {
    printf("%-50s setup failed: %s\n", c->name, why);
    e->errors++;
  }
  if (ok) {
    measure_group(e, t, N);
    const fig *f = &t[CONVERT].f, *p = &t[COPY].f;
    double vs_copy = f->state == 1 && p->state == 1 ? f->ratio / p->ratio : 0;
    const target *tg = find_target("convert");
    bool met = vs_copy >= tg->min_ratio;
    count_target(e, c->name, met);
    char fn[32], fp[32];
    fmt_fig(fn, sizeof fn, f);
    fmt_fig(fp, sizeof fp, p);
    printf("%-50s %-9s %s %7.2f %12s %s %12s %12s  %-20s %s (%.2f of the %d-bit copy)\n", c->name,
           "convert", fn, t[CEIL].f.gbs, "-", fp, "-", "-", tg->text, met ? "yes" : "NO", vs_copy,
           w);
    note_problem(e, "ndx", c->name, f);
    if (e->csv) {
      fprintf(e->csv, "\"%s\",convert,%d,%" PRId64 ",%.0f,convert", c->name, w, d.numel, bytes);
      fprintf(e->csv, f->state == 1 ? ",%.4f,%.4f" : ",,", f->gbs, f->ratio);
      fprintf(e->csv, ",%.4f,,", t[CEIL].f.gbs);
      fprintf(e->csv, p->state == 1 ? ",%.4f,%.4f" : ",,", p->gbs, p->ratio);
      fprintf(e->csv, ",,,,,\"%s\",%.2f,0.00,%s,%d,%.4f\n", tg->text, tg->min_ratio,
              met ? "yes" : "no", f->reps, vs_copy);
    }
  }
  fflush(stdout);
  if (t[CEIL].o.kernel) clReleaseKernel(t[CEIL].o.kernel);
  free_data(&d);
}

void run_convert_cases(env *e, const char *only) {
  for (size_t i = 0; i < sizeof convert_cases / sizeof *convert_cases; i++)
    if (!only || strstr(convert_cases[i].name, only)) run_convert_case(e, &convert_cases[i]);
}
