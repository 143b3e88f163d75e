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
 *   (<q,y>, <y,y> in flight since the previous step)
 *                                        z2 = C z;  v = A z2;  wait
 *   omega = <q,y> / <y,y>;  x += alpha p2 + omega q2;  r = q - omega y
 *   r2 = q2 - omega (w2 - alpha z2);  w = y - omega (t - alpha v)
 *   <rhat,r>, <rhat,ds>, <rhat,w>, <r,r>, ... -> start
 *                                        w2 = C w;  t = A w2
 *   <t,r>, <t,w>, <t,ds>, <t,dz>, <t,t>  -> start;  wait for the first
 *   beta = (rho / rho_old) (alpha / omega)
 *   alpha = rho / (<rhat,w> + beta <rhat,ds>),  ds = s - omega z
 *
 * The paper's method waits for its two reductions one after the other, so
 * an iteration costs two latencies.  Here the next step's omega sums start
 * before beta and alpha are known: with dz = z - omega v, c1 = -alpha and
 * c2 = -alpha beta, that step's q = r + c1 w + c2 ds and y = A C q =
 * w + c1 t + c2 dz, so <q,y> and <y,y> are quadratic forms in (c1, c2) of
 * sums the second reduction carries and of five sums with t.  Both
 * reductions are then in flight together and an iteration costs about one
 * latency and one matvec, for one more pass over six vectors (the sums
 * with t), which `early=0` saves where reductions are cheap.  Where the
 * form of <y,y> cancels (below 1e-8 of the sum of its terms' sizes) the
 * step sums q and y directly, one blocking reduction more.
 *
 * Attainable accuracy: the recurrences drift from their definitions, so
 * every `replace_every` steps (default: PETSc's schedule, every 100 steps
 * up to step 1000) the iteration restarts from the true residual b - A x;
 * a converged recursive residual is confirmed on the true one, which
 * restarts the iteration from it when it does not meet the tolerance. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcgs.h"

/* The second reduction's sums: rho = <rhat,r>, <rhat,ds>, <rhat,w>, <r,r>,
 * <w,w>, and those of the next omega's forms (B_RDZ = <r,dz>, ...) */
enum { B_RHO, B_RHAT_DS, B_RHAT_W, B_RR, B_WW, B_RW, B_RDZ, B_WDZ, B_DSW, B_DSDZ, B_DZDZ, NB };
/* the sums with t = A C w, in flight into the next step */
enum { T_R, T_W, T_DS, T_DZ, T_T, NT };
static const double CANCELLED = 1e-8; /* <y,y> from the forms below this share of its terms' sizes */

typedef struct pbcgs_params {
    long early; /* 1: the next omega's sums in flight with the second reduction */
} pbcgs_params;

/* The recurrences' coefficients; hh = <rhat,rhat>. */
typedef struct pbcgs_coef {
    double alpha, beta, omega, rho, hh;
} pbcgs_coef;

typedef struct pbcgs_work {
    double *r, *rhat, *p2, *q, *q2, *y, *r2, *s, *s2, *w, *w2, *z, *z2, *t, *v;
    ovk__bcgs_restarts rs;
    pbcgs_coef k;                       /* the step's coefficients */
    double a[3];                        /* <q,y>, <y,y>, <q,q> */
    double b[NB];                       /* B_RHO, ... */
    double tsum[NT];                    /* <t,r>, ... */
    ovk_request *early;                 /* tsum's sum, in flight (NULL: none) */
    int early_sums;                     /* the spec's early */
    int first;                          /* no step since the (re)start: p2 = r2, s = w, ... */
} pbcgs_work;

enum { AUTO_EVERY = 100, AUTO_UNTIL = 1000 }; /* PETSc's replacement schedule */

/* y = C x;  ax = A y */
static int pc_matvec(ovk__ctx *c, const double *x, double *y, double *ax)
{
    int rc = ovk__ctx_pc(c, x, y);
    return rc ? rc : ovk__ctx_matvec(c, y, ax);
}

/* complete the Gram sums in flight, if any (a restart or a stop drops them) */
static int drain(ovk__ctx *c, pbcgs_work *w)
{
    int rc = w->early ? ovk__sum_end(c, OVK__GAMMA, w->early) : OVK_OK;
    w->early = NULL;
    return rc;
}

/* rhat = r;  r2 = C r;  w = A r2;  <r,r>, <w,r>, <w,w> in flight while
 * w2 = C w;  t = A w2;  then alpha = rho / <rhat,w> */
static int start(ovk__ctx *c, pbcgs_work *w, int iter)
{
    ovk_request *req = NULL;
    double d[3];
    int rc = drain(c, w);
    if (rc) return rc;
    if (c->n > 0) memcpy(w->rhat, w->r, sizeof(double) * (size_t)c->n);
    rc = pc_matvec(c, w->r, w->r2, w->w);
    if (rc) return rc;
    ovk__tic t0 = ovk__tic_start(c);
    ovk__dots(c->n, 3, (const double *[]){w->r, w->w, w->w}, (const double *[]){w->r, w->r, w->w}, d, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    rc = ovk__sum_begin(c, OVK__SDOTP, d, 3, &req);
    if (rc) return rc;
    rc = ovk__sum_finish(c, OVK__SDOTP, req, pc_matvec(c, w->w, w->w2, w->t));
    if (rc) return rc;
    w->k.rho = w->k.hh = w->b[B_RR] = d[0];
    w->k.beta = 0.0;
    w->k.omega = 1.0;
    w->first = 1;
    if (ovk__bcgs_tiny(d[1], d[0], d[2])) {
        w->rs.last = iter; /* a restart would start from the same r: stop */
        ovk__bcgs_breakdown(c, &w->rs, iter, "<rhat,A C r>", d[1]);
        return OVK_OK;
    }
    w->k.alpha = d[0] / d[1];
    return OVK_OK;
}

/* the directions: p2, s, s2, z from beta and omega (copies at a start) */
static void directions(ovk__ctx *c, pbcgs_work *w)
{
    int n = c->n;
    double b = w->k.beta, bo = w->k.beta * w->k.omega;
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
    double al = w->k.alpha, qy = 0.0, yy = 0.0, qq = 0.0;
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

/* x, r, r2, w from omega; the sums of the second reduction */
static void second_pass(ovk__ctx *c, pbcgs_work *w)
{
    int n = c->n;
    double al = w->k.alpha, om = w->k.omega, d[NB] = {0};
    ovk__tic t0 = ovk__tic_start(c);
    for (int i = 0; i < n; i++) {
        c->x[i] += al * w->p2[i] + om * w->q2[i];
        double r = w->q[i] - om * w->y[i];
        double ww = w->y[i] - om * (w->t[i] - al * w->v[i]);
        double ds = w->s[i] - om * w->z[i], dz = w->z[i] - om * w->v[i], h = w->rhat[i];
        w->r[i] = r;
        w->r2[i] = w->q2[i] - om * (w->w2[i] - al * w->z2[i]);
        w->w[i] = ww;
        d[B_RHO] += h * r;
        d[B_RHAT_DS] += h * ds;
        d[B_RHAT_W] += h * ww;
        d[B_RR] += r * r;
        d[B_WW] += ww * ww;
        d[B_RW] += r * ww;
        d[B_RDZ] += r * dz;
        d[B_WDZ] += ww * dz;
        d[B_DSW] += ds * ww;
        d[B_DSDZ] += ds * dz;
        d[B_DZDZ] += dz * dz;
    }
    memcpy(w->b, d, sizeof d);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* <y,y> = 0: x += alpha p2, r = q (a breakdown unless q = 0 too) */
static void half_step(ovk__ctx *c, pbcgs_work *w)
{
    ovk__tic t0 = ovk__tic_start(c);
    ovk__axpy(c->n, w->k.alpha, w->p2, c->x, &c->hook);
    if (c->n > 0) memcpy(w->r, w->q, sizeof(double) * (size_t)c->n);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    w->b[B_RR] = w->a[2];
    w->k.omega = 0.0;
}

/* <t,r>, <t,w>, <t,ds>, <t,dz>, <t,t> for the next step's omega, started */
static int t_sums_begin(ovk__ctx *c, pbcgs_work *w)
{
    int n = c->n;
    double om = w->k.omega, d[NT] = {0};
    ovk__tic t0 = ovk__tic_start(c);
    for (int i = 0; i < n; i++) {
        double t = w->t[i], ds = w->s[i] - om * w->z[i], dz = w->z[i] - om * w->v[i];
        d[T_R] += t * w->r[i];
        d[T_W] += t * w->w[i];
        d[T_DS] += t * ds;
        d[T_DZ] += t * dz;
        d[T_T] += t * t;
    }
    memcpy(w->tsum, d, sizeof d);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    int rc = ovk__sum_begin(c, OVK__GAMMA, w->tsum, NT, &w->early);
    if (rc) w->early = NULL;
    return rc;
}

/* <q,y>, <y,y> of this step as forms in c1 = -alpha, c2 = -alpha beta
 * (q = r + c1 w + c2 ds, y = w + c1 t + c2 dz, with the previous step's
 * omega in ds, dz); 0 when <y,y> cancelled, <q,y> is 0 (a breakdown's
 * half step needs the direct <q,q>) or a form is not finite: a[] then
 * keeps this rank's direct sums */
static int omega_sums(pbcgs_work *w)
{
    const double *b = w->b, *g = w->tsum;
    double c1 = -w->k.alpha, c2 = -w->k.alpha * w->k.beta;
    double qy = b[B_RW] + c1 * g[T_R] + c2 * b[B_RDZ] + c1 * (b[B_WW] + c1 * g[T_W] + c2 * b[B_WDZ]) +
                c2 * (b[B_DSW] + c1 * g[T_DS] + c2 * b[B_DSDZ]);
    double terms[6] = {b[B_WW], c1 * c1 * g[T_T], c2 * c2 * b[B_DZDZ], 2 * c1 * g[T_W], 2 * c2 * b[B_WDZ],
                       2 * c1 * c2 * g[T_DZ]};
    double yy = 0.0, size = 0.0;
    for (int k = 0; k < 6; k++) {
        yy += terms[k];
        size += fabs(terms[k]);
    }
    if (!(yy > CANCELLED * size) || !isfinite(qy) || qy == 0.0) return 0;
    w->a[0] = qy;
    w->a[1] = yy;
    return 1;
}

/* One step; *broke: omega = 0 (the step ended at its half, r = q).  The
 * second reduction overlaps the next step's w2, t and its sums with t,
 * which stay in flight into the next step (skipped without one).  Sums of
 * omega that are not finite stop the solve (reason set) before x moves. */
static int step(ovk__ctx *c, pbcgs_work *w, int iter, int more, int *broke)
{
    ovk_request *req = w->early;
    int early = req != NULL;
    w->early = NULL;
    first_pass(c, w); /* a[]: this rank's <q,y>, <y,y>, <q,q> */
    int rc = early ? OVK_OK : ovk__sum_begin(c, OVK__GAMMA, w->a, 3, &req);
    if (rc) return rc;
    rc = ovk__sum_finish(c, OVK__GAMMA, req, pc_matvec(c, w->z, w->z2, w->v)); /* z2 = C z; v = A z2 */
    if (!rc && early && !omega_sums(w)) rc = ovk__sum(c, OVK__GAMMA, w->a, 3);
    if (rc || ovk__bcgs_nonfinite(c, iter, w->a, 2, "<q,y> or <y,y>")) return rc; /* x not updated from them */
    *broke = w->a[1] == 0.0 || w->a[0] == 0.0;
    if (*broke) {
        half_step(c, w);
        return OVK_OK;
    }
    w->k.omega = w->a[0] / w->a[1];
    second_pass(c, w);
    rc = ovk__sum_begin(c, OVK__IPROD, w->b, NB, &req);
    if (rc) return rc;
    if (more) rc = pc_matvec(c, w->w, w->w2, w->t); /* w2 = C w; t = A w2 */
    if (more && !rc && w->early_sums) rc = t_sums_begin(c, w);
    rc = ovk__sum_finish(c, OVK__IPROD, req, rc);
    if (w->early) c->clock.inflight = OVK__GAMMA; /* the Gram sums are still in flight */
    return rc;
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
    double rho_old = w->k.rho, rho = w->b[B_RHO];
    w->k.rho = rho;
    *broke = 1;
    *what = "rho";
    *value = rho;
    if (ovk__bcgs_tiny(rho, w->k.hh, w->b[B_RR])) return;
    double beta = (rho / rho_old) * (w->k.alpha / w->k.omega);
    double denom = w->b[B_RHAT_W] + beta * w->b[B_RHAT_DS]; /* <rhat, A C p> */
    *what = "<rhat,A C p>";
    *value = denom;
    if (ovk__bcgs_tiny(denom, w->k.hh, w->b[B_WW])) return;
    w->k.beta = beta;
    w->k.alpha = rho / denom;
    w->first = 0;
    *broke = 0;
}

static int run(ovk__ctx *c, pbcgs_work *w, double bb)
{
    w->rs.last = -1;
    int rc = start(c, w, 0);
    if (rc || c->res->reason != OVK_REASON_NONE) return rc;
    for (int iter = 1; iter <= c->opts->max_iter; iter++) {
        int broke = 0, stop = 0, replaced = 0;
        const char *what = "omega";
        double value = 0.0;
        rc = step(c, w, iter, iter < c->opts->max_iter, &broke);
        if (rc || c->res->reason != OVK_REASON_NONE) return rc;
        if (ovk__bcgs_nonfinite(c, iter, w->b, NB, "a sum of the step")) return OVK_OK; /* the next step's */
        rc = ovk__bcgs_check(c, iter, w->b[B_RR], bb, w->r, &stop, &replaced);
        if (rc || stop) return rc;
        if (!broke && !replaced) coefficients(w, &broke, &what, &value);
        if (broke && ovk__bcgs_breakdown(c, &w->rs, iter, what, value)) return OVK_OK;
        if (broke || replaced) rc = start(c, w, iter); /* from r (the true residual when replaced) */
        else if (replacement_due(c, iter)) rc = replace(c, w, iter);
        if (rc || c->res->reason != OVK_REASON_NONE) return rc;
    }
    return ovk__bcgs_limit(c, bb, w->r);
}

static int iterate(ovk__ctx *c, void *work, double bb)
{
    pbcgs_work *w = work;
    w->early = NULL;
    int rc = run(c, w, bb), rc2 = drain(c, w); /* nothing stays in flight */
    return rc ? rc : rc2;
}

static int pbcgs_parse(ovk__opts *o, void **params)
{
    pbcgs_params *p = calloc(1, sizeof *p);
    *params = p;
    if (!p) return ovk__fail(OVK_ENOMEM, "pipebicgstab");
    p->early = 1;
    const ovk__opt_entry t[] = {OVK__OPT_INT("early", 0, 1, &p->early)};
    return ovk__opts_read(o, "pipebicgstab", t, 1);
}

static int pbcgs_setup(ovk__ctx *c, void *work)
{
    ((pbcgs_work *)work)->early_sums = (int)((const pbcgs_params *)c->params)->early;
    return OVK_OK;
}

static void pbcgs_view(const void *work, FILE *f)
{
    const pbcgs_work *w = work;
    fprintf(f, "  pipebicgstab: early = %d (%s)\n", w->early_sums,
            w->early_sums ? "both reductions in flight together" : "the paper's schedule, one after the other");
}

#define V(f) offsetof(pbcgs_work, f)
const ovk__solver_ops ovk__solver_pipebicgstab = {
    .caps = OVK__CAP_NONSYMMETRIC,
    OVK__WORK_VECTORS(pbcgs_work, V(r), V(rhat), V(p2), V(q), V(q2), V(y), V(r2), V(s), V(s2), V(w), V(w2), V(z),
                      V(z2), V(t), V(v)),
    .parse = pbcgs_parse, .setup = pbcgs_setup, .view = pbcgs_view,
    .iterate = iterate,
};
