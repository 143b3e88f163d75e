/* The helpers of peer_common.h.  A benchmark helper, not a validating
 * parser: a Matrix Market file is trusted to be well formed. */
#include "peer_common.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DEFAULT_BOX = 10, DEFAULT_MAXIT = 1000, LINE = 1024 };
#define DEFAULT_TOL 1e-8
#define READ_BUFFER (1 << 20)
#define FIRST_ENTRIES 1024

/* ---- the Laplacian peers ----------------------------------------------------- */

/* argv[*i] is flag with `count` values: store them, 1; else 0. */
static int ints_flag(int argc, char **argv, int *i, const char *flag, int count, int *to)
{
    if (strcmp(argv[*i], flag) || *i + count >= argc) return 0;
    for (int d = 0; d < count; d++) to[d] = atoi(argv[++*i]);
    return 1;
}

static int grid_flag(int argc, char **argv, int *i, peer_grid *g)
{
    if (ints_flag(argc, argv, i, "-n", 3, g->n) || ints_flag(argc, argv, i, "-P", 3, g->P) ||
        ints_flag(argc, argv, i, "-stencil", 1, &g->stencil) || ints_flag(argc, argv, i, "-maxit", 1, &g->maxit) ||
        ints_flag(argc, argv, i, "-repeat", 1, &g->repeat))
        return 1;
    if (strcmp(argv[*i], "-tol") || *i + 1 >= argc) return 0;
    g->tol = atof(argv[++*i]);
    return 1;
}

/* the processor grid (given, or balanced) and this rank's place in it */
static const char *place(peer_grid *g)
{
    if (g->P[0] == 0 && g->P[1] == 0 && g->P[2] == 0) MPI_Dims_create(g->nranks, 3, g->P);
    else if (g->P[0] < 1 || g->P[1] < 1 || g->P[2] < 1 || g->P[0] * g->P[1] * g->P[2] != g->nranks)
        return "-P px py pz must multiply to the number of ranks";
    g->at[0] = g->rank % g->P[0];
    g->at[1] = (g->rank / g->P[0]) % g->P[1];
    g->at[2] = g->rank / (g->P[0] * g->P[1]);
    for (int d = 0; d < 3; d++) g->g[d] = (long long)g->n[d] * g->P[d];
    return NULL;
}

const char *peer_grid_parse(int argc, char **argv, int strict, peer_grid *g)
{
    memset(g, 0, sizeof *g);
    for (int d = 0; d < 3; d++) g->n[d] = DEFAULT_BOX;
    g->stencil = PEER_STENCIL_27, g->maxit = DEFAULT_MAXIT, g->repeat = 1, g->tol = DEFAULT_TOL;
    MPI_Comm_rank(MPI_COMM_WORLD, &g->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g->nranks);
    for (int i = 1; i < argc; i++)
        if (!grid_flag(argc, argv, &i, g) && strict) return "bad or incomplete argument";
    if (g->n[0] < 1 || g->n[1] < 1 || g->n[2] < 1) return "-n values must be >= 1";
    if (g->stencil != PEER_STENCIL_27 && g->stencil != PEER_STENCIL_7) return "-stencil must be 27 or 7";
    if (g->repeat < 1 || g->maxit < 0 || !(g->tol > 0)) return "bad -repeat/-maxit/-tol";
    return place(g);
}

double peer_grid_diagonal(const peer_grid *g)
{
    int flat = (g->g[0] == 1) + (g->g[1] == 1) + (g->g[2] == 1); /* global dimensions of 1 */
    if (g->stencil == PEER_STENCIL_7) return 2.0 * (3 - flat);
    return flat == 0 ? 26.0 : flat == 1 ? 8.0 : 2.0;
}

void peer_grid_print(const peer_grid *g)
{
    if (g->rank) return;
    printf("Stencil = %d\n", g->stencil);
    printf("Ranks = %d (P = %d %d %d)\n", g->nranks, g->P[0], g->P[1], g->P[2]);
    printf("Local grid = %d %d %d\n", g->n[0], g->n[1], g->n[2]);
    printf("Global grid = %lld %lld %lld (%lld unknowns)\n", g->g[0], g->g[1], g->g[2], g->g[0] * g->g[1] * g->g[2]);
}

/* ---- the Matrix Market peers: flags ------------------------------------------ */

int peer_mtx_flag(const char *flag, const char *value, peer_mtx_args *a)
{
    if (!strcmp(flag, "-f")) a->path = value;
    else if (!strcmp(flag, "-coords")) a->coords = value;
    else if (!strcmp(flag, "-rhs")) a->rhs = value;
    else if (!strcmp(flag, "-tol")) a->tol = atof(value);
    else if (!strcmp(flag, "-maxit")) a->maxit = atoi(value);
    else if (!strcmp(flag, "-repeat")) a->repeat = atoi(value);
    else if (!strcmp(flag, "-bs")) a->bs = atoi(value);
    else return 0;
    return 1;
}

const char *peer_mtx_check(peer_mtx_args *a)
{
    if (!a->path) return "-f FILE.mtx is required";
    if (a->repeat < 1 || a->maxit < 0 || !(a->tol > 0)) return "bad -repeat/-maxit/-tol";
    a->random_rhs = !strcmp(a->rhs, "random");
    if (!a->random_rhs && strcmp(a->rhs, "Aones")) return "-rhs must be random or Aones";
    if (a->coords && a->bs == 0) a->bs = 3;
    if (a->coords && a->bs != 3) return "-coords needs -bs 3";
    if (a->bs == 0) a->bs = 1;
    return a->bs < 1 ? "bad -bs" : NULL;
}

/* ---- the Matrix Market peers: the reader -------------------------------------- */

typedef struct entry {
    long long i, j;
    double v;
} entry;

static int entry_cmp(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->i != y->i) return (x->i > y->i) - (x->i < y->i);
    return (x->j > y->j) - (x->j < y->j);
}

/* What a file holds and what this rank keeps of it. */
typedef struct mtx_file {
    FILE *f;
    const char *path;
    int sym, pattern;
    long long rows, count; /* N, stored entries */
    entry *e;
    long long ne, cap;     /* this rank's entries */
    char *err;
    size_t errlen;
} mtx_file;

/* the message of a failure in x->err; returns -1 */
__attribute__((format(printf, 2, 3))) static int fail(mtx_file *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->err, x->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* The banner (real or pattern, general or symmetric) and the size line. */
static int read_header(mtx_file *x, int bs)
{
    char line[LINE];
    if (!fgets(line, sizeof line, x->f) || strncmp(line, "%%MatrixMarket matrix coordinate", 32) ||
        strstr(line, "complex") || strstr(line, "hermitian") || strstr(line, "skew"))
        return fail(x, "%s: not a real coordinate Matrix Market file", x->path);
    x->sym = strstr(line, "symmetric") != NULL;
    x->pattern = strstr(line, "pattern") != NULL;
    do {
        if (!fgets(line, sizeof line, x->f)) return fail(x, "%s: no size line", x->path);
    } while (line[0] == '%');
    long long cols = 0;
    if (sscanf(line, "%lld %lld %lld", &x->rows, &cols, &x->count) != 3 || x->rows != cols || x->rows < 1)
        return fail(x, "%s: bad size line or not square", x->path);
    if (bs < 1 || x->rows % bs)
        return fail(x, "%s: %lld rows, not a multiple of the block size %d", x->path, x->rows, bs);
    return 0;
}

/* "i j [v]", 1-based, inside the matrix: 0, or -1. */
static int parse_entry(const mtx_file *x, char *p, long long *i, long long *j, double *v)
{
    char *q = NULL;
    *i = strtoll(p, &q, 10);
    if (q == p) return -1;
    *j = strtoll(p = q, &q, 10);
    if (q == p) return -1;
    *v = 1.0;
    if (!x->pattern) {
        *v = strtod(p = q, &q);
        if (q == p) return -1;
    }
    return *i < 1 || *i > x->rows || *j < 1 || *j > x->rows ? -1 : 0;
}

static int keep(mtx_file *x, long long r, long long c, double v)
{
    if (x->ne == x->cap) {
        entry *grown = realloc(x->e, sizeof *grown * (size_t)(x->cap *= 2));
        if (!grown) return -1;
        x->e = grown;
    }
    x->e[x->ne++] = (entry){r, c, v};
    return 0;
}

/* The entries in the rows [lo, hi), the symmetric ones mirrored. */
static int read_entries(mtx_file *x, long long lo, long long hi)
{
    char line[LINE];
    x->cap = FIRST_ENTRIES;
    x->e = malloc(sizeof *x->e * (size_t)x->cap);
    if (!x->e) return fail(x, "%s: out of memory", x->path);
    for (long long k = 0; k < x->count; k++) {
        long long i, j;
        double v;
        if (!fgets(line, sizeof line, x->f)) return fail(x, "%s: %lld of %lld entries", x->path, k, x->count);
        if (parse_entry(x, line, &i, &j, &v)) return fail(x, "%s: bad entry line %lld: %.60s", x->path, k + 1, line);
        for (int t = 0; t < 1 + (x->sym && i != j); t++) {
            long long r = t ? j - 1 : i - 1, c = t ? i - 1 : j - 1;
            if (r >= lo && r < hi && keep(x, r, c, v)) return fail(x, "%s: out of memory", x->path);
        }
    }
    return 0;
}

/* The sorted entries in CSR, duplicates summed. */
static int to_csr(const mtx_file *x, peer_mtx *m)
{
    long long nl = m->hi - m->lo, nz = 0, ne = x->ne;
    m->rowptr = calloc((size_t)nl + 1, sizeof *m->rowptr);
    m->col = malloc(sizeof *m->col * (size_t)(ne ? ne : 1));
    m->val = malloc(sizeof *m->val * (size_t)(ne ? ne : 1));
    if (!m->rowptr || !m->col || !m->val) return -1;
    for (long long k = 0; k < ne; k++) {
        const entry *e = &x->e[k];
        if (nz > 0 && k > 0 && e->i == e[-1].i && e->j == e[-1].j) {
            m->val[nz - 1] += e->v; /* duplicate: summed */
            continue;
        }
        m->rowptr[e->i - m->lo + 1]++;
        m->col[nz] = e->j, m->val[nz++] = e->v;
    }
    for (long long r = 0; r < nl; r++) m->rowptr[r + 1] += m->rowptr[r];
    return 0;
}

/* This rank's block of the row split; 0, or -1 with a message in err. */
static int read_local(const char *path, int bs, peer_mtx *m, char *err, size_t errlen)
{
    static char buf[READ_BUFFER];
    int rank, size, rc;
    mtx_file x = {.path = path, .err = err, .errlen = errlen};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(m, 0, sizeof *m);
    x.f = fopen(path, "r");
    if (!x.f) return fail(&x, "cannot open %s", path);
    setvbuf(x.f, buf, _IOFBF, sizeof buf);
    rc = read_header(&x, bs);
    if (!rc) {
        long long nodes = x.rows / bs;
        m->n = x.rows;
        m->lo = bs * (nodes * rank / size);
        m->hi = bs * (nodes * (rank + 1) / size);
        rc = read_entries(&x, m->lo, m->hi);
    }
    fclose(x.f);
    if (!rc) qsort(x.e, (size_t)x.ne, sizeof *x.e, entry_cmp);
    if (!rc && to_csr(&x, m)) rc = fail(&x, "%s: out of memory", path);
    free(x.e);
    return rc;
}

/* The coordinates file of bench/gen/fe_gen.py: the number of nodes, then
 * "x y z" per node in the order of the matrix's node blocks.  Keeps the
 * nodes [lo, hi) in xyz (3 per node, interleaved); checks the count. */
static int read_xyz(const char *path, long long nodes, long long lo, long long hi, double **xyz, char *err,
                    size_t errlen)
{
    char line[LINE];
    long long n = 0;
    FILE *f = fopen(path, "r");
    if (!f) return snprintf(err, errlen, "cannot open %s", path), -1;
    *xyz = malloc(sizeof **xyz * 3 * (size_t)(hi - lo > 0 ? hi - lo : 1));
    int rc = *xyz ? 0 : -1;
    if (rc) snprintf(err, errlen, "%s: out of memory", path);
    if (!rc && (!fgets(line, sizeof line, f) || sscanf(line, "%lld", &n) != 1 || n != nodes)) {
        snprintf(err, errlen, "%s: first line must be the number of nodes, %lld", path, nodes);
        rc = -1;
    }
    for (long long k = 0; !rc && k < hi; k++) {
        double p[3];
        if (!fgets(line, sizeof line, f) || sscanf(line, "%lf %lf %lf", &p[0], &p[1], &p[2]) != 3) {
            snprintf(err, errlen, "%s: bad or missing line %lld", path, k + 2);
            rc = -1;
        }
        if (!rc && k >= lo) memcpy(*xyz + 3 * (k - lo), p, sizeof p);
    }
    fclose(f);
    if (rc) free(*xyz), *xyz = NULL;
    return rc;
}

/* rc of every rank agreed: the worst (-1 when any failed); a failure printed */
static int agree(const char *prog, int rc, const char *err)
{
    int rank, worst = rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rc) fprintf(stderr, "%s: rank %d: %s\n", prog, rank, err);
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return worst;
}

int peer_mtx_read(const char *prog, const peer_mtx_args *a, peer_mtx *m, double **xyz)
{
    char err[PEER_TEXT];
    *xyz = NULL;
    if (agree(prog, read_local(a->path, a->bs, m, err, sizeof err), err)) return PEER_READ_MATRIX;
    if (!a->coords) return PEER_READ_OK;
    int rc = read_xyz(a->coords, m->n / 3, m->lo / 3, m->hi / 3, xyz, err, sizeof err);
    return agree(prog, rc, err) ? PEER_READ_COORDS : PEER_READ_OK;
}

void peer_mtx_free(peer_mtx *m)
{
    free(m->rowptr), free(m->col), free(m->val);
    m->rowptr = NULL, m->col = NULL, m->val = NULL;
}

double peer_random_entry(long long i)
{
    uint64_t z = (uint64_t)i + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) / 4503599627370496.0 - 1.0; /* 53 bits / 2^52 - 1 */
}

/* ---- the driver's lines --------------------------------------------------------- */

void peer_print_result(peer_result *r)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank) return;
    double solve = ovk_bench_median(r->solve_s, r->repeat);
    printf("Repeats = %d\n", r->repeat);
    if (r->converged_key) printf("%s = %s\n", r->converged_key, r->converged);
    printf("Iterations = %d\n", r->iterations);
    printf("Final Relative Residual Norm = %e\n", r->final_rel);
    if (r->true_rel >= 0) printf("True Relative Residual Norm = %e\n", r->true_rel);
    if (r->setup_s) printf("Setup Time = %.6e s\n", ovk_bench_median(r->setup_s, r->repeat));
    printf("Solve Time = %.6e s\n", solve);
    if (r->per_iteration) printf("Time per Iteration = %.6e s\n", r->iterations > 0 ? solve / r->iterations : 0.0);
}

/* ---- the libraries' helpers ------------------------------------------------------ */

#ifdef OVK_PEER_HYPRE
HYPRE_IJVector peer_ij_vector(long long lo, long long hi, const double *vals, HYPRE_ParVector *par)
{
    HYPRE_IJVector v;
    int n = (int)(hi - lo);
    double *zero = NULL;
    HYPRE_IJVectorCreate(MPI_COMM_WORLD, (HYPRE_BigInt)lo, (HYPRE_BigInt)hi - 1, &v);
    HYPRE_IJVectorSetObjectType(v, HYPRE_PARCSR);
    HYPRE_IJVectorInitialize(v);
    if (!vals) vals = zero = calloc((size_t)(n ? n : 1), sizeof *zero);
    HYPRE_IJVectorSetValues(v, n, NULL, vals);
    HYPRE_IJVectorAssemble(v);
    HYPRE_IJVectorGetObject(v, (void **)par);
    free(zero);
    return v;
}

HYPRE_Solver peer_hypre_pcg(double tol, int maxit)
{
    HYPRE_Solver pcg;
    HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &pcg);
    HYPRE_ParCSRPCGSetMaxIter(pcg, maxit);
    HYPRE_ParCSRPCGSetTol(pcg, tol);
    HYPRE_ParCSRPCGSetTwoNorm(pcg, 1);
    HYPRE_ParCSRPCGSetRelChange(pcg, 0);
    HYPRE_ParCSRPCGSetPrintLevel(pcg, 0);
    HYPRE_ParCSRPCGSetLogging(pcg, 1);
    return pcg;
}

int peer_hypre_converged(HYPRE_Int ierr, double relres, double tol)
{
    int converged = !HYPRE_CheckError(ierr, HYPRE_ERROR_CONV) && relres < tol && relres == relres;
    HYPRE_ClearAllErrors();
    return converged;
}
#endif

#ifdef OVK_PEER_PETSC
PetscErrorCode peer_ksp_cg(Mat A, double tol, int maxit, KSP *ksp, PC *pc)
{
    PetscFunctionBeginUser;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
    PetscCall(KSPSetOperators(*ksp, A, A));
    PetscCall(KSPSetType(*ksp, KSPCG));
    PetscCall(KSPGetPC(*ksp, pc));
    PetscCall(PCSetType(*pc, PCJACOBI));
    PetscCall(KSPSetNormType(*ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetInitialGuessNonzero(*ksp, PETSC_FALSE));
    PetscCall(KSPSetTolerances(*ksp, tol, 0.0, PETSC_DEFAULT, maxit));
    PetscCall(KSPSetFromOptions(*ksp)); /* and PCSetFromOptions: -pc_type gamg, hypre, ... */
    PetscFunctionReturn(0);
}

PetscErrorCode peer_ksp_result(KSP ksp, Mat A, Vec x, Vec b, Vec r, peer_result *res)
{
    PetscInt its;
    PetscReal bnorm, rnorm, tnorm;
    PetscFunctionBeginUser;
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm));
    PetscCall(VecNorm(b, NORM_2, &bnorm));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &tnorm));
    res->iterations = (int)its;
    res->final_rel = (double)(rnorm / bnorm);
    res->true_rel = (double)(tnorm / bnorm);
    PetscFunctionReturn(0);
}

PetscErrorCode peer_petsc_destroy(KSP *ksp, Mat *A, Vec *x, Vec *b, Vec *r)
{
    PetscFunctionBeginUser;
    PetscCall(VecDestroy(x));
    PetscCall(VecDestroy(b));
    PetscCall(VecDestroy(r));
    PetscCall(KSPDestroy(ksp));
    PetscCall(MatDestroy(A));
    PetscFunctionReturn(0);
}
#endif
