/* copy_plan.h: the copy planner both device runtimes share, on plain data.
 *
 * A copy is planned in the order the work happens, before any device call:
 *   1. its arguments are checked, once (ndx_copy_plan_make);
 *   2. the pair is coalesced and normalized for its destination
 *      (operands.h: the rule of ndx_pack_copy);
 *   3. the path, the axis order the kernel visits and the index form are
 *      chosen from those plain operands, for the runtime's capabilities;
 *   4. the runtime derives its kernel geometry from the plan and writes the
 *      pack once, at the end (ndx_pack_write of `q`).
 * Nothing reads a pack back to plan. */
#ifndef NDX_COPY_PLAN_H
#define NDX_COPY_PLAN_H

#include "operands.h"

/* The path of a copy: the kernel family that runs it, named alike in both
 * runtimes (docs/device.md section 9). */
typedef enum ndx_copy_path {
  NDX_PATH_EMPTY,     /* no element: nothing is launched */
  NDX_PATH_BUFFER,    /* contiguous bytes: one buffer copy */
  NDX_PATH_ROWS,      /* rows along a common innermost axis, unit strides (8 bits and up) */
  NDX_PATH_GATHER,    /* anything else of 8 bits and up: runs of the odometer */
  NDX_PATH_TRANSPOSE, /* a (batched) 2-d transpose, by tiles */
  NDX_PATH_BYTES,     /* anything else of 1, 2 or 4 bits: destination byte ranges */
} ndx_copy_path;

/* "empty", "buffer", "rows", "gather", "transpose", "bytes"; "none" for a
 * value that is no path (both runtimes' answer for a NULL plan). */
const char *ndx_copy_path_name(int path);

/* What a runtime's kernels can do beyond the paths both have: the one place
 * the runtimes' plans differ. */
typedef struct ndx_copy_caps {
  /* Contiguous copies of at least this many bytes take the rows path rather
   * than a buffer copy (0: never). */
  int64_t rows_from_bytes;
  /* The gather kernel copies a destination run of unit stride whose source
   * stride is 0, -1 or 2 (a broadcast, a flip, a step-2 slice) at row
   * speed: such copies take the gather path before a transpose. */
  bool strided_runs;
  /* Transposes of 1 to 16 bits by 32-bit words, in tiles of words_k words
   * along the source's unit axis by words_j blocks of 32/bits elements along
   * the destination's (0: no such kernel). With them, a sub-byte transpose
   * is one where the words fit (ndx_copy_words_fit); without, where the
   * tiles own whole destination bytes. */
  int words_k, words_j;
} ndx_copy_caps;

/* Flags of a plan. */
enum {
  /* the 64-bit form even where the 32-bit one fits, so that tests run the
   * 64-bit kernels on small data */
  NDX_COPY_WIDE = 1u,
  /* transposes by elements, never by words: the parts of a word transpose
   * that words cannot run (CUDA's edge strips, and the whole copy for
   * pointers off a word; src/device/cuda_plan.c) */
  NDX_COPY_NO_WORDS = 2u,
  /* no transpose path: the pair stays in the destination's order, whose
   * positions increase with the C-order index (ndx_count_below), as a
   * conversion into 4-bit elements on the cpu shape needs
   * (ndx_convert_plan_make) */
  NDX_COPY_DST_ORDER = 4u
};

typedef struct ndx_copy_plan {
  ndx_copy_path path;
  int bits;
  bool wide;  /* the pack's form: 64-bit words */
  bool words; /* a transpose by words (ndx_copy_caps.words_k) */
  /* a gather of whole destination rows whose source steps by 0, -1 or 2
   * (ndx_copy_caps.strided_runs) */
  bool strided_rows;
  /* The pair (0: destination, 1: source), normalized for the destination;
   * for a transpose reordered to [batch..., k, j]: the destination's unit
   * axis j last, the source's (stride +-1) k second-to-last. */
  ndx_operands q;
  /* The bytes each layout's positions touch: [lo, end); [0, 0) when empty. */
  int64_t dst_lo, dst_end, src_lo, src_end;
} ndx_copy_plan;

/* Plans a copy of `bits`-bit elements from `src` to `dst` on a runtime with
 * `caps`, for `call`'s messages: `bits` a supported width, shapes equal, the
 * destination distinct (a layout written to must be). NDX_OK, or NDX_EINVAL
 * naming the argument and values, `p` untouched. O(rank^2), no allocation. */
ndx_status ndx_copy_plan_make(ndx_copy_plan *p, const char *call, const ndx_layout *dst,
                              const ndx_layout *src, int bits, const ndx_copy_caps *caps,
                              unsigned flags);

/* Steps 2 and 3 for a pair already in operands (a part of another plan's
 * pair, say), which it coalesces and normalizes. Cannot fail. */
void ndx_copy_plan_pair(ndx_copy_plan *p, const ndx_operands *pair, int bits,
                        const ndx_copy_caps *caps, unsigned flags);

/* True iff the transpose pair `q` ([batch..., k, j] order) of 1 to 16 bits
 * suits word tiles of `words_k` x `words_j` (ndx_copy_caps): unit strides
 * (destination along j, source along k), every row position on a 32-bit
 * word, and at least one whole tile. */
bool ndx_copy_words_fit(const ndx_operands *q, int bits, int words_k, int words_j);

/* True iff tiles of a sub-byte transpose pair `q` ([batch..., k, j] order)
 * own their destination bytes: the destination runs along j with stride 1
 * and every destination row starts on a byte, so a byte belongs to one row,
 * and a tile, which holds whole rows' bytes, is its one writer
 * (docs/device.md section 5: two work-items never write one byte). What
 * ndx_copy_tile_item needs below 8 bits. */
bool ndx_copy_tiles_own_bytes(const ndx_operands *q, int bits);

/* Tile groups. Where a transpose's tiles are short on a side, the batch
 * axis that continues that side's run joins it, so that a tile copy sees a
 * larger matrix a batch (a rank-8 permutation of extents 8 has 8 x 8 tiles;
 * joined, 64 x 64): where j's extent is under short_j, the batch axis whose
 * destination stride is j's extent times j's stride (the destination runs
 * on through it) joins j; where k's extent is under short_k, another batch
 * axis whose source stride is k's extent times k's stride (the source runs
 * on through it) joins k. Each search looks at the `reach` innermost batch
 * axes (past j2, for k) and takes the innermost that fits. The transpose
 * pair `q` ([batch..., k, j]) is reordered to [batch..., k2, j2, k, j], the
 * joined axes moved in next to k, the other batch axes in their order (with
 * reach 1 the joined axes are already there: nothing moves); *gk and *gj
 * are 1 where k2 and j2 are there, else 0. The one rule both runtimes join
 * tiles by: CUDA with every batch axis in reach, moving j2 in past k for
 * its kernels (src/device/cuda_plan.c); the OpenCL and CUDA/HIP gpu and
 * cpu shapes with reach 1 (ndx_launch_join, src/host/launch.c), whose
 * launch descriptor names the groups in place. */
void ndx_copy_tile_join(ndx_operands *q, int64_t short_k, int64_t short_j, int reach, int *gk,
                        int *gj);

/* Writes the plan's pack (ndx_pack_write of `q` in the plan's form) into
 * `buf` (8-aligned; NDX_PACK_MAX_BYTES(2, NDX_MAX_RANK) bytes always
 * suffice, and then it cannot fail). */
ndx_status ndx_copy_plan_pack(const ndx_copy_plan *p, void *buf, size_t size);

#endif /* NDX_COPY_PLAN_H */
