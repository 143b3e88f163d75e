/* MPI test: amg's reuse of its hierarchy over value updates (amg:reuse=K,
 * src/precond/amg.c) on a 7-point diffusion matrix with a coefficient field
 * k(x) = region(x) (1 + sin(0.5 X + 0.3 Y + 0.2 Z + t) / 2) on a 14^3 grid
 * (faces: the mean of their two points' k; Dirichlet faces on the diagonal),
 * rows split unevenly (the last rank owning none from 3 ranks):
 *  - small changes (t += 0.05, a few percent of each value) on reuse=10,
 *    with the Galerkin products again (reuse_coarse=galerkin) and with the
 *    full setup's coarse levels (keep, the default; a singular A forms the
 *    products all the same), and in double precision: each solve
 *    converges (true residual below 1e-8) in at most 1.3x the iterations of
 *    a fresh object on the same values, and the view counts the setups on
 *    the kept interpolation; for the singular A the view names what
 *    applies (galerkin, reuse_scale=none);
 *  - a large change (the region x, y < g/2 scaled by 1e3): the drift forces a
 *    full setup (the view says so) and the solve converges; with the drift
 *    bound off (reuse_tol=1e6) the kept interpolation serves it, and the
 *    solve converges or fails with a status -- never a wrong answer;
 *  - A then D A D (d_i = 1 + eps sin(...)) on the kept interpolation: with
 *    reuse_scale=diag (the default) the drift of S^-1 A S^-1 is zero to
 *    rounding (the update is kept), the solve takes at most a fresh setup's
 *    iterations + 1 and no more than with reuse_scale=none, fewer at eps
 *    0.5, in single and double precision; apply_many on the scaled
 *    transfers (the update kept and scaled, says the view) bitwise apply,
 *    and the kept setup's ||A||_inf for the solver the matrix layer's;
 *  - A then a changed field scaled by D (a pure scaling, small and large
 *    changes; reuse_tol off): the new smoother bound, derived (the pure
 *    scaling) or estimated, is at least the largest eigenvalue of D^-1 A
 *    (500 power steps) times the full setup's own margin;
 *    reuse_scale=diag with reuse_coarse=galerkin refused;
 *  - A, 4 A, 16 A on the kept hierarchy with l1-Jacobi and with Chebyshev
 *    smoothing and reuse_scale=diag, single and double precision: s_i^-1
 *    = 1/2, then 1/4 against the full setup's diagonal (not compounded),
 *    powers of two, so each solve repeats A's iterations and residuals bit
 *    for bit, and the view counts 2 kept updates scaled by [0.25, 0.25],
 *    with Chebyshev both with the smoother bound derived from the full
 *    setup's (exactly its emax here; a power step would move it); also on
 *    a diag block that keeps both triangles;
 *  - A then 1e20 A and 1e-20 A (s_i^-1 outside [2^-32, 2^32]): a full
 *    setup, converged;
 *  - a full setup after K = 2 kept updates (the view's counts);
 *  - A to 4 A on the kept interpolation with l1-Jacobi smoothing (no
 *    estimate): every product of the refreshed hierarchy is 4 times the old
 *    one exactly (a power of two), so the solve repeats the first one's
 *    residuals bit for bit; stale coarse values or l1 norms would not;
 *  - the pure Neumann problem (singular, null space declared: its own
 *    estimate steps and coarsest sweeps) over small changes on reuse=10:
 *    converges in at most 1.3x the iterations of a fresh object (both
 *    reuse_coarse values);
 *  - value updates on a diag block that keeps both triangles (mirrors
 *    equal up to rounding, one entry stored without its mirror): the
 *    symmetry check's pairs refuse a_01 != a_10 and the lone entry made
 *    nonzero with OVK_ENOTSYM on every rank, and solve symmetric values;
 *  - 50 update/solve cycles: the resident set grows by less than 8 MB
 *    between the 10th and the 50th; in the ASan build,
 *    whose quarantine holds freed memory, LeakSanitizer checks instead.
 * Exit 0 = PASS, 1 = FAIL. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/matrix.h"
#include "mpitest.h"
#include "precond/precond.h"
#include "problem.h"

enum { G = 14 };

#ifndef OVK_HAVE_HYPRE
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rc = mt_finish("test_amg_reuse (no hypre in this build: its cases are setup=boomeramg's; setup=agg's reuse "
                       "is checked in test_amg_agg and test_amg_galerkin)");
    MPI_Finalize();
    return rc;
}
#else

static int g_rank;

typedef struct field {
    double t, region; /* phase; factor of the region x, y < G/2 */
    int neumann;      /* 1: no boundary faces on the diagonal (singular, constants its null space) */
} field;

static double kappa(const field *f, int64_t x, int64_t y, int64_t z)
{
    double r = (2 * x < G && 2 * y < G) ? f->region : 1.0;
    return r * (1.0 + 0.5 * sin(0.5 * (double)x + 0.3 * (double)y + 0.2 * (double)z + f->t));
}

/* rows [start, start + count) of the diffusion matrix (malloc'ed CSR) */
static void rows_of(const field *f, int64_t start, int count, int **ptr, ovk_gidx **cols, double **vals)
{
    static const int off[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
    *ptr = malloc(sizeof(int) * ((size_t)count + 1));
    *cols = malloc(sizeof(ovk_gidx) * 7 * ((size_t)count + 1));
    *vals = malloc(sizeof(double) * 7 * ((size_t)count + 1));
    (*ptr)[0] = 0;
    for (int i = 0; i < count; i++) {
        int64_t row = start + i, p[3] = {row % G, (row / G) % G, row / ((int64_t)G * G)};
        int len = (*ptr)[i], diag = len++;
        double k = kappa(f, p[0], p[1], p[2]), sum = 0.0;
        for (int d = 0; d < 6; d++) {
            int64_t q[3] = {p[0] + off[d][0], p[1] + off[d][1], p[2] + off[d][2]};
            double face = 0.5 * (k + kappa(f, q[0], q[1], q[2]));
            if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= G || q[1] >= G || q[2] >= G) {
                if (!f->neumann) sum += face;
                continue;
            }
            sum += face;
            (*cols)[len] = q[0] + G * (q[1] + (int64_t)G * q[2]);
            (*vals)[len++] = -face;
        }
        (*cols)[diag] = row;
        (*vals)[diag] = sum;
        (*ptr)[i + 1] = len;
    }
}

static void my_rows(int64_t *start, int *count)
{
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    tp_split((int64_t)G * G * G, r, p, start, count);
}

static int make_matrix(const field *f, ovk_matrix **A)
{
    int64_t start;
    int count, *ptr;
    ovk_gidx *cols;
    double *vals;
    my_rows(&start, &count);
    rows_of(f, start, count, &ptr, &cols, &vals);
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, A);
    free(ptr), free(cols), free(vals);
    return rc;
}

/* the row factor d_i = 1 + eps sin(0.9 x + 0.6 y + 0.4 z) of grid point i */
static double row_factor(int64_t row, double eps)
{
    double x = (double)(row % G), y = (double)((row / G) % G), z = (double)(row / ((int64_t)G * G));
    return 1.0 + eps * sin(0.9 * x + 0.6 * y + 0.4 * z);
}

/* the values of f times scale, and by D on both sides (d_i of eps; eps 0: none) */
static int update_scaled_d(ovk_matrix *A, const field *f, double scale, double eps)
{
    int64_t start;
    int count, *ptr;
    ovk_gidx *cols;
    double *vals;
    my_rows(&start, &count);
    rows_of(f, start, count, &ptr, &cols, &vals);
    for (int i = 0; i < count; i++)
        for (int k = ptr[i]; k < ptr[i + 1]; k++)
            vals[k] *= eps != 0.0 ? scale * row_factor(start + i, eps) * row_factor(cols[k], eps) : scale;
    int rc = ovk_matrix_update_values(A, ptr, cols, vals, OVK_DUP_REJECT);
    free(ptr), free(cols), free(vals);
    return rc;
}

static int update_scaled(ovk_matrix *A, const field *f, double scale) { return update_scaled_d(A, f, scale, 0.0); }

static int update(ovk_matrix *A, const field *f) { return update_scaled(A, f, 1.0); }

/* singular: the constants declared as the null space */
static int make_solver_ns(const ovk_matrix *A, const char *pc, int singular, ovk_solver **s)
{
    int rc = ovk_solver_create(A, s);
    if (!rc && singular) rc = ovk_solver_set_nullspace(*s, 1, 0, NULL);
    if (!rc) rc = ovk_solver_set_option(*s, "solver", "cg1");
    if (!rc) rc = ovk_solver_set_option(*s, "precond", pc);
    if (!rc) rc = ovk_solver_set_tolerances(*s, 1e-8, 0.0, 500);
    return rc ? rc : ovk_solver_setup(*s);
}

static int make_solver(const ovk_matrix *A, const char *pc, ovk_solver **s) { return make_solver_ns(A, pc, 0, s); }

typedef struct outcome {
    int rc, iterations;
    double true_rel, rel; /* ||b - A x|| / ||b||; the solver's final relative residual */
} outcome;

/* Collective: solve from x0 = 0 with b of tp_value, and ||b - A x|| / ||b||. */
static outcome solve_with(const ovk_matrix *A, ovk_solver *s)
{
    outcome out = {0, 0, INFINITY, INFINITY};
    ovk_vector *b = NULL, *x = NULL, *r = NULL;
    ovk_pcg_result res;
    ovk_vector_create(A, &b), ovk_vector_create(A, &x), ovk_vector_create(A, &r);
    for (int i = 0; i < ovk_vector_nlocal(b); i++) ovk_vector_data(b)[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    out.rc = ovk_solver_solve(s, b, x, &res);
    out.iterations = res.iterations;
    out.rel = res.rel_residual;
    double nb = 0.0, nr = 0.0;
    ovk_matvec(A, x, r);
    ovk_vector_axpy(-1.0, b, r);
    ovk_vector_norm2(b, &nb);
    ovk_vector_norm2(r, &nr);
    out.true_rel = nr / nb;
    ovk_vector_destroy(b), ovk_vector_destroy(x), ovk_vector_destroy(r);
    return out;
}

/* iterations of a fresh object (plain amg) on the values of f (Neumann:
 * the solver's residual, b less its null-space component) */
static int fresh_iterations(const field *f)
{
    ovk_matrix *B = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, make_matrix(f, &B));
    MT_RC(OVK_OK, make_solver_ns(B, "amg", f->neumann, &s));
    outcome o = solve_with(B, s);
    double rel = f->neumann ? o.rel : o.true_rel;
    MT_CHECK(o.rc == OVK_OK && rel < 1e-8, "fresh setup at t = %g: %s, residual %.2e", f->t, ovk_status_name(o.rc), rel);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(B);
    return o.iterations;
}

static void setups_of(const ovk_solver *s, long *full, long *kept) { mt_amg_setups(s, full, kept, NULL); }

/* Collective: rank 0's view (of the solver s, else of the preconditioner
 * pc) in text (broadcast); 1 when it holds needle */
static int view_has(const ovk_solver *s, const ovk__pc *pc, const char *needle, char *text, size_t size)
{
    int n = 0;
    text[0] = '\0';
    if (g_rank == 0) {
        FILE *f = tmpfile();
        if (f) {
            if (s) ovk_solver_view(s, f);
            else if (pc->type->view) pc->type->view(pc->state, f);
            rewind(f);
            n = (int)fread(text, 1, size - 1, f);
            fclose(f);
        }
        text[n] = '\0';
    }
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(text, n + 1, MPI_CHAR, 0, MPI_COMM_WORLD);
    return strstr(text, needle) != NULL;
}

/* the range of the level-0 scaling the view prints ([0, 0]: none printed) */
static void scaled_range(const char *text, double *lo, double *hi)
{
    const char *at = strstr(text, "scaled by sqrt(a0_ii / a_ii) in [");
    *lo = *hi = 0.0;
    if (at && sscanf(at + strlen("scaled by sqrt(a0_ii / a_ii) in ["), "%lf, %lf", lo, hi) != 2) *lo = *hi = 0.0;
}

/* the view's count of kept setups whose level-0 smoother bound was
 * derived from the full setup's (0: none printed) */
static long derived_count(const char *text)
{
    const char *at = strstr(text, " with level 0's smoother bound derived");
    if (!at) return 0;
    while (at > text && at[-1] != ' ' && at[-1] != ';') at--;
    return strtol(at, NULL, 10);
}

/* small changes on reuse=10, of the Dirichlet or (neumann) the singular
 * problem, whose check is the solver's residual (b less its null-space part) */
static void test_small_changes(int neumann, int steps, const char *spec)
{
    field f = {0.0, 1.0, neumann};
    char what[128];
    snprintf(what, sizeof what, "%s, %s", neumann ? "Neumann" : "Dirichlet", spec);
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, make_matrix(&f, &A));
    MT_RC(OVK_OK, make_solver_ns(A, spec, neumann, &s));
    for (int step = 1; step <= steps; step++) {
        f.t += 0.05;
        MT_RC(OVK_OK, update(A, &f));
        outcome o = solve_with(A, s);
        int fresh = fresh_iterations(&f);
        double rel = neumann ? o.rel : o.true_rel;
        if (g_rank == 0)
            printf("%s, small change %d: %d iterations on the kept interpolation, %d fresh\n", what, step, o.iterations,
                   fresh);
        MT_CHECK(o.rc == OVK_OK && rel < 1e-8, "%s, kept interpolation, step %d: %s, residual %.2e", what, step,
                 ovk_status_name(o.rc), rel);
        MT_CHECK(o.iterations <= 1.3 * fresh, "%s, step %d: %d iterations on the kept interpolation, %d fresh", what,
                 step, o.iterations, fresh);
    }
    long full, kept;
    setups_of(s, &full, &kept);
    MT_CHECK(full == 1 && kept == steps, "%s, small changes: %ld full setups, %ld kept (expected 1 and %d)", what,
             full, kept, steps);
    char text[4096];
    int says = view_has(s, NULL, neumann ? "reuse_scale=none" : "reuse_scale=", text, sizeof text);
    MT_CHECK(says && (!neumann || strstr(text, "reuse_coarse=galerkin")),
             "%s: the view names the reuse that applies (a singular A: galerkin, no scaling): %s", what, text);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

/* a region scaled by 1e3: with the drift bound a full setup; without it the
 * kept interpolation, and a right answer or a failure */
static void test_large_change(void)
{
    static const char *const specs[] = {"amg:reuse=10", "amg:reuse=10,reuse_tol=1e6"};
    for (int k = 0; k < 2; k++) {
        field f = {0.0, 1.0, 0};
        ovk_matrix *A = NULL;
        ovk_solver *s = NULL;
        MT_RC(OVK_OK, make_matrix(&f, &A));
        MT_RC(OVK_OK, make_solver(A, specs[k], &s));
        f.region = 1e3;
        MT_RC(OVK_OK, update(A, &f));
        outcome o = solve_with(A, s);
        long full, kept;
        setups_of(s, &full, &kept);
        if (g_rank == 0)
            printf("%s, region x1e3: %s in %d iterations (true residual %.2e), %ld full setups, %ld kept\n", specs[k],
                   ovk_status_name(o.rc), o.iterations, o.true_rel, full, kept);
        MT_CHECK(o.rc != OVK_OK || o.true_rel < 1e-8, "%s: converged with a true residual of %.2e", specs[k], o.true_rel);
        if (k == 0) {
            MT_CHECK(o.rc == OVK_OK, "%s after a large change: %s", specs[k], ovk_status_name(o.rc));
            MT_CHECK(full == 2 && kept == 0, "%s after a large change: %ld full setups, %ld kept (expected 2, 0)", specs[k],
                     full, kept);
        } else {
            MT_CHECK(full == 1 && kept == 1, "%s: %ld full setups, %ld kept (expected 1, 1)", specs[k], full, kept);
        }
        ovk_solver_destroy(&s);
        ovk_matrix_destroy(A);
    }
}

/* 4 A on the kept interpolation: the first solve's residuals exactly */
static void test_exact_refresh(void)
{
    field f = {0.3, 1.0, 0};
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, make_matrix(&f, &A));
    MT_RC(OVK_OK, make_solver(A, "amg:smoother=l1jacobi,reuse=10,reuse_coarse=galerkin,reuse_tol=1e6", &s));
    outcome o1 = solve_with(A, s);
    MT_RC(OVK_OK, update_scaled(A, &f, 4.0));
    outcome o4 = solve_with(A, s);
    long full, kept;
    setups_of(s, &full, &kept);
    if (g_rank == 0)
        printf("A then 4 A, kept interpolation: %d and %d iterations, residuals %.17g and %.17g\n", o1.iterations,
               o4.iterations, o1.rel, o4.rel);
    MT_CHECK(o1.rc == OVK_OK && o4.rc == OVK_OK, "A, 4 A: %s, %s", ovk_status_name(o1.rc), ovk_status_name(o4.rc));
    MT_CHECK(full == 1 && kept == 1, "4 A: %ld full setups, %ld kept (expected 1, 1)", full, kept);
    MT_CHECK(o4.iterations == o1.iterations && o4.rel == o1.rel && o4.true_rel == o1.true_rel,
             "4 A on the kept interpolation: %d iterations, residual %.17g, true %.17g; A: %d, %.17g, %.17g",
             o4.iterations, o4.rel, o4.true_rel, o1.iterations, o1.rel, o1.true_rel);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

/* the rows of f with a_ij (j > i) raised by 2^-45 of itself (both
 * triangles stored: mirrors equal up to assembly rounding only) and one
 * more entry (i, i + 2) stored without its mirror, of value lone; on row 0
 * (rank 0's), a_01 times 1 + bump; every value then times scale */
static int sym_rows(ovk_matrix **A, const field *f, double lone, double bump, double scale)
{
    int64_t start;
    int count, *ptr;
    ovk_gidx *cols;
    double *vals;
    my_rows(&start, &count);
    rows_of(f, start, count, &ptr, &cols, &vals);
    int *p2 = malloc(sizeof(int) * ((size_t)count + 1));
    ovk_gidx *c2 = malloc(sizeof(ovk_gidx) * ((size_t)ptr[count] + (size_t)count + 1));
    double *v2 = malloc(sizeof(double) * ((size_t)ptr[count] + (size_t)count + 1));
    int n = 0;
    p2[0] = 0;
    for (int i = 0; i < count; i++) {
        int64_t row = start + i;
        for (int k = ptr[i]; k < ptr[i + 1]; k++) {
            c2[n] = cols[k];
            v2[n++] = scale * vals[k] * (cols[k] > row ? 1.0 + 0x1p-45 : 1.0) * (row == 0 && cols[k] == 1 ? 1.0 + bump : 1.0);
        }
        if (row + 2 < (int64_t)G * G * G && row % G + 2 < G) /* (i, i + 2): no 7-point neighbour, no mirror */
            c2[n] = row + 2, v2[n++] = scale * lone;
        p2[i + 1] = n;
    }
    int rc = *A ? ovk_matrix_update_values(*A, p2, c2, v2, OVK_DUP_REJECT)
                : ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, p2, c2, v2, OVK_DUP_REJECT, A);
    free(ptr), free(cols), free(vals), free(p2), free(c2), free(v2);
    return rc;
}

/* A, 4 A, 16 A on the kept hierarchy, scaled (reuse_scale=diag): s_i^-1
 * = 1/2 and 1/4 exactly, so the cycle on c A is the cycle on A over c in
 * every operation (powers of two: no rounding differs), the coarse levels
 * and the hierarchy's 2^-scale_exp those of the one full setup, and with
 * Chebyshev the derived smoother bound the full setup's emax (rho = 1,
 * gamma = 0 exactly): the solves repeat A's residuals bit for bit; a
 * scaling compounded over the updates or taken against the last update
 * would not, nor a power step's estimate.  both: a diag block that keeps
 * both triangles (sym_rows; the update's pass for those) */
static void test_exact_scaled(const char *spec, int both)
{
    field f = {0.3, 1.0, 0};
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, both ? sym_rows(&A, &f, 0.0, 0.0, 1.0) : make_matrix(&f, &A));
    MT_RC(OVK_OK, make_solver(A, spec, &s));
    outcome o1 = solve_with(A, s);
    MT_CHECK(o1.rc == OVK_OK && o1.true_rel < 1e-8, "%s, A: %s, true residual %.2e", spec, ovk_status_name(o1.rc),
             o1.true_rel);
    for (int step = 1; step <= 2; step++) {
        double c = step == 1 ? 4.0 : 16.0;
        MT_RC(OVK_OK, both ? sym_rows(&A, &f, 0.0, 0.0, c) : update_scaled(A, &f, c));
        outcome o = solve_with(A, s);
        long full, kept;
        double lo, hi;
        char text[4096];
        setups_of(s, &full, &kept);
        view_has(s, NULL, "", text, sizeof text);
        scaled_range(text, &lo, &hi);
        if (g_rank == 0)
            printf("%s%s, %g A on the kept hierarchy: %d iterations, residual %.17g (A: %d, %.17g), sinv in [%g, %g]\n",
                   spec, both ? " (both triangles)" : "", c, o.iterations, o.rel, o1.iterations, o1.rel, lo, hi);
        MT_CHECK(full == 1 && kept == step, "%s, %g A: %ld full setups, %ld kept (expected 1, %d)", spec, c, full, kept,
                 step);
        MT_CHECK(lo == 1.0 / sqrt(c) && hi == lo, "%s, %g A: the view's scaling [%g, %g], expected %g", spec, c, lo, hi,
                 1.0 / sqrt(c));
        long derived = derived_count(text), want = strstr(spec, "l1jacobi") ? 0 : step; /* l1-Jacobi: no bound */
        MT_CHECK(derived == want, "%s, %g A: %ld smoother bounds derived, expected %ld", spec, c, derived, want);
        MT_CHECK(o.rc == OVK_OK && o.iterations == o1.iterations && o.rel == o1.rel && o.true_rel == o1.true_rel,
                 "%s, %g A on the kept hierarchy: %s, %d iterations, residual %.17g, true %.17g; A: %d, %.17g, %.17g",
                 spec, c, ovk_status_name(o.rc), o.iterations, o.rel, o.true_rel, o1.iterations, o1.rel, o1.true_rel);
    }
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

/* A then c A with s_i^-1 = c^-1/2 outside [2^-32, 2^32] (the float
 * weights of S^-1 P_0 kept well inside float's range): a full setup */
static void test_extreme_scale(void)
{
    static const double cs[] = {1e20, 1e-20};
    for (int k = 0; k < 2; k++) {
        field f = {0.3, 1.0, 0};
        ovk_matrix *A = NULL;
        ovk_solver *s = NULL;
        MT_RC(OVK_OK, make_matrix(&f, &A));
        MT_RC(OVK_OK, make_solver(A, "amg:reuse=10", &s));
        outcome o0 = solve_with(A, s);
        MT_RC(OVK_OK, update_scaled(A, &f, cs[k]));
        outcome o = solve_with(A, s);
        long full, kept;
        setups_of(s, &full, &kept);
        if (g_rank == 0)
            printf("A then %g A: %s in %d iterations (A: %d), true residual %.2e, %ld full setups, %ld kept\n", cs[k],
                   ovk_status_name(o.rc), o.iterations, o0.iterations, o.true_rel, full, kept);
        MT_CHECK(o0.rc == OVK_OK && o.rc == OVK_OK && o.true_rel < 1e-8, "%g A: %s, true residual %.2e", cs[k],
                 ovk_status_name(o.rc), o.true_rel);
        MT_CHECK(full == 2 && kept == 0, "%g A: %ld full setups, %ld kept (expected 2, 0: s_i out of range)", cs[k],
                 full, kept);
        ovk_solver_destroy(&s);
        ovk_matrix_destroy(A);
    }
}

/* iterations of a fresh object (spec) on D A D, A of f */
static int fresh_scaled_iterations(const field *f, double eps, const char *spec)
{
    ovk_matrix *B = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, make_matrix(f, &B));
    MT_RC(OVK_OK, update_scaled_d(B, f, 1.0, eps));
    MT_RC(OVK_OK, make_solver(B, spec, &s));
    outcome o = solve_with(B, s);
    MT_CHECK(o.rc == OVK_OK && o.true_rel < 1e-8, "fresh setup on D A D (eps %g): %s, residual %.2e", eps,
             ovk_status_name(o.rc), o.true_rel);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(B);
    return o.iterations;
}

/* A then D A D (d_i within eps of 1) on the kept interpolation: with
 * reuse_scale=diag (the default) the drift of S^-1 A S^-1 is zero to
 * rounding, and the solve takes at most a fresh setup's iterations + 1
 * and no more than with reuse_scale=none (fewer when strict); base:
 * further keys */
static void test_diag_scaling(const char *base, double eps, int strict)
{
    field f = {0.3, 1.0, 0};
    int it[2] = {0, 0};
    char spec[2][160];
    snprintf(spec[0], sizeof spec[0], "amg:reuse=10%s", base);
    snprintf(spec[1], sizeof spec[1], "amg:reuse=10,reuse_scale=none%s", base);
    int fresh = fresh_scaled_iterations(&f, eps, spec[0]);
    for (int k = 0; k < 2; k++) {
        ovk_matrix *A = NULL;
        ovk_solver *s = NULL;
        MT_RC(OVK_OK, make_matrix(&f, &A));
        MT_RC(OVK_OK, make_solver(A, spec[k], &s));
        outcome o0 = solve_with(A, s); /* the full setup on A */
        MT_RC(OVK_OK, update_scaled_d(A, &f, 1.0, eps));
        outcome o = solve_with(A, s);
        long full, kept;
        double drift;
        mt_amg_setups(s, &full, &kept, &drift);
        it[k] = o.iterations;
        if (g_rank == 0)
            printf("%s, A (%d iterations) then D A D (eps %g): %d iterations on the kept interpolation (drift %.3g), "
                   "%d fresh\n", spec[k], o0.iterations, eps, o.iterations, drift, fresh);
        MT_CHECK(o0.rc == OVK_OK && o.rc == OVK_OK && o.true_rel < 1e-8, "%s, D A D: %s, true residual %.2e", spec[k],
                 ovk_status_name(o.rc), o.true_rel);
        MT_CHECK(full == 1 && kept == 1, "%s, D A D: %ld full setups, %ld kept (expected 1, 1)", spec[k], full, kept);
        MT_CHECK(k == 1 || drift < 1e-12, "%s, D A D: drift %.3g of S^-1 A S^-1 (a pure scaling: 0 to rounding)",
                 spec[k], drift);
        ovk_solver_destroy(&s);
        ovk_matrix_destroy(A);
    }
    MT_CHECK(it[0] <= fresh + 1, "%s, D A D: %d iterations on the kept interpolation, %d fresh", spec[0], it[0], fresh);
    MT_CHECK(strict ? it[0] < it[1] : it[0] <= it[1], "D A D (eps %g): %d iterations scaled, %d with reuse_scale=none",
             eps, it[0], it[1]);
}

/* the view's level-0 smoother bound (0: none printed) */
static double view_emax(const char *text)
{
    const char *at = strstr(text, "smoother bound emax ");
    return at ? strtod(at + strlen("smoother bound emax "), NULL) : 0.0;
}

/* Collective: the largest eigenvalue of D^-1 A (D the l1 norms of A's
 * rows, both blocks) from 500 power steps: the Rayleigh quotient
 * <x, A x> / <x, D x>, a bound from below */
static double lambda_max(const ovk_matrix *A)
{
    int n = A->lay.nlocal;
    double *d = calloc((size_t)n + 1, sizeof(double)), *x = malloc(sizeof(double) * ((size_t)n + 1));
    double *y = malloc(sizeof(double) * ((size_t)n + 1)), q = 0.0;
    const ovk__csr *blk[2] = {&A->diag, &A->offd};
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < n; i++)
            for (int k = blk[b]->rowptr[i]; k < blk[b]->rowptr[i + 1]; k++) {
                int j = ovk__csr_col(blk[b], i, k);
                d[i] += fabs(blk[b]->val[k]);
                if (blk[b]->upper && j != i) d[j] += fabs(blk[b]->val[k]); /* a_ji, not stored */
            }
    for (int i = 0; i < n; i++) x[i] = 1.0 + 0.5 * sin(0.37 * (double)(A->lay.row_start + i));
    for (int it = 0; it < 500; it++) {
        ovk__matvec(A, x, y, NULL);
        double v[2] = {0.0, 0.0};
        for (int i = 0; i < n; i++) v[0] += x[i] * y[i], v[1] += x[i] * x[i] * d[i];
        MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        q = v[0] / v[1];
        for (int i = 0; i < n; i++) x[i] = y[i] / d[i] / sqrt(v[1]);
    }
    free(d), free(x), free(y);
    return q;
}

/* A then (after t += dt, a change of the field) D A D, d_i within eps of
 * 1, on the kept hierarchy with Chebyshev smoothing: the new emax, derived
 * or estimated, bounds the new largest eigenvalue of D^-1 A as well as the
 * full setup's bounded the old one, emax1 >= lambda1 min(1, emax0 /
 * lambda0) (the derived bound's claim; lambda from power steps, so 1 %
 * slack); with derived the update took the derived bound */
static void test_bound_safe(double dt, double eps, int derived)
{
    field f = {0.3, 1.0, 0};
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    char text[4096];
    MT_RC(OVK_OK, make_matrix(&f, &A));
    MT_RC(OVK_OK, make_solver(A, "amg:reuse=10,reuse_tol=1e6", &s));
    outcome o0 = solve_with(A, s);
    view_has(s, NULL, "", text, sizeof text);
    double emax0 = view_emax(text), lambda0 = lambda_max(A);
    f.t += dt;
    MT_RC(OVK_OK, update_scaled_d(A, &f, 1.0, eps));
    outcome o = solve_with(A, s);
    view_has(s, NULL, "", text, sizeof text);
    double emax1 = view_emax(text), lambda1 = lambda_max(A);
    long got = derived_count(text);
    if (g_rank == 0)
        printf("t += %g, D A D (eps %g): emax %.6f for lambda %.6f (full setup: %.6f for %.6f), %s; %d iterations "
               "(%d before)\n", dt, eps, emax1, lambda1, emax0, lambda0, got ? "derived" : "a power step",
               o.iterations, o0.iterations);
    MT_CHECK(o0.rc == OVK_OK && o.rc == OVK_OK && o.true_rel < 1e-8, "t += %g, eps %g: %s, true residual %.2e", dt,
             eps, ovk_status_name(o.rc), o.true_rel);
    MT_CHECK(emax0 > 0.0 && emax1 >= 0.99 * lambda1 * fmin(1.0, emax0 / lambda0),
             "t += %g, eps %g: emax %.6f below lambda %.6f times the full setup's margin %.6f / %.6f", dt, eps, emax1,
             lambda1, emax0, lambda0);
    MT_CHECK(!derived || got == 1, "t += %g, eps %g: %ld smoother bounds derived, expected 1", dt, eps, got);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

/* amg's apply_many on the scaled transfers (A then D A D on the kept
 * interpolation): each of k = 3 systems bitwise its apply; the kept
 * setup's ||A||_inf for the solver (env.row_l1_max) that of the matrix
 * layer's own pass to rounding, the full setup's left alone */
static void test_scaled_many(const char *spec)
{
    enum { K = 3 };
    field f = {0.3, 1.0, 0};
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, make_matrix(&f, &A));
    int n = A->lay.nlocal, differ = 0, longest;
    double l1_max = -1.0, norm_inf;
    ovk__pc pc = {0};
    ovk__pc_env env = {.A = A, .n = n, .comm = MPI_COMM_WORLD, .row_l1_max = &l1_max};
    MT_RC(OVK_OK, ovk__pc_create(spec, &pc));
    MT_RC(OVK_OK, pc.type->setup(pc.state, &env));
    MT_CHECK(l1_max == -1.0, "%s: the full setup gave ||A||_inf %g (it sums no rows of A)", spec, l1_max);
    MT_RC(OVK_OK, update_scaled_d(A, &f, 1.0, 0.2));
    MT_RC(OVK_OK, pc.type->setup(pc.state, &env)); /* on the kept interpolation, scaled */
    MT_RC(OVK_OK, ovk__matrix_row_stats(A, &norm_inf, &longest));
    MT_CHECK(n == 0 || fabs(l1_max - norm_inf) <= 1e-14 * norm_inf, "%s, D A D: ||A||_inf %.17g from the kept setup, "
             "%.17g from the matrix", spec, l1_max, norm_inf);
    char text[4096];
    double lo, hi;
    int kept = view_has(NULL, &pc, " 1 full setups, 1 on the kept interpolation", text, sizeof text);
    scaled_range(text, &lo, &hi);
    MT_CHECK(kept && lo > 0.0 && lo < 1.0 && hi > 1.0, "%s, D A D: kept and scaled (sinv around 1), view: %s", spec,
             text);
    double *r[K], *z[K], *ref = malloc(sizeof(double) * (size_t)(n + 1));
    for (int j = 0; j < K; j++) {
        r[j] = malloc(sizeof(double) * (size_t)(n + 1));
        z[j] = malloc(sizeof(double) * (size_t)(n + 1));
        for (int i = 0; i < n; i++) r[j][i] = tp_value((uint64_t)(A->lay.row_start + i) * 7 + (uint64_t)j);
    }
    MT_RC(OVK_OK, pc.type->apply_many(pc.state, K, (const double *const *)r, z, NULL, NULL, NULL));
    for (int j = 0; j < K; j++) {
        MT_RC(OVK_OK, pc.type->apply(pc.state, r[j], ref, NULL));
        differ += n > 0 && memcmp(z[j], ref, sizeof(double) * (size_t)n) != 0;
    }
    MT_CHECK(differ == 0, "%s, scaled transfers: %d of %d systems differ from their apply", spec, differ, K);
    for (int j = 0; j < K; j++) free(r[j]), free(z[j]);
    free(ref);
    ovk__pc_destroy(&pc);
    ovk_matrix_destroy(A);
}

/* reuse=2: updates 1, 2 kept, 3 a full setup, 4 kept */
static void test_every_k(void)
{
    field f = {0.0, 1.0, 0};
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, make_matrix(&f, &A));
    MT_RC(OVK_OK, make_solver(A, "amg:reuse=2", &s));
    for (int step = 1; step <= 4; step++) {
        f.t += 0.02;
        MT_RC(OVK_OK, update(A, &f));
        outcome o = solve_with(A, s);
        MT_CHECK(o.rc == OVK_OK && o.true_rel < 1e-8, "reuse=2, step %d: %s", step, ovk_status_name(o.rc));
    }
    long full, kept;
    setups_of(s, &full, &kept);
    MT_CHECK(full == 2 && kept == 3, "reuse=2 over 4 updates: %ld full setups, %ld kept (expected 2, 3)", full, kept);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

/* resident set in bytes (Linux), 0 when unknown */
static double rss_bytes(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0.0;
    int n = fscanf(f, "%ld %ld", &pages, &resident);
    fclose(f);
    return n == 2 ? (double)resident * 4096.0 : 0.0;
}

static void test_many_cycles(void)
{
    field f = {0.0, 1.0, 0};
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    double at10 = 0.0;
    MT_RC(OVK_OK, make_matrix(&f, &A));
    MT_RC(OVK_OK, make_solver(A, "amg:reuse=5", &s));
    for (int step = 1; step <= 50; step++) {
        f.t += 0.03;
        MT_RC(OVK_OK, update(A, &f));
        outcome o = solve_with(A, s);
        MT_CHECK(o.rc == OVK_OK && o.true_rel < 1e-8, "cycle %d: %s", step, ovk_status_name(o.rc));
        if (step == 10) at10 = rss_bytes();
    }
    double growth = rss_bytes() - at10;
    if (g_rank == 0) printf("50 update/solve cycles: resident set %+.1f MB from the 10th to the 50th\n", growth / 1e6);
#ifndef __SANITIZE_ADDRESS__ /* ASan keeps freed memory in quarantine: LeakSanitizer checks there, at exit */
    MT_CHECK(growth < 8e6, "the resident set grew by %.1f MB over 40 update/solve cycles", growth / 1e6);
#endif
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

static void test_bad_input(void)
{
    field f = {0.0, 1.0, 0};
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, make_matrix(&f, &A));
    int rc = make_solver(A, "amg:reuse=3,cycle=hypre", &s);
    MT_CHECK(rc == OVK_EOPTION && strstr(ovk_error_detail(), "reuse"), "reuse with cycle=hypre: %s (%s)",
             ovk_status_name(rc), ovk_error_detail());
    ovk_solver_destroy(&s);
    rc = make_solver(A, "amg:reuse=-1", &s);
    MT_CHECK(rc == OVK_EOPTION, "reuse=-1: %s", ovk_status_name(rc));
    ovk_solver_destroy(&s);
    rc = make_solver(A, "amg:reuse_coarse=galerkin,reuse_scale=diag", &s);
    MT_CHECK(rc == OVK_EOPTION && strstr(ovk_error_detail(), "reuse_scale"), "reuse_scale=diag with galerkin: %s (%s)",
             ovk_status_name(rc), ovk_error_detail());
    ovk_solver_destroy(&s);
    rc = make_solver(A, "amg:reuse_scale=both", &s);
    MT_CHECK(rc == OVK_EOPTION, "reuse_scale=both: %s", ovk_status_name(rc));
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

/* the same status on every rank */
static int same_status(int rc)
{
    int lo, hi;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

/* Value updates on a pattern whose diag block keeps both triangles (the
 * symmetry check's mirror pairs, made at the first check after an update):
 * symmetric values solve; a pair of mirrors 1e-6 apart, or an entry stored
 * without its mirror made nonzero, is refused with OVK_ENOTSYM on every
 * rank, naming the culprit; symmetric values again solve. */
static void test_update_symmetry(void)
{
    field f = {0.0, 1.0, 0};
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, sym_rows(&A, &f, 0.0, 0.0, 1.0));
    MT_RC(OVK_OK, make_solver(A, "amg", &s));
    outcome o = solve_with(A, s);
    MT_CHECK(o.rc == OVK_OK && o.true_rel < 1e-8, "both triangles, created: %s", ovk_status_name(o.rc));
    static const struct { double lone, bump; int rc; const char *what, *named; } steps[] = {
        {0.0, 0.0, OVK_OK, "symmetric", ""},
        {0.0, 1e-6, OVK_ENOTSYM, "a_01 1e-6 from a_10", "A(0,1)"},
        {1e-3, 0.0, OVK_ENOTSYM, "an entry without its mirror made nonzero", "but A("},
        {0.0, 0.0, OVK_OK, "symmetric again", ""},
    };
    for (int k = 0; k < 4; k++) {
        f.t += 0.05;
        MT_RC(OVK_OK, sym_rows(&A, &f, steps[k].lone, steps[k].bump, 1.0));
        o = solve_with(A, s);
        MT_CHECK(o.rc == steps[k].rc && same_status(o.rc), "update %d (%s): %s, expected %s on every rank", k + 1,
                 steps[k].what, ovk_status_name(o.rc), ovk_status_name(steps[k].rc));
        MT_CHECK(o.rc != OVK_ENOTSYM || strstr(ovk_error_detail(), steps[k].named), "update %d: '%s' names no %s",
                 k + 1, ovk_error_detail(), steps[k].named);
        MT_CHECK(o.rc != OVK_OK || o.true_rel < 1e-8, "update %d: true residual %.2e", k + 1, o.true_rel);
    }
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    test_small_changes(0, 4, "amg:reuse=10,reuse_coarse=galerkin");
    test_small_changes(1, 3, "amg:reuse=10,reuse_coarse=galerkin");
    test_small_changes(0, 4, "amg:reuse=10,reuse_coarse=keep");
    test_small_changes(1, 3, "amg:reuse=10,reuse_coarse=keep");
    test_small_changes(0, 2, "amg:reuse=10,precision=double");
    test_diag_scaling("", 0.05, 0);
    test_diag_scaling(",reuse_tol=1e6", 0.5, 1);
    test_diag_scaling(",reuse_tol=1e6,precision=double", 0.5, 1);
    test_bound_safe(0.0, 0.05, 1);
    test_bound_safe(0.05, 0.05, 0);
    test_bound_safe(0.5, 0.3, 0);
    test_scaled_many("amg");
    test_scaled_many("amg:precision=double");
    test_large_change();
    test_every_k();
    test_exact_refresh();
    test_exact_scaled("amg:smoother=l1jacobi,reuse=10", 0);
    test_exact_scaled("amg:smoother=l1jacobi,reuse=10,precision=double", 0);
    test_exact_scaled("amg:reuse=10", 0);
    test_exact_scaled("amg:reuse=10,precision=double", 0);
    test_exact_scaled("amg:reuse=10", 1);
    test_exact_scaled("amg:smoother=l1jacobi,reuse=10", 1);
    test_extreme_scale();
    test_many_cycles();
    test_bad_input();
    test_update_symmetry();
    int rc = mt_finish("test_amg_reuse");
    MPI_Finalize();
    return rc;
}
#endif
