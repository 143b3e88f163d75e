/* Hardening, fifth round (the solvers' side):
 *   - every convergence claim confirmed: alg1, alg2 and overlap on a
 *     matrix (eigenvalues near 1 and near 1e10, eigenvectors not the
 *     axes) where the recursive
 *     residual falls below the tolerance while the true one stays above:
 *     they stop only when ||b - A x|| meets it, and the reported residual
 *     is then that one;
 *   - a user operator or preconditioner that fails or gives a NaN on one
 *     rank at each of its calls in turn (every call position of the first
 *     iterations, every step of an IDR(s) cycle): bicgstab, pipebicgstab,
 *     idrs, pipeidrs end OVK_ECALLBACK / OVK_ENONFINITE on every rank
 *     with x finite everywhere (the last finite iterate);
 *   - pipeidrs on watt_2 with ilu0 without replacements, idrs and pipeidrs
 *     on a nilpotent Jordan block: x growing past 1e154 is named (<x,x>),
 *     x finite (they reported the iteration limit with ||r||/||b|| = -nan,
 *     x NaN);
 *   - idrs and pipeidrs on watt_2 with jacobi, breaking down one step after
 *     each restart: OVK_EBREAKDOWN, not 999 restarts to the iteration limit;
 *   - GMRES on watt_2 with ilu0 and b = 1 (||x|| ~ 1e10 ||b||): the message
 *     names the update lost to rounding, no SPD or null-space hint; a
 *     preconditioner that changes between applications is told to use
 *     fgmres; after ENONFINITE the reported residual is that of the x
 *     returned. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

enum { GRID = 8, HH_N = 40 };

static int rank, nranks;

/* the last rank with rows (the last rank has none at 3 ranks or more) */
static int holders(void) { return nranks >= 3 ? nranks - 1 : nranks; }

/* rows [start, start + count) of n: tp_split's (the last rank without rows
 * at 3 ranks or more) */
static void split(int64_t n, int64_t *start, int *count) { tp_split(n, rank, nranks, start, count); }

/* 1 when every entry of v is finite on every rank */
static int all_finite(const ovk_vector *v, int n)
{
    const double *d = ovk_vector_data((ovk_vector *)v);
    int ok = 1;
    for (int i = 0; i < n; i++) ok &= isfinite(d[i]) != 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return ok;
}

/* ---- every convergence claim confirmed ------------------------------------- */

/* entry (i, j) of H D H, H = I - 2 v v^T / <v,v>, D = diag(d): SPD, its
 * eigenvectors mixing every row (dense) */
static double hh_entry(int i, int j, const double *d, const double *v, double vv, double vdv)
{
    return (i == j ? d[i] : 0.0) - 2.0 * (d[i] * v[i] * v[j] + v[i] * v[j] * d[j]) / vv +
           4.0 * v[i] * v[j] * vdv / (vv * vv);
}

static ovk_matrix *make_hh(void)
{
    double d[HH_N], v[HH_N], vv = 0.0, vdv = 0.0;
    for (int i = 0; i < HH_N; i++) {
        d[i] = (i % 2 ? 1e10 : 1.0) * (1.0 + 0.5 * i / HH_N);
        v[i] = sin(1.0 + 0.7 * i) + 0.1;
        vv += v[i] * v[i];
        vdv += d[i] * v[i] * v[i];
    }
    int64_t start;
    int count;
    split(HH_N, &start, &count);
    int *ptr = malloc(sizeof(int) * (size_t)(count + 1));
    ovk_gidx *cols = malloc(sizeof(ovk_gidx) * (size_t)(count * HH_N + 1));
    double *vals = malloc(sizeof(double) * (size_t)(count * HH_N + 1));
    ptr[0] = 0;
    for (int i = 0; i < count; i++) {
        for (int j = 0; j < HH_N; j++) {
            cols[i * HH_N + j] = j;
            /* the symmetric value (i, j) and (j, i) alike: the mean of both roundings */
            int gi = (int)start + i;
            vals[i * HH_N + j] = 0.5 * (hh_entry(gi, j, d, v, vv, vdv) + hh_entry(j, gi, d, v, vv, vdv));
        }
        ptr[i + 1] = (i + 1) * HH_N;
    }
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, &A));
    free(ptr);
    free(cols);
    free(vals);
    return A;
}

/* alg1 (both of its loops), alg2 and overlap on H D H, D's entries
 * alternately near 1 and near 1e10, b random: a convergence they report
 * holds for b - A x and is the residual reported; before the confirmation
 * they stopped at 60-270 iterations on ||r||/||b|| < 1e-8 with the true
 * one at 5e-8 to 2.5e-6 */
static void check_confirmed(void)
{
    static const char *const solvers[] = {"alg1", "alg1", "alg2", "overlap"};
    static const char *const pcs[] = {"none", "jacobi", "jacobi", "none"};
    static const char *const maxit[] = {"400", "400", "400", "400"};
    ovk_matrix *A = make_hh();
    ovk_vector *b = NULL, *x = NULL;
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    mt_random_b(A, b);
    for (int i = 0; i < 4; i++) {
        ovk_solver *s = NULL;
        ovk_pcg_result res;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solvers[i]));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", pcs[i]));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "max_it", maxit[i]));
        memset(ovk_vector_data(x), 0, sizeof(double) * (size_t)ovk_matrix_nlocal(A));
        int rc = ovk_solver_solve(s, b, x, &res);
        double rel = mt_rel_residual(A, b, x);
        /* or stagnated: the true residual stuck above the tolerance over five checks */
        MT_CHECK(rc == OVK_OK || rc == OVK_EMAXIT || rc == OVK_ESTAGNATED, "%s/%s: %s", solvers[i], pcs[i],
                 ovk_status_name(rc));
        if (rc == OVK_OK) {
            MT_CHECK(rel <= 1e-8 * (1 + 1e-6), "%s/%s: converged at %d with ||b - A x||/||b|| = %.3g > 1e-8",
                     solvers[i], pcs[i], res.iterations, rel);
            MT_CHECK(fabs(res.rel_residual - rel) <= 1e-3 * rel, "%s/%s: reported %.6g, true %.6g", solvers[i],
                     pcs[i], res.rel_residual, rel);
        }
        if (rc == OVK_ESTAGNATED) /* stopped where it checked: the true residual reached, above the tolerance */
            MT_CHECK(rel > 1e-8 && fabs(res.rel_residual - rel) <= 1e-3 * rel, "%s/%s: stagnated, reported %.6g, true %.6g",
                     solvers[i], pcs[i], res.rel_residual, rel);
        ovk_solver_destroy(&s);
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* ---- a failure at every call position --------------------------------------- */

/* the 7-point Laplacian on GRID^3 plus an upwind convection along x (cell
 * Peclet number 0.5), the last rank without rows at 3 ranks or more */
static ovk_matrix *make_convection(void)
{
    int count, *ptr;
    int64_t start;
    ovk_gidx *cols;
    double *vals;
    ovk_matrix *A = NULL;
    split((int64_t)GRID * GRID * GRID, &start, &count);
    tp_laplace_rows(7, GRID, 0.0, start, count, &ptr, &cols, &vals);
    for (int i = 0; i < count; i++)
        for (int k = ptr[i]; k < ptr[i + 1]; k++) {
            if (cols[k] == start + i) vals[k] += 1.0;
            if (cols[k] == start + i - 1 && (start + i) % GRID != 0) vals[k] -= 1.0;
        }
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, &A));
    free(ptr);
    free(cols);
    free(vals);
    return A;
}

enum { FAIL_OP, NAN_OP, FAIL_PC, NAN_PC, KINDS };
static const char *const kind_name[KINDS] = {"operator fails", "operator NaN", "preconditioner fails",
                                             "preconditioner NaN"};

typedef struct faulty {
    ovk_matrix *A;
    ovk_vector *in, *out;
    int op_calls, pc_calls, at, kind; /* the kind's callback misbehaves at its call `at` (0: never) */
    int persist;                      /* and at every later call */
} faulty;

/* on the last rank with rows, at call `at` (and later ones: persist) of
 * the callback of `kind`'s pair: 1 (fails) or 0 with out[0] = NaN */
static int misbehave(const faulty *f, int calls, int kind_fail, double *out, int n)
{
    int now = f->at > 0 && (calls == f->at || (f->persist && calls > f->at));
    if (rank != holders() - 1 || !now || (f->kind != kind_fail && f->kind != kind_fail + 1)) return 0;
    if (f->kind == kind_fail) return 1;
    if (n > 0) out[0] = NAN;
    return 0;
}

static int apply_op(ovk_solver *s, const double *in, double *out, void *ctx)
{
    (void)s;
    faulty *f = ctx;
    int n = ovk_matrix_nlocal(f->A);
    if (n > 0) memcpy(ovk_vector_data(f->in), in, sizeof(double) * (size_t)n);
    ovk_matvec(f->A, f->in, f->out); /* collective: every rank calls it at every call */
    if (n > 0) memcpy(out, ovk_vector_data(f->out), sizeof(double) * (size_t)n);
    return misbehave(f, ++f->op_calls, FAIL_OP, out, n);
}

/* z = r / 7 (the Laplacian's diagonal, about) */
static int apply_pc(ovk_solver *s, const double *r, double *z, void *ctx)
{
    (void)s;
    faulty *f = ctx;
    int n = ovk_matrix_nlocal(f->A);
    for (int i = 0; i < n; i++) z[i] = r[i] / 7.0;
    return misbehave(f, ++f->pc_calls, FAIL_PC, z, n);
}

/* solver on the faulty operator and preconditioner, max_iter iterations:
 * a clean solve counts the calls, then each call of each kind misbehaves
 * in turn */
static void sweep(const char *solver, int max_iter)
{
    ovk_matrix *A = make_convection();
    int n = ovk_matrix_nlocal(A), positions = 0;
    faulty f = {A, NULL, NULL, 0, 0, 0, 0, 0};
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    char maxit[32];
    snprintf(maxit, sizeof maxit, "%d", max_iter);
    MT_RC(OVK_OK, ovk_vector_create(A, &f.in));
    MT_RC(OVK_OK, ovk_vector_create(A, &f.out));
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    mt_random_b(A, b);
    MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, n, apply_op, &f, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solver));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "max_it", maxit));
    MT_RC(OVK_OK, ovk_solver_set_precond_fn(s, apply_pc, &f));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    f.op_calls = f.pc_calls = 0;
    int rc = ovk_solver_solve(s, b, x, &res);
    MT_CHECK(rc == OVK_EMAXIT && res.iterations == max_iter, "%s: clean solve %s at %d", solver, ovk_status_name(rc),
             res.iterations);
    int calls[2] = {f.op_calls, f.pc_calls};
    for (int kind = 0; kind < KINDS; kind++)
        for (int at = 1; at <= calls[kind / 2]; at++) {
            memset(ovk_vector_data(x), 0, sizeof(double) * (size_t)n);
            f.op_calls = f.pc_calls = 0;
            f.at = at;
            f.kind = kind;
            rc = ovk_solver_solve(s, b, x, &res);
            int want = kind == FAIL_OP || kind == FAIL_PC ? OVK_ECALLBACK : OVK_ENONFINITE;
            /* a NaN no step used (pipeidrs: an image made behind the last step's sums) leaves x and
             * its true residual as they were: the iteration limit, honestly reported */
            double rel = mt_rel_residual(A, b, x);
            int unused = want == OVK_ENONFINITE && rc == OVK_EMAXIT && res.iterations == max_iter &&
                         fabs(res.rel_residual - rel) <= 1e-6 * rel;
            MT_CHECK(rc == want || unused, "%s, %s at call %d: %s (%s)", solver, kind_name[kind], at,
                     ovk_status_name(rc), ovk_error_detail());
            MT_CHECK(all_finite(x, n), "%s, %s at call %d: x not finite after %s at iteration %d", solver,
                     kind_name[kind], at, ovk_status_name(rc), res.iterations);
            positions++;
        }
    MT_CHECK(positions >= 4 * max_iter, "%s: only %d positions", solver, positions);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_vector_destroy(f.in);
    ovk_vector_destroy(f.out);
    ovk_matrix_destroy(A);
}

/* ---- pipeidrs without replacements on watt_2 ---------------------------------- */

/* ilu0, b = 1, replace_every -1: the recursive residual stays near 1 while
 * x grows to overflow; the solve ends OVK_ENONFINITE naming <x,x> with x
 * finite (it ended at the iteration limit with ||r||/||b|| = -nan, x NaN) */
static void check_pipeidrs_drift(void)
{
    ovk_matrix *A = mt_nonsym_matrix("watt_2");
    if (!A) return;
    int n = ovk_matrix_nlocal(A);
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    ovk_vector_set(b, 1.0);
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "pipeidrs"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "ilu0"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "replace_every", "-1"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "max_it", "3000"));
    int rc = ovk_solver_solve(s, b, x, &res);
    MT_CHECK(rc == OVK_ENONFINITE && strstr(ovk_error_detail(), "<x,x>"), "pipeidrs drift: %s (%s) at %d",
             ovk_status_name(rc), ovk_error_detail(), res.iterations);
    MT_CHECK(all_finite(x, n), "pipeidrs drift: x not finite");
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* idrs and pipeidrs on watt_2 with jacobi and the drivers' random b: breakdowns
 * one step after each restart, never a whole cycle between them, end
 * OVK_EBREAKDOWN within a few restarts (they restarted at nearly every step
 * up to the iteration limit) */
/* entry i of the drivers' -rhs random (splitmix64 of the global row, in [-1, 1)) */
static double driver_random(ovk_gidx i)
{
    uint64_t z = (uint64_t)i + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) / 4503599627370496.0 - 1.0;
}

static void check_idr_restart_loop(void)
{
    ovk_matrix *A = mt_nonsym_matrix("watt_2");
    if (!A) return;
    int n = ovk_matrix_nlocal(A);
    ovk_gidx start = ovk_matrix_row_start(A);
    const char *const solvers[] = {"idrs", "pipeidrs"};
    for (int v = 0; v < 2; v++) {
        ovk_solver *s = NULL;
        ovk_vector *b = NULL, *x = NULL;
        ovk_pcg_result res;
        MT_RC(OVK_OK, ovk_vector_create(A, &b));
        MT_RC(OVK_OK, ovk_vector_create(A, &x));
        double *bd = ovk_vector_data(b);
        for (int i = 0; i < n; i++) bd[i] = driver_random(start + i);
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solvers[v]));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "jacobi"));
        int rc = ovk_solver_solve(s, b, x, &res);
        MT_CHECK((rc == OVK_OK || rc == OVK_EBREAKDOWN || rc == OVK_EMAXIT) && res.restarts < 50,
                 "%s on watt_2, jacobi: %s after %d iterations and %d restarts (%s)", solvers[v], ovk_status_name(rc),
                 res.iterations, res.restarts, ovk_error_detail());
        MT_CHECK(rc != OVK_OK || res.rel_residual < 1e-8, "%s on watt_2: converged at %g", solvers[v],
                 res.rel_residual);
        MT_CHECK(all_finite(x, n), "%s on watt_2: x not finite", solvers[v]);
        ovk_solver_destroy(&s);
        ovk_vector_destroy(b);
        ovk_vector_destroy(x);
    }
    ovk_matrix_destroy(A);
}

/* idrs and pipeidrs on the nilpotent Jordan block (50 rows, ones on the
 * superdiagonal), b = 1: OVK_ENONFINITE naming <x,x>, x finite (x was NaN) */
static void check_idr_jordan(void)
{
    enum { N = 50 };
    static const char *const solvers[] = {"idrs", "pipeidrs"};
    int64_t start;
    int count;
    split(N, &start, &count);
    int ptr[N + 1];
    ovk_gidx cols[N];
    double vals[N];
    int k = 0;
    ptr[0] = 0;
    for (int i = 0; i < count; i++) {
        if (start + i + 1 < N) {
            cols[k] = start + i + 1;
            vals[k++] = 1.0;
        }
        ptr[i + 1] = k;
    }
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, &A));
    ovk_vector *b = NULL, *x = NULL;
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    ovk_vector_set(b, 1.0);
    for (int i = 0; i < 2; i++) {
        ovk_solver *s = NULL;
        ovk_pcg_result res;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solvers[i]));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "none"));
        ovk_vector_set(x, 0.0);
        int rc = ovk_solver_solve(s, b, x, &res);
        MT_CHECK(rc == OVK_ENONFINITE || rc == OVK_EMAXIT || rc == OVK_EBREAKDOWN, "%s, Jordan block: %s (%s)",
                 solvers[i], ovk_status_name(rc), ovk_error_detail());
        MT_CHECK(all_finite(x, count), "%s, Jordan block: x not finite after %s", solvers[i], ovk_status_name(rc));
        ovk_solver_destroy(&s);
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* ---- GMRES: what its end says ------------------------------------------------ */

/* watt_2, ilu0, b = 1 (||x|| ~ 1e10 ||b||): every GMRES variant that gives
 * up names the update lost to rounding and its size, without the SPD or
 * null-space hints of a CG breakdown, and not before a restart from the
 * best iterate (they stopped at iteration 60, 60 and 30 with "matrix not
 * SPD? ... needs its null space declared"); x's residual is the one reported */
static void check_gmres_lost(void)
{
    static const char *const solvers[] = {"gmres", "fgmres", "gmres:orth=cgs,refine=always"};
    ovk_matrix *A = mt_nonsym_matrix("watt_2");
    if (!A) return;
    ovk_vector *b = NULL, *x = NULL;
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    ovk_vector_set(b, 1.0);
    for (int i = 0; i < 3; i++) {
        ovk_solver *s = NULL;
        ovk_pcg_result res;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solvers[i]));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "ilu0"));
        ovk_vector_set(x, 0.0);
        int rc = ovk_solver_solve(s, b, x, &res);
        const char *d = ovk_error_detail();
        MT_CHECK(rc == OVK_OK || rc == OVK_EBREAKDOWN, "%s: %s", solvers[i], ovk_status_name(rc));
        if (rc == OVK_EBREAKDOWN) {
            MT_CHECK(strstr(d, "lost to rounding") && strstr(d, "||b||") && !strstr(d, "SPD") &&
                         !strstr(d, "null space") && !strstr(ovk_strerror(rc), "SPD"),
                     "%s: %s", solvers[i], d);
            MT_CHECK(res.iterations > 30 * (i == 2 ? 1 : 2), "%s: gave up at %d, before a restart", solvers[i],
                     res.iterations);
        }
        double rel = mt_rel_residual(A, b, x);
        MT_CHECK(fabs(res.rel_residual - rel) <= 1e-6 * rel, "%s: reported %.6g, x's %.6g", solvers[i],
                 res.rel_residual, rel);
        ovk_solver_destroy(&s);
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* z_i = r_i / (7 (1 + 0.9 sin(i c))) at call c: a preconditioner that
 * changes at every application */
static int changing_pc(ovk_solver *s, const double *r, double *z, void *ctx)
{
    (void)s;
    faulty *f = ctx;
    int n = ovk_matrix_nlocal(f->A);
    int64_t start = ovk_matrix_row_start(f->A);
    f->pc_calls++;
    for (int i = 0; i < n; i++) z[i] = r[i] / (7.0 * (1.0 + 0.9 * sin((double)(start + i) * f->pc_calls)));
    return 0;
}

/* gmres with a preconditioner that changes: if it gives up, it says to use
 * fgmres */
static void check_gmres_changing_pc(void)
{
    ovk_matrix *A = make_convection();
    faulty f = {A, NULL, NULL, 0, 0, 0, 0, 0};
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    mt_random_b(A, b);
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "gmres"));
    MT_RC(OVK_OK, ovk_solver_set_precond_fn(s, changing_pc, &f));
    int rc = ovk_solver_solve(s, b, x, &res);
    MT_CHECK(rc == OVK_EBREAKDOWN && strstr(ovk_error_detail(), "use fgmres"), "changing C: %s (%s) at %d",
             ovk_status_name(rc), ovk_error_detail(), res.iterations);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* gmres, fgmres, pgmres with a preconditioner that gives a NaN from its
 * call `at` on one rank: OVK_ENONFINITE, x finite, and the reported
 * residual that of x (it was the last step's estimate, 0.25 where x's was 1) */
static void check_gmres_nonfinite_residual(void)
{
    static const char *const solvers[] = {"gmres:restart=10", "fgmres:restart=10", "pgmres"};
    ovk_matrix *A = make_convection();
    int n = ovk_matrix_nlocal(A), calls = 0;
    ovk_vector *b = NULL, *x = NULL;
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    mt_random_b(A, b);
    for (int i = 0; i < 3; i++)
        for (int third = 0; third <= 2; third++) { /* a clean solve, then NaN at 1/3 and 2/3 of its calls */
            faulty f = {A, NULL, NULL, 0, 0, 0, NAN_PC, 1};
            ovk_solver *s = NULL;
            ovk_pcg_result res;
            MT_RC(OVK_OK, ovk_solver_create(A, &s));
            MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solvers[i]));
            MT_RC(OVK_OK, ovk_solver_set_option(s, "rtol", "1e-12"));
            MT_RC(OVK_OK, ovk_solver_set_precond_fn(s, apply_pc, &f));
            ovk_vector_set(x, 0.0);
            f.at = third * calls / 3;
            int rc = ovk_solver_solve(s, b, x, &res);
            if (third == 0) {
                MT_RC(OVK_OK, rc);
                calls = f.pc_calls;
                ovk_solver_destroy(&s);
                continue;
            }
            int at = f.at;
            MT_CHECK(rc == OVK_ENONFINITE, "%s, NaN at %d: %s", solvers[i], at, ovk_status_name(rc));
            MT_CHECK(all_finite(x, n), "%s, NaN at %d: x not finite", solvers[i], at);
            double rel = mt_rel_residual(A, b, x);
            MT_CHECK(fabs(res.rel_residual - rel) <= 1e-6 * rel, "%s, NaN at %d: reported %.6g, x's %.6g",
                     solvers[i], at, res.rel_residual, rel);
            ovk_solver_destroy(&s);
        }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    check_confirmed();
    sweep("bicgstab", 3);
    sweep("pipebicgstab", 3);
    sweep("idrs", 11); /* two cycles of s + 1 = 5 steps and one step more */
    sweep("pipeidrs", 11);
    check_pipeidrs_drift();
    check_idr_jordan();
    check_idr_restart_loop();
    check_gmres_lost();
    check_gmres_changing_pc();
    check_gmres_nonfinite_residual();
    int rc = mt_finish("test_hardening5");
    MPI_Finalize();
    return rc;
}
