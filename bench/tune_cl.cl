/* tune_cl.cl: the prototype kernels of ndx-tune-cl (tune_cl.c), embedded into
 * it by tools/embed.py and built once, -cl-std=CL1.2. Each is the plain form
 * of a technique ndx's copy kernels ship, or a variant of it, timed beside
 * ndx's path to retune it. A transpose copies a contiguous [R, C] source into
 * its contiguous transpose [C, R]: dst[j*R + i] = src[i*C + j].
 *
 *   proto_t*     scalar tiles of TS x TS (the tile sides)
 *   proto_w*     tiles in N x N register blocks transposed by shuffles (the
 *                register-block transposes of 8- to 32-bit elements)
 *   proto_b1_*   1-bit tiles in 8x8 bit blocks by delta swaps (the sub-byte
 *                word transposes)
 *   proto_thin   a transpose with one short side (the thin tiles)
 *   proto_slice2, proto_slice2v   a step-2 slice by a constant-stride loop
 *                and by explicit vectors (the constant-stride run loops)
 *   proto_flip, proto_flipv       a flipped inner axis, the same two ways */

/* The tile at (i0, j0) clipped by the matrix's edge, element by element. */
#define PROTO_CLIPPED(TS)                                                                          \
  long ni = R - i0 < TS ? R - i0 : TS, nj = C - j0 < TS ? C - j0 : TS;                             \
  for (long j = 0; j < nj; j++)                                                                    \
    for (long i = 0; i < ni; i++) dst[(j0 + j) * R + i0 + i] = src[(i0 + i) * C + j0 + j]

/* One TS x TS tile per work-item through a private array; ORDER 0: work-items
 * walk tile columns first (neighbours share source rows), 1: tile rows first
 * (neighbours share destination rows). */
#define PROTO_TILE(NAME, T, TS, ORDER)                                                             \
  __kernel void NAME(__global T *restrict dst, __global const T *restrict src, long R, long C) {   \
    long tr = (R + TS - 1) / TS, tc = (C + TS - 1) / TS, id = (long)get_global_id(0);              \
    if (id >= tr * tc) return;                                                                     \
    long ti = ORDER ? id % tr : id / tc, tj = ORDER ? id / tr : id % tc;                           \
    long i0 = ti * TS, j0 = tj * TS;                                                               \
    if (i0 + TS <= R && j0 + TS <= C) {                                                            \
      T t[TS][TS];                                                                                 \
      for (int i = 0; i < TS; i++)                                                                 \
        for (int j = 0; j < TS; j++) t[j][i] = src[(i0 + i) * C + j0 + j];                         \
      for (int j = 0; j < TS; j++)                                                                 \
        for (int i = 0; i < TS; i++) dst[(j0 + j) * R + i0 + i] = t[j][i];                         \
    } else {                                                                                       \
      PROTO_CLIPPED(TS);                                                                           \
    }                                                                                              \
  }
PROTO_TILE(proto_t32_16, uint, 16, 0)
PROTO_TILE(proto_t32_32, uint, 32, 0)
PROTO_TILE(proto_t16_32, ushort, 32, 0)
PROTO_TILE(proto_t8_64, uchar, 64, 0)

/* An 8 x 8 bit matrix in a ulong, row r in byte r (bit c of byte r is
 * element (r, c)), transposed by three delta swaps (Hacker's Delight 7-3). */
static inline ulong proto_t8x8(ulong x) {
  ulong t;
  t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAul;
  x = x ^ t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCul;
  x = x ^ t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ul;
  return x ^ t ^ (t << 28);
}

/* 1-bit: one work-item per block of 8*BR source rows x BC source bytes
 * (8*BC columns), as BR x BC 8x8 bit blocks: 8 bytes gathered (one per source
 * row), transposed in a ulong, scattered (one per destination row). R and C
 * multiples of 8 only (the prototype's cases are). */
#define PROTO_BITS1(NAME, BR, BC)                                                                  \
  __kernel void NAME(__global uchar *restrict dst, __global const uchar *restrict src, long R,     \
                     long C) {                                                                     \
    long rb = R / 8, cb = C / 8; /* 8x8 blocks down and across */                                  \
    long tr = (rb + BR - 1) / BR, tc = (cb + BC - 1) / BC, id = (long)get_global_id(0);            \
    if (id >= tr * tc) return;                                                                     \
    long bi0 = id / tc * BR, bj0 = id % tc * BC;                                                   \
    long bi1 = bi0 + BR < rb ? bi0 + BR : rb, bj1 = bj0 + BC < cb ? bj0 + BC : cb;                 \
    for (long bj = bj0; bj < bj1; bj++)                                                            \
      for (long bi = bi0; bi < bi1; bi++) {                                                        \
        ulong x = 0;                                                                               \
        for (int r = 0; r < 8; r++) x |= (ulong)src[(bi * 8 + r) * cb + bj] << (8 * r);            \
        x = proto_t8x8(x);                                                                         \
        for (int c = 0; c < 8; c++) dst[(bj * 8 + c) * rb + bi] = (uchar)(x >> (8 * c));           \
      }                                                                                            \
  }
PROTO_BITS1(proto_b1_8x8, 8, 8)
PROTO_BITS1(proto_b1_64x8, 64, 8)
PROTO_BITS1(proto_b1_8x64, 8, 64)

/* N x N blocks (N = 8 or 16) in registers: N rows by vloadN, then log2(N)
 * perfect shuffles (row 2i and 2i+1 become the low and high halves of the
 * element-wise interleave of rows i and i + N/2) leave the transpose; a
 * work-item walks a TS x TS tile N columns at a time, down the tile. */
#define PROTO_LO8(T, a, b) (T##8)(a.s0, b.s0, a.s1, b.s1, a.s2, b.s2, a.s3, b.s3)
#define PROTO_HI8(T, a, b) (T##8)(a.s4, b.s4, a.s5, b.s5, a.s6, b.s6, a.s7, b.s7)
#define PROTO_LO16(T, a, b)                                                                        \
  (T##16)(a.s0, b.s0, a.s1, b.s1, a.s2, b.s2, a.s3, b.s3, a.s4, b.s4, a.s5, b.s5, a.s6, b.s6,      \
          a.s7, b.s7)
#define PROTO_HI16(T, a, b)                                                                        \
  (T##16)(a.s8, b.s8, a.s9, b.s9, a.sa, b.sa, a.sb, b.sb, a.sc, b.sc, a.sd, b.sd, a.se, b.se,      \
          a.sf, b.sf)
#define PROTO_VN(NAME, T, N, TS)                                                                   \
  __kernel void NAME(__global T *restrict dst, __global const T *restrict src, long R, long C) {   \
    long tr = (R + TS - 1) / TS, tc = (C + TS - 1) / TS, id = (long)get_global_id(0);              \
    if (id >= tr * tc) return;                                                                     \
    long i0 = id / tc * TS, j0 = id % tc * TS;                                                     \
    if (i0 + TS <= R && j0 + TS <= C) {                                                            \
      for (int bj = 0; bj < TS; bj += N)                                                           \
        for (int bi = 0; bi < TS; bi += N) {                                                       \
          T##N x[N], y[N];                                                                         \
          for (int r = 0; r < N; r++) x[r] = vload##N(0, src + (i0 + bi + r) * C + j0 + bj);       \
          for (int round = 1; round < N; round *= 2) {                                             \
            for (int i = 0; i < N / 2; i++) {                                                      \
              y[2 * i] = PROTO_LO##N(T, x[i], x[i + N / 2]);                                       \
              y[2 * i + 1] = PROTO_HI##N(T, x[i], x[i + N / 2]);                                   \
            }                                                                                      \
            for (int i = 0; i < N; i++) x[i] = y[i];                                               \
          }                                                                                        \
          for (int c = 0; c < N; c++) vstore##N(x[c], 0, dst + (j0 + bj + c) * R + i0 + bi);       \
        }                                                                                          \
    } else {                                                                                       \
      PROTO_CLIPPED(TS);                                                                           \
    }                                                                                              \
  }
PROTO_VN(proto_w32_8x32, uint, 8, 32)
PROTO_VN(proto_w32_16x32, uint, 16, 32)
PROTO_VN(proto_w32_16x64, uint, 16, 64)
PROTO_VN(proto_w16_8x32, ushort, 8, 32)
PROTO_VN(proto_w16_16x64, ushort, 16, 64)
PROTO_VN(proto_w8_8x64, uchar, 8, 64)
PROTO_VN(proto_w8_16x64, uchar, 16, 64)

/* Slice [:, ::2] of a contiguous [R, C] (C even), flat: destination element
 * t is source element 2t; CH destination elements per work-item, the stride
 * a constant (the compiler may vectorize it: interleaved loads) or by
 * explicit vectors (two 16-loads, .even). */
__kernel void proto_slice2(__global uint *restrict dst, __global const uint *restrict src, long R,
                           long C) {
  long n = R * (C / 2), t0 = (long)get_global_id(0) * 256, t1 = t0 + 256 < n ? t0 + 256 : n;
  for (long t = t0; t < t1; t++) dst[t] = src[2 * t];
}
__kernel void proto_slice2v(__global uint *restrict dst, __global const uint *restrict src, long R,
                            long C) {
  long n = R * (C / 2), t0 = (long)get_global_id(0) * 256, t1 = t0 + 256 < n ? t0 + 256 : n;
  long t = t0;
  for (; t + 16 <= t1; t += 16) {
    uint16 a = vload16(0, src + 2 * t), b = vload16(0, src + 2 * t + 16);
    vstore16((uint16)(a.even, b.even), 0, dst + t);
  }
  for (; t < t1; t++) dst[t] = src[2 * t];
}

/* Flip of the inner axis of a contiguous [R, C]: a work-item per 256
 * elements of a row (C a multiple of 256 in the case), by scalars or by
 * 16-vectors reversed with a swizzle. */
__kernel void proto_flip(__global uint *restrict dst, __global const uint *restrict src, long R,
                         long C) {
  long id = (long)get_global_id(0), per = C / 256, r = id / per, k0 = id % per * 256;
  if (r >= R) return;
  for (long k = k0; k < k0 + 256; k++) dst[r * C + k] = src[r * C + C - 1 - k];
}
__kernel void proto_flipv(__global uint *restrict dst, __global const uint *restrict src, long R,
                          long C) {
  long id = (long)get_global_id(0), per = C / 256, r = id / per, k0 = id % per * 256;
  if (r >= R) return;
  for (long k = k0; k < k0 + 256; k += 16) {
    uint16 a = vload16(0, src + r * C + C - 16 - k);
    vstore16(a.sfedcba9876543210, 0, dst + r * C + k);
  }
}

/* A transpose with one short side (R or C <= 16): a work-item per 256
 * indices of the long side, every index of the short side inside, so that
 * both sides are a few streams. */
__kernel void proto_thin(__global uint *restrict dst, __global const uint *restrict src, long R,
                         long C) {
  long id = (long)get_global_id(0);
  if (R <= C) {
    long j0 = id * 256, j1 = j0 + 256 < C ? j0 + 256 : C;
    for (long j = j0; j < j1; j++)
      for (long i = 0; i < R; i++) dst[j * R + i] = src[i * C + j];
  } else {
    long i0 = id * 256, i1 = i0 + 256 < R ? i0 + 256 : R;
    for (long j = 0; j < C; j++)
      for (long i = i0; i < i1; i++) dst[j * R + i] = src[i * C + j];
  }
}
