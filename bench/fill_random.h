/* fill_random.h: the benches' random source data, the same in ndx-bench
 * --cl, ndx-tune-cl and ndx-bench-cuda (fill_random.c). */
#ifndef NDX_BENCH_FILL_RANDOM_H
#define NDX_BENCH_FILL_RANDOM_H

#include <stddef.h>
#include <stdint.h>

/* The next value of xorshift64 state *s (nonzero). */
uint64_t rng_next(uint64_t *s);
/* n random bytes into p, the same for the same seed. */
void fill_random(uint8_t *p, size_t n, uint64_t seed);
/* Random finite normal f32 values, in +-[1, 2), as a model's tensors hold. */
void fill_random_f32(uint8_t *p, size_t n, uint64_t seed);

#endif /* NDX_BENCH_FILL_RANDOM_H */
