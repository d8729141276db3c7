/* json.c: the strict JSON reader of json.h: a recursive descent parser whose
 * recursion is bounded by JSON_MAX_DEPTH, building an index-linked tree. */
#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
  const unsigned char *s;
  size_t len, pos;
  int depth;
  json_doc *doc;
} parser;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static bool
fail(parser *p, size_t at, const char *fmt, ...) {
  int k = snprintf(p->doc->error, sizeof p->doc->error, "byte %zu: ", at);
  va_list ap;
  va_start(ap, fmt);
  if (k > 0 && (size_t)k < sizeof p->doc->error)
    vsnprintf(p->doc->error + k, sizeof p->doc->error - (size_t)k, fmt, ap);
  va_end(ap);
  return false;
}

/* Describes the byte at `at` for messages: "'x'", "byte 0x07", "the end". */
static const char *found(const parser *p, size_t at, char *buf, size_t size) {
  if (at >= p->len)
    snprintf(buf, size, "the end of the text");
  else if (p->s[at] >= 0x21 && p->s[at] < 0x7f)
    snprintf(buf, size, "'%c'", p->s[at]);
  else
    snprintf(buf, size, "byte 0x%02x", p->s[at]);
  return buf;
}

static void skip_blanks(parser *p) {
  while (p->pos < p->len) {
    unsigned char c = p->s[p->pos];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    p->pos++;
  }
}

/* Appends a value of `kind` at `at`; returns its index, or -1 (error set). */
static int32_t add_value(parser *p, json_kind kind, size_t at) {
  json_doc *d = p->doc;
  if (d->nvalues == JSON_MAX_VALUES) {
    fail(p, at, "more than %d values", JSON_MAX_VALUES);
    return -1;
  }
  if (d->nvalues == d->cap) {
    int32_t cap = d->cap ? d->cap * 2 : 64;
    if (cap > JSON_MAX_VALUES) cap = JSON_MAX_VALUES;
    json_value *v = realloc(d->values, (size_t)cap * sizeof *v);
    if (!v) {
      fail(p, at, "out of memory");
      return -1;
    }
    d->values = v, d->cap = cap;
  }
  d->values[d->nvalues] = (json_value){.kind = kind, .at = at, .first = -1, .next = -1};
  return d->nvalues++;
}

/* ---- Strings --------------------------------------------------------------- */

static int hex_digit(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Reads the 4 hex digits of a \u escape at p->pos; -1 (error set) if bad. */
static long read_hex4(parser *p) {
  long v = 0;
  for (int i = 0; i < 4; i++) {
    int h = p->pos + (size_t)i < p->len ? hex_digit(p->s[p->pos + (size_t)i]) : -1;
    if (h < 0) {
      fail(p, p->pos + (size_t)i, "\\u needs 4 hex digits");
      return -1;
    }
    v = v * 16 + h;
  }
  p->pos += 4;
  return v;
}

/* Length of the valid UTF-8 sequence at `at` (2 to 4 bytes), or 0: overlong
 * forms, surrogates and code points past U+10FFFF are invalid. */
static size_t utf8_length(const parser *p, size_t at) {
  const unsigned char *s = p->s + at;
  size_t left = p->len - at;
  unsigned char c = s[0];
  size_t n;
  unsigned long cp;
  if (c >= 0xc2 && c <= 0xdf)
    n = 2, cp = c & 0x1fu;
  else if (c >= 0xe0 && c <= 0xef)
    n = 3, cp = c & 0x0fu;
  else if (c >= 0xf0 && c <= 0xf4)
    n = 4, cp = c & 0x07u;
  else
    return 0;
  if (left < n) return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (s[i] & 0x3fu);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;
  return n;
}

static void put_utf8(char *out, size_t *k, unsigned long cp) {
  if (cp < 0x80) {
    out[(*k)++] = (char)cp;
  } else if (cp < 0x800) {
    out[(*k)++] = (char)(0xc0 | cp >> 6);
    out[(*k)++] = (char)(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out[(*k)++] = (char)(0xe0 | cp >> 12);
    out[(*k)++] = (char)(0x80 | (cp >> 6 & 0x3f));
    out[(*k)++] = (char)(0x80 | (cp & 0x3f));
  } else {
    out[(*k)++] = (char)(0xf0 | cp >> 18);
    out[(*k)++] = (char)(0x80 | (cp >> 12 & 0x3f));
    out[(*k)++] = (char)(0x80 | (cp >> 6 & 0x3f));
    out[(*k)++] = (char)(0x80 | (cp & 0x3f));
  }
}

/* Reads the string whose '"' is at p->pos into the pool; *off gets its
 * offset there. Decoded text is never longer than its source, and the pool
 * holds len + 1 bytes, so it never overflows. */
static bool read_string(parser *p, size_t *off) {
  json_doc *d = p->doc;
  char *out = d->pool + d->pool_used;
  size_t k = 0, start = p->pos++;
  for (;;) {
    if (p->pos >= p->len) return fail(p, start, "string not closed");
    unsigned char c = p->s[p->pos];
    if (c == '"') {
      p->pos++;
      break;
    }
    if (c < 0x20) return fail(p, p->pos, "raw control byte 0x%02x in a string", c);
    if (c >= 0x80) {
      size_t n = utf8_length(p, p->pos);
      if (n == 0) return fail(p, p->pos, "invalid UTF-8 in a string");
      memcpy(out + k, p->s + p->pos, n);
      k += n, p->pos += n;
      continue;
    }
    if (c != '\\') {
      out[k++] = (char)c, p->pos++;
      continue;
    }
    size_t esc = p->pos++;
    if (p->pos >= p->len) return fail(p, start, "string not closed");
    unsigned char e = p->s[p->pos++];
    const char *plain = strchr("\"\\/bfnrt", e);
    if (e != '\0' && plain) {
      static const char to[] = "\"\\/\b\f\n\r\t";
      out[k++] = to[plain - "\"\\/bfnrt"];
      continue;
    }
    if (e != 'u') return fail(p, esc, "unknown escape '\\%c'", e >= 0x20 && e < 0x7f ? e : '?');
    long cp = read_hex4(p);
    if (cp < 0) return false;
    if (cp >= 0xdc00 && cp <= 0xdfff) return fail(p, esc, "\\u%04lx is a lone low surrogate", cp);
    if (cp >= 0xd800 && cp <= 0xdbff) {
      if (p->pos + 1 >= p->len || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
        return fail(p, esc, "\\u%04lx is a high surrogate without its low half", cp);
      size_t low_at = p->pos;
      p->pos += 2;
      long lo = read_hex4(p);
      if (lo < 0) return false;
      if (lo < 0xdc00 || lo > 0xdfff)
        return fail(p, low_at, "\\u%04lx does not follow a high surrogate", lo);
      cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    if (cp == 0) return fail(p, esc, "\\u0000 in a string is refused");
    put_utf8(out, &k, (unsigned long)cp);
  }
  out[k] = '\0';
  *off = d->pool_used;
  d->pool_used += k + 1;
  return true;
}

/* ---- Numbers -------------------------------------------------------------- */

/* Reads an integer: -?(0|[1-9][0-9]*), exactly in int64, nothing after it
 * that would make it a fraction or an exponent. */
static bool read_number(parser *p, int64_t *v) {
  size_t start = p->pos;
  bool neg = p->s[p->pos] == '-';
  if (neg) p->pos++;
  if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9')
    return fail(p, start, "'-' without digits");
  if (p->s[p->pos] == '0' && p->pos + 1 < p->len && p->s[p->pos + 1] >= '0' &&
      p->s[p->pos + 1] <= '9')
    return fail(p, start, "a number with a leading zero");
  uint64_t mag = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  bool over = false;
  while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
    unsigned d = p->s[p->pos++] - '0';
    if (mag > (limit - d) / 10) over = true;
    if (!over) mag = mag * 10 + d;
  }
  if (p->pos < p->len && (p->s[p->pos] == '.' || p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
    while (p->pos < p->len && strchr("0123456789.eE+-", p->s[p->pos]) && p->s[p->pos]) p->pos++;
    int n = (int)(p->pos - start > 40 ? 40 : p->pos - start);
    return fail(p, start, "%.*s%s is not an integer (fractions and exponents are refused)", n,
                (const char *)p->s + start, p->pos - start > 40 ? "..." : "");
  }
  int shown = (int)(p->pos - start > 40 ? 40 : p->pos - start);
  if (over)
    return fail(p, start, "%.*s%s is past the 64-bit integer range", shown,
                (const char *)p->s + start, p->pos - start > 40 ? "..." : "");
  *v = neg ? (int64_t)(0 - mag) : (int64_t)mag;
  return true;
}

/* ---- Values --------------------------------------------------------------- */

static int32_t read_value(parser *p);

/* Reads an array or object whose opening bracket is at p->pos. */
static int32_t read_container(parser *p, bool object) {
  size_t at = p->pos;
  if (p->depth == JSON_MAX_DEPTH) {
    fail(p, at, "nesting deeper than %d", JSON_MAX_DEPTH);
    return -1;
  }
  int32_t self = add_value(p, object ? JSON_OBJECT : JSON_ARRAY, at);
  if (self < 0) return -1;
  p->depth++;
  p->pos++;
  skip_blanks(p);
  char close = object ? '}' : ']';
  int32_t last = -1;
  char what[32];
  if (p->pos < p->len && p->s[p->pos] == (unsigned char)close) {
    p->pos++;
    p->depth--;
    return self;
  }
  for (;;) {
    size_t key = 0, key_at = p->pos;
    if (object) {
      if (p->pos >= p->len || p->s[p->pos] != '"') {
        fail(p, p->pos, "expected a key string, found %s", found(p, p->pos, what, sizeof what));
        return -1;
      }
      if (!read_string(p, &key)) return -1;
      /* A key given twice would leave its meaning to the reader: refused. */
      for (int32_t c = p->doc->values[self].first; c >= 0; c = p->doc->values[c].next)
        if (strcmp(p->doc->pool + p->doc->values[c].key, p->doc->pool + key) == 0) {
          fail(p, key_at, "key \"%s\" given twice", p->doc->pool + key);
          return -1;
        }
      skip_blanks(p);
      if (p->pos >= p->len || p->s[p->pos] != ':') {
        fail(p, p->pos, "expected ':' after a key, found %s", found(p, p->pos, what, sizeof what));
        return -1;
      }
      p->pos++;
      skip_blanks(p);
    }
    int32_t child = read_value(p);
    if (child < 0) return -1;
    json_value *v = p->doc->values; /* read_value may have moved the array */
    v[child].key = key;
    if (last < 0)
      v[self].first = child;
    else
      v[last].next = child;
    last = child;
    if (++v[self].count > JSON_MAX_MEMBERS && object) {
      fail(p, key_at, "an object of more than %d members", JSON_MAX_MEMBERS);
      return -1;
    }
    skip_blanks(p);
    if (p->pos < p->len && p->s[p->pos] == ',') {
      size_t comma = p->pos++;
      skip_blanks(p);
      if (p->pos < p->len && p->s[p->pos] == (unsigned char)close) {
        fail(p, comma, "trailing comma before '%c'", close);
        return -1;
      }
      continue;
    }
    if (p->pos < p->len && p->s[p->pos] == (unsigned char)close) {
      p->pos++;
      break;
    }
    fail(p, p->pos, "expected ',' or '%c' in the %s opened at byte %zu, found %s", close,
         object ? "object" : "array", at, found(p, p->pos, what, sizeof what));
    return -1;
  }
  p->depth--;
  return self;
}

static bool literal(parser *p, const char *word) {
  size_t n = strlen(word);
  return p->len - p->pos >= n && memcmp(p->s + p->pos, word, n) == 0;
}

static int32_t read_value(parser *p) {
  char what[32];
  if (p->pos >= p->len) {
    fail(p, p->pos, "expected a value, found the end of the text");
    return -1;
  }
  size_t at = p->pos;
  unsigned char c = p->s[at];
  if (c == '{' || c == '[') return read_container(p, c == '{');
  if (c == '"') {
    int32_t self = add_value(p, JSON_STRING, at);
    size_t off;
    if (self < 0 || !read_string(p, &off)) return -1;
    p->doc->values[self].str = off;
    return self;
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    int64_t v = 0;
    if (!read_number(p, &v)) return -1;
    int32_t self = add_value(p, JSON_INT, at);
    if (self >= 0) p->doc->values[self].num = v;
    return self;
  }
  static const struct {
    const char *word;
    json_kind kind;
  } words[] = {{"null", JSON_NULL}, {"false", JSON_FALSE}, {"true", JSON_TRUE}};
  for (int i = 0; i < 3; i++)
    if (literal(p, words[i].word)) {
      p->pos += strlen(words[i].word);
      return add_value(p, words[i].kind, at);
    }
  fail(p, at, "expected a value, found %s", found(p, at, what, sizeof what));
  return -1;
}

/* ---- The document ---------------------------------------------------------- */

bool json_parse(json_doc *doc, const char *text, size_t len) {
  json_free(doc);
  parser p = {.s = (const unsigned char *)text, .len = len, .doc = doc};
  if (len > JSON_MAX_TEXT) {
    fail(&p, JSON_MAX_TEXT, "the text is %zu bytes long, at most %d are read", len, JSON_MAX_TEXT);
    return false;
  }
  doc->pool = malloc(len + 1);
  if (!doc->pool) {
    fail(&p, 0, "out of memory");
    return false;
  }
  skip_blanks(&p);
  bool ok = read_value(&p) >= 0;
  if (ok) {
    skip_blanks(&p);
    if (p.pos < len) {
      char what[32];
      ok = fail(&p, p.pos, "%s after the value", found(&p, p.pos, what, sizeof what));
    }
  }
  if (!ok) {
    char keep[sizeof doc->error];
    memcpy(keep, doc->error, sizeof keep);
    json_free(doc);
    memcpy(doc->error, keep, sizeof keep);
  }
  return ok;
}

void json_free(json_doc *doc) {
  free(doc->values);
  free(doc->pool);
  *doc = (json_doc){0};
}

const char *json_str(const json_doc *doc, const json_value *v) {
  return doc->pool + v->str;
}

const char *json_key(const json_doc *doc, const json_value *v) {
  return doc->pool + v->key;
}

const json_value *json_first(const json_doc *doc, const json_value *v) {
  return v->first >= 0 ? &doc->values[v->first] : NULL;
}

const json_value *json_next(const json_doc *doc, const json_value *v) {
  return v->next >= 0 ? &doc->values[v->next] : NULL;
}

const json_value *json_member(const json_doc *doc, const json_value *obj, const char *key) {
  for (const json_value *m = json_first(doc, obj); m; m = json_next(doc, m))
    if (strcmp(json_key(doc, m), key) == 0) return m;
  return NULL;
}

const char *json_kind_name(json_kind k) {
  switch (k) {
  case JSON_NULL:
    return "null";
  case JSON_FALSE:
    return "false";
  case JSON_TRUE:
    return "true";
  case JSON_INT:
    return "an integer";
  case JSON_STRING:
    return "a string";
  case JSON_ARRAY:
    return "an array";
  case JSON_OBJECT:
    return "an object";
  }
  return "?";
}
