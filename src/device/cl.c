/* cl.c: the OpenCL runtime of ndx_cl.h: program cache, plans and enqueue.
 *
 * ndx_cl_create builds the embedded copy program twice, once per index form
 * (-DNDX_WIDE=0 and 1), and keeps every kernel object. A plan is the shared
 * planner's (host/copy_plan.h: path, axis order and form chosen on plain
 * operands) plus this runtime's geometry (cl_tuning.h); its pack, written
 * once at the end, goes into a small read-only buffer passed as a __constant
 * argument. Enqueueing sets the shared kernel's arguments and enqueues under
 * the ndx_cl's mutex, so that threads never interleave the two (OpenCL's
 * clSetKernelArg is not thread-safe on one cl_kernel; the enqueue captures
 * the arguments, so the lock is held for those two calls only).
 *
 * The ndx_cl objects of one context and device share their two programs
 * (each has its own kernel objects), and built programs are kept as
 * binaries per device for the process's life: from PoCL's disk cache a
 * source build still costs about 70 ms per form, from a binary about 5 ms,
 * reusing a built program nothing (and PoCL keeps some 20 KiB per program
 * it ever built).
 *
 * With NDX_BOUNDS_CHECK (meson option bounds_check) the kernels are built
 * with -DNDX_BOUNDS_CHECK and check every element against the buffer sizes
 * (kernels/ndx_copy.cl); each kernel enqueue then gets a small status buffer
 * whose read-back reports a violation (ndx_cl_plan_enqueue, ndx_cl_check). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"
#include "cl_tuning.h"
#include "host/copy_plan.h"
#include "host/ndx_internal.h"
#include "ndx_copy_items.h"

/* ---- Kernel table -------------------------------------------------------- */

/* The kernel families, each named as the path it runs (ndx_copy_path). */
enum kind { K_ROWS, K_GATHER, K_TRANSPOSE, K_BYTES, K_KINDS };
static const ndx_copy_path path_of[K_KINDS] = {NDX_PATH_ROWS, NDX_PATH_GATHER, NDX_PATH_TRANSPOSE,
                                               NDX_PATH_BYTES};

#define NWIDTHS 8 /* log2 of 1 .. 128 */

#ifndef NDX_BOUNDS_CHECK
#define NDX_BOUNDS_CHECK 0
#endif
enum { STATUS_WORDS = 8 }; /* the bounds-check status (kernels/ndx_copy.cl) */

/* A bounds-checked kernel's status on its way back to the host. */
typedef struct check {
  struct check *next;
  cl_mem status;
  cl_event read; /* the read-back of status into host */
  cl_uint host[STATUS_WORDS];
  char kernel[48];
  size_t size[2]; /* dst's and src's bytes */
} check;

struct ndx_cl {
  cl_context context;
  cl_device_id device;
  cl_program program[2];
  cl_kernel kernel[2][K_KINDS][NWIDTHS]; /* NULL where a kind lacks a width */
  size_t local[2][K_KINDS][NWIDTHS];
  cl_ulong max_constant;
  pthread_mutex_t lock; /* kernel arguments and enqueues; the pending list */
  check *pending;       /* bounds-checked copies enqueued with a wait list */
  struct share *share;  /* the programs' entry in `shares` */
};

struct ndx_cl_plan {
  ndx_cl *cl;
  ndx_copy_path path;
  int wide;
  bool unchecked; /* NDX_CL_PLAN_UNCHECKED */
  char kernel_name[24];
  cl_kernel kernel;
  cl_mem pack;
  size_t items, global, local;
  cl_long chunk;
  size_t dst_off, src_off, bytes; /* the buffer path */
  int64_t dst_lo, dst_end;        /* bytes each layout's span touches */
  int64_t src_lo, src_end;
};

static int log2_bits(int bits) {
  int l = 0;
  while ((1 << l) < bits) l++;
  return l;
}

static const char *cl_error_name(cl_int e) {
  switch (e) {
  case CL_DEVICE_NOT_FOUND:
    return "CL_DEVICE_NOT_FOUND";
  case CL_DEVICE_NOT_AVAILABLE:
    return "CL_DEVICE_NOT_AVAILABLE";
  case CL_COMPILER_NOT_AVAILABLE:
    return "CL_COMPILER_NOT_AVAILABLE";
  case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
  case CL_OUT_OF_RESOURCES:
    return "CL_OUT_OF_RESOURCES";
  case CL_OUT_OF_HOST_MEMORY:
    return "CL_OUT_OF_HOST_MEMORY";
  case CL_MEM_COPY_OVERLAP:
    return "CL_MEM_COPY_OVERLAP";
  case CL_BUILD_PROGRAM_FAILURE:
    return "CL_BUILD_PROGRAM_FAILURE";
  case CL_MISALIGNED_SUB_BUFFER_OFFSET:
    return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
  case CL_INVALID_VALUE:
    return "CL_INVALID_VALUE";
  case CL_INVALID_DEVICE:
    return "CL_INVALID_DEVICE";
  case CL_INVALID_CONTEXT:
    return "CL_INVALID_CONTEXT";
  case CL_INVALID_COMMAND_QUEUE:
    return "CL_INVALID_COMMAND_QUEUE";
  case CL_INVALID_MEM_OBJECT:
    return "CL_INVALID_MEM_OBJECT";
  case CL_INVALID_BUILD_OPTIONS:
    return "CL_INVALID_BUILD_OPTIONS";
  case CL_INVALID_PROGRAM:
    return "CL_INVALID_PROGRAM";
  case CL_INVALID_PROGRAM_EXECUTABLE:
    return "CL_INVALID_PROGRAM_EXECUTABLE";
  case CL_INVALID_KERNEL_NAME:
    return "CL_INVALID_KERNEL_NAME";
  case CL_INVALID_KERNEL:
    return "CL_INVALID_KERNEL";
  case CL_INVALID_ARG_INDEX:
    return "CL_INVALID_ARG_INDEX";
  case CL_INVALID_ARG_VALUE:
    return "CL_INVALID_ARG_VALUE";
  case CL_INVALID_ARG_SIZE:
    return "CL_INVALID_ARG_SIZE";
  case CL_INVALID_KERNEL_ARGS:
    return "CL_INVALID_KERNEL_ARGS";
  case CL_INVALID_WORK_GROUP_SIZE:
    return "CL_INVALID_WORK_GROUP_SIZE";
  case CL_INVALID_WORK_ITEM_SIZE:
    return "CL_INVALID_WORK_ITEM_SIZE";
  case CL_INVALID_GLOBAL_OFFSET:
    return "CL_INVALID_GLOBAL_OFFSET";
  case CL_INVALID_EVENT_WAIT_LIST:
    return "CL_INVALID_EVENT_WAIT_LIST";
  case CL_INVALID_EVENT:
    return "CL_INVALID_EVENT";
  case CL_INVALID_BUFFER_SIZE:
    return "CL_INVALID_BUFFER_SIZE";
  case CL_INVALID_GLOBAL_WORK_SIZE:
    return "CL_INVALID_GLOBAL_WORK_SIZE";
  default:
    return "an OpenCL error";
  }
}

static ndx_status cl_fail(const char *fn, const char *call, cl_int e) {
  return ndx_set_error(NDX_EDEVICE, "%s: %s failed: %d (%s)", fn, call, (int)e, cl_error_name(e));
}

/* ---- Programs -------------------------------------------------------------- */

const char *ndx_cl_build_options(int wide) {
  if (NDX_BOUNDS_CHECK)
    return wide ? "-cl-std=CL1.2 -DNDX_WIDE=1 -DNDX_BOUNDS_CHECK"
                : "-cl-std=CL1.2 -DNDX_WIDE=0 -DNDX_BOUNDS_CHECK";
  return wide ? "-cl-std=CL1.2 -DNDX_WIDE=1" : "-cl-std=CL1.2 -DNDX_WIDE=0";
}

int ndx_cl_bounds_checked(void) {
  return NDX_BOUNDS_CHECK;
}

/* A built copy program of one device and form, kept for the process's life
 * (reachable from `binaries`, never freed). */
typedef struct binary {
  struct binary *next;
  cl_device_id device;
  cl_platform_id platform;
  int wide;
  size_t size;
  unsigned char bytes[];
} binary;

static pthread_mutex_t binaries_lock = PTHREAD_MUTEX_INITIALIZER;
static binary *binaries;

/* The programs of the live ndx_cl objects, by context and device. An entry
 * holds no reference: each of its `users` holds its own on the programs,
 * and the last one to go removes the entry. Under binaries_lock. */
typedef struct share {
  struct share *next;
  cl_context context;
  cl_device_id device;
  cl_program program[2];
  int users;
} share;

static share *shares;

/* Takes the programs of a live ndx_cl of the same context and device; false
 * when there is none. */
static bool share_programs(ndx_cl *cl) {
  pthread_mutex_lock(&binaries_lock);
  share *h = shares;
  while (h && !(h->context == cl->context && h->device == cl->device)) h = h->next;
  if (h && clRetainProgram(h->program[0]) == CL_SUCCESS) {
    if (clRetainProgram(h->program[1]) == CL_SUCCESS) {
      cl->program[0] = h->program[0];
      cl->program[1] = h->program[1];
      cl->share = h;
      h->users++;
    } else {
      clReleaseProgram(h->program[0]);
    }
  }
  pthread_mutex_unlock(&binaries_lock);
  return cl->share != NULL;
}

/* Offers the programs `cl` built to later ndx_cl objects; nothing when out of
 * memory. */
static void publish_programs(ndx_cl *cl) {
  share *h = malloc(sizeof *h);
  if (!h) return;
  h->context = cl->context;
  h->device = cl->device;
  h->program[0] = cl->program[0];
  h->program[1] = cl->program[1];
  h->users = 1;
  pthread_mutex_lock(&binaries_lock);
  h->next = shares;
  shares = h;
  pthread_mutex_unlock(&binaries_lock);
  cl->share = h;
}

static void unshare_programs(ndx_cl *cl) {
  if (!cl->share) return;
  pthread_mutex_lock(&binaries_lock);
  if (--cl->share->users == 0) {
    share **at = &shares;
    while (*at != cl->share) at = &(*at)->next;
    *at = cl->share->next;
    free(cl->share);
  }
  pthread_mutex_unlock(&binaries_lock);
  cl->share = NULL;
}

static cl_platform_id platform_of(cl_device_id device) {
  cl_platform_id p = NULL;
  if (clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof p, &p, NULL) != CL_SUCCESS) return NULL;
  return p;
}

/* The program from the kept binary, built; NULL when there is none or it
 * does not build (then the caller builds from source). */
static cl_program program_from_binary(ndx_cl *cl, int wide) {
  cl_platform_id platform = platform_of(cl->device);
  pthread_mutex_lock(&binaries_lock);
  binary *b = binaries;
  while (b && !(b->device == cl->device && b->platform == platform && b->wide == wide)) b = b->next;
  pthread_mutex_unlock(&binaries_lock); /* entries are never changed or freed */
  if (!b) return NULL;
  const unsigned char *bytes = b->bytes;
  cl_int e, ok;
  cl_program p = clCreateProgramWithBinary(cl->context, 1, &cl->device, &b->size, &bytes, &ok, &e);
  if (e != CL_SUCCESS) return NULL;
  if (ok != CL_SUCCESS ||
      clBuildProgram(p, 1, &cl->device, ndx_cl_build_options(wide), NULL, NULL) != CL_SUCCESS) {
    clReleaseProgram(p);
    return NULL;
  }
  return p;
}

/* Keeps the binary of a program built from source; nothing when it cannot. */
static void keep_binary(ndx_cl *cl, cl_program p, int wide) {
  size_t size = 0;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
      size == 0)
    return;
  binary *b = malloc(sizeof *b + size);
  if (!b) return;
  unsigned char *bytes = b->bytes;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bytes, &bytes, NULL) != CL_SUCCESS) {
    free(b);
    return;
  }
  b->device = cl->device;
  b->platform = platform_of(cl->device);
  b->wide = wide;
  b->size = size;
  pthread_mutex_lock(&binaries_lock);
  b->next = binaries;
  binaries = b;
  pthread_mutex_unlock(&binaries_lock);
}

/* Builds program `wide` from source; the build log in the message when it
 * fails. */
static ndx_status build_source(ndx_cl *cl, int wide, cl_program *out) {
  const char *src = ndx_cl_copy_source;
  size_t len = ndx_cl_copy_source_size;
  cl_int e;
  cl_program p = clCreateProgramWithSource(cl->context, 1, &src, &len, &e);
  if (e != CL_SUCCESS) return cl_fail("ndx_cl_create", "clCreateProgramWithSource", e);
  e = clBuildProgram(p, 1, &cl->device, ndx_cl_build_options(wide), NULL, NULL);
  if (e != CL_SUCCESS) {
    size_t n = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(p, cl->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS &&
        (log = malloc(n + 1)) != NULL) {
      if (clGetProgramBuildInfo(p, cl->device, CL_PROGRAM_BUILD_LOG, n, log, NULL) != CL_SUCCESS)
        n = 0;
      log[n] = '\0';
    }
    ndx_set_error(NDX_EDEVICE, "ndx_cl_create: clBuildProgram (%s) failed: %d (%s); build log:\n%s",
                  ndx_cl_build_options(wide), (int)e, cl_error_name(e), log ? log : "(none)");
    free(log);
    clReleaseProgram(p);
    return NDX_EDEVICE;
  }
  keep_binary(cl, p, wide);
  *out = p;
  return NDX_OK;
}

/* Program `wide`: from the kept binary, else from source. */
static ndx_status build_program(ndx_cl *cl, int wide) {
  cl->program[wide] = program_from_binary(cl, wide);
  return cl->program[wide] ? NDX_OK : build_source(cl, wide, &cl->program[wide]);
}

/* The kernel objects of program `wide`, and their work-group sizes. */
static ndx_status make_kernels(ndx_cl *cl, int wide) {
  cl_program p = cl->program[wide];
  cl_int e;
  for (int k = 0; k < K_KINDS; k++) {
    for (int w = 0; w < NWIDTHS; w++) {
      /* bytes: 1, 2, 4; rows and gather: 8 .. 128; transpose: all */
      if (k != K_TRANSPOSE && (k == K_BYTES) != (w < 3)) continue;
      char name[32];
      snprintf(name, sizeof name, "ndx_%s_%d", ndx_copy_path_name(path_of[k]), 1 << w);
      cl_kernel kr = clCreateKernel(p, name, &e);
      if (e != CL_SUCCESS) return cl_fail("ndx_cl_create", "clCreateKernel", e);
      cl->kernel[wide][k][w] = kr;
      size_t wg = 0;
      e = clGetKernelWorkGroupInfo(kr, cl->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
      if (e != CL_SUCCESS) return cl_fail("ndx_cl_create", "clGetKernelWorkGroupInfo", e);
      cl->local[wide][k][w] = wg < NDX_CL_LOCAL_SIZE && wg > 0 ? wg : NDX_CL_LOCAL_SIZE;
    }
  }
  return NDX_OK;
}

void ndx_cl_destroy(ndx_cl *cl) {
  if (!cl) return;
  ndx_cl_check(cl); /* waits for and frees the pending bounds checks */
  unshare_programs(cl);
  for (int f = 0; f < 2; f++) {
    for (int k = 0; k < K_KINDS; k++)
      for (int w = 0; w < NWIDTHS; w++)
        if (cl->kernel[f][k][w]) clReleaseKernel(cl->kernel[f][k][w]);
    if (cl->program[f]) clReleaseProgram(cl->program[f]);
  }
  pthread_mutex_destroy(&cl->lock);
  clReleaseDevice(cl->device);
  clReleaseContext(cl->context);
  free(cl);
}

ndx_status ndx_cl_create(ndx_cl **out, cl_context context, cl_device_id device) {
  if (!out || !context || !device)
    return ndx_set_error(NDX_EINVAL, "ndx_cl_create: %s is NULL",
                         !out       ? "out"
                         : !context ? "context"
                                    : "device");
  ndx_cl *cl = calloc(1, sizeof *cl);
  if (!cl) return ndx_set_error(NDX_ENOMEM, "ndx_cl_create: out of host memory");
  if (pthread_mutex_init(&cl->lock, NULL) != 0) {
    free(cl);
    return ndx_set_error(NDX_ENOMEM, "ndx_cl_create: pthread_mutex_init failed");
  }
  cl_int e = clRetainContext(context);
  if (e != CL_SUCCESS) {
    pthread_mutex_destroy(&cl->lock);
    free(cl);
    return cl_fail("ndx_cl_create", "clRetainContext", e);
  }
  cl->context = context;
  e = clRetainDevice(device);
  if (e != CL_SUCCESS) {
    clReleaseContext(context);
    pthread_mutex_destroy(&cl->lock);
    free(cl);
    return cl_fail("ndx_cl_create", "clRetainDevice", e);
  }
  cl->device = device;
  ndx_status s = NDX_OK;
  e = clGetDeviceInfo(device, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, sizeof cl->max_constant,
                      &cl->max_constant, NULL);
  if (e != CL_SUCCESS) s = cl_fail("ndx_cl_create", "clGetDeviceInfo", e);
  if (s == NDX_OK && !share_programs(cl)) {
    for (int wide = 0; wide < 2 && s == NDX_OK; wide++) s = build_program(cl, wide);
    if (s == NDX_OK) publish_programs(cl);
  }
  for (int wide = 0; wide < 2 && s == NDX_OK; wide++) s = make_kernels(cl, wide);
  if (s != NDX_OK) {
    ndx_cl_destroy(cl);
    return s;
  }
  *out = cl;
  return NDX_OK;
}

/* ---- Plans ----------------------------------------------------------------- */

/* What ndx_cl's kernels add to the common paths: big contiguous copies by
 * the rows kernel, and rows whose source steps by 0, -1 or 2, which the
 * gather kernel's vectorized run loops copy. */
static const ndx_copy_caps cl_caps = {.rows_from_bytes = NDX_CL_KERNEL_COPY_BYTES,
                                      .strided_runs = true};

static size_t round_up(size_t n, size_t m) {
  return (n + m - 1) / m * m;
}

static int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

static enum kind kind_of(ndx_copy_path path) {
  return path == NDX_PATH_ROWS        ? K_ROWS
         : path == NDX_PATH_TRANSPOSE ? K_TRANSPOSE
         : path == NDX_PATH_BYTES     ? K_BYTES
                                      : K_GATHER;
}

/* The work-items of a kernel plan and the work of each (cl_tuning.h). */
static void geometry(const ndx_copy_plan *p, int64_t *items, int64_t *chunk) {
  const ndx_operands *q = &p->q;
  int r = q->rank;
  *chunk = 0;
  switch (p->path) {
  case NDX_PATH_TRANSPOSE:
    *items = ndx_tile_count(q->numel, q->shape[r - 2], q->shape[r - 1], p->bits);
    return;
  case NDX_PATH_BYTES: {
    int64_t lo, hi, first, end;
    ndx_operands_span(q, 0, &lo, &hi);
    ndx_bytes_span(lo, hi, p->bits, &first, &end);
    /* about NDX_CL_BYTES_ELEMS destination elements per work-item */
    *chunk = ceil_div(NDX_CL_BYTES_ELEMS * (end - first), q->numel);
    if (*chunk < 1) *chunk = 1;
    *items = ceil_div(end - first, *chunk);
    return;
  }
  default: /* rows, gather */
    *chunk = p->path == NDX_PATH_ROWS || p->strided_rows ? NDX_CL_ROWS_BYTES / (p->bits / 8)
                                                         : NDX_CL_GATHER_ELEMS;
    *items = ceil_div(q->numel, *chunk);
  }
}

ndx_status ndx_cl_plan_create_flags(ndx_cl_plan **out, ndx_cl *cl, const ndx_layout *dst_l,
                                    const ndx_layout *src_l, int bits, unsigned flags) {
  static const char fn[] = "ndx_cl_plan_create";
  if (!out || !cl || !dst_l || !src_l)
    return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", fn,
                         !out     ? "out"
                         : !cl    ? "cl"
                         : !dst_l ? "dst_l"
                                  : "src_l");
  if (flags & ~(unsigned)(NDX_CL_PLAN_WIDE | NDX_CL_PLAN_GATHER | NDX_CL_PLAN_UNCHECKED))
    return ndx_set_error(NDX_EINVAL, "%s: flags 0x%x has unknown bits", fn, flags);
  unsigned copy_flags = (flags & NDX_CL_PLAN_WIDE ? NDX_COPY_WIDE : 0u) |
                        (flags & NDX_CL_PLAN_GATHER ? NDX_COPY_GATHER : 0u);
  ndx_copy_plan p;
  ndx_status st = ndx_copy_plan_make(&p, fn, dst_l, src_l, bits, &cl_caps, copy_flags);
  if (st != NDX_OK) return st;
  bool kernel = p.path != NDX_PATH_EMPTY && p.path != NDX_PATH_BUFFER;
  size_t pack_size = ndx_pack_size(&p.q, p.wide);
  if (kernel && pack_size > cl->max_constant)
    return ndx_set_error(NDX_EUNSUPPORTED,
                         "%s: the packed layouts take %zu bytes, past the device's constant buffer "
                         "size %llu",
                         fn, pack_size, (unsigned long long)cl->max_constant);

  ndx_cl_plan *plan = calloc(1, sizeof *plan);
  if (!plan) return ndx_set_error(NDX_ENOMEM, "%s: out of host memory", fn);
  plan->cl = cl;
  plan->path = p.path;
  plan->unchecked = (flags & NDX_CL_PLAN_UNCHECKED) != 0;
  plan->dst_lo = p.dst_lo, plan->dst_end = p.dst_end;
  plan->src_lo = p.src_lo, plan->src_end = p.src_end;
  if (p.path == NDX_PATH_BUFFER) {
    plan->dst_off = (size_t)(p.q.offset[0] * bits / 8);
    plan->src_off = (size_t)(p.q.offset[1] * bits / 8);
    plan->bytes = (size_t)(p.q.numel * bits / 8);
  }
  if (!kernel) {
    *out = plan;
    return NDX_OK;
  }
  int64_t items, chunk;
  geometry(&p, &items, &chunk);
  enum kind kind = kind_of(p.path);
  int w = log2_bits(bits);
  plan->wide = p.wide;
  plan->kernel = cl->kernel[plan->wide][kind][w];
  snprintf(plan->kernel_name, sizeof plan->kernel_name, "ndx_%s_%d", ndx_copy_path_name(p.path),
           bits);
  plan->local = cl->local[plan->wide][kind][w];
  plan->items = (size_t)items;
  plan->global = round_up((size_t)items, plan->local);
  plan->chunk = chunk;
  uint64_t buf[NDX_PACK_MAX_BYTES(2, NDX_PACK_MAX_RANK) / 8];
  st = ndx_copy_plan_pack(&p, buf, sizeof buf);
  cl_int e = CL_SUCCESS;
  if (st == NDX_OK)
    plan->pack =
        clCreateBuffer(cl->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, pack_size, buf, &e);
  if (st == NDX_OK && e != CL_SUCCESS) st = cl_fail(fn, "clCreateBuffer", e);
  if (st != NDX_OK) {
    free(plan);
    return st;
  }
  *out = plan;
  return NDX_OK;
}

ndx_status ndx_cl_plan_create(ndx_cl_plan **out, ndx_cl *cl, const ndx_layout *dst_l,
                              const ndx_layout *src_l, int bits) {
  return ndx_cl_plan_create_flags(out, cl, dst_l, src_l, bits, 0);
}

void ndx_cl_plan_destroy(ndx_cl_plan *plan) {
  if (!plan) return;
  if (plan->pack) clReleaseMemObject(plan->pack);
  free(plan);
}

const char *ndx_cl_plan_path(const ndx_cl_plan *plan) {
  return plan ? ndx_copy_path_name(plan->path) : ndx_copy_path_name(-1);
}

int ndx_cl_plan_wide(const ndx_cl_plan *plan) {
  return plan ? plan->wide : 0;
}

void ndx_cl_plan_work(const ndx_cl_plan *plan, size_t *items, long long *chunk) {
  *items = plan ? plan->items : 0;
  *chunk = plan ? (long long)plan->chunk : 0;
}

/* ---- Enqueue ----------------------------------------------------------------- */

/* What enqueueing needs to know of a buffer argument. */
typedef struct buffer_info {
  cl_mem root;   /* the buffer itself, or the parent of a sub-buffer */
  size_t offset; /* of its first byte in root */
  size_t size;
} buffer_info;

/* Checks that `mem` is a buffer of the plan's context and (unless the plan
 * is unchecked) holds the layout's bytes [lo, end). */
static ndx_status check_buffer(const ndx_cl_plan *plan, cl_mem mem, const char *name, int64_t lo,
                               int64_t end, buffer_info *info) {
  static const char fn[] = "ndx_cl_plan_enqueue";
  cl_mem_object_type type;
  cl_context ctx;
  cl_mem parent = NULL;
  size_t offset = 0;
  cl_int e = clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, NULL);
  if (e == CL_INVALID_MEM_OBJECT)
    return ndx_set_error(NDX_EINVAL, "%s: %s is not a valid cl_mem (clGetMemObjectInfo: %d, %s)",
                         fn, name, (int)e, cl_error_name(e));
  if (e == CL_SUCCESS) e = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL);
  if (e == CL_SUCCESS)
    e = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof info->size, &info->size, NULL);
  if (e == CL_SUCCESS)
    e = clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
  if (e == CL_SUCCESS && parent)
    e = clGetMemObjectInfo(mem, CL_MEM_OFFSET, sizeof offset, &offset, NULL);
  if (e != CL_SUCCESS) return cl_fail(fn, "clGetMemObjectInfo", e);
  if (type != CL_MEM_OBJECT_BUFFER)
    return ndx_set_error(NDX_EINVAL, "%s: %s is a memory object of type 0x%x, not a buffer (0x%x)",
                         fn, name, (unsigned)type, (unsigned)CL_MEM_OBJECT_BUFFER);
  if (ctx != plan->cl->context)
    return ndx_set_error(NDX_EINVAL,
                         "%s: %s belongs to another context (%p) than the ndx_cl's (%p)", fn, name,
                         (void *)ctx, (void *)plan->cl->context);
  if (!plan->unchecked && (uint64_t)end > info->size)
    return ndx_set_error(
        NDX_ERANGE, "%s: %s needs %lld bytes (its layout touches bytes [%lld, %lld)), %s has %zu",
        fn, name, (long long)end, (long long)lo, (long long)end, name, info->size);
  info->root = parent ? parent : mem;
  info->offset = parent ? offset : 0;
  return NDX_OK;
}

/* The violation a bounds-check status reports, as a status and message. */
static ndx_status check_report(const check *c) {
  if (c->host[0] == 0) return NDX_OK;
  int k = c->host[1] != 0;
  uint64_t pos = c->host[2] | (uint64_t)c->host[3] << 32;
  uint64_t need = c->host[4] | (uint64_t)c->host[5] << 32;
  uint64_t item = c->host[6] | (uint64_t)c->host[7] << 32;
  return ndx_set_error(
      NDX_ERANGE,
      "ndx_cl_plan_enqueue: bounds check: kernel %s, work-item %llu: element position "
      "%llu of %s needs %llu bytes, %s has %zu; that work-item copied nothing",
      c->kernel, (unsigned long long)item, (unsigned long long)pos, k ? "src" : "dst",
      (unsigned long long)need, k ? "src" : "dst", c->size[k]);
}

/* Waits for a check's read-back, frees it and returns its report. */
static ndx_status check_finish(check *c) {
  cl_int e = clWaitForEvents(1, &c->read);
  ndx_status s = e == CL_SUCCESS ? check_report(c) : cl_fail("ndx_cl_check", "clWaitForEvents", e);
  clReleaseEvent(c->read);
  clReleaseMemObject(c->status);
  free(c);
  return s;
}

ndx_status ndx_cl_check(ndx_cl *cl) {
  if (!cl) return ndx_set_error(NDX_EINVAL, "ndx_cl_check: cl is NULL");
  pthread_mutex_lock(&cl->lock);
  check *c = cl->pending;
  cl->pending = NULL;
  pthread_mutex_unlock(&cl->lock);
  /* the list is newest first: report the oldest violation */
  ndx_status s = NDX_OK;
  while (c) {
    check *next = c->next;
    ndx_status t = check_finish(c);
    if (t != NDX_OK) s = t;
    c = next;
  }
  return s;
}

/* Enqueues the plan's kernel; in the bounds-check build with its status
 * buffer and read-back. */
static ndx_status enqueue_kernel(const ndx_cl_plan *plan, cl_command_queue queue, cl_mem dst,
                                 cl_mem src, const buffer_info *bd, const buffer_info *bs,
                                 cl_uint nwait, const cl_event *wait, cl_event *done) {
  static const char fn[] = "ndx_cl_plan_enqueue";
  ndx_cl *cl = plan->cl;
  check *c = NULL;
  cl_int e;
  if (NDX_BOUNDS_CHECK) {
    c = calloc(1, sizeof *c);
    if (!c) return ndx_set_error(NDX_ENOMEM, "%s: out of host memory", fn);
    c->status = clCreateBuffer(cl->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               sizeof c->host, c->host, &e);
    if (e != CL_SUCCESS) {
      free(c);
      return cl_fail(fn, "clCreateBuffer", e);
    }
    snprintf(c->kernel, sizeof c->kernel, "%s%s", plan->kernel_name, plan->wide ? " (64-bit)" : "");
    c->size[0] = bd->size;
    c->size[1] = bs->size;
  }
  cl_event ev = NULL;
  const char *call = "clSetKernelArg";
  pthread_mutex_lock(&cl->lock);
  e = clSetKernelArg(plan->kernel, 0, sizeof(cl_mem), &plan->pack);
  if (e == CL_SUCCESS) e = clSetKernelArg(plan->kernel, 1, sizeof(cl_mem), &dst);
  if (e == CL_SUCCESS) e = clSetKernelArg(plan->kernel, 2, sizeof(cl_mem), &src);
  if (e == CL_SUCCESS) e = clSetKernelArg(plan->kernel, 3, sizeof(cl_long), &plan->chunk);
  if (c) {
    cl_ulong sd = bd->size, ss = bs->size;
    if (e == CL_SUCCESS) e = clSetKernelArg(plan->kernel, 4, sizeof sd, &sd);
    if (e == CL_SUCCESS) e = clSetKernelArg(plan->kernel, 5, sizeof ss, &ss);
    if (e == CL_SUCCESS) e = clSetKernelArg(plan->kernel, 6, sizeof(cl_mem), &c->status);
  }
  if (e == CL_SUCCESS) {
    call = "clEnqueueNDRangeKernel";
    e = clEnqueueNDRangeKernel(queue, plan->kernel, 1, NULL, &plan->global, &plan->local, nwait,
                               wait, c || done ? &ev : NULL);
  }
  pthread_mutex_unlock(&cl->lock);
  if (e != CL_SUCCESS) {
    if (c) {
      clReleaseMemObject(c->status);
      free(c);
    }
    return cl_fail(fn, call, e);
  }
  if (c) {
    e = clEnqueueReadBuffer(queue, c->status, CL_FALSE, 0, sizeof c->host, c->host, 1, &ev,
                            &c->read);
    if (e != CL_SUCCESS) {
      /* the queued kernel holds c->status: no need to wait for it (it may
       * wait for the host) */
      clReleaseEvent(ev);
      clReleaseMemObject(c->status);
      free(c);
      return cl_fail(fn, "clEnqueueReadBuffer", e);
    }
    if (nwait == 0) {
      ndx_status s = check_finish(c);
      if (s != NDX_OK) {
        clReleaseEvent(ev);
        return s;
      }
    } else {
      pthread_mutex_lock(&cl->lock);
      c->next = cl->pending;
      cl->pending = c;
      pthread_mutex_unlock(&cl->lock);
    }
  }
  if (done)
    *done = ev;
  else if (ev)
    clReleaseEvent(ev);
  return NDX_OK;
}

ndx_status ndx_cl_plan_enqueue(const ndx_cl_plan *plan, cl_command_queue queue, cl_mem dst,
                               cl_mem src, cl_uint nwait, const cl_event *wait, cl_event *done) {
  static const char fn[] = "ndx_cl_plan_enqueue";
  if (!plan || !queue || !dst || !src)
    return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", fn,
                         !plan    ? "plan"
                         : !queue ? "queue"
                         : !dst   ? "dst"
                                  : "src");
  if ((nwait > 0) != (wait != NULL))
    return ndx_set_error(NDX_EINVAL, "%s: nwait is %u but wait is %s", fn, (unsigned)nwait,
                         wait ? "not NULL" : "NULL");
  cl_context ctx;
  cl_device_id dev;
  cl_int e = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL);
  if (e == CL_SUCCESS) e = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
  if (e != CL_SUCCESS) return cl_fail(fn, "clGetCommandQueueInfo", e);
  if (ctx != plan->cl->context || dev != plan->cl->device)
    return ndx_set_error(NDX_EINVAL, "%s: queue belongs to another %s than the ndx_cl's", fn,
                         ctx != plan->cl->context ? "context" : "device");
  buffer_info bd, bs;
  ndx_status s = check_buffer(plan, dst, "dst", plan->dst_lo, plan->dst_end, &bd);
  if (s == NDX_OK) s = check_buffer(plan, src, "src", plan->src_lo, plan->src_end, &bs);
  if (s != NDX_OK) return s;
  /* bytes of one buffer (or of sub-buffers of one buffer), in its coordinates */
  uint64_t d0 = bd.offset + (uint64_t)plan->dst_lo, d1 = bd.offset + (uint64_t)plan->dst_end;
  uint64_t s0 = bs.offset + (uint64_t)plan->src_lo, s1 = bs.offset + (uint64_t)plan->src_end;
  if (bd.root == bs.root && d0 < s1 && s0 < d1)
    return ndx_set_error(
        NDX_EINVAL, "%s: dst and src are %s and the layouts share bytes [%llu, %llu)%s", fn,
        dst == src ? "one buffer" : "sub-buffers of one buffer",
        (unsigned long long)(d0 > s0 ? d0 : s0), (unsigned long long)(d1 < s1 ? d1 : s1),
        dst == src ? "" : " of their parent");
  switch (plan->path) {
  case NDX_PATH_EMPTY:
    if (done || nwait) {
      e = clEnqueueMarkerWithWaitList(queue, nwait, wait, done);
      if (e != CL_SUCCESS) return cl_fail(fn, "clEnqueueMarkerWithWaitList", e);
    }
    return NDX_OK;
  case NDX_PATH_BUFFER:
    e = clEnqueueCopyBuffer(queue, src, dst, plan->src_off, plan->dst_off, plan->bytes, nwait, wait,
                            done);
    if (e != CL_SUCCESS) return cl_fail(fn, "clEnqueueCopyBuffer", e);
    return NDX_OK;
  default:
    return enqueue_kernel(plan, queue, dst, src, &bd, &bs, nwait, wait, done);
  }
}

ndx_status ndx_cl_copy(ndx_cl *cl, cl_command_queue queue, cl_mem dst, const ndx_layout *dst_l,
                       cl_mem src, const ndx_layout *src_l, int bits, cl_uint nwait,
                       const cl_event *wait, cl_event *done) {
  ndx_cl_plan *plan;
  ndx_status s = ndx_cl_plan_create(&plan, cl, dst_l, src_l, bits);
  if (s != NDX_OK) return s;
  /* Releasing the pack right after the enqueue is legal: the queued command
   * keeps it alive. */
  s = ndx_cl_plan_enqueue(plan, queue, dst, src, nwait, wait, done);
  ndx_cl_plan_destroy(plan);
  return s;
}
