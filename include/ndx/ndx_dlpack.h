/* ndx_dlpack.h: layouts to and from DLPack's DLTensor (dlpack/dlpack.h).
 *
 * This header and its two calls exist only when libndx was built with DLPack
 * (meson option `dlpack`, on when dlpack/dlpack.h is found): if it is
 * installed, libndx has them. ndx.h does not include it, so that the umbrella
 * compiles where DLPack is not installed; include it yourself. Written against
 * DLPack 0.6 (Debian's libdlpack-dev) and valid for 1.x, whose DLTensor is the
 * same.
 *
 * A DLTensor's shape and strides count elements, its byte_offset counts bytes
 * from `data`; an ndx layout's positions count elements from the first byte of
 * a buffer. `data` is that first byte: byte_offset becomes the layout's offset,
 * and `data` and `device` are never read or written here, so a `cl_mem` or a
 * CUDA pointer in `data` is fine (views use byte_offset, never pointer
 * arithmetic on `data`).
 *
 * Element width. One element is dtype.bits * dtype.lanes bits wide: a vector
 * of lanes is one element (float32 with 4 lanes is a 128-bit element), since
 * ndx copies bits and never looks at them. The width must be one that ndx
 * copies: 1, 2, 4, 8, 16, 32, 64 or 128 bits. A vector narrower than a byte
 * (lanes > 1 and bits * lanes < 8) is refused: DLPack does not say how its
 * lanes pack. dtype.code is never read, so every code (int, uint, float,
 * bfloat, complex, bool, the float8 and float4 codes of DLPack 1.1, the
 * opaque handle) is accepted at any width above; a float6 (6 bits) is refused
 * by its width. Sub-byte elements (1, 2 or 4 bits) are packed little
 * bit-endian, as in ndx and DLPack: element p is bits p*b .. p*b+b-1, bit 8q+r
 * being bit r of byte q. A DLPack 1.x tensor flagged
 * DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED keeps each sub-byte element in a
 * byte of its own: import a copy of it with dtype.bits set to 8.
 *
 * Example: a transposed view of a DLPack tensor, as a DLTensor on the same data.
 *
 *   #include <ndx/ndx_dlpack.h>
 *
 *   ndx_layout l, t;
 *   int bits;
 *   if (ndx_dlpack_import(&l, &bits, &managed->dl_tensor) != NDX_OK)
 *     return report(ndx_last_error()); // "ndx_dlpack_import: t->byte_offset 2 is
 *                                      //  not a whole number of 32-bit elements"
 *   if (ndx_transpose(&t, &l, 0, 1) != NDX_OK) return report(ndx_last_error());
 *   int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK];
 *   DLTensor view = managed->dl_tensor;  // same data, device and dtype
 *   view.shape = shape;                  // arrays the caller owns
 *   view.strides = strides;
 *   ndx_dlpack_export(&view, &t, bits);  // view: the transpose, strides filled
 */
#ifndef NDX_DLPACK_H
#define NDX_DLPACK_H

#include <dlpack/dlpack.h>

#include "ndx_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The layout of `t` into *out and its element width (bits * lanes) into *bits.
 * t->shape and t->strides count elements; NULL strides mean compact row-major.
 * t->byte_offset becomes the offset in elements: byte_offset * 8 / width, which
 * must be a whole number. A tensor with no element gets offset 0 and strides 0
 * (the canonical form), whatever its byte_offset and strides. t->data,
 * t->device and t->dtype.code are not read.
 * Returns NDX_OK; NDX_EINVAL when `out`, `bits`, `t`, or t->shape at ndim > 0
 * is NULL, when t->ndim is negative, or for a negative extent; NDX_ERANGE when
 * t->ndim passes NDX_MAX_RANK, when the extents multiply past NDX_MAX_NUMEL,
 * when (d-1)*|s| overflows int64 (INT64_MIN included), when byte_offset is an
 * element position past 2^53 - 1, or when a position is negative or the span
 * ends past NDX_MAX_NUMEL; NDX_EUNSUPPORTED when the width is not 1, 2, 4, 8,
 * 16, 32, 64 or 128 bits (bits or lanes 0 included), when lanes > 1 and the
 * width is below 8 bits, or when byte_offset is not a whole number of
 * elements. On failure *out and *bits are untouched and ndx_last_error()
 * names ndx_dlpack_import, the field, the axis and the values.
 * O(ndim), no allocation. */
ndx_status ndx_dlpack_import(ndx_layout *out, int *bits, const DLTensor *t);

/* Describes `l` with `bits`-bit elements in `t`: writes t->ndim (l->rank),
 * t->shape[0 .. rank-1], t->strides[0 .. rank-1] (always, never NULL strides:
 * l's canonical strides, so 0 on extent-1 axes and everywhere in a layout with
 * no element), t->byte_offset (offset * bits / 8) and t->dtype.bits and
 * t->dtype.lanes. t->shape and t->strides must point to arrays the caller
 * provides, each at least l->rank entries long (they may be NULL at rank 0);
 * nothing past entry rank-1 is written. t->dtype.code, t->data and t->device
 * are left as the caller set them. Lanes: the caller's t->dtype.lanes is kept
 * when bits >= 8 and it divides bits, and then t->dtype.bits = bits / lanes
 * (a 128-bit element with lanes 4 stays a vector of four 32-bit lanes);
 * otherwise lanes becomes 1 and t->dtype.bits = bits. ndx_dlpack_import reads
 * every result back as `l` and `bits`.
 * Returns NDX_OK; NDX_EINVAL when `t` or `l` is NULL, `l` is not a layout
 * ndx_ calls make (a rank outside [0, NDX_MAX_RANK], an offset past
 * NDX_MAX_NUMEL, ...), t->shape or t->strides is NULL at rank > 0, or `bits`
 * is not 1, 2, 4, 8, 16, 32, 64 or 128; NDX_EUNSUPPORTED when the offset
 * cannot be a byte_offset: negative (checked first), or a sub-byte view that
 * starts inside a byte (offset * bits not a multiple of 8; DLTensor has no bit
 * offset). On failure *t and its arrays are untouched and ndx_last_error()
 * says why. O(rank), no allocation. */
ndx_status ndx_dlpack_export(DLTensor *t, const ndx_layout *l, int bits);

#ifdef __cplusplus
}
#endif

#endif /* NDX_DLPACK_H */
