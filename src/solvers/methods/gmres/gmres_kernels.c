/* The passes of gmres.c's cycles over the vectors (gmres.h): a basis's
 * sums against a vector, its combinations, and DCGS2's two vectors against
 * it in one pass, with float (basis=single) and double vectors; also the
 * vector kernels pgmres.c and sgmres.c call (solver.h).  Each pass walks
 * the rows in cache-sized chunks, the basis's vectors four at a time, so a
 * vector's chunk is read from memory once for all of them. */
#include <string.h>

#include "gmres.h"

enum { CACHE_ROWS = 2048 };

/* Rows in chunks of at most CACHE_ROWS (a vector's chunk stays in cache
 * while the basis passes over it), the hook poked once every rows have
 * passed (its own chunk size) and after the last chunk. */
typedef struct chunks {
    int n, every, step, since;
    const ovk__hook *h;
} chunks;

static chunks chunks_of(ovk__ctx *c)
{
    int every = ovk__chunk_rows(c->n, &c->hook);
    return (chunks){.n = c->n, .every = every, .step = every < CACHE_ROWS ? every : CACHE_ROWS, .h = &c->hook};
}

static void chunk_done(chunks *ch, int lo, int hi)
{
    ch->since += hi - lo;
    if (ch->since >= ch->every || hi == ch->n) {
        ovk__poke(ch->h);
        ch->since = 0;
    }
}

/* out[0..nx-1] += <X[i], w> over rows lo..hi for up to four vectors: w's
 * entry is loaded once for all of them, each sum in SIMD lanes.  Absent
 * vectors alias w; their sums are dropped. */
static void dots4(int nx, const double *const *X, const double *restrict w, int lo, int hi, double *out)
{
    const double *restrict x0 = X[0], *restrict x1 = nx > 1 ? X[1] : w, *restrict x2 = nx > 2 ? X[2] : w,
                 *restrict x3 = nx > 3 ? X[3] : w;
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
#pragma omp simd reduction(+ : a0, a1, a2, a3)
    for (int r = lo; r < hi; r++) {
        double u = w[r];
        a0 += x0[r] * u;
        a1 += x1[r] * u;
        a2 += x2[r] * u;
        a3 += x3[r] * u;
    }
    double s[4] = {a0, a1, a2, a3};
    for (int i = 0; i < nx; i++) out[i] += s[i];
}

/* dots4 of float vectors, summed in double; absent ones alias F[0] */
static void dots4_single(int nx, const float *const *F, const double *restrict w, int lo, int hi, double *out)
{
    const float *restrict f0 = F[0], *restrict f1 = F[nx > 1], *restrict f2 = F[nx > 2 ? 2 : 0],
                          *restrict f3 = F[nx > 3 ? 3 : 0];
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
    for (int r = lo; r < hi; r++) {
        s0 += (double)f0[r] * w[r];
        s1 += (double)f1[r] * w[r];
        s2 += (double)f2[r] * w[r];
        s3 += (double)f3[r] * w[r];
    }
    const double sum[4] = {s0, s1, s2, s3};
    for (int i = 0; i < nx; i++) out[i] += sum[i];
}


static void basis_dots_rows(const ovk__basis *b, const double *w, int lo, int hi, double *out)
{
    for (int i = 0; i < b->nf; i += 4) dots4_single(b->nf - i < 4 ? b->nf - i : 4, b->F + i, w, lo, hi, out + i);
    for (int i = 0; i < b->nd; i += 4) dots4(b->nd - i < 4 ? b->nd - i : 4, b->X + i, w, lo, hi, out + b->nf + i);
}

void ovk__basis_dots(ovk__ctx *c, const ovk__basis *b, const double *w, double *out)
{
    ovk__tic t0 = ovk__tic_start(c);
    chunks ch = chunks_of(c);
    for (int i = 0; i < b->nf + b->nd; i++) out[i] = 0.0;
    for (int lo = 0; lo < ch.n; lo += ch.step) { /* w's chunk stays in cache for the k sums */
        int hi = ovk__chunk_end(lo, ch.step, ch.n);
        basis_dots_rows(b, w, lo, hi, out);
        chunk_done(&ch, lo, hi);
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

void ovk__gmres_dots(ovk__ctx *c, int k, const double *const *X, const double *w, double *out)
{
    ovk__basis_dots(c, &(ovk__basis){.nd = k, .X = X}, w, out);
}

/* y = s (y + sum_i a_i X[i]) over rows lo..hi for up to four vectors: y
 * read and written once for all of them (element-wise: cloned) */
OVK__CLONES static void combine4(int nx, const double *const *X, const double *a, double s, double *restrict y, int lo, int hi)
{
    const double *restrict x0 = X[0];
    double a0 = a[0];
    if (nx == 1) {
#pragma omp simd
        for (int r = lo; r < hi; r++) y[r] = s * (y[r] + a0 * x0[r]);
        return;
    }
    const double *restrict x1 = X[1];
    double a1 = a[1];
    if (nx == 2) {
#pragma omp simd
        for (int r = lo; r < hi; r++) y[r] = s * (y[r] + a0 * x0[r] + a1 * x1[r]);
        return;
    }
    const double *restrict x2 = X[2];
    double a2 = a[2];
    if (nx == 3) {
#pragma omp simd
        for (int r = lo; r < hi; r++) y[r] = s * (y[r] + a0 * x0[r] + a1 * x1[r] + a2 * x2[r]);
        return;
    }
    const double *restrict x3 = X[3];
    double a3 = a[3];
#pragma omp simd
    for (int r = lo; r < hi; r++) y[r] = s * (y[r] + a0 * x0[r] + a1 * x1[r] + a2 * x2[r] + a3 * x3[r]);
}

/* combine4 of float vectors; absent ones alias F[0] with coefficient 0
 * (adds exact zeros to a finite sum) */
static void combine4_single(int nx, const float *const *F, const double *a, double s, double *restrict y, int lo,
                            int hi)
{
    const float *restrict x0 = F[0], *restrict x1 = F[nx > 1], *restrict x2 = F[nx > 2 ? 2 : 0],
                          *restrict x3 = F[nx > 3 ? 3 : 0];
    double a0 = a[0], a1 = nx > 1 ? a[1] : 0.0, a2 = nx > 2 ? a[2] : 0.0, a3 = nx > 3 ? a[3] : 0.0;
#pragma omp simd
    for (int r = lo; r < hi; r++)
        y[r] = s * (y[r] + a0 * (double)x0[r] + a1 * (double)x1[r] + a2 * (double)x2[r] + a3 * (double)x3[r]);
}

/* y = scale (y + sum_i coef[i] b_i) over rows lo..hi, the scale with the
 * last four (exact 1.0 before) */
static void basis_combine_rows(const ovk__basis *b, const double *coef, double scale, double *y, int lo, int hi)
{
    for (int i = 0; i < b->nf; i += 4)
        combine4_single(b->nf - i < 4 ? b->nf - i : 4, b->F + i, coef + i, i + 4 >= b->nf && !b->nd ? scale : 1.0,
                        y, lo, hi);
    for (int i = 0; i < b->nd; i += 4)
        combine4(b->nd - i < 4 ? b->nd - i : 4, b->X + i, coef + b->nf + i, i + 4 >= b->nd ? scale : 1.0, y, lo, hi);
    if (b->nf + b->nd == 0 && scale != 1.0)
        for (int r = lo; r < hi; r++) y[r] *= scale;
}

/* out = (float) y over rows lo..hi (out NULL: none) */
static void store_single(const double *restrict y, float *restrict out, int lo, int hi)
{
    if (!out) return;
#pragma omp simd
    for (int r = lo; r < hi; r++) out[r] = (float)y[r];
}

/* y = scale (y + B coef) in one pass over y; copy (not NULL) = (float) y */
void ovk__basis_combine(ovk__ctx *c, const ovk__basis *b, const double *coef, double scale, double *y, float *copy)
{
    ovk__tic t0 = ovk__tic_start(c);
    chunks ch = chunks_of(c);
    for (int lo = 0; lo < ch.n; lo += ch.step) { /* y's chunk stays in cache for the k terms */
        int hi = ovk__chunk_end(lo, ch.step, ch.n);
        basis_combine_rows(b, coef, scale, y, lo, hi);
        store_single(y, copy, lo, hi);
        chunk_done(&ch, lo, hi);
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

void ovk__gmres_combine(ovk__ctx *c, int k, const double *const *X, const double *coef, double scale, double *y)
{
    ovk__basis_combine(c, &(ovk__basis){.nd = k, .X = X}, coef, scale, y, NULL);
}

/* As basis_combine (at least one vector), and in the same pass v *= t (v
 * one of the X, its chunk still in cache) or, with vs, vs = (float) t v
 * (v left as it is), and *yy = <y,y> (local) */
void ovk__basis_combine_norm(ovk__ctx *c, const ovk__basis *b, const double *coef, double scale, double *y, double *v,
                         double t, float *vs, double *yy)
{
    ovk__tic t0 = ovk__tic_start(c);
    chunks ch = chunks_of(c);
    double a = 0.0;
    for (int lo = 0; lo < ch.n; lo += ch.step) {
        int hi = ovk__chunk_end(lo, ch.step, ch.n);
        basis_combine_rows(b, coef, scale, y, lo, hi);
        if (vs) {
#pragma omp simd
            for (int r = lo; r < hi; r++) vs[r] = (float)(t * v[r]);
        } else {
#pragma omp simd
            for (int r = lo; r < hi; r++) v[r] *= t;
        }
#pragma omp simd reduction(+ : a)
        for (int r = lo; r < hi; r++) a += y[r] * y[r];
        chunk_done(&ch, lo, hi);
    }
    *yy = a;
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* ---- DCGS2 kernels: two vectors against the basis in one pass --------- */

/* The two-vector sums run in eight fixed lanes (lane l: the rows r = l mod
 * 8 of each group of eight from lo), summed over the lanes in one fixed
 * order at the end, whatever the instruction set: AVX-512 one register of
 * eight (four basis vectors per call), AVX2 two of four (two basis vectors
 * per call, the sums in its sixteen registers), else the same quads as the
 * compiler lowers them; every version gives the same bits.  The
 * element-wise updates are cloned as they are (OVK__CLONES). */
typedef double quad __attribute__((vector_size(4 * sizeof(double))));
typedef double octet __attribute__((vector_size(8 * sizeof(double))));

/* the eight lanes' sum, in a fixed order */
static double lanes_sum(const double *e)
{
    return ((e[0] + e[1]) + (e[2] + e[3])) + ((e[4] + e[5]) + (e[6] + e[7]));
}

/* The body of a kernel over G basis vectors (G <= 4) with S vectors of
 * type V per group of eight rows: ou[i] += <X[i], u>, ow[i] += <X[i], w>
 * (absent vectors alias u, their sums dropped), the rows after the last
 * group of eight summed after the lanes. */
#define DOTS_X2_BODY(V, S, G)                                                                      \
    const double *x[4];                                                                            \
    for (int i = 0; i < (G); i++) x[i] = i < nx ? X[i] : u;                                        \
    V a[G][S], b[G][S], p[S], q[S], y;                                                             \
    memset(a, 0, sizeof a);                                                                        \
    memset(b, 0, sizeof b);                                                                        \
    int r = lo, part = 8 / (S); /* rows per vector of V */                                                                      \
    for (; r + 8 <= hi; r += 8) {                                                                  \
        for (int k = 0; k < (S); k++) {                                                            \
            memcpy(&p[k], u + r + k * part, sizeof(V));                                              \
            memcpy(&q[k], w + r + k * part, sizeof(V));                                              \
        }                                                                                          \
        _Pragma("GCC unroll 4") for (int i = 0; i < (G); i++)                                      \
            _Pragma("GCC unroll 2") for (int k = 0; k < (S); k++) {                                \
            memcpy(&y, x[i] + r + k * part, sizeof(V));                                              \
            a[i][k] += y * p[k];                                                                   \
            b[i][k] += y * q[k];                                                                   \
        }                                                                                          \
    }                                                                                              \
    for (int i = 0; i < (G) && i < nx; i++) {                                                      \
        double ea[8], eb[8];                                                                       \
        memcpy(ea, a[i], sizeof ea);                                                               \
        memcpy(eb, b[i], sizeof eb);                                                               \
        double sa = lanes_sum(ea), sb = lanes_sum(eb);                                             \
        for (int t = r; t < hi; t++) {                                                             \
            sa += x[i][t] * u[t];                                                                  \
            sb += x[i][t] * w[t];                                                                  \
        }                                                                                          \
        ou[i] += sa;                                                                               \
        ow[i] += sb;                                                                               \
    }

static void dots2x2_quads(int nx, const double *const *X, const double *restrict u, const double *restrict w, int lo,
                          int hi, double *ou, double *ow)
{
    DOTS_X2_BODY(quad, 2, 2)
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define OVK_DOTS_X86 1
__attribute__((target("avx2"))) static void dots2x2_avx2(int nx, const double *const *X, const double *restrict u,
                                                        const double *restrict w, int lo, int hi, double *ou,
                                                        double *ow)
{
    DOTS_X2_BODY(quad, 2, 2)
}

__attribute__((target("avx512f"))) static void dots4x2_avx512(int nx, const double *const *X, const double *restrict u,
                                                             const double *restrict w, int lo, int hi, double *ou,
                                                             double *ow)
{
    DOTS_X2_BODY(octet, 1, 4)
}
#endif

/* the widest version the CPU runs: 2 AVX-512, 1 AVX2, 0 the quads (asked
 * at each call: a load of the flags GCC's start-up code set, and no
 * state shared between threads) */
static int dots_isa(void)
{
#ifdef OVK_DOTS_X86
    return __builtin_cpu_supports("avx512f") ? 2 : (__builtin_cpu_supports("avx2") ? 1 : 0);
#else
    return 0;
#endif
}

/* ou[i] += <X[i], u>, ow[i] += <X[i], w> over rows lo..hi for up to four
 * vectors, by the version isa */
static void dots4x2_by(int isa, int nx, const double *const *X, const double *u, const double *w, int lo, int hi,
                       double *ou, double *ow)
{
#ifdef OVK_DOTS_X86
    if (isa == 2) {
        dots4x2_avx512(nx, X, u, w, lo, hi, ou, ow);
        return;
    }
    if (isa == 1) {
        for (int i = 0; i < nx; i += 2)
            dots2x2_avx2(nx - i < 2 ? nx - i : 2, X + i, u, w, lo, hi, ou + i, ow + i);
        return;
    }
#endif
    (void)isa;
    for (int i = 0; i < nx; i += 2) dots2x2_quads(nx - i < 2 ? nx - i : 2, X + i, u, w, lo, hi, ou + i, ow + i);
}

static void dots4x2(int nx, const double *const *X, const double *u, const double *w, int lo, int hi, double *ou,
                    double *ow)
{
    dots4x2_by(dots_isa(), nx, X, u, w, lo, hi, ou, ow);
}

/* For tests (tests/unit/test_gmres_kernels.c): dots4x2 by the version isa
 * (2 AVX-512, 1 AVX2, 0 the quads); -1 when this CPU does not run it */
int ovk__gmres_dots4x2_by(int isa, int nx, const double *const *X, const double *u, const double *w, int lo, int hi,
                          double *ou, double *ow)
{
    if (isa < 0 || isa > dots_isa() || nx < 1 || nx > 4) return -1;
    dots4x2_by(isa, nx, X, u, w, lo, hi, ou, ow);
    return 0;
}

/* dots4x2 of float vectors, summed in double; absent ones alias F[0] */
static void dots4x2_single(int nx, const float *const *F, const double *restrict u, const double *restrict w, int lo,
                           int hi, double *ou, double *ow)
{
    const float *restrict f0 = F[0], *restrict f1 = F[nx > 1], *restrict f2 = F[nx > 2 ? 2 : 0],
                          *restrict f3 = F[nx > 3 ? 3 : 0];
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
#pragma omp simd reduction(+ : a0, a1, a2, a3, b0, b1, b2, b3)
    for (int r = lo; r < hi; r++) {
        double p = u[r], q = w[r], x0 = f0[r], x1 = f1[r], x2 = f2[r], x3 = f3[r];
        a0 += x0 * p;
        b0 += x0 * q;
        a1 += x1 * p;
        b1 += x1 * q;
        a2 += x2 * p;
        b2 += x2 * q;
        a3 += x3 * p;
        b3 += x3 * q;
    }
    const double a[4] = {a0, a1, a2, a3}, b[4] = {b0, b1, b2, b3};
    for (int i = 0; i < nx; i++) {
        ou[i] += a[i];
        ow[i] += b[i];
    }
}

/* d = [Q^T u, <u,u>, Q^T w, <u,w>] (2 k + 2 local sums, k = |Q|), Q and the
 * two vectors read once */
void ovk__basis_dots_two(ovk__ctx *c, const ovk__basis *q, const double *u, const double *w, double *d)
{
    ovk__tic t0 = ovk__tic_start(c);
    int k = q->nf + q->nd;
    chunks ch = chunks_of(c);
    double *du = d, *dw = d + k + 1;
    memset(d, 0, sizeof(double) * (size_t)(2 * k + 2));
    for (int lo = 0; lo < ch.n; lo += ch.step) {
        int hi = ovk__chunk_end(lo, ch.step, ch.n);
        for (int i = 0; i < q->nf; i += 4)
            dots4x2_single(q->nf - i < 4 ? q->nf - i : 4, q->F + i, u, w, lo, hi, du + i, dw + i);
        for (int i = 0; i < q->nd; i += 4)
            dots4x2(q->nd - i < 4 ? q->nd - i : 4, q->X + i, u, w, lo, hi, du + q->nf + i, dw + q->nf + i);
        dots4x2(1, (const double *const[]){u}, u, w, lo, hi, du + k, dw + k); /* <u,u>, <u,w> */
        chunk_done(&ch, lo, hi);
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* u -= sum_i a_i X[i], w -= sum_i b_i X[i] over rows lo..hi for up to four
 * vectors of type T (absent ones alias X[0] with coefficients 0): sub4x2
 * of double vectors, sub4x2_single of float ones */
#define SUB4X2(NAME, T)                                                                                     \
    OVK__CLONES static void NAME(int nx, const T *const *X, const double *a, const double *b,               \
                                 double *restrict u, double *restrict w, int lo, int hi)                    \
    {                                                                                                       \
        const T *restrict x0 = X[0], *restrict x1 = X[nx > 1], *restrict x2 = X[nx > 2 ? 2 : 0],            \
                          *restrict x3 = X[nx > 3 ? 3 : 0];                                                 \
        double a0 = a[0], a1 = nx > 1 ? a[1] : 0.0, a2 = nx > 2 ? a[2] : 0.0, a3 = nx > 3 ? a[3] : 0.0;     \
        double b0 = b[0], b1 = nx > 1 ? b[1] : 0.0, b2 = nx > 2 ? b[2] : 0.0, b3 = nx > 3 ? b[3] : 0.0;     \
        _Pragma("omp simd") for (int r = lo; r < hi; r++)                                                   \
        {                                                                                                   \
            double p0 = x0[r], p1 = x1[r], p2 = x2[r], p3 = x3[r];                                          \
            u[r] -= a0 * p0 + a1 * p1 + a2 * p2 + a3 * p3;                                                  \
            w[r] -= b0 * p0 + b1 * p1 + b2 * p2 + b3 * p3;                                                  \
        }                                                                                                   \
    }
SUB4X2(sub4x2, double)
SUB4X2(sub4x2_single, float)

/* u = ia u, w = (w - tau u) ia over rows lo..hi */
OVK__CLONES static void scale_two(double ia, double tau, double *restrict u, double *restrict w, int lo, int hi)
{
#pragma omp simd
    for (int r = lo; r < hi; r++) {
        u[r] *= ia;
        w[r] = (w[r] - tau * u[r]) * ia;
    }
}

/* In one pass over Q, u and w: v = (u - Q s) / alpha into u (uf not NULL:
 * its float copy, v rounded to it), w = (w - Q t - tau v) / alpha */
void ovk__basis_update_two(ovk__ctx *c, const ovk__basis *q, const double *s, const double *t, double alpha, double tau,
                       double *restrict u, double *restrict w, float *restrict uf)
{
    ovk__tic t0 = ovk__tic_start(c);
    chunks ch = chunks_of(c);
    double ia = 1.0 / alpha;
    for (int lo = 0; lo < ch.n; lo += ch.step) {
        int hi = ovk__chunk_end(lo, ch.step, ch.n);
        for (int i = 0; i < q->nf; i += 4)
            sub4x2_single(q->nf - i < 4 ? q->nf - i : 4, q->F + i, s + i, t + i, u, w, lo, hi);
        for (int i = 0; i < q->nd; i += 4)
            sub4x2(q->nd - i < 4 ? q->nd - i : 4, q->X + i, s + q->nf + i, t + q->nf + i, u, w, lo, hi);
        if (uf) {
            for (int r = lo; r < hi; r++) {
                float f = (float)(u[r] * ia);
                uf[r] = f;
                u[r] = f;
                w[r] = (w[r] - tau * u[r]) * ia;
            }
        } else {
            scale_two(ia, tau, u, w, lo, hi);
        }
        chunk_done(&ch, lo, hi);
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

void ovk__gmres_scale(ovk__ctx *c, double a, const double *x, double *y)
{
    ovk__tic t0 = ovk__tic_start(c);
#pragma omp simd
    for (int i = 0; i < c->n; i++) y[i] = a * x[i];
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}
