/* libFuzzer target of the Matrix Market reader.  Each input is written to a
 * file and read the two ways the library reads files: collectively
 * (ovk_mm_read on MPI_COMM_SELF: parse, symmetry check, ovk_matrix_create_csr)
 * and serially (ovk_mm_read_rows: all rows, then a window of rows at an
 * offset taken from the input).  Any status is fine; a crash, a sanitizer
 * report, a hang or an allocation beyond -malloc_limit_mb is a bug.
 *
 * The reader is given a stated budget (ovk__mem_cap, FUZZ_BUDGET_MB): size
 * lines whose row share exceeds it must be refused with OVK_ENOMEM before
 * anything is allocated, so no allocation may approach -malloc_limit_mb
 * (tests/fuzz/run.sh sets it above the budget). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix/matrix_impl.h"

#define FUZZ_BUDGET_MB 256

static char path[64];

/* MPI is not finalized: the MPI library's own allocations then stay in its
 * still-loaded modules, where the leak suppressions name them. */
static void finish(void) { unlink(path); }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    snprintf(path, sizeof path, "/tmp/ovk_fuzz_mmread_%d.mtx", (int)getpid());
    ovk__mem_cap = (size_t)FUZZ_BUDGET_MB << 20;
    atexit(finish);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);

    ovk_matrix *A = NULL;
    int rc = ovk_mm_read(MPI_COMM_SELF, path, &A);
    if ((rc == OVK_OK) != (A != NULL)) abort(); /* a matrix exactly on success */
    if (A && ovk_matrix_nlocal(A) != ovk_matrix_nglobal(A)) abort();
    ovk_matrix_destroy(A);

    ovk_gidx n = 0;
    int nl = 0, *rowptr = NULL;
    ovk_gidx *cols = NULL;
    double *vals = NULL;
    rc = ovk_mm_read_rows(path, 0, -1, &n, &nl, &rowptr, &cols, &vals);
    if (rc == OVK_OK) {
        if (nl != n || rowptr[0] != 0) abort();
        for (int i = 0; i < nl; i++)
            for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
                if (cols[k] < 0 || cols[k] >= n || (k > rowptr[i] && cols[k] <= cols[k - 1])) abort();
    }
    free(rowptr);
    free(cols);
    free(vals);
    rowptr = NULL;
    cols = NULL;
    vals = NULL;
    /* a window of 3 rows at an offset from the last 8 bytes of the input */
    uint64_t off = 0;
    if (size >= 8) memcpy(&off, data + size - 8, 8);
    rc = ovk_mm_read_rows(path, (ovk_gidx)(off >> 1), 3, &n, &nl, &rowptr, &cols, &vals);
    if (rc == OVK_OK && (nl != 3 || rowptr[0] != 0 || rowptr[3] < 0)) abort();
    free(rowptr);
    free(cols);
    free(vals);
    return 0;
}
