/* Recycling across a sequence of solves (option recycle, rpipecg): on a
 * small bubbly-flow sequence (a 5-point diffusion on a G x G grid whose
 * high-conductivity inclusions move a little from one system to the next,
 * new values on one pattern, rows split unevenly, a rank without rows at 3
 * and 4 ranks):
 *   - every system converges, the true residual within the tolerance, the
 *     iterations the same on every rank, and x within 1e-6 of a dense solve
 *     (systems 2 and K);
 *   - systems 2..K take fewer iterations summed than without recycling
 *     (at most 0.6 of them) and none more than a fresh solve's plus k;
 *   - reductions (PMPI, the blocking backend): one per iteration and per
 *     replacement and the same constant per solve (the initial check, the
 *     first refresh, the confirmation, the numeric setup of new values),
 *     with a space 1 more (the start's projection) and 1 for the update
 *     of a solve that collected (the first; once the space is full only
 *     one after a slower solve: the second keeps it); on the native
 *     backend every product of a step runs with its reduction posted and
 *     not completed;
 *   - rcg (deflated PCG, not pipelined) on the same sequence: the same
 *     answers, systems 2..K at most 0.6 of the iterations without a space;
 *   - a matrix that changes completely (other inclusions, another
 *     contrast) is still solved in at most a fresh solve's iterations plus
 *     k, and the view says the space was made again for the new values;
 *   - ovk_solver_recycle_reset: the next solve is a fresh one;
 *   - a NaN from the operator in one solve fails it on every rank and
 *     does not enter the space: the next solve is recycled as before;
 *   - bad input, refused on every rank: recycle on a solver that keeps no
 *     space (OVK_EOPTION naming rpipecg), more vectors than rows, a value
 *     outside 0..32. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count_reductions.h"
#include "mpitest.h"
#include "problem.h"

enum { G = 24, N = G * G, STEPS = 5, K = 6 };
static const double PI = 3.14159265358979323846;

/* k on cell (i, j) at step t: 1, or `contrast` inside 3 moving circles
 * (the interface smeared over 1.5 cells); `other` moves them elsewhere */
static double coef(int i, int j, int t, double contrast, int other)
{
    static const double cx[3] = {0.3, 0.7, 0.45}, cy[3] = {0.3, 0.4, 0.72};
    double h = 1.0 / G, x = (i + 0.5) * h, y = (j + 0.5) * h, in = 0.0;
    for (int c = 0; c < 3; c++) {
        double px = other ? 1.0 - cy[c] : cx[c] + 0.01 * t, py = other ? cx[c] : cy[c] - 0.005 * t;
        double phi = 0.1 - sqrt((x - px) * (x - px) + (y - py) * (y - py)), w = 1.5 * h;
        double v = phi > w ? 1.0 : phi < -w ? 0.0 : 0.5 + phi / (2 * w) + sin(PI * phi / w) / (2 * PI);
        in = fmax(in, v);
    }
    return exp(log(contrast) * in);
}

/* entry (r, c) of the cell-centred 5-point matrix, Dirichlet outside */
static double entry(int r, int c, int t, double contrast, int other)
{
    int i = r / G, j = r % G;
    double k0 = coef(i, j, t, contrast, other), diag = 0.0;
    static const int di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
    for (int d = 0; d < 4; d++) {
        int a = i + di[d], b = j + dj[d];
        if (a < 0 || a >= G || b < 0 || b >= G) {
            diag += 2.0 * k0;
            continue;
        }
        double k1 = coef(a, b, t, contrast, other), face = 2.0 * k0 * k1 / (k0 + k1);
        diag += face;
        if (c == a * G + b) return -face;
    }
    return c == r ? diag : 0.0;
}

/* this rank's rows of system t: the 5-point pattern (the same for every t) */
static void rows_of(tp_rows *rw, int t, double contrast, int other)
{
    rw->ptr[0] = 0;
    for (int l = 0, at = 0; l < rw->count; l++) {
        int r = (int)rw->start + l, i = r / G, j = r % G;
        int cols[5] = {r - G, r - 1, r, r + 1, r + G};
        int ok[5] = {i > 0, j > 0, 1, j < G - 1, i < G - 1};
        for (int e = 0; e < 5; e++) {
            if (!ok[e]) continue;
            rw->col[at] = cols[e];
            rw->val[at++] = entry(r, cols[e], t, contrast, other);
        }
        rw->ptr[l + 1] = at;
    }
}

/* ||x - A^-1 b||_inf / ||A^-1 b||_inf against a dense solve of system t */
static double dense_error(const ovk_vector *x, const double *bg, int t, double contrast, int other, int64_t start)
{
    double *a = malloc(sizeof(double) * N * N);
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) a[r * N + c] = abs(r - c) == 1 || abs(r - c) == G || r == c ? entry(r, c, t, contrast, other) : 0.0;
    double e = mt_dense_error(N, a, bg, x, start);
    free(a);
    return e;
}

typedef struct run {
    int iterations[STEPS], replacements[STEPS], updates[STEPS]; /* updates: the view's count after each solve */
    long allreduce[STEPS];
    double error[STEPS];
    char view[MT_VIEW_LEN];
} run;

/* the sequence with solver (rpipecg, rcg) and recycle = k on the backend, x0 = 0 each time */
static run sequence_of(const char *solver, int k, const char *backend, int changed_last)
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
    for (int r = 0; r < N; r++) bg[r] = tp_value((uint64_t)r + 11);
    for (int t = 0; t < STEPS; t++) {
        int other = changed_last && t == STEPS - 1;
        double contrast = other ? 1e-2 : 1e3;
        rows_of(&rw, t, contrast, other);
        if (t == 0) {
            MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, rw.start, rw.count, rw.ptr, rw.col, rw.val, OVK_DUP_REJECT, &A));
            MT_RC(OVK_OK, ovk_vector_create(A, &b));
            MT_RC(OVK_OK, ovk_vector_create(A, &x));
            for (int l = 0; l < rw.count; l++) ovk_vector_data(b)[l] = bg[rw.start + l];
            MT_RC(OVK_OK, ovk_solver_create(A, &s));
            MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solver));
            MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", backend));
            snprintf(buf, sizeof buf, "%d", k);
            MT_RC(OVK_OK, ovk_solver_set_option(s, "recycle", buf));
            MT_RC(OVK_OK, ovk_solver_setup(s));
        } else {
            MT_RC(OVK_OK, ovk_matrix_update_values(A, rw.ptr, rw.col, rw.val, OVK_DUP_REJECT));
        }
        ovk_vector_set(x, 0.0);
        mt_counted o = {0};
        mt_counted_solve(s, A, b, x, &o);
        MT_RC(OVK_OK, o.rc);
        MT_CHECK(o.reason == OVK_REASON_CONVERGED, "recycle=%d system %d: %s", k, t, ovk_reason_name(o.reason));
        MT_CHECK(o.true_rel < 1e-8, "recycle=%d system %d: true residual %.3g", k, t, o.true_rel);
        int it = o.iterations;
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &(double){it}, 1), "recycle=%d: iterations differ across ranks", k);
        out.iterations[t] = it;
        out.allreduce[t] = o.allreduce;
        if (t == 1 || t == STEPS - 1) /* the dense solve is the test's longest part (sanitizers) */
            out.error[t] = dense_error(x, bg, t, contrast, other, rw.start);
        memcpy(out.view, o.view, sizeof out.view);
        const char *at = strstr(o.view, "vectors after ");
        out.updates[t] = at ? atoi(at + strlen("vectors after ")) : 0;
        out.replacements[t] = o.replacements;
    }
    ovk_vector_destroy(x);
    ovk_vector_destroy(b);
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
    MT_RC(OVK_OK, ovk_matrix_destroy(A));
    tp_rows_free(&rw);
    return out;
}

static run sequence(int k, const char *backend, int changed_last) { return sequence_of("rpipecg", k, backend, changed_last); }

/* rcg (deflated PCG, not pipelined): the same answers, systems 2..K at most
   0.6 of the iterations without a space and none more than those plus k */
static void check_rcg(void)
{
    run fresh = sequence_of("rcg", 0, "blocking", 0), rec = sequence_of("rcg", K, "blocking", 0);
    int sum_fresh = 0, sum_rec = 0;
    for (int t = 0; t < STEPS; t++) {
        MT_CHECK(rec.error[t] < 1e-6, "rcg system %d: error %.3g", t, rec.error[t]);
        MT_CHECK(rec.iterations[t] <= fresh.iterations[t] + K, "rcg system %d: %d iterations recycled, %d fresh", t,
                 rec.iterations[t], fresh.iterations[t]);
        if (t > 0) sum_fresh += fresh.iterations[t], sum_rec += rec.iterations[t];
    }
    MT_CHECK(sum_rec <= 0.6 * sum_fresh, "rcg systems 2..%d: %d iterations recycled, %d fresh", STEPS, sum_rec, sum_fresh);
    MT_CHECK(strstr(rec.view, "recycle: 6 of 6 vectors") != NULL, "rcg, the view: %s", rec.view);
}

static void check_sequence(void)
{
    run fresh = sequence(0, "blocking", 0), rec = sequence(K, "blocking", 0);
    int sum_fresh = 0, sum_rec = 0;
    for (int t = 0; t < STEPS; t++) {
        MT_CHECK(fresh.error[t] < 1e-6 && rec.error[t] < 1e-6, "system %d: error %.3g (fresh), %.3g (recycled)", t,
                 fresh.error[t], rec.error[t]);
        MT_CHECK(rec.iterations[t] <= fresh.iterations[t] + K, "system %d: %d iterations recycled, %d fresh", t,
                 rec.iterations[t], fresh.iterations[t]);
        /* one reduction per iteration, plus 3 per solve (the initial check, the
           first refresh, the true residual's confirmation) and one per
           replacement; with a space, the projection, and the update when
           the solve collected (the first, which has no space to project
           yet, and then those after a slower one) */
        int updated = rec.updates[t] - (t > 0 ? rec.updates[t - 1] : 0);
        MT_CHECK(updated == 1 || (t > 0 && updated == 0), "system %d: %d updates of the space", t, updated);
        long extra = (t > 0) + updated;
        long per_fresh = fresh.allreduce[t] - fresh.iterations[t] - fresh.replacements[t];
        long per_rec = rec.allreduce[t] - rec.iterations[t] - rec.replacements[t];
        MT_CHECK(t < 2 || per_fresh == fresh.allreduce[1] - fresh.iterations[1] - fresh.replacements[1],
                 "system %d: %ld reductions besides one per iteration and replacement, %ld for system 2", t, per_fresh,
                 fresh.allreduce[1] - fresh.iterations[1] - fresh.replacements[1]);
        MT_CHECK(per_rec == per_fresh + extra, "system %d: %ld reductions recycled besides one per iteration and "
                 "replacement, %ld fresh", t, per_rec, per_fresh);
        if (t > 0) {
            sum_fresh += fresh.iterations[t];
            sum_rec += rec.iterations[t];
        }
    }
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) printf("systems 2..%d: %d iterations recycled (k = %d), %d without\n", STEPS, sum_rec, K, sum_fresh);
    MT_CHECK(sum_rec <= 0.6 * sum_fresh, "systems 2..%d: %d iterations recycled, %d fresh", STEPS, sum_rec, sum_fresh);
    MT_CHECK(strstr(rec.view, "recycle: 6 of 6 vectors") != NULL, "the view: %s", rec.view);
    MT_CHECK(rec.updates[0] == 1 && rec.updates[1] == 1, "the space full after system 1: updates %d, %d (1, 1)",
             rec.updates[0], rec.updates[1]);
}

static void check_changed(void)
{
    run fresh = sequence(0, "blocking", 1), rec = sequence(K, "blocking", 1);
    int t = STEPS - 1;
    MT_CHECK(rec.error[t] < 1e-6, "changed matrix: error %.3g", rec.error[t]);
    MT_CHECK(rec.iterations[t] <= fresh.iterations[t] + K, "changed matrix: %d iterations recycled, %d fresh",
             rec.iterations[t], fresh.iterations[t]);
    MT_CHECK(strstr(rec.view, "new values") != NULL || strstr(rec.view, "dropped") != NULL,
             "changed matrix: the view does not say so: %s", rec.view);
}

/* products counted by an operator around A, and those run while a
 * reduction is in flight */
typedef struct op_ctx {
    const ovk_matrix *A;
    ovk_vector *xv, *yv;
    long products, in_flight;
} op_ctx;

static int apply(ovk_solver *s, const double *in, double *out, void *ctx)
{
    (void)s;
    op_ctx *o = ctx;
    o->products++;
    o->in_flight += mt_reduction_in_flight();
    int n = ovk_vector_nlocal(o->xv);
    memcpy(ovk_vector_data(o->xv), in, sizeof(double) * (size_t)n);
    int rc = ovk_matvec(o->A, o->xv, o->yv);
    memcpy(out, ovk_vector_data_const(o->yv), sizeof(double) * (size_t)n);
    return rc;
}

/* A solver on the G x G problem of step 0 (contrast `contrast`) with
 * recycle = 4, its b and x: through an operator around A (fn, counting its
 * products; precond none) or, fn NULL, on A itself (jacobi) */
typedef struct fixture {
    tp_rows rw;
    ovk_matrix *A;
    ovk_solver *s;
    op_ctx o;
    double *b, *x;
    ovk_vector *bv, *xv;
} fixture;

static void fixture_make(fixture *f, ovk_apply_fn fn, const char *backend, double contrast)
{
    memset(f, 0, sizeof *f);
    tp_rows_alloc(&f->rw, N, 5);
    rows_of(&f->rw, 0, contrast, 0);
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, f->rw.start, f->rw.count, f->rw.ptr, f->rw.col, f->rw.val,
                                        OVK_DUP_REJECT, &f->A));
    f->o.A = f->A;
    ovk_vector_create(f->A, &f->o.xv);
    ovk_vector_create(f->A, &f->o.yv);
    if (fn) {
        MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, f->rw.count, fn, &f->o, &f->s));
        MT_RC(OVK_OK, ovk_solver_set_option(f->s, "precond", "none"));
    } else {
        MT_RC(OVK_OK, ovk_solver_create(f->A, &f->s));
    }
    MT_RC(OVK_OK, ovk_solver_set_option(f->s, "solver", "rpipecg"));
    if (backend) MT_RC(OVK_OK, ovk_solver_set_option(f->s, "backend", backend));
    MT_RC(OVK_OK, ovk_solver_set_option(f->s, "recycle", "4"));
    f->b = malloc(sizeof(double) * (size_t)(f->rw.count + 1));
    f->x = calloc((size_t)f->rw.count + 1, sizeof(double));
    for (int l = 0; l < f->rw.count; l++) f->b[l] = tp_value((uint64_t)(f->rw.start + l));
    MT_RC(OVK_OK, ovk_solver_vector_create(f->s, f->b, &f->bv));
    MT_RC(OVK_OK, ovk_solver_vector_create(f->s, f->x, &f->xv));
}

/* a solve from x = 0, the operator's counts reset (in_flight: its start) */
static int fixture_solve(fixture *f, long in_flight, ovk_pcg_result *res)
{
    memset(f->x, 0, sizeof(double) * (size_t)f->rw.count);
    f->o.products = 0;
    f->o.in_flight = in_flight;
    return ovk_solver_solve(f->s, f->bv, f->xv, res);
}

static void fixture_free(fixture *f)
{
    ovk_vector_destroy(f->bv);
    ovk_vector_destroy(f->xv);
    free(f->b), free(f->x);
    MT_RC(OVK_OK, ovk_solver_destroy(&f->s));
    ovk_vector_destroy(f->o.xv);
    ovk_vector_destroy(f->o.yv);
    MT_RC(OVK_OK, ovk_matrix_destroy(f->A));
    tp_rows_free(&f->rw);
}

/* on the native backend every step's product (n = A m) runs behind its
 * reduction (a contrast of 10: without a preconditioner) */
static void check_in_flight(void)
{
    fixture f;
    fixture_make(&f, apply, "native", 10.0);
    for (int solve = 0; solve < 2; solve++) {
        ovk_pcg_result res;
        int rc = fixture_solve(&f, 0, &res);
        MT_CHECK(rc == OVK_OK, "in flight, solve %d: %s: %s", solve, ovk_status_name(rc), ovk_error_detail());
        MT_CHECK(res.reason == OVK_REASON_CONVERGED, "in flight, solve %d: %s", solve, ovk_reason_name(res.reason));
        /* one product per step behind the reduction, the last step's skipped */
        MT_CHECK(f.o.in_flight >= res.iterations - 1, "solve %d: %ld of %ld products in flight, %d iterations", solve,
                 f.o.in_flight, f.o.products, res.iterations);
    }
    fixture_free(&f);
}

/* NaN from the operator in one solve (on the first rank that has rows):
 * that solve fails on every rank, the space is not updated from it, and
 * the next clean solve is recycled as before */
static int poison_apply(ovk_solver *s, const double *in, double *out, void *ctx)
{
    op_ctx *o = ctx;
    int rc = apply(s, in, out, ctx);
    if (o->in_flight < 0 && ovk_vector_nlocal(o->xv) > 0 && o->products > 5) out[0] = NAN;
    return rc;
}

static void check_nan(void)
{
    fixture f;
    int its[4] = {0}, rcs[4] = {0};
    fixture_make(&f, poison_apply, NULL, 10.0);
    for (int solve = 0; solve < 4; solve++) {
        ovk_pcg_result res;
        rcs[solve] = fixture_solve(&f, solve == 2 ? -1000000 : 0, &res); /* < 0: poisoned */
        its[solve] = res.iterations;
    }
    MT_RC(OVK_OK, rcs[0]);
    MT_RC(OVK_OK, rcs[1]);
    MT_CHECK(rcs[2] != OVK_OK, "the poisoned solve succeeded");
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &(double){rcs[2]}, 1), "the poisoned solve's status differs");
    MT_RC(OVK_OK, rcs[3]);
    MT_CHECK(its[3] <= its[1] + 2, "after the NaN: %d iterations, %d before it", its[3], its[1]);
    fixture_free(&f);
}

/* reset: the solve after it takes the first solve's iterations again
 * (on A itself, jacobi, a contrast of 1e3) */
static void check_reset(void)
{
    fixture f;
    ovk_pcg_result r[3];
    fixture_make(&f, NULL, NULL, 1e3);
    for (int solve = 0; solve < 3; solve++) {
        if (solve == 2) MT_RC(OVK_OK, ovk_solver_recycle_reset(f.s));
        MT_RC(OVK_OK, fixture_solve(&f, 0, &r[solve]));
    }
    MT_CHECK(r[1].iterations < r[0].iterations, "recycled %d, fresh %d", r[1].iterations, r[0].iterations);
    MT_CHECK(r[2].iterations == r[0].iterations, "after the reset %d, fresh %d", r[2].iterations, r[0].iterations);
    fixture_free(&f);
}

static void check_refusals(void)
{
    ovk_matrix *A = NULL, *T = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 7, 4, 0.0, &A));
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "pipecg"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "recycle", "3"));
    int rc = ovk_solver_setup(s);
    MT_RC(OVK_EOPTION, rc);
    MT_CHECK(strstr(ovk_error_detail(), "rpipecg") != NULL, "the refusal names no solver that recycles: %s",
             ovk_error_detail());
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &(double){rc}, 1), "the refusal differs across ranks");
    MT_RC(OVK_EOPTION, ovk_solver_set_option(s, "recycle", "33"));
    MT_RC(OVK_EOPTION, ovk_solver_set_option(s, "recycle", "-1"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "rpipecg"));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
    /* more vectors than rows: a 2 x 2 x 2 Laplacian, 8 rows */
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 7, 2, 0.0, &T));
    MT_RC(OVK_OK, ovk_solver_create(T, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "rpipecg"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "recycle", "9"));
    rc = ovk_solver_setup(s);
    MT_RC(OVK_EOPTION, rc);
    MT_CHECK(strstr(ovk_error_detail(), "rows") != NULL, "the refusal: %s", ovk_error_detail());
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
    MT_RC(OVK_OK, ovk_matrix_destroy(T));
    MT_RC(OVK_OK, ovk_matrix_destroy(A));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_sequence();
    check_rcg();
    check_changed();
    check_in_flight();
    check_reset();
    check_nan();
    check_refusals();
    int status = mt_finish("test_recycle");
    MPI_Finalize();
    return status;
}
