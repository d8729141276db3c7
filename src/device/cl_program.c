/* cl_program.c: the OpenCL runtime's programs and kernel objects.
 *
 * One embedded source (kernels/ndx_copy.cl and ndx_index.cl) makes a
 * program per kernel family, element width and index form, each built the
 * first time a plan or a gather needs it: a first copy compiles the one
 * kernel it runs, not the whole set (on PoCL each kernel is a separate
 * compile of its own, so a build costs what it holds). The programs
 * belong to the context and device: every ndx_cl of the same pair shares
 * them (an entry of `groups`, freed with its last ndx_cl), and each ndx_cl
 * has kernel objects of its own, since clSetKernelArg is not thread-safe on
 * one cl_kernel. Conversions (ndx_convert.cl) are programs of the same
 * source too, one per family, pair of types, index form and shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cl_runtime.h"
#include "cl_tuning.h"
#include "host/ndx_internal.h"

/* Each family's kernel name (ndx_<name>) and the widths it has (bit w:
 * 1 << w bits; 0: one kernel for every width, in slot 0). */
static const struct {
  const char *name;
  unsigned widths;
} families[NDX_CL_KINDS] = {
    [NDX_CL_ROWS] = {"rows", 0xf8u},
    [NDX_CL_GATHER] = {"gather", 0xf8u},
    [NDX_CL_TRANSPOSE] = {"transpose", 0xffu},
    [NDX_CL_BYTES] = {"bytes", 0x07u},
    [NDX_CL_INDEX_COPY] = {"index_copy", 0xf8u},
    [NDX_CL_INDEX_BYTES] = {"index_bytes", 0x07u},
    [NDX_CL_INDEX_CHECK] = {"index_check", 0u},
    [NDX_CL_INDEX_ALONG] = {"index_along", 0xf8u},
};

const char *ndx_cl_family(int kind, unsigned *widths) {
  if (kind < 0 || kind >= NDX_CL_KINDS) return NULL;
  if (widths) *widths = families[kind].widths;
  return families[kind].name;
}

int ndx_cl_log2_bits(int bits) {
  int l = 0;
  while ((1 << l) < bits) l++;
  return l;
}

void ndx_cl_build_options(char *out, size_t size, int gpu, int wide, const char *name, int bits) {
  char width[24] = "";
  if (bits > 0) snprintf(width, sizeof width, " -DNDX_BITS=%d", bits);
  snprintf(out, size, "-cl-std=CL1.2 -DNDX_WIDE=%d -DNDX_KERNEL_%s%s%s%s", wide, name, width,
           gpu ? " -DNDX_SHAPE_GPU" : "", NDX_BOUNDS_CHECK ? " -DNDX_BOUNDS_CHECK" : "");
}

int ndx_cl_bounds_checked(void) {
  return NDX_BOUNDS_CHECK;
}

/* The programs of one context and device. The entry holds a reference on
 * each program it built; `users` counts the live ndx_cl objects using it,
 * and the last to go releases the programs and frees the entry. */
typedef struct ndx_cl_group {
  struct ndx_cl_group *next;
  cl_context context;
  cl_device_id device;
  int users;
  pthread_mutex_t build;                                 /* one build at a time; `program` */
  cl_program program[2][2][NDX_CL_KINDS][NDX_CL_WIDTHS]; /* [shape][wide][kind][log2 bits] */
  /* [shape][wide][family][source type][destination type] */
  cl_program convert[2][2][NDX_CONVERT_FAMILIES][NDX_CL_DTYPES][NDX_CL_DTYPES];
} ndx_cl_group;

static pthread_mutex_t groups_lock = PTHREAD_MUTEX_INITIALIZER;
static ndx_cl_group *groups;

ndx_status ndx_cl_group_join(ndx_cl *cl) {
  pthread_mutex_lock(&groups_lock);
  ndx_cl_group *g = groups;
  while (g && !(g->context == cl->context && g->device == cl->device)) g = g->next;
  if (!g && (g = calloc(1, sizeof *g)) != NULL) {
    if (pthread_mutex_init(&g->build, NULL) != 0) {
      free(g);
      g = NULL;
    } else {
      g->context = cl->context;
      g->device = cl->device;
      g->next = groups;
      groups = g;
    }
  }
  if (g) g->users++;
  pthread_mutex_unlock(&groups_lock);
  cl->group = g;
  return g ? NDX_OK : ndx_set_error(NDX_ENOMEM, "ndx_cl_create: out of host memory");
}

void ndx_cl_group_leave(ndx_cl *cl) {
  ndx_cl_group *g = cl->group;
  if (!g) return;
  cl->group = NULL;
  pthread_mutex_lock(&groups_lock);
  bool last = --g->users == 0;
  if (last) {
    ndx_cl_group **at = &groups;
    while (*at != g) at = &(*at)->next;
    *at = g->next;
  }
  pthread_mutex_unlock(&groups_lock);
  if (!last) return;
  for (int sh = 0; sh < 2; sh++)
    for (int f = 0; f < 2; f++)
      for (int k = 0; k < NDX_CL_KINDS; k++)
        for (int w = 0; w < NDX_CL_WIDTHS; w++)
          if (g->program[sh][f][k][w]) clReleaseProgram(g->program[sh][f][k][w]);
  cl_program *conv = &g->convert[0][0][0][0][0];
  for (size_t i = 0; i < sizeof g->convert / sizeof *conv; i++)
    if (conv[i]) clReleaseProgram(conv[i]);
  pthread_mutex_destroy(&g->build);
  free(g);
}

/* Builds a program of the embedded source with build options `options`
 * (ndx_cl_build_options); on failure the build log is in the message, which
 * names `fn`, the call the user made, and `kernel`, what it was to hold. */
static ndx_status build(const ndx_cl *cl, const char *fn, const char *kernel, const char *options,
                        cl_program *out) {
  const char *src = ndx_cl_copy_source;
  size_t len = ndx_cl_copy_source_size;
  cl_int e;
  cl_program p = clCreateProgramWithSource(cl->context, 1, &src, &len, &e);
  if (e != CL_SUCCESS) return ndx_cl_fail(fn, "clCreateProgramWithSource", e);
  e = clBuildProgram(p, 1, &cl->device, options, NULL, NULL);
  if (e == CL_SUCCESS) {
    *out = p;
    return NDX_OK;
  }
  size_t n = 0;
  char *log = NULL;
  if (clGetProgramBuildInfo(p, cl->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS &&
      (log = malloc(n + 1)) != NULL) {
    if (clGetProgramBuildInfo(p, cl->device, CL_PROGRAM_BUILD_LOG, n, log, NULL) != CL_SUCCESS)
      n = 0;
    log[n] = '\0';
  }
  ndx_set_error(NDX_EDEVICE, "%s: clBuildProgram of %s (%s) failed: %d (%s); build log:\n%s", fn,
                kernel, options, (int)e, ndx_cl_error_name(e), log ? log : "(none)");
  free(log);
  clReleaseProgram(p);
  return NDX_EDEVICE;
}

void ndx_cl_set_build_callback(ndx_cl *cl, ndx_cl_build_fn *fn, void *user) {
  if (!cl) return;
  pthread_mutex_lock(&cl->lock);
  cl->on_build = fn;
  cl->on_build_user = user;
  pthread_mutex_unlock(&cl->lock);
}

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The group's program in `slot`, built the first time with `options`
 * between the two calls of cl's build callback, which is told `ev`. */
static ndx_status group_program(ndx_cl *cl, const char *fn, cl_program *slot, ndx_cl_build_event ev,
                                const char *options, cl_program *out) {
  ndx_cl_group *g = cl->group;
  pthread_mutex_lock(&g->build);
  ndx_status s = NDX_OK;
  if (!*slot) {
    pthread_mutex_lock(&cl->lock);
    ndx_cl_build_fn *on_build = cl->on_build;
    void *user = cl->on_build_user;
    pthread_mutex_unlock(&cl->lock);
    double t0 = seconds_now();
    if (on_build) on_build(user, &ev);
    s = build(cl, fn, ev.kernel, options, slot);
    ev.done = 1;
    ev.seconds = seconds_now() - t0;
    ev.status = s;
    if (on_build) on_build(user, &ev);
  }
  *out = *slot;
  pthread_mutex_unlock(&g->build);
  return s;
}

/* Kernel `name` of program p into cl's slots *ks and *ls, its local size
 * the shape's, or less where the device caps it (another thread may have
 * made it meanwhile: then that one), and into *kernel and *local. */
static ndx_status cl_kernel_of(ndx_cl *cl, const char *fn, cl_program p, const char *name,
                               cl_kernel *ks, size_t *ls, cl_kernel *kernel, size_t *local) {
  cl_int e;
  cl_kernel k = clCreateKernel(p, name, &e);
  if (e != CL_SUCCESS) return ndx_cl_fail(fn, "clCreateKernel", e);
  size_t wg = 0;
  e = clGetKernelWorkGroupInfo(k, cl->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
  if (e != CL_SUCCESS) {
    clReleaseKernel(k);
    return ndx_cl_fail(fn, "clGetKernelWorkGroupInfo", e);
  }
  pthread_mutex_lock(&cl->lock);
  if (!*ks) {
    *ks = k;
    size_t want = cl->shape == NDX_CL_SHAPE_GPU ? NDX_CL_GPU_LOCAL_SIZE : NDX_CL_LOCAL_SIZE;
    *ls = wg < want && wg > 0 ? wg : want;
    k = NULL;
  }
  *kernel = *ks;
  *local = *ls;
  pthread_mutex_unlock(&cl->lock);
  if (k) clReleaseKernel(k);
  return NDX_OK;
}

ndx_status ndx_cl_kernel(ndx_cl *cl, const char *fn, int wide, int kind, int bits,
                         cl_kernel *kernel, size_t *local) {
  int w = families[kind].widths ? ndx_cl_log2_bits(bits) : 0;
  pthread_mutex_lock(&cl->lock);
  *kernel = cl->kernel[wide][kind][w];
  *local = cl->local[wide][kind][w];
  pthread_mutex_unlock(&cl->lock);
  if (*kernel) return NDX_OK;

  char name[32], options[160];
  snprintf(name, sizeof name, "ndx_%s", families[kind].name);
  ndx_cl_build_event ev = {name, families[kind].widths ? 1 << w : 0, wide, 0, 0.0, NDX_OK};
  ndx_cl_build_options(options, sizeof options, cl->shape == NDX_CL_SHAPE_GPU, wide,
                       families[kind].name, ev.bits);
  cl_program p;
  ndx_status s =
      group_program(cl, fn, &cl->group->program[cl->shape][wide][kind][w], ev, options, &p);
  if (s != NDX_OK) return s;
  return cl_kernel_of(cl, fn, p, name, &cl->kernel[wide][kind][w], &cl->local[wide][kind][w],
                      kernel, local);
}

const char *ndx_cl_convert_family(int kind) {
  static const char *const names[NDX_CONVERT_FAMILIES] = {[NDX_CONVERT_ELEMENTS] = "convert",
                                                          [NDX_CONVERT_TILE] = "convert_tile",
                                                          [NDX_CONVERT_BYTES] = "convert_bytes",
                                                          [NDX_CONVERT_TRANSPOSE] =
                                                              "convert_transpose"};
  return names[kind];
}

ndx_status ndx_cl_convert_kernel(ndx_cl *cl, const char *fn, int wide, int kind, int src_t,
                                 int dst_t, cl_kernel *kernel, size_t *local) {
  pthread_mutex_lock(&cl->lock);
  *kernel = cl->convert[wide][kind][src_t][dst_t];
  *local = cl->convert_local[wide][kind][src_t][dst_t];
  pthread_mutex_unlock(&cl->lock);
  if (*kernel) return NDX_OK;

  const char *family = ndx_cl_convert_family(kind);
  char name[32], what[64], options[200];
  snprintf(name, sizeof name, "ndx_%s", family);
  snprintf(what, sizeof what, "ndx_%s %s to %s", family, ndx_dtype_name((ndx_dtype)src_t),
           ndx_dtype_name((ndx_dtype)dst_t));
  ndx_cl_build_options(options, sizeof options, cl->shape == NDX_CL_SHAPE_GPU, wide, family, 0);
  size_t n = strlen(options);
  snprintf(options + n, sizeof options - n, " -DNDX_SRC_T=%d -DNDX_DST_T=%d", src_t, dst_t);
  ndx_cl_build_event ev = {what, 0, wide, 0, 0.0, NDX_OK};
  cl_program p;
  ndx_status s = group_program(cl, fn, &cl->group->convert[cl->shape][wide][kind][src_t][dst_t], ev,
                               options, &p);
  if (s != NDX_OK) return s;
  return cl_kernel_of(cl, fn, p, name, &cl->convert[wide][kind][src_t][dst_t],
                      &cl->convert_local[wide][kind][src_t][dst_t], kernel, local);
}

void ndx_cl_release_kernels(ndx_cl *cl) {
  for (int f = 0; f < 2; f++)
    for (int k = 0; k < NDX_CL_KINDS; k++)
      for (int w = 0; w < NDX_CL_WIDTHS; w++)
        if (cl->kernel[f][k][w]) clReleaseKernel(cl->kernel[f][k][w]);
  cl_kernel *conv = &cl->convert[0][0][0][0];
  for (size_t i = 0; i < sizeof cl->convert / sizeof *conv; i++)
    if (conv[i]) clReleaseKernel(conv[i]);
}
