/* bench_cl_ops.c: one timed operation of `ndx-bench --cl` (an ndx plan,
 * ndx_cl_copy or ndx_cl_convert call, a raw kernel, clEnqueueCopyBuffer, clEnqueueCopyBufferRect
 * or CLBlastSomatcopy), enqueued n times before one clFinish, and groups of
 * operations measured together: each checked once against the host, sized by
 * a discarded warm-up, then timed repetition by repetition in turn, so that a
 * shared machine's load falls on all of them alike. */
#include <stdio.h>
#include <string.h>

#include "bench_cl.h"
#include "device/cl_internal.h"

#ifdef NDX_HAVE_CLBLAST
#include <clblast_c.h>
#endif

static bool op_enqueue(op *o) {
  cl_int err = CL_SUCCESS;
  ndx_status s = NDX_OK;
  cl_command_queue q = o->e->q;
  switch (o->kind) {
  case OP_PLAN:
    s = ndx_cl_plan_enqueue(o->plan, q, o->dst, o->src, 0, NULL, NULL);
    break;
  case OP_COPY:
    s = ndx_cl_copy(o->e->ndx, q, o->dst, o->dst_l, o->src, o->src_l, o->bits, 0, NULL, NULL);
    break;
  case OP_CONVERT:
    s = ndx_cl_convert(o->e->ndx, q, o->dst, o->dst_l, o->dst_t, o->src, o->src_l, o->src_t, 0,
                       NULL, NULL);
    break;
  case OP_INDEX:
    s = ndx_cl_index_flags(o->scatter, o->internal, o->e->ndx, q, o->dst, o->dst_l, o->src,
                           o->src_l, o->axis, o->index, o->index_l, 32, o->index_flags, o->bits, 0,
                           NULL, NULL);
    break;
  case OP_INDEX_PLAN:
    s = ndx_cl_index_plan_enqueue(o->iplan, q, o->dst, o->src, o->index, 0, NULL, NULL);
    break;
  case OP_KERNEL:
    err = clEnqueueNDRangeKernel(q, o->kernel, 1, NULL, &o->global, o->local ? &o->local : NULL, 0,
                                 NULL, NULL);
    break;
  case OP_COPYBUF:
    err = clEnqueueCopyBuffer(q, o->src, o->dst, o->src_off, o->dst_off, o->bytes, 0, NULL, NULL);
    break;
  case OP_RECT:
    err = clEnqueueCopyBufferRect(q, o->src, o->dst, o->so, o->dox, o->region, o->srp, o->ssp,
                                  o->drp, o->dsp, 0, NULL, NULL);
    break;
  case OP_CLBLAST:
#ifdef NDX_HAVE_CLBLAST
  {
    cl_event ev = NULL;
    CLBlastStatusCode c = CLBlastSomatcopy(CLBlastLayoutRowMajor, CLBlastTransposeYes, o->m, o->n,
                                           1.0f, o->src, 0, o->lda, o->dst, 0, o->ldb, &q, &ev);
    if (ev) clReleaseEvent(ev);
    if (c != CLBlastSuccess) {
      snprintf(o->why, sizeof o->why, "CLBlastSomatcopy returned %d", (int)c);
      o->failed = true;
      return false;
    }
  }
#endif
  break;
  }
  if (s != NDX_OK) {
    snprintf(o->why, sizeof o->why, "%s: %s", ndx_status_name(s), ndx_last_error());
    o->failed = true;
  } else if (err != CL_SUCCESS) {
    snprintf(o->why, sizeof o->why, "enqueue failed: %s", cl_err(err));
    o->failed = true;
  }
  return !o->failed;
}

/* bench_fn: n operations, then one clFinish. */
void op_run(void *ctx, int64_t n) {
  op *o = ctx;
  for (int64_t i = 0; i < n && !o->failed; i++) {
    op_enqueue(o);
    if (o->finish_each && i + 1 < n) clFinish(o->e->q);
  }
  cl_int err = clFinish(o->e->q);
  if (err != CL_SUCCESS && !o->failed) {
    snprintf(o->why, sizeof o->why, "clFinish: %s", cl_err(err));
    o->failed = true;
  }
}

/* The median over the repetitions both timed of a's speed / b's (time: a's
 * time / b's); 0 when b was not measured. */
double paired(const entry *a, const entry *b, bool time) {
  if (b->f.state != 1 || a->f.state != 1) return 0;
  int m = a->reps < b->reps ? a->reps : b->reps;
  return bench_paired(a->per, a->bytes, b->per, b->bytes, m, time);
}

static double run_ns(op *o, int64_t n) {
  uint64_t t0 = bench_now_ns();
  op_run(o, n);
  return (double)(bench_now_ns() - t0);
}

/* True iff x's operation has failed; its figure then says so and why. */
static bool failed(entry *x) {
  if (!x->o.failed) return false;
  x->f.state = -2;
  snprintf(x->f.why, sizeof x->f.why, "%s", x->o.why);
  return true;
}

/* Seconds of one run of op `ctx` (bench_probe_s's second run). */
static double run_once_s(void *ctx) {
  return run_ns(ctx, 1) * 1e-9;
}

/* Checks each entry once, sizes and warms it up, then times the entries'
 * repetitions interleaved (repetition k of every entry, then k+1), so that a
 * load that comes and goes on a shared machine lands on all of them alike
 * and their ratios stay fair: each entry's ratio to entry 0 is the median of
 * the ratios of repetitions timed side by side. An operation of SLOW_S or
 * more runs one per repetition, with as many repetitions as the budget
 * allows, 3 at least; one of VERY_SLOW_S or more is timed once. Slow is
 * said by bench_probe_s: the check run, or where that took SLOW_S or more
 * (a kernel compiled at its first enqueue), a second run, which is then the
 * warm-up, or the one timing. */
void measure_group(env *e, entry *t, int count) {
  const bench_opts *fo = &e->fig_opts;
  int most = 0;
  for (int i = 0; i < count; i++) {
    entry *x = &t[i];
    x->f = (fig){0};
    x->reps = x->done = 0;
    if (x->chk) {
      const uint8_t pattern = 0xa5;
      cl_int err =
          clEnqueueFillBuffer(e->q, x->o.dst, &pattern, 1, 0, x->chk->dst_bytes, 0, NULL, NULL);
      if (err == CL_SUCCESS) err = clFinish(e->q);
      if (err != CL_SUCCESS) {
        x->f.state = -2;
        snprintf(x->f.why, sizeof x->f.why, "clEnqueueFillBuffer: %s", cl_err(err));
        continue;
      }
    }
    double first = run_ns(&x->o, 1) * 1e-9; /* the check run */
    if (failed(x)) continue;
    if (x->chk && !check_result(e, x->o.dst, x->chk, x->f.why, sizeof x->f.why)) {
      x->f.state = -1;
      continue;
    }
    double probe = bench_probe_s(first, SLOW_S, run_once_s, &x->o);
    if (failed(x)) continue;
    double per_s = probe;
    x->n = 1;
    if (probe < SLOW_S) { /* warm-up, discarded: grow n until a run lasts min_rep_s */
      for (;;) {
        double ns = run_ns(&x->o, x->n);
        per_s = ns * 1e-9 / (double)x->n;
        if (ns * 1e-9 >= fo->min_rep_s || x->n >= (INT64_C(1) << 30) || x->o.failed) break;
        double grow = ns > 0 ? fo->min_rep_s * 1e9 / ns * 1.25 : 100;
        x->n = grow > 100 ? x->n * 100 : grow < 2 ? x->n * 2 : (int64_t)((double)x->n * grow);
      }
    }
    double rep_s = per_s * (double)x->n;
    x->reps = fo->reps < BENCH_REPS_MAX ? fo->reps : BENCH_REPS_MAX;
    if (rep_s * x->reps > e->budget_s) {
      int r = (int)(e->budget_s / rep_s);
      x->reps = r >= 3 ? r : 3;
    }
    if (probe >= VERY_SLOW_S) {
      x->reps = x->done = 1;
      x->per[0] = probe * 1e9;
    }
    x->f.state = 1;
    if (x->reps > most) most = x->reps;
  }
  for (int k = 0; k < most; k++)
    for (int i = 0; i < count; i++) {
      entry *x = &t[i];
      if (x->f.state != 1 || k >= x->reps || k < x->done) continue;
      x->per[k] = run_ns(&x->o, x->n) / (double)x->n;
      failed(x);
    }
  for (int i = 0; i < count; i++) {
    entry *x = &t[i];
    if (x->f.state != 1) continue;
    x->f.reps = x->reps;
    x->f.ratio = paired(x, &t[0], false);
    x->f.time_ratio = paired(x, &t[0], true);
  }
  for (int i = 0; i < count; i++) { /* medians last: bench_median reorders */
    entry *x = &t[i];
    if (x->f.state != 1) continue;
    x->f.ns = bench_median(x->per, x->reps);
    x->f.gbs = x->bytes / x->f.ns;
  }
}
