/* ndx_version.h: the version of the ndx headers (ndx_layout.h includes it);
 * ndx_version() in ndx_layout.h is the library's at run time.
 *
 * The one place the version is written: meson.build's project version is
 * read from the three numbers below (NDX_VERSION_MAJOR, _MINOR, _PATCH, each
 * a line `#define NDX_VERSION_<PART> <digits>`), and with it the libraries'
 * SONAME, the pkg-config and CMake files; tests/test_version.sh checks that
 * they all agree.
 *
 * Compatibility (the SONAME follows the major version): a minor or patch
 * release adds functions or fixes behaviour, and a program built against an
 * older release of the same major version runs unchanged on the newer
 * library; a major release may remove or change functions, layouts of public
 * structs or documented behaviour, and its libraries have a new SONAME
 * (libndx.so.MAJOR). The packed device form is versioned on its own by
 * NDX_PACK_VERSION (ndx_pack.h): kernels check that, not this. */
#ifndef NDX_VERSION_H
#define NDX_VERSION_H

#define NDX_VERSION_MAJOR 0
#define NDX_VERSION_MINOR 1
#define NDX_VERSION_PATCH 0

/* "MAJOR.MINOR.PATCH", made from the three numbers above. */
#define NDX_VERSION_QUOTE_(s) #s
#define NDX_VERSION_EXPAND_(major, minor, patch) NDX_VERSION_QUOTE_(major.minor.patch)
#define NDX_VERSION_STRING                                                                         \
  NDX_VERSION_EXPAND_(NDX_VERSION_MAJOR, NDX_VERSION_MINOR, NDX_VERSION_PATCH)
/* MAJOR * 10000 + MINOR * 100 + PATCH, as ndx_version() returns it. */
#define NDX_VERSION_NUMBER (NDX_VERSION_MAJOR * 10000 + NDX_VERSION_MINOR * 100 + NDX_VERSION_PATCH)

#endif /* NDX_VERSION_H */
