/* iter.c: walking the positions of a layout on the host (ndx_iter.h).
 *
 * Everything here starts from the coalesced layout (docs/semantics.md section 5):
 * it reaches the same positions in the same C order over as few axes as
 * possible, has at least one axis, and has no extent-1 axis unless it is the
 * single axis [1] of a one-element layout. So the odometer steps over the
 * fewest axes, and a contiguous inner run, if there is one, is the innermost
 * axis with stride 1. */
#include "ndx/ndx_iter.h"
#include "ndx_internal.h"

/* The coalesced form of `l`. A layout that no ndx_ call makes (NULL
 * included) walks as empty, [0], rather than out of bounds; it is found
 * here, checked once, so that the message is left as it was. */
static ndx_layout coalesced(const ndx_layout *l) {
  ndx_layout c = {.rank = 1};
  if (l && !ndx_layout_flaw(l, NULL, 0)) ndx_coalesce_checked(1, l, &c);
  return c;
}

/* Starts an odometer over the first `rank` axes of `c` from its offset, with
 * `count` (their element count) positions to return. */
static void iter_start(ndx_iter *it, const ndx_layout *c, int rank, int64_t count) {
  it->rank = rank;
  it->next = c->offset;
  it->remaining = count;
  for (int a = 0; a < rank; a++) {
    it->index[a] = 0;
    it->shape[a] = c->shape[a];
    it->strides[a] = c->strides[a];
  }
}

void ndx_iter_init(ndx_iter *it, const ndx_layout *l) {
  ndx_layout c = coalesced(l);
  iter_start(it, &c, c.rank, ndx_numel(&c));
}

void ndx_iter_carry(ndx_iter *it) {
  for (int a = it->rank - 1; a >= 0; a--) {
    if (a < it->rank - 1 && ++it->index[a] < it->shape[a]) {
      it->next += it->strides[a];
      return;
    }
    it->index[a] = 0;
    it->next -= (it->shape[a] - 1) * it->strides[a];
  }
}

bool ndx_iter_run(ndx_iter *it, int64_t *start, int64_t *len, int64_t *stride) {
  if (it->remaining <= 0) return false;
  if (it->rank == 0) { /* one position: the starts of a single block */
    *start = it->next;
    *len = 1;
    *stride = 0;
    it->remaining = 0;
    return true;
  }
  int inner = it->rank - 1;
  int64_t n = it->shape[inner] - it->index[inner], s = it->strides[inner];
  *start = it->next;
  *len = n;
  *stride = s;
  it->remaining -= n;
  if (it->remaining > 0) {
    /* Stand on the run's last position, then step as ndx_iter_next does. */
    it->index[inner] = it->shape[inner];
    it->next += (n - 1) * s;
    ndx_iter_carry(it);
  }
  return true;
}

void ndx_blocks_init(ndx_blocks *b, const ndx_layout *l) {
  ndx_layout c = coalesced(l);
  int64_t numel = ndx_numel(&c);
  /* The run is the innermost coalesced axis when its stride is 1, and the
   * axes outside it step from block to block; else each block is a single
   * position and every axis steps. A layout of at most one element coalesces
   * to [1] or [0]: one block, or none. */
  int outer;
  if (numel <= 1) {
    outer = 0;
    b->len = numel;
  } else if (c.strides[c.rank - 1] == 1) {
    outer = c.rank - 1;
    b->len = c.shape[c.rank - 1];
  } else {
    outer = c.rank;
    b->len = 1;
  }
  b->count = numel ? numel / b->len : 0;
  b->start = c.offset;
  b->pitch = 0;
  if (outer == 0) {
    b->kind = NDX_BLOCKS_ONE;
  } else if (outer == 1) {
    b->kind = NDX_BLOCKS_UNIFORM;
    b->pitch = c.strides[0];
  } else {
    b->kind = NDX_BLOCKS_MANY;
  }
  /* One odometer over the outer axes returns the block starts of every kind
   * (at rank 0 it returns `start` once, or nothing when empty). */
  iter_start(&b->starts, &c, outer, b->count);
}

bool ndx_blocks_next(ndx_blocks *b, int64_t *start) {
  return ndx_iter_next(&b->starts, start);
}

bool ndx_contiguous_offsets(const ndx_layout *l, int64_t *start, int64_t *end) {
  if (!l || !start || !end || ndx_layout_flaw(l, NULL, 0) || !ndx_is_contiguous(l)) return false;
  /* The canonical form gives an empty layout offset 0, so it is [0, 0). */
  *start = l->offset;
  *end = l->offset + ndx_numel(l);
  return true;
}

/* Walks the canonical layout itself, not its coalesced form: extent-1 axes
 * (stride 0 in canonical form) belong to no part and are skipped. */
bool ndx_broadcast_pattern(const ndx_layout *l, ndx_bcast *out) {
  if (!l || !out || ndx_layout_flaw(l, NULL, 0)) return false;
  int64_t numel = ndx_numel(l);
  if (numel == 0) return false;
  /* The run is the axes from the first to the last axis of extent > 1 with a
   * stride; all of them must carry a stride and form one C-order run that
   * ends with stride 1. A stride-0 axis in the middle breaks it. */
  int first = -1, last = -1;
  for (int a = 0; a < l->rank; a++) {
    if (l->shape[a] > 1 && l->strides[a] != 0) {
      if (first < 0) first = a;
      last = a;
    }
  }
  int64_t len = 1, left = 1, right = 1;
  if (first >= 0) {
    int64_t want = 1; /* the stride a C-order run needs at this axis */
    for (int a = last; a >= first; a--) {
      if (l->shape[a] == 1) continue;
      if (l->strides[a] != want) return false;
      want *= l->shape[a]; /* a product of extents: at most numel */
    }
    len = want;
    for (int a = 0; a < first; a++) left *= l->shape[a];
    for (int a = last + 1; a < l->rank; a++) right *= l->shape[a];
  } else {
    left = numel; /* every axis is stride 0: one position, read numel times */
  }
  *out = (ndx_bcast){.start = l->offset, .len = len, .left = left, .right = right};
  return true;
}
