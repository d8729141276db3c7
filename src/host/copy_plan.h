/* copy_plan.h: what the OpenCL and CUDA runtimes share when they plan a copy,
 * before any device call: the argument checks, the normalized pair as the
 * pack holds it (ndx_pack_copy), the transpose axis, and byte spans. */
#ifndef NDX_COPY_PLAN_H
#define NDX_COPY_PLAN_H

#include "ndx/ndx_pack.h"
#include "ndx_internal.h"

/* The pack of a copy read back: destination (d) and source (s) offsets and
 * strides over the shared extents, after coalescing and normalization. */
typedef struct ndx_copy_pair {
  int rank;
  int64_t numel, od, os;
  int64_t d[NDX_PACK_MAX_RANK], sd[NDX_PACK_MAX_RANK], ss[NDX_PACK_MAX_RANK];
} ndx_copy_pair;

/* True iff `bits` is 1, 2, 4, 8, 16, 32, 64 or 128. */
bool ndx_copy_bits_ok(int bits);

/* Checks a copy's arguments for `call`: `bits` a supported width, shapes
 * equal, the destination distinct (a layout written to must be). Returns
 * NDX_OK or NDX_EINVAL with the message naming the argument and values. */
ndx_status ndx_copy_check(const char *call, const ndx_layout *dst, const ndx_layout *src, int bits);

/* Reads the pack of a copy (two operands, either form) into `q`. */
void ndx_copy_pair_read(const ndx_pack_head *p, ndx_copy_pair *q);

/* The axis (not the last) whose source stride is +-1, for a transpose: the
 * destination runs along the last axis, the source along this one; -1 when
 * there is none. */
int ndx_copy_transpose_axis(const ndx_copy_pair *q);

/* The bytes [*lo, *end) that the positions of `l` touch at `bits` bits each;
 * [0, 0) for an empty layout. */
void ndx_copy_byte_span(const ndx_layout *l, int bits, int64_t *lo, int64_t *end);

#endif /* NDX_COPY_PLAN_H */
