/* ndx.c: the `ndx` command-line tool: shows, moves and coalesces layouts
 * written in ndx_format's text, lists OpenCL devices, and runs a short demo.
 *
 * Exit codes: 0 the answer is printed; 1 the library refused a move or a
 * coalescing (its reason, from ndx_last_error(), is printed on stdout: it is
 * the answer about that layout); 2 the command line is malformed (a message
 * naming the argument goes to stderr). No input makes it crash: every number
 * is read with overflow checks and every list has a bound. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndx/ndx_iter.h"
#include "ndx/ndx_layout.h"
#include "tool.h"

/* Room for any layout's text: 2 * 32 values of at most 20 characters plus
 * separators and the three labels. */
#define LAYOUT_TEXT_MAX 2048
/* The longest list argument read; a longer one is refused, not cut. */
#define LIST_TEXT_MAX 4096
/* Fields in one entry of a list: a window has the most (axis:size:step:dilation). */
#define FIELDS_MAX 4

static const char usage_text[] =
    "usage: ndx COMMAND [ARGS...]\n"
    "\n"
    "commands:\n"
    "  show LAYOUT               the canonical layout, numel, span and flags\n"
    "  move LAYOUT MOVE ARGS...  applies one or more moves in order, prints the result\n"
    "  coalesce LAYOUT...        coalesces layouts of one shape, prints one per line\n"
    "  devices                   lists OpenCL platforms and devices\n"
    "  demo                      a short tour of the host and device sides\n"
    "  help                      this text\n"
    "\n"
    "LAYOUT is ndx_format's text, strides and offset optional (C order, 0):\n"
    "  'shape=[3,2] strides=[1,3] offset=0'   'shape=[2,3]'\n"
    "\n"
    "moves (lists are comma-separated, optionally in brackets; [] is empty):\n"
    "  reshape D0,D1,...                       same element count, no copy\n"
    "  broadcast D0,D1,...                     right-aligned target shape\n"
    "  permute P0,P1,...                       result axis i = old axis Pi\n"
    "  slice START:COUNT[:STEP],...            one range per axis (STEP 1 if left out)\n"
    "  window AXIS:SIZE[:STEP[:DILATION]],...  appends one axis per window\n"
    "  narrow AXIS START LEN\n"
    "  transpose A B\n"
    "  flip AXIS\n"
    "  squeeze AXIS\n"
    "  unsqueeze AXIS\n"
    "  e.g.  ndx move 'shape=[3,2] strides=[1,3]' flip 0 reshape 6\n"
    "\n"
    "exit status: 0 result printed; 1 the library refused (its reason printed);\n"
    "2 malformed command line (message on stderr).\n";

/* ---- Malformed command lines ---------------------------------------------- */

/* Prints "ndx: <message>" and a pointer to the usage on stderr; exits 2. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static _Noreturn void
malformed(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("ndx: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputs("\n(run 'ndx help' for usage)\n", stderr);
  va_end(ap);
  exit(2);
}

/* ---- Reading numbers and lists ---------------------------------------- */

/* Reads all of `text` as a decimal int64 in [lo, hi] into *v. Leading or
 * trailing blanks, an empty text, a value past int64 or outside [lo, hi] fail. */
static bool read_int(const char *text, int64_t lo, int64_t hi, int64_t *v) {
  if (text[0] == '\0' || !(text[0] == '-' || text[0] == '+' || (text[0] >= '0' && text[0] <= '9')))
    return false;
  errno = 0;
  char *end = NULL;
  long long x = strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || x < lo || x > hi) return false;
  *v = (int64_t)x;
  return true;
}

/* Reads an integer argument of a move (`what` names it, e.g. "flip AXIS") that
 * must fit in [lo, hi]; a malformed one exits 2. */
static int64_t arg_int(const char *text, const char *what, int64_t lo, int64_t hi) {
  int64_t v;
  if (!read_int(text, lo, hi, &v)) {
    if (lo == INT64_MIN && hi == INT64_MAX)
      malformed("%s: '%s' is not a 64-bit integer", what, text);
    malformed("%s: '%s' is not an integer in [%lld, %lld]", what, text, (long long)lo,
              (long long)hi);
  }
  return v;
}

/* A list argument: entries separated by ',', each of `min_fields` to
 * `max_fields` integers separated by ':', the whole optionally in brackets.
 * Fields left out of an entry keep the values of `defaults`. */
typedef struct list_spec {
  const char *what; /* the argument, for messages: "slice START:COUNT[:STEP],..." */
  int min_fields, max_fields;
  int64_t lo[FIELDS_MAX], hi[FIELDS_MAX]; /* bounds of each field */
  int64_t defaults[FIELDS_MAX];
} list_spec;

/* Reads `text` by `spec` into entries[0..*n-1]; at most `max_entries`. A
 * malformed list exits 2 naming the entry and field. */
static void read_list(const char *text, const list_spec *spec, int max_entries,
                      int64_t entries[][FIELDS_MAX], int *n) {
  size_t len = strlen(text);
  if (len >= LIST_TEXT_MAX)
    malformed("%s: the list is %zu characters long, at most %d are read", spec->what, len,
              LIST_TEXT_MAX - 1);
  char buf[LIST_TEXT_MAX];
  memcpy(buf, text, len + 1);
  char *s = buf;
  /* Brackets are optional and must pair. */
  if (len > 0 && s[0] == '[') {
    if (s[len - 1] != ']') malformed("%s: '%s' opens '[' but does not close it", spec->what, text);
    s[len - 1] = '\0';
    s++;
  } else if (len > 0 && s[len - 1] == ']') {
    malformed("%s: '%s' closes ']' but does not open it", spec->what, text);
  }
  *n = 0;
  if (*s == '\0') return; /* the empty list */
  for (;;) {
    char *comma = strchr(s, ',');
    if (comma) *comma = '\0';
    if (*n == max_entries)
      malformed("%s: '%s' has more than %d entries", spec->what, text, max_entries);
    int64_t *e = entries[*n];
    for (int f = 0; f < FIELDS_MAX; f++) e[f] = spec->defaults[f];
    int fields = 0;
    char *field = s;
    for (;;) {
      char *colon = strchr(field, ':');
      if (colon) *colon = '\0';
      if (fields == spec->max_fields)
        malformed("%s: entry %d of '%s' has more than %d fields", spec->what, *n + 1, text,
                  spec->max_fields);
      if (!read_int(field, spec->lo[fields], spec->hi[fields], &e[fields])) {
        char where[64] = "";
        if (spec->max_fields > 1) snprintf(where, sizeof where, " field %d", fields + 1);
        int64_t lo = spec->lo[fields], hi = spec->hi[fields];
        if (lo == INT64_MIN && hi == INT64_MAX)
          malformed("%s: entry %d%s of '%s': '%s' is not a 64-bit integer", spec->what, *n + 1,
                    where, text, field);
        malformed("%s: entry %d%s of '%s': '%s' is not an integer in [%lld, %lld]", spec->what,
                  *n + 1, where, text, field, (long long)lo, (long long)hi);
      }
      fields++;
      if (!colon) break;
      field = colon + 1;
    }
    if (fields < spec->min_fields)
      malformed("%s: entry %d of '%s' has %d field%s, at least %d needed", spec->what, *n + 1, text,
                fields, fields == 1 ? "" : "s", spec->min_fields);
    (*n)++;
    if (!comma) break;
    s = comma + 1;
  }
}

/* ---- Layouts --------------------------------------------------------------- */

/* Writes `l`'s text into buf (LAYOUT_TEXT_MAX bytes) and returns buf. */
static const char *layout_text(char *buf, const ndx_layout *l) {
  int k = ndx_format(buf, LAYOUT_TEXT_MAX, l);
  if (k < 0) snprintf(buf, LAYOUT_TEXT_MAX, "(unprintable layout)");
  return buf;
}

/* Reads the layout argument `text` (`what` names it); a text ndx_parse
 * refuses is a malformed argument and exits 2 with the library's reason. */
static void arg_layout(ndx_layout *l, const char *text, const char *what) {
  ndx_status s = ndx_parse(l, text);
  if (s != NDX_OK)
    malformed("%s '%s' is not a layout: %s (%s)", what, text,
              ndx_last_error()[0] ? ndx_last_error() : "refused", ndx_status_name(s));
}

/* ---- show -------------------------------------------------------------------- */

static int cmd_show(int argc, char **argv) {
  if (argc < 1) malformed("show: missing LAYOUT");
  if (argc > 1) malformed("show: takes one LAYOUT; extra argument '%s'", argv[1]);
  ndx_layout l;
  arg_layout(&l, argv[0], "show: LAYOUT");
  char buf[LAYOUT_TEXT_MAX];
  int64_t lo, hi;
  ndx_span(&l, &lo, &hi);
  printf("layout      %s\n", layout_text(buf, &l));
  printf("rank        %d\n", (int)l.rank);
  printf("numel       %lld\n", (long long)ndx_numel(&l));
  printf("span        [%lld, %lld)\n", (long long)lo, (long long)hi);
  printf("contiguous  %s\n", ndx_is_contiguous(&l) ? "yes" : "no");
  printf("fortran     %s\n", ndx_is_fortran_contiguous(&l) ? "yes" : "no");
  printf("distinct    %s\n", ndx_is_distinct(&l) ? "yes" : "no");
  return 0;
}

/* ---- move -------------------------------------------------------------------- */

typedef enum move_id {
  MV_RESHAPE,
  MV_BROADCAST,
  MV_PERMUTE,
  MV_SLICE,
  MV_WINDOW,
  MV_NARROW,
  MV_TRANSPOSE,
  MV_FLIP,
  MV_SQUEEZE,
  MV_UNSQUEEZE,
} move_id;

typedef struct move_word {
  const char *name;
  move_id id;
  int nargs;
  const char *args[3]; /* the arguments' names, for messages */
} move_word;

static const move_word move_words[] = {
    {"reshape", MV_RESHAPE, 1, {"D0,D1,..."}},
    {"broadcast", MV_BROADCAST, 1, {"D0,D1,..."}},
    {"permute", MV_PERMUTE, 1, {"P0,P1,..."}},
    {"slice", MV_SLICE, 1, {"START:COUNT[:STEP],..."}},
    {"window", MV_WINDOW, 1, {"AXIS:SIZE[:STEP[:DILATION]],..."}},
    {"narrow", MV_NARROW, 3, {"AXIS", "START", "LEN"}},
    {"transpose", MV_TRANSPOSE, 2, {"A", "B"}},
    {"flip", MV_FLIP, 1, {"AXIS"}},
    {"squeeze", MV_SQUEEZE, 1, {"AXIS"}},
    {"unsqueeze", MV_UNSQUEEZE, 1, {"AXIS"}},
};

static const move_word *find_move(const char *name) {
  for (size_t k = 0; k < sizeof move_words / sizeof move_words[0]; k++)
    if (strcmp(name, move_words[k].name) == 0) return &move_words[k];
  return NULL;
}

/* Bounds of the lists' fields: extents and starts as int64, axes as int32. */
static const list_spec shape_list = {
    .min_fields = 1, .max_fields = 1, .lo = {INT64_MIN}, .hi = {INT64_MAX}};
static const list_spec perm_list = {
    .min_fields = 1, .max_fields = 1, .lo = {INT32_MIN}, .hi = {INT32_MAX}};
static const list_spec slice_list = {.min_fields = 2,
                                     .max_fields = 3,
                                     .lo = {INT64_MIN, INT64_MIN, INT64_MIN},
                                     .hi = {INT64_MAX, INT64_MAX, INT64_MAX},
                                     .defaults = {0, 0, 1}};
static const list_spec window_list = {.min_fields = 2,
                                      .max_fields = 4,
                                      .lo = {INT32_MIN, INT64_MIN, INT64_MIN, INT64_MIN},
                                      .hi = {INT32_MAX, INT64_MAX, INT64_MAX, INT64_MAX},
                                      .defaults = {0, 0, 1, 1}};

/* One move read from the command line, with the arrays its ndx_move points at. */
typedef struct parsed_move {
  const move_word *word;
  char label[LIST_TEXT_MAX + 64]; /* the move as typed, for messages */
  ndx_move m;                     /* the list moves */
  int64_t arg[3];                 /* the integer moves' arguments */
  int64_t shape[NDX_MAX_RANK];
  int32_t perm[NDX_MAX_RANK];
  ndx_range ranges[NDX_MAX_RANK];
  ndx_window windows[NDX_MAX_RANK];
} parsed_move;

/* Reads the move named args[0] and its arguments into *pm; returns how many
 * words it took. A malformed move exits 2 naming the word. `pos` is args[0]'s
 * position on the command line. */
static int parse_move(parsed_move *pm, int argc, char **args, int pos) {
  const move_word *w = find_move(args[0]);
  if (!w) malformed("move: unknown move '%s' (argument %d)", args[0], pos);
  if (argc - 1 < w->nargs)
    malformed("move: %s needs %d argument%s (%s%s%s%s%s), got %d", w->name, w->nargs,
              w->nargs == 1 ? "" : "s", w->args[0], w->nargs > 1 ? " " : "",
              w->nargs > 1 ? w->args[1] : "", w->nargs > 2 ? " " : "",
              w->nargs > 2 ? w->args[2] : "", argc - 1);
  pm->word = w;
  int used = snprintf(pm->label, sizeof pm->label, "%s", w->name);
  for (int a = 0; a < w->nargs && used >= 0 && (size_t)used < sizeof pm->label; a++)
    used += snprintf(pm->label + used, sizeof pm->label - (size_t)used, " %s", args[1 + a]);

  char what[128];
  if (w->nargs == 1 && w->id <= MV_WINDOW) {
    int64_t e[NDX_MAX_RANK][FIELDS_MAX];
    int n = 0;
    list_spec spec = w->id == MV_PERMUTE  ? perm_list
                     : w->id == MV_SLICE  ? slice_list
                     : w->id == MV_WINDOW ? window_list
                                          : shape_list;
    snprintf(what, sizeof what, "%s %s", w->name, w->args[0]);
    spec.what = what;
    read_list(args[1], &spec, NDX_MAX_RANK, e, &n);
    for (int i = 0; i < n; i++) {
      pm->shape[i] = e[i][0];
      pm->perm[i] = (int32_t)e[i][0];
      pm->ranges[i] = (ndx_range){e[i][0], e[i][1], e[i][2]};
      pm->windows[i] = (ndx_window){(int32_t)e[i][0], e[i][1], e[i][2], e[i][3]};
    }
    pm->m = (ndx_move){.n = n};
    switch (w->id) {
    case MV_RESHAPE:
      pm->m.kind = NDX_RESHAPE, pm->m.shape = pm->shape;
      break;
    case MV_BROADCAST:
      pm->m.kind = NDX_BROADCAST, pm->m.shape = pm->shape;
      break;
    case MV_PERMUTE:
      pm->m.kind = NDX_PERMUTE, pm->m.perm = pm->perm;
      break;
    case MV_SLICE:
      pm->m.kind = NDX_SLICE, pm->m.ranges = pm->ranges;
      break;
    default:
      pm->m.kind = NDX_WINDOW, pm->m.windows = pm->windows;
      break;
    }
  } else {
    for (int a = 0; a < w->nargs; a++) {
      /* Axes are ints; narrow's START and LEN are int64. */
      bool axis = !(w->id == MV_NARROW && a > 0);
      snprintf(what, sizeof what, "%s %s", w->name, w->args[a]);
      pm->arg[a] =
          arg_int(args[1 + a], what, axis ? INT_MIN : INT64_MIN, axis ? INT_MAX : INT64_MAX);
    }
  }
  return 1 + w->nargs;
}

/* Applies a parsed move to `l` into `out`; returns the library's answer. */
static ndx_status run_move(ndx_layout *out, const ndx_layout *l, const parsed_move *pm) {
  const int64_t *a = pm->arg;
  switch (pm->word->id) {
  case MV_NARROW:
    return ndx_narrow(out, l, (int)a[0], a[1], a[2]);
  case MV_TRANSPOSE:
    return ndx_transpose(out, l, (int)a[0], (int)a[1]);
  case MV_FLIP:
    return ndx_flip(out, l, (int)a[0]);
  case MV_SQUEEZE:
    return ndx_squeeze(out, l, (int)a[0]);
  case MV_UNSQUEEZE:
    return ndx_unsqueeze(out, l, (int)a[0]);
  default:
    return ndx_apply(out, &pm->m, l);
  }
}

/* Prints why a call had no result: "<what>: no result (NDX_...): <reason>". */
static void print_refusal(const char *what, ndx_status s) {
  const char *why = ndx_last_error();
  printf("%s: no result (%s): %s\n", what, ndx_status_name(s), why[0] ? why : "no reason given");
}

static int cmd_move(int argc, char **argv) {
  if (argc < 1) malformed("move: missing LAYOUT");
  if (argc < 2) malformed("move: missing MOVE after LAYOUT '%s'", argv[0]);
  ndx_layout l;
  arg_layout(&l, argv[0], "move: LAYOUT");

  /* Read the whole chain first so that a malformed word anywhere in the line
   * is reported (exit 2) before any move runs. */
  static parsed_move pm; /* large: kept off the stack */
  int moves = 0;
  for (int i = 1; i < argc; moves++) i += parse_move(&pm, argc - i, argv + i, i + 2);

  char buf[LAYOUT_TEXT_MAX];
  for (int i = 1, k = 0; i < argc; k++) {
    i += parse_move(&pm, argc - i, argv + i, i + 2);
    ndx_layout out;
    ndx_status s = run_move(&out, &l, &pm);
    if (s != NDX_OK) {
      if (moves > 1) printf("move %d of %d applies to %s\n", k + 1, moves, layout_text(buf, &l));
      print_refusal(pm.label, s);
      return 1;
    }
    l = out;
  }
  printf("%s\n", layout_text(buf, &l));
  return 0;
}

/* ---- coalesce ---------------------------------------------------------------- */

static int cmd_coalesce(int argc, char **argv) {
  if (argc < 1) malformed("coalesce: missing LAYOUT");
  if (argc > NDX_COALESCE_MAX)
    malformed("coalesce: %d layouts given, at most %d", argc, NDX_COALESCE_MAX);
  static ndx_layout in[NDX_COALESCE_MAX], out[NDX_COALESCE_MAX];
  for (int i = 0; i < argc; i++) {
    char what[64];
    snprintf(what, sizeof what, "coalesce: LAYOUT %d", i + 1);
    arg_layout(&in[i], argv[i], what);
  }
  ndx_status s = ndx_coalesce(argc, in, out);
  if (s != NDX_OK) {
    print_refusal("coalesce", s);
    return 1;
  }
  char buf[LAYOUT_TEXT_MAX];
  for (int i = 0; i < argc; i++) printf("%s\n", layout_text(buf, &out[i]));
  return 0;
}

/* ---- demo -------------------------------------------------------------------- */

/* Prints "  <what>  <layout>" or the refusal; true iff the status was `want`. */
static bool demo_step(const char *what, ndx_status s, ndx_status want, const ndx_layout *l) {
  char buf[LAYOUT_TEXT_MAX];
  if (s == NDX_OK)
    printf("  %-40s %s\n", what, layout_text(buf, l));
  else
    printf("  %-40s no result (%s): %s\n", what, ndx_status_name(s), ndx_last_error());
  if (s != want)
    printf("  ^ unexpected: wanted %s, got %s\n", ndx_status_name(want), ndx_status_name(s));
  return s == want;
}

/* Prints the positions of `l` in C order through ndx_iter (at most 32). */
static void demo_positions(const char *what, const ndx_layout *l) {
  ndx_iter it;
  ndx_iter_init(&it, l);
  printf("  %-40s", what);
  int64_t pos;
  int k = 0;
  while (ndx_iter_next(&it, &pos) && k < 32) printf(" %lld", (long long)pos), k++;
  printf("%s\n", k == 32 ? " ..." : "");
}

static int demo_host(void) {
  bool ok = true;
  ndx_layout a, t, r, v;
  printf("ndx demo: host side (layouts are plain structs; no ndx_ call here allocates)\n\n");

  ok &= demo_step("contiguous [2,3,4]:", ndx_contiguous(&a, 3, (int64_t[]){2, 3, 4}), NDX_OK, &a);
  ok &= demo_step("transpose 0 2:", ndx_transpose(&t, &a, 0, 2), NDX_OK, &t);
  ok &= demo_step("reshape the original to [6,4]:", ndx_reshape(&r, &a, 2, (int64_t[]){6, 4}),
                  NDX_OK, &r);
  ok &= demo_step("reshape the transpose to [24]:", ndx_reshape(&r, &t, 1, (int64_t[]){24}),
                  NDX_ENOVIEW, &r);
  printf("  %-40s %s\n", "",
         "(its positions 0,12,4,16,... are no single stride: a copy is needed)");
  ok &= demo_step("reshape the transpose to [4,3,2,1]:",
                  ndx_reshape(&r, &t, 4, (int64_t[]){4, 3, 2, 1}), NDX_OK, &r);
  ok &= demo_step("flip 1 of the original:", ndx_flip(&v, &a, 1), NDX_OK, &v);
  ok &= demo_step("slice 0:2,2:2:-1,0:2:3 of the original:",
                  ndx_slice(&v, &a, (ndx_range[]){{0, 2, 1}, {2, 2, -1}, {0, 2, 3}}), NDX_OK, &v);
  ok &= demo_step("broadcast the original to [2,5,4]:",
                  ndx_broadcast(&v, &a, 3, (int64_t[]){2, 5, 4}), NDX_EINVAL, &v);
  ndx_layout row;
  ok &= demo_step("contiguous [1,4]:", ndx_contiguous(&row, 2, (int64_t[]){1, 4}), NDX_OK, &row);
  ok &=
      demo_step("broadcast it to [3,4] (stride 0):", ndx_broadcast(&v, &row, 2, (int64_t[]){3, 4}),
                NDX_OK, &v);

  /* A 4-d transpose pair: a kernel launch coalesces source and destination
   * together, and this one needs only 2 axes. */
  printf("\n  a 4-d transpose copy, dst[i,j,k,l] = src[k,l,i,j], src of shape [2,3,4,5]:\n");
  ndx_layout src4, pair[2], merged[2];
  ok &= demo_step("src:", ndx_contiguous(&src4, 4, (int64_t[]){2, 3, 4, 5}), NDX_OK, &src4);
  ok &= demo_step("src permuted 2,3,0,1:", ndx_permute(&pair[1], &src4, (int32_t[]){2, 3, 0, 1}),
                  NDX_OK, &pair[1]);
  ok &= demo_step("dst:", ndx_contiguous(&pair[0], 4, (int64_t[]){4, 5, 2, 3}), NDX_OK, &pair[0]);
  ndx_status s = ndx_coalesce(2, pair, merged);
  ok &= demo_step("coalesced dst:", s, NDX_OK, &merged[0]);
  if (s == NDX_OK) ok &= demo_step("coalesced src:", s, NDX_OK, &merged[1]);

  printf("\n  positions in C order, by ndx_iter:\n");
  ndx_layout small;
  ok &= demo_step("[3,2] strides [1,3] (a transpose):",
                  ndx_make(&small, 2, (int64_t[]){3, 2}, (int64_t[]){1, 3}, 0), NDX_OK, &small);
  demo_positions("positions:", &small);
  ok &= demo_step("flip 0 of it:", ndx_flip(&small, &small, 0), NDX_OK, &small);
  demo_positions("positions:", &small);
  demo_positions("the 4-d transpose's src, coalesced:", &merged[1]);

  printf("\n");
  return ok ? 0 : 1;
}

static int cmd_demo(int argc, char **argv) {
  if (argc > 0) malformed("demo: takes no argument; extra argument '%s'", argv[0]);
  int host = demo_host();
  printf("ndx demo: device side\n\n");
  fflush(stdout);
  int device = tool_demo_device();
  return host ? host : device;
}

/* ---- main -------------------------------------------------------------------- */

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage_text, stderr);
    return 2; /* no COMMAND: a malformed command line */
  }
  if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
      strcmp(argv[1], "-h") == 0) {
    if (argc > 2) malformed("help: takes no argument; extra argument '%s'", argv[2]);
    fputs(usage_text, stdout);
    return 0;
  }
  const char *cmd = argv[1];
  int n = argc - 2;
  char **args = argv + 2;
  if (strcmp(cmd, "show") == 0) return cmd_show(n, args);
  if (strcmp(cmd, "move") == 0) return cmd_move(n, args);
  if (strcmp(cmd, "coalesce") == 0) return cmd_coalesce(n, args);
  if (strcmp(cmd, "demo") == 0) return cmd_demo(n, args);
  if (strcmp(cmd, "devices") == 0) {
    if (n > 0) malformed("devices: takes no argument; extra argument '%s'", args[0]);
    return tool_devices();
  }
  malformed("unknown command '%s'", cmd);
}
