/* cuda_plan.c: planning a CUDA copy (cuda_plan.h): the shared planner's
 * plan (host/copy_plan.h) turned into steps, each with its kernel's
 * arguments and its own pack. Plain C with no CUDA call, so the plans can be
 * made, and emulated, on machines without a GPU.
 *
 * By path: buffer -> one cudaMemcpyAsync; rows -> the rows kernel with
 * vectors; gather -> one element per item, or vectors read backwards under a
 * flip (gather-flip); transpose -> tiles through shared memory, or for
 * aligned widths of 16 bits or less 32-bit word tiles (with their edge
 * strips as plans of their own, and the whole copy without words for
 * pointers off a word); bytes -> destination byte ranges. Where the
 * selection table (kernels/ndx_cuda_select.h) names a candidate, or the
 * tuning tool names one (ndx_cuda_plan_fill_kernel), a transpose runs
 * transpose-32x8 and rows, gathers and broadcast columns warp-rows
 * instead. */
#include <stdlib.h>
#include <string.h>

#include "ndx_gpu.h"
#include "cuda_plan.h"
#include "host/copy_plan.h"
#include "host/launch.h" /* ndx_launch_bytes */
#include "host/ndx_internal.h"
#include "ndx_cuda_select.h"

/* CUDA's kernels add word transposes to the common paths; contiguous copies
 * are cudaMemcpyAsync at every size, rows need unit strides on both sides. */
static const ndx_copy_caps cuda_caps = {.words_k = NDX_CUDA_WORDS_K, .words_j = NDX_CUDA_WORDS_J};

static int64_t min64(int64_t a, int64_t b) {
  return a < b ? a : b;
}

static void magic64(int64_t d, uint64_t *m, int32_t *s) {
  int l = 0;
  ndx_pack_magic(d, 64, m, &l);
  *s = l;
}

/* ---- Steps ------------------------------------------------------------------ */

/* A kernel step of plan `p` over the pair `q` (p's, or p's reordered): its
 * pack is written here, once. */
static ndx_status start_step(ndx_cuda_step *s, int kernel, const ndx_copy_plan *p,
                             const ndx_operands *q) {
  memset(s, 0, sizeof *s);
  s->kernel = kernel;
  s->wide = p->wide;
  s->numel = q->numel;
  s->args.bits = p->bits;
  size_t used;
  return ndx_pack_write(NDX_GPU_STR(ndx_cuda_plan_create), s->args.pack, sizeof s->args.pack, &used,
                        q, p->bits, p->wide);
}

/* rows, gather or gather-flip. For rows and gather-flip, the widest vector
 * the strides allow: the row length and every outer stride (both sides) must
 * be whole vectors. */
static ndx_status run_step(ndx_cuda_step *s, const ndx_copy_plan *p, int kernel) {
  const ndx_operands *q = &p->q;
  ndx_status st = start_step(s, kernel, p, q);
  int es = p->bits / 8;
  s->args.vel = 1;
  s->args.count = q->numel;
  s->vec_max = es;
  if (kernel == NDX_CUDA_GATHER) return st;
  int in = q->rank - 1;
  for (int vb = 16; vb > es; vb /= 2) {
    bool ok = (q->shape[in] * es) % vb == 0;
    for (int a = 0; a < in && ok; a++)
      ok = (q->strides[0][a] * es) % vb == 0 && (q->strides[1][a] * es) % vb == 0;
    if (ok) {
      s->vec_max = vb;
      break;
    }
  }
  s->dst_first = q->offset[0];
  /* gather-flip: one past the run's end */
  s->src_first = kernel == NDX_CUDA_GATHER_FLIP ? q->offset[1] + 1 : q->offset[1];
  return st;
}

/* warp-rows over the plan's pair: its innermost axis is the row, cut into
 * segments of NDX_CUDA_ROW_SEGMENT_BYTES. */
static ndx_status warp_step(ndx_cuda_step *s, const ndx_copy_plan *p) {
  const ndx_operands *q = &p->q;
  ndx_status st = start_step(s, NDX_CUDA_WARP_ROWS, p, q);
  ndx_cuda_args *a = &s->args;
  a->dj = q->shape[q->rank - 1];
  a->chunk = min64(a->dj, NDX_CUDA_ROW_SEGMENT_BYTES / (p->bits / 8));
  a->nj = ndx_ceil_div(a->dj, a->chunk);
  magic64(a->nj, &a->mnj, &a->snj);
  a->count = q->numel / a->dj * a->nj;
  return st;
}

/* The shape class of a rows or gather plan (bits >= 8, rank >= 1). */
static int row_shape(const ndx_copy_plan *p) {
  const ndx_operands *q = &p->q;
  int64_t bytes = q->shape[q->rank - 1] * (p->bits / 8);
  return bytes >= NDX_CUDA_LONG_ROW_BYTES ? NDX_CUDA_SHAPE_LONG_ROWS : NDX_CUDA_SHAPE_SHORT_ROWS;
}

/* A transpose's groups (ndx_copy_tile_join): a K or J shorter than a tile
 * side joins the batch axis that continues its run on its side, giving
 * [batch..., (K2), K, (J2), J] in *q (gk, gj: whether K2, J2 are there),
 * the order the tile kernels read a batch's matrix in. */
static void tile_groups(const ndx_copy_plan *p, ndx_operands *q, int *gk, int *gj) {
  *q = p->q;
  ndx_copy_tile_join(q, NDX_CUDA_TILE_SIDE, NDX_CUDA_TILE_SIDE, NDX_MAX_RANK, gk, gj);
  if (!*gj) return;
  int r = q->rank, perm[NDX_MAX_RANK];
  for (int a = 0; a < r; a++) perm[a] = a;
  perm[r - 3] = r - 2; /* [..., J2, K, J] -> [..., K, J2, J] */
  perm[r - 2] = r - 3;
  ndx_operands_permute(q, perm);
}

/* The extents of the k and j groups of a grouped pair. */
static void group_extents(const ndx_operands *q, int gk, int gj, int64_t *dk, int64_t *dj) {
  int r = q->rank, kin = r - 2 - gj;
  *dk = q->shape[kin] * (gk ? q->shape[kin - 1] : 1);
  *dj = q->shape[r - 1] * (gj ? q->shape[r - 2] : 1);
}

/* The shape class of a transpose plan (not by words). */
static int tile_shape(const ndx_copy_plan *p) {
  if (p->q.strides[1][p->q.rank - 1] == 0) return NDX_CUDA_SHAPE_COLUMNS;
  ndx_operands q;
  int gk, gj;
  int64_t dk, dj;
  tile_groups(p, &q, &gk, &gj);
  group_extents(&q, gk, gj, &dk, &dj);
  if (gk || gj) return NDX_CUDA_SHAPE_GROUPED;
  return dk >= NDX_CUDA_T32_SIDE && dj >= NDX_CUDA_T32_SIDE ? NDX_CUDA_SHAPE_TILES
                                                            : NDX_CUDA_SHAPE_SKINNY;
}

/* transpose-32x8 over the grouped pair: square tiles, one batch entry each. */
static ndx_status t32_step(ndx_cuda_step *s, const ndx_copy_plan *p) {
  ndx_operands q;
  int gk, gj;
  tile_groups(p, &q, &gk, &gj);
  ndx_status st = start_step(s, NDX_CUDA_TRANSPOSE_32X8, p, &q);
  ndx_cuda_args *a = &s->args;
  a->gk = gk, a->gj = gj;
  group_extents(&q, gk, gj, &a->dk, &a->dj);
  a->tk = a->tj = NDX_CUDA_T32_SIDE;
  a->tb = 1;
  a->nk = ndx_ceil_div(a->dk, a->tk);
  a->nj = ndx_ceil_div(a->dj, a->tj);
  a->nbatch = q.numel / (a->dk * a->dj);
  a->count = a->nbatch * a->nk * a->nj;
  return st;
}

/* transpose by tiles over the grouped pair; tiles of tk x tj (tb batch
 * entries when one tile covers both groups). */
static ndx_status tile_step(ndx_cuda_step *s, const ndx_copy_plan *p) {
  ndx_operands q;
  int gk, gj;
  const int64_t side = NDX_CUDA_TILE_SIDE;
  tile_groups(p, &q, &gk, &gj);
  ndx_status st = start_step(s, NDX_CUDA_TRANSPOSE, p, &q);
  ndx_cuda_args *a = &s->args;
  int64_t dk, dj;
  group_extents(&q, gk, gj, &dk, &dj);
  int64_t cap = NDX_CUDA_TILE_ELEMS;
  int64_t tj = min64(dj, side), tk = min64(dk, side);
  if (tj < side)
    tk = min64(dk, cap / tj);
  else if (tk < side)
    tj = min64(dj, cap / tk);
  a->gk = gk;
  a->gj = gj;
  a->dk = dk;
  a->dj = dj;
  a->tk = (int32_t)tk;
  a->tj = (int32_t)tj;
  a->nk = ndx_ceil_div(dk, tk);
  a->nj = ndx_ceil_div(dj, tj);
  a->nbatch = q.numel / (dk * dj);
  int64_t tb = 1;
  if (a->nk == 1 && a->nj == 1) tb = min64(min64(a->nbatch, cap / (tk * tj)), NDX_CUDA_TILE_BATCH);
  a->tb = (int32_t)tb;
  a->count = ndx_ceil_div(a->nbatch, tb) * a->nk * a->nj;
  a->pow2 = (tk & (tk - 1)) == 0 && (tj & (tj - 1)) == 0;
  uint64_t m;
  int l;
  ndx_pack_magic(tk, 32, &m, &l);
  a->mk = (uint32_t)m, a->sk = l;
  ndx_pack_magic(tj, 32, &m, &l);
  a->mj = (uint32_t)m, a->sj = l;
  if (a->pow2) a->lk = a->sk, a->lj = a->sj; /* ceil(log2) of a power of two: exact */
  magic64(a->nj, &a->mnj, &a->snj);
  magic64(a->nk, &a->mnk, &a->snk);
  return st;
}

/* transpose-words over the plan's pair [batch..., K, J] (ndx_copy_words_fit):
 * the whole tiles; the rest are the edge strips. */
static ndx_status words_step(ndx_cuda_step *s, const ndx_copy_plan *p) {
  const ndx_operands *q = &p->q;
  ndx_status st = start_step(s, NDX_CUDA_TRANSPOSE_WORDS, p, q);
  ndx_cuda_args *a = &s->args;
  int r = q->rank;
  a->tk = NDX_WORDS_TK(p->bits);
  a->tj = NDX_WORDS_TJ(p->bits);
  a->nk = q->shape[r - 2] / a->tk;
  a->nj = q->shape[r - 1] / a->tj;
  a->dk = a->nk * a->tk;
  a->dj = a->nj * a->tj;
  a->tb = 1;
  a->nbatch = q->numel / (q->shape[r - 2] * q->shape[r - 1]);
  a->count = a->nbatch * a->nk * a->nj;
  magic64(a->nj, &a->mnj, &a->snj);
  magic64(a->nk, &a->mnk, &a->snk);
  return st;
}

static ndx_status bytes_step(ndx_cuda_step *s, const ndx_copy_plan *p) {
  const ndx_operands *q = &p->q;
  ndx_status st = start_step(s, NDX_CUDA_BYTES, p, q);
  ndx_launch_bytes(q, p->bits, &s->args.first, &s->args.end);
  s->args.chunk =
      ndx_launch_bytes_chunk(s->args.end - s->args.first, q->numel, NDX_CUDA_BYTES_ELEMS);
  s->args.count = ndx_ceil_div(s->args.end - s->args.first, s->args.chunk);
  return st;
}

/* What add_steps plans with: the shared planner's flags and the candidate
 * kernel the tuning tool names (-1: the selection table's choice). */
typedef struct step_opts {
  unsigned copy_flags;
  int kernel;
} step_opts;

static ndx_status add_steps(struct ndx_cuda_plan *plan, const ndx_copy_plan *p, const step_opts *o);

/* Appends one step to plan->step. */
static ndx_cuda_step *next_step(struct ndx_cuda_plan *plan) {
  return plan->nsteps < NDX_CUDA_MAX_STEPS ? &plan->step[plan->nsteps++] : NULL;
}

/* The edge strips of a word transpose `p`, each planned as a copy of its
 * own (without words): the pair narrowed to k >= dk (all j) and to k < dk,
 * j >= dj. Their destination bytes are disjoint from the main part's: every
 * destination row starts on a word and the main part ends on a word in each
 * row. */
static ndx_status add_edges(struct ndx_cuda_plan *plan, const ndx_copy_plan *p,
                            const ndx_cuda_args *a, const step_opts *o) {
  const ndx_operands *q = &p->q;
  int r = q->rank;
  for (int strip = 0; strip < 2; strip++) {
    ndx_operands e = *q;
    int axis = strip == 0 ? r - 2 : r - 1;
    int64_t skip = strip == 0 ? a->dk : a->dj;
    e.shape[axis] -= skip;
    if (strip == 1) e.shape[r - 2] = a->dk;
    for (int k = 0; k < 2; k++) e.offset[k] += skip * q->strides[k][axis];
    if (e.shape[r - 2] == 0 || e.shape[r - 1] == 0) continue;
    e.numel = 1;
    for (int x = 0; x < r; x++) e.numel *= e.shape[x];
    ndx_copy_plan sub;
    ndx_copy_plan_pair(&sub, &e, p->bits, &cuda_caps, o->copy_flags | NDX_COPY_NO_WORDS);
    ndx_status st = add_steps(plan, &sub, o);
    if (st != NDX_OK) return st;
  }
  return NDX_OK;
}

/* The kernel of a rows, gather or transpose plan (not by words) with its
 * shape class: the candidate the tuning tool names where it runs that class,
 * else the selection table's choice; `own` is the path's own kernel. */
static int choose_kernel(const ndx_copy_plan *p, const step_opts *o, int own) {
  if (p->q.rank < 1) return own;
  int shape = p->path == NDX_PATH_TRANSPOSE ? tile_shape(p) : row_shape(p);
  if (o->kernel >= 0 && o->kernel == ndx_cuda_candidate(shape)) return o->kernel;
  return ndx_cuda_select(own, p->bits, shape);
}

/* Appends the steps of plan `p` to `plan` (for a word transpose: the main
 * part, its edges and the alternative without words). */
static ndx_status add_steps(struct ndx_cuda_plan *plan, const ndx_copy_plan *p,
                            const step_opts *o) {
  const ndx_operands *q = &p->q;
  int in = q->rank - 1;
  if (p->path == NDX_PATH_EMPTY) return NDX_OK;
  ndx_cuda_step *s = next_step(plan);
  if (!s)
    return ndx_set_error(NDX_EUNSUPPORTED,
                         NDX_GPU_STR(ndx_cuda_plan_create) ": internal: too many steps");
  switch (p->path) {
  case NDX_PATH_BUFFER:
    memset(s, 0, sizeof *s);
    s->kernel = NDX_CUDA_BUFFER;
    s->numel = q->numel;
    s->dst_off = (size_t)(q->offset[0] * p->bits / 8);
    s->src_off = (size_t)(q->offset[1] * p->bits / 8);
    s->bytes = (size_t)(q->numel * p->bits / 8);
    return NDX_OK;
  case NDX_PATH_ROWS:
    if (choose_kernel(p, o, NDX_CUDA_ROWS) == NDX_CUDA_WARP_ROWS) return warp_step(s, p);
    return run_step(s, p, NDX_CUDA_ROWS);
  case NDX_PATH_GATHER: {
    if (choose_kernel(p, o, NDX_CUDA_GATHER) == NDX_CUDA_WARP_ROWS) return warp_step(s, p);
    bool flip = q->strides[0][in] == 1 && q->strides[1][in] == -1 && q->shape[in] > 1;
    return run_step(s, p, flip ? NDX_CUDA_GATHER_FLIP : NDX_CUDA_GATHER);
  }
  case NDX_PATH_BYTES:
    return bytes_step(s, p);
  default: /* transpose */
    break;
  }
  if (!p->words) {
    int kernel = choose_kernel(p, o, NDX_CUDA_TRANSPOSE);
    if (kernel == NDX_CUDA_WARP_ROWS) return warp_step(s, p);
    return kernel == NDX_CUDA_TRANSPOSE_32X8 ? t32_step(s, p) : tile_step(s, p);
  }
  ndx_status st = words_step(s, p);
  if (st == NDX_OK) st = add_edges(plan, p, &s->args, o);
  if (st != NDX_OK) return st;
  /* a pointer off a 32-bit word: the same copy without words, in one step */
  ndx_copy_plan whole;
  ndx_copy_plan_pair(&whole, q, p->bits, &cuda_caps, o->copy_flags | NDX_COPY_NO_WORDS);
  struct ndx_cuda_plan alt = {.nsteps = 0};
  st = add_steps(&alt, &whole, o);
  if (st != NDX_OK) return st;
  plan->nalt = alt.nsteps;
  plan->alt[0] = alt.step[0];
  return NDX_OK;
}

/* ndx_cuda_plan_fill with candidate `kernel` (-1: none). */
static ndx_status fill(struct ndx_cuda_plan *plan, const ndx_layout *dst_l, const ndx_layout *src_l,
                       int bits, unsigned flags, int kernel) {
  static const char fn[] = NDX_GPU_STR(ndx_cuda_plan_create);
  if (!plan || !dst_l || !src_l)
    return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", fn,
                         !plan    ? "out"
                         : !dst_l ? "dst_l"
                                  : "src_l");
  if (flags & ~(unsigned)NDX_CUDA_PLAN_WIDE)
    return ndx_set_error(NDX_EINVAL, "%s: flags 0x%x has unknown bits", fn, flags);
  step_opts o = {.copy_flags = flags & NDX_CUDA_PLAN_WIDE ? NDX_COPY_WIDE : 0u, .kernel = kernel};
  ndx_copy_plan p;
  ndx_status st = ndx_copy_plan_make(&p, fn, dst_l, src_l, bits, &cuda_caps, o.copy_flags);
  if (st != NDX_OK) return st;
  struct ndx_cuda_plan tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.path = p.path;
  tmp.bits = bits;
  tmp.dst_lo = p.dst_lo, tmp.dst_end = p.dst_end;
  tmp.src_lo = p.src_lo, tmp.src_end = p.src_end;
  st = add_steps(&tmp, &p, &o);
  if (st == NDX_OK) *plan = tmp;
  return st;
}

ndx_status ndx_cuda_plan_fill(struct ndx_cuda_plan *plan, const ndx_layout *dst_l,
                              const ndx_layout *src_l, int bits, unsigned flags) {
  return fill(plan, dst_l, src_l, bits, flags, -1);
}

ndx_status ndx_cuda_plan_fill_kernel(struct ndx_cuda_plan *plan, const ndx_layout *dst_l,
                                     const ndx_layout *src_l, int bits, unsigned flags,
                                     int kernel) {
  if (kernel != NDX_CUDA_TRANSPOSE_32X8 && kernel != NDX_CUDA_WARP_ROWS)
    return ndx_set_error(NDX_EINVAL,
                         NDX_GPU_STR(ndx_cuda_plan_create) ": kernel %d is no candidate", kernel);
  return fill(plan, dst_l, src_l, bits, flags, kernel);
}

const char *ndx_cuda_plan_path(const ndx_cuda_plan *plan) {
  return plan ? ndx_copy_path_name(plan->path) : ndx_copy_path_name(-1);
}

const char *ndx_cuda_step_name(const ndx_cuda_step *s) {
  static const char *const names[NDX_CUDA_KERNELS] = {
      "buffer",          "rows",  "gather",         "gather-flip", "transpose",
      "transpose-words", "bytes", "transpose-32x8", "warp-rows"};
  return s->kernel >= 0 && s->kernel < NDX_CUDA_KERNELS ? names[s->kernel] : "none";
}

/* ---- Launch-time choices ------------------------------------------------------ */

int ndx_cuda_plan_steps(const struct ndx_cuda_plan *plan, uintptr_t dst, uintptr_t src,
                        ndx_cuda_step *out) {
  bool words_ok = dst % 4 == 0 && src % 4 == 0;
  bool use_alt = plan->nalt > 0 && !words_ok;
  int n = use_alt ? plan->nalt : plan->nsteps;
  for (int k = 0; k < n; k++) {
    ndx_cuda_step *s = &out[k];
    *s = use_alt ? plan->alt[k] : plan->step[k];
    if (s->kernel != NDX_CUDA_ROWS && s->kernel != NDX_CUDA_GATHER_FLIP) continue;
    int es = s->args.bits / 8, vb = s->vec_max;
    /* the vector widths there are kernels for: 16, 4 and the element */
    for (; vb > es; vb /= 2) {
      if (vb != 16 && vb != 4) continue;
      if (s->kernel == NDX_CUDA_GATHER_FLIP && vb != 16) continue;
      if ((dst + (uintptr_t)s->dst_first * (uintptr_t)es) % (uintptr_t)vb == 0 &&
          (src + (uintptr_t)s->src_first * (uintptr_t)es) % (uintptr_t)vb == 0)
        break;
    }
    if (vb <= es) vb = es;
    s->args.vel = vb / es;
    s->args.count = s->numel / s->args.vel;
  }
  return n;
}

int64_t ndx_cuda_grid(const ndx_cuda_step *s, uint32_t grid[3]) {
  const ndx_cuda_args *a = &s->args;
  grid[0] = grid[1] = grid[2] = 1;
  if (s->kernel == NDX_CUDA_TRANSPOSE_32X8) {
    if (a->count <= 0) {
      grid[0] = 0;
      return 0;
    }
    grid[0] = (uint32_t)min64(a->nj, INT32_MAX);
    grid[1] = (uint32_t)min64(a->nk, NDX_CUDA_GRID_YZ);
    grid[2] = (uint32_t)min64(a->nbatch, NDX_CUDA_GRID_YZ);
    return (int64_t)grid[0] * grid[1] * grid[2];
  }
  int64_t per_block = NDX_CUDA_THREADS;
  switch (s->kernel) {
  case NDX_CUDA_ROWS:
  case NDX_CUDA_GATHER:
  case NDX_CUDA_GATHER_FLIP:
    per_block = (int64_t)NDX_CUDA_THREADS * NDX_CUDA_UNROLL(a->vel * (a->bits / 8));
    break;
  case NDX_CUDA_TRANSPOSE:
  case NDX_CUDA_TRANSPOSE_WORDS:
    per_block = 1;
    break;
  case NDX_CUDA_WARP_ROWS:
    per_block = NDX_CUDA_THREADS / NDX_CUDA_ROW_THREADS;
    break;
  case NDX_CUDA_BYTES:
    break;
  default:
    grid[0] = 0;
    return 0;
  }
  int64_t b = ndx_ceil_div(a->count, per_block);
  grid[0] = (uint32_t)(b < NDX_CUDA_MAX_BLOCKS ? b : NDX_CUDA_MAX_BLOCKS);
  return grid[0];
}
