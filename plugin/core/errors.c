/*
 * errors.c - status strings and the per-thread message of the last failure.
 *
 * The message lives in thread-local storage so that concurrent callers each
 * read their own, and so that reading it needs no lock.  It is never freed:
 * a fixed buffer per thread, truncated if a message is ever longer.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "core/errors.h"

static _Thread_local char last_error[512];

dlgemm_status dlg_fail(dlgemm_status status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  return status;
}

void dlg_clear_error(void) { last_error[0] = '\0'; }

static _Thread_local char note[1024], taken[1024]; /* a split call notes each part's engine */

void dlg_note(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(note, sizeof note, fmt, ap);
  va_end(ap);
}

void dlg_note_more(const char *fmt, ...)
{
  const size_t used = strlen(note), at = used ? used + 2 : 0;
  va_list ap;
  if (at >= sizeof note) return;
  if (used) memcpy(note + used, "; ", 2);
  va_start(ap, fmt);
  vsnprintf(note + at, sizeof note - at, fmt, ap);
  va_end(ap);
}

const char *dlg_take_note(void)
{
  snprintf(taken, sizeof taken, "%s", note);
  note[0] = '\0';
  return taken;
}

DLGEMM_API const char *dlgemm_last_error(void) { return last_error; }

DLGEMM_API const char *dlgemm_status_string(dlgemm_status status)
{
  switch (status) {
  case DLGEMM_OK: return "success";
  case DLGEMM_ERR_NULL_ARGUMENT: return "a required argument is NULL";
  case DLGEMM_ERR_UNSUPPORTED_DTYPE: return "unsupported or mismatched dtype";
  case DLGEMM_ERR_BAD_NDIM: return "tensor is not 2-D or 3-D";
  case DLGEMM_ERR_SHAPE_MISMATCH: return "shapes do not agree";
  case DLGEMM_ERR_BAD_STRIDES: return "strides are not a matrix layout";
  case DLGEMM_ERR_MISALIGNED: return "data is not aligned to its element size";
  case DLGEMM_ERR_NULL_DATA: return "data is NULL for a non-empty tensor";
  case DLGEMM_ERR_UNSUPPORTED_DEVICE: return "unsupported or mismatched device";
  case DLGEMM_ERR_OVERLAP: return "C overlaps an input";
  case DLGEMM_ERR_BAD_OPTIONS: return "invalid options";
  case DLGEMM_ERR_NO_BACKEND: return "no backend can run this call";
  case DLGEMM_ERR_BACKEND_FAILED: return "the backend failed";
  case DLGEMM_ERR_TOO_LARGE: return "a dimension is too large for the backend";
  case DLGEMM_ERR_ABI_VERSION: return "unknown ABI version";
  case DLGEMM_ERR_DLPACK_VERSION: return "unsupported DLPack version";
  case DLGEMM_ERR_READ_ONLY: return "C is read-only";
  case DLGEMM_ERR_BAD_POINTER: return "a device tensor's data is not memory of its device";
  case DLGEMM_ERR_OUT_OF_MEMORY: return "out of GPU memory for the call's workspace";
  }
  return "unknown status";
}

void dlg_copy_text(char *out, size_t len, const char *text)
{
  size_t n = strlen(text);
  if (!len) return;
  if (n >= len) n = len - 1;
  memcpy(out, text, n);
  out[n] = 0;
}

void dlg_append_note(char *text, size_t len)
{
  const char *n = dlg_take_note();
  size_t used = strlen(text);
  if (*n && used + 2 < len) snprintf(text + used, len - used, "; %s", n);
}
