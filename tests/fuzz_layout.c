/* fuzz_layout.c: a fuzz target for the host layout calls.
 *
 * Each input is read as a small layout (possibly invalid) and a chain of
 * moves (possibly invalid). Every call must either fail, leaving its output
 * untouched, or return a layout that keeps the invariants every ndx layout
 * has, checked against a brute-force enumeration of its positions: canonical
 * form, span holding every position tightly, a sound is_distinct, coalescing
 * and iteration that keep the positions in order, and a text form that reads
 * back equal. A broken invariant aborts, which is what a fuzzer reports.
 *
 * Built two ways: with clang's -fsanitize=fuzzer as a libFuzzer target
 * (meson option, see tests/meson.build), and as a plain test program whose
 * main() feeds it a fixed number of inputs from a seeded generator and prints
 * TAP, so every CI run replays the same inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndx/ndx_iter.h"
#include "ndx/ndx_layout.h"
#include "oracle.h"

#define MAX_POSITIONS 4096 /* 6 axes of at most 4: 4096 */

/* Reads the input a byte at a time; 0 once it is used up. */
typedef struct reader {
  const uint8_t *data;
  size_t size, at;
} reader;

static uint8_t byte(reader *r) {
  return r->at < r->size ? r->data[r->at++] : 0;
}

/* A small signed value in [-range, range] from one byte. */
static int64_t small(reader *r, int range) {
  return (int64_t)(byte(r) % (2 * range + 1)) - range;
}

static void check(bool ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "fuzz_layout: invariant broken: %s\n", what);
    abort();
  }
}

static int64_t positions_a[MAX_POSITIONS], positions_b[MAX_POSITIONS];
static long layouts_checked; /* reported by the replay driver: the inputs must reach here */

/* The invariants of one layout an ndx call returned. */
static void check_layout(const ndx_layout *l) {
  layouts_checked++;
  check(l->rank >= 0 && l->rank <= NDX_MAX_RANK, "rank in range");
  int64_t n = ndx_numel(l);
  check(n == oracle_numel(l), "numel is the product of the extents");
  for (int a = 0; a < l->rank; a++)
    check(l->shape[a] != 1 || l->strides[a] == 0, "an extent-1 axis has stride 0");
  if (n == 0) {
    check(l->offset == 0, "an empty layout has offset 0");
    for (int a = 0; a < l->rank; a++) check(l->strides[a] == 0, "an empty layout has strides 0");
  }
  if (n > MAX_POSITIONS) return;
  oracle_positions(l, positions_a);

  int64_t lo, hi, min = INT64_MAX, max = INT64_MIN;
  ndx_span(l, &lo, &hi);
  for (int64_t k = 0; k < n; k++) {
    min = positions_a[k] < min ? positions_a[k] : min;
    max = positions_a[k] > max ? positions_a[k] : max;
  }
  check(n == 0 ? lo == 0 && hi == 0 : lo == min && hi == max + 1, "span is tight");
  check(lo >= 0, "no position is negative");

  if (ndx_is_distinct(l))
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = i + 1; j < n; j++)
        check(positions_a[i] != positions_a[j], "a distinct layout repeats no position");

  ndx_layout c;
  check(ndx_coalesce(1, l, &c) == NDX_OK, "coalesce of one layout succeeds");
  check(oracle_positions(&c, positions_b) == n, "coalesce keeps the count");
  check(memcmp(positions_a, positions_b, sizeof *positions_a * (size_t)n) == 0,
        "coalesce keeps the positions in order");

  ndx_iter it;
  int64_t pos, k = 0;
  for (ndx_iter_init(&it, l); ndx_iter_next(&it, &pos); k++)
    check(k < n && pos == positions_a[k], "the iterator visits the positions in order");
  check(k == n, "the iterator visits every position");

  char text[2048];
  ndx_layout back;
  check(ndx_format(text, sizeof text, l) < (int)sizeof text, "the text fits");
  check(ndx_parse(&back, text) == NDX_OK && ndx_equal(&back, l), "the text reads back equal");
}

/* One move decoded from the input, applied to `l`; the result (when any) is
 * checked and replaces `l`. */
static void fuzz_move(reader *r, ndx_layout *l) {
  int64_t shape[NDX_MAX_RANK];
  int32_t perm[NDX_MAX_RANK];
  ndx_range ranges[NDX_MAX_RANK];
  ndx_window windows[3];
  ndx_move m = {.kind = (ndx_move_kind)(byte(r) % 5)};
  switch (m.kind) {
  case NDX_RESHAPE:
  case NDX_BROADCAST:
    m.n = byte(r) % 7;
    for (int a = 0; a < m.n; a++) shape[a] = small(r, 2) + 2; /* 0 .. 4 */
    m.shape = shape;
    break;
  case NDX_PERMUTE:
    m.n = l->rank;
    for (int a = 0; a < m.n; a++) perm[a] = a;
    for (int a = m.n - 1; a > 0; a--) { /* a shuffle, sometimes broken */
      int b = byte(r) % (a + 1);
      int32_t t = perm[a];
      perm[a] = perm[b];
      perm[b] = t;
    }
    if (m.n > 0 && byte(r) % 8 == 0) perm[0] = (int32_t)small(r, 8);
    m.perm = perm;
    break;
  case NDX_SLICE:
    m.n = l->rank;
    for (int a = 0; a < m.n; a++) ranges[a] = (ndx_range){small(r, 5), small(r, 5), small(r, 3)};
    m.ranges = ranges;
    break;
  case NDX_WINDOW:
    m.n = byte(r) % 3;
    for (int k = 0; k < m.n; k++)
      windows[k] = (ndx_window){(int32_t)small(r, 6), small(r, 3), small(r, 3), small(r, 3)};
    m.windows = windows;
    break;
  }
  ndx_layout out, before;
  memset(&out, 0xa5, sizeof out);
  before = out;
  ndx_status st = ndx_apply(&out, &m, l);
  if (st != NDX_OK) {
    check(memcmp(&out, &before, sizeof out) == 0, "a failed move leaves out untouched");
    check(ndx_last_error()[0] != '\0', "a failed move says why");
    return;
  }
  check_layout(&out);
  *l = out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  reader r = {data, size, 0};
  int rank = byte(&r) % 7;
  int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK];
  for (int a = 0; a < rank; a++) {
    shape[a] = small(&r, 2) + 2; /* 0 .. 4 */
    strides[a] = small(&r, 9);
  }
  int64_t offset = (int64_t)(byte(&r) % 80) - 8; /* mostly valid, sometimes negative */
  ndx_layout l, before;
  memset(&l, 0x5a, sizeof l);
  before = l;
  if (ndx_make(&l, rank, shape, strides, offset) != NDX_OK) {
    check(memcmp(&l, &before, sizeof l) == 0, "a failed ndx_make leaves out untouched");
    return 0;
  }
  check_layout(&l);
  for (int k = 0; k < 4 && r.at < r.size; k++) fuzz_move(&r, &l);
  return 0;
}

#ifndef NDX_LIBFUZZER
/* The replay driver: a fixed number of seeded inputs, reported as TAP. */
int main(int argc, char **argv) {
  long count = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
  oracle_rng rng = {20261130};
  uint8_t input[96];
  printf("TAP version 13\n1..1\n");
  for (long i = 0; i < count; i++) {
    size_t size = (size_t)oracle_between(&rng, 0, sizeof input);
    for (size_t k = 0; k < size; k++) input[k] = (uint8_t)oracle_next(&rng);
    LLVMFuzzerTestOneInput(input, size);
  }
  /* A replay that checks few layouts tests little: at least one per input. */
  bool enough = layouts_checked >= count;
  printf("%s - fuzz_layout::seeded_inputs_keep_every_invariant (%ld inputs, %ld layouts checked)\n",
         enough ? "ok" : "not ok", count, layouts_checked);
  return enough ? 0 : 1;
}
#endif
