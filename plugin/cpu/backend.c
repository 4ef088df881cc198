/*
 * backend.c - a dlg_gemm on host memory, computed by the next BLAS.
 *
 * Every validated matrix is column-major or row-major (api/validate.c), and a
 * row-major matrix is the transpose of a column-major one with the same
 * leading dimension, so each batch entry is one xGEMM call: with C
 * column-major, C = op(A) op(B); with C row-major, C^T = op(B)^T op(A)^T.
 */
#include <limits.h>
#include "core/errors.h"
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

static dlgemm_status cpu_run(const dlg_gemm *g)
{
  const dlg_cpu_blas *blas = dlg_cpu_blas_get();
  const int c_col = dlg_is_colmajor(&g->c);
  /* In the column-major problem BLAS is given, X = op(first) op(second). */
  const dlg_matrix *first = c_col ? &g->a : &g->b, *second = c_col ? &g->b : &g->a;
  /* A column-major operand of the C-column-major problem is passed as 'N';
   * in the transposed problem every role flips. */
  const char t1 = (dlg_is_colmajor(first) == c_col) ? 'N' : 'T';
  const char t2 = (dlg_is_colmajor(second) == c_col) ? 'N' : 'T';
  const int m = (int)(c_col ? g->m : g->n), n = (int)(c_col ? g->n : g->m), k = (int)g->k;
  const int ld1 = (int)dlg_ld(first), ld2 = (int)dlg_ld(second), ldc = (int)dlg_ld(&g->c);
  const size_t es = dlg_elem_size(g->dtype);
  int64_t p;

  if (dlg_is_half(g->dtype_in)) return dlg_cpu_half_gemm(g, cpu_run);
  if (!fits_int(g->m) || !fits_int(g->n) || !fits_int(g->k) || !fits_int(dlg_ld(first)) ||
      !fits_int(dlg_ld(second)) || !fits_int(dlg_ld(&g->c)))
    return dlg_fail(DLGEMM_ERR_TOO_LARGE, "a dimension or leading dimension exceeds the 32-bit "
                    "INTEGER of the CPU BLAS (m=%lld n=%lld k=%lld)", (long long)g->m,
                    (long long)g->n, (long long)g->k);
  for (p = 0; p < g->batch; p++) {
    const char *x = dlg_batch_at(first, p, es), *y = dlg_batch_at(second, p, es);
    char *z = dlg_batch_at(&g->c, p, es);
    if (g->dtype == DLG_F32) {
      const float alpha = (float)g->alpha, beta = (float)g->beta;
      blas->sgemm(&t1, &t2, &m, &n, &k, &alpha, (const float *)x, &ld1, (const float *)y, &ld2,
                  &beta, (float *)z, &ldc, 1, 1);
    } else {
      blas->dgemm(&t1, &t2, &m, &n, &k, &g->alpha, (const double *)x, &ld1, (const double *)y,
                  &ld2, &g->beta, (double *)z, &ldc, 1, 1);
    }
  }
  return DLGEMM_OK;
}

const dlg_backend dlg_backend_cpu = {
    "cpu-blas", DLGEMM_BACKEND_CPU, cpu_probe, cpu_supports, cpu_run, NULL, NULL, NULL, NULL, NULL,
};
