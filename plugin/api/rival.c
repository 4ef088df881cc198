/*
 * rival.c - dlgemm against the library a program called (cuBLAS), one
 * class of calls at a time.
 *
 * Routing dlgemm in must never make a program slower, so nothing here
 * guesses: the first call of a class (device, types, precision, each
 * operand's orientation, m, n, k and batch to three significant bits, beta
 * zero or not, 16-byte alignment) is made by both libraries on the caller's
 * stream, alternating, into a scratch copy of C, and the class goes to
 * dlgemm only if its median cost is below RIVAL_MARGIN of the rival's.  A
 * call's cost is the larger of its GPU time (events either side) and the
 * host time it took to queue: a host-bound program (decode steps, small
 * layers) pays the second, a GPU-bound one the first.  The real call is then
 * made once, by the winner, on the caller's C.  Later calls of the class
 * cost a table lookup.  While a CUDA graph is being captured nothing is
 * measured (a measurement syncs): a new class is the rival's in that graph,
 * and a class already dlgemm's is captured as dlgemm's launches, which are
 * legal there - no sync and no host read of device memory, and workspaces
 * from stream-ordered allocations, which a capture records as the graph's
 * own allocation and free nodes (so a replay never shares a workspace with
 * another graph or with eager calls).  Verdicts are kept on disk
 * (rival_cache.h), so a later process looks its classes up at once.
 */
#include <math.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "api/matmul.h"
#include "api/rival.h"
#include "api/rival_cache.h"
#include "api/validate.h"
#include "core/calllog.h"
#include "core/config.h"
#include "cuda/device/driver.h"

#define RIVAL_MARGIN 0.97 /* dlgemm must be 3% faster: noise must not flip a class */
#define RIVAL_REPS 3      /* timed calls of each side, after one untimed each */
#define RIVAL_CLEAR 0.85  /* a first look that gives dlgemm a class by less is looked at again */
#define RIVAL_CONFIRM_REPS 15
#define RIVAL_SLOTS 4096  /* classes remembered; later ones stay with the rival */

enum { CLASS_FREE = 0, CLASS_MEASURING, CLASS_OURS, CLASS_THEIRS };

typedef struct rival_key {
  uint16_t m, n, k, batch;  /* quantized (quantize()) */
  uint8_t device, code_in, bits_in, code_out, bits_out, precision;
  uint8_t orient;            /* 2 bits an operand: which of its strides is 1 */
  uint8_t flags;             /* 1: beta != 0; 2: everything 16-byte aligned */
} rival_key;

typedef struct rival_class {
  rival_key key;
  int state;
} rival_class;

static rival_class table[RIVAL_SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
/* per device: the verdicts' file (rival_cache.h), read once; "" where none */
static char cache_file[DLG_MAX_DEVICES][600];
static int cache_read[DLG_MAX_DEVICES];

void dlg_rival_operand(dlg_rival_call *call, int i, const void *data, uint8_t code, uint8_t bits,
                       int64_t batch, int64_t batch_stride, int64_t rows, int64_t cols,
                       int64_t row_stride, int64_t col_stride)
{
  DLTensor *t = i == 0 ? &call->a : i == 1 ? &call->b : &call->c;
  int64_t *shape = call->shape[i], *strides = call->strides[i];
  int d = 0;
  memset(t, 0, sizeof *t);
  if (batch != 1) {
    shape[d] = batch;
    strides[d++] = batch_stride;
  }
  shape[d] = rows;
  strides[d++] = row_stride;
  shape[d] = cols;
  strides[d++] = col_stride;
  t->data = (void *)data;
  t->ndim = d;
  t->shape = shape;
  t->strides = strides;
  t->dtype.code = code;
  t->dtype.bits = bits;
  t->dtype.lanes = 1;
}

/* Exact to 16, then the leading three bits: a class spans 12-25% of a size. */
static uint16_t quantize(int64_t x)
{
  int e = 0;
  if (x <= 16) return (uint16_t)x;
  while ((x >> e) >= 8) e++;
  return (uint16_t)(16 + e * 8 + (x >> e));
}

static int aligned16(const DLTensor *t)
{
  int i, esize = t->dtype.bits / 8;
  if ((uintptr_t)t->data % 16) return 0;
  for (i = 0; i < t->ndim; i++)
    if (t->strides[i] != 1 && (t->strides[i] * esize) % 16) return 0;
  return 1;
}

static int orientation(const DLTensor *t)
{
  int n = t->ndim;
  return t->strides[n - 2] == 1 ? 1 : t->strides[n - 1] == 1 ? 2 : 3;
}

static rival_key key_of(const dlg_rival_call *c)
{
  rival_key k;
  int n = c->a.ndim;
  memset(&k, 0, sizeof k);
  k.m = quantize(c->a.shape[n - 2]);
  k.k = quantize(c->a.shape[n - 1]);
  k.n = quantize(c->b.shape[c->b.ndim - 1]);
  k.batch = quantize(c->c.ndim == 3 ? c->c.shape[0] : 1);
  k.device = (uint8_t)c->c.device.device_id;
  k.code_in = c->a.dtype.code;
  k.bits_in = c->a.dtype.bits;
  k.code_out = c->c.dtype.code;
  k.bits_out = c->c.dtype.bits;
  k.precision = (uint8_t)c->precision;
  k.orient = (uint8_t)(orientation(&c->a) | orientation(&c->b) << 2 | orientation(&c->c) << 4 |
                       (c->a.ndim == 3 && c->a.strides[0] == 0) << 6 |
                       (c->b.ndim == 3 && c->b.strides[0] == 0) << 7);
  k.flags = (uint8_t)((c->beta != 0) | (aligned16(&c->a) && aligned16(&c->b) && aligned16(&c->c)) << 1);
  return k;
}

/* The class's slot, with its state in *state; NULL (*state CLASS_FREE)
 * where the class is not there and claim is 0, or the table is full.  With
 * claim, a class not there takes a free slot, marked CLASS_MEASURING: its
 * caller measures it.  Under table_lock. */
static rival_class *slot_of(const rival_key *k, int claim, int *state)
{
  uint64_t h = 1469598103934665603ull;
  const unsigned char *p = (const unsigned char *)k;
  size_t i;
  *state = CLASS_FREE;
  for (i = 0; i < sizeof *k; i++) h = (h ^ p[i]) * 1099511628211ull;
  for (i = 0; i < RIVAL_SLOTS; i++) {
    rival_class *s = &table[(h + i) % RIVAL_SLOTS];
    if (s->state == CLASS_FREE) {
      if (!claim) return NULL;
      s->key = *k;
      s->state = CLASS_MEASURING;
      return s;
    }
    if (!memcmp(&s->key, k, sizeof *k)) {
      *state = s->state;
      return s;
    }
  }
  return NULL;
}

static int ours(dlg_rival_call *c)
{
  dlgemm_options o;
  dlgemm_options_init(&o);
  o.backend = DLGEMM_BACKEND_CUDA;
  o.precision = c->precision;
  o.stream = c->stream;
  return dlg_matmul_from(c->routine, &c->a, &c->b, &c->c, c->alpha, c->beta, &o) == DLGEMM_OK;
}

/* Elements from C's first to its last, inclusive. */
static size_t extent(const DLTensor *t)
{
  int64_t last = 0;
  int i;
  for (i = 0; i < t->ndim; i++) last += (t->shape[i] - 1) * t->strides[i];
  return (size_t)last + 1;
}

static int by_value(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, by_value);
  return v[n / 2];
}

/* One look at both sides on C's scratch copy: `reps` timed calls of each
 * after one untimed each, alternating ABBA so that a drift falls on both;
 * each side's cost (the larger of its median GPU and host times) in cost[],
 * the medians in gpu[] / host[].  0 where a call or an event failed (the
 * stream is then synchronized: nothing may still use the scratch). */
static int look(const dlg_cuda_api *cu, dlg_rival_call *c, CUevent *ev, int reps, double cost[2],
                double gpu_med[2], double host_med[2])
{
  const int runs = 2 * (reps + 1);
  CUstream s = (CUstream)c->stream;
  double gpu[2][RIVAL_CONFIRM_REPS], host[2][RIVAL_CONFIRM_REPS], t0;
  int r, side, ok = 1;
  float ms;
  /* run r: side r % 2 first in even pairs, second in odd ones (ABBA) */
  for (r = 0; r < runs && ok; r++) {
    side = (r ^ (r >> 1)) & 1; /* 0 dlgemm, 1 the rival */
    ok = cu->EventRecord(ev[2 * r], s) == CUDA_SUCCESS;
    t0 = dlg_now();
    ok = ok && (side == 0 ? ours(c) : c->theirs(c, c->c.data) == 0);
    if (r >= 2) host[side][(r - 2) / 2] = dlg_now() - t0;
    ok = ok && cu->EventRecord(ev[2 * r + 1], s) == CUDA_SUCCESS;
  }
  if (!ok || cu->EventSynchronize(ev[2 * runs - 1]) != CUDA_SUCCESS) {
    cu->StreamSynchronize(s);
    return 0;
  }
  for (r = 2; r < runs && ok; r++) {
    side = (r ^ (r >> 1)) & 1;
    ok = cu->EventElapsedTime(&ms, ev[2 * r], ev[2 * r + 1]) == CUDA_SUCCESS;
    gpu[side][(r - 2) / 2] = ms * 1e-3;
  }
  for (side = 0; side < 2 && ok; side++) {
    gpu_med[side] = median(gpu[side], reps);
    host_med[side] = median(host[side], reps);
    cost[side] = fmax(gpu_med[side], host_med[side]);
  }
  return ok;
}

/* Both sides on a scratch C: CLASS_OURS or CLASS_THEIRS, and *measured 1
 * where that is a measurement (not a failure to make one).  A first look
 * of RIVAL_REPS decides a class the rival wins, or that dlgemm wins by
 * RIVAL_CLEAR; a closer win is looked at again with RIVAL_CONFIRM_REPS, and
 * only that look decides.  With three calls a side, the noise of a class
 * where both are within a few percent (most of the torch models' classes,
 * bench/NOTES.md sessions 30 and 34) can hand it to dlgemm now and then;
 * the models toggled in one process lost 0.5-1.6% with routing on
 * (sessions 32-33); with this second look GPT-2 training toggled at 0.999,
 * every class cuBLAS's (session 40, two rounds on an H100). */
static int measure(const dlg_cuda_api *cu, dlg_rival_call *c, int *measured)
{
  enum { EVENTS = 4 * (RIVAL_CONFIRM_REPS + 1) };
  size_t bytes = extent(&c->c) * (c->c.dtype.bits / 8);
  CUdeviceptr scratch = 0;
  CUevent ev[EVENTS];
  double gpu_med[2], host_med[2], cost[2];
  void *real = c->c.data;
  int ok = 1, made = 0, reps = RIVAL_REPS, verdict = CLASS_THEIRS;

  if (cu->MemAlloc(&scratch, bytes) != CUDA_SUCCESS) return CLASS_THEIRS;
  if (c->beta != 0 &&
      cu->MemcpyDtoDAsync(scratch, (CUdeviceptr)real, bytes, (CUstream)c->stream) != CUDA_SUCCESS)
    ok = 0;
  for (; made < EVENTS && ok; made++) ok = cu->EventCreate(&ev[made], CU_EVENT_DEFAULT) == CUDA_SUCCESS;
  c->c.data = (void *)scratch;
  ok = ok && look(cu, c, ev, reps, cost, gpu_med, host_med);
  if (ok && cost[0] < RIVAL_MARGIN * cost[1] && cost[0] >= RIVAL_CLEAR * cost[1]) {
    reps = RIVAL_CONFIRM_REPS;
    ok = look(cu, c, ev, reps, cost, gpu_med, host_med);
  }
  c->c.data = real;
  if (!ok) cu->StreamSynchronize((CUstream)c->stream); /* nothing may still use the scratch */
  if (ok) {
    verdict = cost[0] < RIVAL_MARGIN * cost[1] ? CLASS_OURS : CLASS_THEIRS;
    *measured = 1;
    if (dlg_config_get()->verbose)
      fprintf(stderr, "dlgemm: %s class of m=%lld n=%lld k=%lld batch=%lld measured: dlgemm "
              "%.1f us (GPU %.1f, host %.1f), the rival %.1f us (GPU %.1f, host %.1f) -> %s"
              " (%d runs a side)\n",
              c->routine, (long long)c->a.shape[c->a.ndim - 2],
              (long long)c->b.shape[c->b.ndim - 1], (long long)c->a.shape[c->a.ndim - 1],
              (long long)(c->c.ndim == 3 ? c->c.shape[0] : 1), cost[0] * 1e6, gpu_med[0] * 1e6,
              host_med[0] * 1e6, cost[1] * 1e6, gpu_med[1] * 1e6, host_med[1] * 1e6,
              verdict == CLASS_OURS ? "dlgemm" : "the rival", reps);
  }
  while (made > 0) cu->EventDestroy(ev[--made]);
  cu->MemFree(scratch);
  return verdict;
}

/* A verdict from the file: the file is the device's, whatever its ordinal
 * was when the verdict was made.  Under table_lock. */
static void put_verdict(const void *key, int ours, void *ctx)
{
  rival_key k;
  rival_class *s;
  int state;
  memcpy(&k, key, sizeof k);
  k.device = (uint8_t)*(const int *)ctx;
  if ((s = slot_of(&k, 1, &state))) s->state = ours ? CLASS_OURS : CLASS_THEIRS;
}

/* The device's verdicts from earlier processes, the first time it is seen. */
static void read_verdicts(const dlg_cuda_api *cu, CUdevice dev, const dlg_rival_call *c)
{
  char name[128] = "", bus[32] = "", tag[170];
  int ordinal = (int)dev;
  pthread_mutex_lock(&table_lock);
  if (!cache_read[ordinal]) {
    cu->DeviceGetName(name, sizeof name, dev);
    cu->DeviceGetPCIBusId(bus, sizeof bus, dev);
    snprintf(tag, sizeof tag, "%s-%s", name, bus);
    if (dlg_rival_cache_path(tag, (const void *)c->theirs, cache_file[ordinal],
                             sizeof cache_file[ordinal]))
      cache_file[ordinal][0] = '\0';
    else if (!dlg_config_get()->recalibrate)
      dlg_rival_cache_load(cache_file[ordinal], sizeof(rival_key), put_verdict, &ordinal);
    __atomic_store_n(&cache_read[ordinal], 1, __ATOMIC_RELEASE); /* the file's name is set */
  }
  pthread_mutex_unlock(&table_lock);
}

/* 1 until dlgemm_route_cublas(0): the program's switch over the mode */
static int route_on = 1;

DLGEMM_API int dlgemm_route_cublas(int on)
{
  return __atomic_exchange_n(&route_on, on != 0, __ATOMIC_RELAXED);
}

int dlg_rival_enabled(void)
{
  return dlg_config_get()->rival != DLG_RIVAL_OFF && __atomic_load_n(&route_on, __ATOMIC_RELAXED);
}

/* Whether a CUDA graph is being captured on the stream (or the driver
 * cannot say: then as if it were). */
static int capturing(const dlg_cuda_api *cu, void *stream)
{
  CUstreamCaptureStatus capture;
  return cu->StreamIsCapturing((CUstream)stream, &capture) != CUDA_SUCCESS ||
         capture != CU_STREAM_CAPTURE_STATUS_NONE;
}

int dlg_rival_take(dlg_rival_call *c)
{
  const dlg_config *cfg = dlg_config_get();
  const dlg_cuda_api *cu;
  CUdevice dev;
  rival_class *slot = NULL;
  rival_key key;
  char why[160];
  int state = CLASS_FREE;

  if (!dlg_rival_enabled() || !(cu = dlg_cuda_api_get(why, sizeof why))) return 0;
  if (cu->CtxGetDevice(&dev) != CUDA_SUCCESS || dev < 0 || dev >= DLG_MAX_DEVICES) return 0;
  c->a.device.device_type = c->b.device.device_type = c->c.device.device_type = kDLCUDA;
  c->a.device.device_id = c->b.device.device_id = c->c.device.device_id = (int32_t)dev;
  if (cfg->rival == DLG_RIVAL_ON) return ours(c);

  /* a class the rival has (or another thread is measuring) costs this lookup
   * and nothing more: the capture is asked only where a class is new, since
   * nothing is measured while a graph is captured (a measurement syncs) */
  if (!__atomic_load_n(&cache_read[dev], __ATOMIC_ACQUIRE)) read_verdicts(cu, dev, c);
  key = key_of(c);
  pthread_mutex_lock(&table_lock);
  slot = slot_of(&key, 0, &state);
  pthread_mutex_unlock(&table_lock);
  c->settled = state == CLASS_THEIRS;
  if (state == CLASS_THEIRS || state == CLASS_MEASURING) return 0;
  if (state == CLASS_FREE) {
    if (capturing(cu, c->stream)) return 0;
    pthread_mutex_lock(&table_lock);
    slot = slot_of(&key, 1, &state);
    pthread_mutex_unlock(&table_lock);
    if (!slot) return 0; /* the table is full: the rival has every new class */
    if (state == CLASS_FREE) { /* claimed here */
      int measured = 0;
      state = measure(cu, c, &measured);
      pthread_mutex_lock(&table_lock);
      slot->state = state;
      pthread_mutex_unlock(&table_lock);
      if (measured && cache_file[dev][0])
        dlg_rival_cache_save(cache_file[dev], &key, sizeof key, state == CLASS_OURS);
    }
  }
  if (state != CLASS_OURS) {
    c->settled = state == CLASS_THEIRS;
    return 0;
  }
  if (ours(c)) return 1;
  pthread_mutex_lock(&table_lock); /* refused or failed: the rival has the class from now on */
  slot->state = CLASS_THEIRS;
  pthread_mutex_unlock(&table_lock);
  c->settled = 1;
  return 0;
}
