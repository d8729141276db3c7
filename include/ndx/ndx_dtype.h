/* ndx_dtype.h: the number types of ndx's converting copies, their widths
 * and their names.
 *
 * A converting copy writes element i, in C order, of a source of one type
 * into element i of a destination of another, its value converted by these
 * rules, bit for bit the same on every device (one type on both sides is a
 * plain copy of the bits):
 *   - float to float (f16, bf16, f32, f64, f8e4m3fn, f8e5m2, f4e2m1fn): as
 *     ml_dtypes 0.7's astype: rounded once, to nearest with ties to even;
 *     past the largest finite value after rounding, f16, bf16, f32, f64
 *     and f8e5m2 give infinity, f8e4m3fn NaN and f4e2m1fn +-6 (infinities
 *     alike);
 *   - integer or bool to float: rounded once, to nearest with ties to even;
 *   - float to integer: truncated toward zero, saturating at the integer
 *     type's range (infinities too), NaN to 0;
 *   - integer to integer: two's-complement wrap into the destination's
 *     width (i4 and u4 into 4 bits);
 *   - to bool: zero (and -0.0) gives 0, anything else 1, NaN included;
 *     from bool: 0 or 1 (a byte other than 0 reads as 1);
 *   - a NaN gives the destination's canonical quiet NaN with the source's
 *     sign, its payload dropped: f16 0x7e00, bf16 0x7fc0, f32 0x7fc00000,
 *     f64 0x7ff8000000000000, f8e4m3fn 0x7f, f8e5m2 0x7e, the sign bit
 *     added for a negative NaN; f4e2m1fn, which has none, gives a zero of
 *     the opposite sign (as ml_dtypes 0.7 does).
 *
 * Elements are little-endian; the 4-bit types are packed two a byte, least
 * significant nibble first, as ndx's other sub-byte elements (ndx_layout.h:
 * element p occupies bits 4p .. 4p+3). */
#ifndef NDX_DTYPE_H
#define NDX_DTYPE_H

#include "ndx_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* clang-format off */
typedef enum ndx_dtype {
  NDX_BOOL,                            /* 8 bits, 0 or 1                    */
  NDX_I8, NDX_I16, NDX_I32, NDX_I64,   /* two's complement                  */
  NDX_U8, NDX_U16, NDX_U32, NDX_U64,
  NDX_I4, NDX_U4,                      /* 4 bits, packed LSB-first          */
  NDX_F16, NDX_BF16, NDX_F32, NDX_F64, /* IEEE binary16/32/64, bfloat16     */
  NDX_F8E4M3FN, NDX_F8E5M2,            /* OCP FP8 (as ml_dtypes names them) */
  NDX_F4E2M1FN,                        /* OCP FP4, 4 bits, packed LSB-first */
} ndx_dtype;
/* clang-format on */

/* The width of an element of type `t` in bits: 4, 8, 16, 32 or 64; 0 for a
 * value outside the enum. Never fails. O(1). */
NDX_API int ndx_dtype_bits(ndx_dtype t);

/* The name of type `t`, as ml_dtypes and NumPy spell it in short: "bool",
 * "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "i4", "u4", "f16",
 * "bf16", "f32", "f64", "f8e4m3fn", "f8e5m2", "f4e2m1fn". A static string;
 * NULL for a value outside the enum. Never fails. O(1). */
NDX_API const char *ndx_dtype_name(ndx_dtype t);

/* The type named `name` (one of ndx_dtype_name's names, exactly: case
 * matters) into `*out`. Returns NDX_OK; NDX_EINVAL for a NULL argument or
 * another name, with ndx_last_error() naming the argument, the value and
 * the valid names. On failure `*out` is untouched. O(length of the name),
 * no allocation. */
NDX_API ndx_status ndx_dtype_parse(ndx_dtype *out, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* NDX_DTYPE_H */
