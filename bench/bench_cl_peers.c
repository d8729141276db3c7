/* bench_cl_peers.c: what `ndx-bench --cl` measures ndx's copies against, on
 * the same buffers: a naive one-element-per-work-item kernel that maps each
 * index to its positions with ndx_device.h's ndx_position (bench_cl.cl);
 * clEnqueueCopyBufferRect wherever the copy is a pitched copy of rank <= 3;
 * CLBlast's CLBlastSomatcopy on the 2-d fp32 transposes (when built with
 * CLBlast; its first call compiles its kernels and is discarded). */
#include <stdio.h>
#include <string.h>

#include "bench_cl.h"
#include "ndx/ndx_pack.h"

#ifdef NDX_HAVE_CLBLAST
#include <clblast_c.h>
#endif

/* The naive peer: ndx_pack of (dst, view) and one work-item per element (per
 * destination byte below 8 bits). On success `o` holds a kernel and `*pack` a
 * buffer for the caller to release; else `why` says what failed. */
bool naive_op(env *e, const case_spec *c, case_data *d, op *o, cl_mem *pack, char *why,
              size_t whysz) {
  uint64_t buf[NDX_PACK_MAX_BYTES(2, NDX_PACK_MAX_RANK) / 8];
  size_t used;
  ndx_layout two[2] = {d->dst_l, d->view_l};
  ndx_status s = ndx_pack(buf, sizeof buf, &used, 2, two, c->bits);
  if (s != NDX_OK) {
    snprintf(why, whysz, "ndx_pack: %s", ndx_last_error());
    return false;
  }
  const ndx_pack_head *h = (const ndx_pack_head *)buf;
  cl_int err;
  *pack = clCreateBuffer(e->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, used, buf, &err);
  char name[64];
  snprintf(name, sizeof name, c->bits < 8 ? "bench_naive_sub_%d" : "bench_naive_%d", c->bits);
  cl_kernel k = err == CL_SUCCESS ? clCreateKernel(e->prog[h->wide ? 1 : 0], name, &err) : NULL;
  if (err != CL_SUCCESS) {
    if (*pack) clReleaseMemObject(*pack);
    *pack = NULL;
    snprintf(why, whysz, "naive kernel setup: %s", cl_err(err));
    return false;
  }
  clSetKernelArg(k, 0, sizeof(cl_mem), pack);
  clSetKernelArg(k, 1, sizeof(cl_mem), &d->dst);
  clSetKernelArg(k, 2, sizeof(cl_mem), &d->src);
  *o = (op){.kind = OP_KERNEL, .e = e, .dst = d->dst, .src = d->src, .kernel = k, .local = 64};
  int64_t items = c->bits < 8 ? (int64_t)d->dst_bytes : ndx_numel(&d->view_l);
  o->global = (size_t)((items + 63) / 64 * 64);
  return true;
}

/* clEnqueueCopyBufferRect, where the coalesced pair is a pitched copy of rank
 * <= 3 (bytes, rows, slices) with pitches OpenCL accepts: each row pitch at
 * least the row's bytes, each slice pitch a multiple of the row pitch and at
 * least rows * row pitch. Not for a plain 1-d copy (that is CopyBuffer). */
bool rect_op(env *e, const case_spec *c, case_data *d, op *o) {
  if (c->bits < 8) return false;
  ndx_layout in[2] = {d->dst_l, d->view_l}, out[2];
  if (ndx_coalesce(2, in, out) != NDX_OK) return false;
  int r = out[0].rank;
  size_t es = (size_t)c->bits / 8;
  for (int a = 0; a < r; a++)
    if (out[0].strides[a] < 0 || out[1].strides[a] < 0) return false;
  memset(o, 0, sizeof *o);
  o->kind = OP_RECT;
  o->e = e;
  o->dst = d->dst;
  o->src = d->src;
  int first; /* the axis that becomes the rows; the one before it the slices */
  if (out[0].strides[r - 1] == 1 && out[1].strides[r - 1] == 1) {
    o->region[0] = (size_t)out[0].shape[r - 1] * es;
    first = r - 2;
  } else {
    o->region[0] = es;
    first = r - 1;
  }
  if (first < 0 || first > 1) return false;
  size_t pitch[2][2]; /* [operand][row, slice] */
  for (int k = 0; k < 2; k++) {
    for (int j = 1; j <= 2; j++) {
      int a = first - (j - 1);
      if (a >= 0) {
        o->region[j] = (size_t)out[0].shape[a];
        pitch[k][j - 1] = (size_t)out[k].strides[a] * es;
      } else {
        o->region[j] = 1;
        pitch[k][j - 1] = j == 1 ? o->region[0] : o->region[1] * pitch[k][0];
      }
    }
    if (pitch[k][0] < o->region[0] || pitch[k][1] < o->region[1] * pitch[k][0] ||
        pitch[k][1] % pitch[k][0] != 0)
      return false;
  }
  o->drp = pitch[0][0];
  o->dsp = pitch[0][1];
  o->srp = pitch[1][0];
  o->ssp = pitch[1][1];
  o->dox[0] = (size_t)out[0].offset * es;
  o->so[0] = (size_t)out[1].offset * es;
  return true;
}

bool clblast_op(env *e, const case_spec *c, const case_data *d, op *o) {
#ifdef NDX_HAVE_CLBLAST
  if (!c->clblast || !e->clblast) return false;
  *o = (op){.kind = OP_CLBLAST, .e = e, .dst = d->dst, .src = d->src};
  o->m = (size_t)d->base_l.shape[0];
  o->n = (size_t)d->base_l.shape[1];
  o->lda = o->n;
  o->ldb = o->m;
  return true;
#else
  (void)e;
  (void)c;
  (void)d;
  (void)o;
  return false;
#endif
}

#ifdef NDX_HAVE_CLBLAST
/* CLBlast compiles its kernels on the first call: make it on a small matrix
 * and discard it. */
void warm_clblast(env *e) {
  cl_mem a = new_buffer(e, 64 * 64 * 4), b = new_buffer(e, 64 * 64 * 4);
  if (!a || !b) return;
  uint64_t t0 = bench_now_ns();
  cl_event ev = NULL;
  CLBlastStatusCode c = CLBlastSomatcopy(CLBlastLayoutRowMajor, CLBlastTransposeYes, 64, 64, 1.0f,
                                         a, 0, 64, b, 0, 64, &e->q, &ev);
  if (ev) clReleaseEvent(ev);
  clFinish(e->q);
  e->clblast = c == CLBlastSuccess;
  printf("CLBlast: first CLBlastSomatcopy call %s in %.2f s (discarded)\n",
         e->clblast ? "compiled" : "FAILED", (double)(bench_now_ns() - t0) * 1e-9);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
}
#else
void warm_clblast(env *e) {
  (void)e;
  printf("CLBlast: not built in (meson -Dclblast=enabled)\n");
}
#endif
