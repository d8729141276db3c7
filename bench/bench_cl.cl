/* bench_cl.cl: the kernels ndx-bench --cl measures ndx against; embedded into
 * ndx-bench by tools/embed.py (ndx_device.h inlined), built twice like ndx's
 * own program, with -DNDX_WIDE=0 and -DNDX_WIDE=1.
 *
 *   bench_copy_v4      the ceiling: one uint4 per work-item
 *   bench_copy_v4x16   the ceiling: 16 consecutive uint4 (256 bytes) per item
 *   bench_copy_v16     the ceiling: one uint16 (64 bytes) per work-item
 *   bench_trivial      the raw enqueue: writes one word
 *   bench_naive_B      the naive peer: one element per work-item, both
 *                      positions from ndx_position (C-order index ->
 *                      position by magic division), B = 8 .. 128
 *   bench_naive_sub_B  the same for B = 1, 2, 4: one destination byte per
 *                      work-item (a contiguous destination at position 0),
 *                      its elements' source positions from ndx_position
 *   proto_*            prototypes of transpose, slice and flip kernels that
 *                      NDX_BENCH_PROTO=1 (or =only) times beside ndx's path
 *
 * The naive kernels take the pack of ndx_pack (not ndx_pack_copy): its C
 * order is the layouts', so operand 0 (a contiguous destination) has position
 * i at index i. */
#include "ndx/ndx_device.h"

__kernel void bench_copy_v4(__global const uint4 *restrict src, __global uint4 *restrict dst) {
  size_t i = get_global_id(0);
  dst[i] = src[i];
}

__kernel void bench_copy_v4x16(__global const uint4 *restrict src, __global uint4 *restrict dst) {
  size_t i = get_global_id(0) * 16;
  for (int k = 0; k < 16; k++) dst[i + k] = src[i + k];
}

__kernel void bench_copy_v16(__global const uint16 *restrict src, __global uint16 *restrict dst) {
  size_t i = get_global_id(0);
  dst[i] = src[i];
}

__kernel void bench_trivial(__global uint *out) {
  if (get_global_id(0) == 0) out[0] = 1u;
}

#define BENCH_NAIVE(B)                                                                             \
  __kernel void bench_naive_##B(__constant const ndx_pack_head *p, __global uchar *restrict dst,   \
                                __global const uchar *restrict src) {                              \
    long i = (long)get_global_id(0);                                                               \
    if (i >= p->numel) return;                                                                     \
    NDX_WORD pd = NDX_W(ndx_position)(p, 0, (NDX_WORD)i);                                          \
    NDX_WORD ps = NDX_W(ndx_position)(p, 1, (NDX_WORD)i);                                          \
    ndx_copy_elem(dst, pd, src, ps, B);                                                            \
  }
BENCH_NAIVE(8)
BENCH_NAIVE(16)
BENCH_NAIVE(32)
BENCH_NAIVE(64)
BENCH_NAIVE(128)

#define BENCH_NAIVE_SUB(B)                                                                         \
  __kernel void bench_naive_sub_##B(__constant const ndx_pack_head *p,                             \
                                    __global uchar *restrict dst,                                  \
                                    __global const uchar *restrict src) {                          \
    long b = (long)get_global_id(0);                                                               \
    long i0 = b * (8 / B);                                                                         \
    if (i0 >= p->numel) return;                                                                    \
    uint acc = 0u, mask = 0u;                                                                      \
    for (int e = 0; e < 8 / B && i0 + e < p->numel; e++) {                                         \
      NDX_WORD ps = NDX_W(ndx_position)(p, 1, (NDX_WORD)(i0 + e));                                 \
      acc |= ndx_load_bits(src, ps, B) << (e * B);                                                 \
      mask |= ((1u << B) - 1u) << (e * B);                                                         \
    }                                                                                              \
    dst[b] = (uchar)(mask == 0xffu ? acc : ((dst[b] & ~mask) | acc));                              \
  }
BENCH_NAIVE_SUB(1)
BENCH_NAIVE_SUB(2)
BENCH_NAIVE_SUB(4)

/* ---- Prototypes (NDX_BENCH_PROTO=1): transpose variants, to measure what a
 * change to ndx's kernels would gain. Each copies a contiguous [R, C] source
 * into its contiguous transpose [C, R]: dst[j*R + i] = src[i*C + j]. ---- */

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
      long ni = R - i0 < TS ? R - i0 : TS, nj = C - j0 < TS ? C - j0 : TS;                         \
      for (long j = 0; j < nj; j++)                                                                \
        for (long i = 0; i < ni; i++) dst[(j0 + j) * R + i0 + i] = src[(i0 + i) * C + j0 + j];     \
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

/* 4-bit: a work-item per TS x TS nibble tile (TS even), as 2x2 nibble blocks:
 * two source bytes (rows i, i+1, byte j/2) make two destination bytes. R and C
 * even only. */
#define PROTO_BITS4(NAME, TS)                                                                      \
  __kernel void NAME(__global uchar *restrict dst, __global const uchar *restrict src, long R,     \
                     long C) {                                                                     \
    long tr = (R + TS - 1) / TS, tc = (C + TS - 1) / TS, id = (long)get_global_id(0);              \
    if (id >= tr * tc) return;                                                                     \
    long i0 = id / tc * TS, j0 = id % tc * TS;                                                     \
    long i1 = i0 + TS < R ? i0 + TS : R, j1 = j0 + TS < C ? j0 + TS : C;                           \
    for (long j = j0; j < j1; j += 2)                                                              \
      for (long i = i0; i < i1; i += 2) {                                                          \
        uint a = src[(i * C + j) / 2], b = src[((i + 1) * C + j) / 2];                             \
        dst[(j * R + i) / 2] = (uchar)((a & 15u) | (b << 4));                                      \
        dst[((j + 1) * R + i) / 2] = (uchar)((a >> 4) | (b & 0xf0u));                              \
      }                                                                                            \
  }
PROTO_BITS4(proto_b4_16, 16)
PROTO_BITS4(proto_b4_64, 64)
PROTO_BITS4(proto_b4_128, 128)

/* 4 x 4 blocks through one vector shuffle: four rows of 4 (vload4) make a
 * 16-vector, .s048c159d26ae37bf is its transpose, and its quarters are the
 * destination rows (vstore4); a work-item walks a TS x TS tile 4 columns at a
 * time, down the tile. */
#define PROTO_V4(NAME, T, TS)                                                                      \
  __kernel void NAME(__global T *restrict dst, __global const T *restrict src, long R, long C) {   \
    long tr = (R + TS - 1) / TS, tc = (C + TS - 1) / TS, id = (long)get_global_id(0);              \
    if (id >= tr * tc) return;                                                                     \
    long i0 = id / tc * TS, j0 = id % tc * TS;                                                     \
    if (i0 + TS <= R && j0 + TS <= C) {                                                            \
      for (int bj = 0; bj < TS; bj += 4)                                                           \
        for (int bi = 0; bi < TS; bi += 4) {                                                       \
          __global const T *s = src + (i0 + bi) * C + j0 + bj;                                     \
          T##16 m =                                                                                \
              (T##16)(vload4(0, s), vload4(0, s + C), vload4(0, s + 2 * C), vload4(0, s + 3 * C)); \
          T##16 o = m.s048c159d26ae37bf;                                                           \
          __global T *d = dst + (j0 + bj) * R + i0 + bi;                                           \
          vstore4(o.s0123, 0, d);                                                                  \
          vstore4(o.s4567, 0, d + R);                                                              \
          vstore4(o.s89ab, 0, d + 2 * R);                                                          \
          vstore4(o.scdef, 0, d + 3 * R);                                                          \
        }                                                                                          \
    } else {                                                                                       \
      long ni = R - i0 < TS ? R - i0 : TS, nj = C - j0 < TS ? C - j0 : TS;                         \
      for (long j = 0; j < nj; j++)                                                                \
        for (long i = 0; i < ni; i++) dst[(j0 + j) * R + i0 + i] = src[(i0 + i) * C + j0 + j];     \
    }                                                                                              \
  }
PROTO_V4(proto_v32_16, uint, 16)
PROTO_V4(proto_v32_32, uint, 32)
PROTO_V4(proto_v16_32, ushort, 32)
PROTO_V4(proto_v8_64, uchar, 64)

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
      long ni = R - i0 < TS ? R - i0 : TS, nj = C - j0 < TS ? C - j0 : TS;                         \
      for (long j = 0; j < nj; j++)                                                                \
        for (long i = 0; i < ni; i++) dst[(j0 + j) * R + i0 + i] = src[(i0 + i) * C + j0 + j];     \
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
