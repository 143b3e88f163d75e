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
 * Cost: at setup only, one pass over the rows up to their first
 * off-diagonal nonzero and one reduction of the count; where some row is
 * a Dirichlet row, also the diag block as plain CSR, one halo exchange of
 * the rows' marks and E made as a new matrix (its own communicator and
 * halo). */
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

/* Local: row i as stored holds a_ii != 0 and no other nonzero (left at
 * its first other nonzero: one or two entries of most rows) */
static int lone_diagonal(const ovk_matrix *A, int i)
{
    const ovk__csr *d = &A->diag, *o = &A->offd;
    int has_diag = 0;
    for (int k = o->rowptr[i]; k < o->rowptr[i + 1]; k++)
        if (o->val[k] != 0.0) return 0;
    for (int k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
        if (ovk__csr_col(d, i, k) == i) has_diag = d->val[k] != 0.0;
        else if (d->val[k] != 0.0) return 0;
    }
    return has_diag;
}

/* Local: mark[i] = 1 where row i is a Dirichlet row, else 0 (a kept
 * triangle's a_ij, j > i, stands for a_ji too); their number */
static int mark_dirichlet(const ovk_matrix *A, double *mark)
{
    const ovk__csr *d = &A->diag;
    int n = A->lay.nlocal, nd = 0;
    for (int i = 0; i < n; i++) mark[i] = lone_diagonal(A, i);
    for (int i = 0; i < n && d->upper; i++)
        for (int k = d->rowptr[i]; k < d->rowptr[i + 1]; k++)
            if (ovk__csr_col(d, i, k) != i && d->val[k] != 0.0) mark[ovk__csr_col(d, i, k)] = 0.0;
    for (int i = 0; i < n; i++) nd += mark[i] != 0.0;
    return nd;
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

/* Local: the Dirichlet rows' marks (mark: n doubles of the caller's, or
 * NULL where no stored row is a lone diagonal, and then none is) and their
 * number; the rows' positions in *rows */
static int find_rows(const ovk_matrix *A, double **mark, int **rows, int *nd)
{
    int n = A->lay.nlocal, lone = 0;
    for (int i = 0; i < n; i++) lone += lone_diagonal(A, i); /* most matrices: none, and no more to do */
    *nd = 0;
    if (lone == 0) return OVK_OK;
    *mark = malloc(sizeof(double) * (size_t)n);
    if (!*mark) return ovk__fail(OVK_ENOMEM, "Dirichlet rows: %d rows", n);
    *nd = mark_dirichlet(A, *mark);
    *rows = malloc(sizeof(int) * (size_t)(*nd > 0 ? *nd : 1));
    if (!*rows) return ovk__fail(OVK_ENOMEM, "Dirichlet rows: %d", *nd);
    for (int i = 0, q = 0; i < n; i++)
        if ((*mark)[i] != 0.0) (*rows)[q++] = i;
    return OVK_OK;
}

int ovk__matrix_eliminate(const ovk_matrix *A, ovk_matrix **E, int **rows, int *nrows, long long *count)
{
    int n = A->lay.nlocal, *ptr = NULL, nd = 0;
    ovk_gidx *col = NULL;
    double *val = NULL, *mark = NULL;
    plain_rows p = {0};
    *rows = NULL, *nrows = 0, *count = 0;
    int rc = find_rows(A, &mark, rows, &nd);
    long long v[2] = {rc != OVK_OK, nd}; /* failed somewhere, the rows of all ranks: one sum */
    int mrc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_LONG_LONG, MPI_SUM, A->lay.comm), "MPI_Allreduce (Dirichlet rows)");
    long long total = v[1];
    rc = mrc ? mrc : v[0] ? ovk__agree(A->lay.comm, rc) : OVK_OK; /* a failure's detail from its rank */
    if (rc || total == 0) goto cleanup;
    if (!mark) mark = calloc((size_t)(n > 0 ? n : 1), sizeof(double)); /* no Dirichlet row here */
    rc = ovk__agree(A->lay.comm, mark ? plain_diag(A, &p) : ovk__fail(OVK_ENOMEM, "Dirichlet rows: %d rows", n));
    if (!rc) rc = ovk__halo_begin(A, mark); /* the marks of the offd columns, in A->halo.ext */
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
