/* A reduction is in flight while a kernel runs, and the kernel drives it.
 * The nbc backend progresses only inside MPI_Testall
 * calls (its schedules' rounds); they are counted through the PMPI
 * interface, with the flag they return, while ovk__matvec runs with a
 * progress hook that calls ovk_reducer_progress.
 *   - rank 0 starts its part of the reduction 50 ms late, so on every other
 *     rank the reduction cannot complete during the matvec's local rows:
 *     there, MPI_Testall must be called from inside the matvec and report
 *     "not complete" (in flight), at least once per hook call made before
 *     completion;
 *   - without the hook, or with the hook and no reduction outstanding, the
 *     matvec calls no MPI_Testall;
 *   - the reduction's result is exact and the product equals ovk_matvec. */
#include <math.h>
#include <string.h>

#include "matrix/matrix.h"
#include "mpitest.h"
#include "problem.h"

static int in_kernel;          /* set around ovk__matvec */
static long tests_in_kernel;   /* MPI_Testall calls made inside it */
static long pending_in_kernel; /* of which returned "not all complete" */

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status st[])
{
    int rc = PMPI_Testall(n, reqs, flag, st);
    if (in_kernel) {
        tests_in_kernel++;
        if (!*flag) pending_in_kernel++;
    }
    return rc;
}

typedef struct hook_state {
    ovk_reducer *red;
    long calls;
} hook_state;

static void drive(void *arg)
{
    hook_state *h = arg;
    h->calls++;
    ovk_reducer_progress(h->red);
}

static void run_matvec(const ovk_matrix *A, const double *x, double *y, const ovk__hook *hook)
{
    tests_in_kernel = pending_in_kernel = 0;
    in_kernel = 1;
    MT_RC(OVK_OK, ovk__matvec(A, x, y, hook));
    in_kernel = 0;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ovk_matrix *A = NULL;
    ovk_vector *x = NULL, *y = NULL, *yref = NULL;
    ovk_reducer *red = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 20, 0.0, &A));
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, "nbc", &red));
    ovk_vector_create(A, &x);
    ovk_vector_create(A, &y);
    ovk_vector_create(A, &yref);
    int n = ovk_vector_nlocal(x);
    for (int i = 0; i < n; i++) ovk_vector_data(x)[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    MT_RC(OVK_OK, ovk_matvec(A, x, yref));
    hook_state hs = {red, 0};
    ovk__hook hook = {drive, &hs, 50};

    /* a reduction in flight during the matvec */
    int64_t in[4] = {rank + 1, 2 * (rank + 1), -(int64_t)rank, 7}, out[4];
    ovk_request *req = NULL;
    if (rank == 0) mt_nap(0.05); /* the others start without rank 0 */
    MT_RC(OVK_OK, ovk_reduce_start(red, in, out, 4, OVK_INT64, OVK_SUM, &req));
    run_matvec(A, ovk_vector_data(x), ovk_vector_data(y), &hook);
    long calls = hs.calls, tests = tests_in_kernel, pending = pending_in_kernel;
    MT_RC(OVK_OK, ovk_reduce_wait(req));
    MT_RC(OVK_OK, ovk_request_free(req));
    int64_t s = (int64_t)size * (size + 1) / 2;
    MT_CHECK(out[0] == s && out[1] == 2 * s && out[2] == -(int64_t)size * (size - 1) / 2 && out[3] == 7 * size,
             "reduction result %lld %lld %lld %lld", (long long)out[0], (long long)out[1], (long long)out[2],
             (long long)out[3]);
    MT_CHECK(n == 0 || memcmp(ovk_vector_data(y), ovk_vector_data(yref), sizeof(double) * (size_t)n) == 0,
             "hooked matvec differs from ovk_matvec");
    MT_CHECK(n < 50 || calls >= n / 50, "%ld hook calls for %d rows", calls, n);
    if (rank > 0 && n >= 50) { /* rank 0 had not started: it was in flight */
        MT_CHECK(tests > 0, "no MPI_Testall inside the matvec (%ld hook calls)", calls);
        MT_CHECK(pending > 0, "MPI_Testall inside the matvec never found the reduction in flight (%ld calls)", tests);
    }
    printf("rank %d: %d rows, %ld hook calls, %ld MPI_Testall inside the matvec, %ld of them in flight\n", rank, n,
           calls, tests, pending);

    /* controls: no hook; a hook but nothing outstanding */
    MT_RC(OVK_OK, ovk_reduce_start(red, in, out, 4, OVK_INT64, OVK_SUM, &req));
    run_matvec(A, ovk_vector_data(x), ovk_vector_data(y), NULL);
    MT_CHECK(tests_in_kernel == 0, "%ld MPI_Testall inside a matvec without hook", tests_in_kernel);
    MT_RC(OVK_OK, ovk_reduce_wait(req));
    MT_RC(OVK_OK, ovk_request_free(req));
    run_matvec(A, ovk_vector_data(x), ovk_vector_data(y), &hook);
    MT_CHECK(tests_in_kernel == 0, "%ld MPI_Testall with nothing outstanding", tests_in_kernel);

    ovk_vector_destroy(x);
    ovk_vector_destroy(y);
    ovk_vector_destroy(yref);
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
    ovk_matrix_destroy(A);
    int rc = mt_finish("test_progress");
    MPI_Finalize();
    return rc;
}
