/*
 * mp.c - the engine under dlgemm's uses of NVIDIA's distributed libraries
 * (mp.h): cuSOLVERMp for the factorizations (mp_factor.c), cuBLASMp
 * for PxGEMM (mp_gemm.c), NCCL between the ranks' GPUs (issue 52: "the
 * communication between ranks done by an existing engine").
 *
 * Nothing is linked: libnccl.so.2, libcusolverMp.so.0 and libcublasmp.so.0
 * are loaded on first use as the loader finds them (the
 * nvidia-cusolvermp-cu13 0.8 and nvidia-cublasmp-cu13 0.7 wheels' lib
 * folders and the CUDA 13 wheels torch brings, NCCL 2.28 and NVSHMEM 3.4
 * among them, on LD_LIBRARY_PATH).  Both libraries use the CUDA runtime,
 * which takes the device's primary context: the one dlgemm's trips make
 * current.
 *
 * Every decision is collective (the grid votes over BLACS): a rank that
 * cannot load, set up or finish sends every rank on.  A grid's NCCL
 * communicator and the libraries' grids are made on its first call (the
 * NCCL id from grid rank (0, 0), broadcast over BLACS) and kept for the
 * process: making them costs far more than a call's messages.  NCCL ranks
 * number the BLACS grid column by column, whatever order the program's
 * BLACS gave its MPI ranks, so the libraries' column-major mapping (the
 * only one cuSOLVERMp's grid documents) is the BLACS grid itself.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/calllog.h"
#include "core/config.h"
#include "core/errors.h"
#include "cuda/hostarray/slots.h"
#include "dist/mp.h"

typedef struct nccl_id { int v[32]; } nccl_id; /* ncclUniqueId: 128 bytes */
enum { MAP_COL_MAJOR = 0 }; /* cusolverMpGridMapping_t, cublasMpGridLayout_t */

dlg_mp_api dlg_mp;
static struct {
  int (*unique_id)(nccl_id *);
  int (*comm_init)(void **comm, int ranks, nccl_id id, int rank);
} nccl;

/* The libraries, each loaded once: 0 NCCL, then 1 + dlg_mp_lib. */
static const char *const libs[3] = {"libnccl.so.2", "libcusolverMp.so.0", "libcublasmp.so.0"};
static char load_error[3][200];
static int loaded[3]; /* 0 not tried, 1 loaded, -1 failed */

static int load(int lib)
{
  static const struct { int lib; const char *name; size_t at; } names[] = {
#define N(name, field) {0, name, offsetof(__typeof__(nccl), field)}
#define S(name, field) {1, name, offsetof(dlg_mp_api, field)}
#define B(name, field) {2, name, offsetof(dlg_mp_api, field)}
      N("ncclGetUniqueId", unique_id),
      N("ncclCommInitRank", comm_init),
      S("cusolverMpCreate", create),
      S("cusolverMpCreateDeviceGrid", grid),
      S("cusolverMpCreateMatrixDesc", desc),
      S("cusolverMpDestroyMatrixDesc", desc_destroy),
      S("cusolverMpPotrf_bufferSize", potrf_size),
      S("cusolverMpPotrf", potrf),
      S("cusolverMpGetrf_bufferSize", getrf_size),
      S("cusolverMpGetrf", getrf),
      S("cusolverMpGeqrf_bufferSize", geqrf_size),
      S("cusolverMpGeqrf", geqrf),
      B("cublasMpCreate", b_create),
      B("cublasMpGridCreate", b_grid),
      B("cublasMpMatrixDescriptorCreate", b_desc),
      B("cublasMpMatrixDescriptorDestroy", b_desc_destroy),
      B("cublasMpGemm_bufferSize", gemm_size),
      B("cublasMpGemm", gemm),
#undef N
#undef S
#undef B
  };
  void *h;
  size_t i;
  if (loaded[lib]) return loaded[lib] > 0;
  loaded[lib] = -1;
  if (!(h = dlopen(libs[lib], RTLD_NOW | RTLD_LOCAL))) {
    snprintf(load_error[lib], sizeof load_error[lib], "%s", dlerror());
    return 0;
  }
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    void **slot = (void **)((char *)(names[i].lib ? (void *)&dlg_mp : (void *)&nccl) +
                            names[i].at);
    if (names[i].lib != lib) continue;
    if (!(*slot = dlsym(h, names[i].name))) {
      snprintf(load_error[lib], sizeof load_error[lib], "%s has no %s", libs[lib],
               names[i].name);
      return 0;
    }
  }
  loaded[lib] = 1;
  return 1;
}

/* A grid's engine, made once; failures are kept too (every rank voted the
 * same), so that they are not tried again.  A BLACS context number comes
 * back after Cblacs_gridexit for another grid, perhaps of other processes:
 * a grid is its context, shape and members (a hash of the process numbers,
 * row by row). */
typedef struct mp_grid {
  int ctxt, p, q, ok, shared; /* shared: two of its ranks on one GPU */
  uint64_t members;
  void *comm;
  void *grid[2];   /* by dlg_mp_lib */
  int tried[2];    /* 1 made, -1 failed */
} mp_grid;
static mp_grid grids[32];
#define SHARED "two ranks of the grid on one GPU (NCCL and the libraries take one rank a GPU)"
static int ngrids;
static void *handles[2]; /* by dlg_mp_lib, one a process: its device is slot 0's */
static CUstream stream;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int dlg_mp_all(const dlg_blacs *b, const dlg_grid *g, int ok)
{
  return dlg_blacs_sum_all(b, g, ok != 0) == g->p * g->q;
}

/* Whether two ranks of g share one GPU (its host and bus id), which NCCL
 * refuses in one communicator and cuSOLVERMp calls undefined: a collective,
 * the same answer on every rank.  Such ranks share the GPU on the resident
 * path instead. */
static int shared_gpu(const dlg_blacs *b, const dlg_grid *g, const dlg_cuda_trip *t)
{
  char host[256] = "", all_[] = "All", top[] = " ";
  const int ranks = g->p * g->q;
  uint64_t key = 14695981039346656037ull; /* FNV-1a over host name and bus id */
  const char *s;
  int *keys = calloc((size_t)ranks, sizeof *keys), i, j, shared = 0;
  gethostname(host, sizeof host - 1);
  for (s = host; *s; s++) key = (key ^ (uint8_t)*s) * 1099511628211ull;
  for (s = t->dev->bus_id; *s; s++) key = (key ^ (uint8_t)*s) * 1099511628211ull;
  if (!dlg_mp_all(b, g, keys != NULL)) { /* none can tell: decline as if shared */
    free(keys);
    return 1;
  }
  keys[g->row * g->q + g->col] = (int)(key & 0x3fffffff) | 1; /* never 0: 0 is "unset" */
  b->igsum2d(g->ctxt, all_, top, ranks, 1, keys, ranks, -1, -1);
  for (i = 0; i < ranks && !shared; i++)
    for (j = i + 1; j < ranks; j++)
      if (keys[i] == keys[j]) shared = 1;
  free(keys);
  return shared;
}

/* The grid's entry and NCCL communicator (a collective on its first call). */
static mp_grid *comm_of(const dlg_blacs *b, const dlg_grid *g, const dlg_cuda_trip *t, char *why,
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
    if (!grids[i].ok)
      snprintf(why, len, "%s",
               grids[i].shared ? SHARED : "NCCL's setup failed on this grid before");
    return grids[i].ok ? &grids[i] : NULL;
  }
  /* A rank in other, smaller grids too may have made more: they decide
   * together, or one would leave the others in the broadcast below. */
  if (!dlg_mp_all(b, g, ngrids < (int)(sizeof grids / sizeof grids[0]))) {
    snprintf(why, len, "a rank has made %d grids, the most it keeps", (int)(sizeof grids /
                                                                          sizeof grids[0]));
    return NULL;
  }
  e = &grids[ngrids++];
  memset(e, 0, sizeof *e);
  e->ctxt = g->ctxt, e->p = g->p, e->q = g->q, e->members = members;
  if ((e->shared = shared_gpu(b, g, t))) { /* the same on every rank: kept, not asked again */
    snprintf(why, len, "%s", SHARED);
    return NULL;
  }
  memset(&id, 0, sizeof id);
  if (!g->row && !g->col) ok = !(r = nccl.unique_id(&id));
  dlg_blacs_bcast_int(b, g, "All", &ok, 0, 0);
  if (!ok) {
    snprintf(why, len, "ncclGetUniqueId failed on grid rank (0, 0)");
    return NULL;
  }
  dlg_blacs_bcast_ints(b, g, "All", id.v, 32, 0, 0);
  if ((r = nccl.comm_init(&e->comm, g->p * g->q, id, g->col * g->p + g->row)))
    snprintf(why, len, "ncclCommInitRank failed (%d)", r);
  e->ok = dlg_mp_all(b, g, !r);
  if (!r && !e->ok) snprintf(why, len, "ncclCommInitRank failed on another rank");
  return e->ok ? e : NULL;
}

/* The library's handle (for the process) and grid (for e), made here if
 * not yet; 0 with why[] where this rank could not. */
static int ready(mp_grid *e, dlg_mp_lib lib, const dlg_cuda_trip *t, char *why, size_t len)
{
  int r = 0;
  if (!stream && (r = t->cu->StreamCreate(&stream, CU_STREAM_NON_BLOCKING))) {
    stream = NULL;
    snprintf(why, len, "CUDA stream creation failed (%d)", r);
    return 0;
  }
  if (!handles[lib] && (r = lib == DLG_MP_SOLVER
                                ? dlg_mp.create(&handles[lib], t->dev->ordinal, stream)
                                : dlg_mp.b_create(&handles[lib], stream))) {
    handles[lib] = NULL;
    snprintf(why, len, "%s's handle failed (%d)", lib ? "cuBLASMp" : "cuSOLVERMp", r);
    return 0;
  }
  if (e->tried[lib]) return e->tried[lib] > 0;
  r = lib == DLG_MP_SOLVER
          ? dlg_mp.grid(handles[lib], &e->grid[lib], e->comm, e->p, e->q, MAP_COL_MAJOR)
          : dlg_mp.b_grid(e->p, e->q, MAP_COL_MAJOR, e->comm, &e->grid[lib]);
  if (r) snprintf(why, len, "%s's grid failed (%d)", lib ? "cuBLASMp" : "cuSOLVERMp", r);
  return !r;
}

int dlg_mp_begin(const dlg_blacs *b, const dlg_grid *g, int usable, dlg_mp_lib lib,
                 dlg_mp_call *c, char *why, size_t why_len)
{
  mp_grid *e;
  int ok;
  memset(c, 0, sizeof *c);
  c->t_begin = dlg_now();
  pthread_mutex_lock(&lock); /* the loads, grids and handles; NCCL's collectives */
  ok = usable && load(0) && load(1 + lib);
  if (!dlg_mp_all(b, g, ok)) {
    snprintf(why, why_len, "%s", ok ? "another rank cannot" : !usable ? "this rank's arguments"
                                 : loaded[0] < 0                      ? load_error[0]
                                                                      : load_error[1 + lib]);
    pthread_mutex_unlock(&lock);
    return 0;
  }
  ok = dlg_cuda_trip_begin(&c->trip, 0) == DLGEMM_OK; /* the context; the stream is ours */
  if (!dlg_mp_all(b, g, ok)) {
    snprintf(why, why_len, "%s", ok ? "no GPU on another rank" : dlgemm_last_error());
    if (ok) dlg_cuda_trip_end(&c->trip);
    pthread_mutex_unlock(&lock);
    return 0;
  }
  ok = (e = comm_of(b, g, &c->trip, why, why_len)) != NULL;
  if (ok) { /* the library's grid: every rank agrees whether it is there */
    const int was = e->tried[lib], mine = ready(e, lib, &c->trip, why, why_len);
    ok = dlg_mp_all(b, g, mine);
    if (!was && e->grid[lib]) e->tried[lib] = ok ? 1 : -1;
    if (!was && !e->grid[lib]) e->tried[lib] = -1;
    if (mine && !ok) snprintf(why, why_len, "another rank's %s setup failed",
                              lib ? "cuBLASMp" : "cuSOLVERMp");
  }
  if (!ok) {
    dlg_cuda_trip_end(&c->trip);
    pthread_mutex_unlock(&lock);
    return 0;
  }
  c->handle = handles[lib], c->grid = e->grid[lib], c->stream = stream;
  return 1;
}

int dlg_mp_vote(const dlg_blacs *b, const dlg_grid *g, dlg_mp_call *c, int ready)
{
  if (dlg_config_get()->verbose) c->trip.cu->StreamSynchronize(c->stream);
  c->t_in = dlg_now();
  ready = dlg_mp_all(b, g, ready);
  c->t_voted = dlg_now();
  return ready;
}

void dlg_mp_where(const dlg_mp_call *c, const char *lib, char *where, size_t len)
{
  const double now = dlg_now();
  if (c->t_lib > 0)
    snprintf(where, len, "cuda:%d: in %.0f ms, wait %.0f, %s %.0f, out %.0f",
             c->trip.dev->ordinal, (c->t_in - c->t_begin) * 1e3, (c->t_voted - c->t_in) * 1e3,
             lib, (c->t_lib - c->t_voted) * 1e3, (now - c->t_lib) * 1e3);
  else
    snprintf(where, len, "cuda:%d", c->trip.dev->ordinal);
}

void dlg_mp_end(dlg_mp_call *c)
{
  c->trip.cu->StreamSynchronize(c->stream);
  dlg_cuda_trip_end(&c->trip);
  pthread_mutex_unlock(&lock);
}
