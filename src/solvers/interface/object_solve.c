/* The solver object's solves: ovk_solver_solve (the arguments checked,
 * a setup of what changed, a numeric setup when A's values changed, the
 * solve with Dirichlet elimination and null-space projection around the
 * variant, the status and timers agreed across the ranks, the failure's
 * detail and its hints, the one-line report) and ovk_solver_solve_many
 * (the same for k right-hand sides solved together), and what the object
 * keeps of the last result. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "object.h"

static int check_finite(const ovk_vector *v, const char *what)
{
    for (int i = 0; i < v->n; i++)
        if (!isfinite(v->data[i]))
            return ovk__fail(OVK_ENONFINITE, "%s at row %lld is %g", what, ovk__row_id(v->lay, i), v->data[i]);
    return OVK_OK;
}

/* b's and x's local entries share memory (wrapped pointers can: zero-row
 * ranks may hold the same pointer without sharing anything) */
static int overlap(const ovk_vector *b, const ovk_vector *x)
{
    uintptr_t b0 = (uintptr_t)b->data, x0 = (uintptr_t)x->data;
    return b->n > 0 && x->n > 0 && b0 < x0 + sizeof(double) * (size_t)x->n &&
           x0 < b0 + sizeof(double) * (size_t)b->n;
}

static int check_vectors(const ovk_solver *s, const ovk_vector *b, const ovk_vector *x)
{
    (void)s;
    if (!b || !x) return ovk__fail(OVK_EINVAL, "ovk_solver_solve: NULL vector");
    if (b == x || overlap(b, x)) return ovk__fail(OVK_EINVAL, "ovk_solver_solve: b and x must not overlap");
    int rc = ovk__layout_check(b->lay, "b", s->lay, "the solver", "ovk_solver_solve");
    if (rc) return rc;
    rc = ovk__layout_check(x->lay, "x", s->lay, "the solver", "ovk_solver_solve");
    if (rc) return rc;
    rc = check_finite(b, "b");
    if (rc) return rc;
    return check_finite(x, "x0");
}

/* Collective: the solve's status agreed and, in the same reduction, the
 * max and mean over ranks of the per-rank timers */
static int agree_and_time(ovk__ctx *c, int rc)
{
    int size = 1;
    MPI_Comm_size(c->comm, &size);
    rc = ovk__agree_values(c->comm, rc, c->clock.t, OVK_TIMER_COUNT, c->res->time_max, c->res->time_mean);
    for (int i = 0; i < OVK_TIMER_COUNT; i++) c->res->time_mean[i] /= size;
    return rc;
}

static int status_of(const ovk_result *r)
{
    switch (r->reason) {
    case OVK_REASON_CONVERGED: return OVK_OK;
    case OVK_REASON_MAXIT:
        return ovk__fail(OVK_EMAXIT, "no convergence in %d iterations (||r||/||b|| = %g)", r->iterations,
                         r->rel_residual);
    case OVK_REASON_BREAKDOWN: return OVK_EBREAKDOWN; /* detail set where detected */
    case OVK_REASON_NONFINITE: return OVK_ENONFINITE;
    case OVK_REASON_MONITOR:
        return ovk__fail(OVK_ESTOPPED, "the monitor stopped the solve at iteration %d", r->iterations);
    case OVK_REASON_DIVERGED:
        return ovk__fail(OVK_EDIVERGED, "diverged at iteration %d (||r||/||b|| = %g)", r->iterations,
                         r->rel_residual);
    case OVK_REASON_STAGNATED: return OVK_ESTAGNATED; /* detail set where detected */
    default: return OVK_EINVAL;
    }
}

/* the variant's word on a solve at the iteration limit, after the detail */
static int limit_note(int rc, const char *note)
{
    char detail[512];
    snprintf(detail, sizeof detail, "%s", ovk_error_detail());
    return ovk__fail(rc, "%s: %s", detail, note);
}

/* Collective, after a solve that failed (iteration limit, breakdown,
 * divergence) on an assembled A without a declared null space: when A
 * annihilates the constant vector (||A 1||_2 <= 1e-8 ||A||_inf sqrt(N),
 * a pure Neumann problem), the detail says so and how to declare it.  One
 * product and one reduction, on the failure path only; nothing when the
 * room cannot be had (agreed). */
static int singular_hint(ovk_solver *s, int rc)
{
    ovk__ctx *c = &s->c;
    double *one = NULL, *a1 = NULL, v[2] = {0.0, 0.0};
    if ((rc != OVK_EMAXIT && rc != OVK_EBREAKDOWN && rc != OVK_EDIVERGED) || c->ns || !s->A || !c->norms.current)
        return rc;
    char detail[512];
    snprintf(detail, sizeof detail, "%s", ovk_error_detail());
    int bad = ovk__pc_alloc(c->n, "the singularity check", &one);
    if (!bad) bad = ovk__pc_alloc(c->n, "the singularity check", &a1);
    bad = ovk__agree(c->comm, bad); /* before the product: collective */
    for (int i = 0; !bad && i < c->n; i++) one[i] = 1.0;
    if (!bad) bad = ovk__agree(c->comm, ovk__matvec(s->A, one, a1, NULL)); /* A 1 */
    v[0] = bad ? 0.0 : ovk__dot(c->n, a1, a1);
    v[1] = c->n;
    free(one);
    free(a1);
    if (bad) return ovk__fail(rc, "%s", detail);
    bad = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_SUM, c->comm), "MPI_Allreduce (||A 1||)");
    if (bad) return bad;
    if (!(sqrt(v[0]) <= 1e-8 * c->norms.anorm * sqrt(v[1])) || strstr(detail, "ovk_solver_set_nullspace"))
        return ovk__fail(rc, "%s", detail);
    return ovk__fail(rc, "%s; A annihilates the constant vector (||A 1|| = %.3g): it is singular, declare its null "
                         "space (-ovk_%s constant, or ovk_solver_set_nullspace)",
                     detail, sqrt(v[0]), ovk__solver_key_at(offsetof(ovk_solver, nullspace_spec)));
}

static void begin_solve(ovk__ctx *c, const ovk_vector *b, ovk_vector *x, ovk_result *res)
{
    ovk__solver_reset_solve_state(c);
    c->b = b->data;
    c->x = x->data;
    c->res = res;
}

/* rank 0: the one-line summary of print_level 1 and -ovk_converged_reason */
static void report_solve(const ovk_solver *s, const ovk_result *res, int rc)
{
    FILE *f = s->o.out ? s->o.out : stdout;
    if (s->lay->rank != 0) return;
    if (s->converged_reason)
        fprintf(f, "ovk: solve %s (%s) at iteration %d\n", rc == OVK_OK ? "converged" : "did not converge",
                ovk_reason_name(res->reason), res->iterations);
    if (s->o.print_level >= 1)
        fprintf(f, "ovk_solver_solve: %s, %s, backend %s: %s in %d iterations, ||r||/||b|| = %.3e, %.6f s, %lld "
                   "reductions\n",
                s->made.sv->name, s->made.pc.name, ovk_reducer_spec(s->made.red), ovk_reason_name(res->reason),
                res->iterations, res->rel_residual, res->time_max[OVK_TIMER_SOLVE], res->reductions);
    if (s->o.print_level >= 1 && s->c.ns)
        fprintf(f, "ovk_solver_solve: null space of %d vectors: ||Z^T b||/||b|| = %.3e (b's inconsistency, "
                   "removed; ||r||/||b|| is of the projected system)\n",
                s->c.ns->k, res->nullspace_inconsistency);
}

/* the status of a solve whose callbacks may have failed on this rank (local) */
static int solved(const ovk__ctx *c, int rc)
{
    if (rc) return rc;
    if (c->cb.failed) return ovk__fail(OVK_ECALLBACK, "%s", c->cb.detail);
    return OVK_OK;
}

/* Collective: the solve after setup_on_demand; mine: this rank's argument
 * checks, bad_args: some rank's failed (agreed there, so the detail is
 * shared only on that path) */
static int run_solve(ovk_solver *s, const ovk_vector *b, ovk_vector *x, ovk_result *res, int mine, int bad_args)
{
    ovk__ctx *c = &s->c;
    int rc = bad_args ? ovk__agree(s->lay->comm, mine) : OVK_OK;
    if (rc) return rc;
    if (s->A && s->A->values_version != s->seen.version) {
        ovk__log_start(&s->rec.log, 1);
        rc = ovk__solver_numeric_setup(s, 1);
        if (rc) return rc;
        rc = ovk__nullspace_check(c); /* the new values must still annihilate Z */
        if (rc) return rc;
    }
    begin_solve(c, b, x, res);
    long long started = ovk__reducer_started(c->red);
    rc = ovk__elim_begin_solve(c, &s->seen.elim, s->A); /* b' = b - A_ND x_D */
    if (!rc) rc = ovk__nullspace_begin_solve(c); /* b -= Z Z^T b */
    if (!rc) rc = ovk__variant_solve(c, &s->made.var);
    if (!rc) rc = ovk__nullspace_end_solve(c); /* x -= Z Z^T x */
    ovk__elim_end_solve(c, &s->seen.elim, s->A); /* x_D = b_D / a_DD */
    rc = agree_and_time(c, solved(c, rc));
    ovk__condest_end(c);
    res->reductions = ovk__reducer_started(c->red) - started;
    ovk__log_solve(&s->rec.log, c, res);
    if (rc) return rc;
    rc = status_of(res);
    if (rc == OVK_EMAXIT && c->watch.limit_note) rc = limit_note(rc, c->watch.limit_note);
    rc = singular_hint(s, rc);
    report_solve(s, res, rc);
    return rc;
}

int ovk_solver_solve(ovk_solver *s, const ovk_vector *b, ovk_vector *x, ovk_result *res)
{
    ovk_result local_res;
    int bad = ovk__solver_check_usable(s, "ovk_solver_solve");
    if (bad == OVK_EBUSY) return bad; /* the outer solve's *res may be this res */
    if (!res) res = &local_res;
    memset(res, 0, sizeof *res);
    if (bad) return ovk__solver_refuse_call(bad, "ovk_solver_solve");
    s->running.call = "solve";
    ovk__matrix_hold(s->A, 1);
    char why[OVK__DETAIL_LEN];
    int bad_args = 0, mine = s->refusal.solve ? ovk__fail(s->refusal.solve, "%s", s->refusal.solve_detail)
                                              : check_vectors(s, b, x);
    snprintf(why, sizeof why, "%s", mine ? ovk_error_detail() : "");
    int rc = ovk__solver_setup_on_demand(s, mine, &bad_args); /* what changed since the last setup, if anything */
    if (!rc && mine) ovk__fail(mine, "%s", why); /* the argument's detail, whatever the setup wrote */
    if (!rc) {
        ovk__reducer_hold(s->made.red, 1);
        rc = run_solve(s, b, x, res, mine, bad_args);
        ovk__reducer_hold(s->made.red, -1);
        s->rec.last = *res;
    }
    ovk__matrix_hold(s->A, -1);
    s->running.call = NULL;
    s->refusal.solve = 0;
    return rc;
}

/* ---- many right-hand sides ---------------------------------------------- */

/* the checks of solve_many's arrays (local); *bad[j]: system j's vectors
 * hold a NaN or Inf on this rank */
static int check_many(const ovk_solver *s, int k, ovk_vector *const *B, ovk_vector *const *X, ovk_result *res,
                      int *bad)
{
    static const char fn[] = "ovk_solver_solve_many";
    if (k <= 0) return ovk__fail(OVK_EINVAL, "%s: k = %d systems (at least 1)", fn, k);
    if (!B || !X || !res) return ovk__fail(OVK_EINVAL, "%s: NULL %s array", fn, !B ? "B" : !X ? "X" : "results");
    for (int j = 0; j < k; j++) {
        if (!B[j] || !X[j]) return ovk__fail(OVK_EINVAL, "%s: %s[%d] is NULL", fn, !B[j] ? "B" : "X", j);
        int rc = ovk__layout_check(B[j]->lay, "B[j]", s->lay, "the solver", fn);
        if (!rc) rc = ovk__layout_check(X[j]->lay, "X[j]", s->lay, "the solver", fn);
        if (rc) return ovk__fail(rc, "%s (j = %d)", ovk_error_detail(), j);
    }
    for (int j = 0; j < k; j++) /* X[j] may share memory with no vector; B's may share among themselves */
        for (int i = 0; i < k; i++)
            if (overlap(B[i], X[j]) || (i != j && overlap(X[i], X[j])))
                return ovk__fail(OVK_EINVAL, "%s: X[%d] shares memory with %s[%d]", fn, j, i == j || overlap(B[i], X[j]) ? "B" : "X", i);
    for (int j = 0; j < k; j++) {
        bad[j] = check_finite(B[j], "b") || check_finite(X[j], "x0");
        if (bad[j]) ovk__fail(OVK_ENONFINITE, "%s: system %d: %s", fn, j, ovk_error_detail());
    }
    return OVK_OK;
}

/* Collective: the systems whose input is not finite on some rank, agreed
 * (their results say so; the detail is the first such system's) */
static int agree_finite(const ovk_solver *s, int k, int *bad, ovk_result *res, int *st)
{
    char detail[256];
    snprintf(detail, sizeof detail, "%s", ovk_error_detail());
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, bad, k, MPI_INT, MPI_MAX, s->lay->comm), "MPI_Allreduce");
    for (int j = 0; !rc && j < k; j++) {
        st[j] = OVK_OK;
        if (!bad[j]) continue;
        res[j].reason = OVK_REASON_NONFINITE;
        st[j] = OVK_ENONFINITE;
    }
    ovk__fail(OVK_ENONFINITE, "%s", detail);
    return rc;
}

static int run_many(ovk_solver *s, int k, ovk_vector *const *B, ovk_vector *const *X, ovk_result *res)
{
    ovk__ctx *c = &s->c;
    size_t room = k > 0 ? (size_t)k : 1;
    int *bad = calloc(room, sizeof(int)), *st = calloc(room, sizeof(int));
    const double **b = calloc(room, sizeof *b);
    double **x = calloc(room, sizeof *x);
    char(*why)[OVK__DETAIL_LEN] = calloc(room, sizeof *why);
    double *elim_b = NULL; /* the Dirichlet rows' b' */
    int rc = bad && st && b && x && why ? OVK_OK : ovk__fail(OVK_ENOMEM, "ovk_solver_solve_many: %d systems", k);
    if (!rc) rc = s->refusal.solve ? ovk__fail(s->refusal.solve, "%s", s->refusal.solve_detail) : check_many(s, k, B, X, res, bad);
    rc = ovk__agree(s->lay->comm, rc);
    if (!rc) rc = agree_finite(s, k, bad, res, st);
    if (!rc && s->A && s->A->values_version != s->seen.version) rc = ovk__solver_numeric_setup(s, 1);
    if (rc) goto cleanup;
    for (int j = 0; j < k; j++) { /* a refused system gets no task */
        b[j] = bad[j] ? NULL : B[j]->data;
        x[j] = X[j]->data;
    }
    ovk__solver_reset_solve_state(c);
    long long started = ovk__reducer_started(c->red);
    rc = ovk__elim_many_begin(c, &s->seen.elim, s->A, k, b, x, &elim_b); /* each b' = b - A_ND x_D */
    if (!rc) rc = ovk__many_solve(c, &s->made.var, k, b, x, res, st, why, &s->running.system);
    for (int j = 0; !rc && j < k; j++)
        if (!bad[j]) ovk__elim_fix(c, &s->seen.elim, s->A, B[j]->data, X[j]->data); /* x_D = b_D / a_DD */
    long long reductions = ovk__reducer_started(c->red) - started;
    ovk__solver_reset_solve_state(c);
    if (rc) goto cleanup;
    int first = OVK_OK;
    for (int j = k - 1; j >= 0; j--) { /* backwards: the detail left is the first failure's */
        res[j].reductions = reductions;
        if (bad[j]) st[j] = ovk__fail(OVK_ENONFINITE, "ovk_solver_solve_many: system %d: b or x0 not finite", j);
        else if (st[j]) ovk__fail(st[j], "ovk_solver_solve_many: system %d: %s", j, why[j]);
        else {
            st[j] = status_of(&res[j]);
            if (st[j] == OVK_EBREAKDOWN || st[j] == OVK_ENONFINITE) /* the detail set in the solve */
                ovk__fail(st[j], "%s", why[j]);
            if (st[j]) ovk__fail(st[j], "ovk_solver_solve_many: system %d: %s", j, ovk_error_detail());
        }
        if (!bad[j]) report_solve(s, &res[j], st[j]);
        if (st[j]) first = st[j];
    }
    rc = first;
cleanup:
    free(elim_b);
    free(bad);
    free(st);
    free(b);
    free(x);
    free(why);
    return rc;
}

int ovk_solver_solve_many(ovk_solver *s, int k, ovk_vector *const *B, ovk_vector *const *X, ovk_result *results)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_solve_many");
    if (bad == OVK_EBUSY) return bad;
    if (results && k > 0) memset(results, 0, sizeof *results * (size_t)k);
    if (bad) return ovk__solver_refuse_call(bad, "ovk_solver_solve_many");
    s->running.call = "solve";
    ovk__matrix_hold(s->A, 1);
    int bad_args = 0, rc = ovk__solver_setup_on_demand(s, OVK_OK, &bad_args); /* run_many agrees on its arguments */
    if (!rc) {
        ovk__reducer_hold(s->made.red, 1);
        rc = run_many(s, k, B, X, results);
        ovk__reducer_hold(s->made.red, -1);
        if (results && k > 0) s->rec.last = results[0];
    }
    ovk__matrix_hold(s->A, -1);
    s->running.call = NULL;
    s->refusal.solve = 0;
    s->running.system = -1;
    return rc;
}

const ovk_result *ovk__solver_last_result(const ovk_solver *s) { return ovk__solver_valid(s) ? &s->rec.last : NULL; }

int ovk_solver_system_index(const ovk_solver *s) { return ovk__solver_valid(s) ? s->running.system : -1; }
