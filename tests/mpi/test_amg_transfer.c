/* The amg cycle's pieces that need no hypre, in every build:
 *   - the grid transfers (amg_transfer.c): x_f += P x_c and
 *     y_c = alpha P^T r against the dense products, with float and double
 *     weights, for 1 and 3 systems at once (each system bitwise its own
 *     transfer), and after scaling the weights by row (diag(w) P, then P's
 *     own again); P of 1-3 entries a row at columns anywhere, so that rows
 *     of one rank read and sum into coarse rows of others;
 *   - the coarsest solve (amg_coarse.c): a nonsymmetric matrix against the
 *     dense solve, an unknown whose row and column are empty (solved as 0
 *     for a zero right-hand side), and a zero row refused with
 *     OVK_EPRECOND on every rank.
 *   - both makes with each of their allocations failing once, on one
 *     rank: the same status on every rank, OVK_ENOMEM, and nothing made
 *     (leaks on the other ranks show under LSan).
 * The fine rows split unevenly with none on the last of 3+ ranks, the
 * coarse rows with none on the first of 2+ ranks.  Self-checking at 1-4
 * ranks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "precond/amg_transfer.h"
#include "util/alloc_fault.h"

static int g_rank, g_size;

/* entry (i, c) of the test P (0: none): 1-3 entries a row spread over the columns */
static double p_entry(int i, int c, int nc)
{
    double v = 0.0;
    if (c == (7 * i) % nc) v += 1.0 + 0.125 * (i % 5);
    if (c == (3 * i + 1) % nc) v -= 0.5 + 0.0625 * (i % 3);
    if (i % 2 == 0 && c == (i / 2) % nc) v += 0.25;
    return v;
}

typedef struct prows_buf {
    int *dptr, *dcol, *optr, *ocol;
    double *dval, *oval;
    ovk_gidx *cmap;
} prows_buf;

static void free_buf(prows_buf *b)
{
    free(b->dptr), free(b->dcol), free(b->optr), free(b->ocol), free(b->dval), free(b->oval), free(b->cmap);
}

/* this rank's rows f0 .. f1 of the nf x nc test P, its coarse rows c0 .. c1 */
static void make_rows(int nc, int f0, int f1, int c0, int c1, ovk__amg_prows *p, prows_buf *b)
{
    int n = f1 - f0, cap = 3 * n + 1, nx = 0;
    char *used = calloc((size_t)nc, 1);
    b->dptr = calloc((size_t)n + 1, sizeof(int)), b->optr = calloc((size_t)n + 1, sizeof(int));
    b->dcol = malloc(sizeof(int) * (size_t)cap), b->ocol = malloc(sizeof(int) * (size_t)cap);
    b->dval = malloc(sizeof(double) * (size_t)cap), b->oval = malloc(sizeof(double) * (size_t)cap);
    b->cmap = malloc(sizeof(ovk_gidx) * ((size_t)nc + 1));
    int *slot = malloc(sizeof(int) * ((size_t)nc + 1));
    for (int i = f0; i < f1; i++)
        for (int c = 0; c < nc; c++)
            if (p_entry(i, c, nc) != 0.0 && (c < c0 || c >= c1)) used[c] = 1;
    for (int c = 0; c < nc; c++)
        if (used[c]) slot[c] = nx, b->cmap[nx++] = c; /* ascending */
    int nd = 0, no = 0;
    for (int i = f0; i < f1; i++) {
        for (int c = 0; c < nc; c++) {
            double v = p_entry(i, c, nc);
            if (v == 0.0) continue;
            if (c >= c0 && c < c1) b->dcol[nd] = c - c0, b->dval[nd++] = v;
            else b->ocol[no] = slot[c], b->oval[no++] = v;
        }
        b->dptr[i - f0 + 1] = nd, b->optr[i - f0 + 1] = no;
    }
    *p = (ovk__amg_prows){n, c1 - c0, nx, c0, b->dptr, b->dcol, nx > 0 ? b->optr : NULL, b->ocol,
                          b->dval, b->oval, b->cmap};
    free(used), free(slot);
}

static double xc_of(int c, int j) { return sin(0.7 * c + 1.3 * j) + 0.1 * j; }
static double r_of(int i, int j) { return cos(0.3 * i - 0.9 * j) + 0.05 * (i % 7); }
static double w_of(int i) { return 0.5 + 0.01 * (i % 13); }

static void transfer_case(int nf, int nc, int single)
{
    int f0, f1, c0, c1, k = 3;
    mt_split(nf, g_size >= 3 ? g_size - 1 : -1, &f0, &f1);
    mt_split(nc, g_size >= 2 ? 0 : -1, &c0, &c1);
    ovk__amg_prows p;
    prows_buf b;
    make_rows(nc, f0, f1, c0, c1, &p, &b);
    ovk__amg_transfer *t = NULL;
    int rc = ovk__amg_transfer_make(MPI_COMM_WORLD, &p, single, &t);
    MT_RC(OVK_OK, rc);
    if (!rc) MT_RC(OVK_OK, ovk__amg_transfer_reserve(t, k));
    if (!rc) MT_RC(OVK_OK, ovk__amg_transfer_scale_room(t));
    int n = f1 - f0, m = c1 - c0;
    double tol = single ? 1e-6 : 1e-13, alpha = 0.75;
    double *xc[3], *xf[3], *xf1 = malloc(sizeof(double) * ((size_t)n + 1));
    double *r[3], *yc[3], *yc1 = malloc(sizeof(double) * ((size_t)m + 1));
    for (int j = 0; j < k; j++) {
        xc[j] = malloc(sizeof(double) * ((size_t)m + 1)), xf[j] = malloc(sizeof(double) * ((size_t)n + 1));
        r[j] = malloc(sizeof(double) * ((size_t)n + 1)), yc[j] = malloc(sizeof(double) * ((size_t)m + 1));
        for (int c = 0; c < m; c++) xc[j][c] = xc_of(c0 + c, j);
        for (int i = 0; i < n; i++) r[j][i] = r_of(f0 + i, j);
    }
    for (int scaled = 0; scaled < 3 && !rc; scaled++) { /* P, diag(w) P, P again */
        if (scaled == 1) {
            double *w = malloc(sizeof(double) * ((size_t)n + 1));
            for (int i = 0; i < n; i++) w[i] = w_of(f0 + i);
            ovk__amg_transfer_scale(t, &p, w);
            free(w);
        } else if (scaled == 2) {
            ovk__amg_transfer_scale(t, &p, NULL);
        }
        for (int j = 0; j < k; j++)
            for (int i = 0; i < n; i++) xf[j][i] = 1.0 + j;
        MT_RC(OVK_OK, ovk__amg_interpolate(t, k, (const double *const *)xc, xf, NULL));
        MT_RC(OVK_OK, ovk__amg_restrict(t, k, alpha, (const double *const *)r, yc, NULL));
        double err = 0.0;
        for (int j = 0; j < k; j++) {
            for (int i = 0; i < n; i++) { /* x_f = 1 + j + (diag(w) P x_c)_i */
                double ref = 0.0, wi = scaled == 1 ? w_of(f0 + i) : 1.0;
                for (int c = 0; c < nc; c++) ref += wi * p_entry(f0 + i, c, nc) * xc_of(c, j);
                err = fmax(err, fabs(xf[j][i] - (1.0 + j + ref)) / (1.0 + fabs(ref)));
            }
            for (int c = 0; c < m; c++) { /* y_c = alpha (P^T diag(w) r)_c */
                double ref = 0.0;
                for (int i = 0; i < nf; i++)
                    ref += p_entry(i, c0 + c, nc) * (scaled == 1 ? w_of(i) : 1.0) * r_of(i, j);
                err = fmax(err, fabs(yc[j][c] - alpha * ref) / (1.0 + fabs(ref)));
            }
        }
        MT_CHECK(err <= tol, "P %dx%d (%s weights, scaled %d): error %.3g > %.3g", nf, nc, single ? "float" : "double",
                 scaled, err, tol);
        int same = 1; /* each system alone: bitwise the same */
        for (int j = 0; j < k; j++) {
            const double *x1[1] = {xc[j]}, *r1[1] = {r[j]};
            double *f1p[1] = {xf1}, *y1p[1] = {yc1};
            for (int i = 0; i < n; i++) xf1[i] = 1.0 + j;
            MT_RC(OVK_OK, ovk__amg_interpolate(t, 1, x1, f1p, NULL));
            MT_RC(OVK_OK, ovk__amg_restrict(t, 1, alpha, r1, y1p, NULL));
            if (n) same &= memcmp(xf1, xf[j], sizeof(double) * (size_t)n) == 0;
            if (m) same &= memcmp(yc1, yc[j], sizeof(double) * (size_t)m) == 0;
        }
        MT_CHECK(same, "P %dx%d (%s weights): 3 systems at once differ from one at a time", nf, nc,
                 single ? "float" : "double");
    }
    if (g_rank == 0)
        printf("transfer P %dx%d, %s weights: P x and P^T r as the dense products, also scaled, 1 and 3 systems\n", nf, nc,
               single ? "float" : "double");
    for (int j = 0; j < k; j++) free(xc[j]), free(xf[j]), free(r[j]), free(yc[j]);
    free(xf1), free(yc1);
    ovk__amg_transfer_free(t);
    free_buf(&b);
}

/* entry (i, j) of the coarsest test matrix: nonsymmetric, diagonally
 * dominant; kind 1 empties row and column 2, kind 2 row 3 only (singular) */
static double a_entry(int i, int j, int n, int kind)
{
    if (kind == 1 && (i == 2 || j == 2)) return 0.0;
    if (kind == 2 && i == 3) return 0.0;
    if (i == j) return 4.0 + 0.1 * i;
    if (j == (i + 1) % n) return -1.0;
    if (j == (i + 3) % n) return 0.5;
    return 0.0;
}

/* this rank's rows lo .. lo + n - 1 of the N x N test matrix (kind as a_entry's) */
static void coarse_rows(int N, int kind, int *lo, int *n, int **ptr, ovk_gidx **col, double **val)
{
    int hi;
    mt_split(N, g_size >= 3 ? 1 : -1, lo, &hi);
    *n = hi - *lo;
    *ptr = calloc((size_t)*n + 1, sizeof(int));
    *col = malloc(sizeof(ovk_gidx) * ((size_t)*n * (size_t)N + 1));
    *val = malloc(sizeof(double) * ((size_t)*n * (size_t)N + 1));
    int e = 0;
    for (int i = *lo; i < hi; i++) {
        for (int j = N - 1; j >= 0; j--) /* columns in any order */
            if (a_entry(i, j, N, kind) != 0.0) (*col)[e] = j, (*val)[e++] = a_entry(i, j, N, kind);
        (*ptr)[i - *lo + 1] = e;
    }
}

static void coarse_case(int N, int kind)
{
    int lo, n, *ptr;
    ovk_gidx *col;
    double *val;
    coarse_rows(N, kind, &lo, &n, &ptr, &col, &val);
    ovk__amg_coarse *c = NULL;
    int rc = ovk__amg_coarse_make(MPI_COMM_WORLD, n, ptr, col, val, &c);
    int64_t rc64 = rc;
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &rc64, 1), "coarse kind %d: the statuses differ", kind);
    if (kind == 2) {
        MT_RC(OVK_EPRECOND, rc);
        if (g_rank == 0) printf("coarsest level %d with a zero row: refused (%s) on every rank\n", N, ovk_status_name(rc));
    } else {
        MT_RC(OVK_OK, rc);
        double *a = calloc((size_t)N * (size_t)N, sizeof(double)), *ref = malloc(sizeof(double) * (size_t)N);
        double *b = malloc(sizeof(double) * ((size_t)n + 1)), *x = malloc(sizeof(double) * ((size_t)n + 1));
        for (int i = 0; i < N; i++) {
            ref[i] = kind == 1 && i == 2 ? 0.0 : 1.0 + sin((double)i);
            for (int j = 0; j < N; j++) a[(size_t)i * N + j] = a_entry(i, j, N, kind);
        }
        for (int i = 0; i < n; i++) b[i] = ref[lo + i];
        if (kind == 1) a[2 * (size_t)N + 2] = 1.0; /* the reference's decoupled unknown: x_2 = b_2 = 0 */
        mt_dense_solve(N, a, ref);
        if (!rc) MT_RC(OVK_OK, ovk__amg_coarse_solve(c, b, x));
        double err = 0.0;
        for (int i = 0; i < n && !rc; i++) err = fmax(err, fabs(x[i] - ref[lo + i]));
        MT_CHECK(err <= 1e-13, "coarsest level %d (kind %d): error %.3g", N, kind, err);
        if (!rc) MT_RC(OVK_OK, ovk__amg_coarse_solve(c, b, b)); /* in place */
        double err2 = 0.0;
        for (int i = 0; i < n && !rc; i++) err2 = fmax(err2, fabs(b[i] - x[i]));
        MT_CHECK(err2 == 0.0, "coarsest level %d (kind %d): in place differs by %.3g", N, kind, err2);
        if (g_rank == 0)
            printf("coarsest level %d%s: the dense solve's x, also in place\n", N, kind == 1 ? " with an empty row and column" : "");
        free(a), free(ref), free(b), free(x);
    }
    ovk__amg_coarse_free(c);
    free(ptr), free(col), free(val);
}

/* Allocation n of the make (what: 0 the coarsest solve's, 1 the transfer's)
 * failing on rank (n - 1) mod size (n = 0: none); its status, the
 * allocations it made on this rank and whether one failed here */
static int make_failing(int what, long n, long *count, int *fired)
{
    int lo, m, *ptr = NULL;
    ovk_gidx *col = NULL;
    double *val = NULL;
    ovk__amg_prows p;
    prows_buf b;
    if (what == 0) {
        coarse_rows(11, 0, &lo, &m, &ptr, &col, &val);
    } else {
        int f0, f1, c0, c1;
        mt_split(40, g_size >= 3 ? g_size - 1 : -1, &f0, &f1);
        mt_split(13, g_size >= 2 ? 0 : -1, &c0, &c1);
        make_rows(13, f0, f1, c0, c1, &p, &b);
    }
    ovk__amg_coarse *c = NULL;
    ovk__amg_transfer *t = NULL;
    ovk__alloc_fault_arm(n > 0 && (n - 1) % g_size == g_rank ? n : 0);
    int rc = what == 0 ? ovk__amg_coarse_make(MPI_COMM_WORLD, m, ptr, col, val, &c)
                       : ovk__amg_transfer_make(MPI_COMM_WORLD, &p, 0, &t);
    *count = ovk__alloc_fault_count();
    *fired = ovk__alloc_fault_fired(NULL, NULL);
    ovk__alloc_fault_arm(0);
    MT_CHECK(rc ? !c && !t : c || t, "%s make: status %s with%s an object", what ? "transfer" : "coarse",
             ovk_status_name(rc), c || t ? "" : "out");
    ovk__amg_coarse_free(c);
    ovk__amg_transfer_free(t);
    if (what == 0) free(ptr), free(col), free(val);
    else free_buf(&b);
    return rc;
}

static void fault_case(int what)
{
    long count = 0;
    int bad = mt_alloc_sweep(make_failing, what, &count);
    MT_CHECK(bad == 0, "%s make: %d of %ld failing allocations without the same status on every rank", what ? "transfer" : "coarse",
             bad, count);
    if (g_rank == 0)
        printf("%s make: each of its %ld allocations failing on one rank gives OVK_ENOMEM on every rank\n",
               what ? "transfer" : "coarse", count);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    transfer_case(40, 13, 1);
    transfer_case(40, 13, 0);
    transfer_case(9, 2, 0);
    coarse_case(11, 0);
    coarse_case(11, 1);
    coarse_case(11, 2);
    fault_case(0);
    fault_case(1);
    int rc = mt_finish("test_amg_transfer");
    MPI_Finalize();
    return rc;
}
