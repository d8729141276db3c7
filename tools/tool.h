/* tool.h: what the files of the `ndx` tool share: reading arguments
 * (numbers, widths, layouts as text or DLPack-like JSON), the malformed-line
 * exit, and the commands that live in files of their own.
 *
 * Exit codes of every command: 0 the answer is printed; 1 the library (or the
 * device) refused, its reason printed; 2 a malformed command line, a message
 * naming the argument on stderr and nothing on stdout. */
#ifndef NDX_TOOL_H
#define NDX_TOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ndx/ndx_layout.h"
#ifdef NDX_TOOL_HAVE_OPENCL
#include "ndx/ndx_cl.h"
#endif

/* Room for any layout's text: 2 * 32 values of at most 20 characters plus
 * separators and the three labels. */
#define TOOL_LAYOUT_TEXT_MAX 2048
/* The element width a layout gets when neither --bits nor a JSON dtype names one. */
#define TOOL_DEFAULT_BITS 32

/* The command being run ("pack"), for the pointer to its usage in messages;
 * NULL before one is known. Set by main. */
extern const char *tool_command;

/* Prints "ndx: <message>" and where the usage is on stderr; exits 2. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
_Noreturn void
tool_malformed(const char *fmt, ...);

/* Reads all of `text` as a decimal int64 in [lo, hi] into *v. Leading or
 * trailing blanks, an empty text, a value past int64 or outside [lo, hi] fail. */
bool tool_read_int(const char *text, int64_t lo, int64_t hi, int64_t *v);

/* tool_read_int, or exit 2 naming `what` ("flip AXIS") and the bounds. */
int64_t tool_arg_int(const char *text, const char *what, int64_t lo, int64_t hi);

/* Reads an element width (1, 2, 4, 8, 16, 32, 64 or 128) for `what`
 * ("pack: --bits"), or exits 2. */
int tool_arg_bits(const char *text, const char *what);

/* True for "--help" and "-h". */
bool tool_is_help(const char *arg);

/* Matches option `name` ("--bits") at argv[*i]: "--bits N" (taking the next
 * word, *i advanced past it) or "--bits=N". Returns its value, NULL when
 * argv[*i] is another word; a missing value exits 2. */
const char *tool_option_value(int argc, char **argv, int *i, const char *name);

/* The bytes of a buffer that holds `l`'s `bits`-bit elements. */
size_t tool_span_bytes(const ndx_layout *l, int bits);

/* Fills b[0 .. n) with a xorshift pattern from `seed`. */
void tool_fill_pattern(unsigned char *b, size_t n, uint64_t seed);

/* Writes `l`'s text into buf (TOOL_LAYOUT_TEXT_MAX bytes) and returns buf. */
const char *tool_layout_text(char *buf, const ndx_layout *l);

/* ---- Layout arguments: text or DLPack-like JSON (layout_json.c) ------------ */

/* A layout read from the command line, with the element type a JSON dtype
 * gave (bits 0 when the argument named none). */
typedef struct tool_layout {
  ndx_layout l;
  int bits;              /* dtype.bits * dtype.lanes, or 0: no dtype given */
  int code, lanes;       /* the dtype as written (for show --json) */
  int dtype_bits;        /* dtype.bits as written */
  const char *code_name; /* "float", ..., or NULL when the code was a number */
} tool_layout;

/* Reads the LAYOUT argument `text` (`what` names it in messages: "copy: DST"):
 * ndx_format's text, or, when it starts with '{' (or is '@FILE', the file's
 * contents), DLPack-like JSON:
 *   {"shape": [2,3], "strides": [3,1] | null, "byte_offset": 0,
 *    "dtype": {"code": "float" | 2, "bits": 32, "lanes": 1}}
 * shape required; strides (null: C order), byte_offset (0) and dtype optional;
 * without a dtype the elements are `bits` wide (for byte_offset). The JSON is
 * parsed by jansson and converted through a DLTensor and ndx_dlpack_import.
 * Anything refused — malformed text or JSON, a value the library refuses, JSON
 * in a build without DLPack or jansson — exits 2 with the reason. */
void tool_arg_layout(tool_layout *out, const char *text, const char *what, int bits);

/* Agrees the element width of a command: `opt` (--bits, 0 when not given)
 * and the widths of the n layouts (0: none given) must all agree; returns it,
 * or TOOL_DEFAULT_BITS when none is given. A disagreement exits 2 naming the
 * layouts in `whats`. */
int tool_agree_bits(int opt, int n, const tool_layout *ls, const char *const *whats);

/* Prints `t` (its layout with `bits`-bit elements) as one line of the JSON
 * tool_arg_layout reads, the dtype as the argument gave it (else
 * {"code":"uint","bits":bits,"lanes":1}). Returns false, printing nothing, when
 * the offset is no whole number of bytes (a sub-byte view starting inside a
 * byte: DLPack has no bit offset); *why then says so. */
bool tool_print_json(FILE *f, const tool_layout *t, int bits, char *why, size_t why_size);

#ifdef NDX_TOOL_HAVE_OPENCL
/* ---- OpenCL (cl_tool.c) --------------------------------------------------------- */

/* An OpenCL device opened for copies: a context, a profiling queue and an ndx_cl. */
typedef struct tool_cl {
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  ndx_cl *cl;
  char name[256], platform_name[256];
} tool_cl;

/* Opens device `index` as `ndx devices` numbers them (across platforms), or,
 * when index < 0, the default device: the first platform (or the first whose
 * name contains $NDX_CL_PLATFORM) and its default device, as `ndx demo`.
 * Returns true; or false with the reason in `why` (then tool_cl_close it). */
bool tool_cl_open(tool_cl *env, int index, char *why, size_t why_size);

/* Releases what tool_cl_open made; safe after a failed open. */
void tool_cl_close(tool_cl *env);
#endif /* NDX_TOOL_HAVE_OPENCL */

/* ---- Commands in files of their own ------------------------------------------ */
/* Without OpenCL (meson -Dopencl=disabled, or none found) no_cl.c stands in
 * for cl_tool.c, cmd_copy.c and cmd_index.c: `copy`, `gather`, `scatter` and
 * `devices` say that this build has no OpenCL and exit 1; `demo` shows its
 * host part. */

/* `ndx devices`: lists OpenCL platforms and devices, numbered as `ndx copy
 * --device` takes them. Returns an exit code. */
int tool_devices(void);

/* The device part of `ndx demo`: real copies on the default OpenCL device,
 * each verified against the host, with the achieved GB/s. Returns an exit code. */
int tool_demo_device(void);

/* `ndx pack`, `ndx copy`, `ndx bench`: argc/argv after the command word.
 * Each returns an exit code (or exits 2 on a malformed line; bench execs). */
int tool_cmd_pack(int argc, char **argv);
int tool_cmd_copy(int argc, char **argv);
int tool_cmd_convert(int argc, char **argv);
int tool_cmd_gather(int argc, char **argv);
int tool_cmd_scatter(int argc, char **argv);
int tool_cmd_bench(int argc, char **argv, const char *argv0);

/* Their usage texts, printed by `ndx CMD --help` and `ndx help CMD`.
 *
 * Examples in a usage text (every command's, and the tool's own) end it,
 * under a line "examples:", and are marked so that tests/test_tool.sh finds
 * and runs each one: a line "  $ ndx ARGS..." is a command, continued on the
 * next line while it ends with " \"; lines of text may come before it, and
 * the lines after it up to a blank line are its whole stdout (after their
 * two-space indent). Examples are separated by blank lines. Every example
 * must exit 0 and print what it shows; one that shows no output is checked
 * for its exit status only (device commands, whose output names the device
 * and the speed). */
extern const char tool_pack_usage[];
extern const char tool_copy_usage[];
extern const char tool_convert_usage[];
extern const char tool_gather_usage[];
extern const char tool_scatter_usage[];
extern const char tool_bench_usage[];

/* `ndx bench --help` prints its usage, then ndx-bench's when it is found. */
int tool_bench_help(const char *argv0);

#endif /* NDX_TOOL_H */
