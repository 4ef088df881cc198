/*
 * lapack_call.c - the common path of the LAPACK factorizations.
 *
 * Unlike GEMM, nothing here imitates the reference's argument checks: a call
 * that is not plainly legal and non-empty is forwarded whole, so the next
 * LAPACK reports it (XERBLA('DGETRF', -INFO) and its INFO) exactly as the
 * reference would, because it is the reference.
 */
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

/* Legal and not empty (and not a workspace query): what the GPU may take. */
static int computable(const dlg_factor *f, const lapack_args *c)
{
  const int64_t rows = f->kind == DLG_POTRF ? f->n : f->m;
  if (f->kind == DLG_POTRF && !lsame(*c->uplo, 'U') && !lsame(*c->uplo, 'L')) return 0;
  if (f->kind == DLG_GEQRF && *c->lwork < (f->n > 1 ? f->n : 1)) return 0;
  return f->m > 0 && f->n > 0 && f->lda >= rows;
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
  } else {
    /* only a program that dlopen()ed us and has no LAPACK gets here */
    dlg_fail(DLGEMM_ERR_NO_BACKEND, "%s: no LAPACK in the process or as liblapack.so.3",
             f->origin);
    *c->info = -1000;
  }
}

/* WORK(1) after a GEQRF the GPU answered: what the reference leaves there,
 * its IWS - N, or N * NB where its own blocking (ILAENV's NB and NX, asked
 * of the next LAPACK) would have used blocked code. */
static void set_work1(const dlg_factor *f, const lapack_args *c)
{
  const dlg_cpu_lapack *next = dlg_cpu_lapack_get();
  const int one = 1, three = 3, none = -1, k = *c->m < *c->n ? *c->m : *c->n;
  const char *name = f->dtype == DLG_F64 ? "DGEQRF" : "SGEQRF";
  int iws = *c->n, nb;
  if (f->kind != DLG_GEQRF) return;
  if (next->ilaenv && (nb = next->ilaenv(&one, name, " ", c->m, c->n, &none, &none, 6, 1)) > 1 &&
      nb < k && next->ilaenv(&three, name, " ", c->m, c->n, &none, &none, 6, 1) < k)
    iws = *c->n * nb;
  if (f->dtype == DLG_F64) *(double *)c->work = iws;
  else *(float *)c->work = (float)iws;
}

void lapack_factor(dlg_factor *f, const lapack_args *c)
{
  char why[256] = "illegal, empty or a query: the next LAPACK checks and answers";
  const dlg_backend *be = NULL;
  const double t0 = dlg_now();
  int fell_back = 0;
  if (f->kind == DLG_POTRF) f->lower = lsame(*c->uplo, 'L');
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
