/*
 * test_sass.c - dlgemm-sass's decoder and analysis on known words and on
 * the SASS of sass_probe.cu (compiled for sm_80 and sm_90 at build time):
 * the decoded reuse flags must match the ".reuse" cuobjdump prints, loads
 * must set a write scoreboard that their consumer waits on, and the dense
 * probe's loop must be found with its FFMA and LDS.128.
 *
 * usage: test_sass LISTING   (cuobjdump -sass text of the probes)
 */
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "../tools/sass/sass.h"

static sass_listing probes;

static uint64_t word_hi(int stall, int yield, int wbar, int rbar, int wait, int reuse)
{
  unsigned c = (unsigned)(stall | yield << 4 | wbar << 5 | rbar << 8 | wait << 11 | reuse << 17);
  return (uint64_t)c << 41;
}

START_TEST(decodes_known_words)
{
  char text[24];
  /* EXIT as ptxas emits it: 0x000fea0003800000, stall 5, yield, nothing else */
  sass_ctrl c = sass_decode(0x000fea0003800000ull);
  ck_assert_int_eq(c.stall, 5);
  ck_assert_int_eq(c.yield, 1);
  ck_assert_int_eq(c.wbar, -1);
  ck_assert_int_eq(c.rbar, -1);
  ck_assert_int_eq(c.wait, 0);
  ck_assert_int_eq(c.reuse, 0);
  sass_format_ctrl(c, text);
  ck_assert_str_eq(text, "--:-:-:Y:5");
  c = sass_decode(word_hi(3, 0, 2, 4, 0x21, 5) | 0x1234);
  ck_assert_int_eq(c.stall, 3);
  ck_assert_int_eq(c.wbar, 2);
  ck_assert_int_eq(c.rbar, 4);
  ck_assert_int_eq(c.wait, 0x21);
  ck_assert_int_eq(c.reuse, 5);
  sass_format_ctrl(c, text);
  ck_assert_str_eq(text, "21:5:3:-:3"); /* maxas numbers scoreboards 1..6 */
}
END_TEST

static const sass_func *probe(const char *name, const char *arch)
{
  int i;
  for (i = 0; i < probes.n; i++)
    if (!strcmp(probes.func[i].name, name) && !strcmp(probes.func[i].arch, arch)) return &probes.func[i];
  ck_abort_msg("%s for %s is not in the listing", name, arch);
  return NULL;
}

static int count(const char *s, const char *what)
{
  int n = 0;
  while ((s = strstr(s, what))) n++, s++;
  return n;
}

START_TEST(reuse_bits_match_cuobjdump_text)
{
  int f, i, checked = 0;
  for (f = 0; f < probes.n; f++)
    for (i = 0; i < probes.func[f].n; i++) {
      const sass_insn *in = &probes.func[f].insn[i];
      int r = sass_decode(in->hi).reuse;
      int bits = (r & 1) + (r >> 1 & 1) + (r >> 2 & 1) + (r >> 3 & 1);
      ck_assert_msg(bits == count(in->text, ".reuse"), "%s %s /*%04x*/ %s: %d reuse bits",
                    probes.func[f].name, probes.func[f].arch, in->addr, in->text, bits);
      checked += bits;
    }
  ck_assert_msg(checked > 0, "no reuse flag anywhere in the probes");
}
END_TEST

/* The global load sets a write scoreboard and the first instruction that
 * reads its destination waits on it; FFMA (fixed latency) sets none. */
START_TEST(loads_set_the_scoreboard_their_users_wait_on)
{
  static const char *const archs[] = {"sm_80", "sm_90"};
  int a;
  for (a = 0; a < 2; a++) {
    const sass_func *f = probe("probe_load_use", archs[a]);
    int i, j, found = 0;
    for (i = 0; i < f->n && !found; i++) {
      char op[48], dest[16];
      sass_ctrl c;
      sass_opcode(&f->insn[i], op, sizeof op);
      if (strncmp(op, "LDG", 3)) continue;
      c = sass_decode(f->insn[i].hi);
      ck_assert_msg(c.wbar >= 0, "%s: LDG without a write scoreboard", archs[a]);
      sscanf(strchr(f->insn[i].text, 'R'), "%15[R0-9]", dest);
      for (j = i + 1; j < f->n; j++) {
        const char *src = strchr(f->insn[j].text, ',');
        if (src && strstr(src, dest)) {
          ck_assert_msg(sass_decode(f->insn[j].hi).wait & (1 << c.wbar),
                        "%s: %s reads %s without waiting on scoreboard %d", archs[a],
                        f->insn[j].text, dest, c.wbar);
          found = 1;
          break;
        }
      }
    }
    ck_assert_msg(found, "%s: no LDG and user found", archs[a]);
  }
  {
    const sass_func *f = probe("probe_dense", "sm_90");
    int i;
    for (i = 0; i < f->n; i++)
      if (strstr(f->insn[i].text, "FFMA")) ck_assert_int_eq(sass_decode(f->insn[i].hi).wbar, -1);
  }
}
END_TEST

START_TEST(finds_the_loops_and_their_contents)
{
  static const char *const archs[] = {"sm_80", "sm_90"};
  int a;
  for (a = 0; a < 2; a++) {
    sass_stats s;
    sass_analyse(probe("probe_dense", archs[a]), &s);
    ck_assert_int_ge(s.loops, 1);
    ck_assert_ptr_nonnull(s.math_op);
    ck_assert_str_eq(s.math_op, "FFMA");
    ck_assert_msg(s.loop_math > 0 && s.loop_math % 16 == 0, "%s: %d FFMA in the loop", archs[a], s.loop_math);
    ck_assert_int_gt(s.loop_lds[4], 0); /* LDS.128 */
    ck_assert_int_eq(s.loop_bar, 0);
    ck_assert_int_eq(s.ldl_stl, 0);
    ck_assert(s.loop_math >= 0.9 * s.loop_insns);
    sass_analyse(probe("probe_diluted", archs[a]), &s);
    ck_assert_int_ge(s.loops, 1);
    ck_assert(s.loop_math < 0.5 * s.loop_insns);
    sass_analyse(probe("probe_spill", archs[a]), &s);
    ck_assert_int_gt(s.ldl_stl, 0);
  }
}
END_TEST

int main(int argc, char **argv)
{
  TCase *tc = tcase_create("sass");
  FILE *f;
  int failed;
  if (argc < 2 || !(f = fopen(argv[1], "r"))) {
    fprintf(stderr, "usage: test_sass LISTING\n");
    return 2;
  }
  if (sass_parse(f, &probes) || probes.n == 0) {
    fprintf(stderr, "test_sass: no functions in %s\n", argv[1]);
    return 1;
  }
  fclose(f);
  tcase_add_test(tc, decodes_known_words);
  tcase_add_test(tc, reuse_bits_match_cuobjdump_text);
  tcase_add_test(tc, loads_set_the_scoreboard_their_users_wait_on);
  tcase_add_test(tc, finds_the_loops_and_their_contents);
  failed = check_run("sass", tc);
  sass_free(&probes);
  return failed;
}
