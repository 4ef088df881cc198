/*
 * lapack_call.c - the common path of the LAPACK routines dlgemm answers.
 *
 * Unlike GEMM, nothing here imitates the reference's argument checks: a call
 * that is not plainly legal and non-empty is forwarded whole, so the next
 * LAPACK reports it (XERBLA('DGETRF', -INFO) and its INFO) exactly as the
 * reference would, because it is the reference.
 */
#include <math.h>
#include <stdio.h>
#include "core/calllog.h"
#include "core/config.h"
#include "core/errors.h"
#include "core/fork.h"
#include "cpu/lapack.h"
#include "route/route.h"
#include "shims/common/lapack_call.h"

/* Read on every sgemm_/dgemm_ call.  Not the initial-exec TLS model, which
 * would save a few ns: frameworks dlopen() the library, and static TLS
 * space for dlopen()ed libraries is not guaranteed. */
static _Thread_local int cpu_factor_depth;

int lapack_in_cpu_factor(void) { return cpu_factor_depth; }

static int lsame(char c, char ref) { return (c | 0x20) == (ref | 0x20); }

/* The size of the workspace ORMQR needs (NW). */
static int64_t ormqr_nw(const dlg_factor *f) { return f->right ? f->m : f->n; }

/* Legal and not empty (and not a workspace query): what the GPU may take. */
static int computable(const dlg_factor *f, const lapack_args *c)
{
  if (f->kind == DLG_POTRF && !lsame(*c->uplo, 'U') && !lsame(*c->uplo, 'L')) return 0;
  if (f->kind == DLG_GEQRF && *c->lwork < (f->n > 1 ? f->n : 1)) return 0;
  if (f->kind == DLG_ORMQR &&
      !((lsame(*c->side, 'L') || lsame(*c->side, 'R')) &&
        (lsame(*c->trans, 'N') || lsame(*c->trans, 'T')) && f->k > 0 &&
        f->k <= dlg_factor_a_rows(f) && f->ldc >= f->m && *c->lwork >= ormqr_nw(f)))
    return 0;
  return f->m > 0 && f->n > 0 && f->lda >= dlg_factor_a_rows(f);
}

static void forward(const dlg_factor *f, const lapack_args *c)
{
  const dlg_cpu_lapack *next = dlg_cpu_lapack_get();
  const int d = f->dtype == DLG_F64;
  if (f->kind == DLG_GETRF && next->getrf[d]) {
    next->getrf[d](c->m, c->n, f->a, c->lda, f->ipiv, c->info);
  } else if (f->kind == DLG_POTRF && next->potrf[d]) {
    next->potrf[d](c->uplo, c->n, f->a, c->lda, c->info, 1);
  } else if (f->kind == DLG_GEQRF && next->geqrf[d]) {
    next->geqrf[d](c->m, c->n, f->a, c->lda, f->tau, c->work, c->lwork, c->info);
  } else if (f->kind == DLG_ORMQR && next->ormqr[d]) {
    next->ormqr[d](c->side, c->trans, c->m, c->n, c->k, f->a, c->lda, f->tau, f->c, c->ldc,
                   c->work, c->lwork, c->info, 1, 1);
  } else {
    /* only a program that dlopen()ed us and has no LAPACK gets here */
    dlg_fail(DLGEMM_ERR_NO_BACKEND, "%s: no LAPACK in the process or as liblapack.so.3",
             f->origin);
    *c->info = -1000;
  }
}

/* ILAENV(ispec, NAME, opts, n1, n2, n3, -1) of the next LAPACK (its own
 * blocking), or fallback where there is none. */
static int ilaenv(int ispec, const char *name, const char *opts, size_t opts_len, const int *n1,
                  const int *n2, const int *n3, int fallback)
{
  const dlg_cpu_lapack *next = dlg_cpu_lapack_get();
  const int none = -1;
  return next->ilaenv ? next->ilaenv(&ispec, name, opts, n1, n2, n3, &none, 6, opts_len)
                      : fallback;
}

/* WORK(1) after a call the GPU answered: what the reference leaves there.
 * GEQRF: its IWS, N, or N * NB where its own blocking (NB and NX) would
 * have used blocked code.  ORMQR: its LWKOPT, NW * min(64, NB) plus the
 * 65 x 64 of its T (SORMQR rounds it up to a float that is not smaller,
 * as SROUNDUP_LWORK). */
static void set_work1(const dlg_factor *f, const lapack_args *c)
{
  const int k = *c->m < *c->n ? *c->m : *c->n, none = -1;
  const int d = f->dtype == DLG_F64;
  double w;
  if (f->kind == DLG_GEQRF) {
    const char *name = d ? "DGEQRF" : "SGEQRF";
    const int nb = ilaenv(1, name, " ", 1, c->m, c->n, &none, 1);
    w = *c->n;
    if (nb > 1 && nb < k && ilaenv(3, name, " ", 1, c->m, c->n, &none, 0) < k)
      w = (double)*c->n * nb;
  } else if (f->kind == DLG_ORMQR) {
    const char opts[2] = {*c->side, *c->trans};
    const int nb = ilaenv(1, d ? "DORMQR" : "SORMQR", opts, 2, c->m, c->n, c->k, 32);
    w = (double)ormqr_nw(f) * (nb < 64 ? nb : 64) + 65 * 64;
  } else {
    return;
  }
  if (d) {
    *(double *)c->work = w;
  } else {
    float x = (float)w;
    if (x < w) x = nextafterf(x, INFINITY);
    *(float *)c->work = x;
  }
}

void lapack_factor(dlg_factor *f, const lapack_args *c)
{
  char why[256] = "illegal, empty or a query: the next LAPACK checks and answers";
  const dlg_backend *be = NULL;
  const double t0 = dlg_now();
  int fell_back = 0;
  if (f->kind == DLG_POTRF) f->lower = lsame(*c->uplo, 'L');
  if (f->kind == DLG_ORMQR) f->right = lsame(*c->side, 'R'), f->trans = lsame(*c->trans, 'T');
  dlg_call_enter();
  if (computable(f, c) && (be = route_pick_factor(f, why, sizeof why)) && be->factor(f)) {
    char reason[192];
    dlg_copy_text(reason, sizeof reason, dlgemm_last_error());
    snprintf(why, sizeof why, "fallback after %s failed: %s", be->name, reason);
    be = NULL, fell_back = 1;
  }
  if (be) dlg_append_note(why, sizeof why);
  dlg_call_leave();
  if (be) {
    *c->info = f->info;
    set_work1(f, c);
  } else {
    /* a GPU failure's products keep their own routing, and the call log
     * accounts for every product */
    const int direct = !fell_back && !dlg_config_get()->verbose;
    cpu_factor_depth += direct;
    forward(f, c);
    cpu_factor_depth -= direct;
    f->info = *c->info;
  }
  dlg_log_factor(f, be ? be->name : "cpu-lapack", why, dlg_now() - t0);
}
