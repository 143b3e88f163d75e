/* ovkrylov as a PETSc KSP type: "ovkrylov" (libovkrylov_petsc, docs/guide.md,
 * "Coming from PETSc").
 *
 * Loaded into an unchanged PETSc program at run time with
 *   -dll_append PATH/libovkrylov_petsc.so -ksp_type ovkrylov
 * (PETSc calls PetscDLLibraryRegister_ovkrylov_petsc), or registered by an
 * application that links the library with KSPOvkrylovRegister() after
 * PetscInitialize.  Options, under the KSP's prefix (listed by -help):
 *   -ksp_ovkrylov_solver SPEC      ovkrylov's solver (alg1, pipecg, plcg:l=3, gmres, bicgstab, ...);
 *                                  default auto, gmres on a matrix-free operator not declared
 *                                  symmetric or with -ksp_gmres_restart N (restart=N) or
 *                                  -ksp_gmres_cgs_refinement_type (refine=)
 *   -ksp_ovkrylov_backend SPEC     the reduction backend (blocking, native, nbc, ...)
 *   -ksp_ovkrylov_precond SPEC     ovkrylov's preconditioner in place of the KSP's PC
 *   -ksp_ovkrylov_fields FILE      each row's field (0 or 1), one integer per global row, for
 *                                  ovkrylov's fieldsplit; without it the fields come from PETSc:
 *                                  the KSP's PC's two index sets (PCFieldSplitSetIS, read before
 *                                  the plug-in sets the PC to none), else the DM's field
 *                                  decomposition (KSPSetDM; two fields, or joined by
 *                                  -pc_fieldsplit_0_fields 0,1 -pc_fieldsplit_1_fields 2), else the
 *                                  operator's block size (or -pc_fieldsplit_block_size) with those
 *                                  lists; field 0's component count reaches 0=amg as bs=; with
 *                                  schur=a11 the Pmat's (1,1) block (negated when its diagonal is
 *                                  negative) is fieldsplit's Schur matrix
 *   -ksp_ovkrylov_progress_every N, -ksp_ovkrylov_replace_every N,
 *   -ksp_ovkrylov_condest 0|1, -ksp_ovkrylov_print_level N, -ksp_ovkrylov_log_view 0|1
 * The tolerances, the iteration limit, divtol and the initial guess are the
 * KSP's; the norm type is unpreconditioned (||b - A x||_2) or none (max_it
 * iterations: a smoother), the side the solver's own (CG variants left,
 * the nonsymmetric solvers right).  ovkrylov's amg takes the operator's
 * block size and near null space; MAT_SYMMETRIC or MAT_SPD set on the
 * operator skips ovkrylov's check of its values. */
#ifndef OVKRYLOV_PETSC_H
#define OVKRYLOV_PETSC_H

#include <petscksp.h>

#define KSPOVKRYLOV "ovkrylov"

/* Register KSP type "ovkrylov" (once; later calls do nothing).  Local. */
PETSC_EXTERN PetscErrorCode KSPOvkrylovRegister(void);
/* PETSc's constructor of the type (what KSPSetType(ksp, "ovkrylov") calls). */
PETSC_EXTERN PetscErrorCode KSPCreate_Ovkrylov(KSP ksp);

#endif
