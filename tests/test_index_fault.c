/* test_index_fault.c: the message of a bad index value (ndx_index_fault,
 * src/host/index_plan.c), which ndx_cl_check, ndx_cuda_check and
 * ndx_hip_check set: it names the index buffer's element that holds the value
 * (index[P]) and the coordinates index_l reads it at, for any index layout —
 * broadcast, strided, at an offset, with negative strides, of rank 0 — as the
 * check pass reports the element (its C-order index in S, 0 on the axes the
 * index broadcasts). Host only: the plan and the message need no device. */
#include <criterion/criterion.h>
#include <string.h>

#include "host/index_plan.h"
#include "oracle.h"
#include "index_oracle.h"

static ndx_layout make(int rank, const int64_t *shape, const int64_t *strides, int64_t offset) {
  ndx_layout l;
  cr_assert_eq(ndx_make(&l, rank, shape, strides, offset), NDX_OK, "%s", ndx_last_error());
  return l;
}

/* Plans a gather of `index_l` (shape S) from a table of d rows along axis 0
 * (a scatter into one, when `scatter`) and returns its site. */
static ndx_index_site site_of(bool scatter, const ndx_layout *index_l, int64_t d, unsigned flags) {
  ndx_layout same, other;
  cr_assert_eq(ndx_contiguous(&same, index_l->rank, index_l->shape), NDX_OK);
  int64_t oshape[NDX_MAX_RANK];
  memcpy(oshape, index_l->shape, sizeof(int64_t) * (size_t)index_l->rank);
  oshape[0] = d;
  cr_assert_eq(ndx_contiguous(&other, index_l->rank, oshape), NDX_OK);
  static ndx_index_plan p; /* large */
  const char *call = scatter ? "ndx_cl_scatter" : "ndx_cl_gather";
  cr_assert_eq(ndx_index_plan_make(&p, call, scatter, scatter ? &other : &same,
                                   scatter ? &same : &other, 0, index_l, 32, flags, 32),
               NDX_OK, "%s", ndx_last_error());
  return p.site;
}

/* The case: ids[1] = 11 of a 1-d index unsqueezed and broadcast to
 * [3,4], reported by the check pass as element 4 ([1,0]) of S. The message
 * names index[1], not element 4. */
Test(index_fault, a_broadcast_index_names_its_own_element) {
  int64_t n = 3;
  ndx_layout ids, col, index_l;
  cr_assert_eq(ndx_contiguous(&ids, 1, &n), NDX_OK);
  cr_assert_eq(ndx_unsqueeze(&col, &ids, 1), NDX_OK);
  cr_assert_eq(ndx_broadcast(&index_l, &col, 2, (int64_t[]){3, 4}), NDX_OK);
  ndx_index_site site = site_of(false, &index_l, 10, 0);
  cr_assert_eq(ndx_index_fault(&site, 4, 11), NDX_ERANGE);
  cr_assert_str_eq(ndx_last_error(),
                   "ndx_cl_gather: index[1] is 11, outside [0, 10) for axis 0 of src_l: the call "
                   "wrote nothing (index[1]: element 1 of the index buffer, read at [1,0] of "
                   "index_l's shape [3,4])");
  int32_t buf[3] = {2, 11, 5};
  cr_assert_null(
      oracle_fault_message_wrong(ndx_last_error(), &index_l, (const uint8_t *)buf, 32, 10, 0));
}

/* A row index broadcast along the rows, [3,4] strides [0,1]: the check pass
 * reports [0,2] (order 2), index[2]. */
Test(index_fault, an_index_broadcast_along_the_other_axis) {
  ndx_layout index_l = make(2, (int64_t[]){3, 4}, (int64_t[]){0, 1}, 0);
  ndx_index_site site = site_of(false, &index_l, 3, NDX_INDEX_WRAP);
  ndx_index_fault(&site, 2, -4);
  cr_assert_str_eq(ndx_last_error(),
                   "ndx_cl_gather: index[2] is -4, outside [-3, 3) for axis 0 of src_l: the call "
                   "wrote nothing (index[2]: element 2 of the index buffer, read at [0,2] of "
                   "index_l's shape [3,4])");
}

/* Strides, an offset and a negative stride: [2,3] strides [-6,2] offset 7
 * reads positions 7,9,11 / 1,3,5; element 4 ([1,1]) is position 3. */
Test(index_fault, a_strided_index_at_an_offset_with_a_negative_stride) {
  ndx_layout index_l = make(2, (int64_t[]){2, 3}, (int64_t[]){-6, 2}, 7);
  ndx_index_site site = site_of(true, &index_l, 5, 0);
  int64_t coord[2], pos;
  cr_assert(ndx_index_site_locate(&site, 4, coord, &pos));
  cr_assert(coord[0] == 1 && coord[1] == 1 && pos == 3, "[%lld,%lld] at %lld", (long long)coord[0],
            (long long)coord[1], (long long)pos);
  ndx_index_fault(&site, 4, 5);
  cr_assert_str_eq(ndx_last_error(),
                   "ndx_cl_scatter: index[3] is 5, outside [0, 5) for axis 0 of dst_l: the call "
                   "wrote nothing (index[3]: element 3 of the index buffer, read at [1,1] of "
                   "index_l's shape [2,3])");
}

/* Every element of random index layouts (views: strided, flipped, offset,
 * broadcast): the position is index_l's position of the coordinates, and
 * the message passes the suites' check of it. */
Test(index_fault, every_element_of_random_layouts) {
  oracle_rng r = {0x1234abcdu};
  for (int round = 0; round < 300; round++) {
    int64_t shape[NDX_MAX_RANK];
    int rank = oracle_random_shape(&r, 4, 5, 8, shape);
    if (rank == 0) continue; /* an index along an axis has one */
    ndx_layout index_l = oracle_view_layout_of_shape(&r, rank, shape);
    if (oracle_numel(&index_l) == 0) continue;
    ndx_index_site site = site_of(false, &index_l, 7, 0);
    int64_t lo, hi;
    ndx_span(&index_l, &lo, &hi);
    int32_t *buf = calloc((size_t)hi + 1, sizeof *buf);
    int64_t n = oracle_numel(&index_l), coord[NDX_MAX_RANK], pos;
    for (int64_t k = 0; k < n; k++) {
      cr_assert(ndx_index_site_locate(&site, k, coord, &pos));
      cr_assert_eq(pos, oracle_position(&index_l, coord));
      int64_t at[NDX_MAX_RANK];
      oracle_unravel(rank, shape, k, at);
      cr_assert(memcmp(at, coord, sizeof(int64_t) * (size_t)rank) == 0);
      buf[pos] = 7 + (int32_t)k;
      ndx_index_fault(&site, k, 7 + k);
      char i[256];
      const char *wrong =
          oracle_fault_message_wrong(ndx_last_error(), &index_l, (const uint8_t *)buf, 32, 7, 0);
      cr_assert_null(wrong, "%s: %s (index %s)", wrong, ndx_last_error(),
                     oracle_describe(i, sizeof i, &index_l));
      buf[pos] = 0;
    }
    free(buf);
  }
}

/* Rank 0 (a site no gather or scatter makes, as the axis needs one, but the
 * message holds): the only element, at index_l's offset. */
Test(index_fault, rank_0) {
  ndx_index_site site = {
      .call = "ndx_cuda_gather", .axis = 0, .rank = 0, .d = 4, .index_offset = 9};
  int64_t pos, coord[1];
  cr_assert(ndx_index_site_locate(&site, 0, coord, &pos));
  cr_assert_eq(pos, 9);
  ndx_index_fault(&site, 0, 4);
  cr_assert_str_eq(ndx_last_error(),
                   "ndx_cuda_gather: index[9] is 4, outside [0, 4) for axis 0 of src_l: the call "
                   "wrote nothing (index[9]: element 9 of the index buffer, index_l's only "
                   "element)");
}

/* An element no check pass of the site reports: said as such, nothing
 * invented. */
Test(index_fault, an_element_outside_s) {
  ndx_layout index_l = make(1, (int64_t[]){3}, (int64_t[]){1}, 0);
  ndx_index_site site = site_of(false, &index_l, 3, 0);
  int64_t pos, coord[1];
  cr_assert(!ndx_index_site_locate(&site, 3, coord, &pos));
  cr_assert(!ndx_index_site_locate(&site, -1, coord, &pos));
  cr_assert_eq(ndx_index_fault(&site, 3, 8), NDX_ERANGE);
  cr_assert_str_eq(ndx_last_error(),
                   "ndx_cl_gather: index element 3 of S [3] is 8, outside [0, 3) for axis 0 of "
                   "src_l: the call wrote nothing");
}
