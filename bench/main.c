/* main.c: ndx-bench's entry point: reads the options and runs the sections
 * asked for (all of them when none is named), each a bench_<name> function. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct section {
  const char *flag; /* "--host" */
  const char *what; /* for the usage */
  int (*run)(const bench_opts *);
} section;

/* A new section (the OpenCL one in bench_cl.c) adds one row here, declares its
 * function in bench.h and its file in bench/meson.build. A section this build
 * lacks has no function: asked for, it is refused; by default, passed over. */
static const section sections[] = {
    {"--host", "layout calls, moves, coalescing and ndx_iter on the host", bench_host},
    {"--gpu-model", "the gpu-shaped kernels' memory requests on an H100, modelled on the host",
     bench_gpu_model},
#ifdef NDX_BENCH_HAVE_OPENCL
    {"--cl", "ndx_cl_copy against the device's copy bandwidth and peers (OpenCL)", bench_cl},
#else
    {"--cl", "ndx_cl_copy against the device's copy bandwidth (not in this build: no OpenCL)",
     NULL},
#endif
};
#define NSECTIONS (int)(sizeof sections / sizeof sections[0])

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: ndx-bench [SECTION...] [--quick] [--reps N] [--out DIR] [--cases TEXT]\n\nsections "
      "(all when none "
      "is named):\n");
  for (int i = 0; i < NSECTIONS; i++)
    fprintf(f, "  %-11s %s\n", sections[i].flag, sections[i].what);
  fprintf(f, "\n  --quick  3 short repetitions: a smoke run, not a measurement\n"
             "  --reps N timed repetitions (median reported; default 15)\n"
             "  --out DIR where sections write their files (CSV, PNG; default .)\n"
             "  --cases TEXT  --cl, --gpu-model: only the copy, conversion, gather and\n"
             "           scatter cases whose name contains TEXT (no per-call costs)\n");
}

int main(int argc, char **argv) {
  bench_opts opts = {.quick = false, .reps = 15, .min_rep_s = 0.02, .out = ".", .only = NULL};
  bool want[NSECTIONS] = {false};
  bool any = false;
  int reps = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--quick") == 0) {
      opts.quick = true;
    } else if (strcmp(a, "--reps") == 0) {
      char *end = NULL;
      long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
      if (i + 1 >= argc || *end != '\0' || v < 1 || v > 1000) {
        fprintf(stderr, "ndx-bench: --reps needs a count in [1, 1000]\n");
        return 2;
      }
      reps = (int)v;
      i++;
    } else if (strcmp(a, "--out") == 0) {
      if (i + 1 >= argc || argv[i + 1][0] == '\0') {
        fprintf(stderr, "ndx-bench: --out needs a folder\n");
        return 2;
      }
      opts.out = argv[++i];
    } else if (strcmp(a, "--cases") == 0) {
      if (i + 1 >= argc || argv[i + 1][0] == '\0') {
        fprintf(stderr, "ndx-bench: --cases needs a text to look for in case names\n");
        return 2;
      }
      opts.only = argv[++i];
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else {
      int k = 0;
      while (k < NSECTIONS && strcmp(a, sections[k].flag) != 0) k++;
      if (k == NSECTIONS) {
        fprintf(stderr, "ndx-bench: unknown argument '%s'\n", a);
        usage(stderr);
        return 2;
      }
      if (!sections[k].run) {
        fprintf(stderr, "ndx-bench: %s is not in this build (ndx was built without OpenCL)\n", a);
        return 2;
      }
      want[k] = any = true;
    }
  }
  if (opts.quick) opts.reps = 3, opts.min_rep_s = 0.002;
  if (reps) opts.reps = reps;

  int status = 0;
  for (int k = 0; k < NSECTIONS; k++) {
    if ((any && !want[k]) || !sections[k].run) continue;
    int s = sections[k].run(&opts);
    if (s && !status) status = s;
    fflush(stdout);
  }
  return status;
}
