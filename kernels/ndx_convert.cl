/* ndx_convert.cl: ndx's conversion kernels, thin wrappers over the bodies
 * of ndx_convert_items.h and ndx_convert_cpu.h, after ndx_copy.cl in the
 * one embedded source.
 *
 * Each program holds one kernel for one pair of types: its build defines
 * NDX_KERNEL_<name>, NDX_SRC_T and NDX_DST_T (ndx_dtype's values, the
 * NDX_DT_ names of ndx_convert.h), NDX_WIDE and, for the gpu shape,
 * NDX_SHAPE_GPU (src/device/cl_program.c). Each takes the launch descriptor
 * with the pack of ndx_pack_copy after it, as the copy kernels do, and the
 * same arguments (and, in the bounds-check build, the same three more):
 *   ndx_convert        destinations of 8 bits and up: the cpu shape's
 *                      work-item i converts C-order elements [i*chunk,
 *                      (i+1)*chunk), the gpu shape's every launch-size-th
 *                      unit from its global id (an element, or a group of
 *                      a row's elements, and so into 4-bit destinations
 *                      whose rows' groups hold whole bytes), a batch
 *                      loaded before any is stored (ndx_convert_units_wN);
 *   ndx_convert_tile   the cpu shape's transposes, destinations of 8 bits and
 *                      up: work-item i converts tile i (ndx_convert_tile_wN);
 *   ndx_convert_transpose  the gpu shape's transposes (into 4-bit
 *                      destinations whose rows start on bytes too): a
 *                      work-group per tile, through the copy's tile
 *                      (ndx_convert_gpu.h);
 *   ndx_convert_bytes  4-bit destinations (the gpu shape's that neither
 *                      ndx_convert nor ndx_convert_transpose takes):
 *                      destination bytes from
 *                      the descriptor's `first`, the cpu shape's `chunk` of
 *                      them a work-item, the gpu shape's one at a time. */
#include "ndx_convert_cpu.h"
#ifdef NDX_SHAPE_GPU
#include "ndx_convert_gpu.h"
#endif

#if defined(NDX_KERNEL_convert) || defined(NDX_KERNEL_convert_tile) ||                             \
    defined(NDX_KERNEL_convert_bytes) || defined(NDX_KERNEL_convert_transpose)
#ifdef NDX_BOUNDS_CHECK
#define NDX_CONVERT_GUARD ndx_gpu_guard g = {{dst_size, src_size}, status, (long)get_global_id(0)};
#else
#define NDX_CONVERT_GUARD ndx_gpu_guard g = {0};
#endif
#endif

#ifdef NDX_KERNEL_convert
__kernel void ndx_convert(NDX_LAUNCH_ARGS) {
  NDX_CONVERT_GUARD
#ifdef NDX_SHAPE_GPU
  ndx_convert_units_wN(d, dst, src, (long)get_global_id(0), (long)get_global_size(0), NDX_SRC_T,
                       NDX_DST_T, &g);
#else
  __constant const ndx_pack_head *p = ndx_launch_pack(d);
  long i0 = (long)get_global_id(0) * d->chunk;
  if (i0 < p->numel)
    ndx_convert_run_wN(p, dst, src, i0, min(i0 + d->chunk, (long)p->numel), NDX_SRC_T, NDX_DST_T,
                       &g);
#endif
}
#endif

#ifdef NDX_KERNEL_convert_tile
__kernel void ndx_convert_tile(NDX_LAUNCH_ARGS) {
  NDX_CONVERT_GUARD
  long t = (long)get_global_id(0);
  if (t < d->units) ndx_convert_tile_wN(d, dst, src, t, NDX_SRC_T, NDX_DST_T, &g);
}
#endif

#if defined(NDX_KERNEL_convert_transpose) && defined(NDX_SHAPE_GPU)
__kernel void ndx_convert_transpose(NDX_LAUNCH_ARGS) {
  __local ulong2 tile[(NDX_GPU_TILE_BYTES(8) + 15) / 16];
  NDX_CONVERT_GUARD
  ndx_convert_transpose_wN(d, (__local uchar *)tile, dst, src, NDX_SRC_T, NDX_DST_T, (int)d->group,
                           &g);
}
#endif

#ifdef NDX_KERNEL_convert_bytes
__kernel void ndx_convert_bytes(NDX_LAUNCH_ARGS) {
  __constant const ndx_pack_head *p = ndx_launch_pack(d);
  NDX_CONVERT_GUARD
#ifdef NDX_SHAPE_GPU
  for (long u = (long)get_global_id(0); u < d->units; u += (long)get_global_size(0))
    ndx_convert_byte_wN(p, dst, src, d->first + u, NDX_SRC_T, NDX_DST_T, &g);
#else
  long u0 = (long)get_global_id(0) * d->chunk;
  for (long u = u0; u < d->units && u < u0 + d->chunk; u++)
    ndx_convert_byte_wN(p, dst, src, d->first + u, NDX_SRC_T, NDX_DST_T, &g);
#endif
}
#endif
