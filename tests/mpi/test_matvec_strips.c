/* Strips (rows with one offset pattern and their own values, ovk__strips):
 *   - the product with strips is bitwise the product of the same block
 *     without them (the plain row kernels), with every instruction set
 *     this CPU has and hook chunks that cut
 *     strips inside a block; ovk__matvec_dot gives the same y and <x, y>
 *     bit for bit, and the multi-vector product each single product;
 *   - they are found on a 7-point convection-diffusion grid whose
 *     coefficients vary row by row (with runs where they do not: rows in
 *     runs stay in runs) and on strips of every length around the block
 *     size (odd lengths, shorter than a block, between empty rows), for
 *     values in a dictionary only (a copy of double values measured slower);
 *   - with runs and no strips, the rows between runs read from their
 *     compact copy give the same bits;
 *   - they follow the values through ovk_matrix_update_values.
 * Rows split by tp_split: the last rank owns none from 3 ranks on. */
#include <stdlib.h>
#include <string.h>

#include "matrix/matrix.h"
#include "mpitest.h"
#include "problem.h"

/* a value of entry (i, j): few = 1 one of a dozen (a dictionary), else any double */
static double value_of(int few, int64_t i, int64_t j, int salt)
{
    uint64_t h = (uint64_t)i * 1000003u + (uint64_t)j * 7919u + (uint64_t)salt;
    if (few) return (double)(int)(h % 12) * 0.75 - 4.0;
    return tp_value(h);
}

/* -laplace + convection on a g^3 grid, 7 points: the coefficients of a
 * row vary with the row (few or any values), except below z = 3 g / 4 where
 * every interior row is the same (runs: most rows) */
static void make_convdiff(tp_rows *r, int g, int few, int salt)
{
    tp_rows_alloc(r, (int64_t)g * g * g, 7);
    static const int d[7][3] = {{0, 0, 0}, {0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int i = 0; i < r->count; i++) {
        int64_t row = r->start + i, x = row % g, y = (row / g) % g, z = row / ((int64_t)g * g);
        int len = r->ptr[i];
        for (int k = 0; k < 7; k++) {
            int64_t a = x + d[k][0], b = y + d[k][1], c = z + d[k][2];
            if (a < 0 || b < 0 || c < 0 || a >= g || b >= g || c >= g) continue;
            r->col[len] = a + g * (b + (int64_t)g * c);
            r->val[len++] = z < 3 * g / 4 ? (k ? -1.0 - 0.25 * k : 8.0) : value_of(few, row, k, salt);
        }
        r->ptr[i + 1] = len;
    }
}

/* groups of 1 to 41 rows, each of one of four offset lists (the last
 * empty), values of each row its own: strips of every length around the
 * block size, at every alignment */
static void make_lengths(tp_rows *r, int64_t n, int few)
{
    static const int offs[4][5] = {{0, -1, 1, -5, 9}, {0, 2, -3, 0, 0}, {0, -1, 1, -5, 9}, {0}};
    static const int cnt[4] = {5, 3, 4, 0}; /* kinds 0 and 2: one list, cut short in 2 */
    tp_rows_alloc(r, n, 5);
    int64_t row = 0;
    for (int group = 0; row < r->start + r->count; group++) {
        int kind = group % 4, glen = 1 + (group * 5) % 41;
        for (int q = 0; q < glen && row < n; q++, row++) {
            if (row < r->start || row >= r->start + r->count) continue;
            int i = (int)(row - r->start), len = r->ptr[i];
            for (int k = 0; k < cnt[kind]; k++)
                if (row + offs[kind][k] >= 0 && row + offs[kind][k] < n) {
                    r->col[len] = row + offs[kind][k];
                    r->val[len++] = value_of(few, row, k, 0);
                }
            r->ptr[i + 1] = len;
        }
    }
}

static int same_bits(const double *a, const double *b, int n) { return n == 0 || !memcmp(a, b, sizeof(double) * (size_t)n); }

static void no_op(void *arg) { (void)arg; }

/* the strips' products against y0 and xy0, the plain rows' (collective) */
static void check_kernels(const char *name, ovk_matrix *A, const double *x, const double *y0, double xy0, double *y)
{
    int n = ovk_matrix_nlocal(A);
    static const int every[] = {0, 7, 13, 40};
    for (int isa = 0; isa <= OVK__RUN_ISAS; isa++) { /* each instruction set, then the default */
        int got = ovk__strip_set_kernels(isa < OVK__RUN_ISAS ? isa : -1);
        for (int e = 0; e < 4; e++) {
            ovk__hook h = {no_op, NULL, every[e]};
            MT_RC(OVK_OK, ovk__matvec(A, x, y, e ? &h : NULL));
            MT_CHECK(same_bits(y, y0, n), "%s: strips give another product (kernels %d, hook every %d rows)", name,
                     got, every[e]);
        }
    }
    double xy = 0.0;
    MT_RC(OVK_OK, ovk__matvec_dot(A, x, y, &xy, NULL));
    MT_CHECK(same_bits(y, y0, n) && same_bits(&xy, &xy0, 1), "%s: ovk__matvec_dot: another y or <x,y>", name);
}

/* X[j] = x scaled; each product of the multi-vector product bitwise the
 * single one (collective) */
static void check_multi(const char *name, ovk_matrix *A, const double *x)
{
    int n = ovk_matrix_nlocal(A), m = n > 0 ? n : 1;
    enum { K = 3 };
    double *X[K], *Y[K], *y = malloc(sizeof(double) * m), xy[K];
    for (int j = 0; j < K; j++) {
        X[j] = malloc(sizeof(double) * m);
        Y[j] = malloc(sizeof(double) * m);
        for (int i = 0; i < n; i++) X[j][i] = x[i] * (j + 1) - j;
    }
    MT_RC(OVK_OK, ovk__matvec_multi(A, K, (const double *const *)X, Y, xy, NULL));
    for (int j = 0; j < K; j++) {
        MT_RC(OVK_OK, ovk__matvec(A, X[j], y, NULL));
        MT_CHECK(same_bits(y, Y[j], n), "%s: product %d of the multi-vector product differs", name, j);
        free(X[j]);
        free(Y[j]);
    }
    free(y);
}

/* packed as double, then as the library picks: the product with strips
 * against the block without them; want_strips: some rank must have strips
 * in the second (values in a dictionary; never for others) */
static void check_matrix(const char *name, const tp_rows *r, int want_strips)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ovk_matrix *A = NULL;
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, r->start, r->count, r->ptr, r->col, r->val, OVK_DUP_REJECT, &A);
    MT_RC(OVK_OK, rc);
    if (rc) return;
    int n = r->count, m = n > 0 ? n : 1, rows_in = 0;
    double *x = malloc(sizeof(double) * m), *y0 = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * m);
    for (int i = 0; i < n; i++) x[i] = 1.0 + tp_value((uint64_t)(r->start + i) + 17u);
    static const int allow[] = {1 << OVK__VAL_DOUBLE, OVK__VAL_ALLOW_ALL};
    for (int a = 0; a < 2; a++) {
        MT_RC(OVK_OK, ovk__csr_pack_values(&A->diag, allow[a]));
        const ovk__strips *t = A->diag.strips;
        int any = t != NULL;
        MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (want_strips && a == 1) MT_CHECK(any, "%s: no strips on any rank", name);
        if (A->diag.vform != OVK__VAL_DICT8)
            MT_CHECK(!t || t->nseg == 0, "%s: strips for values not in a dictionary", name);
        int gaps = t && t->gap_ptr, runs = A->diag.runs != NULL;
        MT_CHECK(gaps == (runs && (!t || t->nseg == 0)), "%s: %s compact copy of the rows between runs", name,
                 gaps ? "a" : "no");
        rows_in = t ? t->rows : 0;
        for (int s = 0; t && s < t->nseg; s++) /* rows of runs stay in runs */
            for (int q = 0; A->diag.runs && q < A->diag.runs->nseg; q++)
                MT_CHECK(A->diag.runs->seg_pat[q] < 0 || A->diag.runs->seg_start[q + 1] <= t->seg_lo[s] ||
                             A->diag.runs->seg_start[q] >= t->seg_hi[s],
                         "%s: strip %d overlaps run segment %d", name, s, q);
        double xy0 = 0.0;
        ovk__csr_drop_strips(&A->diag);
        MT_RC(OVK_OK, ovk__matvec_dot(A, x, y0, &xy0, NULL));
        MT_RC(OVK_OK, ovk__csr_find_strips(&A->diag));
        MT_CHECK((A->diag.strips ? A->diag.strips->rows : 0) == rows_in, "%s: other strips found again", name);
        check_kernels(name, A, x, y0, xy0, y);
        check_multi(name, A, x);
    }
    if (rank == 0) printf("%-26s %d of %d rows in strips on rank 0 (%s values): bitwise the plain rows'\n", name,
                          rows_in, n, A->diag.vform == OVK__VAL_DICT8 ? "dict8" : "double");
    ovk_matrix_destroy(A);
    free(x);
    free(y0);
    free(y);
}

/* c: a's pattern, the value of each entry that of its offset from the row */
static void make_laplace_like(tp_rows *c, const tp_rows *a)
{
    int nnz = a->ptr[a->count];
    *c = *a;
    c->ptr = malloc(sizeof(int) * ((size_t)a->count + 1));
    c->col = malloc(sizeof(ovk_gidx) * ((size_t)nnz + 1));
    c->val = malloc(sizeof(double) * ((size_t)nnz + 1));
    memcpy(c->ptr, a->ptr, sizeof(int) * ((size_t)a->count + 1));
    memcpy(c->col, a->col, sizeof(ovk_gidx) * (size_t)nnz);
    for (int i = 0; i < a->count; i++)
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++) {
            int64_t off = a->col[k] - (a->start + i);
            c->val[k] = off ? -1.0 - (double)(off % 7) * 0.125 : 8.0;
        }
}

/* the strips follow the values: updated to other varying values, bitwise
 * the product of a matrix made with them; to values the same in every row
 * (runs), no strips where the runs are */
static void check_update(int g)
{
    tp_rows a, b, c;
    make_convdiff(&a, g, 0, 0);
    make_convdiff(&b, g, 1, 5);
    make_laplace_like(&c, &a);
    int n = a.count, m = n > 0 ? n : 1;
    double *x = malloc(sizeof(double) * m), *y0 = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * m);
    for (int i = 0; i < n; i++) x[i] = 1.0 + tp_value((uint64_t)(a.start + i));
    ovk_matrix *A = NULL, *B = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, a.start, n, a.ptr, a.col, a.val, OVK_DUP_REJECT, &A));
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, b.start, n, b.ptr, b.col, b.val, OVK_DUP_REJECT, &B));
    if (A && B) {
        MT_RC(OVK_OK, ovk_matrix_update_values(A, b.ptr, b.col, b.val, OVK_DUP_REJECT));
        int any = A->diag.strips && A->diag.vform == OVK__VAL_DICT8 && A->diag.strips->tidx;
        MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MT_CHECK(any, "update: no dictionary strips for the new values on any rank");
        MT_RC(OVK_OK, ovk__matvec(A, x, y, NULL));
        MT_RC(OVK_OK, ovk__matvec(B, x, y0, NULL));
        MT_CHECK(same_bits(y, y0, n), "update: another product than a matrix made with the new values");
        MT_RC(OVK_OK, ovk_matrix_update_values(A, c.ptr, c.col, c.val, OVK_DUP_REJECT));
        int left = A->diag.strips ? A->diag.strips->rows : 0;
        MT_CHECK(left < OVK__STRIP_ROWS * g, "update: %d rows left in strips with one row everywhere", left);
        MT_CHECK(!n || A->diag.runs, "update: no runs with one row everywhere");
    }
    ovk_matrix_destroy(A);
    ovk_matrix_destroy(B);
    tp_rows_free(&a);
    tp_rows_free(&b);
    tp_rows_free(&c);
    free(x);
    free(y0);
    free(y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tp_rows r;
    for (int few = 0; few < 2; few++) { /* strips for dictionary values only */
        make_convdiff(&r, 20, few, 0);
        check_matrix(few ? "convdiff g=20, few values" : "convdiff g=20", &r, few);
        tp_rows_free(&r);
        make_lengths(&r, 4001, few);
        check_matrix(few ? "lengths 1..41, few values" : "lengths 1..41", &r, few);
        tp_rows_free(&r);
    }
    {
        tp_rows c; /* one row everywhere: runs, the rows between them in their compact copy */
        make_convdiff(&r, 20, 0, 0);
        make_laplace_like(&c, &r);
        check_matrix("constant g=20 (gaps)", &c, 0);
        tp_rows_free(&c);
        tp_rows_free(&r);
    }
    make_convdiff(&r, 5, 0, 0); /* lines of 5 rows: no strip */
    check_matrix("convdiff g=5", &r, 0);
    tp_rows_free(&r);
    check_update(20);
    int rc = mt_finish("test_matvec_strips");
    MPI_Finalize();
    return rc;
}
