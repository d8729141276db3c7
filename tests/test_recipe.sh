#!/usr/bin/env bash
# test_recipe.sh: the README's install and consumer commands, run as written,
# after the demo, as a new user runs them.
#
# In a copy of the source tree (what meson needs; no build folder, no .git),
# with HOME a temporary folder:
#   1. the demo's build folder (ci/demo's `build=`) is configured, as running
#      ci/demo first leaves it;
#   2. the `meson setup` lines of the README's install block (its first
#      ```sh block with a line `meson setup build-install ...`) run as
#      written: a fresh setup, which must print no `error:` line and no
#      Python traceback (probes run quietly; a runtime or target left out is
#      one plain line), must not find its folder configured already, and must
#      put every file `meson install` would install under $HOME/.local, with
#      the .pc files in $HOME/.local/lib/pkgconfig (no Debian multiarch
#      folder: the README's PKG_CONFIG_PATH line holds on any system). No CI
#      script may name the README's build folder;
#   3. the whole install block runs as written, in the copy with its option
#      defaults trimmed to cuda=disabled, hip=disabled, tests=false. The
#      commands are the README's, character for character; only what the
#      project builds by default is smaller: a release build of every
#      runtime and suite takes minutes on 2 cores, and what the CUDA and HIP
#      libraries install, and where, is checked by step 2 and by
#      test_install.sh (`meson install` of the full build into a temporary
#      root). Then the files are under $HOME/.local (lib/libndx.so*,
#      lib/pkgconfig/ndx.pc, include/ndx/ndx.h, bin/ndx, the CMake package)
#      and none was written under /usr/local;
#   4. the installed `ndx` runs with no LD_LIBRARY_PATH;
#   5. the README's consumer block (its first ```sh block with `pkg-config
#      --cflags --libs ndx_cl`) runs as written with app.c the OpenCL
#      consumer (tests/consumers/cl.c: a copy on the default device, exit 77
#      without one), and the same block with `ndx` for `ndx_cl` and app.c the
#      host consumer (tests/consumers/host.c), the README's "layouts alone";
#      each builds and the program it builds runs, with no LD_LIBRARY_PATH;
#   6. CMake: tests/consumers/cmake with CMAKE_PREFIX_PATH=$HOME/.local, as
#      the README's CMake block says, builds and its programs run.
#
# Usage: test_recipe.sh SOURCE_DIR     Output: TAP.
set -uo pipefail

source=$(cd "$1" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ndx-recipe.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset LD_LIBRARY_PATH PKG_CONFIG_PATH
export HOME=$tmp/home
mkdir -p "$HOME"
prefix=$HOME/.local

. "$(dirname "$0")/tap.sh" # ok, not_ok, skip, check, run
bail() { not_ok "$@"; echo "1..$n"; exit 1; }

# block PATTERN: the first ```sh block of README.md with a line matching
# PATTERN (an extended regular expression), without its fences.
block() {
  awk -v pat="$1" '
    /^```/ { if (fence) { if (found) exit; fence = 0; sh = 0; text = "" }
             else { fence = 1; sh = ($0 ~ /^```(sh|bash)[ \t]*$/) }
             next }
    fence && sh { text = text $0 "\n"; if ($0 ~ pat) found = 1 }
    END { if (found) printf "%s", text }' "$source/README.md"
}
block '^meson setup build-install' >"$tmp/install.sh"
block 'pkg-config --cflags --libs ndx_cl' >"$tmp/consumer.sh"
[ -s "$tmp/install.sh" ] ||
  bail "README.md has a \`\`\`sh block with \`meson setup build-install ...\`"
[ -s "$tmp/consumer.sh" ] ||
  bail "README.md has a \`\`\`sh block with \`pkg-config --cflags --libs ndx_cl\`"
install_dir=$(awk '$1 == "meson" && $2 == "setup" {print $3; exit}' "$tmp/install.sh")
sed 's/^/# install block: /' "$tmp/install.sh"
sed 's/^/# consumer block: /' "$tmp/consumer.sh"

# ---- 1. the copy, the demo's folder ------------------------------------------------
copy=$tmp/src
mkdir -p "$copy"
tar -C "$source" --exclude='./build*' --exclude=./.git --exclude=./.pocl-cache -cf - . |
  tar -C "$copy" -xf - || bail "copy the source tree"
demo_dir=$(sed -n -E 's/^build="?([A-Za-z0-9._-]+)"?.*/\1/p' "$source/ci/demo")
[ -n "$demo_dir" ] || bail "ci/demo names its build folder (a line build=DIR)"
# (A comment may name it.)
check "no CI script names the README's build folder $install_dir" \
  bash -c "! grep -rnwF -- '$install_dir' '$source/ci' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#'"
check "the demo's folder $demo_dir is configured (as ci/demo leaves it)" \
  bash -c "cd '$copy' && meson setup '$demo_dir' -Dtests=false -Dcuda=disabled -Dhip=disabled"

# ---- 2. the README's meson setup, fresh, full defaults --------------------------------
grep -E '^meson setup' "$tmp/install.sh" >"$tmp/setup.sh"
(cd "$copy" && bash -e "$tmp/setup.sh") >"$tmp/setup.log" 2>&1
rc=$?
if [ $rc -eq 0 ]; then ok "the README's meson setup runs (a fresh setup, every default)"; else
  not_ok "the README's meson setup runs (exit $rc)" "$tmp/setup.log"; fi
check "the setup prints no 'error:' line and no Python traceback" \
  bash -c "! grep -nE 'error:|Traceback' '$tmp/setup.log'"
check "the setup does not find $install_dir configured already" \
  bash -c "! grep -n 'already configured' '$tmp/setup.log'"
# installed DIR: "BUILD_FILE INSTALLED_FILE" for every file `meson install` installs.
installed() {
  meson introspect "$1" --installed |
    python3 -c 'import json, sys; [print(k, v) for k, v in json.load(sys.stdin).items()]'
}
under_prefix() {
  local bad=0 count=0 dest
  installed "$copy/$install_dir" >"$tmp/installed" || return 1
  while read -r _ dest; do
    count=$((count + 1))
    case $dest in "$prefix"/*) ;; *) echo "outside $prefix: $dest"; bad=1 ;; esac
  done <"$tmp/installed"
  [ $count -gt 0 ] || { echo "nothing to install"; return 1; }
  grep -q " $prefix/lib/pkgconfig/ndx.pc$" "$tmp/installed" ||
    { echo "no $prefix/lib/pkgconfig/ndx.pc"; bad=1; }
  return $bad
}
check "every file it would install is under \$HOME/.local, the .pc files in lib/pkgconfig" \
  under_prefix
rm -rf "${copy:?}/$install_dir"

# ---- 3. the README's install block -------------------------------------------------
# The copy's option defaults trimmed (see above): the commands stay as written.
trim() {
  sed -i -E \
    -e "s/^(option\('(cuda|hip)', type: 'feature', value: )'auto'/\1'disabled'/" \
    -e "s/^(option\('tests', type: 'boolean', value: )true/\1false/" \
    "$copy/meson_options.txt" &&
    [ "$(grep -cE "^option\('(cuda|hip)'.*'disabled'|^option\('tests'.*false" \
      "$copy/meson_options.txt")" -eq 3 ]
}
trim || bail "meson_options.txt: the defaults of cuda, hip and tests are found and trimmed"
touch "$tmp/stamp"
sleep 1 # a file written after this is newer than the stamp, whatever the clock's grain
start=$SECONDS
(cd "$copy" && bash -e "$tmp/install.sh") >"$tmp/install.log" 2>&1
rc=$?
if [ $rc -eq 0 ]; then ok "the README's install block runs ($((SECONDS - start)) s)"; else
  bail "the README's install block runs (exit $rc)" "$tmp/install.log"; fi
have_cl=no
[ -n "$(find "$copy/$install_dir/src" -maxdepth 1 -name 'libndx_cl.so*' -print -quit)" ] &&
  have_cl=yes
files_present() {
  local missing=0 f
  for f in "$@"; do
    compgen -G "$prefix/$f" >/dev/null || { echo "missing: $prefix/$f"; missing=1; }
  done
  return $missing
}
check "installed under \$HOME/.local: lib/libndx.so*, lib/pkgconfig/ndx.pc, include/ndx/ndx.h, bin/ndx, lib/cmake/ndx" \
  files_present 'lib/libndx.so*' lib/pkgconfig/ndx.pc include/ndx/ndx.h bin/ndx \
  lib/cmake/ndx/ndxConfig.cmake
if [ $have_cl = yes ]; then
  check "installed under \$HOME/.local: lib/libndx_cl.so*, lib/pkgconfig/ndx_cl.pc" \
    files_present 'lib/libndx_cl.so*' lib/pkgconfig/ndx_cl.pc
fi
check "nothing written under /usr/local" \
  bash -c "[ ! -d /usr/local ] || [ -z \"\$(find /usr/local -newer '$tmp/stamp' -name '*ndx*' -print -quit)\" ]"

# ---- 4. the installed tool -------------------------------------------------------------
check "\$HOME/.local/bin/ndx runs with no LD_LIBRARY_PATH" \
  "$prefix/bin/ndx" move 'shape=[3,2] strides=[1,3]' transpose 0 1 reshape 6

# ---- 5. the README's consumer block ----------------------------------------------------
# consumer NAME BLOCK APP_SOURCE: BLOCK run as written in a folder of its own
# holding app.c, which includes APP_SOURCE.
consumer() {
  local dir=$tmp/consumer-$1
  mkdir -p "$dir" && cp "$2" "$dir/block.sh" && cp "$3" "$dir/app.c" &&
    (cd "$dir" && bash -e block.sh)
}
# cl.c takes its kernel's -I from NDX_CONSUMER_INCLUDE_DIR when run with no
# argument, as the block runs it.
printf '#define NDX_CONSUMER_INCLUDE_DIR "%s"\n#include "%s"\n' "$prefix/include" \
  "$source/tests/consumers/cl.c" >"$tmp/app-cl.c"
printf '#include "%s"\n' "$source/tests/consumers/host.c" >"$tmp/app-host.c"
sed 's/\bndx_cl\b/ndx/g' "$tmp/consumer.sh" >"$tmp/consumer-host.sh"
if [ $have_cl = yes ]; then
  run "the README's consumer block builds an OpenCL program that runs" \
    consumer cl "$tmp/consumer.sh" "$tmp/app-cl.c"
else
  skip "the README's consumer block (ndx_cl)" "the build has no OpenCL"
fi
check "the same block with ndx for ndx_cl builds a program of layouts that runs" \
  consumer host "$tmp/consumer-host.sh" "$tmp/app-host.c"

# ---- 6. CMake --------------------------------------------------------------------------
if command -v cmake >/dev/null; then
  version=$(meson introspect "$copy/$install_dir" --projectinfo |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  # shellcheck disable=SC2016 # expanded by that bash
  check "CMake: find_package(ndx) with CMAKE_PREFIX_PATH=\$HOME/.local builds the consumers" \
    bash -c 'cmake "${@:3}" -S "$0/tests/consumers/cmake" -B "$1" -DCMAKE_PREFIX_PATH="$2" \
               && cmake --build "$1"' \
    "$source" "$tmp/cmake" "$prefix" "${generator[@]}" -DNDX_CONSUMER_VERSION="$version" \
    -DNDX_CONSUMER_CL="$([ $have_cl = yes ] && echo ON || echo OFF)"
  check "CMake: ndx_host runs" "$tmp/cmake/ndx_host" "$version"
  if [ $have_cl = yes ]; then
    run "CMake: ndx_cl runs" "$tmp/cmake/ndx_cl"
  else
    skip "CMake: ndx_cl" "the build has no OpenCL"
  fi
else
  skip "CMake consumers at \$HOME/.local" "no cmake"
fi

echo "1..$n"
[ $failed -eq 0 ]
