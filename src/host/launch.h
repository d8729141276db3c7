/* launch.h: the launch descriptor (kernels/ndx_launch.h) of both kernel
 * shapes, filled by the shared planner from a copy plan, on plain data.
 *
 * Step 4 of copy_plan.h: what each work-group and work-item does, decided
 * here once. For the gpu-shaped kernels (kernels/ndx_copy_gpu.h, launch.c)
 * the whole descriptor, so that the kernel decides nothing; the OpenCL
 * runtime (src/device/cl.c) uses it for its gpu shape, and the GPU memory
 * model (bench/gpu_model.c) runs the same descriptors through the same
 * bodies on the host. For the cpu-shaped ones (kernels/ndx_copy_cpu.h,
 * launch_cpu.c) the work of a work-item, from the runtime's tuned sizes. */
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

/* ndx_launch_gpu for a conversion's transpose from `src_bits`-bit source
 * elements, plan p made at the destination's width, its buffers starting
 * on `align` bytes (a power of two): the tile holds converted elements
 * (kernels/ndx_convert_gpu.h), so its shape, pitch and phase 2 are the
 * destination's, and phase 1 realigns on the source's sectors; a 4-bit
 * source's phase 1 never realigns: where every tile row starts and ends on
 * a 4-byte source word and `align` allows one, a slot converts a word's
 * eight elements (group 8) along rows of 256, else where every pair of a
 * tile row is one source byte, the pair (group 2) along rows of 64, a
 * sector of source bytes. Other paths as ndx_launch_gpu. */
void ndx_launch_gpu_convert(const ndx_copy_plan *p, int src_bits, int64_t align, int64_t local,
                            int64_t max_groups, ndx_launch *d, int64_t *groups);

/* The cpu shape's tuned work sizes (a runtime's tuning table: the OpenCL
 * runtime's NDX_CL_* of src/device/cl_tuning.h). */
typedef struct ndx_cpu_tuning {
  int64_t rows_bytes;   /* bytes a rows item copies, and a gather item of strided runs */
  int64_t gather_elems; /* elements any other gather item copies */
  int64_t bytes_elems;  /* destination elements a bytes item aims at on average */
  int64_t tile_elems;   /* elements a transpose item copies at least (ndx_tile_batches) */
} ndx_cpu_tuning;

/* The cpu shape's launch (kernels/ndx_copy_cpu.h) of plan `p` (a kernel
 * path), from the runtime's tuned sizes `t`: d->chunk, the work of one
 * work-item, a transpose's tiles (ndx_launch_tiles), and *items, the
 * work-items. Cannot fail. */
void ndx_launch_cpu(const ndx_copy_plan *p, const ndx_cpu_tuning *t, ndx_launch *d, int64_t *items);

/* The destination bytes [*first, *end) of sub-byte pair `q` of `bits`-bit
 * elements: the bytes its destination span touches (ndx_bytes_span), each
 * of which a bytes kernel writes whole. */
void ndx_launch_bytes(const ndx_operands *q, int bits, int64_t *first, int64_t *end);

/* The destination bytes a work-item of a cpu-shaped bytes kernel takes, of
 * `bytes` bytes that hold `numel` elements (numel > 0): about `elems`
 * elements on average, and at least one byte. */
int64_t ndx_launch_bytes_chunk(int64_t bytes, int64_t numel, int64_t elems);

/* The batch axes that join the tiles of transpose pair `q` (rank >= 2,
 * its last two axes k and j the source's and the destination's unit axes)
 * of `bits`-bit elements where k and j are both shorter than `side`: the
 * ones ndx_copy_tile_join joins with reach 1, the axes next to the tiles
 * (8 to 64-bit elements with unit strides along the tile only). A tile
 * copy then sees a matrix of dk*join_k x dj*join_j elements a batch, whose
 * row and column offsets are two-level, and small tiles (a rank-8
 * permutation of extents 5 to 11 has 11 x 9) move as larger ones (99 x
 * 45). Sets d's join_k, join_j, join_sdk, join_ssj (0 where not joined),
 * the second joins to none (join_k2 = join_j2 = 1; the gpu shape's own,
 * launch.c) and batch_axes (ndx_launch.h). */
void ndx_launch_join(ndx_launch *d, const ndx_operands *q, int bits, int64_t side);

/* The tiles of transpose pair `q` whose tile (tile_k x tile_j) and joins d
 * holds: sets d->tiles_j, d->row_units (tiles a batch) and d->units (tiles
 * in all). */
void ndx_launch_count_tiles(ndx_launch *d, const ndx_operands *q);

/* The conversion kernels' families (kernels/ndx_convert.cl, ndx_convert.cu),
 * each a unit of work of kernels/ndx_convert_items.h or ndx_convert_cpu.h. */
typedef enum ndx_convert_family {
  NDX_CONVERT_ELEMENTS,  /* destinations of 8 bits and up, element by element */
  NDX_CONVERT_TILE,      /* the cpu shape's transposes, 8 bits and up, a tile at a time */
  NDX_CONVERT_BYTES,     /* 4-bit destinations, a destination byte at a time */
  NDX_CONVERT_TRANSPOSE, /* the gpu shape's transposes: the copy's tile a
                            work-group, converting between its load and store */
  NDX_CONVERT_FAMILIES
} ndx_convert_family;

/* A runtime's work sizes for conversions: the gpu shape's where `local` is
 * not 0, else the cpu shape's. */
typedef struct ndx_convert_sizes {
  int64_t local;      /* gpu shape: work-items a work-group */
  int64_t max_groups; /* gpu shape: the most work-groups (the work-items then loop) */
  int64_t elems;      /* cpu shape: elements a work-item converts (4-bit destinations: half as
                         many destination bytes) */
  int64_t tile_k;     /* cpu shape: a transpose tile's elements along the source's unit axis */
  int64_t tile_j;     /* cpu shape: its elements along the destination's */
  int64_t align;      /* gpu shape: the bytes (a power of two) that both buffers start on, which
                         bounds the elements family's grouped accesses (ndx_launch.group) */
} ndx_convert_sizes;

/* Plans a conversion from `src` to `dst` of `dst_bits`-bit destination
 * elements on the shape of `z` as a copy of that width with ndx_gpu_caps
 * and `flags` (ndx_copy_plan_make, whose checks and messages it has). On
 * the cpu shape a 4-bit destination's pair stays in its order
 * (NDX_COPY_DST_ORDER), since the bytes family finds a byte's elements by
 * ndx_count_below; the gpu shape transposes into one through the copy's
 * tile below 8 bits. */
ndx_status ndx_convert_plan_make(ndx_copy_plan *p, const char *call, const ndx_layout *dst,
                                 const ndx_layout *src, int dst_bits, const ndx_convert_sizes *z,
                                 unsigned flags);

/* What runs a conversion, decided once from its plan (ndx_convert_choose)
 * and read by ndx_launch_convert and the runtime's kernel choice. */
typedef struct ndx_convert_choice {
  ndx_convert_family family;
  int64_t group; /* gpu shape's elements family: elements a unit (ndx_launch.group), else 1 */
  int64_t skew;  /* with group > 1: elements each row's first unit is short (ndx_launch.skew) */
} ndx_convert_choice;

/* The family that runs conversion plan `p` (ndx_convert_plan_make) from
 * `src_bits`-bit source elements on the shape of `z`, and its grouping:
 * for what the planner makes a transpose, tiles on the cpu shape and the
 * copy's transpose on the gpu shape; else below 8 bits, bytes, but on the
 * gpu shape elements where a row's groups of elements hold whole
 * destination bytes (launch_convert.c, convert_group); else elements, on
 * the gpu shape `group` a unit where the layout and z->align allow. */
ndx_convert_choice ndx_convert_choose(const ndx_copy_plan *p, int src_bits,
                                      const ndx_convert_sizes *z);

/* Fills `d` for conversion plan `p` (ndx_convert_plan_make, at least one
 * element: every path but empty, the buffer path too, takes a kernel) from
 * `src_bits`-bit source elements as `c` (ndx_convert_choose, for the same
 * plan and the shape of `z`) runs it: `units` (elements, tiles, or
 * destination bytes from `first`), on the cpu shape `chunk`, the units of a
 * work-item (a tile's `tile_k`, `tile_j`, `tiles_j` and `row_units` for
 * tiles), and for the gpu shape's transposes ndx_launch_gpu_convert's tile.
 * On the gpu shape the elements family's units (sources up to 32 bits) are
 * c->group elements of a row, `row_units` a row, and a transpose's phase-1
 * slots (4-bit sources) pairs of a tile row where ndx_launch_gpu_convert
 * finds them. *work is the work-groups to launch on the gpu shape, one
 * work-item a batch of NDX_GPU_BATCH units for the elements family, a unit
 * for bytes (a work-group a tile) up to z->max_groups, else the work-items.
 * z->local may be less than at ndx_convert_choose (the kernel's own), not
 * 0 where it was not. Cannot fail. */
void ndx_launch_convert(const ndx_copy_plan *p, int src_bits, const ndx_convert_choice *c,
                        const ndx_convert_sizes *z, ndx_launch *d, int64_t *work);

#endif /* NDX_LAUNCH_PLAN_H */
