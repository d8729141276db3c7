/* cuda_plan.h: CUDA copy plans, for the runtime (cuda.c), its tests and the
 * CUDA bench; users never see it. Planning (cuda_plan.c) is plain C with no
 * CUDA call, on the shared planner (host/copy_plan.h), so that the host
 * emulator of the kernels (tests/test_cuda_emulate.cu) runs every plan on
 * machines without a GPU. */
#ifndef NDX_CUDA_PLAN_H
#define NDX_CUDA_PLAN_H

#include <stdint.h>

#include "ndx/ndx_layout.h"
#include "ndx_cuda_args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* At most: a word transpose's main part and its two edge strips. */
#define NDX_CUDA_MAX_STEPS 3

struct ndx_cuda_plan {
  int path; /* enum ndx_copy_path */
  int bits;
  int nsteps;
  ndx_cuda_step step[NDX_CUDA_MAX_STEPS];
  /* Steps to run instead when a pointer is not 4-byte aligned (a word
   * transpose); nalt is 0 when there are none. */
  int nalt;
  ndx_cuda_step alt[1];
  int64_t dst_lo, dst_end, src_lo, src_end; /* bytes each layout's span touches */
};

/* Flags of ndx_cuda_plan_fill and ndx_cuda_plan_create_flags. */
enum {
  NDX_CUDA_PLAN_WIDE = 1u /* 64-bit index math even where 32-bit would do */
};

/* Fills `plan` (no allocation, no CUDA call): what ndx_cuda_plan_create
 * checks and returns, with `flags`. */
ndx_status ndx_cuda_plan_fill(struct ndx_cuda_plan *plan, const ndx_layout *dst_l,
                              const ndx_layout *src_l, int bits, unsigned flags);

/* ndx_cuda_plan_create with `flags`, so that tests run the 64-bit index
 * math on small data; NDX_EINVAL for unknown flags. */
ndx_status ndx_cuda_plan_create_flags(struct ndx_cuda_plan **out, const ndx_layout *dst_l,
                                      const ndx_layout *src_l, int bits, unsigned flags);

/* ndx_cuda_plan_fill, with candidate kernel `kernel` (NDX_CUDA_TRANSPOSE_32X8
 * or NDX_CUDA_WARP_ROWS, kernels/ndx_cuda_select.h) in every step whose
 * shape class it runs, whatever the selection table names there: for the
 * tuning tool (ndx-bench-cuda --compare), which times a candidate beside the
 * table's kernel, and the emulator, which checks the candidates. NDX_EINVAL
 * for a kernel that is no candidate. */
ndx_status ndx_cuda_plan_fill_kernel(struct ndx_cuda_plan *plan, const ndx_layout *dst_l,
                                     const ndx_layout *src_l, int bits, unsigned flags, int kernel);

/* ndx_cuda_plan_create_flags with ndx_cuda_plan_fill_kernel's `kernel`. */
ndx_status ndx_cuda_plan_create_kernel(struct ndx_cuda_plan **out, const ndx_layout *dst_l,
                                       const ndx_layout *src_l, int bits, unsigned flags,
                                       int kernel);

/* The kernel a step runs, for messages and benchmarks: "buffer", "rows",
 * "gather", "gather-flip", "transpose", "transpose-words", "bytes",
 * "transpose-32x8", "warp-rows"; "none" for anything else. */
const char *ndx_cuda_step_name(const ndx_cuda_step *s);

/* The steps a launch runs for these pointers: `plan->step` or `plan->alt`,
 * with each vector step's width narrowed to what the pointers allow. Writes
 * at most NDX_CUDA_MAX_STEPS steps to `out` and returns their count. */
int ndx_cuda_plan_steps(const struct ndx_cuda_plan *plan, uintptr_t dst, uintptr_t src,
                        ndx_cuda_step *out);

#ifdef __cplusplus
}
#endif

#endif /* NDX_CUDA_PLAN_H */
