/* view_ops: a framework's view ops as ndx moves, then one copy.
 *
 * A framework records views without touching memory:
 *
 *   x = torch.arange(24.).reshape(4, 6)
 *   y = x.t()[1:5].unsqueeze(0).expand(3, 4, 4).contiguous()
 *
 * Each view op is one ndx call on the layout (no allocation, no device
 * work); `.contiguous()` is the only real work: one ndx_cl_copy from the
 * final view into a fresh C-order buffer. The example prints each layout
 * and checks the copy against the same expression evaluated on the host:
 * y[b][i][j] == x[j][i + 1].
 *
 * Exits 0 when the device result matches, 1 when it does not, 77 without
 * an OpenCL device. */
#include "example_cl.h"

enum { ROWS = 4, COLS = 6, BATCH = 3 };

int main(void) {
  /* x: a contiguous float tensor of shape [4, 6] (x[r][c] = 6r + c). */
  float x[ROWS * COLS];
  for (int i = 0; i < ROWS * COLS; i++) x[i] = (float)i;

  printf("view ops on x = arange(24).reshape(4, 6):\n");
  ndx_layout v;
  CHECK_NDX(ndx_contiguous(&v, 2, (int64_t[]){ROWS, COLS}));
  example_print("x", &v);
  CHECK_NDX(ndx_transpose(&v, &v, 0, 1)); /* out may be the input */
  example_print("x.t()", &v);
  CHECK_NDX(ndx_narrow(&v, &v, 0, 1, 4));
  example_print("x.t()[1:5]", &v);
  CHECK_NDX(ndx_unsqueeze(&v, &v, 0));
  example_print(".unsqueeze(0)", &v);
  CHECK_NDX(ndx_broadcast(&v, &v, 3, (int64_t[]){BATCH, 4, 4}));
  example_print(".expand(3, 4, 4)", &v);

  /* .contiguous(): a C-order destination of the view's shape. */
  ndx_layout out;
  CHECK_NDX(ndx_contiguous(&out, v.rank, v.shape));
  example_print(".contiguous() writes", &out);

  example_cl env;
  example_cl_open(&env);
  cl_mem dx = example_buffer(&env, sizeof x, x);
  cl_mem dy = example_buffer(&env, BATCH * 4 * 4 * sizeof(float), NULL);
  /* Element i (C order) of the view goes to element i of `out`: 32-bit
   * elements. The queue is in order, so the blocking read below waits for
   * the copy. */
  CHECK_NDX(ndx_cl_copy(env.cl, env.queue, dy, &out, dx, &v, 32, 0, NULL, NULL));
  float y[BATCH][4][4];
  CHECK_CL(clEnqueueReadBuffer(env.queue, dy, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL));

  int bad = 0;
  for (int b = 0; b < BATCH; b++)
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) {
        float want = x[j * COLS + i + 1];
        if (y[b][i][j] != want && bad++ < 5)
          fprintf(stderr, "mismatch at [%d][%d][%d]: got %g, want %g\n", b, i, j, y[b][i][j], want);
      }
  printf("y[0] =\n");
  for (int i = 0; i < 4; i++)
    printf("  %4g %4g %4g %4g\n", y[0][i][0], y[0][i][1], y[0][i][2], y[0][i][3]);

  clReleaseMemObject(dx);
  clReleaseMemObject(dy);
  example_cl_close(&env);
  printf("%s: %d of %d elements differ from the host reference\n", bad ? "FAILED" : "ok", bad,
         BATCH * 16);
  return bad ? 1 : 0;
}
