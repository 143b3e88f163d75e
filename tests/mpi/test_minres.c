/* MPI test: MINRES (minres) and pipelined MINRES (pminres).
 *
 *  - a dense reference: a symmetric indefinite 60-row matrix (a third of its
 *    diagonal negative; the last rank without rows at 2 ranks or more) every
 *    rank builds whole and solves by Gaussian elimination; both solvers with
 *    none and a user |diag| preconditioner to rtol 1e-12 match its x to 1e-9
 *    within 2 N steps (N in exact arithmetic);
 *  - a shifted 2-D Laplacian L - 0.3 I (24 x 24, 26 negative eigenvalues):
 *    both converge with none and jacobi, confirmed by the true residual;
 *    their attainable accuracy (rtol 1e-16, 250 steps): pminres's true
 *    residual within one digit of minres's; alg1 and pipecg refuse it
 *    (a negative <p,Ap>) with OVK_EBREAKDOWN on every rank naming minres;
 *    three right-hand sides at once (solve_many): each as its own solve;
 *  - a saddle-point matrix [[A, B^T], [B, 0]] (A SPD tridiagonal, B a
 *    discrete divergence of full row rank; the last rank without rows at 2
 *    ranks or more): minres and pminres with none and with a user
 *    block-diagonal SPD preconditioner (diag(A)^-1, and the inverse diagonal
 *    of B diag(A)^-1 B^T) converge, confirmed; jacobi is refused at setup
 *    (a zero diagonal: the preconditioner must be SPD) on every rank;
 *  - PMPI: on native, one reduction posted per step for both (besides the
 *    initial check, the start and the confirmation); with a matrix-free
 *    symmetric indefinite operator and a preconditioner callback, every
 *    product of pminres but r0 = b - A x0, and every preconditioner
 *    application but the first, runs while a reduction is posted and not
 *    completed, those of its refreshes (replace_every=5) too (minres: none); that product failing on the last rank in
 *    the middle of the solve: OVK_ECALLBACK on every rank, x finite;
 *  - bad input, the same status on every rank: a nonsymmetric matrix
 *    (OVK_ENOTSYM at setup naming the solver), an indefinite preconditioner
 *    (a callback returning -r: OVK_EBREAKDOWN naming "not SPD").
 * Runs at any rank count. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

#include "count_reductions.h"

static int g_rank, g_size;

static const char *const solvers[] = {"minres", "pminres"};

/* a pseudo-random value in [-1, 1) per integer */
static double hash_unit(uint64_t g)
{
    g += 0x9E3779B97F4A7C15ull;
    g = (g ^ (g >> 30)) * 0xBF58476D1CE4E5B9ull;
    g = (g ^ (g >> 27)) * 0x94D049BB133111EBull;
    g ^= g >> 31;
    return 2.0 * (double)(g >> 11) * (1.0 / 9007199254740992.0) - 1.0;
}

/* rows [lo, hi) of n: contiguous blocks over the ranks, the last rank
 * without rows at 2 ranks or more when spare */
static void split_rows(int n, int spare, int *lo, int *hi)
{
    int holders = spare && g_size > 1 ? g_size - 1 : g_size, me = g_rank < holders ? g_rank : -1;
    *lo = me < 0 ? n : (int)((long)n * me / holders);
    *hi = me < 0 ? n : (int)((long)n * (me + 1) / holders);
}

typedef double (*entry_fn)(int n, int i, int j);
/* the candidate columns of row i (at most 8) into js; their count */
typedef int (*cols_fn)(int i, int *js);

/* the local rows of the n x n matrix entry(n, i, j), nonzero only in the
 * candidate columns */
static ovk_matrix *build(int n, int spare, entry_fn entry, cols_fn cols)
{
    int lo, hi;
    split_rows(n, spare, &lo, &hi);
    int nl = hi - lo, *ptr = malloc(sizeof(int) * (size_t)(nl + 1));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (size_t)(8 * nl + 1));
    double *val = malloc(sizeof(double) * (size_t)(8 * nl + 1));
    ptr[0] = 0;
    for (int i = lo, k = 0; i < hi; i++) {
        int js[8], nj = cols(i, js);
        for (int d = 0; d < nj; d++) {
            int j = js[d];
            double a = j >= 0 && j < n ? entry(n, i, j) : 0.0;
            if (a != 0.0) {
                col[k] = j;
                val[k++] = a;
            }
        }
        ptr[i - lo + 1] = k;
    }
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, lo, nl, ptr, col, val, OVK_DUP_REJECT, &A));
    free(ptr);
    free(col);
    free(val);
    return A;
}

/* the columns of a band: i + each of off[0..k) */
static int band(int i, int *js, const int *off, int k)
{
    for (int d = 0; d < k; d++) js[d] = i + off[d];
    return k;
}

/* ---- the dense reference ------------------------------------------------- */

enum { DENSE_N = 60 };
static int dense_cols(int i, int *js) { return band(i, js, (const int[]){-7, -1, 0, 1, 7}, 5); }

/* symmetric indefinite: diagonal -(2 + i/n) on every third row, 2 + i/n
 * elsewhere, -1 beside it, a random coupling at distance 7 */
static double dense_entry(int n, int i, int j)
{
    if (i == j) return (i % 3 == 0 ? -1.0 : 1.0) * (2.0 + (double)i / n);
    if (abs(i - j) == 1) return -1.0;
    if (abs(i - j) == 7) return 0.3 + 0.2 * hash_unit((uint64_t)(i < j ? i : j));
    return 0.0;
}

/* the same with a skew part: not symmetric */
static double skew_entry(int n, int i, int j) { return dense_entry(n, i, j) + (j == i + 1 ? 0.25 : 0.0); }

/* z = r ./ |d| for the diagonal d of the rank's rows (an SPD preconditioner
 * of an indefinite matrix), or z = -r when negate (indefinite) */
typedef struct diag_pc {
    double *d;
    int negate;
} diag_pc;

static int apply_diag(ovk_solver *s, const double *r, double *z, void *ctx)
{
    const diag_pc *p = ctx;
    int n = ovk_solver_nlocal(s);
    for (int i = 0; i < n; i++) z[i] = p->negate ? -r[i] : r[i] / fabs(p->d[i]);
    return 0;
}

/* One solve of A x = b from x = 0: solver, a preconditioner by name (NULL:
 * the callback pc), backend; rtol, maxit; x copied to xout (local rows) when
 * not NULL; the true ||b - A x|| / ||b|| in *true_rel; the reductions posted
 * (n_iallreduce) in *posted */
typedef struct run {
    const char *solver, *pc, *backend;
    diag_pc *user;
    double rtol;
    int maxit;
} run;

typedef struct result {
    int rc, iterations;
    ovk_reason reason;
    double true_rel;
    long posted, restarts, refreshes;
    char detail[512];
} result;

static result solve(ovk_matrix *A, const ovk_vector *b, const run *rn, double *xout)
{
    result o = {0};
    ovk_vector *x = NULL, *r = NULL;
    ovk_solver *s = NULL;
    ovk_pcg_result res = {0};
    ovk_vector_create(A, &x);
    ovk_vector_create(A, &r);
    ovk_solver_create(A, &s);
    o.rc = ovk_solver_set_option(s, "solver", rn->solver);
    if (!o.rc) o.rc = ovk_solver_set_option(s, "backend", rn->backend ? rn->backend : "native");
    if (!o.rc && rn->pc) o.rc = ovk_solver_set_option(s, "precond", rn->pc);
    if (!o.rc && !rn->pc) o.rc = ovk_solver_set_precond_fn(s, apply_diag, rn->user);
    if (!o.rc) o.rc = ovk_solver_set_tolerances(s, rn->rtol, 0.0, rn->maxit);
    if (!o.rc) o.rc = ovk_solver_setup(s);
    long p0 = n_iallreduce;
    if (!o.rc) o.rc = ovk_solver_solve(s, b, x, &res);
    o.posted = n_iallreduce - p0;
    if (o.rc) snprintf(o.detail, sizeof o.detail, "%s", ovk_error_detail());
    o.iterations = res.iterations;
    o.reason = res.reason;
    o.restarts = res.restarts;
    o.refreshes = res.replacements;
    double rr = 0.0, bb = 0.0;
    ovk_matvec(A, x, r);
    ovk_vector_scale(-1.0, r);
    ovk_vector_axpy(1.0, b, r);
    ovk_vector_dot(r, r, &rr);
    ovk_vector_dot(b, b, &bb);
    o.true_rel = sqrt(rr / bb);
    int n = ovk_vector_nlocal(x);
    if (xout && n > 0) memcpy(xout, ovk_vector_data(x), sizeof(double) * (size_t)n);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(x);
    ovk_vector_destroy(r);
    return o;
}

/* rc the same on every rank, and the expected one */
static void expect_everywhere(const char *what, int rc, int expected)
{
    int lo = rc, hi = rc;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MT_CHECK(lo == expected && hi == expected, "%s: status %s..%s, expected %s", what, ovk_status_name(lo),
             ovk_status_name(hi), ovk_status_name(expected));
}

static void expect_converged(const char *what, const result *o, double rtol)
{
    MT_CHECK(o->rc == OVK_OK && o->reason == OVK_REASON_CONVERGED, "%s: status %s reason %s (%s)", what,
             ovk_status_name(o->rc), ovk_reason_name(o->reason), o->detail);
    MT_CHECK(o->true_rel < rtol, "%s: true residual %.3e", what, o->true_rel);
}

/* the local diagonal of A (the rows' a_ii, 0 where none is stored), malloc'd */
static double *local_diag(ovk_matrix *A, int n, entry_fn entry, int nglobal)
{
    double *d = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    ovk_gidx lo = ovk_matrix_row_start(A);
    for (int i = 0; i < n; i++) d[i] = entry(nglobal, (int)lo + i, (int)lo + i);
    return d;
}

static void dense_reference(void)
{
    int n = DENSE_N, lo, hi;
    split_rows(n, 1, &lo, &hi);
    double *a = malloc(sizeof(double) * (size_t)(n * n)), *xr = malloc(sizeof(double) * (size_t)n);
    double *x = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        xr[i] = hash_unit((uint64_t)i + 7u);
        for (int j = 0; j < n; j++) a[i * n + j] = dense_entry(n, i, j);
    }
    mt_dense_solve(n, a, xr);
    ovk_matrix *A = build(n, 1, dense_entry, dense_cols);
    ovk_vector *b = NULL;
    ovk_vector_create(A, &b);
    double *bd = ovk_vector_data(b);
    for (int i = lo; i < hi; i++) bd[i - lo] = hash_unit((uint64_t)i + 7u);
    diag_pc user = {local_diag(A, hi - lo, dense_entry, n), 0};
    for (int k = 0; k < 2; k++)
        for (int p = 0; p < 2; p++) {
            run rn = {.solver = solvers[k], .pc = p ? NULL : "none", .user = &user, .rtol = 1e-12, .maxit = 4 * n};
            result o = solve(A, b, &rn, x);
            double e = 0.0, xx = 0.0;
            for (int i = lo; i < hi; i++) {
                e += (x[i - lo] - xr[i]) * (x[i - lo] - xr[i]);
                xx += xr[i] * xr[i];
            }
            double g[2] = {e, xx};
            MPI_Allreduce(MPI_IN_PLACE, g, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            double err = sqrt(g[0] / g[1]);
            const char *pc = p ? "|diag|" : "none";
            MT_CHECK(o.rc == OVK_OK && o.reason == OVK_REASON_CONVERGED, "dense %s %s: status %s reason %s (%s)",
                     solvers[k], pc, ovk_status_name(o.rc), ovk_reason_name(o.reason), o.detail);
            MT_CHECK(err < 1e-9, "dense %s %s: error %.3e against the dense solve", solvers[k], pc, err);
            MT_CHECK(o.iterations <= 2 * n, "dense %s %s: %d steps for %d rows", solvers[k], pc, o.iterations, n);
            if (g_rank == 0)
                printf("dense %-8s %-6s %3d steps, error %.2e, true rel %.2e\n", solvers[k], pc, o.iterations, err,
                       o.true_rel);
        }
    free(user.d);
    ovk_vector_destroy(b);
    ovk_matrix_destroy(A);
    free(a);
    free(xr);
    free(x);
}

/* ---- the shifted Laplacian ------------------------------------------------ */

enum { GRID = 24 };
#define SHIFT 0.3
static int lap_cols(int i, int *js) { return band(i, js, (const int[]){-GRID, -1, 0, 1, GRID}, 5); }

/* the 5-point Laplacian of a GRID x GRID grid (Dirichlet) minus 0.3 I:
 * eigenvalues 4 - 2 cos(k pi / 25) - 2 cos(l pi / 25) - 0.3, 26 of them
 * negative */
static double lap_entry(int n, int i, int j)
{
    (void)n;
    if (i == j) return 4.0 - SHIFT;
    if (abs(i - j) == GRID) return -1.0;
    if (abs(i - j) == 1 && i / GRID == j / GRID) return -1.0;
    return 0.0;
}

/* three right-hand sides b_j = (j + 1) 1 + hash solved together
 * (ovk_solver_solve_many): each converged, confirmed, in the steps of its
 * own solve and to its x within 1e-10 */
static void batch(ovk_matrix *A, const char *solver)
{
    enum { K = 3 };
    ovk_vector *B[K], *X[K], *x1 = NULL;
    ovk_pcg_result res[K], one;
    ovk_solver *s = NULL;
    ovk_vector_create(A, &x1);
    int n = ovk_vector_nlocal(x1);
    for (int j = 0; j < K; j++) {
        ovk_vector_create(A, &B[j]);
        ovk_vector_create(A, &X[j]);
        double *bd = ovk_vector_data(B[j]);
        for (int i = 0; i < n; i++) bd[i] = (j + 1) + hash_unit((uint64_t)(ovk_matrix_row_start(A) + i) + 100u * j);
    }
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solver));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "jacobi"));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-8, 0.0, 2000));
    int rc = ovk_solver_solve_many(s, K, B, X, res);
    expect_everywhere("solve_many", rc, OVK_OK);
    for (int j = 0; j < K; j++) {
        ovk_vector_set(x1, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, B[j], x1, &one));
        double d = 0.0, xx = 0.0;
        const double *a = ovk_vector_data(X[j]), *c = ovk_vector_data(x1);
        for (int i = 0; i < n; i++) {
            d += (a[i] - c[i]) * (a[i] - c[i]);
            xx += c[i] * c[i];
        }
        double g[2] = {d, xx};
        MPI_Allreduce(MPI_IN_PLACE, g, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MT_CHECK(res[j].reason == OVK_REASON_CONVERGED && res[j].iterations == one.iterations &&
                     sqrt(g[0] / g[1]) < 1e-10,
                 "%s batch system %d: %s in %d steps (alone %d), x differs by %.2e", solver, j,
                 ovk_reason_name(res[j].reason), res[j].iterations, one.iterations, sqrt(g[0] / g[1]));
        ovk_vector_destroy(B[j]);
        ovk_vector_destroy(X[j]);
    }
    if (g_rank == 0) printf("batch of %d %s: %d, %d, %d steps\n", K, solver, res[0].iterations, res[1].iterations,
                            res[2].iterations);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(x1);
}

static void shifted_laplacian(void)
{
    int n = GRID * GRID;
    ovk_matrix *A = build(n, 0, lap_entry, lap_cols);
    ovk_vector *b = NULL;
    ovk_vector_create(A, &b);
    ovk_vector_set(b, 1.0); /* <b, A b> < 0: the smooth modes have negative eigenvalues */
    result best[2];
    for (int k = 0; k < 2; k++) {
        static const char *const pcs[] = {"none", "jacobi"};
        for (int p = 0; p < 2; p++) {
            char what[64];
            snprintf(what, sizeof what, "L - 0.3 I %s %s", solvers[k], pcs[p]);
            run rn = {.solver = solvers[k], .pc = pcs[p], .rtol = 1e-8, .maxit = 2000};
            result o = solve(A, b, &rn, NULL);
            expect_converged(what, &o, 1e-8);
            /* one reduction a step; besides: the initial check, the start (pminres: 2), the confirmation */
            int extra = k ? 4 : 3;
            MT_CHECK(o.posted == o.iterations + extra + (k ? 2 : 1) * o.restarts, "%s: %ld reductions in %d steps", what,
                     o.posted, o.iterations);
            if (g_rank == 0)
                printf("%-28s %4d steps, true %.2e, %ld reductions, %ld restarts, %ld refreshes\n", what,
                       o.iterations, o.true_rel, o.posted, o.restarts, o.refreshes);
        }
        run deep = {.solver = solvers[k], .pc = "none", .rtol = 1e-16, .maxit = 250};
        best[k] = solve(A, b, &deep, NULL);
        if (g_rank == 0)
            printf("attainable %-8s true %.2e after %d steps (%ld restarts, %ld refreshes)\n", solvers[k],
                   best[k].true_rel, best[k].iterations, best[k].restarts, best[k].refreshes);
    }
    MT_CHECK(best[0].true_rel < 1e-13 && best[1].true_rel < 10.0 * best[0].true_rel,
             "attainable accuracy: minres %.2e, pminres %.2e", best[0].true_rel, best[1].true_rel);
    batch(A, "minres");
    batch(A, "pminres");
    static const char *const cg[] = {"alg1", "pipecg"};
    for (int k = 0; k < 2; k++) {
        char what[64];
        snprintf(what, sizeof what, "L - 0.3 I %s", cg[k]);
        run rn = {.solver = cg[k], .pc = "none", .rtol = 1e-8, .maxit = 2000};
        result o = solve(A, b, &rn, NULL);
        expect_everywhere(what, o.rc, OVK_EBREAKDOWN);
        MT_CHECK(strstr(o.detail, "minres") != NULL, "%s: detail '%s'", what, o.detail);
        if (g_rank == 0) printf("%s: %s: %s\n", what, ovk_status_name(o.rc), o.detail);
    }
    ovk_vector_destroy(b);
    ovk_matrix_destroy(A);
}

/* ---- a saddle point ------------------------------------------------------ */

enum { NP = 150, NU = 2 * NP, NS = NU + NP };

/* [[A, B^T], [B, 0]]: A = tridiag(-1, 2.5, -1) on the NU velocities, B's
 * row p = e_{2p} - e_{2p+1} (a discrete divergence: full row rank) */
static double saddle_entry(int n, int i, int j)
{
    (void)n;
    if (i < NU && j < NU) return i == j ? 2.5 : abs(i - j) == 1 ? -1.0 : 0.0;
    if (i >= NU && j >= NU) return 0.0;
    int p = i >= NU ? i - NU : j - NU, u = i >= NU ? j : i;
    return u == 2 * p ? 1.0 : u == 2 * p + 1 ? -1.0 : 0.0;
}

/* a velocity's neighbours and its pressure; a pressure's two velocities */
static int saddle_cols(int i, int *js)
{
    if (i >= NU) return band(0, js, (const int[]){2 * (i - NU), 2 * (i - NU) + 1}, 2);
    return band(i, js, (const int[]){-1, 0, 1, NU + i / 2 - i}, 4);
}

/* the block-diagonal SPD preconditioner's diagonal: a_ii on the velocities,
 * (B diag(A)^-1 B^T)_pp = 2 / 2.5 on the pressures */
static double saddle_pc_entry(int n, int i, int j)
{
    (void)n, (void)j;
    return i < NU ? 2.5 : 2.0 / 2.5;
}

static void saddle_point(void)
{
    ovk_matrix *A = build(NS, 1, saddle_entry, saddle_cols);
    ovk_vector *b = NULL;
    ovk_vector_create(A, &b);
    int n = ovk_vector_nlocal(b);
    double *bd = ovk_vector_data(b);
    for (int i = 0; i < n; i++) bd[i] = hash_unit((uint64_t)(ovk_matrix_row_start(A) + i) + 3u);
    diag_pc user = {local_diag(A, n, saddle_pc_entry, NS), 0};
    for (int k = 0; k < 2; k++)
        for (int p = 0; p < 2; p++) {
            char what[64];
            snprintf(what, sizeof what, "saddle point %s %s", solvers[k], p ? "block diagonal" : "none");
            run rn = {.solver = solvers[k], .pc = p ? NULL : "none", .user = &user, .rtol = 1e-8, .maxit = 2000};
            result o = solve(A, b, &rn, NULL);
            expect_converged(what, &o, 1e-8);
            if (g_rank == 0) printf("%-36s %4d steps, true %.2e\n", what, o.iterations, o.true_rel);
        }
    for (int k = 0; k < 2; k++) {
        char what[64];
        snprintf(what, sizeof what, "saddle point %s jacobi", solvers[k]);
        run rn = {.solver = solvers[k], .pc = "jacobi", .rtol = 1e-8, .maxit = 2000};
        result o = solve(A, b, &rn, NULL);
        expect_everywhere(what, o.rc, OVK_EZERODIAG);
        if (g_rank == 0) printf("%s: %s: %s\n", what, ovk_status_name(o.rc), o.detail);
    }
    free(user.d);
    ovk_vector_destroy(b);
    ovk_matrix_destroy(A);
}

/* ---- the pipeline, seen from the callbacks ------------------------------- */

enum { OP_ROWS = 300 };

typedef struct calls {
    int pc, pc_flying, mv, mv_flying;
    int fail_from; /* the last rank's product fails from this call on (0: never) */
} calls;

/* 1 when a reduction is posted and not completed */
static int flying(void) { return mt_reduction_in_flight(); }

/* y = A x: each rank's rows a symmetric indefinite tridiagonal block of
 * its own (diagonal 1.5 + 0.002 i, off-diagonals -1) */
static int op_matvec(ovk_solver *s, const double *x, double *y, void *ctx)
{
    calls *k = ctx;
    int n = ovk_solver_nlocal(s);
    k->mv++;
    k->mv_flying += flying();
    for (int i = 0; i < n; i++)
        y[i] = (1.5 + 0.002 * i) * x[i] - (i > 0 ? x[i - 1] : 0.0) - (i + 1 < n ? x[i + 1] : 0.0);
    return k->fail_from && k->mv >= k->fail_from && g_rank == g_size - 1;
}

/* z = r / diag(A) */
static int op_pc(ovk_solver *s, const double *r, double *z, void *ctx)
{
    calls *k = ctx;
    int n = ovk_solver_nlocal(s);
    k->pc++;
    k->pc_flying += flying();
    for (int i = 0; i < n; i++) z[i] = r[i] / (1.5 + 0.002 * i);
    return 0;
}

/* 20 steps (rtol 1e-30) on native; with fail_from the product fails on the
 * last rank from that call on: OVK_ECALLBACK on every rank, x finite */
static calls pipeline_run(const char *solver, int fail_from, const char *replace_every)
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
    MT_RC(OVK_OK, ovk_solver_set_option(s, "replace_every", replace_every));
    MT_RC(OVK_OK, ovk_solver_vector_create(s, NULL, &b));
    MT_RC(OVK_OK, ovk_solver_vector_create(s, NULL, &x));
    double *bd = ovk_vector_data(b);
    for (int i = 0; i < OP_ROWS; i++) bd[i] = hash_unit((uint64_t)(g_rank * OP_ROWS + i));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    k = (calls){.fail_from = fail_from};
    int rc = ovk_solver_solve(s, b, x, &res);
    if (fail_from) {
        int finite = 1;
        const double *xd = ovk_vector_data(x);
        for (int i = 0; i < OP_ROWS; i++) finite &= isfinite(xd[i]) != 0;
        expect_everywhere("a failing product", rc, OVK_ECALLBACK);
        MT_CHECK(finite, "%s, a failing product: x not finite after %d steps", solver, res.iterations);
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
    /* r0, the start's w^_1, m^_1, n^_1, one n a step but the last, and at the
     * limit b - A x of the x returned; with replace_every=5 two products and
     * two applications more at steps 5, 10, 15 */
    static const char *const every[] = {"0", "5"};
    for (int e = 0; e < 2; e++) {
        calls k = pipeline_run("pminres", 0, every[e]);
        int extra = e ? 6 : 0;
        /* not in flight: r0 = b - A x0, the start's v^_1 = C u^_1 and the limit's b - A x */
        MT_CHECK(k.mv == 23 + extra && k.mv_flying == k.mv - 2 && k.pc == 21 + extra && k.pc_flying == k.pc - 1,
                 "pminres replace_every=%s: %d of %d products and %d of %d preconditioner applications behind a "
                 "posted sum", every[e], k.mv_flying, k.mv, k.pc_flying, k.pc);
        if (g_rank == 0)
            printf("pipeline: pminres replace_every=%s: %d/%d products, %d/%d applications in flight\n", every[e],
                   k.mv_flying, k.mv, k.pc_flying, k.pc);
    }
    calls m = pipeline_run("minres", 0, "0");
    MT_CHECK(m.mv_flying == 0 && m.pc_flying == 0, "minres: %d products, %d applications behind a sum", m.mv_flying,
             m.pc_flying);
    pipeline_run("pminres", 9, "0"); /* step 6's n = A m, a reduction in flight */
    pipeline_run("minres", 9, "0");
}

/* ---- bad input ------------------------------------------------------------ */

static void bad_inputs(void)
{
    ovk_matrix *S = build(DENSE_N, 1, skew_entry, dense_cols);
    for (int k = 0; k < 2; k++) {
        ovk_solver *s = NULL;
        ovk_solver_create(S, &s);
        int rc = ovk_solver_set_option(s, "solver", solvers[k]);
        if (!rc) rc = ovk_solver_setup(s);
        char what[64];
        snprintf(what, sizeof what, "%s on a nonsymmetric matrix", solvers[k]);
        expect_everywhere(what, rc, OVK_ENOTSYM);
        MT_CHECK(strstr(ovk_error_detail(), solvers[k]) != NULL, "%s: detail '%s'", what, ovk_error_detail());
        if (g_rank == 0) printf("bad input %s: %s: %s\n", what, ovk_status_name(rc), ovk_error_detail());
        ovk_solver_destroy(&s);
    }
    ovk_matrix_destroy(S);
    ovk_matrix *A = build(DENSE_N, 1, dense_entry, dense_cols);
    ovk_vector *b = NULL;
    ovk_vector_create(A, &b);
    ovk_vector_set(b, 1.0);
    diag_pc neg = {NULL, 1};
    for (int k = 0; k < 2; k++) {
        char what[64];
        snprintf(what, sizeof what, "%s with z = -r", solvers[k]);
        run rn = {.solver = solvers[k], .user = &neg, .rtol = 1e-8, .maxit = 100};
        result o = solve(A, b, &rn, NULL);
        expect_everywhere(what, o.rc, OVK_EBREAKDOWN);
        MT_CHECK(strstr(o.detail, "not SPD") != NULL, "%s: detail '%s'", what, o.detail);
        if (g_rank == 0) printf("bad input %s: %s: %s\n", what, ovk_status_name(o.rc), o.detail);
    }
    ovk_vector_destroy(b);
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    dense_reference();
    shifted_laplacian();
    saddle_point();
    pipeline();
    bad_inputs();
    int status = mt_finish("test_minres");
    MPI_Finalize();
    return status;
}
