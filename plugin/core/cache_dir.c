/*
 * cache_dir.c - the cache directory (cache_dir.h), and the hash that keys
 * the files in it to what they were measured with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core/cache_dir.h"

int dlg_cache_dir(char *dir, size_t len)
{
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (xdg && *xdg) snprintf(dir, len, "%s/dlgemm", xdg);
  else if (home && *home) snprintf(dir, len, "%s/.cache/dlgemm", home);
  else return -1;
  return 0;
}

void dlg_cache_make_dir(const char *dir)
{
  char parent[512];
  snprintf(parent, sizeof parent, "%s", dir);
  if (strrchr(parent, '/')) *strrchr(parent, '/') = '\0';
  mkdir(parent, 0755), mkdir(dir, 0755);
}

void dlg_cache_name(char *s)
{
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '-'))
      *s = '_';
}

unsigned long long dlg_hash(unsigned long long h, const void *p, size_t len)
{
  const unsigned char *b = p;
  size_t i;
  for (i = 0; i < len; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}
