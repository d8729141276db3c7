/* ndx.h: the whole host API of ndx (libndx: layouts, moves, coalescing,
 * iteration, symbolic axes, packing, number types, errors and the
 * version), with no OpenCL or CUDA header.
 *
 * Not included here, each with a library or a dependency of its own:
 *   ndx_cl.h      the OpenCL copy runtime (libndx_cl, ndx_cl.pc; CL/cl.h)
 *   ndx_cuda.h    the CUDA copy runtime (libndx_cuda, ndx_cuda.pc; the CUDA
 *                 runtime's headers)
 *   ndx_dlpack.h  DLPack interop, in libndx when it was built with
 *                 dlpack/dlpack.h (installed only then)
 *   ndx_device.h  the device header, for kernels (ndx_pack.h, included here,
 *                 is the part the host shares with it)
 * Include each one you use yourself. */
#ifndef NDX_H
#define NDX_H

#include "ndx_layout.h"
#include "ndx_iter.h"
#include "ndx_sym.h"
#include "ndx_pack.h"
#include "ndx_dtype.h"

#endif /* NDX_H */
