/* copy_plan.c: the planning steps both device runtimes share (copy_plan.h). */
#include "copy_plan.h"

#define NDX_WIDE 0
#include "ndx/ndx_device.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx/ndx_device.h"

bool ndx_copy_bits_ok(int bits) {
  return bits >= 1 && bits <= 128 && (bits & (bits - 1)) == 0;
}

ndx_status ndx_copy_check(const char *call, const ndx_layout *dst, const ndx_layout *src,
                          int bits) {
  if (!ndx_copy_bits_ok(bits))
    return ndx_set_error(NDX_EINVAL, "%s: bits is %d, not one of 1, 2, 4, 8, 16, 32, 64, 128", call,
                         bits);
  ndx_status st = ndx_check_layout(call, "dst_l", dst);
  if (st == NDX_OK) st = ndx_check_layout(call, "src_l", src);
  if (st != NDX_OK) return st;
  bool same = dst->rank == src->rank;
  for (int a = 0; same && a < dst->rank; a++) same = dst->shape[a] == src->shape[a];
  char d[NDX_DIMS_BUF], s[NDX_DIMS_BUF];
  if (!same)
    return ndx_set_error(NDX_EINVAL, "%s: dst_l has shape %s, src_l has %s", call,
                         ndx_fmt_dims(d, sizeof d, dst->rank, dst->shape),
                         ndx_fmt_dims(s, sizeof s, src->rank, src->shape));
  if (!ndx_is_distinct(dst))
    return ndx_set_error(
        NDX_EINVAL,
        "%s: dst_l (shape %s, strides %s) is not distinct: two elements would share "
        "a position",
        call, ndx_fmt_dims(d, sizeof d, dst->rank, dst->shape),
        ndx_fmt_dims(s, sizeof s, dst->rank, dst->strides));
  return NDX_OK;
}

void ndx_copy_pair_read(const ndx_pack_head *p, ndx_copy_pair *q) {
  q->rank = (int)p->rank;
  q->numel = p->numel;
  q->od = p->wide ? ndx_offset_w64(p, 0) : ndx_offset_w32(p, 0);
  q->os = p->wide ? ndx_offset_w64(p, 1) : ndx_offset_w32(p, 1);
  for (int a = 0; a < q->rank; a++) {
    q->d[a] = p->wide ? ndx_extent_w64(p, a) : ndx_extent_w32(p, a);
    q->sd[a] = p->wide ? ndx_stride_w64(p, 0, a) : ndx_stride_w32(p, 0, a);
    q->ss[a] = p->wide ? ndx_stride_w64(p, 1, a) : ndx_stride_w32(p, 1, a);
  }
}

int ndx_copy_transpose_axis(const ndx_copy_pair *q) {
  for (int a = q->rank - 2; a >= 0; a--)
    if (q->ss[a] == 1 || q->ss[a] == -1) return a;
  return -1;
}

void ndx_copy_byte_span(const ndx_layout *l, int bits, int64_t *lo, int64_t *end) {
  int64_t a, b;
  ndx_span(l, &a, &b);
  /* positions < 2^53 and bits <= 128: the products fit in int64 (docs/semantics.md section 3) */
  *lo = a == b ? 0 : a * bits / 8;
  *end = a == b ? 0 : (b * bits + 7) / 8;
}

const char *ndx_copy_path_name(int path) {
  static const char *const names[] = {"empty", "buffer", "rows", "transpose", "gather"};
  return path >= NDX_PATH_EMPTY && path <= NDX_PATH_GATHER ? names[path] : "none";
}

/* A source inner stride the strided rows take (ndx_copy_caps.strided_rows). */
static bool strided_row(int64_t ss) {
  return ss == 0 || ss == -1 || ss == 2;
}

ndx_copy_path ndx_copy_choose_path(const ndx_copy_pair *q, int bits, const ndx_copy_caps *caps,
                                   bool gather_only) {
  if (q->numel == 0) return NDX_PATH_EMPTY;
  if (gather_only) return NDX_PATH_GATHER;
  int in = q->rank - 1;
  /* A single element coalesces to [1] with strides 0: contiguous too. */
  bool unit_d = q->sd[in] == 1 || q->numel == 1, unit_s = q->ss[in] == 1 || q->numel == 1;
  if (q->rank == 1 && unit_d && unit_s) {
    if (bits >= 8) {
      int64_t bytes = q->numel * (bits / 8);
      return caps->rows_from_bytes > 0 && bytes >= caps->rows_from_bytes ? NDX_PATH_ROWS
                                                                         : NDX_PATH_BUFFER;
    }
    if ((q->od * bits) % 8 == 0 && (q->os * bits) % 8 == 0 && (q->numel * bits) % 8 == 0)
      return NDX_PATH_BUFFER;
  }
  if (bits >= 8 && unit_d && (unit_s || (caps->strided_rows && strided_row(q->ss[in]))))
    return NDX_PATH_ROWS;
  if (q->sd[in] == 1 && q->rank >= 2 && ndx_copy_transpose_axis(q) >= 0) return NDX_PATH_TRANSPOSE;
  return NDX_PATH_GATHER;
}
