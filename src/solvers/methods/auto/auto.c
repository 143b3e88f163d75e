/* The solver auto (spec auto[:remeasure=0|1,warm=0|1,maxl=1..8,sstep=0|1]): after the
 * setup it measures the latency of one reduction of the solver's backend
 * and the local work of one alg1 iteration, agrees on them, and sets up the
 * candidate its model (auto_model.c) finds fastest; its solves run that
 * variant (ovk__variant_delegate).
 *
 * At setup the latency is the setup's matrix-norm sum's (through the
 * reducer); a cold alg1 iteration's vector steps run first and choose alg1
 * (gmres) alone where they leave nothing to hide; else the local work is
 * that cold iteration's, the fastest of
 * three more where that does not settle alg1, or of the exposure probe's
 * own iterations where the backend's caps leave what it hides open
 * (native).  A later measurement costs about one reduction: one sum is
 * started and local alg1 iterations run while it is in flight, the sum
 * tested between their phases (probe).  The work agreed is the largest over the ranks, the
 * latency the smallest (the ranks that came early to the sum waited for the
 * last one).  Where the model puts pipecg and the best plcg close, their
 * own vector steps are timed (refine).  After a breakdown of plcg the later
 * solves use pipeprcg.  The second solve of the values measured at setup
 * measures again, warm (warm=0: not), and remeasure=1 measures again after
 * new matrix values.  On a matrix whose values the symmetry check finds
 * nonsymmetric the same figures choose between gmres and pgmres:l=k
 * (auto_model.c); values that change kind are measured again.  The choice
 * and its figures go to the result and, at print_level >= 1, to rank 0's
 * output.  A declared null space goes to the choice (every symmetric one
 * takes it); on nonsymmetric values it is refused.
 *
 * The s-step variants (scg, sgmres) are candidates unless sstep=0, the
 * tolerance is below SSTEP_RTOL (tighter than their bases' accuracy
 * reliably reaches), or their safeguard acted in a solve of these values
 * (the Gram matrix of a block not positive definite, a stall, a cycle
 * undone: the problem is too ill-conditioned for the block) or plcg broke
 * down on them (its basis lost its accuracy: a block's would; and after
 * scg's safeguard plcg's would, pipeprcg stands for it); the last two
 * are checked at every solve, and the choice is made again from the same
 * figures without them.  The view says why they were left out.  With
 * condest=1 scg is no candidate (it records no CG coefficients), and on
 * nonsymmetric values, where no candidate records them, condest=1 is
 * refused. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "auto.h"
#include "../../solver.h"

/* warm blocking sums that time the latency where the probe cannot */
enum { PRECISE = 2 };
/* timed local iterations after the warming one, the fastest counting (one
 * descheduled iteration on a loaded host measured 50 ms of work for 50 us):
 * six at setup, so that a latency of up to about 6 W ends behind them and
 * gives the exposed fraction with no probe of its own; three in a later
 * solve */
enum { SETUP_REPS = 6, WARM_REPS = 3 };
/* timed local iterations after the cold one where the setup's sum gave the
 * latency (the fewest the exposure probe runs where it times them) */
enum { LOCAL_REPS = 3 };
/* the most iterations a probe runs behind its sum (exposure_probe sizes
 * them to the latency known from the setup's sum) */
enum { PROBE_MAX_REPS = 256 };
/* timed vector steps of each candidate refine compares at setup */
enum { STEP_REPS = 2 };
/* rows between the probe's tests of its sum in the warming iteration */
enum { PROBE_POLL_ROWS = 1024 };
/* a tolerance below this leaves the s-step variants out: scg's attainable
 * accuracy is up to one digit short of alg1's, sgmres's Newton basis loses
 * digits with s (docs/solvers.md, auto) */
static const double SSTEP_RTOL = 1e-10;

/* why the s-step variants are not candidates */
enum { SSTEP_ON, SSTEP_KEY, SSTEP_RTOL_OFF, SSTEP_GUARD, SSTEP_CONDEST };

typedef struct auto_params {
    long remeasure, maxl, warm, sstep;
} auto_params;

/* A candidate set up: the instance, its parsed options, what it is */
typedef struct chosen_variant {
    ovk__variant v;
    void *params;
    ovk__auto_choice choice;
    char spec[32];
} chosen_variant;

typedef struct auto_work {
    double *r;                 /* the frame's residual */
    chosen_variant inner;      /* the choice, set up */
    double latency_us, work_us;
    unsigned epoch;            /* c->norms.epoch of the measurement */
    int solves;                /* solves since the measurement */
    int warm;                  /* the measurement was taken in a solve, not at setup */
    int broke;                 /* plcg broke down (or scg's safeguard acted) on these values: pipeprcg stands for plcg */
    int nonsymmetric;          /* the choice is for nonsymmetric values */
    int sstep_broke;           /* an s-step choice's safeguard acted on the values of sstep_epoch */
    unsigned sstep_epoch;
    int sstep_off;             /* SSTEP_*: why the last choice left them out */
    ovk__auto_figures fig;     /* the figures of the last choice */
    ovk__auto_choice runner;   /* the model's runner-up to it */
    double t_choice, t_runner; /* their modelled times per iteration, seconds */
} auto_work;

/* Local: cv's instance and options freed (cv may be empty) */
static void drop(chosen_variant *cv)
{
    ovk__variant_free(&cv->v);
    free(cv->params);
    cv->params = NULL;
    cv->spec[0] = '\0';
}

/* Local: the registry's variant of spec and its parsed options */
static int parse_spec(const char *spec, void **params, const ovk__solver **sv)
{
    char name[32];
    ovk__opts o;
    int rc = ovk__spec_parse("solver", OVK_EINVAL, spec, name, sizeof name, &o);
    if (rc) return rc;
    *sv = ovk__solver_find(name);
    if (!*sv) return ovk__fail(OVK_EINVAL, "auto: no solver %s", name);
    return (*sv)->ops->parse ? (*sv)->ops->parse(&o, params) : OVK_OK;
}

/* The first failure of rc and rc2 */
static int first(int rc, int rc2) { return rc ? rc : rc2; }

/* the probe's vectors (probe_vecs) */
enum { PROBE_VECS = 4 };

/* Collective: choice set up in cv in place of what it held, its vectors in
 * block (the probe's, its pages already faulted in) or, with NULL or where
 * the choice needs more than twice its vectors (gmres: about 35), a new
 * block (zero pages from the kernel at first touch, where growing the
 * probe's would write zeros over all of it: 1.3 MB at 4,096 rows); on
 * failure block is freed and cv empty. */
static int use(ovk__ctx *c, chosen_variant *cv, ovk__auto_choice choice, double *block)
{
    const ovk__solver *sv = NULL;
    char spec[32];
    ovk__auto_spec(choice, spec, sizeof spec);
    drop(cv);
    int rc = ovk__agree(c->comm, parse_spec(spec, &cv->params, &sv));
    if (rc) {
        free(block);
        drop(cv);
        return rc;
    }
    if (block && (sv->ops->vectors ? sv->ops->vectors(cv->params, NULL) : sv->ops->nvec) > 2 * PROBE_VECS) {
        free(block);
        block = NULL;
    }
    void *saved = c->params;
    c->params = cv->params;
    rc = ovk__variant_setup_on(c, sv, &cv->v, block);
    c->params = saved;
    if (rc) {
        drop(cv);
        return rc;
    }
    cv->choice = choice;
    snprintf(cv->spec, sizeof cv->spec, "%s", spec);
    return OVK_OK;
}

/* The probe's sum in flight: it ended between the last test that saw it
 * pending and the first that saw it done (seconds from its start) */
typedef struct probe_sum {
    ovk_request *req;
    double t0, pending_at, done_at, spent; /* spent: in its start and the tests that saw it pending */
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

/* The probe's vectors, in a block the choice takes over (use) */
typedef struct probe_vecs {
    double *block, *p, *s, *z, *x;
} probe_vecs;

/* Local: the probe's vectors laid out in block (NULL: allocation failed) */
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

/* alg1's vector steps and (with pc) its preconditioner, no matvec: <p,s>,
 * x += a p, r -= a s, z = C r, <r,z>, p = z + b p, the sum tested between
 * the phases; *vec: their seconds less C's. */
static int vector_steps(ovk__ctx *c, const probe_vecs *pv, double *r, int pc, probe_sum *ps, double *vec,
                        double *sink)
{
    double t0 = ovk__now();
    double a = 1e-3 / (1.0 + fabs(ovk__dot(c->n, pv->p, pv->s)));
    ovk__ctx_axpy(c, a, pv->p, pv->x);
    ovk__ctx_axpy(c, -a, pv->s, r);
    *vec = ovk__now() - t0;
    int rc = pc ? ovk__ctx_pc(c, r, pv->z) : OVK_OK;
    poll(ps);
    t0 = ovk__now();
    double s0 = ps->spent;
    *sink += ovk__dot(c->n, r, pv->z);
    ovk__xpay(c->n, pv->z, 0.5, pv->p, &c->hook);
    *vec += ovk__now() - t0 - (ps->spent - s0);
    poll(ps);
    return rc;
}

/* One iteration of alg1's local work: s = A p, then vector_steps; *vec
 * and *matvec are the seconds of the vector part and the matvec. */
static int local_iteration(ovk__ctx *c, const probe_vecs *pv, double *r, probe_sum *ps, double *vec,
                           double *matvec, double *sink)
{
    double t0 = ovk__now(), s0 = ps->spent;
    int rc = ovk__ctx_matvec(c, pv->p, pv->s);
    *matvec = ovk__now() - t0 - (ps->spent - s0);
    poll(ps);
    return first(rc, vector_steps(c, pv, r, 1, ps, vec, sink)); /* every step runs: the matvecs of the others need
                                                                  this rank's halo */
}

/* Collective: the largest of v[0..k) over the ranks, in place */
static int agree_max(ovk__ctx *c, double *v, int k)
{
    return ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, v, k, MPI_DOUBLE, MPI_MAX, c->comm), "MPI_Allreduce (auto's figures)");
}

/* Collective: the largest work over the ranks (the slowest sets the pace),
 * the smallest latency and exposed fraction (the early ranks' times include
 * their wait; NaN where a rank has none), noisy where a rank is */
static int agree_figures(ovk__ctx *c, ovk__auto_figures *f)
{
    int none = isnan(f->exposed);
    double v[8] = {-f->latency, -f->latency_low, f->work, f->vec, f->matvec, none ? -1.0 : -f->exposed, none, f->noisy};
    int rc = agree_max(c, v, 8);
    f->latency = -v[0];
    f->latency_low = -v[1];
    f->work = v[2];
    f->vec = v[3];
    f->matvec = v[4];
    f->exposed = v[6] > 0.0 ? NAN : -v[5];
    f->noisy = v[7] > 0.0;
    return rc;
}

/* Collective: the latency from the fastest of PRECISE blocking sums, the
 * smallest over the ranks (the status is not agreed) */
static int timed_latency(ovk__ctx *c, double *lat)
{
    int rc = OVK_OK;
    double fastest = INFINITY;
    for (int k = 0; k < PRECISE; k++) {
        double v = 1.0, t0 = ovk__now();
        rc = first(rc, ovk__sum(c, OVK__GAMMA, &v, 1));
        double dt = ovk__now() - t0;
        if (dt < fastest) fastest = dt;
    }
    if (rc) rc = ovk__fail(rc, "auto: the latency probe's timed sums failed: %s", ovk_error_detail());
    double neg = -fastest;
    rc = first(rc, agree_max(c, &neg, 1));
    *lat = -neg;
    return rc;
}

/* Collective, after the warming iteration (its cold times w, v, mv): where
 * its sum was done within it on every rank, the latency is timed at once
 * (*timed: two sums, each under an iteration; the sum's own interval holds
 * the ranks' skew); if that leaves nothing to hide, alg1 is chosen (*alg1,
 * the cold figures agreed in f). */
static int early(ovk__ctx *c, probe_sum *ps, double w, double v, double mv, ovk__auto_figures *f, int *timed,
                 int *alg1)
{
    double e[5] = {ps->done ? ps->done_at : INFINITY, -ps->pending_at, w, v, mv}; /* the interval's ends, the times */
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, e, 5, MPI_DOUBLE, MPI_MAX, c->comm), "MPI_Allreduce (auto's probe)");
    double vec = e[3];
    if (rc || !(e[0] <= e[2])) return rc;
    if (ps->req) ps->rc = first(ps->rc, ovk__sum_end(c, OVK__GAMMA, ps->req));
    ps->req = NULL;
    rc = timed_latency(c, &f->latency);
    f->latency_low = f->latency;
    *timed = 1;
    if (!ovk__auto_nothing_to_hide(f->latency, vec, 1)) return rc;
    f->work = e[2];
    f->vec = vec;
    f->matvec = e[4];
    *alg1 = 1;
    return rc;
}

/* the iterations' times spread by more than this over their fastest: noisy */
static const double NOISY_SPREAD = 0.25;

/* Local: the median of v[0..n), sorted in place */
static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Local: the probe's vectors' values (their first touches) */
static void probe_init(const ovk__ctx *c, const probe_vecs *pv, double *r)
{
    for (int i = 0; i < c->n; i++) {
        pv->p[i] = 1.0 + (double)(i % 7) / 7.0;
        r[i] = 1.0;
        pv->x[i] = 0.0;
        pv->s[i] = pv->z[i] = 0.0;
    }
}

/* Collective, after a warm probe's first reps iterations (work: their
 * fastest on this rank): where its sum is pending on a rank, *total grows
 * by the iterations that bring the local work since its start to until
 * seconds, by the fastest iteration over the ranks (at least one; at most
 * PROBE_MAX_REPS in all).  This agreement's time counts as the sum's own
 * (host time it held while in flight). */
static int extend(ovk__ctx *c, probe_sum *ps, double until, double work, int *total)
{
    double t1 = ovk__now(), v[3] = {!ps->done, work, t1 - ps->t0};
    int rc = agree_max(c, v, 3);
    if (!ps->done) ps->spent += ovk__now() - t1;
    if (!rc && v[0] > 0.0 && v[1] > 0.0 && isfinite(v[1]))
        *total += (int)fmin(fmax(ceil((until - v[2]) / v[1]), 1.0), PROBE_MAX_REPS - *total);
    return rc;
}

/* Collective: the figures at the cost of about one reduction or reps + 1
 * local iterations, whichever is longer: one sum started, the iterations
 * run behind it (the first warms the caches; the fastest of the others
 * counts, noisy where their median is more than NOISY_SPREAD slower).
 * With until > 0 the caches are warm already: no warming iteration, and
 * where the sum outlasts the reps iterations on a rank, more run (extend).
 * Still in flight after them, its time to the wait's end is the latency;
 * done earlier, the tests bracket it, and the host time its start and
 * tests took over its time in flight is the exposed fraction (the tests
 * poll it as the solvers' progress hook does).  Every rank runs every step
 * whatever failed: the others' halos and sums need this rank. */
static int probe(ovk__ctx *c, const probe_vecs *pv, double *r, int reps, double until, ovk__auto_figures *f,
                 int *alg1)
{
    double v = 1.0, sink = 0.0;
    probe_init(c, pv, r); /* before the sum, outside its interval */
    probe_sum ps = {.t0 = ovk__now()};
    ps.rc = ovk__sum_begin(c, OVK__GAMMA, &v, 1, &ps.req);
    ps.done = ps.rc != OVK_OK;
    ps.spent = ovk__now() - ps.t0;
    int rc = OVK_OK, timed = 0, n = 0;
    double w[PROBE_MAX_REPS];
    f->work = f->vec = f->matvec = INFINITY;
    probe_hook ph = {c->hook, &ps};
    int total = reps;
    for (int k = until > 0.0 ? 0 : -1; k < total && !*alg1; k++) {
        double vk = 0.0, mk = 0.0, ts = ovk__now(), s0 = ps.spent;
        if (!ps.done) c->hook = (ovk__hook){probe_poke, &ph, PROBE_POLL_ROWS};
        rc = first(rc, local_iteration(c, pv, r, &ps, &vk, &mk, &sink));
        c->hook = ph.inner;
        double te = ovk__now() - (ps.spent - s0);
        if (k < 0) rc = first(rc, early(c, &ps, te - ts, vk, mk, f, &timed, alg1));
        if (k >= 0) w[n++] = te - ts;
        if (k >= 0 && te - ts < f->work) {
            f->work = te - ts;
            f->vec = vk;
            f->matvec = mk;
        }
        if (until > 0.0 && k == reps - 1) rc = first(rc, extend(c, &ps, until, f->work, &total));
    }
    int pending = !ps.done;
    /* ended within the iterations: the host time it took over its time in flight (the solvers' tests, as theirs) */
    f->exposed = pending || !(ps.done_at > 0.0) ? NAN : fmin(1.0, ps.spent / ps.done_at);
    f->noisy = n > 1 && median(w, n) > (1.0 + NOISY_SPREAD) * f->work;
    if (*alg1) f->exposed = NAN, f->noisy = 0; /* settled early: not agreed, not needed */
    if (ps.req) ps.rc = first(ps.rc, ovk__sum_end(c, OVK__GAMMA, ps.req));
    if (!timed) {
        f->latency = pending ? ovk__now() - ps.t0 : ps.done_at;
        f->latency_low = pending ? f->latency : ps.pending_at;
    }
    volatile double keep = sink; /* the dots are timed, their values not used */
    (void)keep;
    if (ps.rc) return ovk__fail(ps.rc, "auto: the latency probe failed: %s", ovk_error_detail());
    if (!rc && c->cb.failed) rc = ovk__fail(OVK_ECALLBACK, "auto: %s (measuring the local work)", c->cb.detail);
    return rc;
}

/* timed warm passes of the vector steps where the cold one leaves the
 * choice open (the fastest counts) */
enum { WARM_VEC_REPS = 2 };

/* Collective: the largest over the ranks of the fastest of WARM_VEC_REPS
 * passes of the vector steps (the cold pass warmed their vectors) */
static int warm_vector_steps(ovk__ctx *c, const probe_vecs *pv, double *r, double *sink, double *vec)
{
    probe_sum none = {.done = 1};
    int rc = OVK_OK;
    *vec = INFINITY;
    for (int k = 0; k < WARM_VEC_REPS; k++) {
        double vk = 0.0;
        rc = first(rc, vector_steps(c, pv, r, 0, &none, &vk, sink));
        *vec = fmin(*vec, vk);
    }
    return first(rc, agree_max(c, vec, 1));
}

/* Collective: the cold figures where the latency is ls, this setup's
 * blocking sum's (agreed): one local iteration, which warms the caches,
 * its vector steps first (without C), and no sum of auto's but, where ls
 * is below its work, two timed sums that refine ls (the setup's was the
 * first, cold).  Where the vector steps alone leave nothing to hide, cold
 * or timed again warm (the latency they decide by is ls or, where ls is
 * below them, the timed one), alg1 (gmres) is chosen without C and the
 * matvec: f's work and matvec NaN (not timed), the first matvec and its
 * halo exchange the choice's.  Else, after C and the matvec, alg1 where
 * the model's choice at these figures and at their warm lower bound is
 * alg1 (warm iterations would not change it).  f's figures are agreed: the
 * slowest rank's work sets the pace. */
static int cold_figures(ovk__ctx *c, const probe_vecs *pv, double *r, double ls, int first_solve,
                        ovk__auto_figures *f, int *alg1)
{
    const auto_params *pp = c->params;
    double sink = 0.0, vk = 0.0, timed = INFINITY, warm = INFINITY;
    probe_sum none = {.done = 1}; /* no sum */
    probe_init(c, pv, r);
    double ts = ovk__now();
    int rc = vector_steps(c, pv, r, 0, &none, &vk, &sink);
    double steps = ovk__now() - ts, e[3] = {vk, steps, 0.0};
    rc = first(rc, agree_max(c, e, 2));
    if (!ovk__auto_nothing_to_hide(ls, e[0], 1) && ls < e[1]) /* now or after the matvec: ls is below W */
        rc = first(rc, timed_latency(c, &timed));
    f->latency = f->latency_low = fmin(ls, timed);
    f->vec = e[0];
    *alg1 = ovk__auto_nothing_to_hide(f->latency, f->vec, 1);
    /* within the cold bound's reach: the warm steps decide (a few us; the matvec and warm iterations, ~10x that) */
    if (!*alg1 && !ovk__auto_nothing_to_hide(f->latency, f->vec, 0)) {
        rc = first(rc, warm_vector_steps(c, pv, r, &sink, &warm));
        *alg1 = ovk__auto_nothing_to_hide(f->latency, warm, 0);
        if (*alg1) f->vec = warm, f->vec_warm = 1;
    }
    if (*alg1) {
        f->work = f->matvec = NAN;
    } else {
        ts = ovk__now();
        rc = first(rc, ovk__ctx_pc(c, r, pv->z)); /* z = C r, the iteration's */
        double tm = ovk__now();
        rc = first(rc, ovk__ctx_matvec(c, pv->p, pv->s)); /* s = A p */
        e[2] = ovk__now() - tm;
        e[1] = steps + (ovk__now() - ts); /* W */
        rc = first(rc, agree_max(c, e + 1, 2));
        if (ls < e[1] && isinf(timed)) rc = first(rc, timed_latency(c, &timed));
        f->latency = f->latency_low = fmin(ls, timed);
        f->work = e[1], f->matvec = e[2];
        *alg1 = ovk__auto_nothing_to_hide(f->latency, f->vec, 1) ||
                ovk__auto_cold_settles(f, pp->maxl, first_solve, c->sym.values);
    }
    volatile double keep = sink;
    (void)keep;
    if (!rc && c->cb.failed) rc = ovk__fail(OVK_ECALLBACK, "auto: %s (measuring the local work)", c->cb.detail);
    return rc;
}

/* Local, after cold_figures: the fastest of LOCAL_REPS local iterations is
 * the work (not agreed), noisy where their median is more than
 * NOISY_SPREAD slower */
static int warm_figures(ovk__ctx *c, const probe_vecs *pv, double *r, ovk__auto_figures *f)
{
    double sink = 0.0, w[LOCAL_REPS];
    probe_sum none = {.done = 1};
    int rc = OVK_OK;
    f->work = f->vec = f->matvec = INFINITY;
    for (int k = 0; k < LOCAL_REPS; k++) {
        double vk = 0.0, mk = 0.0, ts = ovk__now();
        rc = first(rc, local_iteration(c, pv, r, &none, &vk, &mk, &sink));
        w[k] = ovk__now() - ts;
        if (w[k] < f->work) f->work = w[k], f->vec = vk, f->matvec = mk;
    }
    f->noisy = median(w, LOCAL_REPS) > (1.0 + NOISY_SPREAD) * f->work;
    volatile double keep = sink;
    (void)keep;
    if (!rc && c->cb.failed) rc = ovk__fail(OVK_ECALLBACK, "auto: %s (measuring the local work)", c->cb.detail);
    return rc;
}

/* What the backend hides.  Its caps settle it where they can: a backend
 * that cannot overlap (its start waits L out) hides none of a reduction;
 * one that progresses on its own or runs its own schedule at each test
 * (the solvers test as they compute) hides all of it.  Else (native: the
 * MPI's progress) it is measured: by the latency probe where its sum ended
 * within its iterations on every rank, else by OVERLAP_PROBES overlap
 * probes, each a sum posted before ceil(L / W) local alg1 iterations (at
 * most OVERLAP_ITERS; the solver's own progress hook, no test of ours) and
 * waited for after them: the time the sum held the host (its start and its
 * wait, less the wait that L leaves after work shorter than it) over L,
 * bounded to [0, 1]; the median of the probes, the smallest over the ranks
 * (as the latency: an early rank's wait includes the others' lateness),
 * noisy where a rank's probes spread by more than NOISY_SPREAD.  Not measured (NaN: taken as
 * hidden) where L is below half an iteration's work (pipelining gains
 * little there) and where the model chooses the same whether the backend
 * hides all or nothing; not measured and taken as none hidden where a
 * probe would cost more than the choice could gain. */
enum { OVERLAP_PROBES = 3, OVERLAP_ITERS = 8 };

/* Local: the choice this measurement makes (for a first solve or not) is
 * the same with all of a reduction hidden and with none (the same figures
 * on every rank: the same answer).  Only that choice counts: a later solve
 * keeps it or measures again (warm, remeasure). */
static int moot(const ovk__ctx *c, const ovk__auto_figures *f, int first)
{
    const auto_params *pp = c->params;
    ovk__auto_figures hid = *f, shown = *f;
    hid.exposed = 0.0;
    shown.exposed = 1.0;
    if (c->sym.values)
        return ovk__auto_same(ovk__auto_best_nonsymmetric(&hid, pp->maxl, first),
                              ovk__auto_best_nonsymmetric(&shown, pp->maxl, first));
    return ovk__auto_same(ovk__auto_best(&hid, pp->maxl, first), ovk__auto_best(&shown, pp->maxl, first));
}

/* the exposure probe's local work, in latencies: its sum ends within it */
#define PROBE_SPAN 1.15

/* Local: the overlap probes would decide nothing at f's figures: the
 * latency is below half an iteration's work (pipelining gains little
 * there), the choice does not depend on the overlap, or the exposure
 * probe (PROBE_SPAN L) would cost more than it could save (*why says
 * which) */
static int probes_needless(const ovk__ctx *c, const ovk__auto_figures *f, int first, int *why)
{
    const auto_params *pp = c->params;
    *why = OVK__AUTO_PROBE_SHORT;
    if (!(f->latency >= 0.5 * f->work) || !isfinite(f->latency)) return 1;
    *why = OVK__AUTO_PROBE_MOOT;
    if (moot(c, f, first)) return 1;
    *why = OVK__AUTO_PROBE_DEAR;
    return !ovk__auto_probe_pays(f, pp->maxl, first, c->sym.values, PROBE_SPAN * f->latency);
}

/* Local: the exposed fraction the backend's caps settle (NaN: they do not) */
static double exposed_by_caps(const ovk__ctx *c)
{
    unsigned caps = ovk_reducer_caps(c->red);
    if (!(caps & OVK_CAP_NONBLOCKING)) return 1.0;
    return caps & (OVK_CAP_ASYNC | OVK_CAP_SCHEDULED) ? 0.0 : NAN;
}

/* Collective: f->exposed (the latency probe's, agreed, on entry) */
static int overlap_probes(ovk__ctx *c, const probe_vecs *pv, double *r, int first_solve, ovk__auto_figures *f)
{
    double seen = f->exposed, L = f->latency, e[OVERLAP_PROBES], sink = 0.0, vk, mk;
    f->exposed = exposed_by_caps(c);
    f->unprobed = OVK__AUTO_PROBE_CAPS;
    if (!isnan(f->exposed)) return OVK_OK;
    if (probes_needless(c, f, first_solve, &f->unprobed)) {
        if (f->unprobed == OVK__AUTO_PROBE_DEAR) f->exposed = 1.0; /* the choice that holds whatever it hides */
        return OVK_OK;
    }
    f->unprobed = OVK__AUTO_PROBED;
    f->exposed = seen;
    if (!isnan(seen)) return OVK_OK;
    int rc = OVK_OK, iters = (int)fmin(ceil(L / f->work), OVERLAP_ITERS);
    double t[OVERLAP_PROBES][4], shortest = INFINITY;
    probe_sum none = {.done = 1}; /* no test of ours */
    for (int k = 0; k < OVERLAP_PROBES; k++) {
        double v = 1.0, t0 = ovk__now();
        ovk_request *req = NULL;
        int rs = ovk__sum_begin(c, OVK__GAMMA, &v, 1, &req);
        double t1 = ovk__now();
        for (int i = 0; i < iters; i++) rc = first(rc, local_iteration(c, pv, r, &none, &vk, &mk, &sink));
        double t2 = ovk__now();
        if (req) rs = first(rs, ovk__sum_end(c, OVK__GAMMA, req));
        double t3 = ovk__now();
        t[k][0] = t0, t[k][1] = t1, t[k][2] = t2, t[k][3] = t3;
        shortest = fmin(shortest, t3 - t0);
        if (rs) rc = first(rc, ovk__fail(rs, "auto: an overlap probe's sum failed: %s", ovk_error_detail()));
    }
    L = fmin(L, shortest); /* a sum lasts no longer than its probe: the latency probe's L was a wait for a
                              descheduled rank where it is longer (8.9 ms for 1 ms) */
    for (int k = 0; k < OVERLAP_PROBES; k++) {
        double left = fmax(0.0, L - (t[k][2] - t[k][0])); /* the wait no overlap could avoid */
        e[k] = fmin(1.0, fmax(0.0, ((t[k][1] - t[k][0]) + fmax(0.0, t[k][3] - t[k][2] - left)) / L));
    }
    volatile double keep = sink;
    (void)keep;
    double g[3] = {-median(e, OVERLAP_PROBES), 0.0, -L};
    g[1] = e[OVERLAP_PROBES - 1] - e[0] > NOISY_SPREAD; /* sorted by median() */
    rc = first(rc, agree_max(c, g, 3));
    f->exposed = -g[0];
    f->noisy = f->noisy || g[1] > 0.0;
    f->latency = f->latency_low = fmin(f->latency, -g[2]); /* the better figure for the model too */
    if (!rc && c->cb.failed) rc = ovk__fail(OVK_ECALLBACK, "auto: %s (the overlap probes)", c->cb.detail);
    return rc;
}

/* Collective: candidate ch set up in cd on *block, the fastest of reps of
 * its vector step in *u (seconds).  With keep cd stays set up; else the
 * block comes back in *block.  After a failure the block is freed (*block
 * = NULL, cd empty).  x is scratch. */
static int time_step(ovk__ctx *c, ovk__auto_choice ch, double **block, double *x, int reps, int keep,
                     chosen_variant *cd, double *u)
{
    int rc = use(c, cd, ch, *block);
    *block = NULL;
    if (rc) return rc;
    const ovk__solver *sv = cd->v.sv;
    void *saved = c->params;
    c->params = cd->params;
    *u = INFINITY;
    for (int i = 0; !rc && i < reps; i++) { /* local: no rank waits for another */
        double t0 = ovk__now();
        rc = sv->ops->vector_step ? sv->ops->vector_step(c, cd->v.work, x)
                             : ovk__fail(OVK_EINVAL, "auto: %s has no vector step", cd->spec);
        *u = fmin(*u, ovk__now() - t0);
    }
    if (!rc && c->cb.failed) rc = ovk__fail(OVK_ECALLBACK, "auto: %s (timing %s)", c->cb.detail, cd->spec);
    c->cb.failed = 0;
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

/* Collective: the model's choice; where it puts pipecg and the best plcg
 * close, their vector steps timed on the probe's block decide (the last
 * one stays set up in *kept). */
static int refine(ovk__ctx *c, double **block, double *x, int first, const ovk__auto_figures *f,
                  ovk__auto_choice *choice, chosen_variant *kept)
{
    const auto_params *pp = c->params;
    ovk__auto_choice cand[2];
    double u[2];
    int n = ovk__auto_candidates(f, pp->maxl, first, cand), rc = OVK_OK;
    if (n == 0) {
        *choice = ovk__auto_best(f, pp->maxl, first);
        return OVK_OK;
    }
    for (int i = 0; i < n && !rc; i++)
        rc = time_step(c, cand[i], block, x, first ? STEP_REPS : WARM_REPS, i == n - 1, kept, &u[i]);
    if (!rc) rc = ovk__agree(c->comm, agree_max(c, u, n)); /* the slowest rank's step sets the pace */
    if (rc) {
        drop(kept);
        return rc;
    }
    *choice = ovk__auto_best_timed(f, cand, u, n, first);
    return OVK_OK;
}

/* Local: the probe's interval [latency_low, latency] (not timed: its ends
 * differ) lies within an iteration's work, where the ranks' skew at the
 * probe's start (tens of us on a loaded host) outweighs the latency: its
 * ends cannot tell the blocking solver from a pipelined one, timed sums
 * (two, each about L) must */
static int skewed(const ovk__auto_figures *f) { return f->latency_low < f->work && f->latency_low != f->latency; }

/* Collective, for nonsymmetric values: the choice between gmres and
 * pgmres from figures agreed (nothing to hide: gmres); an interval whose
 * ends disagree or that the skew can fill is replaced by timed sums */
static int figures_nonsymmetric(ovk__ctx *c, int first, int nothing, ovk__auto_figures *f, ovk__auto_choice *choice)
{
    const auto_params *pp = c->params;
    *choice = (ovk__auto_choice){OVK__AUTO_GMRES, 0};
    if (nothing || (ovk__auto_settled_nonsymmetric(f, pp->maxl, first, choice) && !skewed(f))) return OVK_OK;
    double lat = INFINITY;
    int rc = ovk__agree(c->comm, timed_latency(c, &lat));
    if (rc) return rc;
    f->latency = f->latency_low = fmin(f->latency, lat);
    *choice = ovk__auto_best_nonsymmetric(f, pp->maxl, first);
    return OVK_OK;
}

/* Collective, after cold_figures (f agreed): where the caps leave what
 * the backend hides open and it decides the choice, the latency probe's
 * sum behind local iterations, PROBE_SPAN L of local work from its start
 * (the first ceil(PROBE_SPAN L / W), at least LOCAL_REPS, then extend's; at most
 * PROBE_MAX_REPS), measures it (f->exposed; NaN where the sum outlasted
 * them: the overlap probes then do); with cold (f's W the cold
 * iteration's) the fastest of its iterations is the work (agreed, noisy
 * where they spread) and no local iterations of their own time it; f's L
 * the smaller of the setup's and the probe's.  *probed: the probe ran. */
static int exposure_probe(ovk__ctx *c, const probe_vecs *pv, double *r, int first, int cold, ovk__auto_figures *f,
                          int *probed)
{
    int why, alg1 = 0;
    *probed = 0;
    if (!isnan(exposed_by_caps(c)) || probes_needless(c, f, first, &why)) return OVK_OK;
    *probed = 1;
    ovk__auto_figures g = *f;
    double until = PROBE_SPAN * f->latency; /* its sum ends within them */
    int reps = (int)fmin(fmax(ceil(until / f->work), LOCAL_REPS), PROBE_MAX_REPS);
    int rc = ovk__agree(c->comm, probe(c, pv, r, reps, until, &g, &alg1));
    if (!rc) rc = ovk__agree(c->comm, agree_figures(c, &g));
    f->exposed = g.exposed;
    f->noisy = f->noisy || g.noisy;
    if (cold) f->work = g.work, f->vec = g.vec, f->matvec = g.matvec;
    f->latency = f->latency_low = fmin(f->latency, g.latency); /* a sum lasts no longer than the probe's: the
                                                                  setup's may have waited for a descheduled rank */
    return rc;
}

/* Collective: at setup (first), the latency of the numeric setup's
 * blocking sum through the reducer (the smallest over the ranks: an early
 * rank's time includes its wait for the others), a sample auto pays no sum
 * for; else 0 (the probe measures it) */
static double setup_latency(ovk__ctx *c, int first)
{
    if (!first) return 0.0;
    double v[2] = {c->norms.sum_time > 0.0 ? -c->norms.sum_time : -INFINITY, !(c->norms.sum_time > 0.0)};
    if (agree_max(c, v, 2) || v[1] > 0.0) return 0.0;
    return -v[0];
}

/* Collective: the figures, agreed, and the choice.  alg1 settled by the
 * probe or the latency's interval is taken at once; an unsettled interval
 * is replaced by timed sums, a settled one by its midpoint; then refine. */
static int figures(ovk__ctx *c, double **block, double *r, int first, ovk__auto_figures *f,
                   ovk__auto_choice *choice, chosen_variant *kept)
{
    const auto_params *pp = c->params;
    probe_vecs pv = {0};
    int alg1 = 0, rc = ovk__agree(c->comm, probe_vectors(c, *block, &pv));
    double ls = setup_latency(c, first);
    int probed = 0; /* the figures' W from the exposure probe's iterations */
    if (!rc && ls > 0.0) {
        rc = ovk__agree(c->comm, cold_figures(c, &pv, r, ls, first, f, &alg1));
        c->cb.failed = 0;
        if (!rc && !alg1) rc = exposure_probe(c, &pv, r, first, 1, f, &probed);
        if (!rc && !alg1 && !probed) rc = ovk__agree(c->comm, warm_figures(c, &pv, r, f));
    } else if (!rc) {
        rc = ovk__agree(c->comm, probe(c, &pv, r, first ? SETUP_REPS : WARM_REPS, 0.0, f, &alg1));
    }
    c->cb.failed = 0; /* the failing rank's detail went everywhere */
    if (!rc && !alg1 && !probed) rc = ovk__agree(c->comm, agree_figures(c, f));
    if (!rc && !alg1 && ls > 0.0 && !probed) rc = exposure_probe(c, &pv, r, first, 0, f, &probed);
    if (!rc && !alg1) rc = ovk__agree(c->comm, overlap_probes(c, &pv, r, first, f));
    c->cb.failed = 0;
    if (rc) return rc;
    if (c->sym.values) return figures_nonsymmetric(c, first, alg1, f, choice);
    *choice = (ovk__auto_choice){OVK__AUTO_ALG1, 0};
    int settled = alg1 || (ovk__auto_settled(f, pp->maxl, first, choice) && !skewed(f));
    if (settled && choice->kind == OVK__AUTO_ALG1) return OVK_OK;
    if (!settled) {
        double lat = INFINITY;
        rc = ovk__agree(c->comm, timed_latency(c, &lat));
        if (rc) return rc;
        f->latency = f->latency_low = fmin(f->latency, lat);
    } else {
        f->latency = f->latency_low = 0.5 * (f->latency + f->latency_low);
    }
    return refine(c, block, r, first, f, choice, kept);
}

/* text built up to one write: a line-buffered stream (a terminal, the
 * pseudo-terminal mpiexec gives the ranks) writes at each newline, tens of
 * microseconds in the setup of a one-shot solve */
typedef struct text {
    char s[1024];
    size_t len;
} text;

static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->s + t->len, sizeof t->s - t->len, fmt, ap);
    va_end(ap);
    if (k > 0) t->len = fmin(t->len + (size_t)k, sizeof t->s - 1);
}

/* the choice and its figures, two lines in one write (print_level 1 and the view) */
static void choice_line(const auto_work *w, const char *indent, FILE *f)
{
    static const char *const why[] = {
        [SSTEP_ON] = "", [SSTEP_KEY] = "",
        [SSTEP_RTOL_OFF] = " (scg, sgmres left out: tolerance below 1e-10)",
        [SSTEP_GUARD] = " (scg, sgmres left out: a safeguard acted on these values)",
        [SSTEP_CONDEST] = " (scg left out: condest=1, which it does not record)",
    };
    text t = {.len = 0};
    if (isnan(w->work_us)) { /* settled by the vector steps (cold_figures) */
        add(&t, "%sauto: latency %.0f us, local work not timed -> %s%s\n", indent, w->latency_us, w->inner.spec,
            why[w->sstep_off]);
        add(&t, "%s  overlap: not measured; model: nothing to hide, 3 L = %.1f us below %s vector steps' %.1f us "
                "(the matvec not timed)\n", indent, 3e6 * w->fig.latency, w->fig.vec_warm ? "the warm" : "half the cold",
            1e6 * w->fig.vec);
        fputs(t.s, f);
        return;
    }
    add(&t, "%sauto: latency %.0f us, local work %.0f us per iteration%s -> %s%s\n", indent, w->latency_us,
        w->work_us, w->warm ? " (warm)" : "", w->inner.spec, why[w->sstep_off]);
    char runner[32];
    ovk__auto_spec(w->runner, runner, sizeof runner);
    if (isnan(w->fig.exposed))
        add(&t, "%s  overlap: not measured (%s: taken as hidden)", indent,
            w->fig.unprobed == OVK__AUTO_PROBE_MOOT ? "the model chooses the same whether it is hidden or not"
                                                    : "the latency below half an iteration's work");
    else if (w->fig.unprobed == OVK__AUTO_PROBE_DEAR)
        add(&t, "%s  overlap: not measured (a probe of %.0f us would cost more than the choice could gain: taken "
                "as none hidden)", indent, PROBE_SPAN * w->latency_us);
    else if (w->fig.unprobed == OVK__AUTO_PROBE_CAPS)
        add(&t, "%s  overlap: %.0f %% of a reduction hidden behind local work (%s)", indent,
            100.0 * (1.0 - w->fig.exposed),
            w->fig.exposed > 0.0 ? "the backend cannot overlap"
                                 : "the backend progresses on its own or at each of the solvers' tests");
    else
        add(&t, "%s  overlap: %.0f %% of a reduction hidden behind local work (measured)", indent,
            100.0 * (1.0 - w->fig.exposed));
    if (w->fig.noisy) add(&t, "; noisy: the local work's timings spread by more than 25 %%, the host is loaded");
    add(&t, "; model: %s %.1f us per iteration, runner-up %s %.1f us\n", w->inner.spec, 1e6 * w->t_choice, runner,
        1e6 * w->t_runner);
    fputs(t.s, f);
}

/* the model's figures for the choice in w->inner and its runner-up */
static void note_model(const ovk__ctx *c, auto_work *w, int first)
{
    const auto_params *pp = c->params;
    ovk__auto_runner_up(&w->fig, pp->maxl, first, w->nonsymmetric, w->inner.choice, &w->runner);
    w->t_choice = ovk__auto_modelled(&w->fig, first, w->nonsymmetric, w->inner.choice);
    w->t_runner = ovk__auto_modelled(&w->fig, first, w->nonsymmetric, w->runner);
}

/* Local: why the s-step variants are not candidates now (SSTEP_ON: they are) */
static int sstep_off(const ovk__ctx *c, const auto_work *w)
{
    const auto_params *pp = c->params;
    if (!pp->sstep) return SSTEP_KEY;
    if (c->opts->tol < SSTEP_RTOL) return SSTEP_RTOL_OFF;
    if (c->opts->condest) return SSTEP_CONDEST;
    if (w->sstep_broke && w->sstep_epoch == c->norms.epoch) return SSTEP_GUARD;
    if (w->broke && w->epoch == c->norms.epoch) return SSTEP_GUARD; /* plcg's basis lost its accuracy here */
    return SSTEP_ON;
}

static int report(const ovk__ctx *c, const auto_work *w)
{
    if (c->opts->print_level >= 1 && c->rank == 0) choice_line(w, "", c->opts->out ? c->opts->out : stdout);
    return OVK_OK;
}

/* condest=1 on nonsymmetric values (agreed, as the option is): every
 * candidate there (gmres, pgmres, sgmres) records no CG coefficients */
static int condest_refused(const ovk__ctx *c)
{
    char list[160];
    if (!c->opts->condest || !c->sym.values) return OVK_OK;
    ovk__solver_cap_names(list, sizeof list, OVK__CAP_CONDEST);
    return ovk__fail(OVK_EOPTION, "option condest=1: solver auto on a nonsymmetric matrix chooses gmres, pgmres or "
                                  "sgmres, which record no CG coefficients to estimate from; the solvers that do, on "
                                  "a symmetric matrix: %s", list);
}

/* Collective: measure, agree, choose and set up the choice (kept set up
 * when it is the variant already running: its start-up state stays), its
 * vectors in the probe's block. */
static int measure(ovk__ctx *c, auto_work *w, int first)
{
    ovk__auto_figures f = {.exposed = NAN, .unprobed = OVK__AUTO_PROBE_SHORT}; /* alg1 at once: no overlap probes */
    ovk__auto_choice choice;
    chosen_variant kept = {0};
    int rc = condest_refused(c);
    if (rc) return rc;
    w->sstep_off = sstep_off(c, w);
    f.sstep = w->sstep_off == SSTEP_ON;
    double *block = malloc(sizeof(double) * ovk__vec_stride(c->n) * PROBE_VECS);
    rc = figures(c, &block, w->r, first, &f, &choice, &kept);
    if (rc) {
        free(block);
        return rc;
    }
    w->latency_us = 1e6 * f.latency;
    w->work_us = 1e6 * f.work;
    w->fig = f;
    if (w->epoch != c->norms.epoch) w->broke = 0; /* new values: plcg may run again */
    w->epoch = c->norms.epoch;
    w->nonsymmetric = c->sym.values;
    w->solves = 0;
    if (w->broke && choice.kind == OVK__AUTO_PLCG) choice = (ovk__auto_choice){OVK__AUTO_PIPEPRCG, 0};
    int change = !w->inner.v.sv || !ovk__auto_same(choice, w->inner.choice);
    if (change && kept.v.sv && ovk__auto_same(choice, kept.choice)) { /* refine's last candidate */
        drop(&w->inner);
        w->inner = kept;
        note_model(c, w, first);
        return report(c, w);
    }
    if (kept.v.sv) block = ovk__variant_take_block(&kept.v);
    drop(&kept);
    if (change) rc = use(c, &w->inner, choice, block); /* the block is the choice's */
    else free(block);
    if (rc) return rc;
    note_model(c, w, first);
    return report(c, w);
}

static int auto_after_setup(ovk__ctx *c, void *work) { return measure(c, work, 1); }

/* Collective: measure again in this solve when asked (new values with
 * remeasure=1; the second solve after setup with warm=1) or needed (new
 * values of the other kind: symmetric or not), then r = b - A x again (the
 * probe used r). */
static int again(ovk__ctx *c, auto_work *w, const auto_params *pp)
{
    int fresh = w->epoch != c->norms.epoch;
    int redo = fresh ? pp->remeasure != 0 : pp->warm && !w->warm && w->solves == 1;
    redo = redo || w->nonsymmetric != c->sym.values;
    if (!redo) return OVK_OK;
    w->warm = !fresh;
    int rc = measure(c, w, 0);
    if (rc) return rc;
    return ovk__ctx_start_residual(c, w->r);
}

/* Collective: an s-step choice no longer allowed (the tolerance, or its
 * safeguard acted) replaced by the model's choice without them from the
 * same figures (a fresh variant: its first solve) */
static int sstep_again(ovk__ctx *c, auto_work *w)
{
    if (!ovk__auto_is_sstep(w->inner.choice)) return OVK_OK;
    int why = sstep_off(c, w);
    if (why == SSTEP_ON) return OVK_OK;
    const auto_params *pp = c->params;
    ovk__auto_figures f = w->fig;
    f.sstep = 0;
    ovk__auto_choice ch =
        w->nonsymmetric ? ovk__auto_best_nonsymmetric(&f, pp->maxl, 1) : ovk__auto_best(&f, pp->maxl, 1);
    if (w->broke && ch.kind == OVK__AUTO_PLCG) ch = (ovk__auto_choice){OVK__AUTO_PIPEPRCG, 0};
    w->sstep_off = why;
    int rc = use(c, &w->inner, ch, NULL);
    if (!rc) {
        w->fig.sstep = 0;
        note_model(c, w, 1);
        rc = report(c, w);
    }
    return rc;
}

static int auto_iterate(ovk__ctx *c, void *work, double bb)
{
    auto_work *w = work;
    int ran = 0, rc = again(c, w, c->params);
    if (!rc) rc = condest_refused(c); /* condest set after the setup */
    if (!rc) rc = sstep_again(c, w);
    if (rc) return rc;
    rc = ovk__variant_delegate(c, &w->inner.v, w->inner.params, w->r, bb, &ran);
    if (!ran) return rc;
    snprintf(c->res->auto_choice, sizeof c->res->auto_choice, "%s", w->inner.spec);
    c->res->auto_latency_us = w->latency_us;
    c->res->auto_work_us = w->work_us;
    w->solves++;
    if (ovk__auto_is_sstep(w->inner.choice) && c->res->restarts > 0) {
        w->sstep_broke = 1; /* the block was too ill-conditioned: no s-step on these values */
        w->sstep_epoch = c->norms.epoch;
        if (!w->nonsymmetric) w->broke = 1; /* nor plcg's deep basis: pipeprcg stands for it */
        int rc2 = sstep_again(c, w);
        return rc ? rc : rc2;
    }
    if (rc || w->inner.choice.kind != OVK__AUTO_PLCG || c->res->restarts == 0) return rc;
    w->broke = 1; /* a reduced count: pipeprcg from now on */
    return use(c, &w->inner, (ovk__auto_choice){OVK__AUTO_PIPEPRCG, 0}, NULL);
}

static int auto_parse(ovk__opts *o, void **params)
{
    auto_params *p = calloc(1, sizeof *p);
    *params = p;
    if (!p) return ovk__fail(OVK_ENOMEM, "auto");
    p->maxl = OVK__AUTO_DEFAULT_DEPTH;
    p->warm = 1;
    p->sstep = 1;
    const ovk__opt_entry t[] = {
        OVK__OPT_INT("remeasure", 0, 1, &p->remeasure),
        OVK__OPT_INT("maxl", 1, OVK__AUTO_MAX_DEPTH, &p->maxl),
        OVK__OPT_INT("warm", 0, 1, &p->warm),
        OVK__OPT_INT("sstep", 0, 1, &p->sstep),
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
    if (in->sv && in->sv->ops->view) in->sv->ops->view(in->work, f);
}

static const char *auto_chosen(const void *work, const ovk__solver **sv)
{
    const auto_work *w = work;
    *sv = w->inner.v.sv;
    return w->inner.v.sv ? w->inner.spec : NULL;
}

#define V(f) offsetof(auto_work, f)
const ovk__solver_ops ovk__solver_auto = {
    /* the initial residual and the null space go to the chosen variant when it takes them */
    .caps = OVK__CAP_DEFERS_INITIAL | OVK__CAP_EITHER_SYMMETRY | OVK__CAP_NULLSPACE | OVK__CAP_CONDEST,
    OVK__WORK_VECTORS(auto_work, V(r)),
    .parse = auto_parse, .after_setup = auto_after_setup, .destroy = auto_destroy, .view = auto_view,
    .iterate = auto_iterate, .chosen = auto_chosen,
};
