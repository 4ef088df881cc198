/*
 * errors.h - the thread-local error message behind dlgemm_last_error().
 */
#ifndef DLG_ERRORS_H
#define DLG_ERRORS_H

#include <stddef.h>
#include "dlgemm.h"

#if defined(__GNUC__)
#define DLG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define DLG_PRINTF(f, a)
#endif

/* Record msg for this thread and return status, so that call sites read
 *   return dlg_fail(DLGEMM_ERR_SHAPE_MISMATCH, "A is %ldx%ld ...", ...); */
dlgemm_status dlg_fail(dlgemm_status status, const char *fmt, ...) DLG_PRINTF(2, 3);
void dlg_clear_error(void);

/* A remark about a call that succeeded, for its DLGEMM_VERBOSE line: "a
 * fault on the GPU, 5 of 16 tiles finished on the CPU".  dlg_take_note()
 * returns it ("" when there is none) and clears it. */
void dlg_note(const char *fmt, ...) DLG_PRINTF(1, 2);
/* The same, added to the note already made in this call ("kernel ...;
 * operands copied first"): for a layer that wraps one that notes. */
void dlg_note_more(const char *fmt, ...) DLG_PRINTF(1, 2);
const char *dlg_take_note(void);
/* Append "; <note>" to text (of size len) when there is a note; clears it. */
void dlg_append_note(char *text, size_t len);
/* A reason or message copied into out (of size len), cut to fit: for the
 * strings every call names, where formatting would cost more than the call. */
void dlg_copy_text(char *out, size_t len, const char *text);

#endif
