/* KSP ovkrylov inside the loops of PETSc programs, at any number of ranks:
 *  - symmetry to rounding: a 2-D Laplacian whose mirrored entries differ
 *    by assembly noise (1e-16 of the row's scale, an exact zero against
 *    1e-18) solves under alg1 and minres; the same matrix with one real
 *    asymmetry (and a smaller one elsewhere) is refused on every rank
 *    naming the larger; declared MAT_SYMMETRIC it is taken at its word;
 *  - matrix-free Newton (SNES -snes_mf, a Bratu problem of our own) with
 *    alg1 and a tolerance below the finite differences' accuracy: the
 *    stagnating true residual stops each linear solve (KSP_CONVERGED_RTOL,
 *    as KSPCG reports it) and Newton converges in KSPCG's Newton steps;
 *  - a time loop of KSPSetOperators + KSPSolve with the same values
 *    re-assembled, new values and a new pattern: -ksp_ovkrylov_log_view's
 *    counts of setups and numeric setups match what changed;
 *  - PETSc's GMRES options: -ksp_gmres_restart 7 reaches gmres's restart
 *    (-ksp_view shows gmres:restart=7), -ksp_gmres_modifiedgramschmidt is
 *    refused naming the option; a bad spec key under a prefix named as
 *    typed (-fs_ksp_ovkrylov_precond ...); a MATSHELL nonsymmetric operator with no
 *    solver given solves (the default is gmres there);
 *  - KSPSetComputeSingularValues: alg1's estimate within 5 % of KSPCG's
 *    (the same Lanczos coefficients), refused under gmres;
 *  - -ksp_ovkrylov_recycle 4 with gcrodr: a KSP kept across solves keeps
 *    its space (the second solve of the same system takes fewer iterations).
 * Exit 1 on a failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <petscdmda.h>
#include <petscsnes.h>

#include "ovkrylov_petsc.h"
#include "petsc_expect.h"

enum { G = 24 }; /* grid points per direction of the 2-D problems */

/* ---- rank 0's stdout into a file, to read what the library printed ---- */

typedef struct capture {
    int saved;
    FILE *file;
} capture;

static void capture_start(capture *c)
{
    int rank;
    MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
    c->saved = -1;
    c->file = NULL;
    if (rank) return;
    fflush(stdout);
    c->file = tmpfile();
    if (!c->file) return;
    c->saved = dup(1);
    dup2(fileno(c->file), 1);
}

/* the captured text into buf (rank 0), broadcast to every rank */
static PetscErrorCode capture_end(capture *c, char *buf, size_t len)
{
    PetscFunctionBeginUser;
    buf[0] = '\0';
    if (c->file) {
        size_t n;
        fflush(stdout);
        dup2(c->saved, 1);
        close(c->saved);
        rewind(c->file);
        n = fread(buf, 1, len - 1, c->file);
        buf[n] = '\0';
        fclose(c->file);
        fputs(buf, stdout); /* the log stays visible */
    }
    PetscCallMPI(MPI_Bcast(buf, (int)len, MPI_CHAR, 0, PETSC_COMM_WORLD));
    PetscFunctionReturn(0);
}

/* ---- symmetry to rounding ---------------------------------------------- */

/* The 5-point Laplacian on G x G, scale 1 per row; noise: each a_ij with
 * i > j moved by 1e-16 (a_ij = 0 stored against a_ji = -1.7e-18 where
 * i + j is a multiple of 7, as an assembly that cancels in one order and
 * not the other); skew: a_ij += skew for the pair (s1, s1 + 1) and
 * skew / 10 for (s2, s2 + 1). */
static PetscErrorCode laplacian(double skew, PetscInt s1, PetscInt s2, Mat *A)
{
    PetscInt lo, hi, n = G * G;
    PetscFunctionBeginUser;
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 7, NULL, 7, NULL, A));
    PetscCall(MatGetOwnershipRange(*A, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) {
        PetscInt x = i % G, y = i / G, cols[7], nc = 0;
        PetscScalar v[7];
        const PetscInt nb[4] = {x > 0 ? i - 1 : -1, x < G - 1 ? i + 1 : -1, y > 0 ? i - G : -1, y < G - 1 ? i + G : -1};
        cols[nc] = i, v[nc++] = 1.0;
        for (int k = 0; k < 4; k++) {
            PetscInt j = nb[k];
            if (j < 0) continue;
            cols[nc] = j;
            v[nc] = -0.25;
            if (i > j) v[nc] += 1e-16 * (double)((i * 7 + j) % 5 - 2); /* the mirror of a_ji, rounded apart */
            if (i == s1 && j == s1 + 1) v[nc] += skew;
            if (i == s2 && j == s2 + 1) v[nc] += skew / 10;
            nc++;
        }
        /* an entry stored on both sides, 0 on one and noise on the other */
        if ((i + 2 * G) < n && (i % 7) == 0) cols[nc] = i + 2 * G, v[nc++] = 0.0;
        if (i - 2 * G >= 0 && ((i - 2 * G) % 7) == 0) cols[nc] = i - 2 * G, v[nc++] = -1.7e-18;
        PetscCall(MatSetValues(*A, 1, &i, nc, cols, v, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* A solve of A x = b (b from the global row) by ovkrylov's solver with
 * PETSc's jacobi: the PETSc error code (0: solved) and its message, the
 * KSP's reason and iterations, the true relative residual. */
typedef struct outcome {
    PetscErrorCode ierr;
    char msg[1024];
    KSPConvergedReason reason;
    PetscInt its;
    PetscReal rel;
} outcome;

static PetscErrorCode solve_with(Mat A, const char *solver, outcome *o)
{
    KSP ksp;
    PC pc;
    Vec b, x, r;
    PetscReal nb, nr;
    const char *text = NULL;
    PetscFunctionBeginUser;
    memset(o, 0, sizeof *o);
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecDuplicate(b, &r));
    PetscCall(VecSetRandom(b, NULL));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, KSPOVKRYLOV));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 500));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_solver", solver));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_solver"));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    o->ierr = KSPSolve(ksp, b, x);
    PetscCall(PetscPopErrorHandler());
    if (o->ierr) {
        PetscCall(PetscErrorMessage(o->ierr, &text, NULL)); /* the code's text; the detail below */
        snprintf(o->msg, sizeof o->msg, "%s", text ? text : "");
    } else {
        PetscCall(KSPGetConvergedReason(ksp, &o->reason));
        PetscCall(KSPGetIterationNumber(ksp, &o->its));
        PetscCall(MatMult(A, x, r));
        PetscCall(VecAYPX(r, -1.0, b));
        PetscCall(VecNorm(r, NORM_2, &nr));
        PetscCall(VecNorm(b, NORM_2, &nb));
        o->rel = nr / nb;
    }
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&r));
    PetscFunctionReturn(0);
}

static PetscErrorCode test_symmetry(void)
{
    static const char *solvers[] = {"alg1", "minres"};
    Mat A;
    outcome o;
    char culprit[64], smaller[64];
    PetscInt s1 = (G * G) / 2 + 3, s2 = G + 5;
    PetscFunctionBeginUser;
    PetscCall(laplacian(0.0, -1, -1, &A));
    for (int k = 0; k < 2; k++) {
        PetscCall(solve_with(A, solvers[k], &o));
        EXPECT(!o.ierr && o.reason > 0 && o.rel < 1e-6, "noise in the mirrors, %s: error %d, reason %s, true residual %.2e\n", solvers[k],
               (int)o.ierr, o.ierr ? "-" : KSPConvergedReasons[o.reason], (double)o.rel);
    }
    PetscCall(MatDestroy(&A));
    /* one real asymmetry of 1e-3 and one of 1e-4 elsewhere: refused, naming the larger */
    PetscCall(laplacian(1e-3, s1, s2, &A));
    {
        KSP ksp;
        Vec b, x;
        PetscErrorCode ierr;
        char *m = NULL;
        PetscCall(MatCreateVecs(A, &x, &b));
        PetscCall(VecSet(b, 1.0));
        PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
        PetscCall(KSPSetType(ksp, KSPOVKRYLOV));
        PetscCall(KSPSetOperators(ksp, A, A));
        PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_solver", "alg1"));
        PetscCall(KSPSetFromOptions(ksp));
        PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_solver"));
        PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
        ierr = KSPSolve(ksp, b, x);
        PetscCall(PetscPopErrorHandler());
        if (ierr) PetscCall(PetscErrorMessage(ierr, NULL, &m));
        /* the message names the pair both ways: A(i,j) = .. but A(j,i) = .. */
        snprintf(culprit, sizeof culprit, "A(%" PetscInt_FMT ",%" PetscInt_FMT ")", s1, s1 + 1);
        snprintf(smaller, sizeof smaller, "A(%" PetscInt_FMT ",%" PetscInt_FMT ")", s2, s2 + 1);
        EXPECT(ierr == PETSC_ERR_ARG_WRONG && m && strstr(m, culprit) && !strstr(m, smaller) && strstr(m, "largest mismatch"),
               "a real asymmetry: error %d '%s', expected one naming %s (the larger of two)\n", (int)ierr, m ? m : "", culprit);
        PetscCall(KSPDestroy(&ksp));
        /* declared symmetric by the program: taken at its word, no check */
        PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
        PetscCall(solve_with(A, "alg1", &o));
        EXPECT(!o.ierr && o.reason > 0, "MAT_SYMMETRIC set: error %d, the matrix should be taken as symmetric\n", (int)o.ierr);
        PetscCall(VecDestroy(&x));
        PetscCall(VecDestroy(&b));
    }
    PetscCall(MatDestroy(&A));
    PetscFunctionReturn(0);
}

/* ---- matrix-free Newton: Bratu ------------------------------------------ */

/* F(u) = -Laplacian(u) h^2 - h^2 lambda exp(u), u = 0 on the boundary */
static PetscErrorCode bratu(DMDALocalInfo *info, PetscScalar **u, PetscScalar **f, void *ctx)
{
    const PetscReal lambda = 5.0, h = 1.0 / (info->mx - 1), h2 = h * h;
    (void)ctx;
    PetscFunctionBeginUser;
    for (PetscInt j = info->ys; j < info->ys + info->ym; j++)
        for (PetscInt i = info->xs; i < info->xs + info->xm; i++) {
            if (i == 0 || j == 0 || i == info->mx - 1 || j == info->my - 1) {
                f[j][i] = u[j][i];
                continue;
            }
            f[j][i] = 4.0 * u[j][i] - u[j][i - 1] - u[j][i + 1] - u[j - 1][i] - u[j + 1][i] - h2 * lambda * PetscExpScalar(u[j][i]);
        }
    PetscFunctionReturn(0);
}

/* Newton with the matrix-free Jacobian and no preconditioner (-snes_mf),
 * KSP rtol 1e-10: the Newton steps, whether it converged, the linear
 * iterations in all */
static PetscErrorCode newton(KSPType type, const char *solver, PetscInt *steps, SNESConvergedReason *reason, PetscInt *lin)
{
    DM da;
    SNES snes;
    KSP ksp;
    Vec u;
    PetscFunctionBeginUser;
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 32, 32, PETSC_DECIDE, PETSC_DECIDE, 1, 1,
                           NULL, NULL, &da));
    PetscCall(DMSetUp(da));
    PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
    PetscCall(SNESSetDM(snes, da));
    PetscCall(DMDASNESSetFunctionLocal(da, INSERT_VALUES, (PetscErrorCode(*)(DMDALocalInfo *, void *, void *, void *))bratu, NULL));
    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPSetType(ksp, type));
    PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
    PetscCall(PetscOptionsSetValue(NULL, "-snes_mf", NULL));
    if (solver) PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_solver", solver));
    PetscCall(SNESSetFromOptions(snes));
    PetscCall(PetscOptionsClearValue(NULL, "-snes_mf"));
    if (solver) PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_solver"));
    PetscCall(DMCreateGlobalVector(da, &u));
    PetscCall(VecSet(u, 0.0));
    PetscCall(SNESSolve(snes, NULL, u));
    PetscCall(SNESGetIterationNumber(snes, steps));
    PetscCall(SNESGetConvergedReason(snes, reason));
    PetscCall(SNESGetLinearSolveIterations(snes, lin));
    PetscCall(VecDestroy(&u));
    PetscCall(SNESDestroy(&snes));
    PetscCall(DMDestroy(&da));
    PetscFunctionReturn(0);
}

static PetscErrorCode test_newton(void)
{
    PetscInt steps[2], lin[2];
    SNESConvergedReason reason[2];
    PetscFunctionBeginUser;
    PetscCall(newton(KSPCG, NULL, &steps[0], &reason[0], &lin[0]));
    PetscCall(newton(KSPOVKRYLOV, "alg1", &steps[1], &reason[1], &lin[1]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-snes_mf Bratu: KSPCG %" PetscInt_FMT " Newton steps (%" PetscInt_FMT " linear), ovkrylov alg1 %" PetscInt_FMT " (%" PetscInt_FMT ")\n",
                          steps[0], lin[0], steps[1], lin[1]));
    EXPECT(reason[0] > 0, "-snes_mf with KSPCG: %s\n", SNESConvergedReasons[reason[0]]);
    EXPECT(reason[1] > 0 && steps[1] <= steps[0], "-snes_mf with ovkrylov alg1: %s in %" PetscInt_FMT " Newton steps, KSPCG %" PetscInt_FMT "\n",
           SNESConvergedReasons[reason[1]], steps[1], steps[0]);
    PetscFunctionReturn(0);
}

/* ---- a time loop: what a setup redoes ---------------------------------- */

/* the rows of the G x G Laplacian times scale (+ shift on the diagonal),
 * with an extra entry (i, i + 2) on every row when wide */
static PetscErrorCode assemble(Mat A, double scale, int wide)
{
    PetscInt lo, hi, n = G * G;
    PetscFunctionBeginUser;
    PetscCall(MatGetOwnershipRange(A, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) {
        PetscInt cols[5], nc = 0;
        PetscScalar v[5];
        cols[nc] = i, v[nc++] = 4.5 * scale;
        if (i % G) cols[nc] = i - 1, v[nc++] = -scale;
        if ((i + 1) % G) cols[nc] = i + 1, v[nc++] = -scale;
        if (i >= G) cols[nc] = i - G, v[nc++] = -scale;
        if (i + G < n) cols[nc] = i + G, v[nc++] = -scale;
        PetscCall(MatSetValues(A, 1, &i, nc, cols, v, INSERT_VALUES));
        if (wide && i + 2 < n && (i + 2) % G > 1) { /* symmetric: (i, i+2) and (i+2, i) */
            PetscInt r2 = i + 2;
            PetscScalar w = -0.01 * scale;
            PetscCall(MatSetValues(A, 1, &i, 1, &r2, &w, INSERT_VALUES));
            PetscCall(MatSetValues(A, 1, &r2, 1, &i, &w, INSERT_VALUES));
        }
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* the counts of the log's lines "S setup(s), N numeric setup(s) ...; K solve(s)" in order */
static int log_counts(const char *text, int counts[][3], int most)
{
    int k = 0;
    for (const char *p = strstr(text, "ovk log_view:"); p && k < most; p = strstr(p + 1, "ovk log_view:")) {
        const char *line = strchr(p, '\n'), *numeric, *solves;
        if (!line || !(numeric = strchr(line, ',')) || !(solves = strchr(line, ';')) ||
            sscanf(line + 1, "%d", &counts[k][0]) != 1 || sscanf(numeric + 1, "%d", &counts[k][1]) != 1 ||
            sscanf(solves + 1, "%d", &counts[k][2]) != 1)
            return -1;
        k++;
    }
    return k;
}

static PetscErrorCode test_time_loop(void)
{
    /* the Jacobian of each step: its scale and pattern */
    static const struct {
        double scale;
        int wide;
    } step[] = {{1, 0}, {1, 0}, {1, 0}, {1.5, 0}, {2, 0}, {2, 1}, {2, 1}, {2, 1}};
    enum { STEPS = sizeof step / sizeof step[0] };
    static char text[1 << 15];
    int counts[4][3], k;
    Mat A;
    KSP ksp;
    Vec b, x;
    capture cap;
    PetscFunctionBeginUser;
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, G * G, G * G, 7, NULL, 7, NULL, &A));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(assemble(A, 1.0, 0));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSet(b, 1.0));
    capture_start(&cap);
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, KSPOVKRYLOV));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_solver", "alg1"));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_precond", "jacobi"));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_log_view", "1"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_solver"));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_precond"));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_log_view"));
    for (int t = 0; t < STEPS; t++) {
        if (t) PetscCall(assemble(A, step[t].scale, step[t].wide)); /* a re-assembly, also of the same values */
        PetscCall(KSPSetOperators(ksp, A, A));
        PetscCall(KSPSolve(ksp, b, x));
    }
    PetscCall(KSPDestroy(&ksp));
    PetscCall(capture_end(&cap, text, sizeof text));
    /* the first solver: made once, new values at steps 3 and 4, 5 solves;
       the new pattern's: made once, nothing new, 3 solves */
    k = log_counts(text, counts, 4);
    EXPECT(k == 2, "time loop: %d logs of -ksp_ovkrylov_log_view, expected 2 (the pattern changed once)\n", k);
    if (k == 2) {
        EXPECT(counts[0][0] == 1 && counts[0][1] == 2 && counts[0][2] == 5,
               "time loop, first pattern: %d setups, %d numeric, %d solves; expected 1, 2 (two new values), 5\n", counts[0][0], counts[0][1],
               counts[0][2]);
        EXPECT(counts[1][0] == 1 && counts[1][1] == 0 && counts[1][2] == 3,
               "time loop, second pattern: %d setups, %d numeric, %d solves; expected 1, 0, 3\n", counts[1][0], counts[1][1], counts[1][2]);
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscFunctionReturn(0);
}

/* ---- PETSc's GMRES options and the default solver ----------------------- */

/* y = A x of the upwind convection-diffusion on G x G, matrix-free */
static PetscErrorCode convdiff_mult(Mat M, Vec xv, Vec yv)
{
    Mat A;
    PetscFunctionBeginUser;
    PetscCall(MatShellGetContext(M, &A));
    PetscCall(MatMult(A, xv, yv));
    PetscFunctionReturn(0);
}

static PetscErrorCode convdiff(Mat *A)
{
    PetscInt lo, hi, n = G * G;
    PetscFunctionBeginUser;
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 5, NULL, 5, NULL, A));
    PetscCall(MatGetOwnershipRange(*A, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) {
        PetscInt cols[5], nc = 0;
        PetscScalar v[5];
        cols[nc] = i, v[nc++] = 6.0;
        if (i % G) cols[nc] = i - 1, v[nc++] = -3.0; /* upwind */
        if ((i + 1) % G) cols[nc] = i + 1, v[nc++] = -1.0;
        if (i >= G) cols[nc] = i - G, v[nc++] = -1.0;
        if (i + G < n) cols[nc] = i + G, v[nc++] = -1.0;
        PetscCall(MatSetValues(*A, 1, &i, nc, cols, v, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

static PetscErrorCode test_gmres_options(void)
{
    static char text[1 << 15];
    Mat A, S;
    KSP ksp;
    Vec b, x;
    PetscInt m, n;
    PetscErrorCode ierr;
    KSPConvergedReason reason;
    char *msg = NULL;
    capture cap;
    PetscFunctionBeginUser;
    PetscCall(convdiff(&A));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSet(b, 1.0));
    /* -ksp_gmres_restart 7 and nothing else: gmres:restart=7 */
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, KSPOVKRYLOV));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_gmres_restart", "7"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_gmres_restart"));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    EXPECT(reason > 0, "-ksp_gmres_restart 7: %s\n", KSPConvergedReasons[reason]);
    capture_start(&cap);
    PetscCall(KSPView(ksp, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(capture_end(&cap, text, sizeof text));
    EXPECT(strstr(text, "gmres:restart=7") != NULL, "-ksp_gmres_restart 7: -ksp_view does not show gmres:restart=7\n");
    PetscCall(KSPDestroy(&ksp));
    /* modified Gram-Schmidt: refused, naming the option */
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, KSPOVKRYLOV));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_gmres_modifiedgramschmidt", NULL));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = KSPSetFromOptions(ksp);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_gmres_modifiedgramschmidt"));
    if (ierr) PetscCall(PetscErrorMessage(ierr, NULL, &msg));
    EXPECT(ierr == PETSC_ERR_SUP && msg && strstr(msg, "-ksp_gmres_modifiedgramschmidt"), "modified Gram-Schmidt: error %d '%s'\n", (int)ierr,
           msg ? msg : "");
    PetscCall(KSPDestroy(&ksp));
    /* a bad value under a prefix: PETSc's "Invalid argument", naming the option as typed */
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOptionsPrefix(ksp, "fs_"));
    PetscCall(KSPSetType(ksp, KSPOVKRYLOV));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(PetscOptionsSetValue(NULL, "-fs_ksp_ovkrylov_precond", "jacobi:nosuchkey=1"));
    PetscCall(PetscOptionsSetValue(NULL, "-fs_ksp_ovkrylov_solver", "gmres"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscOptionsClearValue(NULL, "-fs_ksp_ovkrylov_precond"));
    PetscCall(PetscOptionsClearValue(NULL, "-fs_ksp_ovkrylov_solver"));
    msg = NULL;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = KSPSolve(ksp, b, x);
    PetscCall(PetscPopErrorHandler());
    if (ierr) PetscCall(PetscErrorMessage(ierr, NULL, &msg));
    EXPECT(ierr == PETSC_ERR_ARG_WRONG && msg && strstr(msg, "-fs_ksp_ovkrylov_precond jacobi:nosuchkey=1"),
           "a bad key under prefix fs_: error %d '%s'\n", (int)ierr, msg ? msg : "");
    PetscCall(KSPDestroy(&ksp));
    /* a nonsymmetric MATSHELL, no solver given: the default (gmres) solves it */
    PetscCall(MatGetLocalSize(A, &m, &n));
    PetscCall(MatCreateShell(PETSC_COMM_WORLD, m, n, G * G, G * G, A, &S));
    PetscCall(MatShellSetOperation(S, MATOP_MULT, (void (*)(void))convdiff_mult));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, KSPOVKRYLOV));
    PetscCall(KSPSetOperators(ksp, S, S));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    EXPECT(reason > 0, "a nonsymmetric MATSHELL under the default solver: %s\n", KSPConvergedReasons[reason]);
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&S));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscFunctionReturn(0);
}

/* ---- -ksp_view_singularvalues: the CG variants' Lanczos estimate -------- */

/* KSPSetComputeSingularValues on the Laplacian with PETSc's jacobi: the
 * extreme estimates of type (and ovkrylov's solver), or the error */
static PetscErrorCode singular_values(Mat A, Vec b, KSPType type, const char *solver, PetscReal *emax, PetscReal *emin, PetscErrorCode *ierr)
{
    KSP ksp;
    PC pc;
    Vec x;
    PetscFunctionBeginUser;
    *emax = *emin = 0;
    PetscCall(VecDuplicate(b, &x));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, type));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetComputeSingularValues(ksp, PETSC_TRUE));
    if (solver) PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_solver", solver));
    PetscCall(KSPSetFromOptions(ksp));
    if (solver) PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_solver"));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    *ierr = KSPSolve(ksp, b, x);
    if (!*ierr) *ierr = KSPComputeExtremeSingularValues(ksp, emax, emin);
    PetscCall(PetscPopErrorHandler());
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscFunctionReturn(0);
}

static PetscErrorCode test_singular_values(void)
{
    Mat A;
    Vec b;
    PetscReal cg[2], ovk[2], none[2];
    PetscErrorCode ierr[3];
    PetscFunctionBeginUser;
    PetscCall(laplacian(0.0, -1, -1, &A));
    PetscCall(MatCreateVecs(A, NULL, &b));
    PetscCall(VecSet(b, 1.0));
    PetscCall(singular_values(A, b, KSPCG, NULL, &cg[0], &cg[1], &ierr[0]));
    PetscCall(singular_values(A, b, KSPOVKRYLOV, "alg1", &ovk[0], &ovk[1], &ierr[1]));
    PetscCall(singular_values(A, b, KSPOVKRYLOV, "gmres", &none[0], &none[1], &ierr[2]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "singular values: KSPCG %.4g .. %.4g, ovkrylov alg1 %.4g .. %.4g\n", (double)cg[1], (double)cg[0],
                          (double)ovk[1], (double)ovk[0]));
    EXPECT(!ierr[0] && !ierr[1] && ovk[1] > 0 && PetscAbsReal(ovk[0] - cg[0]) <= 0.05 * cg[0] && PetscAbsReal(ovk[1] - cg[1]) <= 0.05 * cg[1],
           "-ksp_view_singularvalues under alg1: %.6g .. %.6g (error %d), KSPCG %.6g .. %.6g\n", (double)ovk[1], (double)ovk[0], (int)ierr[1],
           (double)cg[1], (double)cg[0]);
    EXPECT(ierr[2] == PETSC_ERR_SUP, "-ksp_view_singularvalues under gmres: error %d, expected a refusal\n", (int)ierr[2]);
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscFunctionReturn(0);
}

/* ---- -ksp_ovkrylov_recycle: a KSP kept across solves keeps its space ---- */

static PetscErrorCode test_recycle(void)
{
    Mat A;
    KSP ksp;
    Vec b, x;
    PetscInt its[3];
    KSPConvergedReason reason;
    PetscFunctionBeginUser;
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, G * G, G * G, 5, NULL, 5, NULL, &A));
    PetscCall(assemble(A, 1.0, 0));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSet(b, 1.0));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, KSPOVKRYLOV));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_solver", "gcrodr:restart=10"));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_recycle", "4"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_solver"));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_recycle"));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
    for (int t = 0; t < 3; t++) {
        if (t == 2) PetscCall(assemble(A, 1.5, 0)); /* new values: the space is made again for them */
        PetscCall(KSPSetOperators(ksp, A, A));
        PetscCall(VecSet(x, 0.0));
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(KSPGetIterationNumber(ksp, &its[t]));
        PetscCall(KSPGetConvergedReason(ksp, &reason));
        EXPECT(reason > 0, "recycle: solve %d did not converge (%d)\n", t, (int)reason);
    }
    /* the option reached the solver: the second solve of the same system starts from the space */
    EXPECT(its[1] < its[0], "recycle: %d iterations recycled, %d for the first solve\n", (int)its[1], (int)its[0]);
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(KSPOvkrylovRegister());
    PetscCall(test_symmetry());
    PetscCall(test_newton());
    PetscCall(test_time_loop());
    PetscCall(test_gmres_options());
    PetscCall(test_singular_values());
    PetscCall(test_recycle());
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", fails ? "FAIL" : "PASS"));
    PetscCall(PetscFinalize());
    return fails ? 1 : 0;
}
