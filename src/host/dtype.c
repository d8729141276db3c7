/* dtype.c: the number types' widths and names (ndx_dtype.h). */
#include <string.h>

#include "ndx/ndx_dtype.h"
#include "ndx_internal.h"

#define NDX_DTYPE_COUNT ((int)NDX_F4E2M1FN + 1)

static const struct {
  const char *name;
  int bits;
} types[NDX_DTYPE_COUNT] = {
    [NDX_BOOL] = {"bool", 8},     [NDX_I8] = {"i8", 8},
    [NDX_I16] = {"i16", 16},      [NDX_I32] = {"i32", 32},
    [NDX_I64] = {"i64", 64},      [NDX_U8] = {"u8", 8},
    [NDX_U16] = {"u16", 16},      [NDX_U32] = {"u32", 32},
    [NDX_U64] = {"u64", 64},      [NDX_I4] = {"i4", 4},
    [NDX_U4] = {"u4", 4},         [NDX_F16] = {"f16", 16},
    [NDX_BF16] = {"bf16", 16},    [NDX_F32] = {"f32", 32},
    [NDX_F64] = {"f64", 64},      [NDX_F8E4M3FN] = {"f8e4m3fn", 8},
    [NDX_F8E5M2] = {"f8e5m2", 8}, [NDX_F4E2M1FN] = {"f4e2m1fn", 4},
};

/* Compared as an int: an enum's values outside its enumerators are not
 * the compiler's to assume away. */
static bool known(ndx_dtype t) {
  return (int)t >= 0 && (int)t < NDX_DTYPE_COUNT;
}

int ndx_dtype_bits(ndx_dtype t) {
  return known(t) ? types[t].bits : 0;
}

const char *ndx_dtype_name(ndx_dtype t) {
  return known(t) ? types[t].name : NULL;
}

/* A name longer than this is shown cut, with "..." after it. */
#define NDX_DTYPE_SHOWN 64

ndx_status ndx_dtype_parse(ndx_dtype *out, const char *name) {
  if (!out || !name)
    return ndx_set_error(NDX_EINVAL, "ndx_dtype_parse: %s is NULL", out ? "name" : "out");
  for (int t = 0; t < NDX_DTYPE_COUNT; t++) {
    if (strcmp(name, types[t].name) == 0) {
      *out = (ndx_dtype)t;
      return NDX_OK;
    }
  }
  char valid[256] = "";
  for (int t = 0; t < NDX_DTYPE_COUNT; t++) {
    if (t > 0) strcat(valid, ", ");
    strcat(valid, types[t].name);
  }
  size_t n = strlen(name);
  return ndx_set_error(NDX_EINVAL,
                       "ndx_dtype_parse: name \"%.*s%s\" is not a type; the types are %s",
                       NDX_DTYPE_SHOWN, name, n > NDX_DTYPE_SHOWN ? "..." : "", valid);
}
