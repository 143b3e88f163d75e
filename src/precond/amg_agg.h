/* The amg preconditioner's own aggregation hierarchy (amg:setup=agg,
 * amg_agg.c): smoothed aggregation on MIS-2 aggregates, the near-null
 * space in the tentative prolongator, on our level type (amg_csr.h), the
 * hierarchy handed to our cycle (amg_cycle.c) through its table of calls
 * (amg_agg_levels.c).  No hypre type. */
#ifndef OVK_AMG_AGG_H
#define OVK_AMG_AGG_H

#include "amg_galerkin.h"
#include "amg_levels.h"

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
    ovk__amg_csr *ptent[40];
    double *b[40]; /* level l's rows of B_l */
    int k;
} ovk__amg_agg_keep;
void ovk__amg_agg_keep_free(ovk__amg_agg_keep *keep);

/* A hierarchy: nlev levels, A[0] the caller's (borrowed), A[l >= 1] and
 * P[l < nlev - 1] its own; sweeps: the coarsest level is singular (a
 * declared null space), smoothed rather than factored. */
typedef struct ovk__amg_agg_hier {
    int nlev, sweeps;
    ovk__amg_csr *A[40], *P[40];
} ovk__amg_agg_hier;
void ovk__amg_agg_hier_free(ovk__amg_agg_hier *h);
/* Local: the table of h for our cycle (amg_agg_levels.c) */
void ovk__amg_levels_of_agg(ovk__amg_agg_hier *h, ovk__amg_levels *lv);

/* Collective over A's communicator (statuses agreed): the hierarchy of A
 * (level 0, borrowed) into h (zeroed first; on an error it holds nothing).
 * B: k vectors of the rank's rows, one after the other (the near-null
 * space; at least one must be nonzero on some rank: the caller checks).
 * Every level at least 2.  plans (NULL: none; else [40], NULL-filled): for
 * unsmoothed aggregation each level's Galerkin product kept for
 * ovk__amg_rap_values (the caller frees them; on an error any made are
 * in plans all the same). */
int ovk__amg_agg_build(const ovk__amg_csr *A, int k, const double *B, const ovk__amg_agg_opts *o,
                       ovk__amg_agg_hier *h, ovk__amg_agg_keep *keep, ovk__amg_rap **plans);

#endif
