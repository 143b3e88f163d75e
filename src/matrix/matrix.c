/* Distributed CSR matrices in the ParCSR shape: validation of the rows a rank
 * contributes, the split into a local "diag" block and a compressed "offd"
 * block, and the queries. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix_impl.h"

/* ---- layout ----------------------------------------------------------- */

/* The last layout id this process saw; a new layout takes one more than
 * the largest of its ranks' (gathered with the row ranges), so the ids one
 * process holds only grow and a layout's id is the same on all its ranks. */
static _Atomic uint64_t last_layout_id;

static void note_layout_id(uint64_t id)
{
    uint64_t seen = atomic_load(&last_layout_id);
    while (seen < id && !atomic_compare_exchange_weak(&last_layout_id, &seen, id)) {
    }
}

/* The library's duplicate of MPI_COMM_WORLD, made by the first layout whose
 * communicator holds every process (all of them are in that call), freed at
 * MPI_Finalize by an attribute of MPI_COMM_SELF. */
static MPI_Comm world_dup = MPI_COMM_NULL;

static int free_world_dup(MPI_Comm self, int key, void *val, void *extra)
{
    (void)self, (void)key, (void)val, (void)extra;
    if (world_dup != MPI_COMM_NULL) MPI_Comm_free(&world_dup);
    return MPI_SUCCESS;
}

/* Collective over comm: lay->world, and the duplicate of the world when it is */
static int note_world(MPI_Comm comm, ovk__layout *lay)
{
    int cmp = MPI_UNEQUAL, key = MPI_KEYVAL_INVALID;
    MPI_Comm_compare(comm, MPI_COMM_WORLD, &cmp);
    lay->world = cmp == MPI_IDENT || cmp == MPI_CONGRUENT;
    if (!lay->world || world_dup != MPI_COMM_NULL) return OVK_OK;
    int rc = ovk__mpi(MPI_Comm_dup(MPI_COMM_WORLD, &world_dup), "MPI_Comm_dup");
    if (rc) return rc;
    rc = ovk__mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_world_dup, &key, NULL), "MPI_Comm_create_keyval");
    if (rc) return rc;
    rc = ovk__mpi(MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL), "MPI_Comm_set_attr");
    if (rc) return rc;
    MPI_Comm_free_keyval(&key);
    return OVK_OK;
}

int ovk__layout_agree_identity(const ovk__layout *lay, const char *what)
{
    if (!lay->world) return OVK_OK;
    int64_t v[2] = {(int64_t)lay->id, -(int64_t)lay->id};
    if (MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT64_T, MPI_MAX, world_dup) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Allreduce (%s)", what);
    if (v[0] == -v[1]) return OVK_OK;
    return ovk__fail(OVK_EMISMATCH, "%s: the ranks passed different objects (each rank's must be the same "
                                    "collectively created one)", what);
}

int ovk__layout_agree_state(const ovk__layout *lay, unsigned *bits, int nbits, const char *what)
{
    enum { MAXBITS = 16 };
    int64_t v[2 + MAXBITS];
    MPI_Comm comm = !lay || lay->world ? world_dup : lay->comm;
    if (comm == MPI_COMM_NULL || nbits > MAXBITS) return lay ? OVK_EINVAL : OVK_OK; /* no world to meet on */
    v[0] = lay ? (int64_t)lay->id : -1;
    v[1] = -v[0];
    for (int b = 0; b < nbits; b++) v[2 + b] = (*bits >> b) & 1u;
    if (MPI_Allreduce(MPI_IN_PLACE, v, 2 + nbits, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Allreduce (%s)", what);
    *bits = 0;
    for (int b = 0; b < nbits; b++) *bits |= (unsigned)(v[2 + b] != 0) << b;
    if (v[0] == -v[1]) return OVK_OK;
    return ovk__fail(OVK_EMISMATCH, "%s: the ranks passed different objects (each rank's must be the same "
                                    "collectively created one; NULL or destroyed on some rank?)", what);
}

enum { K = 3 }; /* what a rank tells the others of a new layout: row_start, nlocal, last id */

/* lay->starts from the gathered ranges of every rank, and the largest last
 * id in *top; every rank checks the same ranges: the decision is global. */
static int tile_rows(ovk__layout *lay, const int64_t *all, int64_t *top)
{
    lay->starts[0] = 0;
    for (int r = 0; r < lay->size; r++) {
        const int64_t *a = &all[K * r];
        if (a[1] < 0 || a[0] != lay->starts[r])
            return ovk__fail(OVK_EPARTITION,
                             "rank %d owns rows [%lld, %lld) but the rows before it end at %lld "
                             "(ranges must tile [%d, N%s) in rank order)",
                             r, ovk__gid(lay, a[0]), ovk__gid(lay, a[0] + a[1]), ovk__gid(lay, lay->starts[r]),
                             lay->base, lay->base ? "+1" : "");
        lay->starts[r + 1] = lay->starts[r] + a[1];
        if (a[2] > *top) *top = a[2];
    }
    return OVK_OK;
}

int ovk__layout_init(MPI_Comm comm, ovk_gidx row_start, int nlocal, ovk__layout *lay)
{
    return ovk__layout_init_base(comm, row_start, nlocal, 0, lay);
}

int ovk__layout_init_base(MPI_Comm comm, ovk_gidx row_start, int nlocal, int base, ovk__layout *lay)
{
    int64_t mine[K] = {row_start, nlocal, (int64_t)atomic_load(&last_layout_id)};
    int64_t *all = NULL, top = 0;
    memset(lay, 0, sizeof *lay);
    lay->comm = MPI_COMM_NULL;
    lay->base = base;
    int rc = ovk__comm_acquire(comm, &lay->comm); /* shared by every object on comm */
    if (rc) goto cleanup;
    MPI_Comm_rank(comm, &lay->rank);
    MPI_Comm_size(comm, &lay->size);
    all = malloc(K * sizeof(int64_t) * (size_t)lay->size);
    lay->starts = malloc(sizeof(ovk_gidx) * ((size_t)lay->size + 1));
    if (!all || !lay->starts) rc = ovk__fail(OVK_ENOMEM, "layout of %d ranks", lay->size);
    /* agreed: a rank without its buffers must not skip the Allgather */
    rc = ovk__agree(comm, rc);
    if (rc) goto cleanup;
    rc = ovk__mpi(MPI_Allgather(mine, K, MPI_INT64_T, all, K, MPI_INT64_T, comm), "MPI_Allgather");
    if (rc) goto cleanup;
    rc = tile_rows(lay, all, &top);
    if (rc) goto cleanup;
    lay->id = (uint64_t)top + 1;
    note_layout_id(lay->id);
    rc = note_world(comm, lay);
    if (rc) goto cleanup;
    lay->nglobal = lay->starts[lay->size];
    lay->row_start = row_start;
    lay->nlocal = nlocal;
cleanup:
    free(all);
    if (rc) ovk__layout_free(lay);
    return rc;
}

int ovk__layout_tag(const ovk__layout *lay, int k)
{
    return 32 + OVK__LAYOUT_TAGS * (int)(lay->id % 8000u) + k; /* below 32767, MPI's least MPI_TAG_UB */
}

void ovk__layout_free(ovk__layout *lay)
{
    ovk__comm_release(&lay->comm);
    free(lay->starts);
    lay->starts = NULL;
}

/* ---- input validation ------------------------------------------------- */

static int check_rows(const ovk__layout *lay, const int *rowptr, const ovk_gidx *cols,
                      const double *vals, ovk_dup_policy dups)
{
    int n = lay->nlocal;
    if (dups != OVK_DUP_SUM && dups != OVK_DUP_REJECT)
        return ovk__fail(OVK_EINVAL, "duplicate policy %d is neither OVK_DUP_SUM (%d) nor OVK_DUP_REJECT (%d)",
                         (int)dups, OVK_DUP_SUM, OVK_DUP_REJECT);
    if (n == 0) return OVK_OK;
    /* the offsets first: no entry is read before they are known to be sane */
    if (!rowptr) return ovk__fail(OVK_EINVAL, "rowptr is NULL");
    if (rowptr[0] < 0) return ovk__fail(OVK_EINVAL, "rowptr[0] = %d < 0", rowptr[0]);
    for (int i = 0; i < n; i++)
        if (rowptr[i + 1] < rowptr[i])
            return ovk__fail(OVK_EINVAL, "rowptr decreases at local row %d (%d, then %d)", i + lay->base,
                             rowptr[i] + lay->base, rowptr[i + 1] + lay->base);
    /* entries the caller's arrays cannot hold: more than the node's memory
     * (rowptr[n] = INT_MAX: 32 GB), or with OVK_DUP_REJECT more in a row
     * than there are columns; refused before cols[k] is read past their end */
    long long entries = (long long)rowptr[n] - rowptr[0];
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && (double)entries * (double)(sizeof(ovk_gidx) + sizeof(double)) > (double)pages * page)
        return ovk__fail(OVK_EINVAL, "rowptr[%d] = %d: %lld entries of %zu bytes, more than this node's memory",
                         n, rowptr[n] + lay->base, entries, sizeof(ovk_gidx) + sizeof(double));
    for (int i = 0; dups == OVK_DUP_REJECT && i < n; i++)
        if ((long long)rowptr[i + 1] - rowptr[i] > lay->nglobal)
            return ovk__fail(OVK_EINVAL, "row %lld holds %lld entries, more than the %lld columns (OVK_DUP_REJECT)",
                             ovk__row_id(lay, i), (long long)rowptr[i + 1] - rowptr[i], (long long)lay->nglobal);
    if (rowptr[n] > rowptr[0] && (!cols || !vals))
        return ovk__fail(OVK_EINVAL, "%s is NULL but the rows hold %d entries", !cols ? "cols" : "vals",
                         rowptr[n] - rowptr[0]);
    for (int i = 0; i < n; i++) {
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++) {
            if (cols[k] < 0 || cols[k] >= lay->nglobal)
                return ovk__fail(OVK_ECOLUMN, "row %lld: column %lld outside [%lld, %lld]", ovk__row_id(lay, i),
                                 ovk__gid(lay, cols[k]), ovk__gid(lay, 0), ovk__gid(lay, lay->nglobal - 1));
            if (!isfinite(vals[k]))
                return ovk__fail(OVK_ENONFINITE, "row %lld, column %lld: value is %g", ovk__row_id(lay, i),
                                 ovk__gid(lay, cols[k]), vals[k]);
        }
    }
    return OVK_OK;
}

/* ---- assembly of one row --------------------------------------------- */

typedef struct entry {
    ovk_gidx col;
    double val;
} entry;

static int cmp_entry(const void *a, const void *b)
{
    ovk_gidx x = ((const entry *)a)->col, y = ((const entry *)b)->col;
    return (x > y) - (x < y);
}

/* 1 when the row's columns already ascend (as most callers give them) */
static int row_sorted(const entry *e, int len)
{
    for (int k = 1; k < len; k++)
        if (e[k].col < e[k - 1].col) return 0;
    return 1;
}

/* Sort one row by column and merge duplicates into *merged entries.  A
 * merged value must be finite like the raw ones (OVK_ENONFINITE). */
static int merge_row(entry *e, int len, ovk_dup_policy dups, const ovk__layout *lay, int i, int *merged)
{
    if (!row_sorted(e, len)) qsort(e, (size_t)len, sizeof *e, cmp_entry);
    int out = 0;
    for (int k = 0; k < len; k++) {
        if (out > 0 && e[out - 1].col == e[k].col) {
            if (dups == OVK_DUP_REJECT)
                return ovk__fail(OVK_EINVAL, "row %lld: column %lld given twice (duplicates rejected)",
                                 ovk__row_id(lay, i), ovk__gid(lay, e[k].col));
            e[out - 1].val += e[k].val; /* duplicates are summed */
            if (!isfinite(e[out - 1].val)) /* finite values, an overflowing sum */
                return ovk__fail(OVK_ENONFINITE, "row %lld, column %lld: the duplicates sum to %g",
                                 ovk__row_id(lay, i), ovk__gid(lay, e[k].col), e[out - 1].val);
        } else {
            e[out++] = e[k];
        }
    }
    *merged = out;
    return OVK_OK;
}

static int cmp_gidx(const void *a, const void *b)
{
    ovk_gidx x = *(const ovk_gidx *)a, y = *(const ovk_gidx *)b;
    return (x > y) - (x < y);
}

static int find_gidx(const ovk_gidx *v, int n, ovk_gidx key)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (v[mid] < key) lo = mid + 1;
        else if (v[mid] > key) hi = mid - 1;
        else return mid;
    }
    return -1;
}

static int csr_alloc(ovk__csr *m, int nrows, int64_t nnz)
{
    m->nrows = nrows;
    m->rowptr = calloc((size_t)nrows + 1, sizeof(int));
    m->col = malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
    m->val = malloc(sizeof(double) * (size_t)(nnz > 0 ? nnz : 1));
    if (!m->rowptr || !m->col || !m->val) return ovk__fail(OVK_ENOMEM, "CSR block of %lld entries", (long long)nnz);
    return OVK_OK;
}

static void csr_free(ovk__csr *m)
{
    free(m->rowptr);
    free(m->col);
    free(m->off16);
    free(m->val);
    free(m->vidx);
    free(m->vdict);
    free(m->valf);
    free(m->mirror);
    free(m->lone);
    ovk__csr_drop_runs(m);
    ovk__csr_drop_strips(m);
    ovk__csr_drop_far(m);
    ovk__csr_drop_slices(m);
    memset(m, 0, sizeof *m);
}

/* ---- packed values ---------------------------------------------------- */

static uint64_t bits_of(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* first position in the sorted u[0, d) whose pattern is >= b (d if none) */
static int lower_bound(const uint64_t *u, int d, uint64_t b)
{
    int lo = 0, hi = d;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (u[mid] < b) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The distinct bit patterns of val, sorted, into *dict (at most 257 kept:
 * one more than a byte indexes tells "too many", and the scan stops there);
 * their count in *nd.  A sorted insert per new pattern: O(nnz log 257). */
static int distinct_values(const double *val, int64_t nnz, uint64_t **dict, int *nd)
{
    enum { KEEP = 257 };
    uint64_t *u = malloc(sizeof(uint64_t) * KEEP);
    if (!u) return ovk__fail(OVK_ENOMEM, "value dictionary");
    int d = 0;
    for (int64_t k = 0; k < nnz && d < KEEP; k++) {
        uint64_t b = bits_of(val[k]);
        int at = lower_bound(u, d, b);
        if (at < d && u[at] == b) continue;
        memmove(u + at + 1, u + at, sizeof(uint64_t) * (size_t)(d - at));
        u[at] = b;
        d++;
    }
    *dict = u;
    *nd = d;
    return OVK_OK;
}

/* vidx/vdict of m from its values and the sorted distinct patterns */
static int pack_dict8(ovk__csr *m, int64_t nnz, const uint64_t *dict, int d)
{
    m->vidx = malloc((size_t)(nnz > 0 ? nnz : 1));
    m->vdict = malloc(sizeof(double) * (size_t)d);
    if (!m->vidx || !m->vdict) return ovk__fail(OVK_ENOMEM, "value indices of %lld entries", (long long)nnz);
    for (int j = 0; j < d; j++) memcpy(&m->vdict[j], &dict[j], sizeof(double));
    for (int64_t k = 0; k < nnz; k++) m->vidx[k] = (uint8_t)lower_bound(dict, d, bits_of(m->val[k]));
    m->ndict = d;
    m->vform = OVK__VAL_DICT8;
    return OVK_OK;
}

/* vidx/vdict of m when its values take at most 256 bit patterns */
static int try_dict8(ovk__csr *m, int64_t nnz)
{
    uint64_t *dict = NULL;
    int d = 0;
    int rc = distinct_values(m->val, nnz, &dict, &d);
    if (rc) return rc;
    if (d <= 256) rc = pack_dict8(m, nnz, dict, d);
    free(dict);
    return rc;
}

/* valf of m when every value survives the round trip through float */
static int pack_float(ovk__csr *m, int64_t nnz)
{
    for (int64_t k = 0; k < nnz; k++)
        if (bits_of((double)(float)m->val[k]) != bits_of(m->val[k])) return OVK_OK;
    m->valf = malloc(sizeof(float) * (size_t)(nnz > 0 ? nnz : 1));
    if (!m->valf) return ovk__fail(OVK_ENOMEM, "float values of %lld entries", (long long)nnz);
    for (int64_t k = 0; k < nnz; k++) m->valf[k] = (float)m->val[k];
    m->vform = OVK__VAL_FLOAT;
    return OVK_OK;
}

/* Back to the plain double values only (the strips copied the old form). */
static void unpack_values(ovk__csr *m)
{
    ovk__csr_drop_strips(m);
    free(m->vidx);
    free(m->vdict);
    free(m->valf);
    m->vidx = NULL;
    m->vdict = NULL;
    m->valf = NULL;
    m->ndict = 0;
    m->vform = OVK__VAL_DOUBLE;
}

int ovk__csr_pack_values(ovk__csr *m, int allow)
{
    int rc = OVK_OK;
    int64_t nnz = m->rowptr[m->nrows];
    unpack_values(m);
    if (nnz == 0) return OVK_OK;
    if (allow & (1 << OVK__VAL_DICT8)) rc = try_dict8(m, nnz);
    if (rc) goto cleanup;
    if (m->vform == OVK__VAL_DOUBLE && (allow & (1 << OVK__VAL_FLOAT))) rc = pack_float(m, nnz);
    if (!rc) rc = ovk__csr_find_strips(m); /* their values in the form chosen */
cleanup:
    if (rc) unpack_values(m);
    return rc;
}

/* Replace m->col by 16-bit offsets from the row when every |col - row| fits
 * (m must be a square diag block); otherwise leave m unchanged.  Returns
 * OVK_OK or OVK_ENOMEM. */
static int csr_compact(ovk__csr *m)
{
    for (int i = 0; i < m->nrows; i++)
        for (int k = m->rowptr[i]; k < m->rowptr[i + 1]; k++)
            if (m->col[k] - i < INT16_MIN || m->col[k] - i > INT16_MAX) return OVK_OK; /* too wide: keep col */
    int nnz = m->rowptr[m->nrows];
    int16_t *off = malloc(sizeof(int16_t) * (size_t)(nnz > 0 ? nnz : 1));
    if (!off) return ovk__fail(OVK_ENOMEM, "compact column offsets of %d entries", nnz);
    for (int i = 0; i < m->nrows; i++)
        for (int k = m->rowptr[i]; k < m->rowptr[i + 1]; k++) off[k] = (int16_t)(m->col[k] - i);
    free(m->col);
    m->col = NULL;
    m->off16 = off;
    return OVK_OK;
}

void ovk__csr_drop_far(ovk__csr *m)
{
    ovk__free_each(3, (void *[]){m->esc16, m->far, m->far_ptr});
    m->esc16 = NULL;
    m->far = m->far_ptr = NULL;
}

int ovk__csr_pack_far(ovk__csr *m)
{
    ovk__csr_drop_far(m);
    if (!m->col || m->upper) return OVK_OK;
    int n = m->nrows, nnz = m->rowptr[n], nfar = 0;
    for (int i = 0; i < n; i++)
        for (int k = m->rowptr[i]; k < m->rowptr[i + 1]; k++)
            nfar += m->col[k] - i <= INT16_MIN || m->col[k] - i > INT16_MAX;
    /* 2 B per entry saved, 4 per far column and per row spent */
    if (4.0 * nfar + 4.0 * (n + 1) > (double)nnz) return OVK_OK;
    m->esc16 = malloc(sizeof(int16_t) * (size_t)(nnz > 0 ? nnz : 1));
    m->far = malloc(sizeof(int) * (size_t)(nfar > 0 ? nfar : 1));
    m->far_ptr = malloc(sizeof(int) * ((size_t)n + 1));
    if (!m->esc16 || !m->far || !m->far_ptr) {
        ovk__csr_drop_far(m);
        return ovk__fail(OVK_ENOMEM, "16-bit column offsets of %d entries", nnz);
    }
    int f = 0;
    for (int i = 0; i < n; i++) {
        m->far_ptr[i] = f;
        for (int k = m->rowptr[i]; k < m->rowptr[i + 1]; k++) {
            int o = m->col[k] - i;
            if (o <= INT16_MIN || o > INT16_MAX) {
                m->esc16[k] = OVK__FAR;
                m->far[f++] = m->col[k];
            } else m->esc16[k] = (int16_t)o;
        }
    }
    m->far_ptr[n] = f;
    return OVK_OK;
}

/* Position of offset o in row j's entries right of its diagonal, which
 * ascend; -1 when absent. */
static int find_upper(const ovk__csr *m, int j, int o)
{
    int lo = m->rowptr[j] + 1, hi = m->rowptr[j + 1] - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, at = ovk__csr_col(m, j, mid) - j;
        if (at < o) lo = mid + 1;
        else if (at > o) hi = mid - 1;
        else return mid;
    }
    return -1;
}

/* 1 when every entry left of a diagonal has its mirror, of equal value,
 * right of the diagonal in the mirrored row, and the two counts agree */
static int block_symmetric(const ovk__csr *m)
{
    int64_t lower = 0, upper = 0;
    for (int i = 0; i < m->nrows; i++)
        for (int k = m->rowptr[i] + 1; k < m->rowptr[i + 1]; k++) {
            int o = ovk__csr_col(m, i, k) - i;
            if (o > 0) {
                upper++;
                continue;
            }
            int at = find_upper(m, i + o, -o);
            if (o == 0 || at < 0 || !(m->val[at] == m->val[k])) return 0;
            lower++;
        }
    return lower == upper;
}

/* m's entry arrays cut to nnz (a failed realloc keeps the longer ones) */
static void shrink(ovk__csr *m, int nnz)
{
    size_t n = (size_t)(nnz > 0 ? nnz : 1);
    double *val = realloc(m->val, sizeof(double) * n);
    if (val) m->val = val;
    if (m->off16) {
        int16_t *off = realloc(m->off16, sizeof(int16_t) * n);
        if (off) m->off16 = off;
    } else {
        int *col = realloc(m->col, sizeof(int) * n);
        if (col) m->col = col;
    }
}

int ovk__csr_keep_upper(ovk__csr *m)
{
    if (!block_symmetric(m)) return OVK_OK;
    ovk__csr_drop_strips(m); /* copies of the rows as they were */
    ovk__csr_drop_slices(m);
    int pos = 0, start = 0; /* compacted in place: pos <= k, no entry is overwritten before it is read */
    for (int i = 0; i < m->nrows; i++) {
        int end = m->rowptr[i + 1];
        m->rowptr[i] = pos;
        for (int k = start; k < end; k++) {
            if (ovk__csr_col(m, i, k) < i) continue; /* a_ii, then right of the diagonal */
            if (m->off16) m->off16[pos] = m->off16[k];
            else m->col[pos] = m->col[k];
            m->val[pos++] = m->val[k];
        }
        start = end;
    }
    m->rowptr[m->nrows] = pos;
    shrink(m, pos);
    m->upper = 1;
    return OVK_OK;
}

int ovk__matrix_row_stats(const ovk_matrix *A, double *norm_inf, int *longest)
{
    const ovk__csr *d = &A->diag, *o = &A->offd;
    int n = A->lay.nlocal;
    double *sum = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    int *len = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    if (!sum || !len) {
        free(sum);
        free(len);
        return ovk__fail(OVK_ENOMEM, "row norms of %d rows", n);
    }
    /* row i's own entries in four partial sums (one sum through sum[i]
     * waited for each entry's add: 300 us at 8,000 rows of 27), then the
     * entries a_ji of upper storage scattered to their rows */
    for (int i = 0; i < n; i++) {
        int lo = d->rowptr[i], hi = d->rowptr[i + 1], k = lo;
        double own[4] = {0.0, 0.0, 0.0, 0.0};
        for (; k + 3 < hi; k += 4)
            for (int q = 0; q < 4; q++) own[q] += fabs(d->val[k + q]);
        for (; k < hi; k++) own[0] += fabs(d->val[k]);
        for (k = o->rowptr[i]; k < o->rowptr[i + 1]; k++) own[1] += fabs(o->val[k]);
        sum[i] += (own[0] + own[1]) + (own[2] + own[3]);
        len[i] += hi - lo + o->rowptr[i + 1] - o->rowptr[i];
        if (!d->upper) continue;
        for (k = lo; k < hi; k++) {
            int j = ovk__csr_col(d, i, k);
            if (j != i) { /* a_ji, not stored */
                sum[j] += fabs(d->val[k]);
                len[j]++;
            }
        }
    }
    *norm_inf = 0.0;
    *longest = 0;
    for (int i = 0; i < n; i++) {
        *norm_inf = fmax(*norm_inf, sum[i]);
        if (len[i] > *longest) *longest = len[i];
    }
    free(sum);
    free(len);
    return OVK_OK;
}

/* Collect the sorted, unique global ids of the off-rank columns. */
static int build_col_map(ovk_matrix *A, const entry *e, const int *ptr)
{
    const ovk__layout *lay = &A->lay;
    ovk_gidx lo = lay->row_start, hi = lay->row_start + lay->nlocal;
    int64_t n = 0;
    for (int k = 0; k < ptr[lay->nlocal]; k++) n += (e[k].col < lo || e[k].col >= hi);
    A->col_map = malloc(sizeof(ovk_gidx) * (size_t)(n > 0 ? n : 1));
    if (!A->col_map) return ovk__fail(OVK_ENOMEM, "offd column map");
    n = 0;
    for (int k = 0; k < ptr[lay->nlocal]; k++)
        if (e[k].col < lo || e[k].col >= hi) A->col_map[n++] = e[k].col;
    qsort(A->col_map, (size_t)n, sizeof(ovk_gidx), cmp_gidx);
    int u = 0;
    for (int64_t k = 0; k < n; k++)
        if (u == 0 || A->col_map[u - 1] != A->col_map[k]) A->col_map[u++] = A->col_map[k];
    A->ncols_offd = u;
    return OVK_OK;
}

/* The blocks of the merged rows, the off-rank column map and the diagonal. */
static int alloc_blocks(ovk_matrix *A, const entry *e, const int *ptr)
{
    int n = A->lay.nlocal;
    ovk_gidx lo = A->lay.row_start, hi = lo + n;
    int64_t nd = 0, no = 0;
    for (int k = 0; k < ptr[n]; k++) {
        if (e[k].col >= lo && e[k].col < hi) nd++;
        else no++;
    }
    int rc = csr_alloc(&A->diag, n, nd);
    if (rc) return rc;
    rc = csr_alloc(&A->offd, n, no);
    if (rc) return rc;
    rc = build_col_map(A, e, ptr);
    if (rc) return rc;
    A->diagonal = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    if (!A->diagonal) return ovk__fail(OVK_ENOMEM, "diagonal");
    return OVK_OK;
}

/* Split merged rows into the diag block (diagonal first) and the offd block. */
static int split_blocks(ovk_matrix *A, const entry *e, const int *ptr)
{
    int n = A->lay.nlocal;
    ovk_gidx lo = A->lay.row_start, hi = lo + n;
    int rc = alloc_blocks(A, e, ptr);
    if (rc) return rc;
    int pd = 0, po = 0;
    A->has_diag_first = 1;
    A->first_missing_diag = -1;
    for (int i = 0; i < n; i++) {
        int first = pd;
        for (int k = ptr[i]; k < ptr[i + 1]; k++) {
            if (e[k].col == lo + i) { /* the diagonal goes first, as in hypre */
                memmove(&A->diag.col[first + 1], &A->diag.col[first], sizeof(int) * (size_t)(pd - first));
                memmove(&A->diag.val[first + 1], &A->diag.val[first], sizeof(double) * (size_t)(pd - first));
                A->diag.col[first] = i;
                A->diag.val[first] = e[k].val;
                A->diagonal[i] = e[k].val;
                pd++;
            } else if (e[k].col >= lo && e[k].col < hi) {
                A->diag.col[pd] = (int)(e[k].col - lo);
                A->diag.val[pd++] = e[k].val;
            } else {
                A->offd.col[po] = find_gidx(A->col_map, A->ncols_offd, e[k].col);
                A->offd.val[po++] = e[k].val;
            }
        }
        if (pd == first || A->diag.col[first] != i) { /* stored a_ii goes first: none here */
            A->has_diag_first = 0;
            if (A->first_missing_diag < 0) A->first_missing_diag = i;
        }
        A->diag.rowptr[i + 1] = pd;
        A->offd.rowptr[i + 1] = po;
    }
    A->diag.nnz = pd;
    A->offd.nnz = po;
    return OVK_OK;
}

/* Copy the caller's rows, sorted and with duplicates merged. */
static int gather_rows(const ovk__layout *lay, const int *rowptr, const ovk_gidx *cols,
                       const double *vals, ovk_dup_policy dups, entry **out, int **out_ptr)
{
    int n = lay->nlocal, rc = OVK_OK;
    int64_t nnz = n > 0 ? (int64_t)rowptr[n] - rowptr[0] : 0;
    entry *e = malloc(sizeof(entry) * (size_t)(nnz > 0 ? nnz : 1));
    int *ptr = calloc((size_t)n + 1, sizeof(int));
    if (!e || !ptr) {
        free(e);
        free(ptr);
        return ovk__fail(OVK_ENOMEM, "copy of %lld entries", (long long)nnz);
    }
    int pos = 0;
    for (int i = 0; i < n; i++) {
        int len = rowptr[i + 1] - rowptr[i], merged = 0;
        for (int k = 0; k < len; k++) {
            e[pos + k].col = cols[rowptr[i] + k];
            e[pos + k].val = vals[rowptr[i] + k];
        }
        rc = merge_row(&e[pos], len, dups, lay, i, &merged);
        if (rc) break;
        pos += merged;
        ptr[i + 1] = pos;
    }
    *out = e;
    *out_ptr = ptr;
    return rc;
}

int ovk_matrix_create_csr(MPI_Comm comm, ovk_gidx row_start, int nlocal, const int *rowptr,
                          const ovk_gidx *cols, const double *vals, ovk_dup_policy dups,
                          ovk_matrix **out)
{
    return ovk__matrix_create_csr_base(comm, row_start, nlocal, rowptr, cols, vals, dups, 0, out);
}

/* M's diag block in its compact forms: 16-bit offsets, runs of a repeated
 * row or one triangle, packed values.  At creation (like NULL) the values
 * choose between runs and the triangle; an update keeps the form of
 * `like`, the block it replaces (runs follow the values). */
static int compact_diag(ovk_matrix *M, const ovk__csr *like)
{
    ovk__csr *d = &M->diag;
    int rc = csr_compact(d); /* the matvec streams 2 B less per entry */
    if (rc) return rc;
    if (!like || !like->upper) rc = ovk__csr_find_runs(d); /* a row repeated in runs: a stencil, no entries streamed */
    if (rc) return rc;
    int upper = like ? like->upper : !d->runs; /* else each symmetric pair once */
    if (upper && M->has_diag_first) rc = ovk__csr_keep_upper(d);
    if (!rc) rc = ovk__csr_pack_far(d); /* columns too wide for off16: most of them in 16 bits all the same */
    if (!rc) rc = ovk__csr_pack_values(d, OVK__VAL_ALLOW_ALL); /* and its values in fewer bytes */
    if (rc) return rc;
    return ovk__csr_make_slices(d); /* rows that neither repeat nor share offsets: eight at once */
}

/* M's blocks from the caller's rows, the diag block compact (like: see
 * compact_diag).  Local. */
static int build_blocks(ovk_matrix *M, const ovk__csr *like, const int *rowptr, const ovk_gidx *cols,
                        const double *vals, ovk_dup_policy dups)
{
    entry *e = NULL;
    int *ptr = NULL;
    int rc = check_rows(&M->lay, rowptr, cols, vals, dups);
    if (rc) return rc;
    rc = gather_rows(&M->lay, rowptr, cols, vals, dups, &e, &ptr);
    if (rc) goto cleanup;
    rc = split_blocks(M, e, ptr);
    if (rc) goto cleanup;
    rc = compact_diag(M, like);
cleanup:
    free(e);
    free(ptr);
    return rc;
}

/* The local checks of the arguments, and the new matrix (agreed by the caller). */
static int new_matrix(ovk_matrix **out, int nlocal, ovk_matrix **A)
{
    if (!out) return ovk__fail(OVK_EINVAL, "ovk_matrix_create_csr: NULL matrix pointer");
    *out = NULL;
    if (nlocal < 0) return ovk__fail(OVK_EINVAL, "nlocal = %d < 0", nlocal);
    *A = calloc(1, sizeof **A);
    if (!*A) return ovk__fail(OVK_ENOMEM, "matrix");
    (*A)->lay.comm = MPI_COMM_NULL;
    return OVK_OK;
}

int ovk__matrix_create_csr_base(MPI_Comm comm, ovk_gidx row_start, int nlocal, const int *rowptr,
                                const ovk_gidx *cols, const double *vals, ovk_dup_policy dups, int base,
                                ovk_matrix **out)
{
    ovk_matrix *A = NULL;
    if (comm == MPI_COMM_NULL) return ovk__fail(OVK_EINVAL, "ovk_matrix_create_csr: NULL communicator");
    /* a NULL out on one rank is agreed like any other bad argument */
    int rc = ovk__agree(comm, new_matrix(out, nlocal, &A));
    if (rc) goto cleanup;
    rc = ovk__layout_init_base(comm, row_start, nlocal, base, &A->lay);
    if (rc) goto cleanup; /* layout errors are decided identically on every rank */
    rc = ovk__agree(comm, build_blocks(A, NULL, rowptr, cols, vals, dups));
    if (rc) goto cleanup;
    rc = ovk__halo_setup(A);
    if (rc) goto cleanup;
    *out = A;
    A = NULL;
cleanup:
    ovk_matrix_destroy(A);
    return rc;
}

/* 1 when two blocks have the same rows, columns and storage form */
static int same_pattern(const ovk__csr *a, const ovk__csr *b)
{
    if (a->nrows != b->nrows || a->upper != b->upper || !a->off16 != !b->off16) return 0;
    int64_t nnz = a->rowptr[a->nrows];
    if (b->rowptr[b->nrows] != nnz || memcmp(a->rowptr, b->rowptr, sizeof(int) * ((size_t)a->nrows + 1)))
        return 0;
    if (a->off16) return !memcmp(a->off16, b->off16, sizeof(int16_t) * (size_t)nnz);
    return !memcmp(a->col, b->col, sizeof(int) * (size_t)nnz);
}

/* the values, their packed form and the runs and strips they make (the pattern is the same) */
static void swap_values(ovk__csr *a, ovk__csr *b)
{
    ovk__csr t = *a;
    a->val = b->val;
    a->vform = b->vform;
    a->vidx = b->vidx;
    a->vdict = b->vdict;
    a->ndict = b->ndict;
    a->valf = b->valf;
    a->runs = b->runs;
    a->strips = b->strips;
    a->slices = b->slices;
    b->val = t.val;
    b->vform = t.vform;
    b->vidx = t.vidx;
    b->vdict = t.vdict;
    b->ndict = t.ndict;
    b->valf = t.valf;
    b->runs = t.runs;
    b->strips = t.strips;
    b->slices = t.slices;
}

void ovk__matrix_hold(const ovk_matrix *A, int delta)
{
    if (A) ((ovk_matrix *)A)->users += delta; /* the caller's matrix is not const */
}

/* A call that would change or free A while a solve uses it (a callback) */
static int in_use(const ovk_matrix *A, const char *fn)
{
    return ovk__fail(OVK_EBUSY, "%s: the matrix is in use by %d solve(s) or setup(s) in flight (called from a "
                                "callback?); call it after the solve returns",
                     fn, A->users);
}

int ovk__matrix_usable(const ovk_matrix *A, const char *fn) { return A && A->users ? in_use(A, fn) : OVK_OK; }

/* T's blocks from the new rows, on A's pattern (else OVK_EMISMATCH).  Local. */
static int build_update(const ovk_matrix *A, ovk_matrix *T, const int *rowptr, const ovk_gidx *cols,
                        const double *vals, ovk_dup_policy dups)
{
    int rc = build_blocks(T, &A->diag, rowptr, cols, vals, dups);
    if (rc) return rc;
    if (T->ncols_offd == A->ncols_offd && same_pattern(&T->diag, &A->diag) && same_pattern(&T->offd, &A->offd) &&
        !memcmp(T->col_map, A->col_map, sizeof(ovk_gidx) * (size_t)A->ncols_offd))
        return OVK_OK;
    return ovk__fail(OVK_EMISMATCH,
                     "ovk_matrix_update_values: the new entries are not on the matrix's pattern%s (create a new "
                     "matrix instead)",
                     A->diag.upper && !T->diag.upper ? " (or no longer symmetric: the matrix keeps one triangle)"
                                                     : "");
}

int ovk_matrix_update_values(ovk_matrix *A, const int *rowptr, const ovk_gidx *cols, const double *vals,
                             ovk_dup_policy dups)
{
    if (!A) return ovk__fail(OVK_EINVAL, "ovk_matrix_update_values: NULL matrix");
    if (A->users) return in_use(A, "ovk_matrix_update_values");
    if (A->destroyed) return ovk__fail(OVK_EINVAL, "ovk_matrix_update_values: the matrix was destroyed");
    ovk_matrix T = {0};
    T.lay = A->lay; /* borrowed: not freed below */
    int rc = ovk__agree(A->lay.comm, build_update(A, &T, rowptr, cols, vals, dups));
    if (rc) goto cleanup;
    swap_values(&A->diag, &T.diag);
    swap_values(&A->offd, &T.offd);
    double *d = A->diagonal;
    A->diagonal = T.diagonal;
    T.diagonal = d;
    A->values_version++;
cleanup:
    csr_free(&T.diag);
    csr_free(&T.offd);
    free(T.col_map);
    free(T.diagonal);
    return rc;
}

static void free_matrix(ovk_matrix *A)
{
    ovk__halo_free(&A->halo);
    csr_free(&A->diag);
    csr_free(&A->offd);
    free(A->col_map);
    free(A->diagonal);
    if (A->lay.starts || A->lay.comm != MPI_COMM_NULL) ovk__layout_free(&A->lay);
    free(A);
}

void ovk__matrix_ref(const ovk_matrix *A, int delta)
{
    ovk_matrix *M = (ovk_matrix *)A; /* the caller's matrix is not const */
    if (!M) return;
    M->refs += delta;
    if (M->refs == 0 && M->destroyed) free_matrix(M); /* its destroy was called: the last solver frees it */
}

int ovk_matrix_destroy(ovk_matrix *A)
{
    if (!A) return OVK_OK;
    if (A->users) return in_use(A, "ovk_matrix_destroy");
    if (A->destroyed)
        return ovk__fail(OVK_EINVAL, "ovk_matrix_destroy: the matrix was destroyed already (its %d solver(s) keep it "
                                     "until they are destroyed)", A->refs);
    if (A->refs > 0) { /* solvers use it: it lives until the last of them is destroyed */
        A->destroyed = 1;
        return OVK_OK;
    }
    free_matrix(A);
    return OVK_OK;
}

ovk_gidx ovk_matrix_nglobal(const ovk_matrix *A) { return A ? A->lay.nglobal : 0; }
ovk_gidx ovk_matrix_row_start(const ovk_matrix *A) { return A ? A->lay.row_start : 0; }
int ovk_matrix_nlocal(const ovk_matrix *A) { return A ? A->lay.nlocal : 0; }
MPI_Comm ovk_matrix_comm(const ovk_matrix *A) { return A ? A->lay.comm : MPI_COMM_NULL; }

int64_t ovk_matrix_nnz_local(const ovk_matrix *A)
{
    if (!A) return 0;
    return A->diag.nnz + A->offd.nnz;
}
