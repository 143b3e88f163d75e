/* The null space of a singular A (ovk_solver_set_nullspace): the
 * application's vectors copied, an orthonormal basis Z made at setup, and
 * the projection I - Z Z^T a solve applies to b (once), to the search
 * direction or the preconditioned residual of every iteration (its
 * coefficients Z^T u ride in the variant's own reduction: no reduction
 * more) and to x at the end.  A Z = 0 and r orthogonal to Z make the
 * correction u -= Z c change neither A u nor <r,u> in exact arithmetic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../solver.h"

#define NULL_TOL 1e-8 /* ||A z||_2 / ||A||_inf of a null vector z, ||z||_2 = 1: rounding is far below */

/* the arguments of ovk_solver_set_nullspace, local */
static int check_args(int n, int has_constant, int k, const double *const *vectors)
{
    if (k < 0 || k > OVK__NULLSPACE_MAX)
        return ovk__fail(OVK_EINVAL, "ovk_solver_set_nullspace: k = %d vectors (0..%d)", k, OVK__NULLSPACE_MAX);
    if (has_constant != 0 && has_constant != 1)
        return ovk__fail(OVK_EINVAL, "ovk_solver_set_nullspace: has_constant = %d (0 or 1)", has_constant);
    if (has_constant + k > OVK__NULLSPACE_MAX)
        return ovk__fail(OVK_EINVAL, "ovk_solver_set_nullspace: the constant and %d vectors exceed %d", k,
                         OVK__NULLSPACE_MAX);
    if (k > 0 && n > 0 && !vectors) return ovk__fail(OVK_EINVAL, "ovk_solver_set_nullspace: NULL vectors");
    for (int j = 0; j < k && n > 0; j++)
        if (!vectors[j]) return ovk__fail(OVK_EINVAL, "ovk_solver_set_nullspace: vector %d is NULL", j);
    return OVK_OK;
}

int ovk__nullspace_set(ovk__nullspace *ns, const ovk__layout *lay, int has_constant, int k,
                       const double *const *vectors)
{
    int n = lay->nlocal, rc = check_args(n, has_constant, k, vectors);
    double *copy = NULL;
    if (!rc && k > 0) {
        copy = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1) * (size_t)k);
        if (!copy) rc = ovk__fail(OVK_ENOMEM, "ovk_solver_set_nullspace: %d vectors of %d rows", k, n);
        for (int j = 0; copy && j < k && n > 0; j++)
            memcpy(copy + (size_t)j * (size_t)n, vectors[j], sizeof(double) * (size_t)n);
    }
    rc = ovk__agree(lay->comm, rc);
    if (rc) {
        free(copy);
        return rc;
    }
    free(ns->user);
    ns->user = copy;
    ns->user_k = k;
    ns->has_constant = has_constant;
    return OVK_OK;
}

/* the set-up basis and b's room: none */
static void drop_basis(ovk__nullspace *ns)
{
    free(ns->basis);
    free(ns->b);
    ns->basis = ns->b = NULL;
    ns->k = 0;
}

void ovk__nullspace_free(ovk__nullspace *ns)
{
    drop_basis(ns);
    free(ns->user);
    ns->user = NULL;
    ns->user_k = ns->has_constant = 0;
}

int ovk__nullspace_rigid_body(int dim, int nnodes, const double *xyz, double *modes)
{
    int n = dim * nnodes, count = dim == 2 ? 3 : 6;
    if (dim != 2 && dim != 3)
        return ovk__fail(OVK_EINVAL, "ovk_solver_set_nullspace_rigid_body: dim = %d (2 or 3)", dim);
    for (int i = 0; i < n; i++)
        if (!isfinite(xyz[i]))
            return ovk__fail(OVK_ENONFINITE, "ovk_solver_set_nullspace_rigid_body: node %d's coordinate %d is %g",
                             i / dim, i % dim, xyz[i]);
    memset(modes, 0, sizeof(double) * (size_t)(n > 0 ? n : 1) * (size_t)count);
    for (int i = 0; i < nnodes; i++) {
        const double *p = xyz + (size_t)i * (size_t)dim;
        double *m = modes + (size_t)i * (size_t)dim; /* row of node i's first component */
        for (int d = 0; d < dim; d++) m[(size_t)d * (size_t)n + (size_t)d] = 1.0; /* translations */
        if (dim == 2) { /* rotation (-y, x) */
            m[2 * (size_t)n] = -p[1];
            m[2 * (size_t)n + 1] = p[0];
            continue;
        }
        double *rz = m + 3 * (size_t)n, *rx = m + 4 * (size_t)n, *ry = m + 5 * (size_t)n;
        rz[0] = -p[1], rz[1] = p[0];  /* about z: (-y, x, 0) */
        rx[1] = -p[2], rx[2] = p[1];  /* about x: (0, -z, y) */
        ry[0] = p[2], ry[2] = -p[0];  /* about y: (z, 0, -x) */
    }
    return OVK_OK;
}

/* the first non-finite entry of the application's vectors, local */
static int check_finite(const ovk__nullspace *ns, const ovk__layout *lay)
{
    int n = lay->nlocal;
    for (int j = 0; j < ns->user_k; j++)
        for (int i = 0; i < n; i++) {
            double v = ns->user[(size_t)j * (size_t)n + (size_t)i];
            if (!isfinite(v))
                return ovk__fail(OVK_ENONFINITE, "null-space vector %d at row %lld is %g", j, ovk__row_id(lay, i), v);
        }
    return OVK_OK;
}

/* out[0..q) = <Z_i, v>, out[q] = <v,v>, global (one blocking reduction) */
static int project_sums(const ovk__nullspace *ns, const ovk__layout *lay, int q, const double *v, double *out)
{
    int n = lay->nlocal;
    for (int i = 0; i <= q; i++) {
        const double *zi = i < q ? ns->basis + (size_t)i * (size_t)n : v;
        double sum = 0.0;
        for (int r = 0; r < n; r++) sum += zi[r] * v[r];
        out[i] = sum;
    }
    return ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, out, q + 1, MPI_DOUBLE, MPI_SUM, lay->comm),
                    "MPI_Allreduce (null-space basis)");
}

/* v -= sum_i coef[i] Z_i over the first q basis vectors */
static void subtract(const ovk__nullspace *ns, int n, int q, const double *coef, double *v)
{
    for (int i = 0; i < q; i++) {
        const double *zi = ns->basis + (size_t)i * (size_t)n;
        for (int r = 0; r < n; r++) v[r] -= coef[i] * zi[r];
    }
}

/* Collective: basis vector q from v (in place): two Gram-Schmidt passes
 * against the q before it, then normalised; refused when v is zero or
 * (almost) in their span.  Every rank decides on the same reduced values. */
static int orthonormalise(ovk__nullspace *ns, const ovk__layout *lay, int q, const char *name)
{
    double sums[OVK__NULLSPACE_MAX + 1];
    int n = lay->nlocal;
    double *v = ns->basis + (size_t)q * (size_t)n, top = ovk__absmax(n, v);
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, &top, 1, MPI_DOUBLE, MPI_MAX, lay->comm),
                      "MPI_Allreduce (null-space basis)");
    if (rc) return rc;
    if (!(top > 0.0)) return ovk__fail(OVK_EINVAL, "ovk_solver_set_nullspace: %s is zero", name);
    int k = ovk__pow2_exponent(top); /* v scaled by 2^k to max |v_i| near 1: its sums neither under- nor overflow */
    for (int r = 0; r < n; r++) v[r] = ldexp(v[r], k);
    rc = project_sums(ns, lay, q, v, sums);
    if (rc) return rc;
    double norm0 = sqrt(sums[q]);
    for (int pass = 0; pass < 2; pass++) { /* CGS2: orthogonal to rounding */
        subtract(ns, n, q, sums, v);
        rc = project_sums(ns, lay, q, v, sums);
        if (rc) return rc;
    }
    double norm = sqrt(sums[q]);
    if (!(norm > 1e-10 * norm0) || !isfinite(norm))
        return ovk__fail(OVK_EINVAL,
                         "ovk_solver_set_nullspace: %s depends on the vectors before it (%.3g of its norm is "
                         "independent of them)",
                         name, norm / norm0);
    for (int r = 0; r < n; r++) v[r] /= norm;
    return OVK_OK;
}

/* the orthonormal basis of the constant (when asked) and the application's vectors */
static int make_basis(ovk__nullspace *ns, const ovk__layout *lay, int constant)
{
    int n = lay->nlocal, q = 0;
    char name[64];
    for (int j = -constant; j < ns->user_k; j++, q++) {
        double *v = ns->basis + (size_t)q * (size_t)n;
        if (j < 0) {
            for (int r = 0; r < n; r++) v[r] = 1.0;
            snprintf(name, sizeof name, "the constant vector");
        } else {
            if (n > 0) memcpy(v, ns->user + (size_t)j * (size_t)n, sizeof(double) * (size_t)n);
            snprintf(name, sizeof name, "null-space vector %d", j);
        }
        int rc = orthonormalise(ns, lay, q, name);
        if (rc) return rc;
    }
    ns->k = q;
    ns->constant = constant;
    return OVK_OK;
}

int ovk__nullspace_setup(ovk__nullspace *ns, const ovk__layout *lay, int option_constant)
{
    int n = lay->nlocal, constant = ns->has_constant || option_constant;
    int want[2] = {constant + ns->user_k, -(constant + ns->user_k)};
    drop_basis(ns);
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, want, 2, MPI_INT, MPI_MAX, lay->comm), "MPI_Allreduce (null space)");
    if (rc) return rc;
    if (want[0] != -want[1])
        return ovk__fail(OVK_EINVAL, "ovk_solver_set_nullspace: the ranks declare between %d and %d null-space "
                                     "vectors (the constant counted); every rank must declare the same",
                         -want[1], want[0]);
    ns->inconsistency = -1.0;
    if (want[0] == 0) return OVK_OK;
    size_t rows = (size_t)(n > 0 ? n : 1);
    ns->basis = malloc(sizeof(double) * rows * (size_t)want[0]);
    ns->b = malloc(sizeof(double) * rows);
    rc = ns->basis && ns->b ? OVK_OK : ovk__fail(OVK_ENOMEM, "the null space's %d vectors of %d rows", want[0], n);
    if (!rc) rc = check_finite(ns, lay);
    rc = ovk__agree(lay->comm, rc);
    if (!rc) rc = make_basis(ns, lay, constant);
    if (rc) drop_basis(ns);
    return rc;
}

int ovk__nullspace_check(ovk__ctx *c)
{
    double az[OVK__NULLSPACE_MAX];
    int nk = ovk__nullspace_count(c), n = c->n;
    if (!nk || !c->A) return OVK_OK;
    int rc = c->norms.current ? OVK_OK : c->norms.update(c); /* ||A||_inf */
    for (int j = 0; !rc && j < nk; j++) {
        rc = ovk__matvec(c->A, c->ns->basis + (size_t)j * (size_t)n, c->ns->b, NULL); /* A z_j (b: scratch) */
        az[j] = ovk__dot(n, c->ns->b, c->ns->b);
    }
    rc = ovk__agree(c->comm, rc);
    if (!rc) rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, az, nk, MPI_DOUBLE, MPI_SUM, c->comm), "MPI_Allreduce (A Z)");
    for (int j = 0; !rc && j < nk; j++) {
        double rel = sqrt(az[j]) / c->norms.anorm;
        if (rel <= NULL_TOL) continue;
        if (j == 0 && c->ns->constant)
            return ovk__fail(OVK_EINVAL, "the constant vector is not in A's null space (||A z||_2 = %.3g ||A||_inf)",
                             rel);
        return ovk__fail(OVK_EINVAL, "null-space vector %d is not in A's null space (||A z||_2 = %.3g ||A||_inf for "
                                     "its orthonormalised z)", j - c->ns->constant, rel);
    }
    return rc;
}

int ovk__nullspace_append(ovk__ctx *c, double *vals, int k, int room, const double *u)
{
    int nk = ovk__nullspace_count(c);
    if (!nk) return k;
    for (int i = k; i < room; i++) vals[i] = 0.0;
    ovk__tic t0 = ovk__tic_start(c);
    const double *z[OVK__NULLSPACE_MAX], *y[OVK__NULLSPACE_MAX];
    for (int j = 0; j < nk; j++) {
        z[j] = c->ns->basis + (size_t)j * (size_t)c->n;
        y[j] = u;
    }
    ovk__dots(c->n, nk, z, y, vals + room, &c->hook); /* Z^T u, local */
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    return room + nk;
}

void ovk__nullspace_remove(ovk__ctx *c, const double *coef, double *u, double alpha, double *x)
{
    int nk = ovk__nullspace_count(c), n = c->n;
    if (!nk) return;
    ovk__tic t0 = ovk__tic_start(c);
    for (int j = 0; j < nk; j++) {
        const double *z = c->ns->basis + (size_t)j * (size_t)n;
        double cu = coef[j], cx = alpha * coef[j];
        if (x)
            for (int i = 0; i < n; i++) {
                u[i] -= cu * z[i]; /* u -= Z c */
                x[i] -= cx * z[i]; /* x took alpha u: x -= alpha Z c */
            }
        else
            for (int i = 0; i < n; i++) u[i] -= cu * z[i];
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* Collective: b - Z Z^T b (in c->ns->b) made exactly zero when it is
 * rounding of a b wholly in the null space: ||b - Z Z^T b|| below
 * min(rtol, 1e-10) ||b||, so that the solve answers x = 0, the
 * minimum-norm least-squares solution, at iteration 0 (it iterated on the
 * noise to ||r||/||b|| = 1e22 and a breakdown).  Summed only when Z^T b
 * holds nearly all of b: <b,b> - ||Z^T b||^2 cancels there. */
static int drop_noise(ovk__ctx *c, double bb, double bnn)
{
    double limit = fmin(c->opts->tol, 1e-10), pp = 0.0;
    if (!(bb > 0.0) || bb - bnn > 1e-2 * bb) return OVK_OK; /* at least a tenth of ||b|| is left */
    ovk__tic t0 = ovk__tic_start(c);
    pp = ovk__dot(c->n, c->ns->b, c->ns->b);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    int rc = ovk__sum(c, OVK__IPROD, &pp, 1);
    if (rc || !(pp <= limit * limit * bb)) return rc; /* reduced: every rank alike */
    memset(c->ns->b, 0, sizeof(double) * (size_t)c->n);
    return OVK_OK;
}

int ovk__nullspace_begin_solve(ovk__ctx *c)
{
    double sums[OVK__NULLSPACE_MAX + 1], bnn = 0.0; /* <b,b>, Z^T b */
    int nk = ovk__nullspace_count(c);
    if (!nk) return OVK_OK;
    if (c->n > 0) memcpy(c->ns->b, c->b, sizeof(double) * (size_t)c->n);
    ovk__tic t0 = ovk__tic_start(c);
    sums[0] = ovk__dot(c->n, c->b, c->b);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    int rc = ovk__sum(c, OVK__IPROD, sums, ovk__nullspace_append(c, sums, 1, 1, c->b));
    if (rc) return rc;
    ovk__nullspace_remove(c, sums + 1, c->ns->b, 0.0, NULL); /* b -= Z Z^T b */
    for (int j = 0; j < nk; j++) bnn += sums[1 + j] * sums[1 + j]; /* ||Z^T b||^2: Z orthonormal */
    c->res->nullspace_inconsistency = c->ns->inconsistency = sums[0] > 0.0 ? sqrt(bnn / sums[0]) : 0.0;
    c->b = c->ns->b;
    return drop_noise(c, sums[0], bnn);
}

int ovk__nullspace_end_solve(ovk__ctx *c)
{
    double coef[OVK__NULLSPACE_MAX]; /* Z^T x */
    int nk = ovk__nullspace_count(c);
    if (!nk) return OVK_OK;
    int rc = ovk__sum(c, OVK__IPROD, coef, ovk__nullspace_append(c, coef, 0, 0, c->x));
    if (rc) return rc;
    for (int j = 0; j < nk; j++) /* a failed callback's NaN sums leave x as it is */
        if (!isfinite(coef[j])) return OVK_OK;
    ovk__nullspace_remove(c, coef, c->x, 0.0, NULL); /* x -= Z Z^T x */
    return OVK_OK;
}
