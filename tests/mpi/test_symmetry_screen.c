/* The symmetry check's sample, its screen (src/matrix/symmetry.c) and the
 * entry-by-entry check behind them, on the 1-D Laplacian (48 rows a rank,
 * every twelfth sampled; rank 1 without rows at 3 ranks or more), each case
 * times 1, 2^-990 and 2^+990:
 *   - symmetric, and every upper entry raised by 2^-52 of itself (assembly
 *     rounding): set up;
 *   - a_ij and a_ji apart by 2 and by 0.5 times the tolerance, 2^-40
 *     sqrt(m_i m_j), on the entry between rank 0's last row and the next
 *     rank's first (a halo column at 2 ranks and more), on an entry of a
 *     sampled row inside rank 0 and on one of two rows the sample skips: 2
 *     refused with OVK_ENOTSYM on every rank naming that pair, 0.5 set up.
 * At scale 1 each case also with auto, whose check stops at the first
 * mismatch: it chooses a nonsymmetric method (gmres, pgmres, sgmres) on
 * every rank exactly where alg1 is refused.
 * Exit 0 = PASS, 1 = FAIL. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

static int rank, nranks;

enum { N = 48 };

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

/* auto on the same matrix: a choice for nonsymmetric values exactly when
 * expect is OVK_ENOTSYM, the same on every rank */
static void with_auto(const char *what, ovk_matrix *A, int expect)
{
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    MT_RC(OVK_OK, ovk_vector_set(b, 1.0));
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "auto"));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-8, 0.0, 20)); /* the choice is the point, not the digits */
    int rc = ovk_solver_solve(s, b, x, &res);
    MT_CHECK(rc == OVK_OK || rc == OVK_EMAXIT, "auto, %s: %s (%s)", what, ovk_status_name(rc), ovk_error_detail());
    long long nonsym = !strcmp(res.auto_choice, "gmres") || !strncmp(res.auto_choice, "pgmres", 6) ||
                       !strncmp(res.auto_choice, "sgmres", 6);
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &nonsym, 1), "auto, %s: the ranks decided differently", what);
    MT_CHECK(nonsym == (expect == OVK_ENOTSYM), "auto, %s: chose %s", what, res.auto_choice);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
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
    if (scale == 1.0) with_auto(what, A, expect);
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    /* m_i = 2 s: the tolerance 2^-40 * 2 s, a_{p,p+1} off by bump * s */
    const double scales[] = {1.0, 0x1p-990, 0x1p+990}, two = 4 * 0x1p-40, half = 0x1p-40;
    /* rank 0's last row (at one rank: inside); a sampled row; a pair of rows the sample skips */
    const int64_t edge = nranks > 1 ? N - 1 : 6, inside = 12, skipped = 4;
    for (int k = 0; k < 3; k++) {
        double sc = scales[k];
        one("symmetric", edge, 0.0, 0.0, sc, OVK_OK);
        one("upper entries raised by 2^-52", edge, 0.0, 0x1p-52, sc, OVK_OK);
        one("halo entry off by 2 tolerances", edge, two, 0.0, sc, OVK_ENOTSYM);
        one("halo entry off by 0.5 tolerance", edge, half, 0.0, sc, OVK_OK);
        one("inner entry off by 2 tolerances", inside, two, 0.0, sc, OVK_ENOTSYM);
        one("inner entry off by 0.5 tolerance", inside, half, 0.0, sc, OVK_OK);
        one("unsampled entry off by 2 tolerances", skipped, two, 0.0, sc, OVK_ENOTSYM);
        one("unsampled entry off by 0.5 tolerance", skipped, half, 0.0, sc, OVK_OK);
    }
    int rc = mt_finish("test_symmetry_screen");
    MPI_Finalize();
    return rc;
}
