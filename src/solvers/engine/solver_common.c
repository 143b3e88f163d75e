/* Helpers shared by the PCG variants: timed split-phase sums, the operator
 * and the preconditioner behind their timers (through the context's ops:
 * the direct ones here, a batch's in many.c), the initial and per-iteration
 * decisions.  All decisions use reduced values, which are bitwise identical
 * on every rank, so every rank decides the same. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../solver.h"

static const ovk_timer init_timer[] = {OVK_TIMER_SDOTP_INIT, OVK_TIMER_GAMMA_INIT, OVK_TIMER_IPROD_INIT};
static const ovk_timer test_timer[] = {OVK_TIMER_SDOTP_TEST, OVK_TIMER_GAMMA_TEST, OVK_TIMER_IPROD_TEST};
static const ovk_timer wait_timer[] = {OVK_TIMER_SDOTP_WAIT, OVK_TIMER_GAMMA_WAIT, OVK_TIMER_IPROD_WAIT};

/* With a monitor: a free slot for a sum of k values and the vote (the
 * same on every rank: k and the sums in flight are).  A sum too long for a
 * slot (plcg's spectrum estimate) goes without the vote: a vote stays set
 * until the solve ends, so the next sum carries it. */
static int stage_slot(ovk__ctx *c, int k, ovk__stage **slot)
{
    *slot = NULL;
    if (k + 1 > OVK__STAGE_VALS) return OVK_OK;
    for (int i = 0; i < OVK__STAGE_SLOTS; i++)
        if (!c->mon.stage[i].req && !c->mon.stage[i].vals) {
            *slot = &c->mon.stage[i];
            return OVK_OK;
        }
    return ovk__fail(OVK_EUNSUPPORTED, "more than %d sums in flight for the monitor's vote", OVK__STAGE_SLOTS);
}

int ovk__sum_begin(ovk__ctx *c, ovk__dot_id dot, double *vals, int k, ovk_request **req)
{
    ovk__stage *slot = NULL;
    double *send = vals;
    if (c->cb.failed)
        for (int i = 0; i < k; i++) vals[i] = NAN; /* every rank sees the failure in this sum */
    if (c->mon.stage) { /* the values and this rank's stop vote, one more value in the same sum */
        int rc = stage_slot(c, k, &slot);
        if (rc) return rc;
    }
    if (slot) {
        memcpy(slot->buf, vals, sizeof(double) * (size_t)k);
        slot->buf[k] = c->watch.vote ? 1.0 : 0.0;
        slot->vals = vals;
        slot->k = k;
        send = slot->buf;
    }
    double t0 = ovk__now();
    int rc = c->ops->sum_post(c, send, k + (slot != NULL), req);
    c->clock.t[init_timer[dot]] += ovk__now() - t0;
    c->clock.inflight = (int)dot;
    if (!rc) { /* flight: minus each post's time, plus its wait's end (from a base, for precision) */
        if (!c->clock.flying) c->clock.flight_base = t0;
        c->clock.flight -= t0 - c->clock.flight_base;
        c->clock.flying++;
    }
    if (slot) {
        slot->req = rc ? NULL : *req;
        if (rc) slot->vals = NULL;
    }
    if (!rc) c->ops->sum_posted(c); /* untimed: a batch's other systems run */
    return rc;
}

/* the monitor's slot staging the sum of req, or NULL */
static ovk__stage *staged(ovk__ctx *c, const ovk_request *req)
{
    for (int i = 0; c->mon.stage && i < OVK__STAGE_SLOTS; i++)
        if (c->mon.stage[i].req == req) return &c->mon.stage[i];
    return NULL;
}

/* the staged sum's values back to the variant, the votes read */
static void unstage(ovk__ctx *c, ovk__stage *slot, int rc)
{
    if (!slot) return;
    if (!rc) {
        memcpy(slot->vals, slot->buf, sizeof(double) * (size_t)slot->k);
        if (slot->buf[slot->k] != 0.0) c->watch.stop_agreed = 1; /* a reduced value: every rank sees it */
    }
    slot->req = NULL;
    slot->vals = NULL;
}

int ovk__sum_end(ovk__ctx *c, ovk__dot_id dot, ovk_request *req)
{
    ovk__stage *slot = staged(c, req);
    double waited = 0.0;
    int rc = c->ops->sum_wait(c, req, &waited);
    unstage(c, slot, rc);
    c->clock.t[wait_timer[dot]] += waited;
    c->clock.flight += ovk__now() - c->clock.flight_base;
    c->clock.flying--;
    c->clock.inflight = -1;
    return rc;
}

int ovk__sum_finish(ovk__ctx *c, ovk__dot_id dot, ovk_request *req, int rc)
{
    int rc2 = ovk__sum_end(c, dot, req);
    if (!rc) rc = rc2;
    return rc;
}

int ovk__sum(ovk__ctx *c, ovk__dot_id dot, double *vals, int k)
{
    ovk_request *req = NULL;
    int rc = ovk__sum_begin(c, dot, vals, k, &req);
    if (rc) return rc;
    return ovk__sum_end(c, dot, req);
}

/* The ranges a solve runs unscaled in (scaling.c): ||b|| in [2^-128,
 * 2^128], ||A||_inf in [2^-128, 2^128] */
#define BB_LO 0x1p-256
#define BB_HI 0x1p+256
#define ANORM_LO 0x1p-128
#define ANORM_HI 0x1p+128

int ovk__anorm_out(double anorm) { return anorm > 0.0 && isfinite(anorm) && (anorm < ANORM_LO || anorm > ANORM_HI); }

int ovk__scale_needed(const ovk__ctx *c, double bb)
{
    if (c->norms.current && ovk__anorm_out(c->norms.anorm)) return 1;
    return !isnan(bb) && (bb < BB_LO || bb > BB_HI); /* 0 and Inf included */
}

void ovk__stop(ovk__ctx *c, int iter, ovk_reason why, const char *what, double value)
{
    c->res->iterations = iter;
    c->res->reason = why;
    if (why == OVK_REASON_BREAKDOWN)
        ovk__fail(OVK_EBREAKDOWN, "iteration %d: %s = %g (%s%s%s%s)", iter, what, value,
                  c->sym.running ? "singular matrix or preconditioner?"
                                 : "matrix or preconditioner not SPD? For a symmetric indefinite matrix use minres "
                                   "or pminres, with an SPD preconditioner.",
                  c->ns ? "" : " A singular A, as a pure Neumann problem's, needs its null space declared: "
                               "ovk_solver_set_nullspace, or -ovk_",
                  c->ns ? "" : c->sym.nullspace_key, c->ns ? "" : " constant");
    else
        ovk__fail(OVK_ENONFINITE, "iteration %d: %s = %g", iter, what, value);
}

/* -ovk_monitor (rank 0): ||r|| as the variant reduced it; with
 * -ovk_monitor_true also ||b - A x|| (one product and one blocking sum) */
static int print_monitor(ovk__ctx *c, int iter, double rnorm)
{
    FILE *f = c->opts->out ? c->opts->out : stdout;
    double tt = 0.0;
    if (!c->mon.true_r) {
        if (c->rank == 0) fprintf(f, "%4d ovk residual norm %.12e\n", iter, rnorm);
        return OVK_OK;
    }
    int rc = ovk__ctx_residual(c, c->mon.true_r); /* b - A x */
    if (rc) return rc;
    rc = ovk__ctx_dots(c, 1, (const double *[]){c->mon.true_r}, (const double *[]){c->mon.true_r}, &tt);
    if (rc) return rc;
    if (c->rank == 0)
        fprintf(f, "%4d ovk residual norm %.12e true resid norm %.12e ||r(i)||/||b|| %.12e\n", iter, rnorm,
                ldexp(sqrt(tt), -c->scale.kb), c->watch.bb2 > 0.0 ? sqrt(tt / c->watch.bb2) : 0.0);
    return OVK_OK;
}

/* The history, the prints and the monitor for the residual of iteration
 * iter, once per iteration (a residual replacement or a restart decides
 * the same iteration again on refreshed values: not observed twice).  The
 * monitor's stop request is this rank's vote, carried by the next sum. */
static int observe(ovk__ctx *c, int iter, double rr, double bb)
{
    double rnorm = ovk__unscaled(c, sqrt(rr)), rel = bb > 0.0 ? sqrt(rr / bb) : 0.0;
    if (iter <= c->watch.observed) return OVK_OK;
    c->watch.observed = iter;
    if (c->mon.history && iter < c->mon.history_cap) {
        c->mon.history[iter] = rnorm;
        c->res->history_len = iter + 1;
    }
    if (c->opts->print_level >= 2 && c->rank == 0)
        fprintf(c->opts->out ? c->opts->out : stdout, "Iter %5d  ||r||/||b|| = %e\n", iter, rel);
    if (c->mon.print || c->mon.print_true) {
        int rc = print_monitor(c, iter, rnorm);
        if (rc) return rc;
    }
    if (c->mon.fn && c->mon.fn(c->cb.owner, iter, rnorm, rel, c->mon.fn_ctx) != 0) c->watch.vote = 1;
    return OVK_OK;
}

/* The convergence test's verdict, agreed: the test may answer differently
 * on one rank (it reads local data, or is wrong), and every rank must
 * branch alike.  One blocking reduction of {v, -v} (MAX): diverged when
 * any rank says so, converged when all do, else go on. */
static int agreed_verdict(ovk__ctx *c, int v, int *out)
{
    int m[2] = {v == OVK_VERDICT_DIVERGED, -(v == OVK_VERDICT_CONVERGED)};
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, m, 2, MPI_INT, MPI_MAX, c->comm),
                      "MPI_Allreduce (the convergence test's verdict)");
    *out = m[0] ? OVK_VERDICT_DIVERGED : m[1] ? OVK_VERDICT_CONVERGED : OVK_VERDICT_CONTINUE;
    return rc;
}

/* Why the solve stops at <r,r> = rr, from reduced values only (the same
 * on every rank), or OVK_REASON_NONE: the convergence test (its verdict
 * agreed) or the tolerances, then divtol. */
static int decide(ovk__ctx *c, int iter, double rr, double bb, ovk_reason *why)
{
    *why = OVK_REASON_NONE;
    if (c->mon.conv_fn) {
        int v = c->mon.conv_fn(c->cb.owner, iter, ovk__unscaled(c, sqrt(rr)), ovk__unscaled(c, sqrt(bb)),
                               ovk__unscaled(c, c->watch.rnorm0), c->mon.conv_ctx);
        int rc = agreed_verdict(c, v, &v);
        if (rc) return rc;
        c->watch.user_converged = v == OVK_VERDICT_CONVERGED;
        if (v == OVK_VERDICT_CONVERGED) *why = OVK_REASON_CONVERGED;
        if (v == OVK_VERDICT_DIVERGED) *why = OVK_REASON_DIVERGED;
        if (v != OVK_VERDICT_CONTINUE) return OVK_OK;
    } else if (ovk__converged(c, rr)) {
        *why = OVK_REASON_CONVERGED;
        return OVK_OK;
    }
    if (c->watch.rr_div > 0.0 && rr > c->watch.rr_div) *why = OVK_REASON_DIVERGED;
    return OVK_OK;
}

void ovk__initial_dots(const ovk__ctx *c, const double *r, double v[2])
{
    v[0] = ovk__dot(c->n, c->b, c->b);
    v[1] = ovk__dot(c->n, r, r);
}

int ovk__initial_check(ovk__ctx *c, const double *r, double *bb, int *decided)
{
    double v[2];
    ovk__initial_dots(c, r, v);
    int rc = ovk__sum(c, OVK__IPROD, v, 2);
    if (rc) return rc;
    return ovk__initial_values(c, v, bb, decided);
}

/* The initial decision from the reduced <b,b> (bb2: b = 0, the scaling),
 * the tests' reference ref (<b,b>, or <b,C b> for the natural norm) and
 * the initial residual's r0 in the same norm; *bb = ref. */
static int initial_from(ovk__ctx *c, double bb2, double ref, double r0, double *bb, int *decided)
{
    int rc;
    c->watch.initial_pending = 0;
    *bb = ref;
    *decided = 1;
    c->watch.bb2 = bb2;
    c->res->rhs_norm = ovk__unscaled(c, sqrt(ref)); /* of the unscaled b */
    if (!c->scale.active && ovk__scale_needed(c, bb2)) { /* the frame solves again, scaled */
        c->scale.wanted = 1;
        return OVK_OK;
    }
    c->res->iterations = 0;
    c->watch.observed = -1;
    c->watch.user_converged = 0;
    c->watch.stag_best = INFINITY;
    c->watch.stag_checks = 0;
    c->watch.stag_window = 0;
    double atol = c->opts->atol, tol = c->opts->tol;
    int k = ovk__norm_exponent(c);
    atol = k ? ldexp(atol, k) : atol;
    c->watch.rr_stop = fmax(tol * tol * ref, atol * atol);
    c->watch.rr_div = c->mon.divtol * c->mon.divtol * r0;
    c->watch.rnorm0 = sqrt(r0);
    if (!isfinite(bb2) || !isfinite(ref) || !isfinite(r0)) {
        double bad = !isfinite(bb2) ? bb2 : !isfinite(ref) ? ref : r0;
        ovk__stop(c, 0, OVK_REASON_NONFINITE, c->mon.natural ? "<b,b>, <b,Cb> or <r0,Cr0>" : "<b,b> or <r0,r0>", bad);
        return OVK_OK;
    }
    if (bb2 == 0.0) { /* b = 0: the solution is x = 0, as hypre returns */
        for (int i = 0; i < c->n; i++) c->x[i] = 0.0;
        c->res->rel_residual = 0.0;
        c->res->reason = OVK_REASON_CONVERGED;
        return OVK_OK;
    }
    if (!(ref > 0.0) || !(r0 >= 0.0)) { /* <b,C b> <= 0 for b != 0 or <r0,C r0> < 0: C not SPD */
        ovk__stop(c, 0, OVK_REASON_BREAKDOWN, ref > 0.0 ? "<r0,Cr0>" : "<b,Cb>", ref > 0.0 ? r0 : ref);
        return OVK_OK;
    }
    c->res->rel_residual = sqrt(r0 / ref);
    rc = observe(c, 0, r0, ref);
    if (rc) return rc;
    rc = decide(c, 0, r0, ref, &c->res->reason);
    *decided = c->res->reason != OVK_REASON_NONE;
    return rc;
}

int ovk__initial_values(ovk__ctx *c, const double v[2], double *bb, int *decided)
{
    return initial_from(c, v[0], v[0], v[1], bb, decided);
}

int ovk__initial_natural(ovk__ctx *c, const double v[3], double *bb, int *decided)
{
    return initial_from(c, v[0], v[1], v[2], bb, decided);
}

/* The solve stops, stagnated: the true ||r|| reached (best, <r,r>) above
 * the tolerance; why: over how many checks or iterations. */
static void stagnated(ovk__ctx *c, double bb, const char *why, int count)
{
    c->res->reason = OVK_REASON_STAGNATED;
    ovk__fail(OVK_ESTAGNATED,
              "iteration %d: the recursive residual met the tolerance, but the true ||b - A x||/||b|| stayed at %g "
              "over %d %s, above the tolerance: the operator is inexact (matrix-free finite differences?) or the "
              "tolerance is below the attainable accuracy",
              c->res->iterations, sqrt(c->watch.stag_best / bb), count, why);
}

/* A confirmation failed at the true <r,r> = rr (reduced: the same on
 * every rank): counted unless ||r|| halved since the best of those before;
 * the OVK__STAGNATION_CHECKS-th in a row stops the solve, stagnated.  The
 * first sets the window of iterations the residual then has to halve in
 * (ovk__iterate_check): 4x the iterations per halving so far, at least 10. */
static void stagnation(ovk__ctx *c, double rr, double bb)
{
    int iter = c->res->iterations;
    if (!c->watch.stag_window) {
        double r0 = c->watch.rnorm0 * c->watch.rnorm0, drop = rr > 0.0 && r0 > rr ? log(r0 / rr) : 0.0;
        double per_halving = drop > 0.0 ? log(4.0) * (iter > 0 ? iter : 1) / drop : (double)iter;
        c->watch.stag_window = per_halving < 2.5 ? 10 : per_halving > 1e8 ? 400000000 : (int)(4.0 * per_halving);
    }
    c->watch.stag_iter = iter;
    c->watch.stag_min = INFINITY;
    if (rr < 0.25 * c->watch.stag_best) {
        c->watch.stag_best = rr;
        c->watch.stag_checks = 0;
        return;
    }
    if (++c->watch.stag_checks >= OVK__STAGNATION_CHECKS) stagnated(c, bb, "checks", OVK__STAGNATION_CHECKS + 1);
}

/* After a failed confirmation, iteration iter at <r,r> = rr: stagnated
 * when the window passed without ||r|| below half the true one.  Only on
 * an operator callback, which may not be linear (finite differences): on
 * an assembled matrix the residual carried on from the true one converges
 * again, and the checks decide (a BiCGStab residual may take longer than
 * the window to halve near the attainable accuracy). */
static void stagnation_window(ovk__ctx *c, int iter, double rr, double bb)
{
    if (c->A || !c->watch.stag_window || !isfinite(c->watch.stag_best)) return;
    if (rr < c->watch.stag_min) c->watch.stag_min = rr;
    if (c->watch.stag_min < 0.25 * c->watch.stag_best || iter - c->watch.stag_iter < c->watch.stag_window) return;
    stagnated(c, bb, "iterations since its last check", iter - c->watch.stag_iter);
}

int ovk__iterate_check(ovk__ctx *c, int iter, double iprod, double bb, int *stop)
{
    c->res->iterations = iter;
    *stop = 0;
    if (!isfinite(iprod)) {
        ovk__stop(c, iter, OVK_REASON_NONFINITE, c->mon.natural ? "<r,Cr>" : "<r,r>", iprod);
        *stop = 1;
        return OVK_OK;
    }
    c->res->rel_residual = sqrt(iprod / bb);
    int rc = observe(c, iter, iprod, bb);
    if (rc) return rc;
    ovk_reason why = OVK_REASON_MONITOR;
    if (!c->watch.stop_agreed) rc = decide(c, iter, iprod, bb, &why);
    if (rc) return rc;
    if (why == OVK_REASON_NONE) { /* no progress since a confirmation failed: stop, stagnated */
        stagnation_window(c, iter, iprod, bb);
        why = c->res->reason == OVK_REASON_STAGNATED ? OVK_REASON_STAGNATED : OVK_REASON_NONE;
    }
    if (why != OVK_REASON_NONE) {
        c->res->reason = why;
        *stop = 1;
    }
    return OVK_OK;
}

int ovk__confirm(ovk__ctx *c, double bb, double *r, int *ok)
{
    *ok = 1;
    if (c->watch.user_converged) return OVK_OK; /* the application's test decided */
    int rc = ovk__ctx_residual(c, r); /* r = b - A x */
    if (rc) return rc;
    double rr = 0.0;
    rc = ovk__ctx_dots(c, 1, (const double *[]){r}, (const double *[]){r}, &rr);
    if (rc) return rc;
    return ovk__confirm_value(c, bb, rr, ok);
}

int ovk__confirm_value(ovk__ctx *c, double bb, double rr, int *ok)
{
    *ok = 1;
    if (c->watch.user_converged) return OVK_OK; /* the application's test decided */
    int rc = OVK_OK;
    c->res->rel_residual = sqrt(rr / bb);
    ovk_reason why = ovk__converged(c, rr) ? OVK_REASON_CONVERGED : OVK_REASON_NONE;
    if (c->mon.conv_fn) rc = decide(c, c->res->iterations, rr, bb, &why); /* called on every rank: rr is reduced */
    if (rc) return rc;
    *ok = isfinite(rr) && why == OVK_REASON_CONVERGED;
    c->res->reason = *ok ? OVK_REASON_CONVERGED : OVK_REASON_NONE;
    if (!*ok && isfinite(rr)) stagnation(c, rr, bb);
    if (c->res->reason == OVK_REASON_STAGNATED) *ok = 1;
    return OVK_OK;
}

/* A callback failed on this rank: NaN out, and the sums poisoned from now
 * on, so that every rank stops (the status is agreed after the solve). */
static int callback_failed(ovk__ctx *c, int rc, double *out)
{
    if (rc != OVK_ECALLBACK) return rc;
    for (int i = 0; i < c->n; i++) out[i] = NAN;
    if (!c->cb.failed) /* keep the first detail: later failures overwrite the thread's */
        snprintf(c->cb.detail, sizeof c->cb.detail, "%s", ovk_error_detail());
    c->cb.failed = rc;
    return OVK_OK;
}

/* the direct ops: s = A p (ps not NULL, A assembled: with the local <p,s>
 * in the product's pass), timed as matvec */
static int direct_product(ovk__ctx *c, const double *p, double *s, double *ps)
{
    ovk__tic t0 = ovk__tic_start(c);
    int rc;
    if (ps) {
        rc = ovk__matvec_dot(c->A, p, s, ps, &c->hook); /* s = A p, <p,s> */
    } else if (c->A) {
        rc = ovk__matvec(c->A, p, s, &c->hook);
    } else {
        ovk__matvec_in_callback(1);
        int urc = c->cb.op(c->cb.owner, p, s, c->cb.op_ctx);
        ovk__matvec_in_callback(-1);
        rc = urc ? ovk__fail(OVK_ECALLBACK, "the operator callback returned %d", urc) : OVK_OK;
        rc = callback_failed(c, rc, s);
    }
    ovk__tic_stop(c, OVK_TIMER_MATVEC, t0);
    return rc;
}

/* y = 2^k x */
static void scale_into(int n, int k, const double *x, double *y)
{
    double f = ldexp(1.0, k);
    for (int i = 0; i < n; i++) y[i] = f * x[i];
}

int ovk__ctx_matvec(ovk__ctx *c, const double *p, double *s)
{
    if (!c->scale.ka) return c->ops->product(c, p, s, NULL);
    /* s = 2^k1 A (2^k2 p) = (2^ka A) p, the operand and the product each
     * 2^(ka/2) from A's scale */
    int k2 = c->scale.ka / 2, k1 = c->scale.ka - k2;
    scale_into(c->n, k2, p, c->scale.tmp);
    int rc = c->ops->product(c, c->scale.tmp, s, NULL);
    scale_into(c->n, k1, s, s);
    return rc;
}

int ovk__ctx_matvec_dot(ovk__ctx *c, const double *p, double *s, double *ps)
{
    if (!c->A) {
        int rc = ovk__ctx_matvec(c, p, s);
        *ps = rc ? 0.0 : ovk__dot(c->n, p, s);
        return rc;
    }
    int k2 = c->scale.ka / 2, k1 = c->scale.ka - k2; /* k1 = k2: ka is even */
    if (k2) { /* as ovk__ctx_matvec, the sum in the same pass: <p, 2^ka A p> = <2^k2 p, A 2^k2 p> */
        scale_into(c->n, k2, p, c->scale.tmp);
        p = c->scale.tmp;
    }
    int rc = c->ops->product(c, p, s, ps);
    if (k1) scale_into(c->n, k1, s, s);
    return rc;
}

int ovk__ctx_residual(ovk__ctx *c, double *r)
{
    int rc = ovk__ctx_matvec(c, c->x, r);
    if (rc) return rc;
    for (int i = 0; i < c->n; i++) r[i] = c->b[i] - r[i];
    return OVK_OK;
}

int ovk__ctx_start_residual(ovk__ctx *c, double *r)
{
    if (!c->guess_zero) return ovk__ctx_residual(c, r);
    if (c->n > 0) memcpy(r, c->b, sizeof(double) * (size_t)c->n);
    return OVK_OK;
}

int ovk__ctx_pc(ovk__ctx *c, const double *r, double *z) { return c->ops->pc(c, r, z, NULL, NULL); }

int ovk__ctx_pc_dots(ovk__ctx *c, const double *r, double *z, double *rz, double *rr)
{
    return c->ops->pc(c, r, z, rz, rr);
}

/* the direct ops: z = C r, timed as precond */
static int direct_pc_apply(ovk__ctx *c, const double *r, double *z)
{
    ovk__tic t0 = ovk__tic_start(c);
    int k1 = c->scale.kc / 2, k2 = c->scale.kc - k1;
    if (k2) { /* z = 2^-k2 C (2^-k1 r) = 2^-kc C r, the preconditioner of 2^kc A */
        scale_into(c->n, -k1, r, c->scale.tmp);
        r = c->scale.tmp;
    }
    ovk__matvec_in_callback(1); /* the application's preconditioner among them */
    int rc = callback_failed(c, c->pc->type->apply(c->pc->state, r, z, &c->hook), z);
    ovk__matvec_in_callback(-1);
    if (k2) scale_into(c->n, -k2, z, z);
    ovk__tic_stop(c, OVK_TIMER_PRECOND, t0);
    return rc;
}

/* the direct ops: z = C r and, with rz and rr not NULL, the local <r,z>
 * and <r,r>, timed as precond */
static int direct_pc(ovk__ctx *c, const double *r, double *z, double *rz, double *rr)
{
    const ovk__pc_type *t = c->pc->type;
    if (!rz) return direct_pc_apply(c, r, z);
    if (t->apply_dots) {
        int k1 = c->scale.kc / 2, k2 = c->scale.kc - k1; /* k1 = k2: kc is even */
        const double *in = r;
        if (k2) { /* as ovk__ctx_pc: z = 2^-k2 C (2^-k1 r), <r,z> = <2^-k1 r, C 2^-k1 r> */
            scale_into(c->n, -k1, r, c->scale.tmp);
            in = c->scale.tmp;
        }
        ovk__tic t0 = ovk__tic_start(c);
        int rc = t->apply_dots(c->pc->state, in, z, rz, rr, &c->hook);
        if (k2) {
            scale_into(c->n, -k2, z, z);
            *rr = ovk__dot(c->n, r, r); /* <2^-k1 r, 2^-k1 r> may under- or overflow */
        }
        ovk__tic_stop(c, OVK_TIMER_PRECOND, t0);
        return rc;
    }
    int rc = ovk__ctx_pc(c, r, z);
    if (rc) return rc;
    double v[2];
    ovk__tic t0 = ovk__tic_start(c);
    ovk__dots(c->n, 2, (const double *[]){r, r}, (const double *[]){z, r}, v, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_PRECOND, t0);
    *rz = v[0];
    *rr = v[1];
    return OVK_OK;
}

/* the split preconditioner's L^-1 as a diagonal (DiagInvScale), or NULL */
static const double *split_diagonal(const ovk__ctx *c)
{
    if (c->scale.kc) return c->scale.split;
    const ovk__pc_type *type = c->pc->type;
    return type->split_diagonal ? type->split_diagonal(c->pc->state) : NULL;
}

int ovk__ctx_pc_left(ovk__ctx *c, const double *r, double *t, double *tt)
{
    const ovk__pc_type *type = c->pc->type;
    const double *l = split_diagonal(c);
    ovk__tic t0 = ovk__tic_start(c);
    if (l) { /* DiagInvScale: t = L^-1 r, with <t,t> in the pass */
        if (tt) ovk__mul_dot(c->n, l, r, t, tt, &c->hook);
        else ovk__mul(c->n, l, r, t, &c->hook);
        ovk__tic_stop(c, OVK_TIMER_SCALE, t0);
        return OVK_OK;
    }
    ovk__matvec_in_callback(1);
    int rc = callback_failed(c, type->apply_left(c->pc->state, r, t, &c->hook), t);
    ovk__matvec_in_callback(-1);
    if (rc) goto cleanup;
    if (c->scale.kc) scale_into(c->n, -c->scale.kc / 2, t, t); /* 2^-kc C = (2^(-kc/2) L)(...)^T */
    if (tt) *tt = ovk__dot(c->n, t, t);
cleanup:
    ovk__tic_stop(c, OVK_TIMER_PRECOND, t0);
    return rc;
}

int ovk__ctx_pc_right(ovk__ctx *c, const double *t, double *w)
{
    const ovk__pc_type *type = c->pc->type;
    const double *l = split_diagonal(c);
    ovk__tic t0 = ovk__tic_start(c);
    int rc = OVK_OK;
    if (l) ovk__mul(c->n, l, t, w, &c->hook); /* w = L^-T t */
    else {
        ovk__matvec_in_callback(1);
        rc = callback_failed(c, type->apply_right(c->pc->state, t, w, &c->hook), w);
        ovk__matvec_in_callback(-1);
    }
    if (!l && c->scale.kc) scale_into(c->n, -c->scale.kc / 2, w, w);
    ovk__tic_stop(c, l ? OVK_TIMER_SCALE : OVK_TIMER_PRECOND, t0); /* l: DiagInvScale */
    return rc;
}

const double *ovk__ctx_pc_diagonal(const ovk__ctx *c)
{
    if (c->scale.kc) return c->scale.diag;
    return c->pc->type->diagonal ? c->pc->type->diagonal(c->pc->state) : NULL;
}

const double *ovk__ctx_pc_divisor(const ovk__ctx *c)
{
    if (c->scale.kc) return c->scale.divisor;
    return c->pc->type->divisor ? c->pc->type->divisor(c->pc->state) : NULL;
}

void ovk__ctx_progress(void *ctx)
{
    ovk__ctx *c = ctx;
    double t0 = ovk__now();
    ovk_reducer_progress(c->red); /* errors surface at the wait */
    double dt = ovk__now() - t0;
    c->clock.progress_time += dt;
    if (c->clock.inflight >= 0) c->clock.t[test_timer[c->clock.inflight]] += dt;
}

void ovk__ctx_axpy(ovk__ctx *c, double a, const double *x, double *y)
{
    ovk__tic t0 = ovk__tic_start(c);
    ovk__axpy(c->n, a, x, y, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

int ovk__lagged_iter_end(ovk__ctx *c, int iter, double iprod, double bb, double alpha, double **p,
                         double **p_prev, int *done)
{
    int stop = 0;
    double *swap = *p_prev;
    *p_prev = *p;
    *p = swap;
    int rc = ovk__iterate_check(c, iter, iprod, bb, &stop);
    *done = rc || stop || iter >= c->opts->max_iter;
    if (!*done) return rc;
    ovk__ctx_axpy(c, alpha, *p_prev, c->x); /* the lagging x update */
    if (rc) return rc;
    if (!stop) c->res->reason = OVK_REASON_MAXIT;
    return OVK_OK;
}

int ovk__lagged_confirm(ovk__ctx *c, int iter, double bb, double *r, double *alpha, int *done)
{
    if (!*done || c->res->reason != OVK_REASON_CONVERGED) return OVK_OK;
    int ok = 0, rc = ovk__confirm(c, bb, r, &ok); /* r = b - A x */
    if (rc || ok) return rc;
    c->res->replacements++;
    *alpha = 0.0; /* x holds the last step: the next lagged update adds nothing */
    *done = iter >= c->opts->max_iter;
    if (*done) c->res->reason = OVK_REASON_MAXIT;
    return OVK_OK;
}

int ovk__ctx_dots(ovk__ctx *c, int k, const double *const *x, const double *const *y, double *out)
{
    ovk__tic t0 = ovk__tic_start(c);
    ovk__dots(c->n, k, x, y, out, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    return ovk__sum(c, OVK__IPROD, out, k);
}

/* the direct ops' sums: posted to the solver's reducer, waited for and
 * released (also after a failed wait); *waited the wait's seconds */
static int direct_sum_post(ovk__ctx *c, double *vals, int n, ovk_request **req)
{
    return ovk_reduce_start(c->red, vals, vals, n, OVK_DOUBLE, OVK_SUM, req);
}

static void direct_sum_posted(ovk__ctx *c) { (void)c; }

static int direct_sum_wait(ovk__ctx *c, ovk_request *req, double *waited)
{
    (void)c;
    double t0 = ovk__now();
    int rc = ovk_reduce_wait(req);
    int rc2 = ovk_request_free(req);
    if (!rc) rc = rc2;
    *waited = ovk__now() - t0;
    return rc;
}

const ovk__loop_ops ovk__direct_ops = {
    .sum_post = direct_sum_post, .sum_posted = direct_sum_posted, .sum_wait = direct_sum_wait,
    .product = direct_product, .pc = direct_pc,
};
