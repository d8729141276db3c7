/* test_cl_threads.c: one ndx_cl used from eight threads at once. Each
 * thread runs 1000 copies of its own layouts (transposes, slices,
 * broadcasts, flips, sub-byte widths) through ndx_cl_copy, its own plans and
 * a plan shared by all threads; threads 0-3 have a queue each, threads 4-7
 * share one. Every copy is read back and compared, over the whole
 * destination buffer, with a host reference. Every 50 copies each thread
 * provokes an error of its own (a width, a shape, a span: values no other
 * thread uses) and checks that ndx_last_error() still holds its previous
 * one: successful copies leave the message alone and other threads' errors
 * never reach it. Run under ThreadSanitizer in CI (ci/tsan.supp).
 *
 * Criterion forks a process per test: OpenCL objects are made inside the
 * test, never in the parent. Threads record their first failure; the main
 * thread asserts after joining them.
 *
 * ThreadSanitizer breaks Criterion's fork server (Criterion issue #274:
 * "Could not initialize inheritable arena"), so with -DNDX_NO_CRITERION the
 * file builds on tests/mini_criterion.h instead: the same tests, run in one
 * process, TAP out (tests/meson.build does so in a -Db_sanitize=thread
 * build). Hence no fixtures, no suite.h, and a message on every assert. */
#ifdef NDX_NO_CRITERION
#include "mini_criterion.h"
#else
#include <criterion/criterion.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndx/ndx_cl.h"
#include "cl_env.h"
#include "oracle.h"

enum { THREADS = 8, OWN_QUEUES = 4, COPIES = 1000, CASES = 5, ERROR_EVERY = 50 };

static cl_env env;               /* its queue: the one threads 4-7 share */
static ndx_cl_plan *shared_plan; /* [12,12] from its transpose, 32 bits */

static void teardown(void) {
  ndx_cl_plan_destroy(shared_plan);
  shared_plan = NULL;
  cl_env_close(&env);
}

static ndx_layout contiguous(int rank, const int64_t *shape) {
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, rank, shape), NDX_OK, "%s", ndx_last_error());
  return l;
}

static ndx_layout make(int rank, const int64_t *shape, const int64_t *strides, int64_t offset) {
  ndx_layout l;
  cr_assert_eq(ndx_make(&l, rank, shape, strides, offset), NDX_OK, "%s", ndx_last_error());
  return l;
}

/* ---- One thread's work ------------------------------------------------------------ */

static const int widths[] = {1, 2, 4, 8, 16, 32, 64, 128};

typedef struct copy_case {
  ndx_layout d, s;
  int bits;
  size_t nd, ns; /* buffer bytes */
  cl_mem md, ms;
  ndx_cl_plan *plan;
  uint8_t *want; /* what md holds */
} copy_case;

typedef struct worker {
  int t;
  cl_command_queue queue;
  copy_case cases[CASES + 1]; /* the last: the shared plan's */
  int copies;
  char failure[512]; /* the first, empty when none */
} worker;

static size_t bytes_of(const ndx_layout *l, int bits) {
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  return (size_t)((hi * bits + 7) / 8) + 8; /* and bytes no element owns */
}

/* Thread t's layouts: each case differs between threads in extents or width. */
static void make_cases(worker *w) {
  int t = w->t, a = widths[t], b = widths[7 - t];
  ndx_layout base;
  copy_case *c = w->cases;
  /* a transpose */
  base = contiguous(2, (int64_t[]){9, 3 + t});
  c[0].d = contiguous(2, (int64_t[]){3 + t, 9});
  cr_assert_eq(ndx_transpose(&c[0].s, &base, 0, 1), NDX_OK, "%s", ndx_last_error());
  c[0].bits = a;
  /* a slice with a step and an offset */
  base = contiguous(2, (int64_t[]){8, 12 + t});
  cr_assert_eq(ndx_slice(&c[1].s, &base, (ndx_range[]){{1, 4, 2}, {2, 5 + t, 1}}), NDX_OK, "%s",
               ndx_last_error());
  c[1].d = contiguous(2, (int64_t[]){4, 5 + t});
  c[1].bits = b;
  /* a broadcast row */
  base = contiguous(1, (int64_t[]){7 + t});
  cr_assert_eq(ndx_broadcast(&c[2].s, &base, 2, (int64_t[]){6, 7 + t}), NDX_OK, "%s",
               ndx_last_error());
  c[2].d = contiguous(2, (int64_t[]){6, 7 + t});
  c[2].bits = a;
  /* both axes flipped, into a strided destination */
  base = contiguous(2, (int64_t[]){5, 6 + t});
  ndx_layout f;
  cr_assert_eq(ndx_flip(&f, &base, 0), NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(ndx_flip(&c[3].s, &f, 1), NDX_OK, "%s", ndx_last_error());
  c[3].d = make(2, (int64_t[]){5, 6 + t}, (int64_t[]){2 * (6 + t), 2}, 1);
  c[3].bits = b;
  /* a sub-byte transpose */
  base = contiguous(2, (int64_t[]){16, 8 + t});
  c[4].d = contiguous(2, (int64_t[]){8 + t, 16});
  cr_assert_eq(ndx_transpose(&c[4].s, &base, 0, 1), NDX_OK, "%s", ndx_last_error());
  c[4].bits = widths[t % 3];
  /* the shared plan's */
  base = contiguous(2, (int64_t[]){12, 12});
  c[5].d = base;
  cr_assert_eq(ndx_transpose(&c[5].s, &base, 0, 1), NDX_OK, "%s", ndx_last_error());
  c[5].bits = 32;
  for (int k = 0; k <= CASES; k++) {
    c[k].nd = bytes_of(&c[k].d, c[k].bits);
    c[k].ns = bytes_of(&c[k].s, c[k].bits);
    c[k].want = malloc(c[k].nd);
    for (size_t i = 0; i < c[k].nd; i++) c[k].want[i] = (uint8_t)(0x3c ^ (i * 17) ^ (size_t)t);
    cl_int e;
    c[k].md = clCreateBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, c[k].nd,
                             c[k].want, &e);
    cr_assert_eq(e, CL_SUCCESS, "clCreateBuffer: %d", e);
    c[k].ms = clCreateBuffer(env.context, CL_MEM_READ_WRITE, c[k].ns, NULL, &e);
    cr_assert_eq(e, CL_SUCCESS, "clCreateBuffer: %d", e);
    c[k].plan = NULL;
    if (k < CASES)
      cr_assert_eq(ndx_cl_plan_create(&c[k].plan, env.cl, &c[k].d, &c[k].s, c[k].bits), NDX_OK,
                   "%s", ndx_last_error());
  }
}

static void free_cases(worker *w) {
  for (int k = 0; k <= CASES; k++) {
    ndx_cl_plan_destroy(w->cases[k].plan);
    clReleaseMemObject(w->cases[k].md);
    clReleaseMemObject(w->cases[k].ms);
    free(w->cases[k].want);
  }
}

#define FAIL(w, ...)                                                                               \
  do {                                                                                             \
    if (!(w)->failure[0]) snprintf((w)->failure, sizeof(w)->failure, __VA_ARGS__);                 \
    return NULL;                                                                                   \
  } while (0)

/* Provokes error `k` of thread t; stores in `mark` a text only its message
 * holds. Returns false when the call did not fail as it must. */
static bool provoke(worker *w, int k, char *mark, size_t size) {
  int t = w->t;
  copy_case *c = &w->cases[0];
  ndx_status s;
  switch (t % 3) {
  case 0: { /* a width no other thread asks for */
    int bits = 1000 + 100 * t + k;
    s = ndx_cl_copy(env.cl, w->queue, c->md, &c->d, c->ms, &c->s, bits, 0, NULL, NULL);
    snprintf(mark, size, "%d", bits);
    return s == NDX_EINVAL;
  }
  case 1: { /* shapes that differ */
    ndx_layout d = contiguous(2, (int64_t[]){t + 2, 300 + k}),
               sl = contiguous(2, (int64_t[]){300 + k, t + 2});
    s = ndx_cl_copy(env.cl, w->queue, c->md, &d, c->ms, &sl, 8, 0, NULL, NULL);
    snprintf(mark, size, "[%d,%d]", t + 2, 300 + k);
    return s == NDX_EINVAL;
  }
  default: { /* a span past the buffer */
    int64_t offset = 10000 * (t + 1) + k;
    ndx_layout d = make(1, (int64_t[]){4}, (int64_t[]){1}, offset),
               sl = contiguous(1, (int64_t[]){4});
    s = ndx_cl_copy(env.cl, w->queue, c->md, &d, c->ms, &sl, 8, 0, NULL, NULL);
    snprintf(mark, size, "needs %lld bytes", (long long)offset + 4);
    return s == NDX_ERANGE;
  }
  }
}

static void *work(void *arg) {
  worker *w = arg;
  uint8_t src[4096], got[4096];
  char mark[64] = "";
  oracle_rng r = {(uint64_t)w->t * 7919 + 1};
  for (int i = 0; i < COPIES; i++) {
    if (i % ERROR_EVERY == 0) {
      if (mark[0] && !strstr(ndx_last_error(), mark))
        FAIL(w, "thread %d, copy %d: ndx_last_error() is \"%s\", not its own error (%s)", w->t, i,
             ndx_last_error(), mark);
      if (!provoke(w, i / ERROR_EVERY, mark, sizeof mark))
        FAIL(w, "thread %d: error %d was not refused", w->t, i / ERROR_EVERY);
      if (!strstr(ndx_last_error(), mark))
        FAIL(w, "thread %d: message \"%s\" lacks \"%s\"", w->t, ndx_last_error(), mark);
    }
    int k = i % 10 == 9 ? CASES : i % CASES;
    copy_case *c = &w->cases[k];
    if (c->ns > sizeof src || c->nd > sizeof got) FAIL(w, "case %d too big", k);
    for (size_t j = 0; j < c->ns; j++) src[j] = (uint8_t)oracle_next(&r);
    if (clEnqueueWriteBuffer(w->queue, c->ms, CL_TRUE, 0, c->ns, src, 0, NULL, NULL) != CL_SUCCESS)
      FAIL(w, "thread %d: clEnqueueWriteBuffer failed", w->t);
    ndx_status s;
    if (k == CASES)
      s = ndx_cl_plan_enqueue(shared_plan, w->queue, c->md, c->ms, 0, NULL, NULL);
    else if (i % 2)
      s = ndx_cl_plan_enqueue(c->plan, w->queue, c->md, c->ms, 0, NULL, NULL);
    else
      s = ndx_cl_copy(env.cl, w->queue, c->md, &c->d, c->ms, &c->s, c->bits, 0, NULL, NULL);
    if (s != NDX_OK) FAIL(w, "thread %d, copy %d (case %d): %s", w->t, i, k, ndx_last_error());
    if (clEnqueueReadBuffer(w->queue, c->md, CL_TRUE, 0, c->nd, got, 0, NULL, NULL) != CL_SUCCESS)
      FAIL(w, "thread %d: clEnqueueReadBuffer failed", w->t);
    oracle_copy(c->want, &c->d, src, &c->s, c->bits, NULL);
    for (size_t j = 0; j < c->nd; j++)
      if (got[j] != c->want[j])
        FAIL(w, "thread %d, copy %d (case %d, %d bits): byte %zu is 0x%02x, want 0x%02x", w->t, i,
             k, c->bits, j, got[j], c->want[j]);
    w->copies++;
  }
  if (!strstr(ndx_last_error(), mark))
    FAIL(w, "thread %d at the end: ndx_last_error() is \"%s\", not its own (%s)", w->t,
         ndx_last_error(), mark);
  return NULL;
}

Test(cl_threads, eight_threads_share_one_ndx_cl) {
  cl_env_open(&env);
  cl_env_need(&env);
  ndx_layout c = contiguous(2, (int64_t[]){12, 12}), t;
  cr_assert_eq(ndx_transpose(&t, &c, 0, 1), NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(ndx_cl_plan_create(&shared_plan, env.cl, &c, &t, 32), NDX_OK, "%s",
               ndx_last_error());
  static worker workers[THREADS];
  pthread_t th[THREADS];
  for (int k = 0; k < THREADS; k++) {
    worker *w = &workers[k];
    memset(w, 0, sizeof *w);
    w->t = k;
    cl_int e;
    w->queue = k < OWN_QUEUES ? clCreateCommandQueue(env.context, env.device, 0, &e) : env.queue;
    cr_assert(w->queue != NULL, "clCreateCommandQueue: %d", e);
    make_cases(w);
  }
  for (int k = 0; k < THREADS; k++)
    cr_assert_eq(pthread_create(&th[k], NULL, work, &workers[k]), 0, "pthread_create");
  for (int k = 0; k < THREADS; k++) pthread_join(th[k], NULL);
  for (int k = 0; k < THREADS; k++) {
    worker *w = &workers[k];
    cr_assert_eq(w->failure[0], '\0', "%s", w->failure);
    cr_assert_eq(w->copies, COPIES, "thread %d ran %d copies", k, w->copies);
    clFinish(w->queue);
    free_cases(w);
    if (k < OWN_QUEUES) clReleaseCommandQueue(w->queue);
  }
  teardown();
}

/* ndx_cl_create from eight threads at once, on one context: each gets a
 * working ndx_cl (built, or sharing another's programs). */
static void *destroy_one(void *arg) {
  ndx_cl_destroy(arg);
  return NULL;
}

static void *create_one(void *arg) {
  ndx_cl **out = arg;
  if (ndx_cl_create(out, env.context, env.device) != NDX_OK) *out = NULL;
  return NULL;
}

Test(cl_threads, creates_race_safely) {
  cl_env_open(&env);
  cl_env_need(&env);
  ndx_cl *cls[THREADS] = {0};
  pthread_t th[THREADS];
  for (int round = 0; round < 3; round++) {
    for (int k = 0; k < THREADS; k++) pthread_create(&th[k], NULL, create_one, &cls[k]);
    for (int k = 0; k < THREADS; k++) pthread_join(th[k], NULL);
    ndx_layout l = contiguous(1, (int64_t[]){64}), f;
    cr_assert_eq(ndx_flip(&f, &l, 0), NDX_OK, "%s", ndx_last_error());
    uint8_t src[64], got[64];
    for (int i = 0; i < 64; i++) src[i] = (uint8_t)i;
    cl_int e;
    cl_mem ms = clCreateBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, 64, src, &e);
    cl_mem md = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 64, NULL, &e);
    for (int k = 0; k < THREADS; k++) {
      cr_assert(cls[k] != NULL, "thread %d: ndx_cl_create failed", k);
      cr_assert_eq(ndx_cl_copy(cls[k], env.queue, md, &l, ms, &f, 8, 0, NULL, NULL), NDX_OK, "%s",
                   ndx_last_error());
      cr_assert_eq(clEnqueueReadBuffer(env.queue, md, CL_TRUE, 0, 64, got, 0, NULL, NULL),
                   CL_SUCCESS, "clEnqueueReadBuffer");
      for (int i = 0; i < 64; i++) cr_assert_eq(got[i], 63 - i, "ndx_cl %d, byte %d", k, i);
    }
    clReleaseMemObject(ms);
    clReleaseMemObject(md);
    /* destroyed by eight threads at once too */
    for (int k = 0; k < THREADS; k++) pthread_create(&th[k], NULL, destroy_one, cls[k]);
    for (int k = 0; k < THREADS; k++) pthread_join(th[k], NULL);
  }
  teardown();
}
