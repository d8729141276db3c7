#!/usr/bin/env bash
# test_exports.sh: each shared library exports exactly its public API.
#
# The libraries are built with -fvisibility=hidden and mark their API with
# NDX_API (include/ndx/ndx_api.h). For every shared library the build makes
# (libndx, libndx_cl, libndx_cuda, libndx_hip), the dynamic symbols it defines
# (nm -D --defined-only) must be the functions declared NDX_API in the
# headers that belong to it, nothing more and nothing less:
#   libndx       ndx_layout.h, ndx_iter.h, ndx_sym.h, ndx_pack.h, ndx_dtype.h, ndx.h,
#                ndx_device.h, ndx_version.h, and ndx_dlpack.h
#                when the build has DLPack (it installs the header);
#   libndx_cl    ndx_cl.h;
#   libndx_cuda  ndx_cuda.h;
#   libndx_hip   ndx_hip.h, which must declare the ndx_hip_ twin of each
#                ndx_cuda.h function (12: copy, plan calls, gather, scatter,
#                check), as libndx_hip is libndx_cuda built for HIP.
# A name missing is a function a program cannot link; an extra one is an
# internal that became ABI (or a declaration without its NDX_API).
#
# Usage: test_exports.sh BUILD_DIR SOURCE_DIR     Output: TAP.
set -uo pipefail
export LC_ALL=C # one byte order for sort and comm

build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ndx-exports.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# The build's ndx libraries ("NAME TYPE FILE" per line) and whether it
# installs ndx_dlpack.h, from meson's introspection: what this build made,
# not what a directory happens to hold.
if ! python3 - "$build" >"$tmp/targets" 2>"$tmp/err" <<'EOF'
import json, subprocess, sys
def introspect(what):
    return json.loads(subprocess.check_output(["meson", "introspect", sys.argv[1], what]))
for t in introspect("--targets"):
    if t["name"] in ("ndx", "ndx_cl", "ndx_cuda", "ndx_hip") and t["type"] in ("shared library", "static library"):
        print(t["name"], t["type"].split()[0], t["filename"][0])
dlpack = any(dest.endswith("/ndx/ndx_dlpack.h") for dest in introspect("--installed").values())
print("dlpack", "yes" if dlpack else "no", "-")
EOF
then
  not_ok "meson introspect $build"
  sed 's/^/# /' "$tmp/err"
  echo "1..$n"
  exit 1
fi
dlpack=$(awk '$1 == "dlpack" {print $2}' "$tmp/targets")
# shared_file NAME: the shared library of NAME the build makes, if any.
shared_file() { awk -v name="$1" '$1 == name && $2 == "shared" {print $3}' "$tmp/targets"; }
# built NAME: the build makes library NAME (shared or static).
built() { awk -v name="$1" '$1 == name {found = 1} END {exit !found}' "$tmp/targets"; }

if ! built ndx; then
  not_ok "the build has a library target 'ndx'"
  echo "1..$n"
  exit 1
fi
if [ -z "$(shared_file ndx)" ]; then
  echo "1..0 # SKIP no shared library in this build (default_library=static)"
  exit 0
fi

# declared HEADER...: the function names the headers declare NDX_API, one a
# line. A declaration starts a line with NDX_API; its name is the identifier
# just before the first '(', which may be on a later line.
declared() {
  awk '
    /^NDX_API[ \t]/ { decl = ""; open = 1 }
    open { decl = decl " " $0
           if (index(decl, "(")) {
             sub(/\(.*/, "", decl)
             if (match(decl, /[A-Za-z_][A-Za-z0-9_]*[ \t]*$/)) {
               name = substr(decl, RSTART, RLENGTH); sub(/[ \t]+$/, "", name); print name
             } else { print "UNPARSED:" decl }
             open = 0
           } }
  ' "$@" | sort -u
}

# exported FILE: "NAME TYPE" of each dynamic symbol FILE defines. Ignored:
# the C runtime's _init and _fini and the linker's section markers, which
# some toolchains put in .dynsym of every library; none is an ndx name.
exported() {
  nm -D --defined-only "$1" | awk '
    NF >= 3 { name = $3; type = $2 }
    NF == 2 { name = $2; type = $1 }
    name ~ /^(_init|_fini|__bss_start|_edata|_end)$/ { next }
    { sub(/@.*/, "", name); print name, type }' | sort -u
}

inc=$source/include/ndx
lib_headers=()
for h in "$inc"/*.h; do
  case $(basename "$h") in
    ndx_cl.h | ndx_cuda.h | ndx_hip.h | ndx_api.h) ;;
    ndx_dlpack.h) [ "$dlpack" = yes ] && lib_headers+=("$h") ;;
    *) lib_headers+=("$h") ;;
  esac
done

# check LIBRARY HEADER...: the test for one library.
check() {
  local name=$1 file
  shift
  file=$(shared_file "$name")
  if [ -z "$file" ]; then
    case $name in
      ndx_cl) skip "lib$name.so exports" "the build has no OpenCL (no libndx_cl)" ;;
      ndx_cuda) skip "lib$name.so exports" "the build has no CUDA (no libndx_cuda)" ;;
      ndx_hip) skip "lib$name.so exports" "the build has no HIP (no libndx_hip)" ;;
      *) not_ok "lib$name.so is built" ;;
    esac
    return
  fi
  if [ ! -f "$file" ]; then
    not_ok "lib$name.so exports: $file is not built"
    return
  fi
  declared "$@" >"$tmp/want"
  exported "$file" >"$tmp/have"
  cut -d' ' -f1 "$tmp/have" >"$tmp/have_names"
  local missing extra unparsed notfunc
  unparsed=$(grep '^UNPARSED:' "$tmp/want")
  missing=$(comm -23 "$tmp/want" "$tmp/have_names" | grep -v '^UNPARSED:')
  extra=$(comm -13 "$tmp/want" "$tmp/have_names")
  # Every export is a function: T (text) or i (an indirect function).
  notfunc=$(awk '$2 != "T" && $2 != "i"' "$tmp/have")
  local count
  count=$(wc -l <"$tmp/want")
  if [ "$count" -gt 0 ] && [ -z "$unparsed$missing$extra$notfunc" ]; then
    ok "lib$name.so exports exactly the $count NDX_API functions of its headers"
  else
    not_ok "lib$name.so exports exactly the NDX_API functions of its headers"
    echo "# headers: ${*#"$source/"}"
    [ "$count" -gt 0 ] || echo "# no NDX_API declaration found in them"
    [ -n "$unparsed" ] && sed 's/^UNPARSED:/# declaration not parsed: /' <<<"$unparsed"
    [ -n "$missing" ] && sed 's/^/# missing (declared, not exported): /' <<<"$missing"
    [ -n "$extra" ] && sed 's/^/# extra (exported, not declared): /' <<<"$extra"
    [ -n "$notfunc" ] && sed 's/^/# exported, not a function: /' <<<"$notfunc"
  fi
}

check ndx "${lib_headers[@]}"
check ndx_cl "$inc/ndx_cl.h"
check ndx_cuda "$inc/ndx_cuda.h"
check ndx_hip "$inc/ndx_hip.h"

# libndx_hip is libndx_cuda built again (src/device/hip/meson.build): its
# header declares the hip twin of every ndx_cuda.h function and nothing
# else, so a function added to the CUDA runtime cannot miss the HIP one.
declared "$inc/ndx_cuda.h" | sed 's/^ndx_cuda_/ndx_hip_/' >"$tmp/cuda_twins"
declared "$inc/ndx_hip.h" >"$tmp/hip_names"
if cmp -s "$tmp/cuda_twins" "$tmp/hip_names"; then
  ok "ndx_hip.h declares the hip twins of the $(wc -l <"$tmp/hip_names") ndx_cuda.h functions"
else
  not_ok "ndx_hip.h declares the hip twins of the ndx_cuda.h functions"
  comm -23 "$tmp/cuda_twins" "$tmp/hip_names" | sed 's/^/# missing from ndx_hip.h: /'
  comm -13 "$tmp/cuda_twins" "$tmp/hip_names" | sed 's/^/# only in ndx_hip.h: /'
fi

echo "1..$n"
[ $failed -eq 0 ]
