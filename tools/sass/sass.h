/*
 * sass.h - reading NVIDIA SASS listings (cuobjdump -sass) and decoding the
 * control information that sm_70 and later keep in each 128-bit
 * instruction word.  SASS_NOTES.md beside this file gives the bit layout,
 * the maxas notation and where the facts come from.
 */
#ifndef DLG_SASS_H
#define DLG_SASS_H

#include <stdint.h>
#include <stdio.h>

/* The scheduling fields of one instruction (bits 105..125 of the word). */
typedef struct sass_ctrl {
  int stall;  /* cycles before the next instruction issues, 0..15 */
  int yield;  /* the yield bit */
  int wbar;   /* scoreboard set when the result is written: 0..5, or -1 */
  int rbar;   /* scoreboard set when the sources have been read: 0..5, or -1 */
  int wait;   /* mask of scoreboards waited on before issue */
  int reuse;  /* operand reuse-cache flags, bit 0 = first source */
} sass_ctrl;

typedef struct sass_insn {
  unsigned addr;
  char text[192]; /* "@P0 FFMA R1, R2.reuse, R3, R4" without the ';' */
  uint64_t lo, hi;
} sass_insn;

typedef struct sass_func {
  char name[160];
  char arch[16]; /* "sm_90" */
  sass_insn *insn;
  int n, cap;
} sass_func;

typedef struct sass_listing {
  sass_func *func;
  int n, cap;
} sass_listing;

/* The loop found from one backward branch: instructions [begin, end]. */
typedef struct sass_loop {
  int begin, end;
  int innermost; /* no other backward branch inside */
} sass_loop;

/* What the summary reports about a function and its main loop. */
typedef struct sass_stats {
  int insns, ldl_stl, stack_frame;
  int loops, main_begin, main_end; /* main loop: -1 when there is none */
  int loop_insns, loop_math, loop_ffma_src, loop_ffma_reused;
  int loop_lds[5], loop_ldg[5], loop_ldgsts[5]; /* by width: 8,16,32,64,128 bits */
  int loop_bar, loop_ldl_stl;
  const char *math_op; /* "FFMA", "HMMA", "HGMMA" or NULL: the main loop's matrix/FMA op */
} sass_stats;

sass_ctrl sass_decode(uint64_t hi);
/* maxas notation "wait:read:write:yield:stall", e.g. "03:-:2:Y:1". */
void sass_format_ctrl(sass_ctrl c, char out[24]);

/* Parse cuobjdump -sass text; returns 0, or -1 with a message on stderr. */
int sass_parse(FILE *in, sass_listing *out);
void sass_free(sass_listing *l);
/* Move every function of `from` to the end of `into`; `from` is left empty. */
void sass_take(sass_listing *into, sass_listing *from);

/* The opcode of an instruction ("FFMA", "LDS.128"), guard stripped. */
void sass_opcode(const sass_insn *i, char *out, size_t len);
int sass_loops(const sass_func *f, sass_loop *loops, int max);
void sass_analyse(const sass_func *f, sass_stats *s);

#endif
