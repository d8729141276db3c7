/* ndx_copy.cl: ndx's copy kernels, thin wrappers over the work-item bodies
 * of two shapes (kernels/, beside this file; both include ndx_device.h):
 * the cpu shape of ndx_copy_items.h, where a work-item copies a long run by
 * itself, and the gpu shape of ndx_copy_gpu.h, where adjacent work-items
 * take adjacent elements and transposes go through work-group memory.
 *
 * One source, many programs: each build defines NDX_WIDE (0: int32 packs,
 * 1: int64 packs), NDX_BITS (the element width), NDX_KERNEL_<name> for the
 * one kernel it holds, so that a first copy compiles only what it runs, and
 * NDX_SHAPE_GPU for the gpu shape. Every kernel takes its launch descriptor
 * with the pack of ndx_pack_copy after it (ndx_launch.h; a __constant
 * buffer, since two rank-32 layouts pass the 1024-byte parameter
 * guarantee) and the two buffers' first bytes. Names ending in _wN are the
 * program's form (ndx_device.h, Index width).
 *
 *   cpu shape      work-item i does the i-th `chunk` of the work, work-items
 *                  past the end return:
 *   ndx_rows       C-order elements [i*chunk, (i+1)*chunk), innermost
 *                  strides 1 on both sides (NDX_BITS 8 .. 128)
 *   ndx_gather     the same with any strides
 *   ndx_transpose  one tile of ndx_tile_shape in `chunk` consecutive batches
 *                  (NDX_BITS 1 .. 128; below 8 only where the tiles own their
 *                  destination bytes, ndx_copy_tiles_own_bytes)
 *   ndx_bytes      destination bytes [first + i*chunk, ...) (NDX_BITS 1, 2, 4)
 *
 *   gpu shape      the same four kernels over the descriptor's units, each
 *                  work-item taking every launch-size-th (ndx_copy_gpu.h)
 *
 *   ndx_positions  operand 0 and 1 positions of every index (for tests; it
 *                  takes the pack alone)
 *
 * Built with -DNDX_BOUNDS_CHECK (meson option bounds_check), every copy
 * kernel takes three more arguments, the two buffers' sizes in bytes and a
 * __global uint status[8], and before copying walks the positions of every
 * element its work-item is given, on both sides: the bytes an element
 * occupies (for 1, 2 and 4 bits, the byte holding its bits) must lie in its
 * buffer. A cpu-shape work-item with an element outside copies nothing, a
 * gpu-shape work-item skips each access outside, and the first work-item
 * to claim status[0] (0 -> 1) records what it found:
 *   status[1]     operand: 0 dst, 1 src
 *   status[2..3]  the element's position (low, high 32 bits)
 *   status[4..5]  the end of its bytes: the buffer size it needs
 *   status[6..7]  the work-item's global id
 * The bodies' accesses (elements, 8-byte words of sub-byte rows, vector
 * blocks of tile rows) stay inside the bytes of the elements they copy, so
 * checking elements checks every byte a work-item reads or writes. Without
 * the macro the kernels are exactly the unchecked ones. */
#include "ndx_copy_items.h"
#include "ndx_launch.h"

#define NDX_PACK_ARG __constant const ndx_pack_head *p
#define NDX_LAUNCH_ARG __constant const ndx_launch *d
#define NDX_BUFFER_ARGS __global uchar *restrict dst, __global const uchar *restrict src

#ifdef NDX_BOUNDS_CHECK
#define NDX_CHECK_ARGS , ulong dst_size, ulong src_size, __global uint *status
#define NDX_CHECK(kind, B)                                                                         \
  if (ndx_check_##kind(d, B, (long)get_global_id(0), dst_size, src_size, status)) return;

/* 1 when element `pos` of operand k lies outside its `size` bytes; then the
 * first work-item to find one records it. */
NDX_FN int ndx_check_elem(int k, long pos, int bits, ulong size, long item, __global uint *status) {
  long b0 = (long)(((ulong)pos * (ulong)bits) >> 3);
  long b1 = (long)((((ulong)pos + 1) * (ulong)bits + 7) >> 3);
  if (pos >= 0 && b0 >= 0 && (ulong)b1 <= size) return 0;
  if (atomic_cmpxchg(status, 0u, 1u) == 0u) {
    status[1] = (uint)k;
    status[2] = (uint)(ulong)pos;
    status[3] = (uint)((ulong)pos >> 32);
    status[4] = (uint)(ulong)b1;
    status[5] = (uint)((ulong)b1 >> 32);
    status[6] = (uint)(ulong)item;
    status[7] = (uint)((ulong)item >> 32);
  }
  return 1;
}

/* The C-order elements [i0, i1), walked by the odometer. */
NDX_FN int ndx_check_walk(NDX_PACK_ARG, int bits, long i0, long i1, ulong dst_size, ulong src_size,
                          long item, __global uint *status) {
  if (i0 >= i1) return 0;
  ndx_odo_wN o;
  ndx_odo_start_wN(p, &o, (NDX_WORD)i0);
  for (long i = i0; i < i1; i++) {
    if (ndx_check_elem(0, (long)o.pos[0], bits, dst_size, item, status) ||
        ndx_check_elem(1, (long)o.pos[1], bits, src_size, item, status))
      return 1;
    ndx_odo_next_wN(p, &o);
  }
  return 0;
}

/* The elements of ndx_copy_range_item's range. */
NDX_FN int ndx_check_range(NDX_LAUNCH_ARG, int bits, long item, ulong dst_size, ulong src_size,
                           __global uint *status) {
  __constant const ndx_pack_head *p = ndx_launch_pack(d);
  long i0 = item * d->chunk;
  if (i0 >= p->numel) return 0;
  return ndx_check_walk(p, bits, i0, ndx_min64(p->numel, i0 + d->chunk), dst_size, src_size, item,
                        status);
}

/* The elements whose destination bytes a bytes work-item copies
 * (ndx_bytes_item). */
NDX_FN int ndx_check_bytes(NDX_LAUNCH_ARG, int bits, long item, ulong dst_size, ulong src_size,
                           __global uint *status) {
  __constant const ndx_pack_head *p = ndx_launch_pack(d);
  long b0, b1;
  ndx_bytes_item(d->first, d->first + d->units, item, d->chunk, &b0, &b1);
  if (b0 >= b1) return 0;
  int lg = ndx_sub_log2(bits);
  return ndx_check_walk(p, bits, ndx_count_below_wN(p, b0 << lg), ndx_count_below_wN(p, b1 << lg),
                        dst_size, src_size, item, status);
}

/* Every element of ndx_copy_tile_item's tiles (ndx_tile_work_of), at the
 * position the pack's strides give it, joined axes included. */
NDX_FN int ndx_check_tile(NDX_LAUNCH_ARG, int bits, long item, ulong dst_size, ulong src_size,
                          __global uint *status) {
  __constant const ndx_pack_head *p = ndx_launch_pack(d);
  if (p->numel == 0) return 0;
  ndx_tile_work w = ndx_tile_work_of_wN(d, item);
  int r = (int)p->rank, aj = r - 3, ak = r - 3 - (d->join_j > 1), lead = (int)d->batch_axes;
  long dk = ndx_extent_wN(p, r - 2), dj = ndx_extent_wN(p, r - 1), s[2][4];
  for (int k = 0; k < 2; k++) {
    s[k][0] = ndx_stride_wN(p, k, r - 2);
    s[k][1] = ndx_stride_wN(p, k, r - 1);
    s[k][2] = d->join_k > 1 ? ndx_stride_wN(p, k, ak) : 0;
    s[k][3] = d->join_j > 1 ? ndx_stride_wN(p, k, aj) : 0;
  }
  for (long b = w.b0; b < w.b0 + w.n; b++) {
    long pos[2] = {ndx_position_lead_wN(p, 0, (NDX_WORD)b, lead),
                   ndx_position_lead_wN(p, 1, (NDX_WORD)b, lead)};
    for (long I = w.I0; I < w.I0 + w.ni; I++)
      for (long J = w.J0; J < w.J0 + w.nj; J++)
        for (int k = 0; k < 2; k++) {
          long e =
              pos[k] + I % dk * s[k][0] + J % dj * s[k][1] + I / dk * s[k][2] + J / dj * s[k][3];
          if (ndx_check_elem(k, e, bits, k ? src_size : dst_size, item, status)) return 1;
        }
  }
  return 0;
}
#else
#define NDX_CHECK_ARGS
#define NDX_CHECK(kind, B)
#endif

/* Each program holds the one kernel its build options name (src/device/
 * cl_program.c builds a program per shape, family, width and form when a
 * plan first needs it), for elements of NDX_BITS bits. Every copy kernel
 * takes its launch descriptor, with the pack after it (ndx_launch.h). */
#define NDX_LAUNCH_ARGS NDX_LAUNCH_ARG, NDX_BUFFER_ARGS NDX_CHECK_ARGS

/* The load batch, the bounds-check guard, the byte writer and the (empty)
 * access trace of the gpu shape's bodies and of both shapes' conversions
 * (ndx_convert.cl), outside the shapes, as the embedded source holds each
 * header once; the guard after ndx_check_elem. */
#include "ndx_gpu_batch.h"
#include "ndx_gpu_byte.h"
#include "ndx_gpu_guard.h"
#include "ndx_gpu_trace.h"

#ifdef NDX_SHAPE_GPU
/* The gpu shape (kernels/ndx_copy_gpu.h). */
#include "ndx_copy_gpu.h"

#ifdef NDX_BOUNDS_CHECK
#define NDX_GPU_GUARD ndx_gpu_guard g = {{dst_size, src_size}, status, (long)get_global_id(0)};
#else
#define NDX_GPU_GUARD ndx_gpu_guard g = {0};
#endif

/* One kernel for both rows bodies, so that the rows family stays one
 * program: the descriptor says whether rows go straight or through
 * work-group memory (stage_units). */
#ifdef NDX_KERNEL_rows
__kernel void ndx_rows(NDX_LAUNCH_ARGS) {
  __local ulong2 stage[NDX_GPU_STAGE_BYTES / 16];
  NDX_GPU_GUARD
  if (d->stage_units)
    ndx_gpu_rows_staged_wN(d, (__local uchar *)stage, dst, src, NDX_BITS, &g);
  else
    ndx_gpu_rows_wN(d, dst, src, NDX_BITS, &g);
}
#endif

#ifdef NDX_KERNEL_gather
__kernel void ndx_gather(NDX_LAUNCH_ARGS) {
  NDX_GPU_GUARD
  ndx_gpu_gather_wN(d, dst, src, NDX_BITS, &g);
}
#endif

#ifdef NDX_KERNEL_transpose
__kernel void ndx_transpose(NDX_LAUNCH_ARGS) {
  __local ulong2 tile[(NDX_GPU_TILE_BYTES(NDX_BITS) + 15) / 16];
  NDX_GPU_GUARD
  ndx_gpu_transpose_wN(d, (__local uchar *)tile, dst, src, NDX_BITS, &g);
}
#endif

#ifdef NDX_KERNEL_bytes
__kernel void ndx_bytes(NDX_LAUNCH_ARGS) {
  NDX_GPU_GUARD
  ndx_gpu_bytes_wN(d, dst, src, NDX_BITS, &g);
}
#endif

#else
/* The cpu shape (kernels/ndx_copy_items.h): work-item i does the i-th
 * `chunk` of the work. */
#define NDX_CPU_PACK __constant const ndx_pack_head *p = ndx_launch_pack(d);

#ifdef NDX_KERNEL_rows
__kernel void ndx_rows(NDX_LAUNCH_ARGS) {
  NDX_CPU_PACK
  NDX_CHECK(range, NDX_BITS)
  ndx_copy_range_item_wN(p, dst, src, NDX_BITS, (long)get_global_id(0), d->chunk, 1);
}
#endif

#ifdef NDX_KERNEL_gather
__kernel void ndx_gather(NDX_LAUNCH_ARGS) {
  NDX_CPU_PACK
  NDX_CHECK(range, NDX_BITS)
  ndx_copy_range_item_wN(p, dst, src, NDX_BITS, (long)get_global_id(0), d->chunk, 0);
}
#endif

#ifdef NDX_KERNEL_transpose
/* The width the tile bodies are compiled for: NDX_BITS, but for 1 bit the
 * pack's (the same value, read at run time), so that the bit-matrix blocks
 * stay loops: given 1 as a constant, LLVM unrolls the 1-bit transpose's
 * blocks of 64 vectors only in part, and it runs slower (ndx-bench cases
 * "transpose u1"); 2 and 4 bits run faster as constants ("transpose u4"). */
#define NDX_TILE_BITS (NDX_BITS == 1 ? (int)p->bits : NDX_BITS)
__kernel void ndx_transpose(NDX_LAUNCH_ARGS) {
  NDX_CPU_PACK
  NDX_CHECK(tile, NDX_BITS)
  ndx_copy_tile_item_wN(d, dst, src, NDX_TILE_BITS, (long)get_global_id(0));
}
#endif

#ifdef NDX_KERNEL_bytes
__kernel void ndx_bytes(NDX_LAUNCH_ARGS) {
  NDX_CPU_PACK
  NDX_CHECK(bytes, NDX_BITS)
  long b0, b1;
  ndx_bytes_item(d->first, d->first + d->units, (long)get_global_id(0), d->chunk, &b0, &b1);
  if (b0 < b1) ndx_copy_bytes_wN(p, dst, src, NDX_BITS, b0, b1);
}
#endif
#endif

#ifdef NDX_KERNEL_positions
__kernel void ndx_positions(NDX_PACK_ARG, __global long *out) {
  long i = (long)get_global_id(0);
  if (i >= p->numel) return;
  out[2 * i] = ndx_position_wN(p, 0, (NDX_WORD)i);
  out[2 * i + 1] = p->nops > 1 ? ndx_position_wN(p, 1, (NDX_WORD)i) : 0;
}
#endif
