#!/usr/bin/env bash
# test_install.sh: the installed package works for a user outside the tree.
#
# Installs the build into a temporary root (meson install --destdir,
# --no-rebuild: the build is already done), then, in a temporary folder
# outside the source tree, as a user would:
#   - checks the files a user needs are in place (headers, libndx shared and
#     static, ndx.pc, the ndx tool, ndx-bench; libndx_cuda, ndx_cuda.pc and
#     ndx-bench-cuda when the build has CUDA);
#   - compiles every installed header on its own with `pkg-config --cflags`;
#   - builds a consumer with `pkg-config --cflags --libs ndx`, shared (with an
#     rpath) and static (`--static`, libndx.a), and runs both: an ndx_cl_copy
#     on the default OpenCL device checked against the host, and an OpenCL C
#     kernel that includes the installed ndx_device.h (clBuildProgram with
#     -I<prefix>/include) checked against the host's positions;
#   - builds examples/view_ops.c against the package as examples/README.md
#     says, and runs the installed `ndx` tool;
#   - with CUDA: a C consumer of ndx_cuda.pc (shared and static), and nvcc
#     compiling a kernel that includes the installed ndx_device.h.
# The package keeps /usr/local (or the build's prefix); pkg-config is pointed
# at the temporary root with --define-variable=prefix=ROOT.
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

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { # name, log file
  n=$((n + 1))
  failed=$((failed + 1))
  echo "not ok $n - $1"
  [ -n "${2:-}" ] && [ -f "$2" ] && sed 's/^/# /' "$2" | tail -n 40
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
# check NAME COMMAND...: one test, the command's output in $tmp/log.
check() {
  local name=$1
  shift
  if "$@" >"$tmp/log" 2>&1; then ok "$name"; else not_ok "$name" "$tmp/log"; fi
}

# ---- install -----------------------------------------------------------------
if ! meson install -C "$build" --destdir "$tmp/dest" --no-rebuild >"$tmp/install.log" 2>&1; then
  not_ok "meson install --destdir" "$tmp/install.log"
  echo "1..$n"
  exit 1
fi
ok "meson install --destdir"

# The build's directories, from its introspection.
read -r prefix libdir bindir includedir < <(python3 - "$build" <<'EOF'
import json, subprocess, sys
opts = {o["name"]: o["value"] for o in json.loads(subprocess.check_output(
    ["meson", "introspect", sys.argv[1], "--buildoptions"]))}
print(opts["prefix"], opts["libdir"], opts["bindir"], opts["includedir"])
EOF
)
root=$tmp/dest$prefix
lib=$root/$libdir
inc=$root/$includedir
export PKG_CONFIG_PATH=$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
pc() { pkg-config --define-variable=prefix="$root" "$@"; }
cuda=no
[ -f "$lib/pkgconfig/ndx_cuda.pc" ] && cuda=yes

# ---- files -------------------------------------------------------------------
files_present() {
  local missing=0
  for f in "$@"; do
    [ -e "$root/$f" ] || { echo "missing: $root/$f"; missing=1; }
  done
  return $missing
}
check "headers installed: ndx.h, layout, iter, sym, pack, device, cl" files_present \
  "$includedir/ndx/ndx.h" "$includedir/ndx/ndx_layout.h" "$includedir/ndx/ndx_iter.h" \
  "$includedir/ndx/ndx_sym.h" "$includedir/ndx/ndx_pack.h" "$includedir/ndx/ndx_device.h" \
  "$includedir/ndx/ndx_cl.h"
check "libndx shared and static, ndx.pc" files_present \
  "$libdir/libndx.so" "$libdir/libndx.a" "$libdir/pkgconfig/ndx.pc"
check "ndx and ndx-bench in $bindir" files_present "$bindir/ndx" "$bindir/ndx-bench"
if [ $cuda = yes ]; then
  check "libndx_cuda shared and static, ndx_cuda.h, ndx-bench-cuda" files_present \
    "$libdir/libndx_cuda.so" "$libdir/libndx_cuda.a" "$includedir/ndx/ndx_cuda.h" \
    "$bindir/ndx-bench-cuda"
else
  skip "libndx_cuda installed" "the build has no CUDA"
fi

# Every installed header compiles on its own with the package's flags (and,
# for ndx_cuda.h, ndx_cuda's; ndx_dlpack.h needs dlpack/dlpack.h too).
headers_compile() {
  local bad=0 h flags
  for h in "$inc"/ndx/*.h; do
    h=$(basename "$h")
    flags=$(pc --cflags ndx)
    [ "$h" = ndx_cuda.h ] && flags=$(pc --cflags ndx_cuda)
    printf '#include <ndx/%s>\nint main(void) { return 0; }\n' "$h" >"$tmp/h.c"
    "$CC" -std=c11 -Wall -Wextra -Werror $flags -c "$tmp/h.c" -o "$tmp/h.o" ||
      { echo "ndx/$h does not compile alone"; bad=1; }
  done
  return $bad
}
check "every installed header compiles alone with pkg-config --cflags" headers_compile

# ---- a consumer -----------------------------------------------------------------
mkdir -p "$tmp/user"
cat >"$tmp/user/consumer.c" <<'EOF'
/* A user's program: an ndx_cl_copy (a transpose) checked against the host,
 * and a kernel of its own on the installed ndx_device.h (argv[1]: the
 * include folder), checked against the host's positions. Exit 77: no
 * OpenCL device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ndx/ndx.h>

#define FAIL(...) (fprintf(stderr, __VA_ARGS__), exit(1))

static const char *kernel_text =
    "#include \"ndx/ndx_device.h\"\n"
    "__kernel void positions(__constant const ndx_pack_head *p, __global long *out) {\n"
    "  long i = (long)get_global_id(0);\n"
    "  if (i < p->numel) out[i] = NDX_W(ndx_position)(p, 1, (NDX_WORD)i);\n"
    "}\n";

int main(int argc, char **argv) {
  if (argc != 2) FAIL("usage: consumer INCLUDE_DIR\n");
  cl_platform_id platform;
  cl_device_id device;
  cl_uint np = 0, nd = 0;
  if (clGetPlatformIDs(1, &platform, &np) != CL_SUCCESS || np == 0) return 77;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &nd) != CL_SUCCESS || nd == 0)
    return 77;
  cl_int e;
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &e);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &e);
  ndx_cl *cl;
  if (ndx_cl_create(&cl, ctx, device) != NDX_OK) FAIL("ndx_cl_create: %s\n", ndx_last_error());

  /* src: [5, 7] seen transposed; dst: C-order [7, 5]. */
  enum { R = 5, C = 7 };
  float a[R * C], t[R * C];
  for (int i = 0; i < R * C; i++) a[i] = (float)i;
  ndx_layout src, dst;
  ndx_contiguous(&src, 2, (int64_t[]){R, C});
  ndx_transpose(&src, &src, 0, 1);
  ndx_contiguous(&dst, 2, (int64_t[]){C, R});
  cl_mem ms = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof a, a, &e);
  cl_mem md = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof t, NULL, &e);
  if (ndx_cl_copy(cl, q, md, &dst, ms, &src, 32, 0, NULL, NULL) != NDX_OK)
    FAIL("ndx_cl_copy: %s\n", ndx_last_error());
  clEnqueueReadBuffer(q, md, CL_TRUE, 0, sizeof t, t, 0, NULL, NULL);
  for (int i = 0; i < C; i++)
    for (int j = 0; j < R; j++)
      if (t[i * R + j] != a[j * C + i]) FAIL("copy: [%d][%d] = %g\n", i, j, t[i * R + j]);

  /* The user's kernel: positions of src's indices from a pack of (dst, src). */
  uint64_t pack[NDX_PACK_MAX_BYTES(2, NDX_MAX_RANK) / 8];
  size_t used;
  ndx_layout ops[2] = {dst, src};
  if (ndx_pack(pack, sizeof pack, &used, 2, ops, 32) != NDX_OK)
    FAIL("ndx_pack: %s\n", ndx_last_error());
  char options[4096];
  snprintf(options, sizeof options, "-I%s -DNDX_WIDE=%u", argv[1],
           ((const ndx_pack_head *)pack)->wide);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kernel_text, NULL, &e);
  if (clBuildProgram(prog, 1, &device, options, NULL, NULL) != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    FAIL("kernel with %s does not build:\n%s\n", options, log);
  }
  cl_kernel k = clCreateKernel(prog, "positions", &e);
  cl_mem mp = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, used, pack, &e);
  cl_mem mo = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, R * C * sizeof(cl_long), NULL, &e);
  clSetKernelArg(k, 0, sizeof mp, &mp);
  clSetKernelArg(k, 1, sizeof mo, &mo);
  size_t global = R * C;
  if (clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL) != CL_SUCCESS)
    FAIL("clEnqueueNDRangeKernel failed\n");
  cl_long pos[R * C];
  clEnqueueReadBuffer(q, mo, CL_TRUE, 0, sizeof pos, pos, 0, NULL, NULL);
  for (int i = 0; i < C; i++) /* index (i, j) of src is element j*C + i */
    for (int j = 0; j < R; j++)
      if (pos[i * R + j] != j * C + i) FAIL("kernel: position of (%d, %d) = %ld\n", i, j,
                                          (long)pos[i * R + j]);

  clReleaseMemObject(mp);
  clReleaseMemObject(mo);
  clReleaseMemObject(ms);
  clReleaseMemObject(md);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  ndx_cl_destroy(cl);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  printf("ok\n");
  return 0;
}
EOF
cd "$tmp/user" || exit 1

# run NAME EXE ARGS...: 77 is a skip (no OpenCL device).
run() {
  local name=$1 rc
  shift
  "$@" >"$tmp/log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then ok "$name"; elif [ $rc -eq 77 ]; then skip "$name" "no OpenCL device";
  else not_ok "$name (exit $rc)" "$tmp/log"; fi
}

shared_build() {
  "$CC" -std=c11 -Wall -Wextra -Werror consumer.c -o consumer-shared $(pc --cflags ndx) \
    $(pc --libs ndx) -Wl,-rpath,"$lib"
}
check "consumer builds with pkg-config --cflags --libs ndx (shared)" shared_build
run "shared consumer: ndx_cl_copy and a kernel on the installed ndx_device.h" \
  ./consumer-shared "$inc"
check "shared consumer loads the installed libndx" \
  bash -c "ldd ./consumer-shared | grep -F '$lib/libndx.so'"

# --static: Libs.private and the requirements' libraries, with libndx.a (a
# plain -lndx would pick libndx.so next to it).
static_build() {
  local libs
  libs=$(pc --static --libs ndx) || return 1
  libs=$(printf '%s\n' "$libs" | sed 's/\(^\| \)-lndx\( \|$\)/\1-l:libndx.a\2/')
  echo "$CC consumer.c $libs"
  "$CC" -std=c11 -Wall -Wextra -Werror consumer.c -o consumer-static $(pc --cflags ndx) $libs &&
    ! readelf -d consumer-static | grep -F 'libndx.so'
}
check "consumer builds with pkg-config --static and libndx.a (no libndx.so needed)" static_build
run "static consumer: ndx_cl_copy and a kernel on the installed ndx_device.h" \
  ./consumer-static "$inc"

# examples/README.md: an example against the installed package.
example_build() {
  "$CC" -std=c11 -Wall -Wextra -Werror "$source/examples/view_ops.c" -o view_ops \
    $(pc --cflags --libs ndx) -Wl,-rpath,"$lib"
}
check "examples/view_ops.c builds against the installed package" example_build
run "examples/view_ops runs against the installed package" ./view_ops

check "the installed ndx tool runs" bash -c \
  "LD_LIBRARY_PATH='$lib' '$root/$bindir/ndx' move 'shape=[3,2] strides=[1,3]' transpose 0 1 \
   reshape 6 | grep -Fx 'shape=[6] strides=[1] offset=0'"

# ---- CUDA ----------------------------------------------------------------------
if [ $cuda = yes ]; then
  cat >cuda_consumer.c <<'EOF'
/* A user of ndx_cuda.pc: a plan needs no GPU (ndx_cuda.h). */
#include <stdio.h>
#include <string.h>
#include <ndx/ndx_cuda.h>

int main(void) {
  ndx_layout src, dst;
  ndx_contiguous(&src, 2, (int64_t[]){64, 48});
  ndx_transpose(&src, &src, 0, 1);
  ndx_contiguous(&dst, 2, (int64_t[]){48, 64});
  ndx_cuda_plan *plan;
  if (ndx_cuda_plan_create(&plan, &dst, &src, 32) != NDX_OK) {
    fprintf(stderr, "ndx_cuda_plan_create: %s\n", ndx_last_error());
    return 1;
  }
  const char *path = ndx_cuda_plan_path(plan);
  int ok = strcmp(path, "transpose") == 0;
  printf("path %s\n", path);
  ndx_cuda_plan_destroy(plan);
  int count = 0; /* the runtime links and answers, GPU or not */
  cudaError_t e = cudaGetDeviceCount(&count);
  printf("cudaGetDeviceCount: %s, %d\n", cudaGetErrorName(e), count);
  return ok ? 0 : 1;
}
EOF
  cuda_build() {
    local libs
    libs=$(pc --libs ndx_cuda) || return 1
    # the toolkit's runtime at run time: its -L folder as an rpath too
    "$CC" -std=c11 -Wall -Wextra -Werror cuda_consumer.c -o cuda_consumer $(pc --cflags ndx_cuda) \
      $libs -Wl,-rpath,"$lib" $(printf '%s\n' "$libs" | tr ' ' '\n' | sed -n 's/^-L/-Wl,-rpath,/p')
  }
  check "a C consumer builds with pkg-config --cflags --libs ndx_cuda" cuda_build
  check "the ndx_cuda consumer plans a transpose" ./cuda_consumer
  # --static with libndx_cuda.a and libndx.a: nvcc's objects need the C++
  # runtime (ndx_cuda.pc's Libs.private).
  cuda_static_build() {
    local libs
    libs=$(pc --static --libs ndx_cuda) || return 1
    libs=$(printf '%s\n' "$libs" | sed 's/\(^\| \)-lndx_cuda\( \|$\)/\1-l:libndx_cuda.a\2/;
                                        s/\(^\| \)-lndx\( \|$\)/\1-l:libndx.a\2/')
    echo "$CC cuda_consumer.c $libs"
    "$CC" -std=c11 -Wall -Wextra -Werror cuda_consumer.c -o cuda_consumer_static \
      $(pc --cflags ndx_cuda) $libs \
      $(printf '%s\n' "$libs" | tr ' ' '\n' | sed -n 's/^-L/-Wl,-rpath,/p') &&
      ! readelf -d cuda_consumer_static | grep -E 'libndx(_cuda)?\.so'
  }
  check "a C consumer builds with pkg-config --static and libndx_cuda.a" cuda_static_build
  check "the static ndx_cuda consumer plans a transpose" ./cuda_consumer_static

  nvcc=$(command -v nvcc || true)
  if [ -n "$nvcc" ]; then
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
    check "nvcc compiles a kernel on the installed ndx_device.h" \
      "$nvcc" -std=c++17 -arch=sm_80 -I"$inc" -c kernel.cu -o kernel.o
  else
    skip "nvcc compiles a kernel on the installed ndx_device.h" "no nvcc"
  fi
else
  skip "ndx_cuda consumer" "the build has no CUDA"
fi

echo "1..$n"
[ $failed -eq 0 ]
