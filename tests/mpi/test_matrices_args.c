/* Bad arguments and bad values on one rank only must give the same status on
 * every rank, without an abort or a hang:
 *   - a NULL path or a NULL matrix pointer given to ovk_mm_read by one rank
 *     (the others read a real file: before the fix they entered the node
 *     split of the reader while that rank went on to the agreement, and
 *     Open MPI aborted the job with MPI_ERR_TRUNCATE);
 *   - a NULL output pointer given to ovk_matrix_create_csr or
 *     ovk_laplace_create by one rank (that rank returned before the first
 *     agreement the others entered);
 *   - duplicates that OVK_DUP_SUM sums to +-Inf (1e308 + 1e308) in one rank's
 *     rows, in ovk_matrix_create_csr and in ovk_matrix_update_values: every
 *     raw value is finite, the merged one is not, and the matrix must be
 *     refused with OVK_ENONFINITE (before the fix both calls returned OVK_OK
 *     and y = A x held inf); update_values must leave the values unchanged.
 *
 * Runs at any rank count (at 1 rank "one rank" is every rank); no arguments.
 * Exit 0 = PASS, 1 = FAIL. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpitest.h"

static int rank, nranks;

/* Every rank got `expect`, and the matrix pointer is NULL on every rank
 * that gave one (null_ok: 1 when this rank's pointer is NULL or absent). */
static void check_everywhere(const char *label, int rc, int expect, int null_ok)
{
    int lo = rc, hi = rc, nulls = 0;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&null_ok, &nulls, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MT_CHECK(lo == expect && hi == expect, "%s: statuses %s..%s, expected %s on every rank", label,
             ovk_status_name(lo), ovk_status_name(hi), ovk_status_name(expect));
    MT_CHECK(nulls == 1, "%s: a rank kept a matrix", label);
    if (rank == 0) printf("%-44s %-16s %s\n", label, ovk_status_name(rc), rc ? ovk_error_detail() : "");
}

/* ---- NULL arguments on one rank ------------------------------------------ */

/* Rank 0 writes a 4 x 4 SPD Matrix Market file and shares its name. */
static void write_small_file(char *path, size_t cap)
{
    static const char text[] = "%%MatrixMarket matrix coordinate real symmetric\n"
                               "4 4 7\n1 1 4\n2 2 4\n3 3 4\n4 4 4\n2 1 -1\n3 2 -1\n4 3 -1\n";
    if (rank == 0) {
        snprintf(path, cap, "/tmp/ovk_test_matrices_args_XXXXXX");
        int fd = mkstemp(path);
        if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) path[0] = '\0';
        if (fd >= 0) close(fd);
    }
    MPI_Bcast(path, (int)cap, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static void mm_read_null_on(int who, int null_path, const char *path)
{
    static char sentinel;
    char label[96];
    ovk_matrix *A = (ovk_matrix *)&sentinel; /* must come back NULL */
    int bad = rank == who;
    snprintf(label, sizeof label, "mm_read: NULL %s on rank %d", null_path ? "path" : "matrix pointer", who);
    int rc = ovk_mm_read(MPI_COMM_WORLD, bad && null_path ? NULL : path, bad && !null_path ? NULL : &A);
    check_everywhere(label, rc, OVK_EINVAL, (bad && !null_path) || A == NULL);
    if (A && A != (ovk_matrix *)&sentinel) ovk_matrix_destroy(A);
}

/* Two rows per rank of the 1-D Laplacian tridiag(-1, 2, -1), N = 2P; when
 * `dup` is non-zero, this rank's first diagonal is given as two entries of
 * value dup each (their sum must be 2 for the matrix to stay the same). */
typedef struct rows {
    int rowptr[3];
    ovk_gidx cols[8];
    double vals[8];
} rows;

static void laplace_rows(rows *r, double dup)
{
    ovk_gidx n = 2 * (ovk_gidx)nranks;
    int k = 0;
    r->rowptr[0] = 0;
    for (int i = 0; i < 2; i++) {
        ovk_gidx g = 2 * (ovk_gidx)rank + i;
        if (g > 0) r->cols[k] = g - 1, r->vals[k++] = -1.0;
        if (i == 0 && dup != 0.0) {
            r->cols[k] = g, r->vals[k++] = dup;
            r->cols[k] = g, r->vals[k++] = dup;
        } else {
            r->cols[k] = g, r->vals[k++] = 2.0;
        }
        if (g + 1 < n) r->cols[k] = g + 1, r->vals[k++] = -1.0;
        r->rowptr[i + 1] = k;
    }
}

static void create_csr_null_on(int who)
{
    rows r;
    char label[96];
    ovk_matrix *A = NULL;
    laplace_rows(&r, 0.0);
    snprintf(label, sizeof label, "create_csr: NULL matrix pointer on rank %d", who);
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, 2 * (ovk_gidx)rank, 2, r.rowptr, r.cols, r.vals, OVK_DUP_SUM,
                                   rank == who ? NULL : &A);
    check_everywhere(label, rc, OVK_EINVAL, A == NULL);
    ovk_matrix_destroy(A);
}

static void laplace_null_on(int who)
{
    char label[96];
    ovk_matrix *A = NULL;
    snprintf(label, sizeof label, "laplace_create: NULL matrix pointer on rank %d", who);
    int rc = ovk_laplace_create(MPI_COMM_WORLD, OVK_STENCIL_7, 2, 2, 2, nranks, 1, 1, rank == who ? NULL : &A);
    check_everywhere(label, rc, OVK_EINVAL, A == NULL);
    ovk_matrix_destroy(A);
}

/* ---- duplicates summed to +-Inf ------------------------------------------ */

/* y = A 1 on this rank's two rows (row sums of tridiag(-1, 2, -1)). */
static void check_row_sums(const ovk_matrix *A, const char *label)
{
    ovk_vector *x = NULL, *y = NULL;
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    MT_RC(OVK_OK, ovk_vector_create(A, &y));
    if (!x || !y) goto done;
    ovk_vector_set(x, 1.0);
    MT_RC(OVK_OK, ovk_matvec(A, x, y));
    const double *v = ovk_vector_data_const(y);
    for (int i = 0; i < 2; i++) {
        ovk_gidx g = 2 * (ovk_gidx)rank + i;
        double want = (g == 0 || g == 2 * (ovk_gidx)nranks - 1) ? 1.0 : 0.0;
        MT_CHECK(v[i] == want, "%s: (A 1)[%lld] = %g, expected %g", label, (long long)g, v[i], want);
    }
done:
    ovk_vector_destroy(x);
    ovk_vector_destroy(y);
}

static void create_csr_overflow_on(int who, double dup)
{
    rows r;
    char label[96];
    ovk_matrix *A = NULL;
    laplace_rows(&r, rank == who ? dup : 0.0);
    snprintf(label, sizeof label, "create_csr: %g + %g on rank %d", dup, dup, who);
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, 2 * (ovk_gidx)rank, 2, r.rowptr, r.cols, r.vals, OVK_DUP_SUM,
                                   &A);
    check_everywhere(label, rc, OVK_ENONFINITE, A == NULL);
    ovk_matrix_destroy(A);
}

static void update_overflow_on(int who, double dup)
{
    rows r;
    char label[96];
    ovk_matrix *A = NULL;
    laplace_rows(&r, 0.0);
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, 2 * (ovk_gidx)rank, 2, r.rowptr, r.cols, r.vals,
                                        OVK_DUP_SUM, &A));
    if (!A) return;
    /* finite sums of duplicates are accepted: 1 + 1 on every rank */
    laplace_rows(&r, 1.0);
    MT_RC(OVK_OK, ovk_matrix_update_values(A, r.rowptr, r.cols, r.vals, OVK_DUP_SUM));
    check_row_sums(A, "update with 1 + 1");
    /* an overflowing sum on one rank: refused everywhere, nothing changed */
    laplace_rows(&r, rank == who ? dup : 1.0);
    snprintf(label, sizeof label, "update_values: %g + %g on rank %d", dup, dup, who);
    int rc = ovk_matrix_update_values(A, r.rowptr, r.cols, r.vals, OVK_DUP_SUM);
    check_everywhere(label, rc, OVK_ENONFINITE, 1);
    check_row_sums(A, label);
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    char path[256];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int last = nranks - 1;

    write_small_file(path, sizeof path);
    MT_CHECK(path[0] != '\0', "could not write a temporary matrix file");
    if (path[0]) {
        ovk_matrix *A = NULL; /* the file itself reads */
        MT_RC(OVK_OK, ovk_mm_read(MPI_COMM_WORLD, path, &A));
        ovk_matrix_destroy(A);
        mm_read_null_on(0, 1, path);
        mm_read_null_on(last, 1, path);
        mm_read_null_on(0, 0, path);
        mm_read_null_on(last, 0, path);
        if (rank == 0) unlink(path);
    }
    create_csr_null_on(0);
    create_csr_null_on(last);
    laplace_null_on(0);
    laplace_null_on(last);

    create_csr_overflow_on(last, 1e308);
    create_csr_overflow_on(0, -1e308);
    update_overflow_on(last, 1e308);
    update_overflow_on(0, -1e308);
    int status = mt_finish("test_matrices_args");
    MPI_Finalize();
    return status;
}
