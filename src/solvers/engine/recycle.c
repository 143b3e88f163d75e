/* A space recycled across a sequence of solves (deflation; Saad, Yeung,
 * Erhel and Guyomarc'h, SISC 2000), built eigCG-style from the CG
 * coefficients of earlier solves (Stathopoulos and Orginos, SISC 2010).
 *
 * The space W (k vectors) lives in the solver's context and is kept with
 * A W, C A W and A C A W, so that a deflated recurrence needs no product
 * with W during its iterations, only the k sums W^T (A u) that ride its
 * one reduction (rpipecg.c).  A solve's start projects the residual
 * (x += W E^-1 W^T r, E = W^T A W: one reduction); the end of a solve
 * that collects (below) makes the space again: the window's Ritz vectors U (the eigCG window below, from
 * the coefficients alone) join W, and the Rayleigh-Ritz of C A, self-adjoint
 * in the A inner product, on Z = [W, U],
 *
 *     (AZ)^T C (AZ) y = theta Z^T A Z y,
 *
 * keeps the k smallest theta's vectors, A-orthonormal (one reduction of
 * both Gram matrices, nev products and preconditioner applications for
 * A U and C A U, k products for A C A W).  New values of A are seen at the
 * next start (the norms' epoch): A W, C A W, A C A W made again (2 k
 * products, k applications); a space whose E = W^T A W is then not finite
 * or badly conditioned is dropped, and the note says so.
 *
 * Incremental eigCG (Stathopoulos and Orginos, sec. 5): a solve runs the
 * window (collects) only while the space is not full, and again after a
 * solve that took 10% more iterations than the fewest since the space was
 * last made (the values moved away from it); other solves use the space as
 * it is, without the window's vectors and restarts, and do not update it.
 * Within a solve the window stops once its Ritz values settle (SETTLED). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../solver.h"

enum { ROWS_PER_CHUNK = 256 };

/* ---- small dense helpers ---------------------------------------------- */

enum { EIG_MAX = 4 * OVK__RECYCLE_MAX }; /* the largest dense problem: a window of 4 nev */

/* a = G^T a G and vec = vec G, G the rotation [c s; -s c] of rows and
 * columns p, p + 1 of a tridiagonal a with the chase's bulge (a's rows and
 * columns p - 1 .. p + 2 within lo..hi only: the rest are zero there) */
static void rotate(int n, double *a, double *vec, int p, int lo, int hi, double cs, double sn)
{
    int q = p + 1;
    lo = p - 1 > lo ? p - 1 : lo;
    hi = q + 1 < hi ? q + 1 : hi;
    for (int i = lo; i <= hi; i++) { /* columns p, q */
        double ap = a[i + p * n], aq = a[i + q * n];
        a[i + p * n] = cs * ap - sn * aq;
        a[i + q * n] = sn * ap + cs * aq;
    }
    for (int i = lo; i <= hi; i++) { /* rows p, q */
        double pa = a[p + i * n], qa = a[q + i * n];
        a[p + i * n] = cs * pa - sn * qa;
        a[q + i * n] = sn * pa + cs * qa;
    }
    for (int i = 0; i < n; i++) {
        double vp = vec[i + p * n], vq = vec[i + q * n];
        vec[i + p * n] = cs * vp - sn * vq;
        vec[i + q * n] = sn * vp + cs * vq;
    }
}

/* a = Q T Q^T, T tridiagonal in a, Q in vec, by Householder reflections
 * H = I - 2 v v^T / v^T v on the trailing block: B = H B H = B - v w^T -
 * w v^T with p = 2 B v / v^T v, w = p - (v^T p / v^T v) v; Q = Q H */
static void tridiagonalise(int n, double *a, double *vec)
{
    double v[EIG_MAX], p[EIG_MAX];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) vec[i + j * n] = i == j ? 1.0 : 0.0;
    for (int k = 0; k + 2 < n; k++) {
        int m = n - k - 1, o = k + 1;
        double xx = 0.0;
        for (int i = 0; i < m; i++) xx += a[o + i + k * n] * a[o + i + k * n];
        double x0 = a[o + k * n], alpha = -copysign(sqrt(xx), x0);
        for (int i = 0; i < m; i++) v[i] = a[o + i + k * n];
        v[0] -= alpha;
        double vv = 0.0;
        for (int i = 0; i < m; i++) vv += v[i] * v[i];
        if (!(vv > 0.0)) continue; /* the column is already reduced */
        double vp = 0.0;
        for (int i = 0; i < m; i++) { /* p = 2 B v / v^T v */
            double t = 0.0;
            for (int j = 0; j < m; j++) t += a[o + i + (o + j) * n] * v[j];
            p[i] = 2.0 * t / vv;
            vp += v[i] * p[i];
        }
        double kk = vp / vv;
        for (int i = 0; i < m; i++) p[i] -= kk * v[i]; /* w */
        for (int j = 0; j < m; j++)
            for (int i = 0; i < m; i++) a[o + i + (o + j) * n] -= v[i] * p[j] + p[i] * v[j];
        for (int i = 0; i < m; i++) a[o + i + k * n] = a[k + (o + i) * n] = i == 0 ? alpha : 0.0;
        for (int i = 0; i < n; i++) { /* Q = Q H */
            double t = 0.0;
            for (int j = 0; j < m; j++) t += vec[i + (o + j) * n] * v[j];
            t *= 2.0 / vv;
            for (int j = 0; j < m; j++) vec[i + (o + j) * n] -= t * v[j];
        }
    }
}

/* Symmetric eigen-decomposition of the n x n a (column-major, both
 * triangles, overwritten; n <= EIG_MAX): Householder tridiagonalisation,
 * then implicit QR steps with Wilkinson's shift (Golub and Van Loan 8.3),
 * each a chase of the bulge by rotations.  val ascending, vec's columns the
 * vectors.  0, or -1 when an entry is not finite or the steps do not
 * converge.  No LAPACK: it runs inside a solve (util/lanczos.c says why). */
static int sym_eig(int n, double *a, double *vec, double *val)
{
    if (n > EIG_MAX) return -1;
    for (int i = 0; i < n * n; i++)
        if (!isfinite(a[i])) return -1;
    tridiagonalise(n, a, vec);
    int hi = n - 1, steps = 0;
    while (hi > 0) {
        double *sub = &a[hi + (hi - 1) * n];
        if (fabs(*sub) <= 1e-16 * (fabs(a[hi - 1 + (hi - 1) * n]) + fabs(a[hi + hi * n]))) {
            *sub = a[hi - 1 + hi * n] = 0.0; /* a[hi][hi] converged */
            hi--;
            continue;
        }
        if (++steps > 40 * n) return -1;
        int lo = hi - 1; /* the unreduced block lo..hi */
        while (lo > 0 && fabs(a[lo + (lo - 1) * n]) > 1e-16 * (fabs(a[lo - 1 + (lo - 1) * n]) + fabs(a[lo + lo * n])))
            lo--;
        if (lo > 0) a[lo + (lo - 1) * n] = a[lo - 1 + lo * n] = 0.0;
        double dd = 0.5 * (a[hi - 1 + (hi - 1) * n] - a[hi + hi * n]), b = *sub;
        double mu = a[hi + hi * n] - b * b / (dd + copysign(hypot(dd, b), dd));
        double x = a[lo + lo * n] - mu, z = a[lo + 1 + lo * n];
        for (int k = lo; k < hi; k++) { /* G^T (x, z) = (r, 0) */
            double r = hypot(x, z);
            double cs = r > 0.0 ? x / r : 1.0, sn = r > 0.0 ? -z / r : 0.0;
            rotate(n, a, vec, k, lo, hi, cs, sn);
            if (k > lo) a[k + 1 + (k - 1) * n] = a[k - 1 + (k + 1) * n] = 0.0; /* the bulge chased on */
            if (k + 1 < hi) {
                x = a[k + 1 + k * n];
                z = a[k + 2 + k * n];
            }
        }
    }
    for (int i = 0; i < n; i++) val[i] = a[i + i * n];
    for (int i = 1; i < n; i++) { /* insertion sort, ascending, with the columns */
        for (int j = i; j > 0 && val[j] < val[j - 1]; j--) {
            double t = val[j];
            val[j] = val[j - 1];
            val[j - 1] = t;
            for (int k = 0; k < n; k++) {
                double v = vec[k + j * n];
                vec[k + j * n] = vec[k + (j - 1) * n];
                vec[k + (j - 1) * n] = v;
            }
        }
    }
    return 0;
}

/* Local, in place on the rows: X[j] = sum_l X[l] C(l, j), j < out, l < in
 * (C column-major, in x out, out <= in), chunk by chunk: the outputs'
 * chunks accumulate in L1, four inputs at a time (one load and store of an
 * output per four inputs). */
OVK__CLONES static void combine_in_place(int n, double **X, int in, int out, const double *C, const ovk__hook *hook)
{
    static OVK__RANK_LOCAL double acc[3 * OVK__RECYCLE_MAX][ROWS_PER_CHUNK];
    for (int i0 = 0; i0 < n; i0 += ROWS_PER_CHUNK) {
        int len = n - i0 < ROWS_PER_CHUNK ? n - i0 : ROWS_PER_CHUNK;
        for (int j = 0; j < out; j++) memset(acc[j], 0, sizeof(double) * (size_t)len);
        for (int l = 0; l < in; l += 4) {
            int nl = in - l < 4 ? in - l : 4;
            const double *restrict x0 = X[l] + i0, *restrict x1 = X[l + (nl > 1)] + i0;
            const double *restrict x2 = X[l + (nl > 2 ? 2 : 0)] + i0, *restrict x3 = X[l + (nl > 3 ? 3 : 0)] + i0;
            for (int j = 0; j < out; j++) {
                const double *cj = C + l + j * in;
                double c0 = cj[0], c1 = nl > 1 ? cj[1] : 0.0, c2 = nl > 2 ? cj[2] : 0.0, c3 = nl > 3 ? cj[3] : 0.0;
                double *restrict a = acc[j];
#pragma omp simd
                for (int i = 0; i < len; i++) a[i] += c0 * x0[i] + c1 * x1[i] + c2 * x2[i] + c3 * x3[i];
            }
        }
        for (int j = 0; j < out; j++) memcpy(X[j] + i0, acc[j], sizeof(double) * (size_t)len);
        ovk__poke(hook); /* a reduction in flight moves */
    }
}

/* ---- the space ------------------------------------------------------------ */

void ovk__recycle_free(ovk__recycle *r)
{
    free(r->block);
    free(r->W);
    free(r->L);
    free(r->px);
    r->block = NULL;
    r->W = r->AW = r->MAW = r->AMAW = NULL;
    r->L = r->dense = NULL;
    r->px = r->py = NULL;
    r->k = r->n = r->cap = 0;
    r->fewest = r->slower = 0;
}

void ovk__recycle_drop(ovk__recycle *r, const char *why)
{
    r->k = 0;
    r->fewest = r->slower = 0;
    snprintf(r->note, sizeof r->note, "%s", why);
}

int ovk__recycle_reserve(ovk__ctx *c, int products)
{
    ovk__recycle *r = &c->recycle;
    if (r->want == r->cap && c->n == r->n && products == r->products && (r->want == 0 || r->block)) return OVK_OK;
    int had = r->cap > 0;
    ovk__recycle_free(r);
    if (r->want == 0) return OVK_OK;
    /* products: W, A W, C A W 3 cap each and A C A W cap; else W and A W 2 cap each */
    int cap = r->want, nz = products ? 3 * cap : 2 * cap, nvec = products ? 10 * cap : 4 * cap;
    size_t stride = ovk__vec_stride(c->n);
    r->block = calloc(stride * (size_t)nvec, sizeof(double));
    r->W = malloc(sizeof(double *) * (size_t)nvec);
    /* L (cap^2), the update's dense room (G2, G1, Q, vals, B, H, Y, C:
       8 nz^2 at most), the pairs' pointers */
    r->L = malloc(sizeof(double) * ((size_t)cap * cap + 8 * (size_t)nz * nz + 4 * (size_t)nz));
    size_t pairs = (size_t)nz * (size_t)(nz + 1);
    r->px = malloc(sizeof(double *) * 2 * pairs);
    if (!r->block || !r->W || !r->L || !r->px) {
        ovk__recycle_free(r);
        return ovk__fail(OVK_ENOMEM, "recycle=%d: %d vectors of %d rows", cap, nvec, c->n);
    }
    for (int j = 0; j < nvec; j++) r->W[j] = r->block + stride * (size_t)j;
    r->AW = r->W + nz;
    r->MAW = products ? r->AW + nz : NULL;
    r->AMAW = products ? r->MAW + nz : NULL;
    r->dense = r->L + (size_t)cap * cap;
    r->py = r->px + pairs;
    r->cap = cap;
    r->n = c->n;
    r->products = products;
    r->k = 0;
    snprintf(r->note, sizeof r->note, "%s", had ? "empty (recycle or the rows changed)" : "empty (no solve yet)");
    return OVK_OK;
}

void ovk__recycle_view(const ovk__recycle *r, FILE *f)
{
    if (r->want == 0) return;
    fprintf(f, "  recycle: %d of %d vectors after %d update(s); last: %s%s\n", r->k, r->want, r->updates, r->note,
            !r->products ? "" : r->k < r->want || r->slower ? "; the next solve collects (eigCG window)"
                                                             : "; the next solve keeps it (eigCG window off)");
}

int ovk__recycle_active(const ovk__ctx *c)
{
    return c->recycle.want > 0 && c->recycle.block && !c->scale.active && !c->many.task;
}

/* A W, C A W, A C A W of the current values (2 k products, k applications) */
static int refresh_products(ovk__ctx *c, ovk__recycle *r)
{
    for (int j = 0; j < r->k; j++) {
        int rc = ovk__ctx_matvec(c, r->W[j], r->AW[j]); /* A w */
        if (rc) return rc;
        rc = ovk__ctx_pc(c, r->AW[j], r->MAW[j]); /* C A w */
        if (rc) return rc;
        rc = ovk__ctx_matvec(c, r->MAW[j], r->AMAW[j]); /* A C A w */
        if (rc) return rc;
    }
    r->epoch = c->norms.epoch;
    return OVK_OK;
}

/* L L^T = E (k x k, column-major, full); 0, or -1 when E is not well
 * conditioned: a pivot below 1e-12 of the largest diagonal entry, or
 * cond(E) above 1e12 (E's eigenvalues in *lo, *hi) */
static int factor(int k, const double *E, double *L, double *scratch, double *lo, double *hi)
{
    double *a = scratch, *vec = scratch + k * k, *val = vec + k * k;
    memcpy(a, E, sizeof(double) * (size_t)(k * k));
    if (sym_eig(k, a, vec, val)) return -1;
    *lo = val[0];
    *hi = val[k - 1];
    if (!(val[0] > 1e-12 * val[k - 1])) return -1;
    memset(L, 0, sizeof(double) * (size_t)(k * k));
    for (int j = 0; j < k; j++)
        for (int i = j; i < k; i++) L[i + j * k] = E[i + j * k];
    return ovk__cholesky(k, L, 1, k, 0.0); /* L L^T = E */
}

void ovk__recycle_solve(const ovk__recycle *r, int k, const double *g, double *mu)
{
    const double *L = r->L;
    for (int i = 0; i < k; i++) { /* L y = g */
        double v = g[i];
        for (int l = 0; l < i; l++) v -= L[i + l * k] * mu[l];
        mu[i] = v / L[i + i * k];
    }
    for (int i = k - 1; i >= 0; i--) { /* L^T mu = y */
        double v = mu[i];
        for (int l = i + 1; l < k; l++) v -= L[l + i * k] * mu[l];
        mu[i] = v / L[i + i * k];
    }
}

int ovk__recycle_project(ovk__ctx *c, double *rvec, int *kout)
{
    ovk__recycle *r = &c->recycle;
    int k = ovk__recycle_active(c) ? r->k : 0, rc = OVK_OK;
    *kout = 0;
    if (k == 0) return OVK_OK;
    int stale = r->epoch != c->norms.epoch;
    if (stale) {
        rc = refresh_products(c, r);
        if (rc) return rc;
    }
    /* one reduction: W^T r, then E = W^T A W (upper triangle) */
    double vals[OVK__RECYCLE_MAX + OVK__RECYCLE_MAX * (OVK__RECYCLE_MAX + 1) / 2];
    int m = 0;
    for (int j = 0; j < k; j++) {
        r->px[m] = r->W[j];
        r->py[m++] = rvec;
    }
    for (int j = 0; j < k; j++)
        for (int i = 0; i <= j; i++) {
            r->px[m] = r->W[i];
            r->py[m++] = r->AW[j];
        }
    rc = ovk__ctx_dots(c, m, r->px, r->py, vals);
    if (rc) return rc;
    double *E = r->dense, *scratch = E + k * k, lo = 0.0, hi = 0.0, drift = 0.0;
    for (int j = 0, at = k; j < k; j++)
        for (int i = 0; i <= j; i++, at++) {
            E[i + j * k] = E[j + i * k] = vals[at];
            drift = fmax(drift, fabs(vals[at] - (i == j ? 1.0 : 0.0)));
        }
    int finite = 1, r_finite = 1;
    for (int i = 0; i < k; i++) r_finite = r_finite && isfinite(vals[i]);
    for (int i = k; i < m; i++) finite = finite && isfinite(vals[i]);
    r->changed = stale;
    if (finite && !r_finite) return OVK_OK; /* the residual is lost, not the space: the solve stops on it */
    if (!finite || factor(k, E, r->L, scratch, &lo, &hi)) {
        char why[200];
        if (!finite) snprintf(why, sizeof why, "dropped: W^T A W not finite");
        else snprintf(why, sizeof why, "dropped: W^T A W %s (eigenvalues %.3g .. %.3g)%s",
                      lo > 0.0 ? "badly conditioned" : "not positive definite", lo, hi,
                      stale ? " after new values" : "");
        ovk__recycle_drop(r, why);
        return OVK_OK;
    }
    if (stale)
        snprintf(r->note, sizeof r->note, "A W made again for new values; max |W^T A W - I| = %.3g", drift);
    double mu[OVK__RECYCLE_MAX];
    ovk__recycle_solve(r, k, vals, mu); /* mu = E^-1 W^T r */
    ovk__tic t0 = ovk__tic_start(c);
    for (int j = 0; j < k; j++) {
        double *x = c->x;
        const double *w = r->W[j], *aw = r->AW[j];
        for (int i = 0; i < c->n; i++) {
            x[i] += mu[j] * w[i];   /* x += W mu */
            rvec[i] -= mu[j] * aw[i]; /* r -= A W mu */
        }
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    *kout = k;
    return OVK_OK;
}

/* ---- the eigCG window ------------------------------------------------------ */

int ovk__eigwin_alloc(ovk__eigwin *w, int n, int nev)
{
    memset(w, 0, sizeof *w);
    if (nev <= 0) return OVK_OK;
    int mw = nev >= 4 ? 4 * nev : 2 * nev + 8; /* restarts every mw - 2 nev steps */
    size_t stride = ovk__vec_stride(n);
    w->block = calloc(stride * (size_t)mw, sizeof(double));
    w->V = malloc(sizeof(double *) * (size_t)mw);
    /* T, last, and the restart's scratch: 2 mw^2 (two eigen-problems), Q
       (mw x 2 nev), H, Zh (2 nev)^2 each, QZ, values */
    w->T = malloc(sizeof(double) * (size_t)(8 * mw * mw + 4 * mw + nev));
    if (!w->block || !w->V || !w->T) {
        ovk__eigwin_free(w);
        return ovk__fail(OVK_ENOMEM, "the eigCG window: %d vectors of %d rows", mw, n);
    }
    for (int j = 0; j < mw; j++) w->V[j] = w->block + stride * (size_t)j;
    w->last = w->T + mw * mw;
    w->work = w->last + mw;
    w->theta = w->T + 8 * mw * mw + 4 * mw;
    w->nev = nev;
    w->mw = mw;
    return OVK_OK;
}

void ovk__eigwin_free(ovk__eigwin *w)
{
    ovk__free_each(3, (void *[]){w->block, w->V, w->T});
    memset(w, 0, sizeof *w);
}

/* the relative change of the nev smallest Ritz values between two thick
 * restarts below which the window stops collecting for the rest of the
 * solve: values settled to 1e-6 leave vectors good to about 1e-3, enough to
 * deflate, and a pipelined solve's residual replacements no longer reach
 * the window (on the inclusion sequence its space is then rcg's) */
static const double SETTLED = 1e-6;
/* The thick restart of a full window (m = mw vectors): the nev smallest
 * Ritz vectors of T_m and of T_{m-1} (padded), orthonormalised (Q), the
 * Rayleigh-Ritz of T on them (H = Q^T T Q = Zh diag(theta) Zh^T), V = V Q Zh,
 * T = diag(theta), and the last vector's coordinates in the new basis. */
static void thick_restart(ovk__ctx *c, ovk__eigwin *w)
{
    int m = w->mw, nev = w->nev;
    double *a = w->work, *y1 = a + m * m, *val = y1 + m * m, *Q = val + m;
    double *H = Q + m * 2 * nev, *Zh = H + 4 * nev * nev, *QZ = Zh + 4 * nev * nev;
    memcpy(a, w->T, sizeof(double) * (size_t)(m * m));
    sym_eig(m, a, y1, val);
    for (int j = 0; j < nev; j++) memcpy(Q + j * m, y1 + j * m, sizeof(double) * (size_t)m);
    for (int j = 0; j < m - 1; j++) /* T_{m-1} */
        for (int i = 0; i < m - 1; i++) a[i + j * (m - 1)] = w->T[i + j * m];
    sym_eig(m - 1, a, y1, val);
    int q = nev;
    for (int j = 0; j < nev; j++) {
        double *col = Q + q * m;
        memcpy(col, y1 + j * (m - 1), sizeof(double) * (size_t)(m - 1));
        col[m - 1] = 0.0;
        for (int pass = 0; pass < 2; pass++) /* Gram-Schmidt twice */
            for (int l = 0; l < q; l++) {
                double d = 0.0;
                for (int i = 0; i < m; i++) d += Q[i + l * m] * col[i];
                for (int i = 0; i < m; i++) col[i] -= d * Q[i + l * m];
            }
        double nn = 0.0;
        for (int i = 0; i < m; i++) nn += col[i] * col[i];
        if (nn < 1e-20) continue; /* dependent: dropped */
        for (int i = 0; i < m; i++) col[i] /= sqrt(nn);
        q++;
    }
    for (int l = 0; l < q; l++) { /* H = Q^T (T Q), T Q's column l in QZ's room */
        double *tq = QZ;
        for (int i = 0; i < m; i++) tq[i] = 0.0;
        for (int s = 0; s < m; s++) {
            double qs = Q[s + l * m];
            for (int i = 0; i < m; i++) tq[i] += w->T[i + s * m] * qs;
        }
        for (int j = 0; j < q; j++) {
            double h = 0.0;
            for (int i = 0; i < m; i++) h += Q[i + j * m] * tq[i];
            H[j + l * q] = h;
        }
    }
    sym_eig(q, H, Zh, val);
    for (int j = 0; j < q; j++) /* QZ = Q Zh */
        for (int i = 0; i < m; i++) {
            double v = 0.0;
            for (int l = 0; l < q; l++) v += Q[i + l * m] * Zh[l + j * q];
            QZ[i + j * m] = v;
        }
    ovk__tic t0 = ovk__tic_start(c);
    combine_in_place(c->n, w->V, m, q, QZ, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    memset(w->T, 0, sizeof(double) * (size_t)(m * m));
    for (int j = 0; j < q; j++) {
        w->T[j + j * m] = val[j];
        w->last[j] = QZ[(m - 1) + j * m];
    }
    w->cnt = q;
    /* the nev smallest Ritz values settled since the last restart: the
       window stops collecting for the rest of the solve (its vectors kept) */
    int settled = w->restarts > 0 && q >= nev;
    for (int j = 0; j < nev && j < q; j++) {
        if (!(fabs(val[j] - w->theta[j]) <= SETTLED * fabs(val[j]))) settled = 0;
        w->theta[j] = val[j];
    }
    w->restarts++;
    if (settled) w->open = 0;
}

double *ovk__eigwin_next(ovk__eigwin *w, double gamma, double diag, double off, double *scale)
{
    if (!w->open || w->mw == 0 || !(gamma > 0.0) || w->cnt == w->mw) return NULL;
    int j = w->cnt, m = w->mw;
    *scale = 1.0 / sqrt(gamma);
    if (j == 0) w->restarts = 0; /* a new window */
    w->T[j + j * m] = diag;
    for (int i = 0; i < j; i++) w->T[i + j * m] = w->T[j + i * m] = w->last[i] * off;
    for (int i = 0; i < j; i++) w->last[i] = 0.0;
    w->last[j] = 1.0;
    w->cnt = j + 1;
    return w->V[j];
}

void ovk__eigwin_compress(ovk__ctx *c, ovk__eigwin *w)
{
    if (w->open && w->mw > 0 && w->cnt == w->mw) thick_restart(c, w);
}

/* ---- the update after a solve ------------------------------------------- */

/* U = V Y(:, 0..ku) into r->W[k..k + ku): the window's ku smallest Ritz vectors */
static int ritz_vectors(ovk__ctx *c, ovk__eigwin *w, ovk__recycle *r, int k)
{
    int m = w->mw, cnt = w->cnt, ku = cnt < w->nev ? cnt : w->nev;
    double *a = w->work, *y = a + m * m, *val = y + m * m;
    for (int j = 0; j < cnt; j++)
        for (int i = 0; i < cnt; i++) a[i + j * cnt] = w->T[i + j * m];
    if (sym_eig(cnt, a, y, val)) return 0;
    ovk__tic t0 = ovk__tic_start(c);
    for (int j = 0; j < ku; j++) {
        double *u = r->W[k + j];
        memset(u, 0, sizeof(double) * (size_t)c->n);
        for (int l = 0; l < cnt; l++) {
            double yl = y[l + j * cnt];
            const double *v = w->V[l];
            for (int i = 0; i < c->n; i++) u[i] += yl * v[i];
        }
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    return ku;
}

/* From G2 = Z^T A Z and G1 = (AZ)^T C (AZ) (nz x nz): C (nz x *knew) whose
 * columns are the pencil's vectors of the knew smallest theta,
 * A-orthonormal; *lo, *hi the kept theta's range.  -1 when none is left. */
static int pencil(int nz, int want, double *G2, double *G1, double *dense, double *C, int *knew, double *lo,
                  double *hi)
{
    double *Q = dense, *lam = Q + nz * nz, *B = lam + nz, *H = B + nz * nz, *Y = H + nz * nz, *th = Y + nz * nz;
    if (sym_eig(nz, G2, Q, lam)) return -1;
    int nk = 0;
    for (int j = 0; j < nz; j++) { /* B = Q_kept Lambda^-1/2: Z B is A-orthonormal */
        if (!(lam[j] > 1e-12 * lam[nz - 1])) continue;
        for (int i = 0; i < nz; i++) B[i + nk * nz] = Q[i + j * nz] / sqrt(lam[j]);
        nk++;
    }
    if (nk == 0) return -1;
    for (int j = 0; j < nk; j++) /* H = B^T G1 B */
        for (int l = 0; l < nk; l++) {
            double h = 0.0;
            for (int i = 0; i < nz; i++) {
                double t = 0.0;
                for (int s = 0; s < nz; s++) t += G1[i + s * nz] * B[s + l * nz];
                h += B[i + j * nz] * t;
            }
            H[j + l * nk] = h;
        }
    if (sym_eig(nk, H, Y, th)) return -1;
    *knew = nk < want ? nk : want;
    for (int j = 0; j < *knew; j++)
        for (int i = 0; i < nz; i++) {
            double v = 0.0;
            for (int l = 0; l < nk; l++) v += B[i + l * nz] * Y[l + j * nk];
            C[i + j * nz] = v;
        }
    *lo = th[0];
    *hi = th[*knew - 1];
    return 0;
}

int ovk__recycle_collect(const ovk__ctx *c)
{
    const ovk__recycle *r = &c->recycle;
    return ovk__recycle_active(c) && (r->k < r->want || r->slower);
}

int ovk__recycle_update(ovk__ctx *c, ovk__eigwin *w)
{
    ovk__recycle *r = &c->recycle;
    if (!ovk__recycle_active(c)) return OVK_OK;
    if (w->cnt == 0) { /* nothing collected: the space kept, its effect watched */
        int its = c->res->iterations;
        if (r->k > 0 && (r->fewest == 0 || its < r->fewest)) r->fewest = its;
        else if (r->k > 0 && 10 * its > 11 * r->fewest) r->slower = 1;
        return OVK_OK;
    }
    int k = r->k, rc = OVK_OK, kx = 0;
    if (k > 0 && r->epoch != c->norms.epoch) k = 0; /* not projected this solve: A W is stale */
    if (k > 0 && r->changed) { /* new values: C A W joins, a block Krylov step from W */
        kx = k;
        for (int j = 0; j < k; j++) {
            memcpy(r->W[k + j], r->MAW[j], sizeof(double) * (size_t)c->n);
            memcpy(r->AW[k + j], r->AMAW[j], sizeof(double) * (size_t)c->n);
            rc = ovk__ctx_pc(c, r->AMAW[j], r->MAW[k + j]); /* C A C A W */
            if (rc) return rc;
        }
    }
    int ku = ritz_vectors(c, w, r, k + kx), nz = k + kx + ku;
    if (ku == 0) return OVK_OK;
    for (int j = k + kx; j < nz; j++) {
        rc = ovk__ctx_matvec(c, r->W[j], r->AW[j]); /* A U */
        if (rc) return rc;
        rc = ovk__ctx_pc(c, r->AW[j], r->MAW[j]); /* C A U */
        if (rc) return rc;
    }
    int m = 0;
    for (int j = 0; j < nz; j++)
        for (int i = 0; i <= j; i++) {
            r->px[m] = r->W[i]; /* G2 = Z^T A Z */
            r->py[m++] = r->AW[j];
            r->px[m] = r->AW[i]; /* G1 = (AZ)^T C A Z */
            r->py[m++] = r->MAW[j];
        }
    double *vals = r->dense, *G2 = vals + m, *G1 = G2 + nz * nz, *C = G1 + nz * nz, *room = C + nz * nz;
    rc = ovk__ctx_dots(c, m, r->px, r->py, vals);
    if (rc) return rc;
    for (int j = 0, at = 0; j < nz; j++)
        for (int i = 0; i <= j; i++, at += 2) {
            G2[i + j * nz] = G2[j + i * nz] = vals[at];
            G1[i + j * nz] = G1[j + i * nz] = vals[at + 1];
        }
    int knew = 0;
    double lo = 0.0, hi = 0.0;
    if (pencil(nz, r->want, G2, G1, room, C, &knew, &lo, &hi)) {
        ovk__recycle_drop(r, "dropped: the update's Gram matrices are not finite or not positive definite");
        return OVK_OK;
    }
    ovk__tic t0 = ovk__tic_start(c);
    combine_in_place(c->n, r->W, nz, knew, C, &c->hook);   /* W = Z C */
    combine_in_place(c->n, r->AW, nz, knew, C, &c->hook);  /* A W */
    combine_in_place(c->n, r->MAW, nz, knew, C, &c->hook); /* C A W */
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    for (int j = 0; j < knew; j++) {
        rc = ovk__ctx_matvec(c, r->MAW[j], r->AMAW[j]); /* A C A W */
        if (rc) return rc;
    }
    r->k = knew;
    r->epoch = c->norms.epoch;
    r->updates++;
    r->fewest = r->slower = 0;
    snprintf(r->note, sizeof r->note, "updated from %d kept%s + %d Ritz vectors; Ritz values of C A %.3g .. %.3g", k,
             kx ? " (and C A W: new values)" : "", ku, lo, hi);
    r->changed = 0;
    return OVK_OK;
}

/* in fixed lanes (row i to lane i mod 8, the lanes added in order): the
 * same bits in every clone, the wide ones vectorised */
OVK__CLONES void ovk__recycle_dots(const double *restrict wv, double *const *W, int k, int i0, int len, double *g)
{
    enum { L = 8 };
    for (int j = 0; j < k; j += 4) {
        int nj = k - j < 4 ? k - j : 4;
        const double *restrict w0 = W[j] + i0, *restrict w1 = W[j + (nj > 1)] + i0;
        const double *restrict w2 = W[j + (nj > 2 ? 2 : 0)] + i0, *restrict w3 = W[j + (nj > 3 ? 3 : 0)] + i0;
        double s0[L] = {0}, s1[L] = {0}, s2[L] = {0}, s3[L] = {0};
        int i = 0;
        for (; i + L <= len; i += L) {
#pragma omp simd
            for (int l = 0; l < L; l++) {
                s0[l] += w0[i + l] * wv[i + l];
                s1[l] += w1[i + l] * wv[i + l];
                s2[l] += w2[i + l] * wv[i + l];
                s3[l] += w3[i + l] * wv[i + l];
            }
        }
        for (int l = 0; i + l < len; l++) {
            s0[l] += w0[i + l] * wv[i + l];
            s1[l] += w1[i + l] * wv[i + l];
            s2[l] += w2[i + l] * wv[i + l];
            s3[l] += w3[i + l] * wv[i + l];
        }
        double sj[4] = {0.0, 0.0, 0.0, 0.0};
        for (int l = 0; l < L; l++) {
            sj[0] += s0[l];
            sj[1] += s1[l];
            sj[2] += s2[l];
            sj[3] += s3[l];
        }
        for (int q = 0; q < nj; q++) g[j + q] += sj[q];
    }
}
