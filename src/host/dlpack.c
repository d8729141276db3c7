/* dlpack.c: layouts and number types to and from DLPack's DLTensor and
 * DLDataType (the rules: docs/dlpack.md).
 *
 * Layouts, both directions, only translate units: DLPack counts shape and strides in
 * elements, as ndx does, and the start in bytes, where ndx counts elements. The
 * limits are ndx_make's (through ndx_build), so an imported layout passes
 * exactly the checks every other layout passes; import alone may count them from
 * a few bytes before `data` (the base shift), for views reaching below it. */
#include <stdio.h>

#include "ndx/ndx_dlpack.h"
#include "ndx_internal.h"

/* DLPack's type codes by number, for messages (numbers past the installed
 * header's enum are named too). Layouts never depend on the code; the
 * number types below do. */
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
      return ndx_set_error(NDX_EUNSUPPORTED,
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
    return ndx_set_error(NDX_ERANGE,
                         "%s: t->byte_offset %llu is element position %s of %d bits, past 2^53 - 1",
                         call, (unsigned long long)byte_offset, where, width);
  }
  *pos = (int64_t)p;
  return NDX_OK;
}

/* Where a tensor's element positions start, relative to t->data: the lowest
 * and highest positions it reaches (lo <= p0 <= hi, p0 = byte_offset in
 * elements), each with a flag saying it fits in int64. */
typedef struct reach {
  int64_t lo, hi;
  bool lo_ok, hi_ok;
} reach;

/* The reach of positions p0 + sum i*s over `shape` and `strides`. Refuses an
 * axis of extent d > 1 whose (d-1)*|s| overflows int64 (INT64_MIN included),
 * naming the field, even in a tensor with no element: ndx_make refuses it too.
 * Compact strides (t->strides NULL) never overflow: they are bounded by the
 * element count. */
static ndx_status tensor_reach(int rank, const int64_t *shape, const int64_t *strides, int64_t p0,
                               reach *r) {
  static const char *call = "ndx_dlpack_import";
  *r = (reach){p0, p0, true, true};
  for (int a = 0; a < rank; a++) {
    if (shape[a] <= 1) continue;
    int64_t s = strides[a], extent;
    if (s == INT64_MIN || !ndx_mul_ok(shape[a] - 1, s < 0 ? -s : s, &extent))
      return ndx_set_error(NDX_ERANGE,
                           "%s: t->strides[%d] is %lld on axis %d of extent %lld: "
                           "(extent - 1) * |stride| overflows int64",
                           call, a, (long long)s, a, (long long)shape[a]);
    if (s < 0)
      r->lo_ok = r->lo_ok && ndx_add_ok(r->lo, -extent, &r->lo);
    else
      r->hi_ok = r->hi_ok && ndx_add_ok(r->hi, extent, &r->hi);
  }
  return NDX_OK;
}

/* The refusal of a tensor reaching below t->data: with no base_shift to
 * report, or (bytes > 0: the shift it would need) too long a span. */
static ndx_status below_data_error(const DLTensor *t, int rank, const int64_t *strides, int width,
                                   const reach *r, bool have_shift, int64_t bytes) {
  static const char *call = "ndx_dlpack_import";
  char dims[NDX_DIMS_BUF], lo[32], hi[32];
  ndx_fmt_dims(dims, sizeof dims, rank, strides);
  if (r->lo_ok)
    snprintf(lo, sizeof lo, "%lld", (long long)r->lo);
  else
    snprintf(lo, sizeof lo, "below INT64_MIN");
  if (r->hi_ok)
    snprintf(hi, sizeof hi, "%lld", (long long)r->hi);
  else
    snprintf(hi, sizeof hi, "above INT64_MAX");
  const char *strides_name = t->strides ? "t->strides" : "compact strides";
  unsigned long long byte_offset = (unsigned long long)t->byte_offset;
  if (!have_shift)
    return ndx_set_error(NDX_ERANGE,
                         "%s: t->byte_offset %llu with %s %s reaches element position %s of %d "
                         "bits, below t->data, and base_shift is NULL (pass it to count "
                         "positions from below t->data)",
                         call, byte_offset, strides_name, dims, lo, width);
  if (bytes == 0)
    return ndx_set_error(NDX_ERANGE,
                         "%s: t->byte_offset %llu with %s %s reaches element position %s of %d "
                         "bits, 2^53 or more elements below t->data",
                         call, byte_offset, strides_name, dims, lo, width);
  return ndx_set_error(NDX_ERANGE,
                       "%s: t->byte_offset %llu with %s %s reaches element positions %s to %s of "
                       "%d bits from t->data: counted from base_shift %lld bytes, the span ends "
                       "past 2^53 - 1",
                       call, byte_offset, strides_name, dims, lo, hi, width, (long long)-bytes);
}

ndx_status ndx_dlpack_import(ndx_layout *out, int *bits, int64_t *base_shift, const DLTensor *t) {
  static const char *call = "ndx_dlpack_import";
  if (!t) return ndx_set_error(NDX_EINVAL, "%s: t is NULL", call);
  if (!out) return ndx_set_error(NDX_EINVAL, "%s: out is NULL", call);
  if (!bits) return ndx_set_error(NDX_EINVAL, "%s: bits is NULL", call);
  int rank = t->ndim;
  if (rank < 0) return ndx_set_error(NDX_EINVAL, "%s: t->ndim is %d, negative", call, rank);
  if (rank > NDX_MAX_RANK)
    return ndx_set_error(NDX_ERANGE, "%s: t->ndim is %d, past the limit of %d axes", call, rank,
                         NDX_MAX_RANK);
  int64_t numel;
  ndx_status st = ndx_check_shape(call, "t->shape", rank, t->shape, &numel);
  if (st != NDX_OK) return st;

  /* uint8 bits times uint16 lanes fits in int */
  int width = (int)t->dtype.bits * (int)t->dtype.lanes;
  char dtype[80];
  if (!ndx_bits_ok(width))
    return ndx_set_error(NDX_EUNSUPPORTED,
                         "%s: t->dtype %s is %d bits wide, not one of 1, 2, 4, 8, 16, 32, 64, 128",
                         call, dtype_text(dtype, sizeof dtype, t->dtype), width);
  if (t->dtype.lanes > 1 && width < 8)
    return ndx_set_error(NDX_EUNSUPPORTED,
                         "%s: t->dtype %s is a vector of %u lanes in %d bits, less than a byte: "
                         "DLPack does not say how its lanes pack",
                         call, dtype_text(dtype, sizeof dtype, t->dtype), (unsigned)t->dtype.lanes,
                         width);

  /* No element: the canonical form drops the offset, so it needs no check
   * (as ndx_make drops an empty layout's offset), and nothing needs a shift. */
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
  reach r;
  st = tensor_reach(rank, t->shape, strides, offset, &r);
  if (st != NDX_OK) return st;

  /* A producer may point `data` at element [0,...,0] of a view with negative
   * strides (NumPy does, with byte_offset 0), so positions from `data` can be
   * negative. Counting them from `shift` bytes before `data` instead, with the
   * shift the smallest whole number of bytes that makes every position >= 0,
   * keeps layouts non-negative and gives every tensor reaching nothing below
   * `data` shift 0 and the layout it always had. */
  int64_t shift = 0;
  if (numel > 0 && (!r.lo_ok || r.lo < 0)) {
    int64_t bytes = 0, moved = 0, last = 0;
    /* The span then starts within the first byte, so it must be shorter than
     * 2^53 elements: bounding -lo first keeps -lo * width in int64. */
    bool fits = base_shift && r.lo_ok && r.lo > -NDX_MAX_NUMEL;
    if (fits) {
      bytes = (-r.lo * width + 7) / 8; /* -lo < 2^53, width <= 128 */
      moved = bytes * 8 / width;       /* exact: 8 % width == 0 or width % 8 == 0 */
      fits = r.hi_ok && ndx_add_ok(r.hi, moved, &last) && last < NDX_MAX_NUMEL;
    }
    if (!fits) return below_data_error(t, rank, strides, width, &r, base_shift != NULL, bytes);
    offset += moved;
    shift = -bytes;
  }

  ndx_layout l;
  st = ndx_build(call, &l, rank, t->shape, strides, offset);
  if (st != NDX_OK) return st;
  *out = l;
  *bits = width;
  if (base_shift) *base_shift = shift;
  return NDX_OK;
}

ndx_status ndx_dlpack_export(DLTensor *t, const ndx_layout *l, int bits) {
  static const char *call = "ndx_dlpack_export";
  if (!t) return ndx_set_error(NDX_EINVAL, "%s: t is NULL", call);
  if (!l) return ndx_set_error(NDX_EINVAL, "%s: l is NULL", call);
  /* No ndx_ call makes a negative offset; the rule is still DLPack's
   * (byte_offset is unsigned), so it is named before the general check. */
  if (l->offset < 0)
    return ndx_set_error(
        NDX_EUNSUPPORTED,
        "%s: l->offset %lld is negative; t->byte_offset (unsigned) cannot express it", call,
        (long long)l->offset);
  ndx_status st = ndx_check_layout(call, "l", l);
  if (st != NDX_OK) return st;
  if (l->rank > 0 && !t->shape)
    return ndx_set_error(NDX_EINVAL, "%s: t->shape is NULL at rank %d: pass an array of %d entries",
                         call, (int)l->rank, (int)l->rank);
  if (l->rank > 0 && !t->strides)
    return ndx_set_error(NDX_EINVAL,
                         "%s: t->strides is NULL at rank %d: pass an array of %d entries (export "
                         "always fills strides)",
                         call, (int)l->rank, (int)l->rank);
  if (!ndx_bits_ok(bits))
    return ndx_set_error(NDX_EINVAL, "%s: bits is %d, not one of 1, 2, 4, 8, 16, 32, 64, 128", call,
                         bits);
  int64_t offset = l->offset;
  if (offset >= NDX_MAX_NUMEL) /* keeps offset * bits in int64 */
    return ndx_set_error(NDX_EINVAL,
                         "%s: l->offset %lld is past 2^53 - 1: not a layout ndx_ calls make", call,
                         (long long)offset);
  int64_t bit = offset * bits; /* < 2^53 * 128 */
  if (bit % 8 != 0)
    return ndx_set_error(NDX_EUNSUPPORTED,
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

/* ---- Number types ---------------------------------------------------------------- */

/* DLPack 1.1's codes past DLPack 0.6's enum (kDLBool, kDLFloat8_e4m3fn,
 * kDLFloat8_e5m2, kDLFloat4_e2m1fn), by number, so that this builds against
 * either header. */
enum { DL_BOOL = 6, DL_FLOAT8_E4M3FN = 10, DL_FLOAT8_E5M2 = 12, DL_FLOAT4_E2M1FN = 17 };

/* Each ndx_dtype as DLPack writes it, one lane: bool is 8 bits (DLPack's
 * rule), i4/u4 are DLPack's int and uint at 4 bits, packed as ndx packs
 * them. */
static const struct {
  ndx_dtype type;
  uint8_t code, bits;
} dl_types[] = {
    {NDX_BOOL, DL_BOOL, 8},
    {NDX_I8, kDLInt, 8},
    {NDX_I16, kDLInt, 16},
    {NDX_I32, kDLInt, 32},
    {NDX_I64, kDLInt, 64},
    {NDX_U8, kDLUInt, 8},
    {NDX_U16, kDLUInt, 16},
    {NDX_U32, kDLUInt, 32},
    {NDX_U64, kDLUInt, 64},
    {NDX_I4, kDLInt, 4},
    {NDX_U4, kDLUInt, 4},
    {NDX_F16, kDLFloat, 16},
    {NDX_BF16, kDLBfloat, 16},
    {NDX_F32, kDLFloat, 32},
    {NDX_F64, kDLFloat, 64},
    {NDX_F8E4M3FN, DL_FLOAT8_E4M3FN, 8},
    {NDX_F8E5M2, DL_FLOAT8_E5M2, 8},
    {NDX_F4E2M1FN, DL_FLOAT4_E2M1FN, 4},
};

ndx_status ndx_dlpack_dtype(ndx_dtype *out, DLDataType dt) {
  char text[80];
  if (!out) return ndx_set_error(NDX_EINVAL, "ndx_dlpack_dtype: out is NULL");
  for (size_t i = 0; i < sizeof dl_types / sizeof dl_types[0]; i++)
    if (dt.code == dl_types[i].code && dt.bits == dl_types[i].bits && dt.lanes == 1) {
      *out = dl_types[i].type;
      return NDX_OK;
    }
  return ndx_set_error(NDX_EUNSUPPORTED,
                       "ndx_dlpack_dtype: dt %s is no ndx_dtype (one lane of: bool 8, int and "
                       "uint 4/8/16/32/64, float 16/32/64, bfloat 16, float8_e4m3fn 8, "
                       "float8_e5m2 8, float4_e2m1fn 4)",
                       dtype_text(text, sizeof text, dt));
}

ndx_status ndx_dlpack_from_dtype(DLDataType *out, ndx_dtype t) {
  if (!out) return ndx_set_error(NDX_EINVAL, "ndx_dlpack_from_dtype: out is NULL");
  for (size_t i = 0; i < sizeof dl_types / sizeof dl_types[0]; i++)
    if (t == dl_types[i].type) {
      out->code = dl_types[i].code;
      out->bits = dl_types[i].bits;
      out->lanes = 1;
      return NDX_OK;
    }
  return ndx_set_error(NDX_EINVAL, "ndx_dlpack_from_dtype: t is %d, not an ndx_dtype", (int)t);
}
