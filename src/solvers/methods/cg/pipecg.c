/* Pipelined PCG (Ghysels and Vanroose, Parallel Computing 40, 2014; PETSc's
 * KSPPIPECG).  Besides cg1's s = A p and w = A u it carries q = C s,
 * z = A q, m = C w and n = A m by recurrences, so the one reduction of a
 * step (<r,u>, <w,u>, <r,r>) is started right after the updates and
 * completed after the preconditioner and the matvec of the next step, which
 * drive the backend's progress through the hook while they run:
 *
 *   beta = gamma / gamma_old;  alpha = gamma / <p,Ap>          (single_reduction.c)
 *   z = n + beta z;  s = w + beta s;  p = u + beta p                (one pass,
 *   x += alpha p;  r -= alpha s;  w -= alpha z                      with the dots)
 *   gamma = <r,u>, delta = <w,u>, <r,r>  -> start the reduction
 *   m = C w;  n = A m                                              (overlap)
 *   wait for the reduction
 *
 * The paper also carries q = C s and u = C r by recurrences (q = m + beta q,
 * u -= alpha q); with a diagonal (Jacobi or no) preconditioner the pass
 * forms them from C's diagonal instead, exactly the same vectors in exact
 * arithmetic and 24 bytes less per row (docs/solvers.md).  With any other C
 * (IC(0), SSOR, Chebyshev, the application's) the paper's recurrences run,
 * with the sums in the same pass.
 *
 * The recurrences drift from their definitions faster than CG's; the
 * residual replacement, the true-residual exit test and the restart after
 * a loss of positivity are in single_reduction.c. */
#include <stddef.h>
#include <string.h>

#include "fused.h"

typedef struct pipe_work {
    ovk__pipe_vecs v;       /* v.x is the solution vector */
    double sums[OVK__V_COUNT + OVK__NULLSPACE_MAX]; /* reduced values, OVK__V_* slots; then Z^T p */
    double mm;              /* <m,m> of the latest m = C w */
} pipe_work;

/* m = C w and <m,m> */
static int precond(ovk__ctx *c, pipe_work *w)
{
    const double *d = ovk__ctx_pc_diagonal(c);
    ovk__tic t0;
    if (d) { /* m = d .* w and <m,m> in one pass: bitwise C's apply, then ovk__dot */
        t0 = ovk__tic_start(c);
        ovk__mul_dot(c->n, d, w->v.w, w->v.m, &w->mm, &c->hook);
        ovk__tic_stop(c, OVK_TIMER_PRECOND, t0);
        return OVK_OK;
    }
    int rc = ovk__ctx_pc(c, w->v.w, w->v.m); /* m = C w */
    if (rc) return rc;
    t0 = ovk__tic_start(c);
    w->mm = ovk__dot(c->n, w->v.m, w->v.m); /* <m,m> */
    ovk__tic_stop(c, OVK_TIMER_PRECOND, t0);
    return OVK_OK;
}

/* m = C w; n = A m */
static int precond_matvec(ovk__ctx *c, pipe_work *w)
{
    int rc = precond(c, w);
    if (rc) return rc;
    return ovk__ctx_matvec(c, w->v.m, w->v.n); /* n = A m */
}

/* s = A p; q = C s; z = A q */
static int directions(ovk__ctx *c, pipe_work *w)
{
    int rc = ovk__ctx_matvec(c, w->v.p, w->v.s); /* s = A p */
    if (rc) return rc;
    rc = ovk__ctx_pc(c, w->v.s, w->v.q); /* q = C s */
    if (rc) return rc;
    return ovk__ctx_matvec(c, w->v.q, w->v.z); /* z = A q */
}

/* the sums of the refreshed vectors, in OVK__V_* order */
static int reduce_all(ovk__ctx *c, pipe_work *w)
{
    const ovk__pipe_vecs *v = &w->v;
    const double *x[] = {v->r, v->w, v->r, v->u, v->p, v->p, v->x, v->p, v->s, v->u, v->w, v->q, v->z, v->m};
    const double *y[] = {v->u, v->u, v->r, v->s, v->w, v->s, v->x, v->p, v->s, v->u, v->w, v->q, v->z, v->m};
    return ovk__ctx_dots(c, OVK__V_COUNT, x, y, w->sums);
}

/* r = b - A x (unless r_ready), u = C r, w = A u, the directions (zero on a
 * restart), m = C w, n = A m, and their sums */
static int refresh_from(ovk__ctx *c, pipe_work *w, int restart, int r_ready)
{
    ovk__pipe_vecs *v = &w->v;
    int rc = ovk__restart_vectors(c, r_ready, v->r, v->u, v->w);
    if (rc) return rc;
    if (restart) {
        double *zero[] = {v->p, v->s, v->q, v->z};
        for (int i = 0; i < 4; i++) memset(zero[i], 0, sizeof(double) * (size_t)c->n);
    } else {
        rc = directions(c, w);
        if (rc) return rc;
    }
    rc = precond_matvec(c, w);
    if (rc) return rc;
    return reduce_all(c, w);
}

static int refresh(ovk__ctx *c, void *work, int restart) { return refresh_from(c, work, restart, 0); }

/* the updates and their local sums in one pass: u and q from a diagonal C,
 * else by the paper's recurrences */
static void update(ovk__ctx *c, pipe_work *w, const ovk__single_reduction *st)
{
    const ovk__pipe_vecs *v = &w->v;
    ovk__tic t0 = ovk__tic_start(c);
    if (v->d) ovk__pipecg_update(c->n, st->alpha, st->beta, v, w->sums, &c->hook); /* z s p x r w, dots */
    else ovk__pipecg_update_any(c->n, st->alpha, st->beta, v, w->sums, &c->hook); /* z q s p x r u w, dots */
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* One step: the updates, then the reduction in flight while the next
 * m = C w, n = A m run (skipped when no further step can follow). */
static int step(ovk__ctx *c, void *work, const ovk__single_reduction *st, int more)
{
    pipe_work *w = work;
    ovk_request *req = NULL;
    update(c, w, st);
    w->sums[OVK__V_MM] = w->mm; /* of the m this update read through n = A m */
    int k = ovk__nullspace_append(c, w->sums, OVK__V_COUNT, OVK__V_COUNT, w->v.p); /* and Z^T p */
    int rc = ovk__sum_begin(c, OVK__IPROD, w->sums, k, &req); /* init the reduction */
    if (rc) return rc;
    if (more) rc = precond_matvec(c, w); /* m = C w; n = A m */
    rc = ovk__sum_finish(c, OVK__IPROD, req, rc); /* wait */
    /* p -= Z Z^T p; x -= alpha Z Z^T p: the null-space part that u = C r
     * brought into this step's p (m, q and n need none: A Z = 0, and q
     * reaches the directions only through u) */
    if (!rc) ovk__nullspace_remove(c, w->sums + OVK__V_COUNT, w->v.p, st->alpha, w->v.x);
    return rc;
}

static int start(ovk__ctx *c, void *work) { return refresh_from(c, work, 1, 1); }

static int iterate(ovk__ctx *c, void *work, double bb)
{
    static const ovk__single_reduction_ops ops = {.pipelined = 1, .refresh = refresh, .start = start, .step = step};
    pipe_work *w = work;
    w->v.x = c->x;
    w->v.d = ovk__ctx_pc_diagonal(c);
    return ovk__single_reduction_run(c, &ops, w, w->v.r, w->sums, bb);
}

/* the timed part of a step: its work besides n = A m (the updates and their
 * sums, m = C w) on x */
static int vector_step(ovk__ctx *c, void *work, double *x)
{
    pipe_work *w = work;
    ovk__single_reduction st = {.alpha = 0.5, .beta = 0.5};
    w->v.x = x;
    w->v.d = ovk__ctx_pc_diagonal(c);
    update(c, w, &st);
    return precond(c, w);
}

#define V(f) offsetof(pipe_work, v.f)
const ovk__solver_ops ovk__solver_pipecg = {
    .needs_norm = 1, .caps = OVK__CAP_NULLSPACE | OVK__CAP_CONDEST,
    OVK__WORK_VECTORS(pipe_work, V(r), V(u), V(w), V(p), V(s), V(q), V(z), V(m), V(n)),
    .iterate = iterate, .vector_step = vector_step,
};
