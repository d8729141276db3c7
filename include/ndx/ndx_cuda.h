/* ndx_cuda.h: layout-aware copies on CUDA devices.
 *
 * The CUDA twin of ndx_cl.h. One call, ndx_cuda_copy, copies element i (C
 * order) of a source layout to element i of a destination layout; gather,
 * scatter, strided copy, broadcast reads and (batched) transposes are all
 * this call, for element widths of 1, 2, 4, 8, 16, 32, 64 and 128 bits.
 * ndx_cuda_gather and ndx_cuda_scatter copy where an index tensor says
 * (index_select, take_along_axis, embedding lookups, KV-cache row writes),
 * with bad indices caught on the device and reported by ndx_cuda_check.
 * Positions count elements from the device pointer given for each operand
 * (bit order as in ndx_layout.h: 4-bit element 2k is the low nibble of byte
 * k). The kernels are those of kernels/ndx_copy.cu and kernels/ndx_index.cu,
 * built into libndx_cuda
 * for sm_80 and sm_90 with PTX for later chips; they use the same
 * ndx_device.h as the OpenCL kernels.
 *
 * Pointers: device pointers (cudaMalloc, cudaMallocAsync, managed memory) of
 * the current device. For elements of 8 bits or more each pointer must be
 * aligned to the element size (16 bytes at most), as cudaMalloc's always
 * are; wider alignment only lets the kernels use wider accesses.
 *
 * Sub-byte destinations: every destination bit that belongs to no
 * destination element is left as it was, and a copy never writes a byte
 * outside the destination layout's span.
 *
 * Every call returns an ndx_status; a CUDA failure is NDX_EDEVICE with the
 * CUDA error's name and text in ndx_last_error(). A call that fails launches
 * nothing and leaks nothing. Plans hold no device resource: they may be made
 * before any CUDA context exists, shared between threads (launching is
 * read-only on the plan) and used on any device and stream.
 *
 * Link with libndx_cuda (pkg-config ndx_cuda), which needs libndx and the
 * CUDA runtime (libcudart). This header is plain C11 (and C++). */
#ifndef NDX_CUDA_H
#define NDX_CUDA_H

#include <cuda_runtime_api.h>

#include "ndx_dtype.h"
#include "ndx_index.h"
#include "ndx_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ndx_cuda_plan ndx_cuda_plan;
typedef struct ndx_cuda_index_plan ndx_cuda_index_plan;

/* Plans copying element i of `src_l` to element i of `dst_l`, `bits` wide:
 * checks, coalesces and normalizes both layouts together (ndx_pack_copy),
 * picks the kernel and packs its arguments once, so that ndx_cuda_plan_launch
 * costs only the launch. No CUDA call is made.
 * Returns NDX_OK; NDX_EINVAL for NULL arguments, a layout no ndx_ call makes,
 * shapes that differ, a destination that is not distinct (ndx_is_distinct),
 * or a width not in {1,2,4,8,16,32,64,128}; NDX_ENOMEM when the plan cannot
 * be allocated. On failure `*out` is untouched.
 * O(rank^2) host work, about a microsecond; one allocation of about 6 KiB. */
NDX_API ndx_status ndx_cuda_plan_create(ndx_cuda_plan **out, const ndx_layout *dst_l,
                                        const ndx_layout *src_l, int bits);

/* Launches the planned copy from `src` to `dst` (device pointers) on
 * `stream` (0 is the legacy default stream); asynchronous like any kernel
 * launch. An empty copy launches nothing (and accepts NULL pointers); a
 * copy that is one contiguous byte range on both sides is a
 * cudaMemcpyAsync; anything else is one to three kernel launches. Returns
 * NDX_OK; NDX_EINVAL for a NULL plan, a NULL pointer, one not aligned as
 * above, or a destination whose bytes overlap the source's; NDX_EDEVICE
 * with the CUDA error's name when CUDA refuses a launch (an error of an
 * earlier asynchronous call on the context may show here too, as CUDA
 * reports it to the next call). O(1) host work; each kernel's arguments,
 * the packed layouts included, are passed by value (under 1.5 KiB). */
NDX_API ndx_status ndx_cuda_plan_launch(const ndx_cuda_plan *plan, cudaStream_t stream, void *dst,
                                        const void *src);

/* Which path a plan takes, for tests and benchmarks: "empty" (no element),
 * "buffer" (one contiguous byte range on both sides: cudaMemcpyAsync), "rows"
 * (8 bits or more, innermost stride 1 on both sides), "transpose" (the
 * destination runs along one axis with stride 1, the source along another;
 * for 1-, 2- and 4-bit elements only where every row starts on a 32-bit word
 * on both sides and a whole tile fits) or "gather" (anything else, every
 * other sub-byte copy included); "none" for NULL, as ndx_cl_plan_path. ndx_cl names the same
 * paths but chooses a little differently (its rows path also takes source
 * strides 0, -1 and 2; its sub-byte transposes need rows starting on bytes).
 * A static string; never fails; O(1). */
NDX_API const char *ndx_cuda_plan_path(const ndx_cuda_plan *plan);

/* Releases a plan; NULL is allowed. Copies already launched complete. Never
 * fails; O(1). */
NDX_API void ndx_cuda_plan_destroy(ndx_cuda_plan *plan);

/* One copy: what ndx_cuda_plan_create and ndx_cuda_plan_launch do, in one
 * call, with their statuses, except that the plan lives on the stack (about
 * 6 KiB), so it allocates nothing and never returns NDX_ENOMEM. O(rank^2)
 * host work, about a microsecond, plus the launch. */
NDX_API ndx_status ndx_cuda_copy(cudaStream_t stream, void *dst, const ndx_layout *dst_l,
                                 const void *src, const ndx_layout *src_l, int bits);

/* Converts as ndx_cl_convert does (ndx_dtype.h has the value rules):
 * dst[i] = src[i] converted from src_t to dst_t for every C-order index i
 * of the one shape, device pointers, enqueued on `stream`; with dst_t ==
 * src_t it is ndx_cuda_copy at that width. Returns NDX_OK once enqueued;
 * NDX_EINVAL, naming ndx_cuda_convert, for a type outside ndx_dtype, a NULL
 * pointer or layout, a pointer not aligned to its elements (as above),
 * shapes that differ or a destination that is not distinct, nothing
 * enqueued; NDX_EDEVICE for a failed launch. As for
 * ndx_cuda_copy, the caller keeps the buffers large enough and apart. One
 * kernel serves every pair (the types are its arguments); O(rank^2) host
 * work, no allocation. */
NDX_API ndx_status ndx_cuda_convert(cudaStream_t stream, void *dst, const ndx_layout *dst_l,
                                    ndx_dtype dst_t, const void *src, const ndx_layout *src_l,
                                    ndx_dtype src_t);

/* ---- Gather and scatter (ndx_index.h has the semantics and the flags) ---- */

/* Gathers along `axis`: for every index i of S (the shape of dst_l and
 * index_l), dst[i] = src[i with coordinate `axis` replaced by index[i]];
 * `index` holds signed `index_bits` (32 or 64) integers at index_l's
 * positions, `bits` the element width. Device pointers, stream-ordered, as
 * ndx_cuda_copy; `index` must be aligned to index_bits / 8 bytes.
 *
 * Returns NDX_OK once the call is enqueued: a check kernel tests every index
 * value, then a copy kernel copies, or writes nothing when a value is
 * outside [0, d) ([-d, d) with NDX_INDEX_WRAP; d: src_l's extent on
 * `axis`). The host does not wait for the check: the fault comes from the
 * next ndx_cuda_check(stream); calls enqueued after a faulty one run as
 * usual. NDX_EINVAL, with nothing enqueued, for NULL layouts or pointers,
 * `bits` not in {1,2,4,8,16,32,64,128}, index_bits not 32 or 64, axis
 * outside [0, rank), shapes that do not match as ndx_index.h says, a
 * destination that is not distinct, flags other than NDX_INDEX_WRAP, a
 * pointer not aligned (as for ndx_cuda_plan_launch; the index to its
 * element), or dst's bytes intersecting src's or index's; NDX_EDEVICE with
 * the CUDA error's name when CUDA refuses an allocation or a launch (an
 * earlier asynchronous error may show here too). An empty S enqueues
 * nothing.
 * Cost: O(rank^2) host work (a plan on the stack, about 9 KiB) and seven
 * stream-ordered CUDA calls: cudaMallocAsync of 32 bytes (plus the claims of
 * a scatter), cudaMemsetAsync, two kernels, a 32-byte cudaMemcpyAsync to
 * pinned memory, cudaFreeAsync and cudaEventRecord. A pool of pinned status
 * slots and events grows by 64 (one cudaHostAlloc) when all are in use and
 * lives as long as the process. Thread-safe. */
NDX_API ndx_status ndx_cuda_gather(cudaStream_t stream, void *dst, const ndx_layout *dst_l,
                                   const void *src, const ndx_layout *src_l, int axis,
                                   const void *index, const ndx_layout *index_l, int index_bits,
                                   unsigned flags, int bits);

/* Scatters along `axis`: for every index i of S (the shape of src_l and
 * index_l), dst[i with coordinate `axis` replaced by index[i]] = src[i];
 * where several elements go to one destination element, the last in C order
 * over S wins, whole; destination elements (and bits of sub-byte bytes)
 * that nothing reaches keep their value. d is dst_l's extent on `axis`.
 * Without NDX_INDEX_UNIQUE (and below 8 bits always) the check kernel also
 * claims each destination element for its last source in a table of int32
 * (one per element of dst_l's shape, broadcast axes of the index dropped,
 * allocated with the status words), and the copy kernel runs over S, each
 * element written by its winner alone (8 bits and up), or over dst_l's
 * shape (below 8 bits); NDX_INDEX_UNIQUE promises distinct targets and
 * copies over S with no claims (a
 * broken promise leaves each contested element holding one of its sources
 * whole). Returns and costs as ndx_cuda_gather, flags NDX_INDEX_WRAP and
 * NDX_INDEX_UNIQUE; also NDX_ERANGE for a claims scatter of 2^31 or more
 * elements along `axis`. */
NDX_API ndx_status ndx_cuda_scatter(cudaStream_t stream, void *dst, const ndx_layout *dst_l,
                                    const void *src, const ndx_layout *src_l, int axis,
                                    const void *index, const ndx_layout *index_l, int index_bits,
                                    unsigned flags, int bits);

/* ---- Index plans: one gather or scatter, launched many times ------------ */

/* Plans ndx_cuda_gather's call (the same layouts, axis, index_bits, flags
 * and bits, the same refusals, named ndx_cuda_index_plan_create_gather):
 * both kernels' arguments and grids, once, so that
 * ndx_cuda_index_plan_launch costs only the launch. No CUDA call is made;
 * like copy plans, index plans hold no device resource (usable on any
 * device and stream, from several threads at once). Returns NDX_OK;
 * NDX_EINVAL for a NULL `out` and what ndx_cuda_gather refuses before
 * looking at pointers; NDX_ENOMEM. On failure `*out` is untouched.
 * O(rank^2) host work; one allocation of about 9 KiB. */
NDX_API ndx_status ndx_cuda_index_plan_create_gather(ndx_cuda_index_plan **out,
                                                     const ndx_layout *dst_l,
                                                     const ndx_layout *src_l, int axis,
                                                     const ndx_layout *index_l, int index_bits,
                                                     unsigned flags, int bits);

/* The same for ndx_cuda_scatter (flags NDX_INDEX_WRAP and
 * NDX_INDEX_UNIQUE), its refusals named ndx_cuda_index_plan_create_scatter. */
NDX_API ndx_status ndx_cuda_index_plan_create_scatter(ndx_cuda_index_plan **out,
                                                      const ndx_layout *dst_l,
                                                      const ndx_layout *src_l, int axis,
                                                      const ndx_layout *index_l, int index_bits,
                                                      unsigned flags, int bits);

/* Launches the planned call on `stream` exactly as ndx_cuda_gather
 * (ndx_cuda_scatter) with the plan's layouts would: the same pointer
 * checks (NDX_EINVAL, named ndx_cuda_index_plan_launch, also for a NULL
 * plan), the same seven stream-ordered calls, a bad index reported by the
 * next ndx_cuda_check naming ndx_cuda_index_plan_launch. Temporaries: the
 * status words and claims table come from cudaMallocAsync's stream-ordered
 * pool, the pinned status slots from the process's pool (grown by 64 when
 * all are in flight), so a steady stream of launches allocates nothing
 * new. O(1) host work. */
NDX_API ndx_status ndx_cuda_index_plan_launch(const ndx_cuda_index_plan *plan, cudaStream_t stream,
                                              void *dst, const void *src, const void *index);

/* Releases an index plan; NULL is allowed. Calls already launched
 * complete. Never fails; O(1). */
NDX_API void ndx_cuda_index_plan_destroy(ndx_cuda_index_plan *plan);

/* Waits for the gathers and scatters enqueued on `stream` (the same handle)
 * since the last ndx_cuda_check of it, and forgets them. Returns NDX_OK when
 * none had a bad index; NDX_ERANGE for the oldest that had, naming the call,
 * an offending index element (index[P], ndx_index.h), its value and the
 * valid range (that call wrote nothing); NDX_EDEVICE with the CUDA error's name when
 * waiting fails. Other streams' calls are left pending. Thread-safe.
 * Cost: one cudaEventSynchronize per pending call of the stream; no
 * allocation. */
NDX_API ndx_status ndx_cuda_check(cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* NDX_CUDA_H */
