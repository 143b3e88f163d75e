/* p(l)-GMRES: GMRES with a deep pipeline (Ghysels, Ashby, Meerbergen and
 * Vanroose, "Hiding global communication latency in the GMRES algorithm on
 * massively parallel machines", SISC 35(1), 2013; PETSc's KSPPGMRES is
 * l = 1), right-preconditioned as gmres.c, M = A C.  Beside the Arnoldi
 * basis V it builds an auxiliary basis Z = V G (G upper triangular) that
 * runs l steps ahead:
 *
 *   z_0 = v_0;  z_{j+1} = (M - sigma_j) z_j             (j < l: shifts)
 *   z_{j+1} = P_l(M) v_{j+1-l},  P_l(t) = prod_{i<l} (t - sigma_i)
 *           = (M z_j - sum_{k<=a} h_{k,a} z_{k+l}) / h_{a+1,a},  a = j - l
 *
 * Step s: u = A C z_s (the matvec and the preconditioner overlap the
 * reductions in flight); wait for the sums of step a = s - l; G's column
 * a + 1 from them (g_{i,a+1} = <z_{a+1}, v_i>, the ones against z by
 * g_{i,a+1} = (<z_{a+1}, z_i> - sum_{k<i} g_{k,i} g_{k,a+1}) / g_{i,i}, and
 * g_{a+1,a+1} = sqrt(<z_{a+1}, z_{a+1}> - sum g_{k,a+1}^2)); v_{a+1} =
 * (z_{a+1} - V g) / g_{a+1,a+1}; H's column a from M z_a written in Z
 * (hence in V): M V G = V G B gives h_{:,a} = (G b_a - sum_{k<a} g_{k,a}
 * h_{:,k}) / g_{a,a}; the rotation and the check of iteration a + 1; then
 * z_{s+1} and its s + 2 sums against the known v and the newer z: one
 * reduction per step, completed l steps later.
 *
 * orth=dcgs2: the reduction of step s (s >= l) also carries v_kv's sums
 * <v_kv, v_i>, i <= kv = s - l + 1 (v_kv just made); at step s + l,
 * before v_{s+1}, they give v_kv's second classical pass: c = V^T v_kv,
 * nu = sqrt(<v_kv, v_kv> - |c|^2) (not positive or not finite: the
 * breakdown below), v_kv = (v_kv - V c) / nu.  No vector is made again:
 * V_old = V_new S (S = I but column kv = (c; nu)) gives G = S G, the sums
 * in flight taken before the correction are mapped to the new basis
 * (d = S^{-T} d, from the log of corrections), and H is formed again from
 * G and the coefficients B the recurrence of Z used (M Z = Z B, kept apart
 * from H) from column kv - 1 on, rotated again from column 0 (O(l m^2)
 * scalars).  One reduction per step as with cgs; the last l vectors of a
 * cycle keep one pass.  v_kv's sums share next_z's read of V (dots2), its
 * correction basis_column's (combine2); the second pass's multiply-adds
 * remain (about 5a against 3a per row at step a).  Every corrected vector
 * is orthonormal to rounding (||I - V^T V||_F ~ 1e-15 where cgs lost it,
 * hor131 with Jacobi), but the basis Z is not repaired: where its Gram
 * step cancels (z_{a+1} in span V to rounding from the second column on,
 * as on watt_2 with Jacobi: ||A C v_0|| ~ 4e6 against Ritz values' real
 * parts in [0.05, 1.94]) the breakdown still ends the pipeline, so cgs
 * stays the default.
 *
 * The sums are of the Gram matrix, not of orthogonalised vectors: when the
 * basis Z is ill-conditioned (l large, shifts poor, A far from normal) the
 * square root's argument goes negative or, with shifts whose powers
 * overflow, is not finite.  That breakdown, a true residual at a cycle's
 * end more than LOST times the rotations' estimate, or a cycle whose update
 * the end undid (it raised the residual) ends the pipeline for the rest of
 * the solve: x is updated from the columns done and gmres (dcgs2 with its
 * safeguard, gmres.c's resume entry) goes on from it, counted as a
 * restart.  Every cycle ends with b - A x, so a converged answer is never
 * the estimate's alone.
 *
 * Shifts (Newton basis): Chebyshev nodes of [lmin, lmax], the spec's or the
 * range of the real parts of the Ritz values (the eigenvalues of the square
 * Hessenberg matrix of a first, short cycle of ESTIMATE_STEPS steps, LAPACK
 * dhseqr), estimated in the first solve of a set-up solver and again after
 * new matrix values.  That first cycle is gmres's (dcgs2, one blocking
 * reduction per step) and ends with b - A x like a restart: run
 * unshifted at depth 1 instead, the pipeline's residual estimate drifted
 * from the true one by a factor 3.6 in 25 steps on convection-diffusion. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../solver.h"

enum { MAX_L = 8 };
static const double LOST = 10.0; /* true / estimated residual norm that ends the pipeline */
/* steps of the classical cycle whose Ritz values give the shifts (as
 * PETSc's Chebyshev estimate: the extreme real parts settle first) */
enum { ESTIMATE_STEPS = 10 };
#define FALLBACK "gmres"

extern void dhseqr_(const char *job, const char *compz, const int *n, const int *ilo, const int *ihi, double *h,
                    const int *ldh, double *wr, double *wi, double *z, const int *ldz, double *work,
                    const int *lwork, int *info);

/* The Newton basis's shifts and where they came from. */
typedef struct pgmres_shifts {
    double sigma[MAX_L];
    double lmin, lmax;
    int user_shifts, estimated;
    unsigned epoch;                  /* c->norms.epoch of the estimate */
} pgmres_shifts;

typedef struct pgmres_work {
    double *r, *t;
    double *V[OVK__MAX_RESTART + 1]; /* the Arnoldi basis */
    double *Z[OVK__MAX_RESTART + 1]; /* the auxiliary basis, Z = V G */
    ovk__arnoldi ls;                 /* the rotated H */
    double *G;                       /* (m + 1) x (m + 1), column-major */
    double *H;                       /* (m + 1) x m: H before the rotations */
    double *D;                       /* the sums of step s at D + 2 s (m + 1) */
    double *B;                       /* M Z = Z B: the coefficients z_{s+1} was made with, at B + s (m + 1) */
    double *C;                       /* v_j's correction at C + j (m + 1): c_0..c_{j-1}, nu */
    double *ritz;                    /* m x m + 3 m: dhseqr's room */
    double *gram;                    /* orthloss: m (m + 1) / 2 sums, or NULL */
    int *fixed;                      /* the step v_j was corrected at, -1: not (yet) */
    ovk_request **req;               /* step s's reduction in flight, or NULL */
    int m, l, orth, orthloss, loss_k;
    double loss;                     /* orthloss: ||I - V^T V||_F of the last pipelined cycle */
    pgmres_shifts sh;
    ovk__variant fallback;
} pgmres_work;

/* one cycle's pipeline */
typedef struct pipe_state {
    int depth, columns;              /* l of this cycle (1 for the estimate), columns at most */
    const double *sigma;
    int orth;                        /* OVK__ORTH_DCGS2: v_j corrected at step j + 2 l - 1 */
    double beta;                     /* ||r|| at the cycle's start */
    int k;                           /* columns done */
    int broke;                       /* the square root's argument was not positive */
    int fix;                         /* v_fix's correction, due in the pass that makes the next v; -1: none */
    double est;                      /* the rotations' residual norm after column k - 1 */
} pipe_state;

static int estimate_steps(int m) { return m < ESTIMATE_STEPS ? m : ESTIMATE_STEPS; }

static double *gcol(const pgmres_work *w, int j) { return w->G + (size_t)j * (size_t)(w->m + 1); }
static double *hcol(const pgmres_work *w, int j) { return w->H + (size_t)j * (size_t)(w->m + 1); }
static double *dsum(const pgmres_work *w, int s) { return w->D + 2 * (size_t)s * (size_t)(w->m + 1); }
static double *bcol(const pgmres_work *w, int s) { return w->B + (size_t)s * (size_t)(w->m + 1); }
static double *ccol(const pgmres_work *w, int j) { return w->C + (size_t)j * (size_t)(w->m + 1); }
static int first_v(const pipe_state *p, int s) { return s - p->depth + 1 > 0 ? s - p->depth + 1 : 0; }

enum { CHUNK_ROWS = 2048 }; /* rows of a chunk that stays in cache across the basis, as gmres.c's */

/* oz[i] += <X_i, z>, ov[i] += <X_i, v> over rows lo..hi, i < k */
OVK__CLONES static void dots2_rows(int k, const double *const *X, const double *restrict z, const double *restrict v,
                                   int lo, int hi, double *oz, double *ov)
{
    for (int i = 0; i < k; i++) {
        const double *restrict x = X[i];
        double a = 0.0, b = 0.0;
#pragma omp simd reduction(+ : a, b)
        for (int r = lo; r < hi; r++) {
            a += x[r] * z[r];
            b += x[r] * v[r];
        }
        oz[i] += a;
        ov[i] += b;
    }
}

/* oz[i] = <X_i, z>, ov[i] = <X_i, v>, i < k, in one read of the X
 * (local, timed as axpy, the progress hook poked as gmres_kernels.c's) */
static void dots2(ovk__ctx *c, int k, const double *const *X, const double *z, const double *v, double *oz,
                  double *ov)
{
    ovk__tic t0 = ovk__tic_start(c);
    int n = c->n, every = ovk__chunk_rows(n, &c->hook), step = every < CHUNK_ROWS ? every : CHUNK_ROWS;
    for (int i = 0; i < k; i++) oz[i] = ov[i] = 0.0;
    for (int lo = 0, since = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        dots2_rows(k, X, z, v, lo, hi, oz, ov);
        since += hi - lo;
        if (since >= every || hi == n) {
            ovk__poke(&c->hook);
            since = 0;
        }
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* y = s (y + sum_{i<k} f_i X_i) over rows lo..hi */
OVK__CLONES static void combine_rows(int k, const double *const *X, const double *f, double s, double *restrict y,
                                     int lo, int hi)
{
    for (int i = 0; i < k; i++) {
        const double *restrict x = X[i];
        double fi = f[i];
#pragma omp simd
        for (int r = lo; r < hi; r++) y[r] += fi * x[r];
    }
#pragma omp simd
    for (int r = lo; r < hi; r++) y[r] *= s;
}

/* y = (y + sum_{i<=a} g_i V_i) / gd with, before it in the same chunk, V_kv
 * = (V_kv + sum_{i<kv} cm_i V_i) / nu: one read of V for v_kv's correction
 * and v_{a+1} (local, as dots2) */
static void combine2(ovk__ctx *c, double *const *V, int kv, const double *cm, double nu, int a, const double *g,
                     double gd, double *y)
{
    ovk__tic t0 = ovk__tic_start(c);
    int n = c->n, every = ovk__chunk_rows(n, &c->hook), step = every < CHUNK_ROWS ? every : CHUNK_ROWS;
    for (int lo = 0, since = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        combine_rows(kv, (const double *const *)V, cm, 1.0 / nu, V[kv], lo, hi);
        combine_rows(a + 1, (const double *const *)V, g, 1.0 / gd, y, lo, hi);
        since += hi - lo;
        if (since >= every || hi == n) {
            ovk__poke(&c->hook);
            since = 0;
        }
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* Chebyshev nodes of [lmin, lmax] */
static void shifts(pgmres_work *w)
{
    const double pi = 3.14159265358979323846;
    for (int i = 0; i < w->l; i++)
        w->sh.sigma[i] = 0.5 * (w->sh.lmax + w->sh.lmin) + 0.5 * (w->sh.lmax - w->sh.lmin) * cos(pi * (2 * i + 1) / (2.0 * w->l));
}

/* the range of the real parts of the eigenvalues of the k x k Hessenberg
 * matrix in H with leading dimension ld */
static void estimate(ovk__ctx *c, pgmres_work *w, int k, int ld)
{
    int n = k, ilo = 1, ldh = k, one = 1, lwork = k, info = 1;
    double *h = w->ritz, *wr = h + (size_t)k * (size_t)k, *wi = wr + k, *work = wi + k, z = 0.0;
    w->sh.lmin = w->sh.lmax = 0.0;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++) h[(size_t)j * (size_t)k + (size_t)i] = i <= j + 1 ? w->H[(size_t)j * (size_t)ld + (size_t)i] : 0.0;
    if (k > 0) dhseqr_("E", "N", &n, &ilo, &n, h, &ldh, wr, wi, &z, &one, work, &lwork, &info);
    if (info == 0) { /* from reduced values: the same on every rank (else no shift) */
        w->sh.lmin = w->sh.lmax = wr[0];
        for (int i = 1; i < k; i++) {
            w->sh.lmin = fmin(w->sh.lmin, wr[i]);
            w->sh.lmax = fmax(w->sh.lmax, wr[i]);
        }
    }
    w->sh.estimated = 1;
    w->sh.epoch = c->norms.epoch;
    shifts(w);
}

static void pgmres_view(const void *work, FILE *f)
{
    const pgmres_work *w = work;
    fprintf(f, "  pgmres: l = %d, restart = %d, ", w->l, w->m);
    if (w->sh.user_shifts) fprintf(f, "shifts on [%g, %g] from the spec\n", w->sh.lmin, w->sh.lmax);
    else if (w->sh.estimated)
        fprintf(f, "shifts on [%.6g, %.6g] from the Ritz values (pgmres:l=%d,lmin=%.6g,lmax=%.6g skips the estimate)\n",
                w->sh.lmin, w->sh.lmax, w->l, w->sh.lmin, w->sh.lmax);
    else fprintf(f, "shifts from the Ritz values of the next solve's first cycle (gmres's)\n");
    if (w->orth == OVK__ORTH_DCGS2)
        fprintf(f, "  pgmres: orth = dcgs2 (v_j's second classical pass in step j + %d's reduction, applied %d steps "
                   "later: one reduction per step)\n", w->l - 1, w->l);
    else fprintf(f, "  pgmres: orth = cgs (the basis from the Gram matrix alone)\n");
    if (w->orthloss && w->loss_k > 0)
        fprintf(f, "  orthogonality of the last cycle's basis: ||I - V^T V||_F = %.3e (%d vectors)\n", w->loss,
                w->loss_k);
}

/* Sums d_0..d_kv against v_0..v_kv taken at step t, into the basis of
 * now: each correction made after t (in the order made, which is j's),
 * V_old = V_new S with S = I but column j = (c; nu), maps d to S^{-T} d */
static void rebase(const pgmres_work *w, double *d, int kv, int t)
{
    for (int j = 1; j <= kv; j++) {
        if (w->fixed[j] <= t) continue;
        const double *cj = ccol(w, j);
        double s = d[j];
        for (int i = 0; i < j; i++) s -= cj[i] * d[i];
        d[j] = s / cj[j];
    }
}

/* dcgs2: v_kv's second pass from the sums <v_kv, v_i> of step a (kv =
 * a - l + 1), at step now: c = V^T v_kv, nu = sqrt(<v_kv, v_kv> - |c|^2),
 * G = S G (Z = V G stays exact), and p->fix = kv: basis_column makes
 * v_kv = (v_kv - V c) / nu in its pass (V untouched if it breaks down, as
 * H and the rotations); p->broke as basis_column */
static int correct(pgmres_work *w, pipe_state *p, int a, int now)
{
    int kv = a - p->depth + 1;
    double *e = dsum(w, a) + a + 2, *cj = ccol(w, kv), ss = 0.0;
    rebase(w, e, kv, a);
    for (int i = 0; i < kv; i++) {
        cj[i] = e[i];
        ss += e[i] * e[i];
    }
    double arg = e[kv] - ss;
    if (!(arg > 0.0) || !isfinite(arg)) {
        p->broke = 1;
        return OVK_OK;
    }
    cj[kv] = sqrt(arg);
    p->fix = kv; /* v_kv = (v_kv - V c) / nu in basis_column's pass over V */
    for (int j = kv; j <= a; j++) { /* G = S G: rows i < kv += c_i row kv, row kv *= nu */
        double *g = gcol(w, j), gk = g[kv];
        for (int i = 0; i < kv; i++) g[i] += cj[i] * gk;
        g[kv] = cj[kv] * gk;
    }
    w->fixed[kv] = now;
    return OVK_OK;
}

/* G's column a + 1 from the sums of step a (in the current basis), and
 * v_{a+1}; p->broke when the square root's argument is not positive or
 * not finite */
static int basis_column(ovk__ctx *c, pgmres_work *w, pipe_state *p, int a)
{
    const double *d = dsum(w, a);
    double *g = gcol(w, a + 1), ss = 0.0, minus[OVK__MAX_RESTART + 1], cm[OVK__MAX_RESTART + 1];
    int kv = first_v(p, a); /* the sums against v end there */
    for (int i = 0; i <= a; i++) {
        double s = d[i];
        if (i > kv) { /* <z_{a+1}, z_i> = sum_{k<=i} g_{k,i} g_{k,a+1} */
            for (int k = 0; k < i; k++) s -= gcol(w, i)[k] * g[k];
            s /= gcol(w, i)[i];
        }
        g[i] = s;
        ss += s * s;
        minus[i] = -s;
    }
    double arg = d[a + 1] - ss; /* ||z_{a+1}||^2 - ||V^T z_{a+1}||^2 */
    if (!(arg > 0.0) || !isfinite(arg)) { /* not finite: the shifts' powers overflowed, or A C z did (gmres says) */
        p->broke = 1;
        return OVK_OK;
    }
    g[a + 1] = sqrt(arg);
    double *v = w->V[a + 1];
    memcpy(v, w->Z[a + 1], sizeof(double) * (size_t)c->n);
    if (p->fix < 0) {
        ovk__gmres_combine(c, a + 1, (const double *const *)w->V, minus, 1.0 / g[a + 1], v); /* (z - V g) / g_{a+1,a+1} */
        return OVK_OK;
    }
    const double *cj = ccol(w, p->fix);
    for (int i = 0; i < p->fix; i++) cm[i] = -cj[i];
    combine2(c, w->V, p->fix, cm, cj[p->fix], a, minus, g[a + 1], v); /* v_fix = (v_fix - V c) / nu, then v_{a+1} */
    p->fix = -1;
    return OVK_OK;
}

/* H's column a from G and the coefficients Z was made with: M z_a in the
 * basis Z, then in V (M V G = V G B) */
static void hessenberg_column(pgmres_work *w, const pipe_state *p, int a)
{
    double *h = hcol(w, a);
    memset(h, 0, sizeof(double) * (size_t)(a + 2));
    if (a < p->depth) { /* M z_a = z_{a+1} + sigma_a z_a */
        for (int i = 0; i <= a + 1; i++) h[i] = gcol(w, a + 1)[i] + (i <= a ? p->sigma[a] * gcol(w, a)[i] : 0.0);
    } else { /* M z_a = sum_k b_k z_{k+l} */
        for (int k = 0; k <= a - p->depth + 1; k++)
            for (int i = 0; i <= k + p->depth; i++) h[i] += bcol(w, a)[k] * gcol(w, k + p->depth)[i];
    }
    for (int k = 0; k < a; k++) /* - sum_{k<a} g_{k,a} h_{:,k} */
        for (int i = 0; i <= k + 1; i++) h[i] -= gcol(w, a)[k] * hcol(w, k)[i];
    for (int i = 0; i <= a + 1; i++) h[i] /= gcol(w, a)[a];
}

/* H's columns from..a again, the rotations of columns lo..a (lo: 0 or a):
 * the residual norm of the least-squares solution */
static double hessenberg(pgmres_work *w, const pipe_state *p, int from, int lo, int a)
{
    double est = 0.0;
    for (int j = from; j <= a; j++) hessenberg_column(w, p, j);
    if (lo == 0) ovk__arnoldi_start(&w->ls, p->beta);
    for (int j = lo; j <= a; j++) {
        memcpy(ovk__arnoldi_column(&w->ls, j), hcol(w, j), sizeof(double) * (size_t)(j + 2));
        est = ovk__arnoldi_rotate(&w->ls, j);
    }
    return est;
}

/* z_{s+1} from u = A C z_s in Z[s+1] (H's column s - l when s >= l, kept
 * in B), and in one reduction its sums against v_0..v_kv and
 * z_{kv+1}..z_{s+1}, with dcgs2 and s >= l those of v_kv against
 * v_0..v_kv */
static int next_z(ovk__ctx *c, pgmres_work *w, const pipe_state *p, int s)
{
    double *z = w->Z[s + 1], coef[OVK__MAX_RESTART + 1];
    const double *X[OVK__MAX_RESTART + 2];
    if (s < p->depth) {
        ovk__ctx_axpy(c, -p->sigma[s], w->Z[s], z); /* (M - sigma_s) z_s */
    } else {
        int a = s - p->depth;
        double *b = bcol(w, s);
        memcpy(b, hcol(w, a), sizeof(double) * (size_t)(a + 2));
        for (int k = 0; k <= a; k++) coef[k] = -b[k];
        ovk__gmres_combine(c, a + 1, (const double *const *)(w->Z + p->depth), coef, 1.0 / b[a + 1],
                           z); /* / h_{a+1,a} */
    }
    int kv = first_v(p, s), k = 0, self = p->orth == OVK__ORTH_DCGS2 && s >= p->depth;
    double *d = dsum(w, s);
    for (int i = self ? kv + 1 : 0; i <= kv; i++) X[k++] = w->V[i];
    for (int i = kv + 1; i <= s + 1; i++) X[k++] = w->Z[i];
    if (self) /* and <v_kv, v_i>, i <= kv, after them: one read of V for both */
        dots2(c, kv + 1, (const double *const *)w->V, z, w->V[kv], d, d + s + 2);
    ovk__gmres_dots(c, k, X, z, d + (self ? kv + 1 : 0));
    return ovk__sum_begin(c, OVK__IPROD, d, s + 2 + (self ? kv + 1 : 0), &w->req[s]);
}

/* at step a + l: wait for step a's sums; v_{a-l+1}'s correction (dcgs2),
 * the column, the rotations, the iteration's check */
static int finish_column(ovk__ctx *c, pgmres_work *w, pipe_state *p, int a, double bb, int iter0, int *stop)
{
    int rc = ovk__sum_end(c, OVK__IPROD, w->req[a]), now = a + p->depth, fixed = 0;
    w->req[a] = NULL;
    if (rc) return rc;
    if (p->orth == OVK__ORTH_DCGS2 && a >= p->depth) {
        rc = correct(w, p, a, now);
        fixed = 1;
    }
    if (!rc && !p->broke) {
        rebase(w, dsum(w, a), first_v(p, a), a); /* z_{a+1}'s sums against the V of now */
        rc = basis_column(c, w, p, a);
    }
    if (rc || p->broke || c->res->reason != OVK_REASON_NONE) {
        *stop = 1;
        return rc;
    }
    int from = fixed ? a - p->depth : a; /* v_kv's correction changed H from column kv - 1 on */
    p->est = hessenberg(w, p, from, fixed ? 0 : a, a);
    p->k = a + 1;
    return ovk__iterate_check(c, iter0 + a + 1, p->est * p->est, bb, stop);
}

/* the pipeline of one cycle from v_0 = r / ||r|| at iteration iter0 */
static int pipeline(ovk__ctx *c, pgmres_work *w, pipe_state *p, double beta, double bb, int iter0)
{
    int rc = OVK_OK, stop = 0;
    ovk__gmres_scale(c, 1.0 / beta, w->r, w->V[0]); /* v_0 = r / ||r|| */
    memcpy(w->Z[0], w->V[0], sizeof(double) * (size_t)c->n); /* z_0 = v_0 */
    memset(w->G, 0, sizeof(double) * (size_t)(w->m + 1) * (size_t)(w->m + 1));
    gcol(w, 0)[0] = 1.0;
    for (int j = 0; j <= w->m; j++) w->fixed[j] = -1;
    p->beta = beta;
    ovk__arnoldi_start(&w->ls, beta);
    for (int s = 0; s < p->columns + p->depth && !rc && !stop; s++) {
        if (s < p->columns) {
            rc = ovk__ctx_pc(c, w->Z[s], w->t); /* t = C z_s */
            if (!rc) rc = ovk__ctx_matvec(c, w->t, w->Z[s + 1]); /* u = A t, behind the sums in flight */
        }
        if (!rc && s >= p->depth) rc = finish_column(c, w, p, s - p->depth, bb, iter0, &stop);
        if (!rc && !stop && s < p->columns) rc = next_z(c, w, p, s);
    }
    for (int s = 0; s < p->columns; s++) /* the sums still in flight after a stop */
        if (w->req[s]) {
            int rc2 = ovk__sum_end(c, OVK__IPROD, w->req[s]);
            w->req[s] = NULL;
            if (!rc) rc = rc2;
        }
    return rc;
}

/* ||I - V^T V||_F of the cycle's k basis vectors, as gmres's orthloss=1
 * (one reduction of k (k + 1) / 2 sums) */
static int measure_loss(ovk__ctx *c, pgmres_work *w, int k)
{
    size_t at = 0;
    for (int i = 0; i < k; i++) { /* <v_j, v_i>, j <= i */
        ovk__gmres_dots(c, i + 1, (const double *const *)w->V, w->V[i], w->gram + at);
        at += (size_t)i + 1;
    }
    int rc = ovk__sum(c, OVK__IPROD, w->gram, (int)at);
    double f = 0.0;
    at = 0;
    for (int i = 0; i < k; i++)
        for (int j = 0; j <= i; j++, at++) {
            double e = j == i ? w->gram[at] - 1.0 : w->gram[at];
            f += (j == i ? 1.0 : 2.0) * e * e;
        }
    w->loss = sqrt(f);
    w->loss_k = k;
    return rc;
}

/* cycles from r = b - A x (||r||^2 = rr) until a stop, or the fallback */
static int run(ovk__ctx *c, pgmres_work *w, double bb)
{
    int iter = 0, stop = 0, rc;
    double rr = c->watch.rnorm0 * c->watch.rnorm0;
    if (c->opts->max_iter <= 0) {
        c->res->reason = OVK_REASON_MAXIT;
        return OVK_OK;
    }
    if (!w->sh.user_shifts && !w->sh.estimated) { /* a short classical cycle for the Ritz values */
        int m = estimate_steps(w->m);
        ovk__gmres_cycle cy = {.ls = &w->ls, .V = w->V, .t = w->t, .r = w->r, .undo_rises = 1};
        rc = ovk__gmres_cycle_run(c, &cy, m, bb, &rr, w->H, &stop);
        if (rc) return rc;
        if (cy.k > 0) estimate(c, w, cy.k, m + 1);
        if (cy.k > 0 && c->opts->print_level >= 1 && c->rank == 0)
            pgmres_view(w, c->opts->out ? c->opts->out : stdout);
        if (stop) return OVK_OK;
        iter = cy.iter;
    }
    for (;;) {
        int left = c->opts->max_iter - iter;
        pipe_state p = {.depth = w->l, .sigma = w->sh.sigma, .orth = w->orth, .fix = -1, .columns = left < w->m ? left : w->m};
        rc = pipeline(c, w, &p, sqrt(rr), bb, iter);
        if (!rc && w->orthloss && p.k > 0) rc = measure_loss(c, w, p.k);
        if (rc) return rc;
        iter += p.k;
        ovk__gmres_cycle cy = {.ls = &w->ls, .V = w->V, .t = w->t, .r = w->r, .k = p.k, .iter = iter, .undo_rises = 1};
        rc = ovk__gmres_cycle_end(c, &cy, bb, &rr, &stop); /* x from the columns done, b - A x */
        if (rc || stop) return rc;
        if (p.broke || sqrt(rr) > LOST * p.est || cy.reverted) break; /* the basis broke down or lost accuracy */
    }
    c->res->restarts++;
    return ovk__variant_resume(c, ovk__solver_find(FALLBACK), &w->fallback, bb, iter);
}

static int pgmres_iterate(ovk__ctx *c, void *work, double bb)
{
    pgmres_work *w = work;
    if (w->sh.estimated && w->sh.epoch != c->norms.epoch) w->sh.estimated = 0; /* new values: estimate again */
    return run(c, w, bb);
}

/* pgmres's spec: gmres's layout first, read by the fallback (gmres at its
 * default orth, no orthloss), then pgmres's own basis keys */
typedef struct pgmres_params {
    ovk__gmres_params base;
    int orth, orthloss;
} pgmres_params;

static int pgmres_parse(ovk__opts *o, void **params)
{
    ovk__gmres_params *g = NULL;
    int rc = ovk__gmres_parse(o, "pgmres", 1, MAX_L, &g);
    pgmres_params *p = calloc(1, sizeof *p);
    *params = p;
    if (p && g) {
        p->base = *g;
        p->orth = OVK__ORTH_CGS; /* dcgs2 only when asked: see the head comment */
        for (int i = 0; i < o->n; i++)
            if (strcmp(o->kv[i].key, "orth") == 0) p->orth = g->orth;
        p->orthloss = (int)g->orthloss;
        p->base.orth = OVK__ORTH_DCGS2;
        p->base.orthloss = 0;
    }
    free(g);
    if (!rc && !p) rc = ovk__fail(OVK_ENOMEM, "pgmres's options");
    return rc;
}

/* r, t, V[0..M], Z[0..M] */
static int pgmres_vectors(const void *params, size_t *vec)
{
    int m = (int)((const ovk__gmres_params *)params)->restart, k = 0;
    if (!vec) return 2 * m + 4;
    vec[k++] = offsetof(pgmres_work, r);
    vec[k++] = offsetof(pgmres_work, t);
    for (int i = 0; i <= m; i++) vec[k++] = offsetof(pgmres_work, V) + sizeof(double *) * (size_t)i;
    for (int i = 0; i <= m; i++) vec[k++] = offsetof(pgmres_work, Z) + sizeof(double *) * (size_t)i;
    return k;
}

static int pgmres_setup(ovk__ctx *c, void *work)
{
    const ovk__gmres_params *pp = c->params;
    const pgmres_params *own = c->params;
    pgmres_work *w = work;
    size_t m = (size_t)pp->restart;
    w->m = (int)m;
    w->l = (int)pp->l;
    w->sh.user_shifts = pp->user_shifts;
    w->sh.lmin = pp->lmin;
    w->sh.lmax = pp->lmax;
    w->orth = own->orth;
    w->orthloss = own->orthloss;
    if (w->sh.user_shifts) shifts(w);
    /* G, H, D, B, C, ritz */
    w->G = malloc(sizeof(double) * (2 * (m + 1) * (m + 1) + (m + 1) * m * 4 + m * m + 3 * m));
    w->req = calloc(m, sizeof *w->req);
    w->fixed = calloc(m + 1, sizeof *w->fixed);
    if (w->orthloss) w->gram = malloc(sizeof(double) * m * (m + 1) / 2);
    if (!w->G || !w->req || !w->fixed || (w->orthloss && !w->gram))
        return ovk__fail(OVK_ENOMEM, "pgmres's Gram and Hessenberg matrices of restart %d", w->m);
    w->H = w->G + (m + 1) * (m + 1);
    w->D = w->H + (m + 1) * m;
    w->B = w->D + 2 * m * (m + 1);
    w->C = w->B + m * (m + 1);
    w->ritz = w->C + (m + 1) * (m + 1);
    return ovk__arnoldi_alloc(&w->ls, w->m);
}

static void pgmres_destroy(void *work)
{
    pgmres_work *w = work;
    ovk__arnoldi_free(&w->ls);
    free(w->G);
    free(w->req);
    free(w->fixed);
    free(w->gram);
    ovk__variant_free(&w->fallback);
}

const ovk__solver_ops ovk__solver_pgmres = {
    .caps = OVK__CAP_NONSYMMETRIC,
    .work_size = sizeof(pgmres_work), .vectors = pgmres_vectors,
    .parse = pgmres_parse, .setup = pgmres_setup, .destroy = pgmres_destroy, .view = pgmres_view,
    .iterate = pgmres_iterate, .estimate_steps = estimate_steps,
};
