/* dlpack.c: layouts to and from DLPack's DLTensor (REFERENCE.md section 6).
 *
 * Both directions only translate units: DLPack counts shape and strides in
 * elements, as ndx does, and the start in bytes, where ndx counts elements. The
 * limits are ndx_make's (through ndx_build), so an imported layout passes
 * exactly the checks every other layout passes. */
#include <stdio.h>

#include "copy_plan.h"
#include "ndx/ndx_dlpack.h"
#include "ndx_internal.h"

/* DLPack's type codes by number, for messages only: nothing here depends on
 * the code, and numbers past the installed header's enum are named too. */
static const char *const code_names[] = {
    "int",
    "uint",
    "float",
    "handle",
    "bfloat",
    "complex",
    "bool",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
};

/* "{code 2 (float), bits 8, lanes 3}" */
static const char *dtype_text(char *buf, size_t size, DLDataType d) {
  const size_t known = sizeof code_names / sizeof code_names[0];
  snprintf(buf, size, "{code %u (%s), bits %u, lanes %u}", (unsigned)d.code,
           d.code < known ? code_names[d.code] : "unknown", (unsigned)d.bits, (unsigned)d.lanes);
  return buf;
}

/* The element position of byte_offset for `width`-bit elements into *pos.
 * Returns NDX_OK, NDX_EUNSUPPORTED when it is not a whole number of elements,
 * NDX_ERANGE when the position passes 2^53 - 1 (where no element may start). */
static ndx_status offset_position(uint64_t byte_offset, int width, int64_t *pos) {
  static const char *call = "ndx_dlpack_import";
  uint64_t p;
  bool fits;
  if (width >= 8) {
    uint64_t bytes = (uint64_t)width / 8;
    if (byte_offset % bytes != 0)
      return ndx_fail(NDX_EUNSUPPORTED,
                      "%s: t->byte_offset %llu is not a whole number of %d-bit elements", call,
                      (unsigned long long)byte_offset, width);
    p = byte_offset / bytes;
    fits = true;
  } else {
    uint64_t per_byte = 8 / (uint64_t)width; /* packed: every byte starts an element */
    fits = !__builtin_mul_overflow(byte_offset, per_byte, &p);
  }
  if (!fits || p >= (uint64_t)NDX_MAX_NUMEL) {
    char where[32];
    if (fits)
      snprintf(where, sizeof where, "%llu", (unsigned long long)p);
    else
      snprintf(where, sizeof where, "above UINT64_MAX");
    return ndx_fail(NDX_ERANGE,
                    "%s: t->byte_offset %llu is element position %s of %d bits, past 2^53 - 1",
                    call, (unsigned long long)byte_offset, where, width);
  }
  *pos = (int64_t)p;
  return NDX_OK;
}

ndx_status ndx_dlpack_import(ndx_layout *out, int *bits, const DLTensor *t) {
  static const char *call = "ndx_dlpack_import";
  if (!t) return ndx_fail(NDX_EINVAL, "%s: t is NULL", call);
  if (!out) return ndx_fail(NDX_EINVAL, "%s: out is NULL", call);
  if (!bits) return ndx_fail(NDX_EINVAL, "%s: bits is NULL", call);
  int rank = t->ndim;
  if (rank < 0) return ndx_fail(NDX_EINVAL, "%s: t->ndim is %d, negative", call, rank);
  if (rank > NDX_MAX_RANK)
    return ndx_fail(NDX_ERANGE, "%s: t->ndim is %d, past the limit of %d axes", call, rank,
                    NDX_MAX_RANK);
  int64_t numel;
  ndx_status st = ndx_check_shape(call, "t->shape", rank, t->shape, &numel);
  if (st != NDX_OK) return st;

  /* uint8 bits times uint16 lanes fits in int */
  int width = (int)t->dtype.bits * (int)t->dtype.lanes;
  char dtype[80];
  if (!ndx_copy_bits_ok(width))
    return ndx_fail(NDX_EUNSUPPORTED,
                    "%s: t->dtype %s is %d bits wide, not one of 1, 2, 4, 8, 16, 32, 64, 128", call,
                    dtype_text(dtype, sizeof dtype, t->dtype), width);
  if (t->dtype.lanes > 1 && width < 8)
    return ndx_fail(NDX_EUNSUPPORTED,
                    "%s: t->dtype %s is a vector of %u lanes in %d bits, less than a byte: "
                    "DLPack does not say how its lanes pack",
                    call, dtype_text(dtype, sizeof dtype, t->dtype), (unsigned)t->dtype.lanes,
                    width);

  /* No element: the canonical form drops the offset, so it needs no check
   * (as ndx_make drops an empty layout's offset). */
  int64_t offset = 0;
  if (numel > 0) {
    st = offset_position(t->byte_offset, width, &offset);
    if (st != NDX_OK) return st;
  }

  int64_t compact[NDX_MAX_RANK];
  const int64_t *strides = t->strides;
  if (!strides) {
    int64_t step = 1;
    for (int a = rank - 1; a >= 0; a--) {
      compact[a] = step;
      if (t->shape[a] > 0) step *= t->shape[a]; /* bounded by numel <= 2^53 */
    }
    strides = compact;
  }
  ndx_layout l;
  st = ndx_build(call, &l, rank, t->shape, strides, offset);
  if (st != NDX_OK) return st;
  *out = l;
  *bits = width;
  return NDX_OK;
}

ndx_status ndx_dlpack_export(DLTensor *t, const ndx_layout *l, int bits) {
  static const char *call = "ndx_dlpack_export";
  if (!t) return ndx_fail(NDX_EINVAL, "%s: t is NULL", call);
  if (!l) return ndx_fail(NDX_EINVAL, "%s: l is NULL", call);
  /* No ndx_ call makes a negative offset; the rule is still DLPack's
   * (byte_offset is unsigned), so it is named before the general check. */
  if (l->offset < 0)
    return ndx_fail(NDX_EUNSUPPORTED,
                    "%s: l->offset %lld is negative; t->byte_offset (unsigned) cannot express it",
                    call, (long long)l->offset);
  ndx_status st = ndx_check_layout(call, "l", l);
  if (st != NDX_OK) return st;
  if (l->rank > 0 && !t->shape)
    return ndx_fail(NDX_EINVAL, "%s: t->shape is NULL at rank %d: pass an array of %d entries",
                    call, (int)l->rank, (int)l->rank);
  if (l->rank > 0 && !t->strides)
    return ndx_fail(NDX_EINVAL,
                    "%s: t->strides is NULL at rank %d: pass an array of %d entries (export "
                    "always fills strides)",
                    call, (int)l->rank, (int)l->rank);
  if (!ndx_copy_bits_ok(bits))
    return ndx_fail(NDX_EINVAL, "%s: bits is %d, not one of 1, 2, 4, 8, 16, 32, 64, 128", call,
                    bits);
  int64_t offset = l->offset;
  if (offset >= NDX_MAX_NUMEL) /* keeps offset * bits in int64 */
    return ndx_fail(NDX_EINVAL, "%s: l->offset %lld is past 2^53 - 1: not a layout ndx_ calls make",
                    call, (long long)offset);
  int64_t bit = offset * bits; /* < 2^53 * 128 */
  if (bit % 8 != 0)
    return ndx_fail(NDX_EUNSUPPORTED,
                    "%s: l->offset %lld of %d-bit elements starts at bit %lld of byte %lld; "
                    "a DLTensor has no bit offset",
                    call, (long long)offset, bits, (long long)(bit % 8), (long long)(bit / 8));

  /* Lanes: keep the caller's vector split where it divides the width (and the
   * result is one ndx_dlpack_import reads back: a vector of at least 8 bits). */
  unsigned lanes = t->dtype.lanes;
  if (bits < 8 || lanes < 1 || bits % (int)lanes != 0) lanes = 1;

  t->ndim = l->rank;
  for (int a = 0; a < l->rank; a++) {
    t->shape[a] = l->shape[a];
    t->strides[a] = l->strides[a];
  }
  t->byte_offset = (uint64_t)(bit / 8);
  t->dtype.bits = (uint8_t)(bits / (int)lanes);
  t->dtype.lanes = (uint16_t)lanes;
  return NDX_OK;
}
