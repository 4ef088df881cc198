/*
 * layout.h - ScaLAPACK's block-cyclic layout, as the distributed routines
 * (run.c, potrf.c, mp.c) read a descriptor: the first block on process 0, the
 * only case they take.
 */
#ifndef DLG_DIST_LAYOUT_H
#define DLG_DIST_LAYOUT_H

#include <stdint.h>

/* ScaLAPACK's descriptor fields (DESCA(DTYPE_) ... DESCA(LLD_)), 0-based */
enum { DTYPE_, CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_, DLEN_ };

/* d as ScaLAPACK's 9-entry descriptor (DTYPE 1): d itself, or PBLAS's
 * 11-entry one (DTYPE 2: DTYPE, CTXT, M, N, IMB, INB, MB, NB, RSRC, CSRC,
 * LLD; its testers pass these) copied into `out` where its first block is
 * a whole one (IMB = MB, INB = NB), the same layout; else d, which the
 * routines decline by its DTYPE. */
static inline const int *dlg_desc_type1(const int *d, int out[DLEN_])
{
  if (!d || d[DTYPE_] != 2 || d[4] != d[6] || d[5] != d[7]) return d;
  out[DTYPE_] = 1, out[CTXT_] = d[1], out[M_] = d[2], out[N_] = d[3], out[MB_] = d[6];
  out[NB_] = d[7], out[RSRC_] = d[8], out[CSRC_] = d[9], out[LLD_] = d[10];
  return out;
}

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

/* Whether d's LLD holds this process row's part of the whole matrix (M_A
 * rows, not only those a call touches), as ScaLAPACK's CHK1MAT and PBLAS
 * check it. */
static inline int dlg_lld_ok(const int *d, int row, int procs)
{
  const int64_t all = dlg_numroc(d[M_], d[MB_], row, procs);
  return d[LLD_] >= (all > 1 ? all : 1);
}

/* The global index of local index l of proc. */
static inline int64_t dlg_global_of(int64_t l, int proc, int procs, int64_t nb)
{
  return (l / nb * procs + proc) * nb + l % nb;
}

/* The first local row, in local column l's block column, of a block on or
 * below the diagonal (local block row i is global block row i prow + row;
 * the block column is global block column global_of(l) / nb): the lower
 * triangle's blocks of that column are its local rows from here down. */
static inline int64_t dlg_lower_from(int64_t l, int row, int prow, int col, int pcol, int64_t nb)
{
  const int64_t jb = dlg_global_of(l, col, pcol, nb) / nb;
  return (jb > row ? (jb - row + prow - 1) / prow : 0) * nb;
}

#endif
