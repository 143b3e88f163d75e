/* A declared null space under the nonsymmetric (right-preconditioned)
 * solvers: the pure Neumann 27-point Laplacian on a G^3 grid, plus (skew)
 * a circulant skew-symmetric part a_{i,i+1} += c, a_{i+1,i} -= c (indices
 * mod N), so that A 1 = A^T 1 = 0 and A is not symmetric; rows split
 * unevenly (a rank without rows from 3 ranks).
 *   - gmres, fgmres, pgmres, bicgstab, pipebicgstab, idrs, pipeidrs and
 *     auto, with jacobi, on the symmetric and the skewed matrix, with a
 *     consistent b on one and an inconsistent one on the other: converged, x of zero mean to rounding, the
 *     projected system's true residual within the tolerance, and the
 *     reported inconsistency ||Z^T b|| / ||b|| that of b's mean;
 *   - alg2 (a CG variant that projects nothing) still refuses one, naming
 *     the solvers that take it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

enum { G = 8 }; /* 512 rows */

static const char *const variants[] = {"gmres", "fgmres", "pgmres", "bicgstab", "pipebicgstab", "idrs", "pipeidrs",
                                       "auto"};
enum { NVAR = 8 };

static int rank, nranks;

static double gsum(double v)
{
    double out = 0.0;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return out;
}

/* the Neumann Laplacian (each a_ii the negated sum of its row's
 * off-diagonals), with the circulant skew part c */
static int neumann(ovk_matrix **A, double c)
{
    int count, *ptr;
    int64_t start, N = (int64_t)G * G * G;
    ovk_gidx *cols;
    double *vals;
    tp_split(N, rank, nranks, &start, &count);
    tp_laplace_rows(27, G, 0.0, start, count, &ptr, &cols, &vals);
    int total = ptr[count];
    int *p2 = malloc(sizeof(int) * ((size_t)count + 1));
    ovk_gidx *c2 = malloc(sizeof(ovk_gidx) * ((size_t)total + 2 * (size_t)count + 1));
    double *v2 = malloc(sizeof(double) * ((size_t)total + 2 * (size_t)count + 1));
    int len = 0;
    p2[0] = 0;
    for (int i = 0; i < count; i++) {
        double row_sum = 0.0;
        int diag = -1;
        for (int p = ptr[i]; p < ptr[i + 1]; p++) {
            row_sum += vals[p];
            if (cols[p] == start + i) diag = len;
            c2[len] = cols[p];
            v2[len++] = vals[p];
        }
        v2[diag] -= row_sum;
        c2[len] = (start + i + 1) % N, v2[len++] = c; /* summed with a stencil entry there (OVK_DUP_SUM) */
        c2[len] = (start + i - 1 + N) % N, v2[len++] = -c;
        p2[i + 1] = len;
    }
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, p2, c2, v2, OVK_DUP_SUM, A);
    free(ptr), free(cols), free(vals), free(p2), free(c2), free(v2);
    return rc;
}

/* b: deterministic values, of zero mean (consistent) or shifted */
static void fill_b(ovk_matrix *A, ovk_vector *b, int consistent)
{
    double *v = ovk_vector_data(b), sum = 0.0;
    int n = ovk_vector_nlocal(b);
    for (int i = 0; i < n; i++) sum += v[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i)) + 0.25;
    double mean = gsum(sum) / (double)ovk_matrix_nglobal(A);
    if (consistent)
        for (int i = 0; i < n; i++) v[i] -= mean;
}

static void check_solve(ovk_matrix *A, const char *solver, int consistent, const char *what)
{
    ovk_vector *b = NULL, *x = NULL, *r = NULL;
    ovk_pcg_result res;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    ovk_vector_create(A, &r);
    fill_b(A, b, consistent);
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solver));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "jacobi"));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-9, 0.0, 1000));
    MT_RC(OVK_OK, consistent ? ovk_solver_set_option(s, "nullspace", "constant") : ovk_solver_set_nullspace(s, 1, 0, NULL));
    int rc = ovk_solver_solve(s, b, x, &res);
    MT_CHECK(rc == OVK_OK && res.reason == OVK_REASON_CONVERGED, "%s, %s, b %s: status %d (%s) after %d iterations",
             solver, what, consistent ? "consistent" : "inconsistent", rc, rc ? ovk_error_detail() : "",
             res.iterations);
    if (rank == 0)
        printf("%-12s %-9s b %-12s: %3d iterations, inconsistency %.3e\n", solver, what,
               consistent ? "consistent" : "inconsistent", res.iterations, res.nullspace_inconsistency);
    const double *bv = ovk_vector_data(b), *xv = ovk_vector_data(x);
    int n = ovk_vector_nlocal(b);
    double N = (double)ovk_matrix_nglobal(A), sb = 0.0, bb = 0.0, sx = 0.0, xx = 0.0;
    for (int i = 0; i < n; i++) sb += bv[i], bb += bv[i] * bv[i], sx += xv[i], xx += xv[i] * xv[i];
    sb = gsum(sb), bb = gsum(bb), sx = gsum(sx), xx = gsum(xx);
    MT_CHECK(fabs(sx) / sqrt(N) <= 1e-12 * sqrt(xx), "%s, %s: x's mean %g (||x|| %g)", solver, what, sx / N, sqrt(xx));
    double want = fabs(sb) / sqrt(N) / sqrt(bb); /* ||Z^T b|| / ||b||, Z = 1 / sqrt(N) */
    MT_CHECK(fabs(res.nullspace_inconsistency - want) <= 1e-12 + 1e-10 * want, "%s, %s: inconsistency %.17g, b's %.17g",
             solver, what, res.nullspace_inconsistency, want);
    MT_CHECK(consistent ? want < 1e-12 : want > 0.1, "%s: b's null-space part %g", solver, want);
    ovk_matvec(A, x, r); /* the projected system's true residual: b - mean(b) - A x */
    double *rv = ovk_vector_data(r), rr = 0.0, pb = 0.0;
    for (int i = 0; i < n; i++) {
        double bp = bv[i] - sb / N;
        rv[i] = bp - rv[i];
        rr += rv[i] * rv[i], pb += bp * bp;
    }
    rr = gsum(rr), pb = gsum(pb);
    MT_CHECK(sqrt(rr) <= 1e-8 * sqrt(pb), "%s, %s: ||Pb - A x|| / ||Pb|| = %g (reported %g)", solver, what,
             sqrt(rr / pb), res.rel_residual);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_vector_destroy(r);
}

/* a variant that does not take one refuses it, naming those that do */
static void check_refused(ovk_matrix *A)
{
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "alg2"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "nullspace", "constant"));
    int rc = ovk_solver_setup(s);
    long long r = rc;
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &r, 1), "alg2: the ranks returned different statuses");
    MT_CHECK(rc == OVK_EUNSUPPORTED && strstr(ovk_error_detail(), "alg2 does not take a null space") &&
                 strstr(ovk_error_detail(), "gmres") && strstr(ovk_error_detail(), "pipeidrs"),
             "alg2: status %d (%s)", rc, ovk_error_detail());
    ovk_solver_destroy(&s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    ovk_matrix *A = NULL, *S = NULL;
    MT_RC(OVK_OK, neumann(&A, 0.0));
    MT_RC(OVK_OK, neumann(&S, 0.75));
    for (int v = 0; v < NVAR; v++) { /* each matrix with one kind of b, alternating */
        check_solve(A, variants[v], v % 2, "symmetric");
        check_solve(S, variants[v], !(v % 2), "skewed");
    }
    check_refused(A);
    ovk_matrix_destroy(A);
    ovk_matrix_destroy(S);
    int status = mt_finish("test_nullspace_nonsym");
    MPI_Finalize();
    return status;
}
