/* Fault injection in the device layer: a failing allocation, build, launch or transfer
 * gives an error with a message, leaks nothing, and leaves the context usable.
 *
 * The sweep runs every operation of the catalogue (ops.c: every public function with
 * device work) with the k-th allocation, build, launch or transfer of its calls made to
 * fail, for k = 1, 2, ... until a call no longer reaches the k-th one: each failing call
 * must return the status of that fault kind with "injected" in its message, leave as many
 * live buffers as before, and the same operation must then succeed with correct results on
 * the same context. Build and allocation faults use a fresh context per k (a context keeps
 * the programs it built and its workspaces).
 * The GALA_FAULT environment variable is tested in child processes. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h"
#include "ops.h"
#include "testutil.h"

extern char **environ;
static char self_path[4096];

static int axpby_once(gala_context *ctx, gala_dtype dt, gala_status *st)
{
    gala_buffer *x = NULL, *y = NULL;
    *st = gala_buffer_create(ctx, dt, 32, &x);
    if (*st == GALA_OK) *st = gala_buffer_create(ctx, dt, 32, &y);
    if (*st == GALA_OK) *st = gala_buffer_fill(x, 0, 32, 1);
    if (*st == GALA_OK) *st = gala_buffer_fill(y, 0, 32, 2);
    if (*st == GALA_OK) *st = gala_axpby_batched(ctx, 8, 1, x, 0, 8, 1, y, 0, 8, 4);
    if (*st == GALA_OK) {
        double out[32];
        if (dt == GALA_DOUBLE) *st = gala_buffer_read(y, 0, 32, out);
        else {
            float f[32];
            *st = gala_buffer_read(y, 0, 32, f);
            for (int i = 0; i < 32; ++i) out[i] = f[i];
        }
        for (int i = 0; *st == GALA_OK && i < 32; ++i)
            if (out[i] != 3) *st = GALA_ERR_INTERNAL;
    }
    gala_buffer_free(x);
    gala_buffer_free(y);
    return *st == GALA_OK;
}

static gala_context *fresh_ctx(gala_backend b)
{
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = b;
    gala_context *ctx = NULL;
    TU_OK(NULL, gala_context_create(&o, &ctx));
    return ctx;
}

static long live_buffers(const gala_context *ctx)
{
    gala_stats s;
    if (!ctx) return 0;
    ck_assert_int_eq(gala_context_stats(ctx, &s), GALA_OK);
    return s.buffers_live;
}

START_TEST(each_fault_kind_is_reported_and_recovered)
{
    static const struct { gala_fault_kind kind; gala_status expect; const char *name; } kinds[] = {
        {GALA_FAULT_ALLOC, GALA_ERR_DEVICE_MEMORY, "alloc"},
        {GALA_FAULT_BUILD, GALA_ERR_KERNEL_BUILD, "build"},
        {GALA_FAULT_LAUNCH, GALA_ERR_DEVICE, "launch"},
        {GALA_FAULT_TRANSFER, GALA_ERR_DEVICE, "transfer"},
    };
    gala_dtype dt = tu_target_get(_i)->dtype;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        /* a fresh context, so that the build fault hits a real build */
        gala_context *ctx = fresh_ctx(tu_target_get(_i)->backend);
        gala_status st;
        gala_fault_arm(kinds[k].kind, 1);
        ck_assert_msg(!axpby_once(ctx, dt, &st), "%s fault did not fail", kinds[k].name);
        ck_assert_msg(st == kinds[k].expect, "%s fault gave %s", kinds[k].name,
                      gala_status_string(st));
        ck_assert_msg(strstr(gala_last_error(ctx), "injected") != NULL, "%s",
                      gala_last_error(ctx));
        ck_assert_int_eq(live_buffers(ctx), 0);
        ck_assert_msg(axpby_once(ctx, dt, &st), "%s: the next call failed: %s", kinds[k].name,
                      gala_last_error(ctx));
        gala_context_destroy(ctx);
    }
    gala_fault_arm(GALA_FAULT_ALLOC, 0);
}
END_TEST

START_TEST(second_allocation_fails)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    gala_status st;
    gala_fault_arm(GALA_FAULT_ALLOC, 2); /* x succeeds, y fails: x must be released */
    ck_assert(!axpby_once(ctx, dt, &st));
    ck_assert_int_eq(st, GALA_ERR_DEVICE_MEMORY);
    ck_assert_int_eq(live_buffers(ctx), 0);
    ck_assert(axpby_once(ctx, dt, &st));
}
END_TEST

/* ------------------------------------------------------------------ the sweep */

static const char *kind_name[GALA_FAULT_KINDS] = {"alloc", "build", "launch", "transfer"};

static gala_status expected_status(int kind, const tu_op *op)
{
    switch (kind) {
    case GALA_FAULT_ALLOC:
        return (op->flags & TU_OP_NO_CTX) ? GALA_ERR_OUT_OF_MEMORY : GALA_ERR_DEVICE_MEMORY;
    case GALA_FAULT_BUILD: return GALA_ERR_KERNEL_BUILD;
    default: return GALA_ERR_DEVICE;
    }
}

/* Sweep one operation for one fault kind on target t; returns the fault points found. */
static long sweep_op(int t, int kind, const tu_op *op)
{
    const tu_target *tg = tu_target_get(t);
    const int no_ctx = (op->flags & TU_OP_NO_CTX) != 0;
    if (no_ctx && kind != GALA_FAULT_ALLOC) return 0; /* host memory only */
    if ((op->flags & TU_OP_HOST_ONLY) && tg->backend != GALA_BACKEND_HOST) return 0;
    /* on a compiling backend, operations with hundreds of launches are sampled */
    const long stride = (op->flags & TU_OP_SLOW) && tg->backend != GALA_BACKEND_HOST ? 7 : 1;
    const uint64_t seed = tu_seed() + (uint64_t)t;
    long k, points = 0;
    for (k = 1; k < 100000; k += stride) {
        /* builds and workspaces are kept by a context: those sweeps start afresh each time */
        const int fresh = kind == GALA_FAULT_BUILD || kind == GALA_FAULT_ALLOC;
        gala_context *ctx = no_ctx ? NULL : fresh ? fresh_ctx(tg->backend) : tu_ctx(t);
        const long live0 = live_buffers(ctx);
        char msg[1024] = "";
        tu_fault_set(kind, k);
        gala_status st = op->run(ctx, tg->dtype, seed, msg, sizeof msg);
        const long left = tu_fault_left();
        const int windows = tu_fault_windows();
        tu_fault_set(-1, 0);
        TU_ASSERT(windows > 0, t, "%s opened no fault window", op->name);
        if (left > 0) { /* the calls never reached the k-th operation: done */
            TU_ASSERT(st == GALA_OK, t, "%.40s (%s fault %ld not reached) failed: %.60s: %.300s", op->name,
                      kind_name[kind], k, gala_status_string(st), msg);
            if (fresh) gala_context_destroy(ctx);
            break;
        }
        points++;
        TU_ASSERT(st == expected_status(kind, op), t, "%.40s with %s fault %ld returned %.60s: %.300s",
                  op->name, kind_name[kind], k, gala_status_string(st), msg);
        /* a simulated failure of host malloc (TU_OP_NO_CTX) is an ordinary out-of-memory */
        TU_ASSERT(strstr(msg, (op->flags & TU_OP_NO_CTX) ? ": " : "injected") != NULL, t,
                  "%.40s with %s fault %ld: the message does not name the fault: %.300s", op->name,
                  kind_name[kind], k, msg);
        TU_ASSERT(live_buffers(ctx) == live0, t, "%s with %s fault %ld: %ld buffers leaked",
                  op->name, kind_name[kind], k, live_buffers(ctx) - live0);
        /* the context (and the library) is still usable: the same work succeeds */
        msg[0] = '\0';
        st = op->run(ctx, tg->dtype, seed + 1, msg, sizeof msg);
        TU_ASSERT(st == GALA_OK, t, "%.40s after %s fault %ld: %.60s: %.300s", op->name, kind_name[kind], k,
                  gala_status_string(st), msg);
        TU_ASSERT(live_buffers(ctx) == live0, t, "%s after %s fault %ld: buffers leaked",
                  op->name, kind_name[kind], k);
        if (fresh) gala_context_destroy(ctx);
    }
    if (getenv("GALA_TEST_VERBOSE"))
        printf("fault sweep %-28s %-8s %-32s %ld fault points\n", op->name, kind_name[kind],
               tg->name, points);
    return points;
}

static void sweep_kind(int t, int kind)
{
    long total = 0;
    for (int i = 0; i < tu_op_count; ++i) total += sweep_op(t, kind, &tu_ops[i]);
    TU_ASSERT(total > 0, t, "the %s sweep found no fault point at all", kind_name[kind]);
}

START_TEST(sweep_alloc) { sweep_kind(_i, GALA_FAULT_ALLOC); }
END_TEST
START_TEST(sweep_build) { sweep_kind(_i, GALA_FAULT_BUILD); }
END_TEST
START_TEST(sweep_launch) { sweep_kind(_i, GALA_FAULT_LAUNCH); }
END_TEST
START_TEST(sweep_transfer) { sweep_kind(_i, GALA_FAULT_TRANSFER); }
END_TEST

/* Every operation of the catalogue succeeds without faults (so a sweep that stops at k = 1
 * means "no fault point", not "broken operation"). */
START_TEST(catalogue_runs_clean)
{
    for (int i = 0; i < tu_op_count; ++i) {
        const tu_op *op = &tu_ops[i];
        gala_context *ctx = (op->flags & TU_OP_NO_CTX) ? NULL : tu_ctx(_i);
        const long live0 = live_buffers(ctx);
        char msg[1024] = "";
        gala_status st = op->run(ctx, tu_target_get(_i)->dtype, tu_seed() + 7, msg, sizeof msg);
        TU_ASSERT(st == GALA_OK, _i, "%.40s: %.60s: %.300s", op->name, gala_status_string(st), msg);
        TU_ASSERT(live_buffers(ctx) == live0, _i, "%s leaked buffers", op->name);
    }
}
END_TEST

/* ------------------------------------------------------------------ GALA_FAULT */

/* Child: run operation `name` on the host backend twice; exit code 16·(−first status) +
 * (−second status). */
static int child(const char *name)
{
    const tu_op *op = NULL;
    for (int i = 0; i < tu_op_count; ++i)
        if (strcmp(tu_ops[i].name, name) == 0) op = &tu_ops[i];
    if (!op) return 255;
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = GALA_BACKEND_HOST;
    gala_context *ctx = NULL;
    if (gala_context_create(&o, &ctx) != GALA_OK) return 254;
    char msg[1024];
    gala_status a = op->run(ctx, GALA_DOUBLE, 12345, msg, sizeof msg);
    int named = a == GALA_OK || strstr(msg, (op->flags & TU_OP_NO_CTX) ? ": " : "injected");
    gala_status b = op->run(ctx, GALA_DOUBLE, 12346, msg, sizeof msg);
    gala_stats s;
    gala_context_stats(ctx, &s);
    gala_context_destroy(ctx);
    if (!named || s.buffers_live != 0) return 253;
    return 16 * (-a) + (-b);
}

static char out_path[256];

static int spawn_child(const char *fault, const char *op)
{
    char env_fault[128];
    snprintf(env_fault, sizeof env_fault, "GALA_FAULT=%s", fault);
    /* the parent's environment, with GALA_FAULT replaced */
    size_t n = 0;
    while (environ[n]) ++n;
    char **env = calloc(n + 2, sizeof *env);
    size_t m = 0;
    for (size_t i = 0; i < n; ++i)
        if (strncmp(environ[i], "GALA_FAULT=", 11) != 0) env[m++] = environ[i];
    env[m++] = env_fault;
    char *argv[] = {self_path, "--child", (char *)op, NULL};
    pid_t pid;
    /* the child's stdout and stderr go to a file that must stay empty: the library never
     * prints, on error paths neither */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    ck_assert_int_eq(posix_spawn(&pid, self_path, &fa, NULL, argv, env), 0);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    int ws = 0;
    ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
    ck_assert_msg(WIFEXITED(ws), "child with GALA_FAULT=%s (%s) died: status %d", fault, op, ws);
    return WEXITSTATUS(ws);
}

START_TEST(environment_variable_arms_faults)
{
    static const struct { const char *fault, *op; gala_status first; } cases[] = {
        {"launch:1", "axpby", GALA_ERR_DEVICE},
        {"transfer:1", "buffer_transfer", GALA_ERR_DEVICE},
        {"build:1", "potrf", GALA_ERR_KERNEL_BUILD},
        {"alloc:1", "buffer_create", GALA_ERR_DEVICE_MEMORY},
        {"alloc:2", "qps_write+read", GALA_ERR_OUT_OF_MEMORY},
        {"launch:3,transfer:999", "potrf_vbatched", GALA_ERR_DEVICE},
        {"alloc_over:4000", "buffer_create", GALA_ERR_DEVICE_MEMORY}, /* 1000 elements */
        {"alloc_over:100000", "buffer_create", GALA_OK},
        {"", "potrf", GALA_OK},
    };
    snprintf(out_path, sizeof out_path, "/tmp/gala-fault-output-%ld", (long)getpid());
    unlink(out_path);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        int code = spawn_child(cases[i].fault, cases[i].op);
        /* the second run succeeds unless the limit is permanent (alloc_over) */
        int second = strstr(cases[i].fault, "alloc_over") ? -cases[i].first : 0;
        ck_assert_msg(code == 16 * -cases[i].first + second,
                      "GALA_FAULT=%s on %s: child exit %d, expected %d", cases[i].fault,
                      cases[i].op, code, 16 * -cases[i].first + second);
    }
    struct stat sb;
    ck_assert_int_eq(stat(out_path, &sb), 0);
    ck_assert_msg(sb.st_size == 0, "the children printed %lld bytes (see %s)", (long long)sb.st_size,
                  out_path);
    unlink(out_path);
}
END_TEST

int main(int argc, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n > 0) self_path[n] = '\0';
    if (argc > 2 && strcmp(argv[1], "--child") == 0) return child(argv[2]);
    Suite *s = suite_create("fault");
    TCase *tc = tcase_create("fault");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, each_fault_kind_is_reported_and_recovered, 0, nt);
    tcase_add_loop_test(tc, second_allocation_fails, 0, nt);
    tcase_add_loop_test(tc, catalogue_runs_clean, 0, nt);
    tcase_add_loop_test(tc, sweep_alloc, 0, nt);
    tcase_add_loop_test(tc, sweep_build, 0, nt);
    tcase_add_loop_test(tc, sweep_launch, 0, nt);
    tcase_add_loop_test(tc, sweep_transfer, 0, nt);
    tcase_add_test(tc, environment_variable_arms_faults);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
