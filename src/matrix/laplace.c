/* The 7- and 27-point 3-D Laplacians, built as hypre's GenerateLaplacian and
 * GenerateLaplacian27pt build them for its ij driver, and the 7-point
 * convection-diffusion operator on the same grids: every rank owns an
 * nx x ny x nz box of a (px*nx) x (py*ny) x (pz*nz) grid, numbered
 * contiguously box by box, x fastest; Dirichlet boundaries. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "matrix.h"

typedef struct grid {
    int nx, ny, nz;           /* box per rank */
    int px, py, pz;           /* rank grid */
    int64_t gx, gy, gz;       /* global grid */
} grid;

/* Global row of global grid point (x, y, z). */
static ovk_gidx global_id(const grid *g, int64_t x, int64_t y, int64_t z)
{
    int64_t p = x / g->nx, q = y / g->ny, s = z / g->nz;
    int64_t rank = p + g->px * (q + g->py * s);
    int64_t local = (x - p * g->nx) + g->nx * ((y - q * g->ny) + g->ny * (z - s * g->nz));
    return rank * ((int64_t)g->nx * g->ny * g->nz) + local;
}

/* hypre's ij: the 27-point diagonal is 26, or 8 (2 for a line) when the
 * global grid is flat; the 7-point diagonal counts the non-trivial axes. */
static double diagonal_value(const grid *g, ovk_stencil st)
{
    int flat = (g->gx == 1) + (g->gy == 1) + (g->gz == 1);
    if (st == OVK_STENCIL_7) return 2.0 * (3 - flat);
    if (flat >= 2) return 2.0;
    return flat == 1 ? 8.0 : 26.0;
}

static int in_stencil(ovk_stencil st, int dx, int dy, int dz)
{
    if (st == OVK_STENCIL_27) return 1;
    return abs(dx) + abs(dy) + abs(dz) <= 1;
}

/* The 7-point rows' values: off[axis][0] for the neighbour at -1 along
 * the axis, off[axis][1] at +1; NULL for the Laplacian's -1 and diag. */
typedef struct coeffs {
    double off[3][2];
    double diag;
} coeffs;

/* Append the row of point (x, y, z) to cols/vals; returns its length. */
static int stencil_row(const grid *g, ovk_stencil st, double diag, const coeffs *k, int64_t x, int64_t y, int64_t z,
                       ovk_gidx *cols, double *vals)
{
    int len = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int64_t a = x + dx, b = y + dy, c = z + dz;
                if (a < 0 || b < 0 || c < 0 || a >= g->gx || b >= g->gy || c >= g->gz) continue;
                if (!in_stencil(st, dx, dy, dz)) continue;
                cols[len] = global_id(g, a, b, c);
                int axis = dx ? 0 : dy ? 1 : 2, side = (dx | dy | dz) > 0;
                if (!(dx | dy | dz)) vals[len++] = k ? k->diag : diag;
                else vals[len++] = k ? k->off[axis][side] : -1.0;
            }
    return len;
}

static int check_args(MPI_Comm comm, ovk_stencil st, const grid *g)
{
    int size = 0;
    MPI_Comm_size(comm, &size);
    if (st != OVK_STENCIL_7 && st != OVK_STENCIL_27)
        return ovk__fail(OVK_EINVAL, "stencil must be 7 or 27, not %d", (int)st);
    if (g->nx < 1 || g->ny < 1 || g->nz < 1 || g->px < 1 || g->py < 1 || g->pz < 1)
        return ovk__fail(OVK_EINVAL, "grid sizes must be positive (n = %d %d %d, P = %d %d %d)", g->nx,
                         g->ny, g->nz, g->px, g->py, g->pz);
    if ((int64_t)g->px * g->py * g->pz != size)
        return ovk__fail(OVK_EPARTITION, "process grid %d x %d x %d does not match %d ranks", g->px,
                         g->py, g->pz, size);
    if ((int64_t)g->nx * g->ny * g->nz * 27 > INT_MAX)
        return ovk__fail(OVK_EINVAL, "box %d x %d x %d is too large for one rank", g->nx, g->ny, g->nz);
    return OVK_OK;
}

/* Pure Neumann: each row's diagonal the negated sum of its off-diagonal
 * values (row sums zero: the constants are the null space). */
static void neumann_rows(int n, const int *rowptr, const ovk_gidx *cols, double *vals, ovk_gidx row0)
{
    for (int i = 0; i < n; i++) {
        double off = 0.0;
        int d = -1;
        for (int p = rowptr[i]; p < rowptr[i + 1]; p++) {
            if (cols[p] == row0 + i) d = p;
            else off += vals[p];
        }
        if (d >= 0) vals[d] = -off;
    }
}

/* Collective: the rows of this rank's box with the Laplacian's values
 * (k NULL) or k's, after the arguments are agreed. */
static int create(MPI_Comm comm, ovk_stencil stencil, const grid *gp, const coeffs *k, int neumann, ovk_matrix **A)
{
    grid g = *gp;
    int rank = 0, rc;
    ovk_gidx *cols = NULL;
    double *vals = NULL;
    int *rowptr = NULL;
    MPI_Comm_rank(comm, &rank);
    int nx = g.nx, ny = g.ny, nz = g.nz, px = g.px, py = g.py;
    int n = nx * ny * nz, width = stencil == OVK_STENCIL_27 ? 27 : 7;
    rowptr = malloc(sizeof(int) * ((size_t)n + 1));
    cols = malloc(sizeof(ovk_gidx) * (size_t)n * width);
    vals = malloc(sizeof(double) * (size_t)n * width);
    rc = (rowptr && cols && vals) ? OVK_OK : ovk__fail(OVK_ENOMEM, "grid operator rows");
    rc = ovk__agree(comm, rc);
    if (rc) goto cleanup;
    int64_t x0 = (int64_t)(rank % px) * nx, y0 = (int64_t)((rank / px) % py) * ny,
            z0 = (int64_t)(rank / (px * py)) * nz;
    double diag = diagonal_value(&g, stencil);
    rowptr[0] = 0;
    for (int kz = 0, row = 0; kz < nz; kz++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++, row++)
                rowptr[row + 1] = rowptr[row] + stencil_row(&g, stencil, diag, k, x0 + i, y0 + j, z0 + kz,
                                                            cols + rowptr[row], vals + rowptr[row]);
    if (neumann) neumann_rows(n, rowptr, cols, vals, (ovk_gidx)rank * n);
    rc = ovk_matrix_create_csr(comm, (ovk_gidx)rank * n, n, rowptr, cols, vals, OVK_DUP_REJECT, A);
cleanup:
    free(rowptr);
    free(cols);
    free(vals);
    return rc;
}

/* the Laplacian with Dirichlet or (neumann) pure Neumann boundaries; fn
 * names the caller in failures */
static int laplace(const char *fn, MPI_Comm comm, ovk_stencil stencil, const int n[3], const int p[3], int neumann,
                   ovk_matrix **A)
{
    grid g = {n[0], n[1], n[2], p[0], p[1], p[2], (int64_t)p[0] * n[0], (int64_t)p[1] * n[1], (int64_t)p[2] * n[2]};
    if (comm == MPI_COMM_NULL) return ovk__fail(OVK_EINVAL, "%s: NULL communicator", fn);
    /* a NULL A on one rank is agreed with the other arguments */
    if (A) *A = NULL;
    int rc = A ? check_args(comm, stencil, &g) : ovk__fail(OVK_EINVAL, "%s: NULL matrix pointer", fn);
    rc = ovk__agree(comm, rc);
    if (rc) return rc;
    return create(comm, stencil, &g, NULL, neumann, A);
}

int ovk_laplace_create(MPI_Comm comm, ovk_stencil stencil, int nx, int ny, int nz, int px, int py,
                       int pz, ovk_matrix **A)
{
    return laplace("ovk_laplace_create", comm, stencil, (const int[]){nx, ny, nz}, (const int[]){px, py, pz}, 0, A);
}

int ovk_laplace_create_neumann(MPI_Comm comm, ovk_stencil stencil, int nx, int ny, int nz, int px, int py, int pz,
                               ovk_matrix **A)
{
    return laplace("ovk_laplace_create_neumann", comm, stencil, (const int[]){nx, ny, nz}, (const int[]){px, py, pz},
                   1, A);
}

/* The convection-diffusion values, scaled by h^2 of the finest axis (a
 * cube's diffusion part is the 7-point Laplacian's 6, -1): per axis d with
 * mesh width h_d = 1 / (g_d + 1), diffusion 1 / h_d^2 on (-1, 2, -1) and
 * convection Pe v_d / h_d, central (-1/2, 0, 1/2) or upwind (from the side
 * the flow comes from).  A flat axis (one point) has no terms. */
static coeffs convdiff_coeffs(const grid *g, const double *vel, double peclet, ovk_convdiff_scheme scheme)
{
    coeffs k = {{{0}}, 0.0};
    int64_t n[3] = {g->gx, g->gy, g->gz};
    double hmin = 1.0;
    for (int d = 0; d < 3; d++)
        if (n[d] > 1 && 1.0 / (double)(n[d] + 1) < hmin) hmin = 1.0 / (double)(n[d] + 1);
    for (int d = 0; d < 3; d++) {
        if (n[d] == 1) continue;
        double h = 1.0 / (double)(n[d] + 1), dif = hmin * hmin / (h * h), conv = hmin * hmin * peclet * vel[d] / h;
        k.diag += 2.0 * dif;
        if (scheme == OVK_CONVDIFF_CENTRAL) {
            k.off[d][0] = -dif - 0.5 * conv;
            k.off[d][1] = -dif + 0.5 * conv;
        } else {
            k.off[d][0] = -dif - (conv > 0.0 ? conv : 0.0);
            k.off[d][1] = -dif + (conv < 0.0 ? conv : 0.0);
            k.diag += fabs(conv);
        }
    }
    return k;
}

static int check_flow(const double *vel, double peclet, ovk_convdiff_scheme scheme)
{
    if (!vel) return ovk__fail(OVK_EINVAL, "ovk_convdiff_create: NULL velocity");
    for (int d = 0; d < 3; d++)
        if (!isfinite(vel[d])) return ovk__fail(OVK_EINVAL, "ovk_convdiff_create: velocity[%d] = %g", d, vel[d]);
    if (!isfinite(peclet) || peclet < 0.0)
        return ovk__fail(OVK_EINVAL, "ovk_convdiff_create: Peclet number %g must be finite and >= 0", peclet);
    if (scheme != OVK_CONVDIFF_UPWIND && scheme != OVK_CONVDIFF_CENTRAL)
        return ovk__fail(OVK_EINVAL, "ovk_convdiff_create: scheme %d is neither upwind nor central", (int)scheme);
    return OVK_OK;
}

int ovk_convdiff_create(MPI_Comm comm, int nx, int ny, int nz, int px, int py, int pz, const double velocity[3],
                        double peclet, ovk_convdiff_scheme scheme, ovk_matrix **A)
{
    grid g = {nx, ny, nz, px, py, pz, (int64_t)px * nx, (int64_t)py * ny, (int64_t)pz * nz};
    if (comm == MPI_COMM_NULL) return ovk__fail(OVK_EINVAL, "ovk_convdiff_create: NULL communicator");
    if (A) *A = NULL;
    int rc = A ? check_args(comm, OVK_STENCIL_7, &g) : ovk__fail(OVK_EINVAL, "ovk_convdiff_create: NULL matrix pointer");
    if (!rc) rc = check_flow(velocity, peclet, scheme);
    rc = ovk__agree(comm, rc);
    if (rc) return rc;
    coeffs k = convdiff_coeffs(&g, velocity, peclet, scheme);
    return create(comm, OVK_STENCIL_7, &g, &k, 0, A);
}
