/* ovk_kernel_bench's items: the kernels it measures and their byte counts
 * (bench/ovk_kernel_bench.c has the method).  The one file of bench/ that
 * includes src/: the kernel headers src/matrix/matrix.h and
 * src/solvers/methods/cg/fused.h, nothing else (docs/architecture.md;
 * tests/layers.sh checks it). */
#include "items.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/matrix.h" /* the matrix's kernels, value forms and byte counts */
#include "solvers/methods/cg/fused.h" /* the solvers' fused kernels (and, through solver.h, Jacobi's) */

#define ALPHA 1e-3     /* the step of the kernels' updates */
#define BETA 0.5       /* the direction's coefficient */
#define DIAGONAL 26.0  /* the 27-point Laplacian's diagonal (the vector-only matrix) */
#define FILL_STEP 1e-3 /* vectors: 1 + FILL_STEP (i mod FILL_PERIOD) */
#define FILL_PERIOD 7
#define VEC_ROUND 512  /* vector lengths rounded up to this many doubles */
#define VEC_STAGGER 72 /* doubles between vectors (ovk__ctx_alloc_block's staggering) */
#define PAGE 4096

enum { V_B, V_C, V_D, V_P, V_S, V_X, V_R, V_U, V_W, V_Z, V_M, V_N, V_COUNT };
/* the matrix with packed, float, double values; packed without its runs
 * (both triangles, every row read entry by entry); packed without its runs,
 * the rows in strips (one offset list, their own values: the strip
 * kernels); packed, one triangle (the form without the runs) */
enum { M_AUTO, M_FLOAT, M_DOUBLE, M_NORUNS, M_STRIPS, M_UPPER, M_COUNT };

struct ovk_kb_items {
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
};

typedef struct item {
    const char *name;
    int mat;            /* needs the matrix */
    int amat;           /* which form (M_*) */
    int vbytes;         /* vector bytes per row per call */
    int nvec;           /* distinct vectors touched (working set) */
    int matvecs;        /* matvecs per call */
    void (*run)(kb_items *b, int m);
} item;

static void nothing(void *arg) { (void)arg; }

/* ---- the kernels ------------------------------------------------------- */

static void k_matvec(kb_items *b, int m) { ovk__matvec(b->A[m], b->v[V_P], b->v[V_S], &b->hook); }
/* The run kernel's compute ceiling: the Laplacian's widest shared row over
 * n rows in runs of the block's mean run length, all reading one window of
 * x small enough for L1 (the same additions as the matvec's runs, without
 * its memory traffic); set up by setup_ceiling */
enum { CEIL_WINDOW = 8192 };
static double ceil_x[CEIL_WINDOW], ceil_y[CEIL_WINDOW];
static void k_run_l1(kb_items *b, int m)
{
    (void)m;
    double dot = 0.0;
    for (int done = 0; b->rK > 0 && done < b->n; done += b->rlen)
        dot = ovk__run_rows(b->roff, b->rval, b->rK, ceil_x, ceil_y, b->rfirst, b->rfirst + b->rlen, dot);
    b->sink += dot;
}

/* the runs in 8-row blocks only (the default takes wide blocks first) */
static void k_matvec_narrow(kb_items *b, int m)
{
    ovk__run_set_kernels(-1, 0);
    k_matvec(b, m);
    ovk__run_set_kernels(-1, 1);
}
static void k_dot(kb_items *b, int m)
{
    (void)m;
    b->sink += ovk__dot(b->n, b->v[V_S], b->v[V_P]);
}
static void k_matvec_then_dot(kb_items *b, int m)
{
    k_matvec(b, m);
    k_dot(b, m);
}
static void k_matvec_dot(kb_items *b, int m)
{
    double ps;
    ovk__matvec_dot(b->A[m], b->v[V_P], b->v[V_S], &ps, &b->hook);
    b->sink += ps;
}
static void k_axpy2(kb_items *b, int m)
{
    (void)m;
    ovk__axpy2(b->n, ALPHA, b->v[V_P], b->v[V_X], b->v[V_S], b->v[V_R], &b->hook);
}
static void k_diagscale(kb_items *b, int m)
{
    double rs, rr;
    (void)m;
    b->jacobi.type->apply_dots(b->jacobi.state, b->v[V_R], b->v[V_S], &rs, &rr, &b->hook);
    b->sink += rs + rr;
}
static void k_alg1_update(kb_items *b, int m)
{
    double rs, rr;
    const double *diag = b->A[M_AUTO] ? b->A[M_AUTO]->diagonal : b->v[V_D];
    (void)m;
    ovk__alg1_update(b->n, ALPHA, b->v[V_P], b->v[V_X], b->v[V_S], b->v[V_R], diag, &rs, &rr, &b->hook);
    b->sink += rs + rr;
}
static void k_xpay(kb_items *b, int m)
{
    (void)m;
    ovk__xpay(b->n, b->v[V_S], BETA, b->v[V_P], &b->hook);
}
static void k_cg1_update(kb_items *b, int m)
{
    double v[OVK__V_COUNT], **x = b->v;
    (void)m;
    ovk__cg1_update(b->n, ALPHA, BETA, b->dinv, x[V_W], x[V_U], x[V_P], x[V_S], x[V_X], x[V_R], v, &b->hook);
    b->sink += v[OVK__V_GAMMA];
}
static void k_dots1(kb_items *b, int m)
{
    double wu;
    (void)m;
    ovk__dots(b->n, 1, (const double *const[]){b->v[V_W]}, (const double *const[]){b->v[V_U]}, &wu, &b->hook);
    b->sink += wu;
}
static void k_pipecg_update(kb_items *b, int m)
{
    double v[OVK__V_COUNT], **x = b->v;
    (void)m;
    ovk__pipe_vecs pv = {.x = x[V_X], .r = x[V_R], .w = x[V_W], .p = x[V_P], .s = x[V_S], .z = x[V_Z],
                         .m = x[V_M], .n = x[V_N], .d = b->dinv};
    ovk__pipecg_update(b->n, ALPHA, BETA, &pv, v, &b->hook);
    b->sink += v[OVK__V_GAMMA];
}
static void k_mul_then_dot(kb_items *b, int m)
{
    (void)m;
    ovk__mul(b->n, b->dinv, b->v[V_W], b->v[V_M], &b->hook);
    b->sink += ovk__dot(b->n, b->v[V_M], b->v[V_M]);
}
static void k_mul_dot(kb_items *b, int m)
{
    double mm;
    (void)m;
    ovk__mul_dot(b->n, b->dinv, b->v[V_W], b->v[V_M], &mm, &b->hook);
    b->sink += mm;
}

/* ---- whole iterations (the vector passes of a step and its matvecs) -- */

static void it_alg1_before(kb_items *b, int m)
{
    k_matvec(b, m);
    k_dot(b, m);
    k_axpy2(b, m);
    k_diagscale(b, m);
    k_xpay(b, m);
}
static void it_alg1(kb_items *b, int m)
{
    k_matvec_dot(b, m);
    k_alg1_update(b, m);
    k_xpay(b, m);
}
static void it_cg1_before(kb_items *b, int m)
{
    k_cg1_update(b, m);
    ovk__matvec(b->A[m], b->v[V_U], b->v[V_W], &b->hook);
    k_dots1(b, m);
}
static void it_cg1(kb_items *b, int m) { it_cg1_before(b, m); } /* the same passes, packed values */
static void it_pipecg_before(kb_items *b, int m)
{
    k_pipecg_update(b, m);
    k_mul_then_dot(b, m);
    ovk__matvec(b->A[m], b->v[V_M], b->v[V_N], &b->hook);
}
static void it_pipecg(kb_items *b, int m)
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
    {"matvec, no runs, strips", 1, M_STRIPS, 0, 2, 1, k_matvec},
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
_Static_assert((int)NITEMS == (int)OVK_KB_ITEMS, "items.h counts the items");

/* ---- set-up ------------------------------------------------------------ */

/* the compute ceiling's shared row (the widest), run length (the mean)
 * and window; none (rK = 0) without runs or when the window is too small */
static void setup_ceiling(kb_items *b, const ovk__runs *r)
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
    for (int i = 0; i < CEIL_WINDOW; i++) ceil_x[i] = 1.0 + FILL_STEP * (i % FILL_PERIOD);
    b->roff = off, b->rval = r->pat_val + r->pat_ptr[p];
    b->rK = K, b->rlen = len, b->rfirst = -lo;
}

/* Jacobi on A (DiagScale for alg1; its 1 / a_ii for cg1 and pipecg) */
static int setup_jacobi(kb_items *b, const ovk_matrix *A, int n, MPI_Comm comm)
{
    int rc = ovk__pc_create("jacobi", &b->jacobi);
    if (rc) return rc;
    rc = b->jacobi.type->setup(b->jacobi.state, &(ovk__pc_env){.A = A, .n = n, .comm = comm});
    if (rc) return rc;
    b->dinv = b->jacobi.type->diagonal(b->jacobi.state);
    return OVK_OK;
}

/* the Laplacian in each form of M_*: values packed as the library picks, as
 * float, as double; without runs (and strips); in strips; one triangle */
static int setup_matrix(kb_items *b, int edge)
{
    int size, rc = OVK_OK;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const int allow[M_COUNT] = {OVK__VAL_ALLOW_ALL, 1 << OVK__VAL_FLOAT | 1, 1 << OVK__VAL_DOUBLE,
                                       OVK__VAL_ALLOW_ALL, OVK__VAL_ALLOW_ALL, OVK__VAL_ALLOW_ALL};
    for (int m = 0; m < M_COUNT && !rc; m++) {
        rc = ovk_laplace_create(MPI_COMM_WORLD, OVK_STENCIL_27, edge, edge, edge, size, 1, 1, &b->A[m]);
        if (!rc && m >= M_NORUNS) ovk__csr_drop_runs(&b->A[m]->diag);
        if (!rc && m == M_UPPER) rc = ovk__csr_keep_upper(&b->A[m]->diag);
        if (!rc) rc = ovk__csr_pack_values(&b->A[m]->diag, allow[m]);
        if (!rc && m == M_NORUNS) ovk__csr_drop_strips(&b->A[m]->diag);
    }
    if (rc) return rc;
    b->n = ovk_matrix_nlocal(b->A[M_AUTO]);
    setup_ceiling(b, b->A[M_AUTO]->diag.runs);
    return setup_jacobi(b, b->A[M_AUTO], b->n, MPI_COMM_WORLD);
}

/* no Laplacian: diag(26) on this rank alone */
static int setup_diagonal(kb_items *b, int n)
{
    int *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (size_t)n);
    int rc = ptr && col ? OVK_OK : OVK_ENOMEM;
    for (int i = 0; !rc && i <= n; i++) ptr[i] = i;
    for (int i = 0; !rc && i < n; i++) col[i] = i;
    if (!rc) rc = ovk_matrix_create_csr(MPI_COMM_SELF, 0, n, ptr, col, b->v[V_D], OVK_DUP_REJECT, &b->D);
    free(ptr);
    free(col);
    if (rc) return rc;
    return setup_jacobi(b, b->D, n, MPI_COMM_SELF);
}

/* the vectors, staggered in one block as ovk__ctx_alloc_block places them
 * (-aligned: every vector on its own page boundary, as calloc places large
 * vectors) */
static int setup(kb_items *b, int edge, int n, int every, int aligned)
{
    if (edge > 0) {
        int rc = setup_matrix(b, edge);
        if (rc) return rc;
        n = b->n;
    }
    b->n = n;
    b->hook = (ovk__hook){every > 0 ? nothing : NULL, NULL, every};
    size_t stride = ((size_t)n + VEC_ROUND - 1) / VEC_ROUND * VEC_ROUND + (aligned ? 0 : VEC_STAGGER);
    if (posix_memalign((void **)&b->block, PAGE, sizeof(double) * stride * V_COUNT)) return OVK_ENOMEM;
    for (int k = 0; k < V_COUNT; k++) b->v[k] = b->block + stride * (size_t)k;
    for (int k = 0; k < V_COUNT; k++)
        for (int i = 0; i < n; i++) b->v[k][i] = k == V_D ? DIAGONAL : 1.0 + FILL_STEP * (i % FILL_PERIOD);
    return edge > 0 ? OVK_OK : setup_diagonal(b, n);
}

void ovk_kb_free(kb_items *b)
{
    if (!b) return;
    ovk__pc_destroy(&b->jacobi);
    for (int m = 0; m < M_COUNT; m++) ovk_matrix_destroy(b->A[m]);
    ovk_matrix_destroy(b->D);
    free(b->block);
    free(b);
}

void ovk_kb_bytes(const kb_items *b, int k, double *bytes, double *ws)
{
    const item *it = &items[k];
    double mv = it->mat ? ovk__matvec_bytes(b->A[it->amat]) : 0.0;
    *bytes = mv * it->matvecs + (double)it->vbytes * b->n;
    /* the matrix (its streamed bytes less x and y) plus the distinct vectors
     * (none for the compute ceiling: its window sits in L1, as the smallest
     * twin triad does) */
    *ws = (it->mat && it->matvecs ? mv - 16.0 * b->n : 0.0) + 8.0 * b->n * it->nvec;
}

/* ---- the items' interface ------------------------------------------------ */

int ovk_kb_setup(int edge, int n, int every, int aligned, kb_items **out)
{
    kb_items *b = calloc(1, sizeof *b);
    *out = b;
    return b ? setup(b, edge, n, every, aligned) : OVK_ENOMEM;
}

int ovk_kb_count(void) { return NITEMS; }

const char *ovk_kb_name(int k) { return items[k].name; }

int ovk_kb_needs_matrix(int k) { return items[k].mat; }

int ovk_kb_rows(const kb_items *b) { return b->n; }

double ovk_kb_sink(const kb_items *b) { return b->sink; }

void ovk_kb_run(kb_items *b, int k, long calls)
{
    for (long c = 0; c < calls; c++) items[k].run(b, items[k].amat);
}

const char *ovk_kb_value_form(const kb_items *b)
{
    if (!b->A[M_AUTO]) return "-";
    int vf = b->A[M_AUTO]->diag.vform;
    return vf == OVK__VAL_DICT8 ? "dict8" : vf == OVK__VAL_FLOAT ? "float" : "double";
}
