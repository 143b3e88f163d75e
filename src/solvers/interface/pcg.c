/* The names of reasons and timers, the options' defaults and the timing
 * table (ovk_pcg_solve, the one-call convenience, is the object's:
 * object.c). */
#include <string.h>

#include "../solver.h"

static const char *const reason_names[] = {
#define OVK_REASON_NAME_(name, value, text) [value] = text,
    OVK_REASON_LIST(OVK_REASON_NAME_)
#undef OVK_REASON_NAME_
};

const char *ovk_reason_name(ovk_reason r)
{
    return ((unsigned)r < sizeof reason_names / sizeof reason_names[0]) ? reason_names[r] : "unknown";
}

static const char *const timer_names[OVK_TIMER_COUNT] = {
#define OVK_TIMER_NAME_(name, text) [name] = text,
    OVK_TIMER_LIST(OVK_TIMER_NAME_)
#undef OVK_TIMER_NAME_
};

const char *ovk_timer_name(ovk_timer t) { return ((unsigned)t < OVK_TIMER_COUNT) ? timer_names[t] : "unknown"; }

void ovk_pcg_print_timing(FILE *f, const ovk_result *r)
{
    fprintf(f, "%-12s %12s %12s %8s\n", "operation", "max (s)", "mean (s)", "% solve");
    double total = r->time_max[OVK_TIMER_SOLVE] > 0 ? r->time_max[OVK_TIMER_SOLVE] : 1.0;
    for (int t = 0; t < OVK_TIMER_COUNT; t++)
        fprintf(f, "%-12s %12.6f %12.6f %8.2f\n", timer_names[t], r->time_max[t], r->time_mean[t],
                100.0 * r->time_max[t] / total);
    fprintf(f, "iterations %d, reductions %lld, time per iteration %.3e s\n", r->iterations, r->reductions,
            r->iterations > 0 ? r->time_max[OVK_TIMER_SOLVE] / r->iterations : 0.0);
}
