/* docs/solvers.md's reference against the solver registry (its list,
 * src/solvers/methods/registry_list.h), so that
 * neither drifts from the other:
 *   - between the marker lines "<!-- registry solvers: begin -->" and
 *     "<!-- registry solvers: end -->" every registered solver has exactly
 *     one entry (a line "### `name`"), and no entry names an unregistered one;
 *   - an entry quotes its solver's description string (white space and the
 *     "> " of a block quote aside), has a paragraph "Keys:" naming as
 *     `key=...` exactly the keys of its options string ("Keys: none." for
 *     none), and paragraphs "**Cost.**" and "**When.**";
 *   - each key an options string names is read by the solver's parser, and
 *     the parser reads no other key of the option tables under
 *     src/solvers/methods/ (OVK__OPT_* entries) nor of another solver's
 *     string: a key added to the code and not to the string fails here.
 * An options string is "key=values: meaning (default); ...": each entry
 * up to its first ':' names one or more keys ("lmin, lmax: ...",
 * "emin=E,emax=E: ..."); parenthesised text is a remark.
 * A failure prints the registry's text to paste. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>

#include "solvers/solver.h"

#define BEGIN "<!-- registry solvers: begin -->"
#define END "<!-- registry solvers: end -->"
enum { MAX_KEYS = 32, KEY_LEN = 32 };

typedef struct keyset {
    int n;
    char key[MAX_KEYS][KEY_LEN];
} keyset;

static char *doc; /* the reference region of docs/solvers.md */

static int has_key(const keyset *k, const char *key)
{
    for (int i = 0; i < k->n; i++)
        if (!strcmp(k->key[i], key)) return 1;
    return 0;
}

static void add_key(keyset *k, const char *key, size_t len)
{
    char buf[KEY_LEN];
    assert_true(len > 0 && len < KEY_LEN);
    memcpy(buf, key, len);
    buf[len] = '\0';
    if (has_key(k, buf)) return;
    assert_true(k->n < MAX_KEYS);
    memcpy(k->key[k->n++], buf, len + 1);
}

/* length of the identifier at p ([a-z_][a-z0-9_]*), 0 if none */
static size_t ident(const char *p)
{
    size_t n = 0;
    if (!(islower((unsigned char)p[0]) || p[0] == '_')) return 0;
    while (islower((unsigned char)p[n]) || isdigit((unsigned char)p[n]) || p[n] == '_') n++;
    return n;
}

/* the first c in [p, end) outside parentheses, or end */
static const char *outside(const char *p, const char *end, char c)
{
    int depth = 0;
    for (; p < end; p++) {
        if (*p == '(') depth++;
        else if (*p == ')' && depth > 0) depth--;
        else if (*p == c && depth == 0) return p;
    }
    return end;
}

/* the keys of an options string: in each ';'-separated entry, the text up
 * to its first ':' split at ',' (all outside parentheses); a piece "key" or
 * "key=..." names a key */
static void options_keys(const char *options, keyset *k)
{
    memset(k, 0, sizeof *k);
    const char *end = options + strlen(options);
    for (const char *e = options; e < end;) {
        const char *eend = outside(e, end, ';');
        const char *hend = outside(e, eend, ':');
        for (const char *p = e; p < hend;) {
            const char *pend = outside(p, hend, ',');
            while (p < pend && *p == ' ') p++;
            size_t n = ident(p);
            const char *after = p + n;
            while (after < pend && *after == ' ') after++;
            if (n > 0 && (after == pend || p[n] == '=')) add_key(k, p, n);
            p = pend + (pend < hend);
        }
        e = eend + (eend < end);
    }
}

/* the entry of solver name in the region (up to the next "### "), as a
 * new string, or NULL; *count: how many entries name it */
static char *entry_of(const char *name, int *count)
{
    char head[96];
    snprintf(head, sizeof head, "\n### `%s`", name);
    char *found = NULL;
    *count = 0;
    for (const char *p = strstr(doc, head); p; p = strstr(p + 1, head)) {
        const char *after = p + strlen(head);
        if (*after != '\n' && *after != ' ') continue; /* "### `name`" only */
        ++*count;
        if (found) continue;
        const char *end = strstr(after, "\n### ");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        found = malloc(len + 1);
        assert_non_null(found);
        memcpy(found, p, len);
        found[len] = '\0';
    }
    return found;
}

/* text with each line's leading "> " dropped and white space runs as one
 * space (a new string) */
static char *flatten(const char *text)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    assert_non_null(out);
    int line_start = 1, space = 0;
    for (const char *p = text; *p; p++) {
        if (line_start && *p == '>') {
            line_start = 0;
            space = 1;
            continue;
        }
        if (isspace((unsigned char)*p)) {
            space = 1;
            line_start = *p == '\n' ? 1 : line_start;
            continue;
        }
        line_start = 0;
        if (space && o > out) *o++ = ' ';
        space = 0;
        *o++ = *p;
    }
    *o = '\0';
    return out;
}

/* the keys the entry's "Keys:" paragraph names as `key=...`; -1 without
 * one, 0 for "Keys: none." */
static int doc_keys(const char *entry, keyset *k)
{
    memset(k, 0, sizeof *k);
    const char *p = strstr(entry, "\nKeys:");
    if (!p) return -1;
    const char *end = strstr(p + 1, "\n\n");
    if (!end) end = p + strlen(p);
    for (const char *q = p; q < end; q++) {
        size_t n = ident(q + 1);
        if (*q == '`' && n > 0 && q[1 + n] == '=') add_key(k, q + 1, n);
    }
    return k->n;
}

/* one solver's entry; returns the number of problems, printed */
static int check_entry(const ovk__solver *sv)
{
    int count, bad = 0;
    char *entry = entry_of(sv->name, &count);
    if (count != 1) {
        print_error("docs/solvers.md: %d entries \"### `%s`\" between the registry markers, want 1\n"
                    "  description: %s\n  options: %s\n", count, sv->name, sv->description,
                    sv->keys[0] ? sv->keys : "(none)");
        free(entry);
        return 1;
    }
    char *flat = flatten(entry), *want = flatten(sv->description);
    if (!strstr(flat, want)) {
        print_error("docs/solvers.md, `%s`: the entry does not quote the registry's description:\n> %s\n",
                    sv->name, sv->description);
        bad++;
    }
    keyset reg, doc_k;
    options_keys(sv->keys, &reg);
    int nd = doc_keys(entry, &doc_k);
    if (nd < 0 || (reg.n == 0 && !strstr(entry, "\nKeys: none."))) {
        print_error("docs/solvers.md, `%s`: no paragraph \"Keys:\" (\"Keys: none.\" for none); options: %s\n",
                    sv->name, sv->keys[0] ? sv->keys : "(none)");
        bad++;
    }
    for (int i = 0; i < reg.n; i++)
        if (!has_key(&doc_k, reg.key[i])) {
            print_error("docs/solvers.md, `%s`: \"Keys:\" lacks `%s=...` (options: %s)\n", sv->name, reg.key[i],
                        sv->keys);
            bad++;
        }
    for (int i = 0; i < doc_k.n; i++)
        if (!has_key(&reg, doc_k.key[i])) {
            print_error("docs/solvers.md, `%s`: \"Keys:\" names `%s=`, which its options string does not "
                        "(options: %s)\n", sv->name, doc_k.key[i], sv->keys[0] ? sv->keys : "(none)");
            bad++;
        }
    if (!strstr(entry, "**Cost.**") || !strstr(entry, "**When.**") || !strstr(entry, "**Refuses.**")) {
        print_error("docs/solvers.md, `%s`: the entry lacks a \"**Cost.**\", \"**When.**\" or "
                    "\"**Refuses.**\" paragraph\n",
                    sv->name);
        bad++;
    }
    free(flat);
    free(want);
    free(entry);
    return bad;
}

static void test_every_solver_documented(void **state)
{
    (void)state;
    int bad = 0;
    for (int i = 0; i < ovk_solver_type_count(); i++) {
        const ovk__solver *sv = ovk__solver_find(ovk_solver_type_name(i));
        assert_non_null(sv);
        assert_non_null(sv->description);
        assert_non_null(sv->keys);
        assert_true(strlen(sv->description) > 20);
        bad += check_entry(sv);
    }
    assert_int_equal(bad, 0);
}

static void test_no_stray_entry(void **state)
{
    (void)state;
    int bad = 0, entries = 0;
    for (const char *p = strstr(doc, "\n### "); p; p = strstr(p + 1, "\n### ")) {
        char name[64] = "";
        entries++;
        if (sscanf(p, "\n### `%63[^`]`", name) != 1 || !ovk__solver_find(name)) {
            print_error("docs/solvers.md: entry \"%.40s\" between the registry markers names no registered "
                        "solver\n", p + 1);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
    assert_int_equal(entries, ovk_solver_type_count());
}

/* whether sv's parser reads key (spec "name:key=@": a read marks it used,
 * whatever the value's fate) */
static int parser_reads(const ovk__solver *sv, const char *key)
{
    char spec[128], name[64];
    ovk__opts o;
    snprintf(spec, sizeof spec, "%s:%s=@", sv->name, key);
    assert_int_equal(ovk__spec_parse("solver", OVK_EOPTION, spec, name, sizeof name, &o), OVK_OK);
    if (!sv->ops->parse) return 0;
    void *params = NULL;
    (void)sv->ops->parse(&o, &params);
    free(params);
    return o.kv[0].used;
}

/* the keys of the option tables in one source file: OVK__OPT_INT("key", ...),
 * _DOUBLE, _CHOICE */
static void source_keys(const char *path, keyset *k)
{
    char line[512];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f))
        for (const char *p = strstr(line, "OVK__OPT_"); p; p = strstr(p + 1, "OVK__OPT_")) {
            const char *q = strstr(p, "(\"");
            if (!q || (strncmp(p, "OVK__OPT_INT(", 13) && strncmp(p, "OVK__OPT_DOUBLE(", 16) &&
                       strncmp(p, "OVK__OPT_CHOICE(", 16)))
                continue;
            size_t n = ident(q + 2);
            if (n > 0 && q[2 + n] == '"') add_key(k, q + 2, n);
        }
    fclose(f);
}

/* the keys of every option table under src/solvers/methods/ (one level of
 * folders, as methods/cg/, methods/gmres/) */
static void methods_keys(keyset *k)
{
    char dir[1024], path[1280];
    DIR *top = opendir(OVK_SOURCE_DIR "/src/solvers/methods");
    assert_non_null(top);
    for (struct dirent *d; (d = readdir(top));) {
        if (d->d_name[0] == '.') continue;
        snprintf(dir, sizeof dir, "%s/src/solvers/methods/%s", OVK_SOURCE_DIR, d->d_name);
        DIR *sub = opendir(dir);
        if (!sub) continue;
        for (struct dirent *e; (e = readdir(sub));) {
            size_t n = strlen(e->d_name);
            if (n < 3 || strcmp(e->d_name + n - 2, ".c")) continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            source_keys(path, k);
        }
        closedir(sub);
    }
    closedir(top);
}

static void test_option_strings_match_parsers(void **state)
{
    (void)state;
    keyset all = {0}, own;
    methods_keys(&all); /* every key some parser reads */
    assert_true(all.n >= 10); /* restart, orth, l, s, maxl, ...: the scan itself works */
    for (int i = 0; i < ovk_solver_type_count(); i++) {
        options_keys(ovk__solver_find(ovk_solver_type_name(i))->keys, &own);
        for (int j = 0; j < own.n; j++) add_key(&all, own.key[j], strlen(own.key[j]));
    }
    int bad = 0;
    for (int i = 0; i < ovk_solver_type_count(); i++) {
        const ovk__solver *sv = ovk__solver_find(ovk_solver_type_name(i));
        options_keys(sv->keys, &own);
        for (int j = 0; j < all.n; j++) {
            int reads = parser_reads(sv, all.key[j]), listed = has_key(&own, all.key[j]);
            if (reads != listed) {
                print_error("solver %s: its parser %s key '%s', its options string %s it (\"%s\")\n", sv->name,
                            reads ? "reads" : "does not read", all.key[j], listed ? "names" : "does not name",
                            sv->keys);
                bad++;
            }
        }
    }
    assert_int_equal(bad, 0);
}

/* the key parse itself, on the forms the registries use */
static void test_options_keys_forms(void **state)
{
    (void)state;
    keyset k;
    options_keys("l=1..8: depth (2); restart=1..500 (30); lmin, lmax: the interval (default: a, b)", &k);
    assert_int_equal(k.n, 4);
    assert_true(has_key(&k, "l") && has_key(&k, "restart") && has_key(&k, "lmin") && has_key(&k, "lmax"));
    options_keys("refine=never|always (orth=cgs, implied by refine=): one pass; basis=double|single: x", &k);
    assert_int_equal(k.n, 2);
    assert_true(has_key(&k, "refine") && has_key(&k, "basis"));
    options_keys("degree=K: degree 1-64 (3), each K-1 matvecs; emin=E,emax=E: the bounds", &k);
    assert_int_equal(k.n, 3);
    options_keys("maxl=1..8: deepest (4; pgmres: at most 3); cycle=ovk|hypre (ovk: ours), warm=0|1", &k);
    assert_int_equal(k.n, 3);
    assert_true(has_key(&k, "maxl") && has_key(&k, "cycle") && has_key(&k, "warm"));
    options_keys("", &k);
    assert_int_equal(k.n, 0);
}

static char *read_region(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *text = malloc((size_t)len + 2);
    if (!text || fread(text + 1, 1, (size_t)len, f) != (size_t)len) {
        fclose(f);
        free(text);
        return NULL;
    }
    fclose(f);
    text[0] = '\n'; /* a heading on the first line matches "\n### " too */
    text[len + 1] = '\0';
    char *b = strstr(text, BEGIN), *e = b ? strstr(b, END) : NULL;
    if (!b || !e) {
        free(text);
        return NULL;
    }
    size_t n = (size_t)(e - b) - strlen(BEGIN);
    memmove(text, b + strlen(BEGIN), n);
    text[n] = '\0';
    return text;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    doc = read_region(OVK_SOURCE_DIR "/docs/solvers.md");
    if (!doc) {
        fprintf(stderr, "docs/solvers.md: not readable, or no lines \"" BEGIN "\" ... \"" END "\"\n");
        MPI_Finalize();
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options_keys_forms),
        cmocka_unit_test(test_every_solver_documented),
        cmocka_unit_test(test_no_stray_entry),
        cmocka_unit_test(test_option_strings_match_parsers),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(doc);
    MPI_Finalize();
    return failed ? 1 : 0;
}
