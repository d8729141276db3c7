/* test_cuda_header.cu: a user's own CUDA code on ndx_device.h.
 *
 * What a backend author writes: include the device header (both index
 * forms), call its functions from a __host__ __device__ function of their
 * own and from a kernel of their own, with a pack made by ndx_pack on the
 * host. Compiling this file under nvcc is the first check. On the host side
 * (no GPU needed) the same function turns every index of random layouts
 * into positions, compared with the definition (oracle.h), and the magic
 * division and sub-byte loads and stores are checked against plain C. With
 * a GPU, the kernel computes the positions too and must agree. The HIP
 * build compiles it again with hipcc (test_hip_header).
 *
 * Output: TAP. Usage: test_cuda_header [--tap] */
#include <cstdio>
#include <cstring>
#include <vector>

#include "ndx_gpu.h" /* cuda_runtime.h or, built by hipcc, HIP's runtime and names */

#define NDX_WIDE 0
#include "ndx/ndx_device.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx/ndx_device.h"
#undef NDX_WIDE

#include "../tests/oracle.h"

/* A user's pack holder: passed by value, read in place. */
struct user_pack {
  uint64_t w[NDX_PACK_MAX_BYTES(2, NDX_PACK_MAX_RANK) / 8];
};

/* The user's own function, on both sides: operand k's position of C-order
 * index i, in the pack's form. */
__host__ __device__ static int64_t user_position(const ndx_pack_head *p, int k, int64_t i) {
  return p->wide ? ndx_position_w64(p, k, i) : (int64_t)ndx_position_w32(p, k, (ndx_i32)i);
}

__global__ void user_positions(const __grid_constant__ user_pack u, int64_t *out) {
  const ndx_pack_head *p = (const ndx_pack_head *)u.w;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < p->numel;
       i += (int64_t)gridDim.x * blockDim.x) {
    out[2 * i] = user_position(p, 0, i);
    out[2 * i + 1] = user_position(p, 1, i);
  }
}

static int tap_n, tap_failed;

static void tap(bool ok, const char *name, const char *detail) {
  printf("%s %d - %s\n", ok ? "ok" : "not ok", ++tap_n, name);
  if (!ok) {
    printf("# %s\n", detail);
    tap_failed++;
  }
}

static void skip(const char *name, const char *why) {
  printf("ok %d - %s # SKIP %s\n", ++tap_n, name, why);
}

/* Random pairs of one shape, packed with ndx_pack (axis order kept, so the
 * pack's C order is the layouts'). */
static bool random_pair(oracle_rng *r, ndx_layout *l) {
  int64_t shape[NDX_MAX_RANK];
  int rank = oracle_random_shape(r, 6, 6, 10, shape);
  l[0] = oracle_view_layout_of_shape(r, rank, shape);
  l[1] = oracle_random_layout_of_shape(r, rank, shape, 20, 5);
  return true;
}

int main() {
  char detail[1024] = "";
  /* 1. positions on the host, through the user's __host__ __device__ function */
  {
    oracle_rng r = {42};
    bool ok = true;
    int checked = 0;
    for (int c = 0; c < 400 && ok; c++) {
      ndx_layout l[2];
      random_pair(&r, l);
      for (int wide = 0; wide < 2 && ok; wide++) {
        user_pack u;
        size_t used;
        ndx_status s = ndx_pack(u.w, sizeof u.w, &used, 2, l, 8);
        if (s == NDX_OK && wide) s = ndx_pack_widen(u.w, sizeof u.w, &used);
        if (s != NDX_OK) {
          snprintf(detail, sizeof detail, "ndx_pack: %s", ndx_last_error());
          ok = false;
          break;
        }
        const ndx_pack_head *p = (const ndx_pack_head *)u.w;
        int64_t n = oracle_numel(&l[0]), index[NDX_MAX_RANK];
        for (int64_t i = 0; i < n && ok; i++) {
          oracle_unravel(l[0].rank, l[0].shape, i, index);
          for (int k = 0; k < 2 && ok; k++) {
            int64_t want = oracle_position(&l[k], index), got = user_position(p, k, i);
            checked++;
            if (got != want) {
              char d[600];
              snprintf(detail, sizeof detail,
                       "case %d (%s form), operand %d, index %lld: %lld, want %lld (%s)", c,
                       wide ? "64-bit" : "32-bit", k, (long long)i, (long long)got, (long long)want,
                       oracle_describe(d, sizeof d, &l[k]));
              ok = false;
            }
          }
        }
      }
    }
    char name[128];
    snprintf(name, sizeof name, "host side: positions of 400 random pairs, both forms (%d checked)",
             checked);
    tap(ok, name, detail);
  }
  /* 2. magic division against '/' */
  {
    oracle_rng r = {7};
    bool ok = true;
    for (int c = 0; c < 20000 && ok; c++) {
      int64_t d = oracle_between(&r, 1, c % 2 ? 1000 : INT32_MAX);
      uint64_t m;
      int l;
      if (!ndx_pack_magic(d, 32, &m, &l)) {
        ok = false;
        snprintf(detail, sizeof detail, "ndx_pack_magic(%lld, 32) refused", (long long)d);
        break;
      }
      int32_t n = (int32_t)oracle_between(&r, 0, INT32_MAX - 1);
      if (ndx_div_w32(n, (ndx_u32)m, l) != n / d) {
        ok = false;
        snprintf(detail, sizeof detail, "%d / %lld", n, (long long)d);
      }
      int64_t d64 = oracle_between(&r, 1, NDX_MAX_NUMEL),
              n64 = oracle_between(&r, 0, NDX_MAX_NUMEL);
      if (ok && (!ndx_pack_magic(d64, 64, &m, &l) || ndx_div_w64(n64, m, l) != n64 / d64)) {
        ok = false;
        snprintf(detail, sizeof detail, "%lld / %lld", (long long)n64, (long long)d64);
      }
    }
    tap(ok, "host side: magic division, 32- and 64-bit, against '/'", detail);
  }
  /* 3. sub-byte loads and stores keep the other bits */
  {
    bool ok = true;
    for (int bits = 1; bits <= 4 && ok; bits *= 2) {
      uint8_t buf[16], want[16];
      for (int pos = 0; pos < 128 / bits && ok; pos++) {
        for (int i = 0; i < 16; i++) buf[i] = want[i] = (uint8_t)(i * 29 + 3);
        uint32_t v = (uint32_t)(pos * 5 + 1) & ((1u << bits) - 1u);
        ndx_store_bits(buf, pos, bits, v);
        int bit = pos * bits;
        want[bit / 8] =
            (uint8_t)((want[bit / 8] & ~(((1u << bits) - 1u) << (bit % 8))) | (v << (bit % 8)));
        if (memcmp(buf, want, 16) != 0 || ndx_load_bits(buf, pos, bits) != v) {
          ok = false;
          snprintf(detail, sizeof detail, "%d bits, element %d", bits, pos);
        }
      }
    }
    tap(ok, "host side: sub-byte loads and stores", detail);
  }
  /* 4. the user's kernel, on a GPU */
  {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    const char *name = "device side: the user's kernel computes the same positions";
    if (e != cudaSuccess || count == 0) {
      char why[256];
      snprintf(why, sizeof why,
               "no " NDX_GPU_NAME
               " device: " NDX_GPU_STR(cudaGetDeviceCount) " returned %s (%s), %d devices",
               cudaGetErrorName(e), cudaGetErrorString(e), count);
      skip(name, why);
    } else {
      oracle_rng r = {43};
      bool ok = true;
      int64_t *dev = NULL;
      e = cudaMalloc((void **)&dev, sizeof(int64_t) * 2 * 100000);
      for (int c = 0; c < 100 && ok && e == cudaSuccess; c++) {
        ndx_layout l[2];
        random_pair(&r, l);
        user_pack u;
        size_t used;
        if (ndx_pack(u.w, sizeof u.w, &used, 2, l, 8) != NDX_OK) continue;
        if (c % 2) ndx_pack_widen(u.w, sizeof u.w, &used);
        const ndx_pack_head *p = (const ndx_pack_head *)u.w;
        if (p->numel == 0 || p->numel > 100000) continue;
        user_positions<<<64, 128>>>(u, dev);
        std::vector<int64_t> got((size_t)(2 * p->numel));
        e = cudaMemcpy(got.data(), dev, got.size() * sizeof(int64_t), cudaMemcpyDeviceToHost);
        for (int64_t i = 0; i < p->numel && ok && e == cudaSuccess; i++)
          for (int k = 0; k < 2; k++)
            if (got[(size_t)(2 * i + k)] != user_position(p, k, i)) {
              ok = false;
              snprintf(detail, sizeof detail, "case %d, operand %d, index %lld: %lld, want %lld", c,
                       k, (long long)i, (long long)got[(size_t)(2 * i + k)],
                       (long long)user_position(p, k, i));
            }
      }
      if (e != cudaSuccess) {
        ok = false;
        snprintf(detail, sizeof detail, NDX_GPU_NAME ": %s (%s)", cudaGetErrorName(e),
                 cudaGetErrorString(e));
      }
      (void)cudaFree(dev); /* hipFree is [[nodiscard]] */
      tap(ok, name, detail);
    }
  }
  printf("1..%d\n", tap_n);
  return tap_failed ? 1 : 0;
}
