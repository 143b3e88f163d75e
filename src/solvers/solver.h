/* The solver interface: one variant per file, each exporting its ops,
 * `const ovk__solver_ops ovk__solver_NAME`, listed by name with its
 * description and keys in methods/registry_list.h.  The solver object
 * (interface/object*.c) does the argument checks, the reducer, the
 * preconditioner and the result; a variant allocates its work vectors at
 * setup (through the frame, engine/frame.c) and iterates. */
#ifndef OVK_SOLVER_H
#define OVK_SOLVER_H

#include <math.h>
#include <stdio.h>

#include "../backends/backend.h"
#include "../internal.h"
#include "../matrix/matrix.h"
#include "../precond/precond.h"

/* A hot element-wise loop compiled for AVX-512, AVX2 and the baseline, the
 * widest the CPU runs picked at load time (GCC's target_clones, x86-64
 * Linux; elsewhere the one baseline version).  Element-wise only: every
 * version gives the same bits (no sums reordered; -ffp-contract=off).
 * -DOVK_NO_CLONES builds the baseline only (to compare). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && !defined(OVK_NO_CLONES)
#define OVK__CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define OVK__CLONES
#endif

/* A kernel's body inlined into each caller whatever its size, so that a
 * flag the caller passes as a constant folds away (one loop per value). */
#if defined(__GNUC__)
#define OVK__ALWAYS_INLINE __attribute__((always_inline))
#else
#define OVK__ALWAYS_INLINE
#endif

/* Which inner product a reduction belongs to (selects its timers). */
typedef enum ovk__dot_id { OVK__SDOTP = 0, OVK__GAMMA = 1, OVK__IPROD = 2 } ovk__dot_id;

/* The longest restart of the GMRES variants (gmres.c, pgmres.c): their
 * Hessenberg matrix is (M + 1) x M, their basis M + 1 vectors or more. */
enum { OVK__MAX_RESTART = 500 };

/* The monitor's stop vote rides the sums a variant already does: while a
 * monitor is set, each sum reduces its k values and one more, this rank's
 * vote, through one of these slots (solver_common.c).  The largest k + 1
 * (a GMRES Gram-Schmidt pass: M + 1 dots and a norm, and the vote) and the
 * most sums in flight at once (plcg: 2 l + 4). */
enum { OVK__STAGE_VALS = OVK__MAX_RESTART + 3, OVK__STAGE_SLOTS = 24 };
/* The sums whose backend scratch setup reserves (counts 1..this): every CG
 * variant's and GMRES's up to restart 29; a longer restart's larger sums are
 * set up in the backend at their first use. */
enum { OVK__RESERVED_VALS = 32 };
typedef struct ovk__stage {
    ovk_request *req; /* NULL: free */
    double *vals;     /* the variant's values, copied back at the end */
    int k;
    double buf[OVK__STAGE_VALS];
} ovk__stage;

/* A solve of (2^ka A) y = 2^kb b, x = 2^(ka - kb) y, for a b or an A whose
 * scale would under- or overflow the sums (scaling.c).  Powers of two: the
 * iterates are those of the unscaled solve wherever nothing under- or
 * overflows.  All zero in an ordinary solve. */
typedef struct ovk__scaling {
    int active;   /* this solve runs scaled (c->b is the scaled copy) */
    int wanted;   /* the initial check found <b,b> out of range: solve again scaled */
    int ka, kb;   /* the exponents; ka even (the split preconditioner takes 2^(-ka/2)) */
    int kc;       /* the preconditioner's: 2^-kc C; kc = ka, or 0 when C = I (pc fixed) */
    double *tmp;  /* the scaled operand of a product or a preconditioner */
    double *diag, *divisor, *split; /* the preconditioner's arrays for 2^-kc C, or NULL */
} ovk__scaling;

/* The monitor, the convergence test and the history as the solver object
 * set them (its own copy, assigned whole to the context at setup). */
typedef struct ovk__monitor {
    ovk_monitor_fn fn;          /* the application's monitor, or NULL */
    void *fn_ctx;
    ovk_converged_fn conv_fn;   /* the application's convergence test, or NULL */
    void *conv_ctx;
    double divtol;              /* diverged when ||r|| > divtol ||r0|| (0: off) */
    char norm[24];              /* option norm: "" | unpreconditioned | natural */
    int natural;                /* norm=natural: the tests on <r, C r> and <b, C b> (a variant with OVK__CAP_NATURAL_NORM) */
    int print;                  /* -ovk_monitor: rank 0 prints ||r|| each iteration */
    int print_true;             /* -ovk_monitor_true: and ||b - A x|| (true_r) */
    double *true_r;             /* -ovk_monitor_true: room for b - A x, else NULL */
    ovk__stage *stage;          /* with a monitor: the slots its vote rides in, else NULL */
    double *history;            /* the application's residual history, or NULL */
    int history_cap;
} ovk__monitor;

/* What the stop decisions keep in one solve: the tolerance, the monitor's
 * and the convergence test's state, the initial check a variant defers. */
typedef struct ovk__monitor_state {
    double rr_stop;             /* converged when <r,r> < rr_stop: max(tol^2 <b,b>, atol^2) */
    double rnorm0;              /* ||r0|| (norm=natural: sqrt(<r0, C r0>)) */
    double bb2;                 /* <b,b> (-ovk_monitor_true's ||b - A x|| / ||b||) */
    double rr_div;              /* divtol^2 <r0,r0> */
    int user_converged;         /* the convergence test said converged: not confirmed again */
    int vote;                   /* this rank's monitor asked to stop */
    int stop_agreed;            /* a sum brought a stop vote: stop at the next check */
    int observed;               /* the last iteration the history, the monitor and the
                                   print saw (a replacement re-checks one) */
    int initial_pending;        /* <b,b> and <r0,r0> are the variant's to sum (OVK__CAP_DEFERS_INITIAL) */
    double stag_best;           /* the smallest true <r,r> of the confirmations that failed */
    int stag_checks;            /* failed confirmations since the true ||r|| last halved */
    int stag_iter;              /* the iteration of the last failed confirmation */
    int stag_window;            /* iterations the residual then has to halve in */
    double stag_min;            /* the smallest <r,r> iterated since that confirmation */
    const char *limit_note;     /* a variant's word on a solve that reached the iteration limit
                                   (static text), appended to the status's detail */
} ovk__monitor_state;

/* The application's callbacks as a solve calls them: the operator (when
 * A is NULL) and the solver object they are handed; a callback that failed
 * on this rank (its status, which poisons the sums) and what it said. */
typedef struct ovk__callbacks {
    ovk_solver *owner;
    ovk_apply_fn op;
    void *op_ctx;
    int failed;
    char detail[160];
} ovk__callbacks;

/* This rank's clock of one solve: the timers, the sums' flight and the
 * progress hook's time. */
typedef struct ovk__clock {
    double t[OVK_TIMER_COUNT];  /* this rank's seconds */
    double flight, flight_base; /* seconds from the post of each sum to its wait's end, summed
                                   (times from flight_base, the post that found none in flight) */
    int flying;                 /* sums posted and not yet waited for (flight is partial while > 0) */
    int inflight;               /* ovk__dot_id of the reduction in flight, or -1 */
    double progress_time;       /* seconds spent in the progress hook so far */
} ovk__clock;

/* Which symmetry a breakdown may blame. */
typedef struct ovk__symmetry {
    int running;                /* the running variant's OVK__CAP_NONSYMMETRIC (set by the
                                   frame): a breakdown does not blame symmetry */
    int values;                 /* a variant with OVK__CAP_EITHER_SYMMETRY: the check found A's current
                                   values not symmetric (set by the numeric setup) */
    const char *nullspace_key;  /* the option declaring a null space, which a breakdown's hint
                                   names (set by the object from its option table) */
} ovk__symmetry;

/* solve_many's (many.c): the cache share it sizes its groups by, kept
 * across setups, and in a system's context its task. */
typedef struct ovk__many_state {
    long long cache;            /* the smallest cache share over the ranks (bytes, 0: unknown),
                                   asked at the first batch (cache_asked) */
    int cache_asked;
    int group;                  /* option many_group: systems run together between products; 0: by the cache */
    struct ovk__task *task;     /* this system's task, the argument of the batch's ops; NULL in
                                   an ordinary solve */
} ovk__many_state;

struct ovk__ctx; /* below: what a solve runs on */

/* What the numeric setup derived from A's values; kept across setups. */
typedef struct ovk__matrix_norms {
    double anorm;               /* ||A||_inf (an estimate for an operator) */
    double longest_row;         /* entries in the longest row (1 for an operator) */
    int current;                /* anorm, longest_row are of the current values */
    unsigned epoch;             /* counts numeric setups: what a variant derived from A's
                                   values (plcg's spectrum estimate) is stale when it changed */
    double sum_time;            /* this rank's seconds in the reducer's blocking sum that agreed
                                   anorm (0: none): a latency sample at no sum of its own (auto) */
    int (*update)(struct ovk__ctx *c); /* collective: anorm, longest_row of the current values
                                         (the object's; current set) */
} ovk__matrix_norms;

/* The Lanczos coefficients of the condition estimate: room made at setup
 * (cap 0: off), count reset per solve. */
typedef struct ovk__lanczos {
    double *alpha, *beta, *work;
    int count, cap;
} ovk__lanczos;

/* The null space of a singular A (nullspace.c): what the application set
 * (copied) and, from setup, an orthonormal basis. */
enum { OVK__NULLSPACE_MAX = 32 }; /* vectors, the constant included */
typedef struct ovk__nullspace {
    int has_constant;  /* ovk_solver_set_nullspace's (the option adds its own) */
    int user_k;        /* the application's vectors: user_k of n rows, n apart */
    double *user;
    int k;             /* set up: the basis Z, k orthonormal vectors, n apart (0: none) */
    int constant;      /* set up: Z's first vector is the constant's */
    double *basis;
    double *b;         /* a solve's b - Z Z^T b */
    double inconsistency; /* the last solve's ||Z^T b|| / ||b|| (-1: no solve since the setup) */
} ovk__nullspace;

/* The recycled space of a sequence of solves (recycle.c): k vectors W,
 * A-orthonormal when made, with A W, C A W and A C A W (C the
 * preconditioner) of the values of `epoch`; room for 3 cap of the first
 * three (the update's Z = [W, C A W, U]) and cap of the last.  Kept across setups
 * (the option recycle = want; dropped when want or the rows change). */
enum { OVK__RECYCLE_MAX = 32 };
typedef struct ovk__recycle {
    int want;              /* option recycle: K (0: off) */
    int k;                 /* the space's dimension now (0: none) */
    int n, cap, products;  /* rows, K and the layout the storage was made for */
    double *block;         /* the vectors */
    double **W, **AW, **MAW, **AMAW;
    unsigned epoch;        /* c->norms.epoch of AW, MAW, AMAW */
    int changed;           /* this solve made them again for new values */
    int updates;           /* solves that updated it */
    int fewest;            /* fewest iterations of a solve since it was made (0: none yet) */
    int slower;            /* a solve since took 10% more: the next one collects again */
    double *L;             /* this solve: Cholesky factor of W^T A W (cap x cap) */
    double *dense;         /* room for the small matrices of an update */
    const double **px, **py; /* room for the update's pairs of sums */
    char note[200];        /* how it was last changed */
} ovk__recycle;

/* The eigCG window of a solve (Stathopoulos and Orginos, SISC 2010): up to
 * mw normalised residuals C r / sqrt(<r, C r>) and the Lanczos matrix T
 * the CG coefficients make of them, thick-restarted to 2 nev Ritz vectors
 * when full; no product and no reduction of its own. */
typedef struct ovk__eigwin {
    int nev, mw, cnt, open;
    double *block;         /* the vectors, mw of n rows */
    double **V;
    double *T;             /* mw x mw, column-major */
    double *last;          /* the previous Lanczos vector in the window's basis (mw) */
    double *work;          /* dense scratch */
    double *theta;         /* the nev smallest Ritz values at the last thick restart */
    int restarts;          /* thick restarts in this solve */
} ovk__eigwin;

/* What a solve runs on.  Lives in the solver object: the configuration is
 * set at each setup (init_ctx), norms and lanczos by the setups that make
 * them, the rest at each solve. */
typedef struct ovk__ctx {
    /* configuration: what setup decides */
    const ovk_matrix *A;        /* NULL for a user operator (cb.op) */
    ovk__pc *pc;
    int n;                      /* local rows */
    MPI_Comm comm;
    int rank;
    ovk_reducer *red;
    const ovk_solve_options *opts;
    void *params;               /* the variant's parsed spec options */
    ovk__hook hook;             /* progress hook for long kernels (fn NULL: none) */
    int guess_zero;             /* x0 = 0: r = b without the product */
    ovk__monitor mon;
    const struct ovk__loop_ops *ops; /* the loop's sums, products and preconditioner */
    /* kept across setups */
    ovk__matrix_norms norms;
    ovk__lanczos lanczos;
    ovk__many_state many;       /* and, in a batch's system, its task */
    ovk__recycle recycle;       /* the recycled space (recycle.c) */
    /* this solve */
    const double *b;
    double *x;
    ovk_result *res;        /* iterations, reason, rel_residual are set by the variant */
    ovk__clock clock;
    ovk__callbacks cb;
    ovk__monitor_state watch;
    ovk__symmetry sym;
    ovk__scaling scale;         /* this solve's scaling (none: zeros) */
    ovk__nullspace *ns;         /* the declared null space (set up), or NULL */
} ovk__ctx;

/* How a solve's loop reaches the reducer, the operator and the
 * preconditioner, set once in its context: ovk__direct_ops
 * (solver_common.c) for one system; a batch's (many.c) combine each
 * system's with the others' (its task in c->many.task).  sum_post starts the
 * in-place sum of the n values at vals (a token in *req), sum_posted
 * follows a successful post (a batch runs its other systems), sum_wait
 * completes and releases it (*waited: the seconds booked); product: s = A p
 * unscaled, and with ps not NULL (A assembled) the local <p,s>; pc: z = C r
 * as the context scales it, with rz, rr not NULL the local <r,z>, <r,r>.
 * product and pc book their own time.  combined: the products and the
 * preconditioner run together with other systems' (a batch), which a
 * variant's own fused operator product cannot join. */
typedef struct ovk__loop_ops {
    int (*sum_post)(struct ovk__ctx *c, double *vals, int n, ovk_request **req);
    void (*sum_posted)(struct ovk__ctx *c);
    int (*sum_wait)(struct ovk__ctx *c, ovk_request *req, double *waited);
    int (*product)(struct ovk__ctx *c, const double *p, double *s, double *ps);
    int (*pc)(struct ovk__ctx *c, const double *r, double *z, double *rz, double *rr);
    int combined;
} ovk__loop_ops;
extern const ovk__loop_ops ovk__direct_ops;

/* Kernel timing that leaves out the time the progress hook spent inside the
 * kernel (that time is booked as the in-flight inner product's test time). */
typedef struct ovk__tic {
    double t0, p0;
} ovk__tic;

/* A variant says what differs: its recurrence and what it needs.  The frame
 * (frame.c) does the rest: it allocates the work struct (work_size bytes,
 * zeroed) and points the declared `double *` fields at zeroed vectors of n
 * doubles in one staggered block, times the solve, computes r = b - A x into
 * the first declared vector, decides the trivial cases (b = 0, converged or
 * non-finite at x0, the monitor) and then calls iterate. */
/* The bits of ovk__solver_ops.caps. */
enum {
    /* assumes neither A nor C symmetric: accepts any matrix */
    OVK__CAP_NONSYMMETRIC = 1u << 0,
    /* accepts any matrix, told by ovk__ctx.sym.values which */
    OVK__CAP_EITHER_SYMMETRY = 1u << 1,
    /* with norm=natural (c->mon.natural) the variant tests sqrt(<r, C r>)
     * against sqrt(<b, C b>): it sums <b,b>, <b,C b> and <r0,C r0> in its
     * first reduction (the frame leaves the initial check to it, even at
     * max_iter 0) and hands them to ovk__initial_natural, passes <r, C r>
     * to ovk__iterate_check and confirms with ovk__confirm_value */
    OVK__CAP_NATURAL_NORM = 1u << 2,
    /* takes the option recycle (a space kept across solves, recycle.c) */
    OVK__CAP_RECYCLES = 1u << 3,
    /* projects a declared null space out of its iterates (nullspace.c); a
     * nonsymmetric (right-preconditioned) variant takes one without: b and
     * x projected by the engine */
    OVK__CAP_NULLSPACE = 1u << 4,
    /* the variant sums <b,b> and <r0,r0> in its own first reduction and
     * hands them to ovk__initial_values, which the frame would otherwise
     * take before iterate in a blocking reduction of its own: the frame
     * leaves c->watch.initial_pending set and passes bb = 0 (not with
     * max_iter 0, where there is no first reduction) */
    OVK__CAP_DEFERS_INITIAL = 1u << 5,
    /* records the CG coefficients of each iteration (ovk__lanczos_add):
     * takes the option condest (the others refuse it at setup) */
    OVK__CAP_CONDEST = 1u << 6,
};

/* A descriptor's work struct and its vector fields (offsetof each, r first)
 * from one list: work_size, nvec and vec, the count taken from the list. */
#define OVK__WORK_VECTORS(type, ...)                                                                        \
    .work_size = sizeof(type), .nvec = (int)(sizeof((const size_t[]){__VA_ARGS__}) / sizeof(size_t)),    \
    .vec = (const size_t[]){__VA_ARGS__}

struct ovk__solver;

/* A variant's ops: its math and what it needs, exported by its file.  Its
 * name, description and keys are the registry's (ovk__solver, below). */
typedef struct ovk__solver_ops {
    int split;            /* needs the split form C = L^-T L^-1 */
    int needs_norm;       /* uses ||A||_inf and the longest row (c->norms): the
                           * numeric setup takes them (ovk__variant_delegate for an
                           * inner variant) */
    size_t work_size;     /* sizeof the variant's work struct */
    int nvec;             /* its vector fields: offsetof each, the residual r first */
    const size_t *vec;
    /* Optional, instead of nvec/vec when the count depends on the options
     * (any count): returns the count and, when vec is not NULL, fills vec
     * with the offsets (r first). */
    int (*vectors)(const void *params, size_t *vec);
    /* Optional: read the spec's options (local); *params freed with free(). */
    int (*parse)(ovk__opts *o, void **params);
    /* Optional, local: more set-up after the vectors (e.g. the small dense
     * arrays whose size depends on the options); a status (OVK_ENOMEM),
     * agreed by the frame, and destroy frees what it made even then. */
    int (*setup)(ovk__ctx *c, void *work);
    /* Optional, collective: called by the object after the numeric setup
     * whenever the reducer, the preconditioner or the variant was set up
     * anew, with all of them in place (a variant that measures them and
     * sets up an inner variant to run: ovk__variant_delegate).  Returns a
     * status the same on every rank; on failure the setup fails. */
    int (*after_setup)(ovk__ctx *c, void *work);
    /* Collective: iterate from r = b - A x with bb = <b,b> until a stop
     * (with OVK__CAP_DEFERS_INITIAL: bb = 0 while c->watch.initial_pending). */
    int (*iterate)(ovk__ctx *c, void *work, double bb);
    /* Optional, collective (the fallback capability): go on with another
     * variant's solve from the current x, counting from iteration iter0. */
    int (*resume)(ovk__ctx *c, void *work, double bb, int iter0);
    /* Optional: free what setup allocated (the frame frees work and vectors). */
    void (*destroy)(void *work);
    /* Optional, local: the state a user may want to see or reuse, as lines
     * of ovk_solver_view ("  name: ...\n"; plcg's shifts). */
    void (*view)(const void *work, FILE *f);
    /* Optional, local: one steady-state iteration's work besides its
     * matvecs (the preconditioner, the vector updates and their local sums,
     * no reduction) on the set-up vectors, whatever finite values they
     * hold, with x (n rows, finite) for the solution; the vectors' values
     * are meaningless after it.  A variant choosing among others times
     * it to compare them on their own kernels (pipecg, plcg have it). */
    int (*vector_step)(ovk__ctx *c, void *work, double *x);
    /* Optional, local: for a variant that runs another (after_setup chose
     * it), that variant's spec ("pipecg", "plcg:l=2") and *sv its type, or
     * NULL before a choice.  A batch of systems (many.c) runs the choice
     * itself. */
    const char *(*chosen)(const void *work, const struct ovk__solver **sv);
    /* Optional, local: the matrix-vector products of the variant's own
     * estimate at setup for depth or restart p (plcg's spectrum, pgmres's
     * shifts), for a variant that models the candidates' cost (auto). */
    int (*estimate_steps)(int p);
    unsigned caps;        /* what the variant can do or assumes: OVK__CAP_* bits */
} ovk__solver_ops;

/* A registered variant as the registry makes it from its list
 * (methods/registry_list.h): what a user reads of it and its ops.  What
 * the object, the engine and a variant running another hold (static: the
 * registry's). */
typedef struct ovk__solver {
    const char *name;
    const char *description; /* one line */
    const char *keys;        /* its spec's keys: "key=values: meaning; ..." or "" */
    const ovk__solver_ops *ops;
} ovk__solver;

/* 1 when variant sv has every bit of cap */
static inline int ovk__has_cap(const ovk__solver *sv, unsigned cap) { return (sv->ops->caps & cap) == cap; }

/* A variant's instance: its work struct and vector block. */
typedef struct ovk__variant {
    const ovk__solver *sv; /* NULL: not set up */
    void *work;
    double *block;
    double *r; /* the first declared vector */
} ovk__variant;

/* Collective: the work struct, the vectors and the variant's setup
 * (OVK_ENOMEM and setup's status agreed; on failure nothing is kept). */
int ovk__variant_setup(ovk__ctx *c, const ovk__solver *sv, ovk__variant *v);
/* Collective: the same on the caller's block (malloc'd, any size, any
 * contents; NULL: a new one), resized and zeroed: the pages the caller has
 * touched are not faulted in again (a measurement's scratch handed over).
 * The block is v's (or freed) whatever the outcome. */
int ovk__variant_setup_on(ovk__ctx *c, const ovk__solver *sv, ovk__variant *v, double *block);
/* Local: the doubles from one work vector of n rows to the next in a
 * variant's block (n rounded up to 4 KiB, plus a stagger). */
size_t ovk__vec_stride(int n);
/* Collective: the frame's timed solve (r = b - A x, the initial check,
 * iterate), as the context is (scaled or not); c->scale.wanted set when
 * the initial check found <b,b> out of range. */
int ovk__variant_run(ovk__ctx *c, ovk__variant *v);
/* Collective: the solve (scaling.c, around ovk__variant_run): run again
 * scaled when <b,b> or ||A|| is out of range (OVK_ENOMEM when the scaled
 * solve's two to five vectors cannot be had). */
int ovk__variant_solve(ovk__ctx *c, ovk__variant *v);
/* Whether ||A|| (when known) or <b,b> = bb calls for a scaled solve, and
 * whether ||A|| = anorm is out of range (solver_common.c). */
int ovk__scale_needed(const ovk__ctx *c, double bb);
int ovk__anorm_out(double anorm);
/* A norm of this solve's vectors in the caller's units (scaling.c). */
/* A norm of the scaled solve as the unscaled one's: 2^-kb ||r||, and for
 * the natural norm sqrt(<r, C r>) (C scaled by 2^-kc) 2^(kc/2 - kb) of it */
static inline int ovk__norm_exponent(const ovk__ctx *c) { return c->mon.natural ? c->scale.kb - c->scale.kc / 2 : c->scale.kb; }
static inline double ovk__unscaled(const ovk__ctx *c, double norm)
{
    int k = ovk__norm_exponent(c);
    return k ? ldexp(norm, -k) : norm;
}
/* Collective: sv's resume from the current x (v set up at the first call,
 * agreed, and kept until ovk__variant_free). */
int ovk__variant_resume(ovk__ctx *c, const ovk__solver *sv, ovk__variant *v, double bb, int iter0);
/* Collective: v's after_setup, if it has one (OVK_OK otherwise). */
int ovk__variant_after_setup(ovk__ctx *c, ovk__variant *v);
/* Collective: iterate with inner (set up with its parsed options params)
 * from the caller's residual r = b - A x and bb, as the frame would run it:
 * the initial check when it is pending and inner does not defer it, ||A||
 * (c->norms.update) when inner needs it and it is stale, r copied into inner's r,
 * c->params = params during the call.  *ran = 1 when inner's iterate ran
 * (0: failed before it, or the initial check decided the solve). */
int ovk__variant_delegate(ovk__ctx *c, ovk__variant *inner, void *params, const double *r, double bb, int *ran);
/* Local; v may be not set up. */
void ovk__variant_free(ovk__variant *v);
/* Local: v freed as by ovk__variant_free except its vector block, which is
 * returned (the caller's to free or to hand to ovk__variant_setup_on). */
double *ovk__variant_take_block(ovk__variant *v);

/* ---- null spaces (nullspace.c) ----------------------------------------- */

/* Collective: copy the application's k vectors of lay's rows (has_constant:
 * the constant too); the arguments checked (OVK_EINVAL) and agreed; on
 * failure ns is left as it was. */
int ovk__nullspace_set(ovk__nullspace *ns, const ovk__layout *lay, int has_constant, int k,
                       const double *const *vectors);
/* Local: the rigid-body modes of nnodes points xyz (dim 2: 3 modes, dim 3:
 * 6), rows dim*i .. dim*i + dim-1 for node i, into modes (count vectors of
 * dim*nnodes rows, dim*nnodes apart). */
int ovk__nullspace_rigid_body(int dim, int nnodes, const double *xyz, double *modes);
/* Collective: the orthonormal basis of the constant (has_constant or
 * option_constant) and the application's vectors; a clear error, the same
 * on every rank, for a non-finite, zero or dependent vector or ranks that
 * declare different counts.  None declared: k = 0. */
int ovk__nullspace_setup(ovk__nullspace *ns, const ovk__layout *lay, int option_constant);
/* Collective, an assembled A only (else nothing): each basis vector z must
 * have ||A z||_2 <= 1e-8 ||A||_inf, else OVK_EINVAL naming it (a vector
 * that is not in A's null space would change the system solved). */
int ovk__nullspace_check(ovk__ctx *c);
void ovk__nullspace_free(ovk__nullspace *ns);
/* The basis vectors of this solve (0: no null space). */
static inline int ovk__nullspace_count(const ovk__ctx *c) { return c->ns ? c->ns->k : 0; }
/* Local, for a variant's own reduction: with a null space, vals[k..room)
 * zeroed and the local Z^T u put at vals[room..room + nk); returns the
 * count to reduce (k without one).  After the reduction
 * ovk__nullspace_remove(c, vals + room, ...) applies it. */
int ovk__nullspace_append(ovk__ctx *c, double *vals, int k, int room, const double *u);
/* Local: u -= Z coef, and (x not NULL) x -= alpha Z coef, for an x that
 * took alpha u before the correction.  No-op without a null space. */
void ovk__nullspace_remove(ovk__ctx *c, const double *coef, double *u, double alpha, double *x);
/* Collective (one blocking reduction each; nothing without a null space):
 * the solve's b projected (c->b then points at the copy; res's
 * nullspace_inconsistency = ||Z^T b|| / ||b||), and x projected at the end. */
int ovk__nullspace_begin_solve(ovk__ctx *c);
int ovk__nullspace_end_solve(ovk__ctx *c);

/* ---- Dirichlet rows eliminated (dirichlet.c) --------------------------- */

/* A variant that needs a symmetric A, on an A symmetric apart from the
 * columns of its Dirichlet rows (a_ii its only nonzero, the column not
 * eliminated): the solve runs on E, A with those columns dropped from the
 * other rows (ovk__matrix_eliminate), for b' = b - A x~ (x~ = b_i / a_ii on
 * the Dirichlet rows, 0 elsewhere; b'_i = b_i there), whose solution is A x
 * = b's; x_i = b_i / a_ii is set on those rows at the end. */
typedef struct ovk__elim {
    ovk_matrix *E;      /* NULL: nothing eliminated */
    int *rows, nrows;   /* this rank's Dirichlet rows */
    long long count;    /* over the ranks */
    double *b, *xd;     /* a solve's b' and x~ (n rows each) */
    const double *b_in; /* the solve's own b */
} ovk__elim;
/* Collective: e made anew from A's values (E's values updated when they
 * keep its pattern); E NULL when A has no Dirichlet row.  The same status
 * on every rank. */
int ovk__elim_setup(ovk__elim *e, const ovk_matrix *A);
void ovk__elim_free(ovk__elim *e);
/* Collective (one product with A): out = b' of b (out may not be b);
 * with x not NULL (an initial guess) its Dirichlet rows set to b_i / a_ii. */
int ovk__elim_rhs(ovk__ctx *c, ovk__elim *e, const ovk_matrix *A, const double *b, double *out, double *x);
/* Local: x_i = b_i / a_ii on the Dirichlet rows (when the solve runs on
 * E, c->A; else nothing). */
void ovk__elim_fix(const ovk__ctx *c, const ovk__elim *e, const ovk_matrix *A, const double *b, double *x);
/* A solve's: c->b replaced by b' (e->b), then x fixed; nothing unless the
 * solve runs on E. */
int ovk__elim_begin_solve(ovk__ctx *c, ovk__elim *e, const ovk_matrix *A);
void ovk__elim_end_solve(ovk__ctx *c, const ovk__elim *e, const ovk_matrix *A);
/* Collective, a batch's: each b[j] not NULL replaced by its b' in *room
 * (malloc'd, k vectors; the caller frees it), x[j]'s Dirichlet rows set
 * unless the guess is zero; nothing (*room NULL) unless it runs on E.
 * ovk__elim_fix of each system's b and x at the end. */
int ovk__elim_many_begin(ovk__ctx *c, ovk__elim *e, const ovk_matrix *A, int k, const double **b, double *const *x,
                         double **room);

/* The registered variant `name` (methods/registry.c, from
 * registry_list.h), or NULL. */
const ovk__solver *ovk__solver_find(const char *name);
/* "alg1, alg2, ..." into buf; with unsplit_only, those that take any
 * preconditioner (not `split`). */
void ovk__solver_names(char *buf, size_t len, int unsplit_only);
/* "bicgstab, pipebicgstab, ..." into buf: the variants with OVK__CAP_NONSYMMETRIC. */
void ovk__solver_nonsymmetric_names(char *buf, size_t len);
/* "rpipecg" into buf: the variants with OVK__CAP_RECYCLES. */
void ovk__solver_recycling_names(char *buf, size_t len);
/* "alg1, alg2, ..." into buf: the variants with every bit of cap. */
void ovk__solver_cap_names(char *buf, size_t len, unsigned cap);

/* 0 when v is finite and positive (or zero, with zero_ok); else the solve
 * stops at iteration iter on a breakdown (v finite: not SPD, or for a
 * nonsymmetric variant a singular operator) or a non-finite value of what,
 * and 1 is returned. */
int ovk__breakdown(ovk__ctx *c, int iter, const char *what, double v, int zero_ok);
/* The first steps of a (re)start of the single-reduction recurrences:
 * r = b - A x (unless r_ready), u = C r, w = A u (frame.c). */
int ovk__restart_vectors(ovk__ctx *c, int r_ready, double *r, double *u, double *w);

/* ---- helpers shared by the variants (solver_common.c) ---------------- */

/* Start an in-place global sum of k values; times the start under dot's init
 * timer.  After a failed callback on this rank the values are NaN, so that
 * every rank stops at the same iteration. */
int ovk__sum_begin(ovk__ctx *c, ovk__dot_id dot, double *vals, int k, ovk_request **req);
/* Complete it; times the wait under dot's wait timer. */
int ovk__sum_end(ovk__ctx *c, ovk__dot_id dot, ovk_request *req);
/* Complete it whatever the work since its start returned (rc): the first
 * failure of the two, or OVK_OK. */
int ovk__sum_finish(ovk__ctx *c, ovk__dot_id dot, ovk_request *req, int rc);
/* Both at once. */
int ovk__sum(ovk__ctx *c, ovk__dot_id dot, double *vals, int k);

/* bb = <b,b>, rr = <r,r> for the initial residual; returns a reason when
 * the solve is already decided (b == 0, converged at x0, non-finite, the
 * monitor).  The frame's (frame.c). */
int ovk__initial_check(ovk__ctx *c, const double *r, double *bb, int *decided);
/* The same in two parts, for a variant that defers it: the local
 * v = {<b,b>, <r,r>} to add to its own sum, then, with the reduced v, the
 * decision (c->watch.initial_pending cleared; *bb = v[0]). */
void ovk__initial_dots(const ovk__ctx *c, const double *r, double v[2]);
int ovk__initial_values(ovk__ctx *c, const double v[2], double *bb, int *decided);
/* norm=natural: the same from the reduced v = {<b,b>, <b,C b>, <r0,C r0>}
 * (<b,b> decides b = 0 and the scaling); *bb = <b,C b>, the reference of
 * the tests, rhs_norm and rel_residual. */
int ovk__initial_natural(ovk__ctx *c, const double v[3], double *bb, int *decided);

/* Per-iteration decision: records iterations and residual; sets *stop when
 * converged (tolerances or the convergence test), diverged, non-finite or
 * stopped by the monitor (its vote, carried by an earlier sum).  Prints at
 * print_level 2 and with -ovk_monitor.  Local (no reduction of its own),
 * but for -ovk_monitor_true (one product and one blocking sum). */
int ovk__iterate_check(ovk__ctx *c, int iter, double iprod, double bb, int *stop);

/* The recursive residual met the tolerance: so must the true one.  r is
 * overwritten with b - A x (one blocking reduction), rel_residual set from
 * it; *ok = 1 and the reason converged when it meets the tolerance; *ok = 0
 * (and the reason reset) when it does not, but *ok = 1 and the reason
 * stagnated (OVK_ESTAGNATED's detail set) when it has failed
 * OVK__STAGNATION_CHECKS confirmations in a row without the true ||r||
 * halving: an inexact operator (matrix-free differences) or a tolerance
 * below the attainable accuracy, where iterating on would only drift.
 * On *ok = 1 the variant stops with the reason as set.  After a failed
 * confirmation on an operator callback (not an assembled matrix: the
 * callback may not be linear), ovk__iterate_check stops the solve
 * stagnated too when the
 * iterated ||r|| has not fallen below half the true one within a window
 * of iterations: 4x those the solve took per halving until then, at least
 * 10 (the residual the variant carries on from the true one does not
 * converge again when the operator is not linear). */
enum { OVK__STAGNATION_CHECKS = 4 };
int ovk__confirm(ovk__ctx *c, double bb, double *r, int *ok);
/* The same decision on a reduced value the variant made of the true
 * residual (norm=natural: <r, C r> with r = b - A x). */
int ovk__confirm_value(ovk__ctx *c, double bb, double rr, int *ok);

/* Mark a breakdown or non-finite value found at iteration iter. */
void ovk__stop(ovk__ctx *c, int iter, ovk_reason why, const char *what, double value);

/* s = A p, timed as matvec, progress hook active. */
int ovk__ctx_matvec(ovk__ctx *c, const double *p, double *s);
/* r = b - A x (timed as matvec). */
int ovk__ctx_residual(ovk__ctx *c, double *r);
/* The solve's starting residual: r = b when the guess is zero (no
 * product), else r = b - A x. */
int ovk__ctx_start_residual(ovk__ctx *c, double *r);
/* z = C r, timed as precond. */
int ovk__ctx_pc(ovk__ctx *c, const double *r, double *z);
/* z = C r with the local <r,z> and <r,r>, timed as precond. */
int ovk__ctx_pc_dots(ovk__ctx *c, const double *r, double *z, double *rz, double *rr);
/* t = L^-1 r (with the local <t,t> when tt is not NULL) and w = L^-T t of
 * the split form C = L^-T L^-1; timed as precond. */
int ovk__ctx_pc_left(ovk__ctx *c, const double *r, double *t, double *tt);
int ovk__ctx_pc_right(ovk__ctx *c, const double *t, double *w);
/* s = A p and the local <p, s> in the matvec's pass (ovk__matvec_dot),
 * timed as matvec; with a user operator the product, then ovk__dot. */
int ovk__ctx_matvec_dot(ovk__ctx *c, const double *p, double *s, double *ps);
/* C's diagonal when C is diagonal (the fused kernels), else NULL. */
const double *ovk__ctx_pc_diagonal(const ovk__ctx *c);
/* a when C r = r ./ a by division (Jacobi), else NULL. */
const double *ovk__ctx_pc_divisor(const ovk__ctx *c);
/* y += a x, timed as axpy. */
void ovk__ctx_axpy(ovk__ctx *c, double a, const double *x, double *y);
/* End of an iteration of the loops whose x update lags one step (alg2,
 * overlap): p_prev <- p, the convergence check, and on stopping (converged
 * or max_iter) the last x += alpha p.  *done = 1 when the loop must stop. */
int ovk__lagged_iter_end(ovk__ctx *c, int iter, double iprod, double bb, double alpha, double **p,
                         double **p_prev, int *done);
/* After ovk__lagged_iter_end stopped them (*done) on convergence: the
 * true residual must converge too (ovk__confirm, r = b - A x).  If it does
 * not, r holds b - A x (counted as a replacement), *alpha = 0 (x has the
 * last step) and *done = 0 unless iter is the last: the caller recomputes
 * what it derives from r and goes on. */
int ovk__lagged_confirm(ovk__ctx *c, int iter, double bb, double *r, double *alpha, int *done);
/* out[j] = global <x[j], y[j]>, j < k, one pass (timed as axpy) and one
 * blocking reduction of k values (timed as iprod). */
int ovk__ctx_dots(ovk__ctx *c, int k, const double *const *x, const double *const *y, double *out);
/* 1 when <r,r> = rr meets the tolerance. */
static inline int ovk__converged(const ovk__ctx *c, double rr) { return rr < c->watch.rr_stop; }

/* ---- many right-hand sides (many.c) ---------------------------------- */

/* Collective: the k systems A X[j] = B[j] of the set-up variant v (its
 * parsed options in c->params) solved together from the solver's context
 * c, each in its own context copy and variant instance, results[j] each
 * system's (reason, iterations, residual, timers; reductions: the whole
 * batch's); st[j] its status (OVK_OK or what its solve returned, agreed)
 * and why[j] the detail its solve left (agreed with st[j]: a failure's
 * names the rank that failed; a breakdown's says where it was found).
 * *current: the index of the system whose code runs (its callbacks can
 * ask), -1 after.  Returns OVK_OK or an error of the batch itself
 * (OVK_ENOMEM, agreed), in which case no system's result is meaningful. */
int ovk__many_solve(ovk__ctx *c, const ovk__variant *v, int k, const double *const *B, double *const *X,
                    ovk_result *results, int *st, char (*why)[OVK__DETAIL_LEN], int *current);

/* ---- recycling a space across solves (recycle.c) ---------------------- */

/* Local: storage for the option's K (c->recycle.want) on c->n rows; the
 * space is kept when they are unchanged, else dropped (OVK_ENOMEM).
 * products: W, A W, C A W (3K each: the update's Z) and A C A W (K), as
 * deflated CG needs (recycle.c's project and update); 0: W and A W, 2K
 * each (MAW, AMAW NULL: gcrodr's U and Ck). */
int ovk__recycle_reserve(ovk__ctx *c, int products);
void ovk__recycle_free(ovk__recycle *r);
/* Local: the space dropped, why in its note. */
void ovk__recycle_drop(ovk__recycle *r, const char *why);
/* Local: its lines of ovk_solver_view. */
void ovk__recycle_view(const ovk__recycle *r, FILE *f);
/* 1 when this solve may use and update the space: recycle on, not scaled,
 * not one system of a batch. */
int ovk__recycle_active(const ovk__ctx *c);
/* Collective: at a solve's start (and after a restart) with r = b - A x:
 * A W, C A W, A C A W made again when A's values changed since; one
 * reduction of W^T r and E = W^T A W; E factored (a space whose E is not
 * finite or not well conditioned is dropped, the note says why); then
 * x += W E^-1 W^T r, r -= A W E^-1 W^T r.  *k: the dimension this solve
 * deflates (0: none). */
int ovk__recycle_project(ovk__ctx *c, double *r, int *k);
/* Local: mu = E^-1 g (k values). */
void ovk__recycle_solve(const ovk__recycle *r, int k, const double *g, double *mu);
/* Local: g[j] += <W[j], wv> over rows [i0, i0 + len), j < k, four sums per
 * pass over wv's chunk (the deflation's sums of rcg and rpipecg) */
void ovk__recycle_dots(const double *restrict wv, double *const *W, int k, int i0, int len, double *g);
/* Local, the same on every rank: 1 when this solve runs the eigCG window
 * (incremental eigCG): while the space is not full, and again after a solve
 * that took 10% more iterations than the fewest since it was made. */
int ovk__recycle_collect(const ovk__ctx *c);
/* Collective: after a solve, the space made again by Rayleigh-Ritz of C A
 * in the A inner product on [W, U], U the window's nev smallest Ritz
 * vectors: nev products and preconditioner applications for A U, C A U,
 * one reduction, then k products for A C A W; after a solve that did not
 * collect, only its iterations noted. */
int ovk__recycle_update(ovk__ctx *c, ovk__eigwin *w);
/* Local: the window for nev values (OVK_ENOMEM); free: a zeroed w is fine. */
int ovk__eigwin_alloc(ovk__eigwin *w, int n, int nev);
void ovk__eigwin_free(ovk__eigwin *w);
/* Local: room for the next Lanczos vector, u * *scale (scale = 1 / sqrt(gamma),
 * the caller writes it), with T's diagonal entry and its coupling off to the
 * previous vector; NULL once closed or full. */
double *ovk__eigwin_next(ovk__eigwin *w, double gamma, double diag, double off, double *scale);
/* Local: a full window thick-restarted (the vectors' work, progress hook
 * active: for the time a reduction is in flight). */
void ovk__eigwin_compress(ovk__ctx *c, ovk__eigwin *w);

/* ---- the Lanczos condition estimate (condest.c) ----------------------- */

/* Record the coefficients of one CG step: alpha_j, and the beta_j that built
 * p_j = z_j + beta_j p_{j-1} (0 for the first step and after a restart).
 * A no-op unless opts->condest. */
static inline void ovk__lanczos_add(ovk__ctx *c, double alpha, double beta)
{
    ovk__lanczos *lz = &c->lanczos;
    if (lz->count < lz->cap) {
        lz->alpha[lz->count] = alpha;
        lz->beta[lz->count++] = beta;
    }
}
/* lambda_min, lambda_max and cond_est of res from the recorded steps (the
 * same on every rank: the coefficients are reduced values). */
void ovk__condest_end(ovk__ctx *c);

/* ---- one reduction per iteration: cg1, pipecg (single_reduction.c) ------------ */

/* Slots of the local sums of the single-reduction variants: <r,u>, <w,u>,
 * <r,r>; <u,s>, <p,w>, <p,s> (new u, w with the p, s of the step, for <p,Ap>
 * of the next step); then the squared norms of the vectors that the
 * residual-gap estimate needs. */
enum {
    OVK__V_GAMMA, OVK__V_DELTA, OVK__V_RR, OVK__V_US, OVK__V_PW, OVK__V_PS,
    OVK__V_XX, OVK__V_PP, OVK__V_SS, OVK__V_UU, OVK__V_WW, OVK__V_QQ, OVK__V_ZZ, OVK__V_MM,
    OVK__V_COUNT
};

/* A fused pass's k local sums into their slots of v: stored in the slots
 * listed (v[slot[j]] = sums[j], the other slots left alone), or added to
 * v[0..k) in slot order (a pass in chunks, each adding its rows' sums). */
static inline void ovk__sums_store(double *v, int k, const int *slot, const double *sums)
{
    for (int j = 0; j < k; j++) v[slot[j]] = sums[j];
}
static inline void ovk__sums_add(double *v, int k, const double *sums)
{
    for (int j = 0; j < k; j++) v[j] += sums[j];
}

/* What a single-reduction variant does after its reduction completes. */
typedef enum ovk__single_reduction_action {
    OVK__SINGLE_STEP,    /* alpha and beta are set: do one CG step */
    OVK__SINGLE_STOP,    /* res->reason is set */
    OVK__SINGLE_REPLACE, /* residual replacement: r = b - A x and the auxiliary
                        vectors recomputed, the directions kept */
    OVK__SINGLE_RESTART  /* the same with the directions reset (p = 0, beta = 0) */
} ovk__single_reduction_action;

typedef struct ovk__single_reduction {
    double bb;          /* <b,b> */
    double alpha, beta; /* the step to do (then: the step just done) */
    double gamma_old;   /* <r,u> of the previous step */
    int pipelined;      /* the w and z gaps accumulate too (pipecg) */
    int restarted;      /* vectors fresh from a restart, no step done since */
    int since_replace;  /* steps since the last replacement */
    /* bounds on the gaps b - A x - r, A p - s, A u - w, A q - z (Cools et al.) */
    double eps, anorm, longest_row; /* unit roundoff, ||A||_inf, entries in the longest row */
    double f, f_old, g, h, j, rnorm, rnorm_old;
    double pp_old, ss_old, qq_old, zz_old; /* squared norms from the step before */
    double rstop;       /* sqrt(rr_stop): the residual norm that converges */
    double r_ref;       /* stagnation: ||r|| to halve, and the steps spent trying */
    int stalled;
    double r_fresh;     /* ||r|| at the last replacement or restart */
} ovk__single_reduction;

/* A variant's replacement (restart = 0) or restart (1): recompute r = b - A x
 * and the auxiliary vectors, and reduce the values v of the decision
 * (single_reduction.c). */
typedef int (*ovk__single_reduction_refresh)(ovk__ctx *c, void *work, int restart);

/* The parts of a single-reduction variant that ovk__single_reduction_run drives. */
typedef struct ovk__single_reduction_ops {
    int pipelined;           /* the w and z gaps accumulate too (as ovk__single_reduction.pipelined) */
    ovk__single_reduction_refresh refresh; /* replacement or restart */
    /* the first refresh: r = b - A x is already there, the directions are zero */
    int (*start)(ovk__ctx *c, void *work);
    /* one step with alpha and beta of st, ending with the reduction of the
     * values v; more = 0 when no further step can follow */
    int (*step)(ovk__ctx *c, void *work, const ovk__single_reduction *st, int more);
} ovk__single_reduction_ops;

/* Collective: a variant's iterate from r = b - A x in r with bb = <b,b>:
 * start, then decide (on the values v, refreshing as asked) and step until a stop. */
int ovk__single_reduction_run(ovk__ctx *c, const ovk__single_reduction_ops *ops, void *work, double *r, const double *v,
                              double bb);

/* ---- the GMRES family (gmres.c; pgmres.c uses it too) ----------------- */

/* When classical Gram-Schmidt makes a second pass (PETSc's
 * -ksp_gmres_cgs_refinement_type names): never (unless the one-pass norm
 * cancelled), ifneeded (CGS2), always; ovk__gmres_refine_names spells them. */
enum { OVK__REFINE_NEVER, OVK__REFINE_IFNEEDED, OVK__REFINE_ALWAYS };
extern const char *const ovk__gmres_refine_names[];
/* The Gram-Schmidt scheme (orth=): dcgs2, classical Gram-Schmidt with the
 * second pass delayed one step into the next step's reduction (one
 * reduction per step, two passes' orthogonality), or cgs, classical
 * passes as refine= says; ovk__gmres_orth_names spells them. */
enum { OVK__ORTH_DCGS2, OVK__ORTH_CGS };
extern const char *const ovk__gmres_orth_names[];
/* How gmres and fgmres store the Krylov basis: double, or single (float
 * storage, all arithmetic in double; the solution confirmed on the true
 * residual as always); ovk__gmres_basis_names spells them. */
enum { OVK__BASIS_DOUBLE, OVK__BASIS_SINGLE };
extern const char *const ovk__gmres_basis_names[];

/* The parsed spec of gmres, fgmres and pgmres (one layout: pgmres's
 * fallback, gmres, reads the same params): the restart M, the refinement
 * (gmres, fgmres; pgmres: never) and, for pgmres, the depth l and the
 * shifts' interval [lmin, lmax] (user_shifts: given). */
typedef struct ovk__gmres_params {
    long restart, l, orthloss;
    double lmin, lmax;
    int user_shifts, refine, basis, orth;
} ovk__gmres_params;
/* Local: the spec's keys (restart, refine, basis; with pipelined restart, l in
 * 1..max_l, lmin, lmax) into *out (malloc'd, the caller's even on failure). */
int ovk__gmres_parse(ovk__opts *o, const char *owner, int pipelined, int max_l, ovk__gmres_params **out);

/* The least-squares problem of a cycle: the (m + 1) x m Hessenberg matrix,
 * triangular as its columns are rotated (Givens), and the rotated beta e_1. */
typedef struct ovk__arnoldi {
    int m;
    double *h;              /* column j at h + j (m + 1) */
    double *cs, *sn, *g, *y; /* rotations, right-hand side, solution */
    /* dcgs2: H's column j is that of u_j / alpha_j, u_j = V s_j + alpha_j v_j
     * the vector the step multiplied; s's column j (at s + j (m + 1)) holds
     * s_j / alpha_j and 1 / alpha_j (lagged set; ovk__arnoldi_start clears it) */
    double *s;
    int lagged;
} ovk__arnoldi;
/* Local: room for restart m (OVK_ENOMEM); free: a zeroed a is fine. */
int ovk__arnoldi_alloc(ovk__arnoldi *a, int m);
void ovk__arnoldi_free(ovk__arnoldi *a);
/* g = beta e_1 */
void ovk__arnoldi_start(ovk__arnoldi *a, double beta);
/* column j (H(0..j+1, j) to fill before rotating it) */
double *ovk__arnoldi_column(ovk__arnoldi *a, int j);
/* column j of s (dcgs2) */
double *ovk__arnoldi_lagged(ovk__arnoldi *a, int j);
/* the earlier rotations and a new one on column j: returns |g_{j+1}|, the
 * residual norm of the least-squares solution of the first j + 1 columns */
double ovk__arnoldi_rotate(ovk__arnoldi *a, int j);
/* y of the first k columns (back substitution): returns the smallest
 * |diagonal| of R (0: singular) */
double ovk__arnoldi_solve(ovk__arnoldi *a, int k);

/* Local, timed as axpy, progress hook active: out[i] = <X[i], w>, i < k,
 * in one pass over w (the sums of a reduction); y = scale (y + sum_i
 * coef[i] X[i]) in one pass over y.  Both take the X four at a time. */
void ovk__gmres_dots(ovk__ctx *c, int k, const double *const *X, const double *w, double *out);
void ovk__gmres_combine(ovk__ctx *c, int k, const double *const *X, const double *coef, double scale, double *y);
/* y = a x (in place allowed) */
void ovk__gmres_scale(ovk__ctx *c, double a, const double *x, double *y);

/* What a cycle leaves for its end: k columns done at iteration iter. */
typedef struct ovk__gmres_cycle {
    ovk__arnoldi *ls;
    double *const *V;      /* the basis */
    double *const *Z;      /* the preconditioned basis (flexible), or NULL: x += C V y */
    double *t, *r;         /* scratch; r holds b - A x after */
    float *const *F;       /* basis=single: the basis (V[0], V[1] then hold w and v_j), or NULL */
    int k, iter;
    int orth;              /* OVK__ORTH_* */
    int refine;            /* orth=cgs: OVK__REFINE_*, the Gram-Schmidt passes */
    int undo_rises;        /* the end undoes an update that raised the residual more than rounding does */
    int reverted;          /* set by the end: the update raised the true residual and was undone */
    int deeper;            /* set by the end: an estimate's convergence was not confirmed; the
                            * later cycles run on past the estimate's (gmres.c) */
    double rr_end;         /* set by the end: ||b - A x||^2 after the update (before an undo) */
    double dd, xx;         /* set by an undo: ||d||^2 of the update undone, ||x||^2 after it */
} ovk__gmres_cycle;
/* Collective: the end of a cycle after the check of its last step (whose
 * reason stands in res): x updated from the k columns (not after a
 * non-finite value or a breakdown); then, unless the monitor or divergence
 * stopped it, r = b - A x and rr = <r,r> (one reduction) decide again
 * (a converged estimate must be confirmed) and max_iter; *stop when done.
 * An update that made the true residual non-finite, raised it above the
 * solve's initial one, or (undo_rises) more than a tenth above the
 * cycle's start (*rr on entry) is undone (x as at the start, r summed
 * again with ||d|| and ||x||: one product, one reduction), cy->reverted
 * set.  After a non-finite value or a breakdown x is the cycle's start
 * and rel_residual that of its true residual (*rr on entry). */
int ovk__gmres_cycle_end(ovk__ctx *c, ovk__gmres_cycle *cy, double bb, double *rr, int *stop);
/* Collective: one classical cycle (gmres.c's) of up to m steps from r
 * (||r||^2 = rr) at iteration cy->iter, then its end: cy->k, cy->iter
 * advanced; hraw (not NULL): H's columns before the rotations, (m + 1) apart. */
int ovk__gmres_cycle_run(ovk__ctx *c, ovk__gmres_cycle *cy, int m, double bb, double *rr, double *hraw, int *stop);

/* Seconds since an arbitrary origin. */
static inline double ovk__now(void) { return MPI_Wtime(); }

static inline ovk__tic ovk__tic_start(const ovk__ctx *c)
{
    ovk__tic k = {ovk__now(), c->clock.progress_time};
    return k;
}

static inline void ovk__tic_stop(ovk__ctx *c, ovk_timer t, ovk__tic k)
{
    c->clock.t[t] += (ovk__now() - k.t0) - (c->clock.progress_time - k.p0);
}

/* The progress hook: drives the reducer and books the time as the in-flight
 * inner product's test time. */
void ovk__ctx_progress(void *ctx);

/* ---- the solver object (src/solvers/interface/object*.c) ------------- */

/* Keep the refusal rc (and the calling thread's detail) in s: setup then
 * fails with it on every rank until an option is set successfully.  For
 * bindings whose create takes options (Fortran): a rank whose value was
 * refused keeps its solver, so no rank is left alone in a collective.
 * Returns rc. */
int ovk__solver_refuse(ovk_solver *s, int rc);
/* Local: the next ovk_solver_solve on s fails with rc and the current
 * detail on this rank (a binding refused the caller's arrays), agreed with
 * the other ranks' solve as a bad vector would be; returns rc. */
int ovk__solver_refuse_solve(ovk_solver *s, int rc);
/* ovk_solver_create_operator with the rows' ids in failure details in
 * index base `base` (0, or 1 for the Fortran binding). */
int ovk__solver_create_operator_base(MPI_Comm comm, int nlocal, ovk_apply_fn matvec, void *ctx, int base,
                                     ovk_solver **out);

/* The keys of the solver's option table (object_options.c), for the options
 * database (options.c): how many, the key of index i (NULL outside). */
int ovk__solver_option_count(void);
/* The range of values of option i as text ("integer 0..2", "real > 0"). */
void ovk__solver_option_range(int i, char *buf, size_t len);
/* -ovk_help (help.c): every key as -[prefix]ovk_KEY with s's current value,
 * its range and meaning, and the names to choose from, to f.  Local. */
void ovk__solver_help(const ovk_solver *s, const char *prefix, FILE *f);
/* OVK_OK when s is a solver that may change now; else its refusal
 * (OVK_EINVAL, or OVK_EBUSY from a callback of its setup or solve), local. */
int ovk__solver_usable(const ovk_solver *s, const char *fn);
/* Local: ovk_solver_destroy without its collective parts (the
 * -ovk_log_view report, the agreement of the reducer it made), for a
 * garbage collector whose moment differs between ranks (python.c). */
int ovk__solver_release(ovk_solver **sp);
const char *ovk__solver_option_key(int i);
/* Collective: a rank's local status rc agreed in the reduction that
 * starts a setup (ovk__layout_agree_state): a rank whose s is NULL or
 * destroyed takes part, so the others fail (OVK_EMISMATCH) rather than
 * wait; it returns its own rc.  Else the agreed status (the culprit's code
 * and detail, one more reduction when some rank failed). */
int ovk__solver_agree(const ovk_solver *s, int rc, const char *what);
/* 1 when option i is a flag (on/off), the only kind that may be given
 * without a value (-ovk_monitor); 0 otherwise. */
int ovk__solver_option_is_flag(int i);

#endif
