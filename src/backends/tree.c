/* Tree shapes shared by the schedule builders (nbc_sched.c, offload_tasks.c). */
#include "backend.h"

int ovk__knomial_family(int me, int n, int k, int *child, int *parent)
{
    int nchild = 0;
    *parent = -1;
    for (long d = 1; d < n; d *= k) {
        if (me % (d * k) != 0) {
            *parent = me - (int)(me % (d * k));
            break;
        }
        for (int m = 1; m < k && me + m * d < n; m++) child[nchild++] = me + m * (int)d;
    }
    return nchild;
}
