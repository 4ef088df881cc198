/*
 * cgemm.h - a batch of complex products as one real product on dlgemm's
 * GEMM kernels (cgemm.c): the level-3 routines' complex GEMM (a batch of
 * one) and complex tensors' (complex_gemm.c).
 */
#ifndef DLG_CUDA_LEVEL3_CGEMM_H
#define DLG_CUDA_LEVEL3_CGEMM_H

#include <stdint.h>
#include "cuda/lapack/steps.h"

/* c_p = alpha op(a_p)' op(b_p)' + beta c_p for the batch's entries p:
 * entry p's views sa, sb, sc elements on from the last (0: the whole batch
 * shares that matrix; not c's), a' = conj(a) where ca (b' likewise), c any
 * view, beta real, a.cols > 0, at most 65535 entries.  A batch of small
 * products is a few launches, not a few per entry (complex attention
 * shapes ran at 0.17-0.19 of cuBLAS one at a time). */
void dlg_cuda_blas3_complex_batch(dlg_factor_run *r, const double alpha[2], dlg_dview a,
                                  int64_t sa, int ca, dlg_dview b, int64_t sb, int cb,
                                  double beta, dlg_dview c, int64_t sc, int64_t batch);

/* Whether a batch of products of C m x n, k deep, beats the embedding on
 * the complex DMMA kernels (the measured rule, cgemm.c); packs_a_only:
 * the embedding would pack A alone (B and C interleaved, B not
 * conjugated), where complex64 stops sooner. */
int dlg_cuda_cgemm_native_wins(dlg_dtype type, int64_t m, int64_t n, int64_t k, int packs_a_only,
                               int64_t batch);

/* Whether a batch of complex64 products of C m x n, k deep, goes to the
 * FFMA tiles (csimt.h) by the measured rule (cgemm.c); complex128 never. */
int dlg_cuda_cgemm_simt_wins(dlg_dtype type, int64_t m, int64_t n, int64_t k, int64_t batch);

/* The workspace an entry of this batch may need at most (bytes; the
 * arguments dlg_cuda_blas3_complex_batch's), for callers that cut a batch
 * into chunks: 0 where the way it goes packs nothing (the complex DMMA
 * and FFMA kernels, csmallk), so that such a batch is one launch. */
size_t dlg_cuda_cgemm_entry_bytes(dlg_factor_run *r, dlg_dview a, int64_t sa, int ca,
                                  dlg_dview b, int64_t sb, int cb, double beta, dlg_dview c,
                                  int64_t sc, int64_t batch);

#endif
