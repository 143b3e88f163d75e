/* The halo exchange of y = A x and the matrix-vector product.  The
 * communication package is built once at setup; each product posts the
 * receives and sends, multiplies the diag block while messages fly, then
 * the offd block. */
#include <stdlib.h>
#include <string.h>

#include "matrix_impl.h"

enum { HALO_TAG = 7 };

static void drop_mode(ovk__halo *h);

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
    drop_mode(h);
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

/* Send side: every rank tells the owners which of their rows it needs.
 * sdispl and rdispl are p + 1 zeroed ints.  Collective: the buffers sized by
 * the counts are agreed before the exchange of the ids. */
static int setup_send(ovk_matrix *A, int *need, int *give, int *sdispl, int *rdispl)
{
    int rc = OVK_OK, p = A->lay.size;
    ovk__halo *h = &A->halo;
    ovk_gidx *want = NULL;
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
    if (!want || !h->send_idx || !h->send_buf || !h->send_rank || !h->send_ptr)
        rc = ovk__fail(OVK_ENOMEM, "halo send side");
    /* agreed: a rank without its buffers must not skip the Alltoallv */
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) goto cleanup;
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
    free(want);
    return rc;
}

int ovk__halo_setup(ovk_matrix *A)
{
    int rc = OVK_OK, p = A->lay.size;
    int *need = calloc((size_t)p, sizeof(int)), *give = calloc((size_t)p, sizeof(int));
    int *sdispl = calloc((size_t)p + 1, sizeof(int)), *rdispl = calloc((size_t)p + 1, sizeof(int));
    if (!need || !give || !sdispl || !rdispl) rc = ovk__fail(OVK_ENOMEM, "halo setup");
    if (!rc) rc = setup_recv(A, need);
    /* agreed before setup_send's first collective */
    rc = ovk__agree(A->lay.comm, rc);
    if (!rc) rc = setup_send(A, need, give, sdispl, rdispl);
    if (!rc) {
        A->halo.reqs = malloc(sizeof(MPI_Request) * (size_t)(A->halo.nsend + A->halo.nrecv + 1));
        if (!A->halo.reqs) rc = ovk__fail(OVK_ENOMEM, "halo requests");
    }
    free(need);
    free(give);
    free(sdispl);
    free(rdispl);
    return ovk__agree(A->lay.comm, rc);
}

/* ---- the exchange modes ---------------------------------------------- */

/* Drop what a mode built (persistent requests, the graph communicator). */
static void drop_mode(ovk__halo *h)
{
    if (h->preqs)
        for (int j = 0; j < h->nrecv + h->nsend; j++)
            if (h->preqs[j] != MPI_REQUEST_NULL) MPI_Request_free(&h->preqs[j]);
    free(h->preqs);
    h->preqs = NULL;
    if (h->has_nbr) MPI_Comm_free(&h->nbr);
    h->has_nbr = 0;
    free(h->nbr_cnt);
    h->nbr_cnt = NULL;
    h->mode = OVK_HALO_ISEND;
}

/* The receives and sends of one product as persistent requests. */
static int build_persistent(const ovk_matrix *A, ovk__halo *h)
{
    int rc = OVK_OK, total = h->nrecv + h->nsend;
    h->preqs = malloc(sizeof(MPI_Request) * (size_t)(total + 1));
    if (!h->preqs) return ovk__fail(OVK_ENOMEM, "persistent halo requests");
    for (int j = 0; j < total; j++) h->preqs[j] = MPI_REQUEST_NULL;
    for (int j = 0; j < h->nrecv; j++)
        OVK__MPI(MPI_Recv_init(h->ext + h->recv_ptr[j], h->recv_ptr[j + 1] - h->recv_ptr[j], MPI_DOUBLE,
                               h->recv_rank[j], HALO_TAG, A->lay.comm, &h->preqs[j]));
    for (int j = 0; j < h->nsend; j++)
        OVK__MPI(MPI_Send_init(h->send_buf + h->send_ptr[j], h->send_ptr[j + 1] - h->send_ptr[j], MPI_DOUBLE,
                               h->send_rank[j], HALO_TAG, A->lay.comm, &h->preqs[h->nrecv + j]));
cleanup:
    return rc;
}

/* The graph communicator: sources are the ranks we receive from, in
 * recv_rank order, destinations those we send to; the counts per
 * neighbour (displacements: recv_ptr, send_ptr). */
static int build_neighbor(const ovk_matrix *A, ovk__halo *h)
{
    int rc = OVK_OK;
    h->nbr_cnt = malloc(sizeof(int) * (size_t)(h->nrecv + h->nsend + 1));
    if (!h->nbr_cnt) rc = ovk__fail(OVK_ENOMEM, "neighbour halo counts");
    /* agreed: a rank without its counts must not skip the graph creation */
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) goto cleanup;
    for (int j = 0; j < h->nrecv; j++) h->nbr_cnt[j] = h->recv_ptr[j + 1] - h->recv_ptr[j];
    for (int j = 0; j < h->nsend; j++) h->nbr_cnt[h->nrecv + j] = h->send_ptr[j + 1] - h->send_ptr[j];
#if defined(__GNUC__) && __GNUC__ >= 11 /* Open MPI's MPI_UNWEIGHTED points to an empty object */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
    OVK__MPI(MPI_Dist_graph_create_adjacent(A->lay.comm, h->nrecv, h->recv_rank, MPI_UNWEIGHTED, h->nsend,
                                            h->send_rank, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &h->nbr));
#if defined(__GNUC__) && __GNUC__ >= 11
#pragma GCC diagnostic pop
#endif
    h->has_nbr = 1;
cleanup:
    return rc;
}

int ovk_matrix_set_halo(ovk_matrix *A, ovk_halo_mode mode)
{
    if (!A) return ovk__fail(OVK_EINVAL, "ovk_matrix_set_halo: NULL matrix");
    if (mode != OVK_HALO_ISEND && mode != OVK_HALO_PERSISTENT && mode != OVK_HALO_NEIGHBOR)
        return ovk__fail(OVK_EINVAL, "ovk_matrix_set_halo: unknown mode %d", (int)mode);
    ovk__halo *h = &A->halo;
    drop_mode(h);
    int rc = OVK_OK;
    if (mode == OVK_HALO_PERSISTENT) rc = build_persistent(A, h);
    if (mode == OVK_HALO_NEIGHBOR) rc = build_neighbor(A, h);
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) drop_mode(h);
    else h->mode = mode;
    return rc;
}

ovk_halo_mode ovk_matrix_get_halo(const ovk_matrix *A) { return A ? (ovk_halo_mode)A->halo.mode : OVK_HALO_ISEND; }

/* pack the x values the neighbours need */
static void pack(const ovk__halo *h, const double *x)
{
    for (int k = 0; k < h->send_ptr[h->nsend]; k++) h->send_buf[k] = x[h->send_idx[k]];
}

int ovk__halo_begin(const ovk_matrix *A, const double *x)
{
    const ovk__halo *h = &A->halo;
    int rc = OVK_OK;
    if (h->mode == OVK_HALO_PERSISTENT) {
        pack(h, x);
        OVK__MPI(MPI_Startall(h->nrecv + h->nsend, h->preqs));
        return OVK_OK;
    }
    if (h->mode == OVK_HALO_NEIGHBOR) {
        pack(h, x);
        OVK__MPI(MPI_Ineighbor_alltoallv(h->send_buf, h->nbr_cnt + h->nrecv, h->send_ptr, MPI_DOUBLE, h->ext,
                                         h->nbr_cnt, h->recv_ptr, MPI_DOUBLE, h->nbr, &h->reqs[0]));
        return OVK_OK;
    }
    for (int j = 0; j < h->nrecv; j++)
        OVK__MPI(MPI_Irecv(h->ext + h->recv_ptr[j], h->recv_ptr[j + 1] - h->recv_ptr[j], MPI_DOUBLE,
                           h->recv_rank[j], HALO_TAG, A->lay.comm, &h->reqs[j]));
    pack(h, x);
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
    if (h->mode == OVK_HALO_PERSISTENT) OVK__MPI(MPI_Waitall(h->nrecv + h->nsend, h->preqs, MPI_STATUSES_IGNORE));
    else if (h->mode == OVK_HALO_NEIGHBOR) OVK__MPI(MPI_Wait(&h->reqs[0], MPI_STATUS_IGNORE));
    else OVK__MPI(MPI_Waitall(h->nrecv + h->nsend, h->reqs, MPI_STATUSES_IGNORE));
cleanup:
    return rc;
}

/* The diag-block row kernels, one per storage form (columns as int or as
 * 16-bit offsets from the row; values as double, float or a one-byte index
 * into a dictionary: each equal to val[k] bit for bit, so every form makes
 * the same sums in the same order).  Each returns dot plus x_i y_i of its
 * rows in row order (for ovk__matvec_dot; the plain product ignores it). */
#define VAL_D(k) val[k]
#define VAL_F(k) ((double)valf[k])
#define VAL_8(k) dict[vidx[k]]
#define ROW_ARRAYS                                                                                \
    const int *restrict ptr = m->rowptr;                                                          \
    const double *restrict val = m->val;                                                          \
    const float *restrict valf = m->valf;                                                         \
    const uint8_t *restrict vidx = m->vidx;                                                       \
    const double *restrict dict = m->vdict;                                                       \
    (void)val, (void)valf, (void)vidx, (void)dict

/* y[lo:hi) = D x for rows [lo, hi), columns as int */
#define COL_ROWS(NAME, VAL)                                                                       \
    static double NAME(const ovk__csr *m, const double *restrict x, double *restrict y, int lo,   \
                       int hi, double dot)                                                        \
    {                                                                                             \
        ROW_ARRAYS;                                                                               \
        const int *restrict col = m->col;                                                         \
        for (int i = lo; i < hi; i++) {                                                           \
            double s = 0.0;                                                                       \
            for (int k = ptr[i]; k < ptr[i + 1]; k++) s += VAL(k) * x[col[k]];                    \
            y[i] = s;                                                                             \
            dot += x[i] * s;                                                                      \
        }                                                                                         \
        return dot;                                                                               \
    }

/* the same, column = i + off[k] */
#define OFF_ROWS(NAME, VAL)                                                                       \
    static double NAME(const ovk__csr *m, const double *restrict x, double *restrict y, int lo,   \
                       int hi, double dot)                                                        \
    {                                                                                             \
        ROW_ARRAYS;                                                                               \
        const int16_t *restrict off = m->off16;                                                   \
        for (int i = lo; i < hi; i++) {                                                           \
            const double *restrict xi = x + i;                                                    \
            double s = 0.0;                                                                       \
            for (int k = ptr[i]; k < ptr[i + 1]; k++) s += VAL(k) * xi[off[k]];                   \
            y[i] = s;                                                                             \
            dot += x[i] * s;                                                                      \
        }                                                                                         \
        return dot;                                                                               \
    }

/* rows [lo, hi) of y = D x when D keeps its upper triangle: row i adds
 * a_ii x_i and its a_ij x_j (j > i) to what the rows above left in y_i, and
 * leaves a_ij x_i in y_j for row j (a_ji = a_ij).  y must start at 0 and
 * the rows run in ascending order; x and y must not overlap.  y_i is final
 * (for the diag block) once row i is done. */
#define UPPER_ROWS(NAME, VAL)                                                                     \
    static double NAME(const ovk__csr *m, const double *restrict x, double *restrict y, int lo,   \
                       int hi, double dot)                                                        \
    {                                                                                             \
        ROW_ARRAYS;                                                                               \
        const int16_t *restrict off = m->off16;                                                   \
        for (int i = lo; i < hi; i++) {                                                           \
            const double *restrict xr = x + i;                                                    \
            double *restrict yr = y + i;                                                          \
            double xi = x[i];                                                                     \
            int k = ptr[i];                                                                       \
            double s = y[i] + VAL(k) * xi; /* a_ii first */                                       \
            for (k++; k < ptr[i + 1]; k++) {                                                      \
                double a = VAL(k);                                                                \
                s += a * xr[off[k]];                                                              \
                yr[off[k]] += a * xi;                                                             \
            }                                                                                     \
            y[i] = s;                                                                             \
            dot += xi * s;                                                                        \
        }                                                                                         \
        return dot;                                                                               \
    }

COL_ROWS(col_rows_d, VAL_D)
COL_ROWS(col_rows_f, VAL_F)
COL_ROWS(col_rows_8, VAL_8)
OFF_ROWS(off_rows_d, VAL_D)
OFF_ROWS(off_rows_f, VAL_F)
OFF_ROWS(off_rows_8, VAL_8)
UPPER_ROWS(upper_rows_d, VAL_D)
UPPER_ROWS(upper_rows_f, VAL_F)
UPPER_ROWS(upper_rows_8, VAL_8)

typedef double (*rows_fn)(const ovk__csr *, const double *, double *, int, int, double);

/* the row kernel of a diag block's storage form */
static rows_fn pick_rows(const ovk__csr *m)
{
    static const rows_fn col[3] = {col_rows_d, col_rows_f, col_rows_8};
    static const rows_fn off[3] = {off_rows_d, off_rows_f, off_rows_8};
    static const rows_fn upper[3] = {upper_rows_d, upper_rows_f, upper_rows_8};
    return m->upper ? upper[m->vform] : m->off16 ? off[m->vform] : col[m->vform];
}

/* rows [lo, hi) of a block with runs: each run by its shared row, the rows
 * between runs by their entries (plain, the kernel of the block's form) */
static double runs_rows(const ovk__csr *m, rows_fn plain, const double *x, double *y, int lo, int hi, double dot)
{
    const ovk__runs *r = m->runs;
    int a = 0, b = r->nseg; /* the segment holding lo: seg_start[a] <= lo < seg_start[a + 1] */
    while (b - a > 1) {
        int mid = (a + b) / 2;
        if (r->seg_start[mid] <= lo) a = mid;
        else b = mid;
    }
    for (int s = a; s < r->nseg && r->seg_start[s] < hi; s++) {
        int from = r->seg_start[s] > lo ? r->seg_start[s] : lo;
        int to = r->seg_start[s + 1] < hi ? r->seg_start[s + 1] : hi;
        int p = r->seg_pat[s];
        if (p < 0) dot = plain(m, x, y, from, to, dot);
        else
            dot = ovk__run_rows(r->pat_off + r->pat_ptr[p], r->pat_val + r->pat_ptr[p],
                                r->pat_ptr[p + 1] - r->pat_ptr[p], x, y, from, to, dot);
    }
    return dot;
}

/* y += O ext for every row that has offd entries; returns dot plus
 * x_i (O ext)_i */
static double offd_rows(const ovk__csr *m, const double *restrict ext, const double *restrict x,
                        double *restrict y, double dot)
{
    const int *restrict ptr = m->rowptr, *restrict col = m->col;
    const double *restrict val = m->val;
    for (int i = 0; i < m->nrows; i++) {
        if (ptr[i] == ptr[i + 1]) continue;
        double s = 0.0;
        for (int k = ptr[i]; k < ptr[i + 1]; k++) s += val[k] * ext[col[k]];
        y[i] += s;
        dot += x[i] * s;
    }
    return dot;
}

/* y = A x, the local <x, y> into *xy: the diag block in chunks with the
 * hook while the halo flies, then the offd block */
static int matvec_pass(const ovk_matrix *A, const double *x, double *y, double *xy, const ovk__hook *hook)
{
    int rc = ovk__halo_begin(A, x);
    if (rc) return rc;
    int n = A->lay.nlocal, step = ovk__chunk_rows(n, hook);
    rows_fn rows = pick_rows(&A->diag);
    double dot = 0.0;
    if (A->diag.upper) memset(y, 0, sizeof(double) * (size_t)n);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        if (A->diag.runs) dot = runs_rows(&A->diag, rows, x, y, lo, hi, dot);
        else dot = rows(&A->diag, x, y, lo, hi, dot);
        ovk__poke(hook);
    }
    rc = ovk__halo_end(A);
    if (rc) return rc;
    if (A->ncols_offd > 0) dot = offd_rows(&A->offd, A->halo.ext, x, y, dot);
    *xy = dot;
    return OVK_OK;
}

int ovk__matvec(const ovk_matrix *A, const double *x, double *y, const ovk__hook *hook)
{
    double xy;
    return matvec_pass(A, x, y, &xy, hook);
}

int ovk__matvec_dot(const ovk_matrix *A, const double *x, double *y, double *xy, const ovk__hook *hook)
{
    return matvec_pass(A, x, y, xy, hook);
}

/* bytes of nnz values of m as the matvec reads them */
static double value_bytes(const ovk__csr *m, double nnz)
{
    if (m->vform == OVK__VAL_DICT8) return nnz + 8.0 * m->ndict;
    return nnz * (m->vform == OVK__VAL_FLOAT ? 4.0 : 8.0);
}

/* bytes of the diag block the matvec reads: rowptr, columns and values of
 * the rows it reads entry by entry, and with runs the segments and the
 * shared rows (each read once: a run's row stays in cache) */
static double diag_bytes(const ovk__csr *d)
{
    const ovk__runs *r = d->runs;
    double rows = d->nrows, nnz = d->rowptr[d->nrows], b = 0.0;
    if (r) {
        for (int s = 0; s < r->nseg; s++)
            if (r->seg_pat[s] >= 0) nnz -= (double)(r->seg_start[s + 1] - r->seg_start[s]) *
                                           (d->rowptr[r->seg_start[s] + 1] - d->rowptr[r->seg_start[s]]);
        rows -= r->run_rows;
        b += 8.0 * r->nseg + 12.0 * r->pat_ptr[r->npat];
    }
    return b + 4.0 * (rows + 1) + value_bytes(d, nnz) + (d->off16 ? 2.0 : 4.0) * nnz;
}

double ovk__matvec_bytes(const ovk_matrix *A)
{
    const ovk__csr *d = &A->diag, *o = &A->offd;
    const ovk__halo *h = &A->halo;
    double n = A->lay.nlocal, b = 0.0;
    b += diag_bytes(d);      /* diag block */
    b += 8.0 * n + 8.0 * n; /* x, y */
    if (A->ncols_offd > 0) {
        int rows = 0;
        for (int i = 0; i < o->nrows; i++) rows += o->rowptr[i + 1] > o->rowptr[i];
        b += 4.0 * (n + 1) + 12.0 * o->rowptr[o->nrows] + 8.0 * A->ncols_offd; /* offd, ext */
        b += 16.0 * rows;                                                     /* y_i += */
    }
    b += 20.0 * h->send_ptr[h->nsend]; /* send_idx, x gathered, send_buf */
    return b;
}

/* the local checks of ovk_matvec's vectors */
static int check_matvec(const ovk_matrix *A, const ovk_vector *x, const ovk_vector *y)
{
    if (!x || !y) return ovk__fail(OVK_EINVAL, "ovk_matvec: NULL vector");
    if (x == y || (x->n > 0 && x->data == y->data)) return ovk__fail(OVK_EINVAL, "ovk_matvec: x and y must be distinct");
    int rc = ovk__layout_check(x->lay, "x", &A->lay, "the matrix", "ovk_matvec");
    return rc ? rc : ovk__layout_check(y->lay, "y", &A->lay, "the matrix", "ovk_matvec");
}

int ovk_matvec(const ovk_matrix *A, const ovk_vector *x, ovk_vector *y)
{
    if (!A) return ovk__fail(OVK_EINVAL, "ovk_matvec: NULL matrix");
    /* agreed: a rank that fails its checks must not leave the others in the halo exchange */
    int rc = ovk__agree(A->lay.comm, check_matvec(A, x, y));
    return rc ? rc : ovk__matvec(A, x->data, y->data, NULL);
}
