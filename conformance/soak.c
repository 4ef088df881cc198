/*
 * soak.c - dlgemm among neighbours (issue 53): several processes on one GPU,
 * each with many threads of mixed calls, every answer checked; and what a
 * scheduler or a user does to such processes.
 *
 *   soak run SECONDS PROCESSES THREADS
 *       the processes (forked before any call) each run THREADS threads for
 *       SECONDS: host-array sgemm_/dgemm_, dtrsm_, dsyrk_, dgetrf_, dpotrf_
 *       and, with a GPU, dlgemm_matmul on device tensors (FP32 strict,
 *       TF32, 3xTF32, FP64), sizes drawn at random, each result checked on
 *       sampled entries against a long-double reference.  Passes when no
 *       answer is wrong, every process exits 0, each one's resident memory
 *       (read with its threads joined) grows by less than 128 MB after its
 *       first third, the GPU's used
 *       memory (asked by the parent) by less than 1 GB, and - with a GPU -
 *       the host model's cache file appears once, whole, and is not
 *       replaced.  DLGEMM_INJECT_FAULT=random:N (the environment) makes
 *       allocations, launches and copies fail at random meanwhile.
 *   soak signals
 *       a process in a long host-array call ended by SIGINT and by SIGTERM
 *       (default handlers: gone within a second), a program's own SIGINT
 *       handler run while calls go on, a process that calls exit() with
 *       calls in flight on other threads, and one of three processes
 *       SIGKILLed while the other two go on calling.
 *
 * The cache lives in a fresh XDG_CACHE_HOME the parent makes.  Without a
 * GPU everything runs on the CPU path (CI: a short run of each).
 */
#include <dirent.h>
#include <math.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cudrv.h"
#include "soak.h"

/* --- one process's threads --------------------------------------------------- */

typedef struct worker {
  int id, gpu, phase;
  double until;
  long calls[SOAK_KINDS], wrong;
} worker;

static CUcontext gpu_ctx;
static cudrv gpu_api;

static void *work(void *arg)
{
  worker *w = arg;
  rng r = {soak_seed() ^ ((uint64_t)getpid() << 16) ^ (uint64_t)w->id * 0x9e3779b9u ^
           (uint64_t)w->phase << 56};
  if (w->gpu) gpu_api.CtxSetCurrent(gpu_ctx);
  while (soak_now() < w->until) {
    const int kind = rng_int(&r, w->gpu ? SOAK_KINDS : SOAK_KINDS - 1);
    w->wrong += soak_call(kind, &r, w->gpu ? &gpu_api : NULL);
    w->calls[kind]++;
  }
  return NULL;
}

/* The threads until `until`, then joined; the process's resident memory
 * after glibc gave back its free heap.  Read while the threads ran, it
 * sampled their operands in flight (up to about 1.5 GB in 16 threads) and
 * moved up to 280 MB either way over a 10-minute run on the H100s
 * (bench/NOTES.md, "Neighbours"): measured here, between phases, only what
 * stays counts. */
static long phase(worker *w, pthread_t *t, int threads, double until)
{
  int i;
  for (i = 0; i < threads; i++) {
    w[i].until = until, w[i].phase++;
    pthread_create(&t[i], NULL, work, &w[i]);
  }
  for (i = 0; i < threads; i++) pthread_join(t[i], NULL);
  malloc_trim(0);
  return rss_kb();
}

/* THREADS threads for a third of the time, then again until `until`;
 * prints one line; returns the exit status. */
static int run_process(int index, int threads, double until, int gpu)
{
  worker *w = calloc((size_t)threads, sizeof *w);
  pthread_t *t = calloc((size_t)threads, sizeof *t);
  long calls[SOAK_KINDS] = {0}, wrong = 0, rss0, rss1, total = 0;
  int i, k;
  if (gpu) {
    rng r = {soak_seed() ^ (uint64_t)getpid()};
    cudrv_load(&gpu_api, &gpu_ctx);
    gpu_api.CtxSetCurrent(gpu_ctx);
    wrong += soak_warm(&r, &gpu_api);
  }
  for (i = 0; i < threads; i++) w[i].id = i, w[i].gpu = gpu;
  rss0 = phase(w, t, threads, soak_now() + (until - soak_now()) / 3);
  rss1 = phase(w, t, threads, until);
  for (i = 0; i < threads; i++) {
    for (k = 0; k < SOAK_KINDS; k++) calls[k] += w[i].calls[k], total += w[i].calls[k];
    wrong += w[i].wrong;
  }
  printf("process %d (pid %d): %ld calls (", index, (int)getpid(), total);
  for (k = 0; k < SOAK_KINDS; k++) printf("%s%s %ld", k ? ", " : "", soak_kind_name[k], calls[k]);
  printf("), %ld wrong; resident %ld -> %ld MB after the first third\n", wrong, rss0 / 1024,
         rss1 / 1024);
  fflush(stdout);
  free(w), free(t);
  return wrong ? 1 : rss1 - rss0 > 128 * 1024 ? 2 : 0;
}

/* --- the parent ---------------------------------------------------------------- */

/* The one host-model cache file under dir's dlgemm/ (inode, or 0), and how many. */
static int cache_files(const char *dir, ino_t *inode, char *path, size_t len)
{
  char sub[600];
  DIR *d;
  struct dirent *e;
  int n = 0;
  snprintf(sub, sizeof sub, "%s/dlgemm", dir);
  if (!(d = opendir(sub))) return 0;
  while ((e = readdir(d))) {
    const size_t len_name = strlen(e->d_name);
    struct stat st;
    /* not the writers' own files (.txt.<pid>), renamed over it when whole */
    if (strncmp(e->d_name, "host-model-", 11) || len_name < 4 ||
        strcmp(e->d_name + len_name - 4, ".txt"))
      continue;
    snprintf(path, len, "%s/%s", sub, e->d_name);
    if (stat(path, &st) == 0) *inode = st.st_ino, n++;
  }
  closedir(d);
  return n;
}

/* Every field of the model once, each a number. */
static int cache_whole(const char *path)
{
  static const char *const fields[] = {"to_device", "to_host", "staging", "kernel[0]",
                                       "kernel[1]", "overhead", "cpu[0][0]", "cpu[0][1]",
                                       "cpu[1][0]", "cpu[1][1]"};
  FILE *f = fopen(path, "r");
  char name[32];
  double v;
  unsigned seen = 0;
  size_t i;
  if (!f) return 0;
  while (fscanf(f, "%31s %lf", name, &v) == 2)
    for (i = 0; i < sizeof fields / sizeof *fields; i++)
      if (!strcmp(name, fields[i]) && isfinite(v)) seen |= 1u << i;
  fclose(f);
  return seen == (1u << (sizeof fields / sizeof *fields)) - 1;
}

static size_t gpu_used(const cudrv *cu)
{
  size_t freeb = 0, total = 0;
  return cu && cu->MemGetInfo(&freeb, &total) == CUDA_SUCCESS ? total - freeb : 0;
}

static int run(double seconds, int procs, int threads)
{
  const int gpu = soak_has_gpu();
  const double until = soak_now() + seconds;
  char dir[] = "/tmp/dlgemm-soak-XXXXXX", path[700] = "";
  pid_t *pid = calloc((size_t)procs, sizeof *pid);
  int i, failed = 0, files = 0, replaced = 0;
  ino_t first = 0, seen = 0;
  size_t used0 = 0, used1 = 0;
  cudrv cu;
  CUcontext ctx;
  if (!mkdtemp(dir)) return 1;
  soak_seed(); /* once, before the processes part */
  setenv("XDG_CACHE_HOME", dir, 1);
  printf("soak: %d process(es) x %d threads for %.0f s, %s, DLGEMM_INJECT_FAULT=%s\n", procs,
         threads, seconds, gpu ? "with a GPU" : "no GPU: every call on the CPU path",
         getenv("DLGEMM_INJECT_FAULT") ? getenv("DLGEMM_INJECT_FAULT") : "(none)");
  fflush(stdout);
  fflush(stderr);
  for (i = 0; i < procs; i++)
    if ((pid[i] = fork()) == 0) _exit(run_process(i, threads, until, gpu));
  if (gpu) cudrv_load(&cu, &ctx); /* after the fork: the children start clean */
  while (soak_now() < until - 1) {
    const double left = until - soak_now();
    files = cache_files(dir, &seen, path, sizeof path);
    if (files == 1) {
      if (!first) first = seen;
      else if (seen != first) replaced = 1;
    }
    if (gpu && !used0 && left < seconds * 2 / 3) used0 = gpu_used(&cu);
    if (gpu && left < 2 && !used1) used1 = gpu_used(&cu);
    usleep(100000);
  }
  if (gpu && !used1) used1 = gpu_used(&cu);
  for (i = 0; i < procs; i++) {
    int status;
    if (waitpid(pid[i], &status, 0) != pid[i] || !WIFEXITED(status) || WEXITSTATUS(status)) {
      printf("FAIL: process %d: %s %d\n", i, WIFSIGNALED(status) ? "killed by signal" : "exit",
             WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
      failed++;
    }
  }
  if (gpu) {
    files = cache_files(dir, &seen, path, sizeof path);
    if (!first) first = seen; /* written in the run's last second */
    printf("GPU memory in use (all processes): %zu MB after the first third, %zu MB at the end\n",
           used0 >> 20, used1 >> 20);
    if (used1 > used0 + (1ul << 30)) printf("FAIL: the GPU's used memory grew\n"), failed++;
    printf("host-model cache: %d file(s)%s%s\n", files,
           files == 1 && cache_whole(path) ? ", whole" : "",
           replaced || seen != first ? ", REPLACED during the run" : ", written once");
    if (files != 1 || !cache_whole(path) || replaced || seen != first)
      printf("FAIL: the cache was not written once and whole\n"), failed++;
  } else {
    printf("host-model cache: not checked (no GPU: no model is measured)\n");
  }
  printf("soak %s\n", failed ? "FAILED" : "passed");
  free(pid);
  return failed != 0;
}

int main(int argc, char **argv)
{
  if (argc >= 5 && !strcmp(argv[1], "run")) return run(atof(argv[2]), atoi(argv[3]), atoi(argv[4]));
  if (argc >= 2 && !strcmp(argv[1], "signals")) return soak_signals();
  if (argc >= 2 && !strcmp(argv[1], "pressure"))
    return soak_pressure(argc > 2 ? (size_t)atol(argv[2]) : 1536,
                         argc > 3 && !strcmp(argv[3], "first"));
  fprintf(stderr, "usage: soak run SECONDS PROCESSES THREADS | soak signals | "
          "soak pressure [LEAVE_MB [first]]\n");
  return 2;
}
