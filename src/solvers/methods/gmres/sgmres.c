/* s-step (communication-avoiding) GMRES: Hoemmen's CA-GMRES (PhD thesis,
 * UC Berkeley 2010, ch. 3 and 7), right-preconditioned as gmres.c, M = A C.
 * A cycle of restart m builds its basis in blocks of s vectors: from the
 * orthonormal q_j0 (j0 a multiple of s; q_0 = r / ||r||) s products and no
 * reduction make the Newton basis
 *
 *   z_j0 = q_j0,  z_{i+1} = g_i (M - a_i) z_i            (a real shift)
 *                 z_{i+2} = g_{i+1} ((M - a) z_{i+1} + g_i b^2 z_i)
 *                                                       (a pair a +- i b)
 *
 * (shifts a_i: Leja-ordered Ritz values of the first cycle, whose first
 * blocks are monomial (first_cycle), the conjugate of a complex one next
 * to it; g_i = 1 / max |lambda - a_i| over the Ritz values scales each new
 * vector; s = 1 or basis=monomial: a_i = 0),
 * then orthonormalizes the block Y = [z_{j0+1} .. z_{j0+s}] against Q =
 * [q_0 .. q_j0] by block classical Gram-Schmidt with the Pythagorean
 * Cholesky QR, twice (BCGS-PIP2: Carson, Lund, Rozloznik and Thomas, 2022):
 *
 *   pass k (k = 1, 2): S = Q^T Y and Y^T Y in one reduction,
 *     T^T T = Y^T Y - S^T S (Cholesky), Y = (Y - Q S) T^-1
 *
 * two reductions per s vectors.  Y_raw = Q (S1 + S2 T1) + Y (T2 T1) gives
 * each z's coordinates in Q (G's columns), and M z_i from the recurrence
 * gives H's column j from them: M q_j = (M z_j - sum_{k<j} g_kj Q h_k) / g_jj.
 * Each column is rotated and checked as gmres's; the cycle ends with gmres's
 * end (x += C Q y, r = b - A x: the true residual decides).
 *
 * overlap=1: block k + 1 starts from the raw z_{j0+s} of block k (its
 * coordinates in Q, G's column, known once block k is orthonormal), so a
 * cycle's basis is one Newton chain from q_0, the m-step basis of Bai, Hu
 * and Reichel's Newton-basis GMRES (IMA J. Numer. Anal. 14, 1994), its
 * shifts the cycle's m Leja-ordered Ritz values instead of the same s per
 * block, orthogonalized block by block with each block's second pass
 * delayed into the next block's reduction (as the one-sync block
 * Gram-Schmidt variants of Carson, Lund, Rozloznik and Thomas).  Reduction k
 * carries block k - 1's second pass (its one-pass vectors Y' against the
 * final Q) and block k's first (its raw Y against the final Q and Y'); it
 * is in flight while block k + 1's products run; after it, block k - 1's
 * second pass, its columns, then Y's sums against Y' rebased to the
 * twice-orthogonalized Y'' (Y''^T y = T2^-T (Y'^T y - S2^T Q^T y)) and
 * block k's first pass.  One reduction per block and one more per cycle
 * (the last block's second pass), besides the cycle's end; block k's
 * columns are checked a block later (at convergence up to 2s products
 * more), so a cycle that the last cycle's rate predicts to need at most s
 * columns runs as the blocking variant's (the first s of the m shifts, a
 * prefix of their Leja order).  The chain is as well conditioned as the cycle's Newton basis:
 * where it is not, the Gram safeguard below acts more often than with
 * blocks started from q_j0.
 *
 * The safeguard: a block whose Gram matrix is not numerically positive
 * definite (a Cholesky pivot below PIVOT of its vector's squared norm, or
 * not finite) ends the s-step cycle with the columns before the block, a
 * cycle whose update raised the true residual (undone by the end) or whose
 * true residual stands more than LOST times above the rotations' estimate
 * runs the next cycle as gmres's DCGS2 cycle (one reduction per step); a
 * DCGS2 cycle that fails the same way hands the rest of the solve to gmres
 * (its own safeguard).  Each such cycle counts in res->restarts and the view
 * says what happened last. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../solver.h"

enum { MAX_S = 32, DEFAULT_S = 5, DEFAULT_M = 30 };
/* a first cycle without shifts: blocks of min(s, FIRST_S) in the monomial
 * basis for its first max(s, FIRST_COLS) columns (well conditioned at that
 * size), whose Hessenberg matrix's Ritz values are the shifts of the rest */
enum { FIRST_S = 5, FIRST_COLS = 10 };
static const double LOST = 10.0;   /* true / estimated residual norm that the next cycle runs as DCGS2 after */
static const double PIVOT = 1e-12; /* a Cholesky pivot below this of its vector's squared norm: not SPD */
#define FALLBACK "gmres"

extern void dhseqr_(const char *job, const char *compz, const int *n, const int *ilo, const int *ihi, double *h,
                    const int *ldh, double *wr, double *wi, double *z, const int *ldz, double *work,
                    const int *lwork, int *info);

enum { BASIS_NEWTON, BASIS_MONOMIAL };
static const char *const basis_names[] = {"newton", "monomial", NULL};

/* the parsed spec: gmres's layout first (the fallback reads it) */
typedef struct sgmres_params {
    ovk__gmres_params base;
    long s, m, overlap;
    int basis;
} sgmres_params;

/* why the last safeguard acted */
enum { GUARD_NONE, GUARD_GRAM, GUARD_RAISED, GUARD_LOST, GUARD_GMRES };

/* The Newton basis's shifts: position i of a block takes re[i] (and with
 * pair[i] = 2 it is the second of a conjugate pair re[i] +- i im[i]) */
typedef struct sgmres_shifts {
    double re[OVK__MAX_RESTART], im[OVK__MAX_RESTART], scale[OVK__MAX_RESTART];
    int pair[OVK__MAX_RESTART]; /* 1: the first of a pair, 2: the second, 0: real */
    int estimated, ritz, complex_pairs;
    int nonfinite;     /* the Ritz values were not finite: the monomial basis instead */
    unsigned epoch;
} sgmres_shifts;

typedef struct sgmres_work {
    double *r, *t;
    double *Q[OVK__MAX_RESTART + 1]; /* the orthonormal basis; a block's raw vectors in place */
    ovk__arnoldi ls;
    double *G;    /* (m + 1) x (m + 1): column j the coordinates of z_j in Q */
    double *H;    /* (m + 1) x m: H before the rotations */
    double *D;    /* a block's sums: Q^T Y (p x b) then Y^T Y (upper, by columns); twice with overlap */
    double *T;    /* T1, T2, S1 (s x s, s x s, (m + 1) x s) */
    double *ritz; /* dhseqr's room */
    int m, s, basis, overlap;
    int len;   /* the shifts' sequence: s (one per position of a block), or m with overlap (one per column) */
    int chain; /* the cycle running is overlap_cycle's: shifts by column, not by position */
    int short_cycles; /* the last solve's cycles run with blocking blocks by overlap=1's prediction */
    long long rows;
    sgmres_shifts sh;
    int guard, guard_at, guards; /* the last solve's last safeguard (GUARD_*, iteration), and their count */
    double guard_value;
    ovk__variant fallback;
} sgmres_work;

static double *gcol(const sgmres_work *w, int j) { return w->G + (size_t)j * (size_t)(w->m + 1); }
static double *hcol(const sgmres_work *w, int j) { return w->H + (size_t)j * (size_t)(w->m + 1); }

enum { CHUNK_ROWS = 2048 }; /* rows of a chunk that stays in cache across the block, as gmres.c's */

/* ---- the shifts ---------------------------------------------------------- */

/* sum over the chosen of log |z - z_k| (the Leja product, in logs: no overflow) */
static double leja_gap(double re, double im, const double *cre, const double *cim, int k)
{
    double s = 0.0;
    for (int i = 0; i < k; i++) s += log(hypot(re - cre[i], im - cim[i]));
    return s;
}

/* the shifts from k Ritz values (wr, wi; pairs with wi > 0 first): the
 * modified Leja order (Hoemmen, 7.3.2), a complex value's conjugate next
 * to it, none split by the end of a block (a pair that would be: its real
 * part); fewer than s values repeat in order */
static void leja(sgmres_work *w, int k, const double *wr, const double *wi)
{
    double ore[OVK__MAX_RESTART], oim[OVK__MAX_RESTART];
    int used[OVK__MAX_RESTART], n = 0, s = w->len;
    int pairs = !(w->overlap && w->s == 1); /* a pair's second takes the raw z two back: not in flight at s = 1 */
    memset(used, 0, sizeof(int) * (size_t)k);
    while (n < s) {
        int best = -1;
        double gap = -INFINITY;
        for (int i = 0; i < k; i++) {
            if (used[i] || wi[i] < 0.0) continue; /* a pair by its value with wi > 0 */
            double g = n == 0 ? hypot(wr[i], wi[i]) : leja_gap(wr[i], wi[i], ore, oim, n);
            if (best < 0 || g > gap) {
                best = i;
                gap = g;
            }
        }
        if (best < 0) { /* every value taken: again from the first */
            if (n == 0) break;
            memset(used, 0, sizeof(int) * (size_t)k);
            continue;
        }
        used[best] = 1;
        int complex = pairs && wi[best] > 0.0;
        w->sh.re[n] = ore[n] = wr[best];
        w->sh.im[n] = oim[n] = complex && n + 1 < s ? wi[best] : 0.0;
        w->sh.pair[n] = complex && n + 1 < s ? 1 : 0;
        n++;
        if (w->sh.pair[n - 1]) {
            w->sh.re[n] = ore[n] = wr[best];
            w->sh.im[n] = wi[best];
            oim[n] = -wi[best];
            w->sh.pair[n++] = 2;
            w->sh.complex_pairs++;
        }
    }
    for (; n < s; n++) w->sh.re[n] = w->sh.im[n] = 0.0, w->sh.pair[n] = 0;
    for (int i = 0; i < s; i++) { /* g_i = 1 / max |lambda - a_i| */
        double big = 0.0;
        for (int j = 0; j < k; j++) big = fmax(big, hypot(wr[j] - w->sh.re[i], wi[j]));
        w->sh.scale[i] = big > 0.0 && isfinite(big) ? 1.0 / big : 1.0;
    }
}

/* the monomial basis (s = 1, basis=monomial, or no usable Ritz value),
 * scaled by 1 / max |lambda| when the Ritz values are known */
static void monomial(sgmres_work *w, int k, const double *wr, const double *wi)
{
    double big = 0.0;
    for (int j = 0; j < k; j++) big = fmax(big, hypot(wr[j], wi[j]));
    for (int i = 0; i < w->len; i++) {
        w->sh.re[i] = w->sh.im[i] = 0.0;
        w->sh.pair[i] = 0;
        w->sh.scale[i] = big > 0.0 && isfinite(big) ? 1.0 / big : 1.0;
    }
}

/* the shifts from the eigenvalues of the k x k Hessenberg matrix of the
 * first cycle (in H, leading dimension m + 1; reduced values: the same on
 * every rank) */
static void estimate(ovk__ctx *c, sgmres_work *w, int k)
{
    int n = k, ilo = 1, ldh = k, one = 1, lwork = k, info = 1, ld = w->m + 1;
    double *h = w->ritz, *wr = h + (size_t)k * (size_t)k, *wi = wr + k, *work = wi + k, z = 0.0;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++) h[(size_t)j * (size_t)k + (size_t)i] = i <= j + 1 ? w->H[(size_t)j * (size_t)ld + (size_t)i] : 0.0;
    if (k > 0) dhseqr_("E", "N", &n, &ilo, &n, h, &ldh, wr, wi, &z, &one, work, &lwork, &info);
    int finite = k > 0 && info == 0;
    for (int i = 0; finite && i < k; i++) finite = isfinite(wr[i]) && isfinite(wi[i]);
    w->sh.complex_pairs = 0;
    w->sh.nonfinite = k > 0 && !finite;
    w->sh.ritz = finite ? k : 0;
    if (!finite) monomial(w, 0, NULL, NULL);
    else if (w->len == 1 || w->basis == BASIS_MONOMIAL) monomial(w, k, wr, wi);
    else leja(w, k, wr, wi);
    w->sh.estimated = 1;
    w->sh.epoch = c->norms.epoch;
}

/* ---- local kernels -------------------------------------------------------- */

/* the block's sums over rows lo..hi: for each c < b, <X_i, y_c> (i < p)
 * and <y_k, y_c> (k <= c) at out + c p + c (c + 1) / 2 */
OVK__CLONES static void block_dots_rows(int p, int b, const double *const *X, double *const *Y, int lo, int hi,
                                        double *out)
{
    for (int c = 0; c < b; c++) {
        const double *restrict y = Y[c];
        double *o = out + (size_t)c * (size_t)p + (size_t)(c * (c + 1) / 2);
        int k = p + c + 1, i = 0;
        for (; i + 4 <= k; i += 4) { /* four sums at once: four independent accumulators */
            const double *restrict x0 = i < p ? X[i] : Y[i - p], *restrict x1 = i + 1 < p ? X[i + 1] : Y[i + 1 - p];
            const double *restrict x2 = i + 2 < p ? X[i + 2] : Y[i + 2 - p], *restrict x3 = i + 3 < p ? X[i + 3] : Y[i + 3 - p];
            double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
#pragma omp simd reduction(+ : a0, a1, a2, a3)
            for (int r = lo; r < hi; r++) {
                a0 += x0[r] * y[r];
                a1 += x1[r] * y[r];
                a2 += x2[r] * y[r];
                a3 += x3[r] * y[r];
            }
            o[i] += a0;
            o[i + 1] += a1;
            o[i + 2] += a2;
            o[i + 3] += a3;
        }
        for (; i < k; i++) {
            const double *restrict x = i < p ? X[i] : Y[i - p];
            double a = 0.0;
#pragma omp simd reduction(+ : a)
            for (int r = lo; r < hi; r++) a += x[r] * y[r];
            o[i] += a;
        }
    }
}

/* the block's sums (local, timed as axpy, the progress hook poked) */
static void block_dots(ovk__ctx *c, int p, int b, const double *const *X, double *const *Y, double *out)
{
    ovk__tic t0 = ovk__tic_start(c);
    int n = c->n, every = ovk__chunk_rows(n, &c->hook), step = every < CHUNK_ROWS ? every : CHUNK_ROWS;
    memset(out, 0, sizeof(double) * ((size_t)p * (size_t)b + (size_t)(b * (b + 1) / 2)));
    for (int lo = 0, since = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        block_dots_rows(p, b, X, Y, lo, hi, out);
        since += hi - lo;
        if (since >= every || hi == n) {
            ovk__poke(&c->hook);
            since = 0;
        }
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* Y = (Y - X S) T^-1 over rows lo..hi (S p x b with leading dimension ls,
 * T b x b upper, column-major), column by column in place */
OVK__CLONES static void block_update_rows(int p, int b, const double *const *X, double *const *Y, const double *S,
                                          int ls, const double *T, int lo, int hi)
{
    for (int c = 0; c < b; c++) {
        double *restrict y = Y[c];
        const double *s = S + (size_t)c * (size_t)ls, *t = T + (size_t)c * (size_t)b;
        for (int i = 0; i < p + c; i++) {
            const double *restrict x = i < p ? X[i] : Y[i - p];
            double f = i < p ? s[i] : t[i - p];
#pragma omp simd
            for (int r = lo; r < hi; r++) y[r] -= f * x[r];
        }
        double d = 1.0 / t[c];
#pragma omp simd
        for (int r = lo; r < hi; r++) y[r] *= d;
    }
}

static void block_update(ovk__ctx *c, int p, int b, const double *const *X, double *const *Y, const double *S, int ls,
                         const double *T)
{
    ovk__tic t0 = ovk__tic_start(c);
    int n = c->n, every = ovk__chunk_rows(n, &c->hook), step = every < CHUNK_ROWS ? every : CHUNK_ROWS;
    for (int lo = 0, since = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        block_update_rows(p, b, X, Y, S, ls, T, lo, hi);
        since += hi - lo;
        if (since >= every || hi == n) {
            ovk__poke(&c->hook);
            since = 0;
        }
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* y = g (u - a z) + g f z2 (f = 0: without z2), in place in y = u */
OVK__CLONES static void newton_rows(int n, double g, double a, const double *restrict z, double f,
                                    const double *restrict z2, double *restrict y)
{
    if (f != 0.0) {
#pragma omp simd
        for (int i = 0; i < n; i++) y[i] = g * (y[i] - a * z[i] + f * z2[i]);
    } else {
#pragma omp simd
        for (int i = 0; i < n; i++) y[i] = g * (y[i] - a * z[i]);
    }
}

/* ---- one block ------------------------------------------------------------ */

/* The Pythagorean Cholesky QR's small part: from a block's reduced sums d
 * (block_dots's layout, p x b), S = Q^T Y into S (leading dimension m + 1)
 * and T^T T = Y^T Y - S^T S into T.  *broke: a pivot was not positive
 * enough or not finite */
static void pip_factor(const sgmres_work *w, int p, int b, const double *D, double *S, double *T, int *broke,
                       double *worst)
{
    int ld = w->m + 1;
    for (int j = 0; j < b; j++) {
        const double *d = D + (size_t)j * (size_t)p + (size_t)(j * (j + 1) / 2);
        memcpy(S + (size_t)j * (size_t)ld, d, sizeof(double) * (size_t)p);
        for (int i = 0; i <= j; i++) { /* P_ij = <y_i, y_j> - sum_k S_ki S_kj, then Cholesky's row i */
            double v = d[p + i];
            for (int k = 0; k < p; k++) v -= S[(size_t)i * (size_t)ld + (size_t)k] * S[(size_t)j * (size_t)ld + (size_t)k];
            for (int k = 0; k < i; k++) v -= T[(size_t)i * (size_t)b + (size_t)k] * T[(size_t)j * (size_t)b + (size_t)k];
            if (i < j) {
                T[(size_t)j * (size_t)b + (size_t)i] = v / T[(size_t)i * (size_t)b + (size_t)i];
                continue;
            }
            double ratio = v / d[p + j]; /* the pivot against <y_j, y_j> */
            if (!(ratio > PIVOT) || !isfinite(v)) {
                *broke = 1;
                *worst = ratio;
                return;
            }
            *worst = fmin(*worst, ratio);
            T[(size_t)j * (size_t)b + (size_t)j] = sqrt(v);
        }
    }
}

/* the number of a block's sums (block_dots's layout) */
static int sums_count(int p, int b) { return p * b + b * (b + 1) / 2; }

/* One pass of the Pythagorean Cholesky QR: the sums of Q^T Y, Y^T Y in one
 * reduction, S and T (pip_factor), Y = (Y - Q S) T^-1.  *broke: not SPD
 * (Y untouched) */
static int pip_pass(ovk__ctx *c, sgmres_work *w, int p, int b, double *S, double *T, int *broke, double *worst)
{
    double *const *Y = w->Q + p;
    const double *const *X = (const double *const *)w->Q;
    block_dots(c, p, b, X, Y, w->D);
    int rc = ovk__sum(c, OVK__IPROD, w->D, sums_count(p, b));
    if (rc) return rc;
    pip_factor(w, p, b, w->D, S, T, broke, worst);
    if (!*broke) block_update(c, p, b, X, Y, S, w->m + 1, T);
    return OVK_OK;
}

/* the shift of column j0 + i: position i of every block, or with overlap
 * the cycle's column j0 + i (one Newton basis for the whole cycle) */
static int shift_at(const sgmres_work *w, int j0, int i) { return w->chain ? j0 + i : i; }

/* the pair term's factor g_{q-1} b^2 of shift q (0: none) */
static double pair_term(const sgmres_work *w, int q)
{
    return w->sh.pair[q] == 2 && q > 0 ? w->sh.scale[q - 1] * w->sh.im[q] * w->sh.im[q] : 0.0;
}

/* the block's basis from z_j0: z_{j0+i+1} = g_q ((M - a_q) z_{j0+i} [+ g_{q-1} b^2 z_{j0+i-1}]),
 * q = shift_at(j0, i) */
static int newton_block(ovk__ctx *c, sgmres_work *w, int j0, int b)
{
    for (int i = 0; i < b; i++) {
        double *z = w->Q[j0 + i], *y = w->Q[j0 + i + 1];
        int rc = ovk__ctx_pc(c, z, w->t); /* t = C z */
        if (!rc) rc = ovk__ctx_matvec(c, w->t, y); /* y = A t */
        if (rc) return rc;
        int q = shift_at(w, j0, i);
        double f = pair_term(w, q);
        ovk__tic t0 = ovk__tic_start(c);
        newton_rows(c->n, w->sh.scale[q], w->sh.re[q], z, f, f != 0.0 ? w->Q[j0 + i - 1] : z, y);
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    }
    return OVK_OK;
}

/* G's columns j0 + 1 .. j0 + b: Y_raw = Q (S1 + S2 T1) + Y (T2 T1) */
static void coordinates(sgmres_work *w, int j0, int b, const double *S1, const double *S2, const double *T1,
                        const double *T2)
{
    int p = j0 + 1, ld = w->m + 1;
    for (int j = 0; j < b; j++) {
        double *g = gcol(w, j0 + 1 + j);
        memset(g, 0, sizeof(double) * (size_t)ld);
        for (int i = 0; i < p; i++) {
            double v = S1[(size_t)j * (size_t)ld + (size_t)i];
            for (int k = 0; k <= j; k++) v += S2[(size_t)k * (size_t)ld + (size_t)i] * T1[(size_t)j * (size_t)b + (size_t)k];
            g[i] = v;
        }
        for (int i = 0; i <= j; i++) { /* (T2 T1)_ij, both upper */
            double v = 0.0;
            for (int k = i; k <= j; k++) v += T2[(size_t)k * (size_t)b + (size_t)i] * T1[(size_t)j * (size_t)b + (size_t)k];
            g[p + i] = v;
        }
    }
}

/* H's column j0 + i: M z_j = z_{j+1} / g_i + a_i z_j [- g_{i-1} b^2 z_{j-1}]
 * in Q's coordinates, then M q_j = (M z_j - sum_{k<j} G_kj Q h_k) / G_jj */
static void hessenberg_column(sgmres_work *w, int j0, int i)
{
    int j = j0 + i, q = shift_at(w, j0, i);
    double *h = hcol(w, j), a = w->sh.re[q], f = pair_term(w, q);
    const double *gn = gcol(w, j + 1), *gj = gcol(w, j), *gp = f != 0.0 ? gcol(w, j - 1) : NULL;
    for (int r = 0; r <= j + 1; r++) {
        double v = gn[r] / w->sh.scale[q];
        if (r <= j) v += a * gj[r];
        if (f != 0.0 && r < j) v -= f * gp[r];
        h[r] = v;
    }
    for (int k = 0; k < j; k++)
        for (int r = 0; r <= k + 1; r++) h[r] -= gj[k] * hcol(w, k)[r];
    for (int r = 0; r <= j + 1; r++) h[r] /= gj[j];
}

/* one block of b vectors from q_j0: the basis, BCGS-PIP2, H's columns;
 * *broke when a Gram matrix was not numerically SPD */
static int block(ovk__ctx *c, sgmres_work *w, int j0, int b, int *broke, double *worst)
{
    size_t s = (size_t)w->s;
    double *T1 = w->T, *T2 = T1 + s * s, *S1 = T2 + s * s, *S2 = S1 + (size_t)(w->m + 1) * s;
    double *g = gcol(w, j0);
    memset(g, 0, sizeof(double) * (size_t)(w->m + 1));
    g[j0] = 1.0; /* z_j0 = q_j0 */
    int rc = newton_block(c, w, j0, b);
    if (!rc) rc = pip_pass(c, w, j0 + 1, b, S1, T1, broke, worst);
    if (!rc && !*broke) rc = pip_pass(c, w, j0 + 1, b, S2, T2, broke, worst);
    if (rc || *broke) return rc;
    coordinates(w, j0, b, S1, S2, T1, T2);
    for (int i = 0; i < b; i++) hessenberg_column(w, j0, i);
    return OVK_OK;
}

/* ---- cycles --------------------------------------------------------------- */

/* the per-column check, as gmres's: after a cycle whose estimate's
 * convergence was not confirmed (deeper), the estimate does not end a cycle */
static int column_check(ovk__ctx *c, const ovk__gmres_cycle *cy, int iter, double rr, double bb, int *stop)
{
    int rc = ovk__iterate_check(c, iter, rr, bb, stop);
    if (!rc && *stop && cy->deeper && c->res->reason == OVK_REASON_CONVERGED) {
        c->res->reason = OVK_REASON_NONE;
        *stop = 0;
    }
    return rc;
}

/* one s-step cycle of up to `columns` columns from r (||r||^2 = rr) at
 * cy->iter, its end included; *broke: a block's Gram matrix was not SPD
 * (the cycle ended with the columns before it) */
static int sstep_cycle(ovk__ctx *c, sgmres_work *w, ovk__gmres_cycle *cy, int columns, double bb, double *rr,
                       int *stop, int *broke)
{
    int rc = OVK_OK, step_stop = 0, iter0 = cy->iter, startup = !w->sh.estimated;
    int s0 = w->s < FIRST_S ? w->s : FIRST_S, est_cols = w->s > FIRST_COLS ? w->s : FIRST_COLS;
    double beta = sqrt(*rr), worst = 1.0;
    ovk__gmres_scale(c, 1.0 / beta, w->r, w->Q[0]); /* q_0 = r / ||r|| */
    ovk__arnoldi_start(&w->ls, beta);
    cy->k = 0;
    w->chain = 0; /* with overlap: the first s of the cycle's m shifts, a prefix of their Leja order */
    for (int j0 = 0, size = w->s; j0 < columns && !step_stop; j0 += size) {
        if (startup && !w->sh.estimated && j0 >= est_cols) estimate(c, w, j0); /* the rest in the Newton basis */
        size = startup && !w->sh.estimated ? s0 : w->s;
        int b = columns - j0 < size ? columns - j0 : size;
        rc = block(c, w, j0, b, broke, &worst);
        if (rc) return rc;
        if (*broke) {
            w->guard = GUARD_GRAM;
            w->guard_at = iter0 + j0;
            w->guard_value = worst;
            break;
        }
        for (int i = 0; i < b && !step_stop; i++) {
            int j = j0 + i;
            memcpy(ovk__arnoldi_column(&w->ls, j), hcol(w, j), sizeof(double) * (size_t)(j + 2));
            double est = ovk__arnoldi_rotate(&w->ls, j);
            cy->k = j + 1;
            cy->iter = iter0 + j + 1;
            rc = column_check(c, cy, cy->iter, est * est, bb, &step_stop);
            if (rc) return rc;
        }
    }
    if (*broke && cy->k == 0) { /* nothing to update: r, rr stand */
        *stop = 0;
        return OVK_OK;
    }
    return ovk__gmres_cycle_end(c, cy, bb, rr, stop);
}

/* ---- the block's reductions in flight ------------------------------------ */

/* the sums of pass 2 of the one-pass block Y' = Q[p2 .. p2 + b2 - 1] (b2
 * may be 0), in w->D, then those of pass 1 of the raw block Y = Q[p1 ..
 * p1 + b1 - 1] against Q[0 .. p1 - 1] (Y' among them); their count */
static int overlap_sums(ovk__ctx *c, sgmres_work *w, int p2, int b2, int p1, int b1)
{
    const double *const *X = (const double *const *)w->Q;
    int n2 = b2 ? sums_count(p2, b2) : 0;
    if (b2) block_dots(c, p2, b2, X, w->Q + p2, w->D);
    if (b1) block_dots(c, p1, b1, X, w->Q + p1, w->D + n2);
    return n2 + (b1 ? sums_count(p1, b1) : 0);
}

/* Y's sums against Y' (rows p2 .. p2 + b2 - 1 of d1) taken before Y''s
 * second pass Y'' = (Y' - Q S2) T2^-1: Y''^T y = T2^-T (Y'^T y - S2^T Q^T y) */
static void rebase_sums(const sgmres_work *w, int p2, int b2, const double *S2, const double *T2, int p1, int b1,
                        double *d1)
{
    int ld = w->m + 1;
    for (int c = 0; c < b1; c++) {
        double *o = d1 + (size_t)c * (size_t)p1 + (size_t)(c * (c + 1) / 2), *u = o + p2;
        for (int i = 0; i < b2; i++) { /* forward substitution with T2^T (lower) */
            double v = u[i];
            for (int k = 0; k < p2; k++) v -= S2[(size_t)i * (size_t)ld + (size_t)k] * o[k];
            for (int k = 0; k < i; k++) v -= T2[(size_t)i * (size_t)b2 + (size_t)k] * u[k];
            u[i] = v / T2[(size_t)i * (size_t)b2 + (size_t)i];
        }
    }
}

/* the column checks of the finished block j0 .. j0 + b - 1 (H from G) */
static int block_columns(ovk__ctx *c, sgmres_work *w, ovk__gmres_cycle *cy, int iter0, int j0, int b, double bb,
                         int *step_stop)
{
    int rc = OVK_OK;
    for (int i = 0; i < b; i++) hessenberg_column(w, j0, i);
    for (int i = 0; i < b && !*step_stop; i++) {
        int j = j0 + i;
        memcpy(ovk__arnoldi_column(&w->ls, j), hcol(w, j), sizeof(double) * (size_t)(j + 2));
        double est = ovk__arnoldi_rotate(&w->ls, j);
        cy->k = j + 1;
        cy->iter = iter0 + j + 1;
        rc = column_check(c, cy, cy->iter, est * est, bb, step_stop);
        if (rc) return rc;
    }
    return rc;
}

/* One s-step cycle with each block's reduction in flight behind the next
 * block's products.  The cycle's basis is one Newton chain from q_0 (its m
 * shifts the Leja-ordered Ritz values): block k + 1 starts from the raw
 * last vector of block k, whose coordinates in Q (G's column) its
 * orthogonalization gives later.  Reduction k carries block k - 1's second
 * pass (its one-pass vectors against the final Q) and block k's first
 * (its raw vectors against the final Q and block k - 1's one-pass ones,
 * rebased after the second pass): one reduction per block and one more
 * per cycle, each in flight while block k + 1's products run; block k's
 * columns are known at reduction k + 1.  *broke as sstep_cycle's. */
static int overlap_cycle(ovk__ctx *c, sgmres_work *w, ovk__gmres_cycle *cy, int columns, double bb, double *rr,
                         int *stop, int *broke)
{
    size_t ss = (size_t)w->s;
    double *T1 = w->T, *T2 = T1 + ss * ss, *S1 = T2 + ss * ss, *S2 = S1 + (size_t)(w->m + 1) * ss;
    int rc, step_stop = 0, iter0 = cy->iter, s = w->s, nb = (columns + s - 1) / s;
    double beta = sqrt(*rr), worst = 1.0;
    ovk__gmres_scale(c, 1.0 / beta, w->r, w->Q[0]); /* q_0 = r / ||r|| */
    ovk__arnoldi_start(&w->ls, beta);
    cy->k = 0;
    w->chain = 1;
    memset(gcol(w, 0), 0, sizeof(double) * (size_t)(w->m + 1));
    gcol(w, 0)[0] = 1.0; /* z_0 = q_0 */
    rc = newton_block(c, w, 0, s < columns ? s : columns);
    for (int k = 0; k <= nb && !rc && !step_stop; k++) {
        int j2 = (k - 1) * s, b2 = k > 0 ? s : 0, j1 = k * s, b1 = k < nb ? (columns - j1 < s ? columns - j1 : s) : 0;
        if (k == nb && k > 0) b2 = columns - j2; /* the last block may be short */
        ovk_request *req = NULL;
        int n = overlap_sums(c, w, j2 + 1, b2, j1 + 1, b1);
        rc = ovk__sum_begin(c, OVK__IPROD, w->D, n, &req);
        if (rc) break;
        if (k + 1 < nb) { /* block k + 1 from block k's raw last vector, behind the sums */
            int j = (k + 1) * s;
            rc = newton_block(c, w, j, columns - j < s ? columns - j : s);
        }
        rc = ovk__sum_finish(c, OVK__IPROD, req, rc);
        if (rc) break;
        double *d1 = w->D + (b2 ? sums_count(j2 + 1, b2) : 0);
        if (b2) { /* block k - 1's second pass, its coordinates and columns */
            pip_factor(w, j2 + 1, b2, w->D, S2, T2, broke, &worst);
            if (*broke) {
                w->guard_at = iter0 + j2;
                break;
            }
            block_update(c, j2 + 1, b2, (const double *const *)w->Q, w->Q + j2 + 1, S2, w->m + 1, T2);
            coordinates(w, j2, b2, S1, S2, T1, T2);
            rc = block_columns(c, w, cy, iter0, j2, b2, bb, &step_stop);
            if (rc || step_stop) break;
            rebase_sums(w, j2 + 1, b2, S2, T2, j1 + 1, b1, d1);
        }
        if (b1) { /* block k's first pass against the final Q */
            pip_factor(w, j1 + 1, b1, d1, S1, T1, broke, &worst);
            if (*broke) {
                w->guard_at = iter0 + j1;
                break;
            }
            block_update(c, j1 + 1, b1, (const double *const *)w->Q, w->Q + j1 + 1, S1, w->m + 1, T1);
        }
    }
    if (rc) return rc;
    if (*broke) {
        w->guard = GUARD_GRAM;
        w->guard_value = worst;
        if (cy->k == 0) { /* nothing to update: r, rr stand */
            *stop = 0;
            return OVK_OK;
        }
    }
    return ovk__gmres_cycle_end(c, cy, bb, rr, stop);
}

/* the true residual lost what the rotations promised (gmres.c's test) */
static int lost(const ovk__gmres_cycle *cy, double rr_start)
{
    if (cy->k == 0) return 0;
    double est = fabs(cy->ls->g[cy->k]), tr = sqrt(cy->rr_end);
    return tr > LOST * est && tr > sqrt(est * sqrt(rr_start));
}

/* the shifts in use, at print_level >= 1 */
static void print_shifts(const ovk__ctx *c, const sgmres_work *w)
{
    if (c->opts->print_level >= 1 && c->rank == 0) {
        FILE *f = c->opts->out ? c->opts->out : stdout;
        fprintf(f, "  sgmres: shifts from %d Ritz values of the first cycle:", w->sh.ritz);
        for (int i = 0; i < w->len; i++) fprintf(f, " %.4g%s", w->sh.re[i], w->sh.pair[i] ? "(c)" : "");
        fprintf(f, "\n");
    }
}

/* the first cycle of a solve without shifts (the first after new values):
 * s-step, its first max(s, FIRST_COLS) columns in blocks of min(s, FIRST_S)
 * in the monomial basis, the rest in the Newton basis of their Ritz values
 * (sstep_cycle); the cycle's whole Hessenberg matrix then gives the shifts
 * of the later cycles.  A cycle whose first block lost its rank has no
 * columns: gmres's cycle instead, its raw H giving them. */
static int first_cycle(ovk__ctx *c, sgmres_work *w, ovk__gmres_cycle *cy, double bb, double *rr, int *stop,
                       int *broke)
{
    monomial(w, 0, NULL, NULL);
    int rc = sstep_cycle(c, w, cy, c->opts->max_iter < w->m ? c->opts->max_iter : w->m, bb, rr, stop, broke);
    if (!rc && *broke && cy->k == 0) {
        *broke = 0;
        rc = ovk__gmres_cycle_run(c, cy, w->m, bb, rr, w->H, stop);
    }
    if (rc) return rc;
    if (cy->k > 0) estimate(c, w, cy->k);
    else monomial(w, 0, NULL, NULL), w->sh.estimated = 0;
    print_shifts(c, w);
    return OVK_OK;
}

/* the residual norm's factor per column of a cycle of k columns from rr0
 * to rr (0: unknown, or the cycle did not reduce it) */
static double rate_of(double rr0, double rr, int k)
{
    return k > 0 && rr > 0.0 && rr < rr0 ? pow(rr / rr0, 0.5 / k) : 0.0;
}

/* overlap=1: the next cycle from rr is predicted (the last cycle's rate)
 * to need at most s columns, where the blocks made behind a reduction
 * before any column is known would be spent: it runs with blocking blocks */
static int short_cycle(const ovk__ctx *c, const sgmres_work *w, double rr, double rate)
{
    if (!(rate > 0.0 && rate < 1.0) || !(rr > c->watch.rr_stop)) return 0;
    return log(c->watch.rr_stop / rr) / (2.0 * log(rate)) <= w->s;
}

/* the safeguard after an s-step cycle from rr_start: a block not SPD
 * (broke), a true residual raised or lost; 1: the next cycle is DCGS2 */
static int guarded(ovk__ctx *c, sgmres_work *w, const ovk__gmres_cycle *cy, int broke, double rr_start)
{
    if (!broke && !cy->reverted && !lost(cy, rr_start)) return 0;
    if (!broke) {
        w->guard = cy->reverted ? GUARD_RAISED : GUARD_LOST;
        w->guard_at = cy->iter;
        w->guard_value = sqrt(cy->rr_end / rr_start);
    }
    w->guards++;
    c->res->restarts++;
    return 1;
}

/* cycles from r = b - A x (||r||^2 = rr) until a stop, or the fallback */
static int run(ovk__ctx *c, sgmres_work *w, double bb)
{
    int stop = 0, rc = OVK_OK, dcgs2_next = 0;
    double rr = c->watch.rnorm0 * c->watch.rnorm0, rate = 0.0;
    ovk__gmres_cycle cy = {.ls = &w->ls, .V = w->Q, .t = w->t, .r = w->r, .orth = OVK__ORTH_DCGS2, .undo_rises = 1};
    w->guard = GUARD_NONE;
    w->guard_at = -1;
    w->guards = 0;
    w->short_cycles = 0;
    if (c->opts->max_iter <= 0) {
        c->res->reason = OVK_REASON_MAXIT;
        return OVK_OK;
    }
    if (!w->sh.estimated) {
        double rr0 = rr;
        int broke = 0;
        rc = first_cycle(c, w, &cy, bb, &rr, &stop, &broke);
        if (rc || stop) return rc;
        rate = rate_of(rr0, rr, cy.k);
        dcgs2_next = guarded(c, w, &cy, broke, rr0);
    }
    for (;;) {
        double rr_start = rr;
        int broke = 0, left = c->opts->max_iter - cy.iter;
        if (dcgs2_next) { /* the safeguard's cycle: gmres's DCGS2 steps */
            rc = ovk__gmres_cycle_run(c, &cy, w->m, bb, &rr, NULL, &stop);
            if (rc || stop) return rc;
            if (cy.reverted || lost(&cy, rr_start)) break; /* DCGS2 failed too: gmres's own safeguard */
            rate = rate_of(rr_start, rr, cy.k);
            dcgs2_next = 0;
            continue;
        }
        int blocking = !w->overlap || short_cycle(c, w, rr, rate);
        w->short_cycles += w->overlap && blocking;
        if (blocking) rc = sstep_cycle(c, w, &cy, left < w->m ? left : w->m, bb, &rr, &stop, &broke);
        else rc = overlap_cycle(c, w, &cy, left < w->m ? left : w->m, bb, &rr, &stop, &broke);
        if (rc || stop) return rc;
        rate = rate_of(rr_start, rr, cy.k);
        dcgs2_next = guarded(c, w, &cy, broke, rr_start);
    }
    w->guard = GUARD_GMRES;
    w->guard_at = cy.iter;
    w->guard_value = sqrt(cy.rr_end / rr);
    w->guards++;
    c->res->restarts++;
    return ovk__variant_resume(c, ovk__solver_find(FALLBACK), &w->fallback, bb, cy.iter);
}

static int sgmres_iterate(ovk__ctx *c, void *work, double bb)
{
    sgmres_work *w = work;
    if (w->sh.estimated && w->sh.epoch != c->norms.epoch) w->sh.estimated = 0; /* new values: estimate again */
    return run(c, w, bb);
}

/* ---- options, vectors, set-up --------------------------------------------- */

static int sgmres_parse(ovk__opts *o, void **params)
{
    sgmres_params *p = calloc(1, sizeof *p);
    *params = p;
    if (!p) return ovk__fail(OVK_ENOMEM, "sgmres's options");
    p->s = DEFAULT_S;
    p->m = 0;
    const ovk__opt_entry t[] = {
        OVK__OPT_INT("s", 1, MAX_S, &p->s),
        OVK__OPT_INT("m", 1, OVK__MAX_RESTART, &p->m),
        OVK__OPT_CHOICE("basis", basis_names, &p->basis),
        OVK__OPT_INT("overlap", 0, 1, &p->overlap),
    };
    int rc = ovk__opts_read(o, "sgmres", t, 4);
    if (rc) return rc;
    if (p->m == 0) { /* the smallest multiple of s from DEFAULT_M */
        p->m = (DEFAULT_M + p->s - 1) / p->s * p->s;
        if (p->m > OVK__MAX_RESTART) p->m = OVK__MAX_RESTART / p->s * p->s;
    }
    if (p->s > p->m)
        return ovk__fail(OVK_EOPTION, "solver sgmres: s = %ld exceeds the restart m = %ld (a cycle holds at least one "
                                      "block of s vectors)", p->s, p->m);
    p->base.restart = p->m; /* the fallback, gmres, at its defaults with this restart */
    p->base.orth = OVK__ORTH_DCGS2;
    p->base.refine = OVK__REFINE_NEVER;
    p->base.basis = OVK__BASIS_DOUBLE;
    return OVK_OK;
}

/* r, t, Q[0..m] */
static int sgmres_vectors(const void *params, size_t *vec)
{
    int m = (int)((const sgmres_params *)params)->m, k = 0;
    if (!vec) return m + 3;
    vec[k++] = offsetof(sgmres_work, r);
    vec[k++] = offsetof(sgmres_work, t);
    for (int i = 0; i <= m; i++) vec[k++] = offsetof(sgmres_work, Q) + sizeof(double *) * (size_t)i;
    return k;
}

static int sgmres_setup(ovk__ctx *c, void *work)
{
    const sgmres_params *p = c->params;
    sgmres_work *w = work;
    size_t m = (size_t)p->m, s = (size_t)p->s;
    w->m = (int)m;
    w->s = (int)s;
    w->basis = p->basis;
    w->overlap = (int)p->overlap;
    w->len = w->overlap ? w->m : w->s;
    w->guard_at = -1;
    /* G, H, D (two blocks' sums), T (T1, T2, S1, S2), ritz */
    size_t count = (m + 1) * (m + 1) + (m + 1) * m + 2 * ((m + 1) * s + s * (s + 1) / 2) +
                   (2 * s * s + 2 * (m + 1) * s) + (m * m + 3 * m);
    w->G = calloc(count, sizeof(double));
    if (!w->G) return ovk__fail(OVK_ENOMEM, "sgmres's small matrices of restart %d, s = %d", w->m, w->s);
    w->H = w->G + (m + 1) * (m + 1);
    w->D = w->H + (m + 1) * m;
    w->T = w->D + 2 * ((m + 1) * s + s * (s + 1) / 2);
    w->ritz = w->T + 2 * s * s + 2 * (m + 1) * s;
    return ovk__arnoldi_alloc(&w->ls, w->m);
}

/* collective: s checked against the system's rows (the same count everywhere) */
static int sgmres_after_setup(ovk__ctx *c, void *work)
{
    sgmres_work *w = work;
    long long n = c->n;
    int rc = MPI_Allreduce(&n, &w->rows, 1, MPI_LONG_LONG, MPI_SUM, c->comm);
    if (rc != MPI_SUCCESS) return ovk__fail(OVK_EMPI, "sgmres: the sum of the rows failed");
    if (w->s > w->rows)
        return ovk__fail(OVK_EOPTION, "solver sgmres: s = %d exceeds the system's %lld rows (a block of s Krylov "
                                      "vectors would be dependent)", w->s, w->rows);
    return OVK_OK;
}

static void sgmres_destroy(void *work)
{
    sgmres_work *w = work;
    ovk__arnoldi_free(&w->ls);
    free(w->G);
    w->G = NULL;
    ovk__variant_free(&w->fallback);
}

static void sgmres_view(const void *work, FILE *f)
{
    const sgmres_work *w = work;
    if (w->overlap)
        fprintf(f, "  sgmres: s = %d, restart = %d, %s basis of the whole cycle, BCGS-PIP2 with the second pass "
                   "delayed (one reduction per block of s vectors and one more per cycle, all but a cycle's last two "
                   "in flight behind the next block's products)\n",
                w->s, w->m, w->basis == BASIS_MONOMIAL ? "monomial" : "Newton");
    else
        fprintf(f, "  sgmres: s = %d, restart = %d, %s basis, BCGS-PIP2 (two reductions per block of s vectors)\n",
                w->s, w->m, w->basis == BASIS_MONOMIAL || w->s == 1 ? "monomial" : "Newton");
    if (w->overlap && w->short_cycles)
        fprintf(f, "  sgmres: %d cycles of the last solve ran with blocking blocks (predicted by the last cycle's rate "
                   "to need at most s = %d columns)\n", w->short_cycles, w->s);
    if (!w->sh.estimated)
        fprintf(f, "  sgmres: shifts from the Ritz values of the next solve's first cycle (its first %d columns in "
                   "blocks of %d in the monomial basis)\n", w->s > FIRST_COLS ? w->s : FIRST_COLS,
                w->s < FIRST_S ? w->s : FIRST_S);
    else if (w->sh.nonfinite)
        fprintf(f, "  sgmres: the first cycle's Ritz values were not finite: monomial basis instead of Newton\n");
    else {
        fprintf(f, "  sgmres: shifts (Leja-ordered, from %d Ritz values; %d conjugate pairs):", w->sh.ritz,
                w->sh.complex_pairs);
        for (int i = 0; i < w->len; i++)
            if (w->sh.pair[i] == 1) fprintf(f, " %.6g+-%.6gi", w->sh.re[i], w->sh.im[i]);
            else if (w->sh.pair[i] == 0) fprintf(f, " %.6g", w->sh.re[i]);
        fprintf(f, "\n");
    }
    if (w->guard == GUARD_GRAM)
        fprintf(f, "  safeguard (%d cycles in the last solve): the block at iteration %d had a Gram matrix not "
                   "numerically positive definite (pivot ratio %.3e); that cycle went on with DCGS2 steps\n",
                w->guards, w->guard_at, w->guard_value);
    else if (w->guard == GUARD_RAISED || w->guard == GUARD_LOST)
        fprintf(f, "  safeguard (%d cycles in the last solve): the cycle ending at iteration %d %s (true residual "
                   "over its start %.3e); the next cycle ran with DCGS2 steps\n",
                w->guards, w->guard_at, w->guard == GUARD_RAISED ? "raised the true residual (undone)"
                                                                 : "lost what its estimate promised",
                w->guard_value);
    else if (w->guard == GUARD_GMRES)
        fprintf(f, "  safeguard (%d cycles in the last solve): a DCGS2 cycle ending at iteration %d failed as well; "
                   "gmres went on from there\n", w->guards, w->guard_at);
}

const ovk__solver_ops ovk__solver_sgmres = {
    .caps = OVK__CAP_NONSYMMETRIC,
    .work_size = sizeof(sgmres_work), .vectors = sgmres_vectors,
    .parse = sgmres_parse, .setup = sgmres_setup, .after_setup = sgmres_after_setup, .destroy = sgmres_destroy,
    .view = sgmres_view, .iterate = sgmres_iterate,
};
