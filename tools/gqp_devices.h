/*
 * The devices one batch is divided among (`--devices` of gala-qp and bench_qp): a backend's
 * devices in gala_device_list's order, the indices or "all" a user gives, and a context on
 * one listed device. Header only; not installed.
 */
#ifndef GALA_TOOLS_GQP_DEVICES_H
#define GALA_TOOLS_GQP_DEVICES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gala/gala.h"

/** The devices of `backend`, in gala_device_list's order (the indices `--devices` takes):
 *  malloc'd, *count of them; NULL when the devices cannot be listed. */
static inline gala_device_desc *gqp_backend_devices(gala_backend backend, int *count)
{
    int nall = 0;
    *count = 0;
    if (gala_device_list(NULL, 0, &nall) != GALA_OK) return NULL;
    gala_device_desc *all = calloc((size_t)(nall > 0 ? nall : 1), sizeof *all);
    if (!all || gala_device_list(all, nall, &nall) != GALA_OK) {
        free(all);
        return NULL;
    }
    for (int i = 0; i < nall; ++i)
        if (all[i].backend == backend) all[(*count)++] = all[i];
    return all;
}

/** `spec`: "all" (every one of the n devices whose is_gpu is `is_gpu`) or indices 0..n − 1
 *  separated by commas, into pick (at most cap; "all" stops there, a longer list is
 *  malformed). The count, or −1 when malformed. */
static inline int gqp_pick_devices(const char *spec, const gala_device_desc *devs, int n,
                                   int is_gpu, int *pick, int cap)
{
    int k = 0;
    if (!strcmp(spec, "all")) {
        for (int i = 0; i < n && k < cap; ++i)
            if (devs[i].is_gpu == is_gpu) pick[k++] = i;
        return k;
    }
    for (const char *p = spec; *p;) {
        char *end;
        const long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || v < 0 || v >= n || k == cap) return -1;
        pick[k++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return k;
}

/** A context on the listed device d (its backend, platform and index; the environment's
 *  selection not applied), with device timing when `profiling`. */
static inline gala_status gqp_context_on(const gala_device_desc *d, int profiling,
                                         gala_context **ctx)
{
    gala_context_options co;
    gala_context_options_default(&co);
    co.use_environment = 0;
    co.profiling = profiling;
    co.backend = d->backend;
    char plat[16], dev[16];
    snprintf(plat, sizeof plat, "%d", d->platform_index);
    snprintf(dev, sizeof dev, "%d", d->device_index);
    co.platform = d->backend == GALA_BACKEND_OPENCL ? plat : NULL;
    co.device = d->backend == GALA_BACKEND_HOST ? NULL : dev;
    return gala_context_create(&co, ctx);
}

#endif
