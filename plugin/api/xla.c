/*
 * xla.c - dlgemm as an XLA custom call (the FFI C ABI, plugin/api/xla_ffi.h),
 * so that a jitted JAX function's products run on dlgemm, on the stream XLA
 * orders the call on.  Python registers the two handlers by name through
 * jax.ffi (python/dlgemm/jax.py); nothing here links against XLA.
 *
 * The call: operands a (m x k or batch x m x k), b (k x n or batch x k x n)
 * and optionally c; one result of c's shape; attributes alpha and beta (f64)
 * and precision (s32, a dlgemm_precision), all optional.  XLA's buffers are
 * dense row-major, which is dlgemm's compact layout.  A beta other than 0
 * needs the third operand aliased to the result (jax.ffi.ffi_call's
 * input_output_aliases={2: 0}): dlgemm reads C where it writes it.
 */
#include <stdio.h>
#include <string.h>
#include "api/matmul.h"
#include "api/validate.h"
#include "api/xla_ffi.h"
#include "core/errors.h"

static dlg_xla_error *xla_error(const dlg_xla_api *api, int errc, const char *message)
{
  dlg_xla_error_create_args args;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.message = message;
  args.errc = errc;
  return api->error_create(&args);
}

/* XLA asks each handler which API version it was built for, once. */
static int answer_metadata(dlg_xla_call_frame *frame)
{
  dlg_xla_metadata_extension *ext = (dlg_xla_metadata_extension *)frame->extension_start;
  if (!ext || ext->base.type != 1) return 0;
  /* XLA's struct sizes end at the last field (no tail padding). */
  if (ext->metadata &&
      ext->metadata->struct_size >= offsetof(dlg_xla_metadata, traits) + sizeof(uint32_t)) {
    ext->metadata->api_version.struct_size = sizeof(dlg_xla_api_version);
    ext->metadata->api_version.extension_start = NULL;
    ext->metadata->api_version.major_version = DLG_XLA_FFI_MAJOR;
    ext->metadata->api_version.minor_version = DLG_XLA_FFI_MINOR;
    ext->metadata->traits = 0; /* not captured into command buffers: dlgemm may allocate */
  }
  return 1;
}

static int to_dlpack_dtype(int xla, DLDataType *out)
{
  out->lanes = 1;
  switch (xla) {
  case DLG_XLA_F16: out->code = kDLFloat, out->bits = 16; return 1;
  case DLG_XLA_F32: out->code = kDLFloat, out->bits = 32; return 1;
  case DLG_XLA_F64: out->code = kDLFloat, out->bits = 64; return 1;
  case DLG_XLA_BF16: out->code = kDLBfloat, out->bits = 16; return 1;
  default: return 0;
  }
}

/* One XLA buffer as a compact row-major DLTensor (strides NULL). */
static int view(const dlg_xla_list *list, int64_t i, DLDevice device, DLTensor *t)
{
  const dlg_xla_buffer *buf;
  if (i >= list->size || list->types[i] != 1) return 0;
  buf = list->items[i];
  memset(t, 0, sizeof *t);
  if (!to_dlpack_dtype(buf->dtype, &t->dtype)) return 0;
  t->data = buf->data;
  t->device = device;
  t->ndim = (int32_t)buf->rank;
  t->shape = buf->dims;
  return 1;
}

static int same_name(const dlg_xla_byte_span *name, const char *want)
{
  return name->len == strlen(want) && memcmp(name->ptr, want, name->len) == 0;
}

/* alpha, beta and precision; other attributes are an error, so that a
 * misspelt name is not silently ignored. */
static const char *read_attrs(const dlg_xla_attrs *attrs, double *alpha, double *beta,
                              int *precision)
{
  static _Thread_local char why[160];
  for (int64_t i = 0; i < attrs->size; i++) {
    const dlg_xla_byte_span *name = attrs->names[i];
    const dlg_xla_scalar *s = attrs->attrs[i];
    int is_scalar = attrs->types[i] == DLG_XLA_ATTR_SCALAR;
    if (is_scalar && s->dtype == DLG_XLA_F64 && same_name(name, "alpha"))
      *alpha = *(const double *)s->value;
    else if (is_scalar && s->dtype == DLG_XLA_F64 && same_name(name, "beta"))
      *beta = *(const double *)s->value;
    else if (is_scalar && s->dtype == DLG_XLA_S32 && same_name(name, "precision"))
      *precision = *(const int32_t *)s->value;
    else {
      snprintf(why, sizeof why, "dlgemm: attribute '%.*s' is not taken (alpha: f64, beta: f64, "
               "precision: s32)", (int)name->len, name->ptr);
      return why;
    }
  }
  return NULL;
}

static dlg_xla_error *run(dlg_xla_call_frame *frame, int on_gpu)
{
  const dlg_xla_api *api = frame->api;
  DLTensor a, b, c, c_in;
  DLDevice device = {on_gpu ? kDLCUDA : kDLCPU, 0};
  dlgemm_options opts;
  double alpha = 1.0, beta = 0.0;
  int precision = DLGEMM_PRECISION_STRICT;
  const char *bad;
  char message[600];
  dlgemm_status st;

  if (answer_metadata(frame)) return NULL;
  if (frame->stage != 3) return NULL; /* only the execute stage does work */
  if ((bad = read_attrs(&frame->attrs, &alpha, &beta, &precision)))
    return xla_error(api, DLG_XLA_ERR_INVALID_ARGUMENT, bad);
  dlgemm_options_init(&opts);
  opts.precision = precision;
  if (on_gpu) {
    dlg_xla_stream_get_args sargs;
    dlg_xla_device_ordinal_args dargs;
    dlg_xla_error *err;
    memset(&sargs, 0, sizeof sargs);
    sargs.struct_size = sizeof sargs;
    sargs.ctx = frame->ctx;
    if ((err = api->stream_get(&sargs))) return err;
    opts.stream = sargs.stream;
    if (api->struct_size >= offsetof(dlg_xla_api, device_ordinal_get) + sizeof(void *)) {
      memset(&dargs, 0, sizeof dargs);
      dargs.struct_size = sizeof dargs;
      dargs.ctx = frame->ctx;
      if ((err = api->device_ordinal_get(&dargs))) return err;
      device.device_id = dargs.device_ordinal;
    }
  }
  if (frame->args.size < 2 || frame->args.size > 3 || frame->rets.size != 1 ||
      !view(&frame->args, 0, device, &a) || !view(&frame->args, 1, device, &b) ||
      !view(&frame->rets, 0, device, &c))
    return xla_error(api, DLG_XLA_ERR_INVALID_ARGUMENT,
                     "dlgemm: takes operands a, b [, c] and one result, buffers of float16, "
                     "bfloat16, float32 or float64");
  if (beta != 0.0 && (frame->args.size != 3 || !view(&frame->args, 2, device, &c_in) ||
                      c_in.data != c.data))
    return xla_error(api, DLG_XLA_ERR_INVALID_ARGUMENT,
                     "dlgemm: beta != 0 reads C: pass c as the third operand, aliased to the "
                     "result (input_output_aliases={2: 0})");
  st = dlgemm_matmul(&a, &b, &c, alpha, beta, &opts);
  if (st == DLGEMM_OK) return NULL;
  snprintf(message, sizeof message, "dlgemm: %s: %s", dlgemm_status_string(st),
           dlgemm_last_error());
  return xla_error(api, st == DLGEMM_ERR_BACKEND_FAILED ? DLG_XLA_ERR_INTERNAL
                                                        : DLG_XLA_ERR_INVALID_ARGUMENT, message);
}

DLGEMM_API struct XLA_FFI_Error *dlgemm_xla_matmul_cuda(struct XLA_FFI_CallFrame *frame)
{
  return (struct XLA_FFI_Error *)run((dlg_xla_call_frame *)frame, 1);
}

DLGEMM_API struct XLA_FFI_Error *dlgemm_xla_matmul_cpu(struct XLA_FFI_CallFrame *frame)
{
  return (struct XLA_FFI_Error *)run((dlg_xla_call_frame *)frame, 0);
}
