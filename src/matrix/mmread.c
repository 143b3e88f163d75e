/* Matrix Market input: a serial parser (ovk_mm_read_rows) and the collective
 * reader that distributes a file by balanced blocks of rows (ovk_mm_read).
 *
 * Accepted: `%%MatrixMarket matrix coordinate <field> <symmetry>` with field
 * real, integer or pattern (pattern entries get the value 1.0) and symmetry
 * general or symmetric.  Keywords are case-insensitive.  Comment lines (%) and
 * blank lines may appear anywhere after the banner; lines may start with
 * spaces and end with CRLF.
 *
 * Valid Matrix Market that this library cannot use (format `array`, field
 * `complex`, symmetry `skew-symmetric` or `hermitian`) gives OVK_EUNSUPPORTED;
 * anything malformed gives OVK_EFORMAT with the file line in the detail.
 *
 * Symmetric files: each off-diagonal entry (i,j) also yields (j,i), whichever
 * triangle it was written in (some writers store the upper one).
 * Duplicates: entries with the same (row, column) are summed, in file order.
 * In a symmetric file this includes an entry written once in each triangle,
 * which then counts twice.  The returned rows are sorted by column and hold
 * each column once.
 *
 * Memory follows the file, not its header: the file is read as it grows,
 * entries are kept in arrays that grow as they are read, and the only
 * allocations sized by the header (per-row arrays of the rows a rank owns)
 * are first checked against the memory the rank can have (mem_budget): a
 * share that cannot be met is OVK_ENOMEM before anything is allocated.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "matrix_impl.h"

typedef enum mm_field { MM_REAL, MM_INTEGER, MM_PATTERN } mm_field;

/* The file in memory, split into lines in place (each '\n' becomes '\0'). */
typedef struct mm_file {
    const char *path;
    char *buf;
    size_t size;
    size_t pos;        /* start of the next unread line */
    long long line_no; /* number of the line last returned by next_line */
    mm_field field;
    int symmetric;
    ovk_gidx n;   /* rows = columns */
    int64_t nnz;  /* entries declared on the size line */
} mm_file;

/* One parsed entry, 0-based; seq keeps the file order for summing duplicates. */
typedef struct mm_trip {
    ovk_gidx row, col;
    double val;
    int64_t seq;
} mm_trip;

typedef struct mm_trips {
    mm_trip *t;
    int64_t n, cap;
} mm_trips;

/* Rows [lo, lo+nrows) as CSR, sorted by column, no duplicates. */
typedef struct mm_rows {
    int nrows;
    int *rowptr;
    ovk_gidx *cols;
    double *vals;
} mm_rows;

/* ---- reading and splitting ------------------------------------------- */

static int load_file(const char *path, mm_file *f)
{
    int rc = OVK_OK;
    size_t cap = 1 << 16, len = 0;
    char *buf = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp) return ovk__fail(OVK_EFILE, "cannot open '%s': %s", path, strerror(errno));
    buf = malloc(cap + 1);
    if (!buf) {
        rc = ovk__fail(OVK_ENOMEM, "no memory to read '%s'", path);
        goto cleanup;
    }
    for (;;) {
        len += fread(buf + len, 1, cap - len, fp);
        if (ferror(fp)) {
            rc = ovk__fail(OVK_EFILE, "cannot read '%s': %s", path, strerror(errno));
            goto cleanup;
        }
        if (len < cap) break;
        char *nb = cap <= SIZE_MAX / 2 - 1 ? realloc(buf, 2 * cap + 1) : NULL;
        if (!nb) {
            rc = ovk__fail(OVK_ENOMEM, "no memory to read '%s' (%zu bytes so far)", path, len);
            goto cleanup;
        }
        buf = nb;
        cap *= 2;
    }
    buf[len] = '\0';
    f->buf = buf;
    f->size = len;
    buf = NULL;
cleanup:
    free(buf);
    fclose(fp);
    return rc;
}

/* The next line, NUL-terminated, or NULL at the end of the file. */
static char *next_line(mm_file *f)
{
    if (f->pos >= f->size) return NULL;
    char *s = f->buf + f->pos;
    char *nl = memchr(s, '\n', f->size - f->pos);
    if (nl) {
        *nl = '\0';
        f->pos = (size_t)(nl - f->buf) + 1;
    } else {
        f->pos = f->size;
    }
    f->line_no++;
    return s;
}

static char *skip_space(char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    return s;
}

/* Blank or comment lines carry no data. */
static int is_data_line(char *s)
{
    s = skip_space(s);
    return *s != '\0' && *s != '%';
}

/* ---- banner and size line --------------------------------------------- */

/* Case-insensitive equality of two ASCII keywords. */
static int same_word(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

/* Copy the next whitespace-separated token of *s into tok (truncated). */
static int next_token(char **s, char *tok, size_t cap)
{
    char *p = skip_space(*s);
    size_t k = 0;
    if (!*p) return 0;
    while (*p && !isspace((unsigned char)*p)) {
        if (k + 1 < cap) tok[k++] = *p;
        p++;
    }
    tok[k] = '\0';
    *s = p;
    return 1;
}

static int bad_banner(const mm_file *f, const char *what)
{
    return ovk__fail(OVK_EFORMAT,
                     "%s, line 1: %s (expected '%%%%MatrixMarket matrix coordinate "
                     "real|integer|pattern general|symmetric')",
                     f->path, what);
}

static int parse_field(mm_file *f, const char *tok)
{
    if (same_word(tok, "real")) f->field = MM_REAL;
    else if (same_word(tok, "integer")) f->field = MM_INTEGER;
    else if (same_word(tok, "pattern")) f->field = MM_PATTERN;
    else if (same_word(tok, "complex"))
        return ovk__fail(OVK_EUNSUPPORTED, "%s, line 1: field 'complex' is not supported "
                                           "(real, integer or pattern only)", f->path);
    else return bad_banner(f, "unknown field");
    return OVK_OK;
}

static int parse_symmetry(mm_file *f, const char *tok)
{
    if (same_word(tok, "general")) f->symmetric = 0;
    else if (same_word(tok, "symmetric")) f->symmetric = 1;
    else if (same_word(tok, "skew-symmetric") || same_word(tok, "hermitian"))
        return ovk__fail(OVK_EUNSUPPORTED, "%s, line 1: symmetry '%s' is not supported "
                                           "(general or symmetric only)", f->path, tok);
    else return bad_banner(f, "unknown symmetry");
    return OVK_OK;
}

static int parse_banner(mm_file *f)
{
    char tok[5][32];
    char *s = next_line(f);
    int k = 0;
    if (!s) return ovk__fail(OVK_EFORMAT, "%s, line 1: empty file, no banner", f->path);
    while (k < 5 && next_token(&s, tok[k], sizeof tok[k])) k++;
    if (k < 5 || strcmp(tok[0], "%%MatrixMarket") != 0) return bad_banner(f, "bad banner");
    if (*skip_space(s)) return bad_banner(f, "extra words after the banner");
    if (!same_word(tok[1], "matrix")) return bad_banner(f, "object is not 'matrix'");
    if (same_word(tok[2], "array"))
        return ovk__fail(OVK_EUNSUPPORTED, "%s, line 1: dense 'array' format is not supported "
                                           "(coordinate only)", f->path);
    if (!same_word(tok[2], "coordinate")) return bad_banner(f, "unknown format");
    int rc = parse_field(f, tok[3]);
    if (rc) return rc;
    return parse_symmetry(f, tok[4]);
}

/* A base-10 integer token followed by whitespace or the end of the line. */
static int read_int(char **s, long long *v)
{
    char *end;
    char *p = skip_space(*s);
    errno = 0;
    *v = strtoll(p, &end, 10);
    if (end == p || (*end && !isspace((unsigned char)*end))) return 0;
    if (errno == ERANGE) *v = *v < 0 ? LLONG_MIN : LLONG_MAX; /* caught by range checks */
    *s = end;
    return 1;
}

static int parse_size(mm_file *f)
{
    char *s;
    long long m, n, nnz;
    while ((s = next_line(f)) && !is_data_line(s)) {
    }
    if (!s) return ovk__fail(OVK_EFORMAT, "%s, line %lld: no size line", f->path, f->line_no);
    if (!read_int(&s, &m) || !read_int(&s, &n) || !read_int(&s, &nnz) || *skip_space(s))
        return ovk__fail(OVK_EFORMAT, "%s, line %lld: bad size line (expected 'rows columns "
                                      "entries')", f->path, f->line_no);
    if (m < 0 || n < 0 || nnz < 0 || m == LLONG_MAX || n == LLONG_MAX || nnz == LLONG_MAX)
        return ovk__fail(OVK_EFORMAT, "%s, line %lld: bad size line (%lld %lld %lld)", f->path,
                         f->line_no, m, n, nnz);
    if (m != n)
        return ovk__fail(OVK_EFORMAT, "%s, line %lld: the matrix is %lld x %lld; solvers need a "
                                      "square matrix", f->path, f->line_no, m, n);
    f->n = (ovk_gidx)n;
    f->nnz = (int64_t)nnz;
    return OVK_OK;
}

static int parse_header(const char *path, mm_file *f)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    int rc = load_file(path, f);
    if (rc) return rc;
    if (memchr(f->buf, '\0', f->size))
        return ovk__fail(OVK_EFORMAT, "%s: NUL byte in the file (not a text file)", path);
    rc = parse_banner(f);
    if (rc) return rc;
    return parse_size(f);
}

/* ---- entries ------------------------------------------------------------ */

static int push(mm_trips *t, ovk_gidx row, ovk_gidx col, double val)
{
    if (t->n == t->cap) {
        int64_t cap = t->cap ? 2 * t->cap : 1024;
        mm_trip *nt = (size_t)cap <= SIZE_MAX / sizeof *nt ? realloc(t->t, (size_t)cap * sizeof *nt)
                                                            : NULL;
        if (!nt) return ovk__fail(OVK_ENOMEM, "no memory for %lld matrix entries", (long long)cap);
        t->t = nt;
        t->cap = cap;
    }
    t->t[t->n] = (mm_trip){row, col, val, t->n};
    t->n++;
    return OVK_OK;
}

static int read_index(const mm_file *f, char **s, const char *what, ovk_gidx *idx)
{
    long long v;
    if (!read_int(s, &v))
        return ovk__fail(OVK_EFORMAT, "%s, line %lld: the %s index is missing or not an integer",
                         f->path, f->line_no, what);
    if (v < 1 || v > f->n)
        return ovk__fail(OVK_EFORMAT, "%s, line %lld: %s index %lld is outside [1, %lld]",
                         f->path, f->line_no, what, v, (long long)f->n);
    *idx = (ovk_gidx)(v - 1);
    return OVK_OK;
}

static int read_value(const mm_file *f, char **s, double *val)
{
    char *end;
    char *p = skip_space(*s);
    if (f->field == MM_PATTERN) {
        *val = 1.0;
        return OVK_OK;
    }
    if (!*p)
        return ovk__fail(OVK_EFORMAT, "%s, line %lld: the value is missing", f->path, f->line_no);
    errno = 0;
    if (f->field == MM_INTEGER) *val = (double)strtoll(p, &end, 10);
    else *val = strtod(p, &end);
    if (end == p || (*end && !isspace((unsigned char)*end)))
        return ovk__fail(OVK_EFORMAT, "%s, line %lld: the value is not %s number", f->path,
                         f->line_no, f->field == MM_INTEGER ? "an integer" : "a");
    if (f->field == MM_INTEGER && errno == ERANGE)
        return ovk__fail(OVK_EFORMAT, "%s, line %lld: the integer value overflows", f->path,
                         f->line_no);
    if (!isfinite(*val))
        return ovk__fail(OVK_ENONFINITE, "%s, line %lld: value is NaN, Inf or overflows a double",
                         f->path, f->line_no);
    *s = end;
    return OVK_OK;
}

/* Parse one data line into (i, j, v), 0-based. */
static int parse_entry(const mm_file *f, char *s, ovk_gidx *i, ovk_gidx *j, double *v)
{
    int rc = read_index(f, &s, "row", i);
    if (rc) return rc;
    rc = read_index(f, &s, "column", j);
    if (rc) return rc;
    rc = read_value(f, &s, v);
    if (rc) return rc;
    if (*skip_space(s))
        return ovk__fail(OVK_EFORMAT, "%s, line %lld: extra text after the %s", f->path,
                         f->line_no, f->field == MM_PATTERN ? "indices (pattern file)" : "value");
    return OVK_OK;
}

/* Which entries to keep: rows [lo, hi) go to `own`.  A `general` file's
 * entries are kept as they are: a nonsymmetric matrix is read as one (the
 * solvers that need symmetry check it at their setup). */
typedef struct mm_keep {
    ovk_gidx lo, hi;
    mm_trips *own;
} mm_keep;

static int keep_entry(const mm_file *f, const mm_keep *k, ovk_gidx i, ovk_gidx j, double v)
{
    int rc = OVK_OK;
    if (i >= k->lo && i < k->hi) rc = push(k->own, i, j, v);
    if (rc) return rc;
    if (f->symmetric && i != j && j >= k->lo && j < k->hi) rc = push(k->own, j, i, v);
    return rc;
}

static int parse_entries(mm_file *f, const mm_keep *k)
{
    int64_t count = 0;
    char *s;
    while ((s = next_line(f))) {
        ovk_gidx i = 0, j = 0;
        double v = 0.0;
        if (!is_data_line(s)) continue;
        if (count == f->nnz)
            return ovk__fail(OVK_EFORMAT, "%s, line %lld: more entries than the %lld declared "
                                          "on the size line", f->path, f->line_no,
                             (long long)f->nnz);
        int rc = parse_entry(f, s, &i, &j, &v);
        if (rc) return rc;
        rc = keep_entry(f, k, i, j, v);
        if (rc) return rc;
        count++;
    }
    if (count < f->nnz)
        return ovk__fail(OVK_EFORMAT, "%s, line %lld: truncated file: %lld of %lld declared "
                                      "entries found", f->path, f->line_no + 1,
                         (long long)count, (long long)f->nnz);
    return OVK_OK;
}

/* ---- triplets to CSR ---------------------------------------------------- */

static int cmp_trip(const void *a, const void *b)
{
    const mm_trip *x = a, *y = b;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static void rows_free(mm_rows *r)
{
    free(r->rowptr);
    free(r->cols);
    free(r->vals);
    memset(r, 0, sizeof *r);
}

/* Sum runs of equal (row, col) in place; returns the merged count. */
static int64_t merge_dups(mm_trip *t, int64_t n)
{
    int64_t m = 0;
    for (int64_t k = 0; k < n; k++) {
        if (m > 0 && t[m - 1].row == t[k].row && t[m - 1].col == t[k].col) t[m - 1].val += t[k].val;
        else t[m++] = t[k];
    }
    return m;
}

static int build_rows(const char *path, mm_trips *t, ovk_gidx lo, int nrows, mm_rows *r)
{
    if (t->n) qsort(t->t, (size_t)t->n, sizeof *t->t, cmp_trip);
    int64_t m = merge_dups(t->t, t->n);
    if (m > INT_MAX)
        return ovk__fail(OVK_EUNSUPPORTED, "%s: %lld entries in one block of rows exceed the "
                                           "int range of rowptr; use more ranks", path,
                         (long long)m);
    r->nrows = nrows;
    r->rowptr = calloc((size_t)nrows + 1, sizeof *r->rowptr);
    r->cols = malloc((size_t)(m ? m : 1) * sizeof *r->cols);
    r->vals = malloc((size_t)(m ? m : 1) * sizeof *r->vals);
    if (!r->rowptr || !r->cols || !r->vals) {
        rows_free(r);
        return ovk__fail(OVK_ENOMEM, "no memory for %lld matrix entries", (long long)m);
    }
    for (int64_t k = 0; k < m; k++) {
        if (!isfinite(t->t[k].val)) {
            rows_free(r);
            return ovk__fail(OVK_ENONFINITE, "%s: summing duplicates of entry (%lld, %lld) "
                                             "overflows", path, (long long)t->t[k].row + 1,
                             (long long)t->t[k].col + 1);
        }
        r->rowptr[t->t[k].row - lo + 1]++;
        r->cols[k] = t->t[k].col;
        r->vals[k] = t->t[k].val;
    }
    for (int i = 0; i < nrows; i++) r->rowptr[i + 1] += r->rowptr[i];
    return OVK_OK;
}

/* ---- the memory budget ---------------------------------------------------- */

/* Bytes of per-row arrays per owned row: the reader's rowptr (4) and, when
 * building the matrix, ovk_matrix_create_csr's row offsets and diagonal
 * (4 + 4 + 4 + 8). */
#define ROW_BYTES_READ 4.0
#define ROW_BYTES_BUILD 24.0

size_t ovk__mem_cap = 0;

/* Bytes this process may allocate: the node's physical memory shared by
 * `local` ranks, or less under RLIMIT_AS / RLIMIT_DATA or ovk__mem_cap. */
static double mem_budget(int local)
{
    struct rlimit rl;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double b = pages > 0 && page > 0 ? (double)pages * (double)page / (local > 0 ? local : 1) : 1e300;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (double)rl.rlim_cur < b)
        b = (double)rl.rlim_cur;
    if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (double)rl.rlim_cur < b)
        b = (double)rl.rlim_cur;
    if (ovk__mem_cap && (double)ovk__mem_cap < b) b = (double)ovk__mem_cap;
    return b;
}

/* OVK_ENOMEM when nrows rows at row_bytes each, next to the file already in
 * memory, exceed the budget of a rank sharing its node with `local` ranks. */
static int check_budget(const mm_file *f, ovk_gidx nrows, double row_bytes, int local)
{
    double need = ((double)nrows + 1.0) * row_bytes + (double)f->size;
    double have = mem_budget(local);
    if (need <= have) return OVK_OK;
    return ovk__fail(OVK_ENOMEM, "%s: the size line declares %lld rows; this rank's %lld rows need %.3g GB "
                                 "of row arrays but the rank can have %.3g GB (file of %zu bytes with %lld "
                                 "declared entries)", f->path, (long long)f->n, (long long)nrows, need / 1e9,
                     have / 1e9, f->size, (long long)f->nnz);
}

/* ---- the serial reader --------------------------------------------------- */

/* Check the requested rows against the size and turn them into [lo, lo+n). */
static int resolve_range(const mm_file *f, ovk_gidx row_start, int nlocal, int *n)
{
    if (row_start > f->n || (nlocal >= 0 && nlocal > f->n - row_start))
        return ovk__fail(OVK_EINVAL, "%s: %d rows from row %lld requested from a %lld-row matrix",
                         f->path, nlocal >= 0 ? nlocal : 0, (long long)row_start, (long long)f->n);
    if (nlocal >= 0) {
        *n = nlocal;
        return OVK_OK;
    }
    if (f->n - row_start > INT_MAX)
        return ovk__fail(OVK_EUNSUPPORTED, "%s: %lld rows do not fit a local int count", f->path,
                         (long long)(f->n - row_start));
    *n = (int)(f->n - row_start);
    return OVK_OK;
}

/* Parse the entries of an opened file and build rows [lo, lo+nrows). */
static int read_block(mm_file *f, ovk_gidx lo, int nrows, mm_rows *own)
{
    mm_trips t_own = {0};
    mm_keep k = {lo, lo + nrows, &t_own};
    int rc = parse_entries(f, &k);
    if (!rc) rc = build_rows(f->path, &t_own, lo, nrows, own);
    free(t_own.t);
    return rc;
}

int ovk_mm_read_rows(const char *path, ovk_gidx row_start, int nlocal, ovk_gidx *nglobal,
                     int *nlocal_out, int **rowptr, ovk_gidx **cols, double **vals)
{
    mm_file f = {0};
    mm_rows r = {0};
    int n = 0, rc;
    if (rowptr) *rowptr = NULL;
    if (cols) *cols = NULL;
    if (vals) *vals = NULL;
    if (!path || !nglobal || !nlocal_out || !rowptr || !cols || !vals || row_start < 0)
        return ovk__fail(OVK_EINVAL, "ovk_mm_read_rows: NULL argument or negative row_start");
    rc = parse_header(path, &f);
    if (rc) goto cleanup;
    rc = resolve_range(&f, row_start, nlocal, &n);
    if (rc) goto cleanup;
    rc = check_budget(&f, n, ROW_BYTES_READ, 1);
    if (rc) goto cleanup;
    rc = read_block(&f, row_start, n, &r);
    if (rc) goto cleanup;
    *nglobal = f.n;
    *nlocal_out = n;
    *rowptr = r.rowptr;
    *cols = r.cols;
    *vals = r.vals;
cleanup:
    free(f.buf);
    return rc;
}

/* ---- the collective reader ---------------------------------------------- */

/* The rank in comm, the size of comm, and the ranks sharing this node's
 * memory (a node split: collective). */
static int node_share(MPI_Comm comm, int *rank, int *size, int *local)
{
    MPI_Comm node = MPI_COMM_NULL;
    int rc = ovk__mpi(MPI_Comm_rank(comm, rank), "MPI_Comm_rank");
    if (rc) return rc;
    rc = ovk__mpi(MPI_Comm_size(comm, size), "MPI_Comm_size");
    if (rc) return rc;
    rc = ovk__mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, *rank, MPI_INFO_NULL, &node),
                  "MPI_Comm_split_type");
    if (rc) return rc;
    rc = ovk__mpi(MPI_Comm_size(node, local), "MPI_Comm_size");
    MPI_Comm_free(&node);
    return rc;
}

/* Balanced blocks of whole nodes: rank r owns the nodes [r*M/P, (r+1)*M/P)
 * of M = N/bs, in 64-bit; its rows [*lo, *hi). */
static int block_range(const mm_file *f, int bs, int rank, int size, ovk_gidx *lo, ovk_gidx *hi)
{
    if (f->n > INT64_MAX / size)
        return ovk__fail(OVK_EUNSUPPORTED, "%s: %lld rows are too many", f->path, (long long)f->n);
    if (f->n % bs)
        return ovk__fail(OVK_EINVAL, "%s: %lld rows are not a multiple of the block size %d", f->path,
                         (long long)f->n, bs);
    *lo = bs * (f->n / bs * rank / size);
    *hi = bs * (f->n / bs * (rank + 1) / size);
    if (*hi - *lo > INT_MAX)
        return ovk__fail(OVK_EUNSUPPORTED, "%s: %lld rows per rank do not fit an int", f->path,
                         (long long)(*hi - *lo));
    return OVK_OK;
}

/* Everything ovk_mm_read does before the collective create; collective only
 * through the node split it starts with. */
static int read_local(MPI_Comm comm, const char *path, int bs, ovk_gidx *lo, mm_rows *own)
{
    mm_file f = {0};
    ovk_gidx hi = 0;
    int rank = 0, size = 1, local = 1;
    int rc = node_share(comm, &rank, &size, &local);
    if (rc) return rc;
    rc = parse_header(path, &f);
    if (rc) goto cleanup;
    rc = block_range(&f, bs, rank, size, lo, &hi);
    if (rc) goto cleanup;
    rc = check_budget(&f, hi - *lo, ROW_BYTES_BUILD, local);
    if (rc) goto cleanup;
    rc = read_block(&f, *lo, (int)(hi - *lo), own);
cleanup:
    free(f.buf);
    return rc;
}

int ovk_mm_read(MPI_Comm comm, const char *path, ovk_matrix **A) { return ovk_mm_read_blocked(comm, path, 1, A); }

int ovk_mm_read_blocked(MPI_Comm comm, const char *path, int bs, ovk_matrix **A)
{
    mm_rows own = {0};
    ovk_gidx lo = 0;
    int rc = OVK_OK;
    if (A) *A = NULL;
    if (!path || !A) rc = ovk__fail(OVK_EINVAL, "ovk_mm_read: NULL path or matrix pointer");
    else if (bs < 1) rc = ovk__fail(OVK_EINVAL, "ovk_mm_read_blocked: block size %d < 1", bs);
    /* agree on the arguments first: read_local starts with a collective (the
     * node split) that a rank with a bad argument would skip */
    rc = ovk__agree(comm, rc);
    if (rc) goto cleanup;
    rc = read_local(comm, path, bs, &lo, &own);
    /* agree before the collective create so that no rank waits for a failed one */
    rc = ovk__agree(comm, rc);
    if (rc) goto cleanup;
    /* base 1: the matrix's details (a symmetry mismatch, a zero diagonal, a
     * NaN in b) number rows and columns as the file does */
    rc = ovk__matrix_create_csr_base(comm, lo, own.nrows, own.rowptr, own.cols, own.vals, OVK_DUP_SUM, 1, A);
cleanup:
    rows_free(&own);
    return rc;
}
