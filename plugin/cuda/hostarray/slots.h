/*
 * slots.h - the CUDA devices of host-array calls as slots (gpu/devices.h),
 * chosen once per process.  Each slot has its own engine; slot 0 is the
 * first device of the list, where the single-device paths (the level-3
 * routines, the factorizations) run.
 */
#ifndef DLG_CUDA_SLOTS_H
#define DLG_CUDA_SLOTS_H

#include "cuda/device/device.h"
#include "gpu/devices.h"

/* The slots; n is 0 where there is no usable driver or device. */
const dlg_device_choice *dlg_cuda_slots(void);

/* Slot s's device, set up; NULL with a dlgemm_last_error() message. */
dlg_cuda_device *dlg_cuda_slot_device(int slot);

/* How many slots (s among them) are on slot s's device: they share it. */
int dlg_cuda_slot_sharers(int slot);

/* For this call's DLGEMM_VERBOSE line: the slots of mask (bit s: slot s)
 * took it ("cuda:0", "cuda:0+1"). */
void dlg_cuda_say_slots(unsigned mask);

/* A call that runs on one device (the level-3 routines, the
 * factorizations): slot 0's device, said on the verbose line, with its
 * context current and `streams` (1 or 2) new streams on it.  On failure
 * nothing is held; otherwise dlg_cuda_trip_end gives it all back. */
typedef struct dlg_cuda_trip {
  const dlg_cuda_api *cu;
  dlg_cuda_device *dev;
  CUstream stream[2];
  int streams;
} dlg_cuda_trip;

dlgemm_status dlg_cuda_trip_begin(dlg_cuda_trip *t, int streams);
void dlg_cuda_trip_end(dlg_cuda_trip *t);

#endif
