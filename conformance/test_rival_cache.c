/*
 * test_rival_cache - the rival's verdicts on disk (plugin/api/rival_cache.c),
 * without a GPU: written and read back, later lines winning; lines torn,
 * too short or not hex skipped; a file that is a link, a directory or too
 * large read as empty; the file's name changing with the GPU's tag and the
 * rival library, so that another cuBLAS never reads these verdicts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "api/rival_cache.h"
#include "check_run.h"

enum { KEY = 16, MAX = 64 };

typedef struct seen {
  unsigned char key[MAX][KEY];
  int ours[MAX], n;
} seen;

static void put(const void *key, int ours, void *ctx)
{
  seen *s = ctx;
  if (s->n < MAX) memcpy(s->key[s->n], key, KEY), s->ours[s->n++] = ours;
}

static char home[] = "/tmp/dlgemm-rival-XXXXXX";

static void fresh_home(void)
{
  ck_assert_ptr_nonnull(mkdtemp(home));
  setenv("XDG_CACHE_HOME", home, 1);
}

/* two functions of two different files: this program and libc */
static void rival_here(void) {}

START_TEST(written_and_read_back)
{
  char path[600];
  unsigned char k1[KEY], k2[KEY];
  seen s = {.n = 0};
  memset(k1, 0x5a, KEY), memset(k2, 0, KEY), k2[15] = 0xff;
  fresh_home();
  ck_assert_int_eq(dlg_rival_cache_path("NVIDIA H100 80GB HBM3-0000:00:06.0",
                                        (const void *)rival_here, path, sizeof path), 0);
  ck_assert_msg(strstr(path, "/dlgemm/rival-NVIDIA_H100_80GB_HBM3-0000_00_06_0-"), "%s", path);
  ck_assert_int_eq(dlg_rival_cache_load(path, KEY, put, &s), 0); /* no file yet */
  dlg_rival_cache_save(path, k1, KEY, 1);
  dlg_rival_cache_save(path, k2, KEY, 0);
  dlg_rival_cache_save(path, k1, KEY, 0); /* measured again: later wins */
  ck_assert_int_eq(dlg_rival_cache_load(path, KEY, put, &s), 3);
  ck_assert(!memcmp(s.key[0], k1, KEY) && s.ours[0] == 1);
  ck_assert(!memcmp(s.key[1], k2, KEY) && s.ours[1] == 0);
  ck_assert(!memcmp(s.key[2], k1, KEY) && s.ours[2] == 0);
}
END_TEST

START_TEST(bad_lines_are_skipped)
{
  char path[600];
  unsigned char k[KEY];
  seen s = {.n = 0};
  FILE *f;
  fresh_home();
  ck_assert_int_eq(dlg_rival_cache_path("gpu-bus", (const void *)rival_here, path, sizeof path), 0);
  memset(k, 0x11, KEY);
  dlg_rival_cache_save(path, k, KEY, 1);
  f = fopen(path, "a");
  fprintf(f, "1111 o\n");                                  /* short */
  fprintf(f, "%032d x\n", 0);                               /* neither o nor t */
  fprintf(f, "zz111111111111111111111111111111 o\n");      /* not hex */
  fprintf(f, "11111111111111111111111111111111 o trailing\n");
  fprintf(f, "22222222222222222222222222222222 t");         /* torn: no newline */
  fclose(f);
  ck_assert_int_eq(dlg_rival_cache_load(path, KEY, put, &s), 1);
  ck_assert(!memcmp(s.key[0], k, KEY) && s.ours[0] == 1);
}
END_TEST

START_TEST(foreign_files_are_not_read)
{
  char path[600], target[640];
  unsigned char k[KEY];
  seen s = {.n = 0};
  FILE *f;
  long i;
  fresh_home();
  memset(k, 0x33, KEY);
  ck_assert_int_eq(dlg_rival_cache_path("gpu-bus", (const void *)rival_here, path, sizeof path), 0);
  dlg_rival_cache_save(path, k, KEY, 1); /* makes the directory */
  snprintf(target, sizeof target, "%s.real", path);
  ck_assert_int_eq(rename(path, target), 0);
  ck_assert_int_eq(symlink(target, path), 0);
  ck_assert_int_eq(dlg_rival_cache_load(path, KEY, put, &s), 0); /* a link */
  dlg_rival_cache_save(path, k, KEY, 0);                       /* not through it either */
  ck_assert_int_eq(dlg_rival_cache_load(target, KEY, put, &s), 1);
  unlink(path);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  ck_assert_int_eq(dlg_rival_cache_load(path, KEY, put, &s), 0); /* a directory */
  rmdir(path);
  f = fopen(path, "w"); /* past the bound: read as nothing, and taking no more */
  for (i = 0; i < (1 << 20) / 35 + 10; i++) fprintf(f, "%032lx o\n", i);
  fclose(f);
  s.n = 0;
  ck_assert_int_eq(dlg_rival_cache_load(path, KEY, put, &s), 0);
}
END_TEST

START_TEST(another_gpu_or_rival_another_file)
{
  char a[600], b[600], c[600];
  fresh_home();
  ck_assert_int_eq(dlg_rival_cache_path("gpu-0", (const void *)rival_here, a, sizeof a), 0);
  ck_assert_int_eq(dlg_rival_cache_path("gpu-1", (const void *)rival_here, b, sizeof b), 0);
  ck_assert_int_eq(dlg_rival_cache_path("gpu-0", (const void *)printf, c, sizeof c), 0);
  ck_assert_str_ne(a, b);
  ck_assert_str_ne(a, c);
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  ck_assert_int_eq(dlg_rival_cache_path("gpu-0", (const void *)rival_here, a, sizeof a), -1);
}
END_TEST

int main(void)
{
  TCase *tc = tcase_create("rival_cache");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, written_and_read_back);
  tcase_add_test(tc, bad_lines_are_skipped);
  tcase_add_test(tc, foreign_files_are_not_read);
  tcase_add_test(tc, another_gpu_or_rival_another_file);
  return check_run("rival_cache", tc);
}
