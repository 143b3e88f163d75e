/* Unit tests of the Matrix Market parser (ovk_mm_read_rows).
 *
 * Every case writes its file to a temporary file (mkstemp) so that the test
 * needs nothing but itself; the real matrices in OVK_MATRIX_DIR are read too
 * when that directory exists. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ovkrylov/ovkrylov.h"

/* ---- helpers ---------------------------------------------------------- */

typedef struct csr {
    ovk_gidx n;
    int nlocal;
    int *rowptr;
    ovk_gidx *cols;
    double *vals;
} csr;

static void csr_free(csr *m)
{
    free(m->rowptr);
    free(m->cols);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* Write text to a fresh temporary file; the caller unlinks and frees the name. */
static char *write_tmp(const char *text)
{
    char *path = strdup("/tmp/ovk_test_mmread_XXXXXX");
    assert_non_null(path);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t len = strlen(text);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    assert_int_equal(close(fd), 0);
    return path;
}

static int read_text(const char *text, ovk_gidx row_start, int nlocal, csr *m)
{
    char *path = write_tmp(text);
    memset(m, 0, sizeof *m);
    int rc = ovk_mm_read_rows(path, row_start, nlocal, &m->n, &m->nlocal, &m->rowptr, &m->cols,
                              &m->vals);
    unlink(path);
    free(path);
    return rc;
}

/* The whole matrix must equal the n x n row-major `dense` (zeros = absent). */
static void expect_dense(const char *text, int n, const double *dense)
{
    csr m;
    int rc = read_text(text, 0, -1, &m);
    if (rc) fail_msg("rc %d: %s", rc, ovk_error_detail());
    assert_int_equal(m.n, n);
    assert_int_equal(m.nlocal, n);
    assert_int_equal(m.rowptr[0], 0);
    int nnz = 0;
    for (int i = 0; i < n * n; i++) nnz += dense[i] != 0.0;
    assert_int_equal(m.rowptr[n], nnz);
    for (int i = 0; i < n; i++)
        for (int k = m.rowptr[i]; k < m.rowptr[i + 1]; k++) {
            if (k > m.rowptr[i]) assert_true(m.cols[k] > m.cols[k - 1]); /* sorted, unique */
            assert_true(m.cols[k] >= 0 && m.cols[k] < n);
            assert_true(m.vals[k] == dense[i * n + m.cols[k]]);
        }
    csr_free(&m);
}

/* Parsing text must fail with `code` and a detail containing `needle`. */
static void expect_error(const char *text, int code, const char *needle)
{
    csr m;
    int rc = read_text(text, 0, -1, &m);
    if (rc != code)
        fail_msg("expected %s, got %s (%s)", ovk_status_name(code), ovk_status_name(rc),
                 ovk_error_detail());
    assert_null(m.rowptr);
    assert_null(m.cols);
    assert_null(m.vals);
    if (needle && !strstr(ovk_error_detail(), needle))
        fail_msg("detail '%s' lacks '%s'", ovk_error_detail(), needle);
}

#define SYM "%%MatrixMarket matrix coordinate real symmetric\n"
#define GEN "%%MatrixMarket matrix coordinate real general\n"

/* ---- valid files ---------------------------------------------------------- */

static void test_symmetric_lower(void **state)
{
    (void)state;
    const double d[] = {4, -1, 0, -1, 4, -.5, 0, -.5, 2.5};
    expect_dense(SYM "% comment\n%\n3 3 5\n1 1 4\n2 1 -1\n2 2 4.0\n3 2 -.5\n3 3 2.5e0\n", 3, d);
}

static void test_quirks(void **state)
{
    (void)state;
    /* CRLF, leading spaces and tabs, blank lines (also at the end), comments
     * between entries, case-insensitive keywords, exponent and sign forms */
    const double d[] = {100, .5, 0, .5, -0.05, 0, 0, 0, 3};
    expect_dense("%%MatrixMarket MATRIX Coordinate Real Symmetric\r\n"
                 "%comment\r\n\r\n"
                 "   3   3   4  \r\n"
                 "  1 1 1e2\r\n"
                 "\t2 1 +.5\r\n"
                 "% a comment among the entries\r\n"
                 "2 2 -.5E-1\r\n"
                 "3\t3\t3\r\n"
                 "\r\n\n  \n",
                 3, d);
}

static void test_no_final_newline(void **state)
{
    (void)state;
    const double d[] = {7};
    expect_dense(GEN "1 1 1\n1 1 7", 1, d);
}

static void test_general(void **state)
{
    (void)state;
    const double d[] = {2, 0, 1, 0, 3, 0, 5, 0, 4};
    expect_dense(GEN "3 3 5\n3 1 5\n1 1 2\n1 3 1\n2 2 3\n3 3 4\n", 3, d);
}

static void test_pattern(void **state)
{
    (void)state;
    const double d[] = {1, 1, 0, 1, 1, 1, 0, 1, 0};
    expect_dense("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 4\n1 1\n2 1\n3 2\n"
                 "2 2\n",
                 3, d);
}

static void test_integer(void **state)
{
    (void)state;
    const double d[] = {256, -64, -64, 256};
    expect_dense("%%MatrixMarket matrix coordinate integer general\n  2  2  4\n  1  1  256\n"
                 "  2  1  -64\n  1  2  -64\n  2  2  +256\n",
                 2, d);
}

static void test_upper_triangle_mirrored(void **state)
{
    (void)state;
    const double d[] = {1, 2, 3, 2, 5, 0, 3, 0, 6};
    expect_dense(SYM "3 3 5\n1 1 1\n1 2 2\n3 1 3\n2 2 5\n3 3 6\n", 3, d);
}

static void test_duplicates_summed(void **state)
{
    (void)state;
    /* (1,1) three times; (2,1) once in each triangle of a symmetric file,
     * which counts as a duplicate of the same entry */
    const double d[] = {6, 3, 3, 1};
    expect_dense(SYM "2 2 6\n1 1 1\n2 1 1\n1 1 2\n2 2 1\n1 2 2\n1 1 3\n", 2, d);
    const double g[] = {0, 2.5, 2.5, 0};
    expect_dense(GEN "2 2 3\n1 2 1\n2 1 2.5\n1 2 1.5\n", 2, g);
}

static void test_explicit_zero_kept(void **state)
{
    (void)state;
    csr m;
    assert_int_equal(read_text(GEN "2 2 3\n1 1 1\n1 2 0\n2 2 1\n", 0, -1, &m), OVK_OK);
    assert_int_equal(m.rowptr[2], 3);
    assert_int_equal(m.cols[1], 1);
    assert_true(m.vals[1] == 0.0);
    csr_free(&m);
}

/* Row blocks: the concatenation of the blocks is the whole matrix. */
static void test_row_blocks(void **state)
{
    (void)state;
    const char *text = SYM "4 4 7\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n4 3 -1\n4 4 4\n";
    csr m;
    assert_int_equal(read_text(text, 1, 2, &m), OVK_OK);
    assert_int_equal(m.n, 4);
    assert_int_equal(m.nlocal, 2);
    int rowptr[] = {0, 3, 6};
    ovk_gidx cols[] = {0, 1, 2, 1, 2, 3};
    double vals[] = {-1, 4, -1, -1, 4, -1};
    assert_memory_equal(m.rowptr, rowptr, sizeof rowptr);
    assert_memory_equal(m.cols, cols, sizeof cols);
    assert_memory_equal(m.vals, vals, sizeof vals);
    csr_free(&m);

    assert_int_equal(read_text(text, 3, -1, &m), OVK_OK); /* to the end */
    assert_int_equal(m.nlocal, 1);
    assert_int_equal(m.rowptr[1], 2);
    assert_int_equal(m.cols[0], 2);
    assert_int_equal(m.cols[1], 3);
    csr_free(&m);

    assert_int_equal(read_text(text, 4, 0, &m), OVK_OK); /* an empty block at the end */
    assert_int_equal(m.nlocal, 0);
    assert_int_equal(m.rowptr[0], 0);
    assert_non_null(m.cols);
    assert_non_null(m.vals);
    csr_free(&m);

    assert_int_equal(read_text(text, 4, -1, &m), OVK_OK);
    assert_int_equal(m.nlocal, 0);
    csr_free(&m);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    const char *text = GEN "2 2 1\n1 1 1\n";
    csr m;
    assert_int_equal(read_text(text, 1, 2, &m), OVK_EINVAL); /* past the end */
    assert_int_equal(read_text(text, 3, -1, &m), OVK_EINVAL);
    assert_int_equal(read_text(text, -1, 1, &m), OVK_EINVAL);
    assert_int_equal(ovk_mm_read_rows(NULL, 0, -1, &m.n, &m.nlocal, &m.rowptr, &m.cols, &m.vals),
                     OVK_EINVAL);
    assert_int_equal(ovk_mm_read_rows("x.mtx", 0, -1, &m.n, &m.nlocal, NULL, &m.cols, &m.vals),
                     OVK_EINVAL);
}

/* ---- malformed files ---------------------------------------------------- */

static void test_missing_file(void **state)
{
    (void)state;
    csr m;
    int rc = ovk_mm_read_rows("/nonexistent/dir/none.mtx", 0, -1, &m.n, &m.nlocal, &m.rowptr,
                              &m.cols, &m.vals);
    assert_int_equal(rc, OVK_EFILE);
    assert_non_null(strstr(ovk_error_detail(), "none.mtx"));
    /* a directory opens but cannot be read */
    rc = ovk_mm_read_rows("/tmp", 0, -1, &m.n, &m.nlocal, &m.rowptr, &m.cols, &m.vals);
    assert_int_equal(rc, OVK_EFILE);
}

static void test_bad_banner(void **state)
{
    (void)state;
    expect_error("", OVK_EFORMAT, "line 1");
    expect_error("\n", OVK_EFORMAT, "line 1");
    expect_error("3 3 1\n1 1 1\n", OVK_EFORMAT, "line 1");
    expect_error("%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n", OVK_EFORMAT,
                 "line 1");
    expect_error("%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", OVK_EFORMAT, "line 1");
    expect_error("%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n", OVK_EFORMAT,
                 "line 1");
    expect_error("%%MatrixMarket matrix sparse real general\n1 1 1\n1 1 1\n", OVK_EFORMAT,
                 "line 1");
    expect_error("%%MatrixMarket matrix coordinate real general extra\n1 1 1\n1 1 1\n",
                 OVK_EFORMAT, "line 1");
    expect_error("%%MatrixMarket matrix coordinate double general\n1 1 1\n1 1 1\n", OVK_EFORMAT,
                 "line 1");
    expect_error("%%MatrixMarket matrix coordinate real upper\n1 1 1\n1 1 1\n", OVK_EFORMAT,
                 "line 1");
}

/* A binary file (NUL bytes) is not Matrix Market. */
static void test_nul_byte(void **state)
{
    (void)state;
    static const char text[] = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1\0 1\n";
    char *path = write_tmp("");
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, sizeof text - 1, fp), sizeof text - 1);
    assert_int_equal(fclose(fp), 0);
    csr m;
    int rc = ovk_mm_read_rows(path, 0, -1, &m.n, &m.nlocal, &m.rowptr, &m.cols, &m.vals);
    unlink(path);
    free(path);
    assert_int_equal(rc, OVK_EFORMAT);
    assert_non_null(strstr(ovk_error_detail(), "NUL"));
}

/* Valid Matrix Market that the library cannot use: OVK_EUNSUPPORTED. */
static void test_unsupported(void **state)
{
    (void)state;
    expect_error("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
                 OVK_EUNSUPPORTED, "complex");
    expect_error("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n",
                 OVK_EUNSUPPORTED, "skew-symmetric");
    expect_error("%%MatrixMarket matrix coordinate complex hermitian\n1 1 1\n1 1 1 0\n",
                 OVK_EUNSUPPORTED, NULL);
    expect_error("%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n",
                 OVK_EUNSUPPORTED, "hermitian");
    expect_error("%%MatrixMarket matrix array real general\n1 1\n1\n", OVK_EUNSUPPORTED,
                 "array");
}

static void test_bad_size_line(void **state)
{
    (void)state;
    expect_error(GEN "% only comments\n\n", OVK_EFORMAT, "no size line");
    expect_error(GEN "3 3\n1 1 1\n", OVK_EFORMAT, "line 2");
    expect_error(GEN "% c\n3 3 x\n1 1 1\n", OVK_EFORMAT, "line 3");
    expect_error(GEN "3 3 1 7\n1 1 1\n", OVK_EFORMAT, "line 2");
    expect_error(GEN "3 3.0 1\n1 1 1\n", OVK_EFORMAT, "line 2");
    expect_error(GEN "-3 -3 1\n1 1 1\n", OVK_EFORMAT, "line 2");
    expect_error(GEN "3 3 -1\n", OVK_EFORMAT, "line 2");
    expect_error(GEN "99999999999999999999 99999999999999999999 1\n1 1 1\n", OVK_EFORMAT,
                 "line 2");
    expect_error(GEN "3 4 1\n1 1 1\n", OVK_EFORMAT, "square");
    expect_error(SYM "4 3 1\n1 1 1\n", OVK_EFORMAT, "line 2");
}

static void test_entry_count(void **state)
{
    (void)state;
    expect_error(SYM "3 3 3\n1 1 1\n2 2 1\n", OVK_EFORMAT, "truncated");
    expect_error(SYM "3 3 3\n1 1 1\n2 2 1\n", OVK_EFORMAT, "line 5");
    expect_error(SYM "3 3 3\n1 1 1\n2 2 1\n\n\n", OVK_EFORMAT, "2 of 3");
    expect_error(SYM "2 2 2\n1 1 1\n2 2 1\n2 1 1\n", OVK_EFORMAT, "line 5");
    expect_error(SYM "2 2 2\n1 1 1\n2 2 1\n2 1 1\n", OVK_EFORMAT, "more entries");
    expect_error(SYM "2 2 0\n1 1 1\n", OVK_EFORMAT, "line 3");
    /* a line cut in the middle */
    expect_error(SYM "2 2 2\n1 1 1\n2 2", OVK_EFORMAT, "line 4");
}

static void test_bad_indices(void **state)
{
    (void)state;
    expect_error(GEN "3 3 1\n0 1 1\n", OVK_EFORMAT, "line 3");
    expect_error(GEN "3 3 1\n1 0 1\n", OVK_EFORMAT, "column index 0");
    expect_error(GEN "3 3 2\n1 1 1\n4 1 1\n", OVK_EFORMAT, "line 4");
    expect_error(GEN "3 3 1\n1 4 1\n", OVK_EFORMAT, "outside [1, 3]");
    expect_error(GEN "3 3 1\n-1 1 1\n", OVK_EFORMAT, "line 3");
    expect_error(GEN "3 3 1\n99999999999999999999 1 1\n", OVK_EFORMAT, "line 3");
    expect_error(GEN "3 3 1\n1.0 1 1\n", OVK_EFORMAT, "row index");
    expect_error(GEN "3 3 1\nx 1 1\n", OVK_EFORMAT, "line 3");
    expect_error(GEN "3 3 1\n1\n", OVK_EFORMAT, "column index");
}

static void test_bad_values(void **state)
{
    (void)state;
    expect_error(GEN "2 2 1\n1 1 abc\n", OVK_EFORMAT, "line 3");
    expect_error(GEN "2 2 1\n1 1 1.0x\n", OVK_EFORMAT, "not a number");
    expect_error(GEN "2 2 1\n1 1\n", OVK_EFORMAT, "missing");
    expect_error(GEN "2 2 1\n1 1 1.0 2.0\n", OVK_EFORMAT, "extra text");
    expect_error(GEN "2 2 1\n1 1 --1\n", OVK_EFORMAT, "line 3");
    expect_error("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n",
                 OVK_EFORMAT, "integer");
    expect_error("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 "
                 "99999999999999999999\n",
                 OVK_EFORMAT, "overflows");
    expect_error("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n", OVK_EFORMAT,
                 "extra text");
}

static void test_nonfinite(void **state)
{
    (void)state;
    expect_error(GEN "2 2 2\n1 1 1\n2 2 nan\n", OVK_ENONFINITE, "line 4");
    expect_error(GEN "2 2 1\n1 1 NaN\n", OVK_ENONFINITE, "line 3");
    expect_error(GEN "2 2 1\n1 1 inf\n", OVK_ENONFINITE, "line 3");
    expect_error(GEN "2 2 1\n1 1 -Infinity\n", OVK_ENONFINITE, "line 3");
    expect_error(GEN "2 2 1\n1 1 1e999\n", OVK_ENONFINITE, "line 3");
    /* finite entries whose sum overflows */
    expect_error(GEN "2 2 2\n1 1 1e308\n1 1 1e308\n", OVK_ENONFINITE, "overflows");
}

/* A failure on a line is reported even when the line is outside the requested rows. */
static void test_errors_outside_block(void **state)
{
    (void)state;
    csr m;
    assert_int_equal(read_text(GEN "4 4 2\n1 1 1\n4 4 nan\n", 0, 1, &m), OVK_ENONFINITE);
    assert_int_equal(read_text(GEN "4 4 2\n1 1 1\n4 5 1\n", 0, 1, &m), OVK_EFORMAT);
}

/* ---- real files ------------------------------------------------------------ */

#ifdef OVK_MATRIX_DIR
static int matrix_dir_exists(void)
{
    struct stat st;
    return stat(OVK_MATRIX_DIR, &st) == 0 && S_ISDIR(st.st_mode);
}

static void read_real(const char *name, ovk_gidx row_start, int nlocal, csr *m)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", OVK_MATRIX_DIR, name);
    int rc = ovk_mm_read_rows(path, row_start, nlocal, &m->n, &m->nlocal, &m->rowptr, &m->cols,
                              &m->vals);
    if (rc) fail_msg("%s: %s: %s", name, ovk_strerror(rc), ovk_error_detail());
}
#endif

/* gr_30_30: the 9-point stencil on a 30 x 30 grid, 8 on the diagonal, -1 around. */
static void test_gr_30_30(void **state)
{
    (void)state;
#ifdef OVK_MATRIX_DIR
    if (!matrix_dir_exists()) skip();
    csr m;
    read_real("gr_30_30.mtx", 0, -1, &m);
    assert_int_equal(m.n, 900);
    assert_int_equal(m.rowptr[900], 7744);
    for (int i = 0; i < 900; i++) {
        int gx = i % 30, gy = i / 30, count = 0;
        for (int k = m.rowptr[i]; k < m.rowptr[i + 1]; k++) {
            int j = (int)m.cols[k], dx = j % 30 - gx, dy = j / 30 - gy;
            assert_true(dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1);
            assert_true(m.vals[k] == (j == i ? 8.0 : -1.0));
            count++;
        }
        int nx = 1 + (gx > 0) + (gx < 29), ny = 1 + (gy > 0) + (gy < 29);
        assert_int_equal(count, nx * ny);
    }
    csr_free(&m);
#else
    skip();
#endif
}

/* pts5ldd03: general storage, both triangles written, integer literals. */
static void test_pts5ldd03(void **state)
{
    (void)state;
#ifdef OVK_MATRIX_DIR
    if (!matrix_dir_exists()) skip();
    csr m, b;
    read_real("pts5ldd03.mtx", 0, -1, &m);
    assert_int_equal(m.n, 161);
    assert_int_equal(m.rowptr[161], 745);
    for (int i = 0; i < 161; i++) {
        int diag = 0;
        for (int k = m.rowptr[i]; k < m.rowptr[i + 1]; k++)
            if (m.cols[k] == i) diag = k + 1;
        assert_true(diag > 0);
        assert_true(m.vals[diag - 1] == 256.0);
    }
    /* blocks as three ranks would read them join into the whole matrix */
    int done = 0;
    for (int r = 0; r < 3; r++) {
        ovk_gidx lo = 161 * r / 3, hi = 161 * (r + 1) / 3;
        read_real("pts5ldd03.mtx", lo, (int)(hi - lo), &b);
        int base = m.rowptr[lo];
        for (int i = 0; i <= b.nlocal; i++) assert_int_equal(b.rowptr[i] + base, m.rowptr[lo + i]);
        assert_memory_equal(b.cols, m.cols + base, (size_t)b.rowptr[b.nlocal] * sizeof *b.cols);
        assert_memory_equal(b.vals, m.vals + base, (size_t)b.rowptr[b.nlocal] * sizeof *b.vals);
        done += b.nlocal;
        csr_free(&b);
    }
    assert_int_equal(done, 161);
    csr_free(&m);
#else
    skip();
#endif
}

/* The full nnz of every symmetric file listed in SOURCES.md. */
static void test_all_real_files(void **state)
{
    (void)state;
#ifdef OVK_MATRIX_DIR
    if (!matrix_dir_exists()) skip();
    static const struct {
        const char *name;
        long long n, nnz;
    } files[] = {
        {"LFAT5.mtx", 14, 46},           {"bcsstk02.mtx", 66, 4356},
        {"494_bus.mtx", 494, 1666},      {"nos3.mtx", 960, 15844},
        {"bcsstk09.mtx", 1083, 18437},   {"1138_bus.mtx", 1138, 4054},
        {"lap2D_5pt_n100.mtx", 10000, 49600}, {"bcsstk03.mtx", 112, 640},
        {"plat362.mtx", 362, 5786},      {"685_bus.mtx", 685, 3249},
        {"bcsstk08.mtx", 1074, 12960},   {"bcsstk14.mtx", 1806, 63454},
        {"bcsstk13.mtx", 2003, 83883},   {"bcsstk25.mtx", 15439, 252241},
        {"lap3D_7pt_n20.mtx", 8000, 53600},
    };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        csr m;
        read_real(files[f].name, 0, -1, &m);
        assert_int_equal(m.n, files[f].n);
        if (m.rowptr[m.n] != files[f].nnz)
            fail_msg("%s: nnz %d, expected %lld", files[f].name, m.rowptr[m.n], files[f].nnz);
        csr_free(&m);
    }
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symmetric_lower),
        cmocka_unit_test(test_quirks),
        cmocka_unit_test(test_no_final_newline),
        cmocka_unit_test(test_general),
        cmocka_unit_test(test_pattern),
        cmocka_unit_test(test_integer),
        cmocka_unit_test(test_upper_triangle_mirrored),
        cmocka_unit_test(test_duplicates_summed),
        cmocka_unit_test(test_explicit_zero_kept),
        cmocka_unit_test(test_row_blocks),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_bad_banner),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_unsupported),
        cmocka_unit_test(test_bad_size_line),
        cmocka_unit_test(test_entry_count),
        cmocka_unit_test(test_bad_indices),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_nonfinite),
        cmocka_unit_test(test_errors_outside_block),
        cmocka_unit_test(test_gr_30_30),
        cmocka_unit_test(test_pts5ldd03),
        cmocka_unit_test(test_all_real_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
