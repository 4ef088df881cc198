/*
 * hgemm_convert.cuh - C's element types for the tensor-core kernels'
 * epilogues (hgemm_mma.cu, hgemm_wgmma.cu): to and from float, rounding
 * once to nearest even, singly or as a pair of adjacent elements (read or
 * written as one access).
 */
#ifndef DLG_HGEMM_CONVERT_CUH
#define DLG_HGEMM_CONVERT_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace hconv {

static __device__ __forceinline__ float widen(float x) { return x; }
static __device__ __forceinline__ float widen(__half x) { return __half2float(x); }
static __device__ __forceinline__ float widen(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T> static __device__ __forceinline__ T narrow(float x);
template <> __device__ __forceinline__ float narrow<float>(float x) { return x; }
template <> __device__ __forceinline__ __half narrow<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 narrow<__nv_bfloat16>(float x)
{
  return __float2bfloat16_rn(x);
}
static __device__ __forceinline__ void store_pair(float *p, float a, float b)
{
  *reinterpret_cast<float2 *>(p) = make_float2(a, b);
}
static __device__ __forceinline__ void store_pair(__half *p, float a, float b)
{
  *reinterpret_cast<__half2 *>(p) = __floats2half2_rn(a, b);
}
static __device__ __forceinline__ void store_pair(__nv_bfloat16 *p, float a, float b)
{
  *reinterpret_cast<__nv_bfloat162 *>(p) = __floats2bfloat162_rn(a, b);
}
static __device__ __forceinline__ void load_pair(const float *p, float &a, float &b)
{
  const float2 v = *reinterpret_cast<const float2 *>(p);
  a = v.x, b = v.y;
}
static __device__ __forceinline__ void load_pair(const __half *p, float &a, float &b)
{
  const float2 v = __half22float2(*reinterpret_cast<const __half2 *>(p));
  a = v.x, b = v.y;
}
static __device__ __forceinline__ void load_pair(const __nv_bfloat16 *p, float &a, float &b)
{
  const float2 v = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(p));
  a = v.x, b = v.y;
}

/* Two floats as one 32-bit pair of T (the first in the low half), as
 * stmatrix takes them. */
template <typename T> static __device__ __forceinline__ unsigned pack(float a, float b);
template <> __device__ __forceinline__ unsigned pack<__half>(float a, float b)
{
  const __half2 h = __floats2half2_rn(a, b);
  return *reinterpret_cast<const unsigned *>(&h);
}
template <> __device__ __forceinline__ unsigned pack<__nv_bfloat16>(float a, float b)
{
  const __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
  return *reinterpret_cast<const unsigned *>(&h);
}

/* The inverse of pack: a 32-bit pair of T (as ldmatrix gives them) as two
 * floats. */
template <typename T> static __device__ __forceinline__ float2 unpack(unsigned v);
template <> __device__ __forceinline__ float2 unpack<__half>(unsigned v)
{
  return __half22float2(*reinterpret_cast<const __half2 *>(&v));
}
template <> __device__ __forceinline__ float2 unpack<__nv_bfloat16>(unsigned v)
{
  return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&v));
}

} /* namespace hconv */

#endif
