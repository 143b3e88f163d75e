/* amg's state, shared by its files: amg.c (options, setup and apply),
 * amg_boomer.c (hypre's BoomerAMG hierarchy and cycle, built with hypre
 * only), amg_agg_setup.c (setup=agg's level 0 and hierarchy, no hypre),
 * amg_modes.c (the rigid-body modes and setup=agg's near-null space) and
 * amg_reuse.c (a value update on the kept interpolation).  No hypre type:
 * hypre's objects are opaque pointers here.  Private to src/precond. */
#ifndef OVK_PRECOND_AMG_H
#define OVK_PRECOND_AMG_H

#include "amg_agg.h"
#include "precond.h"

/* nodal strength by the row sums of the node blocks (hypre: 4): on the
 * elasticity example 16-21 iterations with the modes at 1-4 ranks, where the
 * Frobenius norm (1) took 16-32 and lost to no modes at 3 ranks */
enum { NODAL_DEFAULT = 4 };
/* GM interpolation adds 3 rotation unknowns per coarse node on each level it
 * builds: from the finest level that doubles the first coarse level and
 * fills it (setup 2.5-4x, docs/preconditioners.md); from level 2 on the
 * levels are small and the setup costs what it does without the modes,
 * with fewer iterations */
enum { RBM_LEVEL_DEFAULT = 2 };
enum { MAX_LEVELS = 40 };
/* a full setup at least every 20 value updates: a bound on how stale a kept
 * P may get while no row drifts past reuse_tol.  Chosen on the 20-step FE
 * Poisson loop (bench/amg/cases/loop.txt: one full setup fewer than with 10
 * and no more iterations) and on ovk_heat -varcoef's (there reuse_tol forces
 * the second full setup before either bound: the same work with 10 or 20);
 * docs/performance.md, section 11 */
enum { REUSE_DEFAULT = 20 };
enum { SM_L1GS, SM_SGS, SM_L1JACOBI, SM_CHEBY };
enum { CYCLE_OVK, CYCLE_HYPRE };
enum { RC_GALERKIN, RC_KEEP };
/* keep by default: over a loop of small changes the kept coarse levels
 * cost few iterations more than Galerkin products formed again, for a
 * setup on the kept interpolation several times shorter
 * (docs/performance.md, section 11) */
enum { REUSE_COARSE_DEFAULT = RC_KEEP };
enum { RS_NONE, RS_DIAG };
enum { PREC_DOUBLE, PREC_SINGLE };
/* who builds the hierarchy: hypre's BoomerAMG (classical AMG) or our
 * smoothed aggregation (amg_agg.c) */
enum { SETUP_BOOMERAMG, SETUP_AGG };
/* without hypre the default is ours (setup=boomeramg is then refused) */
#ifdef OVK_HAVE_HYPRE
enum { SETUP_DEFAULT = SETUP_BOOMERAMG };
#else
enum { SETUP_DEFAULT = SETUP_AGG };
#endif
/* the coarse levels' values in float by default (the same iterations, a faster
 * solve), but for a singular A (a declared
 * null space): the rounded levels keep the null space only to 2^-24 (A_l 1
 * = 0 and P 1 = 1), and CG on a singular A needs it exact */
enum { PRECISION_DEFAULT = PREC_SINGLE };
/* setup=agg: a coarse level of fewer rows per rank than this is gathered
 * onto every 2nd, 4th, ... rank; never by default: on the amg suite at 2
 * ranks agg_gather=1000 took 0.89-1.51x the setup + solve of no gathering,
 * no family clearly faster (bench/results/amg_gather.csv,
 * docs/preconditioners.md); its gain is for many ranks */
#define AGG_GATHER_DEFAULT 0.0

typedef struct ovk__amg_opts {
    double strong;
    int coarsen, interp, smoother, cycle; /* indices into the tables above (smoother -1: the cycle's default) */
    int precision;                        /* cycle=ovk: the cycle's values (-1: the default, chosen at setup) */
    double ratio;                         /* cycle=ovk, cheby: emax / emin */
    long degree, pmax, sweeps, max_levels, agg_levels, coarse_size, bs, nodal, rbm, qmax, print;
    long rbm_level; /* the first level whose interpolation takes the modes */
    long reuse;       /* value updates served by the kept interpolation before a full setup (0: none) */
    int reuse_coarse; /* what such an update does to the coarse operators (RC_*) */
    int reuse_scale;  /* keep: level 0's transfers scaled by the diagonal's change (RS_*) */
    double reuse_tol; /* the values' drift since the full setup that forces one */
    int setup;        /* SETUP_* */
    long agg_smooth;  /* setup=agg: 1 smoothed aggregation, 0 the tentative prolongator */
    double agg_threshold; /* setup=agg: strength of connection */
    long agg_mis2;        /* setup=agg: levels aggregated on an MIS-2 (the rest on an MIS-1) */
    double agg_corr;      /* setup=agg: the cycle's coarse corrections times this (over-correction) */
    double agg_gather;    /* setup=agg: rows per rank below which a coarse level is gathered (0: never) */
} ovk__amg_opts;

typedef struct ovk__amg {
    ovk__amg_opts o;
    MPI_Comm comm; /* our duplicate of the solver's communicator (hypre's messages and the setup's) */
    int n;
    int scale_exp; /* the hierarchy is that of 2^-scale_exp times the solver's matrix */
    /* setup=boomeramg: hypre's objects (amg_boomer.c's; NULL without) */
    void *A;      /* HYPRE_ParCSRMatrix: 2^-scale_exp times the solver's matrix */
    void *b, *x;  /* HYPRE_ParVector */
    void **modes; /* HYPRE_ParVector [nmodes]; lent to hypre, ours to free */
    int nmodes;
    int from_vectors; /* the modes are the near-null space's (else rotations of coordinates) */
    void *solver; /* HYPRE_Solver */
    /* setup=agg (amg_agg_setup.c) */
    ovk__amg_csr *A0;     /* level 0: 2^-scale_exp times the solver's matrix */
    ovk__amg_agg_hier agg; /* the hierarchy (A0 its level 0) */
    ovk__amg_cycle *cycle; /* cycle=ovk: ours over the hierarchy, else NULL */
    double t_copy, t_hypre, t_cycle; /* the last setup's parts (s): A copied, the hierarchy's setup, our levels */
    const ovk_matrix *src; /* the matrix of the hierarchy */
    double *vals0;         /* A's diag then offd values (as stored) at the last full setup */
    double *row_sums;      /* [3 n]: an update's per-row sums (change, l1 norm), then the l1 norms of vals0 */
    double *diag0;         /* reuse_scale=diag: a_ii at the last full setup */
    double *sinv;          /* and sqrt(a0_ii / a_ii) of the last update */
    double sinv_lo, sinv_hi; /* its range over the ranks (1, 1: none) */
    int updates;           /* value updates served by the kept P since then */
    double drift;          /* the last update's max row drift from vals0 */
    long full_setups, reuses;
    long relaid;           /* kept-P setups whose coarse patterns moved: our levels made anew */
    long derived;          /* kept-P setups whose level-0 smoother bound was derived, not estimated */
    int nlev;                               /* the hierarchy, for the view */
    double rows[MAX_LEVELS], nnz[MAX_LEVELS]; /* global rows and entries of each level */
    int ranks[MAX_LEVELS];                    /* ranks holding rows on each level */
    int singular;          /* env->singular: the coarsest level is singular too */
    int precision;         /* the cycle's (PREC_*): the option, or its default for this A */
    int agg_k;             /* setup=agg: the near-null space's vectors */
    /* unsmoothed setup=agg with reuse forming the products again: each
     * level's product kept (amg_galerkin.c), an update its sums only */
    ovk__amg_rap *rap[MAX_LEVELS];
} ovk__amg;

/* Collective: our cycle on the hierarchy (setup's). */
int ovk__amg_cycle_setup_ours(ovk__amg *m, const ovk_matrix *A);

/* Local: the values of a level's two blocks (v[b], nnz[b] each) times 2^-e;
 * a product with the power of two rounds as ldexp does (once, exactly when
 * no underflow), ldexp where 2^-e itself overflows. */
void ovk__amg_scale_values(double *const v[2], const int nnz[2], int e);
/* Collective: *e with the largest entry over every rank's two blocks times
 * 2^-e in [0.5, 1) (0 when none is finite and nonzero), and the values so
 * scaled.  The setups multiply entries together (interpolation weights,
 * smoothing, Galerkin products), which at 1e-300 underflow; a power of two
 * scales exactly: the preconditioner of s A is that of A divided by s. */
int ovk__amg_unit_scale(MPI_Comm comm, double *const v[2], const int nnz[2], int *e);

#ifdef OVK_HAVE_HYPRE
/* amg_boomer.c: hypre's BoomerAMG hierarchy (setup=boomeramg). */
/* OVK_OK, or OVK_EPRECOND naming the hypre call and hypre's description
 * (hypre keeps a global error flag: cleared here). */
int ovk__amg_hy(int herr, const char *call);
/* Collective: hypre's copy of env->A (unit scale), its vectors and modes,
 * BoomerAMG's setup (m->t_copy, m->t_hypre set). */
int ovk__amg_boomer_setup(ovk__amg *m, const ovk__pc_env *env);
/* Local: hypre's objects freed */
void ovk__amg_boomer_release(ovk__amg *m);
/* Local: the levels of hypre's hierarchy (0 before a setup), the table */
int ovk__amg_boomer_nlev(const ovk__amg *m);
void ovk__amg_boomer_levels(ovk__amg *m, ovk__amg_levels *lv);
/* Local: level l's global rows, the rank's entries, whether it holds rows */
void ovk__amg_boomer_level_size(const ovk__amg *m, int l, double *rows, double *nnz, int *holds);
/* z = BoomerAMGSolve's one cycle on r (cycle=hypre); collective */
int ovk__amg_boomer_apply(ovk__amg *m, const double *r, double *z);
/* Local: A's values into hypre's copy (unscaled); then (collective) the
 * copy at the hierarchy's scale and the Galerkin products on the kept
 * interpolations (reuse_coarse=galerkin) */
int ovk__amg_boomer_values(ovk__amg *m, const ovk_matrix *A);
int ovk__amg_boomer_products(ovk__amg *m);
#endif

/* amg_agg_setup.c: setup=agg inside amg (no hypre). */
/* Collective: level 0 from env->A at unit scale, the near-null space and
 * the hierarchy (m->t_copy, m->t_hypre set). */
int ovk__amg_agg_setup(ovk__amg *m, const ovk__pc_env *env);
void ovk__amg_agg_release(ovk__amg *m);
/* Local: A's values into level 0 (its pattern kept), at the hierarchy's
 * scale; then (collective) the Galerkin products again on the kept
 * interpolations (kept product plans where made) */
int ovk__amg_agg_values(ovk__amg *m, const ovk_matrix *A);
int ovk__amg_agg_products(ovk__amg *m);

/* amg_modes.c.  Collective: the global centroid of the coordinates;
 * Local: rotation k (about z, x, y) of point p relative to it */
int ovk__amg_centroid(ovk__amg *m, const ovk__pc_env *env, double *c);
void ovk__amg_rotation(int k, const double *p, double *u);
/* Collective: setup=agg's near-null space (k vectors of the rank's rows,
 * *B malloc'd) */
int ovk__amg_agg_nullspace(ovk__amg *m, const ovk__pc_env *env, double **B, int *k);

/* amg_reuse.c.  Local: the values of the full setup, kept for the drift. */
int ovk__amg_keep_values(ovk__amg *m, const ovk_matrix *A);
/* Collective: a value update on the kept interpolation (*kept = 0: the
 * caller sets up afresh). */
int ovk__amg_update_setup(ovk__amg *m, const ovk__pc_env *env, int *kept);

#endif
