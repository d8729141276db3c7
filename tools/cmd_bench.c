/* cmd_bench.c: `ndx bench`: finds ndx-bench and execs it with the arguments
 * given, so that its output and exit status are ndx bench's. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

#ifndef NDX_TOOL_LIBEXECDIR
#define NDX_TOOL_LIBEXECDIR "/usr/local/libexec"
#endif
#ifndef NDX_TOOL_BINDIR
#define NDX_TOOL_BINDIR "/usr/local/bin"
#endif

const char tool_bench_usage[] =
    "usage: ndx bench [ndx-bench ARGS...]\n"
    "\n"
    "Runs ndx-bench with ARGS (its output and exit status are ndx bench's).\n"
    "ndx-bench is looked for, in order: $NDX_BENCH when set (that program\n"
    "only); next to this ndx (its directory, then ../bench/ as in the build\n"
    "tree); the install's libexec/ndx, libexec and bin directories; then PATH.\n"
    "Exit 1 when it is not found.\n"
    "\n"
    "examples:\n"
    "  a smoke run of the host section (--quick: not a measurement):\n"
    "  $ ndx bench --host --quick --reps 1\n";

/* Writes "dir/name" into out (PATH_MAX bytes); false when it is too long. */
static bool join(char *out, const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  if (a + 1 + b >= PATH_MAX) return false;
  memcpy(out, dir, a);
  out[a] = '/';
  memcpy(out + a + 1, name, b + 1);
  return true;
}

/* The candidates next to the running binary and in the install directories,
 * into paths[]; returns how many. */
static int candidates(char paths[][PATH_MAX], const char *argv0) {
  char self[PATH_MAX] = "";
  int n = 0;
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len > 0)
    self[len] = '\0';
  else if (argv0 && strchr(argv0, '/') && strlen(argv0) < sizeof self)
    memcpy(self, argv0, strlen(argv0) + 1);
  else
    self[0] = '\0';
  char *slash = strrchr(self, '/');
  if (slash) {
    *slash = '\0';
    n += join(paths[n], self, "ndx-bench");
    n += join(paths[n], self, "../bench/ndx-bench");
  }
  n += join(paths[n], NDX_TOOL_LIBEXECDIR, "ndx/ndx-bench");
  n += join(paths[n], NDX_TOOL_LIBEXECDIR, "ndx-bench");
  n += join(paths[n], NDX_TOOL_BINDIR, "ndx-bench");
  return n;
}

/* Execs ndx-bench with `args` (args[0] is replaced): returns only when no
 * candidate could be run, with the message on stderr. */
static int run_bench(char **args, const char *argv0) {
  const char *forced = getenv("NDX_BENCH");
  if (forced && forced[0]) {
    args[0] = (char *)forced;
    execv(forced, args);
    fprintf(stderr, "ndx bench: cannot run $NDX_BENCH '%s': %s\n", forced, strerror(errno));
    return 1;
  }
  char paths[5][PATH_MAX];
  int n = candidates(paths, argv0);
  for (int i = 0; i < n; i++) {
    if (access(paths[i], X_OK) != 0) continue;
    args[0] = paths[i];
    execv(paths[i], args);
    fprintf(stderr, "ndx bench: cannot run '%s': %s\n", paths[i], strerror(errno));
    return 1;
  }
  args[0] = "ndx-bench";
  execvp("ndx-bench", args);
  fprintf(stderr, "ndx bench: ndx-bench not found: looked in");
  for (int i = 0; i < n; i++) fprintf(stderr, " %s,", paths[i]);
  fprintf(stderr,
          " and on PATH (%s)\n"
          "(build it: ninja -C BUILD bench/ndx-bench, or set NDX_BENCH)\n",
          strerror(errno));
  return 1;
}

int tool_cmd_bench(int argc, char **argv, const char *argv0) {
  /* argv[-1] is "bench": the arguments with a slot in front for the program. */
  char **args = argv - 1;
  (void)argc;
  fflush(stdout);
  return run_bench(args, argv0);
}

int tool_bench_help(const char *argv0) {
  fputs(tool_bench_usage, stdout);
  fputs("\nndx-bench's own usage:\n\n", stdout);
  fflush(stdout);
  char *args[] = {NULL, "--help", NULL};
  run_bench(args, argv0); /* returns only when ndx-bench could not run (said on stderr) */
  fputs("  (not found)\n", stdout);
  return 0; /* the usage was asked for and printed */
}
