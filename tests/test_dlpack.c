/* test_dlpack.c: layouts to and from DLPack's DLTensor (ndx_dlpack.h). Each
 * test states one rule; positions are checked by brute force against DLPack's
 * own address rule (byte address = data + byte_offset + sum(i*stride)*bits/8,
 * in bits for sub-byte types), computed here from the DLTensor's fields and
 * independent of the code under test. An imported layout's positions count
 * from byte data + base_shift, so its address of index i is
 * data + base_shift + position(i)*bits/8. */
#include <criterion/criterion.h>
#include <string.h>

#include "ndx/ndx_dlpack.h"
#include "ndx/ndx_layout.h"
#include "oracle.h"
#include "suite.h"

#define P53 (INT64_C(1) << 53)

/* ---- Helpers ------------------------------------------------------------ */

static DLTensor tensor(int ndim, int64_t *shape, int64_t *strides, uint64_t byte_offset,
                       uint8_t code, uint8_t bits, uint16_t lanes) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = (void *)(uintptr_t)0x1000; /* never dereferenced */
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.shape = shape;
  t.strides = strides;
  t.byte_offset = byte_offset;
  t.dtype.code = code;
  t.dtype.bits = bits;
  t.dtype.lanes = lanes;
  return t;
}

/* Bit address of `index` by DLPack's rule, straight from the tensor's fields
 * (compact row-major strides when t->strides is NULL). */
static int64_t dl_bit_address(const DLTensor *t, const int64_t *index, int width) {
  int64_t sum = 0, step = 1;
  for (int a = t->ndim - 1; a >= 0; a--) {
    int64_t s = t->strides ? t->strides[a] : step;
    sum += index[a] * s;
    step *= t->shape[a];
  }
  return (int64_t)t->byte_offset * 8 + sum * width;
}

/* Every index of `t`: the imported layout's position, counted from byte
 * data + shift, is DLPack's element address, compared as bit addresses from
 * `data` (exact at every width) and, for whole-byte widths, as the byte
 * addresses a pointer device would compute. */
static void expect_same_addresses(const DLTensor *t, const ndx_layout *l, int width, int64_t shift,
                                  const char *what) {
  cr_assert_eq(l->rank, t->ndim, "%s: rank", what);
  int64_t n = 1, index[NDX_MAX_RANK];
  for (int a = 0; a < t->ndim; a++) {
    cr_assert_eq(l->shape[a], t->shape[a], "%s: extent of axis %d", what, a);
    n *= t->shape[a];
  }
  uintptr_t data = (uintptr_t)t->data;
  for (int64_t k = 0; k < n; k++) {
    oracle_unravel(t->ndim, t->shape, k, index);
    int64_t dl = dl_bit_address(t, index, width), pos = oracle_position(l, index);
    cr_assert_geq(pos, 0, "%s: element %lld at position %lld", what, (long long)k, (long long)pos);
    cr_assert_eq(dl, shift * 8 + pos * width, "%s: element %lld, bit address (shift %lld)", what,
                 (long long)k, (long long)shift);
    if (width >= 8)
      cr_assert_eq(data + (uintptr_t)(dl / 8),
                   data + (uintptr_t)shift + (uintptr_t)(pos * (width / 8)),
                   "%s: element %lld, byte address", what, (long long)k);
  }
}

/* The shift the rule asks for, by brute force over every index: the largest
 * whole number of bytes <= 0 at or below every element's first bit
 * (floor(lowest bit / 8)), or 0 when no element starts below `data`. */
static int64_t brute_force_shift(const DLTensor *t, int width) {
  int64_t n = 1, index[NDX_MAX_RANK], lowest = 0;
  for (int a = 0; a < t->ndim; a++) n *= t->shape[a];
  for (int64_t k = 0; k < n; k++) {
    oracle_unravel(t->ndim, t->shape, k, index);
    int64_t b = dl_bit_address(t, index, width);
    if (b < lowest) lowest = b;
  }
  return lowest >= 0 ? 0 : -((-lowest + 7) / 8);
}

/* One failing import, with a base_shift or with NULL: the status, *out, *bits
 * and *base_shift untouched, a message that names the call and contains
 * `names` (the value or field). */
static void expect_import_fails_once(ndx_status want, const DLTensor *t, const char *names,
                                     const char *what, bool with_shift) {
  ndx_layout out, before;
  memset(&out, 0xA5, sizeof out);
  before = out;
  int bits = -77;
  int64_t shift = 12345;
  ndx_status s = ndx_dlpack_import(&out, &bits, with_shift ? &shift : NULL, t);
  cr_assert_eq(s, want, "%s (base_shift %s): want %s, got %s (%s)", what,
               with_shift ? "given" : "NULL", ndx_status_name(want), ndx_status_name(s),
               ndx_last_error());
  cr_assert_eq(memcmp(&out, &before, sizeof out), 0, "%s: out written on failure", what);
  cr_assert_eq(bits, -77, "%s: bits written on failure", what);
  cr_assert_eq(shift, 12345, "%s: base_shift written on failure", what);
  const char *msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_dlpack_import:"), "%s: message names the call: %s", what, msg);
  cr_assert(strstr(msg, names), "%s: message names '%s': %s", what, names, msg);
}

/* A failing import, made with a base_shift and again without: a refusal that
 * does not depend on the shift must not depend on being able to report one. */
static void expect_import_fails(ndx_status want, const DLTensor *t, const char *names,
                                const char *what) {
  expect_import_fails_once(want, t, names, what, true);
  expect_import_fails_once(want, t, names, what, false);
}

/* A failing import with a base_shift only (the tensors that a shift would
 * otherwise make importable): outputs untouched, `names` in the message. */
static void expect_shifted_import_fails(ndx_status want, const DLTensor *t, const char *names,
                                        const char *what) {
  expect_import_fails_once(want, t, names, what, true);
}

/* A tensor reaching below `data`, imported with a NULL base_shift: NDX_ERANGE
 * saying so, outputs untouched. */
static void expect_needs_shift(const DLTensor *t, const char *what) {
  ndx_layout out, before;
  memset(&out, 0x3C, sizeof out);
  before = out;
  int bits = -77;
  ndx_status s = ndx_dlpack_import(&out, &bits, NULL, t);
  cr_assert_eq(s, NDX_ERANGE, "%s: NULL base_shift: want NDX_ERANGE, got %s", what,
               ndx_status_name(s));
  cr_assert(memcmp(&out, &before, sizeof out) == 0 && bits == -77, "%s: outputs written on failure",
            what);
  const char *msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_dlpack_import: t->byte_offset ") &&
                strstr(msg, "below t->data, and base_shift is NULL"),
            "%s: %s", what, msg);
}

/* A failing export: the status, *t and its arrays untouched, a message that
 * names the call and contains `names`. */
static void expect_export_fails(ndx_status want, DLTensor *t, const ndx_layout *l, int bits,
                                const char *names, const char *what) {
  DLTensor before = *t;
  int64_t shape0[NDX_MAX_RANK], strides0[NDX_MAX_RANK];
  int n = l && l->rank > 0 && l->rank <= NDX_MAX_RANK ? l->rank : 0;
  if (t->shape) memcpy(shape0, t->shape, sizeof(int64_t) * (size_t)n);
  if (t->strides) memcpy(strides0, t->strides, sizeof(int64_t) * (size_t)n);
  ndx_status s = ndx_dlpack_export(t, l, bits);
  cr_assert_eq(s, want, "%s: want %s, got %s (%s)", what, ndx_status_name(want), ndx_status_name(s),
               ndx_last_error());
  cr_assert_eq(memcmp(t, &before, sizeof before), 0, "%s: *t written on failure", what);
  if (t->shape)
    cr_assert_eq(memcmp(shape0, t->shape, sizeof(int64_t) * (size_t)n), 0,
                 "%s: t->shape written on failure", what);
  if (t->strides)
    cr_assert_eq(memcmp(strides0, t->strides, sizeof(int64_t) * (size_t)n), 0,
                 "%s: t->strides written on failure", what);
  const char *msg = ndx_last_error();
  cr_assert(strstr(msg, "ndx_dlpack_export:"), "%s: message names the call: %s", what, msg);
  cr_assert(strstr(msg, names), "%s: message names '%s': %s", what, names, msg);
}

/* An accepted import with its shift into *shift, checked canonical. */
static ndx_layout import_shifted(const DLTensor *t, int *bits, int64_t *shift, const char *what) {
  ndx_layout l;
  ndx_status s = ndx_dlpack_import(&l, bits, shift, t);
  cr_assert_eq(s, NDX_OK, "%s: import refused: %s (%s)", what, ndx_status_name(s),
               ndx_last_error());
  cr_assert_null(oracle_not_canonical(&l), "%s: not canonical", what);
  return l;
}

/* An accepted import of a tensor that reaches nothing below `data`: shift 0,
 * and the same result when the caller passes no base_shift. */
static ndx_layout import_ok(const DLTensor *t, int *bits, const char *what) {
  int64_t shift = 777;
  ndx_layout l = import_shifted(t, bits, &shift, what);
  cr_assert_eq(shift, 0, "%s: nothing below data, yet shift %lld", what, (long long)shift);
  ndx_layout l2;
  int bits2;
  cr_assert_eq(ndx_dlpack_import(&l2, &bits2, NULL, t), NDX_OK, "%s: NULL base_shift: %s", what,
               ndx_last_error());
  cr_assert(ndx_equal(&l, &l2) && bits2 == *bits, "%s: NULL base_shift changes the result", what);
  return l;
}

/* ---- Dtypes: every code, at every width a producer sends ----------------- */

/* The codes of the installed header by name; the codes DLPack added later
 * (bool 6, float8 7-14, float6 15-16, float4 17) by number, since ndx never
 * reads the code and must take them from a newer producer too. */
typedef struct dtype_case {
  uint8_t code, bits;
} dtype_case;

static const dtype_case dtypes[] = {
    {kDLInt, 1},
    {kDLInt, 2},
    {kDLInt, 4},
    {kDLInt, 8},
    {kDLInt, 16},
    {kDLInt, 32},
    {kDLInt, 64},
    {kDLUInt, 1},
    {kDLUInt, 2},
    {kDLUInt, 4},
    {kDLUInt, 8},
    {kDLUInt, 16},
    {kDLUInt, 32},
    {kDLUInt, 64},
    {kDLUInt, 128},
    {kDLFloat, 8},
    {kDLFloat, 16},
    {kDLFloat, 32},
    {kDLFloat, 64},
    {kDLFloat, 128},
    {kDLOpaqueHandle, 64},
    {kDLBfloat, 16},
    {kDLComplex, 32},
    {kDLComplex, 64},
    {kDLComplex, 128},
    {6, 8} /* bool */,
    {6, 1} /* packed bool */,
    {7, 8},
    {8, 8},
    {9, 8},
    {10, 8},
    {11, 8},
    {12, 8},
    {13, 8},
    {14, 8} /* float8 */,
    {17, 4} /* float4_e2m1fn */,
    {15, 6},
    {16, 6} /* float6: no ndx width */,
    {kDLFloat, 24},
    {kDLInt, 0},
    {kDLUInt, 3},
    {kDLComplex, 255},
    {200, 32} /* a code no header has */,
};

static const uint16_t lane_counts[] = {1, 2, 3, 4, 8, 16};

/* A literal from the specification: the widths ndx copies. */
static bool ndx_width(int w) {
  static const int widths[] = {1, 2, 4, 8, 16, 32, 64, 128};
  for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++)
    if (widths[k] == w) return true;
  return false;
}

/* Layouts every dtype is tried with, in DLPack's terms. The start is an
 * element position that is a multiple of 8, so that it is a whole byte at
 * every width; byte_offset is computed from it per width. */
typedef struct tensor_case {
  const char *name;
  int ndim;
  int64_t shape[NDX_MAX_RANK];
  int64_t strides[NDX_MAX_RANK];
  bool null_strides;
  int64_t start; /* element position of the first byte of the view */
} tensor_case;

static const tensor_case tensor_cases[] = {
    {"compact, NULL strides", 3, {2, 3, 4}, {0}, true, 0},
    {"NULL strides, byte_offset", 3, {2, 3, 4}, {0}, true, 24},
    {"explicit row-major", 3, {2, 3, 4}, {12, 4, 1}, false, 8},
    {"flips (negative strides)", 2, {3, 4}, {-4, -1}, false, 16},
    {"one axis flipped of a transpose", 2, {4, 3}, {1, -4}, false, 8},
    {"broadcast (stride 0)", 3, {3, 4, 2}, {0, 1, 0}, false, 8},
    {"extent-1 axis with an odd stride", 3, {3, 1, 4}, {1, 7, -3}, false, 16},
    {"gapped, 5-d", 5, {2, 1, 3, 2, 2}, {40, -9, 7, -2, 1}, false, 32},
    {"rank 0", 0, {0}, {0}, true, 8},
    {"rank 0, byte_offset 0", 0, {0}, {0}, false, 0},
};

/* Rank 32: extents mostly 1, a few 2s and 3s, mixed signs. */
static tensor_case rank32_case(void) {
  tensor_case c = {.name = "rank 32", .ndim = NDX_MAX_RANK, .start = 512};
  for (int a = 0; a < NDX_MAX_RANK; a++) {
    c.shape[a] = a % 9 == 0 ? 2 : a == 31 ? 3 : 1;
    c.strides[a] = (a % 2 ? -1 : 1) * (a + 1) * 3;
  }
  return c;
}

static DLTensor tensor_of(tensor_case *c, dtype_case d, uint16_t lanes) {
  int width = d.bits * lanes;
  uint64_t byte_offset = (uint64_t)(c->start * width / 8);
  return tensor(c->ndim, c->ndim ? c->shape : NULL, c->null_strides ? NULL : c->strides,
                byte_offset, d.code, d.bits, lanes);
}

/* import, then export into fresh arrays with the same dtype code and lanes,
 * then import again: the same layout, width and DLTensor fields. */
static void round_trip(tensor_case *c, dtype_case d, uint16_t lanes) {
  char what[160];
  snprintf(what, sizeof what, "%s, code %u bits %u lanes %u", c->name, d.code, d.bits, lanes);
  DLTensor t = tensor_of(c, d, lanes);
  int width = -1;
  ndx_layout l = import_ok(&t, &width, what);
  cr_assert_eq(width, d.bits * lanes, "%s: one element is bits * lanes wide", what);
  expect_same_addresses(&t, &l, width, 0, what);

  int64_t shape[NDX_MAX_RANK + 1] = {0}, strides[NDX_MAX_RANK + 1] = {0};
  for (int a = 0; a <= NDX_MAX_RANK; a++) shape[a] = strides[a] = -12345;
  DLTensor e = tensor(-1, shape, strides, 99, d.code, 0, lanes);
  void *data = e.data;
  cr_assert_eq(ndx_dlpack_export(&e, &l, width), NDX_OK, "%s: export: %s", what, ndx_last_error());
  cr_assert_eq(e.ndim, t.ndim, "%s: ndim", what);
  cr_assert_eq(e.data, data, "%s: data untouched", what);
  cr_assert_eq(e.dtype.code, d.code, "%s: code kept", what);
  cr_assert_eq(e.dtype.bits, d.bits, "%s: bits back", what);
  cr_assert_eq(e.dtype.lanes, lanes, "%s: lanes back", what);
  cr_assert_eq(e.byte_offset, t.byte_offset, "%s: byte_offset back", what);
  int64_t step = 1;
  for (int a = t.ndim - 1; a >= 0; a--) {
    int64_t s = t.strides ? t.strides[a] : step;
    step *= t.shape[a];
    cr_assert_eq(e.shape[a], t.shape[a], "%s: extent %d", what, a);
    cr_assert_eq(e.strides[a], t.shape[a] == 1 ? 0 : s, "%s: stride %d", what, a);
  }
  cr_assert_eq(shape[t.ndim], -12345, "%s: shape written past ndim", what);
  cr_assert_eq(strides[t.ndim], -12345, "%s: strides written past ndim", what);
  int width2 = -1;
  ndx_layout l2 = import_ok(&e, &width2, what);
  cr_assert(ndx_equal(&l, &l2), "%s: import(export(l)) == l", what);
  cr_assert_eq(width2, width, "%s: width back", what);
}

Test(dlpack, every_code_and_width_round_trips_or_is_refused_by_its_width) {
  int ok = 0, refused = 0;
  tensor_case r32 = rank32_case();
  for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
    for (size_t j = 0; j < sizeof lane_counts / sizeof lane_counts[0]; j++) {
      dtype_case d = dtypes[i];
      uint16_t lanes = lane_counts[j];
      int width = d.bits * lanes;
      bool want = ndx_width(width) && (lanes == 1 || width >= 8);
      for (size_t k = 0; k <= sizeof tensor_cases / sizeof tensor_cases[0]; k++) {
        tensor_case c = k < sizeof tensor_cases / sizeof tensor_cases[0] ? tensor_cases[k] : r32;
        if (want) {
          round_trip(&c, d, lanes);
          ok++;
        } else {
          DLTensor t = tensor_of(&c, d, lanes);
          char what[160], names[48];
          snprintf(what, sizeof what, "%s, code %u bits %u lanes %u", c.name, d.code, d.bits,
                   lanes);
          snprintf(names, sizeof names, "bits %u, lanes %u}", d.bits, lanes);
          expect_import_fails(NDX_EUNSUPPORTED, &t, names, what);
          refused++;
        }
      }
    }
  cr_assert_gt(ok, 300, "a fair share of the grid is accepted (%d)", ok);
  cr_assert_gt(refused, 100, "a fair share of the grid is refused (%d)", refused);
}

Test(dlpack, lanes_make_one_wide_element_not_an_axis) {
  int64_t shape[] = {5, 7};
  DLTensor t = tensor(2, shape, NULL, 32, kDLFloat, 32, 4); /* float32x4 */
  int bits;
  ndx_layout l = import_ok(&t, &bits, "float32x4");
  cr_assert_eq(bits, 128);
  expect_layout(&l, 2, (int64_t[]){5, 7}, (int64_t[]){7, 1}, 2, "float32x4");
}

Test(dlpack, bool_is_8_bits) {
  int64_t shape[] = {3};
  DLTensor t = tensor(1, shape, NULL, 5, 6 /* kDLBool */, 8, 1);
  int bits;
  ndx_layout l = import_ok(&t, &bits, "bool");
  cr_assert_eq(bits, 8);
  expect_layout(&l, 1, (int64_t[]){3}, (int64_t[]){1}, 5, "bool");
}

Test(dlpack, null_strides_are_compact_row_major) {
  int64_t shape[] = {2, 3, 4, 5};
  DLTensor t = tensor(4, shape, NULL, 0, kDLFloat, 16, 1);
  int bits;
  ndx_layout l = import_ok(&t, &bits, "NULL strides");
  expect_layout(&l, 4, shape, (int64_t[]){60, 20, 5, 1}, 0, "NULL strides");
  cr_assert(ndx_is_contiguous(&l));
}

Test(dlpack, byte_offset_is_an_element_position) {
  /* literals: bytes * 8 / width */
  struct {
    uint8_t bits;
    uint64_t byte_offset;
    int64_t offset;
  } cases[] = {{1, 3, 24}, {2, 3, 12},  {4, 3, 6},   {8, 3, 3},
               {16, 6, 3}, {32, 12, 3}, {64, 24, 3}, {128, 48, 3}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    int64_t shape[] = {4};
    DLTensor t = tensor(1, shape, NULL, cases[k].byte_offset, kDLUInt, cases[k].bits, 1);
    int bits;
    ndx_layout l = import_ok(&t, &bits, "byte_offset");
    cr_assert_eq(l.offset, cases[k].offset, "%u bits: byte_offset %llu", cases[k].bits,
                 (unsigned long long)cases[k].byte_offset);
  }
}

Test(dlpack, sub_byte_elements_are_little_bit_endian) {
  /* 4-bit element 2k is the low nibble of byte k: with byte_offset 1 the view
   * starts at element 2, bits 8..11, the low nibble of byte 1. */
  int64_t shape[] = {3}, strides[] = {1};
  DLTensor t = tensor(1, shape, strides, 1, kDLInt, 4, 1);
  int bits;
  ndx_layout l = import_ok(&t, &bits, "int4");
  cr_assert_eq(l.offset, 2);
  cr_assert_eq(l.offset * bits, 8, "element 0 starts at bit 0 of byte 1");
}

Test(dlpack, the_code_is_never_read) {
  int64_t shape[] = {2, 2}, strides[] = {1, 2};
  int bits[3];
  ndx_layout l[3];
  uint8_t codes[] = {kDLInt, kDLComplex, 250};
  for (int k = 0; k < 3; k++) {
    DLTensor t = tensor(2, shape, strides, 8, codes[k], 64, 1);
    l[k] = import_ok(&t, &bits[k], "code");
  }
  cr_assert(ndx_equal(&l[0], &l[1]) && ndx_equal(&l[0], &l[2]));
  cr_assert(bits[0] == 64 && bits[1] == 64 && bits[2] == 64);
}

Test(dlpack, an_empty_tensor_drops_offset_and_strides) {
  int64_t shape[] = {2, 0, 3}, strides[] = {5, 5, -5};
  DLTensor t = tensor(3, shape, strides, 7 /* not a whole float32 */, kDLFloat, 32, 1);
  int bits;
  ndx_layout l = import_ok(&t, &bits, "empty");
  expect_layout(&l, 3, shape, (int64_t[]){0, 0, 0}, 0, "empty");
  t.byte_offset = UINT64_MAX;
  l = import_ok(&t, &bits, "empty, byte_offset UINT64_MAX");
  cr_assert_eq(l.offset, 0);
}

Test(dlpack, rank_0_with_null_shape) {
  DLTensor t = tensor(0, NULL, NULL, 16, kDLFloat, 64, 1);
  int bits;
  ndx_layout l = import_ok(&t, &bits, "rank 0");
  cr_assert_eq(l.rank, 0);
  cr_assert_eq(l.offset, 2);
  DLTensor e = tensor(-1, NULL, NULL, 0, kDLFloat, 0, 0);
  cr_assert_eq(ndx_dlpack_export(&e, &l, 64), NDX_OK, "%s", ndx_last_error());
  cr_assert_eq(e.ndim, 0);
  cr_assert_eq(e.byte_offset, 16);
  cr_assert_null(e.shape, "nothing written at rank 0");
}

/* ---- Export ---------------------------------------------------------------- */

/* export, then the DLTensor's addresses must be the layout's positions, and
 * import must give the layout back; a sub-byte layout that starts inside a
 * byte must be refused instead. */
Test(dlpack, export_then_import_is_the_identity_on_random_layouts) {
  oracle_rng r = {20261130};
  static const int widths[] = {1, 2, 4, 8, 16, 32, 64, 128};
  int exported = 0, inside_a_byte = 0;
  for (int iter = 0; iter < 4000; iter++) {
    int64_t shape[NDX_MAX_RANK] = {0}, strides[NDX_MAX_RANK] = {0};
    int rank = oracle_random_shape(&r, 6, 4, 8, shape);
    ndx_layout l = iter % 2 ? oracle_random_layout(&r, 6, 4, 9, 40)
                            : oracle_view_layout_of_shape(&r, rank, shape);
    int bits = widths[(iter / 2) % 8];
    DLTensor t = tensor(-1, shape, strides, 0, kDLUInt, 0, 1);
    char what[600];
    oracle_describe(what, sizeof what, &l);
    if (l.offset * bits % 8 != 0) {
      expect_export_fails(NDX_EUNSUPPORTED, &t, &l, bits, "no bit offset", what);
      inside_a_byte++;
      continue;
    }
    cr_assert_eq(ndx_dlpack_export(&t, &l, bits), NDX_OK, "%s, %d bits: %s", what, bits,
                 ndx_last_error());
    cr_assert_eq(t.dtype.bits * t.dtype.lanes, bits, "%s: width", what);
    int bits_back;
    ndx_layout back = import_ok(&t, &bits_back, what);
    cr_assert(ndx_equal(&back, &l), "%s, %d bits: import(export(l)) != l", what, bits);
    cr_assert_eq(bits_back, bits);
    expect_same_addresses(&t, &l, bits, 0, what);
    exported++;
  }
  cr_assert_gt(exported, 2000);
  cr_assert_gt(inside_a_byte, 100);
}

Test(dlpack, export_refuses_a_sub_byte_view_inside_a_byte) {
  ndx_layout a = contiguous(1, (int64_t[]){16}), v;
  cr_assert_eq(ndx_narrow(&v, &a, 0, 1, 8), NDX_OK);
  int64_t shape[1] = {0}, strides[1] = {0};
  DLTensor t = tensor(-1, shape, strides, 0, kDLUInt, 0, 1);
  expect_export_fails(NDX_EUNSUPPORTED, &t, &v, 4, "starts at bit 4 of byte 0", "4-bit, offset 1");
  expect_export_fails(NDX_EUNSUPPORTED, &t, &v, 1, "starts at bit 1 of byte 0", "1-bit, offset 1");
  cr_assert_eq(ndx_narrow(&v, &a, 0, 2, 8), NDX_OK);
  cr_assert_eq(ndx_dlpack_export(&t, &v, 4), NDX_OK, "offset 2 of 4 bits is byte 1");
  cr_assert_eq(t.byte_offset, 1);
  cr_assert_eq(t.dtype.bits, 4);
}

Test(dlpack, export_keeps_code_data_device_and_splits_lanes_by_the_callers_rule) {
  ndx_layout l = contiguous(2, (int64_t[]){3, 4});
  int64_t shape[2] = {0}, strides[2] = {0};
  struct {
    int bits;
    uint16_t lanes_in, bits_out, lanes_out;
  } cases[] = {
      {128, 4, 32, 4}, {128, 2, 64, 2}, {128, 3, 128, 1}, {128, 0, 128, 1}, {64, 1, 64, 1},
      {8, 8, 1, 8},    {4, 2, 4, 1},    {1, 1, 1, 1},     {16, 32, 16, 1},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    DLTensor t = tensor(-1, shape, strides, 0, kDLComplex, 99, cases[k].lanes_in);
    t.device.device_type = kDLOpenCL;
    t.device.device_id = 3;
    cr_assert_eq(ndx_dlpack_export(&t, &l, cases[k].bits), NDX_OK);
    cr_assert_eq(t.dtype.code, kDLComplex);
    cr_assert_eq(t.data, (void *)(uintptr_t)0x1000);
    cr_assert(t.device.device_type == kDLOpenCL && t.device.device_id == 3);
    cr_assert_eq(t.dtype.bits, cases[k].bits_out, "case %zu: bits %u", k, t.dtype.bits);
    cr_assert_eq(t.dtype.lanes, cases[k].lanes_out, "case %zu: lanes %u", k, t.dtype.lanes);
    int back;
    import_ok(&t, &back, "export's dtype");
    cr_assert_eq(back, cases[k].bits);
  }
}

Test(dlpack, export_fills_strides_of_a_contiguous_layout) {
  ndx_layout l = contiguous(3, (int64_t[]){2, 1, 5});
  int64_t shape[3], strides[3] = {-1, -1, -1};
  DLTensor t = tensor(-1, shape, strides, 0, kDLFloat, 0, 1);
  cr_assert_eq(ndx_dlpack_export(&t, &l, 32), NDX_OK);
  cr_assert_eq(t.strides, strides, "the caller's array, never NULL");
  cr_assert(strides[0] == 5 && strides[1] == 0 && strides[2] == 1);
}

/* ---- Views reaching below data: the base shift ------------------------ */

/* What NumPy's __dlpack__ hands out for a view: `data` at element [0,...,0],
 * byte_offset 0, strides in elements. */
static DLTensor numpy_view(int ndim, int64_t *shape, int64_t *strides, uint8_t bits) {
  return tensor(ndim, shape, strides, 0, kDLFloat, bits, 1);
}

/* Imports `t`, checks the shift against the brute-force rule and every
 * element address, and returns the layout. */
static ndx_layout import_checked(const DLTensor *t, int64_t *shift, const char *what) {
  int bits;
  ndx_layout l = import_shifted(t, &bits, shift, what);
  cr_assert_eq(bits, t->dtype.bits * t->dtype.lanes, "%s: width", what);
  cr_assert_eq(*shift, brute_force_shift(t, bits), "%s: shift %lld, brute force %lld", what,
               (long long)*shift, (long long)brute_force_shift(t, bits));
  expect_same_addresses(t, &l, bits, *shift, what);
  return l;
}

Test(dlpack_shift, a_numpy_flip_of_a_vector) {
  /* a[::-1] of 6 float64: data at a[5], strides [-1], byte_offset 0; element
   * 5 of the view is a[0], 40 bytes below data. */
  int64_t shape[] = {6}, strides[] = {-1};
  DLTensor t = numpy_view(1, shape, strides, 64);
  int64_t shift;
  ndx_layout l = import_checked(&t, &shift, "a[::-1]");
  cr_assert_eq(shift, -40);
  expect_layout(&l, 1, shape, strides, 5, "a[::-1]");
  /* ndx's own flip of the compact vector: the same positions from a[0] */
  ndx_layout a = contiguous(1, shape), f;
  cr_assert_eq(ndx_flip(&f, &a, 0), NDX_OK);
  cr_assert(ndx_equal(&l, &f), "import(a[::-1]) == ndx_flip(a)");
  expect_needs_shift(&t, "a[::-1]");
}

Test(dlpack_shift, numpy_flips_on_each_axis_and_both) {
  /* np.flip of a [3,4] float32 array on axis 0, axis 1 and both: the import
   * is ndx_flip of the compact layout, counted from a[0,0]. */
  int64_t shape[] = {3, 4};
  ndx_layout a = contiguous(2, shape);
  struct {
    const char *name;
    int64_t strides[2], shift;
    int axes; /* bit k: axis k flipped */
  } cases[] = {
      {"np.flip(a, 0)", {-4, 1}, -32, 1},
      {"np.flip(a, 1)", {4, -1}, -12, 2},
      {"np.flip(a)", {-4, -1}, -44, 3},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    DLTensor t = numpy_view(2, shape, cases[k].strides, 32);
    int64_t shift;
    ndx_layout l = import_checked(&t, &shift, cases[k].name);
    cr_assert_eq(shift, cases[k].shift, "%s: shift %lld", cases[k].name, (long long)shift);
    ndx_layout f = a;
    for (int axis = 0; axis < 2; axis++)
      if (cases[k].axes & (1 << axis)) cr_assert_eq(ndx_flip(&f, &f, axis), NDX_OK);
    cr_assert(ndx_equal(&l, &f), "%s: the flip ndx makes", cases[k].name);
  }
}

Test(dlpack_shift, negative_step_slices) {
  /* a[::-2], a[5:0:-2], a[-2::-3] of 9 int16 and a[::-1, ::2] of [4,6]: data
   * at the view's first element, which is not the last in memory in all. */
  struct {
    const char *name;
    int ndim;
    int64_t shape[2], strides[2], shift, offset;
  } cases[] = {
      {"a[::-2] (data at a[8])", 1, {5}, {-2}, -16, 8},
      {"a[5:0:-2] (data at a[5])", 1, {3}, {-2}, -8, 4},
      {"a[-2::-3] (data at a[7])", 1, {3}, {-3}, -12, 6},
      {"b[::-1, ::2] (data at b[3,0])", 2, {4, 3}, {-6, 2}, -36, 18},
      {"b[::-2, ::-3] (data at b[3,5])", 2, {2, 2}, {-12, -3}, -30, 15},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    DLTensor t = numpy_view(cases[k].ndim, cases[k].shape, cases[k].strides, 16);
    int64_t shift;
    ndx_layout l = import_checked(&t, &shift, cases[k].name);
    cr_assert_eq(shift, cases[k].shift, "%s: shift %lld", cases[k].name, (long long)shift);
    cr_assert_eq(l.offset, cases[k].offset, "%s: offset %lld", cases[k].name, (long long)l.offset);
  }
}

Test(dlpack_shift, transposes_with_negative_strides) {
  /* a is [2,3,4] float32 in C order. a.transpose(2,0,1)[::-1] has strides
   * [-1,12,4] with data at a[0,0,3]; a.T[:, ::-1, ::-1] has [1,-4,-12] with
   * data at a[1,2,0]. Each is ndx's permute-and-flip of the compact layout. */
  int64_t shape[] = {2, 3, 4};
  ndx_layout a = contiguous(3, shape), v;
  int64_t s1[] = {4, 2, 3}, st1[] = {-1, 12, 4};
  DLTensor t = numpy_view(3, s1, st1, 32);
  int64_t shift;
  ndx_layout l = import_checked(&t, &shift, "a.transpose(2,0,1)[::-1]");
  cr_assert_eq(shift, -12);
  cr_assert_eq(ndx_permute(&v, &a, (int32_t[]){2, 0, 1}), NDX_OK);
  cr_assert_eq(ndx_flip(&v, &v, 0), NDX_OK);
  cr_assert(ndx_equal(&l, &v), "a.transpose(2,0,1)[::-1]");

  int64_t s2[] = {4, 3, 2}, st2[] = {1, -4, -12};
  t = numpy_view(3, s2, st2, 32);
  l = import_checked(&t, &shift, "a.T[:, ::-1, ::-1]");
  cr_assert_eq(shift, -80, "a[1,2,0] is element 20");
  cr_assert_eq(ndx_permute(&v, &a, (int32_t[]){2, 1, 0}), NDX_OK);
  cr_assert_eq(ndx_flip(&v, &v, 1), NDX_OK);
  cr_assert_eq(ndx_flip(&v, &v, 2), NDX_OK);
  cr_assert(ndx_equal(&l, &v), "a.T[:, ::-1, ::-1]");
}

Test(dlpack_shift, byte_offset_that_covers_part_or_all_of_the_reach) {
  /* a flip of 6 float32 reaching 5 elements back: from byte_offset 8 (2
   * elements) 3 remain below data, 12 bytes; from byte_offset 20 or more none
   * does and the layout is the one it always was (offset = byte_offset / 4). */
  int64_t shape[] = {6}, strides[] = {-1};
  struct {
    uint64_t byte_offset;
    int64_t shift, offset;
  } cases[] = {{0, -20, 5}, {4, -16, 5}, {8, -12, 5}, {16, -4, 5}, {20, 0, 5}, {24, 0, 6}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    DLTensor t = tensor(1, shape, strides, cases[k].byte_offset, kDLFloat, 32, 1);
    char what[64];
    snprintf(what, sizeof what, "flip from byte_offset %llu",
             (unsigned long long)cases[k].byte_offset);
    int64_t shift;
    ndx_layout l = import_checked(&t, &shift, what);
    cr_assert_eq(shift, cases[k].shift, "%s: shift %lld", what, (long long)shift);
    cr_assert_eq(l.offset, cases[k].offset, "%s: offset %lld", what, (long long)l.offset);
    if (cases[k].shift == 0) {
      int bits;
      import_ok(&t, &bits, what); /* NULL base_shift accepts it too, identically */
    } else {
      expect_needs_shift(&t, what);
    }
  }
}

Test(dlpack_shift, sub_byte_widths_shift_whole_bytes) {
  /* The shift is whole bytes, so the lowest position may sit inside the base
   * byte: literals for 4-, 2- and 1-bit flips, then the brute-force rule. */
  struct {
    uint8_t bits;
    int64_t extent, stride;
    uint64_t byte_offset;
    int64_t shift, offset, lowest;
  } cases[] = {
      {4, 5, -1, 0, -2, 4, 0},   /* 4 nibbles below: 2 bytes */
      {4, 4, -1, 0, -2, 4, 1},   /* 3 nibbles below: 2 bytes, lowest nibble 1 */
      {4, 4, -1, 1, -1, 4, 1},   /* byte_offset 1 covers 2 of the 3 */
      {2, 3, -3, 0, -2, 8, 2},   /* 6 crumbs below: 12 bits, 2 bytes */
      {1, 12, -1, 1, -1, 16, 5}, /* 11 bits back from bit 8: bit -3 */
      {1, 9, -1, 1, 0, 8, 0},    /* back to bit 0 exactly: no shift */
      {1, 3, -5, 0, -2, 16, 6},  /* bit -10 */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    int64_t shape[] = {cases[k].extent}, strides[] = {cases[k].stride};
    DLTensor t = tensor(1, shape, strides, cases[k].byte_offset, kDLUInt, cases[k].bits, 1);
    char what[80];
    snprintf(what, sizeof what, "%u-bit, extent %lld, stride %lld, byte_offset %llu", cases[k].bits,
             (long long)cases[k].extent, (long long)cases[k].stride,
             (unsigned long long)cases[k].byte_offset);
    int64_t shift, lo, hi;
    ndx_layout l = import_checked(&t, &shift, what);
    cr_assert_eq(shift, cases[k].shift, "%s: shift %lld", what, (long long)shift);
    cr_assert_eq(l.offset, cases[k].offset, "%s: offset %lld", what, (long long)l.offset);
    ndx_span(&l, &lo, &hi);
    cr_assert_eq(lo, cases[k].lowest, "%s: lowest position %lld", what, (long long)lo);
    cr_assert_lt(lo, 8 / cases[k].bits, "%s: the lowest element is in the base byte", what);
  }
}

/* Random DLTensors of small shapes, strides of both signs and byte_offsets
 * from 0 up, at every width: the shift is the brute-force one, every address
 * is DLPack's, the lowest position is 0 (in the base byte for sub-byte
 * widths), and a NULL base_shift accepts exactly the tensors of shift 0. Then
 * export on the new base gives a tensor with the same element addresses
 * that imports with shift 0. */
Test(dlpack_shift, random_tensors_against_brute_force) {
  oracle_rng r = {77001};
  static const int widths[] = {1, 2, 4, 8, 16, 32, 64, 128};
  int shifted = 0, unshifted = 0, sub_byte_inside = 0;
  for (int iter = 0; iter < 6000; iter++) {
    int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK];
    int rank = oracle_random_shape(&r, 5, 4, 12, shape);
    for (int a = 0; a < rank; a++) strides[a] = oracle_between(&r, -9, 9);
    int width = widths[iter % 8];
    /* a byte_offset that is a whole number of elements */
    int64_t elements = oracle_between(&r, 0, 3) == 0 ? 0 : oracle_between(&r, 0, 40);
    uint64_t byte_offset = (uint64_t)(width >= 8 ? elements * (width / 8) : elements);
    DLTensor t = tensor(rank, shape, oracle_between(&r, 0, 9) ? strides : NULL, byte_offset,
                        kDLUInt, (uint8_t)width, 1);
    char what[700];
    ndx_layout raw = {.rank = rank};
    for (int a = 0; a < rank; a++) raw.shape[a] = shape[a], raw.strides[a] = strides[a];
    oracle_describe(what, sizeof what, &raw);
    snprintf(what + strlen(what), sizeof what - strlen(what), " %s, byte_offset %llu, %d bits",
             t.strides ? "" : "(NULL strides)", (unsigned long long)byte_offset, width);

    int64_t shift;
    ndx_layout l = import_checked(&t, &shift, what);
    int64_t lo, hi;
    ndx_span(&l, &lo, &hi);
    if (oracle_numel(&l) > 0 && shift < 0) {
      cr_assert_lt(lo, width >= 8 ? 1 : 8 / width, "%s: lowest position %lld", what, (long long)lo);
      if (lo > 0) sub_byte_inside++;
    }
    ndx_layout plain, untouched;
    memset(&plain, 0x77, sizeof plain);
    untouched = plain;
    int bits = -1;
    ndx_status s = ndx_dlpack_import(&plain, &bits, NULL, &t);
    if (shift == 0) {
      cr_assert_eq(s, NDX_OK, "%s: shift 0, yet refused without base_shift: %s", what,
                   ndx_last_error());
      cr_assert(ndx_equal(&plain, &l), "%s: NULL base_shift gives another layout", what);
      unshifted++;
    } else {
      cr_assert_eq(s, NDX_ERANGE, "%s: shift %lld, yet accepted without base_shift", what,
                   (long long)shift);
      cr_assert(memcmp(&plain, &untouched, sizeof plain) == 0 && bits == -1,
                "%s: outputs written on failure", what);
      cr_assert(strstr(ndx_last_error(), "below t->data"), "%s: %s", what, ndx_last_error());
      shifted++;
    }

    /* export on the new base: byte_offset from data + shift */
    int64_t eshape[NDX_MAX_RANK], estrides[NDX_MAX_RANK];
    DLTensor e = tensor(-1, eshape, estrides, 0, kDLUInt, 0, 1);
    e.data = (char *)t.data + shift;
    cr_assert_eq(ndx_dlpack_export(&e, &l, width), NDX_OK, "%s: export: %s", what,
                 ndx_last_error());
    int64_t index[NDX_MAX_RANK];
    for (int64_t k = 0; k < oracle_numel(&l); k++) {
      oracle_unravel(rank, shape, k, index);
      cr_assert_eq((intptr_t)e.data * 8 + dl_bit_address(&e, index, width),
                   (intptr_t)t.data * 8 + dl_bit_address(&t, index, width),
                   "%s: element %lld moved in the round trip", what, (long long)k);
    }
    int bits2;
    ndx_layout back = import_ok(&e, &bits2, what);
    cr_assert(ndx_equal(&back, &l), "%s: import(export(l)) != l", what);
  }
  cr_assert_gt(shifted, 1000, "a fair share needs a shift (%d)", shifted);
  cr_assert_gt(unshifted, 1000, "a fair share needs none (%d)", unshifted);
  cr_assert_gt(sub_byte_inside, 50, "sub-byte bases inside a byte (%d)", sub_byte_inside);
}

Test(dlpack_shift, rank_32_with_every_axis_reversed) {
  int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK], step = 1;
  for (int a = NDX_MAX_RANK - 1; a >= 0; a--) {
    shape[a] = a % 8 == 0 ? 2 : 1;
    strides[a] = -step;
    step *= shape[a];
  }
  DLTensor t = numpy_view(NDX_MAX_RANK, shape, strides, 16);
  int64_t shift;
  ndx_layout l = import_checked(&t, &shift, "rank 32, all reversed");
  cr_assert_eq(shift, -(step - 1) * 2, "15 float16 elements below data");
  cr_assert_eq(l.offset, step - 1);
}

Test(dlpack_shift, limits_after_the_shift) {
  int64_t one[] = {2}, s1[] = {-(P53 - 1)};
  /* the longest reach back: 2^53 - 1 bytes below data, positions 0 and 2^53-1 */
  DLTensor t = tensor(1, one, s1, 0, kDLUInt, 8, 1);
  int bits;
  int64_t shift;
  ndx_layout l = import_shifted(&t, &bits, &shift, "2^53 - 1 below");
  cr_assert_eq(shift, -(P53 - 1));
  cr_assert_eq(l.offset, P53 - 1);
  /* one more is 2^53 elements below data */
  int64_t three[] = {3}, s3[] = {-(P53 / 2)};
  t = tensor(1, three, s3, 0, kDLUInt, 8, 1);
  expect_shifted_import_fails(NDX_ERANGE, &t, "2^53 or more elements below t->data", "2^53 below");
  /* the reach back overflows int64 before any check could count it */
  int64_t cube[] = {2, 2, 2},
          big[] = {-(INT64_C(1) << 62), -(INT64_C(1) << 62), -(INT64_C(1) << 62)};
  t = tensor(3, cube, big, 0, kDLUInt, 8, 1);
  expect_shifted_import_fails(NDX_ERANGE, &t, "below INT64_MIN", "3 * 2^62 below");
  /* below and above together: positions [0, 2^53] from the base */
  int64_t two[] = {2, 2}, s2[] = {-(P53 / 2), P53 / 2};
  t = tensor(2, two, s2, 0, kDLUInt, 8, 1);
  expect_shifted_import_fails(NDX_ERANGE, &t, "counted from base_shift -4503599627370496 bytes",
                              "span of 2^53 + 1 after the shift");
  s2[1] = P53 / 2 - 1;
  l = import_shifted(&t, &bits, &shift, "span of 2^53 after the shift");
  cr_assert_eq(shift, -(P53 / 2));
  /* sub-byte: rounding down to a whole byte moves the end past 2^53 - 1 */
  int64_t s1b[] = {-(P53 - 1)};
  t = tensor(1, one, s1b, 0, kDLUInt, 1, 1);
  expect_shifted_import_fails(NDX_ERANGE, &t, "counted from base_shift -1125899906842624 bytes",
                              "1-bit, rounded to a whole byte");
  s1b[0] = -(P53 - 8);
  l = import_shifted(&t, &bits, &shift, "1-bit, 2^53 - 8 bits below");
  cr_assert_eq(shift, -(P53 / 8 - 1));
  cr_assert_eq(l.offset, P53 - 8);
  expect_needs_shift(&t, "1-bit, 2^53 - 8 bits below");
}

Test(dlpack_shift, an_empty_view_needs_no_shift) {
  int64_t shape[] = {3, 0}, strides[] = {-5, -1};
  DLTensor t = numpy_view(2, shape, strides, 32);
  int bits;
  ndx_layout l = import_ok(&t, &bits, "empty flip");
  expect_layout(&l, 2, shape, (int64_t[]){0, 0}, 0, "empty flip");
}

/* ---- Hostile DLTensors ---------------------------------------------------- */

Test(dlpack_hostile, null_arguments) {
  int64_t shape[] = {2};
  DLTensor t = tensor(1, shape, NULL, 0, kDLFloat, 32, 1);
  expect_import_fails(NDX_EINVAL, NULL, "t is NULL", "NULL t");
  ndx_layout l;
  int bits = -77;
  int64_t shift = 12345;
  cr_assert_eq(ndx_dlpack_import(NULL, &bits, &shift, &t), NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), "out is NULL"), "%s", ndx_last_error());
  cr_assert(bits == -77 && shift == 12345, "outputs untouched");
  cr_assert_eq(ndx_dlpack_import(&l, NULL, &shift, &t), NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), "bits is NULL"), "%s", ndx_last_error());
  cr_assert_eq(shift, 12345, "base_shift untouched");
  t.shape = NULL;
  expect_import_fails(NDX_EINVAL, &t, "t->shape is NULL at rank 1", "NULL shape, ndim 1");
}

Test(dlpack_hostile, ndim_out_of_range) {
  int64_t shape[NDX_MAX_RANK + 1];
  for (int a = 0; a <= NDX_MAX_RANK; a++) shape[a] = 1;
  DLTensor t = tensor(-1, shape, NULL, 0, kDLFloat, 32, 1);
  expect_import_fails(NDX_EINVAL, &t, "t->ndim is -1", "ndim -1");
  t.ndim = INT32_MIN;
  expect_import_fails(NDX_EINVAL, &t, "t->ndim is -2147483648", "ndim INT32_MIN");
  t.ndim = 33;
  expect_import_fails(NDX_ERANGE, &t, "t->ndim is 33", "ndim 33");
  t.ndim = INT32_MAX;
  expect_import_fails(NDX_ERANGE, &t, "t->ndim is 2147483647", "ndim INT32_MAX");
  t.ndim = 32;
  int bits;
  ndx_layout l = import_ok(&t, &bits, "ndim 32 is the limit");
  cr_assert_eq(l.rank, 32);
}

Test(dlpack_hostile, negative_extent) {
  int64_t shape[] = {2, -5, 3};
  DLTensor t = tensor(3, shape, NULL, 0, kDLFloat, 32, 1);
  expect_import_fails(NDX_EINVAL, &t, "axis 1 has negative extent -5", "negative extent");
  shape[1] = INT64_MIN;
  expect_import_fails(NDX_EINVAL, &t, "-9223372036854775808", "extent INT64_MIN");
}

Test(dlpack_hostile, extents_multiplying_past_the_limit) {
  int64_t shape[] = {INT64_C(1) << 32, INT64_C(1) << 32};
  DLTensor t = tensor(2, shape, NULL, 0, kDLFloat, 32, 1);
  expect_import_fails(NDX_ERANGE, &t, "[4294967296,4294967296]", "product wraps to 0 in uint64");
  int64_t big[] = {P53 + 1};
  t = tensor(1, big, NULL, 0, kDLUInt, 8, 1);
  expect_import_fails(NDX_ERANGE, &t, "9007199254740993", "one extent past 2^53");
  int64_t wide[] = {INT64_MAX, 2};
  t = tensor(2, wide, NULL, 0, kDLUInt, 8, 1);
  expect_import_fails(NDX_ERANGE, &t, "past 2^53", "INT64_MAX extent");
}

Test(dlpack_hostile, strides_at_the_int64_ends) {
  int64_t shape[] = {3, 2}, strides[] = {1, INT64_MIN};
  DLTensor t = tensor(2, shape, strides, 0, kDLFloat, 32, 1);
  expect_import_fails(NDX_ERANGE, &t, "axis 1", "INT64_MIN stride");
  cr_assert(strstr(ndx_last_error(), "-9223372036854775808"), "%s", ndx_last_error());
  strides[1] = INT64_MAX;
  expect_import_fails(NDX_ERANGE, &t, "9223372036854775807", "INT64_MAX stride, extent 2");
  shape[0] = 3;
  strides[0] = INT64_MAX;
  strides[1] = 1;
  expect_import_fails(NDX_ERANGE, &t, "axis 0", "(3 - 1) * INT64_MAX overflows");
  /* a negative stride from byte_offset 0 reaches below data: refused without
   * a base_shift, moved by one with it */
  strides[0] = -(INT64_C(1) << 40);
  ndx_layout before, out;
  memset(&out, 0x33, sizeof out);
  before = out;
  int width = -1;
  cr_assert_eq(ndx_dlpack_import(&out, &width, NULL, &t), NDX_ERANGE);
  cr_assert(strstr(ndx_last_error(), "reaches element position -2199023255552 of 32 bits, "
                                     "below t->data, and base_shift is NULL"),
            "%s", ndx_last_error());
  cr_assert(memcmp(&out, &before, sizeof out) == 0 && width == -1, "outputs untouched");
  int64_t shift;
  out = import_shifted(&t, &width, &shift, "a negative stride from byte_offset 0");
  cr_assert_eq(shift, -(INT64_C(1) << 43), "2^41 float32 elements below data");
  expect_layout(&out, 2, shape, (int64_t[]){-(INT64_C(1) << 40), 1}, INT64_C(1) << 41,
                "a negative stride from byte_offset 0");
  /* an extent-1 axis drops its stride, INT64_MIN included (the canonical form) */
  int64_t one[] = {1, 4}, odd[] = {INT64_MIN, 1};
  t = tensor(2, one, odd, 0, kDLFloat, 32, 1);
  int bits;
  ndx_layout l = import_ok(&t, &bits, "INT64_MIN on an extent-1 axis");
  expect_layout(&l, 2, one, (int64_t[]){0, 1}, 0, "INT64_MIN on an extent-1 axis");
}

Test(dlpack_hostile, byte_offset_not_a_whole_element) {
  int64_t shape[] = {4};
  struct {
    uint8_t bits;
    uint16_t lanes;
    uint64_t byte_offset;
    const char *names;
  } cases[] = {
      {32, 1, 2, "t->byte_offset 2 is not a whole number of 32-bit elements"},
      {16, 1, 1, "t->byte_offset 1 is not a whole number of 16-bit elements"},
      {32, 4, 8, "t->byte_offset 8 is not a whole number of 128-bit elements"},
      {64, 1, UINT64_MAX, "t->byte_offset 18446744073709551615 is not a whole"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    DLTensor t =
        tensor(1, shape, NULL, cases[k].byte_offset, kDLFloat, cases[k].bits, cases[k].lanes);
    expect_import_fails(NDX_EUNSUPPORTED, &t, cases[k].names, cases[k].names);
  }
}

Test(dlpack_hostile, byte_offset_near_uint64_max) {
  int64_t shape[] = {4};
  DLTensor t = tensor(1, shape, NULL, UINT64_MAX, kDLUInt, 8, 1);
  expect_import_fails(NDX_ERANGE, &t, "t->byte_offset 18446744073709551615", "8-bit");
  t = tensor(1, shape, NULL, UINT64_MAX - 7, kDLUInt, 64, 1);
  expect_import_fails(NDX_ERANGE, &t, "element position 2305843009213693951", "64-bit");
  t = tensor(1, shape, NULL, UINT64_MAX / 2 + 1, kDLUInt, 1, 1);
  expect_import_fails(NDX_ERANGE, &t, "above UINT64_MAX", "1-bit: byte_offset * 8 wraps");
  t = tensor(1, shape, NULL, (uint64_t)P53, kDLUInt, 8, 1);
  expect_import_fails(NDX_ERANGE, &t, "element position 9007199254740992", "exactly 2^53");
  /* the last element ends at 2^53 exactly: accepted */
  t = tensor(1, shape, NULL, (uint64_t)P53 - 4, kDLUInt, 8, 1);
  int bits;
  ndx_layout l = import_ok(&t, &bits, "span ends at 2^53");
  cr_assert_eq(l.offset, P53 - 4);
  t.byte_offset++;
  expect_import_fails(NDX_ERANGE, &t, "past 2^53", "span ends past 2^53");
}

Test(dlpack_hostile, dtype_widths_ndx_does_not_copy) {
  int64_t shape[] = {4};
  struct {
    uint8_t code, bits;
    uint16_t lanes;
    ndx_status want;
    const char *names;
  } cases[] = {
      {kDLFloat, 24, 1, NDX_EUNSUPPORTED, "{code 2 (float), bits 24, lanes 1} is 24 bits"},
      {kDLInt, 0, 1, NDX_EUNSUPPORTED, "{code 0 (int), bits 0, lanes 1} is 0 bits"},
      {kDLInt, 8, 0, NDX_EUNSUPPORTED, "{code 0 (int), bits 8, lanes 0} is 0 bits"},
      {kDLUInt, 8, 3, NDX_EUNSUPPORTED, "lanes 3} is 24 bits"},
      {kDLFloat, 32, 8, NDX_EUNSUPPORTED, "lanes 8} is 256 bits"},
      {kDLFloat, 255, 65535, NDX_EUNSUPPORTED, "is 16711425 bits"},
      {16, 6, 1, NDX_EUNSUPPORTED, "(float6_e3m2fn), bits 6"},
      {kDLInt, 1, 4, NDX_EUNSUPPORTED, "a vector of 4 lanes in 4 bits"},
      {kDLInt, 2, 2, NDX_EUNSUPPORTED, "a vector of 2 lanes in 4 bits"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    DLTensor t = tensor(1, shape, NULL, 0, cases[k].code, cases[k].bits, cases[k].lanes);
    expect_import_fails(cases[k].want, &t, cases[k].names, cases[k].names);
  }
}

Test(dlpack_hostile, export_arguments) {
  ndx_layout l = contiguous(2, (int64_t[]){3, 4});
  int64_t shape[2] = {-9, -9}, strides[2] = {-9, -9};
  DLTensor t = tensor(-1, shape, strides, 5, kDLFloat, 7, 1);
  cr_assert_eq(ndx_dlpack_export(NULL, &l, 32), NDX_EINVAL);
  cr_assert(strstr(ndx_last_error(), "ndx_dlpack_export: t is NULL"), "%s", ndx_last_error());
  expect_export_fails(NDX_EINVAL, &t, NULL, 32, "l is NULL", "NULL l");
  t.shape = NULL;
  expect_export_fails(NDX_EINVAL, &t, &l, 32, "t->shape is NULL at rank 2", "NULL shape");
  t.shape = shape;
  t.strides = NULL;
  expect_export_fails(NDX_EINVAL, &t, &l, 32, "t->strides is NULL at rank 2", "NULL strides");
  t.strides = strides;
  expect_export_fails(NDX_EINVAL, &t, &l, 0, "bits is 0", "bits 0");
  expect_export_fails(NDX_EINVAL, &t, &l, 24, "bits is 24", "bits 24");
  expect_export_fails(NDX_EINVAL, &t, &l, 256, "bits is 256", "bits 256");
  ndx_layout bad = l;
  bad.rank = 33;
  expect_export_fails(NDX_EINVAL, &t, &bad, 32, "rank 33", "hand-made rank 33");
  bad = l;
  bad.offset = -1;
  expect_export_fails(NDX_EUNSUPPORTED, &t, &bad, 32, "l->offset -1 is negative",
                      "hand-made negative offset");
  bad.offset = INT64_MIN;
  expect_export_fails(NDX_EUNSUPPORTED, &t, &bad, 32, "l->offset -9223372036854775808 is negative",
                      "hand-made offset INT64_MIN");
  bad.offset = INT64_MAX;
  expect_export_fails(NDX_EINVAL, &t, &bad, 128, "9223372036854775807",
                      "hand-made offset INT64_MAX (times 128 would wrap)");
  bad.offset = P53;
  expect_export_fails(NDX_EINVAL, &t, &bad, 8, "9007199254740992", "hand-made offset 2^53");
}

/* ---- Number types ----------------------------------------------------------------- */

/* Each ndx_dtype and DLPack 1.1's code and bits for it (dlpack.h: kDLInt 0,
 * kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6, kDLFloat8_e4m3fn 10,
 * kDLFloat8_e5m2 12, kDLFloat4_e2m1fn 17). */
static const struct {
  ndx_dtype t;
  uint8_t code, bits;
} dl_literals[] = {
    {NDX_BOOL, 6, 8},    {NDX_I8, 0, 8},        {NDX_I16, 0, 16}, {NDX_I32, 0, 32},
    {NDX_I64, 0, 64},    {NDX_U8, 1, 8},        {NDX_U16, 1, 16}, {NDX_U32, 1, 32},
    {NDX_U64, 1, 64},    {NDX_I4, 0, 4},        {NDX_U4, 1, 4},   {NDX_F16, 2, 16},
    {NDX_BF16, 4, 16},   {NDX_F32, 2, 32},      {NDX_F64, 2, 64}, {NDX_F8E4M3FN, 10, 8},
    {NDX_F8E5M2, 12, 8}, {NDX_F4E2M1FN, 17, 4},
};

Test(dlpack, every_ndx_dtype_is_its_dlpack_code_and_back) {
  cr_assert_eq(sizeof dl_literals / sizeof dl_literals[0], 18);
  for (size_t i = 0; i < sizeof dl_literals / sizeof dl_literals[0]; i++) {
    DLDataType dt = {0, 0, 7};
    cr_assert_eq(ndx_dlpack_from_dtype(&dt, dl_literals[i].t), NDX_OK, "%s", ndx_last_error());
    cr_assert(dt.code == dl_literals[i].code && dt.bits == dl_literals[i].bits && dt.lanes == 1,
              "%s: {%u, %u, %u}", ndx_dtype_name(dl_literals[i].t), dt.code, dt.bits, dt.lanes);
    cr_assert_eq(dt.bits, ndx_dtype_bits(dl_literals[i].t));
    ndx_dtype back = (ndx_dtype)-1;
    cr_assert_eq(ndx_dlpack_dtype(&back, dt), NDX_OK, "%s", ndx_last_error());
    cr_assert_eq(back, dl_literals[i].t, "%s", ndx_dtype_name(dl_literals[i].t));
  }
}

Test(dlpack, other_dlpack_types_are_refused_and_named) {
  static const DLDataType others[] = {
      {5, 64, 1},  /* complex64 */
      {11, 8, 1},  /* float8_e4m3fnuz */
      {14, 8, 1},  /* float8_e8m0fnu */
      {16, 6, 1},  /* float6_e3m2fn */
      {2, 32, 4},  /* float32x4: a vector */
      {2, 8, 1},   /* a float of 8 bits: no such code/width pair */
      {6, 1, 1},   /* bool of 1 bit */
      {4, 32, 1},  /* bfloat of 32 bits */
      {3, 64, 1},  /* opaque handle */
      {200, 8, 1}, /* past every code */
  };
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
    ndx_dtype t = NDX_F32;
    cr_assert_eq(ndx_dlpack_dtype(&t, others[i]), NDX_EUNSUPPORTED, "type %zu", i);
    cr_assert_eq(t, NDX_F32, "type %zu: out untouched", i);
    char want[40];
    snprintf(want, sizeof want, "{code %u", others[i].code);
    cr_assert(strstr(ndx_last_error(), "ndx_dlpack_dtype") && strstr(ndx_last_error(), want), "%s",
              ndx_last_error());
  }
  cr_assert_eq(ndx_dlpack_dtype(NULL, others[0]), NDX_EINVAL);
  DLDataType dt = {9, 9, 9};
  cr_assert_eq(ndx_dlpack_from_dtype(&dt, (ndx_dtype)18), NDX_EINVAL);
  cr_assert_eq(ndx_dlpack_from_dtype(&dt, (ndx_dtype)-1), NDX_EINVAL);
  cr_assert(dt.code == 9 && dt.bits == 9 && dt.lanes == 9, "out untouched");
  cr_assert(strstr(ndx_last_error(), "ndx_dlpack_from_dtype: t is -1"), "%s", ndx_last_error());
  cr_assert_eq(ndx_dlpack_from_dtype(NULL, NDX_F32), NDX_EINVAL);
}
