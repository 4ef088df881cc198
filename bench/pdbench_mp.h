/*
 * pdbench_mp.h - pdbench's cuSOLVERMp engine (pdbench_mp.c).
 */
#ifndef PDBENCH_MP_H
#define PDBENCH_MP_H

/* PDPOTRF('L') of the n x n matrix whose local part is a (lld, cols local
 * columns), block nb, on the p x q grid of BLACS context ctxt (this rank at
 * (row, col)), by cuSOLVERMp on this rank's GPU: the local array there and
 * back.  0, or -1 (said on stderr) where the engine or the call failed;
 * *info as PDPOTRF's. */
int mp_pdpotrf(int ctxt, int p, int q, int row, int col, int n, int nb, double *a, int lld,
               int cols, int *info);

#endif
