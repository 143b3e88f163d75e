/* The reduction API on every available backend: several outstanding
 * requests completed in reverse order, bitwise identical results, request
 * state errors, spec parsing errors, a NULL output on one rank and an
 * environment that names different backends on different ranks (the
 * same status everywhere), the precedence API > environment >
 * default, and mixing communicators. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Buffers swapped, reused, interleaved and at rank-dependent addresses:
 * x_{k+1} = sum over ranks of x_k, with x_0 = rank + 1,
 * in integers and in integer-valued doubles, so every result is exact.  A
 * backend that keys state by buffer address gives wrong sums or hangs. */
enum { NPOOL = 6 };

static void check_buffer_games(const char *spec, int rank, int size)
{
    ovk_reducer *red = NULL;
    ovk_request *req[4];
    int64_t ipool[NPOOL][3];
    double dpool[NPOOL][3];
    int64_t a[3], b[3];
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, spec, &red));
    if (!red) return;
    int64_t sum0 = (int64_t)size * (size + 1) / 2; /* sum of rank + 1 */
    /* ping-pong: a -> b, then b -> a, then a -> b again */
    for (int i = 0; i < 3; i++) a[i] = (rank + 1) * (i + 1);
    for (int round = 0; round < 4; round++) {
        int64_t *src = round % 2 ? b : a, *dst = round % 2 ? a : b;
        MT_RC(OVK_OK, ovk_reduce_start(red, src, dst, 3, OVK_INT64, OVK_SUM, &req[0]));
        MT_RC(OVK_OK, ovk_reduce_wait(req[0]));
        MT_RC(OVK_OK, ovk_request_free(req[0]));
        int64_t want = sum0;
        for (int k = 0; k < round; k++) want *= size;
        for (int i = 0; i < 3; i++)
            MT_CHECK(dst[i] == want * (i + 1), "%s: swapped buffers round %d: %lld, expected %lld", spec, round,
                     (long long)dst[i], (long long)(want * (i + 1)));
    }
    /* rank-dependent buffer addresses, two reductions interleaved, one in place */
    for (int step = 0; step < 12; step++) {
        int s0 = (step + rank) % NPOOL, s1 = (step + 2 * rank + 1) % NPOOL;
        if (s1 == s0) s1 = (s1 + 1) % NPOOL;
        for (int i = 0; i < 3; i++) {
            ipool[s0][i] = (int64_t)(rank + 1) * (step + i + 1);
            dpool[s1][i] = (double)((rank + 1) * (step - i));
        }
        ovk_op op = step % 3 == 2 ? OVK_MAX : OVK_SUM;
        MT_RC(OVK_OK, ovk_reduce_start(red, ipool[s0], ipool[s0], 3, OVK_INT64, OVK_SUM, &req[0]));
        MT_RC(OVK_OK, ovk_reduce_start(red, dpool[s1], dpool[(s1 + 1) % NPOOL], 3, OVK_DOUBLE, op, &req[1]));
        MT_RC(OVK_OK, ovk_reduce_wait(req[step % 2]));
        MT_RC(OVK_OK, ovk_reduce_wait(req[1 - step % 2]));
        MT_RC(OVK_OK, ovk_request_free(req[0]));
        MT_RC(OVK_OK, ovk_request_free(req[1]));
        double *dres = dpool[(s1 + 1) % NPOOL];
        for (int i = 0; i < 3; i++) {
            int64_t iwant = sum0 * (step + i + 1);
            double dwant = op == OVK_SUM ? (double)sum0 * (step - i) : (double)(step - i) * (step - i >= 0 ? size : 1);
            MT_CHECK(ipool[s0][i] == iwant, "%s: step %d in place: %lld, expected %lld", spec, step,
                     (long long)ipool[s0][i], (long long)iwant);
            MT_CHECK(dres[i] == dwant, "%s: step %d: %g, expected %g", spec, step, dres[i], dwant);
        }
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, ipool[s0], 3), "%s: step %d: results differ between ranks", spec,
                 step);
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, dres, 3), "%s: step %d: results differ between ranks", spec, step);
    }
    /* rank 0 reuses one pair of buffers, the others take fresh ones each time
     * (more than any cache of buffer addresses holds) */
    double *walk = calloc(2 * 80, sizeof *walk);
    for (int it = 0; it < 80 && walk; it++) {
        double *in = rank == 0 ? walk : walk + 2 * it, *out = in + 1;
        *in = (double)(rank + 1 + it);
        MT_RC(OVK_OK, ovk_reduce_start(red, in, out, 1, OVK_DOUBLE, OVK_SUM, &req[0]));
        MT_RC(OVK_OK, ovk_reduce_wait(req[0]));
        MT_RC(OVK_OK, ovk_request_free(req[0]));
        MT_CHECK(*out == (double)(sum0 + (int64_t)size * it), "%s: fresh buffers %d: %g, expected %g", spec, it, *out,
                 (double)(sum0 + (int64_t)size * it));
    }
    free(walk);
    /* more reductions of one shape in flight than a backend may keep requests
     * for, completed in reverse order */
    double many_in[9], many_out[9];
    ovk_request *many[9];
    for (int k = 0; k < 9; k++) {
        many_in[k] = (double)((rank + 1) * (k + 1));
        MT_RC(OVK_OK, ovk_reduce_start(red, &many_in[k], &many_out[k], 1, OVK_DOUBLE, OVK_SUM, &many[k]));
    }
    for (int k = 8; k >= 0; k--) {
        MT_RC(OVK_OK, ovk_reduce_wait(many[k]));
        MT_RC(OVK_OK, ovk_request_free(many[k]));
        MT_CHECK(many_out[k] == (double)(sum0 * (k + 1)), "%s: in flight %d: %g", spec, k, many_out[k]);
    }
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

/* A request in flight cannot be freed, and the reducer cannot be destroyed
 * while one is outstanding on any rank: OVK_EBUSY on every rank, also on a
 * rank whose request had completed and was freed (it must not enter the
 * collective destroy alone). */
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
        if (rc == OVK_OK) req = NULL; /* it had already completed here */
    }
    int busy = req != NULL;
    MPI_Allreduce(MPI_IN_PLACE, &busy, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (busy) MT_RC(OVK_EBUSY, ovk_reducer_destroy(red));
    if (req) {
        MT_RC(OVK_OK, ovk_reduce_wait(req));
        MT_RC(OVK_OK, ovk_request_free(req));
    }
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
    /* a NULL output on the last rank only: OVK_EINVAL on every rank, agreed
     * before the others enter any other collective (they used to wait there) */
    int me = 0, np = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MT_RC(OVK_EINVAL, ovk_reducer_create(MPI_COMM_WORLD, "native", me == np - 1 ? NULL : &red));
    MT_CHECK(red == NULL, "create with a NULL output on rank %d left a reducer", np - 1);
    /* $OVK_REDUCE_BACKEND that differs between ranks: OVK_EBACKEND on every
     * rank (the ranks made different backends before) */
    const char *env = getenv("OVK_REDUCE_BACKEND");
    char *saved = env ? strdup(env) : NULL;
    setenv("OVK_REDUCE_BACKEND", me == np - 1 ? "blocking" : "native", 1);
    int rc = ovk_reducer_create(MPI_COMM_WORLD, NULL, &red);
    MT_CHECK(rc == (np > 1 ? OVK_EBACKEND : OVK_OK), "environment differing across %d ranks: %s", np,
             ovk_status_name(rc));
    if (!rc) ovk_reducer_destroy(red);
    red = NULL;
    if (saved) setenv("OVK_REDUCE_BACKEND", saved, 1);
    else unsetenv("OVK_REDUCE_BACKEND");
    free(saved);
    MT_CHECK(ovk_backend_count() >= 2, "at least blocking and native");
}

/* ovk_backend_caps answers without creating: fixed answers, errors, and for
 * the specs this process can create (MPI_Init: no thread) the caps of the
 * reducer. */
static void check_caps_query(void)
{
    static const char *const specs[] = {"blocking", "native", "native:persistent=1", "nbc", "nbc:alg=rsa",
                                        "offload", "offload:engine=fabric", "blocking:verify=1"};
    unsigned caps = 0u;
    MT_RC(OVK_OK, ovk_backend_caps("nbc:thread=1", &caps));
    MT_CHECK(caps == (OVK_CAP_NONBLOCKING | OVK_CAP_ASYNC | OVK_CAP_NEEDS_THREADS), "nbc:thread=1 caps %#x", caps);
    MT_RC(OVK_OK, ovk_backend_caps("nbc", &caps));
    MT_CHECK(caps == (OVK_CAP_NONBLOCKING | OVK_CAP_NEEDS_TEST | OVK_CAP_SCHEDULED), "nbc caps %#x", caps);
    MT_RC(OVK_OK, ovk_backend_caps("offload:engine=agent", &caps));
    MT_CHECK(caps == (OVK_CAP_NONBLOCKING | OVK_CAP_ASYNC | OVK_CAP_NEEDS_THREADS), "agent caps %#x", caps);
    MT_RC(OVK_OK, ovk_backend_caps("offload:engine=fabric", &caps));
    MT_CHECK(caps == (OVK_CAP_NONBLOCKING | OVK_CAP_ASYNC), "fabric caps %#x", caps);
    unsetenv(OVK_BACKEND_ENV);
    MT_RC(OVK_OK, ovk_backend_caps(NULL, &caps));
    MT_CHECK(caps == 0u, "default (blocking) caps %#x", caps);
    MT_RC(OVK_EBACKEND, ovk_backend_caps("nosuch", &caps));
    MT_RC(OVK_EOPTION, ovk_backend_caps("nbc:thread=2", &caps));
    MT_RC(OVK_EOPTION, ovk_backend_caps("offload:engine=gpu", &caps));
    MT_RC(OVK_EINVAL, ovk_backend_caps("nbc", NULL));
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        ovk_reducer *red = NULL;
        MT_RC(OVK_OK, ovk_backend_caps(specs[i], &caps));
        if (caps & OVK_CAP_NEEDS_THREADS) { /* offload falling back to the agent thread */
            MT_RC(OVK_EUNSUPPORTED, ovk_reducer_create(MPI_COMM_WORLD, specs[i], &red));
            continue;
        }
        if (ovk_reducer_create(MPI_COMM_WORLD, specs[i], &red)) continue; /* e.g. no fabric provider */
        MT_CHECK(ovk_reducer_caps(red) == caps, "%s: caps %#x, query %#x", specs[i], ovk_reducer_caps(red), caps);
        ovk_reducer_destroy(red);
    }
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
    alarm(120); /* a backend whose ranks disagree hangs: fail instead */
    for (int k = 0; k < ovk_backend_count(); k++) {
        ovk_backend_info info;
        ovk_backend_get_info(k, &info);
        if (info.available) check_buffer_games(info.name, rank, size);
    }
    check_buffer_games("native:persistent=1", rank, size);
    check_buffer_games("native:persistent=1,verify=1", rank, size);
    alarm(0);
    check_reverse_order("native:persistent=1", rank, size);
    check_reverse_order("blocking:verify=1", rank, size);
    check_reverse_order("native:verify=1", rank, size);
    check_reverse_order("native:persistent=1,verify=1", rank, size);
    check_specs();
    check_caps_query();
    check_precedence();
    int rc = mt_finish("test_reduce");
    MPI_Finalize();
    return rc;
}
