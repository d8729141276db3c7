/* ndx_cl.h: layout-aware copies on OpenCL devices.
 *
 * One call, ndx_cl_copy, copies element i (C order) of a source layout to
 * element i of a destination layout; gather, scatter, strided copy, broadcast
 * reads and (batched) transposes are all this call, for element widths of 1,
 * 2, 4, 8, 16, 32, 64 and 128 bits. Positions count elements from the first
 * byte of each cl_mem (bit order as in ndx_layout.h).
 *
 * The kernels are embedded in the library, no kernel path is ever passed.
 * Each is a program of its own per element width, index form and shape, built the
 * first time a call needs it and shared by every ndx_cl of the same context
 * and device. On PoCL (a 2-core Xeon, `ndx copy` in a new process, ndx-bench
 * has no case for it) a first copy with a cold kernel cache takes 0.8 to
 * 1.7 s, 4 s for a 1-bit transpose, and a first gather 2.9 s (two kernels);
 * with PoCL's disk cache holding them, 0.05 to 0.07 s.
 * A plan or copy whose kernel is built costs no build.
 *
 * Kernel shapes: the copy kernels come in two shapes, picked per ndx_cl
 * when it is made. The gpu shape, for GPUs and accelerators
 * (CL_DEVICE_TYPE), hands adjacent elements to adjacent work-items, so
 * that a warp's accesses coalesce, and moves transposes through padded
 * tiles of work-group memory. The cpu shape, for CPU devices (PoCL), gives
 * each work-item a long run to copy by itself with vector blocks. Both copy
 * exactly the same bytes. The environment variable NDX_CL_SHAPE, set to gpu
 * or cpu, overrides the choice for every ndx_cl made while it is set (any
 * other value makes ndx_cl_create fail with NDX_EINVAL); tests use it to
 * run the gpu shape on a CPU device. Gathers and scatters have one shape.
 * ndx_cl_set_build_callback tells a program when a build starts and ends, so
 * that a tool can say what it compiles; the library prints nothing.
 *
 * Threads: one ndx_cl may be used from any number of threads at once:
 * ndx_cl_plan_create, ndx_cl_plan_enqueue (also of one plan), ndx_cl_copy and
 * ndx_cl_check, on one queue or on a queue per thread. ndx sets the
 * arguments of its shared kernel objects and enqueues under the ndx_cl's
 * lock (OpenCL's clSetKernelArg is not thread-safe on one cl_kernel).
 * ndx_cl_create may run in several threads at once; ndx_cl_destroy and
 * ndx_cl_plan_destroy must not race with any use of their object. Each
 * thread reads its own ndx_last_error(). Ordering between copies on
 * different queues is the caller's (events or clFinish), as in OpenCL.
 *
 * Objects: ndx checks that every handle is not NULL, that a queue and the
 * buffers belong to the ndx_cl's context (and the queue to its device), and
 * that a buffer is a buffer (CL_MEM_TYPE) that holds the layout's bytes
 * (CL_MEM_SIZE, sub-buffers included). It cannot check that a handle is
 * alive: querying a released object (reference count at zero) is undefined
 * in OpenCL, so passing one is the caller's fault, not a detected error.
 * What ndx does promise: the caller may release dst and src, and destroy a
 * plan, as soon as the call that enqueued a copy returns; the queued copy
 * keeps what it uses alive until it completes.
 *
 * Every call returns an ndx_status; an OpenCL failure is NDX_EDEVICE with the
 * cl_int (and, for a failed build, the build log) in ndx_last_error(). A call
 * that fails enqueues nothing (except the bounds-check reports below) and
 * leaks nothing, whichever OpenCL call or allocation failed.
 *
 * Bounds-check build (meson -Dbounds_check=true, for debugging): the kernels
 * are built with -DNDX_BOUNDS_CHECK and every work-item checks the bytes of
 * every element it reads and writes against the buffer sizes before it
 * copies; a work-item that finds one outside copies nothing and records the
 * first such element. ndx_cl_plan_enqueue and ndx_cl_copy then report it as
 * NDX_ERANGE naming the kernel, the work-item, the operand, the element
 * position and the buffer size: a copy enqueued without a wait list (nwait
 * 0) waits for its kernel in this build and returns that status (so it must
 * not be queued behind a command that waits for the host); a copy with a
 * wait list returns at once and its report comes from the next
 * ndx_cl_check. A reported copy leaves `*done` unset; the work-items that
 * found nothing outside have copied. The one call that fails after its
 * kernel is queued is this build's: when enqueueing the status read-back
 * fails, the result is NDX_EDEVICE naming clEnqueueReadBuffer and the copy
 * runs unreported. Through this API the host's checks already refuse every
 * span past a buffer; the device check guards the kernels themselves (a
 * kernel bug, a layout the host got wrong). The normal build's kernels
 * are the unchecked ones, unchanged. */
#ifndef NDX_CL_H
#define NDX_CL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "ndx_dtype.h"
#include "ndx_index.h"
#include "ndx_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ndx_cl ndx_cl;
typedef struct ndx_cl_plan ndx_cl_plan;
typedef struct ndx_cl_index_plan ndx_cl_index_plan;

/* Makes the ndx_cl of `device` in `context` (both retained until destroy).
 * Returns NDX_OK; NDX_EINVAL for NULL arguments; NDX_ENOMEM; NDX_EDEVICE when
 * OpenCL fails; on failure `*out` is untouched. Builds no program: the
 * first plan, copy, gather or scatter that needs a kernel builds it
 * (NDX_EDEVICE from that call, the build log in ndx_last_error(), when it
 * fails). Several ndx_cl of one context and device share their programs,
 * each with kernel objects of its own. The kernels' shape comes from the
 * device and NDX_CL_SHAPE (header comment, Kernel shapes); NDX_EINVAL
 * names NDX_CL_SHAPE when it holds neither gpu nor cpu. */
NDX_API ndx_status ndx_cl_create(ndx_cl **out, cl_context context, cl_device_id device);

/* The shape ndx_cl_create picks for `device`, "gpu" or "cpu" (header
 * comment, Kernel shapes), into *shape (a static string). Returns NDX_OK;
 * NDX_EINVAL for a NULL argument or an NDX_CL_SHAPE of another value;
 * NDX_EDEVICE when clGetDeviceInfo fails. */
NDX_API ndx_status ndx_cl_device_shape(cl_device_id device, const char **shape);

/* The shape of cl's copy kernels, "gpu" or "cpu"; NULL for a NULL `cl`. */
NDX_API const char *ndx_cl_shape(const ndx_cl *cl);

/* Releases everything `cl` holds; NULL is allowed. Copies already enqueued
 * complete normally (in the bounds-check build, destroy waits for the
 * copies that ndx_cl_check has not collected). The programs go with the
 * last ndx_cl of their context and device. */
NDX_API void ndx_cl_destroy(ndx_cl *cl);

/* What a build callback is told: once as a program build starts (`done`
 * 0), once as it ends (`done` 1, `seconds` its wall time, `status` NDX_OK
 * or the error the call then returns). */
typedef struct ndx_cl_build_event {
  const char *kernel; /* "ndx_transpose", "ndx_index_copy", ... */
  int bits;           /* the element width it is built for; 0 for every width */
  int wide;           /* 1 for the 64-bit index form, 0 for the 32-bit one */
  int done;
  double seconds;
  ndx_status status;
} ndx_cl_build_event;

typedef void ndx_cl_build_fn(void *user, const ndx_cl_build_event *event);

/* Calls `fn(user, event)` around each program build that a call on `cl`
 * starts from now on (NULL `fn`: no more calls), in the thread that made
 * the call, while other builds for cl's context and device wait. `fn` must
 * not call ndx. A tool uses it to say what it compiles; ndx itself prints
 * nothing. NULL `cl` is ignored. */
NDX_API void ndx_cl_set_build_callback(ndx_cl *cl, ndx_cl_build_fn *fn, void *user);

/* Collects the reports of copies enqueued before: the index faults of
 * gathers and scatters (in every build), and the bounds-check reports of
 * copies enqueued with a wait list, waiting for those not read yet.
 * Returns NDX_OK when there is none; NDX_EINVAL for a NULL `cl`;
 * NDX_ERANGE for the oldest fault or violation (messages as at
 * ndx_cl_gather and in the header comment); NDX_EDEVICE when waiting
 * fails. Every report is freed either way, so the next call reports only
 * what was enqueued after this one. Blocks until the check passes (and
 * bounds-checked copies) it waits for complete. */
NDX_API ndx_status ndx_cl_check(ndx_cl *cl);

/* Plans copying element i of `src_l` to element i of `dst_l`, `bits` wide:
 * checks, coalesces both layouts together, picks the kernel (building it the
 * first time, see ndx_cl_create) and packs its arguments once, so that
 * ndx_cl_plan_enqueue costs only the enqueue.
 * Returns NDX_OK; NDX_EINVAL for NULL arguments, shapes that differ, a
 * destination that is not distinct (ndx_is_distinct), or a width not in
 * {1,2,4,8,16,32,64,128}; NDX_EUNSUPPORTED when the packed arguments pass the
 * device's limits; NDX_ENOMEM; NDX_EDEVICE. O(rank^2) host work (rank <= 32),
 * one small allocation and one small device buffer (none for the empty and
 * buffer paths). */
NDX_API ndx_status ndx_cl_plan_create(ndx_cl_plan **out, ndx_cl *cl, const ndx_layout *dst_l,
                                      const ndx_layout *src_l, int bits);

/* Enqueues the planned copy from `src` to `dst` on `queue` after the `nwait`
 * events in `wait`; `*done` (if `done` is not NULL) gets an event that
 * completes with the copy (an empty copy enqueues a marker when `done` or a
 * wait list is given, and nothing otherwise). `dst` and `src` may be one
 * buffer (or sub-buffers of one buffer) when the layouts' byte spans are
 * disjoint; overlapping bytes are refused, not copied as memmove would (a
 * kernel reading bytes that other work-items write has no defined result).
 * Returns NDX_OK; NDX_EINVAL for a NULL plan, queue or buffer, `nwait` and
 * `wait` that disagree (one zero or NULL, the other not), a queue or buffer of
 * another context (or a queue of another device) than the plan's ndx_cl, a
 * memory object that is not a buffer or that OpenCL calls invalid, or dst
 * and src bytes [lo, end) of one buffer that intersect (for 1, 2 and 4 bits,
 * sharing a byte is intersecting); NDX_ERANGE when a layout's bytes (its span
 * in bits, rounded out to bytes) pass its buffer's CL_MEM_SIZE, the message
 * naming dst or src, the bytes needed and the buffer's size; NDX_ENOMEM;
 * NDX_EDEVICE. On failure nothing is enqueued and `*done` is untouched. The
 * plan may be enqueued from several threads at once. O(1) host work (a few
 * object queries; no allocation, except a 32-byte status buffer per kernel
 * in the bounds-check build). */
NDX_API ndx_status ndx_cl_plan_enqueue(const ndx_cl_plan *plan, cl_command_queue queue, cl_mem dst,
                                       cl_mem src, cl_uint nwait, const cl_event *wait,
                                       cl_event *done);

/* Which kernel a plan uses, for tests and benchmarks: "empty" (no element:
 * nothing, or a marker), "buffer" (one contiguous whole-byte run on both
 * sides: clEnqueueCopyBuffer), "rows" (innermost stride 1 on both sides,
 * 8 bits or more), "transpose" (tiles: the destination runs along one axis,
 * the source along another; every width, below 8 bits only where each
 * tile owns the destination bytes it writes), "bytes" (every other copy
 * below 8 bits: each work-item writes whole destination bytes of its own)
 * or "gather" (anything else); "none" for NULL. A static string; never
 * fails; O(1). */
NDX_API const char *ndx_cl_plan_path(const ndx_cl_plan *plan);

/* Releases a plan; NULL is allowed. Copies already enqueued complete. A plan
 * refers to its ndx_cl: destroy every plan before the ndx_cl. */
NDX_API void ndx_cl_plan_destroy(ndx_cl_plan *plan);

/* One copy: ndx_cl_plan_create, ndx_cl_plan_enqueue and ndx_cl_plan_destroy
 * in one call, with their statuses and messages, which name ndx_cl_copy (a
 * failed allocation of the plan's small device buffer is NDX_EDEVICE with
 * OpenCL's code, and leaks nothing). */
NDX_API ndx_status ndx_cl_copy(ndx_cl *cl, cl_command_queue queue, cl_mem dst,
                               const ndx_layout *dst_l, cl_mem src, const ndx_layout *src_l,
                               int bits, cl_uint nwait, const cl_event *wait, cl_event *done);

/* ---- Conversion on copy (ndx_dtype.h has the rules) ---------------------- */

/* Enqueues dst[i] = src[i] converted from type src_t to type dst_t for
 * every C-order index i of the one shape of dst_l and src_l, on `queue`
 * after the `nwait` events of `wait`; *done (if not NULL) completes with
 * it. Positions count dst_t's and src_t's elements from each buffer's
 * first byte; 4-bit types are packed LSB-first, and a 4-bit destination's
 * bytes are written whole only where the conversion owns both their
 * elements (the other element of a shared byte is kept). Every value
 * follows ndx_dtype.h's rule for its pair, bit for bit on every device.
 * With dst_t == src_t this is ndx_cl_copy at that width, its messages
 * naming ndx_cl_convert. Each pair's kernel is built on its first use, as
 * a copy's (ndx_cl_set_build_callback reports it).
 * Returns NDX_OK; NDX_EINVAL for dst_t or src_t outside ndx_dtype (named,
 * with its value), a NULL argument, shapes that differ, a destination that
 * is not distinct, and the buffer and queue errors of ndx_cl_plan_enqueue
 * (dst and src bytes of one buffer that intersect included); NDX_ERANGE
 * for a layout whose bytes pass its buffer; NDX_EUNSUPPORTED when the
 * packed layouts pass the device's constant buffer; NDX_ENOMEM;
 * NDX_EDEVICE. On failure nothing is enqueued or written and *done is
 * untouched; the message names ndx_cl_convert, the argument and the
 * values. O(rank^2) host work, a small device buffer for the packed
 * layouts per call. */
NDX_API ndx_status ndx_cl_convert(ndx_cl *cl, cl_command_queue queue, cl_mem dst,
                                  const ndx_layout *dst_l, ndx_dtype dst_t, cl_mem src,
                                  const ndx_layout *src_l, ndx_dtype src_t, cl_uint nwait,
                                  const cl_event *wait, cl_event *done);

/* ---- Gather and scatter (ndx_index.h has the rules) ---------------------- */

/* Enqueues dst[i] = src[i with coordinate `axis` replaced by index[i]] for
 * every index i of S, the shape of dst_l and index_l (src_l: S's rank and
 * extents except on `axis`), `bits` wide, on `queue` after the `nwait`
 * events in `wait`; `*done` (if not NULL) gets an event that completes with
 * the copy. Positions count elements (index elements for `index`) from each
 * buffer's first byte. The device checks every index first; a value outside
 * [0, d) ([-d, d) with NDX_INDEX_WRAP), d src_l's extent on `axis`, makes
 * the call write nothing to dst, and the next ndx_cl_check returns
 * NDX_ERANGE naming this call, the offending index element as the index
 * buffer holds it (index[P]) and where index_l reads it, its value and the
 * range (ndx_index.h). The call itself does not wait.
 * Returns NDX_OK; NDX_EINVAL for a NULL handle or layout, `bits` not in
 * {1,2,4,8,16,32,64,128}, index_bits not 32 or 64, `axis` outside [0,
 * rank), shapes that do not match as above, a dst_l that is not distinct
 * (ndx_is_distinct), flags other than NDX_INDEX_WRAP, `nwait` and `wait`
 * that disagree, a queue or buffer of another context (a queue of another
 * device), or dst bytes that intersect src's or index's in one buffer;
 * NDX_ERANGE when a layout's bytes pass its buffer's size (the message
 * names dst, src or index, the bytes needed and the size); NDX_EUNSUPPORTED
 * when a pack passes the device's constant buffer size; NDX_ENOMEM;
 * NDX_EDEVICE. On failure nothing is enqueued (except, when an OpenCL call
 * fails after the check kernel is queued, that kernel, which writes only
 * ndx's own buffers) and `*done` is untouched. Costs O(rank^2) host work,
 * three small device buffers (two packs and a status), two kernels (one
 * work-item per 4096 index elements, then one per 512 elements or 8 KiB of
 * rows), and a non-blocking read of the status. It is an index plan
 * (below) made, enqueued once and destroyed, its messages naming
 * ndx_cl_gather; a call repeated with the same layouts costs less as a
 * plan. */
NDX_API ndx_status ndx_cl_gather(ndx_cl *cl, cl_command_queue queue, cl_mem dst,
                                 const ndx_layout *dst_l, cl_mem src, const ndx_layout *src_l,
                                 int axis, cl_mem index, const ndx_layout *index_l, int index_bits,
                                 unsigned flags, int bits, cl_uint nwait, const cl_event *wait,
                                 cl_event *done);

/* Enqueues dst[i with coordinate `axis` replaced by index[i]] = src[i] for
 * every index i of S, the shape of src_l and index_l (dst_l: S's rank and
 * extents except on `axis`; d is dst_l's extent there); where several
 * elements go to one, the last in C order over S wins, whole, and
 * destination elements none reaches keep their value (bits too, below 8
 * bits). Without NDX_INDEX_UNIQUE (and always below 8 bits) it runs a
 * claims pass: a table of 4 bytes per element of dst_l's shape with the
 * index's broadcast axes dropped (4*d bytes for a 1-d index broadcast to
 * S), filled with zeros, the check kernel keeping each slot's winner; then
 * the copy runs over S, each element written only by its winner (8 bits
 * and up), or over dst_l's elements, each byte written once (below 8 bits).
 * With NDX_INDEX_UNIQUE (8 bits and up) the copy runs over S alone. Everything
 * else as ndx_cl_gather, flags NDX_INDEX_WRAP and NDX_INDEX_UNIQUE, and
 * NDX_ERANGE for a claims scatter of 2^31 or more elements along `axis`. */
NDX_API ndx_status ndx_cl_scatter(ndx_cl *cl, cl_command_queue queue, cl_mem dst,
                                  const ndx_layout *dst_l, cl_mem src, const ndx_layout *src_l,
                                  int axis, cl_mem index, const ndx_layout *index_l, int index_bits,
                                  unsigned flags, int bits, cl_uint nwait, const cl_event *wait,
                                  cl_event *done);

/* ---- Index plans: one gather or scatter, enqueued many times ------------- */

/* Plans ndx_cl_gather's copy (the same dst_l, src_l, axis, index_l,
 * index_bits, flags and bits, the same refusals, named
 * ndx_cl_index_plan_create_gather): checks and plans both passes, picks
 * their kernels (building them the first time, see ndx_cl_create) and
 * writes both packs into two small read-only device buffers of the plan's
 * own, so that ndx_cl_index_plan_enqueue costs only the enqueues. Returns
 * NDX_OK; NDX_EINVAL for a NULL `out`, `cl` or layout and what
 * ndx_cl_gather refuses before looking at buffers; NDX_EUNSUPPORTED when a
 * pack passes the device's constant buffer size; NDX_ENOMEM; NDX_EDEVICE.
 * On failure `*out` is untouched and nothing is leaked. O(rank^2) host
 * work, one allocation, two device buffers (none for an empty S). */
NDX_API ndx_status ndx_cl_index_plan_create_gather(ndx_cl_index_plan **out, ndx_cl *cl,
                                                   const ndx_layout *dst_l, const ndx_layout *src_l,
                                                   int axis, const ndx_layout *index_l,
                                                   int index_bits, unsigned flags, int bits);

/* The same for ndx_cl_scatter (flags NDX_INDEX_WRAP and NDX_INDEX_UNIQUE),
 * its refusals named ndx_cl_index_plan_create_scatter. */
NDX_API ndx_status ndx_cl_index_plan_create_scatter(ndx_cl_index_plan **out, ndx_cl *cl,
                                                    const ndx_layout *dst_l,
                                                    const ndx_layout *src_l, int axis,
                                                    const ndx_layout *index_l, int index_bits,
                                                    unsigned flags, int bits);

/* Enqueues the planned gather or scatter from `src` to `dst` by `index` on
 * `queue` after the `nwait` events in `wait`, exactly as ndx_cl_gather
 * (ndx_cl_scatter) with the plan's layouts would: the same commands, the
 * same checks of the queue and buffers, a bad index reported by the next
 * ndx_cl_check naming ndx_cl_index_plan_enqueue; refusals (NDX_EINVAL for a
 * NULL plan, queue or buffer, ...; NDX_ERANGE for a buffer too small) name
 * ndx_cl_index_plan_enqueue. On failure `*done` is untouched.
 * Temporary buffers: each enqueue needs a status buffer (32 bytes) and, for
 * a claims scatter, a claims table (4 bytes per claim). They form a slot of
 * the plan's pool. An enqueue takes an idle slot, or creates one (the only
 * clCreateBuffer of an enqueue), and zeroes it on the device before the
 * check kernel; the slot is idle again once the commands that use it
 * (the copy kernel, then the status read-back, whose event is `*done`)
 * have completed, which later enqueues see without waiting. So no slot is reused while a command of
 * an earlier enqueue can still touch it, on an in-order or out-of-order queue or several queues,
 * and a plan enqueued again and again, with the device keeping up, creates no cl_mem after its
 * first enqueue; enqueues queued faster than they complete hold one slot each until they do; up to
 * 64 idle slots (past the first, 64 MiB of them) are kept for the next burst, the rest released.
 * The bounds-check build adds its 32-byte status buffers per kernel, as ndx_cl_plan_enqueue does.
 * Threads: a plan may be enqueued from several threads at once (its pool
 * has a lock of its own). O(1) host work: a few object queries, one small
 * host allocation (the report), and 4 commands (5 for a claims scatter;
 * one fewer on a plan's first enqueue) plus a non-blocking read-back. */
NDX_API ndx_status ndx_cl_index_plan_enqueue(ndx_cl_index_plan *plan, cl_command_queue queue,
                                             cl_mem dst, cl_mem src, cl_mem index, cl_uint nwait,
                                             const cl_event *wait, cl_event *done);

/* Releases a plan and its pool; NULL is allowed. Enqueued calls complete
 * and report normally (their commands keep the buffers they use). Destroy
 * every index plan before its ndx_cl; not concurrently with an enqueue of
 * the plan. */
NDX_API void ndx_cl_index_plan_destroy(ndx_cl_index_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* NDX_CL_H */
