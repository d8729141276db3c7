/* binary_op.cu: binary_op (see binary_op.c) as a CUDA backend writes it.
 *
 *   out[n, i, j] = a[n, i] - b[j]      out: [2, 4, 6], every other column
 *                                            of a [2, 4, 12] buffer
 *                                       a:   [2, 4] with strides [12, 3]
 *                                       b:   [6], read backwards (a flip)
 *
 * The host side is the same as for OpenCL: broadcast, coalesce, ndx_pack.
 * The kernel includes ndx_device.h twice, once per word width, and takes
 * the pack by value (__grid_constant__: read in place from the parameter
 * space; three rank-32 layouts take 1592 bytes, under CUDA's 4 KiB of
 * kernel parameters), so a launch needs no copy of the pack to the device.
 *
 * Built with nvcc and linked with libndx (the host calls). Exits 0 when the
 * device result matches the host reference, 1 when it does not, 77 when
 * there is no CUDA device. */
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#include "ndx/ndx_layout.h"
#include "ndx/ndx_pack.h"

#define NDX_WIDE 0
#include "ndx/ndx_device.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx/ndx_device.h"
#undef NDX_WIDE

#define CHECK_NDX(call)                                                                            \
  do {                                                                                             \
    ndx_status s_ = (call);                                                                        \
    if (s_ != NDX_OK) {                                                                            \
      fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call, ndx_status_name(s_),       \
              ndx_last_error());                                                                   \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

#define CHECK_CUDA(call)                                                                           \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));       \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

/* The pack, passed by value. */
struct pack3 {
  uint64_t w[NDX_PACK_MAX_BYTES(3, NDX_PACK_MAX_RANK) / 8];
};

/* A grid-stride loop over the elements. Each thread unravels its C-order
 * index once (magic numbers, no division), then turns the multi-index into
 * a position in each operand. Instantiated once per word width of the pack
 * (Wide is a compile-time constant: the other branch is dropped). */
template <bool Wide>
__global__ void sub_f32(const __grid_constant__ pack3 u, float *out, const float *a,
                        const float *b) {
  const ndx_pack_head *p = (const ndx_pack_head *)u.w;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < p->numel;
       i += (int64_t)gridDim.x * blockDim.x) {
    if (Wide) {
      ndx_i64 index[NDX_PACK_MAX_RANK];
      ndx_unravel_w64(p, i, index);
      out[ndx_index_position_w64(p, 0, index)] =
          a[ndx_index_position_w64(p, 1, index)] - b[ndx_index_position_w64(p, 2, index)];
    } else {
      ndx_i32 index[NDX_PACK_MAX_RANK];
      ndx_unravel_w32(p, (ndx_i32)i, index);
      out[ndx_index_position_w32(p, 0, index)] =
          a[ndx_index_position_w32(p, 1, index)] - b[ndx_index_position_w32(p, 2, index)];
    }
  }
}

enum { NB = 2, NI = 4, NJ = 6, OUT_N = NB * NI * 12 };
#define SENTINEL -1234.0f

static void print_layout(const char *what, const ndx_layout *l) {
  char text[1024];
  ndx_format(text, sizeof text, l);
  printf("  %-28s %s\n", what, text);
}

int main() {
  int count = 0;
  cudaError_t ce = cudaGetDeviceCount(&count);
  if (ce != cudaSuccess || count == 0) {
    printf("skipped: no CUDA device (cudaGetDeviceCount: %s)\n",
           ce != cudaSuccess ? cudaGetErrorName(ce) : "0 devices");
    return 77;
  }

  static float out[OUT_N], a[NB * NI * 3], b[NJ];
  for (int k = 0; k < OUT_N; k++) out[k] = SENTINEL;
  for (int k = 0; k < NB * NI * 3; k++) a[k] = (float)(100 * k);
  for (int k = 0; k < NJ; k++) b[k] = (float)k;

  ndx_layout lo, la, lb;
  const int64_t buffer_shape[3] = {NB, NI, 12}, a_shape[2] = {NB, NI}, a_strides[2] = {12, 3};
  const int64_t b_shape[1] = {NJ};
  const ndx_range columns[3] = {{0, NB, 1}, {0, NI, 1}, {1, NJ, 2}};
  CHECK_NDX(ndx_contiguous(&lo, 3, buffer_shape));
  CHECK_NDX(ndx_slice(&lo, &lo, columns));
  CHECK_NDX(ndx_make(&la, 2, a_shape, a_strides, 0));
  CHECK_NDX(ndx_contiguous(&lb, 1, b_shape));
  CHECK_NDX(ndx_flip(&lb, &lb, 0));
  if (!ndx_is_distinct(&lo)) {
    fprintf(stderr, "out is not distinct: two threads would write one element\n");
    return 1;
  }
  CHECK_NDX(ndx_unsqueeze(&la, &la, 2));
  CHECK_NDX(ndx_broadcast(&la, &la, lo.rank, lo.shape));
  CHECK_NDX(ndx_broadcast(&lb, &lb, lo.rank, lo.shape));
  ndx_layout ops[3] = {lo, la, lb};
  CHECK_NDX(ndx_coalesce(3, ops, ops));
  print_layout("out, coalesced", &ops[0]);
  print_layout("a, coalesced", &ops[1]);
  print_layout("b, coalesced", &ops[2]);

  pack3 u;
  size_t used;
  CHECK_NDX(ndx_pack(u.w, sizeof u.w, &used, 3, ops, 32));
  const ndx_pack_head *head = (const ndx_pack_head *)u.w;
  printf("  pack: %zu bytes, rank %u, %s words\n", used, head->rank,
         head->wide ? "int64" : "int32");

  float *dout, *da, *db;
  CHECK_CUDA(cudaMalloc((void **)&dout, sizeof out));
  CHECK_CUDA(cudaMalloc((void **)&da, sizeof a));
  CHECK_CUDA(cudaMalloc((void **)&db, sizeof b));
  CHECK_CUDA(cudaMemcpy(dout, out, sizeof out, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
  int threads = 256, blocks = (int)((head->numel + threads - 1) / threads);
  if (head->wide)
    sub_f32<true><<<blocks, threads>>>(u, dout, da, db);
  else
    sub_f32<false><<<blocks, threads>>>(u, dout, da, db);
  CHECK_CUDA(cudaGetLastError());
  static float got[OUT_N];
  CHECK_CUDA(cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost));

  static float want[OUT_N];
  for (int k = 0; k < OUT_N; k++) want[k] = SENTINEL;
  for (int n = 0; n < NB; n++)
    for (int i = 0; i < NI; i++)
      for (int j = 0; j < NJ; j++)
        want[n * 48 + i * 12 + 1 + 2 * j] = a[n * 12 + i * 3] - b[NJ - 1 - j];
  int bad = 0;
  for (int k = 0; k < OUT_N; k++)
    if (got[k] != want[k] && bad++ < 5)
      fprintf(stderr, "mismatch at out buffer element %d: got %g, want %g\n", k, got[k], want[k]);

  cudaFree(dout);
  cudaFree(da);
  cudaFree(db);
  printf("%s: %d of %d buffer elements differ from the host reference\n", bad ? "FAILED" : "ok",
         bad, OUT_N);
  return bad ? 1 : 0;
}
