/*
 * test_fork - fork() while other threads are inside the library (issue 27):
 * in every round the child's first call must return, with the right answer.
 *
 * Worker threads call sgemm_, dgemm_ and dlgemm_matmul without pause while
 * the main thread forks; each child calls sgemm_ and dlgemm_matmul once
 * under an alarm (a lock held by a thread that does not exist in the child
 * shows up as SIGALRM) and checks both products against a plain loop.
 *
 * usage: test_fork [rounds [n]]  (n: the workers' size; large enough, on a
 * GPU machine with DLGEMM_FORCE=gpu, that their calls run on the GPU)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "blas_symbols.h"
#include "dlgemm.h"
#include "testutil.h"

static _Atomic int stop;
static int worker_n = 24;

/* C = A * B for n x n column-major operands, through sgemm_ and checked. */
static int sgemm_ok(int n, unsigned seed)
{
  float *a = malloc(sizeof(float) * n * n * 3), *b = a + n * n, *c = b + n * n;
  const float one = 1, zero = 0;
  int i, ok;
  for (i = 0; i < n * n; i++) a[i] = (float)((i * 7 + seed) % 13) - 6, b[i] = (float)(i % 5) - 2;
  sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
  ok = exact_product_ok(c, a, b, n, n, n); /* small integers: exact */
  free(a);
  return ok;
}

/* The same through dlgemm_matmul on row-major host tensors. */
static int matmul_ok(int n, unsigned seed)
{
  double *a = malloc(sizeof(double) * n * n * 3), *b = a + n * n, *c = b + n * n;
  int64_t shape[2] = {n, n};
  DLTensor A = {a, {kDLCPU, 0}, 2, {kDLFloat, 64, 1}, shape, NULL, 0};
  DLTensor B = {b, {kDLCPU, 0}, 2, {kDLFloat, 64, 1}, shape, NULL, 0};
  DLTensor C = {c, {kDLCPU, 0}, 2, {kDLFloat, 64, 1}, shape, NULL, 0};
  int i, j, l, bad;
  for (i = 0; i < n * n; i++) a[i] = (double)((i * 3 + seed) % 11) - 5, b[i] = (double)(i % 7) - 3;
  bad = dlgemm_matmul(&A, &B, &C, 1.0, 0.0, NULL) != DLGEMM_OK;
  for (i = 0; i < n && !bad; i++)
    for (j = 0; j < n; j++) {
      double s = 0;
      for (l = 0; l < n; l++) s += a[i * n + l] * b[l * n + j];
      if (c[i * n + j] != s) bad = 1;
    }
  free(a);
  return !bad;
}

static void *worker(void *arg)
{
  unsigned seed = (unsigned)(size_t)arg;
  const double one = 1, zero = 0;
  double x[4] = {1, 2, 3, 4}, y[4];
  const int two = 2;
  while (!stop) {
    if (!sgemm_ok(worker_n, seed) || !matmul_ok(worker_n / 2 + 1, seed)) {
      fprintf(stderr, "worker %u: wrong product in the parent\n", seed);
      exit(1);
    }
    dgemm_("N", "N", &two, &two, &two, &one, x, &two, x, &two, &zero, y, &two, 1, 1);
    seed++;
  }
  return NULL;
}

int main(int argc, char **argv)
{
  const int rounds = argc > 1 ? atoi(argv[1]) : 200, threads = 6;
  pthread_t t[6];
  int r, i, failed = 0;
  if (argc > 2) worker_n = atoi(argv[2]);
  if (getenv("DLGEMM_FORCE") && !strcmp(getenv("DLGEMM_FORCE"), "gpu") &&
      !dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    printf("SKIP: test_fork with DLGEMM_FORCE=gpu needs an NVIDIA GPU (no libcuda.so.1)\n");
    return 77;
  }
  for (i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, (void *)(size_t)(i * 1000));
  for (r = 0; r < rounds; r++) {
    int status;
    pid_t pid;
    usleep(200 + (unsigned)(r * 37) % 800); /* fork at a different point of the calls each time */
    if ((pid = fork()) == 0) {
      alarm(20);
      _exit(!(sgemm_ok(7 + r % 5, (unsigned)r) && matmul_ok(5 + r % 3, (unsigned)r)));
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
      perror("fork/waitpid");
      return 1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
      fprintf(stderr, "round %d: the child %s\n", r,
              WIFSIGNALED(status) ? (WTERMSIG(status) == SIGALRM ? "hung (killed by its alarm)"
                                                                 : strsignal(WTERMSIG(status)))
                                  : "computed a wrong product");
      failed++;
    }
  }
  stop = 1;
  for (i = 0; i < threads; i++) pthread_join(t[i], NULL);
  printf("test_fork: %d of %d rounds passed (%d worker threads inside the library)\n",
         rounds - failed, rounds, threads);
  return failed != 0;
}
