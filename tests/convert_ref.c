/* convert_ref.c: the host reference of ndx's value conversions
 * (convert_ref.h), one function per rule. */
#include "convert_ref.h"

#include <stdbool.h>
#include <stddef.h>

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

/* ---- Types ----------------------------------------------------------------- */

enum ref_family { REF_BOOL, REF_INT, REF_UINT, REF_FLOAT };

/* What happens past the largest finite value of a float format. */
enum ref_overflow { REF_TO_INF, REF_TO_NAN, REF_SATURATE };

/* A float format, from its specification: the largest finite positive
 * pattern and the canonical quiet NaN are literals (0 for no NaN). */
typedef struct ref_float {
  int ebits, mbits;
  uint64_t max_finite;
  uint64_t nan;
  enum ref_overflow overflow;
} ref_float;

typedef struct ref_type {
  const char *name;
  int bits;
  enum ref_family family;
  ref_float f; /* REF_FLOAT only */
} ref_type;

static const ref_type types[] = {
    [NDX_BOOL] = {"bool", 8, REF_BOOL, {0}},
    [NDX_I8] = {"i8", 8, REF_INT, {0}},
    [NDX_I16] = {"i16", 16, REF_INT, {0}},
    [NDX_I32] = {"i32", 32, REF_INT, {0}},
    [NDX_I64] = {"i64", 64, REF_INT, {0}},
    [NDX_U8] = {"u8", 8, REF_UINT, {0}},
    [NDX_U16] = {"u16", 16, REF_UINT, {0}},
    [NDX_U32] = {"u32", 32, REF_UINT, {0}},
    [NDX_U64] = {"u64", 64, REF_UINT, {0}},
    [NDX_I4] = {"i4", 4, REF_INT, {0}},
    [NDX_U4] = {"u4", 4, REF_UINT, {0}},
    [NDX_F16] = {"f16", 16, REF_FLOAT, {5, 10, 0x7bff, 0x7e00, REF_TO_INF}},
    [NDX_BF16] = {"bf16", 16, REF_FLOAT, {8, 7, 0x7f7f, 0x7fc0, REF_TO_INF}},
    [NDX_F32] = {"f32", 32, REF_FLOAT, {8, 23, 0x7f7fffff, 0x7fc00000, REF_TO_INF}},
    [NDX_F64] = {"f64",
                 64,
                 REF_FLOAT,
                 {11, 52, 0x7fefffffffffffffu, 0x7ff8000000000000u, REF_TO_INF}},
    [NDX_F8E4M3FN] = {"f8e4m3fn", 8, REF_FLOAT, {4, 3, 0x7e, 0x7f, REF_TO_NAN}},
    [NDX_F8E5M2] = {"f8e5m2", 8, REF_FLOAT, {5, 2, 0x7b, 0x7e, REF_TO_INF}},
    [NDX_F4E2M1FN] = {"f4e2m1fn", 4, REF_FLOAT, {2, 1, 0x7, 0, REF_SATURATE}},
};

static uint64_t low_bits(int n) {
  return n == 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
}

/* ---- Values ---------------------------------------------------------------- */

/* A number: zero, a finite non-zero m * 2^e, an infinity or a NaN. */
enum ref_class { REF_ZERO, REF_NUMBER, REF_INFINITY, REF_NAN };
typedef struct ref_value {
  bool neg;
  enum ref_class cls;
  u128 m;
  int e;
} ref_value;

static int bit_length(u128 m) {
  uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
  return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

/* -1, 0 or 1 as a * 2^ae is below, equal to or above b * 2^be (a, b >= 0,
 * each below 2^127). */
static int compare(u128 a, int ae, u128 b, int be) {
  if (!a || !b) return (a != 0) - (b != 0);
  int at = bit_length(a) + ae, bt = bit_length(b) + be;
  if (at != bt) return at < bt ? -1 : 1;
  if (ae > be)
    a <<= ae - be; /* same top bit: the shifted one stays below 2^128 */
  else
    b <<= be - ae;
  return (a > b) - (a < b);
}

/* The value of a non-negative pattern p of format f, read by its fields
 * without the format's specials: the pattern just past the largest finite
 * one reads as the next value the exponent range would give. */
static void pattern_value(const ref_float *f, uint64_t p, u128 *m, int *e) {
  int bias = (1 << (f->ebits - 1)) - 1;
  uint64_t field = p >> f->mbits, frac = p & low_bits(f->mbits);
  if (field == 0) {
    *m = frac;
    *e = 1 - bias - f->mbits;
  } else {
    *m = (u128)frac + ((u128)1 << f->mbits);
    *e = (int)field - bias - f->mbits;
  }
}

/* ---- Decoding, one function per family -------------------------------------- */

static ref_value decode_bool(uint64_t bits) {
  bool one = (bits & 0xff) != 0;
  return (ref_value){false, one ? REF_NUMBER : REF_ZERO, one, 0};
}

/* Integers as 128-bit values. */
static i128 integer_value(uint64_t bits, const ref_type *t) {
  uint64_t u = bits & low_bits(t->bits);
  if (t->family == REF_INT && (u >> (t->bits - 1)) & 1) return (i128)u - ((i128)1 << t->bits);
  return (i128)u;
}

static ref_value decode_integer(uint64_t bits, const ref_type *t) {
  i128 v = integer_value(bits, t);
  if (v == 0) return (ref_value){false, REF_ZERO, 0, 0};
  return (ref_value){v < 0, REF_NUMBER, (u128)(v < 0 ? -v : v), 0};
}

/* A float: its magnitude pattern past the largest finite one is an
 * infinity where the format has one (the pattern right after it), else a
 * NaN. */
static ref_value decode_float(uint64_t bits, const ref_type *t) {
  const ref_float *f = &t->f;
  uint64_t sign_bit = UINT64_C(1) << (t->bits - 1);
  bits &= low_bits(t->bits);
  ref_value v = {(bits & sign_bit) != 0, REF_NUMBER, 0, 0};
  uint64_t mag = bits & ~sign_bit;
  if (mag > f->max_finite) {
    v.cls = (f->overflow == REF_TO_INF && mag == f->max_finite + 1) ? REF_INFINITY : REF_NAN;
    return v;
  }
  pattern_value(f, mag, &v.m, &v.e);
  if (v.m == 0) v.cls = REF_ZERO;
  return v;
}

static ref_value decode(uint64_t bits, ndx_dtype t) {
  switch (types[t].family) {
  case REF_BOOL:
    return decode_bool(bits);
  case REF_INT:
  case REF_UINT:
    return decode_integer(bits, &types[t]);
  case REF_FLOAT:
    break;
  }
  return decode_float(bits, &types[t]);
}

/* ---- The rules ------------------------------------------------------------------ */

/* To bool: zero gives 0, anything else (NaN included) 1. */
static uint64_t to_bool(ref_value v) {
  return v.cls != REF_ZERO;
}

/* Integer or bool to integer: two's-complement wrap into the width. */
static uint64_t integer_to_integer(ref_value v, const ref_type *to) {
  i128 x = v.neg ? -(i128)v.m : (i128)v.m;
  return (uint64_t)((u128)x & low_bits(to->bits));
}

/* Float to integer: truncation toward zero, saturating at the type's range
 * (infinities too), NaN to 0. */
static uint64_t float_to_integer(ref_value v, const ref_type *to) {
  i128 lo = to->family == REF_INT ? -((i128)1 << (to->bits - 1)) : 0;
  i128 hi = to->family == REF_INT ? ((i128)1 << (to->bits - 1)) - 1 : ((i128)1 << to->bits) - 1;
  i128 x;
  if (v.cls == REF_NAN || v.cls == REF_ZERO)
    x = 0;
  else if (v.cls == REF_INFINITY)
    x = v.neg ? lo : hi;
  else {
    u128 t; /* |v| truncated, capped at 2^65: past every range */
    if (v.e >= 0)
      t = (v.e > 65 || bit_length(v.m) + v.e > 66) ? (u128)1 << 65 : v.m << v.e;
    else
      t = -v.e >= 128 ? 0 : v.m >> -v.e;
    x = v.neg ? -(i128)t : (i128)t;
    if (x < lo) x = lo;
    if (x > hi) x = hi;
  }
  return (uint64_t)((u128)x & low_bits(to->bits));
}

/* A non-zero finite value to a float format: the pattern of the nearest
 * value, found by binary search over the ordered patterns; a tie goes to
 * the even pattern. The pattern past the largest finite one stands for the
 * next value of an unbounded exponent range, and a value rounding to it
 * overflows. */
static uint64_t round_to_format(ref_value v, const ref_float *f, bool *overflow) {
  uint64_t lo = 0, hi = f->max_finite + 1;
  u128 m;
  int e;
  pattern_value(f, hi, &m, &e);
  *overflow = compare(v.m, v.e, m, e) >= 0;
  if (*overflow) return hi;
  while (hi - lo > 1) { /* value(lo) <= v < value(hi) */
    uint64_t mid = lo + (hi - lo) / 2;
    pattern_value(f, mid, &m, &e);
    if (compare(m, e, v.m, v.e) <= 0)
      lo = mid;
    else
      hi = mid;
  }
  u128 lm, hm;
  int le, he;
  pattern_value(f, lo, &lm, &le);
  if (compare(lm, le, v.m, v.e) == 0) return lo;
  pattern_value(f, hi, &hm, &he);
  int ce = le < he ? le : he; /* the midpoint, (lo + hi) / 2, exactly */
  u128 sum = (lm << (le - ce)) + (hm << (he - ce));
  int c = compare(v.m, v.e, sum, ce - 1);
  uint64_t r = c < 0 ? lo : c > 0 ? hi : (lo % 2 == 0 ? lo : hi);
  *overflow = r == f->max_finite + 1;
  return r;
}

/* To a float: rounded once; overflow and infinities by the format's rule;
 * a NaN to the canonical NaN with the source's sign, or for a format with
 * none (f4e2m1fn) to a zero of the opposite sign. */
static uint64_t to_float(ref_value v, const ref_type *to) {
  const ref_float *f = &to->f;
  uint64_t sign = v.neg ? UINT64_C(1) << (to->bits - 1) : 0;
  uint64_t overflowed = f->overflow == REF_TO_INF   ? f->max_finite + 1
                        : f->overflow == REF_TO_NAN ? f->nan
                                                    : f->max_finite;
  switch (v.cls) {
  case REF_ZERO:
    return sign;
  case REF_NAN:
    return f->nan ? f->nan | sign : sign ^ (UINT64_C(1) << (to->bits - 1));
  case REF_INFINITY:
    return overflowed | sign;
  case REF_NUMBER:
    break;
  }
  bool overflow;
  uint64_t r = round_to_format(v, f, &overflow);
  return (overflow ? overflowed : r) | sign;
}

uint64_t ref_convert(uint64_t bits, ndx_dtype from, ndx_dtype to) {
  const ref_type *tt = &types[to];
  if (from == to) return bits & low_bits(tt->bits);
  ref_value v = decode(bits, from);
  switch (tt->family) {
  case REF_BOOL:
    return to_bool(v);
  case REF_INT:
  case REF_UINT:
    return types[from].family == REF_FLOAT ? float_to_integer(v, tt) : integer_to_integer(v, tt);
  case REF_FLOAT:
    break;
  }
  return to_float(v, tt);
}

/* ---- Buffers ---------------------------------------------------------------- */

uint64_t ref_load(const void *buf, int64_t pos, int bits) {
  const uint8_t *b = buf;
  uint64_t first = (uint64_t)pos * (uint64_t)bits, v = 0;
  for (int k = 0; k < bits; k++) {
    uint64_t at = first + (uint64_t)k;
    v |= (uint64_t)((b[at / 8] >> (at % 8)) & 1) << k;
  }
  return v;
}

void ref_store(void *buf, int64_t pos, int bits, uint64_t v) {
  uint8_t *b = buf;
  uint64_t first = (uint64_t)pos * (uint64_t)bits;
  for (int k = 0; k < bits; k++) {
    uint64_t at = first + (uint64_t)k;
    uint8_t bit = (uint8_t)(1u << (at % 8));
    if ((v >> k) & 1)
      b[at / 8] |= bit;
    else
      b[at / 8] &= (uint8_t)~bit;
  }
}

void ref_convert_elem(void *dst, int64_t dst_pos, ndx_dtype dst_t, const void *src, int64_t src_pos,
                      ndx_dtype src_t) {
  uint64_t v = ref_load(src, src_pos, types[src_t].bits);
  ref_store(dst, dst_pos, types[dst_t].bits, ref_convert(v, src_t, dst_t));
}
