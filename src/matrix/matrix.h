/* The matrix layer's private header: local vector kernels, row layouts,
 * vectors, the distributed CSR matrix (its storage forms and halo plan),
 * the matvec.  Included by src/matrix and the layers above it
 * (preconditioners, solvers, bindings); never by src/backends or src/util
 * (tests/layers.sh). */
#ifndef OVK_MATRIX_H
#define OVK_MATRIX_H

#include <float.h>

#include "../internal.h"

/* ---- local kernels (src/matrix/kernels.c); h may be NULL ------------- */

/* ---- prefetching in row loops (matrix and preconditioner kernels) ---- */

/* Row loops (row-by-row products, triangular sweeps) run short rows, whose
 * streams the hardware prefetcher does not run far enough ahead of: each
 * row asks for the entries OVK__PREFETCH_AHEAD on (back, going backward).
 * A prefetch changes no value. */
enum { OVK__PREFETCH_AHEAD = 256 };

/* ask for the cache line at p + bytes (an address only: nothing is read,
 * nothing faults) */
static inline void ovk__prefetch(const void *p, long bytes)
{
#if defined(__GNUC__)
    __builtin_prefetch((const void *)((uintptr_t)p + (uintptr_t)bytes));
#else
    (void)p, (void)bytes;
#endif
}

/* the entry OVK__PREFETCH_AHEAD entries on from *p, dir = +1 or -1 */
#define OVK__AHEAD(p, dir) ovk__prefetch((p), (dir) * (long)sizeof *(p) * OVK__PREFETCH_AHEAD)

double ovk__dot(int n, const double *x, const double *y);
void ovk__axpy(int n, double a, const double *x, double *y, const ovk__hook *h);
/* Scale-safe sums of squares: a plain sum ss of squares is exact to
 * rounding when OVK__SUMSQ_LO <= ss <= DBL_MAX (no square overflowed, and
 * those that underflowed weigh less than n 2^-174 of ss); otherwise it is
 * summed again as sum (2^k x_i)^2 with k = ovk__pow2_exponent(max |x_i|). */
#define OVK__SUMSQ_LO 0x1p-900
static inline int ovk__sumsq_plain_ok(double ss) { return ss >= OVK__SUMSQ_LO && ss <= DBL_MAX; }
/* max |x_i| (NaN when an entry is NaN; 0 for n = 0) */
double ovk__absmax(int n, const double *x);
/* sum (scale x_i)^2 */
double ovk__sumsq_scaled(int n, const double *x, double scale);
/* k with 2^k m in [0.5, 1) for a finite m > 0 (|k| <= 1000: 2^k stays a
 * normal number, 2^k m within [2^-75, 2^25] then); 0 otherwise */
int ovk__pow2_exponent(double m);
void ovk__xpay(int n, const double *x, double b, double *y, const ovk__hook *h);
void ovk__zxpby(int n, const double *x, double b, const double *y, double *z, const ovk__hook *h);
void ovk__axpy2(int n, double a, const double *p, double *x, const double *s, double *r,
                const ovk__hook *h);
void ovk__mul(int n, const double *d, const double *x, double *y, const ovk__hook *h);
void ovk__mul_dot(int n, const double *d, const double *x, double *y, double *yy,
                  const ovk__hook *h);
void ovk__axpy_dot(int n, double a, const double *x, double *y, double *yy, const ovk__hook *h);

/* Local dot products in one pass: out[j] = <x[j], y[j]> for j < k (k <= 16). */
void ovk__dots(int n, int k, const double *const *x, const double *const *y, double *out,
               const ovk__hook *h);
/* The same, each as accurate as if summed in twice the working precision
 * and rounded once (Dot2: exact products and compensated sums; about 3x the
 * flops of ovk__dots): for sums that cancel, such as the inner products of
 * nearly orthogonal vectors.  The result does not depend on whether the CPU
 * has FMA. */
void ovk__dots_exact(int n, int k, const double *const *x, const double *const *y, double *out,
                     const ovk__hook *h);

/* ---- layout, vectors, matrices (src/matrix) -------------------------- */

typedef struct ovk__layout {
    MPI_Comm comm; /* the inner communicator every object on the user's shares
                      (ovk__comm_acquire): point-to-point on it uses the
                      layout's own tags (ovk__layout_tag) */
    uint64_t id;   /* the same on every rank of comm, different for every
                      other layout made on this process (ovk__layout_init) */
    int world;     /* comm holds the processes of MPI_COMM_WORLD, in order */
    int base;      /* first index in failure details: 0, or 1 for a matrix
                      made through the Fortran binding (ovk__row_id) */
    int rank, size;
    ovk_gidx nglobal;
    ovk_gidx row_start;
    int nlocal;
    ovk_gidx *starts; /* size+1 entries: rank r owns [starts[r], starts[r+1]) */
} ovk__layout;

struct ovk_vector {
    const ovk__layout *lay;
    int n;
    double *data;
    int owns; /* data is freed with the vector (0: the caller's array) */
};

/* A zero vector with layout lay, or (wrap != NULL) one over the caller's
 * lay->nlocal doubles.  Local. */
int ovk__vector_new(const ovk__layout *lay, double *wrap, ovk_vector **out);
/* Collective: duplicate comm and gather the row ranges; OVK_EPARTITION
 * (identically on every rank) when they do not tile [0, N) in rank order. */
int ovk__layout_init(MPI_Comm comm, ovk_gidx row_start, int nlocal, ovk__layout *lay);
/* The same with the ids of failure details in index base `base` (0 or 1). */
int ovk__layout_init_base(MPI_Comm comm, ovk_gidx row_start, int nlocal, int base, ovk__layout *lay);
void ovk__layout_free(ovk__layout *lay);
/* The point-to-point tag k < OVK__LAYOUT_TAGS of lay's exchanges on the
 * shared communicator: the same on every rank, different for layouts whose
 * ids differ by less than 8000 (none of the library's own fixed tags). */
enum { OVK__LAYOUT_TAGS = 4 };
int ovk__layout_tag(const ovk__layout *lay, int k);
/* Global row (or column) ids as failure details print them: in the index
 * base of the application that made the layout. */
static inline long long ovk__row_id(const ovk__layout *lay, int local_row)
{
    return (long long)(lay->row_start + local_row + lay->base);
}
static inline long long ovk__gid(const ovk__layout *lay, ovk_gidx id) { return (long long)(id + lay->base); }
/* ovk_matrix_create_csr with ids reported in index base `base` (0 or 1) in
 * failure details (the arrays are 0-based all the same). */
int ovk__matrix_create_csr_base(MPI_Comm comm, ovk_gidx row_start, int nlocal, const int *rowptr,
                                const ovk_gidx *cols, const double *vals, ovk_dup_policy dups, int base,
                                ovk_matrix **out);
/* Collective over MPI_COMM_WORLD (through the library's duplicate of it)
 * when lay->world, else OVK_OK at once: OVK_EMISMATCH on every rank when the
 * ranks passed different layouts (e.g. solvers made on different matrices:
 * each matrix has its own communicator, so an agreement over lay->comm
 * would wait for ever).  what names the objects in the detail. */
int ovk__layout_agree_identity(const ovk__layout *lay, const char *what);
/* Collective: the OR over the ranks of nbits (<= 16) flags in *bits, and the
 * identity check of ovk__layout_agree_identity in the same reduction: over
 * the library's duplicate of MPI_COMM_WORLD when lay->world, else over
 * lay->comm.  lay NULL: a rank that holds no object (a NULL handle) joins
 * the world's reduction, so that the others fail with OVK_EMISMATCH
 * instead of waiting (OVK_OK there; nothing when no world duplicate
 * exists).  Flags and ids are the caller's ordinary state: one reduction. */
int ovk__layout_agree_state(const ovk__layout *lay, unsigned *bits, int nbits, const char *what);

/* Runs of consecutive rows of a diag block that are one row repeated: the
 * same entries at the same offsets from the row, the same values bit for
 * bit (a stencil, as structured grids give).  The matvec applies the shared
 * row to a whole run with contiguous loads of x and no per-entry index or
 * value; the other rows keep their entries.  Each row is summed in its own
 * entry order, so the product is bitwise that of the plain rows. */
typedef struct ovk__runs {
    int nseg;       /* segments tiling the rows [0, nrows) in order */
    int *seg_start; /* [nseg + 1] first row of each segment */
    int *seg_pat;   /* [nseg] the shared row of a run, or -1: rows with their own entries */
    int npat;       /* distinct shared rows */
    int *pat_ptr;   /* [npat + 1] into pat_off and pat_val */
    int *pat_off;   /* column - row of each entry, in the rows' entry order */
    double *pat_val;
    int run_rows;   /* rows in runs */
} ovk__runs;

typedef struct ovk__csr {
    int nrows;
    int *rowptr;     /* nrows+1, rowptr[0] == 0 */
    int *col;        /* column of each entry; NULL once compacted to off16 */
    int16_t *off16;  /* diag block only: col - row of each entry, when every
                        one fits (banded matrices: 2 B instead of 4 B per
                        entry the matvec streams); else NULL */
    double *val;
    int upper;       /* diag block only: 1 when the block is symmetric and
                        each row keeps a_ii (first) and its entries right of
                        the diagonal only, a_ji = a_ij standing for the rest */
    int64_t nnz;     /* entries the block stands for (both triangles when upper) */
    /* diag block only: the values as the matvec streams them, chosen from
     * the values by ovk__csr_pack_values (val is kept for the other
     * readers); the products are bitwise those of val */
    int vform;       /* OVK__VAL_* */
    uint8_t *vidx;   /* OVK__VAL_DICT8: val[k] == vdict[vidx[k]] */
    double *vdict;   /* [ndict] distinct values */
    int ndict;
    float *valf;     /* OVK__VAL_FLOAT: val[k] == (double)valf[k] */
    ovk__runs *runs; /* diag block only, both triangles kept: its runs of one
                        repeated row (ovk__csr_find_runs), or NULL */
    struct ovk__strips *strips; /* diag block only: its strips of rows with one
                        offset pattern (ovk__csr_find_strips), or NULL */
    /* diag block whose columns stay int (some too far for off16), both
     * triangles: the columns as the matvec streams them (ovk__csr_pack_far;
     * col is kept for the other readers), or esc16 NULL */
    int16_t *esc16;  /* col - row, or OVK__FAR where it does not fit */
    int *far;        /* the columns marked OVK__FAR, in entry order */
    int *far_ptr;    /* [nrows + 1] row i's first entry in far */
    /* diag block with both triangles, once its values were updated: its
     * pattern's mirror pairs (a_ij at mirror[2 p], a_ji at mirror[2 p + 1],
     * j > i) and the entries stored without a mirror (lone), so that the
     * symmetry check of new values is one pass over the pairs (symmetry.c);
     * kept with the pattern, or NULL */
    int *mirror, nmirror, *lone, nlone;
    struct ovk__slices *slices; /* diag block, both triangles, no runs or
                        strips: its rows in slices for the SIMD product
                        (ovk__csr_make_slices), or NULL */
} ovk__csr;

/* Slices: the rows of a diag block eight at a time in SIMD lanes, x
 * gathered (an unstructured matrix, whose rows neither repeat nor share
 * offsets).  The rows of each window of OVK__SLICE_WINDOW consecutive rows
 * are ordered by length, longest first, and cut into slices of
 * OVK__SLICE_ROWS: slice c holds rows row[c R + r], r < R, of len[c R + r]
 * entries, stored entry-major (entry j of each row, then entry j + 1) and
 * padded with zeros to the slice's longest row: slot j R + r of at[c].
 * Columns as 16-bit offsets from the row (NARROW) or as int (WIDE), at
 * byte iat[c] of idx; a slice whose padding would exceed its entries keeps
 * its rows in the block (PLAIN).  Each row is summed from +0 in entry order
 * and <x, y> added in row order once a window is done: the product is
 * bitwise the plain rows'.  A copy: the block keeps its rows for the other
 * readers. */
enum { OVK__SLICE_ROWS = 8, OVK__SLICE_WINDOW = 128 };
enum { OVK__SLICE_PLAIN, OVK__SLICE_NARROW, OVK__SLICE_WIDE };
typedef struct ovk__slices {
    int nwin;           /* whole windows (the rows after them are plain rows) */
    int nslice;         /* nwin * OVK__SLICE_WINDOW / OVK__SLICE_ROWS */
    int *row, *len;     /* [nslice * OVK__SLICE_ROWS] each lane's row and its entries */
    int64_t *at;        /* [nslice + 1] first slot; width = (at[c + 1] - at[c]) / OVK__SLICE_ROWS */
    int64_t *iat;       /* [nslice] first byte in idx */
    uint8_t *kind;      /* [nslice] OVK__SLICE_* */
    double *val;        /* [slots] */
    unsigned char *idx; /* int16_t offsets or int columns, by kind */
    int64_t slots, idx_bytes;
} ovk__slices;

/* Give m its slices (replacing any) when it is a diag block with both
 * triangles, no runs and no strips, at least one whole window, and the
 * mode allows: AUTO where the CPU has AVX-512 (its gathers pay; measured in
 * docs/performance.md), ALWAYS, NEVER.  OVK_OK or OVK_ENOMEM. */
int ovk__csr_make_slices(ovk__csr *m);
void ovk__csr_drop_slices(ovk__csr *m);
enum { OVK__SLICES_AUTO, OVK__SLICES_NEVER, OVK__SLICES_ALWAYS };
/* Set the mode for the blocks made from now on; returns the one before.
 * For tests and benchmarks (every mode gives the same bits); process-wide. */
int ovk__slice_set_mode(int mode);
/* The slice kernels: instruction set isa (OVK__RUN_GENERIC or
 * OVK__RUN_AVX512; the best this CPU supports when isa < 0 or above it).
 * Returns the one now in use.  For tests; process-wide. */
int ovk__slice_set_kernels(int isa);
/* y_i and dot += x_i y_i for the rows [lo, hi) of m: whole slices by the
 * slice kernels, the rest by plain(m, x, y, from, to, dot); returns dot */
double ovk__slice_rows(const ovk__csr *m, double (*plain)(const ovk__csr *, const double *, double *, int, int, double),
                       const double *x, double *y, int lo, int hi, double dot);

/* The mark of a column too far from its row for 16 bits (ovk__csr.esc16). */
#define OVK__FAR INT16_MIN

/* Give m (a diag block with int columns, both triangles) its esc16/far
 * form when that streams at least one byte per entry less than the int
 * columns; otherwise leave m unchanged.  Replaces any earlier one.  OVK_OK
 * or OVK_ENOMEM. */
int ovk__csr_pack_far(ovk__csr *m);
void ovk__csr_drop_far(ovk__csr *m);

/* Column (local id) of entry k of row i of a diag block, whichever form
 * its columns are in (16-bit offsets or int). */
static inline int ovk__csr_col(const ovk__csr *m, int i, int k) { return m->off16 ? i + m->off16[k] : m->col[k]; }

/* How the matvec reads a diag block's values. */
enum { OVK__VAL_DOUBLE = 0, OVK__VAL_FLOAT = 1, OVK__VAL_DICT8 = 2 };
/* Which value forms ovk__csr_pack_values may pick (bit 1 << OVK__VAL_*). */
enum { OVK__VAL_ALLOW_ALL = 7 };

/* Choose the value form of m from its values: a one-byte index into a
 * dictionary when at most 256 distinct values (bitwise) occur, else float
 * when every value converts to float and back unchanged, else double;
 * only the forms in allow (a mask of 1 << OVK__VAL_*) are considered.
 * Replaces any earlier packing.  OVK_OK or OVK_ENOMEM. */
int ovk__csr_pack_values(ovk__csr *m, int allow);


/* Find the runs of m (a diag block with both triangles, compacted or not):
 * maximal runs of at least OVK__RUN_MIN rows that repeat one row.  Keeps
 * them in m->runs when they cover at least OVK__RUN_SHARE percent of the
 * rows (a matrix from a structured grid), else leaves m->runs NULL (and
 * always for a block that keeps one triangle).  Replaces earlier runs.
 * OVK_OK or OVK_ENOMEM. */
enum { OVK__RUN_MIN = 8, OVK__RUN_SHARE = 50 };
int ovk__csr_find_runs(ovk__csr *m);
void ovk__csr_drop_runs(ovk__csr *m);

/* Strips: segments of consecutive rows, outside runs, whose entries sit at
 * the same offsets from their row in the same order but hold their own
 * values (a structured grid's interior with varying coefficients).  The
 * matvec reads such rows in blocks of OVK__STRIP_ROWS: one partial sum per
 * row in SIMD lanes, x loaded contiguously, the values from a
 * block-transposed copy (entry-major within a block) of their one-byte
 * dictionary indices (OVK__VAL_DICT8 only).  A strip of len rows
 * keeps floor(len / OVK__STRIP_ROWS) blocks and, when rows are left, one
 * more block ending at the strip's last row (overlapping the one before;
 * only its new rows are kept).  Each row is summed in its entry order from
 * 0, so the product is bitwise that of the plain rows. */
enum { OVK__STRIP_ROWS = 16 };
typedef struct ovk__strips {
    int nseg;       /* strips, in row order */
    int *seg_lo;    /* [nseg] first row */
    int *seg_hi;    /* [nseg] one past the last row */
    int *seg_pat;   /* [nseg] its offsets: pat_off + pat_ptr[seg_pat] */
    int64_t *seg_at; /* [nseg] its first block's first value in tidx */
    int npat;
    int *pat_ptr;   /* [npat + 1] */
    int *pat_off;   /* column - row of each entry, in the rows' entry order */
    uint8_t *tidx;  /* OVK__VAL_DICT8: the dictionary indices, block-transposed */
    int64_t nstored; /* values in tidx */
    int rows;       /* rows in strips */
    /* with runs and no strips: a compact copy of the rows between runs
     * (their entries in one stream, not scattered between the runs'
     * rows), or gap_ptr NULL */
    int *gap_row0;  /* [runs->nseg] of a segment between runs: its first row's index among them */
    int *gap_ptr;   /* [gap_rows + 1] */
    int16_t *gap_off;
    double *gap_val; /* in the block's value form: gap_val, gap_valf or gap_idx */
    float *gap_valf;
    uint8_t *gap_idx;
    int gap_rows;
} ovk__strips;

/* Find the strips of m (a diag block with 16-bit offsets and both
 * triangles, its runs found and its values packed): maximal segments of at
 * least OVK__STRIP_ROWS rows outside runs with one offset pattern, when the
 * values are dictionary indices; with runs and no strips the
 * compact copy of the rows between runs; else m->strips stays NULL.  Replaces earlier
 * strips.  OVK_OK or OVK_ENOMEM. */
int ovk__csr_find_strips(ovk__csr *m);
void ovk__csr_drop_strips(ovk__csr *m);

/* y_i and dot += x_i y_i for the rows [lo, hi) of strip s of m (rows of
 * whole blocks by the strip kernels, a block cut by [lo, hi) by the entries
 * of its rows, as plain(m, x, y, from, to, dot) does); returns dot */
double ovk__strip_rows(const ovk__csr *m, int s, double (*plain)(const ovk__csr *, const double *, double *, int, int, double),
                       const double *x, double *y, int lo, int hi, double dot);

/* The kernels of strips: instruction set isa (OVK__RUN_*; the best this
 * CPU supports when isa < 0 or above it).  Returns the one now in use.  For
 * tests and benchmarks (every choice gives the same bits); process-wide. */
int ovk__strip_set_kernels(int isa);

/* y_i = sum_k c_k x_{i + off_k} and dot += x_i y_i for the rows [lo, hi)
 * of a run of one shared row (K entries at offsets off, values c), each row
 * summed in entry order; returns dot.  x must hold every x_{i + off_k}. */
double ovk__run_rows(const int *off, const double *c, int K, const double *x, double *y, int lo, int hi,
                     double dot);

/* The kernels the matvec applies runs with: those of instruction set isa
 * (OVK__RUN_*; the best this CPU supports when isa < 0 or above it), with
 * wide blocks of several chains first when wide, else 8-row blocks only.
 * Returns the instruction set now in use.  The default is the best one,
 * wide.  For tests and benchmarks that compare the paths (every choice
 * gives the same bits); process-wide, not for use while another thread
 * multiplies. */
enum { OVK__RUN_GENERIC, OVK__RUN_AVX2, OVK__RUN_AVX512, OVK__RUN_ISAS };
int ovk__run_set_kernels(int isa, int wide);
/* The widest of those instruction sets this CPU runs (with FMA too when
 * need_fma; else OVK__RUN_GENERIC) */
int ovk__cpu_isa(int need_fma);

/* The kernels ovk__dots_exact uses: those of instruction set isa
 * (OVK__RUN_*: portable C, AVX2 + FMA, AVX-512; the best this CPU supports
 * when isa < 0 or above it).  Returns the instruction set now in use.  For
 * tests and benchmarks: every choice gives the same bits; process-wide. */
int ovk__dot2_set_kernels(int isa);

/* Keep only the diagonal and upper triangle of a square diag block (its
 * columns as 16-bit offsets or as int), when the block is symmetric bit for bit; otherwise leave m
 * unchanged.  Every row must start with a_ii (the caller checks: the
 * matrix's has_diag_first).  The matvec then streams each
 * off-diagonal pair once.  Returns OVK_OK or OVK_ENOMEM. */
int ovk__csr_keep_upper(ovk__csr *m);

/* Collective: OVK_OK when the stored values are symmetric up to rounding
 * (|a_ij - a_ji| <= 2^-40 sqrt(m_i m_j), m_i the largest |a_ik| of row i;
 * an entry stored on one side only is compared with 0), else OVK_ENOTSYM
 * naming the pair of the largest mismatch, the same on every rank.
 * O(nnz) work, one int per row, and the offd entries sent to the owners of
 * their columns (symmetry.c).  After ovk_matrix_update_values it keeps, in
 * A's diag block, the list of its mirror pairs (about one int an entry,
 * freed with A) for the next checks. */
int ovk__matrix_check_symmetric(const ovk_matrix *A);
/* Collective: the same verdict, at a rank's first mismatch in its diag
 * block (then no exchange); the pair named is that rank's first, not the
 * largest.  For a caller that needs only the verdict (a solver that takes
 * either kind of matrix). */
int ovk__matrix_check_symmetric_quick(const ovk_matrix *A);

/* Collective: the Dirichlet rows of A (a_ii != 0 its only nonzero) and,
 * when some rank has one, *E: A with the entries of the other rows in
 * their columns dropped (dirichlet.c); this rank's such rows in *rows
 * (malloc'd, *nrows of them, local ids ascending), the global count in
 * *count.  *E on entry: NULL, or an earlier call's E, whose values are
 * updated when the new E has its pattern (else it is destroyed and a new
 * one made).  None anywhere: *E (destroyed) and *rows NULL, *count 0.  The
 * same status on every rank; on failure nothing is kept. */
int ovk__matrix_eliminate(const ovk_matrix *A, ovk_matrix **E, int **rows, int *nrows, long long *count);

/* Local ||A||_inf over the owned rows and the longest owned row (entries of
 * both blocks). */
int ovk__matrix_row_stats(const ovk_matrix *A, double *norm_inf, int *longest);

/* The communication package of y = A x, built once at setup. */
typedef struct ovk__halo {
    int nsend;       /* ranks we send to */
    int *send_rank;  /* [nsend] */
    int *send_ptr;   /* [nsend+1] into send_idx */
    int *send_idx;   /* local row ids to pack */
    double *send_buf;
    int nrecv;       /* ranks we receive from */
    int *recv_rank;  /* [nrecv] */
    int *recv_ptr;   /* [nrecv+1] into the external vector */
    double *ext;     /* x values of the offd columns, [ncols_offd] */
    MPI_Request *reqs; /* [nsend + nrecv] */
    int mode;          /* ovk_halo_mode */
    MPI_Request *preqs; /* OVK_HALO_PERSISTENT: [nrecv + nsend], built once */
    int has_nbr;       /* OVK_HALO_NEIGHBOR: nbr is a distributed-graph comm */
    MPI_Comm nbr;      /* sources = recv_rank, destinations = send_rank */
    int *nbr_cnt;      /* [nrecv + nsend] counts (recv, then send) */
} ovk__halo;

struct ovk_matrix {
    ovk__layout lay;
    ovk__csr diag;       /* local columns; the diagonal entry first in its row */
    ovk__csr offd;       /* columns compressed into col_map */
    int ncols_offd;
    ovk_gidx *col_map;   /* [ncols_offd] sorted global ids of offd columns */
    double *diagonal;    /* a_ii, 0 when absent */
    int has_diag_first;  /* every row's first diag-block entry is a_ii */
    int first_missing_diag; /* the first local row that stores no a_ii, or -1 */
    ovk__halo halo;
    unsigned long values_version; /* bumped by ovk_matrix_update_values */
    int users;           /* solves and setups in flight (ovk__matrix_hold) */
    int refs;            /* solvers made on it (ovk__matrix_ref): it outlives ovk_matrix_destroy for them */
    int destroyed;       /* ovk_matrix_destroy was called while refs > 0: freed with the last solver */
};

/* A solve or setup in flight uses A (delta +1 at its start, -1 at its end):
 * while any does, ovk_matrix_update_values and ovk_matrix_destroy say
 * OVK_EBUSY.  Local; A may be NULL. */
void ovk__matrix_hold(const ovk_matrix *A, int delta);
/* Local: OVK_EBUSY naming fn when a solve or setup uses A (a call from its
 * callback), else OVK_OK; the first check of a call that changes A. */
int ovk__matrix_usable(const ovk_matrix *A, const char *fn);
/* A solver made on A takes a reference (+1) and gives it back when it is
 * destroyed (-1): ovk_matrix_destroy of a matrix that solvers still use
 * only marks it, and the last reference frees it (collective as the
 * destroy is, when the solvers' destroys are).  Local; A may be NULL. */
void ovk__matrix_ref(const ovk_matrix *A, int delta);

/* Halo exchange split so that work can run while messages fly. */
int ovk__halo_begin(const ovk_matrix *A, const double *x);
int ovk__halo_end(const ovk_matrix *A);

/* The halo exchange of k vectors: one message per neighbour carrying the
 * k vectors' values (whatever the matrix's halo mode), in buffers of its
 * own.  reserve makes room for k vectors (local: the caller agrees on its
 * outcome); begin packs X[0..k) (k no more than reserved) and posts; end
 * waits and leaves the external values interleaved, column c of vector v
 * at ext[c k + v]; free releases the buffers.  begin and end are
 * collective with the neighbours. */
typedef struct ovk__halo_multi {
    int k, kcap;
    double *send, *recv;
    MPI_Request *reqs;
} ovk__halo_multi;
int ovk__halo_multi_reserve(const ovk_matrix *A, int k, ovk__halo_multi *hm);
int ovk__halo_multi_begin(const ovk_matrix *A, int k, const double *const *X, ovk__halo_multi *hm);
int ovk__halo_multi_end(const ovk_matrix *A, ovk__halo_multi *hm, double *ext);
void ovk__halo_multi_free(ovk__halo_multi *hm);

/* y = A x with an optional progress hook. */
int ovk__matvec(const ovk_matrix *A, const double *x, double *y, const ovk__hook *hook);
/* The solver engine's count (+1 before, -1 after) of the operator and
 * preconditioner callbacks the rank is in: there ovk_matvec does not agree
 * its checks (one reduction less per product); a rank that fails them
 * serves its neighbours' halo with NaN and returns the failure, which the
 * solve's next sum carries to every rank. */
void ovk__matvec_in_callback(int delta);
/* y = A x and *xy = <x, y> (local) in the same pass over the matrix: y is
 * bitwise ovk__matvec's; *xy sums the diag-block part of each row, then
 * the offd part, so it may differ from ovk__dot(x, y) in the last bits. */
int ovk__matvec_dot(const ovk_matrix *A, const double *x, double *y, double *xy, const ovk__hook *hook);
/* Y[j] = A X[j] for j < k and, when xy is not NULL, xy[j] = <X[j], Y[j]>
 * (local), with the matrix streamed from memory once for all k: the rows
 * in chunks small enough to stay in cache while each vector's kernel of
 * the block's storage form runs over them, the halo of the k vectors in
 * one message per neighbour.  Each Y[j] (and xy[j]) is bitwise that of
 * ovk__matvec (ovk__matvec_dot) of X[j]: the same kernels, rows and
 * entries in the same order.  The X[j] and Y[j] must not overlap. */
int ovk__matvec_multi(const ovk_matrix *A, int k, const double *const *X, double *const *Y, double *xy,
                      const ovk__hook *hook);
/* The multi-vector product's scratch (the interleaved copies, the external
 * values, the sums, the halo's buffers): kept by a caller that multiplies
 * again with the same matrix (a batch's products), so that it is allocated
 * and its pages touched once.  It grows, agreed by every rank, when k
 * exceeds every earlier k (k must be the same on every rank).  Zeroed to
 * start; ovk__multi_scratch_free releases it (local). */
typedef struct ovk__multi_scratch {
    double *xb, *yb, *ext, *dot; /* yb: all zero between products */
    size_t xb_len, yb_len, ext_len, dot_len; /* doubles held */
    ovk__halo_multi halo;
    int kcap; /* the vectors every buffer has room for */
} ovk__multi_scratch;
void ovk__multi_scratch_free(ovk__multi_scratch *ws);
/* ovk__matvec_multi with the caller's scratch ws (grown as needed) */
int ovk__matvec_multi_with(const ovk_matrix *A, int k, const double *const *X, double *const *Y, double *xy,
                           const ovk__hook *hook, ovk__multi_scratch *ws);
/* The kernels of the multi-vector product at widths 4 and 8: those of
 * instruction set isa (OVK__RUN_GENERIC, or OVK__RUN_AVX2 where built and
 * the CPU runs it; the best of these when isa < 0 or above it; the other
 * widths have generic kernels only).  Returns the instruction set now in
 * use; the default is the best.  For tests and benchmarks that compare the
 * paths (every choice gives the same bits); process-wide, not for use
 * while another thread multiplies. */
int ovk__multi_set_kernels(int isa);
/* Bytes one y = A x streams on this rank: the matrix arrays it reads (the
 * packed values), x read, y written, the offd rows' y updates, the halo's
 * packing and the external vector. */
double ovk__matvec_bytes(const ovk_matrix *A);

/* The diag block as plain CSR (rows.c): both triangles whatever the
 * storage form, local column ids, a_ii first in its row (when present).
 * ovk__matrix_diag_ptr fills ptr[0..n] (OVK_EUNSUPPORTED past 2^31 - 1
 * entries); ovk__matrix_diag_fill then col and val [ptr[n]] (OVK_ENOMEM).
 * Local.  The offd block (offd, col_map) has that shape already. */
int ovk__matrix_diag_ptr(const ovk_matrix *A, int *ptr);
int ovk__matrix_diag_fill(const ovk_matrix *A, const int *ptr, int *col, double *val);

/* OVK_OK when a and b are the same layout, else OVK_EMISMATCH with a detail
 * "WHAT: A_NAME ... but B_NAME ..." naming the first thing that differs. */
int ovk__layout_check(const ovk__layout *a, const char *a_name, const ovk__layout *b, const char *b_name,
                      const char *what);

/* OVK_OK when x and y are non-NULL and share a layout, else OVK_EINVAL or
 * OVK_EMISMATCH with a detail. */
int ovk__vector_check_pair(const ovk_vector *x, const ovk_vector *y);

#endif
