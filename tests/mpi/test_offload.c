/* The "offload" backend, at any rank count.
 *
 *  - The task lists of every algorithm, scheme and degree for 1..16 ranks,
 *    executed by a simulator on rank 0 with rendezvous messages in random
 *    orders: every task completes, no message is ambiguous, and every rank
 *    ends with bitwise the same result.
 *  - Each usable engine (fabric, agent) x scheme (flat, twolevel with
 *    pretended and real nodes) x algorithm (rd; knomial with k = 2, 3, 4) x
 *    counts {1, 2, 3, 1000} x ops {sum, max, min} on doubles and int64:
 *    started together (the max in place), completed in reverse order, against
 *    MPI_Allreduce (exact for max, min and integers; |error| <= 1e-12 P
 *    sum|x| for double sums), bitwise identical on every rank.
 *  - 8 reductions in flight completed in reverse (and rank-dependent) order,
 *    the queue depth (OVK_EBUSY, then recovery), count 0, long vectors and
 *    growing counts, bad options, the default engine, an idle agent that
 *    sleeps.
 *  - alg1, alg2 and overlap with -backend offload converge in the iteration
 *    counts of blocking.
 * The fabric engine must be usable whenever it is built (its option list
 * says so), unless FI_PROVIDER picks a provider on purpose.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/offload.h"
#include "mpitest.h"
#include "problem.h"

#define SUM_RTOL 1e-12
#define NOPS 3
#define NIN_FLIGHT 8
#define SIM_MAX_RANKS 16
/* Idle agent: how long to leave it, and the CPU it may burn meanwhile (s). */
#define IDLE_S 0.3
#define IDLE_CPU_MAX_S 0.05

static const int counts[] = {1, 2, 3, 1000};
static const ovk_op ops[NOPS] = {OVK_SUM, OVK_MAX, OVK_MIN};

/* Algorithms and schemes, each run on every usable engine. */
static const char *const configs[] = {
    "alg=rd",
    "alg=knomial,k=2",
    "alg=knomial,k=3",
    "alg=knomial,k=4",
    "scheme=twolevel,ppn=2,alg=rd",
    "scheme=twolevel,ppn=2,alg=knomial,k=2",
    "scheme=twolevel,ppn=3,alg=knomial,k=3",
    "scheme=twolevel,ppn=2,alg=knomial,k=4",
    "scheme=twolevel,alg=rd",
};

static int rank, nranks;

/* ---- the task lists, simulated ------------------------------------------ */

enum { S_WAIT = 0, S_POSTED, S_DONE };

typedef struct sim_rank {
    ovk__off_list tl;
    double *slot; /* nslots x n */
    unsigned char *state;
} sim_rank;

static uint64_t sim_rng;

static int sim_next(int n)
{
    sim_rng = sim_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (int)((sim_rng >> 33) % (uint64_t)n);
}

static int sim_ready(const sim_rank *r, int i)
{
    for (int p = 0; p < r->tl.task[i].npred; p++)
        if (r->state[r->tl.task[i].pred[p]] != S_DONE) return 0;
    return 1;
}

/* A posted send meets its posted receive: the data moves now (rendezvous),
 * both complete.  Returns -1 when the message is ambiguous. */
static int sim_match(sim_rank *R, int src, int i, int n)
{
    const ovk__off_task *s = &R[src].tl.task[i];
    sim_rank *d = &R[s->peer];
    int found = -1, many = 0;
    for (int j = 0; j < d->tl.ntasks; j++) {
        const ovk__off_task *t = &d->tl.task[j];
        if (t->kind != OVK__OFF_RECV || t->peer != src || t->tag != s->tag || d->state[j] == S_DONE) continue;
        many += found >= 0;
        if (found < 0) found = j;
    }
    if (many) return -1;
    if (found < 0 || d->state[found] != S_POSTED) return 0;
    memcpy(d->slot + (size_t)d->tl.task[found].slot * n, R[src].slot + (size_t)s->slot * n, sizeof(double) * n);
    d->state[found] = R[src].state[i] = S_DONE;
    return 1;
}

/* One random step on a random rank; 1 when something happened. */
static int sim_step(sim_rank *R, int P, int n, int op, int *ambiguous)
{
    int r0 = sim_next(P);
    for (int dr = 0; dr < P; dr++) {
        sim_rank *r = &R[(r0 + dr) % P];
        int nt = r->tl.ntasks, i0 = nt ? sim_next(nt) : 0;
        for (int di = 0; di < nt; di++) {
            int i = (i0 + di) % nt;
            const ovk__off_task *t = &r->tl.task[i];
            if (r->state[i] == S_POSTED && t->kind == OVK__OFF_SEND) {
                int m = sim_match(R, (r0 + dr) % P, i, n);
                if (m < 0) *ambiguous = 1;
                if (m) return 1;
            }
            if (r->state[i] != S_WAIT || !sim_ready(r, i)) continue;
            if (t->kind != OVK__OFF_CALC) {
                r->state[i] = S_POSTED;
                return 1;
            }
            double *d = r->slot + (size_t)t->slot * n, *s = r->slot + (size_t)t->src * n;
            for (int e = 0; e < n; e++) d[e] = op == OVK_SUM ? d[e] + s[e] : (d[e] < s[e] ? s[e] : d[e]);
            r->state[i] = S_DONE;
            return 1;
        }
    }
    return 0;
}

/* Run one configuration on P simulated ranks; 0 when all is well. */
static int sim_run(int P, ovk__off_alg alg, ovk__off_scheme scheme, int k, int ppn, int op, uint64_t seed)
{
    enum { N = 3 };
    sim_rank R[SIM_MAX_RANKS];
    int node_of[SIM_MAX_RANKS], bad = 0, ambiguous = 0;
    for (int r = 0; r < P; r++) node_of[r] = r / ppn * ppn;
    for (int r = 0; r < P; r++) {
        ovk__off_topo topo = {P, r, node_of};
        if (ovk__off_build(alg, scheme, k, &topo, &R[r].tl)) return 1;
        R[r].slot = calloc((size_t)R[r].tl.nslots * N, sizeof(double));
        R[r].state = calloc((size_t)R[r].tl.ntasks + 1, 1);
        mt_fill(R[r].slot, OVK_DOUBLE, N, r, 7);
    }
    sim_rng = seed;
    while (sim_step(R, P, N, op, &ambiguous)) {
    }
    for (int r = 0; r < P; r++) {
        for (int i = 0; i < R[r].tl.ntasks; i++) bad |= R[r].state[i] != S_DONE;
        bad |= memcmp(R[r].slot + (size_t)R[r].tl.result * N, R[0].slot + (size_t)R[0].tl.result * N,
                      sizeof(double) * N) != 0;
    }
    double in[N], ref[N] = {0}, mag[N] = {0};
    for (int r = 0; r < P; r++) {
        mt_fill(in, OVK_DOUBLE, N, r, 7);
        for (int e = 0; e < N; e++) {
            ref[e] = op == OVK_SUM ? ref[e] + in[e] : (r == 0 || in[e] > ref[e] ? in[e] : ref[e]);
            mag[e] += fabs(in[e]);
        }
    }
    for (int e = 0; e < N; e++)
        bad |= !(fabs(R[0].slot[(size_t)R[0].tl.result * N + e] - ref[e]) <= SUM_RTOL * P * mag[e]);
    for (int r = 0; r < P; r++) {
        free(R[r].slot);
        free(R[r].state);
        ovk__off_list_free(&R[r].tl);
    }
    return bad || ambiguous;
}

static void test_simulated_lists(void)
{
    if (rank != 0) return;
    for (int P = 1; P <= SIM_MAX_RANKS; P++)
        for (int alg = 0; alg < 2; alg++)
            for (int k = OVK__OFF_K_MIN; k <= OVK__OFF_K_MAX; k++)
                for (int ppn = 1; ppn <= 4; ppn++)
                    for (int sc = 0; sc < 2; sc++)
                        for (int seed = 0; seed < 3; seed++) {
                            int op = seed == 2 ? OVK_MAX : OVK_SUM;
                            int bad = sim_run(P, (ovk__off_alg)alg, (ovk__off_scheme)sc, k, ppn, op,
                                              (uint64_t)seed * 977 + 1);
                            MT_CHECK(!bad, "simulated list P=%d alg=%d k=%d ppn=%d scheme=%d seed=%d", P, alg, k,
                                     ppn, sc, seed);
                        }
}

/* ---- reductions ------------------------------------------------------------ */

typedef struct job {
    void *in, *out, *orig; /* orig: copy of in (in-place jobs overwrite in) */
    ovk_request *req;
} job;

/* Sum, max and min of count elements started together, the max in place,
 * completed in reverse order (the first by test polling). */
static void run_group(ovk_reducer *red, const char *spec, int count, ovk_datatype t, int salt)
{
    job j[NOPS];
    size_t bytes = (size_t)count * 8;
    for (int k = 0; k < NOPS; k++) {
        j[k].in = malloc(bytes);
        j[k].orig = malloc(bytes);
        j[k].out = ops[k] == OVK_MAX ? j[k].in : malloc(bytes);
        mt_fill(j[k].in, t, count, rank, salt + k);
        memcpy(j[k].orig, j[k].in, bytes);
        MT_RC(OVK_OK, ovk_reduce_start(red, j[k].in, j[k].out, count, t, ops[k], &j[k].req));
    }
    for (int k = NOPS - 1; k >= 0; k--) {
        int done = 0;
        if (k == 0)
            while (!done && !ovk_reduce_test(j[k].req, &done)) {
            }
        MT_RC(OVK_OK, ovk_reduce_wait(j[k].req));
        MT_RC(OVK_OK, ovk_request_free(j[k].req));
    }
    for (int k = 0; k < NOPS; k++) {
        int bad = mt_check_against_mpi(j[k].orig, j[k].out, count, t, ops[k], SUM_RTOL);
        MT_CHECK(bad < 0, "%s count=%d type=%d op=%d: wrong at %d", spec, count, (int)t, (int)ops[k], bad);
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, j[k].out, count), "%s count=%d type=%d op=%d: ranks differ", spec, count, (int)t,
                 (int)ops[k]);
        if (j[k].out != j[k].in) free(j[k].out);
        free(j[k].in);
        free(j[k].orig);
    }
}

static int create(const char *spec, ovk_reducer **red)
{
    int rc = ovk_reducer_create(MPI_COMM_WORLD, spec, red);
    MT_CHECK(rc == OVK_OK, "create %s: %s (%s)", spec, ovk_status_name(rc), ovk_error_detail());
    return rc;
}

static void test_config(const char *engine, const char *config)
{
    char spec[160];
    ovk_reducer *red = NULL;
    snprintf(spec, sizeof spec, "offload:engine=%s,%s", engine, config);
    if (create(spec, &red)) return;
    MT_CHECK(ovk_reducer_caps(red) == (OVK_CAP_NONBLOCKING | OVK_CAP_ASYNC), "%s: caps %u", spec,
             ovk_reducer_caps(red));
    for (int c = 0; c < (int)(sizeof counts / sizeof counts[0]); c++)
        for (int t = 0; t < 2; t++) run_group(red, spec, counts[c], (ovk_datatype)t, 10 * c + t);
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

/* NIN_FLIGHT reductions in flight, completed in reverse order on even ranks
 * and in a rank-dependent order elsewhere; then count 0. */
static void test_in_flight(const char *engine)
{
    char spec[64];
    ovk_reducer *red = NULL;
    ovk_request *req[NIN_FLIGHT];
    int64_t in[NIN_FLIGHT], out[NIN_FLIGHT];
    snprintf(spec, sizeof spec, "offload:engine=%s,alg=knomial,k=3", engine);
    if (create(spec, &red)) return;
    for (int i = 0; i < NIN_FLIGHT; i++) {
        in[i] = rank + 1000 * i;
        MT_RC(OVK_OK, ovk_reduce_start(red, &in[i], &out[i], 1, OVK_INT64, OVK_MAX, &req[i]));
    }
    for (int n = 0; n < NIN_FLIGHT; n++) {
        int i = rank % 2 ? (n * 3 + rank) % NIN_FLIGHT : NIN_FLIGHT - 1 - n; /* 3 is prime to 8 */
        MT_RC(OVK_OK, ovk_reduce_wait(req[i]));
        MT_RC(OVK_OK, ovk_request_free(req[i]));
    }
    for (int i = 0; i < NIN_FLIGHT; i++)
        MT_CHECK(out[i] == nranks - 1 + 1000 * i, "%s op %d: %lld", spec, i, (long long)out[i]);
    ovk_request *r0 = NULL;
    int done = 0;
    out[0] = -1;
    MT_RC(OVK_OK, ovk_reduce_start(red, in, out, 0, OVK_INT64, OVK_MIN, &r0));
    MT_RC(OVK_OK, ovk_reduce_test(r0, &done));
    MT_CHECK(done == 1 && out[0] == -1, "count 0: done=%d out=%lld", done, (long long)out[0]);
    MT_RC(OVK_OK, ovk_reduce_wait(r0));
    MT_RC(OVK_OK, ovk_request_free(r0));
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

/* A queue of 2: the third start is refused (on every rank alike), the two
 * complete, and the reducer works on. */
static void test_depth(const char *engine)
{
    char spec[64];
    ovk_reducer *red = NULL;
    ovk_request *req[3] = {NULL, NULL, NULL};
    double in[3] = {1, 2, 3}, out[3];
    snprintf(spec, sizeof spec, "offload:engine=%s,depth=2", engine);
    if (create(spec, &red)) return;
    MT_RC(OVK_OK, ovk_reduce_start(red, &in[0], &out[0], 1, OVK_DOUBLE, OVK_SUM, &req[0]));
    MT_RC(OVK_OK, ovk_reduce_start(red, &in[1], &out[1], 1, OVK_DOUBLE, OVK_SUM, &req[1]));
    int rc = ovk_reduce_start(red, &in[2], &out[2], 1, OVK_DOUBLE, OVK_SUM, &req[2]);
    if (nranks > 1) {
        MT_CHECK(rc == OVK_EBUSY && req[2] == NULL, "%s third start: %s", spec, ovk_status_name(rc));
        MT_CHECK(strstr(ovk_error_detail(), "depth=2") != NULL, "detail: %s", ovk_error_detail());
    }
    for (int i = 0; i < 3; i++)
        if (req[i]) {
            MT_RC(OVK_OK, ovk_reduce_wait(req[i]));
            MT_RC(OVK_OK, ovk_request_free(req[i]));
            MT_CHECK(out[i] == in[i] * nranks, "%s op %d: %g", spec, i, out[i]);
        }
    MT_RC(OVK_OK, ovk_reduce_start(red, &in[2], &out[2], 1, OVK_DOUBLE, OVK_SUM, &req[2]));
    MT_RC(OVK_OK, ovk_reduce_wait(req[2]));
    MT_RC(OVK_OK, ovk_request_free(req[2]));
    MT_CHECK(out[2] == 3.0 * nranks, "%s after the refusal: %g", spec, out[2]);
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

/* Counts that grow from one reduction to the next (the engine's buffers grow
 * with them), up to vectors that need many atomic operations per calc. */
static void test_growing(const char *engine)
{
    static const int grow[] = {1, 600, 5000, 40000, 7};
    char spec[64];
    ovk_reducer *red = NULL;
    snprintf(spec, sizeof spec, "offload:engine=%s,alg=rd", engine);
    if (create(spec, &red)) return;
    for (int i = 0; i < (int)(sizeof grow / sizeof grow[0]); i++) run_group(red, spec, grow[i], OVK_DOUBLE, 50 + i);
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

/* ---- options, engines, threads ------------------------------------------------ */

static void test_bad_options(void)
{
    static const char *const bad[] = {"offload:engine=card", "offload:alg=ring", "offload:k=1",
                                      "offload:k=5",         "offload:scheme=tree", "offload:depth=0",
                                      "offload:depth=65",    "offload:ppn=-1",   "offload:bogus=1"};
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        ovk_reducer *red = NULL;
        int rc = ovk_reducer_create(MPI_COMM_WORLD, bad[i], &red);
        MT_CHECK(rc == OVK_EOPTION && !red, "%s gave %s", bad[i], ovk_status_name(rc));
        if (i == 0) MT_CHECK(strstr(ovk_error_detail(), "auto|") != NULL, "detail: %s", ovk_error_detail());
        if (red) ovk_reducer_destroy(red);
    }
}

/* Without MPI_THREAD_MULTIPLE the agent is refused with a reason; with it,
 * an idle agent sleeps. */
static void test_agent_thread(int provided)
{
    ovk_reducer *red = NULL;
    int rc = ovk_reducer_create(MPI_COMM_WORLD, "offload:engine=agent", &red);
    if (provided != MPI_THREAD_MULTIPLE) {
        MT_CHECK(rc == OVK_EUNSUPPORTED && strstr(ovk_error_detail(), "MPI_THREAD_MULTIPLE"),
                 "agent without MPI_THREAD_MULTIPLE gave %s (%s)", ovk_status_name(rc), ovk_error_detail());
        return;
    }
    if (rc) return;
    double x = rank, y = 0;
    ovk_request *req = NULL;
    MT_RC(OVK_OK, ovk_reduce_start(red, &x, &y, 1, OVK_DOUBLE, OVK_SUM, &req));
    MT_RC(OVK_OK, ovk_reduce_wait(req));
    MT_RC(OVK_OK, ovk_request_free(req));
    double c0 = mt_cpu_seconds();
    mt_nap(IDLE_S);
    double idle = mt_cpu_seconds() - c0;
    MT_CHECK(idle < IDLE_CPU_MAX_S, "idle agent used %.3f s of CPU in %.1f s", idle, IDLE_S);
    /* busy: the agent completes the reduction while the host only sleeps */
    MPI_Barrier(MPI_COMM_WORLD);
    MT_RC(OVK_OK, ovk_reduce_start(red, &x, &y, 1, OVK_DOUBLE, OVK_SUM, &req));
    mt_nap(IDLE_S);
    int done = 0;
    MT_RC(OVK_OK, ovk_reduce_test(req, &done));
    MT_CHECK(done, "the agent did not complete the reduction in %.1f s", IDLE_S);
    MT_RC(OVK_OK, ovk_reduce_wait(req));
    MT_RC(OVK_OK, ovk_request_free(req));
    MT_CHECK(y == 0.5 * nranks * (nranks - 1), "agent sum %g", y);
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

/* 1 when the fabric engine is compiled in (the backend's options list it). */
static int fabric_built(void)
{
    for (int i = 0; i < ovk_backend_count(); i++) {
        ovk_backend_info info;
        ovk_backend_get_info(i, &info);
        if (!strcmp(info.name, "offload")) return strstr(info.options, "auto|fabric|agent") != NULL;
    }
    return 0;
}

/* The fabric engine runs whenever it is built (Debian's libfabric has the
 * sockets provider), unless FI_PROVIDER chose a provider on purpose. */
static int fabric_usable(void)
{
    ovk_reducer *red = NULL;
    int rc = ovk_reducer_create(MPI_COMM_WORLD, "offload:engine=fabric", &red);
    int required = fabric_built() && !getenv("FI_PROVIDER");
    if (rc && rank == 0) printf("fabric engine not usable here: %s\n", ovk_error_detail());
    MT_CHECK(rc == OVK_OK || rc == OVK_EUNSUPPORTED, "engine=fabric gave %s (%s)", ovk_status_name(rc),
             ovk_error_detail());
    MT_CHECK(rc == OVK_OK || !required, "the fabric engine is built but cannot run: %s", ovk_error_detail());
    if (red) ovk_reducer_destroy(red);
    return rc == OVK_OK;
}

/* ---- the solvers ------------------------------------------------------------ */

static int solve(const char *solver, const char *backend, int *iterations)
{
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_options o;
    ovk_pcg_result res;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 7, 8, 0.0, &A));
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    for (int i = 0; i < ovk_vector_nlocal(b); i++)
        ovk_vector_data(b)[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    ovk_pcg_options_init(&o);
    o.solver = solver;
    o.backend = backend;
    o.tol = 1e-9;
    int rc = ovk_pcg_solve(A, b, x, &o, &res);
    *iterations = res.iterations;
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &res.rel_residual, 1), "%s/%s: residual differs between ranks",
             solver, backend);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
    return rc;
}

static void test_solvers(const char *const *engines, int nengines)
{
    static const char *const solvers[] = {"alg1", "alg2", "overlap"};
    for (int s = 0; s < 3; s++) {
        int ref = 0, its = 0;
        MT_RC(OVK_OK, solve(solvers[s], "blocking", &ref));
        MT_RC(OVK_OK, solve(solvers[s], "offload", &its));
        MT_CHECK(its == ref, "%s/offload: %d iterations, blocking %d", solvers[s], its, ref);
        for (int e = 0; e < nengines; e++) {
            char spec[64];
            snprintf(spec, sizeof spec, "offload:engine=%s,alg=knomial,k=2", engines[e]);
            MT_RC(OVK_OK, solve(solvers[s], spec, &its));
            MT_CHECK(its == ref, "%s/%s: %d iterations, blocking %d", solvers[s], spec, its, ref);
        }
    }
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    const char *engines[2];
    int nengines = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    test_simulated_lists();
    if (fabric_usable()) engines[nengines++] = "fabric";
    if (provided == MPI_THREAD_MULTIPLE) engines[nengines++] = "agent";
    for (int e = 0; e < nengines; e++) {
        for (int c = 0; c < (int)(sizeof configs / sizeof configs[0]); c++) test_config(engines[e], configs[c]);
        test_in_flight(engines[e]);
        test_depth(engines[e]);
        test_growing(engines[e]);
    }
    test_bad_options();
    test_agent_thread(provided);
    test_solvers(engines, nengines);
    int status = mt_finish("test_offload");
    MPI_Finalize();
    return status;
}
