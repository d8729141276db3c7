/* embedding: an embedding lookup of a 4-bit table, token ids to rows.
 *
 *   out[t][c] = table[ids[t]][c]      (torch.nn.functional.embedding)
 *
 * is a gather along axis 0 whose index is the 1-d token list unsqueezed and
 * broadcast to the output's shape (stride 0 along the row): no index tensor
 * of the output's size is ever made. The table holds 4-bit codes, two to a
 * byte; ndx copies them without unpacking. One id is out of range on
 * purpose in a second call: that call writes nothing and ndx_cl_check
 * reports it.
 *
 * Exits 0 when the device result matches the host's, 1 when it does not,
 * 77 without an OpenCL device. */
#include "example_cl.h"

enum { VOCAB = 1000, DIM = 64, TOKENS = 12 };

/* Code c of row r of the table: a 4-bit value, element r*DIM + c. */
static unsigned code(const uint8_t *t, int64_t p) {
  return (t[p >> 1] >> ((p & 1) * 4)) & 15u;
}

int main(void) {
  static uint8_t table[VOCAB * DIM / 2], out[TOKENS * DIM / 2];
  for (size_t i = 0; i < sizeof table; i++) table[i] = (uint8_t)(i * 37 + (i >> 7));
  int32_t ids[TOKENS] = {17, 3, 999, 3, 512, 0, 42, 42, 7, 998, 100, 256};

  ndx_layout table_l, out_l, ids_l, index_l;
  CHECK_NDX(ndx_contiguous(&table_l, 2, (int64_t[]){VOCAB, DIM}));
  CHECK_NDX(ndx_contiguous(&out_l, 2, (int64_t[]){TOKENS, DIM}));
  CHECK_NDX(ndx_contiguous(&ids_l, 1, (int64_t[]){TOKENS}));
  CHECK_NDX(ndx_unsqueeze(&index_l, &ids_l, 1));                             /* [12, 1] */
  CHECK_NDX(ndx_broadcast(&index_l, &index_l, 2, (int64_t[]){TOKENS, DIM})); /* [12, 64] */
  example_print("table", &table_l);
  example_print("index (broadcast ids)", &index_l);

  example_cl env;
  example_cl_open(&env);
  cl_mem dt = example_buffer(&env, sizeof table, table);
  cl_mem dout = example_buffer(&env, sizeof out, NULL);
  cl_mem dids = example_buffer(&env, sizeof ids, ids);
  CHECK_NDX(ndx_cl_gather(env.cl, env.queue, dout, &out_l, dt, &table_l, 0, dids, &index_l, 32, 0,
                          4, 0, NULL, NULL));
  CHECK_CL(clEnqueueReadBuffer(env.queue, dout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  CHECK_NDX(ndx_cl_check(env.cl)); /* every id was in range */

  int bad = 0;
  for (int t = 0; t < TOKENS; t++)
    for (int c = 0; c < DIM; c++)
      if (code(out, t * DIM + c) != code(table, (int64_t)ids[t] * DIM + c) && bad++ < 5)
        fprintf(stderr, "mismatch at [%d][%d]\n", t, c);

  /* An id past the table: refused on the device, nothing written. */
  int32_t wrong[TOKENS];
  memcpy(wrong, ids, sizeof ids);
  wrong[5] = VOCAB;
  cl_mem dwrong = example_buffer(&env, sizeof wrong, wrong);
  uint8_t zero = 0, back[TOKENS * DIM / 2];
  CHECK_CL(clEnqueueFillBuffer(env.queue, dout, &zero, 1, 0, sizeof out, 0, NULL, NULL));
  CHECK_NDX(ndx_cl_gather(env.cl, env.queue, dout, &out_l, dt, &table_l, 0, dwrong, &index_l, 32, 0,
                          4, 0, NULL, NULL));
  ndx_status s = ndx_cl_check(env.cl);
  printf("an id of %d: %s: %s\n", VOCAB, ndx_status_name(s), ndx_last_error());
  CHECK_CL(clEnqueueReadBuffer(env.queue, dout, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
  for (size_t i = 0; i < sizeof back; i++) bad += back[i] != 0;
  bad += s != NDX_ERANGE;

  clReleaseMemObject(dt);
  clReleaseMemObject(dout);
  clReleaseMemObject(dids);
  clReleaseMemObject(dwrong);
  example_cl_close(&env);
  printf("%s: %d differences from the host reference\n", bad ? "FAILED" : "ok", bad);
  return bad ? 1 : 0;
}
