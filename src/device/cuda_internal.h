/* cuda_internal.h: what the CUDA runtime (cuda.c, cuda_plan.c), its kernels
 * (kernels/ndx_copy.cu) and its tests share, and users never see.
 *
 * A plan is a short list of steps; each step is one cudaMemcpyAsync or one
 * kernel launch whose arguments (ndx_cuda_args, the pack included) are
 * passed by value. Planning is plain C with no CUDA call, so that the host
 * emulator of the kernels (tests/test_cuda_emulate.cu) runs every plan on
 * machines without a GPU.
 *
 * Kernels, by what they copy (bits >= 8 unless said):
 *   FLAT   item u = `vel` consecutive elements of C-order index u*vel: their
 *          positions by magic division (ndx_position), one 1..16-byte vector
 *          access on each side (`mode` UNIT), a vector read backwards (REV,
 *          source stride -1) or one element with any strides (GATHER).
 *   TILE   a batched 2-d transpose through shared memory: the pack permuted
 *          to [batch..., (K2), K, (J2), J], the source unit-stride along K,
 *          the destination along J, a short K or J grouped with the axis
 *          that continues its run; tiles of tk x tj elements of the two
 *          groups (tb batch entries when one tile covers both), read along
 *          the k group, written along the j group.
 *   WORDS  the same for widths 1..16 bits aligned to 32-bit words: each
 *          thread reads E = 32/bits words down j, transposes the E x E block
 *          in registers and hands whole words on through shared memory, so
 *          every destination word has exactly one writer.
 *   BYTES  widths 1, 2, 4: destination bytes [first + i*chunk, ...) per
 *          thread (ndx_copy_bytes_item): each byte has one writer and keeps
 *          its bits that belong to no destination element. */
#ifndef NDX_CUDA_INTERNAL_H
#define NDX_CUDA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ndx/ndx_layout.h"
#include "ndx/ndx_pack.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A copy pack: two operands, at most NDX_PACK_MAX_RANK axes, wide form. */
#define NDX_CUDA_PACK_BYTES NDX_PACK_MAX_BYTES(2, NDX_PACK_MAX_RANK)

enum ndx_cuda_kernel {
  NDX_CUDA_NONE,   /* an empty copy: nothing */
  NDX_CUDA_MEMCPY, /* cudaMemcpyAsync */
  NDX_CUDA_FLAT,
  NDX_CUDA_TILE,
  NDX_CUDA_WORDS,
  NDX_CUDA_BYTES,
};

enum ndx_cuda_mode { NDX_CUDA_GATHER, NDX_CUDA_UNIT, NDX_CUDA_REV };

/* Threads per block of every kernel. */
#define NDX_CUDA_THREADS 256
/* Items a FLAT thread loads before it stores, for `vb`-byte items: four
 * 16-byte vectors, or eight narrower items, in flight per thread. */
#define NDX_CUDA_UNROLL(vb) ((vb) >= 16 ? 4 : 8)
/* Elements of a TILE tile (all batch entries of a block together), and the
 * most batch entries one block takes. */
#define NDX_CUDA_TILE_ELEMS 1024
#define NDX_CUDA_TILE_BATCH 64
/* A WORDS tile for `bits`-bit elements (E = 32/bits per word): 32 words
 * along k, 8 blocks of E elements along j. */
#define NDX_WORDS_TK(bits) (32 * (32 / (bits)))
#define NDX_WORDS_TJ(bits) (8 * (32 / (bits)))
/* Most blocks a launch uses; grid-stride loops take the rest. */
#define NDX_CUDA_MAX_BLOCKS 16384

/* The kernel's arguments, passed by value (under CUDA's 4 KiB). */
typedef struct ndx_cuda_args {
  int64_t count; /* FLAT: items; TILE, WORDS: tiles; BYTES: items */
  int64_t chunk; /* BYTES: destination bytes per item */
  int32_t vel;   /* FLAT: elements per item (a power of two <= 16 bytes) */
  int32_t mode;  /* FLAT: enum ndx_cuda_mode */
  /* TILE and WORDS: the tile and how tile indices split. */
  int32_t tk, tj, tb; /* tile extents along k and j; batch entries */
  int32_t gk, gj;     /* TILE: 1 when the k (j) group has an outer axis K2 (J2) */
  int32_t pow2;       /* TILE: tk and tj are powers of two */
  int32_t lk, lj;     /* TILE: their log2 when pow2 */
  uint32_t mk, mj;    /* TILE: their 32-bit magic numbers otherwise */
  int32_t sk, sj;     /*       and shifts */
  int64_t dk, dj;     /* extents of the k and j groups that this step covers */
  int64_t nk, nj;     /* tiles along k and along j */
  int64_t nbatch;     /* batch entries (product of the other extents) */
  uint64_t mnj, mnk;  /* 64-bit magic numbers of nj and nk */
  int32_t snj, snk;   /* and shifts */
  int32_t bits;       /* element width */
  uint64_t pack[NDX_CUDA_PACK_BYTES / 8]; /* ndx_pack_copy's pack, maybe permuted */
} ndx_cuda_args;

typedef struct ndx_cuda_step {
  int kernel; /* enum ndx_cuda_kernel */
  int wide;   /* the pack's form */
  /* MEMCPY: bytes [src_off, +bytes) to [dst_off, +bytes). */
  size_t dst_off, src_off, bytes;
  /* FLAT with mode UNIT or REV: the widest vector (bytes) the strides allow;
   * the launch narrows it to what the pointers allow. */
  int vec_max;
  int64_t dst_first, src_first; /* element whose byte address must be aligned */
  ndx_cuda_args args;
} ndx_cuda_step;

/* At most: a WORDS main part and its two edge strips. */
#define NDX_CUDA_MAX_STEPS 3

struct ndx_cuda_plan {
  int path; /* index into the path names */
  int bits;
  int nsteps;
  ndx_cuda_step step[NDX_CUDA_MAX_STEPS];
  /* Steps to run instead when a pointer is not 4-byte aligned (a WORDS plan
   * for 8 or 16 bits); nalt is 0 when there are none. */
  int nalt;
  ndx_cuda_step alt[1];
  int64_t dst_lo, dst_end, src_lo, src_end; /* bytes each layout's span touches */
};

/* Flags of ndx_cuda_plan_create_flags. */
enum {
  NDX_CUDA_PLAN_WIDE = 1u,    /* 64-bit index math even where 32-bit would do */
  NDX_CUDA_PLAN_GATHER = 2u,  /* skip the buffer, rows and transpose paths */
  NDX_CUDA_PLAN_NO_WORDS = 4u /* transposes of 1..16 bits without the WORDS kernel */
};

/* Fills `plan` (no allocation, no CUDA call): what ndx_cuda_plan_create
 * checks and returns, with `flags`. */
ndx_status ndx_cuda_plan_fill(struct ndx_cuda_plan *plan, const ndx_layout *dst_l,
                              const ndx_layout *src_l, int bits, unsigned flags);

/* ndx_cuda_plan_create with `flags`, so that tests reach every kernel on
 * small data; NDX_EINVAL for unknown flags. */
ndx_status ndx_cuda_plan_create_flags(struct ndx_cuda_plan **out, const ndx_layout *dst_l,
                                      const ndx_layout *src_l, int bits, unsigned flags);

/* The kernel a step runs, for messages and benchmarks: "memcpy", "flat-unit",
 * "flat-rev", "flat-gather", "tile", "words", "bytes" or "none". */
const char *ndx_cuda_step_name(const ndx_cuda_step *s);

/* The steps a launch runs for these pointers: `plan->step` or `plan->alt`,
 * with each FLAT step's vector width narrowed to what the pointers allow.
 * Writes at most NDX_CUDA_MAX_STEPS steps to `out` and returns their count. */
int ndx_cuda_plan_steps(const struct ndx_cuda_plan *plan, uintptr_t dst, uintptr_t src,
                        ndx_cuda_step *out);

/* The launch geometry of a kernel step: blocks of NDX_CUDA_THREADS. */
int64_t ndx_cuda_blocks(const ndx_cuda_step *s);

/* Runs one kernel step (FLAT, TILE, WORDS or BYTES) on `stream`; returns the
 * CUDA error code (0 for success). Defined in kernels/ndx_copy.cu. */
int ndx_cuda_launch_step(const ndx_cuda_step *s, void *stream, void *dst, const void *src);

#ifdef __cplusplus
}
#endif

#endif /* NDX_CUDA_INTERNAL_H */
