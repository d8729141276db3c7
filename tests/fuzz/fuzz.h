/* fuzz.h: what the fuzz targets share: reading an input a byte at a time,
 * checking the invariants every ndx layout keeps against the brute-force
 * oracle (tests/oracle.h), and the replay driver.
 *
 * Each target (fuzz_<name>.c) defines FUZZ_NAME ("make", "apply", ...) and
 * LLVMFuzzerTestOneInput, then includes this header. A broken invariant is a
 * failure: in a libFuzzer build (NDX_LIBFUZZER) it aborts, which libFuzzer
 * reports with the input; in the replay build it ends the current input and
 * the driver reports "not ok" with the input's name.
 *
 * The replay driver, `fuzz_<name> [-n COUNT] [PATH...]`, runs every file of
 * each PATH (a directory, in name order, or one file) and then COUNT seeded
 * pseudo-random inputs (half of them mutations of the files read), and prints
 * one TAP line per PATH and one for the seeded inputs. */
#ifndef NDX_TEST_FUZZ_H
#define NDX_TEST_FUZZ_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndx/ndx_layout.h"
#include "oracle.h"

#ifndef FUZZ_NAME
#error "define FUZZ_NAME before including fuzz.h"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- Reading the input -------------------------------------------------- */

/* Reads the input a byte at a time; 0 once it is used up, so every input,
 * the empty one included, decodes to something. */
typedef struct fz_reader {
  const uint8_t *data;
  size_t size, at;
} fz_reader;

static inline uint8_t fz_byte(fz_reader *r) {
  return r->at < r->size ? r->data[r->at++] : 0;
}

static inline bool fz_more(const fz_reader *r) {
  return r->at < r->size;
}

/* A small value in [-range, range]. */
static inline int64_t fz_small(fz_reader *r, int range) {
  return (int64_t)(fz_byte(r) % (2 * range + 1)) - range;
}

/* An int64 of any size, mostly near the edges ndx checks: small values,
 * values around 2^31, 2^53 and INT64_MAX, INT64_MIN, and any 8 bytes. */
static inline int64_t fz_wide(fz_reader *r) {
  uint8_t kind = fz_byte(r);
  int64_t near = fz_small(r, 3);
  switch (kind % 8) {
  case 0:
    return INT32_MAX + near;
  case 1:
    return NDX_MAX_NUMEL + near;
  case 2:
    return INT64_MAX - (near < 0 ? -near : near);
  case 3:
    return near < 0 ? INT64_MIN - near : INT64_MIN + near;
  case 4: {
    uint64_t v = 0;
    for (int k = 0; k < 8; k++) v = v << 8 | fz_byte(r);
    return (int64_t)v;
  }
  case 5:
    return -(int64_t)(INT64_C(1) << (fz_byte(r) % 63)) + near;
  default:
    return (int64_t)(INT64_C(1) << (fz_byte(r) % 63)) + near;
  }
}

/* ---- Failing ------------------------------------------------------------ */

static long fz_checked; /* results checked: the driver wants the inputs to reach here */

#ifdef NDX_LIBFUZZER
static inline void fz_check(bool ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "fuzz_%s: invariant broken: %s\n", FUZZ_NAME, what);
    abort();
  }
}
#else
static jmp_buf fz_jump;
static const char *fz_broken; /* the first invariant the current input broke */

static inline void fz_check(bool ok, const char *what) {
  if (!ok) {
    fz_broken = what;
    longjmp(fz_jump, 1);
  }
}
#endif

/* A failed call: `out` (of `size` bytes) still holds `before`, and the call
 * said why. */
static inline void fz_check_untouched(const void *out, const void *before, size_t size,
                                      ndx_status st) {
  fz_check(st == NDX_EINVAL || st == NDX_ERANGE || st == NDX_ENOVIEW,
           "a failed call returns a documented status");
  fz_check(memcmp(out, before, size) == 0, "a failed call leaves its output untouched");
  fz_check(ndx_last_error()[0] != '\0', "a failed call says why");
}

/* ---- Layout invariants -------------------------------------------------- */

#define FZ_MAX_POSITIONS 4096 /* the most positions a brute-force check enumerates */

__extension__ typedef __int128 fz_i128; /* exact sums of a few int64 products */

/* v, or the int64 limit it passes. */
static inline int64_t fz_clamp(fz_i128 v) {
  return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

static int64_t fz_pos_a[FZ_MAX_POSITIONS], fz_pos_b[FZ_MAX_POSITIONS];

static int fz_compare(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

/* The position of C-order element k of `l` by the definition, for a layout
 * too large to enumerate. */
static inline int64_t fz_position_of(const ndx_layout *l, int64_t k) {
  int64_t index[NDX_MAX_RANK];
  oracle_unravel(l->rank, l->shape, k, index);
  return oracle_position(l, index);
}

/* True iff `l` is within the limits every layout argument is checked
 * against: rank in [0, 32], extents in [0, 2^53] whose non-zero ones
 * multiply to at most 2^53, (d-1)*|s| within int64 on every axis of extent
 * d > 1, and then offset 0 when there is no element, else every position in
 * [0, 2^53). */
static inline bool fz_made(const ndx_layout *l) {
  if (l->rank < 0 || l->rank > NDX_MAX_RANK) return false;
  fz_i128 product = 1, lo = l->offset, hi = l->offset;
  bool empty = false;
  for (int a = 0; a < l->rank; a++) {
    int64_t d = l->shape[a], s = l->strides[a];
    if (d < 0 || d > NDX_MAX_NUMEL) return false;
    empty = empty || d == 0;
    if (d > 0 && (product *= d) > NDX_MAX_NUMEL) return false;
    if (d <= 1) continue;
    fz_i128 reach = (fz_i128)(d - 1) * (s < 0 ? -(fz_i128)s : (fz_i128)s);
    if (reach > INT64_MAX) return false;
    if (s < 0)
      lo -= reach;
    else
      hi += reach;
  }
  return empty ? l->offset == 0 : lo >= 0 && hi < NDX_MAX_NUMEL;
}

/* Every invariant of a layout an ndx call returned: canonical, within the
 * limits, entries past rank zeroed, a tight span computed independently, and
 * for small layouts (at most FZ_MAX_POSITIONS elements, positions in `fz_pos_a`
 * afterwards) the queries against the enumerated positions. Returns the
 * element count. */
static inline int64_t fz_check_layout(const ndx_layout *l) {
  fz_checked++;
  fz_check(l->rank >= 0 && l->rank <= NDX_MAX_RANK, "rank in [0, 32]");
  fz_check(oracle_not_canonical(l) == NULL, "the result is canonical");
  fz_check(l->flags == 0, "flags are 0");
  for (int a = l->rank; a < NDX_MAX_RANK; a++)
    fz_check(l->shape[a] == 0 && l->strides[a] == 0, "entries past rank are zero");
  fz_i128 numel = 1, lo = l->offset, hi = l->offset + (fz_i128)1;
  for (int a = 0; a < l->rank; a++) {
    numel *= l->shape[a];
    fz_check(numel <= NDX_MAX_NUMEL, "the element count is at most 2^53");
    fz_i128 reach = (fz_i128)(l->shape[a] > 0 ? l->shape[a] - 1 : 0) * l->strides[a];
    fz_check(reach <= INT64_MAX && reach >= -INT64_MAX, "(d-1)*|s| fits int64");
    if (reach < 0)
      lo += reach;
    else
      hi += reach;
  }
  int64_t n = ndx_numel(l), slo, shi;
  fz_check(n == (int64_t)numel, "ndx_numel is the product of the extents");
  ndx_span(l, &slo, &shi);
  if (n == 0) {
    fz_check(slo == 0 && shi == 0, "an empty layout spans [0, 0)");
    return 0;
  }
  fz_check(slo == lo && shi == hi, "ndx_span is offset plus the negative and positive reaches");
  fz_check(lo >= 0 && hi <= NDX_MAX_NUMEL, "positions lie in [0, 2^53)");
  /* the first and last positions by the definition lie inside */
  int64_t first = fz_position_of(l, 0), last = fz_position_of(l, n - 1);
  fz_check(first >= slo && first < shi && last >= slo && last < shi, "positions inside the span");
  if (n > FZ_MAX_POSITIONS) return n;

  oracle_positions(l, fz_pos_a);
  int64_t min = INT64_MAX, max = INT64_MIN;
  bool contiguous = true;
  for (int64_t k = 0; k < n; k++) {
    min = fz_pos_a[k] < min ? fz_pos_a[k] : min;
    max = fz_pos_a[k] > max ? fz_pos_a[k] : max;
    contiguous = contiguous && fz_pos_a[k] == l->offset + k;
  }
  fz_check(slo == min && shi == max + 1, "the span is tight");
  fz_check(ndx_is_contiguous(l) == contiguous, "is_contiguous iff element k sits at offset + k");

  memcpy(fz_pos_b, fz_pos_a, sizeof *fz_pos_a * (size_t)n);
  qsort(fz_pos_b, (size_t)n, sizeof *fz_pos_b, fz_compare);
  bool repeats = false;
  for (int64_t k = 1; k < n; k++) repeats = repeats || fz_pos_b[k] == fz_pos_b[k - 1];
  if (ndx_is_distinct(l)) fz_check(!repeats, "a distinct layout repeats no position");

  ndx_layout other;
  char text[2048];
  int len = ndx_format(text, sizeof text, l);
  fz_check(len > 0 && len < (int)sizeof text && (int)strlen(text) == len, "the text fits");
  fz_check(ndx_parse(&other, text) == NDX_OK && ndx_equal(&other, l) &&
               memcmp(&other, l, sizeof other) == 0,
           "the text reads back equal");
  fz_check(ndx_hash(&other) == ndx_hash(l), "equal layouts hash equal");
  return n;
}

/* What an axis of extent d and negative stride s adds to the offset to keep
 * its positions >= 0: (d-1)*|s|, unless that is far past any limit. */
static inline fz_i128 fz_flip_offset(int64_t d, int64_t s) {
  fz_i128 reach = d > 1 && s < 0 ? -(fz_i128)(d - 1) * s : 0;
  return reach < ((fz_i128)1 << 70) ? reach : 0;
}

/* A layout for a target to work on, from the input: mostly small (rank up to
 * 6, extents up to 4, so it enumerates), sometimes with wide values. Returns
 * false when ndx_make refuses the values (after checking the refusal). */
static inline bool fz_layout(fz_reader *r, ndx_layout *out) {
  uint8_t head = fz_byte(r);
  int rank = head % 7;
  bool wide = head >= 240;
  int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK];
  fz_i128 offset = 0;
  for (int a = 0; a < rank; a++) {
    shape[a] = wide && fz_byte(r) < 32 ? fz_wide(r) : fz_small(r, 2) + 2; /* 0 .. 4 */
    strides[a] = wide && fz_byte(r) < 32 ? fz_wide(r) : fz_small(r, 9);
    offset += fz_flip_offset(shape[a], strides[a]);
  }
  offset += wide && fz_byte(r) < 32 ? fz_wide(r) : (int64_t)(fz_byte(r) % 24) - 2;
  ndx_layout l, before;
  memset(&l, 0x5a, sizeof l);
  before = l;
  ndx_status st = ndx_make(&l, rank, shape, strides, fz_clamp(offset));
  if (st != NDX_OK) {
    fz_check_untouched(&l, &before, sizeof l, st);
    return false;
  }
  fz_check_layout(&l);
  *out = l;
  return true;
}

/* A layout of `l`'s shape with strides the input picks: random, those of a
 * C-order parent (sometimes padded or reversed), or those of others[0..k-1]
 * (sometimes negated), so that operands share runs. Returns false when
 * ndx_make refuses them. */
static inline bool fz_sibling(fz_reader *r, const ndx_layout *l, const ndx_layout *others, int k,
                              ndx_layout *out) {
  int64_t strides[NDX_MAX_RANK], step = 1;
  fz_i128 offset = fz_byte(r) % 8;
  uint8_t how = fz_byte(r) % 4;
  for (int a = l->rank - 1; a >= 0; a--) {
    if (how == 0) {
      strides[a] = fz_small(r, 9);
    } else if (how == 1) { /* a C-order parent, sometimes padded or reversed */
      strides[a] = step * (fz_byte(r) % 6 == 0 ? -1 : 1);
      step *= (l->shape[a] > 0 && l->shape[a] < 1000 ? l->shape[a] : 1) + (fz_byte(r) % 5 == 0);
    } else {
      strides[a] = others[fz_byte(r) % k].strides[a] * (how == 3 ? -1 : 1);
    }
    offset += fz_flip_offset(l->shape[a], strides[a]);
  }
  if (offset > INT64_MAX) return false;
  ndx_status st = ndx_make(out, l->rank, l->shape, strides, (int64_t)offset);
  if (st == NDX_OK) fz_check_layout(out);
  return st == NDX_OK;
}

/* ---- The replay driver -------------------------------------------------- */
#ifndef NDX_LIBFUZZER
#include <dirent.h>
#include <sys/stat.h>

#define FZ_MAX_INPUT (1 << 16) /* larger corpus files are read up to here */
#ifndef FZ_MIN_CHECKED
#define FZ_MIN_CHECKED 50
#endif

static uint8_t fz_inputs[64][256]; /* files kept for mutation */
static size_t fz_input_sizes[64];
static int fz_kept;

/* Runs one input; returns false (after saying which invariant broke) when it
 * broke one. */
static bool fz_run(const uint8_t *data, size_t size, const char *name) {
  fz_broken = NULL;
  if (setjmp(fz_jump) == 0) LLVMFuzzerTestOneInput(data, size);
  static int reported;
  if (!fz_broken) return true;
  if (++reported > 10) return false; /* the first ten say enough */
  printf("# fuzz_%s: %s: invariant broken: %s\n# input:", FUZZ_NAME, name, fz_broken);
  for (size_t k = 0; k < size && k < 256; k++) printf(" %02x", data[k]);
  printf("\n");
  return false;
}

static bool fz_run_file(const char *path, long *failed) {
  static uint8_t buf[FZ_MAX_INPUT];
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  size_t size = fread(buf, 1, sizeof buf, f);
  fclose(f);
  if (!fz_run(buf, size, path)) ++*failed;
  if (fz_kept < 64 && size <= sizeof fz_inputs[0]) {
    memcpy(fz_inputs[fz_kept], buf, size);
    fz_input_sizes[fz_kept++] = size;
  }
  return true;
}

static int fz_by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs a directory's files in name order, or a single file; false when the
 * path cannot be read. */
static bool fz_run_path(const char *path, long *count, long *failed) {
  struct stat st;
  if (stat(path, &st) != 0) return false;
  if (!S_ISDIR(st.st_mode)) {
    ++*count;
    return fz_run_file(path, failed);
  }
  DIR *dir = opendir(path);
  if (!dir) return false;
  char *names[4096];
  int n = 0;
  for (struct dirent *e; (e = readdir(dir)) && n < 4096;)
    if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
  closedir(dir);
  qsort(names, (size_t)n, sizeof *names, fz_by_name);
  bool ok = true;
  for (int k = 0; k < n; k++) {
    char file[4096];
    snprintf(file, sizeof file, "%s/%s", path, names[k]);
    ++*count;
    ok = fz_run_file(file, failed) && ok;
    free(names[k]);
  }
  return ok;
}

int main(int argc, char **argv) {
  long count = 20000;
  int first = 1;
  if (argc > 2 && strcmp(argv[1], "-n") == 0) {
    count = strtol(argv[2], NULL, 10);
    first = 3;
  }
  printf("TAP version 13\n1..%d\n", argc - first + 1);
  int test = 0, bad = 0;
  for (int k = first; k < argc; k++) {
    long inputs = 0, failed = 0;
    bool read = fz_run_path(argv[k], &inputs, &failed);
    bool ok = read && failed == 0 && inputs > 0;
    bad += !ok;
    printf("%s %d - fuzz_%s::replays %s (%ld inputs, %ld failed%s)\n", ok ? "ok" : "not ok", ++test,
           FUZZ_NAME, argv[k], inputs, failed, read ? "" : ", unreadable");
  }
  /* Seeded inputs: random bytes, or a kept file with a few bytes changed. */
  oracle_rng rng = {20261130};
  uint8_t input[256];
  long failed = 0, checked_before = fz_checked;
  for (long i = 0; i < count; i++) {
    size_t size;
    if (fz_kept > 0 && i % 2) {
      int from = (int)oracle_between(&rng, 0, fz_kept - 1);
      size = fz_input_sizes[from];
      memcpy(input, fz_inputs[from], size);
      for (int e = (int)oracle_between(&rng, 1, 4); e > 0 && size > 0; e--)
        input[oracle_between(&rng, 0, (int64_t)size - 1)] = (uint8_t)oracle_next(&rng);
    } else {
      size = (size_t)oracle_between(&rng, 0, 128);
      for (size_t k = 0; k < size; k++) input[k] = (uint8_t)oracle_next(&rng);
    }
    char name[64];
    snprintf(name, sizeof name, "seeded input %ld", i);
    if (!fz_run(input, size, name)) failed++;
  }
  /* A replay that checks few results tests little: at least FZ_MIN_CHECKED
   * results per 100 inputs. */
  long checked = fz_checked - checked_before;
  bool ok = failed == 0 && checked >= count * FZ_MIN_CHECKED / 100;
  bad += !ok;
  printf("%s %d - fuzz_%s::seeded_inputs (%ld inputs, %ld failed, %ld results checked)\n",
         ok ? "ok" : "not ok", ++test, FUZZ_NAME, count, failed, checked);
  return bad ? 1 : 0;
}
#endif /* !NDX_LIBFUZZER */

#endif /* NDX_TEST_FUZZ_H */
