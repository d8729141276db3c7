/* binary_op.cl: a backend's elementwise kernel on ndx's packed layouts.
 *
 * out = a - b for float tensors of any layout: the host broadcasts a and b
 * to out's shape, coalesces the three layouts together and packs them
 * (ndx_pack, three operands: 0 = out, 1 = a, 2 = b). One work-item computes
 * one element: it unravels its C-order index into a multi-index once, by
 * the pack's magic numbers (no division), and turns that multi-index into a
 * position in each operand. Broadcast axes have stride 0 and flipped ones a
 * negative stride: the kernel needs no case for either.
 *
 * The program is built with -DNDX_WIDE=0 for a pack of int32 words or
 * -DNDX_WIDE=1 for int64 words (ndx_pack_head.wide); NDX_W(name) names the
 * functions of that form and NDX_WORD is its integer type.
 *
 * The pack is a __constant buffer: three rank-32 layouts do not fit the
 * 1024 bytes of kernel arguments OpenCL guarantees. */
#include "ndx/ndx_device.h"

__kernel void sub_f32(__constant const ndx_pack_head *p, __global float *out,
                      __global const float *a, __global const float *b) {
  long i = (long)get_global_id(0);
  if (i >= p->numel) return;
  NDX_WORD index[NDX_PACK_MAX_RANK];
  NDX_W(ndx_unravel)(p, (NDX_WORD)i, index);
  out[NDX_W(ndx_index_position)(p, 0, index)] =
      a[NDX_W(ndx_index_position)(p, 1, index)] - b[NDX_W(ndx_index_position)(p, 2, index)];
}
