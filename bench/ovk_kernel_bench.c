/* ovk_kernel_bench: a roofline of the solvers' kernels and iterations.
 *
 * Every kernel (the matvec in each storage form, the vector updates and
 * dot products, the solvers' fused updates) and every solver's whole
 * iteration is measured against two limits taken in the same run:
 *
 *   - the STREAM triad a = b + s c over the SAME working-set size per rank
 *     (three arrays of ws/24 doubles each, ws = the distinct bytes the item
 *     touches): a cache-resident kernel is compared with a cache-resident
 *     triad, a kernel that spills to DRAM with a triad that spills as much;
 *   - the DRAM triad (three arrays of -dram MiB each per rank).
 *
 * A third limit for the matvec, the compute one: "runs, x in L1" applies
 * the Laplacian's shared row (the run kernel, the matvec's additions) to as
 * many rows as the matvec has, all from one L1-resident window of x; its
 * WS triad is the smallest one (24 KiB).  When the matvec takes about its
 * time, the additions bound it, not the memory.
 *
 * The matrix is the 27-point Laplacian on a per-rank box of -n^3 rows (the
 * ranks side by side in x, as `ovk_laplace27 -n N N N -P P 1 1`), so the
 * vectors have that rank's nlocal rows.  -n 0: no matrix, vectors of -N rows
 * (the vector kernels only, as the earlier version of this program); -N
 * without -n implies -n 0.
 *
 * Bytes are exact per call: 8 per double read plus 8 per double written
 * (write-allocate traffic not counted, as STREAM counts), and for the
 * matvec ovk__matvec_bytes (rowptr, column offsets, the values as the
 * matvec reads them, x, y, the offd block, the halo packing).  GB/s are
 * aggregate over the ranks: ranks * bytes / time, GB = 1e9 B.
 *
 * Timing: each measurement runs an item `calls` times back to back (calls
 * chosen at start-up so that one measurement takes about -min_ms, the same
 * on every rank), between MPI_Barriers; its time is the slowest rank's
 * (MPI_MAX).  Each repeat measures every item and, right after it, its
 * working-set triad, then the DRAM triad, so that the slow drifts of a
 * shared machine hit them alike; figures are medians over the repeats (one
 * warm-up repeat discarded).  After the DRAM triad every item runs once
 * more, untimed: without it the first items of the next repeat ran up to
 * 1.5x slower than the same kernel later in the repeat (session 8).
 * -clock cpu times with the thread's CPU clock instead of the wall clock:
 * on a machine loaded by other work it leaves out the time the rank was
 * descheduled (the halo's waits spin in Open MPI and still count).  The percentages are the medians of the
 * per-repeat ratios of an item's bandwidth to that of the triad measured
 * right after it (paired: a slow phase of the machine cancels out).  The progress hook is installed as the solvers
 * install it (a call every -every rows to a function that does nothing).
 *
 * Usage: mpiexec -n P ovk_kernel_bench [-n edge] [-N rows] [-repeat R] [-every K] [-dram MiB] [-min_ms T]
 *                                      [-clock wall|cpu] [-only PREFIX] [-aligned]
 *
 * -aligned: every vector starts on a page (as calloc places them) instead
 * of the staggered block of ovk__ctx_alloc_block.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/fused.h" /* the kernels (src/matrix/matrix.h, the solvers' fused ones) and the preconditioners */
#include "../examples/common/experiment.h"

enum { V_B, V_C, V_D, V_P, V_S, V_X, V_R, V_U, V_W, V_Z, V_M, V_N, V_COUNT };
/* the matrix with packed, float, double values; packed without its runs
 * (both triangles, every row read entry by entry); packed, one triangle
 * (the form before the runs, session 6) */
enum { M_AUTO, M_FLOAT, M_DOUBLE, M_NORUNS, M_UPPER, M_COUNT };

typedef struct bench {
    int n;
    double *v[V_COUNT];
    double *block;
    ovk_matrix *A[M_COUNT]; /* NULL without a matrix */
    ovk_matrix *D;          /* without A: diag(26) on this rank */
    ovk__pc jacobi;         /* DiagScale on A or D (alg1) */
    const double *dinv;     /* 1 / a_ii (cg1, pipecg) */
    ovk__hook hook;
    double sink;
    /* the compute ceiling (k_run_l1): the widest shared row of A[M_AUTO],
     * its rows per run, and where the first row sits in the window; K = 0
     * without one */
    const int *roff;
    const double *rval;
    int rK, rlen, rfirst;
} bench;

typedef struct item {
    const char *name;
    int mat;            /* needs the matrix */
    int amat;           /* which form (M_*) */
    int vbytes;         /* vector bytes per row per call */
    int nvec;           /* distinct vectors touched (working set) */
    int matvecs;        /* matvecs per call */
    void (*run)(bench *b, int m);
} item;

static void nothing(void *arg) { (void)arg; }

static int use_cpu_clock; /* -clock cpu: this thread's CPU time instead of the wall clock */

static double now(void)
{
    if (!use_cpu_clock) return MPI_Wtime();
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* a = b + s c, kept out of line as STREAM's */
__attribute__((noinline)) static void triad_kernel(double *restrict a, const double *restrict b,
                                                   const double *restrict c, double s, size_t n)
{
    for (size_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}

/* ---- the kernels ------------------------------------------------------- */

static void k_matvec(bench *b, int m) { ovk__matvec(b->A[m], b->v[V_P], b->v[V_S], &b->hook); }
/* The run kernel's compute ceiling: the Laplacian's widest shared row over
 * n rows in runs of the block's mean run length, all reading one window of
 * x small enough for L1 (the same additions as the matvec's runs, without
 * its memory traffic); set up by setup_ceiling */
enum { CEIL_WINDOW = 8192 };
static double ceil_x[CEIL_WINDOW], ceil_y[CEIL_WINDOW];
static void k_run_l1(bench *b, int m)
{
    (void)m;
    double dot = 0.0;
    for (int done = 0; b->rK > 0 && done < b->n; done += b->rlen)
        dot = ovk__run_rows(b->roff, b->rval, b->rK, ceil_x, ceil_y, b->rfirst, b->rfirst + b->rlen, dot);
    b->sink += dot;
}

/* the runs in 8-row blocks only, as session 7 did (wide blocks first otherwise) */
static void k_matvec_narrow(bench *b, int m)
{
    ovk__run_set_kernels(-1, 0);
    k_matvec(b, m);
    ovk__run_set_kernels(-1, 1);
}
static void k_dot(bench *b, int m)
{
    (void)m;
    b->sink += ovk__dot(b->n, b->v[V_S], b->v[V_P]);
}
static void k_matvec_then_dot(bench *b, int m)
{
    k_matvec(b, m);
    k_dot(b, m);
}
static void k_matvec_dot(bench *b, int m)
{
    double ps;
    ovk__matvec_dot(b->A[m], b->v[V_P], b->v[V_S], &ps, &b->hook);
    b->sink += ps;
}
static void k_axpy2(bench *b, int m)
{
    (void)m;
    ovk__axpy2(b->n, 1e-3, b->v[V_P], b->v[V_X], b->v[V_S], b->v[V_R], &b->hook);
}
static void k_diagscale(bench *b, int m)
{
    double rs, rr;
    (void)m;
    b->jacobi.type->apply_dots(b->jacobi.state, b->v[V_R], b->v[V_S], &rs, &rr, &b->hook);
    b->sink += rs + rr;
}
static void k_alg1_update(bench *b, int m)
{
    double rs, rr;
    const double *diag = b->A[M_AUTO] ? b->A[M_AUTO]->diagonal : b->v[V_D];
    (void)m;
    ovk__alg1_update(b->n, 1e-3, b->v[V_P], b->v[V_X], b->v[V_S], b->v[V_R], diag, &rs, &rr, &b->hook);
    b->sink += rs + rr;
}
static void k_xpay(bench *b, int m)
{
    (void)m;
    ovk__xpay(b->n, b->v[V_S], 0.5, b->v[V_P], &b->hook);
}
static void k_cg1_update(bench *b, int m)
{
    double v[OVK__V_COUNT], **x = b->v;
    (void)m;
    ovk__cg1_update(b->n, 1e-3, 0.5, b->dinv, x[V_W], x[V_U], x[V_P], x[V_S], x[V_X], x[V_R], v, &b->hook);
    b->sink += v[OVK__V_GAMMA];
}
static void k_dots1(bench *b, int m)
{
    double wu;
    (void)m;
    ovk__dots(b->n, 1, (const double *const[]){b->v[V_W]}, (const double *const[]){b->v[V_U]}, &wu, &b->hook);
    b->sink += wu;
}
static void k_pipecg_update(bench *b, int m)
{
    double v[OVK__V_COUNT], **x = b->v;
    (void)m;
    ovk__pipe_vecs pv = {.x = x[V_X], .r = x[V_R], .w = x[V_W], .p = x[V_P], .s = x[V_S], .z = x[V_Z],
                         .m = x[V_M], .n = x[V_N], .d = b->dinv};
    ovk__pipecg_update(b->n, 1e-3, 0.5, &pv, v, &b->hook);
    b->sink += v[OVK__V_GAMMA];
}
static void k_mul_then_dot(bench *b, int m)
{
    (void)m;
    ovk__mul(b->n, b->dinv, b->v[V_W], b->v[V_M], &b->hook);
    b->sink += ovk__dot(b->n, b->v[V_M], b->v[V_M]);
}
static void k_mul_dot(bench *b, int m)
{
    double mm;
    (void)m;
    ovk__mul_dot(b->n, b->dinv, b->v[V_W], b->v[V_M], &mm, &b->hook);
    b->sink += mm;
}

/* ---- whole iterations (the vector passes of a step and its matvecs) -- */

static void it_alg1_before(bench *b, int m)
{
    k_matvec(b, m);
    k_dot(b, m);
    k_axpy2(b, m);
    k_diagscale(b, m);
    k_xpay(b, m);
}
static void it_alg1(bench *b, int m)
{
    k_matvec_dot(b, m);
    k_alg1_update(b, m);
    k_xpay(b, m);
}
static void it_cg1_before(bench *b, int m)
{
    k_cg1_update(b, m);
    ovk__matvec(b->A[m], b->v[V_U], b->v[V_W], &b->hook);
    k_dots1(b, m);
}
static void it_cg1(bench *b, int m) { it_cg1_before(b, m); } /* the same passes, packed values */
static void it_pipecg_before(bench *b, int m)
{
    k_pipecg_update(b, m);
    k_mul_then_dot(b, m);
    ovk__matvec(b->A[m], b->v[V_M], b->v[V_N], &b->hook);
}
static void it_pipecg(bench *b, int m)
{
    k_pipecg_update(b, m);
    k_mul_dot(b, m);
    ovk__matvec(b->A[m], b->v[V_M], b->v[V_N], &b->hook);
}

/* bytes per row as docs/solvers.md counts them; nvec = distinct vectors */
static const item items[] = {
    {"matvec (double values)", 1, M_DOUBLE, 0, 2, 1, k_matvec},
    {"matvec (float values)", 1, M_FLOAT, 0, 2, 1, k_matvec},
    {"matvec (packed: auto)", 1, M_AUTO, 0, 2, 1, k_matvec},
    {"matvec, 8-row run blocks", 1, M_AUTO, 0, 2, 1, k_matvec_narrow},
    {"runs, x in L1 (compute)", 1, M_AUTO, 16, 0, 0, k_run_l1},
    {"matvec, no runs", 1, M_NORUNS, 0, 2, 1, k_matvec},
    {"matvec, one triangle", 1, M_UPPER, 0, 2, 1, k_matvec},
    {"matvec, then <p,s>", 1, M_AUTO, 16, 2, 1, k_matvec_then_dot},
    {"matvec with <p,s>", 1, M_AUTO, 0, 2, 1, k_matvec_dot},
    {"dot", 0, 0, 16, 2, 0, k_dot},
    {"axpy2", 0, 0, 48, 4, 0, k_axpy2},
    {"diagscale_dots", 0, 0, 24, 3, 0, k_diagscale},
    {"alg1_update", 0, 0, 64, 5, 0, k_alg1_update},
    {"xpay", 0, 0, 24, 2, 0, k_xpay},
    {"cg1_update", 0, 0, 96, 7, 0, k_cg1_update},
    {"dots (k=1)", 0, 0, 16, 2, 0, k_dots1},
    {"pipecg_update", 0, 0, 112, 8, 0, k_pipecg_update},
    {"mul, then dot", 0, 0, 32, 3, 0, k_mul_then_dot},
    {"mul_dot", 0, 0, 24, 3, 0, k_mul_dot},
    {"alg1 iteration, before", 1, M_DOUBLE, 112, 6, 1, it_alg1_before},
    {"alg1 iteration", 1, M_AUTO, 88, 6, 1, it_alg1},
    {"cg1 iteration, before", 1, M_DOUBLE, 112, 7, 1, it_cg1_before},
    {"cg1 iteration", 1, M_AUTO, 112, 7, 1, it_cg1},
    {"pipecg iteration, before", 1, M_DOUBLE, 144, 10, 1, it_pipecg_before},
    {"pipecg iteration", 1, M_AUTO, 136, 10, 1, it_pipecg},
};
enum { NITEMS = (int)(sizeof items / sizeof items[0]) };

/* ---- set-up ------------------------------------------------------------ */

/* the compute ceiling's shared row (the widest), run length (the mean)
 * and window; none (rK = 0) without runs or when the window is too small */
static void setup_ceiling(bench *b, const ovk__runs *r)
{
    b->rK = 0;
    if (!r) return;
    int p = 0, lo = 0, hi = 0, nruns = 0;
    for (int q = 1; q < r->npat; q++)
        if (r->pat_ptr[q + 1] - r->pat_ptr[q] > r->pat_ptr[p + 1] - r->pat_ptr[p]) p = q;
    const int *off = r->pat_off + r->pat_ptr[p];
    int K = r->pat_ptr[p + 1] - r->pat_ptr[p];
    for (int k = 0; k < K; k++) lo = off[k] < lo ? off[k] : lo, hi = off[k] > hi ? off[k] : hi;
    for (int s = 0; s < r->nseg; s++) nruns += r->seg_pat[s] >= 0;
    int len = r->run_rows / (nruns ? nruns : 1);
    if (-lo + len + hi > CEIL_WINDOW || len < 1) return;
    for (int i = 0; i < CEIL_WINDOW; i++) ceil_x[i] = 1.0 + 1e-3 * (i % 7);
    b->roff = off, b->rval = r->pat_val + r->pat_ptr[p];
    b->rK = K, b->rlen = len, b->rfirst = -lo;
}

/* the Laplacian in each form of M_*: values packed as the library picks, as
 * float, as double; without runs; one triangle */
static int setup_matrix(bench *b, int edge)
{
    int size, rc = OVK_OK;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const int allow[M_COUNT] = {OVK__VAL_ALLOW_ALL, 1 << OVK__VAL_FLOAT | 1, 1 << OVK__VAL_DOUBLE,
                                       OVK__VAL_ALLOW_ALL, OVK__VAL_ALLOW_ALL};
    for (int m = 0; m < M_COUNT && !rc; m++) {
        rc = ovk_laplace_create(MPI_COMM_WORLD, OVK_STENCIL_27, edge, edge, edge, size, 1, 1, &b->A[m]);
        if (!rc && m >= M_NORUNS) ovk__csr_drop_runs(&b->A[m]->diag);
        if (!rc && m == M_UPPER) rc = ovk__csr_keep_upper(&b->A[m]->diag);
        if (!rc) rc = ovk__csr_pack_values(&b->A[m]->diag, allow[m]);
    }
    if (!rc) b->n = ovk_matrix_nlocal(b->A[M_AUTO]);
    if (!rc) setup_ceiling(b, b->A[M_AUTO]->diag.runs);
    if (!rc) rc = ovk__pc_create("jacobi", &b->jacobi);
    if (!rc) rc = b->jacobi.type->setup(b->jacobi.state, &(ovk__pc_env){.A = b->A[M_AUTO], .n = b->n, .comm = MPI_COMM_WORLD});
    if (!rc) b->dinv = b->jacobi.type->diagonal(b->jacobi.state);
    return rc;
}

/* no Laplacian: Jacobi on diag(26) on this rank alone (DiagScale, cg1's and pipecg's 1 / a_ii) */
static int setup_diagonal(bench *b, int n)
{
    int *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (size_t)n);
    int rc = ptr && col ? OVK_OK : OVK_ENOMEM;
    for (int i = 0; !rc && i <= n; i++) ptr[i] = i;
    for (int i = 0; !rc && i < n; i++) col[i] = i;
    if (!rc) rc = ovk_matrix_create_csr(MPI_COMM_SELF, 0, n, ptr, col, b->v[V_D], OVK_DUP_REJECT, &b->D);
    free(ptr);
    free(col);
    if (!rc) rc = ovk__pc_create("jacobi", &b->jacobi);
    if (!rc) rc = b->jacobi.type->setup(b->jacobi.state, &(ovk__pc_env){.A = b->D, .n = n, .comm = MPI_COMM_SELF});
    if (!rc) b->dinv = b->jacobi.type->diagonal(b->jacobi.state);
    return rc;
}

/* the vectors, staggered in one block as ovk__ctx_alloc_block places them */
static int setup(bench *b, int edge, int n, int every, int aligned)
{
    int rc = OVK_OK;
    if (edge > 0) {
        rc = setup_matrix(b, edge);
        if (rc) return rc;
        n = b->n;
    }
    b->n = n;
    b->hook = (ovk__hook){every > 0 ? nothing : NULL, NULL, every};
    /* -aligned: every vector on its own page boundary (as calloc places large vectors) */
    size_t stride = aligned ? ((size_t)n + 511) / 512 * 512 : ((size_t)n + 511) / 512 * 512 + 72;
    if (posix_memalign((void **)&b->block, 4096, sizeof(double) * stride * V_COUNT)) return OVK_ENOMEM;
    for (int k = 0; k < V_COUNT; k++) b->v[k] = b->block + stride * (size_t)k;
    for (int k = 0; k < V_COUNT; k++)
        for (int i = 0; i < n; i++) b->v[k][i] = k == V_D ? 26.0 : 1.0 + 1e-3 * (i % 7);
    return edge > 0 ? OVK_OK : setup_diagonal(b, n);
}

/* bytes of one call of item k on this rank, and its working set */
static void item_bytes(const bench *b, int k, double *bytes, double *ws)
{
    const item *it = &items[k];
    double mv = it->mat ? ovk__matvec_bytes(b->A[it->amat]) : 0.0;
    *bytes = mv * it->matvecs + (double)it->vbytes * b->n;
    /* the matrix (its streamed bytes less x and y) plus the distinct vectors
     * (none for the compute ceiling: its window sits in L1, as the smallest
     * twin triad does) */
    *ws = (it->mat && it->matvecs ? mv - 16.0 * b->n : 0.0) + 8.0 * b->n * it->nvec;
}

/* ---- timing -------------------------------------------------------------- */

typedef struct triad {
    double *a, *b, *c;
    size_t n;
} triad;

/* seconds of `calls` runs of f (item k, or a triad when k < 0), slowest rank */
static double timed(bench *b, int k, const triad *t, long calls)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    for (long c = 0; c < calls; c++) {
        if (k >= 0) items[k].run(b, items[k].amat);
        else triad_kernel(t->a, t->b, t->c, 0.5, t->n);
    }
    double dt = now() - t0, worst;
    MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* calls that take about min_s (the same on every rank) */
static long calibrate(bench *b, int k, const triad *t, double min_s)
{
    timed(b, k, t, 1); /* warm */
    double one = timed(b, k, t, 3) / 3;
    long calls = one > 0 ? (long)(min_s / one) + 1 : 1000;
    MPI_Bcast(&calls, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    return calls;
}

typedef struct opts {
    int edge, n, repeat, every, aligned;
    double dram_mib, min_ms;
    const char *only; /* run the items whose name starts with this (NULL: all) */
} opts;

static int parse(int argc, char **argv, opts *o)
{
    int edge_given = 0; /* -N alone: the vector kernels alone (-n 0), as before session 6 */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-aligned")) {
            o->aligned = 1;
            continue;
        }
        if (i + 1 >= argc) return 1;
        if (!strcmp(argv[i], "-n")) o->edge = atoi(argv[++i]), edge_given = 1;
        else if (!strcmp(argv[i], "-N")) o->n = atoi(argv[++i]), o->edge = edge_given ? o->edge : 0;
        else if (!strcmp(argv[i], "-repeat")) o->repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-every")) o->every = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-dram")) o->dram_mib = atof(argv[++i]);
        else if (!strcmp(argv[i], "-min_ms")) o->min_ms = atof(argv[++i]);
        else if (!strcmp(argv[i], "-only")) o->only = argv[++i];
        else if (!strcmp(argv[i], "-clock")) use_cpu_clock = !strcmp(argv[++i], "cpu");
        else return 1;
    }
    return o->edge < 0 || o->n < 1 || o->repeat < 1 || o->every < 0 || o->dram_mib < 1 || o->min_ms <= 0;
}

/* a triad over three arrays of n doubles inside buf */
static triad triad_in(double *buf, size_t n) { return (triad){buf, buf + n, buf + 2 * n, n}; }

/* median of n values, v left in its order */
static double med(const double *v, int n)
{
    double c[n];
    memcpy(c, v, sizeof c);
    return ovk_drv_median(c, n);
}

static void report(const bench *b, const opts *o, int size, const int *run, double *t, double *tw, double *td,
                   const long *calls, const long *wcalls, long dcalls, const triad *dram)
{
    int R = o->repeat;
    double tdm = med(td + 1, R) / dcalls;
    double dram_gbs = size * 24.0 * (double)dram->n / tdm * 1e-9;
    printf("DRAM triad (3 x %.0f MiB per rank): %.2f GB/s\n", o->dram_mib, dram_gbs);
    printf("%-26s %8s %8s %10s %8s %9s %8s %8s\n", "item", "B/row", "WS KiB", "us/call", "GB/s", "WS-triad",
           "%WS-tri", "%DRAM");
    for (int k = 0; k < NITEMS; k++) {
        if (!run[k]) continue;
        double bytes, ws;
        item_bytes(b, k, &bytes, &ws);
        double tk = med(t + k * (R + 1) + 1, R) / calls[k];
        double tt = med(tw + k * (R + 1) + 1, R) / wcalls[k];
        double ws_n = (double)(size_t)(ws / 24.0 > 1024 ? ws / 24.0 : 1024);
        double gbs = size * bytes / tk * 1e-9, tri = size * 24.0 * ws_n / tt * 1e-9;
        double pair[R], dpair[R]; /* per repeat: item vs its twin triad, and vs the DRAM triad */
        for (int r = 1; r <= R; r++) {
            double ik = t[k * (R + 1) + r] / calls[k] / bytes, iw = tw[k * (R + 1) + r] / wcalls[k] / (24.0 * ws_n);
            pair[r - 1] = iw / ik;
            dpair[r - 1] = td[r] / dcalls / (24.0 * (double)dram->n) / ik;
        }
        printf("%-26s %8.1f %8.0f %10.2f %8.2f %9.2f %7.1f%% %7.1f%%\n", items[k].name, bytes / b->n, ws / 1024.0,
               tk * 1e6, gbs, tri, 100.0 * ovk_drv_median(pair, R), 100.0 * ovk_drv_median(dpair, R));
    }
}

static void measure_all(bench *b, const opts *o, const int *run, double *twsbuf, triad *dram, int size)
{
    int R = o->repeat;
    double *t = calloc((size_t)NITEMS * (R + 1), sizeof(double)), *tw = calloc((size_t)NITEMS * (R + 1), sizeof(double));
    double *td = calloc((size_t)R + 1, sizeof(double));
    long calls[NITEMS] = {0}, wcalls[NITEMS] = {0};
    triad twin[NITEMS];
    double min_s = o->min_ms * 1e-3;
    for (int k = 0; k < NITEMS; k++) {
        if (!run[k]) continue;
        double bytes, ws;
        item_bytes(b, k, &bytes, &ws);
        twin[k] = triad_in(twsbuf, (size_t)(ws / 24.0 > 1024 ? ws / 24.0 : 1024));
        calls[k] = calibrate(b, k, NULL, min_s);
        wcalls[k] = calibrate(b, -1, &twin[k], min_s);
    }
    long dcalls = calibrate(b, -1, dram, min_s);
    for (int r = 0; r <= R; r++) {
        for (int k = 0; k < NITEMS; k++) {
            if (!run[k]) continue;
            t[k * (R + 1) + r] = timed(b, k, NULL, calls[k]);
            tw[k * (R + 1) + r] = timed(b, -1, &twin[k], wcalls[k]);
        }
        td[r] = timed(b, -1, dram, dcalls);
        for (int k = 0; k < NITEMS; k++) /* settle after the DRAM sweep: every item once more, untimed */
            if (run[k]) timed(b, k, NULL, calls[k]);
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) report(b, o, size, run, t, tw, td, calls, wcalls, dcalls, dram);
    free(t);
    free(tw);
    free(td);
}

int main(int argc, char **argv)
{
    int rank, size;
    opts o = {40, 1 << 20, 10, 8192, 0, 64.0, 2.0, NULL};
    bench b;
    memset(&b, 0, sizeof b);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse(argc, argv, &o)) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [-n edge] [-N rows] [-repeat R] [-every K] [-dram MiB] [-min_ms T] [-clock wall|cpu] [-only PREFIX] [-aligned]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    int rc = setup(&b, o.edge, o.n, o.every, o.aligned), worst = rc;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int run[NITEMS];
    double maxws = 0.0;
    for (int k = 0; k < NITEMS; k++) {
        run[k] = (!items[k].mat || o.edge > 0) && (!o.only || !strncmp(items[k].name, o.only, strlen(o.only)));
        double bytes, ws;
        if (!worst && run[k]) item_bytes(&b, k, &bytes, &ws);
        if (!worst && run[k] && ws > maxws) maxws = ws;
    }
    size_t dn = (size_t)(o.dram_mib * 1048576.0 / 8.0);
    double *twsbuf = malloc(sizeof(double) * (3 * (size_t)(maxws / 24.0 + 1024) + 3));
    double *dbuf = malloc(sizeof(double) * 3 * dn);
    if (!worst && twsbuf && dbuf) {
        for (size_t i = 0; i < 3 * (size_t)(maxws / 24.0 + 1024) + 3; i++) twsbuf[i] = 1.0;
        for (size_t i = 0; i < 3 * dn; i++) dbuf[i] = 1.0;
        triad dram = triad_in(dbuf, dn);
        if (rank == 0) {
            const char *form = b.A[M_AUTO] ? (b.A[M_AUTO]->diag.vform == OVK__VAL_DICT8   ? "dict8"
                                              : b.A[M_AUTO]->diag.vform == OVK__VAL_FLOAT ? "float"
                                                                                          : "double")
                                           : "-";
            printf("ovk_kernel_bench: %d ranks, %s%d rows per rank, packed values: %s, %d repeats (+1 warm-up), "
                   "about %.1f ms per measurement, hook every %d rows, %s clock; medians, slowest rank\n",
                   size, o.edge ? "27-point Laplacian, " : "", b.n, form, o.repeat, o.min_ms, o.every,
                   use_cpu_clock ? "thread CPU" : "wall");
        }
        measure_all(&b, &o, run, twsbuf, &dram, size);
    } else if (rank == 0) {
        fprintf(stderr, "ovk_kernel_bench: setup failed (%s)\n", ovk_strerror(worst ? worst : OVK_ENOMEM));
    }
    if (b.sink == 12345.678) printf("sink\n"); /* keep the sums alive */
    free(twsbuf);
    free(dbuf);
    ovk__pc_destroy(&b.jacobi);
    for (int m = 0; m < M_COUNT; m++) ovk_matrix_destroy(b.A[m]);
    ovk_matrix_destroy(b.D);
    free(b.block);
    MPI_Finalize();
    return worst ? 1 : 0;
}
