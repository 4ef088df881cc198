/*
 * pdbench_mp.c - pdbench's PDPOTRF made by NVIDIA's cuSOLVERMp instead of
 * the program's ScaLAPACK (PDBENCH_ENGINE=cusolvermp): the rival issue 52
 * says to measure before choosing dlgemm's own resident algorithm.  Same
 * matrix, same grid (BLACS "Row-major", cuSOLVERMp's row-major mapping:
 * rank r at (r / Q, r % Q)), same residual (ScaLAPACK's PDPOTRS on the
 * factor brought back).  Each call times the program's view: its local
 * array to its GPU, the factorization, the factor back.
 *
 * Nothing of CUDA, NCCL or cuSOLVERMp is linked: the libraries are loaded
 * at run time (LD_LIBRARY_PATH: torch's nvidia/ wheels, the cusolvermp
 * wheel; bench/results/scalapack/cusolvermp_survey.md), their entry points
 * declared here as their headers give them, so the benchmark builds
 * wherever pdbench does and says what is missing where they are not.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pdbench_mp.h"

void Cigebs2d(int ctxt, const char *scope, const char *top, int m, int n, int *a, int lda);
void Cigebr2d(int ctxt, const char *scope, const char *top, int m, int n, int *a, int lda,
              int rsrc, int csrc);

typedef struct { char internal[128]; } nccl_id;
enum { CUDA_MEMCPY_H2D = 1, CUDA_MEMCPY_D2H = 2, CUDA_R_64F = 1, FILL_LOWER = 0,
       GRID_ROW_MAJOR = 1 };

static struct {
  int (*set_device)(int);
  int (*get_device_count)(int *);
  int (*stream_create)(void **);
  int (*stream_sync)(void *);
  int (*malloc_)(void **, size_t);
  int (*free_)(void *);
  int (*memcpy_)(void *, const void *, size_t, int);
  int (*get_unique_id)(nccl_id *);
  int (*comm_init_rank)(void **, int, nccl_id, int);
  int (*mp_create)(void **, int, void *);
  int (*mp_grid)(void *, void **, void *, int32_t, int32_t, int);
  int (*mp_desc)(void **, void *, int, int64_t, int64_t, int64_t, int64_t, uint32_t, uint32_t,
                 int64_t);
  int (*mp_desc_destroy)(void *);
  int (*potrf_size)(void *, int, int64_t, const void *, int64_t, int64_t, void *, int, size_t *,
                    size_t *);
  int (*potrf)(void *, int, int64_t, void *, int64_t, int64_t, void *, int, void *, size_t, void *,
               size_t, int *);
} mp;

/* This rank's engine, made on the first call: device, stream, NCCL
 * communicator, cuSOLVERMp handle and grid. */
static void *stream, *handle, *mpgrid;

static int load(char *why, size_t len)
{
  static const struct { const char *lib, *name; void **slot; } names[] = {
      {"libcudart.so.13", "cudaSetDevice", (void **)&mp.set_device},
      {"libcudart.so.13", "cudaGetDeviceCount", (void **)&mp.get_device_count},
      {"libcudart.so.13", "cudaStreamCreate", (void **)&mp.stream_create},
      {"libcudart.so.13", "cudaStreamSynchronize", (void **)&mp.stream_sync},
      {"libcudart.so.13", "cudaMalloc", (void **)&mp.malloc_},
      {"libcudart.so.13", "cudaFree", (void **)&mp.free_},
      {"libcudart.so.13", "cudaMemcpy", (void **)&mp.memcpy_},
      {"libnccl.so.2", "ncclGetUniqueId", (void **)&mp.get_unique_id},
      {"libnccl.so.2", "ncclCommInitRank", (void **)&mp.comm_init_rank},
      {"libcusolverMp.so.0", "cusolverMpCreate", (void **)&mp.mp_create},
      {"libcusolverMp.so.0", "cusolverMpCreateDeviceGrid", (void **)&mp.mp_grid},
      {"libcusolverMp.so.0", "cusolverMpCreateMatrixDesc", (void **)&mp.mp_desc},
      {"libcusolverMp.so.0", "cusolverMpDestroyMatrixDesc", (void **)&mp.mp_desc_destroy},
      {"libcusolverMp.so.0", "cusolverMpPotrf_bufferSize", (void **)&mp.potrf_size},
      {"libcusolverMp.so.0", "cusolverMpPotrf", (void **)&mp.potrf},
  };
  size_t i;
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    void *lib = dlopen(names[i].lib, RTLD_NOW | RTLD_GLOBAL);
    if (!lib || !(*names[i].slot = dlsym(lib, names[i].name))) {
      snprintf(why, len, "%s: %s", names[i].lib, lib ? names[i].name : dlerror());
      return -1;
    }
  }
  return 0;
}

/* The engine for grid (p x q, this rank me of them), once. */
static int engine(int ctxt, int p, int q, int row, int col, char *why, size_t len)
{
  static int state; /* 0 not yet, 1 ready, -1 failed */
  const char *local = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  nccl_id id;
  void *comm = NULL;
  int devices = 0, me = row * q + col, r;
  if (state) return state > 0 ? 0 : -1;
  state = -1;
  if (load(why, len)) return -1;
  if ((r = mp.get_device_count(&devices)) || devices < 1) {
    snprintf(why, len, "no CUDA device (%d)", r);
    return -1;
  }
  mp.set_device((local ? atoi(local) : me) % devices);
  memset(&id, 0, sizeof id);
  if (me == 0 && (r = mp.get_unique_id(&id))) {
    snprintf(why, len, "ncclGetUniqueId: %d", r);
    return -1; /* the others wait in the broadcast: a failed rank 0 ends the job */
  }
  if (me == 0) Cigebs2d(ctxt, "All", " ", 32, 1, (int *)&id, 32);
  else Cigebr2d(ctxt, "All", " ", 32, 1, (int *)&id, 32, 0, 0);
  if ((r = mp.stream_create(&stream)) || (r = mp.comm_init_rank(&comm, p * q, id, me)) ||
      (r = mp.mp_create(&handle, (local ? atoi(local) : me) % devices, stream)) ||
      (r = mp.mp_grid(handle, &mpgrid, comm, p, q, GRID_ROW_MAJOR))) {
    snprintf(why, len, "CUDA / NCCL / cuSOLVERMp setup failed (%d)", r);
    return -1;
  }
  state = 1;
  return 0;
}

int mp_pdpotrf(int ctxt, int p, int q, int row, int col, int n, int nb, double *a, int lld,
               int cols, int *info)
{
  char why[256];
  const size_t bytes = (size_t)lld * (size_t)(cols > 0 ? cols : 1) * sizeof *a;
  void *desc = NULL, *d_a = NULL, *d_work = NULL, *h_work = NULL, *d_info = NULL;
  size_t dwork = 0, hwork = 0;
  int r;
  *info = -1;
  if (engine(ctxt, p, q, row, col, why, sizeof why)) {
    fprintf(stderr, "pdbench: cuSOLVERMp unavailable: %s\n", why);
    return -1;
  }
  if ((r = mp.mp_desc(&desc, mpgrid, CUDA_R_64F, n, n, nb, nb, 0, 0, lld)) ||
      (r = mp.malloc_(&d_a, bytes)) || (r = mp.malloc_(&d_info, sizeof(int))) ||
      (r = mp.memcpy_(d_a, a, bytes, CUDA_MEMCPY_H2D)) ||
      (r = mp.potrf_size(handle, FILL_LOWER, n, d_a, 1, 1, desc, CUDA_R_64F, &dwork, &hwork)) ||
      (r = mp.malloc_(&d_work, dwork ? dwork : 1)) || !(h_work = malloc(hwork ? hwork : 1)) ||
      (r = mp.potrf(handle, FILL_LOWER, n, d_a, 1, 1, desc, CUDA_R_64F, d_work, dwork, h_work,
                    hwork, d_info)) ||
      (r = mp.stream_sync(stream)) || (r = mp.memcpy_(a, d_a, bytes, CUDA_MEMCPY_D2H)) ||
      (r = mp.memcpy_(info, d_info, sizeof(int), CUDA_MEMCPY_D2H))) {
    fprintf(stderr, "pdbench: cuSOLVERMp potrf failed (%d)\n", r ? r : -1);
    *info = -1;
  }
  if (desc) mp.mp_desc_destroy(desc);
  if (d_a) mp.free_(d_a);
  if (d_work) mp.free_(d_work);
  if (d_info) mp.free_(d_info);
  free(h_work);
  return *info < 0 ? -1 : 0;
}
