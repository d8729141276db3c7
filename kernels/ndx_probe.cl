/* ndx_probe.cl: reports how the device lays out the packed form, so that a
 * test can compare it with the host's (ndx_pack.h asserts the host's side).
 *
 * out[0]  NDX_PACK_VERSION        out[1]  sizeof(ndx_pack_head)
 * out[2..8]  offsets of version, size, rank, nops, bits, wide, numel
 * out[9]  sizeof(ndx_u128)        out[10] sizeof(ndx_i64)   out[11] sizeof(ndx_i32)
 * out[12] NDX_TILE
 * out[13..18] the fields of the pack passed in, as the device reads them:
 *         version, size, rank, nops, bits, wide
 * out[19], out[20]  low and high 32 bits of its numel */
#include "ndx_copy_geometry.h" /* NDX_TILE; ndx/ndx_device.h */

#define NDX_PROBE_FIELD(f) ((uint)((__private char *)&h.f - (__private char *)&h))

__kernel void ndx_probe(__constant const ndx_pack_head *p, __global uint *out) {
  ndx_pack_head h;
  out[0] = NDX_PACK_VERSION;
  out[1] = (uint)sizeof(ndx_pack_head);
  out[2] = NDX_PROBE_FIELD(version);
  out[3] = NDX_PROBE_FIELD(size);
  out[4] = NDX_PROBE_FIELD(rank);
  out[5] = NDX_PROBE_FIELD(nops);
  out[6] = NDX_PROBE_FIELD(bits);
  out[7] = NDX_PROBE_FIELD(wide);
  out[8] = NDX_PROBE_FIELD(numel);
  out[9] = (uint)sizeof(ndx_u128);
  out[10] = (uint)sizeof(ndx_i64);
  out[11] = (uint)sizeof(ndx_i32);
  out[12] = NDX_TILE;
  out[13] = p->version;
  out[14] = p->size;
  out[15] = p->rank;
  out[16] = p->nops;
  out[17] = p->bits;
  out[18] = p->wide;
  out[19] = (uint)((ulong)p->numel & 0xffffffffu);
  out[20] = (uint)((ulong)p->numel >> 32);
}
