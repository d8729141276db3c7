/* test_cl_faults.c: ndx_cl against bad arguments and failing devices:
 * buffers too small for a layout, objects of another context, images,
 * buffers released early, overlapping operands, OpenCL calls that fail (one
 * at a time, each in turn, by interposition), NULLs and widths, object and
 * memory balance over 1000 create/destroy cycles, and the bounds_check
 * build's device-side check.
 *
 * The test binary defines the OpenCL entry points that ndx calls to create,
 * retain and release objects (and a few that can fail): libndx is linked in
 * statically, so its calls come here; each wrapper counts, may fail on
 * request, and forwards to the ICD loader (dlsym RTLD_NEXT). PoCL's own
 * internal calls do not pass through them.
 *
 * Criterion forks a process per test: OpenCL objects are made inside the
 * test (the .init fixture), never in the parent. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "device/cl_internal.h"
#include "ndx/ndx_cl.h"
#include "cl_env.h"
#include "suite.h"

/* ---- Interposed OpenCL calls ------------------------------------------------- */

/* Live objects by kind: creates and retains minus releases. */
enum { O_MEM, O_PROGRAM, O_KERNEL, O_EVENT, O_CONTEXT, O_DEVICE, O_KINDS };
static atomic_long live[O_KINDS];
static const char *const kind_names[O_KINDS] = {"mem",   "program", "kernel",
                                                "event", "context", "device"};

/* clCreateBuffer calls that made a buffer, ever. */
static atomic_long buffers_created;

/* Fallible calls counted since arm(n); the n-th fails (0: none fails). */
static atomic_long calls, fail_at;

static void arm(long n) {
  atomic_store(&calls, 0);
  atomic_store(&fail_at, n);
}

static bool fail_now(void) {
  long n = atomic_load(&fail_at);
  return n > 0 && atomic_fetch_add(&calls, 1) + 1 == n;
}

static void *real(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  if (!f) abort(); /* the ICD loader lacks an OpenCL 1.2 entry point */
  return f;
}
#define REAL(name) ((__typeof__(&name))real(#name))

cl_mem clCreateBuffer(cl_context c, cl_mem_flags f, size_t n, void *h, cl_int *e) {
  if (fail_now()) {
    if (e) *e = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return NULL;
  }
  cl_mem m = REAL(clCreateBuffer)(c, f, n, h, e);
  if (m) live[O_MEM]++;
  if (m) buffers_created++;
  return m;
}

cl_mem clCreateSubBuffer(cl_mem b, cl_mem_flags f, cl_buffer_create_type t, const void *i,
                         cl_int *e) {
  cl_mem m = REAL(clCreateSubBuffer)(b, f, t, i, e);
  if (m) live[O_MEM]++;
  return m;
}

cl_int clRetainMemObject(cl_mem m) {
  cl_int e = REAL(clRetainMemObject)(m);
  if (e == CL_SUCCESS) live[O_MEM]++;
  return e;
}

cl_int clReleaseMemObject(cl_mem m) {
  cl_int e = REAL(clReleaseMemObject)(m);
  if (e == CL_SUCCESS) live[O_MEM]--;
  return e;
}

cl_program clCreateProgramWithSource(cl_context c, cl_uint n, const char **s, const size_t *l,
                                     cl_int *e) {
  if (fail_now()) {
    if (e) *e = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  cl_program p = REAL(clCreateProgramWithSource)(c, n, s, l, e);
  if (p) live[O_PROGRAM]++;
  return p;
}

cl_program clCreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id *d,
                                     const size_t *l, const unsigned char **b, cl_int *st,
                                     cl_int *e) {
  if (fail_now()) {
    if (e) *e = CL_OUT_OF_RESOURCES;
    return NULL;
  }
  cl_program p = REAL(clCreateProgramWithBinary)(c, n, d, l, b, st, e);
  if (p) live[O_PROGRAM]++;
  return p;
}

cl_int clBuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *o,
                      void(CL_CALLBACK *f)(cl_program, void *), void *u) {
  if (fail_now()) return CL_BUILD_PROGRAM_FAILURE;
  return REAL(clBuildProgram)(p, n, d, o, f, u);
}

cl_int clRetainProgram(cl_program p) {
  cl_int e = REAL(clRetainProgram)(p);
  if (e == CL_SUCCESS) live[O_PROGRAM]++;
  return e;
}

cl_int clReleaseProgram(cl_program p) {
  cl_int e = REAL(clReleaseProgram)(p);
  if (e == CL_SUCCESS) live[O_PROGRAM]--;
  return e;
}

cl_kernel clCreateKernel(cl_program p, const char *name, cl_int *e) {
  if (fail_now()) {
    if (e) *e = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  cl_kernel k = REAL(clCreateKernel)(p, name, e);
  if (k) live[O_KERNEL]++;
  return k;
}

cl_int clReleaseKernel(cl_kernel k) {
  cl_int e = REAL(clReleaseKernel)(k);
  if (e == CL_SUCCESS) live[O_KERNEL]--;
  return e;
}

cl_int clSetKernelArg(cl_kernel k, cl_uint i, size_t n, const void *v) {
  if (fail_now()) return CL_OUT_OF_RESOURCES;
  return REAL(clSetKernelArg)(k, i, n, v);
}

static cl_int counted_event(cl_int e, cl_event *ev) {
  if (e == CL_SUCCESS && ev) live[O_EVENT]++;
  return e;
}

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
                              const size_t *g, const size_t *l, cl_uint nw, const cl_event *w,
                              cl_event *ev) {
  if (fail_now()) return CL_OUT_OF_RESOURCES;
  return counted_event(REAL(clEnqueueNDRangeKernel)(q, k, dim, off, g, l, nw, w, ev), ev);
}

cl_int clEnqueueCopyBuffer(cl_command_queue q, cl_mem s, cl_mem d, size_t so, size_t dof, size_t n,
                           cl_uint nw, const cl_event *w, cl_event *ev) {
  if (fail_now()) return CL_OUT_OF_RESOURCES;
  return counted_event(REAL(clEnqueueCopyBuffer)(q, s, d, so, dof, n, nw, w, ev), ev);
}

cl_int clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t n, void *p,
                           cl_uint nw, const cl_event *w, cl_event *ev) {
  if (fail_now()) return CL_OUT_OF_RESOURCES;
  return counted_event(REAL(clEnqueueReadBuffer)(q, m, b, o, n, p, nw, w, ev), ev);
}

cl_int clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint nw, const cl_event *w,
                                   cl_event *ev) {
  if (fail_now()) return CL_OUT_OF_RESOURCES;
  return counted_event(REAL(clEnqueueMarkerWithWaitList)(q, nw, w, ev), ev);
}

cl_int clEnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *p, size_t ps, size_t o,
                           size_t n, cl_uint nw, const cl_event *w, cl_event *ev) {
  if (fail_now()) return CL_OUT_OF_RESOURCES;
  return counted_event(REAL(clEnqueueFillBuffer)(q, m, p, ps, o, n, nw, w, ev), ev);
}

cl_int clRetainEvent(cl_event ev) {
  cl_int e = REAL(clRetainEvent)(ev);
  if (e == CL_SUCCESS) live[O_EVENT]++;
  return e;
}

cl_event clCreateUserEvent(cl_context c, cl_int *e) {
  cl_event ev = REAL(clCreateUserEvent)(c, e);
  if (ev) live[O_EVENT]++;
  return ev;
}

cl_int clReleaseEvent(cl_event ev) {
  cl_int e = REAL(clReleaseEvent)(ev);
  if (e == CL_SUCCESS) live[O_EVENT]--;
  return e;
}

cl_int clRetainContext(cl_context c) {
  if (fail_now()) return CL_OUT_OF_HOST_MEMORY;
  cl_int e = REAL(clRetainContext)(c);
  if (e == CL_SUCCESS) live[O_CONTEXT]++;
  return e;
}

cl_int clReleaseContext(cl_context c) {
  cl_int e = REAL(clReleaseContext)(c);
  if (e == CL_SUCCESS) live[O_CONTEXT]--;
  return e;
}

cl_int clRetainDevice(cl_device_id d) {
  if (fail_now()) return CL_OUT_OF_HOST_MEMORY;
  cl_int e = REAL(clRetainDevice)(d);
  if (e == CL_SUCCESS) live[O_DEVICE]++;
  return e;
}

cl_int clReleaseDevice(cl_device_id d) {
  cl_int e = REAL(clReleaseDevice)(d);
  if (e == CL_SUCCESS) live[O_DEVICE]--;
  return e;
}

typedef struct census {
  long n[O_KINDS];
} census;

static census take_census(void) {
  census c;
  for (int k = 0; k < O_KINDS; k++) c.n[k] = atomic_load(&live[k]);
  return c;
}

static void expect_census(census before, const char *what) {
  for (int k = 0; k < O_KINDS; k++)
    cr_assert_eq(atomic_load(&live[k]), before.n[k], "%s: %ld live %s objects, %ld before", what,
                 atomic_load(&live[k]), kind_names[k], before.n[k]);
}

/* Resident pages of this process. */
static long resident_pages(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, rss = -1;
  if (f) {
    if (fscanf(f, "%ld %ld", &size, &rss) != 2) rss = -1;
    fclose(f);
  }
  return rss;
}

/* ---- Environment --------------------------------------------------------------- */

static cl_env env;

static void setup(void) {
  cl_env_open(&env);
}

static void teardown(void) {
  arm(0);
  cl_env_close(&env);
}

TestSuite(cl_faults, .init = setup, .fini = teardown);

/* ---- Buffers ------------------------------------------------------------------- */

static uint8_t pattern(size_t i) {
  return (uint8_t)(0x5a ^ (i * 29));
}

/* A buffer of `size` bytes filled with pattern(). */
static cl_mem filled(size_t size) {
  uint8_t *fill = malloc(size);
  for (size_t i = 0; i < size; i++) fill[i] = pattern(i);
  cl_int e;
  cl_mem m = clCreateBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size, fill, &e);
  cr_assert_eq(e, CL_SUCCESS, "clCreateBuffer(%zu): %d", size, e);
  free(fill);
  return m;
}

static size_t mem_size(cl_mem m) {
  size_t n = 0;
  cr_assert_eq(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof n, &n, NULL), CL_SUCCESS);
  return n;
}

/* Asserts that bytes [from, size) of `m` still hold pattern(). */
static void expect_untouched(cl_mem m, size_t from, size_t size, const char *what) {
  cr_assert_eq(clFinish(env.queue), CL_SUCCESS);
  uint8_t *got = malloc(size);
  cr_assert_eq(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, size, got, 0, NULL, NULL), CL_SUCCESS);
  for (size_t i = from; i < size; i++)
    cr_assert_eq(got[i], pattern(i), "%s: byte %zu is 0x%02x, was 0x%02x", what, i, got[i],
                 pattern(i));
  free(got);
}

static void expect_message(const char *what, const char *a, const char *b, const char *c) {
  const char *m = ndx_last_error();
  cr_assert(strstr(m, a) && (!b || strstr(m, b)) && (!c || strstr(m, c)),
            "%s: message \"%s\" lacks \"%s\"%s%s%s%s", what, m, a, b ? ", \"" : "", b ? b : "",
            c ? "\", \"" : "", c ? c : "");
}

/* ---- Buffers too small ----------------------------------------------------------- */

typedef struct span_case {
  ndx_layout l;
  int bits;
  size_t need; /* bytes: the last byte the layout touches, plus one */
  const char *what;
} span_case;

Test(cl_faults, buffers_too_small_for_the_span_are_refused_with_the_sizes) {
  cl_env_need(&env);
  span_case cases[] = {
      {contiguous(2, (int64_t[]){4, 8}), 8, 32, "[4,8] bytes"},
      {make(2, (int64_t[]){4, 8}, (int64_t[]){9, 1}, 3), 8, 3 + 27 + 7 + 1, "padded rows"},
      {contiguous(1, (int64_t[]){7}), 128, 112, "128-bit"},
      {make(1, (int64_t[]){6}, (int64_t[]){-1}, 5), 16, 12, "flipped: first element last"},
      /* sub-byte: 13 elements of 1 bit need 2 bytes, of 4 bits 7 */
      {contiguous(1, (int64_t[]){13}), 1, 2, "1-bit"},
      {contiguous(1, (int64_t[]){13}), 4, 7, "4-bit"},
      {make(1, (int64_t[]){9}, (int64_t[]){-1}, 8), 2, 3, "2-bit flipped, ends at byte 0"},
      {make(2, (int64_t[]){3, 5}, (int64_t[]){-5, -1}, 14), 4, 8, "4-bit, both axes flipped"},
      {make(2, (int64_t[]){2, 3}, (int64_t[]){3, 1}, 17), 1, 3, "1-bit window into byte 2"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    const span_case *k = &cases[c];
    ndx_layout dense = contiguous(k->l.rank, k->l.shape);
    size_t big = k->need + 64;
    for (int side = 0; side < 2; side++) { /* 0: dst too small, 1: src too small */
      const char *name = side ? "src" : "dst";
      const ndx_layout *dl = side ? &dense : &k->l, *sl = side ? &k->l : &dense;
      /* the buffer of exactly the bytes needed works */
      cl_mem exact = filled(k->need), other = filled(big);
      cr_assert_eq(ndx_cl_copy(env.cl, env.queue, side ? other : exact, dl, side ? exact : other,
                               sl, k->bits, 0, NULL, NULL),
                   NDX_OK, "%s, %s of %zu bytes: %s", k->what, name, k->need, ndx_last_error());
      clReleaseMemObject(exact);
      clReleaseMemObject(other);
      /* one byte less: refused by ndx_cl_copy and by the plan */
      cl_mem shorter = filled(k->need - 1);
      other = filled(big);
      cr_assert_eq(mem_size(shorter), k->need - 1);
      cl_mem d = side ? other : shorter, s = side ? shorter : other;
      char want_need[64], want_has[64];
      snprintf(want_need, sizeof want_need, "%s needs %zu bytes", name, k->need);
      snprintf(want_has, sizeof want_has, "%s has %zu", name, k->need - 1);
      cl_event done = (cl_event)&done; /* a sentinel: a refusal leaves it */
      ndx_status st = ndx_cl_copy(env.cl, env.queue, d, dl, s, sl, k->bits, 0, NULL, &done);
      cr_assert_eq(st, NDX_ERANGE, "%s, %s of %zu bytes: %s", k->what, name, k->need - 1,
                   ndx_status_name(st));
      /* the refusal names the call the user made */
      expect_message(k->what, "ndx_cl_copy: ", want_need, want_has);
      cr_assert(!strstr(ndx_last_error(), "ndx_cl_plan"), "%s", ndx_last_error());
      cr_assert_eq(done, (cl_event)&done, "%s: *done was written", k->what);
      ndx_cl_plan *plan = NULL;
      cr_assert_eq(ndx_cl_plan_create(&plan, env.cl, dl, sl, k->bits), NDX_OK);
      st = ndx_cl_plan_enqueue(plan, env.queue, d, s, 0, NULL, NULL);
      cr_assert_eq(st, NDX_ERANGE, "%s (plan), %s: %s", k->what, name, ndx_status_name(st));
      expect_message(k->what, want_need, want_has, NULL);
      ndx_cl_plan_destroy(plan);
      expect_untouched(d, 0, side ? big : k->need - 1, k->what);
      clReleaseMemObject(shorter);
      clReleaseMemObject(other);
    }
  }
}

/* ---- Foreign objects, images, released buffers ------------------------------------ */

Test(cl_faults, objects_of_another_context_are_refused) {
  cl_env_need(&env);
  ndx_layout l = contiguous(2, (int64_t[]){8, 8}), t;
  cr_assert_eq(ndx_transpose(&t, &l, 0, 1), NDX_OK);
  cl_int e;
  cl_context c2 = clCreateContext(NULL, 1, &env.device, NULL, NULL, &e);
  cr_assert_eq(e, CL_SUCCESS);
  cl_mem foreign = clCreateBuffer(c2, CL_MEM_READ_WRITE, 64, NULL, &e);
  cl_command_queue q2 = clCreateCommandQueue(c2, env.device, 0, &e);
  cl_mem md = filled(64), ms = filled(64);
  for (int path = 0; path < 2; path++) { /* buffer path, transpose kernel */
    const ndx_layout *sl = path ? &t : &l;
    cr_assert_eq(ndx_cl_copy(env.cl, env.queue, foreign, &l, ms, sl, 8, 0, NULL, NULL), NDX_EINVAL);
    expect_message("foreign dst", "dst belongs to another context", NULL, NULL);
    cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &l, foreign, sl, 8, 0, NULL, NULL), NDX_EINVAL);
    expect_message("foreign src", "src belongs to another context", NULL, NULL);
    cr_assert_eq(ndx_cl_copy(env.cl, q2, md, &l, ms, sl, 8, 0, NULL, NULL), NDX_EINVAL);
    expect_message("foreign queue", "queue belongs to another context", NULL, NULL);
  }
  expect_untouched(md, 0, 64, "after foreign objects");
  clReleaseCommandQueue(q2);
  clReleaseMemObject(foreign);
  clReleaseContext(c2);
  clReleaseMemObject(md);
  clReleaseMemObject(ms);
}

Test(cl_faults, an_image_is_not_a_buffer) {
  cl_env_need(&env);
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
  if (!images) cr_skip_test("the device has no image support");
  cl_image_format fmt = {CL_R, CL_UNSIGNED_INT8};
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8, .image_height = 8};
  cl_int e;
  cl_mem img = clCreateImage(env.context, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &e);
  if (e != CL_SUCCESS) cr_skip_test("clCreateImage: %d", e);
  ndx_layout l = contiguous(2, (int64_t[]){8, 8});
  cl_mem md = filled(64);
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &l, img, &l, 8, 0, NULL, NULL), NDX_EINVAL);
  expect_message("image src", "src is a memory object of type", "not a buffer", NULL);
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, img, &l, md, &l, 8, 0, NULL, NULL), NDX_EINVAL);
  expect_message("image dst", "dst is a memory object", NULL, NULL);
  clReleaseMemObject(img);
  clReleaseMemObject(md);
}

/* ndx promises that buffers and the plan may go as soon as the enqueueing
 * call returns: the copy, held back by a user event, still runs on them.
 * dst is a sub-buffer, so that its bytes are read through its parent. */
Test(cl_faults, buffers_and_plans_released_right_after_the_enqueue) {
  cl_env_need(&env);
  enum { N = 24 };
  ndx_layout c = contiguous(2, (int64_t[]){N, N}), t;
  cr_assert_eq(ndx_transpose(&t, &c, 0, 1), NDX_OK);
  uint8_t src[N * N], got[N * N];
  for (int i = 0; i < N * N; i++) src[i] = (uint8_t)(i * 7 + 1);
  cl_int e;
  cl_mem parent = filled(2048);
  cl_buffer_region region = {512, N * N};
  for (int how = 0; how < 2; how++) { /* ndx_cl_copy; a plan destroyed at once */
    cl_mem ms =
        clCreateBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof src, src, &e);
    cl_mem md =
        clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &e);
    cr_assert_eq(e, CL_SUCCESS, "clCreateSubBuffer: %d", e);
    cl_event gate = clCreateUserEvent(env.context, &e), done = NULL;
    if (how == 0) {
      cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &c, ms, &t, 8, 1, &gate, &done), NDX_OK, "%s",
                   ndx_last_error());
    } else {
      ndx_cl_plan *plan;
      cr_assert_eq(ndx_cl_plan_create(&plan, env.cl, &c, &t, 8), NDX_OK);
      cr_assert_eq(ndx_cl_plan_enqueue(plan, env.queue, md, ms, 1, &gate, &done), NDX_OK, "%s",
                   ndx_last_error());
      ndx_cl_plan_destroy(plan);
    }
    clReleaseMemObject(ms);
    clReleaseMemObject(md);
    clSetUserEventStatus(gate, CL_COMPLETE);
    cr_assert_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    clReleaseEvent(gate);
    cr_assert_eq(ndx_cl_check(env.cl), NDX_OK, "%s", ndx_last_error());
    cr_assert_eq(
        clEnqueueReadBuffer(env.queue, parent, CL_TRUE, 512, sizeof got, got, 0, NULL, NULL),
        CL_SUCCESS);
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        cr_assert_eq(got[i * N + j], src[j * N + i], "how %d: element (%d,%d)", how, i, j);
  }
  expect_untouched(parent, 512 + N * N, 2048, "past the sub-buffer");
  clReleaseMemObject(parent);
}

/* ---- One buffer on both sides ------------------------------------------------------- */

Test(cl_faults, overlapping_bytes_of_one_buffer_are_refused_disjoint_ones_copy) {
  cl_env_need(&env);
  enum { SIZE = 512 };
  cl_mem m = filled(SIZE);
  uint8_t want[SIZE], got[SIZE];
  for (int i = 0; i < SIZE; i++) want[i] = pattern((size_t)i);
  /* overlapping: refused, nothing changes */
  struct {
    ndx_layout d, s;
    int bits;
    const char *what;
  } bad[] = {
      {make(1, (int64_t[]){64}, (int64_t[]){1}, 32), contiguous(1, (int64_t[]){64}), 8, "shifted"},
      {make(2, (int64_t[]){8, 8}, (int64_t[]){1, 8}, 0), contiguous(2, (int64_t[]){8, 8}), 8,
       "in-place transpose"},
      {make(1, (int64_t[]){4}, (int64_t[]){2}, 1), make(1, (int64_t[]){4}, (int64_t[]){2}, 0), 32,
       "interleaved elements"},
      {make(1, (int64_t[]){1}, (int64_t[]){1}, 1), contiguous(1, (int64_t[]){1}), 4,
       "two nibbles of one byte"},
      {make(1, (int64_t[]){10}, (int64_t[]){-1}, 20), contiguous(1, (int64_t[]){12}), 1,
       "1-bit, flipped, sharing byte 1"},
  };
  for (size_t c = 0; c < sizeof bad / sizeof *bad; c++) {
    ndx_layout s = bad[c].s;
    if (s.shape[0] != bad[c].d.shape[0]) s = contiguous(1, bad[c].d.shape);
    cr_assert_eq(ndx_cl_copy(env.cl, env.queue, m, &bad[c].d, m, &s, bad[c].bits, 0, NULL, NULL),
                 NDX_EINVAL, "%s", bad[c].what);
    expect_message(bad[c].what, "dst and src are one buffer", "share bytes", NULL);
  }
  /* sub-buffers of one parent that overlap */
  cl_int e;
  cl_buffer_region r0 = {0, 256}, r1 = {128, 256};
  cl_mem a = clCreateSubBuffer(m, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r0, &e);
  cl_mem b = clCreateSubBuffer(m, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r1, &e);
  cr_assert_eq(e, CL_SUCCESS);
  ndx_layout whole = contiguous(1, (int64_t[]){256}), low = contiguous(1, (int64_t[]){100});
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, a, &whole, b, &whole, 8, 0, NULL, NULL), NDX_EINVAL);
  expect_message("sub-buffers", "sub-buffers of one buffer", "share bytes [128, 256)", NULL);
  expect_untouched(m, 0, SIZE, "after the refusals");
  /* disjoint: a[0..100) <- b[0..100) (parent 128..228): copies */
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, a, &low, b, &low, 8, 0, NULL, NULL), NDX_OK, "%s",
               ndx_last_error());
  for (int i = 0; i < 100; i++) want[i] = want[128 + i];
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  /* disjoint in one cl_mem, every kernel: a transpose, a flip, 4-bit, buffer */
  ndx_layout sq = make(2, (int64_t[]){8, 8}, (int64_t[]){8, 1}, 300), sqt;
  cr_assert_eq(ndx_transpose(&sqt, &sq, 0, 1), NDX_OK);
  ndx_layout dsq = make(2, (int64_t[]){8, 8}, (int64_t[]){8, 1}, 200);
  ndx_layout flip = make(1, (int64_t[]){40}, (int64_t[]){-1}, 439);
  ndx_layout after = make(1, (int64_t[]){40}, (int64_t[]){1}, 440);
  ndx_layout nib_s = make(1, (int64_t[]){30}, (int64_t[]){1}, 728);   /* 4-bit: bytes 364..378 */
  ndx_layout nib_d = make(1, (int64_t[]){30}, (int64_t[]){-2}, 1018); /* bytes 480..509 */
  ndx_layout buf_s = make(1, (int64_t[]){12}, (int64_t[]){1}, 100);
  ndx_layout buf_d = make(1, (int64_t[]){12}, (int64_t[]){1}, 112);
  struct {
    const ndx_layout *d, *s;
    int bits;
  } good[] = {{&dsq, &sqt, 8}, {&after, &flip, 8}, {&nib_d, &nib_s, 4}, {&buf_d, &buf_s, 8}};
  for (size_t c = 0; c < sizeof good / sizeof *good; c++) {
    cr_assert_eq(
        ndx_cl_copy(env.cl, env.queue, m, good[c].d, m, good[c].s, good[c].bits, 0, NULL, NULL),
        NDX_OK, "disjoint case %zu: %s", c, ndx_last_error());
    oracle_copy(want, good[c].d, want, good[c].s, good[c].bits, NULL);
  }
  cr_assert_eq(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, SIZE, got, 0, NULL, NULL), CL_SUCCESS);
  for (int i = 0; i < SIZE; i++)
    cr_assert_eq(got[i], want[i], "byte %d is 0x%02x, want 0x%02x", i, got[i], want[i]);
  clReleaseMemObject(m);
}

/* ---- NULLs and widths ---------------------------------------------------------------- */

Test(cl_faults, nulls_and_bad_widths_name_the_argument) {
  cl_env_need(&env);
  ndx_layout l = contiguous(1, (int64_t[]){16});
  cl_mem md = filled(256), ms = filled(256);
  struct {
    ndx_status got;
    const char *name;
  } nulls[] = {
      {ndx_cl_copy(NULL, env.queue, md, &l, ms, &l, 8, 0, NULL, NULL), "cl is NULL"},
      {ndx_cl_copy(env.cl, NULL, md, &l, ms, &l, 8, 0, NULL, NULL), "queue is NULL"},
      {ndx_cl_copy(env.cl, env.queue, NULL, &l, ms, &l, 8, 0, NULL, NULL), "dst is NULL"},
      {ndx_cl_copy(env.cl, env.queue, md, NULL, ms, &l, 8, 0, NULL, NULL), "dst_l is NULL"},
      {ndx_cl_copy(env.cl, env.queue, md, &l, NULL, &l, 8, 0, NULL, NULL), "src is NULL"},
      {ndx_cl_copy(env.cl, env.queue, md, &l, ms, NULL, 8, 0, NULL, NULL), "src_l is NULL"},
      {ndx_cl_plan_enqueue(NULL, env.queue, md, ms, 0, NULL, NULL), "plan is NULL"},
      {ndx_cl_check(NULL), "cl is NULL"},
  };
  for (size_t k = 0; k < sizeof nulls / sizeof *nulls; k++) {
    cr_assert_eq(nulls[k].got, NDX_EINVAL, "%s", nulls[k].name);
  }
  /* each message, one at a time (the last error is overwritten) */
  cr_assert_eq(ndx_cl_copy(env.cl, NULL, md, &l, ms, &l, 8, 0, NULL, NULL), NDX_EINVAL);
  expect_message("queue", "queue is NULL", NULL, NULL);
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &l, ms, NULL, 8, 0, NULL, NULL), NDX_EINVAL);
  expect_message("src_l", "src_l is NULL", NULL, NULL);
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &l, NULL, &l, 8, 0, NULL, NULL), NDX_EINVAL);
  expect_message("src", "src is NULL", NULL, NULL);
  int bad_bits[] = {0, -8, 3, 5, 7, 12, 24, 48, 96, 127, 129, 256, INT32_MAX, INT32_MIN};
  for (size_t k = 0; k < sizeof bad_bits / sizeof *bad_bits; k++) {
    cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &l, ms, &l, bad_bits[k], 0, NULL, NULL),
                 NDX_EINVAL, "bits %d", bad_bits[k]);
    char want[32];
    snprintf(want, sizeof want, "%d", bad_bits[k]);
    expect_message("bits", "bits", want, NULL);
  }
  expect_untouched(md, 0, 256, "after the refusals");
  clReleaseMemObject(md);
  clReleaseMemObject(ms);
}

/* ---- Failing OpenCL calls ------------------------------------------------------------- */

/* Fails the n-th fallible OpenCL call of ndx_cl_create and a first copy
 * (which builds its kernel's program), for every n until one runs through:
 * each failure is NDX_EDEVICE (or NDX_ENOMEM) naming the call, and leaves no
 * object behind. In env's context the new ndx_cl shares the programs of
 * env's (the copy's is built before the census, by env's ndx_cl); in a new
 * context the first copy builds it, and the last ndx_cl releases it. */
Test(cl_faults, every_failing_call_of_create_and_a_first_copy_leaks_nothing) {
  cl_env_need(&env);
  cl_int e;
  cl_context fresh = clCreateContext(NULL, 1, &env.device, NULL, NULL, &e);
  cr_assert_eq(e, CL_SUCCESS);
  cl_command_queue fresh_queue = clCreateCommandQueue(fresh, env.device, 0, &e);
  cr_assert_eq(e, CL_SUCCESS);
  ndx_layout c = contiguous(2, (int64_t[]){16, 16}), t;
  cr_assert_eq(ndx_transpose(&t, &c, 0, 1), NDX_OK);
  cl_mem md = filled(256), ms = filled(256);
  cr_assert_eq(ndx_cl_copy(env.cl, env.queue, md, &c, ms, &t, 8, 0, NULL, NULL), NDX_OK, "%s",
               ndx_last_error());
  clFinish(env.queue);
  for (int where = 0; where < 2; where++) {
    cl_context context = where ? fresh : env.context;
    cl_command_queue queue = where ? fresh_queue : env.queue;
    cl_mem d = where ? clCreateBuffer(fresh, CL_MEM_READ_WRITE, 256, NULL, &e) : md;
    cl_mem s = where ? clCreateBuffer(fresh, CL_MEM_READ_WRITE, 256, NULL, &e) : ms;
    census before = take_census();
    int failures = 0;
    for (long n = 1;; n++) {
      ndx_cl *cl = (ndx_cl *)&n; /* a refusal must leave it */
      arm(n);
      ndx_status st = ndx_cl_create(&cl, context, env.device);
      const char *call = "ndx_cl_create";
      if (st == NDX_OK) {
        st = ndx_cl_copy(cl, queue, d, &c, s, &t, 8, 0, NULL, NULL);
        call = "ndx_cl_copy";
      }
      bool hit = atomic_load(&calls) >= n;
      arm(0);
      if (st != NDX_OK) {
        cr_assert(st == NDX_EDEVICE || st == NDX_ENOMEM, "call %ld failed: %s (%s)", n,
                  ndx_status_name(st), ndx_last_error());
        cr_assert(strstr(ndx_last_error(), call), "%s", ndx_last_error());
        failures++;
      }
      if (st == NDX_OK || strcmp(call, "ndx_cl_copy") == 0) {
        clFinish(queue);
        ndx_cl_destroy(cl);
      } else {
        cr_assert_eq(cl, (ndx_cl *)&n, "call %ld: *out written on failure", n);
      }
      char what[64];
      snprintf(what, sizeof what, "ndx_cl_create and a copy (%s), call %ld failing",
               where ? "new context" : "shared", n);
      expect_census(before, what);
      if (!hit) break; /* no n-th call: every call has failed once */
      cr_assert_lt(n, 1000, "ndx_cl_create and a copy make too many OpenCL calls");
    }
    cr_log_info("ndx_cl_create and a copy (%s): %d failing calls, each refused cleanly",
                where ? "new context" : "shared", failures);
    cr_assert_gt(failures, where ? 9 : 7, "only %d failures reached", failures);
    if (where) {
      clReleaseMemObject(d);
      clReleaseMemObject(s);
    }
  }
  clReleaseMemObject(md);
  clReleaseMemObject(ms);
  clReleaseCommandQueue(fresh_queue);
  clReleaseContext(fresh);
}

/* The same for one copy down every path: a refused copy is NDX_EDEVICE with
 * the failing call named, its destination untouched, nothing leaked. */
Test(cl_faults, every_failing_call_of_a_copy_leaks_nothing) {
  cl_env_need(&env);
  ndx_layout c = contiguous(2, (int64_t[]){16, 16}), t;
  cr_assert_eq(ndx_transpose(&t, &c, 0, 1), NDX_OK);
  ndx_layout r = make(2, (int64_t[]){16, 12}, (int64_t[]){16, 1}, 0), rd;
  rd = contiguous(2, (int64_t[]){16, 12});
  ndx_layout empty = contiguous(1, (int64_t[]){0});
  struct {
    const ndx_layout *d, *s;
    int bits;
    bool events;
  } cases[] = {
      {&c, &t, 8, false}, {&c, &t, 4, true},         {&rd, &r, 32, false},
      {&c, &c, 8, true},  {&empty, &empty, 8, true},
  };
  cl_mem ms = filled(1024);
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    cl_mem warm = filled(1024); /* the case's kernel built before the census */
    cr_assert_eq(ndx_cl_copy(env.cl, env.queue, warm, cases[k].d, ms, cases[k].s, cases[k].bits, 0,
                             NULL, NULL),
                 NDX_OK, "%s", ndx_last_error());
    clFinish(env.queue);
    clReleaseMemObject(warm);
    census before = take_census();
    int failures = 0;
    for (long n = 1;; n++) {
      cl_mem md = filled(1024);
      cl_int e;
      cl_event gate = cases[k].events ? clCreateUserEvent(env.context, &e) : NULL;
      cl_event done = (cl_event)&done;
      arm(n);
      ndx_status s = ndx_cl_copy(env.cl, env.queue, md, cases[k].d, ms, cases[k].s, cases[k].bits,
                                 gate ? 1 : 0, gate ? &gate : NULL, &done);
      bool hit = atomic_load(&calls) >= n;
      arm(0);
      if (gate) clSetUserEventStatus(gate, CL_COMPLETE);
      if (s == NDX_OK) {
        cr_assert_neq(done, (cl_event)&done);
        cr_assert_eq(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
      } else {
        cr_assert(s == NDX_EDEVICE || s == NDX_ENOMEM, "case %zu, call %ld: %s (%s)", k, n,
                  ndx_status_name(s), ndx_last_error());
        cr_assert_eq(done, (cl_event)&done, "case %zu, call %ld: *done set on failure", k, n);
        expect_message("failing call", "ndx_cl_", "failed", NULL);
        /* the one exception (ndx_cl.h): in the bounds_check build, a failed
         * enqueue of the report's read-back comes after the kernel's */
        if (!(ndx_cl_bounds_checked() && strstr(ndx_last_error(), "clEnqueueReadBuffer")))
          expect_untouched(md, 0, 1024, "a failed copy's dst");
        failures++;
      }
      cr_assert_eq(ndx_cl_check(env.cl), NDX_OK, "%s", ndx_last_error());
      clFinish(env.queue);
      if (gate) clReleaseEvent(gate);
      clReleaseMemObject(md);
      char what[64];
      snprintf(what, sizeof what, "copy case %zu, call %ld failing", k, n);
      expect_census(before, what);
      if (!hit) break;
      cr_assert_lt(n, 100);
    }
    cr_assert_gt(failures, 0, "case %zu: no call failed", k);
  }
  clReleaseMemObject(ms);
}

/* ---- Index plans -------------------------------------------------------------------- */

/* The index calls of the fault tests: a gather of f32 rows, a claims
 * scatter of bytes, a unique scatter and a 2-bit claims scatter, each of
 * [4, 8] by a 1-d index of 4 values broadcast along 8, into or from a
 * table of 8 rows. */
typedef struct index_fault_case {
  bool scatter;
  int bits;
  unsigned flags;
} index_fault_case;

static const index_fault_case index_fault_cases[] = {
    {false, 32, 0}, {true, 8, 0}, {true, 32, NDX_INDEX_UNIQUE}, {true, 2, 0}};

typedef struct index_fault_env {
  ndx_layout same, tab, ids, index_l;
  cl_mem index, src;
} index_fault_env;

static void index_fault_open(index_fault_env *x) {
  x->same = contiguous(2, (int64_t[]){4, 8});
  x->tab = contiguous(2, (int64_t[]){8, 8});
  x->ids = contiguous(1, (int64_t[]){4});
  ndx_layout col;
  cr_assert_eq(ndx_unsqueeze(&col, &x->ids, 1), NDX_OK);
  cr_assert_eq(ndx_broadcast(&x->index_l, &col, 2, (int64_t[]){4, 8}), NDX_OK);
  int32_t ids[4] = {6, 1, 3, 0};
  cl_int e;
  x->index =
      clCreateBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof ids, ids, &e);
  cr_assert_eq(e, CL_SUCCESS);
  x->src = filled(1024);
}

static void index_fault_close(index_fault_env *x) {
  clReleaseMemObject(x->index);
  clReleaseMemObject(x->src);
}

static ndx_status index_plan_of(const index_fault_env *x, const index_fault_case *c,
                                ndx_cl_index_plan **out) {
  const ndx_layout *d = c->scatter ? &x->tab : &x->same, *s = c->scatter ? &x->same : &x->tab;
  return c->scatter ? ndx_cl_index_plan_create_scatter(out, env.cl, d, s, 0, &x->index_l, 32,
                                                       c->flags, c->bits)
                    : ndx_cl_index_plan_create_gather(out, env.cl, d, s, 0, &x->index_l, 32,
                                                      c->flags, c->bits);
}

/* A steady stream of enqueues of one index plan, each waited for by
 * clFinish or by its event, makes no buffer after the first (the
 * bounds-check build: its two status buffers per enqueue); nor does a burst of 16 held in flight,
 * once the pool has grown to it, after the device caught up. */
Test(cl_faults, a_stream_of_index_plan_enqueues_creates_no_buffer) {
  cl_env_need(&env);
  index_fault_env x;
  index_fault_open(&x);
  long per = ndx_cl_bounds_checked() ? 2 : 0;
  for (size_t k = 0; k < sizeof index_fault_cases / sizeof *index_fault_cases; k++) {
    ndx_cl_index_plan *plan;
    cr_assert_eq(index_plan_of(&x, &index_fault_cases[k], &plan), NDX_OK, "%s", ndx_last_error());
    cl_mem dst = filled(1024);
    cr_assert_eq(ndx_cl_index_plan_enqueue(plan, env.queue, dst, x.src, x.index, 0, NULL, NULL),
                 NDX_OK, "%s", ndx_last_error());
    cr_assert_eq(clFinish(env.queue), CL_SUCCESS);
    /* waited for by clFinish: the one slot is idle at each enqueue */
    long before = atomic_load(&buffers_created);
    for (int n = 0; n < 200; n++) {
      cr_assert_eq(ndx_cl_index_plan_enqueue(plan, env.queue, dst, x.src, x.index, 0, NULL, NULL),
                   NDX_OK, "%s", ndx_last_error());
      cr_assert_eq(clFinish(env.queue), CL_SUCCESS);
    }
    long made = atomic_load(&buffers_created) - before;
    cr_assert_eq(made, 200 * per, "case %zu: 200 enqueues made %ld buffers", k, made);
    before = atomic_load(&buffers_created);
    /* waited for by their events (the status read-back's, the last to use
     * the slot) */
    for (int n = 0; n < 200; n++) {
      cl_event done;
      cr_assert_eq(ndx_cl_index_plan_enqueue(plan, env.queue, dst, x.src, x.index, 0, NULL, &done),
                   NDX_OK, "%s", ndx_last_error());
      cr_assert_eq(clWaitForEvents(1, &done), CL_SUCCESS);
      clReleaseEvent(done);
    }
    cr_assert_eq(clFinish(env.queue), CL_SUCCESS);
    made = atomic_load(&buffers_created) - before;
    cr_assert_eq(made, 200 * per, "case %zu: 200 enqueues waited by event made %ld buffers", k,
                 made);
    /* bursts of 16 held back by a user event, so that all are in flight */
    for (int round = 0; round < 3; round++) {
      cl_int e;
      cl_event gate = clCreateUserEvent(env.context, &e);
      before = atomic_load(&buffers_created);
      for (int n = 0; n < 16; n++)
        cr_assert_eq(
            ndx_cl_index_plan_enqueue(plan, env.queue, dst, x.src, x.index, 1, &gate, NULL), NDX_OK,
            "%s", ndx_last_error());
      clSetUserEventStatus(gate, CL_COMPLETE);
      cr_assert_eq(clFinish(env.queue), CL_SUCCESS);
      clReleaseEvent(gate);
      made = atomic_load(&buffers_created) - before;
      if (round > 0)
        cr_assert_eq(made, 16 * per, "case %zu: a burst of 16 again made %ld buffers", k, made);
    }
    cr_assert_eq(ndx_cl_check(env.cl), NDX_OK, "%s", ndx_last_error());
    ndx_cl_index_plan_destroy(plan);
    clReleaseMemObject(dst);
  }
  index_fault_close(&x);
}

/* Every OpenCL call of a gather or scatter failing in turn: by the one
 * call (mode 0), by a plan made, enqueued and destroyed (1), and by an
 * enqueue of a plan made before, which then enqueues again (2): the
 * failure is NDX_EDEVICE or NDX_ENOMEM naming the call, dst is untouched
 * (unless the status read-back failed, after the copy kernel was queued),
 * *done is untouched, the plan still copies, and nothing is leaked. */
Test(cl_faults, every_failing_call_of_an_index_call_leaks_nothing) {
  cl_env_need(&env);
  index_fault_env x;
  index_fault_open(&x);
  static const char *const names[3] = {"ndx_cl_", "ndx_cl_index_plan_",
                                       "ndx_cl_index_plan_enqueue"};
  for (size_t k = 0; k < sizeof index_fault_cases / sizeof *index_fault_cases; k++)
    for (int mode = 0; mode < 3; mode++) {
      const index_fault_case *c = &index_fault_cases[k];
      const ndx_layout *dl = c->scatter ? &x.tab : &x.same, *sl = c->scatter ? &x.same : &x.tab;
      ndx_cl_index_plan *plan;
      cr_assert_eq(index_plan_of(&x, c, &plan), NDX_OK, "%s", ndx_last_error()); /* builds */
      ndx_cl_index_plan_destroy(plan);
      census before = take_census();
      int failures = 0;
      for (long n = 1;; n++) {
        cl_mem md = filled(1024);
        cl_int e;
        cl_event gate = clCreateUserEvent(env.context, &e);
        cl_event done = (cl_event)&done;
        plan = NULL;
        if (mode == 2) {
          cr_assert_eq(index_plan_of(&x, c, &plan), NDX_OK);
          cl_mem warm = filled(1024);
          cr_assert_eq(
              ndx_cl_index_plan_enqueue(plan, env.queue, warm, x.src, x.index, 0, NULL, NULL),
              NDX_OK);
          clFinish(env.queue);
          clReleaseMemObject(warm);
        }
        arm(n);
        ndx_status s;
        if (mode == 0) {
          s = c->scatter ? ndx_cl_scatter(env.cl, env.queue, md, dl, x.src, sl, 0, x.index,
                                          &x.index_l, 32, c->flags, c->bits, 1, &gate, &done)
                         : ndx_cl_gather(env.cl, env.queue, md, dl, x.src, sl, 0, x.index,
                                         &x.index_l, 32, c->flags, c->bits, 1, &gate, &done);
        } else {
          s = mode == 1 ? index_plan_of(&x, c, &plan) : NDX_OK;
          if (s == NDX_OK)
            s = ndx_cl_index_plan_enqueue(plan, env.queue, md, x.src, x.index, 1, &gate, &done);
          if (mode == 1) ndx_cl_index_plan_destroy(plan);
        }
        bool hit = atomic_load(&calls) >= n;
        arm(0);
        clSetUserEventStatus(gate, CL_COMPLETE);
        if (s == NDX_OK) {
          cr_assert_neq(done, (cl_event)&done);
          cr_assert_eq(clWaitForEvents(1, &done), CL_SUCCESS);
          clReleaseEvent(done);
        } else {
          cr_assert(s == NDX_EDEVICE || s == NDX_ENOMEM, "case %zu mode %d, call %ld: %s (%s)", k,
                    mode, n, ndx_status_name(s), ndx_last_error());
          cr_assert_eq(done, (cl_event)&done, "case %zu, call %ld: *done set on failure", k, n);
          expect_message("failing index call", names[mode], "failed", NULL);
          if (!strstr(ndx_last_error(), "clEnqueueReadBuffer"))
            expect_untouched(md, 0, 1024, "a failed index call's dst");
          failures++;
        }
        if (mode == 2) { /* the plan works on after a failure */
          cr_assert_eq(
              ndx_cl_index_plan_enqueue(plan, env.queue, md, x.src, x.index, 0, NULL, NULL), NDX_OK,
              "%s", ndx_last_error());
          clFinish(env.queue);
          ndx_cl_index_plan_destroy(plan);
        }
        cr_assert_eq(ndx_cl_check(env.cl), NDX_OK, "%s", ndx_last_error());
        clFinish(env.queue);
        clReleaseEvent(gate);
        clReleaseMemObject(md);
        char what[80];
        snprintf(what, sizeof what, "index case %zu mode %d, call %ld failing", k, mode, n);
        expect_census(before, what);
        if (!hit) break;
        cr_assert_lt(n, 100);
      }
      cr_assert_gt(failures, 2, "case %zu mode %d: %d calls failed", k, mode, failures);
    }
  index_fault_close(&x);
}

/* ---- Cycles -------------------------------------------------------------------------- */

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* AddressSanitizer keeps freed memory in quarantine, so resident memory only
 * grows under it: there the object counts are checked, and LeakSanitizer
 * checks the memory. */
#if defined(__SANITIZE_ADDRESS__)
#define RSS_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_MEANINGFUL 0
#endif
#endif
#ifndef RSS_MEANINGFUL
#define RSS_MEANINGFUL 1
#endif

/* 1000 ndx_cl_create/destroy cycles leave every OpenCL object count where it
 * was and the resident memory within 1 MiB (about 1 KiB a cycle). */
Test(cl_faults, a_thousand_creates_leak_nothing) {
  cl_env_need(&env);
  ndx_cl *cl;
  for (int i = 0; i < 20; i++) { /* warm-up: heaps grown */
    cr_assert_eq(ndx_cl_create(&cl, env.context, env.device), NDX_OK, "%s", ndx_last_error());
    ndx_cl_destroy(cl);
  }
  census before = take_census();
  long rss = resident_pages();
  double t0 = seconds();
  for (int i = 0; i < 1000; i++) {
    cr_assert_eq(ndx_cl_create(&cl, env.context, env.device), NDX_OK, "%s", ndx_last_error());
    ndx_cl_destroy(cl);
  }
  double t = seconds() - t0;
  long grown = (resident_pages() - rss) * (sysconf(_SC_PAGESIZE) / 1024);
  cr_log_info("1000 ndx_cl_create/destroy: %.2f s, resident memory %+ld KiB", t, grown);
  expect_census(before, "after 1000 creates");
  if (RSS_MEANINGFUL) cr_assert_lt(grown, 1024, "resident memory grew by %ld KiB", grown);
}

Test(cl_faults, a_thousand_plans_leak_nothing) {
  cl_env_need(&env);
  ndx_layout c = contiguous(3, (int64_t[]){5, 6, 7}), p;
  cr_assert_eq(ndx_permute(&p, &c, (int32_t[]){2, 0, 1}), NDX_OK);
  ndx_layout d = contiguous(3, p.shape);
  ndx_cl_plan *plan;
  for (int i = 0; i < 24; i++) { /* warm-up: every width's kernel built, heaps grown */
    cr_assert_eq(ndx_cl_plan_create(&plan, env.cl, &d, &p, 1 << (i % 8)), NDX_OK);
    ndx_cl_plan_destroy(plan);
  }
  census before = take_census();
  long rss = resident_pages();
  for (int i = 0; i < 1000; i++) {
    cr_assert_eq(ndx_cl_plan_create(&plan, env.cl, &d, &p, 1 << (i % 8)), NDX_OK, "%s",
                 ndx_last_error());
    ndx_cl_plan_destroy(plan);
  }
  long grown = (resident_pages() - rss) * (sysconf(_SC_PAGESIZE) / 1024);
  cr_log_info("1000 plans: resident memory %+ld KiB", grown);
  expect_census(before, "after 1000 plans");
  if (RSS_MEANINGFUL) cr_assert_lt(grown, 512, "resident memory grew by %ld KiB", grown);
}

/* ---- The bounds_check build ------------------------------------------------------------ */

/* The `size` bytes of `parent` from `origin`, as a sub-buffer. */
static cl_mem sub_buffer(cl_mem parent, size_t origin, size_t size) {
  cl_int e;
  cl_buffer_region region = {origin, size};
  cl_mem sub =
      clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &e);
  cr_assert_eq(e, CL_SUCCESS, "clCreateSubBuffer: %d", e);
  return sub;
}

/* Copies past the end of a sub-buffer with the host's size check off
 * (NDX_CL_PLAN_UNCHECKED): the kernel reports the element and writes
 * nothing past the sub-buffer, whose parent's bytes beyond it are watched. */
Test(cl_faults, the_bounds_check_build_catches_what_the_host_let_through) {
  cl_env_need(&env);
  if (!ndx_cl_bounds_checked())
    cr_skip_test("needs the bounds_check build (meson setup -Dbounds_check=true): the "
                 "kernels of this build do not check");
  enum { PARENT = 2048, ORIGIN = 1024, SUB = 128 };
  ndx_layout c = contiguous(2, (int64_t[]){16, 16}), t;
  cr_assert_eq(ndx_transpose(&t, &c, 0, 1), NDX_OK);
  ndx_layout rows = make(2, (int64_t[]){16, 12}, (int64_t[]){16, 1}, 0);
  ndx_layout rows_d = contiguous(2, (int64_t[]){16, 12});
  ndx_layout strided = make(1, (int64_t[]){100}, (int64_t[]){3}, 0);
  ndx_layout line = contiguous(1, (int64_t[]){100});
  struct {
    const ndx_layout *d, *s;
    int bits;
    bool dst_small;     /* else the source is the sub-buffer */
    ndx_status want;    /* NDX_ERANGE: the kernel's report */
    const char *kernel; /* the kernel it names */
  } cases[] = {
      {&c, &t, 8, true, NDX_ERANGE, "ndx_transpose for 8-bit elements"}, /* 256 bytes into 128 */
      {&rows_d, &rows, 16, true, NDX_ERANGE,
       "ndx_rows for 16-bit elements"},                      /* 384 bytes into 128 */
      {&line, &line, 128, true, NDX_EDEVICE, "buffer path"}, /* OpenCL's own check */
      {&strided, &line, 32, true, NDX_ERANGE, "ndx_gather for 32-bit elements"},
      {&c, &c, 1, true, NDX_OK, "1-bit, 32 bytes: fits"},
      {&line, &strided, 8, false, NDX_ERANGE,
       "ndx_gather for 8-bit elements"}, /* reads 298 of 128 */
      {&strided, &line, 4, true, NDX_ERANGE,
       "ndx_bytes for 4-bit elements"}, /* 149 bytes into 128 */
      {&c, &t, 4, true, NDX_OK, "4-bit transpose, 128 bytes: fits"},
      {&c, &t, 128, false, NDX_ERANGE,
       "ndx_transpose for 128-bit elements"}, /* reads 4096 of 128 */
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    for (int wait = 0; wait < 2; wait++) { /* reported by the enqueue; by ndx_cl_check */
      cl_mem parent = filled(PARENT), other = filled(8192), sub = sub_buffer(parent, ORIGIN, SUB);
      cl_int e;
      ndx_cl_plan *plan;
      cr_assert_eq(ndx_cl_plan_create_flags(&plan, env.cl, cases[k].d, cases[k].s, cases[k].bits,
                                            NDX_CL_PLAN_UNCHECKED),
                   NDX_OK, "%s", ndx_last_error());
      cl_mem d = cases[k].dst_small ? sub : other, s = cases[k].dst_small ? other : sub;
      cl_event gate = wait ? clCreateUserEvent(env.context, &e) : NULL;
      ndx_status st = ndx_cl_plan_enqueue(plan, env.queue, d, s, wait, wait ? &gate : NULL, NULL);
      if (wait) {
        if (cases[k].want != NDX_EDEVICE)
          cr_assert_eq(st, NDX_OK, "%s: the report waits for ndx_cl_check: %s", cases[k].kernel,
                       ndx_last_error());
        clSetUserEventStatus(gate, CL_COMPLETE);
        if (st == NDX_OK) st = ndx_cl_check(env.cl);
        clReleaseEvent(gate);
      }
      cr_assert_eq(st, cases[k].want, "%s (path %s, wait %d): %s, %s", cases[k].kernel,
                   ndx_cl_plan_path(plan), wait, ndx_status_name(st), ndx_last_error());
      if (st == NDX_ERANGE) {
        char has[64];
        snprintf(has, sizeof has, "%s has %d", cases[k].dst_small ? "dst" : "src", SUB);
        expect_message(cases[k].kernel, "bounds check: kernel", cases[k].kernel, has);
      }
      clFinish(env.queue);
      /* nothing written past the sub-buffer, nor before it */
      expect_untouched(parent, ORIGIN + SUB, PARENT, cases[k].kernel);
      uint8_t before[ORIGIN];
      cr_assert_eq(
          clEnqueueReadBuffer(env.queue, parent, CL_TRUE, 0, ORIGIN, before, 0, NULL, NULL),
          CL_SUCCESS);
      for (int i = 0; i < ORIGIN; i++) cr_assert_eq(before[i], pattern((size_t)i));
      ndx_cl_plan_destroy(plan);
      clReleaseMemObject(sub);
      clReleaseMemObject(parent);
      clReleaseMemObject(other);
    }
  }
}

/* Transposes whose small tiles the batch axes next to them join (the
 * launch descriptor's joins), into a destination one byte short: a
 * work-item checks the elements it copies, joined tiles and all, so the
 * last element is reported and nothing is written past the sub-buffer.
 * (The check once walked the tiles as if unjoined and missed it.) */
Test(cl_faults, the_bounds_check_covers_joined_tiles) {
  cl_env_need(&env);
  if (!ndx_cl_bounds_checked())
    cr_skip_test("needs the bounds_check build (meson setup -Dbounds_check=true): the "
                 "kernels of this build do not check");
  struct {
    int rank;
    int64_t shape[6];
    int32_t perm[6];
  } cases[] = {{4, {9, 16, 5, 16}, {3, 2, 1, 0}}, {6, {8, 8, 2, 2, 8, 8}, {5, 4, 3, 2, 1, 0}}};
  enum { ORIGIN = 1024, WATCH = 1024 };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    ndx_layout base = contiguous(cases[k].rank, cases[k].shape), s;
    cr_assert_eq(ndx_permute(&s, &base, cases[k].perm), NDX_OK);
    ndx_layout d = contiguous(s.rank, s.shape);
    int64_t lo, hi;
    ndx_span(&d, &lo, &hi);
    size_t bytes = (size_t)hi * 4, sub_size = bytes - 1;
    cl_mem parent = filled(ORIGIN + sub_size + WATCH), other = filled(bytes);
    cl_mem sub = sub_buffer(parent, ORIGIN, sub_size);
    ndx_cl_plan *plan;
    cr_assert_eq(ndx_cl_plan_create_flags(&plan, env.cl, &d, &s, 32, NDX_CL_PLAN_UNCHECKED), NDX_OK,
                 "%s", ndx_last_error());
    cr_assert_str_eq(ndx_cl_plan_path(plan), "transpose");
    ndx_status st = ndx_cl_plan_enqueue(plan, env.queue, sub, other, 0, NULL, NULL);
    cr_assert_eq(st, NDX_ERANGE, "case %zu: %s, %s", k, ndx_status_name(st), ndx_last_error());
    char has[64];
    snprintf(has, sizeof has, "dst has %zu", sub_size);
    expect_message("joined tiles", "bounds check: kernel", "ndx_transpose", has);
    expect_untouched(parent, ORIGIN + sub_size, ORIGIN + sub_size + WATCH, "joined tiles");
    ndx_cl_plan_destroy(plan);
    clReleaseMemObject(sub);
    clReleaseMemObject(parent);
    clReleaseMemObject(other);
  }
}
