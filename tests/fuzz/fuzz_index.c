/* fuzz_index.c: the gather and scatter planner both device runtimes share
 * (src/host/index_plan.h), which makes every host refusal of ndx_cl_gather,
 * ndx_cl_scatter, ndx_cuda_gather and ndx_cuda_scatter before a buffer is
 * looked at.
 *
 * Each input is a gather or a scatter under one of those four names: a
 * layout of S, the other side's layout (S but on the axis), an index layout
 * of S (sometimes broadcast), an axis, flags, an element width and an index
 * width, each sometimes hostile (a shape that does not match, a layout no
 * ndx_ call makes, a destination that repeats a position, an unknown flag or
 * width). An independent statement of the rules (ndx_index.h, index_plan.h)
 * says whether ndx_index_plan_make must refuse and with which status; a
 * refusal must name the call and an argument that breaks a rule and leave
 * the plan untouched. An accepted plan must state the call (form, widths,
 * site, spans equal to the layouts' own byte spans), its two packs must give
 * for every element and every valid index value positions inside the three
 * spans and the claims table, and the check pass must visit every element of
 * the index's support once. Its two passes, run by their documented rules on
 * buffers with index values from the input, must write exactly what the
 * definition says: nothing when an index value is out of range (the fault
 * naming such an element), else dst[i] = src[i with `axis` = index[i]] for a
 * gather, and for a scatter the last element in C order sent to each
 * destination element (with NDX_INDEX_UNIQUE, any one of them), every other
 * bit of dst as it was. */
#define FUZZ_NAME "index"
#include "fuzz.h"

#include "host/index_plan.h"

#define NDX_WIDE 0
#include "ndx/ndx_device.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx/ndx_device.h"

#define MAX_BYTES (1 << 16)  /* the largest buffer the passes are run on */
#define MAX_CLAIMS (1 << 16) /* the largest claims table they are run with */
#define PACK_WORDS (NDX_PACK_MAX_BYTES(NDX_COPY_OPS, NDX_MAX_RANK) / 8 + 1)

static uint64_t check_pack[PACK_WORDS], copy_pack[PACK_WORDS];
static uint8_t dst_before[MAX_BYTES], dst_mem[MAX_BYTES], dst_want[MAX_BYTES];
static uint8_t src_mem[MAX_BYTES], index_mem[MAX_BYTES];
static uint32_t claims[MAX_CLAIMS];
static bool seen[FZ_MAX_POSITIONS], matched[FZ_MAX_POSITIONS];
static int64_t coord[FZ_MAX_POSITIONS], target[FZ_MAX_POSITIONS], source[FZ_MAX_POSITIONS];
static int64_t writer[FZ_MAX_POSITIONS], writers[FZ_MAX_POSITIONS];

/* One call, as decoded. */
typedef struct call {
  bool scatter;
  const char *name;
  int bits, index_bits, axis;
  unsigned flags;
  ndx_layout dst, src, index;
} call;

static const int widths[] = {1, 2, 4, 8, 16, 32, 64, 128};

/* ---- The rules, stated independently ------------------------------------ */

static bool bits_ok(int bits) {
  for (int k = 0; k < 8; k++)
    if (bits == widths[k]) return true;
  return false;
}

/* ndx_is_distinct's rule (ndx_layout.h): no element, or, with the axes of
 * extent > 1 ordered by |stride| (ties by axis), each |stride| exceeds the
 * reach (d-1)*|s| of the axes before it. */
static bool distinct(const ndx_layout *l) {
  bool used[NDX_MAX_RANK] = {false};
  for (int a = 0; a < l->rank; a++)
    if (l->shape[a] == 0) return true;
  fz_i128 reach = 0;
  for (;;) {
    int next = -1;
    fz_i128 s = 0;
    for (int a = 0; a < l->rank; a++) {
      fz_i128 t = l->strides[a] < 0 ? -(fz_i128)l->strides[a] : l->strides[a];
      if (!used[a] && l->shape[a] > 1 && (next < 0 || t < s)) {
        next = a;
        s = t;
      }
    }
    if (next < 0) return true;
    if (s <= reach) return false;
    used[next] = true;
    reach += (l->shape[next] - 1) * s;
  }
}

static bool same_shape(const ndx_layout *a, const ndx_layout *b) {
  if (a->rank != b->rank) return false;
  for (int x = 0; x < a->rank; x++)
    if (a->shape[x] != b->shape[x]) return false;
  return true;
}

/* What the rules say of a call: nothing, or the statuses (bit -status) its
 * refusal may have and the arguments its message may name. */
typedef struct verdict {
  unsigned statuses;
  int n;
  const char *names[16];
} verdict;

static void refuse(verdict *v, ndx_status st, const char *name) {
  v->statuses |= 1u << -st;
  v->names[v->n++] = name;
}

static verdict judge(const call *c) {
  verdict v = {0, 0, {NULL}};
  if (!bits_ok(c->bits)) refuse(&v, NDX_EINVAL, "bits");
  if (c->index_bits != 32 && c->index_bits != 64) refuse(&v, NDX_EINVAL, "index_bits");
  unsigned known = NDX_INDEX_WRAP | (c->scatter ? NDX_INDEX_UNIQUE : 0u);
  if (c->flags & ~known) refuse(&v, NDX_EINVAL, "flags");
  bool dst_ok = fz_made(&c->dst), src_ok = fz_made(&c->src), index_ok = fz_made(&c->index);
  if (!dst_ok) refuse(&v, NDX_EINVAL, "dst_l");
  if (!src_ok) refuse(&v, NDX_EINVAL, "src_l");
  if (!index_ok) refuse(&v, NDX_EINVAL, "index_l");
  if (!dst_ok || !src_ok || !index_ok) return v; /* no shape to compare */
  const ndx_layout *same = c->scatter ? &c->src : &c->dst, *other = c->scatter ? &c->dst : &c->src;
  const char *other_name = c->scatter ? "dst_l" : "src_l";
  if (!same_shape(same, &c->index)) refuse(&v, NDX_EINVAL, "index_l");
  if (c->axis < 0 || c->axis >= same->rank) {
    refuse(&v, NDX_EINVAL, "axis");
    return v;
  }
  bool match = other->rank == same->rank;
  for (int a = 0; match && a < same->rank; a++)
    match = a == c->axis || other->shape[a] == same->shape[a];
  if (!match) refuse(&v, NDX_EINVAL, other_name);
  if (!distinct(&c->dst)) refuse(&v, NDX_EINVAL, "dst_l");
  bool claims_form = c->scatter && (c->bits < 8 || !(c->flags & NDX_INDEX_UNIQUE));
  if (claims_form && same->shape[c->axis] > INT32_MAX) refuse(&v, NDX_ERANGE, "src_l");
  return v;
}

/* The bytes [*lo, *end) the positions of `l` touch at `bits` bits, by the
 * definition; [0, 0) with no element. */
static void byte_span(const ndx_layout *l, int bits, int64_t *lo, int64_t *end) {
  fz_i128 min = l->offset, max = l->offset;
  for (int a = 0; a < l->rank; a++) {
    if (l->shape[a] == 0) {
      *lo = *end = 0;
      return;
    }
    fz_i128 reach = (fz_i128)(l->shape[a] - 1) * l->strides[a];
    if (reach < 0)
      min += reach;
    else
      max += reach;
  }
  *lo = (int64_t)(min * bits / 8);
  *end = (int64_t)(((max + 1) * bits + 7) / 8);
}

/* True iff element `pos` of `bits` bits lies in the bytes [lo, end). */
static bool inside(fz_i128 pos, int bits, int64_t lo, int64_t end) {
  return pos * bits >= (fz_i128)lo * 8 && (pos + 1) * bits <= (fz_i128)end * 8;
}

/* ndx_index_value by its rule: v, or v + d for a negative v with `wrap`,
 * when that lies in [0, d); else -1. */
static int64_t coordinate(fz_i128 v, int64_t d, bool wrap) {
  fz_i128 w = wrap && v < 0 ? v + d : v;
  return w >= 0 && w < d ? (int64_t)w : -1;
}

/* ---- Decoding ----------------------------------------------------------- */

/* Writes a layout by hand, as a caller may. */
static void written(ndx_layout *out, int rank, const int64_t *shape, const int64_t *strides,
                    int64_t offset) {
  memset(out, 0, sizeof *out);
  out->rank = rank;
  out->offset = offset;
  for (int a = 0; a < rank && a < NDX_MAX_RANK; a++) {
    out->shape[a] = shape[a];
    out->strides[a] = strides[a];
  }
}

/* `out` with the values given, made by ndx_make; a layout ndx_make refuses
 * is kept as written, for the planner to refuse. */
static void remake(ndx_layout *out, int rank, const int64_t *shape, const int64_t *strides,
                   int64_t offset) {
  ndx_layout l;
  if (ndx_make(&l, rank, shape, strides, offset) == NDX_OK) {
    fz_check_layout(&l);
    *out = l;
  } else {
    written(out, rank, shape, strides, offset);
  }
}

/* A layout of `shape` (rank axes) with strides the input picks, as
 * fz_sibling does: random, those of a C-order parent (sometimes padded or
 * reversed), or those of `like` (sometimes negated); or wide ones. */
static void pick_layout(fz_reader *r, int rank, const int64_t *shape, const ndx_layout *like,
                        ndx_layout *out) {
  int64_t strides[NDX_MAX_RANK], step = 1;
  fz_i128 offset = fz_byte(r) % 8;
  uint8_t how = fz_byte(r) % 5;
  for (int a = rank - 1; a >= 0; a--) {
    if (how == 0) {
      strides[a] = fz_small(r, 9);
    } else if (how == 4) {
      strides[a] = fz_wide(r);
    } else if (how == 1) {
      strides[a] = step * (fz_byte(r) % 6 == 0 ? -1 : 1);
      step *= (shape[a] > 0 && shape[a] < 1000 ? shape[a] : 1) + (fz_byte(r) % 5 == 0);
    } else {
      strides[a] = (a < like->rank ? like->strides[a] : 1) * (how == 3 ? -1 : 1);
    }
    offset += fz_flip_offset(shape[a], strides[a]);
  }
  remake(out, rank, shape, strides, fz_clamp(offset));
}

/* The same layout with one field broken by hand; some breaks keep it
 * within the limits (a stride on an extent-1 axis, values past the rank). */
static void break_layout(fz_reader *r, ndx_layout *l) {
  int a = l->rank > 0 ? fz_byte(r) % l->rank : 0;
  switch (fz_byte(r) % 9) {
  case 0:
    l->rank = fz_byte(r) % 2 ? NDX_MAX_RANK + 1 : -1;
    break;
  case 1:
    if (l->rank > 0) l->shape[a] = -1 - fz_byte(r) % 3;
    break;
  case 2:
    if (l->rank > 0) l->shape[a] = NDX_MAX_NUMEL + 1;
    break;
  case 3:
    if (l->rank > 0) l->strides[a] = INT64_MIN;
    break;
  case 4:
    l->offset = fz_byte(r) % 2 ? -1 : NDX_MAX_NUMEL;
    break;
  case 5:
    if (l->rank > 0) l->shape[a] = 0;
    l->offset = 1 + fz_byte(r) % 4;
    break;
  case 6:
    if (l->rank > 0 && l->shape[a] == 1) l->strides[a] = fz_small(r, 9);
    break;
  case 7:
    if (l->rank < NDX_MAX_RANK) l->shape[l->rank] = l->strides[l->rank] = 7;
    break;
  default:
    l->offset = fz_wide(r);
    break;
  }
}

/* A destination that repeats a position: stride 0, or another axis's
 * stride, on an axis of extent > 1. */
static void repeat_positions(fz_reader *r, ndx_layout *l) {
  if (!fz_made(l) || l->rank == 0) return;
  int64_t strides[NDX_MAX_RANK];
  memcpy(strides, l->strides, sizeof strides);
  int a = fz_byte(r) % l->rank, b = fz_byte(r) % l->rank;
  strides[a] = fz_byte(r) % 2 ? 0 : strides[b];
  remake(l, l->rank, l->shape, strides, l->offset);
}

/* A shape that no longer matches: an axis more or less, or an extent
 * changed, on the other side's layout or the index's. */
static void mismatch(fz_reader *r, call *c) {
  ndx_layout *l = fz_byte(r) % 2 ? &c->index : c->scatter ? &c->dst : &c->src;
  if (!fz_made(l)) return;
  int rank = l->rank;
  int64_t shape[NDX_MAX_RANK], strides[NDX_MAX_RANK];
  memcpy(shape, l->shape, sizeof shape);
  memcpy(strides, l->strides, sizeof strides);
  uint8_t how = fz_byte(r) % 3;
  if (how == 0 && rank < NDX_MAX_RANK) {
    shape[rank] = 1 + fz_byte(r) % 3;
    strides[rank++] = 1;
  } else if (how == 1 && rank > 0) {
    rank--;
  } else if (rank > 0) {
    shape[fz_byte(r) % rank] += 1;
  }
  fz_i128 offset = 0;
  for (int a = 0; a < rank; a++) offset += fz_flip_offset(shape[a], strides[a]);
  remake(l, rank, shape, strides, fz_clamp(offset));
}

/* Decodes a call; false when the input's first layout is refused (after
 * checking the refusal). */
static bool decode(fz_reader *r, call *c) {
  static const char *const names[2][2] = {{"ndx_cl_gather", "ndx_cl_scatter"},
                                          {"ndx_cuda_gather", "ndx_cuda_scatter"}};
  uint8_t head = fz_byte(r);
  c->scatter = head & 1;
  c->name = names[head >> 1 & 1][c->scatter];
  ndx_layout same, other;
  if (!fz_layout(r, &same)) return false;
  uint8_t ab = fz_byte(r);
  c->axis = ab < 240 ? (same.rank > 0 ? ab % same.rank : 0) : (int)fz_small(r, 34);
  int64_t shape[NDX_MAX_RANK];
  memcpy(shape, same.shape, sizeof shape);
  uint8_t eb = fz_byte(r);
  if (c->axis >= 0 && c->axis < same.rank) shape[c->axis] = eb < 248 ? eb % 5 : fz_wide(r);
  pick_layout(r, same.rank, shape, &same, &other);
  pick_layout(r, same.rank, same.shape, &same, &c->index);
  /* broadcast: none, an index_select's (every axis but `axis`), or some */
  uint8_t bb = fz_byte(r) % 4, some = bb == 2 ? fz_byte(r) : 0;
  if ((bb == 1 || bb == 2) && fz_made(&c->index)) {
    int64_t strides[NDX_MAX_RANK];
    memcpy(strides, c->index.strides, sizeof strides);
    for (int a = 0; a < c->index.rank; a++)
      if (a != c->axis && (bb == 1 || (some >> a % 8 & 1))) strides[a] = 0;
    remake(&c->index, c->index.rank, c->index.shape, strides, c->index.offset);
  }
  c->dst = c->scatter ? other : same;
  c->src = c->scatter ? same : other;
  uint8_t hostile = fz_byte(r);
  if (hostile >= 240)
    break_layout(r, hostile % 3 == 0 ? &c->dst : hostile % 3 == 1 ? &c->src : &c->index);
  else if (hostile >= 224)
    mismatch(r, c);
  else if (hostile >= 208)
    repeat_positions(r, &c->dst);
  uint8_t wb = fz_byte(r);
  c->bits = wb < 240 ? widths[wb % 8] : (int)fz_small(r, 130);
  uint8_t ib = fz_byte(r);
  c->index_bits = ib < 240 ? (ib & 1 ? 64 : 32) : (int)fz_small(r, 70);
  uint8_t fb = fz_byte(r);
  c->flags = fb < 240 ? fb % (c->scatter ? 4u : 2u) : (unsigned)fz_wide(r);
  return true;
}

/* ---- Reading the packs -------------------------------------------------- */

static int64_t position(const ndx_pack_head *h, int k, int64_t i) {
  return h->wide ? ndx_position_w64(h, k, i) : ndx_position_w32(h, k, (int32_t)i);
}

static int64_t stride(const ndx_pack_head *h, int k, int a) {
  return h->wide ? ndx_stride_w64(h, k, a) : ndx_stride_w32(h, k, a);
}

/* The indices a check visits of `numel`: all of them when `all`, else the
 * first, the last and some from the input. */
static int64_t sample(fz_reader *r, int64_t numel, int64_t t, bool all) {
  if (all) return t;
  if (t == 0 || t == 1) return t ? numel - 1 : 0;
  uint64_t v = 0;
  for (int k = 0; k < 7; k++) v = v << 8 | fz_byte(r);
  return (int64_t)(v % (uint64_t)numel);
}

/* ---- Buffers ------------------------------------------------------------ */

static void fill(oracle_rng *rng, uint8_t *buf, int64_t size) {
  for (int64_t k = 0; k < size; k++) buf[k] = (uint8_t)oracle_next(rng);
}

static int64_t load_index(const uint8_t *buf, int64_t pos, int bits) {
  int n = bits / 8;
  uint64_t v = 0;
  for (int b = n - 1; b >= 0; b--) v = v << 8 | buf[pos * n + b];
  return bits == 32 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

static void store_index(uint8_t *buf, int64_t pos, int bits, int64_t value) {
  int n = bits / 8;
  for (int b = 0; b < n; b++) buf[pos * n + b] = (uint8_t)((uint64_t)value >> 8 * b);
}

/* Element `pf` of `from` into element `pt` of `to`, `bits` bits each (sub-byte
 * elements little bit-endian), no other bit changed. */
static void copy_element(uint8_t *to, int64_t pt, const uint8_t *from, int64_t pf, int bits) {
  if (bits >= 8) {
    memmove(to + pt * (bits / 8), from + pf * (bits / 8), (size_t)bits / 8);
    return;
  }
  unsigned mask = (1u << bits) - 1, st = (unsigned)(pt * bits % 8), sf = (unsigned)(pf * bits % 8);
  unsigned v = (unsigned)from[pf * bits / 8] >> sf & mask;
  uint8_t *b = &to[pt * bits / 8];
  *b = (uint8_t)((*b & ~(mask << st)) | v << st);
}

static bool same_element(const uint8_t *a, int64_t pa, const uint8_t *b, int64_t pb, int bits) {
  if (bits >= 8) return memcmp(a + pa * (bits / 8), b + pb * (bits / 8), (size_t)bits / 8) == 0;
  unsigned mask = (1u << bits) - 1;
  return ((unsigned)a[pa * bits / 8] >> (pa * bits % 8) & mask) ==
         ((unsigned)b[pb * bits / 8] >> (pb * bits % 8) & mask);
}

/* An index value: in range (wrapped ones too with `wrap`) unless `hostile`
 * and the input says otherwise. */
static int64_t pick_value(fz_reader *r, int64_t d, bool wrap, bool hostile) {
  uint8_t b = fz_byte(r);
  if (d > 0 && (!hostile || b < 224)) {
    int64_t k = (int64_t)((uint64_t)(b >> 1) % (uint64_t)d);
    return wrap && (b & 1) ? k - d : k;
  }
  switch (b % 8) {
  case 0:
    return d;
  case 1:
    return -1;
  case 2:
    return -d - 1;
  case 3:
    return INT64_MIN;
  case 4:
    return INT64_MAX;
  case 5:
    return (INT64_C(1) << 32) + (d > 0 ? (b >> 3) % d : 0);
  case 6:
    return INT32_MIN;
  default:
    return fz_wide(r);
  }
}

/* ---- The plan ----------------------------------------------------------- */

/* Runs the two passes of plan `p` by their rules (index_plan.h) on buffers
 * the input fills, and compares dst with the definition. */
static void run_passes(fz_reader *r, oracle_rng *rng, const call *c, const ndx_index_plan *p,
                       const ndx_pack_head *ch, const ndx_pack_head *cp) {
  const ndx_layout *same = c->scatter ? &c->src : &c->dst;
  int axis = c->axis, ib = c->index_bits;
  int64_t numel = oracle_numel(same), ndst = oracle_numel(&c->dst), d = p->site.d;
  if (numel > FZ_MAX_POSITIONS || ndst > FZ_MAX_POSITIONS || ch->numel > FZ_MAX_POSITIONS ||
      p->dst_end > MAX_BYTES || p->src_end > MAX_BYTES || p->index_end > MAX_BYTES ||
      p->nclaims > MAX_CLAIMS)
    return;
  fill(rng, dst_before, p->dst_end);
  memcpy(dst_mem, dst_before, (size_t)p->dst_end);
  fill(rng, src_mem, p->src_end);
  fill(rng, index_mem, p->index_end);
  bool wrap = p->site.wrap, hostile = fz_byte(r) >= 192, fault = false;
  int64_t idx[NDX_MAX_RANK];
  for (int64_t i = 0; i < numel; i++) {
    oracle_unravel(same->rank, same->shape, i, idx);
    store_index(index_mem, oracle_position(&c->index, idx), ib, pick_value(r, d, wrap, hostile));
  }
  for (int64_t i = 0; i < numel; i++) {
    oracle_unravel(same->rank, same->shape, i, idx);
    coord[i] = coordinate(load_index(index_mem, oracle_position(&c->index, idx), ib), d, wrap);
    fault = fault || coord[i] < 0;
  }

  /* the check pass */
  bool claims_form = ndx_index_form_claims(p->form), found = false;
  int64_t fault_order = 0, fault_value = 0;
  memset(claims, 0, sizeof *claims * (size_t)p->nclaims);
  for (int64_t t = 0; t < ch->numel; t++) {
    int64_t v = load_index(index_mem, position(ch, NDX_CHECK_INDEX, t), ib);
    int64_t k = coordinate(v, d, wrap);
    if (k < 0) {
      if (!found) {
        fault_order = position(ch, NDX_CHECK_ORDER, t);
        fault_value = v;
      }
      found = true;
    } else if (claims_form) {
      int64_t slot = position(ch, NDX_CHECK_CLAIM, t) + k * p->claim_stride;
      fz_check(slot >= 0 && slot < p->nclaims, "the check pass claims inside the claims table");
      uint32_t j = (uint32_t)(position(ch, NDX_CHECK_COORD, t) + 1);
      claims[slot] = claims[slot] > j ? claims[slot] : j;
    }
  }
  fz_check(found == fault, "the check pass finds an index value out of range exactly when one is");
  if (fault) {
    oracle_unravel(same->rank, same->shape, fault_order, idx);
    int64_t v = load_index(index_mem, oracle_position(&c->index, idx), ib);
    fz_check(v == fault_value && coordinate(v, d, wrap) < 0,
             "the fault names an element whose index value is out of range, and that value");
    char value[24];
    snprintf(value, sizeof value, "%lld", (long long)v);
    ndx_status st = ndx_index_fault(&p->site, fault_order, v);
    const char *msg = ndx_last_error();
    size_t len = strlen(c->name);
    fz_check(st == NDX_ERANGE && strncmp(msg, c->name, len) == 0 && msg[len] == ':' &&
                 strstr(msg, value) != NULL,
             "the fault's message names the call and the value");
    return; /* the copy pass copies nothing */
  }

  /* the copy pass */
  int pb = p->bits;
  for (int64_t e = 0; e < cp->numel; e++) {
    int64_t p2 = position(cp, NDX_COPY_INDEX, e), v;
    if (p->form == NDX_INDEX_CLAIMS) {
      fz_check(p2 >= 0 && p2 < p->nclaims, "the claims form reads inside the claims table");
      v = claims[p2];
    } else {
      v = load_index(index_mem, p2, ib);
    }
    int64_t k = coordinate((fz_i128)v - p->bias, p->copy_d, p->copy_wrap);
    if (k < 0) continue;
    if (p->form == NDX_INDEX_WINNERS) {
      int64_t slot = position(cp, NDX_COPY_CLAIM, e) + k * p->claim_stride;
      fz_check(slot >= 0 && slot < p->nclaims, "the winners form reads inside the claims table");
      if (claims[slot] != (uint32_t)(position(cp, NDX_COPY_COORD, e) + 1)) continue;
    }
    int64_t pd = position(cp, NDX_COPY_DST, e) + k * p->step[0];
    int64_t ps = position(cp, NDX_COPY_SRC, e) + k * p->step[1];
    fz_check(inside(pd, pb, p->dst_lo, p->dst_end) && inside(ps, pb, p->src_lo, p->src_end),
             "the copy pass copies inside the spans");
    copy_element(dst_mem, pd, src_mem, ps, pb);
  }

  /* the definition: the last element in C order that goes to each
   * destination element, and where it comes from */
  for (int64_t e = 0; e < ndst; e++) {
    writer[e] = -1;
    writers[e] = 0;
    matched[e] = false;
  }
  int64_t didx[NDX_MAX_RANK];
  for (int64_t i = 0; i < numel; i++) {
    oracle_unravel(same->rank, same->shape, i, idx);
    memcpy(didx, idx, sizeof idx);
    if (c->scatter)
      didx[axis] = coord[i];
    else
      idx[axis] = coord[i];
    int64_t e = 0;
    for (int a = 0; a < c->dst.rank; a++) e = e * c->dst.shape[a] + didx[a];
    target[i] = e;
    source[i] = oracle_position(&c->src, idx);
    writer[e] = source[i];
    writers[e]++;
  }
  for (int64_t i = 0; i < numel; i++) {
    oracle_unravel(c->dst.rank, c->dst.shape, target[i], didx);
    if (same_element(dst_mem, oracle_position(&c->dst, didx), src_mem, source[i], c->bits))
      matched[target[i]] = true;
  }
  memcpy(dst_want, dst_before, (size_t)p->dst_end);
  for (int64_t e = 0; e < ndst; e++) {
    if (writer[e] < 0) continue;
    oracle_unravel(c->dst.rank, c->dst.shape, e, didx);
    int64_t pd = oracle_position(&c->dst, didx);
    if (p->form == NDX_INDEX_UNIQUE_SCATTER && writers[e] > 1) {
      fz_check(matched[e],
               "a contested element of a unique scatter holds one of its sources whole");
      copy_element(dst_want, pd, dst_mem, pd, c->bits);
    } else {
      copy_element(dst_want, pd, src_mem, writer[e], c->bits);
    }
  }
  fz_check(memcmp(dst_mem, dst_want, (size_t)p->dst_end) == 0,
           "the passes write what the definition says and no other bit");
}

/* Every promise of an accepted plan. */
static void check_plan(fz_reader *r, oracle_rng *rng, const call *c, const ndx_index_plan *p) {
  fz_checked++;
  const ndx_layout *same = c->scatter ? &c->src : &c->dst,
                   *indexed = c->scatter ? &c->dst : &c->src;
  int axis = c->axis, rank = same->rank, ib = c->index_bits;
  bool wrap = (c->flags & NDX_INDEX_WRAP) != 0;
  ndx_index_form form = !c->scatter                          ? NDX_INDEX_GATHER
                        : c->bits < 8                        ? NDX_INDEX_CLAIMS
                        : (c->flags & NDX_INDEX_UNIQUE) != 0 ? NDX_INDEX_UNIQUE_SCATTER
                                                             : NDX_INDEX_WINNERS;
  fz_check(p->form == form, "the form is the call's");
  fz_check(p->index_bits == ib && (p->bits == c->bits || (c->bits < 8 && p->bits == 8 && p->rows)),
           "the widths are the call's, or bytes for rows of whole bytes");
  fz_check(strcmp(p->site.call, c->name) == 0 && p->site.scatter == c->scatter &&
               p->site.wrap == wrap && p->site.axis == axis && p->site.rank == rank &&
               p->site.d == indexed->shape[axis] &&
               memcmp(p->site.shape, same->shape, sizeof(int64_t) * (size_t)rank) == 0,
           "the site names the call, the axis, its extent on the indexed side and S");
  int64_t numel = oracle_numel(same);
  fz_check(p->empty == (numel == 0), "empty iff S has no element");
  int64_t lo, end;
  byte_span(&c->dst, c->bits, &lo, &end);
  fz_check(p->dst_lo == lo && p->dst_end == end, "the destination span is dst_l's bytes");
  byte_span(&c->src, c->bits, &lo, &end);
  fz_check(p->src_lo == lo && p->src_end == end, "the source span is src_l's bytes");
  byte_span(&c->index, ib, &lo, &end);
  fz_check(p->index_lo == lo && p->index_end == end, "the index span is index_l's bytes");
  bool claims_form = ndx_index_form_claims(form);
  fz_check(claims_form || (p->nclaims == 0 && p->claim_stride == 0), "no claims, no table");

  size_t used;
  memset(check_pack, 0, sizeof check_pack);
  memset(copy_pack, 0, sizeof copy_pack);
  fz_check(ndx_index_plan_check_pack(p, check_pack, sizeof check_pack, &used) == NDX_OK &&
               ndx_index_plan_copy_pack(p, copy_pack, sizeof copy_pack, &used) == NDX_OK,
           "both packs fit NDX_PACK_MAX_BYTES of their operands");
  const ndx_pack_head *ch = (const ndx_pack_head *)check_pack;
  const ndx_pack_head *cp = (const ndx_pack_head *)copy_pack;
  fz_check(ch->wide == p->wide && cp->wide == p->wide, "both packs in the plan's form");
  fz_check(ch->nops == NDX_CHECK_OPS && (int)ch->bits == ib &&
               (int)cp->nops == (form == NDX_INDEX_WINNERS ? NDX_COPY_OPS : 3) &&
               (int)cp->bits == p->bits,
           "the packs' operands and widths");
  int64_t support = 1; /* the index's support: S without the axes it broadcasts */
  for (int a = 0; a < rank; a++)
    support *= a == axis || c->index.strides[a] != 0 ? same->shape[a] : 1;
  int64_t copied = form == NDX_INDEX_CLAIMS ? oracle_numel(&c->dst) : numel;
  int64_t per = p->bits != c->bits ? 8 / c->bits : 1; /* elements in a widened byte */
  fz_check(ch->numel == support && cp->numel == copied / per,
           "the check pass runs over the index's support, the copy pass over S (dst's shape "
           "for claims), in bytes where widened");
  if (p->empty) return; /* nothing is launched */

  int in = (int)cp->rank - 1;
  if (p->rows)
    fz_check(p->bits >= 8 && stride(cp, NDX_COPY_DST, in) == 1 &&
                 stride(cp, NDX_COPY_SRC, in) == 1 && stride(cp, NDX_COPY_INDEX, in) == 0 &&
                 (form != NDX_INDEX_WINNERS ||
                  (stride(cp, NDX_COPY_CLAIM, in) == 0 && stride(cp, NDX_COPY_COORD, in) == 0)),
             "rows: innermost strides 1, 1 and 0, whole bytes");

  /* the check pass: every element of the support once, inside the spans */
  int64_t d = p->site.d, idx[NDX_MAX_RANK];
  bool all = ch->numel <= FZ_MAX_POSITIONS && numel <= FZ_MAX_POSITIONS;
  if (all) memset(seen, 0, sizeof *seen * (size_t)numel);
  for (int64_t t = 0, n = all ? ch->numel : 8; t < n; t++) {
    int64_t i = sample(r, ch->numel, t, all);
    int64_t ip = position(ch, NDX_CHECK_INDEX, i), slot = position(ch, NDX_CHECK_CLAIM, i);
    int64_t j = position(ch, NDX_CHECK_COORD, i), o = position(ch, NDX_CHECK_ORDER, i);
    fz_check(inside(ip, ib, p->index_lo, p->index_end),
             "the check pass reads inside the index span");
    fz_check(j >= 0 && j < same->shape[axis] && o >= 0 && o < numel,
             "the check pass's coordinate and C-order index lie in S");
    if (claims_form && d > 0)
      fz_check(slot >= 0 && slot + (fz_i128)(d - 1) * p->claim_stride < p->nclaims &&
                   slot + (fz_i128)(d - 1) * p->claim_stride >= 0,
               "every claim slot lies in the claims table");
    if (!all) continue;
    oracle_unravel(rank, same->shape, o, idx);
    fz_check(idx[axis] == j && oracle_position(&c->index, idx) == ip,
             "the check pass's element is S's element of that C-order index");
    for (int a = 0; a < rank; a++)
      fz_check(a == axis || c->index.strides[a] != 0 || idx[a] == 0,
               "the check pass's elements have coordinate 0 where the index broadcasts");
    fz_check(!seen[o], "the check pass visits each element once");
    seen[o] = true;
  }

  /* the copy pass: for every valid value, positions inside the spans (they
   * are linear in the value: its first and last suffice) */
  all = cp->numel <= FZ_MAX_POSITIONS;
  for (int64_t t = 0, n = all ? cp->numel : 8; t < n && p->copy_d > 0; t++) {
    int64_t i = sample(r, cp->numel, t, all);
    int64_t p0 = position(cp, NDX_COPY_DST, i), p1 = position(cp, NDX_COPY_SRC, i);
    int64_t p2 = position(cp, NDX_COPY_INDEX, i);
    const int64_t ends[2] = {0, p->copy_d - 1};
    for (int v = 0; v < 2; v++) {
      int64_t k = ends[v];
      fz_check(inside(p0 + (fz_i128)k * p->step[0], p->bits, p->dst_lo, p->dst_end),
               "the copy pass writes inside the destination span for every valid value");
      fz_check(inside(p1 + (fz_i128)k * p->step[1], p->bits, p->src_lo, p->src_end),
               "the copy pass reads inside the source span for every valid value");
      if (form == NDX_INDEX_WINNERS) {
        fz_i128 s = position(cp, NDX_COPY_CLAIM, i) + (fz_i128)k * p->claim_stride;
        fz_check(s >= 0 && s < p->nclaims, "the winners form reads inside the claims table");
      }
    }
    if (form == NDX_INDEX_CLAIMS)
      fz_check(p2 >= 0 && p2 < p->nclaims, "the claims form reads inside the claims table");
    else
      fz_check(inside(p2, ib, p->index_lo, p->index_end),
               "the copy pass reads inside the index span");
    if (form == NDX_INDEX_WINNERS) {
      int64_t j = position(cp, NDX_COPY_COORD, i);
      fz_check(j >= 0 && j < same->shape[axis], "the winners form's coordinate lies in S");
    }
  }
  run_passes(r, rng, c, p, ch, cp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_reader r = {data, size, 0};
  oracle_rng rng = {UINT64_C(14695981039346656037)};
  for (size_t k = 0; k < size; k++) rng.s = (rng.s ^ data[k]) * UINT64_C(1099511628211);
  call c;
  if (!decode(&r, &c)) return 0;
  ndx_index_plan p, before;
  memset(&p, 0xa5, sizeof p);
  before = p;
  ndx_status st = ndx_index_plan_make(&p, c.name, c.scatter, &c.dst, &c.src, c.axis, &c.index,
                                      c.index_bits, c.flags, c.bits);
  verdict v = judge(&c);
  if (v.statuses == 0) {
    fz_check(st == NDX_OK, "a call the rules allow is planned");
    check_plan(&r, &rng, &c, &p);
    return 0;
  }
  fz_checked++;
  fz_check(st != NDX_OK, "a call the rules refuse is refused");
  fz_check((v.statuses >> -st & 1) != 0, "a refusal has the status of a rule the call breaks");
  fz_check_untouched(&p, &before, sizeof p, st);
  const char *msg = ndx_last_error();
  size_t len = strlen(c.name);
  fz_check(strncmp(msg, c.name, len) == 0 && msg[len] == ':', "a refusal names the call");
  bool named = false;
  for (int k = 0; k < v.n; k++) named = named || strstr(msg + len, v.names[k]) != NULL;
  fz_check(named, "a refusal names an argument that breaks a rule");
  return 0;
}
