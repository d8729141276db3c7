#!/usr/bin/env bash
# test_install.sh: the installed package works for a user outside the tree.
#
# Installs the build into a temporary root (meson install --destdir,
# --no-rebuild: the build is already done). The root is not where the build
# was configured to install (its prefix, /usr/local by default) and not on the
# loader's path, so what works from there works from any prefix. Then, in a
# temporary folder outside the source tree, as a user would:
#   - the files: exactly the headers this build has, each library shared
#     and/or static as default_library says, the .pc files, the CMake
#     package, the programs; libndx links no OpenCL or CUDA library;
#   - every installed program runs from there with no LD_LIBRARY_PATH
#     (`ndx`, `ndx-bench --host`, `ndx-bench-cuda`): their run paths are
#     relative to themselves;
#   - every installed header compiles on its own with its library's
#     `pkg-config --cflags`;
#   - pkg-config consumers (tests/consumers/*.c): host.c on ndx.pc alone,
#     with no OpenCL or CUDA header or library; cl.c on ndx_cl.pc (an
#     ndx_cl_copy on the default OpenCL device and a kernel of its own on the
#     installed ndx_device.h); cuda.c on ndx_cuda.pc, hip.c on ndx_hip.pc;
#     each shared (with an rpath) and static (`--static`, the .a files);
#     examples/view_ops.c as examples/README.md says; nvcc and hipcc
#     (gfx90a, no definitions added) on the installed ndx_device.h;
#   - CMake: tests/consumers/cmake, find_package(ndx CONFIG) with
#     CMAKE_PREFIX_PATH at the root, its programs built and run, and the
#     components that are not there refused with ndx's message;
#   - meson: tests/consumers/meson with the source tree as its subproject
#     subprojects/ndx, built and its programs run.
# pkg-config is pointed at the root with --define-variable=prefix=ROOT.
# The README's own install and consumer commands, run as written at
# $HOME/.local with --libdir=lib, are tests/test_recipe.sh's.
# Skipped: only what the build lacks (OpenCL, CUDA, HIP, static or shared
# libraries) and, for the OpenCL programs, a machine with no OpenCL device.
#
# Usage: test_install.sh BUILD_DIR SOURCE_DIR     Output: TAP.
# pkg-config's output is a list of words: unquoted on purpose.
# shellcheck disable=SC2046,SC2086
set -uo pipefail

build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ndx-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
CC=${CC:-cc}
# Every program runs as a user's would: with the loader's default path only.
unset LD_LIBRARY_PATH

. "$(dirname "$0")/tap.sh" # ok, not_ok, skip, check, run
# check_if yes|no REASON NAME COMMAND...: check, or (no) skip for REASON.
check_if() {
  local cond=$1 reason=$2
  shift 2
  if [ "$cond" = yes ]; then check "$@"; else skip "$1" "$reason"; fi
}

# ---- install -----------------------------------------------------------------
if ! meson install -C "$build" --destdir "$tmp/dest" --no-rebuild >"$tmp/install.log" 2>&1; then
  not_ok "meson install --destdir" "$tmp/install.log"
  echo "1..$n"
  exit 1
fi
ok "meson install --destdir"

# What the build has, from its introspection: its directories, the kind of
# libraries and which runtimes it built (not what the root happens to hold).
if ! python3 - "$build" >"$tmp/build.txt" 2>"$tmp/log" <<'EOF'; then
import json, subprocess, sys
def introspect(what):
    return json.loads(subprocess.check_output(["meson", "introspect", sys.argv[1], what]))
opts = {o["name"]: o["value"] for o in introspect("--buildoptions")}
names = {t["name"] for t in introspect("--targets")}
dlpack = any(d.endswith("/ndx/ndx_dlpack.h") for d in introspect("--installed").values())
version = introspect("--projectinfo")["version"]
yes = lambda b: "yes" if b else "no"
print(opts["prefix"], opts["libdir"], opts["bindir"], opts["includedir"], opts["default_library"],
      yes(opts["default_library"] in ("shared", "both")),
      yes(opts["default_library"] in ("static", "both")),
      yes("ndx_cl" in names), yes("ndx_cuda" in names), yes("ndx_hip" in names), yes(dlpack),
      version)
EOF
  not_ok "meson introspect $build" "$tmp/log"
  echo "1..$n"
  exit 1
fi
read -r prefix libdir bindir includedir default_library shared static cl cuda hip dlpack version <"$tmp/build.txt"
root=$tmp/dest$prefix
lib=$root/$libdir
inc=$root/$includedir
bin=$root/$bindir
export PKG_CONFIG_PATH=$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
pc() { pkg-config --define-variable=prefix="$root" "$@"; }
no_cl="the build has no OpenCL (no libndx_cl)"
no_cuda="the build has no CUDA (no libndx_cuda)"
no_hip="the build has no HIP (no libndx_hip)"
no_static="default_library=shared: no static libraries"
no_shared="default_library=static: no shared libraries"

# ---- files -------------------------------------------------------------------
files_present() {
  local missing=0
  for f in "$@"; do
    [ -e "$root/$f" ] || { echo "missing: $root/$f"; missing=1; }
  done
  return $missing
}
# The library files of NAME this build installs: shared, static or both.
lib_files() {
  [ $shared = yes ] && echo "$libdir/lib$1.so"
  [ $static = yes ] && echo "$libdir/lib$1.a"
  echo "$libdir/pkgconfig/$1.pc"
}
# Exactly these headers: ndx_cl.h only with libndx_cl, ndx_cuda.h only with
# libndx_cuda, ndx_hip.h only with libndx_hip, ndx_dlpack.h only with DLPack.
headers_exact() {
  local want=(ndx.h ndx_api.h ndx_device.h ndx_dtype.h ndx_index.h ndx_iter.h ndx_layout.h ndx_pack.h
              ndx_sym.h ndx_version.h)
  [ $cl = yes ] && want+=(ndx_cl.h)
  [ $cuda = yes ] && want+=(ndx_cuda.h)
  [ $hip = yes ] && want+=(ndx_hip.h)
  [ $dlpack = yes ] && want+=(ndx_dlpack.h)
  diff <(printf '%s\n' "${want[@]}" | sort) <(cd "$inc/ndx" && printf '%s\n' * | sort)
}
check "the installed headers are exactly this build's" headers_exact
check "libndx (default_library=$default_library) and ndx.pc" files_present $(lib_files ndx)
check_if $cl "$no_cl" "libndx_cl and ndx_cl.pc" files_present $(lib_files ndx_cl)
check_if $cuda "$no_cuda" "libndx_cuda and ndx_cuda.pc" files_present $(lib_files ndx_cuda)
check_if $hip "$no_hip" "libndx_hip and ndx_hip.pc" files_present $(lib_files ndx_hip)
check "CMake package in $libdir/cmake/ndx" files_present \
  "$libdir/cmake/ndx/ndxConfig.cmake" "$libdir/cmake/ndx/ndxConfigVersion.cmake"
progs=(ndx ndx-bench)
[ $cuda = yes ] && progs+=(ndx-bench-cuda)
check "programs in $bindir: ${progs[*]}" files_present "${progs[@]/#/$bindir/}"

# libndx is the host library: no OpenCL, CUDA or HIP library is needed to
# link or load it (readelf of the .so; of the .a, no such symbol used).
host_only_lib() {
  local bad=0
  if [ $shared = yes ]; then
    readelf -d "$lib/libndx.so" | tee "$tmp/needed" | grep NEEDED
    grep -Ei 'NEEDED.*(OpenCL|cuda|amdhip|stdc\+\+)' "$tmp/needed" && bad=1
  fi
  if [ $static = yes ]; then
    nm -u "$lib/libndx.a" | grep -E ' (cl[A-Z]|cuda|hip[A-Z])' && bad=1
  fi
  return $bad
}
check "libndx needs no OpenCL, CUDA or HIP library" host_only_lib
# The CMake package is relocatable: no absolute path of the prefix in it.
check "the CMake package names no absolute path of the prefix" bash -c \
  "! grep -n -F '$prefix/' '$lib/cmake/ndx/ndxConfig.cmake' '$lib/cmake/ndx/ndxConfigVersion.cmake'"

# ---- the installed programs, from the root, no LD_LIBRARY_PATH ----------------
# ldd: every library resolves, the ndx ones to the root's (not to another
# installation the loader might know).
loads() {
  local exe=$1 name path bad=0
  ldd "$exe" | tee "$tmp/ldd"
  ! grep -F 'not found' "$tmp/ldd" || return 1
  while read -r name _ path _; do
    case $name in
      libndx.so.* | libndx_cl.so.* | libndx_cuda.so.* | libndx_hip.so.*)
        [ "$(dirname "$(realpath "$path")")" = "$(realpath "$lib")" ] ||
          { echo "$name is not loaded from $lib"; bad=1; } ;;
    esac
  done <"$tmp/ldd"
  return $bad
}
mkdir -p "$tmp/user" "$tmp/bench"
cd "$tmp/user" || exit 1
check "ndx loads its libraries from the root" loads "$bin/ndx"
check "the installed ndx runs" bash -c \
  "'$bin/ndx' move 'shape=[3,2] strides=[1,3]' transpose 0 1 reshape 6 |
   grep -Fx 'shape=[6] strides=[1] offset=0'"
check "ndx-bench loads its libraries from the root" loads "$bin/ndx-bench"
check "the installed ndx-bench --host --quick --reps 1 runs" \
  "$bin/ndx-bench" --host --quick --reps 1 --out "$tmp/bench"
if [ $cuda = yes ]; then
  check "ndx-bench-cuda loads its libraries from the root" loads "$bin/ndx-bench-cuda"
  # No case matches --only: the runtime is asked for a device, nothing is
  # timed; without a GPU it says so and exits 0.
  bench_cuda() {
    "$bin/ndx-bench-cuda" --quick --reps 1 --only no-such-case >"$tmp/bench-cuda.log" 2>&1
    local rc=$?
    cat "$tmp/bench-cuda.log"
    [ $rc -eq 0 ] && grep -F 'bench_cuda:' "$tmp/bench-cuda.log"
  }
  check "the installed ndx-bench-cuda runs" bench_cuda
else
  skip "the installed ndx-bench-cuda runs" "$no_cuda"
fi

# ---- headers -------------------------------------------------------------------
# Every installed header compiles on its own with its library's flags:
# ndx_cl.h with ndx_cl's, ndx_cuda.h with ndx_cuda's, ndx_hip.h with
# ndx_hip's, the rest with ndx's
# (ndx_dlpack.h also needs dlpack/dlpack.h, where the build found it).
headers_compile() {
  local bad=0 h flags
  for h in "$inc"/ndx/*.h; do
    h=$(basename "$h")
    case $h in
      ndx_cl.h) flags=$(pc --cflags ndx_cl) ;;
      ndx_cuda.h) flags=$(pc --cflags ndx_cuda) ;;
      ndx_hip.h) flags=$(pc --cflags ndx_hip) ;;
      *) flags=$(pc --cflags ndx) ;;
    esac
    printf '#include <ndx/%s>\nint main(void) { return 0; }\n' "$h" >h.c
    echo "$h: $flags"
    "$CC" -std=c11 -Wall -Wextra -Werror $flags -c h.c -o h.o ||
      { echo "ndx/$h does not compile alone"; bad=1; }
  done
  return $bad
}
check "every installed header compiles alone with its library's pkg-config --cflags" \
  headers_compile

# ---- pkg-config consumers ----------------------------------------------------------
cflags=(-std=c11 -Wall -Wextra -Werror)
consumers=$source/tests/consumers
# static_libs PACKAGE: `pkg-config --static --libs`, with each ndx library
# as its .a (a plain -lndx would take libndx.so where both are installed).
# Twice: a match takes the blank that the next one would start with.
static_libs() {
  pc --static --libs "$1" | sed -E 's/(^| )-l(ndx|ndx_cl|ndx_cuda|ndx_hip)( |$)/\1-l:lib\2.a\3/g;
                                    s/(^| )-l(ndx|ndx_cl|ndx_cuda|ndx_hip)( |$)/\1-l:lib\2.a\3/g'
}
# rpaths LIBS: an rpath for each -L folder (the CUDA toolkit's runtime).
rpaths() { printf '%s\n' $1 | sed -n 's/^-L/-Wl,-rpath,/p'; }
# links_ndx EXE shared|static NAME...: EXE needs libNAME.so of each NAME
# (shared) or none of them (static).
links_ndx() {
  local exe=$1 kind=$2 name
  shift 2
  readelf -d "$exe" | grep NEEDED | tee "$tmp/needed"
  for name in "$@"; do
    if [ $kind = shared ]; then
      grep -F "[lib$name.so" "$tmp/needed" >/dev/null || { echo "no lib$name.so"; return 1; }
    else
      ! grep -F "[lib$name.so" "$tmp/needed" || { echo "needs lib$name.so"; return 1; }
    fi
  done
}

# host.c on ndx.pc: compiles without OpenCL or CUDA headers (host.c checks
# that none came in) and links none of their libraries.
host_shared() {
  "$CC" "${cflags[@]}" "$consumers/host.c" -o host-shared $(pc --cflags --libs ndx) \
    -Wl,-rpath,"$(pc --variable=libdir ndx)" &&
    links_ndx host-shared shared ndx && ! grep -Ei 'OpenCL|cuda|amdhip' "$tmp/needed"
}
host_static() {
  local libs
  libs=$(static_libs ndx) && echo "libs: $libs" &&
    "$CC" "${cflags[@]}" "$consumers/host.c" -o host-static $(pc --cflags ndx) $libs &&
    links_ndx host-static static ndx && ! grep -Ei 'OpenCL|cuda|amdhip' "$tmp/needed"
}
if [ $shared = yes ]; then
  check "host consumer builds with pkg-config ndx (shared), no OpenCL or CUDA" host_shared
  check "host consumer runs (shared)" ./host-shared "$version"
else
  skip "host consumer with pkg-config ndx (shared)" "$no_shared"
fi
if [ $static = yes ]; then
  check "host consumer builds with pkg-config --static ndx and libndx.a" host_static
  check "host consumer runs (static)" ./host-static "$version"
else
  skip "host consumer with pkg-config --static ndx" "$no_static"
fi

# cl.c on ndx_cl.pc (Requires: ndx, OpenCL); argv[1] is the folder for its
# kernel's -I, as the package says it.
cl_shared() {
  "$CC" "${cflags[@]}" "$consumers/cl.c" -o cl-shared $(pc --cflags --libs ndx_cl) \
    -Wl,-rpath,"$(pc --variable=libdir ndx_cl)" && links_ndx cl-shared shared ndx_cl ndx
}
cl_static() {
  local libs
  libs=$(static_libs ndx_cl) && echo "libs: $libs" &&
    "$CC" "${cflags[@]}" "$consumers/cl.c" -o cl-static $(pc --cflags ndx_cl) $libs &&
    links_ndx cl-static static ndx_cl ndx
}
example_build() {
  "$CC" "${cflags[@]}" "$source/examples/view_ops.c" -o view_ops $(pc --cflags --libs ndx_cl) \
    -Wl,-rpath,"$(pc --variable=libdir ndx_cl)"
}
if [ $cl = yes ]; then
  kernel_inc=$(pc --variable=includedir ndx)
  if [ $shared = yes ]; then
    check "cl consumer builds with pkg-config ndx_cl (shared)" cl_shared
    run "cl consumer (shared): ndx_cl_copy and a kernel on the installed ndx_device.h" \
      ./cl-shared "$kernel_inc"
    check "examples/view_ops.c builds with pkg-config ndx_cl" example_build
    run "examples/view_ops runs against the installed package" ./view_ops
  else
    skip "cl consumer with pkg-config ndx_cl (shared)" "$no_shared"
  fi
  if [ $static = yes ]; then
    check "cl consumer builds with pkg-config --static ndx_cl and the .a files" cl_static
    run "cl consumer (static): ndx_cl_copy and a kernel on the installed ndx_device.h" \
      ./cl-static "$kernel_inc"
  else
    skip "cl consumer with pkg-config --static ndx_cl" "$no_static"
  fi
else
  skip "cl consumer with pkg-config ndx_cl" "$no_cl"
fi

# cuda.c on ndx_cuda.pc and hip.c on ndx_hip.pc, by the C compiler; the
# runtime's -L folder as an rpath too (libcudart, libamdhip64). Static:
# nvcc's and hipcc's objects in libndx_cuda.a and libndx_hip.a need the C++
# runtime (Libs.private). gpu_shared|gpu_static cuda|hip.
gpu_shared() {
  local libs
  libs=$(pc --libs ndx_$1) &&
    "$CC" "${cflags[@]}" "$consumers/$1.c" -o $1-shared $(pc --cflags ndx_$1) $libs \
      -Wl,-rpath,"$(pc --variable=libdir ndx_$1)" $(rpaths "$libs") &&
    links_ndx $1-shared shared ndx_$1 ndx
}
gpu_static() {
  local libs
  libs=$(static_libs ndx_$1) && echo "libs: $libs" &&
    "$CC" "${cflags[@]}" "$consumers/$1.c" -o $1-static $(pc --cflags ndx_$1) $libs \
      $(rpaths "$libs") &&
    links_ndx $1-static static ndx_$1 ndx
}
for gpu in cuda hip; do
  no_gpu=no_$gpu
  if [ "${!gpu}" = no ]; then
    skip "$gpu consumer with pkg-config ndx_$gpu" "${!no_gpu}"
    continue
  fi
  if [ $shared = yes ]; then
    check "$gpu consumer builds with pkg-config ndx_$gpu (shared)" gpu_shared $gpu
    check "$gpu consumer plans a transpose (shared)" ./$gpu-shared
  else
    skip "$gpu consumer with pkg-config ndx_$gpu (shared)" "$no_shared"
  fi
  if [ $static = yes ]; then
    check "$gpu consumer builds with pkg-config --static ndx_$gpu and the .a files" gpu_static $gpu
    check "$gpu consumer plans a transpose (static)" ./$gpu-static
  else
    skip "$gpu consumer with pkg-config --static ndx_$gpu" "$no_static"
  fi
done

# A kernel of the user's own on the installed ndx_device.h, both widths, with
# no runtime header and no definition: nvcc (the toolkit's whose include
# folder ndx_cuda.pc names, the build's) and hipcc (for gfx90a; the header
# includes HIP's runtime header itself, which HIP-Clang does not).
cat >kernel.cu <<'EOF'
#define NDX_WIDE 0
#include "ndx/ndx_device.h"
#undef NDX_WIDE
#define NDX_WIDE 1
#include "ndx/ndx_device.h"

__global__ void positions(const ndx_pack_head *p, long long *out) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < p->numel) out[i] = p->wide ? ndx_position_w64(p, 1, i) : ndx_position_w32(p, 1, (int)i);
}
EOF
if [ $cuda = yes ]; then
  nvcc=nvcc
  for flag in $(pc --cflags-only-I ndx_cuda); do
    [ -x "${flag#-I}/../bin/nvcc" ] && nvcc=$(cd "${flag#-I}/../bin" && pwd)/nvcc
  done
  check "nvcc compiles a kernel on the installed ndx_device.h" \
    "$nvcc" -std=c++17 -arch=sm_80 -I"$inc" -c kernel.cu -o kernel.o
else
  skip "nvcc compiles a kernel on the installed ndx_device.h" "$no_cuda"
fi
if [ $hip = yes ]; then
  check "hipcc compiles a kernel on the installed ndx_device.h (gfx90a)" \
    hipcc --offload-arch=gfx90a -Wall -Wextra -Werror -I"$inc" -c kernel.cu -o kernel-hip.o
else
  skip "hipcc compiles a kernel on the installed ndx_device.h" "$no_hip"
fi

# ---- CMake ---------------------------------------------------------------------
# tests/consumers/cmake against an installed root: ndx_host always, ndx_cl
# ndx_cuda and ndx_hip with their components, every target of the kind
# expected.
# The shared libraries where they are installed; the static ones (the
# config's fallback, with their own link dependencies) where they are
# alone: a static build's root, or a copy of a `both` root without the
# shared ones (a moved root too). Ninja when there is one (faster).
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake_components=$([ $cl = yes ] && echo ' cl')$([ $cuda = yes ] && echo ' cuda')$([ $hip = yes ] && echo ' hip')
cmake_build() { # DIR ROOT SHARED|STATIC
  cmake "${generator[@]}" -S "$consumers/cmake" -B "$1" -DCMAKE_PREFIX_PATH="$2" \
    -DNDX_CONSUMER_VERSION="$version" -DNDX_CONSUMER_LIBRARY_TYPE="$3" \
    -DNDX_CONSUMER_CL=$([ $cl = yes ] && echo ON || echo OFF) \
    -DNDX_CONSUMER_CUDA=$([ $cuda = yes ] && echo ON || echo OFF) \
    -DNDX_CONSUMER_HIP=$([ $hip = yes ] && echo ON || echo OFF) &&
    cmake --build "$1"
}
cmake_host_links() { # DIR shared|static
  links_ndx "$1/ndx_host" "$2" ndx && ! grep -Ei 'OpenCL|cuda|amdhip' "$tmp/needed"
}
cmake_consumers() { # ROOT SHARED|STATIC
  local where=$1 type=$2 kind dir=$tmp/cmake-$2
  kind=$(tr '[:upper:]' '[:lower:]' <<<"$type")
  check "CMake: find_package(ndx $version CONFIG REQUIRED${cmake_components:+ COMPONENTS$cmake_components}) builds the consumers ($kind)" \
    cmake_build "$dir" "$where" "$type"
  check "CMake: ndx_host runs (ndx::ndx, $kind)" "$dir/ndx_host" "$version"
  check "CMake: ndx_host links libndx $kind and no OpenCL or CUDA" cmake_host_links "$dir" "$kind"
  if [ $cl = yes ]; then
    # No argument: the kernel's -I is ndx_INCLUDE_DIR, built in.
    run "CMake: ndx_cl runs (ndx::cl, $kind), its kernel on ndx_INCLUDE_DIR" "$dir/ndx_cl"
    check "CMake: ndx_cl links libndx_cl and libndx $kind" links_ndx "$dir/ndx_cl" "$kind" ndx_cl ndx
  else
    skip "CMake: ndx_cl (ndx::cl, $kind)" "$no_cl"
  fi
  local gpu no_gpu
  for gpu in cuda hip; do
    no_gpu=no_$gpu
    if [ "${!gpu}" = yes ]; then
      check "CMake: ndx_$gpu plans a transpose (ndx::$gpu, $kind)" "$dir/ndx_$gpu"
      check "CMake: ndx_$gpu links libndx_$gpu and libndx $kind" \
        links_ndx "$dir/ndx_$gpu" "$kind" ndx_$gpu ndx
    else
      skip "CMake: ndx_$gpu (ndx::$gpu, $kind)" "${!no_gpu}"
    fi
  done
}
if [ $shared = yes ]; then
  cmake_consumers "$root" SHARED
else
  skip "CMake: the consumers on the shared libraries" "$no_shared"
fi
if [ $static = yes ] && [ $shared = yes ]; then
  cp -a "$root" "$tmp/static-root"
  rm -f "$tmp/static-root/$libdir"/libndx*.so*
  cmake_consumers "$tmp/static-root" STATIC
  rm -rf "$tmp/static-root"
elif [ $static = yes ]; then
  cmake_consumers "$root" STATIC
else
  skip "CMake: the consumers on the static libraries" "$no_static"
fi

# A component that is not there is an error of find_package(... REQUIRED
# COMPONENTS), with ndx's message: one that does not exist; one this build
# lacks; one built but whose library is gone (from a copy of the root
# without it, so the package is also used from a folder it was moved to).
# The project enables no language (fast), so ndx_DIR names the package's
# folder: CMake's search finds lib/<arch>/ only knowing the compiler's arch.
cmake_refuses() { # ROOT COMPONENT MESSAGE
  local where=$1 comp=$2 message=$3 dir=$tmp/cmake-refuse-$2
  if cmake -S "$consumers/cmake/components" -B "$dir" -Dndx_DIR="$where/$libdir/cmake/ndx" \
       -DNDX_COMPONENTS="$comp" >"$dir.log" 2>&1; then
    echo "the configure succeeded:"
    cat "$dir.log"
    return 1
  fi
  cat "$dir.log"
  # CMake wraps long messages: compare without the line breaks.
  tr -s ' \n' ' ' <"$dir.log" | grep -F "$message"
}
check "CMake: COMPONENTS nosuch is refused" \
  cmake_refuses "$root" nosuch "ndx has no component \`nosuch\`"
cp -a "$root" "$tmp/moved"
rm -f "$tmp/moved/$libdir"/libndx_cl.* "$tmp/moved/$libdir"/libndx_cuda.* \
  "$tmp/moved/$libdir"/libndx_hip.*
for comp in cl cuda hip; do
  if [ "${!comp}" = no ]; then
    check "CMake: COMPONENTS $comp is refused (not built)" \
      cmake_refuses "$root" $comp "was built without component \`$comp\`"
  else
    check "CMake: COMPONENTS $comp is refused when libndx_$comp is gone (moved root)" \
      cmake_refuses "$tmp/moved" $comp "neither libndx_$comp.so nor libndx_$comp.a"
  fi
done
rm -rf "$tmp/moved"

# ---- meson subproject ------------------------------------------------------------
# tests/consumers copied out of the tree, with subprojects/ndx a link to the
# source tree; --force-fallback-for=ndx so that an installed ndx is never
# taken instead; this build's default_library and OpenCL. The whole project
# is built (ndx's targets too: a parent builds them all), then its programs
# run.
meson_build() {
  cp -r "$consumers" "$tmp/consumers" &&
    mkdir -p "$tmp/consumers/meson/subprojects" &&
    ln -s "$source" "$tmp/consumers/meson/subprojects/ndx" &&
    meson setup "$tmp/meson" "$tmp/consumers/meson" --force-fallback-for=ndx \
      -Ddefault_library=$default_library \
      -Dopencl=$([ $cl = yes ] && echo enabled || echo disabled) \
      -Dndx:opencl=$([ $cl = yes ] && echo enabled || echo disabled) &&
    ninja -C "$tmp/meson"
}
meson_deps="dependency('ndx')$([ $cl = yes ] && echo ", dependency('ndx_cl')")"
check "meson: a project with ndx as its subproject builds ($meson_deps)" meson_build
check "meson: ndx_host runs (dependency('ndx'))" "$tmp/meson/ndx_host" "$version"
if [ $cl = yes ]; then
  run "meson: ndx_cl runs (dependency('ndx_cl'))" "$tmp/meson/ndx_cl" "$source/include"
else
  skip "meson: ndx_cl (dependency('ndx_cl'))" "$no_cl"
fi

echo "1..$n"
[ $failed -eq 0 ]
