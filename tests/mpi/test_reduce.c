/* The reduction API on every available backend: several outstanding
 * requests completed in reverse order, bitwise identical results, request
 * state errors, spec parsing errors, the precedence API > environment >
 * default, and mixing communicators. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

enum { NREQ = 5, COUNT = 7 };

static void check_reverse_order(const char *spec, int rank, int size)
{
    ovk_reducer *red = NULL;
    ovk_request *req[NREQ];
    double send[NREQ][COUNT], recv[NREQ][COUNT];
    int64_t isend[COUNT], irecv[COUNT];
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, spec, &red));
    if (!red) return;
    for (int k = 0; k < NREQ; k++) {
        for (int i = 0; i < COUNT; i++) send[k][i] = tp_value((uint64_t)(1000 * k + 10 * i + rank));
        MT_RC(OVK_OK, ovk_reduce_start(red, send[k], recv[k], COUNT, OVK_DOUBLE, (ovk_op)(k % 3), &req[k]));
    }
    for (int i = 0; i < COUNT; i++) isend[i] = (int64_t)(rank + 1) * (i + 1) * 1000000007LL;
    ovk_request *ireq = NULL;
    MT_RC(OVK_OK, ovk_reduce_start(red, isend, irecv, COUNT, OVK_INT64, OVK_SUM, &ireq));
    for (int k = NREQ - 1; k >= 0; k--) { /* reverse order */
        MT_RC(OVK_OK, ovk_reduce_wait(req[k]));
        MT_RC(OVK_OK, ovk_request_free(req[k]));
        for (int i = 0; i < COUNT; i++) {
            double ref = 0.0, v;
            for (int r = 0; r < size; r++) {
                v = tp_value((uint64_t)(1000 * k + 10 * i + r));
                ref = r == 0 ? v : (k % 3 == OVK_SUM ? ref + v : k % 3 == OVK_MAX ? (v > ref ? v : ref) : (v < ref ? v : ref));
            }
            double tol = k % 3 == OVK_SUM ? 1e-14 * size : 0.0;
            MT_CHECK(recv[k][i] - ref <= tol && ref - recv[k][i] <= tol, "%s: op %d value %g, expected %g", spec, k % 3,
                     recv[k][i], ref);
        }
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, recv[k], COUNT), "%s: results differ between ranks", spec);
    }
    int done = 0;
    while (!done) MT_RC(OVK_OK, ovk_reduce_test(ireq, &done));
    MT_RC(OVK_OK, ovk_reduce_wait(ireq)); /* waiting after a successful test is allowed once */
    for (int i = 0; i < COUNT; i++)
        MT_CHECK(irecv[i] == (int64_t)size * (size + 1) / 2 * (i + 1) * 1000000007LL, "%s: int64 sum", spec);
    MT_RC(OVK_ESTATE, ovk_reduce_wait(ireq)); /* twice */
    MT_RC(OVK_OK, ovk_request_free(ireq));
    MT_RC(OVK_ESTATE, ovk_request_free(ireq)); /* freed twice */
    MT_RC(OVK_ESTATE, ovk_reduce_wait(ireq));  /* waited after free */
    /* count 0 is a trivial reduction */
    MT_RC(OVK_OK, ovk_reduce_start(red, NULL, NULL, 0, OVK_DOUBLE, OVK_SUM, &ireq));
    MT_RC(OVK_OK, ovk_reduce_wait(ireq));
    MT_RC(OVK_OK, ovk_request_free(ireq));
    MT_RC(OVK_EINVAL, ovk_reduce_start(red, send[0], recv[0], -1, OVK_DOUBLE, OVK_SUM, &ireq));
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

/* A request in flight cannot be freed, and the reducer cannot be destroyed. */
static void check_busy(const char *spec)
{
    ovk_reducer *red = NULL;
    ovk_request *req = NULL;
    double v = 1.0, out = 0.0;
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, spec, &red));
    MT_RC(OVK_OK, ovk_reduce_start(red, &v, &out, 1, OVK_DOUBLE, OVK_SUM, &req));
    if (ovk_reducer_caps(red) & OVK_CAP_NONBLOCKING) {
        int rc = ovk_request_free(req);
        MT_CHECK(rc == OVK_EBUSY || rc == OVK_OK, "free in flight gave %d", rc);
        if (rc == OVK_OK) return (void)ovk_reducer_destroy(red); /* it had already completed */
        MT_RC(OVK_EBUSY, ovk_reducer_destroy(red));
    }
    MT_RC(OVK_OK, ovk_reduce_wait(req));
    MT_RC(OVK_OK, ovk_request_free(req));
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

static void check_specs(void)
{
    ovk_reducer *red = NULL;
    MT_RC(OVK_EBACKEND, ovk_reducer_create(MPI_COMM_WORLD, "nosuch", &red));
    MT_CHECK(strstr(ovk_error_detail(), "blocking") != NULL, "unknown backend message lists backends: %s",
             ovk_error_detail());
    MT_RC(OVK_EOPTION, ovk_reducer_create(MPI_COMM_WORLD, "blocking:depth=3", &red));
    MT_RC(OVK_EOPTION, ovk_reducer_create(MPI_COMM_WORLD, "native:persistent=7", &red));
    MT_RC(OVK_EOPTION, ovk_reducer_create(MPI_COMM_WORLD, "native:persistent", &red));
    MT_RC(OVK_EBACKEND, ovk_reducer_create(MPI_COMM_WORLD, ":x=1", &red));
    MT_CHECK(red == NULL, "failed create left a reducer");
    MT_CHECK(ovk_backend_count() >= 2, "at least blocking and native");
}

/* API handle > API name > $OVK_REDUCE_BACKEND > "blocking". */
static void check_precedence(void)
{
    ovk_reducer *red = NULL;
    unsetenv(OVK_BACKEND_ENV);
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, NULL, &red));
    MT_CHECK(red && !strcmp(ovk_reducer_name(red), "blocking"), "default backend");
    ovk_reducer_destroy(red);
    setenv(OVK_BACKEND_ENV, "native", 1);
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, NULL, &red));
    MT_CHECK(red && !strcmp(ovk_reducer_name(red), "native"), "environment backend");
    ovk_reducer_destroy(red);
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, "blocking", &red));
    MT_CHECK(red && !strcmp(ovk_reducer_name(red), "blocking"), "API name beats environment");
    ovk_reducer_destroy(red);
    setenv(OVK_BACKEND_ENV, "nosuch", 1);
    MT_RC(OVK_EBACKEND, ovk_reducer_create(MPI_COMM_WORLD, NULL, &red));

    /* through the solve options: a handle beats a name, a name beats the environment */
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_options o;
    ovk_pcg_result res;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 7, 6, 0.0, &A));
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    ovk_vector_set(b, 1.0);
    ovk_pcg_options_init(&o);
    MT_RC(OVK_EBACKEND, ovk_pcg_solve(A, b, x, &o, &res)); /* environment says nosuch */
    o.backend = "native";
    MT_RC(OVK_OK, ovk_pcg_solve(A, b, x, &o, &res));
    ovk_reducer *mine = NULL;
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, "blocking", &mine));
    o.reducer = mine;
    o.backend = "nosuch"; /* ignored: the handle wins */
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_pcg_solve(A, b, x, &o, &res));
    unsetenv(OVK_BACKEND_ENV);
    ovk_reducer_destroy(mine);

    /* a reducer on another communicator is refused */
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) {
        MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_SELF, "blocking", &mine));
        o.reducer = mine;
        MT_RC(OVK_EMISMATCH, ovk_pcg_solve(A, b, x, &o, &res));
        ovk_reducer_destroy(mine);
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int k = 0; k < ovk_backend_count(); k++) {
        ovk_backend_info info;
        ovk_backend_get_info(k, &info);
        if (!info.available) continue;
        check_reverse_order(info.name, rank, size);
        check_busy(info.name);
    }
    check_reverse_order("native:persistent=1", rank, size);
    check_specs();
    check_precedence();
    int rc = mt_finish("test_reduce");
    MPI_Finalize();
    return rc;
}
