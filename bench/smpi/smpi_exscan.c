/* Linked into the simulated build's programs (cmake -DOVK_SIMULATE=ON):
 * ovk_smpi_bench and the examples. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* SimGrid 3.32's MPI_Exscan sends every rank's value to every higher rank
 * and waits for them one waitany at a time: at 256 simulated ranks the
 * solver object's one Exscan (its row layout) took minutes of wall time.
 * (amg:setup=agg's two a level too).  This MPI_Exscan, linked into every
 * simulated program (it takes precedence over the simulator's), gathers
 * the values with MPI_Allgather (MPICH's algorithm under
 * smpi/coll-selector:mpich) and combines those of the lower ranks in rank
 * order, as MPI_Exscan defines; the simulated network time is the
 * allgather's. */
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    int rank, size, tsize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Type_size(type, &tsize);
    size_t bytes = (size_t)count * (size_t)tsize;
    char *all = malloc(bytes * (size_t)(size > 0 ? size : 1));
    if (!all) return MPI_ERR_NO_MEM;
    int mrc = MPI_Allgather(sendbuf, count, type, all, count, type, comm);
    if (mrc == MPI_SUCCESS && rank > 0) {
        memcpy(recvbuf, all, bytes);
        for (int r = 1; r < rank && mrc == MPI_SUCCESS; r++) {
            /* recvbuf = recvbuf op all[r], lower ranks first */
            memcpy(all + (size_t)r * bytes - bytes, recvbuf, bytes); /* reuse slot r-1 as scratch */
            mrc = MPI_Reduce_local(all + (size_t)(r - 1) * bytes, all + (size_t)r * bytes, count, type, op);
            if (mrc == MPI_SUCCESS) memcpy(recvbuf, all + (size_t)r * bytes, bytes);
        }
    }
    free(all);
    return mrc;
}
