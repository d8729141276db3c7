/* test_dtype.c: the number types of ndx_dtype.h (names, widths, parsing and
 * its refusals), the host reference of their conversions (convert_ref.h)
 * against literals of the rules, and kernels/ndx_convert.h, compiled as
 * host C, against that reference over every ordered pair of the 18 types:
 * every bit pattern of a source of 16 bits or fewer, and for the 32- and
 * 64-bit sources their special values, the boundaries of every
 * destination (largest finite values, the halfway points beside them,
 * subnormal and integer limits) and random patterns of a fixed seed. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "convert_ref.h"
#include "ndx/ndx_dtype.h"
#include "ndx_convert.h"
#include "oracle.h"

#define NTYPES 18

static const struct {
  ndx_dtype t;
  const char *name;
  int bits;
} spec[NTYPES] = {
    /* DESIGN.md's enum, in order */
    {NDX_BOOL, "bool", 8},     {NDX_I8, "i8", 8},
    {NDX_I16, "i16", 16},      {NDX_I32, "i32", 32},
    {NDX_I64, "i64", 64},      {NDX_U8, "u8", 8},
    {NDX_U16, "u16", 16},      {NDX_U32, "u32", 32},
    {NDX_U64, "u64", 64},      {NDX_I4, "i4", 4},
    {NDX_U4, "u4", 4},         {NDX_F16, "f16", 16},
    {NDX_BF16, "bf16", 16},    {NDX_F32, "f32", 32},
    {NDX_F64, "f64", 64},      {NDX_F8E4M3FN, "f8e4m3fn", 8},
    {NDX_F8E5M2, "f8e5m2", 8}, {NDX_F4E2M1FN, "f4e2m1fn", 4},
};

/* ---- Names, widths, parsing -------------------------------------------------- */

Test(dtype, names_and_widths_are_designs) {
  for (int k = 0; k < NTYPES; k++) {
    cr_assert_eq((int)spec[k].t, k, "%s is enumerator %d", spec[k].name, k);
    cr_assert_str_eq(ndx_dtype_name(spec[k].t), spec[k].name);
    cr_assert_eq(ndx_dtype_bits(spec[k].t), spec[k].bits, "%s", spec[k].name);
  }
}

Test(dtype, values_outside_the_enum_have_no_name_and_no_width) {
  int outside[] = {-1, NTYPES, NTYPES + 1, 1000, -1000};
  for (size_t k = 0; k < sizeof outside / sizeof *outside; k++) {
    cr_assert_null(ndx_dtype_name((ndx_dtype)outside[k]), "%d", outside[k]);
    cr_assert_eq(ndx_dtype_bits((ndx_dtype)outside[k]), 0, "%d", outside[k]);
  }
}

Test(dtype, parse_reads_every_name_back) {
  for (int k = 0; k < NTYPES; k++) {
    ndx_dtype t = (ndx_dtype)99;
    cr_assert_eq(ndx_dtype_parse(&t, spec[k].name), NDX_OK, "%s: %s", spec[k].name,
                 ndx_last_error());
    cr_assert_eq(t, spec[k].t, "%s", spec[k].name);
  }
}

/* A refused name: NDX_EINVAL, *out untouched, the message naming the call,
 * the argument, the value and the valid names. */
static void expect_parse_refused(const char *name, const char *shown) {
  ndx_dtype t = (ndx_dtype)77;
  cr_assert_eq(ndx_dtype_parse(&t, name), NDX_EINVAL, "\"%s\"", name);
  cr_assert_eq((int)t, 77, "\"%s\": out was written", name);
  const char *m = ndx_last_error();
  cr_assert(strstr(m, "ndx_dtype_parse: name ") == m, "message: %s", m);
  cr_assert(strstr(m, shown), "message lacks %s: %s", shown, m);
  cr_assert(strstr(m, "bool, i8, i16, i32, i64, u8, u16, u32, u64, i4, u4, f16, bf16, f32, f64, "
                      "f8e4m3fn, f8e5m2, f4e2m1fn"),
            "message lacks the names: %s", m);
}

Test(dtype, parse_refuses_other_names) {
  expect_parse_refused("float32", "\"float32\"");
  expect_parse_refused("F32", "\"F32\"");
  expect_parse_refused("", "\"\"");
  expect_parse_refused("f32 ", "\"f32 \"");
  expect_parse_refused("bfloat16", "\"bfloat16\"");
  expect_parse_refused("f8e4m3", "\"f8e4m3\"");
  char longname[200];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  expect_parse_refused(longname, "xxxx...\" is not a type");
}

Test(dtype, parse_refuses_null) {
  ndx_dtype t = (ndx_dtype)77;
  cr_assert_eq(ndx_dtype_parse(&t, NULL), NDX_EINVAL);
  cr_assert_eq((int)t, 77);
  cr_assert_str_eq(ndx_last_error(), "ndx_dtype_parse: name is NULL");
  cr_assert_eq(ndx_dtype_parse(NULL, "f32"), NDX_EINVAL);
  cr_assert_str_eq(ndx_last_error(), "ndx_dtype_parse: out is NULL");
}

Test(dtype, the_device_header_numbers_types_as_the_enum) {
  int dt[NTYPES] = {NDX_DT_BOOL,     NDX_DT_I8,     NDX_DT_I16,     NDX_DT_I32, NDX_DT_I64,
                    NDX_DT_U8,       NDX_DT_U16,    NDX_DT_U32,     NDX_DT_U64, NDX_DT_I4,
                    NDX_DT_U4,       NDX_DT_F16,    NDX_DT_BF16,    NDX_DT_F32, NDX_DT_F64,
                    NDX_DT_F8E4M3FN, NDX_DT_F8E5M2, NDX_DT_F4E2M1FN};
  cr_assert_eq(NDX_DT_COUNT, NTYPES);
  for (int k = 0; k < NTYPES; k++) {
    cr_assert_eq(dt[k], (int)spec[k].t, "%s", spec[k].name);
    cr_assert_eq(ndx_cv_bits(dt[k]), spec[k].bits, "%s", spec[k].name);
  }
}

/* ---- The reference against literals of the rules ------------------------------ */

static void expect_ref(ndx_dtype from, uint64_t bits, ndx_dtype to, uint64_t want) {
  uint64_t got = ref_convert(bits, from, to);
  cr_assert_eq(got, want, "reference %s 0x%llx -> %s: got 0x%llx, want 0x%llx",
               ndx_dtype_name(from), (unsigned long long)bits, ndx_dtype_name(to),
               (unsigned long long)got, (unsigned long long)want);
}

Test(reference, rounds_once_to_nearest_even) {
  expect_ref(NDX_F32, 0x3f800000, NDX_BF16, 0x3f80);         /* 1.0 */
  expect_ref(NDX_F32, 0x3f808000, NDX_BF16, 0x3f80);         /* 1 + 2^-8: tie, even below */
  expect_ref(NDX_F32, 0x3f818000, NDX_BF16, 0x3f82);         /* tie, even above */
  expect_ref(NDX_F32, 0x3f808001, NDX_BF16, 0x3f81);         /* past the tie */
  expect_ref(NDX_F64, 0x3ff0100000040000, NDX_BF16, 0x3f81); /* 1 + 2^-8 + 2^-30: once */
  expect_ref(NDX_I64, (1u << 24) + (1u << 16) + 1, NDX_BF16, 0x4b81); /* not via f32 */
  expect_ref(NDX_I32, 17, NDX_F8E4M3FN, 0x58);                        /* 16: tie, even */
  expect_ref(NDX_I32, 19, NDX_F8E4M3FN, 0x5a);                        /* 20: tie, even */
  expect_ref(NDX_F32, 0x3e800000, NDX_F4E2M1FN, 0x0);                 /* 0.25: tie to 0 */
  expect_ref(NDX_F32, 0x3e851eb8, NDX_F4E2M1FN, 0x1);                 /* 0.26 -> 0.5 */
  expect_ref(NDX_F32, 0xbf400000, NDX_F4E2M1FN, 0xa);                 /* -0.75 -> -1 (tie, even) */
  expect_ref(NDX_F32, 0x33800000, NDX_F16, 0x0001);     /* 2^-24, the least subnormal */
  expect_ref(NDX_F32, 0x33000000, NDX_F16, 0x0000);     /* 2^-25: tie, even is 0 */
  expect_ref(NDX_F32, 0x33c00000, NDX_F16, 0x0002);     /* 1.5 * 2^-24: tie, even */
  expect_ref(NDX_F32, 0xb3000000, NDX_F16, 0x8000);     /* -2^-25: -0 */
  expect_ref(NDX_U64, UINT64_MAX, NDX_F32, 0x5f800000); /* 2^64 */
  expect_ref(NDX_U64, UINT64_MAX, NDX_F64, 0x43f0000000000000);
  expect_ref(NDX_I64, (uint64_t)INT64_MIN, NDX_F32, 0xdf000000);
}

Test(reference, overflow_by_each_formats_rule) {
  expect_ref(NDX_F32, 0x477fe000, NDX_F16, 0x7bff);             /* 65504 */
  expect_ref(NDX_F32, 0x477fefff, NDX_F16, 0x7bff);             /* below 65520 */
  expect_ref(NDX_F32, 0x477ff000, NDX_F16, 0x7c00);             /* 65520: tie, to infinity */
  expect_ref(NDX_F32, 0x43e00000, NDX_F8E4M3FN, 0x7e);          /* 448 */
  expect_ref(NDX_F32, 0x43e80000, NDX_F8E4M3FN, 0x7e);          /* 464: tie, even is 448 */
  expect_ref(NDX_F32, 0x43e80001, NDX_F8E4M3FN, 0x7f);          /* past 464: NaN */
  expect_ref(NDX_F32, 0xff800000, NDX_F8E4M3FN, 0xff);          /* -inf: NaN, sign kept */
  expect_ref(NDX_F32, 0x47600000, NDX_F8E5M2, 0x7b);            /* 57344 */
  expect_ref(NDX_F32, 0x47700000, NDX_F8E5M2, 0x7c);            /* 61440: tie, to infinity */
  expect_ref(NDX_F32, 0x40e00000, NDX_F4E2M1FN, 0x7);           /* 7: 6 */
  expect_ref(NDX_F32, 0x7f800000, NDX_F4E2M1FN, 0x7);           /* inf: 6 */
  expect_ref(NDX_F32, 0xff800000, NDX_F4E2M1FN, 0xf);           /* -inf: -6 */
  expect_ref(NDX_F64, 0x47efffffe0000000, NDX_F32, 0x7f7fffff); /* FLT_MAX */
  expect_ref(NDX_F64, 0x47efffffefffffff, NDX_F32, 0x7f7fffff); /* just below FLT_MAX + ulp/2 */
  expect_ref(NDX_F64, 0x47effffff0000000, NDX_F32, 0x7f800000); /* FLT_MAX + ulp/2: inf */
}

Test(reference, nans_are_canonical_with_the_sources_sign) {
  expect_ref(NDX_F32, 0x7f800001, NDX_F16, 0x7e00);
  expect_ref(NDX_F32, 0xffc00001, NDX_F16, 0xfe00);
  expect_ref(NDX_F16, 0x7c01, NDX_F32, 0x7fc00000);
  expect_ref(NDX_F16, 0xfe01, NDX_F64, 0xfff8000000000000);
  expect_ref(NDX_F64, 0x7ff0000000000001, NDX_BF16, 0x7fc0);
  expect_ref(NDX_BF16, 0xffff, NDX_F8E4M3FN, 0xff);
  expect_ref(NDX_F8E4M3FN, 0x7f, NDX_F8E5M2, 0x7e);
  expect_ref(NDX_F8E5M2, 0xfd, NDX_F8E5M2, 0xfd);     /* same type: the bits */
  expect_ref(NDX_F32, 0x7fc00000, NDX_F4E2M1FN, 0x8); /* no NaN: zero of the opposite sign */
  expect_ref(NDX_F32, 0xffc00000, NDX_F4E2M1FN, 0x0);
}

Test(reference, floats_to_integers_truncate_and_saturate) {
  expect_ref(NDX_F32, 0x40fccccd, NDX_I8, 7);    /* 7.9 */
  expect_ref(NDX_F32, 0xc0fccccd, NDX_I8, 0xf9); /* -7.9: -7 */
  expect_ref(NDX_F32, 0x43800000, NDX_I8, 0x7f); /* 256: 127 */
  expect_ref(NDX_F32, 0xc3800000, NDX_I8, 0x80); /* -256: -128 */
  expect_ref(NDX_F32, 0xbf000000, NDX_U8, 0);    /* -0.5: 0 */
  expect_ref(NDX_F32, 0xbfc00000, NDX_U8, 0);    /* -1.5: saturates at 0 */
  expect_ref(NDX_F32, 0x42c80000, NDX_I4, 7);    /* 100 */
  expect_ref(NDX_F32, 0xc1100000, NDX_I4, 0x8);  /* -9: -8 */
  expect_ref(NDX_F32, 0x41800000, NDX_U4, 0xf);  /* 16: 15 */
  expect_ref(NDX_F32, 0x7fc00000, NDX_I32, 0);   /* NaN */
  expect_ref(NDX_F32, 0xff800000, NDX_I64, (uint64_t)INT64_MIN);
  expect_ref(NDX_F32, 0x5f000000, NDX_I64, INT64_MAX);                  /* 2^63 */
  expect_ref(NDX_F32, 0x5f800000, NDX_U64, UINT64_MAX);                 /* 2^64 */
  expect_ref(NDX_F64, 0x43dfffffffffffff, NDX_I64, 0x7ffffffffffffc00); /* below 2^63 */
  expect_ref(NDX_F4E2M1FN, 0xf, NDX_I4, 0xa);                           /* -6 */
  expect_ref(NDX_F8E4M3FN, 0x7f, NDX_U8, 0);                            /* NaN */
}

Test(reference, integers_wrap_and_bools_are_zero_or_one) {
  expect_ref(NDX_I64, 300, NDX_I4, 0xc); /* -4 */
  expect_ref(NDX_I64, 300, NDX_U4, 0xc);
  expect_ref(NDX_I4, 0x8, NDX_I64, (uint64_t)-8); /* sign-extended */
  expect_ref(NDX_I4, 0x8, NDX_U8, 0xf8);
  expect_ref(NDX_U4, 0x8, NDX_I8, 8);
  expect_ref(NDX_I8, 0x80, NDX_U64, 0xffffffffffffff80);
  expect_ref(NDX_U64, UINT64_MAX, NDX_I16, 0xffff);
  expect_ref(NDX_I32, 256, NDX_BOOL, 1);
  expect_ref(NDX_F32, 0x80000000, NDX_BOOL, 0); /* -0 */
  expect_ref(NDX_F32, 0x7fc00000, NDX_BOOL, 1); /* NaN */
  expect_ref(NDX_F4E2M1FN, 0x8, NDX_BOOL, 0);
  expect_ref(NDX_BOOL, 1, NDX_F4E2M1FN, 0x2);
  expect_ref(NDX_BOOL, 2, NDX_I32, 1); /* a byte other than 0 reads as 1 */
  expect_ref(NDX_BOOL, 1, NDX_F64, 0x3ff0000000000000);
}

Test(reference, buffers_hold_elements_lsb_first) {
  uint8_t buf[4] = {0x21, 0x43, 0xff, 0xff};
  cr_assert_eq(ref_load(buf, 0, 4), 0x1);
  cr_assert_eq(ref_load(buf, 3, 4), 0x4);
  cr_assert_eq(ref_load(buf, 0, 16), 0x4321);
  ref_store(buf, 4, 4, 0x5);
  cr_assert_eq(buf[2], 0xf5, "the other nibble kept");
  uint8_t src[2] = {0x7f, 0xc8}; /* f4e2m1fn -6, 6, -0, -2 */
  uint8_t dst[8];
  memset(dst, 0xaa, sizeof dst);
  ref_convert_elem(dst, 1, NDX_F16, src, 3, NDX_F4E2M1FN); /* -2 */
  cr_assert_eq(dst[2], 0x00);
  cr_assert_eq(dst[3], 0xc0);
  ref_convert_elem(dst, 5, NDX_F4E2M1FN, src, 0, NDX_F4E2M1FN); /* a nibble into byte 2 */
  cr_assert_eq(dst[2], 0xf0);
  cr_assert_eq(dst[0], 0xaa);
  cr_assert_eq(dst[4], 0xaa);
}

/* ---- The kernel header against the reference ---------------------------------- */

typedef struct sweep {
  long long checked, mismatches;
  char first[256];
} sweep;

static void check_one(sweep *s, uint64_t bits, int from, int to) {
  uint64_t got = ndx_convert_bits(bits, from, to);
  uint64_t want = ref_convert(bits, (ndx_dtype)from, (ndx_dtype)to);
  s->checked++;
  if (got == want) return;
  if (s->mismatches++ == 0)
    snprintf(s->first, sizeof s->first,
             "%s -> %s: source 0x%llx: ndx_convert_bits 0x%llx, "
             "reference 0x%llx",
             spec[from].name, spec[to].name, (unsigned long long)bits, (unsigned long long)got,
             (unsigned long long)want);
}

static void expect_no_mismatch(const sweep *s, const char *what) {
  cr_assert_eq(s->mismatches, 0, "%s: %lld of %lld conversions differ; the first: %s", what,
               s->mismatches, s->checked, s->first);
  cr_log_info("%s: %lld conversions, 0 mismatches", what, s->checked);
}

Test(convert, every_pattern_of_every_narrow_source_to_every_type) {
  sweep s = {0};
  for (int from = 0; from < NTYPES; from++) {
    int w = spec[from].bits;
    if (w > 16) continue;
    for (int to = 0; to < NTYPES; to++)
      for (uint64_t b = 0; b < (UINT64_C(1) << w); b++) check_one(&s, b, from, to);
  }
  expect_no_mismatch(&s, "sources of 4, 8 and 16 bits, every pattern");
}

Test(convert, bits_above_the_sources_width_are_ignored) {
  oracle_rng r = {7};
  for (int from = 0; from < NTYPES; from++) {
    int w = spec[from].bits;
    if (w == 64) continue;
    for (int to = 0; to < NTYPES; to++)
      for (int k = 0; k < 64; k++) {
        uint64_t b = oracle_next(&r), low = b & ((UINT64_C(1) << w) - 1);
        uint64_t want = ref_convert(low, (ndx_dtype)from, (ndx_dtype)to);
        cr_assert_eq(ndx_convert_bits(b, from, to), want, "%s -> %s: 0x%llx", spec[from].name,
                     spec[to].name, (unsigned long long)b);
        cr_assert_eq(ndx_convert_bits(low, from, to), want);
      }
  }
}

/* The special values a 32- or 64-bit source is tried at. */
typedef struct values {
  uint64_t *v;
  size_t n, cap;
} values;

static void add(values *l, uint64_t b) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 1024;
    l->v = realloc(l->v, l->cap * sizeof *l->v);
    cr_assert_not_null(l->v);
  }
  l->v[l->n++] = b;
}

/* An integer value x and its neighbours, as a `w`-bit pattern. */
static void add_int(values *l, double x) {
  /* x is an integer below 2^65 in magnitude: exact as a double */
  for (int d = -2; d <= 2; d++) {
    double y = x + d;
    if (y >= 18446744073709551616.0 || y < -9223372036854775808.0) continue;
    add(l, y < 0 ? (uint64_t)(int64_t)y : (uint64_t)y);
  }
}

/* A float value x (a double) and the values of the source's type nearest
 * it: its rounding and that rounding's neighbours, both signs. */
static void add_float(values *l, int from, double x) {
  for (int sgn = 0; sgn < 2; sgn++) {
    double y = sgn ? -x : x;
    if (from == NDX_DT_F64) {
      double c[5] = {y, nextafter(y, INFINITY), nextafter(y, -INFINITY),
                     nextafter(nextafter(y, INFINITY), INFINITY),
                     nextafter(nextafter(y, -INFINITY), -INFINITY)};
      for (int k = 0; k < 5; k++) {
        uint64_t b;
        memcpy(&b, &c[k], 8);
        add(l, b);
      }
    } else {
      float f = (float)y; /* to nearest: the f32 nearest y, or infinity */
      float c[5] = {f, nextafterf(f, INFINITY), nextafterf(f, -INFINITY),
                    nextafterf(nextafterf(f, INFINITY), INFINITY),
                    nextafterf(nextafterf(f, -INFINITY), -INFINITY)};
      for (int k = 0; k < 5; k++) {
        uint32_t b;
        memcpy(&b, &c[k], 4);
        add(l, b);
      }
    }
  }
}

/* Each float destination's largest finite value, the spacing of values
 * below it, its least subnormal and least normal value. */
static const struct {
  double max, ulp, sub, normal;
} dst_formats[] = {
    {65504.0, 32.0, 0x1p-24, 0x1p-14},         /* f16 */
    {0x1.fep127, 0x1p120, 0x1p-133, 0x1p-126}, /* bf16 */
    {FLT_MAX, 0x1p104, 0x1p-149, 0x1p-126},    /* f32 */
    {DBL_MAX, 0x1p971, 0x1p-1074, 0x1p-1022},  /* f64 */
    {448.0, 32.0, 0x1p-9, 0x1p-6},             /* f8e4m3fn */
    {57344.0, 8192.0, 0x1p-16, 0x1p-14},       /* f8e5m2 */
    {6.0, 2.0, 0.5, 1.0},                      /* f4e2m1fn */
};

/* The precisions (significand bits, the leading one included) of the
 * float destinations: where an integer source rounds. */
static const int precisions[] = {2, 3, 4, 8, 11, 24, 53};

static values specials(int from) {
  values l = {0};
  bool is_float = from == NDX_DT_F32 || from == NDX_DT_F64;
  if (!is_float) {
    add_int(&l, 0);
    for (int k = 1; k <= 64; k++) { /* powers of two and the halfway points near them */
      double p = ldexp(1, k);
      add_int(&l, p);
      add_int(&l, -p);
      for (size_t j = 0; j < sizeof precisions / sizeof *precisions; j++) {
        int q = k - precisions[j]; /* the halfway points of precision p at 2^k */
        if (q < 0) continue;
        double ties[3] = {p + ldexp(1, q), p + 3 * ldexp(1, q), 2 * p - ldexp(1, q)};
        for (int t = 0; t < 3; t++) {
          if (ties[t] < 18446744073709551616.0) add_int(&l, ties[t]);
          if (-ties[t] >= -9223372036854775808.0) add_int(&l, -ties[t]);
        }
      }
    }
    for (size_t j = 0; j < sizeof dst_formats / sizeof *dst_formats; j++)
      if (dst_formats[j].max < 1e19) {
        add_int(&l, dst_formats[j].max);
        add_int(&l, dst_formats[j].max + dst_formats[j].ulp / 2);
        add_int(&l, -dst_formats[j].max);
        add_int(&l, -dst_formats[j].max - dst_formats[j].ulp / 2);
      }
    return l;
  }
  uint64_t sign = from == NDX_DT_F64 ? UINT64_C(1) << 63 : UINT64_C(1) << 31;
  uint64_t inf = from == NDX_DT_F64 ? 0x7ff0000000000000 : 0x7f800000;
  uint64_t quiet = from == NDX_DT_F64 ? UINT64_C(1) << 51 : UINT64_C(1) << 22;
  uint64_t nans[] = {inf | quiet,        inf | 1,
                     inf | (quiet - 1),  inf | quiet | 1,
                     inf | (quiet >> 1), inf | ((quiet << 1) - 1)};
  for (int s = 0; s < 2; s++) {
    uint64_t sb = s ? sign : 0;
    add(&l, sb);       /* zero */
    add(&l, sb | inf); /* infinity */
    for (size_t k = 0; k < sizeof nans / sizeof *nans; k++) add(&l, sb | nans[k]);
    add(&l, sb | 1); /* the least subnormal */
  }
  for (size_t j = 0; j < sizeof dst_formats / sizeof *dst_formats; j++) {
    double max = dst_formats[j].max, ulp = dst_formats[j].ulp;
    double sub = dst_formats[j].sub, normal = dst_formats[j].normal;
    double anchors[] = {max,          max + ulp / 2,    max + ulp,    max - ulp / 2,
                        sub,          sub / 2,          sub * 3 / 2,  sub / 4,
                        sub * 2,      normal,           normal - sub, normal - sub / 2,
                        normal + sub, normal + sub / 2, 1.0,          1.5};
    for (size_t a = 0; a < sizeof anchors / sizeof *anchors; a++)
      if (isfinite(anchors[a])) add_float(&l, from, anchors[a]);
  }
  for (int k = -2; k <= 65; k++) { /* integer limits and halfway points between integers */
    double p = ldexp(1, k);
    add_float(&l, from, p);
    add_float(&l, from, p - 0.5);
    add_float(&l, from, p + 0.5);
    add_float(&l, from, p - 1);
  }
  return l;
}

/* Random patterns: `n` uniform, and `n` with the exponent field within
 * `band` of the bias, where the narrow formats' values lie. */
static void add_random(values *l, int from, int n, oracle_rng *r) {
  int w = spec[from].bits;
  uint64_t mask = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
  for (int k = 0; k < n; k++) add(l, oracle_next(r) & mask);
  if (from != NDX_DT_F32 && from != NDX_DT_F64) return;
  int mbits = from == NDX_DT_F64 ? 52 : 23, bias = from == NDX_DT_F64 ? 1023 : 127;
  for (int k = 0; k < n; k++) {
    uint64_t b = oracle_next(r) & mask;
    int e = from == NDX_DT_F64 ? bias + (int)oracle_between(r, -150, 150)
                               : (int)oracle_between(r, 0, 255);
    b = (b & ~(((UINT64_C(1) << (w - 1 - mbits)) - 1) << mbits)) | ((uint64_t)e << mbits);
    add(l, b);
  }
}

Test(convert, wide_sources_at_special_boundary_and_random_values) {
  sweep s = {0};
  oracle_rng r = {0x5eed};
  long long tried = 0;
  for (int from = 0; from < NTYPES; from++) {
    if (spec[from].bits < 32) continue;
    values l = specials(from);
    add_random(&l, from, 10000, &r);
    tried += (long long)l.n;
    for (int to = 0; to < NTYPES; to++)
      for (size_t k = 0; k < l.n; k++) check_one(&s, l.v[k], from, to);
    free(l.v);
  }
  cr_log_info("%lld source values of 32 and 64 bits", tried);
  expect_no_mismatch(&s, "sources of 32 and 64 bits, special, boundary and random values");
}

/* The general path alone: decode into the exact value, encode it. */
static uint64_t general_path(uint64_t b, int from, int to) {
  return ndx_cv_encode(ndx_cv_decode(b, from), to, ndx_cv_is_float(from));
}

/* f32 patterns at every place a direct path rounds or shifts: every
 * exponent field and sign, with significands that put a tie, its
 * neighbours and the all-ones run at each bit. */
static values f32_rounding_points(void) {
  values l = {0};
  for (uint64_t e = 0; e < 256; e++)
    for (uint64_t sgn = 0; sgn < 2; sgn++) {
      uint64_t hi = sgn << 31 | e << 23;
      add(&l, hi);
      add(&l, hi | 0x7fffff);
      for (int j = 0; j < 23; j++) {
        static const uint64_t base[2] = {1, 3};
        for (int k = 0; k < 2; k++)
          for (int d = -1; d <= 1; d++) add(&l, hi | (((base[k] << j) + (uint64_t)d) & 0x7fffff));
      }
    }
  return l;
}

Test(convert, the_pairs_with_direct_paths) {
  static const int pairs[][2] = {
      {NDX_DT_F32, NDX_DT_F16},      {NDX_DT_F16, NDX_DT_F32},       {NDX_DT_F32, NDX_DT_BF16},
      {NDX_DT_BF16, NDX_DT_F32},     {NDX_DT_F32, NDX_DT_F8E4M3FN},  {NDX_DT_F32, NDX_DT_F8E5M2},
      {NDX_DT_F8E4M3FN, NDX_DT_F32}, {NDX_DT_F8E5M2, NDX_DT_F32},    {NDX_DT_F4E2M1FN, NDX_DT_F16},
      {NDX_DT_F4E2M1FN, NDX_DT_F32}, {NDX_DT_F4E2M1FN, NDX_DT_BF16}, {NDX_DT_F16, NDX_DT_F4E2M1FN},
      {NDX_DT_F32, NDX_DT_F4E2M1FN}, {NDX_DT_BF16, NDX_DT_F4E2M1FN}, {NDX_DT_I8, NDX_DT_F32},
      {NDX_DT_U8, NDX_DT_F32},       {NDX_DT_I16, NDX_DT_F32},       {NDX_DT_U16, NDX_DT_F32},
      {NDX_DT_BOOL, NDX_DT_F32},     {NDX_DT_I8, NDX_DT_F16},        {NDX_DT_U8, NDX_DT_F16},
      {NDX_DT_I16, NDX_DT_F16},      {NDX_DT_U16, NDX_DT_F16},       {NDX_DT_BOOL, NDX_DT_F16},
      {NDX_DT_I8, NDX_DT_BF16},      {NDX_DT_U8, NDX_DT_BF16},       {NDX_DT_I16, NDX_DT_BF16},
      {NDX_DT_U16, NDX_DT_BF16},     {NDX_DT_BOOL, NDX_DT_BF16},     {NDX_DT_F32, NDX_DT_I8},
      {NDX_DT_F32, NDX_DT_U8},       {NDX_DT_F32, NDX_DT_I32},
  };
  for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++)
    cr_assert(ndx_cv_has_direct(pairs[k][0], pairs[k][1]), "%s -> %s", spec[pairs[k][0]].name,
              spec[pairs[k][1]].name);
  cr_assert(!ndx_cv_has_direct(NDX_DT_F32, NDX_DT_F32));
  cr_assert(!ndx_cv_has_direct(NDX_DT_F64, NDX_DT_F32));
}

Test(convert, direct_paths_are_the_general_path) {
  long long pairs = 0, checked = 0;
  oracle_rng r = {32};
  for (int from = 0; from < NTYPES; from++) {
    int w = spec[from].bits;
    values l = {0};
    if (w <= 16) {
      for (uint64_t b = 0; b < (UINT64_C(1) << w); b++) add(&l, b);
    } else if (w == 32) {
      l = from == NDX_DT_F32 ? f32_rounding_points() : specials(from);
      values more = specials(from);
      for (size_t k = 0; k < more.n; k++) add(&l, more.v[k]);
      free(more.v);
      add_random(&l, from, 100000, &r);
      if (from == NDX_DT_F32) /* every top half, just below, at and just above its tie */
        for (uint64_t t = 0; t < 0x10000; t++)
          for (uint64_t low = 0x7fff; low <= 0x8001; low++) add(&l, t << 16 | low);
    }
    for (int to = 0; to < NTYPES; to++) {
      if (!ndx_cv_has_direct(from, to)) continue;
      cr_assert(w <= 32, "%s -> %s: a direct path from %d bits", spec[from].name, spec[to].name, w);
      pairs++;
      for (size_t k = 0; k < l.n; k++, checked++) {
        uint64_t got = ndx_convert_bits(l.v[k], from, to), want = general_path(l.v[k], from, to);
        if (got != want)
          cr_assert_fail("%s -> %s: source 0x%llx: direct 0x%llx, general path 0x%llx",
                         spec[from].name, spec[to].name, (unsigned long long)l.v[k],
                         (unsigned long long)got, (unsigned long long)want);
      }
    }
    free(l.v);
  }
  cr_log_info("%lld pairs with direct paths, %lld conversions against the general path", pairs,
              checked);
}
