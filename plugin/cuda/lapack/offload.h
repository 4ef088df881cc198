/*
 * offload.h - a factorization of a host array (or ORMQR's product) on the
 * GPU (offload.c).
 */
#ifndef DLG_CUDA_OFFLOAD_H
#define DLG_CUDA_OFFLOAD_H

#include "core/factor.h"

/* f on GPU 0: the matrix copied over once, factored there, copied back with
 * its pivots and INFO (ORMQR: A, TAU and C over, C back).  DLGEMM_OK with
 * f->a (or f->c), f->ipiv or f->tau, and f->info written;
 * otherwise a status (dlgemm_last_error() says why) and the caller's arrays
 * untouched, for the next LAPACK to answer. */
dlgemm_status dlg_cuda_factor(dlg_factor *f);

/* Whether f is worth the trip (dimensions against DLGEMM_LAPACK_MIN_N),
 * with why[] saying so. */
int dlg_cuda_factor_pays(const dlg_factor *f, char *why, size_t why_len);

#endif
