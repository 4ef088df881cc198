/*
 * pointers.c - what the driver knows of each device operand's memory, asked
 * once per operand per call (cuPointerGetAttributes: about a microsecond,
 * and, unlike the singular call, no error left behind for an address it
 * does not know, so compute-sanitizer stays quiet on the refusals).
 */
#include <stdint.h>
#include "core/errors.h"
#include "cuda/device/pointers.h"

static dlgemm_status check(const dlg_cuda_api *cu, const char *name, const dlg_matrix *x,
                           int64_t batch, size_t es, int ordinal)
{
  CUpointer_attribute what[5] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                 CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                 CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  unsigned type = 0;
  int device = -1, managed = 0;
  CUdeviceptr start = 0;
  size_t size = 0;
  void *out[5] = {&type, &device, &managed, &start, &size};
  const uintptr_t p = (uintptr_t)x->data;
  uintptr_t end;
  CUresult r;
  if (!x->rows || !x->cols || !batch) return DLGEMM_OK;
  /* no wrap: validation bounded the extent */
  end = p + (uintptr_t)(((batch - 1) * x->bs + (x->rows - 1) * x->rs + (x->cols - 1) * x->cs + 1) *
                        (int64_t)es);
  if ((r = cu->PointerGetAttributes(5, what, out, (CUdeviceptr)p)))
    return dlg_fail(DLGEMM_ERR_BAD_POINTER, "%s: the driver cannot describe data %p: %s", name,
                    (void *)p, dlg_cuda_error(r));
  if (type == CU_MEMORYTYPE_HOST)
    return dlg_fail(DLGEMM_ERR_BAD_POINTER, "%s: data %p is page-locked host memory, not CUDA "
                    "device memory: describe the tensor as kDLCUDAHost", name, (void *)p);
  if (type != CU_MEMORYTYPE_DEVICE)
    return dlg_fail(DLGEMM_ERR_BAD_POINTER, "%s: data %p is not memory the CUDA driver knows "
                    "(host memory, or device memory already freed) but the tensor says "
                    "kDLCUDA", name, (void *)p);
  if (!managed && device != ordinal)
    return dlg_fail(DLGEMM_ERR_BAD_POINTER, "%s: data %p is memory of CUDA device %d, but the "
                    "tensor names device %d", name, (void *)p, device, ordinal);
  if (start && size && end > (uintptr_t)start + size)
    return dlg_fail(DLGEMM_ERR_BAD_POINTER, "%s: the tensor ends %zu bytes past the end of its "
                    "allocation (%zu bytes from %p)", name, (size_t)(end - ((uintptr_t)start + size)),
                    size, (void *)(uintptr_t)start);
  return DLGEMM_OK;
}

dlgemm_status dlg_cuda_check_pointers(const dlg_cuda_api *cu, const dlg_gemm *g, int ordinal)
{
  const size_t es = dlg_elem_size(g->dtype), is = dlg_elem_size(g->dtype_in);
  dlgemm_status st;
  if (g->k && ((st = check(cu, "A", &g->a, g->batch, is, ordinal)) ||
               (st = check(cu, "B", &g->b, g->batch, is, ordinal))))
    return st;
  return check(cu, "C", &g->c, g->batch, es, ordinal);
}
