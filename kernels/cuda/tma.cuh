/*
 * tma.cuh - the mbarrier and TMA instructions (sm_90) that the kernels fed
 * by TMA share: hgemm_wgmma.cu's and dgemm_tma.cu's producer threads, and
 * both kernels' TMA stores of C.  A stage's "full" barrier is armed with
 * the bytes its boxes bring (bar_expect) and completes when they have
 * landed; consumers wait on its phase parity.
 *
 * Clusters (hgemm_wgmma.cu's pairs of blocks): a multicast box lands at
 * the same shared-memory offset in every CTA its mask names and completes
 * bytes on the barrier at the same offset in each; a CTA frees a stage its
 * peer fills by arriving on the peer's barrier (bar_arrive_cta).
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

/* The same box into each CTA of the cluster named by mask (bit r: rank r). */
static __device__ __forceinline__ void tma_load_multicast(unsigned dst, const CUtensorMap *map,
                                                          unsigned bar, int c0, int c1, int c2,
                                                          unsigned short mask)
{
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%2, %3, %4}], [%5], %6;\n" ::"r"(dst),
               "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "h"(mask)
               : "memory");
}
/* An arrival on the barrier at offset bar in the shared memory of the
 * cluster's CTA `rank` (this CTA's own included).  Release at CTA scope,
 * the default: what it orders is this warp's wgmmas having read the stage,
 * which wgmma.wait_group already ensured.  With .release.cluster the
 * paired wgmma kernels ran at a third of their speed (H100, bf16 3000^3). */
static __device__ __forceinline__ void bar_arrive_cta(unsigned bar, unsigned rank)
{
  asm volatile("{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %0, %1;\n"
               "mbarrier.arrive.shared::cluster.b64 _, [r];\n}\n" ::"r"(bar),
               "r"(rank)
               : "memory");
}
/* Every thread of the cluster that has not exited (a CTA is its own cluster
 * of one when launched without clusters); warp-uniform. */
static __device__ __forceinline__ void cluster_sync()
{
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::
                   : "memory");
}
static __device__ __forceinline__ unsigned cluster_ctas()
{
  unsigned n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(n));
  return n;
}
static __device__ __forceinline__ unsigned cluster_rank()
{
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}

/* The TMA store of one box (of C) from shared memory at src, joining this
 * thread's current bulk group (tma_commit closes it); the thread that
 * issues it is the one that waits. */
static __device__ __forceinline__ void tma_store(const CUtensorMap *map, unsigned src, int c0,
                                                 int c1, int c2)
{
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\n"
               ::"l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(src)
               : "memory");
}
static __device__ __forceinline__ void tma_commit()
{
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
/* Until at most N of this thread's TMA stores still read shared memory. */
template <int N> static __device__ __forceinline__ void tma_store_wait_read()
{
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
static __device__ __forceinline__ void tma_store_wait_all()
{
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

#endif

#endif
