/* ndx.h: the whole host API of ndx.
 *
 * Not included here: ndx_dlpack.h (DLPack interop), which needs
 * dlpack/dlpack.h and is installed only when libndx was built with it, so
 * that this header compiles without DLPack; include it yourself. */
#ifndef NDX_H
#define NDX_H

#include "ndx_layout.h"
#include "ndx_iter.h"
#include "ndx_sym.h"
#include "ndx_pack.h"
#include "ndx_cl.h"

#endif /* NDX_H */
