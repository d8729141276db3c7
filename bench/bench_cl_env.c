/* bench_cl_env.c: the environment of `ndx-bench --cl` and ndx-tune-cl: the
 * default OpenCL device, one context, one in-order queue, ndx, bench_cl.cl's
 * two programs, and the ceiling every ratio is to: a vectorized copy kernel
 * of our own (the fastest of three variants, chosen once at start). Also the
 * small helpers every file uses (errors, buffers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cl.h"

/* bench_cl.cl with ndx_device.h inlined (bench/meson.build, tools/embed.py). */
extern const char ndx_bench_cl_source[];
extern const size_t ndx_bench_cl_source_size;

const char *cl_err(cl_int e) {
  static char buf[32];
  snprintf(buf, sizeof buf, "OpenCL error %d", (int)e);
  return buf;
}

cl_mem new_buffer(env *e, size_t bytes) {
  cl_int err;
  cl_mem m = clCreateBuffer(e->ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
  return err == CL_SUCCESS ? m : NULL;
}

bool upload(env *e, cl_mem m, const void *host, size_t n, char *why, size_t whysz) {
  cl_int err = clEnqueueWriteBuffer(e->q, m, CL_TRUE, 0, n, host, 0, NULL, NULL);
  if (err != CL_SUCCESS) snprintf(why, whysz, "clEnqueueWriteBuffer: %s", cl_err(err));
  return err == CL_SUCCESS;
}

/* ---- Programs ------------------------------------------------------------------ */

cl_program build_program(env *e, const char *name, const char *src, size_t len,
                         const char *options) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(e->ctx, 1, &src, &len, &err);
  if (err != CL_SUCCESS) return NULL;
  err = clBuildProgram(p, 1, &e->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(p, e->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    printf("%s does not build (%s): %s\n", name, cl_err(err), log);
    clReleaseProgram(p);
    return NULL;
  }
  return p;
}

static bool build_bench_programs(env *e) {
  for (int wide = 0; wide < 2; wide++) {
    e->prog[wide] =
        build_program(e, "bench_cl.cl", ndx_bench_cl_source, ndx_bench_cl_source_size,
                      wide ? "-cl-std=CL1.2 -DNDX_WIDE=1" : "-cl-std=CL1.2 -DNDX_WIDE=0");
    if (!e->prog[wide]) return false;
  }
  return true;
}

/* ---- Setup ----------------------------------------------------------------------- */

static bool setup(env *e) {
  cl_platform_id plat;
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(1, &plat, &np);
  if (err != CL_SUCCESS || np == 0) {
    printf("%s: no OpenCL platform (%s)\n", e->who, cl_err(err));
    return false;
  }
  err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_DEFAULT, 1, &e->device, NULL);
  if (err != CL_SUCCESS) {
    printf("%s: no OpenCL device (%s)\n", e->who, cl_err(err));
    return false;
  }
  char name[256] = "", pver[256] = "";
  cl_uint cus = 0;
  clGetDeviceInfo(e->device, CL_DEVICE_NAME, sizeof name, name, NULL);
  clGetDeviceInfo(e->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
  clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof pver, pver, NULL);
  printf("\nOpenCL: %s, %u compute units (%s)\n", name, cus, pver);
  e->ctx = clCreateContext(NULL, 1, &e->device, NULL, NULL, &err);
  if (err != CL_SUCCESS) {
    printf("%s: clCreateContext: %s\n", e->who, cl_err(err));
    return false;
  }
  e->q = clCreateCommandQueue(e->ctx, e->device, 0, &err);
  if (err != CL_SUCCESS) {
    printf("%s: clCreateCommandQueue: %s\n", e->who, cl_err(err));
    return false;
  }
  uint64_t t0 = bench_now_ns();
  ndx_status s = ndx_cl_create(&e->ndx, e->ctx, e->device);
  if (s != NDX_OK) {
    printf("%s: ndx_cl_create: %s: %s\n", e->who, ndx_status_name(s), ndx_last_error());
    return false;
  }
  printf("ndx_cl_create: %.2f s\n", (double)(bench_now_ns() - t0) * 1e-9);
  if (!build_bench_programs(e)) return false;
  e->cbytes = (size_t)e->tensor_bytes;
  e->csrc = new_buffer(e, e->cbytes);
  e->cdst = new_buffer(e, e->cbytes);
  if (!e->csrc || !e->cdst) {
    printf("%s: cannot allocate the ceiling's buffers\n", e->who);
    return false;
  }
  return true;
}

void env_close(env *e) {
  if (e->csrc) clReleaseMemObject(e->csrc);
  if (e->cdst) clReleaseMemObject(e->cdst);
  for (int w = 0; w < 2; w++)
    if (e->prog[w]) clReleaseProgram(e->prog[w]);
  ndx_cl_destroy(e->ndx);
  if (e->q) clReleaseCommandQueue(e->q);
  if (e->ctx) clReleaseContext(e->ctx);
}

void print_load(const char *when) {
  char buf[128] = "?";
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (!fgets(buf, sizeof buf, f)) snprintf(buf, sizeof buf, "?\n");
    fclose(f);
  }
  printf("load average %s: %s", when, buf);
}

/* ---- The ceiling ------------------------------------------------------------------- */

enum { CEIL_V4, CEIL_V4X16, CEIL_V16, CEIL_VARIANTS };
static const char *const ceil_name[CEIL_VARIANTS] = {"bench_copy_v4", "bench_copy_v4x16",
                                                     "bench_copy_v16"};
/* bytes each work-item copies, and the work-group size used */
static const size_t ceil_item_bytes[CEIL_VARIANTS] = {16, 256, 64};
static const size_t ceil_local[CEIL_VARIANTS] = {256, 64, 128};

bool ceiling_op(env *e, int v, cl_mem dst, cl_mem src, size_t bytes, size_t cap, op *o,
                size_t *moved) {
  memset(o, 0, sizeof *o);
  o->kind = OP_KERNEL;
  o->e = e;
  o->dst = dst;
  o->src = src;
  size_t per_group = ceil_item_bytes[v] * ceil_local[v];
  if (bytes > cap) bytes = cap;
  size_t groups = bytes / per_group;
  if (groups == 0) return false;
  o->local = ceil_local[v];
  o->global = groups * ceil_local[v];
  *moved = groups * per_group;
  cl_int err;
  o->kernel = clCreateKernel(e->prog[0], ceil_name[v], &err);
  if (err != CL_SUCCESS) return false;
  clSetKernelArg(o->kernel, 0, sizeof(cl_mem), &src);
  clSetKernelArg(o->kernel, 1, sizeof(cl_mem), &dst);
  return true;
}

/* Checks the three variants on the largest byte count, times them together
 * and keeps the fastest as the ceiling for the run. */
static bool choose_ceiling(env *e) {
  uint8_t *h = malloc(e->cbytes), *back = malloc(e->cbytes);
  entry *t = calloc(CEIL_VARIANTS, sizeof *t);
  bool ok[CEIL_VARIANTS] = {false};
  bool good = h && back && t;
  if (good) {
    fill_random(h, e->cbytes, 7);
    good =
        clEnqueueWriteBuffer(e->q, e->csrc, CL_TRUE, 0, e->cbytes, h, 0, NULL, NULL) == CL_SUCCESS;
  }
  for (int v = 0; v < CEIL_VARIANTS && good; v++) {
    size_t moved;
    if (!ceiling_op(e, v, e->cdst, e->csrc, e->cbytes, e->cbytes, &t[v].o, &moved)) {
      good = false;
      break;
    }
    t[v].bytes = 2.0 * (double)moved;
    memset(back, 0, e->cbytes);
    clEnqueueWriteBuffer(e->q, e->cdst, CL_TRUE, 0, e->cbytes, back, 0, NULL, NULL);
    op_run(&t[v].o, 1);
    ok[v] =
        !t[v].o.failed &&
        clEnqueueReadBuffer(e->q, e->cdst, CL_TRUE, 0, moved, back, 0, NULL, NULL) == CL_SUCCESS &&
        memcmp(back, h, moved) == 0;
  }
  double best = 0;
  if (good) {
    measure_group(e, t, CEIL_VARIANTS);
    printf("ceiling: a vectorized copy kernel, %.0f MiB read + %.0f MiB written:",
           (double)e->cbytes / 1048576.0, (double)e->cbytes / 1048576.0);
    for (int v = 0; v < CEIL_VARIANTS; v++) {
      printf(" %s %.2f GB/s%s;", ceil_name[v] + 6, t[v].f.gbs, ok[v] ? "" : " (WRONG)");
      if (ok[v] && t[v].f.state == 1 && t[v].f.gbs > best) best = t[v].f.gbs, e->ceil = v;
    }
    printf(" using %s\n", ceil_name[e->ceil] + 6);
  }
  for (int v = 0; t && v < CEIL_VARIANTS; v++)
    if (t[v].o.kernel) clReleaseKernel(t[v].o.kernel);
  free(t);
  free(h);
  free(back);
  return best > 0;
}

/* PoCL's event profiling, against the wall clock, once, on the ceiling. */
static void check_profiling(env *e) {
  cl_int err;
  cl_command_queue pq = clCreateCommandQueue(e->ctx, e->device, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) return;
  op o;
  size_t moved;
  if (!ceiling_op(e, e->ceil, e->cdst, e->csrc, e->cbytes, e->cbytes, &o, &moved)) {
    clReleaseCommandQueue(pq);
    return;
  }
  enum { N = 5 };
  cl_event ev[N];
  clEnqueueNDRangeKernel(pq, o.kernel, 1, NULL, &o.global, &o.local, 0, NULL, NULL);
  clFinish(pq);
  uint64_t t0 = bench_now_ns();
  for (int i = 0; i < N; i++)
    clEnqueueNDRangeKernel(pq, o.kernel, 1, NULL, &o.global, &o.local, 0, NULL, &ev[i]);
  clFinish(pq);
  double wall = (double)(bench_now_ns() - t0);
  double sum = 0, span = 0;
  cl_ulong first = 0, last = 0;
  for (int i = 0; i < N; i++) {
    cl_ulong a = 0, b = 0;
    clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
    clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
    sum += (double)(b - a);
    if (i == 0) first = a;
    if (i == N - 1) last = b;
    clReleaseEvent(ev[i]);
  }
  span = (double)(last - first);
  printf("timing: host wall clock around enqueue + clFinish (profiling events, checked once: "
         "%d kernels, sum of END-START %.1f ms, first START to last END %.1f ms, wall %.1f ms)\n",
         N, sum * 1e-6, span * 1e-6, wall * 1e-6);
  clReleaseKernel(o.kernel);
  clReleaseCommandQueue(pq);
}

/* ---- Opening ---------------------------------------------------------------------- */

bool env_open(env *e, const bench_opts *opts, const char *who) {
  e->opts = opts;
  e->who = who;
  e->fig_opts = *opts;
  if (!opts->quick && e->fig_opts.min_rep_s < 0.03) e->fig_opts.min_rep_s = 0.03;
  e->budget_s = opts->quick ? QUICK_FIG_BUDGET_S : FIG_BUDGET_S;
  e->tensor_bytes = opts->quick ? QUICK_TENSOR_BYTES : FULL_TENSOR_BYTES;
  if (!setup(e)) return false;
  print_load("at start");
  printf("figures: GB/s of bytes read + written, median of %d repetitions (each >= %.0f ms; "
         "a copy slower than %.2f s: one per repetition, at least 3 within about %.0f s; slower "
         "than %.1f s: one run) after a checked run and a discarded warm-up (a slow checked run, "
         "which may have compiled its kernel, is run again before it is believed slow), the "
         "figures of a case "
         "timed in turn; rat(io) = the median over those turns of its speed / the ceiling's "
         "(a vectorized copy kernel over the same bytes and buffers)%s\n",
         e->fig_opts.reps, e->fig_opts.min_rep_s * 1e3, SLOW_S, e->budget_s, VERY_SLOW_S,
         opts->quick ? "; --quick: 4 MiB tensors, a smoke run, not a measurement" : "");
  if (!choose_ceiling(e)) {
    printf("%s: the ceiling kernel failed\n", who);
    return false;
  }
  check_profiling(e);
  return true;
}
