/* alloc_count.c: counts the process's heap allocations, so that ndx-bench can
 * show that the layout calls allocate nothing.
 *
 * The bench executable defines malloc, calloc, realloc, aligned_alloc,
 * posix_memalign and free itself; the dynamic linker resolves every call in
 * the process (libndx's included) to these, which count and forward to the C
 * library's functions found with dlsym(RTLD_NEXT). While dlsym itself runs, an
 * allocation it makes is served from a small static arena, which free then
 * ignores. Sanitizer builds own malloc, so there the counter is left out. */
#if !defined(BENCH_NO_ALLOC_COUNT)
#define _GNU_SOURCE /* RTLD_NEXT */
#endif

#include <stdint.h>

#include "bench.h"

#if defined(BENCH_NO_ALLOC_COUNT)

uint64_t bench_alloc_count(void) {
  return UINT64_MAX;
}

bool bench_alloc_counting(void) {
  return false;
}

#else

#include <dlfcn.h>
#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

static _Atomic uint64_t allocations;

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void (*real_free)(void *);

/* The arena for allocations made while dlsym runs: each block is preceded by
 * its size, so that realloc can move it out. */
static alignas(max_align_t) unsigned char arena[16384];
static _Atomic size_t arena_used;
static _Atomic int resolving;

static bool in_arena(const void *p) {
  return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + sizeof arena;
}

static void *arena_alloc(size_t size) {
  const size_t align = alignof(max_align_t);
  size_t need = (sizeof(size_t) + size + align - 1) / align * align + align;
  if (size > sizeof arena) return NULL;
  size_t at = atomic_fetch_add(&arena_used, need);
  if (at + need > sizeof arena) return NULL;
  unsigned char *block = arena + at + align;
  memcpy(block - sizeof(size_t), &size, sizeof size);
  return block;
}

/* Finds the C library's functions once; true iff they are all there. */
static bool resolve(void) {
  if (real_free) return true;
  if (atomic_exchange(&resolving, 1)) return false; /* dlsym is allocating */
  /* Converting void * to a function pointer through a union keeps -Wpedantic
   * quiet; POSIX guarantees the representation. */
  union {
    void *p;
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    int (*posix_memalign)(void **, size_t, size_t);
    void (*free)(void *);
  } u;
  u.p = dlsym(RTLD_NEXT, "malloc"), real_malloc = u.malloc;
  u.p = dlsym(RTLD_NEXT, "calloc"), real_calloc = u.calloc;
  u.p = dlsym(RTLD_NEXT, "realloc"), real_realloc = u.realloc;
  u.p = dlsym(RTLD_NEXT, "aligned_alloc"), real_aligned_alloc = u.calloc; /* same type */
  u.p = dlsym(RTLD_NEXT, "posix_memalign"), real_posix_memalign = u.posix_memalign;
  u.p = dlsym(RTLD_NEXT, "free");
  bool ok = real_malloc && real_calloc && real_realloc && real_posix_memalign && u.free;
  if (ok) real_free = u.free;
  atomic_store(&resolving, 0);
  return ok;
}

void *malloc(size_t size) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  if (!resolve()) return arena_alloc(size);
  return real_malloc(size);
}

void *calloc(size_t n, size_t size) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  if (!resolve()) {
    if (size && n > SIZE_MAX / size) return NULL;
    return arena_alloc(n * size); /* the arena is static, hence zeroed */
  }
  return real_calloc(n, size);
}

void *realloc(void *p, size_t size) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  if (!resolve()) return arena_alloc(size); /* only dlsym's own blocks get here */
  if (in_arena(p)) {
    size_t old;
    memcpy(&old, (unsigned char *)p - sizeof(size_t), sizeof old);
    void *q = real_malloc(size);
    if (q) memcpy(q, p, old < size ? old : size);
    return q;
  }
  return real_realloc(p, size);
}

void *aligned_alloc(size_t align, size_t size) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  if (!resolve() || !real_aligned_alloc) return NULL;
  return real_aligned_alloc(align, size);
}

int posix_memalign(void **out, size_t align, size_t size) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  if (!resolve()) return ENOMEM;
  return real_posix_memalign(out, align, size);
}

void free(void *p) {
  if (p == NULL || in_arena(p)) return;
  if (resolve()) real_free(p);
}

uint64_t bench_alloc_count(void) {
  return atomic_load(&allocations);
}

bool bench_alloc_counting(void) {
  /* Through a volatile pointer so that the compiler cannot drop the pair. */
  void *(*volatile m)(size_t) = malloc;
  void (*volatile f)(void *) = free;
  uint64_t before = bench_alloc_count();
  f(m(16));
  return bench_alloc_count() == before + 1;
}

#endif
