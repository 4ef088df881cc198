/*
 * local_cpu.h - the local matrix in host memory, the operations plain
 * loops (local.h).
 */
#ifndef DLG_DIST_LOCAL_CPU_H
#define DLG_DIST_LOCAL_CPU_H

#include "dist/local.h"

extern const dlg_local_ops dlg_local_cpu;

#endif
