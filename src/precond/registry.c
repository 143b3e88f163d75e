/* The preconditioners compiled into the library, by name, read from their
 * list (registry_list.h), and the helpers they share.  Adding one is one
 * new file exporting its ops (ovk__pc_type) and one entry in the list. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precond.h"

#define OVK__PC(name, alias, description, keys) extern const ovk__pc_type ovk__pc_##name;
#define OVK__PC_ABSENT(name, why)
#include "registry_list.h"
#undef OVK__PC
#undef OVK__PC_ABSENT

static const struct registered {
    const char *name, *alias, *description, *keys;
    const ovk__pc_type *ops;
} types[] = {
#define OVK__PC(name, alias, description, keys) {#name, alias, description, keys, &ovk__pc_##name},
#define OVK__PC_ABSENT(name, why)
#include "registry_list.h"
#undef OVK__PC
#undef OVK__PC_ABSENT
};

/* Preconditioners this build leaves out, and why (the message a user gets
 * who asks for one). */
static const struct absent {
    const char *name, *why;
} absent[] = {
#define OVK__PC(name, alias, description, keys)
#define OVK__PC_ABSENT(name, why) {#name, why},
#include "registry_list.h"
#undef OVK__PC
#undef OVK__PC_ABSENT
    {NULL, NULL},
};

enum { TYPE_COUNT = (int)(sizeof types / sizeof types[0]) };


static const struct registered *find(const char *name)
{
    for (int i = 0; i < TYPE_COUNT; i++)
        if (!strcmp(types[i].name, name) || (types[i].alias && !strcmp(types[i].alias, name))) return &types[i];
    return NULL;
}

static void names(char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < TYPE_COUNT; i++) ovk__list_add(buf, len, ", ", types[i].name);
}

int ovk__pc_create(const char *spec, ovk__pc *pc)
{
    char name[64], list[256];
    ovk__opts opts;
    memset(pc, 0, sizeof *pc);
    int rc = ovk__spec_parse("preconditioner", OVK_EINVAL, spec && *spec ? spec : "jacobi", name, sizeof name,
                             &opts);
    if (rc) return rc;
    const struct registered *t = find(name);
    for (int i = 0; !t && absent[i].name; i++)
        if (!strcmp(name, absent[i].name))
            return ovk__fail(OVK_EUNSUPPORTED, "preconditioner '%s' is not in this build: it %s", name, absent[i].why);
    if (!t) {
        names(list, sizeof list);
        return ovk__fail(OVK_EINVAL, "unknown preconditioner '%s'; available: %s", name, list);
    }
    rc = t->ops->create(&opts, &pc->state);
    if (rc) goto cleanup;
    rc = ovk__opts_check_unused(&opts, t->name, t->keys);
    if (rc) goto cleanup;
    pc->type = t->ops;
    pc->name = t->name;
    return OVK_OK;
cleanup:
    if (pc->state) t->ops->destroy(pc->state);
    pc->state = NULL;
    return rc;
}

int ovk_precond_type_count(void) { return TYPE_COUNT; }

const char *ovk_precond_type_name(int index) { return index >= 0 && index < TYPE_COUNT ? types[index].name : NULL; }

void ovk_precond_print(FILE *f)
{
    for (int i = 0; i < TYPE_COUNT; i++) {
        fprintf(f, "  %-11s %s\n", types[i].name, types[i].description);
        if (types[i].keys[0]) fprintf(f, "  %-11s options: %s\n", "", types[i].keys);
    }
    for (int i = 0; absent[i].name; i++)
        fprintf(f, "  %-11s [not in this build: it %s]\n", absent[i].name, absent[i].why);
}

void ovk__pc_destroy(ovk__pc *pc)
{
    if (pc->type && pc->state) pc->type->destroy(pc->state);
    memset(pc, 0, sizeof *pc);
}

int ovk__pc_diag_check(const ovk_matrix *A, const char *who) { return ovk__pc_diag_check_sign(A, who, 0); }

int ovk__pc_diag_check_sign(const ovk_matrix *A, const char *who, int any_sign)
{
    int rc = OVK_OK;
    for (int i = 0; i < A->lay.nlocal; i++) {
        double d = A->diagonal[i];
        if (i == A->first_missing_diag) { /* the first row failing: none before it lacks one */
            rc = ovk__fail(OVK_EZERODIAG, "row %lld: no diagonal entry is stored (%s needs a_ii %s)",
                           ovk__row_id(&A->lay, i), who, any_sign ? "!= 0" : "> 0");
            break;
        }
        if (any_sign ? d == 0.0 : !(d > 0.0)) {
            rc = ovk__fail(OVK_EZERODIAG, "row %lld: diagonal entry is %g (%s needs a_ii %s)",
                           ovk__row_id(&A->lay, i), d, who, any_sign ? "!= 0" : "> 0");
            break;
        }
        if (!isnormal(any_sign ? fabs(d) : d)) { /* subnormal: 1/a_ii overflows, or nearly */
            rc = ovk__fail(OVK_EZERODIAG,
                           "row %lld: diagonal entry %g is too small to divide by (%s needs 1/a_ii finite; "
                           "rescale the equations)",
                           ovk__row_id(&A->lay, i), d, who);
            break;
        }
    }
    return ovk__agree(A->lay.comm, rc);
}

int ovk__pc_alloc(int n, const char *who, double **v)
{
    *v = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    return *v ? OVK_OK : ovk__fail(OVK_ENOMEM, "%s: %d rows", who, n);
}

int ovk__pc_zeroed_state(size_t size, const char *who, void **state)
{
    *state = calloc(1, size);
    return *state ? OVK_OK : ovk__fail(OVK_ENOMEM, "%s", who);
}
