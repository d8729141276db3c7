/* ndx_cuda_select.h: which CUDA kernel runs, case by case: a small database
 * in the manner of CLBlast's, keyed by the path's own kernel (one per path
 * of the shared planner: transpose, rows, gather), the element width and a
 * shape class, read by the planner (src/device/cuda_plan.c) alone. Users
 * never see it.
 *
 * Two kernels can run most transposes and rows: the path's own kernel
 * (transpose, rows, gather and gather-flip) and a candidate
 * (transpose-32x8, warp-rows; ndx_cuda_args.h describes each). The entries
 * below name the path's own kernel for every key: those are the kernels
 * measured on an NVIDIA H200 (2026-11-30, docs/bench-cuda-h200.txt; each
 * entry names the ndx-bench-cuda cases it runs). A candidate runs in the
 * library only where an entry names it, and an entry names it only once
 * `ci/gpu --compare` has timed both on a GPU and it won; until then the
 * tuning tool (`ndx-bench-cuda --compare`) times it and the host emulator
 * (tests/test_cuda_emulate.cu) checks it, through the planner's entry that
 * plans a named candidate (ndx_cuda_plan_fill_kernel). A key with no entry
 * keeps the path's own kernel. */
#ifndef NDX_CUDA_SELECT_H
#define NDX_CUDA_SELECT_H

#include "ndx_cuda_args.h"

/* Shape classes: what a kernel's speed depends on beyond path and width. */
enum ndx_cuda_shape {
  NDX_CUDA_SHAPE_TILES,      /* transpose: both sides at least a tile side, no grouped axis */
  NDX_CUDA_SHAPE_GROUPED,    /* transpose: a short K or J grouped with the axis continuing it */
  NDX_CUDA_SHAPE_SKINNY,     /* transpose: a side shorter than a tile side, nothing to group */
  NDX_CUDA_SHAPE_COLUMNS,    /* transpose: source stride 0 along j (a broadcast column) */
  NDX_CUDA_SHAPE_LONG_ROWS,  /* rows, gather: rows of NDX_CUDA_LONG_ROW_BYTES or more */
  NDX_CUDA_SHAPE_SHORT_ROWS, /* rows, gather: shorter rows */
  NDX_CUDA_SHAPES
};

typedef struct ndx_cuda_choice {
  int own;    /* enum ndx_cuda_kernel: the path's own kernel */
  int bits;   /* element width; 0: every width */
  int shape;  /* enum ndx_cuda_shape */
  int kernel; /* enum ndx_cuda_kernel: the path's own, or the shape class's candidate */
} ndx_cuda_choice;

/* The first entry that matches wins; keep width-specific entries first. */
static const ndx_cuda_choice ndx_cuda_choices[] = {
    /* "transpose fp32 4096x4096", "transpose fp32 4000x3000", the rank 3-5 permutations */
    {NDX_CUDA_TRANSPOSE, 32, NDX_CUDA_SHAPE_TILES, NDX_CUDA_TRANSPOSE},
    /* "transpose fp32 3x1000003", "transpose fp32 1000003x3" */
    {NDX_CUDA_TRANSPOSE, 32, NDX_CUDA_SHAPE_SKINNY, NDX_CUDA_TRANSPOSE},
    /* "permute rank 8 fp32 [8]^8 reversed", "... [8]^8 (1,3,5,7,0,2,4,6)" */
    {NDX_CUDA_TRANSPOSE, 32, NDX_CUDA_SHAPE_GROUPED, NDX_CUDA_TRANSPOSE},
    /* "broadcast columns fp32 [4096,1] -> [4096,4096]" */
    {NDX_CUDA_TRANSPOSE, 32, NDX_CUDA_SHAPE_COLUMNS, NDX_CUDA_TRANSPOSE},
    /* "narrow 3-d fp32 ..." (an odd column offset), "flip outer fp32 ...", "slice step 2
     * outer fp32 ...", "broadcast rows fp32 ..." */
    {NDX_CUDA_ROWS, 32, NDX_CUDA_SHAPE_LONG_ROWS, NDX_CUDA_ROWS},
    /* "flip inner fp32 ...", "flip 1-d fp32 ...", "slice step 2 inner fp32 ..." */
    {NDX_CUDA_GATHER, 32, NDX_CUDA_SHAPE_LONG_ROWS, NDX_CUDA_GATHER},
    /* every other width and shape: the paths' own kernels, not measured per key
     * (8-bit 8000x8000's edge strips run transpose) */
    {NDX_CUDA_TRANSPOSE, 0, NDX_CUDA_SHAPE_TILES, NDX_CUDA_TRANSPOSE},
    {NDX_CUDA_TRANSPOSE, 0, NDX_CUDA_SHAPE_SKINNY, NDX_CUDA_TRANSPOSE},
    {NDX_CUDA_TRANSPOSE, 0, NDX_CUDA_SHAPE_GROUPED, NDX_CUDA_TRANSPOSE},
    {NDX_CUDA_TRANSPOSE, 0, NDX_CUDA_SHAPE_COLUMNS, NDX_CUDA_TRANSPOSE},
    {NDX_CUDA_ROWS, 0, NDX_CUDA_SHAPE_LONG_ROWS, NDX_CUDA_ROWS},
    {NDX_CUDA_ROWS, 0, NDX_CUDA_SHAPE_SHORT_ROWS, NDX_CUDA_ROWS},
    {NDX_CUDA_GATHER, 0, NDX_CUDA_SHAPE_LONG_ROWS, NDX_CUDA_GATHER},
    {NDX_CUDA_GATHER, 0, NDX_CUDA_SHAPE_SHORT_ROWS, NDX_CUDA_GATHER},
};

/* The candidate kernel that can run a case of this shape class. */
static inline int ndx_cuda_candidate(int shape) {
  return shape == NDX_CUDA_SHAPE_TILES || shape == NDX_CUDA_SHAPE_GROUPED ||
                 shape == NDX_CUDA_SHAPE_SKINNY
             ? NDX_CUDA_TRANSPOSE_32X8
             : NDX_CUDA_WARP_ROWS;
}

/* The kernel for (own, bits, shape), `own` the path's own kernel: the
 * first matching entry's where it is `own` or the shape class's candidate,
 * else `own`. */
static inline int ndx_cuda_select(int own, int bits, int shape) {
  int n = (int)(sizeof ndx_cuda_choices / sizeof ndx_cuda_choices[0]);
  for (int k = 0; k < n; k++) {
    const ndx_cuda_choice *c = &ndx_cuda_choices[k];
    if (c->own == own && (c->bits == 0 || c->bits == bits) && c->shape == shape)
      return c->kernel == ndx_cuda_candidate(shape) ? c->kernel : own;
  }
  return own;
}

#endif /* NDX_CUDA_SELECT_H */
