/* int4_repack: transposes a packed int4 weight matrix with one copy.
 *
 * Quantized weights are often stored as 4-bit integers, two to a byte, and
 * a kernel wants them in the other order: here W is [K, N] row-major (the
 * layout a checkpoint stores) and the matmul kernel wants W^T, [N, K]
 * row-major, so that each output column reads K consecutive nibbles.
 *
 * ndx counts positions in elements of the given width and numbers bits
 * least significant first (ndx_layout.h): int4 element p is the low nibble
 * of byte p/2 when p is even and the high nibble when p is odd. A transpose
 * is then an ordinary layout move (ndx_transpose of the source's layout) and
 * one ndx_cl_copy with bits = 4; ndx picks a kernel that assembles whole
 * destination bytes, so no two work-items ever write one byte.
 *
 * Checked against a host loop over nibbles. Exits 0 when the device result
 * matches, 1 when it does not, 77 without an OpenCL device. */
#include <stdint.h>

#include "example_cl.h"

enum { K = 96, N = 40 };

/* Nibble p of a packed int4 buffer, and its write. */
static unsigned nibble(const uint8_t *buf, int64_t p) {
  return (buf[p / 2] >> (4 * (p % 2))) & 0xfu;
}
static void set_nibble(uint8_t *buf, int64_t p, unsigned v) {
  unsigned shift = 4 * (unsigned)(p % 2);
  buf[p / 2] = (uint8_t)((buf[p / 2] & ~(0xfu << shift)) | ((v & 0xfu) << shift));
}

int main(void) {
  /* W[k][n]: some int4 values (as unsigned nibbles). */
  static uint8_t w[K * N / 2], want[K * N / 2], got[K * N / 2];
  for (int k = 0; k < K; k++)
    for (int n = 0; n < N; n++) set_nibble(w, (int64_t)k * N + n, (unsigned)(k * 7 + n * 3) & 15);

  /* The host reference: W^T[n][k] = W[k][n]. */
  for (int n = 0; n < N; n++)
    for (int k = 0; k < K; k++) set_nibble(want, (int64_t)n * K + k, nibble(w, (int64_t)k * N + n));

  /* The source read as W^T: W's layout with its axes swapped (a view,
   * strides [1, N]); the destination is C-order [N, K]. */
  ndx_layout src, dst;
  CHECK_NDX(ndx_contiguous(&src, 2, (int64_t[]){K, N}));
  CHECK_NDX(ndx_transpose(&src, &src, 0, 1));
  CHECK_NDX(ndx_contiguous(&dst, 2, (int64_t[]){N, K}));
  example_print("source (W viewed as W^T)", &src);
  example_print("destination (W^T)", &dst);

  example_cl env;
  example_cl_open(&env);
  cl_mem dw = example_buffer(&env, sizeof w, w);
  cl_mem dt = example_buffer(&env, sizeof got, NULL);
  CHECK_NDX(ndx_cl_copy(env.cl, env.queue, dt, &dst, dw, &src, 4, 0, NULL, NULL));
  CHECK_CL(clEnqueueReadBuffer(env.queue, dt, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));

  int bad = 0;
  for (int64_t p = 0; p < (int64_t)K * N; p++)
    if (nibble(got, p) != nibble(want, p) && bad++ < 5)
      fprintf(stderr, "mismatch at W^T[%lld][%lld]: got %u, want %u\n", (long long)(p / K),
              (long long)(p % K), nibble(got, p), nibble(want, p));
  printf("W[0][0..7]   = ");
  for (int n = 0; n < 8; n++) printf("%2u ", nibble(w, n));
  printf("\nW^T[0][0..7] = ");
  for (int k = 0; k < 8; k++) printf("%2u ", nibble(got, k));
  printf("\n");

  clReleaseMemObject(dw);
  clReleaseMemObject(dt);
  example_cl_close(&env);
  printf("%s: %d of %d int4 elements differ from the host reference\n", bad ? "FAILED" : "ok", bad,
         K * N);
  return bad ? 1 : 0;
}
