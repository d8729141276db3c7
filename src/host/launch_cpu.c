/* launch_cpu.c: the cpu shape's launch (launch.h). */
#include "launch.h"
#include "ndx_copy_geometry.h"
#include "ndx_internal.h"

/* The rows *ri and columns *rj of a batch's matrix of transpose pair `q`:
 * its tiles joined with the batch axes that continue them
 * (ndx_copy_tile_join) where the cpu kernels' grouped tiles take them
 * (ndx_tile_groups): 8 to 64-bit elements, unit strides along the tile (the
 * destination's along j, the source's along k), both sides under a tile
 * side, and the axes already next to the tiles (reach 1). The planner's
 * batch order stays: its consecutive batches fill the lines small tiles
 * touch, and moving a farther axis in to join it ran slower on PoCL (a
 * rank-8 permutation of extents 8, fp32, 8 x 8 tiles joined to 64 x 8:
 * 28-35 ms against 25-30 ms, three pairs of runs). */
static void tile_matrix(const ndx_operands *pair, int bits, int64_t *ri, int64_t *rj) {
  ndx_operands q = *pair;
  int r = q.rank, gk = 0, gj = 0;
  int64_t side = ndx_tile_side(bits), dk = q.shape[r - 2], dj = q.shape[r - 1];
  if (bits >= 8 && bits <= 64 && q.strides[0][r - 1] == 1 && q.strides[1][r - 2] == 1 &&
      dk < side && dj < side)
    ndx_copy_tile_join(&q, side, side, 1, &gk, &gj);
  *ri = dk * (gk ? q.shape[r - 3 - gj] : 1);
  *rj = dj * (gj ? q.shape[r - 3] : 1);
}

void ndx_launch_cpu(const ndx_copy_plan *p, const ndx_cpu_tuning *t, ndx_launch *d,
                    int64_t *items) {
  const ndx_operands *q = &p->q;
  switch (p->path) {
  case NDX_PATH_TRANSPOSE: {
    int64_t ri, rj;
    tile_matrix(q, p->bits, &ri, &rj);
    d->chunk = ndx_tile_batches(ri, rj, p->bits, t->tile_elems);
    *items = ndx_tile_count(q->numel, ri, rj, p->bits, d->chunk);
    return;
  }
  case NDX_PATH_BYTES: {
    int64_t lo, hi, first, end;
    ndx_operands_span(q, 0, &lo, &hi);
    ndx_bytes_span(lo, hi, p->bits, &first, &end);
    /* about bytes_elems destination elements per work-item */
    d->chunk = ndx_ceil_div(t->bytes_elems * (end - first), q->numel);
    if (d->chunk < 1) d->chunk = 1;
    *items = ndx_ceil_div(end - first, d->chunk);
    return;
  }
  default: /* rows, gather */
    d->chunk = p->path == NDX_PATH_ROWS || p->strided_rows ? t->rows_bytes / (p->bits / 8)
                                                           : t->gather_elems;
    *items = ndx_ceil_div(q->numel, d->chunk);
  }
}
