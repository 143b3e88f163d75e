/* The symmetry check's screen (src/matrix/symmetry.c) and the entry-by-entry
 * check behind it, on the 1-D Laplacian (10 rows a rank; rank 1 without rows
 * at 3 ranks or more), each case times 1, 2^-990 and 2^+990:
 *   - symmetric, and every upper entry raised by 2^-52 of itself (assembly
 *     rounding): set up;
 *   - a_ij and a_ji apart by 2 and by 0.5 times the tolerance, 2^-40
 *     sqrt(m_i m_j), on the entry between rank 0's last row and the next
 *     rank's first (a halo column at 2 ranks and more) and on an entry inside
 *     rank 0: 2 refused with OVK_ENOTSYM on every rank naming that pair, 0.5
 *     set up.
 * Exit 0 = PASS, 1 = FAIL. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

static int rank, nranks;

enum { N = 10 };

static int rows_of(int r) { return nranks >= 3 && r == 1 ? 0 : N; }

/* a_{p,p+1} = -(1 + bump); every upper entry times (1 + up); all times scale */
static int make(int64_t p, double bump, double up, double scale, ovk_matrix **A)
{
    int64_t start = 0, n = 0;
    for (int r = 0; r < nranks; r++) n += rows_of(r);
    for (int r = 0; r < rank; r++) start += rows_of(r);
    int nl = rows_of(rank), ptr[N + 1], k = 0;
    ovk_gidx cols[3 * N];
    double vals[3 * N];
    for (int i = 0; i < nl; i++) {
        int64_t g = start + i;
        ptr[i] = k;
        if (g > 0) cols[k] = g - 1, vals[k++] = -scale;
        cols[k] = g, vals[k++] = 2.0 * scale;
        if (g + 1 < n) cols[k] = g + 1, vals[k++] = -scale * (1.0 + up) * (g == p ? 1.0 + bump : 1.0);
    }
    ptr[nl] = k;
    return ovk_matrix_create_csr(MPI_COMM_WORLD, start, nl, ptr, cols, vals, OVK_DUP_REJECT, A);
}

static void one(const char *what, int64_t p, double bump, double up, double scale, int expect)
{
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, make(p, bump, up, scale, &A));
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "alg1"));
    int rc = ovk_solver_setup(s);
    MT_CHECK(rc == expect, "%s, scale %g: %s, expected %s (%s)", what, scale, ovk_status_name(rc),
             ovk_status_name(expect), ovk_error_detail());
    if (rc == OVK_ENOTSYM) {
        char pair[64];
        snprintf(pair, sizeof pair, "A(%lld,%lld)", (long long)p, (long long)p + 1);
        const char *d = ovk_error_detail();
        MT_CHECK(strstr(d, pair) != NULL, "%s: the detail does not name %s: %s", what, pair, d);
    }
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    /* m_i = 2 s: the tolerance 2^-40 * 2 s, a_{p,p+1} off by bump * s */
    const double scales[] = {1.0, 0x1p-990, 0x1p+990}, two = 4 * 0x1p-40, half = 0x1p-40;
    const int64_t edge = nranks > 1 ? N - 1 : 6, inside = 3; /* rank 0's last row (at one rank: inside); inside */
    for (int k = 0; k < 3; k++) {
        double sc = scales[k];
        one("symmetric", edge, 0.0, 0.0, sc, OVK_OK);
        one("upper entries raised by 2^-52", edge, 0.0, 0x1p-52, sc, OVK_OK);
        one("halo entry off by 2 tolerances", edge, two, 0.0, sc, OVK_ENOTSYM);
        one("halo entry off by 0.5 tolerance", edge, half, 0.0, sc, OVK_OK);
        one("inner entry off by 2 tolerances", inside, two, 0.0, sc, OVK_ENOTSYM);
        one("inner entry off by 0.5 tolerance", inside, half, 0.0, sc, OVK_OK);
    }
    int rc = mt_finish("test_symmetry_screen");
    MPI_Finalize();
    return rc;
}
