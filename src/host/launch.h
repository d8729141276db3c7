/* launch.h: the gpu shape's launch descriptor (kernels/ndx_launch.h),
 * filled by the shared planner from a copy plan, on plain data.
 *
 * Step 4 of copy_plan.h for the gpu-shaped kernels (kernels/ndx_copy_gpu.h):
 * what each work-group and work-item does, decided here once, so that the
 * kernel decides nothing. The OpenCL runtime (src/device/cl.c) uses it for
 * its gpu shape, and the GPU memory model (bench/gpu_model.c) runs the same
 * descriptors through the same bodies on the host. */
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

#endif /* NDX_LAUNCH_PLAN_H */
