/* tap.h: Test Anything Protocol output for the test programs that print
 * their own (the CUDA and HIP emulators, which meson reads with
 * protocol: 'tap'): one line a test, numbered, with the reason under a
 * failure. Print "1..tap_n" after the last. */
#ifndef NDX_TEST_TAP_H
#define NDX_TEST_TAP_H

#include <stdbool.h>
#include <stdio.h>

static int tap_n = 0, tap_failed = 0;

static inline void tap(bool ok, const char *name, const char *why) {
  printf("%s %d - %s\n", ok ? "ok" : "not ok", ++tap_n, name);
  if (!ok) {
    printf("# %s\n", why);
    tap_failed++;
  }
  fflush(stdout);
}

#endif /* NDX_TEST_TAP_H */
