/*
 * test_cuda_pointers - kDLCUDA tensors whose pointers lie (issue 27): data
 * in pageable host memory, in page-locked host memory, already freed,
 * too short for the tensor, or (with two GPUs) on the other device.  Each
 * call must return DLGEMM_ERR_BAD_POINTER with a message naming the
 * operand, launch nothing and leave C as it was; an honest call on the
 * same buffers then succeeds.  Skips (77) where no CUDA backend is usable.
 */
#include <stdlib.h>
#include <string.h>
#include "cudrv.h"
#include "dlgemm.h"
#include "gpu_probe.h"

enum { N = 64 };

static int expect_refused(const char *what, DLTensor *a, DLTensor *b, DLTensor *c,
                          const char *operand)
{
  dlgemm_status st = dlgemm_matmul(a, b, c, 1.0, 0.0, NULL);
  if (st != DLGEMM_ERR_BAD_POINTER || strncmp(dlgemm_last_error(), operand, strlen(operand))) {
    fprintf(stderr, "FAIL: %s: status %d (%s), message '%s'\n", what, st, dlgemm_status_string(st),
            dlgemm_last_error());
    return 1;
  }
  printf("ok: %s: %s\n", what, dlgemm_last_error());
  return 0;
}

int main(void)
{
  cudrv cu;
  CUcontext ctx;
  CUdeviceptr da, db, dc, freed, shorty;
  int64_t shape[2] = {N, N};
  float *host = calloc(N * N, sizeof(float)), *pinned, *check = malloc(N * N * sizeof(float));
  int failed = 0, count = 0, i;
  if (!cuda_backend_usable("test_cuda_pointers")) return 77;
  cudrv_load(&cu, &ctx);
  CU(cu.MemAlloc(&da, N * N * 4));
  CU(cu.MemAlloc(&db, N * N * 4));
  CU(cu.MemAlloc(&dc, N * N * 4));
  CU(cu.MemAlloc(&shorty, N * N * 4 - 4)); /* one float short */
  CU(cu.MemAlloc(&freed, N * N * 4));
  CU(cu.MemFree(freed));
  CU(cu.MemAllocHost((void **)&pinned, N * N * 4));
  for (i = 0; i < N * N; i++) host[i] = 1.0f;
  CU(cu.MemcpyHtoD(da, host, N * N * 4));
  CU(cu.MemcpyHtoD(db, host, N * N * 4));
  CU(cu.MemcpyHtoD(dc, host, N * N * 4)); /* C = 1 everywhere: a refused call leaves it so */
  {
    DLTensor A = {(void *)(uintptr_t)da, {kDLCUDA, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
    DLTensor B = A, C = A, bad;
    B.data = (void *)(uintptr_t)db, C.data = (void *)(uintptr_t)dc;
    bad = A, bad.data = host;
    failed += expect_refused("A in pageable host memory", &bad, &B, &C, "A");
    bad = B, bad.data = pinned;
    failed += expect_refused("B in page-locked host memory", &A, &bad, &C, "B");
    bad = C, bad.data = (void *)(uintptr_t)freed;
    failed += expect_refused("C already freed", &A, &B, &bad, "C");
    bad = C, bad.data = (void *)(uintptr_t)shorty;
    failed += expect_refused("C one float longer than its allocation", &A, &B, &bad, "C");
    bad = A, bad.byte_offset = 4;
    failed += expect_refused("A offset past its allocation's end", &bad, &B, &C, "A");
    CU(cu.DeviceGetCount(&count));
    if (count > 1) {
      bad = A, bad.device.device_id = 1;
      DLTensor b1 = B, c1 = C;
      b1.device.device_id = c1.device.device_id = 1;
      failed += expect_refused("tensors naming device 1 on device 0's memory", &bad, &b1, &c1, "A");
    } else {
      printf("note: one GPU: the wrong-device case needs two (run on nvidia-h200-x2)\n");
    }
    CU(cu.MemcpyDtoH(check, dc, N * N * 4));
    for (i = 0; i < N * N; i++)
      if (check[i] != 1.0f) {
        fprintf(stderr, "FAIL: C changed by a refused call (C[%d] = %g)\n", i, check[i]);
        failed++;
        break;
      }
    if (dlgemm_matmul(&A, &B, &C, 1.0, 0.0, NULL) != DLGEMM_OK) {
      fprintf(stderr, "FAIL: the honest call: %s\n", dlgemm_last_error());
      failed++;
    } else {
      CU(cu.StreamSynchronize(NULL));
      CU(cu.MemcpyDtoH(check, dc, N * N * 4));
      if (check[0] != (float)N || check[N * N - 1] != (float)N) {
        fprintf(stderr, "FAIL: the honest call computed %g, not %d\n", check[0], N);
        failed++;
      }
    }
  }
  printf("test_cuda_pointers: %s\n", failed ? "FAILED" : "every lie refused");
  return failed != 0;
}
