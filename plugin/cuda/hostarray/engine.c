/*
 * engine.c - the host-array engine: sgemm_/dgemm_ on malloc'ed memory
 * at the speed of the PCIe link rather than of a single memcpy.
 *
 * C is cut into tiles; tile (i, j) needs row panel i of A and column panel
 * j of B.  Panels go to the device once each, in the order A0 B0 B1 A1 B2
 * A2 ..., and every tile whose two panels are queued is launched at once on
 * one of three compute streams, behind the panels' events: the first tile
 * starts after two panels, and the GPU then computes while the rest arrive.
 * Finished tiles come back on their own stream (PCIe is full duplex).
 *
 * Pageable memory cannot be DMA'd; it goes through pinned chunks, allocated
 * once per process (DLGEMM_PINNED_MB), that the copy pool's threads fill
 * while the copy engine drains earlier ones.  Already page-locked operands
 * (cudaHostRegister'ed, cudaMallocHost'ed, kDLCUDAHost) are DMA'd directly.
 * With beta = 0, C is never read.
 *
 * Failure.  The caller's C is written only from pinned chunks whose copy
 * finished, a tile's lines in order, so at any moment each tile is known to
 * be done up to a line.  Until the first line is written a failure returns
 * a status and the caller falls back with C untouched; after it, the engine
 * stops, lets the device drain, and finishes every unfinished line range on
 * the next BLAS - the same answer - and notes the fallback.
 * DLGEMM_INJECT_FAULT makes the n-th allocation, launch or copy fail.
 *
 * One engine per slot (hostarray/slots.h): cuda/spread.c runs the blocks
 * of one call on several at once, each on its own thread.  Those blocks all
 * read one operand whole; with DLGEMM_PEER each of its panels crosses from
 * the host to one device, and the others copy it from there (gpu/share.h:
 * the handshake; here, the copies and the frees that wait for them).
 */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/calllog.h"
#include "core/config.h"
#include "core/errors.h"
#include "cpu/backend.h"
#include "cuda/device/driver.h"
#include "cuda/device/gemm.h"
#include "cuda/hostarray/copy_pool.h"
#include "cuda/hostarray/engine.h"
#include "cuda/hostarray/slots.h"
#include "gpu/staging.h"

/* The host-array engine's state: streams, pinned staging chunks and events,
 * made on its first call and kept; one call at a time holds the lock.  One
 * per slot, beside (not inside) the device's state: the device layer knows
 * nothing of host arrays, and a device listed twice has two engines. */
enum { DLG_OFFLOAD_COMPUTE_STREAMS = 3 };
typedef struct dlg_offload {
  pthread_mutex_t lock;
  int ready;
  CUstream h2d, d2h, compute[DLG_OFFLOAD_COMPUTE_STREAMS];
  CUstream peer;         /* panels copied from another part's device */
  char *pinned;          /* nin + nout chunks of `chunk` bytes */
  size_t chunk;
  size_t pinned_more;    /* DLGEMM_PINNED_MB's bytes while the chunks are fewer, else 0 */
  int nin, nout;
  CUevent *chunk_done;   /* per chunk: its last copy finished */
  int *chunk_busy;
  CUevent *events;       /* grow-only: panels arrived, tiles computed */
  int nevents;
  int threads;           /* copy pool parallelism */
  size_t budget;         /* device bytes one call may hold */
} dlg_offload;

static dlg_offload engines[DLG_MAX_DEVICES];
static pthread_once_t engines_once = PTHREAD_ONCE_INIT;

static void init_locks(void)
{
  int i;
  for (i = 0; i < DLG_MAX_DEVICES; i++) pthread_mutex_init(&engines[i].lock, NULL);
}

static dlg_offload *engine_of(int slot)
{
  pthread_once(&engines_once, init_locks);
  return &engines[slot];
}

/* One transfer to the device: a panel of A or B, or a tile of C (beta != 0). */
typedef struct item {
  dlg_matrix view; /* the caller's submatrix */
  dlg_lines lines;
  CUdeviceptr dev;
  int event;       /* recorded once its copies are queued */
  int pinned;
  int published;   /* a shared panel this part sent: others may be copying it */
} item;

typedef struct tile {
  int64_t r0, c0, rows, cols;
  dlg_lines lines; /* the caller's C lines of the tile */
  CUdeviceptr dev;
  int event;       /* recorded after its kernel */
  size_t queued, done; /* lines copied back to chunks / to the caller */
} tile;

typedef struct job {
  dlg_cuda_device *dev;
  const dlg_cuda_api *cu;
  dlg_offload *o;
  const dlg_gemm *g;
  size_t es;
  int64_t k; /* 0 when alpha = 0: A and B are not read */
  int ni, nj;
  item *a, *b, *cin;
  tile *t;
  int *order; /* tiles in launch order */
  int launched, next_out; /* positions in order[] */
  int in_next, out_head, out_count;
  struct { int tile; size_t line0, lines; } *outq;
  CUresult err;
  const char *step;
  int touched; /* some of the caller's C has been written */
  const dlg_offload_share *share; /* NULL: no panels shared with other parts */
  /* DLGEMM_VERBOSE's timeline: seconds in host copies, and when the first
   * tile was launched and the last panel queued; the most copy threads */
  double t0, gather, scatter, first_launch, sent;
  int threads;
} job;

static void note_threads(job *j, int threads)
{
  if (threads > j->threads) j->threads = threads;
}

static int failed(job *j, CUresult r, const char *step)
{
  if (r && !j->err) j->err = r, j->step = step;
  return r != CUDA_SUCCESS;
}

/* --- the engine's lasting state -------------------------------------------- */

/* Page-locked chunks of about `bytes` (4 MB at least; page-locking can be
 * refused - ulimit, a container - so settle for less), in place of the
 * engine's own: between calls, when none is busy.  Where none can be had
 * at all, the engine keeps those it has. */
static CUresult pin(const dlg_cuda_api *cu, dlg_offload *o, size_t bytes)
{
  char *pinned = NULL;
  CUevent *done;
  int *busy, i, n;
  size_t chunk;
  CUresult r;
  if (bytes < (4u << 20)) bytes = 4u << 20;
  while ((r = cu->MemHostAlloc((void **)&pinned, bytes, 0)) && bytes > (4u << 20)) bytes /= 2;
  if (r) return o->pinned ? CUDA_SUCCESS : r;
  chunk = bytes / 32 < (1u << 20) ? (1u << 20) : bytes / 32;
  n = (int)(bytes / chunk);
  done = calloc((size_t)n, sizeof *done), busy = calloc((size_t)n, sizeof *busy);
  for (i = 0; done && busy && i < n && !r; i++)
    r = cu->EventCreate(&done[i], CU_EVENT_DISABLE_TIMING);
  if (!done || !busy || r) {
    while (done && i-- > 0) cu->EventDestroy(done[i]);
    cu->MemFreeHost(pinned);
    free(done), free(busy);
    return o->pinned ? CUDA_SUCCESS : r ? r : CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (o->pinned) {
    for (i = 0; i < o->nin + o->nout; i++) cu->EventDestroy(o->chunk_done[i]);
    cu->MemFreeHost(o->pinned);
    free(o->chunk_done), free(o->chunk_busy);
  }
  o->pinned = pinned, o->chunk = chunk, o->chunk_done = done, o->chunk_busy = busy;
  o->nout = n / 4 < 2 ? 2 : n / 4, o->nin = n - o->nout;
  return CUDA_SUCCESS;
}

/* The chunks a first call starts with: page-locking costs about 0.5 ms a
 * MB (256 MB: 144 ms on the H100's host, more than a cuBLAS program takes
 * to its first result), so the engine starts small and grows once. */
#define FIRST_PINNED ((size_t)16 << 20)

/* All of DLGEMM_PINNED_MB, once a call moves more than four times the
 * chunks there are (and before the link is measured): fewer chunks would
 * cost such a call its overlap. */
static void grow(const dlg_cuda_api *cu, dlg_offload *o, double moved)
{
  const size_t have = o->chunk * (size_t)(o->nin + o->nout);
  if (!o->pinned_more || moved <= 4.0 * (double)have) return;
  pin(cu, o, o->pinned_more);
  o->pinned_more = 0; /* whatever it gave: not asked again */
}

static CUresult setup(int slot, dlg_cuda_device *dev, const dlg_cuda_api *cu)
{
  dlg_offload *o = engine_of(slot);
  const dlg_config *cfg = dlg_config_get();
  const int sharers = dlg_cuda_slot_sharers(slot);
  const size_t bytes = (size_t)(cfg->pinned_mb * 1048576.0);
  size_t total = 0, freeb = 0;
  cuuint64_t keep;
  CUresult r;
  int i;
  if ((r = cu->StreamCreate(&o->h2d, CU_STREAM_NON_BLOCKING)) ||
      (r = cu->StreamCreate(&o->d2h, CU_STREAM_NON_BLOCKING)) ||
      (r = cu->StreamCreate(&o->peer, CU_STREAM_NON_BLOCKING)))
    return r;
  for (i = 0; i < DLG_OFFLOAD_COMPUTE_STREAMS; i++)
    if ((r = cu->StreamCreate(&o->compute[i], CU_STREAM_NON_BLOCKING))) return r;
  if ((r = pin(cu, o, bytes < FIRST_PINNED ? bytes : FIRST_PINNED))) return r;
  o->pinned_more = bytes > FIRST_PINNED ? bytes : 0;
  o->threads = dlg_copy_threads_default();
  /* Half the GPU unless told, shared by the slots on it, and let dlgemm's
   * pool keep that much between calls: re-mapping gigabytes each call
   * would cost milliseconds. */
  if ((r = cu->MemGetInfo(&freeb, &total))) return r;
  keep = cfg->device_mb > 0 ? (cuuint64_t)(cfg->device_mb * 1048576.0) : total / 2;
  o->budget = (size_t)(keep / (cuuint64_t)sharers);
  return cu->MemPoolSetAttribute(dev->pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
}

/* At least n events in the grow-only pool (panels arrived, tiles computed). */
static CUresult reserve_events(const dlg_cuda_api *cu, dlg_offload *o, int n)
{
  CUevent *grown;
  CUresult r;
  if (n <= o->nevents) return CUDA_SUCCESS;
  if (!(grown = realloc(o->events, (size_t)n * sizeof *grown))) return CUDA_ERROR_OUT_OF_MEMORY;
  o->events = grown;
  for (; o->nevents < n; o->nevents++)
    if ((r = cu->EventCreate(&o->events[o->nevents], CU_EVENT_DISABLE_TIMING))) return r;
  return CUDA_SUCCESS;
}

/* --- views ----------------------------------------------------------------- */

static dlg_matrix sub(const dlg_matrix *x, int64_t r0, int64_t rows, int64_t c0, int64_t cols,
                      size_t es)
{
  dlg_matrix s = *x;
  s.data = (char *)x->data + (size_t)(r0 * x->rs + c0 * x->cs) * es;
  s.rows = rows, s.cols = cols, s.bs = 0;
  return s;
}

static dlg_lines lines_of(const dlg_matrix *x, size_t es)
{
  dlg_copy2d c = dlg_staged_copy(x, 0, es);
  dlg_lines l = {c.host, c.width, c.pitch, c.height};
  return l;
}

/* Whether the driver knows this host byte as page-locked.  The plural
 * cuPointerGetAttributes answers "unknown" for pageable memory instead of
 * failing, so probing leaves no error behind (compute-sanitizer reports
 * every failed call). */
static int pinned_byte(const dlg_cuda_api *cu, const char *p)
{
  CUpointer_attribute what = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
  unsigned type = 0;
  void *out = &type;
  return cu->PointerGetAttributes(1, &what, &out, (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS &&
         type == CU_MEMORYTYPE_HOST;
}

static int is_pinned(const dlg_cuda_api *cu, const dlg_lines *l)
{
  return l->width && l->height && pinned_byte(cu, l->base) &&
         pinned_byte(cu, l->base + (l->height - 1) * l->pitch + l->width - 1);
}

/* --- copies back: tiles' lines through the out-chunks, in launch order ---- */

static char *out_chunk(const job *j, int slot) { return j->o->pinned + (size_t)(j->o->nin + slot) * j->o->chunk; }

/* Move finished out-chunks to the caller's C and queue more; 1 on progress. */
static int service_output(job *j)
{
  const dlg_cuda_api *cu = j->cu;
  dlg_offload *o = j->o;
  int progress = 0;
  while (j->out_count > 0 && !j->err) {
    const int slot = j->out_head;
    tile *t = &j->t[j->outq[slot].tile];
    CUresult q = cu->EventQuery(o->chunk_done[o->nin + slot]);
    if (q == CUDA_ERROR_NOT_READY) break;
    if (failed(j, q, "copy to host")) return 0;
    /* only now, and a tile's lines in order, does the caller's C change */
    {
      const double t0 = dlg_now();
      note_threads(j, dlg_copy_lines(&t->lines, j->outq[slot].line0 * t->lines.width,
                                     j->outq[slot].lines * t->lines.width, out_chunk(j, slot), 0,
                                     o->threads));
      j->scatter += dlg_now() - t0;
    }
    t->done += j->outq[slot].lines;
    j->touched = 1;
    j->out_head = (slot + 1) % o->nout, j->out_count--, progress = 1;
  }
  while (j->out_count < o->nout && j->next_out < j->launched && !j->err) {
    tile *t = &j->t[j->order[j->next_out]];
    const int slot = (j->out_head + j->out_count) % o->nout;
    size_t n = o->chunk / t->lines.width;
    if (n > t->lines.height - t->queued) n = t->lines.height - t->queued;
    if (!t->queued && failed(j, cu->StreamWaitEvent(o->d2h, o->events[t->event], 0), "copy to host"))
      return 0;
    if (failed(j, cu->MemcpyDtoHAsync(out_chunk(j, slot), t->dev + t->queued * t->lines.width,
                                      n * t->lines.width, o->d2h), "copy to host") ||
        failed(j, cu->EventRecord(o->chunk_done[o->nin + slot], o->d2h), "copy to host"))
      return 0;
    j->outq[slot].tile = j->order[j->next_out], j->outq[slot].line0 = t->queued;
    j->outq[slot].lines = n;
    j->out_count++, progress = 1;
    if ((t->queued += n) == t->lines.height) j->next_out++;
  }
  return progress;
}

/* --- copies in ------------------------------------------------------------ */

static CUresult alloc(job *j, CUdeviceptr *p, size_t bytes, CUstream s)
{
  if (dlg_fault_injected(DLG_FAULT_OOM)) return CUDA_ERROR_OUT_OF_MEMORY;
  return j->cu->MemAllocFromPoolAsync(p, bytes ? bytes : 256, j->dev->pool, s);
}

/* Wait until in-chunk k's last copy is done, returning tiles meanwhile. */
static int wait_chunk(job *j, int k)
{
  dlg_offload *o = j->o;
  while (o->chunk_busy[k]) {
    CUresult q = j->cu->EventQuery(o->chunk_done[k]);
    if (q == CUDA_SUCCESS) o->chunk_busy[k] = 0;
    else if (q != CUDA_ERROR_NOT_READY) return !failed(j, q, "copy to device");
    else if (!service_output(j) && !j->err) sched_yield();
    if (j->err) return 0;
  }
  return 1;
}

/* One 2-D copy between host memory (lines hpitch bytes apart) and device
 * memory (dpitch apart): height lines of width bytes, either way. */
static CUDA_MEMCPY2D copy2d(const void *host, size_t hpitch, CUdeviceptr d, size_t dpitch,
                            size_t width, size_t height, int to_device)
{
  CUDA_MEMCPY2D c;
  memset(&c, 0, sizeof c);
  if (to_device) {
    c.srcMemoryType = CU_MEMORYTYPE_HOST, c.srcHost = host, c.srcPitch = hpitch;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE, c.dstDevice = d, c.dstPitch = dpitch;
  } else {
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE, c.srcDevice = d, c.srcPitch = dpitch;
    c.dstMemoryType = CU_MEMORYTYPE_HOST, c.dstHost = (void *)host, c.dstPitch = hpitch;
  }
  c.WidthInBytes = width, c.Height = height;
  return c;
}

/* Queue x's copy to its device buffer; record its event behind it. */
static int send(job *j, item *x)
{
  const dlg_cuda_api *cu = j->cu;
  dlg_offload *o = j->o;
  const size_t bytes = x->lines.width * x->lines.height;
  size_t off, len;
  if (failed(j, alloc(j, &x->dev, bytes, o->h2d), "device allocation")) return 0;
  if (x->pinned) {
    const CUDA_MEMCPY2D c = copy2d(x->lines.base, x->lines.pitch, x->dev, x->lines.width,
                                   x->lines.width, x->lines.height, 1);
    if (failed(j,
               dlg_fault_injected(DLG_FAULT_COPY) ? CUDA_ERROR_UNKNOWN
                                                  : cu->Memcpy2DAsync(&c, o->h2d),
               "copy to device"))
      return 0;
  }
  for (off = 0; !x->pinned && off < bytes; off += len) {
    const int k = j->in_next;
    char *buf = o->pinned + (size_t)k * o->chunk;
    len = bytes - off < o->chunk ? bytes - off : o->chunk;
    j->in_next = (k + 1) % o->nin;
    if (!wait_chunk(j, k)) return 0;
    {
      const double t0 = dlg_now();
      note_threads(j, dlg_copy_lines(&x->lines, off, len, buf, 1, o->threads));
      j->gather += dlg_now() - t0;
    }
    if (failed(j, dlg_fault_injected(DLG_FAULT_COPY) ? CUDA_ERROR_UNKNOWN
                                            : cu->MemcpyHtoDAsync(x->dev + off, buf, len, o->h2d),
               "copy to device") ||
        failed(j, cu->EventRecord(o->chunk_done[k], o->h2d), "copy to device"))
      return 0;
    o->chunk_busy[k] = 1;
  }
  return !failed(j, cu->EventRecord(o->events[x->event], o->h2d), "copy to device");
}

/* --- panels shared with the other parts of a split call (gpu/share.h) ---- */

/* x, a panel every part reads, copied from the device of the part that
 * sent it from the host, on the peer stream behind that part's event.  The
 * owner frees its copy once told (dlg_share_taken): a copy queued by a
 * call that then failed is waited for first. */
static int copy_from_peer(job *j, item *x, int panel, const dlg_share_copy *c)
{
  const dlg_cuda_api *cu = j->cu;
  dlg_offload *o = j->o;
  const size_t bytes = x->lines.width * x->lines.height;
  const CUcontext from = (CUcontext)c->context;
  CUresult r = alloc(j, &x->dev, bytes, o->peer);
  int queued = 0;
  if (!r) r = cu->StreamWaitEvent(o->peer, (CUevent)c->ready, 0);
  if (!r)
    r = dlg_fault_injected(DLG_FAULT_COPY) ? CUDA_ERROR_UNKNOWN
        : from == j->dev->ctx ? cu->MemcpyDtoDAsync(x->dev, c->where, bytes, o->peer)
                              : cu->MemcpyPeerAsync(x->dev, j->dev->ctx, c->where, from, bytes, o->peer);
  queued = !r;
  if (!r) r = cu->EventRecord(o->events[x->event], o->peer);
  if (r && queued) cu->StreamSynchronize(o->peer);
  dlg_share_taken(j->share->board, panel, j->share->part, r ? NULL : o->events[x->event]);
  return !failed(j, r, "copy between devices");
}

/* Panel `panel` of an operand (0: A, 1: B).  The shared one's owner sends
 * it from the host and publishes it; the other parts copy the owner's, or
 * send it from the host too where the owner left without it. */
static int send_panel(job *j, item *x, int panel, int operand)
{
  dlg_share_copy c;
  if (!j->share || j->share->operand != operand) return send(j, x);
  if (dlg_share_owner(j->share->board, panel) == j->share->part) {
    if (!send(j, x)) return 0;
    c.where = x->dev, c.ready = j->o->events[x->event], c.context = j->dev->ctx;
    dlg_share_publish(j->share->board, panel, &c);
    return x->published = 1;
  }
  return dlg_share_take(j->share->board, panel, &c) ? copy_from_peer(j, x, panel, &c) : send(j, x);
}

/* Free panel x's device copy on the h2d stream, after the other parts'
 * copies of it where it was shared. */
static void free_panel(job *j, item *x, int panel)
{
  void *copied[DLG_MAX_DEVICES];
  int n = x->published ? dlg_share_readers(j->share->board, panel, copied) : 0;
  while (n-- > 0) j->cu->StreamWaitEvent(j->o->h2d, (CUevent)copied[n], 0);
  if (x->dev) j->cu->MemFreeAsync(x->dev, j->o->h2d);
}

/* --- tiles ----------------------------------------------------------------- */

/* Tile t = i * nj + jj, behind its panels (and its C, when beta != 0). */
static int launch(job *j, int t)
{
  const dlg_cuda_api *cu = j->cu;
  dlg_offload *o = j->o;
  tile *x = &j->t[t];
  item *a = &j->a[t / j->nj], *b = &j->b[t % j->nj];
  CUstream s = o->compute[j->launched % DLG_OFFLOAD_COMPUTE_STREAMS];
  dlg_gemm d = *j->g;
  if (j->cin) {
    if (!send(j, &j->cin[t])) return 0;
    x->dev = j->cin[t].dev;
    if (failed(j, cu->StreamWaitEvent(s, o->events[j->cin[t].event], 0), "kernel launch"))
      return 0;
  } else if (failed(j, alloc(j, &x->dev, x->lines.width * x->lines.height, s),
                    "device allocation")) {
    return 0;
  }
  if (failed(j, cu->StreamWaitEvent(s, o->events[a->event], 0), "kernel launch") ||
      failed(j, cu->StreamWaitEvent(s, o->events[b->event], 0), "kernel launch"))
    return 0;
  d.place = DLG_CUDA, d.batch = 1, d.m = x->rows, d.n = x->cols, d.k = j->k;
  d.a = dlg_staged_view(&a->view, a->dev);
  d.b = dlg_staged_view(&b->view, b->dev);
  d.c = dlg_staged_view(&(dlg_matrix){NULL, x->rows, x->cols, j->g->c.rs, j->g->c.cs, 0}, x->dev);
  if (dlg_fault_injected(DLG_FAULT_LAUNCH))
    return !failed(j, CUDA_ERROR_LAUNCH_FAILED, "kernel launch");
  if (dlg_cuda_gemm(j->dev, &d, s) != DLGEMM_OK)
    return !failed(j, CUDA_ERROR_LAUNCH_FAILED, "kernel launch");
  if (failed(j, cu->EventRecord(o->events[x->event], s), "kernel launch")) return 0;
  if (!j->launched) j->first_launch = dlg_now() - j->t0;
  j->order[j->launched++] = t;
  return 1;
}

/* Send A0 B0 B1 A1 B2 A2 ..., launching each tile as soon as both its
 * panels are queued; then wait for every tile to come back. */
static void run_job(job *j)
{
  int r, i, jj, sa = 0, sb = 0;
  const int n = j->ni > j->nj ? j->ni : j->nj;
  for (r = 0; r < n && !j->err; r++) {
    int pass;
    for (pass = 0; pass < 2 && !j->err; pass++) {
      /* r = 0: A then B; afterwards B then A (the square grows by a column,
       * then a row) */
      const int is_a = (r == 0) == (pass == 0);
      if (is_a && r < j->ni) {
        if (!send_panel(j, &j->a[r], r, 0)) return;
        sa = r + 1;
        for (jj = 0; jj < sb && !j->err; jj++) launch(j, r * j->nj + jj);
      } else if (!is_a && r < j->nj) {
        if (!send_panel(j, &j->b[r], r, 1)) return;
        sb = r + 1;
        for (i = 0; i < sa && !j->err; i++) launch(j, i * j->nj + r);
      }
      service_output(j);
    }
  }
  j->sent = dlg_now() - j->t0;
  while (!j->err && (j->next_out < j->launched || j->out_count))
    if (!service_output(j) && !j->err) sched_yield();
}

/* --- one matrix through the engine --------------------------------------- */

/* Tile extent along a dimension of x: whole up to 1024, else about a
 * quarter, a multiple of 256 in [512, 2048] - big enough for the kernels to
 * fill the GPU, small enough that the first tile starts early. */
static int64_t tile_extent(int64_t x)
{
  int64_t t = (x / 4 + 255) / 256 * 256;
  if (x <= 1024) return x;
  return t < 512 ? 512 : t > 2048 ? 2048 : t;
}

int dlg_cuda_offload_panels(int64_t extent)
{
  return extent > 0 ? (int)((extent + tile_extent(extent) - 1) / tile_extent(extent)) : 0;
}

/* What the tiles' unfinished lines need from the next BLAS. */
static int finish_on_cpu(job *j)
{
  const dlg_gemm *g = j->g;
  const int c_col = dlg_is_colmajor(&g->c);
  int t, redone = 0;
  for (t = 0; t < j->ni * j->nj; t++) {
    tile *x = &j->t[t];
    dlg_gemm s = *g;
    const int64_t done = (int64_t)x->done;
    if (x->done == x->lines.height) continue;
    redone++;
    /* a tile's lines are C's columns (column-major C) or rows */
    s.m = c_col ? x->rows : x->rows - done;
    s.n = c_col ? x->cols - done : x->cols;
    s.a = sub(&g->a, x->r0 + (c_col ? 0 : done), s.m, 0, g->k, j->es);
    s.b = sub(&g->b, 0, g->k, x->c0 + (c_col ? done : 0), s.n, j->es);
    s.c = sub(&g->c, x->r0 + (c_col ? 0 : done), s.m, x->c0 + (c_col ? done : 0), s.n, j->es);
    s.batch = 1;
    dlg_backend_cpu.run(&s);
  }
  return redone;
}

/* g (batch 1, fitting the device budget) through the engine.  Returns 0
 * when done (on the GPU, or finished on the CPU after a fault: *redone > 0
 * tiles), else a status with the caller's C untouched. */
static dlgemm_status run_one(dlg_offload *o, dlg_cuda_device *dev, const dlg_cuda_api *cu,
                             const dlg_gemm *g, const dlg_offload_share *share, int *redone,
                             char *fault, size_t fault_len, CUresult *err)
{
  const int64_t tm = tile_extent(g->m), tn = tile_extent(g->n);
  job j;
  int i, t, ntiles;
  dlgemm_status st = DLGEMM_OK;

  memset(&j, 0, sizeof j);
  j.dev = dev, j.cu = cu, j.o = o, j.g = g, j.es = dlg_elem_size(g->dtype), j.share = share;
  j.k = g->alpha == 0 ? 0 : g->k;
  /* the panel counts a split call's parts agree on (dlg_cuda_offload_panels) */
  j.ni = dlg_cuda_offload_panels(g->m), j.nj = dlg_cuda_offload_panels(g->n);
  ntiles = j.ni * j.nj;
  j.a = calloc((size_t)j.ni, sizeof *j.a), j.b = calloc((size_t)j.nj, sizeof *j.b);
  j.t = calloc((size_t)ntiles, sizeof *j.t), j.order = calloc((size_t)ntiles, sizeof *j.order);
  j.outq = calloc((size_t)o->nout, sizeof *j.outq);
  if (g->beta != 0) j.cin = calloc((size_t)ntiles, sizeof *j.cin);
  if (!j.a || !j.b || !j.t || !j.order || !j.outq || (g->beta != 0 && !j.cin)) {
    st = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "out of host memory for the engine's plan");
    goto out;
  }
  if (failed(&j, reserve_events(cu, o, j.ni + j.nj + 2 * ntiles), "event creation")) goto out;
  for (i = 0; i < j.ni; i++) {
    const int64_t rows = g->m - i * tm < tm ? g->m - i * tm : tm;
    j.a[i].view = sub(&g->a, i * tm, rows, 0, j.k, j.es);
    j.a[i].lines = lines_of(&j.a[i].view, j.es);
    j.a[i].pinned = is_pinned(cu, &j.a[i].lines);
    j.a[i].event = i;
  }
  for (i = 0; i < j.nj; i++) {
    const int64_t cols = g->n - i * tn < tn ? g->n - i * tn : tn;
    j.b[i].view = sub(&g->b, 0, j.k, i * tn, cols, j.es);
    j.b[i].lines = lines_of(&j.b[i].view, j.es);
    j.b[i].pinned = is_pinned(cu, &j.b[i].lines);
    j.b[i].event = j.ni + i;
  }
  for (t = 0; t < ntiles; t++) {
    tile *x = &j.t[t];
    dlg_matrix c;
    x->r0 = (t / j.nj) * tm, x->c0 = (t % j.nj) * tn;
    x->rows = g->m - x->r0 < tm ? g->m - x->r0 : tm;
    x->cols = g->n - x->c0 < tn ? g->n - x->c0 : tn;
    c = sub(&g->c, x->r0, x->rows, x->c0, x->cols, j.es);
    x->lines = lines_of(&c, j.es);
    x->event = j.ni + j.nj + t;
    if (j.cin) {
      j.cin[t].view = c, j.cin[t].lines = x->lines;
      /* staged even when page-locked: C keeps one path in and out */
      j.cin[t].event = j.ni + j.nj + ntiles + t;
    }
  }
  j.t0 = dlg_now();
  run_job(&j);
  if (!j.err && dlg_config_get()->verbose)
    dlg_note("engine: %dx%d tiles, %s panels, first launch %.1f ms, panels queued %.1f ms, done %.1f ms; "
             "host copies in %.1f ms, out %.1f ms (up to %d threads)", j.ni, j.nj,
             j.a[0].pinned && j.b[0].pinned ? "page-locked (direct)" : "staged", j.first_launch * 1e3,
             j.sent * 1e3, (dlg_now() - j.t0) * 1e3, j.gather * 1e3, j.scatter * 1e3, j.threads);
out:
  if (j.err) {
    /* Stop and let the device drain whatever is queued: nothing may write
     * into the chunks or buffers once they are reused or freed. */
    for (i = 0; i < DLG_OFFLOAD_COMPUTE_STREAMS; i++) cu->StreamSynchronize(o->compute[i]);
    cu->StreamSynchronize(o->h2d), cu->StreamSynchronize(o->d2h), cu->StreamSynchronize(o->peer);
    snprintf(fault, fault_len, "CUDA %s failed: %s", j.step, dlg_cuda_error(j.err));
    *err = j.err;
    if (j.touched) *redone = finish_on_cpu(&j);
    else st = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "%s", fault);
  }
  for (i = 0; i < o->nin; i++) o->chunk_busy[i] = 0; /* drained, or synchronised above */
  /* done with the board before waiting on it: no part then waits for one
   * that waits for it (gpu/share.h) */
  if (share) dlg_share_leave(share->board, share->part);
  for (i = 0; j.a && i < j.ni; i++) free_panel(&j, &j.a[i], i);
  for (i = 0; j.b && i < j.nj; i++) free_panel(&j, &j.b[i], i);
  for (t = 0; j.t && t < ntiles; t++) {
    CUdeviceptr p = j.t[t].dev ? j.t[t].dev : j.cin ? j.cin[t].dev : 0;
    if (p) cu->MemFreeAsync(p, o->h2d);
  }
  free(j.a), free(j.b), free(j.t), free(j.order), free(j.outq), free(j.cin);
  return st;
}

/* --- the call -------------------------------------------------------------- */

/* Device bytes run_one holds for an m x n block of g. */
static double block_bytes(const dlg_gemm *g, double m, double n)
{
  return (m * (double)g->k + (double)g->k * n + m * n) * (double)dlg_elem_size(g->dtype);
}

/* Halve the longer side of a bm x bn block; 0 when both are at 256 already. */
static int halve(int64_t *bm, int64_t *bn)
{
  if (*bm <= 256 && *bn <= 256) return 0;
  if (*bn >= *bm) *bn = (*bn + 1) / 2;
  else *bm = (*bm + 1) / 2;
  return 1;
}

/* What the kernels of a block may allocate beside its panels and tiles
 * (split-K and packing workspaces), and the driver's own needs. */
#define ENGINE_MARGIN ((double)(256u << 20))

/* Device bytes this call may hold: the engine's share (setup), but no more
 * than there is now - free memory plus what dlgemm's pool holds unused,
 * less the margin, shared with the slots on the device.  Another process
 * may hold most of the GPU, and give it back later (issue 53).  A call
 * that needs no more than the margin (`need` bytes) does not ask the
 * driver: most calls are such, and where even that is not to be had, its
 * allocation fails and its blocks halve (offload). */
static double call_budget(const dlg_cuda_api *cu, const dlg_cuda_device *dev,
                          const dlg_offload *o, int slot, double need)
{
  size_t freeb = 0, total = 0;
  cuuint64_t reserved = 0, used = 0;
  double room;
  if (need <= ENGINE_MARGIN || cu->MemGetInfo(&freeb, &total)) return (double)o->budget;
  if (cu->MemPoolGetAttribute(dev->pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved) ||
      cu->MemPoolGetAttribute(dev->pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used) || used > reserved)
    reserved = used = 0;
  room = ((double)freeb + (double)(reserved - used) - ENGINE_MARGIN) /
         dlg_cuda_slot_sharers(slot);
  return room < (double)o->budget ? (room > 0 ? room : 0) : (double)o->budget;
}

static dlgemm_status offload(int slot, const dlg_gemm *g, const dlg_offload_share *share)
{
  char why[160], fault[200] = "";
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  dlg_cuda_device *dev = cu ? dlg_cuda_slot_device(slot) : NULL;
  dlg_offload *o = engine_of(slot);
  const size_t es = dlg_elem_size(g->dtype);
  int64_t bm = g->m, bn = g->n, p, r0, c0;
  int redone = 0, blocks = 0, cpu_blocks = 0, shrunk = 0;
  double budget;
  dlgemm_status st = DLGEMM_OK;
  CUresult r, err = CUDA_SUCCESS;

  if (!dev) return DLGEMM_ERR_NO_BACKEND;
  if (g->m == 0 || g->n == 0) return DLGEMM_OK;
  pthread_mutex_lock(&o->lock);
  dlg_copy_enter(); /* engines at work at once stage with more threads */
  if ((r = cu->CtxPushCurrent(dev->ctx))) {
    dlg_copy_leave();
    pthread_mutex_unlock(&o->lock);
    return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA device %d: %s", dev->ordinal,
                    dlg_cuda_error(r));
  }
  if (!o->ready) {
    const double t0 = dlg_now();
    if ((r = setup(slot, dev, cu))) {
      st = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA host-array engine setup failed: %s",
                    dlg_cuda_error(r));
      goto out;
    }
    if (dlg_config_get()->verbose) /* the first host call's share of a cold start */
      fprintf(stderr, "dlgemm: host-array engine of slot %d ready in %.1f ms (%.0f MB "
              "page-locked)\n", slot, (dlg_now() - t0) * 1e3,
              (double)o->chunk * (o->nin + o->nout) / 1048576.0);
  }
  o->ready = 1;
  grow(cu, o, (double)g->batch * (block_bytes(g, (double)g->m, (double)g->n) +
                                  (g->beta != 0 ? (double)g->m * g->n * es : 0)));
  /* Blocks of C whose panels fit the budget, halving the longer side;
   * decided before anything runs, so a problem too large is refused whole
   * (and the caller answers on the next BLAS). */
  budget = call_budget(cu, dev, o, slot, block_bytes(g, (double)bm, (double)bn));
  while (block_bytes(g, (double)bm, (double)bn) > budget && halve(&bm, &bn)) {
  }
  if (block_bytes(g, (double)bm, (double)bn) > budget) {
    st = dlg_fail(DLGEMM_ERR_TOO_LARGE, "k=%lld needs more than the %.0f MB of device memory "
                  "the engine may use now, even for 256 x 256 blocks of C", (long long)g->k,
                  budget / 1048576.0);
    goto out;
  }
  /* a part's panels are the other parts' only when it runs as one block;
   * else it leaves now, not once done: they would wait for it till then */
  if (share && (g->batch != 1 || bm != g->m || bn != g->n || g->alpha == 0)) {
    dlg_share_leave(share->board, share->part);
    share = NULL;
  }
again:
  for (p = 0; p < g->batch; p++) {
    dlg_matrix a = g->a, b = g->b, c = g->c; /* batch entry p */
    a.data = dlg_batch_at(&g->a, p, es), b.data = dlg_batch_at(&g->b, p, es);
    c.data = dlg_batch_at(&g->c, p, es);
    for (c0 = 0; c0 < g->n; c0 += bn)
      for (r0 = 0; r0 < g->m; r0 += bm) {
        dlg_gemm s = *g;
        s.batch = 1;
        s.m = g->m - r0 < bm ? g->m - r0 : bm;
        s.n = g->n - c0 < bn ? g->n - c0 : bn;
        s.a = sub(&a, r0, s.m, 0, g->k, es);
        s.b = sub(&b, 0, g->k, c0, s.n, es);
        s.c = sub(&c, r0, s.m, c0, s.n, es);
        if (fault[0]) { /* after a fault the rest stays on the CPU */
          dlg_backend_cpu.run(&s);
          cpu_blocks++;
        } else if ((st = run_one(o, dev, cu, &s, share, &redone, fault, sizeof fault, &err))) {
          /* Out of memory before anything was written (the device filled
           * between the budget and the allocation): smaller blocks. */
          if (!blocks && err == CUDA_ERROR_OUT_OF_MEMORY && halve(&bm, &bn)) {
            if (share) dlg_share_leave(share->board, share->part);
            share = NULL, fault[0] = 0, st = DLGEMM_OK, shrunk++;
            goto again;
          }
          if (!blocks) goto out; /* nothing written yet: the caller falls back */
          st = DLGEMM_OK;
          dlg_backend_cpu.run(&s);
          cpu_blocks++;
        }
        blocks++;
      }
  }
  if (fault[0])
    dlg_note("fallback: %s; %d tile(s) and %d block(s) finished on the next BLAS", fault, redone,
             cpu_blocks);
  else if (shrunk)
    dlg_note_more("out of device memory: blocks of C halved %d time(s), to %lld x %lld", shrunk,
                  (long long)bm, (long long)bn);
  else if (blocks > g->batch && dlg_config_get()->verbose) /* the budget cut C */
    dlg_note_more("in blocks of %lld x %lld (%.0f MB of device memory to use)", (long long)bm,
                  (long long)bn, budget / 1048576.0);
out:
  cu->CtxPopCurrent(NULL);
  dlg_copy_leave();
  pthread_mutex_unlock(&o->lock);
  return st;
}

dlgemm_status dlg_cuda_offload_one(int slot, const dlg_gemm *g, const dlg_offload_share *share)
{
  const dlgemm_status st = offload(slot, g, share);
  if (share) dlg_share_leave(share->board, share->part); /* whatever path it took */
  return st;
}

dlgemm_status dlg_cuda_offload_measure(int slot, double *to_device, double *to_host,
                                       double *staging)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  dlg_cuda_device *dev = cu ? dlg_cuda_slot_device(slot) : NULL;
  dlg_offload *o = engine_of(slot);
  const size_t bytes = 64u << 20;
  CUdeviceptr d = 0;
  char *host = malloc(bytes);
  dlg_lines l = {host, bytes, bytes, 1};
  CUresult r;
  double t0, t1, t2, t3;
  size_t off;
  int rep;

  if (!dev || !host) {
    free(host);
    return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "cannot measure the link");
  }
  memset(host, 1, bytes); /* pages present, as in a program's arrays */
  pthread_mutex_lock(&o->lock);
  if ((r = cu->CtxPushCurrent(dev->ctx))) goto unlock;
  if ((!o->ready && (r = setup(slot, dev, cu))) || (r = cu->MemAlloc(&d, bytes))) goto out;
  o->ready = 1;
  grow(cu, o, HUGE_VAL); /* the link as the engine's calls will see it */
  /* Each direction through the first chunk, as the engine's copies go;
   * the second repetition is the one timed. */
#define PIECE (bytes - off < o->chunk ? bytes - off : o->chunk)
  for (rep = 0; rep < 2 && !r; rep++) {
    t0 = dlg_now();
    for (off = 0; off < bytes && !r; off += o->chunk)
      r = cu->MemcpyHtoDAsync(d + off, o->pinned, PIECE, o->h2d);
    if (!r) r = cu->StreamSynchronize(o->h2d);
    t1 = dlg_now();
    for (off = 0; off < bytes && !r; off += o->chunk)
      r = cu->MemcpyDtoHAsync(o->pinned + (size_t)o->nin * o->chunk, d + off, PIECE, o->d2h);
    if (!r) r = cu->StreamSynchronize(o->d2h);
    t2 = dlg_now();
    for (off = 0; off < bytes; off += o->chunk)
      dlg_copy_lines(&l, off, PIECE, o->pinned, 1, o->threads);
    t3 = dlg_now();
  }
#undef PIECE
  if (!r) *to_device = bytes / (t1 - t0), *to_host = bytes / (t2 - t1), *staging = bytes / (t3 - t2);
out:
  if (d) cu->MemFree(d);
  cu->CtxPopCurrent(NULL);
unlock:
  pthread_mutex_unlock(&o->lock);
  free(host);
  return r ? dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "measuring the link: %s", dlg_cuda_error(r))
           : DLGEMM_OK;
}

/* --- whole matrices, for the factorizations ------------------------------- */

/* Whole columns per chunk: each chunk is one 2-D copy into the padded
 * device matrix.  To the device: gather chunk i while chunk i-1 crosses.
 * To the host: chunk i crosses while chunk i - nin is scattered. */
static CUresult transfer(const dlg_cuda_api *cu, dlg_offload *o, const dlg_lines *l,
                         CUdeviceptr d, size_t dpitch, int to_device, CUstream s)
{
  const size_t per = o->chunk / l->width, n = (l->height + per - 1) / per;
  size_t i, k;
  CUresult r = CUDA_SUCCESS;
  for (k = 0; k < (size_t)o->nin; k++) /* the slots are free once their last copies are */
    if (o->chunk_busy[k] && !(r = cu->EventSynchronize(o->chunk_done[k]))) o->chunk_busy[k] = 0;
  for (i = 0; !r && i < n + (to_device ? 0 : (size_t)o->nin); i++) {
    const size_t slot = i % (size_t)o->nin;
    char *buf = o->pinned + slot * o->chunk;
    if (!to_device && i >= (size_t)o->nin && i - o->nin < n) { /* scatter chunk i - nin */
      const size_t c0 = (i - o->nin) * per;
      const size_t c = l->height - c0 < per ? l->height - c0 : per;
      if ((r = cu->EventSynchronize(o->chunk_done[slot]))) break;
      dlg_copy_lines(l, c0 * l->width, c * l->width, buf, 0, o->threads);
    }
    if (i < n) {
      const size_t c0 = i * per, c = l->height - c0 < per ? l->height - c0 : per;
      const CUDA_MEMCPY2D m =
          copy2d(buf, l->width, d + c0 * dpitch, dpitch, l->width, c, to_device);
      if (to_device) {
        if ((r = cu->EventSynchronize(o->chunk_done[slot]))) break;
        dlg_copy_lines(l, c0 * l->width, c * l->width, buf, 1, o->threads);
      }
      if ((r = dlg_fault_injected(DLG_FAULT_COPY) ? CUDA_ERROR_UNKNOWN
                                                  : cu->Memcpy2DAsync(&m, s)) ||
          (r = cu->EventRecord(o->chunk_done[slot], s)))
        break;
    }
  }
  return r ? r : cu->StreamSynchronize(s);
}

dlgemm_status dlg_cuda_offload_matrix(int slot, void *host, int64_t ld, CUdeviceptr d,
                                      int64_t dld, int64_t rows, int64_t cols, size_t es,
                                      int to_device, CUstream s)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  dlg_cuda_device *dev = cu ? dlg_cuda_slot_device(slot) : NULL;
  dlg_offload *o = engine_of(slot);
  const dlg_lines l = {host, (size_t)rows * es, (size_t)ld * es, (size_t)cols};
  CUresult r;
  int tries;
  if (!dev) return DLGEMM_ERR_NO_BACKEND;
  if (!rows || !cols) return DLGEMM_OK;
  pthread_mutex_lock(&o->lock);
  if (!(r = cu->CtxPushCurrent(dev->ctx))) {
    if (!o->ready && !(r = setup(slot, dev, cu))) o->ready = 1;
    if (!r) grow(cu, o, (double)rows * (double)cols * (double)es);
    /* A result's copy back is tried again where it failed: the caller's
     * matrix may be half overwritten by then (its input is gone), but the
     * device still holds the whole result and a copy is idempotent.  Only
     * a device that can no longer be read leaves it incomplete, and that
     * fails each try at once.  Eight tries: with one chunk's copy in 40
     * failing (the soak's DLGEMM_INJECT_FAULT=random:40) a result of five
     * chunks failed all of three tries once in about 600 copies back (five
     * wrong dsyrk_ in the soak's first four minutes on the H200s); eight
     * leave one in 20 million. */
    for (tries = 0; !r && tries < 8; tries++) {
      if (l.width <= o->chunk) {
        r = transfer(cu, o, &l, d, (size_t)dld * es, to_device, s);
      } else { /* a column longer than a chunk: the driver's own staging */
        const CUDA_MEMCPY2D m = copy2d(host, l.pitch, d, (size_t)dld * es, l.width, l.height,
                                       to_device);
        if (!(r = dlg_fault_injected(DLG_FAULT_COPY) ? CUDA_ERROR_UNKNOWN
                                                     : cu->Memcpy2DAsync(&m, s)))
          r = cu->StreamSynchronize(s);
      }
      if (!r || to_device) break;
      if (tries < 7) r = CUDA_SUCCESS; /* once more */
    }
    cu->CtxPopCurrent(NULL);
  }
  pthread_mutex_unlock(&o->lock);
  if (r)
    return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA copy %s the device failed: %s",
                    to_device ? "to" : "from", dlg_cuda_error(r));
  return DLGEMM_OK;
}
