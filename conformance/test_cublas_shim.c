/*
 * test_cublas_shim - dlgemm's cuBLAS names (shims/cublas) in front of a
 * framework's cuBLAS, without a GPU: the framework's references bind to
 * dlgemm's definitions, and every call that dlgemm does not take reaches
 * the next cuBLAS with exactly the caller's arguments and returns its status.
 *
 * libdlgemm.so is dlopen'ed with RTLD_GLOBAL (as python/autoload does; under
 * LD_PRELOAD, ctest's second run, it is there already), then the stand-in
 * framework, whose own dependencies are the fake cuBLAS and cuBLASLt
 * (fake_cublas.c): so the "next" library is in the framework's local scope,
 * which only shims/cublas/next.c's search of the loaded objects finds.
 * DLGEMM_CUBLAS=on runs describe the calls too; with no usable device each
 * is still forwarded.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "check_run.h"
#include "fake_cublas.h"

static void *dlgemm_lib, *framework, *fake, *fake_lt;

static void load(void)
{
  dlgemm_lib = dlopen(LIBDLGEMM_PATH, RTLD_NOW | RTLD_GLOBAL);
  ck_assert_msg(dlgemm_lib != NULL, "%s", dlerror());
}

static void load_framework(void)
{
  framework = dlopen(FAKE_FRAMEWORK_PATH, RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(framework != NULL, "%s", dlerror());
  fake = dlopen(FAKE_CUBLAS_PATH, RTLD_NOW | RTLD_NOLOAD);
  fake_lt = dlopen(FAKE_CUBLASLT_PATH, RTLD_NOW | RTLD_NOLOAD);
  ck_assert(fake && fake_lt);
}

/* What the framework's reference to `name` was bound to: dlgemm's. */
static void *bound(const char *name)
{
  void *(*fb)(const char *) = (void *(*)(const char *))dlsym(framework, "framework_bound");
  void *f = fb(name);
  Dl_info info;
  ck_assert_msg(f && dladdr(f, &info) && strstr(info.dli_fname, "libdlgemm"),
                "the framework's %s is bound into %s, not libdlgemm", name,
                f && dladdr(f, &info) ? info.dli_fname : "nothing");
  return f;
}

static fake_cublas_call *last(void *lib)
{
  fake_cublas_call *(*get)(void) = (fake_cublas_call * (*)(void)) dlsym(lib, "fake_cublas_last");
  return get();
}

static void forwarded(void *lib, const char *name, cublasStatus_t st)
{
  fake_cublas_call *c = last(lib);
  ck_assert_int_eq(st, FAKE_STATUS);
  ck_assert_int_eq(c->calls, 1);
  ck_assert_str_eq(c->name, name);
  ck_assert_msg(strstr(c->caller, "libdlgemm"), "%s was called from %s", name, c->caller);
}

START_TEST(no_cublas_loaded)
{
  /* dlgemm's own names, with no cuBLAS in the process: the status of a
   * handle never made, and nothing else happens */
  load();
  __typeof__(&cublasGemmEx) ours = (__typeof__(&cublasGemmEx))dlsym(dlgemm_lib, "cublasGemmEx");
  __typeof__(&cublasLtMatmul) ours_lt =
      (__typeof__(&cublasLtMatmul))dlsym(dlgemm_lib, "cublasLtMatmul");
  float one = 1;
  ck_assert(ours && ours_lt);
  ck_assert_int_eq(ours(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, (void *)64, CUDA_R_32F, 4,
                        (void *)64, CUDA_R_32F, 4, &one, (void *)64, CUDA_R_32F, 4,
                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   CUBLAS_STATUS_NOT_INITIALIZED);
  ck_assert_int_eq(ours_lt(NULL, NULL, &one, NULL, NULL, NULL, NULL, &one, NULL, NULL, NULL, NULL,
                           NULL, NULL, 0, NULL),
                   CUBLAS_STATUS_NOT_INITIALIZED);
  /* the framework loaded afterwards: the names find their library now */
  load_framework();
  ck_assert_int_eq(ours(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, (void *)64, CUDA_R_32F, 4,
                        (void *)64, CUDA_R_32F, 4, &one, (void *)64, CUDA_R_32F, 4,
                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   FAKE_STATUS);
}
END_TEST

START_TEST(legacy_entries_forward)
{
  float fa = 2.5f, fb = -0.5f;
  double da = 1.25, db = 0.0;
  cublasHandle_t h = (cublasHandle_t)0x1234;
  const void *A = (void *)0x10000, *B = (void *)0x20000;
  void *C = (void *)0x30000;
  fake_cublas_call *c;
  load();
  load_framework();

  forwarded(fake, "cublasSgemm_v2",
            ((__typeof__(&cublasSgemm_v2))bound("cublasSgemm_v2"))(
                h, CUBLAS_OP_T, CUBLAS_OP_N, 7, 5, 3, &fa, A, 11, B, 13, &fb, C, 17));
  c = last(fake);
  ck_assert(c->handle == h && c->ta == CUBLAS_OP_T && c->tb == CUBLAS_OP_N);
  ck_assert(c->m == 7 && c->n == 5 && c->k == 3 && c->lda == 11 && c->ldb == 13 && c->ldc == 17);
  ck_assert(c->alpha == 2.5 && c->beta == -0.5 && c->a == A && c->b == B && c->c == C);

  forwarded(fake, "cublasDgemm_v2",
            ((__typeof__(&cublasDgemm_v2))bound("cublasDgemm_v2"))(
                h, CUBLAS_OP_N, CUBLAS_OP_C, 9, 8, 7, &da, A, 9, B, 8, &db, C, 10));
  c = last(fake);
  ck_assert(c->tb == CUBLAS_OP_C && c->m == 9 && c->ldc == 10 && c->alpha == 1.25 && c->beta == 0);

  /* a product dlgemm would describe (bfloat16, FP32 compute) and one it
   * never takes (int8): both reach cuBLAS as given */
  for (int t = 0; t < 2; t++) {
    cudaDataType ty = t ? CUDA_R_8I : CUDA_R_16BF;
    cublasComputeType_t ct = t ? CUBLAS_COMPUTE_32I : CUBLAS_COMPUTE_32F;
    float ia = 1, ib = 0;
    forwarded(fake, "cublasGemmEx",
              ((__typeof__(&cublasGemmEx))bound("cublasGemmEx"))(
                  h, CUBLAS_OP_N, CUBLAS_OP_T, 64, 32, 16, t ? (void *)&ia : (void *)&fa, A, ty,
                  64, B, ty, 32, t ? (void *)&ib : (void *)&fb, C, t ? CUDA_R_32I : ty, 64, ct,
                  CUBLAS_GEMM_DEFAULT_TENSOR_OP));
    c = last(fake);
    ck_assert(c->types[0] == ty && c->types[1] == ty && c->compute == ct);
    ck_assert(c->algo == CUBLAS_GEMM_DEFAULT_TENSOR_OP && c->m == 64 && c->ldb == 32);
  }

  /* the int8 product twice with one beta, other operands the second time:
   * under DLGEMM_CUBLAS=on the second comes from the thread's memo of
   * calls forwarded for good (shims/cublas/cublas.c), still with the
   * caller's own arguments */
  for (int t = 0; t < 2; t++) {
    static const float ia = 1, ib = 0;
    const void *A2 = t ? (void *)0x50000 : A;
    void *C2 = t ? (void *)0x60010 : C;
    forwarded(fake, "cublasGemmEx",
              ((__typeof__(&cublasGemmEx))bound("cublasGemmEx"))(
                  h, CUBLAS_OP_N, CUBLAS_OP_T, 64, 32, 16, &ia, A2, CUDA_R_8I, 64, B, CUDA_R_8I,
                  32, &ib, C2, CUDA_R_32I, 64, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
    c = last(fake);
    ck_assert(c->a == A2 && c->b == B && c->c == C2 && c->m == 64 && c->n == 32 && c->k == 16);
    ck_assert(c->types[2] == CUDA_R_32I && c->compute == CUBLAS_COMPUTE_32I && c->lda == 64);
  }

  forwarded(fake, "cublasSgemmStridedBatched",
            ((__typeof__(&cublasSgemmStridedBatched))bound("cublasSgemmStridedBatched"))(
                h, CUBLAS_OP_N, CUBLAS_OP_N, 33, 17, 29, &fa, A, 33, 33 * 29, B, 29, 0, &fb, C,
                40, 40 * 17, 6));
  c = last(fake);
  ck_assert(c->batch == 6 && c->strides[0] == 33 * 29 && c->strides[1] == 0 &&
            c->strides[2] == 40 * 17 && c->ldc == 40);

  forwarded(fake, "cublasDgemmStridedBatched",
            ((__typeof__(&cublasDgemmStridedBatched))bound("cublasDgemmStridedBatched"))(
                h, CUBLAS_OP_T, CUBLAS_OP_T, 3, 4, 5, &da, A, 5, 15, B, 4, 20, &db, C, 3, 12, 2));
  c = last(fake);
  ck_assert(c->batch == 2 && c->strides[2] == 12 && c->ta == CUBLAS_OP_T);

  /* an illegal leading dimension: cuBLAS's own answer, not dlgemm's */
  forwarded(fake, "cublasGemmStridedBatchedEx",
            ((__typeof__(&cublasGemmStridedBatchedEx))bound("cublasGemmStridedBatchedEx"))(
                h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &fa, A, CUDA_R_16F, 8, 4096, B,
                CUDA_R_16F, 64, 4096, &fb, C, CUDA_R_16F, 64, 4096, 12, CUBLAS_COMPUTE_32F,
                CUBLAS_GEMM_DEFAULT));
  c = last(fake);
  ck_assert(c->lda == 8 && c->batch == 12 && c->types[2] == CUDA_R_16F);
}
END_TEST

/* The operands of the cublasLtMatmul calls below: never dereferenced. */
static const void *const LT_A = (void *)0x10000, *const LT_B = (void *)0x20000;
static void *const LT_D = (void *)0x30000;

/* D = A B through the framework's cublasLtMatmul, with these descriptors
 * and workspace, forwarded to the fake cuBLASLt with its status. */
static void lt_call(__typeof__(&cublasLtMatmul) lt, fake_lt_desc *desc, fake_lt_layout *la,
                    fake_lt_layout *lb, fake_lt_layout *ld, void *workspace, size_t size)
{
  float alpha = 1, beta = 0;
  forwarded(fake_lt, "cublasLtMatmul",
            lt((cublasLtHandle_t)0x77, (cublasLtMatmulDesc_t)desc, &alpha, LT_A,
               (cublasLtMatrixLayout_t)la, LT_B, (cublasLtMatrixLayout_t)lb, &beta, LT_D,
               (cublasLtMatrixLayout_t)ld, LT_D, (cublasLtMatrixLayout_t)ld, NULL, workspace,
               size, FAKE_STREAM));
}

START_TEST(lt_forwards)
{
  const char *mode = getenv("DLGEMM_CUBLAS");
  int described = mode && (!strcmp(mode, "on") || !strcmp(mode, "auto"));
  fake_lt_desc desc = {CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLASLT_POINTER_MODE_HOST, CUBLAS_OP_T,
                       CUBLAS_OP_N, CUBLAS_OP_N, CUBLASLT_EPILOGUE_BIAS, {0}};
  fake_lt_layout la = {CUDA_R_16BF, CUBLASLT_ORDER_COL, 1, 768, 1024, 768, 0};
  fake_lt_layout lb = {CUDA_R_16BF, CUBLASLT_ORDER_COL, 1, 768, 4096, 768, 0};
  fake_lt_layout ld = {CUDA_R_16BF, CUBLASLT_ORDER_COL, 1, 1024, 4096, 1024, 0};
  char workspace[16];
  fake_cublas_call *c;
  __typeof__(&cublasLtMatmul) lt;
  load();
  load_framework();
  lt = (__typeof__(&cublasLtMatmul))bound("cublasLtMatmul");

  /* a fused bias: the shim stops at the epilogue, one getter in */
  lt_call(lt, &desc, &la, &lb, &ld, workspace, sizeof workspace);
  ck_assert_int_eq(desc.reads[0], described ? 1 : 0);
  c = last(fake_lt);
  ck_assert(c->lt_handle == (cublasLtHandle_t)0x77 && c->desc == (cublasLtMatmulDesc_t)&desc);
  ck_assert(c->a == LT_A && c->b == LT_B && c->c == LT_D && c->d == LT_D &&
            c->stream == FAKE_STREAM);
  ck_assert(c->layouts[0] == (cublasLtMatrixLayout_t)&la && c->layouts[3] == (cublasLtMatrixLayout_t)&ld);
  ck_assert(c->workspace == workspace && c->workspace_size == sizeof workspace && c->lt_algo == NULL);

  /* the plain product: described in full where DLGEMM_CUBLAS lets dlgemm
   * look (no device here, so it still goes to cuBLASLt) */
  desc.epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  desc.reads[0] = 0;
  lt_call(lt, &desc, &la, &lb, &ld, workspace, sizeof workspace);
  if (described)
    ck_assert_int_ge(desc.reads[0], 11);
  else
    ck_assert_int_eq(desc.reads[0], 0);
}
END_TEST

/* dlgemm_route_cublas: switched off, the product is not even described
 * (as with DLGEMM_CUBLAS=off); back on, it is again wherever the mode lets
 * dlgemm look; each call returns the setting before it. */
START_TEST(route_switch)
{
  const char *mode = getenv("DLGEMM_CUBLAS");
  int described = mode && (!strcmp(mode, "on") || !strcmp(mode, "auto"));
  fake_lt_desc desc = {CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLASLT_POINTER_MODE_HOST, CUBLAS_OP_T,
                       CUBLAS_OP_N, CUBLAS_OP_N, CUBLASLT_EPILOGUE_DEFAULT, {0}};
  fake_lt_layout la = {CUDA_R_32F, CUBLASLT_ORDER_COL, 1, 64, 32, 64, 0};
  fake_lt_layout lb = {CUDA_R_32F, CUBLASLT_ORDER_COL, 1, 64, 16, 64, 0};
  fake_lt_layout ld = {CUDA_R_32F, CUBLASLT_ORDER_COL, 1, 32, 16, 32, 0};
  __typeof__(&cublasLtMatmul) lt;
  int (*route)(int);
  int on, k;
  load();
  load_framework();
  lt = (__typeof__(&cublasLtMatmul))bound("cublasLtMatmul");
  route = (int (*)(int))dlsym(dlgemm_lib, "dlgemm_route_cublas");
  ck_assert_msg(route != NULL, "dlgemm_route_cublas is not exported");
  for (k = 0; k < 4; k++) {
    on = k % 2; /* off, on, off, on */
    ck_assert_int_eq(route(on), k == 0 ? 1 : !on);
    desc.reads[0] = 0;
    lt_call(lt, &desc, &la, &lb, &ld, NULL, 0);
    if (on && described)
      ck_assert_int_ge(desc.reads[0], 11);
    else
      ck_assert_int_eq(desc.reads[0], 0);
  }
}
END_TEST

int main(void)
{
  TCase *tc = tcase_create("cublas_shim");
  tcase_add_test(tc, no_cublas_loaded);
  tcase_add_test(tc, legacy_entries_forward);
  tcase_add_test(tc, lt_forwards);
  tcase_add_test(tc, route_switch);
  return check_run("cublas_shim", tc);
}
