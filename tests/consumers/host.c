/* host.c: a user of libndx alone (ndx.pc, ndx::ndx, dependency('ndx')),
 * built by tests/test_install.sh with pkg-config, CMake and meson.
 *
 * ndx.h is the whole host API: it must compile and link with no OpenCL and
 * no CUDA header or library. The program moves, reshapes, coalesces, walks
 * and packs a layout, checks the results, and checks that the library it
 * runs with is the one its headers describe (and, given argv[1], that both
 * are that version). Exit 0: all good; 1: a check failed. */
#include <stdio.h>
#include <string.h>

#include <ndx/ndx.h>

#if defined(NDX_CL_H) || defined(__OPENCL_CL_H) || defined(CL_SUCCESS)
#error "ndx/ndx.h brings in OpenCL headers: a host-only user of ndx must not need them"
#endif
#if defined(NDX_CUDA_H) || defined(__CUDA_RUNTIME_API_H__)
#error "ndx/ndx.h brings in CUDA headers: a host-only user of ndx must not need them"
#endif

static int failures;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: %s failed (ndx_last_error: %s)\n", __FILE__, __LINE__, #cond,        \
              ndx_last_error());                                                                   \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static int same_text(const ndx_layout *l, const char *want) {
  char text[256];
  ndx_format(text, sizeof text, l);
  if (strcmp(text, want) == 0) return 1;
  fprintf(stderr, "layout is \"%s\", expected \"%s\"\n", text, want);
  return 0;
}

int main(int argc, char **argv) {
  /* The library is the one the headers are for. */
  CHECK(ndx_version() == NDX_VERSION_NUMBER);
  CHECK(strcmp(ndx_version_string(), NDX_VERSION_STRING) == 0);
  if (argc > 1 && strcmp(argv[1], ndx_version_string()) != 0) {
    fprintf(stderr, "ndx %s, expected %s\n", ndx_version_string(), argv[1]);
    failures++;
  }

  /* Moves: [2,3,4] transposed, then a reshape no strides express. */
  ndx_layout a, t, v;
  CHECK(ndx_contiguous(&a, 3, (int64_t[]){2, 3, 4}) == NDX_OK);
  CHECK(same_text(&a, "shape=[2,3,4] strides=[12,4,1] offset=0"));
  CHECK(ndx_transpose(&t, &a, 0, 2) == NDX_OK);
  CHECK(same_text(&t, "shape=[4,3,2] strides=[1,4,12] offset=0"));
  CHECK(ndx_reshape(&v, &t, 1, (int64_t[]){24}) == NDX_ENOVIEW);
  CHECK(strstr(ndx_last_error(), "ndx_reshape") != NULL);
  CHECK(ndx_flip(&v, &a, 1) == NDX_OK);
  CHECK(same_text(&v, "shape=[2,3,4] strides=[12,-4,1] offset=8"));

  /* Coalescing a contiguous layout leaves one axis; the walk visits 0..23. */
  ndx_layout c;
  CHECK(ndx_coalesce(1, &a, &c) == NDX_OK);
  CHECK(c.rank == 1 && c.shape[0] == 24);
  ndx_iter it;
  int64_t start, len, stride, next = 0, runs = 0;
  int in_order = 1;
  for (ndx_iter_init(&it, &a); ndx_iter_run(&it, &start, &len, &stride); runs++)
    for (int64_t k = 0; k < len; k++) in_order &= start + k * stride == next++;
  CHECK(in_order && next == 24 && runs == 1);

  /* A pack of the transpose as a copy, in its 32-bit form. */
  uint64_t pack[NDX_PACK_MAX_BYTES(2, NDX_MAX_RANK) / 8];
  size_t used = 0;
  ndx_layout dst;
  CHECK(ndx_contiguous(&dst, 3, (int64_t[]){4, 3, 2}) == NDX_OK);
  CHECK(ndx_pack_copy(pack, sizeof pack, &used, &dst, &t, 32) == NDX_OK);
  CHECK(used > 0 && used <= sizeof pack);
  CHECK(((const ndx_pack_head *)pack)->wide == 0);

  /* A refusal through the public ndx_set_error reads back. */
  CHECK(ndx_set_error(NDX_EINVAL, "consumer: %d", 42) == NDX_EINVAL);
  CHECK(strcmp(ndx_last_error(), "consumer: 42") == 0);

  if (failures) return 1;
  printf("ndx %s: host consumer ok\n", ndx_version_string());
  return 0;
}
