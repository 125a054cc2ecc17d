/* QP problem ownership. */
#include <string.h>

#include "core/internal.h"
#include "gala/qp.h"

gala_status gala_qp_problem_free(gala_qp_problem *pb)
{
    if (!pb) return GALA_OK;
    if (pb->owned) {
        gala_free(pb->P.p); gala_free(pb->P.i); gala_free(pb->P.x);
        gala_free(pb->A.p); gala_free(pb->A.i); gala_free(pb->A.x);
        gala_free(pb->q); gala_free(pb->l); gala_free(pb->u);
    }
    memset(pb, 0, sizeof *pb);
    return GALA_OK;
}
