/* What a device does that it does not report: measured by small kernels, once per context
 * (issue 39). */
#include "internal.h"
#include "kernel.h"
#include "../../cl/vec_abi.h"

GALA_LAUNCHER(vec_launch_loop_probe, VEC_ARGS_loop_probe)

/* Iterations the probe asks for: four times llvmpipe's 65535, a few milliseconds on a GPU's
 * single work-item. */
enum { LOOP_PROBE_N = 1 << 18 };

static long loop_probe(gala_context *ctx)
{
    gala_program_key key;
    gala_kernel *k;
    gala_buffer *out = NULL;
    int res[4] = {0, 0, 0, 0};
    gala_key_init(&key, "vec", GALA_FLOAT);
    gala_key_def(&key, "WG", gala_tuned(ctx, GALA_FLOAT)->vec.wg);
    gala_dims d = gala_dims_1d(1, 1);
    gala_status s = gala_kernel_get(ctx, &key, "loop_probe", &k);
    if (s == GALA_OK) s = gala_buffer_create(ctx, GALA_INT, 4, &out);
    if (s == GALA_OK) s = gala_buffer_write(out, 0, 4, res);
    if (s == GALA_OK) s = vec_launch_loop_probe(ctx, k, &d, LOOP_PROBE_N, out);
    if (s == GALA_OK) s = gala_buffer_read(out, 0, 4, res);
    gala_buffer_free(out);
    if (s != GALA_OK) {
        gala_error_clear(ctx); /* no answer now (e.g. no memory): asked again next time */
        return -1;
    }
    return res[0] > 0 && res[0] < LOOP_PROBE_N ? res[0] : 0;
}

long gala_loop_limit(gala_context *ctx)
{
    /* la.loop_limit (tests): a limit to split for on any device, 0 none, -1 (default) measure */
    const long forced = gala_tuned(ctx, 0)->la.loop_limit;
    if (forced < 0 && ctx->loop_limit >= 0) return ctx->loop_limit;
    if (forced >= 0) return forced;
    if (ctx->ops->backend != GALA_BACKEND_OPENCL) return ctx->loop_limit = 0;
    if (ctx->dry) return 0; /* measured by the real call */
    gala_fault_pause(1);    /* the probe is not one of the call's steps */
    const long found = loop_probe(ctx);
    gala_fault_pause(-1);
    if (found < 0) return 0; /* as without a limit, this once */
    return ctx->loop_limit = found;
}
