/*
 * xla_ffi.h - the part of XLA's FFI C ABI (xla/ffi/api/c_api.h, API 0.x)
 * that dlgemm's custom-call handler uses, declared here so that the plugin
 * builds without jaxlib's headers, as dlgemm.h declares DLPack 1.x itself.
 *
 * Every struct starts with struct_size and is only ever extended at its end;
 * fields are listed up to the last one dlgemm reads, and functions of the
 * API table that dlgemm does not call are kept as untyped slots so that the
 * offsets of the ones it does call stay XLA's.
 */
#ifndef DLG_API_XLA_FFI_H
#define DLG_API_XLA_FFI_H

#include <stddef.h>
#include <stdint.h>

/* The API version the handler reports: XLA keeps older minors working, and
 * jaxlib 0.10 (0.3) and 0.11 (0.4) both take 0.3. */
#define DLG_XLA_FFI_MAJOR 0
#define DLG_XLA_FFI_MINOR 3

typedef struct dlg_xla_extension {
  size_t struct_size;
  int type; /* 1: the metadata query (dlg_xla_metadata_extension) */
  struct dlg_xla_extension *next;
} dlg_xla_extension;

typedef struct dlg_xla_api_version {
  size_t struct_size;
  dlg_xla_extension *extension_start;
  int major_version;
  int minor_version;
} dlg_xla_api_version;

typedef struct dlg_xla_metadata {
  size_t struct_size;
  dlg_xla_api_version api_version;
  uint32_t traits;
} dlg_xla_metadata;

typedef struct dlg_xla_metadata_extension {
  dlg_xla_extension base;
  dlg_xla_metadata *metadata;
} dlg_xla_metadata_extension;

typedef struct dlg_xla_error dlg_xla_error; /* opaque: XLA's */
typedef struct dlg_xla_context dlg_xla_context;

/* XLA_FFI_DataType values dlgemm takes (S32: the precision attribute). */
enum { DLG_XLA_S32 = 4, DLG_XLA_F16 = 10, DLG_XLA_F32 = 11, DLG_XLA_F64 = 12, DLG_XLA_BF16 = 16 };
enum {
  DLG_XLA_ERR_INVALID_ARGUMENT = 3,
  DLG_XLA_ERR_RESOURCE_EXHAUSTED = 8,
  DLG_XLA_ERR_INTERNAL = 13
};
enum { DLG_XLA_ATTR_SCALAR = 3 };

typedef struct dlg_xla_buffer {
  size_t struct_size;
  dlg_xla_extension *extension_start;
  int dtype;
  void *data;
  int64_t rank;
  int64_t *dims; /* row-major, dense */
} dlg_xla_buffer;

typedef struct dlg_xla_byte_span {
  const char *ptr;
  size_t len;
} dlg_xla_byte_span;

typedef struct dlg_xla_scalar {
  int dtype;
  void *value;
} dlg_xla_scalar;

typedef struct dlg_xla_list { /* XLA_FFI_Args and XLA_FFI_Rets */
  size_t struct_size;
  dlg_xla_extension *extension_start;
  int64_t size;
  int *types; /* 1: a buffer */
  void **items;
} dlg_xla_list;

typedef struct dlg_xla_attrs {
  size_t struct_size;
  dlg_xla_extension *extension_start;
  int64_t size;
  int *types;
  dlg_xla_byte_span **names;
  void **attrs;
} dlg_xla_attrs;

typedef struct dlg_xla_api dlg_xla_api;

typedef struct dlg_xla_call_frame {
  size_t struct_size;
  dlg_xla_extension *extension_start;
  const dlg_xla_api *api;
  dlg_xla_context *ctx;
  int stage; /* 3: execute */
  dlg_xla_list args;
  dlg_xla_list rets;
  dlg_xla_attrs attrs;
} dlg_xla_call_frame;

typedef struct dlg_xla_error_create_args {
  size_t struct_size;
  dlg_xla_extension *extension_start;
  const char *message; /* copied by XLA */
  int errc;
} dlg_xla_error_create_args;

typedef struct dlg_xla_stream_get_args {
  size_t struct_size;
  dlg_xla_extension *extension_start;
  dlg_xla_context *ctx;
  void *stream; /* out: the CUstream the custom call is ordered on */
} dlg_xla_stream_get_args;

typedef struct dlg_xla_device_ordinal_args {
  size_t struct_size;
  dlg_xla_extension *extension_start;
  dlg_xla_context *ctx;
  int32_t device_ordinal; /* out */
} dlg_xla_device_ordinal_args;

struct dlg_xla_api {
  size_t struct_size;
  dlg_xla_extension *extension_start;
  dlg_xla_api_version api_version;
  const void *internal_api;
  dlg_xla_error *(*error_create)(dlg_xla_error_create_args *args);
  void *error_get_details, *error_destroy, *handler_register;
  dlg_xla_error *(*stream_get)(dlg_xla_stream_get_args *args);
  void *type_register, *context_get, *state_set, *state_get, *memory_allocate, *memory_free,
      *thread_pool_schedule, *thread_pool_threads, *future_create, *future_set_available,
      *future_set_error, *run_id_get;
  dlg_xla_error *(*device_ordinal_get)(dlg_xla_device_ordinal_args *args);
};

#endif /* DLG_API_XLA_FFI_H */
