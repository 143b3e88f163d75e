/* A few helpers for self-checking MPI tests: checks that record failures
 * with the rank and line, and a collective verdict. */
#ifndef OVK_MPITEST_H
#define OVK_MPITEST_H

#include <mpi.h>
#include <stdio.h>

#include "ovkrylov/ovkrylov.h"

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

/* Collective: 1 when the `count` 8-byte words at `value` (doubles or
 * int64) are bitwise identical on every rank of comm. */
int mt_same_everywhere(MPI_Comm comm, const void *value, int count);

/* Local: rows [lo, hi) of n on this rank of MPI_COMM_WORLD, parts of
 * nearly equal size on the ranks but rank skip (-1: none), which has none
 * (an empty range at 0 or at n). */
void mt_split(int n, int skip, int *lo, int *hi);

/* Collective: the largest of v over the ranks of MPI_COMM_WORLD. */
long mt_max_long(long v);

/* Collective: an allocation-failure sweep.  make(what, n, &made, &fired)
 * builds one object with its n-th allocation failing on one rank (n = 0:
 * none fails) and returns its status, the allocations it made on this rank
 * and whether one failed here.  It runs for n = 0 (which must succeed) and
 * n = 1..*count, *count the most allocations n = 0 made on a rank; the
 * return value counts the n whose status differs between ranks or is not
 * OVK_ENOMEM where an allocation failed on some rank (OVK_OK where none
 * did: a rank that makes fewer). */
int mt_alloc_sweep(int (*make)(int what, long n, long *made, int *fired), int what, long *count);

/* Reduction inputs: mixed signs and magnitudes (summation order shows),
 * integers small enough that no sum overflows; a function of (who, salt,
 * index) only. */
void mt_fill(void *buf, ovk_datatype t, int n, int who, int salt);

/* Collective over MPI_COMM_WORLD: compare got with MPI_Allreduce of in.
 * Double sums may differ by sum_rtol * ranks * sum |in|; everything else
 * must match bitwise.  Returns the first bad index or -1. */
int mt_check_against_mpi(const void *in, const void *got, int n, ovk_datatype t, ovk_op op, double sum_rtol);

/* CPU seconds used by this process (all threads), and a sleep of s seconds:
 * for checks that an idle helper thread does not spin. */
double mt_cpu_seconds(void);
void mt_nap(double s);
/* b = A^-1 b by Gaussian elimination with partial pivoting (a: n x n, row
 * major, overwritten): the dense reference of the solver tests */
void mt_dense_solve(int n, double *a, double *b);
/* Collective: ||x - A^-1 b||_inf / ||A^-1 b||_inf for the dense row-major a
 * (n x n, overwritten) and the global b, x holding rows from start on. */
double mt_dense_error(int n, double *a, const double *b, const ovk_vector *x, int64_t start);

/* The registry's CG variants that run a recurrence of their own, in its
 * order (auto, which runs one of them, is tested in test_auto.c; scg, whose
 * iterations come in blocks of s, checked a block late, in test_scg*.c; the
 * nonsymmetric solvers in test_nonsymmetric.c; minres and pminres, symmetric
 * but not CG, in test_minres.c; rpipecg, pipecg's recurrence deflated by a
 * recycled space, on sequences in test_recycle.c): how many, and the name of
 * index i (NULL outside). */
int mt_recurrence_count(void);
const char *mt_recurrence_name(int i);

/* Collective: ||b - A x|| / ||b|| (a work vector of its own). */
double mt_rel_residual(const ovk_matrix *A, const ovk_vector *b, const ovk_vector *x);

/* Collective: tests/data/nonsymmetric/NAME.mtx (OVK_NONSYM_DIR), or NULL
 * when the directory is missing. */
ovk_matrix *mt_nonsym_matrix(const char *name);

/* Local: b = the drivers' -rhs random, SplitMix64 of the global row in [-1, 1). */
void mt_random_b(const ovk_matrix *A, ovk_vector *b);

/* Collective: amg's counts of full setups and of setups on the kept
 * interpolation, and its last drift (drift may be NULL), from rank 0's
 * view of s (broadcast; -1 and INFINITY where the view has none). */
void mt_amg_setups(const ovk_solver *s, long *full, long *kept, double *drift);

/* Local: 1 when the sweeps of every shared matrix skip A (nglobal rows): the
 * sanitizer build (OVK_TEST_SANITIZED) leaves out the matrices above 9,000 rows,
 * whose long solves were a third of each sweep's sanitizer time and take no path
 * the smaller ones do not; the release build runs every matrix. */
static inline int mt_sanitized_skip(ovk_gidx nglobal)
{
#ifdef OVK_TEST_SANITIZED
    return nglobal > 9000;
#else
    (void)nglobal;
    return 0;
#endif
}

/* Collective: prints PASS or FAIL on rank 0 and returns the exit status. */
int mt_finish(const char *name);

#endif
