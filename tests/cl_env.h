/* cl_env.h: the OpenCL device the device suites run on.
 *
 * The first device of the first platform, or of the first platform whose
 * name contains $NDX_CL_PLATFORM (e.g. NVIDIA). Each suite opens its own
 * context in its setup: Criterion forks a process per test, and a context
 * must never be created in the parent. */
#ifndef NDX_TESTS_CL_ENV_H
#define NDX_TESTS_CL_ENV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

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

#endif
