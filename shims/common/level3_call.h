/*
 * level3_call.h - the function that answers every level-3 call but real
 * GEMM (level3_call.c).
 */
#ifndef DLG_LEVEL3_CALL_H
#define DLG_LEVEL3_CALL_H

#include "shims/common/blas_call.h"

/* Every level-3 routine but real GEMM, complex GEMM included: the
 * reference's checks reported to xerbla_, its quick return, then the GPU
 * where the router sends it, else the next BLAS's routine of the same name,
 * called with the same values. */
void blas_level3(const blas_call *call);

#endif
