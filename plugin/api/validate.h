/*
 * validate.h - DLTensor arguments and options into a checked dlg_gemm.
 */
#ifndef DLG_VALIDATE_H
#define DLG_VALIDATE_H

#include "core/gemm.h"

/* Fill g from the tensors, or return a status (with dlgemm_last_error()
 * naming the argument) and leave g unspecified.  Reads nothing but the
 * DLTensor structs: no element of any tensor is touched. */
dlgemm_status dlg_validate_tensors(const DLTensor *a, const DLTensor *b, const DLTensor *c,
                                   dlg_gemm *g);

/* Make (rs, cs) of a rows x cols matrix canonical: afterwards either cs == 1
 * and rs >= cols (row-major) or rs == 1 and cs >= rows (column-major).  Fails
 * (naming the matrix `name`) when neither stride is a unit stride or the
 * leading dimension is too small.  Entry points other than DLPack (the BLAS
 * shims) call it too, so every backend sees one form. */
dlgemm_status dlg_canonical_layout(const char *name, int64_t rows, int64_t cols, int64_t *rs,
                                   int64_t *cs);

/* Copy the caller's options (NULL: defaults) into out, honouring
 * struct_size as dlgemm.h describes. */
dlgemm_status dlg_validate_options(const dlgemm_options *in, dlgemm_options *out);

#endif
