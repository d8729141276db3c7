/* example_cl.h: the OpenCL set-up the examples share, and their checks.
 *
 * Opens the default device the way `ndx demo` does: the first platform (or
 * the first whose name contains $NDX_CL_PLATFORM), its default device (or
 * else its first one), a context, an in-order queue and an ndx_cl, which
 * builds ndx's embedded copy kernels once. Without a platform or device the
 * example cannot run: it then exits 77, which meson reads as "skipped".
 *
 * Every failure is fatal in an example: the CHECK macros print what failed
 * and exit 1 (the OS frees what was allocated). A library would return an
 * ndx_status instead. */
#ifndef EXAMPLE_CL_H
#define EXAMPLE_CL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ndx/ndx.h>
#include <ndx/ndx_cl.h>

#define EXAMPLE_SKIP 77

/* An ndx_ call that must succeed: prints the call and ndx_last_error(). */
#define CHECK_NDX(call)                                                                            \
  do {                                                                                             \
    ndx_status s_ = (call);                                                                        \
    if (s_ != NDX_OK) {                                                                            \
      fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call, ndx_status_name(s_),       \
              ndx_last_error());                                                                   \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

/* An OpenCL call returning a cl_int that must be CL_SUCCESS. */
#define CHECK_CL(call)                                                                             \
  do {                                                                                             \
    cl_int e_ = (call);                                                                            \
    if (e_ != CL_SUCCESS) {                                                                        \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, e_);                    \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

typedef struct example_cl {
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  ndx_cl *cl;
} example_cl;

/* Opens the default device into `env`; exits 77 when there is none. */
static inline void example_cl_open(example_cl *env) {
  cl_platform_id platforms[16], platform = NULL;
  cl_uint np = 0, nd = 0;
  if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS || np == 0) {
    printf("skipped: no OpenCL platform (install an ICD, e.g. pocl-opencl-icd)\n");
    exit(EXAMPLE_SKIP);
  }
  const char *want = getenv("NDX_CL_PLATFORM");
  for (cl_uint i = 0; i < np && i < 16 && !platform; i++) {
    char name[256] = "";
    clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (!want || !*want || strstr(name, want)) platform = platforms[i];
  }
  if (!platform) {
    printf("skipped: no OpenCL platform named like %s\n", want);
    exit(EXAMPLE_SKIP);
  }
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &env->device, &nd) != CL_SUCCESS ||
      nd == 0) {
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &env->device, &nd) != CL_SUCCESS ||
        nd == 0) {
      printf("skipped: no OpenCL device on the platform\n");
      exit(EXAMPLE_SKIP);
    }
  }
  char name[256] = "?";
  clGetDeviceInfo(env->device, CL_DEVICE_NAME, sizeof name, name, NULL);
  printf("device: %s\n", name);
  cl_int e;
  env->context = clCreateContext(NULL, 1, &env->device, NULL, NULL, &e);
  CHECK_CL(e);
  env->queue = clCreateCommandQueue(env->context, env->device, 0, &e);
  CHECK_CL(e);
  CHECK_NDX(ndx_cl_create(&env->cl, env->context, env->device));
}

static inline void example_cl_close(example_cl *env) {
  ndx_cl_destroy(env->cl);
  clReleaseCommandQueue(env->queue);
  clReleaseContext(env->context);
}

/* A device buffer of `bytes` bytes holding `init` (or uninitialized when
 * `init` is NULL). */
static inline cl_mem example_buffer(const example_cl *env, size_t bytes, const void *init) {
  cl_int e;
  cl_mem m = clCreateBuffer(env->context, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0),
                            bytes, (void *)init, &e);
  CHECK_CL(e);
  return m;
}

/* Prints `what` and the layout as ndx_format writes it. */
static inline void example_print(const char *what, const ndx_layout *l) {
  char text[1024];
  ndx_format(text, sizeof text, l);
  printf("  %-28s %s\n", what, text);
}

#endif /* EXAMPLE_CL_H */
