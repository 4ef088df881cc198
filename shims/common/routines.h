/*
 * routines.h - the BLAS symbols dlgemm answers, as data.
 *
 * X-macro lists, as libblastrampoline keeps its routine names: each entry
 * makes the Fortran symbols (shims/fortran), the CBLAS symbols
 * (shims/cblas) and the linker's export list (abi/dlgemm.map.in), so a type
 * or an integer interface is added in one place.
 *
 * X(p, P, R, dtype, INT, SUFFIX, ilp64):
 *   p, P    the routines' type prefix, lower and upper case (s/S, d/D, c/C, z/Z)
 *   R       the real type: the element type of s and d, the part type of c
 *           and z (whose elements the entry points take as void *)
 *   dtype   its dlg_dtype
 *   INT     Fortran INTEGER and the CBLAS dimensions: int (LP64, the
 *           reference's ABI) or int64_t (ILP64)
 *   SUFFIX  appended to the names: nothing for LP64 (sgemm_, cblas_sgemm);
 *           64_ for ILP64 (sgemm_64_, cblas_sgemm64_), the suffix of
 *           OpenBLAS's ILP64 builds and of the names libblastrampoline
 *           looks up for them
 *   ilp64   0 or 1, as INT
 * Real types answer GEMM, SYMM, SYRK, SYR2K, TRMM and TRSM; complex ones
 * those and HEMM, HERK, HER2K (DLG_REAL_ROUTINES, DLG_COMPLEX_ROUTINES
 * below).  Nothing here needs another header: the map's preprocessing reads
 * it too.
 */
#ifndef DLG_SHIMS_ROUTINES_H
#define DLG_SHIMS_ROUTINES_H

#define DLG_REAL_TYPES(X)                          \
  X(s, S, float, DLG_F32, int, , 0)                \
  X(d, D, double, DLG_F64, int, , 0)               \
  X(s, S, float, DLG_F32, int64_t, 64_, 1)         \
  X(d, D, double, DLG_F64, int64_t, 64_, 1)

#define DLG_COMPLEX_TYPES(X)                       \
  X(c, C, float, DLG_C64, int, , 0)                \
  X(z, Z, double, DLG_C128, int, , 0)              \
  X(c, C, float, DLG_C64, int64_t, 64_, 1)         \
  X(z, Z, double, DLG_C128, int64_t, 64_, 1)

/* The level-3 routines of each kind of type, by name, for the prefix p and
 * suffix SUFFIX of one entry above: Y(p, name, SUFFIX). */
#define DLG_REAL_ROUTINES(Y, p, SUFFIX)                                       \
  Y(p, gemm, SUFFIX) Y(p, symm, SUFFIX) Y(p, syrk, SUFFIX) Y(p, syr2k, SUFFIX) \
  Y(p, trmm, SUFFIX) Y(p, trsm, SUFFIX)
#define DLG_COMPLEX_ROUTINES(Y, p, SUFFIX) \
  DLG_REAL_ROUTINES(Y, p, SUFFIX) Y(p, hemm, SUFFIX) Y(p, herk, SUFFIX) Y(p, her2k, SUFFIX)

/* The LAPACK routines dlgemm answers on the GPU (shims/fortran/factor.c):
 * xGETRF, xPOTRF, xGEQRF and xORMQR, LP64.  X(p, P, T, dtype) as above.
 * The drivers and solvers above them (xGESV, xPOSV, xGELS, xGETRS...) stay
 * in the program's LAPACK and reach these through its own calls. */
#define DLG_FACTOR_ROUTINES(X) \
  X(s, S, float, DLG_F32)      \
  X(d, D, double, DLG_F64)

#endif
