/* launch_cpu.c: the cpu shape's launch (launch.h). */
#include "launch.h"
#include "ndx_copy_geometry.h"
#include "ndx_internal.h"

/* The cpu shape's tiles of transpose pair `q` (ndx_launch.h): joined where
 * both tile axes are under a side (ndx_launch_join), each ndx_tile_shape of
 * a batch's matrix. The planner's batch order stays: its consecutive
 * batches fill the lines small tiles touch, and moving a farther axis in to
 * join it ran slower on PoCL (a rank-8 permutation of extents 8, fp32, 8 x
 * 8 tiles joined to 64 x 8: 28-35 ms against 25-30 ms, three pairs of
 * runs). */
static void cpu_tiles(ndx_launch *d, const ndx_operands *q, int bits) {
  int r = q->rank;
  ndx_launch_join(d, q, bits, ndx_tile_side(bits));
  ndx_tile_shape(q->shape[r - 2] * d->join_k, q->shape[r - 1] * d->join_j, bits, &d->tile_k,
                 &d->tile_j);
  ndx_launch_count_tiles(d, q);
}

void ndx_launch_cpu(const ndx_copy_plan *p, const ndx_cpu_tuning *t, ndx_launch *d,
                    int64_t *items) {
  const ndx_operands *q = &p->q;
  switch (p->path) {
  case NDX_PATH_TRANSPOSE: {
    int r = q->rank;
    cpu_tiles(d, q, p->bits);
    d->chunk = ndx_tile_batches(q->shape[r - 2] * d->join_k, q->shape[r - 1] * d->join_j, p->bits,
                                t->tile_elems);
    *items = ndx_ceil_div(d->units / d->row_units, d->chunk) * d->row_units;
    return;
  }
  case NDX_PATH_BYTES: {
    int64_t end;
    ndx_launch_bytes(q, p->bits, &d->first, &end);
    d->units = end - d->first;
    d->chunk = ndx_launch_bytes_chunk(d->units, q->numel, t->bytes_elems);
    *items = ndx_ceil_div(d->units, d->chunk);
    return;
  }
  default: /* rows, gather */
    d->chunk = p->path == NDX_PATH_ROWS || p->strided_rows ? t->rows_bytes / (p->bits / 8)
                                                           : t->gather_elems;
    *items = ndx_ceil_div(q->numel, d->chunk);
  }
}
