/*
 * fake_blas.c - a "next BLAS" that records what it was called with.
 *
 * test_shim points DLGEMM_CPU_BLAS at it to check that what dlgemm does not
 * take reaches the next BLAS with exactly the caller's arguments.
 */
#include <stddef.h>
#include <string.h>

typedef struct fake_call {
  int calls;
  char transa, transb;
  int m, n, k, lda, ldb, ldc;
  double alpha, beta;
  const void *a, *b;
  void *c;
  size_t transa_len, transb_len;
} fake_call;

static fake_call last;

fake_call *fake_blas_last(void) { return &last; }

#define RECORD(T)                                                                   \
  last.calls++;                                                                     \
  last.transa = *ta, last.transb = *tb;                                             \
  last.m = *m, last.n = *n, last.k = *k, last.lda = *lda, last.ldb = *ldb;          \
  last.ldc = *ldc, last.alpha = *alpha, last.beta = *beta;                          \
  last.a = a, last.b = b, last.c = c, last.transa_len = la, last.transb_len = lb;

void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc, size_t la, size_t lb)
{
  RECORD(float)
}

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b,
            const int *ldb, const double *beta, double *c, const int *ldc, size_t la, size_t lb)
{
  RECORD(double)
}
