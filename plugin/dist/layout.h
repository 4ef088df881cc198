/*
 * layout.h - ScaLAPACK's block-cyclic layout, as the distributed routines
 * (run.c, potrf.c, mp.c) read a descriptor: the first block on process 0, the
 * only case they take.
 */
#ifndef DLG_DIST_LAYOUT_H
#define DLG_DIST_LAYOUT_H

#include <stdint.h>

/* ScaLAPACK's descriptor fields (DESCA(DTYPE_) ... DESCA(LLD_)), 0-based */
enum { DTYPE_, CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_ };

/* Elements of a dimension of n in blocks of nb over procs that proc holds
 * (ScaLAPACK's NUMROC). */
static inline int64_t dlg_numroc(int64_t n, int64_t nb, int proc, int procs)
{
  const int64_t blocks = n / nb, extra = n % nb, left = blocks % procs;
  int64_t mine = blocks / procs * nb;
  if (proc < left) mine += nb;
  else if (proc == left) mine += extra;
  return mine;
}

/* The global index of local index l of proc. */
static inline int64_t dlg_global_of(int64_t l, int proc, int procs, int64_t nb)
{
  return (l / nb * procs + proc) * nb + l % nb;
}

#endif
