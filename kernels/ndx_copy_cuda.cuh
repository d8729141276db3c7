/* ndx_copy_cuda.cuh: the bodies of ndx's CUDA copy kernels.
 *
 * Every body is a __host__ __device__ function of the kernel's arguments and
 * of a thread's coordinates, split at each __syncthreads into phases, so
 * that kernels/ndx_copy.cu wraps them into kernels and
 * tests/test_cuda_emulate.cu runs them thread by thread on the host (phase by
 * phase for all threads of a block: exactly what the barriers guarantee).
 * The index math is ndx_device.h's (magic-number division, positions) and
 * ndx_copy_items.h's (sub-byte byte ranges); what is here is the GPU shape
 * of the work: which thread takes which elements, vector accesses and
 * shared-memory tiles.
 * kernels/ndx_cuda_args.h describes each kernel. */
#ifndef NDX_COPY_CUDA_CUH
#define NDX_COPY_CUDA_CUH

#include <stdint.h>

#define NDX_WIDE 0
#include "ndx_copy_items.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_copy_items.h"
#undef NDX_WIDE

#include "ndx_cuda_args.h"

#define NDX_HD __host__ __device__ __forceinline__

/* Loop unrolling for the device pass only (the host compiler knows no
 * such pragma). */
#if defined(NDX_GPU_DEVICE_PASS)
#define NDX_UNROLL _Pragma("unroll")
#define NDX_UNROLL4 _Pragma("unroll 4")
#define NDX_NO_UNROLL _Pragma("unroll 1")
#else
#define NDX_NO_UNROLL
#define NDX_UNROLL
#define NDX_UNROLL4
#endif

/* Under the host emulator (NDX_CUDA_EMULATE), every typed access of a
 * kernel here is checked: aligned to its size, as the GPU requires, and
 * inside the bytes of its operand's span (tests/test_cuda_emulate.cu sets
 * the bounds and counts the faults). Nothing on the GPU. */
#if defined(NDX_CUDA_EMULATE) && !defined(NDX_GPU_DEVICE_PASS)
extern const unsigned char *ndx_emu_lo[2], *ndx_emu_hi[2];
extern long long ndx_emu_faults;
#define NDX_ACCESS(op, ptr, n)                                                                     \
  ((((uintptr_t)(ptr) % (uintptr_t)(n)) != 0 || (const unsigned char *)(ptr) < ndx_emu_lo[op] ||   \
    (const unsigned char *)(ptr) + (n) > ndx_emu_hi[op])                                           \
       ? (void)ndx_emu_faults++                                                                    \
       : (void)0)
#else
#define NDX_ACCESS(op, ptr, n) ((void)0)
#endif

namespace ndx_cuda {

/* ---- The index form: header functions of one width ----------------------- */

/* ix<0> calls the 32-bit form (ndx_..._w32), ix<1> the 64-bit one. */
template <int W> struct ix;
#define NDX_IX(W, WN, WORD, MAGIC)                                                                 \
  template <> struct ix<W> {                                                                       \
    typedef WORD word;                                                                             \
    static NDX_HD word position(const ndx_pack_head *p, int k, word i) {                           \
      return ndx_position_##WN(p, k, i);                                                           \
    }                                                                                              \
    static NDX_HD word position_lead(const ndx_pack_head *p, int k, word i, int lead) {            \
      return ndx_position_lead_##WN(p, k, i, lead);                                                \
    }                                                                                              \
    static NDX_HD word offset(const ndx_pack_head *p, int k) {                                     \
      return ndx_offset_##WN(p, k);                                                                \
    }                                                                                              \
    static NDX_HD word extent(const ndx_pack_head *p, int a) {                                     \
      return ndx_extent_##WN(p, a);                                                                \
    }                                                                                              \
    static NDX_HD word stride(const ndx_pack_head *p, int k, int a) {                              \
      return ndx_stride_##WN(p, k, a);                                                             \
    }                                                                                              \
    static NDX_HD MAGIC magic(const ndx_pack_head *p, int a) {                                     \
      return ndx_magic_##WN(p, a);                                                                 \
    }                                                                                              \
    static NDX_HD int shift(const ndx_pack_head *p, int a) {                                       \
      return ndx_shift_##WN(p, a);                                                                 \
    }                                                                                              \
    static NDX_HD word div(word n, MAGIC m, int l) {                                               \
      return ndx_div_##WN(n, m, l);                                                                \
    }                                                                                              \
    static NDX_HD void copy_bytes_item(const ndx_pack_head *p, ndx_u8 *dst, const ndx_u8 *src,     \
                                       int bits, ndx_i64 item, ndx_i64 chunk) {                    \
      ndx_copy_bytes_item_##WN(p, dst, src, bits, item, chunk);                                    \
    }                                                                                              \
  };
NDX_IX(0, w32, ndx_i32, ndx_u32)
NDX_IX(1, w64, ndx_i64, ndx_u64)
#undef NDX_IX

static NDX_HD const ndx_pack_head *pack_of(const ndx_cuda_args &a) {
  return (const ndx_pack_head *)a.pack;
}

/* n / d for n < 2^63 by d's 64-bit magic pair (ndx_pack_magic). */
static NDX_HD int64_t div64(int64_t n, uint64_t m, int s) {
  return ndx_div_w64(n, m, s);
}
/* n / d for n < 2^31 by d's 32-bit magic pair. */
static NDX_HD int32_t div32(int32_t n, uint32_t m, int s) {
  return ndx_div_w32(n, m, s);
}

/* ---- Elements and vectors of a given size in bytes ----------------------- */

template <int B> struct vec;
template <> struct vec<1> { typedef ndx_u8 t; };
template <> struct vec<2> { typedef ndx_u16 t; };
template <> struct vec<4> { typedef ndx_u32 t; };
template <> struct vec<8> { typedef ndx_u64 t; };
template <> struct vec<16> { typedef uint4 t; };

/* Reverses the order of the ES-byte elements inside a VB-byte vector (a
 * flipped source read as one aligned vector). */
static NDX_HD ndx_u32 bytes_reversed(ndx_u32 w) {
  return (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) | (w << 24);
}
static NDX_HD ndx_u32 halves_swapped(ndx_u32 w) {
  return (w >> 16) | (w << 16);
}
template <int ES> static NDX_HD uint4 reverse16(uint4 v) {
  if (ES == 16) return v;
  if (ES == 8) return make_uint4(v.z, v.w, v.x, v.y);
  if (ES == 4) return make_uint4(v.w, v.z, v.y, v.x);
  if (ES == 2)
    return make_uint4(halves_swapped(v.w), halves_swapped(v.z), halves_swapped(v.y),
                      halves_swapped(v.x));
  return make_uint4(bytes_reversed(v.w), bytes_reversed(v.z), bytes_reversed(v.y),
                    bytes_reversed(v.x));
}

/* ---- rows and gather: items of `vel` elements, positions by magic division */

/* Thread `tid` of `nthreads` takes items tid, tid + nthreads, ... ; it issues
 * NDX_CUDA_UNROLL(VB) loads before their stores so that several are in flight,
 * and consecutive threads take consecutive items (coalesced when the
 * innermost strides are +-1). */
template <int W, int ES, int VB, int MODE>
NDX_HD void flat_body(const ndx_cuda_args &a, ndx_u8 *__restrict__ dst,
                      const ndx_u8 *__restrict__ src, int64_t tid, int64_t nthreads) {
  typedef typename ix<W>::word word;
  typedef typename vec<VB>::t V;
  const int VEL = VB / ES, U = NDX_CUDA_UNROLL(VB);
  const ndx_pack_head *p = pack_of(a);
  for (int64_t first = tid; first < a.count; first += nthreads * U) {
    V v[U] = {};
    word pd[U] = {};
    NDX_UNROLL
    for (int u = 0; u < U; u++) {
      int64_t item = first + u * nthreads;
      if (item < a.count) {
        word e = (word)(item * VEL);
        pd[u] = ix<W>::position(p, 0, e);
        word ps = ix<W>::position(p, 1, e);
        if (MODE == NDX_CUDA_GATHER_FLIP) ps -= VEL - 1;
        NDX_ACCESS(1, src + (int64_t)ps * ES, VB);
        v[u] = *(const V *)(src + (int64_t)ps * ES);
      }
    }
    NDX_UNROLL
    for (int u = 0; u < U; u++) {
      int64_t item = first + u * nthreads;
      if (item < a.count) {
        V w = v[u];
        if constexpr (MODE == NDX_CUDA_GATHER_FLIP && VB == 16) w = reverse16<ES>(w);
        NDX_ACCESS(0, dst + (int64_t)pd[u] * ES, VB);
        *(V *)(dst + (int64_t)pd[u] * ES) = w;
      }
    }
  }
}

/* ---- transpose: batched 2-d transposes through shared memory ------------- */

/* The pack is permuted to [batch..., (K2), K, (J2), J]: K has the source's
 * unit stride, J the destination's; a short K (J) is grouped with K2 (J2),
 * the axis that continues its run in the source (destination), so that a
 * tile side still spans a long run. A tile covers group indices [k0, k0+tk)
 * and [j0, j0+tj) for tb batch entries; it is read down the k group and
 * written along the j group.
 *
 * Shared memory of a transpose block: the batch entries' positions, the tile's
 * origin and valid extents, and its elements, row kk at pitch tj | 1 (an odd
 * pitch in elements: consecutive kk of one jj fall in different banks). */
template <int ES> struct tile_smem {
  int64_t base[2][NDX_CUDA_TILE_BATCH];
  int64_t k0, j0;
  int32_t kn, jn, bn;
  typename vec<ES>::t data[2 * NDX_CUDA_TILE_ELEMS];
};

/* Splits tile index t into (batch block, k tile, j tile). */
static NDX_HD void tile_split(const ndx_cuda_args &a, int64_t t, int64_t *bt, int64_t *ik,
                              int64_t *ij) {
  int64_t q = div64(t, a.mnj, a.snj);
  *ij = t - q * a.nj;
  *bt = div64(q, a.mnk, a.snk);
  *ik = q - *bt * a.nk;
}

/* e = (hi * n + lo) for tile extent n (tk when which is 0, tj when 1).
 * POW2: the extents are powers of two (a.pow2). */
template <bool POW2>
static NDX_HD void tile_digit(const ndx_cuda_args &a, int which, int32_t e, int32_t *lo,
                              int32_t *hi) {
  int32_t q;
  if (POW2) {
    q = e >> (which ? a.lj : a.lk);
    *lo = e & ((which ? a.tj : a.tk) - 1);
  } else {
    q = div32(e, which ? a.mj : a.mk, which ? a.sj : a.sk);
    *lo = e - q * (which ? a.tj : a.tk);
  }
  *hi = q;
}

/* One side of a tile group, read from the pack once per phase: the offset
 * in one operand of index g of the k group or the j group, g along the
 * inner axis alone, or split over (outer, inner) by the pack's magic
 * numbers of the inner extent. */
template <int W> struct group {
  typedef typename ix<W>::word word;
  word s_in, s_out, d_in;
  decltype(ix<W>::magic(nullptr, 0)) m;
  int l;
  template <bool SPLIT> NDX_HD word offset(word g) const {
    if (!SPLIT) return g * s_in;
    word q = ix<W>::div(g, m, l);
    return (g - q * d_in) * s_in + q * s_out;
  }
};

/* The k group (which 0) or the j group (which 1) of operand `op`. */
template <int W>
NDX_HD group<W> group_of(const ndx_cuda_args &a, const ndx_pack_head *p, int which, int op) {
  int r = (int)p->rank, in = which ? r - 1 : r - 2 - a.gj;
  group<W> g;
  g.s_in = ix<W>::stride(p, op, in);
  g.s_out = (which ? a.gj : a.gk) ? ix<W>::stride(p, op, in - 1) : 0;
  g.d_in = ix<W>::extent(p, in);
  g.m = ix<W>::magic(p, in);
  g.l = ix<W>::shift(p, in);
  return g;
}

/* Phase 0: thread 0 places the tile, threads below tb find their batch
 * entry's positions; the others only wait at the barrier. */
template <int W, int ES, bool SIMPLE>
NDX_HD void tile_bases(const ndx_cuda_args &a, tile_smem<ES> &s, int64_t t, int tid) {
  typedef typename ix<W>::word word;
  if (tid != 0 && tid >= a.tb) return;
  const ndx_pack_head *p = pack_of(a);
  int64_t bt, ik, ij;
  tile_split(a, t, &bt, &ik, &ij);
  int64_t k0 = ik * a.tk, j0 = ij * a.tj, b0 = bt * a.tb;
  if (tid == 0) {
    s.k0 = k0, s.j0 = j0;
    s.kn = (int32_t)(a.dk - k0 < a.tk ? a.dk - k0 : a.tk);
    s.jn = (int32_t)(a.dj - j0 < a.tj ? a.dj - j0 : a.tj);
    s.bn = (int32_t)(a.nbatch - b0 < a.tb ? a.nbatch - b0 : a.tb);
  }
  if (tid < a.tb && b0 + tid < a.nbatch) {
    int lead = (int)p->rank - 2 - a.gk - a.gj;
    for (int k = 0; k < 2; k++) s.base[k][tid] = ix<W>::position_lead(p, k, (word)(b0 + tid), lead);
  }
}

/* Phase 1: read the tile down the k group (the source's unit stride) into
 * shared memory, four loads in flight per thread. */
template <int W, int ES, bool SIMPLE>
NDX_HD void tile_load(const ndx_cuda_args &a, tile_smem<ES> &s, const ndx_u8 *__restrict__ src,
                      int tid) {
  typedef typename ix<W>::word word;
  typedef typename vec<ES>::t T;
  const ndx_pack_head *p = pack_of(a);
  const int32_t pitch = a.tj | 1, n = a.tb * a.tk * a.tj;
  const int32_t kn = s.kn, jn = s.jn, bn = s.bn;
  const word k0 = (word)s.k0, j0 = (word)s.j0;
  const group<W> gk = group_of<W>(a, p, 0, 1), gj = group_of<W>(a, p, 1, 1);
  const T *S = (const T *)src;
  for (int32_t e0 = tid; e0 < n; e0 += NDX_CUDA_THREADS * 4) {
    T v[4] = {};
    int32_t at[4];
    NDX_UNROLL
    for (int u = 0; u < 4; u++) {
      int32_t e = e0 + u * NDX_CUDA_THREADS, kk, jj, bb, q;
      at[u] = -1;
      if (e >= n) continue;
      tile_digit<SIMPLE>(a, 0, e, &kk, &q);
      tile_digit<SIMPLE>(a, 1, q, &jj, &bb);
      if (bb < bn && jj < jn && kk < kn) {
        word pos = (word)s.base[1][bb];
        if (SIMPLE)
          pos += gk.template offset<false>(k0 + kk) + gj.template offset<false>(j0 + jj);
        else
          pos += (a.gk ? gk.template offset<true>(k0 + kk) : gk.template offset<false>(k0 + kk)) +
                 (a.gj ? gj.template offset<true>(j0 + jj) : gj.template offset<false>(j0 + jj));
        NDX_ACCESS(1, S + (int64_t)pos, ES);
        v[u] = S[(int64_t)pos];
        at[u] = (bb * a.tk + kk) * pitch + jj;
      }
    }
    NDX_UNROLL
    for (int u = 0; u < 4; u++)
      if (at[u] >= 0) s.data[at[u]] = v[u];
  }
}

/* Phase 2: write the tile along the j group (the destination's unit stride). */
template <int W, int ES, bool SIMPLE>
NDX_HD void tile_store(const ndx_cuda_args &a, tile_smem<ES> &s, ndx_u8 *__restrict__ dst,
                       int tid) {
  typedef typename ix<W>::word word;
  typedef typename vec<ES>::t T;
  const ndx_pack_head *p = pack_of(a);
  const int32_t pitch = a.tj | 1, n = a.tb * a.tk * a.tj;
  const int32_t kn = s.kn, jn = s.jn, bn = s.bn;
  const word k0 = (word)s.k0, j0 = (word)s.j0;
  const group<W> gk = group_of<W>(a, p, 0, 0), gj = group_of<W>(a, p, 1, 0);
  T *D = (T *)dst;
  for (int32_t e = tid; e < n; e += NDX_CUDA_THREADS) {
    int32_t kk, jj, bb, q;
    tile_digit<SIMPLE>(a, 1, e, &jj, &q);
    tile_digit<SIMPLE>(a, 0, q, &kk, &bb);
    if (bb < bn && jj < jn && kk < kn) {
      word pos = (word)s.base[0][bb];
      if (SIMPLE)
        pos += gk.template offset<false>(k0 + kk) + gj.template offset<false>(j0 + jj);
      else
        pos += (a.gk ? gk.template offset<true>(k0 + kk) : gk.template offset<false>(k0 + kk)) +
               (a.gj ? gj.template offset<true>(j0 + jj) : gj.template offset<false>(j0 + jj));
      NDX_ACCESS(0, D + (int64_t)pos, ES);
      D[(int64_t)pos] = s.data[(bb * a.tk + kk) * pitch + jj];
    }
  }
}

/* ---- transpose-words: 1..16-bit elements by 32-bit words ----------------- */

/* Bits of the elements i < E (B bits each) of a word whose index has bit S
 * clear. */
template <int B, int E, int S> __host__ __device__ constexpr ndx_u32 stage_mask() {
  ndx_u32 m = 0;
  for (int i = 0; i < E; i++)
    if ((i & S) == 0) m |= (ndx_u32)((1ull << B) - 1) << (i * B);
  return m;
}

/* Transposes the E x E matrix of B-bit elements held as E words (word m is
 * row m, element i of it at bits i*B): afterwards word i is column i. Stage S
 * swaps the elements (m, i) and (m ^ S, i ^ S) whose bit S differs. */
template <int B, int E, int S> struct word_transpose {
  static NDX_HD void run(ndx_u32 *w) {
    constexpr ndx_u32 M = stage_mask<B, E, S>();
    NDX_UNROLL
    for (int m = 0; m < E; m++) {
      if (m & S) continue;
      ndx_u32 x = w[m], y = w[m + S];
      w[m] = (x & M) | ((y << (S * B)) & ~M);
      w[m + S] = ((x >> (S * B)) & M) | (y & ~M);
    }
    word_transpose<B, E, S / 2>::run(w);
  }
};
template <int B, int E> struct word_transpose<B, E, 0> {
  static NDX_HD void run(ndx_u32 *) {}
};

/* Tile: 32 words (32*E elements) along k, 8 blocks of E elements along j; the
 * block's thread tid is lane kw = tid % 32 of warp jb = tid / 32. */
#define NDX_WORDS_KW 32
#define NDX_WORDS_JB 8

/* Shared memory of a transpose-words block: row k (0 .. 32E-1) holds the tile's 8
 * destination words of that k, at word k*8 + k/E + jb; the k/E skew puts the
 * 32 lanes that write one (i, jb) in 32 different banks. */
template <int B> struct words_smem {
  ndx_u32 w[NDX_WORDS_KW * (32 / B) * NDX_WORDS_JB + NDX_WORDS_KW];
};

/* The tile's batch entry and its first k and j. */
static NDX_HD void words_origin(const ndx_cuda_args &a, int64_t t, int64_t *b, int64_t *k0,
                                int64_t *j0) {
  int64_t ik, ij;
  tile_split(a, t, b, &ik, &ij);
  *k0 = ik * a.tk;
  *j0 = ij * a.tj;
}

/* Phase 1: read E source words down j, transpose them, hand them on. */
template <int W, int B>
NDX_HD void words_load(const ndx_cuda_args &a, words_smem<B> &s, const ndx_u8 *__restrict__ src,
                       int64_t t, int tid) {
  typedef typename ix<W>::word word;
  const int E = 32 / B;
  const ndx_pack_head *p = pack_of(a);
  int r = (int)p->rank;
  int64_t b, k0, j0;
  words_origin(a, t, &b, &k0, &j0);
  int kw = tid % NDX_WORDS_KW, jb = tid / NDX_WORDS_KW;
  word ssj = ix<W>::stride(p, 1, r - 1);
  word base = ix<W>::position_lead(p, 1, (word)b, r - 2) + (word)k0 +
              (word)(j0 + jb * E) * ssj; /* a multiple of E: word aligned */
  const ndx_u32 *S = (const ndx_u32 *)src;
  ndx_u32 w[E];
  NDX_UNROLL
  for (int m = 0; m < E; m++) {
    const ndx_u32 *at = S + (int64_t)((base + (word)m * ssj) / E) + kw;
    NDX_ACCESS(1, at, 4);
    w[m] = *at;
  }
  word_transpose<B, E, E / 2>::run(w);
  NDX_UNROLL
  for (int i = 0; i < E; i++) s.w[(kw * E + i) * NDX_WORDS_JB + kw + jb] = w[i];
}

/* Phase 2: write the tile's destination words, 8 consecutive per k. */
template <int W, int B>
NDX_HD void words_store(const ndx_cuda_args &a, words_smem<B> &s, ndx_u8 *__restrict__ dst,
                        int64_t t, int tid) {
  typedef typename ix<W>::word word;
  const int E = 32 / B;
  const ndx_pack_head *p = pack_of(a);
  int r = (int)p->rank;
  int64_t b, k0, j0;
  words_origin(a, t, &b, &k0, &j0);
  word sdk = ix<W>::stride(p, 0, r - 2);
  word base = ix<W>::position_lead(p, 0, (word)b, r - 2) + (word)k0 * sdk + (word)j0;
  ndx_u32 *D = (ndx_u32 *)dst;
  NDX_UNROLL4
  for (int q = 0; q < E; q++) {
    int idx = q * NDX_CUDA_THREADS + tid;
    int kl = idx / NDX_WORDS_JB, jb = idx % NDX_WORDS_JB;
    ndx_u32 *at = D + (int64_t)((base + (word)kl * sdk) / E) + jb;
    NDX_ACCESS(0, at, 4);
    *at = s.w[kl * NDX_WORDS_JB + kl / E + jb];
  }
}

/* ---- BYTES: sub-byte destinations, whole bytes per thread ---------------- */

template <int W, int B>
NDX_HD void bytes_body(const ndx_cuda_args &a, ndx_u8 *__restrict__ dst,
                       const ndx_u8 *__restrict__ src, int64_t tid, int64_t nthreads) {
  for (int64_t item = tid; item < a.count; item += nthreads)
    ix<W>::copy_bytes_item(pack_of(a), dst, src, B, item, a.chunk);
}

/* ---- transpose-32x8: 32x32 tiles, 32x8 threads, one barrier per tile ----- */

/* transpose's pack and groups (k group read down the source's unit stride,
 * j group written along the destination's), tiles of NDX_CUDA_T32_SIDE
 * square, one batch entry each. The block's thread tid is column
 * tx = tid % 32 of row ty = tid / 32. Shared memory: two tiles taken in
 * turn, so that one barrier per tile is enough (a thread that writes tile
 * n+1 into one buffer has passed barrier n, after every thread's reads of
 * tile n-1 from it); row jj holds the tile's elements of that j at pitch
 * 33, so the 32 threads of a row touch 32 banks on both sides. */
#define NDX_T32 NDX_CUDA_T32_SIDE
static_assert(NDX_CUDA_T32_SIDE * NDX_CUDA_T32_ROWS == NDX_CUDA_THREADS &&
                  NDX_CUDA_T32_SIDE % NDX_CUDA_T32_ROWS == 0,
              "a transpose-32x8 block is 32 columns of threads by whole rows");
static_assert(NDX_CUDA_THREADS % NDX_CUDA_ROW_THREADS == 0, "a block holds whole row groups");
static_assert(NDX_CUDA_ROW_VECTOR == 16, "warp-rows assembles uint4 vectors");
template <int ES> struct t32_smem { typename vec<ES>::t data[2][NDX_T32][NDX_T32 + 1]; };

/* One tile, placed by every thread from its block's coordinates: the batch
 * entry's positions and the tile's origin and valid extents. */
template <int W> struct t32_tile {
  typename ix<W>::word base[2], k0, j0;
  int32_t kn, jn;
};

template <int W>
NDX_HD t32_tile<W> t32_place(const ndx_cuda_args &a, int64_t b, int64_t ik, int64_t ij) {
  typedef typename ix<W>::word word;
  const ndx_pack_head *p = pack_of(a);
  int lead = (int)p->rank - 2 - a.gk - a.gj;
  t32_tile<W> t;
  for (int k = 0; k < 2; k++) t.base[k] = ix<W>::position_lead(p, k, (word)b, lead);
  t.k0 = (word)ik * NDX_T32, t.j0 = (word)ij * NDX_T32;
  word kl = (word)a.dk - t.k0, jl = (word)a.dj - t.j0;
  t.kn = (int32_t)(kl < NDX_T32 ? kl : NDX_T32);
  t.jn = (int32_t)(jl < NDX_T32 ? jl : NDX_T32);
  return t;
}

/* A block's walk over its tiles: tile (b, ik, ij) from its coordinates
 * blk[] (x: ij, y: ik, z: b), then on by the grid's extents g[], j fastest;
 * buf is the shared buffer of the current tile. The kernel and the host
 * emulator take the same walk. */
struct t32_walk {
  int64_t b, ik, ij;
  int buf;
};

static NDX_HD bool t32_start(const ndx_cuda_args &a, const uint32_t *blk, t32_walk *w) {
  w->b = blk[2], w->ik = blk[1], w->ij = blk[0], w->buf = 0;
  return w->b < a.nbatch && w->ik < a.nk && w->ij < a.nj;
}

static NDX_HD bool t32_next(const ndx_cuda_args &a, const uint32_t *blk, const uint32_t *g,
                            t32_walk *w) {
  w->buf ^= 1;
  if ((w->ij += g[0]) < a.nj) return true;
  w->ij = blk[0];
  if ((w->ik += g[1]) < a.nk) return true;
  w->ik = blk[1];
  return (w->b += g[2]) < a.nbatch;
}

/* The offset of index g of a group, split over (outer, inner) when the
 * group has an outer axis. */
template <int W>
NDX_HD typename ix<W>::word t32_offset(const group<W> &g, int grouped, typename ix<W>::word i) {
  return grouped ? g.template offset<true>(i) : g.template offset<false>(i);
}

/* Phase 1: thread (tx, ty) reads k = k0 + tx of rows j = j0 + ty + 8i (the
 * source's unit stride across the 32 threads of a row), all loads before
 * the shared stores. */
template <int W, int ES>
NDX_HD void t32_load(const ndx_cuda_args &a, const t32_tile<W> &t,
                     typename vec<ES>::t (*sm)[NDX_T32 + 1], const ndx_u8 *__restrict__ src,
                     int tid) {
  typedef typename ix<W>::word word;
  typedef typename vec<ES>::t T;
  const int R = NDX_T32 / NDX_CUDA_T32_ROWS;
  int tx = tid % NDX_T32, ty = tid / NDX_T32;
  if (tx >= t.kn) return;
  const ndx_pack_head *p = pack_of(a);
  const group<W> gk = group_of<W>(a, p, 0, 1), gj = group_of<W>(a, p, 1, 1);
  const T *S = (const T *)src;
  word at = t.base[1] + t32_offset<W>(gk, a.gk, t.k0 + tx);
  T v[R] = {};
  NDX_UNROLL
  for (int i = 0; i < R; i++) {
    int jj = ty + i * NDX_CUDA_T32_ROWS;
    if (jj < t.jn) {
      word pos = at + t32_offset<W>(gj, a.gj, t.j0 + jj);
      NDX_ACCESS(1, S + (int64_t)pos, ES);
      v[i] = S[(int64_t)pos];
    }
  }
  NDX_UNROLL
  for (int i = 0; i < R; i++) {
    int jj = ty + i * NDX_CUDA_T32_ROWS;
    if (jj < t.jn) sm[jj][tx] = v[i];
  }
}

/* Phase 2: thread (tx, ty) writes j = j0 + tx of rows k = k0 + ty + 8i (the
 * destination's unit stride across a row of threads). */
template <int W, int ES>
NDX_HD void t32_store(const ndx_cuda_args &a, const t32_tile<W> &t,
                      const typename vec<ES>::t (*sm)[NDX_T32 + 1], ndx_u8 *__restrict__ dst,
                      int tid) {
  typedef typename ix<W>::word word;
  typedef typename vec<ES>::t T;
  const int R = NDX_T32 / NDX_CUDA_T32_ROWS;
  int tx = tid % NDX_T32, ty = tid / NDX_T32;
  if (tx >= t.jn) return;
  const ndx_pack_head *p = pack_of(a);
  const group<W> gk = group_of<W>(a, p, 0, 0), gj = group_of<W>(a, p, 1, 0);
  T *D = (T *)dst;
  word at = t.base[0] + t32_offset<W>(gj, a.gj, t.j0 + tx);
  NDX_UNROLL
  for (int i = 0; i < R; i++) {
    int kk = ty + i * NDX_CUDA_T32_ROWS;
    if (kk < t.kn) {
      word pos = at + t32_offset<W>(gk, a.gk, t.k0 + kk);
      NDX_ACCESS(0, D + (int64_t)pos, ES);
      D[(int64_t)pos] = sm[tx][kk];
    }
  }
}

/* ---- warp-rows: NDX_CUDA_ROW_THREADS threads per destination row ---------- */

/* Element e of the row: one element moved. */
template <int ES>
NDX_HD void row_element(ndx_u8 *__restrict__ dst, const ndx_u8 *__restrict__ src, int64_t pd,
                        int64_t sd, int64_t ps, int64_t ss, int64_t e) {
  typedef typename vec<ES>::t T;
  const T *S = (const T *)src + ps + e * ss;
  T *D = (T *)dst + pd + e * sd;
  NDX_ACCESS(1, S, ES);
  NDX_ACCESS(0, D, ES);
  *D = *S;
}

/* Vectors lane, lane + 32, ... of nv, aligned on both sides: four loads in
 * flight before their stores. */
template <int VB>
NDX_HD void row_vectors(const typename vec<VB>::t *__restrict__ S,
                        typename vec<VB>::t *__restrict__ D, int64_t nv, int lane) {
  typedef typename vec<VB>::t V;
  const int L = NDX_CUDA_ROW_THREADS, U = 4;
  for (int64_t v0 = lane; v0 < nv; v0 += (int64_t)L * U) {
    V w[U] = {};
    NDX_UNROLL
    for (int u = 0; u < U; u++)
      if (v0 + u * L < nv) {
        NDX_ACCESS(1, S + v0 + u * L, VB);
        w[u] = S[v0 + u * L];
      }
    NDX_UNROLL
    for (int u = 0; u < U; u++)
      if (v0 + u * L < nv) {
        NDX_ACCESS(0, D + v0 + u * L, VB);
        D[v0 + u * L] = w[u];
      }
  }
}

/* The 16-byte vector of 16 / ES elements e[0 ..] (element 0 lowest, as a
 * vector load on these little-endian machines gives it). */
template <int ES> static NDX_HD uint4 assembled(const typename vec<ES>::t *e) {
  if constexpr (ES == 16) {
    return e[0];
  } else {
    ndx_u32 w[4];
    NDX_UNROLL
    for (int k = 0; k < 4; k++) {
      if constexpr (ES == 8) {
        w[k] = (ndx_u32)(e[k / 2] >> (32 * (k % 2)));
      } else {
        ndx_u32 x = 0;
        NDX_UNROLL
        for (int i = 0; i < 4 / ES; i++) x |= (ndx_u32)e[k * (4 / ES) + i] << (8 * ES * i);
        w[k] = x;
      }
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
  }
}

/* Destination vectors lane, lane + 32, ... of nv, each assembled from its
 * elements read one by one at source stride ss (0: one element repeated). */
template <int ES>
NDX_HD void row_assembled(const typename vec<ES>::t *__restrict__ S, int64_t ss,
                          uint4 *__restrict__ D, int64_t nv, int lane) {
  typedef typename vec<ES>::t T;
  const int VEL = 16 / ES;
  for (int64_t v = lane; v < nv; v += NDX_CUDA_ROW_THREADS) {
    T e[VEL];
    NDX_UNROLL
    for (int i = 0; i < VEL; i++) {
      const T *at = S + (v * VEL + i) * ss;
      NDX_ACCESS(1, at, ES);
      e[i] = *at;
    }
    NDX_ACCESS(0, D + v, 16);
    D[v] = assembled<ES>(e);
  }
}

/* Thread `lane` of a row's threads copies the row whose first elements are
 * at pd (destination, stride sd) and ps (source, stride ss), n elements:
 * with sd == 1, the head up to the destination's first 16-byte boundary
 * and the tail one element per thread (both are shorter than a vector), the
 * vectors between one per thread in turn (read as vectors where ss == 1 and
 * the source is aligned there too, else element by element); otherwise
 * every element on its own. */
template <int ES>
NDX_HD void row_body(ndx_u8 *__restrict__ dst, const ndx_u8 *__restrict__ src, int64_t pd,
                     int64_t sd, int64_t ps, int64_t ss, int64_t n, int lane) {
  typedef typename vec<ES>::t T;
  typedef typename vec<NDX_CUDA_ROW_VECTOR>::t V;
  const int VEL = NDX_CUDA_ROW_VECTOR / ES;
  if (sd != 1) {
    NDX_NO_UNROLL
    for (int64_t e = lane; e < n; e += NDX_CUDA_ROW_THREADS)
      row_element<ES>(dst, src, pd, sd, ps, ss, e);
    return;
  }
  int off = (int)((uintptr_t)(dst + pd * ES) % NDX_CUDA_ROW_VECTOR);
  int64_t head = ((NDX_CUDA_ROW_VECTOR - off) % NDX_CUDA_ROW_VECTOR) / ES;
  head = head < n ? head : n;
  int64_t nv = (n - head) / VEL, tail = n - head - nv * VEL;
  if (lane < head) row_element<ES>(dst, src, pd, 1, ps, ss, lane);
  if (nv > 0) {
    const T *S = (const T *)src + ps + head * ss;
    V *D = (V *)((T *)dst + pd + head);
    if (ss == 1 && (uintptr_t)S % NDX_CUDA_ROW_VECTOR == 0)
      row_vectors<NDX_CUDA_ROW_VECTOR>((const V *)S, D, nv, lane);
    else
      row_assembled<ES>(S, ss, D, nv, lane);
  }
  if (lane < tail) row_element<ES>(dst, src, pd, 1, ps, ss, head + nv * VEL + lane);
}

/* Thread tid of nthreads: group tid / 32 takes segments tid / 32,
 * + nthreads / 32, ...; each segment's row by one 64-bit magic division,
 * the row's two positions by one pass over the outer axes
 * (ndx_position_lead for both operands, the divisions shared). */
template <int W, int ES>
NDX_HD void warp_rows_body(const ndx_cuda_args &a, ndx_u8 *__restrict__ dst,
                           const ndx_u8 *__restrict__ src, int64_t tid, int64_t nthreads) {
  typedef typename ix<W>::word word;
  const ndx_pack_head *p = pack_of(a);
  int r = (int)p->rank, lane = (int)(tid % NDX_CUDA_ROW_THREADS);
  int64_t sd = ix<W>::stride(p, 0, r - 1), ss = ix<W>::stride(p, 1, r - 1);
  int64_t groups = nthreads / NDX_CUDA_ROW_THREADS, items = a.count, chunk = a.chunk, n = a.dj;
  for (int64_t item = tid / NDX_CUDA_ROW_THREADS; item < items; item += groups) {
    int64_t row = div64(item, a.mnj, a.snj), first = (item - row * a.nj) * chunk;
    int64_t len = n - first < chunk ? n - first : chunk;
    word i = (word)row, pd = ix<W>::offset(p, 0), ps = ix<W>::offset(p, 1);
    for (int x = r - 2; x > 0; x--) {
      word q = ix<W>::div(i, ix<W>::magic(p, x), ix<W>::shift(p, x));
      word digit = i - q * ix<W>::extent(p, x);
      pd += digit * ix<W>::stride(p, 0, x), ps += digit * ix<W>::stride(p, 1, x);
      i = q;
    }
    if (r > 1) pd += i * ix<W>::stride(p, 0, 0), ps += i * ix<W>::stride(p, 1, 0);
    row_body<ES>(dst, src, pd + first * sd, sd, ps + first * ss, ss, len, lane);
  }
}

/* ---- Choosing the instantiation ------------------------------------------ */

/* Calls f.flat<W, ES, VB, MODE>(), f.tile<W, ES, SIMPLE>(), f.words<W, B>(),
 * f.bytes<W, B>(), f.tile32<W, ES>() or f.warp_rows<W, ES>() for the kernel a
 * step runs (its vector width already
 * chosen, ndx_cuda_plan_steps); false when there is none. The CUDA launcher
 * and the host emulator both go through here, so they run the same bodies. */
template <class F, int W, int ES> static bool pick_flat(F &f, int vb, int kernel) {
  if (kernel == NDX_CUDA_GATHER || (kernel == NDX_CUDA_GATHER_FLIP && vb == ES)) {
    f.template flat<W, ES, ES, NDX_CUDA_GATHER>();
    return true;
  }
  if (kernel == NDX_CUDA_GATHER_FLIP) {
    if constexpr (ES < 16)
      if (vb == 16) {
        f.template flat<W, ES, 16, NDX_CUDA_GATHER_FLIP>();
        return true;
      }
    return false;
  }
  if (vb == ES) {
    f.template flat<W, ES, ES, NDX_CUDA_ROWS>();
    return true;
  }
  if constexpr (ES < 16)
    if (vb == 16) {
      f.template flat<W, ES, 16, NDX_CUDA_ROWS>();
      return true;
    }
  if constexpr (ES < 4)
    if (vb == 4) {
      f.template flat<W, ES, 4, NDX_CUDA_ROWS>();
      return true;
    }
  return false;
}

template <class F, int W, bool SIMPLE> static bool pick_tile(F &f, int bits) {
  switch (bits) {
  case 8:
    f.template tile<W, 1, SIMPLE>();
    return true;
  case 16:
    f.template tile<W, 2, SIMPLE>();
    return true;
  case 32:
    f.template tile<W, 4, SIMPLE>();
    return true;
  case 64:
    f.template tile<W, 8, SIMPLE>();
    return true;
  case 128:
    f.template tile<W, 16, SIMPLE>();
    return true;
  }
  return false;
}

/* f.tile32<W, ES>() (which 0) or f.warp_rows<W, ES>() (which 1) for 8..128
 * bits. */
template <class F, int W, int ES> static void pick_new_es(F &f, int which) {
  if (which)
    f.template warp_rows<W, ES>();
  else
    f.template tile32<W, ES>();
}
template <class F, int W> static bool pick_new(F &f, int bits, int which) {
  switch (bits) {
  case 8:
    pick_new_es<F, W, 1>(f, which);
    return true;
  case 16:
    pick_new_es<F, W, 2>(f, which);
    return true;
  case 32:
    pick_new_es<F, W, 4>(f, which);
    return true;
  case 64:
    pick_new_es<F, W, 8>(f, which);
    return true;
  case 128:
    pick_new_es<F, W, 16>(f, which);
    return true;
  }
  return false;
}

template <class F, int W> static bool pick_w(F &f, const ndx_cuda_step *s) {
  const ndx_cuda_args &a = s->args;
  int vb = a.vel * (a.bits / 8);
  switch (s->kernel) {
  case NDX_CUDA_ROWS:
  case NDX_CUDA_GATHER:
  case NDX_CUDA_GATHER_FLIP:
    switch (a.bits) {
    case 8:
      return pick_flat<F, W, 1>(f, vb, s->kernel);
    case 16:
      return pick_flat<F, W, 2>(f, vb, s->kernel);
    case 32:
      return pick_flat<F, W, 4>(f, vb, s->kernel);
    case 64:
      return pick_flat<F, W, 8>(f, vb, s->kernel);
    case 128:
      return pick_flat<F, W, 16>(f, vb, s->kernel);
    }
    return false;
  case NDX_CUDA_TRANSPOSE:
    if (a.pow2 && !a.gk && !a.gj) return pick_tile<F, W, true>(f, a.bits);
    return pick_tile<F, W, false>(f, a.bits);
  case NDX_CUDA_TRANSPOSE_WORDS:
    switch (a.bits) {
    case 1:
      f.template words<W, 1>();
      return true;
    case 2:
      f.template words<W, 2>();
      return true;
    case 4:
      f.template words<W, 4>();
      return true;
    case 8:
      f.template words<W, 8>();
      return true;
    case 16:
      f.template words<W, 16>();
      return true;
    }
    return false;
  case NDX_CUDA_TRANSPOSE_32X8:
    return pick_new<F, W>(f, a.bits, 0);
  case NDX_CUDA_WARP_ROWS:
    return pick_new<F, W>(f, a.bits, 1);
  case NDX_CUDA_BYTES:
    switch (a.bits) {
    case 1:
      f.template bytes<W, 1>();
      return true;
    case 2:
      f.template bytes<W, 2>();
      return true;
    case 4:
      f.template bytes<W, 4>();
      return true;
    }
    return false;
  }
  return false;
}

template <class F> static bool pick(F &f, const ndx_cuda_step *s) {
  return s->wide ? pick_w<F, 1>(f, s) : pick_w<F, 0>(f, s);
}

} /* namespace ndx_cuda */

#endif /* NDX_COPY_CUDA_CUH */
