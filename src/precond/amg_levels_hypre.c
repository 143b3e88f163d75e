/* hypre's BoomerAMG hierarchy as the cycle's table of calls (amg_levels.h):
 * each of hypre's matrices seen as our level type, its arrays borrowed,
 * for amg_level_rows.c. */
#include <stdlib.h>

#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <_hypre_parcsr_ls.h>

#include "amg_levels.h"

/* hypre's relaxation type for Gaussian elimination (HYPRE_parcsr_ls.h) */
enum { HY_GAUSS_ELIM = 9 };

/* Local: hypre's H seen as our type, its arrays borrowed (no plan); *zeros:
 * the offd block's row pointers when hypre keeps none (no offd columns),
 * malloc'd, the caller's to free */
static int view_of(hypre_ParCSRMatrix *H, ovk__amg_csr *v, int **zeros)
{
    hypre_CSRMatrix *D = hypre_ParCSRMatrixDiag(H), *O = hypre_ParCSRMatrixOffd(H);
    int n = hypre_CSRMatrixNumRows(D), nx = hypre_CSRMatrixNumCols(O);
    *zeros = NULL;
    *v = (ovk__amg_csr){.comm = hypre_ParCSRMatrixComm(H), .nrows = hypre_ParCSRMatrixGlobalNumRows(H),
                        .ncols = hypre_ParCSRMatrixGlobalNumCols(H), .r0 = hypre_ParCSRMatrixFirstRowIndex(H),
                        .c0 = hypre_ParCSRMatrixFirstColDiag(H), .n = n, .nc = hypre_CSRMatrixNumCols(D),
                        .dptr = hypre_CSRMatrixI(D), .dcol = hypre_CSRMatrixJ(D), .dval = hypre_CSRMatrixData(D),
                        .nx = nx, .optr = hypre_CSRMatrixI(O), .ocol = hypre_CSRMatrixJ(O),
                        .oval = hypre_CSRMatrixData(O), .cmap = (ovk_gidx *)hypre_ParCSRMatrixColMapOffd(H)};
    if (nx > 0 && v->optr && v->dptr) return OVK_OK;
    *zeros = calloc((size_t)n + 1, sizeof(int));
    if (!*zeros) return ovk__fail(OVK_ENOMEM, "amg: a level's %d rows", n);
    if (!v->dptr) v->dptr = *zeros; /* no rows */
    if (!(nx > 0 && v->optr)) v->optr = *zeros, v->nx = 0;
    return OVK_OK;
}

static hypre_ParCSRMatrix *level_A(void *ctx, int l) { return hypre_ParAMGDataAArray((hypre_ParAMGData *)ctx)[l]; }

static int t_matrix(void *ctx, MPI_Comm comm, int l, int single, ovk_matrix **A)
{
    ovk__amg_csr v;
    int *zeros = NULL;
    int rc = ovk__agree(comm, view_of(level_A(ctx, l), &v, &zeros));
    if (!rc) rc = ovk__amg_level_matrix(comm, &v, single, A);
    free(zeros);
    return rc;
}

static int t_values(void *ctx, MPI_Comm comm, int l, int single, ovk_matrix *A)
{
    ovk__amg_csr v;
    int *zeros = NULL;
    int rc = ovk__agree(comm, view_of(level_A(ctx, l), &v, &zeros));
    if (!rc) rc = ovk__amg_level_values(comm, &v, single, A);
    free(zeros);
    return rc;
}

static int t_coarse(void *ctx, MPI_Comm comm, int l, ovk__amg_coarse **lu)
{
    ovk__amg_csr v;
    int *zeros = NULL;
    int rc = ovk__agree(comm, view_of(level_A(ctx, l), &v, &zeros));
    if (!rc) rc = ovk__amg_level_coarse(comm, &v, lu);
    free(zeros);
    return rc;
}

/* Local: hypre's P as rows (its arrays borrowed; *cmap malloc'd), with no
 * allocation when cmap is NULL (the cycle's scaling asks so) */
static int t_prows(void *ctx, int l, ovk__amg_prows *p, ovk_gidx **cmap)
{
    hypre_ParCSRMatrix *P = hypre_ParAMGDataPArray((hypre_ParAMGData *)ctx)[l];
    hypre_CSRMatrix *D = hypre_ParCSRMatrixDiag(P), *O = hypre_ParCSRMatrixOffd(P);
    int nf = hypre_CSRMatrixNumRows(D), nx = hypre_CSRMatrixNumCols(O);
    *p = (ovk__amg_prows){nf, hypre_CSRMatrixNumCols(D), nx, hypre_ParCSRMatrixFirstColDiag(P),
                          hypre_CSRMatrixI(D), hypre_CSRMatrixJ(D), nx > 0 ? hypre_CSRMatrixI(O) : NULL,
                          hypre_CSRMatrixJ(O), hypre_CSRMatrixData(D), hypre_CSRMatrixData(O), NULL};
    if (!cmap) return OVK_OK;
    *cmap = malloc(sizeof(ovk_gidx) * ((size_t)nx + 1));
    if (!*cmap) return ovk__fail(OVK_ENOMEM, "amg: P's %d offd columns", nx);
    const HYPRE_BigInt *hmap = hypre_ParCSRMatrixColMapOffd(P);
    for (int q = 0; q < nx; q++) (*cmap)[q] = hmap[q];
    p->cmap = *cmap;
    return OVK_OK;
}

void ovk__amg_levels_of_hypre(void *hypre_solver, ovk__amg_levels *lv)
{
    hypre_ParAMGData *d = hypre_solver;
    const HYPRE_Int *grt = hypre_ParAMGDataGridRelaxType(d);
    /* amg.c sets hypre's coarsest smoother (index 3) to l1-Jacobi instead of
     * Gaussian elimination for a singular A (a declared null space): the
     * cycle then smooths there too */
    *lv = (ovk__amg_levels){d, hypre_ParAMGDataNumLevels(d), grt && grt[3] != HY_GAUSS_ELIM,
                            t_matrix, t_values, t_coarse, t_prows};
}
