/* ndx_gpu_batch.h: a work-item's batch of units between their loads and
 * their stores, in the gpu shape's bodies that load NDX_GPU_BATCH units
 * before they store any (ndx_copy_gpu.h, ndx_index_gpu.h,
 * ndx_convert_items.h, ndx_convert_gpu.h), so that a warp has that many
 * loads in flight.
 *
 * The batch is a queue: phase 1 empties it and pushes each unit it loads
 * at the end; phase 2 takes the first and pushes an empty one. A loop over
 * the batch that the compiler keeps rolled (its body has a loop of its
 * own, a position's, or a conversion's switch) then indexes it by
 * constants only, and the batch stays in registers. An array indexed by
 * the loop's counter lives on the stack instead, and storing each loaded
 * value there waits for it: one load in flight, whatever the batch. ptxas
 * shows which: the CUDA build of the gpu-shaped kernels passes
 * -Xptxas=-warn-lmem-usage (src/device/cuda/meson.build), an error under
 * -Dwerror=true. Phase 2 reads q[0] and pushes in the body itself: a
 * function that returned the unit it took made CUDA 13.0's nvcc compile
 * ndx_convert_elements to an empty kernel. */
#ifndef NDX_GPU_BATCH_H
#define NDX_GPU_BATCH_H

#include "ndx/ndx_device.h"
#include "ndx_launch.h"

/* A unit between its phases: its value, loaded whole (an element, a
 * vector, or a conversion's source bits), and where phase 2 puts it (a
 * destination position, or a byte of work-group memory), negative where it
 * puts nothing: -1 past the launch, or outside a buffer in the bounds-check
 * build; other negative values are the body's own marks. */
typedef struct ndx_gpu_held {
  ndx_u128 v;
  ndx_i64 to;
} ndx_gpu_held;

/* The unit that phase 2 skips. */
NDX_FN ndx_gpu_held ndx_gpu_none(void) {
  ndx_gpu_held h;
  h.v.x = h.v.y = 0, h.to = -1;
  return h;
}

/* Empties batch q. */
NDX_FN void ndx_gpu_clear(ndx_gpu_held *q) {
  for (int k = 0; k < NDX_GPU_BATCH; k++) q[k] = ndx_gpu_none();
}

/* Pushes h at the end of batch q, dropping its first unit. */
NDX_FN void ndx_gpu_push(ndx_gpu_held *q, ndx_gpu_held h) {
  for (int k = 0; k + 1 < NDX_GPU_BATCH; k++) q[k] = q[k + 1];
  q[NDX_GPU_BATCH - 1] = h;
}

#endif /* NDX_GPU_BATCH_H */
