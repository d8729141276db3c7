/* ndx_dlpack.h: layouts to and from DLPack's DLTensor (dlpack/dlpack.h).
 *
 * This header and its four calls exist only when libndx was built with DLPack
 * (meson option `dlpack`, on when dlpack/dlpack.h is found): if it is
 * installed, libndx has them. ndx.h does not include it, so that the umbrella
 * compiles where DLPack is not installed; include it yourself. Written against
 * DLPack 0.6 (Debian's libdlpack-dev) and valid for 1.x, whose DLTensor is the
 * same.
 *
 * A DLTensor's shape and strides count elements, its byte_offset counts bytes
 * from `data`; an ndx layout's positions count elements from one byte, its
 * base. Export makes `data` the base: the layout's offset becomes byte_offset.
 * Import does the same (byte_offset folded into the offset) for every tensor
 * that reaches no byte below `data`. A producer may also point `data` at
 * element [0,...,0] of a view with negative strides, so that the view reaches
 * bytes below `data` (NumPy's `a[::-1]` and `np.flip` do, with byte_offset
 * 0); positions cannot be negative, so import then moves the base down to
 * the whole byte at or below the lowest element and reports how far in its
 * base_shift: positions count from byte (char *)data + base_shift, with
 * base_shift <= 0, and 0 exactly when nothing lies below `data`.
 *
 * `data` and `device` are never read or written here, so a `cl_mem` or a CUDA
 * pointer in `data` is fine.
 *   - A pointer device (CPU, CUDA, ROCm, ...): the base is
 *     (char *)t->data + base_shift, a pointer into the same allocation, since
 *     the bytes it points to are the tensor's own lowest ones.
 *   - A `cl_mem` (kDLOpenCL): DLPack carries views of a cl_mem in byte_offset
 *     from the buffer's first byte and a buffer holds every byte of its
 *     tensors, so a valid cl_mem tensor never needs a shift: base_shift is 0
 *     and positions count from the cl_mem's first byte, as ndx_cl_copy wants.
 *     Pass NULL for base_shift to have ndx refuse the tensors that would need
 *     one, or check that it is 0. A non-zero shift means elements before the
 *     buffer's first byte: a producer that broke the rule, or a sub-buffer
 *     whose view reaches before its origin in its parent. In the second case
 *     work on the parent, at byte (origin + base_shift) of it, which must be
 *     >= 0: add (origin + base_shift) * 8 / bits to the layout's offset
 *     (ndx_make with the same shape and strides), or create a sub-buffer of
 *     the parent at that origin where OpenCL's alignment rules allow.
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
 * Example: a transposed view of a DLPack tensor on a pointer device, as a
 * DLTensor on the same data.
 *
 *   #include <ndx/ndx_dlpack.h>
 *
 *   ndx_layout l, t;
 *   int bits;
 *   int64_t shift;
 *   if (ndx_dlpack_import(&l, &bits, &shift, &managed->dl_tensor) != NDX_OK)
 *     return report(ndx_last_error()); // "ndx_dlpack_import: t->byte_offset 2 is
 *                                      //  not a whole number of 32-bit elements"
 *   char *base = (char *)managed->dl_tensor.data + shift;  // positions count from here
 *   if (ndx_transpose(&t, &l, 0, 1) != NDX_OK) return report(ndx_last_error());
 *   int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK];
 *   DLTensor view = managed->dl_tensor;  // same device and dtype
 *   view.data = base;                    // export counts byte_offset from the base
 *   view.shape = shape;                  // arrays the caller owns
 *   view.strides = strides;
 *   ndx_dlpack_export(&view, &t, bits);  // view: the transpose, strides filled
 *
 * docs/dlpack.md has the rules in full, with NumPy's tensors as examples.
 */
#ifndef NDX_DLPACK_H
#define NDX_DLPACK_H

#include <dlpack/dlpack.h>

#include "ndx_dtype.h"
#include "ndx_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The layout of `t` into *out, its element width (bits * lanes) into *bits and
 * the byte its positions count from into *base_shift, as bytes from t->data.
 * t->shape and t->strides count elements; NULL strides mean compact row-major.
 * t->byte_offset is element position byte_offset * 8 / width from t->data,
 * which must be a whole number.
 *
 * The base: when no element lies below t->data, *base_shift is 0 and the
 * offset is that position, byte_offset * 8 / width: positions count from
 * t->data. When some element does (negative strides reach back further than
 * byte_offset covers), *base_shift is the negative whole number of bytes
 * closest to 0 that makes every position >= 0: -ceil(b / 8) for an element
 * starting b bits below t->data at the lowest, and positions count from byte
 * (char *)t->data + *base_shift. The lowest position is then 0 for widths of
 * 8 bits or more (and *base_shift a whole number of elements: alignment is
 * kept) and below 8 / width, inside the base byte, for sub-byte widths.
 * `base_shift` may be NULL when the caller cannot move its base (a cl_mem, see
 * above): a tensor that needs a shift is then NDX_ERANGE.
 *
 * A tensor with no element gets offset 0, strides 0 (the canonical form) and
 * shift 0, whatever its byte_offset and strides. t->data, t->device and
 * t->dtype.code are not read.
 * Returns NDX_OK; NDX_EINVAL when `out`, `bits`, `t`, or t->shape at ndim > 0
 * is NULL, when t->ndim is negative, or for a negative extent; NDX_ERANGE when
 * t->ndim passes NDX_MAX_RANK, when the extents multiply past NDX_MAX_NUMEL,
 * when (d-1)*|s| overflows int64 (INT64_MIN included), when byte_offset is an
 * element position past 2^53 - 1, when an element lies below t->data and
 * base_shift is NULL, or when the positions from the base end past
 * NDX_MAX_NUMEL (2^53 or more elements below t->data included);
 * NDX_EUNSUPPORTED when the width is not 1, 2, 4, 8, 16, 32, 64 or 128 bits
 * (bits or lanes 0 included), when lanes > 1 and the width is below 8 bits, or
 * when byte_offset is not a whole number of elements. On failure *out, *bits
 * and *base_shift are untouched and ndx_last_error() names ndx_dlpack_import,
 * the field, the axis and the values. O(ndim), no allocation. */
NDX_API ndx_status ndx_dlpack_import(ndx_layout *out, int *bits, int64_t *base_shift,
                                     const DLTensor *t);

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
 * every result back as `l` and `bits`, with base_shift 0. t->data must be the
 * byte l's positions count from (its base): an imported layout's is
 * (char *)t->data + base_shift, not t->data.
 * Returns NDX_OK; NDX_EINVAL when `t` or `l` is NULL, `l` is not a layout
 * ndx_ calls make (a rank outside [0, NDX_MAX_RANK], an offset past
 * NDX_MAX_NUMEL, ...), t->shape or t->strides is NULL at rank > 0, or `bits`
 * is not 1, 2, 4, 8, 16, 32, 64 or 128; NDX_EUNSUPPORTED when the offset
 * cannot be a byte_offset: negative (checked first), or a sub-byte view that
 * starts inside a byte (offset * bits not a multiple of 8; DLTensor has no bit
 * offset). On failure *t and its arrays are untouched and ndx_last_error()
 * says why. O(rank), no allocation. */
NDX_API ndx_status ndx_dlpack_export(DLTensor *t, const ndx_layout *l, int bits);

/* The number type of DLPack type `dt` into *out, so that a tensor a
 * producer hands over converts by its real type (ndx_cl_convert). One lane
 * of: kDLBool at 8 bits (NDX_BOOL); kDLInt and kDLUInt at 8, 16, 32 and 64
 * bits (NDX_I8 .. NDX_U64) and at 4 (NDX_I4, NDX_U4); kDLFloat at 16, 32 and
 * 64 (NDX_F16, NDX_F32, NDX_F64); kDLBfloat at 16 (NDX_BF16); DLPack 1.1's
 * kDLFloat8_e4m3fn and kDLFloat8_e5m2 at 8 and kDLFloat4_e2m1fn at 4 (codes
 * 10, 12 and 17, read by number, so a DLPack 0.6 header does too).
 * Returns NDX_OK; NDX_EINVAL when `out` is NULL; NDX_EUNSUPPORTED for any
 * other code, width or lane count (complex, the fnuz and e8m0 float8s, the
 * float6s, vectors), naming the code, bits and lanes. On failure *out is
 * untouched. O(1), no allocation. */
NDX_API ndx_status ndx_dlpack_dtype(ndx_dtype *out, DLDataType dt);

/* The DLPack type of `t` into *out: the code and bits ndx_dlpack_dtype
 * reads back as `t`, lanes 1. Returns NDX_OK; NDX_EINVAL when `out` is NULL
 * or `t` is not an ndx_dtype, *out then untouched. O(1), no allocation. */
NDX_API ndx_status ndx_dlpack_from_dtype(DLDataType *out, ndx_dtype t);

#ifdef __cplusplus
}
#endif

#endif /* NDX_DLPACK_H */
