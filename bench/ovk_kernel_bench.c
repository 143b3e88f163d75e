/* ovk_kernel_bench: memory bandwidth of each solver's vector kernels against
 * the STREAM triad, measured in the same run.
 *
 * Calls the library's internal kernels (src/internal.h), so it links
 * ovkrylov_static (bench/CMakeLists.txt builds every bench program that way).
 *
 * Every rank owns vectors of N doubles (default 2^23 rows: 64 MiB per
 * vector, twice the 32 MiB L3 per vector and far more per kernel set), and
 * all ranks run the same kernel at the same time (an MPI_Barrier precedes
 * each run).  A run's time is the slowest rank's (MPI_MAX), its aggregate
 * bandwidth ranks * N * bytes / time, and the reported figure is the median
 * over the repeats (one warm-up repeat discarded).  Each repeat runs every
 * item once, in turn, so that the slow drifts of a shared machine hit them
 * all alike.
 *
 * Bytes are counted as in docs/solvers.md and as STREAM counts them: 8 per
 * double read plus 8 per double written, write-allocate traffic not counted
 * (triad: 24 B per row).  The items:
 *
 *   triad        a = b + s c                                         24 B/row
 *   alg1         <s,p>; x += a p, r -= a s; s = r / d with <r,s>, <r,r>;
 *                p = s + b p                                         112 B/row
 *   alg2/overlap w = l t; p = w + b q; <s,p>; x += a q; r -= a s with <r,r>;
 *                t = l r with <t,t>                                  136 B/row
 *   cg1          the fused update (p s x r u, 5 sums); <w,u>         112 B/row
 *   pipecg       the fused update (z s p x r w, u and q from d, 13 sums);
 *                m = c w with <m,m>                                  136 B/row
 *
 * and each kernel alone.  The vectors are laid out as cg1 and pipecg lay out
 * theirs (ovk__ctx_alloc_block: one block, starts staggered by 9 cache lines
 * modulo 4 KiB); -aligned gives every vector its own page-aligned block, as
 * calloc does for the vectors of alg1, alg2 and overlap (and for the
 * caller's x and b).  The kernels run with the progress hook installed
 * as the solvers install it for backends that need test calls (a call every
 * -every rows, default 8192, to a function that does nothing here; -every 0:
 * no hook), so the chunking is part of what is measured.
 *
 * Usage: mpiexec -n P ovk_kernel_bench [-N rows_per_rank] [-repeat R] [-every K] [-aligned]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/sr_kernels.h" /* the kernels (src/internal.h, the solvers' fused ones) and the preconditioners */
#include "../examples/common/experiment.h"

enum { V_A, V_B, V_C, V_D, V_P, V_S, V_X, V_R, V_U, V_W, V_Q, V_Z, V_M, V_N, V_T, V_PP, V_COUNT };

typedef struct bench {
    int n;
    double *v[V_COUNT];
    double *block[V_COUNT]; /* what to free */
    ovk_matrix *D; /* diagonal matrix: alg1's DiagScale reads its diagonal */
    ovk__pc jacobi; /* DiagScale on D */
    ovk__hook hook;
    double sink;
} bench;

typedef struct item {
    const char *name;
    double bytes; /* per row */
    void (*run)(bench *b);
} item;

static void nothing(void *arg) { (void)arg; }

/* a = b + s c, kept out of line as STREAM's */
__attribute__((noinline)) static void triad_kernel(double *restrict a, const double *restrict b,
                                                   const double *restrict c, double s, int n)
{
    for (int i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}

static void run_triad(bench *b) { triad_kernel(b->v[V_A], b->v[V_B], b->v[V_C], 0.5, b->n); }

/* ---- alg1: hypre's loop ---------------------------------------------- */

static void k_dot(bench *b) { b->sink += ovk__dot(b->n, b->v[V_S], b->v[V_P]); }
static void k_axpy2(bench *b) { ovk__axpy2(b->n, 1e-3, b->v[V_P], b->v[V_X], b->v[V_S], b->v[V_R], &b->hook); }
static void k_diagscale(bench *b)
{
    double rs, rr;
    b->jacobi.type->apply_dots(b->jacobi.state, b->v[V_R], b->v[V_S], &rs, &rr, &b->hook);
    b->sink += rs + rr;
}
static void k_xpay(bench *b) { ovk__xpay(b->n, b->v[V_S], 0.5, b->v[V_P], &b->hook); }

static void run_alg1(bench *b)
{
    k_dot(b);
    k_axpy2(b);
    k_diagscale(b);
    k_xpay(b);
}

/* ---- alg2 and overlap: the same kernels ------------------------------ */

static void k_mul(bench *b) { ovk__mul(b->n, b->v[V_D], b->v[V_T], b->v[V_W], &b->hook); }
static void k_zxpby(bench *b) { ovk__zxpby(b->n, b->v[V_W], 0.5, b->v[V_PP], b->v[V_P], &b->hook); }
static void k_axpy(bench *b) { ovk__axpy(b->n, 1e-3, b->v[V_PP], b->v[V_X], &b->hook); }
static void k_axpy_dot(bench *b)
{
    double rr;
    ovk__axpy_dot(b->n, -1e-3, b->v[V_S], b->v[V_R], &rr, &b->hook);
    b->sink += rr;
}
static void k_mul_dot(bench *b)
{
    double tt;
    ovk__mul_dot(b->n, b->v[V_D], b->v[V_R], b->v[V_T], &tt, &b->hook);
    b->sink += tt;
}

static void run_alg2(bench *b)
{
    k_mul(b);
    k_zxpby(b);
    k_dot(b);
    k_axpy(b);
    k_axpy_dot(b);
    k_mul_dot(b);
}

/* ---- cg1 --------------------------------------------------------------- */

static void k_cg1_update(bench *b)
{
    double v[OVK__V_COUNT];
    double **x = b->v;
    ovk__cg1_update(b->n, 1e-3, 0.5, x[V_D], x[V_W], x[V_U], x[V_P], x[V_S], x[V_X], x[V_R], v, &b->hook);
    b->sink += v[OVK__V_GAMMA];
}
static void k_dots1(bench *b)
{
    double wu;
    ovk__dots(b->n, 1, (const double *const[]){b->v[V_W]}, (const double *const[]){b->v[V_U]}, &wu, &b->hook);
    b->sink += wu;
}

static void run_cg1(bench *b)
{
    k_cg1_update(b);
    k_dots1(b);
}

/* ---- pipecg ------------------------------------------------------------ */

static void k_pipecg_update(bench *b)
{
    double v[OVK__V_COUNT], **x = b->v;
    ovk__pipe_vecs pv = {.x = x[V_X], .r = x[V_R], .w = x[V_W], .p = x[V_P], .s = x[V_S], .z = x[V_Z],
                         .u = x[V_U], .q = x[V_Q], .m = x[V_M], .n = x[V_N], .d = x[V_D]};
    ovk__pipecg_update(b->n, 1e-3, 0.5, &pv, v, &b->hook);
    b->sink += v[OVK__V_GAMMA];
}
static void k_mul_m(bench *b)
{
    double mm;
    ovk__mul_dot(b->n, b->v[V_D], b->v[V_W], b->v[V_M], &mm, &b->hook);
    b->sink += mm;
}

static void run_pipecg(bench *b)
{
    k_pipecg_update(b);
    k_mul_m(b);
}

static const item items[] = {
    {"triad", 24, run_triad},
    {"alg1", 112, run_alg1},
    {"alg2/overlap", 136, run_alg2},
    {"cg1", 112, run_cg1},
    {"pipecg", 136, run_pipecg},
    {"  dot", 16, k_dot},
    {"  axpy2", 48, k_axpy2},
    {"  diagscale_dots", 24, k_diagscale},
    {"  xpay", 24, k_xpay},
    {"  mul", 24, k_mul},
    {"  zxpby", 24, k_zxpby},
    {"  axpy", 24, k_axpy},
    {"  axpy_dot", 24, k_axpy_dot},
    {"  mul_dot", 24, k_mul_dot},
    {"  cg1_update", 96, k_cg1_update},
    {"  dots (k=1)", 16, k_dots1},
    {"  pipecg_update", 112, k_pipecg_update},
};
enum { NITEMS = (int)(sizeof items / sizeof items[0]) };

/* The vectors: page-aligned each, or staggered in one block as
 * ovk__ctx_alloc_block places them (stride: n rounded up to 4 KiB, plus
 * 576 B). */
static int allocate(bench *b, int n, int aligned)
{
    size_t stride = ((size_t)n + 511) / 512 * 512 + 72;
    if (!aligned) {
        if (posix_memalign((void **)&b->block[0], 4096, sizeof(double) * stride * V_COUNT)) return OVK_ENOMEM;
        for (int k = 0; k < V_COUNT; k++) b->v[k] = b->block[0] + stride * (size_t)k;
        return OVK_OK;
    }
    for (int k = 0; k < V_COUNT; k++) {
        if (posix_memalign((void **)&b->block[k], 4096, sizeof(double) * (size_t)n)) return OVK_ENOMEM;
        b->v[k] = b->block[k];
    }
    return OVK_OK;
}

/* The vectors (first touch here), and the diagonal matrix diag(d) on
 * MPI_COMM_SELF.  Values keep every recurrence bounded over the repeats. */
static int setup(bench *b, int n, int every, int aligned)
{
    int *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (size_t)n);
    b->n = n;
    b->hook = (ovk__hook){every > 0 ? nothing : NULL, NULL, every};
    int rc = allocate(b, n, aligned);
    if (rc || !ptr || !col) {
        free(ptr);
        free(col);
        return OVK_ENOMEM;
    }
    for (int k = 0; k < V_COUNT; k++)
        for (int i = 0; i < n; i++) b->v[k][i] = k == V_D ? 0.25 : 1.0 + 1e-3 * (i % 7);
    for (int i = 0; i <= n; i++) ptr[i] = i;
    for (int i = 0; i < n; i++) col[i] = i;
    rc = ovk_matrix_create_csr(MPI_COMM_SELF, 0, n, ptr, col, b->v[V_A], OVK_DUP_REJECT, &b->D);
    free(ptr);
    free(col);
    if (!rc) rc = ovk__pc_create("jacobi", &b->jacobi);
    if (!rc) rc = b->jacobi.type->setup(b->jacobi.state, &(ovk__pc_env){b->D, n, MPI_COMM_SELF});
    return rc;
}

/* t[item][repeat]: the slowest rank's seconds; repeat 0 is the warm-up */
static void measure(bench *b, int repeat, double *t)
{
    for (int r = 0; r <= repeat; r++)
        for (int k = 0; k < NITEMS; k++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            items[k].run(b);
            double dt = MPI_Wtime() - t0;
            MPI_Allreduce(&dt, &t[k * (repeat + 1) + r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        }
}

static void report(const bench *b, int size, int repeat, double *t)
{
    double triad = 0.0;
    printf("%-18s %9s %11s %8s %10s\n", "kernels", "bytes/row", "median ms", "GB/s", "% of triad");
    for (int k = 0; k < NITEMS; k++) {
        double tmed = ovk_drv_median(t + k * (repeat + 1) + 1, repeat);
        double gbs = (double)size * b->n * items[k].bytes / tmed * 1e-9;
        if (k == 0) triad = gbs;
        printf("%-18s %9.0f %11.3f %8.2f %9.1f%%\n", items[k].name, items[k].bytes, tmed * 1e3, gbs,
               100.0 * gbs / triad);
    }
}

static int parse(int argc, char **argv, int *n, int *repeat, int *every, int *aligned)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-aligned")) *aligned = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "-N")) *n = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-repeat")) *repeat = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-every")) *every = atoi(argv[++i]);
        else return 1;
    }
    return *n < 1 || *repeat < 1 || *every < 0;
}

int main(int argc, char **argv)
{
    int rank, size, n = 1 << 23, repeat = 10, every = 8192, aligned = 0;
    bench b;
    memset(&b, 0, sizeof b);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse(argc, argv, &n, &repeat, &every, &aligned)) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [-N rows_per_rank] [-repeat R] [-every K] [-aligned]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    int rc = setup(&b, n, every, aligned), worst = rc;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    double *t = malloc(sizeof(double) * NITEMS * (size_t)(repeat + 1));
    if (!worst && t) {
        measure(&b, repeat, t);
        if (rank == 0) {
            printf("ovk_kernel_bench: %d ranks, N = %d rows per rank (%.1f MiB per vector, %s), %d repeats (+1 "
                   "warm-up), hook every %d rows; GB = 1e9 B, median of the slowest rank's times\n",
                   size, n, n * 8.0 / 1048576.0, aligned ? "page-aligned" : "staggered", repeat, every);
            report(&b, size, repeat, t);
        }
    } else if (rank == 0) {
        fprintf(stderr, "ovk_kernel_bench: setup failed (%s)\n", ovk_strerror(worst ? worst : OVK_ENOMEM));
    }
    if (b.sink == 12345.678) printf("sink\n"); /* keep the sums alive */
    free(t);
    ovk__pc_destroy(&b.jacobi);
    ovk_matrix_destroy(b.D);
    for (int k = 0; k < V_COUNT; k++) free(b.block[k]);
    MPI_Finalize();
    return worst ? 1 : 0;
}
