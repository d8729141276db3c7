/* gpu_cases.c: the copy, conversion, gather and scatter cases of
 * ndx-bench-cuda (gpu_cases.h). */
#include <stdio.h>
#include <stdlib.h>

#include "gpu_cases.h"
#include "../tests/oracle.h"

static gpu_case *cases;
static int ncases, max_cases;

static void die(const char *what) {
  fprintf(stderr, "gpu_cases: %s: %s\n", what, ndx_last_error());
  exit(1);
}

static ndx_layout contig(int rank, const int64_t *shape) {
  ndx_layout l;
  if (ndx_contiguous(&l, rank, shape) != NDX_OK) die("ndx_contiguous");
  return l;
}

static gpu_case *add(const char *name, const char *group, double target, int bits) {
  if (ncases == max_cases) {
    fprintf(stderr, "gpu_cases: more than %d cases\n", max_cases);
    exit(1);
  }
  gpu_case *c = &cases[ncases++];
  *c = (gpu_case){.name = name, .group = group, .target = target, .bits = bits};
  return c;
}

/* A conversion from type st to dt of a source of `shape` (rank 1 or 2),
 * seen as it is, transposed or flipped along its inner axis (`view`: 0,
 * 't' or 'f'), into the contiguous tensor of the view's shape, as
 * ndx-bench --cl's conversions are (bench/bench_cl_convert.c). */
static void add_convert(const char *name, ndx_dtype st, ndx_dtype dt, int rank,
                        const int64_t *shape, char view) {
  gpu_case *c = add(name, "convert", 0, ndx_dtype_bits(dt));
  c->convert = true, c->src_t = st, c->dst_t = dt;
  ndx_layout base = contig(rank, shape);
  c->src = base;
  if (view == 't' && ndx_transpose(&c->src, &base, 0, 1) != NDX_OK) die("ndx_transpose");
  if (view == 'f' && ndx_flip(&c->src, &base, rank - 1) != NDX_OK) die("ndx_flip");
  c->dst = contig(rank, c->src.shape);
}

/* dst contiguous `shape`; src the C-order tensor of the permuted shape, seen
 * through the inverse permutation (what x.permute(perm).contiguous() copies). */
static void add_permute(const char *name, const char *group, double target, int bits, int rank,
                        const int64_t *shape, const int32_t *perm) {
  gpu_case *c = add(name, group, target, bits);
  int64_t parent[NDX_MAX_RANK];
  int32_t inv[NDX_MAX_RANK];
  for (int a = 0; a < rank; a++) parent[a] = shape[perm[a]], inv[perm[a]] = a;
  ndx_layout p = contig(rank, parent);
  if (ndx_permute(&c->src, &p, inv) != NDX_OK) die("ndx_permute");
  c->dst = contig(rank, shape);
}

static void add_transpose(const char *name, const char *group, double target, int bits,
                          int64_t rows, int64_t cols) {
  int64_t s[2] = {rows, cols};
  int32_t t[2] = {1, 0};
  add_permute(name, group, target, bits, 2, s, t);
}

int gpu_cases(gpu_case *out, int max) {
  cases = out, ncases = 0, max_cases = max;
  const int64_t M = 16777216; /* fp32 elements in 64 MiB */
  gpu_case *c;
  c = add("contiguous fp32 [16777216]", "contiguous", 0.95, 32);
  c->dst = c->src = contig(1, &M);
  {
    int64_t p[2] = {4096, 8192};
    ndx_range r[2] = {{0, 4096, 1}, {0, 4096, 2}};
    c = add("slice step 2 inner fp32 [4096,8192][:, ::2]", "slice", 0.85, 32);
    ndx_layout l = contig(2, p);
    if (ndx_slice(&c->src, &l, r) != NDX_OK) die("ndx_slice");
    c->dst = contig(2, c->src.shape);
  }
  {
    int64_t p[2] = {8192, 4096};
    ndx_range r[2] = {{0, 4096, 2}, {0, 4096, 1}};
    c = add("slice step 2 outer fp32 [8192,4096][::2]", "slice", 0.85, 32);
    ndx_layout l = contig(2, p);
    if (ndx_slice(&c->src, &l, r) != NDX_OK) die("ndx_slice");
    c->dst = contig(2, c->src.shape);
  }
  {
    int64_t p[3] = {256, 260, 260};
    ndx_range r[3] = {{0, 256, 1}, {2, 256, 1}, {3, 256, 1}};
    c = add("narrow 3-d fp32 [256,260,260][:, 2:258, 3:259]", "slice", 0.85, 32);
    ndx_layout l = contig(3, p);
    if (ndx_slice(&c->src, &l, r) != NDX_OK) die("ndx_slice");
    c->dst = contig(3, c->src.shape);
  }
  {
    int64_t row[2] = {1, 4096}, col[2] = {4096, 1}, full[2] = {4096, 4096};
    c = add("broadcast rows fp32 [1,4096] -> [4096,4096]", "broadcast", 0.85, 32);
    ndx_layout l = contig(2, row);
    if (ndx_broadcast(&c->src, &l, 2, full) != NDX_OK) die("ndx_broadcast");
    c->dst = contig(2, full);
    c = add("broadcast columns fp32 [4096,1] -> [4096,4096]", "broadcast", 0.85, 32);
    l = contig(2, col);
    if (ndx_broadcast(&c->src, &l, 2, full) != NDX_OK) die("ndx_broadcast");
    c->dst = contig(2, full);
  }
  {
    int64_t s[2] = {4096, 4096};
    ndx_layout l = contig(2, s);
    c = add("flip inner fp32 [4096,4096][:, ::-1]", "flip", 0.85, 32);
    if (ndx_flip(&c->src, &l, 1) != NDX_OK) die("ndx_flip");
    c->dst = l;
    c = add("flip outer fp32 [4096,4096][::-1]", "flip", 0.85, 32);
    if (ndx_flip(&c->src, &l, 0) != NDX_OK) die("ndx_flip");
    c->dst = l;
    c = add("flip 1-d fp32 [16777216][::-1]", "flip", 0.85, 32);
    ndx_layout v = contig(1, &M);
    if (ndx_flip(&c->src, &v, 0) != NDX_OK) die("ndx_flip");
    c->dst = v;
  }
  add_transpose("transpose fp32 4096x4096", "transpose fp32", 0.85, 32, 4096, 4096);
  add_transpose("transpose fp32 4000x3000", "transpose fp32", 0.85, 32, 4000, 3000);
  add_transpose("transpose fp32 3x1000003", "transpose fp32", 0.85, 32, 3, 1000003);
  add_transpose("transpose fp32 1000003x3", "transpose fp32", 0.85, 32, 1000003, 3);
  {
    int64_t s3[3] = {256, 256, 256};
    int32_t p3[3] = {2, 1, 0};
    add_permute("permute rank 3 fp32 [256]^3 (2,1,0)", "permute", 0.70, 32, 3, s3, p3);
    int32_t q3[3] = {1, 2, 0};
    add_permute("permute rank 3 fp32 [256]^3 (1,2,0)", "permute", 0.70, 32, 3, s3, q3);
    int64_t s4[4] = {64, 64, 64, 64};
    int32_t p4[4] = {0, 2, 3, 1};
    add_permute("permute rank 4 fp32 [64]^4 (0,2,3,1) NCHW->NHWC", "permute", 0.70, 32, 4, s4, p4);
    int32_t q4[4] = {3, 2, 1, 0};
    add_permute("permute rank 4 fp32 [64]^4 (3,2,1,0)", "permute", 0.70, 32, 4, s4, q4);
    int64_t s5[5] = {16, 32, 32, 32, 32};
    int32_t p5[5] = {4, 1, 3, 0, 2};
    add_permute("permute rank 5 fp32 [16,32,32,32,32] (4,1,3,0,2)", "permute", 0.70, 32, 5, s5, p5);
    int64_t s8[8] = {8, 8, 8, 8, 8, 8, 8, 8};
    int32_t p8[8] = {7, 6, 5, 4, 3, 2, 1, 0};
    add_permute("permute rank 8 fp32 [8]^8 reversed", "permute", 0.70, 32, 8, s8, p8);
    int32_t q8[8] = {1, 3, 5, 7, 0, 2, 4, 6};
    add_permute("permute rank 8 fp32 [8]^8 (1,3,5,7,0,2,4,6)", "permute", 0.70, 32, 8, s8, q8);
    int64_t o8[8] = {5, 7, 9, 11, 5, 7, 9, 11};
    int32_t r8[8] = {7, 1, 5, 3, 6, 0, 4, 2};
    add_permute("permute rank 8 fp32 [5,7,9,11,5,7,9,11] (7,1,5,3,6,0,4,2)", "permute", 0.70, 32, 8,
                o8, r8);
  }
  add_transpose("transpose 4-bit 8192x16384", "transpose sub-byte", 0.5, 4, 8192, 16384);
  add_transpose("transpose 4-bit 16384x8192", "transpose sub-byte", 0.5, 4, 16384, 8192);
  add_transpose("transpose 2-bit 16384x16384", "transpose sub-byte", 0, 2, 16384, 16384);
  add_transpose("transpose 1-bit 16384x32768", "transpose sub-byte", 0, 1, 16384, 32768);
  add_transpose("transpose 8-bit 8192x8192", "transpose 8/16-bit", 0.80, 8, 8192, 8192);
  add_transpose("transpose 16-bit 4096x8192", "transpose 8/16-bit", 0.80, 16, 4096, 8192);
  add_transpose("transpose 8-bit 8000x8000", "transpose 8/16-bit", 0.80, 8, 8000, 8000);
  add_transpose("transpose 16-bit 5000x6000", "transpose 8/16-bit", 0.80, 16, 5000, 6000);
  {
    int64_t sq[2] = {4096, 4096};
    add_convert("convert f32 -> bf16 contiguous", NDX_F32, NDX_BF16, 1, &M, 0);
    add_convert("convert f32 -> f16 transpose 4096x4096", NDX_F32, NDX_F16, 2, sq, 't');
    add_convert("convert bf16 -> f32 flip 4096x4096", NDX_BF16, NDX_F32, 2, sq, 'f');
    add_convert("convert f32 -> f8e4m3fn contiguous", NDX_F32, NDX_F8E4M3FN, 1, &M, 0);
    add_convert("convert f4e2m1fn -> f16 4096x4096", NDX_F4E2M1FN, NDX_F16, 2, sq, 0);
    add_convert("convert f4e2m1fn -> f16 transpose 4096x4096", NDX_F4E2M1FN, NDX_F16, 2, sq, 't');
    add_convert("convert i8 -> f32 contiguous", NDX_I8, NDX_F32, 1, &M, 0);
    add_convert("convert f16 -> f4e2m1fn contiguous", NDX_F16, NDX_F4E2M1FN, 1, &M, 0);
    add_convert("convert f16 -> f4e2m1fn transpose 4096x4096", NDX_F16, NDX_F4E2M1FN, 2, sq, 't');
    /* w4[:, 1:] = x[:, 1:], both 4096 x 4096: a block of a 4-bit matrix
     * whose rows start inside a byte */
    gpu_case *c = add("convert f16 -> f4e2m1fn 4096x4096 columns 1..", "convert", 0, 4);
    c->convert = true, c->src_t = NDX_F16, c->dst_t = NDX_F4E2M1FN;
    ndx_layout whole = contig(2, sq);
    if (ndx_narrow(&c->dst, &whole, 1, 1, sq[1] - 1) != NDX_OK) die("ndx_narrow");
    c->src = c->dst;
  }
  return ncases;
}

/* ---- Gathers and scatters ------------------------------------------------------- */

static gpu_index_case *icases;
static int nicases, max_icases;

static gpu_index_case *add_index(const char *name, double target, int bits, bool scatter,
                                 unsigned flags) {
  if (nicases == max_icases) {
    fprintf(stderr, "gpu_cases: more than %d index cases\n", max_icases);
    exit(1);
  }
  gpu_index_case *c = &icases[nicases++];
  *c = (gpu_index_case){.name = name,
                        .group = scatter ? "scatter" : "gather",
                        .target = target,
                        .bits = bits,
                        .scatter = scatter,
                        .flags = flags};
  return c;
}

/* A 1-d index of n broadcast along rows of `dim`: [n, dim], stride 0 inner. */
static ndx_layout row_index(int64_t n, int64_t dim) {
  ndx_layout ids = contig(1, &n), col, out;
  if (ndx_unsqueeze(&col, &ids, 1) != NDX_OK) die("ndx_unsqueeze");
  if (ndx_broadcast(&out, &col, 2, (int64_t[]){n, dim}) != NDX_OK) die("ndx_broadcast");
  return out;
}

/* Rows of a table picked by 32768 token ids: [vocab, dim] -> [32768, dim]. */
static void add_lookup(const char *name, double target, int bits, int64_t dim, bool skip_check) {
  gpu_index_case *c = add_index(name, target, bits, false, 0);
  c->skip_check = skip_check;
  c->index = row_index(32768, dim);
  c->src = contig(2, (int64_t[]){65536, dim});
  c->dst = contig(2, (int64_t[]){32768, dim});
}

int gpu_index_cases(gpu_index_case *out, int max) {
  icases = out, nicases = 0, max_icases = max;
  add_lookup("embedding fp32 [65536,256] by 32768 ids", 0.85, 32, 256, false);
  add_lookup("embedding 4-bit [65536,512] by 32768 ids", 0.60, 4, 512, false);
  add_lookup("embedding fp32, check kernel skipped", 0, 32, 256, true);
  gpu_index_case *c = add_index("take_along_axis fp32 [4096,4096] inner", 0.30, 32, false, 0);
  c->axis = 1;
  c->dst = c->src = c->index = contig(2, (int64_t[]){4096, 4096});
  for (int u = 0; u < 2; u++) {
    c = add_index(u ? "scatter rows fp32 32768 of 256 into 65536, UNIQUE"
                    : "scatter rows fp32 32768 of 256 into 65536",
                  u ? 0.85 : 0.50, 32, true, u ? NDX_INDEX_UNIQUE : 0);
    c->unique = true;
    c->index = row_index(32768, 256);
    c->src = contig(2, (int64_t[]){32768, 256});
    c->dst = contig(2, (int64_t[]){65536, 256});
  }
  return nicases;
}

int32_t *gpu_index_values(const gpu_index_case *c, size_t n, const char *who) {
  int64_t d = (c->scatter ? &c->dst : &c->src)->shape[c->axis];
  int32_t *v = malloc((n ? n : 1) * sizeof *v), *perm = c->unique ? malloc(d * sizeof *perm) : NULL;
  if (!v || (c->unique && !perm)) {
    fprintf(stderr, "%s: out of memory for the index values of %s\n", who, c->name);
    exit(1);
  }
  oracle_rng r = {7};
  for (int64_t k = 0; c->unique && k < d; k++) perm[k] = (int32_t)k;
  for (int64_t k = d - 1; c->unique && k > 0; k--) {
    int64_t u = oracle_between(&r, 0, k);
    int32_t w = perm[k];
    perm[k] = perm[u];
    perm[u] = w;
  }
  for (size_t k = 0; k < n; k++)
    v[k] = c->unique ? perm[k % (size_t)d] : (int32_t)oracle_between(&r, 0, d - 1);
  free(perm);
  return v;
}
