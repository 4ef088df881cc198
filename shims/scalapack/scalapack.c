/*
 * scalapack.c - ScaLAPACK's PxPOTRF in front of the program's own
 * (shims/scalapack/names.h): an unmodified MPI program with libdlgemm.so
 * preloaded on every rank reaches these, and each call either runs with
 * the ranks' local matrices resident on their GPUs (plugin/dist, where
 * DLGEMM_SCALAPACK lets it and the whole grid can) or goes to the next
 * ScaLAPACK with the caller's own arguments, hidden string lengths
 * included, exactly as if dlgemm were not there.
 */
#include <stddef.h>
#include <stdio.h>
#include "dlgemm.h"
#include "core/gemm.h"
#include "cpu/blas.h"
#include "dist/potrf.h"
#include "shims/scalapack/names.h"

typedef void (*potrf_fn)(const char *uplo, const int *n, void *a, const int *ia, const int *ja,
                         const int *desca, int *info, size_t uplo_len);

/* The next definition in the process: the program's ScaLAPACK. */
static potrf_fn next_potrf(const char *name)
{
  char from[256];
  potrf_fn f = (potrf_fn)dlg_cpu_next(name, NULL, name, from, sizeof from);
  if (!f) fprintf(stderr, "dlgemm: %s: no ScaLAPACK in the process to forward to\n", name);
  return f;
}

#define SCALAPACK_POTRF(name, T, DT)                                                            \
  DLGEMM_API void name##_(const char *uplo, const int *n, T *a, const int *ia, const int *ja,   \
                          const int *desca, int *info, size_t uplo_len)                        \
  {                                                                                            \
    static potrf_fn next;                                                                      \
    const dlg_dist_potrf c = {DT, *uplo, *n, *ia, *ja, a, desca, #name "_"};                   \
    if (dlg_dist_potrf_run(&c, info)) return;                                                  \
    if (!__atomic_load_n(&next, __ATOMIC_ACQUIRE))                                             \
      __atomic_store_n(&next, next_potrf(#name "_"), __ATOMIC_RELEASE);                        \
    if (next) next(uplo, n, a, ia, ja, desca, info, uplo_len);                                 \
  }

DLG_SCALAPACK_POTRF(SCALAPACK_POTRF)
