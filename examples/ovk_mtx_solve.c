/* ovk_mtx_solve: solve A x = b for a Matrix Market matrix with ovkrylov's
 * solvers: the CG variants for an SPD matrix, bicgstab and pipebicgstab for
 * any (a `general` nonsymmetric file is read as it is; a CG variant refuses
 * it at setup, naming the nonsymmetric solvers).
 *
 *   mpirun -n 4 ovk_mtx_solve -f A.mtx [-solver alg1] [-backend blocking] [-tol 1e-8]
 *
 * The right-hand side is b = A*1 by default, so the exact solution is x = 1 and
 * the driver also reports the error against it.  x0 = 0.  Exit status: 0 when
 * the solve converged, 1 on any error or non-convergence, 2 on bad flags.
 *
 * A sequence (time loop, Newton): -f A1.mtx,A2.mtx,... solves the systems in
 * order with one solver object (its recycled space, -ovk_recycle K, carried
 * from one to the next): the next matrix's values on the same pattern
 * (ovk_matrix_update_values), else a new matrix and solver; -b b1.mtx,...
 * the right-hand sides (dense Matrix Market arrays), else -rhs for each. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ovkrylov/ovkrylov.h"

#include "common/experiment.h"

typedef enum rhs_kind { RHS_AONES, RHS_ONES, RHS_RANDOM } rhs_kind;

enum { MAX_SEQUENCE = 1000 };

typedef struct args {
    const char *file;   /* -f: one file, or a comma-separated list (a sequence) */
    const char *rhs_files; /* -b: a comma-separated list, one per system; NULL: -rhs */
    const char *solver;
    const char *backend;
    double tol;
    int maxit;
    int timing;
    int print_level;
    rhs_kind rhs;
    int bs;             /* -bs: rows per node (the split keeps nodes whole) */
    const char *coords; /* -coords FILE: node coordinates */
    const char *fields; /* -fields FILE: each row's field, for fieldsplit */
    const char *schur;  /* -schur FILE: fieldsplit's Schur matrix (field 1's rows) */
    int help;
    ovk_drv_experiment ex;
} args;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ovk_mtx_solve -f FILE.mtx [options]\n"
            "  -f FILE          Matrix Market file (coordinate; real, integer or pattern;\n"
            "                   general or symmetric); SPD for the CG variants, any\n"
            "                   matrix for the nonsymmetric solvers (bicgstab, pipebicgstab);\n"
            "                   FILE1,FILE2,...: a sequence solved in order with one solver\n"
            "                   (new values on the same pattern, else a new matrix)\n"
            "  -b F1,F2,...     the sequence's right-hand sides, one per system: dense Matrix\n"
            "                   Market arrays ('%%%%MatrixMarket matrix array real general')\n"
            "  -solver NAME     solver:");
    for (int i = 0; i < ovk_solver_type_count(); i++) fprintf(f, " %s", ovk_solver_type_name(i));
    fprintf(f, " (default alg1)\n"
               "  -backend SPEC    reduction backend \"name[:key=value,...]\" (default $%s or %s)\n"
               "  -tol T           relative residual tolerance (default 1e-8)\n"
               "  -maxit N         iteration limit (default 1000)\n"
               "  -timing          print the time breakdown\n"
               "  -print_level L   0 quiet, 1 summary, 2 residual every iteration (default 0)\n"
               "  -rhs KIND        ones | Aones (b = A*1, default) | random\n"
               "  -bs N            unknowns per node, interleaved: ranks own whole nodes (default 1)\n"
               "  -coords FILE     node coordinates for amg's rigid-body modes: a line with the\n"
               "                   number of nodes, then one line 'x y [z]' per node\n"
               "  -nullspace FILE  A is singular with the columns of FILE as null space: a Matrix Market\n"
               "                   dense array ('%%%%MatrixMarket matrix array real general', a line 'N K',\n"
               "                   then the N x K values column by column), N the matrix's rows, any\n"
               "                   basis (orthonormalised by the library); or -nullspace constant\n"
               "  -fields FILE     the field (0 or 1) of each row for -precond fieldsplit: one integer\n"
               "                   per row in global row order, separated by white space\n"
               "  -schur FILE      fieldsplit's Schur complement approximation (schur=user), e.g. the\n"
               "                   pressure mass matrix: Matrix Market, field 1's rows in their order\n"
               "  -precond list    print the preconditioners of this build\n"
               "  -help            this message\n",
            OVK_BACKEND_ENV, OVK_BACKEND_DEFAULT);
    ovk_drv_usage(f);
    fprintf(f, "backends:\n");
    ovk_backend_print(f);
}

static int parse_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && *end == '\0' && errno == 0;
}

static int parse_int(const char *s, int lo, int hi, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno || x < lo || x > hi) return 0;
    *v = (int)x;
    return 1;
}

static int parse_rhs(const char *s, rhs_kind *k)
{
    if (!strcmp(s, "Aones")) *k = RHS_AONES;
    else if (!strcmp(s, "ones")) *k = RHS_ONES;
    else if (!strcmp(s, "random")) *k = RHS_RANDOM;
    else return 0;
    return 1;
}

/* One flag with its value (if any) at argv[*i]; returns 0 on a bad flag. */
static int parse_flag(int argc, char **argv, int *i, args *a, const char **bad)
{
    const char *flag = argv[*i];
    const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    int ok = 1;
    *bad = flag;
    int shared = ovk_drv_parse_flag(argc, argv, i, &a->ex);
    if (shared) return shared > 0;
    if (!strcmp(flag, "-help") || !strcmp(flag, "--help") || !strcmp(flag, "-h")) a->help = 1;
    else if (!strcmp(flag, "-timing")) a->timing = 1;
    else if (!val) return 0; /* every other flag takes a value */
    else if (!strcmp(flag, "-f")) a->file = val;
    else if (!strcmp(flag, "-b")) a->rhs_files = val;
    else if (!strcmp(flag, "-solver")) a->solver = val;
    else if (!strcmp(flag, "-backend")) a->backend = val;
    else if (!strcmp(flag, "-tol")) ok = parse_double(val, &a->tol) && a->tol > 0;
    else if (!strcmp(flag, "-maxit")) ok = parse_int(val, 0, 1000000000, &a->maxit);
    else if (!strcmp(flag, "-print_level")) ok = parse_int(val, 0, 2, &a->print_level);
    else if (!strcmp(flag, "-rhs")) ok = parse_rhs(val, &a->rhs);
    else if (!strcmp(flag, "-bs")) ok = parse_int(val, 1, 64, &a->bs);
    else if (!strcmp(flag, "-coords")) a->coords = val;
    else if (!strcmp(flag, "-fields")) a->fields = val;
    else if (!strcmp(flag, "-schur")) a->schur = val;
    else return 0;
    if (a->help || !strcmp(flag, "-timing")) return 1;
    *i += 1;
    return ok;
}

/* the entries of a comma-separated list (0 for an empty entry) */
static int list_count(const char *list)
{
    int n = 1;
    for (const char *c = list; *c; c++) n += *c == ',';
    if (list[0] == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,")) return 0;
    return n;
}

/* 1 when -f names a sequence or -b is given */
static int is_sequence(const args *a) { return strchr(a->file, ',') || a->rhs_files; }

/* a sequence's flags: -b's count is -f's, and none of the per-matrix
 * flags (0 ok, 2 bad, the message printed on rank 0) */
static int check_sequence(const args *a, int rank)
{
    const char *why = NULL;
    if (!is_sequence(a)) return 0;
    int nf = list_count(a->file), nb = a->rhs_files ? list_count(a->rhs_files) : nf;
    if (nf == 0 || nb == 0) why = "an empty entry in the list of -f or -b";
    else if (nf > MAX_SEQUENCE) why = "more systems than 1000";
    else if (nb != nf) why = "-b names as many files as -f";
    else if (a->coords || a->fields || a->schur || (a->ex.nullspace && strcmp(a->ex.nullspace, "constant")) ||
             a->ex.nrhs > 1 || a->bs != 1)
        why = "a sequence takes none of -coords, -fields, -schur, -nullspace FILE, -nrhs, -bs";
    if (why && rank == 0) fprintf(stderr, "ovk_mtx_solve: %s\n", why);
    return why ? 2 : 0;
}

/* 0 ok, 2 bad flags (message printed on rank 0). */
static int parse_args(int argc, char **argv, int rank, args *a)
{
    const char *bad = NULL;
    for (int i = 1; i < argc; i++) {
        if (parse_flag(argc, argv, &i, a, &bad)) continue;
        if (rank == 0) {
            fprintf(stderr, "ovk_mtx_solve: unknown flag or bad/missing value: '%s'\n", bad);
            usage(stderr);
        }
        return 2;
    }
    if (a->ex.precond && !strcmp(a->ex.precond, "list")) a->help = 2; /* print and exit */
    if (!a->help && !a->file) {
        if (rank == 0) {
            fprintf(stderr, "ovk_mtx_solve: -f FILE is required\n");
            usage(stderr);
        }
        return 2;
    }
    return a->help ? 0 : check_sequence(a, rank);
}

static int make_rhs(const ovk_matrix *A, rhs_kind kind, ovk_vector *ones, ovk_vector *b)
{
    int rc = ovk_vector_set(ones, 1.0);
    if (rc) return rc;
    if (kind == RHS_AONES) return ovk_matvec(A, ones, b);
    if (kind == RHS_ONES) return ovk_vector_set(b, 1.0);
    double *v = ovk_vector_data(b);
    ovk_gidx r0 = ovk_matrix_row_start(A);
    for (int i = 0; i < ovk_vector_nlocal(b); i++) v[i] = ovk_drv_random_entry(r0 + i);
    return OVK_OK;
}

/* The coordinates of this rank's nodes [first, first + count) from a file:
 * a line with the number of nodes, then one line "x y [z]" per node (the
 * dimension is the count of numbers on the first).  Local; OVK_EFILE or
 * OVK_EFORMAT with a detail. */
static int read_coords(const char *path, long long first, int count, int *dim, double **xyz)
{
    FILE *f = fopen(path, "r");
    char line[512];
    long long total = -1;
    int rc = OVK_OK;
    *xyz = NULL;
    *dim = 0;
    if (!f) return OVK_EFILE;
    if (!fgets(line, sizeof line, f) || sscanf(line, "%lld", &total) != 1 || total < first + count) rc = OVK_EFORMAT;
    for (long long k = 0; !rc && k < total; k++) {
        double p[3];
        if (!fgets(line, sizeof line, f)) rc = OVK_EFORMAT;
        int got = rc ? 0 : sscanf(line, "%lf %lf %lf", &p[0], &p[1], &p[2]);
        if (!rc && k == 0) {
            *dim = got;
            *xyz = malloc(sizeof(double) * (size_t)(count > 0 ? count : 1) * (size_t)(got > 0 ? got : 1));
            if (!*xyz) rc = OVK_ENOMEM;
        }
        if (!rc && (got < 2 || got != *dim)) rc = OVK_EFORMAT;
        if (!rc && k >= first && k < first + count)
            for (int d = 0; d < got; d++) (*xyz)[(k - first) * got + d] = p[d];
        if (k >= first + count) break;
    }
    fclose(f);
    if (rc) {
        free(*xyz);
        *xyz = NULL;
    }
    return rc;
}

/* This rank's rows [first, first + count) of the K columns of a Matrix
 * Market dense array of nglobal rows (-nullspace FILE) into *vec (column j
 * at j * count).  Local; OVK_EFILE, OVK_EFORMAT (malformed, or not
 * nglobal rows) or OVK_ENOMEM, with what went wrong in *why. */
static int read_nullspace(const char *path, long long nglobal, long long first, int count, int *k, double **vec,
                          char *why, size_t len)
{
    FILE *f = fopen(path, "r");
    char line[512];
    long long rows = -1, cols = -1;
    int rc = OVK_OK;
    *vec = NULL;
    *k = 0;
    snprintf(why, len, "not a dense Matrix Market array ('%%%%MatrixMarket matrix array real general', N K, values)");
    if (!f) {
        snprintf(why, len, "cannot be read");
        return OVK_EFILE;
    }
    if (!fgets(line, sizeof line, f) || strncmp(line, "%%MatrixMarket matrix array real general", 40)) rc = OVK_EFORMAT;
    while (!rc && fgets(line, sizeof line, f) && line[0] == '%') continue; /* comments */
    if (!rc && (sscanf(line, "%lld %lld", &rows, &cols) != 2 || cols < 1 || cols > 32)) rc = OVK_EFORMAT;
    if (!rc && rows != nglobal) {
        snprintf(why, len, "vectors of %lld rows for a matrix of %lld", rows, nglobal);
        rc = OVK_EFORMAT;
    }
    if (!rc && !(*vec = malloc(sizeof(double) * (size_t)(count > 0 ? count : 1) * (size_t)cols))) rc = OVK_ENOMEM;
    for (long long e = 0; !rc && e < rows * cols; e++) {
        double v;
        if (fscanf(f, "%lf", &v) != 1) rc = OVK_EFORMAT;
        long long r = e % rows, j = e / rows;
        if (!rc && r >= first && r < first + count) (*vec)[j * count + (r - first)] = v;
    }
    fclose(f);
    if (rc == OVK_ENOMEM) snprintf(why, len, "no memory for its vectors");
    if (rc) {
        free(*vec);
        *vec = NULL;
        return rc;
    }
    *k = (int)cols;
    return OVK_OK;
}

/* Collective: -nullspace FILE's vectors into the experiment settings. */
static int load_nullspace(args *a, const ovk_matrix *A, double **vec)
{
    int k = 0, rank = 0;
    char why[160];
    int rc = read_nullspace(a->ex.nullspace, (long long)ovk_matrix_nglobal(A), (long long)ovk_matrix_row_start(A),
                            ovk_matrix_nlocal(A), &k, vec, why, sizeof why);
    a->ex.ns_vectors = *vec;
    a->ex.ns_k = k;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rc && rank == 0) fprintf(stderr, "ovk_mtx_solve: -nullspace %s: %s\n", a->ex.nullspace, why);
    return ovk_drv_agree(rc);
}

/* Collective: every rank's coordinates into the experiment settings. */
static int load_coords(args *a, const ovk_matrix *A, double **xyz)
{
    int count = ovk_matrix_nlocal(A) / a->bs, dim = 0;
    int rc = read_coords(a->coords, (long long)(ovk_matrix_row_start(A) / a->bs), count, &dim, xyz);
    if (rc == OVK_EFILE) fprintf(stderr, "ovk_mtx_solve: cannot read %s\n", a->coords);
    else if (rc) fprintf(stderr, "ovk_mtx_solve: %s: malformed or too few coordinates\n", a->coords);
    int dmax = dim;
    MPI_Allreduce(MPI_IN_PLACE, &dmax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    a->ex.coords = *xyz;
    a->ex.coord_dim = dmax;
    a->ex.ncoords = count;
    return ovk_drv_agree(rc);
}

/* The fields of this rank's rows [first, first + count) from -fields FILE
 * (nglobal integers); *nf1_before and *nf1: field 1's rows before this
 * rank's and on it.  Local; OVK_EFILE or OVK_EFORMAT with *why. */
static int read_fields(const char *path, long long nglobal, long long first, int count, int *ids,
                       long long *nf1_before, int *nf1, char *why, size_t len)
{
    FILE *f = fopen(path, "r");
    long long k = 0;
    int rc = OVK_OK;
    *nf1_before = 0, *nf1 = 0;
    if (!f) {
        snprintf(why, len, "cannot be read");
        return OVK_EFILE;
    }
    for (long v; !rc && fscanf(f, "%ld", &v) == 1; k++) {
        if (k < first) *nf1_before += v == 1;
        else if (k < first + count) {
            ids[k - first] = v < -1000 || v > 1000 ? 1000 : (int)v; /* the library names a bad id's row */
            *nf1 += v == 1;
        }
    }
    if (!feof(f)) {
        snprintf(why, len, "entry %lld is not an integer", k + 1);
        rc = OVK_EFORMAT;
    } else if (k != nglobal) {
        snprintf(why, len, "%lld field ids for a matrix of %lld rows (one per row)", k, nglobal);
        rc = OVK_EFORMAT;
    }
    fclose(f);
    return rc;
}

/* Collective: -schur FILE's rows that field 1's rows of this rank are
 * (nf1 from nf1_before on), nf1_total of them in all. */
static int read_schur(const char *path, long long nf1_before, int nf1, long long nf1_total, ovk_matrix **S,
                      char *why, size_t len)
{
    int *ptr = NULL, got = 0;
    ovk_gidx n = 0, *col = NULL;
    double *val = NULL;
    int rc = ovk_mm_read_rows(path, 0, 0, &n, &got, &ptr, &col, &val); /* its size */
    free(ptr), free(col), free(val);
    ptr = NULL, col = NULL, val = NULL;
    if (rc) snprintf(why, len, "%s", ovk_error_detail());
    else if (n != nf1_total) {
        snprintf(why, len, "%lld rows, field 1 (-fields) has %lld", (long long)n, nf1_total);
        rc = OVK_EFORMAT;
    }
    if (!rc) rc = ovk_mm_read_rows(path, nf1_before, nf1, &n, &got, &ptr, &col, &val);
    if (rc && !why[0]) snprintf(why, len, "%s", ovk_error_detail());
    rc = ovk_drv_agree(rc);
    if (!rc) rc = ovk_matrix_create_csr(MPI_COMM_WORLD, nf1_before, nf1, ptr, col, val, OVK_DUP_SUM, S);
    if (rc && !why[0]) snprintf(why, len, "%s", ovk_error_detail());
    free(ptr), free(col), free(val);
    return rc;
}

/* Collective: -fields FILE (and -schur FILE) into the experiment settings. */
static int load_fields(args *a, const ovk_matrix *A, int **ids, ovk_matrix **S)
{
    int n = ovk_matrix_nlocal(A), rank = 0, nf1 = 0;
    long long before = 0, total = 0, mine;
    char why[256] = "";
    const char *culprit = a->fields;
    *ids = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int rc = *ids ? read_fields(a->fields, (long long)ovk_matrix_nglobal(A), (long long)ovk_matrix_row_start(A), n,
                                *ids, &before, &nf1, why, sizeof why)
                  : OVK_ENOMEM;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rc = ovk_drv_agree(rc);
    if (!rc && a->schur) {
        mine = nf1;
        MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        culprit = a->schur;
        rc = read_schur(a->schur, before, nf1, total, S, why, sizeof why);
    }
    if (rc && rank == 0) fprintf(stderr, "ovk_mtx_solve: %s %s: %s\n", culprit == a->schur ? "-schur" : "-fields",
                                 culprit, why[0] ? why : ovk_strerror(rc));
    a->ex.fields = *ids;
    a->ex.schur = *S;
    return rc;
}

/* max |x_i - 1| over all ranks. */
static double error_vs_ones(const ovk_vector *x, MPI_Comm comm)
{
    const double *v = ovk_vector_data_const(x);
    double e = 0.0, g = 0.0;
    for (int i = 0; i < ovk_vector_nlocal(x); i++)
        if (!(fabs(v[i] - 1.0) <= e)) e = fabs(v[i] - 1.0); /* NaN propagates */
    MPI_Allreduce(&e, &g, 1, MPI_DOUBLE, MPI_MAX, comm);
    return g;
}

static void print_matrix_info(const args *a, const ovk_matrix *A, int rank, int nranks)
{
    long long nnz = ovk_matrix_nnz_local(A), total = 0;
    MPI_Reduce(&nnz, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank != 0 || a->print_level < 1) return;
    printf("Matrix: %s, %lld rows, %lld nonzeros, %d ranks\n", a->file,
           (long long)ovk_matrix_nglobal(A), total, nranks);
}

static void print_result(const args *a, const ovk_pcg_result *res, double err)
{
    printf("Iterations = %d\n", res->iterations);
    printf("Final Relative Residual Norm = %e\n", res->rel_residual);
    printf("Solve Time = %f s\n", res->time_max[OVK_TIMER_SOLVE]);
    if (a->rhs == RHS_AONES) printf("Error vs x=1 (max abs) = %e\n", err);
    ovk_drv_print(&a->ex, res);
    if (a->print_level >= 1) printf("Stop reason = %s\n", ovk_reason_name(res->reason));
    if (a->timing) ovk_pcg_print_timing(stdout, res);
    fflush(stdout);
}

/* The solve, with the experiment flags (noise, CSV row). */
static int solve(const args *a, const ovk_matrix *A, const ovk_vector *b, ovk_vector *x,
                 const ovk_pcg_options *opts, ovk_pcg_result *res)
{
    ovk_drv_run r = {.problem = a->file, .nx = (long long)ovk_matrix_nglobal(A), .ny = 1, .nz = 1};
    return ovk_drv_solve(&a->ex, &r, a->print_level >= 1, A, b, x, opts, res);
}

static int run(args *a, int rank, int nranks)
{
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL, *ones = NULL;
    ovk_reducer *red = NULL;
    ovk_pcg_options opts;
    ovk_pcg_result res;
    ovk_matrix *S = NULL;
    double *xyz = NULL, *ns = NULL;
    int *fields = NULL;
    int reported = 0; /* the failure's message is printed */
    int rc = ovk_mm_read_blocked(MPI_COMM_WORLD, a->file, a->bs, &A);
    if (!rc && a->schur && !a->fields) {
        if (rank == 0) fprintf(stderr, "ovk_mtx_solve: -schur needs -fields (which rows are field 1's)\n");
        reported = rc = OVK_EINVAL;
    }
    if (!rc && a->fields) reported = rc = load_fields(a, A, &fields, &S);
    if (!rc && a->coords) rc = load_coords(a, A, &xyz);
    if (!rc && a->ex.nullspace && strcmp(a->ex.nullspace, "constant")) reported = rc = load_nullspace(a, A, &ns);
    if (rc) goto cleanup;
    print_matrix_info(a, A, rank, nranks);
    rc = ovk_vector_create(A, &b);
    if (!rc) rc = ovk_vector_create(A, &x);
    if (!rc) rc = ovk_vector_create(A, &ones);
    /* vector creation is local: agree before the collective b = A 1 and solve */
    rc = ovk_drv_agree(rc);
    if (!rc) rc = ovk_drv_agree(make_rhs(A, a->rhs, ones, b));
    if (!rc) rc = ovk_drv_reducer(MPI_COMM_WORLD, a->backend, &a->ex, &red);
    if (rc) goto cleanup;
    ovk_pcg_options_init(&opts);
    if (a->solver) opts.solver = a->solver;
    opts.reducer = red;
    opts.backend = a->backend; /* when red is NULL: NULL is $OVK_REDUCE_BACKEND, else blocking */
    ovk_drv_apply(&a->ex, &opts);
    opts.tol = a->tol;
    opts.max_iter = a->maxit;
    opts.print_level = a->print_level;
    rc = solve(a, A, b, x, &opts, &res);
    double err = a->rhs == RHS_AONES ? error_vs_ones(x, MPI_COMM_WORLD) : 0.0;
    if (rank == 0 && res.reason != OVK_REASON_NONE) print_result(a, &res, err);
cleanup:
    if (rc && rank == 0 && !reported)
        fprintf(stderr, "ovkrylov error: %s: %s\n", ovk_strerror(rc), ovk_error_detail());
    ovk_reducer_destroy(red);
    free(xyz);
    free(ns);
    free(fields);
    ovk_matrix_destroy(S);
    ovk_vector_destroy(ones);
    ovk_vector_destroy(x);
    ovk_vector_destroy(b);
    ovk_matrix_destroy(A);
    return rc ? 1 : 0;
}

/* ---- sequences ----------------------------------------------------------- */

/* list's entries, in place (the commas become ends) */
static int list_split(char *list, const char **out)
{
    int n = 0;
    for (char *t = list, *end; t; t = end ? end + 1 : NULL) {
        end = strchr(t, ',');
        if (end) *end = '\0';
        out[n++] = t;
    }
    return n;
}

/* Collective: b from a dense Matrix Market array of one column */
static int read_rhs(const char *path, const ovk_matrix *A, ovk_vector *b)
{
    int k = 0, rank = 0;
    double *vec = NULL;
    char why[160];
    int rc = read_nullspace(path, (long long)ovk_matrix_nglobal(A), (long long)ovk_matrix_row_start(A),
                            ovk_matrix_nlocal(A), &k, &vec, why, sizeof why);
    if (!rc && k != 1) {
        snprintf(why, sizeof why, "%d columns, one expected", k);
        rc = OVK_EFORMAT;
    }
    if (!rc) memcpy(ovk_vector_data(b), vec, sizeof(double) * (size_t)ovk_matrix_nlocal(A));
    free(vec);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rc = ovk_drv_agree(rc);
    if (rc && rank == 0) fprintf(stderr, "ovk_mtx_solve: -b %s: %s\n", path, why);
    return rc;
}

/* A sequence's state: the matrix, its solver and vectors, the totals. */
typedef struct seq_state {
    ovk_matrix *A;
    ovk_solver *s;
    ovk_vector *b, *x, *ones;
    long long iterations;
    double time;
    int failed;
} seq_state;

static void seq_free_system(seq_state *q)
{
    ovk_solver_destroy(&q->s);
    ovk_vector_destroy(q->ones);
    ovk_vector_destroy(q->x);
    ovk_vector_destroy(q->b);
    ovk_matrix_destroy(q->A);
    q->A = NULL;
    q->b = q->x = q->ones = NULL;
}

/* Collective: the values of path on A's pattern (*same = 1), or, when the
 * size or the pattern differs, *same = 0 and nothing changed */
static int update_values(seq_state *q, const char *path, int *same)
{
    ovk_gidx n = 0;
    int got = 0, *ptr = NULL;
    ovk_gidx *col = NULL;
    double *val = NULL;
    *same = 0;
    int rc = ovk_drv_agree(ovk_mm_read_rows(path, ovk_matrix_row_start(q->A), ovk_matrix_nlocal(q->A), &n, &got, &ptr,
                                            &col, &val));
    long long mine = rc ? -1 : (long long)n, lo = 0;
    MPI_Allreduce(&mine, &lo, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    if (!rc && lo == (long long)ovk_matrix_nglobal(q->A)) {
        rc = ovk_matrix_update_values(q->A, ptr, col, val, OVK_DUP_SUM);
        *same = rc == OVK_OK;
        if (rc == OVK_EMISMATCH) rc = OVK_OK; /* another pattern: a new matrix */
    }
    free(ptr), free(col), free(val);
    return rc;
}

/* Collective: system k's matrix (new values, or a new matrix and solver) */
static int next_matrix(args *a, seq_state *q, const char *path, const ovk_pcg_options *opts, int rank)
{
    int same = 0, rc = q->A ? update_values(q, path, &same) : OVK_OK;
    if (rc || same) return rc;
    if (q->A && rank == 0) printf("New pattern: a new matrix and solver (the recycled space, if any, is dropped)\n");
    seq_free_system(q);
    rc = ovk_mm_read_blocked(MPI_COMM_WORLD, path, 1, &q->A);
    if (!rc) rc = ovk_vector_create(q->A, &q->b);
    if (!rc) rc = ovk_vector_create(q->A, &q->x);
    if (!rc) rc = ovk_vector_create(q->A, &q->ones);
    rc = ovk_drv_agree(rc);
    if (!rc) rc = ovk_drv_solver_create(&a->ex, q->A, opts, &q->s);
    return rc;
}

/* Collective: system k of the sequence */
static int solve_system(args *a, seq_state *q, const char *path, const char *rhs, const ovk_pcg_options *opts, int k,
                        int count, int rank)
{
    ovk_pcg_result res;
    char view[8] = "0";
    int rc = next_matrix(a, q, path, opts, rank);
    if (rc) return rc;
    rc = rhs ? read_rhs(rhs, q->A, q->b) : ovk_drv_agree(make_rhs(q->A, a->rhs, q->ones, q->b));
    if (!rc) rc = ovk_vector_set(q->x, 0.0);
    if (rc) return rc;
    if (rank == 0) printf("System %d of %d: %s\n", k + 1, count, path);
    rc = ovk_solver_solve(q->s, q->b, q->x, &res);
    double err = a->rhs == RHS_AONES && !rhs ? error_vs_ones(q->x, MPI_COMM_WORLD) : 0.0;
    rhs_kind kind = a->rhs;
    if (rhs) a->rhs = RHS_RANDOM; /* no error against x = 1 */
    if (rank == 0 && res.reason != OVK_REASON_NONE) print_result(a, &res, err);
    a->rhs = kind;
    ovk_solver_get_option(q->s, "view", view, sizeof view);
    if (rank == 0 && !strcmp(view, "1")) ovk_solver_view(q->s, stdout); /* the recycled space's line */
    q->iterations += res.iterations;
    q->time += res.time_max[OVK_TIMER_SOLVE];
    q->failed |= res.reason != OVK_REASON_CONVERGED;
    return rc;
}

static int run_sequence(args *a, int rank)
{
    static const char *files[MAX_SEQUENCE], *rhs[MAX_SEQUENCE];
    seq_state q = {0};
    ovk_reducer *red = NULL;
    ovk_pcg_options opts;
    char *fbuf = strdup(a->file), *bbuf = a->rhs_files ? strdup(a->rhs_files) : NULL;
    int rc = fbuf && (bbuf || !a->rhs_files) ? OVK_OK : OVK_ENOMEM, count = 0;
    if (!rc) count = list_split(fbuf, files);
    if (!rc && bbuf) list_split(bbuf, rhs);
    rc = ovk_drv_agree(rc);
    if (!rc) rc = ovk_drv_reducer(MPI_COMM_WORLD, a->backend, &a->ex, &red);
    ovk_pcg_options_init(&opts);
    if (a->solver) opts.solver = a->solver;
    opts.reducer = red;
    opts.backend = a->backend;
    ovk_drv_apply(&a->ex, &opts);
    opts.tol = a->tol;
    opts.max_iter = a->maxit;
    opts.print_level = a->print_level;
    for (int k = 0; !rc && k < count; k++) rc = solve_system(a, &q, files[k], bbuf ? rhs[k] : NULL, &opts, k, count, rank);
    if (!rc && rank == 0) {
        printf("Total Iterations = %lld\n", q.iterations);
        printf("Total Solve Time = %f s\n", q.time);
    }
    if (rc && rank == 0) fprintf(stderr, "ovkrylov error: %s: %s\n", ovk_strerror(rc), ovk_error_detail());
    seq_free_system(&q);
    ovk_reducer_destroy(red);
    free(fbuf);
    free(bbuf);
    return rc || q.failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    args a = {.tol = 1e-8, .maxit = 1000, .rhs = RHS_AONES, .bs = 1};
    int rank, nranks, status;
    ovk_drv_mpi_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    status = parse_args(argc, argv, rank, &a);
    if (!status && a.help == 1 && rank == 0) usage(stdout);
    if (!status && a.help == 2 && rank == 0) ovk_precond_print(stdout);
    if (!status && !a.help) status = is_sequence(&a) ? run_sequence(&a, rank) : run(&a, rank, nranks);
    ovk_options_finalize(); /* -ovk_options_left */
    MPI_Finalize();
    return status;
}
