/*
 * cublas.c - cuBLAS's GEMM entry points (names.h), in front of the
 * program's own cuBLAS.
 *
 * Each takes the call as one `legacy` record, the widest form (strided
 * batched, typed): the plain GEMMs are batches of one.  With DLGEMM_CUBLAS
 * off, or where dlg_rival_take says no, the next cuBLAS gets the program's
 * own arguments, untouched.  The handle's stream, pointer mode and math
 * mode are asked of the next cuBLAS; a device-pointer alpha and beta are
 * left to it (reading them would need a copy and a sync).
 *
 * A call the rival keeps for good costs a lookup on the calling thread
 * (the memo below): issue 54 asks that what dlgemm does not take pay no
 * more than that.  Before, each such call asked the handle's three modes,
 * the driver's current device and the class table under its lock; torch's
 * training steps ran at 0.987-0.988 of plain torch with routing on where
 * every class was cuBLAS's (bench/NOTES.md, session 32).  bench_overhead
 * measures what a forwarded call costs now.
 */
#include <stdint.h>
#include <string.h>
#include "api/rival.h"
#include "core/cache_dir.h"
#include "shims/cublas/describe.h"
#include "shims/cublas/next.h"

typedef enum legacy_kind { SGEMM, DGEMM, GEMM_EX, SGEMM_SB, DGEMM_SB, GEMM_SB_EX } legacy_kind;

typedef struct legacy {
  legacy_kind kind;
  cublasHandle_t handle;
  cublasOperation_t ta, tb;
  int m, n, k, lda, ldb, ldc, batch;
  long long sa, sb, sc;
  const void *alpha, *a, *b, *beta;
  void *c;
  cudaDataType type_a, type_b, type_c;
  cublasComputeType_t compute;
  cublasGemmAlgo_t algo;
} legacy;

static const char *const names[] = {"cublasSgemm_v2", "cublasDgemm_v2", "cublasGemmEx",
                                    "cublasSgemmStridedBatched", "cublasDgemmStridedBatched",
                                    "cublasGemmStridedBatchedEx"};

/* The call the program made, by the next cuBLAS, with C at `out`. */
static cublasStatus_t call_next(const legacy *l, void *out)
{
  const dlg_cublas_next *nx = dlg_cublas_next_get();
  switch (l->kind) {
  case SGEMM:
    return nx->cublasSgemm_v2(l->handle, l->ta, l->tb, l->m, l->n, l->k, l->alpha, l->a, l->lda,
                              l->b, l->ldb, l->beta, out, l->ldc);
  case DGEMM:
    return nx->cublasDgemm_v2(l->handle, l->ta, l->tb, l->m, l->n, l->k, l->alpha, l->a, l->lda,
                              l->b, l->ldb, l->beta, out, l->ldc);
  case GEMM_EX:
    return nx->cublasGemmEx(l->handle, l->ta, l->tb, l->m, l->n, l->k, l->alpha, l->a, l->type_a,
                            l->lda, l->b, l->type_b, l->ldb, l->beta, out, l->type_c, l->ldc,
                            l->compute, l->algo);
  case SGEMM_SB:
    return nx->cublasSgemmStridedBatched(l->handle, l->ta, l->tb, l->m, l->n, l->k, l->alpha, l->a,
                                         l->lda, l->sa, l->b, l->ldb, l->sb, l->beta, out, l->ldc,
                                         l->sc, l->batch);
  case DGEMM_SB:
    return nx->cublasDgemmStridedBatched(l->handle, l->ta, l->tb, l->m, l->n, l->k, l->alpha, l->a,
                                         l->lda, l->sa, l->b, l->ldb, l->sb, l->beta, out, l->ldc,
                                         l->sc, l->batch);
  default:
    return nx->cublasGemmStridedBatchedEx(l->handle, l->ta, l->tb, l->m, l->n, l->k, l->alpha,
                                          l->a, l->type_a, l->lda, l->sa, l->b, l->type_b, l->ldb,
                                          l->sb, l->beta, out, l->type_c, l->ldc, l->sc, l->batch,
                                          l->compute, l->algo);
  }
}

static int theirs(const dlg_rival_call *call, void *out)
{
  return call_next(call->args, out) != CUBLAS_STATUS_SUCCESS;
}

/* What makes two calls one to the memo below: everything of the call but
 * its operands' addresses, of which only their 16-byte alignment (the
 * class's), and beta by its pointer (beta = 0 is another class; a memo
 * cannot read it before it knows the pointer mode).  Zeroed whole before
 * it is filled: compared and hashed as bytes. */
typedef struct memo_key {
  cublasHandle_t handle;
  const void *beta;
  long long sa, sb, sc;
  int kind, ta, tb, m, n, k, lda, ldb, ldc, batch, type_a, type_b, type_c, compute, aligned;
} memo_key;

enum { MEMO_SLOTS = 64 }; /* a model's layers make a few dozen classes */

/* Calls this thread forwarded for good: a slot per hash, the last call
 * there.  Remembering only the rival's settled classes keeps it right -
 * forwarding is always right - and a call remembered can at worst miss a
 * class that the handle's modes, changed since, would have made dlgemm's. */
static _Thread_local struct { int used; memo_key key; } memo[MEMO_SLOTS];

static void memo_key_of(const legacy *l, memo_key *k, unsigned *slot)
{
  memset(k, 0, sizeof *k);
  k->handle = l->handle, k->beta = l->beta;
  k->sa = l->sa, k->sb = l->sb, k->sc = l->sc;
  k->kind = l->kind, k->ta = l->ta, k->tb = l->tb, k->m = l->m, k->n = l->n, k->k = l->k;
  k->lda = l->lda, k->ldb = l->ldb, k->ldc = l->ldc, k->batch = l->batch;
  k->type_a = l->type_a, k->type_b = l->type_b, k->type_c = l->type_c, k->compute = l->compute;
  k->aligned = ((uintptr_t)l->a % 16 == 0) | ((uintptr_t)l->b % 16 == 0) << 1 |
               ((uintptr_t)l->c % 16 == 0) << 2;
  *slot = (unsigned)(dlg_hash(DLG_HASH_START, k, sizeof *k) % MEMO_SLOTS);
}

/* 1 when dlgemm computed the call; 0 when the next cuBLAS must, -1 when
 * it must for good (the class is the rival's, or dlgemm describes no such
 * call: either holds for the same arguments again). */
static int take(const legacy *l)
{
  __typeof__(&cublasGetStream_v2) get_stream = DLG_CUBLAS_NEXT(cublasGetStream_v2);
  __typeof__(&cublasGetMathMode) get_math = DLG_CUBLAS_NEXT(cublasGetMathMode);
  __typeof__(&cublasGetPointerMode_v2) get_pointers = DLG_CUBLAS_NEXT(cublasGetPointerMode_v2);
  cublasPointerMode_t pointers;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  cudaStream_t stream;
  cublas_product p;
  dlg_rival_call call;
  int ta = dlg_cublas_op(l->ta), tb = dlg_cublas_op(l->tb);

  if (ta < 0 || tb < 0 || l->type_a != l->type_b) return -1;
  if (!get_stream || !get_math || !get_pointers ||
      get_pointers(l->handle, &pointers) != CUBLAS_STATUS_SUCCESS ||
      pointers != CUBLAS_POINTER_MODE_HOST ||
      get_stream(l->handle, &stream) != CUBLAS_STATUS_SUCCESS ||
      get_math(l->handle, &math) != CUBLAS_STATUS_SUCCESS)
    return 0;
  memset(&p, 0, sizeof p);
  p.ta = ta;
  p.tb = tb;
  p.m = l->m;
  p.n = l->n;
  p.k = l->k;
  p.batch = l->batch;
  p.a = l->a;
  p.b = l->b;
  p.c = l->c;
  p.lda = l->lda;
  p.ldb = l->ldb;
  p.ldc = l->ldc;
  p.stride_a = l->sa;
  p.stride_b = l->sb;
  p.stride_c = l->sc;
  p.type_ab = l->type_a;
  p.type_c = l->type_c;
  p.alpha = l->alpha;
  p.beta = l->beta;
  p.scale_type = l->compute == CUBLAS_COMPUTE_64F || l->compute == CUBLAS_COMPUTE_64F_PEDANTIC
                     ? CUDA_R_64F : CUDA_R_32F;
  p.compute = l->compute;
  /* the low bits are the mode, the high ones flags (reduced-precision reductions) */
  p.tf32_allowed = (math & 0xf) == CUBLAS_TF32_TENSOR_OP_MATH;
  p.stream = stream;
  memset(&call, 0, sizeof call);
  if (!dlg_cublas_describe(&p, &call)) return -1;
  call.routine = names[l->kind];
  call.theirs = theirs;
  call.args = l;
  if (dlg_rival_take(&call)) return 1;
  return call.settled ? -1 : 0;
}

static cublasStatus_t answer(const legacy *l, void *next)
{
  memo_key key;
  unsigned slot;
  int r;
  if (!next) return CUBLAS_STATUS_NOT_INITIALIZED; /* no cuBLAS loaded: never a handle made */
  if (!dlg_rival_enabled()) return call_next(l, l->c);
  memo_key_of(l, &key, &slot);
  if (memo[slot].used && !memcmp(&memo[slot].key, &key, sizeof key)) return call_next(l, l->c);
  if ((r = take(l)) > 0) return CUBLAS_STATUS_SUCCESS;
  if (r < 0) memo[slot].key = key, memo[slot].used = 1;
  return call_next(l, l->c);
}

#define NEXT(name) ((void *)DLG_CUBLAS_NEXT(name))

/* The typed entry points of one real type P (S, D): its GEMM and its
 * strided batches, each a `legacy` record of T with the type's own compute. */
#define DLG_TYPED_ENTRIES(P, T, CUDA_T, COMPUTE)                                                   \
  DLGEMM_API cublasStatus_t cublas##P##gemm_v2(cublasHandle_t handle, cublasOperation_t transa,    \
                                               cublasOperation_t transb, int m, int n, int k,      \
                                               const T *alpha, const T *A, int lda, const T *B,    \
                                               int ldb, const T *beta, T *C, int ldc)              \
  {                                                                                                \
    legacy l = {P##GEMM, handle, transa, transb, m, n, k, lda, ldb, ldc, 1, 0, 0, 0, alpha, A, B,  \
                beta, C, CUDA_T, CUDA_T, CUDA_T, COMPUTE, CUBLAS_GEMM_DEFAULT};                    \
    return answer(&l, NEXT(cublas##P##gemm_v2));                                                   \
  }                                                                                                \
  DLGEMM_API cublasStatus_t cublas##P##gemmStridedBatched(                                         \
      cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,     \
      int k, const T *alpha, const T *A, int lda, long long int strideA, const T *B, int ldb,      \
      long long int strideB, const T *beta, T *C, int ldc, long long int strideC, int batchCount)  \
  {                                                                                                \
    legacy l = {P##GEMM_SB, handle, transa, transb, m, n, k, lda, ldb, ldc, batchCount, strideA,   \
                strideB, strideC, alpha, A, B, beta, C, CUDA_T, CUDA_T, CUDA_T, COMPUTE,           \
                CUBLAS_GEMM_DEFAULT};                                                              \
    return answer(&l, NEXT(cublas##P##gemmStridedBatched));                                        \
  }

DLG_TYPED_ENTRIES(S, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
DLG_TYPED_ENTRIES(D, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)

DLGEMM_API cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                                       cublasOperation_t transb, int m, int n, int k,
                                       const void *alpha, const void *A, cudaDataType Atype,
                                       int lda, const void *B, cudaDataType Btype, int ldb,
                                       const void *beta, void *C, cudaDataType Ctype, int ldc,
                                       cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
  legacy l = {GEMM_EX, handle, transa, transb, m, n, k, lda, ldb, ldc, 1, 0, 0, 0, alpha, A, B,
              beta, C, Atype, Btype, Ctype, computeType, algo};
  return answer(&l, NEXT(cublasGemmEx));
}

DLGEMM_API cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void *alpha, const void *A, cudaDataType Atype, int lda, long long int strideA,
    const void *B, cudaDataType Btype, int ldb, long long int strideB, const void *beta, void *C,
    cudaDataType Ctype, int ldc, long long int strideC, int batchCount,
    cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
  legacy l = {GEMM_SB_EX, handle, transa, transb, m, n, k, lda, ldb, ldc, batchCount, strideA,
              strideB, strideC, alpha, A, B, beta, C, Atype, Btype, Ctype, computeType, algo};
  return answer(&l, NEXT(cublasGemmStridedBatchedEx));
}
