/* GCRO-DR(m, k): restarted GMRES that keeps k vectors across its cycles and
 * across the solves of one solver object (Parks, de Sturler, Mackey,
 * Johnson and Maiti, SISC 2006), right-preconditioned: the solve is of
 * A C y = b, x = C y, and the space lives in y's space.
 *
 * The space (c->recycle: W holds U, AW holds Ck) satisfies Ck = A C U,
 * Ck^T Ck = I.  A cycle runs Arnoldi on (I - Ck Ck^T) A C from r (r
 * orthogonal to Ck):
 *
 *   w = A C v_j;  b_j = Ck^T w, h_j = V^T w, <w,w>   one reduction
 *   w -= Ck b_j + V h_j; a second pass when the norm cancelled below 1e-2
 *   v_{j+1} = w / h_{j+1,j}
 *
 * so that A C [U, V_m] = [Ck, V_{m+1}] G, G = [I, B; 0, Hbar].  The least
 * squares of the cycle is GMRES's on Hbar (y2) with y1 = -B y2; x += C (V
 * y2 + U y1).  Its end (one reduction: ||b - A x||^2, V_{m+1}^T U, and
 * Ck^T U at a solve's first cycle only: later ones carry it from the last
 * update as Q^T M2 P R^-1, its rounding renewed once a solve) makes the
 * space again from the harmonic Ritz vectors of the k smallest
 * |theta| of G^T G p = theta G^T [Ck, V_{m+1}]^T [U, V_m] p (LAPACK dgeev
 * after a Cholesky factor of G^T G, else dggev; a complex pair enters as
 * its real and imaginary parts, or not at all):
 * G P = Q R, Ck = [Ck, V_{m+1}] Q, U = [U, V_m] P R^-1.
 * With the key update=N only a solve's first N cycle ends do so, with
 * settle=F those up to the first cycle that cut the true residual by F
 * (the space settled); later cycles keep U and Ck, their ends sum ||r||^2
 * alone and skip the eigenproblem.
 *
 * A solve's start: the ranks agree on k in the initial check's reduction;
 * when A's values (and so C) changed since the space was made, Ck = A C U
 * (k products and applications) and CholQR2 (two reductions, the second
 * carrying Ck^T r); else Ck^T r alone (one reduction); then x += C U Ck^T
 * r, r -= Ck Ck^T r.  U lives in y's space, so the relation Ck = A C U
 * holds exactly with whatever C the new values brought (amg's reuse). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../solver.h"

extern void dggev_(const char *jobvl, const char *jobvr, const int *n, double *a, const int *lda, double *b,
                   const int *ldb, double *alphar, double *alphai, double *beta, double *vl, const int *ldvl,
                   double *vr, const int *ldvr, double *work, const int *lwork, int *info, size_t ljobvl,
                   size_t ljobvr);

extern void dgeev_(const char *jobvl, const char *jobvr, const int *n, double *a, const int *lda, double *wr,
                   double *wi, double *vl, const int *ldvl, double *vr, const int *ldvr, double *work, const int *lwork,
                   int *info, size_t ljobvl, size_t ljobvr);

typedef struct gcrodr_params {
    long restart;
    long update; /* cycles a solve that make the space again (0: every cycle) */
    double settle; /* the space kept once a cycle cut the true residual by this (0: never) */
} gcrodr_params;

/* when a solve stops making the space again (keys update, settle) */
typedef struct gcrodr_keep {
    int update;    /* cycles a solve that make the space again (0: every cycle) */
    double settle; /* the space kept once a cycle cut the true residual by this (0: never) */
    int cycle_no;  /* the solve's cycles ended so far */
    int kept_at;   /* the first cycle of this solve that kept the space (0: none yet) */
} gcrodr_keep;

typedef struct gcrodr_work {
    double *r, *t, *d;
    double *V[OVK__MAX_RESTART + 1];
    int m;
    gcrodr_keep keep;
    ovk__arnoldi ls;
    double *hraw;  /* Hbar's columns before the rotations, (m + 1) apart */
    double *B;     /* Ck^T w of step j at B + j cap */
    double *dense; /* the update's small matrices */
    int dense_len;
    const double **X; /* room for a pass's vector lists */
    double *cvals;    /* the cycle end's sums: 1 + K (K + m + 1) */
    int deeper;    /* an estimate's convergence was not confirmed: cycles run on past it */
    int lapack_info; /* the last update's dggev info when it failed */
    int fresh_its;   /* iterations of the last solve that started without a space (0: none yet) */
    int fresh_left;  /* solves still to start without the carried space */
    int carried_its; /* iterations of the carried solve that decided it */
    int judged_its;  /* and of the fresh solve it was judged against */
    double *cu;      /* Ck^T U of the space (k x k), carried from update to update */
    int cu_k, cu_updates; /* the space it belongs to: k, sp->updates, sp->epoch, U's first vector */
    unsigned cu_epoch;
    const double *cu_w0;
} gcrodr_work;

/* A carried space that cost more than it saved (a recycled solve over a
 * fresh one's iterations plus K): the next FRESH_RUNS solves start without
 * it, their cycles making it again as the first solve's did (GMRES-DR) */
enum { FRESH_RUNS = 8 };

enum { CHUNK = 256 };
/* A second Gram-Schmidt pass when the norm cancelled below 1e-2 of ||w||
 * (||w - V h||^2 < 1e-4 <w,w>): one pass then leaves v_{j+1} orthogonal to
 * about eps / 1e-2, and the norm from Pythagoras is good to about eps /
 * 1e-4 relative.  Kahan's 1/sqrt 2 made a second reduction at almost every
 * step (w = A C v_j has a large part along Ck). */
static const double REFINE = 1e-4;

/* ---- kernels ------------------------------------------------------------- */

/* out[j] = sum_l X[l] coef(l, j) over rows i0 .. i0 + len, j < nout, l <
 * nin (coef column-major, nin rows), four inputs at a time (element-wise:
 * the same bits in every clone) */
OVK__CLONES static void combine_chunk(int i0, int len, int nin, const double *const *X, int nout,
                                      const double *coef, double *const *out)
{
    for (int j = 0; j < nout; j++) memset(out[j] + i0, 0, sizeof(double) * (size_t)len);
    for (int l = 0; l < nin; l += 4) {
        int nl = nin - l < 4 ? nin - l : 4;
        const double *restrict x0 = X[l] + i0, *restrict x1 = X[l + (nl > 1)] + i0;
        const double *restrict x2 = X[l + (nl > 2 ? 2 : 0)] + i0, *restrict x3 = X[l + (nl > 3 ? 3 : 0)] + i0;
        for (int j = 0; j < nout; j++) {
            const double *a = coef + (size_t)j * (size_t)nin + l;
            double a0 = a[0], a1 = nl > 1 ? a[1] : 0.0, a2 = nl > 2 ? a[2] : 0.0, a3 = nl > 3 ? a[3] : 0.0;
            double *restrict o = out[j] + i0;
#pragma omp simd
            for (int i = 0; i < len; i++) o[i] += a0 * x0[i] + a1 * x1[i] + a2 * x2[i] + a3 * x3[i];
        }
    }
}

/* combine_chunk over all rows for two combinations (outa = XA coefa,
 * outb = XB coefb), chunk by chunk: the outputs' chunks stay in L1 and the
 * inputs the two share are read from memory once; out may not alias X;
 * timed as axpy */
static void combine_out2(ovk__ctx *c, int na, const double *const *XA, int nouta, const double *coefa,
                         double *const *outa, int nb, const double *const *XB, int noutb, const double *coefb,
                         double *const *outb)
{
    ovk__tic t0 = ovk__tic_start(c);
    for (int i0 = 0; i0 < c->n; i0 += CHUNK) {
        int len = c->n - i0 < CHUNK ? c->n - i0 : CHUNK;
        combine_chunk(i0, len, na, XA, nouta, coefa, outa);
        combine_chunk(i0, len, nb, XB, noutb, coefb, outb);
        ovk__poke(&c->hook);
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* out[l] += <X[l], w> over rows i0 .. i0 + len, l < nx, four X per loop,
 * in LANES fixed lanes as gram_chunk's */
enum { LANES = 8 };
static inline void dots_row(int i, int q, const double *restrict x0, const double *restrict x1,
                            const double *restrict x2, const double *restrict x3, const double *restrict w,
                            double (*s)[LANES])
{
    double u = w[i];
    s[0][q] += x0[i] * u;
    s[1][q] += x1[i] * u;
    s[2][q] += x2[i] * u;
    s[3][q] += x3[i] * u;
}

OVK__CLONES static void dots_chunk(int i0, int len, int nx, const double *const *X, const double *restrict w,
                                   double *out)
{
    for (int l = 0; l < nx; l += 4) {
        int nl = nx - l < 4 ? nx - l : 4;
        const double *restrict x0 = X[l], *restrict x1 = X[l + (nl > 1)];
        const double *restrict x2 = X[l + (nl > 2 ? 2 : 0)], *restrict x3 = X[l + (nl > 3 ? 3 : 0)];
        double s[4][LANES] = {{0.0}};
        int b = i0, end = i0 + len;
        for (; b + LANES <= end; b += LANES) {
#pragma omp simd
            for (int q = 0; q < LANES; q++) dots_row(b + q, q, x0, x1, x2, x3, w, s);
        }
        for (int q = 0; b + q < end; q++) dots_row(b + q, q, x0, x1, x2, x3, w, s);
        for (int a = 0; a < nl; a++) {
            double sum = 0.0;
            for (int e = 0; e < LANES; e++) sum += s[a][e];
            out[l + a] += sum;
        }
    }
}

/* out = X^T w (nx local sums), chunk by chunk (w's chunk stays in L1);
 * timed as axpy */
static void dots_out(ovk__ctx *c, int nx, const double *const *X, const double *w, double *out)
{
    ovk__tic t0 = ovk__tic_start(c);
    memset(out, 0, sizeof(double) * (size_t)nx);
    for (int i0 = 0; i0 < c->n; i0 += CHUNK) {
        dots_chunk(i0, c->n - i0 < CHUNK ? c->n - i0 : CHUNK, nx, X, w, out);
        ovk__poke(&c->hook);
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* out[j * nx + l] += <X[l], Y[j]> over rows i0 .. i0 + len, l < nx, j <
 * ny: two X by four Y per loop (six loads for eight products), row i's
 * products to lane i mod LANES and the lanes added in order at the end, so
 * that every clone gives the same bits */
static inline void gram_row(int i, int q, const double *restrict x0, const double *restrict x1,
                            const double *restrict y0, const double *restrict y1, const double *restrict y2,
                            const double *restrict y3, double (*s)[LANES])
{
    s[0][q] += x0[i] * y0[i];
    s[1][q] += x0[i] * y1[i];
    s[2][q] += x0[i] * y2[i];
    s[3][q] += x0[i] * y3[i];
    s[4][q] += x1[i] * y0[i];
    s[5][q] += x1[i] * y1[i];
    s[6][q] += x1[i] * y2[i];
    s[7][q] += x1[i] * y3[i];
}

OVK__CLONES static void gram_chunk(int i0, int len, int nx, const double *const *X, int ny, double *const *Y,
                                   double *out)
{
    for (int l = 0; l < nx; l += 2) {
        int nl = nx - l < 2 ? nx - l : 2;
        const double *restrict x0 = X[l] + i0, *restrict x1 = X[l + nl - 1] + i0;
        for (int j = 0; j < ny; j += 4) {
            int nj = ny - j < 4 ? ny - j : 4;
            const double *restrict y0 = Y[j] + i0, *restrict y1 = Y[j + (nj > 1)] + i0;
            const double *restrict y2 = Y[j + (nj > 2 ? 2 : 0)] + i0, *restrict y3 = Y[j + (nj > 3 ? 3 : 0)] + i0;
            double s[8][LANES] = {{0.0}};
            int b = 0;
            for (; b + LANES <= len; b += LANES) {
#pragma omp simd
                for (int q = 0; q < LANES; q++) gram_row(b + q, q, x0, x1, y0, y1, y2, y3, s);
            }
            for (int q = 0; b + q < len; q++) gram_row(b + q, q, x0, x1, y0, y1, y2, y3, s);
            for (int a = 0; a < nl; a++)
                for (int q = 0; q < nj; q++) {
                    double sum = 0.0;
                    for (int e = 0; e < LANES; e++) sum += s[4 * a + q][e];
                    out[(size_t)(j + q) * (size_t)nx + l + a] += sum;
                }
        }
    }
}

/* gram_chunk over all rows, chunk by chunk (Y's chunks reused from L1);
 * timed as axpy */
static void gram_out(ovk__ctx *c, int nx, const double *const *X, int ny, double *const *Y, double *out)
{
    ovk__tic t0 = ovk__tic_start(c);
    for (int i0 = 0; i0 < c->n; i0 += CHUNK) {
        gram_chunk(i0, c->n - i0 < CHUNK ? c->n - i0 : CHUNK, nx, X, ny, Y, out);
        ovk__poke(&c->hook);
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* X R^-1 in place (R k x k upper triangular, column-major): column j =
 * (X_j - sum_{l<j} R(l,j) X_l') / R(j,j), left to right */
static void solve_right(ovk__ctx *c, double **X, int k, const double *R)
{
    ovk__tic t0 = ovk__tic_start(c);
    for (int j = 0; j < k; j++) {
        double *restrict x = X[j];
        for (int l = 0; l < j; l++) {
            double a = R[l + j * k];
            const double *restrict y = X[l];
            for (int i = 0; i < c->n; i++) x[i] -= a * y[i];
        }
        double s = 1.0 / R[j + j * k];
        for (int i = 0; i < c->n; i++) x[i] *= s;
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* R^T R = G (k x k from its upper triangle packed column by column); 0, or
 * -1 when G is not finite or a pivot falls below 1e-12 of its diagonal
 * entry (the columns are dependent to working precision) */
static int cholesky(int k, const double *packed, double *R)
{
    memset(R, 0, sizeof(double) * (size_t)(k * k));
    for (int j = 0, at = 0; j < k; j++)
        for (int i = 0; i <= j; i++, at++) {
            if (!isfinite(packed[at])) return -1;
            R[i + j * k] = packed[at];
        }
    return ovk__cholesky(k, R, k, 1, 1e-12); /* R^T R = G, R's upper triangle */
}

/* ---- the solve's start: the space checked, made again, projected --------- */

/* local: the upper triangle of Ck^T Ck (packed) and, with r, Ck^T r after it */
static int gram_and_project(ovk__ctx *c, gcrodr_work *w, int k, const double *r, double *vals)
{
    ovk__recycle *sp = &c->recycle;
    int m = 0;
    for (int j = 0; j < k; j++) {
        ovk__gmres_dots(c, j + 1, (const double *const *)sp->AW, sp->AW[j], vals + m);
        m += j + 1;
    }
    if (r) {
        ovk__gmres_dots(c, k, (const double *const *)sp->AW, r, vals + m);
        m += k;
    }
    (void)w;
    return m;
}

/* Ck = A C U for new values, CholQR twice (the second reduction also sums
 * Ck^T r into g); *kept 0 when the space was dropped */
static int remake(ovk__ctx *c, gcrodr_work *w, int k, const double *r, double *g, int *kept)
{
    ovk__recycle *sp = &c->recycle;
    double vals[OVK__RECYCLE_MAX * (OVK__RECYCLE_MAX + 3) / 2], R[OVK__RECYCLE_MAX * OVK__RECYCLE_MAX];
    int rc = OVK_OK;
    *kept = 0;
    for (int j = 0; j < k && !rc; j++) {
        rc = ovk__ctx_pc(c, sp->W[j], w->t); /* t = C u */
        if (!rc) rc = ovk__ctx_matvec(c, w->t, sp->AW[j]); /* c = A t */
    }
    for (int pass = 0; pass < 2 && !rc; pass++) {
        int m = gram_and_project(c, w, k, pass ? r : NULL, vals);
        rc = ovk__sum(c, OVK__IPROD, vals, m);
        if (rc) return rc;
        if (cholesky(k, vals, R)) {
            ovk__recycle_drop(sp, pass ? "dropped: A C U lost its rank in the second orthogonalisation"
                                       : "dropped: A C U (new values) is not finite or not of full rank");
            return OVK_OK;
        }
        solve_right(c, sp->AW, k, R); /* Ck = Ck R^-1 */
        solve_right(c, sp->W, k, R);  /* U = U R^-1 */
        if (pass) { /* Ck^T r of the new Ck: R^-T (old Ck^T r) */
            const double *h = vals + k * (k + 1) / 2;
            for (int i = 0; i < k; i++) {
                double v = h[i];
                for (int l = 0; l < i; l++) v -= R[l + i * k] * g[l];
                g[i] = v / R[i + i * k];
            }
        }
    }
    if (!rc) {
        sp->epoch = c->norms.epoch;
        snprintf(sp->note, sizeof sp->note, "A C U made again for new values (CholQR2)");
        *kept = 1;
    }
    return rc;
}

/* x += C U g, r -= Ck g, *rr updated (summed again when it cancelled) */
static int project(ovk__ctx *c, gcrodr_work *w, int k, const double *g, double *rr)
{
    ovk__recycle *sp = &c->recycle;
    double gg = 0.0, mg[OVK__RECYCLE_MAX];
    for (int i = 0; i < k; i++) {
        if (!isfinite(g[i])) return OVK_OK; /* the residual is lost, not the space: the solve stops on it */
        gg += g[i] * g[i];
        mg[i] = -g[i];
    }
    memset(w->t, 0, sizeof(double) * (size_t)c->n);
    ovk__gmres_combine(c, k, (const double *const *)sp->W, g, 1.0, w->t); /* t = U g */
    int rc = ovk__ctx_pc(c, w->t, w->d);                                 /* d = C t */
    if (rc) return rc;
    ovk__ctx_axpy(c, 1.0, w->d, c->x);                                    /* x += d */
    ovk__gmres_combine(c, k, (const double *const *)sp->AW, mg, 1.0, w->r); /* r -= Ck g */
    double left = *rr - gg;
    if (left > 0.25 * *rr) {
        *rr = left;
        return OVK_OK;
    }
    ovk__gmres_dots(c, 1, (const double *const[]){w->r}, w->r, rr); /* cancelled: <r,r> again */
    return ovk__sum(c, OVK__IPROD, rr, 1);
}

/* the space this solve starts with (k vectors, 0: none) */
static int start_space(ovk__ctx *c, gcrodr_work *w, double *rr, int *kout)
{
    ovk__recycle *sp = &c->recycle;
    int k = sp->k, rc = OVK_OK, kept = 1;
    double g[OVK__RECYCLE_MAX];
    *kout = 0;
    if (k == 0) return OVK_OK;
    if (sp->epoch != c->norms.epoch) {
        rc = remake(c, w, k, w->r, g, &kept);
        if (rc || !kept) return rc;
    } else {
        ovk__gmres_dots(c, k, (const double *const *)sp->AW, w->r, g); /* Ck^T r */
        rc = ovk__sum(c, OVK__IPROD, g, k);
        if (rc) return rc;
    }
    rc = project(c, w, k, g, rr);
    *kout = k;
    return rc;
}

/* ---- one cycle ---------------------------------------------------------- */

/* w orthogonalised against [Ck, V_0..V_j] (one reduction; a second when the
 * norm cancelled); b, h its coefficients, h[j+1] its norm; *happy when the
 * Krylov space is invariant */
static int orthogonalise(ovk__ctx *c, gcrodr_work *w, int k, int j, double *wv, double *b, double *h, int *happy)
{
    const double **X = w->X;
    double vals[OVK__RECYCLE_MAX + OVK__MAX_RESTART + 2], coef[OVK__RECYCLE_MAX + OVK__MAX_RESTART + 1];
    int nx = k + j + 1;
    for (int i = 0; i < k; i++) X[i] = c->recycle.AW[i];
    for (int i = 0; i <= j; i++) X[k + i] = w->V[i];
    X[nx] = wv;
    memset(b, 0, sizeof(double) * (size_t)k);
    memset(h, 0, sizeof(double) * (size_t)(j + 2));
    double ww0 = 0.0, left = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        dots_out(c, nx + 1, X, wv, vals); /* Ck^T w, V^T w, <w,w> */
        int rc = ovk__sum(c, OVK__IPROD, vals, nx + 1);
        if (rc) return rc;
        double ww = vals[nx], ss = 0.0;
        if (pass == 0) ww0 = ww;
        for (int i = 0; i < nx; i++) {
            ss += vals[i] * vals[i];
            coef[i] = -vals[i];
        }
        for (int i = 0; i < k; i++) b[i] += vals[i];
        for (int i = 0; i <= j; i++) h[i] += vals[k + i];
        left = isfinite(ww) ? ww - ss : NAN;
        int last = pass == 1 || !isfinite(ww) || left > REFINE * ww;
        double scale = 1.0;
        if (last) { /* the norm is known: v_{j+1} = w / h_{j+1,j} in the same pass */
            *happy = !(left > 1e-28 * ww0) && isfinite(left);
            h[j + 1] = *happy ? 0.0 : sqrt(left);
            if (!*happy) scale = 1.0 / h[j + 1];
        }
        ovk__gmres_combine(c, nx, X, coef, scale, wv); /* w = scale (w - Ck b - V h) */
        if (last) break;
    }
    return OVK_OK;
}

/* The cycle's steps from r (||r||^2 = rr); *k_done the columns made */
static int arnoldi(ovk__ctx *c, gcrodr_work *w, int k, double rr, double bb, int *iter, int *k_done)
{
    int m = w->m, step_stop = 0, rc = OVK_OK;
    ovk__gmres_scale(c, 1.0 / sqrt(rr), w->r, w->V[0]); /* v_0 = r / ||r|| */
    ovk__arnoldi_start(&w->ls, sqrt(rr));
    *k_done = 0;
    for (int j = 0; j < m && *iter < c->opts->max_iter && !step_stop; j++) {
        double *h = ovk__arnoldi_column(&w->ls, j);
        rc = ovk__ctx_pc(c, w->V[j], w->t); /* t = C v_j */
        if (!rc) rc = ovk__ctx_matvec(c, w->t, w->V[j + 1]); /* w = A t */
        if (rc) return rc;
        int happy = 0;
        rc = orthogonalise(c, w, k, j, w->V[j + 1], w->B + (size_t)j * OVK__RECYCLE_MAX, h, &happy);
        if (rc) return rc;
        memcpy(w->hraw + (size_t)j * (size_t)(m + 1), h, sizeof(double) * (size_t)(j + 2));
        double res = ovk__arnoldi_rotate(&w->ls, j); /* ||b - A x_j|| */
        *k_done = j + 1;
        rc = ovk__iterate_check(c, ++*iter, res * res, bb, &step_stop);
        if (rc) return rc;
        if (step_stop && w->deeper && c->res->reason == OVK_REASON_CONVERGED) { /* not confirmed before */
            c->res->reason = OVK_REASON_NONE;
            step_stop = 0;
        }
        if (happy) break;
    }
    return OVK_OK;
}

/* ---- the space made again at a cycle's end --------------------------------- */

/* GA p = theta GB p as a standard problem when GA = R^T R (Cholesky, into
 * GA's upper triangle; RC keeps GA for the general one when it fails):
 * M q = mu q, M = R^-T GB R^-1 (into GB), q = R p, mu = 1 / theta (LAPACK
 * dgeev, a third of dggev's time at nn = 40).  ar, ai, be as dggev's:
 * |theta| = |ar + i ai| / be; 1 standard, 0 general, -1 LAPACK failed */
static int pencil_eig(gcrodr_work *w, int nn, double *GA, double *GB, double *RC, double *ar, double *ai, double *be,
                      double *VR)
{
    int lwork = 8 * nn + 16, info = 0, one = 1;
    double dummy = 0.0, *work = be + nn;
    memcpy(RC, GA, sizeof(double) * (size_t)nn * (size_t)nn);
    if (ovk__cholesky(nn, GA, nn, 1, 1e-12) == 0) {
        for (int j = 0; j < nn; j++) { /* GB = R^-T GB, column by column */
            double *col = GB + (size_t)j * nn;
            for (int i = 0; i < nn; i++) {
                double v = col[i];
                for (int l = 0; l < i; l++) v -= GA[l + (size_t)i * nn] * col[l];
                col[i] = v / GA[i + (size_t)i * nn];
            }
        }
        for (int i = 0; i < nn; i++) /* GB = GB R^-1, row by row */
            for (int j = 0; j < nn; j++) {
                double v = GB[i + (size_t)j * nn];
                for (int l = 0; l < j; l++) v -= GB[i + (size_t)l * nn] * GA[l + (size_t)j * nn];
                GB[i + (size_t)j * nn] = v / GA[j + (size_t)j * nn];
            }
        dgeev_("N", "V", &nn, GB, &nn, ar, ai, &dummy, &one, VR, &nn, work, &lwork, &info, 1, 1);
        for (int i = 0; i < nn && info == 0; i++) be[i] = ar[i] * ar[i] + ai[i] * ai[i]; /* |theta| = 1 / |mu| */
        if (info != 0) w->lapack_info = info;
        return info == 0 ? 1 : -1;
    }
    dggev_("N", "V", &nn, RC, &nn, GB, &nn, ar, ai, be, &dummy, &one, VR, &nn, work, &lwork, &info, 1, 1);
    if (info != 0) w->lapack_info = info;
    return info == 0 ? 0 : -1;
}

/* The harmonic Ritz vectors of the k smallest |theta| into P (nn x *kp,
 * real; a complex pair as its two parts, dropped when only one fits);
 * -1 when LAPACK fails or nothing finite is found */
static int harmonic_ritz(gcrodr_work *w, int nn, double *GA, double *GB, int want, double *P, int *kp)
{
    double *ar = w->dense + w->dense_len - 11 * nn - 16, *ai = ar + nn, *be = ai + nn;
    double *VR = P + (size_t)nn * (size_t)want; /* after P's room: nn x nn, then RC's */
    int order[OVK__MAX_RESTART + OVK__RECYCLE_MAX];
    double mag[OVK__MAX_RESTART + OVK__RECYCLE_MAX];
    int std = pencil_eig(w, nn, GA, GB, VR + (size_t)nn * nn, ar, ai, be, VR);
    if (std < 0) return -1;
    int cnt = 0;
    for (int i = 0; i < nn; i++) {
        double v = hypot(ar[i], ai[i]) / fabs(be[i]);
        if (!isfinite(v) || be[i] == 0.0) continue;
        mag[i] = v;
        order[cnt++] = i;
    }
    for (int i = 1; i < cnt; i++) /* ascending |theta|; a pair's members are equal: stable keeps them adjacent */
        for (int j = i; j > 0 && mag[order[j]] < mag[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    int np = 0;
    for (int s = 0; s < cnt && np < want; s++) {
        int i = order[s];
        if (ai[i] == 0.0) {
            memcpy(P + (size_t)np++ * (size_t)nn, VR + (size_t)i * (size_t)nn, sizeof(double) * (size_t)nn);
            continue;
        }
        int first = ai[i] > 0.0 ? i : i - 1; /* dggev: a pair's columns are first (re), first + 1 (im) */
        if (first < 0 || first + 1 >= nn) continue;
        if (np + 2 > want) break; /* only one of the pair fits: neither */
        int seen = 0;
        for (int q = 0; q < s; q++) seen |= order[q] == first || order[q] == first + 1;
        if (seen) continue;
        memcpy(P + (size_t)np++ * (size_t)nn, VR + (size_t)first * (size_t)nn, sizeof(double) * (size_t)nn);
        memcpy(P + (size_t)np++ * (size_t)nn, VR + (size_t)(first + 1) * (size_t)nn, sizeof(double) * (size_t)nn);
    }
    for (int j = 0; std && j < np; j++) { /* p = R^-1 q */
        double *q = P + (size_t)j * nn;
        for (int i = nn - 1; i >= 0; i--) {
            double v = q[i];
            for (int l = i + 1; l < nn; l++) v -= GA[i + (size_t)l * nn] * q[l];
            q[i] = v / GA[i + (size_t)i * nn];
        }
    }
    *kp = np;
    return np > 0 ? 0 : -1;
}

/* Q R = Y (rows x kp, column-major) by Gram-Schmidt twice; columns that are
 * dependent are dropped (with P's); returns the columns kept */
static int small_qr(int rows, int kp, double *Y, double *P, int nn, double *R)
{
    int q = 0;
    memset(R, 0, sizeof(double) * (size_t)(kp * kp));
    for (int j = 0; j < kp; j++) {
        double *y = Y + (size_t)j * (size_t)rows, n0 = 0.0, nn2 = 0.0;
        for (int i = 0; i < rows; i++) n0 += y[i] * y[i];
        double *rc = R + (size_t)q * (size_t)kp;
        memset(rc, 0, sizeof(double) * (size_t)kp);
        for (int pass = 0; pass < 2; pass++)
            for (int l = 0; l < q; l++) {
                const double *ql = Y + (size_t)l * (size_t)rows;
                double d = 0.0;
                for (int i = 0; i < rows; i++) d += ql[i] * y[i];
                for (int i = 0; i < rows; i++) y[i] -= d * ql[i];
                rc[l] += d;
            }
        for (int i = 0; i < rows; i++) nn2 += y[i] * y[i];
        if (!(nn2 > 1e-20 * n0)) continue; /* dependent */
        double s = sqrt(nn2);
        for (int i = 0; i < rows; i++) y[i] /= s;
        rc[q] = s;
        if (q != j) {
            memmove(Y + (size_t)q * (size_t)rows, y, sizeof(double) * (size_t)rows);
            memmove(P + (size_t)q * (size_t)nn, P + (size_t)j * (size_t)nn, sizeof(double) * (size_t)nn);
        }
        q++;
    }
    return q;
}

/* P = X^T Y (X, Y rows x nn, column-major; P nn x nn), the sums in
 * vector lanes */
static void gram_small(int rows, int nn, const double *X, const double *Y, double *P)
{
    for (int j = 0; j < nn; j++)
        for (int i = 0; i < nn; i++) {
            const double *x = X + (size_t)i * rows, *y = Y + (size_t)j * rows;
            double a = 0.0;
#pragma omp simd reduction(+ : a)
            for (int l = 0; l < rows; l++) a += x[l] * y[l];
            P[i + (size_t)j * nn] = a;
        }
}

/* Ck^T U of the space update_space makes, Q^T M2 P R^-1 (Q = Y: rows x
 * kn, M2 rows x nn, PR nn x kn), so that the next cycle's end sums V^T U
 * only: [Ck, V]^T [U, V_mk] is M2 as update_space assumes it */
static void cu_next(gcrodr_work *w, int rows, int nn, int kn, const double *M2, const double *Y, const double *PR)
{
    for (int j = 0; j < kn; j++) {
        double t[OVK__MAX_RESTART + OVK__RECYCLE_MAX + 1]; /* M2 PR's column j */
        for (int i = 0; i < rows; i++) {
            double v = 0.0;
            for (int l = 0; l < nn; l++) v += M2[i + (size_t)l * rows] * PR[l + (size_t)j * nn];
            t[i] = v;
        }
        for (int i = 0; i < kn; i++) {
            double v = 0.0;
            for (int l = 0; l < rows; l++) v += Y[l + (size_t)i * rows] * t[l];
            w->cu[i + j * kn] = v;
        }
    }
}

/* w->cu belongs to the space as it is now (else the cycle's end sums it) */
static void cu_keep(gcrodr_work *w, const ovk__recycle *sp)
{
    w->cu_k = sp->k;
    w->cu_updates = sp->updates;
    w->cu_epoch = sp->epoch;
    w->cu_w0 = sp->k > 0 ? sp->W[0] : NULL;
}

static int cu_valid(const gcrodr_work *w, const ovk__recycle *sp)
{
    return sp->k > 0 && w->cu_k == sp->k && w->cu_updates == sp->updates && w->cu_epoch == sp->epoch &&
           w->cu_w0 == sp->W[0];
}

/* From the reduced CU = Ck^T U (k x k) and VU = V_{mk+1}^T U ((mk + 1) x k):
 * the new space (cap columns at most), written to the vectors after the
 * kept ones and swapped in.  Returns 0, or -1 (the space is kept as it was:
 * the note says why) */
static int update_space(ovk__ctx *c, gcrodr_work *w, int k, int mk, const double *CU, const double *VU)
{
    ovk__recycle *sp = &c->recycle;
    int nn = k + mk, rows = nn + 1, m1 = w->m + 1, want = sp->want;
    double *G = w->dense, *M2 = G + (size_t)rows * nn, *GA = M2 + (size_t)rows * nn, *GB = GA + (size_t)nn * nn;
    double *Y = GB + (size_t)nn * nn, *R = Y + (size_t)rows * want, *PR = R + (size_t)want * want;
    double *P = PR + (size_t)nn * want;
    memset(G, 0, sizeof(double) * (size_t)(2 * rows * nn));
    for (int i = 0; i < k; i++) G[i + i * rows] = 1.0; /* G = [I, B; 0, Hbar] */
    for (int j = 0; j < mk; j++) {
        for (int i = 0; i < k; i++) G[i + (k + j) * rows] = w->B[(size_t)j * OVK__RECYCLE_MAX + i];
        for (int i = 0; i <= j + 1 && i <= mk; i++) G[k + i + (k + j) * rows] = w->hraw[(size_t)j * m1 + i];
    }
    for (int j = 0; j < k; j++) { /* M2 = [Ck, V]^T [U, V_mk] = [CU, 0; VU, (I; 0)] */
        for (int i = 0; i < k; i++) M2[i + j * rows] = CU[i + j * k];
        for (int i = 0; i <= mk; i++) M2[k + i + j * rows] = VU[i + j * (mk + 1)];
    }
    for (int j = 0; j < mk; j++) M2[k + j + (k + j) * rows] = 1.0;
    gram_small(rows, nn, G, G, GA); /* GA = G^T G */
    gram_small(rows, nn, G, M2, GB); /* GB = G^T M2 */
    for (int i = 0; i < nn * nn; i++)
        if (!isfinite(GA[i]) || !isfinite(GB[i])) return -1;
    int kp = 0;
    if (harmonic_ritz(w, nn, GA, GB, want, P, &kp)) return -1;
    for (int j = 0; j < kp; j++) /* Y = G P */
        for (int i = 0; i < rows; i++) {
            double v = 0.0;
            for (int l = 0; l < nn; l++) v += G[i + l * rows] * P[l + (size_t)j * nn];
            Y[i + (size_t)j * rows] = v;
        }
    int kn = small_qr(rows, kp, Y, P, nn, R);
    if (kn == 0) return -1;
    for (int j = 0; j < kn; j++) { /* PR = P R^-1 (R kp apart, kn x kn used) */
        for (int i = 0; i < nn; i++) {
            double v = P[i + (size_t)j * nn];
            for (int l = 0; l < j; l++) v -= PR[i + (size_t)l * nn] * R[l + (size_t)j * kp];
            PR[i + (size_t)j * nn] = v / R[j + (size_t)j * kp];
        }
    }
    cu_next(w, rows, nn, kn, M2, Y, PR); /* Ck^T U of the new space, from the small matrices */
    const double **X = w->X, **XU = w->X + rows;
    for (int i = 0; i < k; i++) X[i] = sp->AW[i];
    for (int i = 0; i <= mk; i++) X[k + i] = w->V[i];
    for (int i = 0; i < k; i++) XU[i] = sp->W[i];
    for (int i = 0; i < mk; i++) XU[k + i] = w->V[i];
    /* Ck = [Ck, V_{mk+1}] Q and U = [U, V_mk] P R^-1, V read once */
    combine_out2(c, rows, X, kn, Y, sp->AW + sp->cap, nn, XU, kn, PR, sp->W + sp->cap);
    for (int j = 0; j < kn; j++) { /* swap the new vectors in */
        double *t = sp->W[j];
        sp->W[j] = sp->W[sp->cap + j];
        sp->W[sp->cap + j] = t;
        t = sp->AW[j];
        sp->AW[j] = sp->AW[sp->cap + j];
        sp->AW[sp->cap + j] = t;
    }
    sp->k = kn;
    sp->epoch = c->norms.epoch;
    sp->updates++;
    cu_keep(w, sp);
    snprintf(sp->note, sizeof sp->note, "harmonic Ritz vectors of the last cycle (%d kept + %d Arnoldi vectors)", k, mk);
    return 0;
}

/* The cycle's end: x += C (V y2 - U B y2); r = b - A x with <r,r> and, for
 * the update, Ck^T U and V^T U in one reduction; the space made again; the
 * true residual decides */
static int cycle_end(ovk__ctx *c, gcrodr_work *w, int k, int mk, int iter, double bb, double *rr, int *stop)
{
    ovk__recycle *sp = &c->recycle;
    ovk_reason why = c->res->reason;
    double coef[OVK__RECYCLE_MAX + OVK__MAX_RESTART];
    *stop = 1;
    if (why == OVK_REASON_NONFINITE || why == OVK_REASON_BREAKDOWN) return OVK_OK;
    double rmin = ovk__arnoldi_solve(&w->ls, mk);
    if (ovk__breakdown(c, iter, "the smallest diagonal entry of the rotated Hessenberg matrix", rmin, 0)) return OVK_OK;
    const double **X = w->X;
    for (int i = 0; i < k; i++) {
        double v = 0.0;
        for (int j = 0; j < mk; j++) v += w->B[(size_t)j * OVK__RECYCLE_MAX + i] * w->ls.y[j];
        coef[i] = -v; /* y1 = -B y2 */
        X[i] = sp->W[i];
    }
    for (int j = 0; j < mk; j++) {
        coef[k + j] = w->ls.y[j];
        X[k + j] = w->V[j];
    }
    memset(w->t, 0, sizeof(double) * (size_t)c->n);
    ovk__gmres_combine(c, k + mk, X, coef, 1.0, w->t); /* t = U y1 + V y2 */
    int rc = ovk__ctx_pc(c, w->t, w->d);                /* d = C t */
    if (rc) return rc;
    ovk__ctx_axpy(c, 1.0, w->d, c->x);
    if (why != OVK_REASON_NONE && why != OVK_REASON_CONVERGED) return OVK_OK; /* monitor, diverged */
    rc = ovk__ctx_residual(c, w->r); /* r = b - A x */
    if (rc) return rc;
    /* after the solve's first w->keep.update cycles, or once it settled, the space is kept as it is */
    int frozen = k > 0 && (w->keep.kept_at > 0 || (w->keep.update > 0 && w->keep.cycle_no >= w->keep.update));
    int updating = ovk__recycle_active(c) && mk > 0 && !frozen;
    if (frozen && w->keep.kept_at == 0) {
        w->keep.kept_at = w->keep.cycle_no + 1;
        if (ovk__recycle_active(c))
            snprintf(sp->note, sizeof sp->note, "made at %d cycle ends, kept since (update=%d)",
                     w->keep.cycle_no, w->keep.update);
    }
    int known = updating && k > 0 && cu_valid(w, sp); /* Ck^T U carried from the last update */
    int nx = known ? mk + 1 : k + mk + 1, nv = updating ? nx * k : 0;
    double *vals = w->cvals;
    ovk__gmres_dots(c, 1, (const double *const[]){w->r}, w->r, vals);
    for (int i = 0; i < k && !known; i++) X[i] = sp->AW[i];
    for (int i = 0; i <= mk; i++) X[nx - mk - 1 + i] = w->V[i];
    if (updating) {
        memset(vals + 1, 0, sizeof(double) * (size_t)nv);
        gram_out(c, nx, X, k, sp->W, vals + 1); /* Ck^T U (unless known), V^T U */
    }
    rc = ovk__sum(c, OVK__IPROD, vals, 1 + nv);
    if (rc) return rc;
    *rr = vals[0];
    if (updating && isfinite(*rr)) {
        double CU[OVK__RECYCLE_MAX * OVK__RECYCLE_MAX], *VU = vals + 1; /* VU repacked in place */
        for (int j = 0; j < k; j++)
            for (int i = 0; i < k; i++) CU[i + j * k] = known ? w->cu[i + j * k] : vals[1 + j * nx + i];
        for (int j = 0; j < k; j++)
            for (int i = 0; i <= mk; i++) VU[i + j * (mk + 1)] = vals[1 + j * nx + nx - mk - 1 + i];
        if (update_space(c, w, k, mk, CU, VU))
            snprintf(sp->note, sizeof sp->note, "kept: the last cycle's harmonic Ritz problem failed%s",
                     w->lapack_info ? " (LAPACK)" : "");
    }
    c->res->reason = OVK_REASON_NONE; /* the true residual decides */
    rc = ovk__iterate_check(c, iter, *rr, bb, stop);
    if (rc || *stop) return rc;
    if (why == OVK_REASON_CONVERGED) w->deeper = 1;
    if (iter >= c->opts->max_iter) {
        c->res->reason = OVK_REASON_MAXIT;
        *stop = 1;
    }
    return OVK_OK;
}

/* ---- the solve ------------------------------------------------------------ */

/* After a solve (the same iterations on every rank, so the same decision):
 * a fresh solve's count is the reference; a carried space that took more
 * than it plus K is not carried into the next FRESH_RUNS solves, and the
 * note says so while they run */
static void judge_carried(ovk__recycle *sp, gcrodr_work *w, int carried, int iter)
{
    if (!carried) w->fresh_its = iter;
    else if (w->fresh_its > 0 && iter > w->fresh_its + sp->want) {
        w->fresh_left = FRESH_RUNS;
        w->carried_its = iter;
        w->judged_its = w->fresh_its;
    }
    if (w->fresh_left == 0) return;
    size_t len = strlen(sp->note);
    snprintf(sp->note + len, sizeof sp->note - len,
             "; not carried into the next %d solve(s): a carried one took %d iterations, the fresh one before %d",
             w->fresh_left, w->carried_its, w->judged_its);
}

static int iterate(ovk__ctx *c, void *work, double bb)
{
    gcrodr_work *w = work;
    ovk__recycle *sp = &c->recycle;
    int active = ovk__recycle_active(c), k = active ? sp->k : 0, rc, decided = 0, stop = 0, iter = 0;
    double v[4] = {0.0, 0.0, k, (double)k * k}, rr;
    w->deeper = 0;
    w->lapack_info = 0;
    w->keep.cycle_no = 0;
    w->keep.kept_at = 0;
    w->cu_k = 0; /* Ck^T U summed again at the first cycle's end: its rounding renewed once a solve */
    if (c->watch.initial_pending) { /* <b,b>, <r0,r0> and the ranks' k in one reduction */
        ovk__initial_dots(c, w->r, v);
        rc = ovk__sum(c, OVK__IPROD, v, 4);
        if (rc) return rc;
        rc = ovk__initial_values(c, v, &bb, &decided);
        if (rc || decided) return rc;
        rr = v[1];
    } else {
        rr = c->watch.rnorm0 * c->watch.rnorm0;
        if (active) rc = ovk__sum(c, OVK__IPROD, v + 2, 2);
        if (active && rc) return rc;
    }
    int size = 1;
    MPI_Comm_size(c->comm, &size);
    if (active && v[2] * v[2] != size * v[3]) { /* some rank's space differs: none anywhere */
        ovk__recycle_drop(sp, "dropped: the ranks' spaces differed (the rows changed on some)");
        k = 0;
    }
    if (c->opts->max_iter <= 0) { /* x as given: not even projected */
        c->res->reason = OVK_REASON_MAXIT;
        return OVK_OK;
    }
    if (active && sp->k == 0) w->fresh_left = 0; /* nothing carried: the next space is tried */
    if (active && k > 0 && w->fresh_left > 0) {
        w->fresh_left--;
        k = 0;
    }
    int carried = active && k > 0;
    if (carried) {
        rc = start_space(c, w, &rr, &k);
        if (rc) return rc;
    } else {
        k = 0;
    }
    if (!(rr > 0.0) || !isfinite(rr)) { /* solved by the projection, or lost */
        rc = ovk__iterate_check(c, 0, rr, bb, &stop);
        if (rc || stop) return rc;
    }
    while (!stop) {
        int mk = 0;
        double rr_start = rr;
        rc = arnoldi(c, w, k, rr, bb, &iter, &mk);
        if (rc) return rc;
        rc = cycle_end(c, w, k, mk, iter, bb, &rr, &stop);
        if (rc) return rc;
        w->keep.cycle_no++;
        gcrodr_keep *kp = &w->keep;
        if (active && kp->settle > 0.0 && kp->kept_at == 0 && sp->k > 0 && rr <= kp->settle * kp->settle * rr_start) {
            kp->kept_at = kp->cycle_no + 1; /* settled (settle=0: never, not even at an exact solve) */
            snprintf(sp->note, sizeof sp->note,
                     "made at %d cycle ends, kept since (%.3g-fold cut, settle=%g)", kp->cycle_no,
                     sqrt(rr_start / rr), kp->settle);
        }
        k = active ? sp->k : 0;
    }
    if (active) judge_carried(sp, w, carried, iter);
    return OVK_OK;
}

/* ---- options, vectors, set-up ------------------------------------------- */

static int parse(ovk__opts *o, void **params)
{
    gcrodr_params *p = calloc(1, sizeof *p);
    *params = p;
    if (!p) return ovk__fail(OVK_ENOMEM, "gcrodr");
    p->restart = 30;
    p->update = 0;
    p->settle = 0.0;
    const ovk__opt_entry t[] = {OVK__OPT_INT("restart", 2, OVK__MAX_RESTART, &p->restart),
                                OVK__OPT_INT("update", 0, 1000000, &p->update),
                                OVK__OPT_DOUBLE("settle", 0.0, 1.0, &p->settle)};
    return ovk__opts_read(o, "gcrodr", t, 3);
}

/* r, t, d, V[0..m] */
static int vectors(const void *params, size_t *vec)
{
    const gcrodr_params *p = params;
    int m = (int)p->restart, k = 0;
    if (!vec) return 3 + m + 1;
    vec[k++] = offsetof(gcrodr_work, r);
    vec[k++] = offsetof(gcrodr_work, t);
    vec[k++] = offsetof(gcrodr_work, d);
    for (int i = 0; i <= m; i++) vec[k++] = offsetof(gcrodr_work, V) + sizeof(double *) * (size_t)i;
    return k;
}

static int setup(ovk__ctx *c, void *work)
{
    gcrodr_work *w = work;
    const gcrodr_params *p = c->params;
    w->m = (int)p->restart;
    w->keep.update = (int)p->update;
    w->keep.settle = p->settle;
    int want = c->recycle.want;
    if (want >= w->m)
        return ovk__fail(OVK_EOPTION, "solver gcrodr: recycle=%d must be less than restart=%d (the cycle's dimension)",
                         want, w->m);
    int rc = ovk__recycle_reserve(c, 0);
    if (rc) return rc;
    int nn = want + w->m, rows = nn + 1, kw = want > 0 ? want : 1;
    /* G, M2 (rows x nn), GA, GB (nn^2), Y (rows x kw), R (kw^2), PR, P (nn x kw), VR, RC (nn^2), LAPACK's arrays */
    w->dense_len = 2 * rows * nn + 4 * nn * nn + rows * kw + kw * kw + 2 * nn * kw + 11 * nn + 16;
    w->dense = malloc(sizeof(double) * (size_t)w->dense_len);
    w->hraw = malloc(sizeof(double) * (size_t)(w->m + 1) * (size_t)w->m);
    w->B = calloc((size_t)w->m * OVK__RECYCLE_MAX, sizeof(double));
    w->X = malloc(sizeof(double *) * (size_t)(2 * (OVK__RECYCLE_MAX + w->m + 2))); /* two lists at a cycle end */
    w->cvals = malloc(sizeof(double) * (size_t)(1 + want * (want + w->m + 1)));
    w->cu = malloc(sizeof(double) * (size_t)(kw * kw));
    w->cu_k = 0;
    if (!w->dense || !w->hraw || !w->B || !w->X || !w->cvals || !w->cu)
        return ovk__fail(OVK_ENOMEM, "gcrodr: the small matrices of restart %d, recycle %d", w->m, want);
    return ovk__arnoldi_alloc(&w->ls, w->m);
}

static void destroy(void *work)
{
    gcrodr_work *w = work;
    ovk__arnoldi_free(&w->ls);
    free(w->dense);
    free(w->hraw);
    free(w->B);
    free(w->X);
    free(w->cvals);
    free(w->cu);
    w->dense = w->hraw = w->B = w->cvals = w->cu = NULL;
    w->X = NULL;
}

static void view(const void *work, FILE *f)
{
    const gcrodr_work *w = work;
    fprintf(f, "  gcrodr: restart = %d, classical Gram-Schmidt against [Ck, V] (one reduction per step, a second "
               "when the norm cancels below 1e-2 of ||w||)\n", w->m);
    const gcrodr_keep *kp = &w->keep;
    if (kp->update > 0)
        fprintf(f, "  gcrodr: the space made again at a solve's first %d cycle end(s) only, then kept\n", kp->update);
    if (kp->settle > 0.0)
        fprintf(f, "  gcrodr: the space kept once a cycle cut the true residual %g-fold\n", 1.0 / kp->settle);
    if (kp->update == 0 && kp->settle == 0.0) fprintf(f, "  gcrodr: the space made again at every cycle's end\n");
}

const ovk__solver_ops ovk__solver_gcrodr = {
    .caps = OVK__CAP_NONSYMMETRIC | OVK__CAP_RECYCLES | OVK__CAP_DEFERS_INITIAL,
    .work_size = sizeof(gcrodr_work), .vectors = vectors,
    .parse = parse, .setup = setup, .destroy = destroy, .view = view,
    .iterate = iterate,
};
