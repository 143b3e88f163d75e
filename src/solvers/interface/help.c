/* -ovk_help: every key of the solver's option table as the options
 * database spells it, with its current value, its range and one line of
 * meaning, then the solvers, preconditioners and backends to choose from. */
#include <stdlib.h>
#include <string.h>

#include "../solver.h"

/* one line of meaning per key of the option table (object.c) */
static const struct {
    const char *key, *meaning;
} meanings[] = {
    {"solver", "the Krylov variant"},
    {"backend", "the reduction backend (default $" OVK_BACKEND_ENV ", else " OVK_BACKEND_DEFAULT ")"},
    {"precond", "the preconditioner"},
    {"rtol", "converged when ||r|| < max(rtol ||b||, atol)"},
    {"atol", "absolute tolerance (see rtol)"},
    {"divtol", "diverged when ||r|| > divtol ||r0||; 0: off (PETSc's default is 1e4)"},
    {"max_it", "iteration limit"},
    {"print_level", "0: quiet; 1: a line per solve; 2: ||r|| every iteration too (rank 0)"},
    {"progress_every", "rows between progress calls in long kernels; 0: the default, -1: never"},
    {"condest", "1: estimate the extreme eigenvalues of C A from the CG coefficients"},
    {"replace_every", "cg1, pipecg residual replacement: 0 automatic, k every k iterations, < 0 never"},
    {"initial_guess_zero", "1: x0 = 0 whatever x holds (r0 = b without a product)"},
    {"monitor", "1: rank 0 prints ||r|| every iteration (no reduction more)"},
    {"monitor_true", "1: and the true ||b - A x|| (one product and one blocking reduction more each)"},
    {"view", "1: rank 0 prints the configuration after each setup"},
    {"converged_reason", "1: rank 0 prints why each solve stopped"},
    {"log_view", "1: rank 0 prints where the time went when the solver is destroyed"},
    {"nullspace", "constant: the constant vector is A's null space (a singular A, e.g. pure Neumann); none"},
    {"many_group", "solve_many: systems whose vector updates run together between products; 0: as fit the cache"},
};

static const char *meaning_of(const char *key)
{
    for (size_t i = 0; i < sizeof meanings / sizeof meanings[0]; i++)
        if (!strcmp(meanings[i].key, key)) return meanings[i].meaning;
    return "(no description: add one to help.c)";
}

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
    fprintf(f, "      %s's keys: %s\n", sv->name, sv->options[0] ? sv->options : "none");
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
    for (int i = 0; i < ovk__solver_option_count(); i++) {
        const char *key = ovk__solver_option_key(i);
        if (ovk_solver_get_option(s, key, value, sizeof value)) snprintf(value, sizeof value, "?");
        shortest(value, sizeof value);
        ovk__solver_option_range(i, range, sizeof range);
        fprintf(f, "  -%sovk_%s <%s>: %s (%s)\n", prefix, key, value, meaning_of(key), range);
        if (!strcmp(key, "solver")) solver_choices(value, f);
        else if (!strcmp(key, "precond")) indented(ovk_precond_print, f);
        else if (!strcmp(key, "backend")) indented(ovk_backend_print, f);
    }
    fprintf(f, "  -ovk_options_left <0|1>: at ovk_options_finalize, 0: no warning for options nobody read; "
               "1: say also when every option was used\n");
}
