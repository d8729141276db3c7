/* layout_json.c: LAYOUT arguments of the `ndx` tool, as ndx_format's text or
 * as DLPack-like JSON (inline '{...}' or '@FILE'), and the JSON a layout
 * prints as. JSON is parsed by jansson (strict RFC 8259: duplicate keys,
 * integers past int64, invalid UTF-8, lone surrogates and \u0000 refused, the
 * line, column and byte of a fault reported); the object then fills a
 * DLTensor and ndx_dlpack_import makes the layout, so the tool accepts exactly
 * what a DLPack producer could hand the library. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

#if defined(NDX_TOOL_HAVE_JSON)
#include <jansson.h>

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

#if defined(NDX_TOOL_HAVE_JSON)

/* DLPack's type codes by name (dlpack.h's DLDataTypeCode, and kDLBool of 1.x). */
static const struct {
  const char *name;
  int code;
} dtype_codes[] = {{"int", 0},    {"uint", 1},    {"float", 2}, {"opaque_handle", 3},
                   {"bfloat", 4}, {"complex", 5}, {"bool", 6}};
#define NCODES (int)(sizeof dtype_codes / sizeof dtype_codes[0])

/* The parsed document and the argument's name, for messages. */
typedef struct reader {
  json_t *root;
  const char *what;
} reader;

/* Frees the document, then exits 2 with "WHAT: JSON: ...". The message names
 * the member at fault ("shape" entry 1): jansson keeps no positions of values. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static _Noreturn void
refuse(reader *r, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  json_decref(r->root);
  tool_malformed("%s: JSON: %s", r->what, msg);
}

/* What `v` is, for messages: "a string", "true", "the real number 2.5". */
static const char *kind(const json_t *v, char *buf, size_t size) {
  switch (json_typeof(v)) {
  case JSON_OBJECT:
    return "an object";
  case JSON_ARRAY:
    return "an array";
  case JSON_STRING:
    return "a string";
  case JSON_INTEGER:
    return "an integer";
  case JSON_TRUE:
    return "true";
  case JSON_FALSE:
    return "false";
  case JSON_NULL:
    return "null";
  case JSON_REAL: {
    /* jansson's own form of the number: 2.0 stays 2.0, 1e3 is 1000.0 */
    char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
    snprintf(buf, size, "the real number %s", text ? text : "?");
    free(text);
    return buf;
  }
  }
  return "?";
}

/* Reads the array `a` of member `key` into v (at most `max` integers, else a
 * refusal naming the count); returns the entries read. */
static int int_array(reader *r, const json_t *a, const char *key, int64_t *v, int max) {
  char buf[64];
  if (!json_is_array(a))
    refuse(r, "\"%s\" must be an array of integers, found %s", key, kind(a, buf, sizeof buf));
  size_t n = json_array_size(a);
  if (n > (size_t)max) refuse(r, "\"%s\" has %zu entries, at most %d (NDX_MAX_RANK)", key, n, max);
  for (size_t i = 0; i < n; i++) {
    const json_t *e = json_array_get(a, i);
    if (!json_is_integer(e))
      refuse(r, "\"%s\" entry %zu must be an integer, found %s", key, i, kind(e, buf, sizeof buf));
    v[i] = (int64_t)json_integer_value(e);
  }
  return (int)n;
}

/* An integer member in [lo, hi]. */
static int64_t int_member(reader *r, const json_t *m, const char *key, int64_t lo, int64_t hi) {
  char buf[64];
  if (!json_is_integer(m))
    refuse(r, "\"%s\" must be an integer, found %s", key, kind(m, buf, sizeof buf));
  int64_t v = (int64_t)json_integer_value(m);
  if (v < lo || v > hi)
    refuse(r, "\"%s\" is %lld, not in [%lld, %lld]", key, (long long)v, (long long)lo,
           (long long)hi);
  return v;
}

/* Reads "dtype" into t->dtype and *out. */
static void read_dtype(reader *r, const json_t *d, DLTensor *t, tool_layout *out) {
  char buf[64];
  if (!json_is_object(d))
    refuse(r, "\"dtype\" must be an object {\"code\", \"bits\", \"lanes\"}, found %s",
           kind(d, buf, sizeof buf));
  const char *k;
  const json_t *m;
  json_object_foreach((json_t *)d, k, m) {
    if (strcmp(k, "code") != 0 && strcmp(k, "bits") != 0 && strcmp(k, "lanes") != 0)
      refuse(r, "unknown key \"%s\" in \"dtype\" (code, bits, lanes)", k);
  }
  const json_t *code = json_object_get(d, "code"), *bits = json_object_get(d, "bits"),
               *lanes = json_object_get(d, "lanes");
  if (!code) refuse(r, "\"dtype\" has no \"code\"");
  if (!bits) refuse(r, "\"dtype\" has no \"bits\"");
  out->code_name = NULL;
  if (json_is_string(code)) {
    const char *name = json_string_value(code);
    int c = 0;
    while (c < NCODES && strcmp(name, dtype_codes[c].name) != 0) c++;
    if (c == NCODES)
      refuse(r,
             "\"code\" \"%s\" is not a DLPack type code (int, uint, float, opaque_handle, bfloat, "
             "complex, bool, or a number 0-255)",
             name);
    out->code = dtype_codes[c].code, out->code_name = dtype_codes[c].name;
  } else {
    out->code = (int)int_member(r, code, "code", 0, 255);
  }
  out->dtype_bits = (int)int_member(r, bits, "bits", 1, 255);
  out->lanes = lanes ? (int)int_member(r, lanes, "lanes", 1, 65535) : 1;
  t->dtype = (DLDataType){(uint8_t)out->code, (uint8_t)out->dtype_bits, (uint16_t)out->lanes};
}

/* Parses `text` (or, with `path`, the file) and makes the layout. */
static void read_json(tool_layout *out, const char *what, const char *text, const char *path,
                      int bits) {
  /* Any value at the top, so that '[1]' gets "a layout is an object". */
  size_t flags = JSON_REJECT_DUPLICATES | JSON_DECODE_ANY;
  json_error_t e;
  reader r = {.what = what};
  if (path) {
    FILE *f = fopen(path, "rb");
    if (!f) tool_malformed("%s: cannot open '%s': %s", what, path, strerror(errno));
    r.root = json_loadf(f, flags, &e);
    int bad =
        ferror(f) ? (errno ? errno : EIO) : 0; /* a directory reads as an error, not as no text */
    fclose(f);
    if (bad) {
      json_decref(r.root);
      tool_malformed("%s: cannot read '%s': %s", what, path, strerror(bad));
    }
  } else {
    r.root = json_loadb(text, strlen(text), flags, &e);
  }
  if (!r.root)
    tool_malformed("%s: not JSON%s%s: line %d, column %d, byte %d: %s", what, path ? " in " : "",
                   path ? path : "", e.line, e.column, e.position, e.text);
  char buf[64];
  const json_t *root = r.root;
  if (!json_is_object(root))
    refuse(&r, "a layout is an object {\"shape\", ...}, found %s", kind(root, buf, sizeof buf));
  const char *k;
  const json_t *m;
  json_object_foreach(r.root, k, m) {
    if (strcmp(k, "shape") != 0 && strcmp(k, "strides") != 0 && strcmp(k, "byte_offset") != 0 &&
        strcmp(k, "dtype") != 0)
      refuse(&r, "unknown key \"%s\" (shape, strides, byte_offset, dtype)", k);
  }
  const json_t *shape = json_object_get(root, "shape"), *strides = json_object_get(root, "strides"),
               *offset = json_object_get(root, "byte_offset"),
               *dtype = json_object_get(root, "dtype");
  if (!shape) refuse(&r, "the layout has no \"shape\"");

  int64_t dims[NDX_MAX_RANK], steps[NDX_MAX_RANK];
  DLTensor t = {0};
  t.device = (DLDevice){kDLCPU, 0};
  t.ndim = int_array(&r, shape, "shape", dims, NDX_MAX_RANK);
  t.shape = dims;
  if (strides && !json_is_null(strides)) {
    int n = int_array(&r, strides, "strides", steps, NDX_MAX_RANK);
    if (n != t.ndim)
      refuse(&r, "\"strides\" has %d entr%s, \"shape\" %d", n, n == 1 ? "y" : "ies", (int)t.ndim);
    t.strides = steps;
  }
  if (offset) t.byte_offset = (uint64_t)int_member(&r, offset, "byte_offset", 0, INT64_MAX);
  *out = (tool_layout){0};
  if (dtype) {
    read_dtype(&r, dtype, &t, out);
  } else {
    t.dtype = (DLDataType){kDLUInt, (uint8_t)bits, 1};
  }
  int width = 0;
  /* NULL base_shift: a tool layout counts from its buffer's first byte, so a
   * view reaching below byte 0 is refused, not moved. */
  ndx_status s = ndx_dlpack_import(&out->l, &width, NULL, &t);
  if (s != NDX_OK)
    refuse(&r, "%s (%s)", ndx_last_error()[0] ? ndx_last_error() : "refused", ndx_status_name(s));
  out->bits = dtype ? width : 0;
  json_decref(r.root);
}

#endif /* NDX_TOOL_HAVE_JSON */

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
#if defined(NDX_TOOL_HAVE_JSON)
  read_json(out, what, text, text[0] == '@' ? text + 1 : NULL, bits);
#else
  (void)bits;
  tool_malformed("%s '%s' is JSON, but this ndx was built without "
#if !defined(NDX_TOOL_HAVE_DLPACK)
                 "DLPack (meson option dlpack; dlpack/dlpack.h, Debian libdlpack-dev)"
#else
                 "jansson (the JSON parser; Debian libjansson-dev)"
#endif
                 ": give the layout as text, 'shape=[..] strides=[..] offset=N'",
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
