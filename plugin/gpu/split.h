/*
 * split.h - how one product's C is cut across several devices, in
 * proportion to their speeds: a pure function, tested without a GPU.
 */
#ifndef DLG_SPLIT_H
#define DLG_SPLIT_H

#include <stdint.h>
#include "core/config.h"

/* Cuts fall on multiples of this many columns (rows): tiles of the kernels
 * and of the host-array engine, whose tile sides are multiples of 256. */
enum { DLG_SPLIT_GRANULE = 256 };

typedef struct dlg_split {
  int cols;  /* 1: C in column blocks, each device reading all of A; 0: row blocks, all of B */
  int parts;
  int64_t start[DLG_MAX_DEVICES + 1]; /* part p: columns (rows) [start[p], start[p + 1]) */
} dlg_split;

/* The cut of an m x n C over parts devices, part p in proportion to
 * speed[p] (any unit; one not positive takes nothing, and when none is
 * positive all count the same).  A part may be empty. */
void dlg_split_plan(int64_t m, int64_t n, const double *speed, int parts, dlg_split *out);

#endif
