/* convert_ref.h: the host reference of ndx's value conversions between its
 * 18 number types (ndx_dtype.h), the oracle the conversion suites compare
 * kernels/ndx_convert.h and the device copies against.
 *
 * Written apart from kernels/ndx_convert.h, by another method: a float
 * destination's result is found by a binary search over its ordered bit
 * patterns, comparing exact values (integer times a power of two), not by
 * shifting and rounding bits; each format is described by literals of its
 * specification (largest finite pattern, canonical NaN) rather than
 * derived; integers go through 128-bit arithmetic. One function per rule of
 * the conversion (ndx_dtype.h states them).
 *
 * Bits are an element's raw bits in the low ndx_dtype_bits(t) bits of a
 * uint64_t; results have every higher bit 0. */
#ifndef NDX_TEST_CONVERT_REF_H
#define NDX_TEST_CONVERT_REF_H

#include <stdint.h>

#include "ndx/ndx_dtype.h"

/* The bits of type `to` that the value of bits `bits` of type `from`
 * converts to; the same type on both sides gives the bits back. `from` and
 * `to` must be in the enum. */
uint64_t ref_convert(uint64_t bits, ndx_dtype from, ndx_dtype to);

/* Element `pos` of `bits` bits (4, 8, 16, 32 or 64) of a little-endian
 * buffer whose first byte is `buf`: element p occupies bits p*bits ..
 * p*bits+bits-1, bit 8q+r being bit r of byte q. */
uint64_t ref_load(const void *buf, int64_t pos, int bits);

/* Writes the low `bits` bits of `v` as element `pos`, every other bit of the
 * buffer left as it was. */
void ref_store(void *buf, int64_t pos, int bits, uint64_t v);

/* Element `dst_pos` of `dst` (type dst_t) becomes element `src_pos` of
 * `src` (type src_t) converted: what a converting copy does to element i
 * of C order, given the positions its two layouts map i to. */
void ref_convert_elem(void *dst, int64_t dst_pos, ndx_dtype dst_t, const void *src, int64_t src_pos,
                      ndx_dtype src_t);

#endif /* NDX_TEST_CONVERT_REF_H */
