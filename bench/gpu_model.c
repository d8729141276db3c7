/* gpu_model.c: ndx-bench --gpu-model (gpu_model.h): the gpu-shaped copy,
 * gather and scatter kernels' memory behaviour on an NVIDIA GPU, worked out
 * on the host.
 *
 * Each case of ndx-bench-cuda is planned as ndx_cl's gpu shape plans it
 * (ndx_copy_plan_make with ndx_gpu_caps, then ndx_launch_gpu), and sampled
 * work-groups of its launch (the first, middle and last eight) run here,
 * work-item by work-item, through the kernel bodies themselves
 * (kernels/ndx_copy_gpu.h, compiled as host C below), which report every
 * access through NDX_GPU_TRACE. The accesses of the work-items of one warp
 * at one site and loop step are a request. Per case:
 *   - global loads and stores: sector use, the request's bytes over the
 *     bytes of the sectors it touches, summed over the requests, against
 *     its bound: the same for all the sample's bytes at once, each sector
 *     counted once, which is the best any kernel can do on those layouts (a
 *     step-2 slice reads half of every sector). Below 0.9 of the bound on
 *     either side, the case is "below bound";
 *   - shared memory: wavefronts against the ideal (gpu_model.h); any more
 *     is a bank conflict;
 *   - bytes in flight per SM: the bytes a work-item loads before its next
 *     store (which waits for them), on average, times the work-items an SM
 *     of an H100 (132 SMs, 2048 threads and 32 blocks each, 228 KiB of
 *     shared memory, 1 KiB of it per block for the system) holds at the
 *     launch's occupancy: what Little's law sets against the memory's
 *     latency (docs/device.md, section 10).
 * The data the copy bodies move is the buffers' zeros: no address depends
 * on data, so barriers need no order here and each work-item runs its whole
 * body in turn.
 *
 * Each conversion case of ndx-bench-cuda is planned as ndx_cuda_convert
 * and ndx_cl_convert's gpu shape plan it (ndx_convert_plan_make, then
 * ndx_convert_choose and ndx_launch_convert) and its sampled work-groups
 * run through the bodies of kernels/ndx_convert_items.h and
 * ndx_convert_gpu.h (a unit an element, a byte of a 4-bit destination, or
 * a tile), each work-item looping over its units as the kernels do.
 * Sector use and bounds as above, each side at its own element width.
 *
 * Each gather and scatter case of ndx-bench-cuda is planned as ndx_cl's gpu
 * shape plans it (ndx_index_plan_make, then ndx_index_launch_check and
 * ndx_index_launch_copy), with the index values ndx-bench-cuda draws, and
 * the sampled work-groups of both passes run through the bodies of
 * kernels/ndx_index_gpu.h (a claims scatter's whole check pass first,
 * untraced, so that the copy pass sees its claims). Sector use as above,
 * both passes' requests together; the bound, since the addresses depend on
 * the values, is the same for the sample's own bytes at once, each sector
 * counted once; bytes in flight are the copy pass's. The check pass's
 * atomic claims are neither loads nor stores and are not counted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "gpu_cases.h"
#include "gpu_model.h"
#include "host/index_plan.h"
#include "host/launch.h"
#include "host/ndx_internal.h"
#include "oracle.h"

/* ---- The bodies, built for the host ------------------------------------------- */

/* The work-item's place in the launch; model_turn, the turn of its loop
 * over units in the one body whose caller loops (the conversions' bytes
 * family), which traces its steps within a unit. */
static int64_t model_lid, model_gid, model_local, model_groups, model_turn;
static void model_trace(int site, int64_t step, const void *addr, int bytes);

#define NDX_LOCAL
#define NDX_SHARED
#define NDX_BARRIER() ((void)0)
#define NDX_LOCAL_ID model_lid
#define NDX_LOCAL_SIZE model_local
#define NDX_GROUP_ID model_gid
#define NDX_GROUPS model_groups
#define NDX_GPU_TRACE(site, step, addr, bytes)                                                     \
  model_trace(site, step, (const void *)(addr), (int)(bytes))
#undef NDX_WIDE
#define NDX_WIDE 0
#include "ndx_copy_gpu.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_copy_gpu.h"
#undef NDX_WIDE
#define NDX_WIDE 0
#include "ndx_index_gpu.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_index_gpu.h"
#undef NDX_WIDE
#define NDX_WIDE 0
#include "ndx_convert_gpu.h"
#include "ndx_convert_items.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_convert_gpu.h"
#include "ndx_convert_items.h"

/* ---- Requests ---------------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The most accesses a request holds (tally_group keeps no more) and the
 * most bytes an access has. */
#define REQUEST_MAX (GPU_MODEL_WARP * 16)
#define ACCESS_MAX 16

int64_t gpu_model_sectors(const gpu_model_access *a, int n, int64_t *bytes) {
  static int64_t sectors[REQUEST_MAX * ACCESS_MAX], bs[REQUEST_MAX * ACCESS_MAX];
  int ns = 0, nb = 0;
  if (n > REQUEST_MAX) n = REQUEST_MAX;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < a[i].bytes; k++) {
      bs[nb++] = a[i].addr + k;
      if (k == 0 || (a[i].addr + k) % GPU_MODEL_SECTOR == 0)
        sectors[ns++] = (a[i].addr + k) / GPU_MODEL_SECTOR;
    }
  qsort(sectors, (size_t)ns, sizeof *sectors, cmp_i64);
  qsort(bs, (size_t)nb, sizeof *bs, cmp_i64);
  int64_t distinct = 0, unique = 0;
  for (int i = 0; i < ns; i++) distinct += i == 0 || sectors[i] != sectors[i - 1];
  for (int i = 0; i < nb; i++) unique += i == 0 || bs[i] != bs[i - 1];
  *bytes = unique;
  return distinct;
}

int gpu_model_wavefronts(const gpu_model_access *a, int n, int *ideal) {
  int size = n ? a[0].bytes : 4, per_group = size <= 4 ? GPU_MODEL_WARP : 128 / size;
  if (n > GPU_MODEL_WARP) n = GPU_MODEL_WARP;
  int groups = GPU_MODEL_WARP / per_group, waves = 0;
  *ideal = 0;
  for (int g = 0; g < groups; g++) {
    int64_t words[GPU_MODEL_WARP * 4];
    int nw = 0;
    for (int i = 0; i < n; i++)
      if (a[i].lane / per_group == g)
        for (int64_t w = a[i].addr / 4; w <= (a[i].addr + a[i].bytes - 1) / 4; w++) words[nw++] = w;
    if (nw == 0) continue;
    qsort(words, (size_t)nw, sizeof *words, cmp_i64);
    int in_bank[GPU_MODEL_BANKS] = {0}, most = 0;
    for (int i = 0; i < nw; i++) {
      if (i > 0 && words[i] == words[i - 1]) continue; /* a broadcast */
      int b = (int)(words[i] % GPU_MODEL_BANKS);
      if (++in_bank[b] > most) most = in_bank[b];
    }
    waves += most;
    ++*ideal;
  }
  return waves;
}

/* ---- Recording ----------------------------------------------------------------------- */

typedef struct record {
  int64_t step, addr; /* global: buffer id << 48 | offset; local: offset */
  int32_t site, lane, bytes;
} record;

/* Bytes [lo, hi) of the global address space above. */
typedef struct span {
  int64_t lo, hi;
} span;

static struct {
  record *r;
  size_t n, cap;
  const uint8_t *base[4]; /* destination, source, index, claims */
  size_t size[4];
  const uint8_t *tile;
  bool off;       /* no recording */
  bool spans;     /* keep every global access in `bytes` too */
  span *bytes[2]; /* loads, stores */
  size_t nb[2], cb[2];
} rec;

static void *grow(void *p, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return p;
  *cap = *cap ? 2 * *cap : 1 << 16;
  p = realloc(p, *cap * size);
  if (!p) {
    fprintf(stderr, "gpu model: out of memory\n");
    exit(1);
  }
  return p;
}

static void model_trace(int site, int64_t step, const void *addr, int bytes) {
  if (rec.off) return;
  const uint8_t *p = addr;
  int64_t a;
  if (site & NDX_TRACE_LOCAL) {
    a = p - rec.tile;
  } else {
    int k = 0;
    for (int b = 1; b < 4; b++)
      if (rec.base[b] && p >= rec.base[b] && p < rec.base[b] + rec.size[b]) k = b;
    a = ((int64_t)(k + 1) << 48) + (p - rec.base[k]);
  }
  rec.r = grow(rec.r, &rec.cap, rec.n, sizeof *rec.r);
  rec.r[rec.n++] = (record){model_turn * 1024 + step, a, site, (int32_t)model_lid, bytes};
}

static int cmp_record(const void *x, const void *y) {
  const record *a = x, *b = y;
  if (a->site != b->site) return a->site - b->site;
  if (a->step != b->step) return (a->step > b->step) - (a->step < b->step);
  int wa = a->lane / GPU_MODEL_WARP, wb = b->lane / GPU_MODEL_WARP;
  if (wa != wb) return wa - wb;
  return a->lane - b->lane;
}

/* What a case's sampled requests cost. */
typedef struct side {
  int64_t requests, bytes, sectors;
} side;

typedef struct tally {
  side load, store;
  int64_t waves, ideal;
  int64_t value_waves, value_ideal, value_requests; /* NDX_TRACE_BY_VALUE requests */
  int64_t runs, run_bytes; /* a work-item's global loads before its next store */
} tally;

/* Marks bytes [b0, b1) in `map`, a bitmap of the bytes from `lo`. */
static void mark(uint32_t *map, int64_t lo, int64_t b0, int64_t b1) {
  int64_t b = b0 - lo, e = b1 - lo;
  for (; b < e && (b & 31); b++) map[b >> 5] |= 1u << (b & 31);
  for (; b + 32 <= e; b += 32) map[b >> 5] = ~0u;
  for (; b < e; b++) map[b >> 5] |= 1u << (b & 31);
}

/* The sector use that operand k of pair q allows: its distinct bytes over
 * the bytes of the distinct sectors that hold them, over the whole layout
 * (each sector fetched once: no kernel does better). */
static double layout_bound(const ndx_operands *q, int k, int bits) {
  if (q->numel == 0) return 1;
  int64_t lo, hi;
  ndx_operands_span(q, k, &lo, &hi);
  int64_t b_lo = (lo * bits / 8) / GPU_MODEL_SECTOR * GPU_MODEL_SECTOR;
  int64_t b_hi = ((hi + 1) * bits + 7) / 8, eb = bits < 8 ? 1 : bits / 8;
  size_t words = (size_t)ndx_ceil_div(b_hi - b_lo, 32);
  uint32_t *map = calloc(words, sizeof *map);
  if (!map) {
    fprintf(stderr, "gpu model: out of memory for a bitmap of %zu words\n", words);
    exit(1);
  }
  /* runs along the axis of the smallest nonzero stride, the others by an
   * odometer */
  int r = q->rank, in = r - 1;
  for (int a = 0; a < r; a++) {
    int64_t sa = q->strides[k][a] < 0 ? -q->strides[k][a] : q->strides[k][a];
    int64_t si = q->strides[k][in] < 0 ? -q->strides[k][in] : q->strides[k][in];
    if (sa != 0 && (si == 0 || sa < si)) in = a;
  }
  int64_t idx[NDX_MAX_RANK] = {0}, n = q->shape[in], s = q->strides[k][in];
  for (int64_t run = 0; run < q->numel / n; run++) {
    int64_t p0 = q->offset[k];
    for (int a = 0; a < r; a++) p0 += a == in ? 0 : idx[a] * q->strides[k][a];
    if (s == 1 || s == -1 || n == 1) {
      int64_t first = s < 0 ? p0 - (n - 1) : p0;
      mark(map, b_lo, ndx_byte_of(first, bits), ndx_byte_of(first + n - 1, bits) + eb);
    } else {
      for (int64_t t = 0; t < n; t++) {
        int64_t b = ndx_byte_of(p0 + t * s, bits);
        mark(map, b_lo, b, b + eb);
      }
    }
    for (int a = r - 1; a >= 0; a--) {
      if (a == in) continue;
      if (++idx[a] < q->shape[a]) break;
      idx[a] = 0;
    }
  }
  int64_t bytes = 0, sectors = 0;
  for (size_t w = 0; w < words; w++) {
    bytes += __builtin_popcount(map[w]);
    sectors += map[w] != 0;
  }
  free(map);
  return (double)bytes / (double)(sectors * GPU_MODEL_SECTOR);
}

/* Adds the requests of rec's records (one work-group's, each work-item's
 * in the order it made them) to t. */
static void tally_group(tally *t) {
  for (size_t i = 0; i < rec.n && rec.spans; i++) {
    if (rec.r[i].site & NDX_TRACE_LOCAL) continue;
    int k = (rec.r[i].site & NDX_TRACE_STORE) != 0;
    rec.bytes[k] = grow(rec.bytes[k], &rec.cb[k], rec.nb[k], sizeof *rec.bytes[k]);
    rec.bytes[k][rec.nb[k]++] = (span){rec.r[i].addr, rec.r[i].addr + rec.r[i].bytes};
  }
  int64_t acc = 0;
  for (size_t i = 0; i <= rec.n; i++) {
    bool end = i == rec.n || (i > 0 && rec.r[i].lane != rec.r[i - 1].lane);
    bool load = i < rec.n && !(rec.r[i].site & (NDX_TRACE_LOCAL | NDX_TRACE_STORE));
    if ((end || !load) && acc > 0) t->runs++, t->run_bytes += acc, acc = 0;
    if (load) acc += rec.r[i].bytes;
  }
  qsort(rec.r, rec.n, sizeof *rec.r, cmp_record);
  gpu_model_access a[REQUEST_MAX];
  for (size_t i = 0; i < rec.n;) {
    size_t j = i;
    int n = 0;
    while (j < rec.n && rec.r[j].site == rec.r[i].site && rec.r[j].step == rec.r[i].step &&
           rec.r[j].lane / GPU_MODEL_WARP == rec.r[i].lane / GPU_MODEL_WARP) {
      if (n < REQUEST_MAX)
        a[n++] = (gpu_model_access){rec.r[j].lane % GPU_MODEL_WARP, rec.r[j].bytes, rec.r[j].addr};
      j++;
    }
    int site = rec.r[i].site;
    if ((site & NDX_TRACE_LOCAL) && (site & NDX_TRACE_BY_VALUE)) {
      int ideal;
      t->value_waves += gpu_model_wavefronts(a, n, &ideal);
      t->value_ideal += ideal;
      t->value_requests++;
    } else if (site & NDX_TRACE_LOCAL) {
      int ideal;
      t->waves += gpu_model_wavefronts(a, n, &ideal);
      t->ideal += ideal;
    } else {
      side *s = site & NDX_TRACE_STORE ? &t->store : &t->load;
      int64_t bytes;
      s->sectors += gpu_model_sectors(a, n, &bytes);
      s->bytes += bytes;
      s->requests++;
    }
    i = j;
  }
  rec.n = 0;
}

/* ---- Cases ------------------------------------------------------------------------------ */

enum { LOCAL = 256, MAX_GROUPS = 65536, SMS = 132, SM_THREADS = 2048, SM_BLOCKS = 32 };
enum { SM_SHARED = 228 * 1024, BLOCK_SHARED_RESERVED = 1024, SAMPLE = 8 };

/* A planned launch the model runs: plan p, descriptor d (its pack after
 * it) of `groups` work-groups, and a conversion's family and types. */
typedef struct model_launch {
  const ndx_copy_plan *p;
  const ndx_launch *d;
  int64_t groups;
  int family, st, dt; /* conversions only */
} model_launch;

/* Runs work-group `gid` of launch l through its bodies, on buffers dst and
 * src with `tile` for its work-group memory. */
typedef void group_runner(const model_launch *l, uint8_t *dst, const uint8_t *src, uint8_t *tile,
                          int64_t gid);

/* group_runner of a copy: the body of the plan's path. */
static void run_copy_group(const model_launch *l, uint8_t *dst, const uint8_t *src, uint8_t *tile,
                           int64_t gid) {
  const ndx_copy_plan *p = l->p;
  const ndx_launch *d = l->d;
  ndx_gpu_guard g = {0};
  model_gid = gid, model_groups = l->groups, model_local = LOCAL;
  for (model_lid = 0; model_lid < LOCAL; model_lid++) {
    switch (p->path) {
    case NDX_PATH_ROWS:
      if (d->stage_units)
        p->wide ? ndx_gpu_rows_staged_w64(d, tile, dst, src, p->bits, &g)
                : ndx_gpu_rows_staged_w32(d, tile, dst, src, p->bits, &g);
      else
        p->wide ? ndx_gpu_rows_w64(d, dst, src, p->bits, &g)
                : ndx_gpu_rows_w32(d, dst, src, p->bits, &g);
      break;
    case NDX_PATH_TRANSPOSE:
      p->wide ? ndx_gpu_transpose_w64(d, tile, dst, src, p->bits, &g)
              : ndx_gpu_transpose_w32(d, tile, dst, src, p->bits, &g);
      break;
    case NDX_PATH_BYTES:
      p->wide ? ndx_gpu_bytes_w64(d, dst, src, p->bits, &g)
              : ndx_gpu_bytes_w32(d, dst, src, p->bits, &g);
      break;
    default:
      p->wide ? ndx_gpu_gather_w64(d, dst, src, p->bits, &g)
              : ndx_gpu_gather_w32(d, dst, src, p->bits, &g);
    }
  }
}

/* The sampled work-groups of a launch of `groups`: the first, middle and
 * last SAMPLE, each once; returns how many. */
static int64_t sample_groups(int64_t groups, int64_t *picks) {
  int64_t npick = 0;
  for (int k = 0; k < 3; k++)
    for (int64_t g = 0; g < SAMPLE; g++) {
      int64_t gid = k == 0 ? g : k == 1 ? groups / 2 - SAMPLE / 2 + g : groups - SAMPLE + g;
      bool seen = gid < 0 || gid >= groups;
      for (int64_t i = 0; i < npick && !seen; i++) seen = picks[i] == gid;
      if (!seen) picks[npick++] = gid;
    }
  return npick;
}

static void *zeroed(size_t n) {
  void *m = NULL;
  if (posix_memalign(&m, 4096, n ? n : 1) != 0) return NULL;
  memset(m, 0, n ? n : 1);
  return m;
}

static size_t span_bytes(const ndx_layout *l, int bits) {
  int64_t lo, hi;
  ndx_span(l, &lo, &hi);
  return (size_t)((hi * bits + 7) / 8);
}

/* A case's figures from the tally of its sampled work-groups: sector use
 * against the bounds of its layouts, bank conflicts, and the bytes an SM
 * has in flight with as many of the launch's `groups` resident as threads,
 * blocks and `shared` bytes of work-group memory each allow. */
static void model_result(const tally *t, double load_bound, double store_bound, int64_t shared,
                         int64_t groups, gpu_model_result *res) {
  double load_use =
      t->load.sectors ? (double)t->load.bytes / (t->load.sectors * GPU_MODEL_SECTOR) : 1;
  double store_use =
      t->store.sectors ? (double)t->store.bytes / (t->store.sectors * GPU_MODEL_SECTOR) : 1;
  int64_t resident = SM_THREADS / LOCAL < SM_BLOCKS ? SM_THREADS / LOCAL : SM_BLOCKS;
  if (shared && SM_SHARED / (shared + BLOCK_SHARED_RESERVED) < resident)
    resident = SM_SHARED / (shared + BLOCK_SHARED_RESERVED);
  if (ndx_ceil_div(groups, SMS) < resident) resident = ndx_ceil_div(groups, SMS);
  res->load_use = load_use, res->load_bound = load_bound;
  res->store_use = store_use, res->store_bound = store_bound;
  res->waves = t->waves, res->ideal = t->ideal;
  res->in_flight =
      t->runs ? (double)resident * LOCAL * ((double)t->run_bytes / (double)t->runs) : 0;
  res->below = load_use < 0.9 * load_bound || store_use < 0.9 * store_bound;
  res->conflicts = t->waves > t->ideal;
}

/* The tally of the sampled work-groups of launch l of case c, each run by
 * `run` on zeroed buffers the size of the case's spans. */
static tally sample_launch(const gpu_case *c, const model_launch *l, group_runner *run) {
  rec.size[0] = span_bytes(&c->dst, c->bits);
  rec.size[1] = span_bytes(&c->src, gpu_case_src_bits(c));
  uint8_t *dst = zeroed(rec.size[0]), *src = zeroed(rec.size[1]);
  uint8_t *tile = zeroed(NDX_GPU_TILE_BYTES(128)); /* the most any body takes */
  if (!dst || !src || !tile) {
    fprintf(stderr, "gpu model: out of memory for %s\n", c->name);
    exit(1);
  }
  rec.base[0] = dst, rec.base[1] = src, rec.tile = tile;
  rec.base[2] = rec.base[3] = NULL;
  tally t;
  memset(&t, 0, sizeof t);
  int64_t picks[3 * SAMPLE], npick = sample_groups(l->groups, picks);
  for (int64_t i = 0; i < npick; i++) {
    run(l, dst, src, tile, picks[i]);
    tally_group(&t);
  }
  free(dst), free(src), free(tile);
  return t;
}

/* ---- Conversion cases ---------------------------------------------------------------- */

/* group_runner of a conversion (family l->family of ndx_convert_choose):
 * each work-item takes every launch-size-th unit as ndx_convert.cl's gpu
 * shape and ndx_convert.cu do. */
static void run_convert_group(const model_launch *l, uint8_t *dst, const uint8_t *src,
                              uint8_t *tile, int64_t gid) {
  const ndx_launch *d = l->d;
  int f = l->family, wide = l->p->wide, st = l->st, dt = l->dt;
  int64_t groups = l->groups;
  ndx_gpu_guard g = {0};
  const ndx_pack_head *p = ndx_launch_pack(d);
  model_gid = gid, model_groups = groups, model_local = LOCAL;
  for (model_lid = 0; model_lid < LOCAL; model_lid++) {
    if (f == NDX_CONVERT_TRANSPOSE) { /* the copy's tile, a work-group each */
      wide ? ndx_convert_transpose_w64(d, tile, dst, src, st, dt, (int)d->group, &g)
           : ndx_convert_transpose_w32(d, tile, dst, src, st, dt, (int)d->group, &g);
      continue;
    }
    if (f != NDX_CONVERT_BYTES) { /* a batch of units a turn, its own steps */
      wide
          ? ndx_convert_units_w64(d, dst, src, gid * LOCAL + model_lid, groups * LOCAL, st, dt, &g)
          : ndx_convert_units_w32(d, dst, src, gid * LOCAL + model_lid, groups * LOCAL, st, dt, &g);
      continue;
    }
    model_turn = 0;
    for (int64_t u = gid * LOCAL + model_lid; u < d->units; u += groups * LOCAL, model_turn++)
      wide ? ndx_convert_byte_w64(p, dst, src, d->first + u, st, dt, &g)
           : ndx_convert_byte_w32(p, dst, src, d->first + u, st, dt, &g);
  }
  model_turn = 0;
}

/* Models conversion case c (gpu_model_case): planned as ndx_cuda_convert
 * and ndx_cl_convert's gpu shape plan it (ndx_convert_plan_make, then
 * ndx_convert_choose and ndx_launch_convert), the bodies of
 * ndx_convert_items.h and ndx_convert_gpu.h; bounds at each side's own
 * element width. */
static void convert_case(const gpu_case *c, gpu_model_result *res) {
  int sb = gpu_case_src_bits(c), db = c->bits;
  const ndx_convert_sizes z = {.local = LOCAL, .max_groups = MAX_GROUPS, .align = 16};
  ndx_copy_plan p;
  if (ndx_convert_plan_make(&p, "gpu model", &c->dst, &c->src, db, &z, 0) != NDX_OK) {
    fprintf(stderr, "gpu model: %s: %s\n", c->name, ndx_last_error());
    exit(1);
  }
  res->path = "empty";
  if (p.path == NDX_PATH_EMPTY) return;
  uint64_t buf[(sizeof(ndx_launch) + NDX_PACK_MAX_BYTES(2, NDX_PACK_MAX_RANK)) / 8];
  ndx_launch *d = (ndx_launch *)buf;
  int64_t groups;
  ndx_convert_choice choice = ndx_convert_choose(&p, sb, &z);
  ndx_convert_family f = choice.family;
  ndx_launch_convert(&p, sb, &choice, &z, d, &groups);
  res->path = f == NDX_CONVERT_BYTES       ? "cv-bytes"
              : f == NDX_CONVERT_TRANSPOSE ? "cv-tile"
                                           : "cv-elems";
  if (ndx_copy_plan_pack(&p, buf + sizeof *d / 8, sizeof buf - sizeof *d) != NDX_OK) {
    fprintf(stderr, "gpu model: %s: %s\n", c->name, ndx_last_error());
    exit(1);
  }
  model_launch l = {
      .p = &p, .d = d, .groups = groups, .family = f, .st = (int)c->src_t, .dt = (int)c->dst_t};
  tally t = sample_launch(c, &l, run_convert_group);
  model_result(&t, layout_bound(&p.q, 1, sb), layout_bound(&p.q, 0, db),
               f == NDX_CONVERT_TRANSPOSE ? NDX_GPU_TILE_BYTES(db) : 0, groups, res);
}

void gpu_model_case(const gpu_case *c, gpu_model_result *res) {
  memset(res, 0, sizeof *res);
  res->load_use = res->load_bound = res->store_use = res->store_bound = 1;
  if (c->convert) {
    convert_case(c, res);
    return;
  }
  ndx_copy_plan p;
  if (ndx_copy_plan_make(&p, "gpu model", &c->dst, &c->src, c->bits, &ndx_gpu_caps, 0) != NDX_OK) {
    fprintf(stderr, "gpu model: %s: %s\n", c->name, ndx_last_error());
    exit(1);
  }
  res->path = ndx_copy_path_name(p.path);
  if (p.path == NDX_PATH_EMPTY || p.path == NDX_PATH_BUFFER) return;
  uint64_t buf[(sizeof(ndx_launch) + NDX_PACK_MAX_BYTES(2, NDX_PACK_MAX_RANK)) / 8];
  ndx_launch *d = (ndx_launch *)buf;
  int64_t groups;
  ndx_launch_gpu(&p, LOCAL, MAX_GROUPS, d, &groups);
  if (d->stage_units) res->path = "rows-wgm"; /* rows through work-group memory */
  if (ndx_copy_plan_pack(&p, buf + sizeof *d / 8, sizeof buf - sizeof *d) != NDX_OK) {
    fprintf(stderr, "gpu model: %s: %s\n", c->name, ndx_last_error());
    exit(1);
  }
  model_launch l = {.p = &p, .d = d, .groups = groups};
  tally t = sample_launch(c, &l, run_copy_group);
  model_result(&t, layout_bound(&p.q, 1, c->bits), layout_bound(&p.q, 0, c->bits),
               p.path == NDX_PATH_TRANSPOSE ? NDX_GPU_TILE_BYTES(c->bits)
               : d->stage_units             ? NDX_GPU_STAGE_BYTES
                                            : 0,
               groups, res);
}

/* ---- Gather and scatter cases --------------------------------------------------------- */

static int cmp_span(const void *a, const void *b) {
  const span *x = a, *y = b;
  return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The sector use of the spans v[0 .. n-1] at once: their distinct bytes
 * over the bytes of the distinct sectors that hold them (1 for none). */
static double spans_use(span *v, size_t n) {
  if (n == 0) return 1;
  qsort(v, n, sizeof *v, cmp_span);
  int64_t bytes = 0, sectors = 0, lo = v[0].lo, hi = v[0].hi, last = -1;
  for (size_t i = 1; i <= n; i++) {
    if (i < n && v[i].lo <= hi) {
      if (v[i].hi > hi) hi = v[i].hi;
      continue;
    }
    int64_t s0 = lo / GPU_MODEL_SECTOR, s1 = (hi - 1) / GPU_MODEL_SECTOR;
    bytes += hi - lo;
    sectors += s1 - s0 + 1 - (s0 == last);
    last = s1;
    if (i < n) lo = v[i].lo, hi = v[i].hi;
  }
  return (double)bytes / (double)(sectors * GPU_MODEL_SECTOR);
}

/* The buffers of an index case. */
typedef struct index_bufs {
  uint8_t *dst, *src, *index;
  uint32_t *claims, status[NDX_INDEX_STATUS_WORDS];
} index_bufs;

/* Runs work-group `gid` of a launch of `groups` of the check pass (`check`)
 * or the copy pass of plan p, descriptor d. */
static void run_index_group(const ndx_index_plan *p, const ndx_index_launch *d, bool check,
                            index_bufs *b, uint8_t *stage, int64_t gid, int64_t groups) {
  ndx_gpu_index_guard g = {0};
  uint32_t *claims = ndx_index_form_claims(p->form) ? b->claims : NULL;
  const uint8_t *moved = p->form == NDX_INDEX_CLAIMS ? (const uint8_t *)b->claims : b->index;
  const uint32_t *wins = p->form == NDX_INDEX_WINNERS ? b->claims : NULL;
  int ib = (int)d->index_bits;
  model_gid = gid, model_groups = groups, model_local = LOCAL;
  for (model_lid = 0; model_lid < LOCAL; model_lid++) {
    if (check)
      p->wide ? ndx_gpu_index_check_w64(d, b->index, claims, b->status, ib, &g)
              : ndx_gpu_index_check_w32(d, b->index, claims, b->status, ib, &g);
    else if (p->bits < 8)
      p->wide ? ndx_gpu_index_bytes_w64(d, b->dst, b->src, moved, p->bits, ib, &g)
              : ndx_gpu_index_bytes_w32(d, b->dst, b->src, moved, p->bits, ib, &g);
    else if (d->along) /* the picks' addresses are the values, not the stage's contents */
      p->wide ? ndx_gpu_index_along_w64(d, stage, b->dst, b->src, moved, p->bits, ib, &g)
              : ndx_gpu_index_along_w32(d, stage, b->dst, b->src, moved, p->bits, ib, &g);
    else if (d->rows)
      p->wide ? ndx_gpu_index_rows_w64(d, b->dst, b->src, moved, wins, p->bits, ib, &g)
              : ndx_gpu_index_rows_w32(d, b->dst, b->src, moved, wins, p->bits, ib, &g);
    else
      p->wide ? ndx_gpu_index_elems_w64(d, b->dst, b->src, moved, wins, p->bits, ib, &g)
              : ndx_gpu_index_elems_w32(d, b->dst, b->src, moved, wins, p->bits, ib, &g);
  }
}

/* A descriptor followed by a pack. */
typedef struct index_launch_buf {
  uint64_t w[(sizeof(ndx_index_launch) + NDX_PACK_MAX_BYTES(NDX_COPY_OPS, NDX_PACK_MAX_RANK)) / 8];
} index_launch_buf;

void gpu_model_index_case(const gpu_index_case *c, gpu_model_result *res) {
  memset(res, 0, sizeof *res);
  res->load_use = res->load_bound = res->store_use = res->store_bound = 1;
  ndx_index_plan p;
  if (ndx_index_plan_make(&p, "gpu model", c->scatter, &c->dst, &c->src, c->axis, &c->index, 32,
                          c->flags, c->bits) != NDX_OK) {
    fprintf(stderr, "gpu model: %s: %s\n", c->name, ndx_last_error());
    exit(1);
  }
  res->path = "empty";
  if (p.empty) return;
  index_launch_buf lb[2];
  ndx_index_launch *d[2] = {(ndx_index_launch *)lb[0].w, (ndx_index_launch *)lb[1].w};
  int64_t groups[2];
  size_t head = sizeof(ndx_index_launch), used;
  ndx_index_launch_check(&p, LOCAL, MAX_GROUPS, d[0], &groups[0]);
  ndx_index_launch_copy(&p, LOCAL, MAX_GROUPS, d[1], &groups[1]);
  if (ndx_index_plan_check_pack(&p, lb[0].w + head / 8, sizeof lb[0] - head, &used) != NDX_OK ||
      ndx_index_plan_copy_pack(&p, lb[1].w + head / 8, sizeof lb[1] - head, &used) != NDX_OK) {
    fprintf(stderr, "gpu model: %s: %s\n", c->name, ndx_last_error());
    exit(1);
  }
  res->path = p.bits < 8    ? "idx-bytes"
              : d[1]->rows  ? "idx-rows"
              : d[1]->along ? "idx-along"
                            : "idx-elems";
  size_t ni = span_bytes(&c->index, 32) / 4, nc = (size_t)(p.nclaims > 0 ? p.nclaims : 1);
  index_bufs b = {.index = (uint8_t *)gpu_index_values(c, ni, "gpu model"),
                  .claims = zeroed(nc * 4)};
  rec.size[0] = span_bytes(&c->dst, c->bits), rec.size[1] = span_bytes(&c->src, c->bits);
  rec.size[2] = ni * 4, rec.size[3] = nc * 4;
  b.dst = zeroed(rec.size[0]), b.src = zeroed(rec.size[1]);
  uint8_t *stage = zeroed(NDX_GPU_ALONG_BYTES);
  if (!b.dst || !b.src || !b.claims || !stage) {
    fprintf(stderr, "gpu model: out of memory for %s\n", c->name);
    exit(1);
  }
  rec.base[0] = b.dst, rec.base[1] = b.src, rec.base[2] = b.index;
  rec.base[3] = (const uint8_t *)b.claims, rec.tile = stage;
  rec.spans = true, rec.nb[0] = rec.nb[1] = 0;
  tally t[2]; /* check, copy */
  memset(t, 0, sizeof t);
  int64_t picks[3 * SAMPLE];
  for (int k = c->skip_check ? 1 : 0; k < 2; k++) {
    if (k == 0 && ndx_index_form_claims(p.form)) { /* every claim, for the copy pass */
      rec.off = true;
      for (int64_t gid = 0; gid < groups[0]; gid++)
        run_index_group(&p, d[0], true, &b, stage, gid, groups[0]);
      rec.off = false;
    }
    int64_t npick = sample_groups(groups[k], picks);
    for (int64_t i = 0; i < npick; i++) {
      run_index_group(&p, d[k], k == 0, &b, stage, picks[i], groups[k]);
      tally_group(&t[k]);
    }
  }
  rec.spans = false;
  free(b.dst), free(b.src), free(b.index), free(b.claims), free(stage);
  rec.base[2] = rec.base[3] = NULL, rec.tile = NULL;

  side load = t[1].load, store = t[1].store;
  load.bytes += t[0].load.bytes, load.sectors += t[0].load.sectors;
  store.bytes += t[0].store.bytes, store.sectors += t[0].store.sectors;
  res->load_use = load.sectors ? (double)load.bytes / (load.sectors * GPU_MODEL_SECTOR) : 1;
  res->store_use = store.sectors ? (double)store.bytes / (store.sectors * GPU_MODEL_SECTOR) : 1;
  res->load_bound = spans_use(rec.bytes[0], rec.nb[0]);
  res->store_bound = spans_use(rec.bytes[1], rec.nb[1]);
  int64_t resident = SM_THREADS / LOCAL < SM_BLOCKS ? SM_THREADS / LOCAL : SM_BLOCKS;
  res->shared = d[1]->along ? NDX_GPU_ALONG_BYTES : 0;
  if (res->shared && SM_SHARED / (res->shared + BLOCK_SHARED_RESERVED) < resident)
    resident = SM_SHARED / (res->shared + BLOCK_SHARED_RESERVED);
  if (ndx_ceil_div(groups[1], SMS) < resident) resident = ndx_ceil_div(groups[1], SMS);
  res->in_flight =
      t[1].runs ? (double)resident * LOCAL * ((double)t[1].run_bytes / (double)t[1].runs) : 0;
  res->below = res->load_use < 0.9 * res->load_bound || res->store_use < 0.9 * res->store_bound;
  /* the stage's stores are the layout's; the picks, by value, apart */
  res->waves = t[1].waves, res->ideal = t[1].ideal;
  res->value_waves = t[1].value_waves, res->value_ideal = t[1].value_ideal;
  res->value_requests = t[1].value_requests;
  res->conflicts = res->waves > res->ideal;
}

/* Prints (and writes to csv) one case's line; counts it. */
static void report(const char *name, const gpu_model_result *r, FILE *csv, int *below,
                   int *conflicts) {
  if (csv)
    fprintf(csv, "\"%s\",%s,%.4f,%.4f,%.4f,%.4f,%lld,%lld,%.1f,%d,%d,%lld,%lld\n", name, r->path,
            r->load_use, r->load_bound, r->store_use, r->store_bound, r->waves, r->ideal,
            r->in_flight / 1024, r->below, r->conflicts, r->value_waves, r->value_ideal);
  *below += r->below;
  *conflicts += r->conflicts;
  if (strcmp(r->path, "buffer") == 0 || strcmp(r->path, "empty") == 0) {
    printf("%-52s %-9s the device's copy engine, no kernel\n", name, r->path);
    return;
  }
  char by_value[64] = "";
  if (r->value_requests)
    snprintf(by_value, sizeof by_value, " (picks by value: %.2f wavefronts a request)",
             (double)r->value_waves / (double)r->value_requests);
  printf("%-52s %-9s %4.2f/%4.2f  %4.2f/%4.2f  %5.2f  %6.1f  %s%s\n", name, r->path, r->load_use,
         r->load_bound, r->store_use, r->store_bound,
         r->ideal ? (double)r->waves / (double)r->ideal : 1.0, r->in_flight / 1024,
         r->below && r->conflicts ? "BELOW BOUND, BANK CONFLICTS"
         : r->below               ? "BELOW BOUND"
         : r->conflicts           ? "BANK CONFLICTS"
                                  : "ok",
         by_value);
}

int gpu_model_run(const char *only, FILE *csv) {
  gpu_case cases[48];
  gpu_index_case icases[16];
  int n = gpu_cases(cases, 48), ni = gpu_index_cases(icases, 16), ran = 0, below = 0, conflicts = 0;
  if (csv)
    fprintf(csv, "case,path,load_use,load_bound,store_use,store_bound,wavefronts,ideal_wavefronts,"
                 "kib_in_flight_per_sm,below_bound,bank_conflicts,value_wavefronts,"
                 "value_ideal_wavefronts\n");
  printf("ndx-bench gpu model: the gpu-shaped kernels (kernels/ndx_copy_gpu.h, ndx_index_gpu.h, "
         "ndx_convert_items.h, ndx_convert_gpu.h) "
         "on an H100's memory system, %d-thread work-groups, %d sampled a case (a pass)\n",
         LOCAL, 3 * SAMPLE);
  printf("%-52s %-9s %-10s  %-10s  %5s  %6s\n", "case", "path", "load use", "store use", "smem",
         "KiB/SM");
  for (int i = 0; i < n; i++) {
    if (only && !strstr(cases[i].name, only)) continue;
    gpu_model_result r;
    gpu_model_case(&cases[i], &r);
    report(cases[i].name, &r, csv, &below, &conflicts);
    ran++;
  }
  for (int i = 0; i < ni; i++) {
    if (only && !strstr(icases[i].name, only)) continue;
    gpu_model_result r;
    gpu_model_index_case(&icases[i], &r);
    report(icases[i].name, &r, csv, &below, &conflicts);
    ran++;
  }
  free(rec.r);
  free(rec.bytes[0]), free(rec.bytes[1]);
  memset(&rec, 0, sizeof rec);
  printf("gpu model: %d cases, %d below bound, %d with bank conflicts\n", ran, below, conflicts);
  return below || conflicts ? 1 : 0;
}

int bench_gpu_model(const bench_opts *opts) {
  char path[4096];
  snprintf(path, sizeof path, "%s/gpu-model.csv", opts->out);
  FILE *csv = fopen(path, "w");
  if (!csv) fprintf(stderr, "ndx-bench: cannot write %s: the table only\n", path);
  gpu_model_run(opts->only, csv);
  if (csv) {
    fclose(csv);
    printf("wrote %s\n", path);
  }
  return 0;
}
