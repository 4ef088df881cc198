/*
 * sgemm_args.h - the one kernel parameter of the SIMT SGEMM kernels, shared
 * by the CUDA source and the host code that launches them (plain C), so the
 * two can never disagree on its layout.
 */
#ifndef DLG_SGEMM_ARGS_H
#define DLG_SGEMM_ARGS_H

typedef struct dlg_sgemm_args {
  int m, n, k;
  float alpha, beta;
  const float *a;
  const float *b;
  float *c;
  long long lda, ldb, ldc;
  long long sa, sb, sc;      /* batch strides (elements); 0 broadcasts */
  int splits, kchunk;        /* split-K: blockIdx.z = batch * splits + split */
  int vec_a, vec_b, vec_c;   /* 16-byte accesses are legal for this operand */
} dlg_sgemm_args;

#define DLG_SGEMM_THREADS 256

#endif
