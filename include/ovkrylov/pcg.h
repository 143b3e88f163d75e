/* ovkrylov: the one-call solve, its options and the result every solve reports.
 *
 * ovk_solve() solves A x = b in one
 * call: it creates a solver object (solver.h) from the options, sets it
 * up, solves and destroys it.  Applications that solve more than once keep
 * the object instead.  The solver variant is chosen by name:
 *
 *   "alg1"     hypre's PCG (PCG-Algorithm1): three blocking inner products
 *   "alg2"     PCG-Algorithm2: split preconditioner L = sqrt(diag A), L^-1
 *              applied as a multiplication (DiagInvScale)
 *   "overlap"  PCG-Overlap: Algorithm2 with every inner product started early
 *              and completed late
 *   "cg1"      single-reduction PCG (Chronopoulos-Gear): <r,u>, <w,u> and
 *              <r,r> in one blocking reduction per iteration
 *   "pipecg"   pipelined PCG (Ghysels-Vanroose, PETSc's KSPPIPECG): the one
 *              reduction per iteration is started before, and completed
 *              after, the preconditioner and the matvec, which drive its
 *              progress
 *   "groppcg"  Gropp's PCG (PETSc's KSPGROPPCG): two non-blocking reductions,
 *              one behind the preconditioner, one behind the matvec
 *   "pipeprcg" pipelined predict-and-recompute PCG (Chen-Carson, PETSc's
 *              KSPPIPEPRCG): one reduction behind two matvecs and two
 *              preconditioner applications, classical attainable accuracy
 *   "plcg"     p(l)-CG (Cornelis-Cools-Vanroose): a deep pipeline, l
 *              reductions in flight behind l matvecs ("plcg:l=3")
 *   "auto"     measures the reduction latency and the local work of an
 *              iteration at setup and picks alg1, pipecg or plcg with its depth
 *              (pipeprcg after plcg broke down); see auto_choice below
 * The solver object (solver.h) also runs the variants for any nonsingular
 * matrix (gmres, fgmres, pgmres, bicgstab, pipebicgstab, idrs, pipeidrs);
 * ovk_solver_type_count/_name/_description list every variant with its
 * options, and docs/solvers.md says when each pays.
 *
 * Every variant stops when ||r||_2 < max(rtol ||b||_2, atol) (hypre's two-norm
 * test, with an absolute floor) or after max_it iterations, and runs on
 * any reduction backend.  Every variant confirms convergence with the true
 * residual b - A x (so rel_residual is then the true one) and replaces the
 * recursive residual when it drifts from the true one; cg1, pipecg and
 * pipeprcg also restart from the current x after a breakdown of their
 * recurrences, and plcg falls back to pipeprcg's; a breakdown that persists
 * is reported.
 *
 * Time breakdown of cg1 and pipecg: their batched reduction is booked as
 * "iprod" (init/test/wait), their fused vector updates and local dot
 * products as "axpy", the Jacobi step of cg1 (fused into its update pass)
 * as "axpy" too, pipecg's m = B w as "precond".
 */
#ifndef OVKRYLOV_PCG_H
#define OVKRYLOV_PCG_H

#include <stdio.h>

#include "matrix.h"
#include "reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ovk_precond {
    OVK_PRECOND_DIAG = 0, /* Jacobi: DiagScale (alg1) / DiagInvScale (alg2, overlap) */
    OVK_PRECOND_NONE = 1
} ovk_precond; /* the struct form's choice; precond_spec names every preconditioner */

/* Why the solve stopped: X(name, value, text), written once (the enum and
 * ovk_reason_name come from it). */
#define OVK_REASON_LIST(X)                                                                       \
    X(OVK_REASON_NONE, 0, "none")                  /* the solve did not run (argument error) */ \
    X(OVK_REASON_CONVERGED, 1, "converged")        /* ||r|| < max(rtol ||b||, atol) */          \
    X(OVK_REASON_MAXIT, 2, "iteration limit")      /* max_it reached */                        \
    X(OVK_REASON_BREAKDOWN, 3, "breakdown")        /* <p,Ap> <= 0 or <r,Cr> < 0: not SPD */    \
    X(OVK_REASON_NONFINITE, 4, "non-finite")       /* NaN or Inf in the iteration */           \
    X(OVK_REASON_MONITOR, 5, "stopped by the monitor") /* the monitor callback asked to stop */ \
    X(OVK_REASON_DIVERGED, 6, "diverged")          /* ||r|| > divtol ||r0||, or the convergence test said so */ \
    X(OVK_REASON_STAGNATED, 7, "stagnated")        /* the recursive ||r|| met the tolerance, the true one stayed above it */

typedef enum ovk_reason {
#define OVK_REASON_ENUM_(name, value, text) name = value,
    OVK_REASON_LIST(OVK_REASON_ENUM_)
#undef OVK_REASON_ENUM_
} ovk_reason;

/* The time breakdown (Table I of the PCG-Overlap paper).  An inner product's
 * time is split into init (start), test (polls) and wait (completion); for a
 * blocking backend it all lands in init.  "scale" is DiagInvScale: the
 * split solvers (alg2, overlap) multiplying by the stored L^-1 of Jacobi;
 * other preconditioner work is "precond". */
#define OVK_TIMER_LIST(X)                   \
    X(OVK_TIMER_MATVEC, "matvec")           \
    X(OVK_TIMER_PRECOND, "precond")         \
    X(OVK_TIMER_AXPY, "axpy")               \
    X(OVK_TIMER_SCALE, "scale")             \
    X(OVK_TIMER_SDOTP_INIT, "sdotp init")   \
    X(OVK_TIMER_SDOTP_TEST, "sdotp test")   \
    X(OVK_TIMER_SDOTP_WAIT, "sdotp wait")   \
    X(OVK_TIMER_GAMMA_INIT, "gamma init")   \
    X(OVK_TIMER_GAMMA_TEST, "gamma test")   \
    X(OVK_TIMER_GAMMA_WAIT, "gamma wait")   \
    X(OVK_TIMER_IPROD_INIT, "iprod init")   \
    X(OVK_TIMER_IPROD_TEST, "iprod test")   \
    X(OVK_TIMER_IPROD_WAIT, "iprod wait")   \
    X(OVK_TIMER_SOLVE, "solve") /* the whole solve */

typedef enum ovk_timer {
#define OVK_TIMER_ENUM_(name, text) name,
    OVK_TIMER_LIST(OVK_TIMER_ENUM_)
#undef OVK_TIMER_ENUM_
    OVK_TIMER_COUNT
} ovk_timer;

/* The options of ovk_solve and ovk_solver_set_options, named like the option keys (rtol,
 * max_it).  The CG-era names stay one release as deprecated aliases: the type ovk_pcg_options,
 * the fields tol and max_iter (the same storage as rtol and max_it). */
typedef struct ovk_solve_options {
    const char *solver;   /* variant name; NULL means "alg1" */
    ovk_reducer *reducer; /* reduction backend to use; NULL: create one from `backend` */
    const char *backend;  /* backend spec used when reducer is NULL; NULL: $OVK_REDUCE_BACKEND,
                             else "blocking" */
    union {
        double rtol;      /* relative two-norm tolerance (default 1e-8) */
        double tol;       /* deprecated: rtol */
    };
    union {
        int max_it;       /* iteration limit (default 1000) */
        int max_iter;     /* deprecated: max_it */
    };
    ovk_precond precond;  /* default OVK_PRECOND_DIAG */
    int print_level;      /* 0 quiet; 2 prints the residual every iteration on rank 0 */
    int progress_every;   /* long kernels drive reductions in flight every this many rows;
                             0: library default, -1: never */
    FILE *out;            /* where print_level output goes (default stdout) */
    int condest;          /* 1: estimate the extreme eigenvalues of the preconditioned operator
                             from the CG coefficients (Lanczos); see lambda_min in the result.
                             Default 0 */
    int replace_every;    /* cg1, pipecg residual replacement (r = b - A x and the auxiliary
                             vectors recomputed): 0 (default) automatic: when a bound on the gap
                             between the recursive and the true residual crosses sqrt(eps)||r||
                             (Cools et al., SIMAX 2018) and exceeds tol||b||, or (pipecg) when
                             ||r|| has not halved in 100 iterations; k > 0: every k iterations; < 0:
                             never (the exit test still uses the true residual and replaces
                             when it fails); pipebicgstab and pipeidrs: 0 every 100 steps up
                             to 1000, k > 0 every k, < 0 never; pminres (its carried C u, A C u
                             recomputed): 0 at each tenfold drop of ||r|| and at least every
                             50 steps, k > 0 every k, < 0 never */
    const char *precond_spec; /* preconditioner spec "name[:key=value,...]" (jacobi, diag, none, ic0,
                             ssor, cheby; see solver.h); NULL: from `precond` */
    double atol;          /* absolute tolerance: converged when ||r|| < max(rtol ||b||, atol); 0 */
} ovk_solve_options;
typedef ovk_solve_options ovk_pcg_options; /* deprecated: ovk_solve_options */

/* What every solve reports, whatever the solver (CG, GMRES, MINRES, ...). */
typedef struct ovk_result {
    int iterations;              /* iterations done */
    double rel_residual;         /* final ||r||/||b|| of the recursive residual (cg1, pipecg,
                                    bicgstab, pipebicgstab: of the true residual b - A x when
                                    converged, at the iteration limit and, bicgstab on a split
                                    preconditioner (eisenstat), after a breakdown; bicgstab's
                                    split loop on OVK_REASON_STOPPED or DIVERGED: its estimate
                                    q ||r^|| of ||r||, docs/solvers.md) */
    ovk_reason reason;           /* why it stopped */
    long long reductions;        /* global reductions started by the solve */
    double time_max[OVK_TIMER_COUNT];  /* seconds, max over ranks */
    double time_mean[OVK_TIMER_COUNT]; /* seconds, mean over ranks */
    /* opts->condest: extreme eigenvalues of the Lanczos tridiagonal matrix built from
     * the CG coefficients, estimates of those of the preconditioned operator (C A with
     * C = diag(A)^-1, or A for OVK_PRECOND_NONE), and cond_est = lambda_max / lambda_min.
     * lambda_max converges fast, lambda_min as CG converges (both from inside the
     * spectrum).  All 0 when not requested or no iteration was done. */
    double lambda_min;
    double lambda_max;
    double cond_est;
    int replacements; /* cg1, pipecg, groppcg, pipeprcg, scg, bicgstab, pipebicgstab: residual
                         replacements (recomputed b - A x; bicgstab on a split
                         preconditioner: r^ = sigma Lt^-1 (b - A x)) done (0 for the others) */
    int restarts;     /* cg1, pipecg, pipeprcg: restarts after a breakdown of the recurrences;
                         plcg: restarts after a breakdown or a lost true residual; pgmres: 1
                         when the pipeline broke down or lost the true residual and gmres went
                         on; sgmres: cycles its safeguard ran as DCGS2 (and 1 more when gmres
                         went on); scg: halvings of s by its safeguard (0 for the others) */
    int history_len;  /* residual norms written to the solver's history buffer */
    /* solver "auto": what it measured at setup (the latency of one blocking reduction, the
     * local work of one PCG iteration; the largest over the ranks, microseconds; the work NaN
     * where its vector steps alone chose alg1 or gmres, the matvec not timed) and the
     * variant it chose ("alg1", "pipecg", "plcg:l=3", "pipeprcg"); 0 and "" for the other solvers.
     * Also by key from the solver: ovk_solver_get_info(s, "auto_choice", ...) (solver.h), which
     * the bindings use rather than these fields */
    double auto_latency_us;
    double auto_work_us;
    char auto_choice[32];
    /* with a null space declared (ovk_solver_set_nullspace): ||Z^T b|| / ||b||, how far b is
       from consistent (Z the orthonormal basis); its component in the null space was removed,
       and rel_residual is that of the projected system.  0 without one (also
       ovk_solver_get_info(s, "nullspace_inconsistency", ...)) */
    double nullspace_inconsistency;
    /* ||b||_2 of the system solved, the norm rel_residual is relative to (with a null space,
       of b with its null-space component removed; with the solver option norm=natural
       sqrt(<b, C b>), and rel_residual sqrt(<r, C r>) / sqrt(<b, C b>)); 0 before the first reduction (also
       ovk_solver_get_info(s, "rhs_norm", ...)) */
    double rhs_norm;
} ovk_result;
typedef ovk_result ovk_pcg_result; /* deprecated: ovk_result */

/* Fill *opts with the defaults above. */
void ovk_solve_options_init(ovk_solve_options *opts);
void ovk_pcg_options_init(ovk_pcg_options *opts); /* deprecated: ovk_solve_options_init */

/* Solve A x = b; x holds the initial guess on entry and the solution on
 * return.  Collective over A's communicator: every argument check is agreed,
 * so every rank returns the same code (A itself must be valid everywhere).
 * Returns OVK_OK when converged, OVK_EMAXIT, OVK_EBREAKDOWN or
 * OVK_ENONFINITE when the iteration stopped without converging (x then
 * holds the last iterate), or an argument error (a bad option value or
 * name: OVK_EOPTION; an unknown backend: OVK_EBACKEND).  No options
 * database here: a solver object takes one (solver.h,
 * ovk_solver_set_from_options).  *res is filled in every
 * case (res may be NULL). */
int ovk_solve(const ovk_matrix *A, const ovk_vector *b, ovk_vector *x, const ovk_solve_options *opts,
              ovk_result *res);
/* deprecated: ovk_solve */
int ovk_pcg_solve(const ovk_matrix *A, const ovk_vector *b, ovk_vector *x, const ovk_pcg_options *opts,
                  ovk_pcg_result *res);

/* The registered solver variants (types, not solver objects): how many,
 * the name and the description (with its options) of index 0..count-1
 * (NULL outside). */
int ovk_solver_type_count(void);
const char *ovk_solver_type_name(int index);
const char *ovk_solver_type_description(int index);
/* 1 when solver type `index` takes any matrix (bicgstab, pipebicgstab), 0 when it
 * needs a symmetric one (the CG variants refuse any other at setup) or index is
 * out of range. */
int ovk_solver_type_nonsymmetric(int index);

/* The preconditioners of this build with their options, and those it
 * leaves out with the reason (one per line; what `-precond list` prints). */
void ovk_precond_print(FILE *f);
/* The preconditioners of this build: how many, and the name of index
 * 0..count-1 (NULL outside). */
int ovk_precond_type_count(void);
const char *ovk_precond_type_name(int index);
const char *ovk_reason_name(ovk_reason reason);
const char *ovk_timer_name(ovk_timer timer);

/* Print the time breakdown of *res as a table (rank 0 should call it). */
void ovk_pcg_print_timing(FILE *f, const ovk_result *res);

#ifdef __cplusplus
}
#endif
#endif
