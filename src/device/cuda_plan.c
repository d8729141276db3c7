/* cuda_plan.c: planning a CUDA copy: checks, the pack, the path and the
 * steps (cuda_internal.h). Plain C with no CUDA call, so the plans can be
 * made, and emulated, on machines without a GPU.
 *
 * The path follows ndx_cl's dispatch (docs/device.md section 9): contiguous
 * on both sides -> one cudaMemcpyAsync; innermost unit stride on both sides
 * -> rows (FLAT with vectors); a (batched) 2-d transpose -> TILE, or WORDS
 * for aligned widths of 16 bits or less; anything else -> gather (FLAT one
 * element per item, vectors read backwards under a flip, BYTES below 8
 * bits). */
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "host/copy_plan.h"
#include "host/ndx_internal.h"
#include "ndx/ndx_cuda.h"

#define NDX_WIDE 0
#include "ndx/ndx_device.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx/ndx_device.h"
#undef NDX_WIDE

/* CUDA's kernels add nothing to the common paths: contiguous copies are
 * cudaMemcpyAsync at every size, rows need unit strides on both sides. */
static const ndx_copy_caps cuda_caps = {.rows_from_bytes = 0, .strided_rows = false};

static int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

static int64_t min64(int64_t a, int64_t b) {
  return a < b ? a : b;
}

static void magic64(int64_t d, uint64_t *m, int32_t *s) {
  int l = 0;
  ndx_pack_magic(d, 64, m, &l);
  *s = l;
}

/* ---- Steps ------------------------------------------------------------------ */

static void start_step(ndx_cuda_step *s, int kernel, const uint64_t *pack, int bits) {
  memset(s, 0, sizeof *s);
  const ndx_pack_head *h = (const ndx_pack_head *)pack;
  s->kernel = kernel;
  s->wide = (int)h->wide;
  s->args.bits = bits;
  memcpy(s->args.pack, pack, h->size);
}

/* FLAT in `mode`. For UNIT and REV, the widest vector the strides allow: the
 * row length and every outer stride (both sides) must be whole vectors. */
static void flat_step(ndx_cuda_step *s, const uint64_t *pack, const ndx_copy_pair *q, int bits,
                      int mode) {
  start_step(s, NDX_CUDA_FLAT, pack, bits);
  int es = bits / 8;
  s->args.mode = mode;
  s->args.vel = 1;
  s->args.count = q->numel;
  s->vec_max = es;
  if (mode == NDX_CUDA_GATHER) return;
  int in = q->rank - 1;
  for (int vb = 16; vb > es; vb /= 2) {
    bool ok = (q->d[in] * es) % vb == 0;
    for (int a = 0; a < in && ok; a++) ok = (q->sd[a] * es) % vb == 0 && (q->ss[a] * es) % vb == 0;
    if (ok) {
      s->vec_max = vb;
      break;
    }
  }
  s->dst_first = q->od;
  s->src_first = mode == NDX_CUDA_REV ? q->os + 1 : q->os; /* REV: one past the run's end */
}

/* TILE over the permuted pack [batch..., (K2), K, (J2), J] (gk, gj: whether
 * K2, J2 are there). */
static void tile_step(ndx_cuda_step *s, const uint64_t *pack, const ndx_copy_pair *q, int bits,
                      int gk, int gj) {
  start_step(s, NDX_CUDA_TILE, pack, bits);
  ndx_cuda_args *a = &s->args;
  int r = q->rank, kin = r - 2 - gj;
  int64_t dk = q->d[kin] * (gk ? q->d[kin - 1] : 1), dj = q->d[r - 1] * (gj ? q->d[r - 2] : 1);
  int64_t cap = NDX_CUDA_TILE_ELEMS;
  int64_t tj = min64(dj, 32), tk = min64(dk, 32);
  if (tj < 32)
    tk = min64(dk, cap / tj);
  else if (tk < 32)
    tj = min64(dj, cap / tk);
  a->gk = gk;
  a->gj = gj;
  a->dk = dk;
  a->dj = dj;
  a->tk = (int32_t)tk;
  a->tj = (int32_t)tj;
  a->nk = ceil_div(dk, tk);
  a->nj = ceil_div(dj, tj);
  a->nbatch = q->numel / (dk * dj);
  int64_t tb = 1;
  if (a->nk == 1 && a->nj == 1) tb = min64(min64(a->nbatch, cap / (tk * tj)), NDX_CUDA_TILE_BATCH);
  a->tb = (int32_t)tb;
  a->count = ceil_div(a->nbatch, tb) * a->nk * a->nj;
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
}

/* WORDS's needs on the permuted pack: unit strides (destination along j,
 * source along k), every position of a row start on a 32-bit word, and at
 * least one whole tile. */
static bool words_fit(const ndx_copy_pair *q, int bits) {
  int r = q->rank;
  if (bits > 16 || r < 2) return false;
  int64_t e = 32 / bits;
  if (q->sd[r - 1] != 1 || q->ss[r - 2] != 1) return false;
  if (q->od % e != 0 || q->os % e != 0) return false;
  for (int a = 0; a < r; a++) {
    if (a != r - 1 && q->sd[a] % e != 0) return false;
    if (a != r - 2 && q->ss[a] % e != 0) return false;
  }
  return q->d[r - 2] >= NDX_WORDS_TK(bits) && q->d[r - 1] >= NDX_WORDS_TJ(bits);
}

static void words_step(ndx_cuda_step *s, const uint64_t *pack, const ndx_copy_pair *q, int bits) {
  start_step(s, NDX_CUDA_WORDS, pack, bits);
  ndx_cuda_args *a = &s->args;
  int r = q->rank;
  a->tk = NDX_WORDS_TK(bits);
  a->tj = NDX_WORDS_TJ(bits);
  a->nk = q->d[r - 2] / a->tk;
  a->nj = q->d[r - 1] / a->tj;
  a->dk = a->nk * a->tk;
  a->dj = a->nj * a->tj;
  a->tb = 1;
  a->nbatch = q->numel / (q->d[r - 2] * q->d[r - 1]);
  a->count = a->nbatch * a->nk * a->nj;
  magic64(a->nj, &a->mnj, &a->snj);
  magic64(a->nk, &a->mnk, &a->snk);
}

static void bytes_step(ndx_cuda_step *s, const uint64_t *pack, const ndx_copy_pair *q, int bits) {
  start_step(s, NDX_CUDA_BYTES, pack, bits);
  const ndx_pack_head *h = (const ndx_pack_head *)pack;
  int64_t first, end;
  if (h->wide)
    ndx_bytes_span_w64(h, bits, &first, &end);
  else
    ndx_bytes_span_w32(h, bits, &first, &end);
  /* about 64 destination elements per thread: the two ndx_count_below and
   * the odometer start are paid once per item */
  int64_t chunk = ceil_div(64 * (end - first), q->numel);
  s->args.chunk = chunk < 1 ? 1 : chunk;
  s->args.count = ceil_div(end - first, s->args.chunk);
}

static ndx_status fill(struct ndx_cuda_plan *plan, const ndx_layout *dst_l, const ndx_layout *src_l,
                       int bits, unsigned flags, int depth);

/* Permutes the pack in `buf` (whose pair is `q`) to [batch..., (k2), k, (j2),
 * j], j the last axis; k2 and j2 are -1 when absent. */
static ndx_status permute_for_tile(uint64_t *buf, const ndx_copy_pair *q, int k, int k2, int j2) {
  int32_t perm[NDX_PACK_MAX_RANK];
  int j = q->rank - 1, r = 0;
  for (int a = 0; a < q->rank; a++)
    if (a != k && a != k2 && a != j2 && a != j) perm[r++] = a;
  if (k2 >= 0) perm[r++] = k2;
  perm[r++] = k;
  if (j2 >= 0) perm[r++] = j2;
  perm[r++] = j;
  return ndx_pack_permute(buf, perm);
}

/* The edge strips of a WORDS main part, each a plan of its own (one step):
 * the layouts of the permuted pack narrowed to k >= dk (all j) and to
 * k < dk, j >= dj. Their destination bytes are disjoint from the main
 * part's: every destination row starts on a word and the main part ends on
 * a word in each row. */
static ndx_status add_edges(struct ndx_cuda_plan *plan, const ndx_copy_pair *q,
                            const ndx_cuda_args *a, int bits, unsigned flags, int depth) {
  int r = q->rank;
  for (int strip = 0; strip < 2; strip++) {
    int64_t shape[NDX_PACK_MAX_RANK];
    memcpy(shape, q->d, sizeof(int64_t) * (size_t)r);
    int64_t od = q->od, os = q->os;
    if (strip == 0) { /* k >= dk, every j */
      shape[r - 2] = q->d[r - 2] - a->dk;
      od += a->dk * q->sd[r - 2];
      os += a->dk * q->ss[r - 2];
    } else { /* k < dk, j >= dj */
      shape[r - 2] = a->dk;
      shape[r - 1] = q->d[r - 1] - a->dj;
      od += a->dj * q->sd[r - 1];
      os += a->dj * q->ss[r - 1];
    }
    if (shape[r - 2] == 0 || shape[r - 1] == 0) continue;
    ndx_layout dl, sl;
    ndx_status st = ndx_make(&dl, r, shape, q->sd, od);
    if (st == NDX_OK) st = ndx_make(&sl, r, shape, q->ss, os);
    if (st != NDX_OK) return st;
    struct ndx_cuda_plan sub;
    st = fill(&sub, &dl, &sl, bits, flags | NDX_CUDA_PLAN_NO_WORDS, depth + 1);
    if (st != NDX_OK) return st;
    for (int k = 0; k < sub.nsteps; k++) {
      if (plan->nsteps == NDX_CUDA_MAX_STEPS)
        return ndx_set_error(NDX_EUNSUPPORTED, "ndx_cuda_plan_create: internal: too many steps");
      plan->step[plan->nsteps++] = sub.step[k];
    }
  }
  return NDX_OK;
}

static ndx_status fill(struct ndx_cuda_plan *plan, const ndx_layout *dst_l, const ndx_layout *src_l,
                       int bits, unsigned flags, int depth) {
  uint64_t buf[NDX_CUDA_PACK_BYTES / 8];
  size_t used;
  ndx_status st = ndx_pack_copy(buf, sizeof buf, &used, dst_l, src_l, bits);
  if (st == NDX_OK && (flags & NDX_CUDA_PLAN_WIDE)) st = ndx_pack_widen(buf, sizeof buf, &used);
  if (st != NDX_OK) return st;
  ndx_pack_head *h = (ndx_pack_head *)buf;
  ndx_copy_pair q;
  ndx_copy_pair_read(h, &q);
  memset(plan, 0, sizeof *plan);
  plan->bits = bits;
  ndx_copy_byte_span(dst_l, bits, &plan->dst_lo, &plan->dst_end);
  ndx_copy_byte_span(src_l, bits, &plan->src_lo, &plan->src_end);
  ndx_copy_path path = ndx_copy_choose_path(&q, bits, &cuda_caps, flags & NDX_CUDA_PLAN_GATHER);
  plan->path = path;
  int in = q.rank - 1;
  switch (path) {
  case NDX_PATH_EMPTY:
    return NDX_OK;
  case NDX_PATH_BUFFER: {
    ndx_cuda_step *s = &plan->step[plan->nsteps++];
    memset(s, 0, sizeof *s);
    s->kernel = NDX_CUDA_MEMCPY;
    s->dst_off = (size_t)(q.od * bits / 8);
    s->src_off = (size_t)(q.os * bits / 8);
    s->bytes = (size_t)(q.numel * bits / 8);
    return NDX_OK;
  }
  case NDX_PATH_ROWS:
    flat_step(&plan->step[plan->nsteps++], buf, &q, bits, NDX_CUDA_UNIT);
    return NDX_OK;
  case NDX_PATH_GATHER:
    if (bits < 8)
      bytes_step(&plan->step[plan->nsteps++], buf, &q, bits);
    else
      flat_step(&plan->step[plan->nsteps++], buf, &q, bits,
                q.sd[in] == 1 && q.ss[in] == -1 && q.d[in] > 1 ? NDX_CUDA_REV : NDX_CUDA_GATHER);
    return NDX_OK;
  case NDX_PATH_TRANSPOSE:
    break;
  }
  /* WORDS: the source's unit axis second-to-last, the destination's last. */
  uint64_t orig[NDX_CUDA_PACK_BYTES / 8];
  memcpy(orig, buf, h->size);
  ndx_copy_pair o = q;
  int t = ndx_copy_transpose_axis(&o);
  if (!(flags & NDX_CUDA_PLAN_NO_WORDS) && depth == 0 && bits <= 16) {
    st = permute_for_tile(buf, &o, t, -1, -1);
    if (st != NDX_OK) return st;
    ndx_copy_pair_read(h, &q);
    if (words_fit(&q, bits)) {
      ndx_cuda_step *s = &plan->step[plan->nsteps++];
      words_step(s, buf, &q, bits);
      /* a pointer off a 32-bit word: TILE, or BYTES, over everything */
      plan->nalt = 1;
      if (bits >= 8)
        tile_step(&plan->alt[0], buf, &q, bits, 0, 0);
      else
        bytes_step(&plan->alt[0], buf, &q, bits);
      return add_edges(plan, &q, &s->args, bits, flags, depth);
    }
    memcpy(buf, orig, ((const ndx_pack_head *)orig)->size);
  }
  if (bits < 8) {
    plan->path = NDX_PATH_GATHER; /* as ndx_cl: sub-byte copies that are no WORDS transpose */
    bytes_step(&plan->step[plan->nsteps++], buf, &o, bits);
    return NDX_OK;
  }
  /* TILE: a short K or J joins the axis that continues its run, on its side */
  int j = o.rank - 1, j2 = -1, k2 = -1;
  if (o.d[j] < 32)
    for (int a = 0; a < o.rank - 1 && j2 < 0; a++)
      if (a != t && o.sd[a] == o.d[j] * o.sd[j]) j2 = a;
  if (o.d[t] < 32)
    for (int a = 0; a < o.rank - 1 && k2 < 0; a++)
      if (a != t && a != j2 && o.ss[a] == o.d[t] * o.ss[t]) k2 = a;
  st = permute_for_tile(buf, &o, t, k2, j2);
  if (st != NDX_OK) return st;
  ndx_copy_pair_read(h, &q);
  tile_step(&plan->step[plan->nsteps++], buf, &q, bits, k2 >= 0, j2 >= 0);
  return NDX_OK;
}

ndx_status ndx_cuda_plan_fill(struct ndx_cuda_plan *plan, const ndx_layout *dst_l,
                              const ndx_layout *src_l, int bits, unsigned flags) {
  static const char fn[] = "ndx_cuda_plan_create";
  if (!plan || !dst_l || !src_l)
    return ndx_set_error(NDX_EINVAL, "%s: %s is NULL", fn,
                         !plan    ? "out"
                         : !dst_l ? "dst_l"
                                  : "src_l");
  if (flags & ~(unsigned)(NDX_CUDA_PLAN_WIDE | NDX_CUDA_PLAN_GATHER | NDX_CUDA_PLAN_NO_WORDS))
    return ndx_set_error(NDX_EINVAL, "%s: flags 0x%x has unknown bits", fn, flags);
  ndx_status st = ndx_copy_check(fn, dst_l, src_l, bits);
  if (st != NDX_OK) return st;
  struct ndx_cuda_plan tmp;
  st = fill(&tmp, dst_l, src_l, bits, flags, 0);
  if (st == NDX_OK) *plan = tmp;
  return st;
}

const char *ndx_cuda_plan_path(const ndx_cuda_plan *plan) {
  return plan ? ndx_copy_path_name(plan->path) : ndx_copy_path_name(-1);
}

const char *ndx_cuda_step_name(const ndx_cuda_step *s) {
  switch (s->kernel) {
  case NDX_CUDA_MEMCPY:
    return "memcpy";
  case NDX_CUDA_FLAT:
    return s->args.mode == NDX_CUDA_UNIT  ? "flat-unit"
           : s->args.mode == NDX_CUDA_REV ? "flat-rev"
                                          : "flat-gather";
  case NDX_CUDA_TILE:
    return "tile";
  case NDX_CUDA_WORDS:
    return "words";
  case NDX_CUDA_BYTES:
    return "bytes";
  }
  return "none";
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
    if (s->kernel != NDX_CUDA_FLAT || s->args.mode == NDX_CUDA_GATHER) continue;
    int es = s->args.bits / 8, vb = s->vec_max;
    /* the vector widths there are kernels for: 16, 4 and the element */
    for (; vb > es; vb /= 2) {
      if (vb != 16 && vb != 4) continue;
      if (s->args.mode == NDX_CUDA_REV && vb != 16) continue;
      if ((dst + (uintptr_t)s->dst_first * (uintptr_t)es) % (uintptr_t)vb == 0 &&
          (src + (uintptr_t)s->src_first * (uintptr_t)es) % (uintptr_t)vb == 0)
        break;
    }
    if (vb <= es) vb = es;
    s->args.vel = vb / es;
    int64_t numel = ((const ndx_pack_head *)s->args.pack)->numel;
    s->args.count = numel / s->args.vel;
  }
  return n;
}

int64_t ndx_cuda_blocks(const ndx_cuda_step *s) {
  int64_t per_block = NDX_CUDA_THREADS;
  switch (s->kernel) {
  case NDX_CUDA_FLAT:
    per_block = (int64_t)NDX_CUDA_THREADS * NDX_CUDA_UNROLL(s->args.vel * (s->args.bits / 8));
    break;
  case NDX_CUDA_TILE:
  case NDX_CUDA_WORDS:
    per_block = 1;
    break;
  case NDX_CUDA_BYTES:
    break;
  default:
    return 0;
  }
  int64_t b = ceil_div(s->args.count, per_block);
  return b < NDX_CUDA_MAX_BLOCKS ? b : NDX_CUDA_MAX_BLOCKS;
}
