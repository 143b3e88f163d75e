/* The storage forms and halo modes of y = A x:
 *   - every value form the packing can pick (double, float, one-byte
 *     dictionary) gives bitwise the product of the plain double values, on
 *     the 7- and 27-point Laplacians, every shared matrix, blocks with a
 *     non-symmetric pattern (16-bit offsets and int columns), empty rows
 *     and, at 3 ranks or more, a rank that owns no rows;
 *   - the products agree with a plain CSR loop over the input rows (to
 *     rounding: the summation order differs);
 *   - the packing picks the smallest exact form (dictionary for few
 *     distinct values, float when all are floats, else double);
 *   - the halo modes isend, persistent and neighbor give bitwise the same
 *     product, also after switching back and forth;
 *   - ovk__matvec_dot gives bitwise ovk__matvec's y and <x, y> to rounding
 *     (bitwise ovk__dot's on one rank, where there is no offd block);
 *   - runs of one repeated row give bitwise the product of the same block
 *     without them, in every value form and with the progress hook cutting
 *     runs into pieces shorter than a block; they are found on the
 *     Laplacians and on a pattern of runs of every length around the block
 *     size (shared rows repeated far apart, empty rows, int columns), and
 *     follow the values through ovk_matrix_update_values. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/matrix.h"
#include "mpitest.h"
#include "problem.h"

#ifndef OVK_MATRIX_DIR
#define OVK_MATRIX_DIR "../shared/data/matrices"
#endif

/* the 7- or 27-point Laplacian on a g^3 grid */
static void make_laplace(tp_rows *r, int stencil, int g)
{
    tp_rows_alloc(r, (ovk_gidx)g * g * g, 27);
    for (int i = 0; i < r->count; i++) {
        int64_t row = r->start + i, x = row % g, y = (row / g) % g, z = row / ((int64_t)g * g);
        int len = r->ptr[i];
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int64_t a = x + dx, b = y + dy, c = z + dz;
                    if (a < 0 || b < 0 || c < 0 || a >= g || b >= g || c >= g) continue;
                    if (stencil == 7 && abs(dx) + abs(dy) + abs(dz) > 1) continue;
                    r->col[len] = a + g * (b + (int64_t)g * c);
                    r->val[len++] = (dx | dy | dz) ? -1.0 : (stencil == 7 ? 6.0 : 26.0);
                }
        r->ptr[i + 1] = len;
    }
}

/* A value of entry (i, j) of kind: 0 few distinct (with -0.0 and +0.0),
 * 1 floats (more than 256 distinct), 2 doubles. */
static double value_of(int kind, ovk_gidx i, ovk_gidx j)
{
    static const double few[] = {1.5, -0.0, 0.0, -2.25, 3.0, 1e-300};
    uint64_t h = (uint64_t)i * 1000003u + (uint64_t)j;
    if (kind == 0) return few[h % 6];
    if (kind == 1) return (double)(int)(h % 5003) / 64.0 - 30.0;
    return tp_value(h);
}

/* A non-symmetric pattern: a band of random width, every 7th row empty,
 * and (wide = 1) a far column in every 50th row, which rules out the
 * 16-bit offsets.  The diagonal is present in most rows only. */
static void make_nonsym(tp_rows *r, ovk_gidx n, int kind, int wide)
{
    tp_rows_alloc(r, n, 8);
    for (int i = 0; i < r->count; i++) {
        ovk_gidx row = r->start + i;
        int len = r->ptr[i];
        if (row % 7 != 3) {
            for (int d = -3; d <= 3; d++) {
                ovk_gidx c = row + d;
                uint64_t h = (uint64_t)row * 31u + (uint64_t)(d + 3);
                if (c < 0 || c >= n || (d != 0 && h % 3 == 0) || (d == 0 && row % 11 == 5)) continue;
                r->col[len] = c;
                r->val[len++] = value_of(kind, row, c);
            }
            if (wide && row % 50 == 0) {
                ovk_gidx c = (row + n / 2 + 1) % n;
                r->col[len] = c;
                r->val[len++] = value_of(kind, row, c);
            }
        }
        r->ptr[i + 1] = len;
    }
}

/* this rank's rows of a shared matrix (1 when it is missing) */
static int make_shared(tp_rows *r, const char *name)
{
    char path[512];
    int rank, size, got;
    ovk_gidx n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(path, sizeof path, "%s/%s", OVK_MATRIX_DIR, name);
    memset(r, 0, sizeof *r);
    int *p0 = NULL;
    ovk_gidx *c0 = NULL;
    double *v0 = NULL;
    if (ovk_mm_read_rows(path, 0, 0, &n, &got, &p0, &c0, &v0)) return 1;
    free(p0);
    free(c0);
    free(v0);
    r->n = n;
    tp_split(n, rank, size, &r->start, &r->count);
    MT_RC(OVK_OK, ovk_mm_read_rows(path, r->start, r->count, &n, &got, &r->ptr, &r->col, &r->val));
    return 0;
}

/* y = A x by the plain CSR loop over the input rows, x gathered */
static void reference(const tp_rows *r, const double *x, double *y, double *scale)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *cnt = malloc(sizeof(int) * (size_t)size), *dsp = malloc(sizeof(int) * (size_t)size);
    double *xg = malloc(sizeof(double) * (size_t)(r->n + 1));
    MPI_Allgather(&r->count, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
    dsp[0] = 0;
    for (int k = 1; k < size; k++) dsp[k] = dsp[k - 1] + cnt[k - 1];
    MPI_Allgatherv(x, r->count, MPI_DOUBLE, xg, cnt, dsp, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int i = 0; i < r->count; i++) {
        double s = 0.0, a = 0.0;
        for (int k = r->ptr[i]; k < r->ptr[i + 1]; k++) {
            s += r->val[k] * xg[r->col[k]];
            a += fabs(r->val[k] * xg[r->col[k]]);
        }
        y[i] = s;
        scale[i] = a;
    }
    free(cnt);
    free(dsp);
    free(xg);
}

static const char *form_name(int f) { return f == OVK__VAL_DICT8 ? "dict8" : f == OVK__VAL_FLOAT ? "float" : "double"; }

static int same_bits(const double *a, const double *b, int n)
{
    return n == 0 || !memcmp(a, b, sizeof(double) * (size_t)n);
}

/* Runs of every length from 1 to 33 rows, each one of five rows (three
 * sharing offsets but not values, one empty), so the same shared row recurs
 * far apart; wide = 1 adds a far column to every row of one kind, which
 * rules out the 16-bit offsets.  Non-symmetric. */
static void make_runs(tp_rows *r, ovk_gidx n, int wide)
{
    tp_rows_alloc(r, n, 8);
    ovk_gidx row = 0;
    int len = 0;
    for (int group = 0; row < r->start + r->count; group++) {
        int kind = group % 5, glen = 1 + (group * 7) % 33;
        for (int g = 0; g < glen && row < n; g++, row++) {
            if (row < r->start || row >= r->start + r->count) continue;
            int i = (int)(row - r->start);
            static const int offs[5][4] = {{0, -2, 1, 3}, {0, -2, 1, 3}, {0, -1, 2, 5}, {0, 1, 0, 0}, {0, 0, 0, 0}};
            static const int cnt[5] = {4, 4, 4, 2, 0};
            for (int k = 0; k < cnt[kind]; k++) {
                ovk_gidx c = row + offs[kind][k];
                if (c < 0 || c >= n) continue;
                r->col[len] = c;
                r->val[len++] = kind == 1 ? 2.0 * (k + 1) : 1.0 + 0.5 * k;
            }
            if (wide && kind == 2) {
                r->col[len] = (row + n / 2) % n;
                r->val[len++] = -0.25;
            }
            r->ptr[i + 1] = len;
        }
    }
}

static void no_op(void *arg) { (void)arg; }

/* the product without the runs is bitwise the product with them, whole and
 * in hook chunks that cut runs short; the runs are found again after
 * (collective: on the ranks without runs, the same product three times) */
static void check_runs(const char *name, ovk_matrix *A, const double *x, const double *y0, double *y)
{
    int n = ovk_matrix_nlocal(A);
    static const int every[] = {0, 7, 13, 40};
    /* every instruction set this CPU has, 8-row blocks only and wide ones first; then the default */
    for (int c = 0; c <= 2 * OVK__RUN_ISAS; c++) {
        int last = c == 2 * OVK__RUN_ISAS, wide = last || c % 2;
        int isa = ovk__run_set_kernels(last ? -1 : c / 2, wide);
        for (int e = 0; e < 4; e++) {
            ovk__hook h = {no_op, NULL, every[e]};
            MT_RC(OVK_OK, ovk__matvec(A, x, y, e ? &h : NULL));
            MT_CHECK(same_bits(y, y0, n), "%s: the runs give another product (kernels %d%s, hook every %d rows)",
                     name, isa, wide ? " wide" : "", every[e]);
        }
    }
    ovk__csr_drop_runs(&A->diag);
    MT_RC(OVK_OK, ovk__matvec(A, x, y, NULL));
    MT_CHECK(same_bits(y, y0, n), "%s: without its runs the block gives another product", name);
    MT_RC(OVK_OK, ovk__csr_find_runs(&A->diag));
}

/* the product with the far columns' 16-bit form (A's, when it has one) is
 * bitwise that of the int columns, whole and in hook chunks that start
 * between far columns (collective: every rank multiplies alike) */
static void check_far(const char *name, ovk_matrix *A, const double *x, const double *y0, double *y)
{
    int n = ovk_matrix_nlocal(A);
    static const int every[] = {0, 7, 50, 999};
    for (int e = 0; e < 4; e++) {
        ovk__hook h = {no_op, NULL, every[e]};
        MT_RC(OVK_OK, ovk__matvec(A, x, y, e ? &h : NULL));
        MT_CHECK(same_bits(y, y0, n), "%s: hook every %d rows gives another product", name, every[e]);
    }
    int had = A->diag.esc16 != NULL;
    ovk__csr_drop_far(&A->diag);
    MT_RC(OVK_OK, ovk__matvec(A, x, y, NULL));
    MT_CHECK(same_bits(y, y0, n), "%s: the int columns give another product than the 16-bit far form", name);
    MT_RC(OVK_OK, ovk__csr_pack_far(&A->diag));
    MT_CHECK(!had == !A->diag.esc16, "%s: the far form not found again", name);
}

/* A band of 15 entries per row and, in every 50th row of the first and
 * last 1,000 of the rank's 34,000, a column 33,000 away within the rank's
 * own block: the columns stay int, most of them fit 16 bits (the far
 * form). */
static void make_far(tp_rows *r)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ovk_gidx n = (ovk_gidx)34000 * size;
    tp_rows_alloc(r, n, 16);
    for (int i = 0; i < r->count; i++) {
        ovk_gidx row = r->start + i;
        int len = r->ptr[i];
        for (int d = -7; d <= 7; d++)
            if (row + d >= 0 && row + d < n) {
                r->col[len] = row + d;
                r->val[len++] = value_of(2, row, row + d);
            }
        if (row % 50 == 0 && (i < 1000 || i >= 33000)) {
            ovk_gidx c = i < 1000 ? row + 33000 : row - 33000;
            r->col[len] = c;
            r->val[len++] = value_of(2, row, c);
        }
        r->ptr[i + 1] = len;
    }
}

/* every value form, every halo mode, the fused dot on one matrix; want is
 * the form the packing must pick on every rank with entries (-1: any);
 * want_runs 1: the block must have runs on every rank with rows, 0: no
 * runs, -1: either */
static void check_matrix(const char *name, tp_rows *r, int want, int want_runs)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ovk_matrix *A = NULL;
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, r->start, r->count, r->ptr, r->col, r->val, OVK_DUP_SUM, &A);
    MT_RC(OVK_OK, rc);
    if (rc) return;
    int n = r->count, m = n > 0 ? n : 1;
    double *x = malloc(sizeof(double) * m), *y0 = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * m);
    double *yr = malloc(sizeof(double) * m), *sc = malloc(sizeof(double) * m);
    for (int i = 0; i < n; i++) x[i] = 1.0 + tp_value((uint64_t)(r->start + i));
    int picked = A->diag.vform, run_rows = A->diag.runs ? A->diag.runs->run_rows : 0;
    if (want >= 0 && A->diag.rowptr[n] > 0)
        MT_CHECK(picked == want, "%s: packed as %s, expected %s", name, form_name(picked), form_name(want));
    if (want_runs >= 0 && n > 0)
        MT_CHECK(!A->diag.runs == !want_runs, "%s: %s runs", name, A->diag.runs ? "unexpected" : "no");
    if (A->diag.runs) MT_CHECK(!A->diag.upper, "%s: runs in a block that keeps one triangle", name);
    int any_runs = A->diag.runs != NULL; /* the matvec is collective: every rank checks when one has runs */
    MPI_Allreduce(MPI_IN_PLACE, &any_runs, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    /* the plain double values: the reference of every form */
    MT_RC(OVK_OK, ovk__csr_pack_values(&A->diag, 1 << OVK__VAL_DOUBLE));
    MT_RC(OVK_OK, ovk__matvec(A, x, y0, NULL));
    reference(r, x, yr, sc);
    for (int i = 0; i < n; i++)
        if (!(fabs(y0[i] - yr[i]) <= 1e-14 * sc[i])) {
            MT_CHECK(0, "%s: row %d: %.17g vs the CSR loop's %.17g", name, i, y0[i], yr[i]);
            break;
        }
    static const int allow[] = {1 << OVK__VAL_DOUBLE | 1 << OVK__VAL_FLOAT, 1 << OVK__VAL_DICT8 | 1,
                                OVK__VAL_ALLOW_ALL};
    for (int a = 0; a < 3; a++) {
        MT_RC(OVK_OK, ovk__csr_pack_values(&A->diag, allow[a]));
        ovk__hook none = {NULL, NULL, 0};
        MT_RC(OVK_OK, ovk__matvec(A, x, y, a == 1 ? &none : NULL));
        MT_CHECK(same_bits(y, y0, n), "%s: %s values give another product", name, form_name(A->diag.vform));
        if (any_runs) check_runs(name, A, x, y0, y);
        check_far(name, A, x, y0, y);
    }
    static const ovk_halo_mode modes[] = {OVK_HALO_PERSISTENT, OVK_HALO_NEIGHBOR, OVK_HALO_ISEND,
                                          OVK_HALO_NEIGHBOR, OVK_HALO_PERSISTENT};
    for (int k = 0; k < 5; k++) {
        MT_RC(OVK_OK, ovk_matrix_set_halo(A, modes[k]));
        MT_CHECK(ovk_matrix_get_halo(A) == modes[k], "%s: halo mode %d not kept", name, (int)modes[k]);
        for (int rep = 0; rep < 2; rep++) { /* persistent requests are reused */
            memset(y, 0, sizeof(double) * m);
            MT_RC(OVK_OK, ovk__matvec(A, x, y, NULL));
            MT_CHECK(same_bits(y, y0, n), "%s: halo mode %d gives another product", name, (int)modes[k]);
        }
    }
    double xy = -1.0, ref = ovk__dot(n, x, y0), mag = 0.0;
    for (int i = 0; i < n; i++) mag += fabs(x[i] * y0[i]);
    MT_RC(OVK_OK, ovk__matvec_dot(A, x, y, &xy, &(ovk__hook){NULL, NULL, 0}));
    MT_CHECK(same_bits(y, y0, n), "%s: ovk__matvec_dot gives another product", name);
    /* the two sums differ in order only: within the bound of n additions */
    MT_CHECK(fabs(xy - ref) <= 2.0 * DBL_EPSILON * (n + 1) * mag, "%s: <x,Ax> %.17g vs %.17g", name, xy, ref);
    if (A->ncols_offd == 0) MT_CHECK(xy == ref, "%s: without offd <x,Ax> %.17g != ovk__dot's %.17g", name, xy, ref);
    MT_RC(OVK_OK, ovk_matrix_set_halo(A, OVK_HALO_ISEND));
    MT_CHECK(ovk_matrix_set_halo(A, (ovk_halo_mode)7) == OVK_EINVAL, "%s: mode 7 accepted", name);
    if (rank == 0)
        printf("%-22s packed %-6s, %d of %d rows in runs on rank 0: forms, halo modes and <x,Ax> agree\n", name,
               form_name(picked), run_rows, n);
    free(x);
    free(y0);
    free(y);
    free(yr);
    free(sc);
    ovk_matrix_destroy(A);
}

/* The runs follow the values: r's matrix (non-symmetric: both triangles
 * kept on every rank) updated to values that repeat in no run (a hash of
 * the entry) gives bitwise the product of a matrix made with them, and back
 * to r's values the same runs and r's product again. */
static void check_update(const tp_rows *r)
{
    int n = (int)r->count, m = n > 0 ? n : 1, nnz = r->ptr[n];
    double *v = malloc(sizeof(double) * (size_t)(nnz + 1)), *x = malloc(sizeof(double) * m);
    double *y0 = malloc(sizeof(double) * m), *y1 = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * m);
    for (int i = 0; i < n; i++) {
        x[i] = 1.0 + tp_value((uint64_t)(r->start + i));
        for (int k = r->ptr[i]; k < r->ptr[i + 1]; k++)
            v[k] = r->val[k] + tp_value((uint64_t)(r->start + i) * 7919u + (uint64_t)r->col[k]);
    }
    ovk_matrix *A = NULL, *B = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, r->start, n, r->ptr, r->col, r->val, OVK_DUP_SUM, &A));
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, r->start, n, r->ptr, r->col, v, OVK_DUP_SUM, &B));
    if (A && B) {
        int had = A->diag.runs ? A->diag.runs->run_rows : 0;
        MT_RC(OVK_OK, ovk__matvec(A, x, y0, NULL));
        MT_RC(OVK_OK, ovk__matvec(B, x, y1, NULL));
        MT_RC(OVK_OK, ovk_matrix_update_values(A, r->ptr, r->col, v, OVK_DUP_SUM));
        MT_CHECK(!A->diag.runs, "update: runs kept for values that repeat in none");
        MT_RC(OVK_OK, ovk__matvec(A, x, y, NULL));
        MT_CHECK(same_bits(y, y1, n), "update: another product than a matrix made with the new values");
        MT_RC(OVK_OK, ovk_matrix_update_values(A, r->ptr, r->col, r->val, OVK_DUP_SUM));
        MT_CHECK((A->diag.runs ? A->diag.runs->run_rows : 0) == had, "update: not the same runs again");
        MT_RC(OVK_OK, ovk__matvec(A, x, y, NULL));
        MT_CHECK(same_bits(y, y0, n), "update: back to the first values, another product");
    }
    ovk_matrix_destroy(A);
    ovk_matrix_destroy(B);
    free(v);
    free(x);
    free(y0);
    free(y1);
    free(y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    static const char *shared[] = {"LFAT5.mtx",   "bcsstk02.mtx", "pts5ldd03.mtx", "494_bus.mtx",  "gr_30_30.mtx",
                                   "nos3.mtx",    "bcsstk09.mtx", "1138_bus.mtx",  "lap2D_5pt_n100.mtx",
                                   "bcsstk03.mtx", "plat362.mtx", "685_bus.mtx",   "bcsstk08.mtx", "bcsstk14.mtx",
                                   "bcsstk13.mtx", "bcsstk25.mtx", "lap3D_7pt_n20.mtx"};
    tp_rows r;
    make_laplace(&r, 27, 12);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int lap_runs = size <= 4 ? 1 : -1; /* beyond, some ranks hold too few whole grid lines */
    check_matrix("laplace27 g=12", &r, OVK__VAL_DICT8, lap_runs);
    tp_rows_free(&r);
    make_laplace(&r, 7, 15);
    check_matrix("laplace7 g=15", &r, OVK__VAL_DICT8, lap_runs);
    tp_rows_free(&r);
    make_laplace(&r, 27, 7); /* runs of 5 rows: shorter than OVK__RUN_MIN */
    check_matrix("laplace27 g=7", &r, OVK__VAL_DICT8, 0);
    tp_rows_free(&r);
    make_runs(&r, 5003, 0);
    check_matrix("runs", &r, OVK__VAL_DICT8, lap_runs);
    check_update(&r);
    tp_rows_free(&r);
    make_runs(&r, 70001, 1);
    check_matrix("runs wide", &r, OVK__VAL_DICT8, -1);
    tp_rows_free(&r);
    make_far(&r);
    check_matrix("far columns", &r, OVK__VAL_DOUBLE, 0);
    {
        ovk_matrix *F = NULL;
        MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, r.start, r.count, r.ptr, r.col, r.val, OVK_DUP_SUM, &F));
        int nfar = 0, any; /* columns of the rank's own block too far for 16 bits */
        for (int i = 0; i < r.count; i++)
            for (int k = r.ptr[i]; k < r.ptr[i + 1]; k++)
                nfar += r.col[k] >= r.start && r.col[k] < r.start + r.count && llabs(r.col[k] - r.start - i) > 32767;
        MT_CHECK(F && !F->diag.esc16 == !nfar && (!nfar || F->diag.far_ptr[r.count] == nfar),
                 "far columns: %d far columns in the 16-bit far form, not %d", F && F->diag.esc16 ? F->diag.far_ptr[r.count] : -1, nfar);
        MPI_Allreduce(&nfar, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MT_CHECK(any > 0, "far columns: no rank has a far column");
        ovk_matrix_destroy(F);
    }
    tp_rows_free(&r);
    static const char *kinds[] = {"few", "float", "double"};
    for (int kind = 0; kind < 3; kind++)
        for (int wide = 0; wide < 2; wide++) {
            char name[64];
            snprintf(name, sizeof name, "nonsym %s%s", kinds[kind], wide ? " wide" : "");
            make_nonsym(&r, wide ? 70001 : 5003, kind, wide);
            check_matrix(name, &r, kind == 0 ? OVK__VAL_DICT8 : kind == 1 ? OVK__VAL_FLOAT : OVK__VAL_DOUBLE, 0);
            tp_rows_free(&r);
        }
    int missing = 0;
    for (size_t k = 0; k < sizeof shared / sizeof *shared; k++) {
        if (make_shared(&r, shared[k])) {
            missing++;
            continue;
        }
        check_matrix(shared[k], &r, -1, -1);
        tp_rows_free(&r);
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (missing && rank == 0) printf("%d shared matrices not found under %s\n", missing, OVK_MATRIX_DIR);
    int rc = mt_finish("test_matvec_forms");
    MPI_Finalize();
    return rc;
}
