/* test_cuda.c: ndx_cuda.h on a GPU, checked byte for byte against the host.
 *
 * The argument checks, the path choices and empty copies need no GPU and
 * always run. Every copy test needs a device: without one it is skipped
 * with the reason cudaGetDeviceCount gives. The copies are the cases of
 * cuda_cases.h (the emulator's, tests/test_cuda_emulate.cu): random layout
 * pairs of ranks 0..8 and named cases, every width, 32- and 64-bit index
 * math, each case again into every other destination element (the
 * odometer's kernels), the candidate kernels planned by name, pointers off
 * alignment, into a destination filled with a pattern whose every byte is
 * compared with the reference.
 * Gathers and scatters: the calls of cuda_index_cases.h (the emulator's
 * too), each compared over the whole destination buffer with
 * index_oracle.h's reference and its fault checked through ndx_cuda_check;
 * their refusals need no GPU.
 *
 * Built with Criterion by meson (suite 'device'), or with
 * -DNDX_NO_CRITERION and tests/mini_criterion.h by ci/gpu on machines that
 * lack Criterion; both print TAP. The HIP build compiles it again with
 * NDX_HIP (test_hip: ndx_hip.h, HIP's runtime, an AMD GPU; kernels/ndx_gpu.h
 * maps the names). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndx_gpu.h" /* the CUDA or, in the HIP build, the HIP runtime */

#ifdef NDX_NO_CRITERION
#include "mini_criterion.h"
#else
#include <criterion/criterion.h>
#endif

#include <pthread.h>

#include "cuda_cases.h"
#include "cuda_index_cases.h"
#include "convert_ref.h"
#include "device/cuda_plan.h"

/* ---- Devices ------------------------------------------------------------------ */

/* True when a device of the runtime is there; else why not, from
 * cudaGetDeviceCount (hipGetDeviceCount in the HIP build). */
static bool have_device(char *why, size_t size) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    snprintf(why, size,
             "no " NDX_GPU_NAME " device: " NDX_GPU_STR(cudaGetDeviceCount) " returned %s (%s)",
             cudaGetErrorName(e), cudaGetErrorString(e));
    return false;
  }
  if (count == 0) {
    snprintf(why, size,
             "no " NDX_GPU_NAME " device: " NDX_GPU_STR(cudaGetDeviceCount) " found 0 devices");
    return false;
  }
  return true;
}

#define NEED_DEVICE()                                                                              \
  do {                                                                                             \
    char why_[512];                                                                                \
    if (!have_device(why_, sizeof why_)) cr_skip_test("%s", why_);                                 \
  } while (0)

#define NEED_NO_DEVICE()                                                                           \
  do {                                                                                             \
    char why_[512];                                                                                \
    if (have_device(why_, sizeof why_))                                                            \
      cr_skip_test("a " NDX_GPU_NAME                                                               \
                   " device is present: this checks the error of a launch without one");           \
  } while (0)

/* Device buffers the copies share: big enough for every case. */
#define ARENA (64u << 20)
static uint8_t *dev_dst, *dev_src;

static void arena(void) {
  if (dev_dst) return;
  cudaError_t e = cudaMalloc((void **)&dev_dst, ARENA);
  if (e == cudaSuccess) e = cudaMalloc((void **)&dev_src, ARENA);
  cr_assert(e == cudaSuccess, "cudaMalloc: %s", cudaGetErrorName(e));
}

/* Copies case `c` on the device with plan `flags` and candidate `kernel`
 * (-1: the selection table's kernels), the buffers `dshift` and `sshift`
 * bytes past 256-byte boundaries, and compares the whole destination buffer
 * with the reference. Returns true, or false with why. */
static bool device_case(const cuda_case *c, unsigned flags, int kernel, int dshift, int sshift,
                        uint64_t seed, char *why, size_t size) {
  ndx_cuda_plan *plan;
  ndx_status st =
      kernel < 0 ? ndx_cuda_plan_create_flags(&plan, &c->dst, &c->src, c->bits, flags)
                 : ndx_cuda_plan_create_kernel(&plan, &c->dst, &c->src, c->bits, flags, kernel);
  if (st != NDX_OK) {
    snprintf(why, size, "plan: %s: %s", ndx_status_name(st), ndx_last_error());
    return false;
  }
  size_t nd = cuda_case_bytes(&c->dst, c->bits), ns = cuda_case_bytes(&c->src, c->bits);
  if (nd + 256 > ARENA || ns + 256 > ARENA) {
    snprintf(why, size, "case needs %zu and %zu bytes, more than the arena", nd, ns);
    ndx_cuda_plan_destroy(plan);
    return false;
  }
  uint8_t *hd = malloc(nd), *hs = malloc(ns), *ref = malloc(nd);
  cr_assert(hd && hs && ref, "out of host memory");
  cuda_fill(hd, nd, seed);
  cuda_fill(hs, ns, seed + 1);
  memcpy(ref, hd, nd);
  oracle_copy(ref, &c->dst, hs, &c->src, c->bits, NULL);
  uint8_t *d = dev_dst + dshift, *s = dev_src + sshift;
  bool ok = false;
  char desc[1500];
  cudaError_t e = cudaMemcpy(d, hd, nd, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(s, hs, ns, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    snprintf(why, size, "cudaMemcpy to the device: %s", cudaGetErrorName(e));
    goto out;
  }
  st = ndx_cuda_plan_launch(plan, 0, d, s);
  if (st != NDX_OK) {
    snprintf(why, size, "launch: %s: %s: %s", ndx_status_name(st), ndx_last_error(),
             cuda_describe(desc, sizeof desc, c));
    goto out;
  }
  e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaMemcpy(hd, d, nd, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    snprintf(why, size, "after the copy (path %s): %s (%s): %s", ndx_cuda_plan_path(plan),
             cudaGetErrorName(e), cudaGetErrorString(e), cuda_describe(desc, sizeof desc, c));
    goto out;
  }
  int64_t at = cuda_first_difference(hd, ref, nd);
  if (at >= 0) {
    snprintf(why, size, "byte %lld is 0x%02x, want 0x%02x (path %s, step %s): %s", (long long)at,
             hd[at], ref[at], ndx_cuda_plan_path(plan),
             plan->nsteps ? ndx_cuda_step_name(&plan->step[0]) : "none",
             cuda_describe(desc, sizeof desc, c));
    goto out;
  }
  ok = true;
out:
  free(hd);
  free(hs);
  free(ref);
  ndx_cuda_plan_destroy(plan);
  return ok;
}

/* Case `c` with its destination's strides and offset doubled: the same
 * elements at every other position, which a copy reaches by the odometer
 * (the gather and gather-flip kernels, or bytes below 8 bits). */
static void into_every_other(cuda_case *c) {
  int64_t strides[NDX_MAX_RANK];
  for (int a = 0; a < c->dst.rank; a++) strides[a] = 2 * c->dst.strides[a];
  cr_assert_eq(ndx_make(&c->dst, c->dst.rank, c->dst.shape, strides, 2 * c->dst.offset), NDX_OK,
               "%s", ndx_last_error());
}

/* Runs the named cases (with pointer shifts when `shifts`) and `nrandom`
 * random ones at every width with `flags` and candidate `kernel` (-1:
 * none), each into every other element when `spread`; fails on the first
 * wrong copy. */
static void device_cases(unsigned flags, int kernel, bool spread, bool shifts, int nrandom) {
  NEED_DEVICE();
  arena();
  char why[4096];
  int total = 0;
  for (int w = 0; w < CUDA_NWIDTHS; w++) {
    int bits = cuda_widths[w], es = bits >= 8 ? bits / 8 : 1, off = es < 16 ? es : 0;
    int sh[3][2] = {{0, 0}, {off, 0}, {0, off}};
    for (int k = 0; k < CUDA_NAMED; k++) {
      cuda_case c;
      if (!cuda_named_case(k, bits, &c)) continue;
      if (spread) into_every_other(&c);
      for (int v = 0; v < (shifts ? 3 : 1); v++, total++)
        cr_assert(device_case(&c, flags, kernel, sh[v][0], sh[v][1], (uint64_t)k, why, sizeof why),
                  "%s", why);
    }
    oracle_rng r = {(uint64_t)(7000 + 10 * bits + flags)};
    for (int k = 0; k < nrandom; k++, total++) {
      cuda_case c;
      cuda_random_case(&r, k, bits, &c);
      if (spread) into_every_other(&c);
      cr_assert(device_case(&c, flags, kernel, 0, 0, (uint64_t)k, why, sizeof why), "%s", why);
    }
  }
  cr_log_info("%d copies checked", total);
}

/* ---- No device needed ----------------------------------------------------------- */

/* String equality under both Criterion and the stand-in. */
#define cr_assert_str_eq_(a, b) cr_assert(strcmp((a), (b)) == 0, "\"%s\" is not \"%s\"", (a), (b))

static ndx_layout contig2(int64_t a, int64_t b) {
  return cuda_contig(2, (int64_t[]){a, b});
}

Test(cuda, plan_checks_its_arguments) {
  ndx_layout a = contig2(3, 4), b = contig2(4, 3), bc;
  ndx_cuda_plan *p = NULL;
  cr_assert_eq(ndx_cuda_plan_create(NULL, &a, &a, 32), NDX_EINVAL, "NULL out");
  cr_assert_eq(ndx_cuda_plan_create(&p, NULL, &a, 32), NDX_EINVAL, "NULL dst_l");
  cr_assert_eq(ndx_cuda_plan_create(&p, &a, NULL, 32), NDX_EINVAL, "NULL src_l");
  cr_assert_eq(ndx_cuda_plan_create(&p, &a, &a, 3), NDX_EINVAL, "3 bits");
  cr_assert(strstr(ndx_last_error(), "bits is 3") != NULL, "message: %s", ndx_last_error());
  cr_assert_eq(ndx_cuda_plan_create(&p, &a, &a, 256), NDX_EINVAL, "256 bits");
  cr_assert_eq(ndx_cuda_plan_create(&p, &a, &b, 32), NDX_EINVAL, "shapes differ");
  cr_assert(strstr(ndx_last_error(), "[3,4]") && strstr(ndx_last_error(), "[4,3]"), "message: %s",
            ndx_last_error());
  ndx_layout row = contig2(1, 4);
  cr_assert_eq(ndx_broadcast(&bc, &row, 2, (int64_t[]){3, 4}), NDX_OK, "broadcast");
  cr_assert_eq(ndx_cuda_plan_create(&p, &bc, &a, 32), NDX_EINVAL, "a broadcast destination");
  cr_assert(strstr(ndx_last_error(), "not distinct") != NULL, "message: %s", ndx_last_error());
  cr_assert(p == NULL, "a failed plan_create wrote *out");
  cr_assert_eq(ndx_cuda_plan_create_flags(&p, &a, &a, 32, 64u), NDX_EINVAL, "unknown flags");
  cr_assert_eq(ndx_cuda_plan_create_kernel(&p, &a, &a, 32, 0, NDX_CUDA_TRANSPOSE), NDX_EINVAL,
               "a kernel that is no candidate");
  cr_assert(strstr(ndx_last_error(), "no candidate") != NULL, "message: %s", ndx_last_error());
  cr_assert_eq(ndx_cuda_plan_launch(NULL, 0, (void *)0x1000, (void *)0x2000), NDX_EINVAL,
               "NULL plan");
  cr_assert_str_eq_(ndx_cuda_plan_path(NULL), "none");
  ndx_cuda_plan_destroy(NULL);
}

Test(cuda, paths_follow_the_opencl_dispatch) {
  struct {
    int k, bits;
    const char *path, *kernel;
  } want[] = {
      {0, 32, "buffer", "buffer"},
      {1, 32, "transpose", "transpose"},
      {2, 4, "transpose", "transpose-words"},
      {5, 8, "transpose", "transpose-words"},
      {1, 4, "bytes", "bytes"},
      {8, 32, "gather", "gather-flip"},
      {10, 32, "rows", "rows"},
      {12, 32, "gather", "gather"},
      {13, 16, "rows", "rows"},
      {15, 64, "transpose", "transpose"},
      {16, 32, "rows", "rows"},
      {18, 32, "empty", "none"},
      {19, 8, "buffer", "buffer"},
      {20, 4, "bytes", "bytes"},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    cuda_case c;
    cr_assert(cuda_named_case(want[i].k, want[i].bits, &c), "case %d", want[i].k);
    ndx_cuda_plan *p;
    cr_assert_eq(ndx_cuda_plan_create(&p, &c.dst, &c.src, c.bits), NDX_OK, "%s: %s", c.name,
                 ndx_last_error());
    const char *kernel = p->nsteps ? ndx_cuda_step_name(&p->step[0]) : "none";
    cr_assert(!strcmp(ndx_cuda_plan_path(p), want[i].path) && !strcmp(kernel, want[i].kernel),
              "%s at %d bits: path %s (%s), want %s (%s)", c.name, c.bits, ndx_cuda_plan_path(p),
              kernel, want[i].path, want[i].kernel);
    ndx_cuda_plan_destroy(p);
  }
}

Test(cuda, empty_copies_launch_nothing) {
  ndx_layout e = contig2(0, 7), f = contig2(7, 0);
  /* no CUDA call happens: this passes with or without a device */
  cr_assert_eq(ndx_cuda_copy(0, NULL, &e, NULL, &e, 32), NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(ndx_cuda_copy(0, (void *)0x10, &f, (void *)0x20, &f, 1), NDX_OK, "%s",
               ndx_last_error());
  ndx_cuda_plan *p;
  cr_assert_eq(ndx_cuda_plan_create(&p, &e, &e, 128), NDX_OK, "%s", ndx_last_error());
  cr_assert_str_eq_(ndx_cuda_plan_path(p), "empty");
  cr_assert_eq(p->nsteps, 0, "an empty plan has steps");
  cr_assert_eq(ndx_cuda_plan_launch(p, 0, NULL, NULL), NDX_OK, "%s", ndx_last_error());
  ndx_cuda_plan_destroy(p);
}

Test(cuda, launch_checks_pointers) {
  ndx_layout a = contig2(4, 8), b = contig2(8, 4), t;
  cr_assert_eq(ndx_transpose(&t, &b, 0, 1), NDX_OK, "transpose");
  cr_assert_eq(ndx_cuda_copy(0, NULL, &a, (void *)0x1000, &a, 32), NDX_EINVAL, "NULL dst");
  cr_assert_eq(ndx_cuda_copy(0, (void *)0x1000, &a, NULL, &a, 32), NDX_EINVAL, "NULL src");
  cr_assert_eq(ndx_cuda_copy(0, (void *)0x1002, &a, (void *)0x8000, &t, 32), NDX_EINVAL,
               "dst off 4 bytes");
  cr_assert(strstr(ndx_last_error(), "aligned") != NULL, "message: %s", ndx_last_error());
  cr_assert_eq(ndx_cuda_copy(0, (void *)0x1000, &a, (void *)0x8008, &t, 128), NDX_EINVAL,
               "src off 16 bytes");
  /* one buffer, spans that share bytes */
  cr_assert_eq(ndx_cuda_copy(0, (void *)0x1000, &a, (void *)0x1000, &t, 32), NDX_EINVAL, "overlap");
  cr_assert(strstr(ndx_last_error(), "overlap") != NULL, "message: %s", ndx_last_error());
}

Test(cuda, launch_without_a_device_is_a_device_error) {
  NEED_NO_DEVICE();
  ndx_layout a = contig2(4, 8), b = contig2(8, 4), t;
  cr_assert_eq(ndx_transpose(&t, &b, 0, 1), NDX_OK, "transpose");
  /* the pointers are never touched: CUDA refuses before any kernel runs */
  ndx_status s = ndx_cuda_copy(0, (void *)0x100000, &a, (void *)0x200000, &t, 32);
  cr_assert_eq(s, NDX_EDEVICE, "%s: %s", ndx_status_name(s), ndx_last_error());
  cr_assert(strstr(ndx_last_error(), NDX_GPU_PREFIX "Error") != NULL, "message: %s",
            ndx_last_error());
  s = ndx_cuda_copy(0, (void *)0x100000, &a, (void *)0x200000, &a, 32);
  cr_assert_eq(s, NDX_EDEVICE, "buffer path: %s: %s", ndx_status_name(s), ndx_last_error());
  cr_assert(strstr(ndx_last_error(), NDX_GPU_STR(cudaMemcpyAsync)) != NULL, "message: %s",
            ndx_last_error());
}

/* Gathers and scatters refuse before any CUDA call: the planner's rules and
 * the pointers' (no device needed; the pointers are never touched). */
#define REFUSED(call, want, text)                                                                  \
  do {                                                                                             \
    ndx_status s_ = (call);                                                                        \
    cr_assert_eq(s_, (want), "%s: %s", ndx_status_name(s_), ndx_last_error());                     \
    cr_assert(strstr(ndx_last_error(), (text)) != NULL, "'%s' lacks '%s'", ndx_last_error(),       \
              (text));                                                                             \
  } while (0)

Test(cuda, index_refusals_need_no_device) {
  ndx_layout d = contig2(4, 8), s = contig2(6, 8), i = contig2(4, 8), bad = contig2(4, 7), bc;
  ndx_layout row = cuda_contig(1, (int64_t[]){8}), r0 = cuda_contig(0, NULL);
  cr_assert_eq(ndx_broadcast(&bc, &row, 2, (int64_t[]){4, 8}), NDX_OK, "broadcast");
  void *md = (void *)0x100000, *ms = (void *)0x200000, *mi = (void *)0x300000;
  REFUSED(ndx_cuda_gather(0, NULL, &d, ms, &s, 0, mi, &i, 32, 0, 32), NDX_EINVAL,
          NDX_GPU_STR(ndx_cuda_gather) ": dst is NULL");
  REFUSED(ndx_cuda_gather(0, md, &d, NULL, &s, 0, mi, &i, 32, 0, 32), NDX_EINVAL, "src is NULL");
  REFUSED(ndx_cuda_scatter(0, ms, &s, md, &d, 0, NULL, &i, 32, 0, 32), NDX_EINVAL,
          NDX_GPU_STR(ndx_cuda_scatter) ": index is NULL");
  REFUSED(ndx_cuda_gather(0, md, &d, ms, &s, 0, mi, NULL, 32, 0, 32), NDX_EINVAL, "index_l");
  REFUSED(ndx_cuda_gather(0, md, &d, ms, &s, 0, mi, &i, 32, 0, 12), NDX_EINVAL, "12");
  REFUSED(ndx_cuda_gather(0, md, &d, ms, &s, 0, mi, &i, 16, 0, 32), NDX_EINVAL, "index_bits is 16");
  REFUSED(ndx_cuda_gather(0, md, &d, ms, &s, 2, mi, &i, 32, 0, 32), NDX_EINVAL,
          "axis 2 is outside [0, 2)");
  REFUSED(ndx_cuda_gather(0, md, &d, ms, &s, 1, mi, &i, 32, 0, 32), NDX_EINVAL,
          "differ on axis 0 (6 and 4)");
  REFUSED(ndx_cuda_gather(0, md, &d, ms, &s, 0, mi, &bad, 32, 0, 32), NDX_EINVAL, "index_l");
  REFUSED(ndx_cuda_gather(0, md, &d, ms, &s, 0, mi, &i, 32, NDX_INDEX_UNIQUE, 32), NDX_EINVAL,
          "flags 0x2");
  REFUSED(ndx_cuda_scatter(0, ms, &s, md, &d, 0, mi, &i, 32, 4u, 32), NDX_EINVAL, "flags 0x4");
  REFUSED(ndx_cuda_gather(0, md, &bc, ms, &s, 0, mi, &i, 32, 0, 32), NDX_EINVAL, "not distinct");
  REFUSED(ndx_cuda_gather(0, md, &r0, ms, &r0, 0, mi, &r0, 32, 0, 32), NDX_EINVAL,
          "outside [0, 0)");
  REFUSED(ndx_cuda_gather(0, (char *)md + 2, &d, ms, &s, 0, mi, &i, 32, 0, 32), NDX_EINVAL,
          "dst 0x100002 is not aligned to 4 bytes for 32-bit elements");
  REFUSED(ndx_cuda_gather(0, md, &d, (char *)ms + 8, &s, 0, mi, &i, 32, 0, 128), NDX_EINVAL,
          "src 0x200008 is not aligned to 16 bytes");
  REFUSED(ndx_cuda_gather(0, md, &d, ms, &s, 0, (char *)mi + 4, &i, 64, 0, 32), NDX_EINVAL,
          "index 0x300004 is not aligned to 8 bytes for 64-bit index elements");
  /* dst [0x100000, 0x100080) against src and index starting 64 bytes in */
  REFUSED(ndx_cuda_gather(0, md, &d, (char *)md + 64, &s, 0, mi, &i, 32, 0, 32), NDX_EINVAL,
          "dst's bytes [0x100000, 0x100080) and src's [0x100040, 0x100100) overlap");
  REFUSED(ndx_cuda_gather(0, md, &d, ms, &s, 0, (char *)md + 64, &i, 32, 0, 32), NDX_EINVAL,
          "and index's [0x100040, 0x1000c0) overlap");
  REFUSED(ndx_cuda_index_flags(false, 8u, 0, md, &d, ms, &s, 0, mi, &i, 32, 0, 32), NDX_EINVAL,
          "internal flags 0x8");
  REFUSED(ndx_cuda_index_flags(true, NDX_CUDA_INDEX_SKIP_CHECK, 0, ms, &s, md, &d, 0, mi, &i, 32, 0,
                               32),
          NDX_EINVAL, "a claims scatter cannot skip its check pass");
  /* empty: nothing enqueued, no CUDA call; nothing pending either */
  ndx_layout e = contig2(0, 8);
  cr_assert_eq(ndx_cuda_gather(0, md, &e, ms, &s, 0, mi, &e, 32, 0, 32), NDX_OK, "%s",
               ndx_last_error());
  cr_assert_eq(ndx_cuda_check(0), NDX_OK, "%s", ndx_last_error());
}

/* Index plans: made with no device, their refusals naming the plan call;
 * a launch checks its pointers as ndx_cuda_gather does, naming the launch;
 * an empty plan launches nothing; destroy takes NULL. */
Test(cuda, index_plans_need_no_device) {
  ndx_layout d = contig2(4, 8), s = contig2(6, 8), i = contig2(4, 8), e = contig2(0, 8);
  void *md = (void *)0x100000, *ms = (void *)0x200000, *mi = (void *)0x300000;
  ndx_cuda_index_plan *p = (ndx_cuda_index_plan *)&p;
  REFUSED(ndx_cuda_index_plan_create_gather(NULL, &d, &s, 0, &i, 32, 0, 32), NDX_EINVAL,
          NDX_GPU_STR(ndx_cuda_index_plan_create_gather) ": out is NULL");
  REFUSED(ndx_cuda_index_plan_create_gather(&p, &d, &s, 0, &i, 16, 0, 32), NDX_EINVAL,
          NDX_GPU_STR(ndx_cuda_index_plan_create_gather) ": index_bits is 16");
  REFUSED(ndx_cuda_index_plan_create_scatter(&p, &s, &d, 0, &i, 32, 4u, 32), NDX_EINVAL,
          NDX_GPU_STR(ndx_cuda_index_plan_create_scatter) ": flags 0x4");
  cr_assert_eq(p, (ndx_cuda_index_plan *)&p, "*out written on failure");
  REFUSED(ndx_cuda_index_plan_launch(NULL, 0, md, ms, mi), NDX_EINVAL,
          NDX_GPU_STR(ndx_cuda_index_plan_launch) ": plan is NULL");
  cr_assert_eq(ndx_cuda_index_plan_create_gather(&p, &d, &s, 0, &i, 32, 0, 32), NDX_OK, "%s",
               ndx_last_error());
  REFUSED(ndx_cuda_index_plan_launch(p, 0, NULL, ms, mi), NDX_EINVAL,
          NDX_GPU_STR(ndx_cuda_index_plan_launch) ": dst is NULL");
  REFUSED(ndx_cuda_index_plan_launch(p, 0, (char *)md + 2, ms, mi), NDX_EINVAL,
          NDX_GPU_STR(ndx_cuda_index_plan_launch) ": dst 0x100002 is not aligned to 4 bytes");
  REFUSED(ndx_cuda_index_plan_launch(p, 0, md, (char *)md + 64, mi), NDX_EINVAL,
          "dst's bytes [0x100000, 0x100080) and src's [0x100040, 0x100100) overlap");
  ndx_cuda_index_plan_destroy(p);
  cr_assert_eq(ndx_cuda_index_plan_create_gather(&p, &e, &s, 0, &e, 32, 0, 32), NDX_OK, "%s",
               ndx_last_error());
  cr_assert_eq(ndx_cuda_index_plan_launch(p, 0, md, ms, mi), NDX_OK, "%s", ndx_last_error());
  ndx_cuda_index_plan_destroy(p);
  ndx_cuda_index_plan_destroy(NULL);
  cr_assert_eq(ndx_cuda_check(0), NDX_OK, "%s", ndx_last_error());
}

Test(cuda, index_without_a_device_is_a_device_error) {
  NEED_NO_DEVICE();
  ndx_layout d = contig2(4, 8), s = contig2(6, 8);
  ndx_status st = ndx_cuda_gather(0, (void *)0x100000, &d, (void *)0x200000, &s, 0,
                                  (void *)0x300000, &d, 32, 0, 32);
  cr_assert_eq(st, NDX_EDEVICE, "%s: %s", ndx_status_name(st), ndx_last_error());
  cr_assert(strstr(ndx_last_error(), NDX_GPU_STR(ndx_cuda_gather) ": ") &&
                strstr(ndx_last_error(), NDX_GPU_PREFIX "Error"),
            "message: %s", ndx_last_error());
  cr_assert_eq(ndx_cuda_check(0), NDX_OK, "a refused call left a report: %s", ndx_last_error());
}

/* ---- On a device ------------------------------------------------------------------ */

/* Index buffers of the gather and scatter cases. */
#define INDEX_ARENA (4u << 20)
static uint8_t *dev_index;

/* Case k of cuda_index_cases.h on the device, checked; true when it is no
 * case or matches, else false with why. */
static bool device_index_case(int k, cudaStream_t stream, char *why, size_t size) {
  cuda_index_case c;
  if (!cuda_index_case_make(k, &c)) return true;
  cuda_index_bufs b;
  cuda_index_prepare(&c, (uint64_t)k, &b);
  uint8_t *got = malloc(b.nd);
  cr_assert(got, "out of host memory");
  cr_assert(b.nd <= ARENA && b.ns <= ARENA && c.ix_bytes <= INDEX_ARENA, "case too large");
  cudaError_t e = cudaMemcpy(dev_dst, b.dst, b.nd, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(dev_src, b.src, b.ns, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(dev_index, c.ix, c.ix_bytes, cudaMemcpyHostToDevice);
  cr_assert(e == cudaSuccess, "cudaMemcpy to the device: %s", cudaGetErrorName(e));
  ndx_status st =
      ndx_cuda_index_flags(c.scatter, c.internal, stream, dev_dst, &c.dst, dev_src, &c.src, c.axis,
                           dev_index, &c.index, c.index_bits, c.flags, c.bits);
  bool ok = st == NDX_OK;
  char desc[1400];
  if (!ok)
    snprintf(why, size, "%s: %s: %s", ndx_status_name(st), ndx_last_error(),
             cuda_index_describe(desc, sizeof desc, &c));
  ndx_status check = ndx_cuda_check(stream);
  e = cudaMemcpy(got, dev_dst, b.nd, cudaMemcpyDeviceToHost);
  cr_assert(e == cudaSuccess, "cudaMemcpy from the device: %s", cudaGetErrorName(e));
  if (ok) ok = cuda_index_verdict(&c, &b, got, check, ndx_last_error(), why, size);
  free(got);
  cuda_index_release(&b);
  cuda_index_case_free(&c);
  return ok;
}

static void index_arena(void) {
  arena();
  if (!dev_index)
    cr_assert_eq(cudaMalloc((void **)&dev_index, INDEX_ARENA), cudaSuccess, "cudaMalloc");
}

Test(cuda, gathers_and_scatters_match_the_reference) {
  NEED_DEVICE();
  index_arena();
  char why[4096];
  cudaStream_t stream;
  cr_assert_eq(cudaStreamCreate(&stream), cudaSuccess, "cudaStreamCreate");
  for (int k = 0; k < CUDA_INDEX_CASES; k++)
    cr_assert(device_index_case(k, k % 2 ? stream : 0, why, sizeof why), "case %d: %s", k, why);
  cudaStreamDestroy(stream);
}

/* A faulty call does not stop what is queued after it; ndx_cuda_check
 * reports the oldest fault of its stream once, and no other stream's. */
Test(cuda, calls_after_a_fault_run_and_the_fault_is_reported_once) {
  NEED_DEVICE();
  int64_t n = 64;
  ndx_layout l = cuda_contig(1, &n);
  float src[64], dst[64], got[64];
  int32_t idx[2][64];
  for (int k = 0; k < 64; k++) {
    src[k] = (float)k;
    dst[k] = -1.0f;
    idx[0][k] = k;
    idx[1][k] = 63 - k;
  }
  idx[0][10] = 64;
  idx[0][20] = -3;
  float *ms, *md, *md2;
  int32_t *mi;
  cudaStream_t other;
  cr_assert_eq(cudaStreamCreate(&other), cudaSuccess, "cudaStreamCreate");
  cr_assert_eq(cudaMalloc((void **)&ms, sizeof src), cudaSuccess, "cudaMalloc");
  cr_assert_eq(cudaMalloc((void **)&md, sizeof dst), cudaSuccess, "cudaMalloc");
  cr_assert_eq(cudaMalloc((void **)&md2, sizeof dst), cudaSuccess, "cudaMalloc");
  cr_assert_eq(cudaMalloc((void **)&mi, sizeof idx), cudaSuccess, "cudaMalloc");
  cudaMemcpy(ms, src, sizeof src, cudaMemcpyHostToDevice);
  cudaMemcpy(md, dst, sizeof dst, cudaMemcpyHostToDevice);
  cudaMemcpy(md2, dst, sizeof dst, cudaMemcpyHostToDevice);
  cudaMemcpy(mi, idx, sizeof idx, cudaMemcpyHostToDevice);
  cr_assert_eq(ndx_cuda_gather(0, md, &l, ms, &l, 0, mi, &l, 32, 0, 32), NDX_OK, "%s",
               ndx_last_error());
  cr_assert_eq(ndx_cuda_gather(0, md2, &l, ms, &l, 0, mi + 64, &l, 32, 0, 32), NDX_OK, "%s",
               ndx_last_error());
  cr_assert_eq(ndx_cuda_gather(other, md2, &l, ms, &l, 0, mi + 64, &l, 32, 0, 32), NDX_OK, "%s",
               ndx_last_error());
  cr_assert_eq(ndx_cuda_check(other), NDX_OK, "the other stream: %s", ndx_last_error());
  cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess, "sync");
  cudaMemcpy(got, md2, sizeof got, cudaMemcpyDeviceToHost);
  for (int k = 0; k < 64; k++) cr_assert_eq(got[k], (float)(63 - k), "element %d", k);
  cudaMemcpy(got, md, sizeof got, cudaMemcpyDeviceToHost);
  for (int k = 0; k < 64; k++) cr_assert_eq(got[k], -1.0f, "the faulty call wrote element %d", k);
  cr_assert_eq(ndx_cuda_check(0), NDX_ERANGE, "%s", ndx_last_error());
  cr_assert(strstr(ndx_last_error(), NDX_GPU_STR(ndx_cuda_gather) ": index[") &&
                strstr(ndx_last_error(), "outside [0, 64) for axis 0 of src_l"),
            "%s", ndx_last_error());
  cr_assert_eq(ndx_cuda_check(0), NDX_OK, "reported twice: %s", ndx_last_error());
  cudaFree(ms);
  cudaFree(md);
  cudaFree(md2);
  cudaFree(mi);
  cudaStreamDestroy(other);
}

/* An index plan made once and launched many times, each launch with its
 * own index, writes what ndx_cuda_gather writes; a fault names the launch
 * and the plan launches on after it. */
Test(cuda, an_index_plan_launched_many_times_matches_the_one_call) {
  NEED_DEVICE();
  enum { N = 64, R = 8 };
  int64_t n = N;
  ndx_layout l = cuda_contig(1, &n);
  float src[N], got[N], one[N];
  int32_t idx[R][N];
  for (int k = 0; k < N; k++) src[k] = (float)k;
  for (int r = 0; r < R; r++)
    for (int k = 0; k < N; k++) idx[r][k] = (k * (2 * r + 1) + r) % N;
  float *ms, *md, *mo;
  int32_t *mi;
  cr_assert_eq(cudaMalloc((void **)&ms, sizeof src), cudaSuccess, "cudaMalloc");
  cr_assert_eq(cudaMalloc((void **)&md, R * sizeof got), cudaSuccess, "cudaMalloc");
  cr_assert_eq(cudaMalloc((void **)&mo, R * sizeof got), cudaSuccess, "cudaMalloc");
  cr_assert_eq(cudaMalloc((void **)&mi, sizeof idx), cudaSuccess, "cudaMalloc");
  cudaMemcpy(ms, src, sizeof src, cudaMemcpyHostToDevice);
  cudaMemcpy(mi, idx, sizeof idx, cudaMemcpyHostToDevice);
  ndx_cuda_index_plan *p;
  cr_assert_eq(ndx_cuda_index_plan_create_gather(&p, &l, &l, 0, &l, 32, 0, 32), NDX_OK, "%s",
               ndx_last_error());
  for (int r = 0; r < R; r++) {
    cr_assert_eq(ndx_cuda_index_plan_launch(p, 0, md + r * N, ms, mi + r * N), NDX_OK, "%s",
                 ndx_last_error());
    cr_assert_eq(ndx_cuda_gather(0, mo + r * N, &l, ms, &l, 0, mi + r * N, &l, 32, 0, 32), NDX_OK,
                 "%s", ndx_last_error());
  }
  cr_assert_eq(ndx_cuda_check(0), NDX_OK, "%s", ndx_last_error());
  for (int r = 0; r < R; r++) {
    cudaMemcpy(got, md + r * N, sizeof got, cudaMemcpyDeviceToHost);
    cudaMemcpy(one, mo + r * N, sizeof one, cudaMemcpyDeviceToHost);
    for (int k = 0; k < N; k++) {
      cr_assert_eq(got[k], one[k], "round %d, element %d", r, k);
      cr_assert_eq(got[k], (float)idx[r][k], "round %d, element %d", r, k);
    }
  }
  idx[0][5] = N + 1;
  cudaMemcpy(mi, idx, sizeof idx, cudaMemcpyHostToDevice);
  cr_assert_eq(ndx_cuda_index_plan_launch(p, 0, md, ms, mi), NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(ndx_cuda_check(0), NDX_ERANGE, "%s", ndx_last_error());
  cr_assert(strstr(ndx_last_error(), NDX_GPU_STR(ndx_cuda_index_plan_launch) ": index[5] is 65"),
            "%s", ndx_last_error());
  cr_assert_eq(ndx_cuda_index_plan_launch(p, 0, md, ms, mi + N), NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(ndx_cuda_check(0), NDX_OK, "%s", ndx_last_error());
  ndx_cuda_index_plan_destroy(p);
  cudaFree(ms);
  cudaFree(md);
  cudaFree(mo);
  cudaFree(mi);
}

/* Eight threads, a stream each, embedding lookups from one table. */
typedef struct index_job {
  float *dst;
  const float *table;
  int32_t *ids;
  cudaStream_t stream;
  ndx_status status, check;
} index_job;

enum { JOB_ROWS = 40, JOB_DIM = 32, JOB_VOCAB = 100 };

static void *run_index_job(void *arg) {
  index_job *j = arg;
  ndx_layout index_l = cuda_index_rows(JOB_ROWS, JOB_DIM);
  ndx_layout table = contig2(JOB_VOCAB, JOB_DIM), out = contig2(JOB_ROWS, JOB_DIM);
  for (int k = 0; k < 50 && j->status == NDX_OK; k++)
    j->status =
        ndx_cuda_gather(j->stream, j->dst, &out, j->table, &table, 0, j->ids, &index_l, 32, 0, 32);
  j->check = ndx_cuda_check(j->stream);
  return NULL;
}

Test(cuda, eight_threads_gather_on_their_streams) {
  NEED_DEVICE();
  enum { T = 8 };
  static float table[JOB_VOCAB * JOB_DIM], got[JOB_ROWS * JOB_DIM];
  for (int k = 0; k < JOB_VOCAB * JOB_DIM; k++) table[k] = (float)k;
  float *mt;
  cr_assert_eq(cudaMalloc((void **)&mt, sizeof table), cudaSuccess, "cudaMalloc");
  cudaMemcpy(mt, table, sizeof table, cudaMemcpyHostToDevice);
  index_job jobs[T];
  pthread_t th[T];
  for (int t = 0; t < T; t++) {
    int32_t ids[JOB_ROWS];
    for (int k = 0; k < JOB_ROWS; k++) ids[k] = (k * 7 + t * 13) % JOB_VOCAB;
    jobs[t] = (index_job){NULL, mt, NULL, NULL, NDX_OK, NDX_OK};
    cr_assert_eq(cudaMalloc((void **)&jobs[t].dst, sizeof got), cudaSuccess, "cudaMalloc");
    cr_assert_eq(cudaMalloc((void **)&jobs[t].ids, sizeof ids), cudaSuccess, "cudaMalloc");
    cudaMemcpy(jobs[t].ids, ids, sizeof ids, cudaMemcpyHostToDevice);
    cr_assert_eq(cudaStreamCreate(&jobs[t].stream), cudaSuccess, "cudaStreamCreate");
  }
  for (int t = 0; t < T; t++) pthread_create(&th[t], NULL, run_index_job, &jobs[t]);
  for (int t = 0; t < T; t++) pthread_join(th[t], NULL);
  for (int t = 0; t < T; t++) {
    cr_assert_eq(jobs[t].status, NDX_OK, "thread %d: %s", t, ndx_status_name(jobs[t].status));
    cr_assert_eq(jobs[t].check, NDX_OK, "thread %d: %s", t, ndx_status_name(jobs[t].check));
    cudaMemcpy(got, jobs[t].dst, sizeof got, cudaMemcpyDeviceToHost);
    for (int k = 0; k < JOB_ROWS; k++)
      for (int c = 0; c < JOB_DIM; c++)
        cr_assert_eq(got[k * JOB_DIM + c], table[((k * 7 + t * 13) % JOB_VOCAB) * JOB_DIM + c],
                     "thread %d row %d", t, k);
    cudaFree(jobs[t].dst);
    cudaFree(jobs[t].ids);
    cudaStreamDestroy(jobs[t].stream);
  }
  cudaFree(mt);
}

/* Pointers one element off a word run a word transpose's plan without
 * words: tiles of elements, or bytes below 8 bits. */
Test(cuda, named_cases_every_width) {
  device_cases(0, -1, false, true, 0);
}

Test(cuda, random_pairs_every_width) {
  device_cases(0, -1, false, false, 200);
}

Test(cuda, random_pairs_64_bit_index_math) {
  device_cases(NDX_CUDA_PLAN_WIDE, -1, false, true, 60);
}

Test(cuda, random_pairs_into_every_other_element) {
  device_cases(0, -1, true, false, 60);
}

Test(cuda, random_pairs_into_every_other_element_64_bit) {
  device_cases(NDX_CUDA_PLAN_WIDE, -1, true, false, 30);
}

/* The candidate kernels, which the selection table does not name yet
 * (kernels/ndx_cuda_select.h) */
Test(cuda, candidate_transpose_32x8_every_width) {
  device_cases(0, NDX_CUDA_TRANSPOSE_32X8, false, true, 100);
}

Test(cuda, candidate_warp_rows_every_width) {
  device_cases(0, NDX_CUDA_WARP_ROWS, false, true, 100);
}

Test(cuda, candidate_kernels_64_bit_index_math) {
  device_cases(NDX_CUDA_PLAN_WIDE, NDX_CUDA_TRANSPOSE_32X8, false, true, 30);
  device_cases(NDX_CUDA_PLAN_WIDE, NDX_CUDA_WARP_ROWS, false, true, 30);
}

Test(cuda, plans_are_reusable_on_streams) {
  NEED_DEVICE();
  arena();
  cuda_case c;
  cr_assert(cuda_named_case(1, 32, &c), "case");
  ndx_cuda_plan *p;
  cr_assert_eq(ndx_cuda_plan_create(&p, &c.dst, &c.src, 32), NDX_OK, "%s", ndx_last_error());
  size_t nd = cuda_case_bytes(&c.dst, 32), ns = cuda_case_bytes(&c.src, 32);
  uint8_t *hs = malloc(ns), *ref = malloc(nd), *got = malloc(nd);
  cr_assert(hs && ref && got, "out of host memory");
  cudaStream_t stream;
  cr_assert_eq(cudaStreamCreate(&stream), cudaSuccess, "cudaStreamCreate");
  for (int round = 0; round < 3; round++) {
    cuda_fill(hs, ns, (uint64_t)round);
    cuda_fill(ref, nd, 99);
    cr_assert_eq(cudaMemcpy(dev_src, hs, ns, cudaMemcpyHostToDevice), cudaSuccess, "to device");
    cr_assert_eq(cudaMemcpy(dev_dst, ref, nd, cudaMemcpyHostToDevice), cudaSuccess, "to device");
    oracle_copy(ref, &c.dst, hs, &c.src, 32, NULL);
    cr_assert_eq(ndx_cuda_plan_launch(p, stream, dev_dst, dev_src), NDX_OK, "%s", ndx_last_error());
    cr_assert_eq(cudaStreamSynchronize(stream), cudaSuccess, "sync");
    cr_assert_eq(cudaMemcpy(got, dev_dst, nd, cudaMemcpyDeviceToHost), cudaSuccess, "back");
    cr_assert(cuda_first_difference(got, ref, nd) < 0, "round %d differs", round);
  }
  cudaStreamDestroy(stream);
  ndx_cuda_plan_destroy(p);
  free(hs);
  free(ref);
  free(got);
}

/* A source whose positions pass 2^31 elements: the 64-bit kernels, chosen by
 * the pack, on real addresses (1-bit: 512 MiB; 8-bit: 2 GiB). */
static void wide_span(int bits) {
  NEED_DEVICE();
  int64_t n = 1000, stride = (INT64_C(1) << 31) / 999 + 7;
  ndx_layout dst = cuda_contig(1, &n), src;
  cr_assert_eq(ndx_make(&src, 1, &n, &stride, 5), NDX_OK, "%s", ndx_last_error());
  size_t ns = (size_t)(((5 + (n - 1) * stride + 1) * bits + 7) / 8), nd = 1024;
  uint8_t *ds, *dd;
  if (cudaMalloc((void **)&ds, ns) != cudaSuccess) cr_skip_test("no room for %zu bytes", ns);
  cr_assert_eq(cudaMalloc((void **)&dd, nd), cudaSuccess, "cudaMalloc");
  cr_assert_eq(cudaMemset(ds, 0x5a, ns), cudaSuccess, "memset");
  cr_assert_eq(cudaMemset(dd, 0xc3, nd), cudaSuccess, "memset");
  /* element i of the source: the byte holding it, set to i's low bits */
  uint8_t want[1024];
  memset(want, 0xc3, sizeof want);
  for (int64_t i = 0; i < n; i++) {
    int64_t pos = 5 + i * stride, byte = pos * bits / 8;
    uint8_t v = (uint8_t)(i * 37 + 11);
    cr_assert_eq(cudaMemcpy(ds + byte, &v, 1, cudaMemcpyHostToDevice), cudaSuccess, "poke");
    if (bits >= 8)
      want[i] = v;
    else /* the element of v at its place in the byte, to element i */
      oracle_copy_element(want, i, &v, pos % (8 / bits), bits, NULL);
  }
  ndx_cuda_plan *p;
  cr_assert_eq(ndx_cuda_plan_create(&p, &dst, &src, bits), NDX_OK, "%s", ndx_last_error());
  cr_assert(((const ndx_pack_head *)p->step[0].args.pack)->wide == 1, "a 32-bit pack");
  cr_assert_eq(ndx_cuda_plan_launch(p, 0, dd, ds), NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess, "%s", cudaGetErrorName(cudaGetLastError()));
  uint8_t got[1024];
  cr_assert_eq(cudaMemcpy(got, dd, nd, cudaMemcpyDeviceToHost), cudaSuccess, "back");
  int64_t at = cuda_first_difference(got, want, nd);
  cr_assert(at < 0, "byte %lld is 0x%02x, want 0x%02x", (long long)at, at < 0 ? 0 : got[at],
            at < 0 ? 0 : want[at]);
  ndx_cuda_plan_destroy(p);
  cudaFree(ds);
  cudaFree(dd);
}

Test(cuda, positions_past_2_31_at_1_bit) {
  wide_span(1);
}

Test(cuda, positions_past_2_31_at_8_bits) {
  wide_span(8);
}

/* ---- Conversions -------------------------------------------------------------- */

/* Conversions refuse before any CUDA call: the types' rules and the
 * planner's (no device needed; the pointers are never touched). */
Test(cuda, convert_refusals_need_no_device) {
  ndx_layout a = contig2(4, 8), b = contig2(8, 4), bc;
  ndx_layout row = cuda_contig(1, (int64_t[]){8});
  cr_assert_eq(ndx_broadcast(&bc, &row, 2, (int64_t[]){4, 8}), NDX_OK, "broadcast");
  void *d = (void *)0x100000, *s = (void *)0x200000;
  REFUSED(ndx_cuda_convert(0, d, &a, (ndx_dtype)18, s, &a, NDX_F32), NDX_EINVAL,
          NDX_GPU_STR(ndx_cuda_convert) ": dst_t is 18");
  REFUSED(ndx_cuda_convert(0, d, &a, NDX_BF16, s, &a, (ndx_dtype)-1), NDX_EINVAL, "src_t is -1");
  REFUSED(ndx_cuda_convert(0, d, &a, NDX_BF16, s, &b, NDX_F32), NDX_EINVAL,
          NDX_GPU_STR(ndx_cuda_convert));
  REFUSED(ndx_cuda_convert(0, d, &bc, NDX_BF16, s, &a, NDX_F32), NDX_EINVAL, "dst");
  REFUSED(ndx_cuda_convert(0, NULL, &a, NDX_BF16, s, &a, NDX_F32), NDX_EINVAL, "dst is NULL");
  REFUSED(ndx_cuda_convert(0, (void *)0x100002, &a, NDX_F32, s, &a, NDX_BF16), NDX_EINVAL,
          "dst 0x100002 is not aligned to 4 bytes for f32 elements");
  REFUSED(ndx_cuda_convert(0, d, &a, NDX_F16, (void *)0x200004, &a, NDX_F64), NDX_EINVAL,
          "src 0x200004 is not aligned to 8 bytes for f64 elements");
}

Test(cuda, convert_without_a_device_is_a_device_error) {
  NEED_NO_DEVICE();
  ndx_layout a = contig2(4, 8);
  ndx_status s = ndx_cuda_convert(0, (void *)0x100000, &a, NDX_BF16, (void *)0x200000, &a, NDX_F32);
  cr_assert_eq(s, NDX_EDEVICE, "%s: %s", ndx_status_name(s), ndx_last_error());
  cr_assert(strstr(ndx_last_error(), "ndx_convert_elements") != NULL, "message: %s",
            ndx_last_error());
}

/* Every ordered pair of types over a random layout pair, whole destination
 * buffers against the host reference (convert_ref.h). */
Test(cuda, conversions_match_the_reference) {
  NEED_DEVICE();
  arena();
  oracle_rng r = {77};
  for (int st = 0; st < 18; st++)
    for (int dt = 0; dt < 18; dt++) {
      cuda_case c;
      cuda_random_case(&r, st * 18 + dt, 32, &c);
      int db = ndx_dtype_bits((ndx_dtype)dt), sb = ndx_dtype_bits((ndx_dtype)st);
      size_t nd = cuda_case_bytes(&c.dst, db), ns = cuda_case_bytes(&c.src, sb);
      cr_assert(nd <= ARENA && ns <= ARENA, "the case fits the arena");
      uint8_t *hd = malloc(nd), *hs = malloc(ns), *ref = malloc(nd);
      cr_assert(hd && hs && ref, "out of host memory");
      cuda_fill(hd, nd, (uint64_t)(st * 18 + dt));
      cuda_fill(hs, ns, (uint64_t)(st * 18 + dt) + 1000);
      memcpy(ref, hd, nd);
      int64_t n = oracle_numel(&c.dst);
      for (int64_t k = 0; k < n; k++)
        ref_convert_elem(ref, oracle_position_of(&c.dst, k), (ndx_dtype)dt, hs,
                         oracle_position_of(&c.src, k), (ndx_dtype)st);
      cr_assert_eq(cudaMemcpy(dev_dst, hd, nd, cudaMemcpyHostToDevice), cudaSuccess,
                   "to the device");
      cr_assert_eq(cudaMemcpy(dev_src, hs, ns, cudaMemcpyHostToDevice), cudaSuccess,
                   "to the device");
      ndx_status s =
          ndx_cuda_convert(0, dev_dst, &c.dst, (ndx_dtype)dt, dev_src, &c.src, (ndx_dtype)st);
      cr_assert_eq(s, NDX_OK, "%s", ndx_last_error());
      cr_assert_eq(cudaMemcpy(hd, dev_dst, nd, cudaMemcpyDeviceToHost), cudaSuccess,
                   "from the device");
      int64_t at = cuda_first_difference(hd, ref, nd);
      cr_assert(at < 0, "%s to %s: byte %lld is 0x%02x, want 0x%02x", ndx_dtype_name((ndx_dtype)st),
                ndx_dtype_name((ndx_dtype)dt), (long long)at, at >= 0 ? hd[at] : 0,
                at >= 0 ? ref[at] : 0);
      free(hd), free(hs), free(ref);
    }
}
