/*
 * blas.c - find the BLAS that answers the calls dlgemm does not take.
 *
 * In the LD_PRELOAD case the process already has a BLAS (the one it was
 * linked with): RTLD_NEXT finds its sgemm_, the definition our own preloaded
 * one hides.  A framework that dlopen()s us may have none in reach, so we
 * fall back to opening libblas.so.3 ourselves, and to the reference loops
 * compiled in (ref.c) when even that is missing.  Any candidate that
 * turns out to live in libdlgemm.so is skipped: forwarding to ourselves would
 * recurse forever, which is what happens when the plugin is both linked and
 * preloaded, or DLGEMM_CPU_BLAS names it.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "core/config.h"
#include "cpu/blas.h"
#include "cpu/ref.h"

static dlg_cpu_blas blas;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t reset_lock = PTHREAD_MUTEX_INITIALIZER;

static int in_this_library(void *sym)
{
  Dl_info self, other;
  if (!dladdr((void *)dlg_cpu_blas_get, &self) || !dladdr(sym, &other)) return 0;
  return self.dli_fbase == other.dli_fbase;
}

/* Look name up in handle; accept it only if it is not our own. */
static void *lookup(void *handle, const char *name)
{
  void *sym = dlsym(handle, name);
  return (sym && !in_this_library(sym)) ? sym : NULL;
}

static void describe(char *out, size_t len, void *sym, const char *how)
{
  Dl_info info;
  const char *file = (dladdr(sym, &info) && info.dli_fname) ? info.dli_fname : "?";
  snprintf(out, len, "%s (%s)", file, how);
}

/* Resolve one routine through the chain; returns NULL if nothing has it. */
static void *resolve(const char *name, char *from, size_t from_len)
{
  const dlg_config *cfg = dlg_config_get();
  void *sym;
  if (cfg->cpu_blas) {
    void *h = dlopen(cfg->cpu_blas, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      fprintf(stderr, "dlgemm: DLGEMM_CPU_BLAS='%s' cannot be opened: %s\n", cfg->cpu_blas,
              dlerror());
    } else if ((sym = lookup(h, name))) {
      describe(from, from_len, sym, "DLGEMM_CPU_BLAS");
      return sym;
    } else {
      fprintf(stderr, "dlgemm: DLGEMM_CPU_BLAS='%s' has no usable %s (missing, or it is "
              "libdlgemm itself)\n", cfg->cpu_blas, name);
    }
  }
  if ((sym = lookup(RTLD_NEXT, name))) {
    describe(from, from_len, sym, "next in process");
    return sym;
  }
  if ((sym = lookup(RTLD_DEFAULT, name))) {
    describe(from, from_len, sym, "in process");
    return sym;
  }
  {
    void *h = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL);
    if (h && (sym = lookup(h, name))) {
      describe(from, from_len, sym, "dlopen libblas.so.3");
      return sym;
    }
  }
  return NULL;
}

static void load(void)
{
  blas.sgemm = (dlg_sgemm_fn)resolve("sgemm_", blas.sgemm_from, sizeof blas.sgemm_from);
  if (!blas.sgemm) {
    blas.sgemm = dlg_ref_sgemm;
    snprintf(blas.sgemm_from, sizeof blas.sgemm_from, "built-in reference loops");
  }
  blas.dgemm = (dlg_dgemm_fn)resolve("dgemm_", blas.dgemm_from, sizeof blas.dgemm_from);
  if (!blas.dgemm) {
    blas.dgemm = dlg_ref_dgemm;
    snprintf(blas.dgemm_from, sizeof blas.dgemm_from, "built-in reference loops");
  }
}

const dlg_cpu_blas *dlg_cpu_blas_get(void)
{
  pthread_once(&once, load);
  return &blas;
}

void dlg_cpu_blas_reset(void)
{
  pthread_once(&once, load);
  pthread_mutex_lock(&reset_lock);
  load();
  pthread_mutex_unlock(&reset_lock);
}
