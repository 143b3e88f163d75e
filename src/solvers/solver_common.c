/* Helpers shared by the PCG variants: timed split-phase sums, the initial
 * and per-iteration decisions.  All decisions use reduced values, which are
 * bitwise identical on every rank, so every rank decides the same. */
#include <math.h>
#include <stdlib.h>

#include "solver.h"

static const ovk_timer init_timer[] = {OVK_TIMER_SDOTP_INIT, OVK_TIMER_GAMMA_INIT, OVK_TIMER_IPROD_INIT};
static const ovk_timer test_timer[] = {OVK_TIMER_SDOTP_TEST, OVK_TIMER_GAMMA_TEST, OVK_TIMER_IPROD_TEST};
static const ovk_timer wait_timer[] = {OVK_TIMER_SDOTP_WAIT, OVK_TIMER_GAMMA_WAIT, OVK_TIMER_IPROD_WAIT};

int ovk__sum_begin(ovk__ctx *c, ovk__dot_id dot, double *vals, int k, ovk_request **req)
{
    double t0 = ovk__now();
    int rc = ovk_reduce_start(c->red, vals, vals, k, OVK_DOUBLE, OVK_SUM, req);
    c->t[init_timer[dot]] += ovk__now() - t0;
    c->inflight = (int)dot;
    return rc;
}

int ovk__sum_end(ovk__ctx *c, ovk__dot_id dot, ovk_request *req)
{
    double t0 = ovk__now();
    int rc = ovk_reduce_wait(req);
    if (!rc) rc = ovk_request_free(req);
    c->t[wait_timer[dot]] += ovk__now() - t0;
    c->inflight = -1;
    return rc;
}

int ovk__sum(ovk__ctx *c, ovk__dot_id dot, double *vals, int k)
{
    ovk_request *req = NULL;
    int rc = ovk__sum_begin(c, dot, vals, k, &req);
    return rc ? rc : ovk__sum_end(c, dot, req);
}

void ovk__stop(ovk__ctx *c, int iter, ovk_reason why, const char *what, double value)
{
    c->res->iterations = iter;
    c->res->reason = why;
    if (why == OVK_REASON_BREAKDOWN)
        ovk__fail(OVK_EBREAKDOWN, "iteration %d: %s = %g (matrix or preconditioner not SPD?)", iter, what, value);
    else
        ovk__fail(OVK_ENONFINITE, "iteration %d: %s = %g", iter, what, value);
}

int ovk__initial_check(ovk__ctx *c, const double *r, double *bb, int *decided)
{
    double v[2] = {ovk__dot(c->n, c->b, c->b), ovk__dot(c->n, r, r)};
    int rc = ovk__sum(c, OVK__IPROD, v, 2);
    if (rc) return rc;
    *bb = v[0];
    *decided = 1;
    c->res->iterations = 0;
    if (!isfinite(v[0]) || !isfinite(v[1])) {
        ovk__stop(c, 0, OVK_REASON_NONFINITE, "<b,b> or <r0,r0>", isfinite(v[0]) ? v[1] : v[0]);
    } else if (v[0] == 0.0) { /* b = 0: the solution is x = 0, as hypre returns */
        for (int i = 0; i < c->n; i++) c->x[i] = 0.0;
        c->res->rel_residual = 0.0;
        c->res->reason = OVK_REASON_CONVERGED;
    } else if (v[1] / v[0] < c->opts->tol * c->opts->tol) {
        c->res->rel_residual = sqrt(v[1] / v[0]);
        c->res->reason = OVK_REASON_CONVERGED;
    } else {
        c->res->rel_residual = sqrt(v[1] / v[0]);
        *decided = 0;
    }
    return OVK_OK;
}

void ovk__iterate_check(ovk__ctx *c, int iter, double iprod, double bb, int *stop)
{
    c->res->iterations = iter;
    *stop = 0;
    if (!isfinite(iprod)) {
        ovk__stop(c, iter, OVK_REASON_NONFINITE, "<r,r>", iprod);
        *stop = 1;
        return;
    }
    c->res->rel_residual = sqrt(iprod / bb);
    if (c->opts->print_level >= 2 && c->rank == 0)
        fprintf(c->opts->out ? c->opts->out : stdout, "Iter %5d  ||r||/||b|| = %e\n", iter, c->res->rel_residual);
    if (iprod / bb < c->opts->tol * c->opts->tol) {
        c->res->reason = OVK_REASON_CONVERGED;
        *stop = 1;
    }
}

int ovk__ctx_matvec(ovk__ctx *c, const double *p, double *s)
{
    ovk__tic t0 = ovk__tic_start(c);
    int rc = ovk__matvec(c->A, p, s, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_MATVEC, t0);
    return rc;
}

int ovk__ctx_residual(ovk__ctx *c, double *r)
{
    int rc = ovk__ctx_matvec(c, c->x, r);
    for (int i = 0; !rc && i < c->n; i++) r[i] = c->b[i] - r[i];
    return rc;
}

int ovk__ctx_alloc(ovk__ctx *c, int count, double **v[])
{
    int rc = OVK_OK;
    size_t len = (size_t)(c->n > 0 ? c->n : 1);
    for (int i = 0; i < count; i++) {
        *v[i] = calloc(len, sizeof(double));
        if (!*v[i]) rc = ovk__fail(OVK_ENOMEM, "%d work vectors of %d rows", count, c->n);
    }
    return ovk__agree(c->A->lay.comm, rc);
}

void ovk__ctx_progress(void *ctx)
{
    ovk__ctx *c = ctx;
    double t0 = ovk__now();
    ovk_reducer_progress(c->red); /* errors surface at the wait */
    double dt = ovk__now() - t0;
    c->progress_time += dt;
    if (c->inflight >= 0) c->t[test_timer[c->inflight]] += dt;
}

void ovk__ctx_diaginv(ovk__ctx *c, const double *linv, const double *x, double *y, double *yy)
{
    ovk__tic t0 = ovk__tic_start(c);
    if (yy) ovk__mul_dot(c->n, linv, x, y, yy, &c->hook);
    else ovk__mul(c->n, linv, x, y, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_PRECOND, t0);
}

void ovk__ctx_axpy(ovk__ctx *c, double a, const double *x, double *y)
{
    ovk__tic t0 = ovk__tic_start(c);
    ovk__axpy(c->n, a, x, y, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

int ovk__lagged_iter_end(ovk__ctx *c, int iter, double iprod, double bb, double alpha, double **p,
                         double **p_prev)
{
    int stop = 0;
    double *swap = *p_prev;
    *p_prev = *p;
    *p = swap;
    ovk__iterate_check(c, iter, iprod, bb, &stop);
    if (!stop && iter < c->opts->max_iter) return 0;
    ovk__ctx_axpy(c, alpha, *p_prev, c->x); /* the lagging x update */
    if (!stop) c->res->reason = OVK_REASON_MAXIT;
    return 1;
}

int ovk__ctx_alloc_block(ovk__ctx *c, int count, double **v[], double **block)
{
    enum { PAGE = 512, STAGGER = 72 }; /* doubles: 4 KiB; 576 B = 9 cache lines */
    size_t stride = ((size_t)(c->n > 0 ? c->n : 1) + PAGE - 1) / PAGE * PAGE + STAGGER;
    int rc = OVK_OK;
    *block = calloc(stride * (size_t)count, sizeof(double));
    if (!*block) rc = ovk__fail(OVK_ENOMEM, "%d work vectors of %d rows", count, c->n);
    for (int i = 0; i < count; i++) *v[i] = *block ? *block + stride * (size_t)i : NULL;
    return ovk__agree(c->A->lay.comm, rc);
}

void ovk__ctx_jacobi(ovk__ctx *c, double *dinv)
{
    for (int i = 0; i < c->n; i++) dinv[i] = c->opts->precond == OVK_PRECOND_NONE ? 1.0 : 1.0 / c->A->diagonal[i];
}

int ovk__ctx_dots(ovk__ctx *c, int k, const double *const *x, const double *const *y, double *out)
{
    ovk__tic t0 = ovk__tic_start(c);
    ovk__dots(c->n, k, x, y, out, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    return ovk__sum(c, OVK__IPROD, out, k);
}
