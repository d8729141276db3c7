/* test_gpu_emulate.c: the gpu-shaped copy bodies (kernels/ndx_copy_gpu.h)
 * run work-item by work-item on the host, as a GPU runs them: every
 * work-group's work-items go through one phase before any starts the next
 * (what a barrier guarantees). These are the bodies OpenCL's gpu shape
 * (kernels/ndx_copy.cl) and CUDA's and HIP's gpu plans
 * (kernels/ndx_copy_gpu.cu) run; here they are planned as both plan them
 * (the shared planner with ndx_gpu_caps, then ndx_launch_gpu) for the cases
 * of the CUDA suites (tests/cuda_cases.h: random pairs of ranks 0 to 8 and
 * named cases that reach every tile and edge) at every width, in both index
 * forms, and the whole destination buffer, margin included, is compared
 * with oracle.h's reference; no byte of it may be stored by two
 * work-items (trace_store). So are the conversions of transposes through
 * the copy's tile (kernels/ndx_convert_gpu.h), planned as both runtimes
 * plan them (ndx_launch_gpu_convert) and run a phase at a time
 * (gpu_phases.h), against convert_ref.h. In the sanitizer build every
 * access the bodies make is checked too. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_stores.h"
#include "host/launch.h"

static int64_t emu_lid, emu_gid, emu_local, emu_groups;
static void trace_store(int site, int64_t step, const void *addr, int bytes);
#define NDX_GPU_TRACE(site, step, addr, bytes)                                                     \
  trace_store((site), (int64_t)(step), (const void *)(addr), (int)(bytes))
#define NDX_LOCAL
#define NDX_SHARED
#define NDX_BARRIER() ((void)0) /* the phases below run in order instead */
#define NDX_LOCAL_ID emu_lid
#define NDX_LOCAL_SIZE emu_local
#define NDX_GROUP_ID emu_gid
#define NDX_GROUPS emu_groups
#undef NDX_WIDE
#define NDX_WIDE 0
#include "ndx_convert_gpu.h"
#include "ndx_copy_gpu.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx_convert_gpu.h"
#include "ndx_copy_gpu.h"

#include "convert_ref.h"
#include "cuda_cases.h"
#include "gpu_phases.h"

/* Work-items per work-group, and a cap on work-groups small enough that
 * the larger cases loop over their units. */
enum { LOCAL = 256, MAX_GROUPS = 64 };

/* The stores of the case running (stores.owner not NULL), each byte's
 * work-item emu_gid * emu_local + emu_lid (gpu_stores.h). */
static gpu_stores stores;

static void trace_store(int site, int64_t step, const void *addr, int bytes) {
  (void)step;
  if (stores.owner && (site & NDX_TRACE_STORE) && !(site & NDX_TRACE_LOCAL))
    gpu_stores_note(&stores, addr, bytes, emu_gid * emu_local + emu_lid);
}

static _Alignas(16) ndx_u8 tile[NDX_GPU_TILE_BYTES(128)]; /* and rows' stage */
_Static_assert(NDX_GPU_STAGE_BYTES <= NDX_GPU_TILE_BYTES(128), "the stage fits");

/* Runs launch `d` of plan `p` over the whole launch. */
static void run(const ndx_copy_plan *p, const ndx_launch *d, int64_t groups, ndx_u8 *dst,
                const ndx_u8 *src) {
  ndx_gpu_guard g = {0};
  int bits = p->bits;
  emu_local = LOCAL, emu_groups = groups;
  for (emu_gid = 0; emu_gid < groups; emu_gid++) {
    if (p->path == NDX_PATH_ROWS && d->stage_units) {
      /* ndx_gpu_rows_staged_wN's loop, a phase at a time */
      for (int64_t pass = emu_gid, step = 0; pass * d->stage_segs < d->units;
           pass += groups, step++) {
        memset(tile, 0xa5, sizeof tile);
        for (emu_lid = 0; emu_lid < LOCAL; emu_lid++)
          p->wide ? ndx_gpu_stage_load_w64(d, tile, src, bits, emu_lid, LOCAL, pass, step, &g)
                  : ndx_gpu_stage_load_w32(d, tile, src, bits, emu_lid, LOCAL, pass, step, &g);
        for (emu_lid = 0; emu_lid < LOCAL; emu_lid++)
          p->wide ? ndx_gpu_stage_store_w64(d, tile, dst, bits, emu_lid, LOCAL, pass, step, &g)
                  : ndx_gpu_stage_store_w32(d, tile, dst, bits, emu_lid, LOCAL, pass, step, &g);
      }
      continue;
    }
    if (p->path != NDX_PATH_TRANSPOSE) {
      for (emu_lid = 0; emu_lid < LOCAL; emu_lid++) {
        switch (p->path) {
        case NDX_PATH_ROWS:
          p->wide ? ndx_gpu_rows_w64(d, dst, src, bits, &g)
                  : ndx_gpu_rows_w32(d, dst, src, bits, &g);
          break;
        case NDX_PATH_BYTES:
          p->wide ? ndx_gpu_bytes_w64(d, dst, src, bits, &g)
                  : ndx_gpu_bytes_w32(d, dst, src, bits, &g);
          break;
        default:
          p->wide ? ndx_gpu_gather_w64(d, dst, src, bits, &g)
                  : ndx_gpu_gather_w32(d, dst, src, bits, &g);
        }
      }
      continue;
    }
    /* ndx_gpu_transpose_wN's loop, a phase at a time */
    for (int64_t t = emu_gid, step = 0; t < d->units; t += groups, step++) {
      memset(tile, 0xa5, sizeof tile);
      if (p->wide) {
        ndx_gpu_tile_w64 w = ndx_gpu_tile_at_w64(d, t, bits);
        for (emu_lid = 0; emu_lid < LOCAL; emu_lid++)
          bits < 8 ? ndx_gpu_bits_load_w64(d, &w, tile, src, bits, emu_lid, LOCAL, step, &g)
                   : ndx_gpu_tile_load_w64(d, &w, tile, src, bits, emu_lid, LOCAL, step, &g);
        for (emu_lid = 0; emu_lid < LOCAL; emu_lid++)
          bits < 8 ? ndx_gpu_bits_store_w64(d, &w, tile, dst, bits, emu_lid, LOCAL, step, &g)
                   : ndx_gpu_tile_store_w64(d, &w, tile, dst, bits, emu_lid, LOCAL, step, &g);
      } else {
        ndx_gpu_tile_w32 w = ndx_gpu_tile_at_w32(d, t, bits);
        for (emu_lid = 0; emu_lid < LOCAL; emu_lid++)
          bits < 8 ? ndx_gpu_bits_load_w32(d, &w, tile, src, bits, emu_lid, LOCAL, step, &g)
                   : ndx_gpu_tile_load_w32(d, &w, tile, src, bits, emu_lid, LOCAL, step, &g);
        for (emu_lid = 0; emu_lid < LOCAL; emu_lid++)
          bits < 8 ? ndx_gpu_bits_store_w32(d, &w, tile, dst, bits, emu_lid, LOCAL, step, &g)
                   : ndx_gpu_tile_store_w32(d, &w, tile, dst, bits, emu_lid, LOCAL, step, &g);
      }
    }
  }
}

/* Plans case c (in the 64-bit form where `wide`), runs it into a patterned
 * destination and compares the whole buffer with the reference; counts the
 * path taken. */
static void check_case(const cuda_case *c, bool wide, int *paths) {
  char what[2048];
  cuda_describe(what, sizeof what, c);
  ndx_copy_plan p;
  cr_assert_eq(ndx_copy_plan_make(&p, "test", &c->dst, &c->src, c->bits, &ndx_gpu_caps,
                                  wide ? NDX_COPY_WIDE : 0),
               NDX_OK, "%s: %s", what, ndx_last_error());
  paths[p.path]++;
  size_t nd = cuda_case_bytes(&c->dst, c->bits), ns = cuda_case_bytes(&c->src, c->bits);
  ndx_u8 *src = malloc(ns), *got = malloc(nd), *want = malloc(nd);
  cr_assert(src && got && want);
  cuda_fill(src, ns, 7);
  cuda_fill(got, nd, 11);
  memcpy(want, got, nd);
  oracle_copy(want, &c->dst, src, &c->src, c->bits, NULL);
  if (p.path == NDX_PATH_BUFFER) {
    memcpy(got + p.q.offset[0] * c->bits / 8, src + p.q.offset[1] * c->bits / 8,
           (size_t)(p.q.numel * c->bits / 8));
  } else if (p.path != NDX_PATH_EMPTY) {
    uint64_t buf[(sizeof(ndx_launch) + NDX_PACK_MAX_BYTES(2, NDX_PACK_MAX_RANK)) / 8];
    ndx_launch *d = (ndx_launch *)buf;
    int64_t groups;
    ndx_launch_gpu(&p, LOCAL, MAX_GROUPS, d, &groups);
    cr_assert_eq(ndx_copy_plan_pack(&p, buf + sizeof *d / 8, sizeof buf - sizeof *d), NDX_OK);
    int64_t *owner = malloc(nd * sizeof *owner);
    cr_assert(owner);
    gpu_stores_start(&stores, got, nd, owner);
    run(&p, d, groups, got, src);
    stores.owner = NULL;
    free(owner);
    cr_assert(stores.shared == 0,
              "%s, %s form, path %s: %lld bytes stored by two work-items, the first byte %lld",
              what, wide ? "64-bit" : "32-bit", ndx_copy_path_name(p.path),
              (long long)stores.shared, (long long)stores.first);
  }
  int64_t at = cuda_first_difference(got, want, nd);
  cr_assert(at < 0, "%s, %s form, path %s: byte %lld is 0x%02x, want 0x%02x", what,
            wide ? "64-bit" : "32-bit", ndx_copy_path_name(p.path), (long long)at,
            at >= 0 ? got[at] : 0, at >= 0 ? want[at] : 0);
  free(src), free(got), free(want);
}

Test(gpu_emulate, named_cases_every_width_both_forms, .timeout = 600) {
  int paths[NDX_PATH_BYTES + 1] = {0};
  for (int w = 0; w < CUDA_NWIDTHS; w++)
    for (int k = 0; k < CUDA_NAMED; k++) {
      cuda_case c;
      if (!cuda_named_case(k, cuda_widths[w], &c)) continue;
      check_case(&c, false, paths);
      check_case(&c, true, paths);
    }
  for (int path = NDX_PATH_ROWS; path <= NDX_PATH_BYTES; path++)
    cr_assert_gt(paths[path], 0, "no named case took the %s path", ndx_copy_path_name(path));
}

Test(gpu_emulate, random_pairs_every_width_both_forms, .timeout = 600) {
  int paths[NDX_PATH_BYTES + 1] = {0};
  oracle_rng r = {2026};
  for (int k = 0; k < 400; k++) {
    cuda_case c;
    cuda_random_case(&r, k, cuda_widths[k % CUDA_NWIDTHS], &c);
    check_case(&c, k % 3 == 0, paths);
  }
  for (int path = NDX_PATH_EMPTY; path <= NDX_PATH_BYTES; path++)
    cr_assert_gt(paths[path], 0, "no random pair took the %s path", ndx_copy_path_name(path));
}

/* Case c's source reversed along axis `flip` (-1: none), and the gpu
 * shape's launch of its plan, a transpose, into *d. */
static void transpose_launch(cuda_case *c, int flip, ndx_launch *d) {
  if (flip >= 0) {
    ndx_range fr[NDX_MAX_RANK];
    for (int a = 0; a < c->src.rank; a++)
      fr[a] = a == flip ? (ndx_range){c->src.shape[a] - 1, c->src.shape[a], -1}
                        : (ndx_range){0, c->src.shape[a], 1};
    ndx_layout f;
    cr_assert_eq(ndx_slice(&f, &c->src, fr), NDX_OK, "%s", ndx_last_error());
    c->src = f;
  }
  ndx_copy_plan p;
  cr_assert_eq(ndx_copy_plan_make(&p, "test", &c->dst, &c->src, c->bits, &ndx_gpu_caps, 0), NDX_OK);
  cr_assert_eq(p.path, NDX_PATH_TRANSPOSE, "%s", c->name);
  int64_t groups;
  ndx_launch_gpu(&p, LOCAL, MAX_GROUPS, d, &groups);
}

/* The realigned tile phases (ndx_launch.h: realign_k, realign_j): batched
 * transposes whose rows start off the sectors on one side, the other or
 * both, square, long and skinny tiles, a flipped source, at every width a
 * tile takes. Each case must realign the side it is built for, so that a
 * planner that stopped realigning fails here rather than passing on the
 * plain phases. */
Test(gpu_emulate, realigned_tile_rows_every_width, .timeout = 600) {
  static const struct {
    int64_t nb, a, b, pd, offd, ps, offs;
    bool flip, k, j; /* realigns along k (the source), along j (the destination) */
  } shapes[] = {
      {2, 300, 70, 96 * 4, 0, 301, 1, false, true, false}, /* source rows off, long k */
      {2, 300, 70, 96 * 4, 0, 301, 1, true, true, false},  /* the same, flipped along j */
      {2, 70, 300, 303, 3, 96, 0, false, false, true},     /* destination rows off, long j */
      {1, 3, 1000, 1001, 0, 32, 0, false, false, true},    /* skinny, destination rows off */
      {1, 1000, 3, 32, 0, 1001, 0, false, true, false},    /* skinny, source rows off */
      {3, 200, 150, 151, 1, 207, 5, false, true, false},   /* both off: the source realigns */
  };
  int widths[] = {8, 16, 32, 64, 128};
  for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
      cuda_case c = {.bits = widths[w]};
      snprintf(c.name, sizeof c.name, "realigned case %zu", s);
      cuda_padded_transpose(&c, shapes[s].nb, shapes[s].a, shapes[s].b, shapes[s].pd,
                            shapes[s].offd, shapes[s].ps, shapes[s].offs);
      ndx_launch l, *d = &l;
      transpose_launch(&c, shapes[s].flip ? 2 : -1, d);
      bool sector_k = c.bits / 8 < NDX_GPU_SECTOR && d->tile_k > NDX_GPU_WARP;
      bool sector_j = c.bits / 8 < NDX_GPU_SECTOR && d->tile_j > NDX_GPU_WARP;
      cr_assert_eq(d->realign_k != 0, shapes[s].k && sector_k, "%s, %d bits: realign_k %lld",
                   c.name, c.bits, (long long)d->realign_k);
      cr_assert_eq(d->realign_j != 0, shapes[s].j && sector_j, "%s, %d bits: realign_j %lld",
                   c.name, c.bits, (long long)d->realign_j);
      int paths[NDX_PATH_BYTES + 1] = {0};
      check_case(&c, false, paths);
      check_case(&c, true, paths);
    }
}

/* Phase 1 by source words (ndx_launch.group, 8- and 16-bit copies): tile
 * rows that start and end on 4-byte source words take a word a slot, on
 * sectors and off them (realigned by words), with the last tile along k
 * cut; a row off a word (the offset, or the k extent) or a flipped k takes
 * an element a slot. Each case must take the slots it is built for, so
 * that a planner that stopped doing so fails here. */
Test(gpu_emulate, tile_rows_by_source_words, .timeout = 600) {
  static const struct {
    int64_t nb, a, b, pd, offd, ps, offs;
    bool flip, words, realign; /* flip: k reversed in the source */
  } shapes[] = {
      {2, 256, 256, 256, 0, 256, 0, false, true, false},   /* on sectors, whole tiles */
      {1, 1000, 40, 40, 0, 1024, 0, false, true, false},   /* the last tile along k cut */
      {2, 300, 70, 96 * 4, 0, 304, 4, false, true, true},  /* rows off sectors, on words */
      {2, 300, 70, 96 * 4, 0, 301, 1, false, false, true}, /* rows off words */
      {2, 301, 64, 64, 0, 320, 0, false, false, false},    /* the k extent off words */
      {2, 256, 64, 64, 0, 256, 0, true, false, false},     /* k reversed */
  };
  int widths[] = {8, 16};
  for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
      cuda_case c = {.bits = widths[w]};
      snprintf(c.name, sizeof c.name, "words case %zu", s);
      cuda_padded_transpose(&c, shapes[s].nb, shapes[s].a, shapes[s].b, shapes[s].pd,
                            shapes[s].offd, shapes[s].ps, shapes[s].offs);
      ndx_launch l, *d = &l;
      transpose_launch(&c, shapes[s].flip ? 1 : -1, d);
      int64_t want = shapes[s].words ? 32 / c.bits : 1;
      cr_assert_eq(d->group, want, "%s, %d bits: group %lld", c.name, c.bits, (long long)d->group);
      cr_assert_eq(d->realign_k != 0, shapes[s].realign, "%s, %d bits: realign_k %lld", c.name,
                   c.bits, (long long)d->realign_k);
      if (shapes[s].words && s == 1)
        cr_assert_neq(shapes[s].a % d->tile_k, 0, "%s, %d bits: tile_k %lld", c.name, c.bits,
                      (long long)d->tile_k);
      int paths[NDX_PATH_BYTES + 1] = {0};
      check_case(&c, false, paths);
      check_case(&c, true, paths);
    }
}

/* Rows through work-group memory (ndx_launch.h: stage_units): rows off the
 * sectors on the source's side, the destination's or both, at the same
 * skew or not, rows a pass holds several of, one of, and rows longer than
 * a pass (in segments), at every width. Each case must go through
 * work-group memory, so that a planner that stopped doing so fails here
 * rather than passing on the straight body. */
Test(gpu_emulate, rows_through_work_group_memory_every_width, .timeout = 600) {
  static const struct {
    int64_t nb, rows, len, ss, offs, sd, offd; /* row strides and offsets, in elements */
  } shapes[] = {
      {2, 50, 300, 303, 3, 300, 0},          /* source rows off */
      {2, 50, 300, 300, 0, 301, 5},          /* destination rows off */
      {3, 7, 130, 131, 1, 133, 1},           /* both off, skews apart */
      {1, 9, 257, 257 + 32, 2, 257 + 32, 2}, /* both off, one skew, odd rows */
      {1, 3, 5000, 5001, 1, 5000, 0},        /* rows longer than a pass */
      {2, 5, 1500, 1503, 7, 1509, 9},        /* segments, both off */
      {1, 40, 40, 41, 1, 40, 0},             /* rows of a warp and a bit */
  };
  int widths[] = {8, 16, 32, 64, 128};
  for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
      cuda_case c = {.bits = widths[w]};
      snprintf(c.name, sizeof c.name, "staged rows case %zu", k);
      int64_t shape[3] = {shapes[k].nb, shapes[k].rows, shapes[k].len};
      int64_t ss[3] = {shapes[k].rows * shapes[k].ss, shapes[k].ss, 1};
      int64_t sd[3] = {shapes[k].rows * shapes[k].sd, shapes[k].sd, 1};
      cr_assert_eq(ndx_make(&c.src, 3, shape, ss, shapes[k].offs), NDX_OK, "%s", ndx_last_error());
      cr_assert_eq(ndx_make(&c.dst, 3, shape, sd, shapes[k].offd), NDX_OK, "%s", ndx_last_error());
      ndx_copy_plan p;
      cr_assert_eq(ndx_copy_plan_make(&p, "test", &c.dst, &c.src, c.bits, &ndx_gpu_caps, 0),
                   NDX_OK);
      cr_assert_eq(p.path, NDX_PATH_ROWS, "%s", c.name);
      uint64_t buf[(sizeof(ndx_launch) + 7) / 8];
      ndx_launch *d = (ndx_launch *)buf;
      int64_t groups;
      ndx_launch_gpu(&p, LOCAL, MAX_GROUPS, d, &groups);
      cr_assert_gt(d->stage_units, 0, "%s, %d bits: rows go straight", c.name, c.bits);
      int64_t eb = c.bits / 8;
      bool off_s = (shapes[k].offs * eb) % 32 || (shapes[k].ss * eb) % 32;
      bool off_d = (shapes[k].offd * eb) % 32 || (shapes[k].sd * eb) % 32;
      cr_assert_eq(d->realign_k != 0, off_s, "%s, %d bits: realign_k %lld", c.name, c.bits,
                   (long long)d->realign_k);
      cr_assert_eq(d->realign_j != 0, off_d, "%s, %d bits: realign_j %lld", c.name, c.bits,
                   (long long)d->realign_j);
      int paths[NDX_PATH_BYTES + 1] = {0};
      check_case(&c, false, paths);
      check_case(&c, true, paths);
    }
}

/* Tiles joined with the batch axes next to them (ndx_launch.h: join_k,
 * join_j): permutations whose tile axes are shorter than a tile's side and
 * whose next axes run on along the source's rows, the destination's or
 * both, the joined matrix whole in one tile or cut into tiles across its
 * blocks, at every width that joins (8 to 64 bits; 128-bit tiles do not);
 * and the gpu shape's second joins (join_k2, join_j2) on either side or
 * both, where the first leave rows off the sectors. Each case must join
 * the sides it is built for, at the widths it is built for, so that a
 * planner that stopped joining fails here rather than passing on the plain
 * tiles. */
Test(gpu_emulate, tiles_joined_with_batch_axes_every_width, .timeout = 600) {
  enum { W8 = 1, W16 = 2, W32 = 4, W64 = 8, W_ALL = 15 };
  static const struct {
    int rank;
    int64_t shape[8];
    int32_t perm[8];
    bool k, j;  /* joins along k (the source's rows), along j (the destination's) */
    int k2, j2; /* the widths that join a second axis along k, along j */
    int words;  /* the widths (8, 16) whose phase 1 loads source words */
  } cases[] = {
      {8, {2, 3, 4, 5, 2, 3, 4, 5}, {7, 1, 5, 3, 6, 0, 4, 2}, true, true, W_ALL, W_ALL, 0},
      {8, {2, 3, 7, 11, 2, 3, 9, 5}, {7, 1, 5, 3, 6, 0, 4, 2}, true, true, W_ALL, W_ALL, 0},
      {6, {3, 20, 31, 2, 20, 29}, {5, 1, 3, 4, 0, 2}, true, true, 0, 0, 0},
      {4, {3, 5, 7, 9}, {3, 0, 2, 1}, false, true, 0, 0, 0},
      /* on 4-byte source words: 8- and 16-bit tiles load words
       * (ndx_launch.group), long along k */
      {6, {3, 20, 28, 2, 20, 28}, {5, 1, 3, 4, 0, 2}, true, true, 0, 0, W8 | W16},
      /* on words too, but the 8-bit 96 x 16 tile leaves no pitch clear of
       * conflicts with words: an element a slot */
      {8,
       {2, 3, 4, 4, 2, 3, 4, 8},
       {7, 1, 5, 3, 6, 0, 4, 2},
       true,
       true,
       W8 | W16 | W32,
       W8 | W16 | W32,
       W16},
      /* a second join along one side only */
      {7, {3, 5, 6, 7, 3, 5, 6}, {6, 1, 5, 3, 0, 4, 2}, true, true, 0, W_ALL, W16},
      {7, {3, 5, 6, 7, 3, 5, 6}, {0, 2, 4, 6, 5, 1, 3}, true, true, W_ALL, 0, W16},
  };
  int widths[] = {8, 16, 32, 64, 128};
  for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
      cuda_case c = {.bits = widths[w]};
      snprintf(c.name, sizeof c.name, "joined tiles case %zu", k);
      c.src = cuda_contig(cases[k].rank, cases[k].shape);
      ndx_layout v = cuda_permuted(&c.src, cases[k].perm);
      c.dst = cuda_contig(cases[k].rank, v.shape);
      c.src = v;
      ndx_copy_plan p;
      cr_assert_eq(ndx_copy_plan_make(&p, "test", &c.dst, &c.src, c.bits, &ndx_gpu_caps, 0),
                   NDX_OK);
      cr_assert_eq(p.path, NDX_PATH_TRANSPOSE, "%s", c.name);
      uint64_t buf[(sizeof(ndx_launch) + 7) / 8];
      ndx_launch *d = (ndx_launch *)buf;
      int64_t groups;
      ndx_launch_gpu(&p, LOCAL, MAX_GROUPS, d, &groups);
      bool joins = c.bits <= 64;
      int width = joins ? 1 << w : 0; /* W8 .. W64 */
      cr_assert_eq(d->join_k > 1, cases[k].k && joins, "%s, %d bits: join_k %lld", c.name, c.bits,
                   (long long)d->join_k);
      cr_assert_eq(d->join_j > 1, cases[k].j && joins, "%s, %d bits: join_j %lld", c.name, c.bits,
                   (long long)d->join_j);
      cr_assert_eq(d->join_k2 > 1, (cases[k].k2 & width) != 0, "%s, %d bits: join_k2 %lld", c.name,
                   c.bits, (long long)d->join_k2);
      cr_assert_eq(d->join_j2 > 1, (cases[k].j2 & width) != 0, "%s, %d bits: join_j2 %lld", c.name,
                   c.bits, (long long)d->join_j2);
      cr_assert_eq(d->group > 1, (cases[k].words & width) != 0, "%s, %d bits: group %lld", c.name,
                   c.bits, (long long)d->group);
      int paths[NDX_PATH_BYTES + 1] = {0};
      check_case(&c, false, paths);
      check_case(&c, true, paths);
    }
}

/* Converts the transpose of case c from type st into dt, planned at the
 * destination's width as the runtimes plan it (in the 64-bit form where
 * `wide`), into a patterned destination, and compares the whole buffer
 * with the reference; the launch into *out. */
static void check_convert_case(const cuda_case *c, ndx_dtype st, ndx_dtype dt, bool wide,
                               ndx_launch *out) {
  char what[2048];
  cuda_describe(what, sizeof what, c);
  int sb = ndx_dtype_bits(st), db = ndx_dtype_bits(dt);
  ndx_copy_plan p;
  cr_assert_eq(
      ndx_copy_plan_make(&p, "test", &c->dst, &c->src, db, &ndx_gpu_caps, wide ? NDX_COPY_WIDE : 0),
      NDX_OK, "%s: %s", what, ndx_last_error());
  cr_assert_eq(p.path, NDX_PATH_TRANSPOSE, "%s: path %s", what, ndx_copy_path_name(p.path));
  size_t nd = cuda_case_bytes(&c->dst, db), ns = cuda_case_bytes(&c->src, sb);
  ndx_u8 *src = malloc(ns), *got = malloc(nd), *want = malloc(nd);
  cr_assert(src && got && want);
  cuda_fill(src, ns, 7);
  cuda_fill(got, nd, 11);
  memcpy(want, got, nd);
  for (int64_t k = 0, n = oracle_numel(&c->dst); k < n; k++)
    ref_convert_elem(want, oracle_position_of(&c->dst, k), dt, src, oracle_position_of(&c->src, k),
                     st);
  uint64_t buf[(sizeof(ndx_launch) + NDX_PACK_MAX_BYTES(2, NDX_PACK_MAX_RANK)) / 8];
  ndx_launch *d = (ndx_launch *)buf;
  int64_t groups;
  ndx_launch_gpu_convert(&p, sb, 16, LOCAL, MAX_GROUPS, d, &groups); /* malloc's 16 */
  cr_assert_eq(ndx_copy_plan_pack(&p, buf + sizeof *d / 8, sizeof buf - sizeof *d), NDX_OK);
  gpu_phases_convert_transpose(d, LOCAL, groups, got, src, (int)st, (int)dt, false);
  int64_t at = cuda_first_difference(got, want, nd);
  cr_assert(at < 0, "%s, %s to %s, %s form: byte %lld is 0x%02x, want 0x%02x", what,
            ndx_dtype_name(st), ndx_dtype_name(dt), wide ? "64-bit" : "32-bit", (long long)at,
            at >= 0 ? got[at] : 0, at >= 0 ? want[at] : 0);
  *out = *d;
  free(src), free(got), free(want);
}

/* The type pairs the conversions below run: narrower, wider and the same
 * width, floats and integers, a 4-bit source and bool. */
static const ndx_dtype convert_pairs[][2] = {
    {NDX_F32, NDX_BF16}, {NDX_BF16, NDX_F32}, {NDX_F16, NDX_F8E4M3FN}, {NDX_I8, NDX_F64},
    {NDX_F64, NDX_I16},  {NDX_U4, NDX_F32},   {NDX_F32, NDX_U8},       {NDX_BOOL, NDX_F16},
};
#define CONVERT_PAIRS (sizeof convert_pairs / sizeof *convert_pairs)

/* Random batched transposes of padded rows at random offsets, flipped
 * along k, along j or neither (ndx_gpu_tile_source_wN's edges, realigned
 * rows and batches), each pair in both forms. */
Test(gpu_emulate, converted_random_transposes, .timeout = 600) {
  oracle_rng r = {32};
  for (int k = 0; k < 48; k++) {
    const ndx_dtype *t = convert_pairs[k % CONVERT_PAIRS];
    int64_t nb = oracle_between(&r, 1, 3), a = oracle_between(&r, 2, 150);
    int64_t b = oracle_between(&r, 2, 150);
    int64_t offd = oracle_between(&r, 0, 5), offs = oracle_between(&r, 0, 5);
    int64_t pd = b + offd + oracle_between(&r, 0, 9), ps = a + offs + oracle_between(&r, 0, 9);
    cuda_case c = {.bits = ndx_dtype_bits(t[1])};
    snprintf(c.name, sizeof c.name, "converted transpose %d", k);
    cuda_padded_transpose(&c, nb, a, b, pd, offd, ps, offs);
    int64_t flip = oracle_between(&r, 0, 3); /* 1: along k, 2: along j */
    if (flip == 1 || flip == 2) {
      ndx_range fr[3] = {{0, nb, 1}, {0, a, 1}, {0, b, 1}};
      fr[flip] = (ndx_range){flip == 1 ? a - 1 : b - 1, flip == 1 ? a : b, -1};
      ndx_layout f;
      cr_assert_eq(ndx_slice(&f, &c.src, fr), NDX_OK, "%s", ndx_last_error());
      c.src = f;
    }
    ndx_launch d;
    check_convert_case(&c, t[0], t[1], k % 2 == 1, &d);
  }
}

/* From a 4-bit source, phase 1 by words of eight elements (ndx_launch.group
 * 8) where every tile row starts and ends on a 4-byte source word, the last
 * tile along k cut or not; by byte pairs (group 2) where rows lie on bytes
 * but not words (the k extent, the pitch) or run backwards, and into 32-
 * and 64-bit types, whose tiles of 256-element rows (a warp's words) would
 * not fit NDX_GPU_TILE_BYTES; into every destination width, both forms.
 * Each case must take the group it is built for, so that a planner that
 * stopped taking words fails here. */
Test(gpu_emulate, converted_transposes_by_source_words, .timeout = 600) {
  static const struct {
    int64_t nb, a, b, pd, offd, ps, offs; /* cuda_padded_transpose's */
    bool flip;                            /* reversed along k */
    int64_t group;
  } shapes[] = {
      {2, 264, 40, 48, 3, 272, 8, false, 8}, /* words, the last tile along k cut */
      {1, 512, 33, 40, 0, 512, 0, false, 8}, /* words, whole tiles along k */
      {2, 263, 40, 48, 3, 272, 8, false, 2}, /* an odd k extent: pairs */
      {2, 264, 40, 48, 3, 268, 4, false, 2}, /* rows on bytes, not words: pairs */
      {2, 264, 40, 48, 3, 272, 8, true, 2},  /* reversed along k: pairs */
  };
  static const ndx_dtype types[][2] = {
      {NDX_F4E2M1FN, NDX_F16}, {NDX_I4, NDX_I8},   {NDX_U4, NDX_F32},
      {NDX_F4E2M1FN, NDX_F64}, {NDX_U4, NDX_BOOL}, {NDX_I4, NDX_BF16},
  };
  for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++)
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
      cuda_case c = {.bits = ndx_dtype_bits(types[t][1])};
      snprintf(c.name, sizeof c.name, "converted 4-bit case %zu", k);
      cuda_padded_transpose(&c, shapes[k].nb, shapes[k].a, shapes[k].b, shapes[k].pd,
                            shapes[k].offd, shapes[k].ps, shapes[k].offs);
      if (shapes[k].flip) {
        ndx_range fr[3] = {
            {0, shapes[k].nb, 1}, {shapes[k].a - 1, shapes[k].a, -1}, {0, shapes[k].b, 1}};
        ndx_layout f;
        cr_assert_eq(ndx_slice(&f, &c.src, fr), NDX_OK, "%s", ndx_last_error());
        c.src = f;
      }
      ndx_launch d;
      for (int wide = 0; wide < 2; wide++)
        check_convert_case(&c, types[t][0], types[t][1], wide, &d);
      int64_t want = shapes[k].group == 8 && c.bits > 16 ? 2 : shapes[k].group;
      cr_assert_eq(d.group, want, "%s, %s to %s: group %lld", c.name, ndx_dtype_name(types[t][0]),
                   ndx_dtype_name(types[t][1]), (long long)d.group);
    }
}

/* Tiles joined with the batch axes, and long tiles whose source rows start
 * off the sectors: phase 1 realigns on the source's sectors (its elements
 * of a sector, not the destination's), every pair in both forms. */
Test(gpu_emulate, converted_joined_and_realigned_transposes, .timeout = 600) {
  int64_t shape[6] = {3, 20, 31, 2, 20, 29};
  int32_t perm[6] = {5, 1, 3, 4, 0, 2};
  for (size_t k = 0; k < CONVERT_PAIRS; k++) {
    ndx_dtype st = convert_pairs[k][0], dt = convert_pairs[k][1];
    int sb = ndx_dtype_bits(st);
    cuda_case c = {.bits = ndx_dtype_bits(dt)};
    snprintf(c.name, sizeof c.name, "converted joined tiles");
    c.src = cuda_contig(6, shape);
    ndx_layout v = cuda_permuted(&c.src, perm);
    c.dst = cuda_contig(6, v.shape);
    c.src = v;
    ndx_launch d;
    for (int wide = 0; wide < 2; wide++) check_convert_case(&c, st, dt, wide, &d);
    cr_assert(d.join_k > 1 && d.join_j > 1, "%s to %s: joins %lld x %lld", ndx_dtype_name(st),
              ndx_dtype_name(dt), (long long)d.join_k, (long long)d.join_j);
    snprintf(c.name, sizeof c.name, "converted realigned tiles");
    cuda_padded_transpose(&c, 2, 300, 70, 96 * 8, 0, 301, 1);
    for (int wide = 0; wide < 2; wide++) check_convert_case(&c, st, dt, wide, &d);
    int64_t want = sb >= 8 && d.tile_k > NDX_GPU_WARP ? NDX_GPU_SECTOR / (sb / 8) : 0;
    cr_assert_eq(d.realign_k, want, "%s to %s: realign_k %lld over %lld", ndx_dtype_name(st),
                 ndx_dtype_name(dt), (long long)d.realign_k, (long long)d.tile_k);
  }
}
