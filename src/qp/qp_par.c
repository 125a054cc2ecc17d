/* How many host threads the per-QP host work of the QP solver (validation, copies, results)
 * asks for, and the pattern hash. The loops themselves run on the context's worker threads
 * (gala_par, src/core/pool.c), which only compute on host memory and report nothing but
 * through the arrays they fill. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "qp_internal.h"

#define QP_MAX_THREADS 64

int gala_qp_threads_for(int setting, double work)
{
    if (setting > 0) return setting > QP_MAX_THREADS ? QP_MAX_THREADS : setting;
    double want = work / 32768.0;
    /* one thread for small batches, without asking for the cores: glibc reads
     * /sys/devices/system/cpu/online for that, 14 % of a tiny QP's setup and solve */
    if (want < 2) return 1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    if (cores > 16) cores = 16;
    return want < (double)cores ? (int)want : (int)cores;
}

uint64_t gala_qp_hash_ints(const int *v, size_t n, uint64_t h)
{
    /* two words at a time: a multiply and a xor-shift per 8 bytes */
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint64_t w = (uint64_t)(uint32_t)v[i] | ((uint64_t)(uint32_t)v[i + 1] << 32);
        h ^= w;
        h *= 0x9e3779b97f4a7c15ULL;
        h ^= h >> 31;
    }
    if (i < n) {
        h ^= (uint64_t)(uint32_t)v[i] | (1ULL << 40);
        h *= 0x9e3779b97f4a7c15ULL;
        h ^= h >> 31;
    }
    h ^= (uint64_t)n;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}
