/* cl_convert.c: ndx_cl_convert, a copy that converts each element's value
 * between two number types (ndx_dtype.h; the rules: kernels/ndx_convert.h).
 *
 * A conversion is planned as a copy is (the shared planner, host/
 * copy_plan.h: arguments checked once, the pair coalesced and normalized
 * for the destination, the pack written at the end), at the destination's
 * width, and runs one kernel of kernels/ndx_convert.cl for its pair of
 * types: ndx_convert element by element for destinations of 8 bits and up,
 * for what the planner makes a transpose ndx_convert_tile on the cpu shape
 * and ndx_convert_transpose, the copy's tiles converting between load and
 * store (ndx_launch_gpu_convert), on the gpu shape (there into 4-bit
 * destinations too), and ndx_convert_bytes a destination byte at a time
 * for the other 4-bit destinations, so that no two work-items write one
 * byte. The family and the geometry
 * are the shared planner's (ndx_convert_choose and ndx_launch_convert,
 * host/launch.h), from the
 * shape's sizes: the cpu shape gives each work-item NDX_CL_CONVERT_ELEMS
 * elements (half as many destination bytes, or one tile of
 * NDX_CL_CONVERT_TILE_K x NDX_CL_CONVERT_TILE_J), the gpu shape one unit
 * at a time over the launch (cl_tuning.h). Enqueueing is the copy's
 * (ndx_cl_plan_enqueue_as): the same buffer checks, bounds-check reports
 * and events. */
#include <stdio.h>
#include <string.h>

#include "cl_runtime.h"
#include "cl_tuning.h"
#include "host/launch.h"
#include "host/ndx_internal.h"
#include "ndx/ndx_dtype.h"

/* The cpu shape's conversion sizes (cl_tuning.h); the gpu shape's are
 * its kernel's work-group size and NDX_CL_GPU_MAX_GROUPS. */
static const ndx_convert_sizes cl_cpu_convert = {.elems = NDX_CL_CONVERT_ELEMS,
                                                 .tile_k = NDX_CL_CONVERT_TILE_K,
                                                 .tile_j = NDX_CL_CONVERT_TILE_J};

/* The plan of a conversion from src_l (type st) to dst_l (type dt), st
 * and dt distinct valid types, into *plan; its launch buffer is the
 * caller's to release. */
static ndx_status convert_plan(const char *fn, ndx_cl *cl, const ndx_layout *dst_l, ndx_dtype dt,
                               const ndx_layout *src_l, ndx_dtype st, ndx_cl_plan *plan) {
  int db = ndx_dtype_bits(dt), sb = ndx_dtype_bits(st);
  memset(plan, 0, sizeof *plan);
  plan->cl = cl;
  ndx_convert_sizes z = cl_cpu_convert;
  if (cl->shape == NDX_CL_SHAPE_GPU)
    z = (ndx_convert_sizes){.local = NDX_CL_GPU_LOCAL_SIZE,
                            .max_groups = NDX_CL_GPU_MAX_GROUPS,
                            .align = 16}; /* CL_DEVICE_MEM_BASE_ADDR_ALIGN: 128 bits at least */
  ndx_copy_plan p;
  ndx_status s = ndx_convert_plan_make(&p, fn, dst_l, src_l, db, &z, 0);
  if (s != NDX_OK) return s;
  plan->dst_lo = p.dst_lo, plan->dst_end = p.dst_end;
  if (p.q.numel == 0) {
    plan->path = NDX_PATH_EMPTY;
    return NDX_OK;
  }
  int64_t lo, hi;
  ndx_operands_span(&p.q, 1, &lo, &hi);
  plan->src_lo = lo * sb / 8, plan->src_end = (hi * sb + 7) / 8;
  s = ndx_cl_launch_fits(fn, cl, &p);
  if (s != NDX_OK) return s;
  ndx_convert_choice c = ndx_convert_choose(&p, sb, &z);
  plan->path = NDX_PATH_GATHER;
  plan->wide = p.wide;
  s = ndx_cl_convert_kernel(cl, fn, p.wide, c.family, (int)st, (int)dt, &plan->kernel,
                            &plan->local);
  if (s != NDX_OK) return s;
  snprintf(plan->kernel_name, sizeof plan->kernel_name, "ndx_%s from %s to %s",
           ndx_cl_convert_family(c.family), ndx_dtype_name(st), ndx_dtype_name(dt));
  if (cl->shape == NDX_CL_SHAPE_GPU) z.local = (int64_t)plan->local; /* the kernel's, maybe less */
  ndx_launch d;
  int64_t work;
  ndx_launch_convert(&p, sb, &c, &z, &d, &work);
  return ndx_cl_plan_launch(fn, plan, &p, &d, z.local ? work * z.local : work);
}

ndx_status ndx_cl_convert(ndx_cl *cl, cl_command_queue queue, cl_mem dst, const ndx_layout *dst_l,
                          ndx_dtype dst_t, cl_mem src, const ndx_layout *src_l, ndx_dtype src_t,
                          cl_uint nwait, const cl_event *wait, cl_event *done) {
  static const char fn[] = "ndx_cl_convert";
  if (ndx_dtype_bits(dst_t) == 0 || ndx_dtype_bits(src_t) == 0)
    return ndx_set_error(NDX_EINVAL, "%s: %s is %d, not an ndx_dtype (0 .. %d)", fn,
                         ndx_dtype_bits(dst_t) == 0 ? "dst_t" : "src_t",
                         ndx_dtype_bits(dst_t) == 0 ? (int)dst_t : (int)src_t, NDX_CL_DTYPES - 1);
  if (dst_t == src_t)
    return ndx_cl_copy_as(fn, cl, queue, dst, dst_l, src, src_l, ndx_dtype_bits(dst_t), nwait, wait,
                          done);
  if (!cl || !queue || !dst || !src || !dst_l || !src_l)
    return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", fn,
                         !cl      ? "cl"
                         : !queue ? "queue"
                         : !dst   ? "dst"
                         : !src   ? "src"
                         : !dst_l ? "dst_l"
                                  : "src_l");
  ndx_cl_plan plan;
  ndx_status s = convert_plan(fn, cl, dst_l, dst_t, src_l, src_t, &plan);
  if (s == NDX_OK) s = ndx_cl_plan_enqueue_as(fn, &plan, queue, dst, src, nwait, wait, done);
  if (plan.launch) clReleaseMemObject(plan.launch);
  return s;
}

ndx_status ndx_cl_convert_kernel_name(ndx_cl *cl, const ndx_layout *dst_l, ndx_dtype dst_t,
                                      const ndx_layout *src_l, ndx_dtype src_t, char *name,
                                      size_t size) {
  ndx_cl_plan plan;
  ndx_status s = convert_plan("ndx_cl_convert", cl, dst_l, dst_t, src_l, src_t, &plan);
  if (s == NDX_OK) snprintf(name, size, "%s", plan.kernel_name);
  if (plan.launch) clReleaseMemObject(plan.launch);
  return s;
}
