/* The C side of the Fortran module (fortran/ovkrylov.f90): what Fortran
 * cannot reach through ISO_C_BINDING alone.  A Fortran communicator is an
 * integer handle (MPI_Fint, the MPI_VAL of mpi_f08's type(MPI_Comm)); these
 * functions convert it with MPI_Comm_f2c / MPI_Comm_c2f, and let the module
 * record a failure detail and agree a status the way the library does.
 * Part of the C library (always built, Fortran compiler or not) so that the
 * module's library needs only the public API and these entry points; not
 * declared in the installed headers. */
#include <stdio.h>
#include <stdlib.h>

#include "../solvers/solver.h"

int ovk__f_fail(int code, const char *msg);
int ovk__f_agree(MPI_Fint fcomm, int rc);
int ovk__f_matrix_create_csr(MPI_Fint fcomm, ovk_gidx row_start, int nlocal, const int *rowptr,
                             const ovk_gidx *cols, const double *vals, int dups, int base, ovk_matrix **A);
MPI_Fint ovk__f_matrix_comm(const ovk_matrix *A);
MPI_Fint ovk__f_solver_comm(const ovk_solver *s);
int ovk__f_abi_field(const char *type, const char *field, size_t *offset, size_t *size);
int ovk__f_solver_refuse(ovk_solver *s, int rc);
int ovk__f_solver_refuse_solve(ovk_solver *s, int rc);
int ovk__f_solver_create_operator(MPI_Fint fcomm, int nlocal, ovk_apply_fn matvec, void *ctx, ovk_solver **s);
int ovk__f_reducer_create(MPI_Fint fcomm, const char *spec, ovk_reducer **red);
int ovk__f_solver_view(const ovk_solver *s, char **text, size_t *len);
int ovk__f_options_left(int list, char **text, size_t *len);
int ovk__f_options_get(const char *name, char **text, int *found);
int ovk__f_solver_get_option(const ovk_solver *s, const char *key, char **text);
int ovk__f_options_finalize(void);
void ovk__f_free(void *p);
int ovk__f_convdiff_create(MPI_Fint fcomm, int nx, int ny, int nz, int px, int py, int pz, const double *velocity,
                           double peclet, int scheme, ovk_matrix **A);
int ovk__f_solver_set_nullspace(ovk_solver *s, int has_constant, int k, const double *block, int rows);
int ovk__f_solver_set_fields(ovk_solver *s, const int *ids, int rows);

/* Record msg as the calling thread's failure detail; returns code. */
int ovk__f_fail(int code, const char *msg)
{
    return ovk__fail(code, "%s", msg ? msg : "");
}

/* Collective over the communicator: the worst status of the ranks, with the
 * failing rank's detail on every rank (ovk__agree). */
int ovk__f_agree(MPI_Fint fcomm, int rc)
{
    MPI_Comm comm = MPI_Comm_f2c(fcomm);
    if (comm == MPI_COMM_NULL) return ovk__fail(OVK_EINVAL, "the communicator is MPI_COMM_NULL");
    return ovk__agree(comm, rc);
}

/* The arrays come 0-based; base (the application's) is how failure details
 * print row and column ids. */
int ovk__f_matrix_create_csr(MPI_Fint fcomm, ovk_gidx row_start, int nlocal, const int *rowptr,
                             const ovk_gidx *cols, const double *vals, int dups, int base, ovk_matrix **A)
{
    /* the module checked dups (and the array lengths) and agreed the outcome */
    return ovk__matrix_create_csr_base(MPI_Comm_f2c(fcomm), row_start, nlocal, rowptr, cols, vals,
                                       (ovk_dup_policy)dups, base, A);
}

MPI_Fint ovk__f_matrix_comm(const ovk_matrix *A)
{
    return MPI_Comm_c2f(A ? ovk_matrix_comm(A) : MPI_COMM_NULL);
}

MPI_Fint ovk__f_solver_comm(const ovk_solver *s)
{
    return MPI_Comm_c2f(s ? ovk_solver_comm(s) : MPI_COMM_NULL);
}

/* The module's bind(C) copy of ovk_result must have this size. */
/* ovk_abi_field with "" for the whole type (Fortran has no NULL string) */
int ovk__f_abi_field(const char *type, const char *field, size_t *offset, size_t *size)
{
    return ovk_abi_field(type, field && *field ? field : NULL, offset, size);
}

/* ovk_solver_set_nullspace from Fortran's vectors(rows, k), one block;
 * rows must be the solver's local row count (agreed: the same error on
 * every rank). */
int ovk__f_solver_set_nullspace(ovk_solver *s, int has_constant, int k, const double *block, int rows)
{
    const double *vec[OVK__NULLSPACE_MAX] = {NULL};
    if (ovk__solver_usable(s, "ovk_solver_set_nullspace")) return ovk_solver_set_nullspace(s, has_constant, k, vec);
    int n = ovk_solver_nlocal(s), rc = OVK_OK;
    if (k > 0 && rows != n)
        rc = ovk__fail(OVK_EINVAL, "ovk_solver_set_nullspace: vectors of %d rows for %d local rows", rows, n);
    rc = ovk__agree(ovk_solver_comm(s), rc);
    if (rc) return rc;
    for (int j = 0; j < k && j < OVK__NULLSPACE_MAX; j++) vec[j] = block + (size_t)j * (size_t)(rows > 0 ? rows : 0);
    return ovk_solver_set_nullspace(s, has_constant, k, vec);
}

/* ovk_solver_set_fields with the array's length checked (agreed first) */
int ovk__f_solver_set_fields(ovk_solver *s, const int *ids, int rows)
{
    if (ovk__solver_usable(s, "ovk_solver_set_fields")) return ovk_solver_set_fields(s, ids);
    int n = ovk_solver_nlocal(s), rc = OVK_OK;
    if (rows != n) rc = ovk__fail(OVK_EINVAL, "ovk_solver_set_fields: %d field ids for %d local rows", rows, n);
    rc = ovk__agree(ovk_solver_comm(s), rc);
    return rc ? rc : ovk_solver_set_fields(s, ids);
}

/* The module's create refused an option on this rank: setup reports it. */
int ovk__f_solver_refuse(ovk_solver *s, int rc) { return ovk__solver_refuse(s, rc); }
int ovk__f_solver_refuse_solve(ovk_solver *s, int rc) { return ovk__solver_refuse_solve(s, rc); }

/* ovk_solver_create_operator on a Fortran communicator, the rows' ids in
 * failure details counted from 1. */
int ovk__f_solver_create_operator(MPI_Fint fcomm, int nlocal, ovk_apply_fn matvec, void *ctx, ovk_solver **s)
{
    return ovk__solver_create_operator_base(MPI_Comm_f2c(fcomm), nlocal, matvec, ctx, 1, s);
}

/* ovk_reducer_create on a Fortran communicator ("" : the environment's). */
int ovk__f_reducer_create(MPI_Fint fcomm, const char *spec, ovk_reducer **red)
{
    return ovk_reducer_create(MPI_Comm_f2c(fcomm), spec, red);
}

/* What a listing to a FILE * writes, as text the module prints to a
 * Fortran unit: *text (malloc'ed, NUL-terminated, freed with ovk__f_free)
 * and *len.  open_memstream fails only for want of memory. */
static int to_text(FILE **f, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    *f = open_memstream(text, len);
    return *f ? OVK_OK : ovk__fail(OVK_ENOMEM, "open_memstream for the Fortran binding's text");
}

static int text_done(FILE *f, int rc, char **text, size_t *len)
{
    if (fclose(f) && !rc) rc = ovk__fail(OVK_ENOMEM, "the Fortran binding's text");
    if (rc) {
        free(*text);
        *text = NULL;
        *len = 0;
    }
    return rc;
}

/* A value of any length for the module's allocatable strings: get into a
 * buffer doubled while get says too_long (up to 64 MiB), *text malloc'ed
 * (freed with ovk__f_free) or NULL. */
typedef int (*get_fn)(const void *obj, const char *key, char *buf, size_t len, int *found);

static int get_grown(get_fn get, const void *obj, const char *key, int too_long, char **text, int *found)
{
    *text = NULL;
    for (size_t cap = 1024;; cap *= 2) {
        char *buf = malloc(cap);
        if (!buf) return ovk__fail(OVK_ENOMEM, "%zu bytes for the value of %s", cap, key ? key : "(null)");
        int rc = get(obj, key, buf, cap, found);
        if (rc == OVK_OK) {
            *text = buf;
            return OVK_OK;
        }
        free(buf);
        if (rc != too_long || cap >= ((size_t)64 << 20)) return rc;
    }
}

static int options_get(const void *obj, const char *key, char *buf, size_t len, int *found)
{
    (void)obj;
    return ovk_options_get(key, buf, len, found); /* OVK_EOPTION: too long */
}

static int solver_get(const void *obj, const char *key, char *buf, size_t len, int *found)
{
    *found = 1;
    return ovk_solver_get_option(obj, key, buf, len); /* OVK_EINVAL: too short */
}

int ovk__f_options_get(const char *name, char **text, int *found)
{
    return get_grown(options_get, NULL, name, OVK_EOPTION, text, found);
}

int ovk__f_solver_get_option(const ovk_solver *s, const char *key, char **text)
{
    int found = 0;
    return get_grown(solver_get, s, key, OVK_EINVAL, text, &found);
}

/* ovk_solver_view into text.  Local. */
int ovk__f_solver_view(const ovk_solver *s, char **text, size_t *len)
{
    FILE *f = NULL;
    int rc = to_text(&f, text, len);
    if (rc) return rc;
    return text_done(f, ovk_solver_view(s, f), text, len);
}

/* ovk_options_left listed into text (list != 0) or only counted; returns
 * the count (>= 0) or a status. */
int ovk__f_options_left(int list, char **text, size_t *len)
{
    FILE *f = NULL;
    *text = NULL;
    *len = 0;
    if (!list) return ovk_options_left(NULL);
    int rc = to_text(&f, text, len);
    if (rc) return rc;
    int left = ovk_options_left(f);
    rc = text_done(f, OVK_OK, text, len);
    return rc ? rc : left;
}

/* ovk_options_finalize, its listing (C's stdout) flushed before the
 * Fortran runtime writes again. */
int ovk__f_options_finalize(void)
{
    int rc = ovk_options_finalize();
    fflush(stdout);
    return rc;
}

void ovk__f_free(void *p) { free(p); }

/* ovk_convdiff_create with a Fortran communicator (it checks the rest) */
int ovk__f_convdiff_create(MPI_Fint fcomm, int nx, int ny, int nz, int px, int py, int pz, const double *velocity,
                           double peclet, int scheme, ovk_matrix **A)
{
    return ovk_convdiff_create(MPI_Comm_f2c(fcomm), nx, ny, nz, px, py, pz, velocity, peclet,
                               (ovk_convdiff_scheme)scheme, A);
}

/* The status and reason codes and the verdicts the module mirrors
 * (fortran/ovkrylov.f90's parameters, its test checks every name): a code
 * added to error.h or pcg.h stops the build here until the module has it. */
#define OVK_F_ONE_(name, value, text) 1,
enum { OVK_F_STATUS_COUNT = 24, OVK_F_REASON_COUNT = 8 };
_Static_assert(sizeof((char[]){OVK_STATUS_LIST(OVK_F_ONE_)}) == OVK_F_STATUS_COUNT,
               "error.h's status codes changed: update fortran/ovkrylov.f90's OVK_E* and OVK_F_STATUS_COUNT");
_Static_assert(sizeof((char[]){OVK_REASON_LIST(OVK_F_ONE_)}) == OVK_F_REASON_COUNT,
               "pcg.h's reasons changed: update fortran/ovkrylov.f90's OVK_REASON_* and OVK_F_REASON_COUNT");
#undef OVK_F_ONE_
_Static_assert(OVK_ESTAGNATED == -23 && OVK_REASON_STAGNATED == 7, "the module's last status and reason");
_Static_assert(OVK_VERDICT_CONTINUE == 0 && OVK_VERDICT_CONVERGED == 1 && OVK_VERDICT_DIVERGED == 2,
               "the module's OVK_VERDICT_* values");

/* The module's bind(C) trampolines (fortran/ovkrylov.f90, in
 * libovkrylov_fortran) that the library calls through ovk_apply_fn,
 * ovk_monitor_fn and ovk_converged_fn.  Declared here only so that the
 * compiler checks, without referencing them, that their signatures still match the callback types:
 * a change of solver.h's types must change the module's trampolines too. */
int ovk__f_op_trampoline(ovk_solver *s, const double *x, double *y, void *ctx);
int ovk__f_pc_trampoline(ovk_solver *s, const double *x, double *y, void *ctx);
int ovk__f_monitor_trampoline(ovk_solver *s, int iteration, double rnorm, double rel, void *ctx);
int ovk__f_converged_trampoline(ovk_solver *s, int iteration, double rnorm, double bnorm, double rnorm0, void *ctx);
_Static_assert(_Generic(&ovk__f_op_trampoline, ovk_apply_fn: 1, default: 0), "operator trampoline vs ovk_apply_fn");
_Static_assert(_Generic(&ovk__f_pc_trampoline, ovk_apply_fn: 1, default: 0), "preconditioner trampoline vs ovk_apply_fn");
_Static_assert(_Generic(&ovk__f_monitor_trampoline, ovk_monitor_fn: 1, default: 0),
               "monitor trampoline vs ovk_monitor_fn");
_Static_assert(_Generic(&ovk__f_converged_trampoline, ovk_converged_fn: 1, default: 0),
               "convergence test trampoline vs ovk_converged_fn");
