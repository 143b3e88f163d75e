/* The aggregation setup's distributed matrix (amg_csr.c) and halo plan
 * (amg_plan.c), in every build (no hypre):
 *   - level 0 from an ovk_matrix (symmetric, so that the matrix may keep
 *     one triangle: the copy has both), its values times 2^-2: each row
 *     equal to the dense matrix's, the diagonal entry first, the offd
 *     columns ascending; the halo of 2 values a column brings each offd
 *     column's values from its owner;
 *   - a rectangular matrix (an interpolation) and a square one from rows
 *     with global columns in any order: the same checks, the coarse columns
 *     owned by all ranks but the first;
 *   - each allocation of the makes and of the halo failing once, on one
 *     rank: the same status on every rank, OVK_ENOMEM, nothing made.
 * The rows split unevenly with none on the last of 3+ ranks; couplings
 * reach across every rank boundary.  Self-checking at 1-4 ranks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "precond/amg_csr.h"
#include "util/alloc_fault.h"

enum { N = 37, NC = 13 };
static int g_rank, g_size;
static double g_a[N][N]; /* the dense square matrix */

/* a symmetric matrix with neighbours, mirror rows and far couplings */
static void dense_a(void)
{
    memset(g_a, 0, sizeof g_a);
    for (int i = 0; i < N; i++) {
        g_a[i][i] = 8.0 + (i % 3);
        int nb[3] = {i + 1, N - 1 - i, (i + 13) % N};
        double v[3] = {-1.0 - 0.125 * (i % 4), 0.5, 0.25 + 0.0625 * (i % 2)};
        for (int t = 0; t < 3; t++) {
            int j = nb[t];
            if (j >= N || j == i) continue;
            g_a[i][j] += v[t], g_a[j][i] += v[t];
        }
    }
}

/* entry (i, c) of the test interpolation (0: none) */
static double p_entry(int i, int c)
{
    double v = 0.0;
    if (c == (7 * i) % NC) v += 1.0 + 0.125 * (i % 5);
    if (c == (3 * i + 1) % NC) v -= 0.5 + 0.0625 * (i % 3);
    return v;
}

/* this rank's rows r0 .. r1 of the test matrix (square: A, else P) with
 * global columns, each row's entries in a scrambled order */
static void rows_of(int square, int r0, int r1, int **ptr, ovk_gidx **col, double **val)
{
    int n = r1 - r0, M = square ? N : NC;
    *ptr = calloc((size_t)n + 1, sizeof(int));
    *col = malloc(sizeof(ovk_gidx) * ((size_t)n * M + 1));
    *val = malloc(sizeof(double) * ((size_t)n * M + 1));
    int e = 0;
    for (int i = r0; i < r1; i++) {
        for (int t = 0; t < M; t++) {
            int j = (t * 5 + i) % M; /* 5 is prime to N and NC: every column once */
            double v = square ? g_a[i][j] : p_entry(i, j);
            if (v != 0.0) (*col)[e] = j, (*val)[e++] = v;
        }
        (*ptr)[i - r0 + 1] = e;
    }
}

/* entry (i, j) of the test matrix, times s */
static double want_entry(int square, int i, int j, double s) { return s * (square ? g_a[i][j] : p_entry(i, j)); }

/* Collective: A's blocks against the dense rows (times s), then its halo */
static void check_csr(const ovk__amg_csr *A, int square, double s, const char *what)
{
    int M = square ? N : NC, bad = 0;
    double *row = malloc(sizeof(double) * (size_t)M);
    for (int q = 1; q < A->nx; q++) bad += A->cmap[q] <= A->cmap[q - 1];
    MT_CHECK(bad == 0, "%s: offd columns not ascending", what);
    for (int i = 0; i < A->n; i++) {
        memset(row, 0, sizeof(double) * (size_t)M);
        for (int e = A->dptr[i]; e < A->dptr[i + 1]; e++) row[A->c0 + A->dcol[e]] += A->dval[e];
        for (int e = A->optr[i]; e < A->optr[i + 1]; e++) row[A->cmap[A->ocol[e]]] += A->oval[e];
        ovk_gidx gi = A->r0 + i;
        for (int j = 0; j < M; j++) bad += row[j] != want_entry(square, (int)gi, j, s);
        if (square) bad += A->dptr[i] == A->dptr[i + 1] || A->dcol[A->dptr[i]] != i;
    }
    MT_CHECK(bad == 0, "%s: %d rows or entries differ from the dense matrix's", what, bad);
    double *own = malloc(sizeof(double) * (2 * (size_t)A->nc + 1)), *ext = malloc(sizeof(double) * (2 * (size_t)A->nx + 1));
    for (int c = 0; c < A->nc; c++) own[2 * c] = (double)(A->c0 + c), own[2 * c + 1] = sin(0.5 * (double)(A->c0 + c));
    MT_RC(OVK_OK, ovk__amg_csr_halo(A, 2, own, ext, OVK_OK));
    bad = 0;
    for (int q = 0; q < A->nx; q++) bad += ext[2 * q] != (double)A->cmap[q] || ext[2 * q + 1] != sin(0.5 * (double)A->cmap[q]);
    MT_CHECK(bad == 0, "%s: %d halo values not their column's", what, bad);
    free(row), free(own), free(ext);
}

static void matrix_case(void)
{
    int r0, r1, *ptr;
    ovk_gidx *col;
    double *val;
    mt_split(N, g_size >= 3 ? g_size - 1 : -1, &r0, &r1);
    rows_of(1, r0, r1, &ptr, &col, &val);
    ovk_matrix *M = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, r0, r1 - r0, ptr, col, val, OVK_DUP_REJECT, &M));
    ovk__amg_csr *A = NULL;
    MT_RC(OVK_OK, ovk__amg_csr_of_matrix(MPI_COMM_WORLD, M, 2, &A));
    if (A) {
        MT_CHECK(A->nrows == N && A->ncols == N && A->r0 == r0 && A->n == r1 - r0 && A->c0 == r0 && A->nc == A->n,
                 "level 0: shape %lld x %lld, rows %lld + %d", (long long)A->nrows, (long long)A->ncols,
                 (long long)A->r0, A->n);
        check_csr(A, 1, 0.25, "level 0");
    }
    ovk__amg_csr_free(A);
    ovk_matrix_destroy(M);
    free(ptr), free(col), free(val);
}

static void rows_case(int square)
{
    int r0, r1, c0, c1, *ptr;
    ovk_gidx *col;
    double *val;
    mt_split(N, g_size >= 3 ? g_size - 1 : -1, &r0, &r1);
    if (square) c0 = r0, c1 = r1;
    else mt_split(NC, g_size >= 2 ? 0 : -1, &c0, &c1);
    rows_of(square, r0, r1, &ptr, &col, &val);
    ovk__amg_csr *A = NULL;
    MT_RC(OVK_OK, ovk__amg_csr_of_rows(MPI_COMM_WORLD, N, square ? N : NC, r0, r1 - r0, c0, c1, ptr, col, val, square, &A));
    if (A) check_csr(A, square, 1.0, square ? "square rows" : "interpolation rows");
    ovk__amg_csr_free(A);
    free(ptr), free(col), free(val);
}

/* Allocation n (what: 0 level 0's make, 1 the rows' make, 2 the halo)
 * failing on rank (n - 1) mod size (n = 0: none); its status, the
 * allocations made on this rank and whether one failed here */
static int make_failing(int what, long n, long *count, int *fired)
{
    int r0, r1, c0, c1, *ptr;
    ovk_gidx *col;
    double *val;
    mt_split(N, g_size >= 3 ? g_size - 1 : -1, &r0, &r1);
    mt_split(NC, g_size >= 2 ? 0 : -1, &c0, &c1);
    rows_of(what != 1, r0, r1, &ptr, &col, &val);
    ovk_matrix *M = NULL;
    ovk__amg_csr *A = NULL;
    if (what != 1) MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, r0, r1 - r0, ptr, col, val, OVK_DUP_REJECT, &M));
    if (what == 2) MT_RC(OVK_OK, ovk__amg_csr_of_matrix(MPI_COMM_WORLD, M, 0, &A));
    double *own = calloc(A ? (size_t)A->nc + 1 : 1, sizeof(double)), *ext = calloc(A ? (size_t)A->nx + 1 : 1, sizeof(double));
    ovk__alloc_fault_arm(n > 0 && (n - 1) % g_size == g_rank ? n : 0);
    int rc = what == 0   ? ovk__amg_csr_of_matrix(MPI_COMM_WORLD, M, 0, &A)
             : what == 1 ? ovk__amg_csr_of_rows(MPI_COMM_WORLD, N, NC, r0, r1 - r0, c0, c1, ptr, col, val, 0, &A)
                         : ovk__amg_csr_halo(A, 1, own, ext, OVK_OK);
    *count = ovk__alloc_fault_count();
    *fired = ovk__alloc_fault_fired(NULL, NULL);
    ovk__alloc_fault_arm(0);
    if (what < 2) MT_CHECK(rc ? !A : A != NULL, "make %d: status %s with%s a matrix", what, ovk_status_name(rc), A ? "" : "out");
    ovk__amg_csr_free(A);
    ovk_matrix_destroy(M);
    free(ptr), free(col), free(val), free(own), free(ext);
    return rc;
}

static void fault_case(int what)
{
    long count = 0;
    int bad = mt_alloc_sweep(make_failing, what, &count);
    MT_CHECK(count > 0, "case %d: no allocation counted", what);
    MT_CHECK(bad == 0, "case %d: %d of %ld failing allocations without the same status on every rank", what, bad, count);
    if (g_rank == 0)
        printf("%s: each of its %ld allocations failing on one rank gives OVK_ENOMEM on every rank\n",
               what == 0 ? "level 0's make" : what == 1 ? "the rows' make" : "the halo", count);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    dense_a();
    matrix_case();
    rows_case(1);
    rows_case(0);
    for (int what = 0; what < 3; what++) fault_case(what);
    int rc = mt_finish("test_amg_csr");
    MPI_Finalize();
    return rc;
}
