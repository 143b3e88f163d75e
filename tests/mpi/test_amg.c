/* MPI test: the amg preconditioner (hypre's BoomerAMG, src/precond/amg.c).
 *
 * In a build without hypre: asking for setup=boomeramg is OVK_EUNSUPPORTED
 * on every rank with a detail that says it is not in this build, and the
 * default amg (our setup=agg) converges on a small Laplacian; nothing else
 * runs (test_amg_agg covers setup=agg).
 *
 * With hypre (rows split unevenly, the last rank owning none from 3 ranks):
 *  - every symmetric solver (alg1, cg1, pipecg, groppcg, pipeprcg, plcg:l=2)
 *    on every backend converges on the 27-point Laplacian (12^3) with a true
 *    residual ||b - A x|| / ||b|| below the tolerance (1e-8) in at most 20
 *    iterations (the defaults' aggressive coarsening: 13 at 2 ranks; the
 *    denser hierarchy of degree 2 and HMIS took 5-7), with the default cycle (ours, cycle=ovk) and, for alg1
 *    and pipecg, with hypre's (cycle=hypre); alg2 and overlap refuse amg (no
 *    split form);
 *  - the coarse levels in float (precision=single) against double on the
 *    16^3 Laplacian: both converge, iteration counts within one;
 *  - our cycle against hypre's with the same smoother (l1jacobi, 1 and 2
 *    sweeps) on the 16^3 Laplacian: iteration counts within 25 % (+1) of
 *    each other (measured at 2 and 3 ranks: 11 and 11, 7 and 7);
 *  - alg1 and pipeprcg converge on every shared SPD matrix, b = A 1 (alg1 with nbc
 *    on all 17, pipeprcg on those that alg1 + amg solves in under 200
 *    iterations) with a true residual below 1e-6 (the bound test_matrices
 *    uses: on bcsstk13, bcsstk25 and plat362, cond2 > 1e8, the recursive
 *    residual drifts from the true one by orders);
 *  - mesh independence: alg1 + amg on the Laplacian at 16^3, 32^3 and 48^3
 *    (16^3, 24^3, 32^3 in the sanitizer build):
 *    the largest count at most 1.3x the smallest, where Jacobi's grows by
 *    at least 3/4 of the ratio of the sizes (measured at 2 ranks: amg 14-15, 16, 16;
 *    Jacobi 37, 69, 102);
 *  - a value update gives a new hierarchy (the next solve converges on the
 *    new values, the iteration count of a fresh object);
 *  - bad input, each the same code on every rank, no hang: an unknown key,
 *    out-of-range values, an unknown cycle, a smoother our cycle does not
 *    run, an unknown precision or single with hypre's cycle (OVK_EOPTION), a block size that does not divide
 *    the rows (OVK_EOPTION naming it), zero and negative diagonals
 *    (OVK_EZERODIAG), coordinates of the wrong dimension, a user operator
 *    (OVK_EUNSUPPORTED).  A failure inside hypre's setup (reported as
 *    OVK_EPRECOND) is checked by tests/driver/elasticity.sh, which has an
 *    elasticity problem to provoke one.
 *
 * Exit 0 = PASS, 1 = FAIL, 77 = skipped (the shared matrices are absent:
 * only their part is skipped). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

typedef struct outcome {
    int rc, iterations;
    double true_rel; /* ||b - A x|| / ||b|| */
} outcome;

/* Collective: set up solver sv with backend be and preconditioner pc on A. */
static int make_solver(const ovk_matrix *A, const char *sv, const char *be, const char *pc, ovk_solver **s)
{
    int rc = ovk_solver_create(A, s);
    if (!rc) rc = ovk_solver_set_option(*s, "solver", sv);
    if (!rc) rc = ovk_solver_set_option(*s, "backend", be);
    if (!rc) rc = ovk_solver_set_option(*s, "precond", pc);
    if (!rc) rc = ovk_solver_set_tolerances(*s, 1e-8, 0.0, 5000);
    if (rc) return rc;
    return ovk_solver_setup(*s);
}

/* Collective: the setup of pc on A fails with `expected` on every rank. */
static void expect_setup(const ovk_matrix *A, const char *sv, const char *pc, int expected, const char *detail)
{
    ovk_solver *s = NULL;
    int rc = make_solver(A, sv, "blocking", pc, &s);
    MT_CHECK(rc == expected, "%s with %s: %s (%s), expected %s", sv, pc, ovk_status_name(rc), ovk_error_detail(),
             ovk_status_name(expected));
    MT_CHECK(!detail || strstr(ovk_error_detail(), detail), "%s: detail '%s' lacks '%s'", pc, ovk_error_detail(), detail);
    ovk_solver_destroy(&s);
}

#ifndef OVK_HAVE_HYPRE
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 6, 0.0, &A));
    expect_setup(A, "alg1", "amg:setup=boomeramg", OVK_EUNSUPPORTED, "not in this build");
    /* the default is then our aggregation hierarchy: a solve converges */
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res = {0};
    MT_RC(OVK_OK, make_solver(A, "cg1", "blocking", "amg", &s));
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    MT_RC(OVK_OK, ovk_vector_set(b, 1.0));
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    MT_CHECK(res.iterations >= 1 && res.iterations <= 12, "amg (setup=agg) on the 27-point Laplacian 6^3: %d iterations",
             res.iterations);
    ovk_vector_destroy(b), ovk_vector_destroy(x);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
    int rc = mt_finish("test_amg (no hypre in this build: setup=agg)");
    MPI_Finalize();
    return rc;
}
#else

static int g_rank, g_size;

static const char *const solvers[] = {"alg1", "cg1", "pipecg", "groppcg", "pipeprcg", "plcg:l=2"};
static const char *const backends[] = {"blocking", "native", "nbc", "offload:engine=agent"};
enum { NSOLVERS = 6, NBACKENDS = 4 };

/* b = A 1 (the shared matrices, as test_matrices: plat362, cond2 2e12,
 * takes alg1 + amg 10^4 iterations from a random b) instead of a random b */
static int g_rhs_aones;

/* Collective: solve A x = b (x0 = 0) with s and measure the true residual. */
static outcome solve_with(const ovk_matrix *A, ovk_solver *s)
{
    outcome out = {0, 0, INFINITY};
    ovk_vector *b = NULL, *x = NULL, *r = NULL;
    ovk_pcg_result res;
    ovk_vector_create(A, &b), ovk_vector_create(A, &x), ovk_vector_create(A, &r);
    for (int i = 0; i < ovk_vector_nlocal(b); i++) ovk_vector_data(b)[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    if (g_rhs_aones) {
        ovk_vector_set(x, 1.0);
        ovk_matvec(A, x, b); /* b = A 1 */
        ovk_vector_set(x, 0.0);
    }
    out.rc = ovk_solver_solve(s, b, x, &res);
    out.iterations = res.iterations;
    double nb = 0.0, nr = 0.0;
    ovk_matvec(A, x, r);                 /* r = A x */
    ovk_vector_axpy(-1.0, b, r);         /* r = A x - b */
    ovk_vector_norm2(b, &nb);
    ovk_vector_norm2(r, &nr);
    out.true_rel = nr / nb;
    ovk_vector_destroy(b), ovk_vector_destroy(x), ovk_vector_destroy(r);
    return out;
}

static outcome solve_once(const ovk_matrix *A, const char *sv, const char *be, const char *pc)
{
    ovk_solver *s = NULL;
    outcome out = {make_solver(A, sv, be, pc, &s), 0, INFINITY};
    if (!out.rc) out = solve_with(A, s);
    ovk_solver_destroy(&s);
    return out;
}


/* every symmetric solver on every backend, the Laplacian */
static void test_laplace_combinations(void)
{
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 12, 0.0, &A));
    for (int v = 0; v < NSOLVERS; v++)
        for (int b = 0; b < NBACKENDS; b++) {
            outcome o = solve_once(A, solvers[v], backends[b], "amg");
            MT_CHECK(o.rc == OVK_OK && o.true_rel < 1e-8 && o.iterations <= 20,
                     "%s/%s + amg: %s, %d iterations, true residual %.2e", solvers[v], backends[b],
                     ovk_status_name(o.rc), o.iterations, o.true_rel);
        }
    static const char *const hypre_solvers[] = {"alg1", "pipecg"};
    for (int v = 0; v < 2; v++) {
        outcome o = solve_once(A, hypre_solvers[v], "nbc", "amg:cycle=hypre");
        MT_CHECK(o.rc == OVK_OK && o.true_rel < 1e-8 && o.iterations <= 20,
                 "%s/nbc + amg:cycle=hypre: %s, %d iterations, true residual %.2e", hypre_solvers[v],
                 ovk_status_name(o.rc), o.iterations, o.true_rel);
    }
    expect_setup(A, "alg2", "amg", OVK_EUNSUPPORTED, "split");
    expect_setup(A, "overlap", "amg", OVK_EUNSUPPORTED, "split");
    ovk_matrix_destroy(A);
}

/* the shared matrix `name` split by tp_split, or NULL when absent */
static ovk_matrix *read_shared(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.mtx", OVK_MATRIX_DIR, name);
    int64_t start = 0;
    int count = 0, n = 0, *ptr = NULL, rc;
    ovk_gidx nglobal = 0, *cols = NULL;
    double *vals = NULL;
    ovk_matrix *A = NULL;
    if (ovk_mm_read_rows(path, 0, 0, &nglobal, &n, &ptr, &cols, &vals)) return NULL;
    free(ptr), free(cols), free(vals);
    tp_split(nglobal, g_rank, g_size, &start, &count);
    rc = ovk_mm_read_rows(path, start, count, &nglobal, &n, &ptr, &cols, &vals);
    MT_RC(OVK_OK, rc);
    if (!rc) MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_SUM, &A));
    free(ptr), free(cols), free(vals);
    return A;
}

static int test_shared_matrices(void)
{
    static const char *const names[] = {"LFAT5",   "bcsstk02", "pts5ldd03", "494_bus",  "gr_30_30", "nos3",
                                        "bcsstk09", "1138_bus", "lap2D_5pt_n100", "bcsstk03", "plat362",
                                        "685_bus",  "bcsstk08", "bcsstk14", "bcsstk13", "bcsstk25", "lap3D_7pt_n20"};
    int found = 0;
    g_rhs_aones = 1;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        ovk_matrix *A = read_shared(names[k]);
        if (!A) continue;
        found++;
        outcome o = solve_once(A, "alg1", "nbc", "amg");
        MT_CHECK(o.rc == OVK_OK && o.true_rel < 1e-6, "%s: alg1 + amg: %s, %d iterations, true residual %.2e",
                 names[k], ovk_status_name(o.rc), o.iterations, o.true_rel);
        if (o.rc == OVK_OK && o.iterations < 200) {
            outcome p = solve_once(A, "pipeprcg", "nbc", "amg");
            MT_CHECK(p.rc == OVK_OK && p.true_rel < 1e-6, "%s: pipeprcg + amg: %s, %d iterations, true residual %.2e",
                     names[k], ovk_status_name(p.rc), p.iterations, p.true_rel);
        }
        ovk_matrix_destroy(A);
    }
    g_rhs_aones = 0;
    return found;
}

/* alg1 iterations on the g^3 Laplacian with pc */
static int laplace_iterations(int g, const char *pc)
{
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, g, 0.0, &A));
    outcome o = solve_once(A, "alg1", "blocking", pc);
    MT_CHECK(o.rc == OVK_OK && o.true_rel < 1e-8, "%d^3 + %s: %s, true residual %.2e", g, pc, ovk_status_name(o.rc),
             o.true_rel);
    ovk_matrix_destroy(A);
    return o.iterations;
}

static void test_mesh_independence(void)
{
#ifdef __SANITIZE_ADDRESS__
    static const int sizes[] = {16, 24, 32}; /* the sanitizer build: 48^3 took most of its 150 s at 4 ranks */
#else
    static const int sizes[] = {16, 32, 48};
#endif
    int amg[3], jac[3];
    for (int k = 0; k < 3; k++) {
        amg[k] = laplace_iterations(sizes[k], "amg");
        jac[k] = laplace_iterations(sizes[k], "jacobi");
    }
    if (g_rank == 0)
        printf("alg1 iterations at %d^3, %d^3, %d^3: amg %d %d %d, jacobi %d %d %d\n", sizes[0], sizes[1], sizes[2],
               amg[0], amg[1], amg[2], jac[0], jac[1], jac[2]);
    MT_CHECK(amg[2] <= 1.3 * amg[0] && amg[1] <= 1.3 * amg[0], "amg grows with the mesh: %d %d %d", amg[0], amg[1],
             amg[2]);
    /* Jacobi-CG's count grows as 1/h, i.e. with g: at least 3/4 of that */
    MT_CHECK(jac[2] >= 0.75 * sizes[2] / sizes[0] * jac[0],
             "jacobi does not grow with the mesh (%d %d %d): the check cannot discriminate", jac[0], jac[1], jac[2]);
}

/* our V-cycle against hypre's with the same smoother: close iteration counts */
static void test_cycles(void)
{
    static const char *const pairs[][2] = {
        {"amg:cycle=ovk,smoother=l1jacobi", "amg:cycle=hypre,smoother=l1jacobi"},
        {"amg:cycle=ovk,smoother=l1jacobi,sweeps=2", "amg:cycle=hypre,smoother=l1jacobi,sweeps=2"},
    };
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 16, 0.0, &A));
    for (int k = 0; k < 2; k++) {
        outcome o = solve_once(A, "cg1", "nbc", pairs[k][0]), h = solve_once(A, "cg1", "nbc", pairs[k][1]);
        if (g_rank == 0) printf("16^3, cg1: %s %d iterations, %s %d\n", pairs[k][0], o.iterations, pairs[k][1], h.iterations);
        MT_CHECK(o.rc == OVK_OK && h.rc == OVK_OK && o.true_rel < 1e-8 && h.true_rel < 1e-8, "%s: %s, %s: %s",
                 pairs[k][0], ovk_status_name(o.rc), pairs[k][1], ovk_status_name(h.rc));
        MT_CHECK(o.iterations <= 1.25 * h.iterations + 1 && h.iterations <= 1.25 * o.iterations + 1,
                 "%s: %d iterations, %s: %d", pairs[k][0], o.iterations, pairs[k][1], h.iterations);
    }
    ovk_matrix_destroy(A);
}

/* the coarse levels in float (our transfers, float A_l) against double: the
 * same convergence, on a Laplacian whose levels have halos from 2 ranks */
static void test_precision(void)
{
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 16, 0.0, &A));
    outcome f = solve_once(A, "cg1", "nbc", "amg:precision=single");
    outcome d = solve_once(A, "cg1", "nbc", "amg:precision=double");
    if (g_rank == 0) printf("16^3, cg1 + amg: %d iterations in single precision, %d in double\n", f.iterations, d.iterations);
    MT_CHECK(f.rc == OVK_OK && d.rc == OVK_OK && f.true_rel < 1e-8 && d.true_rel < 1e-8,
             "precision=single: %s (true residual %.2e), double: %s (%.2e)", ovk_status_name(f.rc), f.true_rel,
             ovk_status_name(d.rc), d.true_rel);
    MT_CHECK(f.iterations <= d.iterations + 1 && d.iterations <= f.iterations + 1,
             "precision=single: %d iterations, double: %d", f.iterations, d.iterations);
    ovk_matrix_destroy(A);
}

/* the Laplacian with a shift, updated in place through ovk_matrix_update_values */
static void test_value_update(void)
{
    ovk_matrix *A = NULL, *B = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 12, 0.0, &A));
    MT_RC(OVK_OK, make_solver(A, "pipecg", "nbc", "amg:reuse=0", &s)); /* every update a full setup */
    outcome first = solve_with(A, s);
    MT_CHECK(first.rc == OVK_OK && first.true_rel < 1e-8, "before the update: %s", ovk_status_name(first.rc));
    /* new values, same pattern: a diagonal shift of 5 (B is the reference) */
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 12, 5.0, &B));
    int *ptr = NULL;
    ovk_gidx *cols = NULL;
    double *vals = NULL;
    tp_laplace_rows(27, 12, 5.0, ovk_matrix_row_start(A), ovk_matrix_nlocal(A), &ptr, &cols, &vals);
    MT_RC(OVK_OK, ovk_matrix_update_values(A, ptr, cols, vals, OVK_DUP_REJECT));
    outcome after = solve_with(A, s);
    outcome fresh = solve_once(B, "pipecg", "nbc", "amg");
    MT_CHECK(after.rc == OVK_OK && after.true_rel < 1e-8 && after.iterations == fresh.iterations,
             "after the update: %s, %d iterations (a fresh object: %d), true residual %.2e",
             ovk_status_name(after.rc), after.iterations, fresh.iterations, after.true_rel);
    free(ptr), free(cols), free(vals);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
    ovk_matrix_destroy(B);
}

static int apply_identity(ovk_solver *s, const double *in, double *out, void *ctx)
{
    (void)ctx;
    memcpy(out, in, sizeof(double) * (size_t)ovk_solver_nlocal(s));
    return 0;
}

static void test_bad_input(void)
{
    ovk_matrix *A = NULL, *Z = NULL, *N = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 8, 0.0, &A));
    expect_setup(A, "alg1", "amg:foo=1", OVK_EOPTION, "foo");
    expect_setup(A, "alg1", "amg:strong_threshold=2", OVK_EOPTION, "strong_threshold");
    expect_setup(A, "alg1", "amg:coarsen=bogus", OVK_EOPTION, "coarsen");
    expect_setup(A, "alg1", "amg:nodal=2", OVK_EOPTION, "bs > 1");
    expect_setup(A, "alg1", "amg:cycle=bogus", OVK_EOPTION, "cycle");
    expect_setup(A, "alg1", "amg:degree=0", OVK_EOPTION, "degree");
    expect_setup(A, "alg1", "amg:ratio=0.5", OVK_EOPTION, "ratio");
    expect_setup(A, "alg1", "amg:cycle=ovk,smoother=l1gs", OVK_EOPTION, "cycle=hypre");
    expect_setup(A, "alg1", "amg:precision=half", OVK_EOPTION, "precision");
    expect_setup(A, "alg1", "amg:cycle=hypre,precision=single", OVK_EOPTION, "cycle=ovk");
    /* 512 rows split 2:3:4 never give every rank a multiple of 5 */
    expect_setup(A, "alg1", "amg:bs=5", OVK_EOPTION, "does not divide");
    /* coordinates of dimension 2 for bs = 1: ignored; for a bs they do not fit: refused */
    ovk_solver *s = NULL;
    double xyz[2] = {0.0, 0.0};
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "amg"));
    MT_RC(OVK_OK, ovk_solver_set_coordinates(s, 2, ovk_matrix_nlocal(A) > 0 ? 1 : 0, xyz));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    ovk_solver_destroy(&s);
    /* zero and negative diagonals */
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 8, -26.0, &Z));
    expect_setup(Z, "alg1", "amg", OVK_EZERODIAG, "amg");
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 8, -30.0, &N));
    expect_setup(N, "cg1", "amg", OVK_EZERODIAG, "amg");
    /* a user operator has no matrix to coarsen */
    MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, ovk_matrix_nlocal(A), apply_identity, NULL, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "amg"));
    int rc = ovk_solver_setup(s);
    MT_CHECK(rc == OVK_EUNSUPPORTED, "amg on a user operator: %s", ovk_status_name(rc));
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
    ovk_matrix_destroy(Z);
    ovk_matrix_destroy(N);
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided); /* offload's agent thread */
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    test_laplace_combinations();
    test_cycles();
    test_precision();
    test_mesh_independence();
    test_value_update();
    test_bad_input();
    int found = test_shared_matrices();
    if (g_rank == 0 && !found) printf("test_amg: no shared matrices in %s: that part skipped\n", OVK_MATRIX_DIR);
    int rc = mt_finish("test_amg");
    MPI_Finalize();
    return rc;
}
#endif
