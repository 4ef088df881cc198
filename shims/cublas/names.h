/*
 * names.h - the cuBLAS and cuBLASLt symbols dlgemm stands in front of, as
 * data.
 *
 * A framework (PyTorch, CuPy, any CUDA program) multiplies through cuBLAS;
 * with libdlgemm.so loaded ahead of it (LD_PRELOAD, or the Python autoload's
 * dlopen with RTLD_GLOBAL before the framework is imported) these names
 * resolve to dlgemm's, which take a call where dlgemm is measured to finish
 * it sooner (plugin/api/rival.c) and otherwise call the next definition, the
 * library the program was linked with, with the caller's own arguments.
 *
 * X(name, library): the entry points dlgemm defines (cublas.c, cublaslt.c)
 * and exports (abi/dlgemm.map.in); library is the soname stem of the one
 * whose definition comes next.  H(name, library): what those need of the
 * next library besides (the stream, math and pointer modes of a handle, a
 * descriptor's attributes; a handle of dlgemm's own, shims/cublas/own.c); looked
 * up, never defined here.  Nothing here
 * needs another header: the map's preprocessing reads it too.
 */
#ifndef DLG_SHIMS_CUBLAS_NAMES_H
#define DLG_SHIMS_CUBLAS_NAMES_H

#define DLG_CUBLAS_ENTRIES(X)                           \
  X(cublasSgemm_v2, "libcublas.so")                     \
  X(cublasDgemm_v2, "libcublas.so")                     \
  X(cublasGemmEx, "libcublas.so")                       \
  X(cublasSgemmStridedBatched, "libcublas.so")          \
  X(cublasDgemmStridedBatched, "libcublas.so")          \
  X(cublasGemmStridedBatchedEx, "libcublas.so")         \
  X(cublasLtMatmul, "libcublasLt.so")

#define DLG_CUBLAS_HELPERS(H)                           \
  H(cublasCreate_v2, "libcublas.so")                    \
  H(cublasSetStream_v2, "libcublas.so")                 \
  H(cublasGetStream_v2, "libcublas.so")                 \
  H(cublasGetMathMode, "libcublas.so")                  \
  H(cublasGetPointerMode_v2, "libcublas.so")            \
  H(cublasLtMatmulDescGetAttribute, "libcublasLt.so")   \
  H(cublasLtMatrixLayoutGetAttribute, "libcublasLt.so")

#endif
