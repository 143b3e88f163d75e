/* Gropp's PCG (W. Gropp, "Update on libraries for blue waters", ICERM
 * 2012; PETSc's KSPGROPPCG): two non-blocking reductions per iteration,
 * <p,s> behind the preconditioner and <r,z>, <r,r> behind the matvec.
 * z = C r and s = A p are carried by recurrences (S = C s, Z = A z):
 *
 *   <p,s> -> start;  S = C s;  wait              (overlap: preconditioner)
 *   alpha = gamma / <p,s>
 *   x += alpha p;  r -= alpha s;  z -= alpha S   (one pass, with the sums)
 *   <r,z>, <r,r> -> start;  Z = A z;  wait       (overlap: matvec)
 *   beta = gamma_new / gamma;  p = z + beta p;  s = Z + beta s
 *
 * When the recursive residual meets the tolerance the true one must too
 * (ovk__confirm); if it does not, r = b - A x, z = C r and s = A p are
 * recomputed (a residual replacement, the direction kept) and the
 * iteration goes on.  The recurrence z can make <r,z> zero or negative at
 * the rounding floor at very tight tolerances; then z = C r and <r,z> are
 * recomputed once (counted as a replacement) before a non-positive value
 * is called a breakdown.  A non-positive <p,s> is a breakdown, as in alg1. */
#include <math.h>
#include <stddef.h>

#include "fused.h"

typedef struct gropp_work {
    double *r, *z, *p, *s, *S, *Z;
} gropp_work;


/* p = z + b p; s = Z + b s */
static void directions(int n, double b, const double *restrict z, const double *restrict Z, double *restrict p,
                       double *restrict s, const ovk__hook *h)
{
    int step = ovk__chunk_rows(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) {
            p[i] = z[i] + b * p[i];
            s[i] = Z[i] + b * s[i];
        }
        ovk__poke(h);
    }
}

/* alpha = gamma / <p,s>, with <p,s> reduced behind S = C s */
static int step_length(ovk__ctx *c, gropp_work *w, int iter, double gamma, double *alpha, int *stop)
{
    ovk_request *req = NULL;
    double ps = ovk__dot(c->n, w->p, w->s); /* <p,s> */
    int rc = ovk__sum_begin(c, OVK__SDOTP, &ps, 1, &req);
    if (rc) return rc;
    rc = ovk__ctx_pc(c, w->s, w->S); /* S = C s */
    rc = ovk__sum_finish(c, OVK__SDOTP, req, rc);
    if (rc) return rc;
    *stop = ovk__breakdown(c, iter, "<p,Ap>", ps, 0);
    *alpha = gamma / ps;
    return OVK_OK;
}

/* the step's updates, then <r,z>, <r,r> (and with a null space Z^T z)
 * reduced behind Z = A z; then z -= Z Z^T z */
static int advance(ovk__ctx *c, gropp_work *w, double alpha, double *v)
{
    ovk_request *req = NULL;
    ovk__tic t0 = ovk__tic_start(c);
    ovk__gropp_update(c->n, alpha, w->p, w->s, w->S, c->x, w->r, w->z, v, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    int rc = ovk__sum_begin(c, OVK__GAMMA, v, ovk__nullspace_append(c, v, 2, 2, w->z), &req);
    if (rc) return rc;
    rc = ovk__ctx_matvec(c, w->z, w->Z); /* Z = A z */
    rc = ovk__sum_finish(c, OVK__GAMMA, req, rc);
    if (!rc) ovk__nullspace_remove(c, v + 2, w->z, 0.0, NULL);
    return rc;
}

/* z = C r and gamma = <r,z> recomputed, counted as a replacement
 * (*fresh = 1: s = A p follows); after a residual replacement, or when the
 * recurrence z made <r,z> non-positive. */
static int recompute_z(ovk__ctx *c, gropp_work *w, double *gamma, int *fresh)
{
    double v[1 + OVK__NULLSPACE_MAX]; /* <r,z>, Z^T z */
    c->res->replacements++;
    *fresh = 1;
    int rc = ovk__ctx_pc(c, w->r, w->z); /* z = C r */
    if (rc) return rc;
    ovk__tic t0 = ovk__tic_start(c);
    v[0] = ovk__dot(c->n, w->r, w->z);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    rc = ovk__sum(c, OVK__IPROD, v, ovk__nullspace_append(c, v, 1, 1, w->z));
    if (rc) return rc;
    ovk__nullspace_remove(c, v + 1, w->z, 0.0, NULL);
    *gamma = v[0];
    return OVK_OK;
}

/* The recursive residual converged: confirm with the true one, else replace
 * r = b - A x, z = C r and recompute gamma = <r,z> (*fresh = 1). */
static int settle(ovk__ctx *c, gropp_work *w, double bb, double *gamma, int *stop, int *fresh)
{
    int ok = 0, rc = ovk__confirm(c, bb, w->r, &ok);
    if (rc || ok) {
        *stop = 1;
        return rc;
    }
    *stop = 0;
    return recompute_z(c, w, gamma, fresh);
}

/* after a step: the convergence check (confirmed with the true residual),
 * <r,z> recomputed once when the recurrence made it non-positive, and the
 * breakdown test of <r,z>; *stop = 1 when the solve ends */
static int check(ovk__ctx *c, gropp_work *w, int iter, double bb, double v[2], int *stop, int *fresh)
{
    int rc = ovk__iterate_check(c, iter, v[1], bb, stop);
    if (rc) return rc;
    if (*stop && c->res->reason == OVK_REASON_CONVERGED) {
        rc = settle(c, w, bb, &v[0], stop, fresh);
        if (rc || *stop) return rc;
    }
    if (!*stop && !*fresh && isfinite(v[0]) && !(v[0] > 0.0)) {
        rc = recompute_z(c, w, &v[0], fresh);
        if (rc) return rc;
    }
    if (!*stop) *stop = ovk__breakdown(c, iter, "<r,Cr>", v[0], 1);
    return OVK_OK;
}

static int iterate_from(ovk__ctx *c, gropp_work *w, double gamma, double bb)
{
    double beta = 0.0, alpha = 0.0, v[2 + OVK__NULLSPACE_MAX]; /* <r,z>, <r,r>, Z^T z */
    for (int iter = 1; iter <= c->opts->max_iter; iter++) {
        int stop = 0, fresh = 0;
        int rc = step_length(c, w, iter, gamma, &alpha, &stop);
        if (rc || stop) return rc;
        ovk__lanczos_add(c, alpha, beta);
        rc = advance(c, w, alpha, v);
        if (rc) return rc;
        rc = check(c, w, iter, bb, v, &stop, &fresh);
        if (rc || stop) return rc;
        ovk__tic t0 = ovk__tic_start(c);
        beta = v[0] / gamma;
        gamma = v[0];
        directions(c->n, beta, w->z, w->Z, w->p, w->s, &c->hook); /* p = z + beta p; s = Z + beta s */
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
        if (!fresh) continue;
        rc = ovk__ctx_matvec(c, w->p, w->s); /* s = A p after a replacement */
        if (rc) return rc;
    }
    c->res->reason = OVK_REASON_MAXIT;
    return OVK_OK;
}

/* z = C r; p = z; gamma = <r,z> (and Z^T z) reduced behind s = A p;
 * then z, p -= Z Z^T z */
static int gropp_start(ovk__ctx *c, gropp_work *w, double *gamma)
{
    ovk_request *req = NULL;
    double rr = 0.0, v[1 + OVK__NULLSPACE_MAX];
    int rc = ovk__ctx_pc_dots(c, w->r, w->z, &v[0], &rr); /* z = C r, <r,z> */
    if (rc) return rc;
    for (int i = 0; i < c->n; i++) w->p[i] = w->z[i]; /* p = z */
    rc = ovk__sum_begin(c, OVK__GAMMA, v, ovk__nullspace_append(c, v, 1, 1, w->z), &req);
    if (rc) return rc;
    rc = ovk__ctx_matvec(c, w->p, w->s); /* s = A p */
    rc = ovk__sum_finish(c, OVK__GAMMA, req, rc);
    if (rc) return rc;
    ovk__nullspace_remove(c, v + 1, w->z, 0.0, NULL);
    ovk__nullspace_remove(c, v + 1, w->p, 0.0, NULL);
    *gamma = v[0];
    return OVK_OK;
}

static int iterate(ovk__ctx *c, void *work, double bb)
{
    gropp_work *w = work;
    double gamma = 0.0;
    int rc = gropp_start(c, w, &gamma);
    if (rc || ovk__breakdown(c, 0, "<r,Cr>", gamma, 0)) return rc;
    return iterate_from(c, w, gamma, bb);
}

#define V(f) offsetof(gropp_work, f)
const ovk__solver_ops ovk__solver_groppcg = {
    .caps = OVK__CAP_NULLSPACE | OVK__CAP_CONDEST,
    OVK__WORK_VECTORS(gropp_work, V(r), V(z), V(p), V(s), V(S), V(Z)),
    .iterate = iterate,
};
