/*
 * sass.c - parse cuobjdump -sass listings, decode control fields, find
 * loops and summarise a kernel's main loop.  No knowledge of dlgemm's
 * kernels lives here: gates and their thresholds are the caller's.
 */
#include "sass.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

sass_ctrl sass_decode(uint64_t hi)
{
  /* The 21 control bits start at bit 105 of the word, bit 41 of its upper
   * half, in the order Maxwell's control codes used (SASS_NOTES.md). */
  unsigned c = (unsigned)(hi >> 41);
  sass_ctrl r;
  r.stall = c & 15;
  r.yield = (c >> 4) & 1;
  r.wbar = (c >> 5) & 7;
  r.rbar = (c >> 8) & 7;
  r.wait = (c >> 11) & 63;
  r.reuse = (c >> 17) & 15;
  if (r.wbar == 7) r.wbar = -1;
  if (r.rbar == 7) r.rbar = -1;
  return r;
}

void sass_format_ctrl(sass_ctrl c, char out[24])
{
  char w[3] = "--", rb[2] = "-", wb[2] = "-";
  if (c.wait) snprintf(w, sizeof w, "%02x", c.wait);
  if (c.rbar >= 0) rb[0] = (char)('1' + c.rbar); /* maxas numbers barriers 1..6 */
  if (c.wbar >= 0) wb[0] = (char)('1' + c.wbar);
  snprintf(out, 24, "%s:%s:%s:%s:%x", w, rb, wb, c.yield ? "Y" : "-", c.stall);
}

static sass_func *new_func(sass_listing *l)
{
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    l->func = realloc(l->func, sizeof *l->func * (size_t)l->cap);
    if (!l->func) abort();
  }
  return &l->func[l->n++];
}

void sass_take(sass_listing *into, sass_listing *from)
{
  int i;
  for (i = 0; i < from->n; i++) *new_func(into) = from->func[i];
  free(from->func);
  memset(from, 0, sizeof *from);
}

static sass_func *add_func(sass_listing *l, const char *name, const char *arch)
{
  sass_func *f = new_func(l);
  memset(f, 0, sizeof *f);
  snprintf(f->name, sizeof f->name, "%s", name);
  snprintf(f->arch, sizeof f->arch, "%s", arch);
  return f;
}

static sass_insn *add_insn(sass_func *f)
{
  if (f->n == f->cap) {
    f->cap = f->cap ? 2 * f->cap : 256;
    f->insn = realloc(f->insn, sizeof *f->insn * (size_t)f->cap);
    if (!f->insn) abort();
  }
  memset(&f->insn[f->n], 0, sizeof f->insn[0]);
  return &f->insn[f->n++];
}

static char *skip_space(char *p)
{
  while (isspace((unsigned char)*p)) p++;
  return p;
}

/* An instruction line is "/""*0070*""/  @P0 FFMA R1, R2, R3, R4 ;  /""* 0x... *""/",
 * address, text and the low half of the word; the next line holds the
 * high half, "/""* 0x... *""/". */
int sass_parse(FILE *in, sass_listing *out)
{
  char line[1024], arch[16] = "sm_??";
  sass_func *f = NULL;
  sass_insn *pending = NULL;
  memset(out, 0, sizeof *out);
  while (fgets(line, sizeof line, in)) {
    char *p = skip_space(line), *q;
    unsigned long long word;
    unsigned addr;
    if (!strncmp(p, "code for sm_", 9)) {
      snprintf(arch, sizeof arch, "%s", p + 9);
      arch[strcspn(arch, " \r\n")] = '\0';
      continue;
    }
    if ((q = strstr(p, "Function : "))) {
      q += 11;
      q[strcspn(q, " \r\n")] = '\0';
      f = add_func(out, q, arch);
      pending = NULL;
      continue;
    }
    if (!f || strncmp(p, "/*", 2)) continue;
    if (pending && sscanf(p, "/* 0x%llx */", &word) == 1) {
      pending->hi = word;
      pending = NULL;
      continue;
    }
    if (sscanf(p, "/*%x*/", &addr) == 1 && (q = strstr(p, "*/"))) {
      char *text = skip_space(q + 2), *end = strchr(text, ';'), *enc;
      sass_insn *i;
      if (!end || !(enc = strstr(end, "/* 0x")) || sscanf(enc, "/* 0x%llx */", &word) != 1)
        continue;
      i = add_insn(f);
      i->addr = addr;
      i->lo = word;
      while (end > text && isspace((unsigned char)end[-1])) end--;
      snprintf(i->text, sizeof i->text, "%.*s", (int)(end - text), text);
      pending = i;
    }
  }
  if (ferror(in)) {
    fprintf(stderr, "dlgemm-sass: read error\n");
    return -1;
  }
  return 0;
}

void sass_free(sass_listing *l)
{
  int i;
  for (i = 0; i < l->n; i++) free(l->func[i].insn);
  free(l->func);
  memset(l, 0, sizeof *l);
}

void sass_opcode(const sass_insn *i, char *out, size_t len)
{
  const char *p = i->text;
  if (*p == '@') p += strcspn(p, " \t");
  while (isspace((unsigned char)*p)) p++;
  snprintf(out, len, "%.*s", (int)strcspn(p, " \t"), p);
}

static int branch_target(const sass_insn *i, unsigned *target)
{
  const char *b = strstr(i->text, "BRA");
  const char *x = b ? strstr(b, "0x") : NULL;
  return x && sscanf(x, "0x%x", target) == 1;
}

int sass_loops(const sass_func *f, sass_loop *loops, int max)
{
  int i, j, n = 0;
  for (i = 0; i < f->n; i++) {
    char op[32];
    unsigned target;
    sass_opcode(&f->insn[i], op, sizeof op);
    if (strncmp(op, "BRA", 3) || !branch_target(&f->insn[i], &target) ||
        target >= f->insn[i].addr)
      continue;
    for (j = i; j > 0 && f->insn[j].addr > target; j--) {}
    if (f->insn[j].addr != target || n == max) continue;
    loops[n].begin = j, loops[n].end = i, loops[n].innermost = 1;
    n++;
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      if (i != j && loops[j].begin >= loops[i].begin && loops[j].end <= loops[i].end &&
          (loops[j].begin != loops[i].begin || loops[j].end != loops[i].end))
        loops[i].innermost = 0;
  return n;
}

/* Access width class of a load: 0..4 for 8, 16, 32, 64, 128 bits. */
static int width_class(const char *op)
{
  if (strstr(op, ".128")) return 4;
  if (strstr(op, ".64")) return 3;
  if (strstr(op, ".U16") || strstr(op, ".S16")) return 1;
  if (strstr(op, ".U8") || strstr(op, ".S8")) return 0;
  return 2;
}

static int is_math(const char *op, const char *what)
{
  size_t n = strlen(what);
  return !strncmp(op, what, n) && (op[n] == '\0' || op[n] == '.');
}

/* Register sources of an instruction: operands after the first that name
 * a general register other than RZ. */
static int register_sources(const sass_insn *i)
{
  const char *p = strchr(i->text, ',');
  int n = 0;
  while (p) {
    p++;
    while (*p == ' ' || *p == '-' || *p == '|') p++;
    if (p[0] == 'R' && isdigit((unsigned char)p[1])) n++;
    p = strchr(p, ',');
  }
  return n;
}

static int popcount4(int x) { return (x & 1) + ((x >> 1) & 1) + ((x >> 2) & 1) + ((x >> 3) & 1); }

void sass_analyse(const sass_func *f, sass_stats *s)
{
  static const char *const math[] = {"HGMMA", "HMMA", "FFMA", "DFMA"};
  sass_loop loops[256];
  int i, n = sass_loops(f, loops, 256), best = -1, best_math = -1, m;
  double best_frac = 0;
  memset(s, 0, sizeof *s);
  s->insns = f->n;
  s->loops = n;
  s->main_begin = s->main_end = -1;
  for (i = 0; i < f->n; i++) {
    char op[48];
    sass_opcode(&f->insn[i], op, sizeof op);
    if (!strncmp(op, "LDL", 3) || !strncmp(op, "STL", 3)) s->ldl_stl++;
    /* A stack frame moves the stack pointer R1 after its first load. */
    if (i > 0 && !strncmp(f->insn[i].text + strcspn(f->insn[i].text, " "), " R1, R1,", 8))
      s->stack_frame = 1;
  }
  /* The main loop: the innermost loop with the most matrix or FMA
   * instructions of the dominant kind; ties go to the denser one. */
  for (m = 0; m < 4 && best < 0; m++) {
    for (i = 0; i < n; i++) {
      int j, c = 0, len = loops[i].end - loops[i].begin + 1;
      if (!loops[i].innermost) continue;
      for (j = loops[i].begin; j <= loops[i].end; j++) {
        char op[48];
        sass_opcode(&f->insn[j], op, sizeof op);
        c += is_math(op, math[m]);
      }
      if (c > 0 && (c > best_math || (c == best_math && (double)c / len > best_frac)))
        best = i, best_math = c, best_frac = (double)c / len, s->math_op = math[m];
    }
  }
  if (best < 0) return;
  s->main_begin = loops[best].begin, s->main_end = loops[best].end;
  s->loop_insns = loops[best].end - loops[best].begin + 1;
  s->loop_math = best_math;
  for (i = loops[best].begin; i <= loops[best].end; i++) {
    const sass_insn *in = &f->insn[i];
    char op[48];
    sass_opcode(in, op, sizeof op);
    if (is_math(op, "FFMA")) {
      s->loop_ffma_src += register_sources(in);
      s->loop_ffma_reused += popcount4(sass_decode(in->hi).reuse);
    }
    if (!strncmp(op, "LDGSTS", 6)) s->loop_ldgsts[width_class(op)]++;
    else if (!strncmp(op, "LDG", 3) && strcmp(op, "LDGDEPBAR")) s->loop_ldg[width_class(op)]++;
    else if (!strncmp(op, "LDS", 3) && strncmp(op, "LDSM", 4) && !strstr(in->text, "RZ, [RZ]"))
      s->loop_lds[width_class(op)]++;
    if (!strncmp(op, "BAR", 3)) s->loop_bar++;
    if (!strncmp(op, "LDL", 3) || !strncmp(op, "STL", 3)) s->loop_ldl_stl++;
  }
}
