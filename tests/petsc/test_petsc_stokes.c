/* KSP type "ovkrylov" on a saddle point whose fields PETSc knows: Q1-Q1
 * Stokes, stabilised (Dohrmann-Bochev: the pressure block -(M - m m^T/|K|)
 * per element, as PETSc's ksp ex43), on a DMDA of 3 components (u, v, p)
 * in the unit square, a lid-driven cavity (u = 1 on the top, 0 elsewhere on
 * the boundary, eliminated symmetrically), the pressure's constant declared
 * as the operator's null space.  The Pmat's (1,1) block is -M (the pressure
 * mass matrix, as ex43 puts -M/eta there).
 *
 * minres through the plug-in with ovkrylov's fieldsplit (type=diag, 0=amg,
 * 1=jacobi, schur=a11) taking its fields from
 *   - the DM (KSPSetDM) joined by -pc_fieldsplit_0_fields 0,1 and
 *     -pc_fieldsplit_1_fields 2,
 *   - PCFieldSplitSetIS on the KSP's PC (a multi-key 0=amg: spec),
 *   - the operator's block size (3) with the same lists, no DM,
 * and ovkrylov's minres with PETSc's own PCFIELDSPLIT through the callback,
 * against native KSPMINRES + PCFIELDSPLIT (Schur, diag, a11; hypre's
 * BoomerAMG on the velocity, jacobi on a11): each converges, its true
 * residual ||b - A x|| / ||b|| within 1.5 rtol (native minres tests the
 * preconditioned norm, ovkrylov's minres the unpreconditioned one), and
 * ovkrylov's iterations at most 1.2 times native's.  Refusals: no fields
 * at all, and a DM of 3 fields without lists, each naming the options.
 * Self-checking at any number of ranks; exit 1 on a failure. */
#include <math.h>
#include <string.h>

#include <petscdmda.h>
#include <petscksp.h>

#include "ovkrylov_petsc.h"

enum { NE = 24 }; /* elements per direction: (NE + 1)^2 nodes, 3 unknowns each */
#define RTOL 1e-8

static int fails;

static void check(int ok, const char *what)
{
    if (!ok) fails++;
    PetscCallAbort(PETSC_COMM_WORLD, PetscPrintf(PETSC_COMM_WORLD, "%s: %s\n", ok ? "ok" : "FAIL", what));
}

/* The element matrices of a square of side h, unknowns by node (0..3:
 * (0,0), (1,0), (0,1), (1,1)) then u, v, p: A's and the Pmat's (the
 * pressure block -M there), by 2x2 Gauss points. */
static void element(double h, double Ae[12][12], double Pe[12][12])
{
    const double g = 1 / sqrt(3.0), w = h * h / 4; /* weight times |J| */
    double M[4][4] = {{0}}, m[4] = {0};
    memset(Ae, 0, sizeof(double) * 144);
    for (int q = 0; q < 4; q++) {
        double xi[2] = {(q & 1 ? 1 : -1) * g, (q & 2 ? 1 : -1) * g}, N[4], dN[4][2];
        for (int a = 0; a < 4; a++) {
            double s[2] = {a & 1 ? 1 : -1, a & 2 ? 1 : -1};
            N[a] = (1 + s[0] * xi[0]) * (1 + s[1] * xi[1]) / 4;
            dN[a][0] = s[0] * (1 + s[1] * xi[1]) / 4 * 2 / h;
            dN[a][1] = s[1] * (1 + s[0] * xi[0]) / 4 * 2 / h;
        }
        for (int a = 0; a < 4; a++) {
            m[a] += N[a] * w;
            for (int b = 0; b < 4; b++) {
                double k = (dN[a][0] * dN[b][0] + dN[a][1] * dN[b][1]) * w;
                Ae[3 * a][3 * b] += k, Ae[3 * a + 1][3 * b + 1] += k; /* grad u : grad v */
                for (int d = 0; d < 2; d++) { /* (p, -div v) and its transpose */
                    double bd = -N[a] * dN[b][d] * w;
                    Ae[3 * a + 2][3 * b + d] += bd, Ae[3 * b + d][3 * a + 2] += bd;
                }
                M[a][b] += N[a] * N[b] * w;
            }
        }
    }
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) Pe[i][j] = Ae[i][j];
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            Ae[3 * a + 2][3 * b + 2] = -(M[a][b] - m[a] * m[b] / (h * h));
            Pe[3 * a + 2][3 * b + 2] = -M[a][b];
        }
}

/* A, P and b on da; the boundary velocities eliminated (rows and columns,
 * b lifted), the pressure constant as A's null space. */
static PetscErrorCode build(DM da, Mat *A, Mat *P, Vec *b)
{
    double Ae[12][12], Pe[12][12], h = 1.0 / NE;
    PetscInt xs, ys, xm, ym, nb = 0;
    MatStencil *bnd;
    Vec x, z;
    MatNullSpace nsp;
    PetscFunctionBeginUser;
    element(h, Ae, Pe);
    PetscCall(DMCreateMatrix(da, A));
    PetscCall(DMCreateMatrix(da, P));
    PetscCall(DMCreateGlobalVector(da, b));
    PetscCall(VecDuplicate(*b, &x));
    PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
    for (PetscInt j = ys; j < ys + ym && j < NE; j++) /* the elements whose lower-left node is this rank's */
        for (PetscInt i = xs; i < xs + xm && i < NE; i++) {
            MatStencil st[12];
            for (int a = 0; a < 4; a++)
                for (int c = 0; c < 3; c++) st[3 * a + c] = (MatStencil){.i = i + (a & 1), .j = j + (a >> 1), .c = c};
            PetscCall(MatSetValuesStencil(*A, 12, st, 12, st, &Ae[0][0], ADD_VALUES));
            PetscCall(MatSetValuesStencil(*P, 12, st, 12, st, &Pe[0][0], ADD_VALUES));
        }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
    /* u = 1 on the lid (y = 1), u = v = 0 elsewhere on the boundary */
    PetscCall(PetscMalloc1(2 * xm * ym, &bnd));
    for (PetscInt j = ys; j < ys + ym; j++)
        for (PetscInt i = xs; i < xs + xm; i++)
            if (i == 0 || j == 0 || i == NE || j == NE)
                for (int c = 0; c < 2; c++) bnd[nb++] = (MatStencil){.i = i, .j = j, .c = c};
    PetscScalar ***xa;
    PetscCall(VecSet(x, 0));
    PetscCall(DMDAVecGetArrayDOF(da, x, &xa));
    if (ys + ym - 1 == NE)
        for (PetscInt i = xs; i < xs + xm; i++) xa[NE][i][0] = 1;
    PetscCall(DMDAVecRestoreArrayDOF(da, x, &xa));
    PetscCall(VecSet(*b, 0));
    PetscCall(MatZeroRowsColumnsStencil(*A, nb, bnd, 1.0, x, *b));
    PetscCall(MatZeroRowsColumnsStencil(*P, nb, bnd, 1.0, NULL, NULL));
    PetscCall(PetscFree(bnd));
    PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
    PetscCall(MatSetOption(*P, MAT_SYMMETRIC, PETSC_TRUE));
    /* the constant pressure: A z = 0 */
    PetscCall(VecDuplicate(*b, &z));
    PetscCall(VecSet(z, 0));
    PetscCall(VecStrideSet(z, 2, 1.0));
    PetscCall(VecNormalize(z, NULL));
    PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_FALSE, 1, &z, &nsp));
    PetscCall(MatSetNullSpace(*A, nsp));
    PetscCall(MatNullSpaceDestroy(&nsp));
    PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&x));
    PetscFunctionReturn(0);
}

enum { FROM_NATIVE, FROM_DM, FROM_IS, FROM_BS, PETSC_PC, FROM_NOTHING, FROM_DM_NOLISTS, NCASES };

/* One solve with the prefix's options: iterations, reason and the true
 * relative residual; *err the PETSc error of a refused setup (pushed
 * handler: its message on stderr is the test's output). */
static PetscErrorCode solve(DM da, Mat A, Mat P, Vec b, int from, const char *prefix, PetscInt *its,
                            KSPConvergedReason *reason, double *rel, PetscErrorCode *err, char *text, size_t len)
{
    KSP ksp;
    PC pc;
    Vec x, r;
    double bn, rn;
    PetscFunctionBeginUser;
    *err = 0;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOptionsPrefix(ksp, prefix));
    PetscCall(KSPSetOperators(ksp, A, P));
    if (from == FROM_DM || from == FROM_DM_NOLISTS) {
        PetscCall(KSPSetDM(ksp, da));
        PetscCall(KSPSetDMActive(ksp, PETSC_FALSE));
    }
    PetscCall(KSPGetPC(ksp, &pc));
    if (from == FROM_IS) { /* velocity and pressure as the program's index sets */
        PetscInt nf;
        char **names;
        IS *is, vel;
        PetscCall(DMCreateFieldDecomposition(da, &nf, &names, &is, NULL));
        PetscCall(ISExpand(is[0], is[1], &vel));
        PetscCall(ISSetBlockSize(vel, 2));
        PetscCall(PCSetType(pc, PCFIELDSPLIT));
        PetscCall(PCFieldSplitSetIS(pc, "velocity", vel));
        PetscCall(PCFieldSplitSetIS(pc, "pressure", is[2]));
        PetscCall(ISDestroy(&vel));
        for (PetscInt f = 0; f < nf; f++) {
            PetscCall(ISDestroy(&is[f]));
            PetscCall(PetscFree(names[f]));
        }
        PetscCall(PetscFree(is));
        PetscCall(PetscFree(names));
    }
    PetscCall(KSPSetTolerances(ksp, RTOL, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(VecDuplicate(b, &r));
    if (from == FROM_NOTHING || from == FROM_DM_NOLISTS) {
        PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
        *err = KSPSetUp(ksp);
        PetscCall(PetscPopErrorHandler());
        char *specific = NULL;
        PetscCall(PetscErrorMessage(*err, NULL, &specific));
        snprintf(text, len, "%s", specific ? specific : "");
    } else {
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(KSPGetIterationNumber(ksp, its));
        PetscCall(KSPGetConvergedReason(ksp, reason));
        PetscCall(MatMult(A, x, r));
        PetscCall(VecAYPX(r, -1.0, b));
        PetscCall(VecNorm(r, NORM_2, &rn));
        PetscCall(VecNorm(b, NORM_2, &bn));
        *rel = rn / bn;
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&r));
    PetscCall(KSPDestroy(&ksp));
    PetscFunctionReturn(0);
}

/* the option name = value unless the command line gives it (to compare) */
static PetscErrorCode set(const char *name, const char *value)
{
    PetscBool given;
    PetscFunctionBeginUser;
    PetscCall(PetscOptionsHasName(NULL, NULL, name, &given));
    if (!given) PetscCall(PetscOptionsSetValue(NULL, name, value));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    DM da;
    Mat A, P;
    Vec b;
    PetscInt its[NCASES] = {0};
    KSPConvergedReason reason[NCASES] = {0};
    double rel[NCASES] = {0};
    PetscErrorCode err[NCASES] = {0};
    const char *prefix[NCASES] = {"native_", "dm_", "is_", "bs_", "pcfs_", "nothing_", "nolists_"};
    const char *what[NCASES] = {"native KSPMINRES + PCFIELDSPLIT", "fields from the DM and -pc_fieldsplit_N_fields",
                                "fields from PCFieldSplitSetIS", "fields from the block size and -pc_fieldsplit_N_fields",
                                "ovkrylov's minres with PETSc's PCFIELDSPLIT", "", ""};
    char msg[256], text[NCASES][1024] = {""};
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(KSPOvkrylovRegister());
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, NE + 1, NE + 1,
                           PETSC_DECIDE, PETSC_DECIDE, 3, 1, NULL, NULL, &da));
    PetscCall(DMSetUp(da));
    PetscCall(DMDASetFieldName(da, 0, "u"));
    PetscCall(DMDASetFieldName(da, 1, "v"));
    PetscCall(DMDASetFieldName(da, 2, "p"));
    PetscCall(build(da, &A, &P, &b));
    /* native: Schur complement, block diagonal, a11 approximating it */
    PetscCall(set("-native_ksp_type", "minres"));
    /* the same PCFIELDSPLIT under native KSPMINRES and, through the callback, under ovkrylov's minres */
    for (int j = 0; j < 2; j++) {
        int k = j ? PETSC_PC : FROM_NATIVE;
        static const char *const fs[][2] = {{"pc_type", "fieldsplit"}, {"pc_fieldsplit_block_size", "3"},
                                            {"pc_fieldsplit_0_fields", "0,1"}, {"pc_fieldsplit_1_fields", "2"},
                                            {"pc_fieldsplit_type", "schur"}, {"pc_fieldsplit_schur_fact_type", "diag"},
                                            {"pc_fieldsplit_schur_precondition", "a11"},
                                            {"fieldsplit_0_ksp_type", "preonly"}, {"fieldsplit_0_pc_type", "hypre"},
                                            {"fieldsplit_1_ksp_type", "preonly"}, {"fieldsplit_1_pc_type", "jacobi"}};
        for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++) {
            char name[96];
            snprintf(name, sizeof name, "-%s%s", prefix[k], fs[i][0]);
            PetscCall(set(name, fs[i][1]));
        }
    }
    PetscCall(set("-pcfs_ksp_type", "ovkrylov"));
    PetscCall(set("-pcfs_ksp_ovkrylov_solver", "minres"));
    for (int k = FROM_DM; k <= FROM_DM_NOLISTS; k++) {
        char name[64];
        if (k == PETSC_PC) continue;
        snprintf(name, sizeof name, "-%sksp_type", prefix[k]);
        PetscCall(set(name, "ovkrylov"));
        snprintf(name, sizeof name, "-%sksp_ovkrylov_solver", prefix[k]);
        PetscCall(set(name, "minres"));
        snprintf(name, sizeof name, "-%sksp_ovkrylov_precond", prefix[k]);
        PetscCall(set(name, k == FROM_IS ? "fieldsplit:0=amg:strong_threshold=0.25,pmax=4,1=jacobi,schur=a11"
                                         : "fieldsplit:type=diag,0=amg,1=jacobi,schur=a11"));
        if (k == FROM_DM || k == FROM_BS) {
            snprintf(name, sizeof name, "-%spc_fieldsplit_0_fields", prefix[k]);
            PetscCall(set(name, "0,1"));
            snprintf(name, sizeof name, "-%spc_fieldsplit_1_fields", prefix[k]);
            PetscCall(set(name, "2"));
        }
    }
    PetscCall(set("-nothing_pc_type", "none")); /* the block size (3) and no lists */
    for (int k = FROM_NATIVE; k <= FROM_DM_NOLISTS; k++)
        PetscCall(solve(da, A, P, b, k, prefix[k], &its[k], &reason[k], &rel[k], &err[k], text[k], sizeof text[k]));
    for (int k = FROM_NATIVE; k <= PETSC_PC; k++) {
        snprintf(msg, sizeof msg, "%s: %s, %d iterations, ||b - A x|| / ||b|| = %.2e", what[k],
                 KSPConvergedReasons[reason[k]], (int)its[k], rel[k]);
        check(reason[k] > 0 && rel[k] <= 1.5 * RTOL, msg);
        if (k == FROM_NATIVE) continue;
        snprintf(msg, sizeof msg, "%s: %d iterations, native's %d (ratio %.2f, at most 1.2)", what[k], (int)its[k],
                 (int)its[0], its[0] ? (double)its[k] / (double)its[0] : 0.0);
        check(its[k] <= 1.2 * its[0], msg);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "refused: %s\nrefused: %s\n", text[FROM_NOTHING], text[FROM_DM_NOLISTS]));
    check(err[FROM_NOTHING] && strstr(text[FROM_NOTHING], "-nothing_pc_fieldsplit_0_fields") &&
              strstr(text[FROM_NOTHING], "PCFieldSplitSetIS"),
          "fieldsplit without fields (no DM, index sets, lists or file): refused naming the ways to give them");
    check(err[FROM_DM_NOLISTS] && strstr(text[FROM_DM_NOLISTS], "3 fields") &&
              strstr(text[FROM_DM_NOLISTS], "-nolists_pc_fieldsplit_1_fields"),
          "fieldsplit on a DM of 3 fields without -pc_fieldsplit_N_fields: refused naming the lists");
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&P));
    PetscCall(VecDestroy(&b));
    PetscCall(DMDestroy(&da));
    PetscCall(PetscOptionsClear(NULL));
    PetscCall(PetscFinalize());
    return fails ? 1 : 0;
}
