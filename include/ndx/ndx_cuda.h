/* ndx_cuda.h: layout-aware copies on CUDA devices.
 *
 * The CUDA twin of ndx_cl.h. One call, ndx_cuda_copy, copies element i (C
 * order) of a source layout to element i of a destination layout; gather,
 * scatter, strided copy, broadcast reads and (batched) transposes are all
 * this call, for element widths of 1, 2, 4, 8, 16, 32, 64 and 128 bits.
 * Positions count elements from the device pointer given for each operand
 * (bit order as in ndx_layout.h: 4-bit element 2k is the low nibble of byte
 * k). The kernels are those of kernels/ndx_copy.cu, built into libndx_cuda
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

#include "ndx_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ndx_cuda_plan ndx_cuda_plan;

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

#ifdef __cplusplus
}
#endif

#endif /* NDX_CUDA_H */
