/* A hierarchy as the amg cycle (amg_cycle.c) reads it, whoever built it:
 * each level's matrix, its interpolation's rows and the coarsest level's
 * factors through a table of calls on the builder's object, so that the
 * cycle knows no builder's types.  hypre's BoomerAMG hierarchy (also
 * setup=agg's, kept in hypre's object) is read by amg_level_rows.c.
 * Private to src/precond. */
#ifndef OVK_AMG_LEVELS_H
#define OVK_AMG_LEVELS_H

#include "amg_coarse.h"
#include "amg_transfer.h"

typedef struct ovk__amg_levels {
    void *ctx;    /* the builder's hierarchy; outlives the cycle */
    int nlev;     /* at least 2 */
    int sweeps;   /* the coarsest level is singular (a declared null space): smoothed, not factored */
    /* Collective over comm (statuses agreed), l >= 1: level l's matrix
     * as ours (single: its values rounded to float); its new values on
     * that matrix's kept pattern (OVK_EMISMATCH when it moved) */
    int (*matrix)(void *ctx, MPI_Comm comm, int l, int single, ovk_matrix **A);
    int (*values)(void *ctx, MPI_Comm comm, int l, int single, ovk_matrix *A);
    /* Collective: the dense factors of level l (the coarsest) */
    int (*coarse)(void *ctx, MPI_Comm comm, int l, ovk__amg_coarse **lu);
    /* Local, l < nlev - 1: P_l's rows, its arrays borrowed (cmap NULL:
     * p->cmap not wanted; else p->cmap = *cmap, malloc'd, the caller's) */
    int (*prows)(void *ctx, int l, ovk__amg_prows *p, ovk_gidx **cmap);
} ovk__amg_levels;

#ifdef OVK_HAVE_HYPRE
/* amg_level_rows.c.  Local: the table of hypre's hierarchy (a
 * HYPRE_Solver after its setup, or setup=agg's hierarchy object). */
void ovk__amg_levels_of_hypre(void *hypre_solver, ovk__amg_levels *lv);
#endif

#endif
