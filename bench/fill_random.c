/* fill_random.c: the benches' random source data (fill_random.h). */
#include <string.h>

#include "fill_random.h"

uint64_t rng_next(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *s = x;
}

void fill_random(uint8_t *p, size_t n, uint64_t seed) {
  uint64_t s = seed | 1;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v = rng_next(&s);
    memcpy(p + i, &v, 8);
  }
  for (; i < n; i++) p[i] = (uint8_t)rng_next(&s);
}

void fill_random_f32(uint8_t *p, size_t n, uint64_t seed) {
  fill_random(p, n, seed);
  for (size_t i = 0; i + 4 <= n; i += 4) {
    uint32_t v;
    memcpy(&v, p + i, 4);
    v = (v & 0x807fffffu) | 0x3f800000u; /* the exponent field 127: magnitudes in [1, 2) */
    memcpy(p + i, &v, 4);
  }
}
