/* cuda_index_plan.h: a CUDA gather or scatter planned for launch, for the
 * runtime (cuda_index.c), its tests and the CUDA bench; users never see it.
 *
 * The shared planner (host/index_plan.h) checks the arguments and plans the
 * two passes; here (cuda_index_plan.c, plain C with no CUDA call, so that
 * the host emulator of the kernels, tests/test_cuda_emulate.cu, runs every
 * call on machines without a GPU) each pass becomes its kernel's arguments
 * (kernels/ndx_cuda_args.h) and grid. The runtime adds the device memory:
 * one allocation of the status words and, for a claims scatter, the claims
 * table after them, zeroed before the check kernel. */
#ifndef NDX_CUDA_INDEX_PLAN_H
#define NDX_CUDA_INDEX_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "ndx_gpu.h" /* ndx_cuda.h, or ndx_hip.h and its names in the HIP build */
#include "ndx_cuda_args.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "host/index_plan.h"

/* Internal flags of ndx_cuda_index_flags. */
enum {
  NDX_CUDA_INDEX_WIDE = 1u,      /* the 64-bit kernels even where 32-bit would do */
  NDX_CUDA_INDEX_SKIP_CHECK = 2u /* no check kernel (the bench's measure of its cost); a gather
                                    or a unique scatter only */
};

/* Bytes of the status words (NDX_INDEX_STATUS_WORDS of
 * kernels/ndx_index_items.h) at the start of a call's device memory. */
#define NDX_CUDA_INDEX_STATUS_BYTES 32

typedef struct ndx_cuda_index_call {
  ndx_index_plan plan;
  bool skip_check;
  ndx_cuda_index_args check, copy;
  int64_t check_blocks, copy_blocks; /* 0: that kernel is not launched */
  /* A gather along the axis (ndx_index_plan_along): the copy pass is the
   * along kernel's, of copy_blocks blocks, with these arguments. */
  bool along;
  ndx_cuda_along_args along_args;
  /* The call's device memory: status words, then nclaims int32 claims;
   * all of it zeroed before the check kernel. */
  size_t temp_bytes;
} ndx_cuda_index_call;

/* Plans a gather (`scatter` false) or a scatter for `fn`'s messages, with
 * `internal` flags: what ndx_cuda_gather and ndx_cuda_scatter check before
 * looking at pointers (ndx_index_plan_make's refusals, and NDX_EINVAL for
 * unknown internal flags or a claims scatter told to skip its check). `c`
 * untouched on failure. O(rank^2), no allocation. */
ndx_status ndx_cuda_index_fill(ndx_cuda_index_call *c, const char *fn, bool scatter,
                               const ndx_layout *dst_l, const ndx_layout *src_l, int axis,
                               const ndx_layout *index_l, int index_bits, unsigned flags, int bits,
                               unsigned internal);

/* An index plan (ndx_cuda_index_plan_create_gather/_scatter): the planned
 * call, on the heap. */
struct ndx_cuda_index_plan {
  ndx_cuda_index_call call;
};

/* ndx_cuda_gather (`scatter` false) or ndx_cuda_scatter with `internal`
 * flags, for the tests and the bench (cuda_index.c). */
ndx_status ndx_cuda_index_flags(bool scatter, unsigned internal, cudaStream_t stream, void *dst,
                                const ndx_layout *dst_l, const void *src, const ndx_layout *src_l,
                                int axis, const void *index, const ndx_layout *index_l,
                                int index_bits, unsigned flags, int bits);

#ifdef __cplusplus
}
#endif

#endif /* NDX_CUDA_INDEX_PLAN_H */
