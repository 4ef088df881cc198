/*
 * dlopen_matmul - load libdlgemm.so at run time, as a framework would,
 * negotiate the ABI version with dlgemm_get_api(), and multiply tensors that
 * a producer hands out as DLPack 1.x DLManagedTensorVersioned: a row-major A
 * and a transposed view of B (column-major storage), both read-only, into a
 * row-major C.  The consumer (main) calls each deleter exactly once.
 * Against a library that only has ABI version 1 it multiplies the DLTensors
 * inside them instead.
 *
 * usage: dlopen_matmul [path/to/libdlgemm.so]
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "dlgemm.h"

enum { M = 5, N = 3, K = 4 };

static int live_tensors; /* made minus deleted: 0 at the end */

/* The producer's side: one allocation holds the struct, shape, strides and
 * data, so the deleter is a single free(). */
typedef struct owned_tensor {
  DLManagedTensorVersioned managed;
  int64_t shape[2], strides[2];
  float data[];
} owned_tensor;

static void owned_tensor_delete(DLManagedTensorVersioned *self)
{
  live_tensors--;
  free(self->manager_ctx);
}

/* A rows x cols float32 tensor; column-major storage when colmajor. */
static DLManagedTensorVersioned *produce(int64_t rows, int64_t cols, int colmajor, int read_only)
{
  owned_tensor *t = malloc(sizeof *t + (size_t)(rows * cols) * sizeof(float));
  if (!t) return NULL;
  t->shape[0] = rows, t->shape[1] = cols;
  t->strides[0] = colmajor ? 1 : cols;
  t->strides[1] = colmajor ? rows : 1;
  t->managed.version.major = 1;
  t->managed.version.minor = 0;
  t->managed.manager_ctx = t;
  t->managed.deleter = owned_tensor_delete;
  t->managed.flags = read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  t->managed.dl_tensor = (DLTensor){t->data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, t->shape,
                                    t->strides, 0};
  live_tensors++;
  return &t->managed;
}

static float *at(DLManagedTensorVersioned *t, int64_t i, int64_t j)
{
  const DLTensor *x = &t->dl_tensor;
  return (float *)x->data + i * x->strides[0] + j * x->strides[1];
}

int main(int argc, char **argv)
{
  const char *path = argc > 1 ? argv[1] : "libdlgemm.so.0";
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  dlgemm_get_api_fn get_api;
  const dlgemm_api *api;
  DLManagedTensorVersioned *a, *b, *c;
  dlgemm_status st;
  int i, j, l, bad = 0;

  if (!lib) {
    fprintf(stderr, "dlopen(%s): %s\n", path, dlerror());
    return 1;
  }
  get_api = (dlgemm_get_api_fn)dlsym(lib, "dlgemm_get_api");
  /* The newest table this program knows, or version 1 from an older library. */
  if (!get_api || (!(api = get_api(DLGEMM_ABI_VERSION)) && !(api = get_api(1)))) {
    fprintf(stderr, "no usable dlgemm ABI version in %s\n", path);
    return 1;
  }
  printf("dlgemm %s, ABI %d\n", api->version(), api->abi_version);

  a = produce(M, K, 0, 1);
  b = produce(K, N, 1, 1);
  c = produce(M, N, 0, 0);
  if (!a || !b || !c) return 1;
  for (i = 0; i < M; i++)
    for (l = 0; l < K; l++) *at(a, i, l) = (float)((i * K + l) % 7) - 3;
  for (l = 0; l < K; l++)
    for (j = 0; j < N; j++) *at(b, l, j) = (float)((j * K + l) % 5) - 2;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) *at(c, i, j) = NAN; /* beta = 0: C must not be read */

  if (api->abi_version >= 2)
    st = api->matmul_versioned(a, b, c, 1.0, 0.0, NULL);
  else
    st = api->matmul(&a->dl_tensor, &b->dl_tensor, &c->dl_tensor, 1.0, 0.0, NULL);
  if (st != DLGEMM_OK) {
    fprintf(stderr, "matmul: %s: %s\n", api->status_string(st), api->last_error());
    return 1;
  }
  for (i = 0; i < M; i++) {
    for (j = 0; j < N; j++) {
      float ref = 0;
      for (l = 0; l < K; l++) ref += *at(a, i, l) * *at(b, l, j);
      printf(" %6.1f", *at(c, i, j));
      bad += *at(c, i, j) != ref;
    }
    printf("\n");
  }
  /* A malformed call is refused with a message, and C is left alone. */
  if (api->abi_version >= 2) {
    st = api->matmul_versioned(a, b, a, 1.0, 0.0, NULL); /* into read-only A */
    printf("read-only C -> %s: %s\n", api->status_string(st), api->last_error());
    bad += st != DLGEMM_ERR_READ_ONLY;
  }
  c->dl_tensor.shape[0] = M + 1;
  st = api->matmul(&a->dl_tensor, &b->dl_tensor, &c->dl_tensor, 1.0, 0.0, NULL);
  printf("shape mismatch -> %s: %s\n", api->status_string(st), api->last_error());
  bad += st != DLGEMM_ERR_SHAPE_MISMATCH;

  /* The consumer is done: each deleter once. */
  a->deleter(a);
  b->deleter(b);
  c->deleter(c);
  bad += live_tensors != 0;
  printf(bad ? "dlopen_matmul: WRONG\n" : "dlopen_matmul: ok\n");
  dlclose(lib);
  return bad != 0;
}
