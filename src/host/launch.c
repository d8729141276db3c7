/* launch.c: the gpu shape's launch descriptor (launch.h). */
#include <string.h>

#include "launch.h"
#include "ndx_copy_geometry.h"
#include "ndx_internal.h"

const ndx_copy_caps ndx_gpu_caps = {.rows_from_bytes = 0};

/* The widest access, up to 16 bytes, that every row of a rows pair starts
 * on in both operands (a row: the innermost axis, unit strides), given
 * buffers aligned to 16 bytes (OpenCL's CL_DEVICE_MEM_BASE_ADDR_ALIGN is at
 * least 128 bits, cudaMalloc's 256 bytes), and that divides a row's bytes. */
static int64_t row_vector(const ndx_operands *q, int bits) {
  int64_t eb = bits / 8, row = q->shape[q->rank - 1] * eb, v = 16;
  for (; v > eb; v /= 2) {
    bool fits = row % v == 0;
    for (int k = 0; k < 2 && fits; k++) {
      fits = (q->offset[k] * eb) % v == 0;
      for (int a = 0; a < q->rank - 1 && fits; a++) fits = (q->strides[k][a] * eb) % v == 0;
    }
    if (fits) break;
  }
  return v;
}

/* True when every row of operand k of pair q along the transpose axis
 * `axis` (its stride 1), from tile starts `tile` elements apart, starts on
 * a sector: the offset, the other axes' strides and the tile's bytes are
 * whole sectors, given a buffer that starts on one (cudaMalloc's 256
 * bytes; on OpenCL, CL_DEVICE_MEM_BASE_ADDR_ALIGN, at least 16 bytes by
 * the standard and 128 or more on GPUs; where a buffer does not, realigning
 * misjudges the sectors and costs speed, never a wrong element). */
static bool rows_on_sectors(const ndx_operands *q, int k, int axis, int64_t tile, int64_t eb) {
  bool on = (q->offset[k] * eb) % NDX_GPU_SECTOR == 0 && (tile * eb) % NDX_GPU_SECTOR == 0;
  for (int a = 0; a < q->rank && on; a++)
    if (a != axis) on = (q->strides[k][a] * eb) % NDX_GPU_SECTOR == 0;
  return on;
}

/* True when no warp asks a bank for two words, in either phase of a tile
 * of tk x tj elements of `eb` bytes with rows `pitch` bytes apart: phase 1
 * writes element (a, b) = (e / sk, e % sk) at a*pitch + b*eb for b < tk
 * (a conversion's slots of `per` elements, per > 1: b = (e % sk)*per + the
 * x-th of ndx_launch_put, one request each x),
 * phase 2 reads (e % sj, e / sj) for e % sj < tj, where sk and sj are the
 * work-items a row takes in each phase (ndx_launch.h; as if every row
 * started on a sector).
 * Lanes are served in groups that fill 128 bytes (32 of up to 4 bytes, 16
 * of 8, 8 of 16), each bank giving one word a group. */
static bool banks_clear(int64_t pitch, int64_t eb, int64_t tk, int64_t tj, int64_t sk, int64_t sj,
                        int64_t per) {
  int64_t group = eb <= 4 ? 32 : 128 / eb;
  for (int phase = 0; phase < 2; phase++) {
    int64_t slots = phase ? sj : sk, len = phase ? tj : tk, elems = slots * (phase ? tk : tj);
    for (int64_t x = 0; x < (phase ? 1 : per); x++)
      for (int64_t e0 = 0; e0 < elems; e0 += group) {
        int64_t word[32];
        int n = 0;
        for (int64_t e = e0; e < e0 + group && e < elems; e++) {
          int64_t row = e / slots, col = e % slots;
          if (!phase && per > 1) col = col * per + ndx_launch_put(col, x, eb, per);
          if (col >= len) continue;
          int64_t a = phase ? col : row, b = phase ? row : col;
          for (int64_t w = (a * pitch + b * eb) / 4; w <= (a * pitch + b * eb + eb - 1) / 4; w++) {
            bool seen = false;
            for (int i = 0; i < n && !seen; i++) {
              if (word[i] == w)
                seen = true;
              else if (word[i] % 32 == w % 32)
                return false;
            }
            if (!seen && n < 32) word[n++] = w;
          }
        }
      }
  }
  return true;
}

/* The long side of a tile of `elems` elements of `eb` bytes whose short
 * side is `n`, on an axis of extent `d`: d, when the tile holds it whole;
 * else the most elements whose tile is whole 128-byte lines, or at least
 * `side`. */
static int64_t long_side(int64_t d, int64_t n, int64_t eb, int64_t elems, int64_t side) {
  int64_t most = elems / n;
  if (d <= most) return d;
  for (int64_t m = most; m > side; m--)
    if ((m * n * eb) % 128 == 0) return m;
  return side;
}

/* The realign of a tile side of `len` elements of `eb` bytes whose rows
 * are `on` sectors or not: a sector's elements where rows are off them and
 * longer than a warp's one access, else 0 (a row one access reads touches
 * the same sectors however its lanes sit). */
static int64_t realign(bool on, int64_t len, int64_t eb) {
  return !on && len > 32 && eb < NDX_GPU_SECTOR ? NDX_GPU_SECTOR / eb : 0;
}

/* The work-items a tile row of `len` elements takes: `len`, or, where it
 * realigns by `sector` elements, enough whole warps to hold it from any of
 * a sector's elements, so that no warp takes two rows, whose skews differ
 * and could put two of its words on one bank. */
static int64_t slots(int64_t len, int64_t sector) {
  return sector ? (len + sector - 1 + NDX_GPU_WARP - 1) / NDX_GPU_WARP * NDX_GPU_WARP : len;
}

/* True when transpose pair q has every tile row's elements (k, ..., k +
 * g - 1), k a multiple of g, in one source word of g elements: along k,
 * the source's unit axis, of stride 1, every row starting on a word, or of
 * stride -1, every row starting on a word's last element; that is, every
 * other stride a multiple of g and the offset 0 or g - 1 modulo g. A
 * joined k axis (stride dk*±1) counts among the others. */
static bool rows_on_words(const ndx_operands *q, int64_t g) {
  int r = q->rank;
  bool on = q->offset[1] % g == (q->strides[1][r - 2] > 0 ? 0 : g - 1);
  for (int a = 0; a < r && on; a++)
    if (a != r - 2) on = q->strides[1][a] % g == 0;
  return on;
}

/* The elements of a copy's phase-1 source word (ndx_launch.group) for
 * transpose pair q of `bits`-bit elements whose joined k extent is dk: 4 /
 * bytes for 8- and 16-bit elements where every tile row starts on a 4-byte
 * word and ends on one (rows_on_words along a k of stride 1, and dk a
 * multiple of the word's elements); else 1. */
static int64_t copy_words(const ndx_operands *q, int bits, int64_t dk) {
  int64_t g = bits == 8 || bits == 16 ? 32 / bits : 1;
  bool on = g > 1 && q->strides[1][q->rank - 2] == 1 && dk % g == 0 && rows_on_words(q, g);
  return on ? g : 1;
}

/* The elements of a conversion's phase-1 source word (ndx_launch.group)
 * for transpose pair q from a `src_bits`-bit source whose joined k extent
 * is dk, its buffer starting on `align` bytes: from a 4-bit source, 8, a
 * 4-byte word, where every tile row starts and ends on one (rows_on_words
 * along a k of stride 1, and dk a multiple of 8) and the buffer starts on
 * one, else 2, a byte, where every row's pairs lie in whole bytes
 * (rows_on_words, along a k of stride 1 or -1); else 1. (tile_shape takes
 * words into types of up to 16 bits: a tile of 256-element rows of wider
 * ones does not fit, and it goes back to pairs.) */
static int64_t convert_words(const ndx_operands *q, int src_bits, int64_t dk, int64_t align) {
  if (src_bits != 4) return 1;
  if (align >= 4 && q->strides[1][q->rank - 2] == 1 && dk % 8 == 0 && rows_on_words(q, 8)) return 8;
  return rows_on_words(q, 2) ? 2 : 1;
}

/* The elements of a conversion's phase-1 source word (ndx_launch.group)
 * for transpose pair q into a 4-bit destination, a tile byte's pair, from
 * a `src_bits`-bit source whose buffer starts on `align` bytes: 2 where
 * every pair of a tile row (tiles along k start on an even element) lies
 * in one source word of two elements (rows_on_words) that `align` allows,
 * from sources up to 32 bits; else 1. */
static int64_t convert_pairs(const ndx_operands *q, int src_bits, int64_t align) {
  return src_bits <= 32 && 2 * src_bits <= 8 * align && rows_on_words(q, 2) ? 2 : 1;
}

/* The phase-1 slots of a tile_shape tile of tk x tj (k: the source's unit
 * axis, of joined extent dk) whose slots take `group` elements of a
 * source word each (ndx_launch.group): along a tile row of whole sectors,
 * group * 32 elements where the square's are 32 (a long j side shortened
 * until the tile fits with room for a pitch), so that a warp's slots lie
 * in one row; tiles along k start on a word. Sets d's tile, realigns,
 * slots and the first pitch that leaves the banks clear (else the row's
 * own bytes), and returns whether one does. */
static bool tile_slots(ndx_launch *d, const ndx_operands *q, int bits, int src_bits, int64_t dk,
                       int64_t tk, int64_t tj, int64_t group) {
  int r = q->rank;
  int64_t eb = bits / 8, side = NDX_GPU_TILE_SIDE(bits), es = src_bits / 8;
  if (group > 1 && tk == side && dk > side) {
    tk = dk < group * side ? dk : group * side;
    while (tj > side && tj * (tk + 4) * eb > NDX_GPU_TILE_BYTES(bits))
      tj = tj / 2 < side ? side : tj / 2;
  }
  if (tk < dk) tk -= tk % group;
  d->group = group, d->tile_k = tk, d->tile_j = tj, d->pitch = tk * eb;
  bool unit_k = q->strides[1][r - 2] == 1; /* not -1: realigning needs the row's first element */
  int64_t kw = ndx_ceil_div(tk, group);    /* phase 1's slots of a row, of es * group bytes */
  d->realign_k =
      unit_k && es > 0 ? realign(rows_on_sectors(q, 1, r - 2, tk, es), kw, es * group) : 0;
  d->realign_j = realign(rows_on_sectors(q, 0, r - 1, tj, eb), tj, eb);
  d->slots_k = slots(kw, d->realign_k);
  d->slots_j = slots(tj, d->realign_j);
  for (int64_t pitch = tk * eb; tj * pitch <= NDX_GPU_TILE_BYTES(bits); pitch += eb)
    if (banks_clear(pitch, eb, tk, tj, d->slots_k, d->slots_j, group)) {
      d->pitch = pitch;
      return true;
    }
  return false;
}

/* The tile of a matrix of dk x dj `bits`-bit elements that the gpu
 * shape's second joins made (join_outer): each side cut into equal parts,
 * the longest shorter side whose tile leaves room for a pitch within
 * NDX_GPU_TILE_BYTES (75 x 77 of 225 x 693 fp32). */
static void balanced_tile(int64_t dk, int64_t dj, int bits, int64_t *tk, int64_t *tj) {
  int64_t eb = bits / 8, most_k = NDX_GPU_TILE_BYTES(bits) / eb - 4;
  *tk = *tj = 0;
  /* k: each length of equal parts along k, longest first, while it can
   * still be the shorter side of a better tile */
  for (int64_t k = dk < most_k ? dk : most_k, best = 0; k > best;) {
    k = ndx_ceil_div(dk, ndx_ceil_div(dk, k)); /* equal parts no longer than k */
    int64_t most = NDX_GPU_TILE_BYTES(bits) / ((k + 4) * eb);
    int64_t j = ndx_ceil_div(dj, ndx_ceil_div(dj, most));
    if ((k < j ? k : j) > best) *tk = k, *tj = j, best = k < j ? k : j;
    k--;
  }
}

/* The gpu shape's second joins (ndx_launch.h: join_k2, join_j2): where the
 * first joins of transpose pair q made both tile axes' matrix fit one tile
 * with its rows off the sectors on a side, the axes before the joined ones
 * that continue the source's joined run (stride dk along k) or the
 * destination's (dj along j) join too, where that lets balanced_tile cut
 * longer tile sides than the matrix's shorter one, since a row off the
 * sectors wastes about a sector whatever its length. A rank-8 permutation
 * of extents 5 to 11 ("permute rank 8 fp32 [5,7,9,11,5,7,9,11]" of
 * ndx-bench --gpu-model; docs/device.md section 10) joins 45 x 99 first;
 * joined twice, 225 x 693 in tiles of 75 x 77. */
static void join_outer(ndx_launch *d, const ndx_operands *q, int bits) {
  int r = q->rank;
  int64_t eb = bits / 8, dk = q->shape[r - 2] * d->join_k, dj = q->shape[r - 1] * d->join_j;
  if (d->join_k == 1 || d->join_j == 1 || dk * dj * eb > NDX_GPU_TILE_BYTES(bits) ||
      (rows_on_sectors(q, 1, r - 2, dk, eb) && rows_on_sectors(q, 0, r - 1, dj, eb)))
    return;
  int64_t k2 = 1, j2 = 1, sdk2 = 0, ssj2 = 0;
  for (int a = r - 5; a >= 0 && a >= r - 6; a--) {
    if (k2 == 1 && q->shape[a] > 1 && q->strides[1][a] == dk)
      k2 = q->shape[a], sdk2 = q->strides[0][a];
    else if (j2 == 1 && q->shape[a] > 1 && q->strides[0][a] == dj)
      j2 = q->shape[a], ssj2 = q->strides[1][a];
    else
      break;
  }
  if (dk * k2 > INT32_MAX || dj * j2 > INT32_MAX) return; /* ndx_gpu_joined's 32-bit indices */
  int64_t tk, tj;
  balanced_tile(dk * k2, dj * j2, bits, &tk, &tj);
  if ((tk < tj ? tk : tj) <= (dk < dj ? dk : dj)) return;
  d->join_k2 = k2, d->join_j2 = j2, d->join_sdk2 = sdk2, d->join_ssj2 = ssj2;
  d->batch_axes -= (k2 > 1) + (j2 > 1);
}

/* A transpose tile of `bits`-bit elements (8 and up) for pair q, whose
 * transpose axes are r-2 (k, the source's unit axis) and r-1 (j, the
 * destination's), of extents dk x dj (ndx_launch.h): its shape, which
 * sides realign, and the first pitch that leaves the banks clear within
 * NDX_GPU_TILE_BYTES (else the row's own bytes). The source's elements are
 * `src_bits` wide (a conversion's, `convert`; a copy's are `bits`): the
 * tile holds `bits`-bit elements, and the source's sectors decide whether
 * its rows are on them and how phase 1 realigns (a 4-bit source: never;
 * its slots take the 8 elements of a 4-byte source word or the pair of a
 * source byte as convert_words allows, d->group 8 or 2, along rows of 256
 * or 64 elements: a warp's 128 bytes of words, or a sector of bytes). A
 * copy's slots take a source word's elements where copy_words allows,
 * realigning by words. Where no pitch leaves the banks clear with a
 * group's slots, the tile takes the next smaller group. */
static void tile_shape(ndx_launch *d, const ndx_operands *q, int bits, int src_bits, bool convert,
                       int64_t align, int64_t dk, int64_t dj) {
  /* square; a side shorter than the square's with the other not: that
   * side whole, the other as long as the tile allows (a 3 x 1000003
   * transpose, whose 32 x 32 tiles would leave 29 lanes of 32 idle on one
   * side). Both shorter: square still, idle lanes and all, since no pitch
   * keeps both phases of a tile whose warps span several rows clear of
   * conflicts. Square, with one side's rows off sectors: that side
   * NDX_GPU_TILE_RUN bytes long where its extent allows, the source's
   * first (a 16-bit 6000 x 5000 source). */
  int r = q->rank;
  int64_t eb = bits / 8, side = NDX_GPU_TILE_SIDE(bits), elems = side * side;
  int64_t tk = side, tj = side, run = NDX_GPU_TILE_RUN / eb, es = src_bits / 8;
  if (d->join_k2 * d->join_j2 > 1)
    balanced_tile(dk, dj, bits, &tk, &tj);
  else if (d->join_k * d->join_j > 1 && dk * dj * eb <= NDX_GPU_TILE_BYTES(bits))
    tk = dk, tj = dj;
  else if (dk < side && dj >= side)
    tk = dk, tj = long_side(dj, tk, eb, elems, side);
  else if (dj < side && dk >= side)
    tj = dj, tk = long_side(dk, tj, eb, elems, side);
  else if (dk > side && es > 0 && !rows_on_sectors(q, 1, r - 2, side, es))
    tk = dk < run ? dk : run;
  else if (dj > side && !rows_on_sectors(q, 0, r - 1, side, eb))
    tj = dj < run ? dj : run;
  int64_t group = convert ? convert_words(q, src_bits, dk, align) : copy_words(q, bits, dk);
  bool clear = tile_slots(d, q, bits, src_bits, dk, tk, tj, group);
  if (!clear && group == 8) /* a 4-bit source's bytes */
    clear = tile_slots(d, q, bits, src_bits, dk, tk, tj, 2);
  if (!clear && d->group > 1)
    tile_slots(d, q, bits, src_bits, dk, tk, tj, 1); /* a slot an element: every pitch tried */
}

void ndx_launch_bytes(const ndx_operands *q, int bits, int64_t *first, int64_t *end) {
  int64_t lo, hi;
  ndx_operands_span(q, 0, &lo, &hi);
  ndx_bytes_span(lo, hi, bits, first, end);
}

int64_t ndx_launch_bytes_chunk(int64_t bytes, int64_t numel, int64_t elems) {
  int64_t chunk = ndx_ceil_div(elems * bytes, numel);
  return chunk < 1 ? 1 : chunk;
}

void ndx_launch_join(ndx_launch *d, const ndx_operands *q, int bits, int64_t side) {
  int r = q->rank, gk = 0, gj = 0;
  d->join_k = d->join_j = d->join_k2 = d->join_j2 = 1;
  d->join_sdk = d->join_ssj = d->join_sdk2 = d->join_ssj2 = 0;
  if (bits >= 8 && bits <= 64 && q->strides[0][r - 1] == 1 && q->strides[1][r - 2] == 1 &&
      q->shape[r - 2] < side && q->shape[r - 1] < side) {
    ndx_operands near = *q; /* reach 1: the axes it joins are next to the tiles, none moves */
    ndx_copy_tile_join(&near, side, side, 1, &gk, &gj);
  }
  if (gj) d->join_j = q->shape[r - 3], d->join_ssj = q->strides[1][r - 3];
  if (gk) d->join_k = q->shape[r - 3 - gj], d->join_sdk = q->strides[0][r - 3 - gj];
  d->batch_axes = r - 2 - gk - gj;
}

void ndx_launch_count_tiles(ndx_launch *d, const ndx_operands *q) {
  int r = q->rank;
  int64_t dk = q->shape[r - 2] * d->join_k * d->join_k2;
  int64_t dj = q->shape[r - 1] * d->join_j * d->join_j2;
  d->tiles_j = ndx_ceil_div(dj, d->tile_j);
  d->row_units = ndx_ceil_div(dk, d->tile_k) * d->tiles_j;
  d->units = q->numel / (dk * dj) * d->row_units;
}

/* Rows of pair q (vectors of d->vector bytes, d->row_units of them a
 * row) through work-group memory, for work-groups of `local`: where either
 * side's rows do not all start on a sector and a row is longer than a
 * warp's one access (shorter, it touches the same sectors however its
 * lanes sit), and a pass holds a warp of vectors. Sets the stage fields
 * of d (ndx_launch.h): a pass of up to NDX_GPU_BATCH vectors a work-item
 * within NDX_GPU_STAGE_BYTES, a row whole where its slots fit a pass,
 * else in segments that leave a pass room for a sector's skew; d->row_units
 * becomes the segments of a row. Returns whether it does. */
static bool rows_stage(ndx_launch *d, const ndx_operands *q, int bits, int64_t local) {
  int r = q->rank;
  int64_t eb = bits / 8, v = d->vector, sector = NDX_GPU_SECTOR / v;
  bool on_s = rows_on_sectors(q, 1, r - 1, 0, eb), on_d = rows_on_sectors(q, 0, r - 1, 0, eb);
  int64_t pass = local * NDX_GPU_BATCH;
  if (pass > NDX_GPU_STAGE_BYTES / v) pass = NDX_GPU_STAGE_BYTES / v;
  pass = pass / NDX_GPU_WARP * NDX_GPU_WARP;
  if ((on_s && on_d) || d->row_units <= NDX_GPU_WARP || pass < 2 * NDX_GPU_WARP) return false;
  d->realign_k = on_s ? 0 : sector;
  d->realign_j = on_d ? 0 : sector;
  d->stage_units = d->row_units;
  if (slots(d->row_units, sector) > pass) d->stage_units = pass - sector;
  d->slots_k = d->slots_j = slots(d->stage_units, sector);
  d->stage_segs = pass / d->slots_k;
  d->row_units = ndx_ceil_div(d->row_units, d->stage_units);
  return true;
}

/* ndx_launch_gpu and ndx_launch_gpu_convert: plan p's launch, its source
 * elements `src_bits` wide, a conversion's where `convert`. */
static void launch_gpu(const ndx_copy_plan *p, int src_bits, bool convert, int64_t align,
                       int64_t local, int64_t max_groups, ndx_launch *d, int64_t *groups) {
  const ndx_operands *q = &p->q;
  int r = q->rank;
  memset(d, 0, sizeof *d);
  switch (p->path) {
  case NDX_PATH_ROWS: {
    int64_t n = q->shape[r - 1];
    d->vector = row_vector(q, p->bits);
    d->row_units = n * (p->bits / 8) / d->vector;
    bool staged = rows_stage(d, q, p->bits, local);
    d->units = q->numel / n * d->row_units;
    *groups = ndx_ceil_div(d->units, staged ? d->stage_segs : local * NDX_GPU_BATCH);
    int shift;
    ndx_pack_magic(d->row_units, 64, &d->row_magic, &shift);
    d->row_shift = shift;
    break;
  }
  case NDX_PATH_TRANSPOSE: {
    ndx_launch_join(d, q, p->bits, NDX_GPU_TILE);
    if (p->bits < 8) {
      d->tile_k = d->tile_j = d->slots_k = d->slots_j = NDX_GPU_TILE_SIDE(p->bits);
      d->pitch = NDX_GPU_TILE_BITS_PITCH;
      if (convert) d->group = convert_pairs(q, src_bits, align);
    } else {
      join_outer(d, q, p->bits);
      tile_shape(d, q, p->bits, src_bits, convert, align, q->shape[r - 2] * d->join_k * d->join_k2,
                 q->shape[r - 1] * d->join_j * d->join_j2);
    }
    ndx_launch_count_tiles(d, q);
    *groups = d->units;
    break;
  }
  case NDX_PATH_BYTES: {
    int64_t end;
    ndx_launch_bytes(q, p->bits, &d->first, &end);
    d->units = end - d->first;
    *groups = ndx_ceil_div(d->units, local);
    break;
  }
  default: /* gather */
    d->units = q->numel;
    *groups = ndx_ceil_div(d->units, local * NDX_GPU_BATCH);
  }
  if (*groups > max_groups) *groups = max_groups;
}

void ndx_launch_gpu(const ndx_copy_plan *p, int64_t local, int64_t max_groups, ndx_launch *d,
                    int64_t *groups) {
  launch_gpu(p, p->bits, false, 16, local, max_groups, d, groups);
}

void ndx_launch_gpu_convert(const ndx_copy_plan *p, int src_bits, int64_t align, int64_t local,
                            int64_t max_groups, ndx_launch *d, int64_t *groups) {
  launch_gpu(p, src_bits, true, align, local, max_groups, d, groups);
}
