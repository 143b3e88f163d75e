/* The solver "auto" (spec auto[:remeasure=0|1,warm=0|1,maxl=1..8]): at setup it
 * measures the latency of one reduction of the solver's backend and the
 * local work of one PCG iteration (alg1's: matvec, preconditioner, three
 * vector updates and two local dots) at once: one sum is started and the
 * local iterations run while it is in flight, the sum tested between their
 * phases (probe()), so that the measurement costs about one reduction, not
 * one per probe; the work is the largest over the ranks, the latency the
 * smallest (the rank that came last to the sum waited for it alone: the
 * others' times include their wait for that rank).  It picks the
 * variant with the smallest modelled time per iteration, the same on every
 * rank (the figures are reduced values):
 *
 *   alg1          W + 3 L                (three blocking reductions)
 *   pipecg        max(W + PIPECG_PASSES A, L + (PIPECG_PASSES + ALG1_PASSES) A)
 *   plcg:l=k      max(W + (PLCG_PASS_K k + PLCG_PASS_0) A, (L + V) / k), k >= 2
 *
 * with L the latency, W the local work, A the time of one vector pass
 * (W's vector part / ALG1_PASSES) and V = (PLCG_PASS_K k + PLCG_PASS_0 +
 * ALG1_PASSES) A plcg's vector work: a sum started at the end of step i
 * is waited for in step i + k after its matvec, so it overlaps k - 1
 * steps and a matvec, and k steps last L + V where the latency is not
 * hidden (ovk_pcg_bench, session 15, nbc, -n 20, 2 ranks: this and the
 * blocking residual checks, 2-4 sums a solve, account for the time per
 * iteration at l = 1..4 and L = 100..1000 us within 10 %).  pipecg waits
 * like plcg:l=1, after one matvec, with fewer vector passes: it stands for
 * depth 1 (session 17: pipecg at or below plcg:l=1 in 15 of 16 cells of
 * docs/benchmarks.md, one-shot and repeated).  The shallowest variant that
 * reaches the minimum is taken (deeper pipelines lose accuracy), at most
 * plcg:l=maxl (default 4; 3 before plcg's Gram sums were taken in twice
 * the working precision: l = 4 took 1.1-1.3x alg1's iterations on the
 * 7-point Laplacian, now 1.0-1.12x).  The choice made at setup is for a
 * first solve, which pays plcg's start-up (its spectrum estimate, the
 * pipeline's fill; startup_time): spread over FIRST_ITERATIONS, it is
 * added to plcg's time there (session 22: at -n 20, 100 us, one-shot
 * plcg:l=2 ran 1.17x pipecg, repeated 0.79x; the model without it put
 * them level); the measurements in later solves (warm, remeasure) choose
 * for the steady state.  Two refinements of this pass model: where the
 * probe's warming iteration already shows alg1's three latencies below
 * half its (cold) vector work, alg1 is taken without the timed iteration
 * (early); and where the model puts pipecg and the best plcg close (REFINE),
 * its constant passes are not trusted and their own vector steps are timed
 * (refine, measured(): at -n 20, 100 us the pass model's choice between
 * pipecg and plcg:l=2 flipped with the noise, session 24).  It then sets
 * up the chosen variant and solves with it; where plcg broke down in a
 * solve (a restart: plcg then went on with pipeprcg's recurrences), the
 * later solves use pipeprcg.  The
 * second solve of the values measured at setup measures again, warm (the
 * setup's probe runs on cold caches and pages: at -n 20 its local work came
 * out 1.6x the solve's), and keeps or replaces the choice (warm=0: not).
 * With remeasure=1 it measures and chooses again in the first solve after
 * new matrix values (ovk_matrix_update_values); by default the choice
 * stays.  A measurement inside a solve recomputes r = b - A x after it
 * (the probe's vectors include r).
 * The choice and both figures go into the result (auto_choice,
 * auto_latency_us, auto_work_us) and, at print_level >= 1, to the output on
 * rank 0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver.h"

enum { PRECISE = 2, MAX_DEPTH = 8, DEFAULT_DEPTH = 4, ALG1_PASSES = 5, ALG1_REDUCTIONS = 3 };
/* the iterations a first solve is assumed to take, over which plcg's
 * start-up is spread in the choice made at setup */
enum { FIRST_ITERATIONS = 50 };
/* timed local iterations after the warming one: at setup one (its cost is
 * a first solve's: 2-3 % of a one-shot solve at -n 20 each), in a later
 * solve the fastest of three (that choice is for the steady state: with
 * one, the local work came out high often enough to choose one level
 * shallower in 3 of 8 repeated cells, session 23) */
enum { SETUP_REPS = 1, WARM_REPS = 3 };
/* timed vector steps of each candidate refine compares at setup (on
 * vectors the setup has just zeroed: warm at -n 20) */
enum { STEP_REPS = 2 };
/* rows between the probe's tests of its sum in the untimed first iteration
 * (the kernels' hook), where a latency of the order of the local work ends */
enum { PROBE_POLL_ROWS = 1024 };
/* the most that cold caches inflate the probe's vector work (early) */
#define COLD_VEC 2.0
/* the latency's interval settles the choice without a timed sum when the
 * choice at its midpoint is modelled within REGRET of the best at both ends */
#define REGRET 0.05
/* the pass model's candidates within REFINE of its best have their vector
 * steps timed (refine) */
#define REFINE 0.25
/* the probe's figures: latency (its interval's upper and lower end), local
 * work of one alg1 iteration and its vector part */
enum { FIG_LAT, FIG_LAT_LOW, FIG_WORK, FIG_VEC, FIG_MV, FIG_COUNT };
/* plcg's vector passes per iteration beyond alg1's: PLCG_PASS_K per level
 * (two recurrences and a dot per level) and PLCG_PASS_0 (the top level's
 * two recurrences, the x update) */
#define PLCG_PASS_K 3.5
#define PLCG_PASS_0 3.0
/* pipecg's beyond alg1's: its one fused update of six vectors with 13 dots
 * and m = C w (ovk_laplace27 -timing, -n 60: 0.8x plcg:l=1's extra vector
 * time, whose wait it shares: after one matvec) */
#define PIPECG_PASSES 5.0
/* pipecg's blocking sums in a solve besides one per step (its start's, the
 * true residual's at the exit test: 1.07 sums per step over 46 steps,
 * ovk_pcg_bench -n 20) */
#define PIPECG_SOLVE_SUMS 3.0

typedef struct auto_params {
    long remeasure, maxl, warm;
} auto_params;

/* A variant set up from a spec: the instance, its parsed options, the spec */
typedef struct spec_variant {
    ovk__variant v;
    void *params;
    char spec[32];
} spec_variant;

typedef struct auto_work {
    double *r;                 /* the frame's residual */
    spec_variant inner;        /* the chosen variant */
    double latency_us, work_us;
    unsigned epoch;            /* c->numeric_epoch of the measurement */
    int solves;                /* solves since the measurement */
    int warm;                  /* 1: the measurement was taken warm (in a solve), 0: at setup */
    int broke;                 /* plcg broke down on these values: pipeprcg stands for it */
} auto_work;

/* the inner variant's calls see its own parsed options */
static void with_params(ovk__ctx *c, void *params, void **saved)
{
    *saved = c->params;
    c->params = params;
}

/* Local: sp's instance and options freed (sp may be empty) */
static void drop(spec_variant *sp)
{
    ovk__variant_free(&sp->v);
    free(sp->params);
    sp->params = NULL;
    sp->spec[0] = '\0';
}

/* Local: the variant of spec (a name the registry has) and its parsed
 * options into *params */
static int parse_spec(const char *spec, void **params, const ovk__solver **sv)
{
    char name[32];
    ovk__opts o;
    int rc = ovk__spec_parse("solver", OVK_EINVAL, spec, name, sizeof name, &o);
    if (rc) return rc;
    *sv = ovk__solver_find(name);
    if (!*sv) return ovk__fail(OVK_EINVAL, "auto: no solver %s", name);
    return (*sv)->parse ? (*sv)->parse(&o, params) : OVK_OK;
}

/* The first failure of rc and rc2 */
static int first(int rc, int rc2) { return rc ? rc : rc2; }

/* Collective: the variant of spec set up in sp in place of what it held,
 * its vectors in block (the probe's scratch: its pages already faulted in)
 * or, with NULL, a new block; on failure block is freed and sp empty. */
static int use(ovk__ctx *c, spec_variant *sp, const char *spec, double *block)
{
    const ovk__solver *sv = NULL;
    void *saved = NULL;
    drop(sp);
    int rc = ovk__agree(c->comm, parse_spec(spec, &sp->params, &sv));
    if (rc) {
        free(block);
        drop(sp);
        return rc;
    }
    with_params(c, sp->params, &saved);
    rc = ovk__variant_setup_on(c, sv, &sp->v, block);
    c->params = saved;
    if (rc) {
        drop(sp);
        return rc;
    }
    snprintf(sp->spec, sizeof sp->spec, "%s", spec);
    return OVK_OK;
}

/* The probe's sum in flight: tested between the phases of the local work;
 * its completion lies between the last test that saw it pending and the
 * first that saw it done (seconds from its start); spent: the seconds
 * the tests took, left out of the local work's times */
typedef struct probe_sum {
    ovk_request *req;
    double t0, pending_at, done_at, spent;
    int done, rc;
} probe_sum;

static void poll(probe_sum *ps)
{
    if (ps->done) return;
    double t1 = ovk__now();
    ps->rc = first(ps->rc, ovk_reduce_test(ps->req, &ps->done));
    double t2 = ovk__now(), t = t2 - ps->t0;
    ps->spent += t2 - t1;
    if (ps->done) ps->done_at = t;
    else ps->pending_at = t;
}

/* The kernels' hook while the probe's sum is in flight: the solver's own
 * (the backend's progress) and a test of the sum every PROBE_POLL_ROWS */
typedef struct probe_hook {
    ovk__hook inner;
    probe_sum *ps;
} probe_hook;

static void probe_poke(void *arg)
{
    probe_hook *ph = arg;
    ovk__poke(&ph->inner);
    poll(ph->ps);
}

/* The probe's vectors: PROBE_VECS staggered in one malloc'd block, which
 * the variant chosen after the probe takes over (use) */
enum { PROBE_VECS = 4 };
typedef struct probe_vecs {
    double *block, *p, *s, *z, *x;
} probe_vecs;

/* Local: the probe's vectors laid out in block, a new one (NULL: its
 * allocation failed; agreed by the caller) */
static int probe_vectors(const ovk__ctx *c, double *block, probe_vecs *pv)
{
    size_t stride = ovk__vec_stride(c->n);
    pv->block = block;
    if (!pv->block) return ovk__fail(OVK_ENOMEM, "auto: %d vectors of %d rows for the probe", PROBE_VECS, c->n);
    pv->p = pv->block;
    pv->s = pv->p + stride;
    pv->z = pv->s + stride;
    pv->x = pv->z + stride;
    return OVK_OK;
}

/* One iteration of alg1's local work on the measurement's vectors:
 * s = A p, <p,s>, x += a p, r -= a s, z = C r, <r,z>, p = z + b p, the
 * sum tested after the matvec, the preconditioner and the updates.
 * *vec = the vector part's seconds, *mv the matvec's (the tests' time
 * left out). */
static int local_iteration(ovk__ctx *c, const probe_vecs *pv, double *r, probe_sum *ps, double *vec, double *mv,
                           double *sink)
{
    double t0 = ovk__now(), s0 = ps->spent;
    int rc = ovk__ctx_matvec(c, pv->p, pv->s), rc2;
    *mv = ovk__now() - t0 - (ps->spent - s0);
    poll(ps);
    t0 = ovk__now();
    double a = 1e-3 / (1.0 + fabs(ovk__dot(c->n, pv->p, pv->s)));
    ovk__ctx_axpy(c, a, pv->p, pv->x);
    ovk__ctx_axpy(c, -a, pv->s, r);
    *vec = ovk__now() - t0;
    rc2 = ovk__ctx_pc(c, r, pv->z);
    poll(ps);
    t0 = ovk__now();
    s0 = ps->spent;
    *sink += ovk__dot(c->n, r, pv->z);
    ovk__xpay(c->n, pv->z, 0.5, pv->p, &c->hook);
    *vec += ovk__now() - t0 - (ps->spent - s0);
    poll(ps);
    return first(rc, rc2); /* every step runs: the matvecs of the others need this rank's halo */
}

static int agree_figures(ovk__ctx *c, double *fig, int k);

/* Collective: the latency from the fastest of PRECISE warm blocking sums
 * of one value on each rank (the probe's sum went first), the smallest
 * over the ranks (agree_figures), in seconds; every rank runs every sum
 * and the agreement, whatever failed (the status is not agreed) */
static int timed_latency(ovk__ctx *c, double *lat)
{
    int rc = OVK_OK;
    *lat = INFINITY;
    for (int k = 0; k < PRECISE; k++) {
        double v = 1.0, t0 = ovk__now();
        rc = first(rc, ovk__sum(c, OVK__GAMMA, &v, 1));
        double dt = ovk__now() - t0;
        if (dt < *lat) *lat = dt;
    }
    return first(rc, agree_figures(c, lat, 1)); /* lat in FIG_LAT's place */
}

/* Collective, after the warming iteration (its times w, v, mv, cold):
 * alg1 wins where its three latencies stay below the cold vector work over
 * COLD_VEC (the least extra vector work of a pipelined variant, pipecg's,
 * is at least the warm vector work, and cold caches at most double it).
 * Where every rank saw the probe's sum done within the iteration and the
 * lower end of its interval allows that, the latency is timed at once (at
 * most an iteration's cost), agreed into fig[FIG_LAT] = fig[FIG_LAT_LOW],
 * the sum ended (*timed), and if alg1 wins: *alg1, the cold figures agreed
 * in fig, the timed iteration skipped (-n 20, 0 us: 80 us of a 3.5 ms
 * solve).  Every rank takes the same branches (reduced values). */
static int early(ovk__ctx *c, probe_sum *ps, double w, double v, double mv, double *fig, int *timed, int *alg1)
{
    double e[5] = {ps->done ? ps->done_at : INFINITY, -ps->pending_at, w, v, mv}; /* the interval's ends, the times */
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, e, 5, MPI_DOUBLE, MPI_MAX, c->comm), "MPI_Allreduce (auto's probe)");
    double low = -e[1], vec = e[3];
    if (rc || !(2.0 * e[0] <= e[2]) || ALG1_REDUCTIONS * low > vec / COLD_VEC) return rc;
    if (ps->req) ps->rc = first(ps->rc, ovk__sum_end(c, OVK__GAMMA, ps->req));
    ps->req = NULL;
    rc = timed_latency(c, &fig[FIG_LAT]);
    fig[FIG_LAT_LOW] = fig[FIG_LAT];
    *timed = 1;
    if (ALG1_REDUCTIONS * fig[FIG_LAT] > vec / COLD_VEC) return rc;
    fig[FIG_WORK] = e[2];
    fig[FIG_VEC] = vec;
    fig[FIG_MV] = e[4];
    *alg1 = 1;
    return rc;
}

/* Both figures at the cost of about one reduction or reps + 1
 * iterations, whichever is longer: one sum is started, then the local
 * iterations run (the first warms the caches; fig[FIG_WORK], fig[FIG_VEC],
 * fig[FIG_MV] = the fastest of the timed ones, its vector part and its
 * matvec, in seconds, the tests' time left out), the sum tested three
 * times in each and, while it is in flight, also every PROBE_POLL_ROWS
 * rows of their kernels (a matrix's; a user operator is one step: an
 * interval of about 10 us at -n 20 where a timed sum costs two latencies).
 * Still in flight after them, its time from start to the wait's
 * end is the latency (fig[FIG_LAT] = fig[FIG_LAT_LOW]);
 * done earlier, the latency lies between the last test that saw it pending
 * (fig[FIG_LAT_LOW]) and the first that saw it done (fig[FIG_LAT]).  After
 * the warming iteration early() may time the latency (then in fig) and
 * settle alg1 (*alg1: the cold figures in fig, agreed).  Every
 * rank runs every step whatever failed (a failure is remembered: the
 * others' halos and sums need this rank). */
static int probe(ovk__ctx *c, const probe_vecs *pv, double *r, int reps, double *fig, int *alg1)
{
    double v = 1.0, sink = 0.0;
    for (int i = 0; i < c->n; i++) { /* first touches: before the sum, outside its interval */
        pv->p[i] = 1.0 + (double)(i % 7) / 7.0;
        r[i] = 1.0;
        pv->x[i] = 0.0;
        pv->s[i] = pv->z[i] = 0.0;
    }
    probe_sum ps = {.t0 = ovk__now()};
    ps.rc = ovk__sum_begin(c, OVK__GAMMA, &v, 1, &ps.req);
    ps.done = ps.rc != OVK_OK;
    int rc = OVK_OK, timed = 0;
    fig[FIG_WORK] = fig[FIG_VEC] = fig[FIG_MV] = INFINITY;
    probe_hook ph = {c->hook, &ps};
    for (int k = -1; k < reps && !*alg1; k++) {
        double vk = 0.0, mk = 0.0, ts = ovk__now(), s0 = ps.spent;
        if (!ps.done) c->hook = (ovk__hook){probe_poke, &ph, PROBE_POLL_ROWS}; /* fine tests */
        rc = first(rc, local_iteration(c, pv, r, &ps, &vk, &mk, &sink));
        c->hook = ph.inner;
        double te = ovk__now() - (ps.spent - s0);
        if (k < 0) rc = first(rc, early(c, &ps, te - ts, vk, mk, fig, &timed, alg1));
        if (k >= 0 && te - ts < fig[FIG_WORK]) {
            fig[FIG_WORK] = te - ts;
            fig[FIG_VEC] = vk;
            fig[FIG_MV] = mk;
        }
    }
    int pending = !ps.done;
    if (ps.req) ps.rc = first(ps.rc, ovk__sum_end(c, OVK__GAMMA, ps.req));
    if (!timed) {
        fig[FIG_LAT] = pending ? ovk__now() - ps.t0 : ps.done_at;
        fig[FIG_LAT_LOW] = pending ? fig[FIG_LAT] : ps.pending_at;
    }
    volatile double keep = sink; /* the dots are timed, their values not used */
    (void)keep;
    if (ps.rc) return ovk__fail(ps.rc, "auto: the latency probe failed: %s", ovk_error_detail());
    if (!rc && c->cb_failed) rc = ovk__fail(OVK_ECALLBACK, "auto: %s (measuring the local work)", c->cb_detail);
    return rc;
}

/* Collective: the figures over the ranks: of the work the largest (the
 * slowest rank sets the pace), of the latency the smallest.  A sum ends
 * about when the last rank to start it started plus the latency; the
 * earlier ranks' times include their wait for it (after a setup step of
 * uneven length, or a rank descheduled on a loaded host: 170-270 us at
 * 0 us).  Each rank's interval holds its own time, and no rank's time is
 * below the latency, so the smallest ends bracket the smallest time. */
static int agree_figures(ovk__ctx *c, double *fig, int k)
{
    for (int i = 0; i < k; i++)
        if (i == FIG_LAT || i == FIG_LAT_LOW) fig[i] = -fig[i];
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, fig, k, MPI_DOUBLE, MPI_MAX, c->comm), "MPI_Allreduce (auto's figures)");
    for (int i = 0; i < k; i++)
        if (i == FIG_LAT || i == FIG_LAT_LOW) fig[i] = -fig[i];
    return rc;
}

/* plcg:l=k's start-up in a first solve, per iteration of it: the spectrum
 * estimate's matvecs (each with the preconditioner and vector work: about
 * an alg1 iteration), the k steps that fill the pipeline before the first
 * iteration, and two reductions that wait (the estimate's Rayleigh
 * quotient, the final check), spread over FIRST_ITERATIONS */
static double startup_time(const double *fig, int k)
{
    return ((ovk__plcg_estimate_steps(k) + 1 + k) * fig[FIG_WORK] + 2.0 * fig[FIG_LAT]) / FIRST_ITERATIONS;
}

/* the modelled time per iteration of a variant that waits for a sum
 * started `depth` steps earlier, after its matvec, with `passes` vector
 * passes per iteration beyond alg1's */
static double pipelined_time(const double *fig, double passes, int depth)
{
    double pass = fig[FIG_VEC] / ALG1_PASSES;
    double local = fig[FIG_WORK] + passes * pass, after_wait = (passes + ALG1_PASSES) * pass;
    return fmax(local, (fig[FIG_LAT] + after_wait) / depth);
}

/* The modelled time per iteration of candidate k (ALG1, PIPECG, or
 * plcg:l=k for k >= 2) at the latency fig[FIG_LAT]; first: for a first
 * solve, plcg's start-up counted */
enum { ALG1, PIPECG };
static double modelled(const double *fig, int first, int k)
{
    if (k == ALG1) return fig[FIG_WORK] + ALG1_REDUCTIONS * fig[FIG_LAT];
    if (k == PIPECG) return pipelined_time(fig, PIPECG_PASSES, 1);
    return pipelined_time(fig, PLCG_PASS_K * k + PLCG_PASS_0, k) + (first ? startup_time(fig, k) : 0.0);
}

/* The candidate with the smallest modelled time, the shallower one on a
 * tie (deeper pipelines lose accuracy) */
static int best(long maxl, const double *fig, int first)
{
    int kb = ALG1;
    for (int k = PIPECG; k <= maxl; k++)
        if (modelled(fig, first, k) < modelled(fig, first, kb)) kb = k;
    return kb;
}

static void spec_of(int k, char *spec, size_t len)
{
    if (k == ALG1) snprintf(spec, len, "alg1");
    else if (k == PIPECG) snprintf(spec, len, "pipecg");
    else snprintf(spec, len, "plcg:l=%d", k);
}

/* The choice from the agreed figures (seconds) into spec */
static void choose(long maxl, const double *fig, int first, char *spec, size_t len)
{
    spec_of(best(maxl, fig, first), spec, len);
}

void ovk__auto_choose(double latency, double work, double vec, long maxl, int first, char *spec, size_t len)
{
    double fig[FIG_COUNT] = {0.0};
    fig[FIG_LAT] = fig[FIG_LAT_LOW] = latency;
    fig[FIG_WORK] = work;
    fig[FIG_VEC] = vec;
    choose(maxl, fig, first, spec, len);
}

/* With the latency known only within [fig[FIG_LAT_LOW], fig[FIG_LAT]]: the
 * choice when it is the same at both ends; between two pipelined variants,
 * the one at the midpoint when at both ends it is modelled within REGRET of
 * the best there (a timed sum would cost a latency to settle a difference
 * below the model's own error); -1 when neither.  alg1 against a pipelined
 * variant is always settled by timed sums: there the latency is small, the
 * sums cheap, and the bracket's top can be the scheduler's (two ranks per
 * core at 0 us: [0, 130-260] us against 5-7 us timed, and with the local
 * work inflated the regret at 0 us came out under REGRET). */
static int settled(long maxl, const double *fig, int first)
{
    double at[FIG_COUNT];
    memcpy(at, fig, sizeof at);
    at[FIG_LAT] = fig[FIG_LAT_LOW];
    int klo = best(maxl, at, first), khi = best(maxl, fig, first);
    if (klo == khi) return khi;
    if (klo == ALG1 || khi == ALG1) return -1;
    at[FIG_LAT] = 0.5 * (fig[FIG_LAT] + fig[FIG_LAT_LOW]);
    int km = best(maxl, at, first);
    for (int end = 0; end < 2; end++) {
        at[FIG_LAT] = end ? fig[FIG_LAT] : fig[FIG_LAT_LOW];
        if (modelled(at, first, km) > (1.0 + REGRET) * modelled(at, first, end ? khi : klo)) return -1;
    }
    return km;
}

/* The time per iteration of candidate k (PIPECG or plcg:l=k) from its
 * timed vector step u (seconds: everything but its matvec) and the probe's
 * matvec fig[FIG_MV]: pipecg's wait ends
 * after the matvec or the latency, whichever is longer, and then its
 * updates run, plus its blocking sums of a solve (and in a first solve
 * ||A||'s pass, about a matvec, which auto takes when it runs pipecg)
 * spread over FIRST_ITERATIONS; plcg as in modelled(), its start-up
 * counted in a first solve */
static double measured(const double *fig, double u, int first, int k)
{
    double mv = fig[FIG_MV], lat = fig[FIG_LAT];
    if (k == PIPECG) return fmax(mv, lat) + u + (PIPECG_SOLVE_SUMS * lat + (first ? mv : 0.0)) / FIRST_ITERATIONS;
    return fmax(mv + u, (lat + u) / k) + (first ? startup_time(fig, k) : 0.0);
}

/* The pair whose steps refine times: pipecg and the best plcg (k >= 2,
 * the shallowest on a tie) when the pass model's best is one of them and the other is
 * within REFINE of it (its known weakness: pipecg's in-cache cost against
 * plcg's); 0 when the pass model's choice stands */
static int candidates(long maxl, const double *fig, int first, int *cand)
{
    int kb = best(maxl, fig, first), kp = 2;
    if (kb == ALG1 || maxl < 2) return 0;
    for (int k = 3; k <= maxl; k++)
        if (modelled(fig, first, k) < modelled(fig, first, kp)) kp = k;
    int other = kb == PIPECG ? kp : PIPECG;
    if (kb != PIPECG && kb != kp) return 0;
    if (modelled(fig, first, other) > (1.0 + REFINE) * modelled(fig, first, kb)) return 0;
    cand[0] = PIPECG;
    cand[1] = kp;
    return 2;
}

/* The candidate of cand[0..n) (ascending) with the smallest measured time,
 * the shallower on a tie */
static int best_measured(const double *fig, const int *cand, const double *u, int n, int first)
{
    int ib = 0;
    for (int i = 1; i < n; i++)
        if (measured(fig, u[i], first, cand[i]) < measured(fig, u[ib], first, cand[ib])) ib = i;
    return cand[ib];
}

void ovk__auto_choose_timed(double latency, double matvec, double work, double vec, const double *u, long maxl,
                            int first, char *spec, size_t len)
{
    double fig[FIG_COUNT] = {0.0}, uc[2];
    int cand[2];
    fig[FIG_LAT] = fig[FIG_LAT_LOW] = latency;
    fig[FIG_MV] = matvec;
    fig[FIG_WORK] = work;
    fig[FIG_VEC] = vec;
    if (!candidates(maxl, fig, first, cand)) {
        choose(maxl, fig, first, spec, len);
        return;
    }
    uc[0] = u[cand[0]];
    uc[1] = u[cand[1]];
    spec_of(best_measured(fig, cand, uc, 2, first), spec, len);
}

/* Collective: candidate k set up in cd on *block (resized to its vectors
 * and zeroed: the pages of the chosen variant's vectors are faulted in
 * once), its vector step timed, the fastest of reps in *u (seconds).  With
 * keep cd stays set up, for the choice when it is the one chosen (its
 * vectors as its vector step left them: finite, and overwritten at the
 * start of every solve); else it is emptied and the block comes back in
 * *block.  After a failure the block is freed (*block = NULL, cd empty).
 * x is scratch. */
static int time_step(ovk__ctx *c, int k, double **block, double *x, int reps, int keep, spec_variant *cd, double *u)
{
    char spec[32];
    void *saved = NULL;
    spec_of(k, spec, sizeof spec);
    int rc = use(c, cd, spec, *block);
    *block = NULL;
    if (rc) return rc;
    const ovk__solver *sv = cd->v.sv;
    with_params(c, cd->params, &saved);
    *u = INFINITY;
    for (int i = 0; !rc && i < reps; i++) { /* local: no rank waits for another */
        double t0 = ovk__now();
        rc = sv->vector_step ? sv->vector_step(c, cd->v.work, x)
                             : ovk__fail(OVK_EINVAL, "auto: %s has no vector step", spec);
        *u = fmin(*u, ovk__now() - t0);
    }
    if (!rc && c->cb_failed) rc = ovk__fail(OVK_ECALLBACK, "auto: %s (timing %s)", c->cb_detail, spec);
    c->cb_failed = 0;
    c->params = saved;
    rc = ovk__agree(c->comm, rc);
    if (rc) {
        drop(cd); /* the block with it */
        return rc;
    }
    if (!keep) {
        *block = ovk__variant_take_block(&cd->v);
        drop(cd);
    }
    return OVK_OK;
}

/* Collective: the choice from the agreed figures.  Where the pass model
 * (modelled) puts pipecg and the best plcg within REFINE of each other
 * (candidates), its constant passes are not trusted (the in-cache cost of
 * a fused kernel of many streams is not its bytes: at -n 20 pipecg's
 * update cost 7.4 of the probe's passes, not 5, and the model's first-solve
 * choice between it and plcg:l=2 at 100 us flipped with the noise of the
 * probe's timed iteration): both variants are set up on the probe's block
 * in turn (grown: the chosen one's pages are faulted in once), their
 * vector steps timed, and measured() decides.  Every rank takes the same
 * branches (reduced values). */
static int refine(ovk__ctx *c, double **block, double *x, int first, const double *fig, char *spec, size_t len,
                  spec_variant *kept)
{
    const auto_params *pp = c->params;
    int cand[MAX_DEPTH + 1], n = candidates(pp->maxl, fig, first, cand), rc = OVK_OK;
    double u[MAX_DEPTH + 1];
    if (n == 0) {
        choose(pp->maxl, fig, first, spec, len);
        return OVK_OK;
    }
    for (int i = 0; i < n && !rc; i++) /* the last, the largest block, stays set up in kept */
        rc = time_step(c, cand[i], block, x, first ? STEP_REPS : WARM_REPS, i == n - 1, kept, &u[i]);
    if (!rc) /* the slowest rank's step sets the pace */
        rc = ovk__agree(c->comm, ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, u, n, MPI_DOUBLE, MPI_MAX, c->comm),
                                          "MPI_Allreduce (auto's vector steps)"));
    if (rc) {
        drop(kept);
        return rc;
    }
    spec_of(best_measured(fig, cand, u, n, first), spec, len);
    return OVK_OK;
}

/* Collective: the figures (seconds), agreed over the ranks (agree_figures),
 * and the choice from them.  alg1 at both ends of the latency's interval
 * is taken at once (no latency worth hiding).  Else, where the interval
 * does not settle the choice (settled), warm blocking sums measure the
 * latency again; where it does, its midpoint stands for it.  refine then
 * chooses, timing the close candidates' vector steps on *block (resized;
 * NULL after a failure).  Every decision is taken from reduced values, so
 * every rank runs the same sums. */
static int figures(ovk__ctx *c, double **block, double *r, int first, double *fig, char *spec, size_t len,
                   spec_variant *kept)
{
    const auto_params *pp = c->params;
    probe_vecs pv = {0};
    int alg1 = 0, rc = ovk__agree(c->comm, probe_vectors(c, *block, &pv));
    if (!rc) rc = ovk__agree(c->comm, probe(c, &pv, r, first ? SETUP_REPS : WARM_REPS, fig, &alg1)); /* the failing rank's detail everywhere */
    c->cb_failed = 0;
    if (!rc && !alg1) rc = ovk__agree(c->comm, agree_figures(c, fig, FIG_COUNT));
    if (rc) return rc;
    int k = alg1 ? ALG1 : settled(pp->maxl, fig, first); /* the same choice, or nearly as good, anywhere in the interval */
    if (k == ALG1) {
        spec_of(k, spec, len);
        return OVK_OK;
    }
    if (k < 0) {
        double lat = INFINITY;
        rc = ovk__agree(c->comm, timed_latency(c, &lat));
        if (rc) return rc;
        fig[FIG_LAT] = fig[FIG_LAT_LOW] = fmin(fig[FIG_LAT], lat);
    } else {
        fig[FIG_LAT] = fig[FIG_LAT_LOW] = 0.5 * (fig[FIG_LAT] + fig[FIG_LAT_LOW]);
    }
    return refine(c, block, r, first, fig, spec, len, kept);
}

/* the choice and its figures, one line (print_level 1 and the view) */
static void choice_line(const auto_work *w, const char *indent, FILE *f)
{
    fprintf(f, "%sauto: latency %.0f us, local work %.0f us per iteration%s -> %s\n", indent, w->latency_us,
            w->work_us, w->warm ? " (warm)" : "", w->inner.spec);
}

/* the choice line at print_level >= 1 (rank 0) */
static int report(const ovk__ctx *c, const auto_work *w)
{
    if (c->opts->print_level >= 1 && c->rank == 0) choice_line(w, "", c->opts->out ? c->opts->out : stdout);
    return OVK_OK;
}

/* Collective: measure, agree, choose and set up the choice (kept set up
 * when it is the variant already running: its start-up state stays), its
 * vectors in the probe's block (at -n 20 that saved the faults of four
 * fresh vectors in a one-shot setup, ~100 us of ~500). */
static int measure(ovk__ctx *c, auto_work *w, int first)
{
    double fig[FIG_COUNT] = {0.0};
    char spec[32];
    spec_variant kept = {0};
    double *block = malloc(sizeof(double) * ovk__vec_stride(c->n) * PROBE_VECS);
    int rc = figures(c, &block, w->r, first, fig, spec, sizeof spec, &kept);
    if (rc) {
        free(block);
        return rc;
    }
    w->latency_us = 1e6 * fig[FIG_LAT];
    w->work_us = 1e6 * fig[FIG_WORK];
    if (w->epoch != c->numeric_epoch) w->broke = 0; /* new values: plcg may run again */
    w->epoch = c->numeric_epoch;
    w->solves = 0;
    if (w->broke && !strncmp(spec, "plcg", 4)) snprintf(spec, sizeof spec, "pipeprcg");
    int change = !w->inner.v.sv || strcmp(spec, w->inner.spec);
    if (change && kept.v.sv && !strcmp(spec, kept.spec)) { /* refine's last candidate, set up already */
        drop(&w->inner);
        w->inner = kept;
        return report(c, w);
    }
    if (kept.v.sv) block = ovk__variant_take_block(&kept.v);
    drop(&kept);
    if (change) rc = use(c, &w->inner, spec, block); /* the block is the choice's */
    else free(block);
    if (rc) return rc;
    return report(c, w);
}

int ovk__auto_setup(ovk__ctx *c, ovk__variant *v)
{
    if (v->sv != &ovk__solver_auto) return OVK_OK;
    return measure(c, v->work, 1); /* a fresh work struct: warm = 0, solves = 0 */
}

/* Collective: measure again in this solve when asked (new values with
 * remeasure=1; the second solve of the values measured at setup with
 * warm=1), then r = b - A x again (the probe used r).  The decision is
 * taken from the same counters on every rank. */
static int again(ovk__ctx *c, auto_work *w, const auto_params *pp)
{
    int fresh = w->epoch != c->numeric_epoch;
    int redo = fresh ? pp->remeasure != 0 : pp->warm && !w->warm && w->solves == 1;
    if (!redo) return OVK_OK;
    w->warm = !fresh;
    int rc = measure(c, w, 0);
    if (rc) return rc;
    return ovk__ctx_start_residual(c, w->r); /* the probe used r */
}

static int auto_iterate(ovk__ctx *c, void *work, double bb)
{
    const auto_params *pp = c->params;
    auto_work *w = work;
    void *saved = NULL;
    int decided = 0, rc = again(c, w, pp);
    const ovk__variant *in = &w->inner.v;
    if (!rc && c->initial_pending && !in->sv->defers_initial) /* the choice sums no <b,b>: now */
        rc = ovk__initial_check(c, w->r, &bb, &decided);
    if (!rc && !decided && in->sv->needs_norm && !c->norm_ok)
        rc = c->norm(c); /* pipecg's replacement bounds use ||A||: taken once per values, when chosen */
    if (rc || decided) return rc;
    snprintf(c->res->auto_choice, sizeof c->res->auto_choice, "%s", w->inner.spec);
    c->res->auto_latency_us = w->latency_us;
    c->res->auto_work_us = w->work_us;
    if (c->n > 0) memcpy(in->r, w->r, sizeof(double) * (size_t)c->n); /* r = b - A x */
    with_params(c, w->inner.params, &saved);
    rc = in->sv->iterate(c, in->work, bb);
    c->params = saved;
    w->solves++;
    if (rc || strncmp(w->inner.spec, "plcg", 4) || c->res->restarts == 0) return rc;
    w->broke = 1;
    return use(c, &w->inner, "pipeprcg", NULL); /* plcg broke down here (a reduced count): pipeprcg from now on */
}

static int auto_parse(ovk__opts *o, void **params)
{
    auto_params *p = calloc(1, sizeof *p);
    *params = p;
    if (!p) return ovk__fail(OVK_ENOMEM, "auto");
    p->maxl = DEFAULT_DEPTH;
    p->warm = 1;
    const ovk__opt_entry t[] = {
        OVK__OPT_INT("remeasure", 0, 1, &p->remeasure),
        OVK__OPT_INT("maxl", 1, MAX_DEPTH, &p->maxl),
        OVK__OPT_INT("warm", 0, 1, &p->warm),
    };
    return ovk__opts_read(o, "auto", t, (int)(sizeof t / sizeof t[0]));
}

static void auto_destroy(void *work) { drop(&((auto_work *)work)->inner); }

/* the choice, its figures, and the chosen variant's own view */
static void auto_view(const void *work, FILE *f)
{
    const auto_work *w = work;
    choice_line(w, "  ", f);
    const ovk__variant *in = &w->inner.v;
    if (in->sv && in->sv->view) in->sv->view(in->work, f);
}

#define V(f) offsetof(auto_work, f)
const ovk__solver ovk__solver_auto = {
    .name = "auto",
    .description = "measures the reduction latency and the local work at setup and picks alg1, pipecg or "
                   "plcg:l=k (pipeprcg after a breakdown of plcg)",
    .options = "remeasure=0|1: measure again after new matrix values (0); warm=0|1: measure again, warm, in the "
               "second solve of the same values (1); maxl=1..8: deepest plcg (4)",
    .parse = auto_parse,
    .work_size = sizeof(auto_work),
    .nvec = 1,
    .vec = (const size_t[]){V(r)},
    .iterate = auto_iterate,
    .defers_initial = 1, /* to the chosen variant when it takes it (plcg) */
    .destroy = auto_destroy,
    .view = auto_view,
};
