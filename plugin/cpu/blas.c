/*
 * blas.c - find the BLAS that answers the calls dlgemm does not take.
 *
 * In the LD_PRELOAD case the process already has a BLAS (the one it was
 * linked with): RTLD_NEXT finds its sgemm_, the definition our own preloaded
 * one hides.  A framework that dlopen()s us may have none in reach, so we
 * fall back to opening libblas.so.3 ourselves, and to the reference loops
 * compiled in (ref.c) when even that is missing.  The ILP64 entry points
 * (sgemm_64_) have a chain of their own (blas.h).  Any candidate that
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

/* CGEMM and ZGEMM are looked up on the first complex call, not in load():
 * a DLGEMM_CPU_BLAS without them is then reported to programs that need
 * them only. */
static struct {
  dlg_xgemm_fn fn;
  int looked;
} complex_gemm[2];
static pthread_mutex_t complex_lock = PTHREAD_MUTEX_INITIALIZER;

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

/* One integer interface: its names in a process, the environment variable
 * that overrides the search, the library to open when the process has none,
 * and the name the routine has there. */
typedef struct interface {
  const char *suffix;   /* "" (LP64) or "64_" (ILP64) */
  const char *override; /* DLGEMM_CPU_BLAS's value, or DLGEMM_CPU_BLAS64's */
  const char *override_name;
  const char *library;  /* libblas.so.3, libblas64.so.3 */
} interface;

/* Resolve one routine through the chain; returns NULL if nothing has it. */
static void *resolve(const interface *in, const char *routine, char *from, size_t from_len)
{
  char name[32];
  void *sym;
  snprintf(name, sizeof name, "%s_%s", routine, in->suffix);
  if (in->override) {
    void *h = dlopen(in->override, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      fprintf(stderr, "dlgemm: %s='%s' cannot be opened: %s\n", in->override_name, in->override,
              dlerror());
    } else if ((sym = lookup(h, name)) || (*in->suffix && (sym = lookup(h, routine)))) {
      describe(from, from_len, sym, in->override_name);
      return sym;
    } else {
      fprintf(stderr, "dlgemm: %s='%s' has no usable %s (missing, or it is libdlgemm itself)\n",
              in->override_name, in->override, name);
    }
  }
  {
    char plain[32];
    snprintf(plain, sizeof plain, "%s_", routine);
    return dlg_cpu_next(name, in->library, plain, from, from_len);
  }
}

void *dlg_cpu_next(const char *name, const char *library, const char *name_there, char *from,
                   size_t from_len)
{
  void *sym, *h;
  if ((sym = lookup(RTLD_NEXT, name))) {
    describe(from, from_len, sym, "next in process");
    return sym;
  }
  if ((sym = lookup(RTLD_DEFAULT, name))) {
    describe(from, from_len, sym, "in process");
    return sym;
  }
  if ((h = dlopen(library, RTLD_NOW | RTLD_LOCAL)) && (sym = lookup(h, name_there))) {
    char how[64];
    snprintf(how, sizeof how, "dlopen %s", library);
    describe(from, from_len, sym, how);
    return sym;
  }
  return NULL;
}

static void *resolve_or(const interface *in, const char *routine, void *builtin, char *from,
                        size_t from_len)
{
  void *sym = resolve(in, routine, from, from_len);
  if (sym) return sym;
  snprintf(from, from_len, "built-in reference loops");
  return builtin;
}

/* The chain of one integer interface: LP64 (sgemm_) or ILP64 (sgemm_64_). */
static interface interface_of(int ilp64)
{
  const dlg_config *cfg = dlg_config_get();
  const interface lp64 = {"", cfg->cpu_blas, "DLGEMM_CPU_BLAS", "libblas.so.3"};
  const interface i64 = {"64_", cfg->cpu_blas64, "DLGEMM_CPU_BLAS64", "libblas64.so.3"};
  return ilp64 ? i64 : lp64;
}

static void load(void)
{
  const interface lp64 = interface_of(0), ilp64 = interface_of(1);
  blas.sgemm = (dlg_sgemm_fn)resolve_or(&lp64, "sgemm", (void *)dlg_ref_sgemm, blas.sgemm_from,
                                        sizeof blas.sgemm_from);
  blas.dgemm = (dlg_dgemm_fn)resolve_or(&lp64, "dgemm", (void *)dlg_ref_dgemm, blas.dgemm_from,
                                        sizeof blas.dgemm_from);
  blas.sgemm64 = (dlg_sgemm64_fn)resolve_or(&ilp64, "sgemm", (void *)dlg_ref_sgemm64,
                                            blas.sgemm64_from, sizeof blas.sgemm64_from);
  blas.dgemm64 = (dlg_dgemm64_fn)resolve_or(&ilp64, "dgemm", (void *)dlg_ref_dgemm64,
                                            blas.dgemm64_from, sizeof blas.dgemm64_from);
}

void *dlg_cpu_blas_routine(const char *routine, int ilp64, char *from, size_t from_len)
{
  const interface in = interface_of(ilp64);
  return resolve(&in, routine, from, from_len);
}

dlg_xgemm_fn dlg_cpu_complex_gemm(dlg_dtype t)
{
  const int z = t == DLG_C128;
  char from[256];
  dlg_xgemm_fn fn;
  pthread_mutex_lock(&complex_lock);
  if (!complex_gemm[z].looked) {
    complex_gemm[z].fn = (dlg_xgemm_fn)dlg_cpu_blas_routine(z ? "zgemm" : "cgemm", 0, from,
                                                             sizeof from);
    complex_gemm[z].looked = 1;
  }
  fn = complex_gemm[z].fn;
  pthread_mutex_unlock(&complex_lock);
  return fn;
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
  pthread_mutex_lock(&complex_lock);
  complex_gemm[0].looked = complex_gemm[1].looked = 0;
  pthread_mutex_unlock(&complex_lock);
}
