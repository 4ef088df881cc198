/*
 * mp_factor.c - PxPOTRF, PxGETRF and PxGEQRF by NVIDIA's cuSOLVERMp on the
 * ranks' GPUs (the engine: mp.c).  Measured before choosing (bench/NOTES.md,
 * "ScaLAPACK on two GPUs"): its PxPOTRF at n = 32768-65536 on two H200s
 * took 0.19-0.21 of the time of dlgemm's own resident algorithm, which
 * stays for what this does not take.  Each rank's local array goes to its
 * GPU once, through the host-array engine's pinned chunks, and back once,
 * after the grid has voted that every rank finished (PxPOTRF's: only its
 * lower triangle, both ways); PxGETRF's pivots and PxGEQRF's scalars come
 * back in cuSOLVERMp's layout and are moved to ScaLAPACK's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/config.h"
#include "core/calllog.h"
#include "core/errors.h"
#include "cuda/hostarray/engine.h"
#include "dist/layout.h"
#include "cuda/device/driver.h"
#include "dist/mp.h"
#include "dist/mp_factor.h"

enum { FILL_LOWER = 0 };

/* This rank's local array to the device (to_device 1) or back.  PxPOTRF
 * ('L': the only one taken here) references only the lower triangle and
 * leaves the strictly upper one as it was, so of each local block column
 * only the rows from its diagonal block down move: about half the bytes.
 * The move is bound by the host's memory, not the ranks' links (every
 * rank's copy threads together reach 45-75 GB/s on the H200 machines,
 * whether 2 ranks or 4: bench/NOTES.md, session 32), so halving it is
 * what shortens PxPOTRF's call on every grid. */
static int move_local(const dlg_dist_call *c, const dlg_grid *g, CUdeviceptr d, int64_t dld,
                      int64_t rows, int64_t cols, int to_device, CUstream s)
{
  const size_t es = dlg_elem_size(c->dtype), lld = (size_t)c->desc[LLD_];
  const int64_t nb = c->desc[NB_];
  int64_t j;
  if (rows <= 0 || cols <= 0) return 1;
  if (c->kind != DLG_DIST_POTRF)
    return !dlg_cuda_offload_matrix(0, c->a, (int64_t)lld, d, dld, rows, cols, es, to_device, s);
  for (j = 0; j < cols; j += nb) {
    const int64_t r0 = dlg_lower_from(j, g->row, g->p, g->col, g->q, nb);
    const int64_t w = cols - j < nb ? cols - j : nb;
    if (r0 >= rows) break; /* later block columns start lower still */
    if (dlg_cuda_offload_matrix(0, (char *)c->a + ((size_t)j * lld + (size_t)r0) * es,
                                (int64_t)lld, d + ((size_t)j * (size_t)dld + (size_t)r0) * es,
                                dld, rows - r0, w, es, to_device, s))
      return 0;
  }
  return 1;
}

/* The call on this rank's GPU: the local array there (at *d, leading
 * dimension dld), the factorization, INFO, and PxGETRF's pivots or
 * PxGEQRF's scalars (aux_bytes of them, cuSOLVERMp's layout) into `aux` on
 * the host; the factor stays on the device for the caller.  `ready`: 0
 * where this rank already failed (why[] set).  A collective:
 * the grid votes that every rank is set up before any enters cuSOLVERMp's
 * call, whose communicator would leave the others waiting for a rank that
 * failed alone (xdllt hung so on the H200s, session 29). */
static int factor(const dlg_blacs *b, const dlg_grid *g, dlg_mp_call *mc,
                  const dlg_dist_call *c, int ready, int64_t rows, int64_t cols, CUdeviceptr *d,
                  int64_t dld, int *info, void *aux, size_t aux_bytes, char *why, size_t len)
{
  const dlg_cuda_api *cu = mc->trip.cu;
  void *const handle = mc->handle;
  const int type = c->dtype == DLG_F64 ? DLG_CUDA_R_64F : DLG_CUDA_R_32F;
  const size_t es = dlg_elem_size(c->dtype);
  const size_t bytes = dlg_mp_bytes(dld, cols, c->desc[NB_], es);
  const CUstream s = mc->stream;
  void *a = NULL, *desc = NULL, *host_work = NULL, *v = NULL; /* v: pivots or scalars */
  int *dinfo = NULL;
  CUdeviceptr work = 0; /* 0 until allocated */
  size_t dbytes = 0, hbytes = 0;
  CUresult e = CUDA_SUCCESS;
  int r = 0, set = 0, ok = 0;
  *info = 0;
  if (ready && (dlg_fault_injected(DLG_FAULT_OOM) ||
                cu->MemAllocFromPoolAsync(d, bytes + 256 + aux_bytes, mc->trip.dev->pool, s))) {
    snprintf(why, len, "no device memory for the local matrix (%zu bytes)", bytes);
    *d = 0, ready = 0;
  }
  if (ready) {
    a = (void *)(uintptr_t)*d;
    dinfo = (int *)(uintptr_t)(*d + bytes);
    v = (void *)(uintptr_t)(*d + bytes + 256);
    /* PxPOTRF: the upper blocks, not copied, cleared so that nothing
     * cuSOLVERMp reads there is left over from another call */
    if (c->kind == DLG_DIST_POTRF && (e = cu->MemsetD32Async(*d, 0, bytes / 4, s)))
      snprintf(why, len, "clearing the local matrix failed (%s)", dlg_cuda_error(e));
    else if (!move_local(c, g, *d, dld, rows, cols, 1, s))
      snprintf(why, len, "copying the local matrix in failed: %s", dlgemm_last_error());
    else if ((r = dlg_mp.desc(&desc, mc->grid, type, c->m, c->n, c->desc[NB_], c->desc[NB_],
                              0, 0, dld)) ||
             (r = c->kind == DLG_DIST_POTRF
                      ? dlg_mp.potrf_size(handle, FILL_LOWER, c->n, a, 1, 1, desc, type,
                                          &dbytes, &hbytes)
                  : c->kind == DLG_DIST_GETRF
                      ? dlg_mp.getrf_size(handle, c->m, c->n, a, 1, 1, desc, v, type, &dbytes,
                                          &hbytes)
                      : dlg_mp.geqrf_size(handle, c->m, c->n, a, 1, 1, desc, type, &dbytes,
                                          &hbytes)))
      snprintf(why, len, "cuSOLVERMp's setup of the call failed (%d)", r);
    else if (dlg_fault_injected(DLG_FAULT_WORKSPACE) ||
             cu->MemAllocFromPoolAsync(&work, dbytes ? dbytes : 1, mc->trip.dev->pool, s) ||
             !(host_work = malloc(hbytes ? hbytes : 1)))
      snprintf(why, len, "no memory for cuSOLVERMp's workspace (%zu + %zu bytes)", dbytes,
               hbytes);
    /* INFO and the pivots cleared: a rank of no columns writes neither,
     * and a pivot left 0 shows a layout other than the one read (convert) */
    else if ((e = cu->MemsetD32Async(*d + bytes, 0, 1, s)) ||
             (aux_bytes && (e = cu->MemsetD32Async(*d + bytes + 256, 0, aux_bytes / 4, s))))
      snprintf(why, len, "clearing INFO failed (%s)", dlg_cuda_error(e));
    else
      set = 1;
  }
  if (!dlg_mp_vote(b, g, mc, set)) {
    if (set) snprintf(why, len, "cuSOLVERMp's setup failed on another rank");
  } else if ((r = c->kind == DLG_DIST_POTRF
                      ? dlg_mp.potrf(handle, FILL_LOWER, c->n, a, 1, 1, desc, type,
                                     (void *)(uintptr_t)work, dbytes, host_work, hbytes, dinfo)
                  : c->kind == DLG_DIST_GETRF
                      ? dlg_mp.getrf(handle, c->m, c->n, a, 1, 1, desc, v, type,
                                     (void *)(uintptr_t)work, dbytes, host_work, hbytes, dinfo)
                      : dlg_mp.geqrf(handle, c->m, c->n, a, 1, 1, desc, v, type,
                                     (void *)(uintptr_t)work, dbytes, host_work, hbytes,
                                     dinfo)) ||
             (e = cu->MemcpyDtoHAsync(info, *d + bytes, sizeof *info, s)) ||
             (c->kind != DLG_DIST_POTRF &&
              (e = cu->MemcpyDtoHAsync(aux, *d + bytes + 256, aux_bytes, s))) ||
             (e = cu->StreamSynchronize(s)))
    snprintf(why, len, "cuSOLVERMp's %s failed (%s)", c->origin,
             r ? "its status" : dlg_cuda_error(e));
  else
    ok = 1, mc->t_lib = dlg_now();
  if (work) cu->MemFreeAsync(work, s);
  if (desc) dlg_mp.desc_destroy(desc);
  cu->StreamSynchronize(s);
  free(host_work);
  return ok;
}

/* The whole pivot vector (min(m, n) global rows, 1-based, as ScaLAPACK
 * writes them) into piv on every rank, read from `aux` as laid out by
 * local row (cuSOLVERMp's documentation: LOCr(M) + MB entries, ScaLAPACK's
 * IPIV) from process column 0, or by local column (its samples allocate
 * LOCc(N)) from process row 0.  1 where every pivot is a row at or below
 * its own: the same verdict on every rank, the sum being the grid's. */
static int pivots(const dlg_blacs *b, const dlg_grid *g, const dlg_dist_call *c, int64_t rows,
                  int64_t cols, const int64_t *aux, int by_row, int *piv)
{
  const int64_t nb = c->desc[NB_], mn = c->m < c->n ? c->m : c->n;
  char all_[] = "All", top[] = " ";
  int64_t l, k;
  memset(piv, 0, (size_t)mn * sizeof *piv);
  if (by_row && g->col == 0)
    for (l = 0; l < rows; l++)
      if ((k = dlg_global_of(l, g->row, g->p, nb)) < mn) piv[k] = (int)aux[l];
  if (!by_row && g->row == 0)
    for (l = 0; l < cols; l++)
      if ((k = dlg_global_of(l, g->col, g->q, nb)) < mn) piv[k] = (int)aux[l];
  b->igsum2d(g->ctxt, all_, top, (int)mn, 1, piv, (int)mn, -1, -1);
  for (k = 0; k < mn; k++)
    if (piv[k] <= k || piv[k] > c->m) return 0;
  return 1;
}

/* PxGETRF's pivots and PxGEQRF's scalars from cuSOLVERMp's layout into
 * ScaLAPACK's: IPIV by local row on every process column, TAU by local
 * column on every process row, each entry from the ranks that hold it
 * (the diagonal's owner for the scalars).  0 (on every rank) where no
 * reading of the pivots gives rows at or below their own. */
static int convert(const dlg_blacs *b, const dlg_grid *g, const dlg_dist_call *c, int64_t rows,
                   int64_t cols, const void *aux, void *whole)
{
  const int64_t nb = c->desc[NB_], mn = c->m < c->n ? c->m : c->n;
  char all_[] = "All", top[] = " ";
  int64_t l, k;
  if (c->kind == DLG_DIST_GETRF) {
    static int told; /* which reading held, once a process (DLGEMM_VERBOSE) */
    int *piv = whole, by_row = 1;
    if (!pivots(b, g, c, rows, cols, aux, 1, piv) &&
        !pivots(b, g, c, rows, cols, aux, by_row = 0, piv))
      return 0;
    if (dlg_config_get()->verbose && !__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
      fprintf(stderr, "dlgemm: cuSOLVERMp's pivots read by local %s\n",
              by_row ? "row (its documentation's IPIV)" : "column (its samples' layout)");
    for (l = 0; l < rows; l++)
      if ((k = dlg_global_of(l, g->row, g->p, nb)) < mn) c->ipiv[l] = piv[k];
    return 1;
  }
  {
    const size_t es = dlg_elem_size(c->dtype);
    const int t = c->dtype == DLG_F64;
    memset(whole, 0, (size_t)mn * es);
    for (l = 0; l < cols; l++)
      if ((k = dlg_global_of(l, g->col, g->q, nb)) < mn && (k / nb) % g->p == g->row)
        memcpy((char *)whole + (size_t)k * es, (const char *)aux + (size_t)l * es, es);
    b->gsum2d[t](g->ctxt, all_, top, (int)mn, 1, whole, (int)mn, -1, -1);
    for (l = 0; l < cols; l++)
      if ((k = dlg_global_of(l, g->col, g->q, nb)) < mn)
        memcpy((char *)c->tau + (size_t)l * es, (char *)whole + (size_t)k * es, es);
    return 1;
  }
}

int dlg_dist_mp_run(const dlg_blacs *b, const dlg_grid *g, const dlg_dist_call *c, int usable,
                    int64_t rows, int64_t cols, int *info, char *where, size_t where_len,
                    char *why, size_t why_len)
{
  const int64_t dld = dlg_mp_dld(rows, c->desc[NB_]), mn = c->m < c->n ? c->m : c->n;
  const size_t es = dlg_elem_size(c->dtype);
  /* PxGETRF's pivots: room for either layout convert reads, 8 bytes each */
  const int64_t npiv = rows + c->desc[NB_] > cols ? rows + c->desc[NB_] : cols;
  const size_t aux_bytes = c->kind == DLG_DIST_POTRF   ? 0
                           : c->kind == DLG_DIST_GETRF ? (size_t)npiv * 8
                                                       : (size_t)(cols > 0 ? cols : 1) * es;
  dlg_mp_call mc;
  CUdeviceptr d = 0;
  void *aux = NULL, *whole = NULL;
  int ok, taken = 0, mine = 0;
  if (!dlg_mp_begin(b, g, usable, DLG_MP_SOLVER, &mc, why, why_len)) return 0;
  ok = c->kind == DLG_DIST_POTRF ||
       ((aux = malloc(aux_bytes)) &&
        (whole = malloc((size_t)mn * (es > sizeof(int) ? es : sizeof(int)))));
  if (!ok) snprintf(why, why_len, "no host memory for the pivots or scalars");
  /* called on every rank, whatever ok: it votes before the collective */
  ok = factor(b, g, &mc, c, ok, rows, cols, &d, dld, &mine, aux, aux_bytes, why, why_len);
  /* INFO > 0 goes on too: the next ScaLAPACK writes the reference's
   * partial factor (Cholesky) or its own LU of a singular matrix */
  taken = dlg_mp_all(b, g, ok && mine == 0);
  if (ok && !taken)
    snprintf(why, why_len, mine ? "INFO=%d: the next ScaLAPACK writes its own factor"
                                : "cuSOLVERMp failed on another rank", mine);
  if (taken && c->kind != DLG_DIST_POTRF && !convert(b, g, c, rows, cols, aux, whole)) {
    snprintf(why, why_len, "cuSOLVERMp's pivots are not rows at or below their own");
    taken = 0;
  }
  if (taken) {
    *info = 0;
    if (!move_local(c, g, d, dld, rows, cols, 0, mc.stream)) {
      fprintf(stderr, "dlgemm: %s: copying the factor back failed (%s); it is incomplete\n",
              c->origin, dlgemm_last_error());
      *info = -1;
    }
  }
  if (d) mc.trip.cu->MemFreeAsync(d, mc.stream);
  dlg_mp_where(&mc, "cuSOLVERMp", where, where_len);
  dlg_mp_end(&mc);
  free(aux), free(whole);
  return taken;
}
