/* A level of a hierarchy (our level type, amg_csr.h: the aggregation
 * setup's, or a view of hypre's) in the cycle's formats (amg_cycle.c):
 * each A_l (l >= 1) as our matrix (its diag block made exactly symmetric
 * and sorted, the values rounded to float for single), the coarsest A_l's
 * rows as they are for the dense coarsest solve (amg_coarse.c), and each
 * P_l's rows for the transfers (amg_transfer.c).  No hypre type. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg_levels.h"

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
                     const int *tcol, const double *tval, ovk_gidx r0, ovk_gidx *col, double *val, int *pos)
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
static int level_rows(const ovk__amg_csr *H, int single, int **ptr_out, ovk_gidx **col_out, double **val_out)
{
    int n = H->n;
    const int *di = H->dptr, *dj = H->dcol, *oi = H->optr, *oj = H->ocol;
    const double *dv = H->dval, *ov = H->oval;
    const ovk_gidx *cmap = H->cmap;
    ovk_gidx r0 = H->r0;
    int nd = ovk__amg_csr_dnnz(H), no = ovk__amg_csr_onnz(H);
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
        int o = 0, on = oi[i + 1] - oi[i]; /* the offd row, sorted (cmap ascends) */
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

int ovk__amg_level_matrix(MPI_Comm comm, const ovk__amg_csr *H, int single, ovk_matrix **A)
{
    int *ptr = NULL;
    ovk_gidx *col = NULL;
    double *val = NULL;
    int rc = ovk__agree(comm, level_rows(H, single, &ptr, &col, &val));
    if (!rc) rc = ovk_matrix_create_csr(comm, H->r0, H->n, ptr, col, val, OVK_DUP_REJECT, A);
    free(ptr), free(col), free(val);
    return rc;
}

int ovk__amg_level_values(MPI_Comm comm, const ovk__amg_csr *H, int single, ovk_matrix *A)
{
    int *ptr = NULL;
    ovk_gidx *col = NULL;
    double *val = NULL;
    int rc = ovk__agree(comm, level_rows(H, single, &ptr, &col, &val));
    if (!rc) rc = ovk_matrix_update_values(A, ptr, col, val, OVK_DUP_REJECT);
    free(ptr), free(col), free(val);
    return rc;
}

int ovk__amg_level_coarse(MPI_Comm comm, const ovk__amg_csr *H, ovk__amg_coarse **out)
{
    int n = H->n, nd = ovk__amg_csr_dnnz(H), no = ovk__amg_csr_onnz(H);
    int *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (size_t)(nd + no + 1));
    double *val = malloc(sizeof(double) * (size_t)(nd + no + 1));
    int rc = ovk__agree(comm, ptr && col && val ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg: the coarsest level's rows"));
    if (rc) goto cleanup;
    int pos = 0; /* row i: its diag block's entries, then its offd block's */
    ptr[0] = 0;
    for (int i = 0; i < n; i++) {
        for (int k = H->dptr[i]; k < H->dptr[i + 1]; k++, pos++) col[pos] = H->c0 + H->dcol[k], val[pos] = H->dval[k];
        for (int k = H->optr[i]; k < H->optr[i + 1]; k++, pos++) col[pos] = H->cmap[H->ocol[k]], val[pos] = H->oval[k];
        ptr[i + 1] = pos;
    }
    rc = ovk__amg_coarse_make(comm, n, ptr, col, val, out);
cleanup:
    free(ptr), free(col), free(val);
    return rc;
}

int ovk__amg_level_prows(const ovk__amg_csr *P, ovk__amg_prows *p, ovk_gidx **cmap)
{
    int nx = P->nx;
    *p = (ovk__amg_prows){P->n, P->nc, nx, P->c0, P->dptr, P->dcol, nx > 0 ? P->optr : NULL, P->ocol,
                          P->dval, P->oval, NULL};
    if (!cmap) return OVK_OK;
    *cmap = malloc(sizeof(ovk_gidx) * ((size_t)nx + 1));
    if (!*cmap) return ovk__fail(OVK_ENOMEM, "amg: P's %d offd columns", nx);
    if (nx) memcpy(*cmap, P->cmap, sizeof(ovk_gidx) * (size_t)nx);
    p->cmap = *cmap;
    return OVK_OK;
}
