/* test_version_print.c: the version as the headers and as the library say
 * it, one line each, for tests/test_version.sh:
 *   header MAJOR MINOR PATCH STRING NUMBER
 *   library STRING NUMBER */
#include <stdio.h>

#include <ndx/ndx.h>

int main(void) {
  printf("header %d %d %d %s %ld\n", NDX_VERSION_MAJOR, NDX_VERSION_MINOR, NDX_VERSION_PATCH,
         NDX_VERSION_STRING, (long)NDX_VERSION_NUMBER);
  printf("library %s %u\n", ndx_version_string(), ndx_version());
  return 0;
}
