/*
 * validate.c - every check a DLTensor call goes through before any work.
 *
 * The rule is that a rejected call reads no element and writes none, and its
 * message names the tensor and the property that is wrong, so it can be
 * acted on without a debugger.  Strides are reduced to (rows, cols, rs, cs,
 * bs) views here, once; nothing downstream looks at a DLTensor again.
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include "api/validate.h"
#include "core/errors.h"

/* One operand as read from its DLTensor, before the three are compared:
 * [lo, hi) are the bytes it can touch over its whole batch (lo == hi when it
 * has no element). */
typedef struct view {
  const char *name;
  int ndim;
  int64_t batch, rows, cols;
  dlg_matrix mat;
  uintptr_t lo, hi;
} view;

/* Every shape x stride product of a tensor goes through these two: an
 * extent that wraps is a tensor reaching past the address space, and
 * nothing may be computed from it. */
static int mul_ok(uint64_t x, uint64_t y, uint64_t *out) { return !__builtin_mul_overflow(x, y, out); }
static int add_ok(uint64_t x, uint64_t y, uint64_t *out) { return !__builtin_add_overflow(x, y, out); }

/* The bytes [*lo, *hi) a non-empty operand at data touches: its last
 * element is (batch-1)*bs + (rows-1)*rs + (cols-1)*cs elements past its
 * first.  Strides are non-negative here (dlg_canonical_layout).  Fails when
 * any step wraps, or when the last element's index does not fit the int64
 * offsets the backends compute with. */
static dlgemm_status extent(const char *name, uintptr_t data, int64_t batch, const dlg_matrix *x,
                            size_t esize, uintptr_t *lo, uintptr_t *hi)
{
  uint64_t b, r, c, last, bytes, end;
  if (!mul_ok((uint64_t)(batch - 1), (uint64_t)x->bs, &b) ||
      !mul_ok((uint64_t)(x->rows - 1), (uint64_t)x->rs, &r) ||
      !mul_ok((uint64_t)(x->cols - 1), (uint64_t)x->cs, &c) || !add_ok(b, r, &last) ||
      !add_ok(last, c, &last) || last > (uint64_t)INT64_MAX || !add_ok(last, 1, &bytes) ||
      !mul_ok(bytes, esize, &bytes) || !add_ok((uint64_t)data, bytes, &end) ||
      end > (uint64_t)UINTPTR_MAX)
    return dlg_fail(DLGEMM_ERR_TOO_LARGE,
                    "%s: a %lldx%lldx%lld tensor with element strides (%lld, %lld, %lld) "
                    "reaches past the end of the address space", name, (long long)batch,
                    (long long)x->rows, (long long)x->cols, (long long)x->bs, (long long)x->rs,
                    (long long)x->cs);
  *lo = data;
  *hi = (uintptr_t)end;
  return DLGEMM_OK;
}

/* Compact row-major strides of a batch x rows x cols tensor (DLPack's NULL
 * strides).  An empty tensor's strides are never stepped along: they are
 * set to what a legal one would have without being multiplied out. */
static dlgemm_status compact_strides(const char *name, int64_t batch, int64_t rows, int64_t cols,
                                     int64_t *rs, int64_t *cs, int64_t *bs)
{
  uint64_t plane;
  *cs = 1;
  *rs = cols;
  *bs = 0;
  if (!batch || !rows || !cols) return DLGEMM_OK;
  if (!mul_ok((uint64_t)rows, (uint64_t)cols, &plane) || plane > (uint64_t)INT64_MAX)
    return dlg_fail(DLGEMM_ERR_TOO_LARGE, "%s: %lldx%lld elements per matrix do not fit a "
                    "64-bit index", name, (long long)rows, (long long)cols);
  *bs = (int64_t)plane;
  return DLGEMM_OK;
}

static int is_host(DLDeviceType t)
{
  return t == kDLCPU || t == kDLCUDAHost || t == kDLROCMHost;
}

/* GPU memory: the device types that name one GPU's memory. */
static int is_gpu(DLDeviceType t) { return t == kDLCUDA || t == kDLROCM; }

static dlgemm_status read_dtype(const DLTensor *t, const char *name, dlg_dtype *out)
{
  static const struct { uint8_t code, bits; dlg_dtype dtype; } taken[] = {
      {kDLFloat, 32, DLG_F32},   {kDLFloat, 64, DLG_F64},   {kDLFloat, 16, DLG_F16},
      {kDLBfloat, 16, DLG_BF16}, {kDLComplex, 64, DLG_C64}, {kDLComplex, 128, DLG_C128}};
  size_t i;
  for (i = 0; i < sizeof taken / sizeof taken[0]; i++)
    if (t->dtype.code == taken[i].code && t->dtype.bits == taken[i].bits && t->dtype.lanes == 1) {
      *out = taken[i].dtype;
      return DLGEMM_OK;
    }
  return dlg_fail(DLGEMM_ERR_UNSUPPORTED_DTYPE,
                  "%s: dtype (code %u, bits %u, lanes %u) is not supported; float32, float64, "
                  "float16, bfloat16, complex64 and complex128 are", name, (unsigned)t->dtype.code,
                  (unsigned)t->dtype.bits, (unsigned)t->dtype.lanes);
}

static const char *dtype_name(dlg_dtype t)
{
  static const char *const names[] = {[DLG_F32] = "float32", [DLG_F64] = "float64",
                                      [DLG_F16] = "float16", [DLG_BF16] = "bfloat16",
                                      [DLG_C64] = "complex64", [DLG_C128] = "complex128"};
  return names[t];
}

/* The combinations taken: one dtype throughout for float32, float64,
 * complex64 and complex128; float16 or bfloat16 A and B (the same) with C
 * in either or in float32. */
static dlgemm_status check_dtypes(dlg_dtype ta, dlg_dtype tb, dlg_dtype tc)
{
  if (ta == tb && (ta == tc || (dlg_is_half(ta) && (dlg_is_half(tc) || tc == DLG_F32))))
    return DLGEMM_OK;
  return dlg_fail(DLGEMM_ERR_UNSUPPORTED_DTYPE, "dtypes A %s, B %s, C %s are not a combination "
                  "dlgemm takes: A and B must agree, and C must be their type, or float16, "
                  "bfloat16 or float32 when they are float16 or bfloat16", dtype_name(ta),
                  dtype_name(tb), dtype_name(tc));
}

/* The layout of one rows x cols matrix with element strides (rs, cs), made
 * canonical: afterwards either cs == 1 and rs >= cols (row-major, leading
 * dimension rs) or rs == 1 and cs >= rows (column-major, leading dimension
 * cs), which is exactly what BLAS can be told.  A dimension of extent 1 is
 * never stepped along, so its stride is free and is set to the value that
 * makes the matrix a legal BLAS operand. */
dlgemm_status dlg_canonical_layout(const char *name, int64_t rows, int64_t cols, int64_t *rs,
                                   int64_t *cs)
{
  if (*rs < 0 || *cs < 0)
    return dlg_fail(DLGEMM_ERR_BAD_STRIDES, "%s: negative strides (%lld, %lld) are not supported",
                    name, (long long)*rs, (long long)*cs);
  if (rows == 0 || cols == 0 || (rows == 1 && cols == 1)) { /* no stride is ever taken */
    *rs = 1;
    *cs = rows > 1 ? rows : 1;
    return DLGEMM_OK;
  }
  if (cols == 1) { /* one column: contiguous, or a row-major matrix of ld rs */
    if (*rs == 1) *cs = rows;
    else if (*rs >= 1) *cs = 1;
    else goto overlap;
    return DLGEMM_OK;
  }
  if (rows == 1) { /* one row: contiguous, or a column-major matrix of ld cs */
    if (*cs == 1) *rs = cols;
    else if (*cs >= 1) *rs = 1;
    else goto overlap;
    return DLGEMM_OK;
  }
  if ((*cs == 1 && *rs >= cols) || (*rs == 1 && *cs >= rows)) return DLGEMM_OK;
  if (*rs != 1 && *cs != 1)
    return dlg_fail(DLGEMM_ERR_BAD_STRIDES,
                    "%s: strides (%lld, %lld) of a %lldx%lld matrix have no unit stride",
                    name, (long long)*rs, (long long)*cs, (long long)rows, (long long)cols);
overlap:
  return dlg_fail(DLGEMM_ERR_BAD_STRIDES,
                  "%s: strides (%lld, %lld) of a %lldx%lld matrix make its rows or columns "
                  "overlap (leading dimension too small)",
                  name, (long long)*rs, (long long)*cs, (long long)rows, (long long)cols);
}

static dlgemm_status read_view(const DLTensor *t, const char *name, view *v)
{
  int64_t rs, cs, bs;
  size_t esize;
  uintptr_t addr;
  int i;
  dlgemm_status st;

  v->name = name;
  if (t->ndim != 2 && t->ndim != 3)
    return dlg_fail(DLGEMM_ERR_BAD_NDIM, "%s: ndim is %d; 2 (a matrix) or 3 (a batch) is "
                    "required", name, t->ndim);
  if (!t->shape)
    return dlg_fail(DLGEMM_ERR_NULL_ARGUMENT, "%s: shape is NULL", name);
  for (i = 0; i < t->ndim; i++)
    if (t->shape[i] < 0)
      return dlg_fail(DLGEMM_ERR_SHAPE_MISMATCH, "%s: shape[%d] is negative (%lld)", name, i,
                      (long long)t->shape[i]);
  v->ndim = t->ndim;
  v->batch = t->ndim == 3 ? t->shape[0] : 1;
  v->rows = t->shape[t->ndim - 2];
  v->cols = t->shape[t->ndim - 1];
  if (t->strides) {
    rs = t->strides[t->ndim - 2];
    cs = t->strides[t->ndim - 1];
    bs = t->ndim == 3 ? t->strides[0] : 0;
  } else if ((st = compact_strides(name, v->batch, v->rows, v->cols, &rs, &cs, &bs))) {
    return st;
  }
  if ((st = dlg_canonical_layout(name, v->rows, v->cols, &rs, &cs))) return st;
  if (bs < 0)
    return dlg_fail(DLGEMM_ERR_BAD_STRIDES, "%s: negative batch stride %lld", name, (long long)bs);
  /* one matrix, or none at all: the batch stride is never stepped along, and
   * an empty operand's may be anything; downstream multiplies it by the
   * batch index, so it must not be left huge */
  if (v->batch <= 1 || !v->rows || !v->cols) bs = 0;

  esize = t->dtype.bits / 8;
  if (t->byte_offset % esize)
    return dlg_fail(DLGEMM_ERR_MISALIGNED, "%s: byte_offset %llu is not a multiple of the "
                    "element size %zu", name, (unsigned long long)t->byte_offset, esize);
  v->mat.rows = v->rows;
  v->mat.cols = v->cols;
  v->mat.rs = rs;
  v->mat.cs = cs;
  v->mat.bs = bs;
  v->mat.data = t->data;
  v->lo = v->hi = (uintptr_t)t->data;
  if (v->batch && v->rows && v->cols) {
    if (!t->data)
      return dlg_fail(DLGEMM_ERR_NULL_DATA, "%s: data is NULL but the tensor has %lldx%lldx%lld "
                      "elements", name, (long long)v->batch, (long long)v->rows,
                      (long long)v->cols);
    if ((uint64_t)t->byte_offset > (uint64_t)UINTPTR_MAX - (uintptr_t)t->data)
      return dlg_fail(DLGEMM_ERR_TOO_LARGE, "%s: data + byte_offset %llu reaches past the end "
                      "of the address space", name, (unsigned long long)t->byte_offset);
    addr = (uintptr_t)t->data + (uintptr_t)t->byte_offset;
    if (addr % esize)
      return dlg_fail(DLGEMM_ERR_MISALIGNED, "%s: data + byte_offset (%p) is not aligned to "
                      "%zu bytes", name, (void *)addr, esize);
    if ((st = extent(name, addr, v->batch, &v->mat, esize, &v->lo, &v->hi))) return st;
    v->mat.data = (void *)addr;
  }
  return DLGEMM_OK;
}

/* Two operands share a byte (each span computed, checked, in read_view). */
static int overlaps(const view *x, const view *y)
{
  return x->lo < x->hi && y->lo < y->hi && x->lo < y->hi && y->lo < x->hi;
}

static dlgemm_status check_devices(const DLTensor *a, const DLTensor *b, const DLTensor *c,
                                   dlg_gemm *g)
{
  const DLTensor *t[3] = {a, b, c};
  const char *names[3] = {"A", "B", "C"};
  int i;
  const DLDevice cd = c->device;
  for (i = 0; i < 3; i++) {
    DLDeviceType d = t[i]->device.device_type;
    if (!is_host(d) && !is_gpu(d))
      return dlg_fail(DLGEMM_ERR_UNSUPPORTED_DEVICE, "%s: device type %d is not supported "
                      "(kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDA and kDLROCM are)", names[i],
                      (int)d);
  }
  if (is_gpu(cd.device_type)) {
    for (i = 0; i < 2; i++)
      if (t[i]->device.device_type != cd.device_type || t[i]->device.device_id != cd.device_id)
        return dlg_fail(DLGEMM_ERR_UNSUPPORTED_DEVICE, "%s is on device (%d, %d) but C is on "
                        "(%d, %d); all operands must be on the same GPU", names[i],
                        (int)t[i]->device.device_type, t[i]->device.device_id,
                        (int)cd.device_type, cd.device_id);
    g->place = cd.device_type == kDLCUDA ? DLG_CUDA : DLG_ROCM;
    g->device_id = cd.device_id;
    return DLGEMM_OK;
  }
  for (i = 0; i < 2; i++)
    if (!is_host(t[i]->device.device_type))
      return dlg_fail(DLGEMM_ERR_UNSUPPORTED_DEVICE, "%s is on GPU (%d, %d) but C is in host "
                      "memory; all operands must be on the same device", names[i],
                      (int)t[i]->device.device_type, t[i]->device.device_id);
  g->place = DLG_HOST;
  g->device_id = 0;
  return DLGEMM_OK;
}

dlgemm_status dlg_validate_tensors(const DLTensor *a, const DLTensor *b, const DLTensor *c,
                                   dlg_gemm *g)
{
  view va, vb, vc;
  dlg_dtype ta = DLG_F32, tb = DLG_F32, tc = DLG_F32;
  dlgemm_status st;

  if (!a || !b || !c)
    return dlg_fail(DLGEMM_ERR_NULL_ARGUMENT, "%s is NULL", !a ? "A" : !b ? "B" : "C");
  if ((st = read_dtype(a, "A", &ta)) || (st = read_dtype(b, "B", &tb)) ||
      (st = read_dtype(c, "C", &tc)))
    return st;
  if ((st = check_dtypes(ta, tb, tc))) return st;
  if ((st = read_view(a, "A", &va)) || (st = read_view(b, "B", &vb)) ||
      (st = read_view(c, "C", &vc)))
    return st;
  if (vc.ndim == 2 && (va.ndim == 3 || vb.ndim == 3))
    return dlg_fail(DLGEMM_ERR_BAD_NDIM, "%s is a batch (3-D) but C is a single matrix (2-D)",
                    va.ndim == 3 ? "A" : "B");
  if (va.rows != vc.rows || vb.cols != vc.cols || va.cols != vb.rows)
    return dlg_fail(DLGEMM_ERR_SHAPE_MISMATCH, "A is %lldx%lld, B is %lldx%lld, C is %lldx%lld: "
                    "need A m x k, B k x n, C m x n", (long long)va.rows, (long long)va.cols,
                    (long long)vb.rows, (long long)vb.cols, (long long)vc.rows,
                    (long long)vc.cols);
  if ((va.batch != 1 && va.batch != vc.batch) || (vb.batch != 1 && vb.batch != vc.batch))
    return dlg_fail(DLGEMM_ERR_SHAPE_MISMATCH, "batch sizes disagree: A %lld, B %lld, C %lld "
                    "(A and B may also have a batch of 1)", (long long)va.batch,
                    (long long)vb.batch, (long long)vc.batch);
  if ((st = check_devices(a, b, c, g))) return st;

  g->dtype = tc;
  g->dtype_in = ta;
  g->m = vc.rows;
  g->n = vc.cols;
  g->k = va.cols;
  g->batch = vc.batch;
  g->a = va.mat;
  g->b = vb.mat;
  g->c = vc.mat;
  if (g->batch > 1 && g->m && g->n) {
    /* no wrap: C's whole extent passed extent() */
    uint64_t matrix_end = (uint64_t)(g->m - 1) * g->c.rs + (uint64_t)(g->n - 1) * g->c.cs;
    if ((uint64_t)g->c.bs <= matrix_end)
      return dlg_fail(DLGEMM_ERR_BAD_STRIDES, "C: batch stride %lld makes the matrices of the "
                      "batch overlap (each spans %llu elements)", (long long)g->c.bs,
                      (unsigned long long)matrix_end + 1);
  }
  if (g->k) {
    const int on_a = overlaps(&vc, &va);
    if (on_a || overlaps(&vc, &vb))
      return dlg_fail(DLGEMM_ERR_OVERLAP, "C overlaps %s in memory; the result would depend on "
                      "the order of the writes", on_a ? "A" : "B");
  }
  return DLGEMM_OK;
}

/* The defaults dlg_validate_options starts from, public as dlgemm.h says. */
DLGEMM_API void dlgemm_options_init(dlgemm_options *opts)
{
  if (!opts) return;
  memset(opts, 0, sizeof *opts);
  opts->struct_size = sizeof *opts;
  opts->precision = DLGEMM_PRECISION_STRICT;
  opts->backend = DLGEMM_BACKEND_AUTO;
  opts->stream = NULL;
}

dlgemm_status dlg_validate_options(const dlgemm_options *in, dlgemm_options *out)
{
  size_t min = offsetof(dlgemm_options, struct_size) + sizeof in->struct_size;
  dlgemm_options_init(out);
  if (!in) return DLGEMM_OK;
  if (in->struct_size < min)
    return dlg_fail(DLGEMM_ERR_BAD_OPTIONS, "opts: struct_size %zu is too small (set it to "
                    "sizeof(dlgemm_options))", in->struct_size);
  if (in->struct_size > sizeof *out) {
    const unsigned char *extra = (const unsigned char *)in + sizeof *out;
    size_t i;
    for (i = 0; i < in->struct_size - sizeof *out; i++)
      if (extra[i])
        return dlg_fail(DLGEMM_ERR_BAD_OPTIONS, "opts: struct_size %zu is larger than this "
                        "library's %zu and byte %zu past it is set: a newer option this "
                        "version does not know", in->struct_size, sizeof *out,
                        sizeof *out + i);
  }
  memcpy(out, in, in->struct_size < sizeof *out ? in->struct_size : sizeof *out);
  out->struct_size = sizeof *out;
  if ((unsigned)out->precision > DLGEMM_PRECISION_3XTF32)
    return dlg_fail(DLGEMM_ERR_BAD_OPTIONS, "opts: precision %d is not a dlgemm_precision",
                    (int)out->precision);
  if ((unsigned)out->backend > DLGEMM_BACKEND_HIP)
    return dlg_fail(DLGEMM_ERR_BAD_OPTIONS, "opts: backend %d is not a dlgemm_backend",
                    (int)out->backend);
  return DLGEMM_OK;
}
