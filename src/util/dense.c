/* Small dense factorizations that run inside a solve (the recycled
 * spaces' Gram matrices): no allocation, so no LAPACK (see lanczos.c). */
#include <math.h>

#include "../internal.h"

int ovk__cholesky(int k, double *f, int rs, int cs, double rel)
{
    for (int j = 0; j < k; j++) {
        double g = f[j * rs + j * cs], d = g;
        for (int l = 0; l < j; l++) d -= f[j * rs + l * cs] * f[j * rs + l * cs];
        if (!(d > 0.0) || !(d > rel * g)) return -1;
        f[j * rs + j * cs] = sqrt(d); /* l_jj */
        for (int i = j + 1; i < k; i++) { /* l_ij = (a_ij - sum_l l_il l_jl) / l_jj */
            double v = f[i * rs + j * cs];
            for (int l = 0; l < j; l++) v -= f[i * rs + l * cs] * f[j * rs + l * cs];
            f[i * rs + j * cs] = v / f[j * rs + j * cs];
        }
    }
    return 0;
}
