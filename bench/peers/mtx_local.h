/* Shared by the Matrix Market peers (petsc_mtx.c, hypre_mtx.c): the row split,
 * a reader that keeps only this rank's rows, the coordinates file of
 * bench/fe_gen.py, and the random right-hand side.  Header-only (static
 * functions), a benchmark helper, not a validating parser.
 *
 * Row split: with block size bs (bs divides N), rank r of P owns the nodes
 * [M r / P, M (r+1) / P), M = N / bs, i.e. the rows [bs M r / P, bs M (r+1) / P):
 * for bs = 1 the balanced contiguous split [N r / P, N (r+1) / P) of our
 * ovk_mtx_solve.
 *
 * Right-hand side "random": b_i = mtx_random_entry(i) for global row i
 * (SplitMix64 of i, uniform in [-1, 1)), the same function as ours, so every
 * program solves the same system at every rank count. */
#ifndef OVK_PEERS_MTX_LOCAL_H
#define OVK_PEERS_MTX_LOCAL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double mtx_random_entry(long long i)
{
    uint64_t z = (uint64_t)i + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) / 4503599627370496.0 - 1.0;
}

static void mtx_split(long long n, int bs, int rank, int size, long long *lo, long long *hi)
{
    long long m = n / bs;
    *lo = bs * (m * rank / size);
    *hi = bs * (m * (rank + 1) / size);
}

/* This rank's rows [lo, hi) of an N x N matrix in CSR with global column
 * indices, sorted within each row, duplicates summed. */
typedef struct {
    long long n, lo, hi;
    long long *rowptr; /* hi - lo + 1 */
    long long *col;
    double *val;
} mtx_local;

static void mtx_local_free(mtx_local *m)
{
    free(m->rowptr), free(m->col), free(m->val);
    m->rowptr = NULL, m->col = NULL, m->val = NULL;
}

typedef struct {
    long long i, j;
    double v;
} mtx_entry;

static int mtx_entry_cmp(const void *a, const void *b)
{
    const mtx_entry *x = a, *y = b;
    if (x->i != y->i) return (x->i > y->i) - (x->i < y->i);
    return (x->j > y->j) - (x->j < y->j);
}

/* Reads PATH (coordinate real/integer/pattern, general/symmetric; symmetric
 * entries mirrored), keeps the rows of this rank's block of the split above.
 * Returns 0, or -1 with a message in ERR. */
static int mtx_read_local(const char *path, int bs, int rank, int size, mtx_local *m, char *err, size_t errlen)
{
    char line[1024];
    long long rows, cols, cnt;
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f) return snprintf(err, errlen, "cannot open %s", path), -1;
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    if (!fgets(line, sizeof line, f) || strncmp(line, "%%MatrixMarket matrix coordinate", 32) ||
        strstr(line, "complex") || strstr(line, "hermitian") || strstr(line, "skew")) {
        fclose(f);
        return snprintf(err, errlen, "%s: not a real coordinate Matrix Market file", path), -1;
    }
    int sym = strstr(line, "symmetric") != NULL, pattern = strstr(line, "pattern") != NULL;
    do {
        if (!fgets(line, sizeof line, f)) return fclose(f), snprintf(err, errlen, "%s: no size line", path), -1;
    } while (line[0] == '%');
    if (sscanf(line, "%lld %lld %lld", &rows, &cols, &cnt) != 3 || rows != cols || rows < 1) {
        fclose(f);
        return snprintf(err, errlen, "%s: bad size line or not square", path), -1;
    }
    if (bs < 1 || rows % bs) {
        fclose(f);
        return snprintf(err, errlen, "%s: %lld rows, not a multiple of the block size %d", path, rows, bs), -1;
    }
    m->n = rows;
    mtx_split(rows, bs, rank, size, &m->lo, &m->hi);
    long long lo = m->lo, hi = m->hi, cap = 1024, ne = 0;
    mtx_entry *e = malloc(sizeof *e * cap);
    for (long long k = 0; k < cnt; k++) {
        if (!fgets(line, sizeof line, f)) {
            free(e), fclose(f);
            return snprintf(err, errlen, "%s: %lld of %lld entries", path, k, cnt), -1;
        }
        char *p = line, *q;
        long long i = strtoll(p, &q, 10), j;
        double v = 1.0;
        if (q == p) goto bad;
        j = strtoll(p = q, &q, 10);
        if (q == p) goto bad;
        if (!pattern) {
            v = strtod(p = q, &q);
            if (q == p) goto bad;
        }
        if (i < 1 || i > rows || j < 1 || j > rows) goto bad;
        for (int t = 0; t < 1 + (sym && i != j); t++) {
            long long r = t ? j - 1 : i - 1, c = t ? i - 1 : j - 1;
            if (r < lo || r >= hi) continue;
            if (ne == cap) e = realloc(e, sizeof *e * (cap *= 2));
            e[ne].i = r, e[ne].j = c, e[ne++].v = v;
        }
        continue;
    bad:
        free(e), fclose(f);
        return snprintf(err, errlen, "%s: bad entry line %lld: %.60s", path, k + 1, line), -1;
    }
    fclose(f);
    qsort(e, (size_t)ne, sizeof *e, mtx_entry_cmp);
    long long nl = hi - lo, nz = 0;
    m->rowptr = calloc((size_t)nl + 1, sizeof *m->rowptr);
    m->col = malloc(sizeof *m->col * (ne ? ne : 1));
    m->val = malloc(sizeof *m->val * (ne ? ne : 1));
    for (long long k = 0; k < ne; k++) {
        if (nz > 0 && k > 0 && e[k].i == e[k - 1].i && e[k].j == e[k - 1].j) {
            m->val[nz - 1] += e[k].v; /* duplicate: summed */
            continue;
        }
        m->rowptr[e[k].i - lo + 1]++;
        m->col[nz] = e[k].j, m->val[nz++] = e[k].v;
    }
    for (long long r = 0; r < nl; r++) m->rowptr[r + 1] += m->rowptr[r];
    free(e);
    return 0;
}

/* The coordinates file of bench/fe_gen.py: the number of nodes, then "x y z"
 * per node in the order of the matrix's node blocks.  Keeps the nodes
 * [node_lo, node_hi) in XYZ (3 per node, interleaved); checks the count. */
static int xyz_read_local(const char *path, long long nnodes, long long node_lo, long long node_hi, double **xyz,
                          char *err, size_t errlen)
{
    char line[1024];
    long long n;
    FILE *f = fopen(path, "r");
    if (!f) return snprintf(err, errlen, "cannot open %s", path), -1;
    if (!fgets(line, sizeof line, f) || sscanf(line, "%lld", &n) != 1 || n != nnodes) {
        fclose(f);
        return snprintf(err, errlen, "%s: first line must be the number of nodes, %lld", path, nnodes), -1;
    }
    *xyz = malloc(sizeof **xyz * 3 * (size_t)(node_hi - node_lo > 0 ? node_hi - node_lo : 1));
    for (long long k = 0; k < node_hi; k++) {
        double x, y, z;
        if (!fgets(line, sizeof line, f) || sscanf(line, "%lf %lf %lf", &x, &y, &z) != 3) {
            fclose(f), free(*xyz), *xyz = NULL;
            return snprintf(err, errlen, "%s: bad or missing line %lld", path, k + 2), -1;
        }
        if (k >= node_lo) (*xyz)[3 * (k - node_lo)] = x, (*xyz)[3 * (k - node_lo) + 1] = y, (*xyz)[3 * (k - node_lo) + 2] = z;
    }
    fclose(f);
    return 0;
}

static int mtx_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double mtx_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, mtx_cmp_double);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
