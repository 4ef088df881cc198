/*
 * xla.c - dlgemm as an XLA custom call (the FFI C ABI, shims/xla/xla_ffi.h),
 * so that a jitted JAX function's products run on dlgemm, on the stream XLA
 * orders the call on.  Python registers the two handlers by name through
 * jax.ffi (python/dlgemm/jax.py); nothing here links against XLA.
 *
 * The call: operands a (m x k or batch x m x k), b (k x n or batch x k x n)
 * and optionally c; one result of c's shape; attributes alpha and beta (f64)
 * and precision (s32, a dlgemm_precision), all optional.  XLA's buffers are
 * dense row-major, which is dlgemm's compact layout; trans_a (s32, not 0)
 * says a is stored k x m and is read transposed, trans_b that b is stored
 * n x k, so that the JAX lowering hands over dot_general's operands as they
 * lie.  A beta other than 0 needs the third operand aliased to the result
 * (jax.ffi.ffi_call's input_output_aliases={2: 0}): dlgemm reads C where it
 * writes it.
 *
 * route (s32, not 0) marks a product the JAX lowering sent here in place of
 * XLA's own dot: it is dlgemm's only where dlgemm is measured to finish its
 * class sooner than the program's cuBLAS (api/rival.c, DLGEMM_CUBLAS), and
 * cuBLAS makes it otherwise (shims/cublas/own.c); with no cuBLAS in the
 * process there is nothing to lose to, and dlgemm makes it.  Without route
 * (dlgemm.jax.matmul, asked for by name) dlgemm always does.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "api/matmul.h"
#include "api/validate.h"
#include "core/errors.h"
#include "shims/xla/xla_ffi.h"
#ifdef DLGEMM_HAVE_CUDA
#include "api/rival.h"
#include "core/config.h"
#include "cuda/device/driver.h"
#include "shims/cublas/own.h"
#endif

typedef struct xla_attrs {
  double alpha, beta;
  int precision, trans_a, trans_b, route;
} xla_attrs;

/* A DLTensor of an XLA buffer with its shape and strides beside it. */
typedef struct xla_view {
  DLTensor t;
  int64_t shape[3], strides[3];
} xla_view;

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

/* One XLA buffer (rank 2 or 3, dense row-major) as a DLTensor, its last
 * two dimensions swapped where `transposed`. */
static int view(const dlg_xla_list *list, int64_t i, DLDevice device, int transposed,
                xla_view *v)
{
  const dlg_xla_buffer *buf;
  int d, n;
  if (i >= list->size || list->types[i] != 1) return 0;
  buf = list->items[i];
  n = (int)buf->rank;
  memset(v, 0, sizeof *v);
  if (n < 2 || n > 3 || !to_dlpack_dtype(buf->dtype, &v->t.dtype)) return 0;
  for (d = n - 1; d >= 0; d--) {
    v->shape[d] = buf->dims[d];
    v->strides[d] = d == n - 1 ? 1 : v->strides[d + 1] * buf->dims[d + 1];
  }
  if (transposed) {
    int64_t s = v->shape[n - 1], st = v->strides[n - 1];
    v->shape[n - 1] = v->shape[n - 2], v->strides[n - 1] = v->strides[n - 2];
    v->shape[n - 2] = s, v->strides[n - 2] = st;
  }
  v->t.data = buf->data;
  v->t.device = device;
  v->t.ndim = n;
  v->t.shape = v->shape;
  v->t.strides = v->strides;
  return 1;
}

static int same_name(const dlg_xla_byte_span *name, const char *want)
{
  return name->len == strlen(want) && memcmp(name->ptr, want, name->len) == 0;
}

/* The attributes of the header comment; any other is an error, so that a
 * misspelt name is not silently ignored. */
static const char *read_attrs(const dlg_xla_attrs *attrs, xla_attrs *out)
{
  static _Thread_local char why[200];
  static const char *const flags[] = {"precision", "trans_a", "trans_b", "route"};
  int *const flag_of[] = {&out->precision, &out->trans_a, &out->trans_b, &out->route};
  for (int64_t i = 0; i < attrs->size; i++) {
    const dlg_xla_byte_span *name = attrs->names[i];
    const dlg_xla_scalar *s = attrs->attrs[i];
    int is_scalar = attrs->types[i] == DLG_XLA_ATTR_SCALAR, known = 0;
    if (is_scalar && s->dtype == DLG_XLA_F64 && same_name(name, "alpha"))
      out->alpha = *(const double *)s->value, known = 1;
    else if (is_scalar && s->dtype == DLG_XLA_F64 && same_name(name, "beta"))
      out->beta = *(const double *)s->value, known = 1;
    for (size_t f = 0; !known && is_scalar && s->dtype == DLG_XLA_S32 && f < 4; f++)
      if (same_name(name, flags[f])) *flag_of[f] = *(const int32_t *)s->value, known = 1;
    if (!known) {
      snprintf(why, sizeof why, "dlgemm: attribute '%.*s' is not taken (alpha, beta: f64; "
               "precision, trans_a, trans_b, route: s32)", (int)name->len, name->ptr);
      return why;
    }
  }
  return NULL;
}

#ifdef DLGEMM_HAVE_CUDA
/* A routed product (see the header comment) in the device's primary
 * context, which XLA shares: 1 when dlgemm or cuBLAS made it, 0 when
 * neither could (dlgemm_matmul then has it, and reports why). */
static int routed(const xla_view *a, const xla_view *b, xla_view *c, const xla_attrs *at,
                  void *stream)
{
  const dlg_cuda_api *cu = dlg_cuda_api_get(NULL, 0);
  static CUcontext primary[DLG_MAX_DEVICES]; /* retained once, kept: XLA keeps it too */
  static pthread_mutex_t primary_lock = PTHREAD_MUTEX_INITIALIZER;
  CUdevice dev;
  CUcontext ctx, popped;
  dlg_rival_call call;
  int id = c->t.device.device_id, done = 0;

  if (!cu || id < 0 || id >= DLG_MAX_DEVICES || !dlg_cublas_own_available()) return 0;
  /* retained on a device's first product; every later one reads it without the lock */
  if (!(ctx = __atomic_load_n(&primary[id], __ATOMIC_ACQUIRE))) {
    pthread_mutex_lock(&primary_lock);
    if (!primary[id] && cu->DeviceGet(&dev, id) == CUDA_SUCCESS &&
        cu->DevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS)
      __atomic_store_n(&primary[id], ctx, __ATOMIC_RELEASE);
    ctx = primary[id];
    pthread_mutex_unlock(&primary_lock);
  }
  if (!ctx || cu->CtxPushCurrent(ctx) != CUDA_SUCCESS) return 0;
  memset(&call, 0, sizeof call);
  call.routine = "xla_dot";
  call.a = a->t, call.b = b->t, call.c = c->t;
  call.alpha = at->alpha, call.beta = at->beta;
  call.precision = at->precision;
  call.stream = stream;
  call.theirs = dlg_cublas_own_gemm;
  done = dlg_rival_take(&call) || dlg_cublas_own_gemm(&call, c->t.data) == 0;
  if (!done && dlg_config_get()->verbose)
    fprintf(stderr, "dlgemm: xla_dot: cuBLAS did not take the product; dlgemm makes it\n");
  cu->CtxPopCurrent(&popped);
  return done;
}
#endif

static dlg_xla_error *run(dlg_xla_call_frame *frame, int on_gpu)
{
  const dlg_xla_api *api = frame->api;
  xla_view a, b, c, c_in;
  DLDevice device = {on_gpu ? kDLCUDA : kDLCPU, 0};
  dlgemm_options opts;
  xla_attrs at = {1.0, 0.0, DLGEMM_PRECISION_STRICT, 0, 0, 0};
  const char *bad;
  char message[600];
  dlgemm_status st;

  if (answer_metadata(frame)) return NULL;
  if (frame->stage != 3) return NULL; /* only the execute stage does work */
  if ((bad = read_attrs(&frame->attrs, &at)))
    return xla_error(api, DLG_XLA_ERR_INVALID_ARGUMENT, bad);
  dlgemm_options_init(&opts);
  opts.precision = at.precision;
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
      !view(&frame->args, 0, device, at.trans_a, &a) ||
      !view(&frame->args, 1, device, at.trans_b, &b) || !view(&frame->rets, 0, device, 0, &c))
    return xla_error(api, DLG_XLA_ERR_INVALID_ARGUMENT,
                     "dlgemm: takes operands a, b [, c] and one result, buffers of rank 2 or 3 "
                     "of float16, bfloat16, float32 or float64");
  if (at.beta != 0.0 && (frame->args.size != 3 || !view(&frame->args, 2, device, 0, &c_in) ||
                         c_in.t.data != c.t.data))
    return xla_error(api, DLG_XLA_ERR_INVALID_ARGUMENT,
                     "dlgemm: beta != 0 reads C: pass c as the third operand, aliased to the "
                     "result (input_output_aliases={2: 0})");
#ifdef DLGEMM_HAVE_CUDA
  {
    dlg_gemm g; /* only a well-formed product goes to the rival: validation is dlgemm's */
    if (on_gpu && at.route && dlg_validate_tensors(&a.t, &b.t, &c.t, &g) == DLGEMM_OK &&
        routed(&a, &b, &c, &at, opts.stream))
      return NULL;
  }
#endif
  st = dlgemm_matmul(&a.t, &b.t, &c.t, at.alpha, at.beta, &opts);
  if (st == DLGEMM_OK) return NULL;
  snprintf(message, sizeof message, "dlgemm: %s: %s", dlgemm_status_string(st),
           dlgemm_last_error());
  return xla_error(api, st == DLGEMM_ERR_BACKEND_FAILED  ? DLG_XLA_ERR_INTERNAL
                       : st == DLGEMM_ERR_OUT_OF_MEMORY ? DLG_XLA_ERR_RESOURCE_EXHAUSTED
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
