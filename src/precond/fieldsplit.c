/* Field split: a block preconditioner for a matrix whose rows fall into two
 * fields (ovk_solver_set_fields: one id, 0 or 1, a row, in any
 * interleaving; a rank may hold rows of one field or none),
 *
 *     A = [[A00, A01], [A10, A11]] = [[A, B^T], [B, -C]]  (saddle points),
 *
 * with Ahat ~ A00^-1 a preconditioner of field 0's block and Shat ~ S^-1 one
 * of S = C + B diag(A)^-1 B^T, the Schur complement's approximation
 * (PETSc's `selfp`; A10 diag(A00)^-1 A01 - A11 in general), SPD when A00 is
 * and C is positive semi-definite; or the application's matrix
 * (ovk_solver_set_schur_matrix: a pressure mass matrix).
 *
 *   type=diag:  z = diag(Ahat, Shat) r, SPD when both are (minres, CG).
 *   type=lower: block forward substitution with [[A00, 0], [A10, -S]]:
 *               z0 = Ahat r0, z1 = Shat (A10 z0 - r1).
 *   type=upper: block back substitution with [[A00, A01], [0, -S]]:
 *               z1 = -Shat r1, z0 = Ahat (r0 - A01 z1).
 * With the exact blocks the triangular forms give GMRES two iterations
 * (Murphy, Golub, Wathen 2000); they are not symmetric, so a symmetric
 * solver refuses them.  Their product with A01 or A10 is one product with A
 * of a vector zero outside one field (A's own halo exchange).
 *
 * Setup renumbers each field's rows in global row order (field 0's k-th row
 * is its global id k, offsets by MPI_Exscan) and gives the other ranks the
 * new ids of A's halo columns through one exchange of A's halo plan; it
 * extracts A00 and C as matrices of their own on the solver's communicator
 * and, for selfp, forms S row by row: row i of B D^-1 B^T sums a_ik / a_kk
 * times row k of B^T (A01), whose rows for halo columns the owners send over
 * the same plan (the ranks that hold a column k of A are those A's
 * exchange sends x_k to).  Duplicates are summed by
 * ovk_matrix_create_csr.  A value update redoes the setup. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precond.h"

enum { FS_DIAG, FS_LOWER, FS_UPPER };
enum { SCHUR_AUTO = -1, SCHUR_SELFP = 0, SCHUR_USER = 1, SCHUR_A11 = 2 };
static const char *const type_names[] = {"diag", "lower", "upper", NULL};
/* a11: the user's matrix, named as PETSc's -pc_fieldsplit_schur_precondition
   a11 (the PETSc plug-in gives the Pmat's (1,1) block) */
static const char *const schur_names[] = {"selfp", "user", "a11", NULL};
/* fieldsplit's own keys: any other key after a field's spec continues it */
static const char *const own_keys[] = {"type", "schur", "0", "1", NULL};

typedef struct fieldsplit {
    int type, schur;        /* FS_*, SCHUR_* (as parsed) */
    int schur_used;         /* SCHUR_SELFP or SCHUR_USER, at the last setup */
    char spec[2][96];       /* the fields' preconditioners */
    ovk__pc pc[2];
    ovk_matrix *a00, *self; /* field 0's block; the selfp approximation (NULL with the user's) */
    const ovk_matrix *A, *S;
    int n, nf[2];
    long long nglob[2];
    int *rows[2];           /* each field's local rows, ascending */
    double *r[2], *z[2], *full, *prod;
} fieldsplit;

/* ---- options and lifetime ------------------------------------------------ */

/* rc with the detail "fieldsplit: field k's preconditioner SPEC: " before
 * the one recorded (its rank first), and hint after it */
static int sub_failed(int rc, int k, const char *spec, const char *hint)
{
    char prefix[64], detail[OVK__DETAIL_LEN];
    snprintf(detail, sizeof detail, "%s", ovk_error_detail());
    const char *d = ovk__detail_rank(detail, prefix, sizeof prefix);
    return ovk__fail(rc, "%sfieldsplit: field %d's preconditioner %s: %s%s", prefix, k, spec, d, hint);
}

static int own_key(const char *key)
{
    for (int i = 0; own_keys[i]; i++)
        if (!strcmp(own_keys[i], key)) return 1;
    return 0;
}

/* A sub-preconditioner's spec from key (0 or 1), marked read: its value
 * and, when that has options (amg:bs=3), the keys that follow it up to the
 * next of fieldsplit's own (0=amg:bs=3,agg_levels=0,1=jacobi). */
static int sub_spec(ovk__opts *o, const char *key, char *out, size_t len)
{
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->kv[i].key, key)) {
            o->kv[i].used = 1;
            if (!strncmp(o->kv[i].val, "fieldsplit", 10))
                return ovk__fail(OVK_EOPTION, "preconditioner fieldsplit: option %s=%s: a field's preconditioner "
                                              "cannot be fieldsplit again",
                                 key, o->kv[i].val);
            size_t at = (size_t)snprintf(out, len, "%s", o->kv[i].val);
            for (int j = i + 1; strchr(o->kv[i].val, ':') && j < o->n && !own_key(o->kv[j].key); j++) {
                o->kv[j].used = 1;
                if (at < len) at += (size_t)snprintf(out + at, len - at, ",%s=%s", o->kv[j].key, o->kv[j].val);
            }
            if (at >= len)
                return ovk__fail(OVK_EOPTION, "preconditioner fieldsplit: option %s: field %s's preconditioner spec "
                                              "is longer than %zu characters", key, key, len - 1);
        }
    return OVK_OK;
}

static void release(fieldsplit *f)
{
    for (int k = 0; k < 2; k++) {
        ovk__pc_destroy(&f->pc[k]);
        free(f->rows[k]), free(f->r[k]), free(f->z[k]);
        f->rows[k] = NULL, f->r[k] = f->z[k] = NULL;
    }
    free(f->full), free(f->prod);
    f->full = f->prod = NULL;
    ovk_matrix_destroy(f->a00), ovk_matrix_destroy(f->self);
    f->a00 = f->self = NULL;
}

static void fs_destroy(void *state)
{
    fieldsplit *f = state;
    release(f);
    free(f);
}

static int fs_create(ovk__opts *opts, void **state)
{
    int rc = ovk__pc_zeroed_state(sizeof(fieldsplit), "fieldsplit", state);
    if (rc) return rc;
    fieldsplit *f = *state;
    f->schur = SCHUR_AUTO;
#ifdef OVK_HAVE_HYPRE
    snprintf(f->spec[0], sizeof f->spec[0], "%s", "amg");
#else
    snprintf(f->spec[0], sizeof f->spec[0], "%s", "jacobi"); /* no hypre: setup=agg not chosen for field 0 */
#endif
    snprintf(f->spec[1], sizeof f->spec[1], "%s", "jacobi");
    rc = ovk__opt_choice(opts, "fieldsplit", "type", type_names, &f->type);
    if (!rc) rc = ovk__opt_choice(opts, "fieldsplit", "schur", schur_names, &f->schur);
    if (!rc) rc = sub_spec(opts, "0", f->spec[0], sizeof f->spec[0]);
    if (!rc) rc = sub_spec(opts, "1", f->spec[1], sizeof f->spec[1]);
    for (int k = 0; k < 2 && !rc; k++) { /* an unknown name now, not at setup */
        rc = ovk__pc_create(f->spec[k], &f->pc[k]);
        if (rc) rc = sub_failed(rc, k, f->spec[k], "");
        ovk__pc_destroy(&f->pc[k]);
    }
    return rc;
}

/* ---- the fields and their numbering -------------------------------------- */

/* Local: each field's rows; the local and global counts (collective). */
static int split_rows(fieldsplit *f, const ovk__pc_env *env)
{
    const ovk__layout *lay = &env->A->lay;
    for (int k = 0; k < 2; k++) {
        f->rows[k] = malloc(sizeof(int) * (size_t)(f->n > 0 ? f->n : 1));
        if (!f->rows[k]) return ovk__agree(env->comm, ovk__fail(OVK_ENOMEM, "fieldsplit: %d rows", f->n));
    }
    int rc = OVK_OK;
    for (int i = 0; i < f->n && !rc; i++) {
        int g = env->fields[i];
        if (g != 0 && g != 1)
            rc = ovk__fail(OVK_EINVAL, "fieldsplit: row %lld's field is %d (0 or 1)", ovk__row_id(lay, i), g);
        else
            f->rows[g][f->nf[g]++] = i;
    }
    rc = ovk__agree(env->comm, rc);
    if (rc) return rc;
    long long loc[2] = {f->nf[0], f->nf[1]};
    rc = ovk__mpi(MPI_Allreduce(loc, f->nglob, 2, MPI_LONG_LONG, MPI_SUM, env->comm), "MPI_Allreduce");
    if (rc) return ovk__agree(env->comm, rc);
    for (int k = 0; k < 2; k++)
        if (f->nglob[k] == 0)
            return ovk__fail(OVK_EINVAL, "fieldsplit: field %d is empty (no row of the %lld has it): give both "
                                         "fields rows, or use another preconditioner",
                             k, (long long)lay->nglobal);
    return OVK_OK;
}

/* A row's place in the split: field g, id within the field (a code
 * g ? -(id + 1) : id + 1, exact in a double). */
static double code_of(int g, ovk_gidx id) { return g ? -(double)(id + 1) : (double)(id + 1); }
static int code_field(double c) { return c < 0; }
static ovk_gidx code_id(double c) { return (ovk_gidx)fabs(c) - 1; }

/* Collective: code[i] for the local rows, and those of A's halo columns in
 * A->halo.ext (no product runs during a setup); start[g]: field g's first
 * id on this rank. */
static int number_rows(fieldsplit *f, const ovk__pc_env *env, double *code, ovk_gidx *start)
{
    long long loc[2] = {f->nf[0], f->nf[1]}, first[2] = {0, 0};
    int rank = 0, rc = ovk__mpi(MPI_Comm_rank(env->comm, &rank), "MPI_Comm_rank");
    if (!rc) rc = ovk__mpi(MPI_Exscan(loc, first, 2, MPI_LONG_LONG, MPI_SUM, env->comm), "MPI_Exscan");
    if (rank == 0) first[0] = first[1] = 0; /* Exscan leaves rank 0's undefined */
    for (int g = 0; g < 2; g++) {
        start[g] = (ovk_gidx)first[g];
        for (int j = 0; j < f->nf[g]; j++) code[f->rows[g][j]] = code_of(g, start[g] + j);
    }
    if (!rc) rc = ovk__halo_begin(env->A, code);
    if (!rc) rc = ovk__halo_end(env->A);
    return ovk__agree(env->comm, rc);
}

/* ---- blocks as rows of global ids --------------------------------------- */

/* A's local rows in both blocks: the diag block as plain CSR (both
 * triangles), the offd block as stored; the column codes. */
typedef struct arows {
    int n, *dptr, *dcol;
    double *dval;
    const ovk__csr *offd;
    const double *code, *xcode; /* local rows', halo columns' */
} arows;

/* Rows made for ovk_matrix_create_csr. */
typedef struct rowset {
    int n, *ptr;
    ovk_gidx *col;
    double *val;
} rowset;

static void rowset_free(rowset *s)
{
    free(s->ptr), free(s->col), free(s->val);
    memset(s, 0, sizeof *s);
}

static int rowset_alloc(rowset *s, int n, int64_t nnz)
{
    s->n = n;
    s->ptr = calloc((size_t)n + 1, sizeof(int));
    s->col = malloc(sizeof(ovk_gidx) * (size_t)(nnz > 0 ? nnz : 1));
    s->val = malloc(sizeof(double) * (size_t)(nnz > 0 ? nnz : 1));
    if (nnz > 0x7fffffff) return ovk__fail(OVK_EUNSUPPORTED, "fieldsplit: %lld entries in a block", (long long)nnz);
    return s->ptr && s->col && s->val ? OVK_OK : ovk__fail(OVK_ENOMEM, "fieldsplit: a block of %lld entries",
                                                            (long long)nnz);
}

/* Row i of A, entries of columns in field gc: their ids and sign times the
 * values (col NULL: the count only). */
static int block_row(const arows *a, int i, int gc, double sign, ovk_gidx *col, double *val)
{
    int m = 0;
    for (int k = a->dptr[i]; k < a->dptr[i + 1]; k++) {
        double c = a->code[a->dcol[k]];
        if (code_field(c) != gc) continue;
        if (col) col[m] = code_id(c), val[m] = sign * a->dval[k];
        m++;
    }
    for (int k = a->offd->rowptr[i]; k < a->offd->rowptr[i + 1]; k++) {
        double c = a->xcode[a->offd->col[k]];
        if (code_field(c) != gc) continue;
        if (col) col[m] = code_id(c), val[m] = sign * a->offd->val[k];
        m++;
    }
    return m;
}

/* Local: the block of field gr's rows (rows[]) and field gc's columns,
 * times sign; each row scaled by scale[j] when scale is not NULL. */
static int extract(const arows *a, const int *rows, int nr, int gc, double sign, const double *scale, rowset *s)
{
    int64_t nnz = 0;
    for (int j = 0; j < nr; j++) nnz += block_row(a, rows[j], gc, sign, NULL, NULL);
    int rc = rowset_alloc(s, nr, nnz);
    if (rc) return rc;
    for (int j = 0; j < nr; j++) {
        int p = s->ptr[j], m = block_row(a, rows[j], gc, sign * (scale ? scale[j] : 1.0), s->col + p, s->val + p);
        s->ptr[j + 1] = p + m;
    }
    return OVK_OK;
}

/* ---- selfp: S = C + A10 diag(A00)^-1 A01 --------------------------------- */

/* Collective: 1 / a_kk of field 0's rows, each nonzero and its inverse
 * finite (OVK_EZERODIAG naming the row). */
static int inverse_diagonal(const fieldsplit *f, const ovk__pc_env *env, double *dinv)
{
    int rc = OVK_OK;
    for (int j = 0; j < f->nf[0] && !rc; j++) {
        int i = f->rows[0][j];
        double d = env->A->diagonal[i];
        if (!isnormal(d) || i == env->A->first_missing_diag)
            rc = ovk__fail(OVK_EZERODIAG, "fieldsplit: row %lld (field 0) has diagonal entry %g: schur=selfp "
                                          "divides by diag(A00) (give a Schur matrix, schur=user)",
                           ovk__row_id(&env->A->lay, i), d);
        else
            dinv[j] = 1.0 / d;
    }
    return ovk__agree(env->comm, rc);
}

/* Collective over A's communicator: the rows of D^-1 A01 (b: by field 0's
 * local index; pos: a local row's index in its field) that A's halo sends,
 * received as x: one row per halo column, empty for field 1's.  Agreed
 * before each exchange (no rank waits for one that failed to allocate). */
static int exchange_rows(const ovk_matrix *A, const int *field, const int *pos,
                         const rowset *b, rowset *x)
{
    const ovk__halo *h = &A->halo;
    int ns = h->send_ptr[h->nsend], nx = A->ncols_offd, rc = OVK_OK;
    int *scnt = malloc(sizeof(int) * (size_t)(ns + 1)), *rcnt = calloc((size_t)nx + 1, sizeof(int));
    int *soff = calloc((size_t)h->nsend + 1, sizeof(int)), *roff = calloc((size_t)h->nrecv + 1, sizeof(int));
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(h->nsend + h->nrecv + 1));
    double *sbuf = NULL, *rbuf = NULL;
    if (!scnt || !rcnt || !soff || !roff || !req) rc = ovk__fail(OVK_ENOMEM, "fieldsplit: the halo's row counts");
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) goto cleanup;
    for (int k = 0; k < ns; k++) { /* entries of each row sent */
        int i = h->send_idx[k];
        scnt[k] = field[i] ? 0 : b->ptr[pos[i] + 1] - b->ptr[pos[i]];
    }
    int nr = 0, tag = ovk__layout_tag(&A->lay, 2), dtag = ovk__layout_tag(&A->lay, 3);
    for (int q = 0; q < h->nrecv && !rc; q++)
        rc = ovk__mpi(MPI_Irecv(rcnt + h->recv_ptr[q], h->recv_ptr[q + 1] - h->recv_ptr[q], MPI_INT, h->recv_rank[q],
                                tag, A->lay.comm, &req[nr++]), "MPI_Irecv");
    for (int p = 0; p < h->nsend && !rc; p++)
        rc = ovk__mpi(MPI_Isend(scnt + h->send_ptr[p], h->send_ptr[p + 1] - h->send_ptr[p], MPI_INT, h->send_rank[p],
                                tag, A->lay.comm, &req[nr++]), "MPI_Isend");
    if (!rc) rc = ovk__mpi(MPI_Waitall(nr, req, MPI_STATUSES_IGNORE), "MPI_Waitall");
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) goto cleanup;
    /* the entries as (id, value) pairs of doubles (ids below 2^53) */
    int64_t stot = 0, rtot = 0;
    for (int p = 0; p < h->nsend; p++) {
        for (int k = h->send_ptr[p]; k < h->send_ptr[p + 1]; k++) stot += scnt[k];
        soff[p + 1] = (int)stot;
    }
    for (int q = 0; q < h->nrecv; q++) {
        for (int c = h->recv_ptr[q]; c < h->recv_ptr[q + 1]; c++) rtot += rcnt[c];
        roff[q + 1] = (int)rtot;
    }
    rc = rowset_alloc(x, nx, rtot);
    sbuf = malloc(sizeof(double) * (size_t)(2 * stot + 1));
    rbuf = malloc(sizeof(double) * (size_t)(2 * rtot + 1));
    if (!rc && (!sbuf || !rbuf)) rc = ovk__fail(OVK_ENOMEM, "fieldsplit: the halo's rows of B^T");
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) goto cleanup;
    for (int k = 0, m = 0; k < ns; k++) {
        int i = h->send_idx[k];
        for (int e = 0; e < scnt[k]; e++, m++) {
            sbuf[2 * m] = (double)b->col[b->ptr[pos[i]] + e];
            sbuf[2 * m + 1] = b->val[b->ptr[pos[i]] + e];
        }
    }
    nr = 0;
    for (int q = 0; q < h->nrecv && !rc; q++)
        rc = ovk__mpi(MPI_Irecv(rbuf + 2 * (size_t)roff[q], 2 * (roff[q + 1] - roff[q]), MPI_DOUBLE, h->recv_rank[q],
                                dtag, A->lay.comm, &req[nr++]), "MPI_Irecv");
    for (int p = 0; p < h->nsend && !rc; p++)
        rc = ovk__mpi(MPI_Isend(sbuf + 2 * (size_t)soff[p], 2 * (soff[p + 1] - soff[p]), MPI_DOUBLE, h->send_rank[p],
                                dtag, A->lay.comm, &req[nr++]), "MPI_Isend");
    if (!rc) rc = ovk__mpi(MPI_Waitall(nr, req, MPI_STATUSES_IGNORE), "MPI_Waitall");
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) goto cleanup;
    for (int c = 0; c < nx; c++) x->ptr[c + 1] = x->ptr[c] + rcnt[c];
    for (int64_t m = 0; m < rtot; m++) {
        x->col[m] = (ovk_gidx)rbuf[2 * m];
        x->val[m] = rbuf[2 * m + 1];
    }
cleanup:
    free(scnt), free(rcnt), free(soff), free(roff), free(req), free(sbuf), free(rbuf);
    return rc;
}

/* Row i of A10 D^-1 A01 - A11 (col NULL: the count): C's entries, then
 * a_ik times row k of D^-1 A01 for each of the row's field-0 columns k
 * (local: b's row pos[k]; halo column c: x's row c); duplicates left. */
static int schur_row(const arows *a, int i, const int *pos, const rowset *b, const rowset *x, ovk_gidx *col,
                     double *val)
{
    int m = block_row(a, i, 1, -1.0, col, val);
    for (int k = a->dptr[i]; k < a->dptr[i + 1]; k++) {
        int j = a->dcol[k];
        if (code_field(a->code[j])) continue;
        for (int e = b->ptr[pos[j]]; e < b->ptr[pos[j] + 1]; e++, m++)
            if (col) col[m] = b->col[e], val[m] = a->dval[k] * b->val[e];
    }
    for (int k = a->offd->rowptr[i]; k < a->offd->rowptr[i + 1]; k++) {
        int c = a->offd->col[k];
        for (int e = x->ptr[c]; e < x->ptr[c + 1]; e++, m++) /* empty for field 1's columns */
            if (col) col[m] = x->col[e], val[m] = a->offd->val[k] * x->val[e];
    }
    return m;
}

/* Collective: f->self = C + A10 D^-1 A01 (field 1's rows from start1). */
static int form_selfp(fieldsplit *f, const ovk__pc_env *env, const arows *a, ovk_gidx start1)
{
    rowset b = {0}, x = {0}, s = {0};
    int *pos = malloc(sizeof(int) * (size_t)(f->n > 0 ? f->n : 1)), *field = malloc(sizeof(int) * (size_t)(f->n + 1));
    double *dinv = malloc(sizeof(double) * (size_t)(f->nf[0] + 1));
    int rc = pos && field && dinv ? OVK_OK : ovk__fail(OVK_ENOMEM, "fieldsplit: %d rows", f->n);
    rc = ovk__agree(env->comm, rc);
    if (!rc) rc = inverse_diagonal(f, env, dinv);
    if (rc) goto cleanup;
    for (int g = 0; g < 2; g++)
        for (int j = 0; j < f->nf[g]; j++) pos[f->rows[g][j]] = j, field[f->rows[g][j]] = g;
    rc = ovk__agree(env->comm, extract(a, f->rows[0], f->nf[0], 1, 1.0, dinv, &b)); /* D^-1 A01 */
    if (!rc) rc = exchange_rows(env->A, field, pos, &b, &x);
    if (rc) goto cleanup;
    int64_t nnz = 0;
    for (int j = 0; j < f->nf[1]; j++) nnz += schur_row(a, f->rows[1][j], pos, &b, &x, NULL, NULL);
    rc = ovk__agree(env->comm, rowset_alloc(&s, f->nf[1], nnz));
    if (rc) goto cleanup;
    for (int j = 0; j < f->nf[1]; j++)
        s.ptr[j + 1] = s.ptr[j] + schur_row(a, f->rows[1][j], pos, &b, &x, s.col + s.ptr[j], s.val + s.ptr[j]);
    rc = ovk_matrix_create_csr(env->comm, start1, f->nf[1], s.ptr, s.col, s.val, OVK_DUP_SUM, &f->self);
cleanup:
    rowset_free(&b), rowset_free(&x), rowset_free(&s);
    free(pos), free(field), free(dinv);
    return rc;
}

/* ---- setup ---------------------------------------------------------------- */

/* Collective: the refusals that need no numbering (agreed). */
static int check_env(const fieldsplit *f, const ovk__pc_env *env)
{
    if (!env->fields)
        return ovk__fail(OVK_EINVAL, "fieldsplit needs the field (0 or 1) of every row: ovk_solver_set_fields "
                                     "(-fields FILE in ovk_mtx_solve, Solver.set_fields in Python)");
    if (f->type != FS_DIAG && !env->nonsymmetric)
        return ovk__fail(OVK_EUNSUPPORTED, "fieldsplit:type=%s is block triangular, not symmetric; this solver (a CG "
                                           "or MINRES variant) needs a symmetric positive definite preconditioner: "
                                           "use type=diag, or type=%s with gmres or fgmres",
                         type_names[f->type], type_names[f->type]);
    if ((f->schur == SCHUR_USER || f->schur == SCHUR_A11) && !env->schur)
        return ovk__fail(OVK_EINVAL, "fieldsplit:schur=%s but no Schur matrix is set "
                                     "(ovk_solver_set_schur_matrix; -schur FILE in ovk_mtx_solve; the PETSc plug-in "
                                     "sets the Pmat's (1,1) block for schur=a11)", schur_names[f->schur]);
    return OVK_OK;
}

/* Collective: the user's Schur matrix has field 1's rows (agreed). */
static int check_user_schur(const fieldsplit *f, const ovk_matrix *S, MPI_Comm comm)
{
    int rc = OVK_OK;
    if (ovk_matrix_nglobal(S) != f->nglob[1])
        rc = ovk__fail(OVK_EMISMATCH, "fieldsplit: the Schur matrix has %lld rows, field 1 has %lld",
                       (long long)ovk_matrix_nglobal(S), f->nglob[1]);
    else if (ovk_matrix_nlocal(S) != f->nf[1])
        rc = ovk__fail(OVK_EMISMATCH, "fieldsplit: the Schur matrix has %d rows on this rank, field 1 has %d here "
                                      "(its rows must be distributed as field 1's)",
                       ovk_matrix_nlocal(S), f->nf[1]);
    return ovk__agree(comm, rc);
}

/* Collective: A00 as a matrix, the Schur approximation, their scratch. */
static int make_blocks(fieldsplit *f, const ovk__pc_env *env)
{
    arows a = {.n = f->n, .offd = &env->A->offd};
    rowset a00 = {0};
    ovk_gidx start[2];
    double *code = malloc(sizeof(double) * (size_t)(f->n + 1));
    a.dptr = malloc(sizeof(int) * (size_t)(f->n + 1));
    int rc = code && a.dptr ? ovk__matrix_diag_ptr(env->A, a.dptr) : ovk__fail(OVK_ENOMEM, "fieldsplit: %d rows", f->n);
    if (!rc) {
        a.dcol = malloc(sizeof(int) * (size_t)(a.dptr[f->n] + 1));
        a.dval = malloc(sizeof(double) * (size_t)(a.dptr[f->n] + 1));
        rc = a.dcol && a.dval ? ovk__matrix_diag_fill(env->A, a.dptr, a.dcol, a.dval)
                              : ovk__fail(OVK_ENOMEM, "fieldsplit: a copy of the diag block");
    }
    rc = ovk__agree(env->comm, rc);
    if (!rc) rc = number_rows(f, env, code, start);
    if (rc) goto cleanup;
    a.code = code, a.xcode = env->A->halo.ext;
    rc = ovk__agree(env->comm, extract(&a, f->rows[0], f->nf[0], 0, 1.0, NULL, &a00));
    if (!rc) rc = ovk_matrix_create_csr(env->comm, start[0], f->nf[0], a00.ptr, a00.col, a00.val, OVK_DUP_REJECT, &f->a00);
    if (rc) goto cleanup;
    f->schur_used = f->schur == SCHUR_AUTO ? (env->schur ? SCHUR_USER : SCHUR_SELFP)
                    : f->schur == SCHUR_A11 ? SCHUR_USER : f->schur;
    if (f->schur_used == SCHUR_USER) {
        rc = check_user_schur(f, env->schur, env->comm);
        f->S = env->schur;
    } else {
        rc = form_selfp(f, env, &a, start[1]);
        f->S = f->self;
    }
cleanup:
    rowset_free(&a00);
    free(code), free(a.dptr), free(a.dcol), free(a.dval);
    return rc;
}

/* Collective: a preconditioner built for a symmetric matrix on a block of
 * a solver that assumes no symmetry (gmres): taken when the block is
 * symmetric, else refused naming the entry and the alternatives. */
static int symmetric_block(const ovk_matrix *B)
{
    int rc = ovk__matrix_check_symmetric(B);
    if (rc != OVK_ENOTSYM) return rc;
    char detail[OVK__DETAIL_LEN];
    snprintf(detail, sizeof detail, "%s", ovk_error_detail());
    return ovk__fail(OVK_EUNSUPPORTED, "it is built for a symmetric matrix and this block is not (%s): use ilu0, "
                                       "jacobi or amg for this field", detail);
}

/* Collective: which blocks a declared null space makes singular.  With Z
 * its orthonormal basis and Z_k its rows of field k (Z_0^T Z_0 + Z_1^T Z_1
 * = I), a null vector zero in field 1 is (z0, 0) with A00 z0 = 0: A00 is
 * singular when the largest eigenvalue of Z_0^T Z_0 is 1; one zero in
 * field 0 is (0, z1) with B^T z1 = 0 and C z1 = 0, so that selfp's
 * S z1 = 0: S is singular when Z_1^T Z_1's is (the user's Schur matrix is
 * taken as given).  A block's preconditioner that is not told (amg's exact
 * coarsest solve of a singular level) puts a huge null component into its
 * output, whose cancellation in x stalled gmres near 1e-10 of ||b||. */
static int singular_blocks(const fieldsplit *f, const ovk__pc_env *env, int singular[2])
{
    int k = env->ns_k;
    singular[0] = singular[1] = 0;
    if (k <= 0 || !env->ns) return OVK_OK;
    double *g = calloc((size_t)(2 * k * k), sizeof(double));
    int rc = ovk__agree(env->comm, g ? OVK_OK : ovk__fail(OVK_ENOMEM, "fieldsplit: %d x %d Gram matrices", k, k));
    if (rc) {
        free(g);
        return rc;
    }
    for (int fk = 0; fk < 2; fk++) /* G_fk = Z_fk^T Z_fk, this rank's rows */
        for (int a = 0; a < k; a++)
            for (int b = 0; b < k; b++) {
                const double *za = env->ns + (size_t)a * (size_t)env->n, *zb = env->ns + (size_t)b * (size_t)env->n;
                double s = 0.0;
                for (int j = 0; j < f->nf[fk]; j++) s += za[f->rows[fk][j]] * zb[f->rows[fk][j]];
                g[(size_t)fk * k * k + (size_t)a * k + b] = s;
            }
    rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, g, 2 * k * k, MPI_DOUBLE, MPI_SUM, env->comm),
                  "MPI_Allreduce (fieldsplit's null space)");
    for (int fk = 0; fk < 2 && !rc; fk++) singular[fk] = ovk__sym_eig_max(k, g + (size_t)fk * k * k) > 1.0 - 1e-6;
    if (f->schur_used == SCHUR_USER) singular[1] = 0;
    free(g);
    return rc;
}

/* Collective: field k's preconditioner set up on its block (agreed);
 * singular: the block is (singular_blocks). */
static int setup_sub(fieldsplit *f, int k, const ovk__pc_env *env, int singular)
{
    const ovk_matrix *B = k ? f->S : f->a00;
    ovk__pc_env e = {.A = B, .n = ovk_matrix_nlocal(B), .comm = B->lay.comm, .nonsymmetric = env->nonsymmetric,
                     .singular = singular};
    int rc = ovk__agree(env->comm, ovk__pc_create(f->spec[k], &f->pc[k]));
    if (!rc && env->nonsymmetric && f->pc[k].type->symmetric_only) /* the block may be symmetric all the same */
        rc = symmetric_block(B);
    if (!rc) rc = ovk__agree(env->comm, f->pc[k].type->setup(f->pc[k].state, &e));
    const char *hint = k && f->schur_used == SCHUR_SELFP && rc == OVK_EZERODIAG
                           ? " (selfp's S = C + B diag(A)^-1 B^T is SPD for [[A, B^T], [B, -C]] with A SPD and C "
                             "positive semi-definite: field 1's diagonal block is -C)"
                           : "";
    return rc ? sub_failed(rc, k, f->spec[k], hint) : OVK_OK;
}

static int fs_setup(void *state, const ovk__pc_env *env)
{
    fieldsplit *f = state;
    release(f);
    memset(f->nf, 0, sizeof f->nf);
    f->A = env->A, f->n = env->n, f->S = NULL;
    int rc = ovk__agree(env->comm, check_env(f, env));
    if (!rc) rc = split_rows(f, env);
    int singular[2] = {0, 0};
    if (!rc) rc = make_blocks(f, env);
    if (!rc) rc = singular_blocks(f, env, singular);
    for (int k = 0; k < 2 && !rc; k++) rc = setup_sub(f, k, env, singular[k]);
    if (rc) return rc;
    for (int k = 0; k < 2 && !rc; k++) {
        rc = ovk__pc_alloc(f->nf[k], "fieldsplit", &f->r[k]);
        if (!rc) rc = ovk__pc_alloc(f->nf[k], "fieldsplit", &f->z[k]);
    }
    if (!rc) rc = ovk__pc_alloc(f->n, "fieldsplit", &f->full);
    if (!rc) rc = ovk__pc_alloc(f->n, "fieldsplit", &f->prod);
    return rc;
}

/* ---- apply ----------------------------------------------------------------- */

static void gather(const int *rows, int m, const double *v, double sign, double *out)
{
    for (int j = 0; j < m; j++) out[j] = sign * v[rows[j]];
}

static void scatter(const int *rows, int m, const double *in, double *v)
{
    for (int j = 0; j < m; j++) v[rows[j]] = in[j];
}

/* f->prod = A v, v = field g's values u and zero elsewhere */
static int product_of_field(fieldsplit *f, int g, const double *u, const ovk__hook *h)
{
    memset(f->full, 0, sizeof(double) * (size_t)f->n);
    scatter(f->rows[g], f->nf[g], u, f->full);
    return ovk__matvec(f->A, f->full, f->prod, h);
}

static int sub_apply(fieldsplit *f, int k, const ovk__hook *h)
{
    return f->pc[k].type->apply(f->pc[k].state, f->r[k], f->z[k], h);
}

static int fs_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    fieldsplit *f = state;
    int rc = OVK_OK;
    if (f->type == FS_DIAG) { /* z0 = Ahat r0, z1 = Shat r1 */
        gather(f->rows[0], f->nf[0], r, 1.0, f->r[0]);
        gather(f->rows[1], f->nf[1], r, 1.0, f->r[1]);
        rc = sub_apply(f, 0, h);
        if (!rc) rc = sub_apply(f, 1, h);
    } else if (f->type == FS_LOWER) { /* z0 = Ahat r0, z1 = Shat (A10 z0 - r1) */
        gather(f->rows[0], f->nf[0], r, 1.0, f->r[0]);
        rc = sub_apply(f, 0, h);
        if (!rc) rc = product_of_field(f, 0, f->z[0], h);
        if (rc) return rc;
        for (int j = 0; j < f->nf[1]; j++) f->r[1][j] = f->prod[f->rows[1][j]] - r[f->rows[1][j]];
        rc = sub_apply(f, 1, h);
    } else { /* z1 = -Shat r1, z0 = Ahat (r0 - A01 z1) */
        gather(f->rows[1], f->nf[1], r, -1.0, f->r[1]);
        rc = sub_apply(f, 1, h);
        if (!rc) rc = product_of_field(f, 1, f->z[1], h);
        if (rc) return rc;
        for (int j = 0; j < f->nf[0]; j++) f->r[0][j] = r[f->rows[0][j]] - f->prod[f->rows[0][j]];
        rc = sub_apply(f, 0, h);
    }
    if (rc) return rc;
    scatter(f->rows[0], f->nf[0], f->z[0], z);
    scatter(f->rows[1], f->nf[1], f->z[1], z);
    return OVK_OK;
}

static void fs_view(void *state, FILE *out)
{
    fieldsplit *f = state;
    fprintf(out, "  fieldsplit: type=%s, field 0: %lld rows (%s), field 1: %lld rows (%s), Schur %s",
            type_names[f->type], f->nglob[0], f->spec[0], f->nglob[1], f->spec[1],
            f->schur_used == SCHUR_SELFP ? "selfp" : f->schur == SCHUR_A11 ? "a11 (the user's matrix)" : "the user's matrix");
    if (f->S) fprintf(out, " (%lld entries on rank 0)", (long long)ovk_matrix_nnz_local(f->S));
    fprintf(out, "\n");
}

const ovk__pc_type ovk__pc_fieldsplit = {
    .needs_matrix = 1,
    .create = fs_create, .setup = fs_setup, .destroy = fs_destroy, .apply = fs_apply, .view = fs_view,
};
