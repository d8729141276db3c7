/* bench_cl_check.c: checking a result of `ndx-bench --cl` against the host:
 * the destination buffer is read back and compared, element by element, with
 * the shared host reference copy (tests/oracle.h): every element of a small
 * copy, the first and last 4096 and a random sample of a large one. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_cl.h"
#include "oracle.h" /* the host reference (tests/oracle.h) */

#define CHECK_ALL_BELOW (INT64_C(1) << 22) /* elements: check all of them */
#define CHECK_SAMPLES (1 << 20)            /* else this many random ones, and the ends */

/* Reads `dst` back and compares it with the host's copy; false with `why`. */
bool check_result(env *e, cl_mem dst, const check *c, char *why, size_t whysz) {
  uint8_t *d = malloc(c->dst_bytes ? c->dst_bytes : 1);
  if (!d) {
    snprintf(why, whysz, "out of host memory for the check");
    return false;
  }
  cl_int err = clEnqueueReadBuffer(e->q, dst, CL_TRUE, 0, c->dst_bytes, d, 0, NULL, NULL);
  if (err != CL_SUCCESS) {
    snprintf(why, whysz, "clEnqueueReadBuffer: %s", cl_err(err));
    free(d);
    return false;
  }
  /* all elements, in C order; or the first and the last 4096 and random ones */
  int64_t numel = ndx_numel(c->src_l), wrong;
  if (numel <= CHECK_ALL_BELOW)
    wrong = oracle_first_wrong(d, c->dst_l, c->src, c->src_l, c->bits, 0, numel);
  else if ((wrong = oracle_first_wrong(d, c->dst_l, c->src, c->src_l, c->bits, 0, 4096)) < 0 &&
           (wrong = oracle_first_wrong(d, c->dst_l, c->src, c->src_l, c->bits, numel - 4096,
                                       4096)) < 0) {
    uint64_t s = 0x9e3779b97f4a7c15u;
    for (int64_t k = 0; k < CHECK_SAMPLES && wrong < 0; k++) {
      int64_t i = (int64_t)(rng_next(&s) % (uint64_t)numel);
      if (!oracle_same_element(d, oracle_position_of(c->dst_l, i), c->src,
                               oracle_position_of(c->src_l, i), c->bits))
        wrong = i;
    }
  }
  free(d);
  if (wrong < 0) return true;
  snprintf(why, whysz,
           "element %" PRId64 " (dst position %" PRId64 ", src position %" PRId64
           ") differs from the host's",
           wrong, oracle_position_of(c->dst_l, wrong), oracle_position_of(c->src_l, wrong));
  return false;
}
