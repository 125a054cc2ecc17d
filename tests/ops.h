/*
 * A catalogue of operations: one small, self-checking use of every public function that
 * does device work (tests/ops.c). The fault sweep (test_fault.c), the out-of-memory test
 * and the concurrency test (test_threads.c) run them all.
 *
 * An operation prepares its inputs, calls the public function(s) it is about between
 * tu_fault_begin() and tu_fault_end() (the "window": only there is an armed fault allowed
 * to fire), checks the results against a host computation in double, and releases
 * everything it made, on every path. It returns the status of the calls in the window;
 * GALA_ERR_INTERNAL with a message when the results are wrong or its own preparation
 * failed. Operations never use Check (they run on many threads) and derive their inputs
 * from the seed they are given.
 */
#ifndef GALA_TESTS_OPS_H
#define GALA_TESTS_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "gala/gala.h"

enum {
    TU_OP_HOST_ONLY = 1, /* meaningful on the host backend only (wrapping host memory) */
    TU_OP_NO_CTX = 2,    /* no context: the QPS reader and writer (host memory only) */
    TU_OP_SLOW = 4       /* many fault points: swept with a stride on OpenCL */
};

typedef gala_status (*tu_op_fn)(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg,
                                size_t cap);

typedef struct tu_op {
    const char *name;
    tu_op_fn run;
    unsigned flags;
} tu_op;

extern const tu_op tu_ops[];
extern const int tu_op_count;

/** Arm fault `kind` (a gala_fault_kind) at the k-th operation of the next window; kind < 0
 *  disarms (the default: windows then do nothing). Not thread-safe: set it only while no
 *  operation runs. */
void tu_fault_set(int kind, long k);
/** After an operation: how many operations of the armed kind were still to pass when its
 *  last window closed (> 0: the window never reached the armed one). */
long tu_fault_left(void);
/** How many windows the last operation opened (an operation that opened none is broken). */
int tu_fault_windows(void);
void tu_fault_begin(void);
void tu_fault_end(void);

#endif
