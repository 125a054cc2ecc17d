/*
 * One expansion of the tuning keys (tuning_keys.h): define the GALA_TUNE_* macros the
 * expansion uses, then include this file. The ones left undefined expand to nothing
 * (GALA_TUNE_KEY_CTX to GALA_TUNE_KEY: a per-context key is a key), and all four are
 * undefined afterwards, ready for the next expansion. No include guard: an X-macro file.
 *
 *     #define GALA_TUNE_KEY(fam, name, type, def, lo, hi, doc) GALA_TK_##fam##_##name,
 *     #include "tuning_expand.h"
 */
#ifndef GALA_TUNE_FAMILY
#define GALA_TUNE_FAMILY(fam, prefix, doc)
#endif
#ifndef GALA_TUNE_KEY
#define GALA_TUNE_KEY(fam, name, type, def, lo, hi, doc)
#endif
#ifndef GALA_TUNE_KEY_CTX
#define GALA_TUNE_KEY_CTX GALA_TUNE_KEY
#endif
#ifndef GALA_TUNE_END
#define GALA_TUNE_END(fam)
#endif
#include "tuning_keys.h"
#undef GALA_TUNE_FAMILY
#undef GALA_TUNE_KEY
#undef GALA_TUNE_KEY_CTX
#undef GALA_TUNE_END
