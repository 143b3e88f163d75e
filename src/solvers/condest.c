/* The Lanczos condition estimate.  CG's coefficients define the Lanczos
 * tridiagonal matrix T of the preconditioned operator (Saad, Iterative
 * Methods, 6.7.3): with alpha_j the step length of step j and beta_j the
 * coefficient that built p_j = z_j + beta_j p_{j-1} (beta_0 = 0),
 *
 *   T[j][j]   = 1/alpha_j + beta_j / alpha_{j-1}     (no second term for j = 0)
 *   T[j-1][j] = T[j][j-1] = sqrt(beta_j) / alpha_{j-1}
 *
 * Its extreme eigenvalues (Ritz values) approach those of the operator from
 * inside.  A restart (beta_j = 0) splits T into independent blocks, each the
 * Lanczos matrix of its own Krylov space. */
#include <math.h>
#include <stdlib.h>

#include "solver.h"

extern void dstev_(const char *jobz, const int *n, double *d, double *e, double *z, const int *ldz,
                   double *work, int *info);

int ovk__condest_begin(ovk__ctx *c)
{
    int rc = OVK_OK;
    c->lz_count = c->lz_cap = 0;
    if (!c->opts->condest || c->opts->max_iter < 1) return OVK_OK;
    size_t cap = (size_t)c->opts->max_iter;
    c->lz_alpha = malloc(sizeof(double) * cap);
    c->lz_beta = malloc(sizeof(double) * cap);
    if (!c->lz_alpha || !c->lz_beta) rc = ovk__fail(OVK_ENOMEM, "condition estimate of %d steps", c->opts->max_iter);
    rc = ovk__agree(c->A->lay.comm, rc);
    if (!rc) c->lz_cap = c->opts->max_iter;
    return rc;
}

/* d, e: the diagonal and off-diagonal of T from the k recorded steps */
static void build_t(const ovk__ctx *c, int k, double *d, double *e)
{
    const double *a = c->lz_alpha, *b = c->lz_beta;
    for (int j = 0; j < k; j++) {
        double bj = j > 0 ? fmax(b[j], 0.0) : 0.0;
        d[j] = 1.0 / a[j] + (j > 0 ? bj / a[j - 1] : 0.0);
        if (j > 0) e[j - 1] = sqrt(bj) / a[j - 1];
    }
}

void ovk__condest_end(ovk__ctx *c)
{
    int k = c->lz_count, info = 1, one = 1;
    double *d = k > 0 ? malloc(sizeof(double) * (size_t)k) : NULL;
    double *e = k > 0 ? malloc(sizeof(double) * (size_t)k) : NULL;
    double z = 0.0, work = 0.0; /* not referenced for jobz = 'N' */
    if (d && e) {
        build_t(c, k, d, e);
        dstev_("N", &k, d, e, &z, &one, &work, &info); /* eigenvalues of T, ascending */
    }
    if (info == 0) {
        c->res->lambda_min = d[0];
        c->res->lambda_max = d[k - 1];
        c->res->cond_est = d[0] > 0.0 ? d[k - 1] / d[0] : 0.0; /* T indefinite: breakdown */
    }
    free(d);
    free(e);
    free(c->lz_alpha);
    free(c->lz_beta);
    c->lz_alpha = c->lz_beta = NULL;
    c->lz_count = c->lz_cap = 0;
}
