/* test_hostile.c: every public host call of ndx_layout.h, ndx_iter.h,
 * ndx_sym.h and ndx_pack.h fed hostile input: NULL pointers, ranks -1 / 33 /
 * INT_MAX / INT_MIN, extents, strides and offsets at the int64 extremes and
 * around 2^53, bad permutations, slices, windows, move kinds and counts,
 * coalesce and pack counts and widths, too-small buffers, and layouts that no
 * ndx_ call makes. Each case checks the documented status, that
 * ndx_last_error() names the call and the offending value, and that every
 * output is byte for byte untouched (filled with a sentinel before, compared
 * after). The tables are read top-down: one row, one hostile argument. */
#include <criterion/criterion.h>
#include <limits.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdio.h>
#include <string.h>

#include "ndx/ndx_iter.h"
#include "ndx/ndx_layout.h"
#include "ndx/ndx_pack.h"
#include "ndx/ndx_sym.h"

#define P53 (INT64_C(1) << 53)
#define SENTINEL 0xA5

/* ---- Helpers ------------------------------------------------------------ */

/* Leaves a known message behind, so that a case can tell that its own call
 * wrote the message it reads. */
static void reset_error(void) {
  ndx_layout l;
  cr_assert_eq(ndx_parse(&l, "RESET"), NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), "RESET") != NULL);
}

/* A failed call: the status, and a new message naming the call and `value`. */
static void expect_fail(ndx_status got, ndx_status want, const char *call, const char *value,
                        const char *what) {
  const char *msg = ndx_last_error();
  cr_expect_eq(got, want, "%s: want %s, got %s (%s)", what, ndx_status_name(want),
               ndx_status_name(got), msg);
  cr_expect(strstr(msg, "RESET") == NULL, "%s: no new message (%s)", what, msg);
  cr_expect(strstr(msg, call) != NULL, "%s: message does not name %s: %s", what, call, msg);
  cr_expect(strstr(msg, value) != NULL, "%s: message does not name '%s': %s", what, value, msg);
}

/* Every byte of `p` still the sentinel. */
static void expect_untouched(const void *p, size_t n, const char *what) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    if (b[i] != SENTINEL) {
      cr_expect_fail("%s: output written at byte %zu of %zu", what, i, n);
      return;
    }
}

#define FILL(x) memset(&(x), SENTINEL, sizeof(x))

/* A layout written field by field, as no ndx_ call would: `n` entries of
 * shape and strides (the rest 0), whatever `rank` says. */
static ndx_layout raw(int rank, int64_t offset, int n, const int64_t *shape,
                      const int64_t *strides) {
  ndx_layout l;
  memset(&l, 0, sizeof l);
  l.rank = rank;
  l.offset = offset;
  for (int a = 0; a < n; a++) {
    l.shape[a] = shape[a];
    l.strides[a] = strides[a];
  }
  return l;
}

static ndx_layout contiguous(int rank, const int64_t *shape) {
  ndx_layout l;
  cr_assert_eq(ndx_contiguous(&l, rank, shape), NDX_OK, "%s", ndx_last_error());
  return l;
}

/* A valid [2,3,4] layout with an offset, the base most cases move. */
static ndx_layout base234(void) {
  ndx_layout l;
  cr_assert_eq(ndx_make(&l, 3, (int64_t[]){2, 3, 4}, (int64_t[]){12, 4, 1}, 5), NDX_OK);
  return l;
}

/* Layouts that no ndx_ call makes, each with the value its message names. */
typedef struct hostile_layout {
  const char *what, *value;
  ndx_layout l;
} hostile_layout;

static int hostile_layouts(hostile_layout *h) {
  static const int64_t ones[NDX_MAX_RANK] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                             1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  static const int64_t zeros[NDX_MAX_RANK];
  int n = 0;
  h[n++] = (hostile_layout){"rank 33", "33", raw(33, 0, NDX_MAX_RANK, ones, zeros)};
  h[n++] = (hostile_layout){"rank -1", "-1", raw(-1, 0, 0, ones, zeros)};
  h[n++] = (hostile_layout){"rank INT_MAX", "2147483647", raw(INT_MAX, 0, 0, ones, zeros)};
  h[n++] = (hostile_layout){"rank INT_MIN", "-2147483648", raw(INT_MIN, 0, 0, ones, zeros)};
  h[n++] = (hostile_layout){"extent INT64_MAX", "9223372036854775807",
                            raw(1, 0, 1, (int64_t[]){INT64_MAX}, (int64_t[]){1})};
  h[n++] = (hostile_layout){"extent 2^53+1", "9007199254740993",
                            raw(1, 0, 1, (int64_t[]){P53 + 1}, (int64_t[]){1})};
  h[n++] = (hostile_layout){"extent -1", "-1", raw(2, 0, 2, (int64_t[]){3, -1}, (int64_t[]){1, 1})};
  h[n++] = (hostile_layout){"extent INT64_MIN", "-9223372036854775808",
                            raw(1, 0, 1, (int64_t[]){INT64_MIN}, (int64_t[]){1})};
  h[n++] = (hostile_layout){"extents multiply past 2^53", "134217728",
                            raw(2, 0, 2, (int64_t[]){INT64_C(1) << 27, INT64_C(1) << 27},
                                (int64_t[]){INT64_C(1) << 27, 1})};
  h[n++] = (hostile_layout){"stride INT64_MIN", "-9223372036854775808",
                            raw(1, 0, 1, (int64_t[]){3}, (int64_t[]){INT64_MIN})};
  h[n++] = (hostile_layout){"stride INT64_MAX", "9223372036854775807",
                            raw(1, 0, 1, (int64_t[]){3}, (int64_t[]){INT64_MAX})};
  h[n++] = (hostile_layout){"stride 2^53", "9007199254740992",
                            raw(1, 0, 1, (int64_t[]){2}, (int64_t[]){P53})};
  h[n++] = (hostile_layout){"stride -(2^53+1)", "-9007199254740993",
                            raw(1, P53 - 1, 1, (int64_t[]){2}, (int64_t[]){-(P53 + 1)})};
  h[n++] = (hostile_layout){"offset -1", "-1", raw(1, -1, 1, (int64_t[]){2}, (int64_t[]){1})};
  h[n++] = (hostile_layout){"offset INT64_MIN", "-9223372036854775808",
                            raw(0, INT64_MIN, 0, ones, zeros)};
  h[n++] = (hostile_layout){"offset 2^53", "9007199254740992", raw(0, P53, 0, ones, zeros)};
  h[n++] = (hostile_layout){"offset INT64_MAX, stride 1", "9223372036854775807",
                            raw(1, INT64_MAX, 1, (int64_t[]){2}, (int64_t[]){1})};
  h[n++] = (hostile_layout){"empty with offset INT64_MAX", "9223372036854775807",
                            raw(2, INT64_MAX, 2, (int64_t[]){0, 4}, (int64_t[]){0, 1})};
  return n;
}
#define HOSTILE_MAX 32

/* ---- Construction ------------------------------------------------------- */

typedef struct shape_case {
  const char *what;
  int rank;
  const int64_t *shape;
  ndx_status want;
  const char *value;
} shape_case;

static const shape_case shape_cases[] = {
    {"NULL shape at rank 2", 2, NULL, NDX_EINVAL, "NULL"},
    {"rank -1", -1, (int64_t[]){1}, NDX_EINVAL, "-1"},
    {"rank 33", 33, (int64_t[33]){0}, NDX_ERANGE, "33"},
    {"rank INT_MAX", INT_MAX, (int64_t[]){1}, NDX_ERANGE, "2147483647"},
    {"rank INT_MIN", INT_MIN, (int64_t[]){1}, NDX_EINVAL, "-2147483648"},
    {"extent INT64_MIN", 2, (int64_t[]){3, INT64_MIN}, NDX_EINVAL, "-9223372036854775808"},
    {"extent INT64_MAX", 2, (int64_t[]){3, INT64_MAX}, NDX_ERANGE, "9223372036854775807"},
    {"extent 2^53+1", 1, (int64_t[]){P53 + 1}, NDX_ERANGE, "9007199254740993"},
    {"extent -2^53", 1, (int64_t[]){-P53}, NDX_EINVAL, "-9007199254740992"},
    {"extent -(2^53+1)", 1, (int64_t[]){-(P53 + 1)}, NDX_EINVAL, "-9007199254740993"},
    {"extents [2^53, 2]", 2, (int64_t[]){P53, 2}, NDX_ERANGE, "9007199254740992"},
    {"extents [2, 2^52+1]", 2, (int64_t[]){2, (P53 >> 1) + 1}, NDX_ERANGE, "4503599627370497"},
};

Test(hostile, contiguous_refuses_bad_shapes) {
  for (size_t i = 0; i < sizeof shape_cases / sizeof *shape_cases; i++) {
    const shape_case *c = &shape_cases[i];
    ndx_layout out;
    FILL(out);
    reset_error();
    expect_fail(ndx_contiguous(&out, c->rank, c->shape), c->want, "ndx_contiguous", c->value,
                c->what);
    expect_untouched(&out, sizeof out, c->what);
    cr_expect_not(ndx_fits(c->rank, c->shape), "ndx_fits: %s", c->what);
  }
  reset_error();
  expect_fail(ndx_contiguous(NULL, 1, (int64_t[]){4}), NDX_EINVAL, "ndx_contiguous", "out",
              "NULL out");
}

Test(hostile, extremes_that_fit_are_accepted) {
  cr_expect(ndx_fits(1, (int64_t[]){P53}));
  cr_expect(ndx_fits(2, (int64_t[]){0, P53}), "an empty shape multiplies to 0");
  cr_expect_not(ndx_fits(2, (int64_t[]){0, INT64_MAX}), "every extent is at most 2^53");
  cr_expect(ndx_fits(0, NULL));
  ndx_layout l = contiguous(1, (int64_t[]){P53});
  cr_expect_eq(ndx_numel(&l), P53);
  int64_t lo, hi;
  ndx_span(&l, &lo, &hi);
  cr_expect(lo == 0 && hi == P53, "span [%lld, %lld)", (long long)lo, (long long)hi);
  /* One negative stride reaching 0 from 2^53 - 1. */
  cr_assert_eq(ndx_make(&l, 1, (int64_t[]){2}, (int64_t[]){-(P53 - 1)}, P53 - 1), NDX_OK, "%s",
               ndx_last_error());
  ndx_span(&l, &lo, &hi);
  cr_expect(lo == 0 && hi == P53, "span [%lld, %lld)", (long long)lo, (long long)hi);
  cr_expect(ndx_is_distinct(&l));
  /* An empty layout takes any offset and strides whose reach fits, and drops them. */
  cr_assert_eq(ndx_make(&l, 2, (int64_t[]){0, 3}, (int64_t[]){INT64_MIN, INT64_MAX / 2}, INT64_MIN),
               NDX_OK, "%s", ndx_last_error());
  cr_expect(l.offset == 0 && l.strides[0] == 0 && l.strides[1] == 0);
  /* An extent-1 axis takes any stride, INT64_MIN included, and drops it. */
  cr_assert_eq(ndx_make(&l, 1, (int64_t[]){1}, (int64_t[]){INT64_MIN}, P53 - 1), NDX_OK, "%s",
               ndx_last_error());
  cr_expect_eq(l.strides[0], 0);
}

/* The queries on rank-32 layouts of 2^53 elements, forwards and with every
 * axis flipped: no overflow (UBSan watches), exact answers. */
Test(hostile, queries_at_the_limits) {
  int64_t shape[NDX_MAX_RANK];
  shape[0] = INT64_C(1) << 22;
  for (int a = 1; a < NDX_MAX_RANK; a++) shape[a] = 2;
  ndx_layout l = contiguous(NDX_MAX_RANK, shape), f = l;
  for (int a = 0; a < NDX_MAX_RANK; a++) cr_assert_eq(ndx_flip(&f, &f, a), NDX_OK);
  const ndx_layout *both[] = {&l, &f};
  for (int k = 0; k < 2; k++) {
    const ndx_layout *x = both[k];
    int64_t lo, hi;
    cr_expect_eq(ndx_numel(x), P53);
    ndx_span(x, &lo, &hi);
    cr_expect(lo == 0 && hi == P53, "span [%lld, %lld)", (long long)lo, (long long)hi);
    cr_expect(ndx_is_distinct(x));
    cr_expect_eq(ndx_is_contiguous(x), k == 0);
    cr_expect_not(ndx_is_fortran_contiguous(x));
    ndx_layout copy = *x;
    cr_expect(ndx_equal(x, &copy) && ndx_hash(x) == ndx_hash(&copy));
  }
  cr_expect_eq(f.offset, P53 - 1);
  cr_expect_not(ndx_equal(&l, &f));
  /* One element read 2^53 times: every stride 0. */
  ndx_layout one = contiguous(0, NULL), b;
  cr_assert_eq(ndx_broadcast(&b, &one, NDX_MAX_RANK, shape), NDX_OK);
  int64_t lo, hi;
  ndx_span(&b, &lo, &hi);
  cr_expect(lo == 0 && hi == 1);
  cr_expect_not(ndx_is_distinct(&b));
  ndx_bcast bc;
  cr_expect(ndx_broadcast_pattern(&b, &bc) && bc.len == 1 && bc.left == P53 && bc.right == 1);
}

typedef struct make_case {
  const char *what;
  int rank;
  const int64_t *shape, *strides;
  int64_t offset;
  ndx_status want;
  const char *value;
} make_case;

static const make_case make_cases[] = {
    {"NULL strides at rank 1", 1, (int64_t[]){2}, NULL, 0, NDX_EINVAL, "strides"},
    {"stride INT64_MIN", 1, (int64_t[]){2}, (int64_t[]){INT64_MIN}, 0, NDX_ERANGE,
     "-9223372036854775808"},
    {"stride INT64_MAX at extent 2", 1, (int64_t[]){2}, (int64_t[]){INT64_MAX}, 0, NDX_ERANGE,
     "9223372036854775807"},
    {"stride INT64_MAX at extent 3", 1, (int64_t[]){3}, (int64_t[]){INT64_MAX}, 0, NDX_ERANGE,
     "9223372036854775807"},
    {"stride 2^53", 1, (int64_t[]){2}, (int64_t[]){P53}, 0, NDX_ERANGE, "9007199254740992"},
    {"stride 2^53+1", 1, (int64_t[]){2}, (int64_t[]){P53 + 1}, 0, NDX_ERANGE, "9007199254740993"},
    {"stride -2^53", 1, (int64_t[]){2}, (int64_t[]){-P53}, P53 - 1, NDX_ERANGE,
     "-9007199254740992"},
    {"stride -(2^53+1)", 1, (int64_t[]){2}, (int64_t[]){-(P53 + 1)}, P53 - 1, NDX_ERANGE,
     "-9007199254740993"},
    {"offset -1", 0, NULL, NULL, -1, NDX_ERANGE, "-1"},
    {"offset INT64_MIN", 0, NULL, NULL, INT64_MIN, NDX_ERANGE, "-9223372036854775808"},
    {"offset 2^53", 0, NULL, NULL, P53, NDX_ERANGE, "9007199254740992"},
    {"offset 2^53+1", 1, (int64_t[]){1}, (int64_t[]){0}, P53 + 1, NDX_ERANGE, "9007199254740993"},
    {"offset INT64_MAX", 0, NULL, NULL, INT64_MAX, NDX_ERANGE, "9223372036854775807"},
    {"span ends at 2^53 + 1", 1, (int64_t[]){3}, (int64_t[]){2}, P53 - 3, NDX_ERANGE,
     "9007199254740989"},
    {"offset INT64_MAX plus a positive reach", 1, (int64_t[]){2}, (int64_t[]){INT64_MAX}, INT64_MAX,
     NDX_ERANGE, "9223372036854775807"},
    {"offset INT64_MIN minus a reach", 1, (int64_t[]){2}, (int64_t[]){-1}, INT64_MIN, NDX_ERANGE,
     "-9223372036854775808"},
    {"a negative reach below 0", 2, (int64_t[]){3, 4}, (int64_t[]){-4, 1}, 7, NDX_ERANGE, "-1"},
};

Test(hostile, make_refuses_bad_layouts) {
  for (size_t i = 0; i < sizeof shape_cases / sizeof *shape_cases; i++) {
    const shape_case *c = &shape_cases[i];
    ndx_layout out;
    FILL(out);
    reset_error();
    expect_fail(ndx_make(&out, c->rank, c->shape, (int64_t[NDX_MAX_RANK]){0}, 0), c->want,
                "ndx_make", c->value, c->what);
    expect_untouched(&out, sizeof out, c->what);
  }
  for (size_t i = 0; i < sizeof make_cases / sizeof *make_cases; i++) {
    const make_case *c = &make_cases[i];
    ndx_layout out;
    FILL(out);
    reset_error();
    expect_fail(ndx_make(&out, c->rank, c->shape, c->strides, c->offset), c->want, "ndx_make",
                c->value, c->what);
    expect_untouched(&out, sizeof out, c->what);
  }
  reset_error();
  expect_fail(ndx_make(NULL, 1, (int64_t[]){2}, (int64_t[]){1}, 0), NDX_EINVAL, "ndx_make", "out",
              "NULL out");
}

Test(hostile, parse_refuses_hostile_text) {
  static const struct {
    const char *text;
    ndx_status want;
    const char *value;
  } cases[] = {
      {"shape=[9223372036854775808]", NDX_EINVAL, "9223372036854775808"},
      {"shape=[-9223372036854775809]", NDX_EINVAL, "-9223372036854775809"},
      {"shape=[-9223372036854775808]", NDX_EINVAL, "-9223372036854775808"},
      {"shape=[9223372036854775807]", NDX_ERANGE, "9223372036854775807"},
      {"shape=[9007199254740993]", NDX_ERANGE, "9007199254740993"},
      {"shape=[2] strides=[-9223372036854775808] offset=1", NDX_ERANGE, "-9223372036854775808"},
      {"shape=[] offset=-1", NDX_ERANGE, "-1"},
      {"shape=[] offset=9007199254740992", NDX_ERANGE, "9007199254740992"},
      {"shape=[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]", NDX_ERANGE,
       "32"},
      {"shape=[2,3] strides=[1]", NDX_EINVAL, "strides=[1]"},
      {"shape=[2] shape=[2]", NDX_EINVAL, "shape=[2] shape=[2]"},
      {"", NDX_EINVAL, "no shape"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    ndx_layout out;
    FILL(out);
    reset_error();
    expect_fail(ndx_parse(&out, cases[i].text), cases[i].want, "ndx_parse", cases[i].value,
                cases[i].text);
    expect_untouched(&out, sizeof out, cases[i].text);
  }
  reset_error();
  expect_fail(ndx_parse(NULL, "shape=[2]"), NDX_EINVAL, "ndx_parse", "out", "NULL out");
  ndx_layout out;
  FILL(out);
  reset_error();
  expect_fail(ndx_parse(&out, NULL), NDX_EINVAL, "ndx_parse", "text", "NULL text");
  expect_untouched(&out, sizeof out, "NULL text");
}

/* ndx_format writes at most `size` bytes, whatever the values. */
Test(hostile, format_stays_inside_its_buffer) {
  ndx_layout l;
  cr_assert_eq(ndx_make(&l, 2, (int64_t[]){2, 2}, (int64_t[]){-(P53 / 4), 1}, P53 / 2), NDX_OK);
  char want[256];
  int n = ndx_format(want, sizeof want, &l);
  cr_assert(n > 0 && (size_t)n < sizeof want);
  cr_expect_eq(ndx_format(NULL, 0, &l), n);
  for (size_t size = 0; size <= (size_t)n + 1; size++) {
    char buf[256];
    memset(buf, SENTINEL, sizeof buf);
    cr_expect_eq(ndx_format(buf, size, &l), n, "size %zu", size);
    if (size > 0) {
      cr_expect_eq(buf[size - 1 < (size_t)n ? size - 1 : (size_t)n], '\0', "size %zu", size);
      cr_expect_eq(strncmp(buf, want, size - 1), 0, "size %zu", size);
    }
    expect_untouched(buf + size, sizeof buf - size, "format past size");
  }
}

/* ---- Moves -------------------------------------------------------------- */

typedef struct move_case {
  const char *what;
  ndx_move m;
  ndx_status want;
  const char *value;
} move_case;

/* Moves of the [2,3,4] base that break a rule of their kind or a limit. */
static const move_case move_cases[] = {
    {"unknown kind 5", {.kind = (ndx_move_kind)5, .n = 0}, NDX_EINVAL, "5"},
    {"unknown kind 99",
     {.kind = (ndx_move_kind)99, .n = 3, .shape = (int64_t[]){2, 3, 4}},
     NDX_EINVAL,
     "99"},
    {"unknown kind -1", {.kind = (ndx_move_kind)-1, .n = 0}, NDX_EINVAL, "-1"},
    {"unknown kind INT_MAX", {.kind = (ndx_move_kind)INT_MAX, .n = 0}, NDX_EINVAL, "2147483647"},
    /* n against the rank */
    {"permute n 2", {.kind = NDX_PERMUTE, .n = 2, .perm = (int32_t[]){0, 1}}, NDX_EINVAL, "2"},
    {"permute n 4",
     {.kind = NDX_PERMUTE, .n = 4, .perm = (int32_t[]){0, 1, 2, 3}},
     NDX_EINVAL,
     "4"},
    {"permute n -1", {.kind = NDX_PERMUTE, .n = -1, .perm = (int32_t[]){0}}, NDX_EINVAL, "-1"},
    {"permute n INT_MIN",
     {.kind = NDX_PERMUTE, .n = INT_MIN, .perm = (int32_t[]){0}},
     NDX_EINVAL,
     "-2147483648"},
    {"permute n 33", {.kind = NDX_PERMUTE, .n = 33, .perm = (int32_t[33]){0}}, NDX_EINVAL, "33"},
    {"slice n 2",
     {.kind = NDX_SLICE, .n = 2, .ranges = (ndx_range[]){{0, 2, 1}, {0, 3, 1}}},
     NDX_EINVAL,
     "2"},
    {"slice n INT_MAX",
     {.kind = NDX_SLICE, .n = INT_MAX, .ranges = (ndx_range[]){{0, 2, 1}}},
     NDX_EINVAL,
     "2147483647"},
    {"reshape n 33", {.kind = NDX_RESHAPE, .n = 33, .shape = (int64_t[33]){0}}, NDX_ERANGE, "33"},
    {"reshape n INT_MAX",
     {.kind = NDX_RESHAPE, .n = INT_MAX, .shape = (int64_t[]){24}},
     NDX_ERANGE,
     "2147483647"},
    {"reshape n INT_MIN",
     {.kind = NDX_RESHAPE, .n = INT_MIN, .shape = (int64_t[]){24}},
     NDX_EINVAL,
     "-2147483648"},
    {"broadcast n 2 < rank",
     {.kind = NDX_BROADCAST, .n = 2, .shape = (int64_t[]){3, 4}},
     NDX_EINVAL,
     "2"},
    {"broadcast n 33",
     {.kind = NDX_BROADCAST, .n = 33, .shape = (int64_t[33]){1}},
     NDX_ERANGE,
     "33"},
    {"window n 30 on rank 3",
     {.kind = NDX_WINDOW, .n = 30, .windows = (ndx_window[30]){{0}}},
     NDX_ERANGE,
     "30"},
    {"window n INT_MAX",
     {.kind = NDX_WINDOW, .n = INT_MAX, .windows = (ndx_window[1]){{0}}},
     NDX_ERANGE,
     "2147483647"},
    {"window n -1",
     {.kind = NDX_WINDOW, .n = -1, .windows = (ndx_window[1]){{0}}},
     NDX_EINVAL,
     "-1"},
    {"NULL array", {.kind = NDX_RESHAPE, .n = 1, .shape = NULL}, NDX_EINVAL, "NULL"},
    /* permutations */
    {"perm repeats",
     {.kind = NDX_PERMUTE, .n = 3, .perm = (int32_t[]){0, 2, 2}},
     NDX_EINVAL,
     "perm[2] = 2"},
    {"perm entry 3", {.kind = NDX_PERMUTE, .n = 3, .perm = (int32_t[]){0, 1, 3}}, NDX_EINVAL, "3"},
    {"perm entry -1",
     {.kind = NDX_PERMUTE, .n = 3, .perm = (int32_t[]){-1, 1, 2}},
     NDX_EINVAL,
     "-1"},
    {"perm entry INT32_MIN",
     {.kind = NDX_PERMUTE, .n = 3, .perm = (int32_t[]){0, INT32_MIN, 2}},
     NDX_EINVAL,
     "-2147483648"},
    {"perm entry INT32_MAX",
     {.kind = NDX_PERMUTE, .n = 3, .perm = (int32_t[]){0, 1, INT32_MAX}},
     NDX_EINVAL,
     "2147483647"},
/* slices (axis 2 has extent 4) */
#define SLICE2(start, count, step)                                                                 \
  {                                                                                                \
    .kind = NDX_SLICE, .n = 3, .ranges = (ndx_range[]) {                                           \
      {0, 2, 1}, {0, 3, 1}, {                                                                      \
        start, count, step                                                                         \
      }                                                                                            \
    }                                                                                              \
  }
    {"step 0", SLICE2(0, 2, 0), NDX_EINVAL, "step is 0"},
    {"step INT64_MIN", SLICE2(3, 2, INT64_MIN), NDX_EINVAL, "-9223372036854775808"},
    {"step INT64_MAX", SLICE2(0, 2, INT64_MAX), NDX_EINVAL, "9223372036854775807"},
    {"step 2^53+1", SLICE2(0, 2, P53 + 1), NDX_EINVAL, "9007199254740993"},
    {"start INT64_MIN", SLICE2(INT64_MIN, 1, 1), NDX_EINVAL, "-9223372036854775808"},
    {"start INT64_MAX", SLICE2(INT64_MAX, 1, -1), NDX_EINVAL, "9223372036854775807"},
    {"start -1", SLICE2(-1, 1, 1), NDX_EINVAL, "-1"},
    {"start 4 = extent", SLICE2(4, 1, 1), NDX_EINVAL, "start 4"},
    {"count INT64_MAX", SLICE2(0, INT64_MAX, 1), NDX_EINVAL, "9223372036854775807"},
    {"count INT64_MIN", SLICE2(0, INT64_MIN, 1), NDX_EINVAL, "-9223372036854775808"},
    {"count -1", SLICE2(0, -1, 1), NDX_EINVAL, "-1"},
    {"count 5 backwards", SLICE2(3, 5, -1), NDX_EINVAL, "count 5"},
    {"count 2^53", SLICE2(0, P53, 1), NDX_EINVAL, "9007199254740992"},
/* windows (extents 2, 3, 4) */
#define WIN(...)                                                                                   \
  {                                                                                                \
    .kind = NDX_WINDOW, .n = 1, .windows = (ndx_window[]) {                                        \
      __VA_ARGS__                                                                                  \
    }                                                                                              \
  }
    {"dilation INT64_MAX", WIN({2, 2, 1, INT64_MAX}), NDX_EINVAL, "9223372036854775807"},
    {"dilation 2^53", WIN({2, 2, 1, P53}), NDX_EINVAL, "9007199254740992"},
    {"dilation 0", WIN({2, 2, 1, 0}), NDX_EINVAL, "dilation 0"},
    {"dilation INT64_MIN", WIN({2, 1, 1, INT64_MIN}), NDX_EINVAL, "-9223372036854775808"},
    {"size 0", WIN({2, 0, 1, 1}), NDX_EINVAL, "size 0"},
    {"size 5 > extent", WIN({2, 5, 1, 1}), NDX_EINVAL, "size 5"},
    {"size INT64_MAX", WIN({2, INT64_MAX, 1, 1}), NDX_EINVAL, "9223372036854775807"},
    {"size INT64_MIN", WIN({2, INT64_MIN, 1, 1}), NDX_EINVAL, "-9223372036854775808"},
    {"step 0 window", WIN({2, 2, 0, 1}), NDX_EINVAL, "step 0"},
    {"step INT64_MIN window", WIN({2, 2, INT64_MIN, 1}), NDX_EINVAL, "-9223372036854775808"},
    {"window axis -1", WIN({-1, 1, 1, 1}), NDX_EINVAL, "-1"},
    {"window axis 3", WIN({3, 1, 1, 1}), NDX_EINVAL, "axis 3"},
    {"window axis INT32_MIN", WIN({INT32_MIN, 1, 1, 1}), NDX_EINVAL, "-2147483648"},
    {"windows out of order",
     {.kind = NDX_WINDOW, .n = 2, .windows = (ndx_window[]){{2, 2, 1, 1}, {1, 2, 1, 1}}},
     NDX_EINVAL,
     "axis 1"},
    {"windows on one axis",
     {.kind = NDX_WINDOW, .n = 2, .windows = (ndx_window[]){{1, 2, 1, 1}, {1, 2, 1, 1}}},
     NDX_EINVAL,
     "axis 1"},
    /* reshape and broadcast shapes */
    {"reshape extent INT64_MIN",
     {.kind = NDX_RESHAPE, .n = 2, .shape = (int64_t[]){INT64_MIN, 1}},
     NDX_EINVAL,
     "-9223372036854775808"},
    {"reshape extent INT64_MAX",
     {.kind = NDX_RESHAPE, .n = 2, .shape = (int64_t[]){2, INT64_MAX}},
     NDX_ERANGE,
     "9223372036854775807"},
    {"reshape to 25 elements",
     {.kind = NDX_RESHAPE, .n = 2, .shape = (int64_t[]){5, 5}},
     NDX_EINVAL,
     "25"},
    {"reshape to 0 elements",
     {.kind = NDX_RESHAPE, .n = 2, .shape = (int64_t[]){0, 24}},
     NDX_EINVAL,
     "[0,24]"},
    {"broadcast extent INT64_MAX",
     {.kind = NDX_BROADCAST, .n = 4, .shape = (int64_t[]){INT64_MAX, 2, 3, 4}},
     NDX_ERANGE,
     "9223372036854775807"},
    {"broadcast extent -1",
     {.kind = NDX_BROADCAST, .n = 4, .shape = (int64_t[]){-1, 2, 3, 4}},
     NDX_EINVAL,
     "-1"},
    {"broadcast past 2^53",
     {.kind = NDX_BROADCAST, .n = 4, .shape = (int64_t[]){P53 / 8 + 1, 2, 3, 4}},
     NDX_ERANGE,
     "1125899906842625"},
    {"broadcast changes an extent",
     {.kind = NDX_BROADCAST, .n = 3, .shape = (int64_t[]){2, 3, 5}},
     NDX_EINVAL,
     "neither 1 nor 5"},
};
#define N_MOVE_CASES (sizeof move_cases / sizeof *move_cases)

Test(hostile, apply_refuses_bad_moves) {
  ndx_layout l = base234();
  for (size_t i = 0; i < N_MOVE_CASES; i++) {
    const move_case *c = &move_cases[i];
    ndx_layout out;
    FILL(out);
    reset_error();
    expect_fail(ndx_apply(&out, &c->m, &l), c->want, "ndx_apply", c->value, c->what);
    expect_untouched(&out, sizeof out, c->what);
    /* In place: `l` itself stays as it was. */
    ndx_layout copy = l;
    reset_error();
    expect_fail(ndx_apply(&copy, &c->m, &copy), c->want, "ndx_apply", c->value, c->what);
    cr_expect_eq(memcmp(&copy, &l, sizeof l), 0, "%s: in place, l written", c->what);
  }
}

Test(hostile, move_shape_refuses_bad_moves) {
  ndx_layout l = base234();
  for (size_t i = 0; i < N_MOVE_CASES; i++) {
    const move_case *c = &move_cases[i];
    int rank;
    int64_t shape[NDX_MAX_RANK];
    FILL(rank);
    FILL(shape);
    reset_error();
    expect_fail(ndx_move_shape(&c->m, l.rank, l.shape, &rank, shape), c->want, "ndx_move_shape",
                c->value, c->what);
    expect_untouched(&rank, sizeof rank, c->what);
    expect_untouched(shape, sizeof shape, c->what);
  }
  ndx_move m = {.kind = NDX_PERMUTE, .n = 3, .perm = (int32_t[]){2, 1, 0}};
  int rank;
  int64_t shape[NDX_MAX_RANK];
  for (size_t i = 0; i < sizeof shape_cases / sizeof *shape_cases; i++) {
    const shape_case *c = &shape_cases[i];
    FILL(rank);
    FILL(shape);
    reset_error();
    ndx_move mc = m;
    mc.n = c->rank;
    expect_fail(ndx_move_shape(&mc, c->rank, c->shape, &rank, shape), c->want, "ndx_move_shape",
                c->value, c->what);
    expect_untouched(&rank, sizeof rank, c->what);
    expect_untouched(shape, sizeof shape, c->what);
  }
  FILL(rank);
  FILL(shape);
  reset_error();
  expect_fail(ndx_move_shape(NULL, 3, l.shape, &rank, shape), NDX_EINVAL, "ndx_move_shape", "move",
              "NULL move");
  reset_error();
  expect_fail(ndx_move_shape(&m, 3, l.shape, NULL, shape), NDX_EINVAL, "ndx_move_shape", "out_rank",
              "NULL out_rank");
  reset_error();
  expect_fail(ndx_move_shape(&m, 3, l.shape, &rank, NULL), NDX_EINVAL, "ndx_move_shape",
              "out_shape", "NULL out_shape");
  expect_untouched(&rank, sizeof rank, "NULL outputs");
  expect_untouched(shape, sizeof shape, "NULL outputs");
}

/* The extremes a move may reach: accepted exactly up to the limits. */
Test(hostile, moves_at_the_limits) {
  ndx_layout l = contiguous(1, (int64_t[]){4}), out;
  ndx_range r = {3, 1, INT64_MIN};
  cr_expect_eq(ndx_slice(&out, &l, &r), NDX_OK, "one entry with step INT64_MIN: %s",
               ndx_last_error());
  r = (ndx_range){INT64_MIN, 0, INT64_MAX};
  cr_expect_eq(ndx_slice(&out, &l, &r), NDX_OK, "no entry: any start and step");
  cr_expect(out.shape[0] == 0 && out.offset == 0 && out.strides[0] == 0);
  ndx_window w = {0, 1, INT64_MAX, INT64_MAX};
  cr_expect_eq(ndx_unfold(&out, &l, 1, &w), NDX_OK, "size 1 takes any step and dilation: %s",
               ndx_last_error());
  cr_expect(out.rank == 2 && out.shape[0] == 1 && out.shape[1] == 1);
  ndx_layout one = contiguous(1, (int64_t[]){1});
  cr_expect_eq(ndx_broadcast(&out, &one, 1, (int64_t[]){P53}), NDX_OK);
  ndx_layout big = contiguous(1, (int64_t[]){P53});
  ndx_layout out2;
  FILL(out2);
  reset_error();
  w = (ndx_window){0, 2, 1, 1};
  expect_fail(ndx_unfold(&out2, &big, 1, &w), NDX_ERANGE, "ndx_unfold", "9007199254740991",
              "window past 2^53 elements");
  expect_untouched(&out2, sizeof out2, "window past 2^53 elements");
  cr_expect_eq(ndx_flip(&out, &big, 0), NDX_OK);
  cr_expect(out.offset == P53 - 1 && out.strides[0] == -1);
}

Test(hostile, apply_refuses_hostile_layouts) {
  hostile_layout h[HOSTILE_MAX];
  int n = hostile_layouts(h);
  ndx_move moves[] = {
      {.kind = NDX_PERMUTE, .n = 1, .perm = (int32_t[]){0}},
      {.kind = NDX_SLICE, .n = 1, .ranges = (ndx_range[]){{0, 2, 1}}},
      {.kind = NDX_RESHAPE, .n = 1, .shape = (int64_t[]){2}},
      {.kind = NDX_BROADCAST, .n = 2, .shape = (int64_t[]){2, 2}},
      {.kind = NDX_WINDOW, .n = 0},
  };
  for (int i = 0; i < n; i++)
    for (size_t k = 0; k < sizeof moves / sizeof *moves; k++) {
      ndx_layout out;
      FILL(out);
      reset_error();
      char what[96];
      snprintf(what, sizeof what, "%s, move %zu", h[i].what, k);
      expect_fail(ndx_apply(&out, &moves[k], &h[i].l), NDX_EINVAL, "ndx_apply", h[i].value, what);
      expect_untouched(&out, sizeof out, what);
    }
}

/* Each wrapper: NULL out, NULL layout, NULL array, a hostile layout, and its
 * own bad arguments. */
Test(hostile, wrappers_refuse_hostile_arguments) {
  ndx_layout l = base234();
  hostile_layout h[HOSTILE_MAX];
  int nh = hostile_layouts(h);
  ndx_layout out;
#define EXPECT(expr, want, call, value, what)                                                      \
  do {                                                                                             \
    FILL(out);                                                                                     \
    reset_error();                                                                                 \
    expect_fail((expr), want, call, value, what);                                                  \
    expect_untouched(&out, sizeof out, what);                                                      \
  } while (0)
  const int64_t s24[] = {24}, s1234[] = {1, 2, 3, 4};
  const int32_t p[] = {2, 1, 0};
  const ndx_range rg[] = {{0, 2, 1}, {0, 3, 1}, {0, 4, 1}};
  const ndx_window w[] = {{0, 1, 1, 1}};
  EXPECT(ndx_reshape(NULL, &l, 1, s24), NDX_EINVAL, "ndx_reshape", "out", "reshape NULL out");
  EXPECT(ndx_reshape(&out, NULL, 1, s24), NDX_EINVAL, "ndx_reshape", "layout", "reshape NULL l");
  EXPECT(ndx_reshape(&out, &l, 1, NULL), NDX_EINVAL, "ndx_reshape", "NULL", "reshape NULL shape");
  EXPECT(ndx_reshape(&out, &l, -1, s24), NDX_EINVAL, "ndx_reshape", "-1", "reshape rank -1");
  EXPECT(ndx_reshape(&out, &l, 33, (int64_t[33]){0}), NDX_ERANGE, "ndx_reshape", "33",
         "reshape rank 33");
  EXPECT(ndx_broadcast(NULL, &l, 4, s1234), NDX_EINVAL, "ndx_broadcast", "out", "NULL out");
  EXPECT(ndx_broadcast(&out, NULL, 4, s1234), NDX_EINVAL, "ndx_broadcast", "layout", "NULL l");
  EXPECT(ndx_broadcast(&out, &l, 4, NULL), NDX_EINVAL, "ndx_broadcast", "NULL", "NULL shape");
  EXPECT(ndx_broadcast(&out, &l, INT_MIN, s1234), NDX_EINVAL, "ndx_broadcast", "-2147483648",
         "broadcast rank INT_MIN");
  EXPECT(ndx_permute(NULL, &l, p), NDX_EINVAL, "ndx_permute", "out", "permute NULL out");
  EXPECT(ndx_permute(&out, NULL, p), NDX_EINVAL, "ndx_permute", "layout", "permute NULL l");
  EXPECT(ndx_permute(&out, &l, NULL), NDX_EINVAL, "ndx_permute", "perm", "permute NULL perm");
  EXPECT(ndx_slice(NULL, &l, rg), NDX_EINVAL, "ndx_slice", "out", "slice NULL out");
  EXPECT(ndx_slice(&out, NULL, rg), NDX_EINVAL, "ndx_slice", "layout", "slice NULL l");
  EXPECT(ndx_slice(&out, &l, NULL), NDX_EINVAL, "ndx_slice", "ranges", "slice NULL ranges");
  EXPECT(ndx_unfold(NULL, &l, 1, w), NDX_EINVAL, "ndx_unfold", "out", "unfold NULL out");
  EXPECT(ndx_unfold(&out, NULL, 1, w), NDX_EINVAL, "ndx_unfold", "layout", "unfold NULL l");
  EXPECT(ndx_unfold(&out, &l, 1, NULL), NDX_EINVAL, "ndx_unfold", "NULL", "unfold NULL w");
  EXPECT(ndx_unfold(&out, &l, INT_MIN, w), NDX_EINVAL, "ndx_unfold", "-2147483648",
         "unfold n INT_MIN");
  EXPECT(ndx_unfold(&out, &l, 30, (ndx_window[30]){{0}}), NDX_ERANGE, "ndx_unfold", "30",
         "unfold n 30");
  /* One-axis calls: axes -1, rank, INT_MAX, INT_MIN. */
  const int axes[] = {-1, 3, INT_MAX, INT_MIN};
  const char *axis_values[] = {"-1", "3", "2147483647", "-2147483648"};
  for (int k = 0; k < 4; k++) {
    int a = axes[k];
    const char *v = axis_values[k];
    EXPECT(ndx_narrow(&out, &l, a, 0, 1), NDX_EINVAL, "ndx_narrow", v, "narrow axis");
    EXPECT(ndx_flip(&out, &l, a), NDX_EINVAL, "ndx_flip", v, "flip axis");
    EXPECT(ndx_squeeze(&out, &l, a), NDX_EINVAL, "ndx_squeeze", v, "squeeze axis");
    EXPECT(ndx_transpose(&out, &l, a, 0), NDX_EINVAL, "ndx_transpose", v, "transpose axis a");
    EXPECT(ndx_transpose(&out, &l, 0, a), NDX_EINVAL, "ndx_transpose", v, "transpose axis b");
    if (a != 3)
      EXPECT(ndx_unsqueeze(&out, &l, a), NDX_EINVAL, "ndx_unsqueeze", v, "unsqueeze axis");
  }
  EXPECT(ndx_unsqueeze(&out, &l, 4), NDX_EINVAL, "ndx_unsqueeze", "4", "unsqueeze axis 4");
  /* narrow: start and len at the extremes (axis 2 has extent 4). */
  const struct {
    int64_t start, len;
    const char *value;
  } nr[] = {{-1, 1, "-1"},
            {INT64_MIN, 1, "-9223372036854775808"},
            {INT64_MAX, 1, "9223372036854775807"},
            {1, INT64_MAX, "9223372036854775807"},
            {0, INT64_MIN, "-9223372036854775808"},
            {INT64_MAX, INT64_MAX, "9223372036854775807"},
            {5, 0, "start 5"},
            {2, 3, "len 3"},
            {P53, -P53, "9007199254740992"}};
  for (size_t k = 0; k < sizeof nr / sizeof *nr; k++)
    EXPECT(ndx_narrow(&out, &l, 2, nr[k].start, nr[k].len), NDX_EINVAL, "ndx_narrow", nr[k].value,
           "narrow start/len");
  EXPECT(ndx_squeeze(&out, &l, 1), NDX_EINVAL, "ndx_squeeze", "extent 3", "squeeze extent 3");
  ndx_layout full = contiguous(NDX_MAX_RANK, (int64_t[NDX_MAX_RANK]){2, 2});
  EXPECT(ndx_unsqueeze(&out, &full, 0), NDX_ERANGE, "ndx_unsqueeze", "32", "unsqueeze rank 32");
  EXPECT(ndx_narrow(NULL, &l, 0, 0, 1), NDX_EINVAL, "ndx_narrow", "out", "narrow NULL out");
  EXPECT(ndx_flip(NULL, &l, 0), NDX_EINVAL, "ndx_flip", "out", "flip NULL out");
  EXPECT(ndx_transpose(NULL, &l, 0, 1), NDX_EINVAL, "ndx_transpose", "out", "transpose NULL out");
  ndx_layout one = contiguous(3, (int64_t[]){2, 1, 4});
  EXPECT(ndx_squeeze(NULL, &one, 1), NDX_EINVAL, "ndx_squeeze", "out", "squeeze NULL out");
  EXPECT(ndx_unsqueeze(NULL, &l, 0), NDX_EINVAL, "ndx_unsqueeze", "out", "unsqueeze NULL out");
  for (int i = 0; i < nh; i++) {
    const ndx_layout *x = &h[i].l;
    const char *v = h[i].value;
    EXPECT(ndx_narrow(&out, x, 0, 0, 1), NDX_EINVAL, "ndx_narrow", v, h[i].what);
    EXPECT(ndx_flip(&out, x, 0), NDX_EINVAL, "ndx_flip", v, h[i].what);
    EXPECT(ndx_transpose(&out, x, 0, 0), NDX_EINVAL, "ndx_transpose", v, h[i].what);
    EXPECT(ndx_squeeze(&out, x, 0), NDX_EINVAL, "ndx_squeeze", v, h[i].what);
    EXPECT(ndx_unsqueeze(&out, x, 0), NDX_EINVAL, "ndx_unsqueeze", v, h[i].what);
    EXPECT(ndx_permute(&out, x, (int32_t[NDX_MAX_RANK]){0}), NDX_EINVAL, "ndx_permute", v,
           h[i].what);
    EXPECT(ndx_slice(&out, x, (ndx_range[NDX_MAX_RANK]){{0, 1, 1}}), NDX_EINVAL, "ndx_slice", v,
           h[i].what);
    EXPECT(ndx_reshape(&out, x, 1, (int64_t[]){2}), NDX_EINVAL, "ndx_reshape", v, h[i].what);
    EXPECT(ndx_broadcast(&out, x, 1, (int64_t[]){2}), NDX_EINVAL, "ndx_broadcast", v, h[i].what);
    EXPECT(ndx_unfold(&out, x, 0, NULL), NDX_EINVAL, "ndx_unfold", v, h[i].what);
  }
#undef EXPECT
}

/* `flags` and the entries past `rank` are no part of a layout: garbage there
 * changes nothing, and every result has them zeroed. */
Test(hostile, reserved_fields_are_ignored) {
  ndx_layout l = base234(), want_t, want_c;
  cr_assert_eq(ndx_transpose(&want_t, &l, 0, 2), NDX_OK);
  cr_assert_eq(ndx_coalesce(1, &l, &want_c), NDX_OK);
  l.flags = UINT32_MAX;
  for (int a = l.rank; a < NDX_MAX_RANK; a++) l.shape[a] = l.strides[a] = INT64_MIN;
  ndx_layout out;
  FILL(out);
  cr_expect_eq(ndx_transpose(&out, &l, 0, 2), NDX_OK, "%s", ndx_last_error());
  cr_expect_eq(memcmp(&out, &want_t, sizeof out), 0, "transpose");
  FILL(out);
  cr_expect_eq(ndx_coalesce(1, &l, &out), NDX_OK, "%s", ndx_last_error());
  cr_expect_eq(memcmp(&out, &want_c, sizeof out), 0, "coalesce");
  ndx_iter it;
  ndx_iter_init(&it, &l);
  int64_t p;
  cr_expect(ndx_iter_next(&it, &p) && p == 5);
}

/* ---- Coalescing --------------------------------------------------------- */

Test(hostile, coalesce_refuses_hostile_arguments) {
  ndx_layout in[NDX_COALESCE_MAX + 1], out[NDX_COALESCE_MAX + 1];
  for (int k = 0; k <= NDX_COALESCE_MAX; k++) in[k] = contiguous(2, (int64_t[]){2, 3});
  const struct {
    int n;
    const char *value;
  } ns[] = {{0, "0"}, {-1, "-1"}, {65, "65"}, {INT_MIN, "-2147483648"}, {INT_MAX, "2147483647"}};
  for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
    FILL(out);
    reset_error();
    expect_fail(ndx_coalesce(ns[i].n, in, out), NDX_EINVAL, "ndx_coalesce", ns[i].value, "bad n");
    expect_untouched(out, sizeof out, "bad n");
  }
  FILL(out);
  reset_error();
  expect_fail(ndx_coalesce(1, NULL, out), NDX_EINVAL, "ndx_coalesce", "in", "NULL in");
  expect_untouched(out, sizeof out, "NULL in");
  reset_error();
  expect_fail(ndx_coalesce(1, in, NULL), NDX_EINVAL, "ndx_coalesce", "out", "NULL out");
  /* Shapes that differ: transposed, reshaped, one more extent-1 axis, empty. */
  const ndx_layout others[] = {contiguous(2, (int64_t[]){3, 2}), contiguous(1, (int64_t[]){6}),
                               contiguous(3, (int64_t[]){1, 2, 3}),
                               contiguous(2, (int64_t[]){0, 3})};
  const char *values[] = {"[3,2]", "[6]", "[1,2,3]", "[0,3]"};
  for (int i = 0; i < 4; i++) {
    in[NDX_COALESCE_MAX - 1] = others[i];
    FILL(out);
    reset_error();
    expect_fail(ndx_coalesce(NDX_COALESCE_MAX, in, out), NDX_EINVAL, "ndx_coalesce", values[i],
                "shapes differ");
    expect_untouched(out, sizeof out, "shapes differ");
    in[NDX_COALESCE_MAX - 1] = in[0];
  }
  /* A layout no ndx_ call makes, at the last place. */
  hostile_layout h[HOSTILE_MAX];
  int nh = hostile_layouts(h);
  for (int i = 0; i < nh; i++) {
    ndx_layout pair[2] = {h[i].l, h[i].l};
    FILL(out);
    reset_error();
    expect_fail(ndx_coalesce(2, pair, out), NDX_EINVAL, "ndx_coalesce", h[i].value, h[i].what);
    cr_expect(strstr(ndx_last_error(), "in[0]") != NULL, "%s: names in[0]: %s", h[i].what,
              ndx_last_error());
    expect_untouched(out, sizeof out, h[i].what);
  }
  /* In place: a refusal leaves every layout as it was. */
  in[NDX_COALESCE_MAX - 1] = others[0];
  ndx_layout copy[NDX_COALESCE_MAX];
  memcpy(copy, in, sizeof copy);
  cr_expect_eq(ndx_coalesce(NDX_COALESCE_MAX, in, in), NDX_EINVAL);
  cr_expect_eq(memcmp(copy, in, sizeof copy), 0, "in place: in written");
  in[NDX_COALESCE_MAX - 1] = in[0];
  /* n = 64 is the limit, and works. */
  cr_expect_eq(ndx_coalesce(NDX_COALESCE_MAX, in, out), NDX_OK, "%s", ndx_last_error());
  cr_expect(out[NDX_COALESCE_MAX - 1].rank == 1 && out[NDX_COALESCE_MAX - 1].shape[0] == 6);
}

/* ---- Iteration ---------------------------------------------------------- */

/* A layout no ndx_ call makes walks as empty (never out of bounds), and the
 * calls that cannot fail leave the message alone. */
Test(hostile, iterators_walk_hostile_layouts_as_empty) {
  hostile_layout h[HOSTILE_MAX];
  int nh = hostile_layouts(h);
  for (int i = 0; i < nh; i++) {
    const ndx_layout *l = &h[i].l;
    reset_error();
    ndx_iter it;
    ndx_iter_init(&it, l);
    int64_t pos, start, len, stride;
    FILL(pos);
    cr_expect_not(ndx_iter_next(&it, &pos), "%s: iter_next", h[i].what);
    expect_untouched(&pos, sizeof pos, h[i].what);
    ndx_iter_init(&it, l);
    FILL(start);
    FILL(len);
    FILL(stride);
    cr_expect_not(ndx_iter_run(&it, &start, &len, &stride), "%s: iter_run", h[i].what);
    expect_untouched(&start, sizeof start, h[i].what);
    expect_untouched(&len, sizeof len, h[i].what);
    expect_untouched(&stride, sizeof stride, h[i].what);
    ndx_blocks b;
    ndx_blocks_init(&b, l);
    cr_expect_eq(b.count, 0, "%s: blocks", h[i].what);
    cr_expect_not(ndx_blocks_next(&b, &pos), "%s: blocks_next", h[i].what);
    int64_t s, e;
    FILL(s);
    FILL(e);
    cr_expect_not(ndx_contiguous_offsets(l, &s, &e), "%s: contiguous_offsets", h[i].what);
    expect_untouched(&s, sizeof s, h[i].what);
    expect_untouched(&e, sizeof e, h[i].what);
    ndx_bcast bc;
    FILL(bc);
    cr_expect_not(ndx_broadcast_pattern(l, &bc), "%s: broadcast_pattern", h[i].what);
    expect_untouched(&bc, sizeof bc, h[i].what);
    cr_expect(strstr(ndx_last_error(), "RESET") != NULL, "%s: message changed: %s", h[i].what,
              ndx_last_error());
  }
}

/* The bool calls with nothing to store into answer false for NULL. */
Test(hostile, iterator_queries_refuse_null) {
  ndx_layout l = contiguous(1, (int64_t[]){4});
  int64_t s, e;
  ndx_bcast bc;
  FILL(s);
  FILL(e);
  FILL(bc);
  cr_expect_not(ndx_contiguous_offsets(NULL, &s, &e));
  cr_expect_not(ndx_contiguous_offsets(&l, NULL, &e));
  cr_expect_not(ndx_contiguous_offsets(&l, &s, NULL));
  cr_expect_not(ndx_broadcast_pattern(NULL, &bc));
  cr_expect_not(ndx_broadcast_pattern(&l, NULL));
  expect_untouched(&s, sizeof s, "start");
  expect_untouched(&e, sizeof e, "end");
  expect_untouched(&bc, sizeof bc, "bcast");
  /* A NULL layout walks as empty. */
  ndx_iter it;
  int64_t p;
  ndx_iter_init(&it, NULL);
  cr_expect_not(ndx_iter_next(&it, &p));
  ndx_blocks b;
  ndx_blocks_init(&b, NULL);
  cr_expect(b.count == 0 && !ndx_blocks_next(&b, &p));
}

/* Layouts at the limits walk without overflow (checked under UBSan too). */
Test(hostile, iterators_at_the_limits) {
  ndx_layout l;
  cr_assert_eq(
      ndx_make(&l, 2, (int64_t[]){2, 2}, (int64_t[]){-(P53 - 1) / 2, P53 / 2 - 1}, (P53 - 1) / 2),
      NDX_OK, "%s", ndx_last_error());
  int64_t want[] = {(P53 - 1) / 2, (P53 - 1) / 2 + P53 / 2 - 1, 0, P53 / 2 - 1};
  ndx_iter it;
  ndx_iter_init(&it, &l);
  int64_t p;
  for (int k = 0; k < 4; k++) {
    cr_assert(ndx_iter_next(&it, &p));
    cr_expect_eq(p, want[k], "position %d: %lld", k, (long long)p);
  }
  cr_expect_not(ndx_iter_next(&it, &p));
  ndx_layout big = contiguous(1, (int64_t[]){P53});
  int64_t start, len, stride;
  ndx_iter_init(&it, &big);
  cr_assert(ndx_iter_run(&it, &start, &len, &stride));
  cr_expect(start == 0 && len == P53 && stride == 1);
  cr_expect_not(ndx_iter_run(&it, &start, &len, &stride));
  int64_t s, e;
  cr_expect(ndx_contiguous_offsets(&big, &s, &e) && s == 0 && e == P53);
}

/* ---- Symbolic axes ------------------------------------------------------ */

Test(hostile, sym_calls_refuse_hostile_arguments) {
  ndx_layout l = base234();
  ndx_sym_layout s, out;
  cr_assert_eq(ndx_sym_wrap(&s, &l), NDX_OK);
  cr_assert_eq(ndx_sym_mark(&s, &s, 1, 7, 1), NDX_OK);
#define EXPECT(expr, want, call, value, what)                                                      \
  do {                                                                                             \
    FILL(out);                                                                                     \
    reset_error();                                                                                 \
    expect_fail((expr), want, call, value, what);                                                  \
    expect_untouched(&out, sizeof out, what);                                                      \
  } while (0)
  EXPECT(ndx_sym_wrap(NULL, &l), NDX_EINVAL, "ndx_sym_wrap", "out", "wrap NULL out");
  EXPECT(ndx_sym_wrap(&out, NULL), NDX_EINVAL, "ndx_sym_wrap", "l", "wrap NULL l");
  EXPECT(ndx_sym_mark(NULL, &s, 0, 1, 0), NDX_EINVAL, "ndx_sym_mark", "out", "mark NULL out");
  EXPECT(ndx_sym_mark(&out, NULL, 0, 1, 0), NDX_EINVAL, "ndx_sym_mark", "l", "mark NULL l");
  const int axes[] = {-1, 3, INT_MAX, INT_MIN};
  const char *axis_values[] = {"-1", "3", "2147483647", "-2147483648"};
  for (int k = 0; k < 4; k++)
    EXPECT(ndx_sym_mark(&out, &s, axes[k], 1, 0), NDX_EINVAL, "ndx_sym_mark", axis_values[k],
           "mark axis");
  EXPECT(ndx_sym_mark(&out, &s, 1, 8, 0), NDX_EINVAL, "ndx_sym_mark", "axis 1", "already symbolic");
  EXPECT(ndx_sym_mark(&out, &s, 0, -1, 0), NDX_EINVAL, "ndx_sym_mark", "-1", "symbol -1");
  EXPECT(ndx_sym_mark(&out, &s, 0, INT32_MIN, 0), NDX_EINVAL, "ndx_sym_mark", "-2147483648",
         "symbol INT32_MIN");
  const int64_t mins[] = {-1, INT64_MIN, 3, INT64_MAX, P53 + 1};
  const char *min_values[] = {"-1", "-9223372036854775808", "min 3", "9223372036854775807",
                              "9007199254740993"};
  for (int k = 0; k < 5; k++)
    EXPECT(ndx_sym_mark(&out, &s, 0, 1, mins[k]), NDX_EINVAL, "ndx_sym_mark", min_values[k],
           "mark min");
  /* Moves: NULLs, unknown kinds, the move table. */
  ndx_move perm = {.kind = NDX_PERMUTE, .n = 3, .perm = (int32_t[]){2, 1, 0}};
  EXPECT(ndx_sym_apply(NULL, &perm, &s), NDX_EINVAL, "ndx_sym_apply", "out", "apply NULL out");
  EXPECT(ndx_sym_apply(&out, NULL, &s), NDX_EINVAL, "ndx_sym_apply", "m", "apply NULL m");
  EXPECT(ndx_sym_apply(&out, &perm, NULL), NDX_EINVAL, "ndx_sym_apply", "l", "apply NULL l");
  for (size_t i = 0; i < N_MOVE_CASES; i++)
    EXPECT(ndx_sym_apply(&out, &move_cases[i].m, &s), move_cases[i].want, "ndx_sym_apply",
           move_cases[i].value, move_cases[i].what);
  /* Resolve: NULLs, bad envs, values at the extremes (axis 1: [1, 3]). */
  ndx_layout lout;
  ndx_sym_env env = {1, (int32_t[]){7}, (int64_t[]){2}};
#define EXPECT_RESOLVE(expr, want, value, what)                                                    \
  do {                                                                                             \
    FILL(lout);                                                                                    \
    reset_error();                                                                                 \
    expect_fail((expr), want, "ndx_sym_resolve", value, what);                                     \
    expect_untouched(&lout, sizeof lout, what);                                                    \
  } while (0)
  EXPECT_RESOLVE(ndx_sym_resolve(NULL, &s, &env), NDX_EINVAL, "out", "resolve NULL out");
  EXPECT_RESOLVE(ndx_sym_resolve(&lout, NULL, &env), NDX_EINVAL, "l", "resolve NULL l");
  EXPECT_RESOLVE(ndx_sym_resolve(&lout, &s, NULL), NDX_EINVAL, "env", "resolve NULL env");
  const int32_t envn[] = {-1, INT32_MIN};
  const char *envn_values[] = {"-1", "-2147483648"};
  for (int k = 0; k < 2; k++) {
    ndx_sym_env bad = {envn[k], env.symbols, env.values};
    EXPECT_RESOLVE(ndx_sym_resolve(&lout, &s, &bad), NDX_EINVAL, envn_values[k], "env n");
  }
  ndx_sym_env nulls[] = {{1, NULL, env.values}, {1, env.symbols, NULL}};
  for (int k = 0; k < 2; k++)
    EXPECT_RESOLVE(ndx_sym_resolve(&lout, &s, &nulls[k]), NDX_EINVAL, "NULL", "env NULL table");
  ndx_sym_env unbound = {1, (int32_t[]){8}, (int64_t[]){2}};
  EXPECT_RESOLVE(ndx_sym_resolve(&lout, &s, &unbound), NDX_EINVAL, "symbol 7", "unbound");
  ndx_sym_env empty = {0, NULL, NULL};
  EXPECT_RESOLVE(ndx_sym_resolve(&lout, &s, &empty), NDX_EINVAL, "symbol 7", "empty env");
  const int64_t values[] = {0, 4, -1, INT64_MIN, INT64_MAX, P53, -(P53 + 1)};
  const char *value_strings[] = {"bound to 0",           "bound to 4",          "-1",
                                 "-9223372036854775808", "9223372036854775807", "9007199254740992",
                                 "-9007199254740993"};
  for (int k = 0; k < 7; k++) {
    ndx_sym_env bad = {1, (int32_t[]){7}, (int64_t[]){values[k]}};
    EXPECT_RESOLVE(ndx_sym_resolve(&lout, &s, &bad), NDX_EINVAL, value_strings[k], "value");
  }
  /* Layouts no ndx_ call makes, wrapped or written into a sym layout. */
  hostile_layout h[HOSTILE_MAX];
  int nh = hostile_layouts(h);
  for (int i = 0; i < nh; i++) {
    EXPECT(ndx_sym_wrap(&out, &h[i].l), NDX_EINVAL, "ndx_sym_wrap", h[i].value, h[i].what);
    ndx_sym_layout x;
    memset(&x, 0, sizeof x);
    x.layout = h[i].l;
    x.symbolic = 1; /* axis 0 */
    x.symbol[0] = 7;
    EXPECT(ndx_sym_mark(&out, &x, 32, 1, 0), NDX_EINVAL, "ndx_sym_mark", h[i].value, h[i].what);
    EXPECT(ndx_sym_apply(&out, &perm, &x), NDX_EINVAL, "ndx_sym_apply", h[i].value, h[i].what);
    ndx_sym_env big = {1, (int32_t[]){7}, (int64_t[]){1}};
    EXPECT_RESOLVE(ndx_sym_resolve(&lout, &x, &big), NDX_EINVAL, h[i].value, h[i].what);
  }
  cr_expect_not(ndx_sym_has_dynamic(NULL));
#undef EXPECT
#undef EXPECT_RESOLVE
}

/* ---- Packing ------------------------------------------------------------ */

#define PACK_BYTES NDX_PACK_MAX_BYTES(NDX_PACK_MAX_OPS, NDX_MAX_RANK)

Test(hostile, pack_refuses_hostile_arguments) {
  alignas(8) unsigned char buf[PACK_BYTES + 8];
  size_t used;
  ndx_layout ls[NDX_PACK_MAX_OPS + 1];
  for (int k = 0; k <= NDX_PACK_MAX_OPS; k++) ls[k] = base234();
#define EXPECT_PACK(expr, want, call, value, what)                                                 \
  do {                                                                                             \
    FILL(buf);                                                                                     \
    FILL(used);                                                                                    \
    reset_error();                                                                                 \
    expect_fail((expr), want, call, value, what);                                                  \
    expect_untouched(buf, sizeof buf, what);                                                       \
    expect_untouched(&used, sizeof used, what);                                                    \
  } while (0)
  EXPECT_PACK(ndx_pack(NULL, 0, &used, 1, ls, 8), NDX_EINVAL, "ndx_pack", "buf", "NULL buf");
  EXPECT_PACK(ndx_pack(buf, sizeof buf, NULL, 1, ls, 8), NDX_EINVAL, "ndx_pack", "used",
              "NULL used");
  EXPECT_PACK(ndx_pack(buf, sizeof buf, &used, 1, NULL, 8), NDX_EINVAL, "ndx_pack", "layouts",
              "NULL layouts");
  EXPECT_PACK(ndx_pack(buf + 4, sizeof buf - 4, &used, 1, ls, 8), NDX_EINVAL, "ndx_pack", "aligned",
              "misaligned buf");
  const struct {
    int n;
    const char *value;
  } ns[] = {{0, "0"}, {-1, "-1"}, {9, "9"}, {INT_MIN, "-2147483648"}, {INT_MAX, "2147483647"}};
  for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
    EXPECT_PACK(ndx_pack(buf, sizeof buf, &used, ns[i].n, ls, 8), NDX_EINVAL, "ndx_pack",
                ns[i].value, "bad n");
  const struct {
    int bits;
    const char *value;
  } widths[] = {{0, "0"},
                {3, "3"},
                {129, "129"},
                {-1, "-1"},
                {256, "256"},
                {24, "24"},
                {INT_MIN, "-2147483648"}};
  for (size_t i = 0; i < sizeof widths / sizeof *widths; i++) {
    EXPECT_PACK(ndx_pack(buf, sizeof buf, &used, 2, ls, widths[i].bits), NDX_EINVAL, "ndx_pack",
                widths[i].value, "bad width");
    EXPECT_PACK(ndx_pack_copy(buf, sizeof buf, &used, &ls[0], &ls[1], widths[i].bits), NDX_EINVAL,
                "ndx_pack_copy", widths[i].value, "bad width");
  }
  ndx_layout t;
  cr_assert_eq(ndx_transpose(&t, &ls[0], 0, 2), NDX_OK);
  ls[3] = t;
  EXPECT_PACK(ndx_pack(buf, sizeof buf, &used, 4, ls, 8), NDX_EINVAL, "ndx_pack", "[4,3,2]",
              "shapes differ");
  EXPECT_PACK(ndx_pack_copy(buf, sizeof buf, &used, &ls[0], &t, 8), NDX_EINVAL, "ndx_pack_copy",
              "[4,3,2]", "shapes differ");
  ls[3] = ls[0];
  /* Too small: 0 bytes, and one byte short of the pack. */
  size_t need;
  cr_assert_eq(ndx_pack(buf, sizeof buf, &need, 2, ls, 8), NDX_OK, "%s", ndx_last_error());
  char needs[32];
  snprintf(needs, sizeof needs, "%zu", need);
  EXPECT_PACK(ndx_pack(buf, 0, &used, 2, ls, 8), NDX_ERANGE, "ndx_pack", needs, "size 0");
  EXPECT_PACK(ndx_pack(buf, need - 1, &used, 2, ls, 8), NDX_ERANGE, "ndx_pack", needs,
              "size need - 1");
  ndx_layout d = base234();
  cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &need, &d, &d, 8), NDX_OK, "%s", ndx_last_error());
  snprintf(needs, sizeof needs, "%zu", need);
  EXPECT_PACK(ndx_pack_copy(buf, need - 1, &used, &d, &d, 8), NDX_ERANGE, "ndx_pack_copy", needs,
              "copy size need - 1");
  EXPECT_PACK(ndx_pack_copy(NULL, 0, &used, &d, &d, 8), NDX_EINVAL, "ndx_pack_copy", "buf",
              "copy NULL buf");
  EXPECT_PACK(ndx_pack_copy(buf, sizeof buf, NULL, &d, &d, 8), NDX_EINVAL, "ndx_pack_copy", "used",
              "copy NULL used");
  EXPECT_PACK(ndx_pack_copy(buf, sizeof buf, &used, NULL, &d, 8), NDX_EINVAL, "ndx_pack_copy",
              "dst", "copy NULL dst");
  EXPECT_PACK(ndx_pack_copy(buf, sizeof buf, &used, &d, NULL, 8), NDX_EINVAL, "ndx_pack_copy",
              "src", "copy NULL src");
  EXPECT_PACK(ndx_pack_copy(buf + 4, sizeof buf - 4, &used, &d, &d, 8), NDX_EINVAL, "ndx_pack_copy",
              "aligned", "copy misaligned");
  /* Layouts no ndx_ call makes, as either operand. */
  hostile_layout h[HOSTILE_MAX];
  int nh = hostile_layouts(h);
  for (int i = 0; i < nh; i++) {
    ndx_layout two[2] = {h[i].l, h[i].l};
    EXPECT_PACK(ndx_pack(buf, sizeof buf, &used, 2, two, 8), NDX_EINVAL, "ndx_pack", h[i].value,
                h[i].what);
    EXPECT_PACK(ndx_pack_copy(buf, sizeof buf, &used, &h[i].l, &h[i].l, 8), NDX_EINVAL,
                "ndx_pack_copy", h[i].value, h[i].what);
  }
#undef EXPECT_PACK
}

/* Eight rank-32 operands that merge nothing: the largest pack. It fits in
 * exactly NDX_PACK_MAX_BYTES, one byte less is NDX_ERANGE, and no byte past
 * the pack is written. */
Test(hostile, pack_at_its_limits) {
  alignas(8) unsigned char buf[PACK_BYTES + 64];
  int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK];
  ndx_layout ls[NDX_PACK_MAX_OPS];
  for (int a = 0; a < NDX_MAX_RANK; a++) shape[a] = 2;
  for (int k = 0; k < NDX_PACK_MAX_OPS; k++) {
    /* Gaps between axes (stride 3^..), so that no two axes merge; 3^31 * 2 < 2^53. */
    int64_t s = 1;
    for (int a = NDX_MAX_RANK - 1; a >= 0; a--, s *= 3) strides[a] = s;
    ndx_layout c;
    cr_assert_eq(ndx_make(&c, NDX_MAX_RANK, shape, strides, k), NDX_OK, "%s", ndx_last_error());
    ls[k] = c;
  }
  size_t used;
  FILL(buf);
  FILL(used);
  reset_error();
  char needs[32];
  snprintf(needs, sizeof needs, "%d", (int)PACK_BYTES);
  expect_fail(ndx_pack(buf, PACK_BYTES - 1, &used, NDX_PACK_MAX_OPS, ls, 128), NDX_ERANGE,
              "ndx_pack", needs, "one byte short");
  expect_untouched(buf, sizeof buf, "one byte short");
  expect_untouched(&used, sizeof used, "one byte short");
  cr_assert_eq(ndx_pack(buf, PACK_BYTES, &used, NDX_PACK_MAX_OPS, ls, 128), NDX_OK, "%s",
               ndx_last_error());
  cr_expect_eq(used, (size_t)PACK_BYTES);
  expect_untouched(buf + PACK_BYTES, sizeof buf - PACK_BYTES, "past the pack");
  const ndx_pack_head *h = (const ndx_pack_head *)buf;
  cr_expect(h->rank == NDX_MAX_RANK && h->nops == NDX_PACK_MAX_OPS && h->wide == 1);
}

Test(hostile, pack_permute_and_widen_refuse_hostile_arguments) {
  alignas(8) unsigned char buf[PACK_BYTES + 8], before[PACK_BYTES + 8];
  ndx_layout l = contiguous(3, (int64_t[]){2, 3, 4}), c = contiguous(3, (int64_t[]){4, 3, 2}), t;
  cr_assert_eq(ndx_transpose(&t, &c, 0, 2), NDX_OK);
  size_t used, need;
  /* A narrow 3-axis copy pack: the source transposed, so nothing merges. */
  memset(buf, 0, sizeof buf);
  cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &need, &l, &t, 32), NDX_OK, "%s", ndx_last_error());
  const ndx_pack_head *h = (const ndx_pack_head *)buf;
  cr_assert_eq(h->rank, 3);
  cr_assert_eq(h->wide, 0);
  memcpy(before, buf, sizeof buf);
#define EXPECT_SAME(expr, want, call, value, what)                                                 \
  do {                                                                                             \
    reset_error();                                                                                 \
    expect_fail((expr), want, call, value, what);                                                  \
    cr_expect_eq(memcmp(buf, before, sizeof buf), 0, "%s: pack written", what);                    \
  } while (0)
  EXPECT_SAME(ndx_pack_permute(NULL, (int32_t[]){0, 1, 2}), NDX_EINVAL, "ndx_pack_permute", "buf",
              "NULL buf");
  EXPECT_SAME(ndx_pack_permute(buf, NULL), NDX_EINVAL, "ndx_pack_permute", "perm", "NULL perm");
  const struct {
    int32_t p[3];
    const char *value;
  } perms[] = {{{0, 0, 1}, "0"},
               {{0, 1, 3}, "3"},
               {{-1, 1, 2}, "-1"},
               {{0, INT32_MIN, 2}, "-2147483648"},
               {{INT32_MAX, 1, 0}, "2147483647"},
               {{2, 1, 1}, "1"}};
  for (size_t i = 0; i < sizeof perms / sizeof *perms; i++)
    EXPECT_SAME(ndx_pack_permute(buf, perms[i].p), NDX_EINVAL, "ndx_pack_permute", perms[i].value,
                "bad perm");
  FILL(used);
  EXPECT_SAME(ndx_pack_widen(NULL, sizeof buf, &used), NDX_EINVAL, "ndx_pack_widen", "buf",
              "widen NULL buf");
  EXPECT_SAME(ndx_pack_widen(buf, sizeof buf, NULL), NDX_EINVAL, "ndx_pack_widen", "used",
              "widen NULL used");
  char needs[32];
  size_t wide_need = 32 + 8 * NDX_PACK_WORDS(2, 3);
  snprintf(needs, sizeof needs, "%zu", wide_need);
  EXPECT_SAME(ndx_pack_widen(buf, need, &used), NDX_ERANGE, "ndx_pack_widen", needs,
              "widen into the narrow size");
  EXPECT_SAME(ndx_pack_widen(buf, wide_need - 1, &used), NDX_ERANGE, "ndx_pack_widen", needs,
              "widen one byte short");
  expect_untouched(&used, sizeof used, "widen: used");
  /* Misaligned: the same pack one word further on. */
  alignas(8) unsigned char mis[PACK_BYTES + 16] = {0};
  memcpy(mis + 4, buf, need);
  unsigned char mis_before[sizeof mis];
  memcpy(mis_before, mis, sizeof mis);
  reset_error();
  expect_fail(ndx_pack_permute(mis + 4, (int32_t[]){2, 1, 0}), NDX_EINVAL, "ndx_pack_permute",
              "aligned", "permute misaligned");
  reset_error();
  expect_fail(ndx_pack_widen(mis + 4, sizeof mis - 4, &used), NDX_EINVAL, "ndx_pack_widen",
              "aligned", "widen misaligned");
  cr_expect_eq(memcmp(mis, mis_before, sizeof mis), 0, "misaligned pack written");
  /* Malformed heads: another version, rank or nops out of range. */
  const struct {
    size_t field; /* word of the head */
    uint32_t value;
    const char *text;
  } heads[] = {{0, 2, "version 2"},  {0, 0xFFFFFFFFu, "4294967295"}, {2, 0, "rank 0"},
               {2, 33, "rank 33"},   {2, 0x80000000u, "2147483648"}, {3, 0, "0 operands"},
               {3, 9, "9 operands"}, {3, 0xFFFFFFFFu, "4294967295"}};
  for (size_t i = 0; i < sizeof heads / sizeof *heads; i++) {
    cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &need, &l, &t, 32), NDX_OK);
    memcpy(buf + 4 * heads[i].field, &heads[i].value, 4);
    memcpy(before, buf, sizeof buf);
    EXPECT_SAME(ndx_pack_permute(buf, (int32_t[]){2, 1, 0}), NDX_EINVAL, "ndx_pack_permute",
                heads[i].text, "bad head");
    FILL(used);
    EXPECT_SAME(ndx_pack_widen(buf, sizeof buf, &used), NDX_EINVAL, "ndx_pack_widen", heads[i].text,
                "bad head");
    expect_untouched(&used, sizeof used, "bad head: used");
  }
#undef EXPECT_SAME
}

/* A narrow pack whose words a user overwrote with int32 extremes: reading
 * it back must not overflow (UBSan watches; it did in fits_narrow), and the
 * pack, whose positions now pass int32, no longer fits its own size. */
Test(hostile, pack_permute_survives_extreme_words) {
  alignas(8) unsigned char buf[PACK_BYTES] = {0};
  enum { R = 30 }; /* 2^30 elements: the narrow form */
  int64_t shape[R];
  int32_t perm[R];
  for (int a = 0; a < R; a++) {
    shape[a] = 2;
    perm[a] = R - 1 - a;
  }
  ndx_layout l = contiguous(R, shape), t;
  cr_assert_eq(ndx_permute(&t, &l, perm), NDX_OK);
  size_t need;
  cr_assert_eq(ndx_pack_copy(buf, sizeof buf, &need, &t, &l, 8), NDX_OK, "%s", ndx_last_error());
  ndx_pack_head *h = (ndx_pack_head *)buf;
  cr_assert_eq(h->wide, 0);
  cr_assert_eq(h->rank, R);
  int nops = (int)h->nops, rank = (int)h->rank;
  int32_t *w = (int32_t *)(h + 1);
  for (int a = 0; a < rank; a++) {
    w[NDX_PACK_EXTENT(nops, rank, a)] = INT32_MAX;
    for (int k = 0; k < nops; k++) w[NDX_PACK_STRIDE(nops, rank, k, a)] = INT32_MAX;
  }
  for (int k = 0; k < nops; k++) w[NDX_PACK_OFFSET(nops, rank, k)] = INT32_MAX;
  unsigned char before[sizeof buf];
  memcpy(before, buf, sizeof buf);
  reset_error();
  /* Its positions pass int32, so it no longer fits its own narrow size. */
  expect_fail(ndx_pack_permute(buf, perm), NDX_ERANGE, "ndx_pack_permute", "size", "extreme words");
  cr_expect_eq(memcmp(buf, before, sizeof buf), 0, "pack written");
}

Test(hostile, pack_magic_refuses_bad_arguments) {
  const struct {
    int64_t d;
    int nbits;
  } bad[] = {{0, 64},    {-1, 64},  {INT64_MIN, 64},        {INT64_MAX, 64}, {P53 + 1, 64},
             {-P53, 64}, {P53, 32}, {INT64_C(1) << 31, 32}, {5, 0},          {5, 16},
             {5, -1},    {5, 128},  {5, INT_MIN},           {0, 32}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    uint64_t m;
    int sh;
    FILL(m);
    FILL(sh);
    cr_expect_not(ndx_pack_magic(bad[i].d, bad[i].nbits, &m, &sh), "d %lld nbits %d",
                  (long long)bad[i].d, bad[i].nbits);
    expect_untouched(&m, sizeof m, "magic");
    expect_untouched(&sh, sizeof sh, "shift");
  }
  uint64_t m;
  int sh;
  cr_expect_not(ndx_pack_magic(5, 64, NULL, &sh));
  cr_expect_not(ndx_pack_magic(5, 64, &m, NULL));
  cr_expect(ndx_pack_magic(P53, 64, &m, &sh) && sh == 53);
  cr_expect(ndx_pack_magic(INT32_MAX, 32, &m, &sh) && sh == 31);
}

/* ---- Recovery and threads ----------------------------------------------- */

/* A failed call leaves nothing behind: the next call works, and a success
 * keeps the message of the last failure. */
Test(hostile, a_success_after_a_failure_works) {
  ndx_layout l = base234(), out, want;
  cr_assert_eq(ndx_transpose(&want, &l, 0, 2), NDX_OK);
  for (size_t i = 0; i < N_MOVE_CASES; i++) {
    cr_assert_neq(ndx_apply(&out, &move_cases[i].m, &l), NDX_OK);
    char message[4096];
    snprintf(message, sizeof message, "%s", ndx_last_error());
    FILL(out);
    cr_expect_eq(ndx_transpose(&out, &l, 0, 2), NDX_OK, "after %s", move_cases[i].what);
    cr_expect_eq(memcmp(&out, &want, sizeof out), 0, "after %s", move_cases[i].what);
    cr_expect_str_eq(ndx_last_error(), message, "after %s", move_cases[i].what);
  }
  alignas(8) unsigned char buf[PACK_BYTES] = {0};
  size_t used;
  cr_assert_eq(ndx_pack(buf, 0, &used, 1, &l, 8), NDX_ERANGE);
  cr_expect_eq(ndx_pack(buf, sizeof buf, &used, 1, &l, 8), NDX_OK, "%s", ndx_last_error());
  cr_expect_eq(((ndx_pack_head *)buf)->numel, 24);
}

Test(hostile, status_names_of_any_value) {
  const int bad[] = {1, -7, 100, INT_MIN, INT_MAX};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    cr_expect_str_eq(ndx_status_name((ndx_status)bad[i]), "NDX_UNKNOWN", "%d", bad[i]);
  cr_expect_str_eq(ndx_status_name(NDX_ERANGE), "NDX_ERANGE");
}

static void *fail_in_thread(void *arg) {
  ndx_layout out;
  ndx_status *s = arg;
  if (ndx_last_error()[0] != '\0') return NULL; /* a new thread starts with "" */
  *s = ndx_contiguous(&out, 33, (int64_t[33]){0});
  /* Copied out while this thread still lives. */
  static char seen[4096];
  snprintf(seen, sizeof seen, "%s", ndx_last_error());
  return seen;
}

Test(hostile, messages_are_per_thread) {
  ndx_layout out;
  cr_assert_eq(ndx_make(&out, 0, NULL, NULL, -5), NDX_ERANGE);
  char mine[4096];
  snprintf(mine, sizeof mine, "%s", ndx_last_error());
  cr_assert(strstr(mine, "-5") != NULL, "%s", mine);
  pthread_t th;
  ndx_status s = NDX_OK;
  cr_assert_eq(pthread_create(&th, NULL, fail_in_thread, &s), 0);
  void *seen;
  cr_assert_eq(pthread_join(th, &seen), 0);
  cr_expect_eq(s, NDX_ERANGE);
  cr_assert_not_null(seen, "a new thread's message is not empty");
  cr_expect(strstr(seen, "ndx_contiguous") && strstr(seen, "33"), "thread: %s", (char *)seen);
  cr_expect_str_eq(ndx_last_error(), mine, "main thread's message changed");
}

/* Threads failing at once each read their own message, every time. */
typedef struct racer {
  int rank; /* the rank this thread's calls refuse */
  int wrong;
} racer;

static void *race(void *arg) {
  racer *r = arg;
  char want[16];
  snprintf(want, sizeof want, "rank %d", r->rank);
  for (int i = 0; i < 2000; i++) {
    ndx_layout out;
    if (ndx_contiguous(&out, r->rank, (int64_t[1]){1}) != NDX_ERANGE ||
        !strstr(ndx_last_error(), want))
      r->wrong++;
  }
  return NULL;
}

Test(hostile, concurrent_failures_keep_their_own_messages) {
  enum { THREADS = 4 };
  pthread_t th[THREADS];
  racer r[THREADS];
  for (int k = 0; k < THREADS; k++) {
    r[k] = (racer){.rank = 40 + k, .wrong = 0};
    cr_assert_eq(pthread_create(&th[k], NULL, race, &r[k]), 0);
  }
  for (int k = 0; k < THREADS; k++) {
    cr_assert_eq(pthread_join(th[k], NULL), 0);
    cr_expect_eq(r[k].wrong, 0, "thread %d read another's message %d times", k, r[k].wrong);
  }
}
