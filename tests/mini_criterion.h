/* mini_criterion.h: the few Criterion macros the CUDA suite uses, for
 * machines without Criterion (ci/gpu builds tests/test_cuda.c with
 * -DNDX_NO_CRITERION on a bare GPU box).
 *
 * Test(suite, name) registers a function; main() runs them in order, in this
 * process (no fork: a failed assertion longjmps out of its test), and prints
 * TAP: "ok N - suite::name", "not ok N - ..." with the message, or
 * "ok N - suite::name # SKIP reason". Exit status 1 when a test failed.
 * Each test starts with the process as the previous one left it.
 * Only cr_assert, cr_assert_eq, cr_skip_test and cr_log_info. */
#ifndef NDX_MINI_CRITERION_H
#define NDX_MINI_CRITERION_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct mini_test {
  const char *suite, *name;
  void (*fn)(void);
} mini_test;

#define MINI_MAX_TESTS 64
static mini_test mini_tests[MINI_MAX_TESTS];
static int mini_ntests;
static jmp_buf mini_jump;
static char mini_message[2048];

static inline void mini_register(const char *suite, const char *name, void (*fn)(void)) {
  if (mini_ntests < MINI_MAX_TESTS) mini_tests[mini_ntests++] = (mini_test){suite, name, fn};
}

#define Test(suite, name, ...)                                                                     \
  static void suite##_##name(void);                                                                \
  __attribute__((constructor)) static void suite##_##name##_register(void) {                       \
    mini_register(#suite, #name, suite##_##name);                                                  \
  }                                                                                                \
  static void suite##_##name(void)

__attribute__((format(printf, 2, 3))) static inline void mini_stop(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(mini_message, sizeof mini_message, fmt, ap);
  va_end(ap);
  longjmp(mini_jump, code);
}

#define cr_assert(cond, ...)                                                                       \
  do {                                                                                             \
    if (!(cond)) mini_stop(1, __VA_ARGS__);                                                        \
  } while (0)
#define cr_assert_eq(a, b, ...) cr_assert((a) == (b), __VA_ARGS__)
#define cr_skip_test(...) mini_stop(2, __VA_ARGS__)
#define cr_log_info(...)                                                                           \
  do {                                                                                             \
    printf("# ");                                                                                  \
    printf(__VA_ARGS__);                                                                           \
    printf("\n");                                                                                  \
  } while (0)

/* Usage: PROGRAM [--tap] [SUBSTRING]: runs the tests whose name holds
 * SUBSTRING (all without one). */
int main(int argc, char **argv) {
  const char *only = NULL;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--tap") != 0) only = argv[i];
  volatile int failed = 0;
  for (int i = 0; i < mini_ntests; i++) {
    volatile int code;
    if (only && !strstr(mini_tests[i].name, only)) {
      printf("ok %d - %s::%s # SKIP not selected\n", i + 1, mini_tests[i].suite,
             mini_tests[i].name);
      continue;
    }
    mini_message[0] = '\0';
    fflush(stdout);
    if ((code = setjmp(mini_jump)) == 0) {
      mini_tests[i].fn();
    }
    if (code == 2) {
      printf("ok %d - %s::%s # SKIP %s\n", i + 1, mini_tests[i].suite, mini_tests[i].name,
             mini_message);
    } else if (code == 1) {
      failed++;
      printf("not ok %d - %s::%s\n# %s\n", i + 1, mini_tests[i].suite, mini_tests[i].name,
             mini_message);
    } else {
      printf("ok %d - %s::%s\n", i + 1, mini_tests[i].suite, mini_tests[i].name);
    }
  }
  printf("1..%d\n", mini_ntests);
  return failed ? 1 : 0;
}

#endif /* NDX_MINI_CRITERION_H */
