/* bench_cl_report.c: what `ndx-bench --cl` writes: a figure as the tables
 * print it, the tally of wrong results, failures and targets, the table of
 * the cases on stdout, bench-cl.csv (a row a case), and bench-cl.png, the
 * chart bench/chart.py draws from the CSV with /usr/bin/python3 and
 * matplotlib; and the last line, which names only the files written. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_cl.h"

#ifndef NDX_BENCH_CHART
#define NDX_BENCH_CHART "bench/chart.py"
#endif
#define BENCH_PYTHON "/usr/bin/python3"

/* ---- Figures and the tally ------------------------------------------------------ */

void fmt_fig(char *b, size_t n, const fig *f) {
  if (f->state == 1)
    snprintf(b, n, "%6.2f %5.2f", f->gbs, f->ratio);
  else if (f->state == 0)
    snprintf(b, n, "%6s %5s", "-", "");
  else
    snprintf(b, n, "%12s", f->state == -1 ? "WRONG" : "FAILED");
}

static void csv_fig(FILE *f, const fig *x) {
  if (x->state == 1)
    fprintf(f, ",%.4f,%.4f", x->gbs, x->ratio);
  else
    fprintf(f, ",%s,", x->state == 0 ? "" : x->state == -1 ? "WRONG" : "FAILED");
}

void note_problem(env *e, const char *what, const char *name, const fig *f) {
  if (f->state == -1) e->wrong++;
  if (f->state == -2) e->errors++;
  if (f->state < 0) printf("    %s %s: %s\n", what, name, f->why);
}

void count_target(env *e, const char *name, bool met) {
  if (met) {
    e->met++;
    return;
  }
  e->missed++;
  size_t used = strlen(e->misses);
  snprintf(e->misses + used, sizeof e->misses - used, "%s%s", used ? "; " : "", name);
}

/* ---- The table and the CSV -------------------------------------------------------- */

void report_open(env *e, char *csvp, size_t csvsz) {
  mkdir(e->out_dir, 0777); /* may exist */
  snprintf(csvp, csvsz, "%s/bench-cl.csv", e->out_dir);
  e->csv = fopen(csvp, "w");
  if (!e->csv) printf("%s: cannot write %s: %s\n", e->who, csvp, strerror(errno));
  if (e->csv)
    fprintf(e->csv,
            "case,group,bits,shape,bytes,path,ndx_gbs,ndx_ratio,ceiling_gbs,copybuf_gbs,"
            "copybuf_ratio,naive_gbs,naive_ratio,rect_gbs,rect_ratio,clblast_gbs,"
            "clblast_ratio,target,target_ratio,target_vs_clblast,met,ndx_reps,ndx_vs_clblast\n");
  printf("\n%-50s %-9s %12s %7s %12s %12s %12s %12s  %-20s %s\n", "case", "path", "ndx GB/s rat",
         "ceiling", "copybuf  rat", "naive    rat", "rect     rat", "clblast  rat",
         "target (ratio)", "met");
}

void report_case(env *e, const case_spec *c, const case_data *d, const case_figs *r) {
  const fig *f = r->f, *ndx = &f[T_NDX], *blast = &f[T_BLAST];
  double vs_blast = r->vs_blast;
  double cg = f[T_CEIL].state == 1 ? f[T_CEIL].gbs : 0;
  const target *tg = find_target(c->group);
  bool met = ndx->state == 1 && cg > 0 && ndx->ratio >= tg->min_ratio;
  if (met && tg->vs_clblast > 0 && blast->state == 1) met = vs_blast >= tg->vs_clblast;
  count_target(e, d->name, met);

  char fn[32], fv[32], fr[32], fb[32], fc[32];
  fmt_fig(fn, sizeof fn, ndx);
  fmt_fig(fv, sizeof fv, &f[T_NAIVE]);
  fmt_fig(fr, sizeof fr, &f[T_RECT]);
  fmt_fig(fb, sizeof fb, blast);
  fmt_fig(fc, sizeof fc, &f[T_COPYBUF]);
  char vs[48] = "";
  if (tg->vs_clblast > 0 && vs_blast > 0) snprintf(vs, sizeof vs, " (%.2fx CLBlast)", vs_blast);
  printf("%-50s %-9s %s %7.2f %s %s %s %s  %-20s %s%s\n", d->name, r->path, fn, cg, fc, fv, fr, fb,
         tg->text, met ? "yes" : "NO", vs);
  static const char *const what[T_COUNT] = {"ceiling", "copybuf", "ndx",
                                            "naive",   "rect",    "clblast"};
  for (int k = 0; k < T_COUNT; k++) note_problem(e, what[k], d->name, &f[k]);
  fflush(stdout);

  if (e->csv) {
    char shape[128] = "";
    for (int a = 0; a < c->rank; a++) {
      size_t u = strlen(shape);
      snprintf(shape + u, sizeof shape - u, "%s%" PRId64, a ? "x" : "", d->shape[a]);
    }
    fprintf(e->csv, "\"%s\",%s,%d,%s,%.0f,%s", d->name, c->group, c->bits, shape, d->bytes,
            r->path);
    csv_fig(e->csv, ndx);
    fprintf(e->csv, ",%.4f", cg);
    csv_fig(e->csv, &f[T_COPYBUF]);
    csv_fig(e->csv, &f[T_NAIVE]);
    csv_fig(e->csv, &f[T_RECT]);
    csv_fig(e->csv, blast);
    fprintf(e->csv, ",\"%s\",%.2f,%.2f,%s,%d,", tg->text, tg->min_ratio, tg->vs_clblast,
            met ? "yes" : "no", ndx->reps);
    if (vs_blast > 0) fprintf(e->csv, "%.4f", vs_blast);
    fprintf(e->csv, "\n");
  }
}

bool report_close(env *e, const char *csvp) {
  if (!e->csv) return false;
  bool ok = !ferror(e->csv);
  ok = fclose(e->csv) == 0 && ok;
  e->csv = NULL;
  if (ok)
    note_written(e, csvp);
  else
    printf("%s: writing %s failed: %s\n", e->who, csvp, strerror(errno));
  return ok;
}

void note_written(env *e, const char *path) {
  int n = (int)(sizeof e->written / sizeof e->written[0]);
  if (e->nwritten < n) snprintf(e->written[e->nwritten++], sizeof e->written[0], "%s", path);
}

void report_written(const env *e) {
  printf("%s: wrote ", e->who);
  if (e->nwritten == 0) printf("no file");
  for (int k = 0; k < e->nwritten; k++)
    printf("%s%s", k == 0 ? "" : k + 1 == e->nwritten ? " and " : ", ", e->written[k]);
  printf("\n");
}

/* Runs bench/chart.py on the CSV; says where the PNG went or why not. */
void draw_chart(env *e, const char *csv) {
  char png[4096];
  snprintf(png, sizeof png, "%s/bench-cl.png", e->out_dir);
  if (access(BENCH_PYTHON, X_OK) != 0 || access(NDX_BENCH_CHART, R_OK) != 0) {
    printf("chart: not drawn (%s or %s missing); run: %s %s %s %s\n", BENCH_PYTHON, NDX_BENCH_CHART,
           BENCH_PYTHON, NDX_BENCH_CHART, csv, png);
    return;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execl(BENCH_PYTHON, BENCH_PYTHON, NDX_BENCH_CHART, csv, png, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    printf("chart: %s failed; run: %s %s %s %s\n", NDX_BENCH_CHART, BENCH_PYTHON, NDX_BENCH_CHART,
           csv, png);
  else {
    printf("chart: %s\n", png);
    note_written(e, png);
  }
}
