/* auto's model: the time per iteration of each candidate from the latency L
 * of one reduction, the local work W of one alg1 iteration and the time A
 * of one vector pass (W's vector part / ALG1_PASSES):
 *
 *   alg1        W + 3 L                                  (blocking sums)
 *   pipecg      max(W + P A, (L + (P + ALG1_PASSES) A))  P = PIPECG_PASSES
 *   plcg:l=k    max(W + Q A, (L + (Q + ALG1_PASSES) A) / k),
 *               Q = PLCG_PASS_K k + PLCG_PASS_0, k >= 2
 *
 * A pipelined variant waits for a sum started k steps earlier after its
 * matvec, so k steps last at least L plus the vector work after the wait.
 * Of L only the part the backend progresses behind local work can hide:
 * with e = f->exposed (auto.c's overlap probes), e L of every sum is paid
 * as a blocking sum's would be and (1 - e) L is hidden as above, so that a
 * backend that hides nothing (e = 1) makes a pipelined variant cost its
 * blocking form (one blocking sum per step).
 * pipecg waits after one matvec, as plcg:l=1 would, with fewer passes: it
 * stands for depth 1.  A first solve also pays plcg's start-up, spread over
 * FIRST_ITERATIONS.
 *
 * For a nonsymmetric matrix the candidates are GMRES(m)'s (m = 30): with
 * M = W - 5 A (the matvec and the preconditioner) and G the vector passes
 * of a step (G_p for pgmres, which carries a second basis),
 *
 *   gmres       M + G A + L                             (one blocking sum)
 *   pgmres:l=k  max(M + G_p A, (L + G_p A) / k)
 *
 * and in a first solve pgmres's first, short cycle is gmres's (the
 * shifts' estimate).
 *
 * With f->sstep (auto.c: the tolerance and the key allow them, and their
 * safeguard has not acted on these values) the s-step variants are
 * candidates too, blocking sums 1/s (scg) and 2/s + 1/m (sgmres) per step:
 *
 *   scg:s       T = W + (SCG_PASS_0 + SCG_PASS_S s) A + L / s, plus a
 *               solve's end (the check a block late and the residual
 *               replacements' blocks, about s steps more than alg1's in a
 *               solve, and the confirmation: (s T + L) / 50)
 *   sgmres:s    M + (G + SGMRES_PASS (s + 1)) A + L (2/s + 1/m)
 *   sgmres:s,overlap=1  SGMRES_OVERLAP_PASS A more local work; of its m/s
 *               + 2 sums per cycle 3 waited for and m/s - 1 in flight
 *               behind s products: (3 L + (m/s - 1) max(0, L - s M)) / m
 *
 * their extra passes fitted to their local work measured against alg1's
 * and gmres's (the constants below); a first solve runs scg's first block
 * at min(s, SCG_FIRST_BLOCK) (its Ritz values) and sgmres's first cycle
 * with blocking blocks, its first columns in short monomial ones (theirs).  BiCGStab is not a candidate: whether it or restarted GMRES
 * takes fewer iterations depends on the spectrum, which auto does not
 * measure.  The constants and how well the model predicts are in
 * docs/solvers-notes.md, "auto", and docs/performance.md, section 1. */
#include <math.h>
#include <stdio.h>

#include "auto.h"
#include "../../solver.h"

enum { ALG1_PASSES = 5, ALG1_REDUCTIONS = 3 };
/* the iterations a first solve is assumed to take */
enum { FIRST_ITERATIONS = 50 };
/* plcg's passes beyond alg1's: per level (two recurrences and a dot) and
 * the top level's (two recurrences, the x update) */
#define PLCG_PASS_K 3.5
#define PLCG_PASS_0 3.0
/* pipecg's: one fused update of six vectors with 13 dots, and m = C w */
#define PIPECG_PASSES 5.0
/* pipecg's blocking sums in a solve besides one per step (its start, the
 * true residual at the exit) */
#define PIPECG_SOLVE_SUMS 3.0
/* the most that cold caches inflate a vector pass */
#define COLD_VEC 2.0
/* the interval settles between two pipelined variants when the midpoint's
 * choice is within REGRET of the best at both ends */
#define REGRET 0.05
/* pipecg and the best plcg within REFINE of each other are timed */
#define REFINE 0.25
/* scg:s's passes per iteration beyond alg1's (its block sums, s^2 / 2 + s^2
 * values read over s iterations, and its s-wide updates), fitted to its
 * local work on the -n 20 Laplacian with Jacobi, one rank: 1.67, 2.26 and
 * 3.26 x alg1's at s = 4, 8, 16, alg1's vector part 5 A = 14 of 54 us
 * (docs/solvers.md, auto) */
#define SCG_PASS_0 1.5
#define SCG_PASS_S 2.8
/* sgmres:s's passes per basis vector beyond gmres's (the block's Gram sums
 * Y^T Y twice and its Newton recurrence), the same way: 1.10 and 1.19 x
 * gmres's local work at s = 5, 10 */
#define SGMRES_PASS 0.6
/* sgmres:s,overlap=1's beyond that (the change of basis its in-flight
 * blocks carry), from two ranks' wall time at 0 us: 1.04 and 1.09 x the
 * blocking form's on convection-diffusion and the -n 20 Laplacian */
#define SGMRES_OVERLAP_PASS 1.5
/* scg's first block in a first solve (scg.c's FIRST_S), in the monomial
 * basis: its Ritz values give the shifts */
enum { SCG_FIRST_BLOCK = 4 };
/* the block sizes auto may choose: deeper ones lose accuracy (scg:s=8
 * already takes 3.4 x alg1's iterations on bcsstk03, docs/solvers.md) */
static const int scg_sizes[] = {4, 8}, sgmres_sizes[] = {5, 10};
enum { SIZES = 2 };

static const char *const kind_names[OVK__AUTO_KINDS] = {
    [OVK__AUTO_ALG1] = "alg1",
    [OVK__AUTO_PIPECG] = "pipecg",
    [OVK__AUTO_PLCG] = "plcg",
    [OVK__AUTO_PIPEPRCG] = "pipeprcg",
    [OVK__AUTO_GMRES] = "gmres",
    [OVK__AUTO_PGMRES] = "pgmres",
    [OVK__AUTO_SCG] = "scg",
    [OVK__AUTO_SGMRES] = "sgmres",
    [OVK__AUTO_SGMRES_OVERLAP] = "sgmres",
};

void ovk__auto_spec(ovk__auto_choice ch, char *spec, size_t len)
{
    if (ch.kind == OVK__AUTO_PLCG || ch.kind == OVK__AUTO_PGMRES)
        snprintf(spec, len, "%s:l=%d", kind_names[ch.kind], ch.depth);
    else if (ch.kind == OVK__AUTO_SGMRES_OVERLAP) snprintf(spec, len, "%s:s=%d,overlap=1", kind_names[ch.kind], ch.depth);
    else if (ovk__auto_is_sstep(ch)) snprintf(spec, len, "%s:s=%d", kind_names[ch.kind], ch.depth);
    else snprintf(spec, len, "%s", kind_names[ch.kind]);
}

int ovk__auto_is_sstep(ovk__auto_choice ch)
{
    return ch.kind == OVK__AUTO_SCG || ch.kind == OVK__AUTO_SGMRES || ch.kind == OVK__AUTO_SGMRES_OVERLAP;
}

int ovk__auto_same(ovk__auto_choice a, ovk__auto_choice b) { return a.kind == b.kind && a.depth == b.depth; }

static ovk__auto_choice choice_of(ovk__auto_kind kind, int depth) { return (ovk__auto_choice){kind, depth}; }

/* the exposed fraction, bounded */
static double exposed(const ovk__auto_figures *f) { return f->exposed > 0.0 ? fmin(f->exposed, 1.0) : 0.0; } /* NaN: 0 */

/* a variant whose gain is a sum in flight is a candidate only where the
 * backend hides at least this fraction of one: where it hides less, its
 * blocking form makes no fewer blocking sums than it */
#define OVERLAP_MIN 0.5
static int overlap_allowed(const ovk__auto_figures *f) { return exposed(f) <= 1.0 - OVERLAP_MIN; }

/* the s-step variants are candidates where the latency is at least an
 * iteration's local work: their blocks cost accuracy and, on ill-conditioned
 * matrices, iterations that the model does not price */
static int sstep_allowed(const ovk__auto_figures *f) { return f->sstep && f->latency >= f->work; }

/* plcg:l=k's start-up per iteration of a first solve: the spectrum
 * estimate's matvecs (about an alg1 iteration each), the k steps filling
 * the pipeline, and two waited reductions */
static double startup_time(const ovk__auto_figures *f, int k)
{
    return ((ovk__solver_find("plcg")->ops->estimate_steps(k) + 1 + k) * f->work + 2.0 * f->latency) / FIRST_ITERATIONS;
}

/* a variant waiting after its matvec for a sum started `depth` steps
 * earlier, with `passes` vector passes beyond alg1's */
static double pipelined_time(const ovk__auto_figures *f, double passes, int depth)
{
    double pass = f->vec / ALG1_PASSES, e = exposed(f);
    double local = f->work + passes * pass, after_wait = (passes + ALG1_PASSES) * pass;
    return fmax(local, ((1.0 - e) * f->latency + after_wait) / depth) + e * f->latency;
}

/* scg:s per iteration: its step, its s steps more per solve (-n 20 and 25:
 * 36, 40 against alg1's 33 at s = 4, 8; 68 and 68 against 58) and the
 * confirmation spread over FIRST_ITERATIONS, and in a first solve its
 * first block's shorter reach (one sum for SCG_FIRST_BLOCK steps) */
static double scg_time(const ovk__auto_figures *f, int s, int first)
{
    double pass = f->vec / ALG1_PASSES;
    double step = f->work + (SCG_PASS_0 + SCG_PASS_S * s) * pass + f->latency / s;
    double t = step + (s * step + f->latency) / FIRST_ITERATIONS;
    if (first && s > SCG_FIRST_BLOCK) t += (1.0 - (double)SCG_FIRST_BLOCK / s) * f->latency / FIRST_ITERATIONS;
    return t;
}

static double modelled(const ovk__auto_figures *f, int first, ovk__auto_choice ch)
{
    if (ch.kind == OVK__AUTO_ALG1) return f->work + ALG1_REDUCTIONS * f->latency;
    if (ch.kind == OVK__AUTO_SCG) return scg_time(f, ch.depth, first);
    if (ch.kind == OVK__AUTO_PIPECG) return pipelined_time(f, PIPECG_PASSES, 1);
    int k = ch.depth;
    return pipelined_time(f, PLCG_PASS_K * k + PLCG_PASS_0, k) + (first ? startup_time(f, k) : 0.0);
}

/* from a timed vector step u: pipecg's wait ends after its matvec or the
 * latency, then its updates run, plus its blocking sums (and in a first
 * solve ||A||'s pass, about a matvec); plcg as modelled */
static double measured(const ovk__auto_figures *f, double u, int first, ovk__auto_choice ch)
{
    double mv = f->matvec, e = exposed(f), lat = (1.0 - e) * f->latency, paid = e * f->latency;
    if (ch.kind == OVK__AUTO_PIPECG)
        return fmax(mv, lat) + u + paid + (PIPECG_SOLVE_SUMS * f->latency + (first ? mv : 0.0)) / FIRST_ITERATIONS;
    int k = ch.depth;
    return fmax(mv + u, (lat + u) / k) + paid + (first ? startup_time(f, k) : 0.0);
}

ovk__auto_choice ovk__auto_best(const ovk__auto_figures *f, long maxl, int first)
{
    ovk__auto_choice best = choice_of(OVK__AUTO_ALG1, 0);
    for (int k = 1; k <= (overlap_allowed(f) ? maxl : 1); k++) { /* shallowest first: deeper pipelines lose accuracy */
        ovk__auto_choice ch = k == 1 ? choice_of(OVK__AUTO_PIPECG, 0) : choice_of(OVK__AUTO_PLCG, k);
        if (modelled(f, first, ch) < modelled(f, first, best)) best = ch;
    }
    for (int i = 0; sstep_allowed(f) && i < SIZES; i++) {
        ovk__auto_choice ch = choice_of(OVK__AUTO_SCG, scg_sizes[i]);
        if (modelled(f, first, ch) < modelled(f, first, best)) best = ch;
    }
    return best;
}

/* alg1 against a pipelined variant is always left to a timed latency:
 * there the sums are cheap and the interval's top can be the scheduler's */
int ovk__auto_settled(const ovk__auto_figures *f, long maxl, int first, ovk__auto_choice *out)
{
    ovk__auto_figures at = *f;
    at.latency = f->latency_low;
    ovk__auto_choice lo = ovk__auto_best(&at, maxl, first), hi = ovk__auto_best(f, maxl, first);
    *out = hi;
    if (ovk__auto_same(lo, hi)) return 1;
    if (lo.kind == OVK__AUTO_ALG1 || hi.kind == OVK__AUTO_ALG1) return 0;
    at.latency = 0.5 * (f->latency + f->latency_low);
    ovk__auto_choice mid = ovk__auto_best(&at, maxl, first);
    for (int end = 0; end < 2; end++) {
        at.latency = end ? f->latency : f->latency_low;
        if (modelled(&at, first, mid) > (1.0 + REGRET) * modelled(&at, first, end ? hi : lo)) return 0;
    }
    *out = mid;
    return 1;
}

/* The pass model's known weakness is pipecg's in-cache cost against
 * plcg's: where they come out close, their steps are timed. */
int ovk__auto_candidates(const ovk__auto_figures *f, long maxl, int first, ovk__auto_choice cand[2])
{
    ovk__auto_choice best = ovk__auto_best(f, maxl, first), plcg = choice_of(OVK__AUTO_PLCG, 2);
    ovk__auto_choice pipecg = choice_of(OVK__AUTO_PIPECG, 0);
    if (best.kind == OVK__AUTO_ALG1 || maxl < 2 || !overlap_allowed(f)) return 0;
    for (int k = 3; k <= maxl; k++) {
        ovk__auto_choice deeper = choice_of(OVK__AUTO_PLCG, k);
        if (modelled(f, first, deeper) < modelled(f, first, plcg)) plcg = deeper;
    }
    if (!ovk__auto_same(best, pipecg) && !ovk__auto_same(best, plcg)) return 0;
    ovk__auto_choice other = best.kind == OVK__AUTO_PIPECG ? plcg : pipecg;
    if (modelled(f, first, other) > (1.0 + REFINE) * modelled(f, first, best)) return 0;
    cand[0] = pipecg;
    cand[1] = plcg;
    return 2;
}

ovk__auto_choice ovk__auto_best_timed(const ovk__auto_figures *f, const ovk__auto_choice *cand, const double *u,
                                      int n, int first)
{
    int ib = 0;
    for (int i = 1; i < n; i++)
        if (measured(f, u[i], first, cand[i]) < measured(f, u[ib], first, cand[ib])) ib = i;
    return cand[ib];
}

/* the restart both GMRES candidates run at (their default); pgmres's
 * deepest pipeline (deeper ones' bases lose conditioning, and gain little
 * once the latency is hidden); the sums per cycle sgmres:s,overlap=1 waits
 * for at once (its last block's two and the cycle end's) */
enum { GMRES_RESTART = 30, PGMRES_MAX_DEPTH = 3, SGMRES_WAITED = 3 };
/* sgmres's first cycle without shifts (sgmres.c's FIRST_S, FIRST_COLS) */
enum { SGMRES_FIRST_S = 5, SGMRES_FIRST_COLS = 10 };

/* sgmres:s's reduction time per basis vector: blocking, 2/s + 1/m sums;
 * with overlap=1 each in flight hides behind its next block's s products */
static double sgmres_latency(const ovk__auto_figures *f, ovk__auto_choice ch, double mv)
{
    double m = GMRES_RESTART, s = ch.depth, L = f->latency;
    if (ch.kind == OVK__AUTO_SGMRES) return (2.0 / s + 1.0 / m) * L;
    double e = exposed(f);
    return (SGMRES_WAITED * L + (m / s - 1.0) * (e * L + fmax(0.0, (1.0 - e) * L - s * mv))) / m;
}

/* sgmres:s's first cycle in a first solve (sgmres.c's start-up): blocking
 * blocks, its first SGMRES_FIRST_COLS columns in blocks of SGMRES_FIRST_S,
 * two sums each, the rest in blocks of s, and the cycle's end: its sums'
 * time beyond a cycle of the steady state */
static double sgmres_first_cycle(const ovk__auto_figures *f, ovk__auto_choice ch, double mv)
{
    int s = ch.depth, s0 = s < SGMRES_FIRST_S ? s : SGMRES_FIRST_S;
    int cols = s > SGMRES_FIRST_COLS ? s : SGMRES_FIRST_COLS;
    double sums = 2.0 * ((cols + s0 - 1) / s0) + 2.0 * ((GMRES_RESTART - cols + s - 1) / s) + 1.0;
    return fmax(0.0, sums * f->latency - GMRES_RESTART * sgmres_latency(f, ch, mv));
}

/* a GMRES step's vector passes (of three vector reads or writes): its
 * multi-dot and multi-axpy over half the basis on average, w read twice and
 * written; pgmres's the same over both bases, plus its k further sums */
static double gmres_passes(void) { return (GMRES_RESTART + 5) / 3.0; }
static double pgmres_passes(int k) { return (1.5 * GMRES_RESTART + k + 5) / 3.0; }

static double modelled_nonsymmetric(const ovk__auto_figures *f, int first, ovk__auto_choice ch)
{
    double pass = f->vec / ALG1_PASSES, mv = f->work - f->vec;
    double gmres = mv + gmres_passes() * pass + f->latency;
    if (ch.kind == OVK__AUTO_GMRES) return gmres;
    if (ch.kind == OVK__AUTO_SGMRES || ch.kind == OVK__AUTO_SGMRES_OVERLAP) {
        double extra = ch.kind == OVK__AUTO_SGMRES_OVERLAP ? SGMRES_OVERLAP_PASS : 0.0;
        double t = mv + (gmres_passes() + SGMRES_PASS * (ch.depth + 1) + extra) * pass + sgmres_latency(f, ch, mv);
        return first ? t + sgmres_first_cycle(f, ch, mv) / FIRST_ITERATIONS : t;
    }
    double vec = pgmres_passes(ch.depth) * pass, e = exposed(f);
    double t = fmax(mv + vec, ((1.0 - e) * f->latency + vec) / ch.depth) + e * f->latency;
    int est = ovk__solver_find("pgmres")->ops->estimate_steps(GMRES_RESTART); /* the shifts' estimate, as gmres */
    if (first) t = (est * gmres + (FIRST_ITERATIONS - est) * t) / FIRST_ITERATIONS;
    return t;
}

ovk__auto_choice ovk__auto_best_nonsymmetric(const ovk__auto_figures *f, long maxl, int first)
{
    ovk__auto_choice best = choice_of(OVK__AUTO_GMRES, 0);
    for (int k = 1; overlap_allowed(f) && k <= maxl && k <= PGMRES_MAX_DEPTH; k++) {
        ovk__auto_choice ch = choice_of(OVK__AUTO_PGMRES, k);
        if (modelled_nonsymmetric(f, first, ch) < modelled_nonsymmetric(f, first, best)) best = ch;
    }
    for (int i = 0; sstep_allowed(f) && i < (overlap_allowed(f) ? 2 : 1) * SIZES; i++) { /* blocking blocks first */
        ovk__auto_kind kind = i < SIZES ? OVK__AUTO_SGMRES : OVK__AUTO_SGMRES_OVERLAP;
        ovk__auto_choice ch = choice_of(kind, sgmres_sizes[i % SIZES]);
        if (modelled_nonsymmetric(f, first, ch) < modelled_nonsymmetric(f, first, best)) best = ch;
    }
    return best;
}

int ovk__auto_settled_nonsymmetric(const ovk__auto_figures *f, long maxl, int first, ovk__auto_choice *out)
{
    ovk__auto_figures at = *f;
    at.latency = f->latency_low;
    *out = ovk__auto_best_nonsymmetric(f, maxl, first);
    return ovk__auto_same(*out, ovk__auto_best_nonsymmetric(&at, maxl, first));
}

int ovk__auto_nothing_to_hide(double latency, double vec, int cold)
{
    return !(ALG1_REDUCTIONS * latency > (cold ? vec / COLD_VEC : vec));
}

int ovk__auto_cold_settles(const ovk__auto_figures *cold, long maxl, int first, int nonsymmetric)
{
    ovk__auto_kind blocking = nonsymmetric ? OVK__AUTO_GMRES : OVK__AUTO_ALG1;
    for (int k = 0; k < 4; k++) {
        ovk__auto_figures f = *cold;
        double warm = k & 1 ? 1.0 / COLD_VEC : 1.0; /* a warm iteration is no faster than this */
        f.work *= warm, f.vec *= warm, f.matvec *= warm;
        if (k & 2) f.latency = f.latency_low;
        ovk__auto_choice ch = nonsymmetric ? ovk__auto_best_nonsymmetric(&f, maxl, first) : ovk__auto_best(&f, maxl, first);
        if (ch.kind != blocking) return 0;
    }
    return 1;
}

int ovk__auto_probe_pays(const ovk__auto_figures *f, long maxl, int first, int nonsymmetric, double cost)
{
    ovk__auto_figures hid = *f, shown = *f;
    hid.exposed = 0.0;
    shown.exposed = 1.0;
    ovk__auto_choice x = nonsymmetric ? ovk__auto_best_nonsymmetric(&hid, maxl, first) : ovk__auto_best(&hid, maxl, first);
    ovk__auto_choice y = nonsymmetric ? ovk__auto_best_nonsymmetric(&shown, maxl, first)
                                      : ovk__auto_best(&shown, maxl, first);
    /* every candidate's time grows with the exposure: y at its worst against the best at its best */
    double gain = ovk__auto_modelled(&shown, first, nonsymmetric, y) - ovk__auto_modelled(&hid, first, nonsymmetric, x);
    return gain * FIRST_ITERATIONS > cost;
}

double ovk__auto_modelled(const ovk__auto_figures *f, int first, int nonsymmetric, ovk__auto_choice ch)
{
    if (ch.kind == OVK__AUTO_PIPEPRCG) ch = choice_of(OVK__AUTO_PIPECG, 0); /* its recurrences: pipecg's passes */
    return nonsymmetric ? modelled_nonsymmetric(f, first, ch) : modelled(f, first, ch);
}

void ovk__auto_runner_up(const ovk__auto_figures *f, long maxl, int first, int nonsymmetric, ovk__auto_choice best,
                         ovk__auto_choice *second)
{
    ovk__auto_choice cand[OVK__AUTO_MAX_DEPTH + 2 * SIZES + 2];
    int n = 0, overlap = overlap_allowed(f), sstep = sstep_allowed(f);
    if (nonsymmetric) {
        cand[n++] = choice_of(OVK__AUTO_GMRES, 0);
        for (int k = 1; overlap && k <= maxl && k <= PGMRES_MAX_DEPTH; k++) cand[n++] = choice_of(OVK__AUTO_PGMRES, k);
        for (int i = 0; sstep && i < SIZES; i++) {
            cand[n++] = choice_of(OVK__AUTO_SGMRES, sgmres_sizes[i]);
            if (overlap) cand[n++] = choice_of(OVK__AUTO_SGMRES_OVERLAP, sgmres_sizes[i]);
        }
    } else {
        cand[n++] = choice_of(OVK__AUTO_ALG1, 0);
        cand[n++] = choice_of(OVK__AUTO_PIPECG, 0);
        for (int k = 2; overlap && k <= maxl; k++) cand[n++] = choice_of(OVK__AUTO_PLCG, k);
        for (int i = 0; sstep && i < SIZES; i++) cand[n++] = choice_of(OVK__AUTO_SCG, scg_sizes[i]);
    }
    *second = best;
    double t2 = INFINITY;
    for (int i = 0; i < n; i++) {
        double t = ovk__auto_modelled(f, first, nonsymmetric, cand[i]);
        if (!ovk__auto_same(cand[i], best) && t < t2) *second = cand[i], t2 = t;
    }
}
