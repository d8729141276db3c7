/* bench_cl_small.c: the per-call costs of `ndx-bench --cl`: ndx_cl_copy and
 * a plan's enqueue on copies of one element and of 4 KiB (contiguous, a
 * 32x32 transpose), n calls before one clFinish, against a raw enqueue of a
 * trivial kernel and of a 4-byte clEnqueueCopyBuffer; a table on stdout and
 * bench-cl-small.csv. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cl.h"

#define SMALL_TARGET 1.5 /* one-element copy end to end / raw trivial enqueue */

void run_small(env *e) {
  printf("\nper call (n calls, one clFinish)              path       us/call  / raw  target\n");
  cl_int err;
  cl_mem a = new_buffer(e, 1 << 16), b = new_buffer(e, 1 << 16);
  static uint8_t host[1 << 16];
  fill_random(host, sizeof host, 99);
  if (!a || !b ||
      clEnqueueWriteBuffer(e->q, b, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL) != CL_SUCCESS) {
    printf("small copies: buffer setup failed\n");
    e->errors++;
    if (a) clReleaseMemObject(a);
    if (b) clReleaseMemObject(b);
    return;
  }
  cl_kernel triv = clCreateKernel(e->prog[0], "bench_trivial", &err);
  if (err != CL_SUCCESS) {
    printf("small copies: clCreateKernel(bench_trivial): %s\n", cl_err(err));
    e->errors++;
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    return;
  }
  clSetKernelArg(triv, 0, sizeof(cl_mem), &a);

  ndx_layout one, c4k, t_src, t_dst, base;
  ndx_contiguous(&one, 1, (const int64_t[]){1});
  ndx_contiguous(&c4k, 1, (const int64_t[]){1024});
  ndx_contiguous(&base, 2, (const int64_t[]){32, 32});
  ndx_transpose(&t_src, &base, 0, 1);
  ndx_contiguous(&t_dst, 2, (const int64_t[]){32, 32});

  enum { NSMALL = 8 };
  entry *t = calloc(NSMALL, sizeof *t);
  const char *names[NSMALL], *paths[NSMALL];
  ndx_cl_plan *plans[3] = {NULL, NULL, NULL};
  check chks[3];
  if (!t) {
    printf("small copies: out of host memory\n");
    e->errors++;
    clReleaseKernel(triv);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    return;
  }
  int n = 0;
  t[n].o =
      (op){.kind = OP_KERNEL, .e = e, .kernel = triv, .global = 1, .local = 1, .dst = a, .src = a};
  names[n] = "raw clEnqueueNDRangeKernel (trivial kernel)";
  paths[n++] = "-";
  t[n].o = (op){.kind = OP_COPYBUF, .e = e, .dst = a, .src = b, .bytes = 4};
  names[n] = "raw clEnqueueCopyBuffer 4 bytes";
  paths[n++] = "-";
  struct {
    const char *copy, *plan;
    const ndx_layout *d, *s;
  } sm[3] = {
      {"ndx_cl_copy 1 element f32", "plan enqueue 1 element f32", &one, &one},
      {"ndx_cl_copy 4 KiB f32 contiguous", "plan enqueue 4 KiB f32 contiguous", &c4k, &c4k},
      {"ndx_cl_copy 4 KiB f32 transpose 32x32", "plan enqueue 4 KiB f32 transpose 32x32", &t_dst,
       &t_src},
  };
  const int target_row = 2; /* ndx_cl_copy 1 element */
  for (int k = 0; k < 3; k++) {
    chks[k] =
        (check){.dst_l = sm[k].d, .src_l = sm[k].s, .src = host, .bits = 32, .dst_bytes = 4096};
    const char *path = "-";
    if (ndx_cl_plan_create(&plans[k], e->ndx, sm[k].d, sm[k].s, 32) == NDX_OK)
      path = ndx_cl_plan_path(plans[k]);
    t[n].o = (op){.kind = OP_COPY,
                  .e = e,
                  .dst = a,
                  .src = b,
                  .dst_l = sm[k].d,
                  .src_l = sm[k].s,
                  .bits = 32};
    t[n].chk = &chks[k];
    names[n] = sm[k].copy;
    paths[n++] = path;
    if (plans[k]) {
      t[n].o = (op){.kind = OP_PLAN, .e = e, .dst = a, .src = b, .plan = plans[k]};
      t[n].chk = &chks[k];
      names[n] = sm[k].plan;
      paths[n++] = path;
    }
  }
  measure_group(e, t, n);
  double raw = t[0].f.state == 1 ? t[0].f.ns : 0;

  char p[4096];
  snprintf(p, sizeof p, "%s/bench-cl-small.csv", e->out_dir);
  FILE *csv = fopen(p, "w");
  if (!csv) printf("%s: cannot write %s: %s\n", e->who, p, strerror(errno));
  if (csv) fprintf(csv, "case,path,us_per_call,ratio_to_raw_kernel,target,met\n");
  for (int k = 0; k < n; k++) {
    fig *f = &t[k].f;
    double ratio = f->state == 1 && raw > 0 ? f->time_ratio : 0;
    bool is_t = k == target_row;
    bool met = is_t && f->state == 1 && ratio <= SMALL_TARGET;
    if (is_t) count_target(e, names[k], met);
    if (f->state == 1)
      printf("%-46s %-9s %8.2f %6.2f  %s\n", names[k], paths[k], f->ns * 1e-3, ratio,
             is_t ? (met ? "<=1.5  yes" : "<=1.5  NO") : "");
    else
      printf("%-46s %-9s %s\n", names[k], paths[k], f->state == -1 ? "WRONG" : "FAILED");
    note_problem(e, "small", names[k], f);
    if (csv)
      fprintf(csv, "\"%s\",%s,%.4f,%.4f,%s,%s\n", names[k], paths[k], f->ns * 1e-3, ratio,
              is_t ? "<=1.5" : "", is_t ? (met ? "yes" : "no") : "");
  }
  if (csv) {
    bool ok = !ferror(csv);
    if (fclose(csv) == 0 && ok)
      note_written(e, p);
    else
      printf("%s: writing %s failed: %s\n", e->who, p, strerror(errno));
  }
  for (int k = 0; k < 3; k++) ndx_cl_plan_destroy(plans[k]);
  free(t);
  clReleaseKernel(triv);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
}

/* ---- KV-cache row writes ----------------------------------------------------------- */

#define KV_TARGET 2.0 /* one row written through an index plan / raw trivial enqueue */

static const char kv_name[] = "kv-cache write 1 row of 512 bytes";

/* One 512-byte row (u8 [1, 512]) scattered into a [4096, 512] table at slot
 * 1234 through an index plan made once, against a raw clEnqueueNDRangeKernel
 * of the trivial kernel: the cost per call end to end (each call, then
 * clFinish: the target's figure), and pipelined (n calls, one clFinish).
 * With NDX_INDEX_UNIQUE (the target's row: a fill, two kernels and a
 * read-back) and without (a claims table: one fill more). The row is
 * checked once. */
void run_kv_cache(env *e, const char *only) {
  if (only && !strstr(kv_name, only)) return;
  enum { SLOTS = 4096, ROW = 512, SLOT = 1234 };
  printf("\nper call                                        flags      us/call  / raw  target\n");
  cl_int err;
  static uint8_t row[ROW], got[ROW];
  fill_random(row, sizeof row, 77);
  int32_t slot = SLOT;
  cl_mem table = new_buffer(e, (size_t)SLOTS * ROW), src = new_buffer(e, ROW),
         index = new_buffer(e, sizeof slot), scratch = new_buffer(e, 4096);
  cl_kernel triv = NULL;
  ndx_cl_index_plan *plans[2] = {NULL, NULL};
  entry t[3];
  memset(t, 0, sizeof t);
  const char *why = NULL;
  if (!table || !src || !index || !scratch ||
      clEnqueueWriteBuffer(e->q, src, CL_TRUE, 0, ROW, row, 0, NULL, NULL) != CL_SUCCESS ||
      clEnqueueWriteBuffer(e->q, index, CL_TRUE, 0, sizeof slot, &slot, 0, NULL, NULL) !=
          CL_SUCCESS)
    why = "buffer setup failed";
  if (!why) {
    triv = clCreateKernel(e->prog[0], "bench_trivial", &err);
    if (err != CL_SUCCESS) why = "clCreateKernel(bench_trivial) failed";
  }
  ndx_layout rows, tab, ids, col, index_l;
  ndx_contiguous(&rows, 2, (const int64_t[]){1, ROW});
  ndx_contiguous(&tab, 2, (const int64_t[]){SLOTS, ROW});
  ndx_contiguous(&ids, 1, (const int64_t[]){1});
  ndx_unsqueeze(&col, &ids, 1);
  ndx_broadcast(&index_l, &col, 2, (const int64_t[]){1, ROW});
  const unsigned flags[2] = {NDX_INDEX_UNIQUE, 0};
  for (int k = 0; k < 2 && !why; k++)
    if (ndx_cl_index_plan_create_scatter(&plans[k], e->ndx, &tab, &rows, 0, &index_l, 32, flags[k],
                                         8) != NDX_OK)
      why = ndx_last_error();
  /* the check: the row lands at its slot */
  for (int k = 0; k < 2 && !why; k++) {
    static uint8_t zero[ROW];
    clEnqueueWriteBuffer(e->q, table, CL_TRUE, (size_t)SLOT * ROW, ROW, zero, 0, NULL, NULL);
    if (ndx_cl_index_plan_enqueue(plans[k], e->q, table, src, index, 0, NULL, NULL) != NDX_OK ||
        ndx_cl_check(e->ndx) != NDX_OK)
      why = ndx_last_error();
    else if (clEnqueueReadBuffer(e->q, table, CL_TRUE, (size_t)SLOT * ROW, ROW, got, 0, NULL,
                                 NULL) != CL_SUCCESS ||
             memcmp(got, row, ROW) != 0)
      why = "the row did not land at its slot";
  }
  if (why) {
    printf("%s: %s\n", kv_name, why);
    e->errors++;
  } else {
    clSetKernelArg(triv, 0, sizeof(cl_mem), &scratch);
    const char *names[3] = {"raw clEnqueueNDRangeKernel (trivial kernel)", kv_name,
                            "kv-cache write 1 row of 512 bytes, claims"};
    const char *fl[3] = {"-", "UNIQUE", "0"};
    for (int each = 1; each >= 0; each--) {
      memset(t, 0, sizeof t);
      t[0].o =
          (op){.kind = OP_KERNEL, .e = e, .kernel = triv, .global = 1, .local = 1, .dst = scratch};
      for (int k = 0; k < 2; k++)
        t[1 + k].o = (op){.kind = OP_INDEX_PLAN,
                          .e = e,
                          .iplan = plans[k],
                          .dst = table,
                          .src = src,
                          .index = index};
      for (int k = 0; k < 3; k++) t[k].o.finish_each = each;
      measure_group(e, t, 3);
      printf("%s\n",
             each ? "end to end (each call, then clFinish)" : "pipelined (n calls, one clFinish)");
      for (int k = 0; k < 3; k++) {
        fig *f = &t[k].f;
        bool is_t = each && k == 1;
        bool met = is_t && f->state == 1 && f->time_ratio <= KV_TARGET;
        if (is_t) count_target(e, names[k], met);
        if (f->state == 1)
          printf("  %-44s %-9s %8.2f %6.2f  %s\n", names[k], fl[k], f->ns * 1e-3, f->time_ratio,
                 is_t ? (met ? "<=2.0  yes" : "<=2.0  NO") : "");
        else
          printf("  %-44s %-9s %s\n", names[k], fl[k], f->state == -1 ? "WRONG" : "FAILED");
        note_problem(e, "kv-cache", names[k], f);
      }
    }
    ndx_cl_check(e->ndx);
  }
  for (int k = 0; k < 2; k++) ndx_cl_index_plan_destroy(plans[k]);
  if (triv) clReleaseKernel(triv);
  if (table) clReleaseMemObject(table);
  if (src) clReleaseMemObject(src);
  if (index) clReleaseMemObject(index);
  if (scratch) clReleaseMemObject(scratch);
}
