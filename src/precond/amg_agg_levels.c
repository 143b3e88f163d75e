/* setup=agg's hierarchy (amg_agg.c, our level type) as the cycle's table
 * of calls (amg_levels.h), through amg_level_rows.c. */
#include "amg_agg.h"

static ovk__amg_csr *level_A(void *ctx, int l) { return ((ovk__amg_agg_hier *)ctx)->A[l]; }

static int t_matrix(void *ctx, MPI_Comm comm, int l, int single, ovk_matrix **A)
{
    return ovk__amg_level_matrix(comm, level_A(ctx, l), single, A);
}

static int t_values(void *ctx, MPI_Comm comm, int l, int single, ovk_matrix *A)
{
    return ovk__amg_level_values(comm, level_A(ctx, l), single, A);
}

static int t_coarse(void *ctx, MPI_Comm comm, int l, ovk__amg_coarse **lu)
{
    return ovk__amg_level_coarse(comm, level_A(ctx, l), lu);
}

static int t_prows(void *ctx, int l, ovk__amg_prows *p, ovk_gidx **cmap)
{
    return ovk__amg_level_prows(((ovk__amg_agg_hier *)ctx)->P[l], p, cmap);
}

void ovk__amg_levels_of_agg(ovk__amg_agg_hier *h, ovk__amg_levels *lv)
{
    *lv = (ovk__amg_levels){h, h->nlev, h->sweeps, t_matrix, t_values, t_coarse, t_prows};
}
