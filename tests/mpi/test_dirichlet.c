/* Dirichlet rows whose columns were not eliminated (a DMDA assembly's, as
 * PETSc's ksp ex45 makes them): the 7-point Laplacian on a G^3 grid whose
 * rows on the faces x = 0 and y = G-1 are a_ii alone, the other rows
 * keeping their entries in those columns (A not symmetric), rows split
 * unevenly (a rank without rows from 3 ranks).
 *   - alg1, pipecg and plcg with jacobi solve it: the iterations those of
 *     the symmetrically eliminated system built here (E, b - A_ND x_D) +-1,
 *     ||b - A x|| within the tolerance, x_i = b_i / a_ii exactly on the
 *     Dirichlet rows, the view saying how many rows were eliminated;
 *   - solve_many: each system converged, x as the single solve's;
 *   - new values on the same pattern (ovk_matrix_update_values): solved
 *     again on them;
 *   - the same matrix with one more asymmetry away from the Dirichlet rows:
 *     refused (OVK_ENOTSYM) naming that entry, on every rank;
 *   - gmres (nonsymmetric) runs on A itself, eliminating nothing. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

enum { G = 12 }; /* 1728 rows, 276 on the Dirichlet faces */

static int rank, nranks;
static const double DIAG_D = 2.5; /* a Dirichlet row's a_ii (not 1: b_i / a_ii must be used) */

static int on_face(int64_t g)
{
    int64_t x = g % G, y = (g / G) % G;
    return x == 0 || y == G - 1;
}

/* the rows: Dirichlet faces as a_ii alone; elim: the other rows drop those
 * columns too (the eliminated system); skew: one more asymmetry at an
 * interior pair; scale: every value times it */
static int make(ovk_matrix **A, int elim, int skew, double scale, tp_rows *out)
{
    tp_rows r;
    tp_rows_alloc(&r, (int64_t)G * G * G, 7);
    int len = 0;
    for (int i = 0; i < r.count; i++) {
        int64_t g = r.start + i, x = g % G, y = (g / G) % G, z = g / ((int64_t)G * G);
        for (int d = 0; d < 7; d++) {
            static const int dx[7] = {0, -1, 1, 0, 0, 0, 0}, dy[7] = {0, 0, 0, -1, 1, 0, 0},
                             dz[7] = {0, 0, 0, 0, 0, -1, 1};
            int64_t a = x + dx[d], b = y + dy[d], c = z + dz[d];
            if (a < 0 || b < 0 || c < 0 || a >= G || b >= G || c >= G) continue;
            int64_t col = a + G * (b + (int64_t)G * c);
            if (on_face(g) && d > 0) continue; /* a Dirichlet row: a_ii alone */
            if (elim && !on_face(g) && on_face(col)) continue;
            r.col[len] = col;
            r.val[len] = scale * (d == 0 ? (on_face(g) ? DIAG_D : 6.0) : -1.0);
            if (skew && g == 5 + G * (5 + G * 5) && col == g + 1) r.val[len] -= 0.25; /* A(g, g+1) != A(g+1, g) */
            len++;
        }
        r.ptr[i + 1] = len;
    }
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, r.start, r.count, r.ptr, r.col, r.val, OVK_DUP_REJECT, A);
    if (out) *out = r;
    else tp_rows_free(&r);
    return rc;
}

/* b' = b - A_ND x_D of the eliminated system (x_D = b_D / a_DD) */
static void eliminated_b(const ovk_matrix *A, const ovk_vector *b, ovk_vector *be, double scale)
{
    ovk_vector *xd = NULL, *t = NULL;
    ovk_vector_duplicate(b, &xd);
    ovk_vector_duplicate(b, &t);
    const double *bv = ovk_vector_data_const(b);
    double *xv = ovk_vector_data(xd), *tv = ovk_vector_data(t), *ev = ovk_vector_data(be);
    int n = ovk_matrix_nlocal(A);
    int64_t start = ovk_matrix_row_start(A);
    for (int i = 0; i < n; i++) xv[i] = on_face(start + i) ? bv[i] / (scale * DIAG_D) : 0.0;
    ovk_matvec(A, xd, t);
    for (int i = 0; i < n; i++) ev[i] = on_face(start + i) ? bv[i] : bv[i] - tv[i];
    ovk_vector_destroy(xd);
    ovk_vector_destroy(t);
}

static ovk_solver *solver(ovk_matrix *A, const char *name)
{
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", name));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "jacobi"));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-10, 0.0, 500));
    return s;
}

/* x_i = b_i / a_ii on every Dirichlet row, bit for bit */
static int dirichlet_exact(const ovk_matrix *A, const ovk_vector *b, const ovk_vector *x, double scale)
{
    const double *bv = ovk_vector_data_const(b), *xv = ovk_vector_data_const(x);
    int bad = 0;
    for (int i = 0; i < ovk_matrix_nlocal(A); i++)
        if (on_face(ovk_matrix_row_start(A) + i) && xv[i] != bv[i] / (scale * DIAG_D)) bad++;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return bad;
}

/* the text of ovk_solver_view */
static void view_text(const ovk_solver *s, char *text, size_t cap)
{
    FILE *f = tmpfile();
    ovk_solver_view(s, f);
    rewind(f);
    size_t len = fread(text, 1, cap - 1, f);
    text[len] = '\0';
    fclose(f);
}

static void check_variant(ovk_matrix *A, ovk_matrix *E, const char *name, double scale)
{
    ovk_vector *b = NULL, *be = NULL, *x = NULL, *xe = NULL;
    ovk_pcg_result res, ref;
    char text[8192];
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    ovk_vector_create(E, &be);
    ovk_vector_create(E, &xe);
    mt_random_b(A, b);
    eliminated_b(A, b, be, scale);
    ovk_solver *se = solver(E, name), *s = solver(A, name);
    MT_RC(OVK_OK, ovk_solver_solve(se, be, xe, &ref));
    int rc = ovk_solver_solve(s, b, x, &res);
    MT_CHECK(rc == OVK_OK, "%s: status %d (%s)", name, rc, rc ? ovk_error_detail() : "");
    if (rank == 0) printf("%-7s scale %g: %d iterations, the eliminated system %d\n", name, scale, res.iterations, ref.iterations);
    MT_CHECK(abs(res.iterations - ref.iterations) <= 1, "%s: %d iterations, the eliminated system's %d", name,
             res.iterations, ref.iterations);
    double rel = mt_rel_residual(A, b, x);
    MT_CHECK(rel <= 1e-9, "%s: ||b - A x|| / ||b|| = %g", name, rel);
    MT_CHECK(dirichlet_exact(A, b, x, scale) == 0, "%s: x_D is not b_D / a_DD", name);
    view_text(s, text, sizeof text);
    MT_CHECK(strstr(text, "Dirichlet rows: 276 eliminated symmetrically") != NULL, "%s: the view: %s", name, text);
    ovk_solver_destroy(&s);
    ovk_solver_destroy(&se);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_vector_destroy(be);
    ovk_vector_destroy(xe);
}

/* solve_many: each system converged, x as its single solve's */
static void check_many(ovk_matrix *A)
{
    enum { K = 2 };
    ovk_vector *B[K], *X[K], *y = NULL;
    ovk_pcg_result res[K], one;
    ovk_vector_create(A, &y);
    for (int j = 0; j < K; j++) {
        ovk_vector_create(A, &B[j]);
        ovk_vector_create(A, &X[j]);
        mt_random_b(A, B[j]);
        ovk_vector_scale(1.0 + j, B[j]);
    }
    ovk_solver *s = solver(A, "pipecg");
    int rc = ovk_solver_solve_many(s, K, B, X, res);
    MT_CHECK(rc == OVK_OK, "solve_many: status %d (%s)", rc, rc ? ovk_error_detail() : "");
    for (int j = 0; j < K; j++) {
        ovk_vector_set(y, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, B[j], y, &one));
        ovk_vector_axpy(-1.0, X[j], y);
        double d = 0.0, xn = 0.0;
        ovk_vector_norm2(y, &d);
        ovk_vector_norm2(X[j], &xn);
        MT_CHECK(d <= 1e-8 * xn && mt_rel_residual(A, B[j], X[j]) <= 1e-9 && dirichlet_exact(A, B[j], X[j], 1.0) == 0,
                 "solve_many system %d: ||x - x_alone|| = %g of %g, residual %g", j, d, xn,
                 mt_rel_residual(A, B[j], X[j]));
    }
    ovk_solver_destroy(&s);
    for (int j = 0; j < K; j++) {
        ovk_vector_destroy(B[j]);
        ovk_vector_destroy(X[j]);
    }
    ovk_vector_destroy(y);
}

/* new values on the pattern: the next solve eliminates again on them */
static void check_update(void)
{
    ovk_matrix *A = NULL;
    tp_rows r;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    MT_RC(OVK_OK, make(&A, 0, 0, 1.0, &r));
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    mt_random_b(A, b);
    ovk_solver *s = solver(A, "alg1");
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    for (int k = 0; k < r.ptr[r.count]; k++) r.val[k] *= 3.0;
    MT_RC(OVK_OK, ovk_matrix_update_values(A, r.ptr, r.col, r.val, OVK_DUP_REJECT));
    ovk_vector_set(x, 0.0);
    int rc = ovk_solver_solve(s, b, x, &res);
    MT_CHECK(rc == OVK_OK && mt_rel_residual(A, b, x) <= 1e-9 && dirichlet_exact(A, b, x, 3.0) == 0,
             "after the update: status %d (%s), residual %g", rc, rc ? ovk_error_detail() : "", mt_rel_residual(A, b, x));
    ovk_solver_destroy(&s);
    tp_rows_free(&r);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* one asymmetry more, away from the Dirichlet rows: refused by name on every rank */
static void check_refused(void)
{
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, make(&A, 0, 1, 1.0, NULL));
    ovk_solver *s = solver(A, "alg1");
    int rc = ovk_solver_setup(s);
    long long r = rc;
    int64_t g = 5 + G * (5 + G * 5);
    char want[64], mirror[64]; /* either side of the pair, as the rank finding it names it */
    snprintf(want, sizeof want, "A(%lld,%lld) = ", (long long)g, (long long)g + 1);
    snprintf(mirror, sizeof mirror, "A(%lld,%lld) = ", (long long)g + 1, (long long)g);
    const char *d = ovk_error_detail();
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &r, 1), "the ranks returned different statuses");
    MT_CHECK(rc == OVK_ENOTSYM && strstr(d, want) && strstr(d, mirror) && strstr(d, "276 Dirichlet rows"),
             "skewed: status %d (%s), expected OVK_ENOTSYM naming %s", rc, ovk_error_detail(), want);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

/* gmres takes A as it is: nothing eliminated, solved */
static void check_nonsymmetric(ovk_matrix *A)
{
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    char text[8192];
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    mt_random_b(A, b);
    ovk_solver *s = solver(A, "gmres");
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    MT_CHECK(mt_rel_residual(A, b, x) <= 1e-9, "gmres: residual %g", mt_rel_residual(A, b, x));
    view_text(s, text, sizeof text);
    MT_CHECK(!strstr(text, "Dirichlet rows"), "gmres eliminated rows: %s", text);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    ovk_matrix *A = NULL, *E = NULL;
    MT_RC(OVK_OK, make(&A, 0, 0, 1.0, NULL));
    MT_RC(OVK_OK, make(&E, 1, 0, 1.0, NULL));
    const char *names[] = {"alg1", "pipecg", "plcg"};
    for (int v = 0; v < 3; v++) check_variant(A, E, names[v], 1.0);
    check_many(A);
    check_update();
    check_refused();
    check_nonsymmetric(A);
    ovk_matrix_destroy(A);
    ovk_matrix_destroy(E);
    int status = mt_finish("test_dirichlet");
    MPI_Finalize();
    return status;
}
