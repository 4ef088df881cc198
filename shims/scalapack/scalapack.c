/*
 * scalapack.c - ScaLAPACK's PxPOTRF, PxGETRF, PxGEQRF and PBLAS's PxGEMM in
 * front of the program's own (shims/scalapack/names.h): an unmodified MPI program with
 * libdlgemm.so preloaded on every rank reaches these, and each call either
 * runs on the ranks' GPUs (plugin/dist, where DLGEMM_SCALAPACK lets it and
 * the whole grid can) or goes to the next ScaLAPACK with the caller's own
 * arguments, hidden string lengths included, exactly as if dlgemm were not
 * there.
 */
#include <stddef.h>
#include <stdio.h>
#include "dlgemm.h"
#include "core/gemm.h"
#include "cpu/blas.h"
#include "dist/run.h"
#include "shims/scalapack/names.h"

typedef void (*potrf_fn)(const char *uplo, const int *n, void *a, const int *ia, const int *ja,
                         const int *desca, int *info, size_t uplo_len);
typedef void (*getrf_fn)(const int *m, const int *n, void *a, const int *ia, const int *ja,
                         const int *desca, int *ipiv, int *info);
typedef void (*gemm_fn)(const char *ta, const char *tb, const int *m, const int *n,
                        const int *k, const void *alpha, const void *a, const int *ia,
                        const int *ja, const int *desca, const void *b, const int *ib,
                        const int *jb, const int *descb, const void *beta, void *c,
                        const int *ic, const int *jc, const int *descc, size_t, size_t);
typedef void (*geqrf_fn)(const int *m, const int *n, void *a, const int *ia, const int *ja,
                         const int *desca, void *tau, void *work, const int *lwork, int *info);

/* The next definition in the process (the program's ScaLAPACK), found on
 * the first call that needs it. */
static void *next_of(void **slot, const char *name)
{
  void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  char from[256];
  if (f) return f;
  if (!(f = dlg_cpu_next(name, NULL, name, from, sizeof from)))
    fprintf(stderr, "dlgemm: %s: no ScaLAPACK in the process to forward to\n", name);
  __atomic_store_n(slot, f, __ATOMIC_RELEASE);
  return f;
}

#define SCALAPACK_POTRF(name, T, DT)                                                            \
  DLGEMM_API void name##_(const char *uplo, const int *n, T *a, const int *ia, const int *ja,   \
                          const int *desca, int *info, size_t uplo_len)                        \
  {                                                                                            \
    static void *next;                                                                         \
    const dlg_dist_call c = {.kind = DLG_DIST_POTRF, .dtype = DT, .uplo = *uplo, .m = *n,      \
                             .n = *n, .ia = *ia, .ja = *ja, .a = a, .desc = desca,             \
                             .origin = #name "_"};                                             \
    potrf_fn f;                                                                                \
    if (dlg_dist_run(&c, info)) return;                                                        \
    if ((f = (potrf_fn)next_of(&next, #name "_"))) f(uplo, n, a, ia, ja, desca, info, uplo_len); \
  }

#define SCALAPACK_GETRF(name, T, DT)                                                            \
  DLGEMM_API void name##_(const int *m, const int *n, T *a, const int *ia, const int *ja,      \
                          const int *desca, int *ipiv, int *info)                              \
  {                                                                                            \
    static void *next;                                                                         \
    const dlg_dist_call c = {.kind = DLG_DIST_GETRF, .dtype = DT, .m = *m, .n = *n,            \
                             .ia = *ia, .ja = *ja, .a = a, .desc = desca, .ipiv = ipiv,         \
                             .origin = #name "_"};                                             \
    getrf_fn f;                                                                                \
    if (dlg_dist_run(&c, info)) return;                                                        \
    if ((f = (getrf_fn)next_of(&next, #name "_"))) f(m, n, a, ia, ja, desca, ipiv, info);      \
  }

#define SCALAPACK_GEQRF(name, T, DT)                                                            \
  DLGEMM_API void name##_(const int *m, const int *n, T *a, const int *ia, const int *ja,      \
                          const int *desca, T *tau, T *work, const int *lwork, int *info)      \
  {                                                                                            \
    static void *next;                                                                         \
    const dlg_dist_call c = {.kind = DLG_DIST_GEQRF, .dtype = DT, .m = *m, .n = *n,            \
                             .ia = *ia, .ja = *ja, .a = a, .desc = desca, .tau = tau,          \
                             .work = work, .lwork = *lwork, .origin = #name "_"};              \
    geqrf_fn f;                                                                                \
    if (dlg_dist_run(&c, info)) return;                                                        \
    if ((f = (geqrf_fn)next_of(&next, #name "_")))                                             \
      f(m, n, a, ia, ja, desca, tau, work, lwork, info);                                       \
  }

/* PBLAS's PxGEMM is C and takes no string lengths; a Fortran caller's
 * two are passed on as they came. */
#define SCALAPACK_GEMM(name, T, DT)                                                             \
  DLGEMM_API void name##_(const char *ta, const char *tb, const int *m, const int *n,          \
                          const int *k, const T *alpha, const T *a, const int *ia,             \
                          const int *ja, const int *desca, const T *b, const int *ib,          \
                          const int *jb, const int *descb, const T *beta, T *c, const int *ic, \
                          const int *jc, const int *descc, size_t ta_len, size_t tb_len)        \
  {                                                                                            \
    static void *next;                                                                         \
    const dlg_dist_call x = {.kind = DLG_DIST_GEMM, .dtype = DT, .m = *m, .n = *n, .k = *k,    \
                             .transa = *ta, .transb = *tb, .alpha = alpha, .beta = beta,       \
                             .a = (void *)a, .ia = *ia, .ja = *ja, .desc = desca, .b = b,      \
                             .ib = *ib, .jb = *jb, .desc_b = descb, .c = c, .ic = *ic,         \
                             .jc = *jc, .desc_c = descc, .origin = #name "_"};                 \
    gemm_fn f;                                                                                 \
    int info;                                                                                  \
    if (dlg_dist_run(&x, &info)) return;                                                       \
    if ((f = (gemm_fn)next_of(&next, #name "_")))                                              \
      f(ta, tb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic, jc, descc,    \
        ta_len, tb_len);                                                                       \
  }

DLG_SCALAPACK_POTRF(SCALAPACK_POTRF)
DLG_SCALAPACK_GETRF(SCALAPACK_GETRF)
DLG_SCALAPACK_GEQRF(SCALAPACK_GEQRF)
DLG_SCALAPACK_GEMM(SCALAPACK_GEMM)
