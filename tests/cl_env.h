/* cl_env.h: the OpenCL environment every OpenCL suite runs in.
 *
 * The device is the first device of the first platform, or of the first
 * platform whose name contains $NDX_CL_PLATFORM (e.g. NVIDIA). cl_env_open
 * makes a context, an in-order queue and an ndx_cl on it; cl_env_need skips
 * the test without a device, or fails it under CI=true, where a missing
 * device is a failure; cl_env_close releases everything.
 *
 * Criterion forks a process per test, and a context must never be created
 * in the parent: each suite opens its environment inside the test (its
 * .init fixture, or the test itself). Include criterion/criterion.h, or
 * tests/mini_criterion.h, first: the asserts are theirs. */
#ifndef NDX_TESTS_CL_ENV_H
#define NDX_TESTS_CL_ENV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

#include "ndx/ndx_cl.h"

#ifndef cr_assert
#error "cl_env.h: include criterion/criterion.h or mini_criterion.h first"
#endif

typedef struct cl_env {
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  ndx_cl *cl;
  char missing[256]; /* why there is no device, when there is none */
} cl_env;

/* The device, or NULL with the reason in `missing`. */
static inline cl_device_id cl_env_device(char *missing, size_t size) {
  cl_platform_id platforms[8];
  cl_uint np = 0;
  if (clGetPlatformIDs(8, platforms, &np) != CL_SUCCESS || np == 0) {
    snprintf(missing, size, "no OpenCL platform");
    return NULL;
  }
  const char *want = getenv("NDX_CL_PLATFORM");
  cl_device_id device = NULL;
  for (cl_uint i = 0; i < np && !device; i++) {
    char name[256] = "";
    clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (want && *want && !strstr(name, want)) continue;
    if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS)
      device = NULL;
  }
  if (!device)
    snprintf(missing, size, "no OpenCL device on %u platform(s)%s%s", np,
             want && *want ? " named like " : "", want && *want ? want : "");
  return device;
}

/* Fills `env` from nothing: the device, its context, a queue and an ndx_cl;
 * without a device, only `missing`. */
static inline void cl_env_open(cl_env *env) {
  memset(env, 0, sizeof *env);
  env->device = cl_env_device(env->missing, sizeof env->missing);
  if (!env->device) return;
  cl_int e;
  env->context = clCreateContext(NULL, 1, &env->device, NULL, NULL, &e);
  cr_assert_eq(e, CL_SUCCESS, "clCreateContext: %d", e);
  env->queue = clCreateCommandQueue(env->context, env->device, 0, &e);
  cr_assert_eq(e, CL_SUCCESS, "clCreateCommandQueue: %d", e);
  ndx_status s = ndx_cl_create(&env->cl, env->context, env->device);
  cr_assert_eq(s, NDX_OK, "ndx_cl_create: %s", ndx_last_error());
}

/* Returns when `env` has a device; else skips the test, or fails it under
 * CI=true. */
static inline void cl_env_need(const cl_env *env) {
  if (env->cl) return;
  const char *ci = getenv("CI");
  if (ci && strcmp(ci, "true") == 0)
    cr_assert(0, "CI=true but %s: the device suite must run in CI", env->missing);
  cr_skip_test("%s (install PoCL: apt-get install pocl-opencl-icd)", env->missing);
}

/* A buffer of `size` bytes in env's context, holding `data` when not NULL. */
static inline cl_mem cl_env_buffer(const cl_env *env, size_t size, const void *data) {
  cl_int e;
  cl_mem m = clCreateBuffer(env->context, CL_MEM_READ_WRITE, size, NULL, &e);
  cr_assert_eq(e, CL_SUCCESS, "clCreateBuffer(%zu): %d", size, e);
  if (data) {
    e = clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0, size, data, 0, NULL, NULL);
    cr_assert_eq(e, CL_SUCCESS, "clEnqueueWriteBuffer: %d", e);
  }
  return m;
}

/* Reads the first `size` bytes of `m` into `out`, waiting. */
static inline void cl_env_read(const cl_env *env, cl_mem m, size_t size, void *out) {
  cl_int e = clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, size, out, 0, NULL, NULL);
  cr_assert_eq(e, CL_SUCCESS, "clEnqueueReadBuffer: %d", e);
}

/* Bytes past a layout's own that a test buffer has, which must stay
 * untouched. */
#define CL_ENV_MARGIN 24

/* Bytes a buffer for `l` of `bits`-bit elements needs, plus CL_ENV_MARGIN. */
static inline size_t cl_env_buffer_bytes(const ndx_layout *l, int bits) {
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  return (size_t)((hi * bits + 7) / 8) + CL_ENV_MARGIN;
}

/* Releases what cl_env_open made and clears `env` (without Criterion, the
 * next test runs in this process). */
static inline void cl_env_close(cl_env *env) {
  ndx_cl_destroy(env->cl);
  if (env->queue) clReleaseCommandQueue(env->queue);
  if (env->context) clReleaseContext(env->context);
  memset(env, 0, sizeof *env);
}

#endif
