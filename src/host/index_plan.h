/* index_plan.h: the gather and scatter planner both device runtimes share,
 * on plain data (ndx/ndx_index.h has the semantics).
 *
 * A call runs as two kernels, planned here in the order the work happens
 * (arguments checked once; each pass's operands built, coalesced and
 * normalized; the form chosen; rows of whole bytes below 8 bits widened to
 * bytes; the runtime writes the packs at the end):
 *
 *   check  over the index's own elements (S with its broadcast axes dropped,
 *          so an index_select checks its 1-d index once): every value is
 *          tested against the indexed axis; the first fault found is written
 *          to a status word that is 0 otherwise. A scatter that needs claims
 *          also claims here: slot (fibre, k) of a table of int32 keeps the
 *          largest axis coordinate j + 1 of the elements sent to k (an atomic
 *          max), so that the last in C order wins.
 *   copy   returns when the status word is set, else copies element i of
 *          operands 0 (dst) and 1 (src), with one side's position moved by
 *          the value read at operand 2: position + k * step, k the index
 *          value made valid (ndx_index_value in ndx_device.h; an invalid one
 *          copies nothing, so memory safety never rests on the check pass).
 *
 * The copy pass takes one of four forms:
 *   gather   over S: dst, src with stride 0 on the axis, the index;
 *            step[1] = src's axis stride.
 *   unique   a scatter with NDX_INDEX_UNIQUE of 8 bits and up, over S: dst
 *            with stride 0 on the axis, src, the index; step[0] = dst's axis
 *            stride. No claims.
 *   winners  any other scatter of 8 bits and up, over S: the unique form's
 *            three operands, then the claim slot of k = 0 and the axis
 *            coordinate j; an element with a valid k writes only when slot
 *            + k * claim_stride holds j + 1, so that each destination
 *            element has one writer, the last in C order. Its source is
 *            read in order and its rows written whole, as a unique
 *            scatter's.
 *   claims   a scatter below 8 bits, over dst's shape: dst, src with stride
 *            0 on the axis, the claims table; k = claim - 1 (0: no element
 *            comes here, nothing is written); step[1] = src's axis stride.
 *            A gather from the winners: it visits every destination
 *            element and owns whole destination bytes.
 *
 * Nothing reads a pack back to plan. */
#ifndef NDX_INDEX_PLAN_H
#define NDX_INDEX_PLAN_H

#include "ndx/ndx_index.h"
#include "operands.h"

typedef enum ndx_index_form {
  NDX_INDEX_GATHER,
  NDX_INDEX_UNIQUE_SCATTER,
  NDX_INDEX_CLAIMS,
  NDX_INDEX_WINNERS
} ndx_index_form;

/* True iff the form keeps a claims table (zeroed, then claimed by the check
 * pass). */
static inline bool ndx_index_form_claims(ndx_index_form f) {
  return f == NDX_INDEX_CLAIMS || f == NDX_INDEX_WINNERS;
}

/* Operands of the copy pass: the winners form has all five. */
enum { NDX_COPY_DST, NDX_COPY_SRC, NDX_COPY_INDEX, NDX_COPY_CLAIM, NDX_COPY_COORD, NDX_COPY_OPS };

/* Operands of the check pass. */
enum { NDX_CHECK_INDEX, NDX_CHECK_CLAIM, NDX_CHECK_COORD, NDX_CHECK_ORDER, NDX_CHECK_OPS };

/* What a fault message names: the call, the indexed side and axis, S, and
 * index_l's offset and strides (S is its shape), to turn the element the
 * check pass reports into the index buffer's element and its coordinates. */
typedef struct ndx_index_site {
  const char *call;
  bool scatter, wrap;
  int axis, rank;
  int64_t d; /* the axis's extent on the indexed side */
  int64_t shape[NDX_MAX_RANK];
  int64_t index_offset;
  int64_t index_strides[NDX_MAX_RANK];
} ndx_index_site;

typedef struct ndx_index_plan {
  ndx_index_form form;
  /* The copy pass's element width: the call's, or 8 where rows of whole
   * bytes below 8 bits were widened to bytes (the copy pass's operands
   * then count bytes); and the index's. */
  int bits, index_bits;
  bool wide;  /* both packs in the 64-bit form */
  bool empty; /* S has no element: nothing is launched */
  /* The check pass, over the index's support: operand 0 the index, 1 the
   * claim slot of k = 0 (stride 0 on the axis; all 0 without claims), 2 the
   * coordinate j on the axis, 3 the C-order index in S (0 on the broadcast
   * axes). Valid values: [0, site.d), or [-site.d, site.d) with site.wrap. */
  ndx_operands check;
  int64_t claim_stride; /* slot of (fibre, k) = claim slot of k = 0 + k * claim_stride */
  int64_t nclaims;      /* entries of the claims table (0: no claims) */
  /* The claims table's strides over dst's shape (0 where the index
   * broadcasts), for the copy passes of the claims and winners forms. */
  int64_t claims_strides[NDX_MAX_RANK];
  /* The copy pass (operands 0 dst, 1 src, 2 index or claims; the winners
   * form's 3 claim slot and 4 axis coordinate): a valid value v of
   * [-copy_d, copy_d) (wrapping when copy_wrap) or [0, copy_d), minus
   * `bias`, moves operand 0 by k * step[0] and operand 1 by k * step[1]. */
  ndx_operands copy;
  int64_t copy_d, bias, step[2];
  bool copy_wrap;
  int copy_index_bits; /* 32 for the claims table */
  /* The innermost copy axis has strides 1, 1 and 0 (and 0, 0 for the
   * winners form's claim slot and coordinate): one value per row, and rows
   * copied as blocks (8 bits and up). */
  bool rows;
  /* The bytes each layout's positions touch: [lo, end); [0, 0) when empty
   * (src for a gather and dst for a scatter: every position of the axis). */
  int64_t dst_lo, dst_end, src_lo, src_end, index_lo, index_end;
  ndx_index_site site;
} ndx_index_plan;

/* Plans a gather (`scatter` false) or a scatter for `call`'s messages,
 * checking every argument but the buffers: `bits` a supported width,
 * index_bits 32 or 64, axis in [0, rank), the shapes as ndx_index.h says, a
 * distinct destination, no unknown flag (NDX_INDEX_UNIQUE only for a
 * scatter). NDX_OK; NDX_EINVAL naming the argument and the values; NDX_ERANGE
 * for a claims scatter of 2^31 or more elements along the axis; `p` untouched
 * on failure. O(rank^2), no allocation. */
ndx_status ndx_index_plan_make(ndx_index_plan *p, const char *call, bool scatter,
                               const ndx_layout *dst_l, const ndx_layout *src_l, int axis,
                               const ndx_layout *index_l, int index_bits, unsigned flags, int bits);

/* Writes the check pass's pack into `buf` (8-aligned, at least
 * NDX_PACK_MAX_BYTES(NDX_CHECK_OPS, NDX_MAX_RANK) bytes: then it cannot fail). */
ndx_status ndx_index_plan_check_pack(const ndx_index_plan *p, void *buf, size_t size, size_t *used);

/* Writes the copy pass's pack (at least NDX_PACK_MAX_BYTES(NDX_COPY_OPS,
 * NDX_MAX_RANK)). */
ndx_status ndx_index_plan_copy_pack(const ndx_index_plan *p, void *buf, size_t size, size_t *used);

/* The gpu shape's launch descriptors (kernels/ndx_index_launch.h) of the
 * check and copy passes of a plan that is not empty, and the work-groups
 * to launch, of `local` work-items each: about NDX_GPU_BATCH units a
 * work-item (one destination byte below 8 bits), at most `max_groups`
 * groups (the work-items then loop over the units). A copy pass by rows
 * takes vectors of the widest access, up to 16 bytes, that every row start
 * is aligned to on both sides for any index value, given buffers aligned
 * to 16 bytes. A copy pass along the axis (ndx_index_plan_along) takes
 * passes of whole pack rows, as many as NDX_GPU_ALONG_BYTES holds up to
 * about 4 * NDX_GPU_BATCH units a work-item, or of segments of a longer
 * pack row of about that many, a work-group a pass. Cannot fail. */
struct ndx_index_launch;
/* True when the gpu shape's copy pass of p picks along the axis from work-
 * group memory (kernels/ndx_index_launch.h, `along`): a gather of 8 bits
 * and up, not by rows, each of whose copy pack rows picks from one source
 * segment (the source's innermost pack stride 0) of unit stride along the
 * axis, whose d elements are more than a 128-byte line (within one, a
 * warp's picks touch no more sectors than the segment has) and fit
 * NDX_GPU_ALONG_BYTES, and which picks at least as many elements as the
 * segment has 32-byte sectors (so that loading the whole segment costs no
 * more sectors than picking from global memory). */
bool ndx_index_plan_along(const ndx_index_plan *p);
void ndx_index_launch_check(const ndx_index_plan *p, int64_t local, int64_t max_groups,
                            struct ndx_index_launch *d, int64_t *groups);
void ndx_index_launch_copy(const ndx_index_plan *p, int64_t local, int64_t max_groups,
                           struct ndx_index_launch *d, int64_t *groups);

/* Where the element the check pass reports lies: `order`, its C-order index
 * in S, as coordinates over S (coord[0 .. site->rank), 0 on the axes the
 * index broadcasts, as the check pass runs) and the position index_l gives
 * them, *position: the element of the index buffer, counted in index
 * elements from its start, that holds the value (index[*position] in C).
 * False, writing nothing, when `order` is outside [0, numel of S). Any
 * layout: strided, broadcast, offset, negative strides, rank 0 (order 0,
 * no coordinate, position index_l's offset). O(rank). Both runtimes' faults
 * go through it (ndx_index_fault). */
bool ndx_index_site_locate(const ndx_index_site *site, int64_t order, int64_t *coord,
                           int64_t *position);

/* The fault a check pass recorded at `site`: `order` the element's C-order
 * index in S and `value` its index value. Sets ndx_last_error() to
 *   "<call>: index[P] is V, outside [lo, d) for axis A of src_l: the call
 *    wrote nothing (index[P]: element P of the index buffer, read at [c,...]
 *    of index_l's shape [S...])"
 * (dst_l for a scatter; "index_l's only element" at rank 0), P from
 * ndx_index_site_locate, and returns NDX_ERANGE. */
ndx_status ndx_index_fault(const ndx_index_site *site, int64_t order, int64_t value);

#endif /* NDX_INDEX_PLAN_H */
