/* amg's near-null space: the rigid-body modes of the coordinates (rotations
 * about their centroid; amg_boomer.c hands them to BoomerAMG's
 * interpolation), and setup=agg's near-null space for its tentative
 * prolongator (amg.c's opening comment has the method).  No hypre type. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amg.h"

/* ---- rigid-body modes ------------------------------------------------- */

/* Collective: the global centroid of the nodes (rotations about it). */
int ovk__amg_centroid(ovk__amg *m, const ovk__pc_env *env, double *c)
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
void ovk__amg_rotation(int k, const double *p, double *u)
{
    double x = p[0], y = p[1], z = p[2];
    u[0] = k == 0 ? -y : k == 1 ? 0.0 : z;
    u[1] = k == 0 ? x : k == 1 ? -z : 0.0;
    u[2] = k == 0 ? 0.0 : k == 1 ? y : -x;
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
            ovk__amg_rotation(q, p, u);
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
int ovk__amg_agg_nullspace(ovk__amg *m, const ovk__pc_env *env, double **B, int *k)
{
    int bs = (int)m->o.bs, dim = env->coord_dim, vecs = env->nns_k > 0 && m->o.rbm;
    int modes = !vecs && m->o.rbm && bs > 1 && dim == bs ? (dim == 3 ? 3 : 1) : 0;
    double c[3] = {0.0, 0.0, 0.0};
    *k = vecs ? env->nns_k : bs + modes;
    int rc = modes ? ovk__amg_centroid(m, env, c) : OVK_OK;
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
