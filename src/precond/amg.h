/* amg's state, shared by its files: amg.c (options, hypre's hierarchy,
 * setup and apply), amg_modes.c (the rigid-body modes and setup=agg's
 * near-null space) and amg_reuse.c (a value update on the kept
 * interpolation).  Private to src/precond. */
#ifndef OVK_PRECOND_AMG_H
#define OVK_PRECOND_AMG_H

#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <_hypre_parcsr_ls.h>
#include <_hypre_parcsr_mv.h>

#include "amg_agg.h"
#include "precond.h"

/* hypre's numbers for its choices (HYPRE_parcsr_ls.h) */
enum { HY_JACOBI = 0 }; /* hypre's smoother when ours runs the cycle: nothing to set up */
enum { HY_CLJP = 0, HY_FALGOUT = 6, HY_PMIS = 8, HY_HMIS = 10 };
enum { HY_CLASSICAL = 0, HY_DIRECT = 3, HY_MULTIPASS = 4, HY_EXT_I = 6, HY_EXT = 14 };
enum {
    HY_HYBRID_SGS = 6, HY_GAUSS_ELIM = 9, HY_L1_GS_FWD = 13, HY_L1_GS_BWD = 14, HY_CHEBY = 16, HY_L1_JACOBI = 18
};
enum { HY_DOWN = 1, HY_UP = 2, HY_COARSEST = 3 };
enum { HY_GM2 = 2 };   /* interpolation variant for the rigid-body modes */
enum { HY_ERROR_CONV = 256 }; /* "did not converge": expected of one cycle */
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
    MPI_Comm comm; /* hypre's duplicate of the solver's communicator */
    int n;
    HYPRE_ParCSRMatrix A; /* 2^-scale_exp times the solver's matrix */
    int scale_exp;
    HYPRE_ParVector b, x;
    HYPRE_ParVector *modes; /* [nmodes]; lent to hypre, ours to free */
    int nmodes;
    int from_vectors; /* the modes are the near-null space's (else rotations of coordinates) */
    HYPRE_Solver solver;
    ovk__amg_cycle *cycle; /* cycle=ovk: ours over hypre's hierarchy, else NULL */
    double t_copy, t_hypre, t_cycle; /* the last setup's parts (s): A to hypre, hypre's setup, our levels */
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

/* the rank's entries of hypre's copy of A: diag block, offd block */
static inline int ovk__amg_diag_count(hypre_ParCSRMatrix *P)
{
    hypre_CSRMatrix *d = hypre_ParCSRMatrixDiag(P);
    int n = hypre_CSRMatrixNumRows(d);
    return n > 0 ? hypre_CSRMatrixI(d)[n] : 0;
}

static inline int ovk__amg_offd_count(hypre_ParCSRMatrix *P)
{
    hypre_CSRMatrix *o = hypre_ParCSRMatrixOffd(P);
    int n = hypre_CSRMatrixNumRows(o);
    return n > 0 ? hypre_CSRMatrixI(o)[n] : 0;
}

/* OVK_OK, or OVK_EPRECOND naming the hypre call and hypre's description
 * (hypre keeps a global error flag: cleared here). */
int ovk__amg_hy(HYPRE_Int herr, const char *call);
/* Local: a hypre vector of rows lo..hi of N on m->comm. */
int ovk__amg_make_vector(ovk__amg *m, HYPRE_BigInt lo, HYPRE_BigInt hi, HYPRE_BigInt N, HYPRE_ParVector *v);
static inline double *ovk__amg_local_data(HYPRE_ParVector v)
{
    return hypre_VectorData(hypre_ParVectorLocalVector((hypre_ParVector *)v));
}
/* Local: A's diag and offd values into hypre's copy P (same shape). */
int ovk__amg_fill_blocks(const ovk_matrix *A, hypre_ParCSRMatrix *P);
/* Local: hypre's copy of A times 2^-scale_exp. */
void ovk__amg_scale_blocks(ovk__amg *m);
/* Collective: our cycle on hypre's hierarchy. */
int ovk__amg_cycle_setup_ours(ovk__amg *m, const ovk_matrix *A);

/* amg_modes.c.  Local: the rigid-body modes (or the near-null space's
 * vectors) as hypre vectors for its interpolation. */
int ovk__amg_build_modes(ovk__amg *m, const ovk__pc_env *env, HYPRE_BigInt lo, HYPRE_BigInt hi);
/* Collective: setup=agg's hierarchy in hypre's object. */
int ovk__amg_agg_setup(ovk__amg *m, const ovk__pc_env *env);

/* amg_reuse.c.  Local: the values of the full setup, kept for the drift. */
int ovk__amg_keep_values(ovk__amg *m, const ovk_matrix *A);
/* Collective: a value update on the kept interpolation (*kept = 0: the
 * caller sets up afresh). */
int ovk__amg_update_setup(ovk__amg *m, const ovk__pc_env *env, int *kept);

#endif
