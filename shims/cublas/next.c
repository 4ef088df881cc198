/*
 * next.c - find the cuBLAS that dlgemm's cuBLAS names hide.
 *
 * Preloaded, RTLD_NEXT finds it.  Loaded by dlopen(RTLD_GLOBAL) ahead of a
 * framework, dlgemm is not in the search order before the framework's own
 * libraries, and those (torch's libcublas.so.13, loaded as its dependency)
 * are in the framework's local scope, where RTLD_NEXT does not look: then
 * the library is found among the loaded objects by its soname stem and
 * asked directly.  Nothing is ever loaded here that the program did not
 * load: a name whose library is absent stays NULL.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include "shims/cublas/next.h"

static dlg_cublas_next next;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct { const char *name, *lib; size_t offset; } fields[] = {
#define DLG_NEXT_ROW(name, lib) {#name, lib, offsetof(dlg_cublas_next, name)},
    DLG_CUBLAS_ENTRIES(DLG_NEXT_ROW) DLG_CUBLAS_HELPERS(DLG_NEXT_ROW)
#undef DLG_NEXT_ROW
};

struct find { const char *stem; char path[4096]; };

static int match(struct dl_phdr_info *info, size_t size, void *data)
{
  struct find *f = data;
  const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
  size_t n = strlen(f->stem);
  (void)size;
  base = base ? base + 1 : info->dlpi_name;
  /* "libcublas.so" must not take "libcublasLt.so.13": the stem ends the name or meets '.' */
  if (!base || strncmp(base, f->stem, n) || (base[n] && base[n] != '.')) return 0;
  strncpy(f->path, info->dlpi_name, sizeof f->path - 1);
  return 1;
}

/* Called once per name (bind(), or refresh under its lock). */
static void *lookup(const char *name, const char *stem)
{
  struct find f;
  void *sym = dlsym(RTLD_NEXT, name), *self = (void *)lookup, *handle;
  Dl_info mine, theirs;
  /* RTLD_NEXT may come back to our own definition when we are not preloaded */
  if (sym && dladdr(self, &mine) && dladdr(sym, &theirs) && mine.dli_fbase != theirs.dli_fbase)
    return sym;
  f.stem = stem;
  f.path[0] = 0;
  if (!dl_iterate_phdr(match, &f) || !(handle = dlopen(f.path, RTLD_LAZY | RTLD_NOLOAD)))
    return NULL;
  sym = dlsym(handle, name);
  dlclose(handle); /* NOLOAD took a reference; the program's own keeps it loaded */
  return sym;
}

static void bind(void)
{
  size_t i;
  for (i = 0; i < sizeof fields / sizeof fields[0]; i++)
    *(void **)((char *)&next + fields[i].offset) = lookup(fields[i].name, fields[i].lib);
}

void *dlg_cublas_next_refresh(size_t offset)
{
  void **slot = (void **)((char *)&next + offset);
  size_t i;
  dlg_cublas_next_get();
  pthread_mutex_lock(&refresh_lock);
  for (i = 0; i < sizeof fields / sizeof fields[0] && !*slot; i++)
    if (fields[i].offset == offset) *slot = lookup(fields[i].name, fields[i].lib);
  pthread_mutex_unlock(&refresh_lock);
  return *slot;
}

const dlg_cublas_next *dlg_cublas_next_get(void)
{
  pthread_once(&once, bind);
  return &next;
}
