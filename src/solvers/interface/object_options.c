/* The solver's options: the option table, every key declared once, and
 * what reads and writes it -- ovk_solver_set_option and its getters, the
 * struct form (ovk_solver_set_options, ovk_solve_options_init), the setters
 * of the application's callbacks and of what the preconditioner's setup
 * reads besides A (coordinates, near-null space, fields, Schur matrix,
 * null space), the refusals kept for the next setup or solve, and the
 * cross-rank check that every rank set the same values (setup calls it).
 * The other files of the object (object.h) reach the table through the
 * functions named ovk__solver_* here, never by spelling a key. */
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "object.h"

/* ---- options ------------------------------------------------------------ */

/* The options, each declared once: its key, its kind and range, where it
 * lives in the object, what a change of it makes the next setup redo, its
 * default, the environment variable that supplies it when no call set it,
 * the field of ovk_solve_options that sets it (ovk_solver_set_options), the
 * registry it names and its line of help.  Parsing, printing, getting, the
 * cross-rank check, the struct form, the options database (options.c:
 * -[prefix]ovk_KEY), -ovk_help (help.c), the view and the public key list
 * (ovk_solver_option_name: the bindings, docs/options.md's check) read this
 * table; no other place in src/ spells a key (tests/options_keys.sh). */
typedef enum opt_kind { OPT_TEXT, OPT_DOUBLE, OPT_INT } opt_kind;

typedef struct opt_def {
    const char *key;
    opt_kind kind;
    size_t off;         /* offsetof(ovk_solver, the field) */
    size_t len;         /* OPT_TEXT: the buffer's size */
    long lo, hi;        /* OPT_INT: the range; OPT_DOUBLE: lo 1 when 0 is excluded */
    unsigned redo;      /* OVK__REDO_* */
    const char *dflt;   /* the default as text; "" for a text option: unset */
    const char *env;    /* read when no call set the option (NULL: none) */
    long pcg_off;       /* offsetof(ovk_solve_options, the field setting it); -1: none */
    ovk__opt_role role; /* the registry whose names it takes */
    const char *values; /* OPT_TEXT: what it may be, for the range */
    const char *help;   /* one line of meaning (-ovk_help) */
} opt_def;

#define PCG_OFF(field) ((long)offsetof(ovk_solve_options, field))
#define OPT_STR(key, field, redo, dflt, env, pcg, role, values, help)                                     \
    {key, OPT_TEXT, offsetof(ovk_solver, field), sizeof(((ovk_solver *)0)->field), 0, 0, redo, dflt, env, pcg, \
     role, values, help}
#define OPT_NUM(key, kind, field, lo, hi, redo, dflt, pcg, help) \
    {key, kind, offsetof(ovk_solver, field), 0, lo, hi, redo, dflt, NULL, pcg, OVK__ROLE_NONE, NULL, help}
#define SPEC "name[:key=value,...]"

static const opt_def opt_defs[] = {
    OPT_STR("solver", solver_spec, OVK__REDO_VARIANT, "alg1", NULL, PCG_OFF(solver), OVK__ROLE_SOLVER, SPEC,
            "the Krylov variant"),
    OPT_STR("backend", backend_spec, OVK__REDO_REDUCER, "", OVK_BACKEND_ENV, PCG_OFF(backend), OVK__ROLE_BACKEND, SPEC,
            "the reduction backend (default $" OVK_BACKEND_ENV ", else " OVK_BACKEND_DEFAULT ")"),
    OPT_STR("precond", precond_spec, OVK__REDO_PC, "jacobi", NULL, PCG_OFF(precond_spec), OVK__ROLE_PRECOND, SPEC,
            "the preconditioner"),
    OPT_NUM("rtol", OPT_DOUBLE, o.rtol, 1, 0, OVK__REDO_CHECK, "1e-8", PCG_OFF(rtol),
            "converged when ||r|| < max(rtol ||b||, atol)"),
    OPT_NUM("atol", OPT_DOUBLE, o.atol, 0, 0, OVK__REDO_CHECK, "0", PCG_OFF(atol), "absolute tolerance (see rtol)"),
    OPT_NUM("divtol", OPT_DOUBLE, mon.divtol, 0, 0, OVK__REDO_CHECK, "0", -1,
            "diverged when ||r|| > divtol ||r0||; 0: off (PETSc's default is 1e4)"),
    OPT_NUM("max_it", OPT_INT, o.max_it, 0, INT32_MAX, OVK__REDO_CONDEST, "1000", PCG_OFF(max_it),
            "iteration limit"),
    OPT_NUM("print_level", OPT_INT, o.print_level, 0, 2, OVK__REDO_CHECK, "0", PCG_OFF(print_level),
            "0: quiet; 1: a line per solve; 2: ||r|| every iteration too (rank 0)"),
    OPT_NUM("progress_every", OPT_INT, o.progress_every, -1, INT32_MAX, OVK__REDO_CTX, "0", PCG_OFF(progress_every),
            "rows between progress calls in long kernels; 0: the default, -1: never"),
    OPT_NUM("condest", OPT_INT, o.condest, 0, 1, OVK__REDO_CONDEST, "0", PCG_OFF(condest),
            "1: estimate the extreme eigenvalues of C A from the CG coefficients"),
    OPT_NUM("replace_every", OPT_INT, o.replace_every, INT32_MIN, INT32_MAX, OVK__REDO_CHECK, "0", PCG_OFF(replace_every),
            "cg1, pipecg, pipebicgstab, pipeidrs, pminres residual replacement: 0 automatic, k every k iterations, < 0 "
            "never"),
    OPT_NUM("initial_guess_zero", OPT_INT, guess_zero, 0, 1, OVK__REDO_CTX, "0", -1,
            "1: x0 = 0 whatever x holds (r0 = b without a product)"),
    OPT_NUM("monitor", OPT_INT, mon.print, 0, 1, OVK__REDO_CTX, "0", -1,
            "1: rank 0 prints ||r|| every iteration (no reduction more)"),
    OPT_NUM("monitor_true", OPT_INT, mon.print_true, 0, 1, OVK__REDO_CTX, "0", -1,
            "1: and the true ||b - A x|| (one product and one blocking reduction more each)"),
    OPT_NUM("view", OPT_INT, view, 0, 1, OVK__REDO_CHECK, "0", -1, "1: rank 0 prints the configuration after each setup"),
    OPT_NUM("converged_reason", OPT_INT, converged_reason, 0, 1, OVK__REDO_CHECK, "0", -1,
            "1: rank 0 prints why each solve stopped"),
    OPT_NUM("log_view", OPT_INT, log_view, 0, 1, OVK__REDO_CHECK, "0", -1,
            "1: rank 0 prints where the time went when the solver is destroyed"),
    OPT_NUM("assume_symmetric", OPT_INT, coords.symmetric, 0, 1, OVK__REDO_PC, "0", -1,
            "1: A is symmetric (declared, e.g. PETSc's MAT_SYMMETRIC): the CG and MINRES variants skip the check of "
            "its values"),
    OPT_STR("nullspace", nullspace_spec, OVK__REDO_CHECK | OVK__REDO_PC, "", NULL, -1, OVK__ROLE_NULLSPACE, "none | constant",
            "constant: the constant vector is A's null space (a singular A, e.g. pure Neumann); none"),
    OPT_STR("norm", mon.norm, OVK__REDO_CHECK | OVK__REDO_CTX, "unpreconditioned", NULL, -1, OVK__ROLE_NONE,
            "unpreconditioned | natural",
            "the convergence test's norm: ||r||; natural: sqrt(<r, C r>) against sqrt(<b, C b>) (alg1)"),
    OPT_NUM("many_group", OPT_INT, c.many.group, 0, INT32_MAX, OVK__REDO_CHECK, "0", -1,
            "solve_many: systems whose vector updates run together between products; 0: as fit the cache"),
    OPT_NUM("recycle", OPT_INT, c.recycle.want, 0, OVK__RECYCLE_MAX, OVK__REDO_VARIANT, "0", -1,
            "K > 0: keep a space of K vectors across solves and deflate it (rpipecg, rcg, gcrodr); 0: off"),
};
enum { OPT_COUNT = (int)(sizeof opt_defs / sizeof opt_defs[0]) };
/* one bit per option in ovk_solver's opt_set */
_Static_assert(OPT_COUNT <= 32, "opt_set holds a bit per option");

static const opt_def *find_opt(const char *key)
{
    for (int i = 0; i < OPT_COUNT; i++)
        if (!strcmp(opt_defs[i].key, key)) return &opt_defs[i];
    return NULL;
}

static const opt_def *opt_of_role(ovk__opt_role role)
{
    for (int i = 0; i < OPT_COUNT; i++)
        if (opt_defs[i].role == role) return &opt_defs[i];
    return NULL;
}

/* the key of the option stored at offsetof(ovk_solver, field) == off */
const char *ovk__solver_key_at(size_t off)
{
    for (int i = 0; i < OPT_COUNT; i++)
        if (opt_defs[i].off == off) return opt_defs[i].key;
    return "?";
}

static unsigned bit_of(const opt_def *d) { return 1u << (d - opt_defs); }
static const opt_def *at(int i) { return i >= 0 && i < OPT_COUNT ? &opt_defs[i] : NULL; }

int ovk__solver_option_count(void) { return OPT_COUNT; }
const char *ovk__solver_option_key(int i) { return at(i) ? at(i)->key : NULL; }
int ovk_solver_option_count(void) { return OPT_COUNT; }
const char *ovk_solver_option_name(int i) { return ovk__solver_option_key(i); }
const char *ovk_solver_option_help(int i) { return at(i) ? at(i)->help : NULL; }
const char *ovk_solver_option_default(int i) { return at(i) ? at(i)->dflt : NULL; }
ovk__opt_role ovk__solver_option_role(int i) { return at(i) ? at(i)->role : OVK__ROLE_NONE; }
const char *ovk__solver_role_key(ovk__opt_role role) { return opt_of_role(role) ? opt_of_role(role)->key : NULL; }

/* a flag: an on/off integer (0..1), the only kind given without a value */
int ovk__solver_option_is_flag(int i)
{
    return at(i) && at(i)->kind == OPT_INT && at(i)->lo == 0 && at(i)->hi == 1;
}

void ovk__solver_option_range(int i, char *buf, size_t len)
{
    const opt_def *d = at(i) ? at(i) : &opt_defs[0];
    if (d->kind == OPT_TEXT) snprintf(buf, len, "%s", d->values);
    else if (d->kind == OPT_DOUBLE) snprintf(buf, len, "real %s 0", d->lo ? ">" : ">=");
    else if (d->hi == INT32_MAX) snprintf(buf, len, "integer >= %ld", d->lo);
    else snprintf(buf, len, "integer %ld..%ld", d->lo, d->hi);
}

int ovk_solver_option_range(int i, char *buf, size_t len)
{
    if (!at(i)) return ovk__fail(OVK_EINVAL, "ovk_solver_option_range: index %d outside 0..%d", i, OPT_COUNT - 1);
    if (!buf || len == 0) return ovk__fail(OVK_EINVAL, "ovk_solver_option_range: no buffer");
    ovk__solver_option_range(i, buf, len);
    return OVK_OK;
}

static int unknown_opt(const char *key)
{
    char list[512] = "";
    for (int i = 0; i < OPT_COUNT; i++) ovk__list_add(list, sizeof list, ", ", opt_defs[i].key);
    return ovk__fail(OVK_EOPTION, "unknown solver option '%s'; options: %s", key ? key : "(null)", list);
}

/* the option's field in s */
static void *field_of(const ovk_solver *s, const opt_def *d) { return (char *)s + d->off; }

/* a parsed value, not stored yet */
typedef union opt_value {
    double d;
    int i;
    const char *text;
} opt_value;

static int parse_value(const opt_def *d, const char *value, opt_value *v)
{
    char *end = NULL, range[64];
    if (!value) return ovk__fail(OVK_EOPTION, "option %s: NULL value", d->key);
    if (d->kind == OPT_TEXT) {
        ovk__solver_option_range((int)(d - opt_defs), range, sizeof range);
        if (strlen(value) >= d->len) /* what it may be, not only its length */
            return ovk__fail(OVK_EOPTION, "option %s: value '%s' is not valid (values: %s, at most %zu characters)",
                             d->key, value, range, d->len - 1);
        v->text = value;
        return OVK_OK;
    }
    if (isspace((unsigned char)value[0])) /* strtod would skip it; "5 " is refused as well */
        return ovk__fail(OVK_EOPTION, "option %s='%s': white space around the number", d->key, value);
    if (d->kind == OPT_DOUBLE) {
        v->d = strtod(value, &end);
        if (!*value || *end || !isfinite(v->d) || v->d < 0.0 || (d->lo && v->d == 0.0))
            return ovk__fail(OVK_EOPTION, "option %s=%s must be a finite number %s 0", d->key, value,
                             d->lo ? ">" : ">=");
        return OVK_OK;
    }
    long l = strtol(value, &end, 10);
    if (!*value || *end || l < d->lo || l > d->hi)
        return ovk__fail(OVK_EOPTION, "option %s=%s must be an integer in [%ld, %ld]", d->key, value, d->lo, d->hi);
    v->i = (int)l;
    return OVK_OK;
}

/* store a parsed value; a text option set to "" is unset (its default or
 * environment applies), any other value counts as set by a call */
static void store_value(ovk_solver *s, const opt_def *d, const opt_value *v)
{
    if (d->kind == OPT_TEXT) snprintf(field_of(s, d), d->len, "%s", v->text);
    else if (d->kind == OPT_DOUBLE) *(double *)field_of(s, d) = v->d;
    else *(int *)field_of(s, d) = v->i;
    if (d->kind == OPT_TEXT && !v->text[0]) s->marks.opt_set &= ~bit_of(d);
    else s->marks.opt_set |= bit_of(d);
    s->o.backend = s->backend_spec[0] ? s->backend_spec : NULL; /* the struct form's view of it */
}

static int set_value(ovk_solver *s, const opt_def *d, const char *value)
{
    opt_value v = {0};
    int rc = parse_value(d, value, &v);
    if (!rc) store_value(s, d, &v);
    return rc;
}

/* every option at its default (creation): not counted as set */
void ovk__solver_set_defaults(ovk_solver *s)
{
    for (int i = 0; i < OPT_COUNT; i++) {
        opt_value v = {0};
        if (!parse_value(&opt_defs[i], opt_defs[i].dflt, &v)) store_value(s, &opt_defs[i], &v);
    }
    s->marks.opt_set = 0;
}

/* the option's value as text */
static int print_value(const ovk_solver *s, const opt_def *d, char *buf, size_t len)
{
    const void *f = field_of(s, d);
    switch (d->kind) {
    case OPT_TEXT: return snprintf(buf, len, "%s", (const char *)f);
    case OPT_DOUBLE: return snprintf(buf, len, "%.17g", *(const double *)f);
    default: return snprintf(buf, len, "%d", *(const int *)f);
    }
}

/* the option's environment variable when it supplies the value: no call
 * set the option and the variable is not empty; else NULL */
static const char *env_value(const ovk_solver *s, const opt_def *d)
{
    const char *env = d->env && !(s->marks.opt_set & bit_of(d)) ? getenv(d->env) : NULL;
    return env && *env ? env : NULL;
}

/* the backend as it is or will be resolved: the reducer's spec once there
 * is one, else the option's sources (a call, the environment), else the
 * default backend */
const char *ovk__solver_backend(const ovk_solver *s)
{
    const opt_def *d = opt_of_role(OVK__ROLE_BACKEND);
    if (s->user_red) return ovk_reducer_spec(s->user_red);
    if (s->made.red_owned && s->made.red_from == ovk__fingerprint(s->backend_spec, strlen(s->backend_spec)))
        return ovk_reducer_spec(s->made.red);
    if (s->backend_spec[0]) return s->backend_spec;
    return env_value(s, d) ? env_value(s, d) : OVK_BACKEND_DEFAULT;
}

/* the value in effect as text: the backend resolved, a text option unset
 * but supplied by its environment variable, else the stored value */
static int effective_value(const ovk_solver *s, const opt_def *d, char *buf, size_t len)
{
    if (d->role == OVK__ROLE_BACKEND) return snprintf(buf, len, "%s", ovk__solver_backend(s));
    if (env_value(s, d)) return snprintf(buf, len, "%s", env_value(s, d));
    return print_value(s, d, buf, len);
}

/* where the value in effect comes from (the view, ovk_solver_get_option_origin) */
static int origin_of(const ovk_solver *s, const opt_def *d, char *buf, size_t len)
{
    if (d->role == OVK__ROLE_BACKEND && s->user_red) return snprintf(buf, len, "the application's reducer");
    if (s->marks.opt_set & bit_of(d)) return snprintf(buf, len, "option %s", d->key);
    if (env_value(s, d)) return snprintf(buf, len, "$%s", d->env);
    return snprintf(buf, len, "default");
}

int ovk__solver_refuse(ovk_solver *s, int rc)
{
    if (!ovk__solver_valid(s) || !rc) return rc;
    s->refusal.setup = rc;
    snprintf(s->refusal.setup_detail, sizeof s->refusal.setup_detail, "%s", ovk_error_detail());
    return rc;
}

int ovk__solver_refuse_solve(ovk_solver *s, int rc)
{
    if (!ovk__solver_valid(s) || !rc) return rc;
    s->refusal.solve = rc;
    snprintf(s->refusal.solve_detail, sizeof s->refusal.solve_detail, "%s", ovk_error_detail());
    return rc;
}

int ovk_solver_set_option(ovk_solver *s, const char *key, const char *value)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_set_option");
    if (bad) return bad;
    const opt_def *d = key ? find_opt(key) : NULL;
    if (!d) return unknown_opt(key);
    char before[256], after[256];
    print_value(s, d, before, sizeof before);
    int rc = set_value(s, d, value);
    if (rc) return rc;
    s->refusal.setup = 0;
    print_value(s, d, after, sizeof after);
    if (strcmp(before, after)) s->marks.dirty |= d->redo | OVK__REDO_CHECK; /* the same value again redoes nothing */
    return OVK_OK;
}

/* a query of option `key` of s: its entry, or the failure */
static int query(const ovk_solver *s, const char *fn, const char *key, char *buf, size_t len, const opt_def **d)
{
    if (!ovk__solver_valid(s)) return ovk__solver_not_solver(fn);
    *d = key ? find_opt(key) : NULL;
    if (!*d) return unknown_opt(key);
    if (!buf || len == 0) return ovk__fail(OVK_EINVAL, "%s: no buffer", fn);
    return OVK_OK;
}

static int fits(int n, size_t len, const char *key)
{
    return (n >= 0 && (size_t)n < len) ? OVK_OK : ovk__fail(OVK_EINVAL, "option %s: buffer too short", key);
}

int ovk_solver_get_option(const ovk_solver *s, const char *key, char *buf, size_t len)
{
    const opt_def *d = NULL;
    int rc = query(s, "ovk_solver_get_option", key, buf, len, &d);
    return rc ? rc : fits(effective_value(s, d, buf, len), len, key);
}

int ovk_solver_get_option_origin(const ovk_solver *s, const char *key, char *buf, size_t len)
{
    const opt_def *d = NULL;
    int rc = query(s, "ovk_solver_get_option_origin", key, buf, len, &d);
    return rc ? rc : fits(origin_of(s, d, buf, len), len, key);
}

/* the text that field d->pcg_off of *o sets option d to (NULL text: the
 * default; a NULL precond_spec: the precond enum's name) */
static const char *struct_text(const ovk_solve_options *o, const opt_def *d, char *buf, size_t len)
{
    const char *p = (const char *)o + d->pcg_off;
    if (d->kind == OPT_DOUBLE) snprintf(buf, len, "%.17g", *(const double *)p);
    else if (d->kind == OPT_INT) snprintf(buf, len, "%d", *(const int *)p);
    else if (*(const char *const *)p) return *(const char *const *)p;
    else if (d->role == OVK__ROLE_PRECOND) return o->precond == OVK_PRECOND_NONE ? "none" : "jacobi";
    else return d->dflt;
    return buf;
}

int ovk_solver_set_options(ovk_solver *s, const ovk_solve_options *o)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_set_options");
    if (bad) return bad;
    if (!o) return ovk__fail(OVK_EINVAL, "ovk_solver_set_options: NULL options");
    if (!o->precond_spec && o->precond != OVK_PRECOND_DIAG && o->precond != OVK_PRECOND_NONE)
        return ovk__fail(OVK_EOPTION, "unknown preconditioner %d", (int)o->precond);
    char text[OPT_COUNT][64];
    opt_value v[OPT_COUNT];
    for (int i = 0; i < OPT_COUNT; i++) { /* every value checked before any is stored */
        const opt_def *d = &opt_defs[i];
        int rc = d->pcg_off < 0 ? OVK_OK : parse_value(d, struct_text(o, d, text[i], sizeof text[i]), &v[i]);
        if (rc) return rc;
    }
    for (int i = 0; i < OPT_COUNT; i++)
        if (opt_defs[i].pcg_off >= 0) store_value(s, &opt_defs[i], &v[i]);
    s->o.out = o->out;
    s->o.precond = o->precond;
    s->o.reducer = NULL;
    s->user_red = o->reducer;
    s->refusal.setup = 0;
    s->marks.dirty = OVK__REDO_ALL;
    return OVK_OK;
}

/* the struct form's defaults from the table: numbers as the table says,
 * the solver's name too; the other names NULL (the backend: its
 * environment, else the default; the preconditioner: the precond enum) */
void ovk_pcg_options_init(ovk_pcg_options *o) { ovk_solve_options_init(o); }

void ovk_solve_options_init(ovk_solve_options *o)
{
    memset(o, 0, sizeof *o);
    o->precond = OVK_PRECOND_DIAG;
    for (int i = 0; i < OPT_COUNT; i++) {
        const opt_def *d = &opt_defs[i];
        char *p = (char *)o + d->pcg_off;
        if (d->pcg_off < 0) continue;
        if (d->kind == OPT_DOUBLE) *(double *)p = strtod(d->dflt, NULL);
        else if (d->kind == OPT_INT) *(int *)p = (int)strtol(d->dflt, NULL, 10);
        else if (d->role == OVK__ROLE_SOLVER) *(const char **)p = d->dflt;
    }
}

int ovk_solver_set_tolerances(ovk_solver *s, double tol, double atol, int max_iter)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_set_tolerances");
    if (bad) return bad;
    if (!(tol > 0.0) || !isfinite(tol) || !(atol >= 0.0) || !isfinite(atol) || max_iter < 0)
        return ovk__fail(OVK_EOPTION, "tolerances tol = %g (> 0), atol = %g (>= 0), max_iter = %d (>= 0)", tol,
                         atol, max_iter);
    s->refusal.setup = 0;
    s->o.tol = tol;
    s->o.atol = atol;
    s->o.max_iter = max_iter;
    s->marks.dirty |= OVK__REDO_CHECK | OVK__REDO_CONDEST;
    return OVK_OK;
}

int ovk_solver_set_reducer(ovk_solver *s, ovk_reducer *red)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_set_reducer");
    if (bad) return bad;
    s->user_red = red;
    s->marks.dirty |= OVK__REDO_CHECK | OVK__REDO_REDUCER;
    return OVK_OK;
}

int ovk_solver_set_precond_fn(ovk_solver *s, ovk_apply_fn fn, void *ctx)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_set_precond_fn");
    if (bad) return bad;
    s->fns.pc = fn;
    s->fns.pc_ctx = ctx;
    s->marks.dirty |= OVK__REDO_CHECK | OVK__REDO_PC;
    return OVK_OK;
}

int ovk_solver_set_monitor(ovk_solver *s, ovk_monitor_fn fn, void *ctx)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_set_monitor");
    if (bad) return bad;
    s->mon.fn = fn;
    s->mon.fn_ctx = ctx;
    s->marks.dirty |= OVK__REDO_CHECK | OVK__REDO_CTX; /* every rank must have one: checked at setup */
    return OVK_OK;
}

int ovk_solver_set_convergence_test(ovk_solver *s, ovk_converged_fn fn, void *ctx)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_set_convergence_test");
    if (bad) return bad;
    s->mon.conv_fn = fn;
    s->mon.conv_ctx = ctx;
    s->marks.dirty |= OVK__REDO_CHECK | OVK__REDO_CTX;
    return OVK_OK;
}

int ovk_solver_set_history(ovk_solver *s, double *buf, int len)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_set_history");
    if (bad) return bad;
    if (buf && len < 0) return ovk__fail(OVK_EINVAL, "ovk_solver_set_history: len = %d < 0", len);
    s->mon.history = buf;
    s->mon.history_cap = buf ? len : 0;
    s->c.mon.history = buf; /* also between setups */
    s->c.mon.history_cap = s->mon.history_cap;
    return OVK_OK;
}

int ovk_solver_set_coordinates(ovk_solver *s, int dim, int nnodes, const double *xyz)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_set_coordinates");
    if (bad) return bad;
    if (dim < 0 || dim > 3) return ovk__fail(OVK_EINVAL, "ovk_solver_set_coordinates: dim = %d (1, 2 or 3; 0 removes)", dim);
    if (dim > 0 && (nnodes < 0 || nnodes > s->lay->nlocal))
        return ovk__fail(OVK_EINVAL, "ovk_solver_set_coordinates: %d nodes for %d local rows", nnodes, s->lay->nlocal);
    if (dim > 0 && nnodes > 0 && !xyz) return ovk__fail(OVK_EINVAL, "ovk_solver_set_coordinates: NULL coordinates");
    double *copy = NULL;
    if (dim > 0) {
        copy = malloc(sizeof(double) * (size_t)(nnodes > 0 ? nnodes * dim : 1));
        if (!copy) return ovk__fail(OVK_ENOMEM, "ovk_solver_set_coordinates: %d nodes", nnodes);
        if (nnodes > 0) memcpy(copy, xyz, sizeof(double) * (size_t)nnodes * (size_t)dim);
    }
    for (int i = 0; i < (dim > 0 ? nnodes * dim : 0); i++)
        if (!isfinite(copy[i])) {
            int node = i / dim, axis = i % dim;
            free(copy);
            return ovk__fail(OVK_ENONFINITE, "ovk_solver_set_coordinates: node %d's coordinate %d is %g", node, axis,
                             xyz[i]);
        }
    free(s->coords.xyz);
    s->coords.xyz = copy;
    s->coords.dim = dim;
    s->coords.n = dim > 0 ? nnodes : 0;
    s->marks.dirty |= OVK__REDO_CHECK | OVK__REDO_PC; /* the preconditioner's setup reads them */
    return OVK_OK;
}

int ovk_solver_set_near_nullspace(ovk_solver *s, int k, const double *const vectors[])
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_set_near_nullspace");
    if (bad) return bad;
    int n = s->lay->nlocal;
    if (k < 0 || k > 32) return ovk__fail(OVK_EINVAL, "ovk_solver_set_near_nullspace: k = %d (0..32)", k);
    for (int j = 0; j < k && n > 0; j++)
        if (!vectors || !vectors[j]) return ovk__fail(OVK_EINVAL, "ovk_solver_set_near_nullspace: vector %d is NULL", j);
    double *copy = NULL;
    if (k > 0 && !(copy = malloc(sizeof(double) * (size_t)k * (size_t)(n > 0 ? n : 1))))
        return ovk__fail(OVK_ENOMEM, "ovk_solver_set_near_nullspace: %d vectors of %d rows", k, n);
    for (int j = 0; j < k && n > 0; j++)
        for (int i = 0; i < n; i++) {
            if (!isfinite(vectors[j][i])) {
                free(copy);
                return ovk__fail(OVK_ENONFINITE, "ovk_solver_set_near_nullspace: vector %d's local row %d is %g", j, i,
                                 vectors[j][i]);
            }
            copy[(size_t)j * (size_t)n + (size_t)i] = vectors[j][i];
        }
    free(s->coords.nns);
    s->coords.nns = copy;
    s->coords.nns_k = k;
    s->marks.dirty |= OVK__REDO_CHECK | OVK__REDO_PC; /* the preconditioner's setup reads them */
    return OVK_OK;
}

int ovk_solver_set_fields(ovk_solver *s, const int *field_of_local_row)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_set_fields");
    if (bad) return bad;
    int n = s->lay->nlocal, rc = OVK_OK;
    int *copy = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!copy) rc = ovk__fail(OVK_ENOMEM, "ovk_solver_set_fields: %d rows", n);
    else if (n > 0 && !field_of_local_row)
        rc = ovk__fail(OVK_EINVAL, "ovk_solver_set_fields: NULL fields for %d local rows", n);
    for (int i = 0; i < n && !rc; i++) {
        copy[i] = field_of_local_row[i];
        if (copy[i] != 0 && copy[i] != 1)
            rc = ovk__fail(OVK_EINVAL, "ovk_solver_set_fields: row %lld's field is %d (0 or 1)",
                           ovk__row_id(s->lay, i), copy[i]);
    }
    rc = ovk__agree(s->lay->comm, rc);
    if (rc) {
        free(copy);
        return rc;
    }
    free(s->coords.fields);
    s->coords.fields = copy;
    s->marks.dirty |= OVK__REDO_CHECK | OVK__REDO_PC; /* fieldsplit's setup reads them */
    return OVK_OK;
}

int ovk_solver_set_schur_matrix(ovk_solver *s, ovk_matrix *S)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_set_schur_matrix");
    if (bad) return bad;
    ovk__matrix_ref(S, +1);
    ovk__matrix_ref(s->coords.schur, -1); /* frees a matrix destroyed meanwhile */
    s->coords.schur = S;
    s->marks.dirty |= OVK__REDO_CHECK | OVK__REDO_PC;
    return OVK_OK;
}

int ovk_solver_set_nullspace(ovk_solver *s, int has_constant, int k, const double *const vectors[])
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_set_nullspace");
    if (bad) return bad;
    int rc = ovk__nullspace_set(&s->ns, s->lay, has_constant, k, vectors);
    if (!rc) s->marks.dirty |= OVK__REDO_CHECK | OVK__REDO_PC; /* the basis is made at setup; amg's coarsest solve reads it */
    return rc;
}

int ovk_solver_set_nullspace_rigid_body(ovk_solver *s, int dim, int nnodes, const double *xyz)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_set_nullspace_rigid_body");
    if (bad) return bad;
    int n = s->lay->nlocal, count = dim == 2 ? 3 : 6;
    double *modes = NULL;
    const double *vec[6];
    int rc = OVK_OK;
    if (dim != 2 && dim != 3) rc = ovk__fail(OVK_EINVAL, "ovk_solver_set_nullspace_rigid_body: dim = %d (2 or 3)", dim);
    else if (nnodes < 0 || (long long)nnodes * dim != n)
        rc = ovk__fail(OVK_EINVAL, "ovk_solver_set_nullspace_rigid_body: %d nodes of %d rows for %d local rows", nnodes,
                       dim, n);
    else if (nnodes > 0 && !xyz) rc = ovk__fail(OVK_EINVAL, "ovk_solver_set_nullspace_rigid_body: NULL coordinates");
    else if (!(modes = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1) * (size_t)count)))
        rc = ovk__fail(OVK_ENOMEM, "ovk_solver_set_nullspace_rigid_body: %d modes of %d rows", count, n);
    else rc = ovk__nullspace_rigid_body(dim, nnodes, xyz, modes);
    rc = ovk__agree(s->lay->comm, rc);
    for (int j = 0; !rc && j < count; j++) vec[j] = modes + (size_t)j * (size_t)n;
    if (!rc) rc = ovk_solver_set_nullspace(s, 0, count, vec);
    free(modes);
    return rc;
}

/* 1 when the option norm asks for the natural norm */
int ovk__solver_natural_norm(const ovk_solver *s) { return !strcmp(s->mon.norm, "natural"); }

/* the backend option's origin (the view) */
int ovk__solver_backend_origin(const ovk_solver *s, char *buf, size_t len)
{
    return origin_of(s, opt_of_role(OVK__ROLE_BACKEND), buf, len);
}

/* the value in effect of option i (0 <= i < ovk__solver_option_count()) as text (the view) */
int ovk__solver_option_value(const ovk_solver *s, int i, char *buf, size_t len)
{
    return at(i) ? effective_value(s, at(i), buf, len) : snprintf(buf, len, "%s", "");
}

/* Collective, after the ranks were found to differ on whether a Schur
 * matrix is set: OVK_EOPTION naming the ranks that set none (fieldsplit
 * would pick the user's matrix on some ranks and selfp on the others: their
 * collectives would not match). */
static int schur_differs(ovk_solver *s)
{
    int size = 1, mine = s->coords.schur != NULL, *all = NULL;
    MPI_Comm_size(s->lay->comm, &size);
    int rc = ovk__agree(s->lay->comm, (all = malloc(sizeof(int) * (size_t)size)) ? OVK_OK
                                                                                   : ovk__fail(OVK_ENOMEM, "%d ranks", size));
    if (!rc) rc = ovk__mpi(MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, s->lay->comm), "MPI_Allgather (Schur)");
    if (rc) {
        free(all);
        return rc;
    }
    char list[160] = "";
    size_t len = 0;
    for (int r = 0, shown = 0; r < size && len + 16 < sizeof list; r++)
        if (!all[r]) len += (size_t)snprintf(list + len, sizeof list - len, "%s%d", shown++ ? ", " : "", r);
    free(all);
    return ovk__fail(OVK_EOPTION, "ovk_solver_set_schur_matrix was called on some ranks only; the ranks that set "
                                  "none: %s%s (it is collective: set the same Schur matrix on every rank, or none)",
                     list, len + 16 >= sizeof list ? ", ..." : "");
}

/* Collective: OVK_EOPTION naming the first option whose value differs
 * across the ranks (one reduction of a hash per option). */
int ovk__solver_check_same(ovk_solver *s)
{
    static const char *const setting[] = {"whether a monitor is set", "whether a preconditioner callback is set",
                                          "whether a reducer is set", "the coordinates' dimension",
                                          "whether a convergence test is set", "the near-null space's vector count",
                                          "whether a Schur matrix is set"};
    enum { FLAGS = OPT_COUNT, NFLAGS = 7, N = OPT_COUNT + NFLAGS };
    _Static_assert((int)N <= (int)OVK__MAX_FINGERPRINTS, "one fingerprint per option and setting");
    uint64_t h[N];
    char buf[256];
    int first = -1, rc;
    for (int i = 0; i < OPT_COUNT; i++) { /* the values in effect, whatever their source */
        effective_value(s, &opt_defs[i], buf, sizeof buf);
        h[i] = ovk__fingerprint(buf, strlen(buf));
    }
    int flags[NFLAGS] = {s->mon.fn != NULL,       s->fns.pc != NULL, s->user_red != NULL, s->coords.dim,
                         s->mon.conv_fn != NULL, s->coords.nns_k,   s->coords.schur != NULL};
    for (int i = 0; i < NFLAGS; i++) h[FLAGS + i] = ovk__fingerprint(&flags[i], sizeof flags[i]);
    rc = ovk__differs(s->lay->comm, h, N, &first);
    if (rc || first < 0) return rc;
    if (first == FLAGS + NFLAGS - 1) return schur_differs(s);
    if (first >= OPT_COUNT)
        return ovk__fail(OVK_EOPTION, "%s differs across the ranks (it must be the same everywhere)",
                         setting[first - FLAGS]);
    return ovk__fail(OVK_EOPTION, "option %s differs across the ranks (it must be the same everywhere)",
                     opt_defs[first].key);
}
