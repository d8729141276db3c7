/* tune_cl.c: ndx-tune-cl, the tuning tool of ndx's OpenCL copy kernels. It
 * is built beside ndx-bench when OpenCL is enabled and is not installed.
 *
 * It compares prototype transpose and run kernels (tune_cl.cl) against ndx's
 * own path on the same copies, to choose the tile sizes, register-block
 * shapes and loop forms of ndx's kernels (kernels/ndx_copy.cl). Each case
 * times, in one group: the ceiling and clEnqueueCopyBuffer over the case's
 * bytes, ndx's plan, and each prototype variant (a kernel, its work-items
 * and its work-group size). Every result is checked against the host before
 * it is timed. Measurement is ndx-bench --cl's (bench_cl_env.c,
 * bench_cl_ops.c): the same environment, ceiling, checks and paired ratios.
 * A prototype is kept here only while ndx ships its technique, so that
 * retuning compares the shipped form with its variants.
 *
 * Usage: ndx-tune-cl [--quick] [--reps N] [CASE...]
 *   CASE: a part of a case's name ("u1", "4096x4096"); all cases when none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cl.h"

/* tune_cl.cl as a C string (bench/meson.build, tools/embed.py). */
extern const char ndx_tune_cl_source[];
extern const size_t ndx_tune_cl_source_size;

typedef struct proto_variant {
  const char *kernel;
  int div, a, b; /* work-items: ceil(R/div/a) * ceil(C/div/b); div 0: ceil(R*C/a/b) */
  size_t local;
} proto_variant;

typedef struct proto_case {
  const char *name;
  int bits;
  int64_t r, c;
  proto_variant v[8];
  move mv; /* MV_PERMUTE (a transpose) when 0 */
} proto_case;

static const proto_case protos[] = {
    {"slice [:, ::2] f32 4096x4096",
     32,
     4096,
     4096,
     {{"proto_slice2", 0, 2, 256, 64},
      {"proto_slice2v", 0, 2, 256, 64},
      {"proto_slice2v", 0, 2, 256, 1}},
     MV_SLICE2},
    {"flip inner axis f32 4096x4096",
     32,
     4096,
     4096,
     {{"proto_flip", 0, 1, 256, 64}, {"proto_flipv", 0, 1, 256, 64}, {"proto_flipv", 0, 1, 256, 1}},
     MV_FLIP},
    {"transpose f32 3x1000003",
     32,
     3,
     1000003,
     {{"proto_thin", 1, 3, 256, 64}, {"proto_thin", 1, 3, 256, 1}},
     0},
    {"transpose f32 1000003x3",
     32,
     1000003,
     3,
     {{"proto_thin", 1, 256, 3, 64}, {"proto_thin", 1, 256, 3, 1}},
     0},
    {"transpose f32 4096x4096",
     32,
     4096,
     4096,
     {{"proto_t32_16", 1, 16, 16, 64},
      {"proto_t32_32", 1, 32, 32, 16},
      {"proto_w32_8x32", 1, 32, 32, 4},
      {"proto_w32_16x32", 1, 32, 32, 4},
      {"proto_w32_16x64", 1, 64, 64, 1},
      {"proto_w32_16x32", 1, 32, 32, 1}},
     0},
    {"transpose f32 4000x3000",
     32,
     4000,
     3000,
     {{"proto_t32_32", 1, 32, 32, 16},
      {"proto_w32_8x32", 1, 32, 32, 4},
      {"proto_w32_16x32", 1, 32, 32, 4},
      {"proto_w32_16x64", 1, 64, 64, 1}},
     0},
    {"transpose u16 4096x8192",
     16,
     4096,
     8192,
     {{"proto_t16_32", 1, 32, 32, 16},
      {"proto_w16_8x32", 1, 32, 32, 4},
      {"proto_w16_16x64", 1, 64, 64, 1}},
     0},
    {"transpose u8 8192x8192",
     8,
     8192,
     8192,
     {{"proto_t8_64", 1, 64, 64, 4},
      {"proto_w8_8x64", 1, 64, 64, 1},
      {"proto_w8_16x64", 1, 64, 64, 1}},
     0},
    {"transpose u1 16384x32768",
     1,
     16384,
     32768,
     {{"proto_b1_8x8", 8, 8, 8, 16},
      {"proto_b1_64x8", 8, 64, 8, 4},
      {"proto_b1_8x64", 8, 8, 64, 4}},
     0},
};
#define NPROTOS (int)(sizeof protos / sizeof protos[0])

/* Times case pc's prototypes (kernels of `prog`) beside the ceiling,
 * clEnqueueCopyBuffer and ndx's plan, and prints a row for each. */
static void run_proto(env *e, cl_program prog, const proto_case *pc) {
  case_spec cs = {"proto", pc->name, pc->bits, 2,    {pc->r, pc->c}, pc->mv ? pc->mv : MV_PERMUTE,
                  {1, 0},  0,        0,        false};
  case_data d;
  char why[512] = "";
  if (make_case(e, &cs, &d, why, sizeof why) != NDX_OK) {
    printf("%-36s setup failed: %s\n", pc->name, why);
    e->errors++;
    free_case(&d);
    return;
  }
  int64_t R = d.shape[0], C = d.shape[1];
  check chk = case_check(&cs, &d);
  enum { NP = 12 };
  entry *t = calloc(NP, sizeof *t);
  const char *names[NP];
  size_t locals[NP];
  ndx_cl_plan *plan = NULL;
  if (!t || !ceiling_entries(e, &d, t) ||
      ndx_cl_plan_create(&plan, e->ndx, &d.dst_l, &d.view_l, pc->bits) != NDX_OK) {
    printf("%-36s setup failed\n", pc->name);
    e->errors++;
    free(t);
    free_case(&d);
    return;
  }
  int n = 2;
  names[0] = "ceiling";
  names[1] = "clEnqueueCopyBuffer";
  locals[0] = locals[1] = 0;
  t[n].o = (op){.kind = OP_PLAN, .e = e, .dst = d.dst, .src = d.src, .plan = plan};
  names[n] = ndx_cl_plan_path(plan);
  locals[n++] = 0;
  for (int k = 0; k < 8 && pc->v[k].kernel; k++) {
    const proto_variant *v = &pc->v[k];
    cl_int err;
    cl_kernel kr = clCreateKernel(prog, v->kernel, &err);
    if (err != CL_SUCCESS) {
      printf("%-36s %s: clCreateKernel: %s\n", pc->name, v->kernel, cl_err(err));
      e->errors++;
      continue;
    }
    cl_long rr = R, cc = C;
    clSetKernelArg(kr, 0, sizeof(cl_mem), &d.dst);
    clSetKernelArg(kr, 1, sizeof(cl_mem), &d.src);
    clSetKernelArg(kr, 2, sizeof rr, &rr);
    clSetKernelArg(kr, 3, sizeof cc, &cc);
    int64_t rb = R / (v->div ? v->div : 1), cb = C / (v->div ? v->div : 1);
    int64_t per = (int64_t)v->a * v->b;
    int64_t items =
        v->div ? (rb + v->a - 1) / v->a * ((cb + v->b - 1) / v->b) : (R * C + per - 1) / per;
    t[n].o = (op){
        .kind = OP_KERNEL, .e = e, .dst = d.dst, .src = d.src, .kernel = kr, .local = v->local};
    t[n].o.global = (size_t)((items + (int64_t)v->local - 1) / (int64_t)v->local) * v->local;
    names[n] = v->kernel;
    locals[n++] = v->local;
  }
  for (int k = 2; k < n; k++) {
    t[k].bytes = d.bytes;
    t[k].chk = &chk;
  }
  measure_group(e, t, n);
  for (int k = 0; k < n; k++) {
    char fr[32];
    fmt_fig(fr, sizeof fr, &t[k].f);
    char lbl[64];
    if (locals[k])
      snprintf(lbl, sizeof lbl, "%s (local %zu)", names[k], locals[k]);
    else
      snprintf(lbl, sizeof lbl, "%s", k == 2 ? "ndx" : names[k]);
    printf("%-36s %-30s %s%s%s\n", k == 0 ? pc->name : "", lbl, fr, k == 2 ? "  path " : "",
           k == 2 ? names[k] : "");
    note_problem(e, lbl, pc->name, &t[k].f);
    if (k >= 3 && t[k].o.kernel) clReleaseKernel(t[k].o.kernel);
  }
  if (t[0].o.kernel) clReleaseKernel(t[0].o.kernel);
  ndx_cl_plan_destroy(plan);
  free(t);
  free_case(&d);
  fflush(stdout);
}

static int usage(FILE *f, int status) {
  fprintf(f, "usage: ndx-tune-cl [--quick] [--reps N] [CASE...]\n\n"
             "Times tune_cl.cl's prototype kernels beside ndx's path (ratios to the in-run\n"
             "ceiling, as ndx-bench --cl) on the cases whose name contains a CASE (all when\n"
             "none is named):\n");
  for (int i = 0; i < NPROTOS; i++) fprintf(f, "  %s\n", protos[i].name);
  fprintf(f, "\n  --quick  3 short repetitions on 4 MiB tensors: a smoke run\n"
             "  --reps N timed repetitions (median reported; default 15)\n");
  return status;
}

int main(int argc, char **argv) {
  bench_opts opts = {.quick = false, .reps = 15, .min_rep_s = 0.02, .out = "."};
  const char *want[64];
  int nwant = 0, reps = 0;
  for (int i = 1; i < argc; i++) {
    char *end = NULL;
    if (strcmp(argv[i], "--quick") == 0) {
      opts.quick = true;
    } else if (strcmp(argv[i], "--reps") == 0) {
      long v = i + 1 < argc ? strtol(argv[++i], &end, 10) : 0;
      if (!end || *end != '\0' || v < 1 || v > 1000) return usage(stderr, 2);
      reps = (int)v;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      return usage(stdout, 0);
    } else if (argv[i][0] == '-' || nwant == 64) {
      return usage(stderr, 2);
    } else {
      want[nwant++] = argv[i];
    }
  }
  if (opts.quick) opts.reps = 3, opts.min_rep_s = 0.002;
  if (reps) opts.reps = reps;

  uint64_t t_start = bench_now_ns();
  env e = {0};
  cl_program prog = NULL;
  if (!env_open(&e, &opts, "ndx-tune-cl") ||
      !(prog = build_program(&e, "tune_cl.cl", ndx_tune_cl_source, ndx_tune_cl_source_size,
                             "-cl-std=CL1.2"))) {
    env_close(&e);
    return 1;
  }
  printf("\n%-67s %6s %5s\n", "prototypes (tune_cl.cl) beside ndx's path", "GB/s", "ratio");
  for (int i = 0; i < NPROTOS; i++) {
    bool run = nwant == 0;
    for (int k = 0; k < nwant && !run; k++) run = strstr(protos[i].name, want[k]) != NULL;
    if (run) run_proto(&e, prog, &protos[i]);
  }
  clReleaseProgram(prog);
  env_close(&e);
  print_load("at end");
  printf("\nndx-tune-cl: %d wrong results, %d failures; %.0f s\n", e.wrong, e.errors,
         (double)(bench_now_ns() - t_start) * 1e-9);
  return e.wrong || e.errors ? 1 : 0;
}
