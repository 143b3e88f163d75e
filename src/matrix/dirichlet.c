/* Dirichlet rows and their symmetric elimination.  A row whose only
 * nonzero is its diagonal (an identity row of a boundary condition, as
 * PETSc's MatZeroRows or a DMDA assembly leave them) fixes x_i = b_i / a_ii;
 * when its column was not eliminated, the other rows still hold a_ji != 0
 * against a_ij = 0, and A is not symmetric.  E is A with those entries
 * dropped (a_ji for j not Dirichlet, i Dirichlet): symmetric when A is
 * apart from them, and E x = b - A_ND x_D (the known values moved to the
 * right-hand side; the solver's engine, dirichlet.c) has A x = b's
 * solution.
 *
 * Cost: at setup only, the diag block as plain CSR, one halo exchange of
 * the rows' marks, one reduction of their count and E made as a new matrix
 * (its own communicator and halo). */
#include <stdlib.h>
#include <string.h>

#include "matrix_impl.h"

/* the diag block in plain CSR (both triangles, a_ii first when stored), local */
typedef struct plain_rows {
    int *ptr, *col;
    double *val;
} plain_rows;

static void plain_free(plain_rows *p)
{
    free(p->ptr);
    free(p->col);
    free(p->val);
}

static int plain_diag(const ovk_matrix *A, plain_rows *p)
{
    int n = A->lay.nlocal;
    p->ptr = malloc(sizeof(int) * ((size_t)n + 1));
    if (!p->ptr) return ovk__fail(OVK_ENOMEM, "Dirichlet rows: %d rows", n);
    int rc = ovk__matrix_diag_ptr(A, p->ptr);
    if (rc) return rc;
    size_t nnz = (size_t)(p->ptr[n] > 0 ? p->ptr[n] : 1);
    p->col = malloc(sizeof(int) * nnz);
    p->val = malloc(sizeof(double) * nnz);
    if (!p->col || !p->val) return ovk__fail(OVK_ENOMEM, "Dirichlet rows: %zu entries", nnz);
    return ovk__matrix_diag_fill(A, p->ptr, p->col, p->val);
}

/* 1 when row i stores a_ii != 0 and no other nonzero */
static int dirichlet_row(const ovk_matrix *A, const plain_rows *p, int i)
{
    int has_diag = 0;
    for (int k = p->ptr[i]; k < p->ptr[i + 1]; k++) {
        if (p->col[k] == i) has_diag = p->val[k] != 0.0;
        else if (p->val[k] != 0.0) return 0;
    }
    for (int k = A->offd.rowptr[i]; k < A->offd.rowptr[i + 1]; k++)
        if (A->offd.val[k] != 0.0) return 0;
    return has_diag;
}

/* E's rows: a Dirichlet row keeps a_ii alone; another drops its entries
 * in Dirichlet columns (mark: the local rows', ext: the offd columns') */
static int elim_rows(const ovk_matrix *A, const plain_rows *p, const double *mark, const double *ext, int **ptr,
                     ovk_gidx **col, double **val)
{
    int n = A->lay.nlocal, at = 0;
    size_t room = (size_t)(n > 0 ? p->ptr[n] + A->offd.rowptr[n] : 0) + 1;
    *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    *col = malloc(sizeof(ovk_gidx) * room);
    *val = malloc(sizeof(double) * room);
    if (!*ptr || !*col || !*val) return ovk__fail(OVK_ENOMEM, "the eliminated matrix: %zu entries", room);
    (*ptr)[0] = 0;
    for (int i = 0; i < n; i++) {
        for (int k = p->ptr[i]; k < p->ptr[i + 1]; k++) {
            int j = p->col[k];
            if (mark[i] != 0.0 ? j != i : (j != i && mark[j] != 0.0)) continue;
            (*col)[at] = A->lay.row_start + j;
            (*val)[at++] = p->val[k];
        }
        for (int k = A->offd.rowptr[i]; k < A->offd.rowptr[i + 1] && mark[i] == 0.0; k++) {
            if (ext[A->offd.col[k]] != 0.0) continue;
            (*col)[at] = A->col_map[A->offd.col[k]];
            (*val)[at++] = A->offd.val[k];
        }
        (*ptr)[i + 1] = at;
    }
    return OVK_OK;
}

/* Collective: *E's values updated to the rows when it has their pattern
 * (a time loop's new values: no new matrix, communicator or halo), else a
 * new *E made from them (the old one destroyed) */
static int make_or_update(const ovk_matrix *A, const int *ptr, const ovk_gidx *col, const double *val, ovk_matrix **E)
{
    if (*E && ovk_matrix_update_values(*E, ptr, col, val, OVK_DUP_REJECT) == OVK_OK) return OVK_OK; /* agreed */
    ovk_matrix_destroy(*E);
    *E = NULL;
    int rc = ovk__matrix_create_csr_base(A->lay.comm, A->lay.row_start, A->lay.nlocal, ptr, col, val, OVK_DUP_REJECT,
                                         A->lay.base, E);
    if (rc) return rc;
    return ovk_matrix_set_halo(*E, ovk_matrix_get_halo(A));
}

int ovk__matrix_eliminate(const ovk_matrix *A, ovk_matrix **E, int **rows, int *nrows, long long *count)
{
    int n = A->lay.nlocal, *ptr = NULL, nd = 0;
    ovk_gidx *col = NULL;
    double *val = NULL, *mark = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    plain_rows p = {0};
    *rows = NULL, *nrows = 0, *count = 0;
    int rc = mark ? plain_diag(A, &p) : ovk__fail(OVK_ENOMEM, "Dirichlet rows: %d rows", n);
    for (int i = 0; !rc && i < n; i++) nd += (int)(mark[i] = dirichlet_row(A, &p, i));
    if (!rc) *rows = malloc(sizeof(int) * (size_t)(nd > 0 ? nd : 1));
    if (!rc && !*rows) rc = ovk__fail(OVK_ENOMEM, "Dirichlet rows: %d", nd);
    for (int i = 0, q = 0; !rc && i < n; i++)
        if (mark[i] != 0.0) (*rows)[q++] = i;
    rc = ovk__agree(A->lay.comm, rc); /* before the collectives */
    long long total = nd;
    if (!rc)
        rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG_LONG, MPI_SUM, A->lay.comm),
                      "MPI_Allreduce (Dirichlet rows)");
    if (rc || total == 0) goto cleanup;
    rc = ovk__halo_begin(A, mark); /* the marks of the offd columns, in A->halo.ext */
    if (!rc) rc = ovk__halo_end(A);
    rc = ovk__agree(A->lay.comm, rc);
    if (!rc) rc = ovk__agree(A->lay.comm, elim_rows(A, &p, mark, A->halo.ext, &ptr, &col, &val));
    if (!rc) rc = make_or_update(A, ptr, col, val, E);
cleanup:
    plain_free(&p);
    free(mark);
    free(ptr);
    free(col);
    free(val);
    if (rc || total == 0) {
        ovk_matrix_destroy(*E);
        free(*rows);
        *E = NULL, *rows = NULL;
        return rc;
    }
    *nrows = nd;
    *count = total;
    return OVK_OK;
}
