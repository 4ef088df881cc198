/*
 * in_place.cuh - a value ptxas must take as computed where it is used.
 *
 * ptxas hoists loop-invariant values and keeps values it computed once
 * alive, which at the register limits of dlgemm's kernels spills them to
 * local memory.  in_place(x) passes x through an opaque move, so what is
 * computed from it is computed there (the kernels say where and why).
 */
#ifndef DLG_IN_PLACE_CUH
#define DLG_IN_PLACE_CUH

static __device__ __forceinline__ unsigned in_place(unsigned x)
{
  asm volatile("mov.b32 %0, %0;" : "+r"(x));
  return x;
}

#endif
