/* -ovk_log_view: a solver object's setups and solves, in parts a user
 * knows, as min, max and average over the ranks (PETSc's -log_view),
 * printed by rank 0 when the object is destroyed.  It receives what it
 * prints (the times, the options' names) and calls nothing of the object. */
#include <string.h>

#include "log_view.h"
#include "option_table.h"

/* the rows of the table: each rank's seconds, reduced at once */
enum {
    SETUP = OVK__LOG_PARTS, /* the parts first, then their sum */
    SOLVE,
    MATVEC,
    PRECOND,
    VECTOR,
    SCALE,
    POSTED,
    PROGRESS,
    WAITED,
    REST,
    FLIGHT,
    HIDDEN,
    PARTIAL,
    ROWS
};

static const char *const part_names[OVK__LOG_PARTS] = {
    [OVK__LOG_CHECK] = "options checked across the ranks",
    [OVK__LOG_BACKEND] = "reduction backend created",
    [OVK__LOG_VECTORS] = "work vectors allocated",
    [OVK__LOG_PRECOND] = "preconditioner set up (numeric)",
    [OVK__LOG_NORM] = "matrix norm and row statistics",
    [OVK__LOG_MEASURE] = "variant's own measurements at setup",
};

static const char *const solve_names[] = {
    [MATVEC - MATVEC] = "matrix-vector products",
    [PRECOND - MATVEC] = "preconditioner applications",
    [VECTOR - MATVEC] = "vector updates and local dot products",
    [SCALE - MATVEC] = "diagonal scaling",
    [POSTED - MATVEC] = "reductions: posting (starting them)",
    [PROGRESS - MATVEC] = "reductions: progress calls inside kernels",
    [WAITED - MATVEC] = "reductions: waiting (latency not hidden)",
    [REST - MATVEC] = "the rest (convergence checks, monitors)",
};

void ovk__log_start(ovk__log *l, int numeric)
{
    l->mark = ovk__now();
    if (numeric) l->numerics++;
    else l->setups++;
}

void ovk__log_mark(ovk__log *l, ovk__log_part part)
{
    double now = ovk__now();
    l->part[part] += now - l->mark;
    l->mark = now;
}

void ovk__log_solve(ovk__log *l, const ovk__ctx *c, const ovk_result *res)
{
    for (int i = 0; i < OVK_TIMER_COUNT; i++) l->t[i] += c->clock.t[i];
    if (c->clock.flying) l->partial++;
    else l->flight += c->clock.flight;
    l->solves++;
    l->iterations += res->iterations;
    l->reductions += res->reductions;
    l->nonblocking = (ovk_reducer_caps(c->red) & OVK_CAP_NONBLOCKING) != 0;
}

/* sum of the three inner products' timers of one kind (init, test, wait) */
static double dots(const double *t, ovk_timer sdotp, ovk_timer gamma, ovk_timer iprod)
{
    return t[sdotp] + t[gamma] + t[iprod];
}

/* this rank's rows */
static void local_rows(const ovk__log *l, double *v)
{
    const double *t = l->t;
    memset(v, 0, sizeof(double) * ROWS);
    for (int p = 0; p < OVK__LOG_PARTS; p++) {
        v[p] = l->part[p];
        v[SETUP] += l->part[p];
    }
    v[SOLVE] = t[OVK_TIMER_SOLVE];
    v[MATVEC] = t[OVK_TIMER_MATVEC];
    v[PRECOND] = t[OVK_TIMER_PRECOND];
    v[VECTOR] = t[OVK_TIMER_AXPY];
    v[SCALE] = t[OVK_TIMER_SCALE];
    v[POSTED] = dots(t, OVK_TIMER_SDOTP_INIT, OVK_TIMER_GAMMA_INIT, OVK_TIMER_IPROD_INIT);
    v[PROGRESS] = dots(t, OVK_TIMER_SDOTP_TEST, OVK_TIMER_GAMMA_TEST, OVK_TIMER_IPROD_TEST);
    v[WAITED] = dots(t, OVK_TIMER_SDOTP_WAIT, OVK_TIMER_GAMMA_WAIT, OVK_TIMER_IPROD_WAIT);
    v[REST] = v[SOLVE];
    for (int r = MATVEC; r < REST; r++) v[REST] -= v[r];
    if (v[REST] < 0.0) v[REST] = 0.0; /* clock granularity */
    v[FLIGHT] = l->flight;
    /* in flight while the rank did other work; a backend that completes a
     * reduction inside its post has nothing in flight after it */
    v[HIDDEN] = l->nonblocking ? l->flight - v[POSTED] - v[WAITED] : 0.0;
    if (v[HIDDEN] < 0.0) v[HIDDEN] = 0.0;
    v[PARTIAL] = l->partial;
}

static void row(FILE *f, const char *name, const double *lo, const double *hi, const double *sum, int i, int size,
                double whole)
{
    double avg = sum[i] / size;
    fprintf(f, "  %-46s %10.3e %10.3e %10.3e %6.1f\n", name, lo[i], hi[i], avg,
            whole > 0.0 ? 100.0 * avg / whole : 0.0);
}

static void print(const ovk__log *l, const ovk__log_names *names, FILE *f, const double *lo, const double *hi,
                  const double *sum, int size)
{
    const char *sv = names->solver, *pc = names->precond, *be = names->backend;
    double setup = sum[SETUP] / size, solve = sum[SOLVE] / size;
    fprintf(f, "ovk log_view: solver %s, preconditioner %s, backend %s; %d rank%s\n", sv, pc, be, size,
            size == 1 ? "" : "s");
    fprintf(f, "  %d setup%s, %d numeric setup%s for new values; %d solve%s, %lld iterations, %lld reductions\n",
            l->setups, l->setups == 1 ? "" : "s", l->numerics, l->numerics == 1 ? "" : "s", l->solves,
            l->solves == 1 ? "" : "s", l->iterations, l->reductions);
    fprintf(f, "  %-46s %10s %10s %10s %6s\n", "seconds over the ranks", "min", "max", "avg", "%");
    row(f, "setup (all parts)", lo, hi, sum, SETUP, size, setup);
    for (int p = 0; p < OVK__LOG_PARTS; p++) {
        char name[64];
        snprintf(name, sizeof name, "  %s", part_names[p]);
        row(f, name, lo, hi, sum, p, size, setup);
    }
    row(f, "solve (all parts)", lo, hi, sum, SOLVE, size, solve);
    for (int r = MATVEC; r <= REST; r++) {
        char name[64];
        snprintf(name, sizeof name, "  %s", solve_names[r - MATVEC]);
        row(f, name, lo, hi, sum, r, size, solve);
    }
    row(f, "reductions in flight (summed, post to wait)", lo, hi, sum, FLIGHT, size, solve);
    row(f, "  of that, hidden behind other work", lo, hi, sum, HIDDEN, size, solve);
    if (!l->nonblocking)
        fprintf(f, "  hidden: none (backend %s completes each reduction inside its post)\n", be);
    else if (sum[FLIGHT] > 0.0)
        fprintf(f, "  hidden: %.0f %% of the reductions' time in flight (average over the ranks)\n",
                100.0 * sum[HIDDEN] / sum[FLIGHT]);
    if (hi[PARTIAL] > 0.0)
        fprintf(f, "  (%.0f solve%s stopped with a reduction unwaited: its flight is not counted)\n", hi[PARTIAL],
                hi[PARTIAL] == 1.0 ? "" : "s");
    if (l->iterations > 0)
        fprintf(f, "  per iteration: %.3e s solve, %.2f reductions\n", solve / (double)l->iterations,
                (double)l->reductions / (double)l->iterations);
}

void ovk__log_view(const ovk__log *l, const ovk__log_names *names, MPI_Comm comm, FILE *f)
{
    double v[ROWS], lo[ROWS], hi[ROWS], sum[ROWS];
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    local_rows(l, v);
    /* a failed reduction leaves nothing to print: the table is not worth a status */
    if (MPI_Reduce(v, lo, ROWS, MPI_DOUBLE, MPI_MIN, 0, comm) != MPI_SUCCESS ||
        MPI_Reduce(v, hi, ROWS, MPI_DOUBLE, MPI_MAX, 0, comm) != MPI_SUCCESS ||
        MPI_Reduce(v, sum, ROWS, MPI_DOUBLE, MPI_SUM, 0, comm) != MPI_SUCCESS)
        return;
    if (rank == 0) {
        print(l, names, f, lo, hi, sum, size);
        fflush(f);
    }
}
