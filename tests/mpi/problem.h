/* Test problems assembled through ovk_matrix_create_csr with uneven row
 * splits, so that the same global matrix can be built on any number of
 * ranks (including ranks that own no rows) and on MPI_COMM_SELF. */
#ifndef OVK_TEST_PROBLEM_H
#define OVK_TEST_PROBLEM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ovkrylov/ovkrylov.h>

/* Rows of rank r out of p for n global rows: uneven, and the last rank owns
 * none when p >= 3. */
static inline void tp_split(int64_t n, int r, int p, int64_t *start, int *count)
{
    int owners = p >= 3 ? p - 1 : p;
    int64_t total_w = 0, before = 0;
    for (int k = 0; k < owners; k++) total_w += k + 2;
    for (int k = 0; k < r && k < owners; k++) before += k + 2;
    int64_t lo = n * before / total_w, hi = r < owners ? n * (before + r + 2) / total_w : lo;
    if (r >= owners) lo = hi = n;
    *start = lo;
    *count = (int)(hi - lo);
}

/* This rank's input rows, as given to ovk_matrix_create_csr. */
typedef struct tp_rows {
    int64_t n, start;
    int count;
    int *ptr;
    ovk_gidx *col;
    double *val;
} tp_rows;

static inline void tp_rows_free(tp_rows *r)
{
    free(r->ptr);
    free(r->col);
    free(r->val);
    memset(r, 0, sizeof *r);
}

/* this rank's share (tp_split) of n rows, room for width entries a row */
static inline void tp_rows_alloc(tp_rows *r, int64_t n, int width)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    r->n = n;
    tp_split(n, rank, size, &r->start, &r->count);
    r->ptr = calloc((size_t)r->count + 1, sizeof(int));
    r->col = malloc(sizeof(ovk_gidx) * ((size_t)r->count * width + 1));
    r->val = malloc(sizeof(double) * ((size_t)r->count * width + 1));
}

/* The rows [start, start + count) of the 27-point (or 7-point) Laplacian on
 * a g x g x g grid in natural order, plus `shift` on the diagonal, as CSR
 * with global columns (malloc'ed; the caller frees them). */
static inline void tp_laplace_rows(int stencil, int g, double shift, int64_t start, int count, int **ptr,
                                   ovk_gidx **cols, double **vals)
{
    *ptr = malloc(sizeof(int) * ((size_t)count + 1));
    *cols = malloc(sizeof(ovk_gidx) * 27 * ((size_t)count + 1));
    *vals = malloc(sizeof(double) * 27 * ((size_t)count + 1));
    (*ptr)[0] = 0;
    for (int i = 0; i < count; i++) {
        int64_t row = start + i, x = row % g, y = (row / g) % g, z = row / ((int64_t)g * g);
        int len = (*ptr)[i];
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int64_t a = x + dx, b = y + dy, c = z + dz;
                    if (a < 0 || b < 0 || c < 0 || a >= g || b >= g || c >= g) continue;
                    if (stencil == 7 && abs(dx) + abs(dy) + abs(dz) > 1) continue;
                    (*cols)[len] = a + g * (b + (int64_t)g * c);
                    (*vals)[len++] = (dx | dy | dz) ? -1.0 : (stencil == 7 ? 6.0 : 26.0) + shift;
                }
        (*ptr)[i + 1] = len;
    }
}

/* The same Laplacian as a matrix, rows split by tp_split. */
static inline int tp_laplace(MPI_Comm comm, int stencil, int g, double shift, ovk_matrix **A)
{
    int r, p, count, rc, *ptr;
    int64_t start;
    ovk_gidx *cols;
    double *vals;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    tp_split((int64_t)g * g * g, r, p, &start, &count);
    tp_laplace_rows(stencil, g, shift, start, count, &ptr, &cols, &vals);
    rc = ovk_matrix_create_csr(comm, start, count, ptr, cols, vals, OVK_DUP_REJECT, A);
    free(ptr);
    free(cols);
    free(vals);
    return rc;
}

/* A deterministic value in [-0.5, 0.5) per global index. */
static inline double tp_value(uint64_t g)
{
    g = (g + 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    g ^= g >> 29;
    g *= 0x94D049BB133111EBull;
    g ^= g >> 32;
    return (double)(g >> 11) / 9007199254740992.0 - 0.5;
}

#endif
