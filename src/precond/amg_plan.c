/* The halo plan of a column partition: every rank tells the owners of
 * the columns it reads which ones (MPI_Alltoall of the counts, then
 * MPI_Alltoallv of the ids); one message per neighbour each way. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "amg_plan.h"

/* a setup's exchange on the amg's own communicator */
enum { PLAN_TAG = 8229 };

void ovk__amg_plan_free(ovk__amg_plan *pl)
{
    free(pl->send_rank), free(pl->send_ptr), free(pl->send_idx), free(pl->recv_rank), free(pl->recv_ptr);
    memset(pl, 0, sizeof *pl);
}

/* the rank owning column g: the last r with starts[r] <= g */
static int owner_of(const ovk_gidx *starts, int size, ovk_gidx g)
{
    int lo = 0, hi = size - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (starts[mid] <= g) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* the ranks r with count[r] > 0 ascending, their entries from ptr[j] */
static int list_peers(int size, const int *count, int *n, int **rank, int **ptr)
{
    *n = 0;
    for (int r = 0; r < size; r++) *n += count[r] > 0;
    *rank = malloc(sizeof(int) * ((size_t)*n + 1));
    *ptr = malloc(sizeof(int) * ((size_t)*n + 1));
    if (!*rank || !*ptr) return ovk__fail(OVK_ENOMEM, "amg: a halo plan");
    (*ptr)[0] = 0;
    for (int r = 0, j = 0; r < size; r++)
        if (count[r]) {
            (*rank)[j] = r;
            (*ptr)[j + 1] = (*ptr)[j] + count[r];
            j++;
        }
    return OVK_OK;
}

int ovk__amg_plan_make(MPI_Comm comm, ovk_gidx c0, int nx, const ovk_gidx *cmap, ovk__amg_plan *pl)
{
    int size;
    MPI_Comm_size(comm, &size);
    memset(pl, 0, sizeof *pl);
    int *buf = calloc((size_t)size * 4 + 2, sizeof(int));
    ovk_gidx *starts = malloc(sizeof(ovk_gidx) * ((size_t)size + 1)), *want = NULL;
    int rc = ovk__agree(comm, buf && starts ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg: a halo plan"));
    if (rc) goto cleanup;
    int *need = buf, *give = buf + size, *sdispl = buf + 2 * size, *rdispl = buf + 3 * size + 1;
    rc = ovk__agree(comm, ovk__mpi(MPI_Allgather(&c0, 1, MPI_INT64_T, starts, 1, MPI_INT64_T, comm), "MPI_Allgather"));
    for (int q = 0; q < nx && !rc; q++) need[owner_of(starts, size, cmap[q])]++;
    if (!rc) rc = ovk__agree(comm, ovk__mpi(MPI_Alltoall(need, 1, MPI_INT, give, 1, MPI_INT, comm), "MPI_Alltoall"));
    if (rc) goto cleanup;
    sdispl[0] = rdispl[0] = 0;
    for (int r = 0; r < size; r++) {
        sdispl[r + 1] = sdispl[r] + need[r];
        rdispl[r + 1] = rdispl[r] + give[r];
    }
    want = malloc(sizeof(ovk_gidx) * ((size_t)rdispl[size] + 1));
    pl->send_idx = malloc(sizeof(int) * ((size_t)rdispl[size] + 1));
    rc = want && pl->send_idx ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg: a halo plan");
    if (!rc) rc = list_peers(size, need, &pl->nrecv, &pl->recv_rank, &pl->recv_ptr);
    if (!rc) rc = list_peers(size, give, &pl->nsend, &pl->send_rank, &pl->send_ptr);
    rc = ovk__agree(comm, rc); /* no rank may skip the Alltoallv */
    if (rc) goto cleanup;
    rc = ovk__agree(comm, ovk__mpi(MPI_Alltoallv(cmap, need, sdispl, MPI_INT64_T, want, give, rdispl, MPI_INT64_T, comm),
                                   "MPI_Alltoallv"));
    for (int q = 0; q < rdispl[size] && !rc; q++) pl->send_idx[q] = (int)(want[q] - c0);
cleanup:
    free(buf), free(starts), free(want);
    if (rc) ovk__amg_plan_free(pl);
    return rc;
}

int ovk__amg_plan_exchange(MPI_Comm comm, const ovk__amg_plan *pl, int W, const double *own, double *ext, int status)
{
    size_t w = (size_t)W, ns = pl->nsend ? (size_t)pl->send_ptr[pl->nsend] : 0;
    double *sbuf = status ? NULL : malloc(sizeof(double) * (ns * w + 1));
    MPI_Request *req = status ? NULL : malloc(sizeof(MPI_Request) * ((size_t)(pl->nsend + pl->nrecv) + 1));
    int rc = status ? status : sbuf && req ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg: a halo's buffers");
    rc = ovk__agree(comm, rc);
    for (size_t s = 0; !rc && s < ns; s++) /* the own columns' values, each neighbour's in a row */
        memcpy(sbuf + s * w, own + (size_t)pl->send_idx[s] * w, sizeof(double) * w);
    int nreq = 0;
    for (int q = 0; !rc && q < pl->nrecv; q++)
        rc = ovk__mpi(MPI_Irecv(ext + (size_t)pl->recv_ptr[q] * w, (pl->recv_ptr[q + 1] - pl->recv_ptr[q]) * W,
                                MPI_DOUBLE, pl->recv_rank[q], PLAN_TAG, comm, &req[nreq++]),
                      "MPI_Irecv (amg halo)");
    for (int s = 0; !rc && s < pl->nsend; s++)
        rc = ovk__mpi(MPI_Isend(sbuf + (size_t)pl->send_ptr[s] * w, (pl->send_ptr[s + 1] - pl->send_ptr[s]) * W,
                                MPI_DOUBLE, pl->send_rank[s], PLAN_TAG, comm, &req[nreq++]),
                      "MPI_Isend (amg halo)");
    if (nreq) {
        int wrc = ovk__mpi(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE), "MPI_Waitall (amg halo)");
        if (!rc) rc = wrc;
    }
    free(sbuf), free(req);
    return ovk__agree(comm, rc);
}
