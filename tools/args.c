/* args.c: reading the `ndx` tool's arguments — numbers, widths, options —
 * and the one way a malformed command line ends (exit 2, stderr). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

const char *tool_command = NULL;

_Noreturn void tool_malformed(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("ndx: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (tool_command)
    fprintf(stderr, "\n(run 'ndx %s --help' for usage)\n", tool_command);
  else
    fputs("\n(run 'ndx help' for usage)\n", stderr);
  exit(2);
}

bool tool_read_int(const char *text, int64_t lo, int64_t hi, int64_t *v) {
  if (text[0] == '\0' || !(text[0] == '-' || text[0] == '+' || (text[0] >= '0' && text[0] <= '9')))
    return false;
  errno = 0;
  char *end = NULL;
  long long x = strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || x < lo || x > hi) return false;
  *v = (int64_t)x;
  return true;
}

int64_t tool_arg_int(const char *text, const char *what, int64_t lo, int64_t hi) {
  int64_t v;
  if (!tool_read_int(text, lo, hi, &v)) {
    if (lo == INT64_MIN && hi == INT64_MAX)
      tool_malformed("%s: '%s' is not a 64-bit integer", what, text);
    tool_malformed("%s: '%s' is not an integer in [%lld, %lld]", what, text, (long long)lo,
                   (long long)hi);
  }
  return v;
}

int tool_arg_bits(const char *text, const char *what) {
  int64_t v;
  if (!tool_read_int(text, 1, 128, &v) || (v & (v - 1)) != 0)
    tool_malformed("%s: '%s' is not an element width: 1, 2, 4, 8, 16, 32, 64 or 128", what, text);
  return (int)v;
}

bool tool_is_help(const char *arg) {
  return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

const char *tool_option_value(int argc, char **argv, int *i, const char *name) {
  size_t n = strlen(name);
  const char *a = argv[*i];
  if (strncmp(a, name, n) != 0) return NULL;
  if (a[n] == '=') return a + n + 1;
  if (a[n] != '\0') return NULL;
  if (*i + 1 >= argc)
    tool_malformed("%s: %s needs a value", tool_command ? tool_command : "ndx", name);
  return argv[++*i];
}

const char *tool_layout_text(char *buf, const ndx_layout *l) {
  int k = ndx_format(buf, TOOL_LAYOUT_TEXT_MAX, l);
  if (k < 0) snprintf(buf, TOOL_LAYOUT_TEXT_MAX, "(unprintable layout)");
  return buf;
}

size_t tool_span_bytes(const ndx_layout *l, int bits) {
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  return (size_t)((hi * bits + 7) / 8); /* hi <= 2^53, bits <= 128: no overflow */
}

void tool_fill_pattern(unsigned char *b, size_t n, uint64_t seed) {
  uint64_t x = seed;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    b[i] = (unsigned char)(x >> 24);
  }
}
