/* cl_tuning.h: the tuned parameters of ndx's OpenCL kernels, in one place
 * (chosen on PoCL with ndx-bench --cl and bench/ndx-tune-cl; a port to
 * another device starts here). */
#ifndef NDX_CL_TUNING_H
#define NDX_CL_TUNING_H

/* Work per work-item: bytes a rows item copies (and a gather item whose
 * runs the gather kernel copies at row speed), elements any other gather
 * item copies, destination elements a bytes item aims at on average. */
#define NDX_CL_ROWS_BYTES 8192
#define NDX_CL_GATHER_ELEMS 512
#define NDX_CL_BYTES_ELEMS 2048

/* Elements a transpose item copies at least, in as many batches of its
 * tile position as that takes (ndx_tile_batches): tiles smaller than this
 * share one item's start. */
#define NDX_CL_TILE_ELEMS 4096

/* Gathers and scatters: index elements a check item tests; bytes a copy
 * item moves by rows (one index value a row), elements it copies one by one,
 * destination elements of a sub-byte copy item. */
#define NDX_CL_INDEX_CHECK_ELEMS 4096
#define NDX_CL_INDEX_ROWS_BYTES 65536

/* A gather's copy pass by rows writes its rows with streaming stores where
 * the device has them (x86 CPUs, NDX_STREAM in kernels/ndx_cpu_vectors.h)
 * when it writes at least three quarters of the device's global memory
 * cache (CL_DEVICE_GLOBAL_MEM_CACHE_SIZE): an output the cache would not
 * keep, sent past it with no read for ownership. (Scatters' rows, at random
 * places of their table, always stream.) An output the cache keeps is
 * faster written through it (ndx-bench --cl cases "embedding lookup f32
 * [65536,256] by 32768", past the cache of a 32 MiB L3, and "embedding
 * lookup 4-bit [65536,512] by 32768", inside it). */
#define NDX_CL_STREAM_CACHE_SHARE(cache) ((cache) / 4 * 3)
#define NDX_CL_INDEX_ELEMS 512
#define NDX_CL_INDEX_BYTES_ELEMS 16384

/* Work-items per work-group (less where a kernel allows less). */
#define NDX_CL_LOCAL_SIZE 64

/* A contiguous copy of at least this many bytes runs the rows kernel: on
 * PoCL clEnqueueCopyBuffer is one thread's memcpy, slower than a kernel on
 * every core (ndx-bench --cl case "contiguous f32", whose copybuf column is
 * clEnqueueCopyBuffer); below it, the enqueue cost of a kernel (a pack
 * buffer, arguments) outweighs the copy. */
#define NDX_CL_KERNEL_COPY_BYTES (1 << 20)

/* ---- The gpu shape (kernels/ndx_copy_gpu.h) -------------------------------- */

/* Work-items per work-group: eight warps of 32 (NVIDIA) or four
 * wavefronts of 64 (AMD), which a transpose tile of 32 x 32 elements keeps
 * busy with four elements each. Less where a kernel allows less. */
#define NDX_CL_GPU_LOCAL_SIZE 256

/* The most work-groups a launch has: more units than these groups' work-
 * items take are looped over (every work-item takes every launch-size-th
 * unit), so that a huge copy costs no more launch than a big one. */
#define NDX_CL_GPU_MAX_GROUPS 65536

/* Conversions, cpu shape: elements a work-item converts (destination bytes
 * of a 4-bit destination: half as many), as many as a gather's chunk moves
 * in bytes for the widest pair. */
#define NDX_CL_CONVERT_ELEMS 1024

/* Conversions, cpu shape: a transpose's tile, elements along the source's
 * unit axis (k) and the destination's (j): its source lines are asked for
 * at its start, and it goes in blocks of 16 x 8 (ndx_convert_cpu.h;
 * ndx-bench case "convert f32 -> f16 transpose 4096x4096", against tiles
 * of 128 x 64 and 128 x 128). */
#define NDX_CL_CONVERT_TILE_K 64
#define NDX_CL_CONVERT_TILE_J 64

#endif /* NDX_CL_TUNING_H */
