/* gpu_stores.h: which work-item stored each byte of a destination buffer,
 * for the host emulators' NDX_GPU_TRACE (tests/test_gpu_emulate.c,
 * tests/test_convert_emulate.cu). A GPU runs work-items in no order, so
 * each destination byte is one work-item's (a sub-byte destination's byte
 * is read and written back with its other bits kept, which another
 * work-item's store between the two would undo), and no element is stored
 * twice. C and C++ alike. */
#ifndef NDX_TEST_GPU_STORES_H
#define NDX_TEST_GPU_STORES_H

#include <stddef.h>
#include <stdint.h>

typedef struct gpu_stores {
  const uint8_t *lo, *end; /* the destination buffer */
  int64_t *owner;          /* a byte's work-item, -1 before any stores it */
  int64_t shared, first;   /* bytes two work-items stored, the first's offset from lo */
} gpu_stores;

/* Starts s over the `size` bytes from lo, `owner` an array of as many. */
static inline void gpu_stores_start(gpu_stores *s, const uint8_t *lo, size_t size, int64_t *owner) {
  for (size_t i = 0; i < size; i++) owner[i] = -1;
  s->lo = lo, s->end = lo + size, s->owner = owner, s->shared = s->first = 0;
}

/* Notes the `bytes` bytes from addr as stored by work-item `who`; bytes
 * outside the buffer are not s's. */
static inline void gpu_stores_note(gpu_stores *s, const void *addr, int bytes, int64_t who) {
  for (const uint8_t *b = (const uint8_t *)addr; b < (const uint8_t *)addr + bytes; b++) {
    if (b < s->lo || b >= s->end) continue;
    int64_t *o = &s->owner[b - s->lo];
    if (*o >= 0 && *o != who && s->shared++ == 0) s->first = b - s->lo;
    *o = who;
  }
}

#endif /* NDX_TEST_GPU_STORES_H */
