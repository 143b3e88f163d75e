/* The aggregation setup's distributed matrix: level 0 copied from the
 * library's ovk_matrix (its diag block as plain CSR, rows.c; its offd
 * block and column map as they are; its halo plan copied), a coarse level
 * from rows with global columns split at the own columns. */
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "amg_csr.h"

static int nomem(const char *what) { return ovk__fail(OVK_ENOMEM, "amg (setup=agg): %s", what); }

void ovk__amg_csr_free(ovk__amg_csr *A)
{
    if (!A) return;
    free(A->dptr), free(A->dcol), free(A->dval), free(A->optr), free(A->ocol), free(A->oval), free(A->cmap);
    ovk__amg_plan_free(&A->plan);
    free(A);
}

/* Local: room for the blocks of A->n rows, nd and no entries, A->nx offd columns */
static int alloc_blocks(ovk__amg_csr *A, int nd, int no)
{
    A->dptr = malloc(sizeof(int) * ((size_t)A->n + 1));
    A->dcol = malloc(sizeof(int) * ((size_t)nd + 1));
    A->dval = malloc(sizeof(double) * ((size_t)nd + 1));
    A->optr = malloc(sizeof(int) * ((size_t)A->n + 1));
    A->ocol = malloc(sizeof(int) * ((size_t)no + 1));
    A->oval = malloc(sizeof(double) * ((size_t)no + 1));
    A->cmap = malloc(sizeof(ovk_gidx) * ((size_t)A->nx + 1));
    if (!A->dptr || !A->dcol || !A->dval || !A->optr || !A->ocol || !A->oval || !A->cmap)
        return nomem("a level's blocks");
    return OVK_OK;
}

/* Local: *dst = a copy of the n ints of src (NULL: n is 0 or src NULL) */
static int dup_ints(const int *src, int n, int **dst)
{
    *dst = malloc(sizeof(int) * ((size_t)n + 1));
    if (!*dst) return nomem("a copy of a halo plan");
    if (src && n > 0) memcpy(*dst, src, sizeof(int) * (size_t)n);
    return OVK_OK;
}

/* Local: pl = a copy of a plan's arrays (the library's halo's, or ours) */
static int copy_plan(int nsend, int nrecv, const int *send_rank, const int *send_ptr, const int *send_idx,
                     const int *recv_rank, const int *recv_ptr, ovk__amg_plan *pl)
{
    pl->nsend = nsend, pl->nrecv = nrecv;
    int rc = dup_ints(send_rank, nsend, &pl->send_rank);
    if (!rc) rc = dup_ints(send_ptr, nsend + 1, &pl->send_ptr);
    if (!rc) rc = dup_ints(send_idx, nsend ? send_ptr[nsend] : 0, &pl->send_idx);
    if (!rc) rc = dup_ints(recv_rank, nrecv, &pl->recv_rank);
    if (!rc) rc = dup_ints(recv_ptr, nrecv + 1, &pl->recv_ptr);
    if (!rc) pl->send_ptr[0] = pl->recv_ptr[0] = 0; /* a plan without peers may have no pointers */
    return rc;
}

int ovk__amg_csr_alloc(MPI_Comm comm, ovk_gidx N, ovk_gidx M, ovk_gidx r0, int n, ovk_gidx c0, int nc, int nd,
                       int no, int nx, ovk__amg_csr **out)
{
    *out = NULL;
    ovk__amg_csr *A = calloc(1, sizeof *A);
    if (!A) return nomem("a level");
    A->comm = comm, A->nrows = N, A->ncols = M, A->r0 = r0, A->c0 = c0, A->n = n, A->nc = nc, A->nx = nx;
    int rc = alloc_blocks(A, nd, no);
    if (rc) ovk__amg_csr_free(A);
    else *out = A;
    return rc;
}

int ovk__amg_csr_finish(MPI_Comm comm, ovk__amg_csr **A, int status)
{
    int rc = ovk__agree(comm, status);
    if (!rc) rc = ovk__amg_plan_make(comm, (*A)->c0, (*A)->nx, (*A)->cmap, &(*A)->plan);
    if (rc) ovk__amg_csr_free(*A), *A = NULL;
    return rc;
}

int ovk__amg_csr_of_matrix(MPI_Comm comm, const ovk_matrix *M, int scale_exp, ovk__amg_csr **out)
{
    *out = NULL;
    ovk__amg_csr *A = calloc(1, sizeof *A);
    int *ptr = malloc(sizeof(int) * ((size_t)M->lay.nlocal + 1));
    int rc = A && ptr ? OVK_OK : nomem("level 0");
    if (!rc) rc = ovk__matrix_diag_ptr(M, ptr);
    if (!rc) {
        int n = M->lay.nlocal;
        A->comm = comm, A->nrows = A->ncols = M->lay.nglobal, A->r0 = A->c0 = M->lay.row_start;
        A->n = A->nc = n, A->nx = M->ncols_offd;
        rc = alloc_blocks(A, ptr[n], n > 0 ? M->offd.rowptr[n] : 0);
    }
    if (!rc) memcpy(A->dptr, ptr, sizeof(int) * ((size_t)A->n + 1));
    if (!rc) rc = ovk__matrix_diag_fill(M, A->dptr, A->dcol, A->dval);
    const ovk__halo *h = &M->halo;
    if (!rc)
        rc = copy_plan(h->nsend, h->nrecv, h->send_rank, h->send_ptr, h->send_idx, h->recv_rank, h->recv_ptr, &A->plan);
    if (!rc) { /* the offd block has ParCSR's shape already */
        int no = A->n > 0 ? M->offd.rowptr[A->n] : 0;
        for (int i = 0; i <= A->n; i++) A->optr[i] = A->n > 0 ? M->offd.rowptr[i] : 0;
        if (no) memcpy(A->ocol, M->offd.col, sizeof(int) * (size_t)no), memcpy(A->oval, M->offd.val, sizeof(double) * (size_t)no);
        if (A->nx) memcpy(A->cmap, M->col_map, sizeof(ovk_gidx) * (size_t)A->nx);
        for (int k = 0; scale_exp && k < A->dptr[A->n]; k++) A->dval[k] = ldexp(A->dval[k], -scale_exp);
        for (int k = 0; scale_exp && k < no; k++) A->oval[k] = ldexp(A->oval[k], -scale_exp);
    }
    free(ptr);
    rc = ovk__agree(comm, rc);
    if (rc) ovk__amg_csr_free(A);
    else *out = A;
    return rc;
}

static int cmp_gidx(const void *a, const void *b)
{
    ovk_gidx x = *(const ovk_gidx *)a, y = *(const ovk_gidx *)b;
    return (x > y) - (x < y);
}

/* Local: the sorted distinct columns of the rank's rows outside [c0, c1) (*cmap malloc'd, *nx of them), *nd the entries inside */
static int offd_columns(const int *ptr, const ovk_gidx *gcol, int n, ovk_gidx c0, ovk_gidx c1, ovk_gidx **cmap,
                        int *nx, int *nd)
{
    int nnz = ptr[n], no = 0;
    *nd = 0;
    for (int e = 0; e < nnz; e++) *nd += gcol[e] >= c0 && gcol[e] < c1;
    *cmap = malloc(sizeof(ovk_gidx) * ((size_t)(nnz - *nd) + 1));
    if (!*cmap) return nomem("a level's offd columns");
    for (int e = 0; e < nnz; e++)
        if (!(gcol[e] >= c0 && gcol[e] < c1)) (*cmap)[no++] = gcol[e];
    qsort(*cmap, (size_t)no, sizeof **cmap, cmp_gidx);
    int u = 0;
    for (int t = 0; t < no; t++)
        if (!u || (*cmap)[u - 1] != (*cmap)[t]) (*cmap)[u++] = (*cmap)[t];
    *nx = u;
    return OVK_OK;
}

/* Local: the rows split into the blocks (A's arrays made) */
static void split_rows(ovk__amg_csr *A, const int *ptr, const ovk_gidx *gcol, const double *val, int square)
{
    ovk_gidx c1 = A->c0 + A->nc;
    int ed = 0, eo = 0;
    A->dptr[0] = A->optr[0] = 0;
    for (int i = 0; i < A->n; i++) {
        int first = ed;
        for (int e = ptr[i]; e < ptr[i + 1]; e++) {
            if (gcol[e] >= A->c0 && gcol[e] < c1) {
                A->dcol[ed] = (int)(gcol[e] - A->c0), A->dval[ed] = val[e];
                if (square && gcol[e] == A->r0 + i && ed > first) { /* the diagonal first */
                    int tj = A->dcol[first];
                    double tv = A->dval[first];
                    A->dcol[first] = A->dcol[ed], A->dval[first] = A->dval[ed], A->dcol[ed] = tj, A->dval[ed] = tv;
                }
                ed++;
                continue;
            }
            int lo = 0, hi = A->nx - 1; /* the place of gcol[e] among the offd columns */
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (A->cmap[mid] < gcol[e]) lo = mid + 1;
                else hi = mid;
            }
            A->ocol[eo] = lo, A->oval[eo++] = val[e];
        }
        A->dptr[i + 1] = ed, A->optr[i + 1] = eo;
    }
}

int ovk__amg_csr_of_rows(MPI_Comm comm, ovk_gidx N, ovk_gidx M, ovk_gidx r0, int n, ovk_gidx c0, ovk_gidx c1,
                         const int *ptr, const ovk_gidx *gcol, const double *val, int square, ovk__amg_csr **out)
{
    *out = NULL;
    ovk_gidx *cmap = NULL;
    int nx = 0, nd = 0;
    int rc = offd_columns(ptr, gcol, n, c0, c1, &cmap, &nx, &nd);
    if (!rc) rc = ovk__amg_csr_alloc(comm, N, M, r0, n, c0, (int)(c1 - c0), nd, ptr[n] - nd, nx, out);
    if (!rc) {
        if (nx) memcpy((*out)->cmap, cmap, sizeof(ovk_gidx) * (size_t)nx);
        split_rows(*out, ptr, gcol, val, square);
    }
    free(cmap);
    return ovk__amg_csr_finish(comm, out, rc);
}

int ovk__amg_csr_copy(const ovk__amg_csr *A, ovk__amg_csr **out)
{
    int nd = ovk__amg_csr_dnnz(A), no = ovk__amg_csr_onnz(A);
    int rc = ovk__amg_csr_alloc(A->comm, A->nrows, A->ncols, A->r0, A->n, A->c0, A->nc, nd, no, A->nx, out);
    if (rc) return rc;
    ovk__amg_csr *C = *out;
    memcpy(C->dptr, A->dptr, sizeof(int) * ((size_t)A->n + 1)), memcpy(C->optr, A->optr, sizeof(int) * ((size_t)A->n + 1));
    if (nd) memcpy(C->dcol, A->dcol, sizeof(int) * (size_t)nd), memcpy(C->dval, A->dval, sizeof(double) * (size_t)nd);
    if (no) memcpy(C->ocol, A->ocol, sizeof(int) * (size_t)no), memcpy(C->oval, A->oval, sizeof(double) * (size_t)no);
    if (A->nx) memcpy(C->cmap, A->cmap, sizeof(ovk_gidx) * (size_t)A->nx);
    const ovk__amg_plan *p = &A->plan;
    rc = copy_plan(p->nsend, p->nrecv, p->send_rank, p->send_ptr, p->send_idx, p->recv_rank, p->recv_ptr, &C->plan);
    if (rc) ovk__amg_csr_free(C), *out = NULL;
    return rc;
}

int ovk__amg_csr_halo(const ovk__amg_csr *A, int W, const double *own, double *ext, int status)
{
    return ovk__amg_plan_exchange(A->comm, &A->plan, W, own, ext, status);
}
