/* no_cl.c: the OpenCL commands of a tool built without OpenCL (meson
 * -Dopencl=disabled, or no OpenCL found). `copy`, `convert`, `gather`,
 * `scatter` and `devices` say so and
 * exit 1, as a refusal; `demo` shows its host side and says what it left
 * out. The layout commands (show, move, coalesce, pack) need no device. */
#include <stdio.h>

#include "tool.h"

#define NO_OPENCL "this ndx was built without OpenCL (libndx_cl)"

const char tool_copy_usage[] =
    "usage: ndx copy [--device N] [--bits N] DST SRC\n"
    "\n"
    "One ndx_cl_copy on an OpenCL device, verified against the host: not in this\n"
    "build, which has no OpenCL. Rebuild ndx with OpenCL (meson -Dopencl=enabled).\n";

const char tool_convert_usage[] =
    "usage: ndx convert [--device N] --from TYPE --to TYPE DST SRC\n"
    "\n"
    "One ndx_cl_convert on an OpenCL device, verified against the host: not in this\n"
    "build, which has no OpenCL. Rebuild ndx with OpenCL (meson -Dopencl=enabled).\n";

const char tool_gather_usage[] =
    "usage: ndx gather [--device N] [--bits N] [--index-bits 32|64] [--wrap] --axis A\n"
    "                  [--values V,V,...] DST SRC INDEX\n"
    "\n"
    "One ndx_cl_gather on an OpenCL device, verified against the host: not in this\n"
    "build, which has no OpenCL. Rebuild ndx with OpenCL (meson -Dopencl=enabled).\n";

const char tool_scatter_usage[] =
    "usage: ndx scatter [--device N] [--bits N] [--index-bits 32|64] [--wrap] [--unique]\n"
    "                   --axis A [--values V,V,...] DST SRC INDEX\n"
    "\n"
    "One ndx_cl_scatter on an OpenCL device, verified against the host: not in this\n"
    "build, which has no OpenCL. Rebuild ndx with OpenCL (meson -Dopencl=enabled).\n";

static int missing(const char *command) {
  fprintf(stderr,
          "ndx %s: %s; the commands without a device (show, move, coalesce, pack)\n"
          "work, and `ndx help` lists them\n",
          command, NO_OPENCL);
  return 1;
}

int tool_cmd_copy(int argc, char **argv) {
  (void)argc, (void)argv;
  return missing("copy");
}

int tool_cmd_convert(int argc, char **argv) {
  (void)argc, (void)argv;
  return missing("convert");
}

int tool_cmd_gather(int argc, char **argv) {
  (void)argc, (void)argv;
  return missing("gather");
}

int tool_cmd_scatter(int argc, char **argv) {
  (void)argc, (void)argv;
  return missing("scatter");
}

int tool_devices(void) {
  return missing("devices");
}

int tool_demo_device(void) {
  printf("  (none: %s)\n\n", NO_OPENCL);
  return 0;
}
