/* setup=agg inside the amg preconditioner: level 0 copied from the
 * solver's matrix into our level type at unit scale (as hypre's copy is
 * for setup=boomeramg), the near-null space (amg_modes.c), the hierarchy
 * (amg_agg.c), and a value update's Galerkin products on the kept
 * interpolations (reuse_coarse=galerkin, or a singular A).  No hypre. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg.h"

/* an update forms the products again (amg_reuse.c): unsmoothed
 * aggregation keeps the pattern of its own */
static int keep_products(const ovk__amg *m)
{
    return m->o.reuse > 0 && !m->o.agg_smooth && (m->o.reuse_coarse == RC_GALERKIN || m->singular);
}

/* Local: level 0's values times 2^-scale_exp: a product with the power of
 * two rounds as ldexp does (once, exactly when no underflow); ldexp where
 * 2^-e itself overflows */
static void scale_values(ovk__amg_csr *A, int e)
{
    double s = ldexp(1.0, -e), *v[2] = {A->dval, A->oval};
    int nnz[2] = {ovk__amg_csr_dnnz(A), ovk__amg_csr_onnz(A)};
    for (int b = 0; b < 2 && e; b++) {
        if (isfinite(s))
            for (int k = 0; k < nnz[b]; k++) v[b][k] *= s;
        else
            for (int k = 0; k < nnz[b]; k++) v[b][k] = ldexp(v[b][k], -e);
    }
}

/* Collective: level 0 scaled by 2^-e, its largest entry in [0.5, 1) (e over
 * every rank): the setup multiplies entries together (smoothing, Galerkin
 * products), which at 1e-300 underflow.  A power of two scales exactly. */
static int unit_scale(ovk__amg *m)
{
    const ovk__amg_csr *A = m->A0;
    double amax = 0.0;
    for (int k = 0; k < ovk__amg_csr_dnnz(A); k++)
        if (fabs(A->dval[k]) > amax) amax = fabs(A->dval[k]); /* fmax's result, NaNs ignored */
    for (int k = 0; k < ovk__amg_csr_onnz(A); k++)
        if (fabs(A->oval[k]) > amax) amax = fabs(A->oval[k]);
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, &amax, 1, MPI_DOUBLE, MPI_MAX, m->comm),
                      "MPI_Allreduce (amg: the largest entry)");
    if (rc) return rc;
    m->scale_exp = 0;
    if (amax > 0.0 && isfinite(amax)) frexp(amax, &m->scale_exp);
    scale_values(m->A0, m->scale_exp);
    return OVK_OK;
}

int ovk__amg_agg_setup(ovk__amg *m, const ovk__pc_env *env)
{
    double t0 = MPI_Wtime(), *B = NULL;
    int k = 0;
    int rc = ovk__amg_csr_of_matrix(m->comm, env->A, 0, &m->A0);
    if (!rc) rc = unit_scale(m);
    double t1 = MPI_Wtime();
    if (!rc) rc = ovk__amg_agg_nullspace(m, env, &B, &k);
    if (!rc) {
        ovk__amg_agg_opts ao = {(int)m->o.bs, m->o.agg_threshold, (int)m->o.agg_smooth, (int)m->o.max_levels,
                                (int)m->o.coarse_size, (int)m->o.agg_mis2, m->singular, m->o.agg_gather};
        rc = ovk__amg_agg_build(m->A0, k, B, &ao, &m->agg, NULL, keep_products(m) ? m->rap : NULL);
    }
    m->agg_k = k;
    m->t_copy = t1 - t0, m->t_hypre = MPI_Wtime() - t1;
    free(B);
    return rc;
}

void ovk__amg_agg_release(ovk__amg *m)
{
    ovk__amg_agg_hier_free(&m->agg);
    ovk__amg_csr_free(m->A0);
    m->A0 = NULL;
}

int ovk__amg_agg_values(ovk__amg *m, const ovk_matrix *A)
{
    ovk__amg_csr *L = m->A0;
    int no = ovk__amg_csr_onnz(L);
    int rc = ovk__matrix_diag_fill(A, L->dptr, L->dcol, L->dval); /* the pattern kept: the same rows */
    if (rc) return rc;
    if (no) memcpy(L->oval, A->offd.val, sizeof(double) * (size_t)no);
    scale_values(L, m->scale_exp);
    return OVK_OK;
}

int ovk__amg_agg_products(ovk__amg *m)
{
    ovk__amg_agg_hier *h = &m->agg;
    int rc = OVK_OK;
    for (int l = 0; !rc && l + 1 < h->nlev; l++) {
        if (m->rap[l]) { /* the kept product: its sums on A_{l+1}'s storage */
            rc = ovk__amg_rap_values(m->rap[l], h->A[l], h->A[l + 1]);
            continue;
        }
        ovk__amg_csr *C = NULL;
        rc = ovk__amg_rap_build(h->A[l], h->P[l], &C, NULL);
        if (!rc) ovk__amg_csr_free(h->A[l + 1]), h->A[l + 1] = C;
    }
    return rc;
}
