/*
 * sass_probe.cu - small kernels whose SASS has known properties, for the
 * dlgemm-sass tests: a dense FFMA loop fed by 128-bit shared loads (passes
 * the gates), the same loop diluted with integer work (fails the FFMA
 * gate), a kernel that must use local memory (fails the clean gate), and a
 * global load whose consumer must wait on its scoreboard.
 */
extern "C" __global__ void probe_dense(const float4 *in, float *out, int n)
{
  __shared__ float4 s[1024];
  float acc[8][8] = {};
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = in[i];
  __syncthreads();
  const float4 *p = s + (threadIdx.x & 7);
  for (int k = 0; k < n; k++, p += 16) { /* 64 FFMA per 4 LDS.128 */
    const float4 a0 = p[0], a1 = p[8], b0 = p[256], b1 = p[264];
    const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
    const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
      for (int j = 0; j < 8; j++) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
  }
  float r = 0;
#pragma unroll
  for (int i = 0; i < 8; i++)
#pragma unroll
    for (int j = 0; j < 8; j++) r += acc[i][j];
  out[threadIdx.x] = r;
}

extern "C" __global__ void probe_diluted(const float4 *in, float *out, const int *idx, int n)
{
  __shared__ float4 s[256];
  float acc = 0;
  int h = threadIdx.x;
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  for (int k = 0; k < n; k++) {
    float4 a = s[h & 255];
    h = h * 1103515245 + 12345 + (h >> 7); /* integer work between the FFMAs */
    acc = fmaf(a.x, a.y, acc);
    h ^= h >> 3;
  }
  out[threadIdx.x] = acc + (float)h;
}

extern "C" __global__ void probe_spill(const float *in, const int *idx, float *out)
{
  float local[64]; /* indexed at run time: must live in local memory */
  for (int i = 0; i < 64; i++) local[i] = in[i * blockDim.x + threadIdx.x];
  for (int i = 0; i < 64; i++) local[idx[i] & 63] += local[i];
  out[threadIdx.x] = local[idx[threadIdx.x] & 63];
}

extern "C" __global__ void probe_load_use(const float *in, float *out)
{
  out[threadIdx.x] = in[threadIdx.x] * 3.0f;
}
