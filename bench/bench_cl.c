/* bench_cl.c: `ndx-bench --cl`: how fast ndx_cl_copy moves bytes on the
 * default OpenCL device, against the device's own copy bandwidth and peers.
 *
 * One process, one context, one in-order queue; every figure is measured in
 * this run. A figure is the host wall clock around enqueueing n copies and one
 * clFinish (PoCL's profiling events are checked once and printed, not used),
 * n sized by a warm-up as bench_time's (discarded), reported as the median of
 * the timed repetitions, in GB/s of bytes read plus bytes written (2 *
 * elements * width). The figures of one case are timed in turn, repetition by
 * repetition, so that a shared machine's load falls on all of them alike; a
 * ratio is the median over those turns of a figure's speed over the
 * ceiling's, each in bytes per second of what it moves (bench_paired): a
 * vectorized copy kernel of our own over the same byte count and the same
 * buffers where they hold it, else over its own buffers' (the fastest of
 * three variants, chosen once at start). clEnqueueCopyBuffer over those bytes is reported too.
 *
 * Peers, in the same run: a naive one-element-per-work-item kernel that maps
 * each index to its positions with ndx_device.h's ndx_position (bench_cl.cl);
 * clEnqueueCopyBufferRect wherever the copy is a pitched copy of rank <= 3;
 * CLBlast's CLBlastSomatcopy on the 2-d fp32 transposes (when built with
 * CLBlast; its first call compiles its kernels and is discarded).
 *
 * Every result, ndx's and each peer's, is checked once against the host
 * (every element of small copies, a random sample of large ones) before it
 * is timed; a wrong result prints WRONG and no figure.
 *
 * With --cases TEXT only the copy, gather, scatter and conversion cases
 * whose name contains TEXT run (no per-call costs).
 *
 * Output: a table on stdout, bench-cl.csv (the cases) and bench-cl-small.csv
 * (per-call costs, not with --cases) in the folder named by NDX_BENCH_OUT
 * (default: the current folder), and bench-cl.png, the chart bench/chart.py
 * draws from the CSV with /usr/bin/python3 and matplotlib; the last line
 * names the files really written. Under --quick the tensors are smaller and
 * each case's name carries the sizes it ran.
 *
 * This file is the section: the run and each case's group. Its parts:
 * bench_cl_env.c (the device, programs and the ceiling), bench_cl_ops.c
 * (operations and their timing), bench_cl_check.c (the host check),
 * bench_cl_cases.c (targets and cases), bench_cl_peers.c (naive kernel,
 * CopyBufferRect, CLBlast), bench_cl_report.c (table, CSV, chart),
 * bench_cl_small.c (per-call costs), bench_cl_index.c (gathers and
 * scatters), bench_cl_convert.c (conversions); bench_cl.h declares what they share.
 * The prototype kernels that tuned ndx's own are not here: ndx-tune-cl
 * (tune_cl.c), built beside ndx-bench and not installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cl.h"

/* The group of case c: the ceiling, clEnqueueCopyBuffer, ndx's plan and the
 * peers that take it, measured together into r; false (said) when it could
 * not be set up. */
static bool measure_case(env *e, const case_spec *c, case_data *d, case_figs *r) {
  check chk = case_check(c, d);
  entry *t = calloc(T_COUNT, sizeof *t);
  if (!t) {
    printf("%-44s out of host memory\n", c->name);
    e->errors++;
    return false;
  }
  bool use[T_COUNT] = {false};
  fig fail[T_COUNT];
  memset(fail, 0, sizeof fail);
  use[T_CEIL] = use[T_COPYBUF] = ceiling_entries(e, d, t);
  if (!use[T_CEIL]) {
    fail[T_CEIL].state = -2;
    snprintf(fail[T_CEIL].why, sizeof fail[T_CEIL].why, "the ceiling kernel failed");
  }

  ndx_cl_plan *plan = NULL;
  r->path = "-";
  ndx_status s = ndx_cl_plan_create(&plan, e->ndx, &d->dst_l, &d->view_l, c->bits);
  if (s != NDX_OK) {
    fail[T_NDX].state = -2;
    snprintf(fail[T_NDX].why, sizeof fail[T_NDX].why, "ndx_cl_plan_create: %s: %s",
             ndx_status_name(s), ndx_last_error());
  } else {
    r->path = ndx_cl_plan_path(plan);
    t[T_NDX].o = (op){.kind = OP_PLAN, .e = e, .dst = d->dst, .src = d->src, .plan = plan};
    use[T_NDX] = true;
  }
  cl_mem pack = NULL;
  if (naive_op(e, c, d, &t[T_NAIVE].o, &pack, fail[T_NAIVE].why, sizeof fail[T_NAIVE].why))
    use[T_NAIVE] = true;
  else
    fail[T_NAIVE].state = -2;
  use[T_RECT] = rect_op(e, c, d, &t[T_RECT].o);
  use[T_BLAST] = clblast_op(e, c, d, &t[T_BLAST].o);
  int idx[T_COUNT], n = 0;
  for (int k = 0; k < T_COUNT; k++) {
    if (!use[k]) continue;
    if (k >= T_NDX) {
      t[k].bytes = d->bytes;
      t[k].chk = &chk;
    }
    idx[n++] = k;
  }
  /* measure the used entries together: move them to the front */
  entry *packed = calloc((size_t)(n ? n : 1), sizeof *packed);
  memcpy(r->f, fail, sizeof r->f);
  r->vs_blast = 0;
  if (packed) {
    int in = -1, ib = -1;
    for (int i = 0; i < n; i++) {
      packed[i] = t[idx[i]];
      if (idx[i] == T_NDX) in = i;
      if (idx[i] == T_BLAST) ib = i;
    }
    measure_group(e, packed, n);
    for (int i = 0; i < n; i++) r->f[idx[i]] = packed[i].f;
    if (in >= 0 && ib >= 0) r->vs_blast = paired(&packed[in], &packed[ib], false);
  }
  if (t[T_CEIL].o.kernel) clReleaseKernel(t[T_CEIL].o.kernel);
  if (t[T_NAIVE].o.kernel) clReleaseKernel(t[T_NAIVE].o.kernel);
  if (pack) clReleaseMemObject(pack);
  ndx_cl_plan_destroy(plan);
  free(packed);
  free(t);
  return true;
}

static void run_case(env *e, const case_spec *c) {
  case_data d;
  char why[512] = "";
  case_figs r;
  if (make_case(e, c, &d, why, sizeof why) != NDX_OK) {
    printf("%-44s setup failed: %s\n", c->name, why);
    e->errors++;
  } else if (measure_case(e, c, &d, &r)) {
    report_case(e, c, &d, &r);
  }
  free_case(&d);
}

int bench_cl(const bench_opts *opts) {
  env e = {0};
  const char *out = getenv("NDX_BENCH_OUT");
  e.out_dir = opts->out && strcmp(opts->out, ".") != 0 ? opts->out : out && *out ? out : ".";
  uint64_t t_start = bench_now_ns();

  if (!env_open(&e, opts, "--cl")) {
    env_close(&e);
    return 1;
  }
  warm_clblast(&e);

  char csvp[4096];
  report_open(&e, csvp, sizeof csvp);
  for (int i = 0; i < ncases; i++)
    if (case_selected(&e, &cases[i], opts->only)) run_case(&e, &cases[i]);
  run_index_cases(&e, opts->only);
  run_convert_cases(&e, opts->only);
  bool csv_written = report_close(&e, csvp);

  if (!opts->only) run_small(&e);
  run_kv_cache(&e, opts->only);
  env_close(&e);
  print_load("at end");

  printf("\n--cl: %d of %d targets met%s%s; %d wrong results, %d failures; %.0f s\n", e.met,
         e.met + e.missed, e.missed ? "; missed: " : "", e.misses, e.wrong, e.errors,
         (double)(bench_now_ns() - t_start) * 1e-9);
  if (csv_written) draw_chart(&e, csvp);
  report_written(&e);
  return e.wrong || e.errors ? 1 : 0;
}
