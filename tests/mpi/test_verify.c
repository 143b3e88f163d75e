/* verify=1 of the backends that delegate to MPI (blocking, native, native
 * with persistent requests): the result is checked bitwise across ranks.
 * An MPI library that returns different bits on different ranks is
 * simulated through the PMPI interface: while `corrupt` is set, rank 1's
 * result of every MPI_DOUBLE MPI_SUM reduction has its last bit flipped.
 *   - without corruption, verify=1 changes nothing: exact results, several
 *     in flight completed in rank-dependent orders, by test and by wait;
 *   - with it, verify=0 returns the differing results (the simulation
 *     works) and verify=1 fails with OVK_EMPI on every rank, by wait and by
 *     test, the request can be freed and the reducer reused and destroyed;
 *   - a failure found by a test or by ovk_reducer_progress stays the
 *     request's: a later test or wait returns it (the solvers ignore the
 *     status of their progress calls and rely on that), a second wait is
 *     OVK_ESTATE, free releases it;
 *   - a solve with verify=1 converges as without; with one reduction of
 *     the solve spoiled it fails with OVK_EMPI on every rank;
 *   - native:verify=1: waiting on a request whose check a test started
 *     does not wait for reductions started after it (which other ranks may
 *     not have started yet: that was a deadlock). */
#include <string.h>

#include "mpitest.h"
#include "problem.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

static int corrupt;
/* With corrupt set: spoil only the spoil_only-th double sum of rank 1
 * (counted from 0), or every one when it is < 0. */
static int spoil_only = -1, spoil_seen;

static int spoil_this(void) { return corrupt && (spoil_only < 0 || spoil_seen++ == spoil_only); }

/* Requests whose completion delivers a double sum, and where. */
enum { NTRACK = 256 };
static struct {
    MPI_Request req;
    double *buf;
} track[NTRACK];

static int comm_rank(MPI_Comm comm)
{
    int r = 0;
    PMPI_Comm_rank(comm, &r);
    return r;
}

static void remember(MPI_Request req, void *buf, MPI_Datatype t, MPI_Op o, MPI_Comm comm)
{
    if (t != MPI_DOUBLE || o != MPI_SUM || comm_rank(comm) != 1) return;
    for (int i = 0; i < NTRACK; i++)
        if (track[i].req == req || !track[i].buf) {
            track[i].req = req;
            track[i].buf = buf;
            return;
        }
}

static void spoil(double *x)
{
    uint64_t w;
    memcpy(&w, x, 8);
    w ^= 1u;
    memcpy(x, &w, 8);
}

/* After a completion: flip the result if it is a tracked one. */
static void completed(MPI_Request before, MPI_Request after, int done)
{
    if (!done) return;
    for (int i = 0; i < NTRACK; i++)
        if (track[i].buf && track[i].req == before) {
            if (spoil_this()) spoil(track[i].buf);
            if (after == MPI_REQUEST_NULL) track[i].buf = NULL; /* not persistent: gone */
            return;
        }
}

int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm)
{
    int rc = PMPI_Allreduce(s, r, c, t, o, comm);
    if (c > 0 && t == MPI_DOUBLE && o == MPI_SUM && comm_rank(comm) == 1 && spoil_this()) spoil(r);
    return rc;
}

int MPI_Iallreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm, MPI_Request *q)
{
    int rc = PMPI_Iallreduce(s, r, c, t, o, comm, q);
    if (c > 0) remember(*q, r, t, o, comm);
    return rc;
}

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ && MPI_VERSION < 4
int MPIX_Allreduce_init(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm, MPI_Info info,
                        MPI_Request *q)
{
    int rc = PMPIX_Allreduce_init(s, r, c, t, o, comm, info, q);
    if (c > 0) remember(*q, r, t, o, comm);
    return rc;
}
#elif MPI_VERSION >= 4
int MPI_Allreduce_init(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm, MPI_Info info,
                       MPI_Request *q)
{
    int rc = PMPI_Allreduce_init(s, r, c, t, o, comm, info, q);
    if (c > 0) remember(*q, r, t, o, comm);
    return rc;
}
#endif

/* A freed (persistent) request is forgotten: its handle value may come back
 * for another request whose buffers are elsewhere. */
int MPI_Request_free(MPI_Request *q)
{
    for (int i = 0; i < NTRACK; i++)
        if (track[i].buf && track[i].req == *q) track[i].buf = NULL;
    return PMPI_Request_free(q);
}

int MPI_Wait(MPI_Request *q, MPI_Status *st)
{
    MPI_Request before = *q;
    int rc = PMPI_Wait(q, st);
    completed(before, *q, 1);
    return rc;
}

int MPI_Test(MPI_Request *q, int *flag, MPI_Status *st)
{
    MPI_Request before = *q;
    int rc = PMPI_Test(q, flag, st);
    completed(before, *q, *flag);
    return rc;
}

static int rank, nranks;

static const char *const verified[] = {"blocking:verify=1", "native:verify=1", "native:persistent=1,verify=1"};
#define NVERIFIED 3

/* No corruption: exact sums, NIN in flight completed in an order that
 * depends on the rank, half by test loops and half by wait. */
static void check_clean(const char *spec)
{
    enum { NIN = 6 };
    ovk_reducer *red = NULL;
    ovk_request *req[NIN];
    double in[NIN], out[NIN];
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, spec, &red));
    if (!red) return;
    for (int round = 0; round < 3; round++) {
        for (int k = 0; k < NIN; k++) {
            in[k] = (double)((rank + 1) * (k + round + 1));
            MT_RC(OVK_OK, ovk_reduce_start(red, &in[k], &out[k], 1, OVK_DOUBLE, OVK_SUM, &req[k]));
        }
        for (int j = 0; j < NIN; j++) {
            int k = (j + rank * (round + 1)) % NIN; /* rank-dependent order */
            if (j % 2) {
                int done = 0;
                while (!done) MT_RC(OVK_OK, ovk_reduce_test(req[k], &done));
            }
            MT_RC(OVK_OK, ovk_reduce_wait(req[k]));
            MT_RC(OVK_OK, ovk_request_free(req[k]));
        }
        for (int k = 0; k < NIN; k++)
            MT_CHECK(out[k] == (double)nranks * (nranks + 1) / 2 * (k + round + 1), "%s: %g", spec, out[k]);
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, out, NIN), "%s: results differ between ranks", spec);
    }
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

/* After a failure the reducer still works (an integer sum, not spoiled),
 * and is destroyed. */
static void still_works(ovk_reducer *red, const char *what)
{
    int64_t iin = rank + 1, iout = 0;
    ovk_request *req = NULL;
    MT_RC(OVK_OK, ovk_reduce_start(red, &iin, &iout, 1, OVK_INT64, OVK_SUM, &req));
    MT_RC(OVK_OK, ovk_reduce_wait(req));
    MT_RC(OVK_OK, ovk_request_free(req));
    MT_CHECK(iout == (int64_t)nranks * (nranks + 1) / 2, "%s: reducer after the failure: %lld", what, (long long)iout);
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

/* Rank 1's results are spoiled: verify=1 must say so on every rank. */
static void check_spoiled(const char *spec, int verify, int by_test)
{
    ovk_reducer *red = NULL;
    ovk_request *req = NULL;
    double in[3] = {0.1 * (rank + 1), 0.2, 0.3}, out[3] = {0.0, 0.0, 0.0};
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, spec, &red));
    if (!red) return;
    corrupt = 1;
    int rc = ovk_reduce_start(red, in, out, 3, OVK_DOUBLE, OVK_SUM, &req);
    if (!rc) {
        if (by_test) {
            int done = 0;
            while (!done && !rc) rc = ovk_reduce_test(req, &done);
            int wrc = ovk_reduce_wait(req); /* a failure found by the test is returned again */
            MT_CHECK(wrc == rc, "%s (test): wait after the test returned %s: %s", spec, ovk_status_name(rc),
                     ovk_status_name(wrc));
        } else {
            rc = ovk_reduce_wait(req);
        }
        MT_RC(OVK_OK, ovk_request_free(req)); /* complete, even when it failed */
    }
    corrupt = 0;
    char what[96];
    snprintf(what, sizeof what, "%s (%s)", spec, by_test ? "test" : "wait");
    if (verify) {
        MT_CHECK(rc == OVK_EMPI, "%s: %s, expected OVK_EMPI", what, ovk_status_name(rc));
        MT_CHECK(strstr(ovk_error_detail(), "differs between ranks") != NULL, "%s: detail '%s'", what,
                 ovk_error_detail());
        if (rank == 0) printf("%-42s %s: %s\n", what, ovk_status_name(rc), ovk_error_detail());
    } else {
        MT_RC(OVK_OK, rc);
        MT_CHECK(!mt_same_everywhere(MPI_COMM_WORLD, out, 3), "%s: the spoiled result is the same everywhere", what);
    }
    still_works(red, what);
}

/* The solvers of the solve checks: one reduction at a time (alg1), one in
 * flight between iterations (overlap), one behind the matvec (pipecg). */
static const char *const solvers[] = {"alg1", "overlap", "pipecg"};

/* The 27-point Laplacian of n^3 points per rank, b = 1 and x */
static void ones_system(int n, ovk_matrix **A, ovk_vector **b, ovk_vector **x)
{
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, n, 0.0, A));
    ovk_vector_create(*A, b);
    ovk_vector_create(*A, x);
    ovk_vector_set(*b, 1.0);
}

static void free_system(ovk_matrix *A, ovk_vector *b, ovk_vector *x)
{
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

static void check_solve(const char *spec)
{
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_options o;
    ovk_pcg_result res;
    ones_system(8, &A, &b, &x);
    ovk_pcg_options_init(&o);
    o.backend = spec;
    int its[3];
    for (int s = 0; s < 3; s++) {
        o.solver = solvers[s];
        ovk_vector_set(x, 0.0);
        MT_RC(OVK_OK, ovk_pcg_solve(A, b, x, &o, &res));
        its[s] = res.iterations;
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &res.rel_residual, 1), "%s/%s: residual differs", spec,
                 solvers[s]);
    }
    if (rank == 0) printf("%-32s alg1 %d overlap %d pipecg %d iterations\n", spec, its[0], its[1], its[2]);
    free_system(A, b, x);
}

/* Rank 1's result is spoiled and only ovk_reducer_progress runs until it
 * finds that (on every rank: the check's result is the same everywhere);
 * the request's test and wait must then return the failure, not OVK_OK.
 * (blocking:verify=1 finds it in the start: nothing is left to progress.) */
static void check_progress_failure(const char *spec)
{
    ovk_reducer *red = NULL;
    ovk_request *req = NULL;
    double in[2] = {0.1 * (rank + 1), 0.7}, out[2] = {0.0, 0.0};
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, spec, &red));
    if (!red) return;
    corrupt = 1;
    int rc = ovk_reduce_start(red, in, out, 2, OVK_DOUBLE, OVK_SUM, &req);
    if (!rc) {
        /* progress until it fails, for at most 20 s */
        int prc = OVK_OK;
        double t0 = MPI_Wtime();
        while (!prc && MPI_Wtime() - t0 < 20.0) prc = ovk_reducer_progress(red);
        MT_RC(OVK_EMPI, prc);
        int done = 1;
        MT_RC(OVK_EMPI, ovk_reduce_test(req, &done)); /* test after the failure */
        MT_CHECK(!done, "%s: a failed request tested as done", spec);
        rc = ovk_reduce_wait(req);
        MT_CHECK(strstr(ovk_error_detail(), "differs between ranks") != NULL, "%s: wait's detail '%s'", spec,
                 ovk_error_detail());
        MT_RC(OVK_ESTATE, ovk_reduce_wait(req)); /* waited on already */
        MT_RC(OVK_OK, ovk_request_free(req));
    }
    corrupt = 0;
    MT_CHECK(rc == OVK_EMPI, "%s: wait after a failed progress: %s, expected OVK_EMPI", spec, ovk_status_name(rc));
    still_works(red, spec);
}

/* Solves whose nth reduction is spoiled on rank 1: OVK_EMPI on every rank,
 * wherever the check finds it (a wait, a test, the kernels' progress). */
static void check_solve_spoiled(const char *spec)
{
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_options o;
    ovk_pcg_result res;
    ones_system(12, &A, &b, &x);
    ovk_pcg_options_init(&o);
    o.backend = spec;
    o.progress_every = 16; /* the kernels call the progress hook often */
    const int nth[] = {0, 3, 10};
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < 3; k++) {
            o.solver = solvers[s];
            ovk_vector_set(x, 0.0);
            corrupt = 1;
            spoil_only = nth[k];
            spoil_seen = 0;
            int rc = ovk_pcg_solve(A, b, x, &o, &res);
            corrupt = 0;
            spoil_only = -1;
            MT_CHECK(rc == OVK_EMPI, "%s/%s, reduction %d spoiled: %s (%s), expected OVK_EMPI", spec, solvers[s],
                     nth[k], ovk_status_name(rc), ovk_error_detail());
            /* the failure's own detail, not that of a second wait on its request (overlap did that) */
            MT_CHECK(!strstr(ovk_error_detail(), "already waited"), "%s/%s, reduction %d spoiled: detail '%s'", spec,
                     solvers[s], nth[k], ovk_error_detail());
        }
    free_system(A, b, x);
}

/* Rank 0 starts A and B; the others start only A and start B only once
 * rank 0's wait on A has returned.  Rank 0 tests A until A's sum is there
 * (so a test has started A's check), then waits on A: that must not wait
 * for B.  A rank that gets no word from rank 0 within 10 s reports the
 * deadlock and starts B, which releases rank 0. */
static void check_wait_order(const char *spec)
{
    ovk_reducer *red = NULL;
    ovk_request *a = NULL, *b = NULL;
    double ia = rank + 1, oa = 0.0, ib = 10.0 * (rank + 1), ob = 0.0;
    const double sum_a = (double)nranks * (nranks + 1) / 2;
    int token = 0;
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, spec, &red));
    if (!red) return;
    if (rank == 0) {
        MT_RC(OVK_OK, ovk_reduce_start(red, &ia, &oa, 1, OVK_DOUBLE, OVK_SUM, &a));
        MT_RC(OVK_OK, ovk_reduce_start(red, &ib, &ob, 1, OVK_DOUBLE, OVK_SUM, &b));
        /* test A until 0.2 s after its sum has arrived (MPI may write it
         * before its test reports completion): its check is then started,
         * and cannot finish while the others are in MPI_Recv below */
        int done = 0;
        double t0 = MPI_Wtime(), t_sum = 0.0;
        while (!done && MPI_Wtime() - t0 < 10.0 && (t_sum == 0.0 || MPI_Wtime() - t_sum < 0.2)) {
            MT_RC(OVK_OK, ovk_reduce_test(a, &done));
            if (t_sum == 0.0 && oa == sum_a) t_sum = MPI_Wtime();
        }
        MT_CHECK(oa == sum_a && !done, "%s: A: sum %g, done %d", spec, oa, done);
        for (int r = 1; r < nranks; r++) MPI_Send(&token, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
        MT_RC(OVK_OK, ovk_reduce_wait(a));
        for (int r = 1; r < nranks; r++) MPI_Send(&token, 1, MPI_INT, r, 2, MPI_COMM_WORLD);
        MT_RC(OVK_OK, ovk_reduce_wait(b));
    } else {
        MPI_Request got = MPI_REQUEST_NULL;
        int arrived = 0;
        MT_RC(OVK_OK, ovk_reduce_start(red, &ia, &oa, 1, OVK_DOUBLE, OVK_SUM, &a));
        MPI_Recv(&token, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* rank 0 has tested A */
        MT_RC(OVK_OK, ovk_reduce_wait(a));
        MPI_Irecv(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &got); /* rank 0's wait on A has returned */
        double t0 = MPI_Wtime();
        while (!arrived && MPI_Wtime() - t0 < 10.0) MPI_Test(&got, &arrived, MPI_STATUS_IGNORE);
        MT_CHECK(arrived, "%s: rank 0's wait on A waits for B, which this rank has not started", spec);
        MT_RC(OVK_OK, ovk_reduce_start(red, &ib, &ob, 1, OVK_DOUBLE, OVK_SUM, &b));
        MT_RC(OVK_OK, ovk_reduce_wait(b));
        if (!arrived) MPI_Wait(&got, MPI_STATUS_IGNORE);
    }
    MT_CHECK(oa == sum_a && ob == 10.0 * sum_a, "%s: sums %g %g", spec, oa, ob);
    MT_RC(OVK_OK, ovk_request_free(a));
    MT_RC(OVK_OK, ovk_request_free(b));
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int v = 0; v < NVERIFIED; v++) {
        check_clean(verified[v]);
        check_solve(verified[v]);
    }
    if (nranks > 1) { /* rank 1 exists: its results are spoiled */
        check_spoiled("blocking", 0, 0);
        check_spoiled("native", 0, 0);
        for (int v = 0; v < NVERIFIED; v++) {
            check_spoiled(verified[v], 1, 0);
            check_spoiled(verified[v], 1, 1);
        }
        check_progress_failure("native:verify=1");
        check_progress_failure("native:persistent=1,verify=1");
        check_solve_spoiled("native:verify=1");
        check_wait_order("native:verify=1");
        check_wait_order("native:persistent=1,verify=1");
    }
    MT_RC(OVK_EOPTION, ovk_reducer_create(MPI_COMM_WORLD, "native:verify=2", &(ovk_reducer *){NULL}));
    int rc = mt_finish("test_verify");
    MPI_Finalize();
    return rc;
}
