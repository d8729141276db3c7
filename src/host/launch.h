/* launch.h: the launch descriptor (kernels/ndx_launch.h) of both kernel
 * shapes, filled by the shared planner from a copy plan, on plain data.
 *
 * Step 4 of copy_plan.h: what each work-group and work-item does, decided
 * here once. For the gpu-shaped kernels (kernels/ndx_copy_gpu.h, launch.c)
 * the whole descriptor, so that the kernel decides nothing; the OpenCL
 * runtime (src/device/cl.c) uses it for its gpu shape, and the GPU memory
 * model (bench/gpu_model.c) runs the same descriptors through the same
 * bodies on the host. For the cpu-shaped ones (kernels/ndx_copy_cpu.h,
 * launch_cpu.c) the work of a work-item, from the runtime's tuned sizes. */
#ifndef NDX_LAUNCH_PLAN_H
#define NDX_LAUNCH_PLAN_H

#include "copy_plan.h"
#include "ndx_launch.h"

/* What the gpu-shaped kernels add to the common paths: nothing. A
 * contiguous copy is the device's buffer copy, and the gather takes every
 * element alike, strided runs included. */
extern const ndx_copy_caps ndx_gpu_caps;

/* Fills `d` for plan `p` (a kernel path, planned with ndx_gpu_caps) and
 * sets *groups to the work-groups to launch, of `local` work-items each:
 * one work-item per unit (a work-group per transpose tile), at most
 * `max_groups` groups (the work-items then loop over the units). Cannot
 * fail. */
void ndx_launch_gpu(const ndx_copy_plan *p, int64_t local, int64_t max_groups, ndx_launch *d,
                    int64_t *groups);

/* ndx_launch_gpu for a conversion's transpose from `src_bits`-bit source
 * elements, plan p made at the destination's width: the tile holds
 * converted elements (kernels/ndx_convert_gpu.h), so its shape, pitch and
 * phase 2 are the destination's, and phase 1 realigns on the source's
 * sectors (a 4-bit source's: never). Other paths as ndx_launch_gpu. */
void ndx_launch_gpu_convert(const ndx_copy_plan *p, int src_bits, int64_t local, int64_t max_groups,
                            ndx_launch *d, int64_t *groups);

/* The cpu shape's tuned work sizes (a runtime's tuning table: the OpenCL
 * runtime's NDX_CL_* of src/device/cl_tuning.h). */
typedef struct ndx_cpu_tuning {
  int64_t rows_bytes;   /* bytes a rows item copies, and a gather item of strided runs */
  int64_t gather_elems; /* elements any other gather item copies */
  int64_t bytes_elems;  /* destination elements a bytes item aims at on average */
  int64_t tile_elems;   /* elements a transpose item copies at least (ndx_tile_batches) */
} ndx_cpu_tuning;

/* The cpu shape's launch (kernels/ndx_copy_cpu.h) of plan `p` (a kernel
 * path), from the runtime's tuned sizes `t`: d->chunk, the work of one
 * work-item, and *items, the work-items. A transpose's small tiles join the
 * batch axes next to them that continue them (ndx_copy_tile_join), which
 * the transpose kernel finds in the pack (ndx_tile_groups). Cannot fail. */
void ndx_launch_cpu(const ndx_copy_plan *p, const ndx_cpu_tuning *t, ndx_launch *d, int64_t *items);

#endif /* NDX_LAUNCH_PLAN_H */
