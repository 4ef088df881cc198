/*
 * slots.c - the CUDA devices of host-array calls (slots.h): the driver's
 * device count and the environment, through the choice of gpu/devices.c;
 * and the setup of a call that runs on the first of them alone.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/calllog.h"
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/hostarray/slots.h"

static dlg_device_choice choice;
static pthread_once_t choice_once = PTHREAD_ONCE_INIT;

static const char *from_environment(const char *name) { return getenv(name); }

/* The slots' ordinals, joined by sep, into out. */
static void list_slots(unsigned mask, char sep, char *out, size_t len)
{
  size_t used = 0;
  int s;
  out[0] = '\0';
  for (s = 0; s < choice.n && used + 4 < len; s++)
    if (mask >> s & 1) {
      if (used) out[used++] = sep;
      used += (size_t)snprintf(out + used, len - used, "%d", choice.ordinal[s]);
    }
}

static void choose(void)
{
  const dlg_config *cfg = dlg_config_get();
  char why[160], list[64];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  int count = 0;
  if (cu && cu->DeviceGetCount(&count)) count = 0;
  dlg_devices_choose(cfg->devices, cfg->ndevices, from_environment, count, &choice);
  if (!cu) dlg_copy_text(choice.why, sizeof choice.why, why);
  if (choice.warning[0]) fprintf(stderr, "dlgemm: %s\n", choice.warning);
  if (cfg->verbose && choice.n) {
    list_slots(~0u, ',', list, sizeof list);
    fprintf(stderr, "dlgemm: host arrays on CUDA device%s %s (%s)\n", choice.n > 1 ? "s" : "",
            list, choice.why);
  }
}

const dlg_device_choice *dlg_cuda_slots(void)
{
  pthread_once(&choice_once, choose);
  return &choice;
}

dlg_cuda_device *dlg_cuda_slot_device(int slot)
{
  const dlg_device_choice *c = dlg_cuda_slots();
  if (slot < 0 || slot >= c->n) {
    dlg_fail(DLGEMM_ERR_NO_BACKEND, "no CUDA device for host arrays (slot %d: %s)", slot, c->why);
    return NULL;
  }
  return dlg_cuda_device_get(c->ordinal[slot]);
}

int dlg_cuda_slot_sharers(int slot)
{
  const dlg_device_choice *c = dlg_cuda_slots();
  int s, n = 0;
  for (s = 0; s < c->n; s++) n += c->ordinal[s] == c->ordinal[slot];
  return n ? n : 1;
}

void dlg_cuda_say_slots(unsigned mask)
{
  char list[64];
  if (!dlg_config_get()->verbose) return;
  list_slots(mask, '+', list, sizeof list);
  dlg_log_devices("cuda:%s", list);
}

dlgemm_status dlg_cuda_trip_begin(dlg_cuda_trip *t, int streams)
{
  char why[160];
  CUresult e;
  memset(t, 0, sizeof *t);
  if (!(t->cu = dlg_cuda_api_get(why, sizeof why)))
    return dlg_fail(DLGEMM_ERR_NO_BACKEND, "%s", why);
  if (!(t->dev = dlg_cuda_slot_device(0))) return DLGEMM_ERR_NO_BACKEND;
  dlg_cuda_say_slots(1);
  if ((e = t->cu->CtxPushCurrent(t->dev->ctx)))
    return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA context failed: %s", dlg_cuda_error(e));
  for (; t->streams < streams; t->streams++)
    if ((e = t->cu->StreamCreate(&t->stream[t->streams], CU_STREAM_NON_BLOCKING))) {
      dlg_cuda_trip_end(t);
      return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA stream creation failed: %s",
                      dlg_cuda_error(e));
    }
  return DLGEMM_OK;
}

void dlg_cuda_trip_end(dlg_cuda_trip *t)
{
  while (t->streams > 0) t->cu->StreamDestroy(t->stream[--t->streams]);
  t->cu->CtxPopCurrent(NULL);
}
