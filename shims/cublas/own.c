/*
 * own.c - cuBLAS through handles of dlgemm's own (own.h).
 *
 * A handle a device, made on first use in the current context and kept
 * for the process (cuBLAS's handles are not free to make: a workspace and
 * a context query each); its stream is set on every call, under the
 * handle's lock, because two threads may use one device.  The product is
 * dlgemm's row-major description turned into cuBLAS's column-major one:
 * C = op(A) op(B) with C's rows contiguous is C^T = op(B)^T op(A)^T in
 * column-major, so B goes first; with C's columns contiguous, A does.
 */
#include <pthread.h>
#include "api/validate.h"
#include "core/config.h"
#include "cuda/device/driver.h"
#include "shims/cublas/next.h"
#include "shims/cublas/own.h"

typedef struct own_handle {
  pthread_mutex_t lock;
  cublasHandle_t handle;
  int tried;             /* creation attempted: a failure is not retried every call */
} own_handle;

static own_handle handles[DLG_MAX_DEVICES];
static pthread_once_t handles_once = PTHREAD_ONCE_INIT;

static void init_locks(void)
{
  int i;
  for (i = 0; i < DLG_MAX_DEVICES; i++) pthread_mutex_init(&handles[i].lock, NULL);
}

int dlg_cublas_own_available(void)
{
  return DLG_CUBLAS_NEXT(cublasCreate_v2) && DLG_CUBLAS_NEXT(cublasSetStream_v2) &&
         DLG_CUBLAS_NEXT(cublasGemmStridedBatchedEx);
}

/* A matrix of rows x cols whose (i, j) is at i * si + j * sj, as cuBLAS
 * reads a column-major operand: no transpose with leading dimension ld, or
 * transposed; 0 when neither form fits (the canonical layout that every
 * backend sees, api/validate.c, decides). */
static int column_major(int64_t rows, int64_t cols, int64_t si, int64_t sj,
                        cublasOperation_t *op, int64_t *ld)
{
  if (dlg_canonical_layout("operand", rows, cols, &si, &sj) != DLGEMM_OK) return 0;
  *op = si == 1 ? CUBLAS_OP_N : CUBLAS_OP_T;
  *ld = si == 1 ? sj : si;
  return 1;
}

static int cuda_type(DLDataType t, cudaDataType *out)
{
  if (t.code == kDLFloat && t.bits == 32) *out = CUDA_R_32F;
  else if (t.code == kDLFloat && t.bits == 64) *out = CUDA_R_64F;
  else if (t.code == kDLFloat && t.bits == 16) *out = CUDA_R_16F;
  else if (t.code == kDLBfloat && t.bits == 16) *out = CUDA_R_16BF;
  else return 0;
  return 1;
}

/* A DLTensor of the call as (batch stride, row stride, column stride). */
static void strides_of(const DLTensor *t, int64_t s[3])
{
  int n = t->ndim;
  s[0] = n == 3 ? t->strides[0] : 0;
  s[1] = t->strides[n - 2];
  s[2] = t->strides[n - 1];
}

static cublasHandle_t handle_for(CUdevice dev)
{
  own_handle *h = &handles[dev];
  pthread_mutex_lock(&h->lock);
  if (!h->tried) {
    h->tried = 1;
    if (DLG_CUBLAS_NEXT(cublasCreate_v2)(&h->handle) != CUBLAS_STATUS_SUCCESS) h->handle = NULL;
  }
  if (!h->handle) pthread_mutex_unlock(&h->lock);
  return h->handle;  /* locked while not NULL */
}

int dlg_cublas_own_gemm(const dlg_rival_call *c, void *out)
{
  const dlg_cuda_api *cu = dlg_cuda_api_get(NULL, 0);
  const int na = c->a.ndim, nb = c->b.ndim;
  const int64_t m = c->a.shape[na - 2], k = c->a.shape[na - 1], n = c->b.shape[nb - 1];
  const int64_t batch = c->c.ndim == 3 ? c->c.shape[0] : 1;
  int64_t sa[3], sb[3], sc[3], ld1, ld2, ldc, rows, cols;
  const int64_t *s1, *s2;
  const void *p1, *p2;
  cublasOperation_t op1, op2, opc = CUBLAS_OP_T;
  cudaDataType type_ab, type_c;
  cublasComputeType_t compute;
  cublasHandle_t h;
  CUdevice dev;
  float alpha32 = (float)c->alpha, beta32 = (float)c->beta;
  const void *alpha = &alpha32, *beta = &beta32;
  int fits;
  cublasStatus_t st;

  if (!cu || !dlg_cublas_own_available() || cu->CtxGetDevice(&dev) != CUDA_SUCCESS || dev < 0 ||
      dev >= DLG_MAX_DEVICES || !cuda_type(c->a.dtype, &type_ab) ||
      !cuda_type(c->c.dtype, &type_c) || c->a.dtype.code != c->b.dtype.code ||
      c->a.dtype.bits != c->b.dtype.bits)
    return -1;
  if (type_ab == CUDA_R_64F) {
    if (type_c != CUDA_R_64F) return -1;
    compute = CUBLAS_COMPUTE_64F;
    alpha = &c->alpha;
    beta = &c->beta;
  } else if (type_ab != CUDA_R_32F || c->precision == DLGEMM_PRECISION_STRICT) {
    compute = CUBLAS_COMPUTE_32F;
  } else if (c->precision == DLGEMM_PRECISION_TF32) {
    compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  } else {
    return -1; /* 3xTF32 is dlgemm's arithmetic alone */
  }
  strides_of(&c->a, sa);
  strides_of(&c->b, sb);
  strides_of(&c->c, sc);
  if (sc[2] == 1 || n == 1) { /* C's rows contiguous: C^T (n x m) = op(B)^T op(A)^T */
    p1 = c->b.data, s1 = sb, p2 = c->a.data, s2 = sa, rows = n, cols = m;
    fits = column_major(n, k, sb[2], sb[1], &op1, &ld1) &&
           column_major(k, m, sa[2], sa[1], &op2, &ld2) &&
           column_major(n, m, sc[2], sc[1], &opc, &ldc);
  } else { /* C's columns contiguous: C = op(A) op(B) as it stands */
    p1 = c->a.data, s1 = sa, p2 = c->b.data, s2 = sb, rows = m, cols = n;
    fits = column_major(m, k, sa[1], sa[2], &op1, &ld1) &&
           column_major(k, n, sb[1], sb[2], &op2, &ld2) &&
           column_major(m, n, sc[1], sc[2], &opc, &ldc);
  }
  if (!fits || opc != CUBLAS_OP_N || rows > INT32_MAX || cols > INT32_MAX || k > INT32_MAX ||
      batch > INT32_MAX || ld1 > INT32_MAX || ld2 > INT32_MAX || ldc > INT32_MAX)
    return -1;
  pthread_once(&handles_once, init_locks);
  if (!(h = handle_for(dev))) return -1;
  st = DLG_CUBLAS_NEXT(cublasSetStream_v2)(h, (cudaStream_t)c->stream);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = DLG_CUBLAS_NEXT(cublasGemmStridedBatchedEx)(
        h, op1, op2, (int)rows, (int)cols, (int)k, alpha, p1, type_ab, (int)ld1, s1[0], p2,
        type_ab, (int)ld2, s2[0], beta, out, type_c, (int)ldc, sc[0], (int)batch, compute,
        CUBLAS_GEMM_DEFAULT);
  pthread_mutex_unlock(&handles[dev].lock);
  return st == CUBLAS_STATUS_SUCCESS ? 0 : -1;
}
