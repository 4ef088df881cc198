/*
 * host_gemm.h - the host-array sgemm_ / dgemm_ calls of the engine's GPU
 * tests (test_offload, test_spread): leading dimensions a little past the
 * matrices, rows of C past m holding a sentinel that must survive, NaN in C
 * where beta = 0 (it must not show), and a copy of C as it was.
 */
#ifndef DLG_HOST_GEMM_H
#define DLG_HOST_GEMM_H

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cpu/blas.h"
#include "testutil.h"

typedef struct problem {
  int is64, m, n, k, lda, ldb, ldc;
  char ta, tb;
  double alpha, beta;
  void *a, *b, *c, *c0; /* c0: C as it was */
} problem;

static const float SENTINEL = -777.25f;

static inline void problem_set(void *x, int is64, size_t i, double v)
{
  if (is64) ((double *)x)[i] = v;
  else ((float *)x)[i] = (float)v;
}

/* Entries drawn by value; A and B from alloc (NULL: malloc), C from malloc. */
static inline void problem_make(problem *p, rng *r, int is64, int m, int n, int k, char ta,
                                char tb, double alpha, double beta, double (*value)(rng *),
                                void *(*alloc)(size_t))
{
  const size_t es = is64 ? 8 : 4;
  size_t na, nb, nc, i;
  if (!alloc) alloc = malloc;
  p->is64 = is64, p->m = m, p->n = n, p->k = k, p->ta = ta, p->tb = tb;
  p->alpha = alpha, p->beta = beta;
  p->lda = (ta == 'N' ? m : k) + rng_int(r, 3);
  p->ldb = (tb == 'N' ? k : n) + rng_int(r, 3);
  p->ldc = m + 1 + rng_int(r, 3); /* rows past m that must survive */
  na = (size_t)p->lda * (ta == 'N' ? k : m), nb = (size_t)p->ldb * (tb == 'N' ? n : k);
  nc = (size_t)p->ldc * n;
  p->a = alloc(na * es + 8), p->b = alloc(nb * es + 8);
  p->c = malloc(nc * es), p->c0 = malloc(nc * es);
  for (i = 0; i < na; i++) problem_set(p->a, is64, i, value(r));
  for (i = 0; i < nb; i++) problem_set(p->b, is64, i, value(r));
  for (i = 0; i < nc; i++)
    problem_set(p->c, is64, i,
                (int)(i % (size_t)p->ldc) >= m ? SENTINEL : beta == 0 ? NAN : value(r));
  memcpy(p->c0, p->c, nc * es);
}

/* p's call through sgemm / dgemm (dlgemm's, or a reference BLAS's), on c:
 * p->c, or another array of its shape. */
static inline void problem_call(const problem *p, void *c, dlg_sgemm_fn sgemm, dlg_dgemm_fn dgemm)
{
  if (p->is64) {
    dgemm(&p->ta, &p->tb, &p->m, &p->n, &p->k, &p->alpha, p->a, &p->lda, p->b, &p->ldb,
          &p->beta, c, &p->ldc, 1, 1);
  } else {
    const float alpha = (float)p->alpha, beta = (float)p->beta;
    sgemm(&p->ta, &p->tb, &p->m, &p->n, &p->k, &alpha, p->a, &p->lda, p->b, &p->ldb, &beta, c,
          &p->ldc, 1, 1);
  }
}

#endif
