/* kv_cache: appending new keys to a preallocated KV cache at given slots.
 *
 *   cache[slot[t]][h][d] = new[t][h][d]      (ggml's set_rows, index_copy_)
 *
 * is a scatter along axis 0 whose index is the slot list unsqueezed and
 * broadcast to new's shape. The slots are distinct, so the call passes
 * NDX_INDEX_UNIQUE and ndx copies the new rows alone; every other slot of
 * the cache keeps its bytes. fp16 elements are 16-bit values to ndx.
 *
 * Exits 0 when the device result matches the host's, 1 when it does not,
 * 77 without an OpenCL device. */
#include "example_cl.h"

enum { SLOTS = 64, HEADS = 4, HDIM = 32, NEW = 5 };

int main(void) {
  static uint16_t cache[SLOTS][HEADS][HDIM], fresh[NEW][HEADS][HDIM], got[SLOTS][HEADS][HDIM];
  for (int s = 0; s < SLOTS; s++)
    for (int h = 0; h < HEADS; h++)
      for (int d = 0; d < HDIM; d++) cache[s][h][d] = (uint16_t)(0x3c00 + s); /* old keys */
  for (int t = 0; t < NEW; t++)
    for (int h = 0; h < HEADS; h++)
      for (int d = 0; d < HDIM; d++) fresh[t][h][d] = (uint16_t)(0x4000 + t * 256 + h * 32 + d);
  int64_t slot[NEW] = {9, 10, 11, 40, 63};

  ndx_layout cache_l, new_l, slot_l, index_l;
  CHECK_NDX(ndx_contiguous(&cache_l, 3, (int64_t[]){SLOTS, HEADS, HDIM}));
  CHECK_NDX(ndx_contiguous(&new_l, 3, (int64_t[]){NEW, HEADS, HDIM}));
  CHECK_NDX(ndx_contiguous(&slot_l, 1, (int64_t[]){NEW}));
  CHECK_NDX(ndx_reshape(&index_l, &slot_l, 3, (int64_t[]){NEW, 1, 1}));
  CHECK_NDX(ndx_broadcast(&index_l, &index_l, 3, new_l.shape));
  example_print("cache", &cache_l);
  example_print("index (broadcast slots)", &index_l);

  example_cl env;
  example_cl_open(&env);
  cl_mem dc = example_buffer(&env, sizeof cache, cache);
  cl_mem dn = example_buffer(&env, sizeof fresh, fresh);
  cl_mem ds = example_buffer(&env, sizeof slot, slot);
  CHECK_NDX(ndx_cl_scatter(env.cl, env.queue, dc, &cache_l, dn, &new_l, 0, ds, &index_l, 64,
                           NDX_INDEX_UNIQUE, 16, 0, NULL, NULL));
  CHECK_CL(clEnqueueReadBuffer(env.queue, dc, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  CHECK_NDX(ndx_cl_check(env.cl));

  /* the host reference: the same rows written into a copy of the cache */
  for (int t = 0; t < NEW; t++) memcpy(cache[slot[t]], fresh[t], sizeof fresh[t]);
  int bad = 0;
  for (int s = 0; s < SLOTS; s++)
    if (memcmp(got[s], cache[s], sizeof cache[s]) != 0 && bad++ < 5)
      fprintf(stderr, "slot %d differs\n", s);
  printf("slots 8..12 hold keys %04x %04x %04x %04x %04x\n", got[8][0][0], got[9][0][0],
         got[10][0][0], got[11][0][0], got[12][0][0]);

  clReleaseMemObject(dc);
  clReleaseMemObject(dn);
  clReleaseMemObject(ds);
  example_cl_close(&env);
  printf("%s: %d of %d slots differ from the host reference\n", bad ? "FAILED" : "ok", bad, SLOTS);
  return bad ? 1 : 0;
}
