/* -ovk_log_view: where a solver object's time went, over all its setups
 * and solves (log_view.c).  The object keeps one ovk__log; its setup marks
 * the end of each part, each solve adds its timers, and destroy prints. */
#ifndef OVK_LOG_VIEW_H
#define OVK_LOG_VIEW_H

#include <stdio.h>

#include "../solver.h"

/* The parts of a setup, in the order the setup does them. */
typedef enum ovk__log_part {
    OVK__LOG_CHECK,   /* the options checked and agreed across the ranks */
    OVK__LOG_BACKEND, /* the reducer made from the backend option */
    OVK__LOG_VECTORS, /* the variant's work vectors, the condition estimate's room */
    OVK__LOG_PRECOND, /* the preconditioner's numeric setup */
    OVK__LOG_NORM,    /* ||A|| and the row statistics */
    OVK__LOG_MEASURE, /* the variant's own measurements at setup (after_setup) */
    OVK__LOG_PARTS
} ovk__log_part;

typedef struct ovk__log {
    int on;                       /* print at destroy: log_view as agreed at the last setup */
    double mark;                  /* the end of the last part timed */
    int setups, numerics;         /* setups that did something; numeric setups for new values */
    double part[OVK__LOG_PARTS];  /* this rank's seconds */
    int solves, partial;          /* solves; those that left a sum unwaited (flight incomplete) */
    long long iterations, reductions;
    double t[OVK_TIMER_COUNT];    /* this rank's solve timers, summed */
    double flight;                /* seconds the sums were in flight, summed */
    int nonblocking;              /* the last solve's reducer returns from its post at once */
} ovk__log;

/* Local: a setup (numeric 0) or a numeric setup for new values (1) begins. */
void ovk__log_start(ovk__log *l, int numeric);
/* Local: the time since the last start or mark was spent on part. */
void ovk__log_mark(ovk__log *l, ovk__log_part part);
/* Local: add a finished solve's timers (c->clock.t, c->clock.flight) and counts. */
void ovk__log_solve(ovk__log *l, const ovk__ctx *c, const ovk_result *res);
/* What the table's head names: the object's solver, preconditioner and
 * backend options as its getter spells them (the object fills it). */
typedef struct ovk__log_names {
    char solver[128], precond[256], backend[256];
} ovk__log_names;
/* Collective over comm (the object's): min, max and average over the
 * ranks; rank 0 prints the table, headed by names, to f. */
void ovk__log_view(const ovk__log *l, const ovk__log_names *names, MPI_Comm comm, FILE *f);

#endif
