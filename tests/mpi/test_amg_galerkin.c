/* amg's Galerkin product by sums over P's rows (amg_galerkin.c), against
 * P^T A P formed densely (its values, and its pattern: the entries of the
 * structural product):
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
 * the dense product's), with the structural product's entries.  The rows
 * split unevenly: at 3-4 ranks the last rank owns no fine and no coarse
 * rows.  Self-checking at 1-4 ranks, with hypre in the build or without. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

#include "precond/amg_agg.h"
#include "precond/amg_galerkin.h"
#include "amg_dense.h"

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
static ovk__amg_csr *grid(int nx, int ny, int bs, double bump)
{
    long nn = (long)nx * ny, lo, hi;
    split(nn, &lo, &hi);
    ovk_gidx r0 = lo * bs, r1 = (hi + 1) * bs, N = (ovk_gidx)nn * bs;
    int n = (int)(r1 - r0), e = 0, *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    ovk_gidx *cols = malloc(sizeof(ovk_gidx) * ((size_t)n * 5 * bs + 1));
    double *vals = malloc(sizeof(double) * ((size_t)n * 5 * bs + 1));
    ptr[0] = 0;
    for (long node = lo; node <= hi; node++)
        for (int c = 0; c < bs; c++) {
            ovk_gidx row = node * bs + c;
            int x = (int)(node % nx), y = (int)(node / nx);
            const int dx[5] = {0, -1, 1, 0, 0}, dy[5] = {0, 0, 0, -1, 1};
            for (int d = 0; d < 5; d++) {
                int a = x + dx[d], b = y + dy[d];
                if (a < 0 || b < 0 || a >= nx || b >= ny) continue;
                for (int f = 0; f < bs; f++) {
                    ovk_gidx col = ((ovk_gidx)b * nx + a) * bs + f;
                    double v = (d ? -1.0 : 4.0) * (c == f ? 2.0 : 1.0);
                    cols[e] = col, vals[e++] = v * (1.0 + bump * (double)((row + col) % 5) / 10.0);
                }
            }
            ptr[row - r0 + 1] = e;
        }
    ovk__amg_csr *A = NULL;
    MT_RC(OVK_OK, ovk__amg_csr_of_rows(MPI_COMM_WORLD, N, N, r0, n, r0, r1, ptr, cols, vals, 1, &A));
    free(ptr), free(cols), free(vals);
    return A;
}

/* a P of N rows and Nc columns: row g has g mod 4 entries (0-3) at columns
 * spread over all of [0, Nc) */
static ovk__amg_csr *short_rows(const ovk__amg_csr *A, long Nc)
{
    long clo, chi;
    split(Nc, &clo, &chi);
    int n = A->n, e = 0, *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    ovk_gidx *cols = malloc(sizeof(ovk_gidx) * ((size_t)n * 3 + 1));
    double *vals = malloc(sizeof(double) * ((size_t)n * 3 + 1));
    ptr[0] = 0;
    for (ovk_gidx g = A->r0; g < A->r0 + n; g++) {
        int len = (int)(g % 4);
        for (int s = 0; s < len; s++)
            cols[e] = (g * 7 / 3 + (ovk_gidx)s * (Nc / 3)) % Nc, vals[e++] = 0.5 + (double)((g * 31 + s * 17) % 11) / 10.0;
        ptr[g - A->r0 + 1] = e;
    }
    ovk__amg_csr *P = NULL;
    MT_RC(OVK_OK, ovk__amg_csr_of_rows(MPI_COMM_WORLD, A->nrows, Nc, A->r0, n, clo, chi + 1, ptr, cols, vals, 0, &P));
    free(ptr), free(cols), free(vals);
    return P;
}

/* Collective: our product against P^T A P formed densely, entrywise, and
 * its entries against the structural product's */
static void same(const ovk__amg_csr *ours, const ovk__amg_csr *A, const ovk__amg_csr *P, const char *what)
{
    size_t nf = (size_t)A->nrows, nc = (size_t)P->ncols;
    MT_CHECK(ours->nrows == (ovk_gidx)nc, "%s: %lld rows, P has %zu columns", what, (long long)ours->nrows, nc);
    if (ours->nrows != (ovk_gidx)nc) return;
    double *a = amg_dense(A), *p = amg_dense(P), *c = amg_dense(ours);
    double *sa = amg_dense_of(A, 1), *sp = amg_dense_of(P, 1); /* the stored entries */
    double *ap = calloc(nf * nc + 1, sizeof(double)), err = 0.0, big = 0.0;
    char *sap = calloc(nf * nc + 1, 1);
    long structural = 0;
    for (size_t i = 0; i < nf; i++) /* A P, and its structure */
        for (size_t j = 0; j < nf; j++)
            if (sa[i * nf + j] != 0.0)
                for (size_t d = 0; d < nc; d++)
                    if (sp[j * nc + d] != 0.0) ap[i * nc + d] += a[i * nf + j] * p[j * nc + d], sap[i * nc + d] = 1;
    for (size_t r = 0; r < nc; r++)
        for (size_t d = 0; d < nc; d++) {
            double v = 0.0;
            int hit = 0;
            for (size_t i = 0; i < nf; i++)
                if (sp[i * nc + r] != 0.0 && sap[i * nc + d]) v += p[i * nc + r] * ap[i * nc + d], hit = 1;
            structural += hit;
            err = fmax(err, fabs(v - c[r * nc + d])), big = fmax(big, fabs(v));
        }
    long entries = amg_entries(ours);
    MT_CHECK(entries == structural, "%s: %ld entries, the structural product %ld", what, entries, structural);
    MT_CHECK(big > 0.0 && err <= 1e-13 * big, "%s: |ours - dense| %.3g of %.3g", what, err, big);
    /* the diagonal first in each local row */
    for (int i = 0; i < ours->n; i++)
        if (ours->dptr[i + 1] > ours->dptr[i])
            MT_CHECK(ours->dcol[ours->dptr[i]] == i, "%s: row %d's diagonal not first", what, i);
    free(a), free(p), free(c), free(sa), free(sp), free(ap), free(sap);
}

/* Collective: the rows of P - diag(s) A P (ovk__amg_smooth_rows, s_g =
 * 0.1 + (g mod 7) / 100 at global row g) against the dense product */
static void smooth_rows_same(const ovk__amg_csr *A, const ovk__amg_csr *P, const char *what)
{
    int n = A->n;
    ovk_gidx r0 = A->r0;
    size_t N = (size_t)A->nrows, C = (size_t)P->ncols;
    double *scale = malloc(sizeof(double) * ((size_t)n + 1)), *ours = calloc(N * C + 1, sizeof(double));
    for (int i = 0; i < n; i++) scale[i] = 0.1 + (double)((r0 + i) % 7) / 100.0;
    int *ptr = NULL;
    ovk_gidx *gcol = NULL;
    double *val = NULL;
    MT_RC(OVK_OK, ovk__amg_smooth_rows(A, P, scale, &ptr, &gcol, &val));
    for (int i = 0; ptr && i < n; i++)
        for (int e = ptr[i]; e < ptr[i + 1]; e++) ours[(size_t)(r0 + i) * C + (size_t)gcol[e]] += val[e];
    MPI_Allreduce(MPI_IN_PLACE, ours, (int)(N * C), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double *a = amg_dense(A), *p = amg_dense(P), err = 0.0, big = 0.0;
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
    ovk__amg_csr *A = grid(nx, ny, bs, 0.0), *P = short_rows(A, Nc), *Ac = NULL;
    ovk__amg_rap *plan = NULL;
    MT_RC(OVK_OK, ovk__amg_rap_build(A, P, &Ac, &plan));
    if (Ac) same(Ac, A, P, what);
    smooth_rows_same(A, P, what);
    ovk__amg_csr *B = grid(nx, ny, bs, 1.0); /* new values, A's pattern */
    if (plan) {
        char w[160];
        snprintf(w, sizeof w, "%s, new values on the kept pattern", what);
        MT_RC(OVK_OK, ovk__amg_rap_values(plan, B, Ac));
        same(Ac, B, P, w);
        ovk__amg_csr *other = grid(nx + 1, ny, bs, 0.0); /* another pattern */
        MT_RC(OVK_EMISMATCH, ovk__amg_rap_values(plan, other, Ac));
        ovk__amg_csr_free(other);
    }
    ovk__amg_rap_free(plan);
    ovk__amg_csr_free(Ac), ovk__amg_csr_free(A), ovk__amg_csr_free(P), ovk__amg_csr_free(B);
}

/* the aggregation hierarchy (smooth: smoothed prolongators, else the
 * tentative ones): each level's operator against the dense product on the
 * level's P */
static void hierarchy_case(int nx, int ny, int bs, int smooth, double gather, const char *what)
{
    ovk__amg_csr *A = grid(nx, ny, bs, smooth ? 0.0 : 1.0); /* smoothing needs an SPD A: the bumped system is not */
    int n = A->n, k = bs == 2 ? 3 : 1;
    ovk_gidx r0 = A->r0;
    double *B = calloc((size_t)n * k + 1, sizeof(double));
    for (int i = 0; i < n; i++) {
        long node = (long)((r0 + i) / bs);
        int c = (int)((r0 + i) % bs);
        B[(size_t)c * n + i] = 1.0;
        if (bs == 2) B[(size_t)2 * n + i] = c == 0 ? -(double)(node / nx) : (double)(node % nx);
    }
    ovk__amg_agg_opts o = {bs, 0.0, smooth, 25, 9, 1, 0, gather};
    ovk__amg_rap *plans[40] = {NULL};
    ovk__amg_agg_hier h;
    int rc = ovk__amg_agg_build(A, k, B, &o, &h, NULL, plans);
    MT_RC(OVK_OK, rc);
    int nlev = rc ? 0 : h.nlev;
    MT_CHECK(nlev >= 3, "%s: %d levels", what, nlev);
    for (int l = 0; l + 1 < nlev; l++) {
        char w[160];
        snprintf(w, sizeof w, "%s, level %d", what, l + 1);
        MT_CHECK(smooth || plans[l] != NULL, "%s: no kept product", w);
        same(h.A[l + 1], h.A[l], h.P[l], w);
    }
    for (int l = 0; l < 40; l++) ovk__amg_rap_free(plans[l]);
    if (!rc) ovk__amg_agg_hier_free(&h); /* the levels but level 0 */
    ovk__amg_csr_free(A);
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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
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
}
