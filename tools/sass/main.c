/*
 * dlgemm-sass - control codes in maxas notation, main-loop summaries and
 * quality gates for the SASS of CUDA kernels.
 *
 * usage: dlgemm-sass [--list] [--kernel SUBSTR] [--arch sm_XX]
 *                    [--gate-clean] [--gate-loop MIN] [--gate-op OP] [--gate-has OP]... FILE
 *
 * --gate-has may be given up to four times: each instruction is required.
 * FILE is a cubin, fatbin, object, executable or shared library (dlgemm
 * embeds its fatbin as data; it is found by its magic number), or the text
 * of `cuobjdump -sass` ('-' reads it from stdin).  cuobjdump is taken from
 * $DLGEMM_CUOBJDUMP, else from PATH.  Exit status: 0, 1 when a gate failed
 * (each failure names the kernel, the architecture and the figure), 2 when
 * the input could not be read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sass.h"

typedef struct options {
  int list, clean;
  double loop_min;
  const char *kernel, *arch, *loop_op, *file;
  const char *has_op[4]; /* --gate-has, each of them required */
  int has_ops;
} options;

static int usage(void)
{
  fprintf(stderr, "usage: dlgemm-sass [--list] [--kernel SUBSTR] [--arch sm_XX] [--gate-clean]\n"
                  "                   [--gate-loop MIN] [--gate-op OP] [--gate-has OP]... FILE\n");
  return 2;
}

static int disassemble(const char *path, sass_listing *l)
{
  const char *tool = getenv("DLGEMM_CUOBJDUMP");
  char cmd[4096];
  FILE *p;
  int rc;
  snprintf(cmd, sizeof cmd, "'%s' -sass '%s' 2>/dev/null", tool && *tool ? tool : "cuobjdump", path);
  if (!(p = popen(cmd, "r"))) return -1;
  rc = sass_parse(p, l);
  pclose(p);
  return rc;
}

/* A fatbin embedded as plain data (not in a .nv_fatbin section, so
 * cuobjdump does not see it): magic 0xBA55ED50, a 16-bit header size at
 * offset 6 and the 64-bit size of the rest at offset 8. */
static int extract_fatbins(const char *path, sass_listing *l)
{
  FILE *f = fopen(path, "rb");
  unsigned char *buf;
  long size, i;
  int found = 0;
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  rewind(f);
  buf = malloc((size_t)size);
  if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
    fclose(f), free(buf);
    return -1;
  }
  fclose(f);
  for (i = 0; i + 16 <= size; i += 8) { /* the fatbin is 8-byte aligned */
    uint64_t rest;
    unsigned hdr;
    char tmp[] = "/tmp/dlgemm-sass-XXXXXX";
    int fd;
    sass_listing part;
    if (memcmp(buf + i, "\x50\xed\x55\xba", 4)) continue;
    hdr = buf[i + 6] | (unsigned)buf[i + 7] << 8;
    memcpy(&rest, buf + i + 8, 8);
    if (hdr < 16 || rest > (uint64_t)(size - i - hdr) || (fd = mkstemp(tmp)) < 0) continue;
    if (write(fd, buf + i, hdr + rest) == (ssize_t)(hdr + rest) && !disassemble(tmp, &part)) {
      sass_take(l, &part);
      found++;
    }
    close(fd);
    unlink(tmp);
    i += (long)((hdr + rest) & ~(uint64_t)7) - 8;
  }
  free(buf);
  return found ? 0 : -1;
}

static int load(const char *path, sass_listing *l)
{
  FILE *f;
  unsigned char head[4] = {0};
  size_t got;
  if (!strcmp(path, "-")) return sass_parse(stdin, l);
  if (!(f = fopen(path, "rb"))) {
    perror(path);
    return -1;
  }
  got = fread(head, 1, 4, f);
  if (got < 4 || (memcmp(head, "\x7f" "ELF", 4) && memcmp(head, "\x50\xed\x55\xba", 4))) {
    int rc;
    rewind(f); /* a text listing */
    rc = sass_parse(f, l);
    fclose(f);
    return rc;
  }
  fclose(f);
  if (disassemble(path, l) == 0 && l->n > 0) return 0;
  sass_free(l);
  return extract_fatbins(path, l);
}

static void list(const sass_func *f)
{
  int i;
  for (i = 0; i < f->n; i++) {
    char c[24];
    sass_format_ctrl(sass_decode(f->insn[i].hi), c);
    printf("  %-15s /*%04x*/ %s\n", c, f->insn[i].addr, f->insn[i].text);
  }
}

static void summary(const sass_func *f, const sass_stats *s)
{
  static const char *const w[5] = {"8", "16", "32", "64", "128"};
  int k;
  printf("%s %s: %d instructions, %d loop(s), LDL/STL %d, stack frame %s\n", f->name, f->arch,
         s->insns, s->loops, s->ldl_stl, s->stack_frame ? "yes" : "no");
  if (s->main_begin < 0) return;
  printf("  main loop /*%04x*/../*%04x*/: %d instructions, %s %d (fraction %.3f)", f->insn[s->main_begin].addr,
         f->insn[s->main_end].addr, s->loop_insns, s->math_op, s->loop_math,
         (double)s->loop_math / s->loop_insns);
  if (s->loop_ffma_src)
    printf(", FFMA register sources from the reuse cache %.3f", (double)s->loop_ffma_reused / s->loop_ffma_src);
  printf("\n  loads:");
  for (k = 0; k < 5; k++) if (s->loop_lds[k]) printf(" LDS.%s x%d", w[k], s->loop_lds[k]);
  for (k = 0; k < 5; k++) if (s->loop_ldg[k]) printf(" LDG.%s x%d", w[k], s->loop_ldg[k]);
  for (k = 0; k < 5; k++) if (s->loop_ldgsts[k]) printf(" LDGSTS.%s x%d", w[k], s->loop_ldgsts[k]);
  printf("; barriers %d; local memory %d\n", s->loop_bar, s->loop_ldl_stl);
}

static int has_op(const sass_func *f, int from, int to, const char *want)
{
  int i;
  for (i = from; i <= to; i++) {
    char op[48];
    sass_opcode(&f->insn[i], op, sizeof op);
    if (!strncmp(op, want, strlen(want)) || strstr(op, want)) return 1;
  }
  return 0;
}

static int gates(const options *o, const sass_func *f, const sass_stats *s)
{
  int bad = 0, i;
  if (o->clean && (s->ldl_stl || s->stack_frame)) {
    printf("GATE FAIL %s %s: %d local-memory instructions (LDL/STL), stack frame %s\n", f->name,
           f->arch, s->ldl_stl, s->stack_frame ? "yes" : "no");
    bad++;
  }
  if (o->loop_min > 0) {
    double frac = s->loop_insns ? (double)s->loop_math / s->loop_insns : 0;
    if (frac < o->loop_min) {
      printf("GATE FAIL %s %s: main-loop %s fraction %.3f < %.3f\n", f->name, f->arch,
             s->math_op ? s->math_op : "FMA", frac, o->loop_min);
      bad++;
    }
  }
  if (o->loop_op && (s->main_begin < 0 || !has_op(f, s->main_begin, s->main_end, o->loop_op))) {
    printf("GATE FAIL %s %s: no %s in the main loop\n", f->name, f->arch, o->loop_op);
    bad++;
  }
  for (i = 0; i < o->has_ops; i++)
    if (!has_op(f, 0, f->n - 1, o->has_op[i])) {
      printf("GATE FAIL %s %s: no %s instruction\n", f->name, f->arch, o->has_op[i]);
      bad++;
    }
  return bad;
}

int main(int argc, char **argv)
{
  options o = {0};
  sass_listing l;
  int i, selected = 0, failed = 0;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(a, "--list")) o.list = 1;
    else if (!strcmp(a, "--gate-clean")) o.clean = 1;
    else if (!strcmp(a, "--kernel") && more) o.kernel = argv[++i];
    else if (!strcmp(a, "--arch") && more) o.arch = argv[++i];
    else if (!strcmp(a, "--gate-loop") && more) o.loop_min = atof(argv[++i]);
    else if (!strcmp(a, "--gate-op") && more) o.loop_op = argv[++i];
    else if (!strcmp(a, "--gate-has") && more && o.has_ops < 4) o.has_op[o.has_ops++] = argv[++i];
    else if (a[0] == '-' && a[1]) return usage();
    else o.file = a;
  }
  if (!o.file) return usage();
  if (load(o.file, &l) || l.n == 0) {
    fprintf(stderr, "dlgemm-sass: no SASS found in %s (is cuobjdump on PATH or in $DLGEMM_CUOBJDUMP?)\n",
            o.file);
    return 2;
  }
  for (i = 0; i < l.n; i++) {
    sass_stats s;
    if ((o.kernel && !strstr(l.func[i].name, o.kernel)) || (o.arch && strcmp(l.func[i].arch, o.arch)))
      continue;
    selected++;
    sass_analyse(&l.func[i], &s);
    summary(&l.func[i], &s);
    if (o.list) list(&l.func[i]);
    failed += gates(&o, &l.func[i], &s);
  }
  sass_free(&l);
  if (!selected) {
    fprintf(stderr, "dlgemm-sass: no kernel matches\n");
    return 2;
  }
  printf("%d kernel(s), %d gate failure(s)\n", selected, failed);
  return failed ? 1 : 0;
}
