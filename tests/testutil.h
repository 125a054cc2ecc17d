/*
 * Test helpers: the targets every numerical test runs on (backend × precision), cached
 * contexts, seeded random inputs, NaN poisoning, and error measures.
 *
 * Targets: the host backend and, when present, the OpenCL device chosen as
 * gala_context_create would (honouring GALA_PLATFORM / GALA_DEVICE) and CUDA; each in
 * float and in double (double only where the device has fp64). GALA_TEST_BACKENDS
 * ("host,opencl,cuda") narrows the list.
 *
 * Seeds: every test derives its generator from the run's seed (GALA_TEST_SEED, else the
 * time) and its own name; failure messages print the run's seed, so
 * GALA_TEST_SEED=<seed> ./test_x reproduces a failure.
 */
#ifndef GALA_TESTUTIL_H
#define GALA_TESTUTIL_H

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "gala/gala.h"

typedef struct tu_target {
    gala_backend backend;
    gala_dtype dtype;
    char name[160];
} tu_target;

/** Number of (backend, dtype) targets; target i; its cached context (created once). */
int tu_target_count(void);
const tu_target *tu_target_get(int i);
gala_context *tu_ctx(int i);
/** Destroy the cached contexts (at exit of a test program). */
void tu_release(void);
/** A new context on the host backend, which the caller destroys; use_environment: whether
 *  the GALA_* variables apply to it. Fails the test when it cannot be made. */
gala_context *tu_host_ctx(int use_environment);
/** Remove a folder and everything in it: 0, or -1 when something could not be removed (a
 *  folder that does not exist is removed already). */
int tu_rm_tree(const char *dir);

/** Machine epsilon of a dtype. */
double tu_eps(gala_dtype dt);

/** The run's seed. */
uint64_t tu_seed(void);

/** A small PRNG (xoshiro256**), seeded per test. */
typedef struct tu_rng {
    uint64_t s[4];
} tu_rng;
tu_rng tu_rng_for(const char *test_name, int target);
double tu_uniform(tu_rng *r);          /* [0, 1) */
double tu_normal(tu_rng *r);           /* N(0, 1) */
int tu_int(tu_rng *r, int lo, int hi); /* [lo, hi] */

/** Upload n doubles into a new buffer of dtype (converted). */
gala_buffer *tu_upload(gala_context *ctx, gala_dtype dt, const double *v, size_t n);
/** Download n elements of a buffer into doubles (converted). */
void tu_download(const gala_buffer *b, size_t off, double *v, size_t n);
/** New buffer of n elements, filled with NaN (or INT_MIN for ints). */
gala_buffer *tu_poisoned(gala_context *ctx, gala_dtype dt, size_t n);
/** A new buffer of n elements of the precision other than dt, for the checks that mixing
 *  precisions is refused; NULL where ctx's device has no fp64 (a float-only device cannot
 *  hold a double buffer), after a line on stdout saying that the check `what` is skipped. */
gala_buffer *tu_other_precision(gala_context *ctx, gala_dtype dt, size_t n, const char *what);
/** A size for the largest cases of a test: `full`, or `small` under GALA_TEST_SCALE=small
 *  (set by the rusticl_* CTests: Mesa's llvmpipe pays about a millisecond per launch and
 *  runs barrier-heavy kernels many times slower than PoCL), after a line on stdout naming
 *  `what`. The caller chooses `small` so that the case still reaches every path and size
 *  class it exists for, and says which in a comment; other runs keep the full sizes. */
int tu_size(int full, int small, const char *what);
/** Round doubles to the precision of dt (so references use the same inputs). */
void tu_round(gala_dtype dt, double *v, size_t n);

/** Check helper: assert with the run's seed, the target and a message. */
#define TU_ASSERT(cond, target, ...)                                                       \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            char tu_msg_[512];                                                             \
            snprintf(tu_msg_, sizeof tu_msg_, __VA_ARGS__);                                \
            ck_abort_msg("%s [target %s, GALA_TEST_SEED=%llu]", tu_msg_,                   \
                         tu_target_get(target)->name, (unsigned long long)tu_seed());      \
        }                                                                                  \
    } while (0)

/** Assert a gala call succeeded, printing its status and last error otherwise. */
#define TU_OK(ctx, call)                                                                   \
    do {                                                                                   \
        gala_status tu_s_ = (call);                                                        \
        ck_assert_msg(tu_s_ == GALA_OK, "%s returned %s: %s", #call,                       \
                      gala_status_string(tu_s_), gala_last_error(ctx));                    \
    } while (0)

/** Run a suite without forking (OpenCL runtimes do not survive fork), print, return the
 *  exit code. */
int tu_run(Suite *s);

#endif
