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

/* The path of a copy: the kernel family that runs it (docs/device.md section
 * 9), the same in both runtimes. */
typedef enum ndx_copy_path {
  NDX_PATH_EMPTY,     /* no element: nothing is launched */
  NDX_PATH_BUFFER,    /* contiguous bytes: one buffer copy */
  NDX_PATH_ROWS,      /* rows along a common innermost axis */
  NDX_PATH_TRANSPOSE, /* a (batched) 2-d transpose, by tiles */
  NDX_PATH_GATHER,    /* anything else: the odometer over C order */
} ndx_copy_path;

/* "empty", "buffer", "rows", "transpose", "gather"; "none" for a value that
 * is no path (a runtime's answer for a NULL plan). */
const char *ndx_copy_path_name(int path);

/* What a runtime's kernels do beyond the paths both have: the one place the
 * runtimes' choices differ. */
typedef struct ndx_copy_caps {
  /* Contiguous copies of at least this many bytes take the rows path rather
   * than a buffer copy (0: never). */
  int64_t rows_from_bytes;
  /* The rows path also takes a source inner stride of 0, -1 or 2 (a
   * broadcast, a flip, a step-2 slice) under a unit destination stride. */
  bool strided_rows;
} ndx_copy_caps;

/* The path for the normalized pair `q` of `bits`-bit elements on a runtime
 * with `caps`; `gather_only` (a test's flag) skips the buffer, rows and
 * transpose paths. Every operand must qualify, the destination's strides
 * and offsets as much as the source's. Sub-byte transposes are chosen here
 * by their axes alone; the runtime checks that tiles own whole destination
 * bytes once the axes are in tile order. O(rank). */
ndx_copy_path ndx_copy_choose_path(const ndx_copy_pair *q, int bits, const ndx_copy_caps *caps,
                                   bool gather_only);

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
