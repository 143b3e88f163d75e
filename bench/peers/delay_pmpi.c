/* delay_pmpi: a PMPI wrapper, preloaded into a peer (PETSc, hypre), that
 * holds every global reduction for the latency of a bigger machine: our
 * latency model (src/backends/latency.c, docs/latency-model.md) for programs
 * that do not run on ovkrylov's reducers.
 *
 *   OVK_PMPI_DELAY_US=250 LD_PRELOAD=DIR/libovk_delay_pmpi.so mpiexec -n 2 DIR/petsc_cg ...
 *   (Open MPI: mpiexec -x LD_PRELOAD -x OVK_PMPI_DELAY_US ...)
 *
 * OVK_PMPI_DELAY_US (default 250; 0 only counts) is L.  A reduction started
 * at time t completes no earlier than t + L, and the real reduction must
 * also have completed, as with `-latency_us L` on our side:
 *   MPI_Allreduce            runs, then spins until t + L (ours: a backend
 *                            that cannot overlap, blocking, spins L out in
 *                            its start);
 *   MPI_Iallreduce           starts, and its request is remembered with
 *                            t + L; MPI_Wait, MPI_Waitall, MPI_Waitany,
 *                            MPI_Waitsome on it spin until then after the
 *                            real completion; MPI_Test, MPI_Testall,
 *                            MPI_Testany, MPI_Testsome report "not yet"
 *                            before t + L without completing it
 *                            (MPI_Request_get_status pokes the progress
 *                            engine meanwhile), as our test does for a
 *                            backend that progresses on its own.
 * t is MPI_Wtime at the call, on each rank (no skew modelled, as ours).
 * Only communicators of more than one rank are held (PETSc's sequential
 * objects reduce over PETSC_COMM_SELF; there is no network there);
 * ours hold every reduction of the solver's reducer, whose communicator is
 * the matrix's.
 *
 * Limits of the correspondence (beside docs/latency-model.md's): with
 * alpha = L only and 2 ranks our model is one level, so the level-by-level
 * schedule of test-driven backends does not arise and this wrapper need not
 * model it.  Every MPI_Allreduce of the wrapped program is held, also those
 * outside its Krylov solver (setup, norms of b, PETSc's own collectives in
 * KSPSolve); ours hold only the reducer's.  The counts printed at
 * MPI_Finalize (OVK_PMPI_REPORT=1) say how many there were.  At most
 * MAX_PENDING Iallreduce requests are tracked at once (more: not held,
 * counted as untracked).  MPI_Request_free or MPI_Cancel of a tracked
 * request is not intercepted (the entry lingers until its handle is reused;
 * neither PETSc nor hypre does that to a reduction).  The persistent,
 * neighbourhood and reduce-scatter collectives are not held.
 *
 * Built as a shared library by CMakeLists.txt (target ovk_delay_pmpi). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_PENDING = 256, DEFAULT_DELAY_US = 250 };

typedef struct pending {
    MPI_Request req;
    double due;
} pending;

static pending tracked[MAX_PENDING];
static int ntracked;
static double delay_s = -1.0;
static long long held_blocking, held_nonblocking, untracked, local_only;

static double delay(void)
{
    if (delay_s < 0.0) {
        const char *env = getenv("OVK_PMPI_DELAY_US");
        double us = env && *env ? atof(env) : DEFAULT_DELAY_US;
        delay_s = us > 0.0 ? 1e-6 * us : 0.0;
    }
    return delay_s;
}

static void spin_until(double due)
{
    while (PMPI_Wtime() < due) {
    }
}

/* a reduction over comm is held: more than one rank */
static int held(MPI_Comm comm)
{
    int size = 1;
    PMPI_Comm_size(comm, &size);
    if (size < 2) local_only++;
    return size > 1;
}

/* ---- the requests in flight -------------------------------------------- */

static int find(MPI_Request r)
{
    if (r == MPI_REQUEST_NULL) return -1;
    for (int k = 0; k < ntracked; k++)
        if (tracked[k].req == r) return k;
    return -1;
}

static void forget(int k) { tracked[k] = tracked[--ntracked]; }

/* The latest due time among reqs[0..n) that are tracked (0: none), and
 * those entries forgotten: the caller completes them. */
static double take_due(int n, const MPI_Request *reqs)
{
    double due = 0.0;
    for (int i = 0; i < n; i++) {
        int k = find(reqs[i]);
        if (k < 0) continue;
        if (tracked[k].due > due) due = tracked[k].due;
        forget(k);
    }
    return due;
}

/* Some tracked request of reqs[0..n) is not due yet: poke the progress engine. */
static int not_due(int n, const MPI_Request *reqs)
{
    double now = PMPI_Wtime();
    for (int i = 0; i < n; i++) {
        int k = find(reqs[i]);
        if (k >= 0 && now < tracked[k].due) {
            int flag;
            PMPI_Request_get_status(reqs[i], &flag, MPI_STATUS_IGNORE);
            return 1;
        }
    }
    return 0;
}

/* ---- the reductions ----------------------------------------------------- */

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    double due = PMPI_Wtime() + delay();
    int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
    if (rc == MPI_SUCCESS && held(comm)) {
        held_blocking++;
        spin_until(due);
    }
    return rc;
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request *req)
{
    double due = PMPI_Wtime() + delay();
    int rc = PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, req);
    if (rc != MPI_SUCCESS || !held(comm)) return rc;
    if (ntracked == MAX_PENDING) {
        untracked++;
        return rc;
    }
    held_nonblocking++;
    tracked[ntracked++] = (pending){*req, due};
    return rc;
}

/* ---- their completion --------------------------------------------------- */

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    double due = take_due(1, req);
    int rc = PMPI_Wait(req, status);
    spin_until(due);
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    double due = take_due(n, reqs);
    int rc = PMPI_Waitall(n, reqs, statuses);
    spin_until(due);
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    if (not_due(1, req)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    int k = find(*req), rc = PMPI_Test(req, flag, status);
    if (k >= 0 && *flag) forget(k);
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    if (not_due(n, reqs)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    MPI_Request *before = malloc(sizeof *before * (size_t)(n > 0 ? n : 1));
    if (!before) return PMPI_Testall(n, reqs, flag, statuses);
    for (int i = 0; i < n; i++) before[i] = reqs[i];
    int rc = PMPI_Testall(n, reqs, flag, statuses);
    if (*flag) take_due(n, before); /* all completed: forget them */
    free(before);
    return rc;
}

/* Waitany, Waitsome, Testany, Testsome: one or some of the requests may
 * complete.  A tracked request not due yet is left out (set to
 * MPI_REQUEST_NULL in a copy) until it is; *earliest: the earliest due
 * time of those left out (0: none).  Wait* polls until something is due
 * and complete. */
static void some_copy(int n, const MPI_Request *reqs, MPI_Request *copy, double *earliest)
{
    double now = PMPI_Wtime();
    *earliest = 0.0;
    for (int i = 0; i < n; i++) {
        int k = find(reqs[i]);
        copy[i] = reqs[i];
        if (k >= 0 && now < tracked[k].due) {
            copy[i] = MPI_REQUEST_NULL;
            if (*earliest == 0.0 || tracked[k].due < *earliest) *earliest = tracked[k].due;
        }
    }
}

/* The request reqs[i] completed through its copy: forgotten if tracked,
 * the copy's handle (MPI_REQUEST_NULL) written back. */
static void completed(MPI_Request *reqs, const MPI_Request *copy, int i)
{
    int k = find(reqs[i]);
    if (k >= 0) forget(k);
    reqs[i] = copy[i];
}

static int any_call(int wait, int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    MPI_Request *copy = malloc(sizeof *copy * (size_t)(n > 0 ? n : 1));
    double earliest;
    int rc;
    if (!copy) return wait ? PMPI_Waitany(n, reqs, index, status) : PMPI_Testany(n, reqs, index, flag, status);
    for (;;) {
        some_copy(n, reqs, copy, &earliest);
        rc = PMPI_Testany(n, copy, index, flag, status);
        if (rc != MPI_SUCCESS) break;
        if (*flag && *index != MPI_UNDEFINED) {
            completed(reqs, copy, *index);
            break;
        }
        if (*flag && earliest == 0.0) break; /* no active request at all: MPI_UNDEFINED */
        *flag = 0, *index = MPI_UNDEFINED;   /* nothing due and complete yet */
        if (!wait) break;
    }
    free(copy);
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    int flag = 0;
    return any_call(1, n, reqs, index, &flag, status);
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    return any_call(0, n, reqs, index, flag, status);
}

static int some_call(int wait, int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    MPI_Request *copy = malloc(sizeof *copy * (size_t)(n > 0 ? n : 1));
    double earliest;
    int rc;
    if (!copy)
        return wait ? PMPI_Waitsome(n, reqs, outcount, indices, statuses)
                    : PMPI_Testsome(n, reqs, outcount, indices, statuses);
    for (;;) {
        some_copy(n, reqs, copy, &earliest);
        rc = PMPI_Testsome(n, copy, outcount, indices, statuses);
        if (rc != MPI_SUCCESS) break;
        if (*outcount == MPI_UNDEFINED && earliest == 0.0) break; /* no active request at all */
        if (*outcount == MPI_UNDEFINED) *outcount = 0;              /* only some not due yet */
        for (int i = 0; i < *outcount; i++) completed(reqs, copy, indices[i]);
        if (*outcount > 0 || !wait) break;
    }
    free(copy);
    return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    return some_call(1, n, reqs, outcount, indices, statuses);
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    return some_call(0, n, reqs, outcount, indices, statuses);
}

int MPI_Finalize(void)
{
    const char *env = getenv("OVK_PMPI_REPORT");
    if (env && *env && *env != '0') {
        int rank = 0;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            fprintf(stderr,
                    "delay_pmpi: rank 0: %.0f us per reduction; held %lld MPI_Allreduce, %lld MPI_Iallreduce "
                    "(%lld untracked, %lld on one rank not held)\n",
                    1e6 * delay(), held_blocking, held_nonblocking, untracked, local_only);
    }
    return PMPI_Finalize();
}
