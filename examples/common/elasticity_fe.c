/* P1 linear elasticity on a box of tetrahedra (elasticity_fe.h). */
#include "elasticity_fe.h"

#include <math.h>
#include <stdlib.h>

#include <mpi.h>

enum { SLOTS = 27 * OVK_FE_DOF }; /* a row's columns: 27 neighbour nodes x 3 */

long long ovk_fe_box_nodes(const ovk_fe_box *m)
{
    return (long long)(m->nx + 1 - m->first_free_plane) * (m->ny + 1) * (m->nz + 1);
}

void ovk_fe_box_init(ovk_fe_box *m, int nx, int ny, int nz, int floating, int rank, int size)
{
    int nmax = nx > ny ? nx : ny;
    nmax = nmax > nz ? nmax : nz;
    *m = (ovk_fe_box){nx, ny, nz, 1.0 / nmax, 0, 0, floating ? 0 : 1};
    long long nodes = ovk_fe_box_nodes(m);
    m->first = nodes * rank / size;
    m->count = nodes * (rank + 1) / size - m->first;
}

/* nodes per x line that carry unknowns */
static int line_nodes(const ovk_fe_box *m)
{
    return m->nx + 1 - m->first_free_plane;
}

/* free node id of grid point (i, j, k), i >= first_free_plane */
static long long node_id(const ovk_fe_box *m, int i, int j, int k)
{
    return (i - m->first_free_plane) + (long long)line_nodes(m) * (j + (long long)(m->ny + 1) * k);
}

static void node_ijk(const ovk_fe_box *m, long long id, int *i, int *j, int *k)
{
    *i = (int)(id % line_nodes(m)) + m->first_free_plane;
    id /= line_nodes(m);
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

/* add cell (ci, cj, ck)'s elements to the owned rows (dense slots per row)
 * and its volume to the owned nodes' weights */
static void add_cell(const ovk_fe_box *m, int ci, int cj, int ck, double *K, double *w)
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
            if (gi[a][0] < m->first_free_plane) continue; /* clamped: no row */
            long long row = node_id(m, gi[a][0], gi[a][1], gi[a][2]) - m->first;
            if (row < 0 || row >= m->count) continue;
            w[row] += vol / 4.0; /* the node's share of the volume */
            for (int b = 0; b < 4; b++) {
                if (gi[b][0] < m->first_free_plane) continue; /* clamped column: eliminated */
                int slot = (gi[b][0] - gi[a][0] + 1) + 3 * (gi[b][1] - gi[a][1] + 1) + 9 * (gi[b][2] - gi[a][2] + 1);
                for (int i = 0; i < OVK_FE_DOF; i++)
                    for (int j = 0; j < OVK_FE_DOF; j++)
                        K[((size_t)row * OVK_FE_DOF + i) * SLOTS + slot * OVK_FE_DOF + j] += stiffness(g, vol, a, i, b, j);
            }
        }
    }
}

/* CSR of the owned rows from the dense slots (zeros dropped) */
static int compress(const ovk_fe_box *m, const double *K, int **rowptr, ovk_gidx **cols, double **vals)
{
    size_t nrow = (size_t)m->count * OVK_FE_DOF, nz = 0;
    *rowptr = malloc(sizeof(int) * (nrow + 1));
    *cols = malloc(sizeof(ovk_gidx) * (nrow > 0 ? nrow : 1) * SLOTS);
    *vals = malloc(sizeof(double) * (nrow > 0 ? nrow : 1) * SLOTS);
    if (!*rowptr || !*cols || !*vals) return OVK_ENOMEM;
    for (size_t r = 0; r < nrow; r++) {
        int i, j, k;
        node_ijk(m, m->first + (long long)(r / OVK_FE_DOF), &i, &j, &k);
        (*rowptr)[r] = (int)nz;
        for (int s = 0; s < SLOTS; s++) {
            double v = K[r * SLOTS + s];
            if (v == 0.0) continue;
            int nb = s / OVK_FE_DOF, di = nb % 3 - 1, dj = nb / 3 % 3 - 1, dk = nb / 9 - 1;
            (*cols)[nz] = node_id(m, i + di, j + dj, k + dk) * OVK_FE_DOF + s % OVK_FE_DOF;
            (*vals)[nz++] = v;
        }
    }
    (*rowptr)[nrow] = (int)nz;
    return OVK_OK;
}

int ovk_fe_elasticity(const ovk_fe_box *m, ovk_matrix **A, double **weight, double **xyz)
{
    size_t nrow = (size_t)m->count * OVK_FE_DOF;
    double *K = calloc((nrow > 0 ? nrow : 1) * SLOTS, sizeof(double));
    int *rowptr = NULL, rc;
    ovk_gidx *cols = NULL;
    double *vals = NULL;
    double **f = weight;
    *f = calloc(m->count > 0 ? (size_t)m->count : 1, sizeof(double));
    *xyz = malloc(sizeof(double) * (size_t)(m->count > 0 ? m->count : 1) * OVK_FE_DOF);
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
        (*xyz)[n * OVK_FE_DOF] = i * m->h, (*xyz)[n * OVK_FE_DOF + 1] = j * m->h, (*xyz)[n * OVK_FE_DOF + 2] = k * m->h;
    }
    if (!rc) rc = compress(m, K, &rowptr, &cols, &vals);
    free(K);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!rc) rc = ovk_matrix_create_csr(MPI_COMM_WORLD, m->first * OVK_FE_DOF, (int)nrow, rowptr, cols, vals, OVK_DUP_SUM, A);
    free(rowptr), free(cols), free(vals);
    return rc;
}

