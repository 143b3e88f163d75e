/* The amg cycle's coarsest solve (amg_coarse.c): the coarsest level's
 * matrix gathered whole onto every rank and factored there by LU with
 * partial pivoting (LAPACK); each solve gathers the right-hand side,
 * solves on every rank alike and keeps the rank's rows.  No hypre type:
 * the level comes as the rank's rows with global columns.  Private to
 * src/precond. */
#ifndef OVK_AMG_COARSE_H
#define OVK_AMG_COARSE_H

#include "precond.h"

typedef struct ovk__amg_coarse ovk__amg_coarse;

/* Collective over comm (statuses agreed): the factors of the N x N matrix
 * whose rows the ranks hold in rank order, this rank n of them (ptr [n + 1],
 * global columns col, val; duplicates summed).  OVK_EPRECOND naming the
 * level when it is singular (a zero pivot) or a value is not finite. */
int ovk__amg_coarse_make(MPI_Comm comm, int n, const int *ptr, const ovk_gidx *col, const double *val,
                         ovk__amg_coarse **out);
/* Collective over the comm of the make: x = A^-1 b on the rank's rows (x
 * and b may be the same array).  Allocates nothing. */
int ovk__amg_coarse_solve(const ovk__amg_coarse *c, const double *b, double *x);
void ovk__amg_coarse_free(ovk__amg_coarse *c);

#endif
