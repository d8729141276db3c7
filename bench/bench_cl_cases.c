/* bench_cl_cases.c: what `ndx-bench --cl` measures: the targets (ratios to
 * the ceiling on this 2-core machine), the table of cases (a layout move of a
 * random source tensor, copied into a contiguous destination), and a case
 * made concrete: its layouts, its buffers on the device, the host's copy of
 * its source, and the ceiling and clEnqueueCopyBuffer entries over its
 * bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cl.h"

/* ---- Targets ------------------------------------------------------------------- */

static const target targets[] = {
    {"contiguous", 0.95, 0, ">=0.95"},
    {"slice", 0.70, 0, ">=0.70"},
    {"narrow", 0.70, 0, ">=0.70"},
    {"broadcast", 0.70, 0, ">=0.70"},
    {"flip", 0.70, 0, ">=0.70"},
    {"transpose", 0.50, 1.5, ">=0.50,>=1.5xCLBlast"},
    {"permute", 0.40, 0, ">=0.40"},
    {"transpose8/16", 0.40, 0, ">=0.40"},
    {"sub-byte", 0.25, 0, ">=0.25"},
    {"embedding", 0.80, 0, ">=0.80"},
    {"embedding4", 0.60, 0, ">=0.60"},
    {"take_along", 0.30, 0, ">=0.30"},
    {"scatter-unique", 0.80, 0, ">=0.80"},
    {"scatter", 0.50, 0, ">=0.50"},
    {"index-check", 0.90, 0, ">=0.90 of unchecked"},
    {"convert", 0.80, 0, ">=0.80 of copy"},
};

const target *find_target(const char *group) {
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (strcmp(targets[i].group, group) == 0) return &targets[i];
  return NULL;
}

/* ---- Cases --------------------------------------------------------------------------- */

#define S(...)                                                                                     \
  { __VA_ARGS__ }
const case_spec cases[] = {
    {"contiguous", "contiguous f32", 32, 1, S(16777216), MV_NONE, S(0), 0, 0, false},
    {"slice", "slice [:, ::2] f32 4096x4096", 32, 2, S(4096, 4096), MV_SLICE2, S(0), 0, 0, false},
    {"narrow", "narrow(2, 3, 250) f32 256^3", 32, 3, S(256, 256, 256), MV_NARROW, S(0), 3, 250,
     false},
    {"broadcast", "broadcast row [1,4096]->4096x4096 f32", 32, 2, S(4096, 4096), MV_BCAST_ROW, S(0),
     0, 0, false},
    {"broadcast", "broadcast column [4096,1]->4096x4096 f32", 32, 2, S(4096, 4096), MV_BCAST_COL,
     S(0), 0, 0, false},
    {"flip", "flip inner axis f32 4096x4096", 32, 2, S(4096, 4096), MV_FLIP, S(0), 0, 0, false},
    {"transpose", "transpose f32 4096x4096", 32, 2, S(4096, 4096), MV_PERMUTE, S(1, 0), 0, 0, true},
    {"transpose", "transpose f32 4000x3000", 32, 2, S(4000, 3000), MV_PERMUTE, S(1, 0), 0, 0, true},
    {"transpose", "transpose f32 3x1000003", 32, 2, S(3, 1000003), MV_PERMUTE, S(1, 0), 0, 0, true},
    {"transpose", "transpose f32 1000003x3", 32, 2, S(1000003, 3), MV_PERMUTE, S(1, 0), 0, 0, true},
    {"permute", "permute (2,1,0) f32 256^3", 32, 3, S(256, 256, 256), MV_PERMUTE, S(2, 1, 0), 0, 0,
     false},
    {"permute", "permute (1,0,2) f32 256^3", 32, 3, S(256, 256, 256), MV_PERMUTE, S(1, 0, 2), 0, 0,
     false},
    {"permute", "permute (0,2,1) f32 255x257x253", 32, 3, S(255, 257, 253), MV_PERMUTE, S(0, 2, 1),
     0, 0, false},
    {"permute", "permute (2,0,1) f32 255x257x253", 32, 3, S(255, 257, 253), MV_PERMUTE, S(2, 0, 1),
     0, 0, false},
    {"permute", "permute (0,2,3,1) f32 64^4", 32, 4, S(64, 64, 64, 64), MV_PERMUTE, S(0, 2, 3, 1),
     0, 0, false},
    {"permute", "permute (3,2,1,0) f32 64^4", 32, 4, S(64, 64, 64, 64), MV_PERMUTE, S(3, 2, 1, 0),
     0, 0, false},
    {"permute", "permute (0,3,1,2) f32 60x70x50x80", 32, 4, S(60, 70, 50, 80), MV_PERMUTE,
     S(0, 3, 1, 2), 0, 0, false},
    {"permute", "permute (2,0,3,1) f32 60x70x50x80", 32, 4, S(60, 70, 50, 80), MV_PERMUTE,
     S(2, 0, 3, 1), 0, 0, false},
    {"permute", "permute (4,3,2,1,0) f32 16x32x16x32x64", 32, 5, S(16, 32, 16, 32, 64), MV_PERMUTE,
     S(4, 3, 2, 1, 0), 0, 0, false},
    {"permute", "permute (0,2,1,4,3) f32 16x32x16x32x64", 32, 5, S(16, 32, 16, 32, 64), MV_PERMUTE,
     S(0, 2, 1, 4, 3), 0, 0, false},
    {"permute", "permute (1,3,0,4,2) f32 15x17x19x21x165", 32, 5, S(15, 17, 19, 21, 165),
     MV_PERMUTE, S(1, 3, 0, 4, 2), 0, 0, false},
    {"permute", "permute (4,1,3,0,2) f32 16x32x16x32x64", 32, 5, S(16, 32, 16, 32, 64), MV_PERMUTE,
     S(4, 1, 3, 0, 2), 0, 0, false},
    {"permute", "permute (7,6,5,4,3,2,1,0) f32 8^8", 32, 8, S(8, 8, 8, 8, 8, 8, 8, 8), MV_PERMUTE,
     S(7, 6, 5, 4, 3, 2, 1, 0), 0, 0, false},
    {"permute", "permute (1,0,3,2,5,4,7,6) f32 8^8", 32, 8, S(8, 8, 8, 8, 8, 8, 8, 8), MV_PERMUTE,
     S(1, 0, 3, 2, 5, 4, 7, 6), 0, 0, false},
    {"permute", "permute (0,2,4,6,1,3,5,7) f32 11x9x7x5x11x9x7x5", 32, 8,
     S(11, 9, 7, 5, 11, 9, 7, 5), MV_PERMUTE, S(0, 2, 4, 6, 1, 3, 5, 7), 0, 0, false},
    {"permute", "permute (7,1,5,3,6,0,4,2) f32 11x9x7x5x11x9x7x5", 32, 8,
     S(11, 9, 7, 5, 11, 9, 7, 5), MV_PERMUTE, S(7, 1, 5, 3, 6, 0, 4, 2), 0, 0, false},
    {"permute", "permute (7,1,5,3,6,0,4,2) f32 5x7x9x11x5x7x9x11", 32, 8,
     S(5, 7, 9, 11, 5, 7, 9, 11), MV_PERMUTE, S(7, 1, 5, 3, 6, 0, 4, 2), 0, 0, false},
    {"transpose8/16", "transpose u16 4096x8192", 16, 2, S(4096, 8192), MV_PERMUTE, S(1, 0), 0, 0,
     false},
    {"transpose8/16", "transpose u16 5000x6000", 16, 2, S(5000, 6000), MV_PERMUTE, S(1, 0), 0, 0,
     false},
    {"transpose8/16", "transpose u8 8192x8192", 8, 2, S(8192, 8192), MV_PERMUTE, S(1, 0), 0, 0,
     false},
    {"transpose8/16", "transpose u8 8000x8000", 8, 2, S(8000, 8000), MV_PERMUTE, S(1, 0), 0, 0,
     false},
    {"transpose8/16", "transpose u8 7000x9000", 8, 2, S(7000, 9000), MV_PERMUTE, S(1, 0), 0, 0,
     false},
    {"sub-byte", "transpose u4 8192x16384", 4, 2, S(8192, 16384), MV_PERMUTE, S(1, 0), 0, 0, false},
    {"sub-byte", "transpose u4 8192x8192", 4, 2, S(8192, 8192), MV_PERMUTE, S(1, 0), 0, 0, false},
    {"sub-byte", "transpose u4 9000x7000", 4, 2, S(9000, 7000), MV_PERMUTE, S(1, 0), 0, 0, false},
    {"sub-byte", "permute (0,3,1,2) u4 128x128x64x128", 4, 4, S(128, 128, 64, 128), MV_PERMUTE,
     S(0, 3, 1, 2), 0, 0, false},
    {"sub-byte", "transpose u1 16384x32768", 1, 2, S(16384, 32768), MV_PERMUTE, S(1, 0), 0, 0,
     false},
    {"sub-byte", "transpose u1 16384x16384", 1, 2, S(16384, 16384), MV_PERMUTE, S(1, 0), 0, 0,
     false},
    {"sub-byte", "transpose u1 20000x25000", 1, 2, S(20000, 25000), MV_PERMUTE, S(1, 0), 0, 0,
     false},
    {"sub-byte", "permute (0,2,3,1) u1 128x128x256x128", 1, 4, S(128, 128, 256, 128), MV_PERMUTE,
     S(0, 2, 3, 1), 0, 0, false},
};
#undef S
const int ncases = (int)(sizeof cases / sizeof cases[0]);

/* Bytes element positions [0, hi) take at `bits` bits. */
static size_t layout_bytes(const ndx_layout *l, int bits) {
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  return (size_t)((hi * bits + 7) / 8);
}

/* For --quick: halves the largest extent (never a narrowed axis, never below
 * 2) until the tensor takes at most `limit` bytes. */
static void shrink(const case_spec *c, int64_t *shape, int64_t limit) {
  for (;;) {
    int64_t n = 1;
    for (int a = 0; a < c->rank; a++) n *= shape[a];
    if (n * c->bits / 8 <= limit) return;
    int best = -1;
    for (int a = 0; a < c->rank; a++) {
      if (c->mv == MV_NARROW && a == c->rank - 1) continue;
      if (shape[a] >= 4 && (best < 0 || shape[a] > shape[best])) best = a;
    }
    if (best < 0) return;
    shape[best] =
        c->mv == MV_SLICE2 && best == c->rank - 1 ? shape[best] / 2 / 2 * 2 : (shape[best] + 1) / 2;
  }
}

/* A shape as the case names write it: "256^3" when rank >= 3 and every
 * extent is the same, else "4096x4096". */
static void fmt_shape(char *b, size_t n, int rank, const int64_t *shape) {
  bool same = rank >= 3;
  for (int a = 1; a < rank; a++) same = same && shape[a] == shape[0];
  if (same) {
    snprintf(b, n, "%lld^%d", (long long)shape[0], rank);
    return;
  }
  b[0] = '\0';
  for (int a = 0; a < rank; a++)
    snprintf(b + strlen(b), n - strlen(b), "%s%lld", a ? "x" : "", (long long)shape[a]);
}

/* Replaces the first `from` in `s` (of size n) by `to`; false when absent
 * or when the result would not fit. */
static bool replace_text(char *s, size_t n, const char *from, const char *to) {
  char *at = strstr(s, from);
  size_t lf = strlen(from), lt = strlen(to), ls = strlen(s);
  if (!at || ls - lf + lt >= n) return false;
  memmove(at + lt, at + lf, ls - (size_t)(at - s) - lf + 1);
  memcpy(at, to, lt);
  return true;
}

void case_shape(const env *e, const case_spec *c, int64_t *shape) {
  memcpy(shape, c->shape, sizeof c->shape);
  if (e->opts->quick) shrink(c, shape, e->tensor_bytes);
}

void case_run_name(const case_spec *c, const int64_t *shape, char *out, size_t n) {
  snprintf(out, n, "%s", c->name);
  if (memcmp(shape, c->shape, sizeof(int64_t) * (size_t)c->rank) == 0) return;
  char full[128], run[128];
  fmt_shape(full, sizeof full, c->rank, c->shape);
  fmt_shape(run, sizeof run, c->rank, shape);
  bool named = replace_text(out, n, full, run);
  if (c->mv == MV_BCAST_ROW || c->mv == MV_BCAST_COL) { /* the source: "[1,4096]", "[4096,1]" */
    int a = c->mv == MV_BCAST_ROW ? c->rank - 1 : 0;
    const char *f = c->mv == MV_BCAST_ROW ? "[1,%lld]" : "[%lld,1]";
    snprintf(full, sizeof full, f, (long long)c->shape[a]);
    snprintf(run, sizeof run, f, (long long)shape[a]);
    named = replace_text(out, n, full, run) && named;
  }
  if (!named) { /* a name that does not spell its size as the table's do */
    fmt_shape(run, sizeof run, c->rank, shape);
    snprintf(out + strlen(out), n - strlen(out), " (run at %s)", run);
  }
}

bool case_selected(const env *e, const case_spec *c, const char *only) {
  if (!only || strstr(c->name, only)) return true;
  int64_t shape[8];
  char name[160];
  case_shape(e, c, shape);
  case_run_name(c, shape, name, sizeof name);
  return strstr(name, only) != NULL;
}

ndx_status make_case(env *e, const case_spec *c, case_data *d, char *why, size_t whysz) {
  memset(d, 0, sizeof *d);
  case_shape(e, c, d->shape);
  case_run_name(c, d->shape, d->name, sizeof d->name);
  int r = c->rank;
  int64_t bshape[8];
  memcpy(bshape, d->shape, sizeof bshape);
  if (c->mv == MV_BCAST_ROW) bshape[0] = 1;
  if (c->mv == MV_BCAST_COL) bshape[r - 1] = 1;
  ndx_status s = ndx_contiguous(&d->base_l, r, bshape);
  if (s != NDX_OK) goto fail;
  switch (c->mv) {
  case MV_NONE:
    d->view_l = d->base_l;
    break;
  case MV_SLICE2: {
    ndx_range rg[8];
    for (int a = 0; a < r; a++) rg[a] = (ndx_range){0, d->shape[a], 1};
    rg[r - 1] = (ndx_range){0, d->shape[r - 1] / 2, 2};
    s = ndx_slice(&d->view_l, &d->base_l, rg);
    break;
  }
  case MV_NARROW:
    s = ndx_narrow(&d->view_l, &d->base_l, r - 1, c->start, c->len);
    break;
  case MV_BCAST_ROW:
  case MV_BCAST_COL:
    s = ndx_broadcast(&d->view_l, &d->base_l, r, d->shape);
    break;
  case MV_FLIP:
    s = ndx_flip(&d->view_l, &d->base_l, r - 1);
    break;
  case MV_PERMUTE:
    s = ndx_permute(&d->view_l, &d->base_l, c->perm);
    break;
  }
  if (s != NDX_OK) goto fail;
  s = ndx_contiguous(&d->dst_l, d->view_l.rank, d->view_l.shape);
  if (s != NDX_OK) goto fail;
  d->src_bytes = layout_bytes(&d->base_l, c->bits);
  d->dst_bytes = layout_bytes(&d->dst_l, c->bits);
  d->bytes = 2.0 * (double)ndx_numel(&d->view_l) * c->bits / 8.0;
  d->host = malloc(d->src_bytes);
  d->src = new_buffer(e, d->src_bytes);
  d->dst = new_buffer(e, d->dst_bytes);
  if (!d->host || !d->src || !d->dst) {
    snprintf(why, whysz, "out of memory for %zu + %zu bytes", d->src_bytes, d->dst_bytes);
    return NDX_ENOMEM;
  }
  if (c->bits == 32) /* finite normal floats: CLBlast scales by alpha, and a
                        NaN's payload or a denormal need not survive that */
    fill_random_f32(d->host, d->src_bytes, (uint64_t)(uintptr_t)c + 1);
  else
    fill_random(d->host, d->src_bytes, (uint64_t)(uintptr_t)c + 1);
  return upload(e, d->src, d->host, d->src_bytes, why, whysz) ? NDX_OK : NDX_EDEVICE;
fail:
  snprintf(why, whysz, "%s: %s", ndx_status_name(s), ndx_last_error());
  return s;
}

void free_case(case_data *d) {
  free(d->host);
  if (d->src) clReleaseMemObject(d->src);
  if (d->dst) clReleaseMemObject(d->dst);
}

/* Entries 0 and 1 of a case's group: the ceiling and clEnqueueCopyBuffer over
 * `bytes` read + written, from the case's source buffer into its destination
 * buffer, so that they meet the caches and pages ndx meets (the ceiling's own
 * buffers when the source is smaller: a broadcast). The caller releases
 * t[0].o.kernel. */
bool ceiling_entries(env *e, const case_data *d, entry *t) {
  size_t half = (size_t)(d->bytes / 2), moved;
  cl_mem dst = d->dst, src = d->src;
  size_t cap = d->dst_bytes;
  if (d->src_bytes < half) {
    dst = e->cdst;
    src = e->csrc;
    cap = e->cbytes;
  }
  if (!ceiling_op(e, e->ceil, dst, src, half, cap, &t[0].o, &moved)) return false;
  t[0].bytes = 2.0 * (double)moved;
  t[0].chk = NULL;
  memset(&t[1].o, 0, sizeof t[1].o);
  t[1].o.kind = OP_COPYBUF;
  t[1].o.e = e;
  t[1].o.dst = dst;
  t[1].o.src = src;
  t[1].o.bytes = half < cap ? half : cap;
  t[1].bytes = 2.0 * (double)t[1].o.bytes;
  t[1].chk = NULL;
  return true;
}

check case_check(const case_spec *c, const case_data *d) {
  return (check){.dst_l = &d->dst_l,
                 .src_l = &d->view_l,
                 .src = d->host,
                 .bits = c->bits,
                 .dst_bytes = d->dst_bytes};
}
