/*
 * local_cuda.c - the GPU store of the distributed factorizations
 * (local.h): the rank's local array copied to its GPU (slot 0: the device
 * of its node-local rank, gpu/devices.h) once when the call begins and
 * back once when it ends; every step's work on it runs on dlgemm's kernels
 * (the recursive Cholesky, the level-3 TRSM and SYRK, the GEMM kernels) on
 * one stream.  Only what crosses ranks crosses PCIe: the diagonal block
 * and the panel, each step (bench/NOTES.md, "ScaLAPACK beyond one node, on
 * paper": with the local matrix in host memory the link bounds every
 * scale).  Every copy goes through the host-array engine's page-locked
 * chunks (dlg_cuda_offload_matrix), as the factorizations' trips do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "core/level3.h"
#include "cuda/device/driver.h"
#include "cuda/hostarray/engine.h"
#include "cuda/hostarray/slots.h"
#include "cuda/lapack/recursive.h"
#include "cuda/lapack/steps.h"
#include "cuda/level3/blas3.h"
#include "dist/local_cuda.h"

typedef struct cuda_state {
  dlg_cuda_trip trip;
  dlg_factor_run run;
  CUdeviceptr base;
  void *host; /* the caller's array */
  int64_t rows, cols, ld, dld;
  char name[16];
} cuda_state;

static size_t round256(size_t b) { return (b + 255) / 256 * 256; }

/* A column-major rows x cols block to or from the device, through the
 * engine's pinned chunks and copy threads (and its retries of a copy back),
 * as the factorizations' trips take their matrices; waited for. */
static void copy(dlg_local *l, const void *host, int64_t ld, CUdeviceptr d, int64_t dld,
                 int64_t rows, int64_t cols, int to_device)
{
  cuda_state *s = l->state;
  if (l->status || rows <= 0 || cols <= 0) return;
  if (cols == 1) ld = dld = rows; /* one column: its pitch is never used, and may be 1 */
  l->status = dlg_cuda_offload_matrix(0, (void *)host, ld, d, dld, rows, cols,
                                      dlg_elem_size(l->dtype), to_device, s->trip.stream[0]);
}

static dlgemm_status cuda_open(dlg_local *l, void *host, int64_t rows, int64_t cols, int64_t ld,
                               int64_t scratch_elems, dlg_lmat *local, uintptr_t *scratch)
{
  const size_t es = dlg_elem_size(l->dtype);
  cuda_state *s = calloc(1, sizeof *s);
  size_t mbytes, sbytes, wbytes;
  CUresult e;
  if (!s) return l->status = DLGEMM_ERR_OUT_OF_MEMORY;
  l->state = s;
  if ((l->status = dlg_cuda_trip_begin(&s->trip, 1))) {
    free(s);
    l->state = NULL;
    return l->status;
  }
  snprintf(s->name, sizeof s->name, "cuda:%d", s->trip.dev->ordinal);
  s->host = host, s->rows = rows, s->cols = cols, s->ld = ld;
  s->dld = (rows + 31) / 32 * 32; /* 128-byte columns for the kernels' wide loads */
  if (s->dld < 1) s->dld = 1;
  mbytes = round256((size_t)s->dld * (size_t)(cols > 0 ? cols : 1) * es);
  sbytes = round256((size_t)(scratch_elems > 0 ? scratch_elems : 1) * es);
  wbytes = (size_t)DLG_SYRK_LEAF * DLG_SYRK_LEAF * es; /* the Cholesky's SYRK blocks */
  e = dlg_fault_injected(DLG_FAULT_OOM)
          ? CUDA_ERROR_OUT_OF_MEMORY
          : s->trip.cu->MemAllocFromPoolAsync(&s->base, mbytes + sbytes + 256 + wbytes,
                                              s->trip.dev->pool, s->trip.stream[0]);
  if (e) {
    dlg_cuda_trip_end(&s->trip);
    free(s);
    l->state = NULL;
    return l->status = dlg_fail(e == CUDA_ERROR_OUT_OF_MEMORY ? DLGEMM_ERR_OUT_OF_MEMORY
                                                                : DLGEMM_ERR_BACKEND_FAILED,
                                "CUDA allocation of the local matrix failed: %s",
                                dlg_cuda_error(e));
  }
  s->run.dev = s->trip.dev, s->run.cu = s->trip.cu, s->run.stream = s->trip.stream[0];
  s->run.dtype = l->dtype;
  s->run.precision =
      l->dtype == DLG_F32 ? dlg_config_get()->fp32_mode : DLGEMM_PRECISION_STRICT;
  s->run.info = s->base + mbytes + sbytes;
  s->run.work = s->run.info + 256;
  copy(l, host, ld, s->base, s->dld, rows, cols, 1);
  *local = (dlg_lmat){(uintptr_t)s->base, rows, cols, 1, s->dld};
  *scratch = (uintptr_t)(s->base + mbytes);
  return l->status;
}

static dlgemm_status cuda_close(dlg_local *l, int keep)
{
  cuda_state *s = l->state;
  if (!s) return l->status;
  if (keep) copy(l, s->host, s->ld, s->base, s->dld, s->rows, s->cols, 0);
  s->trip.cu->MemFreeAsync(s->base, s->trip.stream[0]);
  s->trip.cu->StreamSynchronize(s->trip.stream[0]);
  dlg_cuda_trip_end(&s->trip);
  free(s);
  l->state = NULL;
  return l->status;
}

static dlg_dview raw(dlg_lmat m)
{
  const dlg_dview v = {(CUdeviceptr)m.p, m.rows, m.cols, m.rs, m.cs};
  return v;
}

/* A view as the kernels take it: its stored matrix's leading dimension
 * made valid (dlg_lmat_stored), then turned back. */
static dlg_dview view(dlg_lmat m)
{
  const dlg_dview v = raw(dlg_lmat_stored(m));
  return dlg_lmat_is_t(m) ? dlg_step_transposed(v) : v;
}

static void cuda_to_host(dlg_local *l, dlg_lmat m, void *host, int64_t ld)
{
  copy(l, host, ld, (CUdeviceptr)m.p, m.cs, m.rows, m.cols, 0);
}

static void cuda_from_host(dlg_local *l, const void *host, int64_t ld, dlg_lmat m)
{
  copy(l, host, ld, (CUdeviceptr)m.p, m.cs, m.rows, m.cols, 1);
}

/* Status and INFO of the factorization just queued, waited for. */
static int cuda_potrf_lower(dlg_local *l, dlg_lmat a)
{
  cuda_state *s = l->state;
  const dlg_cuda_api *cu = s->trip.cu;
  int info = 0;
  CUresult e;
  if (l->status) return 0;
  if ((e = cu->MemsetD32Async(s->run.info, 0, 1, s->run.stream))) {
    l->status = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA memset failed: %s", dlg_cuda_error(e));
    return 0;
  }
  dlg_cuda_potrf(&s->run, view(a));
  if ((l->status = s->run.status)) return 0;
  if ((e = cu->MemcpyDtoHAsync(&info, s->run.info, sizeof info, s->run.stream)) ||
      (e = cu->StreamSynchronize(s->run.stream)))
    l->status = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA Cholesky failed: %s", dlg_cuda_error(e));
  return info;
}

/* The level-3 routines take column-major matrices (blas3.h): a view that
 * is the transpose of one (dlg_lmat_is_t: the upper case's) is passed as the
 * matrix it transposes, the routine's side, triangle and operation turned
 * to match. */
static dlg_dview stored(dlg_lmat m) { return raw(dlg_lmat_stored(m)); }

/* b = b t^-T, t lower.  With b = B^T it is B = t^-1 B; with t = T^T, T is
 * upper and t^-T = T^-1, t^-1 = T^-T. */
static void cuda_trsm(dlg_local *l, dlg_lmat t, dlg_lmat b)
{
  cuda_state *s = l->state;
  const dlg_dview none = {0};
  const int bt = dlg_lmat_is_t(b), tt = dlg_lmat_is_t(t);
  dlg_level3 x = {.kind = DLG_L3_TRSM, .dtype = l->dtype, .right = !bt, .upper = tt,
                  .transa = bt == tt ? 'T' : 'N', .m = bt ? b.cols : b.rows,
                  .n = bt ? b.rows : b.cols, .alpha = {1, 0}, .precision = s->run.precision};
  if (l->status || !b.rows || !b.cols) return;
  dlg_cuda_blas3(&s->run, &x, stored(t), stored(b), stored(b), none);
  l->status = s->run.status;
}

static void cuda_gemm_nt(dlg_local *l, double alpha, dlg_lmat a, dlg_lmat b, double beta,
                         dlg_lmat c)
{
  cuda_state *s = l->state;
  if (l->status) return;
  dlg_step_gemm(&s->run, alpha, view(a), dlg_step_transposed(view(b)), beta, view(c));
  l->status = s->run.status;
}

/* c's lower triangle += alpha a a^T: with c = C^T, C's upper one; with
 * a = A^T, a a^T = A^T A (TRANS 'T'). */
static void cuda_syrk_lower(dlg_local *l, double alpha, dlg_lmat a, double beta, dlg_lmat c)
{
  cuda_state *s = l->state;
  const dlg_dview none = {0};
  dlg_level3 x = {.kind = DLG_L3_SYRK, .dtype = l->dtype, .upper = dlg_lmat_is_t(c),
                  .transa = dlg_lmat_is_t(a) ? 'T' : 'N', .n = c.rows, .k = a.cols,
                  .alpha = {alpha, 0}, .beta = {beta, 0}, .precision = s->run.precision};
  if (l->status || !c.rows) return;
  dlg_cuda_blas3(&s->run, &x, stored(a), stored(a), stored(c), none);
  l->status = s->run.status;
}

static const char *cuda_name(dlg_local *l) { return ((cuda_state *)l->state)->name; }

const dlg_local_ops dlg_local_cuda = {cuda_open,        cuda_close,      cuda_to_host,
                                      cuda_from_host,   cuda_potrf_lower, cuda_trsm,
                                      cuda_gemm_nt,     cuda_syrk_lower,  cuda_name};
