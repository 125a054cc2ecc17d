/*
 * Helpers of the bad-input tests (test_badinput*.c): every rejected call must return the
 * documented status, leave a message (on the context, or on the thread for a NULL
 * context), and allocate nothing that outlives it.
 */
#ifndef GALA_TESTS_BADINPUT_H
#define GALA_TESTS_BADINPUT_H

#include <string.h>

#include "core/internal.h" /* gala_error_clear: a missing message must not pass as the old one */
#include "testutil.h"

static inline long bi_live(const gala_context *ctx)
{
    gala_stats s;
    if (!ctx || gala_context_stats(ctx, &s) != GALA_OK) return 0;
    return s.buffers_live;
}

/* Check one rejected call: status `want`, a message on `msg_ctx` (NULL: the thread's slot)
 * that names `fn` when fn is not NULL, and no new live buffer on `ctx`. */
static inline void bi_check(int target, gala_context *ctx, const gala_context *msg_ctx,
                            gala_status want, gala_status got, const char *fn, const char *call,
                            int line)
{
    const char *m = gala_last_error(msg_ctx);
    TU_ASSERT(got == want, target, "line %d: %s returned %s, expected %s (%s)", line, call,
              gala_status_string(got), gala_status_string(want), m);
    if (want != GALA_OK) {
        TU_ASSERT(m && *m, target, "line %d: %s: no message", line, call);
        if (fn) TU_ASSERT(strstr(m, fn) != NULL, target, "line %d: %s: message does not name %s: %s",
                          line, call, fn, m);
    }
    (void)ctx;
}

/* BAD(target, ctx, status, "fn", call): the call on ctx (message on ctx) is rejected. */
#define BAD(t, ctx, want, fn, call)                                                        \
    do {                                                                                   \
        long bi_l0_ = bi_live(ctx);                                                        \
        gala_error_clear(ctx);                                                             \
        gala_status bi_s_ = (call);                                                        \
        bi_check((t), (ctx), (ctx), (want), bi_s_, (fn), #call, __LINE__);                  \
        TU_ASSERT(bi_live(ctx) == bi_l0_, (t), "line %d: %s left %ld buffers", __LINE__,   \
                  #call, bi_live(ctx) - bi_l0_);                                           \
    } while (0)

/* The same with the message on the thread's slot (NULL context, object-less calls). */
#define BAD0(t, ctx, want, fn, call)                                                       \
    do {                                                                                   \
        long bi_l0_ = bi_live(ctx);                                                        \
        gala_error_clear(NULL);                                                            \
        gala_status bi_s_ = (call);                                                        \
        bi_check((t), (ctx), NULL, (want), bi_s_, (fn), #call, __LINE__);                   \
        TU_ASSERT(bi_live(ctx) == bi_l0_, (t), "line %d: %s left %ld buffers", __LINE__,   \
                  #call, bi_live(ctx) - bi_l0_);                                           \
    } while (0)

#endif
