/* cmd_copy.c: `ndx copy`: one ndx_cl_copy on an OpenCL device, checked byte
 * for byte against the host reference of the device suites (tests/oracle.h:
 * both layouts walked in C order from their definition), the bytes the copy
 * must leave alone included. */
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "tool.h"

const char tool_copy_usage[] =
    "usage: ndx copy [--device N] [--bits N] DST SRC\n"
    "\n"
    "Copies element i (C order) of SRC to element i of DST with one ndx_cl_copy\n"
    "on an OpenCL device: SRC's buffer holds a known pattern, DST's another one;\n"
    "the host computes what DST's buffer must hold afterwards (both layouts walked\n"
    "in C order) and every byte of it is compared, the bytes no element of DST\n"
    "touches included. Prints the device, the layouts and sizes, the kernel path\n"
    "ndx chose (ndx_cl_plan_path), the kernels' shape (gpu or cpu, from the device\n"
    "type; NDX_CL_SHAPE=gpu|cpu overrides it), then OK or MISMATCH.\n"
    "\n"
    "  --device N  the device numbered N by `ndx devices` (default: the default\n"
    "              device, as `ndx demo`: $NDX_CL_PLATFORM picks the platform)\n"
    "  --bits N    element width: 1, 2, 4, 8, 16, 32, 64 or 128 (default: the\n"
    "              JSON dtypes', else 32)\n"
    "\n"
    "exit status: 0 OK; 1 MISMATCH, or the library or the device refused (the\n"
    "reason printed); 2 malformed command line.\n"
    "\n"
    "examples:\n"
    "  a transpose:\n"
    "  $ ndx copy 'shape=[3,2]' 'shape=[3,2] strides=[1,3]'\n"
    "\n"
    "  a 4-bit transpose:\n"
    "  $ ndx copy --bits 4 'shape=[64,48]' 'shape=[64,48] strides=[1,64]'\n";

/* The largest buffer this tool allocates for one side, host and device. */
#define COPY_MAX_BYTES ((size_t)1 << 30)

typedef struct copy_run {
  tool_cl env;
  unsigned char *src, *want, *got, *mask;
  cl_mem md, ms;
} copy_run;

static int finish(copy_run *r, int code) {
  if (r->md) clReleaseMemObject(r->md);
  if (r->ms) clReleaseMemObject(r->ms);
  tool_cl_close(&r->env);
  free(r->src);
  free(r->want);
  free(r->got);
  free(r->mask);
  return code;
}

/* Prints "copy: no result (NDX_...): <reason>" and returns 1. */
static int refused(copy_run *r, ndx_status s) {
  const char *why = ndx_last_error();
  printf("copy: no result (%s): %s\n", ndx_status_name(s), why[0] ? why : "no reason given");
  return finish(r, 1);
}

int tool_cmd_copy(int argc, char **argv) {
  int bits = 0, device = -1, n = 0;
  const char *texts[2];
  for (int i = 0; i < argc; i++) {
    const char *v;
    if ((v = tool_option_value(argc, argv, &i, "--bits")))
      bits = tool_arg_bits(v, "copy: --bits");
    else if ((v = tool_option_value(argc, argv, &i, "--device")))
      device = (int)tool_arg_int(v, "copy: --device", 0, 255);
    else if (argv[i][0] == '-')
      tool_malformed("copy: unknown option '%s'", argv[i]);
    else if (n == 2)
      tool_malformed("copy: takes DST and SRC; extra argument '%s'", argv[i]);
    else
      texts[n++] = argv[i];
  }
  if (n < 2) tool_malformed("copy: missing %s", n == 0 ? "DST and SRC" : "SRC");
  static const char *const whats[] = {"copy: DST", "copy: SRC"};
  tool_layout ls[2];
  for (int k = 0; k < 2; k++)
    tool_arg_layout(&ls[k], texts[k], whats[k], bits ? bits : TOOL_DEFAULT_BITS);
  bits = tool_agree_bits(bits, 2, ls, whats);
  const ndx_layout *d = &ls[0].l, *s = &ls[1].l;

  copy_run r = {0};
  char why[4096];
  if (!tool_cl_open(&r.env, device, why, sizeof why)) {
    printf("copy: no device: %s\n", why);
    return finish(&r, 1);
  }
  printf("device    %s (%s)\n", r.env.name, r.env.platform_name);

  /* The plan names the path; ndx_cl_copy below makes the same choice. */
  ndx_cl_plan *plan = NULL;
  ndx_status st = ndx_cl_plan_create(&plan, r.env.cl, d, s, bits);
  if (st != NDX_OK) return refused(&r, st);
  char path[32];
  snprintf(path, sizeof path, "%s", ndx_cl_plan_path(plan));
  ndx_cl_plan_destroy(plan);

  size_t nd = tool_span_bytes(d, bits), ns = tool_span_bytes(s, bits);
  char buf[TOOL_LAYOUT_TEXT_MAX];
  printf("dst       %s  (%zu bytes)\n", tool_layout_text(buf, d), nd);
  printf("src       %s  (%zu bytes)\n", tool_layout_text(buf, s), ns);
  printf("elements  %lld of %d bits\n", (long long)ndx_numel(d), bits);
  printf("path      %s\n", path);
  printf("shape     %s\n", ndx_cl_shape(r.env.cl));
  cl_ulong max_alloc = 0;
  clGetDeviceInfo(r.env.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
  size_t limit = max_alloc && max_alloc < COPY_MAX_BYTES ? (size_t)max_alloc : COPY_MAX_BYTES;
  if (nd > limit || ns > limit) {
    printf("copy: no result: a buffer of %zu bytes is needed, this tool allocates at most %zu\n",
           nd > ns ? nd : ns, limit);
    return finish(&r, 1);
  }
  /* OpenCL buffers are never empty: an empty layout gets a 1-byte one. */
  size_t bd = nd ? nd : 1, bs = ns ? ns : 1;
  r.src = malloc(bs), r.want = malloc(bd), r.got = malloc(bd), r.mask = calloc(bd, 1);
  if (!r.src || !r.want || !r.got || !r.mask) {
    printf("copy: no result: out of host memory for %zu + %zu bytes\n", bs, bd);
    return finish(&r, 1);
  }
  tool_fill_pattern(r.src, bs, 88172645463325252u);
  tool_fill_pattern(r.want, bd, 0x9e3779b97f4a7c15u);
  cl_int e1, e2;
  r.md = clCreateBuffer(r.env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bd, r.want, &e1);
  r.ms = clCreateBuffer(r.env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bs, r.src, &e2);
  if (e1 != CL_SUCCESS || e2 != CL_SUCCESS) {
    if (e1 != CL_SUCCESS) r.md = NULL;
    if (e2 != CL_SUCCESS) r.ms = NULL;
    printf("copy: no result: clCreateBuffer failed: %d, %d\n", e1, e2);
    return finish(&r, 1);
  }
  oracle_copy(r.want, d, r.src, s, bits, r.mask); /* mask: the bytes elements touch */

  cl_event done = NULL;
  st = ndx_cl_copy(r.env.cl, r.env.queue, r.md, d, r.ms, s, bits, 0, NULL, &done);
  if (st != NDX_OK) return refused(&r, st);
  cl_int e = clWaitForEvents(1, &done);
  clReleaseEvent(done);
  if (e == CL_SUCCESS)
    e = clEnqueueReadBuffer(r.env.queue, r.md, CL_TRUE, 0, bd, r.got, 0, NULL, NULL);
  if (e != CL_SUCCESS) {
    printf("copy: no result: the copy or its read-back failed: OpenCL error %d\n", e);
    return finish(&r, 1);
  }

  size_t touched = 0, bad = 0, shown = 0;
  for (size_t i = 0; i < bd; i++) touched += r.mask[i];
  printf("checked   %zu bytes of dst's buffer: %zu hold elements, %zu must stay as they were\n", bd,
         touched, bd - touched);
  for (size_t i = 0; i < bd; i++) {
    if (r.got[i] == r.want[i]) continue;
    if (shown++ < 8)
      printf("  byte %zu (%s): 0x%02x, want 0x%02x\n", i,
             r.mask[i] ? "holds an element" : "must stay as it was", r.got[i], r.want[i]);
    bad++;
  }
  if (bad) {
    printf("MISMATCH: %zu of %zu bytes differ\n", bad, bd);
    return finish(&r, 1);
  }
  printf("OK\n");
  return finish(&r, 0);
}
