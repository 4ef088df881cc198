/*
 * kernels.cu - every CUDA kernel of libdlgemm.so in one translation unit, so
 * nvcc makes one fatbin of cubins (one per architecture) for the library to
 * embed.
 */
#include "sgemm_simt.cu"
#include "sgemm_sgpr.cu"
#include "dgemm_dmma.cu"
#include "hgemm_mma.cu"
#include "tf32_pack.cu"
