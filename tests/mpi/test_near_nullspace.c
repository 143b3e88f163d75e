/* ovk_solver_set_near_nullspace: its argument checks (k out of range, a
 * NULL vector, a NaN: local; counts that differ across the ranks: at
 * setup, on every rank), and with amg (bs = 3) on three interleaved
 * Laplacians whose near-null space is given as the six rigid-body modes:
 * the translations dropped, the three rotations used (the view), the same
 * iterations within one as the rotations amg makes from the coordinates;
 * translations alone give no modes.  Self-checking at 1-4 ranks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

enum { G = 4 }; /* nodes per direction, 3 unknowns each */

static int g_rank, g_size;

/* Three Laplacians (7-point, diagonal 6.5) interleaved by node, whole
 * nodes per rank; *node0, *nnodes: the rank's nodes. */
static int build(ovk_matrix **A, int *node0, int *nnodes)
{
    int nn = G * G * G, lo = (int)((long)nn * g_rank / g_size), hi = (int)((long)nn * (g_rank + 1) / g_size), k = 0;
    int n = 3 * (hi - lo), *ptr = malloc(sizeof(int) * (size_t)(n + 1));
    ovk_gidx *cols = malloc(sizeof(ovk_gidx) * (size_t)(7 * n + 1));
    double *vals = malloc(sizeof(double) * (size_t)(7 * n + 1));
    ptr[0] = 0;
    for (int node = lo; node < hi; node++)
        for (int c = 0; c < 3; c++) {
            int g[3] = {node % G, (node / G) % G, node / (G * G)}, stride[3] = {1, G, G * G};
            for (int d = 0; d < 3; d++)
                for (int s = -1; s <= 1; s += 2)
                    if (g[d] + s >= 0 && g[d] + s < G) cols[k] = 3 * (node + s * stride[d]) + c, vals[k++] = -1.0;
            cols[k] = 3 * node + c, vals[k++] = 6.5;
            ptr[3 * (node - lo) + c + 1] = k;
        }
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, 3 * (ovk_gidx)lo, n, ptr, cols, vals, OVK_DUP_REJECT, A);
    free(ptr), free(cols), free(vals);
    *node0 = lo, *nnodes = hi - lo;
    return rc;
}

/* The rank's node coordinates, and the six rigid-body modes of them
 * (translations x, y, z, then the rotations) as MatNullSpaceCreateRigidBody. */
static void modes(int node0, int nnodes, double *xyz, double *m)
{
    int n = 3 * nnodes;
    for (int i = 0; i < nnodes; i++) {
        int node = node0 + i;
        double p[3] = {node % G, (node / G) % G, node / (G * G)};
        double v[6][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-p[1], p[0], 0}, {0, -p[2], p[1]}, {p[2], 0, -p[0]}};
        for (int d = 0; d < 3; d++) xyz[3 * i + d] = p[d];
        for (int j = 0; j < 6; j++)
            for (int d = 0; d < 3; d++) m[(size_t)j * n + 3 * i + d] = v[j][d];
    }
}

static void bad_input(const ovk_matrix *A, const double *const *vec)
{
    ovk_solver *s = NULL;
    int n = ovk_matrix_nlocal(A);
    double *nan = malloc(sizeof(double) * (size_t)n);
    const double *one[1] = {nan}, *none[1] = {NULL};
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_EINVAL, ovk_solver_set_near_nullspace(s, -1, vec));
    MT_RC(OVK_EINVAL, ovk_solver_set_near_nullspace(s, 33, vec));
    MT_RC(OVK_EINVAL, ovk_solver_set_near_nullspace(s, 1, none));
    memcpy(nan, vec[3], sizeof(double) * (size_t)n);
    if (g_rank == g_size - 1) nan[n - 1] = NAN;
    int rc = ovk_solver_set_near_nullspace(s, 1, one);
    MT_CHECK(rc == (g_rank == g_size - 1 ? OVK_ENONFINITE : OVK_OK), "a NaN: %s", ovk_status_name(rc));
    /* counts that differ: rank 0 one vector, the others none */
    MT_RC(OVK_OK, ovk_solver_set_near_nullspace(s, g_rank == 0 ? 1 : 0, vec));
    rc = ovk_solver_setup(s);
    if (g_size > 1)
        MT_CHECK(rc == OVK_EOPTION && strstr(ovk_error_detail(), "near-null space"), "counts that differ: %s (%s)",
                 ovk_status_name(rc), ovk_error_detail());
    ovk_solver_destroy(&s);
    free(nan);
}

#ifdef OVK_HAVE_HYPRE
/* Solve with amg:bs=3 and the near-null space (k vectors) or the
 * coordinates (k < 0); its iterations, and the amg line of the view on rank 0. */
static int solve(const ovk_matrix *A, int k, const double *const *vec, int nnodes, const double *xyz, char *view, size_t len)
{
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "amg:bs=3"));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-8, 0.0, 500));
    if (k >= 0) MT_RC(OVK_OK, ovk_solver_set_near_nullspace(s, k, vec));
    else MT_RC(OVK_OK, ovk_solver_set_coordinates(s, 3, nnodes, xyz));
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    mt_random_b(A, b);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    FILE *f = tmpfile();
    char line[1024];
    view[0] = '\0';
    if (g_rank == 0 && f) {
        ovk_solver_view(s, f);
        rewind(f);
        while (fgets(line, sizeof line, f))
            if (strstr(line, "rigid-body modes")) snprintf(view, len, "%s", line);
    }
    if (f) fclose(f);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_solver_destroy(&s);
    return res.iterations;
}

static void modes_used(const ovk_matrix *A, const double *const *vec, int nnodes, const double *xyz)
{
    char v6[1024], v3[1024], vc[1024];
    int its6 = solve(A, 6, vec, nnodes, xyz, v6, sizeof v6), its3 = solve(A, 3, vec, nnodes, xyz, v3, sizeof v3);
    int itsc = solve(A, -1, vec, nnodes, xyz, vc, sizeof vc);
    if (g_rank == 0) {
        MT_CHECK(strstr(v6, "rigid-body modes: 3 (the near-null space's)"), "six modes: view '%s'", v6);
        MT_CHECK(strstr(v3, "rigid-body modes: 0"), "translations only: view '%s'", v3);
        MT_CHECK(strstr(vc, "rigid-body modes: 3 (rotations)"), "coordinates: view '%s'", vc);
        printf("amg:bs=3: %d iterations with the six modes as vectors, %d with the translations, %d with coordinates\n", its6,
               its3, itsc);
    }
    MT_CHECK(abs(its6 - itsc) <= 1, "the modes as vectors %d iterations, from coordinates %d", its6, itsc);
}
#endif

int main(int argc, char **argv)
{
    ovk_matrix *A = NULL;
    int node0, nnodes;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    MT_RC(OVK_OK, build(&A, &node0, &nnodes));
    double *xyz = malloc(sizeof(double) * (size_t)(3 * nnodes + 1)), *m = malloc(sizeof(double) * (size_t)(18 * nnodes + 1));
    const double *vec[6];
    modes(node0, nnodes, xyz, m);
    for (int j = 0; j < 6; j++) vec[j] = m + (size_t)j * 3 * nnodes;
    bad_input(A, vec);
#ifdef OVK_HAVE_HYPRE
    modes_used(A, vec, nnodes, xyz);
#endif
    free(xyz), free(m);
    ovk_matrix_destroy(A);
    int rc = mt_finish("test_near_nullspace");
    MPI_Finalize();
    return rc;
}
