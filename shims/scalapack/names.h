/*
 * names.h - the ScaLAPACK symbols dlgemm answers, as data (as
 * shims/common/routines.h lists the BLAS ones): each entry makes the
 * Fortran entry point (shims/scalapack/scalapack.c) and its line in the
 * linker's export list (abi/dlgemm.map.in).
 *
 * X(name, T, dtype): the routine's symbol stem (pdpotrf for pdpotrf_), the
 * element type, its dlg_dtype; one list a signature.  Only the LP64 names: ScaLAPACK's Debian
 * build, and the reference's, have no others.
 */
#ifndef DLG_SHIMS_SCALAPACK_NAMES_H
#define DLG_SHIMS_SCALAPACK_NAMES_H

/* a routine in both types: its single and double precision names */
#define DLG_SCALAPACK_TYPED(X, routine) \
  X(ps##routine, float, DLG_F32)        \
  X(pd##routine, double, DLG_F64)
#define DLG_SCALAPACK_POTRF(X) DLG_SCALAPACK_TYPED(X, potrf)
#define DLG_SCALAPACK_GETRF(X) DLG_SCALAPACK_TYPED(X, getrf)
#define DLG_SCALAPACK_GEQRF(X) DLG_SCALAPACK_TYPED(X, geqrf)
#define DLG_SCALAPACK_GEMM(X) DLG_SCALAPACK_TYPED(X, gemm)
/* every one, for the export list */
#define DLG_SCALAPACK_ROUTINES(X) \
  DLG_SCALAPACK_POTRF(X) DLG_SCALAPACK_GETRF(X) DLG_SCALAPACK_GEQRF(X) DLG_SCALAPACK_GEMM(X)

#endif
