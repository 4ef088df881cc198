/*
 * dynlib.c - dlopen a driver library and bind its entry points.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "core/dynlib.h"

int dlg_dynlib_bind(const char *const *libs, const char *what, const dlg_symbol *syms,
                    size_t nsyms, void *table, char *why, size_t why_len)
{
  void *h = NULL;
  size_t i;
  for (i = 0; libs[i] && !h; i++) h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(why, why_len, "no %s (%s)", what, dlerror());
    return -1;
  }
  for (i = 0; i < nsyms; i++) {
    void *f = dlsym(h, syms[i].name);
    if (!f) {
      snprintf(why, why_len, "%s lacks %s (too old)", libs[0], syms[i].name);
      return -1;
    }
    memcpy((char *)table + syms[i].offset, &f, sizeof f);
  }
  return 0;
}
