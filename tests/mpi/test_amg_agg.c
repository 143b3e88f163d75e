/* amg:setup=agg, the aggregation hierarchy of amg_agg.c.
 *
 * The hierarchy itself (ovk__amg_agg_build on our level type), on 2-D
 * problems split unevenly over the ranks (at 3-4 ranks the last owns no
 * rows; aggregates cross rank boundaries: checked): every coarse operator
 * equals P^T A P formed densely; each tentative prolongator reproduces the
 * near-null space exactly (P_tent B_{l+1} = B_l: the constants, and for a
 * 2-unknown system the translations and the rotation from coordinates);
 * the levels, their sizes and their operators are those of the same
 * matrix on one rank (MPI_COMM_SELF).  The same with coarse levels
 * gathered (agg_gather: all onto rank 0, or onto every 2nd, 4th ... rank
 * while below 12 rows a rank; a group may hold the rank without rows),
 * whose ranks holding rows are checked; through the solver the same
 * iterations gathered or not, also after a value update served on the kept
 * hierarchy with reuse_coarse=galerkin (smoothed and unsmoothed).
 *
 * Through the solver: iterations of the default amg and of setup=agg
 * bounded on small members of each family (27-point Laplacian,
 * anisotropic diffusion, a coefficient jump of 1e5 in a disc), and on the
 * jump unsmoothed aggregation with agg_corr=1.6 taking fewer iterations than
 * without (33 against 21 at 1-4 ranks: the aggregates are any rank
 * count's); bad input
 * refused on every rank with a detail naming it (a block size that does
 * not divide a rank's rows, coordinates of the wrong length, a zero
 * diagonal entry, a near-null space of rank zero, an unknown or misplaced
 * key; without hypre in the build, setup=boomeramg).
 * Self-checking at 1-4 ranks, with hypre or without (the default amg's
 * bounds with hypre only); the iteration bounds in the release build
 * only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

#include "precond/amg_agg.h"
#include "amg_dense.h"

static int g_rank, g_size;

/* A 2-D grid problem: nx x ny nodes of bs unknowns; the 5-point operator
 * with weights 1 in x and eps in y (Dirichlet boundary), times c(x, y)
 * (jump inside a disc), coupled within a node by K = [[2, 1], [1, 2]]
 * when bs = 2. */
typedef struct grid {
    int nx, ny, bs;
    double eps, jump;
} grid;

static double coef(const grid *p, int x, int y)
{
    double dx = x - 0.5 * p->nx, dy = y - 0.5 * p->ny, r = 0.2 * p->nx;
    return dx * dx + dy * dy < r * r ? p->jump : 1.0;
}

/* rows of the nodes [n0, n0 + nn) as CSR with global columns */
static void grid_rows(const grid *p, int n0, int nn, int **ptr, ovk_gidx **col, double **val)
{
    int bs = p->bs, n = nn * bs, k = 0;
    *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    *col = malloc(sizeof(ovk_gidx) * ((size_t)n * 5 * bs + 1));
    *val = malloc(sizeof(double) * ((size_t)n * 5 * bs + 1));
    (*ptr)[0] = 0;
    for (int node = n0; node < n0 + nn; node++)
        for (int c = 0; c < bs; c++) {
            int x = node % p->nx, y = node / p->nx;
            double diag = 0.0;
            const int dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
            for (int d = 0; d < 4; d++) {
                int a = x + dx[d], b = y + dy[d];
                double w = (dy[d] ? p->eps : 1.0);
                if (a >= 0 && b >= 0 && a < p->nx && b < p->ny) w *= 0.5 * (coef(p, x, y) + coef(p, a, b));
                else w *= coef(p, x, y);
                diag += w;
                if (a < 0 || b < 0 || a >= p->nx || b >= p->ny) continue;
                for (int e = 0; e < bs; e++)
                    (*col)[k] = (ovk_gidx)(a + p->nx * b) * bs + e, (*val)[k++] = -w * (bs == 2 ? (c == e ? 2.0 : 1.0) : 1.0);
            }
            for (int e = 0; e < bs; e++)
                (*col)[k] = (ovk_gidx)node * bs + e, (*val)[k++] = diag * (bs == 2 ? (c == e ? 2.0 : 1.0) : 1.0);
            (*ptr)[(node - n0) * bs + c + 1] = k;
        }
}

/* this rank's nodes of the grid on comm (uneven; none on the last of 3+) */
static void grid_split(const grid *p, MPI_Comm comm, int *n0, int *nn)
{
    int r, s;
    int64_t start;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &s);
    tp_split((int64_t)p->nx * p->ny, r, s, &start, nn);
    *n0 = (int)start;
}

static int grid_matrix(const grid *p, MPI_Comm comm, ovk_matrix **A, int *n0, int *nn)
{
    int *ptr;
    ovk_gidx *col;
    double *val;
    grid_split(p, comm, n0, nn);
    grid_rows(p, *n0, *nn, &ptr, &col, &val);
    int rc = ovk_matrix_create_csr(comm, (ovk_gidx)*n0 * p->bs, *nn * p->bs, ptr, col, val, OVK_DUP_REJECT, A);
    free(ptr), free(col), free(val);
    return rc;
}

/* ---- the hierarchy ------------------------------------------------------ */

/* the grid on comm as our level type (the matrix of level 0) */
static ovk__amg_csr *grid_csr(const grid *p, MPI_Comm comm)
{
    int n0, nn, *ptr;
    ovk_gidx *col;
    double *val;
    grid_split(p, comm, &n0, &nn);
    grid_rows(p, n0, nn, &ptr, &col, &val);
    ovk_gidx N = (ovk_gidx)p->nx * p->ny * p->bs, lo = (ovk_gidx)n0 * p->bs;
    ovk__amg_csr *A = NULL;
    MT_RC(OVK_OK, ovk__amg_csr_of_rows(comm, N, N, lo, nn * p->bs, lo, lo + nn * p->bs, ptr, col, val, 1, &A));
    free(ptr), free(col), free(val);
    return A;
}

/* the k vectors of the near-null space of the rank's rows: the constants of
 * each unknown, and for bs = 2 the rotation (-y, x) */
static int grid_nullspace(const grid *p, MPI_Comm comm, double **B)
{
    int n0, nn, bs = p->bs, k = bs == 2 ? 3 : 1;
    grid_split(p, comm, &n0, &nn);
    int n = nn * bs;
    *B = calloc((size_t)n * k + 1, sizeof(double));
    for (int i = 0; i < nn; i++)
        for (int c = 0; c < bs; c++) {
            (*B)[(size_t)c * n + i * bs + c] = 1.0;
            if (bs == 2) {
                double x = (n0 + i) % p->nx, y = (n0 + i) / p->nx;
                (*B)[(size_t)2 * n + i * bs + c] = c == 0 ? -y : x;
            }
        }
    return k;
}

/* Collective: the rows of B (n x k by columns) of every rank, dense N x k (row major) */
static double *dense_b(const ovk__amg_csr *A, const double *B, int k)
{
    MPI_Comm comm = A->comm;
    size_t N = (size_t)A->nrows;
    int n = A->n;
    ovk_gidx r0 = A->r0;
    double *d = calloc(N * k + 1, sizeof(double));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < k; j++) d[(size_t)(r0 + i) * k + j] = B[(size_t)j * n + i];
    MPI_Allreduce(MPI_IN_PLACE, d, (int)(N * k), MPI_DOUBLE, MPI_SUM, comm);
    return d;
}

static double maxabs(const double *v, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
    return m;
}

/* A hierarchy, built and checked on comm; its levels' dense operators
 * (rows[l] x rows[l]) returned for the comparison across rank counts. */
typedef struct built {
    int nlev;
    long rows[40];
    double *a[40];
    long offd_ptent; /* entries of the level-0 tentative prolongator's offd blocks, all ranks */
    int ranks[40];   /* ranks holding rows on each level */
} built;

static void built_free(built *b)
{
    for (int l = 0; l < b->nlev; l++) free(b->a[l]);
    memset(b, 0, sizeof *b);
}

static void check_hierarchy(const grid *p, MPI_Comm comm, const ovk__amg_agg_opts *o, const char *what, built *out)
{
    ovk__amg_csr *A = grid_csr(p, comm);
    double *B;
    int k = grid_nullspace(p, comm, &B);
    ovk__amg_agg_hier h;
    ovk__amg_agg_keep keep;
    int rc = A ? ovk__amg_agg_build(A, k, B, o, &h, &keep, NULL) : OVK_EINVAL;
    MT_RC(OVK_OK, rc);
    int nlev = rc ? 0 : h.nlev;
    MT_CHECK(nlev >= 2 && keep.nlev == nlev, "%s: %d levels (kept %d)", what, nlev, keep.nlev);
    memset(out, 0, sizeof *out);
    out->nlev = nlev;
    for (int l = 0; l < nlev; l++) {
        const ovk__amg_csr *Al = h.A[l];
        out->rows[l] = (long)Al->nrows;
        out->a[l] = amg_dense(Al);
        int has = Al->n > 0;
        MPI_Allreduce(&has, &out->ranks[l], 1, MPI_INT, MPI_SUM, comm);
        if (l) MT_CHECK(out->rows[l] < out->rows[l - 1] && out->rows[l] > 0, "%s: level %d of %ld rows after %ld", what, l,
                        out->rows[l], out->rows[l - 1]);
    }
    for (int l = 0; l + 1 < nlev; l++) {
        /* A_{l+1} = P^T A_l P, densely */
        const ovk__amg_csr *P = h.P[l];
        size_t nf = (size_t)out->rows[l], nc = (size_t)out->rows[l + 1];
        double *pd = amg_dense(P), *ap = calloc(nf * nc + 1, sizeof(double)), err = 0.0;
        for (size_t i = 0; i < nf; i++)
            for (size_t j = 0; j < nf; j++) {
                double a = out->a[l][i * nf + j];
                if (a != 0.0)
                    for (size_t c = 0; c < nc; c++) ap[i * nc + c] += a * pd[j * nc + c];
            }
        for (size_t r = 0; r < nc; r++)
            for (size_t c = 0; c < nc; c++) {
                double v = 0.0;
                for (size_t i = 0; i < nf; i++) v += pd[i * nc + r] * ap[i * nc + c];
                err = fmax(err, fabs(v - out->a[l + 1][r * nc + c]));
            }
        double scale = maxabs(out->a[l + 1], nc * nc);
        MT_CHECK(err <= 1e-12 * scale * nf, "%s: level %d: |A_c - P^T A P| = %g (|A_c| %g)", what, l + 1, err, scale);
        /* P_tent B_{l+1} = B_l */
        double *pt = amg_dense(keep.ptent[l]), *bf = dense_b(h.A[l], keep.b[l], k);
        double *bc = dense_b(h.A[l + 1], keep.b[l + 1], k), berr = 0.0;
        for (size_t i = 0; i < nf; i++)
            for (int j = 0; j < k; j++) {
                double v = 0.0;
                for (size_t c = 0; c < nc; c++) v += pt[i * nc + c] * bc[c * k + j];
                berr = fmax(berr, fabs(v - bf[i * k + j]));
            }
        MT_CHECK(berr <= 1e-11 * maxabs(bf, nf * k), "%s: level %d: |P_tent B_c - B| = %g", what, l, berr);
        if (l == 0) {
            long no = ovk__amg_csr_onnz(keep.ptent[0]);
            MPI_Allreduce(&no, &out->offd_ptent, 1, MPI_LONG, MPI_SUM, comm);
        }
        free(pd), free(ap), free(pt), free(bf), free(bc);
    }
    if (!rc) ovk__amg_agg_keep_free(&keep), ovk__amg_agg_hier_free(&h); /* the levels but level 0 */
    ovk__amg_csr_free(A);
    free(B);
}

/* a threshold above every coupling (the 5-point Laplacian's are 1/4 of
 * its diagonal): halved until most nodes have a strong neighbour, the
 * first level coarsens as with none, instead of copying level 0 */
static void threshold_too_high(void)
{
    grid lap = {24, 24, 1, 1.0, 1.0};
    ovk__amg_agg_opts high = {1, 0.3, 1, 25, 9, 1, 0, 0.0}, none = {1, 0.0, 1, 25, 9, 1, 0, 0.0};
    built b[2];
    check_hierarchy(&lap, MPI_COMM_WORLD, &high, "Laplacian 24^2, agg_threshold 0.3", &b[0]);
    check_hierarchy(&lap, MPI_COMM_WORLD, &none, "Laplacian 24^2, agg_threshold 0", &b[1]);
    MT_CHECK(b[0].nlev >= 2 && b[0].rows[1] == b[1].rows[1], "agg_threshold 0.3: level 1 of %ld rows (threshold 0: %ld)",
             b[0].rows[1], b[1].rows[1]);
    built_free(&b[0]), built_free(&b[1]);
}

/* the hierarchy on all ranks, and on each rank alone (the whole matrix):
 * the same levels, sizes and operators */
static void hierarchy(const grid *p, const ovk__amg_agg_opts *o, const char *what, int crosses)
{
    built all, one;
    check_hierarchy(p, MPI_COMM_WORLD, o, what, &all);
    check_hierarchy(p, MPI_COMM_SELF, o, what, &one);
    /* gathering: a coarse level's rows on every 2nd, 4th ... rank while its
     * rows per such rank stay below o->gather (level 0 never) */
    for (int l = 1, stride = 1; l < all.nlev && o->gather > 0.0; l++) {
        while (stride < g_size && (double)all.rows[l] < o->gather * (double)((g_size + stride - 1) / stride)) stride *= 2;
        int most = (g_size + stride - 1) / stride;
        MT_CHECK(all.ranks[l] <= most,
                 "%s: level %d (%ld rows) on %d ranks, at most %d with gathering below %g rows a rank", what, l,
                 all.rows[l], all.ranks[l], most, o->gather);
    }
    MT_CHECK(all.nlev == one.nlev, "%s: %d levels at %d ranks, %d at 1", what, all.nlev, g_size, one.nlev);
    for (int l = 0; l < all.nlev && l < one.nlev; l++) {
        MT_CHECK(all.rows[l] == one.rows[l], "%s: level %d: %ld rows at %d ranks, %ld at 1", what, l, all.rows[l], g_size,
                 one.rows[l]);
        if (all.rows[l] != one.rows[l]) continue;
        size_t m = (size_t)all.rows[l] * (size_t)all.rows[l];
        double err = 0.0;
        for (size_t i = 0; i < m; i++) err = fmax(err, fabs(all.a[l][i] - one.a[l][i]));
        MT_CHECK(err <= 1e-10 * maxabs(one.a[l], m), "%s: level %d differs from 1 rank's by %g", what, l, err);
    }
    if (g_size > 1 && crosses) MT_CHECK(all.offd_ptent > 0, "%s: no aggregate crosses a rank boundary", what);
    if (g_rank == 0) {
        printf("%s: %d levels, rows", what, all.nlev);
        for (int l = 0; l < all.nlev; l++) printf(" %ld", all.rows[l]);
        printf("; %ld entries of P_tent across ranks; ranks holding rows", all.offd_ptent);
        for (int l = 0; l < all.nlev; l++) printf(" %d", all.ranks[l]);
        printf("\n");
    }
    built_free(&all), built_free(&one);
}

/* the status of a setup with spec, which must be `want` on every rank with
 * a detail holding `needle` */
static void refused(const ovk_matrix *A, const char *spec, int want, const char *needle, int ncoords, const double *xyz,
                    const double *const *nns)
{
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    int rc = ovk_solver_set_option(s, "precond", spec);
    if (!rc && xyz) rc = ovk_solver_set_coordinates(s, 2, ncoords, xyz);
    if (!rc && nns) rc = ovk_solver_set_near_nullspace(s, 1, nns);
    if (!rc) rc = ovk_solver_setup(s);
    MT_CHECK(rc == want && strstr(ovk_error_detail(), needle), "%s: %s (%s), expected %s naming '%s'", spec,
             ovk_status_name(rc), ovk_error_detail(), ovk_status_name(want), needle);
    ovk_solver_destroy(&s);
}

/* ---- through the solver ----------------------------------------------- */

#ifndef OVK_TEST_SANITIZED
/* a solver with precond spec on A (rtol 1e-8, 400 iterations), a random b and x */
static void solver_on(const ovk_matrix *A, const char *spec, ovk_solver **s, ovk_vector **b, ovk_vector **x)
{
    MT_RC(OVK_OK, ovk_solver_create(A, s));
    MT_RC(OVK_OK, ovk_solver_set_option(*s, "precond", spec));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(*s, 1e-8, 0.0, 400));
    MT_RC(OVK_OK, ovk_vector_create(A, b));
    MT_RC(OVK_OK, ovk_vector_create(A, x));
    mt_random_b(A, *b);
}

/* iterations of cg with precond spec on A (random b, rtol 1e-8), or -1 */
static int iterations(const ovk_matrix *A, const char *spec)
{
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    solver_on(A, spec, &s, &b, &x);
    int rc = ovk_solver_solve(s, b, x, &res);
    MT_CHECK(rc == OVK_OK, "%s: %s (%s)", spec, ovk_status_name(rc), ovk_error_detail());
    ovk_vector_destroy(b), ovk_vector_destroy(x);
    ovk_solver_destroy(&s);
    return rc ? -1 : res.iterations;
}

static void bounded(const ovk_matrix *A, const char *family, const char *spec, int bound)
{
    int its = iterations(A, spec);
    MT_CHECK(its >= 1 && its <= bound, "%s with %s: %d iterations (bound %d)", family, spec, its, bound);
    if (g_rank == 0) printf("%s with %s: %d iterations (bound %d)\n", family, spec, its, bound);
}

enum { OVER_BOUND = 26 };
static void suite(void)
{
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 16, 0.0, &A));
#ifdef OVK_HAVE_HYPRE
    bounded(A, "27-point Laplacian 16^3", "amg", 18);
#endif
    bounded(A, "27-point Laplacian 16^3", "amg:setup=agg", 14);
    /* coarse levels gathered: the same hierarchy, so the same iterations (but
     * for the sums' order in the products) as without */
    const char *gathered[] = {"amg:setup=agg,agg_gather=1000", "amg:setup=agg,agg_gather=50",
                              "amg:setup=agg,agg_gather=1e9", "amg:setup=agg,agg_smooth=0,agg_gather=1e9"};
    for (int t = 0; t < 4; t++) {
        int base = iterations(A, t < 3 ? "amg:setup=agg,agg_gather=0" : "amg:setup=agg,agg_smooth=0,agg_gather=0");
        int its = iterations(A, gathered[t]);
        MT_CHECK(its >= 1 && abs(its - base) <= 1, "27-point Laplacian 16^3: %d iterations with %s, %d without", its,
                 gathered[t], base);
        if (g_rank == 0) printf("27-point Laplacian 16^3 with %s: %d iterations, %d without\n", gathered[t], its, base);
    }
    ovk_matrix_destroy(A);
    int n0, nn;
    grid aniso = {64, 64, 1, 1e-3, 1.0};
    MT_RC(OVK_OK, grid_matrix(&aniso, MPI_COMM_WORLD, &A, &n0, &nn));
#ifdef OVK_HAVE_HYPRE
    bounded(A, "anisotropic 64^2 (eps 1e-3)", "amg", 34);
#endif
    bounded(A, "anisotropic 64^2 (eps 1e-3)", "amg:setup=agg,agg_threshold=0.08", 20);
    ovk_matrix_destroy(A);
    grid jump = {64, 64, 1, 1.0, 1e5};
    MT_RC(OVK_OK, grid_matrix(&jump, MPI_COMM_WORLD, &A, &n0, &nn));
#ifdef OVK_HAVE_HYPRE
    bounded(A, "coefficient jump 1e5, 64^2", "amg", 30);
#endif
    bounded(A, "coefficient jump 1e5, 64^2", "amg:setup=agg", 24);
    /* unsmoothed aggregation: the over-corrected coarse correction saves iterations */
    int plain = iterations(A, "amg:setup=agg,agg_smooth=0,degree=2");
    int over = iterations(A, "amg:setup=agg,agg_smooth=0,agg_corr=1.6,degree=2");
    MT_CHECK(over >= 1 && over < plain && over <= OVER_BOUND,
             "coefficient jump: agg_corr=1.6 took %d iterations (bound %d), 1.0 %d", over, OVER_BOUND, plain);
    if (g_rank == 0) printf("coefficient jump 1e5, 64^2, unsmoothed, degree=2: %d iterations, agg_corr=1.6 %d\n", plain, over);
    ovk_matrix_destroy(A);
}

/* iterations of the solve after a value update on the kept hierarchy (the
 * jump 1e5 made 1.2e5, a drift below reuse_tol; reuse_coarse=galerkin forms the coarse operators
 * again on the kept P: the kept sums unsmoothed, a new product smoothed) */
static int after_update(const char *spec)
{
    grid jump = {64, 64, 1, 1.0, 1e5}, milder = {64, 64, 1, 1.0, 1.2e5};
    ovk_matrix *A = NULL;
    int n0, nn, *ptr;
    ovk_gidx *col;
    double *val;
    MT_RC(OVK_OK, grid_matrix(&jump, MPI_COMM_WORLD, &A, &n0, &nn));
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res = {0};
    solver_on(A, spec, &s, &b, &x);
    int rc = ovk_solver_solve(s, b, x, &res);
    grid_rows(&milder, n0, nn, &ptr, &col, &val);
    if (!rc) rc = ovk_matrix_update_values(A, ptr, col, val, OVK_DUP_REJECT);
    if (!rc) rc = ovk_vector_set(x, 0.0);
    if (!rc) rc = ovk_solver_solve(s, b, x, &res);
    MT_CHECK(rc == OVK_OK, "%s after an update: %s (%s)", spec, ovk_status_name(rc), ovk_error_detail());
    long full = -1, kept = -1; /* the view's count of setups on the kept interpolation */
    mt_amg_setups(s, &full, &kept, NULL);
    MT_CHECK(kept == 1, "%s: the update was served by a setup on the kept interpolation (the view counts %ld)", spec,
             kept);
    free(ptr), free(col), free(val);
    ovk_vector_destroy(b), ovk_vector_destroy(x);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
    return rc ? -1 : res.iterations;
}

/* a value update on gathered coarse levels: the iterations of the levels
 * not gathered */
static void reuse_gathered(void)
{
    const char *specs[] = {"amg:setup=agg,agg_smooth=0,reuse_coarse=galerkin", "amg:setup=agg,reuse_coarse=galerkin"};
    for (int t = 0; t < 2; t++) {
        char none[160], all[160];
        snprintf(none, sizeof none, "%s,agg_gather=0", specs[t]);
        snprintf(all, sizeof all, "%s,agg_gather=1e9", specs[t]);
        int a = after_update(none), g = after_update(all);
        MT_CHECK(g >= 1 && abs(g - a) <= 1, "%s after an update: %d iterations gathered, %d not", specs[t], g, a);
        if (g_rank == 0) printf("%s after an update: %d iterations gathered, %d not\n", specs[t], g, a);
    }
}
#endif

static void bad_input(void)
{
    ovk_matrix *A = NULL;
    int n0, nn;
    grid sys = {9, 7, 2, 1.0, 1.0}; /* 63 nodes of 2 unknowns */
    MT_RC(OVK_OK, grid_matrix(&sys, MPI_COMM_WORLD, &A, &n0, &nn));
    /* bs=3 does not divide a rank's 2-unknown nodes (each rank owns an even count; 126 rows in all) */
    refused(A, "amg:setup=agg,bs=4", OVK_EOPTION, "bs=4", 0, NULL, NULL);
    double *xyz = calloc(2 * (size_t)nn + 2, sizeof(double));
    for (int i = 0; i < nn; i++) xyz[2 * i] = (n0 + i) % 9, xyz[2 * i + 1] = (n0 + i) / 9;
    refused(A, "amg:setup=agg,bs=2", OVK_EINVAL, "coordinate", g_rank == 0 ? nn + 1 : nn, xyz, NULL);
    double *zero = calloc((size_t)nn * 2 + 1, sizeof(double));
    const double *nns[1] = {zero};
    refused(A, "amg:setup=agg,bs=2", OVK_EINVAL, "rank zero", 0, NULL, nns);
    refused(A, "amg:setup=agg,bogus=1", OVK_EOPTION, "bogus", 0, NULL, NULL);
    refused(A, "amg:setup=agg,cycle=hypre", OVK_EOPTION, "cycle=ovk", 0, NULL, NULL);
    refused(A, "amg:setup=agg,coarsen=pmis", OVK_EOPTION, "setup=boomeramg", 0, NULL, NULL);
#ifdef OVK_HAVE_HYPRE /* the default setup=boomeramg takes no agg_ key */
    refused(A, "amg:agg_smooth=0", OVK_EOPTION, "setup=agg", 0, NULL, NULL);
    refused(A, "amg:agg_corr=1.5", OVK_EOPTION, "setup=agg", 0, NULL, NULL);
#else /* hypre's side absent: refused by name */
    refused(A, "amg:setup=boomeramg", OVK_EUNSUPPORTED, "not in this build", 0, NULL, NULL);
    refused(A, "amg:cycle=hypre", OVK_EOPTION, "cycle=ovk", 0, NULL, NULL);
#endif
    refused(A, "amg:setup=agg,agg_corr=2.5", OVK_EOPTION, "agg_corr", 0, NULL, NULL);
#ifdef OVK_HAVE_HYPRE
    refused(A, "amg:agg_gather=100", OVK_EOPTION, "setup=agg", 0, NULL, NULL);
#endif
    refused(A, "amg:setup=agg,agg_gather=-1", OVK_EOPTION, "agg_gather", 0, NULL, NULL);
    refused(A, "amg:setup=agg,max_levels=1", OVK_EOPTION, "max_levels", 0, NULL, NULL);
    refused(A, "amg:setup=classic", OVK_EOPTION, "setup", 0, NULL, NULL);
    ovk_matrix_destroy(A);
    free(xyz), free(zero);
    /* a zero diagonal entry on the last rank with rows */
    int *ptr;
    ovk_gidx *col;
    double *val;
    grid lap = {10, 10, 1, 1.0, 1.0};
    grid_split(&lap, MPI_COMM_WORLD, &n0, &nn);
    grid_rows(&lap, n0, nn, &ptr, &col, &val);
    for (int i = 0; i < nn; i++)
        for (int e = ptr[i]; e < ptr[i + 1]; e++)
            if (col[e] == n0 + i && n0 + i == 57) val[e] = 0.0;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, n0, nn, ptr, col, val, OVK_DUP_REJECT, &A));
    refused(A, "amg:setup=agg", OVK_EZERODIAG, "57", 0, NULL, NULL);
    ovk_matrix_destroy(A);
    free(ptr), free(col), free(val);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    ovk__amg_agg_opts smoothed = {1, 0.0, 1, 25, 9, 1, 0, 0.0}, plain = {1, 0.0, 0, 25, 9, 1, 0, 0.0}, sys = {2, 0.0, 1, 25, 9, 1, 0, 0.0};
    ovk__amg_agg_opts strong = {1, 0.1, 1, 25, 9, 1, 0, 0.0}, mis1 = {1, 0.0, 1, 25, 9, 0, 0, 0.0};
    grid lap = {24, 24, 1, 1.0, 1.0}, aniso = {20, 20, 1, 1e-3, 1.0}, elast = {14, 14, 2, 1.0, 1.0};
    hierarchy(&lap, &smoothed, "Laplacian 24^2, smoothed", 1);
    hierarchy(&lap, &plain, "Laplacian 24^2, unsmoothed", 1);
    hierarchy(&lap, &mis1, "Laplacian 24^2, MIS-1 on every level", 1);
    /* strong in x only: aggregates along the rows, which the ranks do not split */
    hierarchy(&aniso, &strong, "anisotropic 20^2, agg_threshold 0.1", 0);
    hierarchy(&elast, &sys, "bs=2 with the rotation, smoothed", 1);
    threshold_too_high();
    /* coarse levels gathered: all onto rank 0, or halved while below 12 rows a rank */
    ovk__amg_agg_opts all0 = {1, 0.0, 0, 25, 9, 1, 0, 1e9}, half = {1, 0.0, 0, 25, 9, 1, 0, 12.0};
    ovk__amg_agg_opts sys0 = {2, 0.0, 1, 25, 9, 1, 0, 1e9}, syshalf = {2, 0.0, 0, 25, 9, 1, 0, 12.0};
    hierarchy(&lap, &all0, "Laplacian 24^2, unsmoothed, coarse levels on one rank", 1);
    hierarchy(&lap, &half, "Laplacian 24^2, unsmoothed, gathered below 12 rows a rank", 1);
    hierarchy(&elast, &sys0, "bs=2 with the rotation, smoothed, coarse levels on one rank", 1);
    hierarchy(&elast, &syshalf, "bs=2 with the rotation, unsmoothed, gathered below 12 rows a rank", 1);
#ifndef OVK_TEST_SANITIZED
    suite(); /* the solves' kernels run under the sanitizers in test_amg */
    reuse_gathered();
#endif
    bad_input();
    int rc = mt_finish("test_amg_agg");
    MPI_Finalize();
    return rc;
}
