/* Validation of CSC matrices (sparse.h). */
#include <math.h>

#include "internal.h"
#include "gala/sparse.h"

gala_status gala_csc_validate(gala_context *ctx, const char *name, const gala_csc *A, int upper_only)
{
    static const char fn[] = "gala_csc_validate";
    if (!A || !name) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: NULL argument", fn);
    if (A->m < 0 || A->n < 0)
        return gala_error(ctx, GALA_ERR_INVALID_MATRIX, "%s is %d×%d: negative size", name, A->m,
                          A->n);
    if (upper_only && A->m != A->n)
        return gala_error(ctx, GALA_ERR_INVALID_MATRIX, "%s is %d×%d but must be square", name,
                          A->m, A->n);
    if (!A->p) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: column pointers are NULL", name);
    if (A->p[0] != 0)
        return gala_error(ctx, GALA_ERR_INVALID_MATRIX, "%s: p[0] = %d, must be 0", name, A->p[0]);
    for (int j = 0; j < A->n; ++j)
        if (A->p[j + 1] < A->p[j])
            return gala_error(ctx, GALA_ERR_INVALID_MATRIX,
                              "%s: column pointers decrease at column %d (%d > %d)", name, j,
                              A->p[j], A->p[j + 1]);
    if (A->p[A->n] > 0 && (!A->i || !A->x))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: %d entries but NULL index or value "
                          "array", name, A->p[A->n]);
    for (int j = 0; j < A->n; ++j) {
        for (int k = A->p[j]; k < A->p[j + 1]; ++k) {
            int r = A->i[k];
            if (r < 0 || r >= A->m)
                return gala_error(ctx, GALA_ERR_INVALID_MATRIX,
                                  "%s: entry %d of column %d has row %d outside 0..%d", name, k,
                                  j, r, A->m - 1);
            if (k > A->p[j] && r <= A->i[k - 1])
                return gala_error(ctx, GALA_ERR_INVALID_MATRIX,
                                  "%s: column %d: row %d after row %d (%s)", name, j, r,
                                  A->i[k - 1], r == A->i[k - 1] ? "duplicate entry" : "unsorted");
            if (upper_only && r > j)
                return gala_error(ctx, GALA_ERR_INVALID_MATRIX,
                                  "%s: entry (%d, %d) is below the diagonal; give the upper "
                                  "triangle only", name, r, j);
            if (!isfinite(A->x[k]))
                return gala_error(ctx, GALA_ERR_NOT_FINITE, "%s: entry (%d, %d) is %g", name, r,
                                  j, A->x[k]);
        }
    }
    return GALA_OK;
}
