/* ovk_kernel_bench: a roofline of the solvers' kernels and iterations.
 *
 * Every kernel (the matvec in each storage form, the vector updates and
 * dot products, the solvers' fused updates) and every solver's whole
 * iteration is measured against two limits taken in the same run:
 *
 *   - the STREAM triad a = b + s c over the SAME working-set size per rank
 *     (three arrays of ws/24 doubles each, ws = the distinct bytes the item
 *     touches): a cache-resident kernel is compared with a cache-resident
 *     triad, a kernel that spills to DRAM with a triad that spills as much;
 *   - the DRAM triad (three arrays of -dram MiB each per rank).
 *
 * A third limit for the matvec, the compute one: "runs, x in L1" applies
 * the Laplacian's shared row (the run kernel, the matvec's additions) to as
 * many rows as the matvec has, all from one L1-resident window of x; its
 * WS triad is the smallest one (24 KiB).  When the matvec takes about its
 * time, the additions bound it, not the memory.
 *
 * The matrix is the 27-point Laplacian on a per-rank box of -n^3 rows (the
 * ranks side by side in x, as `ovk_laplace27 -n N N N -P P 1 1`), so the
 * vectors have that rank's nlocal rows.  -n 0: no matrix, vectors of -N rows
 * (the vector kernels only, as the earlier version of this program); -N
 * without -n implies -n 0.
 *
 * Bytes are exact per call: 8 per double read plus 8 per double written
 * (write-allocate traffic not counted, as STREAM counts), and for the
 * matvec ovk__matvec_bytes (rowptr, column offsets, the values as the
 * matvec reads them, x, y, the offd block, the halo packing).  GB/s are
 * aggregate over the ranks: ranks * bytes / time, GB = 1e9 B.
 *
 * Timing: each measurement runs an item `calls` times back to back (calls
 * chosen at start-up so that one measurement takes about -min_ms, the same
 * on every rank), between MPI_Barriers; its time is the slowest rank's
 * (MPI_MAX).  Each repeat measures every item and, right after it, its
 * working-set triad, then the DRAM triad, so that the slow drifts of a
 * shared machine hit them alike; figures are medians over the repeats (one
 * warm-up repeat discarded).  After the DRAM triad every item runs once
 * more, untimed: without it the first items of the next repeat ran up to
 * 1.5x slower than the same kernel later in the repeat.
 * -clock cpu times with the thread's CPU clock instead of the wall clock:
 * on a machine loaded by other work it leaves out the time the rank was
 * descheduled (the halo's waits spin in Open MPI and still count).  The percentages are the medians of the
 * per-repeat ratios of an item's bandwidth to that of the triad measured
 * right after it (paired: a slow phase of the machine cancels out).  The progress hook is installed as the solvers
 * install it (a call every -every rows to a function that does nothing).
 *
 * Usage: mpiexec -n P ovk_kernel_bench [-n edge] [-N rows] [-repeat R] [-every K] [-dram MiB] [-min_ms T]
 *                                      [-clock wall|cpu] [-only PREFIX] [-aligned]
 * (defaults: -n 40, -N 1048576, -repeat 10, -every 8192, -dram 64, -min_ms 2)
 *
 * -aligned: every vector starts on a page (as calloc places them) instead
 * of the staggered block of ovk__ctx_alloc_block.
 */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/common/experiment.h"
#include "bench_common.h"
#include "kernel/items.h"

enum { NITEMS = OVK_KB_ITEMS };

enum { EXIT_USAGE = 2, EXIT_RUNTIME = 1 };
enum { DEFAULT_EDGE = 40, DEFAULT_ROWS = 1 << 20, DEFAULT_REPEAT = 10, DEFAULT_EVERY = 8192 };
#define DEFAULT_DRAM_MIB 64.0
#define DEFAULT_MIN_MS 2.0
#define INT_LIMIT ((long)INT_MAX)
#define TRIAD_SCALE 0.5
#define TRIAD_BYTES 24.0   /* per element: two reads, one write */
#define MIN_TRIAD_N 1024   /* the smallest twin triad: 3 x 8 KiB */
#define KIB 1024.0
#define MIB 1048576.0
#define GIGA 1e-9
#define SINK_NEVER 12345.678 /* a sum the kernels never make */

static int use_cpu_clock; /* -clock cpu: this thread's CPU time instead of the wall clock */

static double now(void) { return use_cpu_clock ? ovk_bench_cpu_s() : MPI_Wtime(); }

/* ---- timing -------------------------------------------------------------- */

typedef struct triad {
    double *a, *b, *c;
    size_t n;
} triad;

/* a triad over three arrays of n doubles inside buf */
static triad triad_in(double *buf, size_t n) { return (triad){buf, buf + n, buf + 2 * n, n}; }

/* the twin triad's array length for a working set of ws bytes (at least MIN_TRIAD_N) */
static size_t twin_n(double ws) { return (size_t)(ws / TRIAD_BYTES > MIN_TRIAD_N ? ws / TRIAD_BYTES : MIN_TRIAD_N); }

/* seconds of `calls` runs of item k (or of triad t when k < 0), slowest rank */
static double timed(kb_items *b, int k, const triad *t, long calls)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    if (k >= 0) ovk_kb_run(b, k, calls);
    for (long c = 0; k < 0 && c < calls; c++) ovk_bench_triad(t->a, t->b, t->c, TRIAD_SCALE, t->n);
    return ovk_bench_slowest(now() - t0);
}

/* calls that take about min_s (the same on every rank) */
static long calibrate(kb_items *b, int k, const triad *t, double min_s)
{
    enum { PROBE_CALLS = 3, FALLBACK_CALLS = 1000 };
    timed(b, k, t, 1); /* warm */
    double one = timed(b, k, t, PROBE_CALLS) / PROBE_CALLS;
    long calls = one > 0 ? (long)(min_s / one) + 1 : FALLBACK_CALLS;
    MPI_Bcast(&calls, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    return calls;
}

/* median of n values, v left in its order */
static double med(const double *v, int n)
{
    double c[n];
    memcpy(c, v, sizeof c);
    return ovk_bench_median(c, n);
}

/* ---- the sweep: every item and its twin triad per repeat, then the DRAM triad */

typedef struct opts {
    int edge, n, repeat, every, aligned;
    double dram_mib, min_ms;
    const char *only; /* run the items whose name starts with this (NULL: all) */
} opts;

/* the measurements of one sweep; t[k] and tw[k] hold R + 1 times (warm-up first) */
typedef struct sweep {
    int R, on[NITEMS];       /* the items that run */
    double maxws;            /* the largest working set, bytes */
    triad twin[NITEMS], dram;
    long calls[NITEMS], wcalls[NITEMS], dcalls;
    double *t, *tw, *td;     /* one block */
    double *twsbuf, *dbuf;   /* the triads' arrays */
} sweep;

/* the items -only and the matrix allow, their largest working set */
static void choose_items(const kb_items *b, const opts *o, sweep *r)
{
    r->maxws = 0.0;
    for (int k = 0; k < NITEMS; k++) {
        double bytes, ws;
        const char *name = ovk_kb_name(k);
        r->on[k] = (!ovk_kb_needs_matrix(k) || o->edge > 0) && (!o->only || !strncmp(name, o->only, strlen(o->only)));
        if (!r->on[k]) continue;
        ovk_kb_bytes(b, k, &bytes, &ws);
        if (ws > r->maxws) r->maxws = ws;
    }
}

/* the triads' arrays (ones) and the time arrays */
static int alloc_sweep(const opts *o, sweep *r)
{
    size_t dn = (size_t)(o->dram_mib * MIB / sizeof(double)), wn = 3 * twin_n(r->maxws);
    r->R = o->repeat;
    r->twsbuf = malloc(sizeof(double) * wn);
    r->dbuf = malloc(sizeof(double) * 3 * dn);
    r->t = calloc((size_t)(2 * NITEMS + 1) * (r->R + 1), sizeof(double));
    if (!r->twsbuf || !r->dbuf || !r->t) return OVK_ENOMEM;
    r->tw = r->t + NITEMS * (r->R + 1);
    r->td = r->tw + NITEMS * (r->R + 1);
    for (size_t i = 0; i < wn; i++) r->twsbuf[i] = 1.0;
    for (size_t i = 0; i < 3 * dn; i++) r->dbuf[i] = 1.0;
    r->dram = triad_in(r->dbuf, dn);
    return OVK_OK;
}

static void free_sweep(sweep *r)
{
    free(r->twsbuf);
    free(r->dbuf);
    free(r->t); /* tw and td with it */
}

/* calls per measurement of every item, its twin triad and the DRAM triad */
static void calibrate_all(kb_items *b, const opts *o, sweep *r)
{
    double min_s = o->min_ms * 1e-3;
    for (int k = 0; k < NITEMS; k++) {
        if (!r->on[k]) continue;
        double bytes, ws;
        ovk_kb_bytes(b, k, &bytes, &ws);
        r->twin[k] = triad_in(r->twsbuf, twin_n(ws));
        r->calls[k] = calibrate(b, k, NULL, min_s);
        r->wcalls[k] = calibrate(b, -1, &r->twin[k], min_s);
    }
    r->dcalls = calibrate(b, -1, &r->dram, min_s);
}

/* R + 1 repeats (the first a warm-up): each item, then its twin triad; the
 * DRAM triad; every item once more, untimed, to settle after the DRAM sweep */
static void measure_all(kb_items *b, sweep *r)
{
    int R = r->R;
    for (int rep = 0; rep <= R; rep++) {
        for (int k = 0; k < NITEMS; k++) {
            if (!r->on[k]) continue;
            r->t[k * (R + 1) + rep] = timed(b, k, NULL, r->calls[k]);
            r->tw[k * (R + 1) + rep] = timed(b, -1, &r->twin[k], r->wcalls[k]);
        }
        r->td[rep] = timed(b, -1, &r->dram, r->dcalls);
        for (int k = 0; k < NITEMS; k++)
            if (r->on[k]) timed(b, k, NULL, r->calls[k]);
    }
}

/* ---- the report ------------------------------------------------------------ */

/* one item's line: medians of its time and its twin's, and the medians of
 * the per-repeat ratios to its twin triad and to the DRAM triad */
static void report_item(const kb_items *b, const sweep *r, int size, int k)
{
    int R = r->R;
    const double *t = r->t + k * (R + 1), *tw = r->tw + k * (R + 1);
    double bytes, ws, pair[R], dpair[R];
    ovk_kb_bytes(b, k, &bytes, &ws);
    double ws_n = (double)twin_n(ws);
    double tk = med(t + 1, R) / r->calls[k], tt = med(tw + 1, R) / r->wcalls[k];
    double gbs = size * bytes / tk * GIGA, tri = size * TRIAD_BYTES * ws_n / tt * GIGA;
    for (int rep = 1; rep <= R; rep++) {
        double ik = t[rep] / r->calls[k] / bytes, iw = tw[rep] / r->wcalls[k] / (TRIAD_BYTES * ws_n);
        pair[rep - 1] = iw / ik;
        dpair[rep - 1] = r->td[rep] / r->dcalls / (TRIAD_BYTES * (double)r->dram.n) / ik;
    }
    printf("%-26s %8.1f %8.0f %10.2f %8.2f %9.2f %7.1f%% %7.1f%%\n", ovk_kb_name(k), bytes / ovk_kb_rows(b), ws / KIB,
           tk * 1e6, gbs, tri, 100.0 * ovk_bench_median(pair, R), 100.0 * ovk_bench_median(dpair, R));
}

static void report(const kb_items *b, const opts *o, const sweep *r, int size)
{
    double tdm = med(r->td + 1, r->R) / r->dcalls;
    printf("DRAM triad (3 x %.0f MiB per rank): %.2f GB/s\n", o->dram_mib,
           size * TRIAD_BYTES * (double)r->dram.n / tdm * GIGA);
    printf("%-26s %8s %8s %10s %8s %9s %8s %8s\n", "item", "B/row", "WS KiB", "us/call", "GB/s", "WS-triad",
           "%WS-tri", "%DRAM");
    for (int k = 0; k < NITEMS; k++)
        if (r->on[k]) report_item(b, r, size, k);
}

static void print_header(const kb_items *b, const opts *o, int size)
{
    printf("ovk_kernel_bench: %d ranks, %s%d rows per rank, packed values: %s, %d repeats (+1 warm-up), "
           "about %.1f ms per measurement, hook every %d rows, %s clock; medians, slowest rank\n",
           size, o->edge ? "27-point Laplacian, " : "", ovk_kb_rows(b), ovk_kb_value_form(b), o->repeat, o->min_ms,
           o->every,
           use_cpu_clock ? "thread CPU" : "wall");
}

/* ---- the command line and main -------------------------------------------- */

/* 0, or 1 on a bad flag or value */
static int parse(int argc, char **argv, opts *o)
{
    int edge_given = 0; /* -N alone: the vector kernels alone (-n 0) */
    long x = 0;
    double d = 0.0;
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(f, "-aligned")) {
            o->aligned = 1;
            continue;
        }
        if (!v) return 1;
        i++;
        if (!strcmp(f, "-n") && !ovk_bench_long(v, 0, INT_LIMIT, &x)) o->edge = (int)x, edge_given = 1;
        else if (!strcmp(f, "-N") && !ovk_bench_long(v, 1, INT_LIMIT, &x))
            o->n = (int)x, o->edge = edge_given ? o->edge : 0;
        else if (!strcmp(f, "-repeat") && !ovk_bench_long(v, 1, INT_LIMIT, &x)) o->repeat = (int)x;
        else if (!strcmp(f, "-every") && !ovk_bench_long(v, 0, INT_LIMIT, &x)) o->every = (int)x;
        else if (!strcmp(f, "-dram") && !ovk_bench_double(v, &d) && d >= 1) o->dram_mib = d;
        else if (!strcmp(f, "-min_ms") && !ovk_bench_double(v, &d) && d > 0) o->min_ms = d;
        else if (!strcmp(f, "-only")) o->only = v;
        else if (!strcmp(f, "-clock") && (!strcmp(v, "cpu") || !strcmp(v, "wall"))) use_cpu_clock = !strcmp(v, "cpu");
        else return 1;
    }
    return 0;
}

/* collective: set up, measure, report (rank 0); 0 or the failure's status */
static int bench_sweep(kb_items **kb, const opts *o, int rank, int size)
{
    sweep r;
    memset(&r, 0, sizeof r);
    int rc = ovk_drv_agree(ovk_kb_setup(o->edge, o->n, o->every, o->aligned, kb));
    if (rc) goto cleanup;
    choose_items(*kb, o, &r);
    rc = ovk_drv_agree(alloc_sweep(o, &r));
    if (rc) goto cleanup;
    if (rank == 0) print_header(*kb, o, size);
    calibrate_all(*kb, o, &r);
    measure_all(*kb, &r);
    if (rank == 0) report(*kb, o, &r, size);
cleanup:
    if (rc && rank == 0) fprintf(stderr, "ovk_kernel_bench: setup failed (%s)\n", ovk_strerror(rc));
    free_sweep(&r);
    return rc;
}

int main(int argc, char **argv)
{
    int rank, size;
    opts o = {DEFAULT_EDGE, DEFAULT_ROWS, DEFAULT_REPEAT, DEFAULT_EVERY, 0, DEFAULT_DRAM_MIB, DEFAULT_MIN_MS, NULL};
    kb_items *kb = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse(argc, argv, &o)) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [-n edge] [-N rows] [-repeat R] [-every K] [-dram MiB] [-min_ms T] "
                            "[-clock wall|cpu] [-only PREFIX] [-aligned]\n", argv[0]);
        MPI_Finalize();
        return EXIT_USAGE;
    }
    int rc = bench_sweep(&kb, &o, rank, size);
    if (kb && ovk_kb_sink(kb) == SINK_NEVER) printf("sink\n"); /* keep the sums alive */
    ovk_kb_free(kb);
    MPI_Finalize();
    return rc ? EXIT_RUNTIME : 0;
}
