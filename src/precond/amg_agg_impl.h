/* What amg_agg.c (the aggregation hierarchy) and amg_gather.c (its
 * coarse levels moved onto fewer ranks) share: one level's graph, the next
 * level's pieces, and the helpers both call.  Internal to those two files. */
#ifndef OVK_AMG_AGG_IMPL_H
#define OVK_AMG_AGG_IMPL_H

#include "amg_agg.h"

/* One level's node structure and strength graph. */
typedef struct level_graph {
    MPI_Comm comm;
    int size, rank;
    const ovk__amg_csr *A;
    int n, no;            /* local rows, offd columns */
    int nn;               /* local nodes */
    int *nptr;            /* nn + 1: node I's rows are nptr[I] .. nptr[I+1] */
    int *node_of_row;     /* n */
    ovk_gidx nstart;  /* global id of the first local node */
    ovk_gidx *nstarts; /* size + 1: every rank's first node */
    int nono;             /* offd nodes */
    int *onode;           /* no: offd column -> offd node */
    ovk_gidx *ogid;   /* nono: offd node -> global node id */
    int *gptr, *gadj;     /* strong graph: neighbours < nn local, nn + q offd node q */
    double *rowbuf, *offdbuf; /* a value a row, a value an offd column (the halo) */
} level_graph;

/* The next level's pieces from one level's aggregation. */
typedef struct coarse {
    int nagg;             /* local aggregates = coarse nodes */
    int *cptr;            /* nagg + 1: coarse node -> its unknowns */
    ovk_gidx cstart;  /* global id of the first local coarse unknown */
    ovk_gidx nglobal; /* coarse unknowns in all */
    ovk_gidx astart;  /* global id of the first local aggregate */
    ovk_gidx atotal;  /* aggregates in all */
    double *B;            /* nc x k */
    ovk__amg_csr *Pt;
    int stride;           /* ranks holding the coarse rows: every stride-th (in: the fine level's) */
    ovk_gidx own0, own1; /* the coarse unknowns this rank owns (gathered: its group's, or none) */
} coarse;

/* hypre's error cleared, OVK_EPRECOND naming call; OVK_ENOMEM naming what */
int ovk__amg_agg_fail_hy(const char *call);
int ovk__amg_agg_nomem(const char *what);
/* qsort's order of ovk_gidx */
int ovk__amg_agg_cmp_big(const void *a, const void *b);
/* Collective: records to their ranks; *recv (malloc'd) and rcount/rdisp. */
int ovk__amg_agg_exchange(level_graph *g, const double *send, const int *scount, double **recv, int *rcount,
                          int *rdisp);

/* amg_gather.c.  Local, the same on every rank: the coarse level's stride
 * (every stride-th rank holds its rows) from the fine level's, doubled
 * while its rows per rank holding them stay below gather (0: never). */
int ovk__amg_coarse_stride(int size, int stride, long long rows, double gather);
/* Collective: c->own0, own1 (the coarse unknowns this rank owns) and *next */
int ovk__amg_coarse_owners(level_graph *g, coarse *c, ovk_gidx *next);
/* Collective: the coarse nodes and their rows of B onto their group's first rank */
int ovk__amg_gather_coarse(level_graph *g, coarse *c, int k, ovk_gidx next);
/* Collective: P's columns and Ac's rows and columns on c's gathered partition */
int ovk__amg_to_gathered(level_graph *g, coarse *c, ovk__amg_csr **P, ovk__amg_csr **Ac);

#endif
