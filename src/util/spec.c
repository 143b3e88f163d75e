/* Spec strings "name[:key=value,...]", shared by the backend, solver and
 * preconditioner registries: the split into name and options, typed option
 * reads, and the refusal of options nobody read. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

int ovk__spec_parse(const char *kind, int bad_name_code, const char *spec, char *name, size_t name_len,
                    ovk__opts *o)
{
    memset(o, 0, sizeof *o);
    snprintf(o->kind, sizeof o->kind, "%s", kind);
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    if (n == 0 || n >= name_len)
        return ovk__fail(bad_name_code, "bad %s spec '%s' (want name[:key=value,...])", kind, spec);
    memcpy(name, spec, n);
    name[n] = '\0';
    const char *p = colon ? colon + 1 : NULL;
    if (p && !*p)
        return ovk__fail(OVK_EOPTION, "%s %s: the spec '%s' ends with ':' and no options (write %s, or "
                                      "%s:key=value)", kind, name, spec, name, name);
    while (p && *p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq || eq == p)
            return ovk__fail(OVK_EOPTION, "%s %s: option '%.*s' is not key=value", kind, name, (int)len, p);
        for (size_t i = 0; i < len; i++) /* strtol and strtod would skip it in a value */
            if (isspace((unsigned char)p[i]))
                return ovk__fail(OVK_EOPTION, "%s %s: white space in option '%.*s' (write key=value)", kind, name,
                                 (int)len, p);
        if (comma && !comma[1])
            return ovk__fail(OVK_EOPTION, "%s %s: the options '%s' end with a comma", kind, name, colon + 1);
        size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
        if (vlen == 0) /* fieldsplit's 0= took jacobi, not field 0's default */
            return ovk__fail(OVK_EOPTION, "%s %s: option '%.*s' has no value (leave the option out for its default)",
                             kind, name, (int)len, p);
        if (o->n == OVK__MAX_OPTS || klen >= sizeof o->kv[0].key || vlen >= sizeof o->kv[0].val)
            return ovk__fail(OVK_EOPTION, "%s %s: too many or too long options", kind, name);
        memcpy(o->kv[o->n].key, p, klen);
        memcpy(o->kv[o->n].val, eq + 1, vlen);
        for (int i = 0; i < o->n; i++)
            if (!strcmp(o->kv[i].key, o->kv[o->n].key))
                return ovk__fail(OVK_EOPTION, "%s %s: option '%s' is given twice ('%s' and '%s'); give it once",
                                 kind, name, o->kv[i].key, o->kv[i].val, o->kv[o->n].val);
        o->n++;
        p = comma ? comma + 1 : NULL;
    }
    return OVK_OK;
}

static const char *opt_find(ovk__opts *o, const char *key)
{
    for (int i = 0; i < o->n; i++) {
        if (strcmp(o->kv[i].key, key) == 0) {
            o->kv[i].used = 1;
            return o->kv[i].val;
        }
    }
    return NULL;
}

int ovk__opt_int(ovk__opts *o, const char *owner, const char *key, long lo, long hi, long *val)
{
    const char *s = opt_find(o, key);
    if (!s) return OVK_OK;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi)
        return ovk__fail(OVK_EOPTION, "%s %s: option %s=%s must be an integer in [%ld, %ld]", o->kind, owner,
                         key, s, lo, hi);
    *val = v;
    return OVK_OK;
}

int ovk__opt_double(ovk__opts *o, const char *owner, const char *key, double lo, double hi, double *val)
{
    const char *s = opt_find(o, key);
    if (!s) return OVK_OK;
    char *end = NULL;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || !isfinite(v) || v < lo || v > hi)
        return ovk__fail(OVK_EOPTION, "%s %s: option %s=%s must be a number in [%g, %g]", o->kind, owner, key,
                         s, lo, hi);
    *val = v;
    return OVK_OK;
}

int ovk__opt_choice(ovk__opts *o, const char *owner, const char *key, const char *const *choices, int *index)
{
    const char *s = opt_find(o, key);
    if (!s) return OVK_OK;
    char list[256] = "";
    for (int i = 0; choices[i]; i++) {
        if (strcmp(s, choices[i]) == 0) {
            *index = i;
            return OVK_OK;
        }
        ovk__list_add(list, sizeof list, "|", choices[i]);
    }
    return ovk__fail(OVK_EOPTION, "%s %s: option %s=%s is not one of %s", o->kind, owner, key, s, list);
}

void ovk__list_add(char *buf, size_t len, const char *sep, const char *item)
{
    strncat(buf, buf[0] ? sep : "", len - strlen(buf) - 1);
    strncat(buf, item, len - strlen(buf) - 1);
}

static int read_entry(ovk__opts *o, const char *owner, const ovk__opt_entry *e)
{
    if (e->choices) return ovk__opt_choice(o, owner, e->key, e->choices, e->index);
    if (e->dval) return ovk__opt_double(o, owner, e->key, e->dlo, e->dhi, e->dval);
    return ovk__opt_int(o, owner, e->key, e->lo, e->hi, e->ival);
}

int ovk__opts_read(ovk__opts *o, const char *owner, const ovk__opt_entry *t, int n)
{
    for (int i = 0; i < n; i++) {
        int rc = read_entry(o, owner, &t[i]);
        if (rc) return rc;
    }
    return OVK_OK;
}

int ovk__opts_check_unused(const ovk__opts *o, const char *owner, const char *help)
{
    for (int i = 0; i < o->n; i++)
        if (!o->kv[i].used)
            return ovk__fail(OVK_EOPTION, "%s %s has no option '%s'; its options: %s", o->kind, owner,
                             o->kv[i].key, help && help[0] ? help : "none");
    return OVK_OK;
}
