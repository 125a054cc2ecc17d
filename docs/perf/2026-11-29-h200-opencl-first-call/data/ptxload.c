/* Issue 37 experiment (not part of gala): per program of a list, on NVIDIA's OpenCL,
 * (a) build from source, (b) rebuild from the driver's own PTX (clGetProgramInfo), (c) build
 * clang-15's PTX (nvptx64-nvidia-nvcl + libclc) given as a file; then (d) all the clang PTX
 * programs built at once on T threads. CUDA_CACHE_DISABLE=1 should be set.
 * usage: ptxload SRC_DIR LIST PTX_DIR THREADS  (LIST lines: family<TAB>options; PTX_DIR/<line>.ptx) */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static char *slurp(const char *p, size_t *n) {
    FILE *f = fopen(p, "rb"); if (!f) return NULL;
    fseek(f, 0, SEEK_END); long l = ftell(f); fseek(f, 0, SEEK_SET);
    char *b = malloc(l + 1); if (fread(b, 1, l, f) != (size_t)l) { fclose(f); free(b); return NULL; }
    b[l] = 0; fclose(f); if (n) *n = l; return b;
}
static cl_context C; static cl_device_id D;
static int build_bin(const char *bin, size_t n, const char *opts, double *t, int *nk, char *log, size_t lcap) {
    const unsigned char *b = (const unsigned char *)bin; cl_int bs, e;
    double t0 = now();
    cl_program p = clCreateProgramWithBinary(C, 1, &D, &n, &b, &bs, &e);
    if (e != CL_SUCCESS || bs != CL_SUCCESS) { snprintf(log, lcap, "create %d/%d", e, bs); return -1; }
    e = clBuildProgram(p, 1, &D, opts, NULL, NULL);
    *t = now() - t0;
    if (e != CL_SUCCESS) { size_t l = 0; clGetProgramBuildInfo(p, D, CL_PROGRAM_BUILD_LOG, lcap, log, &l); clReleaseProgram(p); return e; }
    cl_uint k = 0; cl_kernel ks[64]; clCreateKernelsInProgram(p, 64, ks, &k); *nk = (int)k;
    for (cl_uint i = 0; i < k; ++i) clReleaseKernel(ks[i]);
    clReleaseProgram(p); return 0;
}
typedef struct { char *bin; size_t n; const char *opts; double t; int rc, nk; } job;
static job jobs[512]; static int njobs, next; static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static void *worker(void *a) { (void)a; char log[256];
    for (;;) { pthread_mutex_lock(&mu); int i = next++; pthread_mutex_unlock(&mu); if (i >= njobs) return NULL;
        jobs[i].rc = build_bin(jobs[i].bin, jobs[i].n, jobs[i].opts, &jobs[i].t, &jobs[i].nk, log, sizeof log); } }
int main(int argc, char **argv) {
    if (argc < 5) return 2;
    const char *src_dir = argv[1], *list = argv[2], *ptx_dir = argv[3]; int T = atoi(argv[4]);
    cl_platform_id ps[8]; cl_uint np = 0; clGetPlatformIDs(8, ps, &np);
    for (cl_uint i = 0; i < np && !D; ++i) { char nm[256]; clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof nm, nm, NULL);
        if (strstr(nm, "NVIDIA")) clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_GPU, 1, &D, NULL); }
    if (!D) { puts("no NVIDIA device"); return 1; }
    cl_int e; C = clCreateContext(NULL, 1, &D, NULL, NULL, &e);
    FILE *f = fopen(list, "r"); char line[2048]; int ln = 0;
    static char log[1 << 16];
    printf("line family src_s nvptx_jit_s nvptx_kernels clang_jit_s clang_kernels clang_rc nv_ptx_bytes clang_ptx_bytes options\n");
    while (fgets(line, sizeof line, f)) {
        ++ln; line[strcspn(line, "\n")] = 0;
        char *tab = strchr(line, '\t'); if (!tab) continue; *tab = 0; const char *fam = line; char *opts = tab + 1;
        char *t2 = strchr(opts, '\t'); if (t2) *t2 = 0;
        char path[1024]; snprintf(path, sizeof path, "%s/common.clh", src_dir); char *common = slurp(path, NULL);
        snprintf(path, sizeof path, "%s/%s.cl", src_dir, fam); char *body = slurp(path, NULL);
        size_t sl = strlen(common) + strlen(body) + 64; char *src = malloc(sl);
        snprintf(src, sl, "%s\n%s\n", common, body);
        char o2[4096]; snprintf(o2, sizeof o2, "%s -I %s", opts, src_dir);
        double t0 = now(); const char *s = src;
        cl_program p = clCreateProgramWithSource(C, 1, &s, NULL, &e);
        e = clBuildProgram(p, 1, &D, o2, NULL, NULL); double ts = now() - t0;
        size_t bsz = 0; char *nv = NULL;
        if (e == CL_SUCCESS) { clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bsz, &bsz, NULL);
            nv = malloc(bsz + 1); clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof nv, &nv, NULL); nv[bsz] = 0; }
        else { clGetProgramBuildInfo(p, D, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL); printf("# line %d source build %d: %.300s\n", ln, e, log); }
        clReleaseProgram(p);
        double tn = -1, tc = -1; int kn = -1, kc = -1, rc = -9;
        if (nv) build_bin(nv, bsz, o2, &tn, &kn, log, sizeof log);
        snprintf(path, sizeof path, "%s/%d.ptx", ptx_dir, ln); size_t cn = 0; char *cp = slurp(path, &cn);
        if (cp) { rc = build_bin(cp, cn + 1, o2, &tc, &kc, log, sizeof log);
            if (rc) printf("# line %d clang ptx rc %d: %.600s\n", ln, rc, log);
            if (njobs < 512) { jobs[njobs].bin = cp; jobs[njobs].n = cn + 1; jobs[njobs].opts = strdup(o2); ++njobs; } }
        printf("%d %s %.3f %.3f %d %.3f %d %d %zu %zu %s\n", ln, fam, ts, tn, kn, tc, kc, rc, bsz, cn, opts);
        fflush(stdout);
        free(nv); free(src); free(common); free(body);
    }
    /* all clang programs again, T threads (CUDA cache disabled: every build JITs) */
    for (int rep = 0; rep < 2; ++rep) {
        int th = rep == 0 ? 1 : T; next = 0;
        pthread_t ts[64]; double t0 = now();
        for (int i = 0; i < th; ++i) pthread_create(&ts[i], NULL, worker, NULL);
        for (int i = 0; i < th; ++i) pthread_join(ts[i], NULL);
        double sum = 0; int bad = 0; for (int i = 0; i < njobs; ++i) { sum += jobs[i].t; bad += jobs[i].rc != 0; }
        printf("all %d clang programs on %d threads: wall %.3f s, sum of builds %.3f s, failed %d\n", njobs, th, now() - t0, sum, bad);
    }
    return 0;
}
