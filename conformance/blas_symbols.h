/*
 * blas_symbols.h - the BLAS entry points as a Fortran or C program calls
 * them (the hidden length arguments of the two CHARACTER arguments
 * included), for the test and benchmark programs that call whichever
 * sgemm_ / dgemm_ / cblas_sgemm the loader resolves: netlib's, dlgemm's
 * preloaded one, or NVBLAS's.
 */
#ifndef DLG_BLAS_SYMBOLS_H
#define DLG_BLAS_SYMBOLS_H

#include <stddef.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *, size_t, size_t);
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                 float, float *, int);

#endif
