/*
 * names.h - the ScaLAPACK symbols dlgemm answers, as data (as
 * shims/common/routines.h lists the BLAS ones): each entry makes the
 * Fortran entry point (shims/scalapack/scalapack.c) and its line in the
 * linker's export list (abi/dlgemm.map.in).
 *
 * X(name, T, dtype): the routine's symbol stem (pdpotrf for pdpotrf_), the
 * element type, its dlg_dtype.  Only the LP64 names: ScaLAPACK's Debian
 * build, and the reference's, have no others.
 */
#ifndef DLG_SHIMS_SCALAPACK_NAMES_H
#define DLG_SHIMS_SCALAPACK_NAMES_H

#define DLG_SCALAPACK_POTRF(X) \
  X(pspotrf, float, DLG_F32)   \
  X(pdpotrf, double, DLG_F64)

#endif
