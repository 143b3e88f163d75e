/* amg's value update on the kept coarsening and interpolation (reuse=K):
 * the drift of the values since the full setup, level 0's smoother on the
 * new values with its bound carried over, or hypre's Galerkin products
 * formed again (amg.c's opening comment has the method and its bounds). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amg.h"

/* Collective: our cycle on the new coarse operators: the levels' values
 * and smoother bounds on their kept storage, or made anew where a level's
 * pattern moved (hypre's product keeps P^T A P's structural entries, so it
 * should not; the matrix layer checks).  On an error no cycle is left: the
 * next setup is a full one. */
static int cycle_refresh(ovk__amg *m, const ovk_matrix *A)
{
    double t0 = MPI_Wtime();
    int rc = ovk__amg_cycle_refresh(m->cycle, m->comm);
    m->t_cycle = MPI_Wtime() - t0;
    if (!rc) return OVK_OK;
    ovk__amg_cycle_free(m->cycle);
    m->cycle = NULL;
    if (rc != OVK_EMISMATCH) return rc;
    m->relaid++;
    return ovk__amg_cycle_setup_ours(m, A);
}

/* Collective: level 0's smoother on the new values from their l1 norms
 * and the bound's rho and gamma (the coarse levels kept).  On an error no
 * cycle is left: the next setup is a full one. */
static int refresh_level0(ovk__amg *m, const double *l1, double rho, double gamma)
{
    double t0 = MPI_Wtime();
    int derived = 0;
    int rc = ovk__amg_cycle_refresh_bound(m->cycle, m->comm, l1, rho, gamma, &derived);
    m->t_cycle = MPI_Wtime() - t0;
    m->derived += derived;
    if (!rc) return OVK_OK;
    ovk__amg_cycle_free(m->cycle);
    m->cycle = NULL;
    return rc;
}

/* ---- a value update on the kept coarsening and interpolation ---------- */


/* the number of values of A's diag block and offd block as stored */
static size_t block_values(const ovk__csr *b, int n) { return n > 0 ? (size_t)b->rowptr[n] : 0; }

/* keep's default reuse_scale=diag applies: not for a singular A, whose
 * update forms the Galerkin products (update_setup) */
static int scaling(const ovk__amg *m) { return m->o.reuse_scale == RS_DIAG && !m->singular; }

/* change_i += sum_j |a_ij w_i w_j - a0_ij| and l1_i += sum_j |a_ij| over
 * row i's entries of A's diag then offd block, in one pass over the values
 * (l1 summed in the order of the cycle's own l1 norms: the same bits); a
 * diag block that keeps one triangle adds a_ji's parts to row j's too.
 * w: the rows' factors, ext their values at the offd columns (NULL: 1);
 * a0: the values to compare with, diag then offd (NULL: l1 only). */
static void rows_pass(const ovk_matrix *A, const double *a0, const double *w, const double *ext, double *change,
                      double *l1)
{
    const ovk__csr *blk[2] = {&A->diag, &A->offd};
    int n = A->lay.nlocal;
    const double *a0b[2] = {a0, a0 ? a0 + block_values(&A->diag, n) : NULL}, *wc[2] = {w, ext};
    for (int i = 0; i < n; i++) {
        double ch = 0.0, sum = 0.0, wi = w ? w[i] : 1.0;
        for (int q = 0; q < 2; q++) {
            const ovk__csr *b = blk[q];
            for (int k = b->rowptr[i]; k < b->rowptr[i + 1]; k++) {
                int j = ovk__csr_col(b, i, k);
                double a = fabs(b->val[k]), dv = a0 ? fabs(b->val[k] * wi * (w ? wc[q][j] : 1.0) - a0b[q][k]) : 0.0;
                ch += dv, sum += a;
                if (b->upper && j != i) change[j] += dv, l1[j] += a; /* a_ji, not stored (j > i) */
            }
        }
        change[i] += ch, l1[i] += sum;
    }
}

/* Local: A's values at the full setup (its blocks as stored), against
 * which updates drift, and room for the drift's row sums; with
 * reuse_scale=diag its diagonal and room for the scaling. */
int ovk__amg_keep_values(ovk__amg *m, const ovk_matrix *A)
{
    size_t nd = block_values(&A->diag, m->n), no = block_values(&A->offd, m->n), n = (size_t)m->n;
    int scale = scaling(m);
    free(m->vals0), free(m->row_sums), free(m->diag0), free(m->sinv);
    m->diag0 = m->sinv = NULL;
    m->vals0 = malloc(sizeof(double) * (nd + no + 1));
    m->row_sums = malloc(sizeof(double) * (3 * n + 1));
    if (scale) m->diag0 = malloc(sizeof(double) * (n + 1)), m->sinv = malloc(sizeof(double) * (n + 1));
    if (!m->vals0 || !m->row_sums || (scale && (!m->diag0 || !m->sinv))) {
        free(m->vals0), free(m->row_sums), free(m->diag0), free(m->sinv);
        m->vals0 = m->row_sums = m->diag0 = m->sinv = NULL; /* no vals0: the next setup is a full one */
        return ovk__fail(OVK_ENOMEM, "amg: a copy of %zu values (reuse)", nd + no);
    }
    if (nd) memcpy(m->vals0, A->diag.val, sizeof(double) * nd);
    if (no) memcpy(m->vals0 + nd, A->offd.val, sizeof(double) * no);
    if (scale && n) memcpy(m->diag0, A->diagonal, sizeof(double) * n);
    double *size0 = m->row_sums + 2 * n; /* the drift's denominators, the bound's d0_i */
    for (size_t i = 0; i < 3 * n; i++) m->row_sums[i] = 0.0;
    rows_pass(A, NULL, NULL, NULL, m->row_sums, size0);
    return OVK_OK;
}

/* What an update's pass over the values finds: the largest drift of a
 * row, the bound's rho and gamma (ovk__amg_cycle_refresh_bound) */
typedef struct update_pass {
    double drift, rho, gamma;
    double l1_max; /* the largest l1 norm of a row: the rank's ||A||_inf */
} update_pass;

/* max(*worst, q), infinite for a NaN q */
static void raise_to(double *worst, double q)
{
    if (!(q <= *worst)) *worst = q == q ? q : INFINITY;
}

/* the row's parts of the maxima: its drift c / d0 and d0 / e, c / e
 * (c: ||b_i - a0_i||_1, d0: ||a0_i||_1, e: d_i s_i^-2) */
static inline void row_maxima(update_pass *u, double c, double d0, double e)
{
    raise_to(&u->drift, d0 > 0.0 ? c / d0 : c > 0.0 ? INFINITY : 0.0);
    raise_to(&u->rho, e > 0.0 ? d0 / e : d0 > 0.0 ? INFINITY : 0.0);
    raise_to(&u->gamma, e > 0.0 ? c / e : c > 0.0 ? INFINITY : 0.0);
}

/* values_pass for a scaled update of a diag block with both triangles:
 * the same sums in the same order, each row's maxima taken as its sums
 * end (no row gets parts from another); the diag block's columns as
 * 16-bit offsets or int, a loop for each */
static update_pass scaled_pass(const ovk_matrix *A, const double *a0, const double *w, const double *ext,
                               const double *d0, double *l1)
{
    const ovk__csr *d = &A->diag, *o = &A->offd;
    int n = A->lay.nlocal;
    const int *restrict dp = d->rowptr, *restrict dc = d->col, *restrict op = o->rowptr, *restrict oc = o->col;
    const int16_t *restrict off = d->off16;
    const double *restrict dv = d->val, *restrict ov = o->val, *restrict a0o = a0 + block_values(d, n);
    update_pass u = {0.0, 0.0, 0.0, 0.0};
    for (int i = 0; i < n; i++) {
        double c = 0.0, s = 0.0, wi = w[i];
        if (off)
            for (int k = dp[i]; k < dp[i + 1]; k++) {
                c += fabs(dv[k] * wi * w[i + off[k]] - a0[k]);
                s += fabs(dv[k]);
            }
        else
            for (int k = dp[i]; k < dp[i + 1]; k++) {
                c += fabs(dv[k] * wi * w[dc[k]] - a0[k]);
                s += fabs(dv[k]);
            }
        for (int k = op[i]; k < op[i + 1]; k++) {
            c += fabs(ov[k] * wi * ext[oc[k]] - a0o[k]);
            s += fabs(ov[k]);
        }
        l1[i] = s;
        u.l1_max = fmax(u.l1_max, s);
        row_maxima(&u, c, d0[i], s * wi * wi);
    }
    return u;
}

/* Local: one pass over A's values against the full setup's (vals0): per
 * row c_i = ||b_i - a0_i||_1 for B = S^-1 A S^-1 (sinv = S^-1; ext its
 * values at A's offd columns; NULL: S = I) and d_i = ||a_i||_1 (into
 * m->row_sums[n, 2 n): the smoother's l1 norms); the drift c_i / d0_i
 * (infinite for a NaN), rho = max d0_i / e_i and gamma = max c_i / e_i with
 * e_i = d_i sinv_i^2 (d0_i: the l1 norms of vals0) */
static update_pass values_pass(const ovk__amg *m, const ovk_matrix *A, const double *sinv, const double *ext)
{
    int n = m->n;
    double *change = m->row_sums, *l1 = m->row_sums + n, *d0 = m->row_sums + 2 * n;
    if (sinv && !A->diag.upper) return scaled_pass(A, m->vals0, sinv, ext, d0, l1);
    update_pass u = {0.0, 0.0, 0.0, 0.0};
    for (int i = 0; i < 2 * n; i++) m->row_sums[i] = 0.0;
    rows_pass(A, m->vals0, sinv, ext, change, l1);
    for (int i = 0; i < n; i++) {
        u.l1_max = fmax(u.l1_max, l1[i]);
        row_maxima(&u, change[i], d0[i], sinv ? l1[i] * sinv[i] * sinv[i] : l1[i]);
    }
    return u;
}

/* Local: A's new values into the hierarchy's copy of level 0 (hypre's or
 * ours); then (collective) the Galerkin products again on the kept
 * interpolations */
static int new_values(ovk__amg *m, const ovk_matrix *A)
{
#ifdef OVK_HAVE_HYPRE
    if (m->o.setup == SETUP_BOOMERAMG) return ovk__amg_boomer_values(m, A);
#endif
    return ovk__amg_agg_values(m, A);
}

static int products_again(ovk__amg *m)
{
#ifdef OVK_HAVE_HYPRE
    if (m->o.setup == SETUP_BOOMERAMG) return ovk__amg_boomer_products(m);
#endif
    return ovk__agree(m->comm, ovk__amg_agg_products(m));
}

/* Collective with A's halo neighbours: m->sinv = sqrt(a0_ii / a_ii) (the
 * inverse of S in A = S A_0 S, A_0 the full setup's values, were A such a
 * scaling of it), its values at A's offd columns in A's halo
 * (A->halo.ext); lim[0] = -min, lim[1] = max over the rank's rows
 * (infinite for a factor outside [2^-32, 2^32], NaN included: the float
 * weights of S^-1 P_0 would over- or underflow; a full setup).  A failed
 * exchange is this rank's status only: the caller agrees on it. */
static int diag_scaling(ovk__amg *m, const ovk_matrix *A, double *lim)
{
    for (int i = 0; i < m->n; i++) {
        double w = sqrt(m->diag0[i] / A->diagonal[i]);
        m->sinv[i] = w;
        if (!(w >= 0x1p-32 && w <= 0x1p32)) lim[0] = lim[1] = INFINITY; /* a full setup */
        if (-w > lim[0]) lim[0] = -w;
        if (w > lim[1]) lim[1] = w;
    }
    int rc = ovk__halo_begin(A, m->sinv);
    return rc ? rc : ovk__halo_end(A);
}

/* Collective: the new values on the kept hierarchy (*kept = 1): with
 * reuse_coarse=galerkin in the hierarchy's copy of A, the Galerkin products and our
 * levels; with keep in level 0's smoother only (the coarse levels stay
 * those of the full setup), its l1 norms and bound from the one pass over
 * the values that measures the drift.  Nothing done (*kept = 0: the caller
 * sets up afresh) when a row of A drifted past reuse_tol since the full
 * setup. */
int ovk__amg_update_setup(ovk__amg *m, const ovk__pc_env *env, int *kept)
{
    *kept = 0;
    double t0 = MPI_Wtime();
    /* keep forms the products all the same for a singular A (a declared
     * null space): stale coarse levels no longer carry A's null space
     * exactly, which CG on a singular A needs */
    int galerkin = m->o.reuse_coarse == RC_GALERKIN || m->singular;
    const double *sinv = galerkin ? NULL : m->sinv; /* NULL: no scaling */
    /* the drift, -min and max of sinv, the scaling's failed exchange
     * (-status), rho and gamma, in one reduction: every rank the same
     * decision */
    double lim[6] = {0.0, -INFINITY, -INFINITY, 0.0, 0.0, 0.0};
    int rc = sinv ? diag_scaling(m, env->A, lim + 1) : OVK_OK;
    lim[3] = -(double)rc;
    update_pass u = {0.0, 0.0, 0.0, 0.0};
    if (!rc) {
        u = values_pass(m, env->A, sinv, sinv ? env->A->halo.ext : NULL);
        lim[0] = u.drift, lim[4] = u.rho, lim[5] = u.gamma;
    }
    int mrc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, lim, 6, MPI_DOUBLE, MPI_MAX, m->comm), "MPI_Allreduce (amg drift)");
    if (mrc) return mrc;
    int worst = (int)-lim[3]; /* the most negative status of any rank */
    if (worst) return rc == worst ? rc : ovk__fail(worst, "amg: a rank's halo exchange of the diagonal scaling failed");
    if (sinv && !(isfinite(lim[1]) && isfinite(lim[2]))) lim[0] = INFINITY; /* a factor out of range */
    m->drift = lim[0];
    m->sinv_lo = sinv ? -lim[1] : 1.0, m->sinv_hi = sinv ? lim[2] : 1.0;
    if (!(m->drift <= m->o.reuse_tol)) return OVK_OK;
    if (galerkin) rc = ovk__agree(m->comm, new_values(m, env->A));
    if (rc) return rc;
    double t1 = MPI_Wtime();
    if (galerkin) {
        rc = ovk__amg_cycle_scale(m->cycle, m->comm, NULL); /* the products on P_0 as set up */
        if (rc) return rc;
        rc = products_again(m);
        if (rc) return rc;
    }
    m->t_copy = t1 - t0, m->t_hypre = MPI_Wtime() - t1;
    rc = galerkin ? cycle_refresh(m, env->A) : refresh_level0(m, m->row_sums + m->n, lim[4], lim[5]);
    if (!rc && !galerkin) rc = ovk__amg_cycle_scale(m->cycle, m->comm, sinv);
    if (rc) return rc;
    if (env->row_l1_max) *env->row_l1_max = u.l1_max; /* the pass's l1 norms are the solver's too */
    m->updates++, m->reuses++;
    *kept = 1;
    return OVK_OK;
}
