/* cl.c: the OpenCL runtime of ndx_cl.h: ndx_cl objects, copy plans,
 * buffer checks, reports and enqueue (the programs: cl_program.c).
 *
 * A plan is the shared planner's (host/copy_plan.h: path, axis order and
 * form chosen on plain operands; host/launch.h: the launch descriptor, from
 * this runtime's tuned sizes, cl_tuning.h) and its kernel, built the first
 * time any plan needs it (cl_program.c); its descriptor and pack, written
 * once at the end, go into a small read-only buffer passed as a __constant
 * argument. Enqueueing sets the kernel's arguments and enqueues under the
 * ndx_cl's mutex, so that threads never interleave the two (OpenCL's
 * clSetKernelArg is not thread-safe on one cl_kernel; the enqueue captures
 * the arguments, so the lock is held for those two calls only). Every
 * refusal names the call the user made: ndx_cl_copy, or the plan call.
 *
 * With NDX_BOUNDS_CHECK (meson option bounds_check) the kernels are built
 * with -DNDX_BOUNDS_CHECK and check every element against the buffer sizes
 * (kernels/ndx_copy.cl); each kernel enqueue then gets a small status buffer
 * whose read-back reports a violation (ndx_cl_plan_enqueue, ndx_cl_check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_runtime.h"
#include "cl_tuning.h"
#include "host/copy_plan.h"
#include "host/launch.h"
#include "host/ndx_internal.h"
#include "ndx_launch.h"

const char *ndx_cl_error_name(cl_int e) {
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

ndx_status ndx_cl_fail(const char *fn, const char *call, cl_int e) {
  return ndx_set_error(NDX_EDEVICE, "%s: %s failed: %d (%s)", fn, call, (int)e,
                       ndx_cl_error_name(e));
}

/* ---- Objects ---------------------------------------------------------------- */

void ndx_cl_destroy(ndx_cl *cl) {
  if (!cl) return;
  ndx_cl_check(cl); /* waits for and frees the pending reports */
  ndx_cl_release_kernels(cl);
  ndx_cl_group_leave(cl);
  pthread_mutex_destroy(&cl->lock);
  clReleaseDevice(cl->device);
  clReleaseContext(cl->context);
  free(cl);
}

/* The shape of `device`'s kernels: NDX_CL_SHAPE's value where it is set,
 * else "gpu" for GPUs and accelerators and "cpu" for the rest. */
static ndx_status shape_of(const char *fn, cl_device_id device, const char **shape) {
  const char *env = getenv("NDX_CL_SHAPE");
  if (env && *env) {
    if (strcmp(env, "gpu") != 0 && strcmp(env, "cpu") != 0)
      return ndx_set_error(NDX_EINVAL,
                           "%s: the environment variable NDX_CL_SHAPE is \"%.32s\": it takes "
                           "gpu or cpu",
                           fn, env);
    *shape = env[0] == 'g' ? "gpu" : "cpu";
    return NDX_OK;
  }
  cl_device_type type = 0;
  cl_int e = clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  if (e != CL_SUCCESS) return ndx_cl_fail(fn, "clGetDeviceInfo", e);
  *shape = type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR) ? "gpu" : "cpu";
  return NDX_OK;
}

ndx_status ndx_cl_device_shape(cl_device_id device, const char **shape) {
  if (!device || !shape)
    return ndx_set_error(NDX_EINVAL, "ndx_cl_device_shape: %s is NULL",
                         !device ? "device" : "shape");
  return shape_of("ndx_cl_device_shape", device, shape);
}

const char *ndx_cl_shape(const ndx_cl *cl) {
  return !cl ? NULL : cl->shape == NDX_CL_SHAPE_GPU ? "gpu" : "cpu";
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
    return ndx_cl_fail("ndx_cl_create", "clRetainContext", e);
  }
  cl->context = context;
  e = clRetainDevice(device);
  if (e != CL_SUCCESS) {
    clReleaseContext(context);
    pthread_mutex_destroy(&cl->lock);
    free(cl);
    return ndx_cl_fail("ndx_cl_create", "clRetainDevice", e);
  }
  cl->device = device;
  ndx_status s = NDX_OK;
  e = clGetDeviceInfo(device, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, sizeof cl->max_constant,
                      &cl->max_constant, NULL);
  if (e != CL_SUCCESS) s = ndx_cl_fail("ndx_cl_create", "clGetDeviceInfo", e);
  cl_ulong cache = 0;
  if (s == NDX_OK) {
    e = clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL);
    if (e != CL_SUCCESS) s = ndx_cl_fail("ndx_cl_create", "clGetDeviceInfo", e);
  }
  cl->stream_bytes = NDX_CL_STREAM_CACHE_SHARE(cache);
  const char *shape = NULL;
  if (s == NDX_OK) s = shape_of("ndx_cl_create", device, &shape);
  if (s == NDX_OK) cl->shape = shape[0] == 'g' ? NDX_CL_SHAPE_GPU : NDX_CL_SHAPE_CPU;
  if (s == NDX_OK) s = ndx_cl_group_join(cl);
  if (s != NDX_OK) {
    ndx_cl_destroy(cl);
    return s;
  }
  *out = cl;
  return NDX_OK;
}

/* ---- Plans ----------------------------------------------------------------- */

/* What the cpu shape's kernels add to the common paths: big contiguous
 * copies by the rows kernel, and rows whose source steps by 0, -1 or 2,
 * which the gather kernel's vectorized run loops copy. (The gpu shape's:
 * ndx_gpu_caps, host/launch.h.) */
static const ndx_copy_caps cl_cpu_caps = {.rows_from_bytes = NDX_CL_KERNEL_COPY_BYTES,
                                          .strided_runs = true};

/* The cpu shape's work per work-item (cl_tuning.h). */
static const ndx_cpu_tuning cl_cpu_tuning = {.rows_bytes = NDX_CL_ROWS_BYTES,
                                             .gather_elems = NDX_CL_GATHER_ELEMS,
                                             .bytes_elems = NDX_CL_BYTES_ELEMS,
                                             .tile_elems = NDX_CL_TILE_ELEMS};

static enum ndx_cl_kind kind_of(ndx_copy_path path) {
  return path == NDX_PATH_ROWS        ? NDX_CL_ROWS
         : path == NDX_PATH_TRANSPOSE ? NDX_CL_TRANSPOSE
         : path == NDX_PATH_BYTES     ? NDX_CL_BYTES
                                      : NDX_CL_GATHER;
}

ndx_status ndx_cl_launch_fits(const char *fn, const ndx_cl *cl, const ndx_copy_plan *p) {
  size_t launch_size = sizeof(ndx_launch) + ndx_pack_size(&p->q, p->wide);
  if (launch_size <= cl->max_constant) return NDX_OK;
  return ndx_set_error(NDX_EUNSUPPORTED,
                       "%s: the launch descriptor and packed layouts take %zu bytes, past the "
                       "device's constant buffer size %llu",
                       fn, launch_size, (unsigned long long)cl->max_constant);
}

ndx_status ndx_cl_plan_launch(const char *fn, ndx_cl_plan *plan, const ndx_copy_plan *p,
                              const ndx_launch *d, int64_t items) {
  uint64_t buf[(sizeof(ndx_launch) + NDX_PACK_MAX_BYTES(2, NDX_PACK_MAX_RANK)) / 8];
  memcpy(buf, d, sizeof *d);
  plan->items = (size_t)items;
  plan->global = ndx_round_up((size_t)items, plan->local);
  plan->chunk = d->chunk;
  ndx_status s = ndx_copy_plan_pack(p, buf + sizeof *d / 8, sizeof buf - sizeof *d);
  if (s != NDX_OK) return s;
  cl_int e;
  plan->launch = clCreateBuffer(plan->cl->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                sizeof(ndx_launch) + ndx_pack_size(&p->q, p->wide), buf, &e);
  return e == CL_SUCCESS ? NDX_OK : ndx_cl_fail(fn, "clCreateBuffer", e);
}

/* ndx_cl_plan_create_flags for call `fn`. */
static ndx_status plan_create(const char *fn, ndx_cl_plan **out, ndx_cl *cl,
                              const ndx_layout *dst_l, const ndx_layout *src_l, int bits,
                              unsigned flags) {
  if (!out || !cl || !dst_l || !src_l)
    return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", fn,
                         !out     ? "out"
                         : !cl    ? "cl"
                         : !dst_l ? "dst_l"
                                  : "src_l");
  if (flags & ~(unsigned)(NDX_CL_PLAN_WIDE | NDX_CL_PLAN_UNCHECKED))
    return ndx_set_error(NDX_EINVAL, "%s: flags 0x%x has unknown bits", fn, flags);
  unsigned copy_flags = flags & NDX_CL_PLAN_WIDE ? NDX_COPY_WIDE : 0u;
  ndx_copy_plan p;
  ndx_status st =
      ndx_copy_plan_make(&p, fn, dst_l, src_l, bits,
                         cl->shape == NDX_CL_SHAPE_GPU ? &ndx_gpu_caps : &cl_cpu_caps, copy_flags);
  if (st != NDX_OK) return st;
  bool kernel = p.path != NDX_PATH_EMPTY && p.path != NDX_PATH_BUFFER;
  if (kernel) st = ndx_cl_launch_fits(fn, cl, &p);
  if (st != NDX_OK) return st;

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
  plan->wide = p.wide;
  st = ndx_cl_kernel(cl, fn, p.wide, kind_of(p.path), bits, &plan->kernel, &plan->local);
  if (st != NDX_OK) {
    free(plan);
    return st;
  }
  snprintf(plan->kernel_name, sizeof plan->kernel_name, "ndx_%s for %d-bit elements",
           ndx_copy_path_name(p.path), bits);
  ndx_launch d;
  memset(&d, 0, sizeof d);
  int64_t items;
  if (cl->shape == NDX_CL_SHAPE_GPU) {
    ndx_launch_gpu(&p, (int64_t)plan->local, NDX_CL_GPU_MAX_GROUPS, &d, &items);
    items *= (int64_t)plan->local;
  } else {
    ndx_launch_cpu(&p, &cl_cpu_tuning, &d, &items);
  }
  st = ndx_cl_plan_launch(fn, plan, &p, &d, items);
  if (st != NDX_OK) {
    free(plan);
    return st;
  }
  *out = plan;
  return NDX_OK;
}

ndx_status ndx_cl_plan_create_flags(ndx_cl_plan **out, ndx_cl *cl, const ndx_layout *dst_l,
                                    const ndx_layout *src_l, int bits, unsigned flags) {
  return plan_create("ndx_cl_plan_create", out, cl, dst_l, src_l, bits, flags);
}

ndx_status ndx_cl_plan_create(ndx_cl_plan **out, ndx_cl *cl, const ndx_layout *dst_l,
                              const ndx_layout *src_l, int bits) {
  return plan_create("ndx_cl_plan_create", out, cl, dst_l, src_l, bits, 0);
}

void ndx_cl_plan_destroy(ndx_cl_plan *plan) {
  if (!plan) return;
  if (plan->launch) clReleaseMemObject(plan->launch);
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

/* ---- Arguments --------------------------------------------------------------- */

ndx_status ndx_cl_check_queue(const ndx_cl *cl, const char *fn, cl_command_queue queue) {
  cl_context ctx;
  cl_device_id dev;
  cl_int e = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL);
  if (e == CL_SUCCESS) e = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
  if (e != CL_SUCCESS) return ndx_cl_fail(fn, "clGetCommandQueueInfo", e);
  if (ctx != cl->context || dev != cl->device)
    return ndx_set_error(NDX_EINVAL, "%s: queue belongs to another %s than the ndx_cl's", fn,
                         ctx != cl->context ? "context" : "device");
  return NDX_OK;
}

ndx_status ndx_cl_check_buffer(const ndx_cl *cl, const char *fn, cl_mem mem, const char *name,
                               int64_t lo, int64_t end, bool unchecked, ndx_cl_buffer *info) {
  cl_mem_object_type type;
  cl_context ctx;
  cl_mem parent = NULL;
  size_t offset = 0;
  cl_int e = clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, NULL);
  if (e == CL_INVALID_MEM_OBJECT)
    return ndx_set_error(NDX_EINVAL, "%s: %s is not a valid cl_mem (clGetMemObjectInfo: %d, %s)",
                         fn, name, (int)e, ndx_cl_error_name(e));
  if (e == CL_SUCCESS) e = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL);
  if (e == CL_SUCCESS)
    e = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof info->size, &info->size, NULL);
  if (e == CL_SUCCESS)
    e = clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
  if (e == CL_SUCCESS && parent)
    e = clGetMemObjectInfo(mem, CL_MEM_OFFSET, sizeof offset, &offset, NULL);
  if (e != CL_SUCCESS) return ndx_cl_fail(fn, "clGetMemObjectInfo", e);
  if (type != CL_MEM_OBJECT_BUFFER)
    return ndx_set_error(NDX_EINVAL, "%s: %s is a memory object of type 0x%x, not a buffer (0x%x)",
                         fn, name, (unsigned)type, (unsigned)CL_MEM_OBJECT_BUFFER);
  if (ctx != cl->context)
    return ndx_set_error(NDX_EINVAL,
                         "%s: %s belongs to another context (%p) than the ndx_cl's (%p)", fn, name,
                         (void *)ctx, (void *)cl->context);
  if (!unchecked && (uint64_t)end > info->size)
    return ndx_set_error(
        NDX_ERANGE, "%s: %s needs %lld bytes (its layout touches bytes [%lld, %lld)), %s has %zu",
        fn, name, (long long)end, (long long)lo, (long long)end, name, info->size);
  info->root = parent ? parent : mem;
  info->offset = parent ? offset : 0;
  return NDX_OK;
}

ndx_status ndx_cl_check_disjoint(const char *fn, const char *na, cl_mem a, const ndx_cl_buffer *ia,
                                 int64_t alo, int64_t aend, const char *nb, cl_mem b,
                                 const ndx_cl_buffer *ib, int64_t blo, int64_t bend) {
  /* bytes of one buffer (or of sub-buffers of one buffer), in its coordinates */
  uint64_t a0 = ia->offset + (uint64_t)alo, a1 = ia->offset + (uint64_t)aend;
  uint64_t b0 = ib->offset + (uint64_t)blo, b1 = ib->offset + (uint64_t)bend;
  if (ia->root != ib->root || a0 >= b1 || b0 >= a1) return NDX_OK;
  return ndx_set_error(
      NDX_EINVAL, "%s: %s and %s are %s and the layouts share bytes [%llu, %llu)%s", fn, na, nb,
      a == b ? "one buffer" : "sub-buffers of one buffer", (unsigned long long)(a0 > b0 ? a0 : b0),
      (unsigned long long)(a1 < b1 ? a1 : b1), a == b ? "" : " of their parent");
}

/* ---- Reports -------------------------------------------------------------------- */

ndx_status ndx_cl_report_on(ndx_cl *cl, const char *fn, cl_mem status, ndx_cl_report **out) {
  ndx_cl_report *r = calloc(1, sizeof *r);
  if (!r) return ndx_set_error(NDX_ENOMEM, "%s: out of host memory", fn);
  clRetainMemObject(status);
  r->status = status;
  r->fn = fn;
  pthread_mutex_lock(&cl->lock);
  r->seq = cl->seq++;
  pthread_mutex_unlock(&cl->lock);
  *out = r;
  return NDX_OK;
}

ndx_status ndx_cl_report_new(ndx_cl *cl, const char *fn, ndx_cl_report **out) {
  cl_uint zero[8] = {0};
  cl_int e;
  cl_mem status =
      clCreateBuffer(cl->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, zero, &e);
  if (e != CL_SUCCESS) return ndx_cl_fail(fn, "clCreateBuffer", e);
  ndx_status s = ndx_cl_report_on(cl, fn, status, out);
  clReleaseMemObject(status); /* the report holds it now, or nothing does */
  return s;
}

void ndx_cl_report_free(ndx_cl_report *r) {
  if (!r) return;
  if (r->read) clReleaseEvent(r->read);
  clReleaseMemObject(r->status);
  free(r);
}

/* What a read-back status says, as a status and message. */
static ndx_status report_status(const ndx_cl_report *r) {
  if (r->host[0] == 0) return NDX_OK;
  if (r->site.call)
    return ndx_index_fault(&r->site, (int64_t)(r->host[1] | (uint64_t)r->host[2] << 32),
                           (int64_t)(r->host[3] | (uint64_t)r->host[4] << 32));
  static const char *const names[3] = {"dst", "src", "index"};
  int k = r->host[1] < 3 ? (int)r->host[1] : 2;
  uint64_t pos = r->host[2] | (uint64_t)r->host[3] << 32;
  uint64_t need = r->host[4] | (uint64_t)r->host[5] << 32;
  uint64_t item = r->host[6] | (uint64_t)r->host[7] << 32;
  return ndx_set_error(NDX_ERANGE,
                       "%s: bounds check: kernel %s, work-item %llu: element position "
                       "%llu of %s needs %llu bytes, %s has %zu; that work-item copied nothing",
                       r->fn, r->kernel, (unsigned long long)item, (unsigned long long)pos,
                       names[k], (unsigned long long)need, names[k], r->size[k]);
}

/* Waits for a report's read-back, frees it and returns what it says. */
static ndx_status report_finish(ndx_cl_report *r) {
  cl_int e = clWaitForEvents(1, &r->read);
  ndx_status s = e == CL_SUCCESS ? report_status(r) : ndx_cl_fail(r->fn, "clWaitForEvents", e);
  ndx_cl_report_free(r);
  return s;
}

ndx_status ndx_cl_report_enqueue(ndx_cl *cl, const char *fn, ndx_cl_report *r,
                                 cl_command_queue queue, cl_event after, cl_event *read) {
  cl_int e = clEnqueueReadBuffer(queue, r->status, CL_FALSE, 0, sizeof r->host, r->host, 1, &after,
                                 &r->read);
  if (e != CL_SUCCESS) {
    /* the queued kernel holds r->status: no need to wait for it (it may
     * wait for the host) */
    r->read = NULL;
    ndx_cl_report_free(r);
    return ndx_cl_fail(fn, "clEnqueueReadBuffer", e);
  }
  /* pending from here: the read-back writes r->host until it ends */
  r->next = NULL;
  pthread_mutex_lock(&cl->lock);
  if (cl->pending_last)
    cl->pending_last->next = r;
  else
    cl->pending = r;
  cl->pending_last = r;
  cl_event ev = r->read; /* r may be reaped by another thread once the lock is released */
  if (read) e = clRetainEvent(ev);
  pthread_mutex_unlock(&cl->lock);
  if (e != CL_SUCCESS) return ndx_cl_fail(fn, "clRetainEvent", e);
  if (read) *read = ev;
  return NDX_OK;
}

/* Keeps `r`, a fault read back, when it is older than the one kept. */
static void keep_fault(ndx_cl *cl, ndx_cl_report *r) {
  if (cl->kept && cl->kept->seq < r->seq) {
    ndx_cl_report_free(r);
    return;
  }
  ndx_cl_report_free(cl->kept);
  r->next = NULL;
  cl->kept = r;
}

/* Oldest first, up to the first report not yet read back: each call costs
 * what it frees, not the length of the list (reports behind an unfinished
 * one wait for a later call). */
void ndx_cl_reap(ndx_cl *cl) {
  pthread_mutex_lock(&cl->lock);
  while (cl->pending) {
    ndx_cl_report *r = cl->pending;
    cl_int done = CL_QUEUED;
    if (clGetEventInfo(r->read, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof done, &done, NULL) !=
            CL_SUCCESS ||
        done != CL_COMPLETE)
      break;
    cl->pending = r->next;
    if (r->host[0])
      keep_fault(cl, r);
    else
      ndx_cl_report_free(r);
  }
  if (!cl->pending) cl->pending_last = NULL;
  pthread_mutex_unlock(&cl->lock);
}

ndx_status ndx_cl_check(ndx_cl *cl) {
  if (!cl) return ndx_set_error(NDX_EINVAL, "ndx_cl_check: cl is NULL");
  pthread_mutex_lock(&cl->lock);
  ndx_cl_report *r = cl->pending, *oldest = cl->kept;
  cl->pending = cl->pending_last = cl->kept = NULL;
  pthread_mutex_unlock(&cl->lock);
  cl_int failed = CL_SUCCESS;
  while (r) {
    ndx_cl_report *next = r->next;
    cl_int e = clWaitForEvents(1, &r->read);
    if (e != CL_SUCCESS) failed = e;
    if (e == CL_SUCCESS && r->host[0] && (!oldest || r->seq < oldest->seq)) {
      ndx_cl_report_free(oldest);
      oldest = r;
    } else {
      ndx_cl_report_free(r);
    }
    r = next;
  }
  ndx_status s = NDX_OK;
  if (oldest)
    s = report_status(oldest);
  else if (failed != CL_SUCCESS)
    s = ndx_cl_fail("ndx_cl_check", "clWaitForEvents", failed);
  ndx_cl_report_free(oldest);
  return s;
}

/* ---- Enqueue ----------------------------------------------------------------- */

/* Enqueues the plan's kernel; in the bounds-check build with its status
 * buffer and read-back. */
static ndx_status enqueue_kernel(const char *fn, const ndx_cl_plan *plan, cl_command_queue queue,
                                 cl_mem dst, cl_mem src, const ndx_cl_buffer *bd,
                                 const ndx_cl_buffer *bs, cl_uint nwait, const cl_event *wait,
                                 cl_event *done) {
  ndx_cl *cl = plan->cl;
  ndx_cl_report *c = NULL;
  cl_int e;
  if (NDX_BOUNDS_CHECK) {
    ndx_status s = ndx_cl_report_new(cl, fn, &c);
    if (s != NDX_OK) return s;
    snprintf(c->kernel, sizeof c->kernel, "%s%s", plan->kernel_name,
             plan->wide ? ", 64-bit form" : "");
    c->size[0] = bd->size;
    c->size[1] = bs->size;
  }
  cl_event ev = NULL;
  const char *call = "clSetKernelArg";
  pthread_mutex_lock(&cl->lock);
  e = clSetKernelArg(plan->kernel, 0, sizeof(cl_mem), &plan->launch);
  if (e == CL_SUCCESS) e = clSetKernelArg(plan->kernel, 1, sizeof(cl_mem), &dst);
  if (e == CL_SUCCESS) e = clSetKernelArg(plan->kernel, 2, sizeof(cl_mem), &src);
  if (c) {
    cl_ulong sd = bd->size, ss = bs->size;
    if (e == CL_SUCCESS) e = clSetKernelArg(plan->kernel, 3, sizeof sd, &sd);
    if (e == CL_SUCCESS) e = clSetKernelArg(plan->kernel, 4, sizeof ss, &ss);
    if (e == CL_SUCCESS) e = clSetKernelArg(plan->kernel, 5, sizeof(cl_mem), &c->status);
  }
  if (e == CL_SUCCESS) {
    call = "clEnqueueNDRangeKernel";
    e = clEnqueueNDRangeKernel(queue, plan->kernel, 1, NULL, &plan->global, &plan->local, nwait,
                               wait, c || done ? &ev : NULL);
  }
  pthread_mutex_unlock(&cl->lock);
  if (e != CL_SUCCESS) {
    ndx_cl_report_free(c);
    return ndx_cl_fail(fn, call, e);
  }
  if (c) {
    if (nwait == 0) { /* this build waits for a copy with no wait list */
      e = clEnqueueReadBuffer(queue, c->status, CL_FALSE, 0, sizeof c->host, c->host, 1, &ev,
                              &c->read);
      if (e != CL_SUCCESS) {
        clReleaseEvent(ev);
        ndx_cl_report_free(c);
        return ndx_cl_fail(fn, "clEnqueueReadBuffer", e);
      }
      ndx_status s = report_finish(c);
      if (s != NDX_OK) {
        clReleaseEvent(ev);
        return s;
      }
    } else {
      ndx_status s = ndx_cl_report_enqueue(cl, fn, c, queue, ev, NULL);
      if (s != NDX_OK) {
        clReleaseEvent(ev);
        return s;
      }
    }
  }
  if (done)
    *done = ev;
  else if (ev)
    clReleaseEvent(ev);
  return NDX_OK;
}

ndx_status ndx_cl_plan_enqueue_as(const char *fn, const ndx_cl_plan *plan, cl_command_queue queue,
                                  cl_mem dst, cl_mem src, cl_uint nwait, const cl_event *wait,
                                  cl_event *done) {
  if (!plan || !queue || !dst || !src)
    return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", fn,
                         !plan    ? "plan"
                         : !queue ? "queue"
                         : !dst   ? "dst"
                                  : "src");
  if ((nwait > 0) != (wait != NULL))
    return ndx_set_error(NDX_EINVAL, "%s: nwait is %u but wait is %s", fn, (unsigned)nwait,
                         wait ? "not NULL" : "NULL");
  ndx_status s = ndx_cl_check_queue(plan->cl, fn, queue);
  if (s != NDX_OK) return s;
  ndx_cl_buffer bd, bs;
  s = ndx_cl_check_buffer(plan->cl, fn, dst, "dst", plan->dst_lo, plan->dst_end, plan->unchecked,
                          &bd);
  if (s == NDX_OK)
    s = ndx_cl_check_buffer(plan->cl, fn, src, "src", plan->src_lo, plan->src_end, plan->unchecked,
                            &bs);
  if (s == NDX_OK)
    s = ndx_cl_check_disjoint(fn, "dst", dst, &bd, plan->dst_lo, plan->dst_end, "src", src, &bs,
                              plan->src_lo, plan->src_end);
  if (s != NDX_OK) return s;
  cl_int e;
  switch (plan->path) {
  case NDX_PATH_EMPTY:
    if (done || nwait) {
      e = clEnqueueMarkerWithWaitList(queue, nwait, wait, done);
      if (e != CL_SUCCESS) return ndx_cl_fail(fn, "clEnqueueMarkerWithWaitList", e);
    }
    return NDX_OK;
  case NDX_PATH_BUFFER:
    e = clEnqueueCopyBuffer(queue, src, dst, plan->src_off, plan->dst_off, plan->bytes, nwait, wait,
                            done);
    if (e != CL_SUCCESS) return ndx_cl_fail(fn, "clEnqueueCopyBuffer", e);
    return NDX_OK;
  default:
    return enqueue_kernel(fn, plan, queue, dst, src, &bd, &bs, nwait, wait, done);
  }
}

ndx_status ndx_cl_plan_enqueue(const ndx_cl_plan *plan, cl_command_queue queue, cl_mem dst,
                               cl_mem src, cl_uint nwait, const cl_event *wait, cl_event *done) {
  return ndx_cl_plan_enqueue_as("ndx_cl_plan_enqueue", plan, queue, dst, src, nwait, wait, done);
}

ndx_status ndx_cl_copy_as(const char *fn, ndx_cl *cl, cl_command_queue queue, cl_mem dst,
                          const ndx_layout *dst_l, cl_mem src, const ndx_layout *src_l, int bits,
                          cl_uint nwait, const cl_event *wait, cl_event *done) {
  if (!cl || !queue || !dst || !src)
    return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", fn,
                         !cl      ? "cl"
                         : !queue ? "queue"
                         : !dst   ? "dst"
                                  : "src");
  ndx_cl_plan *plan;
  ndx_status s = plan_create(fn, &plan, cl, dst_l, src_l, bits, 0);
  if (s != NDX_OK) return s;
  /* Releasing the pack right after the enqueue is legal: the queued command
   * keeps it alive. */
  s = ndx_cl_plan_enqueue_as(fn, plan, queue, dst, src, nwait, wait, done);
  ndx_cl_plan_destroy(plan);
  return s;
}

ndx_status ndx_cl_copy(ndx_cl *cl, cl_command_queue queue, cl_mem dst, const ndx_layout *dst_l,
                       cl_mem src, const ndx_layout *src_l, int bits, cl_uint nwait,
                       const cl_event *wait, cl_event *done) {
  return ndx_cl_copy_as("ndx_cl_copy", cl, queue, dst, dst_l, src, src_l, bits, nwait, wait, done);
}
