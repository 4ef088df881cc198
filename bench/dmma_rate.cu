/*
 * dmma_rate.cu - the FP64 tensor-core shapes of sm_90 measured alone:
 * DMMA.16x8x8 against DMMA.16x8x16, with one and two warps a scheduler,
 * and whether m16n8k16's fragments are two m16n8k8 fragments (k 0-7, then
 * 8-15) side by side.  bench/NOTES.md ("FP64 variants that did not pay")
 * has the figures.  Not part of the build (CUDA runtime API):
 *   nvcc -arch=sm_90 -o dmma_rate bench/dmma_rate.cu && ./dmma_rate
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
__device__ __forceinline__ void d8(double (&d)[4], const double *a, const double *b) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 "
               "{%0,%1,%2,%3},{%4,%5,%6,%7},{%8,%9},{%0,%1,%2,%3};"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
__device__ __forceinline__ void d16(double (&d)[4], const double *a, const double *b) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 "
               "{%0,%1,%2,%3},{%4,%5,%6,%7,%8,%9,%10,%11},{%12,%13,%14,%15},{%0,%1,%2,%3};"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
                 "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
/* 16 independent accumulators a warp, so that only the DMMA pipe limits the rate */
template <int K> __global__ void rate(double *o, int iters) {
  double acc[16][4];
  double a[8], b[4];
  for (int i = 0; i < 8; i++)
    a[i] = 1e-3 * (threadIdx.x + i);
  for (int i = 0; i < 4; i++)
    b[i] = 1e-3 * (i + 1);
  for (int i = 0; i < 16; i++)
    for (int e = 0; e < 4; e++)
      acc[i][e] = 0;
  for (int it = 0; it < iters; it++) {
#pragma unroll
    for (int i = 0; i < 16; i++) {
      if (K == 16)
        d16(acc[i], a, b);
      else
        d8(acc[i], a, b);
    }
  }
  double s = 0;
  for (int i = 0; i < 16; i++)
    for (int e = 0; e < 4; e++)
      s += acc[i][e];
  o[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
/* one m16n8k16 against two m16n8k8 on the same registers (A 16 x 16 row-major, B 16 x 8 as
 * k x n, C 16 x 8), fragments as dgemm_tile.cuh lays them out */
__global__ void layout(const double *A, const double *B, double *C8, double *C16) {
  int l = threadIdx.x, g = l / 4, t = l % 4;
  double a[8], b[4], c8[4] = {0, 0, 0, 0}, c16[4] = {0, 0, 0, 0};
  for (int q = 0; q < 8; q++)
    a[q] = A[(g + 8 * (q % 2)) * 16 + t + 4 * (q / 2)];
  for (int q = 0; q < 4; q++)
    b[q] = B[(t + 4 * q) * 8 + g];
  d16(c16, a, b);
  d8(c8, a, b);
  d8(c8, a + 4, b + 2);
  for (int e = 0; e < 4; e++) {
    int r = g + 8 * (e / 2), c = 2 * t + e % 2;
    C16[r * 8 + c] = c16[e];
    C8[r * 8 + c] = c8[e];
  }
}
int main() {
  double *o;
  cudaMalloc(&o, 1 << 24);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  int iters = 4000;
  for (int rep = 0; rep < 2; rep++)
    for (int K = 8; K <= 16; K += 8)
      for (int bps = 1; bps <= 2; bps++) {
        int blocks = 132 * bps;
        float best = 1e9;
        for (int r = 0; r < 5; r++) {
          cudaEventRecord(e0);
          if (K == 8)
            rate<8><<<blocks, 128>>>(o, iters);
          else
            rate<16><<<blocks, 128>>>(o, iters);
          cudaEventRecord(e1);
          cudaEventSynchronize(e1);
          float ms;
          cudaEventElapsedTime(&ms, e0, e1);
          if (ms < best)
            best = ms;
        }
        double fl = 2.0 * blocks * 4 * (double)iters * 16 * 16 * 8 * K;
        printf("k%-2d blocks/SM %d warps/SM %d: %.1f TFLOP/s (%.3f ms)\n", K, bps, 4 * bps,
               fl / best / 1e9, best);
      }
  double hA[256], hB[128], hR[128], hC8[128], hC16[128];
  srand(1);
  for (int i = 0; i < 256; i++)
    hA[i] = rand() / (double)RAND_MAX - 0.5;
  for (int i = 0; i < 128; i++)
    hB[i] = rand() / (double)RAND_MAX - 0.5;
  for (int r = 0; r < 16; r++)
    for (int c = 0; c < 8; c++) {
      double s = 0;
      for (int k = 0; k < 16; k++)
        s += hA[r * 16 + k] * hB[k * 8 + c];
      hR[r * 8 + c] = s;
    }
  double *dA, *dB, *d8, *d16;
  cudaMalloc(&dA, 2048);
  cudaMalloc(&dB, 1024);
  cudaMalloc(&d8, 1024);
  cudaMalloc(&d16, 1024);
  cudaMemcpy(dA, hA, 2048, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, hB, 1024, cudaMemcpyHostToDevice);
  layout<<<1, 32>>>(dA, dB, d8, d16);
  cudaMemcpy(hC8, d8, 1024, cudaMemcpyDeviceToHost);
  cudaMemcpy(hC16, d16, 1024, cudaMemcpyDeviceToHost);
  double e8 = 0, e16 = 0, e816 = 0;
  for (int i = 0; i < 128; i++) {
    e8 = fmax(e8, fabs(hC8[i] - hR[i]));
    e16 = fmax(e16, fabs(hC16[i] - hR[i]));
    e816 = fmax(e816, fabs(hC8[i] - hC16[i]));
  }
  printf("layout: k16 max err %.3g, two k8 max err %.3g, k16 vs two k8 %.3g (%s)\n", e16, e8, e816,
         cudaGetErrorString(cudaGetLastError()));
}
