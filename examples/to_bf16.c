/* to_bf16: conversion on copy, the reorder every backend runs.
 *
 * Two conversions, each one ndx_cl_convert:
 *   1. x.t().to(torch.bfloat16): a transposed fp32 view (X is [M, N]
 *      row-major, viewed as X^T) into a contiguous bf16 tensor [N, M];
 *   2. 4-bit fp4 (OCP E2M1, two to a byte, low nibble first) weights into
 *      fp16, the matrix as it is.
 * The values follow ndx_dtype.h's rules bit for bit: round to nearest, ties
 * to even, once. The host references below are the textbook ones: fp32 to
 * bf16 by rounding the low 16 bits away, fp4 to fp16 by the format's table
 * of 16 values (every fp4 value is exact in fp16).
 *
 * Exits 0 when both device results match, 1 when one does not, 77 without
 * an OpenCL device. */
#include <stdint.h>

#include "example_cl.h"

enum { M = 48, N = 33, K = 64 };

/* fp32 bits to bf16 bits, round to nearest even (finite values). */
static uint16_t bf16_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* fp4 E2M1 code to fp16 bits: 0, 0.5, 1, 1.5, 2, 3, 4, 6, then negated. */
static uint16_t f16_of_fp4(unsigned code) {
  static const uint16_t magnitude[8] = {0x0000, 0x3800, 0x3c00, 0x3e00,
                                        0x4000, 0x4200, 0x4400, 0x4600};
  return (uint16_t)(magnitude[code & 7u] | (code & 8u ? 0x8000u : 0u));
}

int main(void) {
  example_cl env;
  example_cl_open(&env);
  int bad = 0;

  /* 1. X^T as bf16. */
  static float x[M * N];
  static uint16_t want[N * M], got[N * M];
  for (int i = 0; i < M * N; i++) x[i] = (float)(i % 97) * 0.013f - 0.5f;
  for (int n = 0; n < N; n++)
    for (int m = 0; m < M; m++) want[n * M + m] = bf16_of(x[m * N + n]);
  ndx_layout xt, y;
  CHECK_NDX(ndx_contiguous(&xt, 2, (int64_t[]){M, N}));
  CHECK_NDX(ndx_transpose(&xt, &xt, 0, 1)); /* X^T: [N, M], strides [1, N] */
  CHECK_NDX(ndx_contiguous(&y, 2, (int64_t[]){N, M}));
  example_print("source (X viewed as X^T, fp32)", &xt);
  example_print("destination (bf16)", &y);
  cl_mem dx = example_buffer(&env, sizeof x, x), dy = example_buffer(&env, sizeof got, NULL);
  CHECK_NDX(ndx_cl_convert(env.cl, env.queue, dy, &y, NDX_BF16, dx, &xt, NDX_F32, 0, NULL, NULL));
  CHECK_CL(clEnqueueReadBuffer(env.queue, dy, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  for (int i = 0; i < N * M; i++)
    if (got[i] != want[i] && bad++ < 5)
      fprintf(stderr, "bf16 element %d: got 0x%04x, want 0x%04x\n", i, got[i], want[i]);

  /* 2. fp4 weights [K, K] as fp16. */
  static uint8_t w[K * K / 2];
  static uint16_t h[K * K], hwant[K * K];
  for (int i = 0; i < K * K / 2; i++) w[i] = (uint8_t)(i * 37 + 11);
  for (int p = 0; p < K * K; p++) hwant[p] = f16_of_fp4((w[p / 2] >> (4 * (p % 2))) & 0xfu);
  ndx_layout wl;
  CHECK_NDX(ndx_contiguous(&wl, 2, (int64_t[]){K, K}));
  cl_mem dw = example_buffer(&env, sizeof w, w), dh = example_buffer(&env, sizeof h, NULL);
  CHECK_NDX(
      ndx_cl_convert(env.cl, env.queue, dh, &wl, NDX_F16, dw, &wl, NDX_F4E2M1FN, 0, NULL, NULL));
  CHECK_CL(clEnqueueReadBuffer(env.queue, dh, CL_TRUE, 0, sizeof h, h, 0, NULL, NULL));
  for (int p = 0; p < K * K; p++)
    if (h[p] != hwant[p] && bad++ < 10)
      fprintf(stderr, "fp16 element %d: got 0x%04x, want 0x%04x\n", p, h[p], hwant[p]);
  printf("X[0][0..3]   = %g %g %g %g\n", x[0], x[1], x[2], x[3]);
  printf("Y[0][0..3]   = 0x%04x 0x%04x 0x%04x 0x%04x (bf16 of X[0..3][0])\n", got[0], got[1],
         got[2], got[3]);
  printf("W fp4 byte 0 = 0x%02x -> fp16 0x%04x 0x%04x\n", w[0], h[0], h[1]);

  clReleaseMemObject(dx), clReleaseMemObject(dy), clReleaseMemObject(dw), clReleaseMemObject(dh);
  example_cl_close(&env);
  printf("%s: %d of %d elements differ from the host reference\n", bad ? "FAILED" : "ok", bad,
         N * M + K * K);
  return bad ? 1 : 0;
}
