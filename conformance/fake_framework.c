/*
 * fake_framework.c - a stand-in for a framework (libtorch_cuda.so) linked
 * with the fake cuBLAS: what its cuBLAS names resolved to, as the dynamic
 * linker bound them when it was loaded (test_cublas_shim.c).
 */
#include <string.h>
#include "fake_cublas.h"

#define BOUND(name) if (!strcmp(what, #name)) return (void *)&name;

void *framework_bound(const char *what)
{
  BOUND(cublasSgemm_v2)
  BOUND(cublasDgemm_v2)
  BOUND(cublasGemmEx)
  BOUND(cublasSgemmStridedBatched)
  BOUND(cublasDgemmStridedBatched)
  BOUND(cublasGemmStridedBatchedEx)
  BOUND(cublasLtMatmul)
  return NULL;
}
