/* ndx_cuda_tuning.h: the tuned parameters of ndx's CUDA kernels, in one
 * place (chosen on an H200 with ndx-bench-cuda), read by the planner
 * (src/device/cuda_plan.c) and the kernels (ndx_copy_cuda.cuh) alike. */
#ifndef NDX_CUDA_TUNING_H
#define NDX_CUDA_TUNING_H

/* Threads per block of every kernel. */
#define NDX_CUDA_THREADS 256

/* The blocks an SM must hold at once (__launch_bounds__' second
 * argument) for the gpu-shaped kernels whose long bodies hold a batch of
 * loads in registers (kernels/ndx_gpu_batch.h): ndx_rows_staged and
 * ndx_convert_elements: enough registers that ptxas spills none of the
 * batch, which -Xptxas=-warn-spills makes a build error under werror
 * (src/device/cuda/meson.build); docs/device.md section 10 gives the
 * figures and what a GPU run has to decide. */
#define NDX_CUDA_BATCH_BLOCKS 3

/* The blocks an SM must hold at once for the copy's transposes
 * (ndx_transpose of kernels/ndx_copy_gpu.cu): the most that leave ptxas
 * room to spill nothing at any width, so that the loads in flight come
 * near what the GPU memory model counts at the occupancy of threads,
 * blocks and work-group memory (ndx-bench --gpu-model, the transpose
 * cases); docs/device.md section 10 gives the register figures. */
#define NDX_CUDA_TILE_BLOCKS 4

/* The blocks an SM must hold at once for the conversions' transposes
 * (ndx_convert_transpose of kernels/ndx_convert.cu): given none, ptxas
 * spills registers to reach a third block, which the build refuses; with
 * two, it spills nothing. */
#define NDX_CUDA_CONVERT_TILE_BLOCKS 2

/* Most blocks a launch uses; grid-stride loops take the rest. */
#define NDX_CUDA_MAX_BLOCKS 16384

/* Items a rows or gather thread loads before it stores, for `vb`-byte
 * items: four 16-byte vectors, or eight narrower items, in flight. */
#define NDX_CUDA_UNROLL(vb) ((vb) >= 16 ? 4 : 8)

/* transpose: the side of a square tile; elements of a tile (all batch
 * entries of a block together), and the most batch entries one block takes.
 * An axis shorter than the side is grouped with the axis continuing its run. */
#define NDX_CUDA_TILE_SIDE 32
#define NDX_CUDA_TILE_ELEMS 1024
#define NDX_CUDA_TILE_BATCH 64

/* transpose-32x8, a candidate kernel for transposes (emulator-tested only,
 * not yet measured on a GPU; kernels/ndx_cuda_select.h says where it runs): square
 * tiles of NDX_CUDA_T32_SIDE elements a side, the block's threads seen as
 * NDX_CUDA_T32_SIDE columns by NDX_CUDA_T32_ROWS rows, so that each thread
 * moves NDX_CUDA_T32_SIDE / NDX_CUDA_T32_ROWS elements per phase. Tiles are
 * placed by blockIdx (x: along j, y: along k, z: batch entries); y and z
 * stop at the hardware's NDX_CUDA_GRID_YZ and the blocks loop over the rest. */
#define NDX_CUDA_T32_SIDE 32
#define NDX_CUDA_T32_ROWS (NDX_CUDA_THREADS / NDX_CUDA_T32_SIDE)
#define NDX_CUDA_GRID_YZ 65535

/* warp-rows (emulator-tested only, like transpose-32x8): NDX_CUDA_ROW_THREADS
 * consecutive threads (a warp on NVIDIA) take one destination row, with
 * NDX_CUDA_ROW_VECTOR-byte vectors where the row's alignment allows. A row
 * of at least NDX_CUDA_LONG_ROW_BYTES (one vector per thread) is "long" in
 * the selection table. */
#define NDX_CUDA_ROW_THREADS 32
#define NDX_CUDA_ROW_VECTOR 16
#define NDX_CUDA_LONG_ROW_BYTES (NDX_CUDA_ROW_THREADS * NDX_CUDA_ROW_VECTOR)
/* warp-rows: a longer row is cut into segments of this many bytes (eight
 * vectors per thread), each taken by one group of threads, so that a few
 * long rows still fill the device. */
#define NDX_CUDA_ROW_SEGMENT_BYTES (8 * NDX_CUDA_LONG_ROW_BYTES)

/* transpose by words, for `bits`-bit elements (E = 32/bits per word): a tile
 * of NDX_CUDA_WORDS_K words along k by NDX_CUDA_WORDS_J blocks of E
 * elements along j. */
#define NDX_CUDA_WORDS_K 32
#define NDX_CUDA_WORDS_J 8
#define NDX_WORDS_TK(bits) (NDX_CUDA_WORDS_K * (32 / (bits)))
#define NDX_WORDS_TJ(bits) (NDX_CUDA_WORDS_J * (32 / (bits)))

/* bytes: destination elements per thread on average (the two
 * ndx_count_below and the odometer start are paid once per item). */
#define NDX_CUDA_BYTES_ELEMS 64

/* Gathers and scatters (kernels/ndx_index.cu): index elements a check
 * thread tests; elements a copy thread takes (8 bits and up, an index value
 * each), bytes of a row a copy thread takes when the index is constant along
 * rows, and destination elements a sub-byte copy thread takes on average.
 * Small items: consecutive threads take consecutive elements, so the
 * accesses of a warp coalesce. Not yet measured on a GPU. */
#define NDX_CUDA_INDEX_CHECK_ELEMS 16
#define NDX_CUDA_INDEX_ELEMS 1
#define NDX_CUDA_INDEX_ROW_BYTES 16
#define NDX_CUDA_INDEX_BYTES_ELEMS 16

#endif /* NDX_CUDA_TUNING_H */
