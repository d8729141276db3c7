/* cmd_pack.c: `ndx pack`: the packed device form (ndx_pack.h) of one or more
 * layouts, or of a copy (ndx_pack_copy), field by field and as bytes. */
#include <inttypes.h>
#include <string.h>

#include "ndx/ndx_pack.h"
#include "tool.h"

const char tool_pack_usage[] =
    "usage: ndx pack [--bits N] [--wide] LAYOUT...\n"
    "       ndx pack --copy [--bits N] [--wide] DST SRC\n"
    "\n"
    "Prints the packed device form a kernel receives (ndx_pack.h): the head's\n"
    "fields by name, the shared words (extent, magic, shift: the coalesced\n"
    "shape and its division-free divisors), each operand's words (offset,\n"
    "strides), then every byte in hex.\n"
    "\n"
    "  LAYOUT...  1 to 8 layouts of one shape, packed together by ndx_pack\n"
    "  --copy     DST SRC: a copy's pack by ndx_pack_copy (operand 0 the\n"
    "             destination; axes normalized for it)\n"
    "  --bits N   element width: 1, 2, 4, 8, 16, 32, 64 or 128 (default: the\n"
    "             JSON dtypes', else 32)\n"
    "  --wide     the 64-bit form (ndx_pack_widen) even when the 32-bit one fits\n"
    "\n"
    "exit status: 0 printed; 1 the library refused (e.g. shapes that differ);\n"
    "2 malformed command line.\n"
    "\n"
    "examples:\n"
    "  $ ndx pack 'shape=[2,3]'\n"
    "\n"
    "  a 4-bit transpose's copy, as its kernel receives it:\n"
    "  $ ndx pack --copy --bits 4 'shape=[3,2]' 'shape=[3,2] strides=[1,3]'\n";

/* Reads word `k` of the pack's words (int32 or int64) as int64. */
static int64_t word(const unsigned char *words, int wide, int k) {
  if (wide) {
    int64_t v;
    memcpy(&v, words + 8 * (size_t)k, 8);
    return v;
  }
  int32_t v;
  memcpy(&v, words + 4 * (size_t)k, 4);
  return v;
}

/* Prints "name [w0,w1,...]" for `n` words from index `first`; magic numbers
 * are unsigned multipliers, the rest signed. */
static void print_words(const char *name, const unsigned char *words, int wide, int first, int n,
                        bool is_unsigned) {
  printf("%-9s [", name);
  for (int i = 0; i < n; i++) {
    int64_t v = word(words, wide, first + i);
    if (is_unsigned)
      printf("%s%" PRIu64, i ? "," : "", wide ? (uint64_t)v : (uint64_t)(uint32_t)v);
    else
      printf("%s%" PRId64, i ? "," : "", v);
  }
  printf("]\n");
}

static void hex_dump(const unsigned char *b, size_t n) {
  for (size_t at = 0; at < n; at += 16) {
    printf("  %04zx", at);
    for (size_t i = at; i < at + 16 && i < n; i++) printf("%s%02x", i % 8 == 0 ? "  " : " ", b[i]);
    printf("\n");
  }
}

int tool_cmd_pack(int argc, char **argv) {
  bool copy = false, wide = false;
  int bits = 0, n = 0;
  const char *texts[NDX_PACK_MAX_OPS];
  for (int i = 0; i < argc; i++) {
    const char *v;
    if (strcmp(argv[i], "--copy") == 0)
      copy = true;
    else if (strcmp(argv[i], "--wide") == 0)
      wide = true;
    else if ((v = tool_option_value(argc, argv, &i, "--bits")))
      bits = tool_arg_bits(v, "pack: --bits");
    else if (argv[i][0] == '-')
      tool_malformed("pack: unknown option '%s'", argv[i]);
    else if (n == NDX_PACK_MAX_OPS)
      tool_malformed("pack: more than %d layouts (NDX_PACK_MAX_OPS); extra argument '%s'",
                     NDX_PACK_MAX_OPS, argv[i]);
    else
      texts[n++] = argv[i];
  }
  if (n == 0) tool_malformed("pack: missing LAYOUT");
  if (copy && n != 2)
    tool_malformed("pack: --copy takes DST and SRC, %d layout%s given", n, n == 1 ? "" : "s");

  static const char *const copy_whats[] = {"pack: DST", "pack: SRC"};
  char labels[NDX_PACK_MAX_OPS][32];
  const char *whats[NDX_PACK_MAX_OPS];
  tool_layout ls[NDX_PACK_MAX_OPS];
  ndx_layout plain[NDX_PACK_MAX_OPS];
  for (int k = 0; k < n; k++) {
    snprintf(labels[k], sizeof labels[k], "pack: LAYOUT %d", k + 1);
    whats[k] = copy ? copy_whats[k] : labels[k];
    tool_arg_layout(&ls[k], texts[k], whats[k], bits ? bits : TOOL_DEFAULT_BITS);
    plain[k] = ls[k].l;
  }
  bits = tool_agree_bits(bits, n, ls, whats);

  uint64_t buf[NDX_PACK_MAX_BYTES(NDX_PACK_MAX_OPS, NDX_PACK_MAX_RANK) / 8];
  size_t used = 0;
  ndx_status s = copy ? ndx_pack_copy(buf, sizeof buf, &used, &plain[0], &plain[1], bits)
                      : ndx_pack(buf, sizeof buf, &used, n, plain, bits);
  if (s == NDX_OK && wide) s = ndx_pack_widen(buf, sizeof buf, &used);
  if (s != NDX_OK) {
    const char *why = ndx_last_error();
    printf("pack: no result (%s): %s\n", ndx_status_name(s), why[0] ? why : "no reason given");
    return 1;
  }

  ndx_pack_head h;
  memcpy(&h, buf, sizeof h);
  printf("version   %u\n", (unsigned)h.version);
  printf("size      %u\n", (unsigned)h.size);
  printf("rank      %u\n", (unsigned)h.rank);
  printf("nops      %u\n", (unsigned)h.nops);
  printf("bits      %u\n", (unsigned)h.bits);
  printf("wide      %u (%s words)\n", (unsigned)h.wide, h.wide ? "int64" : "int32");
  printf("numel     %" PRId64 "\n", h.numel);
  const unsigned char *words = (const unsigned char *)buf + sizeof h;
  int r = (int)h.rank, ops = (int)h.nops, w = (int)h.wide;
  print_words("extent", words, w, NDX_PACK_EXTENT(ops, r, 0), r, false);
  print_words("magic", words, w, NDX_PACK_MAGIC(ops, r, 0), r, true);
  print_words("shift", words, w, NDX_PACK_SHIFT(ops, r, 0), r, false);
  for (int k = 0; k < ops; k++) {
    char name[32];
    printf("operand %d%s offset %" PRId64 "\n", k, copy ? (k == 0 ? " (dst)" : " (src)") : "",
           word(words, w, NDX_PACK_OFFSET(ops, r, k)));
    snprintf(name, sizeof name, "  strides");
    print_words(name, words, w, NDX_PACK_STRIDE(ops, r, k, 0), r, false);
  }
  printf("bytes     %zu\n", used);
  hex_dump((const unsigned char *)buf, used);
  return 0;
}
