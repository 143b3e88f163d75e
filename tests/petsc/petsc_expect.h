/* The PETSc tests' check: a failed condition prints "FAIL: ..." once (rank
 * 0) and counts; main returns fails ? 1 : 0. */
#ifndef OVK_TESTS_PETSC_EXPECT_H
#define OVK_TESTS_PETSC_EXPECT_H

#include <petscsys.h>

static int fails;

#define EXPECT(cond, ...)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: " __VA_ARGS__)); \
            fails++;                                                        \
        }                                                                   \
    } while (0)

#endif
