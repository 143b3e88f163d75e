/* Restarted GMRES (Saad and Schultz, SISSC 7, 1986) with right
 * preconditioning, A C u = b, x = C u: the residual the Givens rotations
 * give is that of b - A x (in exact arithmetic), so the monitor and the
 * exit test see the true residual.  One cycle of restart length M:
 *
 *   v_0 = r / ||r||
 *   for j = 0 .. M-1:  w = A C u_j, orthogonalised against the basis
 *     orth=dcgs2 (default): u_j has had one classical pass; one reduction
 *       gives its second pass (v_j, and H's column j-1 completed) and w's
 *       first (column j, u_{j+1}); see "one DCGS2 cycle" below
 *     orth=cgs: v_j final, classical passes as refine= says: never (one
 *       pass, the norm summed after it: two reductions, PETSc's),
 *       ifneeded (a second pass below Kahan's 1/sqrt 2), always
 *     rotate column j: |g_{j+1}| = ||b - A x_j||  -> the iteration's check
 *   x += C V c (fgmres: x += Z c), c from y = R^-1 g
 *   r = b - A x, <r,r> (one reduction): the true residual decides
 *
 * The safeguard (the end of a cycle, run()): an update that raised the
 * true residual is undone; a cycle undone, or whose true residual lost
 * what its estimate promised, switches the next cycles to two classical
 * passes per step; undone again, the solve stops with a breakdown naming
 * it.  The shared parts (the least-squares problem, the end of a cycle,
 * the classical cycle) also serve pgmres.c; the passes over the vectors
 * are in gmres_kernels.c (gmres.h). */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "gmres.h"

typedef struct gmres_work {
    double *r;                          /* the frame's residual; scratch at a cycle's end */
    double *t;                          /* C v_j (gmres), V y */
    double *V[OVK__MAX_RESTART + 1];    /* the Arnoldi basis (basis=single: V[0], V[1] hold w and v_j) */
    double *Z[OVK__MAX_RESTART];        /* fgmres: z_j = C v_j */
    float *F[OVK__MAX_RESTART + 1];     /* basis=single: the Arnoldi basis, in one block from F[0] */
    double *fallback;                   /* basis=single: V[2..M] once a solve fell back to double */
    ovk__arnoldi ls;
    int m, flexible, refine, basis, orth, orthloss;
    int fell_back_at;                   /* the last solve's iteration of the fallback, or -1 */
    int no_room;                        /* the fallback's vectors could not be had (on some rank) */
    int guard_at, guard_undone;         /* the last solve's safeguard: from the end of iteration, or -1 */
    double guard_true, guard_est, guard_start; /* the cycle's true residual, estimate, start */
    double loss;                        /* orthloss: ||I - V^T V||_F of the last cycle's loss_k vectors */
    int loss_k;
} gmres_work;

/* ---- the least-squares problem ------------------------------------------ */

int ovk__arnoldi_alloc(ovk__arnoldi *a, int m)
{
    memset(a, 0, sizeof *a);
    a->m = m;
    a->h = calloc((size_t)(m + 1) * (size_t)(2 * m + 1) + 4 * (size_t)(m + 1), sizeof(double)); /* h, s: m + 1 columns */
    if (!a->h) return ovk__fail(OVK_ENOMEM, "a Hessenberg matrix of restart %d", m);
    a->cs = a->h + (size_t)(m + 1) * (size_t)m;
    a->sn = a->cs + m + 1;
    a->g = a->sn + m + 1;
    a->y = a->g + m + 1;
    a->s = a->y + m + 1;
    return OVK_OK;
}

void ovk__arnoldi_free(ovk__arnoldi *a)
{
    free(a->h);
    memset(a, 0, sizeof *a);
}

void ovk__arnoldi_start(ovk__arnoldi *a, double beta)
{
    memset(a->g, 0, sizeof(double) * (size_t)(a->m + 1));
    a->g[0] = beta;
    a->lagged = 0;
}

double *ovk__arnoldi_lagged(ovk__arnoldi *a, int j) { return a->s + (size_t)j * (size_t)(a->m + 1); }

double *ovk__arnoldi_column(ovk__arnoldi *a, int j) { return a->h + (size_t)j * (size_t)(a->m + 1); }

double ovk__arnoldi_rotate(ovk__arnoldi *a, int j)
{
    double *h = ovk__arnoldi_column(a, j);
    for (int i = 0; i < j; i++) { /* the earlier rotations */
        double t = a->cs[i] * h[i] + a->sn[i] * h[i + 1];
        h[i + 1] = -a->sn[i] * h[i] + a->cs[i] * h[i + 1];
        h[i] = t;
    }
    double d = hypot(h[j], h[j + 1]);
    a->cs[j] = d > 0.0 ? h[j] / d : (isnan(d) ? d : 1.0); /* NaN: the estimate too, not a rotation by 0 */
    a->sn[j] = d > 0.0 ? h[j + 1] / d : (isnan(d) ? d : 0.0);
    h[j] = d;
    h[j + 1] = 0.0;
    a->g[j + 1] = -a->sn[j] * a->g[j];
    a->g[j] *= a->cs[j];
    return fabs(a->g[j + 1]);
}

double ovk__arnoldi_solve(ovk__arnoldi *a, int k)
{
    double rmin = INFINITY;
    for (int i = k - 1; i >= 0; i--) { /* R y = g, back substitution */
        double s = a->g[i];
        for (int j = i + 1; j < k; j++) s -= ovk__arnoldi_column(a, j)[i] * a->y[j];
        double d = ovk__arnoldi_column(a, i)[i];
        rmin = fmin(rmin, fabs(d));
        a->y[i] = s / d;
    }
    return rmin;
}

/* ---- the end of a cycle ------------------------------------------------- */

/* The per-step check; after a cycle whose estimate met the tolerance and
 * whose true residual did not (cy->deeper), an estimate that meets it does
 * not end the cycle: short cycles near the attainable accuracy each gained
 * nothing (watt_2, Jacobi: one step per cycle at 1.005e-8 for rtol 1e-8) */
static int step_check(ovk__ctx *c, const ovk__gmres_cycle *cy, int iter, double rr, double bb, int *stop)
{
    int rc = ovk__iterate_check(c, iter, rr, bb, stop);
    if (!rc && *stop && cy->deeper && c->res->reason == OVK_REASON_CONVERGED) {
        c->res->reason = OVK_REASON_NONE;
        *stop = 0;
    }
    return rc;
}

/* the coefficients of the update on the stored vectors from y: dcgs2's
 * column j is that of u_j / alpha_j = v_j + V s_j / alpha_j (fgmres: of
 * Z_j / alpha_j, Z_j = C u_j) */
static void update_coefficients(ovk__arnoldi *ls, int k, int flexible, double *coef)
{
    for (int i = 0; i < k; i++) coef[i] = ls->y[i];
    if (!ls->lagged) return;
    if (flexible) {
        for (int j = 0; j < k; j++) coef[j] *= ovk__arnoldi_lagged(ls, j)[j];
        return;
    }
    for (int j = 1; j < k; j++)
        for (int i = 0; i < j; i++) coef[i] += ovk__arnoldi_lagged(ls, j)[i] * ls->y[j];
}

/* d = the cycle's update of x (x += d): Z coef, or C (V coef) */
static int update_vector(ovk__ctx *c, const ovk__gmres_cycle *cy, const double *coef, double *d)
{
    int n = c->n;
    memset(d, 0, sizeof(double) * (size_t)n);
    if (cy->Z) {
        ovk__gmres_combine(c, cy->k, (const double *const *)cy->Z, coef, 1.0, d);
        return OVK_OK;
    }
    ovk__basis b = cy->F ? (ovk__basis){.nf = cy->k, .F = (const float *const *)cy->F}
                    : (ovk__basis){.nd = cy->k, .X = (const double *const *)cy->V};
    memset(cy->t, 0, sizeof(double) * (size_t)n);
    ovk__basis_combine(c, &b, coef, 1.0, cy->t, NULL);
    return ovk__ctx_pc(c, cy->t, d);
}

/* no NaN or Inf in v (local) */
static int finite_vector(const double *v, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += v[i] * 0.0; /* NaN when some v_i is NaN or Inf */
    return s == 0.0;
}

/* r = b - A x into out, *rr = <r,r> (one reduction) */
/* x is the cycle's start (no update): the result's residual is its true
 * one, ||r||^2 = rr, not the last step's estimate */
static int start_residual(ovk__ctx *c, double rr, double bb)
{
    if (isfinite(rr) && bb > 0.0) c->res->rel_residual = sqrt(rr / bb);
    return OVK_OK;
}

/* after an undo (x -= d, d in r when updated): r = b - A x and, in the
 * same reduction, ||r||^2 (rr), ||d||^2 and ||x||^2 (cy->dd, cy->xx) */
static int undone_residual(ovk__ctx *c, ovk__gmres_cycle *cy, int updated, double *rr)
{
    double v[3] = {0.0, updated ? ovk__dot(c->n, cy->r, cy->r) : 0.0, ovk__dot(c->n, c->x, c->x)};
    int rc = ovk__ctx_residual(c, cy->r);
    if (rc) return rc;
    ovk__gmres_dots(c, 1, (const double *const[]){cy->r}, cy->r, v);
    rc = ovk__sum(c, OVK__IPROD, v, 3);
    *rr = v[0];
    cy->dd = v[1];
    cy->xx = v[2];
    return rc;
}

/* A cycle's update that raised the true residual by more than GROW (more
 * than rounding at the attainable accuracy does), or above the solve's
 * initial residual, is undone */
static const double GROW = 1.1;

int ovk__gmres_cycle_end(ovk__ctx *c, ovk__gmres_cycle *cy, double bb, double *rr, int *stop)
{
    int rc;
    double rr_start = *rr, coef[OVK__MAX_RESTART + 1];
    ovk_reason why = c->res->reason;
    *stop = 1;
    cy->reverted = 0;
    cy->rr_end = rr_start;
    if (why == OVK_REASON_NONFINITE || why == OVK_REASON_BREAKDOWN) /* y is meaningless: x stays the start */
        return start_residual(c, rr_start, bb);
    int updated = 0;
    if (cy->k > 0) {
        double rmin = ovk__arnoldi_solve(cy->ls, cy->k);
        if (ovk__breakdown(c, cy->iter, "the smallest diagonal entry of the rotated Hessenberg matrix", rmin, 0))
            return start_residual(c, rr_start, bb);
        update_coefficients(cy->ls, cy->k, cy->Z != NULL, coef);
        rc = update_vector(c, cy, coef, cy->r); /* d in r */
        if (rc) return rc;
        updated = finite_vector(cy->r, c->n); /* a NaN here (a failed callback) spares x, and poisons rr */
        if (updated) ovk__ctx_axpy(c, 1.0, cy->r, c->x); /* x += d */
    }
    if (why != OVK_REASON_NONE && why != OVK_REASON_CONVERGED) return OVK_OK; /* monitor, diverged: x is set */
    rc = ovk__ctx_residual(c, cy->t); /* t = b - A x */
    if (rc) return rc;
    ovk__gmres_dots(c, 1, (const double *const[]){cy->t}, cy->t, rr);
    if (cy->k > 0 && !updated) *rr = NAN;
    rc = ovk__sum(c, OVK__IPROD, rr, 1);
    if (rc) return rc;
    cy->rr_end = *rr;
    double rr0 = c->watch.rnorm0 * c->watch.rnorm0; /* the solve's start */
    double bound = cy->undo_rises ? GROW * GROW * rr_start : rr0;
    if (cy->k > 0 && !(*rr <= bound && *rr <= rr0) && isfinite(rr_start)) { /* raised, or NaN: undo */
        if (updated) ovk__ctx_axpy(c, -1.0, cy->r, c->x);
        cy->reverted = 1;
        rc = undone_residual(c, cy, updated, rr);
        if (rc) return rc;
    } else {
        memcpy(cy->r, cy->t, sizeof(double) * (size_t)c->n);
    }
    c->res->reason = OVK_REASON_NONE; /* the true residual decides */
    rc = ovk__iterate_check(c, cy->iter, *rr, bb, stop);
    if (rc || *stop) return rc;
    if (why == OVK_REASON_CONVERGED) cy->deeper = 1; /* the estimate's convergence not confirmed */
    if (cy->iter >= c->opts->max_iter) {
        c->res->reason = OVK_REASON_MAXIT;
        *stop = 1;
    }
    return OVK_OK;
}

/* ---- one classical cycle ------------------------------------------------ */

/* A second pass (refine=ifneeded) when ||w - V h||^2 = s kept less than
 * half of <w,w>: Kahan's 1/sqrt 2 on the norm (orthogonality to working
 * precision).  With refine=never the norm is not taken from Pythagoras
 * but summed again after the pass (PETSc's VecNormalize): s cancels as
 * the Krylov space nears an invariant one, and the rotations' residual
 * then stalled near sqrt(eps) ||b|| (and a false happy breakdown
 * followed) on a convection-diffusion matrix with ILU(0). */
static double enough(int refine) { return refine == OVK__REFINE_IFNEEDED ? 0.5 : INFINITY; }

/* ||w|| summed, h_{j+1,j} = ||w||, v_{j+1} = w / ||w|| (one reduction);
 * out (not NULL): its float copy */
static int normalise(ovk__ctx *c, double *v, double norm0, double *hnext, int *happy, float *out)
{
    double ww = 0.0;
    ovk__gmres_dots(c, 1, (const double *const[]){v}, v, &ww); /* <w,w> */
    int rc = ovk__sum(c, OVK__IPROD, &ww, 1);
    if (rc) return rc;
    *hnext = ww >= 0.0 ? sqrt(ww) : ww; /* NaN reaches the check through the rotation */
    *happy = isfinite(ww) && *hnext <= 8.0 * DBL_EPSILON * norm0;
    if (isfinite(ww) && !*happy) ovk__basis_combine(c, &(ovk__basis){0}, NULL, 1.0 / *hnext, v, out);
    return OVK_OK;
}

/* What step j orthogonalises w against, w the last of b's vectors (its own
 * dot gives <w,w>): V[0..j] (basis=double); F[0..j] (single); deferred,
 * F[0..j-1] and v = rho v_j in double.  out: the float copy of the
 * vector the step normalises (single), or NULL. */
typedef struct step_vectors {
    ovk__basis b;
    const double *X[OVK__MAX_RESTART + 2];
    double *w, *v;
    float *out;
} step_vectors;

/* single: w and v_j in V[0], V[1] (deferred: alternating; else v_j in
 * V[0], which w overwrites once C has read it) */
static void step_vectors_of(const ovk__gmres_cycle *cy, int j, int deferred, step_vectors *s)
{
    const float *const *F = (const float *const *)cy->F;
    if (!F) {
        *s = (step_vectors){.b = {.nd = j + 2, .X = s->X}, .w = cy->V[j + 1], .v = cy->V[j]};
        for (int i = 0; i <= j + 1; i++) s->X[i] = cy->V[i];
        return;
    }
    if (deferred) {
        *s = (step_vectors){.b = {.nf = j, .F = F, .nd = 2, .X = s->X}, .w = cy->V[(j + 1) & 1], .v = cy->V[j & 1],
                            .out = cy->F[j]};
        s->X[0] = s->v;
    } else {
        *s = (step_vectors){.b = {.nf = j + 1, .F = F, .nd = 1, .X = s->X}, .w = cy->V[0], .v = cy->V[0],
                            .out = cy->F[j + 1]};
    }
    s->X[s->b.nd - 1] = s->w;
}

/* Orthogonalise w against the basis into h (j + 2 entries, h[j+1] =
 * ||w|| after) and normalise it, each pass one reduction (V^T w with <w,w>)
 * and one sweep over w, the last one scaling; *happy when w vanished. */
static int orthogonalise(ovk__ctx *c, const step_vectors *sv, int refine, double *h, int *happy)
{
    double d[OVK__MAX_RESTART + 2], *v = sv->w;
    int j = sv->b.nf + sv->b.nd - 2;
    ovk__basis without_w = sv->b;
    without_w.nd--;
    memset(h, 0, sizeof(double) * (size_t)(j + 2));
    double norm0 = 0.0, s = 0.0;
    *happy = 0;
    for (int pass = 0; pass < 2; pass++) {
        ovk__basis_dots(c, &sv->b, v, d); /* V^T w, <w,w> */
        int rc = ovk__sum(c, OVK__IPROD, d, j + 2);
        if (rc) return rc;
        double hh = 0.0;
        for (int i = 0; i <= j; i++) {
            hh += d[i] * d[i];
            h[i] += d[i];
            d[i] = -d[i];
        }
        if (pass == 0) norm0 = sqrt(fmax(d[j + 1], 0.0));
        s = d[j + 1] - hh; /* ||w - V h||^2 */
        int summed = refine == OVK__REFINE_NEVER && isfinite(s); /* the norm summed after the pass */
        int last = pass == 1 || !isfinite(s) || summed || s > enough(refine) * d[j + 1];
        double norm = s > 0.0 ? sqrt(s) : 0.0, scale = 1.0;
        if (last && !summed) {
            *happy = isfinite(s) && norm <= 8.0 * DBL_EPSILON * norm0;
            if (isfinite(s) && !*happy) scale = 1.0 / norm;
        }
        /* w -= V h; the last pass: v_{j+1} = w / ||w|| */
        ovk__basis_combine(c, &without_w, d, scale, v, last && !summed ? sv->out : NULL);
        if (summed) return normalise(c, v, norm0, &h[j + 1], happy, sv->out);
        if (last) break;
    }
    h[j + 1] = s > 0.0 ? sqrt(s) : 0.0;
    if (!isfinite(s)) h[j + 1] = s; /* NaN reaches the check through the rotation */
    return OVK_OK;
}

/* refine=never without Z: one classical pass, the norm summed after it,
 * as orthogonalise, but no pass of its own to normalise w: v = V[j] holds
 * rho v_j (its scaling left from the step before; rho = 1 for v_0), so
 * w = A C V[j] = rho A C v_j, and
 *   d = [V[0..j], w]^T w  (one reduction): d_i = rho h_i, d_j = rho^2 h_j
 *   w = (w - sum_{i<j} d_i v_i - h_j V[j]) / rho;  V[j] /= rho
 *       (single: F[j] = V[j] / rho);  <w,w>        (one pass)
 *   h_{j+1,j} = ||w|| (one reduction); V[j+1] = w = h_{j+1,j} v_{j+1}:
 *   the next step's rho */
static int orthogonalise_deferred(ovk__ctx *c, const step_vectors *sv, double rho, double *h, int *happy)
{
    double d[OVK__MAX_RESTART + 2], ww = 0.0;
    int j = sv->b.nf + sv->b.nd - 2;
    ovk__basis without_w = sv->b;
    without_w.nd--;
    ovk__basis_dots(c, &sv->b, sv->w, d); /* V^T w, <w,w> */
    int rc = ovk__sum(c, OVK__IPROD, d, j + 2);
    if (rc) return rc;
    double norm0 = sqrt(fmax(d[j + 1], 0.0)) / rho;
    for (int i = 0; i < j; i++) {
        h[i] = d[i] / rho;
        d[i] = -d[i];
    }
    h[j] = d[j] / rho / rho;
    d[j] = -h[j];
    ovk__basis_combine_norm(c, &without_w, d, 1.0 / rho, sv->w, sv->v, 1.0 / rho, sv->out, &ww); /* w -= V h; v_j = V[j] / rho */
    rc = ovk__sum(c, OVK__IPROD, &ww, 1);
    if (rc) return rc;
    h[j + 1] = ww >= 0.0 ? sqrt(ww) : ww; /* NaN reaches the check through the rotation */
    *happy = isfinite(ww) && h[j + 1] <= 8.0 * DBL_EPSILON * norm0;
    return OVK_OK;
}

/* ---- one DCGS2 cycle ---------------------------------------------------- */

/* Classical Gram-Schmidt with the second pass delayed (DCGS2: Swirydowicz,
 * Langou, Ananthan, Yang and Thomas, NLAA 28, 2021; Bielich et al.,
 * Parallel Computing 112, 2022).  Step j multiplies the vector u_j that
 * has had one pass, and one reduction serves both passes:
 *
 *   w = A C u_j                                  (fgmres keeps Z_j = C u_j)
 *   [Q^T u_j, <u_j,u_j>, Q^T w, <u_j,w>]      Q = v_0..v_{j-1}   (one sum)
 *   second pass on u_j:  s = Q^T u_j,  alpha = sqrt(<u_j,u_j> - ||s||^2),
 *     v_j = (u_j - Q s) / alpha;  u_j = Q s + alpha v_j completes H's
 *     column j-1: h_{i,j-1} += s_i, h_{j,j-1} = alpha; rotated, it gives
 *     the residual of iteration j (the check lags one step)
 *   first pass on w:  tau = <v_j,w> = (<u_j,w> - s^T t) / alpha, t = Q^T w,
 *     u_{j+1} = (w - Q t - tau v_j) / alpha, column j = [t, tau] / alpha:
 *     A C (u_j / alpha) = [Q, v_j] h_j + u_{j+1}
 *
 * The cycle's last u_k gets its second pass in a reduction of its own.  H
 * is that of the vectors u_j / alpha_j, so x += C (V c) with c = S y, S
 * unit upper triangular from the s_j / alpha_j (fgmres: x += Z_j y_j /
 * alpha_j).  When <u_j,u_j> - ||s||^2 kept less than CANCEL of <u_j,u_j>,
 * the norm and <v_j,w> are summed after u_j -= Q s (one more reduction). */
static const double CANCEL = 1e-8;

/* What step j works on: Q (the final v_0..v_{j-1}: V or, single, F), u_j
 * and w in double (V[j], V[j+1]; single: V[j&1], V[(j+1)&1], v_j's float
 * copy into F[j]); with_w 0: no w (the cycle's last second pass) */
typedef struct lagged_vectors {
    ovk__basis q;
    const double *X[OVK__MAX_RESTART + 2];
    double *u, *w;
    float *uf;
} lagged_vectors;

static void lagged_of(const ovk__gmres_cycle *cy, int j, int with_w, lagged_vectors *lv)
{
    if (cy->F) {
        *lv = (lagged_vectors){.q = {.nf = j, .F = (const float *const *)cy->F}, .u = cy->V[j & 1],
                               .w = with_w ? cy->V[(j + 1) & 1] : NULL, .uf = cy->F[j]};
        return;
    }
    *lv = (lagged_vectors){.q = {.nd = j, .X = lv->X}, .u = cy->V[j], .w = with_w ? cy->V[j + 1] : NULL};
    for (int i = 0; i < j; i++) lv->X[i] = cy->V[i];
}

/* The second pass on u_j (j > 0) from d = [s = Q^T u, <u,u>, t = Q^T w,
 * <u,w>]: *alpha, *tau = <v_j,w> (with w); s's column j of the lagged
 * coefficients; *done: u -= Q s already applied (the norm summed after) */
static int second_pass(ovk__ctx *c, ovk__arnoldi *ls, int j, const lagged_vectors *lv, const double *d,
                       double *alpha, double *tau, int *done)
{
    const double *s = d, *t = d + j + 1;
    double ss = 0.0, st = 0.0, uu = d[j];
    for (int i = 0; i < j; i++) {
        ss += s[i] * s[i];
        if (lv->w) st += s[i] * t[i];
    }
    double aa = uu - ss, uw = lv->w ? t[j] - st : 0.0;
    *done = 0;
    if (isfinite(aa) && !(aa > CANCEL * uu)) { /* cancelled: u -= Q s, then <u,u>, <u,w> */
        double minus[OVK__MAX_RESTART + 1], e[2];
        for (int i = 0; i < j; i++) minus[i] = -s[i];
        ovk__basis_combine(c, &lv->q, minus, 1.0, lv->u, NULL);
        ovk__basis_dots_two(c, &(ovk__basis){0}, lv->u, lv->w ? lv->w : lv->u, e);
        int rc = ovk__sum(c, OVK__IPROD, e, 2);
        if (rc) return rc;
        aa = e[0];
        uw = e[1];
        *done = 1;
    }
    *alpha = isnan(aa) ? aa : sqrt(fmax(aa, 0.0)); /* NaN reaches the check through the rotation */
    *tau = uw / *alpha;
    double *col = ovk__arnoldi_lagged(ls, j);
    for (int i = 0; i < j; i++) col[i] = s[i] / *alpha;
    col[j] = 1.0 / *alpha;
    return OVK_OK;
}

/* Column j-1 completed by u_j = Q s + alpha v_j, rotated, checked as
 * iteration iter; *happy when alpha vanished next to the column */
static int lagged_column(ovk__ctx *c, ovk__gmres_cycle *cy, int j, const double *s, double alpha, double bb,
                         int iter, double *hraw, int ld, int *stop, int *happy)
{
    double *h = ovk__arnoldi_column(cy->ls, j - 1), big = 0.0;
    for (int i = 0; i < j; i++) {
        h[i] += s[i];
        big = fmax(big, fabs(h[i]));
    }
    h[j] = alpha;
    *happy = isfinite(alpha) && alpha <= 8.0 * DBL_EPSILON * big;
    if (hraw) memcpy(hraw + (size_t)(j - 1) * (size_t)ld, h, sizeof(double) * (size_t)(j + 1));
    double res = ovk__arnoldi_rotate(cy->ls, j - 1); /* ||b - A x_j|| */
    cy->k = j;
    cy->iter = iter;
    return step_check(c, cy, iter, res * res, bb, stop);
}

/* the cycle's last u_k: its second pass (one reduction), column k-1 */
static int last_pass(ovk__ctx *c, ovk__gmres_cycle *cy, int k, double bb, int iter, double *hraw, int ld, int *stop)
{
    lagged_vectors lv;
    lagged_of(cy, k, 0, &lv);
    double d[OVK__MAX_RESTART + 2], alpha, tau;
    ovk__basis qu = lv.q;
    const double *X[OVK__MAX_RESTART + 2];
    for (int i = 0; i < qu.nd; i++) X[i] = qu.X[i];
    X[qu.nd++] = lv.u;
    qu.X = X;
    ovk__basis_dots(c, &qu, lv.u, d); /* Q^T u, <u,u> */
    int rc = ovk__sum(c, OVK__IPROD, d, k + 1), done, happy;
    if (!rc) rc = second_pass(c, cy->ls, k, &lv, d, &alpha, &tau, &done);
    return rc ? rc : lagged_column(c, cy, k, d, alpha, bb, iter, hraw, ld, stop, &happy);
}

static int cycle_dcgs2(ovk__ctx *c, ovk__gmres_cycle *cy, int m, double bb, double *rr, double *hraw, int *stop)
{
    int rc = OVK_OK, step_stop = 0, happy = 0, iter0 = cy->iter, j;
    double d[2 * OVK__MAX_RESTART + 2], zero[OVK__MAX_RESTART + 1] = {0};
    ovk__gmres_scale(c, 1.0 / sqrt(*rr), cy->r, cy->V[0]); /* u_0 = v_0 = r / ||r|| */
    ovk__arnoldi_start(cy->ls, sqrt(*rr));
    cy->ls->lagged = 1;
    cy->k = 0;
    for (j = 0; j < m && iter0 + j < c->opts->max_iter; j++) {
        lagged_vectors lv;
        lagged_of(cy, j, 1, &lv);
        double *z = cy->Z ? cy->Z[j] : cy->t, alpha = 1.0, tau;
        rc = ovk__ctx_pc(c, lv.u, z); /* z = C u_j */
        if (!rc) rc = ovk__ctx_matvec(c, z, lv.w); /* w = A z */
        if (rc) return rc;
        ovk__basis_dots_two(c, &lv.q, lv.u, lv.w, d);
        rc = ovk__sum(c, OVK__IPROD, d, 2 * j + 2);
        if (rc) return rc;
        int done = 0;
        if (j > 0) {
            rc = second_pass(c, cy->ls, j, &lv, d, &alpha, &tau, &done);
            if (!rc) rc = lagged_column(c, cy, j, d, alpha, bb, iter0 + j, hraw, m + 1, &step_stop, &happy);
            if (rc) return rc;
            if (step_stop || happy) break;
        } else {
            tau = d[1]; /* <v_0,w> */
            ovk__arnoldi_lagged(cy->ls, 0)[0] = 1.0;
        }
        double *h = ovk__arnoldi_column(cy->ls, j), *t = d + j + 1;
        for (int i = 0; i < j; i++) h[i] = t[i] / alpha;
        h[j] = tau / alpha;
        ovk__basis_update_two(c, &lv.q, done ? zero : d, t, alpha, tau, lv.u, lv.w, lv.uf); /* v_j; u_{j+1} in w */
    }
    if (!step_stop && !happy && j > cy->k) rc = last_pass(c, cy, j, bb, iter0 + j, hraw, m + 1, &step_stop);
    if (rc) return rc;
    return ovk__gmres_cycle_end(c, cy, bb, rr, stop);
}

/* ---- one cycle ---------------------------------------------------------- */

static int cycle_cgs(ovk__ctx *c, ovk__gmres_cycle *cy, int m, double bb, double *rr, double *hraw, int *stop)
{
    int rc = OVK_OK, step_stop = 0, deferred = cy->refine == OVK__REFINE_NEVER && !cy->Z;
    double rho = 1.0; /* V[j] = rho v_j (deferred) */
    ovk__gmres_scale(c, 1.0 / sqrt(*rr), cy->r, cy->V[0]); /* v_0 = r / ||r|| */
    if (cy->F && !deferred) ovk__basis_combine(c, &(ovk__basis){0}, NULL, 1.0, cy->V[0], cy->F[0]); /* its float copy */
    ovk__arnoldi_start(cy->ls, sqrt(*rr));
    cy->k = 0;
    for (int j = 0; j < m && cy->iter < c->opts->max_iter && !step_stop; j++) {
        double *z = cy->Z ? cy->Z[j] : cy->t, *h = ovk__arnoldi_column(cy->ls, j);
        step_vectors sv;
        step_vectors_of(cy, j, deferred, &sv);
        rc = ovk__ctx_pc(c, sv.v, z); /* z = C v_j (deferred: C rho v_j) */
        if (rc) return rc;
        rc = ovk__ctx_matvec(c, z, sv.w); /* w = A z */
        if (rc) return rc;
        int happy = 0;
        rc = deferred ? orthogonalise_deferred(c, &sv, rho, h, &happy) : orthogonalise(c, &sv, cy->refine, h, &happy);
        if (rc) return rc;
        rho = h[j + 1];
        if (hraw) memcpy(hraw + (size_t)j * (size_t)(m + 1), h, sizeof(double) * (size_t)(j + 2));
        double res = ovk__arnoldi_rotate(cy->ls, j); /* ||b - A x_j|| */
        cy->k = j + 1;
        rc = step_check(c, cy, ++cy->iter, res * res, bb, &step_stop);
        if (rc) return rc;
        if (happy) break; /* the Krylov space is invariant: x is as good as it gets */
    }
    return ovk__gmres_cycle_end(c, cy, bb, rr, stop);
}

int ovk__gmres_cycle_run(ovk__ctx *c, ovk__gmres_cycle *cy, int m, double bb, double *rr, double *hraw, int *stop)
{
    return cy->orth == OVK__ORTH_DCGS2 ? cycle_dcgs2(c, cy, m, bb, rr, hraw, stop) : cycle_cgs(c, cy, m, bb, rr, hraw, stop);
}

/* basis=single: the cycle's true residual kept less than half the digits
 * its estimate promised.  The float basis's rounding (about FLT_EPSILON
 * times the condition number of A C, relative to the cycle's start) limits
 * what a cycle gains; on ill-conditioned systems it gains nothing. */
static int lost_to_rounding(const ovk__gmres_cycle *cy, double rr_start, double rr_end)
{
    if (!cy->F || cy->k == 0) return 0;
    double est = fabs(cy->ls->g[cy->k]);
    return sqrt(rr_end) > sqrt(est * sqrt(rr_start));
}

/* the rest of the solve on a double basis: V[2..M] allocated once (kept
 * for later solves), agreed on every rank; without room for them on some
 * rank the solve goes on with the float basis (each cycle still ends on
 * the true residual), and does not ask again */
static int to_double_basis(ovk__ctx *c, gmres_work *w, ovk__gmres_cycle *cy)
{
    size_t stride = ovk__vec_stride(c->n), count = w->m > 1 ? (size_t)w->m - 1 : 1;
    if (!w->fallback) w->fallback = calloc(stride * count, sizeof(double));
    int rc = ovk__agree(c->comm, w->fallback ? OVK_OK : OVK_ENOMEM);
    if (rc == OVK_ENOMEM) {
        free(w->fallback);
        w->fallback = NULL;
        w->no_room = 1;
        return OVK_OK;
    }
    if (rc) return rc;
    for (int i = 2; i <= w->m; i++) w->V[i] = w->fallback + stride * (size_t)(i - 2);
    cy->F = NULL;
    w->fell_back_at = cy->iter;
    return OVK_OK;
}

/* ---- the safeguard and the measured orthogonality ----------------------- */

/* A cycle whose update raised the true residual (undone at its end), or
 * whose true residual kept less than half the digits the rotations'
 * estimate promised and stands more than LOST times above it: in exact
 * arithmetic neither happens, the basis lost its orthogonality (or the
 * solve reached its attainable accuracy). */
static const double LOST = 10.0;

static int suspect(const ovk__gmres_cycle *cy, double rr_start)
{
    if (cy->reverted) return 1;
    if (cy->k == 0) return 0;
    double est = fabs(cy->ls->g[cy->k]), tr = sqrt(cy->rr_end);
    return tr > LOST * est && tr > sqrt(est * sqrt(rr_start));
}

/* ||I - V^T V||_F of the cycle's k basis vectors (one reduction of
 * k (k + 1) / 2 sums; a float basis read through t) */
static int measure_loss(ovk__ctx *c, gmres_work *w, const ovk__gmres_cycle *cy)
{
    int k = cy->k;
    if (k == 0) return OVK_OK;
    double *g = malloc(sizeof(double) * (size_t)k * (size_t)(k + 1) / 2);
    int rc = ovk__agree(c->comm, g ? OVK_OK : ovk__fail(OVK_ENOMEM, "the Gram matrix of %d basis vectors", k));
    if (rc) {
        free(g);
        return rc;
    }
    size_t at = 0;
    for (int i = 0; i < k; i++) {
        const double *v = cy->V[i];
        ovk__basis b = {.nd = i + 1, .X = (const double *const *)cy->V};
        if (cy->F) {
            for (int r = 0; r < c->n; r++) w->t[r] = cy->F[i][r];
            v = w->t;
            b = (ovk__basis){.nf = i + 1, .F = (const float *const *)cy->F};
        }
        ovk__basis_dots(c, &b, v, g + at); /* <v_l, v_i>, l <= i */
        at += (size_t)i + 1;
    }
    rc = ovk__sum(c, OVK__IPROD, g, (int)at);
    double f = 0.0;
    at = 0;
    for (int i = 0; i < k; i++)
        for (int l = 0; l <= i; l++, at++) {
            double e = l == i ? g[at] - 1.0 : g[at];
            f += (l == i ? 1.0 : 2.0) * e * e;
        }
    free(g);
    w->loss = sqrt(f);
    w->loss_k = k;
    return rc;
}

/* the next cycles with two classical passes at every step (CGS2, on the
 * double basis) */
static void reorthogonalise_fully(gmres_work *w, ovk__gmres_cycle *cy, double rr_start)
{
    w->guard_at = cy->iter;
    w->guard_true = sqrt(cy->rr_end);
    w->guard_est = cy->k ? fabs(cy->ls->g[cy->k]) : 0.0;
    w->guard_start = sqrt(rr_start);
    w->guard_undone = cy->reverted;
    cy->orth = OVK__ORTH_CGS;
    cy->refine = OVK__REFINE_ALWAYS;
}

/* 1 when C applied twice to r (the true residual) gives results that
 * differ (relative 1e-8): a preconditioner that changes between
 * applications, which x += C V y does not allow (scratch: V[0], V[1]; one
 * reduction) */
static int pc_changes(ovk__ctx *c, gmres_work *w, const double *r, int *changes)
{
    double *z1 = w->V[0], *z2 = w->V[1], v[2] = {0.0, 0.0};
    int rc = ovk__ctx_pc(c, r, z1);
    if (!rc) rc = ovk__ctx_pc(c, r, z2);
    if (rc) return rc;
    for (int i = 0; i < c->n; i++) {
        v[0] += (z1[i] - z2[i]) * (z1[i] - z2[i]);
        v[1] += z1[i] * z1[i];
    }
    rc = ovk__sum(c, OVK__IPROD, v, 2);
    *changes = !(v[0] <= 1e-16 * v[1]);
    return rc;
}

/* The safeguard gives up: the cycle's update raised the true residual
 * with two passes per step and again after a restart from the best
 * iterate.  A preconditioner that changes between applications is named
 * (fgmres allows it); else the update lost to rounding, with its size. */
static int give_up(ovk__ctx *c, gmres_work *w, const ovk__gmres_cycle *cy, double rr_start, double bb)
{
    int changes = 0, rc = w->flexible ? OVK_OK : pc_changes(c, w, cy->r, &changes);
    if (rc) return rc;
    c->res->iterations = cy->iter;
    c->res->reason = OVK_REASON_BREAKDOWN;
    if (changes)
        return ovk__fail(OVK_EBREAKDOWN, "iteration %d: the preconditioner changed between applications (C r "
                                         "twice gave different results), which GMRES's x += C V y cannot follow: "
                                         "use fgmres",
                         cy->iter);
    ovk__fail(OVK_EBREAKDOWN, "iteration %d: GMRES's update is lost to rounding: an update of %.3g ||b|| (x is %.3g "
                              "||b||) raised the true residual %.3g times above its start, with two Gram-Schmidt "
                              "passes per step and after a restart from the best iterate (x is that iterate): A C "
                              "is too ill-conditioned for an update this large; try bicgstab or pgmres",
              cy->iter, sqrt(cy->dd / bb), sqrt(cy->xx / bb), sqrt(cy->rr_end / rr_start));
    return OVK_OK;
}

/* cycles from r = b - A x with ||r||^2 = rr, counting from iter */
static int run(ovk__ctx *c, gmres_work *w, double bb, int iter, double rr)
{
    int stop = 0, rc = OVK_OK, m = w->m, retried = 0;
    ovk__gmres_cycle cy = {.ls = &w->ls, .V = w->V, .Z = w->flexible ? w->Z : NULL, .t = w->t, .r = w->r,
                           .F = w->basis == OVK__BASIS_SINGLE ? w->F : NULL, .iter = iter, .orth = w->orth,
                           .refine = w->refine};
    w->fell_back_at = w->guard_at = -1;
    w->loss_k = 0;
    if (iter >= c->opts->max_iter) {
        c->res->reason = OVK_REASON_MAXIT;
        return OVK_OK;
    }
    while (!rc && !stop) {
        double rr_start = rr;
        int full = cy.orth == OVK__ORTH_CGS && cy.refine == OVK__REFINE_ALWAYS;
        cy.undo_rises = !full; /* a rise undone while two passes per step remain to try */
        rc = ovk__gmres_cycle_run(c, &cy, m, bb, &rr, NULL, &stop);
        if (!rc && w->orthloss) rc = measure_loss(c, w, &cy);
        if (rc || stop) break;
        if (!cy.reverted) m = w->m; /* a retry's half cycle held: full cycles again */
        if (!w->no_room && lost_to_rounding(&cy, rr_start, cy.rr_end)) {
            rc = to_double_basis(c, w, &cy);
        } else if (!full && suspect(&cy, rr_start)) {
            reorthogonalise_fully(w, &cy, rr_start);
        } else if (cy.reverted && !retried) { /* once: from the best iterate (x undone) with half the
                                                  cycle; the same cycle again would end the same */
            retried = 1;
            m = m > 1 ? m / 2 : 1;
        } else if (cy.reverted) {
            rc = give_up(c, w, &cy, rr_start, bb);
            stop = 1;
        }
    }
    return rc;
}

static int iterate(ovk__ctx *c, void *work, double bb)
{
    return run(c, work, bb, 0, c->watch.rnorm0 * c->watch.rnorm0); /* r and ||r0|| from the frame */
}

/* the fallback entry (pgmres): from the current x */
static int resume(ovk__ctx *c, void *work, double bb, int iter0)
{
    gmres_work *w = work;
    int stop = 0;
    double rr = 0.0;
    int rc = ovk__ctx_residual(c, w->r); /* r = b - A x */
    if (rc) return rc;
    ovk__gmres_dots(c, 1, (const double *const[]){w->r}, w->r, &rr);
    rc = ovk__sum(c, OVK__IPROD, &rr, 1);
    if (rc) return rc;
    rc = ovk__iterate_check(c, iter0, rr, bb, &stop);
    if (rc || stop) return rc;
    return run(c, w, bb, iter0, rr);
}

/* ---- options, vectors, set-up ------------------------------------------- */

/* key was in the spec */
static int given(const ovk__opts *o, const char *key)
{
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->kv[i].key, key) == 0) return 1;
    return 0;
}

const char *const ovk__gmres_refine_names[] = {"never", "ifneeded", "always", NULL};
const char *const ovk__gmres_orth_names[] = {"dcgs2", "cgs", NULL};
const char *const ovk__gmres_basis_names[] = {"double", "single", NULL};

int ovk__gmres_parse(ovk__opts *o, const char *owner, int pipelined, int max_l, ovk__gmres_params **out)
{
    ovk__gmres_params *p = calloc(1, sizeof *p);
    *out = p;
    if (!p) return ovk__fail(OVK_ENOMEM, "%s", owner);
    p->restart = 30; /* PETSc's */
    p->l = pipelined ? 2 : 0;
    p->refine = OVK__REFINE_NEVER; /* orth=cgs: PETSc's, one classical pass */
    p->orth = OVK__ORTH_DCGS2;
    const ovk__opt_entry classical[] = {
        OVK__OPT_INT("restart", 1, OVK__MAX_RESTART, &p->restart),
        OVK__OPT_CHOICE("orth", ovk__gmres_orth_names, &p->orth),
        OVK__OPT_CHOICE("refine", ovk__gmres_refine_names, &p->refine),
        OVK__OPT_CHOICE("basis", ovk__gmres_basis_names, &p->basis),
        OVK__OPT_INT("orthloss", 0, 1, &p->orthloss),
    };
    const ovk__opt_entry pipe[] = {
        OVK__OPT_INT("restart", 1, OVK__MAX_RESTART, &p->restart),
        OVK__OPT_INT("l", 1, max_l, &p->l),
        OVK__OPT_DOUBLE("lmin", -1e300, 1e300, &p->lmin),
        OVK__OPT_DOUBLE("lmax", -1e300, 1e300, &p->lmax),
        OVK__OPT_CHOICE("orth", ovk__gmres_orth_names, &p->orth),
        OVK__OPT_INT("orthloss", 0, 1, &p->orthloss),
    };
    int rc = pipelined ? ovk__opts_read(o, owner, pipe, 6) : ovk__opts_read(o, owner, classical, 5);
    if (rc) return rc;
    if (given(o, "refine") && !given(o, "orth")) p->orth = OVK__ORTH_CGS; /* refine= names a classical pass */
    if (given(o, "refine") && p->orth != OVK__ORTH_CGS)
        return ovk__fail(OVK_EOPTION, "solver %s: refine applies to orth=cgs, not orth=%s", owner,
                         ovk__gmres_orth_names[p->orth]);
    p->user_shifts = given(o, "lmin") || given(o, "lmax");
    if (p->user_shifts && !(given(o, "lmin") && given(o, "lmax") && p->lmin <= p->lmax))
        rc = ovk__fail(OVK_EOPTION, "solver %s: lmin and lmax must both be given, lmin <= lmax (%g, %g)", owner,
                       p->lmin, p->lmax);
    return rc;
}

static int gmres_parse(ovk__opts *o, void **params)
{
    return ovk__gmres_parse(o, "gmres", 0, 0, (ovk__gmres_params **)params);
}

static int fgmres_parse(ovk__opts *o, void **params)
{
    return ovk__gmres_parse(o, "fgmres", 0, 0, (ovk__gmres_params **)params);
}

/* r, t, V[0..M] (basis=single: V[0], V[1]); fgmres also Z[0..M-1] */
static int vectors_of(const void *params, size_t *vec, int flexible)
{
    const ovk__gmres_params *p = params;
    int m = (int)p->restart, k = 0, nv = p->basis == OVK__BASIS_SINGLE ? 1 : m;
    int count = 2 + (nv + 1) + (flexible ? m : 0);
    if (!vec) return count;
    vec[k++] = offsetof(gmres_work, r);
    vec[k++] = offsetof(gmres_work, t);
    for (int i = 0; i <= nv; i++) vec[k++] = offsetof(gmres_work, V) + sizeof(double *) * (size_t)i;
    for (int i = 0; flexible && i < m; i++) vec[k++] = offsetof(gmres_work, Z) + sizeof(double *) * (size_t)i;
    return k;
}

static int gmres_vectors(const void *params, size_t *vec) { return vectors_of(params, vec, 0); }
static int fgmres_vectors(const void *params, size_t *vec) { return vectors_of(params, vec, 1); }

/* basis=single: F[0..M], n floats each in one block, their starts
 * staggered by 9 cache lines modulo 4 KiB as the frame's (ovk__vec_stride) */
static int single_basis(ovk__ctx *c, gmres_work *w)
{
    enum { PAGE = 1024, STAGGER = 144 }; /* floats: 4 KiB, 576 B */
    size_t stride = ((size_t)(c->n > 0 ? c->n : 1) + PAGE - 1) / PAGE * PAGE + STAGGER;
    float *block = calloc(stride * (size_t)(w->m + 1), sizeof(float));
    if (!block) return ovk__fail(OVK_ENOMEM, "a single-precision basis of %d vectors of %d rows", w->m + 1, c->n);
    for (int i = 0; i <= w->m; i++) w->F[i] = block + stride * (size_t)i;
    return OVK_OK;
}

static int setup_of(ovk__ctx *c, gmres_work *w, int flexible)
{
    const ovk__gmres_params *p = c->params;
    w->m = (int)p->restart;
    w->flexible = flexible;
    w->refine = p->refine;
    w->basis = p->basis;
    w->orth = p->orth;
    w->orthloss = (int)p->orthloss;
    w->fell_back_at = w->guard_at = -1;
    int rc = w->basis == OVK__BASIS_SINGLE ? single_basis(c, w) : OVK_OK;
    return rc ? rc : ovk__arnoldi_alloc(&w->ls, w->m);
}

static int gmres_setup(ovk__ctx *c, void *work) { return setup_of(c, work, 0); }
static int fgmres_setup(ovk__ctx *c, void *work) { return setup_of(c, work, 1); }

static void destroy(void *work)
{
    gmres_work *w = work;
    ovk__arnoldi_free(&w->ls);
    free(w->F[0]);
    free(w->fallback);
    w->F[0] = NULL;
    w->fallback = NULL;
}

static void view(const void *work, FILE *f)
{
    const gmres_work *w = work;
    if (w->orth == OVK__ORTH_DCGS2)
        fprintf(f, "  %s: restart = %d, orth = dcgs2 (classical Gram-Schmidt, second pass delayed: one reduction per "
                   "step), basis = %s%s\n",
                w->flexible ? "fgmres" : "gmres", w->m, ovk__gmres_basis_names[w->basis],
                w->basis == OVK__BASIS_SINGLE ? " (float storage, double arithmetic)" : "");
    else
        fprintf(f, "  %s: restart = %d, orth = cgs (classical Gram-Schmidt), refine = %s, basis = %s%s\n",
                w->flexible ? "fgmres" : "gmres", w->m, ovk__gmres_refine_names[w->refine],
                ovk__gmres_basis_names[w->basis], w->basis == OVK__BASIS_SINGLE ? " (float storage, double arithmetic)" : "");
    if (w->guard_at >= 0)
        fprintf(f, "  safeguard: the cycle ending at iteration %d %s (true residual %.3e, the rotations' estimate %.3e, "
                   "the cycle's start %.3e): the basis lost its orthogonality; the next cycles reorthogonalized fully "
                   "(two classical passes at every step)%s\n",
                w->guard_at, w->guard_undone ? "raised the residual" : "gained less than its estimate",
                w->guard_true, w->guard_est, w->guard_start, w->guard_undone ? "; its update was undone" : "");
    if (w->loss_k > 0)
        fprintf(f, "  orthogonality of the last cycle's basis: ||I - V^T V||_F = %.3e (%d vectors)\n", w->loss,
                w->loss_k);
    if (w->fell_back_at >= 0)
        fprintf(f, "  the last solve went on with a double basis from iteration %d: a cycle on the float one gained "
                   "less than half the digits of its estimate\n", w->fell_back_at);
    if (w->no_room)
        fprintf(f, "  a cycle on the float basis gained less than half the digits of its estimate, and the double "
                   "basis had no room: the float one goes on\n");
}

const ovk__solver_ops ovk__solver_gmres = {
    .caps = OVK__CAP_NONSYMMETRIC,
    .work_size = sizeof(gmres_work), .vectors = gmres_vectors,
    .parse = gmres_parse, .setup = gmres_setup, .destroy = destroy, .view = view,
    .iterate = iterate, .resume = resume,
};

const ovk__solver_ops ovk__solver_fgmres = {
    .caps = OVK__CAP_NONSYMMETRIC,
    .work_size = sizeof(gmres_work), .vectors = fgmres_vectors,
    .parse = fgmres_parse, .setup = fgmres_setup, .destroy = destroy, .view = view,
    .iterate = iterate, .resume = resume,
};
