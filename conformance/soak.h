/*
 * soak.h - the soak's parts (conformance/soak.c): one checked call of each
 * kind (soak_calls.c), and the signal scenarios (soak_signals.c).
 */
#ifndef DLG_SOAK_H
#define DLG_SOAK_H

#include "cudrv.h"
#include "host_gemm.h"

/* the kinds of call, the device-tensor one last (it needs a GPU) */
enum { SOAK_GEMM, SOAK_TRSM, SOAK_SYRK, SOAK_FACTOR, SOAK_DEVICE, SOAK_KINDS };
extern const char *const soak_kind_name[SOAK_KINDS];

/* One call of the kind with random sizes and scalars, checked on sampled
 * entries; returns 1 when the answer is wrong (and says so on stderr).
 * cu: the driver, for SOAK_DEVICE, with a context current on this thread. */
int soak_call(int kind, rng *r, const cudrv *cu);
/* One call that takes dlgemm's one-time growth before the measured run
 * (soak_calls.c says which); 1 when its answer was wrong. */
int soak_warm(rng *r, const cudrv *cu);

/* Seconds on the monotonic clock. */
double soak_now(void);

/* Whether the driver sees a GPU, asked in a child: a process whose parent
 * initialised CUDA before fork() cannot use it. */
int soak_has_gpu(void);

/* The memory-pressure scenario (soak_pressure.c); 77 without a GPU. */
int soak_pressure(size_t leave_mb, int first);

/* The seed of this run's draws, taken once (testutil.h). */
uint64_t soak_seed(void);

/* The signal scenarios (soak_signals.c); 0 when all passed. */
int soak_signals(void);

#endif
