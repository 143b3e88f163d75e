/* -ovk_help: every key of the solver's option table as the options
 * database spells it, with its current value, its range and its line of
 * help (all from the table in object_options.c: this file spells no key), under
 * the options that name a registry the names to choose from. */
#include <stdlib.h>
#include <string.h>

#include "option_table.h"

/* the solvers by name, and the keys of the one chosen (spec up to ':') */
static void solver_choices(const char *spec, FILE *f)
{
    char list[512], name[64];
    ovk__solver_names(list, sizeof list, 0);
    fprintf(f, "      available: %s\n", list);
    snprintf(name, sizeof name, "%.*s", (int)strcspn(spec, ":"), spec);
    const ovk__solver *sv = ovk__solver_find(name);
    if (!sv) return; /* an unknown name is the next setup's error */
    fprintf(f, "      %s: %s\n", sv->name, sv->description);
    fprintf(f, "      %s's keys: %s\n", sv->name, sv->keys[0] ? sv->keys : "none");
}

/* a number as its shortest text that reads back the same (1e-07, not
 * 9.9999999999999995e-08); other text as it is */
static void shortest(char *value, size_t len)
{
    char *end = NULL;
    double v = strtod(value, &end);
    if (!value[0] || *end || !strpbrk(value, ".eE")) return; /* not a number, or an integer */
    for (int digits = 1; digits <= 17; digits++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) {
            snprintf(value, len, "%s", buf);
            return;
        }
    }
}

/* a registry's listing (two-space indent) under the option's line */
static void indented(void (*print)(FILE *), FILE *f)
{
    char line[1024];
    FILE *tmp = tmpfile();
    if (!tmp) {
        print(f);
        return;
    }
    print(tmp);
    rewind(tmp);
    fprintf(f, "      available:\n");
    while (fgets(line, sizeof line, tmp)) fprintf(f, "    %s", line);
    fclose(tmp);
}

void ovk__solver_help(const ovk_solver *s, const char *prefix, FILE *f)
{
    char value[256], range[64];
    fprintf(f, "ovk_solver options (ovk_solver_set_from_options%s%s%s), current values in <>:\n",
            prefix[0] ? ", prefix \"" : "", prefix, prefix[0] ? "\"" : "");
    for (int i = 0; i < ovk_solver_option_count(); i++) {
        const char *key = ovk_solver_option_name(i);
        if (ovk_solver_get_option(s, key, value, sizeof value)) snprintf(value, sizeof value, "?");
        shortest(value, sizeof value);
        ovk__solver_option_range(i, range, sizeof range);
        fprintf(f, "  -%sovk_%s <%s>: %s (%s)\n", prefix, key, value, ovk_solver_option_help(i), range);
        switch (ovk__solver_option_role(i)) {
        case OVK__ROLE_SOLVER: solver_choices(value, f); break;
        case OVK__ROLE_PRECOND: indented(ovk_precond_print, f); break;
        case OVK__ROLE_BACKEND: indented(ovk_backend_print, f); break;
        default: break;
        }
    }
}
