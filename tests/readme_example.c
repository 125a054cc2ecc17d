/* The C example of README.md, compiled and run as a test: keep the two identical. */
#include <stdio.h>
#include <gala/gala.h>

int main(void)
{
    gala_context *ctx;
    if (gala_context_create(NULL, &ctx) != GALA_OK) { /* default device */
        fprintf(stderr, "no device: %s\n", gala_last_error(NULL));
        return 1;
    }
    double x[6] = {1, -2, 3, 4, 5, -6}, y[6] = {1, 1, 1, 1, 1, 1}, norms[2];
    gala_buffer *bx, *by, *bn;
    gala_buffer_create(ctx, GALA_DOUBLE, 6, &bx);
    gala_buffer_create(ctx, GALA_DOUBLE, 6, &by);
    gala_buffer_create(ctx, GALA_DOUBLE, 2, &bn);
    gala_buffer_write(bx, 0, 6, x);
    gala_buffer_write(by, 0, 6, y);
    /* two vectors of 3 elements each: y_b = 2 x_b + y_b, then ||y_b||_inf */
    gala_status s = gala_axpby_batched(ctx, 3, 2.0, bx, 0, 3, 1.0, by, 0, 3, 2);
    if (s == GALA_OK) s = gala_norm_inf_batched(ctx, 3, by, 0, 3, bn, 0, 2);
    if (s == GALA_OK) s = gala_buffer_read(bn, 0, 2, norms);
    if (s != GALA_OK) {
        fprintf(stderr, "%s\n", gala_last_error(ctx));
        gala_context_destroy(ctx);
        return 1;
    }
    printf("norms: %g %g\n", norms[0], norms[1]); /* 7 11 */
    gala_context_destroy(ctx); /* also frees the buffers */
    return norms[0] == 7 && norms[1] == 11 ? 0 : 1;
}
