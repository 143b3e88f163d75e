/* The solver auto's model (auto_model.c): from the figures auto.c measures,
 * the candidate with the smallest modelled time per iteration.  Every
 * function here is local and pure: the same figures give the same choice on
 * every rank. */
#ifndef OVK_AUTO_H
#define OVK_AUTO_H

#include <stddef.h>

/* The variants auto chooses among.  A new kind goes before
 * OVK__AUTO_KINDS, with its registry name in auto_model.c's table. */
typedef enum ovk__auto_kind {
    OVK__AUTO_ALG1,
    OVK__AUTO_PIPECG,
    OVK__AUTO_PLCG,
    OVK__AUTO_PIPEPRCG, /* stands for plcg after plcg broke down */
    OVK__AUTO_GMRES,    /* a nonsymmetric matrix: gmres or pgmres:l=k */
    OVK__AUTO_PGMRES,
    OVK__AUTO_SCG,      /* s-step: depth is s (with figures.sstep) */
    OVK__AUTO_SGMRES,
    OVK__AUTO_SGMRES_OVERLAP, /* sgmres:s=S,overlap=1: its blocks' sums in flight */
    OVK__AUTO_KINDS
} ovk__auto_kind;

/* A choice: the variant and, for plcg and pgmres, its depth l, for scg and
 * sgmres (either form) its block size s (0 for the others). */
typedef struct ovk__auto_choice {
    ovk__auto_kind kind;
    int depth;
} ovk__auto_choice;

/* The measured figures, in seconds. */
typedef struct ovk__auto_figures {
    double latency;     /* one reduction: the upper end of its interval */
    double latency_low; /* its lower end (= latency when timed) */
    double work;        /* one alg1 iteration's local work */
    double vec;         /* its vector part */
    double matvec;      /* its matvec */
    int sstep;          /* 1: scg and sgmres are candidates too (auto.c allows them) */
    double exposed;     /* the fraction of a posted reduction's latency not hidden behind local work on
                         * this backend, in [0, 1] (0: all of it hidden; NaN: not measured, taken as 0;
                         * auto.c's probes or the backend's caps) */
    int noisy;          /* 1: the local work's timings spread (auto.c) */
    int unprobed;       /* where exposed came from: OVK__AUTO_PROBE* */
    int vec_warm;       /* 1: vec is the warm vector steps' alone (auto.c settled alg1 on them), 0: the cold
                         * or warm iteration's */
} ovk__auto_figures;

/* exposed measured; not measured (NaN) as the latency is short or the
 * choice the same either way; settled by the backend's caps; not measured
 * as the probe would cost more than it could save (1: taken as none hidden) */
enum { OVK__AUTO_PROBED, OVK__AUTO_PROBE_SHORT, OVK__AUTO_PROBE_MOOT, OVK__AUTO_PROBE_CAPS, OVK__AUTO_PROBE_DEAR };

/* The deepest plcg auto may choose, and its default. */
enum { OVK__AUTO_MAX_DEPTH = 8, OVK__AUTO_DEFAULT_DEPTH = 4 };

/* The spec of a choice ("alg1", "pipecg", "plcg:l=3", "scg:s=8", ...) into spec. */
void ovk__auto_spec(ovk__auto_choice ch, char *spec, size_t len);
/* 1 when a and b are the same choice. */
int ovk__auto_same(ovk__auto_choice a, ovk__auto_choice b);

/* The pass model's choice at f->latency among alg1, pipecg and plcg:l=2..maxl
 * (and scg:s=4, 8 with f->sstep), the shallowest on a tie; first: for a
 * set-up object's first solve, which pays plcg's start-up (scg's spectrum
 * estimate). */
ovk__auto_choice ovk__auto_best(const ovk__auto_figures *f, long maxl, int first);
/* With the latency known only within [latency_low, latency]: 1 and the
 * choice in *out when the interval settles it (the same at both ends, or
 * between pipelined variants the midpoint's, nearly as good at both ends);
 * 0 when a timed latency must decide. */
int ovk__auto_settled(const ovk__auto_figures *f, long maxl, int first, ovk__auto_choice *out);
/* The candidates whose vector steps are worth timing: pipecg and the best
 * plcg when the pass model puts them close (cand[0], cand[1]; returns 2),
 * else 0 (the pass model's choice stands). */
int ovk__auto_candidates(const ovk__auto_figures *f, long maxl, int first, ovk__auto_choice cand[2]);
/* Of cand[0..n), the one with the smallest time per iteration from its
 * timed vector step u[i] (seconds, all but the matvec) and f->matvec, the
 * first on a tie. */
ovk__auto_choice ovk__auto_best_timed(const ovk__auto_figures *f, const ovk__auto_choice *cand, const double *u,
                                      int n, int first);
/* For a nonsymmetric matrix: the model's choice at f->latency between
 * gmres and pgmres:l=1..maxl (and sgmres:s=5, 10 with f->sstep; all at
 * restart 30), the shallowest on a tie; first: a first solve, whose first
 * cycle pgmres and sgmres run as gmres. */
ovk__auto_choice ovk__auto_best_nonsymmetric(const ovk__auto_figures *f, long maxl, int first);
/* 1 and the choice in *out when both ends of [latency_low, latency] give
 * the same nonsymmetric choice; 0 when a timed latency must decide. */
int ovk__auto_settled_nonsymmetric(const ovk__auto_figures *f, long maxl, int first, ovk__auto_choice *out);
/* 1 when alg1's blocking reductions at this latency cost less than the
 * least extra vector work of a pipelined variant (about alg1's own vector
 * part), judged from the vector work vec of a warm iteration or, with cold,
 * of a cold one (at most COLD_VEC times a warm one's): nothing is worth
 * hiding. */
int ovk__auto_nothing_to_hide(double latency, double vec, int cold);
/* 1 when the choice is alg1 (gmres on nonsymmetric values) at a cold
 * iteration's figures and at their warm lower bound, at both ends of the
 * latency's interval: warm iterations would not change it. */
int ovk__auto_cold_settles(const ovk__auto_figures *cold, long maxl, int first, int nonsymmetric);
/* 1 when measuring what the backend hides may pay: the choice where it
 * hides none, at its time there, loses more than cost seconds over
 * FIRST_ITERATIONS iterations to the choice where it hides all, at its
 * time there (every candidate's time grows with the exposed fraction, so
 * that bounds what the measurement can save). */
int ovk__auto_probe_pays(const ovk__auto_figures *f, long maxl, int first, int nonsymmetric, double cost);
/* The model's time per iteration (seconds) of ch at f->latency, and the
 * runner-up to best (the candidate of ovk__auto_best or
 * ovk__auto_best_nonsymmetric, by nonsymmetric, with the next smallest
 * time; *second = best when there is none). */
double ovk__auto_modelled(const ovk__auto_figures *f, int first, int nonsymmetric, ovk__auto_choice ch);
void ovk__auto_runner_up(const ovk__auto_figures *f, long maxl, int first, int nonsymmetric, ovk__auto_choice best,
                         ovk__auto_choice *second);
/* 1 when ch is scg or sgmres */
int ovk__auto_is_sstep(ovk__auto_choice ch);

#endif
