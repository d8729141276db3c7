/* cmd_copy.c: `ndx copy` and `ndx convert`: one ndx_cl_copy, or one
 * ndx_cl_convert, on an OpenCL device, checked byte for byte against the
 * host reference of the device suites (tests/oracle.h: both layouts walked
 * in C order from their definition; tests/convert_ref.h for the values of a
 * conversion), the bytes the call must leave alone included. */
#include <stdlib.h>
#include <string.h>

#include "convert_ref.h"
#include "oracle.h"
#include "tool.h"
#ifdef NDX_TOOL_HAVE_DLPACK
#include "ndx/ndx_dlpack.h"
#endif

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

const char tool_convert_usage[] =
    "usage: ndx convert [--device N] --from TYPE --to TYPE DST SRC\n"
    "\n"
    "Converts element i (C order) of SRC, of type --from, to element i of DST, of\n"
    "type --to, with one ndx_cl_convert on an OpenCL device, and checks every\n"
    "byte of DST's buffer as `ndx copy` does, against the host reference of each\n"
    "value rule (ndx_dtype.h). SRC's buffer holds random bits, so NaNs,\n"
    "infinities, subnormals and values past every range come up. Prints the\n"
    "device, the layouts, the path (the copy's, at DST's width, that the\n"
    "conversion follows) and the kernels' shape, then OK or MISMATCH.\n"
    "\n"
    "  --from, --to  bool, i8, i16, i32, i64, u8, u16, u32, u64, i4, u4, f16,\n"
    "                bf16, f32, f64, f8e4m3fn, f8e5m2 or f4e2m1fn; a JSON\n"
    "                layout's dtype gives its side's type where the option is\n"
    "                left out (ndx_dlpack_dtype)\n"
    "  --device N    as for `ndx copy`\n"
    "\n"
    "exit status: 0 OK; 1 MISMATCH, or the library or the device refused (the\n"
    "reason printed); 2 malformed command line.\n"
    "\n"
    "examples:\n"
    "  a transposed fp32 view into a contiguous bf16 tensor:\n"
    "  $ ndx convert --from f32 --to bf16 'shape=[300,200]' 'shape=[300,200] strides=[1,300]'\n"
    "\n"
    "  a 4-bit fp4 matrix into fp16:\n"
    "  $ ndx convert --from f4e2m1fn --to f16 'shape=[64,48]' 'shape=[64,48]'\n";

/* The largest buffer this tool allocates for one side, host and device. */
#define COPY_MAX_BYTES ((size_t)1 << 30)

/* What one checked run does: a copy of `bits`-bit elements, or a
 * conversion from src_t to dst_t. */
typedef struct copy_job {
  const char *cmd; /* "copy" or "convert": the messages' prefix */
  bool convert;
  int dst_bits, src_bits;
  ndx_dtype dst_t, src_t;
} copy_job;

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

/* Prints "<cmd>: no result (NDX_...): <reason>" and returns 1. */
static int refused(const copy_job *job, copy_run *r, ndx_status s) {
  const char *why = ndx_last_error();
  printf("%s: no result (%s): %s\n", job->cmd, ndx_status_name(s),
         why[0] ? why : "no reason given");
  return finish(r, 1);
}

/* The host reference of a conversion into r->want, and into r->mask the
 * bytes the destination's elements touch. */
static void convert_reference(const copy_job *job, copy_run *r, const ndx_layout *d,
                              const ndx_layout *s) {
  int64_t n = ndx_numel(d);
  for (int64_t k = 0; k < n; k++) {
    int64_t pd = oracle_position_of(d, k);
    ref_convert_elem(r->want, pd, job->dst_t, r->src, oracle_position_of(s, k), job->src_t);
    int64_t b0 = pd * job->dst_bits / 8, b1 = ((pd + 1) * job->dst_bits + 7) / 8;
    for (int64_t b = b0; b < b1; b++) r->mask[b] = 1;
  }
}

/* Runs `job` from SRC to DST on device `device` (-1: the default) and
 * checks it; the exit status. */
static int checked_run(const copy_job *job, int device, const ndx_layout *d, const ndx_layout *s) {
  copy_run r = {0};
  char why[4096];
  if (!tool_cl_open(&r.env, device, why, sizeof why)) {
    printf("%s: no device: %s\n", job->cmd, why);
    return finish(&r, 1);
  }
  printf("device    %s (%s)\n", r.env.name, r.env.platform_name);

  /* the plan names the path; ndx_cl_copy below makes the same choice, and
   * ndx_cl_convert plans its pair as this copy at the destination's width
   * (a pair the plan refuses, ndx_cl_convert refuses below in its name) */
  char path[64] = "-";
  ndx_cl_plan *plan = NULL;
  ndx_status planned = ndx_cl_plan_create(&plan, r.env.cl, d, s, job->dst_bits);
  if (planned != NDX_OK && !job->convert) return refused(job, &r, planned);
  if (planned == NDX_OK) snprintf(path, sizeof path, "%s", ndx_cl_plan_path(plan));
  ndx_cl_plan_destroy(plan);

  size_t nd = tool_span_bytes(d, job->dst_bits), ns = tool_span_bytes(s, job->src_bits);
  char buf[TOOL_LAYOUT_TEXT_MAX];
  printf("dst       %s  (%zu bytes)\n", tool_layout_text(buf, d), nd);
  printf("src       %s  (%zu bytes)\n", tool_layout_text(buf, s), ns);
  if (job->convert)
    printf("elements  %lld, %s to %s\n", (long long)ndx_numel(d), ndx_dtype_name(job->src_t),
           ndx_dtype_name(job->dst_t));
  else
    printf("elements  %lld of %d bits\n", (long long)ndx_numel(d), job->dst_bits);
  printf("path      %s\n", path);
  printf("shape     %s\n", ndx_cl_shape(r.env.cl));
  cl_ulong max_alloc = 0;
  clGetDeviceInfo(r.env.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
  size_t limit = max_alloc && max_alloc < COPY_MAX_BYTES ? (size_t)max_alloc : COPY_MAX_BYTES;
  if (nd > limit || ns > limit) {
    printf("%s: no result: a buffer of %zu bytes is needed, this tool allocates at most %zu\n",
           job->cmd, nd > ns ? nd : ns, limit);
    return finish(&r, 1);
  }
  /* OpenCL buffers are never empty: an empty layout gets a 1-byte one. */
  size_t bd = nd ? nd : 1, bs = ns ? ns : 1;
  r.src = malloc(bs), r.want = malloc(bd), r.got = malloc(bd), r.mask = calloc(bd, 1);
  if (!r.src || !r.want || !r.got || !r.mask) {
    printf("%s: no result: out of host memory for %zu + %zu bytes\n", job->cmd, bs, bd);
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
    printf("%s: no result: clCreateBuffer failed: %d, %d\n", job->cmd, e1, e2);
    return finish(&r, 1);
  }
  if (job->convert)
    convert_reference(job, &r, d, s);
  else
    oracle_copy(r.want, d, r.src, s, job->dst_bits, r.mask); /* mask: the bytes elements touch */

  cl_event done = NULL;
  ndx_status st = job->convert ? ndx_cl_convert(r.env.cl, r.env.queue, r.md, d, job->dst_t, r.ms, s,
                                                job->src_t, 0, NULL, &done)
                               : ndx_cl_copy(r.env.cl, r.env.queue, r.md, d, r.ms, s, job->dst_bits,
                                             0, NULL, &done);
  if (st != NDX_OK) return refused(job, &r, st);
  cl_int e = done ? clWaitForEvents(1, &done) : clFinish(r.env.queue);
  if (done) clReleaseEvent(done);
  if (e == CL_SUCCESS)
    e = clEnqueueReadBuffer(r.env.queue, r.md, CL_TRUE, 0, bd, r.got, 0, NULL, NULL);
  if (e != CL_SUCCESS) {
    printf("%s: no result: the %s or its read-back failed: OpenCL error %d\n", job->cmd, job->cmd,
           e);
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
  copy_job job = {"copy", false, bits, bits, NDX_U8, NDX_U8};
  return checked_run(&job, device, &ls[0].l, &ls[1].l);
}

/* The type of one side: the option's, else the JSON layout's dtype. */
static ndx_dtype side_type(const char *option, const tool_layout *t, const char *what) {
  ndx_dtype out;
  if (option) {
    if (ndx_dtype_parse(&out, option) != NDX_OK)
      tool_malformed("convert: %s: %s", what, ndx_last_error());
    return out;
  }
  if (t->bits == 0)
    tool_malformed("convert: %s: no type: give it, or a JSON layout with a dtype", what);
#ifdef NDX_TOOL_HAVE_DLPACK
  DLDataType dt = {(uint8_t)t->code, (uint8_t)t->dtype_bits, (uint16_t)t->lanes};
  if (ndx_dlpack_dtype(&out, dt) != NDX_OK)
    tool_malformed("convert: %s: %s", what, ndx_last_error());
  return out;
#else
  tool_malformed("convert: %s: no type: give it (JSON dtypes need DLPack)", what);
  return NDX_U8;
#endif
}

int tool_cmd_convert(int argc, char **argv) {
  int device = -1, n = 0;
  const char *texts[2], *from = NULL, *to = NULL;
  for (int i = 0; i < argc; i++) {
    const char *v;
    if ((v = tool_option_value(argc, argv, &i, "--from")))
      from = v;
    else if ((v = tool_option_value(argc, argv, &i, "--to")))
      to = v;
    else if ((v = tool_option_value(argc, argv, &i, "--device")))
      device = (int)tool_arg_int(v, "convert: --device", 0, 255);
    else if (argv[i][0] == '-')
      tool_malformed("convert: unknown option '%s'", argv[i]);
    else if (n == 2)
      tool_malformed("convert: takes DST and SRC; extra argument '%s'", argv[i]);
    else
      texts[n++] = argv[i];
  }
  tool_layout ls[2];
  /* the layouts' byte offsets count elements of each side's type */
  ndx_dtype dt = NDX_U8, st = NDX_U8;
  if (to && ndx_dtype_parse(&dt, to) != NDX_OK)
    tool_malformed("convert: --to: %s", ndx_last_error());
  if (from && ndx_dtype_parse(&st, from) != NDX_OK)
    tool_malformed("convert: --from: %s", ndx_last_error());
  if (n < 2) tool_malformed("convert: missing %s", n == 0 ? "DST and SRC" : "SRC");
  tool_arg_layout(&ls[0], texts[0], "convert: DST", ndx_dtype_bits(dt));
  tool_arg_layout(&ls[1], texts[1], "convert: SRC", ndx_dtype_bits(st));
  dt = side_type(to, &ls[0], "--to");
  st = side_type(from, &ls[1], "--from");
  copy_job job = {"convert", true, ndx_dtype_bits(dt), ndx_dtype_bits(st), dt, st};
  return checked_run(&job, device, &ls[0].l, &ls[1].l);
}
