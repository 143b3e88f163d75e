/* Block SSOR for any matrix, with Eisenstat's trick (Eisenstat, SISC 2,
 * 1981; PETSc's PCEISENSTAT).  With the rank's diagonal block
 * A_d = L + D + U (A = A_d + A_o, A_o the off-rank columns), relaxation w:
 *
 *   M = (D/w + L) (D/w)^-1 (D/w + U) = Lt Ut,   C = M^-1,
 *   Lt = D + w L,   Ut = I/w + D^-1 U
 *
 * (w = 1: symmetric Gauss-Seidel; for 0 < w < 2 the SSOR preconditioner
 * without its factor w (2 - w), which no Krylov iterate sees).  apply is
 * C, two sweeps with no communication, for every solver.
 *
 * The split form (precond.h) lets a solver iterate on A^ = Lt^-1 A Ut^-1.
 * In the rows scaled by D^-1 (A' = D^-1 A = I + L' + U' + O'), Lt =
 * D (I + w L') and I + L' + U' = (I/w + L') + (I/w + U') + (1 - 2/w) I, so
 * for t = Ut^-1 v:
 *
 *   A^ v = t/w + y,   y = (I + w L')^-1 (v + (1 - 2/w) t + O' t)
 *
 * one backward sweep for t, the halo of t, one forward sweep with the
 * off-rank rows folded in: the triangles and A_o read once each, where
 * C then A would read the triangles and all of A, and no diagonal read
 * in either (the scaled triangles w L', w U' and O' are kept).
 *
 * The sweeps stream each triangle apart (as ilu0), its columns as 16-bit
 * offsets from the row where all fit.  The values stay double: the fused
 * product is A^ only with the triangles of A itself (rounded ones would
 * make it the split operator of another matrix).
 *
 * The split form carries a power of two sigma ~ max |a_ii| (the same on
 * every rank): split_in is sigma Lt^-1 and split_out Ut^-1 / sigma, so A^
 * is unchanged while r^ = sigma Lt^-1 r keeps the size of r whatever the
 * scale of A (D^-1 r alone overflows <r^,r^> for |a_ii| ~ 1e-116 and
 * underflows it for |a_ii| ~ 1e116).  Exact: sigma is a power of two. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "precond.h"

typedef struct eis {
    double omega;
    double sigma;   /* split_in's factor (2^k ~ max |a_ii|), split_out's divisor */
    const ovk_matrix *A; /* the setup's matrix, whose halo split_op exchanges */
    int n;
    ovk__tri lo, up;    /* w D^-1 L and w D^-1 U (strict triangles of the block, rows scaled) */
    double *dinv;   /* 1 / a_ii */
    double *oval;   /* D^-1 A_o: the offd block's values, rows scaled */
    int offd_nnz;   /* of the offd block they were made from */
    double *s;      /* the fused product's forward sweep (y) */
} eis;

static void eis_free(eis *e)
{
    ovk__tri_free(&e->lo);
    ovk__tri_free(&e->up);
    free(e->dinv);
    free(e->oval);
    free(e->s);
    e->dinv = e->oval = e->s = NULL;
    e->A = NULL;
    e->n = e->offd_nnz = 0;
}

static int eis_create(ovk__opts *opts, void **state)
{
    double omega = 1.0;
    const ovk__opt_entry t[] = {OVK__OPT_DOUBLE("omega", 1e-3, 2.0 - 1e-3, &omega)};
    int rc = ovk__opts_read(opts, "eisenstat", t, 1);
    if (!rc) rc = ovk__pc_zeroed_state(sizeof(eis), "eisenstat", state);
    if (rc) return rc;
    eis *e = *state;
    e->omega = omega;
    return OVK_OK;
}

static void eis_destroy(void *state)
{
    eis_free(state);
    free(state);
}

/* t = the strict lower (upper = 0) or upper triangle of the block's CSR
 * (ptr, col, val), each row's entries in their order, row i scaled by
 * scale[i] */
static int split_tri(int n, const int *ptr, const int *col, const double *val, const double *scale, int upper,
                     ovk__tri *t)
{
    t->ptr = malloc(sizeof(int) * ((size_t)n + 1));
    if (!t->ptr) return ovk__fail(OVK_ENOMEM, "eisenstat: %d rows", n);
    t->ptr[0] = 0;
    for (int i = 0; i < n; i++) {
        int c = 0;
        for (int k = ptr[i]; k < ptr[i + 1]; k++) c += upper ? col[k] > i : col[k] < i;
        t->ptr[i + 1] = t->ptr[i] + c;
    }
    size_t nnz = (size_t)t->ptr[n];
    t->col = malloc(sizeof(int) * (nnz > 0 ? nnz : 1));
    t->val = malloc(sizeof(double) * (nnz > 0 ? nnz : 1));
    if (!t->col || !t->val) return ovk__fail(OVK_ENOMEM, "eisenstat: %zu entries", nnz);
    for (int i = 0, m = 0; i < n; i++)
        for (int k = ptr[i]; k < ptr[i + 1]; k++)
            if (upper ? col[k] > i : col[k] < i) {
                t->col[m] = col[k];
                t->val[m++] = scale[i] * val[k];
            }
    return OVK_OK;
}

static int eis_setup(void *state, const ovk__pc_env *env)
{
    eis *e = state;
    const ovk_matrix *A = env->A;
    eis_free(e); /* a failed setup leaves no state: split_op and apply need a setup */
    int rc = ovk__pc_diag_check_sign(A, "eisenstat", env->nonsymmetric);
    if (rc) return rc;
    double amax = 0.0; /* max |a_ii| over every rank: sigma = its power of two */
    for (int i = 0; i < A->lay.nlocal; i++) amax = fmax(amax, fabs(A->diagonal[i]));
    rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, &amax, 1, MPI_DOUBLE, MPI_MAX, A->lay.comm),
                  "MPI_Allreduce (eisenstat: the largest diagonal entry)");
    if (rc) return rc;
    int ex = 0;
    (void)frexp(amax > 0.0 ? amax : 1.0, &ex);
    e->sigma = ldexp(1.0, ex - 1); /* amax in [sigma, 2 sigma): normal, a_ii normal */
    e->A = A;
    int n = e->n = A->lay.nlocal;
    double *ws = NULL; /* w / a_ii */
    rc = ovk__pc_alloc(n, "eisenstat", &e->dinv);
    if (!rc) rc = ovk__pc_alloc(n, "eisenstat", &e->s);
    if (!rc) rc = ovk__pc_alloc(n, "eisenstat", &ws);
    int onnz = A->ncols_offd > 0 ? A->offd.rowptr[n] : 0;
    if (!rc) rc = ovk__pc_alloc(onnz, "eisenstat", &e->oval);
    if (rc) {
        free(ws);
        eis_free(e);
        return rc;
    }
    for (int i = 0; i < n; i++) {
        e->dinv[i] = 1.0 / A->diagonal[i];
        ws[i] = e->omega * e->dinv[i];
    }
    e->offd_nnz = onnz;
    for (int i = 0; onnz > 0 && i < n; i++) /* O' = D^-1 A_o */
        for (int k = A->offd.rowptr[i]; k < A->offd.rowptr[i + 1]; k++) e->oval[k] = e->dinv[i] * A->offd.val[k];
    int *ptr = malloc(sizeof(int) * ((size_t)n + 1)), *col = NULL;
    double *val = NULL;
    if (!ptr) rc = ovk__fail(OVK_ENOMEM, "eisenstat: %d rows", n);
    if (!rc) rc = ovk__matrix_diag_ptr(A, ptr);
    if (!rc) {
        size_t nnz = (size_t)ptr[n];
        col = malloc(sizeof(int) * (nnz > 0 ? nnz : 1));
        val = malloc(sizeof(double) * (nnz > 0 ? nnz : 1));
        if (!col || !val) rc = ovk__fail(OVK_ENOMEM, "eisenstat: %zu entries", nnz);
    }
    if (!rc) rc = ovk__matrix_diag_fill(A, ptr, col, val);
    if (!rc) rc = split_tri(n, ptr, col, val, ws, 0, &e->lo); /* w L' */
    if (!rc) rc = split_tri(n, ptr, col, val, ws, 1, &e->up); /* w U' */
    free(ptr);
    free(col);
    free(val);
    free(ws);
    if (!rc && ovk__tri_offsets_fit(&e->lo, n) && ovk__tri_offsets_fit(&e->up, n)) {
        rc = ovk__tri_compact(&e->lo, n, 1, 0, "eisenstat");
        if (!rc) rc = ovk__tri_compact(&e->up, n, 1, 0, "eisenstat");
    }
    if (rc) eis_free(e); /* no half-built state (e.g. lo compacted, up not) */
    return rc;
}

/* sum_k t_ik x_k over row i of triangle t, in the storage form (off)
 * that the callers' constant argument selects; dir: the sweep's (+1, -1) */
static inline __attribute__((always_inline)) double row_sum(const ovk__tri *t, int i, const double *x, int off,
                                                            int dir)
{
    OVK__AHEAD(t->val + t->ptr[i], dir);
    if (off) OVK__AHEAD(t->off + t->ptr[i], dir);
    else OVK__AHEAD(t->col + t->ptr[i], dir);
    double s = 0.0;
    for (int k = t->ptr[i]; k < t->ptr[i + 1]; k++) {
        int j = off ? i + t->off[k] : t->col[k];
        s += t->val[k] * x[j];
    }
    return s;
}

/* backward: y = Ut^-1 v = (I/w + U')^-1 v, y_i = w v_i - sum_{j>i} (w u'_ij) y_j.
 * y may be v. */
static inline __attribute__((always_inline)) void upper_sweep(const eis *e, const double *v, double *y,
                                                               const ovk__hook *h, int off)
{
    double w = e->omega;
    int n = e->n, step = ovk__chunk_rows(n, h);
    for (int hi = n; hi > 0; hi -= step) {
        int lo = hi > step ? hi - step : 0;
        for (int i = hi - 1; i >= lo; i--) y[i] = w * v[i] - row_sum(&e->up, i, y, off, -1);
        ovk__poke(h);
    }
}

/* forward: y = Lt^-1 r = (I + w L')^-1 D^-1 r, y_i = r_i / a_ii - sum_{j<i}
 * (w l'_ij) y_j.  y may be r. */
static inline __attribute__((always_inline)) void lower_sweep(const eis *e, const double *r, double *y,
                                                               const ovk__hook *h, int off)
{
    const double *restrict dinv = e->dinv;
    int n = e->n, step = ovk__chunk_rows(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) y[i] = r[i] * dinv[i] - row_sum(&e->lo, i, y, off, 1);
        ovk__poke(h);
    }
}

/* the fused product's forward sweep: g = v + (1 - 2/w) t + O' t (O' t from
 * the halo's external values), y = (I + w L')^-1 g (in s), w = t/w + y;
 * out may be t (row i reads t_i only) */
static inline __attribute__((always_inline)) void fused_forward(const eis *e, const ovk_matrix *A, const double *v,
                                                                 const double *t, double *out, const ovk__hook *h,
                                                                 int off)
{
    const double *restrict ext = A->halo.ext, *restrict oval = e->oval;
    double *restrict y = e->s;
    const int *restrict optr = A->offd.rowptr, *restrict ocol = A->offd.col;
    int has_offd = e->offd_nnz > 0;
    double rw = 1.0 / e->omega, c = 1.0 - 2.0 / e->omega;
    int n = e->n, step = ovk__chunk_rows(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) {
            double ti = t[i], g = v[i] + c * ti;
            if (has_offd)
                for (int k = optr[i]; k < optr[i + 1]; k++) g += oval[k] * ext[ocol[k]];
            double yi = g - row_sum(&e->lo, i, y, off, 1);
            y[i] = yi;
            out[i] = rw * ti + yi;
        }
        ovk__poke(h);
    }
}

/* The kernels above for each storage form, chosen once per call. */
#define FORMS(CALL)          \
    do {                     \
        if (e->lo.off)       \
            CALL(1);         \
        else                 \
            CALL(0);         \
    } while (0)

/* z = M^-1 r = Ut^-1 Lt^-1 r, in place in z */
static int eis_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    const eis *e = state;
#define APPLY(OF)                          \
    do {                                   \
        lower_sweep(e, r, z, h, OF);       \
        upper_sweep(e, z, z, h, OF);       \
    } while (0)
    FORMS(APPLY);
#undef APPLY
    return OVK_OK;
}

/* y *= f (f a power of two: exact) */
static void scale_by(int n, double f, double *y)
{
    if (f == 1.0) return;
    for (int i = 0; i < n; i++) y[i] *= f;
}

/* rh = sigma Lt^-1 r (the sweep, then the exact factor) */
static int eis_split_in(void *state, const double *r, double *rh, const ovk__hook *h)
{
    const eis *e = state;
#define IN(OF) lower_sweep(e, r, rh, h, OF)
    FORMS(IN);
#undef IN
    scale_by(e->n, e->sigma, rh);
    return OVK_OK;
}

/* x = 2^k Ut^-1 xh / sigma (one exact factor 2^(k - log2 sigma)) */
static int eis_split_out(void *state, const double *xh, double *x, int k, const ovk__hook *h)
{
    const eis *e = state;
#define OUT(OF) upper_sweep(e, xh, x, h, OF)
    FORMS(OUT);
#undef OUT
    scale_by(e->n, ldexp(1.0, k - ilogb(e->sigma)), x);
    return OVK_OK;
}

/* w = Lt^-1 A Ut^-1 v with A the setup's: t = Ut^-1 v (in w), its halo,
 * then the forward sweep writing w over t row by row */
static int eis_split_op(void *state, const double *v, double *w, const ovk__hook *h)
{
    eis *e = state;
    const ovk_matrix *A = e->A;
#define UP(OF) upper_sweep(e, v, w, h, OF)
    FORMS(UP);
#undef UP
    int rc = ovk__halo_begin(A, w);
    if (!rc) rc = ovk__halo_end(A);
    if (rc) return rc;
#define FWD(OF) fused_forward(e, A, v, w, w, h, OF)
    FORMS(FWD);
#undef FWD
    return OVK_OK;
}

static void eis_view(void *state, FILE *f)
{
    const eis *e = state;
    fprintf(f, "  eisenstat: omega %g, triangles' columns as %s, split scale 2^%d\n", e->omega,
            e->lo.off ? "16-bit offsets" : "int", ilogb(e->sigma > 0.0 ? e->sigma : 1.0));
}

const ovk__pc_type ovk__pc_eisenstat = {
    .needs_matrix = 1,
    .create = eis_create, .setup = eis_setup, .destroy = eis_destroy,
    .apply = eis_apply,
    .split_in = eis_split_in, .split_op = eis_split_op, .split_out = eis_split_out,
    .view = eis_view,
};
