/*
 * level3_forward.c - a level-3 call handed to the next BLAS: its routine of
 * the same name (ssymm_ for ssymm_ and cblas_ssymm, ssymm_64_ for the 64_
 * entry points), called with the call's own values, so that its answer,
 * or its XERBLA, is what the program would have had without dlgemm.
 *
 * Every Fortran argument is a pointer, so one signature per shape of
 * argument list serves the four types; the pointers' targets are the
 * caller's own.  Symbols are resolved on first use and kept.
 */
#include <stdio.h>
#include "core/errors.h"
#include "cpu/blas.h"
#include "shims/common/blas_call.h"
#include "shims/common/level3_forward.h"

#define SIGNATURES(I)                                                                          \
  typedef void (*gemm_##I)(const char *, const char *, const I *, const I *, const I *,       \
                           const void *, const void *, const I *, const void *, const I *,    \
                           const void *, void *, const I *, size_t, size_t);                  \
  typedef void (*symm_##I)(const char *, const char *, const I *, const I *, const void *,    \
                           const void *, const I *, const void *, const I *, const void *,    \
                           void *, const I *, size_t, size_t);                                \
  typedef void (*syrk_##I)(const char *, const char *, const I *, const I *, const void *,    \
                           const void *, const I *, const void *, void *, const I *, size_t,  \
                           size_t);                                                           \
  typedef void (*trmm_##I)(const char *, const char *, const char *, const char *, const I *, \
                           const I *, const void *, const void *, const I *, void *, const I *, \
                           size_t, size_t, size_t, size_t);                                   \
  static void call_##I(const blas_call *x, void *fn)                                          \
  {                                                                                           \
    const I m = (I)x->m, n = (I)x->n, k = (I)x->k;                                            \
    const I lda = (I)x->lda, ldb = (I)x->ldb, ldc = (I)x->ldc;                                \
    switch (x->routine) {                                                                     \
    case BLAS_GEMM:                                                                           \
      ((gemm_##I)fn)(&x->transa, &x->transb, &m, &n, &k, x->alpha, x->a, &lda, x->b, &ldb,    \
                     x->beta, x->c, &ldc, 1, 1);                                              \
      break;                                                                                  \
    case BLAS_SYMM:                                                                           \
    case BLAS_HEMM:                                                                           \
      ((symm_##I)fn)(&x->side, &x->uplo, &m, &n, x->alpha, x->a, &lda, x->b, &ldb, x->beta,   \
                     x->c, &ldc, 1, 1);                                                       \
      break;                                                                                  \
    case BLAS_SYRK:                                                                           \
    case BLAS_HERK:                                                                           \
      ((syrk_##I)fn)(&x->uplo, &x->transa, &n, &k, x->alpha, x->a, &lda, x->beta, x->c, &ldc, \
                     1, 1);                                                                   \
      break;                                                                                  \
    case BLAS_SYR2K:                                                                          \
    case BLAS_HER2K: /* SYMM's shape: two characters, two matrices read, C */                \
      ((symm_##I)fn)(&x->uplo, &x->transa, &n, &k, x->alpha, x->a, &lda, x->b, &ldb, x->beta, \
                     x->c, &ldc, 1, 1);                                                       \
      break;                                                                                  \
    default:                                                                                  \
      ((trmm_##I)fn)(&x->side, &x->uplo, &x->transa, &x->diag, &m, &n, x->alpha, x->a, &lda,  \
                     (void *)x->b, &ldb, 1, 1, 1, 1);                                         \
    }                                                                                         \
  }

SIGNATURES(int)
SIGNATURES(int64_t)

enum { ROUTINES = BLAS_TRSM + 1, TYPES = 4 };

static const char *const names[ROUTINES] = {"gemm",  "symm",  "hemm", "syrk", "herk",
                                            "syr2k", "her2k", "trmm", "trsm"};

/* dlg_dtype F32, F64, C64, C128 -> 0..3 */
static int type_index(dlg_dtype t)
{
  return t == DLG_F32 ? 0 : t == DLG_F64 ? 1 : t == DLG_C64 ? 2 : 3;
}

static void *resolved[2][TYPES][ROUTINES];

const char *blas_level3_name(const blas_call *x, char *buf, size_t len)
{
  snprintf(buf, len, "%c%s", "sdcz"[type_index(x->dtype)], names[x->routine]);
  return buf;
}

int blas_level3_forward(const blas_call *x)
{
  void **slot = &resolved[x->ilp64 != 0][type_index(x->dtype)][x->routine];
  void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!fn) {
    char name[16], from[256];
    fn = dlg_cpu_blas_routine(blas_level3_name(x, name, sizeof name), x->ilp64, from,
                              sizeof from);
    if (!fn) {
      dlg_fail(DLGEMM_ERR_NO_BACKEND, "%s: no next BLAS has %s_%s", x->origin, name,
               x->ilp64 ? "64_" : "");
      fprintf(stderr, "dlgemm: %s\n", dlgemm_last_error());
      return -1;
    }
    __atomic_store_n(slot, fn, __ATOMIC_RELEASE); /* a race resolves to the same symbol */
  }
  if (x->ilp64)
    call_int64_t(x, fn);
  else
    call_int(x, fn);
  return 0;
}
