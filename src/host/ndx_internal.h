/* ndx_internal.h: what the library's own files share and users never see. */
#ifndef NDX_INTERNAL_H
#define NDX_INTERNAL_H

#include "ndx/ndx_layout.h"

/* Records why a call failed (printf-style, naming the call, argument, axis and
 * values) in the thread-local message ndx_last_error() returns, and returns
 * `s`, so that a check reads `return ndx_fail(NDX_EINVAL, "...", ...)`. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
ndx_status ndx_fail(ndx_status s, const char *fmt, ...);

/* Writes "[3,4]" (the first `n` values of `v`) into buf, always NUL-terminated,
 * and returns buf, for messages. */
char *ndx_fmt_dims(char *buf, size_t size, int n, const int64_t *v);
#define NDX_DIMS_BUF 640

/* Overflow-checked int64 arithmetic: true iff the result fits (stored in *r). */
static inline bool ndx_add_ok(int64_t a, int64_t b, int64_t *r) {
  return !__builtin_add_overflow(a, b, r);
}
static inline bool ndx_mul_ok(int64_t a, int64_t b, int64_t *r) {
  return !__builtin_mul_overflow(a, b, r);
}

/* Private flags cached in ndx_layout.flags. */
enum { NDX_FLAG_CANONICAL = 1u };

#endif /* NDX_INTERNAL_H */
