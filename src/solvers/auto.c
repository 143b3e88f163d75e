/* The solver "auto" (spec auto[:remeasure=0|1,maxl=1..8]): at setup it
 * measures the latency of one reduction of the solver's backend and the
 * local work of one PCG iteration (alg1's: matvec, preconditioner, three
 * vector updates and two local dots) at once: one sum is started and the
 * local iterations run while it is in flight (probe()), so that the
 * measurement costs about one reduction, not one per probe; each figure is
 * the largest over the ranks.  It picks the variant with the smallest
 * modelled time per iteration, the same on every rank (the figures are
 * reduced values):
 *
 *   alg1          W + 3 L                (three blocking reductions)
 *   plcg:l=k      max(W + (PLCG_PASS_K k + PLCG_PASS_0) A, (L + V) / k)
 *
 * with L the latency, W the local work, A the time of one vector pass
 * (W's vector part / ALG1_PASSES) and V = (PLCG_PASS_K k + PLCG_PASS_0 +
 * ALG1_PASSES) A plcg's vector work: a sum started at the end of step i
 * is waited for in step i + k after its matvec, so it overlaps k - 1
 * steps and a matvec, and k steps last L + V where the latency is not
 * hidden (ovk_pcg_bench, session 15, nbc, -n 20, 2 ranks: this and the
 * blocking residual checks, 2-4 sums a solve, account for the time per
 * iteration at l = 1..4 and L = 100..1000 us within 10 %).  The
 * smallest k that reaches the minimum is taken (deeper pipelines lose
 * accuracy), at most maxl (default 3).  It then sets up the chosen variant and
 * solves with it; where plcg broke down in a solve (a restart: plcg then went
 * on with pipeprcg's recurrences), the later solves use pipeprcg.  With
 * remeasure=1 it measures and chooses again in the first solve after new matrix
 * values (ovk_matrix_update_values); by default the choice stays.  The choice
 * and both figures go into the result (auto_choice, auto_latency_us,
 * auto_work_us) and, at print_level >= 1, to the output on rank 0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver.h"

enum { PRECISE = 2, WORK_REPS = 3, MAX_DEPTH = 8, DEFAULT_DEPTH = 3, ALG1_PASSES = 5, ALG1_REDUCTIONS = 3 };
/* plcg's vector passes per iteration beyond alg1's: PLCG_PASS_K per level
 * (two recurrences and a dot per level) and PLCG_PASS_0 (the top level's
 * two recurrences, the x update) */
#define PLCG_PASS_K 3.5
#define PLCG_PASS_0 3.0

typedef struct auto_params {
    long remeasure, maxl;
} auto_params;

typedef struct auto_work {
    double *r, *p, *s, *z, *x; /* r: the frame's residual; the rest: the measurement's */
    ovk__variant inner;        /* the chosen variant */
    void *inner_params;
    char choice[32];
    double latency_us, work_us;
    unsigned epoch;            /* c->numeric_epoch of the measurement */
} auto_work;

/* the inner variant's calls see its own parsed options */
static void with_params(ovk__ctx *c, void *params, void **saved)
{
    *saved = c->params;
    c->params = params;
}

static void drop_inner(auto_work *w)
{
    ovk__variant_free(&w->inner);
    free(w->inner_params);
    w->inner_params = NULL;
}

/* Local: the variant of spec (a name the registry has) and its parsed options */
static int parse_inner(const char *spec, auto_work *w, const ovk__solver **sv)
{
    char name[32];
    ovk__opts o;
    int rc = ovk__spec_parse("solver", OVK_EINVAL, spec, name, sizeof name, &o);
    if (rc) return rc;
    *sv = ovk__solver_find(name);
    if (!*sv) return ovk__fail(OVK_EINVAL, "auto: no solver %s", name);
    return (*sv)->parse ? (*sv)->parse(&o, &w->inner_params) : OVK_OK;
}

/* Collective: the variant of spec set up in place of the previous one. */
static int use(ovk__ctx *c, auto_work *w, const char *spec)
{
    const ovk__solver *sv = NULL;
    void *saved = NULL;
    drop_inner(w);
    int rc = ovk__agree(c->comm, parse_inner(spec, w, &sv));
    if (rc) return rc;
    with_params(c, w->inner_params, &saved);
    rc = ovk__variant_setup(c, sv, &w->inner);
    c->params = saved;
    if (rc) return rc;
    snprintf(w->choice, sizeof w->choice, "%s", spec);
    return OVK_OK;
}

/* The first failure of rc and rc2 */
static int first(int rc, int rc2) { return rc ? rc : rc2; }

/* One iteration of alg1's local work on the measurement's vectors:
 * s = A p, <p,s>, x += a p, r -= a s, z = C r, <r,z>, p = z + b p.
 * *vec = the vector part's seconds. */
static int local_iteration(ovk__ctx *c, auto_work *w, double *vec, double *sink)
{
    int rc = ovk__ctx_matvec(c, w->p, w->s), rc2;
    double t0 = ovk__now(), a = 1e-3 / (1.0 + fabs(ovk__dot(c->n, w->p, w->s)));
    ovk__ctx_axpy(c, a, w->p, w->x);
    ovk__ctx_axpy(c, -a, w->s, w->r);
    *vec = ovk__now() - t0;
    rc2 = ovk__ctx_pc(c, w->r, w->z);
    t0 = ovk__now();
    *sink += ovk__dot(c->n, w->r, w->z);
    ovk__xpay(c->n, w->z, 0.5, w->p, &c->hook);
    *vec += ovk__now() - t0;
    return first(rc, rc2); /* every step runs: the matvecs of the others need this rank's halo */
}

/* Each rank's fastest of PRECISE blocking sums of one value, in seconds */
static int timed_sums(ovk__ctx *c, double *lat)
{
    int rc = OVK_OK;
    *lat = INFINITY;
    for (int k = 0; k < PRECISE; k++) {
        double v = 1.0, t0 = ovk__now();
        rc = first(rc, ovk__sum(c, OVK__GAMMA, &v, 1)); /* every rank runs every sum */
        double dt = ovk__now() - t0;
        if (dt < *lat) *lat = dt;
    }
    return rc;
}

/* Both figures at the cost of about one reduction or WORK_REPS + 1
 * iterations, whichever is longer: one sum is started, then the local
 * iterations run (the first warms the caches; fig[1], fig[2] = the
 * fastest of the others and its vector part, in seconds), the sum's
 * completion tested after each.  Still in flight after them, its time from
 * start to the wait's end is the latency (fig[0]; fig[3] = 1: exact); done
 * earlier, fig[0] is a bound (fig[3] = 0) that measure() refines.  Every
 * rank runs every step whatever failed (a failure is remembered: the
 * others' halos and sums need this rank). */
static int probe(ovk__ctx *c, auto_work *w, double *fig)
{
    ovk_request *req = NULL;
    double v = 1.0, sink = 0.0, t0 = ovk__now(), done_at = 0.0;
    int rc = OVK_OK, prc = ovk__sum_begin(c, OVK__GAMMA, &v, 1, &req), done = prc != OVK_OK;
    for (int i = 0; i < c->n; i++) {
        w->p[i] = 1.0 + (double)(i % 7) / 7.0;
        w->r[i] = 1.0;
        w->x[i] = 0.0;
    }
    fig[1] = fig[2] = INFINITY;
    for (int k = -1; k < WORK_REPS; k++) {
        double vk = 0.0, ts = ovk__now();
        rc = first(rc, local_iteration(c, w, &vk, &sink));
        double te = ovk__now();
        if (k >= 0 && te - ts < fig[1]) {
            fig[1] = te - ts;
            fig[2] = vk;
        }
        if (!done) prc = first(prc, ovk_reduce_test(req, &done));
        if (done && done_at == 0.0) done_at = ovk__now();
    }
    if (req) prc = first(prc, ovk__sum_end(c, OVK__GAMMA, req));
    fig[3] = done_at == 0.0;
    fig[0] = fig[3] ? ovk__now() - t0 : done_at - t0;
    volatile double keep = sink; /* the dots are timed, their values not used */
    (void)keep;
    if (prc) return ovk__fail(prc, "auto: the latency probe failed: %s", ovk_error_detail());
    if (!rc && c->cb_failed) rc = ovk__fail(OVK_ECALLBACK, "auto: %s (measuring the local work)", c->cb_detail);
    return rc;
}

/* Collective: the largest over the ranks of k figures */
static int largest(ovk__ctx *c, double *fig, int k)
{
    return ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, fig, k, MPI_DOUBLE, MPI_MAX, c->comm), "MPI_Allreduce (auto's figures)");
}

/* Collective: fig = latency, local work, its vector part (seconds), the
 * same on every rank: each the largest over the ranks (a reduction cannot
 * beat its latency, and a slower rank sets the pace).  Where every rank saw
 * the probe's sum complete within the local work (a latency of a few
 * iterations' work or less: where it decides alg1 against plcg), warm
 * blocking sums measure it again; the decision is taken from reduced
 * values, so every rank runs the same sums. */
static int figures(ovk__ctx *c, auto_work *w, double *fig)
{
    int rc = ovk__agree(c->comm, probe(c, w, fig)); /* the failing rank's detail everywhere */
    c->cb_failed = 0;
    if (!rc) rc = ovk__agree(c->comm, largest(c, fig, 4));
    if (rc || fig[3] != 0.0) return rc;
    double lat = INFINITY;
    rc = ovk__agree(c->comm, timed_sums(c, &lat));
    if (!rc) rc = ovk__agree(c->comm, largest(c, &lat, 1));
    if (!rc) fig[0] = fmin(fig[0], lat);
    return rc;
}

/* the modelled time per iteration of plcg at depth k */
static double plcg_time(double lat, double work, double pass, int k)
{
    double passes = PLCG_PASS_K * k + PLCG_PASS_0; /* beyond alg1's */
    double local = work + passes * pass, after_wait = (passes + ALG1_PASSES) * pass;
    return fmax(local, (lat + after_wait) / k);
}

/* The choice from the agreed figures (seconds) into spec. */
static void choose(const auto_params *pp, double lat, double work, double vec, char *spec, size_t len)
{
    double pass = vec / ALG1_PASSES, best = work + ALG1_REDUCTIONS * lat;
    int depth = 0;
    for (int k = 1; k <= pp->maxl; k++) {
        double t = plcg_time(lat, work, pass, k);
        if (t < best) {
            best = t;
            depth = k;
        }
    }
    if (depth) snprintf(spec, len, "plcg:l=%d", depth);
    else snprintf(spec, len, "alg1");
}

/* Collective: measure, agree, choose and set up the choice. */
static int measure(ovk__ctx *c, auto_work *w)
{
    const auto_params *pp = c->params;
    double fig[4] = {0.0, 0.0, 0.0, 0.0};
    int rc = figures(c, w, fig);
    if (rc) return rc;
    char spec[32];
    choose(pp, fig[0], fig[1], fig[2], spec, sizeof spec);
    w->latency_us = 1e6 * fig[0];
    w->work_us = 1e6 * fig[1];
    w->epoch = c->numeric_epoch;
    rc = use(c, w, spec);
    if (rc) return rc;
    if (c->opts->print_level >= 1 && c->rank == 0)
        fprintf(c->opts->out ? c->opts->out : stdout, "auto: latency %.0f us, local work %.0f us per iteration -> %s\n",
                w->latency_us, w->work_us, w->choice);
    return OVK_OK;
}

int ovk__auto_setup(ovk__ctx *c, ovk__variant *v)
{
    if (v->sv != &ovk__solver_auto) return OVK_OK;
    return measure(c, v->work);
}

static int auto_iterate(ovk__ctx *c, void *work, double bb)
{
    const auto_params *pp = c->params;
    auto_work *w = work;
    void *saved = NULL;
    int rc = OVK_OK;
    if (pp->remeasure && w->epoch != c->numeric_epoch) rc = measure(c, w); /* new values, asked to */
    if (rc) return rc;
    snprintf(c->res->auto_choice, sizeof c->res->auto_choice, "%s", w->choice);
    c->res->auto_latency_us = w->latency_us;
    c->res->auto_work_us = w->work_us;
    if (c->n > 0) memcpy(w->inner.r, w->r, sizeof(double) * (size_t)c->n); /* r = b - A x */
    with_params(c, w->inner_params, &saved);
    rc = w->inner.sv->iterate(c, w->inner.work, bb);
    c->params = saved;
    if (rc || strncmp(w->choice, "plcg", 4) || c->res->restarts == 0) return rc;
    return use(c, w, "pipeprcg"); /* plcg broke down here (a reduced count): pipeprcg from now on */
}

static int auto_parse(ovk__opts *o, void **params)
{
    auto_params *p = calloc(1, sizeof *p);
    *params = p;
    if (!p) return ovk__fail(OVK_ENOMEM, "auto");
    p->maxl = DEFAULT_DEPTH;
    const ovk__opt_entry t[] = {
        OVK__OPT_INT("remeasure", 0, 1, &p->remeasure),
        OVK__OPT_INT("maxl", 1, MAX_DEPTH, &p->maxl),
    };
    return ovk__opts_read(o, "auto", t, (int)(sizeof t / sizeof t[0]));
}

static void auto_destroy(void *work) { drop_inner(work); }

#define V(f) offsetof(auto_work, f)
const ovk__solver ovk__solver_auto = {
    .name = "auto",
    .description = "measures the reduction latency and the local work at setup and picks alg1 or plcg:l=k "
                   "(pipeprcg after a breakdown of plcg)",
    .options = "remeasure=0|1: measure again after new matrix values (0); maxl=1..8: deepest plcg (3: l = 4 took "
               "1.1-1.3x alg1's iterations on the 7-point Laplacian)",
    .parse = auto_parse,
    .work_size = sizeof(auto_work),
    .nvec = 5,
    .vec = (const size_t[]){V(r), V(p), V(s), V(z), V(x)},
    .iterate = auto_iterate,
    .destroy = auto_destroy,
};
