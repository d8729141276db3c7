/* ndx_hip.h: layout-aware copies on AMD GPUs, through HIP.
 *
 * The HIP twin of ndx_cuda.h: the same five functions, hip-prefixed, on HIP
 * streams and device pointers, built from the same sources (the CUDA
 * runtime's host files and kernels/ndx_copy.cu, compiled by hipcc), so a
 * plan picks the same path and the same kernels as ndx_cuda_plan_create
 * and every rule of ndx_cuda.h holds here with HIP for CUDA: element widths
 * 1, 2, 4, 8, 16, 32, 64 and 128 bits; positions in elements from each
 * operand's pointer (bit order of ndx_layout.h); pointers from hipMalloc,
 * hipMallocAsync or managed memory of the current device, aligned to the
 * element size (16 bytes at most); destination bits of no element kept;
 * plans with no device resource, shareable between threads and usable on
 * any device and stream. The kernels are built for the AMD targets the
 * build's hipcc supports (gfx90a, gfx942, gfx1100 where it has them).
 *
 * Never run on an AMD GPU: the library builds, its plans are checked and
 * its kernels' bodies are run on the host by the emulator test, but no
 * launch of it has run on AMD hardware yet.
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

#include "ndx_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ndx_hip_plan ndx_hip_plan;

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

#ifdef __cplusplus
}
#endif

#endif /* NDX_HIP_H */
