/* cl_runtime.h: what the OpenCL runtime's files share: cl_program.c
 * (programs and kernel objects), cl.c (copy plans, enqueue, reports) and
 * cl_index.c (gather and scatter). */
#ifndef NDX_CL_RUNTIME_H
#define NDX_CL_RUNTIME_H

#include <pthread.h>

#include "cl_internal.h"
#include "host/copy_plan.h"
#include "host/index_plan.h"
#include "host/launch.h"

#ifndef NDX_BOUNDS_CHECK
#define NDX_BOUNDS_CHECK 0
#endif

/* The kernel families: the copy paths' (ndx_copy_path) and the index
 * passes' (kernels/ndx_index.cl). */
enum ndx_cl_kind {
  NDX_CL_ROWS,
  NDX_CL_GATHER,
  NDX_CL_TRANSPOSE,
  NDX_CL_BYTES,
  NDX_CL_INDEX_COPY,  /* ndx_index_copy_B, 8 .. 128 */
  NDX_CL_INDEX_BYTES, /* ndx_index_bytes_B, 1, 2, 4 */
  NDX_CL_INDEX_CHECK, /* ndx_index_check, one kernel (slot 0) */
  NDX_CL_INDEX_ALONG, /* ndx_index_along_B, 8 .. 128: the gpu shape only */
  NDX_CL_KINDS
};
#define NDX_CL_WIDTHS 8 /* log2 of 1 .. 128 */

/* The conversion kernels (kernels/ndx_convert.cl), one per pair of types,
 * by family (ndx_convert_family, host/launch.h): ndx_convert,
 * ndx_convert_tile, ndx_convert_bytes. */
#define NDX_CL_DTYPES 18 /* ndx_dtype's values */

/* A status buffer on its way back to the host: a kernel's bounds-check
 * status (kernels/ndx_copy.cl; `kernel` and `size` name it), or the index
 * fault status of a gather or scatter (kernels/ndx_index_items.h; `site`
 * names it, site.call not NULL). */
typedef struct ndx_cl_report {
  struct ndx_cl_report *next;
  unsigned long long seq; /* enqueue order, for the oldest report */
  cl_mem status;
  cl_event read; /* the read-back of status into host */
  cl_uint host[8];
  const char *fn; /* the call that made it */
  char kernel[80];
  size_t size[3]; /* dst's, src's and index's bytes */
  ndx_index_site site;
} ndx_cl_report;

/* The shape of the copy kernels an ndx_cl runs (ndx_cl.h, NDX_CL_SHAPE). */
typedef enum ndx_cl_shape_kind { NDX_CL_SHAPE_CPU, NDX_CL_SHAPE_GPU } ndx_cl_shape_kind;

struct ndx_cl {
  cl_context context;
  cl_device_id device;
  ndx_cl_shape_kind shape;
  struct ndx_cl_group *group; /* the programs of context and device (cl_program.c) */
  cl_kernel kernel[2][NDX_CL_KINDS][NDX_CL_WIDTHS]; /* NULL until first needed */
  size_t local[2][NDX_CL_KINDS][NDX_CL_WIDTHS];
  /* [wide][family][source type][destination type], NULL until first needed */
  cl_kernel convert[2][NDX_CONVERT_FAMILIES][NDX_CL_DTYPES][NDX_CL_DTYPES];
  size_t convert_local[2][NDX_CONVERT_FAMILIES][NDX_CL_DTYPES][NDX_CL_DTYPES];
  cl_ulong max_constant;
  cl_ulong stream_bytes; /* a gather writing this many bytes streams them (cl_tuning.h) */
  pthread_mutex_t lock;  /* `kernel`, kernel arguments and enqueues; the report lists */
  ndx_cl_report *pending, *pending_last; /* reports enqueued and not yet read, oldest first */
  ndx_cl_report *kept;                   /* the oldest fault read but not yet returned */
  unsigned long long seq;                /* reports made */
  ndx_cl_build_fn *on_build;             /* ndx_cl_set_build_callback, under `lock` */
  void *on_build_user;
};

/* A buffer argument: its root buffer (itself, or a sub-buffer's parent), its
 * first byte's offset there and its size. */
/* A copy plan (cl.c), or a conversion's (cl_convert.c): what it enqueues
 * and the bytes each side touches. */
struct ndx_cl_plan {
  ndx_cl *cl;
  ndx_copy_path path;
  int wide;
  bool unchecked;       /* NDX_CL_PLAN_UNCHECKED */
  char kernel_name[64]; /* in bounds-check reports */
  cl_kernel kernel;
  cl_mem launch; /* the launch descriptor and the pack (kernels/ndx_launch.h) */
  size_t items, global, local;
  cl_long chunk;
  size_t dst_off, src_off, bytes; /* the buffer path */
  int64_t dst_lo, dst_end;        /* bytes each layout's span touches */
  int64_t src_lo, src_end;
};

typedef struct ndx_cl_buffer {
  cl_mem root;
  size_t offset;
  size_t size;
} ndx_cl_buffer;

int ndx_cl_log2_bits(int bits);

/* The name of OpenCL error code `e` ("CL_INVALID_VALUE"). */
const char *ndx_cl_error_name(cl_int e);

/* NDX_EDEVICE for OpenCL call `call` of `fn` failing with `e`. */
ndx_status ndx_cl_fail(const char *fn, const char *call, cl_int e);

/* Makes cl one of the users of its context and device's programs (none
 * built yet, when it is the first); NDX_ENOMEM when out of memory. */
ndx_status ndx_cl_group_join(ndx_cl *cl);

/* Ends cl's use of the programs; the last user releases them. */
void ndx_cl_group_leave(ndx_cl *cl);

/* cl's kernel of family `kind` for `bits`-bit elements (any, for a family
 * of one kernel) in index form `wide` and cl's shape, and its work-group
 * size. The first call for a shape, family, width and form in a context and
 * device builds the program (kernels/ndx_copy.cl); errors name `fn`. */
ndx_status ndx_cl_kernel(ndx_cl *cl, const char *fn, int wide, int kind, int bits,
                         cl_kernel *kernel, size_t *local);

/* Releases the kernel objects cl has made. */
/* The name of conversion family `kind` (its kernel is ndx_<name>). */
const char *ndx_cl_convert_family(int kind);

/* The conversion kernel of family `kind` (ndx_convert_family) from
 * type src_t to dst_t in form `wide`, built on first use as ndx_cl_kernel
 * builds a copy kernel. */
ndx_status ndx_cl_convert_kernel(ndx_cl *cl, const char *fn, int wide, int kind, int src_t,
                                 int dst_t, cl_kernel *kernel, size_t *local);

/* The kernel ndx_cl_convert runs to convert src_l (type src_t, distinct
 * from dst_t) into dst_l, named as its bounds-check reports name it
 * ("ndx_convert_transpose from f32 to bf16"), into `name`: the path the
 * conversion takes, for its tests. */
ndx_status ndx_cl_convert_kernel_name(ndx_cl *cl, const ndx_layout *dst_l, ndx_dtype dst_t,
                                      const ndx_layout *src_l, ndx_dtype src_t, char *name,
                                      size_t size);

void ndx_cl_release_kernels(ndx_cl *cl);

/* NDX_EINVAL unless `queue` is of cl's context and device. */
/* NDX_EUNSUPPORTED (naming `fn`) when the launch descriptor and pack of
 * copy plan p do not fit cl's constant buffer. */
ndx_status ndx_cl_launch_fits(const char *fn, const ndx_cl *cl, const ndx_copy_plan *p);

/* The end of a kernel plan's making: plan->items = items work-items, its
 * global size and chunk, and plan->launch, a buffer of descriptor d with
 * p's pack after it (which ndx_cl_launch_fits has found to fit); errors
 * name `fn`. */
ndx_status ndx_cl_plan_launch(const char *fn, ndx_cl_plan *plan, const ndx_copy_plan *p,
                              const ndx_launch *d, int64_t items);

/* ndx_cl_plan_enqueue and ndx_cl_copy for call `fn`, the one their
 * messages name. */
ndx_status ndx_cl_plan_enqueue_as(const char *fn, const ndx_cl_plan *plan, cl_command_queue queue,
                                  cl_mem dst, cl_mem src, cl_uint nwait, const cl_event *wait,
                                  cl_event *done);
ndx_status ndx_cl_copy_as(const char *fn, ndx_cl *cl, cl_command_queue queue, cl_mem dst,
                          const ndx_layout *dst_l, cl_mem src, const ndx_layout *src_l, int bits,
                          cl_uint nwait, const cl_event *wait, cl_event *done);

ndx_status ndx_cl_check_queue(const ndx_cl *cl, const char *fn, cl_command_queue queue);

/* Checks that `mem` is a buffer of cl's context and (unless `unchecked`)
 * holds the bytes [lo, end) argument `name` needs; fills `info`. */
ndx_status ndx_cl_check_buffer(const ndx_cl *cl, const char *fn, cl_mem mem, const char *name,
                               int64_t lo, int64_t end, bool unchecked, ndx_cl_buffer *info);

/* NDX_EINVAL when the bytes [lo, end) of `a` and of `b` (named in the
 * message) are bytes of one buffer that intersect. */
ndx_status ndx_cl_check_disjoint(const char *fn, const char *na, cl_mem a, const ndx_cl_buffer *ia,
                                 int64_t alo, int64_t aend, const char *nb, cl_mem b,
                                 const ndx_cl_buffer *ib, int64_t blo, int64_t bend);

/* A new report with a zeroed status buffer of its own, into *out. */
ndx_status ndx_cl_report_new(ndx_cl *cl, const char *fn, ndx_cl_report **out);

/* A new report on `status`, a status buffer the caller zeroes before its
 * kernel runs (an index plan's pool slot), retained until the report is
 * freed, into *out. */
ndx_status ndx_cl_report_on(ndx_cl *cl, const char *fn, cl_mem status, ndx_cl_report **out);

/* Frees a report that has no read-back enqueued. */
void ndx_cl_report_free(ndx_cl_report *r);

/* Enqueues the read-back of r's status after `after` and puts r on cl's
 * pending list, which then owns it (ndx_cl_check, ndx_cl_reap); on failure
 * r is freed. With `read`, *read gets a reference of its own to the
 * read-back's event (a pool slot must not be reused before it ends, and
 * the report may be freed by another thread as soon as it is pending). */
ndx_status ndx_cl_report_enqueue(ndx_cl *cl, const char *fn, ndx_cl_report *r,
                                 cl_command_queue queue, cl_event after, cl_event *read);

/* Frees the oldest pending reports whose read-back is complete, up to the
 * first that is not, without waiting, keeping the oldest fault among them
 * for the next ndx_cl_check. */
void ndx_cl_reap(ndx_cl *cl);

#endif /* NDX_CL_RUNTIME_H */
