/* Shapes shared by the backends: the k-nomial tree of the schedule builders
 * (nbc_sched.c, offload_tasks.c) and the nodes of the two-level schemes
 * (nbc.c, offload.c). */
#include "backend.h"

int ovk__knomial_family(int me, int n, int k, int *child, int *parent)
{
    int nchild = 0;
    *parent = -1;
    for (long d = 1; d < n; d *= k) {
        if (me % (d * k) != 0) {
            *parent = me - (int)(me % (d * k));
            break;
        }
        for (int m = 1; m < k && me + m * d < n; m++) child[nchild++] = me + m * (int)d;
    }
    return nchild;
}

int ovk__node_leaders(MPI_Comm comm, int rank, int *node_of)
{
    MPI_Comm node = MPI_COMM_NULL;
    int leader = rank;
    int rc = ovk__mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
                      "MPI_Comm_split_type");
    if (rc) return rc;
    rc = ovk__mpi(MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, node), "MPI_Allreduce");
    if (rc) goto cleanup;
    rc = ovk__mpi(MPI_Allgather(&leader, 1, MPI_INT, node_of, 1, MPI_INT, comm), "MPI_Allgather");
cleanup:
    MPI_Comm_free(&node);
    return rc;
}
