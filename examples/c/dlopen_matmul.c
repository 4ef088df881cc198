/*
 * dlopen_matmul - load libdlgemm.so at run time, as a framework would, ask
 * for the version-1 function table and multiply two DLTensors: a row-major A
 * and a transposed view of B (column-major storage), into a row-major C.
 *
 * usage: dlopen_matmul [path/to/libdlgemm.so]
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "dlgemm.h"

enum { M = 5, N = 3, K = 4 };

int main(int argc, char **argv)
{
  const char *path = argc > 1 ? argv[1] : "libdlgemm.so.0";
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  dlgemm_get_api_fn get_api;
  const dlgemm_api *api;
  float a[M * K], bt[N * K], c[M * N];
  int64_t ashape[2] = {M, K}, bshape[2] = {K, N}, cshape[2] = {M, N};
  int64_t bstrides[2] = {1, K}; /* B[k][n] lives at bt[n*K + k]: a transposed view */
  DLTensor ta = {a, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, ashape, NULL, 0};
  DLTensor tb = {bt, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, bshape, bstrides, 0};
  DLTensor tc = {c, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, cshape, NULL, 0};
  dlgemm_status st;
  int i, j, l, bad = 0;

  if (!lib) {
    fprintf(stderr, "dlopen(%s): %s\n", path, dlerror());
    return 1;
  }
  get_api = (dlgemm_get_api_fn)dlsym(lib, "dlgemm_get_api");
  if (!get_api || !(api = get_api(DLGEMM_ABI_VERSION))) {
    fprintf(stderr, "no dlgemm ABI version %d in %s\n", DLGEMM_ABI_VERSION, path);
    return 1;
  }
  printf("dlgemm %s, ABI %d\n", api->version(), api->abi_version);
  for (i = 0; i < M * K; i++) a[i] = (float)(i % 7) - 3;
  for (i = 0; i < N * K; i++) bt[i] = (float)(i % 5) - 2;
  for (i = 0; i < M * N; i++) c[i] = NAN; /* beta = 0: C must not be read */

  st = api->matmul(&ta, &tb, &tc, 1.0, 0.0, NULL);
  if (st != DLGEMM_OK) {
    fprintf(stderr, "matmul: %s: %s\n", api->status_string(st), api->last_error());
    return 1;
  }
  for (i = 0; i < M; i++) {
    for (j = 0; j < N; j++) {
      float ref = 0;
      for (l = 0; l < K; l++) ref += a[i * K + l] * bt[j * K + l];
      printf(" %6.1f", c[i * N + j]);
      bad += c[i * N + j] != ref;
    }
    printf("\n");
  }
  /* A malformed call is refused with a message, and C is left alone. */
  cshape[1] = N + 1;
  st = api->matmul(&ta, &tb, &tc, 1.0, 0.0, NULL);
  printf("shape mismatch -> %s: %s\n", api->status_string(st), api->last_error());
  bad += st != DLGEMM_ERR_SHAPE_MISMATCH;
  printf(bad ? "dlopen_matmul: WRONG\n" : "dlopen_matmul: ok\n");
  dlclose(lib);
  return bad != 0;
}
