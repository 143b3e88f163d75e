/* ovkrylov: status codes.
 *
 * Every public function that can fail returns an int status: OVK_OK (0) on
 * success, a negative OVK_E* code otherwise.  ovk_strerror() names the code;
 * ovk_error_detail() adds a sentence about the most recent failure on the
 * calling thread (which row, which option, which file line).  The detail is
 * overwritten by the next failure; nothing is sticky: a later successful call
 * never reports an earlier failure.
 *
 * Collective calls return the same code on every rank of the communicator.
 */
#ifndef OVKRYLOV_ERROR_H
#define OVKRYLOV_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ovk_status {
    OVK_OK = 0,
    OVK_EINVAL = -1,        /* invalid argument (NULL, negative size, ...) */
    OVK_ENOMEM = -2,        /* allocation failed */
    OVK_EMPI = -3,          /* an MPI call failed */
    OVK_EPARTITION = -4,    /* row ranges do not tile the global range */
    OVK_ECOLUMN = -5,       /* a column id is outside [0, nglobal) */
    OVK_EMISMATCH = -6,     /* vector/matrix layouts or communicators differ */
    OVK_EZERODIAG = -7,     /* zero, negative or missing diagonal entry */
    OVK_EFILE = -8,         /* a file cannot be opened or read */
    OVK_EFORMAT = -9,       /* malformed or truncated input file */
    OVK_ENOTSYM = -10,      /* a matrix that must be symmetric is not */
    OVK_EBACKEND = -11,     /* unknown reduction backend name */
    OVK_EOPTION = -12,      /* unknown backend option or bad option value */
    OVK_EUNSUPPORTED = -13, /* feature not available in this build or MPI */
    OVK_ESTATE = -14,       /* request used in the wrong state (waited twice, freed) */
    OVK_EBUSY = -15,        /* request still in flight */
    OVK_EBREAKDOWN = -16,   /* Krylov breakdown: <p,Ap> <= 0 (matrix not SPD?) */
    OVK_ENONFINITE = -17,   /* NaN or Inf appeared in the input or iteration */
    OVK_EMAXIT = -18,       /* iteration limit reached before convergence */
    OVK_ECALLBACK = -19,    /* a user callback (operator, preconditioner, monitor) failed */
    OVK_ESTOPPED = -20,     /* the monitor callback stopped the solve */
    OVK_EPRECOND = -21      /* preconditioner setup failed (e.g. a non-positive IC(0) pivot) */
} ovk_status;

/* Short, static, English description of a status code.  Never NULL. */
const char *ovk_strerror(int status);

/* Symbolic name of a status code ("OVK_EBREAKDOWN").  Never NULL. */
const char *ovk_status_name(int status);

/* Detail about the most recent failure on the calling thread, or "" if none
 * was recorded.  The string stays valid until the next failure on the thread. */
const char *ovk_error_detail(void);

#ifdef __cplusplus
}
#endif
#endif
