/* test_iter.c: the position iterator, contiguous blocks, contiguous offsets
 * and the broadcast pattern (ndx_iter.h), checked against literal examples
 * and against the brute-force enumeration of tests/oracle.h on random small
 * layouts of both stride signs. */
#include <criterion/criterion.h>
#include <string.h>

#include "ndx/ndx_iter.h"
#include "oracle.h"
#include "suite.h"

#define MAX_POS 4096 /* 4^6: the most positions a random layout here has */
#define RANDOM_CASES 3000

/* Layout number `k` of a random run: half plain random strides (rarely
 * contiguous), half strides of real views (runs, steps, flips, broadcasts),
 * so that every kind of block and pattern comes up. */
static ndx_layout random_layout(oracle_rng *rng, int k) {
  if (k % 2 == 0) return oracle_random_layout(rng, 6, 4, 5, 3);
  int64_t shape[NDX_MAX_RANK];
  int rank = oracle_random_shape(rng, 6, 4, 8, shape);
  return oracle_view_layout_of_shape(rng, rank, shape);
}

static const char *describe(const ndx_layout *l) {
  static char buf[1024];
  return oracle_describe(buf, sizeof buf, l);
}

/* Every position the iterator returns, in order; at most `cap`. */
static int64_t iter_positions(const ndx_layout *l, int64_t *out, int64_t cap) {
  ndx_iter it;
  ndx_iter_init(&it, l);
  int64_t n = 0, p;
  while (n < cap && ndx_iter_next(&it, &p)) out[n++] = p;
  return n;
}

/* ---- Position iterator ------------------------------------------------- */

Test(iter, visits_the_oracle_positions_in_order) {
  static int64_t want[MAX_POS], got[MAX_POS + 1];
  oracle_rng rng = {1};
  for (int k = 0; k < RANDOM_CASES; k++) {
    ndx_layout l = random_layout(&rng, k);
    int64_t n = oracle_positions(&l, want);
    int64_t m = iter_positions(&l, got, MAX_POS + 1);
    cr_assert_eq(m, n, "case %d, %s: %lld positions, oracle %lld", k, describe(&l), (long long)m,
                 (long long)n);
    for (int64_t i = 0; i < n; i++)
      cr_assert_eq(got[i], want[i], "case %d, %s: position %lld is %lld, oracle %lld", k,
                   describe(&l), (long long)i, (long long)got[i], (long long)want[i]);
  }
}

Test(iter, rank_0_has_one_position) {
  ndx_layout l = make(0, NULL, NULL, 7);
  ndx_iter it;
  ndx_iter_init(&it, &l);
  int64_t p = -1;
  cr_assert(ndx_iter_next(&it, &p));
  cr_assert_eq(p, 7);
  cr_assert_not(ndx_iter_next(&it, &p));
}

Test(iter, empty_layout_has_none_and_stays_done) {
  ndx_layout l = make(3, (int64_t[]){2, 0, 3}, (int64_t[]){3, 1, 1}, 5);
  ndx_iter it;
  ndx_iter_init(&it, &l);
  int64_t p = -1;
  cr_assert_not(ndx_iter_next(&it, &p));
  cr_assert_not(ndx_iter_next(&it, &p));
  cr_assert_eq(p, -1, "a finished iterator stores nothing");
}

Test(iter, walks_negative_strides_backwards) {
  /* [2,3] flipped on both axes: the last element first. */
  ndx_layout l = make(2, (int64_t[]){2, 3}, (int64_t[]){-3, -1}, 5);
  int64_t got[7];
  cr_assert_eq(iter_positions(&l, got, 7), 6);
  for (int i = 0; i < 6; i++) cr_assert_eq(got[i], 5 - i);
}

Test(iter, steps_over_the_coalesced_axes) {
  ndx_iter it;
  ndx_layout c = make(3, (int64_t[]){2, 3, 4}, (int64_t[]){12, 4, 1}, 0);
  ndx_iter_init(&it, &c);
  cr_assert_eq(it.rank, 1, "a contiguous layout is one run");
  ndx_layout t = make(3, (int64_t[]){4, 2, 3}, (int64_t[]){1, 12, 4}, 0); /* a transpose */
  ndx_iter_init(&it, &t);
  cr_assert_eq(it.rank, 2, "[2,3] merge, the transposed axis stays");
}

Test(iter, does_not_need_the_layout_afterwards) {
  ndx_layout l = make(2, (int64_t[]){2, 2}, (int64_t[]){1, 2}, 0);
  ndx_iter it;
  ndx_iter_init(&it, &l);
  memset(&l, 0xff, sizeof l);
  int64_t p, want[] = {0, 2, 1, 3};
  for (int i = 0; i < 4; i++) {
    cr_assert(ndx_iter_next(&it, &p));
    cr_assert_eq(p, want[i]);
  }
  cr_assert_not(ndx_iter_next(&it, &p));
}

/* ---- Contiguous blocks ------------------------------------------------- */

/* Checks that the blocks of `l` reproduce the oracle's positions in order,
 * each block contiguous, and that the kind's own description holds. */
static void check_blocks(const ndx_layout *l, int k) {
  static int64_t want[MAX_POS];
  int64_t n = oracle_positions(l, want);
  ndx_blocks b;
  ndx_blocks_init(&b, l);
  const char *d = describe(l);
  cr_assert_eq(b.count * b.len, n, "case %d, %s: %lld blocks of %lld for %lld positions", k, d,
               (long long)b.count, (long long)b.len, (long long)n);
  cr_assert(n == 0 ? b.len == 0 : b.len >= 1, "case %d, %s: len %lld", k, d, (long long)b.len);
  if (b.kind == NDX_BLOCKS_ONE)
    cr_assert_eq(b.count, n ? 1 : 0, "case %d, %s: ONE with count %lld", k, d, (long long)b.count);
  int64_t start, i = 0, blocks = 0;
  while (ndx_blocks_next(&b, &start)) {
    cr_assert_lt(blocks, b.count, "case %d, %s: more blocks than count", k, d);
    if (blocks == 0) cr_assert_eq(start, b.start, "case %d, %s: first block", k, d);
    if (b.kind == NDX_BLOCKS_UNIFORM)
      cr_assert_eq(start, b.start + blocks * b.pitch, "case %d, %s: block %lld", k, d,
                   (long long)blocks);
    for (int64_t j = 0; j < b.len; j++, i++)
      cr_assert_eq(start + j, want[i], "case %d, %s: block %lld, entry %lld is %lld, oracle %lld",
                   k, d, (long long)blocks, (long long)j, (long long)(start + j),
                   (long long)want[i]);
    blocks++;
  }
  cr_assert_eq(blocks, b.count, "case %d, %s: %lld blocks returned, count %lld", k, d,
               (long long)blocks, (long long)b.count);
  cr_assert_not(ndx_blocks_next(&b, &start), "case %d, %s: a finished walk stays done", k, d);
}

Test(blocks, cover_the_oracle_positions_in_order) {
  oracle_rng rng = {2};
  for (int k = 0; k < RANDOM_CASES; k++) {
    ndx_layout l = random_layout(&rng, k);
    check_blocks(&l, k);
  }
}

/* Blocks are whole inner runs: never longer than the positions that follow
 * on, and never shorter than they could be, so some block boundary is a
 * real break (with uniform lengths, a layout without one is a single block). */
Test(blocks, are_whole_inner_runs) {
  static int64_t pos[MAX_POS];
  oracle_rng rng = {3};
  for (int k = 0; k < RANDOM_CASES; k++) {
    ndx_layout l = random_layout(&rng, k);
    int64_t n = oracle_positions(&l, pos);
    ndx_blocks b;
    ndx_blocks_init(&b, &l);
    if (n == 0 || b.len == n) continue;
    int64_t run = 1;
    while (run < n && pos[run] == pos[run - 1] + 1) run++;
    cr_assert_leq(b.len, run, "case %d, %s", k, describe(&l));
    bool breaks = false; /* some block boundary is not consecutive */
    for (int64_t i = b.len; i < n; i += b.len) breaks = breaks || pos[i] != pos[i - 1] + 1;
    cr_assert(breaks, "case %d, %s: blocks of %lld could be longer", k, describe(&l),
              (long long)b.len);
  }
}

Test(blocks, a_contiguous_layout_is_one_block) {
  ndx_layout l = make(3, (int64_t[]){2, 1, 3}, (int64_t[]){3, 0, 1}, 7);
  ndx_blocks b;
  ndx_blocks_init(&b, &l);
  cr_assert_eq(b.kind, NDX_BLOCKS_ONE);
  cr_assert_eq(b.start, 7);
  cr_assert_eq(b.len, 6);
  cr_assert_eq(b.count, 1);
}

Test(blocks, rows_of_a_pitched_matrix_are_uniform) {
  /* [3,4] rows 10 apart, with an extent-1 axis between that must not matter */
  ndx_layout l = make(3, (int64_t[]){3, 1, 4}, (int64_t[]){10, 5, 1}, 2);
  ndx_blocks b;
  ndx_blocks_init(&b, &l);
  cr_assert_eq(b.kind, NDX_BLOCKS_UNIFORM);
  cr_assert_eq(b.start, 2);
  cr_assert_eq(b.len, 4);
  cr_assert_eq(b.count, 3);
  cr_assert_eq(b.pitch, 10);
}

Test(blocks, flipped_rows_have_a_negative_pitch) {
  ndx_layout l = make(2, (int64_t[]){3, 4}, (int64_t[]){-10, 1}, 20);
  ndx_blocks b;
  ndx_blocks_init(&b, &l);
  cr_assert_eq(b.kind, NDX_BLOCKS_UNIFORM);
  cr_assert_eq(b.start, 20);
  cr_assert_eq(b.pitch, -10);
  cr_assert_eq(b.len, 4);
}

Test(blocks, a_cropped_volume_has_many) {
  ndx_layout l = make(3, (int64_t[]){2, 3, 4}, (int64_t[]){100, 10, 1}, 0);
  ndx_blocks b;
  ndx_blocks_init(&b, &l);
  cr_assert_eq(b.kind, NDX_BLOCKS_MANY);
  cr_assert_eq(b.len, 4);
  cr_assert_eq(b.count, 6);
  int64_t want[] = {0, 10, 20, 100, 110, 120}, s;
  for (int i = 0; i < 6; i++) {
    cr_assert(ndx_blocks_next(&b, &s));
    cr_assert_eq(s, want[i]);
  }
  cr_assert_not(ndx_blocks_next(&b, &s));
}

Test(blocks, no_unit_inner_stride_gives_blocks_of_one) {
  ndx_blocks b;
  ndx_layout strided = make(1, (int64_t[]){3}, (int64_t[]){2}, 1);
  ndx_blocks_init(&b, &strided);
  cr_assert_eq(b.kind, NDX_BLOCKS_UNIFORM);
  cr_assert_eq(b.len, 1);
  cr_assert_eq(b.count, 3);
  cr_assert_eq(b.pitch, 2);
  ndx_layout bcast = make(1, (int64_t[]){4}, (int64_t[]){0}, 3);
  ndx_blocks_init(&b, &bcast);
  cr_assert_eq(b.kind, NDX_BLOCKS_UNIFORM);
  cr_assert_eq(b.len, 1);
  cr_assert_eq(b.pitch, 0);
  ndx_layout transposed = make(2, (int64_t[]){2, 3}, (int64_t[]){1, 2}, 0);
  ndx_blocks_init(&b, &transposed);
  cr_assert_eq(b.kind, NDX_BLOCKS_MANY);
  cr_assert_eq(b.len, 1);
  cr_assert_eq(b.count, 6);
  ndx_layout reversed = make(1, (int64_t[]){3}, (int64_t[]){-1}, 2);
  ndx_blocks_init(&b, &reversed);
  cr_assert_eq(b.kind, NDX_BLOCKS_UNIFORM);
  cr_assert_eq(b.len, 1);
  cr_assert_eq(b.pitch, -1);
}

Test(blocks, rank_0_and_empty) {
  ndx_blocks b;
  int64_t s;
  ndx_layout scalar = make(0, NULL, NULL, 9);
  ndx_blocks_init(&b, &scalar);
  cr_assert_eq(b.kind, NDX_BLOCKS_ONE);
  cr_assert_eq(b.start, 9);
  cr_assert_eq(b.len, 1);
  cr_assert_eq(b.count, 1);
  cr_assert(ndx_blocks_next(&b, &s));
  cr_assert_eq(s, 9);
  cr_assert_not(ndx_blocks_next(&b, &s));
  ndx_layout empty = make(2, (int64_t[]){3, 0}, (int64_t[]){1, 1}, 4);
  ndx_blocks_init(&b, &empty);
  cr_assert_eq(b.kind, NDX_BLOCKS_ONE);
  cr_assert_eq(b.len, 0);
  cr_assert_eq(b.count, 0);
  cr_assert_not(ndx_blocks_next(&b, &s));
}

/* ---- Contiguous offsets ------------------------------------------------ */

Test(contiguous_offsets, agree_with_is_contiguous_and_the_oracle) {
  static int64_t pos[MAX_POS];
  oracle_rng rng = {4};
  for (int k = 0; k < RANDOM_CASES; k++) {
    ndx_layout l = random_layout(&rng, k);
    int64_t n = oracle_positions(&l, pos), start = -1, end = -1;
    bool consecutive = true; /* by the definition: element i at offset + i */
    for (int64_t i = 0; i < n; i++) consecutive = consecutive && pos[i] == l.offset + i;
    bool got = ndx_contiguous_offsets(&l, &start, &end);
    cr_assert_eq(got, ndx_is_contiguous(&l), "case %d, %s", k, describe(&l));
    cr_assert_eq(got, consecutive, "case %d, %s", k, describe(&l));
    if (got) {
      cr_assert_eq(start, l.offset, "case %d, %s", k, describe(&l));
      cr_assert_eq(end - start, n, "case %d, %s", k, describe(&l));
    } else {
      cr_assert(start == -1 && end == -1, "case %d: stores nothing when false", k);
    }
  }
}

Test(contiguous_offsets, literals) {
  int64_t s = -1, e = -1;
  ndx_layout c = make(2, (int64_t[]){2, 3}, (int64_t[]){3, 1}, 4);
  cr_assert(ndx_contiguous_offsets(&c, &s, &e));
  cr_assert(s == 4 && e == 10);
  ndx_layout empty = make(2, (int64_t[]){0, 3}, (int64_t[]){3, 1}, 4);
  cr_assert(ndx_contiguous_offsets(&empty, &s, &e));
  cr_assert(s == 0 && e == 0, "an empty layout's offset is 0 in canonical form");
  ndx_layout scalar = make(0, NULL, NULL, 5);
  cr_assert(ndx_contiguous_offsets(&scalar, &s, &e));
  cr_assert(s == 5 && e == 6);
  s = e = -1;
  ndx_layout flipped = make(1, (int64_t[]){3}, (int64_t[]){-1}, 2);
  cr_assert_not(ndx_contiguous_offsets(&flipped, &s, &e));
  cr_assert(s == -1 && e == -1);
}

/* ---- Broadcast pattern ------------------------------------------------- */

/* True iff position k of `pos` (n of them) is start + (k / right) % len. */
static bool follows(const int64_t *pos, int64_t n, ndx_bcast p) {
  for (int64_t k = 0; k < n; k++)
    if (pos[k] != p.start + (k / p.right) % p.len) return false;
  return true;
}

/* Brute force: does some split n = left * len * right reproduce `pos`? */
static bool some_pattern(const int64_t *pos, int64_t n) {
  for (int64_t right = 1; right <= n; right++) {
    if (n % right) continue;
    for (int64_t len = 1; len <= n / right; len++) {
      if ((n / right) % len) continue;
      if (follows(pos, n, (ndx_bcast){pos[0], len, n / right / len, right})) return true;
    }
  }
  return false;
}

Test(broadcast_pattern, reproduces_every_position_and_misses_none) {
  static int64_t pos[MAX_POS];
  oracle_rng rng = {5};
  for (int k = 0; k < RANDOM_CASES; k++) {
    ndx_layout l = random_layout(&rng, k);
    int64_t n = oracle_positions(&l, pos);
    ndx_bcast p = {-1, -1, -1, -1};
    bool got = ndx_broadcast_pattern(&l, &p);
    if (got) {
      cr_assert(n > 0, "case %d, %s: an empty layout has no pattern", k, describe(&l));
      cr_assert(p.len >= 1 && p.left >= 1 && p.right >= 1, "case %d, %s", k, describe(&l));
      cr_assert_eq(p.left * p.len * p.right, n, "case %d, %s", k, describe(&l));
      cr_assert(follows(pos, n, p),
                "case %d, %s: start %lld len %lld left %lld right %lld misses a position", k,
                describe(&l), (long long)p.start, (long long)p.len, (long long)p.left,
                (long long)p.right);
    } else {
      cr_assert(p.start == -1 && p.len == -1, "case %d: stores nothing when false", k);
      cr_assert(n == 0 || !some_pattern(pos, n), "case %d, %s: a pattern exists", k, describe(&l));
    }
    if (n > 0 && ndx_is_contiguous(&l))
      cr_assert(got && p.left == 1 && p.right == 1 && p.len == n, "case %d, %s", k, describe(&l));
  }
}

static ndx_bcast pattern_of(const ndx_layout *l) {
  ndx_bcast p;
  cr_assert(ndx_broadcast_pattern(l, &p), "%s has a pattern", describe(l));
  return p;
}

Test(broadcast_pattern, a_column_broadcast_to_a_volume) {
  /* [3,1] contiguous, broadcast to [2,3,4]: strides [0,1,0]. */
  ndx_layout col, v;
  cr_assert_eq(ndx_contiguous(&col, 2, (int64_t[]){3, 1}), NDX_OK);
  cr_assert_eq(ndx_broadcast(&v, &col, 3, (int64_t[]){2, 3, 4}), NDX_OK);
  ndx_bcast p = pattern_of(&v);
  cr_assert(p.start == 0 && p.len == 3 && p.left == 2 && p.right == 4);
}

Test(broadcast_pattern, literals) {
  ndx_bcast p;
  ndx_layout scalar = make(0, NULL, NULL, 8);
  p = pattern_of(&scalar);
  cr_assert(p.start == 8 && p.len == 1 && p.left == 1 && p.right == 1);
  ndx_layout c = make(2, (int64_t[]){2, 3}, (int64_t[]){3, 1}, 5);
  p = pattern_of(&c);
  cr_assert(p.start == 5 && p.len == 6 && p.left == 1 && p.right == 1);
  ndx_layout row = make(2, (int64_t[]){4, 3}, (int64_t[]){0, 1}, 2); /* a row read 4 times */
  p = pattern_of(&row);
  cr_assert(p.start == 2 && p.len == 3 && p.left == 4 && p.right == 1);
  ndx_layout each = make(2, (int64_t[]){3, 2}, (int64_t[]){1, 0}, 0); /* each entry twice */
  p = pattern_of(&each);
  cr_assert(p.start == 0 && p.len == 3 && p.left == 1 && p.right == 2);
  ndx_layout one = make(2, (int64_t[]){3, 2}, (int64_t[]){0, 0}, 1); /* one entry, 6 times */
  p = pattern_of(&one);
  cr_assert(p.start == 1 && p.len == 1 && p.left * p.right == 6);
  /* extent-1 axes (stride 0 in canonical form) inside the run and around */
  ndx_layout gaps = make(5, (int64_t[]){1, 2, 1, 3, 1}, (int64_t[]){9, 3, 9, 1, 9}, 0);
  p = pattern_of(&gaps);
  cr_assert(p.len == 6 && p.left == 1 && p.right == 1);
}

Test(broadcast_pattern, refusals_store_nothing) {
  ndx_bcast p = {-1, -1, -1, -1};
  ndx_layout empty = make(2, (int64_t[]){0, 3}, (int64_t[]){0, 1}, 0);
  ndx_layout split = make(3, (int64_t[]){3, 2, 3}, (int64_t[]){3, 0, 1}, 0); /* 0 in the run */
  ndx_layout strided = make(2, (int64_t[]){2, 3}, (int64_t[]){0, 2}, 0);
  ndx_layout flipped = make(1, (int64_t[]){3}, (int64_t[]){-1}, 2);
  const ndx_layout *no[] = {&empty, &split, &strided, &flipped};
  for (int i = 0; i < 4; i++) {
    cr_assert_not(ndx_broadcast_pattern(no[i], &p), "%s", describe(no[i]));
    cr_assert(p.start == -1 && p.len == -1 && p.left == -1 && p.right == -1);
  }
}

/* Review finding: ndx_iter_run on the block-start iterator of a one-block
 * layout (rank 0) read index[-1]. */
Test(iter_run, walks_the_starts_of_a_single_block) {
  ndx_layout l = contiguous(1, (int64_t[]){5});
  ndx_blocks b;
  ndx_blocks_init(&b, &l);
  cr_assert_eq(b.kind, NDX_BLOCKS_ONE);
  int64_t start, len, stride;
  cr_assert(ndx_iter_run(&b.starts, &start, &len, &stride));
  cr_assert_eq(start, 0);
  cr_assert_eq(len, 1);
  cr_assert_not(ndx_iter_run(&b.starts, &start, &len, &stride));
}

/* A layout no ndx_ call makes (rank 40) walks as empty, never out of bounds. */
Test(iter, a_layout_of_bad_rank_has_no_position) {
  ndx_layout l = contiguous(1, (int64_t[]){5});
  l.rank = 40;
  ndx_iter it;
  int64_t pos;
  ndx_iter_init(&it, &l);
  cr_assert_not(ndx_iter_next(&it, &pos));
}
