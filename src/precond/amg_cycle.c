/* The amg preconditioner's own V-cycle (amg:cycle=ovk) over a hierarchy
 * read through amg_levels.h (hypre's BoomerAMG's, or setup=agg's): its
 * builder chooses the coarse grids, builds the interpolations P_l and the
 * Galerkin products A_{l+1} = P_l^T A_l P_l; the cycle takes each A_l
 * (l >= 1) in our matrix format (its diag block
 * symmetric, one triangle kept and 16-bit offsets where the matrix layer
 * picks them: about half the bytes of ParCSR per product) and runs the
 * cycle with our kernels, which call the progress hook:
 *
 *   V(l, b):  x = S_l(0, b)                      pre-smoothing from zero
 *             r = b - A_l x                       (the smoother's last product)
 *             x += P_l V(l+1, P_l^T r)            coarse correction
 *             x = S_l(x, b)                       post-smoothing, the same S_l
 *   V(L-1, b) = the coarsest level's dense LU solve (amg_coarse.c; for a
 *               singular A COARSE_SWEEPS l1-Jacobi sweeps from zero)
 *
 * With corr = c != 1 (amg:agg_corr, for unsmoothed aggregation, whose
 * piecewise-constant P makes coarse corrections too small; Vanek's and
 * Notay's over-correction) the correction is x += c P_l V(l+1, P_l^T r),
 * c taken into the restriction's factor: still linear and symmetric, and for
 * c < 2 the two-grid error I - c P A_c^-1 P^T A has no eigenvalue |lambda| > 1.
 *
 * S_l is `degree` steps of Chebyshev iteration on D_l^-1 A_l, D_l the l1 row
 * norms (d_i = sum_j |a_ij|, so the spectrum of D_l^-1 A_l lies in (0, 1]),
 * on the interval [emax / ratio, emax], emax from a few Lanczos steps on
 * D_l^-1/2 A_l D_l^-1/2 (1.1 times the largest Ritz value, or that value
 * plus its residual's size when more; at most 1); or (smoother=l1jacobi)
 * `sweeps` steps of x += D_l^-1 (b - A_l x), which need no estimate.  A
 * polynomial smoother is symmetric in the A_l inner product, and the same
 * one runs before and after the coarse correction: the cycle is a symmetric
 * operator, positive definite while the smoother's error polynomial stays
 * below 1 in magnitude on the spectrum: always for l1-Jacobi (spectrum in
 * (0, 1]); for Chebyshev of degree 2 on [emax/4, emax] up to a largest
 * eigenvalue of about 1.3 emax, i.e. a Rayleigh quotient within 30 % of it
 * (a smooth start and EST_STEPS Lanczos steps: no failure seen in tests).
 *
 * With single (amg:precision=single) the levels l >= 1 are rounded to
 * float (the matrix layer then stores 4 bytes a value) and P_l and P_l^T
 * are our copies of hypre's P_l with float weights (amg_transfer.c, its
 * own halo plan); level 0 is the solver's matrix as it is, and vectors stay
 * double.  The cycle is still symmetric (the rounded A_l are, and the
 * restriction is the exact transpose of the interpolation).  Otherwise the
 * copies keep double weights.  No reduction but the coarsest solve's gather.
 *
 * apply_many runs the cycle on k systems at once: each level's products
 * one multi-vector product (A_l read once for all k), the transfers
 * reading P_l once for all k, the smoother's vector steps and the
 * coarsest solve system by system; each system's
 * operations are those of its single cycle, so its z is bitwise apply's.
 *
 * With amg's scaled reuse (ovk__amg_cycle_scale) level 0's transfers are
 * those of S^-1 P_0 (S diagonal): the restriction P_0^T S^-1 res, the
 * interpolation x += S^-1 P_0 x_1, as weights of P_0 scaled by row once a
 * value update (the copy's, from hypre's P_0 as set up, which stays), so
 * that the cycle does no more work for them.
 *
 * A refresh (amg.c's reuse: new A_l on the kept P_l, or level 0's new values
 * only) keeps each level's storage and halo plan and takes only the new
 * values (the matrix layer's value update, which refuses another pattern:
 * then the caller sets up anew), the l1 norms, and emax from EST_STEPS_WARM
 * power steps started from the last estimate's Ritz vector (or iterate)
 * instead of anew; or (ovk__amg_cycle_refresh_bound, level 0 only) the l1
 * norms the caller summed in its own pass over the values and emax bounded
 * from the setup's estimate, no product. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg_levels.h"

/* Lanczos steps (products) of the smoother's estimate, more for a
 * singular A (a declared null space).  The largest Ritz value is the
 * largest Rayleigh quotient on the Krylov space, so at least the power
 * iteration's quotient with as many products from the same start. */
enum { EST_STEPS = 6, EST_STEPS_SINGULAR = 10 };
/* Power steps of a refresh, from the last estimate's Ritz vector or
 * iterate: close to the dominant eigenvector of the old operator.  The
 * Rayleigh quotients of power iterates on a positive semidefinite operator do not decrease, and
 * each is a bound from below: a warm start can only be nearer the largest
 * eigenvalue than the same steps from the fixed start; the safety factor
 * and the cap at 1 stay as they are.  One step: the iterate carries every
 * earlier refresh's steps, values within reuse_tol of the full setup's
 * move the quotient by about as much, and the cycle stays SPD up to about
 * 1.25 emax (degree 1; 1.3 at degree 2). */
enum { EST_STEPS_WARM = 1, EST_STEPS_WARM_SINGULAR = 12 };
/* A refresh of level 0 from the caller's l1 norms takes the bound
 * emax0 rho + gamma (ovk__amg_cycle_refresh_bound) instead of a power
 * step while it is at most BOUND_SLACK times the setup's emax0: a pure
 * diagonal scaling gives rho = max_i s_i / (the l1-weighted mean of its
 * neighbours' s_j), gamma = 0, so this admits scalings that vary by up to
 * that much between neighbours; past it a power step estimates (a looser
 * bound would weaken the smoothing more than a step costs) */
#define BOUND_SLACK 1.1
/* A singular coarsest level (a declared null space): a direct solve
 * returns a part that does not scale with the right-hand side (on the pure
 * Neumann Laplacian CG broke down near convergence);
 * l1-Jacobi sweeps from zero are linear, symmetric and bounded. */
enum { COARSE_SWEEPS = 2 };
#define EMAX_SAFETY 1.1

typedef struct level {
    ovk_matrix *A;        /* level 0: the solver's matrix (borrowed) */
    int owns_A;
    int n;
    double *dinv;         /* 1 / l1 row norm */
    double *res, *d, *t;  /* residual b - A x, Chebyshev direction, A d */
    double *dom;          /* the estimate's Ritz vector or last power iterate (NULL: no estimate on the level) */
    double *x, *b;        /* l >= 1: the level's iterate and right-hand side */
    ovk__amg_transfer *tr; /* our copy of P_l (float weights for single) */
    ovk__amg_coarse *lu;   /* the coarsest level (not singular): its dense factors */
    double emax, emin;
    double emax0;          /* emax of the setup that built the level (a refresh's derived bound starts from it) */
} level;

struct ovk__amg_cycle {
    int nlev;
    level *lev;
    ovk__amg_levels src; /* the hierarchy the levels were made of */
    int degree, jacobi;
    double ratio;
    double corr; /* the coarse correction's factor (over-correction of unsmoothed aggregation) */
    int single; /* the levels l >= 1 hold float values */
    int scale_exp; /* the levels l >= 1 are of 2^-scale_exp A's hierarchy */
    int scaled;    /* level 0's transfers are those of diag(w) P_0 (ovk__amg_cycle_scale) */
    int coarse_sweeps; /* a singular A: l1-Jacobi sweeps on the coarsest level, not the dense solve */
    /* apply_many's room for kcap systems: each level's vectors in `many`,
     * their pointers in `rows`, each level's multi-vector product scratch */
    int kcap;
    double *many, **rows;
    ovk__multi_scratch *ms;
};

static void free_many(ovk__amg_cycle *c);

/* ---- the smoother -------------------------------------------------------- */

/* local: dinv = 1 / dinv in place (the l1 norms of the rows; 0 for 0),
 * failing on a non-finite norm (a NaN or infinite entry) */
static int invert_l1(double *dinv, int n)
{
    for (int i = 0; i < n; i++) {
        if (!(dinv[i] >= 0.0) || isinf(dinv[i]))
            return ovk__fail(OVK_EPRECOND, "amg: hypre's hierarchy has a non-finite row on a level (local row %d of %d)", i, n);
        dinv[i] = dinv[i] > 0.0 ? 1.0 / dinv[i] : 0.0;
    }
    return OVK_OK;
}

/* local: dinv = 1 / (l1 norm of each row); 0 for an empty row, which a
 * coarse level has where hypre's interpolation left a coarse unknown
 * without fine support (a zero column of P: GM interpolation truncated by
 * qmax, say): A_l = P^T A P is zero in its row and column, the unknown
 * couples to nothing and the smoother leaves it alone, as hypre's own do.
 * A NaN row fails. */
static int l1_inverse(const ovk_matrix *A, double *dinv)
{
    const ovk__csr *d = &A->diag, *o = &A->offd;
    int n = A->lay.nlocal;
    for (int i = 0; i < n; i++) dinv[i] = 0.0;
    for (int i = 0; i < n; i++) {
        double row = 0.0; /* row i's stored entries, summed apart from the a_ji scattered below */
        for (int k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
            double v = fabs(d->val[k]);
            row += v;
            int j = ovk__csr_col(d, i, k);
            if (d->upper && j != i) dinv[j] += v; /* a_ji, not stored (j > i) */
        }
        for (int k = o->rowptr[i]; k < o->rowptr[i + 1]; k++) row += fabs(o->val[k]);
        dinv[i] += row;
    }
    return invert_l1(dinv, n);
}

/* Collective: v[0, n) summed over the ranks in place */
static int sum_over(MPI_Comm comm, double *v, int n)
{
    return ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce (amg estimate)");
}

/* Collective: emax of D^-1 A from `steps` power steps from the last
 * estimate's iterate L->dom (a refresh): the Rayleigh quotient
 * <x, A x> / <x, D x>, a bound from below, times EMAX_SAFETY, at most 1
 * (the l1 bound); L->dom is the last iterate. */
static int estimate_warm(level *L, MPI_Comm comm, int steps)
{
    int n = L->n;
    double *x = L->dom, *y = L->t, q = 1.0;
    for (int s = 0; s < steps; s++) {
        int rc = ovk__matvec(L->A, x, y, NULL);
        if (rc) return rc;
        double v[2] = {0.0, 0.0};
        for (int i = 0; i < n; i++) {
            v[0] += x[i] * y[i];
            if (L->dinv[i] > 0.0) v[1] += x[i] * (x[i] / L->dinv[i]); /* an empty row: no part in D (x_i^2 alone overflows first far from unit scale) */
        }
        rc = sum_over(comm, v, 2);
        if (rc) return rc;
        q = v[1] > 0.0 ? v[0] / v[1] : 1.0;
        double scale = v[1] > 0.0 ? 1.0 / sqrt(v[1]) : 1.0; /* x_{k+1} = D^-1 A x_k / ||x_k||_D */
        for (int i = 0; i < n; i++) x[i] = scale * (L->dinv[i] * y[i]);
    }
    L->emax = fmin(1.0, EMAX_SAFETY * q);
    return OVK_OK;
}

/* the number of eigenvalues of the k x k tridiagonal T (diagonal a,
 * off-diagonal b) below x (Sturm sequence of T - x I) */
static int sturm_below(const double *a, const double *b, int k, double x)
{
    int count = 0;
    double q = 1.0;
    for (int j = 0; j < k; j++) {
        q = a[j] - x - (j > 0 ? b[j - 1] * b[j - 1] / q : 0.0);
        if (q == 0.0) q = -DBL_EPSILON * (fabs(a[j]) + fabs(x) + DBL_MIN);
        count += q < 0.0;
    }
    return count;
}

/* y = (T - sigma I)^-1 y for sigma above T's spectrum: T - sigma I is
 * negative definite, so elimination without pivoting is stable (c: k
 * scratch values) */
static void shifted_solve(const double *a, const double *b, int k, double sigma, double *c, double *y)
{
    double p = a[0] - sigma;
    c[0] = 0.0;
    y[0] /= p;
    for (int j = 1; j < k; j++) { /* forward: row j minus b_{j-1} / p times row j - 1 */
        c[j] = b[j - 1] / p;
        p = a[j] - sigma - b[j - 1] * c[j];
        y[j] = (y[j] - b[j - 1] * y[j - 1]) / p;
    }
    for (int j = k - 2; j >= 0; j--) y[j] -= c[j + 1] * y[j + 1];
}

/* T's largest eigenvalue (bisection on Gershgorin's interval) and its unit
 * eigenvector y[0, k) by inverse iteration just above it (T of diagonal a,
 * off-diagonal b) */
static double ritz_max(const double *a, const double *b, int k, double *y)
{
    double lo = a[0], hi = a[0], c[EST_STEPS_SINGULAR];
    for (int j = 0; j < k; j++) {
        double r = (j > 0 ? fabs(b[j - 1]) : 0.0) + (j + 1 < k ? fabs(b[j]) : 0.0);
        lo = fmin(lo, a[j] - r), hi = fmax(hi, a[j] + r);
    }
    double width = hi - lo;
    for (int it = 0; it < 200 && hi - lo > 4.0 * DBL_EPSILON * fmax(fabs(lo), fabs(hi)); it++) {
        double mid = 0.5 * (lo + hi);
        if (sturm_below(a, b, k, mid) < k) lo = mid; /* an eigenvalue at or above mid */
        else hi = mid;
    }
    double sigma = hi + fmax(1e-10 * width, 8.0 * DBL_EPSILON * fabs(hi)) + DBL_MIN; /* strictly above */
    for (int j = 0; j < k; j++) y[j] = 1.0;
    for (int it = 0; it < 3 && k > 1; it++) {
        shifted_solve(a, b, k, sigma, c, y);
        double norm = 0.0;
        for (int j = 0; j < k; j++) norm += y[j] * y[j];
        if (!(norm > 0.0) || !isfinite(norm)) { /* no vector: the last basis vector, the largest residual bound */
            for (int j = 0; j < k; j++) y[j] = j == k - 1 ? 1.0 : 0.0;
            break;
        }
        for (int j = 0; j < k; j++) y[j] /= sqrt(norm);
    }
    return hi;
}

/* w = S A S v (S = D^-1/2; L->d and L->t scratch) and the rank's part of
 * v.w, w.w and u.w (u the previous basis vector) */
static int lanczos_product(level *L, const double *s, const double *v, const double *u, double *w, double *sums)
{
    int n = L->n;
    for (int i = 0; i < n; i++) L->d[i] = s[i] * v[i];
    int rc = ovk__matvec(L->A, L->d, L->t, NULL);
    if (rc) return rc;
    sums[0] = sums[1] = sums[2] = 0.0;
    for (int i = 0; i < n; i++) {
        w[i] = s[i] * L->t[i];
        sums[0] += v[i] * w[i], sums[1] += w[i] * w[i], sums[2] += u ? u[i] * w[i] : 0.0;
    }
    return OVK_OK;
}

/* Collective: the Lanczos basis V[0..] of D^-1/2 A D^-1/2 (s = the square
 * roots of dinv) from the fixed smooth start, for up to `steps` products,
 * two reductions each (v.w, u.w and w.w with u the previous basis vector;
 * then the norm of w - alpha v - gamma u, summed itself: the difference of
 * the squares cancels where the space is nearly invariant); T's diagonal a
 * and off-diagonal b, its size in *k (fewer steps when the space is
 * invariant), and b[k - 1] the residual's size. */
static int lanczos(level *L, MPI_Comm comm, const double *s, double *V, int steps, double *a, double *b, int *k)
{
    int n = L->n;
    double sums[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < n; i++) {
        double x0 = 1.0 + 0.5 * sin(1.0 + (double)(L->A->lay.row_start + i)); /* in x = S u */
        V[i] = s[i] > 0.0 ? x0 / s[i] : 0.0;
        sums[0] += V[i] * V[i];
    }
    int rc = sum_over(comm, sums, 1);
    *k = 0;
    if (rc || !(sums[0] > 0.0)) return rc; /* no row: nothing to estimate */
    for (int i = 0; i < n; i++) V[i] /= sqrt(sums[0]);
    for (int j = 0; j < steps; j++) {
        double *v = V + (size_t)j * n, *u = j > 0 ? v - n : NULL, *w = v + n;
        rc = lanczos_product(L, s, v, u, w, sums);
        if (!rc) rc = sum_over(comm, sums, 3);
        if (rc) return rc;
        double alpha = sums[0], gamma = u ? sums[2] : 0.0, wnorm2 = sums[1], beta2 = 0.0;
        for (int i = 0; i < n; i++) { /* w -= alpha v + gamma u */
            w[i] -= alpha * v[i] + (u ? gamma * u[i] : 0.0);
            beta2 += w[i] * w[i];
        }
        rc = sum_over(comm, &beta2, 1);
        if (rc) return rc;
        a[j] = alpha, *k = j + 1;
        b[j] = beta2 > 1e-20 * wnorm2 ? sqrt(beta2) : 0.0; /* else: an invariant space, T's spectrum is exact */
        if (b[j] == 0.0) return OVK_OK;
        for (int i = 0; i < n; i++) w[i] /= b[j];
    }
    return OVK_OK;
}

/* Collective: emax of D^-1 A (spectrum in (0, 1]) from `steps` Lanczos
 * steps on the symmetric D^-1/2 A D^-1/2 from a fixed smooth start: the
 * largest Ritz value theta, the largest Rayleigh quotient on the Krylov
 * space (so at least the power iteration's quotient after as many
 * products), raised to theta + its residual's size when that is more than
 * EMAX_SAFETY theta (an estimate that has not converged), at most 1 (the
 * l1 bound).  L->dom = the Ritz vector in x = D^-1/2 u, the start of a
 * refresh's power steps. */
static int estimate(level *L, MPI_Comm comm, int steps)
{
    int n = L->n, k = 0;
    double *V = malloc(sizeof(double) * ((size_t)n * (size_t)(steps + 1) + 1)), *s = L->res;
    double a[EST_STEPS_SINGULAR], b[EST_STEPS_SINGULAR], y[EST_STEPS_SINGULAR]; /* steps <= EST_STEPS_SINGULAR */
    int rc = V ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg: the estimate's %d vectors of %d rows", steps + 1, n);
    rc = ovk__agree(comm, rc);
    if (rc) goto cleanup;
    for (int i = 0; i < n; i++) s[i] = sqrt(L->dinv[i]);
    rc = lanczos(L, comm, s, V, steps, a, b, &k);
    if (rc || k == 0) { /* no row on any rank: the l1 bound; a refresh starts from zero */
        L->emax = 1.0;
        for (int i = 0; i < n; i++) L->dom[i] = 0.0;
        goto cleanup;
    }
    double theta = ritz_max(a, b, k, y), resid = b[k - 1] * fabs(y[k - 1]);
    L->emax = fmin(1.0, fmax(EMAX_SAFETY * theta, theta + resid));
    for (int i = 0; i < n; i++) { /* dom = S sum_j y_j v_j */
        double u = 0.0;
        for (int j = 0; j < k; j++) u += y[j] * V[(size_t)j * n + i];
        L->dom[i] = s[i] * u;
    }
cleanup:
    free(V);
    return rc;
}

/* The vectors of k systems on one level: k = 1 the level's own (its
 * products ovk__matvec), else apply_many's (one multi-vector product). */
typedef struct sysvecs {
    int k;
    double *const *res, *const *d, *const *t; /* b - A x, Chebyshev direction, A d */
    double *const *x, *const *b;              /* l >= 1: the level's unknowns and right-hand sides */
    ovk__multi_scratch *ms;                   /* NULL: k = 1 */
} sysvecs;

/* Y[j] = A_l X[j] for the k systems */
static int product(const level *L, const sysvecs *v, double *const *X, double *const *Y, const ovk__hook *h)
{
    if (!v->ms) return ovk__matvec(L->A, X[0], Y[0], h);
    return ovk__matvec_multi_with(L->A, v->k, (const double *const *)X, Y, NULL, h, v->ms);
}

/* res -= A d (t = A d) */
static int update_residual(const level *L, const sysvecs *v, const ovk__hook *h)
{
    int rc = product(L, v, v->d, v->t, h);
    for (int j = 0; j < v->k && !rc; j++) ovk__axpy(L->n, -1.0, v->t[j], v->res[j], h);
    return rc;
}

/* the first step from x = 0 (res = b): x = c D^-1 b, and d = x when keep */
static void first_step_zero(const level *L, double c, const double *b, double *x, double *restrict d, int keep,
                            const ovk__hook *h)
{
    const double *restrict dinv = L->dinv;
    int n = L->n, step = ovk__chunk_rows(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        if (keep)
            for (int i = lo; i < hi; i++) x[i] = d[i] = c * dinv[i] * b[i];
        else
            for (int i = lo; i < hi; i++) x[i] = c * dinv[i] * b[i];
        ovk__poke(h);
    }
}

/* system j's first step from x with t = A x: res = b - t, d = c D^-1 res,
 * x += d in one pass; res and d stored when keep */
static void first_step(const level *L, const sysvecs *v, int j, double c, const double *b, double *x, int keep,
                       const ovk__hook *h)
{
    const double *restrict dinv = L->dinv, *restrict t = v->t[j];
    double *restrict res = v->res[j], *restrict d = v->d[j];
    int n = L->n, step = ovk__chunk_rows(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        if (keep)
            for (int i = lo; i < hi; i++) {
                res[i] = b[i] - t[i];
                d[i] = c * dinv[i] * res[i];
                x[i] += d[i];
            }
        else
            for (int i = lo; i < hi; i++) x[i] += c * dinv[i] * (b[i] - t[i]);
        ovk__poke(h);
    }
}

/* d = c1 d + c2 D^-1 res; x += d */
static void next_step(const level *L, double c1, double c2, const double *res, double *d, double *x,
                      const ovk__hook *h)
{
    int n = L->n, step = ovk__chunk_rows(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) {
            double di = c1 * d[i] + c2 * L->dinv[i] * res[i];
            d[i] = di;
            x[i] += di;
        }
        ovk__poke(h);
    }
}

/* the first step on the k systems: from x = 0 (from_zero) or from x;
 * res = b - A x after it when more */
static int first_steps(const level *L, const sysvecs *v, double c, int keep_d, int more, const double *const *b,
                       double *const *x, int from_zero, const ovk__hook *h)
{
    int rc = OVK_OK;
    if (from_zero) {
        for (int j = 0; j < v->k; j++) first_step_zero(L, c, b[j], x[j], v->d[j], keep_d, h);
        if (more) rc = product(L, v, x, v->t, h); /* res = b - A d, d = x */
        for (int j = 0; j < v->k && more && !rc; j++) ovk__zxpby(L->n, b[j], -1.0, v->t[j], v->res[j], h);
        return rc;
    }
    rc = product(L, v, x, v->t, h);
    for (int j = 0; j < v->k && !rc; j++) first_step(L, v, j, c, b[j], x[j], more, h);
    if (more && !rc) rc = update_residual(L, v, h);
    return rc;
}

/* `degree` Chebyshev steps on D^-1 A x = D^-1 b from x (from_zero: from
 * x = 0, whatever x holds) for each of v's systems, and on exit res = b -
 * A x when want_res (Saad, Alg. 12.1, in residual form); jacobi: every
 * step x += D^-1 res (l1-Jacobi sweeps).  The first step takes b - A x in
 * the same pass as its update (from zero: b), so that res and d are
 * stored only when a step or the caller reads them.  Each system's steps
 * are the same operations whatever k. */
static int smooth(const level *L, const sysvecs *v, int degree, int jacobi, const double *const *b, double *const *x,
                  int from_zero, int want_res, const ovk__hook *h)
{
    double theta = 0.5 * (L->emax + L->emin), delta = 0.5 * (L->emax - L->emin);
    double sigma = delta > 0.0 ? theta / delta : 0.0, rho = sigma > 0.0 ? 1.0 / sigma : 0.0;
    int rc = first_steps(L, v, 1.0 / theta, degree > 1, degree > 1 || want_res, b, x, from_zero, h);
    for (int s = 1; s < degree && !rc; s++) {
        double c1 = 0.0, c2 = 1.0 / theta;
        if (!jacobi) {
            double rho1 = 1.0 / (2.0 * sigma - rho);
            c1 = rho1 * rho, c2 = 2.0 * rho1 / delta;
            rho = rho1;
        }
        for (int j = 0; j < v->k; j++) next_step(L, c1, c2, v->res[j], v->d[j], x[j], h);
        if (s == degree - 1 && !want_res) break;
        rc = update_residual(L, v, h);
    }
    return rc;
}

/* ---- setup ---------------------------------------------------------------- */

static int alloc_level(level *L, int n, int coarse)
{
    L->n = n;
    double **v[] = {&L->dinv, &L->res, &L->d, &L->t, &L->x, &L->b};
    for (int k = 0; k < (coarse ? 6 : 4); k++) {
        int rc = ovk__pc_alloc(n, "amg cycle", v[k]);
        if (rc) return rc;
    }
    return OVK_OK;
}

void ovk__amg_cycle_free(ovk__amg_cycle *c)
{
    if (!c) return;
    for (int l = 0; l < c->nlev; l++) {
        level *L = &c->lev[l];
        if (L->owns_A) ovk_matrix_destroy(L->A);
        free(L->dinv), free(L->res), free(L->d), free(L->t), free(L->dom), free(L->x), free(L->b);
        ovk__amg_transfer_free(L->tr);
        ovk__amg_coarse_free(L->lu);
    }
    free_many(c);
    free(c->lev);
    free(c);
}

/* Collective: level l of the cycle from the hierarchy's level l. */
static int make_level(ovk__amg_cycle *c, int l, const ovk_matrix *A0, MPI_Comm comm)
{
    level *L = &c->lev[l];
    const ovk__amg_levels *s = &c->src;
    int rc;
    if (l == 0) {
        L->A = (ovk_matrix *)A0; /* not changed: owns_A = 0 */
    } else {
        rc = s->matrix(s->ctx, comm, l, c->single, &L->A);
        if (rc) return rc;
        L->owns_A = 1;
    }
    rc = ovk__agree(comm, alloc_level(L, L->A->lay.nlocal, l > 0));
    int coarsest = l == c->nlev - 1;
    if (!rc && coarsest && !c->coarse_sweeps) rc = s->coarse(s->ctx, comm, l, &L->lu);
    if (rc || (coarsest && !c->coarse_sweeps)) return rc; /* the coarsest level: the dense solve */
    rc = ovk__agree(comm, l1_inverse(L->A, L->dinv));
    if (rc) return rc;
    if (coarsest || c->jacobi) {
        L->emax = L->emin = 1.0; /* x += D^-1 res: no estimate */
    } else {
        rc = ovk__agree(comm, ovk__pc_alloc(L->n, "amg cycle", &L->dom));
        if (!rc) rc = ovk__agree(comm, estimate(L, comm, c->coarse_sweeps ? EST_STEPS_SINGULAR : EST_STEPS));
        if (rc) return rc;
        L->emin = L->emax / c->ratio;
        L->emax0 = L->emax;
    }
    if (coarsest) return OVK_OK;
    ovk__amg_prows p;
    ovk_gidx *cmap = NULL;
    rc = ovk__agree(comm, s->prows(s->ctx, l, &p, &cmap));
    if (!rc) rc = ovk__amg_transfer_make(comm, &p, c->single, &L->tr);
    free(cmap);
    return rc;
}

int ovk__amg_cycle_setup(const ovk__amg_levels *lv, const ovk_matrix *A, MPI_Comm comm, const ovk__amg_cycle_opts *o,
                         ovk__amg_cycle **out)
{
    *out = NULL;
    ovk__amg_cycle *c = calloc(1, sizeof *c);
    int nlev = lv->nlev;
    if (c) c->lev = calloc((size_t)(nlev > 0 ? nlev : 1), sizeof(level));
    int rc = c && c->lev ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg cycle");
    rc = ovk__agree(comm, rc);
    if (rc) goto cleanup;
    c->src = *lv, c->degree = o->degree, c->jacobi = o->jacobi, c->ratio = o->ratio, c->single = o->single;
    c->corr = o->corr > 0.0 ? o->corr : 1.0;
    c->nlev = nlev; /* the levels not made yet are zero: freed as such */
    if (lv->sweeps) c->coarse_sweeps = COARSE_SWEEPS; /* a singular coarsest level */
    for (int l = 0; l < nlev; l++) {
        rc = make_level(c, l, A, comm);
        if (rc) goto cleanup;
    }
    *out = c;
    c = NULL;
cleanup:
    ovk__amg_cycle_free(c);
    return rc;
}

/* Collective: level l's smoother on its matrix's current values. */
static int refresh_smoother(ovk__amg_cycle *c, level *L, MPI_Comm comm)
{
    int rc = ovk__agree(comm, l1_inverse(L->A, L->dinv));
    if (rc || !L->dom) return rc; /* l1-Jacobi or the coarsest level: no estimate */
    rc = ovk__agree(comm, estimate_warm(L, comm, c->coarse_sweeps ? EST_STEPS_WARM_SINGULAR : EST_STEPS_WARM));
    L->emin = L->emax / c->ratio;
    return rc;
}

int ovk__amg_cycle_refresh(ovk__amg_cycle *c, MPI_Comm comm)
{
    for (int l = 1; l < c->nlev; l++) {
        int rc = c->src.values(c->src.ctx, comm, l, c->single, c->lev[l].A);
        if (rc) return rc;
    }
    level *C = &c->lev[c->nlev - 1];
    if (C->lu) { /* the coarsest level's factors of its new values */
        ovk__amg_coarse_free(C->lu);
        C->lu = NULL;
        int rc = c->src.coarse(c->src.ctx, comm, c->nlev - 1, &C->lu);
        if (rc) return rc;
    }
    int smoothed = c->coarse_sweeps ? c->nlev : c->nlev - 1; /* the coarsest: the dense solve, or sweeps */
    for (int l = 0; l < smoothed; l++) {
        int rc = refresh_smoother(c, &c->lev[l], comm);
        if (rc) return rc;
    }
    return OVK_OK;
}

int ovk__amg_cycle_refresh_bound(ovk__amg_cycle *c, MPI_Comm comm, const double *l1, double rho, double gamma,
                                 int *derived)
{
    level *L = &c->lev[0];
    *derived = 0;
    if (L->n) memcpy(L->dinv, l1, sizeof(double) * (size_t)L->n);
    int rc = ovk__agree(comm, invert_l1(L->dinv, L->n));
    if (rc || !L->dom) return rc; /* l1-Jacobi or a single level: no estimate */
    double bound = L->emax0 * rho + gamma; /* emax(D^-1 A) <= emax0 rho + gamma */
    if (bound <= BOUND_SLACK * L->emax0) {
        L->emax = fmin(1.0, bound);
        *derived = 1;
    } else {
        rc = ovk__agree(comm, estimate_warm(L, comm, c->coarse_sweeps ? EST_STEPS_WARM_SINGULAR : EST_STEPS_WARM));
    }
    L->emin = L->emax / c->ratio;
    return rc;
}

double ovk__amg_cycle_emax(const ovk__amg_cycle *c) { return c->nlev > 1 && c->lev[0].dom ? c->lev[0].emax : 0.0; }

int ovk__amg_cycle_scale(ovk__amg_cycle *c, MPI_Comm comm, const double *w)
{
    level *L = &c->lev[0];
    if ((!w && !c->scaled) || c->nlev < 2) return OVK_OK;
    /* the room first, agreed: a failure leaves every rank's P_0 as it was */
    int rc = ovk__agree(comm, ovk__amg_transfer_scale_room(L->tr));
    if (rc) return rc;
    ovk__amg_prows p;
    c->src.prows(c->src.ctx, 0, &p, NULL);
    ovk__amg_transfer_scale(L->tr, &p, w); /* the hierarchy's P_0 stays as set up */
    c->scaled = w != NULL;
    return OVK_OK;
}

/* ---- the cycle ------------------------------------------------------------ */

/* bc[j] = alpha P_l^T res[j] for v's systems: our copy of P read once for all */
static int restrict_all(const ovk__amg_cycle *c, int l, const sysvecs *v, double alpha, double *const *bc,
                        const ovk__hook *h)
{
    return ovk__amg_restrict(c->lev[l].tr, v->k, alpha, (const double *const *)v->res, bc, h);
}

/* x[j] += P_l xc[j] for k systems, likewise */
static int interpolate_all(const ovk__amg_cycle *c, int l, int k, double *const *xc, double *const *x,
                           const ovk__hook *h)
{
    return ovk__amg_interpolate(c->lev[l].tr, k, (const double *const *)xc, x, h);
}

/* the coarsest solve of each system: the level's dense factors */
static int coarsest_solve(const ovk__amg_cycle *c, int l, int k, const double *const *b, double *const *x,
                          const ovk__hook *h)
{
    for (int j = 0; j < k; j++) {
        int rc = ovk__amg_coarse_solve(c->lev[l].lu, b[j], x[j]);
        if (rc) return rc;
        ovk__poke(h);
    }
    return OVK_OK;
}

/* level l's vectors of k systems: k = 1 the level's own (through one[5]),
 * else apply_many's rows */
static void level_vecs(const ovk__amg_cycle *c, int l, int k, double *one[5], sysvecs *v)
{
    const level *L = &c->lev[l];
    double *const *rows = one;
    size_t w = 1;
    if (k > 1) {
        w = (size_t)c->kcap;
        rows = c->rows + 5 * (size_t)l * w;
    } else {
        one[0] = L->res, one[1] = L->d, one[2] = L->t, one[3] = L->x, one[4] = L->b;
    }
    *v = (sysvecs){k, rows, rows + w, rows + 2 * w, rows + 3 * w, rows + 4 * w, k > 1 ? &c->ms[l] : NULL};
}

/* x_l = V(l, b_l) for k systems: every step on all k (each level's
 * products one multi-vector product), each system's operations those of
 * k = 1 */
static int vcycle(const ovk__amg_cycle *c, int l, int k, const double *const *b, double *const *x,
                  const ovk__hook *h)
{
    const level *L = &c->lev[l];
    double *one[5], *one_c[5];
    sysvecs v, w;
    level_vecs(c, l, k, one, &v);
    if (l == c->nlev - 1 && c->coarse_sweeps) /* singular: x = S(0, b), l1-Jacobi, bounded */
        return smooth(L, &v, c->coarse_sweeps, 1, b, x, 1, 0, h);
    if (l == c->nlev - 1) return coarsest_solve(c, l, k, b, x, h);
    level_vecs(c, l + 1, k, one_c, &w);
    int rc = smooth(L, &v, c->degree, c->jacobi, b, x, 1, 1, h); /* x = S(0, b), res = b - A x */
    /* b_1 = 2^-e P^T r: the coarse levels solve with 2^-e A_l, so V(1, b_1) is A_1^-1 P^T r */
    /* times corr: x += corr P_l V(l+1, P_l^T r), linear and symmetric */
    double alpha = (l == 0 ? ldexp(1.0, -c->scale_exp) : 1.0) * c->corr;
    if (!rc) rc = restrict_all(c, l, &v, alpha, w.b, h);
    if (!rc) rc = vcycle(c, l + 1, k, (const double *const *)w.b, w.x, h);
    if (!rc) rc = interpolate_all(c, l, k, w.x, x, h);
    return rc ? rc : smooth(L, &v, c->degree, c->jacobi, b, x, 0, 0, h); /* x = S(x, b) */
}

void ovk__amg_cycle_set_scale(ovk__amg_cycle *c, int e) { c->scale_exp = e; }

int ovk__amg_cycle_apply(const ovk__amg_cycle *c, const double *r, double *z, const ovk__hook *h)
{
    return vcycle(c, 0, 1, &r, &z, h);
}

/* apply_many's room: free it (local) */
static void free_many(ovk__amg_cycle *c)
{
    for (int l = 0; c->ms && l < c->nlev; l++) ovk__multi_scratch_free(&c->ms[l]);
    free(c->ms), free(c->rows), free(c->many);
    c->ms = NULL, c->rows = NULL, c->many = NULL;
    c->kcap = 0;
}

/* Collective: room for k systems on every level (res, d, t; x and b for
 * l >= 1), grown on every rank alike (k is the same everywhere) */
static int many_room(ovk__amg_cycle *c, int k)
{
    if (k <= c->kcap) return OVK_OK;
    free_many(c);
    size_t len = 0;
    for (int l = 0; l < c->nlev; l++) len += (size_t)(l == 0 ? 3 : 5) * (size_t)k * (size_t)(c->lev[l].n + 1);
    c->many = malloc(sizeof(double) * len);
    c->rows = calloc((size_t)5 * (size_t)k * (size_t)c->nlev, sizeof(double *));
    c->ms = calloc((size_t)c->nlev, sizeof(ovk__multi_scratch));
    int rc = c->many && c->rows && c->ms ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg cycle: %d systems", k);
    for (int l = 0; l < c->nlev && !rc; l++)
        if (c->lev[l].tr) rc = ovk__amg_transfer_reserve(c->lev[l].tr, k); /* P's halos */
    rc = ovk__agree(c->lev[0].A->lay.comm, rc);
    if (rc) {
        free_many(c);
        return rc;
    }
    double *p = c->many;
    for (int l = 0; l < c->nlev; l++) /* level l's vector v of system j: rows[(5 l + v) k + j] */
        for (int v = 0; v < (l == 0 ? 3 : 5); v++) {
            double **row = c->rows + (5 * (size_t)l + (size_t)v) * (size_t)k;
            for (int j = 0; j < k; j++, p += c->lev[l].n + 1) row[j] = p;
        }
    c->kcap = k;
    return OVK_OK;
}

int ovk__amg_cycle_apply_many(ovk__amg_cycle *c, int k, const double *const *r, double *const *z,
                              const ovk__hook *h)
{
    int rc = k > 1 ? many_room(c, k) : OVK_OK;
    return rc ? rc : vcycle(c, 0, k, r, z, h);
}
