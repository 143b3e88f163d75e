/* ovkrylov internals every layer shares: status codes and their agreement,
 * spec strings, the Lanczos estimate, the progress hook and chunked loops.  Each layer keeps
 * the rest in its own private header (src/matrix/matrix.h,
 * src/backends/backend.h, src/precond/precond.h, src/solvers/solver.h).
 * Not installed. */
#ifndef OVK_INTERNAL_H
#define OVK_INTERNAL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ovkrylov/ovkrylov.h"

/* State of the calling rank's thread: _Thread_local, except under SimGrid
 * SMPI (OVK_SIMULATE), whose ranks share threads and keep private copies
 * of the globals. */
#ifdef OVK_SIMULATE
#define OVK__RANK_LOCAL
#else
#define OVK__RANK_LOCAL _Thread_local
#endif

/* ---- errors (src/util/error.c) ---------------------------------------- */

/* The detail message's room, its terminating zero included. */
enum { OVK__DETAIL_LEN = 512 };

/* The calling thread's detail and whether it came from another rank
 * (ovk__agree), saved and put back by code that runs several contexts on
 * one thread (solve_many's systems). */
typedef struct ovk__detail {
    char text[OVK__DETAIL_LEN];
    int agreed;
} ovk__detail;
void ovk__detail_save(ovk__detail *d);
void ovk__detail_restore(const ovk__detail *d);

/* Record a detail message for the calling thread and return code. */
int ovk__fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Collective: every rank of comm gets the same status.  When any rank failed
 * the result is the smallest (most negative) code; ranks that did not fail
 * record a detail naming the failing rank.  Returns OVK_EMPI if MPI fails. */
int ovk__agree(MPI_Comm comm, int rc);
/* Collective: ovk__agree and, in the same reduction, max[i] and sum[i] of
 * v[i] over the ranks, i < n <= OVK__AGREE_VALUES_MAX. */
enum { OVK__AGREE_VALUES_MAX = 32 };
int ovk__agree_values(MPI_Comm comm, int rc, const double *v, int n, double *max, double *sum);

/* A 64-bit fingerprint of len bytes (FNV-1a). */
uint64_t ovk__fingerprint(const void *p, size_t len);

/* Collective: *first = the index of the first of the k fingerprints h[]
 * that differs between ranks, or -1 when all agree (one reduction; k at
 * most OVK__MAX_FINGERPRINTS, else OVK_EINVAL). */
enum { OVK__MAX_FINGERPRINTS = 32 };
int ovk__differs(MPI_Comm comm, const uint64_t *h, int k, int *first);

/* d without its leading "rank N: " (another rank's agreed detail), which
 * goes into prefix ("" when there is none): a message quoting a detail puts
 * the rank first, not mid-sentence. */
const char *ovk__detail_rank(const char *d, char *prefix, size_t len);

/* Map an MPI error to OVK_EMPI with a detail naming the call. */
int ovk__mpi_fail(int mpi_rc, const char *call);
/* The status of an MPI call's return value: OVK_OK for MPI_SUCCESS, else
 * ovk__mpi_fail(mpi_err, what).  Used as
 *     rc = ovk__mpi(MPI_Allgather(...), "MPI_Allgather");
 *     if (rc) goto cleanup; */
int ovk__mpi(int mpi_err, const char *what);

/* ---- communicators (src/util/comm.c) --------------------------------- */

/* Collective over comm the first time: *out = the inner communicator every
 * object on comm shares (a duplicate cached on comm, errors returned; comm
 * itself when it is one), one reference more.  Released by
 * ovk__comm_release (local), which sets *comm to MPI_COMM_NULL. */
int ovk__comm_acquire(MPI_Comm comm, MPI_Comm *out);
void ovk__comm_release(MPI_Comm *comm);
/* Collective: *out = a private duplicate of comm's inner communicator (errors
 * returned; freed with MPI_Comm_free), for an object that needs its own
 * tag space or collective order; agreed OVK_EMPI when MPI has none left. */
int ovk__comm_private(MPI_Comm comm, MPI_Comm *out);

/* ---- spec strings "name[:key=value,...]" (src/util/spec.c) ---------- */

#define OVK__MAX_OPTS 16

/* Parsed "key=value" options of a spec. */
typedef struct ovk__opts {
    char kind[16]; /* "backend", "solver", "preconditioner": for messages */
    int n;
    struct {
        char key[32];
        char val[96];
        int used; /* set when the owner read it */
    } kv[OVK__MAX_OPTS];
} ovk__opts;

/* Split spec into name and options; a missing or too long name is
 * bad_name_code, a malformed option OVK_EOPTION.  Local. */
int ovk__spec_parse(const char *kind, int bad_name_code, const char *spec, char *name, size_t name_len,
                    ovk__opts *o);
/* Typed reads: *val keeps its default when absent; OVK_EOPTION with a
 * detail naming owner when the value is malformed or out of [lo, hi]. */
int ovk__opt_int(ovk__opts *o, const char *owner, const char *key, long lo, long hi, long *val);
int ovk__opt_double(ovk__opts *o, const char *owner, const char *key, double lo, double hi, double *val);
/* A value that must be one of choices (NULL-terminated): its index. */
int ovk__opt_choice(ovk__opts *o, const char *owner, const char *key, const char *const *choices, int *index);
/* A table of options read in order by ovk__opts_read: each entry an integer
 * in [lo, hi] (ival), a number in [dlo, dhi] (dval) or one of the
 * NULL-terminated choices (its index to *index). */
typedef struct ovk__opt_entry {
    const char *key;
    long *ival;
    long lo, hi;
    double *dval;
    double dlo, dhi;
    const char *const *choices;
    int *index;
} ovk__opt_entry;
#define OVK__OPT_INT(k, min, max, p) {.key = (k), .ival = (p), .lo = (min), .hi = (max)}
#define OVK__OPT_DOUBLE(k, min, max, p) {.key = (k), .dval = (p), .dlo = (min), .dhi = (max)}
#define OVK__OPT_CHOICE(k, names, p) {.key = (k), .choices = (names), .index = (p)}
/* The n entries of t in order, as ovk__opt_int, _double and _choice read
 * them; the first failure stops. */
int ovk__opts_read(ovk__opts *o, const char *owner, const ovk__opt_entry *t, int n);
/* Append item to the list in buf (len bytes, truncated), after sep unless
 * the list is empty. */
void ovk__list_add(char *buf, size_t len, const char *sep, const char *item);
/* free(arrays[0..n)): the arrays an object owns, at its release (resetting
 * the object is the caller's) */
static inline void ovk__free_each(int n, void *const *arrays)
{
    for (int i = 0; i < n; i++) free(arrays[i]);
}
/* OVK_EOPTION naming the first option nobody read, with help (the owner's
 * option list). */
int ovk__opts_check_unused(const ovk__opts *o, const char *owner, const char *help);

/* ---- the Lanczos eigenvalue estimate (src/util/lanczos.c) ------------- */

/* Extreme eigenvalues of the Lanczos matrix of k CG steps (alpha_j, and the
 * beta_j that built p_j; beta_0 ignored): 0, or -1 when they are not
 * finite.  work holds 2k doubles.  No allocation (no LAPACK). */
int ovk__lanczos_extremes(int k, const double *alpha, const double *beta, double *work, double *lmin,
                          double *lmax);
/* The extreme eigenvalues of the symmetric tridiagonal matrix with diagonal
 * d[0..k) and off-diagonal e[0..k-1), by bisection on Sturm counts (to a
 * few units of roundoff in ||T||): 0, or -1 when an entry is not finite. */
int ovk__tridiag_extremes(int k, const double *d, const double *e, double *lmin, double *lmax);
/* The largest eigenvalue of the symmetric k x k matrix a (column-major,
 * both triangles, overwritten) by cyclic Jacobi rotations; for small k (no
 * allocation).  NaN when an entry is not finite.  (plcg's Ritz value,
 * fieldsplit's singular blocks.) */
double ovk__sym_eig_max(int k, double *a);
/* L L^T = A in place, A symmetric positive definite k x k: entry (i, j)
 * of the lower triangle (i >= j) at f[i * rs + j * cs] (rs = 1, cs = k: the
 * lower triangle of a column-major matrix; rs = k, cs = 1: the upper one,
 * which then holds R = L^T, R^T R = A); the other triangle is not read.
 * 0, or -1 when a pivot d_j (a_jj less the squares before it) is not above
 * 0 and rel a_jj (src/util/dense.c). */
int ovk__cholesky(int k, double *f, int rs, int cs, double rel);

/* ---- progress hook ---------------------------------------------------- */

/* Long local kernels call fn(arg) every `every` rows so that reductions in
 * flight progress while they run.  A NULL hook (or fn) means no calls. */
typedef struct ovk__hook {
    void (*fn)(void *arg);
    void *arg;
    int every;
} ovk__hook;

/* Chunked kernels: rows per chunk (all of them without a hook), the end of
 * the chunk that starts at lo, and the call after each chunk. */
static inline int ovk__chunk_rows(int n, const ovk__hook *h)
{
    return (h && h->fn && h->every > 0) ? h->every : (n > 0 ? n : 1);
}
static inline int ovk__chunk_end(int lo, int step, int n) { return n - lo > step ? lo + step : n; }
static inline void ovk__poke(const ovk__hook *h)
{
    if (h && h->fn) h->fn(h->arg);
}
/* The chunked loop: rows [lo, hi) of [0, n) a chunk at a time, the hook
 * poked after each:  OVK__CHUNKS(n, h, lo, hi) { ... rows lo..hi-1 ... } */
#define OVK__CHUNKS(n, h, lo, hi)                                                                           \
    for (int lo##_step = ovk__chunk_rows((n), (h)), lo = 0, hi = ovk__chunk_end(0, lo##_step, (n)); lo < (n); \
         ovk__poke(h), lo = hi, hi = ovk__chunk_end(lo, lo##_step, (n)))

#endif
