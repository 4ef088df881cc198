// session 32 (issue 52): can a process pin its array in place fast enough?  register in T chunks from T threads
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
static double now() { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
typedef struct { char *p; size_t n; int op; double t; } job;
static void *work(void *a) {
  job *j = (job *)a; double t0 = now();
  if (j->op == 0) memset(j->p, 1, j->n);
  else if (j->op == 1) { if (cudaHostRegister(j->p, j->n, 0)) fprintf(stderr, "register failed\n"); }
  else cudaHostUnregister(j->p);
  j->t = now() - t0; return 0;
}
static double par(char *p, size_t n, int T, int op) {
  pthread_t th[64]; job j[64]; size_t c = (n / T + 4095) & ~(size_t)4095; double t0 = now();
  for (int i = 0; i < T; i++) { size_t o = i * c; j[i] = (job){p + o, o >= n ? 0 : (n - o < c ? n - o : c), op, 0};
    pthread_create(&th[i], 0, work, &j[i]); }
  for (int i = 0; i < T; i++) pthread_join(th[i], 0);
  return now() - t0;
}
int main(int argc, char **argv) {
  int gpu = atoi(argv[1]); double gb = atof(argv[2]); int thp = argc > 3 ? atoi(argv[3]) : 0;
  size_t n = (size_t)(gb * (1ull << 30)) & ~(size_t)4095;
  cudaSetDevice(gpu); cudaFree(0);
  char *h = (char *)aligned_alloc(1 << 21, n);
  madvise(h, n, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  par(h, n, 16, 0);
  void *d; cudaMalloc(&d, n); cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  printf("gpu%d %.1f GB thp=%d:", gpu, gb, thp);
  for (int T = 1; T <= 16; T *= 4) {
    double r = par(h, n, T, 1);
    double t0 = now(); cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s); cudaStreamSynchronize(s); double h2d = now() - t0;
    t0 = now(); cudaMemcpyAsync(h, d, n, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); double d2h = now() - t0;
    double u = par(h, n, T, 2);
    printf(" | T=%d reg %.0f ms h2d %.0f d2h %.0f unreg %.0f", T, r * 1e3, h2d * 1e3, d2h * 1e3, u * 1e3);
  }
  printf("\n");
  return 0;
}
