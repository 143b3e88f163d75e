/* Chebyshev polynomial preconditioner: C = p(D^-1 A) D^-1, the polynomial of
 * `degree` steps of Chebyshev iteration (Saad, Iterative Methods, Alg. 12.1)
 * for D^-1 A z = D^-1 r from z = 0 on the interval [emin, emax] of the
 * spectrum of D^-1 A.  The bounds come from a Lanczos estimate at setup (a
 * short Jacobi-PCG run from a fixed right-hand side, reduced on the solver's
 * communicator; rank 0's values are broadcast so every rank applies the same
 * polynomial): emin is the smallest Ritz value (from inside the spectrum,
 * which keeps C positive definite), emax 1.1 times the largest (above the
 * spectrum: a bound below it would make C indefinite).  An application is
 * degree - 1 matvecs and no reduction. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "precond.h"

enum { LANCZOS_STEPS = 24, MAX_DEGREE = 64 };
#define EMAX_SAFETY 1.1
#define MAX_BOUND_RATIO 1e12 /* emax / emin: beyond it the polynomial is all rounding */

typedef struct cheby {
    long degree;
    double emin_user, emax_user; /* 0: estimate */
    double emin, emax;           /* in use */
    const ovk_matrix *A;
    double *dinv, *res, *d, *ad; /* n each */
    int n;
} cheby;

static int cheby_create(ovk__opts *opts, void **state)
{
    cheby *c = calloc(1, sizeof(cheby));
    if (!c) return ovk__fail(OVK_ENOMEM, "cheby");
    *state = c;
    c->degree = 3;
    int rc = ovk__opt_int(opts, "cheby", "degree", 1, MAX_DEGREE, &c->degree);
    if (!rc) rc = ovk__opt_double(opts, "cheby", "emin", 0.0, 1e300, &c->emin_user);
    if (!rc) rc = ovk__opt_double(opts, "cheby", "emax", 0.0, 1e300, &c->emax_user);
    return rc;
}

static void free_vectors(cheby *c)
{
    free(c->dinv);
    free(c->res);
    free(c->d);
    free(c->ad);
    c->dinv = c->res = c->d = c->ad = NULL;
}

static void cheby_destroy(void *state)
{
    free_vectors(state);
    free(state);
}

/* a fixed right-hand side in (0.5, 1.5) from the global row id, so that the
 * estimate does not depend on the rank count */
static double rhs_of(ovk_gidx row)
{
    uint64_t h = (uint64_t)row * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return 0.5 + (double)(h >> 11) / 9007199254740992.0;
}

/* One Jacobi-PCG run of LANCZOS_STEPS steps (every rank does them all, so
 * that the reductions match), recording alpha and beta of the good steps. */
static int lanczos_run(cheby *c, MPI_Comm comm, double *alpha, double *beta, int *good)
{
    int n = c->n, rc = OVK_OK;
    double *r = c->res, *z = c->ad, *p = c->d, *s = NULL, gamma = 0.0, g0 = 0.0, b_prev = 0.0;
    rc = ovk__pc_alloc(n, "cheby", &s);
    if (rc) return rc;
    for (int i = 0; i < n; i++) {
        r[i] = rhs_of(c->A->lay.row_start + i); /* x = 0: r = b */
        p[i] = z[i] = c->dinv[i] * r[i];
    }
    gamma = ovk__dot(n, r, z);
    OVK__MPI(MPI_Allreduce(MPI_IN_PLACE, &gamma, 1, MPI_DOUBLE, MPI_SUM, comm));
    g0 = gamma;
    *good = 0;
    for (int k = 0, ok = 1; k < LANCZOS_STEPS; k++) {
        if ((rc = ovk__matvec(c->A, p, s, NULL))) goto cleanup; /* s = A p */
        double v[2] = {ovk__dot(n, s, p), 0.0};
        OVK__MPI(MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE, MPI_SUM, comm));
        double a = gamma / v[0];
        if (ok && gamma > 1e-28 * g0 && !(a > 0.0)) *good = -1; /* <p,Ap> <= 0: not SPD */
        ok = ok && *good >= 0 && isfinite(a) && a > 0.0 && gamma > 1e-28 * g0;
        if (!ok) a = 0.0; /* the remaining steps only keep the reductions matched */
        for (int i = 0; i < n; i++) {
            r[i] -= a * s[i];
            z[i] = c->dinv[i] * r[i];
        }
        v[1] = ovk__dot(n, r, z);
        OVK__MPI(MPI_Allreduce(MPI_IN_PLACE, &v[1], 1, MPI_DOUBLE, MPI_SUM, comm));
        double b = ok ? v[1] / gamma : 0.0;
        if (ok) {
            alpha[*good] = a;
            beta[(*good)++] = b_prev; /* the beta that built this step's p */
        }
        b_prev = b;
        for (int i = 0; i < n; i++) p[i] = z[i] + b * p[i];
        gamma = v[1];
    }
cleanup:
    free(s);
    return rc;
}

/* emax / emin within MAX_BOUND_RATIO (a user's bound out of it: OVK_EOPTION) */
static int check_ratio(const cheby *c)
{
    if (c->emax <= MAX_BOUND_RATIO * c->emin) return OVK_OK;
    return ovk__fail(c->emin_user > 0.0 || c->emax_user > 0.0 ? OVK_EOPTION : OVK_EPRECOND,
                     "cheby: bounds [%g, %g] span a ratio of %g; the limit is %g (give bounds nearer the "
                     "spectrum, or leave them to the estimate)",
                     c->emin, c->emax, c->emax / c->emin, MAX_BOUND_RATIO);
}

/* [emin, emax] from the Lanczos run, computed on rank 0 and broadcast */
static int estimate(cheby *c, MPI_Comm comm)
{
    double alpha[LANCZOS_STEPS], beta[LANCZOS_STEPS], work[2 * LANCZOS_STEPS], e[2] = {NAN, NAN};
    int good = 0, rank = 0, rc = lanczos_run(c, comm, alpha, beta, &good);
    rc = ovk__agree(comm, rc);
    if (rc) return rc;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0 && (good < 1 || ovk__lanczos_extremes(good, alpha, beta, work, &e[0], &e[1]))) e[0] = e[1] = NAN;
    if (MPI_Bcast(e, 2, MPI_DOUBLE, 0, comm) != MPI_SUCCESS) return ovk__fail(OVK_EMPI, "cheby: MPI_Bcast");
    c->emin = c->emin_user > 0.0 ? c->emin_user : e[0];
    c->emax = c->emax_user > 0.0 ? c->emax_user : EMAX_SAFETY * e[1];
    if (!isfinite(c->emin) || !isfinite(c->emax) || !(c->emin > 0.0) || !(c->emax > c->emin))
        return ovk__fail(c->emin_user > 0.0 || c->emax_user > 0.0 ? OVK_EOPTION : OVK_EPRECOND,
                         "cheby: eigenvalue bounds [%g, %g] of D^-1 A are not finite, positive and ordered "
                         "(matrix not SPD? give emin=,emax= or use 'jacobi')",
                         c->emin, c->emax);
    return check_ratio(c);
}

static int cheby_setup(void *state, const ovk__pc_env *env)
{
    cheby *c = state;
    int rc = ovk__pc_diag_check(env->A, "cheby");
    if (rc) return rc;
    free_vectors(c);
    c->A = env->A;
    c->n = env->n;
    rc = ovk__pc_alloc(c->n, "cheby", &c->dinv);
    if (!rc) rc = ovk__pc_alloc(c->n, "cheby", &c->res);
    if (!rc) rc = ovk__pc_alloc(c->n, "cheby", &c->d);
    if (!rc) rc = ovk__pc_alloc(c->n, "cheby", &c->ad);
    rc = ovk__agree(env->comm, rc);
    if (rc) return rc;
    for (int i = 0; i < c->n; i++) c->dinv[i] = 1.0 / env->A->diagonal[i];
    if (c->emin_user > 0.0 && c->emax_user > 0.0) {
        c->emin = c->emin_user;
        c->emax = c->emax_user;
        if (!(c->emax > c->emin)) return ovk__fail(OVK_EOPTION, "cheby: emax must exceed emin");
        if (!(c->emax >= 1.0))
            return ovk__fail(OVK_EOPTION,
                             "cheby: emax=%g is below 1, but the eigenvalues of D^-1 A average 1 (its trace is "
                             "n), so the largest is at least 1 (emax must bound it from above)",
                             c->emax);
        return check_ratio(c);
    }
    return estimate(c, env->comm);
}

static int cheby_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    cheby *c = state;
    int n = c->n, rc = OVK_OK;
    double theta = 0.5 * (c->emax + c->emin), delta = 0.5 * (c->emax - c->emin);
    double sigma = theta / delta, rho = 1.0 / sigma;
    for (int i = 0; i < n; i++) {
        c->res[i] = r[i];
        c->d[i] = c->dinv[i] * r[i] / theta; /* d = D^-1 r / theta */
        z[i] = c->d[i];                      /* z = d */
    }
    for (long k = 1; k < c->degree; k++) {
        if ((rc = ovk__matvec(c->A, c->d, c->ad, h))) return rc; /* ad = A d */
        double rho_new = 1.0 / (2.0 * sigma - rho), a = rho_new * rho, b = 2.0 * rho_new / delta;
        for (int i = 0; i < n; i++) {
            c->res[i] -= c->ad[i];                               /* res -= A d */
            c->d[i] = a * c->d[i] + b * c->dinv[i] * c->res[i]; /* d = a d + b D^-1 res */
            z[i] += c->d[i];                                     /* z += d */
        }
        rho = rho_new;
    }
    return OVK_OK;
}

const ovk__pc_type ovk__pc_cheby = {
    .name = "cheby",
    .description = "Chebyshev polynomial in the Jacobi-scaled operator, bounds from a Lanczos estimate at setup",
    .options = "degree=K: polynomial degree 1-64 (3), each application K-1 matvecs; emin=E,emax=E: the "
               "eigenvalue bounds of D^-1 A instead of the estimate",
    .needs_matrix = 1,
    .create = cheby_create,
    .setup = cheby_setup,
    .apply = cheby_apply,
    .destroy = cheby_destroy,
};
