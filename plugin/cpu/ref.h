/*
 * ref.h - the reference BLAS xGEMM loops (ref.c).
 */
#ifndef DLG_CPU_REF_H
#define DLG_CPU_REF_H

#include <stddef.h>
#include <stdint.h>

/* The reference BLAS loops, in the reference's operation order, so that
 * their results are bit-identical to netlib's: the last resort when the
 * process has no BLAS at all.  Arguments are assumed already checked. */
void dlg_ref_sgemm(const char *transa, const char *transb, const int *m, const int *n,
                   const int *k, const float *alpha, const float *a, const int *lda,
                   const float *b, const int *ldb, const float *beta, float *c, const int *ldc,
                   size_t transa_len, size_t transb_len);
void dlg_ref_dgemm(const char *transa, const char *transb, const int *m, const int *n,
                   const int *k, const double *alpha, const double *a, const int *lda,
                   const double *b, const int *ldb, const double *beta, double *c,
                   const int *ldc, size_t transa_len, size_t transb_len);
/* The same with ILP64 INTEGERs (int64_t), for the 64_ entry points. */
void dlg_ref_sgemm64(const char *transa, const char *transb, const int64_t *m, const int64_t *n,
                     const int64_t *k, const float *alpha, const float *a, const int64_t *lda,
                     const float *b, const int64_t *ldb, const float *beta, float *c,
                     const int64_t *ldc, size_t transa_len, size_t transb_len);
void dlg_ref_dgemm64(const char *transa, const char *transb, const int64_t *m, const int64_t *n,
                     const int64_t *k, const double *alpha, const double *a, const int64_t *lda,
                     const double *b, const int64_t *ldb, const double *beta, double *c,
                     const int64_t *ldc, size_t transa_len, size_t transb_len);

#endif
