/* cl.c: a user of libndx_cl (ndx_cl.pc, ndx::cl, dependency('ndx_cl')),
 * built by tests/test_install.sh with pkg-config, CMake and meson.
 *
 * An ndx_cl_copy (a transpose) on the default OpenCL device checked against
 * the host, and a kernel of its own on ndx/ndx_device.h checked against the
 * host's positions: clBuildProgram gets -I with argv[1], or else with
 * NDX_CONSUMER_INCLUDE_DIR (the CMake build defines it from ndx_INCLUDE_DIR).
 * Exit 0: all good; 1: a check failed; 77: no OpenCL device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ndx/ndx.h>
#include <ndx/ndx_cl.h>

#define FAIL(...) (fprintf(stderr, __VA_ARGS__), exit(1))

static const char *kernel_text =
    "#include \"ndx/ndx_device.h\"\n"
    "__kernel void positions(__constant const ndx_pack_head *p, __global long *out) {\n"
    "  long i = (long)get_global_id(0);\n"
    "  if (i < p->numel) out[i] = NDX_W(ndx_position)(p, 1, (NDX_WORD)i);\n"
    "}\n";

int main(int argc, char **argv) {
  const char *include_dir = argc > 1 ? argv[1] : NULL;
#ifdef NDX_CONSUMER_INCLUDE_DIR
  if (!include_dir) include_dir = NDX_CONSUMER_INCLUDE_DIR;
#endif
  if (!include_dir || argc > 2) FAIL("usage: %s INCLUDE_DIR\n", argv[0]);
  cl_platform_id platform;
  cl_device_id device;
  cl_uint np = 0, nd = 0;
  if (clGetPlatformIDs(1, &platform, &np) != CL_SUCCESS || np == 0) return 77;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &nd) != CL_SUCCESS || nd == 0)
    return 77;
  cl_int e;
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &e);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &e);
  ndx_cl *cl;
  if (ndx_cl_create(&cl, ctx, device) != NDX_OK) FAIL("ndx_cl_create: %s\n", ndx_last_error());

  /* src: [5, 7] seen transposed; dst: C-order [7, 5]. */
  enum { R = 5, C = 7 };
  float a[R * C], t[R * C];
  for (int i = 0; i < R * C; i++) a[i] = (float)i;
  ndx_layout src, dst;
  ndx_contiguous(&src, 2, (int64_t[]){R, C});
  ndx_transpose(&src, &src, 0, 1);
  ndx_contiguous(&dst, 2, (int64_t[]){C, R});
  cl_mem ms = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof a, a, &e);
  cl_mem md = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof t, NULL, &e);
  if (ndx_cl_copy(cl, q, md, &dst, ms, &src, 32, 0, NULL, NULL) != NDX_OK)
    FAIL("ndx_cl_copy: %s\n", ndx_last_error());
  clEnqueueReadBuffer(q, md, CL_TRUE, 0, sizeof t, t, 0, NULL, NULL);
  for (int i = 0; i < C; i++)
    for (int j = 0; j < R; j++)
      if (t[i * R + j] != a[j * C + i]) FAIL("copy: [%d][%d] = %g\n", i, j, t[i * R + j]);

  /* The user's kernel: positions of src's indices from a pack of (dst, src). */
  uint64_t pack[NDX_PACK_MAX_BYTES(2, NDX_MAX_RANK) / 8];
  size_t used;
  ndx_layout ops[2] = {dst, src};
  if (ndx_pack(pack, sizeof pack, &used, 2, ops, 32) != NDX_OK)
    FAIL("ndx_pack: %s\n", ndx_last_error());
  char options[4096];
  snprintf(options, sizeof options, "-I%s -DNDX_WIDE=%u", include_dir,
           ((const ndx_pack_head *)pack)->wide);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kernel_text, NULL, &e);
  if (clBuildProgram(prog, 1, &device, options, NULL, NULL) != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    FAIL("kernel with %s does not build:\n%s\n", options, log);
  }
  cl_kernel k = clCreateKernel(prog, "positions", &e);
  cl_mem mp = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, used, pack, &e);
  cl_mem mo = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, R * C * sizeof(cl_long), NULL, &e);
  clSetKernelArg(k, 0, sizeof mp, &mp);
  clSetKernelArg(k, 1, sizeof mo, &mo);
  size_t global = R * C;
  if (clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL) != CL_SUCCESS)
    FAIL("clEnqueueNDRangeKernel failed\n");
  cl_long pos[R * C];
  clEnqueueReadBuffer(q, mo, CL_TRUE, 0, sizeof pos, pos, 0, NULL, NULL);
  for (int i = 0; i < C; i++) /* index (i, j) of src is element j*C + i */
    for (int j = 0; j < R; j++)
      if (pos[i * R + j] != j * C + i)
        FAIL("kernel: position of (%d, %d) = %ld\n", i, j, (long)pos[i * R + j]);

  clReleaseMemObject(mp);
  clReleaseMemObject(mo);
  clReleaseMemObject(ms);
  clReleaseMemObject(md);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  ndx_cl_destroy(cl);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  printf("ok\n");
  return 0;
}
