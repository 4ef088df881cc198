/*
 * rival_cache.c - the rival's verdicts on disk (rival_cache.h).  The file
 * is read as untrusted: only a small regular file, not through a link, each
 * line parsed whole or skipped.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "api/rival_cache.h"
#include "core/cache_dir.h"

enum { MAX_FILE = 1 << 20, MAX_KEY = 64 };

/* What identifies the library holding fn: its file's path, size and time. */
static unsigned long long library_identity(unsigned long long h, const void *fn)
{
  Dl_info info;
  struct stat st;
  if (!dladdr(fn, &info) || !info.dli_fname) return dlg_hash(h, "?", 1);
  h = dlg_hash(h, info.dli_fname, strlen(info.dli_fname));
  if (stat(info.dli_fname, &st) == 0) {
    h = dlg_hash(h, &st.st_size, sizeof st.st_size);
    h = dlg_hash(h, &st.st_mtime, sizeof st.st_mtime);
  }
  return h;
}

int dlg_rival_cache_path(const char *tag, const void *rival, char *path, size_t len)
{
  char dir[400], name[160];
  unsigned long long h = library_identity(DLG_HASH_START, (const void *)dlg_rival_cache_path);
  if (dlg_cache_dir(dir, sizeof dir)) return -1;
  h = library_identity(h, rival);
  snprintf(name, sizeof name, "%s", tag);
  dlg_cache_name(name);
  snprintf(path, len, "%s/rival-%s-%016llx.txt", dir, name, h);
  return 0;
}

static int hex_digit(int c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int dlg_rival_cache_load(const char *path, size_t key_len,
                         void (*put)(const void *key, int ours, void *ctx), void *ctx)
{
  const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  unsigned char key[MAX_KEY];
  struct stat st;
  char *text, *line, *end;
  ssize_t got;
  int count = 0;
  if (fd < 0) return 0;
  if (key_len > MAX_KEY || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_FILE ||
      !(text = malloc((size_t)st.st_size + 1))) {
    close(fd);
    return 0;
  }
  got = read(fd, text, (size_t)st.st_size);
  close(fd);
  text[got > 0 ? got : 0] = '\0';
  for (line = text; *line; line = *end ? end + 1 : end) {
    size_t i;
    int ok = 1;
    if (!(end = strchr(line, '\n'))) break; /* a line still being written */
    if ((size_t)(end - line) != 2 * key_len + 2 || line[2 * key_len] != ' ' ||
        (line[2 * key_len + 1] != 'o' && line[2 * key_len + 1] != 't'))
      continue;
    for (i = 0; i < key_len && ok; i++) {
      const int hi = hex_digit(line[2 * i]), lo = hex_digit(line[2 * i + 1]);
      ok = hi >= 0 && lo >= 0;
      key[i] = (unsigned char)(hi * 16 + lo);
    }
    if (!ok) continue;
    put(key, line[2 * key_len + 1] == 'o', ctx);
    count++;
  }
  free(text);
  return count;
}

void dlg_rival_cache_save(const char *path, const void *key, size_t key_len, int ours)
{
  char line[2 * MAX_KEY + 4], dir[512];
  const unsigned char *k = key;
  struct stat st;
  size_t i;
  int fd;
  if (key_len > MAX_KEY) return;
  snprintf(dir, sizeof dir, "%s", path);
  if (strrchr(dir, '/')) *strrchr(dir, '/') = '\0', dlg_cache_make_dir(dir);
  if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) return;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < MAX_FILE) {
    for (i = 0; i < key_len; i++) snprintf(line + 2 * i, 3, "%02x", k[i]);
    line[2 * key_len] = ' ', line[2 * key_len + 1] = ours ? 'o' : 't';
    line[2 * key_len + 2] = '\n';
    const ssize_t wrote = write(fd, line, 2 * key_len + 3); /* short: the line is skipped */
    (void)wrote;
  }
  close(fd);
}
