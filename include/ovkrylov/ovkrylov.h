/* ovkrylov: MPI Krylov solvers that hide the latency of global reductions.
 *
 * Include this header to get the whole public API:
 *   error.h     status codes, ovk_strerror
 *   matrix.h    distributed CSR matrices and vectors
 *   reduce.h    split-phase reductions, the backend registry, the latency model
 *   pcg.h       ovk_solve (one call), its options and the result every solve reports
 *   solver.h    the solver object: set up once, solve many times
 *   problems.h  Laplacian generators, Matrix Market input
 *
 * Not included: testing.h, the testing component (noise injection for
 * benchmarks), a separate library (libovkrylov_testing).
 */
#ifndef OVKRYLOV_H
#define OVKRYLOV_H

/* The version's one source: CMake reads it (the pkg-config files' too); the Python package's
 * copy and ovk_version() are checked against it (ctest version_agrees, unit_test_core). */
#define OVK_VERSION_MAJOR 0
#define OVK_VERSION_MINOR 3
#define OVK_VERSION_PATCH 0

#include "error.h"
#include "matrix.h"
#include "pcg.h"
#include "problems.h"
#include "reduce.h"
#include "solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, "MAJOR.MINOR.PATCH" of the library that runs (the
 * macros above are those of the header compiled against).  Local. */
const char *ovk_version(void);

#ifdef __cplusplus
}
#endif

#endif
