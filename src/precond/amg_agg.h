/* The amg preconditioner's own aggregation hierarchy (amg:setup=agg,
 * amg_agg.c): smoothed aggregation on MIS-2 aggregates, the near-null
 * space in the tentative prolongator, the hierarchy handed to our cycle
 * (amg_cycle.c) in hypre's hierarchy object. */
#ifndef OVK_AMG_AGG_H
#define OVK_AMG_AGG_H

#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <_hypre_parcsr_ls.h>

#include "amg_galerkin.h"
#include "precond.h"

typedef struct ovk__amg_agg_opts {
    int bs;           /* unknowns per node on level 0 (interleaved; each rank owns whole nodes) */
    double threshold; /* strength: a node block's norm >= threshold sqrt(|A_II| |A_JJ|) */
    int smooth;       /* 1: P = (I - w D^-1 A) P_tent, w = 4 / (3 lambda_max(D^-1 A)); 0: P_tent */
    int max_levels;   /* at least 2 */
    int coarse_size;  /* stop below this many global rows */
    int mis2_levels;  /* levels (from the finest) aggregated on an MIS-2, the others on an MIS-1 */
    int singular;     /* A is singular (a declared null space): no coarsest level of at most k rows */
    double gather;    /* a coarse level of fewer rows per rank holding rows than this is gathered onto
                       * every 2nd, 4th, ... rank (0: never); the levels themselves are unchanged */
} ovk__amg_agg_opts;

/* What a test may keep of a build (NULL: nothing): each level's tentative
 * prolongator and the near-null space it carries, B_l (n_l x k, column
 * after column) on level l, B_{l+1} = R on the next, so that
 * P_tent,l B_{l+1} = B_l. */
typedef struct ovk__amg_agg_keep {
    int nlev;
    hypre_ParCSRMatrix *ptent[40];
    double *b[40]; /* level l's rows of B_l */
    int k;
} ovk__amg_agg_keep;
void ovk__amg_agg_keep_free(ovk__amg_agg_keep *keep);

/* Collective over A's communicator (statuses agreed): the hierarchy of A
 * (level 0, borrowed, with its matvec communication package) into d, a
 * hierarchy object made by HYPRE_BoomerAMGCreate and not set up: its
 * levels, interpolations and level vectors (b and x on level 0, borrowed;
 * hypre frees the rest with d; the coarsest level is the cycle's).
 * B: k vectors of the rank's rows, one after the other (the near-null
 * space; at least one must be nonzero on some rank: the caller checks).
 * Every level at least 2.  plans (NULL: none; else [40], NULL-filled): for
 * unsmoothed aggregation each level's Galerkin product kept for
 * ovk__amg_rap_values (the caller frees them; on an error any made are
 * in plans all the same). */
int ovk__amg_agg_build(hypre_ParCSRMatrix *A, hypre_ParVector *b, hypre_ParVector *x, int k, const double *B,
                       const ovk__amg_agg_opts *o, hypre_ParAMGData *d, ovk__amg_agg_keep *keep, ovk__amg_rap **plans);

#endif
