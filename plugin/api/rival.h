/*
 * rival.h - a product that a program sent to another GPU library (cuBLAS,
 * through shims/cublas), taken by dlgemm only where dlgemm is measured to
 * finish it sooner.
 */
#ifndef DLG_API_RIVAL_H
#define DLG_API_RIVAL_H

#include <stdint.h>
#include "dlgemm.h"

typedef struct dlg_rival_call dlg_rival_call;

struct dlg_rival_call {
  const char *routine;          /* the symbol the program called, for DLGEMM_VERBOSE */
  DLTensor a, b, c;             /* op(A), op(B) and C as dlgemm_matmul takes them */
  int64_t shape[3][3], strides[3][3]; /* what a, b, c point to */
  double alpha, beta;           /* beta 0: C is not read */
  dlgemm_precision precision;
  void *stream;                 /* the caller's CUstream */
  /* The rival's own call, as the program made it, but with its output at
   * `out` (C's layout; holding C's values where beta is not 0): 0 when it
   * succeeded.  args: whatever the shim needs to make it. */
  int (*theirs)(const dlg_rival_call *call, void *out);
  const void *args;
  /* Out: 1 where dlg_rival_take answered 0 because the call's class is
   * the rival's for good (measured so, or refused by dlgemm), not for a
   * moment (a capture, a measurement on another thread, no device yet). */
  int settled;
};

/* Describe operand i (0 A, 1 B, 2 C) of call: a batch of `batch` matrices
 * `batch_stride` elements apart (a batch of one: a 2-D tensor), each rows x
 * cols with element (r, c) at r * row_stride + c * col_stride; code and bits
 * its DLPack type. */
void dlg_rival_operand(dlg_rival_call *call, int i, const void *data, uint8_t code, uint8_t bits,
                       int64_t batch, int64_t batch_stride, int64_t rows, int64_t cols,
                       int64_t row_stride, int64_t col_stride);

/* Whether DLGEMM_CUBLAS lets dlgemm take anything: when not, a shim
 * forwards without describing the call. */
int dlg_rival_enabled(void);

/* 1 when dlgemm computed the call (on call->stream); 0 when the caller must
 * make it through the rival, untouched: DLGEMM_CUBLAS off, no usable
 * device, a class not yet measured while a CUDA graph is being captured, a
 * class of calls where the rival measured faster (or is being measured on
 * another thread), or a refusal or failure of dlgemm's (which writes
 * nothing). */
int dlg_rival_take(dlg_rival_call *call);

#endif
