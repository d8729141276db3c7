/* ndx_index.h: the flags and rules of ndx's index-driven copies, gather and
 * scatter (ndx_cl_gather and ndx_cl_scatter in ndx_cl.h, ndx_cuda_gather and
 * ndx_cuda_scatter in ndx_cuda.h), which both runtimes share.
 *
 * Gather: dst_l and index_l have one shape S; src_l has S's rank and S's
 * extents except on `axis`. For every index i of S,
 *   dst[i] = src[i with coordinate `axis` replaced by index[i]].
 * Scatter, the mirror image: src_l and index_l have one shape S; dst_l has
 * S's rank and extents except on `axis`. For every index i of S,
 *   dst[i with coordinate `axis` replaced by index[i]] = src[i];
 * where several elements of S go to one destination element, the one last in
 * C order over S wins, whole, on every run and every device, and destination
 * elements no element of S reaches keep their value (as does every bit of a
 * sub-byte byte that belongs to no written element).
 *
 * Index elements are signed two's-complement integers of `index_bits` = 32 or
 * 64, little-endian, at index_l's positions (counted in index elements from
 * the buffer's first byte). index_l may be any layout ndx makes: an
 * index_select or an embedding lookup along `axis` is a gather whose index
 * is a 1-d index unsqueezed and broadcast to S (stride 0 on the other axes).
 *
 * Let d be the extent of `axis` on the indexed side (src_l's for a gather,
 * dst_l's for a scatter). An index value outside [0, d), or outside [-d, d)
 * with NDX_INDEX_WRAP, is a fault: the device checks every index before the
 * call writes anything, and a call with a fault writes no byte of dst. The
 * host does not wait for that check; the next ndx_cl_check (ndx_cuda_check)
 * returns NDX_ERANGE naming the call, an offending index element, its value
 * and the valid range: "index[P] is V, outside [0, d) for axis A of src_l"
 * with P the element's position in the index buffer (what the caller's own
 * ids[P] holds), then where index_l's shape reads it ("[1,0] of index_l's
 * shape [3,4]": a broadcast index reads one element at many places). Copies queued after a faulty
 * call run as usual. Whatever the index buffer holds, no access falls outside the three layouts'
 * spans. */
#ifndef NDX_INDEX_H
#define NDX_INDEX_H

/* An index k in [-d, 0) means k + d, as NumPy's take does. */
#define NDX_INDEX_WRAP 1u
/* Scatter only: the caller promises that no two elements of S go to one
 * destination element, so ndx skips its duplicate handling (a claims pass
 * and a table of claims, see ndx_cl_scatter) and copies element by element
 * over S. If the promise is broken, each contested
 * element still holds one of its sources whole and no byte outside dst_l's
 * span is touched, but which one wins is not defined. */
#define NDX_INDEX_UNIQUE 2u

#endif /* NDX_INDEX_H */
