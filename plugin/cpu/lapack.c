/*
 * lapack.c - find the LAPACK that answers the factorizations dlgemm does
 * not take: the same search as for the next BLAS (cpu/blas.c), over the
 * LAPACK routine names.
 */
#include <pthread.h>
#include "cpu/blas.h"
#include "cpu/lapack.h"

static dlg_cpu_lapack lapack;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *find(const char *name)
{
  char from[256]; /* where it came from: nobody asks yet */
  return dlg_cpu_next(name, "liblapack.so.3", name, from, sizeof from);
}

static void load(void)
{
  lapack.getrf[0] = (dlg_getrf_fn)find("sgetrf_");
  lapack.getrf[1] = (dlg_getrf_fn)find("dgetrf_");
  lapack.potrf[0] = (dlg_potrf_fn)find("spotrf_");
  lapack.potrf[1] = (dlg_potrf_fn)find("dpotrf_");
  lapack.geqrf[0] = (dlg_geqrf_fn)find("sgeqrf_");
  lapack.geqrf[1] = (dlg_geqrf_fn)find("dgeqrf_");
  lapack.ormqr[0] = (dlg_ormqr_fn)find("sormqr_");
  lapack.ormqr[1] = (dlg_ormqr_fn)find("dormqr_");
  lapack.ilaenv = (dlg_ilaenv_fn)find("ilaenv_");
}

const dlg_cpu_lapack *dlg_cpu_lapack_get(void)
{
  pthread_once(&once, load);
  return &lapack;
}
