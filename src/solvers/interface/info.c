/* What a solver reports beyond the result of one solve, by key
 * (ovk_solver_get_info): the figures of solver auto and the null space's
 * inconsistency, read from the solver's last result through one table, so
 * the bindings query them by name rather than mirror the fields; and the
 * layout of the structs the bindings still mirror (ovk_abi_field), which
 * they compare with their own at load. */
#include <stddef.h>
#include <string.h>

#include "option_table.h"

typedef struct info_def {
    const char *key;
    int text;      /* 1: a char array, else a double */
    size_t off;    /* offsetof(ovk_result, the field) */
    size_t len;    /* text: the array's size */
    const char *help;
} info_def;

#define INFO_NUM(field, help) {#field, 0, offsetof(ovk_result, field), 0, help}
#define INFO_TEXT(field, help) \
    {#field, 1, offsetof(ovk_result, field), sizeof(((ovk_result *)0)->field), help}

static const info_def infos[] = {
    INFO_TEXT(auto_choice, "solver auto: the variant it chose (\"alg1\", \"pipecg\", \"plcg:l=3\", ...); "
                           "\"\" for the other solvers"),
    INFO_NUM(auto_latency_us, "solver auto: the latency of one blocking reduction it measured (us, max over "
                              "the ranks); 0 for the other solvers"),
    INFO_NUM(auto_work_us, "solver auto: the local work of one iteration it measured (us, max over the ranks); "
                           "NaN where its vector steps alone chose alg1 or gmres (the matvec not timed); "
                           "0 for the other solvers"),
    INFO_NUM(nullspace_inconsistency, "with a null space: ||Z^T b|| / ||b|| of the last solve's b (removed); "
                                      "0 without one"),
    INFO_NUM(rhs_norm, "||b||_2 of the last solve, the norm rel_residual is relative to (with a null space, of "
                       "b with its null-space component removed)"),
};
enum { INFO_COUNT = (int)(sizeof infos / sizeof infos[0]) };

int ovk_solver_info_count(void) { return INFO_COUNT; }
const char *ovk_solver_info_name(int i) { return i >= 0 && i < INFO_COUNT ? infos[i].key : NULL; }
const char *ovk_solver_info_help(int i) { return i >= 0 && i < INFO_COUNT ? infos[i].help : NULL; }
int ovk_solver_info_is_text(int i) { return i >= 0 && i < INFO_COUNT ? infos[i].text : -1; }

static int unknown_info(const char *fn, const char *key)
{
    char list[256] = "";
    for (int i = 0; i < INFO_COUNT; i++) ovk__list_add(list, sizeof list, ", ", infos[i].key);
    return ovk__fail(OVK_EINVAL, "%s: unknown key '%s'; keys: %s", fn, key ? key : "(null)", list);
}

/* the entry of key and s's last result, or the failure */
static int lookup(const ovk_solver *s, const char *fn, const char *key, const info_def **d, const char **field)
{
    const ovk_result *r = ovk__solver_last_result(s);
    if (!r) return ovk__fail(OVK_EINVAL, "%s: not a solver (NULL, destroyed or never created)", fn);
    for (int i = 0; key && i < INFO_COUNT; i++)
        if (!strcmp(infos[i].key, key)) {
            *d = &infos[i];
            *field = (const char *)r + infos[i].off;
            return OVK_OK;
        }
    return unknown_info(fn, key);
}

int ovk_solver_get_info(const ovk_solver *s, const char *key, double *value)
{
    const info_def *d = NULL;
    const char *field = NULL;
    if (!value) return ovk__fail(OVK_EINVAL, "ovk_solver_get_info: NULL value");
    int rc = lookup(s, "ovk_solver_get_info", key, &d, &field);
    if (rc) return rc;
    if (d->text) return ovk__fail(OVK_EINVAL, "ovk_solver_get_info: '%s' is text (ovk_solver_get_info_text)", key);
    memcpy(value, field, sizeof *value);
    return OVK_OK;
}

int ovk_solver_get_info_text(const ovk_solver *s, const char *key, char *buf, size_t len)
{
    const info_def *d = NULL;
    const char *field = NULL;
    if (!buf || len == 0) return ovk__fail(OVK_EINVAL, "ovk_solver_get_info_text: no buffer");
    int rc = lookup(s, "ovk_solver_get_info_text", key, &d, &field);
    if (rc) return rc;
    double v = 0.0;
    if (!d->text) memcpy(&v, field, sizeof v);
    int n = d->text ? snprintf(buf, len, "%.*s", (int)strnlen(field, d->len), field) : snprintf(buf, len, "%.17g", v);
    return n >= 0 && (size_t)n < len ? OVK_OK
                                     : ovk__fail(OVK_EINVAL, "ovk_solver_get_info_text: %s: buffer too short", key);
}

/* ---- the layout of the mirrored structs --------------------------------- */

typedef struct abi_field {
    const char *type, *field; /* field NULL: the whole type */
    size_t off, size;
} abi_field;

#define ABI_TYPE(T) {#T, NULL, 0, sizeof(T)}
#define ABI_FIELD(T, f) {#T, #f, offsetof(T, f), sizeof(((T *)0)->f)}
/* ovk_result under its name and its deprecated alias's (the bindings of 0.2 ask for that) */
#define ABI_RESULT(T) ABI_TYPE(T), ABI_FIELD(T, iterations), ABI_FIELD(T, rel_residual), ABI_FIELD(T, reason), \
    ABI_FIELD(T, reductions), ABI_FIELD(T, time_max), ABI_FIELD(T, time_mean), ABI_FIELD(T, lambda_min), \
    ABI_FIELD(T, lambda_max), ABI_FIELD(T, cond_est), ABI_FIELD(T, replacements), ABI_FIELD(T, restarts), \
    ABI_FIELD(T, history_len), ABI_FIELD(T, auto_latency_us), ABI_FIELD(T, auto_work_us), \
    ABI_FIELD(T, auto_choice), ABI_FIELD(T, nullspace_inconsistency), ABI_FIELD(T, rhs_norm)

static const abi_field abi[] = {
    ABI_RESULT(ovk_result),
    ABI_RESULT(ovk_pcg_result),
};

int ovk_abi_field(const char *type, const char *field, size_t *offset, size_t *size)
{
    if (!type || !offset || !size) return ovk__fail(OVK_EINVAL, "ovk_abi_field: NULL type or output");
    for (size_t i = 0; i < sizeof abi / sizeof abi[0]; i++) {
        if (strcmp(abi[i].type, type)) continue;
        if (field ? !abi[i].field || strcmp(abi[i].field, field) : abi[i].field != NULL) continue;
        *offset = abi[i].off;
        *size = abi[i].size;
        return OVK_OK;
    }
    return ovk__fail(OVK_EINVAL, "ovk_abi_field: %s%s%s is not a mirrored struct or field (ovk_result)", type,
                     field ? "." : "", field ? field : "");
}
