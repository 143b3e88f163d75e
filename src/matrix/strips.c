/* Strips of a diag block (ovk__strips in matrix.h): segments of rows
 * outside runs whose entries sit at one list of offsets from their row, each
 * row with its own values, found from the 16-bit offsets alone; their
 * values copied block-transposed for the strip kernels (strip_kernels.c).
 * With runs, also the rows between them copied into one stream. */
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

void ovk__csr_drop_strips(ovk__csr *m)
{
    ovk__strips *t = m->strips;
    if (!t) return;
    free(t->seg_lo);
    free(t->seg_hi);
    free(t->seg_pat);
    free(t->seg_at);
    free(t->pat_ptr);
    free(t->pat_off);
    free(t->tidx);
    free(t->gap_row0);
    free(t->gap_ptr);
    free(t->gap_off);
    free(t->gap_val);
    free(t->gap_valf);
    free(t->gap_idx);
    free(t);
    m->strips = NULL;
}

/* 1 when rows i and j hold entries at the same offsets in the same order */
static int same_offsets(const ovk__csr *m, int i, int j)
{
    int a = m->rowptr[i], b = m->rowptr[j], len = m->rowptr[i + 1] - a;
    if (m->rowptr[j + 1] - b != len) return 0;
    return !memcmp(m->off16 + a, m->off16 + b, sizeof(int16_t) * (size_t)len);
}

/* blocks of a strip of len rows: the whole ones and one ending at its end */
static int64_t strip_blocks(int len) { return (len + OVK__STRIP_ROWS - 1) / OVK__STRIP_ROWS; }

/* Call visit(m, lo, hi, arg) for each strip in row order: a maximal stretch
 * of at least OVK__STRIP_ROWS rows with one nonempty offset list, inside
 * the rows that runs leave to their entries. */
typedef int (*strip_visit)(const ovk__csr *m, int lo, int hi, void *arg);

static int scan_plain(const ovk__csr *m, int a, int b, strip_visit visit, void *arg)
{
    for (int i = a, j; i < b; i = j) {
        for (j = i + 1; j < b && same_offsets(m, i, j); j++) continue;
        if (j - i < OVK__STRIP_ROWS || m->rowptr[i + 1] == m->rowptr[i]) continue;
        int rc = visit(m, i, j, arg);
        if (rc) return rc;
    }
    return OVK_OK;
}

static int scan_strips(const ovk__csr *m, strip_visit visit, void *arg)
{
    const ovk__runs *r = m->runs;
    if (!r) return scan_plain(m, 0, m->nrows, visit, arg);
    for (int s = 0; s < r->nseg; s++) {
        if (r->seg_pat[s] >= 0) continue;
        int rc = scan_plain(m, r->seg_start[s], r->seg_start[s + 1], visit, arg);
        if (rc) return rc;
    }
    return OVK_OK;
}

/* first pass: strips, and entries of their offset lists and values */
typedef struct strip_count {
    int nseg, rows;
    int64_t offs, stored;
} strip_count;

static int count_strip(const ovk__csr *m, int lo, int hi, void *arg)
{
    strip_count *c = arg;
    int K = m->rowptr[lo + 1] - m->rowptr[lo];
    c->nseg++;
    c->rows += hi - lo;
    c->offs += K;
    c->stored += strip_blocks(hi - lo) * OVK__STRIP_ROWS * K;
    return OVK_OK;
}

/* the offset list of row lo: one kept already (the last few compared), or
 * appended */
static int pattern_of(ovk__strips *t, const ovk__csr *m, int lo)
{
    const int16_t *o = m->off16 + m->rowptr[lo];
    int K = m->rowptr[lo + 1] - m->rowptr[lo];
    for (int p = t->npat - 1; p >= 0 && p >= t->npat - 8; p--) {
        int a = t->pat_ptr[p], q = 0;
        if (t->pat_ptr[p + 1] - a != K) continue;
        while (q < K && t->pat_off[a + q] == o[q]) q++;
        if (q == K) return p;
    }
    int p = t->npat++, a = t->pat_ptr[p];
    for (int q = 0; q < K; q++) t->pat_off[a + q] = o[q];
    t->pat_ptr[p + 1] = a + K;
    return p;
}

/* second pass: strip [lo, hi) and its values, block q entry-major (value
 * of the block's row r, entry k at q's start + k OVK__STRIP_ROWS + r) */
typedef struct strip_fill {
    ovk__strips *t;
    int64_t at; /* the next strip's first value */
} strip_fill;

static int fill_strip(const ovk__csr *m, int lo, int hi, void *arg)
{
    strip_fill *f = arg;
    ovk__strips *t = f->t;
    int s = t->nseg++, K = m->rowptr[lo + 1] - m->rowptr[lo], B = OVK__STRIP_ROWS;
    int64_t at = f->at;
    t->seg_lo[s] = lo;
    t->seg_hi[s] = hi;
    t->seg_at[s] = at;
    t->seg_pat[s] = pattern_of(t, m, lo);
    int nb = (int)strip_blocks(hi - lo);
    for (int q = 0; q < nb; q++) {
        int r0 = (q + 1) * B <= hi - lo ? lo + q * B : hi - B; /* the last block ends at hi */
        for (int r = 0; r < B; r++)
            for (int k = 0, e = m->rowptr[r0 + r]; k < K; k++, e++) {
                int64_t d = at + ((int64_t)q * K + k) * B + r;
                t->tidx[d] = m->vidx[e];
            }
    }
    t->rows += hi - lo;
    f->at += nb * (int64_t)B * K;
    return OVK_OK;
}

static int strips_alloc(ovk__strips *t, const strip_count *c)
{
    size_t nseg = (size_t)c->nseg, offs = (size_t)c->offs, stored = (size_t)c->stored;
    t->seg_lo = malloc(sizeof(int) * nseg);
    t->seg_hi = malloc(sizeof(int) * nseg);
    t->seg_pat = malloc(sizeof(int) * nseg);
    t->seg_at = malloc(sizeof(int64_t) * nseg);
    t->pat_ptr = calloc(nseg + 1, sizeof(int));
    t->pat_off = malloc(sizeof(int) * offs);
    t->tidx = malloc(stored);
    t->nstored = c->stored;
    if (t->seg_lo && t->seg_hi && t->seg_pat && t->seg_at && t->pat_ptr && t->pat_off && t->tidx)
        return OVK_OK;
    return ovk__fail(OVK_ENOMEM, "strips of a block (%d strips, %lld values)", c->nseg, (long long)c->stored);
}

/* t's copy of the rows between m's runs: their entries in row order */
static int copy_gaps(ovk__strips *t, const ovk__csr *m)
{
    const ovk__runs *r = m->runs;
    int rows = 0;
    int64_t nnz = 0;
    for (int s = 0; s < r->nseg; s++)
        if (r->seg_pat[s] < 0) {
            rows += r->seg_start[s + 1] - r->seg_start[s];
            nnz += m->rowptr[r->seg_start[s + 1]] - m->rowptr[r->seg_start[s]];
        }
    size_t len = (size_t)(nnz > 0 ? nnz : 1);
    t->gap_row0 = malloc(sizeof(int) * (size_t)r->nseg);
    t->gap_ptr = malloc(sizeof(int) * ((size_t)rows + 1));
    t->gap_off = malloc(sizeof(int16_t) * len);
    if (m->vform == OVK__VAL_DICT8) t->gap_idx = malloc(len);
    else if (m->vform == OVK__VAL_FLOAT) t->gap_valf = malloc(sizeof(float) * len);
    else t->gap_val = malloc(sizeof(double) * len);
    if (!t->gap_row0 || !t->gap_ptr || !t->gap_off || !(t->gap_idx || t->gap_valf || t->gap_val))
        return ovk__fail(OVK_ENOMEM, "the rows between runs (%d rows)", rows);
    int c = 0, e = 0;
    t->gap_ptr[0] = 0;
    for (int s = 0; s < r->nseg; s++) {
        if (r->seg_pat[s] >= 0) continue;
        t->gap_row0[s] = c;
        for (int i = r->seg_start[s]; i < r->seg_start[s + 1]; i++, c++) {
            for (int k = m->rowptr[i]; k < m->rowptr[i + 1]; k++, e++) {
                t->gap_off[e] = m->off16[k];
                if (t->gap_idx) t->gap_idx[e] = m->vidx[k];
                else if (t->gap_valf) t->gap_valf[e] = m->valf[k];
                else t->gap_val[e] = m->val[k];
            }
            t->gap_ptr[c + 1] = e;
        }
    }
    t->gap_rows = rows;
    return OVK_OK;
}

int ovk__csr_find_strips(ovk__csr *m)
{
    ovk__csr_drop_strips(m);
    if (m->upper || !m->off16 || m->esc16) return OVK_OK;
    int in_strips = m->vform == OVK__VAL_DICT8;
    strip_count c = {0, 0, 0, 0};
    if (in_strips) scan_strips(m, count_strip, &c);
    if (c.nseg == 0 && !m->runs) return OVK_OK;
    ovk__strips *t = calloc(1, sizeof *t);
    int rc = t ? OVK_OK : ovk__fail(OVK_ENOMEM, "strips of a block");
    if (!rc && c.nseg > 0) rc = strips_alloc(t, &c);
    strip_fill f = {t, 0};
    if (!rc && c.nseg > 0) rc = scan_strips(m, fill_strip, &f);
    if (!rc && m->runs && c.nseg == 0) rc = copy_gaps(t, m); /* with strips, they are read as strips and plain rows */
    m->strips = t;
    if (rc) ovk__csr_drop_strips(m);
    return rc;
}
