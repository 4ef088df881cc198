/*
 * mp_gemm.c - PxGEMM by NVIDIA's cuBLASMp on the ranks' GPUs (the engine:
 * mp.c): C = alpha op(A) op(B) + beta C on ScaLAPACK's block-cyclic
 * matrices, each rank's three local arrays to its GPU once and C back
 * once, after the grid has voted that every rank finished.  PBLAS's own
 * PxGEMM, preloaded, moves every local product across PCIe and every
 * panel through MPI (1.3x OpenBLAS across two GPUs, issue 52); cuBLASMp
 * keeps them on the GPUs and sends them over NCCL.
 */
#include <stdio.h>
#include <stdlib.h>
#include "core/config.h"
#include "core/calllog.h"
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/hostarray/engine.h"
#include "dist/layout.h"
#include "dist/mp.h"
#include "dist/mp_gemm.h"

enum { OP_N = 0, OP_T = 1, COMPUTE_32F = 68, COMPUTE_64F = 70 };

/* One operand: its local array here, its copy on the device.  A
 * sub-matrix at (i, j) of x rows by y columns is given to cuBLASMp as
 * itself inside the global matrix's leading i - 1 + x by j - 1 + y block,
 * whose local part is the local array's leading part: that part goes to
 * the device and, for C, back (the entries outside the sub-matrix as they
 * came, untouched by the product). */
typedef struct operand {
  void *host;
  const int *desc;
  int64_t m, n, rows, cols, dld; /* the leading block, global m x n; local rows x cols */
  int64_t i, j;                  /* the sub-matrix's first row and column (1-based) */
  CUdeviceptr d;
  void *mpdesc;
} operand;

static operand operand_of(void *host, const int *desc, int64_t i, int64_t j, int64_t x, int64_t y,
                          const dlg_grid *g)
{
  const int64_t m = i - 1 + x, n = j - 1 + y;
  operand o = {host, desc, m, n, 0, 0, 0, i, j, 0, NULL};
  o.rows = dlg_numroc(m, desc[NB_], g->row, g->p);
  o.cols = dlg_numroc(n, desc[NB_], g->col, g->q);
  o.dld = dlg_mp_dld(o.rows, desc[NB_]);
  return o;
}

static size_t bytes_of(const operand *o, size_t es)
{
  return dlg_mp_bytes(o->dld, o->cols, o->desc[NB_], es);
}

/* C's sub-matrix cleared on the device (beta = 0: C is not read, and a NaN
 * there must not show).  Its local part is the rectangle at the end of the
 * leading block's: rows from LOCr(ic - 1), columns from LOCc(jc - 1); all
 * of those columns at once where it starts on the first row, else column
 * by column (a sub-matrix below row 1 with beta 0: PBLAS's testers, not
 * the large products). */
static CUresult clear_sub(const dlg_cuda_api *cu, const operand *o, const dlg_grid *g, size_t es,
                          CUstream s)
{
  const int64_t nb = o->desc[NB_], r0 = dlg_numroc(o->i - 1, nb, g->row, g->p);
  const int64_t c0 = dlg_numroc(o->j - 1, nb, g->col, g->q);
  const size_t col = (size_t)o->dld * es, words = (size_t)(o->rows - r0) * es / 4;
  CUresult e = CUDA_SUCCESS;
  int64_t j;
  if (r0 >= o->rows || c0 >= o->cols) return e;
  if (r0 == 0)
    return cu->MemsetD32Async(o->d + (size_t)c0 * col, 0, (size_t)(o->cols - c0) * col / 4, s);
  for (j = c0; j < o->cols && !e; j++)
    e = cu->MemsetD32Async(o->d + (size_t)j * col + (size_t)r0 * es, 0, words, s);
  return e;
}

/* The product on this rank's GPU; C stays there for the caller.  `ready`:
 * 0 where this rank already failed (why[] set).  A collective: the grid
 * votes that every rank is set up before any enters cublasMpGemm, whose
 * communicator would leave the others waiting for a rank that failed
 * alone. */
static int multiply(const dlg_blacs *b, const dlg_grid *g, dlg_mp_call *mc,
                    const dlg_dist_call *c, int ready, operand *x, size_t es, char *why,
                    size_t len)
{
  const dlg_cuda_api *cu = mc->trip.cu;
  const CUstream s = mc->stream;
  const int type = c->dtype == DLG_F64 ? DLG_CUDA_R_64F : DLG_CUDA_R_32F;
  const int compute = c->dtype == DLG_F64 ? COMPUTE_64F : COMPUTE_32F;
  const int ta = c->transa == 'N' || c->transa == 'n' ? OP_N : OP_T;
  const int tb = c->transb == 'N' || c->transb == 'n' ? OP_N : OP_T;
  const int zero_beta = c->dtype == DLG_F64 ? *(const double *)c->beta == 0
                                            : *(const float *)c->beta == 0;
  CUdeviceptr work = 0; /* 0 until allocated */
  void *host_work = NULL;
  size_t dbytes = 0, hbytes = 0;
  CUresult e = CUDA_SUCCESS;
  int r = 0, i, set = 0, ok = 0;
  /* A and B in; C in unless beta is 0 and C is all its leading block (then
   * not read but cleared); a sub-matrix's surroundings in, itself cleared */
  for (i = 0; ready && i < 3; i++) {
    operand *o = &x[i];
    const int whole = o->i == 1 && o->j == 1;
    if (o->rows <= 0 || o->cols <= 0) continue;
    if (i == 2 && zero_beta && whole) {
      if ((e = cu->MemsetD32Async(o->d, 0, bytes_of(o, es) / 4, s))) break;
    } else if (dlg_cuda_offload_matrix(0, o->host, o->desc[LLD_], o->d, o->dld, o->rows,
                                       o->cols, es, 1, s)) {
      snprintf(why, len, "copying a local matrix in failed: %s", dlgemm_last_error());
      ready = 0;
    } else if (i == 2 && zero_beta && (e = clear_sub(cu, o, g, es, s))) {
      break;
    }
  }
  for (i = 0; ready && !e && !r && i < 3; i++)
    r = dlg_mp.b_desc(x[i].m, x[i].n, x[i].desc[NB_], x[i].desc[NB_], 0, 0, x[i].dld, type,
                      mc->grid, &x[i].mpdesc);
  if (!ready)
    ;
  else if (e || r)
    snprintf(why, len, "cuBLASMp's setup of the call failed (%s)",
             e ? dlg_cuda_error(e) : "its status");
  else if ((r = dlg_mp.gemm_size(mc->handle, ta, tb, c->m, c->n, c->k, c->alpha,
                                 (void *)(uintptr_t)x[0].d, x[0].i, x[0].j, x[0].mpdesc,
                                 (void *)(uintptr_t)x[1].d, x[1].i, x[1].j, x[1].mpdesc, c->beta,
                                 (void *)(uintptr_t)x[2].d, x[2].i, x[2].j, x[2].mpdesc, compute,
                                 &dbytes, &hbytes)))
    snprintf(why, len, "cublasMpGemm_bufferSize failed (%d)", r);
  else if (dlg_fault_injected(DLG_FAULT_WORKSPACE) ||
           cu->MemAllocFromPoolAsync(&work, dbytes ? dbytes : 1, mc->trip.dev->pool, s) ||
           !(host_work = malloc(hbytes ? hbytes : 1)))
    snprintf(why, len, "no memory for cuBLASMp's workspace (%zu + %zu bytes)", dbytes, hbytes);
  else
    set = 1;
  if (!dlg_mp_vote(b, g, mc, set)) {
    if (set) snprintf(why, len, "cuBLASMp's setup failed on another rank");
  } else if ((r = dlg_mp.gemm(mc->handle, ta, tb, c->m, c->n, c->k, c->alpha,
                              (void *)(uintptr_t)x[0].d, x[0].i, x[0].j, x[0].mpdesc,
                              (void *)(uintptr_t)x[1].d, x[1].i, x[1].j, x[1].mpdesc, c->beta,
                              (void *)(uintptr_t)x[2].d, x[2].i, x[2].j, x[2].mpdesc, compute,
                              (void *)(uintptr_t)work, dbytes, host_work, hbytes)) ||
             (e = cu->StreamSynchronize(s)))
    snprintf(why, len, "cublasMpGemm failed (%s)", r ? "its status" : dlg_cuda_error(e));
  else
    ok = 1, mc->t_lib = dlg_now();
  if (work) cu->MemFreeAsync(work, s);
  for (i = 0; i < 3; i++)
    if (x[i].mpdesc) dlg_mp.b_desc_destroy(x[i].mpdesc);
  cu->StreamSynchronize(s);
  free(host_work);
  return ok;
}

int dlg_dist_mp_gemm(const dlg_blacs *b, const dlg_grid *g, const dlg_dist_call *c, int usable,
                     char *where, size_t where_len, char *why, size_t why_len)
{
  const int ta = !(c->transa == 'N' || c->transa == 'n');
  const int tb = !(c->transb == 'N' || c->transb == 'n');
  const size_t es = dlg_elem_size(c->dtype);
  operand x[3];
  dlg_mp_call mc;
  size_t total = 0;
  int i, ok, taken;
  x[0] = operand_of(c->a, c->desc, c->ia, c->ja, ta ? c->k : c->m, ta ? c->m : c->k, g);
  x[1] = operand_of((void *)c->b, c->desc_b, c->ib, c->jb, tb ? c->n : c->k, tb ? c->k : c->n, g);
  x[2] = operand_of(c->c, c->desc_c, c->ic, c->jc, c->m, c->n, g);
  for (i = 0; i < 3; i++) usable = usable && dlg_lld_ok(x[i].desc, g->row, g->p);
  if (!dlg_mp_begin(b, g, usable, DLG_MP_BLAS, &mc, why, why_len)) return 0;
  for (i = 0; i < 3; i++) total += bytes_of(&x[i], es);
  ok = !dlg_fault_injected(DLG_FAULT_OOM) &&
       !mc.trip.cu->MemAllocFromPoolAsync(&x[0].d, total, mc.trip.dev->pool, mc.stream);
  if (!ok) {
    snprintf(why, why_len, "no device memory for the local matrices (%zu bytes)", total);
    x[0].d = 0;
  } else {
    x[1].d = x[0].d + bytes_of(&x[0], es), x[2].d = x[1].d + bytes_of(&x[1], es);
  }
  ok = multiply(b, g, &mc, c, ok, x, es, why, why_len); /* every rank: it votes */
  taken = dlg_mp_all(b, g, ok);
  if (ok && !taken) snprintf(why, why_len, "cuBLASMp failed on another rank");
  if (taken && x[2].rows > 0 && x[2].cols > 0 &&
      dlg_cuda_offload_matrix(0, c->c, c->desc_c[LLD_], x[2].d, x[2].dld, x[2].rows, x[2].cols,
                              es, 0, mc.stream))
    fprintf(stderr, "dlgemm: %s: copying C back failed (%s); it is incomplete\n", c->origin,
            dlgemm_last_error());
  if (x[0].d) mc.trip.cu->MemFreeAsync(x[0].d, mc.stream);
  dlg_mp_where(&mc, "cuBLASMp", where, where_len);
  dlg_mp_end(&mc);
  return taken;
}
