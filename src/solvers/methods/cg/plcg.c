/* p(l)-CG: deep-pipelined PCG (Cornelis, Cools and Vanroose, SISC 40(4),
 * 2018; PETSc's KSPPIPELCG, whose loop and storage of G this follows) with
 * the two-term recurrences of Cools, Cornelis and Vanroose (IEEE TPDS
 * 30(11), 2019).  The preconditioned Lanczos basis v_k runs l steps behind
 * z_k = P_k(CA) v_0, P_k(t) = prod_{i<min(k,l)} (t - sigma_i), through the
 * band matrix G with Z = V G; G's column k+1 is one reduction of l+1 sums
 * started at step k and completed at step k+l.  Per step:
 *
 *   u = A z_k;  z_{k+1} = C u  (the first l steps: u -= sigma_k u_prev)
 *   wait for the sums of step k-l+1; G's column k-l+1 by a Cholesky-like
 *   step, g_jj = sqrt(g_jj - sum_k g_kj^2) (a negative argument is the
 *   square-root breakdown); the Lanczos gamma, delta; the LDL^T pivot eta
 *   every level j = 0..l (z^(j) = P_j(CA) v, p^(j) = P_j(CA) p) and x by
 *   two-term recurrences in one pass (advance); <u, v>, <u, z_j> -> start
 *
 * The l+1 sums are taken in twice the working precision: G's entries are
 * small sums of large terms, whose rounding the Cholesky-like step
 * amplifies.  The shifts sigma are Chebyshev nodes of [lmin, lmax], from the
 * spec or estimated from inside the spectrum (shifts beyond it break the
 * pipeline down): at setup (it needs A and C, not b), and in the first
 * solve after new values or a setup whose estimate broke down.
 *
 * ||r_k||_2 is estimated as |zeta_k| rho (the recurrences give ||r_k||_C =
 * |zeta_k|; rho = ||r||_2 / ||r||_C from the last check of b - A x), and
 * b - A x is checked when the estimate meets the tolerance and, in flight,
 * whenever it has dropped CHECK_DROP below the last check.
 *
 * Fallback: on ill-conditioned matrices the computed V loses the
 * orthogonality G's step assumes, whatever the shifts, and restarts cost
 * iterations and accuracy (docs/solvers.md, plcg).  So a breakdown with
 * estimated shifts, or a lost true residual, ends p(l)-CG for the solve:
 * it goes on from x with pipeprcg's recurrences (its resume), counted as a
 * restart; one with the spec's shifts estimates them and restarts.  Every
 * decision uses reduced values only.
 *
 * A declared null space Z: A Z = 0 leaves u = A z, G and the residuals
 * blind to the vectors' null-space parts; x's is removed step by step:
 * Z^T p_k rides, plain, behind the sums started at step k, and x -=
 * zeta_k Z Z^T p_k when they complete. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../solver.h"

enum { MAX_L = 8, EST_DIM = 12, WIDTH = 2 * MAX_L + 4 };
/* The variant that goes on where the pipeline breaks down (its `resume`). */
#define FALLBACK "pipeprcg"
/* A true residual check is due when the estimate of ||r||_2 has dropped
 * CHECK_DROP below the last checked ||b - A x||; the recurrences have lost
 * the true residual when it dropped less than LOST_DROP meanwhile. */
#define CHECK_DROP 1e-4
#define LOST_DROP 1e-2

typedef struct plcg_params {
    long l;
    double lmin, lmax; /* lmax = 0: estimate */
} plcg_params;

/* The sums in flight, by column k mod width: G's rows first..k, then Z^T p. */
typedef struct plcg_flight {
    ovk_request *req[WIDTH];
    double sums[WIDTH][MAX_L + 1 + OVK__NULLSPACE_MAX];
    int col[WIDTH], first[WIDTH], count[WIDTH]; /* their column, first row, count (without Z^T p) */
    double zeta[WIDTH];                /* zeta of the p whose Z^T p rides there (0: none) */
} plcg_flight;

/* A true residual check in flight (check_begin). */
typedef struct plcg_check {
    ovk_request *req;
    double sum, zeta;           /* its <r,r>; |zeta| when it started */
    int step;                   /* the step it started at */
    int met;                    /* it met the tolerance: confirm at the current x */
} plcg_check;

/* The spectrum estimate's moments, in flight into the first cycle. */
typedef struct plcg_estimate {
    ovk_request *req;
    double sums[2 * EST_DIM + 2], scale; /* their sums; the basis's scale */
    int steps;                  /* the basis's dimension - 1 */
} plcg_estimate;

/* The shifts and the bounds of the spectrum of CA they come from. */
typedef struct plcg_shifts {
    double sigma[MAX_L];
    int user_bounds, estimated; /* the spec gave the bounds; an estimate is in use */
    unsigned epoch;             /* c->norms.epoch of the estimate */
    double lmin, lmax;
} plcg_shifts;

typedef struct plcg_work {
    int l, nz, width;           /* depth, count of Z vectors, ring width */
    size_t bytes;               /* of the vectors, r to WU */
    double *Z[MAX_L + 1];       /* the top level z_{it+1-j}, Z[0] the newest */
    double *U[2];               /* u = C^-1 z of Z[0], Z[1] */
    double *LZ[MAX_L];          /* level j < l: z^(j)_k = P_j(CA) v_k (LZ[0] = v_k) */
    double *LP[MAX_L + 1];      /* level j <= l: p^(j)_k = P_j(CA) p_k (LP[0] = p_k) */
    double *W, *WU;             /* CA p^(l)_k and A p^(l)_k */
    double *r;                  /* b - A x of a check */
    double G[WIDTH * (2 * MAX_L + 1)]; /* columns k mod width, rows k-2l..k */
    double gam[WIDTH], del[WIDTH];     /* the Lanczos coefficients, k mod width */
    plcg_flight fly;
    ovk_request *start_req;            /* start_sums in flight */
    plcg_check check;
    plcg_estimate est;
    ovk__variant fallback;             /* pipeprcg, set up when first needed */
    double start_sums[3];              /* <r0,Cr0>, <r0,r0> (and <b,b> while c->watch.initial_pending) */
    plcg_shifts shifts;
} plcg_work;

/* The state across the cycles of a solve. */
typedef struct plcg_state {
    double bb;
    int iter;                   /* x updates so far */
    double beta, eta, zeta;     /* ||r0||_C; the LDL^T pivot; the residual's coordinate */
    double rho;                 /* ||r||_2 / ||r||_C */
    double rr_check, z_check;   /* the last check's ||r||_2^2 and |zeta| */
    int r_fresh;                /* r = b - A x of the current x (the frame's, untouched) */
} plcg_state;

typedef enum { STOP, BROKE, STAGNATED, GO } outcome;

static double *g(plcg_work *w, int i, int j)
{
    return w->G + (size_t)(j % w->width) * (size_t)(2 * w->l + 1) + (size_t)(i - j + 2 * w->l);
}
#define GAM(w, k) ((w)->gam[(k) % (w)->width])
#define DEL(w, k) ((w)->del[(k) % (w)->width])

/* ---- vector kernels ------------------------------------------------------- */

static void scale(ovk__ctx *c, double *y, double s)
{
    for (int i = 0; i < c->n; i++) y[i] *= s;
}

static void rotate(double **v, int top)
{
    double *t = v[top];
    for (int i = top; i > 0; i--) v[i] = v[i - 1];
    v[0] = t;
}

/* ---- the reductions in flight -------------------------------------------- */

/* Column k's sums in (k: the column, or its slot): G's rows; with a null
 * space, x -= zeta Z Z^T p for the p of x's update when they started (l
 * steps ago: x has moved on by the updates since, whose sums follow). */
static int wait_col(ovk__ctx *c, plcg_work *w, int k)
{
    int slot = k % w->width;
    ovk_request **q = &w->fly.req[slot];
    if (!*q) return OVK_OK;
    int rc = ovk__sum_end(c, OVK__IPROD, *q);
    *q = NULL;
    double *sums = w->fly.sums[slot], coef[OVK__NULLSPACE_MAX];
    memcpy(g(w, w->fly.first[slot], w->fly.col[slot]), sums, sizeof(double) * (size_t)w->fly.count[slot]);
    int nk = w->fly.zeta[slot] != 0.0 ? ovk__nullspace_count(c) : 0;
    for (int j = 0; j < nk; j++) coef[j] = w->fly.zeta[slot] * sums[w->fly.count[slot] + j];
    w->fly.zeta[slot] = 0.0;
    if (!rc && nk) ovk__nullspace_remove(c, coef, c->x, 0.0, NULL); /* x -= zeta Z Z^T p */
    for (int i = 0; i < w->width; i++)
        if (w->fly.req[i]) c->clock.inflight = OVK__IPROD; /* others still in flight */
    return rc;
}

/* complete everything in flight (before a stop or a restart) */
static int drain(ovk__ctx *c, plcg_work *w)
{
    int rc = OVK_OK;
    if (w->est.req) rc = ovk__sum_end(c, OVK__GAMMA, w->est.req);
    w->est.req = NULL;
    if (w->start_req) {
        int rc2 = ovk__sum_end(c, OVK__IPROD, w->start_req);
        if (!rc) rc = rc2;
    }
    w->start_req = NULL;
    if (w->check.req) {
        int rc2 = ovk__sum_end(c, OVK__IPROD, w->check.req);
        if (!rc) rc = rc2;
    }
    w->check.req = NULL;
    for (int k = 0; k < w->width; k++) {
        int rc2 = wait_col(c, w, k);
        if (!rc) rc = rc2; /* the first failure; every column still completes */
    }
    return rc;
}

/* ---- the shifts ------------------------------------------------------------ */

static void shifts(plcg_work *w)
{
    double pi = acos(-1.0), mid = 0.5 * (w->shifts.lmin + w->shifts.lmax), rad = 0.5 * (w->shifts.lmax - w->shifts.lmin);
    for (int i = 0; i < w->l; i++) w->shifts.sigma[i] = mid + rad * cos(pi * (2.0 * i + 1.0) / (2.0 * w->l));
}

/* After a true residual check <b - A x, b - A x> = rr_true taken at |zeta|
 * = zeta that did not stop the solve: rho recalibrated; *stop = -1 (lost)
 * if it dropped less than LOST_DROP (a check due by CHECK_DROP) or 2 (by 10
 * in |zeta|) while the estimate dropped that much. */
static void calibrate(plcg_state *st, double rr_true, double zeta, int due, int *stop)
{
    if (zeta > 0.0) st->rho = sqrt(rr_true) / zeta;
    if ((due && rr_true > LOST_DROP * LOST_DROP * st->rr_check) ||
        (rr_true > 0.25 * st->rr_check && zeta < 0.1 * st->z_check))
        *stop = -1; /* the recurrences lost the true residual */
    st->rr_check = rr_true;
    st->z_check = zeta;
}

/* A check due by CHECK_DROP: b - A x and its sum started at step it, in
 * flight behind the next l steps (check_end), no blocking wait. */
static int check_begin(ovk__ctx *c, plcg_work *w, double zeta, int it)
{
    int rc = ovk__ctx_residual(c, w->r); /* r = b - A x */
    if (rc) return rc;
    w->check.sum = ovk__dot(c->n, w->r, w->r);
    w->check.zeta = zeta;
    w->check.step = it;
    return ovk__sum_begin(c, OVK__IPROD, &w->check.sum, 1, &w->check.req);
}

/* That check's sum in: rho recalibrated, *stop = -1 if lost (calibrate);
 * if it met the tolerance, the next check confirms the current x. */
static int check_end(ovk__ctx *c, plcg_work *w, plcg_state *st, int *stop)
{
    int rc = ovk__sum_end(c, OVK__IPROD, w->check.req);
    w->check.req = NULL;
    c->clock.inflight = OVK__IPROD; /* G's sums are in flight (start_sums came first) */
    if (rc) return rc;
    w->check.met = ovk__converged(c, w->check.sum);
    calibrate(st, w->check.sum, w->check.zeta, 1, stop);
    return OVK_OK;
}

/* The convergence test of iteration st->iter (step it) on the estimate
 * <r,r> = rr: where it (or the last check) meets the tolerance, b - A x
 * confirms it or recalibrates rho; where it dropped CHECK_DROP, a check
 * starts.  *stop = 1 when done, -1 when the true residual is lost. */
static int check(ovk__ctx *c, plcg_work *w, plcg_state *st, double rr, double zeta, int it, int *stop)
{
    int ok = 0, rc = ovk__iterate_check(c, st->iter, rr, st->bb, stop);
    if (rc || (*stop && c->res->reason != OVK_REASON_CONVERGED)) return rc;
    int due = rr < CHECK_DROP * CHECK_DROP * st->rr_check; /* the estimate dropped by CHECK_DROP */
    if (!*stop && !w->check.met) return due && !w->check.req ? check_begin(c, w, zeta, it) : OVK_OK;
    w->check.met = 0;
    if (w->check.req) rc = ovk__sum_end(c, OVK__IPROD, w->check.req); /* superseded by this one */
    w->check.req = NULL;
    if (rc) return rc;
    rc = ovk__confirm(c, st->bb, w->r, &ok);
    if (rc) return rc;
    if (ok) { /* converged or stagnated, as confirmed */
        *stop = 1;
        return OVK_OK;
    }
    *stop = 0;
    calibrate(st, c->res->rel_residual * c->res->rel_residual * st->bb, zeta, due, stop);
    return OVK_OK;
}

/* ---- the startup phase: Ritz values from one reduction ------------------- */

/* r = a hash of the global row in [-0.5, 0.5): every eigenvector present
 * (b - A x may miss lambda_max's), the same on any rank count. */
static int random_rhs(ovk__ctx *c, double *r)
{
    long long n = c->n, start = 0;
    if (c->A) {
        start = (long long)c->A->lay.row_start;
    } else {
        int mrc = MPI_Exscan(&n, &start, 1, MPI_LONG_LONG, MPI_SUM, c->comm);
        if (mrc != MPI_SUCCESS) return ovk__mpi_fail(mrc, "MPI_Exscan");
        if (c->rank == 0) start = 0;
    }
    for (int i = 0; i < c->n; i++) {
        uint64_t h = ((uint64_t)(start + i) + 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
        h *= 0x94D049BB133111EBull;
        h ^= h >> 32;
        r[i] = (double)(h >> 11) / 9007199254740992.0 - 0.5;
    }
    return OVK_OK;
}

/* Every work vector but r (3l + 6), borrowed by the startup phase before
 * a cycle zeroes them. */
static int est_vectors(plcg_work *w, double **v)
{
    int k = 0;
    for (int i = 0; i <= w->l; i++) v[k++] = w->Z[i];
    for (int i = 0; i < 2; i++) v[k++] = w->U[i];
    for (int i = 0; i < w->l; i++) v[k++] = w->LZ[i];
    for (int i = 0; i <= w->l; i++) v[k++] = w->LP[i];
    v[k++] = w->W;
    v[k++] = w->WU;
    return k;
}

/* The basis of the estimate: Chebyshev polynomials of CA on [0, b],
 * w_j = T_j(S) w_0 with S = 2 CA / b - I and w_0 = C y_0, kept with
 * y_j = C^-1 w_j (y_0 = the random r) and u = A w_j:
 *   w_{j+1} = 4/b C u_j - 2 w_j - w_{j-1}  (w_1 = 2/b C u_0 - w_0),
 * the same for y (C u -> u).  S is self-adjoint in <., C^-1 .> and
 * T_i T_j = (T_{i+j} + T_{|i-j|}) / 2, so the basis's Gram matrices are
 * sums of the moments nu_k = <w_0, C^-1 T_k(S) w_0>, k = 0..2m+1 (gram),
 * and 2m + 2 local dots give them (moments):
 *   d_0 = <w_0, y_0>, d_{2j} = <w_j, y_j>, d_{2j-1} = <w_j, y_{j-1}>,
 *   d_{2m+1} = <w_m, u_m>.
 * Three w, two y and u: v[0..5]; w_0, u_0 = A w_0 and y_0 are there. */
enum { EST_W0, EST_W1, EST_W2, EST_U, EST_Y0, EST_Y1, EST_VECS };

static int est_basis(ovk__ctx *c, double **v, int m, double b, double *d)
{
    double *wp = v[EST_W2], *w = v[EST_W0], *wn = v[EST_W1], *u = v[EST_U], *yp = v[EST_Y1], *y = v[EST_Y0];
    int rc = OVK_OK;
    for (int j = 0; j <= m; j++) {
        if (j) rc = ovk__ctx_matvec(c, w, u); /* u_j = A w_j (u_0 is there) */
        if (rc) return rc;
        d[2 * j] = ovk__dot(c->n, w, y);
        if (j) d[2 * j - 1] = ovk__dot(c->n, w, yp);
        if (j == m) break;
        rc = ovk__ctx_pc(c, u, wn); /* C u_j */
        if (rc) return rc;
        double a = j ? 4.0 / b : 2.0 / b, two = j ? 2.0 : 1.0;
        for (int i = 0; i < c->n; i++) {
            wn[i] = a * wn[i] - two * w[i] - (j ? wp[i] : 0.0);
            yp[i] = a * u[i] - two * y[i] - (j ? yp[i] : 0.0);
        }
        double *t = wp; /* w_{j+1} in w, y_{j+1} in y */
        wp = w;
        w = wn;
        wn = t;
        t = yp;
        yp = y;
        y = t;
    }
    d[2 * m + 1] = ovk__dot(c->n, w, u);
    return OVK_OK;
}

/* The moments nu_0..nu_{2m+1} from the reduced dots d (m >= 1), in place:
 * <w_j, y_j> = (nu_2j + nu_0) / 2, <w_j, y_{j-1}> = (nu_{2j-1} + nu_1) / 2
 * (j >= 2; d_1 = nu_1), and, from S T_m^2 = (T_{2m+1} + T_{2m-1}) / 4 + T_1 / 2,
 * <w_m, u_m> = b/2 ((nu_{2m+1} + nu_{2m-1}) / 4 + nu_1 / 2 + (nu_2m + nu_0) / 2). */
static void moments(int m, double b, double *d)
{
    double top = d[2 * m + 1];
    for (int j = 1; j <= m; j++) {
        d[2 * j] = 2.0 * d[2 * j] - d[0];
        if (j >= 2) d[2 * j - 1] = 2.0 * d[2 * j - 1] - d[1];
    }
    d[2 * m + 1] = 4.0 * (2.0 * top / b - 0.5 * d[1] - 0.5 * (d[2 * m] + d[0])) - d[2 * m - 1];
}

/* The Gram matrices of the basis from the moments nu:
 *   M_ij = <w_i, y_j> = (nu_{i+j} + nu_{|i-j|}) / 2,
 *   H_ij = <w_i, A w_j> = b/2 (<w_0, C^-1 S T_i T_j w_0> + M_ij),
 * with <w_0, C^-1 S T_k w_0> = s_k = (nu_{k+1} + nu_{|k-1|}) / 2 (s_0 = nu_1). */
static void gram(int m, double b, const double *nu, double M[][EST_DIM + 1], double H[][EST_DIM + 1])
{
    double s[2 * EST_DIM + 1];
    s[0] = nu[1];
    for (int k = 1; k <= 2 * m; k++) s[k] = 0.5 * (nu[k + 1] + nu[k - 1]);
    for (int i = 0; i <= m; i++)
        for (int j = 0; j <= m; j++) {
            int p = i + j, q = i > j ? i - j : j - i;
            M[i][j] = 0.5 * (nu[p] + nu[q]);
            H[i][j] = 0.5 * b * (0.5 * (s[p] + s[q]) + M[i][j]);
        }
}

/* The largest Ritz value of CA on the basis: the generalized problem H y =
 * theta M y by M = L L^T (columns whose pivot drops below PIVOT_TOL of their
 * norm are left out: the basis is numerically dependent there), then the
 * eigenvalues of L^-1 H L^-T.  0 when there is none (M not positive). */
static double ritz_max(int m, double b, const double *nu)
{
    enum { N = EST_DIM + 1 };
    const double PIVOT_TOL = 1e-10;
    double M[N][N], H[N][N], L[N][N] = {{0}}, B[N * N];
    int idx[N], k = 0, n = m + 1;
    gram(m, b, nu, M, H);
    /* Cholesky of M restricted to the accepted columns idx[0..k) */
    for (int j = 0; j < n; j++) {
        double col[N], d = M[j][j];
        if (!(d > 0.0) || !isfinite(d)) continue;
        for (int p = 0; p < k; p++) {
            double s = M[idx[p]][j];
            for (int q = 0; q < p; q++) s -= L[p][q] * col[q];
            col[p] = s / L[p][p];
            d -= col[p] * col[p];
        }
        if (!(d > PIVOT_TOL * M[j][j])) continue;
        for (int p = 0; p < k; p++) L[k][p] = col[p];
        L[k][k] = sqrt(d);
        idx[k++] = j;
    }
    if (k == 0) return 0.0;
    /* B = L^-1 H L^-T: X = L^-1 H(idx, idx), then B = L^-1 X^T */
    double X[N][N];
    for (int q = 0; q < k; q++)
        for (int p = 0; p < k; p++) {
            double s = H[idx[p]][idx[q]];
            for (int t = 0; t < p; t++) s -= L[p][t] * X[t][q];
            X[p][q] = s / L[p][p];
        }
    for (int q = 0; q < k; q++)
        for (int p = 0; p < k; p++) {
            double s = X[q][p];
            for (int t = 0; t < p; t++) s -= L[p][t] * B[t + q * k];
            B[p + q * k] = s / L[p][p];
        }
    for (int q = 0; q < k; q++) /* B symmetric from its upper triangle */
        for (int p = 0; p < q; p++) B[q + p * k] = B[p + q * k];
    double top = ovk__sym_eig_max(k, B); /* no LAPACK: nothing allocated inside a solve */
    return isfinite(top) ? top : 0.0;
}

/* The startup phase: lmax = the largest Ritz value of CA on an
 * EST_DIM+1 dimensional Krylov space of a random vector, in two
 * reductions (classical Lanczos takes two per step): the Rayleigh quotient
 * of w_0, which scales the Chebyshev basis (b = 2 rho; blocking, as the
 * basis's first step needs it; it carries the initial check's <b,b> and
 * <r0,r0> while c->watch.initial_pending), then the basis's moments (2 EST_DIM + 2
 * values), in flight into the first cycle (basis, estimate_end).  The
 * number of steps grows with l up to EST_DIM: a lower estimate is the safe
 * side for shallow pipelines, and lmin = 0 keeps the attainable accuracy
 * (docs/solvers.md, plcg). */
static int estimate_steps(int l) { return 3 * l + 3 < EST_DIM ? 3 * l + 3 : EST_DIM; }

/* y_0 random, w_0 = C y_0, u_0 = A w_0 in v; q = <w_0, A w_0>, <w_0, C^-1 w_0> (local) */
static int est_start(ovk__ctx *c, plcg_work *w, double **v, double *q)
{
    (void)est_vectors(w, v); /* 3 l + 6 >= EST_VECS */
    int rc = random_rhs(c, v[EST_Y0]);
    if (!rc) rc = ovk__ctx_pc(c, v[EST_Y0], v[EST_W0]); /* w_0 = C y_0 */
    if (!rc) rc = ovk__ctx_matvec(c, v[EST_W0], v[EST_U]); /* u_0 = A w_0 */
    q[0] = ovk__dot(c->n, v[EST_W0], v[EST_U]);
    q[1] = ovk__dot(c->n, v[EST_W0], v[EST_Y0]);
    return rc;
}

static int startup(ovk__ctx *c, plcg_work *w, plcg_state *st, int *stop)
{
    double *v[3 * MAX_L + 6], q[4];
    const int m = estimate_steps(w->l), k = c->watch.initial_pending ? 4 : 2;
    if (k == 4) /* <b,b>, <r0,r0> in the same sum, by cycle_start's kernel: the same bits either way */
        ovk__dots(c->n, 2, (const double *[]){c->b, w->r}, (const double *[]){c->b, w->r}, q + 2, NULL);
    int rc = est_start(c, w, v, q);
    if (!rc) rc = ovk__sum(c, OVK__GAMMA, q, k);
    if (!rc && k == 4) rc = ovk__initial_values(c, q + 2, &st->bb, stop);
    if (rc || *stop) return rc;
    *stop = ovk__breakdown(c, st->iter, "<w,Aw> of the spectrum estimate", q[0], 0) ||
            ovk__breakdown(c, st->iter, "<w,Cw> of the spectrum estimate", q[1], 0);
    if (*stop) return OVK_OK;
    w->est.scale = 2.0 * q[0] / q[1];
    w->est.steps = m;
    rc = est_basis(c, v, m, w->est.scale, w->est.sums);
    if (rc) return rc;
    return ovk__sum_begin(c, OVK__GAMMA, w->est.sums, 2 * m + 2, &w->est.req);
}

/* The shifts in use and where they came from: an estimate's bounds, given
 * in the spec, skip the estimate in a later run of the same operator. */
static void plcg_view(const void *work, FILE *f)
{
    const plcg_work *w = work;
    if (w->shifts.user_bounds && !w->shifts.estimated)
        fprintf(f, "  plcg: l = %d, shifts on [%g, %g] from the spec\n", w->l, w->shifts.lmin, w->shifts.lmax);
    else if (w->shifts.estimated)
        fprintf(f, "  plcg: l = %d, shifts on [%g, %.6g] from the spectrum estimate (the spec plcg:l=%d,lmin=%g,"
                   "lmax=%.6g skips it)\n", w->l, w->shifts.lmin, w->shifts.lmax, w->l, w->shifts.lmin, w->shifts.lmax);
    else fprintf(f, "  plcg: l = %d, shifts from a spectrum estimate in the next solve\n", w->l);
}

/* lmax from the estimate's reduced moments (the same on every rank): 0, or
 * what broke: 1 a non-finite sum (a failed callback's NaN is not a
 * breakdown; *lmax the sum), 2 lmax not positive */
static int estimate_bound(plcg_work *w, double *lmax)
{
    for (int i = 0; i < 2 * w->est.steps + 2; i++)
        if (!isfinite(w->est.sums[i])) {
            *lmax = w->est.sums[i];
            return 1;
        }
    moments(w->est.steps, w->est.scale, w->est.sums);
    *lmax = ritz_max(w->est.steps, w->est.scale, w->est.sums);
    return *lmax > 0.0 ? 0 : 2;
}

/* the shifts on [0, lmax], for the matrix values of this epoch */
static void use_estimate(ovk__ctx *c, plcg_work *w, double lmax)
{
    w->shifts.lmin = 0.0;
    w->shifts.lmax = lmax;
    w->shifts.estimated = 1;
    w->shifts.epoch = c->norms.epoch;
    shifts(w);
    if (c->opts->print_level >= 1 && c->rank == 0) plcg_view(w, c->opts->out ? c->opts->out : stdout);
}

/* The estimate's moments in: lmax, the shifts.  *stop on a breakdown. */
static int estimate_end(ovk__ctx *c, plcg_work *w, plcg_state *st, int *stop)
{
    double lmax = 0.0;
    int rc = ovk__sum_end(c, OVK__GAMMA, w->est.req);
    w->est.req = NULL;
    if (rc) return rc;
    int broke = estimate_bound(w, &lmax);
    if (broke) {
        ovk__stop(c, st->iter, broke == 1 ? OVK_REASON_NONFINITE : OVK_REASON_BREAKDOWN,
                  broke == 1 ? "a sum of the spectrum estimate" : "the Ritz value estimate", lmax);
        *stop = 1;
        return OVK_OK;
    }
    use_estimate(c, w, lmax);
    return OVK_OK;
}

/* Collective, at setup (the reducer, the preconditioner or the variant
 * new): the estimate, both reductions waited for here, so that solves
 * start with the shifts -- it depends on A and C only, not on b.  One that
 * breaks down or meets a failed callback is left to the first solve, which
 * runs it again and reports it; new values estimate again there. */
static int plcg_after_setup(ovk__ctx *c, void *work)
{
    plcg_work *w = work;
    double *v[3 * MAX_L + 6], q[2], lmax = 0.0;
    w->shifts.estimated = 0;
    if (w->shifts.user_bounds || c->opts->max_iter <= 0) return OVK_OK;
    int rc = est_start(c, w, v, q);
    if (!rc) rc = ovk__sum(c, OVK__GAMMA, q, 2);
    if (rc || !(q[0] > 0.0 && q[1] > 0.0 && isfinite(q[0]) && isfinite(q[1]))) return rc;
    w->est.scale = 2.0 * q[0] / q[1];
    w->est.steps = estimate_steps(w->l);
    rc = est_basis(c, v, w->est.steps, w->est.scale, w->est.sums);
    if (!rc) rc = ovk__sum(c, OVK__GAMMA, w->est.sums, 2 * w->est.steps + 2);
    if (!rc && !estimate_bound(w, &lmax)) use_estimate(c, w, lmax);
    return rc;
}

/* ---- one cycle: the pipeline from x until a stop or a restart ------------- */

/* Every vector but r zero, r0 = b - A x in U[0] (the frame's r while
 * fresh), C r0 in LZ[0] (v0 before its scaling) and Z[l] (z0), and
 * <r0,Cr0>, <r0,r0> started (and <b,b> for the initial check). */
static int cycle_start(ovk__ctx *c, plcg_work *w, plcg_state *st)
{
    size_t n = sizeof(double) * (size_t)c->n;
    memset(w->Z[0], 0, w->bytes - (size_t)(w->Z[0] - w->r) * sizeof(double)); /* Z[0] up to WU */
    memset(w->G, 0, sizeof w->G);
    int rc = OVK_OK;
    if (st->r_fresh) memcpy(w->U[0], w->r, n);
    else rc = ovk__ctx_residual(c, w->U[0]); /* r0 = b - A x */
    st->r_fresh = 0;
    if (rc) return rc;
    rc = ovk__ctx_pc(c, w->U[0], w->LZ[0]); /* C r0 */
    if (rc) return rc;
    const double *x[] = {w->U[0], w->U[0], c->b}, *y[] = {w->LZ[0], w->U[0], c->b};
    int k = c->watch.initial_pending ? 3 : 2;
    ovk__dots(c->n, k, x, y, w->start_sums, NULL);
    memcpy(w->Z[w->l], w->LZ[0], n);
    return ovk__sum_begin(c, OVK__IPROD, w->start_sums, k, &w->start_req);
}

/* u = A z (minus sigma_it u_prev in the first l steps, whose z_{it+1} is
 * also level it+1's first vector); the next z = C u.  The estimate's
 * moments, in flight, are waited for behind the first matvec: the shifts
 * (*stop on the estimate's breakdown). */
static int basis(ovk__ctx *c, plcg_work *w, plcg_state *st, int it, int *stop)
{
    int l = w->l, rc;
    rotate(w->U, 1);
    if (it < l) {
        rc = ovk__ctx_matvec(c, w->Z[l - it], w->U[0]); /* u = A z */
        if (!rc && w->est.req) rc = estimate_end(c, w, st, stop);
        if (rc || *stop) return rc;
        ovk__ctx_axpy(c, -w->shifts.sigma[it], w->U[1], w->U[0]); /* u -= sigma u_prev */
        rc = ovk__ctx_pc(c, w->U[0], w->Z[l - it - 1]); /* z = C u */
        if (rc) return rc;
        if (it < l - 1) memcpy(w->LZ[it + 1], w->Z[l - it - 1], sizeof(double) * (size_t)c->n);
        return OVK_OK;
    }
    rotate(w->Z, w->nz - 1);
    rc = ovk__ctx_matvec(c, w->Z[1], w->U[0]); /* u = A z */
    if (rc) return rc;
    return ovk__ctx_pc(c, w->U[0], w->Z[0]); /* z = C u */
}

/* At step l: ||r0||_C = beta from the first sums; the vectors so far (v0
 * among them) scaled by 1/beta.  *ok = 0 unless <r0,Cr0> > 0.  The
 * initial check first if they carried <b,b>: *decided when it ends the
 * solve. */
static int normalize(ovk__ctx *c, plcg_work *w, plcg_state *st, int *ok, int *decided)
{
    int rc = ovk__sum_end(c, OVK__IPROD, w->start_req);
    w->start_req = NULL;
    c->clock.inflight = OVK__IPROD; /* the sums of steps 1..l are still in flight */
    *ok = 0;
    if (!rc && c->watch.initial_pending) rc = ovk__initial_values(c, (double[]){w->start_sums[2], w->start_sums[1]}, &st->bb, decided);
    if (rc || *decided) return rc;
    *ok = isfinite(w->start_sums[0]) && w->start_sums[0] > 0.0 && isfinite(w->start_sums[1]);
    if (!*ok) return OVK_OK;
    st->beta = sqrt(w->start_sums[0]);
    *g(w, 0, 0) = 1.0;
    double s = 1.0 / st->beta;
    for (int j = 0; j < w->nz; j++) scale(c, w->Z[j], s);
    for (int j = 0; j < 2; j++) scale(c, w->U[j], s);
    for (int j = 0; j < w->l; j++) scale(c, w->LZ[j], s);
    st->rho = sqrt(w->start_sums[1]) / st->beta;
    st->rr_check = w->start_sums[1];
    st->z_check = st->beta;
    return OVK_OK;
}

static int imax(int a, int b) { return a > b ? a : b; }

/* Column col = it-l+1 of G from its reduced sums, and gamma, delta of step
 * k = it-l; 0 on the square-root breakdown. */
static int column(plcg_work *w, const plcg_state *st, int it)
{
    int l = w->l, col = it - l + 1, k = it - l, lo = imax(it - 3 * l + 1, 0);
    if (it >= 2 * l)
        for (int j = lo; j <= it - 2 * l; j++) *g(w, j, col) = *g(w, it - 2 * l + 1, j + l); /* symmetry */
    if (it <= 2 * l - 1)
        for (int j = lo; j <= col; j++) *g(w, j, col) /= st->beta * st->beta; /* summed before v0 scaled */
    for (int j = imax(it - 2 * l + 2, 0); j <= k; j++) {
        double sum = 0.0;
        for (int i = lo; i < j; i++) sum += *g(w, i, j) * *g(w, i, col);
        *g(w, j, col) = (*g(w, j, col) - sum) / *g(w, j, j);
    }
    double sum = 0.0;
    for (int i = lo; i <= k; i++) sum += *g(w, i, col) * *g(w, i, col);
    double t = *g(w, col, col) - sum;
    if (!(t > 0.0) || !isfinite(t)) return 0; /* the square-root breakdown */
    *g(w, col, col) = sqrt(t);
    double dm = k > 0 ? DEL(w, k - 1) * *g(w, k - 1, k) : 0.0;
    if (it < 2 * l) {
        GAM(w, k) = (*g(w, k, col) + w->shifts.sigma[k] * *g(w, k, k) - dm) / *g(w, k, k);
        DEL(w, k) = *g(w, col, col) / *g(w, k, k);
    } else {
        GAM(w, k) = (*g(w, k, k) * GAM(w, k - l) + *g(w, k, col) * DEL(w, k - l) - dm) / *g(w, k, k);
        DEL(w, k) = *g(w, col, col) * DEL(w, k - l) / *g(w, k, k);
    }
    return isfinite(GAM(w, k)) && isfinite(DEL(w, k)) && DEL(w, k) > 0.0;
}

/* ---- the two-term recurrences ------------------------------------------- */

enum { BLOCK = 64 }; /* rows per pass of each recurrence: the block of every vector in L1 */

/* p = s (z + a p) */
static void dir_step(int m, double *restrict p, const double *restrict z, double s, double a)
{
    for (int i = 0; i < m; i++) p[i] = s * (z[i] + a * p[i]);
}

/* z = d (q + sigma p - z) */
static void basis_step(int m, double *restrict z, const double *restrict q, const double *restrict p, double sigma,
                       double d)
{
    for (int i = 0; i < m; i++) z[i] = d * (q[i] + sigma * p[i] - z[i]);
}

/* w = s (y + a w);  y = d (w - z)  (y = CA z_it in, z_{it+1} out) */
static void top_step(int m, double *restrict w, double *restrict y, const double *restrict z, double s, double a,
                     double d)
{
    for (int i = 0; i < m; i++) {
        w[i] = s * (y[i] + a * w[i]);
        y[i] = d * (w[i] - z[i]);
    }
}

static void x_step(int m, double *restrict x, const double *restrict p, double zeta)
{
    for (int i = 0; i < m; i++) x[i] += zeta * p[i];
}

/* the coefficients of step k = it-l, computed once per step */
typedef struct step_coef {
    double a, s, d, zeta; /* -delta_{k-1}, 1 / eta_k, eta_k / delta_k, zeta_k */
} step_coef;

/* Step k = it-l of every level by two-term recurrences, rows [lo, lo+m):
 * the coupled form of the Lanczos relation, v_k = eta_k p_k +
 * delta_{k-1} p_{k-1} and CA p_k = v_k + (delta_k / eta_k) v_{k+1} (T =
 * L D L^T), multiplied by P_j(CA); they replace the three-term (Lanczos)
 * recurrences of v and of each auxiliary basis in the 2018 p(l)-CG:
 *   p^(j) = (z^(j) - delta_{k-1} p^(j)) / eta_k       j = 0..l (z^(l)_k = z_it)
 *   x += zeta_k p^(0)
 *   z^(j) = eta_k / delta_k (p^(j+1) + sigma_j p^(j) - z^(j))      j < l
 *   w = (CA z_it - delta_{k-1} w) / eta_k;  z_{it+1} = eta_k / delta_k (w - z_it)
 *   and the same for A p^(l) and u = C^-1 z.
 * Multiversioned (OVK__CLONES): the baseline's SSE2 loops run the blocks at
 * half the width of AVX2's. */
OVK__CLONES static void advance_rows(plcg_work *w, const step_coef *q, double *x, int lo, int m)
{
    int l = w->l;
    double a = q->a, s = q->s, d = q->d;
    for (int j = 0; j <= l; j++) dir_step(m, w->LP[j] + lo, (j < l ? w->LZ[j] : w->Z[1]) + lo, s, a);
    x_step(m, x + lo, w->LP[0] + lo, q->zeta);
    for (int j = 0; j < l; j++) basis_step(m, w->LZ[j] + lo, w->LP[j + 1] + lo, w->LP[j] + lo, w->shifts.sigma[j], d);
    top_step(m, w->W + lo, w->Z[0] + lo, w->Z[1] + lo, s, a, d);
    top_step(m, w->WU + lo, w->U[0] + lo, w->U[1] + lo, s, a, d);
}

/* advance_rows over every row of x, in blocks, the hook called per chunk */
static void advance_all(ovk__ctx *c, plcg_work *w, const step_coef *q, double *x)
{
    int n = c->n, step = ovk__chunk_rows(n, &c->hook);
    ovk__tic t0 = ovk__tic_start(c);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int b = lo; b < hi; b += BLOCK) advance_rows(w, q, x, b, hi - b < BLOCK ? hi - b : BLOCK);
        ovk__poke(&c->hook);
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* step k = it-l of every level */
static void advance(ovk__ctx *c, plcg_work *w, const plcg_state *st, int it)
{
    int k = it - w->l;
    step_coef q = {k > 0 ? -DEL(w, k - 1) : 0.0, 1.0 / st->eta, st->eta / DEL(w, k), st->zeta};
    advance_all(c, w, &q, c->x);
}

/* the sums of column it+1: <u,z_j> (and <u,v>), started; with a null
 * space and x updated by zeta p^(0) at this step, Z^T p^(0) too */
static int start_sums(ovk__ctx *c, plcg_work *w, const plcg_state *st, int it)
{
    int l = w->l, col = it + 1, first = it < l ? 0 : it - l + 1, count = col - first + 1, slot = col % w->width;
    const double *x[MAX_L + 1], *y[MAX_L + 1];
    memset(g(w, col - 2 * l, col), 0, sizeof(double) * (size_t)(2 * l + 1));
    for (int j = first; j <= col; j++) {
        x[j - first] = w->U[0];
        y[j - first] = it >= l && j == first ? w->LZ[0] : w->Z[it < l ? l - j : it + 1 - j];
    }
    double *dst = w->fly.sums[slot];
    ovk__tic t0 = ovk__tic_start(c);
    ovk__dots_exact(c->n, count, x, y, dst, &c->hook); /* G's entries: small sums of large terms */
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    w->fly.col[slot] = col;
    w->fly.first[slot] = first;
    w->fly.count[slot] = count;
    w->fly.zeta[slot] = it >= l ? st->zeta : 0.0;
    int k = it >= l ? ovk__nullspace_append(c, dst, count, count, w->LP[0]) : count; /* plain sums */
    return ovk__sum_begin(c, OVK__IPROD, dst, k, &w->fly.req[slot]);
}

/* The LDL^T (D-Lanczos) pivot eta_k and coordinate zeta_k of r_k for
 * step k = it-l (x_{k+1} = x_k + zeta_k p_k in advance); *zeta_next = the
 * coordinate of r_{k+1}.  0 when eta is not positive (a breakdown). */
static int pivot(ovk__ctx *c, plcg_work *w, plcg_state *st, int it, double *zeta_next)
{
    int k = it - w->l;
    double lambda = k > 0 ? DEL(w, k - 1) / st->eta : 0.0;
    st->eta = k > 0 ? GAM(w, k) - lambda * DEL(w, k - 1) : GAM(w, 0);
    st->zeta = k > 0 ? -lambda * st->zeta : st->beta;
    if (!(st->eta > 0.0) || !isfinite(st->eta)) return 0;
    ovk__lanczos_add(c, 1.0 / st->eta, lambda * lambda);
    *zeta_next = -DEL(w, k) / st->eta * st->zeta;
    return 1;
}

/* Step it of a cycle; *out says whether to go on. */
static int cycle_step(ovk__ctx *c, plcg_work *w, plcg_state *st, int it, outcome *out)
{
    int ok = 1, stop = 0, l = w->l, rc = basis(c, w, st, it, &stop);
    double zn = 0.0;
    if (rc || stop) {
        *out = STOP;
        return rc;
    }
    if (it >= l) {
        if (it == l) rc = normalize(c, w, st, &ok, &stop);
        if (rc || stop || !ok) {
            *out = stop ? STOP : BROKE;
            return rc;
        }
        rc = wait_col(c, w, it - l + 1);
        if (rc) return rc;
        if (!column(w, st, it) || !pivot(c, w, st, it, &zn)) {
            *out = BROKE;
            return OVK_OK;
        }
        advance(c, w, st, it);
    }
    rc = start_sums(c, w, st, it);
    if (rc || it < l) return rc;
    st->iter++;
    rc = check(c, w, st, zn * zn * st->rho * st->rho, fabs(zn), it, &stop);
    if (!rc && !stop && w->check.req && it >= w->check.step + l) rc = check_end(c, w, st, &stop); /* l steps on */
    if (rc) return rc;
    if (stop) *out = stop > 0 ? STOP : STAGNATED;
    else if (st->iter >= c->opts->max_iter) {
        c->res->reason = OVK_REASON_MAXIT;
        *out = STOP;
    }
    return OVK_OK;
}

/* the timed part of a steady step: its work besides u = A z (the recurrences of
 * every level, the l + 1 sums of a column, z = C u) on x */
static int plcg_vector_step(ovk__ctx *c, void *work, double *x)
{
    plcg_work *w = work;
    const step_coef q = {-0.5, 1.0, 0.5, 0.5};
    const double *u[MAX_L + 1], *z[MAX_L + 1];
    double sums[MAX_L + 1];
    advance_all(c, w, &q, x);
    for (int j = 0; j <= w->l; j++) {
        u[j] = w->U[0];
        z[j] = j == 0 ? w->LZ[0] : w->Z[j];
    }
    ovk__tic t0 = ovk__tic_start(c);
    ovk__dots_exact(c->n, w->l + 1, u, z, sums, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    volatile double keep = sums[0]; /* timed, not used */
    (void)keep;
    return ovk__ctx_pc(c, w->U[0], w->Z[0]); /* z = C u */
}

static int cycle(ovk__ctx *c, plcg_work *w, plcg_state *st, outcome *out)
{
    int rc2, pending, ok = 0, rc = cycle_start(c, w, st);
    *out = GO;
    w->check.met = 0;
    if (rc) goto cleanup;
    for (int it = 0; *out == GO; it++) {
        rc = cycle_step(c, w, st, it, out);
        if (rc) goto cleanup;
    }
cleanup:
    pending = w->check.req != NULL; /* a check in flight */
    rc2 = drain(c, w); /* whatever happened: nothing stays in flight */
    if (!rc) rc = rc2;
    if (pending) w->check.met = ovk__converged(c, w->check.sum);
    if (rc || *out == STOP || !w->check.met) return rc;
    rc = ovk__confirm(c, st->bb, w->r, &ok); /* a check met the tolerance: before a restart, x may have too */
    if (!rc && ok) *out = STOP; /* converged or stagnated, as confirmed */
    return rc;
}

/* Cycles until a stop; the startup phase first (unless the spec gave the
 * bounds).  A breakdown with the spec's bounds estimates them and restarts;
 * any other breakdown, or a cycle that lost the true residual, continues
 * from x with pipeprcg's recurrences (one reduction in flight, classical
 * accuracy) for the rest of the solve. */
static int run(ovk__ctx *c, plcg_work *w, double bb)
{
    plcg_state st = {.bb = bb, .r_fresh = 1};
    int estimate = !w->shifts.user_bounds && !w->shifts.estimated;
    for (;;) {
        if (st.iter >= c->opts->max_iter) { /* before the startup phase: max_iter 0 costs nothing */
            c->res->reason = OVK_REASON_MAXIT;
            return OVK_OK;
        }
        int stop = 0, rc = estimate ? startup(c, w, &st, &stop) : OVK_OK;
        if (rc || stop) return rc;
        outcome out = GO;
        rc = cycle(c, w, &st, &out);
        if (rc || out == STOP) return rc;
        c->res->restarts++;
        if (out == BROKE && !w->shifts.estimated) { /* a breakdown with the spec's bounds: estimate */
            estimate = 1;
            continue;
        }
        return ovk__variant_resume(c, ovk__solver_find(FALLBACK), &w->fallback, st.bb, st.iter);
    }
}

/* ---- the variant's interface ---------------------------------------------- */

static int plcg_parse(ovk__opts *o, void **params)
{
    plcg_params *p = calloc(1, sizeof *p);
    *params = p;
    if (!p) return ovk__fail(OVK_ENOMEM, "plcg");
    p->l = 1;
    const ovk__opt_entry t[] = {
        OVK__OPT_INT("l", 1, MAX_L, &p->l),
        OVK__OPT_DOUBLE("lmin", 0.0, 1e300, &p->lmin),
        OVK__OPT_DOUBLE("lmax", 0.0, 1e300, &p->lmax),
    };
    int rc = ovk__opts_read(o, "plcg", t, (int)(sizeof t / sizeof t[0]));
    if (rc) return rc;
    if ((p->lmax > 0.0 || p->lmin > 0.0) && !(p->lmin < p->lmax))
        rc = ovk__fail(OVK_EOPTION, "solver plcg: lmax (%g) must be given and exceed lmin (%g)", p->lmax, p->lmin);
    return rc;
}

/* the vector fields for depth l: r first (the frame's residual), then the
 * block the cycles zero (cycle_start: r up to WU) */
static int plcg_vectors(const void *params, size_t *vec)
{
    int l = (int)((const plcg_params *)params)->l, k = 0;
    size_t count_only[3 * MAX_L + 6];
    if (!vec) vec = count_only; /* the frame asks for the count first */
    vec[k++] = offsetof(plcg_work, r);
    for (int i = 0; i <= l; i++) vec[k++] = offsetof(plcg_work, Z) + sizeof(double *) * (size_t)i;
    for (int i = 0; i < 2; i++) vec[k++] = offsetof(plcg_work, U) + sizeof(double *) * (size_t)i;
    for (int i = 0; i < l; i++) vec[k++] = offsetof(plcg_work, LZ) + sizeof(double *) * (size_t)i;
    for (int i = 0; i <= l; i++) vec[k++] = offsetof(plcg_work, LP) + sizeof(double *) * (size_t)i;
    vec[k++] = offsetof(plcg_work, W);
    vec[k++] = offsetof(plcg_work, WU); /* last: bytes below */
    return k;
}

static int plcg_setup(ovk__ctx *c, void *work)
{
    const plcg_params *pp = c->params;
    plcg_work *w = work;
    w->l = (int)pp->l;
    w->nz = w->l + 1;
    w->width = 2 * w->l + 4;
    w->bytes = (size_t)(w->WU - w->r + (c->n > 0 ? c->n : 1)) * sizeof(double);
    w->shifts.user_bounds = pp->lmax > 0.0; /* the spec's bounds (restored by iterate after new values) */
    w->shifts.lmin = pp->lmin;
    w->shifts.lmax = pp->lmax;
    return OVK_OK;
}

static void plcg_destroy(void *work)
{
    plcg_work *w = work;
    ovk__variant_free(&w->fallback);
}

static int plcg_iterate(ovk__ctx *c, void *work, double bb)
{
    const plcg_params *pp = c->params;
    plcg_work *w = work;
    if (w->shifts.estimated && w->shifts.epoch != c->norms.epoch) w->shifts.estimated = 0; /* new values: estimate again */
    if (w->shifts.user_bounds && !w->shifts.estimated) { /* an estimate after a breakdown replaces them for good */
        w->shifts.lmin = pp->lmin;
        w->shifts.lmax = pp->lmax;
        shifts(w);
    }
    return run(c, w, bb);
}

const ovk__solver_ops ovk__solver_plcg = {
    .caps = OVK__CAP_DEFERS_INITIAL | OVK__CAP_NULLSPACE | OVK__CAP_CONDEST,
    .work_size = sizeof(plcg_work), .vectors = plcg_vectors,
    .parse = plcg_parse, .setup = plcg_setup, .after_setup = plcg_after_setup, .destroy = plcg_destroy,
    .view = plcg_view, .iterate = plcg_iterate, .vector_step = plcg_vector_step, .estimate_steps = estimate_steps,
};
