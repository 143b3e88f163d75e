/* The network-latency model on every available backend: a non-blocking
 * reduction is not complete before the modelled latency has passed, a
 * blocking one returns from start only after it, results are unchanged and
 * bitwise identical; the model's formula, parsing, presets and bad input;
 * $OVK_LATENCY_MODEL. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

enum { COUNT = 3 };
static const double MODEL_US = 20000.0; /* 20 ms: far above any real latency here */

static void check_backend(const char *spec, int rank, int size)
{
    ovk_reducer *red = NULL;
    ovk_request *req = NULL;
    ovk_latency_model m = {MODEL_US, 0.0, 0.0, 0};
    double send[COUNT], recv[COUNT];
    int done = 1;
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, spec, &red));
    if (!red) return;
    MT_RC(OVK_OK, ovk_reducer_set_latency(red, &m));
    for (int i = 0; i < COUNT; i++) send[i] = tp_value((uint64_t)(17 * i + rank));
    double t0 = MPI_Wtime();
    MT_RC(OVK_OK, ovk_reduce_start(red, send, recv, COUNT, OVK_DOUBLE, OVK_MAX, &req));
    double t_start = MPI_Wtime() - t0;
    MT_RC(OVK_OK, ovk_reduce_test(req, &done));
    double t_test = MPI_Wtime() - t0;
    if (ovk_reducer_caps(red) & OVK_CAP_NONBLOCKING)
        MT_CHECK(done == 0 || t_test >= MODEL_US * 1e-6, "%s: complete after %g s < model", spec, t_test);
    else
        MT_CHECK(t_start >= MODEL_US * 1e-6, "%s: blocking start returned after %g s < model", spec, t_start);
    if (!done) MT_RC(OVK_EBUSY, ovk_reducer_set_latency(red, NULL)); /* not while in flight */
    MT_RC(OVK_OK, ovk_reduce_wait(req));
    double t_wait = MPI_Wtime() - t0;
    MT_CHECK(t_wait >= MODEL_US * 1e-6, "%s: wait returned after %g s < model", spec, t_wait);
    MT_RC(OVK_OK, ovk_request_free(req));
    for (int i = 0; i < COUNT; i++) {
        double ref = -INFINITY;
        for (int r = 0; r < size; r++) ref = fmax(ref, tp_value((uint64_t)(17 * i + r)));
        MT_CHECK(recv[i] == ref, "%s: max %g, expected %g", spec, recv[i], ref);
    }
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, recv, COUNT), "%s: results differ across ranks", spec);
    ovk_latency_model got;
    MT_CHECK(ovk_reducer_get_latency(red, &got) == 1 && got.alpha_us == MODEL_US, "%s: model not kept", spec);
    MT_RC(OVK_OK, ovk_reducer_set_latency(red, NULL));
    MT_CHECK(ovk_reducer_get_latency(red, &got) == 0, "%s: model not cleared", spec);
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

/* The latency backend keeps every request in flight: 8 at once (plcg's
 * most), driven by the progress call, completed out of order by test and
 * wait; each is complete no earlier than the model after its own start,
 * with the right sum. */
static void check_many_in_flight(const char *spec, int size)
{
    enum { N = 8 };
    static const double US = 2000.0;
    ovk_reducer *red = NULL;
    ovk_request *req[N];
    ovk_latency_model m = {US, 0.0, 0.0, 0};
    double val[N], t_start[N];
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, spec, &red));
    if (!red) return;
    MT_RC(OVK_OK, ovk_reducer_set_latency(red, &m));
    for (int i = 0; i < N; i++) {
        val[i] = (double)(i + 1);
        t_start[i] = MPI_Wtime();
        MT_RC(OVK_OK, ovk_reduce_start(red, &val[i], &val[i], 1, OVK_DOUBLE, OVK_SUM, &req[i]));
        MT_RC(OVK_OK, ovk_reducer_progress(red));
    }
    for (int k = 0; k < N; k++) { /* odd ones by test, from the last; then even ones by wait */
        int i = k < N / 2 ? N - 1 - 2 * k : 2 * (k - N / 2), done = 0, rc = OVK_OK;
        if (i % 2)
            while (!rc && !done) rc = ovk_reduce_test(req[i], &done);
        else
            rc = ovk_reduce_wait(req[i]);
        MT_RC(OVK_OK, rc);
        double t = MPI_Wtime() - t_start[i];
        MT_CHECK(t >= US * 1e-6, "%s: request %d complete after %g s < model", spec, i, t);
        MT_CHECK(val[i] == (double)((i + 1) * size), "%s: request %d sum %g", spec, i, val[i]);
        MT_RC(OVK_OK, ovk_request_free(req[i]));
    }
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

/* A test-driven backend runs the model level by level, each level started
 * by a test call: after a compute phase without tests only one level has
 * passed, and the wait still takes the other levels. */
static void check_levels(void)
{
    ovk_reducer *red = NULL;
    ovk_request *req = NULL;
    ovk_latency_model m = {0.0, 2500.0, 0.0, 256}; /* 8 levels of 2.5 ms */
    double v = 1.0, sum = 0.0;
    int done = 1;
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, "native", &red));
    if (!red) return;
    MT_CHECK(ovk_reducer_caps(red) & OVK_CAP_NEEDS_TEST, "native is test-driven");
    MT_RC(OVK_OK, ovk_reducer_set_latency(red, &m));
    MT_RC(OVK_OK, ovk_reduce_start(red, &v, &sum, 1, OVK_DOUBLE, OVK_SUM, &req));
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < 0.02) { /* "compute" for the whole modelled latency, no test */
    }
    MT_RC(OVK_OK, ovk_reduce_test(req, &done));
    MT_CHECK(!done, "complete without the test calls that drive its levels");
    double t1 = MPI_Wtime();
    MT_RC(OVK_OK, ovk_reduce_wait(req));
    MT_CHECK(MPI_Wtime() - t1 >= 6 * 0.0025, "wait took %g s, less than the 6 levels left", MPI_Wtime() - t1);
    MT_RC(OVK_OK, ovk_request_free(req));
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

static void check_formula(void)
{
    ovk_latency_model m;
    MT_RC(OVK_OK, ovk_latency_model_parse("alpha=10,beta=2,gamma=0.5,P=5", &m));
    /* 10 + 2 * ceil(log2 5) + 0.5 * 8 = 10 + 6 + 4 */
    MT_CHECK(ovk_latency_model_us(&m, 2, 8.0) == 20.0, "formula: %g", ovk_latency_model_us(&m, 2, 8.0));
    m.P = 0; /* the real size: ceil(log2 4) = 2 */
    MT_CHECK(ovk_latency_model_us(&m, 4, 0.0) == 14.0, "P = comm size: %g", ovk_latency_model_us(&m, 4, 0.0));
    MT_CHECK(ovk_latency_model_us(&m, 1, 0.0) == 10.0, "one rank has no levels");
    MT_RC(OVK_OK, ovk_latency_model_parse("pcg-overlap-256", &m));
    MT_CHECK(ovk_latency_model_us(&m, 2, 8.0) == 250.0, "preset pcg-overlap-256: %g", ovk_latency_model_us(&m, 2, 8.0));
    MT_RC(OVK_OK, ovk_latency_model_parse("pcg-overlap-256,P=1024", &m));
    MT_CHECK(ovk_latency_model_us(&m, 2, 8.0) == 312.5, "preset override: %g", ovk_latency_model_us(&m, 2, 8.0));
    MT_RC(OVK_OK, ovk_latency_model_parse("none", &m));
    MT_CHECK(ovk_latency_model_us(&m, 64, 1e6) == 0.0, "none is zero");
    const char *bad[] = {"alpha=-1", "beta=x", "gamma=inf", "P=2.5", "delta=1", "alpha", "nosuch", "alpha=1,ib-qdr",
                         "alpha=", "=3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        MT_RC(OVK_EOPTION, ovk_latency_model_parse(bad[i], &m));
    ovk_reducer *red = NULL;
    ovk_latency_model neg = {-1.0, 0.0, 0.0, 0};
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, "blocking", &red));
    MT_RC(OVK_EOPTION, ovk_reducer_set_latency(red, &neg));
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

static void check_env(void)
{
    ovk_reducer *red = NULL;
    ovk_latency_model got;
    setenv(OVK_LATENCY_ENV, "alpha=7", 1);
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, "native", &red));
    MT_CHECK(red && ovk_reducer_get_latency(red, &got) == 1 && got.alpha_us == 7.0, "env model not applied");
    ovk_reducer_destroy(red);
    red = NULL;
    setenv(OVK_LATENCY_ENV, "alpha=oops", 1);
    MT_RC(OVK_EOPTION, ovk_reducer_create(MPI_COMM_WORLD, "native", &red));
    MT_CHECK(red == NULL, "no reducer on a bad model");
    MT_CHECK(strstr(ovk_error_detail(), OVK_LATENCY_ENV) != NULL, "detail names the variable: %s", ovk_error_detail());
    unsetenv(OVK_LATENCY_ENV);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsetenv(OVK_LATENCY_ENV);
    for (int k = 0; k < ovk_backend_count(); k++) {
        ovk_backend_info info;
        ovk_backend_get_info(k, &info);
        if (info.available) check_backend(info.name, rank, size);
        if (info.available) check_many_in_flight(info.name, size);
    }
    check_levels();
    check_formula();
    check_env();
    int rc = mt_finish("test_latency");
    MPI_Finalize();
    return rc;
}
