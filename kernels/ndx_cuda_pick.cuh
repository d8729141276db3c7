/* ndx_cuda_pick.cuh: choosing a CUDA copy body's instantiation
 * (ndx_copy_cuda.cuh).
 *
 * pick() maps a planned step (ndx_cuda_step: kernel, bits, vector width,
 * index form) to the template arguments of its body; the launcher
 * (kernels/ndx_copy.cu) and the host emulator (tests/test_cuda_emulate.cu)
 * both go through it. */
#ifndef NDX_CUDA_PICK_CUH
#define NDX_CUDA_PICK_CUH

#include "ndx_cuda_args.h"

namespace ndx_cuda {

/* ---- Choosing the instantiation ------------------------------------------ */

/* Calls f.flat<W, ES, VB, MODE>(), f.tile<W, ES, SIMPLE>(), f.words<W, B>(),
 * f.bytes<W, B>(), f.tile32<W, ES>() or f.warp_rows<W, ES>() for the kernel a
 * step runs (its vector width already
 * chosen, ndx_cuda_plan_steps); false when there is none. The CUDA launcher
 * and the host emulator both go through here, so they run the same bodies. */
template <class F, int W, int ES> static bool pick_flat(F &f, int vb, int kernel) {
  if (kernel == NDX_CUDA_GATHER || (kernel == NDX_CUDA_GATHER_FLIP && vb == ES)) {
    f.template flat<W, ES, ES, NDX_CUDA_GATHER>();
    return true;
  }
  if (kernel == NDX_CUDA_GATHER_FLIP) {
    if constexpr (ES < 16)
      if (vb == 16) {
        f.template flat<W, ES, 16, NDX_CUDA_GATHER_FLIP>();
        return true;
      }
    return false;
  }
  if (vb == ES) {
    f.template flat<W, ES, ES, NDX_CUDA_ROWS>();
    return true;
  }
  if constexpr (ES < 16)
    if (vb == 16) {
      f.template flat<W, ES, 16, NDX_CUDA_ROWS>();
      return true;
    }
  if constexpr (ES < 4)
    if (vb == 4) {
      f.template flat<W, ES, 4, NDX_CUDA_ROWS>();
      return true;
    }
  return false;
}

template <class F, int W, bool SIMPLE> static bool pick_tile(F &f, int bits) {
  switch (bits) {
  case 8:
    f.template tile<W, 1, SIMPLE>();
    return true;
  case 16:
    f.template tile<W, 2, SIMPLE>();
    return true;
  case 32:
    f.template tile<W, 4, SIMPLE>();
    return true;
  case 64:
    f.template tile<W, 8, SIMPLE>();
    return true;
  case 128:
    f.template tile<W, 16, SIMPLE>();
    return true;
  }
  return false;
}

/* The candidate kernels (kernels/ndx_cuda_select.h): f.tile32<W, ES>()
 * (which 0) or f.warp_rows<W, ES>() (which 1) for 8..128 bits. */
template <class F, int W, int ES> static void pick_candidate_es(F &f, int which) {
  if (which)
    f.template warp_rows<W, ES>();
  else
    f.template tile32<W, ES>();
}
template <class F, int W> static bool pick_candidate(F &f, int bits, int which) {
  switch (bits) {
  case 8:
    pick_candidate_es<F, W, 1>(f, which);
    return true;
  case 16:
    pick_candidate_es<F, W, 2>(f, which);
    return true;
  case 32:
    pick_candidate_es<F, W, 4>(f, which);
    return true;
  case 64:
    pick_candidate_es<F, W, 8>(f, which);
    return true;
  case 128:
    pick_candidate_es<F, W, 16>(f, which);
    return true;
  }
  return false;
}

template <class F, int W> static bool pick_w(F &f, const ndx_cuda_step *s) {
  const ndx_cuda_args &a = s->args;
  int vb = a.vel * (a.bits / 8);
  switch (s->kernel) {
  case NDX_CUDA_ROWS:
  case NDX_CUDA_GATHER:
  case NDX_CUDA_GATHER_FLIP:
    switch (a.bits) {
    case 8:
      return pick_flat<F, W, 1>(f, vb, s->kernel);
    case 16:
      return pick_flat<F, W, 2>(f, vb, s->kernel);
    case 32:
      return pick_flat<F, W, 4>(f, vb, s->kernel);
    case 64:
      return pick_flat<F, W, 8>(f, vb, s->kernel);
    case 128:
      return pick_flat<F, W, 16>(f, vb, s->kernel);
    }
    return false;
  case NDX_CUDA_TRANSPOSE:
    if (a.pow2 && !a.gk && !a.gj) return pick_tile<F, W, true>(f, a.bits);
    return pick_tile<F, W, false>(f, a.bits);
  case NDX_CUDA_TRANSPOSE_WORDS:
    switch (a.bits) {
    case 1:
      f.template words<W, 1>();
      return true;
    case 2:
      f.template words<W, 2>();
      return true;
    case 4:
      f.template words<W, 4>();
      return true;
    case 8:
      f.template words<W, 8>();
      return true;
    case 16:
      f.template words<W, 16>();
      return true;
    }
    return false;
  case NDX_CUDA_TRANSPOSE_32X8:
    return pick_candidate<F, W>(f, a.bits, 0);
  case NDX_CUDA_WARP_ROWS:
    return pick_candidate<F, W>(f, a.bits, 1);
  case NDX_CUDA_BYTES:
    switch (a.bits) {
    case 1:
      f.template bytes<W, 1>();
      return true;
    case 2:
      f.template bytes<W, 2>();
      return true;
    case 4:
      f.template bytes<W, 4>();
      return true;
    }
    return false;
  }
  return false;
}

template <class F> static bool pick(F &f, const ndx_cuda_step *s) {
  return s->wide ? pick_w<F, 1>(f, s) : pick_w<F, 0>(f, s);
}

} /* namespace ndx_cuda */

#endif /* NDX_CUDA_PICK_CUH */
