/* Hardening, fifth round (objects and communicators):
 *   - communicators (the counts at 1 rank, fewer at more): 100,000 matrices
 *     made without a destroy all succeed
 *     (every ovkrylov object on a user's communicator shares one inner
 *     duplicate of it; Open MPI aborted near 65,500, MPICH near 2,040);
 *     2,500 reducers of a backend that shares it (blocking; native 500)
 *     succeed;
 *     of one that takes a private duplicate (nbc) each is OVK_OK or, once
 *     MPI has no communicator left, OVK_EMPI on every rank (never an
 *     abort), and after destroying them the library works again;
 *   - a user's communicator freed before its objects: they keep working,
 *     and the inner communicator goes with the last of them (2,100 rounds,
 *     more than MPICH's limit: a leak would run out);
 *   - callbacks: ovk_matrix_update_values, ovk_solver_set_nullspace and
 *     ovk_matrix_set_halo (it hung) from a callback on one rank are OVK_EBUSY there, with nothing collective
 *     (the other ranks' solve goes on);
 *   - options: ovk_options_get_real refuses nan, inf and 1e999; specs refuse
 *     white space ("restart= 5") and a trailing comma; the backend resolved
 *     to the same name from different sources ($OVK_REDUCE_BACKEND on one
 *     rank, the option on the others) is not "different"; replace_every
 *     -2 is "never" as documented; a symmetry failure on another rank is
 *     named with its rank first, not mid-sentence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

static int rank, nranks;

/* one row per rank: the identity */
static int tiny(MPI_Comm comm, ovk_matrix **A)
{
    int r = 0, ptr[2] = {0, 1};
    MPI_Comm_rank(comm, &r);
    ovk_gidx col = r;
    double one = 1.0;
    return ovk_matrix_create_csr(comm, r, 1, ptr, &col, &one, OVK_DUP_REJECT, A);
}

/* 1 when rc is the same on every rank */
static int same_rc(int rc)
{
    int lo = rc, hi = rc;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

/* MPI's limits are per process: 1 rank passes them (Open MPI's 65,536
 * communicators, MPICH's 2,048); more ranks, whose creations cost
 * collectives on an oversubscribed host, check the agreement on fewer. */
static int count(int at_one_rank, int at_more) { return nranks == 1 ? at_one_rank : at_more; }

/* under AddressSanitizer 5,000 (past MPICH's limit): the release build's
 * 100,000 take a minute there */
#if defined(__SANITIZE_ADDRESS__)
enum { MANY_MATRICES = 5000 };
#else
enum { MANY_MATRICES = 100000 };
#endif

static void many_matrices(void)
{
    int N = count(MANY_MATRICES, 400);
    ovk_matrix **all = calloc((size_t)N, sizeof *all);
    int made = 0, rc = OVK_OK;
    double t = MPI_Wtime();
    for (; made < N; made++) {
        rc = tiny(MPI_COMM_WORLD, &all[made]);
        if (rc) break;
    }
    MT_RC(OVK_OK, rc);
    MT_CHECK(same_rc(rc) && same_rc(made), "matrix %d: status %d not the same on every rank", made, rc);
    /* the last one still multiplies */
    ovk_vector *x = NULL, *y = NULL;
    if (made > 0 && !ovk_vector_create(all[made - 1], &x) && !ovk_vector_create(all[made - 1], &y)) {
        ovk_vector_set(x, 2.0);
        MT_RC(OVK_OK, ovk_matvec(all[made - 1], x, y));
        MT_CHECK(ovk_vector_data(y)[0] == 2.0, "y = %g, expected 2", ovk_vector_data(y)[0]);
    }
    ovk_vector_destroy(x);
    ovk_vector_destroy(y);
    for (int i = 0; i < made; i++) MT_RC(OVK_OK, ovk_matrix_destroy(all[i]));
    free(all);
    if (rank == 0) printf("%d matrices without destroy: %d made (%.2f s)\n", N, made, MPI_Wtime() - t);
}

/* n reducers of spec without destroy: OVK_OK, or OVK_EMPI on every rank when
 * may_run_out; then destroyed, and one more made */
static void many_reducers(const char *spec, int n, int may_run_out)
{
    ovk_reducer **all = calloc((size_t)n, sizeof *all);
    int made = 0, rc = OVK_OK;
    for (; made < n; made++) {
        rc = ovk_reducer_create(MPI_COMM_WORLD, spec, &all[made]);
        if (rc) break;
    }
    MT_CHECK(rc == OVK_OK || (may_run_out && rc == OVK_EMPI), "%s reducer %d: status %d (%s)", spec, made, rc,
             ovk_error_detail());
    MT_CHECK(same_rc(rc) && same_rc(made), "%s reducer %d: status %d not the same on every rank", spec, made, rc);
    for (int i = 0; i < made; i++) MT_RC(OVK_OK, ovk_reducer_destroy(all[i]));
    free(all);
    ovk_reducer *red = NULL;
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, spec, &red));
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
    if (rank == 0) printf("%d %s reducers without destroy: %d made, status %s\n", n, spec, made, ovk_status_name(rc));
}

/* the user's communicator freed first, many times */
static void comm_freed_first(void)
{
    int bad = 0, rounds = count(2100, 100);
    for (int i = 0; i < rounds && !bad; i++) {
        MPI_Comm c = MPI_COMM_NULL;
        ovk_matrix *A = NULL, *B = NULL;
        ovk_vector *x = NULL, *y = NULL;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        int rc = tiny(c, &A);
        if (!rc) rc = tiny(c, &B); /* the same inner communicator */
        MPI_Comm_free(&c);
        if (!rc) rc = ovk_vector_create(A, &x);
        if (!rc) rc = ovk_vector_create(A, &y);
        if (!rc) ovk_vector_set(x, 3.0);
        if (!rc) rc = ovk_matvec(A, x, y);
        if (!rc && ovk_vector_data(y)[0] != 3.0) rc = OVK_EINVAL;
        ovk_vector_destroy(x);
        ovk_vector_destroy(y);
        ovk_matrix_destroy(B);
        ovk_matrix_destroy(A);
        MT_CHECK(!rc, "round %d: status %d (%s)", i, rc, ovk_error_detail());
        bad = rc != 0;
    }
}

/* ---- options --------------------------------------------------------------- */

static void options_checks(void)
{
    static const char *const bad[] = {"nan", "inf", "-inf", "1e999"};
    for (int i = 0; i < 4; i++) {
        char *argv[] = {"prog", "-h5_real", (char *)bad[i], NULL};
        double v = 7.0;
        int found = -1;
        MT_RC(OVK_OK, ovk_options_set_args(3, argv));
        MT_RC(OVK_EOPTION, ovk_options_get_real("h5_real", &v, &found));
        MT_CHECK(v == 7.0, "%s: value %g written", bad[i], v);
    }
    char *argv[] = {"prog", "-h5_real", "2.5", NULL};
    double v = 0.0;
    MT_RC(OVK_OK, ovk_options_set_args(3, argv));
    MT_RC(OVK_OK, ovk_options_get_real("h5_real", &v, NULL));
    MT_CHECK(v == 2.5, "2.5 read as %g", v);
    char *none[] = {"prog", NULL};
    MT_RC(OVK_OK, ovk_options_set_args(1, none));

    ovk_reducer *red = NULL;
    MT_RC(OVK_EOPTION, ovk_reducer_create(MPI_COMM_WORLD, "blocking:verify= 1", &red));
    MT_RC(OVK_EOPTION, ovk_reducer_create(MPI_COMM_WORLD, "blocking:verify=1,", &red));
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, "blocking:verify=1", &red));
    MT_RC(OVK_OK, ovk_reducer_destroy(red));

    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    MT_RC(OVK_OK, ovk_laplace_create(MPI_COMM_WORLD, OVK_STENCIL_7, 6, 6, 6, nranks, 1, 1, &A));
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    ovk_vector_set(b, 1.0);
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "gmres:restart= 5"));
    MT_RC(OVK_EOPTION, ovk_solver_setup(s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "gmres:restart=5,"));
    MT_RC(OVK_EOPTION, ovk_solver_setup(s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "cg1"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "replace_every", "-2")); /* < 0: never */
    if (rank == 0) setenv("OVK_REDUCE_BACKEND", "nbc", 1);
    else MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", "nbc"));
    int rc = ovk_solver_solve(s, b, x, &res);
    MT_CHECK(rc == OVK_OK, "nbc from $OVK_REDUCE_BACKEND and from the option: %s (%s)", ovk_status_name(rc),
             ovk_error_detail());
    MT_CHECK(res.replacements == 0, "replace_every -2: %d replacements", res.replacements);
    unsetenv("OVK_REDUCE_BACKEND");
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* a_{n-1,n-2} perturbed on the last rank: the symmetry check fails there */
static void symmetry_detail(void)
{
    enum { N = 6 };
    int start = rank * N, ptr[N + 1], k = 0;
    ovk_gidx cols[3 * N];
    double vals[3 * N];
    int64_t n = (int64_t)N * nranks;
    for (int i = 0; i < N; i++) {
        ptr[i] = k;
        int64_t g = start + i;
        if (g > 0) cols[k] = g - 1, vals[k++] = g == n - 1 ? -1.5 : -1.0;
        cols[k] = g, vals[k++] = 2.0;
        if (g + 1 < n) cols[k] = g + 1, vals[k++] = -1.0;
    }
    ptr[N] = k;
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, N, ptr, cols, vals, OVK_DUP_REJECT, &A));
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_ENOTSYM, ovk_solver_setup(s));
    const char *d = ovk_error_detail();
    char want[32];
    snprintf(want, sizeof want, "rank %d: solver", nranks - 1);
    MT_CHECK(!strstr(d, "and here rank"), "the rank spliced mid-message: %s", d);
    MT_CHECK(rank == nranks - 1 || strncmp(d, want, strlen(want)) == 0, "detail '%s', expected '%s ...'", d, want);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

/* ---- calls from a callback on one rank ------------------------------------ */

typedef struct {
    ovk_matrix *A;
    ovk_solver *s;
    int rc_update, rc_nullspace, rc_halo, called;
} cb_ctx;

static int monitor(ovk_solver *s, int it, double rnorm, double rel, void *vctx)
{
    (void)s, (void)rnorm, (void)rel;
    cb_ctx *c = vctx;
    if (rank != nranks - 1 || it != 1 || c->called) return 0;
    c->called = 1;
    int ptr[2] = {0, 1};
    ovk_gidx col = rank;
    double v = 2.0;
    c->rc_update = ovk_matrix_update_values(c->A, ptr, &col, &v, OVK_DUP_REJECT);
    c->rc_nullspace = ovk_solver_set_nullspace(c->s, 1, 0, NULL);
    c->rc_halo = ovk_matrix_set_halo(c->A, OVK_HALO_PERSISTENT);
    return 0;
}

static void busy_from_callback(void)
{
    enum { N = 40 };
    int start = rank * N, ptr[N + 1];
    ovk_gidx cols[3 * N];
    double vals[3 * N];
    int k = 0;
    for (int i = 0; i < N; i++) { /* the 1-D Laplacian */
        ptr[i] = k;
        int64_t g = start + i, n = (int64_t)N * nranks;
        if (g > 0) cols[k] = g - 1, vals[k++] = -1.0;
        cols[k] = g, vals[k++] = 2.0;
        if (g + 1 < n) cols[k] = g + 1, vals[k++] = -1.0;
    }
    ptr[N] = k;
    cb_ctx c = {0};
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, N, ptr, cols, vals, OVK_DUP_REJECT, &c.A));
    MT_RC(OVK_OK, ovk_solver_create(c.A, &s));
    c.s = s;
    MT_RC(OVK_OK, ovk_solver_set_monitor(s, monitor, &c));
    MT_RC(OVK_OK, ovk_vector_create(c.A, &b));
    MT_RC(OVK_OK, ovk_vector_create(c.A, &x));
    ovk_vector_set(b, 1.0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    if (rank == nranks - 1) {
        MT_RC(OVK_EBUSY, c.rc_update);
        MT_RC(OVK_EBUSY, c.rc_nullspace);
        MT_RC(OVK_EBUSY, c.rc_halo);
    }
    MT_CHECK(res.reason == OVK_REASON_CONVERGED, "reason %d", (int)res.reason);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(c.A);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    many_matrices();
    many_reducers("blocking", count(2500, 200), 0);
    many_reducers("native", count(500, 100), 0);
    many_reducers("nbc", count(2100, 200), 1);
    comm_freed_first();
    busy_from_callback();
    options_checks();
    symmetry_detail();
    int rc = mt_finish("hardening5_objects");
    MPI_Finalize();
    return rc;
}
