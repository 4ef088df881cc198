/*
 * blas.h - the "next BLAS": who answers what dlgemm does not take.
 */
#ifndef DLG_CPU_BLAS_H
#define DLG_CPU_BLAS_H

#include <stddef.h>
#include <stdint.h>
#include "core/gemm.h"

/* The Fortran 77 ABI of gfortran and most compilers since GCC 8: every
 * argument by reference, INTEGER is int (LP64), and one hidden size_t length
 * per CHARACTER argument, after all the others. */
typedef void (*dlg_sgemm_fn)(const char *transa, const char *transb, const int *m, const int *n,
                             const int *k, const float *alpha, const float *a, const int *lda,
                             const float *b, const int *ldb, const float *beta, float *c,
                             const int *ldc, size_t transa_len, size_t transb_len);
typedef void (*dlg_dgemm_fn)(const char *transa, const char *transb, const int *m, const int *n,
                             const int *k, const double *alpha, const double *a, const int *lda,
                             const double *b, const int *ldb, const double *beta, double *c,
                             const int *ldc, size_t transa_len, size_t transb_len);

/* The same with ILP64 INTEGERs (int64_t), as the 64_ entry points take them. */
typedef void (*dlg_sgemm64_fn)(const char *transa, const char *transb, const int64_t *m,
                               const int64_t *n, const int64_t *k, const float *alpha,
                               const float *a, const int64_t *lda, const float *b,
                               const int64_t *ldb, const float *beta, float *c,
                               const int64_t *ldc, size_t transa_len, size_t transb_len);
typedef void (*dlg_dgemm64_fn)(const char *transa, const char *transb, const int64_t *m,
                               const int64_t *n, const int64_t *k, const double *alpha,
                               const double *a, const int64_t *lda, const double *b,
                               const int64_t *ldb, const double *beta, double *c,
                               const int64_t *ldc, size_t transa_len, size_t transb_len);

/* CGEMM and ZGEMM: every argument a pointer (the scalars are complex
 * pairs of float or double), so one signature serves both. */
typedef void (*dlg_xgemm_fn)(const char *transa, const char *transb, const int *m, const int *n,
                             const int *k, const void *alpha, const void *a, const int *lda,
                             const void *b, const int *ldb, const void *beta, void *c,
                             const int *ldc, size_t transa_len, size_t transb_len);

typedef struct dlg_cpu_blas {
  dlg_sgemm_fn sgemm;
  dlg_dgemm_fn dgemm;
  dlg_sgemm64_fn sgemm64;
  dlg_dgemm64_fn dgemm64;
  char sgemm_from[256]; /* where each came from, for DLGEMM_VERBOSE and tests */
  char dgemm_from[256];
  char sgemm64_from[256];
  char dgemm64_from[256];
} dlg_cpu_blas;

/* Resolved once, thread-safely.  LP64 (sgemm_): DLGEMM_CPU_BLAS if set, else
 * the next definition in the process (RTLD_NEXT, then RTLD_DEFAULT), else
 * libblas.so.3 through dlopen, else the built-in reference loops.  ILP64
 * (sgemm_64_): DLGEMM_CPU_BLAS64 if set, else the next sgemm_64_ in the
 * process (OpenBLAS's ILP64 builds, libblastrampoline), else sgemm_ of
 * libblas64.so.3 (Debian's netlib ILP64 build keeps the reference names),
 * else the built-in loops.  Never libdlgemm.so itself. */
const dlg_cpu_blas *dlg_cpu_blas_get(void);
/* The next definition of name in the process that is not libdlgemm's own
 * (RTLD_NEXT, then RTLD_DEFAULT), else name_there in library through
 * dlopen; NULL if none.  from[] says where it came from.  Also how the
 * next LAPACK is found (cpu/lapack.c). */
void *dlg_cpu_next(const char *name, const char *library, const char *name_there, char *from,
                   size_t from_len);
/* Any other routine of the next BLAS ("ssymm", "ztrsm"), through the same
 * chain as sgemm (LP64) or sgemm_64_ (ILP64), minus the built-in loops;
 * NULL if nothing in reach has it.  Not cached: callers keep the answer. */
void *dlg_cpu_blas_routine(const char *routine, int ilp64, char *from, size_t from_len);
/* The next BLAS's LP64 CGEMM (C64) or ZGEMM (C128), through sgemm's chain;
 * NULL when nothing in reach has one (there are no built-in loops for
 * them).  Looked up on the first complex call and kept. */
dlg_xgemm_fn dlg_cpu_complex_gemm(dlg_dtype t);
/* Forget the resolution (tests change DLGEMM_CPU_BLAS between cases). */
void dlg_cpu_blas_reset(void);

#endif
