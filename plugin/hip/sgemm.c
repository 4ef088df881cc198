/*
 * sgemm.c - from a dlg_gemm on AMD device memory to kernel launches.
 *
 * Like sgemm.c, the framework half: a row-major C is computed as
 * C^T = B^T A^T so that the problem is column-major, and then the
 * SGPR-broadcast kernel (kernels/gcn/sgemm_sgpr.S) takes its native
 * case - A column-major, B column-major (k-contiguous), whole 64-row blocks -
 * while the generic kernel takes the rows past the last multiple of 64 and
 * every other layout.  BUILT ONLY (see sgemm.h).
 */
#include <stdint.h>
#include "core/errors.h"
#include "hip/sgemm.h"

/* The column-major problem X = P * Q (m x n, k), with P(i,l) = p[i*pr + l*pc]
 * and so on; batch strides pb, qb, xb. */
typedef struct colmajor {
  int64_t m, n, k, batch;
  const float *p, *q;
  float *x;
  int64_t pr, pc, pb, qr, qc, qb, xr, xc, xb;
} colmajor;

static colmajor orient(const dlg_gemm *g)
{
  const int swap = !dlg_is_colmajor(&g->c);
  const dlg_matrix *p = swap ? &g->b : &g->a, *q = swap ? &g->a : &g->b;
  colmajor o;
  o.m = swap ? g->n : g->m, o.n = swap ? g->m : g->n, o.k = g->k, o.batch = g->batch;
  o.p = p->data, o.q = q->data, o.x = g->c.data;
  /* Transposing swaps the roles of the row and column strides. */
  o.pr = swap ? p->cs : p->rs, o.pc = swap ? p->rs : p->cs, o.pb = p->bs;
  o.qr = swap ? q->cs : q->rs, o.qc = swap ? q->rs : q->cs, o.qb = q->bs;
  o.xr = swap ? g->c.cs : g->c.rs, o.xc = swap ? g->c.rs : g->c.cs, o.xb = g->c.bs;
  return o;
}

/* Whether the SGPR kernel can take rows [0, m - m % 64) of o. */
static int sgpr_takes(const colmajor *o, double alpha)
{
  const int64_t lim = INT32_MAX / 4;
  return o->pr == 1 && o->qr == 1 && o->xr == 1 && o->m >= 64 && o->k >= 1 && alpha != 0 &&
         o->pc <= lim && o->qc <= lim && o->xc <= lim &&
         4.0 * ((double)(o->n - 1) * (double)o->qc + (double)o->k) < 4294967296.0;
}

static dlgemm_status failed(hip_err e)
{
  return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "HIP kernel launch failed: %s", dlg_hip_error(e));
}

dlgemm_status dlg_hip_sgemm(const dlg_hip_device *dev, const dlg_gemm *g, hip_stream stream)
{
  char why[160];
  const dlg_hip_api *hip = dlg_hip_api_get(why, sizeof why);
  const colmajor o = orient(g);
  const unsigned zmax = 65535;
  int64_t m64 = sgpr_takes(&o, g->alpha) ? o.m / 64 * 64 : 0, b0;
  hip_err e = 0;
  if (o.m > INT32_MAX || o.n > INT32_MAX || o.k > INT32_MAX)
    return dlg_fail(DLGEMM_ERR_TOO_LARGE, "m, n and k must each fit in 32 bits");
  for (b0 = 0; b0 < o.batch && !e; b0 += zmax) {
    unsigned nb = (unsigned)(o.batch - b0 < zmax ? o.batch - b0 : zmax);
    if (m64) {
      /* Wider work-groups once there are columns enough to fill the GPU. */
      const int t = o.n >= 4096 ? 2 : o.n >= 1024 ? 1 : 0, wg = 64 << t;
      dlg_gcn_args a = {o.p + b0 * o.pb, o.q + b0 * o.qb, o.x + b0 * o.xb, o.pb, o.qb, o.xb,
                        (int)m64, (int)o.n, (int)o.k, (int)o.pc, (int)o.qc, (int)o.xc,
                        (float)g->alpha, (float)g->beta};
      void *params[] = {&a};
      e = hip->ModuleLaunchKernel(dev->sgpr[t], (unsigned)((o.n + wg - 1) / wg),
                                  (unsigned)(m64 / 64), nb, (unsigned)wg, 1, 1, 0, stream,
                                  params, NULL);
    }
    if (!e && o.m > m64) {
      dlg_gcn_generic_args a = {o.p + b0 * o.pb + m64 * o.pr, o.q + b0 * o.qb,
                                o.x + b0 * o.xb + m64 * o.xr, o.pr, o.pc, o.pb, o.qr, o.qc,
                                o.qb, o.xr, o.xc, o.xb, (int)(o.m - m64), (int)o.n, (int)o.k,
                                (float)g->alpha, (float)g->beta};
      void *params[] = {&a};
      const unsigned bs = DLG_GCN_GENERIC_BLOCK;
      e = hip->ModuleLaunchKernel(dev->generic, (unsigned)((o.m - m64 + bs - 1) / bs),
                                  (unsigned)((o.n + bs - 1) / bs), nb, bs, bs, 1, 0, stream,
                                  params, NULL);
    }
  }
  return e ? failed(e) : DLGEMM_OK;
}
