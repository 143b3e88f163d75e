/* ovk_pcg_solve: argument checks, the solver registry, the reducer, the
 * progress hook and the time breakdown.  The variants only iterate. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver.h"

extern const ovk__solver ovk__solver_alg1;
extern const ovk__solver ovk__solver_alg2;
extern const ovk__solver ovk__solver_overlap;
extern const ovk__solver ovk__solver_cg1;
extern const ovk__solver ovk__solver_pipecg;
/* SOLVERS: declarations of further variants go here. */

static const ovk__solver *const solvers[] = {
    &ovk__solver_alg1,
    &ovk__solver_alg2,
    &ovk__solver_overlap,
    &ovk__solver_cg1,
    &ovk__solver_pipecg,
    /* SOLVERS: further variants go here. */
};

enum { SOLVER_COUNT = (int)(sizeof solvers / sizeof solvers[0]) };
enum { DEFAULT_PROGRESS_ROWS = 8192 };

int ovk_solver_count(void) { return SOLVER_COUNT; }
const char *ovk_solver_name(int i) { return (i >= 0 && i < SOLVER_COUNT) ? solvers[i]->name : NULL; }
const char *ovk_solver_description(int i)
{
    return (i >= 0 && i < SOLVER_COUNT) ? solvers[i]->description : NULL;
}

static const ovk__solver *find_solver(const char *name)
{
    for (int i = 0; i < SOLVER_COUNT; i++)
        if (strcmp(solvers[i]->name, name) == 0) return solvers[i];
    return NULL;
}

void ovk_pcg_options_init(ovk_pcg_options *o)
{
    memset(o, 0, sizeof *o);
    o->solver = "alg1";
    o->tol = 1e-8;
    o->max_iter = 1000;
    o->precond = OVK_PRECOND_DIAG;
}

static const char *const reason_names[] = {"none", "converged", "iteration limit", "breakdown", "non-finite"};

const char *ovk_reason_name(ovk_reason r)
{
    return ((unsigned)r < sizeof reason_names / sizeof reason_names[0]) ? reason_names[r] : "unknown";
}

static const char *const timer_names[OVK_TIMER_COUNT] = {
    "matvec", "precond", "axpy", "scale", "sdotp init", "sdotp test", "sdotp wait", "gamma init",
    "gamma test", "gamma wait", "iprod init", "iprod test", "iprod wait", "solve"};

const char *ovk_timer_name(ovk_timer t) { return ((unsigned)t < OVK_TIMER_COUNT) ? timer_names[t] : "unknown"; }

static int check_args(const ovk_matrix *A, const ovk_vector *b, const ovk_vector *x,
                      const ovk_pcg_options *o, const ovk__solver **sv)
{
    char names[256] = "";
    if (!A || !b || !x || !o) return ovk__fail(OVK_EINVAL, "ovk_pcg_solve: NULL argument");
    int rc = ovk__vector_check_pair(b, x);
    if (rc) return rc;
    if (!ovk__layout_same(b->lay, &A->lay))
        return ovk__fail(OVK_EMISMATCH, "ovk_pcg_solve: vectors do not have the matrix's row layout");
    if (b == x) return ovk__fail(OVK_EINVAL, "ovk_pcg_solve: b and x must be distinct vectors");
    if (!(o->tol > 0.0) || !isfinite(o->tol)) return ovk__fail(OVK_EINVAL, "tolerance %g must be > 0", o->tol);
    if (o->max_iter < 0) return ovk__fail(OVK_EINVAL, "max_iter %d must be >= 0", o->max_iter);
    if (o->precond != OVK_PRECOND_DIAG && o->precond != OVK_PRECOND_NONE)
        return ovk__fail(OVK_EINVAL, "unknown preconditioner %d", (int)o->precond);
    *sv = find_solver(o->solver ? o->solver : "alg1");
    if (!*sv) {
        for (int i = 0; i < SOLVER_COUNT; i++) {
            strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, solvers[i]->name, sizeof names - strlen(names) - 1);
        }
        return ovk__fail(OVK_EINVAL, "unknown solver '%s'; available: %s", o->solver, names);
    }
    return OVK_OK;
}

static int check_finite(const ovk_vector *v, const char *what)
{
    for (int i = 0; i < v->n; i++)
        if (!isfinite(v->data[i]))
            return ovk__fail(OVK_ENONFINITE, "%s[%d] (local) is %g", what, i, v->data[i]);
    return OVK_OK;
}

/* The reducer: the caller's, or one made from the spec (then owned here). */
static int get_reducer(const ovk_matrix *A, const ovk_pcg_options *o, ovk_reducer **red, int *owned)
{
    int cmp = MPI_UNEQUAL, rc = OVK_OK;
    *owned = 0;
    if (o->reducer) {
        *red = o->reducer;
        MPI_Comm_compare(ovk__reducer_comm(*red), A->lay.comm, &cmp);
        if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT)
            rc = ovk__fail(OVK_EMISMATCH, "the reducer was made on a communicator other than the matrix's");
        return ovk__agree(A->lay.comm, rc);
    }
    *owned = 1;
    return ovk_reducer_create(A->lay.comm, o->backend, red);
}

static void setup_hook(ovk__ctx *c)
{
    int every = c->opts->progress_every;
    c->hook.fn = NULL;
    if (every < 0 || !(ovk_reducer_caps(c->red) & OVK_CAP_NEEDS_TEST)) return;
    c->hook.fn = ovk__ctx_progress;
    c->hook.arg = c;
    c->hook.every = every > 0 ? every : DEFAULT_PROGRESS_ROWS;
}

/* max and mean over ranks of the per-rank timers */
static int gather_times(ovk__ctx *c)
{
    int size = 1, rc = OVK_OK;
    MPI_Comm comm = c->A->lay.comm;
    MPI_Comm_size(comm, &size);
    OVK__MPI(MPI_Allreduce(c->t, c->res->time_max, OVK_TIMER_COUNT, MPI_DOUBLE, MPI_MAX, comm));
    OVK__MPI(MPI_Allreduce(c->t, c->res->time_mean, OVK_TIMER_COUNT, MPI_DOUBLE, MPI_SUM, comm));
    for (int i = 0; i < OVK_TIMER_COUNT; i++) c->res->time_mean[i] /= size;
cleanup:
    return rc;
}

static int status_of(const ovk_pcg_result *r)
{
    switch (r->reason) {
    case OVK_REASON_CONVERGED: return OVK_OK;
    case OVK_REASON_MAXIT:
        return ovk__fail(OVK_EMAXIT, "no convergence in %d iterations (||r||/||b|| = %g)", r->iterations,
                         r->rel_residual);
    case OVK_REASON_BREAKDOWN: return OVK_EBREAKDOWN; /* detail set where detected */
    case OVK_REASON_NONFINITE: return OVK_ENONFINITE;
    default: return OVK_EINVAL;
    }
}

int ovk_pcg_solve(const ovk_matrix *A, const ovk_vector *b, ovk_vector *x, const ovk_pcg_options *opts,
                  ovk_pcg_result *res)
{
    ovk_pcg_result local_res;
    ovk__ctx c;
    const ovk__solver *sv = NULL;
    int owned = 0, rc;
    if (!res) res = &local_res;
    memset(res, 0, sizeof *res);
    memset(&c, 0, sizeof c);
    rc = check_args(A, b, x, opts, &sv);
    if (rc) return rc; /* a local argument error: no communicator to agree on */
    rc = check_finite(b, "b");
    if (!rc) rc = check_finite(x, "x0");
    rc = ovk__agree(A->lay.comm, rc);
    if (!rc && opts->precond == OVK_PRECOND_DIAG) rc = ovk__diag_check(A);
    if (!rc) rc = get_reducer(A, opts, &c.red, &owned);
    if (rc) return rc;
    c.A = A;
    c.b = b->data;
    c.x = x->data;
    c.n = A->lay.nlocal;
    c.opts = opts;
    c.res = res;
    c.rank = A->lay.rank;
    c.inflight = -1;
    setup_hook(&c);
    long long started = ovk__reducer_started(c.red);
    rc = ovk__condest_begin(&c);
    if (!rc) rc = sv->solve(&c);
    rc = ovk__agree(A->lay.comm, rc);
    ovk__condest_end(&c);
    res->reductions = ovk__reducer_started(c.red) - started;
    if (!rc) rc = gather_times(&c);
    if (owned) ovk_reducer_destroy(c.red);
    return rc ? rc : status_of(res);
}

void ovk_pcg_print_timing(FILE *f, const ovk_pcg_result *r)
{
    fprintf(f, "%-12s %12s %12s %8s\n", "operation", "max (s)", "mean (s)", "% solve");
    double total = r->time_max[OVK_TIMER_SOLVE] > 0 ? r->time_max[OVK_TIMER_SOLVE] : 1.0;
    for (int t = 0; t < OVK_TIMER_COUNT; t++)
        fprintf(f, "%-12s %12.6f %12.6f %8.2f\n", timer_names[t], r->time_max[t], r->time_mean[t],
                100.0 * r->time_max[t] / total);
    fprintf(f, "iterations %d, reductions %lld, time per iteration %.3e s\n", r->iterations, r->reductions,
            r->iterations > 0 ? r->time_max[OVK_TIMER_SOLVE] / r->iterations : 0.0);
}
