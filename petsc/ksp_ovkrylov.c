/* KSP type "ovkrylov": PETSc's KSPSolve on ovkrylov's solver object, through
 * the public APIs of both (ovkrylov_petsc.h says how it is loaded and its
 * options).
 *
 * The operator: an assembled AIJ or BAIJ matrix is copied row by row
 * (MatGetRow) into an ovkrylov matrix, so that ovkrylov's kernels run the
 * products and drive the reductions in flight; SBAIJ is converted to AIJ
 * first (its rows hold one triangle).  A re-assembly of the same values
 * changes nothing (compared with the values last copied); new values on
 * the same nonzero pattern go through ovk_matrix_update_values; a new pattern or another
 * matrix builds both anew.  Any other Mat type is the operator callback
 * (MatMult).  The preconditioner: ovkrylov's own with -ksp_ovkrylov_precond
 * (the KSP's PC is then set to none), else the KSP's PC applied as the
 * preconditioner callback (PCApply).
 *
 * New values that no longer fit ovkrylov's storage (one triangle, the
 * values turned nonsymmetric) build the matrix anew.  The operator, the PC
 * and the null spaces are held by reference and compared by PETSc's object
 * state.  ovkrylov's amg gets the operator's block size (bs=) and near null
 * space (ovk_solver_set_near_nullspace).
 *
 * Vectors are not copied: the callbacks place ovkrylov's arrays in two
 * work Vecs (VecPlaceArray), the solve wraps the KSP's b and x, whose
 * layouts (and KSPMatSolve's B's and X's) are checked against the
 * operator's on every rank first (check_sizes).
 *
 * libovkrylov is not linked: the plug-in loads it (load_library) with
 * RTLD_DEEPBIND | RTLD_LOCAL and calls its functions through pointers.
 * ovkrylov's amg calls hypre with 64-bit indices (libHYPRE64m); a PETSc
 * that links hypre with 32-bit ones (Debian's) has put that one in the
 * process's global scope, and its symbols carry the same names.  Loaded
 * on its own, libovkrylov and the libraries it brings (libHYPRE64m among
 * them) look their symbols up in libovkrylov's own dependency tree first,
 * so ovkrylov's calls reach its hypre, PETSc's reach PETSc's, and hypre's
 * LAPACK calls the 32-bit-integer LAPACK libovkrylov links before hypre
 * (docs/preconditioners.md, "amg").  When the program holds copies of
 * MPI's data (find_mpi_copy), has loaded libovkrylov itself (its bindings
 * are made) or under AddressSanitizer (which refuses RTLD_DEEPBIND), the
 * plug-in shares the program's scope and refuses amg where another hypre
 * takes its calls (check_outside_library). */
#define _GNU_SOURCE /* dladdr, RTLD_DEEPBIND */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <petsc/private/kspimpl.h>

#include <ovkrylov/ovkrylov.h>

#include "ovkrylov_petsc.h"

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
#define OVKP_SCALAR_OK 0
#else
#define OVKP_SCALAR_OK 1
#endif

#if OVKP_SCALAR_OK /* else only KSPCreate_Ovkrylov, which refuses */

/* Every key of ovkrylov's option table is -[prefix]ksp_ovkrylov_KEY, but
 * those that PETSc's own options set: giving one of these is an error
 * naming the PETSc option. */
static const struct {
    const char *key, *petsc;
} petsc_owned[] = {
    {"rtol", "-ksp_rtol"},
    {"atol", "-ksp_atol"},
    {"divtol", "-ksp_divtol"},
    {"max_it", "-ksp_max_it"},
    {"initial_guess_zero", "-ksp_initial_guess_nonzero (KSPSetInitialGuessNonzero)"},
    {"monitor", "-ksp_monitor (KSPMonitorSet)"},
    {"monitor_true", "-ksp_monitor_true_residual"},
    {"view", "-ksp_view"},
    {"converged_reason", "-ksp_converged_reason"},
    {"nullspace", "MatSetNullSpace on the operator"},
    {"norm", "-ksp_norm_type (KSPSetNormType)"},
};
enum { NOWNED = sizeof petsc_owned / sizeof petsc_owned[0], MAXOPT = 32, OPTLEN = 256 };

typedef struct {
    char opt[MAXOPT][OPTLEN]; /* by the index of ovkrylov's option table */
    PetscBool given[MAXOPT];
    ovk_matrix *A;           /* the copy of an assembled operator, or NULL */
    ovk_solver *s;
    /* what s was made or last brought up to date for, each held by a
       reference (a new object never takes a held one's address) with the
       state it had then */
    Mat op;                  /* the operator */
    PetscObjectState state;  /* its state and nonzero state */
    PetscObjectState nzstate;
    MatNullSpace nsp, nnsp;  /* its null space and near-null space */
    PetscObjectState nsp_state, nnsp_state;
    PC pc;                   /* the KSP's PC as the callback (NULL: ovkrylov's own) */
    PetscBool pc_none;       /* it was PCNONE: ovkrylov's precond none, no callback */
    PetscLayout lay_op, lay_b, lay_x; /* the last layouts whose local sizes every rank agreed */
    Vec win, wout;           /* the callbacks' work vectors (arrays placed) */
    PetscErrorCode cb_err;   /* the first PETSc error of a callback */
    KSP ksp;
    /* tolerances last given to s (set only when changed: each costs a check) */
    double rtol, atol, divtol;
    int max_it, guess_zero, have_tols;
    int natural; /* the norm given to s: 1 natural (KSP_NORM_NATURAL), 0 unpreconditioned */
    int monitored; /* ovkrylov's monitor set (-1: not yet decided) */
    int declared;  /* assume_symmetric given to s from MAT_SYMMETRIC / MAT_SPD */
    int solving;   /* inside ovk_solver_solve or _solve_many (the monitors run) */
    char fields[PETSC_MAX_PATH_LEN]; /* -ksp_ovkrylov_fields FILE ("": none) */
    /* fieldsplit's fields from PETSc (petsc_fields): the PC's index sets of
       PCFieldSplitSetIS, held from before the PC is set to none; each local
       row's field; field 0's components (amg's bs=); where they came from */
    IS split_is[2];
    int *ids;
    PetscInt bs0;
    char fields_from[160];
    Mat pmat;                /* schur=a11: the Pmat whose (1,1) block s holds, and its state */
    PetscObjectState pmat_state;
    /* PETSc's GMRES options, mapped onto ovkrylov's GMRES keys (solver_spec) */
    PetscInt gmres_restart;  /* -ksp_gmres_restart (0: not given) */
    int gmres_refine;        /* -ksp_gmres_cgs_refinement_type (-1: not given) */
    char spec[OPTLEN + 64];  /* the solver spec s was given */
    /* the operator's values as last copied into A (an unchanged re-assembly
       then updates nothing): an AIJ matrix's stored blocks as PETSc keeps
       them (raw, compared without reading rows), else the rows' */
    double *vals;
    PetscInt nvals;
    int raw;
    /* -ksp_view_singularvalues (KSPSetComputeSingularValues): the CG
       variants' Lanczos estimate (ovkrylov's condest) of the last solve */
    int condest;             /* condest=1 given to s */
    double smin, smax;       /* 0, 0: none */
} KSP_Ovkrylov;

/* ---- libovkrylov, loaded on its own -------------------------------------- */

/* The library's functions the plug-in calls, as pointers load_library
 * resolves; after it, each name stands for its pointer. */
#define OVKP_API(X) \
    X(ovk_error_detail) \
    X(ovk_status_name) \
    X(ovk_strerror) \
    X(ovk_matrix_create_csr) \
    X(ovk_matrix_update_values) \
    X(ovk_matrix_destroy) \
    X(ovk_solver_create) \
    X(ovk_solver_create_operator) \
    X(ovk_solver_destroy) \
    X(ovk_solver_set_option) \
    X(ovk_solver_set_precond_fn) \
    X(ovk_solver_set_monitor) \
    X(ovk_solver_set_tolerances) \
    X(ovk_solver_set_nullspace) \
    X(ovk_solver_set_near_nullspace) \
    X(ovk_solver_set_fields) \
    X(ovk_solver_set_schur_matrix) \
    X(ovk_solver_setup) \
    X(ovk_solver_solve) \
    X(ovk_solver_solve_many) \
    X(ovk_solver_vector_create) \
    X(ovk_vector_destroy) \
    X(ovk_solver_view) \
    X(ovk_solver_system_index) \
    X(ovk_solver_type_count) \
    X(ovk_solver_type_name) \
    X(ovk_solver_option_count) \
    X(ovk_solver_option_name) \
    X(ovk_solver_option_help) \
    X(ovk_solver_option_default)

static struct {
#define OVKP_FIELD(f) __typeof__(f) *f;
    OVKP_API(OVKP_FIELD)
#undef OVKP_FIELD
} api;
#if defined(__SANITIZE_ADDRESS__)
#define OVKP_DEEPBIND 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OVKP_DEEPBIND 0
#endif
#endif
#ifndef OVKP_DEEPBIND
#define OVKP_DEEPBIND 1
#endif

static int isolated;      /* libovkrylov loaded with its own lookup scope first */
static char shared_why[160]; /* else why not */

/* *slot = the address of name in lib (a function pointer through memcpy:
 * ISO C has no cast from void *). */
static int resolve(void *lib, const char *name, void *slot)
{
    void *p = dlsym(lib, name);
    if (p) memcpy(slot, &p, sizeof p);
    return p == NULL;
}

#if OVKP_DEEPBIND
#if defined(__x86_64__)
#define OVKP_R_COPY R_X86_64_COPY
#elif defined(__aarch64__)
#define OVKP_R_COPY R_AARCH64_COPY
#endif

/* A program compiled without -fPIC holds copies of the shared data it
 * names (copy relocations), and every library that looks the name up in
 * the global scope uses the copy.  A library loaded with RTLD_DEEPBIND
 * would find the original in its own scope first: for Open MPI's
 * MPI_COMM_WORLD, MPI_INT or MPI_SUM (objects MPI_Init sets up in the
 * copy) the wrong object.  The first copy relocation in the main program
 * of the MPI library's data, named into name (empty if none; a '?' first
 * if it could not be checked). */
static int find_mpi_copy(struct dl_phdr_info *info, size_t size, void *data)
{
    char *name = data;
    const ElfW(Rela) *rela = NULL;
    const ElfW(Sym) *sym = NULL;
    const char *str = NULL;
    size_t relasz = 0;
    Dl_info mpi, def;
    void *h, *mpi_init = dlsym(RTLD_DEFAULT, "MPI_Init");
    (void)size;
    if (!mpi_init || !dladdr(mpi_init, &mpi) || !(h = dlopen(mpi.dli_fname, RTLD_LAZY | RTLD_NOLOAD))) {
        snprintf(name, 64, "?, the MPI library not found to check"); /* not known: not isolated */
        return 1;
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
        for (const ElfW(Dyn) *d = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr); d->d_tag != DT_NULL; d++) {
            /* glibc has made the addresses absolute (not on every target) */
            ElfW(Addr) a = d->d_un.d_ptr < info->dlpi_addr ? d->d_un.d_ptr + info->dlpi_addr : d->d_un.d_ptr;
            if (d->d_tag == DT_RELA) rela = (const void *)a;
            else if (d->d_tag == DT_RELASZ) relasz = d->d_un.d_val;
            else if (d->d_tag == DT_SYMTAB) sym = (const void *)a;
            else if (d->d_tag == DT_STRTAB) str = (const void *)a;
        }
    }
    for (size_t k = 0; rela && sym && str && k < relasz / sizeof *rela && !name[0]; k++) {
        const char *n = str + sym[ELF64_R_SYM(rela[k].r_info)].st_name;
        void *orig;
        if (ELF64_R_TYPE(rela[k].r_info) != OVKP_R_COPY) continue;
        orig = dlsym(h, n); /* from the MPI library's own scope: the original */
        if (orig && dladdr(orig, &def) && def.dli_fbase == mpi.dli_fbase) snprintf(name, 64, "%s", n);
    }
    dlclose(h);
    return 1; /* the main program comes first: done */
}
#endif

/* OVKP_LIBRARY from the plug-in's own directory (installed, both are in
 * the library directory), else by the plug-in's run path (the build tree)
 * and the system's search.  The directory first: a dlopen interposed by a
 * tool (AddressSanitizer's) searches the tool's run path, not ours. */
static void *open_library(int mode)
{
    char path[PATH_MAX];
    Dl_info self;
    void *lib = NULL;
    if (dladdr(&isolated, &self) && self.dli_fname && strrchr(self.dli_fname, '/')) {
        int dir = (int)(strrchr(self.dli_fname, '/') - self.dli_fname);
        if (snprintf(path, sizeof path, "%.*s/%s", dir, self.dli_fname, OVKP_LIBRARY) < (int)sizeof path &&
            !access(path, R_OK))
            lib = dlopen(path, mode);
    }
    return lib ? lib : dlopen(OVKP_LIBRARY, mode);
}

/* libovkrylov (OVKP_LIBRARY, open_library), once:
 * RTLD_DEEPBIND unless the program has loaded it already or holds copies
 * of MPI's data. */
static PetscErrorCode load_library(void)
{
    static void *lib;
    const char *missing = NULL;
    int mode = RTLD_NOW | RTLD_LOCAL;
    PetscFunctionBegin;
    if (lib) PetscFunctionReturn(0);
#if OVKP_DEEPBIND && defined(OVKP_R_COPY)
    char copied[64] = "";
    void *loaded = dlopen(OVKP_LIBRARY, RTLD_LAZY | RTLD_NOLOAD);
    if (loaded) dlclose(loaded);
    else dl_iterate_phdr(find_mpi_copy, copied);
    if (loaded) snprintf(shared_why, sizeof shared_why, "the program has loaded %s itself", OVKP_LIBRARY);
    else if (copied[0])
        snprintf(shared_why, sizeof shared_why, "the program holds copies of MPI's data (%s: built without -fPIC)", copied);
    else mode |= RTLD_DEEPBIND;
#else
    snprintf(shared_why, sizeof shared_why, "this build of the plug-in does not isolate it (sanitizer, or no copy relocation check here)");
#endif
    lib = open_library(mode);
    PetscCheck(lib, PETSC_COMM_SELF, PETSC_ERR_LIB, "KSP ovkrylov: cannot load %s: %s", OVKP_LIBRARY, dlerror());
#define OVKP_RESOLVE(f) \
    if (!missing && resolve(lib, #f, &api.f)) missing = #f;
    OVKP_API(OVKP_RESOLVE)
#undef OVKP_RESOLVE
    if (missing) lib = NULL; /* a later call tries anew (and fails the same) */
    PetscCheck(!missing, PETSC_COMM_SELF, PETSC_ERR_LIB, "KSP ovkrylov: %s has no %s (another version of ovkrylov?)", OVKP_LIBRARY,
               missing);
    isolated = (mode & RTLD_DEEPBIND) != 0;
    /* a KSP keeps a value per key of the table */
    PetscCheck((*api.ovk_solver_option_count)() <= MAXOPT, PETSC_COMM_SELF, PETSC_ERR_LIB,
               "KSP ovkrylov: %s has %d options, this plug-in room for %d (another version of ovkrylov?)", OVKP_LIBRARY,
               (*api.ovk_solver_option_count)(), MAXOPT);
    PetscFunctionReturn(0);
}

/* below, ovkrylov's names are the pointers */
#define ovk_error_detail (*api.ovk_error_detail)
#define ovk_status_name (*api.ovk_status_name)
#define ovk_strerror (*api.ovk_strerror)
#define ovk_matrix_create_csr (*api.ovk_matrix_create_csr)
#define ovk_matrix_update_values (*api.ovk_matrix_update_values)
#define ovk_matrix_destroy (*api.ovk_matrix_destroy)
#define ovk_solver_create (*api.ovk_solver_create)
#define ovk_solver_create_operator (*api.ovk_solver_create_operator)
#define ovk_solver_destroy (*api.ovk_solver_destroy)
#define ovk_solver_set_option (*api.ovk_solver_set_option)
#define ovk_solver_set_precond_fn (*api.ovk_solver_set_precond_fn)
#define ovk_solver_set_monitor (*api.ovk_solver_set_monitor)
#define ovk_solver_set_tolerances (*api.ovk_solver_set_tolerances)
#define ovk_solver_set_nullspace (*api.ovk_solver_set_nullspace)
#define ovk_solver_set_near_nullspace (*api.ovk_solver_set_near_nullspace)
#define ovk_solver_set_fields (*api.ovk_solver_set_fields)
#define ovk_solver_set_schur_matrix (*api.ovk_solver_set_schur_matrix)
#define ovk_solver_setup (*api.ovk_solver_setup)
#define ovk_solver_solve (*api.ovk_solver_solve)
#define ovk_solver_solve_many (*api.ovk_solver_solve_many)
#define ovk_solver_vector_create (*api.ovk_solver_vector_create)
#define ovk_vector_destroy (*api.ovk_vector_destroy)
#define ovk_solver_view (*api.ovk_solver_view)
#define ovk_solver_system_index (*api.ovk_solver_system_index)
#define ovk_solver_type_count (*api.ovk_solver_type_count)
#define ovk_solver_type_name (*api.ovk_solver_type_name)
#define ovk_solver_option_count (*api.ovk_solver_option_count)
#define ovk_solver_option_name (*api.ovk_solver_option_name)
#define ovk_solver_option_help (*api.ovk_solver_option_help)
#define ovk_solver_option_default (*api.ovk_solver_option_default)

/* the PETSc option that sets ovkrylov's key for the KSP, or NULL: the key
 * is forwarded */
static const char *petsc_option_for(const char *key)
{
    for (int i = 0; i < NOWNED; i++)
        if (!strcmp(petsc_owned[i].key, key)) return petsc_owned[i].petsc;
    return NULL;
}

/* The value of -ksp_ovkrylov_KEY, else (dflt) ovkrylov's default or (!dflt) NULL. */
static const char *option_value(const KSP_Ovkrylov *d, const char *key, int dflt)
{
    int n = ovk_solver_option_count();
    for (int i = 0; i < n && i < MAXOPT; i++)
        if (!strcmp(ovk_solver_option_name(i), key)) return d->given[i] ? d->opt[i] : dflt ? ovk_solver_option_default(i) : NULL;
    return NULL;
}

/* -ksp_ovkrylov_KEY was given */
static int given(const KSP_Ovkrylov *d, const char *key) { return option_value(d, key, 0) != NULL; }

/* The spec names the solver or preconditioner `name` (before its ':' options). */
static int names(const char *spec, const char *name)
{
    size_t len = strcspn(spec, ":");
    return strlen(name) == len && !strncmp(spec, name, len);
}

/* The option -[prefix]ksp_ovkrylov_KEY as the user spells it, into buf. */
static const char *opt_name(KSP ksp, const char *key, char *buf, size_t len)
{
    const char *prefix = ((PetscObject)ksp)->prefix;
    snprintf(buf, len, "-%sksp_ovkrylov_%s", prefix ? prefix : "", key);
    return buf;
}

/* the solvers that take a restart (ovkrylov's key for it in *key) */
static int restarted(const char *spec, const char **key)
{
    *key = names(spec, "sgmres") ? "m" : "restart";
    return names(spec, "gmres") || names(spec, "fgmres") || names(spec, "pgmres") || names(spec, "sgmres");
}

/* The solver without -ksp_ovkrylov_solver: gmres when a PETSc GMRES option
 * was given or the operator is matrix-free and not declared symmetric
 * (nothing checks it: PETSc's default KSP, GMRES, is then the safe one);
 * else auto, which picks a CG variant on symmetric values and a GMRES
 * variant on others (its check of the assembled values). */
static const char *default_solver(const KSP_Ovkrylov *d)
{
    PetscBool sym_set = PETSC_FALSE, sym = PETSC_FALSE, spd_set = PETSC_FALSE, spd = PETSC_FALSE;
    if (d->gmres_restart > 0 || d->gmres_refine >= 0) return "gmres";
    if (!d->op || d->A) return "auto";
    if (MatIsSymmetricKnown(d->op, &sym_set, &sym) || MatIsSPDKnown(d->op, &spd_set, &spd)) return "gmres";
    return (sym_set && sym) || (spd_set && spd) ? "auto" : "gmres";
}

/* The solver spec for s into buf: -ksp_ovkrylov_solver or the default,
 * with PETSc's -ksp_gmres_restart (restart=, sgmres's m=) and
 * -ksp_gmres_cgs_refinement_type (refine=) where the spec has none. */
static const char *solver_spec(const KSP_Ovkrylov *d, char *buf, size_t len)
{
    const char *spec = option_value(d, "solver", 0), *key;
    size_t at;
    if (!spec) spec = default_solver(d);
    snprintf(buf, len, "%s", spec);
    at = strlen(buf);
    if (d->gmres_restart > 0 && restarted(buf, &key) && !strstr(buf, key[0] == 'm' ? "m=" : "restart="))
        at += (size_t)snprintf(buf + at, len - at, "%s%s=%" PetscInt_FMT, strchr(buf, ':') ? "," : ":", key, d->gmres_restart);
    if (at < len && d->gmres_refine >= 0 && (names(buf, "gmres") || names(buf, "fgmres")) && !strstr(buf, "refine="))
        snprintf(buf + at, len - at, "%srefine=%s", strchr(buf, ':') ? "," : ":",
                 d->gmres_refine == KSP_GMRES_CGS_REFINE_NEVER ? "never" : d->gmres_refine == KSP_GMRES_CGS_REFINE_IFNEEDED ? "ifneeded" : "always");
    return buf;
}

/* The side on which ovkrylov's solver preconditions (docs/solvers.md): the
 * nonsymmetric solvers on the right (A C u = b, x = C u), the CG variants
 * (z = C r) on the left, and auto on the left until a solve says which it
 * chose. */
static PCSide solver_side(const char *spec)
{
    static const char *const right[] = {"gmres", "fgmres", "pgmres", "sgmres", "bicgstab", "pipebicgstab", "idrs", "pipeidrs"};
    for (size_t i = 0; i < sizeof right / sizeof *right; i++)
        if (names(spec, right[i])) return PC_RIGHT;
    return PC_LEFT;
}

/* PETSc's table of the norm types and sides for the solver spec: the
 * unpreconditioned norm (ovkrylov's default test) and none (fixed
 * iterations) on the side the solver preconditions; natural (ovkrylov's
 * norm=natural: alg1, the other variants refuse it at setup) and
 * preconditioned at the lowest rank, never chosen by default, so that a
 * request reaches ovkrylov or check_norm_type, which refuses
 * preconditioned naming the supported ones.  A side the user did not set
 * follows the solver. */
static PetscErrorCode set_norms(KSP ksp, const char *spec)
{
    PCSide side = solver_side(spec);
    PetscFunctionBegin;
    PetscCall(PetscMemzero(ksp->normsupporttable, sizeof ksp->normsupporttable));
    PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, side, 3));
    PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, side, 1));
    PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NATURAL, side, 1));
    PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, side, 1));
    if (ksp->pc_side_set == PC_SIDE_DEFAULT) ksp->pc_side = side;
    PetscFunctionReturn(0);
}

/* ---- status mapping ----------------------------------------------------- */

static PetscErrorCode petsc_code(int rc)
{
    switch (rc) {
    case OVK_ENOMEM: return PETSC_ERR_MEM;
    case OVK_EOPTION:
    case OVK_EBACKEND: return PETSC_ERR_ARG_WRONG; /* a value, not a missing package */
    case OVK_EUNSUPPORTED: return PETSC_ERR_SUP;
    case OVK_EINVAL:
    case OVK_ENOTSYM:
    case OVK_EZERODIAG:
    case OVK_ENONFINITE: return PETSC_ERR_ARG_WRONG;
    case OVK_EMISMATCH: return PETSC_ERR_ARG_INCOMP;
    case OVK_EMPI: return PETSC_ERR_MPI;
    default: return PETSC_ERR_LIB;
    }
}

/* An ovkrylov status (the same on every rank of a collective call) as a
 * PETSc error naming the call, the code and ovkrylov's detail. */
static PetscErrorCode check(MPI_Comm comm, int rc, const char *call)
{
    PetscFunctionBegin;
    if (rc) SETERRQ(comm, petsc_code(rc), "ovkrylov: %s: %s (%s) %s", call, ovk_status_name(rc), ovk_strerror(rc),
                    ovk_error_detail());
    PetscFunctionReturn(0);
}

/* ---- callbacks ------------------------------------------------------------ */

/* out = A in (op) or C in (pc).  The arrays are taken back also when the
 * product fails, so that the next call (ovkrylov calls on after a failure
 * until every rank has seen it) still runs the product and its
 * communication with the other ranks. */
static PetscErrorCode apply_op(KSP_Ovkrylov *d, Mat op, PC pc, const double *in, double *out)
{
    PetscErrorCode ierr;
    PetscFunctionBegin;
    PetscCall(VecPlaceArray(d->win, (const PetscScalar *)in));
    PetscCall(VecPlaceArray(d->wout, (PetscScalar *)out));
    if (op) ierr = MatMult(op, d->win, d->wout);
    else ierr = PCApply(pc, d->win, d->wout);
    PetscCall(VecResetArray(d->win));
    PetscCall(VecResetArray(d->wout));
    PetscCall(ierr);
    PetscFunctionReturn(0);
}

/* A failing callback keeps its PETSc error for the solve to return and
 * fails ovkrylov's solve (OVK_ECALLBACK on every rank). */
static int callback_status(KSP_Ovkrylov *d, PetscErrorCode ierr)
{
    if (ierr && !d->cb_err) d->cb_err = ierr;
    return ierr ? 1 : 0;
}

/* y = A x */
static int matmult_cb(ovk_solver *s, const double *in, double *out, void *ctx)
{
    KSP_Ovkrylov *d = ctx;
    (void)s;
    return callback_status(d, apply_op(d, d->op, NULL, in, out));
}

/* z = C r */
static int pcapply_cb(ovk_solver *s, const double *in, double *out, void *ctx)
{
    KSP_Ovkrylov *d = ctx;
    (void)s;
    return callback_status(d, apply_op(d, NULL, d->ksp->pc, in, out));
}

/* -ksp_monitor and KSPMonitorSet: ovkrylov's monitor brings the norm the
 * variant reduces anyway (no reduction more); 0 under KSP_NORM_NONE, as
 * PETSc's KSPs give.  Of a KSPMatSolve, system 0's. */
static int monitor_cb(ovk_solver *s, int iteration, double rnorm, double rel, void *ctx)
{
    KSP_Ovkrylov *d = ctx;
    KSP ksp = d->ksp;
    (void)rel;
    if (ovk_solver_system_index(s) > 0) return 0;
    if (ksp->normtype == KSP_NORM_NONE) rnorm = 0.0;
    ksp->its = iteration;
    ksp->rnorm = rnorm;
    KSPLogResidualHistory(ksp, rnorm);
    return callback_status(d, KSPMonitor(ksp, iteration, rnorm));
}

/* ---- the operator ------------------------------------------------------- */

/* 1 when op's rows can be read with MatGetRow (an assembled AIJ/BAIJ
 * matrix), 2 when it is SBAIJ (converted to AIJ to read both triangles),
 * 0 for any other type (the MatMult callback). */
static PetscErrorCode operator_kind(Mat op, int *kind)
{
    PetscBool rows, sym;
    PetscFunctionBegin;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)op, &rows, MATSEQAIJ, MATMPIAIJ, MATAIJ, MATSEQBAIJ, MATMPIBAIJ,
                                        MATBAIJ, ""));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)op, &sym, MATSEQSBAIJ, MATMPISBAIJ, MATSBAIJ, ""));
    *kind = rows ? 1 : sym ? 2 : 0;
    PetscFunctionReturn(0);
}

/* The rank's rows of m as CSR with global columns (arrays freed by the caller). */
static PetscErrorCode rows_csr(Mat m, int **rowptr, ovk_gidx **cols, double **vals)
{
    PetscInt lo, hi, nnz = 0, k = 0;
    int big;
    PetscFunctionBegin;
    PetscCall(MatGetOwnershipRange(m, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) {
        PetscInt nc;
        PetscCall(MatGetRow(m, i, &nc, NULL, NULL));
        nnz += nc;
        PetscCall(MatRestoreRow(m, i, &nc, NULL, NULL));
    }
    big = nnz >= INT_MAX; /* agreed: every rank raises it */
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &big, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)m)));
    PetscCheck(!big, PetscObjectComm((PetscObject)m), PETSC_ERR_SUP, "ovkrylov: more entries on one rank than an int counts");
    PetscCall(PetscMalloc3(hi - lo + 1, rowptr, nnz, cols, nnz, vals));
    (*rowptr)[0] = 0;
    for (PetscInt i = lo; i < hi; i++) {
        PetscInt nc;
        const PetscInt *c;
        const PetscScalar *v;
        PetscCall(MatGetRow(m, i, &nc, &c, &v));
        for (PetscInt j = 0; j < nc; j++, k++) (*cols)[k] = (ovk_gidx)c[j], (*vals)[k] = (double)v[j];
        PetscCall(MatRestoreRow(m, i, &nc, &c, &v));
        (*rowptr)[i - lo + 1] = (int)k;
    }
    PetscFunctionReturn(0);
}

/* An AIJ operator's stored values as PETSc keeps them, without a copy:
 * SeqAIJ's array, or MPIAIJ's diagonal and off-diagonal blocks' (*v[1]
 * NULL for SeqAIJ); 0 in *ok for any other type. */
static PetscErrorCode aij_values(Mat op, int *ok, Mat blk[2], const PetscScalar *v[2], PetscInt n[2])
{
    PetscBool seq, mpi;
    MatInfo info;
    PetscFunctionBegin;
    blk[0] = blk[1] = NULL, v[0] = v[1] = NULL, n[0] = n[1] = 0;
    PetscCall(PetscObjectTypeCompare((PetscObject)op, MATSEQAIJ, &seq));
    PetscCall(PetscObjectTypeCompare((PetscObject)op, MATMPIAIJ, &mpi));
    *ok = seq || mpi;
    if (!*ok) PetscFunctionReturn(0);
    if (seq) blk[0] = op;
    else PetscCall(MatMPIAIJGetSeqAIJ(op, &blk[0], &blk[1], NULL));
    for (int k = 0; k < 2 && blk[k]; k++) {
        PetscCall(MatGetInfo(blk[k], MAT_LOCAL, &info));
        n[k] = (PetscInt)info.nz_used;
        PetscCall(MatSeqAIJGetArrayRead(blk[k], &v[k]));
    }
    PetscFunctionReturn(0);
}

static PetscErrorCode aij_values_restore(Mat blk[2], const PetscScalar *v[2])
{
    PetscFunctionBegin;
    for (int k = 0; k < 2; k++)
        if (blk[k]) PetscCall(MatSeqAIJRestoreArrayRead(blk[k], &v[k]));
    PetscFunctionReturn(0);
}

/* 1 when op's values are those last kept (d->vals), or (keep) keep them.
 * An AIJ matrix's stored blocks are compared as they are (raw, no rows
 * read), another's rows (vals, nnz of them) as copied. */
static PetscErrorCode kept_values(KSP_Ovkrylov *d, Mat op, const double *vals, PetscInt nnz, int keep, int *same)
{
    Mat blk[2];
    const PetscScalar *v[2];
    PetscInt n[2];
    int raw;
    PetscFunctionBegin;
    if (same) *same = 0;
    PetscCall(aij_values(op, &raw, blk, v, n));
    if (raw) nnz = n[0] + n[1];
    if (!keep) {
        *same = d->vals && raw == d->raw && nnz == d->nvals;
        if (raw) *same = *same && !memcmp(v[0], d->vals, sizeof(double) * (size_t)n[0]) &&
                         !memcmp(v[1] ? v[1] : v[0], d->vals + n[0], sizeof(double) * (size_t)n[1]);
        else if (vals) *same = *same && !memcmp(vals, d->vals, sizeof(double) * (size_t)nnz);
        else *same = 0;
    } else if (raw || vals) {
        if (nnz != d->nvals || !d->vals) {
            PetscCall(PetscFree(d->vals));
            PetscCall(PetscMalloc1(nnz + 1, &d->vals));
            d->nvals = nnz;
        }
        if (raw) {
            PetscCall(PetscArraycpy(d->vals, v[0], n[0]));
            if (n[1]) PetscCall(PetscArraycpy(d->vals + n[0], v[1], n[1]));
        } else {
            PetscCall(PetscArraycpy(d->vals, vals, nnz));
        }
        d->raw = raw;
    }
    if (raw) PetscCall(aij_values_restore(blk, v));
    PetscFunctionReturn(0);
}

/* Build (update NULL) or update the values of d->A from op; *update set
 * to 0 when ovkrylov keeps the matrix in a form the new values do not fit
 * (one triangle of values no longer symmetric: OVK_EMISMATCH, agreed), to
 * be built anew. */
static PetscErrorCode copy_matrix(KSP ksp, Mat op, int kind, int *update)
{
    KSP_Ovkrylov *d = ksp->data;
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    Mat m = op;
    int *rowptr = NULL, rc;
    ovk_gidx *cols = NULL;
    double *vals = NULL;
    PetscInt lo, hi;
    PetscFunctionBegin;
    if (update) { /* a re-assembly of the same values (a time loop's Jacobian): nothing to redo, agreed */
        int same;
        PetscCall(kept_values(d, op, NULL, 0, 0, &same));
        if (!same && !d->raw) { /* compared by its rows */
            if (kind == 2) PetscCall(MatConvert(op, MATAIJ, MAT_INITIAL_MATRIX, &m));
            PetscCall(rows_csr(m, &rowptr, &cols, &vals));
            PetscCall(MatGetOwnershipRange(m, &lo, &hi));
            PetscCall(kept_values(d, op, vals, rowptr[hi - lo], 0, &same));
        }
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, comm));
        if (same) {
            if (rowptr) PetscCall(PetscFree3(rowptr, cols, vals));
            if (m != op) PetscCall(MatDestroy(&m));
            PetscFunctionReturn(0);
        }
    }
    if (!rowptr) {
        if (kind == 2) PetscCall(MatConvert(op, MATAIJ, MAT_INITIAL_MATRIX, &m));
        PetscCall(rows_csr(m, &rowptr, &cols, &vals));
        PetscCall(MatGetOwnershipRange(m, &lo, &hi));
    }
    if (update) rc = ovk_matrix_update_values(d->A, rowptr, cols, vals, OVK_DUP_REJECT);
    else rc = ovk_matrix_create_csr(comm, (ovk_gidx)lo, (int)(hi - lo), rowptr, cols, vals, OVK_DUP_REJECT, &d->A);
    if (!rc) PetscCall(kept_values(d, op, vals, rowptr[hi - lo], 1, NULL)); /* to compare the next assembly's with */
    PetscCall(PetscFree3(rowptr, cols, vals));
    if (m != op) PetscCall(MatDestroy(&m));
    if (update && rc == OVK_EMISMATCH) *update = 0, rc = OVK_OK; /* the pattern is the same (PETSc's nonzero state) */
    PetscCall(check(comm, rc, update ? "ovk_matrix_update_values" : "ovk_matrix_create_csr"));
    PetscFunctionReturn(0);
}

static PetscErrorCode teardown(KSP_Ovkrylov *d)
{
    int rc;
    PetscFunctionBegin;
    rc = ovk_solver_destroy(&d->s);
    PetscCall(check(PetscObjectComm((PetscObject)d->ksp), rc, "ovk_solver_destroy"));
    rc = ovk_matrix_destroy(d->A);
    d->A = NULL;
    PetscCall(check(PetscObjectComm((PetscObject)d->ksp), rc, "ovk_matrix_destroy"));
    PetscCall(VecDestroy(&d->win));
    PetscCall(VecDestroy(&d->wout));
    PetscCall(MatDestroy(&d->op));
    PetscCall(MatDestroy(&d->pmat)); /* the solver that held its block is gone */
    PetscCall(PetscFree(d->ids));
    PetscCall(MatNullSpaceDestroy(&d->nsp));
    PetscCall(MatNullSpaceDestroy(&d->nnsp));
    PetscCall(PCDestroy(&d->pc));
    PetscCall(PetscFree(d->vals));
    d->nvals = 0;
    d->have_tols = 0;
    d->declared = 0;
    d->condest = 0;
    PetscFunctionReturn(0);
}

/* ovkrylov's amg on an operator of block size bs > 1 (MatSetBlockSize)
 * gets it as bs= unless its spec gives one: the spec with it into buf. */
static const char *precond_spec(const char *spec, PetscInt bs, char *buf, size_t len)
{
    if (!names(spec, "amg") || strstr(spec, "bs=") || bs <= 1) return spec;
    snprintf(buf, len, "%s%sbs=%" PetscInt_FMT, spec, strchr(spec, ':') ? "," : ":", bs);
    return buf;
}

/* ---- fieldsplit's fields from PETSc -------------------------------------- */

/* -ksp_ovkrylov_precond names fieldsplit */
static int fieldsplit_given(const KSP_Ovkrylov *d)
{
    const char *p = option_value(d, "precond", 0);
    return p && names(p, "fieldsplit");
}

/* The spec has the option key=value kv (at a key's start: after ':' or ','). */
static int has_option(const char *spec, const char *kv)
{
    size_t n = strlen(kv);
    for (const char *p = strchr(spec, ':'); p; p = strchr(p + 1, ','))
        if (!strncmp(p + 1, kv, n) && (p[1 + n] == ',' || p[1 + n] == '\0')) return 1;
    return 0;
}

/* fieldsplit's spec with bs=bs0 for field 0's amg when it names 0=amg
 * without a bs (the keys after 0=amg: up to type, schur, 0 or 1 are
 * amg's, as fieldsplit.c reads them), into buf. */
static const char *fieldsplit_spec(const char *spec, PetscInt bs0, char *buf, size_t len)
{
    static const char *const own[] = {"type=", "schur=", "0=", "1="};
    const char *at = NULL, *end;
    if (bs0 <= 1) return spec;
    for (const char *p = strchr(spec, ':'); p && !at; p = strchr(p + 1, ','))
        if (!strncmp(p + 1, "0=amg", 5) && (p[6] == ':' || p[6] == ',' || !p[6])) at = p + 6;
    if (!at) return spec;
    for (end = at; *end == ':' || *end == ',';) { /* the sub-spec's keys: to the next of fieldsplit's own */
        int mine = 0;
        for (size_t k = 0; k < sizeof own / sizeof *own && *end == ','; k++) mine |= !strncmp(end + 1, own[k], strlen(own[k]));
        if (mine) break;
        if (!strncmp(end + 1, "bs=", 3)) return spec; /* the user's bs */
        end += 1 + strcspn(end + 1, ",");
    }
    snprintf(buf, len, "%.*s%sbs=%" PetscInt_FMT "%s", (int)(end - spec), spec, *at == ':' ? "," : ":", bs0, end);
    return buf;
}

/* The index sets the program gave the KSP's PC by PCFieldSplitSetIS (a
 * PCFIELDSPLIT), held before the plug-in sets the PC to none; splits by
 * PCFieldSplitSetFields have no index set before PETSc's setup (not held).
 * More than two: refused (ovkrylov's fieldsplit has two fields). */
static PetscErrorCode capture_splits(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    PetscBool fs;
    IS is[3] = {NULL, NULL, NULL};
    PetscInt n = 0;
    PetscFunctionBegin;
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp->pc, PCFIELDSPLIT, &fs));
    if (!fs || !fieldsplit_given(d)) PetscFunctionReturn(0);
    /* PCFieldSplitGetISByIndex refuses an index past the last split: the count, without a message */
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    while (n < 3 && !PCFieldSplitGetISByIndex(ksp->pc, n, &is[n])) n++;
    PetscCall(PetscPopErrorHandler());
    PetscCheck(n < 3 || !is[0], PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP,
               "KSP ovkrylov: the PC has 3 or more splits (PCFieldSplitSetIS); ovkrylov's fieldsplit takes two fields "
               "(velocity and pressure): give it two index sets");
    if (n != 2 || !is[0] || !is[1]) PetscFunctionReturn(0);
    for (int k = 0; k < 2; k++) {
        PetscCall(PetscObjectReference((PetscObject)is[k]));
        PetscCall(ISDestroy(&d->split_is[k]));
        d->split_is[k] = is[k];
    }
    PetscFunctionReturn(0);
}

/* A bad row, agreed: the largest code over the ranks and its smallest
 * global row (ranks without that code hold LLONG_MAX). */
enum { ROW_OK, ROW_FOREIGN, ROW_TWICE, ROW_NONE };
static PetscErrorCode agree_row(MPI_Comm comm, int *code, long long *row)
{
    int mine = *code;
    PetscFunctionBegin;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, code, 1, MPI_INT, MPI_MAX, comm));
    if (*code == ROW_OK) PetscFunctionReturn(0);
    if (mine != *code) *row = LLONG_MAX;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, row, 1, MPI_LONG_LONG, MPI_MIN, comm));
    PetscFunctionReturn(0);
}

/* d->ids of this rank's rows [lo, lo + m) from k index sets of global
 * rows, set j's rows in field map[j]; a row of another rank, in two sets
 * or in none refused naming it (agreed).  Collective. */
static PetscErrorCode ids_from_sets(KSP ksp, PetscInt k, IS *is, const int *map, PetscInt lo, PetscInt m, const char *what)
{
    KSP_Ovkrylov *d = ksp->data;
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    int code = ROW_OK;
    long long row = LLONG_MAX;
    PetscFunctionBegin;
    for (PetscInt i = 0; i < m; i++) d->ids[i] = -1;
    for (PetscInt j = 0; j < k; j++) {
        PetscInt n;
        const PetscInt *idx;
        PetscCall(ISGetLocalSize(is[j], &n));
        PetscCall(ISGetIndices(is[j], &idx));
        for (PetscInt e = 0; e < n; e++) {
            PetscInt g = idx[e];
            int c = g < lo || g >= lo + m ? ROW_FOREIGN : d->ids[g - lo] >= 0 ? ROW_TWICE : ROW_OK;
            if (c > code || (c && c == code && g < row)) code = c, row = g;
            if (!c) d->ids[g - lo] = map[j];
        }
        PetscCall(ISRestoreIndices(is[j], &idx));
    }
    for (PetscInt i = 0; i < m && code <= ROW_NONE; i++)
        if (d->ids[i] < 0 && (code < ROW_NONE || lo + i < row)) code = ROW_NONE, row = lo + i;
    PetscCall(agree_row(comm, &code, &row));
    PetscCheck(code != ROW_FOREIGN, comm, PETSC_ERR_ARG_WRONG,
               "KSP ovkrylov: fieldsplit's fields from %s: global row %lld is in a set of another rank (each rank's sets "
               "hold its own rows)", what, row);
    PetscCheck(code != ROW_TWICE, comm, PETSC_ERR_ARG_WRONG,
               "KSP ovkrylov: fieldsplit's fields from %s: global row %lld is in two sets", what, row);
    PetscCheck(code != ROW_NONE, comm, PETSC_ERR_ARG_WRONG,
               "KSP ovkrylov: fieldsplit's fields from %s: global row %lld is in neither field", what, row);
    PetscFunctionReturn(0);
}

/* The field of each of ncomp components from -[prefix]pc_fieldsplit_0_fields
 * and _1_fields (a list given alone: the other components are the other
 * field) into map; 0 in *lists when neither is given; *bs0: field 0's
 * count.  Every rank reads the same options. */
static PetscErrorCode component_lists(KSP ksp, PetscInt ncomp, int *map, int *lists, PetscInt *bs0)
{
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    const char *prefix = ((PetscObject)ksp->pc)->prefix;
    PetscInt list[2][64], nl[2] = {64, 64};
    PetscBool has[2];
    char key[2][40], name[2][128];
    PetscFunctionBegin;
    for (int k = 0; k < 2; k++) {
        snprintf(key[k], sizeof key[k], "-pc_fieldsplit_%d_fields", k);
        snprintf(name[k], sizeof name[k], "-%s%s", prefix ? prefix : "", key[k] + 1);
        PetscCall(PetscOptionsGetIntArray(((PetscObject)ksp)->options, prefix, key[k], list[k], &nl[k], &has[k]));
        if (!has[k]) nl[k] = 0;
    }
    *lists = has[0] || has[1];
    if (!*lists) PetscFunctionReturn(0);
    for (PetscInt c = 0; c < ncomp; c++) map[c] = has[0] && has[1] ? -1 : has[0] ? 1 : 0;
    for (int k = 0; k < 2; k++)
        for (PetscInt j = 0; j < nl[k]; j++) {
            PetscInt c = list[k][j];
            PetscCheck(c >= 0 && c < ncomp, comm, PETSC_ERR_ARG_OUTOFRANGE,
                       "%s: %" PetscInt_FMT " is not a field (0..%" PetscInt_FMT ")", name[k], c, ncomp - 1);
            PetscCheck(!(k == 1 && has[0] && map[c] == 0), comm, PETSC_ERR_ARG_WRONG,
                       "%s and %s both list %" PetscInt_FMT, name[0], name[1], c);
            map[c] = k;
        }
    *bs0 = 0;
    for (PetscInt c = 0; c < ncomp; c++) {
        PetscCheck(map[c] >= 0, comm, PETSC_ERR_ARG_WRONG, "field %" PetscInt_FMT " (of 0..%" PetscInt_FMT
                   ") is in neither %s nor %s", c, ncomp - 1, name[0], name[1]);
        *bs0 += map[c] == 0;
    }
    PetscFunctionReturn(0);
}

static PetscErrorCode free_decomposition(PetscInt nf, char ***fnames, IS **fis)
{
    PetscFunctionBegin;
    for (PetscInt f = 0; f < nf; f++) {
        PetscCall(ISDestroy(&(*fis)[f]));
        PetscCall(PetscFree((*fnames)[f]));
    }
    PetscCall(PetscFree(*fis));
    PetscCall(PetscFree(*fnames));
    PetscFunctionReturn(0);
}

/* Each local row's field for ovkrylov's fieldsplit, without a file, from
 * what the program gave PETSc (into d->ids, d->bs0, d->fields_from): the
 * PC's index sets (PCFieldSplitSetIS); else the DM's field decomposition
 * (DMCreateFieldDecomposition: a DMDA's components), two fields or joined
 * by the -pc_fieldsplit_N_fields lists; else the operator's block size (or
 * -pc_fieldsplit_block_size) with those lists.  Collective. */
static PetscErrorCode petsc_fields(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    const char *prefix = ((PetscObject)ksp->pc)->prefix, *pre = prefix ? prefix : "";
    DM dm = ksp->dm;
    PetscInt lo, hi, nf = 0, bs = 1;
    int map[64] = {0, 1}, lists = 0;
    char **fnames = NULL;
    IS *fis = NULL;
    PetscBool has_bs;
    PetscFunctionBegin;
    PetscCall(MatGetOwnershipRange(d->op, &lo, &hi));
    PetscCall(PetscMalloc1(hi - lo + 1, &d->ids));
    d->bs0 = 1;
    if (!dm) PetscCall(PCGetDM(ksp->pc, &dm));
    if (d->split_is[0]) { /* PCFieldSplitSetIS */
        PetscInt b[2];
        PetscCall(ids_from_sets(ksp, 2, d->split_is, map, lo, hi - lo, "PCFieldSplitSetIS"));
        PetscCall(ISGetBlockSize(d->split_is[0], &b[0]));
        b[1] = -b[0];
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, b, 2, MPIU_INT, MPI_MAX, comm));
        d->bs0 = b[0] == -b[1] ? b[0] : 1; /* the same on every rank */
        snprintf(d->fields_from, sizeof d->fields_from, "the PC's index sets (PCFieldSplitSetIS)");
        PetscFunctionReturn(0);
    }
    if (dm) PetscCall(DMCreateFieldDecomposition(dm, &nf, &fnames, &fis, NULL));
    if (nf >= 2 && nf <= 64) { /* the DM's fields, two or joined by the lists */
        PetscErrorCode ierr = component_lists(ksp, nf, map, &lists, &d->bs0);
        if (ierr || (!lists && nf != 2)) PetscCall(free_decomposition(nf, &fnames, &fis));
        PetscCall(ierr);
        PetscCheck(lists || nf == 2, comm, PETSC_ERR_ARG_WRONG,
                   "KSP ovkrylov: the DM has %" PetscInt_FMT " fields and ovkrylov's fieldsplit takes two: say which "
                   "form each with -%spc_fieldsplit_0_fields and -%spc_fieldsplit_1_fields (0,1 and 2 for velocity "
                   "and pressure of a DMDA of 3 components)", nf, pre, pre);
        snprintf(d->fields_from, sizeof d->fields_from, "the DM's %" PetscInt_FMT " fields%s", nf,
                 lists ? " joined by -pc_fieldsplit_N_fields" : "");
        ierr = ids_from_sets(ksp, nf, fis, map, lo, hi - lo, "the DM's field decomposition");
        PetscCall(free_decomposition(nf, &fnames, &fis));
        PetscCall(ierr);
        PetscFunctionReturn(0);
    }
    PetscCall(free_decomposition(nf, &fnames, &fis));
    /* the operator's blocks with the lists */
    PetscCall(MatGetBlockSize(d->op, &bs));
    PetscCall(PetscOptionsGetInt(((PetscObject)ksp)->options, prefix, "-pc_fieldsplit_block_size", &bs, &has_bs));
    if (bs > 1 && bs <= 64) PetscCall(component_lists(ksp, bs, map, &lists, &d->bs0));
    PetscCheck(lists, comm, PETSC_ERR_ARG_WRONG,
               "KSP ovkrylov: -%sksp_ovkrylov_precond fieldsplit needs each row's field: PCFieldSplitSetIS on the KSP's "
               "PC (-%spc_type fieldsplit), a DM with fields (KSPSetDM), -%spc_fieldsplit_0_fields and "
               "-%spc_fieldsplit_1_fields with the operator's block size (here %" PetscInt_FMT "; "
               "-%spc_fieldsplit_block_size), or -%sksp_ovkrylov_fields FILE", pre, pre, pre, pre, bs, pre, pre);
    PetscCheck(lo % bs == 0 && hi % bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "KSP ovkrylov: this rank's rows [%" PetscInt_FMT ", %" PetscInt_FMT ") split a block of %" PetscInt_FMT, lo, hi, bs);
    for (PetscInt i = lo; i < hi; i++) d->ids[i - lo] = map[i % bs];
    snprintf(d->fields_from, sizeof d->fields_from, "blocks of %" PetscInt_FMT " joined by -pc_fieldsplit_N_fields", bs);
    PetscFunctionReturn(0);
}

/* schur=a11: the Pmat's (1,1) block (field 1's rows and columns) as
 * fieldsplit's Schur matrix, negated when the sum of its diagonal is
 * negative (-M/eta: fieldsplit's S = C + B A^-1 B^T is positive); again
 * when the Pmat or its values changed.  Collective. */
static PetscErrorCode sync_schur(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    const char *spec = option_value(d, "precond", 0);
    Mat P, P11;
    IS is1;
    PetscObjectState st;
    PetscInt lo, hi, n1 = 0, *rows, lo1, hi1;
    int *rowptr, rc;
    ovk_gidx *cols;
    double *vals, dsum = 0;
    ovk_matrix *S = NULL;
    PetscFunctionBegin;
    if (!spec || !names(spec, "fieldsplit") || !has_option(spec, "schur=a11") || !d->ids) PetscFunctionReturn(0);
    PetscCall(KSPGetOperators(ksp, NULL, &P));
    PetscCall(PetscObjectStateGet((PetscObject)P, &st));
    if (P == d->pmat && st == d->pmat_state) PetscFunctionReturn(0);
    PetscCall(MatGetOwnershipRange(d->op, &lo, &hi));
    PetscCall(PetscMalloc1(hi - lo + 1, &rows));
    for (PetscInt i = 0; i < hi - lo; i++)
        if (d->ids[i] == 1) rows[n1++] = lo + i;
    PetscCall(ISCreateGeneral(comm, n1, rows, PETSC_OWN_POINTER, &is1));
    PetscCall(MatCreateSubMatrix(P, is1, is1, MAT_INITIAL_MATRIX, &P11));
    PetscCall(ISDestroy(&is1));
    PetscCall(rows_csr(P11, &rowptr, &cols, &vals));
    PetscCall(MatGetOwnershipRange(P11, &lo1, &hi1));
    for (PetscInt i = lo1; i < hi1; i++)
        for (int k = rowptr[i - lo1]; k < rowptr[i - lo1 + 1]; k++)
            if (cols[k] == (ovk_gidx)i) dsum += vals[k];
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &dsum, 1, MPI_DOUBLE, MPI_SUM, comm));
    if (dsum < 0)
        for (int k = 0; k < rowptr[hi1 - lo1]; k++) vals[k] = -vals[k];
    rc = ovk_matrix_create_csr(comm, (ovk_gidx)lo1, (int)(hi1 - lo1), rowptr, cols, vals, OVK_DUP_REJECT, &S);
    PetscCall(PetscFree3(rowptr, cols, vals));
    PetscCall(MatDestroy(&P11));
    PetscCall(check(comm, rc, "ovk_matrix_create_csr (the Pmat's (1,1) block, schur=a11)"));
    rc = ovk_solver_set_schur_matrix(d->s, S); /* the solver holds a reference of its own */
    int rc_free = ovk_matrix_destroy(S);
    if (!rc) rc = rc_free;
    PetscCall(check(comm, rc, "ovk_solver_set_schur_matrix"));
    PetscCall(PetscObjectReference((PetscObject)P));
    PetscCall(MatDestroy(&d->pmat));
    d->pmat = P;
    d->pmat_state = st;
    PetscFunctionReturn(0);
}

/* -ksp_ovkrylov_fields FILE: the field of each global row (integers
 * separated by white space) into ids for this rank's rows [lo, lo + m);
 * the count of the file's ids in *count (-1: unreadable, -2: not an
 * integer); the first entry that is not 0 or 1 in *bad (-1: none) with its
 * text as written (every rank reads the whole file: the same on each).
 * Local. */
static void read_fields(const char *path, PetscInt lo, PetscInt m, int *ids, long long *count, long long *bad,
                        char *bad_text, size_t len)
{
    FILE *f = fopen(path, "r");
    long long k = 0;
    char tok[64];
    *bad = -1;
    if (!f) {
        *count = -1;
        return;
    }
    for (; fscanf(f, "%63s", tok) == 1; k++) {
        char *end;
        errno = 0;
        long long v = strtoll(tok, &end, 10);
        if (*end || end == tok) break;
        int ok = errno == 0 && (v == 0 || v == 1);
        if (!ok && *bad < 0) {
            *bad = k;
            snprintf(bad_text, len, "%s", tok);
        }
        if (k >= lo && k < lo + m) ids[k - lo] = ok ? (int)v : 1;
    }
    *count = feof(f) ? k : -2;
    fclose(f);
}

/* The fields of -ksp_ovkrylov_fields, else PETSc's (petsc_fields), on a
 * new solver (for ovkrylov's fieldsplit): a file of another length is an
 * error on every rank. */
static PetscErrorCode set_fields(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    PetscInt lo, hi, M, N;
    long long count[2], bad;
    int *ids = NULL, rc;
    char opt[96], bad_text[64];
    PetscFunctionBegin;
    if (!d->fields[0] && d->ids) { /* from PETSc (petsc_fields) */
        rc = ovk_solver_set_fields(d->s, d->ids);
        PetscCall(check(comm, rc, "ovk_solver_set_fields"));
        PetscFunctionReturn(0);
    }
    if (!d->fields[0]) PetscFunctionReturn(0);
    opt_name(ksp, "fields", opt, sizeof opt);
    PetscCall(MatGetOwnershipRange(d->op, &lo, &hi));
    PetscCall(MatGetSize(d->op, &M, &N));
    PetscCall(PetscMalloc1(hi - lo + 1, &ids));
    read_fields(d->fields, lo, hi - lo, ids, &count[0], &bad, bad_text, sizeof bad_text);
    count[1] = -count[0]; /* the smallest and the largest count, in one reduction */
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, count, 2, MPI_LONG_LONG, MPI_MAX, comm));
    if (count[1] > 0 || count[0] != (long long)M) PetscCall(PetscFree(ids));
    PetscCheck(count[1] != 1, comm, PETSC_ERR_FILE_OPEN, "%s %s: cannot be read", opt, d->fields);
    PetscCheck(count[1] != 2, comm, PETSC_ERR_FILE_UNEXPECTED, "%s %s: an entry is not an integer", opt, d->fields);
    PetscCheck(count[0] == (long long)M, comm, PETSC_ERR_FILE_UNEXPECTED,
               "%s %s: %lld field ids for an operator of %" PetscInt_FMT " rows (one per row)", opt, d->fields, count[0], M);
    if (bad >= 0) PetscCall(PetscFree(ids));
    PetscCheck(bad < 0, comm, PETSC_ERR_FILE_UNEXPECTED, "%s %s: entry %lld (global row %lld) is %s, not a field (0 or 1)",
               opt, d->fields, bad + 1, bad, bad_text);
    rc = ovk_solver_set_fields(d->s, ids);
    d->ids = ids; /* schur=a11's field 1 (sync_schur) */
    PetscCall(check(comm, rc, "ovk_solver_set_fields"));
    PetscFunctionReturn(0);
}

/* The -ksp_ovkrylov_KEY options and the monitor on a new solver (the PC:
 * sync_pc). */
static PetscErrorCode configure(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    char buf[OPTLEN + 32], opt[96];
    int rc = 0, n = ovk_solver_option_count();
    PetscInt bs;
    PetscFunctionBegin;
    PetscCall(MatGetBlockSize(d->op, &bs));
    d->fields_from[0] = '\0';
    PetscCall(PetscFree(d->ids));
    if (!d->fields[0] && fieldsplit_given(d)) PetscCall(petsc_fields(ksp));
    for (int i = 0; i < n; i++) {
        const char *key = ovk_solver_option_name(i), *value = d->opt[i];
        if (!strcmp(key, "solver")) value = solver_spec(d, d->spec, sizeof d->spec); /* given or not */
        else if (!d->given[i]) continue;
        else if (!strcmp(key, "precond"))
            value = d->ids ? fieldsplit_spec(d->opt[i], d->bs0, buf, sizeof buf) : precond_spec(d->opt[i], bs, buf, sizeof buf);
        rc = ovk_solver_set_option(d->s, key, value);
        /* named as the user gave it: -[prefix]ksp_ovkrylov_KEY (or PETSc's GMRES option) */
        if (rc)
            SETERRQ(comm, petsc_code(rc), "%s %s%s: %s (%s)", opt_name(ksp, key, opt, sizeof opt), value,
                    d->given[i] ? "" : " (the default solver with PETSc's -ksp_gmres_* options)", ovk_strerror(rc),
                    ovk_error_detail());
    }
    PetscCall(set_norms(ksp, d->spec));
    PetscCall(set_fields(ksp));
    d->monitored = -1; /* sync_tolerances sets it */
    PetscFunctionReturn(0);
}

/* The KSP's PC as ovkrylov's preconditioner callback (none for PCNONE),
 * when it is another PC or changed to or from PCNONE since (ovkrylov's own
 * with -ksp_ovkrylov_precond: nothing to do). */
static PetscErrorCode sync_pc(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    PetscBool none;
    int rc;
    PetscFunctionBegin;
    if (given(d, "precond")) PetscFunctionReturn(0);
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp->pc, PCNONE, &none));
    if (d->pc == ksp->pc && d->pc_none == none) PetscFunctionReturn(0);
    rc = ovk_solver_set_precond_fn(d->s, none ? NULL : pcapply_cb, d);
    if (!rc && none) rc = ovk_solver_set_option(d->s, "precond", "none");
    PetscCall(check(PetscObjectComm((PetscObject)ksp), rc, "ovk_solver_set_precond_fn"));
    PetscCall(PetscObjectReference((PetscObject)ksp->pc));
    PetscCall(PCDestroy(&d->pc));
    d->pc = ksp->pc;
    d->pc_none = none;
    PetscFunctionReturn(0);
}

/* Make s (and A) for the KSP's operator, or bring them up to date: new
 * values through ovk_matrix_update_values, another matrix or pattern, or
 * values that no longer fit A's storage, anew. */
static PetscErrorCode sync_operator(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    Mat op;
    PetscInt M, N, m, n;
    PetscObjectState st, nz;
    int kind = 0, rc, bad, update = 1;
    PetscFunctionBegin;
    PetscCall(KSPGetOperators(ksp, &op, NULL));
    PetscCall(MatGetSize(op, &M, &N));
    PetscCall(MatGetLocalSize(op, &m, &n));
    PetscCheck(M == N, comm, PETSC_ERR_ARG_SIZ, "KSP ovkrylov needs a square operator, this one is %" PetscInt_FMT " x %" PetscInt_FMT, M, N);
    PetscCall(operator_kind(op, &kind));
    PetscCall(PetscObjectStateGet((PetscObject)op, &st));
    PetscCall(MatGetNonzeroState(op, &nz));
    if (d->s && op == d->op && nz == d->nzstate && st == d->state) PetscFunctionReturn(0);
    if (d->s && op == d->op && nz == d->nzstate) { /* new values, same pattern */
        if (d->A) PetscCall(copy_matrix(ksp, op, kind, &update));
        d->state = st;
        if (update) PetscFunctionReturn(0);
    }
    /* a new operator (the pattern's state is agreed at assembly): its local
       layouts, agreed, so that every rank raises the same error */
    bad = m != n ? 1 : m >= INT_MAX ? 2 : 0;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm));
    PetscCheck(bad != 1, comm, PETSC_ERR_ARG_SIZ, "KSP ovkrylov needs the same row and column layout (a rank's rows and columns differ)");
    PetscCheck(bad != 2, comm, PETSC_ERR_SUP, "ovkrylov: more rows on one rank than an int counts");
    PetscCall(teardown(d));
    PetscCall(VecCreateMPIWithArray(comm, 1, m, M, NULL, &d->win));
    PetscCall(VecCreateMPIWithArray(comm, 1, m, M, NULL, &d->wout));
    PetscCall(PetscObjectReference((PetscObject)op));
    d->op = op;
    d->state = st;
    d->nzstate = nz;
    if (kind) {
        PetscCall(copy_matrix(ksp, op, kind, NULL));
        rc = ovk_solver_create(d->A, &d->s);
    } else {
        rc = ovk_solver_create_operator(comm, (int)m, matmult_cb, d, &d->s);
    }
    PetscCall(check(comm, rc, "ovk_solver_create"));
    PetscCall(configure(ksp));
    PetscFunctionReturn(0);
}

/* MAT_SYMMETRIC or MAT_SPD set by the program (MatSetOption): ovkrylov's
 * assume_symmetric, so that its CG and MINRES variants take the matrix at
 * the program's word instead of checking its values; withdrawn when the
 * program unsets it.  -ksp_ovkrylov_assume_symmetric, given, wins. */
static PetscErrorCode sync_symmetry(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    PetscBool sym_set, sym, spd_set, spd;
    int declared, rc;
    PetscFunctionBegin;
    if (!d->A || given(d, "assume_symmetric")) PetscFunctionReturn(0);
    PetscCall(MatIsSymmetricKnown(d->op, &sym_set, &sym));
    PetscCall(MatIsSPDKnown(d->op, &spd_set, &spd));
    declared = (sym_set && sym) || (spd_set && spd);
    if (declared == d->declared) PetscFunctionReturn(0);
    rc = ovk_solver_set_option(d->s, "assume_symmetric", declared ? "1" : "0");
    PetscCall(check(PetscObjectComm((PetscObject)ksp), rc, "ovk_solver_set_option(assume_symmetric)"));
    d->declared = declared;
    PetscFunctionReturn(0);
}

/* *held (referenced) and *state are nsp and its state: 1 when they were
 * not (a new object, or the same one changed). */
static PetscErrorCode hold_nullspace(MatNullSpace nsp, MatNullSpace *held, PetscObjectState *state, int *changed)
{
    PetscObjectState st = 0;
    PetscFunctionBegin;
    if (nsp) PetscCall(PetscObjectStateGet((PetscObject)nsp, &st));
    *changed = nsp != *held || st != *state;
    if (!*changed) PetscFunctionReturn(0);
    if (nsp) PetscCall(PetscObjectReference((PetscObject)nsp));
    PetscCall(MatNullSpaceDestroy(held));
    *held = nsp;
    *state = st;
    PetscFunctionReturn(0);
}

/* nsp's vectors as arrays (its constant in *has_const), to hand to ovkrylov. */
static PetscErrorCode get_arrays(MatNullSpace nsp, PetscBool *has_const, PetscInt *k, const Vec **vecs, const double ***arr)
{
    PetscFunctionBegin;
    *has_const = PETSC_FALSE, *k = 0, *vecs = NULL;
    if (nsp) PetscCall(MatNullSpaceGetVecs(nsp, has_const, k, vecs));
    PetscCall(PetscMalloc1(*k + 1, arr));
    for (PetscInt j = 0; j < *k; j++) PetscCall(VecGetArrayRead((*vecs)[j], &(*arr)[j]));
    PetscFunctionReturn(0);
}

static PetscErrorCode put_arrays(PetscInt k, const Vec *vecs, const double ***arr)
{
    PetscFunctionBegin;
    for (PetscInt j = 0; j < k; j++) PetscCall(VecRestoreArrayRead(vecs[j], &(*arr)[j]));
    PetscCall(PetscFree(*arr));
    PetscFunctionReturn(0);
}

/* The operator's MatNullSpace -> ovkrylov's null space, and its
 * MatNearNullSpace -> ovkrylov's near-null space (amg's modes), when either
 * is another object or changed (PETSc's object state) since. */
static PetscErrorCode sync_nullspace(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    MatNullSpace nsp;
    PetscBool has_const;
    PetscInt k;
    const Vec *vecs;
    const double **arr;
    int rc, changed;
    PetscFunctionBegin;
    PetscCall(MatGetNullSpace(d->op, &nsp));
    PetscCall(hold_nullspace(nsp, &d->nsp, &d->nsp_state, &changed));
    if (changed) {
        PetscCall(get_arrays(nsp, &has_const, &k, &vecs, &arr));
        rc = ovk_solver_set_nullspace(d->s, has_const ? 1 : 0, (int)k, arr);
        PetscCall(put_arrays(k, vecs, &arr));
        PetscCall(check(comm, rc, "ovk_solver_set_nullspace"));
    }
    PetscCall(MatGetNearNullSpace(d->op, &nsp));
    PetscCall(hold_nullspace(nsp, &d->nnsp, &d->nnsp_state, &changed));
    if (changed) { /* its constant, constant in every unknown of a node, is one amg carries anyway */
        PetscCall(get_arrays(nsp, &has_const, &k, &vecs, &arr));
        rc = ovk_solver_set_near_nullspace(d->s, (int)k, arr);
        PetscCall(put_arrays(k, vecs, &arr));
        PetscCall(check(comm, rc, "ovk_solver_set_near_nullspace"));
    }
    PetscFunctionReturn(0);
}
/* The KSP's tolerances, iteration limit, divtol, initial guess and
 * monitors, when changed.  KSP_NORM_NONE: max_it iterations with no test,
 * as tolerances no residual but an exact zero meets (rtol DBL_MIN, whose
 * square, the bound on <r,r>, is 0; atol 0; divtol off): no reduction
 * beyond the method's own. */
static PetscErrorCode sync_tolerances(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    char buf[64];
    int rc, gz = ksp->guess_zero ? 1 : 0, none = ksp->normtype == KSP_NORM_NONE, nat = ksp->normtype == KSP_NORM_NATURAL;
    double rtol = none ? DBL_MIN : ksp->rtol, atol = none ? 0.0 : ksp->abstol, divtol = none ? 0.0 : ksp->divtol;
    PetscFunctionBegin;
    PetscCheck(ksp->max_it < INT_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE, "KSP ovkrylov: max_it %" PetscInt_FMT " is more than an int", ksp->max_it);
    if (!d->have_tols || d->rtol != rtol || d->atol != atol || d->max_it != (int)ksp->max_it) {
        rc = ovk_solver_set_tolerances(d->s, rtol, atol, (int)ksp->max_it);
        PetscCall(check(comm, rc, "ovk_solver_set_tolerances"));
    }
    if (!d->have_tols || d->divtol != divtol) {
        snprintf(buf, sizeof buf, "%.17g", divtol);
        rc = ovk_solver_set_option(d->s, "divtol", buf);
        PetscCall(check(comm, rc, "ovk_solver_set_option(divtol)"));
    }
    if (!d->have_tols || d->natural != nat) { /* KSP_NORM_NATURAL: ovkrylov's norm=natural */
        rc = ovk_solver_set_option(d->s, "norm", nat ? "natural" : "unpreconditioned");
        PetscCall(check(comm, rc, "ovk_solver_set_option(norm)"));
    }
    if (!d->have_tols || d->guess_zero != gz) {
        rc = ovk_solver_set_option(d->s, "initial_guess_zero", gz ? "1" : "0");
        PetscCall(check(comm, rc, "ovk_solver_set_option(initial_guess_zero)"));
    }
    /* ovkrylov's monitor while the KSP has monitors or a residual history */
    if (d->monitored != (ksp->numbermonitors > 0 || ksp->res_hist)) {
        d->monitored = ksp->numbermonitors > 0 || ksp->res_hist;
        rc = ovk_solver_set_monitor(d->s, d->monitored ? monitor_cb : NULL, d);
        PetscCall(check(comm, rc, "ovk_solver_set_monitor"));
    }
    d->rtol = rtol, d->atol = atol, d->divtol = divtol;
    d->max_it = (int)ksp->max_it, d->guess_zero = gz, d->natural = nat, d->have_tols = 1;
    PetscFunctionReturn(0);
}

/* ---- the KSP's methods -------------------------------------------------- */

/* ovkrylov's reason (and status) as the KSP's; under KSP_NORM_NONE the
 * iteration limit is PETSc's KSP_CONVERGED_ITS. */
static KSPConvergedReason map_reason(KSP ksp, const ovk_pcg_result *res, double rnorm, double bnorm)
{
    if (ksp->normtype == KSP_NORM_NONE && (res->reason == OVK_REASON_MAXIT || res->reason == OVK_REASON_CONVERGED))
        return KSP_CONVERGED_ITS;
    switch (res->reason) {
    case OVK_REASON_CONVERGED: /* by the larger of the two bounds, as PETSc's default test */
        return ksp->abstol > ksp->rtol * bnorm && rnorm < ksp->abstol ? KSP_CONVERGED_ATOL : KSP_CONVERGED_RTOL;
    case OVK_REASON_MAXIT: return KSP_DIVERGED_ITS;
    case OVK_REASON_BREAKDOWN: return KSP_DIVERGED_BREAKDOWN;
    case OVK_REASON_NONFINITE: return KSP_DIVERGED_NANORINF;
    case OVK_REASON_DIVERGED: return KSP_DIVERGED_DTOL;
    case OVK_REASON_STAGNATED: /* the recursive residual met the tolerance, the true one stagnated above it
                                  (an inexact operator: -snes_mf): what KSPCG, which tests the recursive one,
                                  reports; the norm is the true one reached (finish says so in -info) */
        return KSP_CONVERGED_RTOL;
    case OVK_REASON_MONITOR: /* only a failed KSPMonitor asks to stop, an error (finish) */
    default: return KSP_DIVERGED_NULL;
    }
}

/* The solve's status: a failed callback's PETSc error, an ovkrylov error
 * (setup, arguments), or a reason (the statuses of an iteration that stopped). */
static PetscErrorCode finish(KSP ksp, int rc, const char *call)
{
    KSP_Ovkrylov *d = ksp->data;
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    PetscErrorCode cb = d->cb_err;
    int failed = cb != 0;
    PetscFunctionBegin;
    d->cb_err = 0;
    /* a failed callback (a failed monitor asks ovkrylov to stop: OVK_ESTOPPED)
       is an error on every rank, with the rank's own PETSc code where it failed */
    if (rc != OVK_ECALLBACK && rc != OVK_ESTOPPED) failed = 0;
    else PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm));
    if (failed) SETERRQ(comm, cb ? cb : PETSC_ERR_LIB, "ovkrylov: %s: the operator, PC or monitor failed%s", call, cb ? "" : " on another rank");
    switch (rc) {
    case OVK_OK:
    case OVK_EMAXIT:
    case OVK_EBREAKDOWN:
    case OVK_ENONFINITE:
    case OVK_EDIVERGED:
    case OVK_ESTOPPED: break;
    case OVK_ESTAGNATED: PetscCall(PetscInfo(ksp, "ovkrylov: %s\n", ovk_error_detail())); break;
    default: PetscCall(check(PetscObjectComm((PetscObject)ksp), rc, call));
    }
    PetscFunctionReturn(0);
}

/* -ksp_norm_type preconditioned: refused, naming what is supported
 * (set_norms lets it reach here); natural goes to ovkrylov, whose setup
 * refuses it for a variant other than alg1. */
static PetscErrorCode check_norm_type(KSP ksp)
{
    PetscFunctionBegin;
    PetscCheck(ksp->normtype != KSP_NORM_PRECONDITIONED, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP,
               "KSP ovkrylov: -ksp_norm_type %s is not supported; the supported types are unpreconditioned (the default: "
               "ovkrylov's solvers test ||b - A x||_2), natural (alg1: sqrt(<r, C r>), as KSPCG's) and none (max_it "
               "iterations, no convergence test); no ovkrylov solver tests ||C r||",
               KSPNormTypes[ksp->normtype]);
    PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetUp_Ovkrylov(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    int rc;
    PetscFunctionBegin;
    PetscCall(check_norm_type(ksp));
    /* ovkrylov's preconditioner: the KSP's PC has nothing to set up; else
       the PC first (KSPSetUp would after this), so that ovkrylov's setup,
       which may apply it (auto's measurements), finds it ready */
    if (given(d, "precond")) {
        PetscCall(capture_splits(ksp)); /* the program's PCFieldSplitSetIS, before the PC goes */
        PetscCall(PCSetType(ksp->pc, PCNONE));
    } else PetscCall(PCSetUp(ksp->pc));
    PetscCall(sync_operator(ksp));
    PetscCall(sync_schur(ksp));
    PetscCall(sync_symmetry(ksp));
    PetscCall(sync_pc(ksp));
    PetscCall(sync_nullspace(ksp));
    PetscCall(sync_tolerances(ksp));
    rc = ovk_solver_setup(d->s);
    if (rc == OVK_EBACKEND || rc == OVK_EOPTION) { /* a spec's key, resolved at setup: the specs as the user typed them */
        static const char *const specs[] = {"solver", "precond", "backend"};
        char opt[96], typed[3 * (OPTLEN + 96)] = "";
        for (int k = 0; k < 3; k++)
            if (given(d, specs[k]))
                snprintf(typed + strlen(typed), sizeof typed - strlen(typed), "%s%s %s", typed[0] ? ", " : "",
                         opt_name(ksp, specs[k], opt, sizeof opt), option_value(d, specs[k], 0));
        SETERRQ(PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_WRONG, "%s%s%s", typed, typed[0] ? ": " : "", ovk_error_detail());
    }
    PetscCall(finish(ksp, rc, "ovk_solver_setup"));
    PetscFunctionReturn(0);
}

/* The row layouts of b and x (of a KSPMatSolve, B's and X's) against the
 * operator's: PETSc's PETSC_ERR_ARG_SIZ ("Nonconforming object sizes") on
 * every rank, also when a local size differs on one rank only (agreed: one
 * reduction, made only for layouts not checked before, which are then
 * held by reference). */
static PetscErrorCode check_sizes(KSP ksp, PetscLayout lb, PetscLayout lx, const char *bn, const char *xn)
{
    KSP_Ovkrylov *d = ksp->data;
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    Mat op;
    PetscLayout la;
    PetscInt n[3], N[3];
    struct {
        int bad, rank;
    } in, out;
    PetscFunctionBegin;
    PetscCall(KSPGetOperators(ksp, &op, NULL));
    PetscCall(MatGetLayouts(op, &la, NULL));
    PetscCall(PetscLayoutGetSize(lb, &N[0]));
    PetscCall(PetscLayoutGetSize(lx, &N[1]));
    PetscCall(PetscLayoutGetSize(la, &N[2]));
    PetscCheck(N[0] == N[2] && N[1] == N[2], comm, PETSC_ERR_ARG_SIZ,
               "KSP ovkrylov: %s has %" PetscInt_FMT " rows, %s %" PetscInt_FMT ", the operator %" PetscInt_FMT, bn, N[0], xn, N[1], N[2]);
    if (la == d->lay_op && lb == d->lay_b && lx == d->lay_x) PetscFunctionReturn(0);
    PetscCall(PetscLayoutGetLocalSize(lb, &n[0]));
    PetscCall(PetscLayoutGetLocalSize(lx, &n[1]));
    PetscCall(PetscLayoutGetLocalSize(la, &n[2]));
    in.bad = n[0] != n[2] ? 2 : n[1] != n[2] ? 1 : 0;
    PetscCallMPI(MPI_Comm_rank(comm, &in.rank));
    PetscCallMPI(MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MAXLOC, comm));
    if (out.bad) { /* the sizes of the first rank where they differ */
        PetscCallMPI(MPI_Bcast(n, 3, MPIU_INT, out.rank, comm));
        SETERRQ(comm, PETSC_ERR_ARG_SIZ,
                "KSP ovkrylov: on rank %d %s has %" PetscInt_FMT " local rows, %s %" PetscInt_FMT ", the operator %" PetscInt_FMT
                " (the same global size, another layout)",
                out.rank, bn, n[0], xn, n[1], n[2]);
    }
    PetscCall(PetscLayoutReference(la, &d->lay_op));
    PetscCall(PetscLayoutReference(lb, &d->lay_b));
    PetscCall(PetscLayoutReference(lx, &d->lay_x));
    PetscFunctionReturn(0);
}

/* KSPSetComputeSingularValues (-ksp_view_singularvalues): the CG variants'
 * Lanczos estimate from their coefficients (ovkrylov's condest), as KSPCG
 * makes its; refused, with the reason, under a solver that makes none. */
static PetscErrorCode sync_singular_values(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    const char *prefix = ((PetscObject)ksp)->prefix ? ((PetscObject)ksp)->prefix : "";
    int rc;
    PetscFunctionBegin;
    if (!ksp->calc_sings || d->condest) PetscFunctionReturn(0);
    PetscCheck(solver_side(d->spec) == PC_LEFT && !names(d->spec, "minres") && !names(d->spec, "pminres"), PetscObjectComm((PetscObject)ksp),
               PETSC_ERR_SUP,
               "KSP ovkrylov: -%sksp_view_singularvalues (KSPSetComputeSingularValues): solver %s makes no estimate of them; "
               "ovkrylov's CG variants (and auto where it picks one) estimate the extreme singular values of the "
               "preconditioned operator from their coefficients, as KSPCG: -%sksp_ovkrylov_solver alg1",
               prefix, d->spec, prefix);
    rc = ovk_solver_set_option(d->s, "condest", "1");
    PetscCall(check(PetscObjectComm((PetscObject)ksp), rc, "ovk_solver_set_option(condest)"));
    d->condest = 1;
    PetscFunctionReturn(0);
}

static PetscErrorCode KSPComputeExtremeSingularValues_Ovkrylov(KSP ksp, PetscReal *emax, PetscReal *emin)
{
    KSP_Ovkrylov *d = ksp->data;
    PetscFunctionBegin;
    PetscCheck(d->smax > 0.0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_WRONGSTATE,
               "KSP ovkrylov: no estimate of the singular values: the last solve (%s) made none (auto's choice not a CG "
               "variant, or no iteration ran)", d->spec);
    *emax = d->smax;
    *emin = d->smin;
    PetscFunctionReturn(0);
}

static PetscErrorCode prepare_solve(KSP ksp, PetscLayout lb, PetscLayout lx, const char *bn, const char *xn)
{
    PetscFunctionBegin;
    PetscCheck(!ksp->transpose_solve, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "KSP ovkrylov has no transpose solve");
    PetscCall(check_norm_type(ksp));
    PetscCall(check_sizes(ksp, lb, lx, bn, xn));
    PetscCall(sync_operator(ksp));
    PetscCall(sync_symmetry(ksp));
    PetscCall(sync_pc(ksp));
    PetscCall(sync_nullspace(ksp));
    PetscCall(sync_tolerances(ksp));
    PetscCall(sync_singular_values(ksp));
    PetscFunctionReturn(0);
}

/* A solve that failed where the KSP's PC failed (PCGetFailedReasonRank on
 * any rank; the reason is the same on every rank): KSP_DIVERGED_PC_FAILED,
 * as PETSc's KSPs report it. */
static PetscErrorCode pc_failed(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    PCFailedReason why = PC_NOERROR;
    int failed;
    PetscFunctionBegin;
    if (ksp->reason >= 0 || !d->pc || d->pc_none) PetscFunctionReturn(0);
    PetscCall(PCGetFailedReasonRank(ksp->pc, &why));
    failed = why != PC_NOERROR;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)ksp)));
    if (failed) ksp->reason = KSP_DIVERGED_PC_FAILED;
    PetscFunctionReturn(0);
}

static PetscErrorCode KSPSolve_Ovkrylov(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    const PetscScalar *pb;
    PetscScalar *px;
    PetscLayout lb, lx;
    int rc;
    PetscFunctionBegin;
    PetscCall(VecGetLayout(ksp->vec_rhs, &lb));
    PetscCall(VecGetLayout(ksp->vec_sol, &lx));
    PetscCall(prepare_solve(ksp, lb, lx, "b", "x"));
    PetscCall(VecGetArrayRead(ksp->vec_rhs, &pb));
    PetscCall(VecGetArray(ksp->vec_sol, &px));
    memset(&res, 0, sizeof res);
    rc = ovk_solver_vector_create(d->s, (double *)pb, &b);
    if (!rc) rc = ovk_solver_vector_create(d->s, px, &x);
    d->solving = 1;
    if (!rc) rc = ovk_solver_solve(d->s, b, x, &res);
    d->solving = 0;
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    PetscCall(VecRestoreArray(ksp->vec_sol, &px));
    PetscCall(VecRestoreArrayRead(ksp->vec_rhs, &pb));
    PetscCall(finish(ksp, rc, "ovk_solver_solve"));
    ksp->its = res.iterations;
    /* ||b|| from ovkrylov's first sums: no reduction of its own; none: 0, as PETSc's */
    ksp->rnorm = ksp->normtype == KSP_NORM_NONE ? 0.0 : res.rel_residual * res.rhs_norm;
    ksp->reason = map_reason(ksp, &res, ksp->rnorm, res.rhs_norm);
    if (d->condest) d->smax = res.lambda_max, d->smin = res.lambda_min;
    PetscCall(pc_failed(ksp));
    if (res.auto_choice[0]) PetscCall(set_norms(ksp, res.auto_choice)); /* auto's side: its choice's */
    PetscFunctionReturn(0);
}

/* KSPMatSolve: the columns of B and X as k systems of ovk_solver_solve_many. */
static PetscErrorCode KSPMatSolve_Ovkrylov(KSP ksp, Mat B, Mat X)
{
    KSP_Ovkrylov *d = ksp->data;
    const PetscScalar *pb;
    PetscScalar *px;
    PetscInt k, kx, ldb, ldx;
    PetscLayout lb, lx;
    ovk_vector **vb = NULL, **vx = NULL;
    ovk_pcg_result *res = NULL;
    int rc = 0;
    PetscFunctionBegin;
    PetscCall(MatGetSize(B, NULL, &k));
    PetscCall(MatGetSize(X, NULL, &kx));
    PetscCheck(k == kx, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_SIZ,
               "KSP ovkrylov: KSPMatSolve's B has %" PetscInt_FMT " columns, X %" PetscInt_FMT, k, kx);
    PetscCall(MatGetLayouts(B, &lb, NULL));
    PetscCall(MatGetLayouts(X, &lx, NULL));
    PetscCall(prepare_solve(ksp, lb, lx, "KSPMatSolve's B", "X"));
    PetscCall(MatDenseGetLDA(B, &ldb));
    PetscCall(MatDenseGetLDA(X, &ldx));
    PetscCall(PetscCalloc3(k, &vb, k, &vx, k, &res));
    PetscCall(MatDenseGetArrayRead(B, &pb));
    PetscCall(MatDenseGetArray(X, &px));
    for (PetscInt j = 0; j < k && !rc; j++) {
        rc = ovk_solver_vector_create(d->s, (double *)pb + j * ldb, &vb[j]);
        if (!rc) rc = ovk_solver_vector_create(d->s, px + j * ldx, &vx[j]);
    }
    d->solving = 1;
    if (!rc && k > 0) rc = ovk_solver_solve_many(d->s, (int)k, vb, vx, res);
    d->solving = 0;
    for (PetscInt j = 0; j < k; j++) ovk_vector_destroy(vb[j]), ovk_vector_destroy(vx[j]);
    PetscCall(MatDenseRestoreArray(X, &px));
    PetscCall(MatDenseRestoreArrayRead(B, &pb));
    PetscCall(finish(ksp, rc, "ovk_solver_solve_many"));
    /* the KSP's: the most iterations, the first system that did not converge */
    ksp->its = 0;
    ksp->reason = ksp->normtype == KSP_NORM_NONE ? KSP_CONVERGED_ITS : KSP_CONVERGED_RTOL;
    ksp->rnorm = 0;
    for (PetscInt j = 0; j < k; j++) {
        ksp->its = PetscMax(ksp->its, res[j].iterations);
        if (ksp->reason > 0 && res[j].reason != OVK_REASON_CONVERGED) ksp->reason = map_reason(ksp, &res[j], 0, 1);
    }
    PetscCall(PetscFree3(vb, vx, res));
    PetscCall(pc_failed(ksp));
    PetscFunctionReturn(0);
}

/* Preconditioners of ovkrylov built on an outside library: refused when
 * the process binds that library's symbols to another one (above). */
static PetscErrorCode check_outside_library(KSP ksp, const char *spec)
{
#ifdef OVKP_HYPRE_FILE
    Dl_info info;
    void *sym;
    PetscFunctionBegin;
    if (isolated || strncmp(spec, "amg", 3) || (spec[3] && spec[3] != ':')) PetscFunctionReturn(0);
    sym = dlsym(RTLD_DEFAULT, "HYPRE_IJMatrixCreate");
    if (!sym || !dladdr(sym, &info) || !info.dli_fname || strstr(info.dli_fname, OVKP_HYPRE_FILE)) PetscFunctionReturn(0);
    SETERRQ(PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP,
            "-%sksp_ovkrylov_precond %s: ovkrylov's amg is built on %s (hypre with 64-bit indices), and this process binds hypre's "
            "symbols to %s (PETSc's hypre), which would take its calls; the plug-in loads ovkrylov apart from it except where %s. "
            "Build the program with -fPIC (as PETSc's makefiles do), or use PETSc's -pc_type hypre or -pc_type gamg (the KSP's PC "
            "through the callback)",
            ((PetscObject)ksp)->prefix ? ((PetscObject)ksp)->prefix : "", spec, OVKP_HYPRE_FILE, info.dli_fname, shared_why);
#else
    PetscFunctionBegin;
    (void)ksp, (void)spec;
    PetscFunctionReturn(0);
#endif
}

/* The solver's name before its ':' options is one ovkrylov has. */
static PetscErrorCode check_solver_name(KSP ksp, const char *spec)
{
    char valid[1024] = "";
    size_t len = strcspn(spec, ":");
    int n = ovk_solver_type_count();
    PetscFunctionBegin;
    for (int i = 0; i < n; i++) {
        const char *name = ovk_solver_type_name(i);
        if (strlen(name) == len && !strncmp(name, spec, len)) PetscFunctionReturn(0);
        if (strlen(valid) + strlen(name) + 2 < sizeof valid) strcat(strcat(valid, " "), name);
    }
    SETERRQ(PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_UNKNOWN_TYPE, "unknown -%sksp_ovkrylov_solver %s; valid:%s",
            ((PetscObject)ksp)->prefix ? ((PetscObject)ksp)->prefix : "", spec, valid);
}

/* -[prefix]ksp_ovkrylov_KEY for a key that a PETSc option sets: an error
 * naming that option (the database is the same on every rank) */
static PetscErrorCode refuse_owned(KSP ksp, const char *key, const char *name)
{
    const char *petsc = petsc_option_for(key), *prefix = ((PetscObject)ksp)->prefix;
    PetscBool flg;
    PetscFunctionBegin;
    PetscCall(PetscOptionsHasName(((PetscObject)ksp)->options, prefix, name, &flg));
    PetscCheck(!flg, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_WRONG,
               "-%s%s: for KSP ovkrylov, PETSc's %s sets ovkrylov's %s", prefix ? prefix : "", name + 1, petsc, key);
    PetscFunctionReturn(0);
}

/* PETSc's GMRES options: -ksp_gmres_restart as ovkrylov's restart= (sgmres:
 * m=), -ksp_gmres_cgs_refinement_type as refine= (gmres, fgmres), either
 * making gmres the default solver; refused under a solver without them,
 * and -ksp_gmres_modifiedgramschmidt, which ovkrylov has no counterpart of. */
static PetscErrorCode gmres_options(KSP ksp, PetscOptionItems *PetscOptionsObject, int *changed)
{
    KSP_Ovkrylov *d = ksp->data;
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    const char *prefix = ((PetscObject)ksp)->prefix ? ((PetscObject)ksp)->prefix : "", *solver = option_value(d, "solver", 0), *key;
    PetscInt restart = d->gmres_restart;
    PetscEnum refine = d->gmres_refine >= 0 ? (PetscEnum)d->gmres_refine : (PetscEnum)KSP_GMRES_CGS_REFINE_NEVER;
    PetscBool flg, mgs = PETSC_FALSE;
    PetscFunctionBegin;
    PetscCall(PetscOptionsInt("-ksp_gmres_restart", "PETSc's GMRES restart: ovkrylov's restart= of gmres, fgmres, pgmres (sgmres: m=)",
                              "KSPOVKRYLOV", restart, &restart, &flg));
    if (flg) {
        PetscCheck(restart >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sksp_gmres_restart %" PetscInt_FMT ": must be at least 1", prefix, restart);
        PetscCheck(!solver || restarted(solver, &key), comm, PETSC_ERR_ARG_INCOMP,
                   "-%sksp_gmres_restart %" PetscInt_FMT ": -%sksp_ovkrylov_solver %s does not restart (ovkrylov's gmres, fgmres, pgmres "
                   "take restart=, sgmres m=)", prefix, restart, prefix, solver);
        *changed |= restart != d->gmres_restart;
        d->gmres_restart = restart;
    }
    PetscCall(PetscOptionsEnum("-ksp_gmres_cgs_refinement_type", "PETSc's GMRES refinement: ovkrylov's refine= of gmres, fgmres", "KSPOVKRYLOV",
                               KSPGMRESCGSRefinementTypes, refine, &refine, &flg));
    if (flg) {
        PetscCheck(!solver || names(solver, "gmres") || names(solver, "fgmres"), comm, PETSC_ERR_ARG_INCOMP,
                   "-%sksp_gmres_cgs_refinement_type: -%sksp_ovkrylov_solver %s has no refinement of classical Gram-Schmidt "
                   "(ovkrylov's gmres and fgmres take refine=)", prefix, prefix, solver);
        *changed |= (int)refine != d->gmres_refine;
        d->gmres_refine = (int)refine;
    }
    PetscCall(PetscOptionsBool("-ksp_gmres_modifiedgramschmidt", "PETSc's modified Gram-Schmidt: ovkrylov has none (refused)", "KSPOVKRYLOV", mgs,
                               &mgs, &flg));
    PetscCheck(!flg || !mgs, comm, PETSC_ERR_SUP,
               "-%sksp_gmres_modifiedgramschmidt: ovkrylov's GMRES has no modified Gram-Schmidt (a reduction per basis vector); its "
               "default, orth=dcgs2 (classical Gram-Schmidt twice, one reduction per step), is as stable: drop the option, or "
               "-%sksp_ovkrylov_solver gmres:refine=always for PETSc's -ksp_gmres_cgs_refinement_type refine_always",
               prefix, prefix);
    PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetFromOptions_Ovkrylov(KSP ksp, PetscOptionItems *PetscOptionsObject)
{
    KSP_Ovkrylov *d = ksp->data;
    char name[64], help[512], value[OPTLEN];
    PetscBool flg;
    int changed = 0, n = ovk_solver_option_count();
    PetscFunctionBegin;
    PetscOptionsHeadBegin(PetscOptionsObject, "KSP ovkrylov options: ovkrylov's option table (docs/options.md; "
                                              "docs/guide.md, Coming from PETSc)");
    for (int i = 0; i < n; i++) {
        const char *key = ovk_solver_option_name(i);
        snprintf(name, sizeof name, "-ksp_ovkrylov_%s", key);
        if (petsc_option_for(key)) {
            PetscCall(refuse_owned(ksp, key, name));
            continue;
        }
        snprintf(help, sizeof help, "ovkrylov's %s: %s", key, ovk_solver_option_help(i));
        for (int t = 0; !strcmp(key, "solver") && t < ovk_solver_type_count(); t++) /* the names it takes */
            if (strlen(help) + strlen(ovk_solver_type_name(t)) + 4 < sizeof help)
                strcat(strcat(help, t ? " " : ": "), ovk_solver_type_name(t));
        /* -help shows the value given, else the default (the solver's: the plug-in's, solver_spec) */
        PetscCall(PetscOptionsString(name, help, "KSPOVKRYLOV",
                                     d->given[i] ? d->opt[i] : !strcmp(key, "solver") ? solver_spec(d, d->spec, sizeof d->spec) : ovk_solver_option_default(i),
                                     value, sizeof value, &flg));
        if (!flg) continue;
        if (!strcmp(key, "solver")) PetscCall(check_solver_name(ksp, value));
        if (!strcmp(key, "precond")) PetscCall(check_outside_library(ksp, value));
        changed |= !d->given[i] || strcmp(d->opt[i], value);
        PetscCall(PetscStrncpy(d->opt[i], value, OPTLEN));
        d->given[i] = PETSC_TRUE;
    }
    PetscCall(PetscOptionsString("-ksp_ovkrylov_fields", "a file of each row's field (0 or 1; one integer per global "
                                 "row) for -ksp_ovkrylov_precond fieldsplit", "KSPOVKRYLOV", d->fields, value, sizeof value,
                                 &flg));
    if (flg) {
        changed |= strcmp(d->fields, value) != 0;
        PetscCall(PetscStrncpy(d->fields, value, sizeof d->fields));
    }
    PetscCall(gmres_options(ksp, PetscOptionsObject, &changed));
    PetscOptionsHeadEnd();
    PetscCall(set_norms(ksp, solver_spec(d, d->spec, sizeof d->spec)));
    if (changed && d->s) PetscCall(teardown(d)); /* made anew with them at the next setup or solve */
    PetscFunctionReturn(0);
}

/* KSPBuildSolution (and KSPBuildResidual, which calls it) during a solve,
 * from a monitor (-ksp_monitor_true_residual, -ksp_monitor_solution): the
 * CG variants update x in place, so the KSP's x is the iterate; the
 * right-preconditioned solvers form x = x0 + C u only when a cycle or the
 * solve ends, and ovkrylov has no call that forms it in between: refused
 * rather than a residual of x0. */
static PetscErrorCode KSPBuildSolution_Ovkrylov(KSP ksp, Vec v, Vec *V)
{
    KSP_Ovkrylov *d = ksp->data;
    PetscFunctionBegin;
    PetscCheck(!d->solving || ksp->pc_side != PC_RIGHT, PETSC_COMM_SELF, PETSC_ERR_SUP,
               "KSP ovkrylov: the solution (or true residual) during a solve of %s, which preconditions on the right and forms x "
               "only at the end of a cycle or of the solve: -ksp_monitor_true_residual and -ksp_monitor_solution work under "
               "ovkrylov's CG variants; under this one -ksp_monitor shows the unpreconditioned ||b - A x|| the solver iterates on",
               d->spec);
    PetscCall(KSPBuildSolutionDefault(ksp, v, V));
    PetscFunctionReturn(0);
}

static PetscErrorCode KSPView_Ovkrylov(KSP ksp, PetscViewer viewer)
{
    KSP_Ovkrylov *d = ksp->data;
    PetscBool ascii;
    PetscMPIInt rank;
    FILE *f;
    PetscFunctionBegin;
    PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
    if (!ascii) PetscFunctionReturn(0);
    char opt[96];
    for (int i = 0; i < ovk_solver_option_count(); i++)
        if (d->given[i])
            PetscCall(PetscViewerASCIIPrintf(viewer, "  %s %s\n", opt_name(ksp, ovk_solver_option_name(i), opt, sizeof opt), d->opt[i]));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  solver: %s\n", d->s ? d->spec : solver_spec(d, opt, sizeof opt)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  operator: %s; preconditioner: %s\n",
                                     !d->s ? "not set up" : d->A ? "ovkrylov matrix (copied)" : "MatMult callback",
                                     given(d, "precond") ? "ovkrylov's" : "the KSP's PC (callback)"));
    if (d->fields_from[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "  fieldsplit's fields: %s\n", d->fields_from));
    if (!d->s) PetscFunctionReturn(0);
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)ksp), &rank));
    PetscCall(PetscViewerFlush(viewer));
    if (rank == 0) {
        PetscCall(PetscViewerASCIIGetPointer(viewer, &f));
        ovk_solver_view(d->s, f);
        fflush(f);
    }
    PetscFunctionReturn(0);
}

static PetscErrorCode KSPReset_Ovkrylov(KSP ksp)
{
    PetscFunctionBegin;
    PetscCall(teardown(ksp->data));
    PetscFunctionReturn(0);
}

static PetscErrorCode KSPDestroy_Ovkrylov(KSP ksp)
{
    KSP_Ovkrylov *d = ksp->data;
    PetscFunctionBegin;
    PetscCall(teardown(d));
    PetscCall(ISDestroy(&d->split_is[0]));
    PetscCall(ISDestroy(&d->split_is[1]));
    PetscCall(PetscLayoutDestroy(&d->lay_op));
    PetscCall(PetscLayoutDestroy(&d->lay_b));
    PetscCall(PetscLayoutDestroy(&d->lay_x));
    PetscCall(PetscFree(ksp->data));
    PetscFunctionReturn(0);
}

PetscErrorCode KSPCreate_Ovkrylov(KSP ksp)
{
    KSP_Ovkrylov *d;
    PetscFunctionBegin;
    PetscCall(load_library());
    PetscCall(PetscNew(&d));
    d->ksp = ksp;
    ksp->data = d;
    d->gmres_refine = -1;
    /* ovkrylov tests ||b - A x||_2: the unpreconditioned norm, PC on the side of the default solver */
    PetscCall(set_norms(ksp, solver_spec(d, d->spec, sizeof d->spec)));
    ksp->setupnewmatrix = PETSC_TRUE; /* KSPSetUp after KSPSetOperators: our setup on the new matrix */
    ksp->ops->setup = KSPSetUp_Ovkrylov;
    ksp->ops->solve = KSPSolve_Ovkrylov;
    ksp->ops->matsolve = KSPMatSolve_Ovkrylov;
    ksp->ops->destroy = KSPDestroy_Ovkrylov;
    ksp->ops->reset = KSPReset_Ovkrylov;
    ksp->ops->view = KSPView_Ovkrylov;
    ksp->ops->setfromoptions = KSPSetFromOptions_Ovkrylov;
    ksp->ops->buildsolution = KSPBuildSolution_Ovkrylov;
    ksp->ops->buildresidual = KSPBuildResidualDefault;
    ksp->ops->computeextremesingularvalues = KSPComputeExtremeSingularValues_Ovkrylov;
    PetscFunctionReturn(0);
}

#else
PetscErrorCode KSPCreate_Ovkrylov(KSP ksp)
{
    PetscFunctionBegin;
    SETERRQ(PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP,
            "KSP ovkrylov needs PETSc with real double scalars (this PETSc is complex or not double precision)");
}
#endif

PetscErrorCode KSPOvkrylovRegister(void)
{
    static PetscBool done = PETSC_FALSE;
    PetscFunctionBegin;
    if (done) PetscFunctionReturn(0);
#if OVKP_SCALAR_OK
    PetscCall(load_library());
#endif
    PetscCall(KSPRegister(KSPOVKRYLOV, KSPCreate_Ovkrylov));
    done = PETSC_TRUE;
    PetscFunctionReturn(0);
}

/* PETSc's entry for -dll_append PATH/libovkrylov_petsc.so (the name after "lib"). */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_ovkrylov_petsc(void);
PetscErrorCode PetscDLLibraryRegister_ovkrylov_petsc(void)
{
    PetscFunctionBegin;
    PetscCall(KSPOvkrylovRegister());
    PetscFunctionReturn(0);
}
