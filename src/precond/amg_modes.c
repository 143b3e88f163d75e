/* amg's near-null space: the rigid-body modes of the coordinates (or the
 * application's near-null space vectors) handed to BoomerAMG's
 * interpolation, and setup=agg's tentative prolongator from them (amg.c's
 * opening comment has the method). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amg.h"

/* ---- rigid-body modes ------------------------------------------------- */

/* Collective: the global centroid of the nodes (rotations about it). */
static int centroid(ovk__amg *m, const ovk__pc_env *env, double *c)
{
    double s[4] = {0.0, 0.0, 0.0, 0.0};
    int dim = env->coord_dim;
    for (int k = 0; k < env->ncoords; k++)
        for (int d = 0; d < dim; d++) s[d] += env->coords[(size_t)k * dim + d];
    s[3] = env->ncoords;
    if (MPI_Allreduce(MPI_IN_PLACE, s, 4, MPI_DOUBLE, MPI_SUM, m->comm) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Allreduce (amg: centroid of the coordinates)");
    for (int d = 0; d < 3; d++) c[d] = s[3] > 0.0 ? s[d] / s[3] : 0.0;
    return OVK_OK;
}

/* mode k of node (x, y, z) relative to the centroid: rotations about z,
 * x and y (2-D: about z only) */
static void rotation(int k, const double *p, double *u)
{
    double x = p[0], y = p[1], z = p[2];
    u[0] = k == 0 ? -y : k == 1 ? 0.0 : z;
    u[1] = k == 0 ? x : k == 1 ? -z : 0.0;
    u[2] = k == 0 ? 0.0 : k == 1 ? y : -x;
}

/* Collective: the centroid c of the nodes, and room for `want` modes. */
static int prepare_modes(ovk__amg *m, const ovk__pc_env *env, int want, double *c)
{
    int rc = centroid(m, env, c);
    if (rc) return rc;
    m->modes = calloc((size_t)want, sizeof *m->modes);
    if (!m->modes) return ovk__fail(OVK_ENOMEM, "amg: modes");
    return OVK_OK;
}

/* Collective: the near-null space's vectors as modes, each less its mean
 * in each of the bs unknowns of a node (the translations, which nodal
 * coarsening carries: the rank owns whole nodes, check_blocks); a vector
 * left with less than 1e-6 of its norm (a translation) is dropped. */
static int modes_from_vectors(ovk__amg *m, const ovk__pc_env *env, HYPRE_BigInt lo, HYPRE_BigInt hi)
{
    enum { KMAX = 32, BSMAX = 16 };
    int bs = (int)m->o.bs, k = env->nns_k, n = env->n, keep[KMAX], kept = 0;
    double acc[KMAX * BSMAX + KMAX] = {0.0}, after[KMAX] = {0.0}, nodes = (double)env->A->lay.nglobal / bs;
    double *before = acc + (size_t)k * bs;
    for (int j = 0; j < k; j++) /* sums by unknown and <v, v> */
        for (int i = 0; i < n; i++) {
            double v = env->nns[(size_t)j * n + i];
            acc[j * bs + i % bs] += v;
            before[j] += v * v;
        }
    if (MPI_Allreduce(MPI_IN_PLACE, acc, k * bs + k, MPI_DOUBLE, MPI_SUM, m->comm) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Allreduce (amg: the near-null space's means)");
    for (int j = 0; j < k; j++) /* the means by unknown */
        for (int f = 0; f < bs; f++) acc[j * bs + f] /= nodes;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < n; i++) {
            double v = env->nns[(size_t)j * n + i] - acc[j * bs + i % bs];
            after[j] += v * v;
        }
    if (MPI_Allreduce(MPI_IN_PLACE, after, k, MPI_DOUBLE, MPI_SUM, m->comm) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Allreduce (amg: the near-null space's norms)");
    for (int j = 0; j < k; j++)
        if (after[j] > 1e-12 * before[j]) keep[kept++] = j;
    if (!kept) return OVK_OK;
    m->from_vectors = 1;
    int rc = ovk__agree(m->comm, (m->modes = calloc((size_t)kept, sizeof *m->modes)) ? OVK_OK
                                                                                   : ovk__fail(OVK_ENOMEM, "amg: modes"));
    for (int q = 0; q < kept && !rc; q++) {
        m->nmodes++;
        rc = ovk__amg_make_vector(m, lo, hi, env->A->lay.nglobal, &m->modes[q]);
        double *u = rc ? NULL : ovk__amg_local_data(m->modes[q]);
        for (int i = 0; u && i < n; i++) u[i] = env->nns[(size_t)keep[q] * n + i] - acc[keep[q] * bs + i % bs];
    }
    return rc;
}

/* Collective: the rotations as hypre vectors, when coordinates are given,
 * or the near-null space's modes. */
int ovk__amg_build_modes(ovk__amg *m, const ovk__pc_env *env, HYPRE_BigInt lo, HYPRE_BigInt hi)
{
    int dim = env->coord_dim, bs = (int)m->o.bs, want = dim == 3 ? 3 : 1;
    if (!m->o.rbm || bs == 1 || m->o.setup == SETUP_AGG) return OVK_OK; /* agg: agg_nullspace */
    if (env->nns_k > 0) return modes_from_vectors(m, env, lo, hi);
    if (dim == 0) return OVK_OK;
    double c[3];
    int rc = ovk__agree(m->comm, prepare_modes(m, env, want, c));
    if (rc) return rc;
    for (int k = 0; k < want; k++) {
        m->nmodes++;
        rc = ovk__amg_make_vector(m, lo, hi, env->A->lay.nglobal, &m->modes[k]);
        if (rc) return rc;
        double *u = ovk__amg_local_data(m->modes[k]), p[3] = {0.0, 0.0, 0.0}, v[3];
        for (int node = 0; node < env->ncoords; node++) {
            for (int d = 0; d < dim; d++) p[d] = env->coords[(size_t)node * dim + d] - c[d];
            rotation(k, p, v);
            for (int d = 0; d < bs; d++) u[(size_t)node * bs + d] = v[d];
        }
    }
    return OVK_OK;
}

/* ---- setup=agg's near-null space ---------------------------------------- */

/* Local: B's k vectors of the rank's n rows from env: the application's
 * vectors; the rigid-body modes of the coordinates about the centroid c
 * (translations, then rotations); or the constant of each unknown. */
static void fill_nullspace(const ovk__amg *m, const ovk__pc_env *env, int k, int modes, const double *c, double *B)
{
    int n = env->n, bs = (int)m->o.bs, dim = env->coord_dim;
    if (env->nns_k > 0 && m->o.rbm) {
        memcpy(B, env->nns, sizeof(double) * (size_t)n * (size_t)k);
        return;
    }
    memset(B, 0, sizeof(double) * (size_t)n * (size_t)k);
    for (int i = 0; i < n; i++) B[(size_t)(i % bs) * n + i] = 1.0; /* translations: unknown f of each node */
    for (int q = 0; q < modes; q++)
        for (int node = 0; node < env->ncoords; node++) {
            double p[3] = {0.0, 0.0, 0.0}, u[3];
            for (int d = 0; d < dim; d++) p[d] = env->coords[(size_t)node * dim + d] - c[d];
            rotation(q, p, u);
            for (int d = 0; d < bs; d++) B[(size_t)(bs + q) * n + (size_t)node * bs + d] = u[d];
        }
}

/* Collective: setup=agg's near-null space, k vectors of the rank's rows
 * one after the other (*B, malloc'd): the application's
 * (ovk_solver_set_near_nullspace) as given; with coordinates of dimension
 * bs (2 or 3) the rigid-body modes (bs translations, 1 or 3 rotations
 * about the centroid); else the constant of each of a node's bs unknowns.
 * rbm=0 takes the constants.  Zero on every rank (rank zero) or not finite
 * is OVK_EINVAL. */
static int agg_nullspace(ovk__amg *m, const ovk__pc_env *env, double **B, int *k)
{
    int bs = (int)m->o.bs, dim = env->coord_dim, vecs = env->nns_k > 0 && m->o.rbm;
    int modes = !vecs && m->o.rbm && bs > 1 && dim == bs ? (dim == 3 ? 3 : 1) : 0;
    double c[3] = {0.0, 0.0, 0.0};
    *k = vecs ? env->nns_k : bs + modes;
    int rc = modes ? centroid(m, env, c) : OVK_OK;
    *B = rc ? NULL : malloc(sizeof(double) * ((size_t)env->n * (size_t)*k + 1));
    if (!rc && !*B) rc = ovk__fail(OVK_ENOMEM, "amg: the near-null space (%d vectors)", *k);
    rc = ovk__agree(m->comm, rc);
    if (rc) return rc;
    fill_nullspace(m, env, *k, modes, c, *B);
    double s[2] = {0.0, 0.0}; /* sum of squares, non-finite entries */
    for (size_t i = 0; i < (size_t)env->n * (size_t)*k; i++) {
        double v = (*B)[i];
        if (isfinite(v)) s[0] += v * v;
        else s[1] += 1.0;
    }
    rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, m->comm), "MPI_Allreduce (amg near-null space)");
    if (!rc && s[1] > 0.0) rc = ovk__fail(OVK_EINVAL, "amg: the near-null space has %.0f entries that are not finite", s[1]);
    if (!rc && !(s[0] > 0.0))
        rc = ovk__fail(OVK_EINVAL, "amg: the near-null space has rank zero (its %d vectors are zero on every rank)", *k);
    return rc;
}

/* an update forms the products again (amg_reuse.c): unsmoothed
 * aggregation keeps the pattern of its own */
static int keep_products(const ovk__amg *m)
{
    return m->o.reuse > 0 && !m->o.agg_smooth && (m->o.reuse_coarse == RC_GALERKIN || m->singular);
}

/* Collective: setup=agg's hierarchy in hypre's object m->solver. */
int ovk__amg_agg_setup(ovk__amg *m, const ovk__pc_env *env)
{
    double *B = NULL;
    int k = 0;
    int rc = agg_nullspace(m, env, &B, &k);
    if (!rc) {
        ovk__amg_agg_opts ao = {(int)m->o.bs, m->o.agg_threshold, (int)m->o.agg_smooth, (int)m->o.max_levels,
                                (int)m->o.coarse_size, (int)m->o.agg_mis2, m->singular, m->o.agg_gather};
        rc = ovk__amg_agg_build((hypre_ParCSRMatrix *)m->A, (hypre_ParVector *)m->b, (hypre_ParVector *)m->x, k, B, &ao,
                                (hypre_ParAMGData *)m->solver, NULL, keep_products(m) ? m->rap : NULL);
    }
    m->agg_k = k;
    free(B);
    return rc;
}
