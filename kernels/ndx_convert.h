/* ndx_convert.h: one element's value converted between two of ndx's 18
 * number types, bit for bit by the rules include/ndx/ndx_dtype.h states,
 * in the dialect of ndx_device.h: the same source as OpenCL C 1.2, CUDA
 * C++, HIP C++ and host C11. tests/test_dtype.c checks it against the host
 * reference (tests/convert_ref.c) over every ordered pair of types.
 *
 * No floating-point type or operation appears here: a device may lack fp16
 * or fp64 and its rounding of float operations is not ndx's to choose.
 * A conversion decodes the source's bits into an exact value (sign, class,
 * and a finite value's magnitude as a 64-bit integer times a power of two:
 * every value of every type fits, an f64's 53-bit significand and a u64
 * alike) and encodes that value into the destination with at most one
 * rounding, to nearest with ties to even.
 *
 * The rules, per destination:
 *   bool          0 for a zero (+0, -0), 1 for anything else, NaN included;
 *   integer       from an integer or bool: two's-complement wrap into the
 *                 destination's width (i4/u4 into 4 bits); from a float:
 *                 truncation toward zero, saturating at the type's range
 *                 (infinities too), NaN to 0;
 *   IEEE formats  (f16, bf16, f32, f64, f8e5m2) rounded once; past the
 *                 largest finite value after rounding: infinity; NaN: the
 *                 canonical quiet NaN (exponent all ones, top significand
 *                 bit set, nothing else) with the source's sign;
 *   f8e4m3fn      rounded once, then anything past 448 (infinities too) is
 *                 NaN; every NaN is 0x7f with the source's sign bit;
 *   f4e2m1fn      rounded once, saturating at +-6 (infinities too); a NaN
 *                 becomes a zero of the opposite sign (ml_dtypes 0.7).
 * A bool source is 0 when its byte is 0, 1 otherwise.
 *
 * Types are passed as ints equal to ndx_dtype's values (the NDX_DT_ names
 * below); a kernel passes compile-time constants (built per pair of types,
 * -DNDX_SRC_T=.. -DNDX_DST_T=..) so that every switch folds to the one
 * path the pair takes. Nothing here fails, allocates or checks its
 * arguments: a type outside the 18 gives 0. Each function is O(1). */
#ifndef NDX_CONVERT_H
#define NDX_CONVERT_H

#include "ndx/ndx_device.h"

/* ndx_dtype's values (include/ndx/ndx_dtype.h; tests/test_dtype.c checks
 * that they agree), for code that cannot include a host header. */
#define NDX_DT_BOOL 0
#define NDX_DT_I8 1
#define NDX_DT_I16 2
#define NDX_DT_I32 3
#define NDX_DT_I64 4
#define NDX_DT_U8 5
#define NDX_DT_U16 6
#define NDX_DT_U32 7
#define NDX_DT_U64 8
#define NDX_DT_I4 9
#define NDX_DT_U4 10
#define NDX_DT_F16 11
#define NDX_DT_BF16 12
#define NDX_DT_F32 13
#define NDX_DT_F64 14
#define NDX_DT_F8E4M3FN 15
#define NDX_DT_F8E5M2 16
#define NDX_DT_F4E2M1FN 17
#define NDX_DT_COUNT 18

/* ---- The exact value ------------------------------------------------------ */

#define NDX_CV_ZERO 0
#define NDX_CV_FINITE 1 /* non-zero: mag * 2^exp, mag != 0 */
#define NDX_CV_INF 2
#define NDX_CV_NAN 3

typedef struct ndx_cv_value {
  int sign; /* 1 when the sign bit is set (-0, -inf and negative NaNs too) */
  int kind; /* NDX_CV_ZERO .. NDX_CV_NAN */
  int exp;
  ndx_u64 mag;
} ndx_cv_value;

NDX_FN ndx_cv_value ndx_cv_make(int sign, int kind, ndx_u64 mag, int exp) {
  ndx_cv_value v;
  v.sign = sign;
  v.kind = kind;
  v.mag = mag;
  v.exp = exp;
  return v;
}

/* The low `bits` bits set, bits 1 .. 64. */
NDX_FN ndx_u64 ndx_cv_mask(int bits) {
  return bits >= 64 ? ~(ndx_u64)0 : ((ndx_u64)1 << bits) - 1u;
}

/* The number of zero bits above the highest set bit of x != 0: one
 * instruction on most devices (OpenCL's clz, CUDA's and HIP's __clz and
 * __clzll, the host compiler's builtins in the host pass). */
NDX_FN int ndx_clz32(ndx_u32 x) {
#if defined(NDX_OPENCL_C)
  return (int)clz(x);
#elif defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __clz((int)x);
#else
  return __builtin_clz(x);
#endif
}
NDX_FN int ndx_clz64(ndx_u64 x) {
#if defined(NDX_OPENCL_C)
  return (int)clz(x);
#elif defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __clzll((long long)x);
#else
  return __builtin_clzll(x);
#endif
}

/* The index of the highest set bit of x != 0. */
NDX_FN int ndx_cv_msb(ndx_u64 x) {
  return 63 - ndx_clz64(x);
}

/* m / 2^s rounded to nearest, ties to even, for s >= 1 (any size). */
NDX_FN ndx_u64 ndx_cv_shift_rne(ndx_u64 m, int s) {
  if (s > 64) return 0; /* m < 2^64 <= 2^(s-1): below half of one */
  if (s == 64) return m > ((ndx_u64)1 << 63) ? 1u : 0u;
  ndx_u64 q = m >> s;
  ndx_u64 rem = m & (((ndx_u64)1 << s) - 1u);
  ndx_u64 tie = (ndx_u64)1 << (s - 1);
  return q + ((rem > tie || (rem == tie && (q & 1u))) ? 1u : 0u);
}

/* ---- Decoding ------------------------------------------------------------- */

NDX_FN ndx_cv_value ndx_cv_decode_bool(ndx_u64 bits) {
  return (bits & 0xffu) ? ndx_cv_make(0, NDX_CV_FINITE, 1, 0) : ndx_cv_make(0, NDX_CV_ZERO, 0, 0);
}

/* An unsigned integer of `width` bits. */
NDX_FN ndx_cv_value ndx_cv_decode_uint(ndx_u64 bits, int width) {
  ndx_u64 m = bits & ndx_cv_mask(width);
  return ndx_cv_make(0, m ? NDX_CV_FINITE : NDX_CV_ZERO, m, 0);
}

/* A two's-complement integer of `width` bits: its top bit is the sign and
 * the magnitude of the most negative, 2^(width-1), fits in 64 bits. */
NDX_FN ndx_cv_value ndx_cv_decode_int(ndx_u64 bits, int width) {
  ndx_u64 mask = ndx_cv_mask(width);
  ndx_u64 b = bits & mask;
  int neg = (int)((b >> (width - 1)) & 1u);
  ndx_u64 m = neg ? (~b + 1u) & mask : b;
  return ndx_cv_make(neg, m ? NDX_CV_FINITE : NDX_CV_ZERO, m, 0);
}

/* How a binary float format spends its largest exponent field. */
#define NDX_CV_IEEE 0    /* all ones: infinity (significand 0) or NaN */
#define NDX_CV_FN_NAN 1  /* finite, but for all-ones significand: NaN (f8e4m3fn) */
#define NDX_CV_FN_NONE 2 /* finite (f4e2m1fn) */

/* A float of sign, `ebits` exponent bits with bias 2^(ebits-1) - 1 and
 * `mbits` significand bits. */
NDX_FN ndx_cv_value ndx_cv_decode_float(ndx_u64 bits, int ebits, int mbits, int style) {
  int bias = (1 << (ebits - 1)) - 1;
  ndx_u64 emax = ((ndx_u64)1 << ebits) - 1u;
  int sign = (int)((bits >> (ebits + mbits)) & 1u);
  ndx_u64 e = (bits >> mbits) & emax;
  ndx_u64 m = bits & ndx_cv_mask(mbits);
  if (e == emax && style == NDX_CV_IEEE)
    return ndx_cv_make(sign, m ? NDX_CV_NAN : NDX_CV_INF, 0, 0);
  if (e == emax && style == NDX_CV_FN_NAN && m == ndx_cv_mask(mbits))
    return ndx_cv_make(sign, NDX_CV_NAN, 0, 0);
  if (e == 0) /* zero or subnormal: m * 2^(1 - bias - mbits) */
    return ndx_cv_make(sign, m ? NDX_CV_FINITE : NDX_CV_ZERO, m, 1 - bias - mbits);
  return ndx_cv_make(sign, NDX_CV_FINITE, m | ((ndx_u64)1 << mbits), (int)e - bias - mbits);
}

NDX_FN ndx_cv_value ndx_cv_decode_f16(ndx_u64 bits) {
  return ndx_cv_decode_float(bits, 5, 10, NDX_CV_IEEE);
}
NDX_FN ndx_cv_value ndx_cv_decode_bf16(ndx_u64 bits) {
  return ndx_cv_decode_float(bits, 8, 7, NDX_CV_IEEE);
}
NDX_FN ndx_cv_value ndx_cv_decode_f32(ndx_u64 bits) {
  return ndx_cv_decode_float(bits, 8, 23, NDX_CV_IEEE);
}
NDX_FN ndx_cv_value ndx_cv_decode_f64(ndx_u64 bits) {
  return ndx_cv_decode_float(bits, 11, 52, NDX_CV_IEEE);
}
NDX_FN ndx_cv_value ndx_cv_decode_f8e4m3fn(ndx_u64 bits) {
  return ndx_cv_decode_float(bits, 4, 3, NDX_CV_FN_NAN);
}
NDX_FN ndx_cv_value ndx_cv_decode_f8e5m2(ndx_u64 bits) {
  return ndx_cv_decode_float(bits, 5, 2, NDX_CV_IEEE);
}
NDX_FN ndx_cv_value ndx_cv_decode_f4e2m1fn(ndx_u64 bits) {
  return ndx_cv_decode_float(bits, 2, 1, NDX_CV_FN_NONE);
}

NDX_FN ndx_cv_value ndx_cv_decode(ndx_u64 bits, int t) {
  switch (t) {
  case NDX_DT_BOOL:
    return ndx_cv_decode_bool(bits);
  case NDX_DT_I8:
    return ndx_cv_decode_int(bits, 8);
  case NDX_DT_I16:
    return ndx_cv_decode_int(bits, 16);
  case NDX_DT_I32:
    return ndx_cv_decode_int(bits, 32);
  case NDX_DT_I64:
    return ndx_cv_decode_int(bits, 64);
  case NDX_DT_U8:
    return ndx_cv_decode_uint(bits, 8);
  case NDX_DT_U16:
    return ndx_cv_decode_uint(bits, 16);
  case NDX_DT_U32:
    return ndx_cv_decode_uint(bits, 32);
  case NDX_DT_U64:
    return ndx_cv_decode_uint(bits, 64);
  case NDX_DT_I4:
    return ndx_cv_decode_int(bits, 4);
  case NDX_DT_U4:
    return ndx_cv_decode_uint(bits, 4);
  case NDX_DT_F16:
    return ndx_cv_decode_f16(bits);
  case NDX_DT_BF16:
    return ndx_cv_decode_bf16(bits);
  case NDX_DT_F32:
    return ndx_cv_decode_f32(bits);
  case NDX_DT_F64:
    return ndx_cv_decode_f64(bits);
  case NDX_DT_F8E4M3FN:
    return ndx_cv_decode_f8e4m3fn(bits);
  case NDX_DT_F8E5M2:
    return ndx_cv_decode_f8e5m2(bits);
  case NDX_DT_F4E2M1FN:
    return ndx_cv_decode_f4e2m1fn(bits);
  }
  return ndx_cv_make(0, NDX_CV_ZERO, 0, 0);
}

/* ---- Encoding ------------------------------------------------------------- */

NDX_FN ndx_u64 ndx_cv_encode_bool(ndx_cv_value v) {
  return v.kind == NDX_CV_ZERO ? 0u : 1u;
}

/* The value's integer part (truncated toward zero) when it is below 2^64;
 * *big set when it is not. */
NDX_FN ndx_u64 ndx_cv_trunc(ndx_cv_value v, int *big) {
  *big = 0;
  if (v.kind != NDX_CV_FINITE) return 0;
  if (v.exp <= -64) return 0;
  if (v.exp < 0) return v.mag >> -v.exp;
  if (v.exp >= 64 || (v.exp > 0 && (v.mag >> (64 - v.exp)) != 0)) {
    *big = 1;
    return 0;
  }
  return v.mag << v.exp;
}

/* An integer of `width` bits, signed or not, from a value of an integer or
 * bool source (`from_float` 0: wrap) or of a float (1: truncate, saturate,
 * NaN to 0). */
NDX_FN ndx_u64 ndx_cv_encode_integer(ndx_cv_value v, int width, int is_signed, int from_float) {
  ndx_u64 mask = ndx_cv_mask(width);
  if (!from_float) /* an integer source: mag < 2^64, exp 0 */
    return (v.sign ? ~v.mag + 1u : v.mag) & mask;
  if (v.kind == NDX_CV_NAN || v.kind == NDX_CV_ZERO) return 0;
  int big = v.kind == NDX_CV_INF;
  ndx_u64 t = big ? 0 : ndx_cv_trunc(v, &big);
  ndx_u64 top_value = is_signed ? mask >> 1 : mask;   /* the largest value   */
  ndx_u64 low_mag = is_signed ? (mask >> 1) + 1u : 0; /* |the least value| */
  if (!v.sign) return (big || t > top_value) ? top_value : t;
  if (big || t > low_mag) t = low_mag;
  return (~t + 1u) & mask;
}

/* The magnitude bits (exponent field and significand, no sign) of a
 * non-zero finite value rounded once into a float of `ebits` and `mbits`.
 * A result past the exponent field's range is 2^(ebits + mbits), above
 * every pattern; the caller applies its format's overflow rule to
 * anything above its largest finite pattern. */
NDX_FN ndx_u64 ndx_cv_round_float(ndx_u64 mag, int exp, int ebits, int mbits) {
  int bias = (1 << (ebits - 1)) - 1;
  int top = ndx_cv_msb(mag);
  int e = top + exp; /* the value is in [2^e, 2^(e+1)) */
  ndx_u64 past = (ndx_u64)1 << (ebits + mbits);
  if (e + bias >= (1 << ebits)) return past;
  int normal = e >= 1 - bias;
  /* bits of mag below the destination's last significand bit */
  int drop = normal ? top - mbits : (1 - bias - mbits) - exp;
  ndx_u64 q = drop > 0 ? ndx_cv_shift_rne(mag, drop) : mag << -drop;
  if (!normal) return q; /* a subnormal; 2^mbits, the least normal, when it rounds up */
  /* q in [2^mbits, 2^(mbits+1)]: its top bit counts in the exponent field,
   * so that rounding up to 2^(mbits+1) carries into the next exponent. */
  ndx_u64 r = ((ndx_u64)(e + bias) << mbits) + (q - ((ndx_u64)1 << mbits));
  return r > past ? past : r;
}

/* An IEEE-style format (f16, bf16, f32, f64, f8e5m2). */
NDX_FN ndx_u64 ndx_cv_encode_ieee(ndx_cv_value v, int ebits, int mbits) {
  ndx_u64 sign = (ndx_u64)v.sign << (ebits + mbits);
  ndx_u64 inf = (((ndx_u64)1 << ebits) - 1u) << mbits;
  switch (v.kind) {
  case NDX_CV_ZERO:
    return sign;
  case NDX_CV_INF:
    return sign | inf;
  case NDX_CV_NAN:
    return sign | inf | ((ndx_u64)1 << (mbits - 1));
  }
  ndx_u64 r = ndx_cv_round_float(v.mag, v.exp, ebits, mbits);
  return sign | (r >= inf ? inf : r);
}

NDX_FN ndx_u64 ndx_cv_encode_f16(ndx_cv_value v) {
  return ndx_cv_encode_ieee(v, 5, 10);
}
NDX_FN ndx_u64 ndx_cv_encode_bf16(ndx_cv_value v) {
  return ndx_cv_encode_ieee(v, 8, 7);
}
NDX_FN ndx_u64 ndx_cv_encode_f32(ndx_cv_value v) {
  return ndx_cv_encode_ieee(v, 8, 23);
}
NDX_FN ndx_u64 ndx_cv_encode_f64(ndx_cv_value v) {
  return ndx_cv_encode_ieee(v, 11, 52);
}
NDX_FN ndx_u64 ndx_cv_encode_f8e5m2(ndx_cv_value v) {
  return ndx_cv_encode_ieee(v, 5, 2);
}

/* f8e4m3fn: largest finite 0x7e (448), NaN 0x7f, no infinity. */
NDX_FN ndx_u64 ndx_cv_encode_f8e4m3fn(ndx_cv_value v) {
  ndx_u64 sign = (ndx_u64)v.sign << 7;
  if (v.kind == NDX_CV_ZERO) return sign;
  if (v.kind != NDX_CV_FINITE) return sign | 0x7fu;
  ndx_u64 r = ndx_cv_round_float(v.mag, v.exp, 4, 3);
  return sign | (r > 0x7eu ? 0x7fu : r);
}

/* f4e2m1fn: largest finite 0x7 (6), no infinity, no NaN. */
NDX_FN ndx_u64 ndx_cv_encode_f4e2m1fn(ndx_cv_value v) {
  ndx_u64 sign = (ndx_u64)v.sign << 3;
  if (v.kind == NDX_CV_ZERO) return sign;
  if (v.kind == NDX_CV_NAN) return sign ^ 0x8u;
  if (v.kind == NDX_CV_INF) return sign | 0x7u;
  ndx_u64 r = ndx_cv_round_float(v.mag, v.exp, 2, 1);
  return sign | (r > 0x7u ? 0x7u : r);
}

/* The width of type t, 0 outside the 18 (ndx_dtype_bits). */
NDX_FN int ndx_cv_bits(int t) {
  switch (t) {
  case NDX_DT_I4:
  case NDX_DT_U4:
  case NDX_DT_F4E2M1FN:
    return 4;
  case NDX_DT_BOOL:
  case NDX_DT_I8:
  case NDX_DT_U8:
  case NDX_DT_F8E4M3FN:
  case NDX_DT_F8E5M2:
    return 8;
  case NDX_DT_I16:
  case NDX_DT_U16:
  case NDX_DT_F16:
  case NDX_DT_BF16:
    return 16;
  case NDX_DT_I32:
  case NDX_DT_U32:
  case NDX_DT_F32:
    return 32;
  case NDX_DT_I64:
  case NDX_DT_U64:
  case NDX_DT_F64:
    return 64;
  }
  return 0;
}

/* 1 for the float types, whose values decode with a class of their own. */
NDX_FN int ndx_cv_is_float(int t) {
  return t >= NDX_DT_F16 && t <= NDX_DT_F4E2M1FN;
}

NDX_FN ndx_u64 ndx_cv_encode(ndx_cv_value v, int t, int from_float) {
  switch (t) {
  case NDX_DT_BOOL:
    return ndx_cv_encode_bool(v);
  case NDX_DT_I8:
    return ndx_cv_encode_integer(v, 8, 1, from_float);
  case NDX_DT_I16:
    return ndx_cv_encode_integer(v, 16, 1, from_float);
  case NDX_DT_I32:
    return ndx_cv_encode_integer(v, 32, 1, from_float);
  case NDX_DT_I64:
    return ndx_cv_encode_integer(v, 64, 1, from_float);
  case NDX_DT_U8:
    return ndx_cv_encode_integer(v, 8, 0, from_float);
  case NDX_DT_U16:
    return ndx_cv_encode_integer(v, 16, 0, from_float);
  case NDX_DT_U32:
    return ndx_cv_encode_integer(v, 32, 0, from_float);
  case NDX_DT_U64:
    return ndx_cv_encode_integer(v, 64, 0, from_float);
  case NDX_DT_I4:
    return ndx_cv_encode_integer(v, 4, 1, from_float);
  case NDX_DT_U4:
    return ndx_cv_encode_integer(v, 4, 0, from_float);
  case NDX_DT_F16:
    return ndx_cv_encode_f16(v);
  case NDX_DT_BF16:
    return ndx_cv_encode_bf16(v);
  case NDX_DT_F32:
    return ndx_cv_encode_f32(v);
  case NDX_DT_F64:
    return ndx_cv_encode_f64(v);
  case NDX_DT_F8E4M3FN:
    return ndx_cv_encode_f8e4m3fn(v);
  case NDX_DT_F8E5M2:
    return ndx_cv_encode_f8e5m2(v);
  case NDX_DT_F4E2M1FN:
    return ndx_cv_encode_f4e2m1fn(v);
  }
  return 0;
}

/* ---- Direct paths --------------------------------------------------------- */
/* Pairs whose general path reduces to a few operations on 32-bit integers
 * (every such pair has types of 32 bits and less), written without
 * branches (selects only) and on 32-bit words in and out, so that a loop
 * over elements vectorizes at 32-bit lanes (ndx-bench's "convert" cases). Each gives exactly the
 * general path's bits (tests/test_dtype.c checks every pattern of the sources of 16 bits and less,
 * and special, boundary and random f32 values). */

NDX_FN ndx_u32 ndx_cv_min32(ndx_u32 a, ndx_u32 b) {
  return a < b ? a : b;
}
NDX_FN int ndx_cv_clamp(int x, int lo, int hi) {
  return x < lo ? lo : x > hi ? hi : x;
}

/* bf16 to f32: bf16 is f32's top half; a NaN is made canonical. */
NDX_FN ndx_u32 ndx_cv_bf16_to_f32(ndx_u32 bits) {
  ndx_u32 b = bits & 0xffffu;
  return (b & 0x7fffu) > 0x7f80u ? (b & 0x8000u) << 16 | 0x7fc00000u : b << 16;
}

/* f32 to bf16: the top half rounded to nearest, ties to even, on the
 * 16 bits dropped (a carry into the exponent field makes the next binade
 * or infinity, as rounding does); a NaN is made canonical. */
NDX_FN ndx_u32 ndx_cv_f32_to_bf16(ndx_u32 b) {
  return (b & 0x7fffffffu) > 0x7f800000u ? (b >> 16 & 0x8000u) | 0x7fc0u
                                         : (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
}

/* The layout of the float types of 32 bits and less, for the direct paths:
 * exponent bits, significand bits (0 and 0 for every other type) and how
 * the largest exponent field is spent (NDX_CV_IEEE ..). */
NDX_FN int ndx_cv_ebits(int t) {
  switch (t) {
  case NDX_DT_F16:
  case NDX_DT_F8E5M2:
    return 5;
  case NDX_DT_BF16:
  case NDX_DT_F32:
    return 8;
  case NDX_DT_F8E4M3FN:
    return 4;
  case NDX_DT_F4E2M1FN:
    return 2;
  }
  return 0;
}
NDX_FN int ndx_cv_mbits(int t) {
  switch (t) {
  case NDX_DT_F16:
    return 10;
  case NDX_DT_BF16:
    return 7;
  case NDX_DT_F32:
    return 23;
  case NDX_DT_F8E4M3FN:
    return 3;
  case NDX_DT_F8E5M2:
    return 2;
  case NDX_DT_F4E2M1FN:
    return 1;
  }
  return 0;
}
NDX_FN int ndx_cv_style(int t) {
  return t == NDX_DT_F8E4M3FN ? NDX_CV_FN_NAN : t == NDX_DT_F4E2M1FN ? NDX_CV_FN_NONE : NDX_CV_IEEE;
}
NDX_FN int ndx_cv_bias(int t) {
  int e = ndx_cv_ebits(t);
  return e ? (1 << (e - 1)) - 1 : 0; /* 0 for a type that is no float */
}

/* m / 2^s rounded to nearest, ties to even, for 1 <= s <= 31 and
 * m < 2^31 - 2^(s-1): adding half less one, and one more when the kept
 * part is odd, carries exactly when the dropped part rounds up. (Every
 * shift is by s, an amount a compiler can prove below 32 after the
 * caller's ndx_cv_min32: no masking of shift amounts in OpenCL C.) */
NDX_FN ndx_u32 ndx_cv_shift_rne32(ndx_u32 m, ndx_u32 s) {
  return (m + ((1u << s) >> 1) - 1u + ((m >> s) & 1u)) >> s;
}

/* A float rounded once into one of fewer significand bits and an exponent
 * range no wider: `a` is the source's magnitude (its bits below the sign,
 * not a NaN) in a format of `sm` significand bits and bias `sb`, the
 * result the destination's magnitude (dm < sm, bias db <= sb), unclamped:
 * anything above the destination's largest finite pattern is the caller's
 * to map (infinity, NaN or saturation). The significand with its leading
 * one is shifted right by sm - dm, and by one more for each step of the
 * destination's exponent below its least normal (capped at 31: any shift
 * past sm + 1 gives 0), rounded, and added to the destination's exponent
 * field less one, so that the leading one (or a carry out of a rounding
 * up) counts in the exponent field. */
NDX_FN ndx_u32 ndx_cv_narrow(ndx_u32 a, int sm, int sb, int dm, int db) {
  int e = (int)(a >> sm);
  /* a source subnormal (exponent field 0) is the exponent field 1 without
   * the leading one; where the biases differ by dm + 2 or more, its shift
   * passes sm + 1 and it gives 0 as any value does (f32 -> f8e4m3fn) */
  int tiny = sb - db >= dm + 2;
  ndx_u32 m = (a & ((1u << sm) - 1u)) | (tiny || e ? 1u << sm : 0u);
  int de = (tiny || e > 1 ? e : 1) - (sb - db); /* the destination's exponent, below 1: subnormal */
  ndx_u32 base = de > 1 ? (ndx_u32)(de - 1) << dm : 0u;
  int s = sm - dm + (de < 1 ? 1 - de : 0);
  return base + ndx_cv_shift_rne32(m, ndx_cv_min32((ndx_u32)s, 31u));
}

/* 1 when ndx_cv_narrow_float takes the pair: an IEEE-style source of 32
 * bits or less into a float of fewer significand bits and no wider
 * exponent range. */
NDX_FN int ndx_cv_narrows(int src_t, int dst_t) {
  return ndx_cv_ebits(src_t) && ndx_cv_ebits(dst_t) && ndx_cv_style(src_t) == NDX_CV_IEEE &&
         ndx_cv_mbits(dst_t) < ndx_cv_mbits(src_t) && ndx_cv_ebits(dst_t) <= ndx_cv_ebits(src_t);
}

/* A float narrowed (ndx_cv_narrows) with the destination's rules past its
 * range and for NaN (f32 -> f16: "convert f32 -> f16 transpose"). */
NDX_FN ndx_u32 ndx_cv_narrow_float(ndx_u32 bits, int src_t, int dst_t) {
  int se = ndx_cv_ebits(src_t), sm = ndx_cv_mbits(src_t);
  int de = ndx_cv_ebits(dst_t), dm = ndx_cv_mbits(dst_t);
  ndx_u32 b = bits, a = b & ((1u << (se + sm)) - 1u);
  ndx_u32 sign = (b >> (se + sm) & 1u) << (de + dm);
  int nan = a > (((1u << se) - 1u) << sm);
  ndx_u32 r = ndx_cv_narrow(a, sm, ndx_cv_bias(src_t), dm, ndx_cv_bias(dst_t));
  if (dst_t == NDX_DT_F8E4M3FN) /* past 448: 0x7f; a NaN's exponent field puts it past too */
    return sign | ndx_cv_min32(r, 0x7fu);
  if (dst_t == NDX_DT_F4E2M1FN) /* saturating at 6; NaN: a zero of the other sign */
    return nan ? sign ^ 0x8u : sign | ndx_cv_min32(r, 0x7u);
  ndx_u32 inf = ((1u << de) - 1u) << dm;
  return sign | (nan ? inf | 1u << (dm - 1) : ndx_cv_min32(r, inf));
}

/* 1 when ndx_cv_widen_float takes the pair: a float of 32 bits or less
 * into an IEEE-style one that holds its every value exactly (no fewer
 * significand bits; the same exponent range or one that makes the
 * source's least subnormal normal). */
NDX_FN int ndx_cv_widens(int src_t, int dst_t) {
  int sb = ndx_cv_bias(src_t), db = ndx_cv_bias(dst_t);
  return ndx_cv_ebits(src_t) && ndx_cv_ebits(dst_t) && ndx_cv_style(dst_t) == NDX_CV_IEEE &&
         ndx_cv_mbits(dst_t) >= ndx_cv_mbits(src_t) && (db == sb || db >= sb + ndx_cv_mbits(src_t));
}

/* A float widened exactly (ndx_cv_widens): a normal value rebiases its
 * exponent field; a subnormal one (with a wider exponent range) becomes
 * normal, its leading one found by clz; the source's infinities
 * and NaNs become the destination's infinity and canonical NaN
 * (f8e4m3fn -> f32, f4e2m1fn -> f16: "convert f4e2m1fn -> f16"). */
NDX_FN ndx_u32 ndx_cv_widen_float(ndx_u32 bits, int src_t, int dst_t) {
  int se = ndx_cv_ebits(src_t), sm = ndx_cv_mbits(src_t), sb = ndx_cv_bias(src_t);
  int de = ndx_cv_ebits(dst_t), dm = ndx_cv_mbits(dst_t), db = ndx_cv_bias(dst_t);
  ndx_u32 b = bits, a = b & ((1u << (se + sm)) - 1u);
  ndx_u32 sign = (b >> (se + sm) & 1u) << (de + dm);
  ndx_u32 normal = (a << (dm - sm)) + ((ndx_u32)(db - sb) << dm);
  ndx_u32 m = a & ((1u << sm) - 1u);
  int c = ndx_clz32(m | 1u); /* m's leading one at bit 31 - c */
  ndx_u32 sub = ((ndx_u32)(31 - c + db - sb - sm) << dm) + ((m << c) >> (31 - dm));
  ndx_u32 r = a >= (1u << sm) || db == sb ? normal : a ? sub : 0u;
  ndx_u32 inf = ((1u << de) - 1u) << dm, nan = inf | 1u << (dm - 1);
  ndx_u32 sinf = ((1u << se) - 1u) << sm;
  if (ndx_cv_style(src_t) == NDX_CV_IEEE) r = a > sinf ? nan : a == sinf ? inf : r;
  if (ndx_cv_style(src_t) == NDX_CV_FN_NAN) r = a == (sinf | ((1u << sm) - 1u)) ? nan : r;
  return sign | r;
}

/* 1 for bool and the integer types of 16 bits and less, whose every value
 * an f32 holds exactly. */
NDX_FN int ndx_cv_small_int(int t) {
  return t == NDX_DT_BOOL || t == NDX_DT_I4 || t == NDX_DT_U4 || t == NDX_DT_I8 || t == NDX_DT_U8 ||
         t == NDX_DT_I16 || t == NDX_DT_U16;
}

/* An integer of 16 bits or less (ndx_cv_small_int) as f32 bits, exactly:
 * the magnitude's leading one, found by clz, sets the exponent ("convert
 * i8 -> f32 contiguous"). */
NDX_FN ndx_u32 ndx_cv_small_int_to_f32(ndx_u32 bits, int src_t) {
  int w = ndx_cv_bits(src_t);
  int is_signed = src_t == NDX_DT_I4 || src_t == NDX_DT_I8 || src_t == NDX_DT_I16;
  ndx_u32 mask = (1u << w) - 1u, b = (ndx_u32)bits & mask;
  ndx_u32 neg = is_signed ? b >> (w - 1) : 0u;
  ndx_u32 mag = src_t == NDX_DT_BOOL ? (b ? 1u : 0u) : neg ? (0u - b) & mask : b;
  int c = ndx_clz32(mag | 1u); /* the leading one at bit 31 - c */
  ndx_u32 f = ((ndx_u32)(157 - c) << 23) + ((mag << c) >> 8);
  return neg << 31 | (mag ? f : 0u);
}

/* f32 bits as an integer of `width` <= 32 bits, signed or not: truncated
 * toward zero (the significand shifted by the exponent, right by up to 31
 * or left by up to 8), saturating at the type's range (from 2^32 up,
 * infinities too), NaN to 0 ("convert" of f32 to i8, u8, i32). */
NDX_FN ndx_u32 ndx_cv_f32_to_int(ndx_u32 b, int width, int is_signed) {
  ndx_u32 a = b & 0x7fffffffu;
  int e = (int)(a >> 23);
  ndx_u32 m = (a & 0x7fffffu) | 0x800000u;
  ndx_u32 t = (m >> ndx_cv_clamp(150 - e, 0, 31)) << ndx_cv_clamp(e - 150, 0, 8);
  t = a >= 0x4f800000u ? 0xffffffffu : t;
  ndx_u32 mask = width >= 32 ? 0xffffffffu : (1u << width) - 1u;
  ndx_u32 top = is_signed ? mask >> 1 : mask, low = is_signed ? (mask >> 1) + 1u : 0u;
  ndx_u32 r = b >> 31 ? (0u - ndx_cv_min32(t, low)) & mask : ndx_cv_min32(t, top);
  return a > 0x7f800000u ? 0u : r;
}

/* A float of 32 bits or less as f32 bits, exactly (NaN as a NaN). */
NDX_FN ndx_u32 ndx_cv_to_f32(ndx_u32 bits, int src_t) {
  if (src_t == NDX_DT_F32) return bits;
  if (src_t == NDX_DT_BF16) return ndx_cv_bf16_to_f32(bits);
  return ndx_cv_widen_float(bits, src_t, NDX_DT_F32);
}

/* f32 bits into a float of 32 bits or less, rounded once. */
NDX_FN ndx_u32 ndx_cv_from_f32(ndx_u32 b, int dst_t) {
  if (dst_t == NDX_DT_F32) return b;
  if (dst_t == NDX_DT_BF16) return ndx_cv_f32_to_bf16(b);
  return ndx_cv_narrow_float(b, NDX_DT_F32, dst_t);
}

/* An integer destination of 32 bits or less and its signedness. */
NDX_FN int ndx_cv_int32_dst(int t) {
  return t == NDX_DT_I4 || t == NDX_DT_U4 || t == NDX_DT_I8 || t == NDX_DT_U8 || t == NDX_DT_I16 ||
         t == NDX_DT_U16 || t == NDX_DT_I32 || t == NDX_DT_U32;
}
NDX_FN int ndx_cv_signed(int t) {
  return t == NDX_DT_I4 || t == NDX_DT_I8 || t == NDX_DT_I16 || t == NDX_DT_I32 || t == NDX_DT_I64;
}

/* The pair's direct path, for a pair that has one (ndx_cv_has_direct). */
NDX_FN int ndx_cv_has_direct(int src_t, int dst_t) {
  if (src_t == dst_t) return 0;
  if (ndx_cv_narrows(src_t, dst_t) || ndx_cv_widens(src_t, dst_t)) return 1;
  if (ndx_cv_small_int(src_t) && ndx_cv_ebits(dst_t)) return 1;
  return ndx_cv_ebits(src_t) && ndx_cv_int32_dst(dst_t);
}
NDX_FN ndx_u32 ndx_cv_direct(ndx_u32 bits, int src_t, int dst_t) {
  if (src_t == NDX_DT_BF16 && dst_t == NDX_DT_F32) return ndx_cv_bf16_to_f32(bits);
  if (src_t == NDX_DT_F32 && dst_t == NDX_DT_BF16) return ndx_cv_f32_to_bf16(bits);
  if (ndx_cv_narrows(src_t, dst_t)) return ndx_cv_narrow_float(bits, src_t, dst_t);
  if (ndx_cv_widens(src_t, dst_t)) return ndx_cv_widen_float(bits, src_t, dst_t);
  if (ndx_cv_small_int(src_t)) return ndx_cv_from_f32(ndx_cv_small_int_to_f32(bits, src_t), dst_t);
  return ndx_cv_f32_to_int(ndx_cv_to_f32(bits, src_t), ndx_cv_bits(dst_t), ndx_cv_signed(dst_t));
}

/* ---- The conversion ------------------------------------------------------- */

/* The destination bits of the value whose source bits are `src_bits`, of
 * type `src_t` (its low ndx_dtype_bits bits; the others are ignored), in
 * type `dst_t`: the low ndx_dtype_bits(dst_t) bits of the result, every
 * higher bit 0. The same type on both sides returns the source's bits. */
NDX_FN ndx_u64 ndx_convert_bits(ndx_u64 src_bits, int src_t, int dst_t) {
  if (ndx_cv_has_direct(src_t, dst_t)) return ndx_cv_direct((ndx_u32)src_bits, src_t, dst_t);
  if (src_t == dst_t) return src_bits & ndx_cv_mask(ndx_cv_bits(src_t));
  return ndx_cv_encode(ndx_cv_decode(src_bits, src_t), dst_t, ndx_cv_is_float(src_t));
}

#endif /* NDX_CONVERT_H */
