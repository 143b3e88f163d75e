/* MPI test: the eisenstat preconditioner (block SSOR for any matrix) and
 * bicgstab's split form with Eisenstat's fused product.
 *
 *  - the split form against its definition on convection-diffusion (with
 *    off-rank columns beyond one rank), a tridiagonal matrix and one with
 *    |j - i| > 32767 in a rank's block (the int-column sweeps): split_op
 *    v equals split_in (A split_out v), M (apply r) equals r with M =
 *    (D/w + L)(w D^-1)(D/w + U) from the matrix's entries, and apply r
 *    equals split_out (split_in r), to 1e-12, for omega 0.7, 1 and 1.3;
 *  - the shared nonsymmetric matrices (OVK_NONSYM_DIR; skipped when
 *    absent), b = A x* (x0 = 0), rtol 1e-8: bicgstab + eisenstat (omega 1,
 *    1.2, 0.8) and gmres + eisenstat (the plain apply)
 *    converge with the true residual below rtol on every matrix but
 *    utm1700a, whose solve must end not converged (iteration limit or a
 *    breakdown) with, at the limit, the true residual reported;
 *  - convection-diffusion at Peclet 1, 50 (upwind, central) and 1000
 *    (upwind): both solvers converge, truly; with a monitor and a history
 *    of one entry per iteration; from a nonzero x0 too;
 *  - bicgstab's split form is what runs: its solution differs in its bits
 *    from the unsplit loop's (forced by -ovk_monitor_true) and both
 *    converge truly;
 *  - a zero-row rank (the last one, at 2 ranks or more);
 *  - a_00 = 1e-200 beside entries of 1: OVK_ENONFINITE (or truly
 *    converged), the same on every rank;
 *  - ovk_matrix_update_values then a solve (the setup redone); rtol 1e-17
 *    forces a replacement of r^ (res.replacements > 0, OVK_EMAXIT with the
 *    true residual);
 *  - bad input, the same status on every rank: a zero diagonal entry on
 *    one rank (OVK_EZERODIAG naming its row), omega 0 and 2, an unknown
 *    option.
 * Runs at any rank count. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mpitest.h"
#include "nonsym_common.h"
#include "precond/precond.h"

/* solve A x = A x* on blocking (see ns_solve) */
static outcome solve(ovk_matrix *A, const char *solver, const char *pc, int maxit, int monitor, int x0_hash,
                     int monitor_true, double *xout)
{
    ns_run run = {.solver = solver, .pc = pc, .backend = "blocking", .rtol = RTOL, .maxit = maxit,
                  .monitor = monitor, .x0_hash = x0_hash, .monitor_true = monitor_true, .xout = xout};
    return ns_solve(A, &run);
}

/* not converged, a clear status, and at the limit the true residual */
static void expect_not_converged(const char *what, const outcome *o)
{
    MT_CHECK(o->rc == OVK_EMAXIT || o->rc == OVK_EBREAKDOWN || o->rc == OVK_ENONFINITE || o->rc == OVK_ESTAGNATED,
             "%s: status %s, expected the iteration limit, a breakdown or stagnation", what, ovk_status_name(o->rc));
    MT_CHECK(o->reason != OVK_REASON_CONVERGED, "%s: reason converged with status %s", what, ovk_status_name(o->rc));
    if (o->rc == OVK_EMAXIT)
        MT_CHECK(fabs(o->rel - o->true_rel) <= 1e-6 * o->true_rel, "%s: reported %.6e, true %.6e", what, o->rel,
                 o->true_rel);
}

static const char *const bcgs_pcs[] = {"eisenstat", "eisenstat:omega=1.2", "eisenstat:omega=0.8"};
enum { NBCGS_PCS = 3 };

static void shared_matrices(void)
{
    if (!have_shared()) return;
    for (int m = 0; m < NSHARED; m++) {
        ovk_matrix *A = read_shared(m);
        if (!A) continue;
        int hard = !strcmp(shared_names[m], "utm1700a");
        for (int k = 0; k <= NBCGS_PCS; k++) {
            const char *solver = k < NBCGS_PCS ? "bicgstab" : "gmres", *pc = k < NBCGS_PCS ? bcgs_pcs[k] : "eisenstat";
            char what[128];
            snprintf(what, sizeof what, "%s %s %s", shared_names[m], solver, pc);
            outcome o = solve(A, solver, pc, hard ? MAX_HARD : MAX_IT, 0, 0, 0, NULL);
            if (hard) expect_not_converged(what, &o);
            else expect_converged(what, &o);
            if (g_rank == 0)
                printf("%-44s %5d its  %-12s reported %.2e true %.2e\n", what, o.iterations, ovk_reason_name(o.reason),
                       o.rel, o.true_rel);
        }
        ovk_matrix_destroy(A);
    }
}

static void convection_diffusion(void)
{
    static const struct {
        double pe;
        ovk_convdiff_scheme scheme;
    } cases[] = {{1.0, OVK_CONVDIFF_UPWIND}, {50.0, OVK_CONVDIFF_UPWIND}, {50.0, OVK_CONVDIFF_CENTRAL},
                 {1000.0, OVK_CONVDIFF_UPWIND}};
    for (int c = 0; c < 4; c++) {
        ovk_matrix *A = convdiff(cases[c].pe, cases[c].scheme);
        for (int k = 0; k <= NBCGS_PCS; k++) {
            const char *solver = k < NBCGS_PCS ? "bicgstab" : "gmres", *pc = k < NBCGS_PCS ? bcgs_pcs[k] : "eisenstat";
            for (int x0 = 0; x0 < 2; x0++) {
                char what[128];
                snprintf(what, sizeof what, "convdiff Pe %g %s %s %s x0 %s", cases[c].pe,
                         cases[c].scheme == OVK_CONVDIFF_UPWIND ? "upwind" : "central", solver, pc,
                         x0 ? "random" : "0");
                outcome o = solve(A, solver, pc, MAX_IT, 1, x0, 0, NULL);
                expect_converged(what, &o);
                if (g_rank == 0 && !x0) printf("%-60s %4d its  true %.2e\n", what, o.iterations, o.true_rel);
            }
        }
        ovk_matrix_destroy(A);
    }
}

/* the split loop runs: its x differs in its bits from the unsplit loop's
 * (-ovk_monitor_true keeps bicgstab on C then A) */
static void split_runs(void)
{
    ovk_matrix *A = convdiff(50.0, OVK_CONVDIFF_UPWIND);
    int n = ovk_matrix_nlocal(A);
    double *xs = calloc((size_t)n + 1, sizeof(double)), *xu = calloc((size_t)n + 1, sizeof(double));
    outcome s = solve(A, "bicgstab", "eisenstat", MAX_IT, 0, 0, 0, xs);
    if (g_rank == 0) printf("unsplit loop (-ovk_monitor_true):\n");
    outcome u = solve(A, "bicgstab", "eisenstat", MAX_IT, 0, 0, 1, xu);
    expect_converged("split bicgstab eisenstat", &s);
    expect_converged("unsplit bicgstab eisenstat", &u);
    int differ = n > 0 && memcmp(xs, xu, sizeof(double) * (size_t)n) != 0;
    MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MT_CHECK(differ, "bicgstab + eisenstat: the split loop's x is bitwise the unsplit one's");
    if (g_rank == 0) printf("split %d its, unsplit %d its\n", s.iterations, u.iterations);
    free(xs);
    free(xu);
    ovk_matrix_destroy(A);
}

/* row i's (a_i,i-1, a_ii, a_i,i+1) of an n-row tridiagonal; p: the row
 * kind's parameter */
typedef void tri_row_fn(int i, int n, double p, double a[3]);

/* this rank's rows of an n-row tridiagonal over the ranks but the last
 * (which has none, at 2 ranks or more), as CSR */
typedef struct tri_rows {
    int lo, nl, *ptr;
    ovk_gidx *col;
    double *val;
} tri_rows;

static void tri_rows_make(int n, tri_row_fn *row, double p, tri_rows *t)
{
    int holders = g_size > 1 ? g_size - 1 : 1, me = g_rank < holders ? g_rank : -1;
    int hi = me < 0 ? n : (int)((long)n * (me + 1) / holders);
    t->lo = me < 0 ? n : (int)((long)n * me / holders), t->nl = hi - t->lo;
    t->ptr = malloc(sizeof(int) * (size_t)(t->nl + 1));
    t->col = malloc(sizeof(ovk_gidx) * (size_t)(3 * t->nl + 1));
    t->val = malloc(sizeof(double) * (size_t)(3 * t->nl + 1));
    t->ptr[0] = 0;
    for (int i = t->lo, k = 0; i < hi; i++) {
        double a[3];
        row(i, n, p, a);
        if (i > 0) t->col[k] = i - 1, t->val[k++] = a[0];
        t->col[k] = i, t->val[k++] = a[1];
        if (i < n - 1) t->col[k] = i + 1, t->val[k++] = a[2];
        t->ptr[i - t->lo + 1] = k;
    }
}

static void tri_rows_free(tri_rows *t) { free(t->ptr), free(t->col), free(t->val); }

static int tri_create(int n, tri_row_fn *row, double p, ovk_matrix **A)
{
    tri_rows t;
    tri_rows_make(n, row, p, &t);
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, t.lo, t.nl, t.ptr, t.col, t.val, OVK_DUP_REJECT, A);
    tri_rows_free(&t);
    return rc;
}

/* nonsymmetric, a_ii of either sign; a_nn = last */
static void plain_row(int i, int n, double last, double a[3])
{
    a[0] = -1.5, a[1] = i == n - 1 ? last : (i % 3 ? 4.0 : -4.0), a[2] = -0.5;
}

static int tridiag(int n, double last, ovk_matrix **A) { return tri_create(n, plain_row, last, A); }

static void zero_row_rank(void)
{
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, tridiag(60, 4.0, &A));
    for (int k = 0; k <= NBCGS_PCS; k++) {
        const char *solver = k < NBCGS_PCS ? "bicgstab" : "gmres", *pc = k < NBCGS_PCS ? bcgs_pcs[k] : "eisenstat";
        char what[96];
        snprintf(what, sizeof what, "zero-row rank %s %s", solver, pc);
        outcome o = solve(A, solver, pc, 200, 1, 1, 0, NULL);
        expect_converged(what, &o);
    }
    ovk_matrix_destroy(A);
}

/* max |a - b| / max |b| over the ranks */
static double rel_diff(int n, const double *a, const double *b)
{
    double v[2] = {0.0, 0.0};
    for (int i = 0; i < n; i++) {
        v[0] = fmax(v[0], fabs(a[i] - b[i]));
        v[1] = fmax(v[1], fabs(b[i]));
    }
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return v[1] > 0.0 ? v[0] / v[1] : v[0];
}

/* max |M z - r| / max |r| for M = (D/w + L)(w D^-1)(D/w + U), the rank's
 * block from the matrix's entries (independent of the sweeps) */
static double product_error(ovk_matrix *A, double w, const double *z, const double *r)
{
    int n = ovk_matrix_nlocal(A), *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    MT_RC(OVK_OK, ovk__matrix_diag_ptr(A, ptr));
    size_t nnz = (size_t)ptr[n] + 1;
    int *col = malloc(sizeof(int) * nnz);
    double *val = malloc(sizeof(double) * nnz), *u = malloc(sizeof(double) * ((size_t)n + 1)),
           *m = malloc(sizeof(double) * ((size_t)n + 1)), *d = malloc(sizeof(double) * ((size_t)n + 1));
    MT_RC(OVK_OK, ovk__matrix_diag_fill(A, ptr, col, val));
    for (int i = 0; i < n; i++) /* u = w D^-1 (D/w + U) z */
        for (int k = ptr[i]; k < ptr[i + 1]; k++)
            if (col[k] == i) d[i] = val[k];
    for (int i = 0; i < n; i++) {
        double s = d[i] / w * z[i];
        for (int k = ptr[i]; k < ptr[i + 1]; k++)
            if (col[k] > i) s += val[k] * z[col[k]];
        u[i] = w / d[i] * s;
    }
    for (int i = 0; i < n; i++) { /* m = (D/w + L) u */
        double s = d[i] / w * u[i];
        for (int k = ptr[i]; k < ptr[i + 1]; k++)
            if (col[k] < i) s += val[k] * u[col[k]];
        m[i] = s;
    }
    double e = rel_diff(n, m, r);
    free(ptr), free(col), free(val), free(u), free(m), free(d);
    return e;
}

/* split_op v == split_in (A split_out v); apply r solves M z = r (M from
 * the matrix's entries); apply r == split_out (split_in r) (sigma cancels) */
static void split_algebra_on(ovk_matrix *A, const char *name, const char *form)
{
    static const char *const specs[] = {"eisenstat", "eisenstat:omega=1.3", "eisenstat:omega=0.7"};
    static const double omegas[] = {1.0, 1.3, 0.7};
    int n = ovk_matrix_nlocal(A);
    size_t sz = sizeof(double) * (size_t)(n > 0 ? n : 1);
    double *v = malloc(sz), *w1 = malloc(sz), *w2 = malloc(sz), *t = malloc(sz), *y = malloc(sz);
    for (int i = 0; i < n; i++) v[i] = hash_unit((uint64_t)(ovk_matrix_row_start(A) + i) + 5u);
    for (int sp = 0; sp < 3; sp++) {
        ovk__pc pc = {0};
        MT_RC(OVK_OK, ovk__pc_create(specs[sp], &pc));
        ovk__pc_env env = {.A = A, .n = n, .comm = MPI_COMM_WORLD, .nonsymmetric = 1};
        MT_RC(OVK_OK, pc.type->setup(pc.state, &env));
        MT_CHECK(pc.type->split_op && pc.type->split_in && pc.type->split_out, "%s: no split form", specs[sp]);
        MT_RC(OVK_OK, pc.type->split_op(pc.state, v, w1, NULL));
        MT_RC(OVK_OK, pc.type->split_out(pc.state, v, t, 0, NULL)); /* t = Ut^-1 v */
        MT_RC(OVK_OK, ovk__matvec(A, t, y, NULL));                /* y = A t */
        MT_RC(OVK_OK, pc.type->split_in(pc.state, y, w2, NULL));  /* w2 = Lt^-1 y */
        double e1 = rel_diff(n, w1, w2);
        MT_CHECK(e1 < 1e-12, "%s %s: split_op differs from Lt^-1 A Ut^-1 by %.3e", name, specs[sp], e1);
        MT_RC(OVK_OK, pc.type->apply(pc.state, v, w1, NULL));     /* M^-1 v */
        double e3 = product_error(A, omegas[sp], w1, v);
        MT_CHECK(e3 < 1e-12, "%s %s: M (apply v) differs from v by %.3e", name, specs[sp], e3);
        MT_RC(OVK_OK, pc.type->split_in(pc.state, v, t, NULL));
        MT_RC(OVK_OK, pc.type->split_out(pc.state, t, w2, 0, NULL)); /* Ut^-1 Lt^-1 v */
        double e2 = rel_diff(n, w1, w2);
        MT_CHECK(e2 < 1e-12, "%s %s: apply differs from Ut^-1 Lt^-1 by %.3e", name, specs[sp], e2);
        char view[256] = "";
        FILE *f = fmemopen(view, sizeof view - 1, "w");
        pc.type->view(pc.state, f);
        fclose(f);
        MT_CHECK(strstr(view, form) != NULL, "%s %s: view '%s' does not say %s", name, specs[sp], view, form);
        if (g_rank == 0)
            printf("split algebra %-10s %-38s op %.1e apply %.1e M z - r %.1e\n", name, specs[sp], e1, e2, e3);
        ovk__pc_destroy(&pc);
    }
    free(v), free(w1), free(w2), free(t), free(y);
}

/* WIDE rows on each rank: a tridiagonal block plus a_{i,i+WIDE-1} and
 * a_{i+WIDE-1,i} for the block's first and last row (|j - i| > 32767: the
 * sweeps' int-column form); a_ii of either sign */
enum { WIDE = 33000 };
static ovk_matrix *wide_block(void)
{
    int lo = g_rank * WIDE, n = WIDE * g_size, *ptr = malloc(sizeof(int) * (WIDE + 1));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * 4 * WIDE);
    double *val = malloc(sizeof(double) * 4 * WIDE);
    ovk_matrix *A = NULL;
    ptr[0] = 0;
    for (int i = lo, k = 0; i < lo + WIDE; i++) {
        if (i == lo + WIDE - 1) col[k] = lo, val[k++] = 0.25;
        if (i > 0) col[k] = i - 1, val[k++] = -1.5;
        col[k] = i, val[k++] = i % 3 ? 4.0 : -4.0;
        if (i < n - 1) col[k] = i + 1, val[k++] = -0.5;
        if (i == lo) col[k] = lo + WIDE - 1, val[k++] = -0.75;
        ptr[i - lo + 1] = k;
    }
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, lo, WIDE, ptr, col, val, OVK_DUP_REJECT, &A));
    free(ptr);
    free(col);
    free(val);
    return A;
}

static void split_algebra(void)
{
    ovk_matrix *A = convdiff(50.0, OVK_CONVDIFF_CENTRAL), *T = NULL;
    split_algebra_on(A, "convdiff", "16-bit");
    ovk_matrix_destroy(A);
    MT_RC(OVK_OK, tridiag(50, 4.0, &T));
    split_algebra_on(T, "tridiag", "16-bit");
    ovk_matrix_destroy(T);
    T = wide_block();
    split_algebra_on(T, "wide", "int");
    ovk_matrix_destroy(T);
}

/* ||b - A x|| / ||b|| */
static double true_rel(ovk_matrix *A, ovk_vector *b, ovk_vector *x)
{
    ovk_vector *r = NULL;
    ovk_vector_create(A, &r);
    double t = ns_true_rel(A, b, x, r);
    ovk_vector_destroy(r);
    return t;
}

/* plain_row's values times 1e-3 but a_00 = 1.5e-2 (its sign flipped) */
static void updated_row(int i, int n, double p, double a[3])
{
    (void)n, (void)p;
    a[0] = -1.5e-3, a[1] = i == 0 ? 1.5e-2 : (i % 3 ? 4e-3 : -4e-3), a[2] = -0.5e-3;
}

/* one solver of bicgstab + eisenstat: a solve, ovk_matrix_update_values
 * (the tridiagonal's values times 1e-3 but the first row's a_00, -4 -> 1.5e-2, its sign flipped:
 * the next solve redoes the setup, sigma included) and a solve that
 * converges truly; then rtol 1e-17, beyond what b - A x attains: the
 * estimate meets it first, so the true residual is checked and r^ replaced
 * (res.replacements > 0) and the solve ends at its limit (OVK_EMAXIT) with
 * the true residual reported */
static void update_and_replace(void)
{
    int n = 90;
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, tridiag(n, 4.0, &A));
    tri_rows t; /* tridiag's pattern, new values */
    tri_rows_make(n, updated_row, 0.0, &t);
    int lo = t.lo, nl = t.nl;
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res = {0};
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "bicgstab"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "eisenstat:omega=1.2"));
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    double *bd = ovk_vector_data(b);
    for (int i = 0; i < nl; i++) bd[i] = hash_unit((uint64_t)(lo + i) + 7u);
    ovk_solver_set_tolerances(s, RTOL, 0.0, 500);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    double t1 = true_rel(A, b, x);
    MT_RC(OVK_OK, ovk_matrix_update_values(A, t.ptr, t.col, t.val, OVK_DUP_REJECT));
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    double t2 = true_rel(A, b, x);
    MT_CHECK(t1 <= RTOL && t2 <= RTOL && res.reason == OVK_REASON_CONVERGED,
             "after ovk_matrix_update_values: true residual %.2e (before %.2e), reason %d", t2, t1, (int)res.reason);
    ovk_solver_set_tolerances(s, 1e-17, 0.0, 80);
    ovk_vector_set(x, 0.0);
    int rc = ovk_solver_solve(s, b, x, &res);
    double t3 = true_rel(A, b, x);
    /* below the attainable accuracy: the limit, or the checks stagnating first */
    MT_CHECK((rc == OVK_EMAXIT || rc == OVK_ESTAGNATED) && res.replacements > 0 && fabs(res.rel_residual - t3) <= 1e-3 * t3,
             "rtol 1e-17: %s, %d replacements, reported %.3e, true %.3e", ovk_status_name(rc), res.replacements,
             res.rel_residual, t3);
    if (g_rank == 0)
        printf("update values: true %.1e then %.1e; rtol 1e-17: %d replacements, true %.1e\n", t1, t2,
               res.replacements, t3);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
    tri_rows_free(&t);
}

/* a_00 = 1e-200 beside entries of 1 (the tridiagonal's first row): Lt^-1
 * and Ut^-1 reach ~1e200 and more in row 0, in the split form and in C =
 * M^-1 alike (u'_01 = 1e200): the solve ends with OVK_ENONFINITE naming the
 * quantity, the same status on every rank, no hang (or converges truly) */
static void tiny_row(int i, int n, double p, double a[3])
{
    (void)n, (void)p;
    a[0] = -1.0, a[1] = i == 0 ? 1e-200 : 4.0, a[2] = i == 0 ? 1.0 : -0.5;
}

static void tiny_pivot(void)
{
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, tri_create(60, tiny_row, 0.0, &A));
    outcome o = solve(A, "bicgstab", "eisenstat", 200, 1, 0, 0, NULL);
    int lo_rc = o.rc, hi_rc = o.rc;
    MPI_Allreduce(MPI_IN_PLACE, &lo_rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi_rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MT_CHECK(lo_rc == hi_rc, "a_00 = 1e-200: statuses %d..%d", lo_rc, hi_rc);
    if (o.rc == OVK_OK) expect_converged("a_00 = 1e-200, bicgstab eisenstat", &o);
    else
        MT_CHECK(o.rc == OVK_ENONFINITE && strstr(ovk_error_detail(), "inf") != NULL,
                 "a_00 = 1e-200: %s (%s), expected OVK_ENONFINITE", ovk_status_name(o.rc), ovk_error_detail());
    if (g_rank == 0) printf("a_00 = 1e-200: %s (%s)\n", ovk_status_name(o.rc), o.rc ? ovk_error_detail() : "");
    ovk_matrix_destroy(A);
}

/* the same status on every rank */
static void bad_inputs(void)
{
    ovk_matrix *Z = NULL, *A = convdiff(50.0, OVK_CONVDIFF_UPWIND);
    MT_RC(OVK_OK, tridiag(40, 0.0, &Z)); /* a_nn = 0 on the last rank that holds rows */
    for (int k = 0; k < 2; k++) {
        const char *solver = k ? "gmres" : "bicgstab";
        char what[64];
        snprintf(what, sizeof what, "zero diagonal, %s", solver);
        int rc = setup_with(Z, solver, "eisenstat");
        expect_everywhere(what, rc, OVK_EZERODIAG);
        MT_CHECK(rc != OVK_EZERODIAG || strstr(ovk_error_detail(), "row 39"), "detail '%s' does not name row 39",
                 ovk_error_detail());
    }
    expect_everywhere("eisenstat:omega=0", setup_with(A, "bicgstab", "eisenstat:omega=0"), OVK_EOPTION);
    expect_everywhere("eisenstat:omega=2", setup_with(A, "bicgstab", "eisenstat:omega=2"), OVK_EOPTION);
    expect_everywhere("eisenstat:precision=single", setup_with(A, "bicgstab", "eisenstat:precision=single"),
                      OVK_EOPTION);
    ovk_matrix_destroy(A);
    ovk_matrix_destroy(Z);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    split_algebra();
    shared_matrices();
    convection_diffusion();
    split_runs();
    zero_row_rank();
    update_and_replace();
    tiny_pivot();
    bad_inputs();
    int status = mt_finish("test_eisenstat");
    MPI_Finalize();
    return status;
}
