/*
 * blacs.c - the BLACS entry points, found at run time among the loaded
 * objects: libdlgemm links no MPI.  ScaLAPACK's own broadcasts carry the
 * panels, so the ranks talk through the program's communicator and its
 * MPI's transport, the "existing engine" the design asks for.  The
 * integer context a Fortran caller hands PDPOTRF is the one these C entry
 * points take (the BLACS index one table from both).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "dist/blacs.h"

static dlg_blacs blacs;
static char missing[64];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *find(const char *name)
{
  void *f = dlsym(RTLD_DEFAULT, name);
  if (!f && !missing[0]) snprintf(missing, sizeof missing, "%s", name);
  return f;
}

static void load(void)
{
  *(void **)&blacs.gridinfo = find("Cblacs_gridinfo");
  *(void **)&blacs.pnum = find("Cblacs_pnum");
  *(void **)&blacs.gebs2d[0] = find("Csgebs2d");
  *(void **)&blacs.gebs2d[1] = find("Cdgebs2d");
  *(void **)&blacs.gebr2d[0] = find("Csgebr2d");
  *(void **)&blacs.gebr2d[1] = find("Cdgebr2d");
  *(void **)&blacs.igebs2d = find("Cigebs2d");
  *(void **)&blacs.igebr2d = find("Cigebr2d");
  *(void **)&blacs.igsum2d = find("Cigsum2d");
  *(void **)&blacs.gsum2d[0] = find("Csgsum2d");
  *(void **)&blacs.gsum2d[1] = find("Cdgsum2d");
}

const dlg_blacs *dlg_blacs_get(char *why, size_t why_len)
{
  pthread_once(&once, load);
  if (!missing[0]) return &blacs;
  snprintf(why, why_len, "the BLACS entry point %s is not in the process", missing);
  return NULL;
}

void dlg_blacs_bcast(const dlg_blacs *b, const dlg_grid *g, const char *scope, dlg_dtype dtype,
                     int m, int n, void *a, int ld, int rsrc, int csrc)
{
  const int t = dtype == DLG_F64;
  char sc[8], top[] = " ";
  if (m <= 0 || n <= 0) return;
  snprintf(sc, sizeof sc, "%s", scope);
  if (g->row == rsrc && g->col == csrc) b->gebs2d[t](g->ctxt, sc, top, m, n, a, ld);
  else b->gebr2d[t](g->ctxt, sc, top, m, n, a, ld, rsrc, csrc);
}

void dlg_blacs_bcast_ints(const dlg_blacs *b, const dlg_grid *g, const char *scope, int *v,
                          int count, int rsrc, int csrc)
{
  char sc[8], top[] = " ";
  snprintf(sc, sizeof sc, "%s", scope);
  if (g->row == rsrc && g->col == csrc) b->igebs2d(g->ctxt, sc, top, count, 1, v, count);
  else b->igebr2d(g->ctxt, sc, top, count, 1, v, count, rsrc, csrc);
}

int dlg_blacs_sum_all(const dlg_blacs *b, const dlg_grid *g, int v)
{
  char sc[] = "All", top[] = " ";
  b->igsum2d(g->ctxt, sc, top, 1, 1, &v, 1, -1, -1);
  return v;
}
