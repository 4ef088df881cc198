/*
 * mp.c - PxPOTRF, PxGETRF and PxGEQRF by NVIDIA's cuSOLVERMp on each rank's
 * GPU, the ranks' communication by NCCL (issue 52: "the communication
 * between ranks done by an existing engine"; bench/NOTES.md, "ScaLAPACK on
 * two GPUs": its PxPOTRF at n = 32768-65536 on two H200s took 0.19-0.21 of
 * the time of dlgemm's own resident algorithm, which stays for what this
 * does not take).
 *
 * Nothing is linked: libcusolverMp.so.0 and libnccl.so.2 are loaded on the
 * first call as the loader finds them (the nvidia-cusolvermp-cu13 wheel's
 * lib and the CUDA 13 wheels torch brings, on LD_LIBRARY_PATH), their
 * entry points declared here as their headers give them.  cuSOLVERMp uses
 * the CUDA runtime, which takes the device's primary context: the one
 * dlgemm's trips make current.
 *
 * Every decision is collective (the grid votes over BLACS), as in potrf.c:
 * a rank that cannot load, set up or finish sends every rank on, the
 * caller's arrays untouched until the last vote.  A grid's NCCL
 * communicator and cuSOLVERMp grid are made on its first call (the NCCL id
 * from grid rank (0, 0), broadcast over BLACS) and kept for the process:
 * making them costs far more than a call's messages.  NCCL ranks number the
 * BLACS grid row by row, whatever order the program's BLACS gave its MPI
 * ranks, so cuSOLVERMp's row-major mapping is the BLACS grid itself.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/hostarray/engine.h"
#include "cuda/hostarray/slots.h"
#include "dist/layout.h"
#include "dist/mp.h"

typedef struct nccl_id { int v[32]; } nccl_id; /* ncclUniqueId: 128 bytes */
enum { CUDA_R_32F = 0, CUDA_R_64F = 1, FILL_LOWER = 0, MAP_ROW_MAJOR = 1 };

static struct {
  int (*unique_id)(nccl_id *);
  int (*comm_init)(void **comm, int ranks, nccl_id id, int rank);
  int (*create)(void **handle, int device, CUstream s);
  int (*grid)(void *handle, void **grid, void *comm, int32_t p, int32_t q, int mapping);
  int (*desc)(void **desc, void *grid, int type, int64_t m, int64_t n, int64_t mb, int64_t nb,
              uint32_t rsrc, uint32_t csrc, int64_t lld);
  int (*desc_destroy)(void *desc);
  int (*potrf_size)(void *handle, int uplo, int64_t n, const void *a, int64_t ia, int64_t ja,
                    void *desc, int type, size_t *device_bytes, size_t *host_bytes);
  int (*potrf)(void *handle, int uplo, int64_t n, void *a, int64_t ia, int64_t ja, void *desc,
               int type, void *work, size_t device_bytes, void *host_work, size_t host_bytes,
               int *info);
  int (*getrf_size)(void *handle, int64_t m, int64_t n, void *a, int64_t ia, int64_t ja,
                    void *desc, int64_t *ipiv, int type, size_t *device_bytes,
                    size_t *host_bytes);
  int (*getrf)(void *handle, int64_t m, int64_t n, void *a, int64_t ia, int64_t ja, void *desc,
               int64_t *ipiv, int type, void *work, size_t device_bytes, void *host_work,
               size_t host_bytes, int *info);
  int (*geqrf_size)(void *handle, int64_t m, int64_t n, void *a, int64_t ia, int64_t ja,
                    void *desc, int type, size_t *device_bytes, size_t *host_bytes);
  int (*geqrf)(void *handle, int64_t m, int64_t n, void *a, int64_t ia, int64_t ja, void *desc,
               void *tau, int type, void *work, size_t device_bytes, void *host_work,
               size_t host_bytes, int *info);
} mp;
static char load_error[200];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
  static const struct { int lib; const char *name; size_t at; } names[] = {
#define E(lib, name, field) {lib, name, offsetof(__typeof__(mp), field)}
      E(0, "ncclGetUniqueId", unique_id),
      E(0, "ncclCommInitRank", comm_init),
      E(1, "cusolverMpCreate", create),
      E(1, "cusolverMpCreateDeviceGrid", grid),
      E(1, "cusolverMpCreateMatrixDesc", desc),
      E(1, "cusolverMpDestroyMatrixDesc", desc_destroy),
      E(1, "cusolverMpPotrf_bufferSize", potrf_size),
      E(1, "cusolverMpPotrf", potrf),
      E(1, "cusolverMpGetrf_bufferSize", getrf_size),
      E(1, "cusolverMpGetrf", getrf),
      E(1, "cusolverMpGeqrf_bufferSize", geqrf_size),
      E(1, "cusolverMpGeqrf", geqrf),
#undef E
  };
  static const char *const libs[2] = {"libnccl.so.2", "libcusolverMp.so.0"};
  void *h[2];
  size_t i;
  for (i = 0; i < 2; i++)
    if (!(h[i] = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL))) {
      snprintf(load_error, sizeof load_error, "%s", dlerror());
      return;
    }
  for (i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!(*(void **)((char *)&mp + names[i].at) = dlsym(h[names[i].lib], names[i].name))) {
      snprintf(load_error, sizeof load_error, "%s has no %s", libs[names[i].lib],
               names[i].name);
      return;
    }
}

/* A grid's engine, made once; failed grids are kept too (every rank voted
 * the same), so that they are not tried again.  A BLACS context number
 * comes back after Cblacs_gridexit for another grid, perhaps of other
 * processes: a grid is its context, shape and members (a hash of the
 * process numbers, row by row). */
typedef struct mp_grid {
  int ctxt, p, q, ok;
  uint64_t members;
  void *comm, *grid;
} mp_grid;
static mp_grid grids[8];
static int ngrids;
static void *handle;   /* one a process: its device is slot 0's */
static CUstream stream; /* the handle's, as long as it: cuSOLVERMp keeps the stream it was
                         * given and reads it again (a trip's, destroyed after its call,
                         * crashed cusolverMpSetStream on the next) */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int all(const dlg_blacs *b, const dlg_grid *g, int ok)
{
  return dlg_blacs_sum_all(b, g, ok != 0) == g->p * g->q;
}

static mp_grid *grid_of(const dlg_blacs *b, const dlg_grid *g, dlg_cuda_trip *t, char *why,
                        size_t len)
{
  mp_grid *e;
  nccl_id id;
  uint64_t members = 14695981039346656037ull; /* FNV-1a */
  int i, j, r = 0, ok = 1;
  for (i = 0; i < g->p; i++)
    for (j = 0; j < g->q; j++)
      members = (members ^ (uint64_t)b->pnum(g->ctxt, i, j)) * 1099511628211ull;
  for (i = 0; i < ngrids; i++)
    if (grids[i].ctxt == g->ctxt && grids[i].p == g->p && grids[i].q == g->q &&
        grids[i].members == members)
      break;
  if (i < ngrids) {
    if (!grids[i].ok) snprintf(why, len, "cuSOLVERMp's setup failed on this grid before");
    return grids[i].ok ? &grids[i] : NULL;
  }
  if (ngrids == (int)(sizeof grids / sizeof grids[0])) { /* every rank has as many */
    snprintf(why, len, "cuSOLVERMp: more than %d grids", ngrids);
    return NULL;
  }
  e = &grids[ngrids++];
  e->ctxt = g->ctxt, e->p = g->p, e->q = g->q, e->members = members;
  memset(&id, 0, sizeof id);
  if (!g->row && !g->col) ok = !(r = mp.unique_id(&id));
  dlg_blacs_bcast_int(b, g, "All", &ok, 0, 0);
  if (!ok) {
    snprintf(why, len, "ncclGetUniqueId failed on grid rank (0, 0)");
    return NULL;
  }
  dlg_blacs_bcast_ints(b, g, "All", id.v, 32, 0, 0);
  if ((r = mp.comm_init(&e->comm, g->p * g->q, id, g->row * g->q + g->col)))
    snprintf(why, len, "ncclCommInitRank failed (%d)", r);
  else if (!handle && ((r = t->cu->StreamCreate(&stream, CU_STREAM_NON_BLOCKING)) ||
                       (r = mp.create(&handle, t->dev->ordinal, stream))))
    snprintf(why, len, "cusolverMpCreate failed (%d)", r), handle = NULL;
  else if ((r = mp.grid(handle, &e->grid, e->comm, g->p, g->q, MAP_ROW_MAJOR)))
    snprintf(why, len, "cusolverMpCreateDeviceGrid failed (%d)", r);
  e->ok = all(b, g, !r);
  if (!r && !e->ok) snprintf(why, len, "cuSOLVERMp's setup failed on another rank");
  return e->ok ? e : NULL;
}

/* The call on this rank's GPU: the local array there (at *d, leading
 * dimension dld), the factorization, INFO, and PxGETRF's pivots or
 * PxGEQRF's scalars (cols of them, cuSOLVERMp's layout: by local column)
 * into `aux` on the host; the factor stays on the device for the caller. */
static int factor(dlg_cuda_trip *t, mp_grid *gr, const dlg_dist_call *c, int64_t rows,
                  int64_t cols, CUdeviceptr *d, int64_t dld, int *info, void *aux, char *why,
                  size_t len)
{
  const dlg_cuda_api *cu = t->cu;
  const int type = c->dtype == DLG_F64 ? CUDA_R_64F : CUDA_R_32F;
  const size_t es = dlg_elem_size(c->dtype);
  const size_t bytes = ((size_t)dld * (size_t)(cols > 0 ? cols : 1) * es + 255) / 256 * 256;
  const size_t aux_bytes = (size_t)(cols > 0 ? cols : 1) * (c->kind == DLG_DIST_GETRF ? 8 : es);
  const CUstream s = stream;
  void *const a = (void *)(uintptr_t)*d;
  void *desc = NULL, *host_work = NULL, *v; /* v: the pivots or scalars on the device */
  int *dinfo;
  CUdeviceptr work = 0; /* 0 until allocated */
  size_t dbytes = 0, hbytes = 0;
  CUresult e = CUDA_SUCCESS;
  int r = 0, ok = 0;
  *info = 0;
  if (dlg_fault_injected(DLG_FAULT_OOM) ||
      (e = cu->MemAllocFromPoolAsync(d, bytes + 256 + aux_bytes, t->dev->pool, s))) {
    snprintf(why, len, "no device memory for the local matrix (%zu bytes)", bytes);
    *d = 0;
    return 0;
  }
  dinfo = (int *)(uintptr_t)(*d + bytes);
  v = (void *)(uintptr_t)(*d + bytes + 256);
  if (rows > 0 && cols > 0 &&
      dlg_cuda_offload_matrix(0, c->a, c->desc[LLD_], *d, dld, rows, cols, es, 1, s))
    snprintf(why, len, "copying the local matrix in failed: %s", dlgemm_last_error());
  else if ((r = mp.desc(&desc, gr->grid, type, c->m, c->n, c->desc[NB_], c->desc[NB_], 0, 0,
                        dld)) ||
           (r = c->kind == DLG_DIST_POTRF
                    ? mp.potrf_size(handle, FILL_LOWER, c->n, a, 1, 1, desc, type, &dbytes, &hbytes)
                : c->kind == DLG_DIST_GETRF
                    ? mp.getrf_size(handle, c->m, c->n, a, 1, 1, desc, v, type, &dbytes, &hbytes)
                    : mp.geqrf_size(handle, c->m, c->n, a, 1, 1, desc, type, &dbytes, &hbytes)))
    snprintf(why, len, "cuSOLVERMp's setup of the call failed (%d)", r);
  else if (dlg_fault_injected(DLG_FAULT_WORKSPACE) ||
           cu->MemAllocFromPoolAsync(&work, dbytes ? dbytes : 1, t->dev->pool, s) ||
           !(host_work = malloc(hbytes ? hbytes : 1)))
    snprintf(why, len, "no memory for cuSOLVERMp's workspace (%zu + %zu bytes)", dbytes,
             hbytes);
  else if ((e = cu->MemsetD32Async(*d + bytes, 0, 1, s)) || /* a rank of no columns writes none */
           (r = c->kind == DLG_DIST_POTRF
                    ? mp.potrf(handle, FILL_LOWER, c->n, a, 1, 1, desc, type,
                               (void *)(uintptr_t)work, dbytes, host_work, hbytes, dinfo)
                : c->kind == DLG_DIST_GETRF
                    ? mp.getrf(handle, c->m, c->n, a, 1, 1, desc, v, type,
                               (void *)(uintptr_t)work, dbytes, host_work, hbytes, dinfo)
                    : mp.geqrf(handle, c->m, c->n, a, 1, 1, desc, v, type,
                               (void *)(uintptr_t)work, dbytes, host_work, hbytes, dinfo)) ||
           (e = cu->MemcpyDtoHAsync(info, *d + bytes, sizeof *info, s)) ||
           (c->kind != DLG_DIST_POTRF && cols > 0 &&
            (e = cu->MemcpyDtoHAsync(aux, *d + bytes + 256, aux_bytes, s))) ||
           (e = cu->StreamSynchronize(s)))
    snprintf(why, len, "cuSOLVERMp's %s failed (%s)", c->origin,
             r ? "its status" : dlg_cuda_error(e));
  else
    ok = 1;
  if (work) cu->MemFreeAsync(work, s);
  if (desc) mp.desc_destroy(desc);
  cu->StreamSynchronize(s);
  free(host_work);
  return ok;
}

/* PxGETRF's pivots and PxGEQRF's scalars from cuSOLVERMp's layout (by
 * local column, `aux`) into ScaLAPACK's: IPIV by local row on every
 * process column, TAU by local column on every process row.  The whole
 * vector, min(m, n) long, is summed over the grid from the ranks that hold
 * each entry (process row 0 for the pivots, the diagonal's owner for the
 * scalars), so every rank ends with all of it.  0 where a pivot is not a
 * row at or below its own (cuSOLVERMp's convention not ScaLAPACK's): the
 * same verdict on every rank. */
static int convert(const dlg_blacs *b, const dlg_grid *g, const dlg_dist_call *c, int64_t rows,
                   int64_t cols, const void *aux, void *whole)
{
  const int64_t nb = c->desc[NB_], mn = c->m < c->n ? c->m : c->n;
  char all_[] = "All", top[] = " ";
  int64_t l, k;
  if (c->kind == DLG_DIST_GETRF) {
    int *piv = whole;
    memset(piv, 0, (size_t)mn * sizeof *piv);
    for (l = 0; g->row == 0 && l < cols; l++)
      if ((k = dlg_global_of(l, g->col, g->q, nb)) < mn) piv[k] = (int)((const int64_t *)aux)[l];
    b->igsum2d(g->ctxt, all_, top, (int)mn, 1, piv, (int)mn, -1, -1);
    for (k = 0; k < mn; k++)
      if (piv[k] <= k || piv[k] > c->m) return 0;
    for (l = 0; l < rows; l++)
      if ((k = dlg_global_of(l, g->row, g->p, nb)) < mn) c->ipiv[l] = piv[k];
    return 1;
  }
  {
    const size_t es = dlg_elem_size(c->dtype);
    const int t = c->dtype == DLG_F64;
    memset(whole, 0, (size_t)mn * es);
    for (l = 0; l < cols; l++)
      if ((k = dlg_global_of(l, g->col, g->q, nb)) < mn && (k / nb) % g->p == g->row)
        memcpy((char *)whole + (size_t)k * es, (const char *)aux + (size_t)l * es, es);
    b->gsum2d[t](g->ctxt, all_, top, (int)mn, 1, whole, (int)mn, -1, -1);
    for (l = 0; l < cols; l++)
      if ((k = dlg_global_of(l, g->col, g->q, nb)) < mn)
        memcpy((char *)c->tau + (size_t)l * es, (char *)whole + (size_t)k * es, es);
    return 1;
  }
}

int dlg_dist_mp_run(const dlg_blacs *b, const dlg_grid *g, const dlg_dist_call *c, int usable,
                    int64_t rows, int64_t cols, int *info, char *why, size_t why_len)
{
  const int64_t dld = rows > 0 ? (rows + 31) / 32 * 32 : 32, mn = c->m < c->n ? c->m : c->n;
  const size_t es = dlg_elem_size(c->dtype);
  dlg_cuda_trip t;
  mp_grid *e = NULL;
  CUdeviceptr d = 0;
  void *aux = NULL, *whole = NULL;
  int ok, taken = 0, mine = 0;
  pthread_once(&once, load);
  ok = usable && !load_error[0];
  if (!all(b, g, ok)) {
    snprintf(why, why_len, "cuSOLVERMp: %s", ok          ? "not usable on another rank"
                                             : !usable ? "this rank's arguments"
                                                       : load_error);
    return 0;
  }
  ok = dlg_cuda_trip_begin(&t, 0) == DLGEMM_OK; /* the context; the stream is the handle's */
  if (!all(b, g, ok)) {
    snprintf(why, why_len, "%s", ok ? "no GPU on another rank" : dlgemm_last_error());
    if (ok) dlg_cuda_trip_end(&t);
    return 0;
  }
  pthread_mutex_lock(&lock); /* the grids, and NCCL's collectives: one call at a time */
  if ((e = grid_of(b, g, &t, why, why_len))) {
    ok = (c->kind == DLG_DIST_POTRF ||
          ((aux = malloc((size_t)(cols > 0 ? cols : 1) * 8)) &&
           (whole = malloc((size_t)mn * (es > sizeof(int) ? es : sizeof(int)))))) &&
         factor(&t, e, c, rows, cols, &d, dld, &mine, aux, why, why_len);
    /* INFO > 0 goes on too: the next ScaLAPACK writes the reference's
     * partial factor (Cholesky) or its own LU of a singular matrix */
    taken = all(b, g, ok && mine == 0);
    if (ok && !taken)
      snprintf(why, why_len, mine ? "INFO=%d: the next ScaLAPACK writes its own factor"
                                  : "cuSOLVERMp failed on another rank", mine);
    if (taken && c->kind != DLG_DIST_POTRF && !convert(b, g, c, rows, cols, aux, whole)) {
      snprintf(why, why_len, "cuSOLVERMp's pivots are not rows at or below their own");
      taken = 0;
    }
    if (taken) {
      *info = 0;
      if (rows > 0 && cols > 0 &&
          dlg_cuda_offload_matrix(0, c->a, c->desc[LLD_], d, dld, rows, cols, es, 0, stream)) {
        fprintf(stderr, "dlgemm: %s: copying the factor back failed (%s); it is incomplete\n",
                c->origin, dlgemm_last_error());
        *info = -1;
      }
    }
  }
  if (d) t.cu->MemFreeAsync(d, stream);
  if (stream) t.cu->StreamSynchronize(stream);
  pthread_mutex_unlock(&lock);
  dlg_cuda_trip_end(&t);
  free(aux), free(whole);
  return taken;
}
