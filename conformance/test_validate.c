/*
 * test_validate - every way a DLTensor call can be malformed.
 *
 * Each case starts from a valid product (A 4x3, B 3x5, C 4x5, float32,
 * row-major, host), breaks one thing, and checks three facts: the status,
 * that dlgemm_last_error() names what is wrong, and that C (poisoned beforehand)
 * is bit for bit unchanged.  A second table checks layouts that must be
 * accepted and how they are read.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "check_run.h"
#include "dlgemm.h"
#include "api/validate.h"

typedef struct fixture {
  float a[64], b[64], c[64], c_before[64];
  int64_t as[3], bs[3], cs[3];       /* shapes */
  int64_t ast[3], bst[3], cst[3];    /* strides, used when the case sets them */
  DLTensor A, B, C;
  dlgemm_options opts;
  const dlgemm_options *popts;
} fixture;

static void setup(fixture *f)
{
  int i;
  memset(f, 0, sizeof *f);
  for (i = 0; i < 64; i++) {
    f->a[i] = (float)i * 0.25f - 3;
    f->b[i] = (float)(i % 9) - 4;
    f->c[i] = NAN;
  }
  f->as[0] = 4, f->as[1] = 3;
  f->bs[0] = 3, f->bs[1] = 5;
  f->cs[0] = 4, f->cs[1] = 5;
  f->A = (DLTensor){f->a, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, f->as, NULL, 0};
  f->B = (DLTensor){f->b, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, f->bs, NULL, 0};
  f->C = (DLTensor){f->c, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, f->cs, NULL, 0};
  dlgemm_options_init(&f->opts);
  f->popts = NULL;
}

typedef struct reject_case {
  const char *name;
  void (*mutate)(fixture *f);
  dlgemm_status status;
  const char *message; /* must appear in dlgemm_last_error() */
} reject_case;

static void null_a(fixture *f) { (void)f; } /* the test passes NULL for A */
static void dtype_int(fixture *f) { f->A.dtype.code = kDLInt; }
static void dtype_half(fixture *f) { f->B.dtype.bits = 16; }
static void dtype_half_into_double(fixture *f)
{
  f->A.dtype = f->B.dtype = (DLDataType){kDLBfloat, 16, 1};
  f->C.dtype.bits = 64;
}
static void dtype_bf16_f16(fixture *f)
{
  f->A.dtype = (DLDataType){kDLBfloat, 16, 1};
  f->B.dtype = (DLDataType){kDLFloat, 16, 1};
  f->C.dtype = (DLDataType){kDLFloat, 16, 1};
}
static void dtype_lanes(fixture *f) { f->C.dtype.lanes = 4; }
static void dtype_mixed(fixture *f)
{
  f->A.dtype.bits = 64;
  f->B.dtype.bits = 64;
}
static void dtype_complex_into_real(fixture *f)
{
  f->A.dtype = f->B.dtype = (DLDataType){kDLComplex, 64, 1};
}
static void dtype_complex_widths(fixture *f)
{
  f->A.dtype = f->C.dtype = (DLDataType){kDLComplex, 64, 1};
  f->B.dtype = (DLDataType){kDLComplex, 128, 1};
}
static void dtype_complex_with_real_b(fixture *f)
{
  f->A.dtype = f->C.dtype = (DLDataType){kDLComplex, 128, 1};
}
static void dtype_complex_lanes(fixture *f)
{
  f->A.dtype = f->B.dtype = f->C.dtype = (DLDataType){kDLComplex, 64, 2};
}
static void dtype_complex_odd_bits(fixture *f)
{
  f->A.dtype = f->B.dtype = f->C.dtype = (DLDataType){kDLComplex, 32, 1};
}
static void complex128_offset_8(fixture *f)
{
  f->A.dtype = f->B.dtype = f->C.dtype = (DLDataType){kDLComplex, 128, 1};
  f->as[0] = f->as[1] = f->bs[0] = f->bs[1] = f->cs[0] = f->cs[1] = 2;
  f->B.byte_offset = 8;
}
static void ndim_one(fixture *f) { f->A.ndim = 1; }
static void ndim_four(fixture *f) { f->C.ndim = 4; }
static void shape_null(fixture *f) { f->B.shape = NULL; }
static void shape_negative(fixture *f) { f->as[0] = -4; }
static void shape_k(fixture *f) { f->bs[0] = 2; }
static void shape_m(fixture *f) { f->cs[0] = 3; }
static void shape_n(fixture *f) { f->cs[1] = 6; }
static void batch_into_matrix(fixture *f)
{
  f->as[0] = 2, f->as[1] = 4, f->as[2] = 3;
  f->A.ndim = 3;
}
static void batch_disagree(fixture *f)
{
  f->as[0] = 2, f->as[1] = 4, f->as[2] = 3;
  f->A.ndim = 3;
  f->cs[0] = 3, f->cs[1] = 4, f->cs[2] = 5;
  f->C.ndim = 3;
  f->C.shape = f->cs;
}
static void strides_no_unit(fixture *f)
{
  f->ast[0] = 6, f->ast[1] = 2;
  f->A.strides = f->ast;
}
static void strides_negative(fixture *f)
{
  f->bst[0] = -5, f->bst[1] = 1;
  f->B.strides = f->bst;
}
static void strides_ld_small(fixture *f)
{
  f->cst[0] = 4, f->cst[1] = 1; /* rows of 5 elements, 4 apart */
  f->C.strides = f->cst;
}
static void strides_batch_overlap(fixture *f)
{
  f->cs[0] = 2, f->cs[1] = 4, f->cs[2] = 5;
  f->C.ndim = 3;
  f->cst[0] = 10, f->cst[1] = 5, f->cst[2] = 1; /* each matrix needs 20 */
  f->C.strides = f->cst;
}
static void offset_odd(fixture *f) { f->B.byte_offset = 2; }
static void data_misaligned(fixture *f) { f->C.data = (char *)f->c + 1; }
static void data_null(fixture *f) { f->A.data = NULL; }
static void device_opencl(fixture *f) { f->B.device.device_type = kDLOpenCL; }
static void device_mixed(fixture *f) { f->A.device.device_type = kDLCUDA; }
static void device_mixed_gpu(fixture *f)
{
  f->C.device.device_type = kDLCUDA;
  f->A.device.device_type = kDLCUDA;
  f->B.device.device_type = kDLCUDA;
  f->B.device.device_id = 1;
}
/* Extents that wrap 64 bits (issue 27): each must be refused the same way
 * whatever the dtypes, before anything is read or written. */
static void batch_stride_wraps(fixture *f) /* all three products into one float */
{
  f->as[0] = 1, f->as[1] = 3;
  f->bs[0] = 3, f->bs[1] = 1;
  f->cs[0] = 3, f->cs[1] = 1, f->cs[2] = 1;
  f->C.ndim = 3;
  f->cst[0] = (int64_t)1 << 62, f->cst[1] = 1, f->cst[2] = 1;
  f->C.strides = f->cst;
}
static void batch_wraps_onto_a(fixture *f) /* C's second matrix would be A */
{
  f->cs[0] = 2, f->cs[1] = 4, f->cs[2] = 5;
  f->C.ndim = 3;
  f->cst[0] = (int64_t)((UINT64_MAX - ((uintptr_t)f->c - (uintptr_t)f->a) + 1) / sizeof(float));
  f->cst[1] = 5, f->cst[2] = 1;
  f->C.strides = f->cst;
}
static void half_row_stride_wraps(fixture *f) /* float16 A and B, float32 C */
{
  f->A.dtype = f->B.dtype = (DLDataType){kDLFloat, 16, 1};
  f->cst[0] = (int64_t)1 << 62, f->cst[1] = 1;
  f->C.strides = f->cst;
}
static void compact_strides_overflow(fixture *f)
{
  f->as[0] = (int64_t)1 << 32, f->as[1] = (int64_t)1 << 32;
}
static void offset_wraps(fixture *f) { f->A.byte_offset = UINT64_MAX - 3; }
static void overlap_a(fixture *f) { f->C.data = f->a + 4; }
static void overlap_b(fixture *f) { f->B.data = f->c + 8; }
static void options_small(fixture *f)
{
  f->opts.struct_size = 4;
  f->popts = &f->opts;
}
static unsigned char big_options[sizeof(dlgemm_options) + 16];
static void options_unknown_field(fixture *f)
{
  memset(big_options, 0, sizeof big_options);
  memcpy(big_options, &f->opts, sizeof f->opts);
  ((dlgemm_options *)big_options)->struct_size = sizeof big_options;
  big_options[sizeof(dlgemm_options) + 3] = 1;
  f->popts = (const dlgemm_options *)big_options;
}
static void options_precision(fixture *f)
{
  f->opts.precision = (dlgemm_precision)7;
  f->popts = &f->opts;
}
static void options_backend(fixture *f)
{
  f->opts.backend = (dlgemm_backend)9;
  f->popts = &f->opts;
}

static const reject_case rejects[] = {
    {"NULL A", null_a, DLGEMM_ERR_NULL_ARGUMENT, "A is NULL"},
    {"int dtype", dtype_int, DLGEMM_ERR_UNSUPPORTED_DTYPE, "A: dtype"},
    {"float16 B with float32 A", dtype_half, DLGEMM_ERR_UNSUPPORTED_DTYPE,
     "dtypes A float32, B float16"},
    {"bfloat16 A and B into float64 C", dtype_half_into_double, DLGEMM_ERR_UNSUPPORTED_DTYPE,
     "dtypes A bfloat16, B bfloat16, C float64"},
    {"bfloat16 with float16", dtype_bf16_f16, DLGEMM_ERR_UNSUPPORTED_DTYPE,
     "A and B must agree"},
    {"vector lanes", dtype_lanes, DLGEMM_ERR_UNSUPPORTED_DTYPE, "C: dtype"},
    {"mixed dtypes", dtype_mixed, DLGEMM_ERR_UNSUPPORTED_DTYPE, "C float32 are not"},
    {"complex64 A and B into float32 C", dtype_complex_into_real, DLGEMM_ERR_UNSUPPORTED_DTYPE,
     "dtypes A complex64, B complex64, C float32 are not"},
    {"complex64 with complex128", dtype_complex_widths, DLGEMM_ERR_UNSUPPORTED_DTYPE,
     "dtypes A complex64, B complex128, C complex64"},
    {"complex128 with float32 B", dtype_complex_with_real_b, DLGEMM_ERR_UNSUPPORTED_DTYPE,
     "dtypes A complex128, B float32, C complex128"},
    {"complex lanes", dtype_complex_lanes, DLGEMM_ERR_UNSUPPORTED_DTYPE,
     "A: dtype (code 5, bits 64, lanes 2) is not supported"},
    {"complex of 32 bits", dtype_complex_odd_bits, DLGEMM_ERR_UNSUPPORTED_DTYPE,
     "complex64 and complex128 are"},
    {"complex128 at byte_offset 8", complex128_offset_8, DLGEMM_ERR_MISALIGNED,
     "B: byte_offset 8 is not a multiple of the element size 16"},
    {"1-D", ndim_one, DLGEMM_ERR_BAD_NDIM, "A: ndim is 1"},
    {"4-D", ndim_four, DLGEMM_ERR_BAD_NDIM, "C: ndim is 4"},
    {"NULL shape", shape_null, DLGEMM_ERR_NULL_ARGUMENT, "B: shape is NULL"},
    {"negative extent", shape_negative, DLGEMM_ERR_SHAPE_MISMATCH, "A: shape[0] is negative"},
    {"k disagrees", shape_k, DLGEMM_ERR_SHAPE_MISMATCH, "B is 2x5"},
    {"m disagrees", shape_m, DLGEMM_ERR_SHAPE_MISMATCH, "C is 3x5"},
    {"n disagrees", shape_n, DLGEMM_ERR_SHAPE_MISMATCH, "C is 4x6"},
    {"batch into a matrix", batch_into_matrix, DLGEMM_ERR_BAD_NDIM, "A is a batch"},
    {"batch sizes", batch_disagree, DLGEMM_ERR_SHAPE_MISMATCH, "batch sizes disagree"},
    {"no unit stride", strides_no_unit, DLGEMM_ERR_BAD_STRIDES, "no unit stride"},
    {"negative stride", strides_negative, DLGEMM_ERR_BAD_STRIDES, "B: negative strides"},
    {"leading dimension too small", strides_ld_small, DLGEMM_ERR_BAD_STRIDES, "overlap"},
    {"batch entries overlap", strides_batch_overlap, DLGEMM_ERR_BAD_STRIDES, "batch stride 10"},
    {"odd byte_offset", offset_odd, DLGEMM_ERR_MISALIGNED, "B: byte_offset 2"},
    {"misaligned data", data_misaligned, DLGEMM_ERR_MISALIGNED, "C: data + byte_offset"},
    {"NULL data", data_null, DLGEMM_ERR_NULL_DATA, "A: data is NULL"},
    {"OpenCL device", device_opencl, DLGEMM_ERR_UNSUPPORTED_DEVICE, "B: device type 4"},
    {"host C, GPU A", device_mixed, DLGEMM_ERR_UNSUPPORTED_DEVICE, "A is on GPU (2, 0)"},
    {"two GPUs", device_mixed_gpu, DLGEMM_ERR_UNSUPPORTED_DEVICE, "B is on device (2, 1)"},
    {"batch stride 2^62 wraps", batch_stride_wraps, DLGEMM_ERR_TOO_LARGE,
     "C: a 3x1x1 tensor with element strides (4611686018427387904, 1, 1) reaches past"},
    {"C's batch wraps onto A", batch_wraps_onto_a, DLGEMM_ERR_TOO_LARGE, "C: a 2x4x5 tensor"},
    {"float16 into float32, row stride 2^62", half_row_stride_wraps, DLGEMM_ERR_TOO_LARGE,
     "C: a 1x4x5 tensor"},
    {"compact strides overflow", compact_strides_overflow, DLGEMM_ERR_TOO_LARGE,
     "A: 4294967296x4294967296 elements per matrix do not fit"},
    {"byte_offset wraps", offset_wraps, DLGEMM_ERR_TOO_LARGE, "A: data + byte_offset"},
    {"C overlaps A", overlap_a, DLGEMM_ERR_OVERLAP, "C overlaps A"},
    {"B overlaps C", overlap_b, DLGEMM_ERR_OVERLAP, "C overlaps B"},
    {"options too small", options_small, DLGEMM_ERR_BAD_OPTIONS, "struct_size 4 is too small"},
    {"unknown option set", options_unknown_field, DLGEMM_ERR_BAD_OPTIONS, "newer option"},
    {"bad precision", options_precision, DLGEMM_ERR_BAD_OPTIONS, "precision 7"},
    {"bad backend", options_backend, DLGEMM_ERR_BAD_OPTIONS, "backend 9"},
};

START_TEST(rejected_call_says_why_and_writes_nothing)
{
  const reject_case *rc = &rejects[_i];
  fixture f;
  dlgemm_status st;
  float a_before[64], b_before[64];
  setup(&f);
  rc->mutate(&f);
  memcpy(f.c_before, f.c, sizeof f.c);
  memcpy(a_before, f.a, sizeof f.a);
  memcpy(b_before, f.b, sizeof f.b);
  st = dlgemm_matmul(rc->mutate == null_a ? NULL : &f.A, &f.B, &f.C, 1.0, 0.0, f.popts);
  ck_assert_msg(st == rc->status, "%s: status %d (%s), expected %d; message: %s", rc->name, st,
                dlgemm_status_string(st), rc->status, dlgemm_last_error());
  ck_assert_msg(strstr(dlgemm_last_error(), rc->message), "%s: message '%s' lacks '%s'",
                rc->name, dlgemm_last_error(), rc->message);
  ck_assert_msg(!memcmp(f.c_before, f.c, sizeof f.c), "%s: C was written", rc->name);
  ck_assert_msg(!memcmp(a_before, f.a, sizeof f.a) && !memcmp(b_before, f.b, sizeof f.b),
                "%s: an input was written", rc->name);
}
END_TEST

/* An empty product is a no-op, however large its other extents: a batch of
 * 0 matrices of 2^61 x 4 with compact strides (whose batch stride would be
 * 2^63) and NULL data (issue 27). */
START_TEST(empty_products_are_no_ops)
{
  int64_t as[3] = {0, (int64_t)1 << 61, 3}, bs[3] = {0, 3, 4}, cs[3] = {0, (int64_t)1 << 61, 4};
  DLTensor A = {NULL, {kDLCPU, 0}, 3, {kDLFloat, 32, 1}, as, NULL, 0};
  DLTensor B = {NULL, {kDLCPU, 0}, 3, {kDLFloat, 32, 1}, bs, NULL, 0};
  DLTensor C = {NULL, {kDLCPU, 0}, 3, {kDLFloat, 32, 1}, cs, NULL, 0};
  dlgemm_status st = dlgemm_matmul(&A, &B, &C, 1.0, 0.0, NULL);
  ck_assert_msg(st == DLGEMM_OK, "batch of 0: %s: %s", dlgemm_status_string(st),
                dlgemm_last_error());
  as[0] = bs[0] = cs[0] = 1, as[2] = bs[1] = bs[2] = cs[2] = 0; /* one 2^61 x 0 x 0 product */
  st = dlgemm_matmul(&A, &B, &C, 1.0, 0.0, NULL);
  ck_assert_msg(st == DLGEMM_OK, "n = k = 0: %s: %s", dlgemm_status_string(st), dlgemm_last_error());
}
END_TEST

/* Accepted layouts, and the canonical view validation makes of them. */
START_TEST(layouts_are_read_from_strides)
{
  fixture f;
  dlg_gemm g;
  setup(&f);
  /* Compact row-major (NULL strides). */
  ck_assert_int_eq(dlg_validate_tensors(&f.A, &f.B, &f.C, &g), DLGEMM_OK);
  ck_assert(!dlg_is_colmajor(&g.a) && g.a.rs == 3 && g.a.cs == 1);
  ck_assert(g.m == 4 && g.n == 5 && g.k == 3 && g.batch == 1);
  /* A as a transposed view of column-major storage with ld 7 > rows. */
  f.ast[0] = 1, f.ast[1] = 7;
  f.A.strides = f.ast;
  ck_assert_int_eq(dlg_validate_tensors(&f.A, &f.B, &f.C, &g), DLGEMM_OK);
  ck_assert(dlg_is_colmajor(&g.a) && dlg_ld(&g.a) == 7);
  /* byte_offset moves the data pointer. */
  f.B.byte_offset = 8;
  ck_assert_int_eq(dlg_validate_tensors(&f.A, &f.B, &f.C, &g), DLGEMM_OK);
  ck_assert_ptr_eq(g.b.data, (char *)f.b + 8);
}
END_TEST

/* complex64 and complex128, one dtype throughout: the call's dtype, and
 * strides in complex elements (a byte_offset of whole elements). */
START_TEST(complex_dtypes_are_read)
{
  static const struct { uint8_t bits; dlg_dtype dtype; } types[] = {{64, DLG_C64},
                                                                    {128, DLG_C128}};
  int i;
  for (i = 0; i < 2; i++) {
    fixture f;
    dlg_gemm g;
    setup(&f);
    f.A.dtype = f.B.dtype = f.C.dtype = (DLDataType){kDLComplex, types[i].bits, 1};
    f.bst[0] = 1, f.bst[1] = 3;
    f.B.strides = f.bst;
    f.A.byte_offset = types[i].bits / 8;
    ck_assert_int_eq(dlg_validate_tensors(&f.A, &f.B, &f.C, &g), DLGEMM_OK);
    ck_assert(g.dtype == types[i].dtype && g.dtype_in == types[i].dtype);
    ck_assert(dlg_elem_size(g.dtype) == types[i].bits / 8u);
    ck_assert(dlg_is_colmajor(&g.b) && dlg_ld(&g.b) == 3 && !dlg_is_colmajor(&g.c));
    ck_assert_ptr_eq(g.a.data, (char *)f.a + types[i].bits / 8);
  }
}
END_TEST

START_TEST(degenerate_extents_get_blas_legal_strides)
{
  fixture f;
  dlg_gemm g;
  setup(&f);
  /* k = 1: A is a column with a junk column stride; B a row with junk row stride. */
  f.as[1] = 1, f.bs[0] = 1;
  f.ast[0] = 1, f.ast[1] = 0;
  f.bst[0] = 0, f.bst[1] = 1;
  f.A.strides = f.ast;
  f.B.strides = f.bst;
  ck_assert_int_eq(dlg_validate_tensors(&f.A, &f.B, &f.C, &g), DLGEMM_OK);
  ck_assert(dlg_is_colmajor(&g.a) && dlg_ld(&g.a) >= 4);
  ck_assert(!dlg_is_colmajor(&g.b) && dlg_ld(&g.b) >= 5);
  /* Zero extents: any strides, and NULL data, are fine. */
  setup(&f);
  f.cs[0] = 0, f.as[0] = 0;
  f.A.data = NULL;
  f.C.data = NULL;
  ck_assert_int_eq(dlgemm_matmul(&f.A, &f.B, &f.C, 1.0, 0.0, NULL), DLGEMM_OK);
}
END_TEST

START_TEST(broadcast_and_batch_strides)
{
  fixture f;
  dlg_gemm g;
  setup(&f);
  f.cs[0] = 2, f.cs[1] = 4, f.cs[2] = 5;
  f.C.ndim = 3;
  ck_assert_int_eq(dlg_validate_tensors(&f.A, &f.B, &f.C, &g), DLGEMM_OK);
  ck_assert(g.batch == 2 && g.a.bs == 0 && g.b.bs == 0 && g.c.bs == 20);
  /* A batch of one broadcasts too, whatever its batch stride says. */
  f.as[0] = 1, f.as[1] = 4, f.as[2] = 3;
  f.A.ndim = 3;
  f.ast[0] = 12345, f.ast[1] = 3, f.ast[2] = 1;
  f.A.strides = f.ast;
  ck_assert_int_eq(dlg_validate_tensors(&f.A, &f.B, &f.C, &g), DLGEMM_OK);
  ck_assert(g.a.bs == 0);
}
END_TEST

START_TEST(options_struct_sizes)
{
  dlgemm_options in, out;
  size_t old_size = offsetof(dlgemm_options, precision) + sizeof(dlgemm_precision);
  dlgemm_options_init(&in);
  in.precision = DLGEMM_PRECISION_TF32;
  in.backend = DLGEMM_BACKEND_CPU;
  /* An older caller that only knew the first fields: the rest are defaults. */
  in.struct_size = old_size;
  ck_assert_int_eq(dlg_validate_options(&in, &out), DLGEMM_OK);
  ck_assert(out.precision == DLGEMM_PRECISION_TF32 && out.backend == DLGEMM_BACKEND_AUTO);
  ck_assert(out.stream == NULL && out.struct_size == sizeof out);
  /* A newer caller whose extra fields are all zero. */
  memset(big_options, 0, sizeof big_options);
  memcpy(big_options, &in, sizeof in);
  ((dlgemm_options *)big_options)->struct_size = sizeof big_options;
  ck_assert_int_eq(dlg_validate_options((const dlgemm_options *)big_options, &out), DLGEMM_OK);
  /* NULL: every default. */
  ck_assert_int_eq(dlg_validate_options(NULL, &out), DLGEMM_OK);
  ck_assert(out.precision == DLGEMM_PRECISION_STRICT && out.backend == DLGEMM_BACKEND_AUTO);
}
END_TEST

static int deleter_calls;
static void count_deleter(DLManagedTensorVersioned *self) { (void)self, deleter_calls++; }
static void count_deleter0(DLManagedTensor *self) { (void)self, deleter_calls++; }

/* DLPack 1.x and 0.x managed tensors: the same product as the DLTensors
 * inside them, version and read-only checks first, deleters never called. */
START_TEST(managed_and_versioned_tensors)
{
  fixture f;
  float want[64];
  DLManagedTensorVersioned va, vb, vc;
  DLManagedTensor ma, mb, mc;
  dlgemm_status st;
  setup(&f);
  ck_assert_int_eq(dlgemm_matmul(&f.A, &f.B, &f.C, 1.5, 0.0, NULL), DLGEMM_OK);
  memcpy(want, f.c, sizeof want);
  memset(f.c, 0xff, sizeof f.c); /* NaN: beta = 0 must not read it */
  va = (DLManagedTensorVersioned){{1, 0}, NULL, count_deleter, 0, f.A};
  vb = (DLManagedTensorVersioned){{1, 3}, NULL, count_deleter, DLPACK_FLAG_BITMASK_READ_ONLY, f.B};
  vc = (DLManagedTensorVersioned){{1, 1}, NULL, count_deleter, DLPACK_FLAG_BITMASK_IS_COPIED, f.C};
  deleter_calls = 0;
  ck_assert_int_eq(dlgemm_matmul_versioned(&va, &vb, &vc, 1.5, 0.0, NULL), DLGEMM_OK);
  ck_assert(!memcmp(want, f.c, 4 * 5 * sizeof(float)));

  /* A read-only C, or an unknown major version, is refused and C kept. */
  memcpy(f.c_before, f.c, sizeof f.c);
  vc.flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  st = dlgemm_matmul_versioned(&va, &vb, &vc, 1.0, 0.0, NULL);
  ck_assert_int_eq(st, DLGEMM_ERR_READ_ONLY);
  ck_assert(strstr(dlgemm_last_error(), "C is marked read-only"));
  vc.flags = 0;
  vb.version.major = 2;
  st = dlgemm_matmul_versioned(&va, &vb, &vc, 1.0, 0.0, NULL);
  ck_assert_int_eq(st, DLGEMM_ERR_DLPACK_VERSION);
  ck_assert(strstr(dlgemm_last_error(), "B: DLPack version 2.3 is not supported"));
  vb.version.major = 0;
  ck_assert_int_eq(dlgemm_matmul_versioned(&va, &vb, &vc, 1.0, 0.0, NULL),
                   DLGEMM_ERR_DLPACK_VERSION);
  ck_assert_int_eq(dlgemm_matmul_versioned(&va, NULL, &vc, 1.0, 0.0, NULL),
                   DLGEMM_ERR_NULL_ARGUMENT);
  ck_assert(!memcmp(f.c_before, f.c, sizeof f.c));

  /* 0.x managed tensors; their DLTensor checks are dlgemm_matmul's. */
  ma = (DLManagedTensor){f.A, NULL, count_deleter0};
  mb = (DLManagedTensor){f.B, NULL, count_deleter0};
  mc = (DLManagedTensor){f.C, NULL, count_deleter0};
  memset(f.c, 0xff, sizeof f.c);
  ck_assert_int_eq(dlgemm_matmul_managed(&ma, &mb, &mc, 1.5, 0.0, NULL), DLGEMM_OK);
  ck_assert(!memcmp(want, f.c, 4 * 5 * sizeof(float)));
  mc.dl_tensor.shape = f.as;
  ck_assert_int_eq(dlgemm_matmul_managed(&ma, &mb, &mc, 1.5, 0.0, NULL),
                   DLGEMM_ERR_SHAPE_MISMATCH);
  ck_assert_int_eq(deleter_calls, 0);
}
END_TEST

/* kDLROCM tensors: accepted by validation, refused by the router where no AMD
 * GPU exists (ours: the HIP backend is built but its probe finds no device,
 * or it is not built at all), with a message naming the backend; C untouched. */
START_TEST(rocm_tensors_without_an_amd_gpu)
{
  fixture f;
  dlg_gemm g;
  dlgemm_status st;
  setup(&f);
  f.A.device.device_type = f.B.device.device_type = f.C.device.device_type = kDLROCM;
  ck_assert_int_eq(dlg_validate_tensors(&f.A, &f.B, &f.C, &g), DLGEMM_OK);
  ck_assert(g.place == DLG_ROCM && g.device_id == 0);
  memcpy(f.c_before, f.c, sizeof f.c);
  st = dlgemm_matmul(&f.A, &f.B, &f.C, 1.0, 0.0, NULL);
  ck_assert_int_eq(st, DLGEMM_ERR_NO_BACKEND);
  ck_assert_msg(strstr(dlgemm_last_error(), "hip backend"), "message: %s", dlgemm_last_error());
  ck_assert(!memcmp(f.c_before, f.c, sizeof f.c));
  /* A ROCm operand with a CUDA C is two GPUs. */
  f.C.device.device_type = kDLCUDA;
  ck_assert_int_eq(dlgemm_matmul(&f.A, &f.B, &f.C, 1.0, 0.0, NULL), DLGEMM_ERR_UNSUPPORTED_DEVICE);
  ck_assert(strstr(dlgemm_last_error(), "A is on device (10, 0) but C is on (2, 0)"));
}
END_TEST

/* Both table versions, and a clear refusal of one that does not exist. */
START_TEST(api_tables_by_version)
{
  const dlgemm_api *v1 = dlgemm_get_api(1), *v2 = dlgemm_get_api(2);
  ck_assert(v1 && v1->abi_version == 1 && v1->matmul == dlgemm_matmul);
  ck_assert(v2 && v2->abi_version == 2 && v2->matmul_versioned == dlgemm_matmul_versioned &&
            v2->matmul_managed == dlgemm_matmul_managed);
  ck_assert_ptr_null(dlgemm_get_api(DLGEMM_ABI_VERSION + 1));
  ck_assert(strstr(dlgemm_last_error(), "provides versions 1 to 2"));
  ck_assert_ptr_null(dlgemm_get_api(0));
}
END_TEST

static void *fail_on_other_thread(void *arg)
{
  fixture *f = arg;
  int fresh = dlgemm_last_error()[0] == '\0';
  f->cs[1] = 9;
  dlgemm_matmul(&f->A, &f->B, &f->C, 1, 0, NULL);
  return (void *)(intptr_t)(fresh && strstr(dlgemm_last_error(), "C is 4x9"));
}

START_TEST(last_error_is_per_thread)
{
  fixture f, g;
  pthread_t t;
  void *other_ok;
  setup(&f);
  setup(&g);
  f.cs[0] = 3;
  ck_assert_int_ne(dlgemm_matmul(&f.A, &f.B, &f.C, 1, 0, NULL), DLGEMM_OK);
  ck_assert(pthread_create(&t, NULL, fail_on_other_thread, &g) == 0);
  pthread_join(t, &other_ok);
  ck_assert_msg(other_ok, "a new thread saw another thread's message, or not its own");
  ck_assert_msg(strstr(dlgemm_last_error(), "C is 3x5"), "this thread's message changed: %s",
                dlgemm_last_error());
}
END_TEST

int main(void)
{
  TCase *tc = tcase_create("validate");
  tcase_add_loop_test(tc, rejected_call_says_why_and_writes_nothing, 0,
                      (int)(sizeof rejects / sizeof rejects[0]));
  tcase_add_test(tc, layouts_are_read_from_strides);
  tcase_add_test(tc, complex_dtypes_are_read);
  tcase_add_test(tc, empty_products_are_no_ops);
  tcase_add_test(tc, degenerate_extents_get_blas_legal_strides);
  tcase_add_test(tc, broadcast_and_batch_strides);
  tcase_add_test(tc, options_struct_sizes);
  tcase_add_test(tc, last_error_is_per_thread);
  tcase_add_test(tc, managed_and_versioned_tensors);
  tcase_add_test(tc, api_tables_by_version);
  tcase_add_test(tc, rocm_tensors_without_an_amd_gpu);
  return check_run("validate", tc);
}
