/* Algebraic multigrid: one V-cycle per application over the hierarchy of
 * hypre's BoomerAMG; the cycle is ours (amg_cycle.c, cycle=ovk, the
 * default) or hypre's BoomerAMGSolve (cycle=hypre).
 *
 * Setup copies the matrix once into hypre's ParCSR (straight from our diag
 * and offd blocks, which have its shape: no IJ assembly; on a duplicate of
 * the solver's communicator, so that hypre's messages never meet ours) and
 * builds the hierarchy (and with cycle=ovk our copy of it).  A value update
 * redoes all of it, or with reuse=K (cycle=ovk) keeps hypre's coarse grids
 * and interpolations P_l for up to K updates: with reuse_coarse=keep (the
 * default) only level 0's smoother takes the new values (our cycle reads the
 * solver's matrix itself) and the coarse levels stay, and with
 * reuse_scale=diag (keep's default) level 0's transfers become those of
 * S^-1 P_0 with s_i = sqrt(a_ii / a0_ii) against the full setup's a0_ii.
 * What is exact: for A = S A_0 S, (S^-1 P_0)^T A (S^-1 P_0) = P_0^T A_0 P_0,
 * so the kept coarse levels with S^-1 P_0 are the Galerkin coarse
 * correction of A on the kept interpolation S^-1 P_0.  A fresh setup on A
 * may differ (strength of connection and truncation are not invariant
 * under the scaling).  For a general change S takes its diagonal part (a
 * coefficient smooth in space looks locally like such a scaling), and the
 * drift below is then measured on S^-1 A S^-1, so that a pure scaling
 * never forces a full setup; a factor s_i^-1 outside [2^-32, 2^32] does
 * (kept well inside float's range for the float weights of S^-1 P_0).
 * One pass over the new values (values_pass) gives the drift, level 0's
 * l1 norms and the smoother's bound: with B = S^-1 A S^-1 = A_0 + E,
 * c_i = ||e_i||_1 and e_i = d_i / s_i^2, emax(D^-1 A) = emax(E^-1 B) <=
 * emax(D0^-1 A_0) max_i d0_i / e_i + max_i c_i / e_i (x^T E x <= sum_i c_i
 * x_i^2), so the full setup's estimate carried over bounds the new one as
 * it bounded the old (a pure scaling by a power of two keeps it exactly);
 * ovk__amg_cycle_refresh_bound takes it while it is near, else a power
 * step estimates.  With galerkin the new
 * values go into hypre's copy, A_{l+1} = P_l^T A_l P_l again (hypre's
 * Galerkin product), the coarsest level's dense copy is made again, and our
 * levels take the new values on their kept storage with new smoother bounds
 * (ovk__amg_cycle_refresh); a full setup comes after K such updates, or at once when a row
 * of A moved by more than reuse_tol (||a_i - a0_i||_1 / ||a0_i||_1 against
 * the values of the last full setup: a kept P fits the values it was built
 * for, and its convergence degrades as they move).  With cycle=hypre an application runs BoomerAMGSolve
 * with one iteration, tolerance 0 (no residual norm, so no global reduction
 * but the coarsest level's gather) and a zero initial guess on hypre
 * vectors whose data pointers are set to the solver's r and z for the
 * call: no copy.
 *
 * The smoother pairs are symmetric (l1 Gauss-Seidel forward on the way down,
 * backward on the way up; or a smoother that is symmetric itself; ours: a
 * polynomial in D^-1 A, the same before and after) so that the V-cycle is
 * an SPD operator and CG may use it.
 *
 * Systems of PDEs: bs > 1 gives hypre the number of functions (unknowns
 * interleaved by node) and nodal coarsening; with coordinates
 * (ovk_solver_set_coordinates, dim = bs) the rotations of the rigid-body
 * modes enter the interpolation (hypre's GM variant 2; the translations are
 * carried by the unknown approach) from level rbm_level down.  A near-null
 * space given as vectors (ovk_solver_set_near_nullspace, PETSc's
 * MatSetNearNullSpace) takes the coordinates' place: each vector less its
 * part constant in each unknown of a node (the translations) is a mode.
 *
 * setup=agg: the hierarchy is our smoothed aggregation (amg_agg.c) in
 * hypre's hierarchy object, under our cycle, the near-null space (the
 * application's vectors, the rigid-body modes of the coordinates, or the
 * constants per unknown) in its tentative prolongator (agg_nullspace).
 *
 * Built only when CMake finds hypre with 64-bit global indices
 * (libhypre64m-dev) on the same MPI as the library; else `amg` is absent
 * and registry.c says why. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <_hypre_parcsr_ls.h>
#include <_hypre_parcsr_mv.h>

#include "amg_agg.h"
#include "precond.h"

_Static_assert(sizeof(HYPRE_BigInt) == sizeof(ovk_gidx), "hypre's global indices must be 64-bit (libhypre64m)");
_Static_assert(sizeof(HYPRE_Real) == sizeof(double), "hypre must be built in double precision");

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
/* nodal strength by the row sums of the node blocks (hypre: 4): on the
 * elasticity example 16-21 iterations with the modes at 1-4 ranks, where the
 * Frobenius norm (1) took 16-32 and lost to no modes at 3 ranks */
enum { NODAL_DEFAULT = 4 };
/* GM interpolation adds 3 rotation unknowns per coarse node on each level it
 * builds: from the finest level that doubles the first coarse level and
 * fills it (setup 2.5-4x, docs/preconditioners.md); from level 2 on the
 * levels are small and the setup costs what it does without the modes,
 * with fewer iterations */
enum { RBM_LEVEL_DEFAULT = 2 };
enum { MAX_LEVELS = 40 };
/* a full setup at least every 20 value updates: a bound on how stale a kept
 * P may get while no row drifts past reuse_tol.  Chosen on the 20-step FE
 * Poisson loop (bench/amg_cases/loop.txt: one full setup fewer than with 10
 * and no more iterations) and on ovk_heat -varcoef's (there reuse_tol forces
 * the second full setup before either bound: the same work with 10 or 20);
 * docs/performance.md, section 11 */
enum { REUSE_DEFAULT = 20 };

static const char *const coarsen_names[] = {"hmis", "pmis", "falgout", "cljp", NULL};
static const int coarsen_types[] = {HY_HMIS, HY_PMIS, HY_FALGOUT, HY_CLJP};
static const char *const interp_names[] = {"ext+i", "ext", "classical", "direct", "multipass", NULL};
static const int interp_types[] = {HY_EXT_I, HY_EXT, HY_CLASSICAL, HY_DIRECT, HY_MULTIPASS};
static const char *const smoother_names[] = {"l1gs", "sgs", "l1jacobi", "cheby", NULL};
enum { SM_L1GS, SM_SGS, SM_L1JACOBI, SM_CHEBY };
static const char *const cycle_names[] = {"ovk", "hypre", NULL};
enum { CYCLE_OVK, CYCLE_HYPRE };
static const char *const precision_names[] = {"double", "single", NULL};
static const char *const reuse_coarse_names[] = {"galerkin", "keep", NULL};
enum { RC_GALERKIN, RC_KEEP };
/* keep by default: over a loop of small changes the kept coarse levels
 * cost few iterations more than Galerkin products formed again, for a
 * setup on the kept interpolation several times shorter
 * (docs/performance.md, section 11) */
enum { REUSE_COARSE_DEFAULT = RC_KEEP };
static const char *const reuse_scale_names[] = {"none", "diag", NULL};
enum { RS_NONE, RS_DIAG };
enum { PREC_DOUBLE, PREC_SINGLE };
/* who builds the hierarchy: hypre's BoomerAMG (classical AMG) or our
 * smoothed aggregation (amg_agg.c) */
static const char *const setup_names[] = {"boomeramg", "agg", NULL};
enum { SETUP_BOOMERAMG, SETUP_AGG };
/* the coarse levels' values in float by default (the same iterations, a faster
 * solve), but for a singular A (a declared
 * null space): the rounded levels keep the null space only to 2^-24 (A_l 1
 * = 0 and P 1 = 1), and CG on a singular A needs it exact */
enum { PRECISION_DEFAULT = PREC_SINGLE };
static const int relax_down[] = {HY_L1_GS_FWD, HY_HYBRID_SGS, HY_L1_JACOBI, HY_CHEBY};
static const int relax_up[] = {HY_L1_GS_BWD, HY_HYBRID_SGS, HY_L1_JACOBI, HY_CHEBY};

typedef struct amg_opts {
    double strong;
    int coarsen, interp, smoother, cycle; /* indices into the tables above (smoother -1: the cycle's default) */
    int precision;                        /* cycle=ovk: the cycle's values (-1: the default, chosen at setup) */
    double ratio;                         /* cycle=ovk, cheby: emax / emin */
    long degree, pmax, sweeps, max_levels, agg_levels, coarse_size, bs, nodal, rbm, qmax, print;
    long rbm_level; /* the first level whose interpolation takes the modes */
    long reuse;       /* value updates served by the kept interpolation before a full setup (0: none) */
    int reuse_coarse; /* what such an update does to the coarse operators (RC_*) */
    int reuse_scale;  /* keep: level 0's transfers scaled by the diagonal's change (RS_*) */
    double reuse_tol; /* the values' drift since the full setup that forces one */
    int setup;        /* SETUP_* */
    long agg_smooth;  /* setup=agg: 1 smoothed aggregation, 0 the tentative prolongator */
    double agg_threshold; /* setup=agg: strength of connection */
    long agg_mis2;        /* setup=agg: levels aggregated on an MIS-2 (the rest on an MIS-1) */
    double agg_corr;      /* setup=agg: the cycle's coarse corrections times this (over-correction) */
} amg_opts;

typedef struct amg {
    amg_opts o;
    MPI_Comm comm; /* hypre's duplicate of the solver's communicator */
    int n;
    HYPRE_ParCSRMatrix A; /* 2^-scale_exp times the solver's matrix */
    int scale_exp;
    HYPRE_ParVector b, x;
    HYPRE_ParVector *modes; /* [nmodes]; lent to hypre, ours to free */
    int nmodes;
    int from_vectors; /* the modes are the near-null space's (else rotations of coordinates) */
    HYPRE_Solver solver;
    ovk__amg_cycle *cycle; /* cycle=ovk: ours over hypre's hierarchy, else NULL */
    double t_copy, t_hypre, t_cycle; /* the last setup's parts (s): A to hypre, hypre's setup, our levels */
    const ovk_matrix *src; /* the matrix of the hierarchy */
    double *vals0;         /* A's diag then offd values (as stored) at the last full setup */
    double *row_sums;      /* [3 n]: an update's per-row sums (change, l1 norm), then the l1 norms of vals0 */
    double *diag0;         /* reuse_scale=diag: a_ii at the last full setup */
    double *sinv;          /* and sqrt(a0_ii / a_ii) of the last update */
    double sinv_lo, sinv_hi; /* its range over the ranks (1, 1: none) */
    int updates;           /* value updates served by the kept P since then */
    double drift;          /* the last update's max row drift from vals0 */
    long full_setups, reuses;
    long relaid;           /* kept-P setups whose coarse patterns moved: our levels made anew */
    long derived;          /* kept-P setups whose level-0 smoother bound was derived, not estimated */
    int nlev;                               /* the hierarchy, for the view */
    double rows[MAX_LEVELS], nnz[MAX_LEVELS]; /* global rows and entries of each level */
    int singular;          /* env->singular: the coarsest level is singular too */
    int precision;         /* the cycle's (PREC_*): the option, or its default for this A */
    int agg_k;             /* setup=agg: the near-null space's vectors */
} amg;

/* setup=agg: BoomerAMG's coarsening keys do not apply, nor hypre's cycle;
 * the aggregation keys need it */
static int agg_options(amg_opts *o)
{
    if (o->setup != SETUP_AGG) {
        if (o->agg_smooth >= 0 || o->agg_threshold >= 0.0 || o->agg_mis2 >= 0 || o->agg_corr >= 0.0)
            return ovk__fail(OVK_EOPTION, "amg: agg_smooth, agg_threshold, agg_mis2 and agg_corr are keys of setup=agg");
        return OVK_OK;
    }
    if (o->cycle != CYCLE_OVK)
        return ovk__fail(OVK_EOPTION, "amg: setup=agg runs our cycle (cycle=ovk), not cycle=hypre");
    if (o->strong >= 0.0 || o->coarsen >= 0 || o->agg_levels >= 0 || o->nodal >= 0)
        return ovk__fail(OVK_EOPTION, "amg: strong_threshold, coarsen, agg_levels and nodal are BoomerAMG's keys "
                                      "(setup=boomeramg); setup=agg takes agg_threshold and agg_smooth");
    if (o->max_levels < 2) return ovk__fail(OVK_EOPTION, "amg: setup=agg needs max_levels >= 2");
    if (o->agg_smooth < 0) o->agg_smooth = 1;
    if (o->agg_threshold < 0.0) o->agg_threshold = 0.0;
    if (o->agg_mis2 < 0) o->agg_mis2 = 1;
    if (o->agg_corr < 0.0) o->agg_corr = 1.0;
    return OVK_OK;
}

static int read_options(ovk__opts *opts, amg_opts *o)
{
    const ovk__opt_entry t[] = {
        OVK__OPT_DOUBLE("strong_threshold", 0.0, 1.0, &o->strong),
        OVK__OPT_CHOICE("coarsen", coarsen_names, &o->coarsen),
        OVK__OPT_CHOICE("interp", interp_names, &o->interp),
        OVK__OPT_CHOICE("smoother", smoother_names, &o->smoother),
        OVK__OPT_CHOICE("cycle", cycle_names, &o->cycle),
        OVK__OPT_CHOICE("precision", precision_names, &o->precision),
        OVK__OPT_INT("degree", 1, 8, &o->degree),
        OVK__OPT_DOUBLE("ratio", 1.0, 1000.0, &o->ratio),
        OVK__OPT_INT("pmax", 0, 64, &o->pmax),
        OVK__OPT_INT("sweeps", 1, 16, &o->sweeps),
        OVK__OPT_INT("max_levels", 1, MAX_LEVELS, &o->max_levels),
        OVK__OPT_INT("agg_levels", 0, 40, &o->agg_levels),
        OVK__OPT_INT("coarse_size", 1, 100000, &o->coarse_size),
        OVK__OPT_INT("bs", 1, 16, &o->bs),
        OVK__OPT_INT("nodal", 0, 6, &o->nodal),
        OVK__OPT_INT("rbm", 0, 1, &o->rbm),
        OVK__OPT_INT("qmax", 0, 64, &o->qmax),
        OVK__OPT_INT("print", 0, 3, &o->print),
        OVK__OPT_INT("reuse", 0, 1000000, &o->reuse),
        OVK__OPT_CHOICE("reuse_coarse", reuse_coarse_names, &o->reuse_coarse),
        OVK__OPT_CHOICE("reuse_scale", reuse_scale_names, &o->reuse_scale),
        OVK__OPT_DOUBLE("reuse_tol", 0.0, 1e6, &o->reuse_tol),
        OVK__OPT_INT("rbm_level", 0, 40, &o->rbm_level),
        OVK__OPT_CHOICE("setup", setup_names, &o->setup),
        OVK__OPT_INT("agg_smooth", 0, 1, &o->agg_smooth),
        OVK__OPT_DOUBLE("agg_threshold", 0.0, 1.0, &o->agg_threshold),
        OVK__OPT_INT("agg_mis2", 0, 40, &o->agg_mis2),
        OVK__OPT_DOUBLE("agg_corr", 1.0, 2.0, &o->agg_corr),
    };
    int rc = ovk__opts_read(opts, "amg", t, (int)(sizeof t / sizeof t[0]));
    if (rc) return rc;
    rc = agg_options(o);
    if (rc) return rc;
    if (o->nodal < 0) o->nodal = o->bs > 1 ? NODAL_DEFAULT : 0; /* nodal coarsening for systems */
    /* the defaults of each class (docs/preconditioners.md): scalar problems
     * PMIS with one level of aggressive coarsening and one Chebyshev step
     * (setup + solve 0.65x the denser HMIS hierarchy's at degree 2 on the
     * Laplacian); systems HMIS, nodal, one step (aggressive coarsening
     * doubled their iterations) */
    if (o->coarsen < 0) o->coarsen = o->bs > 1 ? 0 : 1; /* coarsen_names: hmis, pmis */
    if (o->agg_levels < 0) o->agg_levels = o->bs > 1 ? 0 : 1;
    /* strength: hypre's advice for 3-D systems (bs >= 3, elasticity): 0.5; on
     * Q1 elasticity of a clamped cube (tests/petsc/test_petsc_elasticity.c,
     * 6591 unknowns) 25-27 iterations at 1-4 ranks where 0.25 took 29-38, the
     * rigid-body modes still saving iterations (ovk_elasticity: 25 against 27) */
    if (o->strong < 0.0) o->strong = o->bs >= 3 ? 0.5 : 0.25;
    if (o->degree < 0) o->degree = 1;
    /* Chebyshev's interval [emax/ratio, emax]: 4 for scalar problems; for
     * systems 10, about GAMG's [0.1, 1.1] times its estimate: the
     * near-null modes' smooth error sits low in D^-1 A's spectrum, and on
     * Q1 elasticity of a clamped cube (test_petsc_elasticity, 6591
     * unknowns) 23-24 iterations at 1-4 ranks where 4 took 25-26, the
     * cycle's work unchanged (GAMG: 19-22) */
    if (o->ratio < 0.0) o->ratio = o->bs > 1 ? 10.0 : 4.0;
    if (o->smoother < 0) o->smoother = o->cycle == CYCLE_OVK ? SM_CHEBY : SM_L1GS;
    if (o->cycle == CYCLE_OVK && o->smoother != SM_CHEBY && o->smoother != SM_L1JACOBI)
        return ovk__fail(OVK_EOPTION, "amg: cycle=ovk smooths with cheby or l1jacobi (smoother=%s needs cycle=hypre)",
                         smoother_names[o->smoother]);
    if (o->reuse < 0) o->reuse = o->cycle == CYCLE_OVK ? REUSE_DEFAULT : 0;
    if (o->precision == PREC_SINGLE && o->cycle != CYCLE_OVK)
        return ovk__fail(OVK_EOPTION, "amg: precision=single rounds our cycle's values (cycle=ovk), not hypre's");
    if (o->cycle != CYCLE_OVK) o->precision = PREC_DOUBLE;
    if (o->reuse > 0 && o->cycle != CYCLE_OVK)
        return ovk__fail(OVK_EOPTION, "amg: reuse=%ld keeps the hierarchy for our cycle (cycle=ovk), not cycle=hypre",
                         o->reuse);
    if (o->reuse_scale == RS_DIAG && o->reuse_coarse == RC_GALERKIN)
        return ovk__fail(OVK_EOPTION, "amg: reuse_scale=diag scales the kept coarse levels' transfers "
                                      "(reuse_coarse=keep); galerkin forms the coarse levels of the new values");
    if (o->reuse_scale < 0) o->reuse_scale = o->reuse_coarse == RC_KEEP ? RS_DIAG : RS_NONE;
    if (o->nodal > 0 && o->bs == 1)
        return ovk__fail(OVK_EOPTION, "amg: nodal=%ld needs a block size bs > 1", o->nodal);
    return OVK_OK;
}

static int amg_create(ovk__opts *opts, void **state)
{
    amg *m = calloc(1, sizeof(amg));
    if (!m) return ovk__fail(OVK_ENOMEM, "amg");
    *state = m;
    m->comm = MPI_COMM_NULL;
    m->o = (amg_opts){.strong = -1.0, .coarsen = -1, .smoother = -1, .cycle = CYCLE_OVK, .precision = -1,
                      .degree = -1, .ratio = -1.0,
                      .pmax = 4, .sweeps = 1, .max_levels = 25, .agg_levels = -1, .coarse_size = 9, .bs = 1, .nodal = -1,
                      .rbm = 1, .qmax = 4, .rbm_level = RBM_LEVEL_DEFAULT,
                      .reuse = -1, .reuse_tol = 0.3, .reuse_coarse = REUSE_COARSE_DEFAULT, .reuse_scale = -1,
                      .setup = SETUP_BOOMERAMG, .agg_smooth = -1, .agg_threshold = -1.0, .agg_mis2 = -1,
                      .agg_corr = -1.0};
    return read_options(opts, &m->o);
}

/* OVK_OK, or OVK_EPRECOND naming the hypre call and hypre's description
 * (hypre keeps a global error flag: cleared here). */
static int hy(HYPRE_Int herr, const char *call)
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

/* the hypre objects of one setup */
static void release(amg *m)
{
    ovk__amg_cycle_free(m->cycle);
    m->cycle = NULL;
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

static void amg_destroy(void *state)
{
    amg *m = state;
    release(m);
    free(m->vals0), free(m->row_sums), free(m->diag0), free(m->sinv);
    if (m->comm != MPI_COMM_NULL) MPI_Comm_free(&m->comm);
    free(m);
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
static int make_parcsr(amg *m, const ovk_matrix *A, int nd)
{
    int n = A->lay.nlocal, no = n > 0 ? A->offd.rowptr[n] : 0;
    HYPRE_BigInt starts[2] = {A->lay.row_start, A->lay.row_start + n};
    hypre_ParCSRMatrix *P = hypre_ParCSRMatrixCreate(m->comm, A->lay.nglobal, A->lay.nglobal, starts, starts,
                                                     A->ncols_offd, nd, no);
    m->A = (HYPRE_ParCSRMatrix)P;
    if (!P) return ovk__fail(OVK_ENOMEM, "amg: hypre_ParCSRMatrixCreate");
    int rc = hy(hypre_ParCSRMatrixInitialize(P), "hypre_ParCSRMatrixInitialize");
    if (rc) return rc;
    return fill_blocks(A, P);
}

/* Local: hypre's copy times 2^-scale_exp.  A product with the power of two
 * rounds as ldexp does (once, exactly when no underflow) at the cost of a
 * multiplication; ldexp where 2^-e itself overflows. */
static void scale_blocks(amg *m)
{
    hypre_ParCSRMatrix *P = (hypre_ParCSRMatrix *)m->A;
    hypre_CSRMatrix *blk[2] = {hypre_ParCSRMatrixDiag(P), hypre_ParCSRMatrixOffd(P)};
    double s = ldexp(1.0, -m->scale_exp);
    for (int b = 0; b < 2 && m->scale_exp; b++) {
        double *v = hypre_CSRMatrixData(blk[b]);
        int nnz = hypre_CSRMatrixI(blk[b])[hypre_CSRMatrixNumRows(blk[b])];
        if (isfinite(s))
            for (int k = 0; k < nnz; k++) v[k] *= s;
        else
            for (int k = 0; k < nnz; k++) v[k] = ldexp(v[k], -m->scale_exp);
    }
}

/* Collective: hypre's copy scaled by 2^-e, its largest entry in [0.5, 1)
 * (e over every rank).  hypre's setup multiplies entries together
 * (interpolation weights, Galerkin products): at 1e-300 they underflow and
 * the hierarchy is another one.  A power of two scales exactly: the
 * preconditioner of s A is that of A, divided by s, when s is one. */
static int unit_scale(amg *m)
{
    hypre_ParCSRMatrix *P = (hypre_ParCSRMatrix *)m->A;
    hypre_CSRMatrix *blk[2] = {hypre_ParCSRMatrixDiag(P), hypre_ParCSRMatrixOffd(P)};
    double amax = 0.0;
    for (int b = 0; b < 2; b++) {
        const double *v = hypre_CSRMatrixData(blk[b]);
        for (int k = 0, nnz = hypre_CSRMatrixI(blk[b])[hypre_CSRMatrixNumRows(blk[b])]; k < nnz; k++) {
            double a = fabs(v[k]);
            if (a > amax) amax = a; /* fmax's result, NaNs ignored, without its call */
        }
    }
    if (MPI_Allreduce(MPI_IN_PLACE, &amax, 1, MPI_DOUBLE, MPI_MAX, m->comm) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Allreduce (amg: the largest entry)");
    m->scale_exp = 0;
    if (amax > 0.0 && isfinite(amax)) frexp(amax, &m->scale_exp);
    scale_blocks(m);
    return OVK_OK;
}

/* Collective: hypre's ParCSR of A's current values, built from A's blocks
 * without hypre's IJ assembly, at unit scale. */
static int build_matrix(amg *m, const ovk_matrix *A)
{
    int nd = 0;
    int rc = ovk__agree(m->comm, diag_entries(A, &nd));
    if (rc) return rc;
    rc = ovk__agree(m->comm, make_parcsr(m, A, nd));
    if (rc) return rc;
    rc = ovk__agree(m->comm, unit_scale(m));
    if (rc) return rc;
    hypre_ParCSRMatrix *P = (hypre_ParCSRMatrix *)m->A;
    rc = ovk__agree(m->comm, hy(hypre_ParCSRMatrixSetNumNonzeros(P), "hypre_ParCSRMatrixSetNumNonzeros"));
    if (rc) return rc;
    return ovk__agree(m->comm, hy(hypre_MatvecCommPkgCreate(P), "hypre_MatvecCommPkgCreate"));
}

/* Collective: a zero vector of the rank's rows [lo, hi]. */
static int make_vector(amg *m, HYPRE_BigInt lo, HYPRE_BigInt hi, HYPRE_BigInt N, HYPRE_ParVector *v)
{
    HYPRE_BigInt part[2] = {lo, hi + 1};
    hypre_ParVector *p = hypre_ParVectorCreate(m->comm, N, part);
    *v = (HYPRE_ParVector)p;
    if (!p) return ovk__fail(OVK_ENOMEM, "amg: hypre_ParVectorCreate");
    return hy(hypre_ParVectorInitialize(p), "hypre_ParVectorInitialize");
}

static double *local_data(HYPRE_ParVector v) { return hypre_VectorData(hypre_ParVectorLocalVector((hypre_ParVector *)v)); }

/* ---- rigid-body modes ------------------------------------------------- */

/* Collective: the global centroid of the nodes (rotations about it). */
static int centroid(amg *m, const ovk__pc_env *env, double *c)
{
    double s[4] = {0.0, 0.0, 0.0, 0.0};
    int dim = env->coord_dim;
    for (int k = 0; k < env->ncoords; k++)
        for (int d = 0; d < dim; d++) s[d] += env->coords[(size_t)k * dim + d];
    s[3] = env->ncoords;
    if (MPI_Allreduce(MPI_IN_PLACE, s, 4, MPI_DOUBLE, MPI_SUM, m->comm) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Allreduce (amg: centroid of the coordinates)");
    for (int d = 0; d < 3; d++) c[d] = s[3] > 0.0 ? s[d] / s[3] : 0.0;
    return OVK_OK;
}

/* mode k of node (x, y, z) relative to the centroid: rotations about z,
 * x and y (2-D: about z only) */
static void rotation(int k, const double *p, double *u)
{
    double x = p[0], y = p[1], z = p[2];
    u[0] = k == 0 ? -y : k == 1 ? 0.0 : z;
    u[1] = k == 0 ? x : k == 1 ? -z : 0.0;
    u[2] = k == 0 ? 0.0 : k == 1 ? y : -x;
}

/* Collective: the centroid c of the nodes, and room for `want` modes. */
static int prepare_modes(amg *m, const ovk__pc_env *env, int want, double *c)
{
    int rc = centroid(m, env, c);
    if (rc) return rc;
    m->modes = calloc((size_t)want, sizeof *m->modes);
    if (!m->modes) return ovk__fail(OVK_ENOMEM, "amg: modes");
    return OVK_OK;
}

/* Collective: the near-null space's vectors as modes, each less its mean
 * in each of the bs unknowns of a node (the translations, which nodal
 * coarsening carries: the rank owns whole nodes, check_blocks); a vector
 * left with less than 1e-6 of its norm (a translation) is dropped. */
static int modes_from_vectors(amg *m, const ovk__pc_env *env, HYPRE_BigInt lo, HYPRE_BigInt hi)
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
        double *u = rc ? NULL : local_data(m->modes[q]);
        for (int i = 0; u && i < n; i++) u[i] = env->nns[(size_t)keep[q] * n + i] - acc[keep[q] * bs + i % bs];
    }
    return rc;
}

/* Collective: the rotations as hypre vectors, when coordinates are given,
 * or the near-null space's modes. */
static int build_modes(amg *m, const ovk__pc_env *env, HYPRE_BigInt lo, HYPRE_BigInt hi)
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
        double *u = local_data(m->modes[k]), p[3] = {0.0, 0.0, 0.0}, v[3];
        for (int node = 0; node < env->ncoords; node++) {
            for (int d = 0; d < dim; d++) p[d] = env->coords[(size_t)node * dim + d] - c[d];
            rotation(k, p, v);
            for (int d = 0; d < bs; d++) u[(size_t)node * bs + d] = v[d];
        }
    }
    return OVK_OK;
}

/* ---- setup=agg's near-null space ---------------------------------------- */

/* Local: B's k vectors of the rank's n rows from env: the application's
 * vectors; the rigid-body modes of the coordinates about the centroid c
 * (translations, then rotations); or the constant of each unknown. */
static void fill_nullspace(const amg *m, const ovk__pc_env *env, int k, int modes, const double *c, double *B)
{
    int n = env->n, bs = (int)m->o.bs, dim = env->coord_dim;
    if (env->nns_k > 0 && m->o.rbm) {
        memcpy(B, env->nns, sizeof(double) * (size_t)n * (size_t)k);
        return;
    }
    memset(B, 0, sizeof(double) * (size_t)n * (size_t)k);
    for (int i = 0; i < n; i++) B[(size_t)(i % bs) * n + i] = 1.0; /* translations: unknown f of each node */
    for (int q = 0; q < modes; q++)
        for (int node = 0; node < env->ncoords; node++) {
            double p[3] = {0.0, 0.0, 0.0}, u[3];
            for (int d = 0; d < dim; d++) p[d] = env->coords[(size_t)node * dim + d] - c[d];
            rotation(q, p, u);
            for (int d = 0; d < bs; d++) B[(size_t)(bs + q) * n + (size_t)node * bs + d] = u[d];
        }
}

/* Collective: setup=agg's near-null space, k vectors of the rank's rows
 * one after the other (*B, malloc'd): the application's
 * (ovk_solver_set_near_nullspace) as given; with coordinates of dimension
 * bs (2 or 3) the rigid-body modes (bs translations, 1 or 3 rotations
 * about the centroid); else the constant of each of a node's bs unknowns.
 * rbm=0 takes the constants.  Zero on every rank (rank zero) or not finite
 * is OVK_EINVAL. */
static int agg_nullspace(amg *m, const ovk__pc_env *env, double **B, int *k)
{
    int bs = (int)m->o.bs, dim = env->coord_dim, vecs = env->nns_k > 0 && m->o.rbm;
    int modes = !vecs && m->o.rbm && bs > 1 && dim == bs ? (dim == 3 ? 3 : 1) : 0;
    double c[3] = {0.0, 0.0, 0.0};
    *k = vecs ? env->nns_k : bs + modes;
    int rc = modes ? centroid(m, env, c) : OVK_OK;
    *B = rc ? NULL : malloc(sizeof(double) * ((size_t)env->n * (size_t)*k + 1));
    if (!rc && !*B) rc = ovk__fail(OVK_ENOMEM, "amg: the near-null space (%d vectors)", *k);
    rc = ovk__agree(m->comm, rc);
    if (rc) return rc;
    fill_nullspace(m, env, *k, modes, c, *B);
    double s[2] = {0.0, 0.0}; /* sum of squares, non-finite entries */
    for (size_t i = 0; i < (size_t)env->n * (size_t)*k; i++) {
        double v = (*B)[i];
        if (isfinite(v)) s[0] += v * v;
        else s[1] += 1.0;
    }
    rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, m->comm), "MPI_Allreduce (amg near-null space)");
    if (!rc && s[1] > 0.0) rc = ovk__fail(OVK_EINVAL, "amg: the near-null space has %.0f entries that are not finite", s[1]);
    if (!rc && !(s[0] > 0.0))
        rc = ovk__fail(OVK_EINVAL, "amg: the near-null space has rank zero (its %d vectors are zero on every rank)", *k);
    return rc;
}

/* Collective: setup=agg's hierarchy in hypre's object m->solver. */
static int agg_setup(amg *m, const ovk__pc_env *env)
{
    double *B = NULL;
    int k = 0;
    int rc = agg_nullspace(m, env, &B, &k);
    if (!rc) {
        ovk__amg_agg_opts ao = {(int)m->o.bs, m->o.agg_threshold, (int)m->o.agg_smooth, (int)m->o.max_levels,
                                (int)m->o.coarse_size, (int)m->o.agg_mis2, m->singular};
        rc = ovk__amg_agg_build((hypre_ParCSRMatrix *)m->A, (hypre_ParVector *)m->b, (hypre_ParVector *)m->x, k, B, &ao,
                                (hypre_ParAMGData *)m->solver, NULL);
    }
    m->agg_k = k;
    free(B);
    return rc;
}

/* ---- setup and apply -------------------------------------------------- */

/* Local checks of the block size and the coordinates (agreed by the caller). */
static int check_blocks(const amg *m, const ovk__pc_env *env)
{
    long bs = m->o.bs;
    const ovk__layout *lay = &env->A->lay;
    if (lay->nlocal % bs || lay->row_start % bs)
        return ovk__fail(OVK_EOPTION,
                         "amg: block size bs=%ld does not divide this rank's rows [%lld, %lld) (each rank "
                         "must own whole nodes)",
                         bs, ovk__row_id(lay, 0), ovk__row_id(lay, lay->nlocal));
    if (!m->o.rbm || bs == 1 || env->coord_dim == 0 || env->nns_k > 0) return OVK_OK;
    if (env->coord_dim != bs || bs > 3)
        return ovk__fail(OVK_EOPTION,
                         "amg: rigid-body modes need coordinates of dimension bs (got dim %d for bs=%ld; "
                         "rbm=0 ignores the coordinates)",
                         env->coord_dim, bs);
    if ((long)env->ncoords * bs != lay->nlocal)
        return ovk__fail(OVK_EINVAL, "amg: %d coordinate points for %d rows of bs=%ld (need one per node)",
                         env->ncoords, lay->nlocal, bs);
    return OVK_OK;
}

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
        int rc = hy(t[i].set(s, t[i].value), t[i].call);
        if (rc) return rc;
    }
    return OVK_OK;
}

/* hypre's settings from the options (local calls) */
static int configure(amg *m)
{
    const amg_opts *o = &m->o;
    HYPRE_Solver s = m->solver;
    int ours = o->cycle == CYCLE_OVK; /* hypre's smoother unused: the cheapest to set up */
    int rc = hy(HYPRE_BoomerAMGSetTol(s, 0.0), "HYPRE_BoomerAMGSetTol");
    if (rc) return rc;
    rc = hy(HYPRE_BoomerAMGSetStrongThreshold(s, o->strong), "HYPRE_BoomerAMGSetStrongThreshold");
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
    return hy(HYPRE_BoomerAMGSetInterpVectors(s, m->nmodes, m->modes), "SetInterpVectors");
}

/* Collective but for the last steps (the caller agrees): hypre's matrix,
 * vectors and modes of env, and the solver object with its settings. */
static int build_objects(amg *m, const ovk__pc_env *env)
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
    rc = hy(HYPRE_BoomerAMGCreate(&m->solver), "HYPRE_BoomerAMGCreate");
    if (rc) return rc;
    return configure(m);
}

/* Collective: our cycle on hypre's hierarchy (cycle=ovk and at least two
 * levels; one level, a matrix of at most coarse_size rows: hypre's solve). */
static int cycle_setup(amg *m, const ovk_matrix *A)
{
    double t0 = MPI_Wtime();
    m->precision = PREC_DOUBLE;
    if (m->o.cycle != CYCLE_OVK || hypre_ParAMGDataNumLevels((hypre_ParAMGData *)m->solver) < 2) return OVK_OK;
    int jacobi = m->o.smoother == SM_L1JACOBI;
    m->precision = m->o.precision >= 0 ? m->o.precision : m->singular ? PREC_DOUBLE : PRECISION_DEFAULT;
    ovk__amg_cycle_opts co = {(int)(jacobi ? m->o.sweeps : m->o.degree), jacobi, m->o.ratio,
                              m->precision == PREC_SINGLE, m->o.setup == SETUP_AGG ? m->o.agg_corr : 1.0};
    int rc = ovk__amg_cycle_setup(m->solver, A, m->comm, &co, &m->cycle);
    if (!rc) ovk__amg_cycle_set_scale(m->cycle, m->scale_exp);
    m->t_cycle = MPI_Wtime() - t0;
    return rc;
}

/* Collective: our cycle on hypre's new coarse operators: the levels' values
 * and smoother bounds on their kept storage, or made anew where a level's
 * pattern moved (hypre's product keeps P^T A P's structural entries, so it
 * should not; the matrix layer checks).  On an error no cycle is left: the
 * next setup is a full one. */
static int cycle_refresh(amg *m, const ovk_matrix *A)
{
    double t0 = MPI_Wtime();
    int rc = ovk__amg_cycle_refresh(m->cycle, m->comm);
    m->t_cycle = MPI_Wtime() - t0;
    if (!rc) return OVK_OK;
    ovk__amg_cycle_free(m->cycle);
    m->cycle = NULL;
    if (rc != OVK_EMISMATCH) return rc;
    m->relaid++;
    return cycle_setup(m, A);
}

/* Collective: level 0's smoother on the new values from their l1 norms
 * and the bound's rho and gamma (the coarse levels kept).  On an error no
 * cycle is left: the next setup is a full one. */
static int refresh_level0(amg *m, const double *l1, double rho, double gamma)
{
    double t0 = MPI_Wtime();
    int derived = 0;
    int rc = ovk__amg_cycle_refresh_bound(m->cycle, m->comm, l1, rho, gamma, &derived);
    m->t_cycle = MPI_Wtime() - t0;
    m->derived += derived;
    if (!rc) return OVK_OK;
    ovk__amg_cycle_free(m->cycle);
    m->cycle = NULL;
    return rc;
}

/* ---- a value update on the kept coarsening and interpolation ---------- */

/* the rank's entries of hypre's copy of A: diag block, offd block */
static int diag_count(hypre_ParCSRMatrix *P)
{
    hypre_CSRMatrix *d = hypre_ParCSRMatrixDiag(P);
    int n = hypre_CSRMatrixNumRows(d);
    return n > 0 ? hypre_CSRMatrixI(d)[n] : 0;
}

static int offd_count(hypre_ParCSRMatrix *P)
{
    hypre_CSRMatrix *o = hypre_ParCSRMatrixOffd(P);
    int n = hypre_CSRMatrixNumRows(o);
    return n > 0 ? hypre_CSRMatrixI(o)[n] : 0;
}

/* the number of values of A's diag block and offd block as stored */
static size_t block_values(const ovk__csr *b, int n) { return n > 0 ? (size_t)b->rowptr[n] : 0; }

/* keep's default reuse_scale=diag applies: not for a singular A, whose
 * update forms the Galerkin products (update_setup) */
static int scaling(const amg *m) { return m->o.reuse_scale == RS_DIAG && !m->singular; }

/* change_i += sum_j |a_ij w_i w_j - a0_ij| and l1_i += sum_j |a_ij| over
 * row i's entries of A's diag then offd block, in one pass over the values
 * (l1 summed in the order of the cycle's own l1 norms: the same bits); a
 * diag block that keeps one triangle adds a_ji's parts to row j's too.
 * w: the rows' factors, ext their values at the offd columns (NULL: 1);
 * a0: the values to compare with, diag then offd (NULL: l1 only). */
static void rows_pass(const ovk_matrix *A, const double *a0, const double *w, const double *ext, double *change,
                      double *l1)
{
    const ovk__csr *blk[2] = {&A->diag, &A->offd};
    int n = A->lay.nlocal;
    const double *a0b[2] = {a0, a0 ? a0 + block_values(&A->diag, n) : NULL}, *wc[2] = {w, ext};
    for (int i = 0; i < n; i++) {
        double ch = 0.0, sum = 0.0, wi = w ? w[i] : 1.0;
        for (int q = 0; q < 2; q++) {
            const ovk__csr *b = blk[q];
            for (int k = b->rowptr[i]; k < b->rowptr[i + 1]; k++) {
                int j = ovk__csr_col(b, i, k);
                double a = fabs(b->val[k]), dv = a0 ? fabs(b->val[k] * wi * (w ? wc[q][j] : 1.0) - a0b[q][k]) : 0.0;
                ch += dv, sum += a;
                if (b->upper && j != i) change[j] += dv, l1[j] += a; /* a_ji, not stored (j > i) */
            }
        }
        change[i] += ch, l1[i] += sum;
    }
}

/* Local: A's values at the full setup (its blocks as stored), against
 * which updates drift, and room for the drift's row sums; with
 * reuse_scale=diag its diagonal and room for the scaling. */
static int keep_values(amg *m, const ovk_matrix *A)
{
    size_t nd = block_values(&A->diag, m->n), no = block_values(&A->offd, m->n), n = (size_t)m->n;
    int scale = scaling(m);
    free(m->vals0), free(m->row_sums), free(m->diag0), free(m->sinv);
    m->diag0 = m->sinv = NULL;
    m->vals0 = malloc(sizeof(double) * (nd + no + 1));
    m->row_sums = malloc(sizeof(double) * (3 * n + 1));
    if (scale) m->diag0 = malloc(sizeof(double) * (n + 1)), m->sinv = malloc(sizeof(double) * (n + 1));
    if (!m->vals0 || !m->row_sums || (scale && (!m->diag0 || !m->sinv))) {
        free(m->vals0), free(m->row_sums), free(m->diag0), free(m->sinv);
        m->vals0 = m->row_sums = m->diag0 = m->sinv = NULL; /* no vals0: the next setup is a full one */
        return ovk__fail(OVK_ENOMEM, "amg: a copy of %zu values (reuse)", nd + no);
    }
    if (nd) memcpy(m->vals0, A->diag.val, sizeof(double) * nd);
    if (no) memcpy(m->vals0 + nd, A->offd.val, sizeof(double) * no);
    if (scale && n) memcpy(m->diag0, A->diagonal, sizeof(double) * n);
    double *size0 = m->row_sums + 2 * n; /* the drift's denominators, the bound's d0_i */
    for (size_t i = 0; i < 3 * n; i++) m->row_sums[i] = 0.0;
    rows_pass(A, NULL, NULL, NULL, m->row_sums, size0);
    return OVK_OK;
}

/* What an update's pass over the values finds: the largest drift of a
 * row, the bound's rho and gamma (ovk__amg_cycle_refresh_bound) */
typedef struct update_pass {
    double drift, rho, gamma;
    double l1_max; /* the largest l1 norm of a row: the rank's ||A||_inf */
} update_pass;

/* max(*worst, q), infinite for a NaN q */
static void raise_to(double *worst, double q)
{
    if (!(q <= *worst)) *worst = q == q ? q : INFINITY;
}

/* the row's parts of the maxima: its drift c / d0 and d0 / e, c / e
 * (c: ||b_i - a0_i||_1, d0: ||a0_i||_1, e: d_i s_i^-2) */
static inline void row_maxima(update_pass *u, double c, double d0, double e)
{
    raise_to(&u->drift, d0 > 0.0 ? c / d0 : c > 0.0 ? INFINITY : 0.0);
    raise_to(&u->rho, e > 0.0 ? d0 / e : d0 > 0.0 ? INFINITY : 0.0);
    raise_to(&u->gamma, e > 0.0 ? c / e : c > 0.0 ? INFINITY : 0.0);
}

/* values_pass for a scaled update of a diag block with both triangles:
 * the same sums in the same order, each row's maxima taken as its sums
 * end (no row gets parts from another); the diag block's columns as
 * 16-bit offsets or int, a loop for each */
static update_pass scaled_pass(const ovk_matrix *A, const double *a0, const double *w, const double *ext,
                               const double *d0, double *l1)
{
    const ovk__csr *d = &A->diag, *o = &A->offd;
    int n = A->lay.nlocal;
    const int *restrict dp = d->rowptr, *restrict dc = d->col, *restrict op = o->rowptr, *restrict oc = o->col;
    const int16_t *restrict off = d->off16;
    const double *restrict dv = d->val, *restrict ov = o->val, *restrict a0o = a0 + block_values(d, n);
    update_pass u = {0.0, 0.0, 0.0, 0.0};
    for (int i = 0; i < n; i++) {
        double c = 0.0, s = 0.0, wi = w[i];
        if (off)
            for (int k = dp[i]; k < dp[i + 1]; k++) {
                c += fabs(dv[k] * wi * w[i + off[k]] - a0[k]);
                s += fabs(dv[k]);
            }
        else
            for (int k = dp[i]; k < dp[i + 1]; k++) {
                c += fabs(dv[k] * wi * w[dc[k]] - a0[k]);
                s += fabs(dv[k]);
            }
        for (int k = op[i]; k < op[i + 1]; k++) {
            c += fabs(ov[k] * wi * ext[oc[k]] - a0o[k]);
            s += fabs(ov[k]);
        }
        l1[i] = s;
        u.l1_max = fmax(u.l1_max, s);
        row_maxima(&u, c, d0[i], s * wi * wi);
    }
    return u;
}

/* Local: one pass over A's values against the full setup's (vals0): per
 * row c_i = ||b_i - a0_i||_1 for B = S^-1 A S^-1 (sinv = S^-1; ext its
 * values at A's offd columns; NULL: S = I) and d_i = ||a_i||_1 (into
 * m->row_sums[n, 2 n): the smoother's l1 norms); the drift c_i / d0_i
 * (infinite for a NaN), rho = max d0_i / e_i and gamma = max c_i / e_i with
 * e_i = d_i sinv_i^2 (d0_i: the l1 norms of vals0) */
static update_pass values_pass(const amg *m, const ovk_matrix *A, const double *sinv, const double *ext)
{
    int n = m->n;
    double *change = m->row_sums, *l1 = m->row_sums + n, *d0 = m->row_sums + 2 * n;
    if (sinv && !A->diag.upper) return scaled_pass(A, m->vals0, sinv, ext, d0, l1);
    update_pass u = {0.0, 0.0, 0.0, 0.0};
    for (int i = 0; i < 2 * n; i++) m->row_sums[i] = 0.0;
    rows_pass(A, m->vals0, sinv, ext, change, l1);
    for (int i = 0; i < n; i++) {
        u.l1_max = fmax(u.l1_max, l1[i]);
        row_maxima(&u, change[i], d0[i], sinv ? l1[i] * sinv[i] * sinv[i] : l1[i]);
    }
    return u;
}

/* hypre's dense copy of the coarsest level (its Gaussian elimination's),
 * freed to be made again */
static void drop_coarsest(hypre_ParAMGData *d)
{
    hypre_TFree(hypre_ParAMGDataAMat(d), HYPRE_MEMORY_HOST);
    hypre_TFree(hypre_ParAMGDataBVec(d), HYPRE_MEMORY_HOST);
    hypre_TFree(hypre_ParAMGDataCommInfo(d), HYPRE_MEMORY_HOST);
    if (hypre_ParAMGDataNewComm(d) != hypre_MPI_COMM_NULL) hypre_MPI_Comm_free(&hypre_ParAMGDataNewComm(d));
    hypre_ParAMGDataNewComm(d) = hypre_MPI_COMM_NULL;
}

/* Collective: A_{l+1} = P_l^T A_l P_l with hypre's kept P_l, from the
 * finest level down, and the coarsest level's dense copy. */
static int galerkin_again(amg *m)
{
    hypre_ParAMGData *d = (hypre_ParAMGData *)m->solver;
    hypre_ParCSRMatrix **A = hypre_ParAMGDataAArray(d), **P = hypre_ParAMGDataPArray(d);
    int nlev = hypre_ParAMGDataNumLevels(d);
    for (int l = 0; l + 1 < nlev; l++) {
        hypre_ParCSRMatrix *C = NULL;
        int rc = hy(hypre_BoomerAMGBuildCoarseOperator(P[l], A[l], P[l], &C), "hypre_BoomerAMGBuildCoarseOperator");
        if (rc) {
            if (C) hypre_ParCSRMatrixDestroy(C);
            return rc;
        }
        hypre_ParCSRMatrixDestroy(A[l + 1]);
        A[l + 1] = C;
    }
    if (m->singular) return OVK_OK; /* the coarsest level: our l1-Jacobi sweeps, no dense copy */
    drop_coarsest(d);
    return hy(hypre_GaussElimSetup(d, nlev - 1, HY_GAUSS_ELIM), "hypre_GaussElimSetup");
}

/* Collective with A's halo neighbours: m->sinv = sqrt(a0_ii / a_ii) (the
 * inverse of S in A = S A_0 S, A_0 the full setup's values, were A such a
 * scaling of it), its values at A's offd columns in A's halo
 * (A->halo.ext); lim[0] = -min, lim[1] = max over the rank's rows
 * (infinite for a factor outside [2^-32, 2^32], NaN included: the float
 * weights of S^-1 P_0 would over- or underflow; a full setup).  A failed
 * exchange is this rank's status only: the caller agrees on it. */
static int diag_scaling(amg *m, const ovk_matrix *A, double *lim)
{
    for (int i = 0; i < m->n; i++) {
        double w = sqrt(m->diag0[i] / A->diagonal[i]);
        m->sinv[i] = w;
        if (!(w >= 0x1p-32 && w <= 0x1p32)) lim[0] = lim[1] = INFINITY; /* a full setup */
        if (-w > lim[0]) lim[0] = -w;
        if (w > lim[1]) lim[1] = w;
    }
    int rc = ovk__halo_begin(A, m->sinv);
    return rc ? rc : ovk__halo_end(A);
}

/* Collective: the new values on the kept hierarchy (*kept = 1): with
 * reuse_coarse=galerkin in hypre's copy of A, the Galerkin products and our
 * levels; with keep in level 0's smoother only (the coarse levels stay
 * those of the full setup), its l1 norms and bound from the one pass over
 * the values that measures the drift.  Nothing done (*kept = 0: the caller
 * sets up afresh) when a row of A drifted past reuse_tol since the full
 * setup. */
static int update_setup(amg *m, const ovk__pc_env *env, int *kept)
{
    *kept = 0;
    double t0 = MPI_Wtime();
    /* keep forms the products all the same for a singular A (a declared
     * null space): stale coarse levels no longer carry A's null space
     * exactly, which CG on a singular A needs */
    int galerkin = m->o.reuse_coarse == RC_GALERKIN || m->singular;
    const double *sinv = galerkin ? NULL : m->sinv; /* NULL: no scaling */
    /* the drift, -min and max of sinv, the scaling's failed exchange
     * (-status), rho and gamma, in one reduction: every rank the same
     * decision */
    double lim[6] = {0.0, -INFINITY, -INFINITY, 0.0, 0.0, 0.0};
    int rc = sinv ? diag_scaling(m, env->A, lim + 1) : OVK_OK;
    lim[3] = -(double)rc;
    update_pass u = {0.0, 0.0, 0.0, 0.0};
    if (!rc) {
        u = values_pass(m, env->A, sinv, sinv ? env->A->halo.ext : NULL);
        lim[0] = u.drift, lim[4] = u.rho, lim[5] = u.gamma;
    }
    int mrc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, lim, 6, MPI_DOUBLE, MPI_MAX, m->comm), "MPI_Allreduce (amg drift)");
    if (mrc) return mrc;
    int worst = (int)-lim[3]; /* the most negative status of any rank */
    if (worst) return rc == worst ? rc : ovk__fail(worst, "amg: a rank's halo exchange of the diagonal scaling failed");
    if (sinv && !(isfinite(lim[1]) && isfinite(lim[2]))) lim[0] = INFINITY; /* a factor out of range */
    m->drift = lim[0];
    m->sinv_lo = sinv ? -lim[1] : 1.0, m->sinv_hi = sinv ? lim[2] : 1.0;
    if (!(m->drift <= m->o.reuse_tol)) return OVK_OK;
    if (galerkin) rc = ovk__agree(m->comm, fill_blocks(env->A, (hypre_ParCSRMatrix *)m->A));
    if (rc) return rc;
    double t1 = MPI_Wtime();
    if (galerkin) {
        rc = ovk__amg_cycle_scale(m->cycle, m->comm, NULL); /* the products on P_0 as set up */
        if (rc) return rc;
        scale_blocks(m); /* by the full setup's 2^-scale_exp: the hierarchy's scale */
        rc = ovk__agree(m->comm, galerkin_again(m));
        if (rc) return rc;
    }
    m->t_copy = t1 - t0, m->t_hypre = MPI_Wtime() - t1;
    rc = galerkin ? cycle_refresh(m, env->A) : refresh_level0(m, m->row_sums + m->n, lim[4], lim[5]);
    if (!rc && !galerkin) rc = ovk__amg_cycle_scale(m->cycle, m->comm, sinv);
    if (rc) return rc;
    if (env->row_l1_max) *env->row_l1_max = u.l1_max; /* the pass's l1 norms are the solver's too */
    m->updates++, m->reuses++;
    *kept = 1;
    return OVK_OK;
}

/* Collective: the global rows and entries of each level, for the view. */
static int level_sizes(amg *m)
{
    hypre_ParAMGData *d = (hypre_ParAMGData *)m->solver;
    m->nlev = hypre_ParAMGDataNumLevels(d);
    for (int l = 0; l < m->nlev; l++) {
        hypre_ParCSRMatrix *A = hypre_ParAMGDataAArray(d)[l];
        m->rows[l] = (double)hypre_ParCSRMatrixGlobalNumRows(A);
        m->nnz[l] = (double)diag_count(A) + (hypre_CSRMatrixNumCols(hypre_ParCSRMatrixOffd(A)) ? offd_count(A) : 0);
    }
    return ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, m->nnz, m->nlev, MPI_DOUBLE, MPI_SUM, m->comm),
                    "MPI_Allreduce (amg level sizes)");
}

static void amg_view(void *state, FILE *f)
{
    const amg *m = state;
    double rows = 0.0, nnz = 0.0;
    for (int l = 0; l < m->nlev; l++) rows += m->rows[l], nnz += m->nnz[l];
    if (m->o.setup == SETUP_AGG)
        fprintf(f, "  amg: setup=agg (%s aggregation, agg_threshold=%g), near-null space of %d vectors\n",
                m->o.agg_smooth ? "smoothed" : "unsmoothed", m->o.agg_threshold, m->agg_k);
    fprintf(f, "  amg: %d levels, operator complexity %.3f, grid complexity %.3f; rows (entries) by level:", m->nlev,
            m->nlev ? nnz / m->nnz[0] : 0.0, m->nlev ? rows / m->rows[0] : 0.0);
    for (int l = 0; l < m->nlev; l++) fprintf(f, " %.0f (%.0f)", m->rows[l], m->nnz[l]);
    int forced = m->singular && m->o.reuse_coarse == RC_KEEP; /* what applies: update_setup's galerkin, no scaling */
    fprintf(f, "\n  amg: last setup %s: copy of A %.3f s, %s %.3f s, our levels %.3f s; %ld full setups, "
               "%ld on the kept interpolation (reuse=%ld, reuse_coarse=%s, reuse_scale=%s, reuse_tol=%g, last drift "
               "%.3g); coarse levels in %s precision; rigid-body modes: %d",
            m->updates ? "on the kept interpolation" : "full", m->t_copy,
            m->o.setup == SETUP_AGG ? "aggregation" : "hypre", m->t_hypre, m->t_cycle, m->full_setups,
            m->reuses, m->o.reuse, forced ? "galerkin (a singular A)" : reuse_coarse_names[m->o.reuse_coarse],
            forced ? "none" : reuse_scale_names[m->o.reuse_scale], m->o.reuse_tol, m->drift,
            precision_names[m->precision], m->nmodes);
    if (m->nmodes) fprintf(f, " (%s) from level %ld on", m->from_vectors ? "the near-null space's" : "rotations", m->o.rbm_level);
    if (m->relaid) fprintf(f, "; %ld with a coarse pattern moved (our levels made anew)", m->relaid);
    if (m->derived) fprintf(f, "; %ld with level 0's smoother bound derived from the full setup's", m->derived);
    double emax = m->cycle ? ovk__amg_cycle_emax(m->cycle) : 0.0;
    if (emax > 0.0) fprintf(f, "; level 0's smoother bound emax %.17g", emax);
    if (m->updates && (m->sinv_lo != 1.0 || m->sinv_hi != 1.0))
        fprintf(f, "; level 0's transfers scaled by sqrt(a0_ii / a_ii) in [%.4g, %.4g]", m->sinv_lo, m->sinv_hi);
    fprintf(f, "\n");
}

/* Collective: hypre's whole setup and our cycle, on a new hypre copy of A. */
static int full_setup(amg *m, const ovk__pc_env *env)
{
    release(m);
    m->n = env->A->lay.nlocal;
    double t0 = MPI_Wtime();
    int rc = ovk__agree(m->comm, build_objects(m, env));
    if (rc) return rc;
    double t1 = MPI_Wtime();
    if (m->o.setup == SETUP_AGG) rc = agg_setup(m, env);
    else rc = ovk__agree(m->comm, hy(HYPRE_BoomerAMGSetup(m->solver, m->A, m->b, m->x), "HYPRE_BoomerAMGSetup"));
    if (rc) return rc;
    m->t_copy = t1 - t0, m->t_hypre = MPI_Wtime() - t1, m->t_cycle = 0.0;
    rc = cycle_setup(m, env->A);
    if (!rc) rc = level_sizes(m);
    if (rc) return rc;
    if (m->o.reuse > 0 && m->cycle) rc = ovk__agree(m->comm, keep_values(m, env->A));
    m->src = env->A, m->updates = 0, m->full_setups++;
    m->sinv_lo = m->sinv_hi = 1.0; /* a new P_0, not scaled */
    return rc;
}

static int amg_setup(void *state, const ovk__pc_env *env)
{
    amg *m = state;
    int rc = ovk__pc_diag_check(env->A, "amg"); /* l1 smoothers divide by a_ii */
    if (rc) return rc;
    rc = ovk__agree(env->comm, check_blocks(m, env));
    if (rc) return rc;
    if (m->comm == MPI_COMM_NULL && MPI_Comm_dup(env->comm, &m->comm) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Comm_dup (amg)");
    static int hypre_ready; /* hypre's process-wide state, made once */
    if (!hypre_ready) rc = hy(HYPRE_Init(), "HYPRE_Init");
    hypre_ready = !rc;
    m->singular = env->singular;
    rc = ovk__agree(m->comm, rc);
    if (rc) return rc;
    int kept = 0; /* a value update of the same matrix: the kept P while it serves */
    if (m->cycle && m->vals0 && m->src == env->A && m->updates < m->o.reuse) rc = update_setup(m, env, &kept);
    if (!rc && !kept) rc = full_setup(m, env);
    return rc;
}

/* z = V-cycle(r): hypre's vectors borrow r and z for the call */
static int amg_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    amg *m = state;
    if (m->cycle) return ovk__amg_cycle_apply(m->cycle, r, z, h);
    /* hypre's cycle calls no hook: reductions in flight progress only by themselves */
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
    return hy(herr, "HYPRE_BoomerAMGSolve");
}

/* z[j] = V-cycle(r[j]) for k systems: ours on all k at once, hypre's
 * system by system */
static int amg_apply_many(void *state, int k, const double *const *r, double *const *z, double *rz, double *rr,
                          const ovk__hook *h)
{
    amg *m = state;
    (void)rz, (void)rr; /* no apply_dots: never asked for the sums */
    if (m->cycle) return ovk__amg_cycle_apply_many(m->cycle, k, r, z, h);
    int rc = OVK_OK;
    for (int j = 0; j < k && !rc; j++) rc = amg_apply(state, r[j], z[j], h);
    return rc;
}

const ovk__pc_type ovk__pc_amg = {
    .name = "amg", .alias = "boomeramg",
    .description = "algebraic multigrid: one V-cycle over hypre BoomerAMG's hierarchy (symmetric smoothing)",
    .options = "setup=boomeramg|agg (boomeramg: hypre's classical hierarchy; agg: our smoothed aggregation, "
               "cycle=ovk); agg_smooth=0|1 (1, setup=agg: smoothed prolongator); agg_mis2=N (1, setup=agg: levels "
               "aggregated on a distance-2 MIS, the rest on a distance-1 MIS); agg_threshold=0..1 (0, setup=agg: "
               "strength of connection); agg_corr=1..2 (1, setup=agg: coarse corrections times this); cycle=ovk|hypre (ovk: ours on hypre's hierarchy); strong_threshold=0..1 (0.25; 0.5 when bs>=3); "
               "coarsen=hmis|pmis|falgout|cljp (pmis; hmis when bs>1); interp=ext+i|ext|classical|direct|multipass; pmax=N (4, 0: no "
               "limit); smoother=cheby|l1jacobi (cycle=ovk, cheby) or l1gs|sgs|l1jacobi|cheby (cycle=hypre, l1gs); "
               "degree=N (1, cheby steps, cycle=ovk); ratio=R (4; 10 when bs>1: cheby interval emax/emin, cycle=ovk); "
               "precision=single|double (single, double with a null space: the coarse levels' values and the "
               "interpolation in float, cycle=ovk); sweeps=N (1); "
               "max_levels=N (25); agg_levels=N (1; 0 when bs>1: levels of aggressive coarsening); coarse_size=N (9); bs=N (1, "
               "unknowns per node); nodal=0..6 (4 when bs>1); rbm=0|1 (1: rigid-body modes from the "
               "solver's near-null space or coordinates); rbm_level=N (2, the first level whose interpolation takes them; 0: all); "
               "qmax=N (4); reuse=K (20 with cycle=ovk, value updates served by the kept interpolation; 0: none); reuse_tol=T "
               "(0.3, a row's relative change that forces a full setup, with reuse_scale=diag that of S^-1 A S^-1); "
               "reuse_coarse=keep|galerkin (keep: the full setup's "
               "coarse levels, level 0's smoother refreshed; galerkin: P^T A P again); reuse_scale=diag|none (diag with "
               "keep: level 0's transfers those of S^-1 P_0, s_i = sqrt(a_ii / a_ii of the full setup), for A = S A_0 S the "
               "Galerkin coarse correction on the kept S^-1 P_0; s_i outside [2^-32, 2^32]: a full setup); print=0..3 "
               "(hypre's print level)",
    .needs_matrix = 1,
    .create = amg_create, .setup = amg_setup, .destroy = amg_destroy, .view = amg_view,
    .apply = amg_apply, .apply_many = amg_apply_many,
};
