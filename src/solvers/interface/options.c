/* The options database: the words of $OVK_OPTIONS, then the program's
 * arguments (ovk_options_set_args), as entries "-name [value]" that
 * ovk_solver_set_from_options reads as -[prefix]ovk_KEY for every key of
 * the solver's option table (object_options.c), and the application through
 * ovk_options_get*.  The last entry of a name wins; every entry remembers
 * whether a call read it, for the warning of ovk_options_finalize
 * (-ovk_options_left). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "option_table.h"

#define ENV_OPTIONS "OVK_OPTIONS"
#define LIB_MARK "ovk_" /* the library's names: -[prefix]ovk_KEY */
#define OPTION_KEY_MAX 32 /* room for the longest key of the option table */
/* the database's own names, outside the solver's option table */
#define DB_HELP LIB_MARK "help"
#define DB_OPTIONS_LEFT LIB_MARK "options_left"

typedef struct entry {
    char *name;  /* without the leading '-' */
    char *value; /* NULL: a flag without a value */
    int used;
    int from_env;
} entry;

static struct {
    entry *e;
    int n, cap;
    int loaded; /* $OVK_OPTIONS read */
} db;

/* 1 when word is a number (a value like -1 or -1e-3, not a name) */
static int is_number(const char *word)
{
    char *end = NULL;
    if (!*word) return 0;
    (void)strtod(word, &end);
    return *end == '\0';
}

static int is_name(const char *word) { return word[0] == '-' && word[1] && !is_number(word); }

static char *copy(const char *text, size_t n)
{
    char *c = malloc(n + 1);
    if (!c) return NULL;
    memcpy(c, text, n);
    c[n] = '\0';
    return c;
}

static int add(const char *name, const char *value, int from_env)
{
    if (db.n == db.cap) {
        int cap = db.cap ? 2 * db.cap : 32;
        entry *e = realloc(db.e, sizeof *e * (size_t)cap);
        if (!e) return ovk__fail(OVK_ENOMEM, "options database of %d entries", cap);
        db.e = e;
        db.cap = cap;
    }
    entry *e = &db.e[db.n];
    while (*name == '-') name++; /* -name and --name */
    e->name = copy(name, strlen(name));
    e->value = value ? copy(value, strlen(value)) : NULL;
    e->used = 0;
    e->from_env = from_env;
    if (!e->name || (value && !e->value)) {
        free(e->name);
        free(e->value);
        return ovk__fail(OVK_ENOMEM, "options database entry %s", name);
    }
    db.n++;
    return OVK_OK;
}

/* the entries of words w[0..n-1]: a name, and the next word as its value
 * when that is not a name; words that are neither are not options */
static int add_words(int n, char *const *w, int from_env)
{
    for (int i = 0; i < n; i++) {
        if (!is_name(w[i])) continue;
        const char *value = i + 1 < n && !is_name(w[i + 1]) ? w[i + 1] : NULL;
        int rc = add(w[i], value, from_env);
        if (rc) return rc;
        i += value != NULL;
    }
    return OVK_OK;
}

/* $OVK_OPTIONS split at white space */
static int load_env(void)
{
    enum { MAX_WORDS = 256 };
    const char *env = getenv(ENV_OPTIONS);
    char *words[MAX_WORDS] = {0};
    int n = 0, rc = OVK_OK;
    for (const char *p = env; p && *p;) {
        while (isspace((unsigned char)*p)) p++;
        size_t len = 0;
        while (p[len] && !isspace((unsigned char)p[len])) len++;
        if (!len) break;
        if (n == MAX_WORDS) {
            rc = ovk__fail(OVK_EOPTION, "$%s has more than %d words", ENV_OPTIONS, MAX_WORDS);
            break;
        }
        words[n] = copy(p, len);
        if (!words[n]) {
            rc = ovk__fail(OVK_ENOMEM, "$%s", ENV_OPTIONS);
            break;
        }
        n++;
        p += len;
    }
    if (!rc) rc = add_words(n, words, 1);
    for (int i = 0; i < n; i++) free(words[i]);
    if (rc) ovk_options_clear(); /* not loaded: the next read fails the same way, never ignores it */
    else db.loaded = 1;
    return rc;
}

void ovk_options_clear(void)
{
    for (int i = 0; i < db.n; i++) {
        free(db.e[i].name);
        free(db.e[i].value);
    }
    free(db.e);
    memset(&db, 0, sizeof db);
}

int ovk_options_set_args(int argc, char **argv)
{
    if (argc < 0 || (argc > 0 && !argv)) return ovk__fail(OVK_EINVAL, "ovk_options_set_args: argc = %d", argc);
    for (int i = 0; i < argc; i++)
        if (!argv[i]) return ovk__fail(OVK_EINVAL, "ovk_options_set_args: argv[%d] is NULL (argc = %d)", i, argc);
    ovk_options_clear();
    int rc = load_env();
    if (rc) return rc;
    return argc > 1 ? add_words(argc - 1, argv + 1, 0) : OVK_OK; /* argv[0] is the program */
}

static int loaded(void) { return db.loaded ? OVK_OK : load_env(); }

/* the last entry of name, every entry of it marked used; NULL when none */
static entry *lookup(const char *name)
{
    entry *found = NULL;
    while (*name == '-') name++;
    for (int i = 0; i < db.n; i++)
        if (!strcmp(db.e[i].name, name)) {
            db.e[i].used = 1;
            found = &db.e[i];
        }
    return found;
}

int ovk_options_get(const char *name, char *buf, size_t len, int *found)
{
    if (found) *found = 0;
    if (!name || !buf || len == 0) return ovk__fail(OVK_EINVAL, "ovk_options_get: NULL name or no buffer");
    int rc = loaded();
    if (rc) return rc;
    const entry *e = lookup(name);
    if (!e) return OVK_OK;
    const char *v = e->value ? e->value : "";
    if (strlen(v) >= len) return ovk__fail(OVK_EOPTION, "option -%s: value '%s' is too long", e->name, v);
    snprintf(buf, len, "%s", v);
    if (found) *found = 1;
    return OVK_OK;
}

/* the text of option `name` for the typed getter `call` into buf (*have: it
 * is set); *found = 0 until the getter has converted it */
static int get_text(const char *call, const char *name, const void *value, char *buf, size_t len, int *have,
                    int *found)
{
    if (found) *found = 0;
    if (!value) return ovk__fail(OVK_EINVAL, "%s: NULL value", call);
    return ovk_options_get(name, buf, len, have);
}

int ovk_options_get_int(const char *name, int *value, int *found)
{
    char buf[64], *end = NULL;
    int have = 0;
    int rc = get_text("ovk_options_get_int", name, value, buf, sizeof buf, &have, found);
    if (rc || !have) return rc;
    long v = buf[0] ? strtol(buf, &end, 10) : 1; /* a flag alone: 1 */
    if ((buf[0] && *end) || v < INT32_MIN || v > INT32_MAX)
        return ovk__fail(OVK_EOPTION, "option %s=%s must be an integer", name, buf);
    *value = (int)v;
    if (found) *found = 1;
    return OVK_OK;
}

int ovk_options_get_real(const char *name, double *value, int *found)
{
    char buf[64], *end = NULL;
    int have = 0;
    int rc = get_text("ovk_options_get_real", name, value, buf, sizeof buf, &have, found);
    if (rc || !have) return rc;
    double v = buf[0] ? strtod(buf, &end) : 1.0; /* a flag alone: 1, as ovk_options_get_int */
    if (buf[0] && (*end || !isfinite(v)))
        return ovk__fail(OVK_EOPTION, "option %s=%s must be a finite number", name, buf);
    *value = v;
    if (found) *found = 1;
    return OVK_OK;
}

int ovk_options_skip(int argc, char **argv, int i)
{
    if (!argv || i < 0 || i >= argc || !is_name(argv[i]) || !strstr(argv[i], LIB_MARK)) return 0;
    return i + 1 < argc && !is_name(argv[i + 1]) ? 2 : 1;
}

/* -name of option i given without a value: refused unless it is a flag
 * (-ovk_rtol alone is not rtol = 1) */
static int missing_value(int i, const char *name, int from_env)
{
    char range[64];
    ovk__solver_option_range(i, range, sizeof range);
    return ovk__fail(OVK_EOPTION, "-%s%s: no value given (values: %s)", name,
                     from_env ? " (from $" ENV_OPTIONS ")" : "", range);
}

/* the local part: every key of the table under prefix into s */
static int read_options(ovk_solver *s, const char *prefix)
{
    char name[256];
    for (const char *p = prefix; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return ovk__fail(OVK_EOPTION, "options prefix '%s': letters, digits and '_' only", prefix);
    if (strlen(prefix) + strlen(LIB_MARK) + OPTION_KEY_MAX >= sizeof name) /* no name cut short */
        return ovk__fail(OVK_EOPTION, "options prefix of %zu characters: at most %zu", strlen(prefix),
                         sizeof name - strlen(LIB_MARK) - OPTION_KEY_MAX - 1);
    int rc = loaded();
    if (rc) return rc;
    for (int i = 0; i < ovk__solver_option_count(); i++) {
        const char *key = ovk__solver_option_key(i);
        snprintf(name, sizeof name, "%s" LIB_MARK "%s", prefix, key);
        const entry *e = lookup(name);
        if (!e) continue;
        if (!e->value && !ovk__solver_option_is_flag(i)) return missing_value(i, name, e->from_env);
        rc = ovk_solver_set_option(s, key, e->value ? e->value : "1"); /* a flag alone: 1 */
        if (rc) {
            char detail[512];
            snprintf(detail, sizeof detail, "%s", ovk_error_detail());
            return ovk__fail(rc, "-%s%s: %s", name, e->from_env ? " (from $" ENV_OPTIONS ")" : "", detail);
        }
    }
    return OVK_OK;
}

/* the database's own name beside the table's, for -ovk_help */
static void help_extra(FILE *f)
{
    fprintf(f, "  -" DB_OPTIONS_LEFT " <0|1>: at ovk_options_finalize, 0: no warning for options nobody read; "
               "1: say also when every option was used\n");
}

/* -ovk_help given (and not 0) */
static int help_wanted(void)
{
    const entry *e = lookup(DB_HELP);
    return e && !(e->value && !strcmp(e->value, "0"));
}

int ovk_solver_set_from_options(ovk_solver *s, const char *prefix)
{
    int bad = ovk__solver_usable(s, "ovk_solver_set_from_options"); /* local: no agreement from a callback */
    if (bad == OVK_EBUSY) return bad;
    if (bad) return ovk__solver_agree(NULL, bad, "ovk_solver_set_from_options"); /* met, not waited for */
    if (!prefix) prefix = "";
    int rank = 0, rc = ovk__solver_agree(s, read_options(s, prefix), "ovk_solver_set_from_options");
    MPI_Comm_rank(ovk_solver_comm(s), &rank);
    if (!rc && help_wanted() && rank == 0) {
        ovk__solver_help(s, prefix, stdout);
        help_extra(stdout);
    }
    return rc;
}

int ovk_options_left(FILE *f)
{
    int left = 0;
    if (loaded()) return 0;
    for (int i = 0; i < db.n; i++) {
        const entry *e = &db.e[i];
        if (e->used || (!e->from_env && !strstr(e->name, LIB_MARK))) continue;
        if (!strcmp(e->name, DB_OPTIONS_LEFT)) continue;
        left++;
        if (f)
            fprintf(f, "ovk: option -%s%s%s was not used%s\n", e->name, e->value ? " " : "", e->value ? e->value : "",
                    e->from_env ? " (from $" ENV_OPTIONS ")" : "");
    }
    return left;
}

/* -ovk_options_left: 1 (the default) warns of unused options, 0 does not;
 * given explicitly as 1, says also when every option was used */
int ovk_options_finalize(void)
{
    int rank = 0, init = 0, fin = 0, want = 1, given = 0, left = 0;
    int rc = ovk_options_get_int(DB_OPTIONS_LEFT, &want, &given);
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!rc && want) {
        left = ovk_options_left(NULL);
        if (rank == 0 && left) {
            printf("ovk: WARNING! %d option%s you set %s not used (misspelt? a prefix no solver has?):\n", left,
                   left == 1 ? "" : "s", left == 1 ? "was" : "were");
            ovk_options_left(stdout);
            printf("ovk: (-" DB_OPTIONS_LEFT " 0 turns this warning off)\n");
        }
        if (rank == 0 && !left && given) printf("ovk: every option was used\n");
    }
    ovk_options_clear();
    return rc ? rc : left;
}
