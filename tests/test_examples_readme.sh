#!/usr/bin/env bash
# test_examples_readme.sh: every recipe of examples/README.md runs as
# written, and the programs it builds run (TAP).
#
# Each ```sh block of the README is a recipe whose first line says where it
# runs from: "# run from the ndx source tree" or "# run from examples/".
# Each runs in its own `bash -e`, with HOME in a temporary folder, from a
# scratch copy of that place: the examples folder copied, tools/ (for
# embed.py) linked from the source tree. Exit 77 from a block (an example
# with no OpenCL device) is a skip.
#
# Building ndx again would take minutes, so the recipes' build steps are
# stood in for by the build this test belongs to (shell functions `meson`
# and `ninja`, which refuse any other command):
#   meson setup build, ninja -C build
#       `build` is a link to this build, whose examples are built;
#   meson setup build-install --buildtype=release --prefix=P --libdir=L,
#   meson install -C build-install
#       `meson install --destdir --no-rebuild` of this build, its prefix
#       tree moved to P, its libdir's files to P/L (the old libdir a link
#       to it, so that the programs' run paths hold) and the prefix and
#       libdir of its .pc files set to P and P/L, as the recipe would
#       have written them.
# Everything else in a block — pkg-config, cc, python3, the programs — is the
# real thing.
#
# Usage: test_examples_readme.sh BUILD_DIR SOURCE_DIR
set -uo pipefail

build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ndx-examples-readme.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
readme=$source/examples/README.md
unset LD_LIBRARY_PATH # the programs find the libraries as a user's would

. "$(dirname "$0")/tap.sh" # ok, not_ok, skip
finish() {
  echo "1..$n"
  [ "$failed" -eq 0 ]
  exit
}

# What the build installs where: its prefix and libdir, and whether it has
# shared libraries (the recipes link them).
if ! python3 - "$build" >"$tmp/build.txt" 2>"$tmp/log" <<'EOF'; then
import json, subprocess, sys
opts = {o["name"]: o["value"] for o in
        json.loads(subprocess.check_output(["meson", "introspect", sys.argv[1], "--buildoptions"]))}
print(opts["prefix"], opts["libdir"], "no" if opts["default_library"] == "static" else "yes")
EOF
  not_ok "meson introspect $build" "$tmp/log"
  finish
fi
read -r build_prefix build_libdir shared <"$tmp/build.txt"
if [ "$shared" = no ]; then
  skip "examples/README.md's recipes" "default_library=static: the recipes link shared libraries"
  finish
fi
case $build_libdir in
/*) build_libdir=${build_libdir#"$build_prefix"/} ;;
esac

# ---- the stand-ins ----------------------------------------------------------------
# Sourced by every block; NDX_* say where this build and the scratch tree are.
cat >"$tmp/standins.sh" <<'EOF'
standin_refuse() {
  echo "tests/test_examples_readme.sh stands in for the recipe's build steps only:" \
    "'meson setup build', 'ninja -C build', 'meson setup build-install --buildtype=release" \
    "--prefix=DIR --libdir=DIR' and 'meson install -C build-install', not '$*'" >&2
  return 2
}
standin_install() { # prefix, libdir: this build installed as a build of them would be
  local p=$1 l=$2 stage=$NDX_TMP/stage from
  rm -rf "$stage"
  command meson install -C "$NDX_BUILD" --destdir "$stage" --no-rebuild >"$NDX_TMP/install.log" 2>&1 ||
    { cat "$NDX_TMP/install.log" >&2; return 1; }
  mkdir -p "$p"
  cp -a "$stage$NDX_BUILD_PREFIX/." "$p/"
  if [ "$NDX_BUILD_LIBDIR" != "$l" ]; then
    from=$p/$NDX_BUILD_LIBDIR
    mkdir -p "$p/$l"
    cp -a "$from/." "$p/$l/"
    rm -rf "$from"
    mkdir -p "$(dirname "$from")"
    ln -s "$(realpath --relative-to="$(dirname "$from")" "$p/$l")" "$from"
  fi
  local pc
  for pc in "$p/$l"/pkgconfig/*.pc; do
    sed -i "s|^prefix=.*|prefix=$p|; s|^libdir=.*|libdir=\${prefix}/$l|" "$pc"
  done
}
meson() {
  if [ $# -eq 2 ] && [ "$1" = setup ] && [ "$2" = build ]; then
    ln -sfn "$NDX_BUILD" build
  elif [ "${1:-} ${2:-}" = "setup build-install" ]; then
    local a p="" l=""
    for a in "${@:3}"; do
      case $a in
      --buildtype=release | -Dtests=false) ;;
      --prefix=*) p=${a#--prefix=} ;;
      --libdir=*) l=${a#--libdir=} ;;
      *) standin_refuse "meson $*" || return ;;
      esac
    done
    [ -n "$p" ] && [ -n "$l" ] || { standin_refuse "meson $*" || return; }
    mkdir -p build-install && printf '%s\n%s\n' "$p" "$l" >build-install/standin.txt
  elif [ $# -eq 3 ] && [ "$1 $2 $3" = "install -C build-install" ]; then
    local p l
    { read -r p && read -r l; } <build-install/standin.txt || return 1
    standin_install "$p" "$l"
  else
    standin_refuse "meson $*"
  fi
}
ninja() {
  if [ $# -eq 2 ] && [ "$1 $2" = "-C build" ] && [ -f build/build.ninja ]; then
    return 0 # the build this test runs in is built
  fi
  standin_refuse "ninja $*"
}
EOF

# ---- the scratch tree and the blocks -------------------------------------------------
root=$tmp/src
mkdir -p "$root/examples" "$tmp/home"
cp "$source"/examples/*.c "$source"/examples/*.h "$source"/examples/*.cl "$root/examples/"
ln -s "$source/tools" "$root/tools"

# The sh blocks, one file each, in order, and the README line each starts on.
awk -v d="$tmp" '/^```sh$/ { k++; out = d "/block" k ".sh"; printf "" > out; print NR > (d "/line" k); next }
                 /^```/ { out = ""; next }
                 out != "" { print > out }' "$readme"
blocks=$(find "$tmp" -maxdepth 1 -name 'block*.sh' | wc -l)
if [ "$blocks" -eq 0 ]; then
  not_ok "examples/README.md has sh blocks"
  finish
fi

for k in $(seq 1 "$blocks"); do
  b=$tmp/block$k.sh
  first=$(head -n 1 "$b")
  case $first in
  "# run from the ndx source tree") dir=$root ;;
  "# run from examples/") dir=$root/examples ;;
  *)
    not_ok "recipe $k: its first line says where it runs from" "$b"
    continue
    ;;
  esac
  name="examples/README.md line $(cat "$tmp/line$k"): recipe $k, ${first#\# }"
  (cd "$dir" && HOME=$tmp/home NDX_TMP=$tmp NDX_BUILD=$build NDX_BUILD_PREFIX=$build_prefix \
    NDX_BUILD_LIBDIR=$build_libdir bash -e -c "source '$tmp/standins.sh'; source '$b'") \
    >"$tmp/log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then
    ok "$name"
  elif [ $rc -eq 77 ]; then
    skip "$name" "no OpenCL device"
  else
    echo "exit $rc" >>"$tmp/log"
    not_ok "$name" "$tmp/log"
  fi
done

# Every example program of the folder was built by a recipe (and so run).
missing=""
for c in "$source"/examples/*.c; do
  x=$(basename "$c" .c)
  [ -x "$root/examples/$x" ] || missing+=" $x"
done
if [ -z "$missing" ]; then
  ok "every examples/*.c program is built by a recipe"
else
  echo "not built:$missing" >"$tmp/log"
  not_ok "every examples/*.c program is built by a recipe" "$tmp/log"
fi
finish
