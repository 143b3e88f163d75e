/* amg's hypre side (setup=boomeramg, cycle=hypre): hypre's copy of the
 * matrix (straight from our diag and offd blocks, which have its shape: no
 * IJ assembly; on amg's duplicate of the solver's communicator, so that
 * hypre's messages never meet ours), BoomerAMG's settings and setup, the
 * rigid-body modes as hypre vectors for its interpolation, its one-cycle
 * solve (cycle=hypre), its hierarchy as our cycle's table
 * (amg_levels_hypre.c), and a value update's Galerkin products on its kept
 * interpolations.  amg.c's opening comment has the method.  Built only
 * when CMake finds hypre with 64-bit global indices (libhypre64m-dev) on
 * the same MPI as the library. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <_hypre_parcsr_ls.h>
#include <_hypre_parcsr_mv.h>

#include "amg.h"
#include "amg_levels.h"

_Static_assert(sizeof(HYPRE_BigInt) == sizeof(ovk_gidx), "hypre's global indices must be 64-bit (libhypre64m)");
_Static_assert(sizeof(HYPRE_Real) == sizeof(double), "hypre must be built in double precision");
_Static_assert(sizeof(HYPRE_Int) == sizeof(int), "hypre's local indices must be int");

/* hypre's numbers for its choices (HYPRE_parcsr_ls.h) */
enum { HY_JACOBI = 0 }; /* hypre's smoother when ours runs the cycle: nothing to set up */
enum { HY_CLJP = 0, HY_FALGOUT = 6, HY_PMIS = 8, HY_HMIS = 10 };
enum { HY_CLASSICAL = 0, HY_DIRECT = 3, HY_MULTIPASS = 4, HY_EXT_I = 6, HY_EXT = 14 };
enum {
    HY_HYBRID_SGS = 6, HY_GAUSS_ELIM = 9, HY_L1_GS_FWD = 13, HY_L1_GS_BWD = 14, HY_CHEBY = 16, HY_L1_JACOBI = 18
};
enum { HY_DOWN = 1, HY_UP = 2, HY_COARSEST = 3 };
enum { HY_GM2 = 2 };   /* interpolation variant for the rigid-body modes */
enum { HY_ERROR_CONV = 256 }; /* "did not converge": expected of one cycle */

/* in the order of amg.c's coarsen_names, interp_names and smoother_names */
static const int coarsen_types[] = {HY_HMIS, HY_PMIS, HY_FALGOUT, HY_CLJP};
static const int interp_types[] = {HY_EXT_I, HY_EXT, HY_CLASSICAL, HY_DIRECT, HY_MULTIPASS};
static const int relax_down[] = {HY_L1_GS_FWD, HY_HYBRID_SGS, HY_L1_JACOBI, HY_CHEBY};
static const int relax_up[] = {HY_L1_GS_BWD, HY_HYBRID_SGS, HY_L1_JACOBI, HY_CHEBY};

/* OVK_OK, or OVK_EPRECOND naming the hypre call and hypre's description
 * (hypre keeps a global error flag: cleared here). */
int ovk__amg_hy(int herr, const char *call)
{
    herr &= ~HY_ERROR_CONV;
    if (!herr) {
        HYPRE_ClearAllErrors();
        return OVK_OK;
    }
    char what[512] = "";
    HYPRE_DescribeError(herr, what);
    HYPRE_ClearAllErrors();
    return ovk__fail(OVK_EPRECOND, "amg: %s failed in hypre (error %d: %s)", call, (int)herr, what);
}

void ovk__amg_boomer_release(ovk__amg *m)
{
    if (m->solver) HYPRE_BoomerAMGDestroy(m->solver);
    if (m->A) hypre_ParCSRMatrixDestroy((hypre_ParCSRMatrix *)m->A);
    if (m->b) hypre_ParVectorDestroy((hypre_ParVector *)m->b);
    if (m->x) hypre_ParVectorDestroy((hypre_ParVector *)m->x);
    for (int k = 0; k < m->nmodes; k++)
        if (m->modes[k]) hypre_ParVectorDestroy((hypre_ParVector *)m->modes[k]);
    free(m->modes);
    m->solver = NULL;
    m->A = NULL;
    m->b = m->x = NULL;
    m->modes = NULL;
    m->nmodes = 0;
    m->from_vectors = 0;
}

/* ---- the matrix and vectors in hypre's form --------------------------- */

/* Local: fill the rank's diag and offd blocks of P (made by
 * hypre_ParCSRMatrixCreate with A's sizes and initialized) from A's: the
 * offd block and its sorted column map are ParCSR's shape already; the
 * diag block is expanded to both triangles, a_ii first (hypre's
 * smoothers read the diagonal there). */
static int fill_blocks(const ovk_matrix *A, hypre_ParCSRMatrix *P)
{
    hypre_CSRMatrix *d = hypre_ParCSRMatrixDiag(P), *o = hypre_ParCSRMatrixOffd(P);
    int n = A->lay.nlocal, rc = ovk__matrix_diag_ptr(A, hypre_CSRMatrixI(d));
    if (rc) return rc;
    rc = ovk__matrix_diag_fill(A, hypre_CSRMatrixI(d), hypre_CSRMatrixJ(d), hypre_CSRMatrixData(d));
    if (rc) return rc;
    const ovk__csr *ao = &A->offd;
    int64_t no = n > 0 ? ao->rowptr[n] : 0;
    memcpy(hypre_CSRMatrixI(o), ao->rowptr, sizeof(int) * ((size_t)n + 1));
    if (no > 0) {
        memcpy(hypre_CSRMatrixJ(o), ao->col, sizeof(int) * (size_t)no);
        memcpy(hypre_CSRMatrixData(o), ao->val, sizeof(double) * (size_t)no);
    }
    if (A->ncols_offd > 0)
        memcpy(hypre_ParCSRMatrixColMapOffd(P), A->col_map, sizeof(ovk_gidx) * (size_t)A->ncols_offd);
    return OVK_OK;
}

/* Local: the number of entries of A's diag block in both triangles */
static int diag_entries(const ovk_matrix *A, int *nnz)
{
    int n = A->lay.nlocal;
    int *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    if (!ptr) return ovk__fail(OVK_ENOMEM, "amg: row counts of %d rows", n);
    int rc = ovk__matrix_diag_ptr(A, ptr);
    *nnz = rc ? 0 : ptr[n];
    free(ptr);
    return rc;
}

/* Local: hypre's ParCSR P of A's sizes (nd entries in the diag block),
 * allocated and filled from A's blocks (the caller agrees). */
static int make_parcsr(ovk__amg *m, const ovk_matrix *A, int nd)
{
    int n = A->lay.nlocal, no = n > 0 ? A->offd.rowptr[n] : 0;
    HYPRE_BigInt starts[2] = {A->lay.row_start, A->lay.row_start + n};
    hypre_ParCSRMatrix *P = hypre_ParCSRMatrixCreate(m->comm, A->lay.nglobal, A->lay.nglobal, starts, starts,
                                                     A->ncols_offd, nd, no);
    m->A = (HYPRE_ParCSRMatrix)P;
    if (!P) return ovk__fail(OVK_ENOMEM, "amg: hypre_ParCSRMatrixCreate");
    int rc = ovk__amg_hy(hypre_ParCSRMatrixInitialize(P), "hypre_ParCSRMatrixInitialize");
    if (rc) return rc;
    return fill_blocks(A, P);
}

/* Local: hypre's copy's two blocks as the scaling's pair */
static void blocks_of(ovk__amg *m, double *v[2], int nnz[2])
{
    hypre_ParCSRMatrix *P = (hypre_ParCSRMatrix *)m->A;
    hypre_CSRMatrix *blk[2] = {hypre_ParCSRMatrixDiag(P), hypre_ParCSRMatrixOffd(P)};
    for (int b = 0; b < 2; b++)
        v[b] = hypre_CSRMatrixData(blk[b]), nnz[b] = hypre_CSRMatrixI(blk[b])[hypre_CSRMatrixNumRows(blk[b])];
}

/* Collective: hypre's ParCSR of A's current values, built from A's blocks
 * without hypre's IJ assembly, at unit scale. */
static int build_matrix(ovk__amg *m, const ovk_matrix *A)
{
    int nd = 0;
    int rc = ovk__agree(m->comm, diag_entries(A, &nd));
    if (rc) return rc;
    rc = ovk__agree(m->comm, make_parcsr(m, A, nd));
    if (rc) return rc;
    double *v[2];
    int nnz[2];
    blocks_of(m, v, nnz);
    rc = ovk__agree(m->comm, ovk__amg_unit_scale(m->comm, v, nnz, &m->scale_exp));
    if (rc) return rc;
    hypre_ParCSRMatrix *P = (hypre_ParCSRMatrix *)m->A;
    rc = ovk__agree(m->comm, ovk__amg_hy(hypre_ParCSRMatrixSetNumNonzeros(P), "hypre_ParCSRMatrixSetNumNonzeros"));
    if (rc) return rc;
    return ovk__agree(m->comm, ovk__amg_hy(hypre_MatvecCommPkgCreate(P), "hypre_MatvecCommPkgCreate"));
}

/* Collective: a zero vector of the rank's rows [lo, hi]. */
static int make_vector(ovk__amg *m, HYPRE_BigInt lo, HYPRE_BigInt hi, HYPRE_BigInt N, void **v)
{
    HYPRE_BigInt part[2] = {lo, hi + 1};
    hypre_ParVector *p = hypre_ParVectorCreate(m->comm, N, part);
    *v = p;
    if (!p) return ovk__fail(OVK_ENOMEM, "amg: hypre_ParVectorCreate");
    return ovk__amg_hy(hypre_ParVectorInitialize(p), "hypre_ParVectorInitialize");
}

/* ---- the rigid-body modes as hypre vectors ---------------------------- */

/* Collective: the centroid c of the nodes, and room for `want` modes. */
static int prepare_modes(ovk__amg *m, const ovk__pc_env *env, int want, double *c)
{
    int rc = ovk__amg_centroid(m, env, c);
    if (rc) return rc;
    m->modes = calloc((size_t)want, sizeof *m->modes);
    if (!m->modes) return ovk__fail(OVK_ENOMEM, "amg: modes");
    return OVK_OK;
}

/* Collective: the near-null space's vectors as modes, each less its mean
 * in each of the bs unknowns of a node (the translations, which nodal
 * coarsening carries: the rank owns whole nodes, check_blocks); a vector
 * left with less than 1e-6 of its norm (a translation) is dropped. */
static int modes_from_vectors(ovk__amg *m, const ovk__pc_env *env, HYPRE_BigInt lo, HYPRE_BigInt hi)
{
    enum { KMAX = 32, BSMAX = 16 };
    int bs = (int)m->o.bs, k = env->nns_k, n = env->n, keep[KMAX], kept = 0;
    double acc[KMAX * BSMAX + KMAX] = {0.0}, after[KMAX] = {0.0}, nodes = (double)env->A->lay.nglobal / bs;
    double *before = acc + (size_t)k * bs;
    for (int j = 0; j < k; j++) /* sums by unknown and <v, v> */
        for (int i = 0; i < n; i++) {
            double v = env->nns[(size_t)j * n + i];
            acc[j * bs + i % bs] += v;
            before[j] += v * v;
        }
    if (MPI_Allreduce(MPI_IN_PLACE, acc, k * bs + k, MPI_DOUBLE, MPI_SUM, m->comm) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Allreduce (amg: the near-null space's means)");
    for (int j = 0; j < k; j++) /* the means by unknown */
        for (int f = 0; f < bs; f++) acc[j * bs + f] /= nodes;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < n; i++) {
            double v = env->nns[(size_t)j * n + i] - acc[j * bs + i % bs];
            after[j] += v * v;
        }
    if (MPI_Allreduce(MPI_IN_PLACE, after, k, MPI_DOUBLE, MPI_SUM, m->comm) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Allreduce (amg: the near-null space's norms)");
    for (int j = 0; j < k; j++)
        if (after[j] > 1e-12 * before[j]) keep[kept++] = j;
    if (!kept) return OVK_OK;
    m->from_vectors = 1;
    int rc = ovk__agree(m->comm, (m->modes = calloc((size_t)kept, sizeof *m->modes)) ? OVK_OK
                                                                                   : ovk__fail(OVK_ENOMEM, "amg: modes"));
    for (int q = 0; q < kept && !rc; q++) {
        m->nmodes++;
        rc = make_vector(m, lo, hi, env->A->lay.nglobal, &m->modes[q]);
        double *u = rc ? NULL : hypre_VectorData(hypre_ParVectorLocalVector((hypre_ParVector *)m->modes[q]));
        for (int i = 0; u && i < n; i++) u[i] = env->nns[(size_t)keep[q] * n + i] - acc[keep[q] * bs + i % bs];
    }
    return rc;
}

/* Collective: the rotations as hypre vectors, when coordinates are given,
 * or the near-null space's modes. */
static int build_modes(ovk__amg *m, const ovk__pc_env *env, HYPRE_BigInt lo, HYPRE_BigInt hi)
{
    int dim = env->coord_dim, bs = (int)m->o.bs, want = dim == 3 ? 3 : 1;
    if (!m->o.rbm || bs == 1 || m->o.setup == SETUP_AGG) return OVK_OK; /* agg: agg_nullspace */
    if (env->nns_k > 0) return modes_from_vectors(m, env, lo, hi);
    if (dim == 0) return OVK_OK;
    double c[3];
    int rc = ovk__agree(m->comm, prepare_modes(m, env, want, c));
    if (rc) return rc;
    for (int k = 0; k < want; k++) {
        m->nmodes++;
        rc = make_vector(m, lo, hi, env->A->lay.nglobal, &m->modes[k]);
        if (rc) return rc;
        double *u = hypre_VectorData(hypre_ParVectorLocalVector((hypre_ParVector *)m->modes[k])), p[3] = {0.0, 0.0, 0.0}, v[3];
        for (int node = 0; node < env->ncoords; node++) {
            for (int d = 0; d < dim; d++) p[d] = env->coords[(size_t)node * dim + d] - c[d];
            ovk__amg_rotation(k, p, v);
            for (int d = 0; d < bs; d++) u[(size_t)node * bs + d] = v[d];
        }
    }
    return OVK_OK;
}

/* ---- the settings and the setup -------------------------------------- */

/* One of hypre's settings that take an integer, made when `when` holds. */
typedef struct hy_setting {
    HYPRE_Int (*set)(HYPRE_Solver, HYPRE_Int);
    HYPRE_Int value;
    const char *call;
    int when;
} hy_setting;

/* the smoother of each part of the cycle, as such a setting */
static HYPRE_Int cycle_down(HYPRE_Solver s, HYPRE_Int t) { return HYPRE_BoomerAMGSetCycleRelaxType(s, t, HY_DOWN); }
static HYPRE_Int cycle_up(HYPRE_Solver s, HYPRE_Int t) { return HYPRE_BoomerAMGSetCycleRelaxType(s, t, HY_UP); }
static HYPRE_Int cycle_coarsest(HYPRE_Solver s, HYPRE_Int t)
{
    return HYPRE_BoomerAMGSetCycleRelaxType(s, t, HY_COARSEST);
}

/* The settings t[0..n) on s, in order. */
static int make_settings(HYPRE_Solver s, const hy_setting *t, int n)
{
    for (int i = 0; i < n; i++) {
        if (!t[i].when) continue;
        int rc = ovk__amg_hy(t[i].set(s, t[i].value), t[i].call);
        if (rc) return rc;
    }
    return OVK_OK;
}

/* hypre's settings from the options (local calls) */
static int configure(ovk__amg *m)
{
    const ovk__amg_opts *o = &m->o;
    HYPRE_Solver s = m->solver;
    int ours = o->cycle == CYCLE_OVK; /* hypre's smoother unused: the cheapest to set up */
    int rc = ovk__amg_hy(HYPRE_BoomerAMGSetTol(s, 0.0), "HYPRE_BoomerAMGSetTol");
    if (rc) return rc;
    rc = ovk__amg_hy(HYPRE_BoomerAMGSetStrongThreshold(s, o->strong), "HYPRE_BoomerAMGSetStrongThreshold");
    if (rc) return rc;
    const hy_setting t[] = {
        {HYPRE_BoomerAMGSetMaxIter, 1, "HYPRE_BoomerAMGSetMaxIter", 1},
        {HYPRE_BoomerAMGSetPrintLevel, (HYPRE_Int)o->print, "HYPRE_BoomerAMGSetPrintLevel", 1},
        {HYPRE_BoomerAMGSetCoarsenType, coarsen_types[o->coarsen], "HYPRE_BoomerAMGSetCoarsenType", 1},
        {HYPRE_BoomerAMGSetInterpType, interp_types[o->interp], "HYPRE_BoomerAMGSetInterpType", 1},
        {HYPRE_BoomerAMGSetPMaxElmts, (HYPRE_Int)o->pmax, "HYPRE_BoomerAMGSetPMaxElmts", 1},
        {HYPRE_BoomerAMGSetNumSweeps, (HYPRE_Int)o->sweeps, "HYPRE_BoomerAMGSetNumSweeps", 1},
        {cycle_down, ours ? HY_JACOBI : relax_down[o->smoother], "SetCycleRelaxType", 1},
        {cycle_up, ours ? HY_JACOBI : relax_up[o->smoother], "SetCycleRelaxType", 1},
        /* coarsest: Gaussian elimination, or l1-Jacobi for a singular A (a
         * declared null space: elimination's result does not scale with r) */
        {cycle_coarsest, m->singular ? HY_L1_JACOBI : HY_GAUSS_ELIM, "SetCycleRelaxType", 1},
        {HYPRE_BoomerAMGSetRelaxOrder, 0, "HYPRE_BoomerAMGSetRelaxOrder", 1},
        {HYPRE_BoomerAMGSetMaxLevels, (HYPRE_Int)o->max_levels, "HYPRE_BoomerAMGSetMaxLevels", 1},
        {HYPRE_BoomerAMGSetMaxCoarseSize, (HYPRE_Int)o->coarse_size, "SetMaxCoarseSize", 1},
        {HYPRE_BoomerAMGSetAggNumLevels, (HYPRE_Int)o->agg_levels, "HYPRE_BoomerAMGSetAggNumLevels", 1},
        {HYPRE_BoomerAMGSetNumFunctions, (HYPRE_Int)o->bs, "SetNumFunctions", o->bs > 1},
        {HYPRE_BoomerAMGSetNodal, (HYPRE_Int)o->nodal, "HYPRE_BoomerAMGSetNodal", o->nodal > 0},
        {HYPRE_BoomerAMGSetInterpVecVariant, HY_GM2, "HYPRE_BoomerAMGSetInterpVecVariant", m->nmodes > 0},
        {HYPRE_BoomerAMGSetInterpVecFirstLevel, (HYPRE_Int)o->rbm_level, "SetInterpVecFirstLevel", m->nmodes > 0},
        {HYPRE_BoomerAMGSetInterpVecQMax, (HYPRE_Int)o->qmax, "SetInterpVecQMax", m->nmodes > 0},
    };
    rc = make_settings(s, t, (int)(sizeof t / sizeof t[0]));
    if (rc || !m->nmodes) return rc;
    return ovk__amg_hy(HYPRE_BoomerAMGSetInterpVectors(s, m->nmodes, (HYPRE_ParVector *)m->modes), "SetInterpVectors");
}

/* z = hypre's V-cycle(r): hypre's vectors borrow r and z for the call;
 * hypre's cycle calls no hook: reductions in flight progress only by
 * themselves */
int ovk__amg_boomer_apply(ovk__amg *m, const double *r, double *z)
{
    hypre_Vector *bl = hypre_ParVectorLocalVector((hypre_ParVector *)m->b);
    hypre_Vector *xl = hypre_ParVectorLocalVector((hypre_ParVector *)m->x);
    double *bd = hypre_VectorData(bl), *xd = hypre_VectorData(xl);
    if (m->n > 0) memset(z, 0, sizeof(double) * (size_t)m->n); /* x0 = 0 */
    hypre_VectorData(bl) = (double *)r;
    hypre_VectorData(xl) = z;
    HYPRE_Int herr = HYPRE_BoomerAMGSolve(m->solver, m->A, m->b, m->x);
    hypre_VectorData(bl) = bd;
    hypre_VectorData(xl) = xd;
    for (int i = 0; i < m->n && m->scale_exp; i++) z[i] = ldexp(z[i], -m->scale_exp); /* (2^-e A)^-1 = 2^e A^-1 */
    return ovk__amg_hy(herr, "HYPRE_BoomerAMGSolve");
}

/* Collective but for the last steps (the caller agrees): hypre's matrix,
 * vectors and modes of env, and the solver object with its settings. */
static int build_objects(ovk__amg *m, const ovk__pc_env *env)
{
    const ovk_matrix *A = env->A;
    HYPRE_BigInt lo = A->lay.row_start, hi = lo + A->lay.nlocal - 1;
    int rc = build_matrix(m, A);
    if (rc) return rc;
    rc = ovk__agree(m->comm, make_vector(m, lo, hi, A->lay.nglobal, &m->b));
    if (rc) return rc;
    rc = ovk__agree(m->comm, make_vector(m, lo, hi, A->lay.nglobal, &m->x));
    if (rc) return rc;
    rc = ovk__agree(m->comm, build_modes(m, env, lo, hi));
    if (rc) return rc;
    HYPRE_Solver solver = NULL;
    rc = ovk__amg_hy(HYPRE_BoomerAMGCreate(&solver), "HYPRE_BoomerAMGCreate");
    m->solver = solver;
    if (rc) return rc;
    return configure(m);
}

int ovk__amg_boomer_setup(ovk__amg *m, const ovk__pc_env *env)
{
    static int hypre_ready; /* hypre's process-wide state, made once */
    int rc = hypre_ready ? OVK_OK : ovk__amg_hy(HYPRE_Init(), "HYPRE_Init");
    hypre_ready = !rc;
    rc = ovk__agree(m->comm, rc);
    if (rc) return rc;
    double t0 = MPI_Wtime();
    rc = ovk__agree(m->comm, build_objects(m, env));
    if (rc) return rc;
    double t1 = MPI_Wtime();
    rc = ovk__agree(m->comm, ovk__amg_hy(HYPRE_BoomerAMGSetup(m->solver, m->A, m->b, m->x), "HYPRE_BoomerAMGSetup"));
    m->t_copy = t1 - t0, m->t_hypre = MPI_Wtime() - t1;
    return rc;
}

int ovk__amg_boomer_nlev(const ovk__amg *m)
{
    return m->solver ? hypre_ParAMGDataNumLevels((hypre_ParAMGData *)m->solver) : 0;
}

void ovk__amg_boomer_levels(ovk__amg *m, ovk__amg_levels *lv) { ovk__amg_levels_of_hypre(m->solver, lv); }

void ovk__amg_boomer_level_size(const ovk__amg *m, int l, double *rows, double *nnz, int *holds)
{
    hypre_ParCSRMatrix *A = hypre_ParAMGDataAArray((hypre_ParAMGData *)m->solver)[l];
    hypre_CSRMatrix *D = hypre_ParCSRMatrixDiag(A), *O = hypre_ParCSRMatrixOffd(A);
    int n = hypre_CSRMatrixNumRows(D);
    *rows = (double)hypre_ParCSRMatrixGlobalNumRows(A);
    *nnz = (double)(n > 0 ? hypre_CSRMatrixI(D)[n] : 0) + (n > 0 && hypre_CSRMatrixNumCols(O) ? hypre_CSRMatrixI(O)[n] : 0);
    *holds = n > 0;
}

/* ---- a value update: the Galerkin products on the kept interpolations --- */

/* hypre's dense copy of the coarsest level (its Gaussian elimination's,
 * made by BoomerAMG's setup; read by hypre's cycle only), freed once the
 * coarsest level changed */
static void drop_coarsest(hypre_ParAMGData *d)
{
    hypre_TFree(hypre_ParAMGDataAMat(d), HYPRE_MEMORY_HOST);
    hypre_TFree(hypre_ParAMGDataBVec(d), HYPRE_MEMORY_HOST);
    hypre_TFree(hypre_ParAMGDataCommInfo(d), HYPRE_MEMORY_HOST);
    if (hypre_ParAMGDataNewComm(d) != hypre_MPI_COMM_NULL) hypre_MPI_Comm_free(&hypre_ParAMGDataNewComm(d));
    hypre_ParAMGDataNewComm(d) = hypre_MPI_COMM_NULL;
}

/* Collective: A_{l+1} = P_l^T A_l P_l with hypre's kept P_l, from the
 * finest level down. */
static int galerkin_again(ovk__amg *m)
{
    hypre_ParAMGData *d = (hypre_ParAMGData *)m->solver;
    hypre_ParCSRMatrix **A = hypre_ParAMGDataAArray(d), **P = hypre_ParAMGDataPArray(d);
    int nlev = hypre_ParAMGDataNumLevels(d);
    for (int l = 0; l + 1 < nlev; l++) {
        hypre_ParCSRMatrix *C = NULL;
        int rc = ovk__amg_hy(hypre_BoomerAMGBuildCoarseOperator(P[l], A[l], P[l], &C), "hypre_BoomerAMGBuildCoarseOperator");
        if (rc) {
            if (C) hypre_ParCSRMatrixDestroy(C);
            return rc;
        }
        hypre_ParCSRMatrixDestroy(A[l + 1]);
        A[l + 1] = C;
    }
    /* the coarsest level: our cycle's refresh factors it again (hypre's
     * dense copy of the full setup, which only hypre's cycle reads, freed) */
    drop_coarsest(d);
    return OVK_OK;
}

int ovk__amg_boomer_values(ovk__amg *m, const ovk_matrix *A) { return fill_blocks(A, (hypre_ParCSRMatrix *)m->A); }

int ovk__amg_boomer_products(ovk__amg *m)
{
    double *v[2];
    int nnz[2];
    blocks_of(m, v, nnz);
    ovk__amg_scale_values(v, nnz, m->scale_exp); /* by the full setup's 2^-scale_exp: the hierarchy's scale */
    return ovk__agree(m->comm, galerkin_again(m));
}
