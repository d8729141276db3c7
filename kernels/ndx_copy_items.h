/* ndx_copy_items.h: the per-work-item copy bodies that ndx's OpenCL kernels
 * (kernels/ndx_copy.cl), its CUDA kernels (kernels/ndx_copy_cuda.cuh) and
 * the host emulation of both (tests/test_device_host.c,
 * tests/test_cuda_emulate.cu) share, and the tile geometry the host
 * planners size launches with. Private to ndx: not installed and not for
 * user kernels; it changes with ndx's kernels. Everything a kernel of the
 * user's calls is in ndx/ndx_device.h, which this header includes.
 *
 * The layer is one file an idea, all beside this one, which includes them
 * in this order (each includes those before it that it uses):
 *
 *   ndx_copy_geometry.h   NDX_TILE, ndx_tile_side, ndx_tile_shape,
 *                         ndx_tile_batches, ndx_group_rows,
 *                         ndx_bytes_span, ndx_min64: plain functions of
 *                         extents, positions and the element width, one
 *                         form, so that a planner calls them without
 *                         reading a pack (the host planners include it alone)
 *   ndx_bits_transpose.h  sub-byte pieces of every dialect: destination
 *                         bytes (ndx_bits_put, ndx_bits_flush) and the bit
 *                         transpose of words of any width (NDX_BITS_ROUND,
 *                         NDX_BITS_TRANSPOSE, ndx_bits_transpose)
 *   ndx_cpu_vectors.h     what a CPU device is fast with: prefetches and
 *                         streaming stores (NDX_PREFETCH, NDX_STREAM: the
 *                         only x86-specific code of kernels/), NDX_ITEM_FN,
 *                         vector blocks (ndx_tile_lanes, ndx_copy_block:
 *                         OpenCL vector types under NDX_OPENCL_C, element by
 *                         element elsewhere), unaligned 8-byte words
 *                         (ndx_load_word, ndx_store_word), sub-byte tiles in
 *                         vectors (ndx_copy_bits_tile, ndx_bits_bands);
 *                         NDX_STAGE_BYTES
 *   ndx_copy_cpu.h        per form: one work-item's share of a copy pack,
 *                         ndx_copy_range_item, ndx_copy_tile_item,
 *                         ndx_copy_bytes, and what they call
 *
 * It keeps ndx_device.h's conventions (portability macros, errors and
 * costs, bit order) and its two forms: define NDX_WIDE to 0 or 1 before
 * including; the host and CUDA include it twice, with NDX_WIDE 0 and then 1,
 * for both. The first three files are one form and included once; the
 * per-form functions of ndx_copy_cpu.h are defined as name_wN, once for
 * each NDX_WIDE this header is included with. tools/embed.py inlines these
 * headers into the embedded OpenCL program, each once: a program is built
 * for one NDX_WIDE (-DNDX_WIDE), so one form is all it needs. Host and CUDA
 * builds put kernels/ on the include path. */

/* At every inclusion: ndx_device.h selects NDX_WIDE's form (NDX_WN), and
 * ndx_copy_cpu.h defines that form's bodies. */
#include "ndx/ndx_device.h"
#include "ndx_copy_geometry.h"
#include "ndx_bits_transpose.h"
#include "ndx_cpu_vectors.h"
#include "ndx_copy_cpu.h"
