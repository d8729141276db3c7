/* ndx_layout.h: canonical strided layouts, their limits, queries and moves.
 *
 * A layout maps an index (i0 .. ik-1), 0 <= ij < dj, to the element position
 * offset + sum ij*sj, counted in elements from a buffer's first byte. Element
 * p of a b-bit type occupies bits p*b .. p*b+b-1, where bit 8q+r is bit r
 * (least significant first) of byte q.
 *
 * Every layout is kept in one canonical form: an axis of extent 1 has stride 0,
 * and a layout with no element has offset 0 and every stride 0. Two layouts of
 * one shape are then equal iff they map every index to the same position.
 *
 * Limits: rank <= NDX_MAX_RANK; every extent, the product of the non-zero
 * extents and the end of the span are <= NDX_MAX_NUMEL; (d-1)*|s| fits in
 * int64 for each axis of extent d > 1; INT64_MIN is never a stride.
 *
 * Every layout an ndx_ call writes has its entries past `rank` zeroed, so two
 * equal layouts are also equal byte for byte.
 *
 * Errors: every fallible call returns an ndx_status. On failure no output is
 * written and ndx_last_error() names the call, the argument, the axis and the
 * values; on success the message is left as it was. Nothing here allocates.
 * A layout argument that no ndx_ call makes (a rank outside [0,
 * NDX_MAX_RANK], an extent, stride or position past the limits, or no element
 * with a non-zero offset) is NDX_EINVAL wherever a status can say so. */
#ifndef NDX_LAYOUT_H
#define NDX_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ndx_api.h"
#include "ndx_version.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NDX_MAX_RANK 32
#define NDX_MAX_NUMEL (INT64_C(1) << 53)

typedef enum ndx_status {
  NDX_OK = 0,
  NDX_EINVAL = -1,       /* an argument breaks a documented rule            */
  NDX_ERANGE = -2,       /* a size, stride, offset or position past a limit */
  NDX_ENOVIEW = -3,      /* a reshape that no strides express               */
  NDX_ENOMEM = -4,       /* host memory ran out                             */
  NDX_EDEVICE = -5,      /* the OpenCL or CUDA runtime failed               */
  NDX_EUNSUPPORTED = -6, /* valid, but not supported here (the message says why) */
} ndx_status;

/* The enumerator's name ("NDX_EINVAL"), or "NDX_UNKNOWN" for another value.
 * A static string; never fails. O(1). */
NDX_API const char *ndx_status_name(ndx_status s);

/* What the last failed ndx_ call on this thread rejected, with the values;
 * "" when none has failed. Thread-local; valid until the next failing call on
 * this thread. Never fails. O(1). */
NDX_API const char *ndx_last_error(void);

/* Records `s` and a printf-style message as this thread's ndx_last_error()
 * and returns `s`, so that a refusal reads `return ndx_set_error(NDX_EINVAL,
 * "mycall: ...", ...)`. For libraries built on ndx (its own OpenCL and CUDA
 * runtimes are two): their refusals then reach callers through the one
 * message every ndx call uses. The message is cut at 4095 bytes; an argument
 * may be ndx_last_error() itself. Never fails. O(length of the message). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
NDX_API ndx_status
ndx_set_error(ndx_status s, const char *fmt, ...);

/* NDX_VERSION_NUMBER (ndx_version.h) of the library this program runs with,
 * which may be newer than the headers it was built with. Never fails. O(1). */
NDX_API unsigned ndx_version(void);

/* NDX_VERSION_STRING of the library this program runs with ("0.1.0"): a
 * static string. Never fails. O(1). */
NDX_API const char *ndx_version_string(void);

/* Plain data. Build it only with ndx_ calls so that it stays canonical. */
typedef struct ndx_layout {
  int32_t rank;
  uint32_t flags; /* reserved for a private cache; ndx_ calls write 0, nothing compares it */
  int64_t offset; /* in elements */
  int64_t shape[NDX_MAX_RANK];
  int64_t strides[NDX_MAX_RANK]; /* in elements, signed */
} ndx_layout;

/* ---- Construction ------------------------------------------------------ */

/* True iff `shape` (of `rank` extents) is a layout's shape: 0 <= rank <=
 * NDX_MAX_RANK, no extent negative, and the non-zero extents multiply to at
 * most NDX_MAX_NUMEL. `shape` may be NULL when rank is 0. O(rank). */
NDX_API bool ndx_fits(int rank, const int64_t *shape);

/* The C-order layout of `shape` at offset 0: element k in C order is at
 * position k. Returns NDX_OK; NDX_EINVAL for a NULL pointer (`shape` may be
 * NULL at rank 0), a negative rank or a negative extent; NDX_ERANGE for a rank
 * past NDX_MAX_RANK or an element count past NDX_MAX_NUMEL. O(rank). */
NDX_API ndx_status ndx_contiguous(ndx_layout *out, int rank, const int64_t *shape);

/* The layout of `shape` with `strides` and `offset`, in canonical form
 * (docs/semantics.md section 2). Returns NDX_OK; NDX_EINVAL as ndx_contiguous, or for a
 * NULL `strides` with rank > 0; NDX_ERANGE when the shape does not fit, when
 * (d-1)*|s| overflows for an axis of extent d > 1 (INT64_MIN included), or,
 * for a layout with an element, when a position is negative or the span ends
 * past NDX_MAX_NUMEL. O(rank). */
NDX_API ndx_status ndx_make(ndx_layout *out, int rank, const int64_t *shape, const int64_t *strides,
                            int64_t offset);

/* ---- Queries (never fail, no allocation, pointers must not be NULL;
 * O(rank) or better except ndx_is_distinct) ---------------------------- */

/* The number of indices: the product of the extents (1 at rank 0). */
NDX_API int64_t ndx_numel(const ndx_layout *l);

/* Every position `l` reaches lies in [*lo, *hi); (0, 0) when it has none. */
NDX_API void ndx_span(const ndx_layout *l, int64_t *lo, int64_t *hi);

/* True iff element k in C order sits at offset + k (empty layouts too). */
NDX_API bool ndx_is_contiguous(const ndx_layout *l);

/* True iff element k in Fortran order (first axis fastest) sits at offset + k. */
NDX_API bool ndx_is_fortran_contiguous(const ndx_layout *l);

/* True iff `l` has no element or, with its axes of extent > 1 ordered by
 * |stride| (ties by axis), each |stride| exceeds the reach sum (d-1)*|s| of
 * the axes before it. Then no two indices share a position. Conservative:
 * shape [3,2] with strides [2,3] shares none yet is not distinct.
 * O(rank^2) (an insertion sort of at most 32 axes), unlike the other queries. */
NDX_API bool ndx_is_distinct(const ndx_layout *l);

/* True iff same rank, shape, strides and offset; by the canonical form, iff
 * one shape and the same position for every index. */
NDX_API bool ndx_equal(const ndx_layout *a, const ndx_layout *b);

/* A hash with ndx_equal(a, b) => ndx_hash(a) == ndx_hash(b). */
NDX_API uint64_t ndx_hash(const ndx_layout *l);

/* Writes "shape=[3,4] strides=[4,1] offset=0" into `buf` as snprintf does:
 * returns the length the whole text has (excluding the NUL), writes at most
 * `size` bytes, always NUL-terminated when size > 0. `buf` may be NULL when
 * size is 0. The text is what ndx_parse reads back. Never fails; `l` must not
 * be NULL. O(rank), no allocation. */
NDX_API int ndx_format(char *buf, size_t size, const ndx_layout *l);

/* Reads the text ndx_format writes: space-separated `shape=[..]`, and
 * optionally `strides=[..]` (default C order) and `offset=N` (default 0). Returns NDX_OK, or
 * NDX_EINVAL for a malformed text and what ndx_make returns for values it refuses. O(length). */
NDX_API ndx_status ndx_parse(ndx_layout *out, const char *text);

/* ---- Moves (docs/semantics.md section 4) -------------------------------- */

typedef struct ndx_range {
  int64_t start, count, step; /* step != 0; negative walks backwards */
} ndx_range;

typedef struct ndx_window {
  int32_t axis;                 /* strictly increasing across windows */
  int64_t size, step, dilation; /* each >= 1 */
} ndx_window;

typedef enum ndx_move_kind {
  NDX_RESHAPE,   /* shape: n extents with the same element count       */
  NDX_BROADCAST, /* shape: n >= rank extents, right-aligned            */
  NDX_PERMUTE,   /* perm: n == rank, result axis i is old axis perm[i] */
  NDX_SLICE,     /* ranges: n == rank, one range per axis              */
  NDX_WINDOW     /* windows: n >= 0 windows, each appends one axis     */
} ndx_move_kind;

typedef struct ndx_move {
  ndx_move_kind kind;
  int32_t n; /* entries in the array below */
  union {
    const int64_t *shape;
    const int32_t *perm;
    const ndx_range *ranges;
    const ndx_window *windows;
  };
} ndx_move;

/* The shape `m` gives a layout of shape `shape`, and its rank. Returns NDX_OK;
 * NDX_EINVAL when `m` breaks a rule of its kind (docs/semantics.md section 4) or
 * `m`, `shape` (rank > 0) or an output is NULL; NDX_ERANGE when the result
 * passes a limit (more than NDX_MAX_RANK axes, more than NDX_MAX_NUMEL elements); for a `rank`
 * and `shape` it refuses, what ndx_contiguous returns. Outputs untouched
 * on failure. O(rank + n). */
NDX_API ndx_status ndx_move_shape(const ndx_move *m, int rank, const int64_t *shape, int *out_rank,
                                  int64_t out_shape[NDX_MAX_RANK]);

/* Moves `l` by `m` into `out` (`out` may be `l`): index i of the result reaches
 * the position `l` reaches at m's map of i. Returns NDX_OK; NDX_ENOVIEW when
 * `m` is a reshape that no strides express; NDX_EINVAL when `m` breaks a rule
 * of its kind (a reshape to another element count included), for a NULL
 * argument, an unknown kind or a negative `n`; NDX_ERANGE when the result
 * passes a limit. On failure `out` is
 * untouched and ndx_last_error() says why. O(rank + n), no allocation. */
NDX_API ndx_status ndx_apply(ndx_layout *out, const ndx_move *m, const ndx_layout *l);

/* The vocabulary on top of the moves. Each is one move (or a composition) and
 * returns what ndx_apply returns for it, with messages naming the call itself;
 * `out` may be `l`. The calls that take an axis (narrow, transpose, flip,
 * squeeze) also return NDX_EINVAL for an axis outside [0, rank). O(rank + n),
 * no allocation. */

/* NDX_RESHAPE: NDX_EINVAL for another element count, NDX_ENOVIEW when no
 * strides express it. */
NDX_API ndx_status ndx_reshape(ndx_layout *out, const ndx_layout *l, int rank,
                               const int64_t *shape);
/* NDX_BROADCAST to `shape` (right-aligned; each old extent 1 or equal). */
NDX_API ndx_status ndx_broadcast(ndx_layout *out, const ndx_layout *l, int rank,
                                 const int64_t *shape);
/* NDX_PERMUTE: result axis i is axis perm[i] of `l`. */
NDX_API ndx_status ndx_permute(ndx_layout *out, const ndx_layout *l, const int32_t *perm);
/* NDX_SLICE with one range per axis of `l`. */
NDX_API ndx_status ndx_slice(ndx_layout *out, const ndx_layout *l, const ndx_range *ranges);
/* NDX_WINDOW with `n` windows. */
NDX_API ndx_status ndx_unfold(ndx_layout *out, const ndx_layout *l, int n, const ndx_window *w);
/* Keeps `len` entries of `axis` from `start`: a slice with step 1.
 * NDX_EINVAL unless 0 <= start, 0 <= len, start + len <= extent. */
NDX_API ndx_status ndx_narrow(ndx_layout *out, const ndx_layout *l, int axis, int64_t start,
                              int64_t len);
/* Swaps axes `a` and `b`: a permute (the identity when a == b). */
NDX_API ndx_status ndx_transpose(ndx_layout *out, const ndx_layout *l, int a, int b);
/* Reverses `axis`: a slice with step -1 (flipping twice is the identity). */
NDX_API ndx_status ndx_flip(ndx_layout *out, const ndx_layout *l, int axis);
/* Removes `axis`, which must have extent 1 (NDX_EINVAL otherwise). */
NDX_API ndx_status ndx_squeeze(ndx_layout *out, const ndx_layout *l, int axis);
/* Inserts an axis of extent 1 before `axis` (0 <= axis <= rank; axis == rank
 * appends), stride 0. NDX_EINVAL for an axis outside [0, rank]; NDX_ERANGE when
 * `l` already has NDX_MAX_RANK axes. */
NDX_API ndx_status ndx_unsqueeze(ndx_layout *out, const ndx_layout *l, int axis);

/* ---- Coalescing -------------------------------------------------------- */

#define NDX_COALESCE_MAX 64

/* Layouts of one shape reaching the positions `in[0..n-1]` reach, in the same
 * C order: axes of extent 1 dropped, axis i merged into axis i+1 wherever every
 * layout has stride[i] == stride[i+1]*d[i+1]; axes never reordered; each result
 * has at least one axis (a rank-0 or single-element layout becomes [1] with
 * stride 0; an empty one [0]). `out` may be `in`. Returns NDX_OK; NDX_EINVAL
 * for NULL pointers, n outside [1, NDX_COALESCE_MAX], a layout no ndx_ call
 * makes (a rank outside [0, NDX_MAX_RANK] included) or shapes that differ.
 * O(n * rank), no allocation. */
NDX_API ndx_status ndx_coalesce(int n, const ndx_layout *in, ndx_layout *out);

#ifdef __cplusplus
}
#endif

#endif /* NDX_LAYOUT_H */
