/*
 * test_threads - many threads in the library at once, from the first call:
 * mixed sgemm_, dgemm_, cblas_sgemm and dlgemm_matmul calls (legal and
 * malformed) whose answers and per-thread error messages are all checked.
 * Run plain, and under ThreadSanitizer by tools/sanitize.sh (issue 27).
 *
 * usage: test_threads [threads [calls-per-thread]]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blas_symbols.h"
#include "dlgemm.h"
#include "testutil.h"

static pthread_barrier_t start;
static int calls = 200;

/* Small integers: exact_product_ok (testutil.h) then holds C to the plain
 * loop bit for bit, whoever computes it. */
static void fill(float *x, int n, unsigned seed)
{
  for (int i = 0; i < n; i++) x[i] = (float)((i * 7 + seed * 3) % 9) - 4;
}

static void *worker(void *arg)
{
  unsigned id = (unsigned)(size_t)arg;
  float a[24 * 24], b[24 * 24], c[24 * 24];
  double da[64], dc[64];
  const float one = 1, zero = 0;
  const double done = 1, dzero = 0;
  long bad = 0;
  pthread_barrier_wait(&start); /* every thread's first call at once */
  for (int t = 0; t < calls; t++) {
    int m = 1 + (int)((id * 5 + (unsigned)t * 3) % 23), n = 1 + (int)((id + (unsigned)t * 7) % 23),
        k = 1 + (int)((id * 3 + (unsigned)t) % 23);
    fill(a, m * k, id + (unsigned)t), fill(b, k * n, id * 2 + (unsigned)t);
    switch (t % 5) {
    case 0:
      sgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m, 1, 1);
      bad += !exact_product_ok(c, a, b, m, n, k);
      break;
    case 1: { /* row-major C^T = B^T A^T is column-major C = A B */
      cblas_sgemm(101, 111, 111, n, m, k, 1.0f, b, k, a, m, 0.0f, c, m);
      bad += !exact_product_ok(c, a, b, m, n, k);
      break;
    }
    case 2: {
      int64_t as[2] = {k, m}, bs[2] = {n, k}, cs[2] = {n, m};
      DLTensor A = {a, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, as, NULL, 0};
      DLTensor B = {b, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, bs, NULL, 0};
      DLTensor C = {c, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, cs, NULL, 0};
      /* row-major tensors: C^T (n x m) = B^T (n x k) A^T (k x m) */
      bad += dlgemm_matmul(&B, &A, &C, 1.0, 0.0, NULL) != DLGEMM_OK || !exact_product_ok(c, a, b, m, n, k);
      break;
    }
    case 3: { /* malformed: the message is this thread's own */
      int64_t s[2] = {3, (int64_t)id + 4}; /* never square */
      char want[64];
      DLTensor A = {a, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, s, NULL, 0};
      snprintf(want, sizeof want, "A is 3x%u", id + 4);
      bad += dlgemm_matmul(&A, &A, &A, 1.0, 0.0, NULL) != DLGEMM_ERR_SHAPE_MISMATCH ||
             !strstr(dlgemm_last_error(), want);
      break;
    }
    default: {
      const int two = 4;
      for (int i = 0; i < 16; i++) da[i] = (double)((i + (int)id) % 5) - 2;
      dgemm_("N", "T", &two, &two, &two, &done, da, &two, da, &two, &dzero, dc, &two, 1, 1);
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
          double s = 0;
          for (int l = 0; l < 4; l++) s += da[i + 4 * l] * da[j + 4 * l];
          bad += dc[i + 4 * j] != s;
        }
    }
    }
  }
  return (void *)bad;
}

int main(int argc, char **argv)
{
  int threads = argc > 1 ? atoi(argv[1]) : 16;
  long wrong = 0;
  pthread_t *t = calloc((size_t)threads, sizeof *t);
  if (argc > 2) calls = atoi(argv[2]);
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, (void *)(size_t)i);
  for (int i = 0; i < threads; i++) {
    void *r;
    pthread_join(t[i], &r);
    wrong += (long)r;
  }
  printf("test_threads: %d threads x %d calls, %ld wrong\n", threads, calls, wrong);
  free(t);
  return wrong != 0;
}
