/* The C side of the Python package (python/ovkrylov, ctypes): the public
 * functions that take an MPI_Comm, on a Fortran communicator handle
 * (MPI_Fint, mpi4py's Comm.py2f()).  MPI_Comm is a pointer in Open MPI and
 * an int in MPICH; the Fortran handle is an int in both, so a ctypes
 * binding needs no compiler and no knowledge of the MPI's ABI.  The
 * package also uses fortran.c's entries (ovk__f_agree, ovk__f_fail,
 * ovk__f_matrix_create_csr, ovk__f_reducer_create, ovk__f_solver_comm).
 * Not declared in the installed headers. */
#include "../solvers/solver.h"

int ovk__py_laplace_create(MPI_Fint fcomm, int stencil, int nx, int ny, int nz, int px, int py, int pz,
                           ovk_matrix **A);
int ovk__py_mm_read(MPI_Fint fcomm, const char *path, ovk_matrix **A);
int ovk__py_solver_create_operator(MPI_Fint fcomm, int nlocal, ovk_apply_fn matvec, void *ctx, ovk_solver **s);

int ovk__py_laplace_create(MPI_Fint fcomm, int stencil, int nx, int ny, int nz, int px, int py, int pz,
                           ovk_matrix **A)
{
    return ovk_laplace_create(MPI_Comm_f2c(fcomm), (ovk_stencil)stencil, nx, ny, nz, px, py, pz, A);
}

int ovk__py_mm_read(MPI_Fint fcomm, const char *path, ovk_matrix **A)
{
    return ovk_mm_read(MPI_Comm_f2c(fcomm), path, A);
}

/* Row ids in failure details counted from 0, as NumPy counts. */
int ovk__py_solver_create_operator(MPI_Fint fcomm, int nlocal, ovk_apply_fn matvec, void *ctx, ovk_solver **s)
{
    return ovk__solver_create_operator_base(MPI_Comm_f2c(fcomm), nlocal, matvec, ctx, 0, s);
}
