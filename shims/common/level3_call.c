/*
 * level3_call.c - the common path of every level-3 routine but real GEMM
 * (blas_call.c), whichever symbol, type or integer width it came through.
 *
 * Checks as the reference (level3_info.c), reported to xerbla_ after the
 * call has left (blas_xerbla); the reference's quick return; then the
 * router: a GPU backend's level3 (host arrays, the whole call on the
 * device), or the next BLAS's routine of the same name with the same
 * values (level3_forward.c).  A GPU failure leaves the caller's arrays as
 * they were, and the next BLAS answers after all.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "core/calllog.h"
#include "core/config.h"
#include "core/errors.h"
#include "core/fork.h"
#include "core/level3.h"
#include "route/route.h"
#include "shims/common/blas_call.h"
#include "shims/common/level3_call.h"
#include "shims/common/level3_info.h"
#include "shims/common/lapack_call.h"
#include "shims/common/level3_forward.h"

static int lsame(char c, char ref) { return (c | 0x20) == (ref | 0x20); }
static char upper(char c) { return (char)toupper((unsigned char)c); }

/* A scalar of the routine's type, or of its real type (real == 1). */
static void scalar(const blas_call *x, const void *p, int real, double out[2])
{
  const int dbl = dlg_real_of(x->dtype) == DLG_F64;
  const int parts = dlg_is_complex(x->dtype) && !real ? 2 : 1;
  out[1] = 0;
  for (int i = 0; i < parts; i++)
    out[i] = dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

/* The call's arguments, read once (scalars only where the reference reads
 * them: not for an empty C); its INFO was 0. */
static void to_level3(const blas_call *x, dlg_level3 *l)
{
  const int rank_k = x->routine >= BLAS_SYRK && x->routine <= BLAS_HER2K;
  const int tri = x->routine == BLAS_TRMM || x->routine == BLAS_TRSM;
  memset(l, 0, sizeof *l);
  l->kind = (dlg_l3_kind)x->routine;
  l->dtype = x->dtype;
  l->right = lsame(x->side, 'R');
  l->upper = lsame(x->uplo, 'U');
  l->unit = tri && lsame(x->diag, 'U');
  l->transa = upper(x->transa);
  l->transb = x->routine == BLAS_GEMM ? upper(x->transb) : 'N';
  l->m = rank_k ? x->n : x->m, l->n = x->n, l->k = x->k;
  l->a = x->a, l->lda = x->lda;
  l->b = x->b, l->ldb = x->ldb;
  l->c = tri ? (void *)x->b : x->c, l->ldc = tri ? x->ldb : x->ldc;
  l->origin = x->origin;
  /* the shim's SGEMM policy covers every float32 product it makes */
  l->precision = dlg_real_of(x->dtype) == DLG_F32 ? dlg_config_get()->fp32_mode
                                                  : DLGEMM_PRECISION_STRICT;
  if (l->m && l->n) {
    scalar(x, x->alpha, x->routine == BLAS_HERK, l->alpha);
    if (!tri) scalar(x, x->beta, x->routine == BLAS_HERK || x->routine == BLAS_HER2K, l->beta);
  }
}

/* The reference's RETURN before any arithmetic. */
static int quick_return(const dlg_level3 *l)
{
  const int alpha0 = l->alpha[0] == 0 && l->alpha[1] == 0;
  const int beta1 = l->beta[0] == 1 && l->beta[1] == 0;
  if (!l->m || !l->n) return 1;
  switch (l->kind) {
  case DLG_L3_TRMM:
  case DLG_L3_TRSM: return 0;
  case DLG_L3_SYMM:
  case DLG_L3_HEMM: return alpha0 && beta1;
  default: return (alpha0 || !l->k) && beta1; /* GEMM and the rank-k updates */
  }
}

static void log_call(const blas_call *x, const dlg_level3 *l, const char *backend,
                     const char *why, double seconds)
{
  char args[64], dims[96];
  double flops;
  if (!dlg_config_get()->verbose) return;
  switch (x->routine) {
  case BLAS_GEMM: snprintf(args, sizeof args, "%c%c", x->transa, x->transb); break;
  case BLAS_SYMM:
  case BLAS_HEMM: snprintf(args, sizeof args, "side=%c uplo=%c", x->side, x->uplo); break;
  case BLAS_TRMM:
  case BLAS_TRSM:
    snprintf(args, sizeof args, "side=%c uplo=%c trans=%c diag=%c", x->side, x->uplo, x->transa,
             x->diag);
    break;
  default: snprintf(args, sizeof args, "uplo=%c trans=%c", x->uplo, x->transa);
  }
  /* the dimensions the routine has: M N K, M N, or N K (rank-k) */
  if (x->routine == BLAS_GEMM)
    snprintf(dims, sizeof dims, "m=%lld n=%lld k=%lld", (long long)x->m, (long long)x->n,
             (long long)x->k);
  else if (x->routine >= BLAS_SYRK && x->routine <= BLAS_HER2K)
    snprintf(dims, sizeof dims, "n=%lld k=%lld", (long long)x->n, (long long)x->k);
  else
    snprintf(dims, sizeof dims, "m=%lld n=%lld", (long long)x->m, (long long)x->n);
  flops = l && seconds > 0 ? dlg_level3_flops(l) / seconds * 1e-9 : 0.0;
  fprintf(stderr, "dlgemm: %s %s %s -> %s (%s) %.3f ms %.2f GFLOP/s\n", x->origin, args, dims,
          dlg_log_backend(backend), why, seconds * 1e3, flops);
}

/* Inside the door (core/fork.h): everything but the report of an illegal
 * argument, which goes to the program's xerbla_ after the call has left. */
static int level3_inside(const blas_call *x)
{
  char why[448];
  const dlg_backend *be;
  dlg_level3 l;
  double t0;
  const int info = blas_level3_info(x);
  if (info) {
    snprintf(why, sizeof why, "illegal parameter %d reported to xerbla_", info);
    log_call(x, NULL, "rejected", why, 0);
    return info;
  }
  to_level3(x, &l);
  if (quick_return(&l)) {
    log_call(x, &l, "quick-return", "nothing to compute", 0);
    return 0;
  }
  t0 = dlg_now();
  be = route_pick_level3(&l, why, sizeof why);
  if (be && be->level3(&l) != DLGEMM_OK) {
    char reason[192];
    dlg_copy_text(reason, sizeof reason, dlgemm_last_error());
    snprintf(why, sizeof why, "fallback after %s failed: %s", be->name, reason);
    be = NULL;
  } else if (be) {
    dlg_append_note(why, sizeof why);
  }
  if (!be && blas_level3_forward(x)) {
    log_call(x, &l, "failed", dlgemm_last_error(), dlg_now() - t0);
    return 0;
  }
  log_call(x, &l, be ? be->name : "cpu", why, dlg_now() - t0);
  return 0;
}

void blas_level3(const blas_call *x)
{
  char name[16], srname[8];
  size_t len, i;
  int info;
  /* inside a factorization left to the next LAPACK: straight through, as
   * its GEMMs go (blas_gemm_passthrough) */
  if (!x->ilp64 && lapack_in_cpu_factor()) {
    blas_level3_forward(x);
    return;
  }
  dlg_call_enter();
  info = level3_inside(x);
  dlg_call_leave();
  if (!info) return;
  /* the reference's SRNAME: the routine in capitals, padded to six */
  len = strlen(blas_level3_name(x, name, sizeof name));
  for (i = 0; i < 6; i++) srname[i] = i < len ? (char)toupper((unsigned char)name[i]) : ' ';
  srname[6] = 0;
  blas_xerbla(srname, info, x->ilp64);
}
