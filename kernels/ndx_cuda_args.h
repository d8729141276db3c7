/* ndx_cuda_args.h: the steps of a CUDA copy plan and the arguments of ndx's
 * CUDA kernels, shared by the planner (src/device/cuda_plan.c), the kernels
 * (ndx_copy_cuda.cuh, ndx_copy.cu) and the host emulator
 * (tests/test_cuda_emulate.cu). Users never see it.
 *
 * A plan is a short list of steps; each step is one cudaMemcpyAsync or one
 * kernel launch whose arguments (ndx_cuda_args, the pack included) are passed
 * by value. The kernels, by family (the path names of both runtimes,
 * docs/device.md section 9; bits >= 8 unless said):
 *   rows       item u = `vel` consecutive elements of C-order index u*vel:
 *              their positions by magic division (ndx_position), one 1..16-
 *              byte vector access on each side (unit innermost strides).
 *   gather     one element per item with any strides; gather-flip: a source
 *              stride of -1 under a unit destination, vectors read backwards.
 *   transpose  a batched 2-d transpose through shared memory: the pack in
 *              the order [batch..., (K2), K, (J2), J], the source unit-stride
 *              along K, the destination along J, a short K or J grouped with
 *              the axis that continues its run; tiles of tk x tj elements of
 *              the two groups (tb batch entries when one tile covers both),
 *              read along the k group, written along the j group.
 *              transpose-words: the same for 1..16 bits aligned to 32-bit
 *              words: each thread reads E = 32/bits words down j, transposes
 *              the E x E block in registers and hands whole words on through
 *              shared memory, so every destination word has one writer.
 *   bytes      widths 1, 2, 4: destination bytes [first + i*chunk, ...) of
 *              [first, end) per thread (ndx_bytes_item, ndx_copy_bytes):
 *              each byte has one writer and keeps its bits that belong to
 *              no destination element.
 * Two candidate kernels run in their place where kernels/ndx_cuda_select.h
 * names them, or the tuning tool does (ndx_cuda_plan_fill_kernel):
 *   transpose-32x8  transpose's pack and groups, square tiles of 32 x 32,
 *              32 x 8 threads, each thread moving 4 elements per phase; every
 *              thread places its tile from blockIdx (x along j, y along k,
 *              z the batch entry) with no division; one barrier per tile,
 *              two shared buffers taken in turn, rows padded by one element.
 *   warp-rows  NDX_CUDA_ROW_THREADS threads per segment of a destination
 *              row of the pack (its innermost axis, dj elements, cut into nj
 *              segments of `chunk`; `count` segments in all): the segment's
 *              two positions once, then consecutive elements per thread,
 *              16-byte vectors where the destination's stride is 1 (read as
 *              vectors too where the source's is 1 and aligned, else
 *              element by element: one element repeated where it is 0). */
#ifndef NDX_CUDA_ARGS_H
#define NDX_CUDA_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "ndx/ndx_pack.h"
#include "ndx_gpu.h"
#include "ndx_cuda_tuning.h"
/* the along kernel's descriptor; ndx_device.h, which it includes, sets
 * NDX_WIDE where the includer has not, and the includer defines it itself
 * for each form it wants (ndx_cuda_common.cuh) */
#ifdef NDX_WIDE
#include "ndx_index_launch.h"
#else
#include "ndx_index_launch.h"
#undef NDX_WIDE
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A copy pack: two operands, at most NDX_PACK_MAX_RANK axes, wide form. */
#define NDX_CUDA_PACK_BYTES NDX_PACK_MAX_BYTES(2, NDX_PACK_MAX_RANK)

/* The kernel a step runs, by family and variant. */
enum ndx_cuda_kernel {
  NDX_CUDA_BUFFER,          /* cudaMemcpyAsync */
  NDX_CUDA_ROWS,            /* rows */
  NDX_CUDA_GATHER,          /* gather */
  NDX_CUDA_GATHER_FLIP,     /* gather of a flipped source, by vectors */
  NDX_CUDA_TRANSPOSE,       /* transpose by tiles */
  NDX_CUDA_TRANSPOSE_WORDS, /* transpose by 32-bit words */
  NDX_CUDA_BYTES,           /* bytes */
  NDX_CUDA_TRANSPOSE_32X8,  /* transpose by 32x32 tiles, 32x8 threads */
  NDX_CUDA_WARP_ROWS,       /* one warp per destination row */
  NDX_CUDA_KERNELS
};

/* The kernel's arguments, passed by value (under CUDA's 4 KiB). */
typedef struct ndx_cuda_args {
  int64_t count;      /* rows, gather: items; transpose: tiles; bytes: items; warp-rows: segments */
  int64_t chunk;      /* bytes: destination bytes per item; warp-rows: elements per segment */
  int64_t first, end; /* bytes: the destination bytes, [first, end) (ndx_bytes_span) */
  int32_t vel;        /* rows, gather: elements per item (a power of two <= 16 bytes) */
  int32_t bits;       /* element width */
  /* transpose: the tile and how tile indices split. */
  int32_t tk, tj, tb; /* tile extents along k and j; batch entries */
  int32_t gk, gj;     /* tiles: 1 when the k (j) group has an outer axis K2 (J2) */
  int32_t pow2;       /* tiles: tk and tj are powers of two */
  int32_t lk, lj;     /* tiles: their log2 when pow2 */
  uint32_t mk, mj;    /* tiles: their 32-bit magic numbers otherwise */
  int32_t sk, sj;     /*        and shifts */
  int64_t dk, dj;     /* extents of the k and j groups that this step covers; warp-rows: dj
                       * elements per row */
  int64_t nk, nj;     /* tiles along k and along j; warp-rows: nj segments per row */
  int64_t nbatch;     /* batch entries (product of the other extents) */
  uint64_t mnj, mnk;  /* 64-bit magic numbers of nj and nk (warp-rows: nj) */
  int32_t snj, snk;   /* and shifts */
  uint64_t pack[NDX_CUDA_PACK_BYTES / 8]; /* the step's pack */
} ndx_cuda_args;

typedef struct ndx_cuda_step {
  int kernel; /* enum ndx_cuda_kernel */
  int wide;   /* the pack's form */
  int64_t numel;
  /* buffer: bytes [src_off, +bytes) to [dst_off, +bytes). */
  size_t dst_off, src_off, bytes;
  /* rows and gather-flip: the widest vector (bytes) the strides allow; the
   * launch narrows it to what the pointers allow. */
  int vec_max;
  int64_t dst_first, src_first; /* element whose byte address must be aligned */
  ndx_cuda_args args;
} ndx_cuda_step;

/* ---- Gathers and scatters (src/device/cuda_index_plan.h) -------------------- */

/* The arguments of a gather's or scatter's kernels (kernels/ndx_index.cu),
 * by value as for copies; the device pointers follow them. The check kernel
 * takes items of `chunk` index elements of the check pack (index, claim
 * slot, axis coordinate, C-order index in S: src/host/index_plan.h); the
 * copy kernel items of `chunk` C-order elements of the copy pack (dst, src,
 * index or claims; the winners form's claim slot and axis coordinate), or
 * below 8 bits `chunk` destination bytes each. */
#define NDX_CUDA_INDEX_PACK_BYTES NDX_PACK_MAX_BYTES(5, NDX_PACK_MAX_RANK)

typedef struct ndx_cuda_index_args {
  int64_t count;        /* items */
  int64_t chunk;        /* index elements (check), elements or destination bytes (copy) per item */
  int64_t d;            /* values are valid in [0, d), or [-d, d) with wrap */
  int64_t bias;         /* subtracted from a value before it is tested (claims: 1) */
  int64_t step0, step1; /* copy: a value k moves dst by k*step0, src by k*step1 */
  int64_t claim_stride; /* check, winners copy: claim slot of k = slot of 0 + k*claim_stride */
  int64_t first, end;   /* copy below 8 bits: the destination's bytes (ndx_bytes_span) */
  int32_t bits;         /* copy: element width */
  int32_t index_bits;   /* 32 or 64 (32 for a claims table) */
  int32_t wrap;         /* NDX_INDEX_WRAP */
  int32_t rows;         /* copy: innermost strides 1, 1, 0 (index_plan.h's `rows`) */
  int32_t wide;         /* the pack's form */
  int32_t pad;
  uint64_t pack[NDX_CUDA_INDEX_PACK_BYTES / 8];
} ndx_cuda_index_args;

/* Launches the check kernel with `blocks` blocks of NDX_CUDA_THREADS on
 * `stream`: `claims` NULL without claims, `status` the call's
 * NDX_INDEX_STATUS_WORDS words (kernels/ndx_index_items.h). Returns the CUDA
 * error code. Defined in kernels/ndx_index.cu. */
int ndx_cuda_index_launch_check(const ndx_cuda_index_args *a, int64_t blocks, void *stream,
                                const void *index, uint32_t *claims, uint32_t *status);

/* The along kernel's arguments (a gather's copy pass where
 * ndx_index_plan_along holds): the gpu shape's launch descriptor with the
 * copy pack right after it, as kernels/ndx_index_gpu.h reads them. */
typedef struct ndx_cuda_along_args {
  ndx_index_launch d;
  uint64_t pack[NDX_CUDA_INDEX_PACK_BYTES / 8];
} ndx_cuda_along_args;

/* Launches the along kernel for `bits`-bit elements (8 .. 128), which
 * writes nothing when status[0] is set: blocks of NDX_CUDA_THREADS, each
 * through NDX_GPU_ALONG_BYTES of shared memory (ndx_gpu_index_along_wN). */
int ndx_cuda_index_launch_along(const ndx_cuda_along_args *a, int bits, int64_t blocks,
                                void *stream, void *dst, const void *src, const void *index,
                                const uint32_t *status);

/* Launches the copy kernel, which writes nothing when status[0] is set;
 * `index` is the claims table in a claims scatter; `claims` the table in a
 * winners scatter, else NULL. */
int ndx_cuda_index_launch_copy(const ndx_cuda_index_args *a, int64_t blocks, void *stream,
                               void *dst, const void *src, const void *index,
                               const uint32_t *claims, const uint32_t *status);

/* The launch geometry of a kernel step: grid[0..2] blocks along x, y, z,
 * each of NDX_CUDA_THREADS threads along x; returns their product, 0 for
 * none (src/device/cuda_plan.c). */
int64_t ndx_cuda_grid(const ndx_cuda_step *s, uint32_t grid[3]);

/* Runs one kernel step on `stream`; returns the CUDA error code (0 for
 * success). Defined in kernels/ndx_copy.cu. */
int ndx_cuda_launch_step(const ndx_cuda_step *s, void *stream, void *dst, const void *src);

#ifdef __cplusplus
}
#endif

#endif /* NDX_CUDA_ARGS_H */
