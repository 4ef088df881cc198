/*
 * pilaenv.c - ScaLAPACK's PILAENV: the logical block size by which PBLAS
 * cuts its level-3 products, and so the k of PDGEMM's local DGEMMs.
 * ScaLAPACK's answers 32 and asks its users to tune it.  A local DGEMM
 * with k = 32 carries its C over the link and back for 64 flops an
 * element, which the GPU never wins (bench/NOTES.md, "PDGEMM and PDGETRF
 * at n = 32768"), so those calls stay on the next BLAS.
 * DLGEMM_PBLAS_BLOCK=n makes a ScaLAPACK program with dlgemm preloaded cut
 * by n instead; unset, the next PILAENV (ScaLAPACK's own) answers.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include "dlgemm.h"
#include "core/config.h"
#include "cpu/blas.h"

/* PBLAS's C calls pass no length for PREC; Fortran callers pass one, and
 * the next PILAENV, a Fortran function, is given one. */
typedef int (*pilaenv_fn)(const int *ictxt, const char *prec, size_t prec_len);

static pilaenv_fn next_pilaenv;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void find_next(void)
{
  char from[256];
  const int block = dlg_config_get()->pblas_block;
  next_pilaenv = (pilaenv_fn)dlg_cpu_next("pilaenv_", NULL, "pilaenv_", from, sizeof from);
  if (!dlg_config_get()->verbose) return;
  if (block) fprintf(stderr, "dlgemm: pilaenv_ -> %d (DLGEMM_PBLAS_BLOCK)\n", block);
  else fprintf(stderr, "dlgemm: pilaenv_ -> %s\n", next_pilaenv ? from : "32 (none found)");
}

DLGEMM_API int pilaenv_(const int *ictxt, const char *prec)
{
  const int block = dlg_config_get()->pblas_block;
  pthread_once(&once, find_next);
  if (block) return block;
  /* ScaLAPACK's own is the only definition a caller of PILAENV can have
   * linked with, so this fallback is for form's sake */
  return next_pilaenv ? next_pilaenv(ictxt, prec, 1) : 32;
}
