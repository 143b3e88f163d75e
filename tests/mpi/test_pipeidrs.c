/* MPI test: pipelined IDR(s) (solver pipeidrs).
 *
 *  - a dense reference: a small nonsymmetric matrix (60 rows, the last rank
 *    without rows at 2 ranks or more) every rank builds whole and solves by
 *    Gaussian elimination (idr_common.h); pipeidrs:s=1, 2, 4, 8
 *    with none and jacobi to rtol 1e-12 match its x to 1e-9 and finish
 *    within 2 N steps (IDR(s) ends in N + N/s in exact arithmetic);
 *  - the shared nonsymmetric matrices (OVK_NONSYM_DIR; skipped when absent)
 *    where idrs converges (test_idrs.c), s = 4: converged, the true
 *    residual below rtol 1e-8;
 *  - convection-diffusion at Peclet 1000 (upwind) with jacobi, ilu0 and
 *    eisenstat, s = 1, 2, 4, 8: converged, in as many steps as idrs give or
 *    take 10 % (and 2 steps): the same iterates in exact arithmetic; one
 *    solve with a monitor (one call a step, the history) on native;
 *  - replace_every=7 (the residual replaced at the end of the cycle, the
 *    subspace kept): one replacement each 7 steps, converged within the
 *    same margin of idrs;
 *  - the pipeline, counted by PMPI on native with a matrix-free operator
 *    (block diagonal: no halo) and a preconditioner callback: one
 *    MPI_Iallreduce a step, and at every preconditioner application and
 *    every product of the steps a reduction posted and not yet completed
 *    (idrs: none); that product failing, or turning NaN, on the last rank
 *    while a reduction is in flight: OVK_ECALLBACK (OVK_ENONFINITE) on
 *    every rank, x finite;
 *  - a preconditioner that turns NaN at its 12th application (step 11's):
 *    reason non-finite at step 11, OVK_ENONFINITE on every rank, x finite;
 *  - bad input, the same status on every rank: s = 0, -1, 65 and an
 *    unknown key (OVK_EOPTION naming pipeidrs), s = 8 on a 5-row system
 *    (OVK_EOPTION at setup naming s=8).
 * Runs at any rank count. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

#include "count_reductions.h"
#include "nonsym_common.h"
#include "idr_common.h"

/* with a matrix-free block-diagonal operator nothing but the reductions
 * calls MPI_Wait or MPI_Test during a solve (count_reductions.h's n_done) */

static const char *const specs[] = {"pipeidrs:s=1", "pipeidrs:s=2", "pipeidrs:s=4", "pipeidrs:s=8"};
static const char *const idrs_specs[] = {"idrs:s=1", "idrs:s=2", "idrs:s=4", "idrs:s=8"};
enum { NSPECS = 4 };

/* the margin of pipeidrs's steps about idrs's: rounding only */
static int within_margin(int pipe, int idrs) { return abs(pipe - idrs) <= 2 + idrs / 10; }

static outcome run(ovk_matrix *A, const char *solver, const char *pc, const char *backend, int monitor)
{
    ns_run r = {.solver = solver, .pc = pc, .backend = backend, .rtol = RTOL, .maxit = MAX_IT, .monitor = monitor,
                .count = &n_iallreduce};
    return ns_solve(A, &r);
}

/* the shared matrices where idrs converges (test_idrs.c) */
static void shared_matrices(void)
{
    static const char *const pcs[] = {"jacobi", "ilu0", "none"};
    for (int m = 0; m < NSHARED; m++) {
        if (!strcmp(shared_names[m], "utm1700a")) continue;
        ovk_matrix *A = mt_nonsym_matrix(shared_names[m]);
        if (!A) {
            if (g_rank == 0 && m == 0) printf("shared nonsymmetric matrices: skipped\n");
            return;
        }
        for (int p = 0; p < 3; p++) {
            if (p == 2 && strcmp(shared_names[m], "cdde1") && strcmp(shared_names[m], "orsirr_1")) continue;
            char what[96];
            snprintf(what, sizeof what, "%s pipeidrs:s=4 %s", shared_names[m], pcs[p]);
            outcome o = run(A, "pipeidrs:s=4", pcs[p], "blocking", 0);
            expect_converged(what, &o);
            outcome i = run(A, "idrs:s=4", pcs[p], "blocking", 0);
            if (g_rank == 0) printf("%-36s %5d steps  true %.2e  (idrs %d)\n", what, o.iterations, o.true_rel,
                                    i.iterations);
        }
        ovk_matrix_destroy(A);
    }
}

/* the solve of ns_solve with the solver option replace_every set */
static outcome run_replacing(ovk_matrix *A, const char *solver, const char *every)
{
    ovk_vector *b = NULL, *x = NULL;
    ovk_solver *s = NULL;
    ovk_pcg_result res = {0};
    outcome o = {0};
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    mt_random_b(A, b);
    ovk_solver_create(A, &s);
    o.rc = ovk_solver_set_option(s, "solver", solver);
    if (!o.rc) o.rc = ovk_solver_set_option(s, "precond", "jacobi");
    if (!o.rc) o.rc = ovk_solver_set_option(s, "replace_every", every);
    if (!o.rc) o.rc = ovk_solver_set_tolerances(s, RTOL, 0.0, MAX_IT);
    if (!o.rc) o.rc = ovk_solver_setup(s);
    if (!o.rc) o.rc = ovk_solver_solve(s, b, x, &res);
    o.iterations = res.iterations;
    o.reason = res.reason;
    o.rel = res.rel_residual;
    o.true_rel = mt_rel_residual(A, b, x);
    o.reductions = res.replacements;
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    return o;
}

static void convection_diffusion(void)
{
    static const char *const pcs[] = {"jacobi", "ilu0", "eisenstat"};
    ovk_matrix *A = convdiff(1000.0, OVK_CONVDIFF_UPWIND);
    for (int p = 0; p < 3; p++)
        for (int k = 0; k < NSPECS; k++) {
            char what[96];
            snprintf(what, sizeof what, "convdiff Pe 1000 %s %s", specs[k], pcs[p]);
            outcome o = run(A, specs[k], pcs[p], "blocking", 0), i = run(A, idrs_specs[k], pcs[p], "blocking", 0);
            expect_converged(what, &o);
            MT_CHECK(within_margin(o.iterations, i.iterations), "%s: %d steps, idrs %d", what, o.iterations,
                     i.iterations);
            if (g_rank == 0) printf("%-44s %4d steps (idrs %d)\n", what, o.iterations, i.iterations);
        }
    outcome o = run(A, "pipeidrs:s=4", "ilu0", "native", 1); /* the monitor checks its calls and history */
    expect_converged("convdiff Pe 1000 pipeidrs:s=4 ilu0 native, monitor", &o);
    outcome r = run_replacing(A, "pipeidrs:s=4", "7"), i = run_replacing(A, "idrs:s=4", "7");
    expect_converged("convdiff Pe 1000 pipeidrs:s=4 jacobi replace_every=7", &r);
    /* one each 7 steps, at the end of the 5-step cycle they fall in (a confirmation's more) */
    MT_CHECK(r.reductions >= (r.iterations - 5) / 7 && r.reductions <= r.iterations / 7 + 1 && within_margin(r.iterations, i.iterations),
             "replace_every=7: %ld replacements in %d steps (idrs %d)", r.reductions, r.iterations, i.iterations);
    if (g_rank == 0)
        printf("replace_every=7: %d steps, %ld replacements, true %.2e (idrs %d)\n", r.iterations, r.reductions,
               r.true_rel, i.iterations);
    ovk_matrix_destroy(A);
}

/* ---- the pipeline, seen from the callbacks --------------------------------------- */

enum { OP_ROWS = 300 };

typedef struct calls {
    int pc, pc_flying, mv, mv_flying;
    int fail_from, fail_mode; /* the last rank's product from call fail_from: 1 fails, 2 NaN (0: never) */
} calls;

/* 1 when a reduction is posted and not completed */
static int flying(void) { return mt_reduction_in_flight(); }

/* y = A x: each rank's rows a nonsymmetric tridiagonal block of its own */
static int op_matvec(ovk_solver *s, const double *x, double *y, void *ctx)
{
    calls *k = ctx;
    int n = ovk_solver_nlocal(s);
    k->mv++;
    k->mv_flying += flying();
    for (int i = 0; i < n; i++)
        y[i] = (4.0 + 0.01 * i) * x[i] - 1.5 * (i > 0 ? x[i - 1] : 0.0) - 0.7 * (i + 1 < n ? x[i + 1] : 0.0);
    if (k->fail_mode && k->mv >= k->fail_from && g_rank == g_size - 1) {
        if (k->fail_mode == 1) return 1;
        y[0] = NAN;
    }
    return 0;
}

/* z = r / diag(A) */
static int op_pc(ovk_solver *s, const double *r, double *z, void *ctx)
{
    calls *k = ctx;
    int n = ovk_solver_nlocal(s);
    k->pc++;
    k->pc_flying += flying();
    for (int i = 0; i < n; i++) z[i] = r[i] / (4.0 + 0.01 * i);
    return 0;
}

/* 20 steps (rtol 1e-30) on native; the callbacks' counts, the reductions
 * posted; fail_mode: the product fails (1) or turns NaN (2) on the last rank
 * from its 8th call in the solve, which must then end with OVK_ECALLBACK
 * (OVK_ENONFINITE) on every rank and x finite */
static calls pipeline_run(const char *solver, long *posted, int fail_mode)
{
    calls k = {0};
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res = {0};
    MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, OP_ROWS, op_matvec, &k, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solver));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", "native"));
    MT_RC(OVK_OK, ovk_solver_set_precond_fn(s, op_pc, &k));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-30, 0.0, 20));
    MT_RC(OVK_OK, ovk_solver_vector_create(s, NULL, &b));
    MT_RC(OVK_OK, ovk_solver_vector_create(s, NULL, &x));
    double *bd = ovk_vector_data(b);
    for (int i = 0; i < OP_ROWS; i++) bd[i] = hash_unit((uint64_t)(g_rank * OP_ROWS + i));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    k = (calls){.fail_from = 8, .fail_mode = fail_mode};
    long p0 = n_iallreduce;
    int rc = ovk_solver_solve(s, b, x, &res);
    *posted = n_iallreduce - p0;
    if (fail_mode) {
        const char *what = fail_mode == 1 ? "a failing product" : "a NaN product";
        int finite = 1;
        const double *xd = ovk_vector_data(x);
        for (int i = 0; i < OP_ROWS; i++) finite &= isfinite(xd[i]) != 0;
        expect_everywhere(what, rc, fail_mode == 1 ? OVK_ECALLBACK : OVK_ENONFINITE);
        MT_CHECK(finite, "%s %s: x not finite after %d steps", solver, what, res.iterations);
    } else {
        MT_CHECK(rc == OVK_EMAXIT && res.iterations == 20, "%s: status %s after %d steps", solver,
                 ovk_status_name(rc), res.iterations);
    }
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    return k;
}

static void pipeline(void)
{
    long posted = 0;
    calls k = pipeline_run("pipeidrs:s=4", &posted, 0);
    /* the restart's r^ = C r, r~ = A r^ and each step's pair, all behind a
     * posted sum; not in flight: r0 = b - A x0 and the limit's true residual */
    MT_CHECK(k.pc == 21 && k.pc_flying == k.pc && k.mv_flying == 21 && k.mv - k.mv_flying <= 2,
             "pipeidrs: %d of %d preconditioner applications and %d of %d products behind a posted sum", k.pc_flying,
             k.pc, k.mv_flying, k.mv);
    /* the restart's P^T r, one a step, the last norm and the true residual at the limit */
    MT_CHECK(posted >= 20 && posted <= 20 + 4, "pipeidrs: %ld reductions posted in 20 steps", posted);
    if (g_rank == 0)
        printf("pipeline: pipeidrs:s=4 %d/%d applications, %d/%d products in flight, %ld reductions in 20 steps\n",
               k.pc_flying, k.pc, k.mv_flying, k.mv, posted);
    calls i = pipeline_run("idrs:s=4", &posted, 0);
    MT_CHECK(i.pc_flying == 0 && i.mv_flying == 0, "idrs: %d applications, %d products behind a sum", i.pc_flying,
             i.mv_flying);
    pipeline_run("pipeidrs:s=4", &posted, 1); /* the 8th product: step 6's, a reduction in flight */
    pipeline_run("pipeidrs:s=4", &posted, 2);
    for (int mon = 0; mon < 2; mon++) { /* a monitor's vote rides the same sums */
        ovk_matrix *A = convdiff(50.0, OVK_CONVDIFF_UPWIND);
        ns_run r = {.solver = "pipeidrs:s=4", .pc = "jacobi", .backend = "native", .rtol = 1e-30, .maxit = 20,
                    .monitor = mon, .count = &n_iallreduce};
        outcome o = ns_solve(A, &r);
        MT_CHECK(o.iterations == 20 && o.reductions >= 20 && o.reductions <= 20 + 4,
                 "pipeidrs (monitor %d): %ld reductions in %d steps", mon, o.reductions, o.iterations);
        ovk_matrix_destroy(A);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    idr_dense_reference(specs, NSPECS);
    shared_matrices();
    convection_diffusion();
    pipeline();
    idr_nonfinite("pipeidrs:s=4");
    idr_bad_inputs("pipeidrs");
    int status = mt_finish("test_pipeidrs");
    MPI_Finalize();
    return status;
}
