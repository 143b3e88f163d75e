/* PMPI wrappers that count the reductions a test program starts (each test
 * is its own executable, so one definition per program): n_allreduce
 * blocking, n_iallreduce non-blocking. */
#ifndef OVK_TEST_COUNT_REDUCTIONS_H
#define OVK_TEST_COUNT_REDUCTIONS_H

#include <mpi.h>

static long n_allreduce, n_iallreduce;

int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm)
{
    n_allreduce++;
    return PMPI_Allreduce(s, r, c, t, o, comm);
}

int MPI_Iallreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm, MPI_Request *q)
{
    n_iallreduce++;
    return PMPI_Iallreduce(s, r, c, t, o, comm, q);
}

#endif
