#!/usr/bin/env bash
# test_version.sh: the version is written once, in include/ndx/ndx_version.h,
# and everything that states it agrees with it:
#   - the header itself: NDX_VERSION_STRING is "MAJOR.MINOR.PATCH" and
#     NDX_VERSION_NUMBER is MAJOR * 10000 + MINOR * 100 + PATCH (MINOR and
#     PATCH under 100, so that the number orders versions);
#   - meson's project version (read from the header by meson.build);
#   - the library at run time: ndx_version_string() and ndx_version();
#   - every .pc file the build installs (Version:) and the CMake package
#     (ndxConfigVersion.cmake's PACKAGE_VERSION);
#   - the SONAME of each shared library: lib<name>.so.MAJOR.
#
# Usage: test_version.sh BUILD_DIR SOURCE_DIR PRINT     Output: TAP.
# PRINT is tests/test_version_print.c built on the build's libndx.
set -uo pipefail

build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
print=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ndx-version.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
# same NAME GOT WANT
same() { if [ "$2" = "$3" ]; then ok "$1: $2"; else not_ok "$1" "got:  $2" "want: $3"; fi; }

if ! "$print" >"$tmp/print" 2>&1; then
  not_ok "$print runs" "$(cat "$tmp/print")"
  echo "1..$n"
  exit 1
fi
read -r _ major minor patch string number < <(grep '^header ' "$tmp/print")
read -r _ lib_string lib_number < <(grep '^library ' "$tmp/print")
version="$major.$minor.$patch"

# ---- the header ---------------------------------------------------------------
same "NDX_VERSION_STRING is MAJOR.MINOR.PATCH" "$string" "$version"
if [ "$minor" -lt 100 ] && [ "$patch" -lt 100 ]; then
  same "NDX_VERSION_NUMBER is MAJOR * 10000 + MINOR * 100 + PATCH" "$number" \
    "$((major * 10000 + minor * 100 + patch))"
else
  not_ok "NDX_VERSION_MINOR and _PATCH are under 100" "minor $minor, patch $patch"
fi
# The header the build compiled is the source tree's (no generated copy).
same "the header's text" \
  "$(sed -n -E 's/^#define NDX_VERSION_(MAJOR|MINOR|PATCH) +([0-9]+)$/\2/p' \
       "$source/include/ndx/ndx_version.h" | paste -sd.)" "$version"

# ---- meson, the library ----------------------------------------------------------
same "meson's project version" \
  "$(meson introspect "$build" --projectinfo |
     python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')" "$version"
same "ndx_version_string() of the library" "$lib_string" "$string"
same "ndx_version() of the library" "$lib_number" "$number"

# ---- pkg-config, CMake, SONAME ---------------------------------------------------
# What this build installs and its shared libraries, from its introspection.
if ! python3 - "$build" >"$tmp/files" 2>"$tmp/err" <<'PY'; then
import json, subprocess, sys
def introspect(what):
    return json.loads(subprocess.check_output(["meson", "introspect", sys.argv[1], what]))
for built, installed in introspect("--installed").items():
    if installed.endswith(".pc") or installed.endswith(".cmake"):
        print("file", built)
for t in introspect("--targets"):
    if t["type"] == "shared library" and t["name"].startswith("ndx"):
        print("shared", t["name"], t["filename"][0])
PY
  not_ok "meson introspect $build" "$(cat "$tmp/err")"
  echo "1..$n"
  exit 1
fi
pcs=0
while read -r _ file; do
  case $file in
    *.pc)
      pcs=$((pcs + 1))
      same "$(basename "$file") Version" "$(sed -n 's/^Version: *//p' "$file")" "$version" ;;
    */ndxConfigVersion.cmake)
      same "ndxConfigVersion.cmake PACKAGE_VERSION" \
        "$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$file")" "$version" ;;
  esac
done < <(awk '$1 == "file" {print $1, $2}' "$tmp/files")
[ $pcs -gt 0 ] || not_ok "the build installs .pc files" "none in meson introspect --installed"

shared=0
while read -r _ name file; do
  shared=$((shared + 1))
  [ -f "$file" ] || { not_ok "SONAME of lib$name" "$file is not built"; continue; }
  same "SONAME of lib$name" \
    "$(readelf -d "$file" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')" "lib$name.so.$major"
done < <(grep '^shared ' "$tmp/files")
[ $shared -gt 0 ] || skip "SONAME of the shared libraries" "default_library=static"

echo "1..$n"
[ $failed -eq 0 ]
