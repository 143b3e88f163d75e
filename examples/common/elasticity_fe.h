/* P1 linear elasticity on a box of tetrahedra (E = 1, nu = 0.3), clamped
 * on the face x = 0 or floating: the assembly of the elasticity and
 * load-case examples.  Not part of the library's API. */
#ifndef OVK_EXAMPLES_ELASTICITY_FE_H
#define OVK_EXAMPLES_ELASTICITY_FE_H

#include <ovkrylov/ovkrylov.h>

enum { OVK_FE_DOF = 3 };

/* The box [0, nx] x [0, ny] x [0, nz] / max(nx, ny, nz) in cubes of 6
 * tetrahedra (Kuhn), the free nodes (x >= first_free_plane h) numbered x
 * fastest; this rank owns the contiguous nodes [first, first + count). */
typedef struct ovk_fe_box {
    int nx, ny, nz; /* cells */
    double h;
    long long first, count;
    int first_free_plane; /* 1: the face x = 0 clamped; 0: floating (singular) */
} ovk_fe_box;

/* the box of nx x ny x nz cells split over size ranks (local); floating:
 * no face clamped */
void ovk_fe_box_init(ovk_fe_box *m, int nx, int ny, int nz, int floating, int rank, int size);
/* free nodes of the whole box */
long long ovk_fe_box_nodes(const ovk_fe_box *m);
/* Collective over MPI_COMM_WORLD: the stiffness matrix of the owned rows
 * (unknowns interleaved by node: ux, uy, uz), each owned node's share of
 * the volume (*weight, count values: a body force f gives the load
 * weight_i f at node i) and its coordinates (*xyz, 3 count values);
 * malloc'd, the caller's. */
int ovk_fe_elasticity(const ovk_fe_box *m, ovk_matrix **A, double **weight, double **xyz);

#endif
