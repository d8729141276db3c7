/* ndx_launch.h: the launch descriptor, what the host planner decided for
 * one copy kernel launch, written once beside the pack and read by the
 * kernel, which decides nothing.
 *
 * Host code (src/device/cl.c) fills an ndx_launch from the copy plan and
 * writes it at the start of the kernel's constant buffer, the pack of
 * ndx_pack_copy right after it (ndx_launch_pack). Both the OpenCL kernels
 * (kernels/ndx_copy.cl) and the host include this header: it holds plain
 * data and the two functions that read it, no kernel body.
 *
 * The CPU shape reads `chunk`, the work of one work-item (elements for
 * rows and gather, destination bytes for bytes, batches of one tile
 * position for transpose; kernels/ndx_copy_cpu.h), a transpose's tiles as
 * the gpu shape's below (tile_k, tile_j, tiles_j, row_units, units and the
 * joins), which both shapes count alike, and the destination bytes of the
 * bytes path as the gpu shape's (`units` of them from `first`). The GPU shape
 * (kernels/ndx_copy_gpu.h) reads the rest: a launch is `units` of work
 * handed to the work-items in turn (unit u to work-item u mod the launch's
 * size), so that adjacent work-items take adjacent units:
 *   rows       a unit is `vector` bytes of a row (one access per side);
 *              a row has `row_units` of them; or, where the rows are off
 *              the sectors on either side, a segment of a row moved
 *              through work-group memory (`stage_units` below)
 *   gather     a unit is one element
 *   transpose  a unit is one tile of `tile_k` x `tile_j` elements (along
 *              the source's and the destination's unit axes) through
 *              work-group memory, its rows (one a destination element along
 *              j) `pitch` bytes apart; a batch has `row_units` tiles,
 *              `tiles_j` of them along j; `realign_k` and `realign_j`
 *              shift each row's work-items onto the sectors
 *   bytes      a unit is one destination byte, from byte `first`
 * Every field is 64 bits, so that the struct reads alike in every dialect. */
#ifndef NDX_LAUNCH_H
#define NDX_LAUNCH_H

#include "ndx/ndx_device.h"

/* A GPU transpose tile, from 8 bits: NDX_GPU_TILE elements square, or,
 * with one side shorter and the other not, that side whole and the other
 * as long as the square's elements allow (a 3 x 1000003 transpose: 3 x
 * 320). A side whose rows do not all start on a sector is made at least
 * NDX_GPU_TILE_RUN bytes long, so that the sector its start shares with
 * the bytes before it is a small part of the run (a 16-bit 6000 x 5000
 * source: 256 x 32).
 * Its rows are padded so that no warp asks a bank for two words (the host
 * picks the pitch, src/host/launch.c), all within NDX_GPU_TILE_BYTES, room
 * for a tile of two joined axes a side whose rows are off the sectors
 * (75 x 77 fp32 and a pitch; join_k2 below).
 * Below 8 bits: NDX_GPU_TILE bytes of elements a side, so that each lane
 * takes a whole byte, rows of NDX_GPU_TILE_BITS_PITCH bytes
 * (ndx_gpu_bits_at). */
#define NDX_GPU_TILE 32
#define NDX_GPU_WARP 32 /* work-items whose accesses coalesce, NVIDIA's warp */
#define NDX_GPU_TILE_RUN 512
#define NDX_GPU_SECTOR 32
#define NDX_GPU_TILE_SIDE(bits) ((bits) < 8 ? NDX_GPU_TILE * 8 / (bits) : NDX_GPU_TILE)
#define NDX_GPU_TILE_BITS_PITCH (NDX_GPU_TILE + 4)
#define NDX_GPU_TILE_BYTES(bits)                                                                   \
  ((bits) < 8 ? NDX_GPU_TILE_SIDE(bits) * NDX_GPU_TILE_BITS_PITCH                                  \
              : NDX_GPU_TILE_RUN * NDX_GPU_TILE * 3 / 2)

/* The work-group memory of rows moved through it (ndx_launch.stage_units):
 * NDX_GPU_BATCH vectors of 4 bytes for each of 256 work-items, the CUDA
 * block and the OpenCL work-group of the gpu shape, small enough that 8
 * such work-groups an SM leave room for the transposes' tiles. */
#define NDX_GPU_STAGE_BYTES 4096

/* Units a rows, gather or conversion (elements) work-item loads before it
 * stores any, so that a warp has that many requests in flight (the
 * "KiB/SM" column of ndx-bench --gpu-model; kernels/ndx_gpu_batch.h); the
 * host sizes launches to give each work-item about one such batch. */
#define NDX_GPU_BATCH 4

typedef struct ndx_launch {
  ndx_i64 chunk;     /* cpu shape: the work of one work-item */
  ndx_i64 units;     /* gpu shape: units of work in all */
  ndx_i64 row_units; /* rows: units a row has; transpose: tiles a batch has */
  ndx_u64 row_magic; /* the magic pair of row_units (ndx_pack_magic, 64 bits) */
  ndx_i64 row_shift;
  ndx_i64 tiles_j; /* transpose: tiles along the destination's unit axis */
  ndx_i64 tile_k, tile_j, pitch;
  /* transpose: elements of a sector along k (the load phase) and along j
   * (the store phase) where that side's tile rows do not all start on a
   * sector, else 0; and the work-items a tile row takes in each phase, its
   * elements, or whole warps where it realigns, from the sector that holds
   * the row's first element, so that each warp's request covers whole
   * sectors but at a row's two ends (ndx_gpu_realign) */
  ndx_i64 realign_k, realign_j;
  ndx_i64 slots_k, slots_j;
  /* rows through work-group memory, where a side's rows do not all start
   * on a sector (else stage_units is 0 and each work-item moves its units
   * straight): a unit is a segment of `stage_units` vectors of a row (its
   * last one shorter), `row_units` of them a row, and a work-group moves
   * `stage_segs` of them a pass through NDX_GPU_STAGE_BYTES of work-group
   * memory, each segment loaded by slots_k work-items realigned by
   * realign_k vectors (the source's sector, 0 where its rows are on
   * sectors) and stored by slots_j = slots_k realigned by realign_j (the
   * destination's), whole warps a segment */
  ndx_i64 stage_units, stage_segs;
  /* transpose: the batch axes joined into the tiles where both tile axes
   * are short (src/host/launch.c, ndx_launch_join): k, j and the batch
   * below are then those of a matrix of dk*join_k x dj*join_j elements a
   * batch, whose element (K, J) lies at K + srow(J) in the source's batch
   * and drow(K) + J in the destination's, srow(J) = (J % dj)*ssj +
   * (J / dj)*join_ssj and drow(K) = (K % dk)*sdk + (K / dk)*join_sdk
   * (ndx_gpu_joined); join_k = join_j = 1 for none. The gpu shape may
   * join one more batch axis a side that continues the joined run
   * (src/host/launch.c, join_outer): join_k2 and join_j2 of strides
   * join_sdk2 and join_ssj2 (1 for none); the matrix is then
   * dk*join_k*join_k2 x dj*join_j*join_j2, drow(K) = (K % dk)*sdk +
   * (K / dk % join_k)*join_sdk + (K / (dk*join_k))*join_sdk2, and srow(J)
   * likewise. A batch is C-order index of the pack's first `batch_axes`
   * axes. */
  ndx_i64 join_k, join_j, join_sdk, join_ssj;
  ndx_i64 join_k2, join_j2, join_sdk2, join_ssj2;
  ndx_i64 batch_axes;
  ndx_i64 vector; /* rows: bytes of one access, a power of two from 1 to 16 */
  ndx_i64 first;  /* bytes: the first destination byte */
  /* the elements a unit moves from one source word of group * source
   * bits, consecutive along the source's unit axis, so that a warp's loads
   * are whole bytes, not nibbles (a conversion's transpose from a 4-bit
   * source, stride 1 or -1), or words of several elements (a copy's
   * transpose of 8- and 16-bit elements, stride 1, 4-byte words; the
   * conversions' elements family, from a source of up to 32 bits, stride 1
   * or -1; a conversion's transpose into a 4-bit destination, a tile
   * byte's pair from a source of up to 32 bits, stride 1 or -1); 1:
   * element by element.
   * The elements family: a unit is `group` elements of a row of the
   * innermost axis, `row_units` of them a row (row_magic, row_shift), the
   * row's first unit `skew` elements short (it starts inside a word), and
   * each whole unit is one load of its source word and one store of its
   * group * destination bits; the planner has proved every whole unit's
   * word and store aligned. A transpose: a phase-1 slot is `group`
   * elements of a tile row, slots_k slots a row (realign_k counts words),
   * put into the tile in the order of ndx_launch_put. */
  ndx_i64 group, skew;
} ndx_launch;

/* The pack that follows the descriptor in its buffer. */
NDX_FN NDX_CONSTANT const ndx_pack_head *ndx_launch_pack(NDX_CONSTANT const ndx_launch *d) {
  return (NDX_CONSTANT const ndx_pack_head *)(d + 1);
}

/* n / row_units by its magic pair, for 0 <= n < 2^63. */
NDX_FN ndx_i64 ndx_launch_row(NDX_CONSTANT const ndx_launch *d, ndx_i64 n) {
  ndx_u64 u = (ndx_u64)n;
  return (ndx_i64)((ndx_mulhi64(d->row_magic, u) + u) >> (int)d->row_shift);
}

/* The element of its group of `per` that slot c of a transpose's phase 1
 * puts into the tile at its x-th put (ndx_launch.group > 1, elements of
 * `eb` bytes): x, turned by m words' elements (at least one element) for
 * the slots in the m-th 128 bytes of the tile row, so that the puts of 32
 * slots along one row, which bank a slot of more than one word would ask
 * for several of, fall on distinct banks or words: the slots m apart take
 * the words of their group in a different order (a 4-bit source's words
 * of 8 elements into 16-bit ones: slots 0, 8, 16 and 24 put their 1st,
 * 3rd, 5th and 7th elements first). A slot of one word puts in order. The
 * planner's bank check (src/host/launch.c) takes the same. */
NDX_FN ndx_i64 ndx_launch_put(ndx_i64 c, ndx_i64 x, ndx_i64 eb, ndx_i64 per) {
  ndx_i64 m = (c * per * eb) >> 7;
  return (x + m * (eb < 4 ? 4 / eb : 1)) & (per - 1); /* per: 2, 4 or 8 */
}

#endif /* NDX_LAUNCH_H */
