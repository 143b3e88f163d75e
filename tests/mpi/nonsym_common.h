/* What the MPI tests of the nonsymmetric solvers share (test_nonsymmetric.c,
 * test_eisenstat.c): the random rows, one solve of A x = A x* with its true
 * residual, the verdicts, the convection-diffusion matrix and the checks of
 * bad input.  Include once, after mpitest.h; the test sets g_rank, g_size. */
#ifndef OVK_TEST_NONSYM_COMMON_H
#define OVK_TEST_NONSYM_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mpitest.h"

#ifndef OVK_NONSYM_DIR
#define OVK_NONSYM_DIR ""
#endif

enum { MAX_IT = 4000, MAX_HARD = 200 };
static const double RTOL = 1e-8;
static int g_rank, g_size;

/* a pseudo-random value in [-1, 1) per global row */
static inline double hash_unit(uint64_t g)
{
    g += 0x9E3779B97F4A7C15ull;
    g = (g ^ (g >> 30)) * 0xBF58476D1CE4E5B9ull;
    g = (g ^ (g >> 27)) * 0x94D049BB133111EBull;
    g ^= g >> 31;
    return 2.0 * (double)(g >> 11) * (1.0 / 9007199254740992.0) - 1.0;
}

typedef struct outcome {
    int rc, iterations;
    ovk_reason reason;
    double rel, true_rel; /* reported, and ||b - A x|| / ||b|| */
    long reductions;      /* the solve's count of ns_run.count (0 without) */
} outcome;

/* one solve: solver, precond and backend by spec, stopping at rtol or
 * maxit; monitor: count its calls and keep the history (one of each per
 * iteration and x0); x0_hash: a random x0 (else 0); monitor_true: the
 * option of that name; xout: a copy of x (nlocal doubles); count: a
 * counter (count_reductions.h) read around the solve */
typedef struct ns_run {
    const char *solver, *pc, *backend;
    double rtol;
    int maxit, monitor, x0_hash, monitor_true;
    double *xout;
    const long *count;
} ns_run;

static inline int count_calls(ovk_solver *s, int it, double rnorm, double rel, void *ctx)
{
    (void)s, (void)it, (void)rnorm, (void)rel;
    (*(int *)ctx)++;
    return 0;
}

/* ||b - A x|| / ||b|| (r: a work vector) */
static inline double ns_true_rel(ovk_matrix *A, ovk_vector *b, ovk_vector *x, ovk_vector *r)
{
    double rr = 0.0, bb = 0.0;
    ovk_matvec(A, x, r);
    ovk_vector_scale(-1.0, r);
    ovk_vector_axpy(1.0, b, r);
    ovk_vector_dot(r, r, &rr);
    ovk_vector_dot(b, b, &bb);
    return sqrt(rr / bb);
}

/* solve A x = A x*, x* random */
static inline outcome ns_solve(ovk_matrix *A, const ns_run *run)
{
    outcome o = {0};
    ovk_vector *xs = NULL, *b = NULL, *x = NULL, *r = NULL;
    ovk_solver *s = NULL;
    ovk_pcg_result res = {0};
    int calls = 0;
    ovk_vector_create(A, &xs);
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    ovk_vector_create(A, &r);
    int n = ovk_vector_nlocal(xs);
    double *d = ovk_vector_data(xs), *xd = ovk_vector_data(x);
    for (int i = 0; i < n; i++) {
        uint64_t g = (uint64_t)(ovk_matrix_row_start(A) + i);
        d[i] = hash_unit(g);
        xd[i] = run->x0_hash ? hash_unit(g + 99u) : 0.0;
    }
    ovk_matvec(A, xs, b);
    ovk_solver_create(A, &s);
    ovk_solver_set_option(s, "solver", run->solver);
    ovk_solver_set_option(s, "precond", run->pc);
    ovk_solver_set_option(s, "backend", run->backend);
    if (run->monitor_true) ovk_solver_set_option(s, "monitor_true", "1");
    ovk_solver_set_tolerances(s, run->rtol, 0.0, run->maxit);
    static double history[MAX_IT + 1];
    if (run->monitor) ovk_solver_set_monitor(s, count_calls, &calls);
    if (run->monitor) ovk_solver_set_history(s, history, MAX_IT + 1);
    o.rc = ovk_solver_setup(s);
    long c0 = run->count ? *run->count : 0;
    if (!o.rc) o.rc = ovk_solver_solve(s, b, x, &res);
    o.reductions = run->count ? *run->count - c0 : 0;
    if (!o.rc || o.rc == OVK_EMAXIT || o.rc == OVK_EBREAKDOWN) {
        o.iterations = res.iterations;
        o.reason = res.reason;
        o.rel = res.rel_residual;
        o.true_rel = ns_true_rel(A, b, x, r);
    }
    if (run->monitor) {
        MT_CHECK(calls == o.iterations + 1, "%s %s: monitor called %d times for %d iterations", run->solver, run->pc,
                 calls, o.iterations);
        MT_CHECK(res.history_len == o.iterations + 1 && isfinite(history[o.iterations]),
                 "%s %s: history of %d norms for %d iterations", run->solver, run->pc, res.history_len, o.iterations);
    }
    if (run->xout && n > 0) memcpy(run->xout, xd, sizeof(double) * (size_t)n);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(xs);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_vector_destroy(r);
    return o;
}

/* converged, and the true residual too */
static inline void expect_converged(const char *what, const outcome *o)
{
    MT_CHECK(o->rc == OVK_OK && o->reason == OVK_REASON_CONVERGED, "%s: status %s reason %s (%s)", what,
             ovk_status_name(o->rc), ovk_reason_name(o->reason), o->rc ? ovk_error_detail() : "");
    MT_CHECK(o->true_rel < RTOL, "%s: true residual %.3e", what, o->true_rel);
}

static inline int dir_exists(const char *d)
{
    struct stat st;
    return d[0] && stat(d, &st) == 0 && S_ISDIR(st.st_mode);
}

/* the shared nonsymmetric matrices (OVK_NONSYM_DIR) */
static const char *const shared_names[] = {"cdde1", "orsirr_1", "sherman5", "watt_2", "hor131", "utm1700a"};
enum { NSHARED = 6 };

/* 1 when their directory exists; else rank 0 says the test skips them */
static inline int have_shared(void)
{
    if (dir_exists(OVK_NONSYM_DIR)) return 1;
    if (g_rank == 0) printf("shared nonsymmetric matrices: skipped (no directory '%s')\n", OVK_NONSYM_DIR);
    return 0;
}

/* shared matrix m, or NULL when its read fails (checked) */
static inline ovk_matrix *read_shared(int m)
{
    char path[1024];
    ovk_matrix *A = NULL;
    snprintf(path, sizeof path, "%s/%s.mtx", OVK_NONSYM_DIR, shared_names[m]);
    int rc = ovk_mm_read(MPI_COMM_WORLD, path, &A);
    MT_RC(OVK_OK, rc);
    return rc ? NULL : A;
}

/* 3-D convection-diffusion, 10 x 10 x 8 cells a rank, velocity (1, 0.5, -0.25) */
static inline ovk_matrix *convdiff(double peclet, ovk_convdiff_scheme scheme)
{
    int P[3] = {0, 0, 0};
    double v[3] = {1.0, 0.5, -0.25};
    ovk_matrix *A = NULL;
    MPI_Dims_create(g_size, 3, P);
    MT_RC(OVK_OK, ovk_convdiff_create(MPI_COMM_WORLD, 10, 10, 8, P[0], P[1], P[2], v, peclet, scheme, &A));
    return A;
}

/* rc the same on every rank, and the expected one */
static inline void expect_everywhere(const char *what, int rc, int expected)
{
    int lo = rc, hi = rc;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MT_CHECK(lo == expected && hi == expected, "%s: status %s..%s, expected %s", what, ovk_status_name(lo),
             ovk_status_name(hi), ovk_status_name(expected));
    if (g_rank == 0) printf("bad input %-36s %s: %s\n", what, ovk_status_name(rc), rc ? ovk_error_detail() : "");
}

/* the status of a setup of solver + pc on A (an option refused: its own) */
static inline int setup_with(ovk_matrix *A, const char *solver, const char *pc)
{
    ovk_solver *s = NULL;
    ovk_solver_create(A, &s);
    int rc = ovk_solver_set_option(s, "solver", solver);
    if (!rc) rc = ovk_solver_set_option(s, "precond", pc);
    if (!rc) rc = ovk_solver_setup(s);
    ovk_solver_destroy(&s);
    return rc;
}

#endif
