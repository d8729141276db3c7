/* fuzz_dlpack.c: layouts to and from DLPack's DLTensor (ndx_dlpack.h, the
 * rules in docs/dlpack.md).
 *
 * Each input is first a DLTensor, hostile or not: ndim (negative, past 32),
 * shape (NULL, negative extents, extents that multiply past 2^53), strides
 * (NULL for compact, INT64_MIN, reaches that overflow), byte_offset (not a
 * whole number of elements, past 2^53 elements), bits and lanes (0, 6, a
 * vector narrower than a byte, any code), with or without base_shift, and
 * rarely a NULL argument. An independent statement of the import rules
 * (docs/dlpack.md section 2) says whether ndx_dlpack_import must refuse and
 * with which statuses; a refusal must leave *out, *bits and *base_shift
 * untouched and name the call. An accepted import must be the canonical
 * layout of the tensor's shape and strides, its width bits * lanes, and give
 * every element the tensor's address: bit base_shift*8 + position*width from
 * data equals DLPack's byte_offset*8 + sum(coord*stride)*width, with
 * base_shift -ceil(n/8) for a lowest element n bits below data, else 0.
 * Exported on its base (data + base_shift), the layout must read back equal
 * with shift 0.
 *
 * Then a layout, sometimes broken by hand, is exported at any width into a
 * tensor whose arrays may be NULL: refused by the export rules (section 3)
 * with the tensor and its arrays untouched, or written as documented and
 * imported back equal with shift 0. */
#define FUZZ_NAME "dlpack"
#include "fuzz.h"

#include "ndx/ndx_dlpack.h"

#define ST(s) (1u << -(s)) /* a status in a set of them */
#define MAX_NDIM 40        /* the most axes an input writes (past NDX_MAX_RANK) */

static const int widths[] = {1, 2, 4, 8, 16, 32, 64, 128};

/* Element types an input mostly picks: bits and lanes. */
static const struct {
  uint8_t bits;
  uint16_t lanes;
} dtypes[16] = {{1, 1}, {2, 1},  {4, 1},  {8, 1},  {16, 1}, {32, 1}, {64, 1}, {128, 1},
                {8, 2}, {16, 2}, {32, 4}, {64, 2}, {8, 16}, {4, 2},  {2, 2},  {1, 4}};

static bool width_ok(int64_t w) {
  for (int k = 0; k < 8; k++)
    if (w == widths[k]) return true;
  return false;
}

/* A refusal: a status of the set `want`, the outputs as they were, and a
 * message naming `call`. */
static void check_refusal(ndx_status st, unsigned want, const char *call, const void *out,
                          const void *before, size_t size) {
  fz_checked++;
  fz_check(st != NDX_OK, "a call the rules refuse is refused");
  fz_check(st < 0 && st >= -31 && (want >> -st & 1) != 0,
           "a refusal has the status of a rule the call breaks");
  fz_check(memcmp(out, before, size) == 0, "a refusal leaves its outputs untouched");
  size_t len = strlen(call);
  const char *msg = ndx_last_error();
  fz_check(strncmp(msg, call, len) == 0 && msg[len] == ':' && msg[len + 1] != '\0',
           "a refusal names the call and says why");
}

/* ---- Import ------------------------------------------------------------- */

/* A tensor decoded from the input, with its arrays and the arguments. */
typedef struct input {
  DLTensor t;
  int64_t shape[MAX_NDIM], strides[MAX_NDIM];
  bool null_t, null_out, null_bits, has_shift;
} input;

static void decode(fz_reader *r, input *in) {
  memset(in, 0, sizeof *in);
  DLTensor *t = &in->t;
  uint8_t head = fz_byte(r);
  uint8_t nb = fz_byte(r);
  t->ndim = nb < 232 ? nb % 7 : nb < 248 ? (int)fz_small(r, MAX_NDIM) : (int)(int32_t)fz_wide(r);
  for (int a = 0; a < t->ndim && a < MAX_NDIM; a++) {
    uint8_t sb = fz_byte(r), tb = fz_byte(r);
    in->shape[a] = sb < 240 ? sb % 5 : fz_wide(r);
    in->strides[a] = tb < 240 ? (int64_t)(tb % 19) - 9 : fz_wide(r);
  }
  uint8_t db = fz_byte(r);
  if (db < 240) {
    t->dtype.bits = dtypes[db % 16].bits;
    t->dtype.lanes = dtypes[db % 16].lanes;
  } else {
    t->dtype.bits = fz_byte(r);
    t->dtype.lanes = (uint16_t)(fz_byte(r) | fz_byte(r) << 8);
  }
  t->dtype.code = fz_byte(r);
  int width = t->dtype.bits * t->dtype.lanes;
  uint64_t unit = width >= 8 ? (uint64_t)width / 8 : 1;
  uint8_t ob = fz_byte(r);
  if (ob < 208)
    t->byte_offset = ob % 26 * unit;
  else if (ob < 232)
    t->byte_offset = ob % 26 * unit + 1 + fz_byte(r) % 7;
  else
    t->byte_offset = (uint64_t)fz_wide(r);
  t->data = (void *)(uintptr_t)0x10000; /* never read */
  t->device = (DLDevice){head & 16 ? kDLCUDA : kDLCPU, 0};
  t->shape = in->shape;
  t->strides = (head & 3) == 0 ? NULL : in->strides;
  in->has_shift = (head >> 2 & 3) != 0;
  uint8_t nulls = fz_byte(r);
  if (nulls >= 240 && nulls < 248 && t->ndim > 0) t->shape = NULL;
  in->null_t = nulls == 248 || nulls == 251;
  in->null_out = nulls == 249 || nulls == 252;
  in->null_bits = nulls == 250 || nulls == 253;
}

/* What the import rules say of a tensor: the statuses its refusal may have,
 * or (none) its width, offset and shift; `strides` its strides, compact
 * where t->strides is NULL. */
typedef struct verdict {
  unsigned statuses;
  int width;
  int64_t numel, offset, shift;
  int64_t strides[NDX_MAX_RANK];
} verdict;

static verdict judge(const input *in) {
  verdict v = {0};
  const DLTensor *t = &in->t;
  if (in->null_t || in->null_out || in->null_bits) return (verdict){.statuses = ST(NDX_EINVAL)};
  if (t->ndim < 0) return (verdict){.statuses = ST(NDX_EINVAL)};
  if (t->ndim > NDX_MAX_RANK) return (verdict){.statuses = ST(NDX_ERANGE)};
  int rank = t->ndim;
  if (rank > 0 && !t->shape) return (verdict){.statuses = ST(NDX_EINVAL)};
  fz_i128 product = 1;
  bool negative = false, empty = false;
  for (int a = 0; a < rank; a++) {
    negative = negative || t->shape[a] < 0;
    empty = empty || t->shape[a] == 0;
    if (t->shape[a] > 0 && product <= NDX_MAX_NUMEL) product *= t->shape[a];
  }
  if (negative) v.statuses |= ST(NDX_EINVAL);
  if (product > NDX_MAX_NUMEL) v.statuses |= ST(NDX_ERANGE);
  v.width = t->dtype.bits * t->dtype.lanes;
  if (!width_ok(v.width) || (t->dtype.lanes > 1 && v.width < 8)) v.statuses |= ST(NDX_EUNSUPPORTED);
  if (v.statuses) return v;
  v.numel = empty ? 0 : (int64_t)product;

  int64_t step = 1;
  for (int a = rank - 1; a >= 0; a--) {
    v.strides[a] = t->strides ? t->strides[a] : step;
    if (t->shape[a] > 0) step *= t->shape[a];
  }
  fz_i128 p0 = 0; /* byte_offset as an element position */
  if (v.numel > 0) {
    if (v.width >= 8 && t->byte_offset % (uint64_t)(v.width / 8) != 0)
      return (verdict){.statuses = ST(NDX_EUNSUPPORTED)};
    p0 = v.width >= 8 ? (fz_i128)(t->byte_offset / (uint64_t)(v.width / 8))
                      : (fz_i128)t->byte_offset * (8 / v.width);
    if (p0 >= NDX_MAX_NUMEL) return (verdict){.statuses = ST(NDX_ERANGE)};
  }
  fz_i128 lo = p0, hi = p0;
  for (int a = 0; a < rank; a++) {
    int64_t d = t->shape[a], s = v.strides[a];
    if (d <= 1) continue;
    fz_i128 reach = (fz_i128)(d - 1) * (s < 0 ? -(fz_i128)s : (fz_i128)s);
    if (reach > INT64_MAX) v.statuses |= ST(NDX_ERANGE);
    if (s < 0)
      lo -= reach;
    else
      hi += reach;
  }
  if (v.statuses || v.numel == 0) return v;
  fz_i128 moved = 0;
  if (lo < 0) {
    if (!in->has_shift || -lo >= NDX_MAX_NUMEL) return (verdict){.statuses = ST(NDX_ERANGE)};
    fz_i128 bytes = (-lo * v.width + 7) / 8;
    moved = bytes * 8 / v.width;
    v.shift = -(int64_t)bytes;
  }
  if (hi + moved >= NDX_MAX_NUMEL) return (verdict){.statuses = ST(NDX_ERANGE)};
  v.offset = (int64_t)(p0 + moved);
  return v;
}

/* The bit of the element at `index` from t->data, by DLPack's rule. */
static fz_i128 dl_bit(const DLTensor *t, const verdict *v, const int64_t *index) {
  fz_i128 bit = (fz_i128)t->byte_offset * 8;
  for (int a = 0; a < t->ndim; a++) bit += (fz_i128)index[a] * v->strides[a] * v->width;
  return bit;
}

/* The export of an imported layout on its base, imported back. */
static void round_trip(const DLTensor *t, const ndx_layout *l, int width, int64_t shift) {
  int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK];
  DLTensor e = *t;
  e.data = (void *)((uintptr_t)t->data + (uintptr_t)shift);
  e.ndim = -7;
  e.shape = shape;
  e.strides = strides;
  e.byte_offset = 12345;
  fz_check(ndx_dlpack_export(&e, l, width) == NDX_OK, "an imported layout exports");
  uint16_t lanes = width >= 8 && width % t->dtype.lanes == 0 ? t->dtype.lanes : 1;
  fz_check(e.ndim == l->rank && (fz_i128)e.byte_offset * 8 == (fz_i128)l->offset * width &&
               e.dtype.lanes == lanes && e.dtype.bits * e.dtype.lanes == width &&
               e.dtype.code == t->dtype.code,
           "the export has the layout's rank, offset in bytes and width, the caller's lanes");
  for (int a = 0; a < l->rank; a++)
    fz_check(shape[a] == l->shape[a] && strides[a] == l->strides[a],
             "the export has the layout's shape and strides");
  ndx_layout back;
  int bits = 0;
  int64_t back_shift = 99;
  fz_check(ndx_dlpack_import(&back, &bits, &back_shift, &e) == NDX_OK &&
               memcmp(&back, l, sizeof back) == 0 && bits == width && back_shift == 0,
           "the export imports back as the same layout and width, with shift 0");
}

static void check_import(fz_reader *r, const input *in) {
  ndx_layout out, out_before;
  int bits = 0x5a5a, bits_before = bits;
  int64_t shift = INT64_C(0x5a5a5a5a), shift_before = shift;
  memset(&out, 0x5a, sizeof out);
  out_before = out;
  ndx_status st = ndx_dlpack_import(in->null_out ? NULL : &out, in->null_bits ? NULL : &bits,
                                    in->has_shift ? &shift : NULL, in->null_t ? NULL : &in->t);
  verdict v = judge(in);
  if (v.statuses) {
    check_refusal(st, v.statuses, "ndx_dlpack_import", &out, &out_before, sizeof out);
    fz_check(bits == bits_before && shift == shift_before,
             "a refusal leaves *bits and *base_shift");
    return;
  }
  fz_check(st == NDX_OK, "a tensor the rules allow is imported");
  const DLTensor *t = &in->t;
  int64_t n = fz_check_layout(&out);
  fz_check(n == v.numel && bits == v.width, "the import has the tensor's element count and width");
  fz_check(!in->has_shift || shift == v.shift, "the shift is the one the rules give");
  if (!in->has_shift) shift = 0;
  fz_check(out.rank == t->ndim && out.offset == v.offset, "the import has the rank and offset");
  for (int a = 0; a < out.rank; a++)
    fz_check(out.shape[a] == t->shape[a] &&
                 out.strides[a] == (n == 0 || t->shape[a] == 1 ? 0 : v.strides[a]),
             "the import has the tensor's shape and canonical strides");

  /* every element's address is the tensor's, and the shift the smallest */
  fz_i128 lowest = INT64_MAX;
  int64_t index[NDX_MAX_RANK];
  bool all = n <= FZ_MAX_POSITIONS;
  for (int64_t k = 0, count = all ? n : 8; k < count; k++) {
    int64_t i = k;
    if (!all && k > 1) {
      uint64_t u = 0;
      for (int b = 0; b < 7; b++) u = u << 8 | fz_byte(r);
      i = (int64_t)(u % (uint64_t)n);
    } else if (!all) {
      i = k ? n - 1 : 0;
    }
    oracle_unravel(out.rank, out.shape, i, index);
    fz_i128 bit = (fz_i128)shift * 8 + (fz_i128)oracle_position(&out, index) * v.width;
    fz_check(bit == dl_bit(t, &v, index), "every element's address is the tensor's");
    lowest = all && bit < lowest ? bit : lowest;
  }
  if (all && n > 0) /* `lowest`: the lowest element's bit from data, by brute force */
    fz_check(lowest >= 0 ? shift == 0 : shift == -(int64_t)((-lowest + 7) / 8),
             "the shift is -ceil(n/8) for a lowest element n bits below data, else 0");
  round_trip(t, &out, v.width, shift);
}

/* ---- Export ------------------------------------------------------------- */

/* What the export rules say: the statuses of a refusal, or 0. */
static unsigned judge_export(const ndx_layout *l, int bits, bool null_t, bool null_shape,
                             bool null_strides) {
  if (null_t) return ST(NDX_EINVAL);
  if (l->offset < 0) return ST(NDX_EUNSUPPORTED); /* checked first */
  if (!fz_made(l)) return ST(NDX_EINVAL);
  unsigned want = 0;
  if (l->rank > 0 && (null_shape || null_strides)) want |= ST(NDX_EINVAL);
  bool bits_ok = false;
  for (int k = 0; k < 8; k++) bits_ok = bits_ok || bits == widths[k];
  if (!bits_ok) want |= ST(NDX_EINVAL);
  if (bits_ok && (fz_i128)l->offset * bits % 8 != 0) want |= ST(NDX_EUNSUPPORTED);
  return want;
}

static void check_export(fz_reader *r) {
  ndx_layout l;
  if (!fz_layout(r, &l)) return;
  uint8_t how = fz_byte(r);
  int a = l.rank > 0 ? fz_byte(r) % l.rank : 0;
  if (how >= 240 && how < 244)
    l.offset = -1 - fz_byte(r) % 4;
  else if (how >= 244 && how < 248)
    l.rank = fz_byte(r) % 2 ? NDX_MAX_RANK + 1 : -1;
  else if (how >= 248 && l.rank > 0)
    l.strides[a] = how % 2 ? INT64_MIN : l.strides[a] + fz_small(r, 3);
  uint8_t wb = fz_byte(r);
  int bits = wb < 240 ? widths[wb % 8] : (int)fz_small(r, 130);
  uint8_t nulls = fz_byte(r);
  bool null_t = nulls == 255, null_shape = nulls >= 247 && nulls < 251,
       null_strides = nulls >= 251 && nulls < 255;
  int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK];
  memset(shape, 0x77, sizeof shape);
  memset(strides, 0x77, sizeof strides);
  DLTensor e;
  memset(&e, 0x77, sizeof e);
  e.data = (void *)(uintptr_t)0x20000;
  e.shape = null_shape ? NULL : shape;
  e.strides = null_strides ? NULL : strides;
  e.dtype.code = fz_byte(r);
  e.dtype.lanes = fz_byte(r) % 5;
  DLTensor e_before = e;
  int64_t shape_before[NDX_MAX_RANK], strides_before[NDX_MAX_RANK];
  memcpy(shape_before, shape, sizeof shape);
  memcpy(strides_before, strides, sizeof strides);

  ndx_status st = ndx_dlpack_export(null_t ? NULL : &e, &l, bits);
  unsigned want = judge_export(&l, bits, null_t, null_shape, null_strides);
  if (want) {
    check_refusal(st, want, "ndx_dlpack_export", &e, &e_before, sizeof e);
    fz_check(memcmp(shape, shape_before, sizeof shape) == 0 &&
                 memcmp(strides, strides_before, sizeof strides) == 0,
             "a refusal leaves the tensor's arrays untouched");
    return;
  }
  fz_checked++;
  fz_check(st == NDX_OK, "a layout the rules allow is exported");
  uint16_t lanes = bits >= 8 && e_before.dtype.lanes >= 1 && bits % e_before.dtype.lanes == 0
                       ? e_before.dtype.lanes
                       : 1;
  fz_check(e.ndim == l.rank && (fz_i128)e.byte_offset * 8 == (fz_i128)l.offset * bits &&
               e.dtype.lanes == lanes && e.dtype.bits * lanes == bits &&
               e.dtype.code == e_before.dtype.code && e.data == e_before.data,
           "the export has the rank, the offset in bytes, the width in the caller's lanes");
  for (int x = 0; x < NDX_MAX_RANK; x++)
    fz_check(x < l.rank ? shape[x] == l.shape[x] && strides[x] == l.strides[x]
                        : shape[x] == shape_before[x] && strides[x] == strides_before[x],
             "the export writes the shape and strides, nothing past the rank");
  /* a layout written by hand may have strides on extent-1 axes: it reads
   * back in canonical form */
  ndx_layout back, canonical;
  int back_bits = 0;
  int64_t shift = 99;
  fz_check(ndx_make(&canonical, l.rank, l.shape, l.strides, l.offset) == NDX_OK,
           "a layout within the limits makes");
  fz_check(ndx_dlpack_import(&back, &back_bits, &shift, &e) == NDX_OK &&
               memcmp(&back, &canonical, sizeof back) == 0 && back_bits == bits && shift == 0,
           "an export imports back as the same layout and width, with shift 0");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_reader r = {data, size, 0};
  input in;
  decode(&r, &in);
  check_import(&r, &in);
  if (fz_more(&r)) check_export(&r);
  return 0;
}
