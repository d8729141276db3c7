/* ndx_index.cl: ndx's gather and scatter kernels, thin wrappers over the
 * work-item bodies of ndx_index_items.h; one source with ndx_copy.cl
 * (kernels/meson.build embeds the two as one), built as ndx_copy.cl says: a
 * program per kernel, element width (NDX_BITS) and index form (NDX_WIDE).
 *
 *   ndx_index_check    the check pass: index elements [i*chunk, ...) of the
 *                      check pack; claims NULL for no claims
 *   ndx_index_copy     the copy pass, C-order elements [i*chunk, ...) of the
 *                      copy pack (NDX_BITS 8 .. 128); `rows` 1 for one value
 *                      per row, 2 for rows written by streaming stores;
 *                      `claims` the winners form's table, else NULL
 *   ndx_index_bytes    the copy pass below 8 bits, destination bytes
 *                      [first + i*chunk, ...) of [first, end), the span's
 *                      bytes, two arguments more (NDX_BITS 1, 2, 4)
 * A copy work-item returns at once when status[0] (the check pass's fault
 * word) is set.
 *
 * Under NDX_SHAPE_GPU the same three kernels, with the same arguments, run
 * the gpu-shaped bodies of ndx_index_gpu.h: their first argument is then
 * the pass's launch descriptor with its pack after it (ndx_index_launch.h),
 * which holds the pass's values too, and `chunk`, `first` and `end` are
 * unused. A fourth,
 *   ndx_index_along    the copy pass of a gather whose descriptor says
 *                      `along` (NDX_BITS 8 .. 128): its pack rows' source
 *                      segments through NDX_GPU_ALONG_BYTES of work-group
 *                      memory, ndx_index_copy's arguments
 * is a kernel of its own so that the others reserve no work-group memory.
 *
 * Built with -DNDX_BOUNDS_CHECK, each kernel takes the buffers' sizes and a
 * bounds status as the copy kernels do (ndx_copy.cl), and first checks every
 * position its elements reach, the index's and, for a valid value, the
 * gathered or scattered one: operand 0 dst, 1 src, 2 index (in the gpu
 * shape, each access is checked as it is made and skipped if outside). */
#include "ndx_index_items.h"

#ifdef NDX_SHAPE_GPU
/* The gpu shape (kernels/ndx_index_gpu.h). */
#include "ndx_index_gpu.h"

#define NDX_INDEX_GPU_ARGS                                                                         \
  __constant const ndx_index_launch *d, __global uchar *restrict dst,                              \
      __global const uchar *restrict src, __global const uchar *restrict index,                    \
      __global const uint *restrict status, int index_bits, long value_d, int wrap, long bias,     \
      long step0, long step1, long chunk

#ifdef NDX_BOUNDS_CHECK
#define NDX_INDEX_GPU_CHECK_ARGS                                                                   \
  , ulong dst_size, ulong src_size, ulong index_size, __global uint *bounds
#define NDX_INDEX_GUARD                                                                            \
  ndx_gpu_index_guard g = {{dst_size, src_size, index_size}, bounds, (long)get_global_id(0)};
#else
#define NDX_INDEX_GPU_CHECK_ARGS
#define NDX_INDEX_GUARD ndx_gpu_index_guard g = {0};
#endif

/* The values the descriptor holds, passed as arguments too. */
#define NDX_INDEX_GPU_UNUSED                                                                       \
  (void)index_bits, (void)value_d, (void)wrap, (void)bias, (void)step0, (void)step1, (void)chunk;

#ifdef NDX_KERNEL_index_check
__kernel void ndx_index_check(__constant const ndx_index_launch *d,
                              __global const uchar *restrict index, int index_bits, long value_d,
                              int wrap, __global uint *claims, long claim_stride,
                              __global uint *status, long chunk NDX_INDEX_GPU_CHECK_ARGS) {
  (void)index_bits, (void)value_d, (void)wrap, (void)claim_stride, (void)chunk;
  NDX_INDEX_GUARD
  if (d->index_bits == 32)
    ndx_gpu_index_check_wN(d, index, claims, status, 32, &g);
  else
    ndx_gpu_index_check_wN(d, index, claims, status, 64, &g);
}
#endif

#ifdef NDX_KERNEL_index_copy
__kernel void ndx_index_copy(NDX_INDEX_GPU_ARGS, int rows, __global const uint *restrict claims,
                             long claim_stride NDX_INDEX_GPU_CHECK_ARGS) {
  NDX_INDEX_GPU_UNUSED(void) rows, (void)claim_stride;
  if (status[0]) return;
  NDX_INDEX_GUARD
  if (d->rows) {
    if (d->index_bits == 32)
      ndx_gpu_index_rows_wN(d, dst, src, index, claims, NDX_BITS, 32, &g);
    else
      ndx_gpu_index_rows_wN(d, dst, src, index, claims, NDX_BITS, 64, &g);
  } else {
    if (d->index_bits == 32)
      ndx_gpu_index_elems_wN(d, dst, src, index, claims, NDX_BITS, 32, &g);
    else
      ndx_gpu_index_elems_wN(d, dst, src, index, claims, NDX_BITS, 64, &g);
  }
}
#endif

#ifdef NDX_KERNEL_index_along
__kernel void ndx_index_along(NDX_INDEX_GPU_ARGS, int rows, __global const uint *restrict claims,
                              long claim_stride NDX_INDEX_GPU_CHECK_ARGS) {
  NDX_INDEX_GPU_UNUSED(void) rows, (void)claims, (void)claim_stride;
  __local ulong2 stage[NDX_GPU_ALONG_BYTES / 16];
  if (status[0]) return; /* the whole work-group alike: the check pass has ended */
  NDX_INDEX_GUARD
  if (d->index_bits == 32)
    ndx_gpu_index_along_wN(d, (__local uchar *)stage, dst, src, index, NDX_BITS, 32, &g);
  else
    ndx_gpu_index_along_wN(d, (__local uchar *)stage, dst, src, index, NDX_BITS, 64, &g);
}
#endif

#ifdef NDX_KERNEL_index_bytes
__kernel void ndx_index_bytes(NDX_INDEX_GPU_ARGS, long first, long end NDX_INDEX_GPU_CHECK_ARGS) {
  (void)first, (void)end;
  NDX_INDEX_GPU_UNUSED
  if (status[0]) return;
  NDX_INDEX_GUARD
  if (d->index_bits == 32)
    ndx_gpu_index_bytes_wN(d, dst, src, index, NDX_BITS, 32, &g);
  else
    ndx_gpu_index_bytes_wN(d, dst, src, index, NDX_BITS, 64, &g);
}
#endif

#else
/* The cpu shape (kernels/ndx_index_items.h). */

#define NDX_INDEX_ARGS                                                                             \
  __constant const ndx_pack_head *p, __global uchar *restrict dst,                                 \
      __global const uchar *restrict src, __global const uchar *restrict index,                    \
      __global const uint *restrict status, int index_bits, long d, int wrap, long bias,           \
      long step0, long step1, long chunk

#ifdef NDX_BOUNDS_CHECK
#define NDX_INDEX_CHECK_ARGS                                                                       \
  , ulong dst_size, ulong src_size, ulong index_size, __global uint *bounds

/* The positions element i of the copy pack reaches, checked: 1 when one is
 * outside its buffer (then recorded). */
NDX_FN int ndx_check_index_elem(NDX_PACK_ARG, long i, int bits, int index_bits, long d, int wrap,
                                long bias, long step0, long step1,
                                __global const uchar *restrict index, ulong dst_size,
                                ulong src_size, ulong index_size, long item,
                                __global uint *bounds) {
  long pi = ndx_position_wN(p, 2, (NDX_WORD)i);
  if (ndx_check_elem(2, pi, index_bits, index_size, item, bounds)) return 1;
  long k = ndx_index_value(ndx_load_index(index, pi, index_bits) - bias, d, wrap);
  if (k < 0) return 0;
  return ndx_check_elem(0, ndx_position_wN(p, 0, (NDX_WORD)i) + k * step0, bits, dst_size, item,
                        bounds) ||
         ndx_check_elem(1, ndx_position_wN(p, 1, (NDX_WORD)i) + k * step1, bits, src_size, item,
                        bounds);
}

NDX_FN int ndx_check_index_walk(NDX_PACK_ARG, long i0, long i1, int bits, int index_bits, long d,
                                int wrap, long bias, long step0, long step1,
                                __global const uchar *restrict index, ulong dst_size,
                                ulong src_size, ulong index_size, long item,
                                __global uint *bounds) {
  for (long i = i0; i < i1; i++)
    if (ndx_check_index_elem(p, i, bits, index_bits, d, wrap, bias, step0, step1, index, dst_size,
                             src_size, index_size, item, bounds))
      return 1;
  return 0;
}
#define NDX_INDEX_CHECK_RANGE(B, i0, i1)                                                           \
  if (ndx_check_index_walk(p, i0, i1, B, index_bits, d, wrap, bias, step0, step1, index, dst_size, \
                           src_size, index_size, (long)get_global_id(0), bounds))                  \
    return;
#else
#define NDX_INDEX_CHECK_ARGS
#define NDX_INDEX_CHECK_RANGE(B, i0, i1)
#endif

#ifdef NDX_KERNEL_index_check
__kernel void ndx_index_check(__constant const ndx_pack_head *p,
                              __global const uchar *restrict index, int index_bits, long d,
                              int wrap, __global uint *claims, long claim_stride,
                              __global uint *status, long chunk NDX_INDEX_CHECK_ARGS) {
  long item = (long)get_global_id(0);
#ifdef NDX_BOUNDS_CHECK
  (void)dst_size;
  (void)src_size;
  long i0 = item * chunk, i1 = ndx_min64(p->numel, i0 + chunk);
  for (long i = i0; i < i1; i++)
    if (ndx_check_elem(2, ndx_position_wN(p, 0, (NDX_WORD)i), index_bits, index_size, item, bounds))
      return;
#endif
  if (index_bits == 32)
    ndx_index_check_item_wN(p, index, 32, d, wrap, claims, claim_stride, status, item, chunk);
  else
    ndx_index_check_item_wN(p, index, 64, d, wrap, claims, claim_stride, status, item, chunk);
}
#endif

/* The body with its index width and whether `rows` as constants: the
 * loops the compiler then makes have no per-element branch on either. */
#define NDX_INDEX_COPY_CALL(B, IB, ROWS)                                                           \
  ndx_index_copy_item_wN(p, dst, src, index, claims, claim_stride, B, IB, d, wrap, bias, step0,    \
                         step1, item, chunk, ROWS)

#ifdef NDX_KERNEL_index_copy
__kernel void ndx_index_copy(NDX_INDEX_ARGS, int rows, __global const uint *restrict claims,
                             long claim_stride NDX_INDEX_CHECK_ARGS) {
  if (status[0]) return;
  long item = (long)get_global_id(0), i0 = item * chunk;
  NDX_INDEX_CHECK_RANGE(NDX_BITS, i0, ndx_min64(p->numel, i0 + chunk))
  if (index_bits == 32) {
    if (rows)
      NDX_INDEX_COPY_CALL(NDX_BITS, 32, rows);
    else
      NDX_INDEX_COPY_CALL(NDX_BITS, 32, 0);
  } else {
    if (rows)
      NDX_INDEX_COPY_CALL(NDX_BITS, 64, rows);
    else
      NDX_INDEX_COPY_CALL(NDX_BITS, 64, 0);
  }
}
#endif

#ifdef NDX_BOUNDS_CHECK
/* The C-order elements of a bytes item's destination bytes [b0, b1). */
NDX_FN void ndx_index_bytes_range(NDX_PACK_ARG, int bits, long b0, long b1, long *i0, long *i1) {
  int lg = ndx_sub_log2(bits);
  *i0 = p->numel == 0 ? 0 : ndx_count_below_wN(p, b0 << lg);
  *i1 = p->numel == 0 ? 0 : ndx_count_below_wN(p, b1 << lg);
}
#define NDX_INDEX_BYTES_CHECK(B)                                                                   \
  long c0, c1;                                                                                     \
  ndx_index_bytes_range(p, B, b0, b1, &c0, &c1);                                                   \
  NDX_INDEX_CHECK_RANGE(B, c0, c1)
#else
#define NDX_INDEX_BYTES_CHECK(B)
#endif

#ifdef NDX_KERNEL_index_bytes
__kernel void ndx_index_bytes(NDX_INDEX_ARGS, long first, long end NDX_INDEX_CHECK_ARGS) {
  if (status[0]) return;
  long b0, b1;
  ndx_bytes_item(first, end, (long)get_global_id(0), chunk, &b0, &b1);
  NDX_INDEX_BYTES_CHECK(NDX_BITS)
  (void)step0;
  if (index_bits == 32)
    ndx_index_bytes_item_wN(p, dst, src, index, NDX_BITS, 32, d, wrap, bias, step1, b0, b1);
  else
    ndx_index_bytes_item_wN(p, dst, src, index, NDX_BITS, 64, d, wrap, bias, step1, b0, b1);
}
#endif
#endif /* the cpu shape */
