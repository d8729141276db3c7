/* ndx_hip.h: layout-aware copies, gathers and scatters on AMD GPUs, through
 * HIP.
 *
 * The HIP twin of ndx_cuda.h: the same twelve functions, hip-prefixed, on HIP
 * streams and device pointers, built from the same sources (the CUDA
 * runtime's host files and kernels/ndx_copy.cu and kernels/ndx_index.cu,
 * compiled by hipcc), so a plan picks the same path and the same kernels as
 * ndx_cuda_plan_create, a gather or scatter the same check and copy kernels
 * as ndx_cuda_gather and ndx_cuda_scatter, and every rule of ndx_cuda.h
 * holds here with HIP for CUDA: element widths 1, 2, 4, 8, 16, 32, 64 and
 * 128 bits; positions in elements from each operand's pointer (bit order of
 * ndx_layout.h); pointers from hipMalloc, hipMallocAsync or managed memory
 * of the current device, aligned to the element size (16 bytes at most);
 * destination bits of no element kept; plans with no device resource,
 * shareable between threads and usable on any device and stream; bad
 * indices caught on the device, nothing written, the fault reported by
 * ndx_hip_check. The kernels are built for the AMD targets the
 * build's hipcc supports (gfx90a, gfx942, gfx1100 where it has them).
 *
 * Never run on an AMD GPU: the library builds, its plans (copies, gathers
 * and scatters) are checked and its kernels' bodies are run on the host by
 * the emulator test, but no launch of it has run on AMD hardware yet.
 *
 * Every call returns an ndx_status; a HIP failure is NDX_EDEVICE with the
 * HIP error's name and text in ndx_last_error(). A call that fails launches
 * nothing and leaks nothing.
 *
 * Link with libndx_hip (pkg-config ndx_hip), which needs libndx and the HIP
 * runtime (libamdhip64). This header is plain C11 (and C++); a C compiler
 * other than hipcc needs the HIP platform macro (-D__HIP_PLATFORM_AMD__),
 * which ndx_hip.pc's Cflags give. */
#ifndef NDX_HIP_H
#define NDX_HIP_H

#include <hip/hip_runtime_api.h>

#include "ndx_dtype.h"
#include "ndx_index.h"
#include "ndx_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ndx_hip_plan ndx_hip_plan;
typedef struct ndx_hip_index_plan ndx_hip_index_plan;

/* Plans copying element i of `src_l` to element i of `dst_l`, `bits` wide,
 * as ndx_cuda_plan_create: no HIP call. Returns NDX_OK; NDX_EINVAL for NULL
 * arguments, a layout no ndx_ call makes, shapes that differ, a destination
 * that is not distinct (ndx_is_distinct), or a width not in
 * {1,2,4,8,16,32,64,128}; NDX_ENOMEM when the plan cannot be allocated. On
 * failure `*out` is untouched. O(rank^2) host work, about a microsecond;
 * one allocation of about 6 KiB. */
NDX_API ndx_status ndx_hip_plan_create(ndx_hip_plan **out, const ndx_layout *dst_l,
                                       const ndx_layout *src_l, int bits);

/* Launches the planned copy from `src` to `dst` (device pointers) on
 * `stream` (0 is the null stream); asynchronous like any kernel launch. An
 * empty copy launches nothing (and accepts NULL pointers); one contiguous
 * byte range on both sides is a hipMemcpyAsync; anything else is one to
 * three kernel launches. Returns NDX_OK; NDX_EINVAL for a NULL plan, a NULL
 * pointer, one not aligned to the element size, or a destination whose
 * bytes overlap the source's; NDX_EDEVICE with the HIP error's name when HIP
 * refuses a launch (an error of an earlier asynchronous call may show here
 * too). O(1) host work; each kernel's arguments, the packed layouts
 * included, are passed by value (under 1.5 KiB). */
NDX_API ndx_status ndx_hip_plan_launch(const ndx_hip_plan *plan, hipStream_t stream, void *dst,
                                       const void *src);

/* Which path a plan takes: "empty", "buffer", "rows", "transpose" or
 * "gather", chosen exactly as ndx_cuda_plan_path says; "none" for NULL. A
 * static string; never fails; O(1). */
NDX_API const char *ndx_hip_plan_path(const ndx_hip_plan *plan);

/* Releases a plan; NULL is allowed. Copies already launched complete. Never
 * fails; O(1). */
NDX_API void ndx_hip_plan_destroy(ndx_hip_plan *plan);

/* One copy: what ndx_hip_plan_create and ndx_hip_plan_launch do, in one
 * call, with their statuses, except that the plan lives on the stack (about
 * 6 KiB), so it allocates nothing and never returns NDX_ENOMEM. O(rank^2)
 * host work, about a microsecond, plus the launch. */
NDX_API ndx_status ndx_hip_copy(hipStream_t stream, void *dst, const ndx_layout *dst_l,
                                const void *src, const ndx_layout *src_l, int bits);

/* Converts as ndx_cuda_convert (ndx_dtype.h has the value rules), on HIP. */
NDX_API ndx_status ndx_hip_convert(hipStream_t stream, void *dst, const ndx_layout *dst_l,
                                   ndx_dtype dst_t, const void *src, const ndx_layout *src_l,
                                   ndx_dtype src_t);

/* ---- Gather and scatter (ndx_index.h has the semantics and the flags) ---- */

/* Gathers along `axis` as ndx_cuda_gather: dst[i] = src[i with coordinate
 * `axis` replaced by index[i]], a check kernel then a copy kernel that
 * writes nothing when an index value is out of range, the fault reported by
 * the next ndx_hip_check(stream), with the same arguments, refusals and
 * statuses (NDX_EDEVICE with the HIP error's name). The same seven
 * stream-ordered calls in their HIP spelling: hipMallocAsync, hipMemsetAsync,
 * two kernels, hipMemcpyAsync to pinned memory, hipFreeAsync and
 * hipEventRecord; the pool of pinned status slots grows by hipHostMalloc.
 * Thread-safe. */
NDX_API ndx_status ndx_hip_gather(hipStream_t stream, void *dst, const ndx_layout *dst_l,
                                  const void *src, const ndx_layout *src_l, int axis,
                                  const void *index, const ndx_layout *index_l, int index_bits,
                                  unsigned flags, int bits);

/* Scatters along `axis` as ndx_cuda_scatter: dst[i with coordinate `axis`
 * replaced by index[i]] = src[i], the last in C order over S winning, whole,
 * where several go to one element (flags NDX_INDEX_WRAP and
 * NDX_INDEX_UNIQUE). Returns and costs as ndx_hip_gather, and NDX_ERANGE as
 * ndx_cuda_scatter. */
NDX_API ndx_status ndx_hip_scatter(hipStream_t stream, void *dst, const ndx_layout *dst_l,
                                   const void *src, const ndx_layout *src_l, int axis,
                                   const void *index, const ndx_layout *index_l, int index_bits,
                                   unsigned flags, int bits);

/* An index plan, as ndx_cuda_index_plan_create_gather: the call planned
 * once, no HIP call, no device resource. NDX_OK; NDX_EINVAL as
 * ndx_hip_gather before pointers, named ndx_hip_index_plan_create_gather;
 * NDX_ENOMEM. */
NDX_API ndx_status ndx_hip_index_plan_create_gather(ndx_hip_index_plan **out,
                                                    const ndx_layout *dst_l,
                                                    const ndx_layout *src_l, int axis,
                                                    const ndx_layout *index_l, int index_bits,
                                                    unsigned flags, int bits);

/* The same for ndx_hip_scatter. */
NDX_API ndx_status ndx_hip_index_plan_create_scatter(ndx_hip_index_plan **out,
                                                     const ndx_layout *dst_l,
                                                     const ndx_layout *src_l, int axis,
                                                     const ndx_layout *index_l, int index_bits,
                                                     unsigned flags, int bits);

/* Launches the planned call on `stream` as ndx_hip_gather (ndx_hip_scatter)
 * would, as ndx_cuda_index_plan_launch says. */
NDX_API ndx_status ndx_hip_index_plan_launch(const ndx_hip_index_plan *plan, hipStream_t stream,
                                             void *dst, const void *src, const void *index);

/* Releases an index plan; NULL is allowed. */
NDX_API void ndx_hip_index_plan_destroy(ndx_hip_index_plan *plan);

/* Waits for the gathers and scatters enqueued on `stream` since the last
 * ndx_hip_check of it and forgets them, as ndx_cuda_check: NDX_OK, or
 * NDX_ERANGE for the oldest with a bad index (which wrote nothing), or
 * NDX_EDEVICE when hipEventSynchronize fails. Other streams' calls are left
 * pending. Thread-safe; no allocation. */
NDX_API ndx_status ndx_hip_check(hipStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* NDX_HIP_H */
