/*
 * gala-cuda-store: compile the CUDA backend's prebuilt kernel store at build time
 * (docs/cuda.md, "Prebuilt kernels"). Every program of a list (tests/offline_programs.c
 * --cuda writes it: family TAB options ...), and the backend's built-in kernels, are
 * compiled for every target with gala's own NVRTC path (the source text, arguments and
 * options the backend uses at run time) on several threads, and written to OUT as entries
 * in the kernel cache's file format plus index.txt. An entry already in OUT with the same
 * identity is kept, not compiled again, so a rebuild compiles only the programs whose
 * source or options changed; entries no longer listed are removed. A program NVRTC
 * rejects is reported and left out (at run time it is compiled, and rejected, as without
 * a store).
 *
 * usage: gala-cuda-store --list FILE --out DIR --archs "80-real;90" [--jobs N]
 * archs as CMAKE_CUDA_ARCHITECTURES spells them: "90" = CUBIN for sm_90 and PTX for
 * compute_90, "90-real" = CUBIN only, "90-virtual" = PTX only.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/kernel.h"
#include "core/program.h"
#include "device/cuda/nvrtc_compile.h"

enum { MAXPROG = 4096 };

typedef struct job {
    const char *family, *options, *target, *source;
    char file[128];
    size_t bytes;
    int ok, kept;
    double secs;
    char *err;
} job;

static struct {
    const char *out;
    job *jobs;
    int njobs;
    atomic_int next, done;
    pthread_mutex_t mu;
} g;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static char *dup_text(const char *t)
{
    size_t n = strlen(t) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, t, n);
    return d;
}

static void run_job(job *j)
{
    gala_nvrtc_args args;
    size_t id_len = 0;
    const int cubin = strncmp(j->target, "sm_", 3) == 0;
    const double t0 = now();
    if (gala_nvrtc_args_make(NULL, j->target, j->options, &args) != GALA_OK) {
        j->err = dup_text(gala_last_error(NULL));
        return;
    }
    char *id = gala_cuda_store_id(&args, j->source, &id_len);
    if (!id || gala_kstore_entry_name(j->family, id, id_len, j->file, sizeof j->file) != 0) {
        j->err = dup_text("out of memory");
        free(id);
        return;
    }
    void *img = NULL;
    size_t size = 0;
    if (gala_kstore_load(g.out, j->family, id, id_len, &img, &size)) { /* unchanged: kept */
        j->ok = j->kept = 1;
        j->bytes = size;
        gala_free(img);
        gala_free(id);
        return;
    }
    char what[1024], name[64];
    snprintf(what, sizeof what, "%s (%s) for %s", j->family, j->options, j->target);
    snprintf(name, sizeof name, "%s.cu", j->family);
    if (gala_nvrtc_compile(NULL, what, name, j->source, &args, cubin, &img, &size) != GALA_OK) {
        j->err = dup_text(gala_last_error(NULL));
    } else if (gala_kstore_write(g.out, j->family, id, id_len, img, size) != 0) {
        j->err = dup_text("cannot write the entry");
    } else {
        j->ok = 1;
        j->bytes = size;
    }
    gala_free(img);
    gala_free(id);
    j->secs = now() - t0;
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i; (i = atomic_fetch_add(&g.next, 1)) < g.njobs;) {
        job *j = &g.jobs[i];
        run_job(j);
        const int d = atomic_fetch_add(&g.done, 1) + 1;
        pthread_mutex_lock(&g.mu);
        if (!j->kept)
            printf("[%d/%d] %s %s %s: %s (%.1f s)\n", d, g.njobs, j->target, j->family,
                   j->options, j->ok ? "compiled" : "FAILED", j->secs);
        fflush(stdout);
        pthread_mutex_unlock(&g.mu);
    }
    return NULL;
}

/* "80-real;90" -> "sm_80", "sm_90", "compute_90" */
static int parse_archs(const char *spec, char targets[][16], int cap)
{
    int n = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    for (char *w = strtok_r(buf, "; ,", &save); w; w = strtok_r(NULL, "; ,", &save)) {
        int a = 0;
        char tail[32] = "";
        if (sscanf(w, "%d%31s", &a, tail) < 1 || a < 10 ||
            (tail[0] && strcmp(tail, "-real") && strcmp(tail, "-virtual"))) {
            fprintf(stderr, "gala-cuda-store: bad architecture '%s' (e.g. 90, 90-real, 90-virtual)\n", w);
            return -1;
        }
        int arch = 0, exact = 0;
        if (!gala_nvrtc_pick_arch(a, &arch, &exact) || !exact) {
            int lo, hi, major, minor;
            gala_nvrtc_arch_range(&lo, &hi);
            gala_nvrtc_version(&major, &minor);
            fprintf(stderr, "gala-cuda-store: NVRTC %d.%d does not compile for architecture %d "
                            "(it supports %d to %d)\n", major, minor, a, lo, hi);
            return -1;
        }
        for (int kind = 0; kind < 2; ++kind) {
            char t[16];
            if (strcmp(tail, kind ? "-real" : "-virtual") == 0) continue;
            snprintf(t, sizeof t, "%s_%d", kind ? "compute" : "sm", a);
            int dup = 0;
            for (int k = 0; k < n; ++k) dup |= strcmp(targets[k], t) == 0;
            if (!dup && n < cap) memcpy(targets[n++], t, sizeof t);
        }
    }
    return n;
}

/* Remove the entries (*.bin) of dir that the new index does not list. */
static void prune(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".bin")) continue;
        int listed = 0;
        for (int i = 0; i < g.njobs && !listed; ++i)
            listed = g.jobs[i].ok && !strcmp(g.jobs[i].file, e->d_name);
        if (!listed) {
            char path[4400];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    const char *list = NULL, *archs = NULL;
    int jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--list")) list = argv[i + 1];
        else if (!strcmp(argv[i], "--out")) g.out = argv[i + 1];
        else if (!strcmp(argv[i], "--archs")) archs = argv[i + 1];
        else if (!strcmp(argv[i], "--jobs")) jobs = atoi(argv[i + 1]);
        else list = NULL, i = argc;
    }
    if (!list || !g.out || !archs || argc % 2 == 0) {
        fprintf(stderr, "usage: gala-cuda-store --list FILE --out DIR --archs \"80-real;90\" [--jobs N]\n");
        return 2;
    }
    if (jobs < 1) jobs = 1;
    if (jobs > 64) jobs = 64;
    /* the run-time defaults: what the backend hands NVRTC when the user sets nothing */
    unsetenv("GALA_NVRTC_OPTIONS");
    unsetenv("GALA_CL_DIR");
    char targets[GALA_CUDA_STORE_MAX_TARGETS][16];
    const int nt = parse_archs(archs, targets, GALA_CUDA_STORE_MAX_TARGETS);
    if (nt <= 0) {
        if (nt == 0) fprintf(stderr, "gala-cuda-store: no architecture in '%s'\n", archs);
        return 2;
    }
    FILE *f = fopen(list, "r");
    if (!f) {
        fprintf(stderr, "gala-cuda-store: cannot read %s\n", list);
        return 1;
    }
    /* the list: family TAB options [TAB ...]; sources assembled once per family */
    static char fam[MAXPROG][32], opts[MAXPROG][768];
    static char *src[MAXPROG];
    int np = 0;
    char line[2048];
    while (np < MAXPROG && fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = '\0';
        char *o = tab + 1, *end = strpbrk(o, "\t\n");
        if (end) *end = '\0';
        if (strlen(line) >= sizeof fam[np] || strlen(o) >= sizeof opts[np]) {
            fprintf(stderr, "gala-cuda-store: line too long in %s: %s\n", list, line);
            fclose(f);
            return 1;
        }
        memcpy(fam[np], line, strlen(line) + 1);
        memcpy(opts[np], o, strlen(o) + 1);
        src[np] = NULL;
        for (int k = 0; k < np && !src[np]; ++k)
            if (!strcmp(fam[k], fam[np])) src[np] = src[k];
        if (!src[np] && gala_kernel_source(NULL, fam[np], &src[np]) != GALA_OK) {
            fprintf(stderr, "gala-cuda-store: %s\n", gala_last_error(NULL));
            fclose(f);
            return 1;
        }
        ++np;
    }
    fclose(f);
    if (np == 0) {
        fprintf(stderr, "gala-cuda-store: no programs in %s\n", list);
        return 1;
    }
    /* the backend's own built-in kernels (the 8-byte fill), which no algorithm lists */
    if (np < MAXPROG) {
        const char *b = gala_cuda_builtin_source();
        src[np] = gala_malloc(strlen(b) + 1);
        if (!src[np]) return 1;
        memcpy(src[np], b, strlen(b) + 1);
        strcpy(fam[np], "cuda_builtin");
        opts[np][0] = '\0';
        ++np;
    }
    g.njobs = np * nt;
    g.jobs = calloc((size_t)g.njobs, sizeof *g.jobs);
    if (!g.jobs) return 1;
    for (int p = 0, k = 0; p < np; ++p)
        for (int t = 0; t < nt; ++t, ++k)
            g.jobs[k] = (job){.family = fam[p], .options = opts[p], .target = targets[t], .source = src[p]};
    pthread_mutex_init(&g.mu, NULL);
    const double t0 = now();
    pthread_t th[64];
    int started = 0;
    for (; started < jobs - 1; ++started)
        if (pthread_create(&th[started], NULL, worker, NULL) != 0) break;
    worker(NULL);
    for (int i = 0; i < started; ++i) pthread_join(th[i], NULL);

    /* the index, written last and renamed into place: no index, no store */
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/" GALA_CUDA_STORE_INDEX, g.out);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *x = fopen(tmp, "w");
    if (!x) {
        fprintf(stderr, "gala-cuda-store: cannot write %s\n", tmp);
        return 1;
    }
    int major, minor, ok = 0, kept = 0, failed = 0;
    size_t bytes = 0;
    gala_nvrtc_version(&major, &minor);
    fprintf(x, "# gala's prebuilt CUDA kernels (docs/cuda.md, \"Prebuilt kernels\"); written by "
               "gala-cuda-store\nnvrtc %d.%d\narchs %s\ntargets", major, minor, archs);
    for (int t = 0; t < nt; ++t) fprintf(x, " %s", targets[t]);
    fprintf(x, "\n# entry<TAB>file<TAB>target<TAB>family<TAB>options<TAB>bytes\n");
    for (int i = 0; i < g.njobs; ++i) {
        const job *j = &g.jobs[i];
        if (j->ok) {
            fprintf(x, "entry\t%s\t%s\t%s\t%s\t%zu\n", j->file, j->target, j->family, j->options,
                    j->bytes);
            ++ok;
            kept += j->kept;
            bytes += j->bytes;
        } else {
            fprintf(x, "failed\t-\t%s\t%s\t%s\t0\n", j->target, j->family, j->options);
            fprintf(stderr, "gala-cuda-store: %s %s (%s) left out: %.2000s\n", j->target,
                    j->family, j->options, j->err ? j->err : "?");
            ++failed;
        }
    }
    int wrote = fclose(x) == 0 && ok > 0 && rename(tmp, path) == 0;
    if (!wrote) unlink(tmp);
    else prune(g.out);
    printf("gala-cuda-store: %d programs x %d targets: %d entries (%d kept from before, %.1f MB), "
           "%d left out; %.0f s with %d threads\n",
           np, nt, ok, kept, (double)bytes / 1e6, failed, now() - t0, started + 1);
    for (int i = 0; i < g.njobs; ++i) free(g.jobs[i].err);
    free(g.jobs);
    for (int p = 0; p < np; ++p) { /* sources are shared by the programs of a family */
        int first = 1;
        for (int k = 0; k < p && first; ++k) first = src[k] != src[p];
        if (first) gala_free(src[p]);
    }
    return wrote ? 0 : 1;
}
