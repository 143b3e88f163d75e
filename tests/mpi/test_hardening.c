/* Bad input that must give a status, the same on every rank, instead of a
 * crash, a hang or memory the input does not justify:
 *   - ovk_matrix_create_csr with a negative rowptr[0], decreasing offsets,
 *     NULL cols or vals under nonzero entries, each on one rank only;
 *   - Matrix Market size lines declaring 2^31 - 1 (and 2^40, 2^62) rows with
 *     one entry: OVK_ENOMEM (or OVK_EUNSUPPORTED) at once, without the memory;
 *     with a stated budget (ovk__mem_cap), shares beyond it are OVK_ENOMEM
 *     and shares within it read;
 *   - 64-bit global ids past 2^31 and 2^32: rows read from a file of 2^33
 *     rows at those offsets (the matrix API needs the rows before them to
 *     exist, see docs/robustness.md), and 64-bit ids in create_csr's
 *     column and partition errors;
 *   - the API without a test so far: ovk_dot_init / ovk_dot_wait on every
 *     available backend, ovk_vector_copy, ovk_vector_scale,
 *     ovk_vector_duplicate. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "matrix/matrix_impl.h"
#include "mpitest.h"
#include "problem.h"

static int rank, nranks;

/* ---- create_csr argument checks ----------------------------------------- */

/* A tridiagonal matrix split by tp_split; the rank `bad` breaks its arrays
 * as `how` says.  Every rank must get `expect`. */
static void csr_case(const char *how, int bad, int expect)
{
    int64_t n = 24, start;
    int count;
    tp_split(n, rank, nranks, &start, &count);
    int *ptr = malloc(sizeof(int) * ((size_t)count + 1));
    ovk_gidx *cols = malloc(sizeof(ovk_gidx) * (3 * (size_t)count + 1));
    double *vals = malloc(sizeof(double) * (3 * (size_t)count + 1));
    ptr[0] = 0;
    for (int i = 0; i < count; i++) {
        int len = ptr[i];
        for (int64_t j = start + i - 1; j <= start + i + 1; j++) {
            if (j < 0 || j >= n) continue;
            cols[len] = j;
            vals[len++] = j == start + i ? 4.0 : -1.0;
        }
        ptr[i + 1] = len;
    }
    const int *p = ptr;
    const ovk_gidx *c = cols;
    const double *v = vals;
    if (rank == bad && count > 0) {
        if (!strcmp(how, "rowptr[0] < 0")) ptr[0] = -1000000;
        else if (!strcmp(how, "rowptr[0] = INT_MIN")) ptr[0] = INT32_MIN;
        else if (!strcmp(how, "rowptr decreases")) ptr[count] = ptr[count - 1] - 1;
        else if (!strcmp(how, "cols NULL")) c = NULL;
        else if (!strcmp(how, "vals NULL")) v = NULL;
        else if (!strcmp(how, "cols and vals NULL")) c = NULL, v = NULL;
        else if (!strcmp(how, "rowptr NULL")) p = NULL;
    }
    ovk_matrix *A = NULL;
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, p, c, v, OVK_DUP_REJECT, &A);
    MT_CHECK(rc == expect, "create_csr, %s on rank %d: %s (%s), expected %s", how, bad, ovk_status_name(rc),
             ovk_error_detail(), ovk_status_name(expect));
    MT_CHECK(rc != OVK_OK || A != NULL, "%s: OK without a matrix", how);
    if (rank == 0) printf("create_csr %-20s on rank %d: %s: %s\n", how, bad, ovk_status_name(rc), ovk_error_detail());
    ovk_matrix_destroy(A);
    free(ptr);
    free(cols);
    free(vals);
}

static void check_csr_arguments(void)
{
    static const char *const hows[] = {"rowptr[0] < 0", "rowptr[0] = INT_MIN", "rowptr decreases", "cols NULL",
                                       "vals NULL", "cols and vals NULL", "rowptr NULL"};
    int owner = nranks >= 3 ? nranks - 2 : nranks - 1; /* a rank that owns rows */
    for (size_t h = 0; h < sizeof hows / sizeof hows[0]; h++) csr_case(hows[h], owner, OVK_EINVAL);
    csr_case("nothing", owner, OVK_OK);
    /* zero rows with NULL arrays are fine */
    ovk_matrix *A = NULL;
    int64_t start;
    int count;
    tp_split(0, rank, nranks, &start, &count);
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, NULL, NULL, NULL, OVK_DUP_SUM, &A));
    ovk_matrix_destroy(A);
}

/* ---- Matrix Market size lines beyond the memory -------------------------- */

static void shared_file(const char *text, char *path, size_t cap)
{
    if (rank == 0) {
        static int serial = 0;
        snprintf(path, cap, "/tmp/ovk_hardening_%d_%d.mtx", (int)getpid(), serial++);
        FILE *f = fopen(path, "wb");
        if (f) {
            fputs(text, f);
            fclose(f);
        }
    }
    MPI_Bcast(path, (int)cap, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static double peak_rss_mb(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024.0;
}

/* Read text collectively; every rank must get one of the two codes, the
 * same everywhere, in under 2 s and without growing its peak RSS by more
 * than 256 MB. */
static int read_huge(const char *label, const char *text, int expect, int also)
{
    char path[256];
    ovk_matrix *A = NULL;
    shared_file(text, path, sizeof path);
    double rss0 = peak_rss_mb(), t0 = MPI_Wtime();
    int rc = ovk_mm_read(MPI_COMM_WORLD, path, &A);
    double dt = MPI_Wtime() - t0, grew = peak_rss_mb() - rss0;
    MT_CHECK(rc == expect || rc == also, "%s: %s (%s), expected %s", label, ovk_status_name(rc), ovk_error_detail(),
             ovk_status_name(expect));
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &(int64_t){rc}, 1), "%s: ranks disagree", label);
    MT_CHECK(dt < 2.0, "%s: %.2f s", label, dt);
    MT_CHECK(grew < 256.0, "%s: peak RSS grew by %.0f MB", label, grew);
    if (rank == 0)
        printf("%-34s %-16s %.3f s, peak RSS +%.0f MB: %s\n", label, ovk_status_name(rc), dt, grew, ovk_error_detail());
    ovk_matrix_destroy(A);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) unlink(path);
    return rc;
}

static void check_huge_headers(void)
{
    const char *banner = "%%MatrixMarket matrix coordinate real symmetric\n";
    char text[256];
    /* 2^31 - 1 rows, one entry (60 bytes): the share of 2^31/P rows needs
     * 28 B a row, 60 GB / P; refused unless a rank really has that memory */
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double phys = (double)pages * (double)page;
    snprintf(text, sizeof text, "%s2147483647 2147483647 1\n1 1 1.0\n", banner);
    if (phys < 2147483648.0 * 28.0) /* every rank of the test shares one node */
        read_huge("2^31-1 rows, 1 entry", text, OVK_ENOMEM, OVK_ENOMEM);
    else if (rank == 0)
        printf("2^31-1 rows: skipped, %.0f GB of memory can hold them\n", phys / 1e9);
    /* rows per rank beyond int: unsupported; far beyond memory: no memory */
    snprintf(text, sizeof text, "%s1099511627776 1099511627776 1\n1 1 1.0\n", banner);
    read_huge("2^40 rows, 1 entry", text, OVK_EUNSUPPORTED, OVK_ENOMEM);
    snprintf(text, sizeof text, "%s4611686018427387904 4611686018427387904 1\n1 1 1.0\n", banner);
    read_huge("2^62 rows, 1 entry", text, OVK_EUNSUPPORTED, OVK_ENOMEM);
    snprintf(text, sizeof text, "%s9223372036854775807 9223372036854775807 1\n1 1 1.0\n", banner);
    read_huge("2^63-1 rows, 1 entry", text, OVK_EFORMAT, OVK_EUNSUPPORTED);
    /* declared entries far beyond the file: a format error, memory as read */
    snprintf(text, sizeof text, "%s4 4 4000000000000\n1 1 1.0\n", banner);
    read_huge("4 rows, 4e12 entries declared", text, OVK_EFORMAT, OVK_EFORMAT);

    /* a stated budget of 64 MB a rank: 2^24 rows each need 470 MB */
    ovk__mem_cap = (size_t)64 << 20;
    long long n = (1LL << 24) * nranks;
    snprintf(text, sizeof text, "%s%lld %lld 1\n1 1 1.0\n", banner, n, n);
    read_huge("2^24 rows a rank, 64 MB budget", text, OVK_ENOMEM, OVK_ENOMEM);
    /* 2^16 rows a rank fit: read (one entry, so most rows are empty) */
    n = (1LL << 16) * nranks;
    snprintf(text, sizeof text, "%s%lld %lld 1\n1 1 1.0\n", banner, n, n);
    read_huge("2^16 rows a rank, 64 MB budget", text, OVK_OK, OVK_OK);
    /* the serial reader honours it too */
    if (rank == 0) {
        char path[256];
        ovk_gidx ng = 0;
        int nl = 0, *rp = NULL;
        ovk_gidx *cols = NULL;
        double *vals = NULL;
        snprintf(path, sizeof path, "/tmp/ovk_hardening_serial_%d.mtx", (int)getpid());
        FILE *f = fopen(path, "wb");
        fprintf(f, "%s%lld %lld 1\n1 1 1.0\n", banner, 1LL << 30, 1LL << 30);
        fclose(f);
        MT_RC(OVK_ENOMEM, ovk_mm_read_rows(path, 0, -1, &ng, &nl, &rp, &cols, &vals));
        MT_CHECK(rp == NULL && cols == NULL && vals == NULL, "serial reader: arrays after ENOMEM");
        MT_RC(OVK_OK, ovk_mm_read_rows(path, 0, 1000, &ng, &nl, &rp, &cols, &vals)); /* a window fits */
        MT_CHECK(ng == 1LL << 30 && nl == 1000 && rp && rp[1] == 1 && rp[1000] == 1, "serial window of 2^30 rows");
        free(rp);
        free(cols);
        free(vals);
        unlink(path);
    }
    ovk__mem_cap = 0;
}

/* ---- 64-bit global ids ----------------------------------------------------- */

static void check_64bit_ids(void)
{
    const int64_t G = INT64_C(1) << 32, N = (INT64_C(1) << 33) + 10;
    /* rows 2^32+3 .. of a symmetric file of 2^33+10 rows; entries written in
     * both triangles, one near 2^31 */
    if (rank == 0) {
        char path[256];
        snprintf(path, sizeof path, "/tmp/ovk_hardening_64_%d.mtx", (int)getpid());
        FILE *f = fopen(path, "wb");
        fprintf(f, "%%%%MatrixMarket matrix coordinate real symmetric\n%lld %lld 5\n", (long long)N, (long long)N);
        fprintf(f, "%lld %lld 4.0\n", (long long)G + 4, (long long)G + 4);             /* a(G+3, G+3) */
        fprintf(f, "%lld %lld -1.5\n", (long long)G + 6, (long long)G + 4);            /* a(G+5, G+3), lower */
        fprintf(f, "%lld %lld 2.5\n", (long long)G + 4, (long long)N);                 /* a(G+3, N-1), upper */
        fprintf(f, "%lld %lld 8.0\n", (long long)(INT64_C(1) << 31) + 2, (long long)(INT64_C(1) << 31) + 2);
        fprintf(f, "%lld %lld 0.25\n", (long long)G + 6, (long long)(INT64_C(1) << 31) + 2);
        fclose(f);
        ovk_gidx ng = 0;
        int nl = 0, *rp = NULL;
        ovk_gidx *cols = NULL;
        double *vals = NULL;
        MT_RC(OVK_OK, ovk_mm_read_rows(path, G + 3, 3, &ng, &nl, &rp, &cols, &vals));
        MT_CHECK(ng == N && nl == 3, "64-bit: nglobal %lld, rows %d", (long long)ng, nl);
        if (rp && cols && vals) {
            /* row G+3: (G+3) 4, (G+5) -1.5, (N-1) 2.5; row G+4: empty; row G+5: (2^31+1) 0.25, (G+3) -1.5 */
            MT_CHECK(rp[0] == 0 && rp[1] == 3 && rp[2] == 3 && rp[3] == 5, "64-bit: rowptr %d %d %d %d", rp[0], rp[1],
                     rp[2], rp[3]);
            const ovk_gidx wc[5] = {G + 3, G + 5, N - 1, (INT64_C(1) << 31) + 1, G + 3};
            const double wv[5] = {4.0, -1.5, 2.5, 0.25, -1.5};
            for (int k = 0; k < 5 && rp[3] == 5; k++)
                MT_CHECK(cols[k] == wc[k] && vals[k] == wv[k], "64-bit: entry %d is (%lld, %g), expected (%lld, %g)",
                         k, (long long)cols[k], vals[k], (long long)wc[k], wv[k]);
        }
        free(rp);
        free(cols);
        free(vals);
        /* the row just past 2^31, from the lower-triangle entry of row G+5 */
        MT_RC(OVK_OK, ovk_mm_read_rows(path, (INT64_C(1) << 31) + 1, 1, &ng, &nl, &rp, &cols, &vals));
        MT_CHECK(rp && rp[1] == 2 && cols[0] == (INT64_C(1) << 31) + 1 && vals[0] == 8.0 && cols[1] == G + 5 &&
                     vals[1] == 0.25,
                 "64-bit: row 2^31+1");
        free(rp);
        free(cols);
        free(vals);
        /* rows asked for beyond the end */
        MT_RC(OVK_EINVAL, ovk_mm_read_rows(path, N - 1, 2, &ng, &nl, &rp, &cols, &vals));
        unlink(path);
    }
    /* create_csr keeps 64-bit ids whole in its errors: a column 2^32+7 in a
     * small matrix, a rank claiming to start at row 2^31+5 */
    int64_t start;
    int count;
    tp_split(4 * nranks, rank, nranks, &start, &count);
    int *ptr = calloc((size_t)count + 1, sizeof(int));
    ovk_gidx *cols = malloc(sizeof(ovk_gidx) * ((size_t)count + 1));
    double *vals = malloc(sizeof(double) * ((size_t)count + 1));
    for (int i = 0; i < count; i++) {
        ptr[i + 1] = i + 1;
        cols[i] = start + i;
        vals[i] = 1.0;
    }
    int owner = nranks >= 3 ? nranks - 2 : nranks - 1;
    if (rank == owner && count > 0) cols[0] = G + 7;
    ovk_matrix *A = NULL;
    MT_RC(OVK_ECOLUMN, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_SUM, &A));
    if (rank == owner)
        MT_CHECK(strstr(ovk_error_detail(), "4294967303") != NULL, "column 2^32+7 in the detail: %s",
                 ovk_error_detail());
    if (rank == owner && count > 0) cols[0] = start;
    ovk_gidx claimed = rank == owner ? (INT64_C(1) << 31) + 5 : start;
    MT_RC(OVK_EPARTITION, ovk_matrix_create_csr(MPI_COMM_WORLD, claimed, count, ptr, cols, vals, OVK_DUP_SUM, &A));
    MT_CHECK(strstr(ovk_error_detail(), "2147483653") != NULL, "row 2^31+5 in the detail: %s", ovk_error_detail());
    MT_CHECK(A == NULL, "failed create left a matrix");
    free(ptr);
    free(cols);
    free(vals);
}

/* ---- dot_init / dot_wait and the vector kernels ---------------------------- */

static void check_dots(const ovk_matrix *A, const char *spec)
{
    enum { K = 3 };
    ovk_vector *x[K], *y[K];
    ovk_reducer *red = NULL;
    ovk_request *req = NULL;
    double got[K], want[K], junk[K];
    int n = ovk_matrix_nlocal(A);
    int64_t start = ovk_matrix_row_start(A);
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, spec, &red));
    if (!red) return;
    for (int k = 0; k < K; k++) {
        ovk_vector_create(A, &x[k]);
        ovk_vector_create(A, &y[k]);
        /* integer values: the global sums are exact in any order */
        for (int i = 0; i < n; i++) {
            int64_t g = start + i;
            ovk_vector_data(x[k])[i] = (double)(g % 7 - 3 + k);
            ovk_vector_data(y[k])[i] = (double)(g % 5 - 2 * k);
        }
        int64_t N = ovk_matrix_nglobal(A);
        want[k] = 0.0;
        for (int64_t g = 0; g < N; g++) want[k] += (double)(g % 7 - 3 + k) * (double)(g % 5 - 2 * k);
    }
    MT_RC(OVK_OK, ovk_dot_init(red, K, (const ovk_vector *const *)x, (const ovk_vector *const *)y, got, &req));
    MT_RC(OVK_OK, ovk_dot_wait(req));
    for (int k = 0; k < K; k++) MT_CHECK(got[k] == want[k], "%s: dot %d = %g, expected %g", spec, k, got[k], want[k]);
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, got, K), "%s: dots differ between ranks", spec);
    /* two in flight, waited in reverse; k = 1 */
    ovk_request *r2 = NULL;
    MT_RC(OVK_OK, ovk_dot_init(red, 1, (const ovk_vector *const *)&x[1], (const ovk_vector *const *)&y[1], &got[0],
                               &req));
    MT_RC(OVK_OK, ovk_dot_init(red, 1, (const ovk_vector *const *)&x[2], (const ovk_vector *const *)&x[2], &got[1],
                               &r2));
    MT_RC(OVK_OK, ovk_dot_wait(r2));
    MT_RC(OVK_OK, ovk_dot_wait(req));
    MT_CHECK(got[0] == want[1], "%s: dot in flight %g, expected %g", spec, got[0], want[1]);
    double xx = 0.0;
    for (int64_t g = 0; g < ovk_matrix_nglobal(A); g++) xx += (double)((g % 7 - 1) * (g % 7 - 1));
    MT_CHECK(got[1] == xx, "%s: <x,x> %g, expected %g", spec, got[1], xx);
    /* bad arguments: k out of range, NULL, a waited request */
    MT_RC(OVK_EINVAL, ovk_dot_init(red, 0, (const ovk_vector *const *)x, (const ovk_vector *const *)y, junk, &req));
    MT_RC(OVK_EINVAL, ovk_dot_init(red, OVK_DOT_MAX + 1, (const ovk_vector *const *)x, (const ovk_vector *const *)y,
                                   junk, &req));
    MT_RC(OVK_EINVAL, ovk_dot_init(red, 1, NULL, (const ovk_vector *const *)y, junk, &req));
    MT_RC(OVK_EINVAL, ovk_dot_wait(NULL));
    for (int k = 0; k < K; k++) {
        ovk_vector_destroy(x[k]);
        ovk_vector_destroy(y[k]);
    }
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
}

static void check_vector_kernels(const ovk_matrix *A, const ovk_matrix *B)
{
    ovk_vector *x = NULL, *y = NULL, *w = NULL, *other = NULL;
    int n = ovk_matrix_nlocal(A);
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    for (int i = 0; i < n; i++) ovk_vector_data(x)[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    /* duplicate: same layout, zero */
    MT_RC(OVK_OK, ovk_vector_duplicate(x, &y));
    MT_CHECK(y && ovk_vector_nlocal(y) == n, "duplicate: %d rows, expected %d", y ? ovk_vector_nlocal(y) : -1, n);
    int zero = 1;
    for (int i = 0; y && i < n; i++) zero &= ovk_vector_data(y)[i] == 0.0;
    MT_CHECK(zero, "duplicate is not zero");
    /* copy: bitwise */
    MT_RC(OVK_OK, ovk_vector_copy(x, y));
    MT_CHECK(n == 0 || memcmp(ovk_vector_data(x), ovk_vector_data(y), sizeof(double) * (size_t)n) == 0, "copy differs");
    /* scale: exact by powers of two, -1, 0 */
    MT_RC(OVK_OK, ovk_vector_scale(-0.5, y));
    int ok = 1;
    for (int i = 0; i < n; i++) ok &= ovk_vector_data(y)[i] == -0.5 * ovk_vector_data(x)[i];
    MT_CHECK(ok, "scale by -0.5");
    MT_RC(OVK_OK, ovk_vector_scale(0.0, y));
    ok = 1;
    for (int i = 0; i < n; i++) ok &= ovk_vector_data(y)[i] == 0.0;
    MT_CHECK(ok, "scale by 0");
    /* duplicate of a duplicate keeps the layout: dot works across them */
    MT_RC(OVK_OK, ovk_vector_duplicate(y, &w));
    MT_RC(OVK_OK, ovk_vector_copy(x, w));
    double d1 = 0.0, d2 = 0.0;
    MT_RC(OVK_OK, ovk_vector_dot(x, w, &d1));
    MT_RC(OVK_OK, ovk_vector_norm2(x, &d2));
    MT_CHECK(fabs(d1 - d2 * d2) <= 1e-12 * d1, "<x, copy x> %g, ||x||^2 %g", d1, d2 * d2);
    /* errors: NULL, another layout */
    MT_RC(OVK_EINVAL, ovk_vector_copy(NULL, y));
    MT_RC(OVK_EINVAL, ovk_vector_scale(2.0, NULL));
    MT_RC(OVK_EINVAL, ovk_vector_duplicate(NULL, &other));
    MT_RC(OVK_EINVAL, ovk_vector_duplicate(x, NULL));
    MT_RC(OVK_OK, ovk_vector_create(B, &other));
    MT_RC(OVK_EMISMATCH, ovk_vector_copy(x, other));
    ovk_vector_destroy(x);
    ovk_vector_destroy(y);
    ovk_vector_destroy(w);
    ovk_vector_destroy(other);
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    check_csr_arguments();
    check_huge_headers();
    check_64bit_ids();
    ovk_matrix *A = NULL, *B = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 7, 6, 0.0, &A));
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 7, 5, 0.0, &B));
    for (int k = 0; k < ovk_backend_count(); k++) {
        ovk_backend_info info;
        ovk_backend_get_info(k, &info);
        MT_CHECK(info.available, "backend %s is not available", info.name);
        if (info.available) check_dots(A, info.name);
    }
    check_dots(A, "native:persistent=1");
    check_vector_kernels(A, B);
    ovk_matrix_destroy(A);
    ovk_matrix_destroy(B);
    int rc = mt_finish("test_hardening");
    MPI_Finalize();
    return rc;
}
