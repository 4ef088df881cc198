/*
 * test_offload - the host-array engine (plugin/cuda/hostarray/engine.c) through
 * sgemm_ and dgemm_ on malloc'ed arrays, with DLGEMM_FORCE=gpu:
 *
 *   shapes   problems of several tiles each way, every transpose, padded
 *            leading dimensions, beta = 0 over NaN and beta != 0, FP32 and
 *            FP64, from pageable and from page-locked memory;
 *   threads  16 threads calling at once, each checking its own results;
 *   fault    one call while DLGEMM_INJECT_FAULT breaks the engine midway:
 *            the answer must be right and the fallback logged;
 *   fork     a child forked after the parent used the GPU calls sgemm_: it
 *            must answer (on the CPU) rather than hang.
 *
 * Every result is checked against a long-double product with the error
 * bound of testutil.h; the rows of C past m (ldc > m) must be untouched.
 * Skips (77) without a GPU: it asks the driver, not the library, so that
 * no engine call happens before the one a fault is injected into.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cudrv.h"
#include "gpu_probe.h"
#include "host_gemm.h"
#include "blas_symbols.h"

static void *page_locked(size_t bytes)
{
  static CUresult (*host_alloc)(void **, size_t, unsigned);
  void *p = NULL;
  if (!host_alloc) *(void **)&host_alloc = dlsym(dlopen("libcuda.so.1", RTLD_NOW), "cuMemHostAlloc");
  if (host_alloc && host_alloc(&p, bytes, 0) == CUDA_SUCCESS) return p;
  fprintf(stderr, "cuMemHostAlloc failed\n");
  exit(1);
}

/* Entries uniform in [-1, 1); A and B page-locked when pinned. */
static void make(problem *p, rng *r, int is64, int m, int n, int k, char ta, char tb,
                 double alpha, double beta, int pinned)
{
  problem_make(p, r, is64, m, n, k, ta, tb, alpha, beta, rng_unit, pinned ? page_locked : NULL);
}

static void call(problem *p) { problem_call(p, p->c, sgemm_, dgemm_); }

/* 0 when C is right and its padding untouched. */
static long verify(const problem *p, const char *what)
{
  long bad = check_product(p->is64, p->m, p->n, p->k, p->alpha, p->a, p->ta == 'N' ? 1 : p->lda,
                           p->ta == 'N' ? p->lda : 1, p->b, p->tb == 'N' ? 1 : p->ldb,
                           p->tb == 'N' ? p->ldb : 1, p->beta, p->c0, p->c, 1, p->ldc, 2.0);
  int i, j;
  for (j = 0; j < p->n; j++)
    for (i = p->m; i < p->ldc; i++)
      if (elem(p->c, p->is64, 1, p->ldc, i, j) != SENTINEL) bad++;
  fprintf(stderr, "%s %s %c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g: %s\n", what,
          p->is64 ? "dgemm_" : "sgemm_", p->ta, p->tb, p->m, p->n, p->k, p->lda, p->ldb, p->ldc,
          p->alpha, p->beta, bad ? "WRONG" : "ok");
  return bad;
}

static void release(problem *p, int pinned)
{
  static CUresult (*host_free)(void *);
  if (pinned && !host_free) *(void **)&host_free = dlsym(dlopen("libcuda.so.1", RTLD_NOW), "cuMemFreeHost");
  if (pinned && host_free) host_free(p->a), host_free(p->b);
  else free(p->a), free(p->b);
  free(p->c), free(p->c0);
}

static int shapes(rng *r)
{
  cudrv cu; /* page-locked allocations need a current context */
  CUcontext ctx;
  cudrv_load(&cu, &ctx);
  /* m and n over 1024 are cut into tiles (up to 4 per side); k spans one
   * and several staging chunks of a panel line. */
  static const int dims[][3] = {{2100, 1100, 97}, {1500, 2600, 33}, {1025, 1031, 260},
                                {3000, 700, 17},  {700, 3000, 300}, {1100, 1100, 1}};
  static const char tr[] = "NT";
  long bad = 0;
  int i;
  for (i = 0; i < 12; i++) {
    problem p;
    const int *d = dims[i % 6], pinned = i >= 10;
    make(&p, r, i % 2, d[0], d[1], d[2], tr[i % 2], tr[(i / 2) % 2], i % 3 ? 1.0 : -0.5,
         i % 4 == 0 ? 0.0 : i % 4 == 1 ? 1.0 : -1.5, pinned);
    call(&p);
    bad += verify(&p, pinned ? "pinned" : "pageable") != 0;
    release(&p, pinned);
  }
  return bad != 0;
}

static long thread_failures;

static void *thread_main(void *arg)
{
  rng r = {(uint64_t)(size_t)arg * 0x9e3779b97f4a7c15ull + 1};
  int i;
  for (i = 0; i < 3; i++) {
    problem p;
    make(&p, &r, rng_int(&r, 2), 200 + rng_int(&r, 1100), 200 + rng_int(&r, 1100),
         1 + rng_int(&r, 200), "NT"[rng_int(&r, 2)], "NT"[rng_int(&r, 2)], 1.0,
         rng_int(&r, 2) ? 0.0 : 0.5, 0);
    call(&p);
    if (verify(&p, "thread")) __atomic_add_fetch(&thread_failures, 1, __ATOMIC_RELAXED);
    release(&p, 0);
  }
  return NULL;
}

static int threads(void)
{
  pthread_t t[16];
  size_t i;
  for (i = 0; i < 16; i++) pthread_create(&t[i], NULL, thread_main, (void *)(i + 1));
  for (i = 0; i < 16; i++) pthread_join(t[i], NULL);
  fprintf(stderr, "16 threads: %ld wrong results\n", thread_failures);
  return thread_failures != 0;
}

static void call_any(void *p) { call((problem *)p); }

static int fault(rng *r)
{
  problem p;
  char log[4096];
  long bad;
  make(&p, r, 1, 2600, 2100, 150, 'N', 'T', 1.0, -1.0, 0); /* beta != 0: C must not be half-read */
  capture_stderr(call_any, &p, log, sizeof log); /* the DLGEMM_VERBOSE line */
  fprintf(stderr, "%s", log);
  bad = verify(&p, "fault");
  if (!strstr(log, "fallback")) {
    fprintf(stderr, "the fallback was not reported (DLGEMM_VERBOSE=1 and DLGEMM_INJECT_FAULT "
            "must be set)\n");
    bad++;
  }
  release(&p, 0);
  return bad != 0;
}

static int forked(rng *r)
{
  problem p;
  pid_t pid;
  int status;
  make(&p, r, 0, 300, 300, 300, 'N', 'N', 1.0, 0.0, 0);
  call(&p); /* the parent sets up CUDA */
  if (verify(&p, "parent")) return 1;
  memcpy(p.c, p.c0, (size_t)p.ldc * p.n * 4);
  if ((pid = fork()) == 0) {
    alarm(120); /* a hang in the driver fails the test instead of blocking it */
    call(&p);
    _exit(verify(&p, "forked child") != 0);
  }
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
    fprintf(stderr, "forked child: %s\n",
            WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "wrong result");
    return 1;
  }
  release(&p, 0);
  return 0;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "shapes";
  rng r = {test_seed("test_offload")};
  int rc;
  if (!driver_has_gpu()) {
    printf("SKIP: test_offload %s needs an NVIDIA GPU\n", mode);
    return 77;
  }
  if (!strcmp(mode, "threads")) rc = threads();
  else if (!strcmp(mode, "fault")) rc = fault(&r);
  else if (!strcmp(mode, "fork")) rc = forked(&r);
  else rc = shapes(&r);
  printf("test_offload %s: %s\n", mode, rc ? "FAILED" : "passed");
  return rc;
}
