/* A few helpers for self-checking MPI tests: checks that record failures
 * with the rank and line, and a collective verdict. */
#ifndef OVK_MPITEST_H
#define OVK_MPITEST_H

#include <mpi.h>
#include <stdio.h>

extern int mt_failures;

#define MT_CHECK(cond, ...)                                                                       \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            int mt_rank_ = 0;                                                                     \
            MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank_);                                             \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s: ", mt_rank_, __FILE__, __LINE__,  \
                    #cond);                                                                       \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fprintf(stderr, "\n");                                                                \
            mt_failures++;                                                                        \
        }                                                                                         \
    } while (0)

/* Checks an ovkrylov status: expected == got. */
#define MT_RC(expected, got) MT_CHECK((expected) == (got), "status %d (%s), expected %d", (got), ovk_status_name(got), (expected))

/* Collective: 1 when `value` is bitwise identical on every rank of comm. */
int mt_same_everywhere(MPI_Comm comm, const double *value, int count);

/* Collective: prints PASS or FAIL on rank 0 and returns the exit status. */
int mt_finish(const char *name);

#endif
