/* ndx_iter.h: walking the positions of a layout on the host.
 *
 * The iteration helpers (docs/semantics.md section 7): a position iterator
 * in C order (`strided_index`), contiguous blocks (`strided_blocks`), the
 * contiguous range of a contiguous layout (`contiguous_offsets`) and the
 * broadcast pattern (`offsets_b`); section 9 says where those names come
 * from. All of them are plain structs filled by one call,
 * allocate nothing, and handle rank 0 (one position), empty layouts (none) and
 * negative strides. An iterator copies what it needs from the layout, so the
 * layout need not outlive it. */
#ifndef NDX_ITER_H
#define NDX_ITER_H

#include "ndx_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Position iterator in C order: an odometer over the coalesced axes that adds
 * a stride per step and, on wrap, subtracts (d-1)*s. */
typedef struct ndx_iter {
  int32_t rank;      /* coalesced axes */
  int64_t next;      /* position returned by the next ndx_iter_next */
  int64_t remaining; /* positions still to return */
  int64_t index[NDX_MAX_RANK];
  int64_t shape[NDX_MAX_RANK];
  int64_t strides[NDX_MAX_RANK];
} ndx_iter;

/* Starts `it` at the first position of `l` in C order. Never fails: a layout
 * that no ndx_ call makes (NULL included) walks as empty, and the message is
 * left as it was. `it` must not be NULL. O(rank), no allocation. */
NDX_API void ndx_iter_init(ndx_iter *it, const ndx_layout *l);

/* The carry of ndx_iter_next once the innermost axis wraps; called by it, not
 * meant for callers. Never fails. O(rank) at worst, O(1) amortized over a
 * walk. */
NDX_API void ndx_iter_carry(ndx_iter *it);

/* Stores the next position in *pos and returns true, or returns false when
 * every position has been returned. O(1) amortized; inline, so that the
 * innermost step costs an add and a compare. */
static inline bool ndx_iter_next(ndx_iter *it, int64_t *pos) {
  if (it->remaining <= 0) return false;
  *pos = it->next;
  /* Stop before stepping past the last position: the step would only compute
   * a position no index has. */
  if (--it->remaining == 0) return true;
  int inner = it->rank - 1;
  if (++it->index[inner] < it->shape[inner])
    it->next += it->strides[inner];
  else
    ndx_iter_carry(it);
  return true;
}

/* Stores the next run of positions along the innermost coalesced axis —
 * *start, *start + *stride, ... (*len of them) — and returns true, or returns
 * false when every position has been returned. The fast way to walk: the
 * caller's inner loop keeps its state in registers, where ndx_iter_next keeps
 * it in the iterator. Mixes freely with ndx_iter_next. O(1) amortized. */
NDX_API bool ndx_iter_run(ndx_iter *it, int64_t *start, int64_t *len, int64_t *stride);

/* Contiguous blocks: the positions of `l`, in C order, as blocks of `len`
 * consecutive positions each (extent-1 axes skipped when finding the
 * contiguous inner run). */
typedef enum ndx_blocks_kind {
  NDX_BLOCKS_ONE,     /* one block starting at `start` (count is 1; 0 if empty) */
  NDX_BLOCKS_UNIFORM, /* `count` blocks, block k starting at start + k*pitch */
  NDX_BLOCKS_MANY     /* `count` blocks whose starts `starts` returns in order */
} ndx_blocks_kind;

typedef struct ndx_blocks {
  ndx_blocks_kind kind;
  int64_t start;   /* first block's start */
  int64_t len;     /* positions in each block (0 for an empty layout) */
  int64_t count;   /* number of blocks */
  int64_t pitch;   /* NDX_BLOCKS_UNIFORM: distance between block starts (may be
                      negative or 0); 0 for the other kinds */
  ndx_iter starts; /* the block starts in order, for every kind (an odometer
                      over the axes outside the run); ndx_blocks_next advances it */
} ndx_blocks;

/* Splits `l` into contiguous blocks: the run is the innermost axis of the
 * coalesced layout when its stride is 1, else every block has len 1. The kind
 * is NDX_BLOCKS_ONE when the run is the whole layout (a one-element layout
 * included), NDX_BLOCKS_UNIFORM when the blocks step along a single axis, else
 * NDX_BLOCKS_MANY. Never fails: a layout that no ndx_ call makes (NULL
 * included) has no block. `b` must not be NULL. O(rank), no allocation. */
NDX_API void ndx_blocks_init(ndx_blocks *b, const ndx_layout *l);

/* Stores the start of the next block in *start and returns true, or returns
 * false when every block has been returned; works for every kind. O(1)
 * amortized. */
NDX_API bool ndx_blocks_next(ndx_blocks *b, int64_t *start);

/* If `l` is contiguous (ndx_is_contiguous), stores its positions' range
 * [*start, *end) = [offset, offset + numel) and returns true ([0, 0) when
 * empty, whose offset the canonical form makes 0); else (NULL pointers and
 * layouts no ndx_ call makes included) returns false and stores nothing.
 * O(rank). */
NDX_API bool ndx_contiguous_offsets(const ndx_layout *l, int64_t *start, int64_t *end);

/* The broadcast pattern of a layout that reads a contiguous block [start,
 * start+len) `left` times over, each position repeated `right` times in a
 * row: position k of `l` in C order is start + (k / right) % len. */
typedef struct ndx_bcast {
  int64_t start, len, left, right;
} ndx_bcast;

/* Finds that pattern: the axes of `l` split as [outer stride-0 axes][a C-order
 * contiguous run][inner stride-0 axes], where extent-1 axes (stride 0 in
 * canonical form) may sit anywhere; left and right are the products of the
 * outer and inner extents. Returns true and fills *out when `l` has one
 * (every non-empty contiguous layout does, with left = right = 1), else false
 * and stores nothing. An empty layout, a layout no ndx_ call makes and NULL
 * pointers have none. When every stride is 0 the
 * run is one position (len 1) and left takes all repeats (right = 1).
 * O(rank), no allocation. */
NDX_API bool ndx_broadcast_pattern(const ndx_layout *l, ndx_bcast *out);

#ifdef __cplusplus
}
#endif

#endif /* NDX_ITER_H */
