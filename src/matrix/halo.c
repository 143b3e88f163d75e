/* The halo exchange of y = A x: the communication package is built once at
 * setup; each product posts the receives and sends (ovk__halo_begin) and
 * completes them (ovk__halo_end) around the diag block's product (matvec.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matrix_impl.h"

/* the layout's tags: other matrices on the shared communicator may exchange at the same time */
#define HALO_TAG ovk__layout_tag(&A->lay, 0)

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

/* The peers of one side: the ranks r with count[r] > 0 in ascending order,
 * peer j's entries at ptr[j] .. ptr[j + 1] - 1. */
static void list_peers(int p, const int *count, int *rank, int *ptr)
{
    ptr[0] = 0;
    for (int r = 0, j = 0; r < p; r++) {
        if (!count[r]) continue;
        rank[j] = r;
        ptr[j + 1] = ptr[j] + count[r];
        j++;
    }
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
    list_peers(p, need, h->recv_rank, h->recv_ptr);
    return OVK_OK;
}

/* Send side: every rank tells the owners which of their rows it needs.
 * sdispl and rdispl are p + 1 zeroed ints.  Collective: the buffers sized by
 * the counts are agreed before the exchange of the ids. */
static int setup_send(ovk_matrix *A, int *need, int *give, int *sdispl, int *rdispl)
{
    int p = A->lay.size;
    ovk__halo *h = &A->halo;
    ovk_gidx *want = NULL;
    int rc = ovk__mpi(MPI_Alltoall(need, 1, MPI_INT, give, 1, MPI_INT, A->lay.comm), "MPI_Alltoall");
    if (rc) return rc;
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
    rc = ovk__mpi(MPI_Alltoallv(A->col_map, need, sdispl, MPI_INT64_T, want, give, rdispl, MPI_INT64_T, A->lay.comm),
                  "MPI_Alltoallv");
    if (rc) goto cleanup;
    for (int k = 0; k < rdispl[p]; k++) h->send_idx[k] = (int)(want[k] - A->lay.row_start);
    list_peers(p, give, h->send_rank, h->send_ptr);
cleanup:
    free(want);
    return rc;
}

int ovk__halo_setup(ovk_matrix *A)
{
    int p = A->lay.size;
    int *need = calloc((size_t)p, sizeof(int)), *give = calloc((size_t)p, sizeof(int));
    int *sdispl = calloc((size_t)p + 1, sizeof(int)), *rdispl = calloc((size_t)p + 1, sizeof(int));
    int rc = need && give && sdispl && rdispl ? setup_recv(A, need) : ovk__fail(OVK_ENOMEM, "halo setup");
    /* agreed before setup_send's first collective */
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) goto cleanup;
    rc = setup_send(A, need, give, sdispl, rdispl);
    if (rc) goto cleanup;
    A->halo.reqs = malloc(sizeof(MPI_Request) * (size_t)(A->halo.nsend + A->halo.nrecv + 1));
    if (!A->halo.reqs) rc = ovk__fail(OVK_ENOMEM, "halo requests");
cleanup:
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
    int total = h->nrecv + h->nsend;
    h->preqs = malloc(sizeof(MPI_Request) * (size_t)(total + 1));
    if (!h->preqs) return ovk__fail(OVK_ENOMEM, "persistent halo requests");
    for (int j = 0; j < total; j++) h->preqs[j] = MPI_REQUEST_NULL;
    for (int j = 0; j < h->nrecv; j++) {
        int rc = ovk__mpi(MPI_Recv_init(h->ext + h->recv_ptr[j], h->recv_ptr[j + 1] - h->recv_ptr[j], MPI_DOUBLE,
                                        h->recv_rank[j], HALO_TAG, A->lay.comm, &h->preqs[j]),
                          "MPI_Recv_init");
        if (rc) return rc;
    }
    for (int j = 0; j < h->nsend; j++) {
        int rc = ovk__mpi(MPI_Send_init(h->send_buf + h->send_ptr[j], h->send_ptr[j + 1] - h->send_ptr[j],
                                        MPI_DOUBLE, h->send_rank[j], HALO_TAG, A->lay.comm, &h->preqs[h->nrecv + j]),
                          "MPI_Send_init");
        if (rc) return rc;
    }
    return OVK_OK;
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
    if (rc) return rc;
    for (int j = 0; j < h->nrecv; j++) h->nbr_cnt[j] = h->recv_ptr[j + 1] - h->recv_ptr[j];
    for (int j = 0; j < h->nsend; j++) h->nbr_cnt[h->nrecv + j] = h->send_ptr[j + 1] - h->send_ptr[j];
#if defined(__GNUC__) && __GNUC__ >= 11 /* Open MPI's MPI_UNWEIGHTED points to an empty object */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
    rc = ovk__mpi(MPI_Dist_graph_create_adjacent(A->lay.comm, h->nrecv, h->recv_rank, MPI_UNWEIGHTED, h->nsend,
                                                 h->send_rank, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &h->nbr),
                  "MPI_Dist_graph_create_adjacent");
#if defined(__GNUC__) && __GNUC__ >= 11
#pragma GCC diagnostic pop
#endif
    if (rc) return rc;
    h->has_nbr = 1;
    return OVK_OK;
}

int ovk_matrix_set_halo(ovk_matrix *A, ovk_halo_mode mode)
{
    if (!A) return ovk__fail(OVK_EINVAL, "ovk_matrix_set_halo: NULL matrix");
    if (mode != OVK_HALO_ISEND && mode != OVK_HALO_PERSISTENT && mode != OVK_HALO_NEIGHBOR)
        return ovk__fail(OVK_EINVAL, "ovk_matrix_set_halo: unknown mode %d", (int)mode);
    int bad = ovk__matrix_usable(A, "ovk_matrix_set_halo"); /* from a callback: local, nothing collective */
    if (bad) return bad;
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

/* pack the x values the neighbours need (NaN without x) */
static void pack(const ovk__halo *h, const double *x)
{
    for (int k = 0; k < h->send_ptr[h->nsend]; k++) h->send_buf[k] = x ? x[h->send_idx[k]] : NAN;
}

/* The receives posted, x packed, the sends posted (OVK_HALO_ISEND). */
static int begin_isend(const ovk_matrix *A, const ovk__halo *h, const double *x)
{
    for (int j = 0; j < h->nrecv; j++) {
        int rc = ovk__mpi(MPI_Irecv(h->ext + h->recv_ptr[j], h->recv_ptr[j + 1] - h->recv_ptr[j], MPI_DOUBLE,
                                    h->recv_rank[j], HALO_TAG, A->lay.comm, &h->reqs[j]),
                          "MPI_Irecv");
        if (rc) return rc;
    }
    pack(h, x);
    for (int j = 0; j < h->nsend; j++) {
        int rc = ovk__mpi(MPI_Isend(h->send_buf + h->send_ptr[j], h->send_ptr[j + 1] - h->send_ptr[j], MPI_DOUBLE,
                                    h->send_rank[j], HALO_TAG, A->lay.comm, &h->reqs[h->nrecv + j]),
                          "MPI_Isend");
        if (rc) return rc;
    }
    return OVK_OK;
}

int ovk__halo_begin(const ovk_matrix *A, const double *x)
{
    const ovk__halo *h = &A->halo;
    if (h->mode == OVK_HALO_PERSISTENT) {
        pack(h, x);
        return ovk__mpi(MPI_Startall(h->nrecv + h->nsend, h->preqs), "MPI_Startall");
    }
    if (h->mode == OVK_HALO_NEIGHBOR) {
        pack(h, x);
        return ovk__mpi(MPI_Ineighbor_alltoallv(h->send_buf, h->nbr_cnt + h->nrecv, h->send_ptr, MPI_DOUBLE, h->ext,
                                                h->nbr_cnt, h->recv_ptr, MPI_DOUBLE, h->nbr, &h->reqs[0]),
                        "MPI_Ineighbor_alltoallv");
    }
    return begin_isend(A, h, x);
}

int ovk__halo_end(const ovk_matrix *A)
{
    const ovk__halo *h = &A->halo;
    if (h->mode == OVK_HALO_PERSISTENT)
        return ovk__mpi(MPI_Waitall(h->nrecv + h->nsend, h->preqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
    if (h->mode == OVK_HALO_NEIGHBOR) return ovk__mpi(MPI_Wait(&h->reqs[0], MPI_STATUS_IGNORE), "MPI_Wait");
    return ovk__mpi(MPI_Waitall(h->nrecv + h->nsend, h->reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
}

/* ---- the exchange of k vectors at once ------------------------------- */

#define HALO_MULTI_TAG ovk__layout_tag(&A->lay, 1)

void ovk__halo_multi_free(ovk__halo_multi *hm)
{
    free(hm->send);
    free(hm->recv);
    free(hm->reqs);
    memset(hm, 0, sizeof *hm);
}

int ovk__halo_multi_reserve(const ovk_matrix *A, int k, ovk__halo_multi *hm)
{
    if (k <= hm->kcap) return OVK_OK;
    const ovk__halo *h = &A->halo;
    size_t nsend = (size_t)h->send_ptr[h->nsend], nrecv = (size_t)A->ncols_offd;
    ovk__halo_multi_free(hm);
    hm->send = malloc(sizeof(double) * ((size_t)k * nsend + 1));
    hm->recv = malloc(sizeof(double) * ((size_t)k * nrecv + 1));
    hm->reqs = malloc(sizeof(MPI_Request) * (size_t)(h->nsend + h->nrecv + 1));
    if (!hm->send || !hm->recv || !hm->reqs) {
        ovk__halo_multi_free(hm);
        return ovk__fail(OVK_ENOMEM, "the halo of %d vectors", k);
    }
    hm->kcap = k;
    return OVK_OK;
}

int ovk__halo_multi_begin(const ovk_matrix *A, int k, const double *const *X, ovk__halo_multi *hm)
{
    const ovk__halo *h = &A->halo;
    hm->k = k;
    for (int j = 0; j < h->nrecv + h->nsend; j++) hm->reqs[j] = MPI_REQUEST_NULL;
    for (int j = 0; j < h->nrecv; j++) { /* neighbour j's k blocks of its columns, vector after vector */
        int cnt = h->recv_ptr[j + 1] - h->recv_ptr[j];
        int rc = ovk__mpi(MPI_Irecv(hm->recv + (size_t)k * h->recv_ptr[j], k * cnt, MPI_DOUBLE, h->recv_rank[j],
                                    HALO_MULTI_TAG, A->lay.comm, &hm->reqs[j]),
                          "MPI_Irecv");
        if (rc) return rc;
    }
    for (int j = 0; j < h->nsend; j++) {
        int lo = h->send_ptr[j], cnt = h->send_ptr[j + 1] - lo;
        double *buf = hm->send + (size_t)k * lo;
        for (int v = 0; v < k; v++)
            for (int i = 0; i < cnt; i++) buf[(size_t)v * cnt + i] = X[v][h->send_idx[lo + i]];
        int rc = ovk__mpi(MPI_Isend(buf, k * cnt, MPI_DOUBLE, h->send_rank[j], HALO_MULTI_TAG, A->lay.comm,
                                    &hm->reqs[h->nrecv + j]),
                          "MPI_Isend");
        if (rc) return rc;
    }
    return OVK_OK;
}

int ovk__halo_multi_end(const ovk_matrix *A, ovk__halo_multi *hm, double *ext)
{
    const ovk__halo *h = &A->halo;
    int k = hm->k;
    int rc = ovk__mpi(MPI_Waitall(h->nrecv + h->nsend, hm->reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
    if (rc) return rc;
    for (int j = 0; j < h->nrecv; j++) { /* column c of vector v: ext[c k + v] */
        int lo = h->recv_ptr[j], cnt = h->recv_ptr[j + 1] - lo;
        const double *buf = hm->recv + (size_t)k * lo;
        for (int v = 0; v < k; v++)
            for (int i = 0; i < cnt; i++) ext[(size_t)(lo + i) * (size_t)k + (size_t)v] = buf[(size_t)v * cnt + i];
    }
    return OVK_OK;
}
