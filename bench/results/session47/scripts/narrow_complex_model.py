# narrow_complex_model.py - a host model (plain Python) of narrow.c's complex real view
# (orient), narrow.cu's stage<CX_COLS / CX_ROWS> and its stores, checked against the
# complex product in every layout of A, B and C (session 47, which had no GPU: the index
# algebra checked before the kernels ran).  usage: python3 narrow_complex_model.py
import itertools, random
random.seed(1)
def run(m, n, k, a_col, b_col, c_col, alpha, beta, pad=3):
    # complex matrices in raw buffers (complex128), column- or row-major with ld
    def mk(r, c, col):
        ld = (r if col else c) + pad
        buf = [complex(random.gauss(0,1), random.gauss(0,1)) for _ in range(ld * (c if col else r) + 8)]
        rs, cs = (1, ld) if col else (ld, 1)
        return buf, rs, cs
    A, ars, acs = mk(m, k, a_col); B, brs, bcs = mk(k, n, b_col); C, crs0, ccs0 = mk(m, n, c_col)
    get = lambda buf, rs, cs, r, c: [[buf[i * rs + j * cs] for j in range(c)] for i in range(r)]
    mm = lambda X, Y: [[sum(X[i][l] * Y[l][j] for l in range(len(Y))) for j in range(len(Y[0]))] for i in range(len(X))]
    AB = mm(get(A, ars, acs, m, k), get(B, brs, bcs, k, n)); C0 = get(C, crs0, ccs0, m, n)
    ref = [[alpha * AB[i][j] + beta * C0[i][j] for j in range(n)] for i in range(m)]
    # orient (complex units), as narrow.c
    tr = m < n
    if tr: w, wrs, wcs, x, xrs, xcs = B, brs, bcs, A, ars, acs
    else:  w, wrs, wcs, x, xrs, xcs = A, ars, acs, B, brs, bcs
    wr = wcs if tr else wrs; wk = wrs if tr else wcs
    ldw = wr if wk == 1 else wk
    xks = xcs if tr else xrs; xjs = xrs if tr else xcs
    crs = ccs0 if tr else crs0; ccs = crs0 if tr else ccs0
    rows = n if tr else m; nn = m if tr else n; kk = k
    # real view
    ldw *= 2; xks *= 2; xjs *= 2; crs *= 2; ccs *= 2; nn *= 2
    dot = wk == 1
    if dot: kk *= 2
    else: rows *= 2
    il = lambda v: [t for z in v for t in (z.real, z.imag)]
    wre, xre, cre = il(w), il(x), il(C)
    W = [[wre[i * ldw + l] if dot else wre[i + l * ldw] for l in range(kk)] for i in range(rows)]
    # staging (stage<CX>): X' kk x nn
    KR = 2 if dot else 1
    Xs = [[0.0] * nn for _ in range(kk)]
    for l in range(kk // KR):
        for j in range(nn // 2):
            p = l * xks + j * xjs; xr, xi = xre[p], xre[p + 1]
            Xs[KR * l][2 * j] = xr; Xs[KR * l][2 * j + 1] = xi
            if dot: Xs[KR * l + 1][2 * j] = -xi; Xs[KR * l + 1][2 * j + 1] = xr
    P = mm(W, Xs)
    st = lambda e, v: cre.__setitem__(e, alpha * v + (beta * cre[e] if beta else 0))
    if dot:
        for i in range(rows):
            for j in range(nn): st(i * crs + (j >> 1) * ccs + (j & 1), P[i][j])
    else:
        for i in range(0, rows, 2):
            for j in range(0, nn, 2):
                e = (i >> 1) * crs + (j >> 1) * ccs
                st(e, P[i][j] - P[i + 1][j + 1]); st(e + 1, P[i][j + 1] + P[i + 1][j])
    cc = [complex(cre[2 * e], cre[2 * e + 1]) for e in range(len(C))]
    out = get(cc, crs0, ccs0, m, n)
    return max(abs(out[i][j] - ref[i][j]) for i in range(m) for j in range(n)), dot
worst = 0; seen = set()
for (m, n), a_col, b_col, c_col, (al, be) in itertools.product([(3, 40), (40, 5), (1, 33), (17, 1)], [0, 1], [0, 1], [0, 1], [(1, 0), (-0.75, 1)]):
    e, dot = run(m, n, 37, a_col, b_col, c_col, al, be)
    worst = max(worst, e); seen.add(dot)
    if e > 1e-9: print("BAD", m, n, a_col, b_col, c_col, al, be, "dot" if dot else "axpy", e)
print("worst", worst, "modes", seen)
