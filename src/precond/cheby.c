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
    MPI_Comm comm; /* the solver's */
    /* apply_many's: res, d and A d of up to kcap systems (3 kcap n doubles
     * in `many`, the pointers in `rows`), the products' scratch */
    int kcap;
    double *many, **rows;
    ovk__multi_scratch ms;
} cheby;

static int cheby_create(ovk__opts *opts, void **state)
{
    cheby *c = calloc(1, sizeof(cheby));
    if (!c) return ovk__fail(OVK_ENOMEM, "cheby");
    *state = c;
    c->degree = 3;
    const ovk__opt_entry t[] = {
        OVK__OPT_INT("degree", 1, MAX_DEGREE, &c->degree),
        OVK__OPT_DOUBLE("emin", 0.0, 1e300, &c->emin_user),
        OVK__OPT_DOUBLE("emax", 0.0, 1e300, &c->emax_user),
    };
    return ovk__opts_read(opts, "cheby", t, (int)(sizeof t / sizeof t[0]));
}

static void free_vectors(cheby *c)
{
    free(c->dinv);
    free(c->res);
    free(c->d);
    free(c->ad);
    c->dinv = c->res = c->d = c->ad = NULL;
}

static int alloc_vectors(cheby *c)
{
    double **v[] = {&c->dinv, &c->res, &c->d, &c->ad};
    for (int k = 0; k < 4; k++) {
        int rc = ovk__pc_alloc(c->n, "cheby", v[k]);
        if (rc) return rc;
    }
    return OVK_OK;
}

static void free_many(cheby *c)
{
    free(c->many);
    free(c->rows);
    ovk__multi_scratch_free(&c->ms);
    c->many = NULL;
    c->rows = NULL;
    c->kcap = 0;
}

static void cheby_destroy(void *state)
{
    free_vectors(state);
    free_many(state);
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

/* *x summed over comm, in place */
static int sum_all(double *x, MPI_Comm comm)
{
    return ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
}

/* The state of the Lanczos run: the vectors (r, z, p in the object's
 * scratch, s = A p), <r,z> now and at the start, the previous beta, and
 * whether the steps are still good. */
typedef struct lanczos {
    double *r, *z, *p, *s;
    double gamma, g0, b_prev;
    int ok;
} lanczos;

/* One step of the run; a good one appends its alpha and beta. */
static int lanczos_step(const cheby *c, MPI_Comm comm, lanczos *L, double *alpha, double *beta, int *good)
{
    int n = c->n;
    int rc = ovk__matvec(c->A, L->p, L->s, NULL); /* s = A p */
    if (rc) return rc;
    double v[2] = {ovk__dot(n, L->s, L->p), 0.0};
    rc = sum_all(&v[0], comm);
    if (rc) return rc;
    double a = L->gamma / v[0];
    if (L->ok && L->gamma > 1e-28 * L->g0 && !(a > 0.0)) *good = -1; /* <p,Ap> <= 0: not SPD */
    L->ok = L->ok && *good >= 0 && isfinite(a) && a > 0.0 && L->gamma > 1e-28 * L->g0;
    if (!L->ok) a = 0.0; /* the remaining steps only keep the reductions matched */
    for (int i = 0; i < n; i++) {
        L->r[i] -= a * L->s[i];
        L->z[i] = c->dinv[i] * L->r[i];
    }
    v[1] = ovk__dot(n, L->r, L->z);
    rc = sum_all(&v[1], comm);
    if (rc) return rc;
    double b = L->ok ? v[1] / L->gamma : 0.0;
    if (L->ok) {
        alpha[*good] = a;
        beta[(*good)++] = L->b_prev; /* the beta that built this step's p */
    }
    L->b_prev = b;
    for (int i = 0; i < n; i++) L->p[i] = L->z[i] + b * L->p[i];
    L->gamma = v[1];
    return OVK_OK;
}

/* One Jacobi-PCG run of LANCZOS_STEPS steps (every rank does them all, so
 * that the reductions match), recording alpha and beta of the good steps. */
static int lanczos_run(cheby *c, MPI_Comm comm, double *alpha, double *beta, int *good)
{
    int n = c->n;
    lanczos L = {.r = c->res, .z = c->ad, .p = c->d, .ok = 1};
    int rc = ovk__agree(comm, ovk__pc_alloc(n, "cheby", &L.s)); /* before the first sum */
    if (rc) goto cleanup;
    for (int i = 0; i < n; i++) {
        L.r[i] = rhs_of(c->A->lay.row_start + i); /* x = 0: r = b */
        L.p[i] = L.z[i] = c->dinv[i] * L.r[i];
    }
    L.gamma = ovk__dot(n, L.r, L.z);
    rc = sum_all(&L.gamma, comm);
    if (rc) goto cleanup;
    L.g0 = L.gamma;
    *good = 0;
    for (int k = 0; k < LANCZOS_STEPS; k++) {
        rc = lanczos_step(c, comm, &L, alpha, beta, good);
        if (rc) goto cleanup;
    }
cleanup:
    free(L.s);
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
    free_many(c);
    c->A = env->A;
    c->n = env->n;
    c->comm = env->comm;
    rc = ovk__agree(env->comm, alloc_vectors(c));
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
    int n = c->n;
    double theta = 0.5 * (c->emax + c->emin), delta = 0.5 * (c->emax - c->emin);
    double sigma = theta / delta, rho = 1.0 / sigma;
    for (int i = 0; i < n; i++) {
        c->res[i] = r[i];
        c->d[i] = c->dinv[i] * r[i] / theta; /* d = D^-1 r / theta */
        z[i] = c->d[i];                      /* z = d */
    }
    for (long k = 1; k < c->degree; k++) {
        int rc = ovk__matvec(c->A, c->d, c->ad, h); /* ad = A d */
        if (rc) return rc;
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

/* Collective: room for k systems in apply_many (grown on every rank alike:
 * kcap is the same everywhere, and a rank without the room must not leave
 * the others in the products' halo exchange) */
static int many_room(cheby *c, int k)
{
    if (k <= c->kcap) return OVK_OK;
    free_many(c);
    size_t n = (size_t)(c->n > 0 ? c->n : 1);
    c->many = malloc(sizeof(double) * 3 * (size_t)k * n);
    c->rows = malloc(sizeof(double *) * 3 * (size_t)k);
    int rc = ovk__agree(c->comm, c->many && c->rows ? OVK_OK : ovk__fail(OVK_ENOMEM, "cheby: %d systems", k));
    if (rc) {
        free_many(c);
        return rc;
    }
    c->kcap = k;
    return OVK_OK;
}

/* k systems as cheby_apply, each product one multi-vector product (the
 * matrix read once): each z[j] bitwise cheby_apply's */
static int cheby_apply_many(void *state, int k, const double *const *r, double *const *z, double *rz, double *rr,
                            const ovk__hook *h)
{
    cheby *c = state;
    int n = c->n, rc = many_room(c, k);
    (void)rz, (void)rr; /* no apply_dots: never asked for the sums */
    if (rc) return rc;
    double **res = c->rows, **d = res + k, **ad = d + k;
    double theta = 0.5 * (c->emax + c->emin), delta = 0.5 * (c->emax - c->emin);
    double sigma = theta / delta, rho = 1.0 / sigma;
    for (int j = 0; j < k; j++) {
        res[j] = c->many + (size_t)(3 * j) * (size_t)n;
        d[j] = res[j] + n;
        ad[j] = d[j] + n;
        for (int i = 0; i < n; i++) {
            res[j][i] = r[j][i];
            d[j][i] = c->dinv[i] * r[j][i] / theta; /* d = D^-1 r / theta */
            z[j][i] = d[j][i];                      /* z = d */
        }
    }
    for (long deg = 1; deg < c->degree; deg++) {
        rc = ovk__matvec_multi_with(c->A, k, (const double *const *)d, ad, NULL, h, &c->ms); /* ad = A d */
        if (rc) return rc;
        double rho_new = 1.0 / (2.0 * sigma - rho), a = rho_new * rho, b = 2.0 * rho_new / delta;
        for (int j = 0; j < k; j++)
            for (int i = 0; i < n; i++) {
                res[j][i] -= ad[j][i];                                /* res -= A d */
                d[j][i] = a * d[j][i] + b * c->dinv[i] * res[j][i]; /* d = a d + b D^-1 res */
                z[j][i] += d[j][i];                                   /* z += d */
            }
        rho = rho_new;
    }
    return OVK_OK;
}

const ovk__pc_type ovk__pc_cheby = {
    .needs_matrix = 1, .symmetric_only = 1,
    .create = cheby_create, .setup = cheby_setup, .destroy = cheby_destroy,
    .apply = cheby_apply, .apply_many = cheby_apply_many,
};
