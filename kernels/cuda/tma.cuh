/*
 * tma.cuh - the mbarrier and TMA-load instructions (sm_90) that the
 * kernels fed by TMA share: hgemm_wgmma.cu's producer warp and
 * dgemm_tma.cu's rotating refills.  A stage's "full" barrier is armed
 * with the bytes its boxes bring (bar_expect) and completes when they
 * have landed; consumers wait on its phase parity.
 */
#ifndef DLG_TMA_CUH
#define DLG_TMA_CUH

#include <cuda.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

static __device__ __forceinline__ void bar_init(unsigned bar, unsigned count)
{
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
static __device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity)
{
  unsigned done;
  do {
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  } while (!done);
}
static __device__ __forceinline__ void bar_arrive(unsigned bar)
{
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
static __device__ __forceinline__ void bar_expect(unsigned bar, unsigned bytes)
{
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
/* One TMA box to shared memory at dst, completing bytes on bar. */
static __device__ __forceinline__ void tma_load(unsigned dst, const CUtensorMap *map, unsigned bar,
                                                int c0, int c1, int c2)
{
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
               "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
               : "memory");
}

#endif

#endif
