/* layout_json.c: LAYOUT arguments of the `ndx` tool, as ndx_format's text or
 * as DLPack-like JSON (inline '{...}' or '@FILE'), and the JSON a layout
 * prints as. JSON goes through DLPack: the object fills a DLTensor and
 * ndx_dlpack_import makes the layout, so the tool accepts exactly what a
 * DLPack producer could hand the library. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tool.h"

#if defined(NDX_TOOL_HAVE_DLPACK)
#include "ndx/ndx_dlpack.h"
#endif

/* The argument as shown in messages: at most 60 characters of it. */
static const char *shown(char *buf, size_t size, const char *text) {
  size_t n = strlen(text);
  if (n <= 60)
    snprintf(buf, size, "%s", text);
  else
    snprintf(buf, size, "%.57s...", text);
  return buf;
}

#if defined(NDX_TOOL_HAVE_DLPACK)

/* DLPack's type codes by name (dlpack.h's DLDataTypeCode, and kDLBool of 1.x). */
static const struct {
  const char *name;
  int code;
} dtype_codes[] = {{"int", 0},    {"uint", 1},    {"float", 2}, {"opaque_handle", 3},
                   {"bfloat", 4}, {"complex", 5}, {"bool", 6}};
#define NCODES (int)(sizeof dtype_codes / sizeof dtype_codes[0])

/* Reads the file `path` (at most JSON_MAX_TEXT bytes) into a new buffer;
 * exits 2 naming `what` when it cannot. */
static char *read_file(const char *path, const char *what, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) tool_malformed("%s: cannot open '%s': %s", what, path, strerror(errno));
  char *buf = malloc(JSON_MAX_TEXT + 1);
  if (!buf) {
    fclose(f);
    tool_malformed("%s: out of memory reading '%s'", what, path);
  }
  size_t n = fread(buf, 1, JSON_MAX_TEXT + 1, f);
  bool bad = ferror(f) != 0;
  fclose(f);
  if (bad || n > JSON_MAX_TEXT) {
    free(buf);
    if (bad) tool_malformed("%s: cannot read '%s'", what, path);
    tool_malformed("%s: '%s' is longer than %d bytes", what, path, JSON_MAX_TEXT);
  }
  *len = n;
  return buf;
}

/* The JSON object, its text and the argument's name, for messages. */
typedef struct reader {
  json_doc doc;
  char *owned; /* the file's text, when read from @FILE */
  const char *what;
} reader;

/* Frees what the reader holds, then exits 2 with "WHAT: JSON byte N: ...". */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static _Noreturn void
refuse(reader *r, size_t at, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  json_free(&r->doc);
  free(r->owned);
  tool_malformed("%s: JSON byte %zu: %s", r->what, at, msg);
}

/* Reads member `key` of an array of integers into v (at most `max`, else a
 * refusal naming the count); returns the entries read. */
static int int_array(reader *r, const json_value *a, const char *key, int64_t *v, int max) {
  if (a->kind != JSON_ARRAY)
    refuse(r, a->at, "\"%s\" must be an array of integers, found %s", key, json_kind_name(a->kind));
  if (a->count > max)
    refuse(r, a->at, "\"%s\" has %d entries, at most %d (NDX_MAX_RANK)", key, (int)a->count, max);
  int n = 0;
  for (const json_value *e = json_first(&r->doc, a); e; e = json_next(&r->doc, e)) {
    if (e->kind != JSON_INT)
      refuse(r, e->at, "\"%s\" entry %d must be an integer, found %s", key, n,
             json_kind_name(e->kind));
    v[n++] = e->num;
  }
  return n;
}

/* An integer member in [lo, hi]. */
static int64_t int_member(reader *r, const json_value *m, const char *key, int64_t lo, int64_t hi) {
  if (m->kind != JSON_INT)
    refuse(r, m->at, "\"%s\" must be an integer, found %s", key, json_kind_name(m->kind));
  if (m->num < lo || m->num > hi)
    refuse(r, m->at, "\"%s\" is %lld, not in [%lld, %lld]", key, (long long)m->num, (long long)lo,
           (long long)hi);
  return m->num;
}

/* Reads "dtype" into t->dtype and *out. */
static void read_dtype(reader *r, const json_value *d, DLTensor *t, tool_layout *out) {
  if (d->kind != JSON_OBJECT)
    refuse(r, d->at, "\"dtype\" must be an object {\"code\", \"bits\", \"lanes\"}, found %s",
           json_kind_name(d->kind));
  const json_value *code = NULL, *bits = NULL, *lanes = NULL;
  for (const json_value *m = json_first(&r->doc, d); m; m = json_next(&r->doc, m)) {
    const char *k = json_key(&r->doc, m);
    if (strcmp(k, "code") == 0)
      code = m;
    else if (strcmp(k, "bits") == 0)
      bits = m;
    else if (strcmp(k, "lanes") == 0)
      lanes = m;
    else
      refuse(r, m->at, "unknown key \"%s\" in \"dtype\" (code, bits, lanes)", k);
  }
  if (!code) refuse(r, d->at, "\"dtype\" has no \"code\"");
  if (!bits) refuse(r, d->at, "\"dtype\" has no \"bits\"");
  out->code_name = NULL;
  if (code->kind == JSON_STRING) {
    const char *name = json_str(&r->doc, code);
    int k = 0;
    while (k < NCODES && strcmp(name, dtype_codes[k].name) != 0) k++;
    if (k == NCODES)
      refuse(r, code->at,
             "\"code\" \"%s\" is not a DLPack type code (int, uint, float, opaque_handle, bfloat, "
             "complex, bool, or a number 0-255)",
             name);
    out->code = dtype_codes[k].code, out->code_name = dtype_codes[k].name;
  } else {
    out->code = (int)int_member(r, code, "code", 0, 255);
  }
  out->dtype_bits = (int)int_member(r, bits, "bits", 1, 255);
  out->lanes = lanes ? (int)int_member(r, lanes, "lanes", 1, 65535) : 1;
  t->dtype = (DLDataType){(uint8_t)out->code, (uint8_t)out->dtype_bits, (uint16_t)out->lanes};
}

static void read_json(tool_layout *out, reader *r, const char *text, size_t len, int bits) {
  if (!json_parse(&r->doc, text, len)) {
    char why[sizeof r->doc.error];
    memcpy(why, r->doc.error, sizeof why);
    free(r->owned);
    tool_malformed("%s: not JSON: %s", r->what, why);
  }
  const json_value *root = &r->doc.values[0];
  if (root->kind != JSON_OBJECT)
    refuse(r, root->at, "a layout is an object {\"shape\", ...}, found %s",
           json_kind_name(root->kind));
  const json_value *shape = NULL, *strides = NULL, *offset = NULL, *dtype = NULL;
  for (const json_value *m = json_first(&r->doc, root); m; m = json_next(&r->doc, m)) {
    const char *k = json_key(&r->doc, m);
    if (strcmp(k, "shape") == 0)
      shape = m;
    else if (strcmp(k, "strides") == 0)
      strides = m;
    else if (strcmp(k, "byte_offset") == 0)
      offset = m;
    else if (strcmp(k, "dtype") == 0)
      dtype = m;
    else
      refuse(r, m->at, "unknown key \"%s\" (shape, strides, byte_offset, dtype)", k);
  }
  if (!shape) refuse(r, root->at, "the layout has no \"shape\"");

  int64_t dims[NDX_MAX_RANK], steps[NDX_MAX_RANK];
  DLTensor t = {0};
  t.device = (DLDevice){kDLCPU, 0};
  t.ndim = int_array(r, shape, "shape", dims, NDX_MAX_RANK);
  t.shape = dims;
  if (strides && strides->kind != JSON_NULL) {
    int n = int_array(r, strides, "strides", steps, NDX_MAX_RANK);
    if (n != t.ndim)
      refuse(r, strides->at, "\"strides\" has %d entr%s, \"shape\" %d", n, n == 1 ? "y" : "ies",
             (int)t.ndim);
    t.strides = steps;
  }
  if (offset) t.byte_offset = (uint64_t)int_member(r, offset, "byte_offset", 0, INT64_MAX);
  *out = (tool_layout){0};
  if (dtype) {
    read_dtype(r, dtype, &t, out);
  } else {
    t.dtype = (DLDataType){kDLUInt, (uint8_t)bits, 1};
  }
  int width = 0;
  /* NULL base_shift: a tool layout counts from its buffer's first byte, so a
   * view reaching below byte 0 is refused, not moved. */
  ndx_status s = ndx_dlpack_import(&out->l, &width, NULL, &t);
  if (s != NDX_OK)
    refuse(r, root->at, "%s (%s)", ndx_last_error()[0] ? ndx_last_error() : "refused",
           ndx_status_name(s));
  out->bits = dtype ? width : 0;
  json_free(&r->doc);
  free(r->owned);
}

#endif /* NDX_TOOL_HAVE_DLPACK */

void tool_arg_layout(tool_layout *out, const char *text, const char *what, int bits) {
  char buf[80];
  size_t blanks = strspn(text, " \t\n\r");
  if (text[blanks] != '{' && text[0] != '@') {
    *out = (tool_layout){0};
    ndx_status s = ndx_parse(&out->l, text);
    if (s != NDX_OK)
      tool_malformed("%s '%s' is not a layout: %s (%s)", what, shown(buf, sizeof buf, text),
                     ndx_last_error()[0] ? ndx_last_error() : "refused", ndx_status_name(s));
    return;
  }
#if defined(NDX_TOOL_HAVE_DLPACK)
  reader r = {.what = what};
  size_t len = strlen(text);
  if (text[0] == '@') {
    r.owned = read_file(text + 1, what, &len);
    text = r.owned;
  }
  read_json(out, &r, text, len, bits);
#else
  (void)bits;
  tool_malformed("%s '%s' is JSON, but this ndx was built without DLPack (meson option dlpack; "
                 "dlpack/dlpack.h, Debian libdlpack-dev): give the layout as text, "
                 "'shape=[..] strides=[..] offset=N'",
                 what, shown(buf, sizeof buf, text));
#endif
}

int tool_agree_bits(int opt, int n, const tool_layout *ls, const char *const *whats) {
  int bits = opt, from = -1;
  for (int i = 0; i < n; i++) {
    if (ls[i].bits == 0) continue;
    if (bits == 0) {
      bits = ls[i].bits, from = i;
    } else if (ls[i].bits != bits) {
      if (from < 0)
        tool_malformed("%s has %d-bit elements (its dtype), --bits says %d", whats[i], ls[i].bits,
                       bits);
      tool_malformed("%s has %d-bit elements, %s %d-bit ones (their dtypes)", whats[i], ls[i].bits,
                     whats[from], bits);
    }
  }
  return bits ? bits : TOOL_DEFAULT_BITS;
}

bool tool_print_json(FILE *f, const tool_layout *t, int bits, char *why, size_t why_size) {
  const ndx_layout *l = &t->l;
  /* offset * bits fits: offset < 2^53 and bits <= 128 */
  if (l->offset * bits % 8 != 0) {
    snprintf(why, why_size,
             "offset %lld of %d-bit elements starts inside a byte: DLPack's byte_offset has no bit "
             "offset",
             (long long)l->offset, bits);
    return false;
  }
  fputs("{\"shape\":[", f);
  for (int a = 0; a < l->rank; a++) fprintf(f, "%s%lld", a ? "," : "", (long long)l->shape[a]);
  fputs("],\"strides\":[", f);
  for (int a = 0; a < l->rank; a++) fprintf(f, "%s%lld", a ? "," : "", (long long)l->strides[a]);
  fprintf(f, "],\"byte_offset\":%lld,\"dtype\":{", (long long)(l->offset * bits / 8));
  if (t->bits == bits) {
    if (t->code_name)
      fprintf(f, "\"code\":\"%s\"", t->code_name);
    else
      fprintf(f, "\"code\":%d", t->code);
    fprintf(f, ",\"bits\":%d,\"lanes\":%d}}\n", t->dtype_bits, t->lanes);
  } else {
    fprintf(f, "\"code\":\"uint\",\"bits\":%d,\"lanes\":1}}\n", bits);
  }
  return true;
}
