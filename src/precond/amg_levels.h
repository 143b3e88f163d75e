/* A hierarchy as the amg cycle (amg_cycle.c) reads it, whoever built it:
 * each level's matrix, its interpolation's rows and the coarsest level's
 * factors through a table of calls on the builder's object, so that the
 * cycle knows no builder's types.  hypre's BoomerAMG hierarchy is read by
 * amg_levels_hypre.c, setup=agg's by amg_agg_levels.c, both through
 * amg_level_rows.c on our level type.  Private to src/precond. */
#ifndef OVK_AMG_LEVELS_H
#define OVK_AMG_LEVELS_H

#include "amg_coarse.h"
#include "amg_csr.h"
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

/* amg_level_rows.c, on one level H (no hypre type).  Collective over comm
 * (statuses agreed): H as our matrix (its diag block's mirrored pairs made
 * equal, single: its values rounded to float); H's new values on that
 * matrix's kept pattern (OVK_EMISMATCH when it moved); H's dense factors. */
int ovk__amg_level_matrix(MPI_Comm comm, const ovk__amg_csr *H, int single, ovk_matrix **A);
int ovk__amg_level_values(MPI_Comm comm, const ovk__amg_csr *H, int single, ovk_matrix *A);
int ovk__amg_level_coarse(MPI_Comm comm, const ovk__amg_csr *H, ovk__amg_coarse **lu);
/* Local: P's rows as the transfers take them (arrays borrowed; cmap as in
 * the table's prows) */
int ovk__amg_level_prows(const ovk__amg_csr *P, ovk__amg_prows *p, ovk_gidx **cmap);

#ifdef OVK_HAVE_HYPRE
/* amg_levels_hypre.c.  Local: the table of hypre's hierarchy (a
 * HYPRE_Solver after its setup). */
void ovk__amg_levels_of_hypre(void *hypre_solver, ovk__amg_levels *lv);
#endif

#endif
