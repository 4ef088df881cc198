/*
 * level3_info.h - the reference BLAS's argument checks for the level-3
 * routines but real GEMM (level3_info.c).
 */
#ifndef DLG_LEVEL3_INFO_H
#define DLG_LEVEL3_INFO_H

#include "shims/common/blas_call.h"

/* The reference's INFO for x: 0 when its arguments are legal, else the
 * position of the first illegal one, in the reference's order. */
int blas_level3_info(const blas_call *x);

#endif
