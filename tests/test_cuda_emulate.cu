/* test_cuda_emulate.cu: ndx's CUDA kernels, run thread by thread on the host.
 *
 * The kernels' bodies (kernels/ndx_copy_cuda.cuh) are __host__ __device__
 * functions split at their barriers; here every step of every plan
 * (cuda_plan.c) runs with the launch geometry the GPU would get, each
 * block's threads going through one phase before any starts the next (what
 * __syncthreads guarantees). The result is compared byte for byte with the
 * reference copy on a pattern-filled destination, for the cases of
 * tests/cuda_cases.h, every width, the 32- and 64-bit index forms, each
 * case again into every other destination element (the odometer's
 * kernels), the candidate kernels the selection table does not name yet
 * (planned by name, ndx_cuda_plan_fill_kernel) and pointers off 4- and
 * 16-byte alignment. This proves
 * the index math and the ownership of every destination byte with no GPU;
 * tests/test_cuda.c runs the same cases on one. The HIP build compiles it
 * again with hipcc's host pass (test_hip_emulate): the bodies as HIP builds
 * them.
 *
 * Gathers and scatters (kernels/ndx_index_cuda.cuh) likewise: each call of
 * tests/cuda_index_cases.h is planned as ndx_cuda_gather / ndx_cuda_scatter
 * plan it (cuda_index_plan.c), its check kernel and then its copy kernel
 * run thread by thread on host buffers (threads in reverse order for every
 * other case: a claims scatter must not depend on the order), and the whole
 * destination buffer is compared with index_oracle.h's reference, the fault
 * read from the status words as ndx_cuda_check reads it. Every position a
 * pass reaches, for every element and whatever the index holds, is checked
 * against the spans of its operands before the pass runs.
 *
 * Output: TAP (one test per width and plan flags, then coverage checks; one
 * test per width for gathers and scatters, then their coverage checks).
 * Usage: test_cuda_emulate [--tap] [--quick] */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define NDX_CUDA_EMULATE 1
#include "device/cuda_plan.h"
#include "ndx_gpu.h"
#include "ndx_copy_cuda.cuh"
#include "ndx_index_cuda.cuh"

#include "cuda_cases.h"
#include "cuda_index_cases.h"
#include "tap.h"

using namespace ndx_cuda;
using ndx_cuda_index::check_body;
using ndx_cuda_index::copy_body;
using ndx_cuda_index::pick_copy;

/* ---- The emulator ------------------------------------------------------------ */

/* The bytes each operand's layout spans (0: destination, 1: source), and
 * the kernel accesses seen outside them or off their alignment. */
const unsigned char *ndx_emu_lo[2], *ndx_emu_hi[2];
long long ndx_emu_faults;

static long long kernel_runs[NDX_CUDA_KERNELS][3]; /* [kernel][variant] steps emulated */
static long long segmented_rows;                   /* warp-rows steps with rows cut in segments */
static long long without_words[129]; /* [bits] word transposes run by their plan without words */

struct emulator {
  const ndx_cuda_step *s;
  uint8_t *dst;
  const uint8_t *src;
  int64_t blocks;
  uint32_t grid[3];

  template <int W, int ES, int VB, int MODE> void flat() {
    int64_t n = blocks * NDX_CUDA_THREADS;
    for (int64_t tid = 0; tid < n; tid++) flat_body<W, ES, VB, MODE>(s->args, dst, src, tid, n);
  }
  template <int W, int ES, bool SIMPLE> void tile() {
    std::vector<tile_smem<ES>> sm(1);
    memset((void *)sm.data(), 0xa5, sizeof sm[0]);
    for (int64_t b = 0; b < blocks; b++)
      for (int64_t t = b; t < s->args.count; t += blocks) {
        for (int tid = 0; tid < NDX_CUDA_THREADS; tid++)
          tile_bases<W, ES, SIMPLE>(s->args, sm[0], t, tid);
        for (int tid = 0; tid < NDX_CUDA_THREADS; tid++)
          tile_load<W, ES, SIMPLE>(s->args, sm[0], src, tid);
        for (int tid = 0; tid < NDX_CUDA_THREADS; tid++)
          tile_store<W, ES, SIMPLE>(s->args, sm[0], dst, tid);
      }
  }
  template <int W, int B> void words() {
    std::vector<words_smem<B>> sm(1);
    memset((void *)sm.data(), 0x5a, sizeof sm[0]);
    for (int64_t b = 0; b < blocks; b++)
      for (int64_t t = b; t < s->args.count; t += blocks) {
        for (int tid = 0; tid < NDX_CUDA_THREADS; tid++)
          words_load<W, B>(s->args, sm[0], src, t, tid);
        for (int tid = 0; tid < NDX_CUDA_THREADS; tid++)
          words_store<W, B>(s->args, sm[0], dst, t, tid);
      }
  }
  template <int W, int B> void bytes() {
    int64_t n = blocks * NDX_CUDA_THREADS;
    for (int64_t tid = 0; tid < n; tid++) bytes_body<W, B>(s->args, dst, src, tid, n);
  }
  /* Each block's tiles in the kernel's order. Between barrier n and n+1 a
   * thread may store tile n after others have loaded tile n+1: the most
   * the single barrier allows, so all threads load tile n+1 first. */
  template <int W, int ES> void tile32() {
    const ndx_cuda_args &a = s->args;
    std::vector<t32_smem<ES>> sm(1);
    memset((void *)sm.data(), 0xa5, sizeof sm[0]);
    uint32_t blk[3];
    for (blk[2] = 0; blk[2] < grid[2]; blk[2]++)
      for (blk[1] = 0; blk[1] < grid[1]; blk[1]++)
        for (blk[0] = 0; blk[0] < grid[0]; blk[0]++) {
          std::vector<t32_walk> walk;
          t32_walk w;
          for (bool more = t32_start(a, blk, &w); more; more = t32_next(a, blk, grid, &w))
            walk.push_back(w);
          for (size_t n = 0; n <= walk.size(); n++) {
            if (n < walk.size()) {
              t32_tile<W> t = t32_place<W>(a, walk[n].b, walk[n].ik, walk[n].ij);
              for (int tid = 0; tid < NDX_CUDA_THREADS; tid++)
                t32_load<W, ES>(a, t, sm[0].data[walk[n].buf], src, tid);
            }
            if (n > 0) {
              const t32_walk &v = walk[n - 1];
              t32_tile<W> t = t32_place<W>(a, v.b, v.ik, v.ij);
              for (int tid = 0; tid < NDX_CUDA_THREADS; tid++)
                t32_store<W, ES>(a, t, sm[0].data[v.buf], dst, tid);
            }
          }
        }
  }
  template <int W, int ES> void warp_rows() {
    int64_t n = blocks * NDX_CUDA_THREADS;
    for (int64_t tid = 0; tid < n; tid++) warp_rows_body<W, ES>(s->args, dst, src, tid, n);
  }
};

/* The variant of a step, for the coverage checks: transpose's tiles
 * (0 general, 1 simple, 2 grouped axes), transpose-32x8's (0 plain, 1
 * grouped), warp-rows' source (0 unit stride, 1 broadcast, 2 other). */
static int variant_of(const ndx_cuda_step *s) {
  const ndx_cuda_args &a = s->args;
  if (s->kernel == NDX_CUDA_TRANSPOSE) return a.gk || a.gj ? 2 : a.pow2 ? 1 : 0;
  if (s->kernel == NDX_CUDA_TRANSPOSE_32X8) return a.gk || a.gj ? 1 : 0;
  if (s->kernel == NDX_CUDA_WARP_ROWS) {
    const ndx_pack_head *p = (const ndx_pack_head *)a.pack;
    int64_t ss =
        s->wide ? ndx_stride_w64(p, 1, (int)p->rank - 1) : ndx_stride_w32(p, 1, (int)p->rank - 1);
    return ss == 1 ? 0 : ss == 0 ? 1 : 2;
  }
  return 0;
}

/* Runs the plan's steps for these pointers; false (with a message) when a
 * step has no kernel. `small`: the candidate kernels with a grid of at most 2
 * blocks along each axis (their loops over the rest must cover it). */
static bool emulate(const ndx_cuda_plan *plan, uint8_t *dst, const uint8_t *src, bool small,
                    char *why, size_t size) {
  ndx_cuda_step steps[NDX_CUDA_MAX_STEPS];
  int n = ndx_cuda_plan_steps(plan, (uintptr_t)dst, (uintptr_t)src, steps);
  without_words[plan->bits] += plan->nalt > 0 && ((uintptr_t)dst % 4 || (uintptr_t)src % 4);
  for (int k = 0; k < n; k++) {
    const ndx_cuda_step *s = &steps[k];
    kernel_runs[s->kernel][variant_of(s)]++;
    segmented_rows += s->kernel == NDX_CUDA_WARP_ROWS && s->args.nj > 1;
    if (s->kernel == NDX_CUDA_BUFFER) {
      memcpy(dst + s->dst_off, src + s->src_off, s->bytes);
      continue;
    }
    emulator e = {s, dst, src, 0, {1, 1, 1}};
    e.blocks = ndx_cuda_grid(s, e.grid);
    if (small && s->kernel >= NDX_CUDA_TRANSPOSE_32X8) {
      for (int d = 0; d < 3; d++) e.grid[d] = e.grid[d] < 2 ? e.grid[d] : 2;
      e.blocks = (int64_t)e.grid[0] * e.grid[1] * e.grid[2];
    }
    if (!pick(e, s)) {
      snprintf(why, size, "step %d (%s, vel %d) has no kernel", k, ndx_cuda_step_name(s),
               s->args.vel);
      return false;
    }
  }
  return true;
}

/* ---- One case ------------------------------------------------------------------ */

/* Copies case `c` with `flags` and candidate `kernel` (-1: the selection
 * table's kernels), the destination and source buffers starting `dshift`
 * and `sshift` bytes past a 64-byte boundary; compares with the reference.
 * With `odometer`, a copy of more than one element must take the gather or
 * bytes path. Returns true when all holds, else writes why. */
static bool run_case(const cuda_case *c, unsigned flags, int kernel, bool odometer, int dshift,
                     int sshift, uint64_t seed, char *why, size_t size) {
  ndx_cuda_plan plan;
  ndx_status st = kernel < 0
                      ? ndx_cuda_plan_fill(&plan, &c->dst, &c->src, c->bits, flags)
                      : ndx_cuda_plan_fill_kernel(&plan, &c->dst, &c->src, c->bits, flags, kernel);
  if (st != NDX_OK) {
    snprintf(why, size, "plan: %s: %s", ndx_status_name(st), ndx_last_error());
    return false;
  }
  const char *path = ndx_cuda_plan_path(&plan);
  if (odometer && ndx_numel(&c->dst) > 1 && strcmp(path, "gather") && strcmp(path, "bytes")) {
    char desc[1500];
    snprintf(why, size, "path %s, not the odometer's: %s", path,
             cuda_describe(desc, sizeof desc, c));
    return false;
  }
  size_t nd = cuda_case_bytes(&c->dst, c->bits), ns = cuda_case_bytes(&c->src, c->bits);
  std::vector<uint8_t> dbuf(nd + 128), sbuf(ns + 128), ref(nd);
  uint8_t *d = dbuf.data() + (64 - (uintptr_t)dbuf.data() % 64) + dshift;
  uint8_t *s = sbuf.data() + (64 - (uintptr_t)sbuf.data() % 64) + sshift;
  cuda_fill(d, nd, seed);
  cuda_fill(s, ns, seed + 1);
  memcpy(ref.data(), d, nd);
  oracle_copy(ref.data(), &c->dst, s, &c->src, c->bits, NULL);
  int64_t lo, hi;
  ndx_span(&c->dst, &lo, &hi);
  ndx_emu_lo[0] = d + lo * c->bits / 8, ndx_emu_hi[0] = d + (hi * c->bits + 7) / 8;
  ndx_span(&c->src, &lo, &hi);
  ndx_emu_lo[1] = s + lo * c->bits / 8, ndx_emu_hi[1] = s + (hi * c->bits + 7) / 8;
  ndx_emu_faults = 0;
  if (!emulate(&plan, d, s, seed % 2 == 1, why, size)) return false;
  if (ndx_emu_faults) {
    char desc[1500];
    snprintf(why, size, "%lld accesses off alignment or outside the span (path %s): %s",
             ndx_emu_faults, ndx_cuda_plan_path(&plan), cuda_describe(desc, sizeof desc, c));
    return false;
  }
  int64_t at = cuda_first_difference(d, ref.data(), nd);
  if (at >= 0) {
    char desc[1500];
    snprintf(why, size, "byte %lld is 0x%02x, want 0x%02x (path %s, first step %s): %s",
             (long long)at, d[at], ref[at], ndx_cuda_plan_path(&plan),
             plan.nsteps ? ndx_cuda_step_name(&plan.step[0]) : "none",
             cuda_describe(desc, sizeof desc, c));
    return false;
  }
  return true;
}

/* ---- Gathers and scatters ---------------------------------------------------- */

/* Calls emulated by form (index_plan.h), index form and copy kind
 * (elements, rows, bytes below 8 bits, along the axis); faults reported. */
static long long index_runs[4][2][4], index_faults;

/* Position spans [lo, hi) in elements, and the positions seen outside. */
struct spans {
  int64_t lo[3], hi[3]; /* dst, src, index (or the claims table) */
  long long outside;
  bool in(int k, int64_t pos) {
    bool ok = pos >= lo[k] && pos < hi[k];
    outside += !ok;
    return ok;
  }
};

/* Every position of the check pass: the index's, and for a valid value the
 * claim slot. */
template <int W>
static void check_positions(const ndx_cuda_index_call &c, const uint8_t *index, spans &sp,
                            int64_t nclaims) {
  const ndx_cuda_index_args &a = c.check;
  const ndx_pack_head *p = (const ndx_pack_head *)a.pack;
  typedef typename ix<W>::word word;
  for (int64_t i = 0; i < p->numel; i++) {
    int64_t pi = ix<W>::position(p, 0, (word)i);
    if (!sp.in(2, pi)) continue;
    int64_t k = ndx_index_value(ndx_load_index(index, pi, a.index_bits), a.d, a.wrap);
    int64_t slot = ix<W>::position(p, 1, (word)i) + k * a.claim_stride;
    if (k >= 0 && nclaims > 0 && (slot < 0 || slot >= nclaims)) sp.outside++;
  }
}

/* Every position of the copy pass: the value's, and for a valid value the
 * destination and source elements it moves and (winners: nclaims > 0) the
 * claim slot it reads. */
template <int W>
static void copy_positions(const ndx_cuda_index_call &c, const uint8_t *index, spans &sp,
                           int64_t nclaims) {
  const ndx_cuda_index_args &a = c.copy;
  const ndx_pack_head *p = (const ndx_pack_head *)a.pack;
  typedef typename ix<W>::word word;
  for (int64_t i = 0; i < p->numel; i++) {
    int64_t pi = ix<W>::position(p, 2, (word)i);
    if (!sp.in(2, pi)) continue;
    int64_t k = ndx_index_value(ndx_load_index(index, pi, a.index_bits) - a.bias, a.d, a.wrap);
    if (k < 0) continue;
    sp.in(0, ix<W>::position(p, 0, (word)i) + k * a.step0);
    sp.in(1, ix<W>::position(p, 1, (word)i) + k * a.step1);
    int64_t slot = nclaims > 0 ? ix<W>::position(p, 3, (word)i) + k * a.claim_stride : 0;
    if (slot < 0 || slot >= (nclaims > 0 ? nclaims : 1)) sp.outside++;
  }
}

/* Runs the copy kernel pick_copy names, thread by thread. */
struct index_emulator {
  const ndx_cuda_index_args *a;
  uint8_t *dst;
  const uint8_t *src, *index;
  const uint32_t *claims, *status; /* claims: the winners form's table, else NULL */
  int64_t blocks;
  bool reverse;
  template <int W, int B, int ROWS> void copy() {
    int64_t n = blocks * NDX_CUDA_THREADS;
    for (int64_t t = 0; t < n; t++)
      copy_body<W, B, ROWS>(*a, dst, src, index, claims, status, reverse ? n - 1 - t : t, n);
  }
};

template <int W>
static void emulate_check(const ndx_cuda_index_call &c, const uint8_t *index, uint32_t *claims,
                          uint32_t *status, bool reverse) {
  int64_t n = c.check_blocks * NDX_CUDA_THREADS;
  for (int64_t t = 0; t < n; t++)
    check_body<W>(c.check, index, claims, status, reverse ? n - 1 - t : t, n);
}

/* The along kernel (k_index_along: a gather's pack rows' source segments
 * through shared memory, kernels/ndx_index_gpu.h) block by block, each
 * block's threads through the load phase of a pass before any starts its
 * picks, as __syncthreads orders them, the shared memory refilled with a
 * pattern each pass so that a pick of an element not loaded shows. */
static void emulate_along(const ndx_cuda_index_call &c, uint8_t *dst, const uint8_t *src,
                          const uint8_t *index, const uint32_t *status) {
  if (status[0]) return;
  const ndx_index_launch *d = &c.along_args.d;
  int bits = c.plan.bits, ib = (int)d->index_bits;
  bool wide = ndx_index_launch_pack(d)->wide != 0;
  std::vector<uint8_t> stage(NDX_GPU_ALONG_BYTES); /* exactly: the sanitizers see past it */
  uint8_t *st = stage.data();
  ndx_gpu_index_guard g = {0};
  int64_t blocks = c.copy_blocks, n = NDX_CUDA_THREADS;
  for (int64_t b = 0; b < blocks; b++)
    for (int64_t pass = b, step = 0; pass < d->passes; pass += blocks, step++) {
      memset(st, 0xa5, NDX_GPU_ALONG_BYTES);
      for (int64_t t = 0; t < n; t++)
        wide ? ndx_gpu_index_along_load_w64(d, st, src, bits, t, n, pass, step, &g)
             : ndx_gpu_index_along_load_w32(d, st, src, bits, t, n, pass, step, &g);
      for (int64_t t = 0; t < n; t++)
        wide ? ndx_gpu_index_along_pick_w64(d, st, dst, index, bits, ib, t, n, pass, step, &g)
             : ndx_gpu_index_along_pick_w32(d, st, dst, index, bits, ib, t, n, pass, step, &g);
    }
}

/* The element spans of a layout. */
static void span_of(const ndx_layout *l, int64_t *lo, int64_t *hi) {
  ndx_span(l, lo, hi);
}

/* Emulates case `k`: plan, check kernel, copy kernel, verdict. Returns true
 * when it matches the reference (or is no case: *ran false), else writes
 * why. */
static bool run_index_case(int k, bool *ran, int *bits, char *why, size_t size) {
  cuda_index_case c;
  *ran = cuda_index_case_make(k, &c);
  if (!*ran) return true;
  *bits = c.bits;
  char desc[1400];
  ndx_cuda_index_call call;
  ndx_status st = ndx_cuda_index_fill(
      &call, c.scatter ? NDX_GPU_STR(ndx_cuda_scatter) : NDX_GPU_STR(ndx_cuda_gather), c.scatter,
      &c.dst, &c.src, c.axis, &c.index, c.index_bits, c.flags, c.bits, c.internal);
  if (st != NDX_OK) {
    snprintf(why, size, "plan: %s: %s: %s", ndx_status_name(st), ndx_last_error(),
             cuda_index_describe(desc, sizeof desc, &c));
    cuda_index_case_free(&c);
    return false;
  }
  cuda_index_bufs b;
  cuda_index_prepare(&c, (uint64_t)k, &b);
  std::vector<uint8_t> got(b.dst, b.dst + b.nd);
  std::vector<uint32_t> temp(call.temp_bytes / 4, 0u);
  uint32_t *status = temp.data(), *claims = call.plan.nclaims > 0 ? status + 8 : nullptr;
  bool winners = call.plan.form == NDX_INDEX_WINNERS;
  const uint8_t *moved = claims && !winners ? (const uint8_t *)claims : c.ix;
  bool reverse = k % 2 == 1, wide = call.plan.wide;
  spans sp = {};
  span_of(&c.dst, &sp.lo[0], &sp.hi[0]);
  span_of(&c.src, &sp.lo[1], &sp.hi[1]);
  span_of(&c.index, &sp.lo[2], &sp.hi[2]);
  bool ok = true;
  if (!call.plan.empty) {
    if (wide)
      check_positions<1>(call, c.ix, sp, call.plan.nclaims);
    else
      check_positions<0>(call, c.ix, sp, call.plan.nclaims);
    if (call.check_blocks > 0 && wide) emulate_check<1>(call, c.ix, claims, status, reverse);
    if (call.check_blocks > 0 && !wide) emulate_check<0>(call, c.ix, claims, status, reverse);
    if (claims && !winners) sp.lo[2] = 0, sp.hi[2] = call.plan.nclaims;
    int64_t winner_claims = winners ? call.plan.nclaims : 0;
    if (wide)
      copy_positions<1>(call, moved, sp, winner_claims);
    else
      copy_positions<0>(call, moved, sp, winner_claims);
    index_emulator e = {&call.copy, got.data(),       b.src,  moved, winners ? claims : nullptr,
                        status,     call.copy_blocks, reverse};
    if (call.along) {
      if (!ndx_index_plan_along(&call.plan) || call.copy.rows) ok = false;
      emulate_along(call, got.data(), b.src, moved, status);
    } else {
      ok = call.copy_blocks == 0 || pick_copy(e, call.copy);
    }
    if (!ok)
      snprintf(why, size, "no copy kernel for %d bits (rows %d): %s", c.bits, call.copy.rows,
               cuda_index_describe(desc, sizeof desc, &c));
    int kind = c.bits < 8 ? 2 : call.copy.rows ? 1 : call.along ? 3 : 0;
    index_runs[call.plan.form][wide][kind]++;
  }
  if (ok && sp.outside > 0) {
    ok = false;
    snprintf(why, size, "%lld positions outside their operand's span: %s", sp.outside,
             cuda_index_describe(desc, sizeof desc, &c));
  }
  if (ok) {
    int64_t order = (int64_t)((uint64_t)status[1] | (uint64_t)status[2] << 32);
    int64_t value = (int64_t)((uint64_t)status[3] | (uint64_t)status[4] << 32);
    ndx_status check = status[0] ? ndx_index_fault(&call.plan.site, order, value) : NDX_OK;
    index_faults += status[0] != 0;
    ok =
        cuda_index_verdict(&c, &b, got.data(), check, status[0] ? ndx_last_error() : "", why, size);
  }
  cuda_index_release(&b);
  cuda_index_case_free(&c);
  return ok;
}

/* Case `c` with its destination's strides and offset doubled: the same
 * elements at every other position, which a copy reaches by the odometer
 * (the gather and gather-flip kernels, or bytes below 8 bits). */
static void into_every_other(cuda_case *c) {
  int64_t strides[NDX_MAX_RANK];
  for (int a = 0; a < c->dst.rank; a++) strides[a] = 2 * c->dst.strides[a];
  if (ndx_make(&c->dst, c->dst.rank, c->dst.shape, strides, 2 * c->dst.offset) != NDX_OK) abort();
}

int main(int argc, char **argv) {
  bool quick = false;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--quick")) quick = true;
  /* how each run plans: flags, the candidate kernel (-1: none), each case
   * into every other destination element */
  const struct {
    unsigned flags;
    int kernel;
    bool spread;
    const char *name;
  } runs[] = {{0, -1, false, ""},
              {NDX_CUDA_PLAN_WIDE, -1, false, ", 64-bit"},
              {0, -1, true, ", every other element"},
              {NDX_CUDA_PLAN_WIDE, -1, true, ", every other element, 64-bit"},
              {0, NDX_CUDA_TRANSPOSE_32X8, false, ", transpose-32x8"},
              {NDX_CUDA_PLAN_WIDE, NDX_CUDA_TRANSPOSE_32X8, false, ", transpose-32x8, 64-bit"},
              {0, NDX_CUDA_WARP_ROWS, false, ", warp-rows"},
              {NDX_CUDA_PLAN_WIDE, NDX_CUDA_WARP_ROWS, false, ", warp-rows, 64-bit"},
              {0, NDX_CUDA_WARP_ROWS, true, ", warp-rows, every other element"}};
  const int nruns = (int)(sizeof runs / sizeof runs[0]);
  int nrandom = quick ? 40 : 150;
  for (int w = 0; w < CUDA_NWIDTHS; w++) {
    int bits = cuda_widths[w], es = bits >= 8 ? bits / 8 : 1;
    for (int f = 0; f < nruns; f++) {
      char name[128];
      std::string why;
      int cases = 0, failures = 0;
      oracle_rng r = {(uint64_t)(1000 * bits + f)};
      /* named cases with aligned pointers, then one pointer one element
       * off: off a 32-bit word below 32 bits, off a 16-byte vector above
       * (the launch refuses pointers off the element's own alignment) */
      int off = es < 16 ? es : 0;
      int shifts[3][2] = {{0, 0}, {off, 0}, {0, off}};
      for (int k = 0; k < CUDA_NAMED; k++) {
        cuda_case c;
        if (!cuda_named_case(k, bits, &c)) continue;
        if (runs[f].spread) into_every_other(&c);
        for (int sh = 0; sh < 3; sh++) {
          if (sh > 0 && (runs[f].flags || runs[f].spread || (quick && runs[f].kernel >= 0))) break;
          char one[4096];
          cases++;
          if (!run_case(&c, runs[f].flags, runs[f].kernel, runs[f].spread, shifts[sh][0],
                        shifts[sh][1], (uint64_t)k, one, sizeof one)) {
            if (failures++ < 3) why += std::string(why.empty() ? "" : "\n# ") + one;
          }
        }
      }
      for (int k = 0; k < nrandom; k++) {
        cuda_case c;
        cuda_random_case(&r, k, bits, &c);
        if (runs[f].spread) into_every_other(&c);
        char one[4096];
        cases++;
        if (!run_case(&c, runs[f].flags, runs[f].kernel, runs[f].spread, 0, 0, (uint64_t)k, one,
                      sizeof one)) {
          if (failures++ < 3) why += std::string(why.empty() ? "" : "\n# ") + one;
        }
      }
      snprintf(name, sizeof name, "emulated copies, %d bits%s: %d cases", bits, runs[f].name,
               cases);
      tap(failures == 0, name, why.c_str());
    }
  }
  /* every kernel (and variant) ran */
  struct {
    int kernel, mode;
    const char *name;
  } kinds[] = {{NDX_CUDA_BUFFER, 0, "buffer"},
               {NDX_CUDA_ROWS, 0, "rows"},
               {NDX_CUDA_GATHER_FLIP, 0, "gather-flip"},
               {NDX_CUDA_GATHER, 0, "gather"},
               {NDX_CUDA_TRANSPOSE, 0, "transpose (general tiles)"},
               {NDX_CUDA_TRANSPOSE, 1, "transpose (simple tiles)"},
               {NDX_CUDA_TRANSPOSE, 2, "transpose (grouped axes)"},
               {NDX_CUDA_TRANSPOSE_WORDS, 0, "transpose-words"},
               {NDX_CUDA_BYTES, 0, "bytes"},
               {NDX_CUDA_TRANSPOSE_32X8, 0, "transpose-32x8"},
               {NDX_CUDA_TRANSPOSE_32X8, 1, "transpose-32x8 (grouped axes)"},
               {NDX_CUDA_WARP_ROWS, 0, "warp-rows (unit source stride)"},
               {NDX_CUDA_WARP_ROWS, 1, "warp-rows (broadcast source)"},
               {NDX_CUDA_WARP_ROWS, 2, "warp-rows (strided source)"}};
  for (auto &k : kinds) {
    char name[96];
    snprintf(name, sizeof name, "the %s kernel ran (%lld steps)", k.name,
             kernel_runs[k.kernel][k.mode]);
    tap(kernel_runs[k.kernel][k.mode] > 0, name, "never planned by any case");
  }
  {
    char name[96];
    snprintf(name, sizeof name, "warp-rows cut rows into segments (%lld steps)", segmented_rows);
    tap(segmented_rows > 0, name, "no case had a row longer than a segment");
  }
  /* pointers off a word run a word transpose by elements: tiles, or bytes
   * below 8 bits */
  for (int w = 0; w < CUDA_NWIDTHS && cuda_widths[w] <= 16; w++) {
    char name[96];
    snprintf(name, sizeof name, "%d-bit word transposes ran without words (%lld plans)",
             cuda_widths[w], without_words[cuda_widths[w]]);
    tap(without_words[cuda_widths[w]] > 0, name, "no pointer off a word met a word transpose");
  }
  /* gathers and scatters, by width */
  std::string iwhy[CUDA_NWIDTHS];
  int icases[CUDA_NWIDTHS] = {0}, ifailures[CUDA_NWIDTHS] = {0};
  for (int k = 0; k < CUDA_INDEX_CASES; k++) {
    char one[4096];
    bool ran;
    int bits = 0;
    bool ok = run_index_case(k, &ran, &bits, one, sizeof one);
    if (!ran) continue;
    int w = 0;
    while (cuda_widths[w] != bits) w++;
    icases[w]++;
    if (!ok && ifailures[w]++ < 3) iwhy[w] += std::string(iwhy[w].empty() ? "" : "\n# ") + one;
  }
  for (int w = 0; w < CUDA_NWIDTHS; w++) {
    char name[128];
    snprintf(name, sizeof name, "emulated gathers and scatters, %d bits: %d cases, %d wrong",
             cuda_widths[w], icases[w], ifailures[w]);
    tap(ifailures[w] == 0, name, iwhy[w].c_str());
  }
  const char *forms[4] = {"gather", "unique scatter", "claims scatter", "winners scatter"};
  const char *copies[4] = {"elements", "rows", "bytes", "picks along the axis"};
  for (int f = 0; f < 4; f++)
    for (int wide = 0; wide < 2; wide++)
      for (int kind = 0; kind < 4; kind++) {
        if (kind == 3 && f != NDX_INDEX_GATHER) continue; /* gathers only */
        /* below 8 bits every scatter is a claims scatter, and only there */
        bool sub_byte_form = f == NDX_INDEX_CLAIMS;
        if (f != NDX_INDEX_GATHER && (kind == 2) != sub_byte_form) continue;
        /* (not required of the random cases) */
        if (f == NDX_INDEX_UNIQUE_SCATTER && kind != 0) continue;
        char name[128];
        snprintf(name, sizeof name, "the %s copy by %s ran with %d-bit pack words (%lld calls)",
                 forms[f], copies[kind], wide ? 64 : 32, index_runs[f][wide][kind]);
        tap(index_runs[f][wide][kind] > 0, name, "never planned by any case");
      }
  {
    char name[96];
    snprintf(name, sizeof name, "bad indices were caught on the device (%lld calls)", index_faults);
    tap(index_faults > 0, name, "no case had a fault");
  }
  printf("1..%d\n", tap_n);
  return tap_failed ? 1 : 0;
}
