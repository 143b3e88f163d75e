/* The C side of the Fortran module (fortran/ovkrylov.f90): what Fortran
 * cannot reach through ISO_C_BINDING alone.  A Fortran communicator is an
 * integer handle (MPI_Fint, the MPI_VAL of mpi_f08's type(MPI_Comm)); these
 * functions convert it with MPI_Comm_f2c / MPI_Comm_c2f, and let the module
 * record a failure detail and agree a status the way the library does.
 * Part of the C library (always built, Fortran compiler or not) so that the
 * module's library needs only the public API and these entry points; not
 * declared in the installed headers. */
#include "../solvers/solver.h"

int ovk__f_fail(int code, const char *msg);
int ovk__f_agree(MPI_Fint fcomm, int rc);
int ovk__f_matrix_create_csr(MPI_Fint fcomm, ovk_gidx row_start, int nlocal, const int *rowptr,
                             const ovk_gidx *cols, const double *vals, int dups, int base, ovk_matrix **A);
MPI_Fint ovk__f_matrix_comm(const ovk_matrix *A);
MPI_Fint ovk__f_solver_comm(const ovk_solver *s);
size_t ovk__f_result_size(void);
int ovk__f_solver_refuse(ovk_solver *s, int rc);
int ovk__f_solver_create_operator(MPI_Fint fcomm, int nlocal, ovk_apply_fn matvec, void *ctx, ovk_solver **s);
int ovk__f_reducer_create(MPI_Fint fcomm, const char *spec, ovk_reducer **red);

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

/* The module's bind(C) copy of ovk_pcg_result must have this size. */
size_t ovk__f_result_size(void) { return sizeof(ovk_pcg_result); }

/* The module's create refused an option on this rank: setup reports it. */
int ovk__f_solver_refuse(ovk_solver *s, int rc) { return ovk__solver_refuse(s, rc); }

/* ovk_solver_create_operator on a Fortran communicator. */
int ovk__f_solver_create_operator(MPI_Fint fcomm, int nlocal, ovk_apply_fn matvec, void *ctx, ovk_solver **s)
{
    return ovk_solver_create_operator(MPI_Comm_f2c(fcomm), nlocal, matvec, ctx, s);
}

/* ovk_reducer_create on a Fortran communicator ("" : the environment's). */
int ovk__f_reducer_create(MPI_Fint fcomm, const char *spec, ovk_reducer **red)
{
    return ovk_reducer_create(MPI_Comm_f2c(fcomm), spec, red);
}

/* The module's bind(C) trampolines (fortran/ovkrylov.f90, in
 * libovkrylov_fortran) that the library calls through ovk_apply_fn and
 * ovk_monitor_fn.  Declared here only so that the compiler checks, without
 * referencing them, that their signatures still match the callback types:
 * a change of solver.h's types must change the module's trampolines too. */
int ovk__f_op_trampoline(ovk_solver *s, const double *x, double *y, void *ctx);
int ovk__f_pc_trampoline(ovk_solver *s, const double *x, double *y, void *ctx);
int ovk__f_monitor_trampoline(ovk_solver *s, int iteration, double rnorm, double rel, void *ctx);
_Static_assert(_Generic(&ovk__f_op_trampoline, ovk_apply_fn: 1, default: 0), "operator trampoline vs ovk_apply_fn");
_Static_assert(_Generic(&ovk__f_pc_trampoline, ovk_apply_fn: 1, default: 0), "preconditioner trampoline vs ovk_apply_fn");
_Static_assert(_Generic(&ovk__f_monitor_trampoline, ovk_monitor_fn: 1, default: 0),
               "monitor trampoline vs ovk_monitor_fn");
