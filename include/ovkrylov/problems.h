/* ovkrylov: built-in test problems and Matrix Market input. */
#ifndef OVKRYLOV_PROBLEMS_H
#define OVKRYLOV_PROBLEMS_H

#include <mpi.h>

#include "matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ovk_stencil { OVK_STENCIL_7 = 7, OVK_STENCIL_27 = 27 } ovk_stencil;

/* The 3-D Laplacian of hypre's GenerateLaplacian27pt / GenerateLaplacian
 * (as its ij driver calls them): diagonal 26 (27-point) or 6 (7-point),
 * off-diagonals -1, Dirichlet boundaries.  The ranks form a px x py x pz grid
 * (px*py*pz must equal the communicator size); each owns an nx x ny x nz box
 * numbered contiguously, x fastest.  Rank r sits at grid coordinates
 * (r % px, (r / px) % py, r / (px*py)).  Collective; all ranks agree on the
 * outcome (a bad argument on one rank, A NULL included, is OVK_EINVAL on every
 * rank). */
int ovk_laplace_create(MPI_Comm comm, ovk_stencil stencil, int nx, int ny, int nz, int px, int py,
                       int pz, ovk_matrix **A);

/* The same grid and stencil with pure Neumann boundaries: each row's
 * diagonal is the number of its neighbours (row sums zero), so A is
 * symmetric positive semi-definite with the constants as null space (the
 * pressure Poisson equation): solve it with a null space declared
 * (ovk_solver_set_nullspace, option nullspace constant).  Collective;
 * arguments agreed as ovk_laplace_create's. */
int ovk_laplace_create_neumann(MPI_Comm comm, ovk_stencil stencil, int nx, int ny, int nz, int px, int py, int pz,
                               ovk_matrix **A);

/* The 3-D convection-diffusion operator -laplace(u) + Pe v . grad(u) on the
 * unit cube, Dirichlet boundaries, on the grid and distribution of
 * ovk_laplace_create (7-point): mesh width h_d = 1 / (g_d + 1) along each
 * axis of g_d global points, a constant velocity field v (velocity[3]) and
 * the Peclet number Pe >= 0; the convection by central differences, or
 * first-order upwind (an M-matrix at any Pe).  The rows are scaled by h^2
 * of the finest axis, so on a cube the diffusion part is the 7-point
 * Laplacian (6, -1); the cell Peclet number is Pe |v_d| h_d / 2 (central
 * differences lose diagonal dominance above 1).  Nonsymmetric for Pe > 0:
 * solve it with bicgstab or pipebicgstab.  Collective; arguments agreed as
 * ovk_laplace_create's. */
typedef enum ovk_convdiff_scheme { OVK_CONVDIFF_UPWIND = 0, OVK_CONVDIFF_CENTRAL = 1 } ovk_convdiff_scheme;
int ovk_convdiff_create(MPI_Comm comm, int nx, int ny, int nz, int px, int py, int pz, const double velocity[3],
                        double peclet, ovk_convdiff_scheme scheme, ovk_matrix **A);

/* Read a Matrix Market file (coordinate; real, integer or pattern; general or
 * symmetric) and distribute it by contiguous blocks of rows, balanced
 * (rank r owns rows [r*N/P, (r+1)*N/P)).  Every rank reads the file.  The matrix
 * must be square; a `general` file is read as it is, both triangles (the CG
 * solvers refuse a nonsymmetric matrix at their setup, OVK_ENOTSYM; the
 * nonsymmetric ones, bicgstab and pipebicgstab, take it).  Malformed or truncated
 * files give OVK_EFORMAT with the line number in ovk_error_detail().
 * Collective; all ranks agree on the outcome (a NULL path or A on one rank is
 * OVK_EINVAL on every rank). */
int ovk_mm_read(MPI_Comm comm, const char *path, ovk_matrix **A);
/* The same, split into whole blocks of bs rows (the unknowns of a node of a
 * system of PDEs, interleaved): rank r owns the nodes [r*M/P, (r+1)*M/P) of
 * M = N/bs.  N not a multiple of bs is OVK_EINVAL.  ovk_mm_read is bs = 1.
 * Collective, agreed as ovk_mm_read. */
int ovk_mm_read_blocked(MPI_Comm comm, const char *path, int bs, ovk_matrix **A);

/* The serial core of ovk_mm_read: parse the file and return the rows
 * [row_start, row_start + nlocal) as CSR with 0-based global column ids
 * (symmetric files mirrored).  *nglobal receives the matrix size.  When
 * nlocal < 0 the rows from row_start to the end are returned and *nlocal_out
 * says how many.  Arrays are malloc'ed; free them with free().  Not collective. */
int ovk_mm_read_rows(const char *path, ovk_gidx row_start, int nlocal, ovk_gidx *nglobal,
                     int *nlocal_out, int **rowptr, ovk_gidx **cols, double **vals);

#ifdef __cplusplus
}
#endif
#endif
