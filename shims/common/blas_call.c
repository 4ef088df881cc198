/*
 * blas_call.c - the common path of sgemm_, dgemm_, cblas_sgemm, cblas_dgemm.
 *
 * Argument checks follow the reference SGEMM line by line (same order, same
 * INFO), because programs and test suites (netlib's xblat3s) check which
 * parameter was reported.  xerbla_ is looked up in the process at the moment
 * of the error rather than linked: the program's own XERBLA, if it has one,
 * must win, as it would over the reference BLAS.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "api/validate.h"
#include "core/calllog.h"
#include "core/config.h"
#include "core/errors.h"
#include "core/fork.h"
#include "cpu/backend.h"
#include "cpu/blas.h"
#include "route/route.h"
#include "shims/common/blas_call.h"
#include "shims/common/lapack_call.h"

typedef void (*xerbla_fn)(const char *srname, const int *info, size_t srname_len);
typedef void (*xerbla64_fn)(const char *srname, const int64_t *info, size_t srname_len);

static int lsame(char c, char ref) { return (c | 0x20) == (ref | 0x20); }
static int64_t max1(int64_t x) { return x > 1 ? x : 1; }

int blas_gemm_info(const blas_call *x)
{
  const int nota = lsame(x->transa, 'N'), notb = lsame(x->transb, 'N');
  const int64_t nrowa = nota ? x->m : x->k, nrowb = notb ? x->k : x->n;
  if (!nota && !lsame(x->transa, 'C') && !lsame(x->transa, 'T')) return 1;
  if (!notb && !lsame(x->transb, 'C') && !lsame(x->transb, 'T')) return 2;
  if (x->m < 0) return 3;
  if (x->n < 0) return 4;
  if (x->k < 0) return 5;
  if (x->lda < max1(nrowa)) return 8;
  if (x->ldb < max1(nrowb)) return 10;
  if (x->ldc < max1(x->m)) return 13;
  return 0;
}

void blas_xerbla(const char *srname, int info, int ilp64)
{
  size_t len = strlen(srname);
  if (ilp64) {
    xerbla64_fn xerbla64 = (xerbla64_fn)dlsym(RTLD_DEFAULT, "xerbla_64_");
    const int64_t info64 = info;
    if (xerbla64) {
      xerbla64(srname, &info64, len);
      return;
    }
  } else {
    xerbla_fn xerbla = (xerbla_fn)dlsym(RTLD_DEFAULT, "xerbla_");
    if (xerbla) {
      xerbla(srname, &info, len);
      return;
    }
  }
  /* No BLAS in the process to report through: print what the reference
   * XERBLA prints, but do not STOP a process that only dlopen()ed us. */
  while (len && srname[len - 1] == ' ') len--;
  fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n", (int)len,
          srname, info);
}

static double scalar(dlg_dtype t, const void *p)
{
  return t == DLG_F32 ? (double)*(const float *)p : *(const double *)p;
}

/* The call as a dlg_gemm: column-major C, op(A) and op(B) as views.  alpha
 * and beta are not read here: the reference reads them only once the
 * arguments passed its checks and M and N are not 0, and a caller may pass
 * NULL where it knows they will not be read. */
static void to_gemm(const blas_call *x, dlg_gemm *g)
{
  const int ta = !lsame(x->transa, 'N'), tb = !lsame(x->transb, 'N');
  memset(g, 0, sizeof *g);
  g->dtype = g->dtype_in = x->dtype;
  g->place = DLG_HOST;
  g->m = x->m;
  g->n = x->n;
  g->k = x->k;
  g->batch = 1;
  g->a = (dlg_matrix){(void *)x->a, x->m, x->k, ta ? x->lda : 1, ta ? 1 : x->lda, 0};
  g->b = (dlg_matrix){(void *)x->b, x->k, x->n, tb ? x->ldb : 1, tb ? 1 : x->ldb, 0};
  g->c = (dlg_matrix){x->c, x->m, x->n, 1, x->ldc, 0};
  g->precision = x->dtype == DLG_F32 ? dlg_config_get()->fp32_mode : DLGEMM_PRECISION_STRICT;
  g->origin = x->origin;
  /* Legal BLAS arguments always have a canonical form; this only normalises
   * the strides of dimensions of extent 1. */
  dlg_canonical_layout("A", g->a.rows, g->a.cols, &g->a.rs, &g->a.cs);
  dlg_canonical_layout("B", g->b.rows, g->b.cols, &g->b.rs, &g->b.cs);
  dlg_canonical_layout("C", g->c.rows, g->c.cols, &g->c.rs, &g->c.cs);
}

/* The next BLAS, with the caller's own arguments: the LP64 routine for an
 * LP64 call (whose values came from ints), the ILP64 one for a 64_ call. */
static void forward(const blas_call *x)
{
  const dlg_cpu_blas *blas = dlg_cpu_blas_get();
  if (x->ilp64) {
    if (x->dtype == DLG_F32)
      blas->sgemm64(&x->transa, &x->transb, &x->m, &x->n, &x->k, x->alpha, x->a, &x->lda, x->b,
                    &x->ldb, x->beta, x->c, &x->ldc, 1, 1);
    else
      blas->dgemm64(&x->transa, &x->transb, &x->m, &x->n, &x->k, x->alpha, x->a, &x->lda, x->b,
                    &x->ldb, x->beta, x->c, &x->ldc, 1, 1);
    return;
  }
  {
    const int m = (int)x->m, n = (int)x->n, k = (int)x->k;
    const int lda = (int)x->lda, ldb = (int)x->ldb, ldc = (int)x->ldc;
    if (x->dtype == DLG_F32)
      blas->sgemm(&x->transa, &x->transb, &m, &n, &k, x->alpha, x->a, &lda, x->b, &ldb, x->beta,
                  x->c, &ldc, 1, 1);
    else
      blas->dgemm(&x->transa, &x->transb, &m, &n, &k, x->alpha, x->a, &lda, x->b, &ldb, x->beta,
                  x->c, &ldc, 1, 1);
  }
}

/* Inside the door (core/fork.h): everything but the report of an illegal
 * argument, which goes to the program's xerbla_ after the call has left (a
 * program's XERBLA may STOP, longjmp or fork). */
static int gemm_inside(const blas_call *x)
{
  char layout[3] = {x->transa, x->transb, 0}, why[448];
  const dlg_backend *be;
  dlg_gemm g;
  double t0;
  int info = blas_gemm_info(x);

  to_gemm(x, &g);
  if (info) {
    snprintf(why, sizeof why, "illegal parameter %d reported to xerbla_", info);
    dlg_log_call(&g, layout, "rejected", why, 0);
    return info;
  }
  if (x->m && x->n) { /* the reference reads alpha and beta only here */
    g.alpha = scalar(x->dtype, x->alpha);
    g.beta = scalar(x->dtype, x->beta);
  }
  if (!x->m || !x->n || ((g.alpha == 0 || x->k == 0) && g.beta == 1)) { /* its quick return */
    dlg_log_call(&g, layout, "quick-return", "nothing to compute", 0);
    return 0;
  }
  t0 = dlg_now();
  be = route_pick_backend(&g, DLGEMM_BACKEND_AUTO, why, sizeof why);
  if (be && be != &dlg_backend_cpu) {
    if (be->run(&g) != DLGEMM_OK) {
      snprintf(why, sizeof why, "fallback after %s failed: %s", be->name, dlgemm_last_error());
      be = NULL;
    } else {
      dlg_append_note(why, sizeof why);
    }
  }
  if (!be || be == &dlg_backend_cpu) {
    forward(x);
    be = &dlg_backend_cpu;
  }
  dlg_log_call(&g, layout, be->name, why, dlg_now() - t0);
  return 0;
}

int blas_gemm_passthrough(dlg_dtype dtype, const char *ta, const char *tb, const int *m,
                          const int *n, const int *k, const void *alpha, const void *a,
                          const int *lda, const void *b, const int *ldb, const void *beta, void *c,
                          const int *ldc)
{
  const dlg_cpu_blas *blas;
  if (!lapack_in_cpu_factor()) return 0;
  blas = dlg_cpu_blas_get();
  if (dtype == DLG_F32)
    blas->sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
  else
    blas->dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
  return 1;
}

void blas_gemm(const blas_call *x)
{
  int info;
  dlg_call_enter();
  info = gemm_inside(x);
  dlg_call_leave();
  if (info) blas_xerbla(x->srname, info, x->ilp64);
}
