/*
 * soak_pressure.c - dlgemm beside a process that holds most of the GPU
 * (soak.h, `soak pressure [LEAVE_MB]`).  A neighbour, forked before any
 * CUDA call, takes the GPU's memory on command until LEAVE_MB (default
 * 1536) is left, then all of it, then exits.  Meanwhile host-array dgemm_
 * calls must shrink their blocks or go to the CPU, device-tensor calls run
 * planned in less memory or return DLGEMM_ERR_OUT_OF_MEMORY with C
 * untouched; every answer is checked, and once the neighbour has gone the
 * host call runs at the speed it had before (best of three within 20% of
 * the best of two) and the GPU's used memory is back where it was (within
 * 256 MB).  dlgemm's pool keeps what earlier calls reserved, so a call
 * squeezed after them may still find room; `soak pressure LEAVE_MB first`
 * brings the neighbour before dlgemm's first call (the pool empty: the
 * host call must cut its blocks) and measures the calls alone at the end;
 * DLGEMM_INJECT_FAULT=workspace:N (ctest soak_pressure_workspace) makes a
 * device call's workspace fail where it cannot.  Skips (77) without
 * a GPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "blas_symbols.h"
#include "soak.h"

/* --- the neighbour: 'g' grab all but leave_mb, 's' squeeze the rest, 'q' go --- */

static void neighbour(int in, int out, size_t leave_mb)
{
  cudrv cu;
  CUcontext ctx;
  CUdeviceptr p;
  size_t freeb, total, step;
  char cmd;
  while (read(in, &cmd, 1) == 1 && cmd != 'q') {
    if (cmd == 'g') cudrv_load(&cu, &ctx);
    for (step = 1u << 30; step >= (2u << 20); step /= 2)
      while (cu.MemGetInfo(&freeb, &total) == CUDA_SUCCESS &&
             (cmd == 's' || freeb > (leave_mb << 20) + step) &&
             cu.MemAlloc(&p, step) == CUDA_SUCCESS) {
      }
    if (write(out, "r", 1) != 1) _exit(1);
  }
  _exit(0); /* the driver frees what it held */
}

static int command(int to, int from, char c)
{
  char r;
  return write(to, &c, 1) == 1 && (c == 'q' || (read(from, &r, 1) == 1 && r == 'r'));
}

/* --- the calls ----------------------------------------------------------------------- */

static size_t gpu_free(const cudrv *cu)
{
  size_t freeb = 0, total = 0;
  cu->MemGetInfo(&freeb, &total);
  return freeb;
}

typedef struct host_call { int n; double seconds; int wrong; } host_call;

static void host_dgemm(void *arg)
{
  host_call *h = arg;
  const int n = h->n;
  const double one = 1, zero = 0;
  double *a = malloc((size_t)n * n * 8), *c = malloc((size_t)n * n * 8), t0;
  size_t i;
  rng r = {12345};
  int s;
  for (i = 0; i < (size_t)n * n; i++) a[i] = rng_unit(&r), c[i] = NAN;
  t0 = soak_now();
  dgemm_("N", "T", &n, &n, &n, &one, a, &n, a, &n, &zero, c, &n, 1, 1);
  h->seconds = soak_now() - t0, h->wrong = 0;
  for (s = 0; s < 32; s++) { /* C = A A^T */
    const int x = rng_int(&r, n), y = rng_int(&r, n);
    long double ref = 0, mag = 0;
    int l;
    for (l = 0; l < n; l++)
      ref += (long double)a[x + (size_t)l * n] * a[y + (size_t)l * n],
          mag += fabsl((long double)a[x + (size_t)l * n] * a[y + (size_t)l * n]);
    if (!(fabsl(c[x + (size_t)y * n] - ref) <= 3 * (n + 2) * 1.1102230246251565e-16L * mag))
      h->wrong++;
  }
  free(a), free(c);
}

/* A host dgemm_ of order n: its line, right or not; seconds in *t. */
static int host(const char *when, int n, double *t)
{
  host_call h = {n, 0, 0};
  char log[8192], *line, *save = NULL;
  capture_stderr(host_dgemm, &h, log, sizeof log);
  printf("%s: dgemm_ n=%d in %.3f s, %s\n", when, n, h.seconds, h.wrong ? "WRONG" : "right");
  for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
    if (!strncmp(line, "dlgemm: dgemm_", 14)) printf("  %.300s\n", line);
  if (t) *t = h.seconds;
  return h.wrong != 0;
}

/* FP32 n x n x n on device tensors, TF32 (a packing workspace) then strict
 * with k 64 times n (split-K's); right, or out of memory with C as it was. */
static int device(const cudrv *cu, const char *when, int n)
{
  static const int precisions[2] = {DLGEMM_PRECISION_TF32, DLGEMM_PRECISION_STRICT};
  int p, bad = 0;
  for (p = 0; p < 2; p++) {
    const int m = p ? 256 : n, k = p ? 64 * 256 : n;
    const size_t na = (size_t)m * k, nc = (size_t)m * m;
    float *a = malloc(na * 4), *c = malloc(nc * 4), *c0 = malloc(nc * 4);
    /* B = A^T: the same memory read k x m, rows m apart */
    int64_t sa[2] = {m, k}, sb[2] = {k, m}, sc[2] = {m, m}, ta[2] = {1, m}, tb[2] = {m, 1},
            tc[2] = {1, m};
    CUdeviceptr da = 0, dc = 0;
    dlgemm_options o;
    dlgemm_status st;
    size_t i;
    rng r = {777};
    for (i = 0; i < na; i++) a[i] = (float)rng_unit(&r);
    for (i = 0; i < nc; i++) c[i] = c0[i] = (float)rng_unit(&r);
    if (cu->MemAlloc(&da, na * 4) || cu->MemAlloc(&dc, nc * 4) || cu->MemcpyHtoD(da, a, na * 4) ||
        cu->MemcpyHtoD(dc, c, nc * 4)) {
      printf("%s: device operands do not fit (%zu MB free): not a call\n", when,
             gpu_free(cu) >> 20);
    } else {
      const DLDataType f32 = {kDLFloat, 32, 1};
      DLTensor A = {(void *)(uintptr_t)da, {kDLCUDA, 0}, 2, f32, sa, ta, 0};
      DLTensor B = {(void *)(uintptr_t)da, {kDLCUDA, 0}, 2, f32, sb, tb, 0};
      DLTensor C = {(void *)(uintptr_t)dc, {kDLCUDA, 0}, 2, f32, sc, tc, 0};
      int wrong = 0, s;
      dlgemm_options_init(&o);
      o.precision = (dlgemm_precision)precisions[p];
      st = dlgemm_matmul(&A, &B, &C, 1.0, 1.0, &o);
      cu->MemcpyDtoH(c, dc, nc * 4);
      if (st == DLGEMM_ERR_OUT_OF_MEMORY) {
        wrong = memcmp(c, c0, nc * 4) != 0;
      } else if (st) {
        wrong = 1;
      } else {
        for (s = 0; s < 32; s++) { /* C = A A^T + C0 */
          const int x = rng_int(&r, m), y = rng_int(&r, m);
          long double ref = c0[x + (size_t)y * m], mag = fabsl(ref);
          int l;
          for (l = 0; l < k; l++)
            ref += (long double)a[x + (size_t)l * m] * a[y + (size_t)l * m],
                mag += fabsl((long double)a[x + (size_t)l * m] * a[y + (size_t)l * m]);
          wrong += !(fabsl(c[x + (size_t)y * m] - ref) <=
                     3 * ((k + 2) * 5.96e-8L + (p ? 0 : 1.0L / 1024)) * mag);
        }
      }
      printf("%s: device %s %dx%dx%d: %s, %s\n", when, p ? "FP32" : "TF32", m, m, k,
             st ? dlgemm_last_error() : "done", wrong ? "WRONG" : st ? "C untouched" : "right");
      bad += wrong != 0;
    }
    if (da) cu->MemFree(da);
    if (dc) cu->MemFree(dc);
    free(a), free(c), free(c0);
  }
  return bad;
}

/* The calls alone on the GPU: the host call's best time of two (after a
 * warm-up), the device calls, and the GPU's free memory after them. */
static int alone(const cudrv *cu, double *best, size_t *freeb)
{
  double t;
  int bad = host("alone (warm-up)", 8192, NULL);
  bad += host("alone", 8192, best);
  bad += host("alone", 8192, &t), *best = t < *best ? t : *best;
  bad += device(cu, "alone", 4096);
  *freeb = gpu_free(cu);
  printf("GPU memory free: %zu MB\n", *freeb >> 20);
  return bad;
}

int soak_pressure(size_t leave_mb, int first)
{
  int to[2], from[2], bad = 0;
  pid_t pid;
  cudrv cu;
  CUcontext ctx;
  double before = 0, after, t;
  size_t free0 = 0, free1;
  if (!soak_has_gpu()) return printf("SKIP: soak pressure needs an NVIDIA GPU\n"), 77;
  if (pipe(to) || pipe(from)) return 1;
  fflush(stdout);
  if ((pid = fork()) == 0) neighbour(to[0], from[1], leave_mb);
  cudrv_load(&cu, &ctx);
  setenv("DLGEMM_VERBOSE", "1", 1);
  if (!first) {
    bad += alone(&cu, &before, &free0);
  } else { /* dlgemm's pool holds nothing yet: the engine must cut its blocks */
    printf("the neighbour comes before dlgemm's first call\n");
  }
  if (!command(to[1], from[0], 'g')) return printf("FAIL: the neighbour did not start\n"), 1;
  printf("the neighbour holds all but %zu MB: %zu MB free\n", leave_mb, gpu_free(&cu) >> 20);
  bad += host("beside it", 8192, NULL);
  bad += device(&cu, "beside it", 4096);
  if (!command(to[1], from[0], 's')) return printf("FAIL: the neighbour did not squeeze\n"), 1;
  printf("the neighbour holds everything: %zu MB free\n", gpu_free(&cu) >> 20);
  bad += host("squeezed", 1024, NULL);
  bad += device(&cu, "squeezed", 2048);
  command(to[1], from[0], 'q');
  waitpid(pid, NULL, 0);
  bad += host("after it left", 8192, &after); /* best of three: the driver may still be freeing */
  bad += host("after it left", 8192, &t), after = t < after ? t : after;
  bad += host("after it left", 8192, &t), after = t < after ? t : after;
  free1 = gpu_free(&cu);
  if (first) { /* the speed it has alone, measured once it is settled */
    sleep(2);
    bad += alone(&cu, &before, &free0);
  }
  printf("after it left: dgemm_ %.3f s against %.3f s alone (%.2fx); GPU memory free %zu MB, "
         "%zu MB alone\n", after, before, after / before, free1 >> 20, free0 >> 20);
  if (after > 1.2 * before) printf("FAIL: slower after the neighbour left\n"), bad++;
  if (free1 + (256u << 20) < free0 || free0 + (256u << 20) < free1)
    printf("FAIL: memory not given back, or not kept steady\n"), bad++;
  printf("pressure %s\n", bad ? "FAILED" : "passed");
  return bad != 0;
}
