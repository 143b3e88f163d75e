/* The solver "auto" (spec auto[:remeasure=0|1,maxl=1..8]): at setup it
 * measures the latency of one blocking reduction of the solver's backend
 * (PROBES timed reductions of one double after a warm-up; each rank's
 * fastest, then the largest over the ranks: a reduction cannot beat its
 * latency, and on a shared machine a slower one measured another process's
 * time slice) and the local work of one PCG
 * iteration (alg1's: matvec, preconditioner, three vector updates and two
 * local dots; each rank's fastest of WORK_REPS, then the largest over the
 * ranks), and picks the variant with the smallest modelled time per
 * iteration, the same on every rank (the figures are reduced values):
 *
 *   alg1          W + 3 L                (three blocking reductions)
 *   plcg:l=k      max(W + (PLCG_PASS_K k + PLCG_PASS_0) A, L / k)
 *                 (l reductions in flight, each behind l iterations)
 *
 * with L the latency, W the local work, A the time of one vector pass
 * (W's vector part / ALG1_PASSES).  The smallest k that reaches the
 * minimum is taken (deeper pipelines lose accuracy), at most maxl: the
 * balance l ~ L / W_l of the l = ceil(latency / local work).  It
 * then sets up the chosen variant and solves with it; where plcg broke
 * down in a solve (a restart: plcg then went on with pipeprcg's
 * recurrences), the later solves use pipeprcg.  With remeasure=1 it
 * measures and chooses again in the first solve after new matrix values
 * (ovk_matrix_update_values); by default the choice stays.  The choice and
 * both figures go into the result (auto_choice, auto_latency_us,
 * auto_work_us) and, at print_level >= 1, to the output on rank 0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver.h"

enum { PROBES = 7, WORK_REPS = 5, MAX_DEPTH = 8, DEFAULT_DEPTH = 3, ALG1_PASSES = 5, ALG1_REDUCTIONS = 3 };
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

/* The latency probe: every rank runs every reduction (a failed one is
 * remembered, not left: the others would wait for it); *lat = this rank's
 * fastest in seconds. */
static int probe_latency(ovk__ctx *c, double *lat)
{
    int rc = OVK_OK;
    *lat = INFINITY;
    for (int i = -1; i < PROBES; i++) { /* i = -1: the warm-up */
        double v = 1.0, t0 = ovk__now();
        int rc2 = ovk__sum(c, OVK__GAMMA, &v, 1);
        double dt = ovk__now() - t0;
        if (i >= 0 && dt < *lat) *lat = dt;
        if (!rc) rc = rc2;
    }
    return rc ? ovk__fail(rc, "auto: the latency probe failed: %s", ovk_error_detail()) : OVK_OK;
}

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
    return rc ? rc : rc2; /* every step runs: the matvecs of the others need this rank's halo */
}

/* The local work: the fastest of WORK_REPS iterations (after one to warm
 * the caches); *work and *vec in seconds. */
static int probe_work(ovk__ctx *c, auto_work *w, double *work, double *vec)
{
    double sink = 0.0;
    int rc = OVK_OK;
    for (int i = 0; i < c->n; i++) {
        w->p[i] = 1.0 + (double)(i % 7) / 7.0;
        w->r[i] = 1.0;
        w->x[i] = 0.0;
    }
    *work = *vec = INFINITY;
    for (int k = -1; k < WORK_REPS; k++) {
        double v = 0.0, t0 = ovk__now();
        int rc2 = local_iteration(c, w, &v, &sink);
        double dt = ovk__now() - t0;
        if (!rc) rc = rc2; /* the first failure; every rank runs every repetition */
        if (k >= 0 && dt < *work) {
            *work = dt;
            *vec = v;
        }
    }
    volatile double keep = sink; /* the dots are timed, their values not used */
    (void)keep;
    if (!rc && c->cb_failed) rc = ovk__fail(OVK_ECALLBACK, "auto: %s (measuring the local work)", c->cb_detail);
    return rc;
}

/* the modelled time per iteration of plcg at depth k */
static double plcg_time(double lat, double work, double pass, int k)
{
    double local = work + (PLCG_PASS_K * k + PLCG_PASS_0) * pass;
    return fmax(local, lat / k);
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
    double fig[3] = {0.0, 0.0, 0.0}; /* latency, work, its vector part */
    int rc = ovk__agree(c->comm, probe_latency(c, &fig[0])); /* the failing rank's detail everywhere */
    if (rc) return rc;
    rc = probe_work(c, w, &fig[1], &fig[2]);
    c->cb_failed = 0;
    int mrc = MPI_Allreduce(MPI_IN_PLACE, fig, 3, MPI_DOUBLE, MPI_MAX, c->comm);
    if (!rc && mrc != MPI_SUCCESS) rc = ovk__mpi_fail(mrc, "MPI_Allreduce (auto's figures)");
    rc = ovk__agree(c->comm, rc);
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
    .options = "remeasure=0|1: measure again after new matrix values (0); maxl=1..8: deepest plcg (3: l = 4 took 1.2-1.3x alg1's iterations on the 7-point Laplacian)",
    .parse = auto_parse,
    .work_size = sizeof(auto_work),
    .nvec = 5,
    .vec = (const size_t[]){V(r), V(p), V(s), V(z), V(x)},
    .iterate = auto_iterate,
    .destroy = auto_destroy,
};
