/* The Galerkin product A_c = P^T A P by sums over P's rows (amg_galerkin.c),
 * for a P of a few entries a row: aggregation's tentative prolongator (one
 * aggregate's columns a row, as many as its near-null space keeps) or the
 * smoothed one; and the smoothed prolongator's rows by the same sums.
 * On our level type (amg_csr.h), no hypre type.  Private to src/precond. */
#ifndef OVK_AMG_GALERKIN_H
#define OVK_AMG_GALERKIN_H

#include "amg_csr.h"

/* The kept pattern of one product: P's rows (its halo included), the
 * order of the partial sums and where each goes. */
typedef struct ovk__amg_rap ovk__amg_rap;

/* Collective over A's communicator (statuses agreed): *Ac = P^T A P, a new
 * matrix (the caller's; its halo plan made), P's columns partitioned as
 * A_c's rows (the diagonal entry first in its row).  Each entry a_ij adds p_ic a_ij p_jd to (A_c)_cd, the sums of a
 * coarse row owned elsewhere sent to its rank once per product; no general
 * sparse product.  plan (NULL: none) keeps the pattern for
 * ovk__amg_rap_values (freed by ovk__amg_rap_free). */
int ovk__amg_rap_build(const ovk__amg_csr *A, const ovk__amg_csr *P, ovk__amg_csr **Ac, ovk__amg_rap **plan);

/* Collective: Ac's values again (in place) for A's new values on the pattern
 * of the build (P and the patterns unchanged: OVK_EMISMATCH otherwise). */
int ovk__amg_rap_values(ovk__amg_rap *plan, const ovk__amg_csr *A, ovk__amg_csr *Ac);

void ovk__amg_rap_free(ovk__amg_rap *plan);

/* Collective over A's communicator (statuses agreed): the rank's rows of
 * P - diag(scale) A P (smoothed aggregation's prolongator) with global
 * columns, *ptr [n + 1], *gcol, *val malloc'd (the caller's), by the same
 * row sums as A P above (nnz(A) k products); every row of A has its
 * diagonal entry (OVK_EPRECOND otherwise), so the pattern is A P's. */
int ovk__amg_smooth_rows(const ovk__amg_csr *A, const ovk__amg_csr *P, const double *scale, int **ptr,
                         ovk_gidx **gcol, double **val);

#endif
