/* ovk_solver_solve_many: the multi-vector product against k single
 * products (bitwise, every storage form the matrices take); k = 1, 2, 7,
 * 16 systems of every CG variant against their single solves (the same
 * iterations, the solutions to a few ulps) on every backend, and with the
 * preconditioners that apply to k systems at once (ic0, ssor, cheby, amg;
 * amg's apply_many bitwise its apply with each option that changes the
 * cycle); systems that
 * converge at different iterations, b = 0, a NaN (its own error, the others
 * unharmed); the reductions of the batch (PMPI: as many as the longest
 * single solve's, not k times); groups of systems between the products
 * (option many_group 1, 3, 16) bitwise the ungrouped batch; the monitor's system
 * index; bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "count_reductions.h"
#include "matrix/matrix.h"
#include "mpitest.h"
#include "precond/precond.h"
#include "problem.h"

#ifndef OVK_MATRIX_DIR
#define OVK_MATRIX_DIR "../shared/data/matrices"
#endif

enum { KMAX = 16, GRID = 9 };

/* a .mtx matrix of the shared data, rows split by tp_split (NULL: missing) */
static ovk_matrix *shared_matrix(const char *name)
{
    char path[512];
    int rank, size, got, *ptr = NULL;
    ovk_gidx n, *col = NULL;
    double *val = NULL;
    int64_t start;
    ovk_matrix *A = NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(path, sizeof path, "%s/%s", OVK_MATRIX_DIR, name);
    if (ovk_mm_read_rows(path, 0, 0, &n, &got, &ptr, &col, &val)) return NULL;
    free(ptr);
    free(col);
    free(val);
    tp_split(n, rank, size, &start, &got);
    MT_RC(OVK_OK, ovk_mm_read_rows(path, start, got, &n, &got, &ptr, &col, &val));
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, got, ptr, col, val, OVK_DUP_REJECT, &A));
    free(ptr);
    free(col);
    free(val);
    return A;
}

/* k multi-vector products, with and without the sums, bitwise those of k
 * single products */
static void check_multi_product(const ovk_matrix *A, const char *what)
{
    enum { KP = 19 }; /* past 16: two passes over the block */
    static const int ks[] = {1, 4, 8, 11, 16, KP};
    int n = A->lay.nlocal;
    const double *X[KP];
    double *Y[KP], *Z[KP], xy[KP], one[KP];
    for (int j = 0; j < KP; j++) {
        double *x = malloc(sizeof(double) * (size_t)(n + 1));
        for (int i = 0; i < n; i++) x[i] = tp_value((uint64_t)(A->lay.row_start + i) * 131 + (uint64_t)j);
        X[j] = x;
        Y[j] = calloc((size_t)n + 1, sizeof(double));
        Z[j] = calloc((size_t)n + 1, sizeof(double));
    }
    for (int c = 0; c < 6; c++) { /* widths 4 and 8 have kernels of their own */
        int k = ks[c];
        MT_RC(OVK_OK, ovk__matvec_multi(A, k, X, Y, xy, NULL));
        for (int j = 0; j < k; j++) {
            MT_RC(OVK_OK, ovk__matvec_dot(A, X[j], Z[j], &one[j], NULL));
            MT_CHECK(memcmp(Y[j], Z[j], sizeof(double) * (size_t)n) == 0, "%s: k = %d, vector %d differs", what, k, j);
            MT_CHECK(memcmp(&xy[j], &one[j], sizeof(double)) == 0, "%s: k = %d, <x,Ax> of %d differs", what, k, j);
        }
        ovk__hook none = {0};
        MT_RC(OVK_OK, ovk__matvec_multi(A, k, X, Y, NULL, &none));
        for (int j = 0; j < k; j++)
            MT_CHECK(memcmp(Y[j], Z[j], sizeof(double) * (size_t)n) == 0, "%s: k = %d (no sums), %d", what, k, j);
    }
    for (int j = 0; j < KP; j++) {
        free((void *)X[j]);
        free(Y[j]);
        free(Z[j]);
    }
}

/* A chain of n rows with couplings to i +- 1 and i +- far (columns as
 * int: far > 32767), symmetric when sym, else the far couplings differ */
static ovk_matrix *wide_matrix(int n, int far, int sym)
{
    int rank, size, count, *ptr;
    int64_t start;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    tp_split(n, rank, size, &start, &count);
    ptr = malloc(sizeof(int) * ((size_t)count + 1));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * 5 * ((size_t)count + 1));
    double *val = malloc(sizeof(double) * 5 * ((size_t)count + 1));
    ptr[0] = 0;
    for (int i = 0; i < count; i++) {
        int64_t g = start + i, nb[5] = {g, g - 1, g + 1, g - far, g + far};
        double v[5] = {5.0, -1.0, -1.0, -0.5, sym ? -0.5 : -0.25};
        int len = ptr[i];
        for (int q = 0; q < 5; q++)
            if (nb[q] >= 0 && nb[q] < n) col[len] = nb[q], val[len++] = v[q];
        ptr[i + 1] = len;
    }
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, col, val, OVK_DUP_REJECT, &A));
    free(ptr), free(col), free(val);
    return A;
}

/* a kept scratch reserved while A's diag block had runs (no interleaved
 * room), used after they went (new values can take them away): each
 * product still bitwise the single one.  Returns 1 when A had runs. */
static int check_scratch_after_runs(ovk_matrix *A, const char *what)
{
    enum { K = 3 };
    int n = A->lay.nlocal, had = A->diag.runs != NULL, any = 0;
    MPI_Allreduce(&had, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    const double *X[K];
    double *Y[K], *Z[K], one;
    for (int j = 0; j < K; j++) {
        double *x = malloc(sizeof(double) * (size_t)(n + 1));
        for (int i = 0; i < n; i++) x[i] = tp_value((uint64_t)(A->lay.row_start + i) * 7 + (uint64_t)j);
        X[j] = x;
        Y[j] = calloc((size_t)n + 1, sizeof(double));
        Z[j] = calloc((size_t)n + 1, sizeof(double));
    }
    ovk__multi_scratch ws = {0};
    MT_RC(OVK_OK, ovk__matvec_multi_with(A, K, X, Y, NULL, NULL, &ws));
    ovk__csr_drop_runs(&A->diag);
    MT_RC(OVK_OK, ovk__matvec_multi_with(A, K, X, Y, NULL, NULL, &ws));
    for (int j = 0; j < K; j++) {
        MT_RC(OVK_OK, ovk__matvec_dot(A, X[j], Z[j], &one, NULL));
        MT_CHECK(memcmp(Y[j], Z[j], sizeof(double) * (size_t)n) == 0, "%s, runs dropped: vector %d differs", what, j);
        free((void *)X[j]);
        free(Y[j]);
        free(Z[j]);
    }
    ovk__multi_scratch_free(&ws);
    return any;
}

/* the multi-vector product in every value form of A's diag block, its runs dropped */
static void check_value_forms(ovk_matrix *A, const char *what)
{
    static const int allow[] = {1 << OVK__VAL_DOUBLE, (1 << OVK__VAL_DOUBLE) | (1 << OVK__VAL_FLOAT), OVK__VAL_ALLOW_ALL};
    char name[96];
    ovk__csr_drop_runs(&A->diag);
    for (int f = 0; f < 3; f++) {
        MT_RC(OVK_OK, ovk__csr_pack_values(&A->diag, allow[f]));
        snprintf(name, sizeof name, "%s (upper %d, 16-bit %d, values %d)", what, A->diag.upper, A->diag.off16 != NULL,
                 A->diag.vform);
        check_multi_product(A, name);
    }
}

/* right-hand side j: of different content, so that the systems converge
 * at different iterations (a smooth one, a rough one, a spike, ...) */
static void fill_rhs(const ovk_matrix *A, int j, double *b)
{
    for (int i = 0; i < A->lay.nlocal; i++) {
        uint64_t g = (uint64_t)(A->lay.row_start + i);
        switch (j % 4) {
        case 0: b[i] = 1.0 + 0.01 * tp_value(g + 7u * (uint64_t)j); break;
        case 1: b[i] = tp_value(g * 3u + (uint64_t)j); break;
        case 2: b[i] = g % 97 == 0 ? 1.0 : 1e-3 * tp_value(g + (uint64_t)j); break;
        default: b[i] = sin(0.05 * (double)g * (j + 1)); break;
        }
    }
}

/* the preconditioner of make_solver's solvers (NULL: the default) */
static const char *precond;

/* k systems of s: B[j] fill_rhs's j-th right-hand side, X[j] zero */
static void make_systems(ovk_solver *s, const ovk_matrix *A, int k, ovk_vector **B, ovk_vector **X)
{
    for (int j = 0; j < k; j++) {
        ovk_solver_vector_create(s, NULL, &B[j]);
        ovk_solver_vector_create(s, NULL, &X[j]);
        fill_rhs(A, j, ovk_vector_data(B[j]));
    }
}

static ovk_solver *make_solver(ovk_matrix *A, const char *variant, const char *backend)
{
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", variant));
    if (precond) MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", precond));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", backend));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-8, 0.0, 500));
    return s;
}

/* the largest distance between x and y in units of the last place of max |y| */
static double ulps(int n, const double *x, const double *y)
{
    double d = 0.0, m = 0.0;
    for (int i = 0; i < n; i++) {
        d = fmax(d, fabs(x[i] - y[i]));
        m = fmax(m, fabs(y[i]));
    }
    MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m > 0.0 ? d / (m * 0x1p-52) : d;
}

/* system j of k: b_j as fill_rhs, but system `zero` has b = 0 and system
 * `nan` a NaN on the last owning rank.  Compares with single solves. */
static void check_batch(ovk_matrix *A, const char *variant, const char *backend, int k, int zero, int nan)
{
    int n = A->lay.nlocal, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ovk_solver *s = make_solver(A, variant, backend);
    ovk_vector *B[KMAX], *X[KMAX], *x1 = NULL;
    ovk_pcg_result res[KMAX], one;
    MT_RC(OVK_OK, ovk_solver_vector_create(s, NULL, &x1));
    for (int j = 0; j < k; j++) {
        MT_RC(OVK_OK, ovk_solver_vector_create(s, NULL, &B[j]));
        MT_RC(OVK_OK, ovk_solver_vector_create(s, NULL, &X[j]));
        fill_rhs(A, j, ovk_vector_data(B[j]));
        if (j == zero) memset(ovk_vector_data(B[j]), 0, sizeof(double) * (size_t)n);
        if (j == nan && n > 0 && rank == (size >= 3 ? size - 2 : size - 1)) ovk_vector_data(B[j])[n / 2] = NAN;
    }
    int rc = ovk_solver_solve_many(s, k, B, X, res);
    MT_RC(nan >= 0 && nan < k ? OVK_ENONFINITE : OVK_OK, rc);
    int distinct = 0;
    long long longest = 0;
    for (int j = 0; j < k; j++) {
        if (j == nan) {
            MT_CHECK(res[j].reason == OVK_REASON_NONFINITE && res[j].iterations == 0, "%s: NaN system %d: %s",
                     variant, j, ovk_reason_name(res[j].reason));
            continue;
        }
        /* a fresh solver per system, as each task's variant is fresh: what a
           variant keeps from one solve to the next (pgmres's shifts) is the same */
        ovk_solver *s1 = make_solver(A, variant, backend);
        memset(ovk_vector_data(x1), 0, sizeof(double) * (size_t)n);
        MT_RC(OVK_OK, ovk_solver_solve(s1, B[j], x1, &one));
        ovk_solver_destroy(&s1);
        if (one.reductions > longest) longest = one.reductions;
        MT_CHECK(res[j].reason == OVK_REASON_CONVERGED, "%s %s k=%d: system %d %s", variant, backend, k, j,
                 ovk_reason_name(res[j].reason));
        MT_CHECK(res[j].iterations == one.iterations, "%s %s k=%d: system %d: %d iterations, single %d", variant,
                 backend, k, j, res[j].iterations, one.iterations);
        double u = ulps(n, ovk_vector_data(X[j]), ovk_vector_data(x1));
        MT_CHECK(u <= 64.0, "%s %s k=%d: system %d: %g ulps from the single solve", variant, backend, k, j, u);
        if (j == zero) MT_CHECK(res[j].iterations == 0, "b = 0: %d iterations", res[j].iterations);
        int fresh = 1;
        for (int i = 0; i < j; i++) fresh &= i == nan || res[i].iterations != res[j].iterations;
        distinct += fresh;
    }
    if (k >= 7) MT_CHECK(distinct >= 2 + (zero >= 0), "%s: every system converged at one count", variant);
    /* one reduction per reduction point for all k: as many as the longest single solve's, plus at most
     * one for each further iteration at which a system stops (the true-residual check of cg1, pipecg,
     * groppcg, pipeprcg, plcg runs in that system alone) */
    /* plcg: each system's fresh start-up too; pgmres: its systems' cycles drift apart (ends of cycles at
     * different steps), each cycle end a reduction of its own; gcrodr: its rare second Gram-Schmidt
     * passes fall at different steps in each system, each a reduction of its own */
    int drifts = !strcmp(variant, "pgmres") || !strcmp(variant, "gcrodr");
    long long extra = !strcmp(variant, "plcg") ? 2 * distinct + 2 : drifts ? longest / 2 : distinct;
    MT_CHECK(res[0].reductions <= longest + extra, "%s %s k=%d: %lld reductions, the longest single solve %lld", variant,
             backend, k, res[0].reductions, longest);
    for (int j = 0; j < k; j++) {
        ovk_vector_destroy(B[j]);
        ovk_vector_destroy(X[j]);
    }
    ovk_vector_destroy(x1);
    ovk_solver_destroy(&s);
}

/* the reductions the solver itself starts (res.reductions): the batch's
 * equal the longest single solve's */
static void check_reduction_count(ovk_matrix *A, const char *variant, int slack)
{
    enum { K = 7 };
    ovk_solver *s = make_solver(A, variant, "native");
    ovk_vector *B[K], *X[K];
    ovk_pcg_result res[K], one;
    long long longest = 0;
    for (int j = 0; j < K; j++) {
        ovk_solver_vector_create(s, NULL, &B[j]);
        ovk_solver_vector_create(s, NULL, &X[j]);
        fill_rhs(A, j, ovk_vector_data(B[j]));
        MT_RC(OVK_OK, ovk_solver_solve(s, B[j], X[j], &one));
        if (one.reductions > longest) longest = one.reductions;
        memset(ovk_vector_data(X[j]), 0, sizeof(double) * (size_t)A->lay.nlocal);
    }
    long before = n_iallreduce;
    MT_RC(OVK_OK, ovk_solver_solve_many(s, K, B, X, res));
    long posted = n_iallreduce - before;
    MT_CHECK(res[0].reductions <= longest + slack, "%s: the batch started %lld reductions, the longest single solve %lld",
             variant, res[0].reductions, longest);
    MT_CHECK(posted == res[0].reductions, "%s: PMPI counted %ld MPI_Iallreduce for the batch, the longest single solve %lld",
             variant, posted, longest);
    for (int j = 0; j < K; j++) {
        ovk_vector_destroy(B[j]);
        ovk_vector_destroy(X[j]);
    }
    ovk_solver_destroy(&s);
}

/* Groups (option many_group): the k systems' vector updates run in groups
 * between the products, each group's sums among themselves; every system
 * bitwise what the ungrouped batch (the default: these small systems fit the cache) gives, with
 * more reductions (the grouping ran).  Systems converge at different
 * iterations, one has b = 0; pc: a preconditioner applied to all k
 * between the groups. */
static void check_groups(ovk_matrix *A, const char *variant, const char *backend, const char *pc)
{
    enum { K = 7 };
    int n = A->lay.nlocal;
    precond = pc;
    ovk_solver *s = make_solver(A, variant, backend);
    precond = NULL;
    ovk_vector *B[K], *X[K];
    ovk_pcg_result ref[K], res[K];
    double *keep = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1) * K);
    make_systems(s, A, K, B, X);
    memset(ovk_vector_data(B[2]), 0, sizeof(double) * (size_t)n);
    MT_RC(OVK_OK, ovk_solver_solve_many(s, K, B, X, ref));
    for (int j = 0; j < K; j++) memcpy(keep + (size_t)j * n, ovk_vector_data(X[j]), sizeof(double) * (size_t)n);
    static const char *const groups[] = {"1", "3", "16"};
    for (int g = 0; g < 3; g++) {
        MT_RC(OVK_OK, ovk_solver_set_option(s, "many_group", groups[g]));
        for (int j = 0; j < K; j++) memset(ovk_vector_data(X[j]), 0, sizeof(double) * (size_t)n);
        MT_RC(OVK_OK, ovk_solver_solve_many(s, K, B, X, res));
        int differ = 0;
        for (int j = 0; j < K; j++) {
            differ |= memcmp(keep + (size_t)j * n, ovk_vector_data(X[j]), sizeof(double) * (size_t)n) != 0;
            MT_CHECK(res[j].iterations == ref[j].iterations && res[j].reason == ref[j].reason,
                     "%s %s %s group %s: system %d: %d iterations (%s), ungrouped %d (%s)", variant, backend,
                     pc ? pc : "jacobi", groups[g], j, res[j].iterations, ovk_reason_name(res[j].reason),
                     ref[j].iterations, ovk_reason_name(ref[j].reason));
        }
        MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MT_CHECK(!differ, "%s %s %s group %s: a solution differs from the ungrouped batch's", variant, backend,
                 pc ? pc : "jacobi", groups[g]);
        if (g < 2) /* 16 >= k: one group */
            MT_CHECK(res[0].reductions > ref[0].reductions, "%s group %s: %lld reductions, ungrouped %lld", variant,
                     groups[g], res[0].reductions, ref[0].reductions);
    }
    for (int j = 0; j < K; j++) {
        ovk_vector_destroy(B[j]);
        ovk_vector_destroy(X[j]);
    }
    free(keep);
    ovk_solver_destroy(&s);
}

static int seen[KMAX];

static int monitor(ovk_solver *s, int iteration, double rnorm, double rel, void *ctx)
{
    (void)iteration, (void)rnorm, (void)rel, (void)ctx;
    int j = ovk_solver_system_index(s);
    if (j >= 0 && j < KMAX) seen[j]++;
    return 0;
}

static void check_monitor(ovk_matrix *A)
{
    enum { K = 3 };
    ovk_solver *s = make_solver(A, "pipecg", "blocking");
    ovk_vector *B[K], *X[K];
    ovk_pcg_result res[K];
    MT_RC(OVK_OK, ovk_solver_set_monitor(s, monitor, NULL));
    make_systems(s, A, K, B, X);
    memset(seen, 0, sizeof seen);
    MT_RC(OVK_OK, ovk_solver_solve_many(s, K, B, X, res));
    for (int j = 0; j < K; j++)
        MT_CHECK(seen[j] == res[j].iterations + 1, "system %d: the monitor saw %d calls for %d iterations", j, seen[j],
                 res[j].iterations);
    MT_CHECK(ovk_solver_system_index(s) == -1, "index %d after the solve", ovk_solver_system_index(s));
    for (int j = 0; j < K; j++) {
        ovk_vector_destroy(B[j]);
        ovk_vector_destroy(X[j]);
    }
    ovk_solver_destroy(&s);
}

static int op_calls[KMAX];

/* the application's operator: y = A x, counting the calls per system */
static int apply_op(ovk_solver *s, const double *x, double *y, void *ctx)
{
    int j = ovk_solver_system_index(s);
    if (j >= 0 && j < KMAX) op_calls[j]++;
    return ovk__matvec(ctx, x, y, NULL) == OVK_OK ? 0 : 1;
}

/* a solver on the application's operator: the systems as their single
 * solves, the operator called per system (not combined) */
static void check_operator(ovk_matrix *A)
{
    enum { K = 3 };
    ovk_solver *s = NULL;
    ovk_vector *B[K], *X[K], *x1 = NULL;
    ovk_pcg_result res[K], one;
    MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, A->lay.nlocal, apply_op, A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "cg1"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "none"));
    ovk_solver_vector_create(s, NULL, &x1);
    make_systems(s, A, K, B, X);
    MT_RC(OVK_OK, ovk_solver_setup(s));
    memset(op_calls, 0, sizeof op_calls);
    MT_RC(OVK_OK, ovk_solver_solve_many(s, K, B, X, res));
    for (int j = 0; j < K; j++) {
        MT_CHECK(op_calls[j] >= res[j].iterations, "operator: system %d: %d calls for %d iterations", j, op_calls[j],
                 res[j].iterations);
        ovk_vector_set(x1, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, B[j], x1, &one));
        MT_CHECK(one.iterations == res[j].iterations, "operator: system %d: %d iterations, single %d", j,
                 res[j].iterations, one.iterations);
        ovk_vector_destroy(B[j]);
        ovk_vector_destroy(X[j]);
    }
    ovk_vector_destroy(x1);
    ovk_solver_destroy(&s);
}

/* system 1's operator is -A (CG breaks down at once); system 2's fails
 * from its fifth call on, on the last rank only */
static int failing_op(ovk_solver *s, const double *x, double *y, void *ctx)
{
    int j = ovk_solver_system_index(s), rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const ovk_matrix *A = ctx;
    if (ovk__matvec(A, x, y, NULL)) return 1; /* collective: done on every rank */
    for (int i = 0; j == 1 && i < A->lay.nlocal; i++) y[i] = -y[i];
    return j == 2 && ++op_calls[j] >= 5 && rank == size - 1;
}

/* two systems fail differently: every rank returns the first one's status
 * and its own detail, whichever failed last */
static void check_failure_detail(ovk_matrix *A)
{
    enum { K = 3 };
    ovk_solver *s = NULL;
    ovk_vector *B[K], *X[K];
    ovk_pcg_result res[K];
    MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, A->lay.nlocal, failing_op, A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "cg1"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "none"));
    make_systems(s, A, K, B, X);
    memset(op_calls, 0, sizeof op_calls);
    MT_RC(OVK_EBREAKDOWN, ovk_solver_solve_many(s, K, B, X, res));
    const char *d = ovk_error_detail();
    MT_CHECK(strstr(d, "system 1: iteration ") && strstr(d, "not SPD") && !strstr(d, "system 2"),
             "the first failure's detail: '%s'", d);
    MT_CHECK(res[0].reason == OVK_REASON_CONVERGED && res[1].reason == OVK_REASON_BREAKDOWN,
             "systems 0, 1: %s, %s", ovk_reason_name(res[0].reason), ovk_reason_name(res[1].reason));
    for (int j = 0; j < K; j++) {
        ovk_vector_destroy(B[j]);
        ovk_vector_destroy(X[j]);
    }
    ovk_solver_destroy(&s);
}

/* k <= 0, NULL arrays or elements (on one rank only), another layout,
 * shared memory: the same error on every rank, nothing solved */
static void check_bad_input(ovk_matrix *A, ovk_matrix *other)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ovk_solver *s = make_solver(A, "alg1", "blocking");
    ovk_vector *B[2], *X[2], *alien = NULL, *none[2] = {NULL, NULL};
    ovk_pcg_result res[2];
    for (int j = 0; j < 2; j++) {
        ovk_solver_vector_create(s, NULL, &B[j]);
        ovk_solver_vector_create(s, NULL, &X[j]);
        fill_rhs(A, j, ovk_vector_data(B[j]));
    }
    MT_RC(OVK_OK, ovk_vector_create(other, &alien));
    MT_RC(OVK_EINVAL, ovk_solver_solve_many(s, 0, B, X, res));
    MT_RC(OVK_EINVAL, ovk_solver_solve_many(s, -3, B, X, res));
    MT_RC(OVK_EINVAL, ovk_solver_solve_many(s, 2, NULL, X, res));
    MT_RC(OVK_EINVAL, ovk_solver_solve_many(s, 2, B, X, NULL));
    MT_RC(OVK_EINVAL, ovk_solver_solve_many(s, 2, B, rank == 0 ? none : X, res));
    ovk_vector *mixed[2] = {B[0], rank == 0 ? alien : B[1]};
    int rc = ovk_solver_solve_many(s, 2, mixed, X, res);
    MT_CHECK(rc == OVK_EMISMATCH || rc == OVK_EINVAL, "another layout: %s", ovk_status_name(rc));
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &(int64_t){rc}, 1), "another layout: not the same error everywhere");
    ovk_vector *twice[2] = {X[0], X[0]};
    MT_RC(OVK_EINVAL, ovk_solver_solve_many(s, 2, B, twice, res));
    MT_RC(OVK_OK, ovk_solver_solve_many(s, 2, B, X, res)); /* still usable */
    for (int j = 0; j < 2; j++) {
        ovk_vector_destroy(B[j]);
        ovk_vector_destroy(X[j]);
    }
    ovk_vector_destroy(alien);
    ovk_solver_destroy(&s);
}

#ifdef OVK_HAVE_HYPRE
static void poke(void *arg) { (void)arg; }

/* amg's apply_many (spec: an option that changes the cycle; singular: a
 * declared null space): each system bitwise its apply, for 3, 8 and 2
 * systems (the room grown, then used in part), with a hook */
static void check_amg_many(const ovk_matrix *A, const char *spec, int singular)
{
    enum { K = 8 };
    static const int ks[] = {3, K, 2};
    int n = A->lay.nlocal;
    ovk__pc pc = {0};
    ovk__pc_env env = {.A = A, .n = n, .comm = MPI_COMM_WORLD, .singular = singular};
    MT_RC(OVK_OK, ovk__pc_create(spec, &pc));
    MT_RC(OVK_OK, pc.type->setup(pc.state, &env));
    double *r[K], *z[K], *ref = malloc(sizeof(double) * (size_t)(n + 1));
    for (int j = 0; j < K; j++) {
        r[j] = malloc(sizeof(double) * (size_t)(n + 1));
        z[j] = malloc(sizeof(double) * (size_t)(n + 1));
        for (int i = 0; i < n; i++) r[j][i] = tp_value((uint64_t)(A->lay.row_start + i) * 17 + (uint64_t)j);
    }
    const ovk__hook h = {poke, NULL, 50};
    for (int c = 0; c < 3; c++) {
        MT_RC(OVK_OK, pc.type->apply_many(pc.state, ks[c], (const double *const *)r, z, NULL, NULL, &h));
        int differ = 0;
        for (int j = 0; j < ks[c]; j++) {
            MT_RC(OVK_OK, pc.type->apply(pc.state, r[j], ref, NULL));
            differ += n > 0 && memcmp(z[j], ref, sizeof(double) * (size_t)n) != 0;
        }
        MT_CHECK(differ == 0, "%s%s k=%d: %d systems differ from their apply", spec, singular ? " (singular)" : "",
                 ks[c], differ);
    }
    for (int j = 0; j < K; j++) {
        free(r[j]);
        free(z[j]);
    }
    free(ref);
    ovk__pc_destroy(&pc);
}
#endif

/* the nonsymmetric solvers on a convection-diffusion operator: k = 3
 * systems as their single solves */
static void check_nonsymmetric(void)
{
    int size, P[3] = {0, 0, 0};
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 3, P);
    const double v[3] = {1.0, 0.5, 0.25};
    ovk_matrix *C = NULL;
    MT_RC(OVK_OK, ovk_convdiff_create(MPI_COMM_WORLD, 8, 8, 6, P[0], P[1], P[2], v, 20.0, OVK_CONVDIFF_UPWIND, &C));
    for (int i = 0; i < ovk_solver_type_count(); i++)
        if (ovk_solver_type_nonsymmetric(i)) check_batch(C, ovk_solver_type_name(i), "blocking", 3, -1, -1);
    ovk_matrix_destroy(C);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ovk_matrix *A = NULL, *A7 = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, GRID, 0.0, &A));
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 7, GRID + 1, 0.5, &A7));
    check_multi_product(A, "27-point");
    check_multi_product(A7, "7-point");
    static const char *const files[] = {"1138_bus.mtx", "bcsstk14.mtx"};
    for (int i = 0; i < 2; i++) {
        ovk_matrix *M = shared_matrix(files[i]);
        if (M) check_multi_product(M, files[i]);
        ovk_matrix_destroy(M);
    }
    ovk_matrix *W = wide_matrix(40000, 33000, 1), *N = wide_matrix(40000, 33000, 0), *L = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 8, 0.0, &L));
    check_value_forms(W, "wide symmetric");
    check_value_forms(N, "wide nonsymmetric");
    check_value_forms(L, "27-point without runs");
    ovk_matrix_destroy(W);
    ovk_matrix_destroy(N);
    ovk_matrix_destroy(L);
    static const int ks[] = {1, 2, 7, 16};
    for (int v = 0; mt_recurrence_name(v); v++) /* k = 2 and 16 for three of them: the test stays short */
        for (int i = 0; i < 4; i++)
            if (ks[i] == 1 || ks[i] == 7 || !strcmp(mt_recurrence_name(v), "alg1") ||
                !strcmp(mt_recurrence_name(v), "pipecg") || !strcmp(mt_recurrence_name(v), "plcg"))
                check_batch(A, mt_recurrence_name(v), "blocking", ks[i], -1, -1);
    static const char *const backends[] = {"native", "nbc", "offload"};
    for (int b = 0; b < 3; b++) {
        check_batch(A, "alg1", backends[b], 7, 2, 5);
        check_batch(A, "pipecg", backends[b], 7, 2, 5);
    }
    for (int v = 0; mt_recurrence_name(v); v++) check_batch(A, mt_recurrence_name(v), "blocking", 7, 3, 4);
#ifdef OVK_HAVE_HYPRE
    static const char *const amgs[] = {"amg", "amg:precision=double", "amg:smoother=l1jacobi,sweeps=2",
                                       "amg:degree=2"};
    for (int p = 0; p < 4; p++) check_amg_many(A, amgs[p], 0);
    check_amg_many(A, "amg", 1); /* l1-Jacobi sweeps on the coarsest level, double */
    static const char *const pcs[] = {"ic0", "ssor:omega=1.3", "cheby", "amg"}; /* their apply_many */
    enum { NPCS = 4 };
#else
    static const char *const pcs[] = {"ic0", "ssor:omega=1.3", "cheby"};
    enum { NPCS = 3 };
#endif
    for (int p = 0; p < NPCS; p++) {
        precond = pcs[p];
        check_batch(A, "alg1", "blocking", 7, -1, -1);
    }
    check_batch(A, "pipecg", "native", 7, 2, -1); /* a pipelined variant's waits around it */
    precond = NULL;
    check_reduction_count(A, "alg1", 0);
    check_groups(A, "alg1", "blocking", NULL);
    check_groups(A, "pipecg", "native", NULL); /* sums in flight over the product */
    check_groups(A, "cg1", "nbc", "ic0");      /* ic0's apply_many for all k, between the groups */
    check_reduction_count(A, "pipecg", 7); /* the true-residual checks */
    check_nonsymmetric();
    check_operator(A);
    check_failure_detail(A);
    check_monitor(A);
    check_bad_input(A, A7);
    int ran = check_scratch_after_runs(A, "27-point") | check_scratch_after_runs(A7, "7-point");
    MT_CHECK(ran, "neither Laplacian kept runs: the kept-scratch check did not run");
    ovk_matrix_destroy(A);
    ovk_matrix_destroy(A7);
    int rc = mt_finish("test_solve_many");
    MPI_Finalize();
    return rc;
}
