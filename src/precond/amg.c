/* Algebraic multigrid: one V-cycle per application over the hierarchy of
 * hypre's BoomerAMG (setup=boomeramg, amg_boomer.c) or ours (setup=agg);
 * the cycle is ours (amg_cycle.c, cycle=ovk, the default) or hypre's
 * BoomerAMGSolve (cycle=hypre, with setup=boomeramg).
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
 * setup=agg: the hierarchy is our smoothed aggregation (amg_agg.c, on our
 * level type, amg_agg_setup.c) under our cycle, the near-null space (the
 * application's vectors, the rigid-body modes of the coordinates, or the
 * constants per unknown) in its tentative prolongator (amg_modes.c); a
 * value update with galerkin forms the products on the kept prolongators.
 *
 * hypre's side (setup=boomeramg, cycle=hypre) is built only when CMake
 * finds hypre with 64-bit global indices (libhypre64m-dev) on the same MPI
 * as the library; without it setup=agg is the default and
 * setup=boomeramg and cycle=hypre are refused by name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amg.h"
#include "amg_levels.h"

static const char *const coarsen_names[] = {"hmis", "pmis", "falgout", "cljp", NULL};
static const char *const interp_names[] = {"ext+i", "ext", "classical", "direct", "multipass", NULL};
static const char *const smoother_names[] = {"l1gs", "sgs", "l1jacobi", "cheby", NULL};
static const char *const cycle_names[] = {"ovk", "hypre", NULL};
static const char *const precision_names[] = {"double", "single", NULL};
static const char *const reuse_coarse_names[] = {"galerkin", "keep", NULL};
static const char *const reuse_scale_names[] = {"none", "diag", NULL};
static const char *const setup_names[] = {"boomeramg", "agg", NULL};

/* setup=agg: BoomerAMG's coarsening keys do not apply, nor hypre's cycle;
 * the aggregation keys need it */
static int agg_options(ovk__amg_opts *o)
{
#ifndef OVK_HAVE_HYPRE
    if (o->setup == SETUP_BOOMERAMG)
        return ovk__fail(OVK_EUNSUPPORTED, "amg: setup=boomeramg (hypre's BoomerAMG) is not in this build: it needs "
                                           "hypre with 64-bit global indices on the library's MPI; setup=agg (the "
                                           "default here) needs none");
#endif
    if (o->setup != SETUP_AGG) {
        if (o->agg_smooth >= 0 || o->agg_threshold >= 0.0 || o->agg_mis2 >= 0 || o->agg_corr >= 0.0 || o->agg_gather >= 0.0)
            return ovk__fail(OVK_EOPTION,
                             "amg: agg_smooth, agg_threshold, agg_mis2, agg_corr and agg_gather are keys of setup=agg");
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
    if (o->agg_gather < 0.0) o->agg_gather = AGG_GATHER_DEFAULT;
    return OVK_OK;
}

static int read_options(ovk__opts *opts, ovk__amg_opts *o)
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
        OVK__OPT_DOUBLE("agg_gather", 0.0, 1e9, &o->agg_gather),
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
    ovk__amg *m = calloc(1, sizeof(ovk__amg));
    if (!m) return ovk__fail(OVK_ENOMEM, "amg");
    *state = m;
    m->comm = MPI_COMM_NULL;
    m->o = (ovk__amg_opts){.strong = -1.0, .coarsen = -1, .smoother = -1, .cycle = CYCLE_OVK, .precision = -1,
                      .degree = -1, .ratio = -1.0,
                      .pmax = 4, .sweeps = 1, .max_levels = 25, .agg_levels = -1, .coarse_size = 9, .bs = 1, .nodal = -1,
                      .rbm = 1, .qmax = 4, .rbm_level = RBM_LEVEL_DEFAULT,
                      .reuse = -1, .reuse_tol = 0.3, .reuse_coarse = REUSE_COARSE_DEFAULT, .reuse_scale = -1,
                      .setup = SETUP_DEFAULT, .agg_smooth = -1, .agg_threshold = -1.0, .agg_mis2 = -1,
                      .agg_corr = -1.0, .agg_gather = -1.0};
    return read_options(opts, &m->o);
}

/* the objects of one setup */
static void release(ovk__amg *m)
{
    ovk__amg_cycle_free(m->cycle);
    m->cycle = NULL;
#ifdef OVK_HAVE_HYPRE
    ovk__amg_boomer_release(m);
#endif
    ovk__amg_agg_release(m);
    for (int l = 0; l < MAX_LEVELS; l++) ovk__amg_rap_free(m->rap[l]), m->rap[l] = NULL;
}

static void amg_destroy(void *state)
{
    ovk__amg *m = state;
    release(m);
    free(m->vals0), free(m->row_sums), free(m->diag0), free(m->sinv);
    if (m->comm != MPI_COMM_NULL) MPI_Comm_free(&m->comm);
    free(m);
}

/* ---- setup and apply -------------------------------------------------- */

/* Local checks of the block size and the coordinates (agreed by the caller). */
static int check_blocks(const ovk__amg *m, const ovk__pc_env *env)
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

/* the hierarchy's levels (0 before a setup) */
static int levels(const ovk__amg *m)
{
    if (m->o.setup == SETUP_AGG) return m->agg.nlev;
#ifdef OVK_HAVE_HYPRE
    return ovk__amg_boomer_nlev(m);
#else
    return 0;
#endif
}

void ovk__amg_scale_values(double *const v[2], const int nnz[2], int e)
{
    double s = ldexp(1.0, -e);
    for (int b = 0; b < 2 && e; b++) {
        if (isfinite(s))
            for (int k = 0; k < nnz[b]; k++) v[b][k] *= s;
        else
            for (int k = 0; k < nnz[b]; k++) v[b][k] = ldexp(v[b][k], -e);
    }
}

int ovk__amg_unit_scale(MPI_Comm comm, double *const v[2], const int nnz[2], int *e)
{
    double amax = 0.0;
    for (int b = 0; b < 2; b++)
        for (int k = 0; k < nnz[b]; k++)
            if (fabs(v[b][k]) > amax) amax = fabs(v[b][k]); /* fmax's result, NaNs ignored */
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, &amax, 1, MPI_DOUBLE, MPI_MAX, comm),
                      "MPI_Allreduce (amg: the largest entry)");
    if (rc) return rc;
    *e = 0;
    if (amax > 0.0 && isfinite(amax)) frexp(amax, e);
    ovk__amg_scale_values(v, nnz, *e);
    return OVK_OK;
}

/* Collective: our cycle on the hierarchy (cycle=ovk and at least two
 * levels; one level, a matrix of at most coarse_size rows: hypre's solve;
 * setup=agg has two levels at least). */
int ovk__amg_cycle_setup_ours(ovk__amg *m, const ovk_matrix *A)
{
    double t0 = MPI_Wtime();
    m->precision = PREC_DOUBLE;
    if (m->o.cycle != CYCLE_OVK || levels(m) < 2) return OVK_OK;
    int jacobi = m->o.smoother == SM_L1JACOBI;
    m->precision = m->o.precision >= 0 ? m->o.precision : m->singular ? PREC_DOUBLE : PRECISION_DEFAULT;
    ovk__amg_cycle_opts co = {(int)(jacobi ? m->o.sweeps : m->o.degree), jacobi, m->o.ratio,
                              m->precision == PREC_SINGLE, m->o.setup == SETUP_AGG ? m->o.agg_corr : 1.0};
    ovk__amg_levels lv;
    if (m->o.setup == SETUP_AGG) ovk__amg_levels_of_agg(&m->agg, &lv);
#ifdef OVK_HAVE_HYPRE
    else ovk__amg_boomer_levels(m, &lv);
#endif
    int rc = ovk__amg_cycle_setup(&lv, A, m->comm, &co, &m->cycle);
    if (!rc) ovk__amg_cycle_set_scale(m->cycle, m->scale_exp);
    m->t_cycle = MPI_Wtime() - t0;
    return rc;
}

/* Collective: the global rows and entries of each level, for the view. */
static int level_sizes(ovk__amg *m)
{
    m->nlev = levels(m);
    for (int l = 0; l < m->nlev; l++) {
        if (m->o.setup == SETUP_AGG) {
            const ovk__amg_csr *A = m->agg.A[l];
            m->rows[l] = (double)A->nrows;
            m->nnz[l] = (double)ovk__amg_csr_dnnz(A) + (double)ovk__amg_csr_onnz(A);
            m->ranks[l] = A->n > 0;
        }
#ifdef OVK_HAVE_HYPRE
        else ovk__amg_boomer_level_size(m, l, &m->rows[l], &m->nnz[l], &m->ranks[l]);
#endif
    }
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, m->ranks, m->nlev, MPI_INT, MPI_SUM, m->comm),
                      "MPI_Allreduce (amg level ranks)");
    if (rc) return rc;
    return ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, m->nnz, m->nlev, MPI_DOUBLE, MPI_SUM, m->comm),
                    "MPI_Allreduce (amg level sizes)");
}

static void amg_view(void *state, FILE *f)
{
    const ovk__amg *m = state;
    double rows = 0.0, nnz = 0.0;
    for (int l = 0; l < m->nlev; l++) rows += m->rows[l], nnz += m->nnz[l];
    if (m->o.setup == SETUP_AGG)
    {
        fprintf(f, "  amg: setup=agg (%s aggregation, agg_threshold=%g, agg_gather=%g), near-null space of %d vectors; "
                   "ranks holding rows by level:",
                m->o.agg_smooth ? "smoothed" : "unsmoothed", m->o.agg_threshold, m->o.agg_gather, m->agg_k);
        for (int l = 0; l < m->nlev; l++) fprintf(f, " %d", m->ranks[l]);
        fprintf(f, "\n");
    }
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

/* Collective: the whole setup, hypre's or ours, and our cycle, on a new
 * copy of A. */
static int full_setup(ovk__amg *m, const ovk__pc_env *env)
{
    release(m);
    m->n = env->A->lay.nlocal;
    int rc = OVK_OK;
    if (m->o.setup == SETUP_AGG) rc = ovk__amg_agg_setup(m, env);
#ifdef OVK_HAVE_HYPRE
    else rc = ovk__amg_boomer_setup(m, env);
#endif
    if (rc) return rc;
    m->t_cycle = 0.0;
    rc = ovk__amg_cycle_setup_ours(m, env->A);
    if (!rc) rc = level_sizes(m);
    if (rc) return rc;
    if (m->o.reuse > 0 && m->cycle) rc = ovk__agree(m->comm, ovk__amg_keep_values(m, env->A));
    m->src = env->A, m->updates = 0, m->full_setups++;
    m->sinv_lo = m->sinv_hi = 1.0; /* a new P_0, not scaled */
    return rc;
}

static int amg_setup(void *state, const ovk__pc_env *env)
{
    ovk__amg *m = state;
    int rc = ovk__pc_diag_check(env->A, "amg"); /* l1 smoothers divide by a_ii */
    if (rc) return rc;
    rc = ovk__agree(env->comm, check_blocks(m, env));
    if (rc) return rc;
    if (m->comm == MPI_COMM_NULL && MPI_Comm_dup(env->comm, &m->comm) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Comm_dup (amg)");
    m->singular = env->singular;
    int kept = 0; /* a value update of the same matrix: the kept P while it serves */
    if (m->cycle && m->vals0 && m->src == env->A && m->updates < m->o.reuse) rc = ovk__amg_update_setup(m, env, &kept);
    if (!rc && !kept) rc = full_setup(m, env);
    return rc;
}

/* z = V-cycle(r): ours, or hypre's */
static int amg_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    ovk__amg *m = state;
    if (m->cycle) return ovk__amg_cycle_apply(m->cycle, r, z, h);
#ifdef OVK_HAVE_HYPRE
    return ovk__amg_boomer_apply(m, r, z);
#else
    return ovk__fail(OVK_EPRECOND, "amg: no cycle set up");
#endif
}

/* z[j] = V-cycle(r[j]) for k systems: ours on all k at once, hypre's
 * system by system */
static int amg_apply_many(void *state, int k, const double *const *r, double *const *z, double *rz, double *rr,
                          const ovk__hook *h)
{
    ovk__amg *m = state;
    (void)rz, (void)rr; /* no apply_dots: never asked for the sums */
    if (m->cycle) return ovk__amg_cycle_apply_many(m->cycle, k, r, z, h);
    int rc = OVK_OK;
    for (int j = 0; j < k && !rc; j++) rc = amg_apply(state, r[j], z[j], h);
    return rc;
}

const ovk__pc_type ovk__pc_amg = {
    .needs_matrix = 1,
    .create = amg_create, .setup = amg_setup, .destroy = amg_destroy, .view = amg_view,
    .apply = amg_apply, .apply_many = amg_apply_many,
};
