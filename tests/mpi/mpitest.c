#include "mpitest.h"

#include <stdint.h>
#include <string.h>

int mt_failures = 0;

int mt_same_everywhere(MPI_Comm comm, const double *value, int count)
{
    int same = 1;
    for (int i = 0; i < count; i++) {
        int64_t bits, lo, hi;
        memcpy(&bits, &value[i], sizeof bits);
        MPI_Allreduce(&bits, &lo, 1, MPI_INT64_T, MPI_MIN, comm);
        MPI_Allreduce(&bits, &hi, 1, MPI_INT64_T, MPI_MAX, comm);
        same &= lo == hi;
    }
    return same;
}

int mt_finish(const char *name)
{
    int total = 0, rank = 0;
    MPI_Allreduce(&mt_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) printf("%s: %s (%d failed checks)\n", name, total ? "FAIL" : "PASS", total);
    return total ? 1 : 0;
}
