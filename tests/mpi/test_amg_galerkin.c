/* amg's Galerkin product by sums over P's rows (amg_galerkin.c), against
 * hypre's general product P^T A P on the same matrices:
 *   - a P of 0-3 entries a row at columns anywhere (rows of one rank
 *     summing into coarse rows of others), on a 2-D Laplacian and on a
 *     2-unknown system;
 *   - the aggregation hierarchy's prolongators (ovk__amg_agg_build, the
 *     constants and the 2-unknown system's rotation), tentative and
 *     smoothed, each level, also with coarse levels gathered onto fewer
 *     ranks (agg_gather);
 *   - the smoothed prolongator's rows P - diag(s) A P (ovk__amg_smooth_rows)
 *     against the dense product, on the short-row P;
 *   - the kept pattern's numeric product (ovk__amg_rap_values) after A's
 *     values changed, and a matrix of another pattern refused with
 *     OVK_EMISMATCH on every rank;
 *   - through the solver, amg:setup=agg,agg_smooth=0 with reuse=10,
 *     reuse_coarse=galerkin on a 27-point Laplacian whose values change:
 *     the update is served on the kept hierarchy (the view's counts), its
 *     solve converges in at most a fresh object's iterations + 1 (the same
 *     aggregates: agg_threshold=0 aggregates on the pattern).
 * Entrywise to 1e-13 of the largest entry (the sums' order differs from
 * hypre's), with the same entries.  The rows split unevenly: at 3-4 ranks
 * the last rank owns no fine and no coarse rows.  Self-checking at 1-4
 * ranks; without hypre in the build: skipped (77). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

#ifdef OVK_HAVE_HYPRE
#include <HYPRE_IJ_mv.h>

#include "precond/amg_agg.h"
#include "precond/amg_galerkin.h"
#include "hypre_dense.h"

static int g_rank, g_size;

/* rows [lo, hi] of n split unevenly (none on the last of 3+ ranks) */
static void split(long n, long *lo, long *hi)
{
    int parts = g_size >= 3 ? g_size - 1 : g_size, r = g_rank;
    if (r >= parts) {
        *lo = n, *hi = n - 1;
        return;
    }
    long base = n / parts, extra = n % parts; /* the first ranks one more */
    *lo = r * base + (r < extra ? r : extra);
    *hi = *lo + base + (r < extra) - 1;
}

/* the 5-point operator on nx x ny nodes of bs unknowns, its values times
 * 1 + bump ((i + j) mod 5) / 10 (bump 0: the plain operator; the same
 * pattern) */
static hypre_ParCSRMatrix *grid(int nx, int ny, int bs, double bump, HYPRE_IJMatrix *ij)
{
    long nn = (long)nx * ny, lo, hi;
    split(nn, &lo, &hi);
    HYPRE_BigInt r0 = lo * bs, r1 = (hi + 1) * bs - 1;
    HYPRE_IJMatrixCreate(MPI_COMM_WORLD, r0, r1, r0, r1, ij);
    HYPRE_IJMatrixSetObjectType(*ij, HYPRE_PARCSR);
    HYPRE_IJMatrixInitialize(*ij);
    for (long node = lo; node <= hi; node++)
        for (int c = 0; c < bs; c++) {
            HYPRE_BigInt row = node * bs + c, cols[5 * 2];
            double vals[5 * 2];
            HYPRE_Int len = 0;
            int x = (int)(node % nx), y = (int)(node / nx);
            const int dx[5] = {0, -1, 1, 0, 0}, dy[5] = {0, 0, 0, -1, 1};
            for (int d = 0; d < 5; d++) {
                int a = x + dx[d], b = y + dy[d];
                if (a < 0 || b < 0 || a >= nx || b >= ny) continue;
                for (int e = 0; e < bs; e++) {
                    HYPRE_BigInt col = ((HYPRE_BigInt)b * nx + a) * bs + e;
                    double v = (d ? -1.0 : 4.0) * (c == e ? 2.0 : 1.0);
                    cols[len] = col, vals[len++] = v * (1.0 + bump * (double)((row + col) % 5) / 10.0);
                }
            }
            HYPRE_IJMatrixSetValues(*ij, 1, &len, &row, cols, vals);
        }
    HYPRE_IJMatrixAssemble(*ij);
    void *obj = NULL;
    HYPRE_IJMatrixGetObject(*ij, &obj);
    hypre_ParCSRMatrix *A = obj;
    if (!hypre_ParCSRMatrixCommPkg(A)) hypre_MatvecCommPkgCreate(A);
    return A;
}

/* a P of N rows and Nc columns: row g has g mod 4 entries (0-3) at columns
 * spread over all of [0, Nc) */
static hypre_ParCSRMatrix *short_rows(hypre_ParCSRMatrix *A, long Nc, HYPRE_IJMatrix *ij)
{
    HYPRE_BigInt r0 = hypre_ParCSRMatrixFirstRowIndex(A);
    HYPRE_BigInt r1 = r0 + hypre_CSRMatrixNumRows(hypre_ParCSRMatrixDiag(A)) - 1;
    long clo, chi;
    split(Nc, &clo, &chi);
    HYPRE_IJMatrixCreate(MPI_COMM_WORLD, r0, r1, clo, chi, ij);
    HYPRE_IJMatrixSetObjectType(*ij, HYPRE_PARCSR);
    HYPRE_IJMatrixInitialize(*ij);
    for (HYPRE_BigInt g = r0; g <= r1; g++) {
        HYPRE_BigInt cols[3];
        double vals[3];
        HYPRE_Int len = (HYPRE_Int)(g % 4);
        for (int s = 0; s < len; s++)
            cols[s] = (g * 7 / 3 + (HYPRE_BigInt)s * (Nc / 3)) % Nc, vals[s] = 0.5 + (double)((g * 31 + s * 17) % 11) / 10.0;
        if (len) HYPRE_IJMatrixSetValues(*ij, 1, &len, &g, cols, vals);
    }
    HYPRE_IJMatrixAssemble(*ij);
    void *obj = NULL;
    HYPRE_IJMatrixGetObject(*ij, &obj);
    hypre_ParCSRMatrix *P = obj;
    if (!hypre_ParCSRMatrixCommPkg(P)) hypre_MatvecCommPkgCreate(P);
    return P;
}

/* Collective: our product against hypre's, entrywise and in entries */
static void same(hypre_ParCSRMatrix *ours, hypre_ParCSRMatrix *A, hypre_ParCSRMatrix *P, const char *what)
{
    hypre_ParCSRMatrix *ref = NULL;
    MT_CHECK(!hypre_BoomerAMGBuildCoarseOperator(P, A, P, &ref) && ref, "%s: hypre's product failed", what);
    if (!ref) return;
    MT_CHECK(hypre_ParCSRMatrixGlobalNumRows(ours) == hypre_ParCSRMatrixGlobalNumRows(ref), "%s: %lld rows, hypre %lld",
             what, (long long)hypre_ParCSRMatrixGlobalNumRows(ours), (long long)hypre_ParCSRMatrixGlobalNumRows(ref));
    hypre_ParCSRMatrixSetNumNonzeros(ref);
    MT_CHECK(hypre_ParCSRMatrixNumNonzeros(ours) == hypre_ParCSRMatrixNumNonzeros(ref), "%s: %lld entries, hypre %lld",
             what, (long long)hypre_ParCSRMatrixNumNonzeros(ours), (long long)hypre_ParCSRMatrixNumNonzeros(ref));
    size_t n = (size_t)hypre_ParCSRMatrixGlobalNumRows(ref);
    double *a = hypre_dense(ours), *b = hypre_dense(ref), err = 0.0, big = 0.0;
    for (size_t t = 0; t < n * n; t++) err = fmax(err, fabs(a[t] - b[t])), big = fmax(big, fabs(b[t]));
    MT_CHECK(big > 0.0 && err <= 1e-13 * big, "%s: |ours - hypre's| %.3g of %.3g", what, err, big);
    /* the diagonal first in each local row, as hypre's own */
    hypre_CSRMatrix *D = hypre_ParCSRMatrixDiag(ours);
    for (int i = 0; i < hypre_CSRMatrixNumRows(D); i++)
        if (hypre_CSRMatrixI(D)[i + 1] > hypre_CSRMatrixI(D)[i])
            MT_CHECK(hypre_CSRMatrixJ(D)[hypre_CSRMatrixI(D)[i]] == i, "%s: row %d's diagonal not first", what, i);
    free(a), free(b);
    hypre_ParCSRMatrixDestroy(ref);
}

/* Collective: the rows of P - diag(s) A P (ovk__amg_smooth_rows, s_g =
 * 0.1 + (g mod 7) / 100 at global row g) against the dense product */
static void smooth_rows_same(hypre_ParCSRMatrix *A, hypre_ParCSRMatrix *P, const char *what)
{
    int n = hypre_CSRMatrixNumRows(hypre_ParCSRMatrixDiag(A));
    HYPRE_BigInt r0 = hypre_ParCSRMatrixFirstRowIndex(A);
    size_t N = (size_t)hypre_ParCSRMatrixGlobalNumRows(A), C = (size_t)hypre_ParCSRMatrixGlobalNumCols(P);
    double *scale = malloc(sizeof(double) * ((size_t)n + 1)), *ours = calloc(N * C + 1, sizeof(double));
    for (int i = 0; i < n; i++) scale[i] = 0.1 + (double)((r0 + i) % 7) / 100.0;
    int *ptr = NULL;
    HYPRE_BigInt *gcol = NULL;
    double *val = NULL;
    MT_RC(OVK_OK, ovk__amg_smooth_rows(A, P, scale, &ptr, &gcol, &val));
    for (int i = 0; ptr && i < n; i++)
        for (int e = ptr[i]; e < ptr[i + 1]; e++) ours[(size_t)(r0 + i) * C + (size_t)gcol[e]] += val[e];
    MPI_Allreduce(MPI_IN_PLACE, ours, (int)(N * C), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double *a = hypre_dense(A), *p = hypre_dense(P), err = 0.0, big = 0.0;
    for (size_t g = 0; g < N; g++)
        for (size_t c = 0; c < C; c++) {
            double ap = 0.0;
            for (size_t j = 0; j < N; j++) ap += a[g * N + j] * p[j * C + c];
            double ref = p[g * C + c] - (0.1 + (double)(g % 7) / 100.0) * ap;
            err = fmax(err, fabs(ours[g * C + c] - ref)), big = fmax(big, fabs(ref));
        }
    MT_CHECK(big > 0.0 && err <= 1e-13 * big, "%s, smoothed rows: |ours - dense| %.3g of %.3g", what, err, big);
    free(scale), free(ours), free(ptr), free(gcol), free(val), free(a), free(p);
}

/* a P of short rows: the product, then the numeric product on new values
 * and a refused pattern; the smoothed rows of P */
static void short_rows_case(int nx, int ny, int bs, long Nc, const char *what)
{
    HYPRE_IJMatrix ija, ijp, ijb, ijo;
    hypre_ParCSRMatrix *A = grid(nx, ny, bs, 0.0, &ija), *P = short_rows(A, Nc, &ijp), *Ac = NULL;
    ovk__amg_rap *plan = NULL;
    MT_RC(OVK_OK, ovk__amg_rap_build(A, P, &Ac, &plan));
    if (Ac) same(Ac, A, P, what);
    smooth_rows_same(A, P, what);
    hypre_ParCSRMatrix *B = grid(nx, ny, bs, 1.0, &ijb); /* new values, A's pattern */
    if (plan) {
        char w[160];
        snprintf(w, sizeof w, "%s, new values on the kept pattern", what);
        MT_RC(OVK_OK, ovk__amg_rap_values(plan, B, Ac));
        same(Ac, B, P, w);
        hypre_ParCSRMatrix *other = grid(nx + 1, ny, bs, 0.0, &ijo); /* another pattern */
        MT_RC(OVK_EMISMATCH, ovk__amg_rap_values(plan, other, Ac));
        HYPRE_IJMatrixDestroy(ijo);
    }
    ovk__amg_rap_free(plan);
    if (Ac) hypre_ParCSRMatrixDestroy(Ac);
    HYPRE_IJMatrixDestroy(ija), HYPRE_IJMatrixDestroy(ijp), HYPRE_IJMatrixDestroy(ijb);
}

/* the aggregation hierarchy (smooth: smoothed prolongators, else the
 * tentative ones): each level's operator against hypre's product on the
 * level's P */
static void hierarchy_case(int nx, int ny, int bs, int smooth, double gather, const char *what)
{
    HYPRE_IJMatrix ij;
    hypre_ParCSRMatrix *A = grid(nx, ny, bs, smooth ? 0.0 : 1.0, &ij); /* smoothing needs an SPD A: the bumped system is not */
    int n = hypre_CSRMatrixNumRows(hypre_ParCSRMatrixDiag(A)), k = bs == 2 ? 3 : 1;
    HYPRE_BigInt r0 = hypre_ParCSRMatrixFirstRowIndex(A);
    double *B = calloc((size_t)n * k + 1, sizeof(double));
    for (int i = 0; i < n; i++) {
        long node = (long)((r0 + i) / bs);
        int c = (int)((r0 + i) % bs);
        B[(size_t)c * n + i] = 1.0;
        if (bs == 2) B[(size_t)2 * n + i] = c == 0 ? -(double)(node / nx) : (double)(node % nx);
    }
    HYPRE_BigInt part[2] = {r0, r0 + n};
    hypre_ParVector *b = hypre_ParVectorCreate(MPI_COMM_WORLD, hypre_ParCSRMatrixGlobalNumRows(A), part);
    hypre_ParVector *x = hypre_ParVectorCreate(MPI_COMM_WORLD, hypre_ParCSRMatrixGlobalNumRows(A), part);
    hypre_ParVectorInitialize(b), hypre_ParVectorInitialize(x);
    HYPRE_Solver s;
    HYPRE_BoomerAMGCreate(&s);
    ovk__amg_agg_opts o = {bs, 0.0, smooth, 25, 9, 1, 0, gather};
    ovk__amg_rap *plans[40] = {NULL};
    MT_RC(OVK_OK, ovk__amg_agg_build(A, b, x, k, B, &o, (hypre_ParAMGData *)s, NULL, plans));
    hypre_ParAMGData *d = (hypre_ParAMGData *)s;
    int nlev = hypre_ParAMGDataNumLevels(d);
    MT_CHECK(nlev >= 3, "%s: %d levels", what, nlev);
    for (int l = 0; l + 1 < nlev; l++) {
        char w[160];
        snprintf(w, sizeof w, "%s, level %d", what, l + 1);
        MT_CHECK(smooth || plans[l] != NULL, "%s: no kept product", w);
        same(hypre_ParAMGDataAArray(d)[l + 1], hypre_ParAMGDataAArray(d)[l], hypre_ParAMGDataPArray(d)[l], w);
    }
    for (int l = 0; l < 40; l++) ovk__amg_rap_free(plans[l]);
    HYPRE_BoomerAMGDestroy(s); /* the levels but level 0 */
    hypre_ParVectorDestroy(b), hypre_ParVectorDestroy(x);
    HYPRE_IJMatrixDestroy(ij);
    free(B);
}

/* Collective: cg1 + spec on A from x0 = 0 (b of tp_value): iterations, and
 * the true relative residual in *rel */
static int solve(const ovk_matrix *A, ovk_solver *s, double *rel)
{
    ovk_vector *b = NULL, *x = NULL, *r = NULL;
    ovk_pcg_result res;
    ovk_vector_create(A, &b), ovk_vector_create(A, &x), ovk_vector_create(A, &r);
    for (int i = 0; i < ovk_vector_nlocal(b); i++) ovk_vector_data(b)[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    int rc = ovk_solver_solve(s, b, x, &res);
    MT_RC(OVK_OK, rc);
    double nb = 0.0, nr = 0.0;
    ovk_matvec(A, x, r);
    ovk_vector_axpy(-1.0, b, r);
    ovk_vector_norm2(b, &nb), ovk_vector_norm2(r, &nr);
    *rel = nr / nb;
    ovk_vector_destroy(b), ovk_vector_destroy(x), ovk_vector_destroy(r);
    return res.iterations;
}

static int make_solver(const ovk_matrix *A, const char *pc, ovk_solver **s)
{
    int rc = ovk_solver_create(A, s);
    if (!rc) rc = ovk_solver_set_option(*s, "solver", "cg1");
    if (!rc) rc = ovk_solver_set_option(*s, "precond", pc);
    if (!rc) rc = ovk_solver_set_tolerances(*s, 1e-8, 0.0, 500);
    return rc ? rc : ovk_solver_setup(*s);
}

/* the 27-point Laplacian's rows, off-diagonal entries times 1 + f ((i + j)
 * mod 5) / 10 and the diagonal times 1 + 4 f / 10 (diagonally dominant) */
static int laplace(int g, double f, ovk_matrix **A, int update)
{
    int64_t start;
    int count, *ptr;
    ovk_gidx *cols;
    double *vals;
    tp_split((int64_t)g * g * g, g_rank, g_size, &start, &count);
    tp_laplace_rows(27, g, 0.0, start, count, &ptr, &cols, &vals);
    for (int i = 0; i < count; i++)
        for (int e = ptr[i]; e < ptr[i + 1]; e++)
            vals[e] *= cols[e] == start + i ? 1.0 + 0.4 * f : 1.0 + f * (double)((start + i + cols[e]) % 5) / 10.0;
    int rc = update ? ovk_matrix_update_values(*A, ptr, cols, vals, OVK_DUP_REJECT)
                    : ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, A);
    free(ptr), free(cols), free(vals);
    return rc;
}

static void solver_reuse(void)
{
    const char *spec = "amg:setup=agg,agg_smooth=0,agg_corr=1.6,degree=2,reuse=10,reuse_coarse=galerkin";
    ovk_matrix *A = NULL, *B = NULL;
    ovk_solver *s = NULL, *fresh = NULL;
    double rel = 1.0, frel = 1.0;
    MT_RC(OVK_OK, laplace(12, 0.0, &A, 0));
    MT_RC(OVK_OK, make_solver(A, spec, &s));
    int first = solve(A, s, &rel);
    MT_CHECK(rel < 1e-8, "solver reuse: the first solve's residual %.2e (%d iterations)", rel, first);
    MT_RC(OVK_OK, laplace(12, 0.5, &A, 1));
    int kept = solve(A, s, &rel);
    MT_RC(OVK_OK, laplace(12, 0.5, &B, 0));
    MT_RC(OVK_OK, make_solver(B, spec, &fresh));
    int anew = solve(B, fresh, &frel);
    if (g_rank == 0) printf("solver reuse: %d iterations, %d on the kept hierarchy, %d fresh\n", first, kept, anew);
    MT_CHECK(rel < 1e-8 && kept <= anew + 1, "solver reuse: %d iterations on the kept hierarchy (residual %.2e), %d fresh",
             kept, rel, anew);
    char text[4096] = "";
    int n = 0;
    if (g_rank == 0) {
        FILE *f = tmpfile();
        if (f && ovk_solver_view(s, f) == OVK_OK) rewind(f), n = (int)fread(text, 1, sizeof text - 1, f);
        if (f) fclose(f);
        text[n] = '\0';
    }
    MPI_Bcast(text, sizeof text, MPI_CHAR, 0, MPI_COMM_WORLD);
    MT_CHECK(strstr(text, "1 full setups, 1 on the kept interpolation") != NULL, "solver reuse: the view: %s", text);
    ovk_solver_destroy(&s), ovk_solver_destroy(&fresh);
    ovk_matrix_destroy(A), ovk_matrix_destroy(B);
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
#ifndef OVK_HAVE_HYPRE
    MPI_Finalize();
    return 77; /* no hypre in this build: no amg */
#else
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    HYPRE_Init();
    short_rows_case(12, 10, 1, 37, "Laplacian 12x10, P of 0-3 entries a row");
    short_rows_case(7, 6, 2, 29, "2-unknown system 7x6, P of 0-3 entries a row");
    hierarchy_case(30, 30, 1, 0, 0.0, "Laplacian 30^2, unsmoothed aggregation");
    hierarchy_case(16, 16, 2, 0, 0.0, "2-unknown system 16^2 with the rotation, unsmoothed aggregation");
    hierarchy_case(30, 30, 1, 1, 0.0, "Laplacian 30^2, smoothed aggregation");
    hierarchy_case(16, 16, 2, 1, 0.0, "2-unknown system 16^2 with the rotation, smoothed aggregation");
    /* coarse levels gathered (agg_gather): rows summed into coarse rows of fewer ranks */
    hierarchy_case(30, 30, 1, 0, 40.0, "Laplacian 30^2, unsmoothed, gathered below 40 rows a rank");
    hierarchy_case(16, 16, 2, 0, 1e9, "2-unknown system 16^2, unsmoothed, coarse levels on one rank");
    hierarchy_case(16, 16, 2, 1, 1e9, "2-unknown system 16^2, smoothed, coarse levels on one rank");
    solver_reuse();
    int rc = mt_finish("test_amg_galerkin");
    MPI_Finalize();
    return rc;
#endif
}
