/*
 * device_once.c - per-device, once-only setup for the GPU backends.
 */
#include <stdio.h>
#include "core/errors.h"
#include "gpu/device_once.h"

int dlg_device_ready(dlg_device_once *once, int ordinal, dlg_device_setup setup,
                     const char *family)
{
  int state;
  if (ordinal < 0 || ordinal >= DLG_MAX_DEVICES) {
    dlg_fail(DLGEMM_ERR_UNSUPPORTED_DEVICE, "%s device %d is out of range", family, ordinal);
    return 0;
  }
  if (__atomic_load_n(&once->state[ordinal], __ATOMIC_ACQUIRE) == 1) return 1;
  pthread_mutex_lock(&once->lock);
  if (!once->state[ordinal])
    __atomic_store_n(&once->state[ordinal],
                     setup(ordinal, once->error[ordinal], sizeof once->error[ordinal]) ? -1 : 1,
                     __ATOMIC_RELEASE);
  state = once->state[ordinal];
  pthread_mutex_unlock(&once->lock);
  if (state == 1) return 1;
  dlg_fail(DLGEMM_ERR_NO_BACKEND, "%s", once->error[ordinal]);
  return 0;
}

int dlg_device_probe(dlg_device_once *once, int ordinal, dlg_device_setup setup,
                     const char *family, char *why, size_t why_len)
{
  /* Every host call probes every GPU backend: one that failed before answers
   * with its remembered reason, without formatting an error each time. */
  if (ordinal >= 0 && ordinal < DLG_MAX_DEVICES &&
      __atomic_load_n(&once->state[ordinal], __ATOMIC_ACQUIRE) == -1) {
    dlg_copy_text(why, why_len, once->error[ordinal]);
    return DLGEMM_ERR_NO_BACKEND;
  }
  if (dlg_device_ready(once, ordinal, setup, family)) return 0;
  snprintf(why, why_len, "%s", dlgemm_last_error());
  return DLGEMM_ERR_NO_BACKEND;
}
