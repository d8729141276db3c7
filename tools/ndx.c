/* ndx.c: the `ndx` command-line tool: shows, moves and coalesces layouts
 * (ndx_format's text or DLPack-like JSON), lists OpenCL devices and runs a
 * short demo (tools/tool.h: what a build without OpenCL keeps); `pack`, `copy`, `gather` and
 * `scatter`, and `bench` live in cmd_pack.c, cmd_copy.c, cmd_index.c and cmd_bench.c, the
 * argument readers in args.c and layout_json.c.
 *
 * Exit codes: 0 the answer is printed; 1 the library refused a move or a
 * coalescing (its reason, from ndx_last_error(), is printed on stdout: it is
 * the answer about that layout); 2 the command line is malformed (a message
 * naming the argument goes to stderr). No input makes it crash: every number
 * is read with overflow checks and every list has a bound. */
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

/* The longest list argument read; a longer one is refused, not cut. */
#define LIST_TEXT_MAX 4096
/* Fields of one entry: a window has the most (axis, size, step, dilation). */
#define FIELDS_MAX 4

/* ---- Usage ------------------------------------------------------------------ */

static const char usage_text[] =
    "usage: ndx COMMAND [ARGS...]        ndx COMMAND --help, ndx help COMMAND: its usage\n"
    "\n"
    "commands:\n"
    "  show [--json] [--bits N] LAYOUT  the canonical layout, numel, span and flags\n"
    "  move LAYOUT MOVE ARGS...         applies one or more moves in order, prints the result\n"
    "  coalesce LAYOUT...               coalesces layouts of one shape, prints one per line\n"
    "  pack [--bits N] LAYOUT...        the packed device form of layouts (ndx_pack)\n"
    "  pack --copy [--bits N] DST SRC   the packed form of a copy (ndx_pack_copy)\n"
    "  copy [--device N] [--bits N] DST SRC\n"
    "                                   one ndx_cl_copy on an OpenCL device, verified\n"
    "  convert [--device N] --from TYPE --to TYPE DST SRC\n"
    "                                   one ndx_cl_convert (values between number types), "
    "verified\n"
    "  gather --axis A DST SRC INDEX    one ndx_cl_gather on an OpenCL device, verified\n"
    "  scatter --axis A DST SRC INDEX   one ndx_cl_scatter on an OpenCL device, verified\n"
    "  bench [ARGS...]                  runs ndx-bench (ndx bench --help for its options)\n"
    "  devices                          lists OpenCL platforms and devices\n"
    "  demo                             a short tour of the host and device sides\n"
    "  help [COMMAND]                   this text, or COMMAND's\n"
#ifndef NDX_TOOL_HAVE_OPENCL
    "\n"
    "This ndx was built without OpenCL: copy, convert, gather, scatter and devices are not\n"
    "available, and demo shows the host side only.\n"
#endif
    "\n"
    "LAYOUT is ndx_format's text, strides and offset optional (C order, 0):\n"
    "  'shape=[3,2] strides=[1,3] offset=0'   'shape=[2,3]'\n"
    "or DLPack-like JSON, inline or from a file ('@FILE'; needs DLPack and jansson):\n"
    "  '{\"shape\":[3,2],\"strides\":[1,3],\"byte_offset\":0,\n"
    "    \"dtype\":{\"code\":\"float\",\"bits\":32,\"lanes\":1}}'\n"
    "  strides (or null: C order), byte_offset (0) and dtype are optional; elements are\n"
    "  dtype.bits * dtype.lanes wide, else --bits, else 32 bits.\n"
    "\n"
    "exit status: 0 result printed; 1 the library refused (its reason printed);\n"
    "2 malformed command line (message on stderr).\n"
    "\n"
    "examples (each command's --help has more):\n"
    "  $ ndx show 'shape=[3,2] strides=[1,3]'\n"
    "\n"
    "  $ ndx move 'shape=[3,2] strides=[1,3]' transpose 0 1 reshape 6\n"
    "  shape=[6] strides=[1] offset=0\n"
    "\n"
    "  $ ndx coalesce 'shape=[4,5,2,3]' 'shape=[4,5,2,3] strides=[5,1,60,20]'\n"
    "  shape=[20,6] strides=[6,1] offset=0\n"
    "  shape=[20,6] strides=[1,20] offset=0\n";

static const char show_usage[] =
    "usage: ndx show [--json] [--bits N] LAYOUT\n"
    "\n"
    "Prints the layout in canonical form, its rank, element count, span [lo, hi)\n"
    "in elements, and whether it is C-contiguous, Fortran-contiguous and distinct.\n"
    "\n"
    "  --json    prints the layout as one line of DLPack-like JSON instead, which\n"
    "            every LAYOUT argument reads back (byte_offset = offset * bits / 8;\n"
    "            a sub-byte layout whose offset starts inside a byte has none: exit 1)\n"
    "  --bits N  element width: 1, 2, 4, 8, 16, 32, 64 or 128 (default: the JSON\n"
    "            dtype's, else 32)\n"
    "\n"
    "examples:\n"
    "  $ ndx show 'shape=[1,3] strides=[7,1] offset=5'\n"
    "  layout      shape=[1,3] strides=[0,1] offset=5\n"
    "  rank        2\n"
    "  numel       3\n"
    "  span        [5, 8)\n"
    "  contiguous  yes\n"
    "  fortran     yes\n"
    "  distinct    yes\n"
    "\n"
    "  $ ndx show --json --bits 16 'shape=[3,2] strides=[1,3] offset=4'\n"
    "  "
    "{\"shape\":[3,2],\"strides\":[1,3],\"byte_offset\":8,\"dtype\":{\"code\":\"uint\",\"bits\":16,"
    "\"lanes\":1}}\n";

static const char move_usage[] =
    "usage: ndx move LAYOUT MOVE ARGS... [MOVE ARGS...]...\n"
    "\n"
    "Applies the moves in order and prints the resulting layout; a move the\n"
    "library refuses prints its reason and exits 1.\n"
    "\n"
    "moves:\n"
    "  reshape D0,D1,...                       same element count, no copy\n"
    "  broadcast D0,D1,...                     right-aligned target shape\n"
    "  permute P0,P1,...                       result axis i = old axis Pi\n"
    "  slice 'start=[..] count=[..] step=[..]' one range per axis: count elements\n"
    "                                          from start, step apart (not Python's\n"
    "                                          start:stop:step); step=[..] optional,\n"
    "                                          all 1\n"
    "  window 'axis=[..] size=[..] step=[..] dilation=[..]'\n"
    "                                          one window per entry, each appending\n"
    "                                          an axis of extent size; step=[..] and\n"
    "                                          dilation=[..] optional, all 1\n"
    "  narrow AXIS START LEN\n"
    "  transpose A B\n"
    "  flip AXIS\n"
    "  squeeze AXIS\n"
    "  unsqueeze AXIS\n"
    "D0,D1,... and P0,P1,... are comma-separated, optionally in brackets ([] is\n"
    "empty). A slice's or a window's fields are lists in brackets with one entry\n"
    "per axis (per window), in any order, one quoted argument as a LAYOUT is (or\n"
    "separate words).\n"
    "\n"
    "examples:\n"
    "  $ ndx move 'shape=[3,2] strides=[1,3]' transpose 0 1 reshape 6\n"
    "  shape=[6] strides=[1] offset=0\n"
    "\n"
    "  2 rows from row 1, 2 apart; 3 columns from column 4, backwards by 2:\n"
    "  $ ndx move 'shape=[4,5]' slice 'start=[1,4] count=[2,3] step=[2,-2]'\n"
    "  shape=[2,3] strides=[10,-2] offset=9\n"
    "\n"
    "  windows of 3 elements, 2 apart, each element 2 from the next:\n"
    "  $ ndx move 'shape=[10]' window 'axis=[0] size=[3] step=[2] dilation=[2]'\n"
    "  shape=[3,3] strides=[2,2] offset=0\n"
    "\n"
    "  $ ndx move 'shape=[3]' unsqueeze 0 broadcast 2,3 flip 1\n"
    "  shape=[2,3] strides=[0,-1] offset=2\n";

static const char coalesce_usage[] =
    "usage: ndx coalesce LAYOUT...\n"
    "\n"
    "Coalesces layouts of one shape together (at most NDX_COALESCE_MAX): merges\n"
    "the axes every one of them can merge, drops extent-1 axes, and prints one\n"
    "layout per line.\n"
    "\n"
    "examples:\n"
    "  a 4-d transpose pair becomes a 2-d one:\n"
    "  $ ndx coalesce 'shape=[4,5,2,3]' 'shape=[4,5,2,3] strides=[5,1,60,20]'\n"
    "  shape=[20,6] strides=[6,1] offset=0\n"
    "  shape=[20,6] strides=[1,20] offset=0\n";

static const char devices_usage[] =
    "usage: ndx devices\n"
    "\n"
    "Lists the OpenCL platforms and their devices. Devices are numbered from 0\n"
    "across all platforms, as `ndx copy --device N` takes them.\n"
#ifdef NDX_TOOL_HAVE_OPENCL
    "\n"
    "examples:\n"
    "  $ ndx devices\n"
#endif
    ;

static const char demo_usage[] =
    "usage: ndx demo\n"
    "\n"
    "A short tour: layout moves on the host, then real copies on the default\n"
    "OpenCL device (the first platform, or the first whose name contains\n"
    "$NDX_CL_PLATFORM), each verified against the host, with the GB/s reached.\n"
    "\n"
    "examples:\n"
    "  $ ndx demo\n";

static const char help_usage[] = "usage: ndx help [COMMAND]\n"
                                 "\n"
                                 "Prints the tool's usage, or COMMAND's.\n"
                                 "\n"
                                 "examples:\n"
                                 "  $ ndx help move\n";

/* ---- Reading lists ------------------------------------------------------------ */

/* A list argument: entries separated by ',', each of `min_fields` to
 * `max_fields` integers separated by ':', the whole optionally in brackets.
 * Fields left out of an entry keep the values of `defaults`. Lists of one
 * field are reshape's, broadcast's and permute's; several fields to an entry
 * (START:COUNT:STEP, AXIS:SIZE:STEP:DILATION) were slice's and window's
 * old form, read now only to say how to write it (read_fields). */
typedef struct list_spec {
  const char *what; /* the argument, for messages: "reshape D0,D1,..." */
  int min_fields, max_fields;
  int64_t lo[FIELDS_MAX], hi[FIELDS_MAX]; /* bounds of each field */
  int64_t defaults[FIELDS_MAX];
} list_spec;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static bool
fail(char *why, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, size, fmt, ap);
  va_end(ap);
  return false;
}

/* Reads `text` by `spec` into entries[0..*n-1]; at most `max_entries`.
 * False for a malformed list, `why` naming the entry and field. */
static bool try_read_list(const char *text, const list_spec *spec, int max_entries,
                          int64_t entries[][FIELDS_MAX], int *n, char *why, size_t why_size) {
  size_t len = strlen(text);
  if (len >= LIST_TEXT_MAX)
    return fail(why, why_size, "%s: the list is %zu characters long, at most %d are read",
                spec->what, len, LIST_TEXT_MAX - 1);
  char buf[LIST_TEXT_MAX];
  memcpy(buf, text, len + 1);
  char *s = buf;
  /* Brackets are optional and must pair. */
  if (len > 0 && s[0] == '[') {
    if (s[len - 1] != ']')
      return fail(why, why_size, "%s: '%s' opens '[' but does not close it", spec->what, text);
    s[len - 1] = '\0';
    s++;
  } else if (len > 0 && s[len - 1] == ']') {
    return fail(why, why_size, "%s: '%s' closes ']' but does not open it", spec->what, text);
  }
  *n = 0;
  if (*s == '\0') return true; /* the empty list */
  for (;;) {
    char *comma = strchr(s, ',');
    if (comma) *comma = '\0';
    if (*n == max_entries)
      return fail(why, why_size, "%s: '%s' has more than %d entries", spec->what, text,
                  max_entries);
    int64_t *e = entries[*n];
    for (int f = 0; f < FIELDS_MAX; f++) e[f] = spec->defaults[f];
    int fields = 0;
    char *field = s;
    for (;;) {
      char *colon = strchr(field, ':');
      if (colon) *colon = '\0';
      if (fields == spec->max_fields)
        return fail(why, why_size, "%s: entry %d of '%s' has more than %d field%s", spec->what,
                    *n + 1, text, spec->max_fields, spec->max_fields == 1 ? "" : "s");
      if (!tool_read_int(field, spec->lo[fields], spec->hi[fields], &e[fields])) {
        char where[64] = "";
        if (spec->max_fields > 1) snprintf(where, sizeof where, " field %d", fields + 1);
        int64_t lo = spec->lo[fields], hi = spec->hi[fields];
        if (lo == INT64_MIN && hi == INT64_MAX)
          return fail(why, why_size, "%s: entry %d%s of '%s': '%s' is not a 64-bit integer",
                      spec->what, *n + 1, where, text, field);
        return fail(why, why_size, "%s: entry %d%s of '%s': '%s' is not an integer in [%lld, %lld]",
                    spec->what, *n + 1, where, text, field, (long long)lo, (long long)hi);
      }
      fields++;
      if (!colon) break;
      field = colon + 1;
    }
    if (fields < spec->min_fields)
      return fail(why, why_size, "%s: entry %d of '%s' has %d field%s, at least %d needed",
                  spec->what, *n + 1, text, fields, fields == 1 ? "" : "s", spec->min_fields);
    (*n)++;
    if (!comma) break;
    s = comma + 1;
  }
  return true;
}

/* try_read_list, or exit 2 with its reason. */
static void read_list(const char *text, const list_spec *spec, int max_entries,
                      int64_t entries[][FIELDS_MAX], int *n) {
  char why[LIST_TEXT_MAX + 256];
  if (!try_read_list(text, spec, max_entries, entries, n, why, sizeof why))
    tool_malformed("%s", why);
}

/* ---- Reading named fields: slice and window ------------------------------------ */

/* The argument of a slice or a window: named lists, one entry per axis (per
 * window), in the layout text's style and any order, separated by blanks:
 *   start=[1,4] count=[2,3] step=[2,-2]
 * The first `required` fields must be given; a field left out takes its
 * default in every entry. Named, so that no one reads a slice's
 * {start, count, step} as Python's start:stop:step. */
typedef struct fields_spec {
  const char *move; /* "slice" */
  int nfields, required;
  const char *names[FIELDS_MAX];
  int64_t lo[FIELDS_MAX], hi[FIELDS_MAX];
  int64_t defaults[FIELDS_MAX];
  const char *per;      /* what an entry is for: "axis", "window" */
  const char *example;  /* a whole argument, for messages */
  const char *old_form; /* the old colon form, read only to say how to write it now */
  const char *old_note; /* why the old form went */
} fields_spec;

static bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n';
}

/* "start, count and step" (`names` of `spec`) into buf. */
static const char *field_names(char *buf, size_t size, const fields_spec *spec) {
  buf[0] = '\0';
  for (int f = 0; f < spec->nfields; f++)
    snprintf(buf + strlen(buf), size - strlen(buf), "%s%s",
             f == 0                   ? ""
             : f + 1 == spec->nfields ? " and "
                                      : ", ",
             spec->names[f]);
  return buf;
}

/* The named form of entries[0..n) into buf: the required fields, and each
 * other field where an entry's value is not its default. */
static const char *fields_text(char *buf, size_t size, const fields_spec *spec,
                               int64_t entries[][FIELDS_MAX], int n) {
  buf[0] = '\0';
  for (int f = 0; f < spec->nfields; f++) {
    bool show = f < spec->required;
    for (int i = 0; i < n && !show; i++) show = entries[i][f] != spec->defaults[f];
    if (!show) continue;
    snprintf(buf + strlen(buf), size - strlen(buf), "%s%s=[", f ? " " : "", spec->names[f]);
    for (int i = 0; i < n; i++)
      snprintf(buf + strlen(buf), size - strlen(buf), "%s%lld", i ? "," : "",
               (long long)entries[i][f]);
    snprintf(buf + strlen(buf), size - strlen(buf), "]");
  }
  return buf;
}

/* Reads `text` by `spec` into entries[0..*n-1] (at most NDX_MAX_RANK); a
 * malformed argument exits 2, naming the field and entry. An argument in
 * the old colon form exits 2 saying how to write it now. */
static void read_fields(const char *text, const fields_spec *spec, int64_t entries[][FIELDS_MAX],
                        int *n) {
  char names[128], example[LIST_TEXT_MAX + 64];
  field_names(names, sizeof names, spec);
  if (!strchr(text, '=')) { /* no field named: the old form, or nothing like one */
    /* the old form: the fields in order, colon-separated, the required ones first */
    list_spec colons = {spec->old_form, spec->required, spec->nfields, {0}, {0}, {0}};
    memcpy(colons.lo, spec->lo, sizeof colons.lo);
    memcpy(colons.hi, spec->hi, sizeof colons.hi);
    memcpy(colons.defaults, spec->defaults, sizeof colons.defaults);
    int64_t old[NDX_MAX_RANK][FIELDS_MAX];
    int k;
    char why[LIST_TEXT_MAX + 256];
    if (try_read_list(text, &colons, NDX_MAX_RANK, old, &k, why, sizeof why))
      tool_malformed("move: %s '%s' is the old %s form (%s), no longer read; write %s '%s'",
                     spec->move, text, spec->old_form, spec->old_note, spec->move,
                     fields_text(example, sizeof example, spec, old, k));
    tool_malformed("move: %s '%s': no field named; write the fields %s as NAME=[..], one "
                   "entry per %s, e.g. %s '%s'",
                   spec->move, text, names, spec->per, spec->move, spec->example);
  }
  int64_t got[FIELDS_MAX][NDX_MAX_RANK];
  int count[FIELDS_MAX];
  bool given[FIELDS_MAX] = {false};
  const char *p = text;
  for (;;) {
    while (is_blank(*p)) p++;
    if (*p == '\0') break;
    const char *name = p;
    while (*p && *p != '=' && !is_blank(*p)) p++;
    int len = (int)(p - name);
    if (*p != '=')
      tool_malformed("move: %s '%s': '%.*s' is no field: write NAME=[..] (the fields are %s)",
                     spec->move, text, len, name, names);
    int f = 0;
    while (f < spec->nfields &&
           !(strlen(spec->names[f]) == (size_t)len && strncmp(spec->names[f], name, len) == 0))
      f++;
    if (f == spec->nfields)
      tool_malformed("move: %s '%s': unknown field '%.*s' (the fields are %s)", spec->move, text,
                     len, name, names);
    if (given[f])
      tool_malformed("move: %s '%s': %s is given twice", spec->move, text, spec->names[f]);
    given[f] = true;
    p++; /* '=' */
    if (*p != '[') {
      const char *end = p;
      while (*end && !is_blank(*end)) end++;
      tool_malformed("move: %s '%s': %s=%.*s: a field's list is written in brackets, as "
                     "%s=[%.*s]",
                     spec->move, text, spec->names[f], (int)(end - p), p, spec->names[f],
                     (int)(end - p), p);
    }
    p++;
    count[f] = 0;
    while (is_blank(*p)) p++;
    if (*p == ']') {
      p++;
    } else {
      for (;;) {
        while (is_blank(*p)) p++;
        const char *v = p;
        while (*p && *p != ',' && *p != ']' && !is_blank(*p)) p++;
        char num[64];
        int vlen = (int)(p - v);
        if (count[f] == NDX_MAX_RANK)
          tool_malformed("move: %s '%s': %s=[..] has more than %d entries", spec->move, text,
                         spec->names[f], NDX_MAX_RANK);
        if (vlen == 0)
          tool_malformed("move: %s '%s': %s=[..] entry %d is empty", spec->move, text,
                         spec->names[f], count[f] + 1);
        if (vlen >= (int)sizeof num)
          tool_malformed("move: %s '%s': %s=[..] entry %d, '%.40s...', is not an integer",
                         spec->move, text, spec->names[f], count[f] + 1, v);
        memcpy(num, v, (size_t)vlen);
        num[vlen] = '\0';
        if (!tool_read_int(num, spec->lo[f], spec->hi[f], &got[f][count[f]])) {
          if (spec->lo[f] == INT64_MIN && spec->hi[f] == INT64_MAX)
            tool_malformed("move: %s '%s': %s=[..] entry %d, '%s', is not a 64-bit integer",
                           spec->move, text, spec->names[f], count[f] + 1, num);
          tool_malformed("move: %s '%s': %s=[..] entry %d, '%s', is not an integer in "
                         "[%lld, %lld]",
                         spec->move, text, spec->names[f], count[f] + 1, num,
                         (long long)spec->lo[f], (long long)spec->hi[f]);
        }
        count[f]++;
        while (is_blank(*p)) p++;
        if (*p == ',') {
          p++;
          continue;
        }
        if (*p == ']') {
          p++;
          break;
        }
        tool_malformed("move: %s '%s': %s=[ is not closed by ']'", spec->move, text,
                       spec->names[f]);
      }
    }
    if (*p && !is_blank(*p))
      tool_malformed("move: %s '%s': '%s' follows %s=[..] without a blank", spec->move, text, p,
                     spec->names[f]);
  }
  for (int f = 0; f < spec->required; f++)
    if (!given[f])
      tool_malformed("move: %s '%s': no %s=[..] (a %s needs %s=[..] and %s=[..])", spec->move, text,
                     spec->names[f], spec->move, spec->names[0], spec->names[1]);
  *n = count[0];
  for (int f = 1; f < spec->nfields; f++)
    if (given[f] && count[f] != *n)
      tool_malformed("move: %s '%s': %s=[..] has %d entr%s, %s=[..] %d: one each per %s",
                     spec->move, text, spec->names[0], *n, *n == 1 ? "y" : "ies", spec->names[f],
                     count[f], spec->per);
  for (int i = 0; i < *n; i++)
    for (int f = 0; f < FIELDS_MAX; f++)
      entries[i][f] = f < spec->nfields && given[f] ? got[f][i] : spec->defaults[f];
}

/* ---- Layouts --------------------------------------------------------------- */

/* Reads the layout argument `text` (`what` names it): ndx_format's text or
 * JSON; anything refused exits 2 with the reason. */
static void arg_layout(ndx_layout *l, const char *text, const char *what) {
  tool_layout t;
  tool_arg_layout(&t, text, what, TOOL_DEFAULT_BITS);
  *l = t.l;
}

/* ---- show -------------------------------------------------------------------- */

static int cmd_show(int argc, char **argv) {
  bool json = false;
  int bits = 0;
  const char *text = NULL;
  for (int i = 0; i < argc; i++) {
    const char *v;
    if (strcmp(argv[i], "--json") == 0)
      json = true;
    else if ((v = tool_option_value(argc, argv, &i, "--bits")))
      bits = tool_arg_bits(v, "show: --bits");
    else if (argv[i][0] == '-')
      tool_malformed("show: unknown option '%s'", argv[i]);
    else if (text)
      tool_malformed("show: takes one LAYOUT; extra argument '%s'", argv[i]);
    else
      text = argv[i];
  }
  if (!text) tool_malformed("show: missing LAYOUT");
  tool_layout t;
  tool_arg_layout(&t, text, "show: LAYOUT", bits ? bits : TOOL_DEFAULT_BITS);
  bits = tool_agree_bits(bits, 1, &t, (const char *const[]){"show: LAYOUT"});
  const ndx_layout *l = &t.l;
  if (json) {
    char why[256];
    if (tool_print_json(stdout, &t, bits, why, sizeof why)) return 0;
    printf("show --json: no JSON form: %s\n", why);
    return 1;
  }
  char buf[TOOL_LAYOUT_TEXT_MAX];
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  printf("layout      %s\n", tool_layout_text(buf, l));
  printf("rank        %d\n", (int)l->rank);
  printf("numel       %lld\n", (long long)ndx_numel(l));
  printf("span        [%lld, %lld)\n", (long long)lo, (long long)hi);
  printf("contiguous  %s\n", ndx_is_contiguous(l) ? "yes" : "no");
  printf("fortran     %s\n", ndx_is_fortran_contiguous(l) ? "yes" : "no");
  printf("distinct    %s\n", ndx_is_distinct(l) ? "yes" : "no");
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
    {"slice", MV_SLICE, 1, {"'start=[..] count=[..] step=[..]'"}},
    {"window", MV_WINDOW, 1, {"'axis=[..] size=[..] step=[..] dilation=[..]'"}},
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
static const fields_spec slice_fields = {.move = "slice",
                                         .nfields = 3,
                                         .required = 2,
                                         .names = {"start", "count", "step"},
                                         .lo = {INT64_MIN, INT64_MIN, INT64_MIN},
                                         .hi = {INT64_MAX, INT64_MAX, INT64_MAX},
                                         .defaults = {0, 0, 1},
                                         .per = "axis",
                                         .example = "start=[0,3] count=[2,4] step=[1,-1]",
                                         .old_form = "START:COUNT:STEP",
                                         .old_note =
                                             "COUNT elements, not Python's start:stop:step"};
static const fields_spec window_fields = {.move = "window",
                                          .nfields = 4,
                                          .required = 2,
                                          .names = {"axis", "size", "step", "dilation"},
                                          .lo = {INT32_MIN, INT64_MIN, INT64_MIN, INT64_MIN},
                                          .hi = {INT32_MAX, INT64_MAX, INT64_MAX, INT64_MAX},
                                          .defaults = {0, 0, 1, 1},
                                          .per = "window",
                                          .example = "axis=[1] size=[3] step=[1] dilation=[2]",
                                          .old_form = "AXIS:SIZE:STEP:DILATION",
                                          .old_note = "not a Python slice"};

/* True iff `word` starts with one of spec's field names and '='. */
static bool names_a_field(const char *word, const fields_spec *spec) {
  for (int f = 0; f < spec->nfields; f++) {
    size_t len = strlen(spec->names[f]);
    if (strncmp(word, spec->names[f], len) == 0 && word[len] == '=') return true;
  }
  return false;
}

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
  if (!w) tool_malformed("move: unknown move '%s' (argument %d)", args[0], pos);
  if (argc - 1 < w->nargs)
    tool_malformed("move: %s needs %d argument%s (%s%s%s%s%s), got %d", w->name, w->nargs,
                   w->nargs == 1 ? "" : "s", w->args[0], w->nargs > 1 ? " " : "",
                   w->nargs > 1 ? w->args[1] : "", w->nargs > 2 ? " " : "",
                   w->nargs > 2 ? w->args[2] : "", argc - 1);
  pm->word = w;
  /* A slice's or window's fields may also come as separate words: the
   * words after the first that name a field join it. */
  const fields_spec *fields = w->id == MV_SLICE    ? &slice_fields
                              : w->id == MV_WINDOW ? &window_fields
                                                   : NULL;
  int nargs = w->nargs;
  while (fields && 1 + nargs < argc && names_a_field(args[1 + nargs], fields)) nargs++;
  int used = snprintf(pm->label, sizeof pm->label, "%s", w->name);
  for (int a = 0; a < nargs && used >= 0 && (size_t)used < sizeof pm->label; a++)
    used += snprintf(pm->label + used, sizeof pm->label - (size_t)used, " %s", args[1 + a]);

  char what[128];
  if (w->nargs == 1 && w->id <= MV_WINDOW) {
    int64_t e[NDX_MAX_RANK][FIELDS_MAX];
    int n = 0;
    if (fields) {
      char text[LIST_TEXT_MAX];
      size_t len = 0;
      for (int a = 0; a < nargs; a++) {
        size_t k = strlen(args[1 + a]);
        if (len + k + 1 >= sizeof text)
          tool_malformed("move: %s: its fields are %zu characters long or more, at most %zu are "
                         "read",
                         w->name, len + k + 1, sizeof text - 1);
        if (a) text[len++] = ' ';
        memcpy(text + len, args[1 + a], k + 1);
        len += k;
      }
      read_fields(text, fields, e, &n);
    } else {
      list_spec spec = w->id == MV_PERMUTE ? perm_list : shape_list;
      snprintf(what, sizeof what, "%s %s", w->name, w->args[0]);
      spec.what = what;
      read_list(args[1], &spec, NDX_MAX_RANK, e, &n);
    }
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
          tool_arg_int(args[1 + a], what, axis ? INT_MIN : INT64_MIN, axis ? INT_MAX : INT64_MAX);
    }
  }
  return 1 + nargs;
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
  if (argc < 1) tool_malformed("move: missing LAYOUT");
  if (argc < 2) tool_malformed("move: missing MOVE after LAYOUT '%s'", argv[0]);
  ndx_layout l;
  arg_layout(&l, argv[0], "move: LAYOUT");

  /* Read the whole chain first so that a malformed word anywhere in the line
   * is reported (exit 2) before any move runs. */
  static parsed_move pm; /* large: kept off the stack */
  int moves = 0;
  for (int i = 1; i < argc; moves++) i += parse_move(&pm, argc - i, argv + i, i + 2);

  char buf[TOOL_LAYOUT_TEXT_MAX];
  for (int i = 1, k = 0; i < argc; k++) {
    i += parse_move(&pm, argc - i, argv + i, i + 2);
    ndx_layout out;
    ndx_status s = run_move(&out, &l, &pm);
    if (s != NDX_OK) {
      if (moves > 1)
        printf("move %d of %d applies to %s\n", k + 1, moves, tool_layout_text(buf, &l));
      print_refusal(pm.label, s);
      return 1;
    }
    l = out;
  }
  printf("%s\n", tool_layout_text(buf, &l));
  return 0;
}

/* ---- coalesce ---------------------------------------------------------------- */

static int cmd_coalesce(int argc, char **argv) {
  if (argc < 1) tool_malformed("coalesce: missing LAYOUT");
  if (argc > NDX_COALESCE_MAX)
    tool_malformed("coalesce: %d layouts given, at most %d", argc, NDX_COALESCE_MAX);
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
  char buf[TOOL_LAYOUT_TEXT_MAX];
  for (int i = 0; i < argc; i++) printf("%s\n", tool_layout_text(buf, &out[i]));
  return 0;
}

/* ---- demo -------------------------------------------------------------------- */

/* Prints "  <what>  <layout>" or the refusal; true iff the status was `want`. */
static bool demo_step(const char *what, ndx_status s, ndx_status want, const ndx_layout *l) {
  char buf[TOOL_LAYOUT_TEXT_MAX];
  if (s == NDX_OK)
    printf("  %-40s %s\n", what, tool_layout_text(buf, l));
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
  printf("  slice start=[0,2,0] count=[2,2,2]\n");
  ok &= demo_step("      step=[1,-1,3] of the original:",
                  ndx_slice(&v, &a, (ndx_range[]){{0, 2, 1}, {2, 2, -1}, {0, 2, 3}}), NDX_OK, &v);
  printf("  %-40s %s\n", "", "(COUNT elements from START, STEP apart: axis 1 takes 2, then 1)");
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
  if (argc > 0) tool_malformed("demo: takes no argument; extra argument '%s'", argv[0]);
  int host = demo_host();
  printf("ndx demo: device side\n\n");
  fflush(stdout);
  int device = tool_demo_device();
  return host ? host : device;
}

/* ---- main -------------------------------------------------------------------- */

typedef struct command {
  const char *name;
  const char *usage;
} command;

static const command commands[] = {
    {"show", show_usage},          {"move", move_usage},
    {"coalesce", coalesce_usage},  {"pack", tool_pack_usage},
    {"copy", tool_copy_usage},     {"convert", tool_convert_usage},
    {"gather", tool_gather_usage}, {"scatter", tool_scatter_usage},
    {"bench", tool_bench_usage},   {"devices", devices_usage},
    {"demo", demo_usage},          {"help", help_usage},
};
#define NCOMMANDS (int)(sizeof commands / sizeof commands[0])

static const command *find_command(const char *name) {
  for (int k = 0; k < NCOMMANDS; k++)
    if (strcmp(name, commands[k].name) == 0) return &commands[k];
  return NULL;
}

/* Prints a command's usage on stdout (exit 0): asked for, not a misuse. */
static int print_usage(const command *c, const char *argv0) {
  if (strcmp(c->name, "bench") == 0) return tool_bench_help(argv0);
  fputs(c->usage, stdout);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage_text, stderr);
    return 2; /* no COMMAND: a malformed command line */
  }
  const char *cmd = argv[1];
  int n = argc - 2;
  char **args = argv + 2;
  if (tool_is_help(cmd) || strcmp(cmd, "help") == 0) {
    if (n == 0) {
      fputs(usage_text, stdout);
      return 0;
    }
    if (strcmp(cmd, "help") == 0 && tool_is_help(args[0])) args[0] = "help"; /* help --help */
    if (n > 1) tool_malformed("help: takes one COMMAND; extra argument '%s'", args[1]);
    const command *c = find_command(args[0]);
    if (!c) tool_malformed("help: unknown command '%s'", args[0]);
    return print_usage(c, argv[0]);
  }
  const command *c = find_command(cmd);
  if (!c) tool_malformed("unknown command '%s'", cmd);
  tool_command = c->name;
  /* `ndx CMD --help`; bench passes its later arguments on to ndx-bench. */
  if (n > 0 && tool_is_help(args[0])) {
    if (n > 1 && strcmp(cmd, "bench") != 0)
      tool_malformed("%s: --help takes no argument; extra argument '%s'", cmd, args[1]);
    return print_usage(c, argv[0]);
  }
  if (strcmp(cmd, "show") == 0) return cmd_show(n, args);
  if (strcmp(cmd, "move") == 0) return cmd_move(n, args);
  if (strcmp(cmd, "coalesce") == 0) return cmd_coalesce(n, args);
  if (strcmp(cmd, "pack") == 0) return tool_cmd_pack(n, args);
  if (strcmp(cmd, "copy") == 0) return tool_cmd_copy(n, args);
  if (strcmp(cmd, "convert") == 0) return tool_cmd_convert(n, args);
  if (strcmp(cmd, "gather") == 0) return tool_cmd_gather(n, args);
  if (strcmp(cmd, "scatter") == 0) return tool_cmd_scatter(n, args);
  if (strcmp(cmd, "bench") == 0) return tool_cmd_bench(n, args, argv[0]);
  if (strcmp(cmd, "demo") == 0) return cmd_demo(n, args);
  /* "devices": the last one left ("help" was handled above) */
  if (n > 0) tool_malformed("devices: takes no argument; extra argument '%s'", args[0]);
  return tool_devices();
}
