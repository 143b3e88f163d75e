/* Runs of one repeated row in a diag block (see ovk__runs in internal.h):
 * found from the entries and values alone, for any matrix; a structured
 * grid's interior rows form them, a finite-element matrix usually none. */
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

/* column - row of entry k of row i */
static int offset_of(const ovk__csr *m, int i, int k) { return ovk__csr_col(m, i, k) - i; }

/* 1 when rows i and j hold the same offsets and bitwise the same values */
static int same_row(const ovk__csr *m, int i, int j)
{
    int a = m->rowptr[i], b = m->rowptr[j], len = m->rowptr[i + 1] - a;
    if (m->rowptr[j + 1] - b != len) return 0;
    for (int k = 0; k < len; k++)
        if (offset_of(m, i, a + k) != offset_of(m, j, b + k)) return 0;
    return !memcmp(m->val + a, m->val + b, sizeof(double) * (size_t)len);
}

void ovk__csr_drop_runs(ovk__csr *m)
{
    ovk__runs *r = m->runs;
    if (!r) return;
    free(r->seg_start);
    free(r->seg_pat);
    free(r->pat_ptr);
    free(r->pat_off);
    free(r->pat_val);
    free(r);
    m->runs = NULL;
}

/* The shared rows are kept once each: a hash table of pattern indices,
 * keyed by the offsets and value bits, and the row each pattern was copied
 * from (compared with same_row). */
typedef struct pat_table {
    int *slot; /* [size] pattern index + 1, 0 empty */
    int size;  /* a power of two */
    int *from; /* [runs] the row of each pattern */
} pat_table;

static uint64_t row_hash(const ovk__csr *m, int i)
{
    uint64_t h = 1469598103934665603u;
    for (int k = m->rowptr[i]; k < m->rowptr[i + 1]; k++) {
        uint64_t v;
        memcpy(&v, &m->val[k], sizeof v);
        h = (h ^ (uint64_t)(uint32_t)offset_of(m, i, k)) * 1099511628211u;
        h = (h ^ v) * 1099511628211u;
    }
    return h;
}

/* the pattern index of row i, appended when new (the arrays are sized for
 * every run having its own) */
static int pattern_of(ovk__runs *r, pat_table *t, const ovk__csr *m, int i)
{
    int at = (int)(row_hash(m, i) & (uint64_t)(t->size - 1));
    for (; t->slot[at]; at = (at + 1) & (t->size - 1))
        if (same_row(m, t->from[t->slot[at] - 1], i)) return t->slot[at] - 1;
    int p = r->npat++, a = r->pat_ptr[p];
    for (int k = m->rowptr[i]; k < m->rowptr[i + 1]; k++, a++) {
        r->pat_off[a] = offset_of(m, i, k);
        r->pat_val[a] = m->val[k];
    }
    r->pat_ptr[p + 1] = a;
    t->slot[at] = p + 1;
    t->from[p] = i;
    return p;
}

/* rows covered by runs and how many runs (a first pass, to size the arrays) */
static int count_runs(const ovk__csr *m, int *run_rows, int64_t *run_entries)
{
    int runs = 0;
    *run_rows = 0;
    *run_entries = 0;
    for (int i = 0, j; i < m->nrows; i = j) {
        for (j = i + 1; j < m->nrows && same_row(m, i, j); j++) continue;
        if (j - i < OVK__RUN_MIN) continue;
        runs++;
        *run_rows += j - i;
        *run_entries += m->rowptr[i + 1] - m->rowptr[i];
    }
    return runs;
}

static int runs_alloc(ovk__runs *r, int runs, int64_t entries, pat_table *t)
{
    int segs = 2 * runs + 1;
    r->seg_start = malloc(sizeof(int) * ((size_t)segs + 1));
    r->seg_pat = malloc(sizeof(int) * (size_t)segs);
    r->pat_ptr = calloc((size_t)runs + 1, sizeof(int));
    r->pat_off = malloc(sizeof(int) * (size_t)(entries > 0 ? entries : 1));
    r->pat_val = malloc(sizeof(double) * (size_t)(entries > 0 ? entries : 1));
    for (t->size = 16; t->size < 2 * runs; t->size *= 2) continue;
    t->slot = calloc((size_t)t->size, sizeof(int));
    t->from = malloc(sizeof(int) * ((size_t)runs + 1));
    if (r->seg_start && r->seg_pat && r->pat_ptr && r->pat_off && r->pat_val && t->slot && t->from) return OVK_OK;
    return ovk__fail(OVK_ENOMEM, "row runs of a block (%d runs)", runs);
}

/* append segment [lo, hi) with pattern p, merging plain rows with plain rows */
static void add_segment(ovk__runs *r, int lo, int hi, int p)
{
    if (lo == hi) return;
    if (p < 0 && r->nseg > 0 && r->seg_pat[r->nseg - 1] < 0) {
        r->seg_start[r->nseg] = hi;
        return;
    }
    r->seg_start[r->nseg] = lo;
    r->seg_pat[r->nseg++] = p;
    r->seg_start[r->nseg] = hi;
}

int ovk__csr_find_runs(ovk__csr *m)
{
    ovk__csr_drop_runs(m);
    ovk__csr_drop_strips(m); /* found outside the runs: ovk__csr_pack_values finds them again */
    if (m->upper) return OVK_OK; /* a row there is not the row of the matrix */
    int run_rows;
    int64_t entries;
    int runs = count_runs(m, &run_rows, &entries);
    if (m->nrows == 0 || (int64_t)run_rows * 100 < (int64_t)OVK__RUN_SHARE * m->nrows) return OVK_OK;
    ovk__runs *r = calloc(1, sizeof *r);
    pat_table t = {NULL, 0, NULL};
    int rc = r ? runs_alloc(r, runs, entries, &t) : ovk__fail(OVK_ENOMEM, "row runs");
    if (rc) goto cleanup;
    r->seg_start[0] = 0;
    for (int i = 0, j; i < m->nrows; i = j) {
        for (j = i + 1; j < m->nrows && same_row(m, i, j); j++) continue;
        add_segment(r, i, j, j - i < OVK__RUN_MIN ? -1 : pattern_of(r, &t, m, i));
    }
    r->run_rows = run_rows;
    m->runs = r;
    r = NULL;
cleanup:
    free(t.slot);
    free(t.from);
    if (r) {
        m->runs = r;
        ovk__csr_drop_runs(m);
    }
    return rc;
}
