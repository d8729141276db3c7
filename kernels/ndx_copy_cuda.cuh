/* ndx_copy_cuda.cuh: the bodies of ndx's CUDA copy kernels.
 *
 * Every body is a __host__ __device__ function of the kernel's arguments and
 * of a thread's coordinates, split at each __syncthreads into phases, so
 * that kernels/ndx_copy.cu wraps them into kernels and
 * tests/test_cuda_emulate.cu runs them thread by thread on the host (phase by
 * phase for all threads of a block: exactly what the barriers guarantee).
 * The index math is ndx_device.h's (magic-number division, positions) and
 * ndx_copy_items.h's (sub-byte byte ranges); what is here is the GPU shape
 * of the work: which thread takes which elements, vector accesses and
 * shared-memory tiles.
 * kernels/ndx_cuda_args.h describes each kernel.
 *
 * This header only includes the parts, one idea each, in order:
 *   ndx_cuda_common.cuh     index-form adapters ix<W>, vec<B>, NDX_HD,
 *                           NDX_UNROLL, NDX_ACCESS, magic division helpers
 *   ndx_cuda_flat.cuh       rows, gather and BYTES: one thread per item
 *   ndx_cuda_tile.cuh       transpose: tiles through shared memory, the
 *                           tile split and k/j groups the others reuse
 *   ndx_cuda_words.cuh      transpose-words: 1..16-bit elements by words
 *   ndx_cuda_t32.cuh        transpose-32x8: 32x32 tiles, one barrier each
 *   ndx_cuda_warp_rows.cuh  warp-rows: a row's threads per destination row
 *   ndx_cuda_pick.cuh       pick(): a step's kernel to its instantiation */
#ifndef NDX_COPY_CUDA_CUH
#define NDX_COPY_CUDA_CUH

#include "ndx_cuda_common.cuh"
#include "ndx_cuda_flat.cuh"
#include "ndx_cuda_tile.cuh"
#include "ndx_cuda_words.cuh"
#include "ndx_cuda_t32.cuh"
#include "ndx_cuda_warp_rows.cuh"
#include "ndx_cuda_pick.cuh"

#endif /* NDX_COPY_CUDA_CUH */
