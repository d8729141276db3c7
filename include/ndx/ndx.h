/* ndx.h: the whole host API of ndx. */
#ifndef NDX_H
#define NDX_H

#include "ndx_layout.h"
#include "ndx_iter.h"
#include "ndx_sym.h"
#include "ndx_pack.h"
#include "ndx_cl.h"

#endif /* NDX_H */
