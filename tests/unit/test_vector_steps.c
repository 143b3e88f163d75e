/* Unit tests of the variants' vector steps (ovk__solver.vector_step, which
 * a variant choosing among others times) and of the blocks a variant is set
 * up on:
 *   - pipecg, plcg:l=1..4, with a diagonal and a general preconditioner, on
 *     a rank with rows and one without: the step runs on any set-up block,
 *     leaves x and the vectors finite (zero on zero vectors), and a failing
 *     preconditioner reaches the context as a failed callback;
 *   - ovk__variant_setup_on: the variant's vectors come out zeroed in the
 *     block handed over, grown or shrunk; a variant's block taken back
 *     (ovk__variant_take_block) survives it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "solvers/solver.h"

/* Preconditioners for the vector steps: C = diag(d) = 0.5 I, with its
 * diagonal and divisor (the fused kernels' paths), or the same as a general
 * apply only (the other paths), or a general one that fails */
enum { STEP_ROWS = 300 };
static double pc_d[STEP_ROWS], pc_a[STEP_ROWS];
static int pc_rows; /* the context's rows */

static int half_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    (void)state;
    (void)h;
    for (int i = 0; i < pc_rows; i++) z[i] = 0.5 * r[i];
    return OVK_OK;
}

static int failing_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    (void)state;
    (void)r;
    (void)z;
    (void)h;
    return ovk__fail(OVK_ECALLBACK, "test preconditioner");
}

static const double *half_diagonal(void *state)
{
    (void)state;
    return pc_d;
}

static const double *half_divisor(void *state)
{
    (void)state;
    return pc_a;
}

static const ovk__pc_type pc_diag = {.apply = half_apply, .diagonal = half_diagonal, .divisor = half_divisor};
static const ovk__pc_type pc_general = {.apply = half_apply};
static const ovk__pc_type pc_failing = {.apply = failing_apply};

/* spec's vector step on a new zeroed block of n rows with pc: *failed = the
 * context's callback status after it */
static void run_step(const char *spec, int n, const ovk__pc_type *type, int *failed)
{
    char name[32];
    ovk__opts o;
    void *params = NULL;
    ovk__pc pc = {type, NULL, "half"};
    ovk__ctx c = {.comm = MPI_COMM_WORLD, .n = n, .pc = &pc, .ops = &ovk__direct_ops};
    pc_rows = n;
    assert_int_equal(ovk__spec_parse("solver", OVK_EINVAL, spec, name, sizeof name, &o), OVK_OK);
    const ovk__solver *sv = ovk__solver_find(name);
    assert_non_null(sv);
    assert_non_null(sv->ops->vector_step);
    if (sv->ops->parse) assert_int_equal(sv->ops->parse(&o, &params), OVK_OK);
    c.params = params;
    ovk__variant v;
    assert_int_equal(ovk__variant_setup_on(&c, sv, &v, NULL), OVK_OK);
    double x[STEP_ROWS];
    for (int i = 0; i < STEP_ROWS; i++) x[i] = 1.0;
    assert_int_equal(sv->ops->vector_step(&c, v.work, x), OVK_OK);
    assert_int_equal(sv->ops->vector_step(&c, v.work, x), OVK_OK);
    *failed = c.cb.failed;
    if (!c.cb.failed) {
        for (int i = 0; i < STEP_ROWS; i++) assert_true(x[i] == 1.0); /* x += a p, p = 0 */
        size_t stride = ovk__vec_stride(n);
        int count = sv->ops->vectors ? sv->ops->vectors(params, NULL) : sv->ops->nvec;
        for (int k = 0; k < count; k++)
            for (int i = 0; i < n; i++) assert_true(v.block[stride * (size_t)k + (size_t)i] == 0.0);
    }
    ovk__variant_free(&v);
    free(params);
}

static void test_vector_steps(void **state)
{
    (void)state;
    static const char *const specs[] = {"pipecg", "plcg:l=1", "plcg:l=2", "plcg:l=3", "plcg:l=4"};
    const ovk__pc_type *const types[] = {&pc_diag, &pc_general};
    for (int i = 0; i < STEP_ROWS; i++) {
        pc_d[i] = 0.5;
        pc_a[i] = 2.0;
    }
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        int failed = 0;
        for (int t = 0; t < 2; t++) {
            run_step(specs[k], STEP_ROWS, types[t], &failed);
            assert_int_equal(failed, 0);
            run_step(specs[k], 0, types[t], &failed); /* a rank without rows */
            assert_int_equal(failed, 0);
        }
        run_step(specs[k], STEP_ROWS, &pc_failing, &failed);
        assert_int_equal(failed, OVK_ECALLBACK);
    }
}

/* a block of `vecs` vectors of n rows written with NaN, set up as alg1's (3
 * vectors): zeroed, in place of the caller's block or a new one */
static void check_setup_on(int n, int vecs)
{
    ovk__ctx c = {.comm = MPI_COMM_WORLD, .n = n, .ops = &ovk__direct_ops};
    const ovk__solver *sv = ovk__solver_find("alg1");
    assert_non_null(sv);
    size_t len = ovk__vec_stride(n) * (size_t)vecs;
    double *block = NULL;
    if (vecs > 0) {
        block = malloc(sizeof(double) * len);
        assert_non_null(block);
        for (size_t i = 0; i < len; i++) block[i] = NAN;
    }
    ovk__variant v;
    assert_int_equal(ovk__variant_setup_on(&c, sv, &v, block), OVK_OK);
    assert_ptr_equal(v.sv, sv);
    assert_ptr_equal(v.r, v.block);
    for (int k = 0; k < 3; k++) /* r, s, p: staggered strides apart */
        for (int i = 0; i < n; i++) assert_true(v.block[ovk__vec_stride(n) * (size_t)k + (size_t)i] == 0.0);
    double *kept = v.block;
    double *taken = ovk__variant_take_block(&v);
    assert_ptr_equal(taken, kept);
    assert_null(v.sv);
    assert_null(v.work);
    if (n > 0) taken[n - 1] = 1.0; /* still ours: ASan/valgrind catch a freed block */
    free(taken);
}

static void test_setup_on(void **state)
{
    (void)state;
    check_setup_on(1000, 4); /* shrunk: auto's probe block, alg1 chosen */
    check_setup_on(1000, 2); /* grown */
    check_setup_on(100000, 4); /* a block above malloc's mmap threshold */
    check_setup_on(1000, 0);   /* none: a new block */
    check_setup_on(0, 4);      /* a rank without rows */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_steps),
        cmocka_unit_test(test_setup_on),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return failed ? 1 : 0;
}
