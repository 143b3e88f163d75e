/* The exact test A == A^T of the stored values, for the solvers that need a
 * symmetric matrix (CG).  Entry by entry, bit for bit; an entry stored on
 * one side only must be zero.
 *
 * Cost: O(nnz) local work.  The diag block is compared with its transpose
 * (a block that keeps one triangle is symmetric by construction and costs
 * nothing); that needs the block as plain CSR and its transpose, 12 bytes
 * per entry each, for the duration of the call.  Each offd entry (i, j) is
 * sent as (i, j, a_ij), 24 bytes, to the owner of column j, which holds
 * a_ji: two point-to-point rounds with the halo's neighbours (counts, then
 * entries), no global communication but the final agreement. */
#include <stdlib.h>
#include <string.h>

#include "matrix_impl.h"

enum { COUNT_TAG = 11, ENTRY_TAG = 12 };

typedef struct triple {
    int64_t row, col;
    double val;
} triple;

typedef struct plain {
    int *ptr, *col;
    double *val;
} plain;

static void plain_free(plain *m)
{
    free(m->ptr);
    free(m->col);
    free(m->val);
}

static int plain_alloc(plain *m, int n, int nnz)
{
    m->ptr = calloc((size_t)n + 1, sizeof(int));
    m->col = malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
    m->val = malloc(sizeof(double) * (size_t)(nnz > 0 ? nnz : 1));
    return m->ptr && m->col && m->val ? OVK_OK : ovk__fail(OVK_ENOMEM, "symmetry check: %d entries", nnz);
}

static int mismatch(const ovk__layout *lay, int i, int j, double aij, double aji)
{
    return ovk__fail(OVK_ENOTSYM, "A(%lld,%lld) = %.17g but A(%lld,%lld) = %.17g", ovk__row_id(lay, i),
                     ovk__row_id(lay, j), aij, ovk__row_id(lay, j), ovk__row_id(lay, i), aji);
}

/* every entry (i, k, v) of p matches q's (i, k) (absent: 0); q scattered
 * into w, mark; p_is_t: p holds A^T (for the detail) */
static int rows_match(const ovk__layout *lay, int n, const plain *p, const plain *q, double *w, int *mark,
                      int p_is_t)
{
    for (int i = 0; i < n; i++) {
        for (int k = q->ptr[i]; k < q->ptr[i + 1]; k++) {
            mark[q->col[k]] = i + 1;
            w[q->col[k]] = q->val[k];
        }
        for (int k = p->ptr[i]; k < p->ptr[i + 1]; k++) {
            int j = p->col[k];
            double other = mark[j] == i + 1 ? w[j] : 0.0;
            if (p->val[k] == other) continue;
            return p_is_t ? mismatch(lay, j, i, p->val[k], other) : mismatch(lay, i, j, p->val[k], other);
        }
    }
    return OVK_OK;
}

/* the diag block against its transpose */
static int diag_symmetric(const ovk_matrix *A)
{
    int n = A->lay.nlocal, rc;
    plain a = {0}, t = {0};
    double *w = NULL;
    int *mark = NULL;
    if (A->diag.upper) return OVK_OK; /* kept one triangle: symmetric bit for bit */
    int nnz = A->diag.rowptr[n];
    rc = plain_alloc(&a, n, nnz);
    if (!rc) rc = plain_alloc(&t, n, nnz);
    if (rc) goto cleanup;
    w = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    mark = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    if (!w || !mark) {
        rc = ovk__fail(OVK_ENOMEM, "symmetry check: %d rows", n);
        goto cleanup;
    }
    rc = ovk__matrix_diag_ptr(A, a.ptr);
    if (!rc) rc = ovk__matrix_diag_fill(A, a.ptr, a.col, a.val);
    if (rc) goto cleanup;
    for (int k = 0; k < nnz; k++) t.ptr[a.col[k] + 1]++; /* t = a^T by counting */
    for (int i = 0; i < n; i++) t.ptr[i + 1] += t.ptr[i];
    memcpy(mark, t.ptr, sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        for (int k = a.ptr[i]; k < a.ptr[i + 1]; k++) {
            int p = mark[a.col[k]]++;
            t.col[p] = i;
            t.val[p] = a.val[k];
        }
    memset(mark, 0, sizeof(int) * (size_t)n);
    rc = rows_match(&A->lay, n, &a, &t, w, mark, 0);
    if (rc) goto cleanup;
    memset(mark, 0, sizeof(int) * (size_t)n);
    rc = rows_match(&A->lay, n, &t, &a, w, mark, 1);
cleanup:
    plain_free(&a);
    plain_free(&t);
    free(w);
    free(mark);
    return rc;
}

/* index of global column g in col_map, or -1 */
static int find_col(const ovk_matrix *A, ovk_gidx g)
{
    int lo = 0, hi = A->ncols_offd - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (A->col_map[mid] == g) return mid;
        if (A->col_map[mid] < g) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* the offd entries of this rank, grouped by the owner of their column
 * (the halo's receive side: col_map[recv_ptr[j], recv_ptr[j+1]) is owned
 * by recv_rank[j]); cnt[j] entries for recv_rank[j] from out + off[j] */
static int pack_offd(const ovk_matrix *A, triple **out, int *cnt, int *off)
{
    const ovk__halo *h = &A->halo;
    const ovk__csr *o = &A->offd;
    int n = A->lay.nlocal, nnz = o->rowptr[n];
    int *owner = malloc(sizeof(int) * (size_t)(A->ncols_offd + 1));
    *out = malloc(sizeof(triple) * (size_t)(nnz > 0 ? nnz : 1));
    if (!owner || !*out) {
        free(owner);
        return ovk__fail(OVK_ENOMEM, "symmetry check: %d offd entries", nnz);
    }
    for (int j = 0; j < h->nrecv; j++) {
        cnt[j] = 0;
        for (int c = h->recv_ptr[j]; c < h->recv_ptr[j + 1]; c++) owner[c] = j;
    }
    for (int k = 0; k < nnz; k++) cnt[owner[o->col[k]]]++;
    off[0] = 0;
    for (int j = 0; j < h->nrecv; j++) off[j + 1] = off[j] + cnt[j];
    for (int j = 0; j < h->nrecv; j++) cnt[j] = 0;
    for (int i = 0; i < n; i++)
        for (int k = o->rowptr[i]; k < o->rowptr[i + 1]; k++) {
            int j = owner[o->col[k]];
            triple e = {A->lay.row_start + i, A->col_map[o->col[k]], o->val[k]};
            (*out)[off[j] + cnt[j]++] = e;
        }
    free(owner);
    return OVK_OK;
}

/* a received (r, g, a_rg) against this rank's a_gr; seen marks the offd
 * entries matched */
static int match_remote(const ovk_matrix *A, const triple *e, char *seen)
{
    const ovk__csr *o = &A->offd;
    int i = (int)(e->col - A->lay.row_start), c = find_col(A, e->row);
    for (int k = c < 0 ? 0 : o->rowptr[i]; c >= 0 && k < o->rowptr[i + 1]; k++) {
        if (o->col[k] != c) continue;
        seen[k] = 1;
        if (o->val[k] == e->val) return OVK_OK;
        return ovk__fail(OVK_ENOTSYM, "A(%lld,%lld) = %.17g but A(%lld,%lld) = %.17g", ovk__gid(&A->lay, e->row),
                         ovk__gid(&A->lay, e->col), e->val, ovk__row_id(&A->lay, i), ovk__gid(&A->lay, e->row),
                         o->val[k]);
    }
    if (e->val == 0.0) return OVK_OK;
    return ovk__fail(OVK_ENOTSYM, "A(%lld,%lld) = %.17g but A(%lld,%lld) is not stored (0)",
                     ovk__gid(&A->lay, e->row), ovk__gid(&A->lay, e->col), e->val, ovk__row_id(&A->lay, i),
                     ovk__gid(&A->lay, e->row));
}

/* post the receives and sends of one round; wait for all */
static int exchange(const ovk_matrix *A, int tag, size_t unit, void *sendbuf, const int *scnt, const int *soff,
                    void *recvbuf, const int *rcnt, const int *roff, MPI_Request *req)
{
    const ovk__halo *h = &A->halo;
    int nr = 0, rc = OVK_OK;
    char *sb = sendbuf, *rb = recvbuf;
    for (int j = 0; j < h->nsend && !rc; j++) /* the ranks whose rows hold columns of ours */
        rc = ovk__mpi(MPI_Irecv(rb + unit * (size_t)roff[j], (int)unit * rcnt[j], MPI_BYTE, h->send_rank[j], tag,
                                A->lay.comm, &req[nr++]),
                      "MPI_Irecv (symmetry check)");
    for (int j = 0; j < h->nrecv && !rc; j++)
        rc = ovk__mpi(MPI_Isend(sb + unit * (size_t)soff[j], (int)unit * scnt[j], MPI_BYTE, h->recv_rank[j], tag,
                                A->lay.comm, &req[nr++]),
                      "MPI_Isend (symmetry check)");
    int rc2 = ovk__mpi(MPI_Waitall(nr, req, MPI_STATUSES_IGNORE), "MPI_Waitall (symmetry check)");
    return rc ? rc : rc2;
}

/* the offd entries against their mirrors on the ranks that own them; the
 * allocations are agreed before each round, so that no rank waits for a
 * message a failed one will not send */
static int offd_symmetric(const ovk_matrix *A)
{
    const ovk__halo *h = &A->halo;
    int ns = h->nsend, nr = h->nrecv, nnz = A->offd.rowptr[A->lay.nlocal], most = ns > nr ? ns : nr;
    triple *out = NULL, *in = NULL;
    char *seen = calloc((size_t)nnz + 1, 1);
    int *ints = calloc((size_t)(4 * (most + 1)), sizeof(int));
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(ns + nr + 1));
    int *idx = ints, *one = idx + most + 1, *scnt = one + most + 1, *soff = scnt + most + 1;
    int *rcnt = NULL, *roff = NULL; /* in counts, once agreed */
    int rc = seen && ints && req ? pack_offd(A, &out, scnt, soff)
                                 : ovk__fail(OVK_ENOMEM, "symmetry check: %d neighbours", ns + nr);
    int *counts = malloc(sizeof(int) * (size_t)(2 * (ns + 1)));
    if (!rc && !counts) rc = ovk__fail(OVK_ENOMEM, "symmetry check: %d neighbours", ns);
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) goto cleanup;
    rcnt = counts;
    roff = counts + ns + 1;
    for (int j = 0; j <= most; j++) {
        idx[j] = j;
        one[j] = 1;
    }
    rc = exchange(A, COUNT_TAG, sizeof(int), scnt, one, idx, rcnt, one, idx, req); /* the counts */
    roff[0] = 0;
    for (int j = 0; !rc && j < ns; j++) roff[j + 1] = roff[j] + rcnt[j];
    if (!rc) {
        in = malloc(sizeof(triple) * (size_t)(roff[ns] > 0 ? roff[ns] : 1));
        if (!in) rc = ovk__fail(OVK_ENOMEM, "symmetry check: %d entries received", roff[ns]);
    }
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) goto cleanup;
    rc = exchange(A, ENTRY_TAG, sizeof(triple), out, scnt, soff, in, rcnt, roff, req); /* the entries */
    for (int k = 0; !rc && k < roff[ns]; k++) rc = match_remote(A, &in[k], seen);
    for (int i = 0; !rc && i < A->lay.nlocal; i++) /* stored here, not sent by the owner of the column */
        for (int k = A->offd.rowptr[i]; !rc && k < A->offd.rowptr[i + 1]; k++) {
            ovk_gidx g = A->col_map[A->offd.col[k]];
            if (!seen[k] && A->offd.val[k] != 0.0)
                rc = ovk__fail(OVK_ENOTSYM, "A(%lld,%lld) = %.17g but A(%lld,%lld) is not stored (0)",
                               ovk__row_id(&A->lay, i), ovk__gid(&A->lay, g), A->offd.val[k], ovk__gid(&A->lay, g),
                               ovk__row_id(&A->lay, i));
        }
cleanup:
    free(out);
    free(in);
    free(seen);
    free(ints);
    free(counts);
    free(req);
    return rc;
}

int ovk__matrix_check_symmetric(const ovk_matrix *A)
{
    int rc = diag_symmetric(A);
    /* every rank takes part in the exchange, whatever its diag block said */
    int rc2 = offd_symmetric(A);
    return ovk__agree(A->lay.comm, rc ? rc : rc2);
}
