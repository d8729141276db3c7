/* gpu_model.h: the GPU memory model of ndx-bench --gpu-model: what one
 * warp's request costs the memory system, by Nsight Compute's definitions.
 *
 * A request is the accesses of the (up to 32) lanes of one warp at one
 * load or store instruction. Global memory moves 32-byte sectors: a request
 * costs the distinct sectors its bytes touch (l1tex__t_sectors_pipe_lsu_
 * mem_global_op_{ld,st} per request), and its sector use is its bytes over
 * 32 bytes a sector. Work-group (shared) memory has 32 banks of 4 bytes: a
 * request is served in wavefronts, at least one per group of lanes whose
 * accesses fill 128 bytes (32 lanes of up to 4 bytes, 16 of 8, 8 of 16),
 * and one more for each further distinct 4-byte word one bank is asked for
 * in a group (l1tex__data_pipe_lsu_wavefronts_mem_shared per request); a
 * word asked for by several lanes is one access (a broadcast). */
#ifndef NDX_BENCH_GPU_MODEL_H
#define NDX_BENCH_GPU_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gpu_cases.h"

#define GPU_MODEL_WARP 32
#define GPU_MODEL_SECTOR 32
#define GPU_MODEL_BANKS 32

/* One lane's access: `bytes` bytes from byte address `addr`. */
typedef struct gpu_model_access {
  int lane; /* 0 .. GPU_MODEL_WARP - 1 */
  int bytes;
  int64_t addr;
} gpu_model_access;

/* The distinct sectors of a global request's n accesses; into *bytes, the
 * distinct bytes they touch. */
int64_t gpu_model_sectors(const gpu_model_access *a, int n, int64_t *bytes);

/* The wavefronts a shared-memory request of n accesses of one size (1, 2,
 * 4, 8 or 16 bytes) takes; into *ideal, the fewest it could take (one per
 * lane group with an access). */
int gpu_model_wavefronts(const gpu_model_access *a, int n, int *ideal);

/* What the model finds for one copy, gather or scatter case. */
typedef struct gpu_model_result {
  /* the plan's path ("buffer": no kernel, nothing below; idx-rows,
   * idx-elems, idx-bytes: the copy pass of a gather or scatter) */
  const char *path;
  double load_use, load_bound; /* global loads: sector use and its bound */
  double store_use, store_bound;
  long long waves, ideal; /* shared memory wavefronts, and the fewest */
  /* shared-memory requests whose addresses are data (NDX_TRACE_BY_VALUE:
   * a gather's picks from work-group memory), counted apart from waves and
   * ideal: their wavefronts, the fewest, and the requests */
  long long value_waves, value_ideal, value_requests;
  double in_flight;      /* bytes of loads in flight per SM */
  bool below, conflicts; /* a use under 0.9 of its bound; waves > ideal */
  int64_t shared;        /* work-group memory a block reserves, bytes */
} gpu_model_result;

/* Models one copy or conversion case (gpu_cases.h): plans it for the gpu
 * shape, runs its sampled work-groups and fills *r (a conversion's path:
 * cv-elems or cv-bytes, ndx_convert_choose's family). */
void gpu_model_case(const gpu_case *c, gpu_model_result *r);

/* Models one gather or scatter case (gpu_cases.h): plans it for the gpu
 * shape, runs the sampled work-groups of both passes and fills *r. Its
 * bounds are those of the sample's own bytes (the addresses depend on the
 * index values). */
void gpu_model_index_case(const gpu_index_case *c, gpu_model_result *r);

/* ndx-bench --gpu-model: every copy, conversion, gather and scatter case
 * of ndx-bench-cuda (bench/gpu_cases.h) planned for the gpu-shaped kernels
 * (src/host/launch.h, src/host/index_plan.h) and run on the host through
 * their bodies (kernels/ndx_copy_gpu.h, ndx_convert_items.h,
 * ndx_index_gpu.h) in sampled
 * work-groups, each access recorded. Cases whose name contains `only`
 * (NULL: all). Prints one line per case and, last,
 * "gpu model: N cases, K below bound, C with bank conflicts", and writes a
 * row a case to `csv` when not NULL; returns 0, or 1 when K or C is not 0. */
int gpu_model_run(const char *only, FILE *csv);

#endif /* NDX_BENCH_GPU_MODEL_H */
