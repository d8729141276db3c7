/* fuzz_iter.c: the walks of ndx_iter.h against the enumerated positions.
 *
 * Each input gives a layout (sometimes broadcast to more axes) and a way to
 * walk it: ndx_iter_next and ndx_iter_run mixed as the input says must give
 * exactly the positions in C order; ndx_blocks must cover them block by
 * block (len consecutive positions each, the starts its kind promises);
 * ndx_contiguous_offsets must answer exactly for contiguous layouts, and
 * ndx_broadcast_pattern's pattern, when it finds one, must give every
 * position. Layouts too large to enumerate are checked on their first
 * FZ_MAX_POSITIONS positions. */
#define FUZZ_NAME "iter"
#include "fuzz.h"

#include "ndx/ndx_iter.h"

static int64_t want[FZ_MAX_POSITIONS];

/* Walks `l` by a mix of ndx_iter_next and ndx_iter_run the input picks. */
static void check_walk(fz_reader *r, const ndx_layout *l, int64_t numel, int64_t known) {
  ndx_iter it;
  ndx_iter_init(&it, l);
  int64_t k = 0;
  uint8_t mix = fz_byte(r);
  for (int step = 0; k < known; step++) {
    bool run = (mix >> (step % 8)) & 1;
    if (run) {
      int64_t start, len, stride;
      fz_check(ndx_iter_run(&it, &start, &len, &stride), "ndx_iter_run returns every position");
      fz_check(len >= 1 && len <= numel - k, "a run has between 1 and the remaining positions");
      for (int64_t t = 0; t < len && k < known; t++, k++)
        fz_check(start + t * stride == want[k], "a run gives the positions in C order");
      if (k == known && known < numel) return; /* past what is enumerated */
    } else {
      int64_t pos;
      fz_check(ndx_iter_next(&it, &pos), "ndx_iter_next returns every position");
      fz_check(pos == want[k++], "ndx_iter_next gives the positions in C order");
    }
  }
  if (known < numel) return;
  int64_t pos, start, len, stride;
  fz_check(!ndx_iter_next(&it, &pos) && !ndx_iter_run(&it, &start, &len, &stride),
           "the walk ends after the last position");
}

static void check_blocks(const ndx_layout *l, int64_t numel, int64_t known) {
  ndx_blocks b;
  ndx_blocks_init(&b, l);
  ndx_layout c;
  fz_check(ndx_coalesce(1, l, &c) == NDX_OK, "one layout coalesces");
  int64_t len = numel <= 1 ? numel : c.strides[c.rank - 1] == 1 ? c.shape[c.rank - 1] : 1;
  fz_check(b.len == len, "the block is the innermost coalesced axis when its stride is 1");
  fz_check(b.count == (numel ? numel / len : 0) && b.count * b.len == numel,
           "the blocks cover the layout");
  fz_check((b.kind == NDX_BLOCKS_ONE) == (b.count <= 1), "one block exactly when the run is whole");
  fz_check(b.kind != NDX_BLOCKS_UNIFORM || b.count > 1, "uniform blocks are several");
  fz_check(b.kind == NDX_BLOCKS_UNIFORM || b.pitch == 0, "only uniform blocks have a pitch");
  int64_t start, k = 0;
  for (; k < b.count && k * len < known; k++) {
    fz_check(ndx_blocks_next(&b, &start), "ndx_blocks_next returns every block");
    if (k == 0) fz_check(start == b.start, "the first block starts at start");
    if (b.kind == NDX_BLOCKS_UNIFORM) fz_check(start == b.start + k * b.pitch, "uniform starts");
    for (int64_t t = 0; t < len && k * len + t < known; t++)
      fz_check(start + t == want[k * len + t], "a block holds len consecutive positions");
  }
  if (k == b.count) fz_check(!ndx_blocks_next(&b, &start), "no block after the last");
}

static void check_offsets(const ndx_layout *l, int64_t numel, int64_t known) {
  bool contiguous = true;
  for (int64_t k = 0; k < known; k++) contiguous = contiguous && want[k] == l->offset + k;
  int64_t start = -7, end = -7;
  bool got = ndx_contiguous_offsets(l, &start, &end);
  fz_check(got == ndx_is_contiguous(l), "contiguous offsets exactly for a contiguous layout");
  if (known == numel) fz_check(got == contiguous, "contiguous iff element k sits at offset + k");
  if (got)
    fz_check(start == l->offset && end == l->offset + numel, "the range is [offset, offset+numel)");
  else
    fz_check(start == -7 && end == -7, "no range is stored for a layout that is not contiguous");

  ndx_bcast p, before;
  memset(&p, 0x2d, sizeof p);
  before = p;
  bool found = ndx_broadcast_pattern(l, &p);
  bool all_zero = true; /* a single position read numel times */
  for (int a = 0; a < l->rank; a++) all_zero = all_zero && l->strides[a] == 0;
  if (numel > 0 && (got || all_zero))
    fz_check(found, "a contiguous or all-stride-0 layout has a pattern");
  if (!found) {
    fz_check(memcmp(&p, &before, sizeof p) == 0, "no pattern: nothing stored");
    return;
  }
  fz_check(numel > 0 && p.len >= 1 && p.left >= 1 && p.right >= 1 &&
               p.left * p.len * p.right == numel,
           "left * len * right is the element count");
  for (int64_t k = 0; k < known; k++)
    fz_check(want[k] == p.start + (k / p.right) % p.len, "the pattern gives every position");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_reader r = {data, size, 0};
  ndx_layout l;
  if (!fz_layout(&r, &l)) return 0;
  if (fz_byte(&r) % 4 == 0) { /* broadcast to leading axes, stride 0 */
    int64_t shape[NDX_MAX_RANK];
    int extra = 1 + fz_byte(&r) % 2;
    for (int a = 0; a < extra; a++) shape[a] = 1 + fz_byte(&r) % 3;
    memcpy(shape + extra, l.shape, sizeof *shape * (size_t)l.rank);
    if (ndx_broadcast(&l, &l, l.rank + extra, shape) != NDX_OK) return 0;
    fz_check_layout(&l);
  }
  int64_t numel = ndx_numel(&l), known = numel < FZ_MAX_POSITIONS ? numel : FZ_MAX_POSITIONS;
  for (int64_t k = 0; k < known; k++) want[k] = fz_position_of(&l, k);
  check_walk(&r, &l, numel, known);
  check_blocks(&l, numel, known);
  check_offsets(&l, numel, known);
  return 0;
}
