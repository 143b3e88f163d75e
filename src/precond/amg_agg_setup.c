/* setup=agg inside the amg preconditioner: level 0 copied from the
 * solver's matrix into our level type at unit scale (as hypre's copy is
 * for setup=boomeramg), the near-null space (amg_modes.c), the hierarchy
 * (amg_agg.c), and a value update's Galerkin products on the kept
 * interpolations (reuse_coarse=galerkin, or a singular A).  No hypre. */
#include <stdlib.h>
#include <string.h>

#include "amg.h"

/* an update forms the products again (amg_reuse.c): unsmoothed
 * aggregation keeps the pattern of its own */
static int keep_products(const ovk__amg *m)
{
    return m->o.reuse > 0 && !m->o.agg_smooth && (m->o.reuse_coarse == RC_GALERKIN || m->singular);
}

/* Local: level 0's blocks as the scaling's pair */
static void blocks_of(ovk__amg_csr *A, double *v[2], int nnz[2])
{
    v[0] = A->dval, v[1] = A->oval;
    nnz[0] = ovk__amg_csr_dnnz(A), nnz[1] = ovk__amg_csr_onnz(A);
}

int ovk__amg_agg_setup(ovk__amg *m, const ovk__pc_env *env)
{
    double t0 = MPI_Wtime(), *B = NULL;
    int k = 0;
    int rc = ovk__amg_csr_of_matrix(m->comm, env->A, 0, &m->A0);
    double *v[2];
    int nnz[2];
    if (!rc) blocks_of(m->A0, v, nnz), rc = ovk__amg_unit_scale(m->comm, v, nnz, &m->scale_exp);
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
    double *v[2];
    int nnz[2];
    blocks_of(L, v, nnz);
    ovk__amg_scale_values(v, nnz, m->scale_exp);
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
