/* operands.h: operands of one shape as plain data, the form every plan and
 * every pack is made in before anything is serialized.
 *
 * A pack (ndx_pack.h) is written from an ndx_operands, never read back to
 * plan: ndx_pack and ndx_pack_copy, and the device runtimes' copy plans
 * (copy_plan.h), all load layouts into one, coalesce it (coalesce.c's
 * merge), normalize a copy for its destination, reorder axes, and only then
 * write it (ndx_pack_write). */
#ifndef NDX_OPERANDS_H
#define NDX_OPERANDS_H

#include "ndx/ndx_pack.h"
#include "ndx_internal.h"

/* Operands 0 .. nops-1 over one shape: extents, offsets and strides in
 * elements. After ndx_operands_load the rank is >= 1 ([1] or [0] with
 * strides 0 for one element or none). */
typedef struct ndx_operands {
  int rank, nops;
  int64_t numel;
  int64_t shape[NDX_MAX_RANK];
  int64_t offset[NDX_PACK_MAX_OPS];
  int64_t strides[NDX_PACK_MAX_OPS][NDX_MAX_RANK];
} ndx_operands;

/* The merge plan of `n` operands over `shape` (rank axes), each operand's
 * strides at strides[k]: extent-1 axes dropped, adjacent axes merged where
 * every operand lays them out as one run (docs/semantics.md section 5), axes
 * never reordered. Returns the new rank r >= 1; new axis x has extent
 * extent[x] and takes its strides from old axis from[x] >= x (-1: stride 0,
 * the one axis of a single element or none). O(n * rank). */
int ndx_coalesce_axes(int rank, const int64_t *shape, int n, const int64_t *const *strides,
                      int64_t *extent, int *from);

/* ndx_coalesce_axes's plan from the merges already found: bit a of `merges` says that axis a
 * (of extent > 1) steps over all of the next axis of extent > 1 inside it in every operand; the
 * bit of the innermost such axis is not read. Same result, O(rank). */
int ndx_merge_plan(int rank, const int64_t *shape, uint32_t merges, int64_t *extent, int *from);

/* Loads the `n` layouts `in` (n <= NDX_PACK_MAX_OPS, each passing
 * ndx_check_layout, all of one shape) into `o`, coalesced. Writes every
 * field a pack reads. O(n * rank). */
void ndx_operands_load(ndx_operands *o, int n, const ndx_layout *const *in);

/* Coalesces `o` in place (ndx_coalesce_axes). */
void ndx_operands_coalesce(ndx_operands *o);

/* Normalizes a copy (operand 0 the destination) for its destination: every
 * axis whose destination stride is negative is flipped in every operand, the
 * axes are ordered by destination stride, largest first (stable), and runs
 * are merged again. A copy is a bijection of indices, so each step keeps
 * every (source position, destination position) pair. O(rank^2). */
void ndx_operands_normalize(ndx_operands *o);

/* Reorders the axes: new axis i is old axis perm[i] (a permutation of
 * 0 .. rank-1, unchecked). */
void ndx_operands_permute(ndx_operands *o, const int *perm);

/* The smallest and one past the largest position of operand k; [0, 0) when
 * there is no element. */
void ndx_operands_span(const ndx_operands *o, int k, int64_t *lo, int64_t *hi);

/* True iff the element count and every position of every operand fit in
 * int32, so that the 32-bit form holds them (ndx_pack.h). Checked
 * arithmetic: `o` may come from a pack read back, with any words. */
bool ndx_operands_fit_narrow(const ndx_operands *o);

/* Bytes of the pack of `o` in the 64-bit form (`wide`) or the 32-bit one. */
size_t ndx_pack_size(const ndx_operands *o, bool wide);

/* Writes `o` as a pack of `bits`-bit elements in the form `wide` says (the
 * 32-bit one only where ndx_operands_fit_narrow), for `fn`'s messages.
 * NDX_ERANGE, writing nothing, when `size` is below ndx_pack_size. */
ndx_status ndx_pack_write(const char *fn, void *buf, size_t size, size_t *used,
                          const ndx_operands *o, int bits, bool wide);

#endif /* NDX_OPERANDS_H */
