/* fuzz_pack.c: the packer (ndx_pack.h) read back through the host build of
 * the device header (ndx_device.h compiled as C, both index widths).
 *
 * Each input gives one to four layouts of one shape, an element width and a
 * buffer size. ndx_pack must write a pack whose head says what it holds, in
 * the 32-bit form exactly when every position fits int32, and whose index
 * math (magic division, multi-index, odometer, span) gives every operand's
 * positions in C order; ndx_pack_widen must keep them. ndx_pack_copy must
 * keep every (destination, source) pair, with destination strides >= 0 and
 * non-increasing, and for a distinct destination increasing positions that
 * ndx_count_below counts; ndx_pack_permute must keep the pairs too. A buffer
 * one byte short, a misaligned buffer, a bad width or permutation is refused
 * and leaves the buffer untouched. */
#define FUZZ_NAME "pack"
#include "fuzz.h"

#include "ndx/ndx_pack.h"

#define NDX_WIDE 0
#include "ndx/ndx_device.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx/ndx_device.h"

#define MAX_OPS 4
#define PACK_WORDS (NDX_PACK_MAX_BYTES(NDX_PACK_MAX_OPS, NDX_MAX_RANK) / 8 + 1)

static uint64_t buf[PACK_WORDS], spare[PACK_WORDS];
static int64_t pairs_want[FZ_MAX_POSITIONS][2], pairs_got[FZ_MAX_POSITIONS][2];

static int64_t position(const ndx_pack_head *h, int k, int64_t i) {
  return h->wide ? ndx_position_w64(h, k, i) : ndx_position_w32(h, k, (int32_t)i);
}

static int compare_pair(const void *x, const void *y) {
  const int64_t *a = x, *b = y;
  return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* The C-order indices a check visits: all of them for a small layout, else
 * the first, the last and some from the input. */
static int64_t sample(fz_reader *r, int64_t numel, int64_t t) {
  if (numel <= FZ_MAX_POSITIONS) return t;
  if (t == 0 || t == 1) return t ? numel - 1 : 0;
  uint64_t v = 0;
  for (int k = 0; k < 7; k++) v = v << 8 | fz_byte(r);
  return (int64_t)(v % (uint64_t)numel);
}

/* The head and the positions of pack `h` against layouts `ls`. */
static void check_pack(fz_reader *r, const ndx_pack_head *h, size_t used, int n,
                       const ndx_layout *ls, int bits, bool widened) {
  int64_t numel = ndx_numel(&ls[0]);
  fz_check(h->version == NDX_PACK_VERSION && h->size == used, "the head has the version and size");
  fz_check((int)h->nops == n && (int)h->bits == bits && h->numel == numel,
           "the head has the operands, width and element count");
  fz_check(h->rank >= 1 && h->rank <= NDX_MAX_RANK, "rank in [1, 32]");
  fz_check(used == 32 + (size_t)NDX_PACK_WORDS(n, h->rank) * (h->wide ? 8 : 4),
           "the size is the head plus the words");
  int64_t product = 1;
  for (int a = 0; a < (int)h->rank; a++)
    product *= h->wide ? ndx_extent_w64(h, a) : ndx_extent_w32(h, a);
  fz_check(product == numel, "the extents multiply to the element count");
  bool narrow = numel <= INT32_MAX;
  for (int k = 0; k < n && numel > 0; k++) {
    int64_t lo, hi;
    ndx_span(&ls[k], &lo, &hi);
    narrow = narrow && hi - 1 <= INT32_MAX;
    int64_t plo, phi;
    if (h->wide)
      ndx_span_w64(h, k, &plo, &phi);
    else
      ndx_span_w32(h, k, &plo, &phi);
    fz_check(plo == lo && phi == hi, "the pack's span is the layout's");
  }
  fz_check(h->wide == (widened || !narrow),
           "the 32-bit form exactly when every position fits int32");
  if (numel == 0) return;
  int64_t count = numel <= FZ_MAX_POSITIONS ? numel : 8;
  for (int64_t t = 0; t < count; t++) {
    int64_t i = sample(r, numel, t);
    int64_t index[NDX_MAX_RANK];
    oracle_unravel(ls[0].rank, ls[0].shape, i, index);
    for (int k = 0; k < n; k++)
      fz_check(position(h, k, i) == oracle_position(&ls[k], index),
               "index i reaches element i's position in every operand");
    if (h->wide) {
      ndx_i64 ix[NDX_MAX_RANK];
      ndx_unravel_w64(h, i, ix);
      fz_check(ndx_index_position_w64(h, 0, ix) == position(h, 0, i), "multi-index, 64-bit");
    } else {
      ndx_i32 ix[NDX_MAX_RANK];
      ndx_unravel_w32(h, (int32_t)i, ix);
      fz_check(ndx_index_position_w32(h, 0, ix) == position(h, 0, i), "multi-index, 32-bit");
    }
  }
  /* the odometer from a start the input picks, for a stretch */
  int64_t i = sample(r, numel, 2) % numel;
  ndx_odo_w32 o32;
  ndx_odo_w64 o64;
  if (h->wide)
    ndx_odo_start_w64(h, &o64, i);
  else
    ndx_odo_start_w32(h, &o32, (int32_t)i);
  for (int64_t t = 0; t < 64 && i < numel; t++, i++) {
    int64_t p0 = h->wide ? o64.pos[0] : o32.pos[0], p1 = h->wide ? o64.pos[1] : o32.pos[1];
    fz_check(p0 == position(h, 0, i) && (n < 2 || p1 == position(h, 1, i)),
             "the odometer tracks operands 0 and 1");
    int more = h->wide ? ndx_odo_next_w64(h, &o64) : ndx_odo_next_w32(h, &o32);
    fz_check(more == (i + 1 < numel), "the odometer wraps exactly at the end");
  }
}

/* The (destination, source) pairs of copy pack `h`, sorted, into pairs_got. */
static void copy_pairs(const ndx_pack_head *h, int64_t numel) {
  for (int64_t i = 0; i < numel; i++) {
    pairs_got[i][0] = position(h, 0, i);
    pairs_got[i][1] = position(h, 1, i);
  }
  qsort(pairs_got, (size_t)numel, sizeof pairs_got[0], compare_pair);
}

static void check_copy(fz_reader *r, const ndx_layout *dst, const ndx_layout *src, int bits) {
  size_t used;
  memset(buf, 0, sizeof buf);
  ndx_status st = ndx_pack_copy(buf, sizeof buf, &used, dst, src, bits);
  fz_check(st == NDX_OK, "ndx_pack_copy packs two layouts of one shape");
  const ndx_pack_head *h = (const ndx_pack_head *)buf;
  int64_t numel = ndx_numel(dst);
  fz_check(h->nops == 2 && h->numel == numel && (int)h->bits == bits, "the copy pack's head");
  if (numel == 0 || numel > FZ_MAX_POSITIONS) return;
  int64_t index[NDX_MAX_RANK];
  for (int64_t k = 0; k < numel; k++) {
    oracle_unravel(dst->rank, dst->shape, k, index);
    pairs_want[k][0] = oracle_position(dst, index);
    pairs_want[k][1] = oracle_position(src, index);
  }
  qsort(pairs_want, (size_t)numel, sizeof pairs_want[0], compare_pair);
  copy_pairs(h, numel);
  fz_check(memcmp(pairs_got, pairs_want, sizeof pairs_want[0] * (size_t)numel) == 0,
           "the copy pack keeps every (destination, source) pair");
  for (int a = 0; a < (int)h->rank; a++) {
    int64_t s = h->wide ? ndx_stride_w64(h, 0, a) : ndx_stride_w32(h, 0, a);
    int64_t prev = a == 0    ? INT64_MAX
                   : h->wide ? ndx_stride_w64(h, 0, a - 1)
                             : ndx_stride_w32(h, 0, a - 1);
    fz_check(s >= 0 && s <= prev, "destination strides are >= 0 and non-increasing");
  }
  if (ndx_is_distinct(dst)) {
    for (int64_t i = 1; i < numel; i++)
      fz_check(position(h, 0, i) > position(h, 0, i - 1),
               "a distinct destination's positions increase in pack order");
    int64_t lo, hi;
    ndx_span(dst, &lo, &hi);
    for (int t = 0; t < 4; t++) {
      int64_t P = lo - 1 + (int64_t)(fz_byte(r) % (uint64_t)(hi - lo + 3)), below = 0;
      for (int64_t i = 0; i < numel; i++) below += position(h, 0, i) < P;
      int64_t got = h->wide ? ndx_count_below_w64(h, P) : ndx_count_below_w32(h, P);
      fz_check(got == below, "ndx_count_below counts the indices below a position");
    }
  }
  /* a permutation the input picks, sometimes broken */
  int32_t perm[NDX_MAX_RANK];
  int rank = (int)h->rank;
  for (int a = 0; a < rank; a++) perm[a] = a;
  for (int a = rank - 1; a > 0; a--) {
    int b = fz_byte(r) % (a + 1);
    int32_t t = perm[a];
    perm[a] = perm[b];
    perm[b] = t;
  }
  bool broken = fz_byte(r) % 8 == 0;
  if (broken) perm[fz_byte(r) % rank] = (int32_t)fz_small(r, 40);
  bool valid = true, seen[NDX_MAX_RANK] = {false};
  for (int a = 0; a < rank; a++) {
    valid = valid && perm[a] >= 0 && perm[a] < rank && !seen[perm[a]];
    if (valid) seen[perm[a]] = true;
  }
  memcpy(spare, buf, sizeof buf);
  st = ndx_pack_permute(buf, perm);
  if (!valid) {
    fz_check_untouched(buf, spare, sizeof buf, st);
    return;
  }
  fz_check(st == NDX_OK, "a permutation of the axes is taken");
  const ndx_pack_head *old = (const ndx_pack_head *)spare;
  fz_check(h->wide == old->wide && h->size == old->size, "permuting keeps the form");
  for (int a = 0; a < rank; a++) {
    int64_t e = h->wide ? ndx_extent_w64(h, a) : ndx_extent_w32(h, a);
    int64_t o = old->wide ? ndx_extent_w64(old, perm[a]) : ndx_extent_w32(old, perm[a]);
    fz_check(e == o, "new axis a is old axis perm[a]");
  }
  copy_pairs(h, numel);
  fz_check(memcmp(pairs_got, pairs_want, sizeof pairs_want[0] * (size_t)numel) == 0,
           "permuting keeps every (destination, source) pair");
}

static const int widths[] = {1, 2, 4, 8, 16, 32, 64, 128};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_reader r = {data, size, 0};
  ndx_layout ls[MAX_OPS];
  if (!fz_layout(&r, &ls[0])) return 0;
  int n = 1 + fz_byte(&r) % MAX_OPS;
  for (int k = 1; k < n; k++)
    if (!fz_sibling(&r, &ls[0], ls, k, &ls[k])) return 0;
  uint8_t wb = fz_byte(&r);
  int bits = wb < 240 ? widths[wb % 8] : (int)fz_small(&r, 130);
  bool valid_bits = false;
  for (int k = 0; k < 8; k++) valid_bits = valid_bits || bits == widths[k];

  /* refusals first: each leaves the buffer as it was */
  memset(buf, 0xe7, sizeof buf);
  memcpy(spare, buf, sizeof buf);
  size_t used = 12345;
  uint8_t how = fz_byte(&r) % 8;
  if (how == 0) {
    ndx_status st = ndx_pack((char *)buf + 4, sizeof buf - 8, &used, n, ls, 8);
    fz_check(st == NDX_EINVAL, "a misaligned buffer is refused");
    fz_check_untouched(buf, spare, sizeof buf, st);
  }
  ndx_status st = ndx_pack(buf, sizeof buf, &used, n, ls, bits);
  if (!valid_bits) {
    fz_check(st == NDX_EINVAL && used == 12345, "a width outside 1 .. 128 is refused");
    fz_check_untouched(buf, spare, sizeof buf, st);
    return 0;
  }
  fz_check(st == NDX_OK, "layouts of one shape pack");
  size_t need = used;
  const ndx_pack_head *h = (const ndx_pack_head *)buf;
  fz_check(need <= NDX_PACK_MAX_BYTES((size_t)n, h->rank), "the pack fits NDX_PACK_MAX_BYTES");
  check_pack(&r, h, need, n, ls, bits, false);

  /* one byte short is refused untouched; the exact size writes the same */
  memcpy(spare, buf, sizeof buf);
  memset(buf, 0x5e, sizeof buf);
  uint64_t fresh[PACK_WORDS];
  memcpy(fresh, buf, sizeof buf);
  st = ndx_pack(buf, need - 1, &used, n, ls, bits);
  fz_check(st == NDX_ERANGE, "a buffer one byte short is refused");
  fz_check_untouched(buf, fresh, sizeof buf, st);
  fz_check(ndx_pack(buf, need, &used, n, ls, bits) == NDX_OK && used == need &&
               memcmp(buf, spare, need) == 0 &&
               memcmp((char *)buf + need, (char *)fresh + need, sizeof buf - need) == 0,
           "the exact size writes the same pack and nothing past it");

  /* the 64-bit form holds the same positions */
  st = ndx_pack_widen(buf, sizeof buf, &used);
  fz_check(st == NDX_OK && h->wide == 1, "ndx_pack_widen writes the 64-bit form");
  check_pack(&r, h, used, n, ls, bits, true);

  if (n >= 2) check_copy(&r, &ls[0], &ls[1], bits);
  return 0;
}
