/* hypre's levels in our formats, for the amg cycle (amg_cycle.c): each
 * A_l (l >= 1) as our matrix (its diag block made exactly symmetric and
 * sorted, the values rounded to float for single), the coarsest A_l's
 * rows as they are for the dense coarsest solve (amg_coarse.c), and each
 * P_l's rows for the transfers (amg_transfer.c). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <_hypre_parcsr_ls.h>

#include "amg_levels.h"

/* hypre's relaxation type for Gaussian elimination (HYPRE_parcsr_ls.h) */
enum { HY_GAUSS_ELIM = 9 };

typedef struct key_val {
    int c;
    double v;
} key_val;

/* kv[0, len) by column (insertion: the offd part of a row is short) */
static void sort_row(key_val *kv, int len)
{
    for (int k = 1; k < len; k++) {
        key_val t = kv[k];
        int p = k;
        for (; p > 0 && kv[p - 1].c > t.c; p--) kv[p] = kv[p - 1];
        kv[p] = t;
    }
}

/* t = the transpose of the n x n block (ptr, col, val) by a counting sort:
 * each row of t lists its columns ascending.  tptr has n + 1 entries. */
static void transpose(int n, const int *ptr, const int *col, const double *val, int *tptr, int *tcol, double *tval)
{
    memset(tptr, 0, sizeof(int) * ((size_t)n + 1));
    for (int k = 0; k < (n > 0 ? ptr[n] : 0); k++) tptr[col[k] + 1]++;
    for (int j = 0; j < n; j++) tptr[j + 1] += tptr[j];
    for (int i = 0; i < n; i++)
        for (int k = ptr[i]; k < ptr[i + 1]; k++) {
            int at = tptr[col[k]]++;
            tcol[at] = i;
            tval[at] = val[k];
        }
    for (int j = n; j > 0; j--) tptr[j] = tptr[j - 1]; /* back to the row starts */
    tptr[0] = 0;
}

/* Row i of the diag block, sorted (scol, sval: a_ij), with each entry that
 * has a mirror (tcol, tval: a_ji) replaced by the mean of the two, into
 * col (global: + r0) and val from *pos. */
static void mean_row(int i, const int *sptr, const int *scol, const double *sval, const int *tptr,
                     const int *tcol, const double *tval, HYPRE_BigInt r0, ovk_gidx *col, double *val, int *pos)
{
    int t = tptr[i];
    for (int k = sptr[i]; k < sptr[i + 1]; k++) {
        int j = scol[k];
        while (t < tptr[i + 1] && tcol[t] < j) t++;
        int mirrored = t < tptr[i + 1] && tcol[t] == j;
        col[*pos] = r0 + j;
        val[(*pos)++] = mirrored ? 0.5 * (sval[k] + tval[t]) : sval[k]; /* the same sum in both rows */
    }
}

/* v[0, n) rounded to float where float holds them (a value beyond float's
 * range stays: then the matrix layer keeps the level in double) */
static void round_to_float(double *v, int n)
{
    for (int k = 0; k < n; k++)
        if (fabs(v[k]) <= FLT_MAX) v[k] = (double)(float)v[k];
}

/* the rows of hypre's A as CSR with global columns ascending (the offd
 * entries left of the diag block, the diag block, the rest: the matrix
 * layer need not sort them), each mirrored pair of the diag block replaced
 * by its mean (Galerkin products are symmetric up to rounding; exact
 * symmetry lets the matrix layer keep one triangle), with single rounded
 * to float (symmetric still; the matrix layer then picks its float form).
 * The diag block's rows are sorted by transposing it twice. */
static int level_rows(hypre_ParCSRMatrix *H, int single, int **ptr_out, ovk_gidx **col_out, double **val_out)
{
    hypre_CSRMatrix *D = hypre_ParCSRMatrixDiag(H), *O = hypre_ParCSRMatrixOffd(H);
    int n = hypre_CSRMatrixNumRows(D);
    const int *di = hypre_CSRMatrixI(D), *dj = hypre_CSRMatrixJ(D), *oi = hypre_CSRMatrixI(O), *oj = hypre_CSRMatrixJ(O);
    const double *dv = hypre_CSRMatrixData(D), *ov = hypre_CSRMatrixData(O);
    const HYPRE_BigInt *cmap = hypre_ParCSRMatrixColMapOffd(H);
    HYPRE_BigInt r0 = hypre_ParCSRMatrixFirstRowIndex(H);
    int nd = n > 0 ? di[n] : 0, no = n > 0 && hypre_CSRMatrixNumCols(O) > 0 ? oi[n] : 0;
    size_t rows = (size_t)n + 1, ents = (size_t)nd + 1;
    int *ptr = malloc(sizeof(int) * rows), *tptr = malloc(sizeof(int) * rows), *sptr = malloc(sizeof(int) * rows);
    int *tcol = malloc(sizeof(int) * ents), *scol = malloc(sizeof(int) * ents);
    double *tval = malloc(sizeof(double) * ents), *sval = malloc(sizeof(double) * ents);
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (size_t)(nd + no + 1));
    double *val = malloc(sizeof(double) * (size_t)(nd + no + 1));
    key_val *row = malloc(sizeof(key_val) * (size_t)(no + 1)); /* one offd row */
    *ptr_out = ptr, *col_out = col, *val_out = val;
    int rc = ptr && tptr && sptr && tcol && scol && tval && sval && col && val && row
                 ? OVK_OK
                 : ovk__fail(OVK_ENOMEM, "amg: a coarse level of %d rows", n);
    if (rc) goto cleanup;
    transpose(n, di, dj, dv, tptr, tcol, tval);       /* row i of t: a_ji, j ascending */
    transpose(n, tptr, tcol, tval, sptr, scol, sval); /* row i of s: a_ij, j ascending */
    int pos = 0;
    ptr[0] = 0;
    for (int i = 0; i < n; i++) {
        int o = 0, on = no > 0 ? oi[i + 1] - oi[i] : 0; /* the offd row, sorted (cmap ascends) */
        for (int k = 0; k < on; k++) row[k] = (key_val){oj[oi[i] + k], ov[oi[i] + k]};
        sort_row(row, on);
        for (; o < on && cmap[row[o].c] < r0; o++) { /* columns left of the diag block */
            col[pos] = cmap[row[o].c];
            val[pos++] = row[o].v;
        }
        mean_row(i, sptr, scol, sval, tptr, tcol, tval, r0, col, val, &pos);
        for (; o < on; o++) { /* right of it */
            col[pos] = cmap[row[o].c];
            val[pos++] = row[o].v;
        }
        ptr[i + 1] = pos;
    }
    if (single) round_to_float(val, pos);
cleanup:
    free(tptr), free(sptr), free(tcol), free(scol), free(tval), free(sval), free(row);
    return rc;
}

/* Collective: level l's A in our format. */
static int level_matrix(MPI_Comm comm, hypre_ParCSRMatrix *H, int single, ovk_matrix **A)
{
    int *ptr = NULL;
    ovk_gidx *col = NULL;
    double *val = NULL;
    int n = hypre_CSRMatrixNumRows(hypre_ParCSRMatrixDiag(H));
    int rc = ovk__agree(comm, level_rows(H, single, &ptr, &col, &val));
    if (rc) goto cleanup;
    rc = ovk_matrix_create_csr(comm, hypre_ParCSRMatrixFirstRowIndex(H), n, ptr, col, val, OVK_DUP_REJECT, A);
cleanup:
    free(ptr), free(col), free(val);
    return rc;
}


/* Collective: level l >= 1's matrix with the values of hypre's new A_l, on
 * its kept pattern (OVK_EMISMATCH when the pattern moved). */
static int level_values(MPI_Comm comm, hypre_ParCSRMatrix *H, int single, ovk_matrix *A)
{
    int *ptr = NULL;
    ovk_gidx *col = NULL;
    double *val = NULL;
    int rc = ovk__agree(comm, level_rows(H, single, &ptr, &col, &val));
    if (!rc) rc = ovk_matrix_update_values(A, ptr, col, val, OVK_DUP_REJECT);
    free(ptr), free(col), free(val);
    return rc;
}

/* Collective: the dense factors of H as it is */
static int level_coarse(MPI_Comm comm, hypre_ParCSRMatrix *H, ovk__amg_coarse **out)
{
    hypre_CSRMatrix *D = hypre_ParCSRMatrixDiag(H), *O = hypre_ParCSRMatrixOffd(H);
    int n = hypre_CSRMatrixNumRows(D);
    const int *di = hypre_CSRMatrixI(D), *dj = hypre_CSRMatrixJ(D), *oi = hypre_CSRMatrixI(O), *oj = hypre_CSRMatrixJ(O);
    const double *dv = hypre_CSRMatrixData(D), *ov = hypre_CSRMatrixData(O);
    const HYPRE_BigInt *cmap = hypre_ParCSRMatrixColMapOffd(H);
    HYPRE_BigInt c0 = hypre_ParCSRMatrixFirstColDiag(H);
    int nd = n > 0 ? di[n] : 0, no = n > 0 && hypre_CSRMatrixNumCols(O) > 0 ? oi[n] : 0;
    int *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (size_t)(nd + no + 1));
    double *val = malloc(sizeof(double) * (size_t)(nd + no + 1));
    int rc = ovk__agree(comm, ptr && col && val ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg: the coarsest level's rows"));
    if (rc) goto cleanup;
    int pos = 0; /* row i: its diag block's entries, then its offd block's */
    ptr[0] = 0;
    for (int i = 0; i < n; i++) {
        for (int k = di[i]; k < di[i + 1]; k++, pos++) col[pos] = c0 + dj[k], val[pos] = dv[k];
        for (int k = no > 0 ? oi[i] : 0; k < (no > 0 ? oi[i + 1] : 0); k++, pos++) col[pos] = cmap[oj[k]], val[pos] = ov[k];
        ptr[i + 1] = pos;
    }
    rc = ovk__amg_coarse_make(comm, n, ptr, col, val, out);
cleanup:
    free(ptr), free(col), free(val);
    return rc;
}

/* Local: hypre's P as rows (its arrays borrowed; *cmap malloc'd) */
static int prows_of(hypre_ParCSRMatrix *P, ovk__amg_prows *p, ovk_gidx **cmap)
{
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

/* ---- the table ------------------------------------------------------------ */

static hypre_ParCSRMatrix *level_A(void *ctx, int l) { return hypre_ParAMGDataAArray((hypre_ParAMGData *)ctx)[l]; }

static int t_matrix(void *ctx, MPI_Comm comm, int l, int single, ovk_matrix **A)
{
    return level_matrix(comm, level_A(ctx, l), single, A);
}

static int t_values(void *ctx, MPI_Comm comm, int l, int single, ovk_matrix *A)
{
    return level_values(comm, level_A(ctx, l), single, A);
}

static int t_coarse(void *ctx, MPI_Comm comm, int l, ovk__amg_coarse **lu)
{
    return level_coarse(comm, level_A(ctx, l), lu);
}

static int t_prows(void *ctx, int l, ovk__amg_prows *p, ovk_gidx **cmap)
{
    return prows_of(hypre_ParAMGDataPArray((hypre_ParAMGData *)ctx)[l], p, cmap);
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
