/* GCRO-DR (solver gcrodr, option recycle) on a small turning-wind sequence:
 * upwind convection-diffusion on a G x G grid whose wind turns from one
 * system to the next (new values on one pattern; rows split unevenly, a
 * rank without rows at 3 and 4 ranks), jacobi:
 *   - every system converges, the true residual within the tolerance, the
 *     iterations the same on every rank, x within 1e-6 of a dense solve
 *     (systems 2 and K);
 *   - systems 2..K take at most 0.8 of gmres's iterations summed (restart
 *     20 both) and none more than gmres's plus k;
 *   - reductions: about one per iteration (a second Gram-Schmidt pass is
 *     rare), one per cycle and a few per solve;
 *   - the cycle end sums Ck^T U at a solve's first cycle only (later the
 *     update carries it): the values each reduction carries;
 *   - the view says how the space was last made; ovk_solver_recycle_reset:
 *     the next solve takes the first solve's iterations again;
 *   - after a first system far easier than the next, the space carried
 *     into system 2 takes more than system 1's iterations plus k: system 3
 *     starts without it (the iterations of a solve after a reset) and the
 *     view says so;
 *   - update=2: the space made at a solve's first two cycle ends only (the
 *     view's update count at most 2 a solve, below every cycle's), each
 *     system still converges; the view says it was kept; settle=0.1 (the
 *     space kept after a cycle that cut the residual tenfold) likewise;
 *   - a NaN from the operator in one solve fails it on every rank; the next
 *     solve still starts from a space;
 *   - bad input, refused on every rank: recycle >= restart, restart 1, a key
 *     gcrodr does not take. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count_reductions.h"
#include "mpitest.h"
#include "problem.h"

enum { G = 20, N = G * G, STEPS = 5, K = 6 };

/* added to system 0's diagonal (check_not_carried: an easy first system) */
static double first_shift = 0.0;

/* entry (r, c) of system t: -eps lap u + w . grad u, upwind, h = 1/(G+1),
 * the wind (cos 0.3 t, sin 0.3 t) */
static double entry(int r, int c, int t)
{
    const double eps = 0.02, h = 1.0 / (G + 1);
    double wx = cos(0.3 * t), wy = sin(0.3 * t);
    int i = r / G, j = r % G, ci = c / G, cj = c % G;
    double diag = 4.0 * eps / (h * h) + (fabs(wx) + fabs(wy)) / h;
    if (c == r) return diag + (t == 0 ? first_shift : 0.0);
    double v = -eps / (h * h);
    if (ci == i - 1 && cj == j) return v - (wx > 0 ? wx / h : 0.0);
    if (ci == i + 1 && cj == j) return v + (wx < 0 ? wx / h : 0.0);
    if (ci == i && cj == j - 1) return v - (wy > 0 ? wy / h : 0.0);
    if (ci == i && cj == j + 1) return v + (wy < 0 ? wy / h : 0.0);
    return 0.0;
}

static void rows_of(tp_rows *rw, int t)
{
    rw->ptr[0] = 0;
    for (int l = 0, at = 0; l < rw->count; l++) {
        int r = (int)rw->start + l, i = r / G, j = r % G;
        int cols[5] = {r - G, r - 1, r, r + 1, r + G};
        int ok[5] = {i > 0, j > 0, 1, j < G - 1, i < G - 1};
        for (int e = 0; e < 5; e++) {
            if (!ok[e]) continue;
            rw->col[at] = cols[e];
            rw->val[at++] = entry(r, cols[e], t);
        }
        rw->ptr[l + 1] = at;
    }
}

/* ||x - A^-1 b||_inf / ||A^-1 b||_inf against a dense solve of system t */
static double dense_error(const ovk_vector *x, const double *bg, int t, int64_t start)
{
    double *a = malloc(sizeof(double) * N * N);
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) a[r * N + c] = entry(r, c, t);
    double e = mt_dense_error(N, a, bg, x, start);
    free(a);
    return e;
}

typedef struct run {
    int iterations[STEPS];
    long allreduce[STEPS];
    long long reductions[STEPS];
    double error[STEPS];
    char view[MT_VIEW_LEN];
} run;

/* the sequence with solver spec `solver` and recycle = k, x0 = 0 each time;
 * reset_at: ovk_solver_recycle_reset before that system (-1: never) */
static run sequence(const char *solver, int k, int reset_at)
{
    tp_rows rw;
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    run out;
    char buf[16];
    double bg[N];
    memset(&out, 0, sizeof out);
    tp_rows_alloc(&rw, N, 5);
    for (int r = 0; r < N; r++) bg[r] = 1.0 + tp_value((uint64_t)r + 5);
    for (int t = 0; t < STEPS; t++) {
        rows_of(&rw, t);
        if (t == 0) {
            MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, rw.start, rw.count, rw.ptr, rw.col, rw.val, OVK_DUP_REJECT, &A));
            MT_RC(OVK_OK, ovk_vector_create(A, &b));
            MT_RC(OVK_OK, ovk_vector_create(A, &x));
            for (int l = 0; l < rw.count; l++) ovk_vector_data(b)[l] = bg[rw.start + l];
            MT_RC(OVK_OK, ovk_solver_create(A, &s));
            MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solver));
            MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "jacobi"));
            MT_RC(OVK_OK, ovk_solver_set_option(s, "rtol", "1e-9"));
            snprintf(buf, sizeof buf, "%d", k);
            MT_RC(OVK_OK, ovk_solver_set_option(s, "recycle", buf));
            MT_RC(OVK_OK, ovk_solver_setup(s));
        } else {
            MT_RC(OVK_OK, ovk_matrix_update_values(A, rw.ptr, rw.col, rw.val, OVK_DUP_REJECT));
        }
        if (t == reset_at) MT_RC(OVK_OK, ovk_solver_recycle_reset(s));
        ovk_vector_set(x, 0.0);
        mt_counted o = {0};
        mt_counted_solve(s, A, b, x, &o);
        MT_RC(OVK_OK, o.rc);
        MT_CHECK(o.reason == OVK_REASON_CONVERGED, "%s recycle=%d system %d: %s", solver, k, t, ovk_reason_name(o.reason));
        MT_CHECK(o.true_rel < 1e-9, "%s recycle=%d system %d: true residual %.3g", solver, k, t, o.true_rel);
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &(double){o.iterations}, 1), "%s: iterations differ across ranks",
                 solver);
        out.iterations[t] = o.iterations;
        out.allreduce[t] = o.allreduce;
        out.reductions[t] = o.reductions;
        if (t == 1 || t == STEPS - 1) out.error[t] = dense_error(x, bg, t, rw.start);
        memcpy(out.view, o.view, sizeof out.view);
    }
    ovk_vector_destroy(x);
    ovk_vector_destroy(b);
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
    MT_RC(OVK_OK, ovk_matrix_destroy(A));
    tp_rows_free(&rw);
    return out;
}

/* returns the recycled run (check_frozen compares its updates) */
static run check_sequence(void)
{
    run plain = sequence("gmres:restart=20", 0, -1), off = sequence("gcrodr:restart=20", 0, -1);
    run rec = sequence("gcrodr:restart=20", K, -1);
    int sum_plain = 0, sum_rec = 0;
    for (int t = 0; t < STEPS; t++) {
        MT_CHECK(rec.error[t] < 1e-6 && off.error[t] < 1e-6, "system %d: error %.3g (recycled), %.3g (recycle=0)", t,
                 rec.error[t], off.error[t]);
        MT_CHECK(rec.iterations[t] <= plain.iterations[t] + K, "system %d: %d iterations recycled, %d gmres", t,
                 rec.iterations[t], plain.iterations[t]);
        /* one reduction per step, a second pass when the norm cancelled
           below 1e-2, one per cycle's end (with the space's sums), a
           constant per solve */
        MT_CHECK(rec.reductions[t] <= 1.25 * rec.iterations[t] + 6, "system %d: %lld reductions for %d iterations", t,
                 rec.reductions[t], rec.iterations[t]);
        if (t > 0) {
            sum_plain += plain.iterations[t];
            sum_rec += rec.iterations[t];
        }
    }
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("systems 2..%d: %d iterations gcrodr (k = %d), %d gmres; system 1: %d, %d\n", STEPS, sum_rec, K, sum_plain,
               rec.iterations[0], plain.iterations[0]);
    MT_CHECK(sum_rec <= 0.8 * sum_plain, "systems 2..%d: %d iterations recycled, %d gmres", STEPS, sum_rec, sum_plain);
    MT_CHECK(strstr(rec.view, "recycle: 6 of 6 vectors") != NULL || strstr(rec.view, "recycle: 5 of 6 vectors") != NULL,
             "the view: %s", rec.view);
    /* a reset before system 3: it starts from nothing, as system 1 did on its values */
    run reset = sequence("gcrodr:restart=20", K, 2);
    MT_CHECK(reset.iterations[1] == rec.iterations[1], "before the reset: %d, %d", reset.iterations[1], rec.iterations[1]);
    MT_CHECK(strstr(reset.view, "recycle:") != NULL, "the view after a reset: %s", reset.view);
    return rec;
}

/* the "N update(s)" of a view's recycle line, -1 without one */
static int view_updates(const char *view)
{
    const char *at = strstr(view, "recycle: ");
    const char *after = at ? strstr(at, " vectors after ") : NULL;
    int n = -1;
    if (after && sscanf(after, " vectors after %d update", &n) != 1) n = -1;
    return n;
}

/* update=2, settle=0.1: a solve's later cycles keep the space (no update, no
 * eigenproblem) and the systems still converge (sequence checks each) */
static void check_frozen(const run *every)
{
    run frozen = sequence("gcrodr:restart=20,update=2", K, -1);
    int ue = view_updates(every->view), uf = view_updates(frozen.view);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("update=2: %d updates over %d systems (every cycle: %d); systems 1, %d: %d, %d iterations\n", uf, STEPS,
               ue, STEPS, frozen.iterations[0], frozen.iterations[STEPS - 1]);
    MT_CHECK(uf >= 1 && uf <= 2 * STEPS, "update=2: %d updates over %d systems: %s", uf, STEPS, frozen.view);
    MT_CHECK(ue > uf, "every cycle: %d updates, update=2: %d", ue, uf);
    MT_CHECK(frozen.error[1] < 1e-6 && frozen.error[STEPS - 1] < 1e-6, "update=2: errors %.3g, %.3g",
             frozen.error[1], frozen.error[STEPS - 1]);
    MT_CHECK(strstr(frozen.view, "kept since (update=2)") != NULL, "update=2: the view: %s", frozen.view);
    MT_CHECK(strstr(frozen.view, "first 2 cycle end(s) only") != NULL, "update=2: the view: %s", frozen.view);
    run settled = sequence("gcrodr:restart=20,settle=0.1", K, -1);
    int us = view_updates(settled.view);
    if (rank == 0)
        printf("settle=0.1: %d updates; iterations", us);
    for (int t = 0; t < STEPS && rank == 0; t++) printf(" %d (%d)", settled.iterations[t], every->iterations[t]);
    if (rank == 0) printf("\n");
    MT_CHECK(us >= 1 && us < ue, "settle=0.1: %d updates, every cycle %d", us, ue);
    MT_CHECK(settled.error[1] < 1e-6 && settled.error[STEPS - 1] < 1e-6, "settle=0.1: errors %.3g, %.3g",
             settled.error[1], settled.error[STEPS - 1]);
    MT_CHECK(strstr(settled.view, "settle=0.1)") != NULL, "settle=0.1: the view: %s", settled.view);
}

/* a first system far easier than the next (a shifted diagonal): the space
 * carried into system 2 cannot keep within system 1's iterations plus K,
 * so systems 3.. start without it, as after a reset, and the view says so */
static void check_not_carried(void)
{
    first_shift = 4.0 * 0.02 * (G + 1) * (G + 1); /* twice the diagonal: a few iterations */
    run rec = sequence("gcrodr:restart=20", K, -1), reset = sequence("gcrodr:restart=20", K, 2);
    first_shift = 0.0;
    MT_CHECK(rec.iterations[1] > rec.iterations[0] + K, "system 2 carried: %d iterations, system 1: %d",
             rec.iterations[1], rec.iterations[0]);
    MT_CHECK(rec.iterations[2] == reset.iterations[2], "system 3: %d iterations not carried, %d after a reset",
             rec.iterations[2], reset.iterations[2]);
    MT_CHECK(strstr(rec.view, "not carried into") != NULL, "the view: %s", rec.view);
}

/* settle=0 is never: a first cycle that solves exactly (A = I, b = e_0:
 * the true residual 0 after one step) leaves the space made, not kept */
static void check_exact(void)
{
    tp_rows rw;
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    tp_rows_alloc(&rw, N, 1);
    for (int l = 0; l < rw.count; l++) rw.col[l] = rw.start + l, rw.val[l] = 1.0, rw.ptr[l + 1] = l + 1;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, rw.start, rw.count, rw.ptr, rw.col, rw.val, OVK_DUP_REJECT, &A));
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    ovk_vector_set(b, 0.0);
    if (rw.start == 0 && rw.count > 0) ovk_vector_data(b)[0] = 1.0;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "gcrodr:restart=10"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "recycle", "2"));
    ovk_vector_set(x, 0.0);
    mt_counted o = {0};
    mt_counted_solve(s, A, b, x, &o);
    MT_RC(OVK_OK, o.rc);
    MT_CHECK(o.true_rel == 0.0, "A = I: true residual %.3g, not 0", o.true_rel);
    MT_CHECK(strstr(o.view, "kept since") == NULL, "settle=0 (never): the view says the space was kept: %s", o.view);
    ovk_vector_destroy(x);
    ovk_vector_destroy(b);
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
    MT_RC(OVK_OK, ovk_matrix_destroy(A));
    tp_rows_free(&rw);
}

/* system 1 of the sequence, a random b, and a solver of spec with recycle=5 */
typedef struct fixture {
    tp_rows rw;
    ovk_matrix *A;
    ovk_solver *s;
    ovk_vector *b, *x;
} fixture;

static void fixture_make(fixture *f, const char *spec)
{
    memset(f, 0, sizeof *f);
    tp_rows_alloc(&f->rw, N, 5);
    rows_of(&f->rw, 1);
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, f->rw.start, f->rw.count, f->rw.ptr, f->rw.col, f->rw.val,
                                        OVK_DUP_REJECT, &f->A));
    MT_RC(OVK_OK, ovk_vector_create(f->A, &f->b));
    MT_RC(OVK_OK, ovk_vector_create(f->A, &f->x));
    mt_random_b(f->A, f->b);
    MT_RC(OVK_OK, ovk_solver_create(f->A, &f->s));
    MT_RC(OVK_OK, ovk_solver_set_option(f->s, "solver", spec));
    MT_RC(OVK_OK, ovk_solver_set_option(f->s, "recycle", "5"));
}

static void fixture_free(fixture *f)
{
    ovk_vector_destroy(f->x);
    ovk_vector_destroy(f->b);
    MT_RC(OVK_OK, ovk_solver_destroy(&f->s));
    MT_RC(OVK_OK, ovk_matrix_destroy(f->A));
    tp_rows_free(&f->rw);
}

/* the same system twice on one object: the second solve starts from the
 * space and takes fewer iterations */
static void check_repeat(void)
{
    fixture f;
    ovk_pcg_result r1, r2, r3;
    fixture_make(&f, "gcrodr:restart=15");
    ovk_solver *s = f.s;
    ovk_vector *b = f.b, *x = f.x;
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &r1));
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &r2));
    MT_RC(OVK_OK, ovk_solver_recycle_reset(s));
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &r3));
    MT_CHECK(r2.iterations < r1.iterations, "recycled %d, fresh %d", r2.iterations, r1.iterations);
    MT_CHECK(r3.iterations == r1.iterations, "after the reset %d, fresh %d", r3.iterations, r1.iterations);
    fixture_free(&f);
}

/* The cycle end's one reduction: ||r||^2, V^T U ((M + 1) k values after
 * a full cycle) and Ck^T U (k^2) at a solve's first cycle only; later
 * ones carry Ck^T U from the update's small matrices.  With M = 16 and
 * k <= 5 the two sizes, 1 + 17 k and 1 + k (k + 17), never meet, and a
 * step's reduction (k + j + 2 <= 23) is smaller than either for k >= 2.
 * A solve of several cycles, on the same values or new ones: one cycle end
 * of 1 + k (k + 17) values, the others 1 + 17 k. */
enum { CE_M = 16, CE_K = 5, CE_LOG = 512 };

/* reductions of the solve just logged: *carried the cycle ends that summed
 * V^T U alone (k >= 2), *summed those with Ck^T U too */
static void cycle_end_kinds(int *carried, int *summed)
{
    *carried = *summed = 0;
    for (int i = 0; i < allreduce_log_len; i++)
        for (int k = 2; k <= CE_K; k++) {
            *carried += allreduce_log[i] == 1 + (CE_M + 1) * k;
            *summed += allreduce_log[i] == 1 + k * (k + CE_M + 1);
        }
}

static void check_cycle_end_sums(void)
{
    fixture f;
    ovk_pcg_result r1, r2, r3, r4;
    int log[CE_LOG], carried = 0, summed = 0;
    fixture_make(&f, "gcrodr:restart=16");
    tp_rows *rw = &f.rw;
    ovk_matrix *A = f.A;
    ovk_solver *s = f.s;
    ovk_vector *b = f.b, *x = f.x;
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", "blocking"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "rtol", "1e-10"));
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &r1));
    allreduce_log = log, allreduce_log_len = 0, allreduce_log_cap = CE_LOG;
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &r2));
    cycle_end_kinds(&carried, &summed);
    MT_CHECK(carried >= 1 && summed == 1, "the same values (%d iterations): %d cycle ends with V^T U alone, %d with "
             "Ck^T U summed (expected the first only)", r2.iterations, carried, summed);
    rows_of(rw, 2);
    MT_RC(OVK_OK, ovk_matrix_update_values(A, rw->ptr, rw->col, rw->val, OVK_DUP_REJECT));
    allreduce_log_len = 0;
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &r3));
    cycle_end_kinds(&carried, &summed);
    MT_CHECK(carried >= 1 && summed == 1, "new values (%d iterations): %d cycle ends with V^T U alone, %d with Ck^T U "
             "summed (expected the first only)", r3.iterations, carried, summed);
    allreduce_log = NULL;
    /* the same two solves after a reset: the same iterations */
    rows_of(rw, 1);
    MT_RC(OVK_OK, ovk_matrix_update_values(A, rw->ptr, rw->col, rw->val, OVK_DUP_REJECT));
    MT_RC(OVK_OK, ovk_solver_recycle_reset(s));
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &r4));
    MT_CHECK(r4.iterations == r1.iterations, "the first solve after a reset: %d iterations, before %d", r4.iterations,
             r1.iterations);
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &r4));
    MT_CHECK(r4.iterations == r2.iterations, "the second solve after a reset: %d iterations, before %d",
             r4.iterations, r2.iterations);
    fixture_free(&f);
}

/* NaN from an operator around A in one solve (on the first rank that has
 * rows): that solve fails on every rank, and the next solve still starts
 * from a space (no more iterations than the first, fresh solve) */
typedef struct op_ctx {
    const ovk_matrix *A;
    ovk_vector *xv, *yv;
    long products, poison_after;
} op_ctx;

static int apply(ovk_solver *s, const double *in, double *out, void *ctx)
{
    (void)s;
    op_ctx *o = ctx;
    int n = ovk_vector_nlocal(o->xv);
    memcpy(ovk_vector_data(o->xv), in, sizeof(double) * (size_t)n);
    int rc = ovk_matvec(o->A, o->xv, o->yv);
    memcpy(out, ovk_vector_data_const(o->yv), sizeof(double) * (size_t)n);
    if (++o->products > o->poison_after && n > 0) out[0] = NAN;
    return rc;
}

static void check_nan(void)
{
    tp_rows rw;
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    op_ctx o = {0};
    tp_rows_alloc(&rw, N, 5);
    rows_of(&rw, 1);
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, rw.start, rw.count, rw.ptr, rw.col, rw.val, OVK_DUP_REJECT, &A));
    o.A = A;
    ovk_vector_create(A, &o.xv);
    ovk_vector_create(A, &o.yv);
    MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, rw.count, apply, &o, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "gcrodr:restart=15"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "none"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "recycle", "5"));
    double *b = malloc(sizeof(double) * (size_t)(rw.count + 1)), *x = calloc((size_t)rw.count + 1, sizeof(double));
    for (int l = 0; l < rw.count; l++) b[l] = 1.0 + tp_value((uint64_t)(rw.start + l));
    ovk_vector *bv = NULL, *xv = NULL;
    MT_RC(OVK_OK, ovk_solver_vector_create(s, b, &bv));
    MT_RC(OVK_OK, ovk_solver_vector_create(s, x, &xv));
    int its[4] = {0}, rcs[4] = {0};
    for (int solve = 0; solve < 4; solve++) {
        ovk_pcg_result res;
        memset(x, 0, sizeof(double) * (size_t)rw.count);
        o.products = 0;
        o.poison_after = solve == 2 ? 25 : 1L << 40;
        rcs[solve] = ovk_solver_solve(s, bv, xv, &res);
        its[solve] = res.iterations;
    }
    MT_RC(OVK_OK, rcs[0]);
    MT_RC(OVK_OK, rcs[1]);
    MT_CHECK(rcs[2] != OVK_OK, "the poisoned solve succeeded");
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &(double){rcs[2]}, 1), "the poisoned solve's status differs");
    MT_RC(OVK_OK, rcs[3]);
    MT_CHECK(its[1] < its[0] && its[3] < its[0], "iterations %d fresh, %d recycled, %d after the NaN", its[0], its[1],
             its[3]);
    ovk_vector_destroy(bv);
    ovk_vector_destroy(xv);
    free(b), free(x);
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
    ovk_vector_destroy(o.xv);
    ovk_vector_destroy(o.yv);
    MT_RC(OVK_OK, ovk_matrix_destroy(A));
    tp_rows_free(&rw);
}

/* spec and recycle refused (by set_option or setup) on every rank, the detail naming what */
static void refused(ovk_matrix *A, const char *spec, const char *recycle, const char *word)
{
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    int rc = ovk_solver_set_option(s, "solver", spec);
    if (!rc) rc = ovk_solver_set_option(s, "recycle", recycle);
    if (!rc) rc = ovk_solver_setup(s);
    MT_CHECK(rc == OVK_EOPTION, "%s recycle=%s: %s (%s)", spec, recycle, ovk_status_name(rc), ovk_error_detail());
    MT_CHECK(strstr(ovk_error_detail(), word) != NULL, "%s recycle=%s: the detail names no %s: %s", spec, recycle,
             word, ovk_error_detail());
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &(double){rc}, 1), "%s: the refusal differs across ranks", spec);
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
}

static void check_refusals(void)
{
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 7, 4, 0.0, &A));
    refused(A, "gcrodr:restart=8", "8", "restart");
    refused(A, "gcrodr:restart=8", "12", "restart");
    refused(A, "gcrodr:restart=1", "0", "restart");
    refused(A, "gcrodr:orth=cgs", "0", "orth");
    refused(A, "gcrodr:update=-1", "0", "update");
    refused(A, "gcrodr:settle=2", "0", "settle");
    MT_RC(OVK_OK, ovk_matrix_destroy(A));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    run every_cycle = check_sequence();
    check_repeat();
    check_cycle_end_sums();
    check_not_carried();
    check_frozen(&every_cycle);
    check_exact();
    check_nan();
    check_refusals();
    int status = mt_finish("test_gcrodr");
    MPI_Finalize();
    return status;
}
