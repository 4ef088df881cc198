/*
 * mp.h - what dlgemm's users of NVIDIA's distributed libraries
 * share (mp.c): cuSOLVERMp (mp_factor.c) and cuBLASMp (mp_gemm.c) loaded at
 * run time, with NCCL; one NCCL communicator a BLACS grid; the process's
 * handles and stream; the grid's collective decisions.
 */
#ifndef DLG_DIST_MP_H
#define DLG_DIST_MP_H

#include <stddef.h>
#include <stdint.h>
#include "cuda/device/driver.h"
#include "cuda/hostarray/slots.h"
#include "dist/blacs.h"

enum { DLG_CUDA_R_32F = 0, DLG_CUDA_R_64F = 1 };

typedef enum dlg_mp_lib { DLG_MP_SOLVER = 0, DLG_MP_BLAS = 1 } dlg_mp_lib;

/* The entry points, as the libraries' headers declare them (cudaStream_t
 * is a CUstream; enums are ints). */
typedef struct dlg_mp_api {
  /* cuSOLVERMp */
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
  /* cuBLASMp */
  int (*b_create)(void **handle, CUstream s);
  int (*b_grid)(int64_t p, int64_t q, int layout, void *comm, void **grid);
  int (*b_desc)(int64_t m, int64_t n, int64_t mb, int64_t nb, int64_t rsrc, int64_t csrc,
                int64_t lld, int type, void *grid, void **desc);
  int (*b_desc_destroy)(void *desc);
  int (*gemm_size)(void *handle, int ta, int tb, int64_t m, int64_t n, int64_t k,
                   const void *alpha, const void *a, int64_t ia, int64_t ja, void *desc_a,
                   const void *b, int64_t ib, int64_t jb, void *desc_b, const void *beta, void *c,
                   int64_t ic, int64_t jc, void *desc_c, int compute, size_t *device_bytes,
                   size_t *host_bytes);
  int (*gemm)(void *handle, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *alpha,
              const void *a, int64_t ia, int64_t ja, void *desc_a, const void *b, int64_t ib,
              int64_t jb, void *desc_b, const void *beta, void *c, int64_t ic, int64_t jc,
              void *desc_c, int compute, void *work, size_t device_bytes, void *host_work,
              size_t host_bytes);
} dlg_mp_api;
extern dlg_mp_api dlg_mp;

/* A call in progress on one library: the grid's engine ready on every rank
 * of it, this rank's GPU context current, the engine's lock held. */
typedef struct dlg_mp_call {
  dlg_cuda_trip trip;
  void *handle; /* the library's, for the process */
  void *grid;   /* the library's grid of this BLACS grid */
  CUstream stream; /* the handles', for the process: cuSOLVERMp keeps the stream it
                    * was given and reads it again, so none of a trip's */
  /* When each phase ended (dlg_now(), DLGEMM_VERBOSE's breakdown): the
   * call's start, the local arrays in and the library set up, the grid's
   * vote (the wait for the slowest rank), the library's call */
  double t_begin, t_in, t_voted, t_lib;
} dlg_mp_call;

/* The rank's device and where the call's time went, for the verbose line:
 * "cuda:1: in 312 ms, wait 4, cuSOLVERMp 4101, out 298". */
void dlg_mp_where(const dlg_mp_call *c, const char *lib, char *where, size_t len);
/* dlg_mp_all on the rank's readiness to enter the library's collective,
 * the phases stamped around it (t_in once the call's stream is idle, under
 * DLGEMM_VERBOSE only: otherwise it does not wait). */
int dlg_mp_vote(const dlg_blacs *b, const dlg_grid *g, dlg_mp_call *c, int ready);

/* A local array's copy on the device: its leading dimension and its bytes.
 * Both are whole blocks (nb) of rows and columns, rows a multiple of 32 as
 * well: NVIDIA's samples say the libraries once required whole blocks, and
 * a partial last block must not run past the array into what follows it. */
static inline int64_t dlg_mp_dld(int64_t rows, int64_t nb)
{
  int64_t unit, a = nb, b = 32;
  while (b) { /* unit = lcm(nb, 32) */
    const int64_t t = a % b;
    a = b, b = t;
  }
  unit = nb / a * 32;
  return ((rows > 1 ? rows : 1) + unit - 1) / unit * unit;
}

static inline size_t dlg_mp_bytes(int64_t dld, int64_t cols, int64_t nb, size_t es)
{
  const int64_t whole = ((cols > 1 ? cols : 1) + nb - 1) / nb * nb;
  return ((size_t)dld * (size_t)whole * es + 255) / 256 * 256;
}

/* Whether ok holds on every rank of g (a collective). */
int dlg_mp_all(const dlg_blacs *b, const dlg_grid *g, int ok);

/* Every rank of g: `lib` loaded, a GPU, the grid's communicator and the
 * library's grid (made on the grid's first call), `usable` on every rank.
 * 1 with *c ready and the lock held (dlg_mp_end gives it back); 0, the
 * same on every rank, why[] saying why.  A collective. */
int dlg_mp_begin(const dlg_blacs *b, const dlg_grid *g, int usable, dlg_mp_lib lib,
                 dlg_mp_call *c, char *why, size_t why_len);
void dlg_mp_end(dlg_mp_call *c);

#endif
