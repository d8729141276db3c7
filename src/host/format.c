/* format.c: layouts as text, "shape=[3,4] strides=[4,1] offset=0", both ways. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndx_internal.h"

/* snprintf into buf[*used..size), counting the whole length in *used. */
static void put(char *buf, size_t size, size_t *used, const char *fmt, long long v) {
  char *at = *used < size ? buf + *used : NULL;
  size_t room = *used < size ? size - *used : 0;
  int k = snprintf(at, room, fmt, v);
  if (k > 0) *used += (size_t)k;
}

static void put_dims(char *buf, size_t size, size_t *used, const char *name, int n,
                     const int64_t *v) {
  put(buf, size, used, name, 0);
  for (int a = 0; a < n; a++) put(buf, size, used, a ? ",%lld" : "%lld", (long long)v[a]);
  put(buf, size, used, "]", 0);
}

int ndx_format(char *buf, size_t size, const ndx_layout *l) {
  size_t used = 0;
  if (size > 0) buf[0] = '\0';
  put_dims(buf, size, &used, "shape=[", l->rank, l->shape);
  put_dims(buf, size, &used, " strides=[", l->rank, l->strides);
  put(buf, size, &used, " offset=%lld", (long long)l->offset);
  return (int)used;
}

/* A cursor over the text being parsed, for messages that point at a column. */
typedef struct cursor {
  const char *text, *at;
} cursor;

static ndx_status parse_error(const cursor *c, const char *what) {
  return ndx_set_error(NDX_EINVAL, "ndx_parse: %s at column %d of '%s'", what,
                       (int)(c->at - c->text) + 1, c->text);
}

static void skip_space(cursor *c) {
  while (isspace((unsigned char)*c->at)) c->at++;
}

static ndx_status parse_int(cursor *c, int64_t *v) {
  if (!isdigit((unsigned char)*c->at) && *c->at != '-' && *c->at != '+')
    return parse_error(c, "expected an integer");
  char *end;
  errno = 0;
  long long x = strtoll(c->at, &end, 10);
  if (end == c->at) return parse_error(c, "expected an integer");
  if (errno == ERANGE) return parse_error(c, "integer out of int64 range");
  c->at = end;
  *v = x;
  return NDX_OK;
}

/* "[a,b,...]" with optional spaces; stores the count in *n. */
static ndx_status parse_list(cursor *c, int64_t *v, int *n) {
  if (*c->at != '[') return parse_error(c, "expected '['");
  c->at++;
  skip_space(c);
  *n = 0;
  if (*c->at == ']') {
    c->at++;
    return NDX_OK;
  }
  for (;;) {
    int64_t x;
    ndx_status st = parse_int(c, &x);
    if (st != NDX_OK) return st;
    if (*n == NDX_MAX_RANK) /* past the rank limit, as ndx_make says it */
      return ndx_set_error(NDX_ERANGE, "ndx_parse: more than %d values at column %d of '%s'",
                           NDX_MAX_RANK, (int)(c->at - c->text), c->text);
    v[(*n)++] = x;
    skip_space(c);
    if (*c->at == ']') {
      c->at++;
      return NDX_OK;
    }
    if (*c->at != ',') return parse_error(c, "expected ',' or ']'");
    c->at++;
    skip_space(c);
  }
}

ndx_status ndx_parse(ndx_layout *out, const char *text) {
  if (!out || !text)
    return ndx_set_error(NDX_EINVAL, "ndx_parse: %s is NULL", out ? "text" : "out");
  cursor c = {text, text};
  int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK], offset = 0;
  int rank = -1, nstrides = -1;
  bool has_offset = false;
  for (skip_space(&c); *c.at; skip_space(&c)) {
    ndx_status st;
    if (strncmp(c.at, "shape=", 6) == 0 && rank < 0) {
      c.at += 6;
      st = parse_list(&c, shape, &rank);
    } else if (strncmp(c.at, "strides=", 8) == 0 && nstrides < 0) {
      c.at += 8;
      st = parse_list(&c, strides, &nstrides);
    } else if (strncmp(c.at, "offset=", 7) == 0 && !has_offset) {
      c.at += 7;
      has_offset = true;
      st = parse_int(&c, &offset);
    } else {
      st = parse_error(&c, "expected one each of shape=[..], strides=[..], offset=N");
    }
    if (st != NDX_OK) return st;
    if (*c.at && !isspace((unsigned char)*c.at)) return parse_error(&c, "expected a space");
  }
  if (rank < 0) return ndx_set_error(NDX_EINVAL, "ndx_parse: no shape=[..] in '%s'", text);
  if (nstrides < 0) { /* C order: steps bounded by the element count once the shape fits */
    int64_t numel, step = 1;
    ndx_status st = ndx_check_shape("ndx_parse", "shape", rank, shape, &numel);
    if (st != NDX_OK) return st;
    for (int a = rank - 1; a >= 0; a--) {
      strides[a] = step;
      if (shape[a] > 0) step *= shape[a];
    }
  } else if (nstrides != rank) {
    return ndx_set_error(NDX_EINVAL, "ndx_parse: %d strides for %d axes in '%s'", nstrides, rank,
                         text);
  }
  return ndx_build("ndx_parse", out, rank, shape, strides, offset);
}
