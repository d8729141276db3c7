/* cmd_index.c: `ndx gather` and `ndx scatter`: one ndx_cl_gather or
 * ndx_cl_scatter on an OpenCL device, checked byte for byte against the
 * host reference of the device suites (tests/index_oracle.h), the bytes the
 * call must leave alone included; a call with an index out of range must
 * write nothing, and ndx_cl_check must report it. */
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "index_oracle.h"
#include "tool.h"

/* What the two usages share. */
#define INDEX_COMMON                                                                               \
  "The index buffer holds --values, repeated over its positions (default: random\n"                \
  "values of the valid range); SRC's and DST's buffers hold known patterns. The host\n"            \
  "computes what DST's buffer must hold (tests/index_oracle.h) and every byte is\n"                \
  "compared, those no element reaches included; with an index out of range the call\n"             \
  "must write nothing and ndx_cl_check report it (REFUSED).\n"                                     \
  "\n"                                                                                             \
  "  --device N      the device numbered N by `ndx devices` (default: the default one)\n"          \
  "  --bits N        element width: 1, 2, 4, 8, 16, 32, 64 or 128 (default: the JSON\n"            \
  "                  dtypes', else 32)\n"                                                          \
  "  --index-bits N  32 (default) or 64: the index elements' width\n"                              \
  "  --wrap          NDX_INDEX_WRAP: a value k in [-d, 0) means k + d\n"                           \
  "  --values V,...  the index values (at most 64)\n"
#define INDEX_EXIT                                                                                 \
  "\n"                                                                                             \
  "exit status: 0 OK; 1 MISMATCH, REFUSED, or the library or the device refused\n"                 \
  "(the reason printed); 2 malformed command line.\n"

const char tool_gather_usage[] =
    "usage: ndx gather [--device N] [--bits N] [--index-bits 32|64] [--wrap] --axis A\n"
    "                  [--values V,V,...] DST SRC INDEX\n"
    "\n"
    "One ndx_cl_gather on an OpenCL device: DST and INDEX have one shape S, SRC has\n"
    "S's extents except on axis A, and dst[i] = src[i with axis A := index[i]].\n" INDEX_COMMON
        INDEX_EXIT "\n"
    "examples:\n"
    "  4 rows of a table of 10 by a 1-d index broadcast to S (index_select):\n"
    "  $ ndx gather --axis 0 'shape=[4,3]' 'shape=[10,3]' 'shape=[4,3] strides=[1,0]'\n"
    "\n"
    "  take_along_axis(1) with 64-bit indices, negative ones wrapping:\n"
    "  $ ndx gather --axis 1 --index-bits 64 --wrap --values 3,-1,0 \\\n"
    "      'shape=[5,7]' 'shape=[5,9]' 'shape=[5,7]'\n";

const char tool_scatter_usage[] =
    "usage: ndx scatter [--device N] [--bits N] [--index-bits 32|64] [--wrap] [--unique]\n"
    "                   --axis A [--values V,V,...] DST SRC INDEX\n"
    "\n"
    "One ndx_cl_scatter on an OpenCL device: SRC and INDEX have one shape S, DST has\n"
    "S's extents except on axis A, and dst[i with axis A := index[i]] = src[i], the\n"
    "last in C order winning.\n" INDEX_COMMON
    "  --unique        NDX_INDEX_UNIQUE: the caller promises no duplicate targets\n" INDEX_EXIT "\n"
    "examples:\n"
    "  3 rows into slots 5, 1 and 5 of 8: the last row sent to slot 5 wins:\n"
    "  $ ndx scatter --axis 0 --values 5,1,5 'shape=[8,2]' 'shape=[3,2]' \\\n"
    "      'shape=[3,2] strides=[1,0]'\n";

/* The largest buffer this tool allocates for one side, host and device. */
#define INDEX_MAX_BYTES ((size_t)1 << 28)
#define VALUES_MAX 64

typedef struct index_run {
  tool_cl env;
  unsigned char *src, *want, *got, *index;
  cl_mem md, ms, mi;
} index_run;

static int finish(index_run *r, int code) {
  if (r->md) clReleaseMemObject(r->md);
  if (r->ms) clReleaseMemObject(r->ms);
  if (r->mi) clReleaseMemObject(r->mi);
  tool_cl_close(&r->env);
  free(r->src);
  free(r->want);
  free(r->got);
  free(r->index);
  return code;
}

static int refused(index_run *r, const char *cmd, ndx_status s) {
  const char *why = ndx_last_error();
  printf("%s: no result (%s): %s\n", cmd, ndx_status_name(s), why[0] ? why : "no reason given");
  return finish(r, 1);
}

/* Reads "V,V,..." (int64 each) into v; returns the count, or exits 2. */
static int read_values(const char *text, int64_t *v, const char *cmd) {
  int n = 0;
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", text);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (n == VALUES_MAX) tool_malformed("%s: --values takes at most %d values", cmd, VALUES_MAX);
    if (!tool_read_int(t, INT64_MIN, INT64_MAX, &v[n]))
      tool_malformed("%s: --values: '%s' is not an int64", cmd, t);
    n++;
  }
  if (n == 0) tool_malformed("%s: --values is empty", cmd);
  return n;
}

static int cmd_index(bool scatter, int argc, char **argv) {
  const char *cmd = scatter ? "scatter" : "gather";
  int bits = 0, device = -1, index_bits = 32, n = 0, nvalues = 0;
  int64_t axis = -1, values[VALUES_MAX];
  unsigned flags = 0;
  const char *texts[3];
  char what[32];
  for (int i = 0; i < argc; i++) {
    const char *v;
    if ((v = tool_option_value(argc, argv, &i, "--bits"))) {
      snprintf(what, sizeof what, "%s: --bits", cmd);
      bits = tool_arg_bits(v, what);
    } else if ((v = tool_option_value(argc, argv, &i, "--device"))) {
      snprintf(what, sizeof what, "%s: --device", cmd);
      device = (int)tool_arg_int(v, what, 0, 255);
    } else if ((v = tool_option_value(argc, argv, &i, "--index-bits"))) {
      snprintf(what, sizeof what, "%s: --index-bits", cmd);
      index_bits = (int)tool_arg_int(v, what, 32, 64);
      if (index_bits != 32 && index_bits != 64)
        tool_malformed("%s: --index-bits is %d, not 32 or 64", cmd, index_bits);
    } else if ((v = tool_option_value(argc, argv, &i, "--axis"))) {
      snprintf(what, sizeof what, "%s: --axis", cmd);
      axis = tool_arg_int(v, what, 0, NDX_MAX_RANK - 1);
    } else if ((v = tool_option_value(argc, argv, &i, "--values"))) {
      nvalues = read_values(v, values, cmd);
    } else if (strcmp(argv[i], "--wrap") == 0) {
      flags |= NDX_INDEX_WRAP;
    } else if (scatter && strcmp(argv[i], "--unique") == 0) {
      flags |= NDX_INDEX_UNIQUE;
    } else if (argv[i][0] == '-') {
      tool_malformed("%s: unknown option '%s'", cmd, argv[i]);
    } else if (n == 3) {
      tool_malformed("%s: takes DST, SRC and INDEX; extra argument '%s'", cmd, argv[i]);
    } else {
      texts[n++] = argv[i];
    }
  }
  if (n < 3)
    tool_malformed("%s: missing %s", cmd,
                   n == 0   ? "DST, SRC and INDEX"
                   : n == 1 ? "SRC and INDEX"
                            : "INDEX");
  if (axis < 0) tool_malformed("%s: missing --axis", cmd);
  char wd[32], ws[32], wi[32];
  snprintf(wd, sizeof wd, "%s: DST", cmd);
  snprintf(ws, sizeof ws, "%s: SRC", cmd);
  snprintf(wi, sizeof wi, "%s: INDEX", cmd);
  const char *const whats[2] = {wd, ws};
  tool_layout ls[3];
  tool_arg_layout(&ls[0], texts[0], wd, bits ? bits : TOOL_DEFAULT_BITS);
  tool_arg_layout(&ls[1], texts[1], ws, bits ? bits : TOOL_DEFAULT_BITS);
  tool_arg_layout(&ls[2], texts[2], wi, index_bits);
  bits = tool_agree_bits(bits, 2, ls, whats);
  const ndx_layout *d = &ls[0].l, *s = &ls[1].l, *x = &ls[2].l;

  index_run r = {0};
  char why[4096];
  if (!tool_cl_open(&r.env, device, why, sizeof why)) {
    printf("%s: no device: %s\n", cmd, why);
    return finish(&r, 1);
  }
  printf("device    %s (%s)\n", r.env.name, r.env.platform_name);
  size_t nd = tool_span_bytes(d, bits), ns = tool_span_bytes(s, bits);
  size_t ni = tool_span_bytes(x, index_bits);
  char buf[TOOL_LAYOUT_TEXT_MAX];
  printf("dst       %s  (%zu bytes)\n", tool_layout_text(buf, d), nd);
  printf("src       %s  (%zu bytes)\n", tool_layout_text(buf, s), ns);
  printf("index     %s  (%zu bytes of %d-bit indices)\n", tool_layout_text(buf, x), ni, index_bits);
  if (nd > INDEX_MAX_BYTES || ns > INDEX_MAX_BYTES || ni > INDEX_MAX_BYTES) {
    printf("%s: no result: a buffer past the %zu bytes this tool allocates\n", cmd,
           (size_t)INDEX_MAX_BYTES);
    return finish(&r, 1);
  }
  size_t bd = nd ? nd : 1, bs = ns ? ns : 1, bi = ni ? ni : 1;
  r.src = malloc(bs), r.want = malloc(bd), r.got = malloc(bd), r.index = malloc(bi);
  if (!r.src || !r.want || !r.got || !r.index) {
    printf("%s: no result: out of host memory\n", cmd);
    return finish(&r, 1);
  }
  tool_fill_pattern(r.src, bs, 88172645463325252u);
  tool_fill_pattern(r.want, bd, 0x9e3779b97f4a7c15u);
  /* the index: --values repeated, or random values of the valid range */
  const ndx_layout *indexed = scatter ? d : s;
  int64_t dim = axis < indexed->rank ? indexed->shape[axis] : 0;
  uint64_t seed = 0x2545f4914f6cdd1du;
  size_t count = bi / (size_t)(index_bits / 8);
  for (size_t k = 0; k < count; k++) {
    int64_t v = 0;
    if (nvalues) {
      v = values[k % (size_t)nvalues];
    } else if (dim > 0) {
      seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
      int64_t lo = flags & NDX_INDEX_WRAP ? -dim : 0;
      v = lo + (int64_t)(seed % (uint64_t)(dim - lo));
    }
    if (index_bits == 32) {
      int32_t w = (int32_t)v;
      memcpy(r.index + k * 4, &w, 4);
    } else {
      memcpy(r.index + k * 8, &v, 8);
    }
  }
  cl_int e1, e2, e3;
  r.md = clCreateBuffer(r.env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bd, r.want, &e1);
  r.ms = clCreateBuffer(r.env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bs, r.src, &e2);
  r.mi = clCreateBuffer(r.env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bi, r.index, &e3);
  if (e1 != CL_SUCCESS || e2 != CL_SUCCESS || e3 != CL_SUCCESS) {
    if (e1 != CL_SUCCESS) r.md = NULL;
    if (e2 != CL_SUCCESS) r.ms = NULL;
    if (e3 != CL_SUCCESS) r.mi = NULL;
    printf("%s: no result: clCreateBuffer failed: %d, %d, %d\n", cmd, e1, e2, e3);
    return finish(&r, 1);
  }
  ndx_status st = scatter ? ndx_cl_scatter(r.env.cl, r.env.queue, r.md, d, r.ms, s, (int)axis, r.mi,
                                           x, index_bits, flags, bits, 0, NULL, NULL)
                          : ndx_cl_gather(r.env.cl, r.env.queue, r.md, d, r.ms, s, (int)axis, r.mi,
                                          x, index_bits, flags, bits, 0, NULL, NULL);
  if (st != NDX_OK) return refused(&r, cmd, st);
  printf("elements  %lld of %d bits\n", (long long)ndx_numel(x), bits);
  ndx_status fault = ndx_cl_check(r.env.cl);
  char fault_text[1024];
  snprintf(fault_text, sizeof fault_text, "%s", ndx_last_error());
  cl_int e = clEnqueueReadBuffer(r.env.queue, r.md, CL_TRUE, 0, bd, r.got, 0, NULL, NULL);
  if (e != CL_SUCCESS) {
    printf("%s: no result: the read-back failed: OpenCL error %d\n", cmd, e);
    return finish(&r, 1);
  }
  int64_t value = 0;
  int64_t bad = oracle_index_copy(scatter, r.want, d, r.src, s, (int)axis, r.index, x, index_bits,
                                  flags, bits, &value);
  size_t differ = 0, shown = 0;
  for (size_t i = 0; i < bd; i++) {
    if (r.got[i] == r.want[i]) continue;
    if (shown++ < 8) printf("  byte %zu: 0x%02x, want 0x%02x\n", i, r.got[i], r.want[i]);
    differ++;
  }
  printf("checked   %zu bytes of dst's buffer\n", bd);
  if (bad >= 0) {
    printf("fault     the host finds %lld at element %lld of S (C order); ndx_cl_check: %s\n",
           (long long)value, (long long)bad, fault == NDX_ERANGE ? fault_text : "NOT REPORTED");
    if (differ || fault != NDX_ERANGE) {
      printf("MISMATCH: %zu bytes written by a refused call\n", differ);
      return finish(&r, 1);
    }
    printf("REFUSED: nothing written\n");
    return finish(&r, 1);
  }
  if (fault != NDX_OK) {
    printf("%s: ndx_cl_check: %s: %s\n", cmd, ndx_status_name(fault), fault_text);
    return finish(&r, 1);
  }
  if (differ) {
    printf("MISMATCH: %zu of %zu bytes differ\n", differ, bd);
    return finish(&r, 1);
  }
  printf("OK\n");
  return finish(&r, 0);
}

int tool_cmd_gather(int argc, char **argv) {
  return cmd_index(false, argc, argv);
}

int tool_cmd_scatter(int argc, char **argv) {
  return cmd_index(true, argc, argv);
}
