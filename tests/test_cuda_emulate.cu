/* test_cuda_emulate.cu: ndx's CUDA kernels, run thread by thread on the host.
 *
 * The kernels' bodies (kernels/ndx_copy_cuda.cuh) are __host__ __device__
 * functions split at their barriers; here every step of every plan
 * (cuda_plan.c) runs with the launch geometry the GPU would get, each
 * block's threads going through one phase before any starts the next (what
 * __syncthreads guarantees). The result is compared byte for byte with the
 * reference copy on a pattern-filled destination, for the cases of
 * tests/cuda_cases.h, every width, the 32- and 64-bit index forms, the
 * gather-only plans and pointers off 4- and 16-byte alignment. This proves
 * the index math and the ownership of every destination byte with no GPU;
 * tests/test_cuda.c runs the same cases on one. The HIP build compiles it
 * again with hipcc's host pass (test_hip_emulate): the bodies as HIP builds
 * them.
 *
 * Output: TAP (one test per width and plan flags, then coverage checks).
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

#include "cuda_cases.h"

using namespace ndx_cuda;

/* ---- The emulator ------------------------------------------------------------ */

/* The bytes each operand's layout spans (0: destination, 1: source), and
 * the kernel accesses seen outside them or off their alignment. */
const unsigned char *ndx_emu_lo[2], *ndx_emu_hi[2];
long long ndx_emu_faults;

static long long kernel_runs[NDX_CUDA_KERNELS][3]; /* [kernel][variant] steps emulated */

struct emulator {
  const ndx_cuda_step *s;
  uint8_t *dst;
  const uint8_t *src;
  int64_t blocks;

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
};

/* Runs the plan's steps for these pointers; false (with a message) when a
 * step has no kernel. */
static bool emulate(const ndx_cuda_plan *plan, uint8_t *dst, const uint8_t *src, char *why,
                    size_t size) {
  ndx_cuda_step steps[NDX_CUDA_MAX_STEPS];
  int n = ndx_cuda_plan_steps(plan, (uintptr_t)dst, (uintptr_t)src, steps);
  for (int k = 0; k < n; k++) {
    const ndx_cuda_step *s = &steps[k];
    int variant = 0;
    if (s->kernel == NDX_CUDA_TRANSPOSE)
      variant = s->args.gk || s->args.gj ? 2 : s->args.pow2 ? 1 : 0;
    kernel_runs[s->kernel][variant]++;
    if (s->kernel == NDX_CUDA_BUFFER) {
      memcpy(dst + s->dst_off, src + s->src_off, s->bytes);
      continue;
    }
    emulator e = {s, dst, src, ndx_cuda_blocks(s)};
    if (!pick(e, s)) {
      snprintf(why, size, "step %d (%s, vel %d) has no kernel", k, ndx_cuda_step_name(s),
               s->args.vel);
      return false;
    }
  }
  return true;
}

/* ---- One case ------------------------------------------------------------------ */

/* Copies case `c` with `flags`, the destination and source buffers starting
 * `dshift` and `sshift` bytes past a 64-byte boundary; compares with the
 * reference. Returns true when they match, else writes why. */
static bool run_case(const cuda_case *c, unsigned flags, int dshift, int sshift, uint64_t seed,
                     char *why, size_t size) {
  ndx_cuda_plan plan;
  ndx_status st = ndx_cuda_plan_fill(&plan, &c->dst, &c->src, c->bits, flags);
  if (st != NDX_OK) {
    snprintf(why, size, "plan: %s: %s", ndx_status_name(st), ndx_last_error());
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
  if (!emulate(&plan, d, s, why, size)) return false;
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

/* ---- TAP --------------------------------------------------------------------- */

static int tap_n = 0, tap_failed = 0;

static void tap(bool ok, const char *name, const char *why) {
  printf("%s %d - %s\n", ok ? "ok" : "not ok", ++tap_n, name);
  if (!ok) {
    printf("# %s\n", why);
    tap_failed++;
  }
  fflush(stdout);
}

int main(int argc, char **argv) {
  bool quick = false;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--quick")) quick = true;
  const unsigned flag_sets[] = {0, NDX_CUDA_PLAN_WIDE, NDX_CUDA_PLAN_GATHER,
                                NDX_CUDA_PLAN_GATHER | NDX_CUDA_PLAN_WIDE, NDX_CUDA_PLAN_NO_WORDS};
  const char *flag_names[] = {"", ", 64-bit", ", gather only", ", gather only, 64-bit",
                              ", no words"};
  int nrandom = quick ? 40 : 150;
  for (int w = 0; w < CUDA_NWIDTHS; w++) {
    int bits = cuda_widths[w], es = bits >= 8 ? bits / 8 : 1;
    for (int f = 0; f < 5; f++) {
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
        for (int sh = 0; sh < 3; sh++) {
          if (sh > 0 && (quick || f != 0)) break;
          char one[4096];
          cases++;
          if (!run_case(&c, flag_sets[f], shifts[sh][0], shifts[sh][1], (uint64_t)k, one,
                        sizeof one)) {
            if (failures++ < 3) why += std::string(why.empty() ? "" : "\n# ") + one;
          }
        }
      }
      for (int k = 0; k < nrandom; k++) {
        cuda_case c;
        cuda_random_case(&r, k, bits, &c);
        char one[4096];
        cases++;
        if (!run_case(&c, flag_sets[f], 0, 0, (uint64_t)k, one, sizeof one)) {
          if (failures++ < 3) why += std::string(why.empty() ? "" : "\n# ") + one;
        }
      }
      snprintf(name, sizeof name, "emulated copies, %d bits%s: %d cases", bits, flag_names[f],
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
               {NDX_CUDA_BYTES, 0, "bytes"}};
  for (auto &k : kinds) {
    char name[96];
    snprintf(name, sizeof name, "the %s kernel ran (%lld steps)", k.name,
             kernel_runs[k.kernel][k.mode]);
    tap(kernel_runs[k.kernel][k.mode] > 0, name, "never planned by any case");
  }
  printf("1..%d\n", tap_n);
  return tap_failed ? 1 : 0;
}
