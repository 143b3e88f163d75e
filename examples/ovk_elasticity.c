/* ovk_elasticity: 3-D linear elasticity on a box of tetrahedra, solved with
 * PCG and algebraic multigrid (amg:bs=3, the rigid-body modes from the node
 * coordinates) -- an application example.
 *
 *   mpiexec -n 2 ovk_elasticity [-n NX NY NZ] [-solver S] [-backend B]
 *                               [-precond SPEC] [-rbm 0|1] [-solves K] [-tol T] [-floating]
 *
 * The box [0, NX] x [0, NY] x [0, NZ] / max(NX, NY, NZ) (cells of side h) is
 * cut into cubes of 6 tetrahedra each (Kuhn's triangulation: every cube the
 * same way, so the mesh is conforming) with P1 elements, E = 1, nu = 0.3; it
 * is clamped on the face x = 0 and loaded by its own weight (f = (0, 0, -1)).
 * With -floating it is not clamped: the stiffness matrix is singular, its
 * null space the six rigid-body modes, declared from the node coordinates
 * (ovk_solver_set_nullspace_rigid_body); the load's rigid-body part (the net
 * force and moment of the weight) is removed, the solution has none, and
 * `Null Space Inconsistency = R` (||Z^T b|| / ||b||) is printed.
 * Unknowns are interleaved by node (ux, uy, uz), nodes numbered x fastest;
 * each rank owns a contiguous range of nodes and assembles its own rows.
 *
 * Each of the K solves (same matrix, x0 = 0) prints its iteration count; the
 * last prints the driver lines `Iterations = N`, `Final Relative Residual
 * Norm = R`, `Solve Time = T s`, plus `Setup Time = T s` (amg's hierarchy).
 * Exit status 0 when every solve converged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ovkrylov/ovkrylov.h"

enum { DOF = 3, SLOTS = 27 * DOF }; /* a row's columns: 27 neighbour nodes x 3 */

typedef struct mesh {
    int nx, ny, nz; /* cells */
    double h;
    long long first, count; /* owned free nodes */
    int i0;                 /* the first free plane: 1 (x = 0 clamped) or 0 (-floating) */
} mesh;

typedef struct args {
    int n[3], rbm, solves, floating;
    const char *solver, *backend, *precond;
    double tol;
} args;

/* free node id of grid point (i, j, k), i >= i0 (i = 0 is clamped unless floating) */
static long long node_id(const mesh *m, int i, int j, int k)
{
    return (i - m->i0) + (long long)(m->nx + 1 - m->i0) * (j + (long long)(m->ny + 1) * k);
}

static void node_ijk(const mesh *m, long long id, int *i, int *j, int *k)
{
    *i = (int)(id % (m->nx + 1 - m->i0)) + m->i0;
    id /= m->nx + 1 - m->i0;
    *j = (int)(id % (m->ny + 1));
    *k = (int)(id / (m->ny + 1));
}

/* gradients of the 4 barycentric functions of the tetrahedron p[4][3] and its volume */
static double tet_gradients(const double p[4][3], double g[4][3])
{
    double J[3][3], inv[3][3];
    for (int a = 0; a < 3; a++)
        for (int d = 0; d < 3; d++) J[d][a] = p[a + 1][d] - p[0][d]; /* columns: edges from p0 */
    double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                 J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
            inv[r][c] = (J[r1][c1] * J[r2][c2] - J[r1][c2] * J[r2][c1]) / det; /* J^-1 by cofactors */
        }
    for (int a = 0; a < 3; a++) /* grad lambda_{a+1} = row a of J^-1 */
        for (int d = 0; d < 3; d++) g[a + 1][d] = inv[a][d];
    for (int d = 0; d < 3; d++) g[0][d] = -(g[1][d] + g[2][d] + g[3][d]);
    return fabs(det) / 6.0;
}

/* K[(a,i),(b,j)] = V (lambda d_i phi_a d_j phi_b + mu d_j phi_a d_i phi_b + mu delta_ij grad phi_a . grad phi_b) */
static double stiffness(const double g[4][3], double vol, int a, int i, int b, int j)
{
    const double E = 1.0, nu = 0.3;
    const double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    double dot = g[a][0] * g[b][0] + g[a][1] * g[b][1] + g[a][2] * g[b][2];
    return vol * (lambda * g[a][i] * g[b][j] + mu * g[a][j] * g[b][i] + (i == j ? mu * dot : 0.0));
}

/* the 6 tetrahedra of a cube: corners by bits (x 1, y 2, z 4), paths 0 -> 7 */
static const int kuhn[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};

/* add cell (ci, cj, ck)'s elements to the owned rows (dense slots per row) */
static void add_cell(const mesh *m, int ci, int cj, int ck, double *K, double *f)
{
    for (int t = 0; t < 6; t++) {
        double p[4][3], g[4][3];
        int gi[4][3];
        for (int a = 0; a < 4; a++) {
            int c = kuhn[t][a];
            gi[a][0] = ci + (c & 1), gi[a][1] = cj + (c >> 1 & 1), gi[a][2] = ck + (c >> 2 & 1);
            for (int d = 0; d < 3; d++) p[a][d] = gi[a][d] * m->h;
        }
        double vol = tet_gradients(p, g);
        for (int a = 0; a < 4; a++) {
            if (gi[a][0] < m->i0) continue; /* clamped: no row */
            long long row = node_id(m, gi[a][0], gi[a][1], gi[a][2]) - m->first;
            if (row < 0 || row >= m->count) continue;
            f[row * DOF + 2] -= vol / 4.0; /* own weight, f = (0, 0, -1) */
            for (int b = 0; b < 4; b++) {
                if (gi[b][0] < m->i0) continue; /* clamped column: eliminated */
                int slot = (gi[b][0] - gi[a][0] + 1) + 3 * (gi[b][1] - gi[a][1] + 1) + 9 * (gi[b][2] - gi[a][2] + 1);
                for (int i = 0; i < DOF; i++)
                    for (int j = 0; j < DOF; j++)
                        K[((size_t)row * DOF + i) * SLOTS + slot * DOF + j] += stiffness(g, vol, a, i, b, j);
            }
        }
    }
}

/* CSR of the owned rows from the dense slots (zeros dropped) */
static int compress(const mesh *m, const double *K, int **rowptr, ovk_gidx **cols, double **vals)
{
    size_t nrow = (size_t)m->count * DOF, nz = 0;
    *rowptr = malloc(sizeof(int) * (nrow + 1));
    *cols = malloc(sizeof(ovk_gidx) * (nrow > 0 ? nrow : 1) * SLOTS);
    *vals = malloc(sizeof(double) * (nrow > 0 ? nrow : 1) * SLOTS);
    if (!*rowptr || !*cols || !*vals) return OVK_ENOMEM;
    for (size_t r = 0; r < nrow; r++) {
        int i, j, k;
        node_ijk(m, m->first + (long long)(r / DOF), &i, &j, &k);
        (*rowptr)[r] = (int)nz;
        for (int s = 0; s < SLOTS; s++) {
            double v = K[r * SLOTS + s];
            if (v == 0.0) continue;
            int nb = s / DOF, di = nb % 3 - 1, dj = nb / 3 % 3 - 1, dk = nb / 9 - 1;
            (*cols)[nz] = node_id(m, i + di, j + dj, k + dk) * DOF + s % DOF;
            (*vals)[nz++] = v;
        }
    }
    (*rowptr)[nrow] = (int)nz;
    return OVK_OK;
}

/* Collective: the owned rows of the stiffness matrix, the load and the coordinates. */
static int assemble(const mesh *m, ovk_matrix **A, double **f, double **xyz)
{
    size_t nrow = (size_t)m->count * DOF;
    double *K = calloc((nrow > 0 ? nrow : 1) * SLOTS, sizeof(double));
    int *rowptr = NULL, rc;
    ovk_gidx *cols = NULL;
    double *vals = NULL;
    *f = calloc(nrow > 0 ? nrow : 1, sizeof(double));
    *xyz = malloc(sizeof(double) * (size_t)(m->count > 0 ? m->count : 1) * DOF);
    rc = (K && *f && *xyz) ? OVK_OK : OVK_ENOMEM;
    int k0 = 0, k1 = -1, i, j, k;
    if (!rc && m->count > 0) { /* cells touching the owned nodes: planes k0-1 .. k1 */
        node_ijk(m, m->first, &i, &j, &k0);
        node_ijk(m, m->first + m->count - 1, &i, &j, &k1);
    }
    for (int ck = k0 > 0 ? k0 - 1 : 0; !rc && ck <= k1 && ck < m->nz; ck++)
        for (int cj = 0; cj < m->ny; cj++)
            for (int ci = 0; ci < m->nx; ci++) add_cell(m, ci, cj, ck, K, *f);
    for (long long n = 0; !rc && n < m->count; n++) {
        node_ijk(m, m->first + n, &i, &j, &k);
        (*xyz)[n * DOF] = i * m->h, (*xyz)[n * DOF + 1] = j * m->h, (*xyz)[n * DOF + 2] = k * m->h;
    }
    if (!rc) rc = compress(m, K, &rowptr, &cols, &vals);
    free(K);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!rc) rc = ovk_matrix_create_csr(MPI_COMM_WORLD, m->first * DOF, (int)nrow, rowptr, cols, vals, OVK_DUP_SUM, A);
    free(rowptr), free(cols), free(vals);
    return rc;
}

static int parse(int argc, char **argv, args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i];
        int more = argc - i - 1, lib = ovk_options_skip(argc, argv, i);
        if (lib) i += lib - 1; /* -ovk_*: the library's options database */
        else if (!strcmp(f, "-n") && more >= 3) {
            for (int d = 0; d < 3; d++) a->n[d] = atoi(argv[++i]);
        } else if (!strcmp(f, "-solver") && more) a->solver = argv[++i];
        else if (!strcmp(f, "-backend") && more) a->backend = argv[++i];
        else if (!strcmp(f, "-precond") && more) a->precond = argv[++i];
        else if (!strcmp(f, "-rbm") && more) a->rbm = atoi(argv[++i]);
        else if (!strcmp(f, "-solves") && more) a->solves = atoi(argv[++i]);
        else if (!strcmp(f, "-tol") && more) a->tol = atof(argv[++i]);
        else if (!strcmp(f, "-floating")) a->floating = 1;
        else return -1;
    }
    return (a->n[0] >= 1 && a->n[1] >= 1 && a->n[2] >= 1 && a->solves >= 1 && a->tol > 0) ? 0 : -1;
}

/* Collective: set up once, solve K times. */
static int solve_all(const args *a, const mesh *m, ovk_matrix *A, const double *f, const double *xyz, int rank)
{
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    int rc = ovk_solver_create(A, &s);
    if (!rc) rc = ovk_vector_create(A, &b);
    if (!rc) rc = ovk_vector_create(A, &x);
    if (!rc) memcpy(ovk_vector_data(b), f, sizeof(double) * (size_t)m->count * DOF);
    if (!rc) rc = ovk_solver_set_option(s, "solver", a->solver);
    if (!rc && a->backend) rc = ovk_solver_set_option(s, "backend", a->backend);
    if (!rc) rc = ovk_solver_set_option(s, "precond", a->precond);
    if (!rc) rc = ovk_solver_set_tolerances(s, a->tol, 0.0, 5000);
    if (!rc && a->rbm) rc = ovk_solver_set_coordinates(s, DOF, (int)m->count, xyz);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!rc && a->floating) rc = ovk_solver_set_nullspace_rigid_body(s, DOF, (int)m->count, xyz); /* collective */
    if (!rc) rc = ovk_solver_set_from_options(s, NULL); /* -ovk_* override the flags */
    if (!rc) rc = ovk_solver_setup(s);
    if (!rc && rank == 0) printf("Setup Time = %f s\n", ovk_solver_setup_time(s));
    for (int k = 0; !rc && k < a->solves; k++) {
        rc = ovk_vector_set(x, 0.0);
        if (!rc) rc = ovk_solver_solve(s, b, x, &res);
        if (rank == 0 && res.reason != OVK_REASON_NONE)
            printf("solve %d: %d iterations, relative residual %.3e, %.4f s\n", k + 1, res.iterations,
                   res.rel_residual, res.time_max[OVK_TIMER_SOLVE]);
    }
    if (!rc && rank == 0)
        printf("Iterations = %d\nFinal Relative Residual Norm = %e\nSolve Time = %f s\n", res.iterations,
               res.rel_residual, res.time_max[OVK_TIMER_SOLVE]);
    if (!rc && rank == 0 && a->floating) printf("Null Space Inconsistency = %e\n", res.nullspace_inconsistency);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    int rc2 = ovk_solver_destroy(&s);
    return rc ? rc : rc2;
}

int main(int argc, char **argv)
{
    args a = {{16, 8, 8}, 1, 1, 0, "alg1", NULL, "amg:bs=3", 1e-8};
    int rank, size, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ovk_options_set_args(argc, argv);
    if (parse(argc, argv, &a)) {
        if (rank == 0)
            fprintf(stderr, "usage: ovk_elasticity [-n NX NY NZ] [-solver S] [-backend B] [-precond SPEC] "
                            "[-rbm 0|1] [-solves K] [-tol T] [-floating] [-ovk_KEY VALUE ...]\n");
        MPI_Finalize();
        return 2;
    }
    int nmax = a.n[0] > a.n[1] ? a.n[0] : a.n[1];
    nmax = nmax > a.n[2] ? nmax : a.n[2];
    mesh m = {a.n[0], a.n[1], a.n[2], 1.0 / nmax, 0, 0, a.floating ? 0 : 1};
    long long nodes = (long long)(m.nx + 1 - m.i0) * (m.ny + 1) * (m.nz + 1);
    m.first = nodes * rank / size;
    m.count = nodes * (rank + 1) / size - m.first;
    if (rank == 0)
        printf("Elasticity: %d x %d x %d cells, %lld nodes, %lld unknowns, %d ranks\n", m.nx, m.ny, m.nz, nodes,
               nodes * DOF, size);
    ovk_matrix *A = NULL;
    double *f = NULL, *xyz = NULL;
    rc = assemble(&m, &A, &f, &xyz);
    if (!rc) rc = solve_all(&a, &m, A, f, xyz, rank);
    if (rc && rank == 0) fprintf(stderr, "ovkrylov error: %s: %s\n", ovk_strerror(rc), ovk_error_detail());
    ovk_matrix_destroy(A);
    free(f), free(xyz);
    ovk_options_finalize();
    MPI_Finalize();
    return rc ? 1 : 0;
}
