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

#define DLG_SCALAPACK_POTRF(X) \
  X(pspotrf, float, DLG_F32)   \
  X(pdpotrf, double, DLG_F64)
#define DLG_SCALAPACK_GETRF(X) \
  X(psgetrf, float, DLG_F32)   \
  X(pdgetrf, double, DLG_F64)
#define DLG_SCALAPACK_GEQRF(X) \
  X(psgeqrf, float, DLG_F32)   \
  X(pdgeqrf, double, DLG_F64)
#define DLG_SCALAPACK_GEMM(X) \
  X(psgemm, float, DLG_F32)   \
  X(pdgemm, double, DLG_F64)
/* every one, for the export list */
#define DLG_SCALAPACK_ROUTINES(X) \
  DLG_SCALAPACK_POTRF(X) DLG_SCALAPACK_GETRF(X) DLG_SCALAPACK_GEQRF(X) DLG_SCALAPACK_GEMM(X)

#endif
