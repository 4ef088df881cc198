/*
 * cublaslt.c - cublasLtMatmul in front of the program's cuBLASLt.
 *
 * The product's shape, types and transposes live in opaque descriptors:
 * they are read back through the next cuBLASLt's getters.  dlgemm takes
 * only the plain product D = alpha op(A) op(B) + beta C: the default
 * epilogue (a bias, an activation or an auxiliary output stays with
 * cuBLASLt, which fuses it), host scalars, column-major layouts, no scale
 * pointers, and C the same matrix as D wherever C is read.
 */
#include <string.h>
#include "api/rival.h"
#include "shims/cublas/describe.h"
#include "shims/cublas/next.h"

typedef struct lt_args {
  cublasLtHandle_t handle;
  cublasLtMatmulDesc_t desc;
  const void *alpha, *a, *b, *beta, *c;
  cublasLtMatrixLayout_t la, lb, lc, ld;
  void *d;
  const cublasLtMatmulAlgo_t *algo;
  void *workspace;
  size_t workspace_size;
  cudaStream_t stream;
} lt_args;

typedef struct lt_layout {
  uint32_t type;
  int32_t order, batch;
  uint64_t rows, cols;
  int64_t ld, stride;
} lt_layout;

static int theirs(const dlg_rival_call *call, void *out)
{
  const lt_args *x = call->args;
  /* C is D wherever C is read (take()); where it is not, it stays as given */
  return DLG_CUBLAS_NEXT(cublasLtMatmul)(x->handle, x->desc, x->alpha, x->a, x->la, x->b, x->lb,
                                         x->beta, x->c == x->d ? out : x->c, x->lc, out, x->ld,
                                         x->algo, x->workspace, x->workspace_size, x->stream) !=
         CUBLAS_STATUS_SUCCESS;
}

/* One descriptor attribute of exactly `size` bytes; 0 if it cannot be read. */
static int desc_attr(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr, void *buf,
                     size_t size)
{
  __typeof__(&cublasLtMatmulDescGetAttribute) get = DLG_CUBLAS_NEXT(cublasLtMatmulDescGetAttribute);
  size_t written = 0;
  memset(buf, 0, size);
  return get && get(d, attr, buf, size, &written) == CUBLAS_STATUS_SUCCESS && written == size;
}

static int layout_of(cublasLtMatrixLayout_t l, lt_layout *out)
{
  __typeof__(&cublasLtMatrixLayoutGetAttribute) get =
      DLG_CUBLAS_NEXT(cublasLtMatrixLayoutGetAttribute);
  size_t w;
  memset(out, 0, sizeof *out);
  return get && get(l, CUBLASLT_MATRIX_LAYOUT_TYPE, &out->type, 4, &w) == 0 &&
         get(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &out->order, 4, &w) == 0 &&
         get(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &out->batch, 4, &w) == 0 &&
         get(l, CUBLASLT_MATRIX_LAYOUT_ROWS, &out->rows, 8, &w) == 0 &&
         get(l, CUBLASLT_MATRIX_LAYOUT_COLS, &out->cols, 8, &w) == 0 &&
         get(l, CUBLASLT_MATRIX_LAYOUT_LD, &out->ld, 8, &w) == 0 &&
         get(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &out->stride, 8, &w) == 0 &&
         out->order == CUBLASLT_ORDER_COL;
}

/* 1 when dlgemm computed the call. */
static int take(const lt_args *x)
{
  int32_t compute, scale, pointers, ta, tb, tc;
  uint32_t epilogue;
  void *scales[4] = {0};
  lt_layout a, b, c, d;
  cublas_product p;
  dlg_rival_call call;

  /* the epilogue first: torch's linear layers with a bias (most of its
   * cuBLASLt calls) stop here, after one getter */
  if (!desc_attr(x->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, 4) ||
      epilogue != CUBLASLT_EPILOGUE_DEFAULT ||
      !desc_attr(x->desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pointers, 4) ||
      pointers != CUBLASLT_POINTER_MODE_HOST ||
      !desc_attr(x->desc, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &compute, 4) ||
      !desc_attr(x->desc, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &scale, 4) ||
      !desc_attr(x->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, 4) ||
      !desc_attr(x->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, 4) ||
      !desc_attr(x->desc, CUBLASLT_MATMUL_DESC_TRANSC, &tc, 4) ||
      !desc_attr(x->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scales[0], sizeof(void *)) ||
      !desc_attr(x->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scales[1], sizeof(void *)) ||
      !desc_attr(x->desc, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &scales[2], sizeof(void *)) ||
      !desc_attr(x->desc, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &scales[3], sizeof(void *)))
    return 0;
  if (tc != CUBLAS_OP_N || scales[0] || scales[1] || scales[2] || scales[3] ||
      dlg_cublas_op((cublasOperation_t)ta) < 0 || dlg_cublas_op((cublasOperation_t)tb) < 0)
    return 0;
  if (!layout_of(x->la, &a) || !layout_of(x->lb, &b) || !layout_of(x->ld, &d) ||
      (x->lc != x->ld && !layout_of(x->lc, &c)))
    return 0;
  if (x->lc == x->ld) c = d;
  /* C is read only as D itself (a C elsewhere: beta must be 0, checked below) */
  if (a.type != b.type || c.type != d.type || a.batch != d.batch || b.batch != d.batch ||
      c.rows != d.rows || c.cols != d.cols || c.batch != d.batch ||
      (x->c == x->d && (c.ld != d.ld || (d.batch > 1 && c.stride != d.stride))))
    return 0;
  memset(&p, 0, sizeof p);
  p.ta = dlg_cublas_op((cublasOperation_t)ta);
  p.tb = dlg_cublas_op((cublasOperation_t)tb);
  p.m = (int64_t)d.rows;
  p.n = (int64_t)d.cols;
  p.k = (int64_t)(p.ta ? a.rows : a.cols);
  if ((int64_t)(p.ta ? a.cols : a.rows) != p.m || (int64_t)(p.tb ? b.rows : b.cols) != p.n ||
      (int64_t)(p.tb ? b.cols : b.rows) != p.k)
    return 0;
  p.batch = d.batch;
  p.a = x->a;
  p.b = x->b;
  p.c = x->d;
  p.lda = a.ld;
  p.ldb = b.ld;
  p.ldc = d.ld;
  p.stride_a = a.stride;
  p.stride_b = b.stride;
  p.stride_c = d.stride;
  p.type_ab = (cudaDataType)a.type;
  p.type_c = (cudaDataType)d.type;
  p.alpha = x->alpha;
  p.beta = x->beta;
  p.scale_type = (cudaDataType)scale;
  p.compute = (cublasComputeType_t)compute;
  p.stream = x->stream;
  memset(&call, 0, sizeof call);
  if (!dlg_cublas_describe(&p, &call) || (call.beta != 0 && x->c != x->d)) return 0;
  call.routine = "cublasLtMatmul";
  call.theirs = theirs;
  call.args = x;
  return dlg_rival_take(&call);
}

DLGEMM_API cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle,
                                         cublasLtMatmulDesc_t computeDesc, const void *alpha,
                                         const void *A, cublasLtMatrixLayout_t Adesc,
                                         const void *B, cublasLtMatrixLayout_t Bdesc,
                                         const void *beta, const void *C,
                                         cublasLtMatrixLayout_t Cdesc, void *D,
                                         cublasLtMatrixLayout_t Ddesc,
                                         const cublasLtMatmulAlgo_t *algo, void *workspace,
                                         size_t workspaceSizeInBytes, cudaStream_t stream)
{
  __typeof__(&cublasLtMatmul) next = DLG_CUBLAS_NEXT(cublasLtMatmul);
  lt_args x = {lightHandle, computeDesc, alpha, A, B, beta, C, Adesc, Bdesc, Cdesc, Ddesc, D,
               algo, workspace, workspaceSizeInBytes, stream};
  if (!next) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (dlg_rival_enabled() && take(&x)) return CUBLAS_STATUS_SUCCESS;
  return next(lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo,
              workspace, workspaceSizeInBytes, stream);
}
