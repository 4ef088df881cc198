/*
 * routines.h - the BLAS symbols dlgemm answers, as data.
 *
 * One X-macro list, as libblastrampoline keeps its routine names: each entry
 * makes the Fortran symbol (shims/fortran), the CBLAS symbol (shims/cblas)
 * and the linker's export list (abi/dlgemm.map.in), so a routine or an
 * integer interface is added in one place.
 *
 * X(p, P, T, dtype, INT, SUFFIX, ilp64):
 *   p, P    the routine's type prefix, lower and upper case (s/S, d/D)
 *   T       its scalar type
 *   dtype   its dlg_dtype
 *   INT     Fortran INTEGER and the CBLAS dimensions: int (LP64, the
 *           reference's ABI) or int64_t (ILP64)
 *   SUFFIX  appended to the names: nothing for LP64 (sgemm_, cblas_sgemm);
 *           64_ for ILP64 (sgemm_64_, cblas_sgemm64_), the suffix of
 *           OpenBLAS's ILP64 builds and of the names libblastrampoline
 *           looks up for them
 *   ilp64   0 or 1, as INT
 * Nothing here needs another header: the map's preprocessing reads it too.
 */
#ifndef DLG_SHIMS_ROUTINES_H
#define DLG_SHIMS_ROUTINES_H

#define DLG_GEMM_ROUTINES(X)                          \
  X(s, S, float, DLG_F32, int, , 0)                   \
  X(d, D, double, DLG_F64, int, , 0)                  \
  X(s, S, float, DLG_F32, int64_t, 64_, 1)            \
  X(d, D, double, DLG_F64, int64_t, 64_, 1)

/* The LAPACK routines dlgemm answers on the GPU (shims/fortran/factor.c):
 * xGETRF, xPOTRF, xGEQRF and xORMQR, LP64.  X(p, P, T, dtype) as above.
 * The drivers and solvers above them (xGESV, xPOSV, xGELS, xGETRS...) stay
 * in the program's LAPACK and reach these through its own calls. */
#define DLG_FACTOR_ROUTINES(X) \
  X(s, S, float, DLG_F32)      \
  X(d, D, double, DLG_F64)

#endif
