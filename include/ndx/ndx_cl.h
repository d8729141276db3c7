/* ndx_cl.h: layout-aware copies on OpenCL devices.
 *
 * One call, ndx_cl_copy, copies element i (C order) of a source layout to
 * element i of a destination layout; gather, scatter, strided copy, broadcast
 * reads and (batched) transposes are all this call, for element widths of 1,
 * 2, 4, 8, 16, 32, 64 and 128 bits. Positions count elements from the first
 * byte of each cl_mem (bit order as in ndx_layout.h).
 *
 * The kernels are embedded in the library: ndx_cl_create builds them once per
 * context and device, no kernel path is ever passed. An ndx_cl is
 * thread-safe: copies may be enqueued on it from several threads at once.
 *
 * Every call returns an ndx_status; an OpenCL failure is NDX_EDEVICE with the
 * cl_int (and, for a failed build, the build log) in ndx_last_error(). A call
 * that fails enqueues nothing and leaks nothing. */
#ifndef NDX_CL_H
#define NDX_CL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "ndx_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ndx_cl ndx_cl;
typedef struct ndx_cl_plan ndx_cl_plan;

/* Builds ndx's programs for `device` in `context` (retained until destroy).
 * Returns NDX_OK; NDX_EINVAL for NULL arguments; NDX_ENOMEM; NDX_EDEVICE when
 * OpenCL fails, the build log in ndx_last_error(). Costs one program build
 * (about a second on PoCL cold, milliseconds from its cache). */
ndx_status ndx_cl_create(ndx_cl **out, cl_context context, cl_device_id device);

/* Releases everything `cl` holds; NULL is allowed. Copies already enqueued
 * complete normally. */
void ndx_cl_destroy(ndx_cl *cl);

/* Plans copying element i of `src_l` to element i of `dst_l`, `bits` wide:
 * checks, coalesces both layouts together, picks the kernel and packs its
 * arguments once, so that ndx_cl_plan_enqueue costs only the enqueue.
 * Returns NDX_OK; NDX_EINVAL for NULL arguments, shapes that differ, a
 * destination that is not distinct (ndx_is_distinct), or a width not in
 * {1,2,4,8,16,32,64,128}; NDX_EUNSUPPORTED when the packed arguments pass the
 * device's limits; NDX_ENOMEM; NDX_EDEVICE. O(rank^2) host work (rank <= 32),
 * one small allocation and one small device buffer (none for the empty and
 * buffer paths). */
ndx_status ndx_cl_plan_create(ndx_cl_plan **out, ndx_cl *cl, const ndx_layout *dst_l,
                              const ndx_layout *src_l, int bits);

/* Enqueues the planned copy from `src` to `dst` on `queue` after the `nwait`
 * events in `wait`; `*done` (if `done` is not NULL) gets an event that
 * completes with the copy (an empty copy enqueues a marker when `done` or a
 * wait list is given, and nothing otherwise). The source and destination
 * bytes must not overlap. Returns NDX_OK; NDX_EINVAL for a NULL plan, queue or
 * buffer, `nwait` and `wait` that disagree (one zero or NULL, the other not),
 * a queue or buffer of another context (or a queue of another device) than
 * the plan's ndx_cl, or `dst == src` with layouts whose byte spans overlap;
 * NDX_ERANGE when a layout's span (in bits, rounded up to bytes) passes its
 * buffer's CL_MEM_SIZE; NDX_EDEVICE. On failure nothing is enqueued. The
 * plan may be enqueued from several threads at once. O(1) host work. */
ndx_status ndx_cl_plan_enqueue(const ndx_cl_plan *plan, cl_command_queue queue, cl_mem dst,
                               cl_mem src, cl_uint nwait, const cl_event *wait, cl_event *done);

/* Which kernel a plan uses, for tests and benchmarks: "empty" (no element:
 * nothing, or a marker), "buffer" (one contiguous whole-byte run on both
 * sides: clEnqueueCopyBuffer), "rows" (innermost stride 1 on both sides,
 * 8 bits or more), "transpose" (8x8 tiles: the destination runs along one
 * axis, the source along another; 8 bits or more) or "gather" (anything
 * else, and every other sub-byte copy: each work-item then writes whole
 * destination bytes of its own). */
const char *ndx_cl_plan_path(const ndx_cl_plan *plan);

/* Releases a plan; NULL is allowed. Copies already enqueued complete. A plan
 * refers to its ndx_cl: destroy every plan before the ndx_cl. */
void ndx_cl_plan_destroy(ndx_cl_plan *plan);

/* One copy: ndx_cl_plan_create, ndx_cl_plan_enqueue and ndx_cl_plan_destroy
 * in one call, with their statuses. */
ndx_status ndx_cl_copy(ndx_cl *cl, cl_command_queue queue, cl_mem dst, const ndx_layout *dst_l,
                       cl_mem src, const ndx_layout *src_l, int bits, cl_uint nwait,
                       const cl_event *wait, cl_event *done);

#ifdef __cplusplus
}
#endif

#endif /* NDX_CL_H */
