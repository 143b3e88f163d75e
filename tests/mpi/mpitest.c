#include "mpitest.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int mt_failures = 0;

int mt_same_everywhere(MPI_Comm comm, const void *value, int count)
{
    int64_t *lo = malloc((size_t)(count > 0 ? count : 1) * sizeof *lo);
    int64_t *hi = malloc((size_t)(count > 0 ? count : 1) * sizeof *hi);
    MPI_Allreduce(value, lo, count, MPI_INT64_T, MPI_MIN, comm);
    MPI_Allreduce(value, hi, count, MPI_INT64_T, MPI_MAX, comm);
    int same = memcmp(lo, hi, (size_t)count * sizeof *lo) == 0;
    free(lo);
    free(hi);
    return same;
}

void mt_split(int n, int skip, int *lo, int *hi)
{
    int size = 1, r = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    int parts = size > 1 && skip >= 0 ? size - 1 : size;
    if (skip >= 0 && size > 1) {
        if (r == skip) {
            *lo = *hi = r == 0 ? 0 : n;
            return;
        }
        if (r > skip) r--;
    }
    int base = n / parts, extra = n % parts;
    *lo = r * base + (r < extra ? r : extra);
    *hi = *lo + base + (r < extra);
}

long mt_max_long(long v)
{
    long m = v;
    MPI_Allreduce(&v, &m, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

int mt_alloc_sweep(int (*make)(int what, long n, long *made, int *fired), int what, long *count)
{
    int fired = 0, bad = 0;
    MT_RC(OVK_OK, make(what, 0, count, &fired));
    *count = mt_max_long(*count);
    for (long n = 1; n <= *count; n++) {
        long made;
        int rc = make(what, n, &made, &fired);
        int64_t rc64 = rc;
        int want = mt_max_long(fired) ? OVK_ENOMEM : OVK_OK;
        bad += !mt_same_everywhere(MPI_COMM_WORLD, &rc64, 1) || rc != want;
    }
    return bad;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

void mt_fill(void *buf, ovk_datatype t, int n, int who, int salt)
{
    for (int i = 0; i < n; i++) {
        uint64_t h = mix(((uint64_t)who << 40) ^ ((uint64_t)salt << 32) ^ (uint64_t)i);
        if (t == OVK_INT64) ((int64_t *)buf)[i] = (int64_t)(h >> 14) - ((int64_t)1 << 49);
        else ((double *)buf)[i] = ldexp((double)(h >> 11) / 9007199254740992.0 - 0.5, (int)(h % 24) - 12);
    }
}

int mt_check_against_mpi(const void *in, const void *got, int n, ovk_datatype t, ovk_op op, double sum_rtol)
{
    MPI_Datatype dt = t == OVK_INT64 ? MPI_INT64_T : MPI_DOUBLE;
    MPI_Op mop = op == OVK_SUM ? MPI_SUM : op == OVK_MAX ? MPI_MAX : MPI_MIN;
    double *ref = malloc((size_t)n * 8), *mag = malloc((size_t)n * 8);
    int bad = -1, nranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Allreduce(in, ref, n, dt, mop, MPI_COMM_WORLD);
    if (t == OVK_DOUBLE && op == OVK_SUM) {
        for (int i = 0; i < n; i++) mag[i] = fabs(((const double *)in)[i]);
        MPI_Allreduce(MPI_IN_PLACE, mag, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n && bad < 0; i++)
            if (!(fabs(((const double *)got)[i] - ref[i]) <= sum_rtol * nranks * mag[i])) bad = i;
    } else if (memcmp(ref, got, (size_t)n * 8) != 0) {
        for (int i = 0; i < n && bad < 0; i++)
            if (memcmp((const char *)ref + 8 * i, (const char *)got + 8 * i, 8) != 0) bad = i;
    }
    free(ref);
    free(mag);
    return bad;
}

double mt_cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void mt_nap(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&t, NULL);
}

int mt_recurrence_count(void)
{
    int count = 0;
    while (mt_recurrence_name(count)) count++;
    return count;
}

const char *mt_recurrence_name(int i)
{
    for (int k = 0; k < ovk_solver_type_count(); k++) {
        const char *name = ovk_solver_type_name(k);
        int minres = !strcmp(name, "minres") || !strcmp(name, "pminres"); /* not CG: test_minres.c */
        int sequences = !strcmp(name, "rpipecg") || !strcmp(name, "rcg"); /* deflated: test_recycle.c */
        if (strcmp(name, "auto") && strcmp(name, "scg") && !minres && !sequences && !ovk_solver_type_nonsymmetric(k) &&
            i-- == 0)
            return name;
    }
    return NULL;
}

double mt_rel_residual(const ovk_matrix *A, const ovk_vector *b, const ovk_vector *x)
{
    ovk_vector *r = NULL;
    double rn = 0.0, bn = 1.0;
    ovk_vector_duplicate(b, &r);
    ovk_matvec(A, x, r);
    ovk_vector_scale(-1.0, r);
    ovk_vector_axpy(1.0, b, r);
    ovk_vector_norm2(r, &rn);
    ovk_vector_norm2(b, &bn);
    ovk_vector_destroy(r);
    return rn / bn;
}

ovk_matrix *mt_nonsym_matrix(const char *name)
{
    char path[1024];
    struct stat st;
    if (stat(OVK_NONSYM_DIR, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    snprintf(path, sizeof path, "%s/%s.mtx", OVK_NONSYM_DIR, name);
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_mm_read(MPI_COMM_WORLD, path, &A));
    return A;
}

void mt_random_b(const ovk_matrix *A, ovk_vector *b)
{
    double *bd = ovk_vector_data(b);
    int64_t start = ovk_matrix_row_start(A);
    for (int i = 0; i < ovk_matrix_nlocal(A); i++) {
        uint64_t z = (uint64_t)(start + i) + 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        bd[i] = (double)(z >> 11) / 4503599627370496.0 - 1.0;
    }
}

int mt_finish(const char *name)
{
    int total = 0, rank = 0;
    MPI_Allreduce(&mt_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) printf("%s: %s (%d failed checks)\n", name, total ? "FAIL" : "PASS", total);
    return total ? 1 : 0;
}

void mt_dense_solve(int n, double *a, double *b)
{
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(a[i * n + k]) > fabs(a[p * n + k])) p = i;
        for (int j = 0; j < n; j++) {
            double t = a[k * n + j];
            a[k * n + j] = a[p * n + j];
            a[p * n + j] = t;
        }
        double t = b[k];
        b[k] = b[p];
        b[p] = t;
        for (int i = k + 1; i < n; i++) {
            double l = a[i * n + k] / a[k * n + k];
            for (int j = k; j < n; j++) a[i * n + j] -= l * a[k * n + j];
            b[i] -= l * b[k];
        }
    }
    for (int k = n - 1; k >= 0; k--) {
        for (int j = k + 1; j < n; j++) b[k] -= a[k * n + j] * b[j];
        b[k] /= a[k * n + k];
    }
}

double mt_dense_error(int n, double *a, const double *b, const ovk_vector *x, int64_t start)
{
    double *ref = malloc(sizeof(double) * n), *xg = calloc(n, sizeof(double));
    memcpy(ref, b, sizeof(double) * n);
    mt_dense_solve(n, a, ref);
    const double *xl = ovk_vector_data_const(x);
    for (int l = 0; l < ovk_vector_nlocal(x); l++) xg[start + l] = xl[l];
    MPI_Allreduce(MPI_IN_PLACE, xg, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double err = 0.0, nrm = 0.0;
    for (int r = 0; r < n; r++) {
        err = fmax(err, fabs(xg[r] - ref[r]));
        nrm = fmax(nrm, fabs(ref[r]));
    }
    free(ref), free(xg);
    return err / nrm;
}

void mt_amg_setups(const ovk_solver *s, long *full, long *kept, double *drift)
{
    long v[2] = {-1, -1};
    double d = INFINITY;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        FILE *f = tmpfile();
        char line[1024];
        if (f && ovk_solver_view(s, f) == OVK_OK) {
            rewind(f);
            while (fgets(line, sizeof line, f)) {
                const char *at = strstr(line, " full setups, ");
                if (!at) continue;
                const char *p = at;
                while (p > line && p[-1] != ' ') p--;
                v[0] = strtol(p, NULL, 10);
                v[1] = strtol(at + strlen(" full setups, "), NULL, 10);
                const char *dr = strstr(line, "last drift ");
                if (dr) d = strtod(dr + strlen("last drift "), NULL);
            }
        }
        if (f) fclose(f);
    }
    MPI_Bcast(v, 2, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Bcast(&d, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    *full = v[0], *kept = v[1];
    if (drift) *drift = d;
}
