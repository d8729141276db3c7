/* bench_cl.h: what the files of `ndx-bench --cl` share with each other and with
 * the uninstalled tuning tool ndx-tune-cl (tune_cl.c): the environment (one
 * context, one in-order queue, ndx, bench_cl.cl's programs, the ceiling), a
 * timed operation, operations measured together as a group, the check of a
 * result against the host, the cases and the printing of a figure. Private to
 * bench/; each group of declarations names the file that defines it. */
#ifndef NDX_BENCH_CL_H
#define NDX_BENCH_CL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench.h"
#include "fill_random.h"
#include "ndx/ndx_cl.h"
#include "ndx/ndx_layout.h"

#define MIB (INT64_C(1) << 20)
#define FULL_TENSOR_BYTES (64 * MIB) /* per tensor: the size the targets are set for */
#define QUICK_TENSOR_BYTES (4 * MIB)
#define FIG_BUDGET_S 2.0 /* about this long per figure at most */
#define QUICK_FIG_BUDGET_S 0.25
#define SLOW_S 0.25     /* an operation this slow is timed one per repetition */
#define VERY_SLOW_S 1.5 /* and this slow, once after the check run */

/* ---- The environment (bench_cl_env.c) ------------------------------------------ */

typedef struct env {
  const bench_opts *opts;
  const char *who;     /* how its messages begin: "--cl", "ndx-tune-cl" */
  bench_opts fig_opts; /* reps and repetition length for device figures */
  double budget_s;
  int64_t tensor_bytes;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue q;
  ndx_cl *ndx;
  cl_program prog[2]; /* bench_cl.cl, 32-bit and 64-bit index forms */
  int ceil;           /* the ceiling variant */
  cl_mem csrc, cdst;  /* the ceiling's buffers, tensor_bytes each */
  size_t cbytes;
  const char *out_dir;
  FILE *csv;
  char written[3][4096]; /* the files written, for the last line (report_written) */
  int nwritten;
  int wrong, errors, met, missed;
  char misses[4096];
  bool clblast;
} env;

const char *cl_err(cl_int e);
cl_mem new_buffer(env *e, size_t bytes);
/* Writes n bytes of host into buffer m; false with `why`. */
bool upload(env *e, cl_mem m, const void *host, size_t n, char *why, size_t whysz);

/* A program of `src` built for e's device with `options`; NULL when it does
 * not build (its log printed, under `name`). */
cl_program build_program(env *e, const char *name, const char *src, size_t len,
                         const char *options);

/* Sets e up for `opts`: the device, context, queue, ndx and bench_cl.cl, the
 * ceiling chosen and event profiling checked, each said on stdout (messages
 * begin with `who`). False when something failed; env_close releases what
 * was made either way. */
bool env_open(env *e, const bench_opts *opts, const char *who);
void env_close(env *e);

/* The load average, to judge figures taken on a shared machine. */
void print_load(const char *when);

/* ---- One timed operation, and groups of them (bench_cl_ops.c) ------------------- */

typedef enum op_kind {
  OP_PLAN,
  OP_COPY,
  OP_INDEX,
  OP_INDEX_PLAN,
  OP_KERNEL,
  OP_COPYBUF,
  OP_RECT,
  OP_CLBLAST,
  OP_CONVERT
} op_kind;

typedef struct op {
  op_kind kind;
  env *e;
  cl_mem dst, src;
  const ndx_cl_plan *plan;         /* OP_PLAN */
  const ndx_layout *dst_l, *src_l; /* OP_COPY, OP_INDEX, OP_CONVERT */
  int bits;                        /* OP_COPY, OP_INDEX */
  ndx_dtype dst_t, src_t;          /* OP_CONVERT */
  cl_mem index;                    /* OP_INDEX: ndx_cl_index_flags's arguments */
  const ndx_layout *index_l;
  int axis;
  unsigned index_flags, internal;
  bool scatter;
  ndx_cl_index_plan *iplan;        /* OP_INDEX_PLAN (dst, src, index) */
  cl_kernel kernel;                /* OP_KERNEL, arguments set */
  size_t global, local;            /* OP_KERNEL; local 0: the runtime's choice */
  size_t src_off, dst_off, bytes;  /* OP_COPYBUF */
  size_t so[3], dox[3], region[3]; /* OP_RECT: origins (bytes, rows, slices), region */
  size_t srp, ssp, drp, dsp;       /* OP_RECT: pitches */
  size_t m, n, lda, ldb;           /* OP_CLBLAST */
  bool finish_each;                /* clFinish after every operation: each timed end to end */
  bool failed;
  char why[512];
} op;

/* What an operation's result must hold (bench_cl_check.c checks it). */
typedef struct check {
  const ndx_layout *dst_l, *src_l; /* element i of src_l went to element i of dst_l */
  const uint8_t *src;              /* the source buffer's bytes on the host */
  int bits;
  size_t dst_bytes;
} check;

typedef struct fig {
  int state; /* 0: not measured; 1: measured; -1: wrong result; -2: failed */
  double gbs, ns;
  double ratio;      /* speed / entry 0's speed: median over paired repetitions */
  double time_ratio; /* time / entry 0's time: the same pairs */
  int reps;          /* timed repetitions behind the median */
  char why[512];
} fig;

/* One operation of a group: what it moves, how to check it, its figure. */
typedef struct entry {
  op o;
  double bytes;     /* read + written by one operation */
  const check *chk; /* NULL: not checked here */
  fig f;
  int64_t n;                  /* operations per repetition */
  int reps, done;             /* repetitions to time, and already timed */
  double per[BENCH_REPS_MAX]; /* ns per operation, each repetition */
} entry;

/* bench_fn: n operations, then one clFinish. */
void op_run(void *ctx, int64_t n);

/* The median over the repetitions both timed of a's speed / b's (time: a's
 * time / b's); 0 when b was not measured. */
double paired(const entry *a, const entry *b, bool time);

/* Checks each entry, sizes it and times the entries' repetitions in turn; each
 * figure's ratio is to entry 0's. */
void measure_group(env *e, entry *t, int count);

/* ---- Checking a result against the host (bench_cl_check.c) ---------------------- */

/* Reads `dst` back and compares it with the host's copy; false with `why`. */
bool check_result(env *e, cl_mem dst, const check *c, char *why, size_t whysz);

/* ---- The ceiling (bench_cl_env.c) ----------------------------------------------- */

/* An op that copies about `bytes` bytes (at most `cap`) from `src` to `dst`
 * with ceiling variant v; `*moved` gets the bytes it really copies (a whole
 * number of work-groups). */
bool ceiling_op(env *e, int v, cl_mem dst, cl_mem src, size_t bytes, size_t cap, op *o,
                size_t *moved);

/* ---- Cases (bench_cl_cases.c) --------------------------------------------------- */

typedef struct target {
  const char *group;
  double min_ratio;
  double vs_clblast; /* 0: none */
  const char *text;
} target;

const target *find_target(const char *group);

typedef enum move {
  MV_NONE,
  MV_SLICE2,
  MV_NARROW,
  MV_BCAST_ROW,
  MV_BCAST_COL,
  MV_FLIP,
  MV_PERMUTE
} move;

typedef struct case_spec {
  const char *group; /* its target */
  const char *name;
  int bits;
  int rank;
  int64_t shape[8]; /* of the source tensor (for broadcasts: of the result) */
  move mv;
  int32_t perm[8];    /* MV_PERMUTE */
  int64_t start, len; /* MV_NARROW, on the last axis */
  bool clblast;       /* a 2-d fp32 transpose: CLBlastSomatcopy takes it */
} case_spec;

extern const case_spec cases[];
extern const int ncases;

/* A case made concrete: layouts, buffers, the host's copy of the source. */
typedef struct case_data {
  int64_t shape[8];
  char name[160]; /* c->name, its sizes those of `shape` (which --quick shrinks) */
  ndx_layout base_l, view_l, dst_l; /* source tensor, the view copied, its contiguous copy */
  size_t src_bytes, dst_bytes;
  double bytes; /* read + written */
  uint8_t *host;
  cl_mem src, dst;
} case_data;

/* Makes case c (shrunk under --quick: d->shape, and d->name the case's name
 * with the sizes it runs), its source random and on the device; free_case
 * releases d whatever it returns. */
ndx_status make_case(env *e, const case_spec *c, case_data *d, char *why, size_t whysz);

/* The shape case c runs at: c->shape, shrunk under --quick. */
void case_shape(const env *e, const case_spec *c, int64_t *shape);
/* c->name with its sizes written from `shape` (c->name itself at full size):
 * "transpose f32 4096x4096" run at [1024,1024] is "transpose f32 1024x1024". */
void case_run_name(const case_spec *c, const int64_t *shape, char *out, size_t n);
/* True iff `only` is NULL or in case c's name, at full size or as run. */
bool case_selected(const env *e, const case_spec *c, const char *only);
void free_case(case_data *d);

/* The check of a case's copy. */
check case_check(const case_spec *c, const case_data *d);

/* Entries 0 and 1 of a case's group: the ceiling and clEnqueueCopyBuffer over
 * the case's bytes. The caller releases t[0].o.kernel. */
bool ceiling_entries(env *e, const case_data *d, entry *t);

/* ---- Peers (bench_cl_peers.c) ---------------------------------------------------- */

/* The naive kernel; on success `o` holds a kernel and `*pack` a buffer for
 * the caller to release; else `why` says what failed. */
bool naive_op(env *e, const case_spec *c, case_data *d, op *o, cl_mem *pack, char *why,
              size_t whysz);
/* clEnqueueCopyBufferRect, where the copy is a pitched copy of rank <= 3. */
bool rect_op(env *e, const case_spec *c, case_data *d, op *o);
/* CLBlastSomatcopy, on the cases that allow it when CLBlast works here. */
bool clblast_op(env *e, const case_spec *c, const case_data *d, op *o);
/* Compiles CLBlast's kernels by a first call (discarded) and says so. */
void warm_clblast(env *e);

/* ---- A case's figures (measured by bench_cl.c, reported by bench_cl_report.c) ---- */

enum { T_CEIL, T_COPYBUF, T_NDX, T_NAIVE, T_RECT, T_BLAST, T_COUNT };

typedef struct case_figs {
  fig f[T_COUNT];
  double vs_blast;  /* ndx's speed / CLBlast's, paired; 0: none */
  const char *path; /* ndx's plan's path, "-" without one */
} case_figs;

/* ---- Reporting (bench_cl_report.c) ---------------------------------------------- */

/* A figure as the tables have it: "GB/s ratio", "-", WRONG or FAILED. */
void fmt_fig(char *b, size_t n, const fig *f);
/* Counts a wrong or failed figure and says why. */
void note_problem(env *e, const char *what, const char *name, const fig *f);
/* Counts a target met or missed (naming it among the misses). */
void count_target(env *e, const char *name, bool met);

/* Opens e->out_dir/bench-cl.csv (its path in csvp) with its header, and
 * prints the table's head. */
void report_open(env *e, char *csvp, size_t csvsz);
/* Closes the CSV report_open opened, if it did, and notes it written when
 * every byte went out (else says why not). True iff it is written. */
bool report_close(env *e, const char *csvp);
/* A case's row of the table and of the CSV, its target judged. */
void report_case(env *e, const case_spec *c, const case_data *d, const case_figs *r);
/* Runs bench/chart.py on the CSV; says where the PNG went or why not (noted
 * written when drawn). */
void draw_chart(env *e, const char *csv);
/* Notes `path` among the files this run wrote. */
void note_written(env *e, const char *path);
/* The last line: "<who>: wrote A, B and C", only the files really written
 * ("<who>: wrote no file" when none was). */
void report_written(const env *e);

/* ---- Gathers and scatters (bench_cl_index.c) ------------------------------------- */

/* Measures and reports the gather and scatter cases (those whose name
 * contains `only`, when it is not NULL). */
void run_index_cases(env *e, const char *only);

/* ---- Conversions (bench_cl_convert.c) ------------------------------------------- */

/* Measures and reports the conversion cases (those whose name contains
 * `only`, when it is not NULL). */
void run_convert_cases(env *e, const char *only);

/* ---- Small copies: the cost of one call (bench_cl_small.c) ----------------------- */

void run_small(env *e);

/* The cost of one KV-cache row write through an index plan against a raw
 * enqueue (bench_cl_small.c), when `only` is NULL or in its name. */
void run_kv_cache(env *e, const char *only);

#endif /* NDX_BENCH_CL_H */
