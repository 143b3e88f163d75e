/* The amg cycle's coarsest solve: the level's N x N matrix gathered onto
 * every rank (its rows, dense, in rank order) and factored by LAPACK's
 * dgetrf; a solve gathers b (one MPI_Allgatherv of N doubles), solves by
 * dgetrs and keeps the rank's rows.  The coarsest level is small by
 * construction (coarse_size rows, or what max_levels leaves), so N^2
 * doubles on each rank and the redundant solve cost less than one
 * distributed sweep's messages.  The rows are stored row after row, which
 * LAPACK (column-major) reads as A^T: the factors are those of A^T, and
 * the solve is the transposed one ('T'), which is A x = b. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg_coarse.h"

extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
extern void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
                    const int *ipiv, double *b, const int *ldb, int *info);

/* the largest N factored: N^2 doubles on every rank (512 MiB) */
enum { COARSE_MAX = 8192 };

struct ovk__amg_coarse {
    MPI_Comm comm;
    int N, n, first;   /* global rows, the rank's rows, the first of them */
    int *count, *displ; /* [size]: every rank's rows and first row */
    double *lu;         /* N x N: the factors of A^T */
    int *ipiv;          /* [N] */
    double *rhs;        /* [N]: a solve's gathered b, then x */
};

void ovk__amg_coarse_free(ovk__amg_coarse *c)
{
    if (!c) return;
    free(c->count), free(c->displ), free(c->lu), free(c->ipiv), free(c->rhs);
    free(c);
}

/* Local: the rank's rows as dense rows of N (zeroed first) in rows; a
 * column outside [0, N) or a value not finite fails */
static int dense_rows(const ovk__amg_coarse *c, const int *ptr, const ovk_gidx *col, const double *val,
                      double *rows)
{
    memset(rows, 0, sizeof(double) * (size_t)c->n * (size_t)c->N);
    for (int i = 0; i < c->n; i++)
        for (int k = ptr[i]; k < ptr[i + 1]; k++) {
            if (col[k] < 0 || col[k] >= c->N || !isfinite(val[k]))
                return ovk__fail(OVK_EPRECOND, "amg: the coarsest level (%d rows) has a bad entry in row %d",
                                 c->N, c->first + i);
            rows[(size_t)i * (size_t)c->N + (size_t)col[k]] += val[k];
        }
    return OVK_OK;
}

/* Local: a unit diagonal for each unknown whose row and column are zero
 * (a coarse unknown without fine support, which couples to nothing: its
 * right-hand side P^T r is zero, and so is its solution) */
static void decouple_empty(double *a, int N)
{
    for (int k = 0; k < N; k++) {
        int empty = 1;
        for (int j = 0; j < N && empty; j++) empty = a[(size_t)k * (size_t)N + (size_t)j] == 0.0
                                                   && a[(size_t)j * (size_t)N + (size_t)k] == 0.0;
        if (empty) a[(size_t)k * (size_t)N + (size_t)k] = 1.0;
    }
}

/* Collective: the partition (count, displ, N, first) from every rank's n */
static int partition(ovk__amg_coarse *c)
{
    int size;
    MPI_Comm_size(c->comm, &size);
    c->count = malloc(sizeof(int) * (size_t)size);
    c->displ = malloc(sizeof(int) * (size_t)size);
    int rc = ovk__agree(c->comm, c->count && c->displ ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg: the coarsest level"));
    if (rc) return rc;
    rc = ovk__agree(c->comm, ovk__mpi(MPI_Allgather(&c->n, 1, MPI_INT, c->count, 1, MPI_INT, c->comm), "MPI_Allgather"));
    if (rc) return rc;
    long long N = 0;
    int rank;
    MPI_Comm_rank(c->comm, &rank);
    for (int r = 0; r < size; r++) {
        if (r == rank) c->first = (int)N;
        c->displ[r] = (int)(N < COARSE_MAX ? N : 0);
        N += c->count[r];
    }
    if (N > COARSE_MAX) /* the same sum on every rank */
        return ovk__fail(OVK_EPRECOND, "amg: the coarsest level has %lld rows, more than the %d its dense solve takes "
                                       "(raise max_levels or lower coarse_size)", N, (int)COARSE_MAX);
    c->N = (int)N;
    return OVK_OK;
}

int ovk__amg_coarse_make(MPI_Comm comm, int n, const int *ptr, const ovk_gidx *col, const double *val,
                         ovk__amg_coarse **out)
{
    *out = NULL;
    double *rows = NULL;
    ovk__amg_coarse *c = calloc(1, sizeof *c);
    int rc = ovk__agree(comm, c ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg: the coarsest level"));
    if (rc) goto cleanup; /* the ranks whose c was made free it */
    c->comm = comm, c->n = n;
    rc = partition(c);
    if (rc) goto cleanup;
    size_t NN = (size_t)c->N * (size_t)c->N;
    c->lu = malloc(sizeof(double) * (NN + 1));
    c->ipiv = malloc(sizeof(int) * ((size_t)c->N + 1));
    c->rhs = malloc(sizeof(double) * ((size_t)c->N + 1));
    rows = malloc(sizeof(double) * ((size_t)n * (size_t)c->N + 1));
    rc = c->lu && c->ipiv && c->rhs && rows ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg: the coarsest level (%d rows)", c->N);
    if (!rc) rc = dense_rows(c, ptr, col, val, rows);
    rc = ovk__agree(comm, rc);
    if (rc) goto cleanup;
    int size;
    MPI_Comm_size(comm, &size);
    int *rcount = malloc(sizeof(int) * (size_t)size), *rdispl = malloc(sizeof(int) * (size_t)size);
    rc = ovk__agree(comm, rcount && rdispl ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg: the coarsest level"));
    for (int r = 0; !rc && r < size; r++) { /* whole rows of N: at most COARSE_MAX^2 < 2^31 doubles */
        rcount[r] = c->count[r] * c->N;
        rdispl[r] = c->displ[r] * c->N;
    }
    if (!rc)
        rc = ovk__agree(comm, ovk__mpi(MPI_Allgatherv(rows, n * c->N, MPI_DOUBLE, c->lu, rcount, rdispl, MPI_DOUBLE, comm),
                                       "MPI_Allgatherv"));
    free(rcount), free(rdispl);
    if (rc) goto cleanup;
    decouple_empty(c->lu, c->N);
    int info = 0;
    if (c->N > 0) dgetrf_(&c->N, &c->N, c->lu, &c->N, c->ipiv, &info); /* A^T = P L U */
    if (info != 0) /* the same factors on every rank: the same info */
        rc = ovk__fail(OVK_EPRECOND, "amg: the coarsest level (%d rows) is singular (LU's pivot %d is zero)", c->N, info);
    rc = ovk__agree(comm, rc);
    if (rc) goto cleanup;
    *out = c;
    c = NULL;
cleanup:
    free(rows);
    ovk__amg_coarse_free(c);
    return rc;
}

int ovk__amg_coarse_solve(const ovk__amg_coarse *c, const double *b, double *x)
{
    int rc = ovk__mpi(MPI_Allgatherv(b, c->n, MPI_DOUBLE, c->rhs, c->count, c->displ, MPI_DOUBLE, c->comm),
                      "MPI_Allgatherv");
    if (rc) return rc;
    int one = 1, info = 0;
    if (c->N > 0) dgetrs_("T", &c->N, &one, c->lu, &c->N, c->ipiv, c->rhs, &c->N, &info); /* (A^T)^T x = b */
    if (c->n) memcpy(x, c->rhs + c->first, sizeof(double) * (size_t)c->n);
    return info ? ovk__fail(OVK_EPRECOND, "amg: the coarsest solve (LAPACK dgetrs: %d)", info) : OVK_OK;
}
