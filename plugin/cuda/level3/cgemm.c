/*
 * cgemm.c - a batch of complex products as one real product on dlgemm's
 * GEMM kernels (cgemm.h).
 *
 * A complex product is four real ones (the 4M product: each rounded as a
 * real GEMM rounds; 3M would save a quarter of them and lose accuracy in
 * the smaller part of each element).  Two embeddings make them one real
 * GEMM, and each can be made on the problem or on its transpose
 * (C^T = B^T A^T), whose output a combining pass writes into C's view:
 *
 *   expand  alpha op(A) packed as the real 2m x 2k matrix of [re -im; im re]
 *           blocks (cpack); op(B) read in place as the real 2k x n matrix
 *           its interleaved storage is (copied plain where it is not one,
 *           or is conjugated); the product is C's interleaved storage,
 *           written in place where C is column-major, else to a scratch
 *           that ccombine copies into C
 *   split   op(A) read in place as the real 2m x k matrix its interleaved
 *           storage is (where it is column-major); op(B) packed as the real
 *           k x 2n [re | im] (csplit); the 2m x 2n product holds the four
 *           real products, which ccombine adds into C with alpha and beta
 *
 * A packing pass costs what its operand weighs: expanding a big A (n
 * narrow) or copying a big B moved 3-5 times the bytes cuBLAS moves, and
 * complex products with a side of 1-128 ran at 0.13-0.7 of cuBLAS (issue
 * 51).  So each call takes the way that moves the fewest bytes by a count
 * of its passes (the tiles' re-reads aside), the proven direct expansion
 * unless another saves a fifth.
 *
 * The complex DMMA kernels (zdmma.h) do the expansion where they read
 * fragments, with no pass at all; native_wins() says where they are
 * measured to beat the embedding's best way; complex64's FFMA tiles
 * (csimt.h) likewise, the embedding's real tiles without its passes and
 * with half their accumulators.  And a product of k up to
 * DLG_L3_SMALL_K is no GEMM at all but C's stream: level3.cu's csmallk
 * writes it in place (small_k_wins() says where).
 */
#include <math.h>
#include "core/config.h"
#include "core/gemm.h"
#include "cuda/device/driver.h"
#include "cuda/level3/cgemm.h"
#include "cuda/level3/csimt.h"
#include "cuda/level3/launch.h"
#include "cuda/level3/zdmma.h"
#include "kernels/cuda/level3_args.h"

/* O = alpha op(F)' op(G)' + beta O, in one orientation: F m x k, G k x n,
 * O m x n; batch strides in complex elements. */
typedef struct problem {
  dlg_dview f, g, o;
  int cf, cg;
  int64_t sf, sg, so;
} problem;

/* Whether a view's interleaved storage is a real column-major matrix (of
 * twice its rows, leading dimension twice its column stride).  One row
 * is, whatever its row stride: a row-major C of one row went to a scratch
 * and a combining pass, 5 us on a 70 us complex GEMV (H200, session 36). */
static int interleaved(dlg_dview v) { return v.rs == 1 || (v.rows == 1 && v.cs >= 1); }

static double writes_c(const problem *p, double beta)
{
  return (beta != 0 ? 4.0 : 2.0) * (double)p->o.rows * (double)p->o.cols;
}

/* Reals moved by each way. */
static double expand_cost(const problem *p, double beta)
{
  const double m = (double)p->f.rows, k = (double)p->f.cols, n = (double)p->g.cols;
  double reals = 6 * m * k + 4 * m * k + 2 * k * n + writes_c(p, beta);
  if (!interleaved(p->g) || p->cg) reals += 4 * k * n;
  if (!interleaved(p->o)) reals += 4 * m * n; /* the scratch written and read */
  return reals;
}

static double split_cost(const problem *p, double beta)
{
  const double m = (double)p->f.rows, k = (double)p->f.cols, n = (double)p->g.cols;
  if (!interleaved(p->f)) return INFINITY;
  return 4 * k * n + 2 * m * k + 2 * k * n + 8 * m * n + writes_c(p, beta);
}

/* ccombine from the real x (leading dimension ldx, terms oa, ob, s1, s2 as
 * level3.cu says) into o, batch entries sx reals apart. */
static void combine(dlg_factor_run *r, CUdeviceptr x, int64_t ldx, int64_t oa, int64_t ob,
                    int s1, int s2, const double alpha[2], double beta, const problem *p,
                    int64_t sx, int64_t batch)
{
  const double b2[2] = {beta, 0};
  dlg_l3_scalar sa, sb;
  CUdeviceptr o = p->o.p;
  long long l = ldx, a = oa, b = ob, m = p->o.rows, n = p->o.cols, rs = p->o.rs, cs = p->o.cs;
  long long xs = sx, os = p->so;
  void *params[] = {&x,  &l, &a,  &b,  &s1, &s2, &m, &n, dlg_l3_scalar_of(r, alpha, &sa),
                    dlg_l3_scalar_of(r, b2, &sb), &o, &rs, &cs, &xs, &os};
  /* beta is the real type's: the first of the scalar's two parts */
  dlg_l3_launch(r, DLG_L3_CCOMBINE, p->o.rows, p->o.cols, batch, params);
}

static void expand(dlg_factor_run *r, const double alpha[2], const problem *p, double beta,
                   int64_t batch)
{
  static const double one[2] = {1, 0};
  const size_t res = dlg_elem_size(dlg_real_of(r->dtype));
  const int64_t m = p->f.rows, k = p->f.cols, n = p->g.cols;
  const int direct = interleaved(p->o);
  const int64_t nf = p->sf ? batch : 1, ng = !interleaved(p->g) || p->cg ? (p->sg ? batch : 1) : 0;
  const size_t per_f = (size_t)(4 * m * k), per_g = (size_t)(2 * k * n),
               per_x = direct ? 0 : (size_t)(2 * m * n); /* reals */
  CUdeviceptr w = dlg_l3_scratch(r, ((size_t)nf * per_f + (size_t)ng * per_g +
                                     (size_t)batch * per_x) * res);
  CUdeviceptr wg = w + (CUdeviceptr)((size_t)nf * per_f * res),
              wx = wg + (CUdeviceptr)((size_t)ng * per_g * res);
  dlg_dview g = p->g;
  int64_t sg = p->sg;
  dlg_factor_run rr;
  if (!w) return;
  {
    dlg_l3_scalar s;
    CUdeviceptr f = p->f.p;
    long long rs = p->f.rs, cs = p->f.cs, mm = m, kk = k, stride = p->sf;
    int conj = p->cf;
    void *params[] = {&f, &rs, &cs, &mm, &kk, &conj, dlg_l3_scalar_of(r, alpha, &s), &w, &stride};
    dlg_l3_launch(r, DLG_L3_CPACK, m, k, nf, params);
  }
  if (ng) {
    long long rs = g.rs, cs = g.cs, kk = k, nn = n, stride = sg;
    int conj = p->cg;
    void *params[] = {&g.p, &rs, &cs, &kk, &nn, &conj, &wg, &stride};
    dlg_l3_launch(r, DLG_L3_CPLAIN, k, n, ng, params);
    g = (dlg_dview){wg, k, n, 1, k};
    sg = ng > 1 ? k * n : 0;
  }
  rr = *r; /* the same run, on the real parts; strides in reals */
  rr.dtype = dlg_real_of(r->dtype);
  /* into C's interleaved storage, or into the scratch ccombine reads */
  dlg_step_gemm_batch(&rr, 1.0, (dlg_dview){w, 2 * m, 2 * k, 1, 2 * m}, nf > 1 ? 4 * m * k : 0,
                      (dlg_dview){g.p, 2 * k, n, 1, 2 * g.cs}, 2 * sg, direct ? beta : 0.0,
                      direct ? (dlg_dview){p->o.p, 2 * m, n, 1, 2 * p->o.cs}
                             : (dlg_dview){wx, 2 * m, n, 1, 2 * m},
                      direct ? 2 * p->so : 2 * m * n, batch);
  r->status = rr.status;
  if (!direct) combine(r, wx, 2 * m, 0, 1, 0, 0, one, beta, p, 2 * m * n, batch);
  dlg_l3_release(r, w);
}

static void split(dlg_factor_run *r, const double alpha[2], const problem *p, double beta,
                  int64_t batch)
{
  const size_t res = dlg_elem_size(dlg_real_of(r->dtype));
  const int64_t m = p->f.rows, k = p->f.cols, n = p->g.cols, ng = p->sg ? batch : 1;
  const size_t per_g = (size_t)(2 * k * n), per_x = (size_t)(4 * m * n); /* reals */
  CUdeviceptr w = dlg_l3_scratch(r, ((size_t)ng * per_g + (size_t)batch * per_x) * res);
  CUdeviceptr wx = w + (CUdeviceptr)((size_t)ng * per_g * res);
  dlg_factor_run rr;
  if (!w) return;
  {
    CUdeviceptr g = p->g.p;
    long long rs = p->g.rs, cs = p->g.cs, kk = k, nn = n, stride = p->sg;
    int conj = p->cg;
    void *params[] = {&g, &rs, &cs, &kk, &nn, &conj, &w, &stride};
    dlg_l3_launch(r, DLG_L3_CSPLIT, k, n, ng, params);
  }
  rr = *r;
  rr.dtype = dlg_real_of(r->dtype);
  dlg_step_gemm_batch(&rr, 1.0, (dlg_dview){p->f.p, 2 * m, k, 1, 2 * p->f.cs}, 2 * p->sf,
                      (dlg_dview){w, k, 2 * n, 1, k}, ng > 1 ? 2 * k * n : 0, 0.0,
                      (dlg_dview){wx, 2 * m, 2 * n, 1, 2 * m}, 4 * m * n, batch);
  r->status = rr.status;
  /* A's imaginary parts a row below its real ones, B's n columns right;
   * conj(A) turns the signs of A's imaginary terms */
  combine(r, wx, 2 * m, 1, n * 2 * m, p->cf ? 1 : -1, p->cf ? -1 : 1, alpha, beta, p, 4 * m * n,
          batch);
  dlg_l3_release(r, w);
}

/* Where the complex DMMA kernels (zdmma.h) beat the embedding: measured
 * with each pinned over the sweep's complex cells (DLGEMM_CGEMM_WAY=native
 * and =embed, H200, session 35), the native kernel wins where the
 * embedding's packing passes cost as much as its products: batches of
 * products with C 48 or more on each side and m n k up to 2^25 (attention
 * heads up to sequence 512, batched 96^3: complex128 1.02-2.6x the
 * embedding's speed, complex64 1.05-2.3x).  Past that the embedding's
 * real kernels (TMA-fed for FP64) are 0-15% faster; and where the
 * embedding only packs A (B and C interleaved, B not conjugated: NN- and
 * TN-like) complex64 loses from 2^22 on (scores 256 x 256 x 64: 0.94, 512:
 * 0.87), its FP32 kernels keeping up with FP64 DMMA: there it stops at
 * 2^21.  Single products mostly keep the embedding: complex128's TMA
 * kernels run odd squares 5-10% faster, complex64's FP32 kernels aligned
 * squares (1536-4096: native 0.84-0.94 of them), and the embedding's
 * narrow kernels stream a side of 1-32 that the native 64 x 64 tile mostly
 * leaves empty (native 0.4-0.7 there).  Two kinds go native (session 37,
 * each way pinned over the complex cells under 0.9 of cuBLAS): complex64
 * squares whose sides are not whole 64-element tiles, 1000-5000 (every
 * layout: 0.80-0.89 of cuBLAS against the embedding's 0.67-0.86, their
 * ragged edges the embedding's cost; 255 lost, 0.43-0.49 against
 * 0.54-0.64, and 6000 was level), and complex128 products whose narrow
 * side, 48-64, is one row of the native tile against 1024 or more of the
 * other side and of k (0.80-0.90 against 0.76-0.87 in all eight cells;
 * 96 and 192, two and three rows of it, lost: 0.66-0.69 against 0.69-0.82).
 * And complex128 batches down to 16 a side (session 39), on the 32 x 32
 * tile (zdmma.c): 16^3 0.61-0.62 of cuBLAS against the tiny kernels'
 * 0.54-0.60, 24^3 1.22-1.24 against 0.72-0.80, 32^3 0.94-1.00 against
 * 0.36-0.40.  The cap on complex128 batches (m n k up to 2^25) was
 * measured while complex_gemm.c cut every batch into chunks of the
 * embedding's 256 MB of workspace, the native kernels' too: at 2^25-2^30
 * the native kernels then ran chunks of 1-26 entries, most under a wave.
 * Given whole batches, pinned over the sweep's 96 complex128 attention
 * cells (H100, session 44) they run 0.968-1.244 of cuBLAS (1.078) against
 * the embedding's 0.306-1.0 (0.728), winning every cell: complex128
 * batches have no cap. */
int dlg_cuda_cgemm_native_wins(dlg_dtype type, int64_t m, int64_t n, int64_t k, int packs_a_only,
                               int64_t batch)
{
  const int64_t lo = m < n ? m : n, hi = m < n ? n : m;
  const double mnk = (double)m * (double)n * (double)k;
  if (batch > 1)
    return type == DLG_C64 ? lo >= 48 && mnk <= (packs_a_only ? 1 << 21 : 1 << 25) : lo >= 16;
  if (type == DLG_C64)
    return lo >= 1000 && k >= 1000 && (m % 64 || n % 64) && mnk <= 0x1p37;
  /* complex128 single products: 48-64 wide against 1024 or more; and the
   * squares where the DMMA kernels won in every layout, beta 0 and 1
   * (H100, session 46, bench/results/session46/b/cw_c128_odd_*): 255^3
   * 0.47-0.53 of cuBLAS on the embedding, 0.89-1.06 on the 32 x 32 tile
   * (zdmma.c's tile_for picks it there); 2047^3 and 3001^3 0.81-1.21 on the
   * embedding, 0.93-1.32 on the 64 x 64 tile.  Not 1000-1025 (the
   * embedding ahead by up to 0.18 in two layouts of four) nor 4097-6000
   * (ahead by 0.03-0.13): each band stays within the sides measured. */
  if (lo >= 48 && lo <= 64 && hi >= 1024 && k >= 1024) return 1;
  return (lo >= 192 && hi <= 320 && k >= 192 && k <= 320) ||
         (lo >= 2000 && hi <= 3100 && k >= 2000 && k <= 3100);
}

static int native_wins(const problem *p, int64_t batch, dlg_dtype type)
{
  return dlg_cuda_cgemm_native_wins(type, p->o.rows, p->o.cols, p->f.cols,
                                    interleaved(p->g) && !p->cg && interleaved(p->o), batch);
}

/* Where complex64's FFMA tiles (csimt.c) beat every other way, measured
 * with them pinned (DLGEMM_CGEMM_WAY=simt, the tiny kernels off) against
 * auto over the sweep's 560 complex64 cells, twice (H200, session 38): C
 * 48 or more on each side with k of 16 or 32 and more, single products and
 * batches alike (attention heads 1.1-2.0x auto, odd squares 255-6000
 * 1.06-1.9x, 8192^2 0.985-1.006 of cuBLAS against the embedding's
 * 0.935, narrow 48-64 and 128-384 wide and k = 16, 32-384 1.0-1.3x,
 * batched 48^3 and 64^3 1.15-1.27x), and batches down to 32 a side (32^3
 * 1.4-2.1x the tiny kernels; 96^3 1.27x the DMMA kernels).  Not: a side
 * of 32 or less in a single product (the embedding's narrow kernels,
 * 0.2-0.7x), of 65-127 (96 wide 0.58-0.95x: its second tile row half
 * empty, where the embedding's 192-row real tiles fill theirs), k under
 * 16 or of 17-31 (k = 8 and 24 leave the last 16-deep tile part empty:
 * 0.90-0.95x at beta 0, worse at beta 1), batches of 24^3 and less (the
 * tiny kernels). */
int dlg_cuda_cgemm_simt_wins(dlg_dtype type, int64_t m, int64_t n, int64_t k, int64_t batch)
{
  const int64_t lo = m < n ? m : n;
  if (type != DLG_C64 || !(k == 16 || k >= 32)) return 0;
  if (batch > 1) return lo >= 32;
  return lo >= 48 && !(lo > 64 && lo < 128);
}

/* csmallk (level3.cu) on p: C = alpha op(F) op(G) + beta C in place. */
static void small_k(dlg_factor_run *r, const double alpha[2], const problem *p, double beta,
                    int64_t batch)
{
  const double b2[2] = {beta, 0};
  dlg_l3_scalar sa, sb;
  CUdeviceptr f = p->f.p, g = p->g.p, o = p->o.p;
  long long frs = p->f.rs, fcs = p->f.cs, grs = p->g.rs, gcs = p->g.cs, m = p->o.rows,
            n = p->o.cols, rs = p->o.rs, cs = p->o.cs, xf = p->sf, xg = p->sg, xo = p->so;
  int k = (int)p->f.cols, cf = p->cf, cg = p->cg;
  void *params[] = {&f, &frs, &fcs, &cf, &xf, &g, &grs, &gcs, &cg, &xg, &m, &n, &k,
                    dlg_l3_scalar_of(r, alpha, &sa), dlg_l3_scalar_of(r, b2, &sb), &o, &rs, &cs,
                    &xo};
  /* beta is the real type's: the first of the scalar's two parts */
  dlg_l3_launch(r, DLG_L3_CSMALLK, p->o.rows,
                (p->o.cols + DLG_L3_SMALL_K_COLS - 1) / DLG_L3_SMALL_K_COLS, batch, params);
}

/* The orientation whose C is column-major, for csmallk (its warps' lanes on
 * consecutive rows), NULL where neither is or k is past its reach. */
static const problem *small_k_way(const problem ways[2])
{
  const int w = ways[0].o.rs == 1 ? 0 : ways[1].o.rs == 1 ? 1 : -1;
  return w >= 0 && ways[w].f.cols >= 1 && ways[w].f.cols <= DLG_L3_SMALL_K ? &ways[w] : NULL;
}

/* Where csmallk beats the embedding by a margin, measured with each pinned
 * over the sweep's complex cells of k = 1-8 (4096 x 4096 C, every layout,
 * beta 0 and 1; H200, session 36): complex64 of k = 1 (0.70-0.75 of cuBLAS
 * against the embedding's 0.58-0.63) and, with beta != 0, of k up to 4
 * (k = 1-2: 1.01-1.09 against 0.57-0.71; 3: 0.91-0.93 against 0.67-0.69;
 * 4: 0.71-0.76 against 0.65-0.70), where the embedding's real tile reads
 * and writes C through its epilogue at a fraction of HBM's rate.  Not
 * complex64 of k = 2-3 with beta 0 (0.97-1.02 against 1.06-1.11), k = 8
 * (0.45-0.54 against 0.66-1.09), nor complex128, whose FP64 tile keeps up
 * (k = 1: 0.65-0.87 against 0.68-0.84, at best 4% ahead; k = 2-8: 0.75-1.37
 * against 1.40-2.09). */
static int small_k_wins(const problem *p, double beta, dlg_dtype type)
{
  const int64_t k = p->f.cols;
  return type == DLG_C64 && (k == 1 || (beta != 0 && k <= 4)) &&
         (double)p->o.rows * (double)p->o.cols >= 65536.0;
}

/* The way a batch goes: its kind and, for the embedding, the orientation
 * and whether it splits.  One choice for the run and for the workspace
 * its callers set aside (dlg_cuda_cgemm_entry_bytes). */
typedef enum { WAY_SIMT, WAY_NATIVE, WAY_SMALL_K, WAY_EXPAND, WAY_SPLIT } way_kind;
typedef struct way {
  way_kind kind;
  const problem *p;
} way;

static way choose(dlg_factor_run *r, const problem ways[2], dlg_dview a, dlg_dview b,
                  dlg_dview c, double beta, int64_t batch)
{
  const problem *p = &ways[0], *few_k = small_k_way(ways);
  const int pinned = dlg_config_get()->cgemm_way;
  const int pin = pinned >= 1 && pinned <= 4 ? pinned - 1 : -1; /* one of the embeddings */
  int w, splits = 0;
  double best = 0.8 * expand_cost(p, beta), cost;
  /* complex64 on the FFMA tiles, no packing (csimt.h), where they win or
   * are pinned (DLGEMM_CGEMM_WAY=simt) */
  if (((pinned == 0 &&
        dlg_cuda_cgemm_simt_wins(r->dtype, p->o.rows, p->o.cols, p->f.cols, batch)) ||
       pinned == 8) &&
      dlg_cuda_csimt_takes(r, a, b, c))
    return (way){WAY_SIMT, p};
  /* the complex DMMA kernels, no packing (zdmma.h), where they win or
   * are pinned (DLGEMM_CGEMM_WAY=native; embed or one of the four pins
   * the embedding) */
  if (((pinned == 0 && native_wins(p, batch, r->dtype)) || pinned == 5) &&
      dlg_cuda_zdmma_takes(r, a, b, c))
    return (way){WAY_NATIVE, p};
  /* no product at all where k is a few (DLGEMM_CGEMM_WAY=smallk: every
   * product csmallk can take) */
  if (few_k && (pinned == 7 || (pinned == 0 && small_k_wins(few_k, beta, r->dtype))))
    return (way){WAY_SMALL_K, few_k};
  for (w = 0; w < 4; w++) {
    if (w == 0) continue; /* the direct expansion: best's start */
    cost = w & 1 ? split_cost(&ways[w / 2], beta) : expand_cost(&ways[w / 2], beta);
    if (cost < best) best = cost, p = &ways[w / 2], splits = w & 1;
  }
  /* DLGEMM_CGEMM_WAY (0 expand, 1 split, 2 and 3 on the transpose), where
   * that way can take the call (split needs its F interleaved) */
  if (pin >= 0 && isfinite(pin & 1 ? split_cost(&ways[pin / 2], beta) : 0))
    p = &ways[pin / 2], splits = pin & 1;
  return (way){splits ? WAY_SPLIT : WAY_EXPAND, p};
}

/* The problem and its transpose (C^T = op(B)^T op(A)^T). */
static void orientations(problem ways[2], dlg_dview a, int64_t sa, int ca, dlg_dview b,
                         int64_t sb, int cb, dlg_dview c, int64_t sc)
{
  ways[0] = (problem){a, b, c, ca, cb, sa, sb, sc};
  ways[1] = (problem){dlg_step_transposed(b), dlg_step_transposed(a), dlg_step_transposed(c),
                      cb, ca, sb, sa, sc};
}

void dlg_cuda_blas3_complex_batch(dlg_factor_run *r, const double alpha[2], dlg_dview a,
                                  int64_t sa, int ca, dlg_dview b, int64_t sb, int cb,
                                  double beta, dlg_dview c, int64_t sc, int64_t batch)
{
  problem ways[2];
  way w;
  if (r->status || !c.rows || !c.cols || !batch) return;
  orientations(ways, a, sa, ca, b, sb, cb, c, sc);
  w = choose(r, ways, a, b, c, beta, batch);
  switch (w.kind) {
  case WAY_SIMT: dlg_cuda_csimt(r, alpha, a, sa, ca, b, sb, cb, beta, c, sc, batch); break;
  case WAY_NATIVE: dlg_cuda_zdmma(r, alpha, a, sa, ca, b, sb, cb, beta, c, sc, batch); break;
  case WAY_SMALL_K: small_k(r, alpha, w.p, beta, batch); break;
  case WAY_SPLIT: split(r, alpha, w.p, beta, batch); break;
  case WAY_EXPAND: expand(r, alpha, w.p, beta, batch); break;
  }
}

size_t dlg_cuda_cgemm_entry_bytes(dlg_factor_run *r, dlg_dview a, int64_t sa, int ca,
                                  dlg_dview b, int64_t sb, int cb, double beta, dlg_dview c,
                                  int64_t sc, int64_t batch)
{
  const int64_t m = c.rows, n = c.cols, k = a.cols;
  problem ways[2];
  orientations(ways, a, sa, ca, b, sb, cb, c, sc);
  switch (choose(r, ways, a, b, c, beta, batch).kind) {
  case WAY_SIMT: /* its split-K's partials only where the batch leaves SMs idle */
  case WAY_NATIVE: /* no split-K in a batch */
  case WAY_SMALL_K: return 0;
  default: break;
  }
  /* the larger of expand's (4mk + 2kn + 2mn) and split's (2kn + 4mn) reals */
  return (size_t)(4 * m * k + 2 * k * n + 4 * m * n) * dlg_elem_size(dlg_real_of(r->dtype));
}
