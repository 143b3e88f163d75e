/* Flags shared by the drivers for experiments: the network-latency model,
 * noise injection, the Lanczos condition estimate, residual replacement and
 * a CSV record of each solve; the quantiles the benchmarks report.  Not
 * part of the library: the drivers and benchmarks compile this file in and
 * link the testing library ovkrylov_testing (the noise). */
#ifndef OVK_DRV_EXPERIMENT_H
#define OVK_DRV_EXPERIMENT_H

#include <mpi.h>
#include <stdio.h>

#include <ovkrylov/ovkrylov.h>
#include <ovkrylov/testing.h>

typedef struct ovk_drv_experiment {
    int have_latency;       /* -latency_us or -latency_model given */
    ovk_latency_model lat;
    char lat_text[128];     /* as given, for the CSV */
    double noise_hz, noise_us; /* -noise F D; 0: off */
    const char *csv;        /* -csv FILE; NULL: none */
    int condest;            /* -condest */
    int replace_every;      /* -replace_every K (0: automatic) */
    const char *precond;    /* -precond SPEC; NULL: the library's default (jacobi) */
    double atol;            /* -atol A: absolute tolerance (0) */
    int halo;               /* -halo isend|persistent|neighbor: ovk_halo_mode (0: isend) */
    int nrhs;               /* -nrhs K: K right-hand sides solved together (0, 1: one) */
    /* the rank's node coordinates for ovk_solver_set_coordinates (the
     * driver's; coord_dim 0: none) */
    const double *coords;
    int coord_dim, ncoords;
    /* -nullspace constant (the solver option nullspace constant) or FILE
     * (the driver reads it into ns_vectors: ns_k vectors of the rank's
     * rows, nlocal apart); ns_rigid: the rigid-body modes of coords */
    const char *nullspace;
    const double *ns_vectors;
    int ns_k, ns_rigid;
    /* the field of each of the rank's rows and the Schur matrix, for
     * fieldsplit (the driver's; NULL: none) */
    const int *fields;
    ovk_matrix *schur;
} ovk_drv_experiment;

/* Copy the solver settings of the flags into *opts. */
void ovk_drv_apply(const ovk_drv_experiment *e, ovk_solve_options *opts);

/* Rank 0: print the lines the flags ask for after a solve (condition
 * estimate, replacements). */
void ovk_drv_print(const ovk_drv_experiment *e, const ovk_result *res);

/* MPI_Init, or MPI_Init_thread(MPI_THREAD_MULTIPLE) when an argument,
 * $OVK_OPTIONS or $OVK_REDUCE_BACKEND names a backend with a thread of its own
 * (ovk_backend_caps: nbc:thread=1, offload on the agent engine, which
 * engine=auto falls back to without a usable fabric); only then, since it
 * can slow the MPI library down. */
void ovk_drv_mpi_init(int *argc, char ***argv);
/* ... and then hands the arguments to the library's options database
 * (ovk_options_set_args); call ovk_options_finalize() before MPI_Finalize
 * (its warning of options nobody read). */

/* Collective over MPI_COMM_WORLD: the worst (most negative) of every
 * rank's status, so that all ranks take the same branch after local work. */
int ovk_drv_agree(int rc);

/* The q-quantile of v[0..n-1], n > 0 (q = 0.5: the median, the mean of
 * the middle two when n is even); sorts v.  For the benchmarks' tables. */
double ovk_drv_quantile(double *v, int n, double q);
double ovk_drv_median(double *v, int n);

/* A reproducible value in [-1, 1) for global row i, independent of the
 * rank count (SplitMix64): the drivers' -rhs random. */
double ovk_drv_random_entry(ovk_gidx i);

/* Print the shared flags for a usage message. */
void ovk_drv_usage(FILE *f);

/* When argv[*i] is a shared flag or a library option (-[prefix]ovk_KEY,
 * left to the options database), consume it and its values: returns 1
 * (ok) or -1 (bad value); 0 when it is neither. */
int ovk_drv_parse_flag(int argc, char **argv, int *i, ovk_drv_experiment *e);

/* Collective over comm: with a latency model (-latency_us,
 * -latency_model), the reducer for spec (-ovk_backend of the options
 * database instead when given) with the model applied (the caller destroys
 * it); without one *red = NULL: the solver makes its reducer from its
 * backend option, as resolved by the library. */
int ovk_drv_reducer(MPI_Comm comm, const char *spec, const ovk_drv_experiment *e, ovk_reducer **red);

/* Start and stop the noise of -noise on this rank (no-ops when off).
 * Stop returns the interruptions this rank had. */
int ovk_drv_noise_start(const ovk_drv_experiment *e, int rank);
long ovk_drv_noise_stop(const ovk_drv_experiment *e);

/* One CSV row describing a solve, appended to e->csv (with a header row
 * when the file is empty).  Rank 0 only; returns 0 or -1 (message printed). */
typedef struct ovk_drv_run {
    const char *problem, *solver, *backend;
    int nranks;
    long long nx, ny, nz;   /* global grid, or rows 1 1 for a matrix file */
    double setup_s;         /* set by ovk_drv_solve: ovk_solver_setup's seconds (max over ranks) */
    char solver_buf[128];   /* the variant as run (-ovk_solver included); run->solver points here */
    char backend_buf[256];  /* the backend as resolved; run->backend points here */
} ovk_drv_run;
int ovk_drv_csv_row(const ovk_drv_experiment *e, const ovk_drv_run *run, const ovk_result *res);

/* Collective: a solver object (solver.h) made, set up and run between the
 * start and stop of the noise, then the CSV row (run->backend and
 * run->solver are filled in here).  At print_level 2 a monitor callback
 * prints the residual of every iteration on rank 0.  With print_noise (the
 * drivers pass print_level >= 1), rank 0 prints `Setup Time = T s` and how
 * often it was interrupted. */
/* With -nrhs K (K > 1) ovk_drv_solve solves b and K - 1 random right-hand
 * sides (a hash of the global row and the system, in [0, 1)) together
 * (ovk_solver_solve_many), x the first system's solution; rank 0 prints
 * one line per system, and *res is the batch's: the largest iterations and
 * relative residual, the first failure's reason (else converged), the
 * whole solve's time in time_max[OVK_TIMER_SOLVE]. */
int ovk_drv_solve(const ovk_drv_experiment *e, ovk_drv_run *run, int print_noise, const ovk_matrix *A,
                  const ovk_vector *b, ovk_vector *x, const ovk_solve_options *opts, ovk_result *res);
/* Collective: the solver object ovk_drv_solve runs, made from opts and the
 * flags (-ovk_* included) and set up, for a driver that solves several
 * systems with it (ovk_mtx_solve's sequences); on failure *out is NULL. */
int ovk_drv_solver_create(const ovk_drv_experiment *e, const ovk_matrix *A, const ovk_solve_options *opts,
                          ovk_solver **out);

#endif
