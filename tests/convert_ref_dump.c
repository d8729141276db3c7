/* convert_ref_dump.c: the host reference (convert_ref.h) as a filter, for
 * tests/test_convert_ml_dtypes.py: `convert_ref_dump FROM TO` reads source
 * bit patterns of type FROM (ndx_dtype_name's names) from standard input as
 * little-endian 64-bit words, and writes the bits of type TO that
 * ref_convert gives for each, as the same words, to standard output.
 * Exits 2 for a bad argument, 1 for a read or write error. */
#include <stdio.h>
#include <string.h>

#include "convert_ref.h"

static uint64_t read_le(const unsigned char *p) {
  uint64_t v = 0;
  for (int k = 7; k >= 0; k--) v = v << 8 | p[k];
  return v;
}

static void write_le(unsigned char *p, uint64_t v) {
  for (int k = 0; k < 8; k++) p[k] = (unsigned char)(v >> (8 * k));
}

int main(int argc, char **argv) {
  ndx_dtype from, to;
  if (argc != 3 || ndx_dtype_parse(&from, argv[1]) != NDX_OK ||
      ndx_dtype_parse(&to, argv[2]) != NDX_OK) {
    fprintf(stderr, "usage: convert_ref_dump FROM TO (%s)\n", argc == 3 ? ndx_last_error() : "");
    return 2;
  }
  unsigned char buf[8 * 4096];
  size_t n;
  while ((n = fread(buf, 8, sizeof buf / 8, stdin)) > 0) {
    for (size_t k = 0; k < n; k++)
      write_le(buf + 8 * k, ref_convert(read_le(buf + 8 * k), from, to));
    if (fwrite(buf, 8, n, stdout) != n) return 1;
  }
  return ferror(stdin) || fflush(stdout) != 0 ? 1 : 0;
}
