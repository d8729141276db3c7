/* cl_internal.h: what the OpenCL runtime shows its tests and tools, and
 * users never see. */
#ifndef NDX_CL_INTERNAL_H
#define NDX_CL_INTERNAL_H

#include <stddef.h>

#include "ndx/ndx_cl.h"

/* The embedded OpenCL sources (kernels/meson.build, tools/embed.py). */
extern const char ndx_cl_copy_source[];
extern const size_t ndx_cl_copy_source_size;
extern const char ndx_cl_probe_source[];
extern const size_t ndx_cl_probe_source_size;

/* The name of kernel family `kind` (kernel ndx_<name>) and in *widths the
 * element widths it has (bit w: 1 << w bits; 0: one kernel for all); NULL
 * past the last family (0, 1, ... name them all). */
const char *ndx_cl_family(int kind, unsigned *widths);

/* Into `out`: the options ndx builds kernel ndx_<name> with, for `bits`-bit
 * elements (0: a kernel of no width) in index form `wide` (0 or 1), in the
 * gpu shape where `gpu` is 1 (else the cpu shape). */
void ndx_cl_build_options(char *out, size_t size, int gpu, int wide, const char *name, int bits);

/* Flags of ndx_cl_plan_create_flags. */
enum {
  NDX_CL_PLAN_WIDE = 1u, /* use the 64-bit kernels even where 32-bit would do */
  /* enqueue without the host's check of the buffer sizes, so that a test of
   * the bounds_check build reaches the kernels' own check (in the normal
   * build an enqueue past a buffer is then undefined behavior) */
  NDX_CL_PLAN_UNCHECKED = 4u,
};

/* 1 in the bounds_check build (kernels check every element against the
 * buffer sizes, see ndx_cl.h), 0 otherwise. */
int ndx_cl_bounds_checked(void);

/* ndx_cl_plan_create with `flags`, so that tests reach the 64-bit kernels on
 * small data and the kernels' own bounds check. Returns what
 * ndx_cl_plan_create does, and NDX_EINVAL for unknown flags. */
ndx_status ndx_cl_plan_create_flags(ndx_cl_plan **out, ndx_cl *cl, const ndx_layout *dst_l,
                                    const ndx_layout *src_l, int bits, unsigned flags);

/* 1 when the plan runs the 64-bit kernels, 0 for the 32-bit ones (and for
 * the empty and buffer paths, which run no kernel). */
int ndx_cl_plan_wide(const ndx_cl_plan *plan);

/* The work-items a plan launches (before rounding up to the work-group) and
 * what each does in the cpu shape (elements, bytes or batches; 0 for the
 * empty and buffer paths, and in the gpu shape, whose work-items take the
 * launch's units in turn). */
void ndx_cl_plan_work(const ndx_cl_plan *plan, size_t *items, long long *chunk);

/* Flags of ndx_cl_index_flags. */
enum {
  NDX_CL_INDEX_WIDE = 1u,      /* the 64-bit kernels even where 32-bit would do */
  NDX_CL_INDEX_SKIP_CHECK = 2u /* no check pass (ndx-bench's measure of its cost); a gather
                                * or a unique scatter only; a value that is no coordinate
                                * copies nothing, and nothing reports it */
};

/* ndx_cl_gather (`scatter` false) or ndx_cl_scatter with `internal` flags,
 * so that tests reach the 64-bit kernels on small data and the bench times
 * the check pass. NDX_EINVAL for unknown flags, or SKIP_CHECK on a claims
 * scatter. */
ndx_status ndx_cl_index_flags(bool scatter, unsigned internal, ndx_cl *cl, cl_command_queue queue,
                              cl_mem dst, const ndx_layout *dst_l, cl_mem src,
                              const ndx_layout *src_l, int axis, cl_mem index,
                              const ndx_layout *index_l, int index_bits, unsigned flags, int bits,
                              cl_uint nwait, const cl_event *wait, cl_event *done);

/* ndx_cl_index_plan_create_gather (`scatter` false) or
 * ndx_cl_index_plan_create_scatter with `internal` flags (NDX_CL_INDEX_*), for
 * the tests and the bench. */
ndx_status ndx_cl_index_plan_create_flags(ndx_cl_index_plan **out, bool scatter, unsigned internal,
                                          ndx_cl *cl, const ndx_layout *dst_l,
                                          const ndx_layout *src_l, int axis,
                                          const ndx_layout *index_l, int index_bits, unsigned flags,
                                          int bits);

/* The copy pass's kernel as bounds-check reports name it ("ndx_index_along
 * for 32-bit elements"), "" for an empty plan: for the tests. */
const char *ndx_cl_index_plan_copy_kernel(const ndx_cl_index_plan *plan);

#endif /* NDX_CL_INTERNAL_H */
