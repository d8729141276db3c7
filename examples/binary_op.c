/* binary_op: a backend's own elementwise kernel on ndx layouts (OpenCL).
 *
 *   out[n, i, j] = a[n, i] - b[j]      out: [2, 4, 6], every other column
 *                                            of a [2, 4, 12] buffer
 *                                       a:   [2, 4] with strides [12, 3]
 *                                       b:   [6], read backwards (a flip)
 *
 * The host side is what a backend does before every launch of a pointwise
 * op: broadcast the inputs to the output's shape (ndx_broadcast: stride 0
 * on the new axes), coalesce the three layouts together (ndx_coalesce:
 * here the batch and row axes merge in all three, rank 3 becomes 2) and
 * pack them with the element width (ndx_pack). The kernel, in
 * binary_op.cl, includes ndx_device.h and reads positions from the pack.
 *
 * The .cl source is embedded at build time by tools/embed.py, which inlines
 * the ndx headers it includes, so this program needs no file at run time. A
 * program built against the installed package can instead pass
 * -I$(pkg-config --variable=includedir ndx) to clBuildProgram.
 *
 * Checked against a host loop, including the buffer's bytes outside out's
 * layout, which must keep their value. Exits 0 when the device result
 * matches, 1 when it does not, 77 without an OpenCL device. */
#include <stdint.h>

#include "example_cl.h"

extern const char binary_op_cl_source[]; /* binary_op.cl, headers inlined */

enum { NB = 2, NI = 4, NJ = 6 };
#define SENTINEL -1234.0f

int main(void) {
  static float out[NB * NI * 12], a[NB * NI * 3], b[NJ];
  for (int k = 0; k < NB * NI * 12; k++) out[k] = SENTINEL;
  for (int k = 0; k < NB * NI * 3; k++) a[k] = (float)(100 * k);
  for (int k = 0; k < NJ; k++) b[k] = (float)k;

  /* The operands as the framework holds them. */
  ndx_layout lo, la, lb;
  CHECK_NDX(ndx_contiguous(&lo, 3, (int64_t[]){NB, NI, 12}));
  CHECK_NDX(ndx_slice(&lo, &lo, (ndx_range[]){{0, NB, 1}, {0, NI, 1}, {1, NJ, 2}}));
  CHECK_NDX(ndx_make(&la, 2, (int64_t[]){NB, NI}, (int64_t[]){12, 3}, 0));
  CHECK_NDX(ndx_contiguous(&lb, 1, (int64_t[]){NJ}));
  CHECK_NDX(ndx_flip(&lb, &lb, 0));
  /* Written to by many work-items at once: out must not map two indices to
   * one element. */
  if (!ndx_is_distinct(&lo)) {
    fprintf(stderr, "out is not distinct: two work-items would write one element\n");
    return 1;
  }

  /* Broadcast: a gets a trailing axis of extent 1 first (a[n, i] is
   * constant along j), then both go to out's shape. */
  CHECK_NDX(ndx_unsqueeze(&la, &la, 2));
  CHECK_NDX(ndx_broadcast(&la, &la, lo.rank, lo.shape));
  CHECK_NDX(ndx_broadcast(&lb, &lb, lo.rank, lo.shape));
  ndx_layout ops[3] = {lo, la, lb};
  example_print("out", &ops[0]);
  example_print("a, broadcast", &ops[1]);
  example_print("b, broadcast", &ops[2]);
  CHECK_NDX(ndx_coalesce(3, ops, ops));
  example_print("out, coalesced", &ops[0]);
  example_print("a, coalesced", &ops[1]);
  example_print("b, coalesced", &ops[2]);

  /* The pack: an 8-aligned buffer; NDX_PACK_MAX_BYTES always suffices. */
  uint64_t pack[NDX_PACK_MAX_BYTES(3, NDX_MAX_RANK) / 8];
  size_t used;
  CHECK_NDX(ndx_pack(pack, sizeof pack, &used, 3, ops, 32));
  const ndx_pack_head *head = (const ndx_pack_head *)pack;
  printf("  pack: %zu bytes, rank %u, %s words\n", used, head->rank,
         head->wide ? "int64" : "int32");

  example_cl env;
  example_cl_open(&env);
  /* The kernel, built for the pack's word width. */
  cl_int e;
  const char *text = binary_op_cl_source;
  cl_program program = clCreateProgramWithSource(env.context, 1, &text, NULL, &e);
  CHECK_CL(e);
  const char *options = head->wide ? "-DNDX_WIDE=1" : "-DNDX_WIDE=0";
  if (clBuildProgram(program, 1, &env.device, options, NULL, NULL) != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(program, env.device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "binary_op.cl does not build:\n%s\n", log);
    return 1;
  }
  cl_kernel kernel = clCreateKernel(program, "sub_f32", &e);
  CHECK_CL(e);

  cl_mem dpack =
      clCreateBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, used, pack, &e);
  CHECK_CL(e);
  cl_mem dout = example_buffer(&env, sizeof out, out);
  cl_mem da = example_buffer(&env, sizeof a, a);
  cl_mem db = example_buffer(&env, sizeof b, b);
  CHECK_CL(clSetKernelArg(kernel, 0, sizeof dpack, &dpack));
  CHECK_CL(clSetKernelArg(kernel, 1, sizeof dout, &dout));
  CHECK_CL(clSetKernelArg(kernel, 2, sizeof da, &da));
  CHECK_CL(clSetKernelArg(kernel, 3, sizeof db, &db));
  size_t global = (size_t)head->numel; /* one work-item per element */
  CHECK_CL(clEnqueueNDRangeKernel(env.queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
  static float got[NB * NI * 12];
  CHECK_CL(clEnqueueReadBuffer(env.queue, dout, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));

  /* The host reference: the same op on the original buffers. */
  static float want[NB * NI * 12];
  for (int k = 0; k < NB * NI * 12; k++) want[k] = SENTINEL;
  for (int n = 0; n < NB; n++)
    for (int i = 0; i < NI; i++)
      for (int j = 0; j < NJ; j++)
        want[n * 48 + i * 12 + 1 + 2 * j] = a[n * 12 + i * 3] - b[NJ - 1 - j];
  int bad = 0;
  for (int k = 0; k < NB * NI * 12; k++)
    if (got[k] != want[k] && bad++ < 5)
      fprintf(stderr, "mismatch at out buffer element %d: got %g, want %g\n", k, got[k], want[k]);
  printf("out buffer, first row: ");
  for (int k = 0; k < 12; k++) printf(" %g", got[k]);
  printf("\n");

  clReleaseMemObject(dpack);
  clReleaseMemObject(dout);
  clReleaseMemObject(da);
  clReleaseMemObject(db);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  example_cl_close(&env);
  printf("%s: %d of %d buffer elements differ from the host reference\n", bad ? "FAILED" : "ok",
         bad, NB * NI * 12);
  return bad ? 1 : 0;
}
