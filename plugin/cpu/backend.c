/*
 * backend.c - a dlg_gemm on host memory, computed by the next BLAS.
 *
 * Every validated matrix is column-major or row-major (api/validate.c), and a
 * row-major matrix is the transpose of a column-major one with the same
 * leading dimension, so each batch entry is one xGEMM call
 * (dlg_level3_of_gemm): with C column-major, C = op(A) op(B); with C
 * row-major, C^T = op(B)^T op(A)^T - plain transposes, never conjugates,
 * for the complex types too.  Complex tensors go to the next BLAS's CGEMM
 * or ZGEMM with alpha and beta (re, 0); with none in reach the call fails,
 * as there are no built-in complex loops.
 */
#include <limits.h>
#include "core/errors.h"
#include "core/level3.h"
#include "cpu/backend.h"
#include "cpu/blas.h"
#include "cpu/half_gemm.h"

static int cpu_probe(char *why, size_t why_len)
{
  (void)why;
  (void)why_len;
  return 0; /* the built-in loops make this always available */
}

static int cpu_supports(const dlg_gemm *g) { return g->place == DLG_HOST; }

static int fits_int(int64_t x) { return x >= 0 && x <= INT_MAX; }

/* alpha or beta in the BLAS routine's type: (value, 0) for the complex ones */
typedef union scalar {
  float f[2];
  double d[2];
} scalar;

static scalar scalar_of(dlg_dtype t, double v)
{
  scalar s = {.d = {0, 0}};
  if (dlg_real_of(t) == DLG_F32)
    s.f[0] = (float)v;
  else
    s.d[0] = v;
  return s;
}

static dlgemm_status cpu_run(const dlg_gemm *g)
{
  const dlg_cpu_blas *blas = dlg_cpu_blas_get();
  const scalar alpha = scalar_of(g->dtype, g->alpha), beta = scalar_of(g->dtype, g->beta);
  dlg_xgemm_fn xgemm = NULL;
  dlg_level3 first;
  int64_t p;

  if (dlg_is_half(g->dtype_in)) return dlg_cpu_half_gemm(g, cpu_run);
  first = dlg_level3_of_gemm(g, 0);
  if (!fits_int(g->m) || !fits_int(g->n) || !fits_int(g->k) || !fits_int(first.lda) ||
      !fits_int(first.ldb) || !fits_int(first.ldc))
    return dlg_fail(DLGEMM_ERR_TOO_LARGE, "a dimension or leading dimension exceeds the 32-bit "
                    "INTEGER of the CPU BLAS (m=%lld n=%lld k=%lld)", (long long)g->m,
                    (long long)g->n, (long long)g->k);
  if (dlg_is_complex(g->dtype) && !(xgemm = dlg_cpu_complex_gemm(g->dtype)))
    return dlg_fail(DLGEMM_ERR_NO_BACKEND, "%s tensors on host memory need the next BLAS's "
                    "%cgemm_, and nothing in reach has one (the process, DLGEMM_CPU_BLAS, "
                    "libblas.so.3)", g->dtype == DLG_C64 ? "complex64" : "complex128",
                    g->dtype == DLG_C64 ? 'c' : 'z');
  for (p = 0; p < g->batch; p++) {
    const dlg_level3 x = dlg_level3_of_gemm(g, p);
    const int m = (int)x.m, n = (int)x.n, k = (int)x.k;
    const int lda = (int)x.lda, ldb = (int)x.ldb, ldc = (int)x.ldc;
    if (xgemm)
      xgemm(&x.transa, &x.transb, &m, &n, &k, &alpha, x.a, &lda, x.b, &ldb, &beta, x.c, &ldc, 1,
            1);
    else if (g->dtype == DLG_F32)
      blas->sgemm(&x.transa, &x.transb, &m, &n, &k, alpha.f, x.a, &lda, x.b, &ldb, beta.f, x.c,
                  &ldc, 1, 1);
    else
      blas->dgemm(&x.transa, &x.transb, &m, &n, &k, alpha.d, x.a, &lda, x.b, &ldb, beta.d, x.c,
                  &ldc, 1, 1);
  }
  return DLGEMM_OK;
}

const dlg_backend dlg_backend_cpu = {
    "cpu-blas", DLGEMM_BACKEND_CPU, cpu_probe, cpu_supports, cpu_run, NULL, NULL, NULL, NULL, NULL,
};
