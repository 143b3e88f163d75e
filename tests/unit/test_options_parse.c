/* Unit tests (one rank, MPI_COMM_SELF) of the options database's parsing:
 * which options may stand without a value (the flags of the solver's
 * table), a value missing at the end of the words or before another name,
 * numbers with white space, negative numbers taken as values, too-long
 * text values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "solvers/solver.h"

/* a solver on a 2x2 diagonal matrix of MPI_COMM_SELF */
static ovk_matrix *A2;

static ovk_solver *new_solver(void)
{
    ovk_solver *s = NULL;
    assert_int_equal(ovk_solver_create(A2, &s), OVK_OK);
    return s;
}

/* set_from_options on the words (the program name first) */
static int read_words(ovk_solver *s, int argc, const char *const *words)
{
    char *argv[16];
    for (int i = 0; i < argc; i++) argv[i] = (char *)words[i];
    assert_int_equal(ovk_options_set_args(argc, argv), OVK_OK);
    int rc = ovk_solver_set_from_options(s, NULL);
    ovk_options_clear();
    return rc;
}

static void test_flags_declared(void **state)
{
    (void)state;
    int flags = 0;
    for (int i = 0; i < ovk__solver_option_count(); i++) {
        const char *key = ovk__solver_option_key(i);
        int want = !strcmp(key, "condest") || !strcmp(key, "initial_guess_zero") || !strcmp(key, "monitor") ||
                   !strcmp(key, "monitor_true") || !strcmp(key, "view") || !strcmp(key, "converged_reason") ||
                   !strcmp(key, "log_view") || !strcmp(key, "assume_symmetric");
        assert_int_equal(ovk__solver_option_is_flag(i), want);
        flags += want;
    }
    assert_int_equal(flags, 8);
    assert_int_equal(ovk__solver_option_is_flag(-1), 0);
    assert_int_equal(ovk__solver_option_is_flag(ovk__solver_option_count()), 0);
}

static void test_missing_values(void **state)
{
    (void)state;
    ovk_solver *s = new_solver();
    char buf[64];
    for (int i = 0; i < ovk__solver_option_count(); i++) {
        char name[64];
        snprintf(name, sizeof name, "-ovk_%s", ovk__solver_option_key(i));
        int rc = read_words(s, 2, (const char *const[]){"prog", name});
        if (ovk__solver_option_is_flag(i)) {
            assert_int_equal(rc, OVK_OK);
            assert_int_equal(ovk_solver_get_option(s, ovk__solver_option_key(i), buf, sizeof buf), OVK_OK);
            assert_string_equal(buf, "1");
            assert_int_equal(ovk_solver_set_option(s, ovk__solver_option_key(i), "0"), OVK_OK);
        } else {
            assert_int_equal(rc, OVK_EOPTION);
            assert_non_null(strstr(ovk_error_detail(), name));
            assert_non_null(strstr(ovk_error_detail(), "no value given"));
        }
    }
    /* before another name: no value either */
    assert_int_equal(read_words(s, 3, (const char *const[]){"prog", "-ovk_rtol", "-ovk_monitor"}), OVK_EOPTION);
    /* a negative number is a value, not a name */
    assert_int_equal(read_words(s, 3, (const char *const[]){"prog", "-ovk_replace_every", "-1"}), OVK_OK);
    assert_int_equal(ovk_solver_get_option(s, "replace_every", buf, sizeof buf), OVK_OK);
    assert_string_equal(buf, "-1");
    /* from $OVK_OPTIONS: the same, named as coming from there */
    setenv("OVK_OPTIONS", "-ovk_max_it", 1);
    assert_int_equal(read_words(s, 1, (const char *const[]){"prog"}), OVK_EOPTION);
    assert_non_null(strstr(ovk_error_detail(), "$OVK_OPTIONS"));
    unsetenv("OVK_OPTIONS");
    ovk_solver_destroy(&s);
}

static void test_number_spaces(void **state)
{
    (void)state;
    ovk_solver *s = new_solver();
    static const char *const bad[] = {" 5", "5 ", "\t5", "", "5x", "0x"};
    for (int i = 0; i < (int)(sizeof bad / sizeof *bad); i++) {
        assert_int_equal(ovk_solver_set_option(s, "max_it", bad[i]), OVK_EOPTION);
        assert_int_equal(ovk_solver_set_option(s, "atol", bad[i]), OVK_EOPTION);
    }
    assert_int_equal(ovk_solver_set_option(s, "max_it", "5"), OVK_OK);
    assert_int_equal(ovk_solver_set_option(s, "atol", "1e-3"), OVK_OK);
    ovk_solver_destroy(&s);
}

static void test_long_text(void **state)
{
    (void)state;
    ovk_solver *s = new_solver();
    char long_value[300];
    memset(long_value, 'a', sizeof long_value - 1);
    long_value[sizeof long_value - 1] = '\0';
    assert_int_equal(ovk_solver_set_option(s, "nullspace", "constantconstant"), OVK_EOPTION);
    assert_non_null(strstr(ovk_error_detail(), "none | constant"));
    assert_int_equal(ovk_solver_set_option(s, "solver", long_value), OVK_EOPTION);
    assert_non_null(strstr(ovk_error_detail(), "name[:key=value,...]"));
    ovk_solver_destroy(&s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rowptr[] = {0, 1, 2};
    ovk_gidx cols[] = {0, 1};
    double vals[] = {2.0, 3.0};
    if (ovk_matrix_create_csr(MPI_COMM_SELF, 0, 2, rowptr, cols, vals, OVK_DUP_REJECT, &A2)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flags_declared),
        cmocka_unit_test(test_missing_values),
        cmocka_unit_test(test_number_spaces),
        cmocka_unit_test(test_long_text),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    ovk_matrix_destroy(A2);
    MPI_Finalize();
    return failed ? 1 : 0;
}
