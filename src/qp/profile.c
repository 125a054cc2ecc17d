/* The QP solver's profile (settings.profile): phase times, charged as the phases end. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_internal.h"

void gala_qp_prof(gala_qp_solver *s, int phase)
{
    if (!s->set.profile) return;
    if (s->in_solve && (phase == GALA_QP_PHASE_FORM_K || phase == GALA_QP_PHASE_FACTOR))
        phase = GALA_QP_PHASE_REFACTOR;
    (void)gala_finish(s->ctx); /* a device error shows in the next operation's status */
    double t = gala_now();
    s->prof.seconds[phase] += t - s->prof_mark;
    s->prof.calls[phase]++;
    s->prof_mark = t;
}

void gala_qp_prof_reset(gala_qp_solver *s, int first, int last)
{
    for (int p = first; p <= last; ++p) {
        s->prof.seconds[p] = 0;
        s->prof.calls[p] = 0;
    }
}

gala_status gala_qp_get_profile(const gala_qp_solver *s, gala_qp_profile *p)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_get_profile: solver is NULL");
    if (!p) return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_get_profile: profile is NULL");
    if (s->chunks) return gala_qp_chunked_get_profile(s, p);
    *p = s->prof;
    p->enabled = s->set.profile != 0;
    return GALA_OK;
}

const char *gala_qp_phase_name(int phase)
{
    static const char *names[GALA_QP_NPHASES] = {
        "validate", "layout", "upload", "scale", "form_k", "factor", "setup_other",
        "iterate", "check", "sync", "refactor", "collect", "polish", "solve_other"};
    return phase >= 0 && phase < GALA_QP_NPHASES ? names[phase] : "unknown";
}
