/*
 * lapack.h - the "next LAPACK": who answers the LAPACK calls dlgemm does
 * not take, with the caller's own arguments.
 */
#ifndef DLG_CPU_LAPACK_H
#define DLG_CPU_LAPACK_H

#include <stddef.h>

/* xGETRF, xPOTRF, xGEQRF and xORMQR with the Fortran 77 ABI (LP64, one hidden length per
 * CHARACTER argument); a is float * or double * as the routine's type. */
typedef void (*dlg_getrf_fn)(const int *m, const int *n, void *a, const int *lda, int *ipiv,
                             int *info);
typedef void (*dlg_potrf_fn)(const char *uplo, const int *n, void *a, const int *lda, int *info,
                             size_t uplo_len);

typedef void (*dlg_geqrf_fn)(const int *m, const int *n, void *a, const int *lda, void *tau,
                             void *work, const int *lwork, int *info);

typedef void (*dlg_ormqr_fn)(const char *side, const char *trans, const int *m, const int *n,
                             const int *k, const void *a, const int *lda, const void *tau, void *c,
                             const int *ldc, void *work, const int *lwork, int *info,
                             size_t side_len, size_t trans_len);

/* ILAENV(ISPEC, NAME, OPTS, N1, N2, N3, N4): the blocking the LAPACK would use. */
typedef int (*dlg_ilaenv_fn)(const int *ispec, const char *name, const char *opts, const int *n1,
                             const int *n2, const int *n3, const int *n4, size_t name_len,
                             size_t opts_len);

typedef struct dlg_cpu_lapack {
  dlg_getrf_fn getrf[2]; /* [0 s, 1 d] */
  dlg_potrf_fn potrf[2];
  dlg_geqrf_fn geqrf[2];
  dlg_ormqr_fn ormqr[2];
  dlg_ilaenv_fn ilaenv;
} dlg_cpu_lapack;

/* Resolved once: the next definition in the process (the LAPACK the program
 * was linked with), else liblapack.so.3 through dlopen.  An entry is NULL
 * when neither has it: a process that calls xGETRF has a LAPACK, so only a
 * program that dlopen()ed us and calls ours by name can see that. */
const dlg_cpu_lapack *dlg_cpu_lapack_get(void);

#endif
