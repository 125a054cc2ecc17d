/* race_repro N REPS [up]: factor one float SPD matrix of order N (G·Gᵀ + N·I, G uniform in
 * [-0.5, 0.5]) REPS times on the OpenCL backend (GALA_PLATFORM, GALA_TUNE from the
 * environment), lower or (any third argument) upper, and count the calls whose
 * ‖LLᵀ − A‖/‖A‖ exceeds 1e-5. Build: gcc -O2 -Iinclude -Ibuild/include race_repro.c
 * -Lbuild -lgala -lm. */
#include <gala/gala.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 257, reps = argc > 2 ? atoi(argv[2]) : 20;
    gala_context_options o; gala_context_options_default(&o);
    o.backend = GALA_BACKEND_OPENCL;
    o.use_environment = 1;
    gala_context *ctx;
    if (gala_context_create(&o, &ctx)) { printf("ctx fail\n"); return 1; }
    float *A = malloc(sizeof(float) * n * n), *L = malloc(sizeof(float) * n * n);
    double *G = malloc(sizeof(double) * n * n);
    srand(1);
    for (int i = 0; i < n * n; ++i) G[i] = rand() / (double)RAND_MAX - 0.5;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += G[i + k * n] * G[j + k * n];
            A[i + j * n] = (float)(s + (i == j ? n : 0));
        }
    gala_buffer *b;
    gala_buffer_create(ctx, GALA_FLOAT, (size_t)n * n, &b);
    int bad = 0; const int up = argc > 3;
    for (int r = 0; r < reps; ++r) {
        gala_buffer_write(b, 0, (size_t)n * n, A);
        int info;
        gala_status st = gala_potrf(ctx, (argc > 3 ? GALA_UPPER : GALA_LOWER), n, b, 0, n, &info);
        gala_buffer_read(b, 0, (size_t)n * n, L);
        double num = 0, den = 0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j <= i; ++j) {
                double s = 0;
                for (int k = 0; k <= j; ++k) s += up ? (double)L[k + i * n] * L[k + j * n] : (double)L[i + k * n] * L[j + k * n];
                num += (s - A[i + j * n]) * (s - A[i + j * n]);
                den += (double)A[i + j * n] * A[i + j * n];
            }
        double e = sqrt(num / den);
        if (e > 1e-5 || st) { ++bad; printf("rep %d: st %d err %g\n", r, st, e); }
    }
    printf("%d of %d bad\n", bad, reps);
    return 0;
}
