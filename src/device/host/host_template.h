/*
 * Compile a host template body for both element types. A file (a kernel family k_<family>.c,
 * or blas3.c) keeps its body under `#ifdef REAL` and, in its own part, writes
 *
 *     #define HOST_TEMPLATE "k_<family>.c"
 *     #include "host_template.h"
 *
 * which includes HOST_TEMPLATE twice: with REAL float and SUF(x) = x##_f, then with REAL
 * double and SUF(x) = x##_d (the kernels' float and double versions). Deliberately without
 * an include guard: every such file includes it once.
 */
#ifndef HOST_TEMPLATE
#error "define HOST_TEMPLATE (the family file) before including host_template.h"
#endif

#define REAL float
#define SUF(x) x##_f
#include HOST_TEMPLATE
#undef REAL
#undef SUF
#define REAL double
#define SUF(x) x##_d
#include HOST_TEMPLATE
#undef REAL
#undef SUF
#undef HOST_TEMPLATE
