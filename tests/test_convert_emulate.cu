/* test_convert_emulate.cu: ndx's CUDA conversion kernels, run thread by
 * thread on the host.
 *
 * The kernels' bodies (kernels/ndx_cuda_convert.cuh, and the transpose's
 * phases in ndx_convert_gpu.h and ndx_copy_gpu.h, run a phase at a time by
 * gpu_phases.h) are __host__ __device__ functions of a thread's place in
 * the launch; here each conversion is launched as ndx_cuda_convert
 * launches it (ndx_cuda_convert_fill, src/device/cuda_convert_plan.c: the
 * shared planner's family, blocks and descriptor) and every thread of the
 * grid runs in turn, in reverse order for every other case (no byte may
 * depend on the order). Every third case runs on one block instead, so
 * that each thread loops over many units, as the threads of a launch
 * capped at NDX_CUDA_CONVERT_MAX_BLOCKS do.
 *
 * Every ordered pair of the 18 types (ndx_dtype.h) converts the named
 * layouts test_cl_convert.c runs (convert_cases.h: transposed sources,
 * flips on both sides with 4-bit elements starting inside a byte, a
 * broadcast source row into a step-2 destination, rank 0, rank 32, empty)
 * and random ones (views in any memory order with steps, flips and
 * broadcasts for the destination, any strides for the source, rank 0 to
 * 5), every other case in the 64-bit index form. Source elements are
 * random bits with the type's specials mixed in (NaN, infinities, both
 * zeros, the smallest and largest subnormals, the extremes). The whole
 * destination region is compared with the host reference (convert_ref.h)
 * on a pattern-filled buffer: untouched bytes and the other nibble of a
 * shared byte must stay, outside the transposes no destination byte may
 * be stored by two threads, and no access be off its own width (every
 * fifth case's pointers are aligned to their elements only; trace_access). Each buffer lies between
 * inaccessible pages, its layout's bytes against one of them (alternately the end and the start),
 * so that an access past a span's end or before its start stops the test.
 *
 * The HIP build compiles it again with hipcc's host pass
 * (test_hip_convert_emulate): the bodies as HIP builds them.
 *
 * Output: TAP (one test per source type, then coverage checks).
 * Usage: test_convert_emulate [--tap] [--quick] */
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ndx_gpu.h"

/* Every access of the bodies, on the host pass, to find a destination
 * byte that two threads store and an access off its own width
 * (trace_access); nothing on the device pass. */
#ifndef __CUDA_ARCH__
static void trace_access(int site, long long step, const void *addr, int bytes);
#define NDX_GPU_TRACE(site, step, addr, bytes)                                                     \
  trace_access((site), (long long)(step), (const void *)(addr), (int)(bytes))
#endif

#include "ndx_cuda_convert.cuh"
#undef NDX_WIDE
#define NDX_WIDE 0
#include "ndx_convert_gpu.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_convert_gpu.h"
#undef NDX_WIDE

extern "C" {
#include "convert_ref.h"
#include "device/cuda_convert_plan.h"
#include "host/copy_plan.h"
#include "host/launch.h"
}
#include "convert_cases.h"
#include "gpu_stores.h"
#include "gpu_phases.h"
#include "oracle.h"
#include "tap.h"

#define NTYPES 18

/* ---- Buffers between guard pages ------------------------------------------------ */

/* `data` bytes of read-write pages between two inaccessible pages; `base`
 * is the layout's element 0, on `align` bytes (1 to 16) and on no wider
 * power of two, placed so that the layout's bytes [lo, end) end within 32
 * bytes of the upper guard (at_end) or start within 32 bytes of the lower
 * one. */
struct guarded {
  uint8_t *map, *data, *base;
  size_t pages, size;
};

static size_t page_size() {
  return (size_t)sysconf(_SC_PAGESIZE);
}

static guarded guarded_make(int64_t lo, int64_t end, bool at_end, uintptr_t align) {
  size_t ps = page_size(), need = (size_t)(end - lo) + 32;
  guarded g;
  g.pages = (need + ps - 1) / ps + 2;
  void *m = mmap(NULL, g.pages * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  g.map = (uint8_t *)m;
  if (mprotect(g.map, ps, PROT_NONE) || mprotect(g.map + (g.pages - 1) * ps, ps, PROT_NONE)) {
    perror("mprotect");
    exit(1);
  }
  g.data = g.map + ps, g.size = (g.pages - 2) * ps;
  uintptr_t b = at_end ? ((uintptr_t)(g.data + g.size) - (uintptr_t)end) & ~(uintptr_t)15
                       : ((uintptr_t)g.data - (uintptr_t)lo + 15) & ~(uintptr_t)15;
  if (align < 16) b = at_end ? b - 16 + align : b + align;
  g.base = (uint8_t *)b;
  return g;
}

static void guarded_free(guarded *g) {
  munmap(g->map, g->pages * page_size());
}

/* The bytes [lo, end) a layout of `bits`-bit elements touches. */
static void byte_span(const ndx_layout *l, int bits, int64_t *lo, int64_t *end) {
  int64_t a, b;
  ndx_span(l, &a, &b);
  *lo = a * bits / 8, *end = (b * bits + 7) / 8;
}

/* ---- Values ------------------------------------------------------------------------ */

/* The exponent and mantissa bits of the float types, 0 for the others. */
static void float_fields(ndx_dtype t, int *e, int *m) {
  switch (t) {
  case NDX_F16:
    *e = 5, *m = 10;
    return;
  case NDX_BF16:
    *e = 8, *m = 7;
    return;
  case NDX_F32:
    *e = 8, *m = 23;
    return;
  case NDX_F64:
    *e = 11, *m = 52;
    return;
  case NDX_F8E4M3FN:
    *e = 4, *m = 3;
    return;
  case NDX_F8E5M2:
    *e = 5, *m = 2;
    return;
  case NDX_F4E2M1FN:
    *e = 2, *m = 1;
    return;
  default:
    *e = *m = 0;
  }
}

/* Bit patterns of type t worth converting: for floats both zeros, the
 * smallest and largest subnormals, the smallest normal, the largest
 * finite, the infinities and NaNs (or, in the fn formats, what those
 * patterns are there); for integers 0, 1, -1, the extremes. Returns how
 * many went into out. */
static int specials(ndx_dtype t, uint64_t *out) {
  int bits = ndx_dtype_bits(t), e, m, n = 0;
  uint64_t ones = bits == 64 ? ~0ull : (1ull << bits) - 1, sign = 1ull << (bits - 1);
  float_fields(t, &e, &m);
  out[n++] = 0, out[n++] = sign, out[n++] = ones, out[n++] = ones >> 1, out[n++] = 1;
  if (e > 0) {
    uint64_t inf = ((1ull << e) - 1) << m, man = (1ull << m) - 1;
    out[n++] = man;       /* largest subnormal */
    out[n++] = 1ull << m; /* smallest normal */
    out[n++] = inf - 1;   /* largest finite (IEEE) */
    out[n++] = inf, out[n++] = inf | sign;
    out[n++] = inf | 1ull << (m - 1); /* quiet NaN */
    out[n++] = inf | 1 | sign;        /* signalling NaN, negative */
    out[n++] = sign | man, out[n++] = sign | 1;
  } else {
    out[n++] = sign | 1, out[n++] = 2;
  }
  return n;
}

/* Random bits into every byte of g's data, then at each of s's positions,
 * one time in three, one of type t's specials. */
static void fill_source(guarded *g, const ndx_layout *s, ndx_dtype t, oracle_rng *r) {
  for (size_t i = 0; i < g->size; i++) g->data[i] = (uint8_t)oracle_next(r);
  uint64_t sp[24];
  int nsp = specials(t, sp), bits = ndx_dtype_bits(t);
  int64_t n = oracle_numel(s);
  for (int64_t k = 0; k < n; k++)
    if (oracle_between(r, 0, 2) == 0)
      ref_store(g->base, oracle_position_of(s, k), bits, sp[oracle_between(r, 0, nsp - 1)]);
}

static uint8_t pattern(size_t i) {
  return (uint8_t)(0x5a ^ (i * 29));
}

/* ---- The emulator ------------------------------------------------------------------ */

/* While a case runs (`on`): the thread that stored each byte of the
 * destination (`stores`, gpu_stores.h), the current `thread` (for the
 * transposes gpu_phases.h's), and the global accesses of 2 to 16 bytes
 * off their own width, which a GPU refuses (CUDA's misaligned address): a
 * wide access is only where the planner proved both pointers aligned for
 * it. */
static struct {
  bool on, transpose;
  gpu_stores stores;
  int64_t thread, misaligned;
  int first_misaligned_bytes;
} traced;

#ifndef __CUDA_ARCH__
static void trace_access(int site, long long step, const void *addr, int bytes) {
  (void)step;
  if (!traced.on || (site & NDX_TRACE_LOCAL)) return;
  if (bytes > 1 && (uintptr_t)addr % (uintptr_t)bytes != 0 && traced.misaligned++ == 0)
    traced.first_misaligned_bytes = bytes;
  if (site & NDX_TRACE_STORE)
    gpu_stores_note(&traced.stores, addr, bytes,
                    traced.transpose ? gpu_phases_item : traced.thread);
}
#endif

static long long runs[NDX_CONVERT_FAMILIES][2]; /* [family][wide] conversions emulated */
static long long looped;                        /* ... on one block, threads looping */
/* conversions grouped (ndx_launch.group): [0] the elements family's
 * groups from a 4-bit source, [1] the transpose's pairs of one, [2] the
 * elements family's groups from a source of 8 to 32 bits, [3] the
 * transpose's words of a 4-bit source, [4] the elements family's groups
 * into a 4-bit destination, [5] the transpose's source pairs into one;
 * but [3], from a source reversed along the
 * grouped axis, and with partial groups (rows whose first unit is short
 * and whose last is partial; an odd k extent), which words never take
 * (convert_words, src/host/launch.c) */
static long long grouped[6], grouped_reversed[6], grouped_partial[6];
static long long grouped_inside_byte; /* [4]'s, with rows starting inside a byte */

/* Runs every thread of launch c's grid (one block with `one_block`), in
 * reverse order with `reverse`. */
static void emulate(const ndx_cuda_convert_launch &c, uint8_t *dst, const uint8_t *src, int st,
                    int dt, bool one_block, bool reverse) {
  if (c.family == NDX_CONVERT_TRANSPOSE) {
    gpu_phases_convert_transpose(&c.args.d, NDX_CUDA_CONVERT_THREADS, one_block ? 1 : c.blocks, dst,
                                 src, st, dt, reverse);
    return;
  }
  int64_t n = (one_block ? 1 : c.blocks) * NDX_CUDA_CONVERT_THREADS;
  for (int64_t k = 0; k < n; k++) {
    int64_t tid = reverse ? n - 1 - k : k;
    traced.thread = tid;
    if (c.family == NDX_CONVERT_BYTES)
      ndx_convert_cuda::bytes_body(c.args, dst, src, st, dt, tid, n);
    else
      ndx_convert_cuda::elements_body(c.args, dst, src, st, dt, tid, n);
  }
}

/* Converts s (type st) into d (type dt) as ndx_cuda_convert would, with
 * the copy planner's `flags`; compares the destination's pages with the
 * reference. Returns true when they match, else writes why. */
static bool run_case(const ndx_layout *d, ndx_dtype dt, const ndx_layout *s, ndx_dtype st,
                     unsigned flags, uint64_t seed, char *why, size_t size) {
  int db = ndx_dtype_bits(dt), sb = ndx_dtype_bits(st);
  char dtext[400], stext[400];
  ndx_format(dtext, sizeof dtext, d);
  ndx_format(stext, sizeof stext, s);
  /* the buffers start on 16 bytes, but every fifth case's only on their
   * elements' bytes (a byte for 4-bit types), as a pointer into a tensor
   * may: planned for that alignment, as ndx_cuda_convert plans */
  bool narrow = (seed / 1000 + seed % 1000) % 5 == 4; /* the pair's and the case's */
  int64_t dlo, dend, slo, send;
  byte_span(d, db, &dlo, &dend);
  byte_span(s, sb, &slo, &send);
  guarded gd = guarded_make(dlo, dend, seed % 2 == 0, narrow ? (db + 7) / 8 : 16),
          gs = guarded_make(slo, send, seed % 2 == 1, narrow ? (sb + 7) / 8 : 16);
  uintptr_t both = (uintptr_t)gd.base | (uintptr_t)gs.base | 16;
  ndx_cuda_convert_launch c;
  ndx_status stat = ndx_cuda_convert_fill(&c, "test_convert_emulate", d, db, s, sb, flags,
                                          (int64_t)(both & -both));
  bool wrong = stat != NDX_OK;
  if (wrong)
    snprintf(why, size, "%s to %s, dst %s, src %s: plan: %s", ndx_dtype_name(st),
             ndx_dtype_name(dt), dtext, stext, ndx_last_error());
  /* a transpose, or below 8 bits bytes, or elements where rows' groups
   * hold whole bytes */
  int family = db < 8 && c.args.d.group <= 1 ? NDX_CONVERT_BYTES : NDX_CONVERT_ELEMENTS;
  if (c.family == NDX_CONVERT_TRANSPOSE) family = NDX_CONVERT_TRANSPOSE;
  if (!wrong && c.blocks > 0 && c.family != family) {
    snprintf(why, size, "%s to %s: family %d for %d-bit destinations", ndx_dtype_name(st),
             ndx_dtype_name(dt), c.family, db);
    wrong = true;
  }
  if (wrong) {
    guarded_free(&gd);
    guarded_free(&gs);
    return false;
  }
  oracle_rng r = {seed};
  fill_source(&gs, s, st, &r);
  for (size_t i = 0; i < gd.size; i++) gd.data[i] = pattern(i);
  std::vector<uint8_t> want(gd.data, gd.data + gd.size);
  uint8_t *want_base = want.data() + (gd.base - gd.data);
  int64_t n = oracle_numel(d);
  for (int64_t k = 0; k < n; k++)
    ref_convert_elem(want_base, oracle_position_of(d, k), dt, gs.base, oracle_position_of(s, k),
                     st);
  bool one_block = seed % 3 == 0 && c.blocks > 1;
  std::vector<int64_t> owner(gd.size);
  gpu_stores_start(&traced.stores, gd.data, gd.size, owner.data());
  traced.misaligned = 0, traced.transpose = c.family == NDX_CONVERT_TRANSPOSE;
  traced.on = true;
  if (c.blocks > 0) {
    emulate(c, gd.base, gs.base, (int)st, (int)dt, one_block, seed % 2 == 1);
    runs[c.family][((const ndx_pack_head *)c.args.pack)->wide != 0]++;
    looped += one_block;
    const ndx_launch *L = &c.args.d;
    if (L->group > 1) {
      int tile = c.family == NDX_CONVERT_TRANSPOSE;
      int kind = db < 8 ? 4 + tile : sb > 4 ? 2 : !tile ? 0 : L->group == 8 ? 3 : 1;
      const ndx_pack_head *ph = (const ndx_pack_head *)c.args.pack;
      int ax = (int)ph->rank - 1 - tile;
      int64_t st = ph->wide ? ndx_stride_w64(ph, 1, ax) : ndx_stride_w32(ph, 1, ax);
      int64_t ext = ph->wide ? ndx_extent_w64(ph, ax) : ndx_extent_w32(ph, ax);
      grouped[kind]++;
      int64_t off = ph->wide ? ndx_offset_w64(ph, 0) : ndx_offset_w32(ph, 0);
      grouped_inside_byte += kind == 4 && off % 2 != 0;
      grouped_reversed[kind] += st < 0;
      grouped_partial[kind] += tile ? (ext * L->join_k * L->join_k2) % 2 == 1
                                    : L->skew > 0 && (ext + L->skew) % L->group != 0;
    }
  }
  traced.on = false;
  bool ok = traced.stores.shared == 0 && traced.misaligned == 0;
  if (traced.misaligned)
    snprintf(why, size,
             "%s to %s, dst %s, src %s%s, pointers on %lld bytes: %lld accesses off their width, "
             "the first of %d bytes",
             ndx_dtype_name(st), ndx_dtype_name(dt), dtext, stext,
             flags & NDX_COPY_WIDE ? " (64-bit)" : "", (long long)(both & -both),
             (long long)traced.misaligned, traced.first_misaligned_bytes);
  else if (traced.stores.shared)
    snprintf(why, size,
             "%s to %s, dst %s, src %s%s: %lld bytes stored by two threads, the first byte %lld "
             "of the layout's base",
             ndx_dtype_name(st), ndx_dtype_name(dt), dtext, stext,
             flags & NDX_COPY_WIDE ? " (64-bit)" : "", (long long)traced.stores.shared,
             (long long)(gd.data + traced.stores.first - gd.base));
  for (size_t i = 0; i < gd.size && ok; i++)
    if (gd.data[i] != want[i]) {
      ok = false;
      snprintf(why, size,
               "%s to %s, dst %s, src %s%s: byte %lld of the layout's base is 0x%02x, want 0x%02x",
               ndx_dtype_name(st), ndx_dtype_name(dt), dtext, stext,
               flags & NDX_COPY_WIDE ? " (64-bit)" : "", (long long)(gd.data + i - gd.base),
               gd.data[i], want[i]);
    }
  guarded_free(&gd);
  guarded_free(&gs);
  return ok;
}

/* ---- Layouts ----------------------------------------------------------------------- */

/* A random pair: the destination a view without repeats, the source any
 * strides (broadcasts and flips among them). */
static void random_case(oracle_rng *r, ndx_layout *d, ndx_layout *s) {
  int64_t shape[NDX_MAX_RANK];
  int rank = oracle_random_shape(r, 5, 9, 8, shape);
  do *d = oracle_view_layout_of_shape(r, rank, shape);
  while (!ndx_is_distinct(d));
  *s = oracle_between(r, 0, 1) ? oracle_view_layout_of_shape(r, rank, shape)
                               : oracle_random_layout_of_shape(r, rank, shape, 5, 3);
}

int main(int argc, char **argv) {
  bool quick = false;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--quick")) quick = true;
  int nrandom = quick ? 8 : 48;
  for (int st = 0; st < NTYPES; st++) {
    std::string why;
    int cases = 0, failures = 0;
    oracle_rng r = {(uint64_t)(7919 * st + 1)};
    for (int dt = 0; dt < NTYPES; dt++) {
      if (dt == st) continue;
      for (int k = 0; k < CONVERT_NAMED + nrandom; k++) {
        ndx_layout d, s;
        if (k < CONVERT_NAMED)
          convert_named_case(k, &d, &s);
        else
          random_case(&r, &d, &s);
        uint64_t seed = (uint64_t)(st * NTYPES + dt) * 1000 + (uint64_t)k;
        unsigned flags = k % 2 ? (unsigned)NDX_COPY_WIDE : 0u;
        char one[2048];
        cases++;
        if (!run_case(&d, (ndx_dtype)dt, &s, (ndx_dtype)st, flags, seed, one, sizeof one) &&
            failures++ < 3)
          why += std::string(why.empty() ? "" : "\n# ") + one;
      }
    }
    char name[128];
    snprintf(name, sizeof name, "emulated conversions from %s into the 17 other types: %d cases",
             ndx_dtype_name((ndx_dtype)st), cases);
    tap(failures == 0, name, why.c_str());
  }
  /* every kernel ran in both index forms, and threads looped */
  const char *families[NDX_CONVERT_FAMILIES] = {"ndx_convert_elements", "", "ndx_convert_bytes",
                                                "ndx_convert_transpose"};
  for (int f = 0; f < NDX_CONVERT_FAMILIES; f++)
    for (int wide = 0; wide < 2; wide++) {
      if (f == NDX_CONVERT_TILE) continue; /* the cpu shape's */
      char name[128];
      snprintf(name, sizeof name, "%s ran with %d-bit pack words (%lld conversions)", families[f],
               wide ? 64 : 32, runs[f][wide]);
      tap(runs[f][wide] > 0, name, "never planned by any case");
    }
  const char *what[6] = {"ndx_convert_elements' groups of a 4-bit source's elements",
                         "ndx_convert_transpose's pairs of a 4-bit source's elements",
                         "ndx_convert_elements' groups of an 8 to 32-bit source's elements",
                         "ndx_convert_transpose's words of a 4-bit source's elements",
                         "ndx_convert_elements' groups into a 4-bit destination",
                         "ndx_convert_transpose's source pairs into a 4-bit destination"};
  for (int k = 0; k < 6; k++) {
    char name[256];
    snprintf(name, sizeof name,
             "%s ran (%lld conversions), from reversed sources (%lld), with partial groups (%lld)",
             what[k], grouped[k], grouped_reversed[k], grouped_partial[k]);
    tap(grouped[k] > 0 && (k == 3 || (grouped_reversed[k] > 0 && grouped_partial[k] > 0)), name,
        "a kind never planned by any case");
  }
  char inside[160];
  snprintf(inside, sizeof inside,
           "ndx_convert_elements' groups into 4-bit destination rows starting inside a byte ran "
           "(%lld conversions)",
           grouped_inside_byte);
  tap(grouped_inside_byte > 0, inside, "never planned by any case");
  char name[128];
  snprintf(name, sizeof name, "threads looped over the units of a capped grid (%lld conversions)",
           looped);
  tap(looped > 0, name, "no case ran on one block");
  printf("1..%d\n", tap_n);
  return tap_failed ? 1 : 0;
}
