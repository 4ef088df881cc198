/*
 * ref.c - the reference BLAS xGEMM loops, for a process with no BLAS.
 *
 * The loop nests and the places where alpha and beta are applied follow the
 * reference implementation (netlib BLAS 3.x) one for one, because "the same
 * answer as the next BLAS" is only meaningful bit for bit if the operations
 * happen in the same order.  Built with -ffp-contract=off so that the
 * compiler does not fuse a*b+c into an FMA the reference does not do.
 * Arguments were checked by the shim; the quick returns are repeated here
 * because the reference has them.
 */
#include <stddef.h>
#include <stdint.h>
#include "cpu/ref.h"

#define DLG_REF_GEMM(NAME, T, INT)                                                              \
  void NAME(const char *transa, const char *transb, const INT *pm, const INT *pn,               \
            const INT *pk, const T *palpha, const T *a, const INT *plda, const T *b,            \
            const INT *pldb, const T *pbeta, T *c, const INT *pldc, size_t la, size_t lb)       \
  {                                                                                             \
    const INT m = *pm, n = *pn, k = *pk, lda = *plda, ldb = *pldb, ldc = *pldc;                 \
    const T alpha = *palpha, beta = *pbeta;                                                     \
    const int nota = (*transa == 'N' || *transa == 'n');                                        \
    const int notb = (*transb == 'N' || *transb == 'n');                                        \
    INT i, j, l;                                                                                \
    (void)la; (void)lb;                                                                         \
    if (m == 0 || n == 0 || ((alpha == 0 || k == 0) && beta == 1)) return;                      \
    if (alpha == 0) {                                                                           \
      for (j = 0; j < n; j++)                                                                   \
        for (i = 0; i < m; i++)                                                                 \
          c[i + (size_t)j * ldc] = beta == 0 ? (T)0 : beta * c[i + (size_t)j * ldc];            \
      return;                                                                                   \
    }                                                                                           \
    for (j = 0; j < n; j++) {                                                                   \
      T *cj = c + (size_t)j * ldc;                                                              \
      if (nota) {                                                                               \
        if (beta == 0) for (i = 0; i < m; i++) cj[i] = 0;                                       \
        else if (beta != 1) for (i = 0; i < m; i++) cj[i] = beta * cj[i];                       \
        for (l = 0; l < k; l++) {                                                               \
          const T bl = notb ? b[l + (size_t)j * ldb] : b[j + (size_t)l * ldb];                  \
          const T temp = alpha * bl;                                                            \
          for (i = 0; i < m; i++) cj[i] = cj[i] + temp * a[i + (size_t)l * lda];                \
        }                                                                                       \
      } else {                                                                                  \
        for (i = 0; i < m; i++) {                                                               \
          T temp = 0;                                                                           \
          for (l = 0; l < k; l++) {                                                             \
            const T bl = notb ? b[l + (size_t)j * ldb] : b[j + (size_t)l * ldb];                \
            temp = temp + a[l + (size_t)i * lda] * bl;                                          \
          }                                                                                     \
          cj[i] = beta == 0 ? alpha * temp : alpha * temp + beta * cj[i];                       \
        }                                                                                       \
      }                                                                                         \
    }                                                                                           \
  }

DLG_REF_GEMM(dlg_ref_sgemm, float, int)
DLG_REF_GEMM(dlg_ref_dgemm, double, int)
DLG_REF_GEMM(dlg_ref_sgemm64, float, int64_t)
DLG_REF_GEMM(dlg_ref_dgemm64, double, int64_t)
