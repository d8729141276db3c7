/* cuda.c: the CUDA runtime of ndx_cuda.h: plans, launches and errors.
 *
 * A plan is made on the host alone (cuda_plan.c); a launch checks the
 * pointers, narrows the vector widths to their alignment, and runs the
 * plan's steps on the stream: cudaMemcpyAsync or a kernel of
 * kernels/ndx_copy.cu. CUDA's errors become NDX_EDEVICE with the error's
 * name and text. */
#include <stdio.h>
#include <stdlib.h>

#include "ndx_gpu.h"
#include "cuda_plan.h"
#include "host/ndx_internal.h"

static ndx_status cuda_fail(const char *what, cudaError_t e) {
  return ndx_set_error(NDX_EDEVICE, NDX_GPU_STR(ndx_cuda_plan_launch) ": %s failed: %s (%s)", what,
                       cudaGetErrorName(e), cudaGetErrorString(e));
}

/* A heap copy of `filled` in *out, where `st` (its fill's status) is NDX_OK. */
static ndx_status keep_plan(struct ndx_cuda_plan **out, const struct ndx_cuda_plan *filled,
                            ndx_status st) {
  if (st != NDX_OK) return st;
  struct ndx_cuda_plan *plan = malloc(sizeof *plan);
  if (!plan)
    return ndx_set_error(NDX_ENOMEM, NDX_GPU_STR(ndx_cuda_plan_create) ": out of host memory");
  *plan = *filled;
  *out = plan;
  return NDX_OK;
}

ndx_status ndx_cuda_plan_create_flags(struct ndx_cuda_plan **out, const ndx_layout *dst_l,
                                      const ndx_layout *src_l, int bits, unsigned flags) {
  if (!out) return ndx_set_error(NDX_EINVAL, NDX_GPU_STR(ndx_cuda_plan_create) ": out is NULL");
  struct ndx_cuda_plan tmp;
  return keep_plan(out, &tmp, ndx_cuda_plan_fill(&tmp, dst_l, src_l, bits, flags));
}

ndx_status ndx_cuda_plan_create_kernel(struct ndx_cuda_plan **out, const ndx_layout *dst_l,
                                       const ndx_layout *src_l, int bits, unsigned flags,
                                       int kernel) {
  if (!out) return ndx_set_error(NDX_EINVAL, NDX_GPU_STR(ndx_cuda_plan_create) ": out is NULL");
  struct ndx_cuda_plan tmp;
  return keep_plan(out, &tmp, ndx_cuda_plan_fill_kernel(&tmp, dst_l, src_l, bits, flags, kernel));
}

ndx_status ndx_cuda_plan_create(ndx_cuda_plan **out, const ndx_layout *dst_l,
                                const ndx_layout *src_l, int bits) {
  return ndx_cuda_plan_create_flags(out, dst_l, src_l, bits, 0);
}

void ndx_cuda_plan_destroy(ndx_cuda_plan *plan) {
  free(plan);
}

ndx_status ndx_cuda_plan_launch(const ndx_cuda_plan *plan, cudaStream_t stream, void *dst,
                                const void *src) {
  static const char fn[] = NDX_GPU_STR(ndx_cuda_plan_launch);
  if (!plan) return ndx_set_error(NDX_EINVAL, "%s: plan is NULL", fn);
  if (plan->nsteps == 0) return NDX_OK; /* an empty copy launches nothing */
  if (!dst || !src) return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", fn, dst ? "src" : "dst");
  uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
  if (plan->bits >= 8) {
    uintptr_t align = plan->bits >= 128 ? 16 : (uintptr_t)plan->bits / 8;
    if (d % align || s % align)
      return ndx_set_error(NDX_EINVAL, "%s: %s %p is not aligned to %u bytes for %d-bit elements",
                           fn, d % align ? "dst" : "src", d % align ? dst : src, (unsigned)align,
                           plan->bits);
  }
  uintptr_t dlo = d + (uintptr_t)plan->dst_lo, dend = d + (uintptr_t)plan->dst_end;
  uintptr_t slo = s + (uintptr_t)plan->src_lo, send = s + (uintptr_t)plan->src_end;
  if (dlo < send && slo < dend)
    return ndx_set_error(NDX_EINVAL,
                         "%s: the destination's bytes [%p, %p) and the source's [%p, %p) overlap",
                         fn, (void *)dlo, (void *)dend, (void *)slo, (void *)send);
  ndx_cuda_step steps[NDX_CUDA_MAX_STEPS];
  int n = ndx_cuda_plan_steps(plan, d, s, steps);
  for (int k = 0; k < n; k++) {
    const ndx_cuda_step *st = &steps[k];
    if (st->kernel == NDX_CUDA_BUFFER) {
      cudaError_t e = cudaMemcpyAsync((char *)dst + st->dst_off, (const char *)src + st->src_off,
                                      st->bytes, cudaMemcpyDeviceToDevice, stream);
      if (e != cudaSuccess) return cuda_fail(NDX_GPU_STR(cudaMemcpyAsync), e);
    } else {
      cudaError_t e = (cudaError_t)ndx_cuda_launch_step(st, (void *)stream, dst, src);
      if (e != cudaSuccess) {
        char what[64];
        snprintf(what, sizeof what, "launching the %s kernel", ndx_cuda_step_name(st));
        return cuda_fail(what, e);
      }
    }
  }
  return NDX_OK;
}

ndx_status ndx_cuda_copy(cudaStream_t stream, void *dst, const ndx_layout *dst_l, const void *src,
                         const ndx_layout *src_l, int bits) {
  struct ndx_cuda_plan plan;
  ndx_status s = ndx_cuda_plan_fill(&plan, dst_l, src_l, bits, 0);
  if (s != NDX_OK) return s;
  return ndx_cuda_plan_launch(&plan, stream, dst, src);
}
