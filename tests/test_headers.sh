#!/usr/bin/env bash
# test_headers.sh: every public header compiles on its own from the source
# tree, with `-I include` and nothing of a build tree (no generated header):
#   - each include/ndx/*.h alone, as C11 (gcc) and as C++17 (g++), with
#     -Wall -Wextra -Werror; a header that includes a runtime's or DLPack's
#     header gets that one's folder too (ndx_cl.h: CL/cl.h; ndx_cuda.h: the
#     CUDA toolkit's include folder, from NVCC; ndx_hip.h: HIP's, with
#     __HIP_PLATFORM_AMD__; ndx_dlpack.h: dlpack/dlpack.h), or is skipped
#     where that header is not found;
#   - ndx_device.h as OpenCL C 1.2 (clang -x cl), where clang is found;
#   - <ndx/ndx_device.h> and <ndx/ndx.h> in a .cu file, by nvcc (NVCC, the
#     build's when it has libndx_cuda) and by hipcc (HIPCC, for HIPCC_ARCH,
#     the build's when it has libndx_hip).
# Each compile runs in a temporary folder outside the source and build trees.
#
# Usage: test_headers.sh SOURCE_DIR     Output: TAP.
# Environment: CC (gcc), CXX (g++), NVCC, HIPCC, HIPCC_ARCH (gfx90a).
set -uo pipefail

source=$(cd "$1" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ndx-headers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
cc=${CC:-gcc}
cxx=${CXX:-g++}
command -v "$cc" >/dev/null || cc=cc
command -v "$cxx" >/dev/null || cxx=c++

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$tmp/log" | tail -n 30; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() { # NAME COMMAND...
  local name=$1
  shift
  if "$@" >"$tmp/log" 2>&1; then ok "$name"; else not_ok "$name"; fi
}
# compiles LANG FLAGS... : stdin compiles with the C (c) or C++ (c++) compiler.
compiles() {
  local lang=$1
  shift
  if [ "$lang" = c ]; then "$cc" -std=c11 -x c -fsyntax-only "$@" -; else
    "$cxx" -std=c++17 -x c++ -fsyntax-only "$@" -; fi
}

# The folders and definitions a header needs besides -I include, or why it
# cannot be compiled here ("skip: REASON").
cuda_inc=""
[ -n "${NVCC:-}" ] && cuda_inc=$(cd "$(dirname "$NVCC")/../include" 2>/dev/null && pwd)
hip_inc=""
if [ -n "${HIPCC:-}" ]; then
  hip_root=$(cd "$(dirname "$HIPCC")/.." && pwd)
  [ "$hip_root" != /usr ] && hip_inc="-I$hip_root/include"
fi
needs() { # HEADER
  case $1 in
    ndx_cl.h)
      echo '#include <CL/cl.h>' | compiles c >/dev/null 2>&1 || { echo "skip: no CL/cl.h"; return; } ;;
    ndx_dlpack.h)
      echo '#include <dlpack/dlpack.h>' | compiles c >/dev/null 2>&1 ||
        { echo "skip: no dlpack/dlpack.h"; return; } ;;
    ndx_cuda.h)
      [ -n "$cuda_inc" ] || { echo "skip: the build has no CUDA (NVCC not given)"; return; }
      echo "-I$cuda_inc" ;;
    ndx_hip.h)
      [ -n "${HIPCC:-}" ] || { echo "skip: the build has no HIP (HIPCC not given)"; return; }
      echo "-D__HIP_PLATFORM_AMD__=1 $hip_inc" ;;
  esac
}

headers=("$source"/include/ndx/*.h)
[ -e "${headers[0]}" ] || { echo "1..0 # SKIP no header in $source/include/ndx"; exit 1; }
for h in "${headers[@]}"; do
  name=$(basename "$h")
  extra=$(needs "$name")
  echo "#include <ndx/$name>" >one.c
  cp one.c one.cpp
  for lang in c c++; do
    if [ $lang = c ]; then
      what="<ndx/$name> alone, C11 ($cc), -I include"
      compile=("$cc" -std=c11)
      file=one.c
    else
      what="<ndx/$name> alone, C++17 ($cxx), -I include"
      compile=("$cxx" -std=c++17)
      file=one.cpp
    fi
    # shellcheck disable=SC2086 # extra: a list of flags
    case $extra in
      skip:*) skip "$what" "${extra#skip: }" ;;
      *) check "$what" "${compile[@]}" -fsyntax-only -Wall -Wextra -Werror -I"$source/include" \
           $extra "$file" ;;
    esac
  done
done

# ndx_device.h as OpenCL C 1.2, as a kernel of a user's own includes it.
if command -v clang >/dev/null; then
  echo '#include <ndx/ndx_device.h>' >device.cl
  check "<ndx/ndx_device.h> as OpenCL C 1.2 (clang -x cl), -I include" \
    clang -x cl -cl-std=CL1.2 -fsyntax-only -Wall -Wextra -Werror -I"$source/include" device.cl
else
  skip "<ndx/ndx_device.h> as OpenCL C 1.2" "no clang"
fi

# A .cu file of a user's own on the device header and the host API.
printf '#include <ndx/ndx_device.h>\n#include <ndx/ndx.h>\n' >user.cu
if [ -n "${NVCC:-}" ]; then
  check "<ndx/ndx_device.h> and <ndx/ndx.h> by nvcc, -I include" \
    "$NVCC" -std=c++17 -I"$source/include" -c user.cu -o user.o
else
  skip "<ndx/ndx_device.h> and <ndx/ndx.h> by nvcc" "the build has no CUDA (NVCC not given)"
fi
if [ -n "${HIPCC:-}" ]; then
  check "<ndx/ndx_device.h> and <ndx/ndx.h> by hipcc (${HIPCC_ARCH:-gfx90a}), -I include" \
    "$HIPCC" -x hip --offload-arch="${HIPCC_ARCH:-gfx90a}" -std=c++17 -Wall -Wextra -Werror \
    -I"$source/include" -c user.cu -o user-hip.o
else
  skip "<ndx/ndx_device.h> and <ndx/ndx.h> by hipcc" "the build has no HIP (HIPCC not given)"
fi

echo "1..$n"
[ $failed -eq 0 ]
