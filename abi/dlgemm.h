/*
 * dlgemm.h - the public C ABI of libdlgemm.so.
 *
 * C = alpha * A * B + beta * C on DLPack tensors.  The layout of each operand
 * (row-major, column-major, a transposed view, a leading dimension larger than
 * the matrix) is read from its strides; a 3-D tensor is a batch of matrices
 * whose first dimension is the batch.  Nothing here depends on CUDA: a program
 * that only has host tensors needs no GPU, driver or toolkit.
 *
 * Programs that dlopen() the plugin should go through dlgemm_get_api(), which
 * returns a versioned table of function pointers, rather than dlsym() each
 * name: the table's abi_version tells them what they can call.
 */
#ifndef DLGEMM_H
#define DLGEMM_H

#include <stddef.h>
#include <stdint.h>
#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * DLPack versions taken:
 *   - DLTensor, as in every DLPack release since 0.2 (its layout has not
 *     changed): dlgemm_matmul;
 *   - DLManagedTensor of DLPack 0.x: dlgemm_matmul_managed;
 *   - DLManagedTensorVersioned of DLPack 1.x, any minor version (1.x only
 *     appends flags and dtypes): dlgemm_matmul_versioned.  A major version
 *     other than 1 is refused (DLGEMM_ERR_DLPACK_VERSION), and so is a C with
 *     the read-only flag (DLGEMM_ERR_READ_ONLY).
 * dlgemm borrows the tensors for the call only: it never calls a deleter.
 * For kDLCUDA tensors the memory must stay valid until the queued work is
 * done, as for any asynchronous GPU operation.
 *
 * Debian's dlpack.h is 0.6, which has no versioned structures; where the
 * installed header lacks them (it defines no DLPACK_MAJOR_VERSION) they are
 * declared here with the layout DLPack 1.0 publishes, so the two never clash.
 */
#ifndef DLPACK_MAJOR_VERSION
/* Defined when the declarations below are dlgemm's, not the installed header's. */
#define DLGEMM_DLPACK_1X_DECLARED 1
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned *self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#endif

#define DLGEMM_VERSION_MAJOR 0
#define DLGEMM_VERSION_MINOR 1
#define DLGEMM_VERSION_PATCH 0

/* Version of the function table returned by dlgemm_get_api(): 1 has
 * matmul on DLTensors; 2 adds matmul_managed and matmul_versioned. */
#define DLGEMM_ABI_VERSION 2

#if defined(__GNUC__)
#define DLGEMM_API __attribute__((visibility("default")))
#else
#define DLGEMM_API
#endif

/* Status codes.  0 is success; every failure leaves C untouched and sets a
 * thread-local message, readable with dlgemm_last_error(). */
typedef enum dlgemm_status {
  DLGEMM_OK = 0,
  DLGEMM_ERR_NULL_ARGUMENT = 1,     /* a required pointer is NULL */
  DLGEMM_ERR_UNSUPPORTED_DTYPE = 2, /* dtype not taken (yet) or operands differ */
  DLGEMM_ERR_BAD_NDIM = 3,          /* ndim is not 2 or 3, or the ndims disagree */
  DLGEMM_ERR_SHAPE_MISMATCH = 4,    /* A is m x k, B k x n, C m x n: they are not */
  DLGEMM_ERR_BAD_STRIDES = 5,       /* no unit stride, negative or overlapping strides */
  DLGEMM_ERR_MISALIGNED = 6,        /* data + byte_offset not aligned to the element */
  DLGEMM_ERR_NULL_DATA = 7,         /* data is NULL but the tensor has elements */
  DLGEMM_ERR_UNSUPPORTED_DEVICE = 8,/* device type not taken, or operands on different devices */
  DLGEMM_ERR_OVERLAP = 9,           /* C shares memory with A or B */
  DLGEMM_ERR_BAD_OPTIONS = 10,      /* options struct too small, unknown bits, bad value */
  DLGEMM_ERR_NO_BACKEND = 11,       /* no available backend can run this call */
  DLGEMM_ERR_BACKEND_FAILED = 12,   /* the backend failed and no fallback could answer */
  DLGEMM_ERR_TOO_LARGE = 13,        /* a dimension exceeds what the backend can index */
  DLGEMM_ERR_ABI_VERSION = 14,      /* dlgemm_get_api() asked for an unknown version */
  DLGEMM_ERR_DLPACK_VERSION = 15,   /* a DLManagedTensorVersioned of a major version not taken */
  DLGEMM_ERR_READ_ONLY = 16,        /* C carries DLPack's read-only flag */
  DLGEMM_ERR_BAD_POINTER = 17,      /* a kDLCUDA tensor's data is not memory of that GPU (host
                                       memory, freed, another device) or is too short for it */
  DLGEMM_ERR_OUT_OF_MEMORY = 18     /* the GPU has no memory for the workspace the call needs,
                                       even after trying the plans that need less */
} dlgemm_status;

/* How float32 products (of float32 and complex64 tensors) may be computed
 * on a GPU (host tensors computed on the CPU are always STRICT, which is at
 * least as accurate). */
typedef enum dlgemm_precision {
  DLGEMM_PRECISION_STRICT = 0, /* IEEE FP32 FMA arithmetic, as SGEMM (default) */
  DLGEMM_PRECISION_TF32 = 1,   /* one TF32 tensor-core product (frameworks' "allow tf32"):
                                  inputs keep 10 mantissa bits */
  DLGEMM_PRECISION_3XTF32 = 2  /* A and B split into TF32 high and low parts, three
                                  tensor-core products: SGEMM's accuracy; an infinity in
                                  A or B may give NaN where SGEMM gives +-Inf */
} dlgemm_precision;

/* Which backend family takes the call. */
typedef enum dlgemm_backend {
  DLGEMM_BACKEND_AUTO = 0, /* the router decides (default) */
  DLGEMM_BACKEND_CPU = 1,  /* the next BLAS in the process (host tensors only) */
  DLGEMM_BACKEND_CUDA = 2, /* NVIDIA GPU */
  DLGEMM_BACKEND_HIP = 3   /* AMD GPU */
} dlgemm_backend;

/*
 * Options of one call.  Set struct_size to sizeof(dlgemm_options) as your
 * program was compiled: later versions only append fields, and a field past
 * the caller's struct_size takes its default.  A struct larger than this
 * library knows is accepted only when the extra bytes are all zero.
 * Pass NULL for all defaults; dlgemm_options_init() fills in the defaults.
 */
typedef struct dlgemm_options {
  size_t struct_size;
  dlgemm_precision precision; /* float32 and complex64 only; default STRICT */
  dlgemm_backend backend;     /* default AUTO */
  /* For kDLCUDA tensors: the CUstream / cudaStream_t the product is ordered
   * on, and the only one it is ordered on: there is no device-wide or
   * context-wide synchronisation, and the call returns once the work is
   * queued.  NULL means the legacy default stream, the DLPack exchange
   * protocol's default (its stream=None or 1); (void *)2 is the per-thread
   * default stream (the protocol's 2), CU_STREAM_PER_THREAD.  The tensors'
   * device need not be the current one: dlgemm makes that device's primary
   * context current for the call and restores the caller's afterwards.
   * Ignored for host tensors, which complete before the call returns. */
  void *stream;
} dlgemm_options;

DLGEMM_API void dlgemm_options_init(dlgemm_options *opts);

/*
 * C = alpha * A * B + beta * C.
 * A is m x k, B is k x n, C is m x n (2-D), or each with a leading batch
 * dimension (3-D).  A or B may be 2-D while C is 3-D, or have a batch of 1 or
 * a batch stride of 0: that operand is broadcast over the batch.
 * dtype: float32 or float64, the same for all three; or A and B both float16
 * or both bfloat16, with C float16, bfloat16 or float32 (products accumulate
 * in FP32, alpha and beta are applied in FP32, C is rounded once; on a GPU
 * the tensor cores compute them, on host memory the next BLAS's SGEMM on
 * the widened inputs); or complex64 or complex128 (kDLComplex, 64 or 128
 * bits), the same for all three, where alpha and beta are real scalars
 * (imaginary part 0) and A and B are never conjugated (the next BLAS's
 * CGEMM / ZGEMM on host memory; on a GPU, one real GEMM per product on the
 * interleaved parts, four real products per complex one).  Strides are in
 * elements, complex ones for the complex types (NULL means compact
 * row-major); each matrix needs one unit stride.
 * Devices: kDLCPU and kDLCUDAHost (host memory), kDLCUDA (one GPU).
 * When beta == 0, C is not read (NaN in C does not propagate).
 */
DLGEMM_API dlgemm_status dlgemm_matmul(const DLTensor *a, const DLTensor *b, DLTensor *c,
                                       double alpha, double beta,
                                       const dlgemm_options *opts);

/* The same product on DLPack's managed tensors (see the top of this file).
 * The deleters are not called: the caller still owns the tensors. */
DLGEMM_API dlgemm_status dlgemm_matmul_managed(const DLManagedTensor *a, const DLManagedTensor *b,
                                               DLManagedTensor *c, double alpha, double beta,
                                               const dlgemm_options *opts);
DLGEMM_API dlgemm_status dlgemm_matmul_versioned(const DLManagedTensorVersioned *a,
                                                 const DLManagedTensorVersioned *b,
                                                 DLManagedTensorVersioned *c, double alpha,
                                                 double beta, const dlgemm_options *opts);

DLGEMM_API const char *dlgemm_status_string(dlgemm_status status);
/* The message of the last failed call on this thread ("" if none). */
DLGEMM_API const char *dlgemm_last_error(void);
/* "MAJOR.MINOR.PATCH" */
DLGEMM_API const char *dlgemm_version(void);

/* The function table for programs that dlopen() the plugin. */
typedef struct dlgemm_api {
  int abi_version;    /* the version the caller asked for */
  size_t struct_size; /* sizeof(dlgemm_api) in this library */
  const char *(*version)(void);
  void (*options_init)(dlgemm_options *opts);
  dlgemm_status (*matmul)(const DLTensor *a, const DLTensor *b, DLTensor *c, double alpha,
                          double beta, const dlgemm_options *opts);
  const char *(*status_string)(dlgemm_status status);
  const char *(*last_error)(void);
  /* ABI version 2 and later. */
  dlgemm_status (*matmul_managed)(const DLManagedTensor *a, const DLManagedTensor *b,
                                  DLManagedTensor *c, double alpha, double beta,
                                  const dlgemm_options *opts);
  dlgemm_status (*matmul_versioned)(const DLManagedTensorVersioned *a,
                                    const DLManagedTensorVersioned *b,
                                    DLManagedTensorVersioned *c, double alpha, double beta,
                                    const dlgemm_options *opts);
} dlgemm_api;

/* The table of abi_version (1 or 2; a version-1 caller reads only the
 * fields it knows).  NULL when this library does not provide abi_version
 * (then dlgemm_last_error() says which versions it has): ask for
 * DLGEMM_ABI_VERSION, and fall back to 1 if the library is older. */
DLGEMM_API const dlgemm_api *dlgemm_get_api(int abi_version);
typedef const dlgemm_api *(*dlgemm_get_api_fn)(int abi_version);

/* XLA custom-call handlers, for XLA's FFI C ABI (API 0.x): register them by
 * name through jax.ffi (python/dlgemm/jax.py does) for the "CUDA" and "cpu"
 * platforms.  Operands a, b [, c], one result; attributes alpha and beta
 * (f64) and precision (s32), each optional; beta != 0 needs c aliased to the
 * result.  The product is queued on XLA's stream; a refused call returns an
 * XLA error carrying dlgemm's message. */
struct XLA_FFI_Error;
struct XLA_FFI_CallFrame;
DLGEMM_API struct XLA_FFI_Error *dlgemm_xla_matmul_cuda(struct XLA_FFI_CallFrame *frame);
DLGEMM_API struct XLA_FFI_Error *dlgemm_xla_matmul_cpu(struct XLA_FFI_CallFrame *frame);

/* Whether dlgemm may take the products a program sends to cuBLAS (its
 * cuBLAS names, DLGEMM_CUBLAS) and those of the XLA handlers, from now on:
 * on = 0 hands every one to the program's own cuBLAS, as DLGEMM_CUBLAS=off
 * does; on = 1 returns to the mode DLGEMM_CUBLAS named, with every class
 * measured so far remembered.  Returns the previous setting (1 at start).
 * Any thread, any time; a call already deciding finishes as it began.  For
 * measuring one program with and without dlgemm inside one process, where
 * the host's drift cancels (bench/torch_models.py --toggle), and for
 * programs that route part of their run. */
DLGEMM_API int dlgemm_route_cublas(int on);

#ifdef __cplusplus
}
#endif
#endif /* DLGEMM_H */
