/*
 * scalapack.c - ScaLAPACK's PxPOTRF, PxGETRF and PxGEQRF in front of the
 * program's own (shims/scalapack/names.h): an unmodified MPI program with
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

DLG_SCALAPACK_POTRF(SCALAPACK_POTRF)
DLG_SCALAPACK_GETRF(SCALAPACK_GETRF)
DLG_SCALAPACK_GEQRF(SCALAPACK_GEQRF)
