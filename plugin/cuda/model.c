/*
 * model.c - whether a host-array call is worth sending to the GPU.
 *
 * A call on the GPU costs a fixed overhead plus its transfers and its
 * kernel, which the engine overlaps, except around the first and last
 * tiles (gpu/trip_cost.c: the arithmetic, and each rank's share where
 * several of a job run on the node); on the next BLAS it costs its flops
 * at that BLAS's rate.  The constants are measured on this machine the
 * first time they are needed, and cached in $XDG_CACHE_HOME/dlgemm/ (else
 * ~/.cache/dlgemm/), keyed by GPU, bus slot and CPU BLAS, so later
 * processes start at once; the processes of a machine measure one at a
 * time (the ranks of a job would see each other's copies).
 * DLGEMM_CALIBRATE=1 measures again; DLGEMM_VERBOSE prints them.  Each
 * slot (hostarray/slots.h) has its own, measured through its own engine:
 * the router asks slot 0's, a call split over several devices asks each
 * one's for its share.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/cache_dir.h"
#include "core/calllog.h"
#include "core/config.h"
#include "core/errors.h"
#include "cpu/blas.h"
#include "cuda/device/driver.h"
#include "cuda/device/gemm.h"
#include "cuda/hostarray/engine.h"
#include "cuda/hostarray/slots.h"
#include "cuda/model.h"
#include "gpu/trip_cost.h"

typedef struct model {
  double to_device, to_host, staging; /* bytes/s: pinned DMA each way; copy pool */
  double kernel[2];                   /* flops/s of 2048^3 on the GPU: FP32, FP64 */
  double overhead;                    /* s: a 64^3 call through the engine */
  double cpu[2][2];                   /* flops/s of the next BLAS at 128^3, 384^3 */
} model;

/* Each field with the range a measurement on any machine falls in: a cached
 * value outside it (a corrupt or hostile file) is not a model. */
#define MODEL_FIELDS(X)                                                            \
  X(to_device, 1e6, 1e13) X(to_host, 1e6, 1e13) X(staging, 1e6, 1e13)              \
  X(kernel[0], 1e9, 1e17) X(kernel[1], 1e9, 1e17) X(overhead, 1e-7, 1.0)           \
  X(cpu[0][0], 1e5, 1e15) X(cpu[0][1], 1e5, 1e15) X(cpu[1][0], 1e5, 1e15)          \
  X(cpu[1][1], 1e5, 1e15)

static model models[DLG_MAX_DEVICES]; /* per slot */
/* 0 unknown, 1 ready, -1 unmeasurable; read without the lock once set */
static int model_state[DLG_MAX_DEVICES];
static pthread_mutex_t model_lock = PTHREAD_MUTEX_INITIALIZER;

/* --- measuring ----------------------------------------------------------- */

static double median5(double *t)
{
  int i, j;
  for (i = 1; i < 5; i++)
    for (j = i; j > 0 && t[j] < t[j - 1]; j--) {
      double x = t[j];
      t[j] = t[j - 1], t[j - 1] = x;
    }
  return t[2];
}

/* The next BLAS on an n^3 problem: flops/s of the faster of two runs. */
static double cpu_rate(dlg_dtype dt, int n)
{
  const dlg_cpu_blas *blas = dlg_cpu_blas_get();
  const size_t es = dlg_elem_size(dt), len = (size_t)n * n;
  char *a = calloc(3 * len, es);
  double best = HUGE_VAL;
  int rep;
  if (!a) return 1e9;
  for (rep = 0; rep < 2; rep++) {
    const double t0 = dlg_now();
    if (dt == DLG_F32) {
      const float one = 1, zero = 0;
      blas->sgemm("N", "N", &n, &n, &n, &one, (float *)a, &n, (float *)a + len, &n, &zero,
                  (float *)a + 2 * len, &n, 1, 1);
    } else {
      const double one = 1, zero = 0;
      blas->dgemm("N", "N", &n, &n, &n, &one, (double *)a, &n, (double *)a + len, &n, &zero,
                  (double *)a + 2 * len, &n, 1, 1);
    }
    if (dlg_now() - t0 < best) best = dlg_now() - t0;
  }
  free(a);
  return 2.0 * n * n * (double)n / best;
}

/* A square n^3 host call through slot's engine, or a device-resident
 * product on its device (host == 0): the median seconds of five calls
 * after one that warms up. */
static double gpu_seconds(int slot, dlg_cuda_device *dev, dlg_dtype dt, int n, int host)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  const size_t es = dlg_elem_size(dt), len = (size_t)n * n;
  dlg_gemm g;
  CUdeviceptr d = 0;
  CUstream s = NULL;
  char *h = NULL;
  double t[5];
  int rep, ok = 1;
  memset(&g, 0, sizeof g);
  g.dtype = g.dtype_in = dt, g.m = g.n = g.k = n, g.batch = 1, g.alpha = 1, g.beta = 0;
  g.origin = "calibration";
  if (host) {
    if (!(h = calloc(3 * len, es))) return -1;
    g.place = DLG_HOST;
  } else {
    if (cu->CtxPushCurrent(dev->ctx)) return -1;
    if (cu->StreamCreate(&s, CU_STREAM_NON_BLOCKING) || cu->MemAlloc(&d, 3 * len * es)) d = 0;
    g.place = DLG_CUDA;
  }
  g.a = (dlg_matrix){host ? (void *)h : (void *)(uintptr_t)d, n, n, 1, n, 0};
  g.b = g.a, g.c = g.a;
  g.b.data = (char *)g.a.data + len * es, g.c.data = (char *)g.a.data + 2 * len * es;
  for (rep = 0; rep < 6 && ok && (host || d); rep++) {
    const double t0 = dlg_now();
    if (host) ok = dlg_cuda_offload_one(slot, &g, NULL) == DLGEMM_OK;
    else ok = dlg_cuda_gemm(dev, &g, s) == DLGEMM_OK && cu->StreamSynchronize(s) == CUDA_SUCCESS;
    if (rep) t[rep - 1] = dlg_now() - t0; /* the first warms up */
  }
  if (!host) {
    if (d) cu->MemFree(d);
    if (s) cu->StreamDestroy(s);
    cu->CtxPopCurrent(NULL);
  }
  free(h);
  return ok && (host || d) ? median5(t) : -1;
}

static int measure_all(int slot, dlg_cuda_device *dev, model *m)
{
  int dt;
  if (dlg_cuda_offload_measure(slot, &m->to_device, &m->to_host, &m->staging)) return -1;
  /* the engine has streams now; its tiny call is the fixed cost */
  if ((m->overhead = gpu_seconds(slot, dev, DLG_F32, 64, 1)) < 0) return -1;
  for (dt = 0; dt < 2; dt++) {
    double s = gpu_seconds(slot, dev, (dlg_dtype)dt, 2048, 0);
    if (s <= 0) return -1;
    m->kernel[dt] = 2.0 * 2048.0 * 2048.0 * 2048.0 / s;
    m->cpu[dt][0] = cpu_rate((dlg_dtype)dt, 128);
    m->cpu[dt][1] = cpu_rate((dlg_dtype)dt, 384);
  }
  return 0;
}

/* Measured with DLGEMM_INJECT_FAULT's count held: a call split over
 * devices measures their models first, and the fault a test injects is
 * meant for the call. */
static int measure(int slot, dlg_cuda_device *dev, model *m)
{
  int r;
  dlg_fault_hold(1);
  r = measure_all(slot, dev, m);
  dlg_fault_hold(0);
  return r;
}

/* --- the cache --------------------------------------------------------------- */

/* $XDG_CACHE_HOME/dlgemm/host-model-<gpu>-<bus>-<blas hash>.txt */
static int cache_path(const dlg_cuda_device *dev, char *path, size_t len, char *dir, size_t dlen)
{
  const char *blas = dlg_cpu_blas_get()->sgemm_from;
  unsigned long h = 5381;
  char key[160];
  size_t i;
  if (dlg_cache_dir(dir, dlen)) return -1;
  for (i = 0; blas[i]; i++) h = h * 33 + (unsigned char)blas[i];
  snprintf(key, sizeof key, "%s-%s-%08lx", dev->name, dev->bus_id, h & 0xffffffffUL);
  dlg_cache_name(key);
  snprintf(path, len, "%s/host-model-%s.txt", dir, key);
  return 0;
}

/* The cache file, read only if it is a small regular file (not a FIFO that
 * would block, not a symlink to anything), every field once and in range:
 * anything else is remeasured, never trusted. */
static int load(const char *path, model *m)
{
  const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  char text[2048], name[32];
  unsigned seen = 0, bit;
  model got;
  int off = 0, used;
  ssize_t len;
  double v;
  if (fd < 0) return -1;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size >= (off_t)sizeof text ||
      (len = read(fd, text, sizeof text - 1)) <= 0) {
    close(fd);
    return -1;
  }
  close(fd);
  text[len] = '\0';
  memset(&got, 0, sizeof got);
  while (sscanf(text + off, "%31s %lf%n", name, &v, &used) == 2) {
    off += used, bit = 1;
#define LOAD(field, lo, hi)                                                        \
  if (!strcmp(name, #field)) {                                                     \
    if (seen & bit || !(v >= lo && v <= hi)) return -1;                            \
    got.field = v, seen |= bit;                                                    \
  }                                                                                \
  bit <<= 1;
    MODEL_FIELDS(LOAD)
#undef LOAD
  }
  if (seen != (1u << 10) - 1) return -1;
  *m = got;
  return 0;
}

/* The ranks of a job on one node would measure at once, each seeing part
 * of the host's memory, which the model then shares out among them again
 * (gpu/trip_cost.c): the processes of a machine measure one at a time,
 * holding a lock in the cache directory, and those that waited may find
 * their device measured.  The descriptor to close when done; -1 where no
 * lock can be had within a minute (a measurement takes seconds: its holder
 * may be stopped), and then this process measures at once, as before. */
static int lock_measuring(const char *dir)
{
  char lock[600];
  int fd, tries;
  dlg_cache_make_dir(dir);
  snprintf(lock, sizeof lock, "%s/measuring.lock", dir);
  if ((fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) return -1;
  for (tries = 0; tries < 600; tries++) {
    if (!flock(fd, LOCK_EX | LOCK_NB)) return fd;
    if (errno != EWOULDBLOCK) break;
    usleep(100000);
  }
  close(fd);
  return -1;
}

/* Written to a file of our own (O_EXCL: never through a link someone else
 * put there), then renamed over the cache: whole or not at all, for
 * processes calibrating at once. */
static void save(const char *dir, const char *path, const model *m)
{
  char tmp[600];
  FILE *f;
  int fd;
  dlg_cache_make_dir(dir);
  snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
  if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) return;
  if (!(f = fdopen(fd, "w"))) {
    close(fd);
    remove(tmp);
    return;
  }
#define SAVE(field, lo, hi) fprintf(f, "%s %.6g\n", #field, m->field);
  MODEL_FIELDS(SAVE)
#undef SAVE
  if (fclose(f) == 0) rename(tmp, path);
  else remove(tmp);
}

/* Slot's model; NULL where it cannot be measured (or the slot has no
 * device). */
static const model *model_get(int slot)
{
  char dir[400], path[600] = "";
  const char *source = "measured";
  dlg_cuda_device *dev;
  double t0;
  model *m = &models[slot];
  int *state = &model_state[slot];
  const int known = __atomic_load_n(state, __ATOMIC_ACQUIRE);
  if (known) return known == 1 ? m : NULL; /* every routed host call asks */
  if (!(dev = dlg_cuda_slot_device(slot))) return NULL; /* not remembered: the caller sees why */
  pthread_mutex_lock(&model_lock);
  t0 = dlg_now();
  if (!*state) {
    const int have_path = cache_path(dev, path, sizeof path, dir, sizeof dir) == 0;
    if (have_path && !dlg_config_get()->recalibrate && load(path, m) == 0) {
      source = "cached";
      __atomic_store_n(state, 1, __ATOMIC_RELEASE);
    } else {
      const int lock = have_path ? lock_measuring(dir) : -1;
      int measured = 1;
      if (lock >= 0 && !dlg_config_get()->recalibrate && load(path, m) == 0) {
        source = "measured meanwhile by another process";
      } else {
        measured = measure(slot, dev, m) ? -1 : 1;
        if (measured == 1 && have_path) save(dir, path, m);
      }
      if (lock >= 0) close(lock); /* and with it the lock */
      __atomic_store_n(state, measured, __ATOMIC_RELEASE);
    }
    if (dlg_config_get()->verbose && *state == 1)
      fprintf(stderr, "dlgemm: host model (%s%s%s, %.1f ms) of cuda:%d: to device %.1f GB/s, to "
              "host %.1f GB/s, staging %.1f GB/s, kernels %.1f / %.1f TFLOP/s (FP32 / FP64), "
              "overhead %.0f us, next BLAS %.2f-%.2f / %.2f-%.2f GFLOP/s\n", source,
              path[0] ? " in " : "", path, (dlg_now() - t0) * 1e3, dev->ordinal, m->to_device * 1e-9, m->to_host * 1e-9, m->staging * 1e-9,
              m->kernel[0] * 1e-12, m->kernel[1] * 1e-12, m->overhead * 1e6, m->cpu[0][0] * 1e-9,
              m->cpu[0][1] * 1e-9, m->cpu[1][0] * 1e-9, m->cpu[1][1] * 1e-9);
  }
  pthread_mutex_unlock(&model_lock);
  return *state == 1 ? m : NULL;
}

/* --- the decision ------------------------------------------------------------ */

/* The next BLAS's rate for g: between its 128^3 and 384^3 rates by the
 * logarithm of the problem's mean dimension, held outside. */
/* The next BLAS's rate on a product of about n^3 (dt 1: FP64). */
static double cpu_rate_at(const model *m, int dt, double n)
{
  double x = log(n / 128.0) / log(384.0 / 128.0);
  x = x < 0 ? 0 : x > 1 ? 1 : x;
  return m->cpu[dt][0] + x * (m->cpu[dt][1] - m->cpu[dt][0]);
}

static double cpu_flops(const model *m, const dlg_gemm *g)
{
  return cpu_rate_at(m, g->dtype == DLG_F64, cbrt((double)g->m * (double)g->n * (double)g->k));
}

/* Whether the GPU (t_gpu seconds) beats the next BLAS (t_cpu), why[]
 * saying so; t_cpu 0: there is no model.  The figures are for the verbose
 * log; formatting them costs more than a small product on the CPU, so
 * quiet calls keep only the verdict. */
static int verdict(double t_gpu, double t_cpu, char *why, size_t why_len)
{
  if (t_cpu <= 0)
    dlg_copy_text(why, why_len, "no host model (the GPU could not be measured)");
  else if (dlg_config_get()->verbose)
    snprintf(why, why_len, "model: GPU %.3g ms %s next BLAS %.3g ms", t_gpu * 1e3,
             t_gpu < t_cpu ? "<" : ">=", t_cpu * 1e3);
  else
    dlg_copy_text(why, why_len, t_gpu < t_cpu ? "model: GPU sooner" : "model: CPU sooner");
  return t_cpu > 0 && t_gpu < t_cpu;
}

/* Slot m's measured rates for dtype class dt (1: FP64), this rank's share
 * of them where several ranks of a job run on the node. */
static dlg_trip_rates rates_of(const model *m, int dt)
{
  const dlg_device_choice *c = dlg_cuda_slots();
  const dlg_trip_rates r = {m->to_device, m->to_host, m->staging, m->kernel[dt]};
  return dlg_trip_share(r, c->node_ranks, c->device_ranks);
}

int dlg_cuda_whole_offload_pays(int slot, dlg_dtype real, double flops, double in, double out,
                                char *why, size_t why_len)
{
  const model *m = model_get(slot);
  const int dt = real == DLG_F64;
  dlg_trip_rates r;
  double t_gpu, t_cpu;
  if (!m) return verdict(0, 0, why, why_len);
  /* nothing overlaps: copies in, the routine, the copy out; the routines
   * are GEMMs of halving sizes, counted at half the 2048^3 rate; the fixed
   * cost twice the engine's (a stream, the pool, a copy each way at least:
   * 100-130 us measured on the H100 against its 55) */
  r = rates_of(m, dt);
  t_gpu = 2 * m->overhead + dlg_trip_whole(&r, in, out, 2 * flops);
  t_cpu = flops / cpu_rate_at(m, dt, cbrt(flops / 2));
  return verdict(t_gpu, t_cpu, why, why_len);
}

/* g through the engine by model m, in seconds. */
static double engine_seconds(const model *m, const dlg_gemm *g)
{
  const double es = (double)dlg_elem_size(g->dtype), batch = (double)g->batch;
  const double mn = (double)g->m * (double)g->n;
  const double in = ((double)g->m * g->k + (double)g->k * g->n + (g->beta != 0 ? mn : 0)) * es;
  const dlg_trip_rates r = rates_of(m, g->dtype == DLG_F64);
  const double tiles = fmin(4.0, fmax((double)g->m, (double)g->n) / 1024.0);
  return m->overhead * batch +
         dlg_trip_pipelined(&r, batch * in, batch * mn * es, dlg_flops(g), tiles);
}

double dlg_cuda_offload_seconds(int slot, const dlg_gemm *g)
{
  const model *m = model_get(slot);
  return m ? engine_seconds(m, g) : -1;
}

int dlg_cuda_offload_pays(int slot, const dlg_gemm *g, char *why, size_t why_len)
{
  const model *m = model_get(slot);
  if (!m) return verdict(0, 0, why, why_len);
  return verdict(engine_seconds(m, g), dlg_flops(g) / cpu_flops(m, g), why, why_len);
}
