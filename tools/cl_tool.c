/* cl_tool.c: the OpenCL side of the `ndx` tool: `ndx devices`, opening a
 * device (tool_cl_open, also for `ndx copy`), and the device part of `ndx
 * demo`, which runs real copies on the default device, checks each against a
 * host reference and reports the bandwidth reached. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ndx/ndx_cl.h"
#include "oracle.h"
#include "tool.h"

/* ---- ndx devices ------------------------------------------------------------ */

static void info_string(cl_device_id d, cl_device_info what, char *buf, size_t size) {
  if (clGetDeviceInfo(d, what, size, buf, NULL) != CL_SUCCESS) snprintf(buf, size, "?");
}

int tool_devices(void) {
  cl_platform_id platforms[16];
  cl_uint np = 0;
  if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS || np == 0) {
    printf("no OpenCL platform (install an ICD, e.g. pocl-opencl-icd)\n");
    return 0;
  }
  unsigned index = 0; /* devices are numbered across platforms, as copy --device takes them */
  for (cl_uint p = 0; p < np && p < 16; p++) {
    char name[256] = "?", version[256] = "?";
    clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
    clGetPlatformInfo(platforms[p], CL_PLATFORM_VERSION, sizeof version, version, NULL);
    printf("platform %u: %s (%s)\n", p, name, version);
    cl_device_id devices[16];
    cl_uint nd = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &nd) != CL_SUCCESS) nd = 0;
    if (nd == 0) printf("  no device\n");
    for (cl_uint i = 0; i < nd && i < 16; i++) {
      char dname[256], cver[256];
      cl_ulong mem = 0, maxalloc = 0, constant = 0;
      cl_uint units = 0;
      size_t param = 0;
      info_string(devices[i], CL_DEVICE_NAME, dname, sizeof dname);
      info_string(devices[i], CL_DEVICE_OPENCL_C_VERSION, cver, sizeof cver);
      clGetDeviceInfo(devices[i], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
      clGetDeviceInfo(devices[i], CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxalloc, &maxalloc, NULL);
      clGetDeviceInfo(devices[i], CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, sizeof constant, &constant,
                      NULL);
      clGetDeviceInfo(devices[i], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
      clGetDeviceInfo(devices[i], CL_DEVICE_MAX_PARAMETER_SIZE, sizeof param, &param, NULL);
      const char *shape = NULL;
      if (ndx_cl_device_shape(devices[i], &shape) != NDX_OK) shape = ndx_last_error();
      printf("  device %u: %s\n", index++, dname);
      printf("    %s, %u compute units, %.1f GiB memory (%.1f GiB per buffer),\n"
             "    %zu-byte kernel parameters, %llu KiB constant buffer\n"
             "    shape %s\n",
             cver, units, mem / 1073741824.0, maxalloc / 1073741824.0, param,
             (unsigned long long)constant / 1024, shape);
    }
  }
  return 0;
}

/* ---- ndx demo, device side -------------------------------------------------------- */

/* Seconds the event's command ran. */
static double event_seconds(cl_event e) {
  cl_ulong t0 = 0, t1 = 0;
  clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
  clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
  return (double)(t1 - t0) * 1e-9;
}

#define REPEATS 5

/* Runs one copy: a warm-up, then the best of REPEATS timed runs; verifies the
 * destination against the host reference. Returns true when it matched. */
static bool demo_copy(tool_cl *env, const char *what, const ndx_layout *d, const ndx_layout *s,
                      int bits) {
  size_t nd = tool_span_bytes(d, bits), ns = tool_span_bytes(s, bits);
  unsigned char *src = malloc(ns), *want = malloc(nd), *got = malloc(nd);
  cl_mem md = NULL, ms = NULL;
  ndx_cl_plan *plan = NULL;
  bool ok = false;
  if (!src || !want || !got) {
    printf("  %-38s out of host memory\n", what);
    goto out;
  }
  uint64_t x = 88172645463325252u;
  for (size_t i = 0; i < ns; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    src[i] = (unsigned char)x;
  }
  memset(want, 0x5a, nd);
  oracle_copy(want, d, src, s, bits, NULL); /* the host reference (tests/oracle.h) */
  cl_int e1, e2;
  md = clCreateBuffer(env->context, CL_MEM_READ_WRITE, nd, NULL, &e1);
  ms = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, ns, src, &e2);
  if (e1 != CL_SUCCESS || e2 != CL_SUCCESS) {
    printf("  %-38s clCreateBuffer failed: %d %d\n", what, e1, e2);
    goto out;
  }
  unsigned char fill = 0x5a;
  clEnqueueFillBuffer(env->queue, md, &fill, 1, 0, nd, 0, NULL, NULL);
  ndx_status st = ndx_cl_plan_create(&plan, env->cl, d, s, bits);
  if (st != NDX_OK) {
    printf("  %-38s refused: %s\n", what, ndx_last_error());
    goto out;
  }
  double best = 1e30;
  for (int r = 0; r <= REPEATS && st == NDX_OK; r++) {
    cl_event done = NULL;
    st = ndx_cl_plan_enqueue(plan, env->queue, md, ms, 0, NULL, &done);
    if (st == NDX_OK) {
      clWaitForEvents(1, &done);
      double t = event_seconds(done);
      if (r > 0 && t < best) best = t; /* run 0 warms up (PoCL compiles there) */
      clReleaseEvent(done);
    }
  }
  if (st != NDX_OK) {
    printf("  %-38s failed: %s\n", what, ndx_last_error());
    goto out;
  }
  clEnqueueReadBuffer(env->queue, md, CL_TRUE, 0, nd, got, 0, NULL, NULL);
  ok = memcmp(got, want, nd) == 0;
  double moved = 2.0 * (double)ndx_numel(d) * bits / 8; /* read + written */
  printf("  %-38s %3d-bit  path %-9s  %7.1f MB  %8.3f ms  %6.2f GB/s  %s\n", what, bits,
         ndx_cl_plan_path(plan), moved / 1e6, best * 1e3, moved / best / 1e9,
         ok ? "verified" : "MISMATCH");
out:
  ndx_cl_plan_destroy(plan);
  if (md) clReleaseMemObject(md);
  if (ms) clReleaseMemObject(ms);
  free(src);
  free(want);
  free(got);
  return ok;
}

/* The ceiling: clEnqueueCopyBuffer of `bytes` bytes, best of REPEATS. */
static void demo_ceiling(tool_cl *env, size_t bytes) {
  cl_int e1, e2;
  cl_mem a = clCreateBuffer(env->context, CL_MEM_READ_WRITE, bytes, NULL, &e1);
  cl_mem b = clCreateBuffer(env->context, CL_MEM_READ_WRITE, bytes, NULL, &e2);
  if (e1 == CL_SUCCESS && e2 == CL_SUCCESS) {
    unsigned char z = 1;
    clEnqueueFillBuffer(env->queue, a, &z, 1, 0, bytes, 0, NULL, NULL);
    double best = 1e30;
    for (int r = 0; r <= REPEATS; r++) {
      cl_event done = NULL;
      if (clEnqueueCopyBuffer(env->queue, a, b, 0, 0, bytes, 0, NULL, &done) != CL_SUCCESS) break;
      clWaitForEvents(1, &done);
      double t = event_seconds(done);
      if (r > 0 && t < best) best = t;
      clReleaseEvent(done);
    }
    printf("  %-38s %-8s %-14s  %7.1f MB  %8.3f ms  %6.2f GB/s  (the ceiling)\n",
           "clEnqueueCopyBuffer, same bytes", "", "", 2.0 * bytes / 1e6, best * 1e3,
           2.0 * bytes / best / 1e9);
  }
  if (e1 == CL_SUCCESS) clReleaseMemObject(a);
  if (e2 == CL_SUCCESS) clReleaseMemObject(b);
}

/* Picks the device: index >= 0 counts devices across platforms as `ndx
 * devices` lists them; index < 0 is the default one (the first platform, or
 * the first whose name contains $NDX_CL_PLATFORM, and its default device). */
static bool pick_device(tool_cl *env, int index, char *why, size_t size) {
  cl_platform_id platforms[16];
  cl_uint np = 0;
  if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS || np == 0) {
    snprintf(why, size, "no OpenCL platform (install an ICD, e.g. pocl-opencl-icd)");
    return false;
  }
  if (np > 16) np = 16;
  if (index >= 0) {
    int seen = 0;
    for (cl_uint p = 0; p < np; p++) {
      cl_device_id devices[16];
      cl_uint nd = 0;
      if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &nd) != CL_SUCCESS) nd = 0;
      if (nd > 16) nd = 16;
      if (index < seen + (int)nd) {
        env->platform = platforms[p];
        env->device = devices[index - seen];
        return true;
      }
      seen += (int)nd;
    }
    snprintf(why, size, "no device %d: there %s %d (see ndx devices)", index,
             seen == 1 ? "is" : "are", seen);
    return false;
  }
  const char *want = getenv("NDX_CL_PLATFORM");
  for (cl_uint i = 0; i < np && !env->platform; i++) {
    char name[256] = "";
    clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (!want || !*want || strstr(name, want)) env->platform = platforms[i];
  }
  if (!env->platform) {
    snprintf(why, size, "no OpenCL platform named like %s", want);
    return false;
  }
  cl_uint nd = 0;
  if (clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_DEFAULT, 1, &env->device, &nd) != CL_SUCCESS ||
      nd == 0) {
    if (clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_ALL, 1, &env->device, &nd) != CL_SUCCESS ||
        nd == 0) {
      snprintf(why, size, "no OpenCL device on the platform");
      return false;
    }
  }
  return true;
}

/* Says on stderr what ndx compiles: on a terminal, a line while a program
 * builds; after it, when the build took a quarter of a second or more (a
 * first use on a cold kernel cache: the driver's cache serves later runs in
 * milliseconds), a line that stays, printed before the kernel's first launch,
 * where PoCL compiles it further. */
static void say_build(void *user, const ndx_cl_build_event *ev) {
  (void)user;
  char what[96];
  if (ev->bits > 0)
    snprintf(what, sizeof what, "%s for %d-bit elements%s", ev->kernel, ev->bits,
             ev->wide ? ", 64-bit form" : "");
  else
    snprintf(what, sizeof what, "%s%s", ev->kernel, ev->wide ? ", 64-bit form" : "");
  bool tty = isatty(STDERR_FILENO);
  if (!ev->done) {
    if (tty) fprintf(stderr, "compiling %s ...", what);
  } else {
    if (tty) fprintf(stderr, "\r\033[K");
    if (ev->seconds >= 0.25)
      fprintf(stderr,
              "compiling %s: a first use on this device (%.1f s so far; later runs take it "
              "from the OpenCL driver's cache)\n",
              what, ev->seconds);
  }
  fflush(stderr);
}

bool tool_cl_open(tool_cl *env, int index, char *why, size_t size) {
  *env = (tool_cl){0};
  if (!pick_device(env, index, why, size)) return false;
  snprintf(env->name, sizeof env->name, "?");
  snprintf(env->platform_name, sizeof env->platform_name, "?");
  clGetDeviceInfo(env->device, CL_DEVICE_NAME, sizeof env->name, env->name, NULL);
  clGetPlatformInfo(env->platform, CL_PLATFORM_NAME, sizeof env->platform_name, env->platform_name,
                    NULL);
  cl_int e;
  env->context = clCreateContext(NULL, 1, &env->device, NULL, NULL, &e);
  if (e != CL_SUCCESS) {
    env->context = NULL;
    snprintf(why, size, "clCreateContext failed: %d", e);
    return false;
  }
  env->queue = clCreateCommandQueue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE, &e);
  if (e != CL_SUCCESS) {
    env->queue = NULL;
    snprintf(why, size, "clCreateCommandQueue failed: %d", e);
    return false;
  }
  if (ndx_cl_create(&env->cl, env->context, env->device) != NDX_OK) {
    env->cl = NULL;
    snprintf(why, size, "ndx_cl_create failed: %s", ndx_last_error());
    return false;
  }
  ndx_cl_set_build_callback(env->cl, say_build, NULL);
  return true;
}

void tool_cl_close(tool_cl *env) {
  ndx_cl_destroy(env->cl);
  if (env->queue) clReleaseCommandQueue(env->queue);
  if (env->context) clReleaseContext(env->context);
  *env = (tool_cl){0};
}

int tool_demo_device(void) {
  tool_cl env;
  char why[4096];
  if (!tool_cl_open(&env, -1, why, sizeof why)) {
    printf("  %s\n", why);
    tool_cl_close(&env);
    return 1;
  }
  printf("  device: %s (%s)\n\n", env.name, env.platform_name);
  bool ok = true;
  ndx_layout a, b, c;

  /* 1. a transpose of a 2000 x 1500 float32 matrix */
  ndx_contiguous(&a, 2, (int64_t[]){2000, 1500});
  ndx_transpose(&b, &a, 0, 1);
  ndx_contiguous(&c, 2, (int64_t[]){1500, 2000});
  ok &= demo_copy(&env, "transpose [2000,1500] -> [1500,2000]", &c, &b, 32);

  /* 2. a sliced gather: every 2nd row, every 3rd column backwards, uint16 */
  ndx_contiguous(&a, 2, (int64_t[]){4000, 3000});
  ndx_slice(&b, &a, (ndx_range[]){{0, 2000, 2}, {2999, 1000, -3}});
  ndx_contiguous(&c, 2, (int64_t[]){2000, 1000});
  ok &= demo_copy(&env, "gather [::2, ::-3] of [4000,3000]", &c, &b, 16);

  /* 3. a broadcast: one row of 4000 int32 repeated 2000 times */
  ndx_contiguous(&a, 1, (int64_t[]){4000});
  ndx_broadcast(&b, &a, 2, (int64_t[]){2000, 4000});
  ndx_contiguous(&c, 2, (int64_t[]){2000, 4000});
  ok &= demo_copy(&env, "broadcast [4000] -> [2000,4000]", &c, &b, 32);

  /* 4. a 4-bit permute: [256,192,160] nibbles, axes (2,0,1) */
  ndx_contiguous(&a, 3, (int64_t[]){256, 192, 160});
  ndx_permute(&b, &a, (int32_t[]){2, 0, 1});
  ndx_contiguous(&c, 3, (int64_t[]){160, 256, 192});
  ok &= demo_copy(&env, "4-bit permute (2,0,1) of [256,192,160]", &c, &b, 4);

  printf("\n");
  demo_ceiling(&env, (size_t)1500 * 2000 * 4);
  tool_cl_close(&env);
  printf("\n  %s\n", ok ? "every copy matched the host reference" : "A COPY DID NOT MATCH");
  return ok ? 0 : 1;
}
