/* Pipelined BiCGStab (Cools and Vanroose, "The communication-hiding
 * pipelined BiCGStab method for the parallel solution of large unsymmetric
 * linear systems", Parallel Computing 65, 2017; PETSc's KSPPIPEBCGS),
 * right-preconditioned as bicgstab.c.  Besides BiCGStab's r and p it
 * carries w = A C r, s = A C p, z = A C s, t = A C w, v = A C z and their
 * preconditioned r2 = C r, p2 = C p, s2 = C s, w2 = C w, z2 = C z by
 * recurrences, so that each of the method's two reductions is in flight
 * while one preconditioner application and one matvec run:
 *
 *   p2 = r2 + beta (p2 - omega s2);  s = w + beta (s - omega z)
 *   s2 = w2 + beta (s2 - omega z2);  z = t + beta (z - omega v)
 *   q = r - alpha s;  q2 = r2 - alpha s2;  y = w - alpha z
 *   <q,y>, <y,y>  -> start               z2 = C z;  v = A z2;  wait
 *   omega = <q,y> / <y,y>;  x += alpha p2 + omega q2;  r = q - omega y
 *   r2 = q2 - omega (w2 - alpha z2);  w = y - omega (t - alpha v)
 *   <rhat,r>, <rhat,s>, <rhat,w>, <rhat,z>, <r,r>  -> start
 *                                        w2 = C w;  t = A w2;  wait
 *   beta = (rho / rho_old) (alpha / omega)
 *   alpha = rho / (<rhat,w> + beta <rhat,s> - beta omega <rhat,z>)
 *
 * Two reductions per iteration against bicgstab's three, and none of them
 * waited for before its overlapping work: the paper's method has two
 * reduction phases (omega needs <t,.> of the t the second one overlaps).
 *
 * Attainable accuracy: the recurrences drift from their definitions, so
 * every `replace_every` steps (default: PETSc's schedule, every 100 steps
 * up to step 1000) the iteration restarts from the true residual b - A x;
 * a converged recursive residual is confirmed on the true one, which
 * restarts the iteration from it when it does not meet the tolerance. */
#include <stddef.h>
#include <string.h>

#include "bcgs.h"

typedef struct pbcgs_work {
    double *r, *rhat, *p2, *q, *q2, *y, *r2, *s, *s2, *w, *w2, *z, *z2, *t, *v;
    ovk__bcgs_restarts rs;
    double alpha, beta, omega, rho, hh; /* hh = <rhat,rhat> */
    double a[3];                        /* <q,y>, <y,y>, <q,q> */
    double b[6];                        /* <rhat,r>, <rhat,s>, <rhat,w>, <rhat,z>, <r,r>, <w,w> */
    int first;                          /* no step since the (re)start: p2 = r2, s = w, ... */
} pbcgs_work;

enum { AUTO_EVERY = 100, AUTO_UNTIL = 1000 }; /* PETSc's replacement schedule */

/* y = C x;  ax = A y */
static int pc_matvec(ovk__ctx *c, const double *x, double *y, double *ax)
{
    int rc = ovk__ctx_pc(c, x, y);
    return rc ? rc : ovk__ctx_matvec(c, y, ax);
}

/* rhat = r;  r2 = C r;  w = A r2;  <r,r>, <w,r>, <w,w> in flight while
 * w2 = C w;  t = A w2;  then alpha = rho / <rhat,w> */
static int start(ovk__ctx *c, pbcgs_work *w, int iter)
{
    ovk_request *req = NULL;
    double d[3];
    if (c->n > 0) memcpy(w->rhat, w->r, sizeof(double) * (size_t)c->n);
    int rc = pc_matvec(c, w->r, w->r2, w->w);
    if (rc) return rc;
    ovk__tic t0 = ovk__tic_start(c);
    ovk__dots(c->n, 3, (const double *[]){w->r, w->w, w->w}, (const double *[]){w->r, w->r, w->w}, d, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    rc = ovk__sum_begin(c, OVK__SDOTP, d, 3, &req);
    if (rc) return rc;
    rc = ovk__sum_finish(c, OVK__SDOTP, req, pc_matvec(c, w->w, w->w2, w->t));
    if (rc) return rc;
    w->rho = w->hh = w->b[4] = d[0];
    w->beta = 0.0;
    w->omega = 1.0;
    w->first = 1;
    if (ovk__bcgs_tiny(d[1], d[0], d[2])) {
        w->rs.last = iter; /* a restart would start from the same r: stop */
        ovk__bcgs_breakdown(c, &w->rs, iter, "<rhat,A C r>", d[1]);
        return OVK_OK;
    }
    w->alpha = d[0] / d[1];
    return OVK_OK;
}

/* the directions: p2, s, s2, z from beta and omega (copies at a start) */
static void directions(ovk__ctx *c, pbcgs_work *w)
{
    int n = c->n;
    double b = w->beta, bo = w->beta * w->omega;
    if (w->first) {
        size_t bytes = sizeof(double) * (size_t)n;
        if (n > 0) {
            memcpy(w->p2, w->r2, bytes);
            memcpy(w->s, w->w, bytes);
            memcpy(w->s2, w->w2, bytes);
            memcpy(w->z, w->t, bytes);
        }
        return;
    }
    for (int i = 0; i < n; i++) {
        w->p2[i] = w->r2[i] + b * w->p2[i] - bo * w->s2[i];
        w->s[i] = w->w[i] + b * w->s[i] - bo * w->z[i];
        w->s2[i] = w->w2[i] + b * w->s2[i] - bo * w->z2[i];
        w->z[i] = w->t[i] + b * w->z[i] - bo * w->v[i];
    }
}

/* the directions; q, q2, y and their sums */
static void first_pass(ovk__ctx *c, pbcgs_work *w)
{
    int n = c->n;
    double al = w->alpha, qy = 0.0, yy = 0.0, qq = 0.0;
    ovk__tic t0 = ovk__tic_start(c);
    directions(c, w);
    for (int i = 0; i < n; i++) {
        double q = w->r[i] - al * w->s[i], y = w->w[i] - al * w->z[i];
        w->q[i] = q;
        w->q2[i] = w->r2[i] - al * w->s2[i];
        w->y[i] = y;
        qy += q * y;
        yy += y * y;
        qq += q * q;
    }
    w->a[0] = qy;
    w->a[1] = yy;
    w->a[2] = qq;
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* x, r, r2, w from omega, and the sums of the next step */
static void second_pass(ovk__ctx *c, pbcgs_work *w)
{
    int n = c->n;
    double al = w->alpha, om = w->omega, d[6] = {0};
    ovk__tic t0 = ovk__tic_start(c);
    for (int i = 0; i < n; i++) {
        c->x[i] += al * w->p2[i] + om * w->q2[i];
        double r = w->q[i] - om * w->y[i];
        double ww = w->y[i] - om * (w->t[i] - al * w->v[i]);
        w->r[i] = r;
        w->r2[i] = w->q2[i] - om * (w->w2[i] - al * w->z2[i]);
        w->w[i] = ww;
        double h = w->rhat[i];
        d[0] += h * r;
        d[1] += h * w->s[i];
        d[2] += h * ww;
        d[3] += h * w->z[i];
        d[4] += r * r;
        d[5] += ww * ww;
    }
    memcpy(w->b, d, sizeof d);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* <y,y> = 0: x += alpha p2, r = q (a breakdown unless q = 0 too) */
static void half_step(ovk__ctx *c, pbcgs_work *w)
{
    ovk__tic t0 = ovk__tic_start(c);
    ovk__axpy(c->n, w->alpha, w->p2, c->x, &c->hook);
    if (c->n > 0) memcpy(w->r, w->q, sizeof(double) * (size_t)c->n);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    w->b[4] = w->a[2];
    w->omega = 0.0;
}

/* One step; *broke: omega = 0 (the step ended at its half, r = q).  The
 * second reduction overlaps the next step's w2, t (skipped without one). */
static int step(ovk__ctx *c, pbcgs_work *w, int more, int *broke)
{
    ovk_request *req = NULL;
    first_pass(c, w);
    int rc = ovk__sum_begin(c, OVK__GAMMA, w->a, 3, &req); /* <q,y>, <y,y>, <q,q> */
    if (rc) return rc;
    rc = ovk__sum_finish(c, OVK__GAMMA, req, pc_matvec(c, w->z, w->z2, w->v)); /* z2 = C z; v = A z2 */
    if (rc) return rc;
    *broke = w->a[1] == 0.0 || w->a[0] == 0.0;
    if (*broke) {
        half_step(c, w);
        return OVK_OK;
    }
    w->omega = w->a[0] / w->a[1];
    second_pass(c, w);
    rc = ovk__sum_begin(c, OVK__IPROD, w->b, 6, &req);
    if (rc) return rc;
    return ovk__sum_finish(c, OVK__IPROD, req, more ? pc_matvec(c, w->w, w->w2, w->t) : OVK_OK); /* w2 = C w; t = A w2 */
}

/* Residual replacement: r = b - A x, then a restart from it (rhat = r and
 * the recurrences anew).  Continuing with the old rhat, rho and directions
 * instead breaks down where the recursive residual has drifted far from
 * the true one: at that point their difference is no rounding error. */
static int replace(ovk__ctx *c, pbcgs_work *w, int iter)
{
    int rc = ovk__ctx_residual(c, w->r);
    c->res->replacements++;
    return rc ? rc : start(c, w, iter);
}

/* replace_every k > 0: every k steps; 0: PETSc's schedule; < 0: never */
static int replacement_due(const ovk__ctx *c, int iter)
{
    int every = c->opts->replace_every;
    if (every > 0) return iter % every == 0;
    return every == 0 && iter % AUTO_EVERY == 0 && iter <= AUTO_UNTIL;
}

/* beta and alpha of the next step from the second reduction; *broke when
 * rho or the denominator of alpha is negligible */
static void coefficients(pbcgs_work *w, int *broke, const char **what, double *value)
{
    double rho_old = w->rho, rho = w->b[0];
    w->rho = rho;
    *broke = 1;
    *what = "rho";
    *value = rho;
    if (ovk__bcgs_tiny(rho, w->hh, w->b[4])) return;
    double beta = (rho / rho_old) * (w->alpha / w->omega);
    double denom = w->b[2] + beta * w->b[1] - beta * w->omega * w->b[3]; /* <rhat, A C p> */
    *what = "<rhat,A C p>";
    *value = denom;
    if (ovk__bcgs_tiny(denom, w->hh, w->b[5])) return;
    w->beta = beta;
    w->alpha = rho / denom;
    w->first = 0;
    *broke = 0;
}

static int iterate(ovk__ctx *c, void *work, double bb)
{
    pbcgs_work *w = work;
    w->rs.last = -1;
    int rc = start(c, w, 0);
    if (rc || c->res->reason != OVK_REASON_NONE) return rc;
    for (int iter = 1; iter <= c->opts->max_iter; iter++) {
        int broke = 0, stop = 0, replaced = 0;
        const char *what = "omega";
        double value = 0.0;
        rc = step(c, w, iter < c->opts->max_iter, &broke);
        if (rc) return rc;
        rc = ovk__bcgs_check(c, iter, w->b[4], bb, w->r, &stop, &replaced);
        if (rc || stop) return rc;
        if (!broke && !replaced) coefficients(w, &broke, &what, &value);
        if (broke && ovk__bcgs_breakdown(c, &w->rs, iter, what, value)) return OVK_OK;
        if (broke || replaced) rc = start(c, w, iter); /* from r (the true residual when replaced) */
        else if (replacement_due(c, iter)) rc = replace(c, w, iter);
        if (rc || c->res->reason != OVK_REASON_NONE) return rc;
    }
    return ovk__bcgs_limit(c, bb, w->r);
}

#define V(f) offsetof(pbcgs_work, f)
const ovk__solver ovk__solver_pipebicgstab = {
    .name = "pipebicgstab",
    .description = "pipelined BiCGStab (Cools-Vanroose): any matrix, two reductions each overlapping C and a matvec",
    .options = "",
    .nonsymmetric = 1,
    .work_size = sizeof(pbcgs_work), .nvec = 15,
    .vec = (const size_t[]){V(r), V(rhat), V(p2), V(q), V(q2), V(y), V(r2), V(s), V(s2), V(w), V(w2), V(z), V(z2),
                            V(t), V(v)},
    .iterate = iterate,
};
