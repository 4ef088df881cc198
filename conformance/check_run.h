/*
 * check_run.h - the end of each unit test's main(): its test case run as
 * one Check suite of the same name; the exit status 1 if a test failed.
 */
#ifndef DLG_CHECK_RUN_H
#define DLG_CHECK_RUN_H

#include <check.h>

static inline int check_run(const char *name, TCase *tc)
{
  Suite *s = suite_create(name);
  SRunner *sr;
  int failed;
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

#endif
