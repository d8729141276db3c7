/* im2col: the patch matrix of a convolution from a window layout and one copy.
 *
 * im2col turns a convolution into a matrix product: for each image, column
 * (oh, ow) of the matrix holds the input patch that output pixel reads, one
 * row per (channel, kernel row, kernel column). With ndx the patches are a
 * view: ndx_unfold of the image [N, C, H, W] with a window on H (size KH,
 * step SH, dilation DH) and one on W (KW, SW, DW) gives
 * [N, C, OH, OW, KH, KW], every element a position in the input, nothing
 * copied; a permute to [N, C, KH, KW, OH, OW] is the im2col matrix
 * [N, C*KH*KW, OH*OW] in C order. One ndx_cl_copy writes it.
 *
 * (Padding is a separate step: copy the image into the interior of a
 * zero-filled, larger buffer with ndx_narrow views, then unfold that.)
 *
 * Checked against a naive im2col loop. Exits 0 when the device result
 * matches, 1 when it does not, 77 without an OpenCL device. */
#include "example_cl.h"

/* The image and the convolution: a 3x3 kernel, vertical stride 2, and a
 * horizontal dilation of 2 to show both window parameters. */
enum { N = 2, C = 3, H = 9, W = 10 };
enum { KH = 3, SH = 2, DH = 1, KW = 3, SW = 1, DW = 2 };
enum { OH = (H - DH * (KH - 1) - 1) / SH + 1, OW = (W - DW * (KW - 1) - 1) / SW + 1 };
enum { ROWS = C * KH * KW, COLS = OH * OW };

int main(void) {
  static float image[N * C * H * W], want[N * ROWS * COLS], got[N * ROWS * COLS];
  for (int i = 0; i < N * C * H * W; i++) image[i] = (float)i;

  /* The naive im2col: row (c, kh, kw), column (oh, ow). */
  for (int n = 0; n < N; n++)
    for (int c = 0; c < C; c++)
      for (int kh = 0; kh < KH; kh++)
        for (int kw = 0; kw < KW; kw++)
          for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
              int row = (c * KH + kh) * KW + kw, col = oh * OW + ow;
              int h = oh * SH + kh * DH, w = ow * SW + kw * DW;
              want[(n * ROWS + row) * COLS + col] = image[((n * C + c) * H + h) * W + w];
            }

  ndx_layout img, patches, matrix;
  CHECK_NDX(ndx_contiguous(&img, 4, (int64_t[]){N, C, H, W}));
  example_print("image [N,C,H,W]", &img);
  /* Windows go on strictly increasing axes; each appends its axis. */
  ndx_window windows[2] = {
      {.axis = 2, .size = KH, .step = SH, .dilation = DH},
      {.axis = 3, .size = KW, .step = SW, .dilation = DW},
  };
  CHECK_NDX(ndx_unfold(&patches, &img, 2, windows));
  example_print("unfold [N,C,OH,OW,KH,KW]", &patches);
  CHECK_NDX(ndx_permute(&patches, &patches, (int32_t[]){0, 1, 4, 5, 2, 3}));
  example_print("permute [N,C,KH,KW,OH,OW]", &patches);
  /* The destination: the C-order matrix, seen with the patches' shape. */
  CHECK_NDX(ndx_contiguous(&matrix, patches.rank, patches.shape));
  example_print("im2col matrix", &matrix);

  example_cl env;
  example_cl_open(&env);
  cl_mem dimg = example_buffer(&env, sizeof image, image);
  cl_mem dcol = example_buffer(&env, sizeof got, NULL);
  CHECK_NDX(ndx_cl_copy(env.cl, env.queue, dcol, &matrix, dimg, &patches, 32, 0, NULL, NULL));
  CHECK_CL(clEnqueueReadBuffer(env.queue, dcol, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));

  int bad = 0;
  for (int i = 0; i < N * ROWS * COLS; i++)
    if (got[i] != want[i] && bad++ < 5)
      fprintf(stderr, "mismatch at image %d row %d column %d: got %g, want %g\n", i / (ROWS * COLS),
              i / COLS % ROWS, i % COLS, got[i], want[i]);
  printf("image 0, row 0 (c=0, kh=0, kw=0):");
  for (int col = 0; col < COLS; col++) printf(" %g", got[col]);
  printf("\n");

  clReleaseMemObject(dimg);
  clReleaseMemObject(dcol);
  example_cl_close(&env);
  printf("%s: %d of %d elements differ from the naive im2col\n", bad ? "FAILED" : "ok", bad,
         N * ROWS * COLS);
  return bad ? 1 : 0;
}
