/* ndx_gpu_trace.h: the access trace of the gpu shape's bodies, for the
 * GPU memory model; nothing in a kernel. */
#ifndef NDX_GPU_TRACE_H
#define NDX_GPU_TRACE_H

#include "ndx/ndx_device.h"

/* The GPU memory model (bench/gpu_model.c) compiles the gpu shape's
 * bodies (ndx_copy_gpu.h, ndx_convert_items.h, ndx_convert_gpu.h) on the
 * host with NDX_GPU_TRACE defined, to see every access: `site` names the
 * access in the source (NDX_TRACE_*: global or work-group memory, load or
 * store), `step` the loop iteration it belongs to, so that the accesses of
 * the work-items of a warp at one site and step are one request. Elsewhere
 * it is nothing. */
#ifndef NDX_GPU_TRACE
NDX_FN void ndx_gpu_untraced(ndx_i64 v) {
  (void)v;
}
#define NDX_GPU_TRACE(site, step, addr, bytes) ndx_gpu_untraced((site) + (step) + (bytes))
#endif
enum {
  NDX_TRACE_LOCAL = 1, /* bit: work-group memory (else global) */
  NDX_TRACE_STORE = 2, /* bit: a store (else a load) */
  /* bit: a work-group memory address that depends on data (a gather's
   * index value): no layout of the memory keeps such a request's lanes off
   * one bank's other words, so the model counts it apart */
  NDX_TRACE_BY_VALUE = 1 << 12,
  NDX_TRACE_ROWS = 4, /* sites: multiples of 4, plus the bits above */
  NDX_TRACE_GATHER = 8,
  NDX_TRACE_TILE = 12,
  NDX_TRACE_TILE_BITS = 16,
  NDX_TRACE_TILE_BITS_KEEP = 20, /* the destination byte's bits kept */
  NDX_TRACE_BYTES = 24,
  NDX_TRACE_BYTES_KEEP = 28,
  NDX_TRACE_STAGE = 32 /* rows through work-group memory */
};

#endif /* NDX_GPU_TRACE_H */
