/* cuda_convert_plan.c: the launch of a CUDA or HIP conversion
 * (cuda_convert_plan.h). */
#include <string.h>

#include "cuda_convert_plan.h"
#include "host/copy_plan.h"
#include "host/launch.h"

/* The kernels' blocks: one thread a unit, up to NDX_CUDA_CONVERT_MAX_BLOCKS. */
static const ndx_convert_sizes cuda_convert_sizes = {.local = NDX_CUDA_CONVERT_THREADS,
                                                     .max_groups = NDX_CUDA_CONVERT_MAX_BLOCKS};

ndx_status ndx_cuda_convert_fill(ndx_cuda_convert_launch *c, const char *fn,
                                 const ndx_layout *dst_l, int dst_bits, const ndx_layout *src_l,
                                 int src_bits, unsigned copy_flags, int64_t align) {
  memset(c, 0, sizeof *c);
  ndx_convert_sizes z = cuda_convert_sizes;
  z.align = align;
  ndx_copy_plan p;
  ndx_status s = ndx_convert_plan_make(&p, fn, dst_l, src_l, dst_bits, &z, copy_flags);
  if (s != NDX_OK || p.q.numel == 0) return s;
  ndx_convert_choice choice = ndx_convert_choose(&p, src_bits, &z);
  c->family = (int)choice.family;
  ndx_launch_convert(&p, src_bits, &choice, &z, &c->args.d, &c->blocks);
  return ndx_copy_plan_pack(&p, c->args.pack, sizeof c->args.pack);
}
