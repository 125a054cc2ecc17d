/* The C example of README.md, compiled and run as a test: keep the two identical. */
#include <stdio.h>
#include <gala/gala.h>

int main(void)
{
    gala_context *ctx;
    if (gala_context_create(NULL, &ctx) != GALA_OK) { /* the default device */
        fprintf(stderr, "no device: %s\n", gala_last_error(NULL));
        return 1;
    }
    /* a batch of two SPD matrices of order 2, column-major, one after the other,
       and one right-hand side for each */
    double a[8] = {4, 2, 2, 3, /* A0 */ 9, 3, 3, 5 /* A1 */};
    double b[4] = {2, -1, /* b0 */ 12, 8 /* b1 */};
    int info[2];
    gala_buffer *A, *B;
    gala_buffer_create(ctx, GALA_DOUBLE, 8, &A); /* double buffers: double precision */
    gala_buffer_create(ctx, GALA_DOUBLE, 4, &B);
    gala_buffer_write(A, 0, 8, a);
    gala_buffer_write(B, 0, 4, b);
    /* A_k = L_k L_kᵀ for both (matrix k at offset 4k, lda 2), then A_k x_k = b_k in place */
    gala_status s = gala_potrf_batched(ctx, GALA_LOWER, 2, A, 0, 2, 4, 2, info);
    if (s == GALA_OK) s = gala_potrs_batched(ctx, GALA_LOWER, 2, 1, A, 0, 2, 4, B, 0, 2, 2, 2);
    if (s == GALA_OK) s = gala_buffer_read(B, 0, 4, b);
    if (s != GALA_OK) { /* info[k] says which matrix failed and at which column */
        fprintf(stderr, "%s (info %d %d)\n", gala_last_error(ctx), info[0], info[1]);
        gala_context_destroy(ctx);
        return 1;
    }
    printf("x0 = (%g, %g), x1 = (%g, %g)\n", b[0], b[1], b[2], b[3]); /* (1, -1), (1, 1) */
    gala_context_destroy(ctx); /* also frees the buffers */
    double e = (b[0] - 1) * (b[0] - 1) + (b[1] + 1) * (b[1] + 1) + (b[2] - 1) * (b[2] - 1) +
               (b[3] - 1) * (b[3] - 1);
    return e < 1e-24 ? 0 : 1;
}
