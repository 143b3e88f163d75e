/* The "nbc" backend end to end, at any rank count.
 *
 * For every algorithm (kring and knomial with k = 2, 3, 4, 8; twolevel with
 * ppn = 1, 2, 3, real nodes and every inter-leader algorithm; rsa with one
 * and with many segments; auto) and counts 1, 2, 3, 7, 1000, 100000: sum,
 * max and min on doubles and int64 are started together (some in place) and
 * completed in reverse order, then compared with MPI_Allreduce (exact for
 * max, min and integers; |error| <= 1e-12 P sum|x| for double sums), and the
 * results must be bitwise identical on every rank.  Also: the schedule cache
 * hits, count 0, bad options, the progress thread.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/nbc_sched.h"
#include "mpitest.h"
#include "ovkrylov/ovkrylov.h"

#define SUM_RTOL 1e-12
#define NOPS 3
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))
#define NSPECS ((int)(sizeof specs / sizeof specs[0]))
/* Test of the progress thread: how long to leave it alone (s). */
#define THREAD_GRACE_S 0.3
/* CPU the idle progress thread may burn during THREAD_GRACE_S (s). */
#define IDLE_CPU_MAX_S 0.05

static const int counts[] = {1, 2, 3, 7, 1000, 100000};

static const char *const specs[] = {
    "nbc:alg=rd",
    "nbc:alg=kring,k=2",
    "nbc:alg=kring,k=3",
    "nbc:alg=kring,k=4",
    "nbc:alg=kring,k=8",
    "nbc:alg=knomial,k=2",
    "nbc:alg=knomial,k=3",
    "nbc:alg=knomial,k=4",
    "nbc:alg=knomial,k=8",
    "nbc:alg=twolevel,ppn=1",
    "nbc:alg=twolevel,ppn=2",
    "nbc:alg=twolevel,ppn=3",
    "nbc:alg=twolevel",
    "nbc:alg=twolevel,ppn=2,inter=kring,k=3",
    "nbc:alg=twolevel,ppn=3,inter=knomial,k=2",
    "nbc:alg=twolevel,ppn=1,inter=rsa,seg=4096",
    "nbc:alg=rsa",
    "nbc:alg=rsa,seg=4096",
    "nbc",
    "nbc:thresh=0",
};

static const ovk_op ops[NOPS] = {OVK_SUM, OVK_MAX, OVK_MIN};

static int rank, nranks;

/* ---- reductions ------------------------------------------------------- */

typedef struct job {
    ovk_op op;
    void *in, *out, *orig; /* orig: copy of in (in-place jobs overwrite in) */
    ovk_request *req;
} job;

/* Sum, max and min of count elements started together, the max in place,
 * completed in reverse order (the first by test polling). */
static void run_group(ovk_reducer *red, const char *spec, int count, ovk_datatype t)
{
    job j[NOPS];
    size_t bytes = (size_t)count * 8;
    for (int k = 0; k < NOPS; k++) {
        j[k].op = ops[k];
        j[k].in = malloc(bytes);
        j[k].orig = malloc(bytes);
        j[k].out = ops[k] == OVK_MAX ? j[k].in : malloc(bytes);
        mt_fill(j[k].in, t, count, rank, k);
        memcpy(j[k].orig, j[k].in, bytes);
        int rc = ovk_reduce_start(red, j[k].in, j[k].out, count, t, ops[k], &j[k].req);
        MT_RC(OVK_OK, rc);
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
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, j[k].out, count), "%s count=%d type=%d op=%d: ranks differ", spec, count,
                 (int)t, (int)ops[k]);
        if (j[k].out != j[k].in) free(j[k].out);
        free(j[k].in);
        free(j[k].orig);
    }
}

static void test_spec(const char *spec)
{
    ovk_reducer *red = NULL;
    int rc = ovk_reducer_create(MPI_COMM_WORLD, spec, &red);
    MT_CHECK(rc == OVK_OK, "create %s: %s (%s)", spec, ovk_status_name(rc), ovk_error_detail());
    if (rc) return;
    for (int c = 0; c < NCOUNTS; c++)
        for (int t = 0; t < 2; t++) run_group(red, spec, counts[c], (ovk_datatype)t);
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

/* ---- the cache, count 0, repeated use --------------------------------- */

static void test_cache_and_trivial(void)
{
    ovk_reducer *red = NULL;
    double x[5] = {1, 2, 3, 4, 5}, y[5];
    long h0, m0, h1, m1;
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, "nbc:alg=kring,k=3", &red));
    if (!red) return;
    ovk__nbc_cache_stats(NULL, &h0, &m0);
    for (int it = 0; it < 10; it++) {
        ovk_request *req = NULL;
        MT_RC(OVK_OK, ovk_reduce_start(red, x, y, 5, OVK_DOUBLE, OVK_SUM, &req));
        MT_RC(OVK_OK, ovk_reduce_wait(req));
        MT_RC(OVK_OK, ovk_request_free(req));
        MT_CHECK(y[4] == 5.0 * nranks, "iteration %d: %g", it, y[4]);
    }
    ovk__nbc_cache_stats(NULL, &h1, &m1);
    MT_CHECK(m1 - m0 == (nranks > 1), "misses %ld -> %ld", m0, m1);
    MT_CHECK(h1 - h0 == (nranks > 1 ? 9 : 0), "hits %ld -> %ld", h0, h1);
    /* count 0: complete at once, nothing touched */
    ovk_request *req = NULL;
    int done = 0;
    y[0] = -1;
    MT_RC(OVK_OK, ovk_reduce_start(red, x, y, 0, OVK_INT64, OVK_MIN, &req));
    MT_RC(OVK_OK, ovk_reduce_test(req, &done));
    MT_CHECK(done == 1 && y[0] == -1, "count 0: done=%d y=%g", done, y[0]);
    MT_RC(OVK_OK, ovk_reduce_wait(req));
    MT_RC(OVK_OK, ovk_request_free(req));
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

/* Many operations in flight, completed in an order that differs by rank. */
static void test_many_outstanding(void)
{
    enum { NIN = 40 };
    ovk_reducer *red = NULL;
    ovk_request *req[NIN];
    int64_t in[NIN], out[NIN];
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, "nbc:alg=knomial,k=2", &red));
    if (!red) return;
    for (int i = 0; i < NIN; i++) {
        in[i] = rank + 1000 * i;
        MT_RC(OVK_OK, ovk_reduce_start(red, &in[i], &out[i], 1, OVK_INT64, OVK_MAX, &req[i]));
    }
    for (int n = 0; n < NIN; n++) {
        int i = (n * 7 + rank * 13) % NIN; /* 7 is prime to NIN: a permutation */
        MT_RC(OVK_OK, ovk_reduce_wait(req[i]));
        MT_RC(OVK_OK, ovk_request_free(req[i]));
    }
    for (int i = 0; i < NIN; i++) MT_CHECK(out[i] == nranks - 1 + 1000 * i, "op %d: %lld", i, (long long)out[i]);
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

/* ---- bad options ------------------------------------------------------- */

static void test_bad_options(void)
{
    static const char *const bad[] = {"nbc:alg=ring",  "nbc:k=1",       "nbc:k=9",      "nbc:alg=kring,k=0",
                                      "nbc:bogus=1",   "nbc:inter=twolevel", "nbc:seg=10", "nbc:thread=2",
                                      "nbc:ppn=-1"};
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        ovk_reducer *red = NULL;
        int rc = ovk_reducer_create(MPI_COMM_WORLD, bad[i], &red);
        MT_CHECK(rc == OVK_EOPTION && !red, "%s gave %s", bad[i], ovk_status_name(rc));
        if (i == 0)
            MT_CHECK(strstr(ovk_error_detail(), "rd|kring|knomial|twolevel|rsa") != NULL, "detail: %s",
                     ovk_error_detail());
        if (red) ovk_reducer_destroy(red);
    }
}

/* ---- the progress thread ------------------------------------------------ */

static void test_thread(int provided)
{
    ovk_reducer *red = NULL;
    int rc = ovk_reducer_create(MPI_COMM_WORLD, "nbc:thread=1", &red);
    if (provided != MPI_THREAD_MULTIPLE) {
        MT_CHECK(rc == OVK_EUNSUPPORTED, "thread=1 without MPI_THREAD_MULTIPLE gave %s", ovk_status_name(rc));
        return;
    }
    MT_CHECK(rc == OVK_OK, "thread=1: %s (%s)", ovk_status_name(rc), ovk_error_detail());
    if (rc) return;
    /* idle: the thread sleeps */
    double c0 = mt_cpu_seconds();
    mt_nap(THREAD_GRACE_S);
    double idle = mt_cpu_seconds() - c0;
    MT_CHECK(idle < IDLE_CPU_MAX_S, "idle progress thread used %.3f s of CPU in %.1f s", idle, THREAD_GRACE_S);
    /* busy: the thread completes the reduction without test calls */
    double x[7], y[7];
    for (int i = 0; i < 7; i++) x[i] = rank + i;
    ovk_request *req = NULL;
    int done = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MT_RC(OVK_OK, ovk_reduce_start(red, x, y, 7, OVK_DOUBLE, OVK_MAX, &req));
    mt_nap(THREAD_GRACE_S);
    MT_RC(OVK_OK, ovk_reduce_test(req, &done));
    MT_CHECK(done, "the progress thread did not complete the reduction in %.1f s", THREAD_GRACE_S);
    MT_RC(OVK_OK, ovk_reduce_wait(req));
    MT_RC(OVK_OK, ovk_request_free(req));
    MT_CHECK(y[6] == nranks - 1 + 6, "thread result %g", y[6]);
    run_group(red, "nbc:thread=1", 1000, OVK_DOUBLE);
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int s = 0; s < NSPECS; s++) test_spec(specs[s]);
    test_cache_and_trivial();
    test_many_outstanding();
    test_bad_options();
    test_thread(provided);
    int status = mt_finish("test_nbc");
    MPI_Finalize();
    return status;
}
