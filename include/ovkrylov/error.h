/* ovkrylov: status codes.
 *
 * Every public function that can fail returns an int status: OVK_OK (0) on
 * success, a negative OVK_E* code otherwise.  ovk_strerror() names the code;
 * ovk_error_detail() adds a sentence about the last failure on the calling
 * thread (which row, which option, which file line).  It is the *last
 * failure's* detail: overwritten by the next failure, not cleared by a
 * successful call, so read it only after a call returned nonzero.  The
 * status is what reports success; a later successful call never returns an
 * earlier failure.
 *
 * Collective calls return the same code on every rank of the communicator.
 */
#ifndef OVKRYLOV_ERROR_H
#define OVKRYLOV_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* The status codes, written once: X(name, value, text).  The enum below,
 * ovk_strerror and ovk_status_name are generated from it. */
#define OVK_STATUS_LIST(X) \
    X(OVK_OK, 0, "success") \
    X(OVK_EINVAL, -1, "invalid argument") \
    X(OVK_ENOMEM, -2, "out of memory") \
    X(OVK_EMPI, -3, "MPI call failed") \
    X(OVK_EPARTITION, -4, "row ranges do not tile the global range") \
    X(OVK_ECOLUMN, -5, "column index out of range") \
    X(OVK_EMISMATCH, -6, "layouts or communicators do not match") \
    X(OVK_EZERODIAG, -7, "zero, negative or missing diagonal entry") \
    X(OVK_EFILE, -8, "cannot open or read file") \
    X(OVK_EFORMAT, -9, "malformed input file") \
    X(OVK_ENOTSYM, -10, "matrix is not symmetric") \
    X(OVK_EBACKEND, -11, "unknown reduction backend") \
    X(OVK_EOPTION, -12, "unknown option or bad option value") \
    X(OVK_EUNSUPPORTED, -13, "not supported by this build, this MPI or this combination of options") \
    X(OVK_ESTATE, -14, "request or solver object used in the wrong state") \
    X(OVK_EBUSY, -15, "request still in flight, or object in use by a solve in flight") \
    X(OVK_EBREAKDOWN, -16, "Krylov breakdown") \
    X(OVK_ENONFINITE, -17, "NaN or Inf encountered") \
    X(OVK_EMAXIT, -18, "iteration limit reached without convergence") \
    X(OVK_ECALLBACK, -19, "a user callback failed") \
    X(OVK_ESTOPPED, -20, "stopped by the monitor callback") \
    X(OVK_EPRECOND, -21, "preconditioner setup failed") \
    X(OVK_EDIVERGED, -22, "the iteration diverged (divtol or the convergence test)") \
    X(OVK_ESTAGNATED, -23, "the true residual stagnated above the tolerance the recursive one met")

typedef enum ovk_status {
#define OVK_STATUS_ENUM_(name, value, text) name = value,
    OVK_STATUS_LIST(OVK_STATUS_ENUM_)
#undef OVK_STATUS_ENUM_
} ovk_status;

/* Short, static, English description of a status code.  Never NULL. */
const char *ovk_strerror(int status);

/* Symbolic name of a status code ("OVK_EBREAKDOWN").  Never NULL. */
const char *ovk_status_name(int status);

/* Detail about the last failure on the calling thread (not cleared by later
 * successful calls: read it when a call returned nonzero), or "" if none was
 * recorded.  The string stays valid until the next failure on the thread. */
const char *ovk_error_detail(void);

#ifdef __cplusplus
}
#endif
#endif
