/* The halo exchange of y = A x and the matrix-vector product.  The
 * communication package is built once at setup; each product posts the
 * receives and sends, multiplies the diag block while messages fly, then
 * the offd block. */
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "matrix_impl.h"

enum { HALO_TAG = 7 };

void ovk__halo_free(ovk__halo *h)
{
    free(h->send_rank);
    free(h->send_ptr);
    free(h->send_idx);
    free(h->send_buf);
    free(h->recv_rank);
    free(h->recv_ptr);
    free(h->ext);
    free(h->reqs);
    memset(h, 0, sizeof *h);
}

/* Owner of global row g (binary search over the layout). */
static int owner_of(const ovk__layout *lay, ovk_gidx g)
{
    int lo = 0, hi = lay->size - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (lay->starts[mid] <= g) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Receive side: col_map is sorted, so each owner's columns are contiguous. */
static int setup_recv(ovk_matrix *A, int *need)
{
    ovk__halo *h = &A->halo;
    int p = A->lay.size;
    for (int k = 0; k < A->ncols_offd; k++) need[owner_of(&A->lay, A->col_map[k])]++;
    for (int r = 0; r < p; r++) h->nrecv += need[r] > 0;
    h->recv_rank = malloc(sizeof(int) * (size_t)(h->nrecv + 1));
    h->recv_ptr = malloc(sizeof(int) * (size_t)(h->nrecv + 1));
    h->ext = malloc(sizeof(double) * (size_t)(A->ncols_offd + 1));
    if (!h->recv_rank || !h->recv_ptr || !h->ext) return ovk__fail(OVK_ENOMEM, "halo receive side");
    h->recv_ptr[0] = 0;
    for (int r = 0, j = 0; r < p; r++) {
        if (!need[r]) continue;
        h->recv_rank[j] = r;
        h->recv_ptr[j + 1] = h->recv_ptr[j] + need[r];
        j++;
    }
    return OVK_OK;
}

/* Send side: every rank tells the owners which of their rows it needs. */
static int setup_send(ovk_matrix *A, int *need, int *give)
{
    int rc = OVK_OK, p = A->lay.size;
    ovk__halo *h = &A->halo;
    int *sdispl = calloc((size_t)p + 1, sizeof(int)), *rdispl = calloc((size_t)p + 1, sizeof(int));
    ovk_gidx *want = NULL;
    if (!sdispl || !rdispl) {
        rc = ovk__fail(OVK_ENOMEM, "halo setup");
        goto cleanup;
    }
    OVK__MPI(MPI_Alltoall(need, 1, MPI_INT, give, 1, MPI_INT, A->lay.comm));
    for (int r = 0; r < p; r++) {
        sdispl[r + 1] = sdispl[r] + need[r];
        rdispl[r + 1] = rdispl[r] + give[r];
        h->nsend += give[r] > 0;
    }
    want = malloc(sizeof(ovk_gidx) * (size_t)(rdispl[p] + 1));
    h->send_idx = malloc(sizeof(int) * (size_t)(rdispl[p] + 1));
    h->send_buf = malloc(sizeof(double) * (size_t)(rdispl[p] + 1));
    h->send_rank = malloc(sizeof(int) * (size_t)(h->nsend + 1));
    h->send_ptr = malloc(sizeof(int) * (size_t)(h->nsend + 1));
    if (!want || !h->send_idx || !h->send_buf || !h->send_rank || !h->send_ptr) {
        rc = ovk__fail(OVK_ENOMEM, "halo send side");
        goto cleanup;
    }
    OVK__MPI(MPI_Alltoallv(A->col_map, need, sdispl, MPI_INT64_T, want, give, rdispl, MPI_INT64_T,
                           A->lay.comm));
    for (int k = 0; k < rdispl[p]; k++) h->send_idx[k] = (int)(want[k] - A->lay.row_start);
    h->send_ptr[0] = 0;
    for (int r = 0, j = 0; r < p; r++) {
        if (!give[r]) continue;
        h->send_rank[j] = r;
        h->send_ptr[j + 1] = h->send_ptr[j] + give[r];
        j++;
    }
cleanup:
    free(sdispl);
    free(rdispl);
    free(want);
    return rc;
}

int ovk__halo_setup(ovk_matrix *A)
{
    int rc = OVK_OK, p = A->lay.size;
    int *need = calloc((size_t)p, sizeof(int)), *give = calloc((size_t)p, sizeof(int));
    if (!need || !give) rc = ovk__fail(OVK_ENOMEM, "halo setup");
    if (!rc) rc = setup_recv(A, need);
    rc = ovk__agree(A->lay.comm, rc);
    if (!rc) rc = setup_send(A, need, give);
    if (!rc) {
        A->halo.reqs = malloc(sizeof(MPI_Request) * (size_t)(A->halo.nsend + A->halo.nrecv + 1));
        if (!A->halo.reqs) rc = ovk__fail(OVK_ENOMEM, "halo requests");
    }
    free(need);
    free(give);
    return ovk__agree(A->lay.comm, rc);
}

int ovk__halo_begin(const ovk_matrix *A, const double *x)
{
    const ovk__halo *h = &A->halo;
    int rc = OVK_OK;
    for (int j = 0; j < h->nrecv; j++)
        OVK__MPI(MPI_Irecv(h->ext + h->recv_ptr[j], h->recv_ptr[j + 1] - h->recv_ptr[j], MPI_DOUBLE,
                           h->recv_rank[j], HALO_TAG, A->lay.comm, &h->reqs[j]));
    /* pack x values the neighbours need */
    for (int k = 0; k < h->send_ptr[h->nsend]; k++) h->send_buf[k] = x[h->send_idx[k]];
    for (int j = 0; j < h->nsend; j++)
        OVK__MPI(MPI_Isend(h->send_buf + h->send_ptr[j], h->send_ptr[j + 1] - h->send_ptr[j],
                           MPI_DOUBLE, h->send_rank[j], HALO_TAG, A->lay.comm, &h->reqs[h->nrecv + j]));
cleanup:
    return rc;
}

int ovk__halo_end(const ovk_matrix *A)
{
    const ovk__halo *h = &A->halo;
    int rc = OVK_OK;
    OVK__MPI(MPI_Waitall(h->nrecv + h->nsend, h->reqs, MPI_STATUSES_IGNORE));
cleanup:
    return rc;
}

/* y[lo:hi) = D x for rows [lo, hi) of the diag block; the same sums in the
 * same order whichever way the columns are stored */
static void diag_rows(const ovk__csr *m, const double *restrict x, double *restrict y, int lo, int hi)
{
    const int *restrict ptr = m->rowptr, *restrict col = m->col;
    const int16_t *restrict off = m->off16;
    const double *restrict val = m->val;
    if (off) {
        for (int i = lo; i < hi; i++) {
            const double *restrict xi = x + i; /* column = i + off[k] */
            double s = 0.0;
            for (int k = ptr[i]; k < ptr[i + 1]; k++) s += val[k] * xi[off[k]];
            y[i] = s;
        }
        return;
    }
    for (int i = lo; i < hi; i++) {
        double s = 0.0;
        for (int k = ptr[i]; k < ptr[i + 1]; k++) s += val[k] * x[col[k]];
        y[i] = s;
    }
}

/* rows [lo, hi) of y = D x when D keeps its upper triangle: row i adds
 * a_ii x_i and its a_ij x_j (j > i) to what the rows above left in y_i, and
 * leaves a_ij x_i in y_j for row j (a_ji = a_ij).  y must start at 0 and
 * the rows run in ascending order; x and y must not overlap. */
static void upper_rows(const ovk__csr *m, const double *restrict x, double *restrict y, int lo, int hi)
{
    const int *restrict ptr = m->rowptr;
    const int16_t *restrict off = m->off16;
    const double *restrict val = m->val;
    for (int i = lo; i < hi; i++) {
        const double *restrict xr = x + i; /* column = i + off[k] */
        double *restrict yr = y + i;
        double xi = x[i];
        int k = ptr[i];
        double s = y[i] + val[k] * xi; /* a_ii first */
        for (k++; k < ptr[i + 1]; k++) {
            s += val[k] * xr[off[k]];
            yr[off[k]] += val[k] * xi;
        }
        y[i] = s;
    }
}

/* y += O ext for every row that has offd entries */
static void offd_rows(const ovk__csr *m, const double *restrict ext, double *restrict y)
{
    const int *restrict ptr = m->rowptr, *restrict col = m->col;
    const double *restrict val = m->val;
    for (int i = 0; i < m->nrows; i++) {
        if (ptr[i] == ptr[i + 1]) continue;
        double s = 0.0;
        for (int k = ptr[i]; k < ptr[i + 1]; k++) s += val[k] * ext[col[k]];
        y[i] += s;
    }
}

int ovk__matvec(const ovk_matrix *A, const double *x, double *y, const ovk__hook *hook)
{
    int rc = ovk__halo_begin(A, x);
    if (rc) return rc;
    int n = A->lay.nlocal;
    int hooked = hook && hook->fn && hook->every > 0, step = hooked ? hook->every : (n > 0 ? n : 1);
    void (*rows)(const ovk__csr *, const double *, double *, int, int) = A->diag.upper ? upper_rows : diag_rows;
    if (A->diag.upper) memset(y, 0, sizeof(double) * (size_t)n);
    for (int lo = 0; lo < n; lo += step) {
        rows(&A->diag, x, y, lo, lo + step < n ? lo + step : n);
        if (hooked) hook->fn(hook->arg);
    }
    rc = ovk__halo_end(A);
    if (rc) return rc;
    if (A->ncols_offd > 0) offd_rows(&A->offd, A->halo.ext, y);
    return OVK_OK;
}

int ovk_matvec(const ovk_matrix *A, const ovk_vector *x, ovk_vector *y)
{
    if (!A) return ovk__fail(OVK_EINVAL, "ovk_matvec: NULL matrix");
    int rc = ovk__vector_check_pair(x, y);
    if (rc) return rc;
    if (!ovk__layout_same(x->lay, &A->lay)) return ovk__fail(OVK_EMISMATCH, "ovk_matvec: vectors do not have the matrix's layout");
    if (x == y) return ovk__fail(OVK_EINVAL, "ovk_matvec: x and y must be distinct");
    return ovk__matvec(A, x->data, y->data, NULL);
}
