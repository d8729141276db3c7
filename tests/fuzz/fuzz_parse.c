/* fuzz_parse.c: the layout text, ndx_parse and ndx_format (the `ndx` tool
 * reads its layouts with ndx_parse).
 *
 * Half the inputs are raw text: ndx_parse either refuses it, leaving its
 * output untouched, or returns a canonical layout whose ndx_format text reads
 * back equal. The other half are values written as text the way a person
 * might (fields in any order, strides or offset left out, spaces, signs,
 * leading zeros): ndx_parse must return exactly what ndx_make returns for
 * those values (C-order strides and offset 0 where left out). ndx_format must
 * behave as snprintf at every buffer size. */
#define FUZZ_NAME "parse"
#define FZ_MIN_CHECKED 10 /* random and mutated text rarely parses */
#include "fuzz.h"

#include <stdarg.h>

#define MAX_TEXT 2048

/* Appends printf-style to a text of MAX_TEXT bytes. */
typedef struct text {
  char s[MAX_TEXT];
  size_t n;
} text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
add(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(t->s + t->n, sizeof t->s - t->n, fmt, ap);
  va_end(ap);
  if (k > 0) t->n = t->n + (size_t)k < sizeof t->s ? t->n + (size_t)k : sizeof t->s - 1;
}

static const char *const spaces[] = {" ", "  ", "\t", " \n "};

static void add_int(text *t, fz_reader *r, int64_t v) {
  uint8_t style = fz_byte(r) % 8;
  if (style == 1 && v >= 0)
    add(t, "+%lld", (long long)v);
  else if (style == 2 && v >= 0)
    add(t, "00%lld", (long long)v);
  else
    add(t, "%lld", (long long)v);
}

static void add_list(text *t, fz_reader *r, const char *name, int n, const int64_t *v) {
  add(t, "%s=[", name);
  for (int a = 0; a < n; a++) {
    if (a) {
      add(t, "%s,", fz_byte(r) % 8 ? "" : " ");
      add(t, "%s", fz_byte(r) % 4 ? "" : " ");
    }
    add_int(t, r, v[a]);
  }
  add(t, "%s]", fz_byte(r) % 8 ? "" : " ");
}

/* ndx_format at sizes 0 .. len+1: snprintf's contract, nothing past `size`. */
static void check_format(const ndx_layout *l, fz_reader *r) {
  char full[MAX_TEXT], cut[MAX_TEXT + 8];
  int len = ndx_format(full, sizeof full, l);
  fz_check(len > 0 && (size_t)len < sizeof full && strlen(full) == (size_t)len,
           "ndx_format returns the text's length");
  fz_check(ndx_format(NULL, 0, l) == len, "ndx_format(NULL, 0) returns the length");
  size_t sizes[3] = {1, (size_t)len, (size_t)(fz_byte(r) % (len + 2))};
  for (int k = 0; k < 3; k++) {
    size_t size = sizes[k];
    memset(cut, '#', sizeof cut);
    fz_check(ndx_format(cut, size, l) == len, "ndx_format returns the whole length when cut");
    if (size == 0) {
      fz_check(cut[0] == '#', "size 0 writes nothing");
      continue;
    }
    size_t kept = size - 1 < (size_t)len ? size - 1 : (size_t)len;
    fz_check(memcmp(cut, full, kept) == 0 && cut[kept] == '\0', "a cut text is a prefix, ended");
    for (size_t b = size; b < sizeof cut; b++) fz_check(cut[b] == '#', "nothing past size");
  }
}

/* Values written as text: ndx_parse must agree with ndx_make. */
static void structured(fz_reader *r) {
  uint8_t head = fz_byte(r);
  int rank = head % 7;
  if (head >= 250) rank = NDX_MAX_RANK - 1 + fz_byte(r) % 4;
  bool wide = head % 4 == 0;
  int64_t shape[NDX_MAX_RANK + 3] = {0}, strides[NDX_MAX_RANK + 3] = {0}, offset;
  for (int a = 0; a < rank; a++) {
    shape[a] = wide && fz_byte(r) < 64 ? fz_wide(r) : fz_small(r, 2) + 2;
    strides[a] = wide && fz_byte(r) < 64 ? fz_wide(r) : fz_small(r, 9);
  }
  offset = wide && fz_byte(r) < 64 ? fz_wide(r) : fz_small(r, 30) + 30;
  uint8_t parts = fz_byte(r);
  bool has_strides = parts & 1, has_offset = parts & 2, has_shape = (parts & 12) != 12;
  int nstrides = rank;
  if (has_strides && parts >= 240) nstrides = rank + (int)fz_small(r, 1);
  if (nstrides < 0) nstrides = 0;

  text t = {.n = 0};
  int order = fz_byte(r) % 6; /* which field goes first, second, third */
  static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                   {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  if (fz_byte(r) % 4 == 0) add(&t, "%s", spaces[fz_byte(r) % 4]);
  for (int f = 0; f < 3; f++) {
    int field = orders[order][f];
    size_t at = t.n;
    if (field == 0 && has_shape) add_list(&t, r, "shape", rank, shape);
    if (field == 1 && has_strides) add_list(&t, r, "strides", nstrides, strides);
    if (field == 2 && has_offset) {
      add(&t, "offset=");
      add_int(&t, r, offset);
    }
    if (t.n > at) add(&t, "%s", spaces[fz_byte(r) % 4]);
  }

  int64_t c_strides[NDX_MAX_RANK + 3], step = 1;
  for (int a = rank - 1; a >= 0; a--) { /* C order, where the shape fits */
    c_strides[a] = step;
    if (shape[a] > 0 && (fz_i128)step * shape[a] <= NDX_MAX_NUMEL) step *= shape[a];
  }
  ndx_layout want, got, before;
  memset(&want, 0, sizeof want);
  ndx_status sw;
  if ((has_shape && rank > NDX_MAX_RANK) || (has_strides && nstrides > NDX_MAX_RANK))
    sw = NDX_ERANGE; /* a list past 32 values */
  else if (!has_shape)
    sw = NDX_EINVAL;
  else if (has_strides && nstrides != rank)
    sw = NDX_EINVAL;
  else if (!has_strides && !ndx_fits(rank, shape))
    sw = ndx_contiguous(&want, rank, shape);
  else
    sw = ndx_make(&want, rank, shape, has_strides ? strides : c_strides, has_offset ? offset : 0);
  memset(&got, 0x4e, sizeof got);
  before = got;
  ndx_status st = ndx_parse(&got, t.s);
  fz_check(st == sw, "ndx_parse returns what ndx_make returns for the values");
  if (st != NDX_OK) {
    fz_check_untouched(&got, &before, sizeof got, st);
    return;
  }
  fz_check(memcmp(&got, &want, sizeof got) == 0, "ndx_parse gives ndx_make's layout");
  fz_check_layout(&got);
  check_format(&got, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_reader r = {data, size, 0};
  if (fz_byte(&r) % 2 == 0) {
    structured(&r);
    return 0;
  }
  char s[MAX_TEXT];
  size_t n = size - r.at < sizeof s - 1 ? size - r.at : sizeof s - 1;
  memcpy(s, data + r.at, n);
  s[n] = '\0';
  ndx_layout got, before;
  memset(&got, 0x4e, sizeof got);
  before = got;
  ndx_status st = ndx_parse(&got, s);
  if (st != NDX_OK) {
    fz_check_untouched(&got, &before, sizeof got, st);
    fz_check(st == NDX_EINVAL || st == NDX_ERANGE, "a bad text is NDX_EINVAL or NDX_ERANGE");
    return 0;
  }
  fz_check(strstr(s, "shape=") != NULL, "a text that parses has a shape");
  fz_check_layout(&got); /* canonical, and its ndx_format text reads back equal */
  r.at = size;           /* check_format reads sizes from an empty reader: 0 */
  check_format(&got, &r);
  return 0;
}
